/* Approximate convex decomposition of a closed triangle mesh (a mug, a bin, a block with a
 * hole) into convex parts for a composite body.
 *
 * Volumetric and exact on the mesh: the mesh's bounding box is cut recursively by planes
 * into convex cells, and each cell's part is the convex hull of the solid's piece in it (the
 * mesh's triangles clipped to the cell, plus the cell's corners inside the solid), so the
 * parts cover the solid and their total volume exceeds the mesh's by their hulls' concavity
 * only. Each part's best cut is the plane that leaves the smallest total hull volume among
 * the candidates (9 directions: the axes and the diagonals of the coordinate planes; on
 * each, 7 even fractions of the piece's extent and up to 8 of its vertices' positions); the
 * part whose best cut removes the most volume is cut first (the largest part when no cut
 * removes any, as for a hollow cut in half), until the parts' volume is within concavity x
 * the mesh's volume or there are max_parts parts.
 *
 * The mesh must be closed and consistently oriented outwards: every edge shared by exactly
 * two triangles in opposite directions, after welding vertices with identical coordinates
 * (OBJ and STL files repeat a vertex per triangle or per texture seam). An open mesh whose
 * edges are otherwise so has its holes capped first (options.holes "close", the default;
 * runtime/shapes/mesh_close_holes.h) or is refused ("refuse"). */
#ifndef LUCID_MESH_DECOMPOSE_H
#define LUCID_MESH_DECOMPOSE_H

#include "runtime/core/option_table.h"
#include "runtime/core/status.h"

/* The most parts asked for: the decomposition allocates a cell per part up front. */
#define LUCID_DECOMPOSE_MAX_PARTS 1048576

/* What an open mesh's holes get (runtime/shapes/mesh_close_holes.h). */
enum { LUCID_HOLES_CLOSE = 0, LUCID_HOLES_REFUSE = 1 };

typedef struct lucid_decompose_options {
    int max_parts;    /* 1 .. LUCID_DECOMPOSE_MAX_PARTS */
    double concavity; /* finite, > 0: the parts' total volume may exceed the mesh's by this
                         fraction of it */
    int holes;        /* LUCID_HOLES_CLOSE: caps an open mesh's holes first; _REFUSE: an error */
} lucid_decompose_options;

/* Defaults: 64 parts, concavity 0.01, holes closed (the documented values of
 * lucid.mesh.decompose). */
lucid_decompose_options lucid_decompose_default_options(void);

/* The options described (option_table.h): lucid_mesh_decompose's check and the Lua readers of
 * lucid.mesh.decompose and lucid.model.load's decompose. */
extern const lucid_option lucid_decompose_option_table[];

typedef struct lucid_decomposition {
    int num_parts;
    int *part_offsets;   /* num_parts + 1 entries: part p is points[offsets[p], offsets[p+1]) */
    double *points;      /* xyz triples: the hull vertices of every part, part after part */
    double mesh_volume;  /* the closed mesh's own volume (signed tetrahedra) */
    double parts_volume; /* the sum of the parts' hull volumes */
    int holes_closed;    /* holes capped (options.holes "close"), their edges, and the largest */
    int hole_edges;      /* distance of a hole's vertex from its hole's plane */
    double hole_deviation;
    int *cap_triangles; /* the caps: 0-based triples into the input's points (the mesh's
                           triangles and these are the closed surface decomposed) */
    int num_cap_triangles;
} lucid_decomposition;

/* Decomposes the mesh of num_points xyz points and num_triangles vertex-index triples
 * (0-based). Errors (message in err, "reason"): bad sizes, indices or options
 * LUCID_ERR_ARGUMENT; NaN/Inf LUCID_ERR_NONFINITE; a mesh that is not closed (and whose holes
 * are refused or cannot be capped), not consistently oriented, or has a zero or negative volume
 * LUCID_ERR_DEGENERATE; LUCID_ERR_NO_MEMORY.
 * On success release out with lucid_decomposition_free. */
lucid_status lucid_mesh_decompose(const double *points, int num_points, const int *triangles,
                                  int num_triangles, const lucid_decompose_options *options,
                                  lucid_decomposition *out, char *err, int err_size);
void lucid_decomposition_free(lucid_decomposition *d);

#endif
