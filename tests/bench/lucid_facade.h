/* The lucid side of bench_collision: a plain-C facade over lucid's shapes and collision
 * queries, compiled as C11 like the rest of lucid, so the C++ benchmark driver (which needs
 * C++ for FCL and Bullet) never includes lucid's headers. Poses are 12 doubles: a rotation
 * matrix stored column-major, then the translation (the memory layout of lucid_se3). */
#ifndef LUCID_FACADE_H
#define LUCID_FACADE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_lucid_shape bench_lucid_shape;

bench_lucid_shape *bench_lucid_ellipsoid(double rx, double ry, double rz);
bench_lucid_shape *bench_lucid_box(double hx, double hy, double hz);
/* Convex hull of n points (xyz interleaved); NULL (and a message in err) on failure. */
bench_lucid_shape *bench_lucid_hull(const double *points, int n, char *err, int err_size);
void bench_lucid_shape_destroy(bench_lucid_shape *s);

/* Hull data of a hull shape (for the peers): vertices xyz interleaved, and the faces as
 * CSR vertex cycles (counter-clockwise seen from outside). Returns the vertex count. */
int bench_lucid_hull_vertices(const bench_lucid_shape *s, const double **xyz);
int bench_lucid_hull_faces(const bench_lucid_shape *s, const int **offsets, const int **vertices);

enum { BENCH_GJK = 0, BENCH_POLYAK = 1, BENCH_NESTEROV = 2 };
enum { BENCH_WARM_BOX = 0, BENCH_WARM_NONE = 1, BENCH_WARM_PREVIOUS = 2 };

typedef struct bench_lucid_config {
    int algorithm;  /* BENCH_GJK / BENCH_POLYAK / BENCH_NESTEROV */
    int normalize;  /* Alg. 7 direction normalisation */
    double tol;     /* duality-gap tolerance */
    int relative;   /* 0: g <= tol (m^2); 1: g <= tol * ||x||^2 */
    int warm;       /* BENCH_WARM_* */
    double epa_tol; /* EPA support-gap tolerance (m); 0 keeps lucid's default */
} bench_lucid_config;

/* Opaque per-pair memory for the "previous solution" warm start (one lucid result). */
typedef struct bench_lucid_memory bench_lucid_memory;
bench_lucid_memory *bench_lucid_memory_create(void);
void bench_lucid_memory_destroy(bench_lucid_memory *m);
void bench_lucid_memory_clear(bench_lucid_memory *m);

/* Signed distance (EPA when overlapping). p1, p2 (world witness points) may be NULL.
 * mem: read for BENCH_WARM_PREVIOUS (if it holds a result), written if store != 0. */
double bench_lucid_distance(const bench_lucid_shape *s1, const double *T1,
                            const bench_lucid_shape *s2, const double *T2,
                            const bench_lucid_config *cfg, bench_lucid_memory *mem, int store,
                            double *p1, double *p2, int *iterations);

/* Boolean check with early exit: 1 if the shapes overlap. */
int bench_lucid_collide(const bench_lucid_shape *s1, const double *T1, const bench_lucid_shape *s2,
                        const double *T2, const bench_lucid_config *cfg, bench_lucid_memory *mem,
                        int store, int *iterations);

#ifdef __cplusplus
}
#endif

#endif
