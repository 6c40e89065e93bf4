/* Closing the holes of an open triangle mesh before it is decomposed (a mug's handle modelled
 * as an open tube whose ends sit in the wall, a box with a missing face), as MeshLab's and
 * trimesh's hole filling do.
 *
 * A hole is a loop of boundary edges (edges without an opposite edge). Each is capped by a
 * triangulated disc: the loop projected on the plane of its vector area (Newell's normal) and
 * cut into ears, each cap triangle traversing the loop against the direction of the mesh's
 * own triangles there, so the cap is oriented like its neighbours. Refused, with a message:
 * a vertex where two holes touch (a non-manifold vertex: the loops are ambiguous), a hole
 * whose projection is not a simple polygon (no ear to cut: the loop overlaps itself seen along
 * its normal), and a capped piece of the mesh (a connected component holding a cap) whose
 * volume is not positive (the open surface faced into the side the cap closes: a sheet such
 * as a liquid's surface, which bounds no solid). A loop need not be planar: how far its
 * vertices lie from its plane is reported, not judged. */
#ifndef LUCID_MESH_CLOSE_HOLES_H
#define LUCID_MESH_CLOSE_HOLES_H

#include "runtime/core/status.h"

typedef struct lucid_hole_caps {
    int num_holes;        /* loops capped */
    int num_edges;        /* their boundary edges */
    double max_deviation; /* the largest distance of a hole's vertex from its hole's plane */
    int *triangles;       /* the caps' triangles: 0-based vertex-index triples */
    int num_triangles;
} lucid_hole_caps;

/* Caps every hole of the mesh of xyz points and 0-based triangles. The vertices must be
 * welded (one index per position) and no directed edge used twice (a consistently oriented,
 * manifold surface). A closed mesh gets no caps. Errors (message in err): the refusals above
 * LUCID_ERR_DEGENERATE, LUCID_ERR_NO_MEMORY, LUCID_ERR_ARGUMENT. On success release out with
 * lucid_hole_caps_free. */
lucid_status lucid_mesh_close_holes(const double *points, int num_points, const int *triangles,
                                    int num_triangles, lucid_hole_caps *out, char *err,
                                    int err_size);
void lucid_hole_caps_free(lucid_hole_caps *caps);

#endif
