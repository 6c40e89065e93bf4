/* Height fields (MuJoCo's hfield): a grid of elevations over the rectangle
 * [-size[0], size[0]] x [-size[1], size[1]] of the local xy plane, with a solid base down to
 * z = -size[3]. Elevations are normalised as MuJoCo does ((v - min) / (max - min), all 0 when
 * the field is flat) and scaled by size[2], so the surface spans z in [0, size[2]]. Sample
 * (r, c) (row-major, r along y, c along x) lies at x = -size[0] + 2 size[0] c / (ncol - 1),
 * y = -size[1] + 2 size[1] r / (nrow - 1).
 *
 * Collision treats the field as MuJoCo does: each grid cell is split into two triangles (the
 * diagonal from sample (r + 1, c) to (r, c + 1), MuJoCo's triangle strip), and each triangle
 * with the base below it is a convex triangular prism that GJK/EPA and the contact patch take
 * as a 6-vertex convex mesh (lucid_heightfield_prism, built on the caller's stack). Immutable
 * after creation. */
#ifndef LUCID_HEIGHTFIELD_H
#define LUCID_HEIGHTFIELD_H

#include "runtime/shapes/convex_mesh.h"

typedef struct lucid_heightfield {
    int nrow, ncol; /* samples along y and x, each >= 2 */
    double size[4]; /* x half-extent, y half-extent, elevation scale, base depth (all > 0) */
    double *height; /* nrow * ncol surface heights (m): size[2] * the normalised elevation */
    double top;     /* the largest height */
} lucid_heightfield;

/* A field from nrow * ncol elevations (row-major, any finite values). Errors: NULL pointers,
 * nrow or ncol < 2, nrow * ncol beyond INT_MAX, a size not > 0 or beyond LUCID_GEOMETRY_MAX
 * -> LUCID_ERR_ARGUMENT; a non-finite elevation or size -> LUCID_ERR_NONFINITE. */
lucid_status lucid_heightfield_create(int nrow, int ncol, const double *elevation,
                                      const double size[4], lucid_heightfield **out);
void lucid_heightfield_destroy(lucid_heightfield *h);
/* An identical copy (LUCID_ERR_NO_MEMORY, LUCID_ERR_ARGUMENT on NULL). */
lucid_status lucid_heightfield_copy(const lucid_heightfield *h, lucid_heightfield **out);

/* The cells [*c0, *c1) x [*r0, *r1) whose xy rectangle meets the local box [lo, hi] (empty
 * when the box misses the field or lies above its highest sample). */
void lucid_heightfield_cells(const lucid_heightfield *h, lucid_vec3 lo, lucid_vec3 hi, int *r0,
                             int *r1, int *c0, int *c1);

/* A triangular prism as a convex mesh whose arrays live in the struct itself. */
typedef struct lucid_heightfield_prism {
    lucid_convex_mesh mesh;
    lucid_vec3 vertices[6], normals[5];
    int neighbor_offsets[7], neighbors[18], climb_offsets[7], climb_neighbors[30];
    int face_offsets[6], face_vertices[18];
    double face_d[5];
} lucid_heightfield_prism;

/* Prism `tri` (0 or 1) of cell (r, c), in the field's frame; its mesh points into *p (do not
 * copy the struct). */
void lucid_heightfield_prism_build(const lucid_heightfield *h, int r, int c, int tri,
                                   lucid_heightfield_prism *p);

/* Whether a contact of prism `tri` of cell (r, c) at the surface point p with the unit normal
 * n (both local) is one of the surface's own: p inside its top triangle, or on its boundary
 * with every other top triangle that p lies on (in xy projection) below the plane through p
 * with normal n, up to 1e-9 of the field's size. Otherwise (the edge between two coplanar
 * triangles, or a valley's) the contact is an artifact of cutting the surface into prisms. */
int lucid_heightfield_supports(const lucid_heightfield *h, int r, int c, int tri, lucid_vec3 p,
                               lucid_vec3 n);

/* Whether the xy projection of p (local) lies in the top triangle `tri` of cell (r, c), up
 * to 1e-9 of the field's size. */
int lucid_heightfield_covers(const lucid_heightfield *h, int r, int c, int tri, lucid_vec3 p);

/* Support of the field's convex hull (a scan of the samples and the base corners). */
lucid_vec3 lucid_heightfield_support(const lucid_heightfield *h, lucid_vec3 dir);

#endif
