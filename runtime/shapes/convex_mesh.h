/* Convex polytopes: the convex hull of a point set (computed with libqhull_r), its vertex
 * adjacency as compact CSR arrays (no cap on the degree) and its faces as outward-oriented
 * vertex cycles with unit outward normals. Immutable after creation, so one mesh can be shared
 * by any number of shapes and threads; per-query state (the hill-climbing hint) is the
 * caller's. */
#ifndef LUCID_CONVEX_MESH_H
#define LUCID_CONVEX_MESH_H

#include "runtime/core/status.h"
#include "runtime/math/vec3.h"

/* Below this many vertices the support is a linear scan, from it on hill climbing on the
 * adjacency. Measured with tests/bench/bench_support (hulls of random sphere points): in
 * GJK-like use (a random start, then directions converging, hint carried) climbing wins from
 * 20 vertices on (n=16: 14.4 vs 13.7 ns, n=20: 15.9 vs 17.1, n=32: 18.8 vs 27.1); from a
 * cold random start on every query it wins only from ~96, but with a warm hint it is ~8 ns at
 * any size. The dispatcher is used with a carried hint, so the GJK-like crossover is used. */
#define LUCID_CONVEX_MESH_SCAN_THRESHOLD 20

/* Cold starts of hill climbing: the sphere of directions is cut into the cells of a cube map
 * (6 faces of LUCID_CONVEX_MESH_START_GRID^2 cells) and each cell keeps the support vertex of
 * its central direction, so a query without a hint starts next to its answer instead of
 * walking the hull from vertex 0. */
#define LUCID_CONVEX_MESH_START_GRID 8
#define LUCID_CONVEX_MESH_START_CELLS                                                              \
    (6 * LUCID_CONVEX_MESH_START_GRID * LUCID_CONVEX_MESH_START_GRID)

/* Most vertices tied with a stuck one that the climb explores for a way up (a cluster of
 * near-duplicate vertices or a bent polygon; their count is small on real hulls). */
#define LUCID_CONVEX_MESH_PLATEAU_MAX 32

typedef struct lucid_convex_mesh {
    int num_vertices;
    lucid_vec3 *vertices;  /* hull vertices, in increasing order of their input index */
    int *neighbor_offsets; /* num_vertices + 1 entries */
    int *neighbors;        /* neighbours of vertex i: neighbors[offsets[i] .. offsets[i+1]) */
    int *climb_offsets;    /* the graph hill climbing walks: the edges plus every pair of */
    int *climb_neighbors;  /* vertices of a polygonal (merged) face, same CSR layout */
    int num_faces;
    int *face_offsets;        /* num_faces + 1 entries */
    int *face_vertices;       /* vertex cycle of face f, counter-clockwise seen from outside */
    lucid_vec3 *face_normals; /* unit, outward */
    double *face_offsets_d;   /* face f is the plane normals[f].x = face_offsets_d[f] */
    lucid_vec3 box_center;    /* centre of the local axis-aligned bounding box of the vertices
                                 (GJK's default warm start; computed once at creation) */
    double tie_tolerance;     /* qhull's hull is convex up to this distance: values along dir
                                 within tie_tolerance |dir|_1 are ties the climb may cross */
    int start_vertex[LUCID_CONVEX_MESH_START_CELLS]; /* cube-map cell -> support vertex */
} lucid_convex_mesh;

/* Hull of points (n xyz triples, interleaved). Errors: NaN/Inf -> LUCID_ERR_NONFINITE;
 * empty, fewer than 4 distinct points, collinear, coplanar -> LUCID_ERR_DEGENERATE;
 * n < 0 or NULL pointers -> LUCID_ERR_ARGUMENT. If err/err_size are given, a short
 * human-readable reason is written there (always NUL-terminated). */
lucid_status lucid_convex_mesh_create(const double *points, int n, lucid_convex_mesh **out);
lucid_status lucid_convex_mesh_create_msg(const double *points, int n, lucid_convex_mesh **out,
                                          char *err, int err_size);
void lucid_convex_mesh_destroy(lucid_convex_mesh *mesh);

/* Index of a vertex maximising <dir, v>. Linear scan (lowest index wins ties) below
 * LUCID_CONVEX_MESH_SCAN_THRESHOLD vertices, hill climbing from *hint otherwise. hint may be
 * NULL; without a hint or with an out-of-range one (e.g. -1) the climb starts from the
 * precomputed vertex of dir's cube-map cell. *hint is updated to the result. */
int lucid_convex_mesh_support_index(const lucid_convex_mesh *mesh, lucid_vec3 dir, int *hint);
lucid_vec3 lucid_convex_mesh_support(const lucid_convex_mesh *mesh, lucid_vec3 dir, int *hint);

/* The two strategies on their own (for tests and the benchmark). */
int lucid_convex_mesh_support_scan(const lucid_convex_mesh *mesh, lucid_vec3 dir);
int lucid_convex_mesh_support_climb(const lucid_convex_mesh *mesh, lucid_vec3 dir, int start);

#endif
