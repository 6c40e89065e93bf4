/* The lucid side of bench_collision (see lucid_facade.h). */
#include "lucid_facade.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/shape.h"
#include "solvers/collision/collision.h"

struct bench_lucid_shape {
    lucid_shape shape;
    lucid_convex_mesh *mesh; /* owned; NULL for primitives */
    double *xyz;             /* hull vertices, interleaved (meshes only) */
};

struct bench_lucid_memory {
    lucid_distance_result last;
    int valid;
};

static bench_lucid_shape *wrap(lucid_status st, lucid_shape shape) {
    if (st != LUCID_OK) return NULL;
    bench_lucid_shape *s = calloc(1, sizeof *s);
    if (s) s->shape = shape;
    return s;
}

bench_lucid_shape *bench_lucid_ellipsoid(double rx, double ry, double rz) {
    lucid_shape sh;
    return wrap(lucid_shape_ellipsoid(rx, ry, rz, &sh), sh);
}

bench_lucid_shape *bench_lucid_box(double hx, double hy, double hz) {
    lucid_shape sh;
    return wrap(lucid_shape_box(hx, hy, hz, &sh), sh);
}

bench_lucid_shape *bench_lucid_hull(const double *points, int n, char *err, int err_size) {
    lucid_convex_mesh *mesh = NULL;
    if (lucid_convex_mesh_create_msg(points, n, &mesh, err, err_size) != LUCID_OK) return NULL;
    lucid_shape sh;
    bench_lucid_shape *s = wrap(lucid_shape_convex(mesh, &sh), sh);
    double *xyz = malloc(sizeof(double) * 3 * (size_t)mesh->num_vertices);
    if (!s || !xyz) {
        free(s);
        free(xyz);
        lucid_convex_mesh_destroy(mesh);
        return NULL;
    }
    for (int k = 0; k < mesh->num_vertices; ++k) lucid_vec3_store(mesh->vertices[k], xyz + 3 * k);
    s->mesh = mesh;
    s->xyz = xyz;
    return s;
}

void bench_lucid_shape_destroy(bench_lucid_shape *s) {
    if (!s) return;
    lucid_convex_mesh_destroy(s->mesh);
    free(s->xyz);
    free(s);
}

int bench_lucid_hull_vertices(const bench_lucid_shape *s, const double **xyz) {
    *xyz = s->xyz;
    return s->mesh ? s->mesh->num_vertices : 0;
}

int bench_lucid_hull_faces(const bench_lucid_shape *s, const int **offsets, const int **vertices) {
    if (!s->mesh) return 0;
    *offsets = s->mesh->face_offsets;
    *vertices = s->mesh->face_vertices;
    return s->mesh->num_faces;
}

bench_lucid_memory *bench_lucid_memory_create(void) {
    return calloc(1, sizeof(bench_lucid_memory));
}
void bench_lucid_memory_destroy(bench_lucid_memory *m) {
    free(m);
}
void bench_lucid_memory_clear(bench_lucid_memory *m) {
    m->valid = 0;
}

static lucid_se3 load_pose(const double *T) {
    lucid_se3 p;
    memcpy(p.R.m, T, 9 * sizeof(double));
    p.t = lucid_vec3_load(T + 9);
    return p;
}

static void make_options(const bench_lucid_config *cfg, const bench_lucid_memory *mem,
                         lucid_gjk_options *opt) {
    static const lucid_gjk_algorithm algorithms[] = {LUCID_GJK_VANILLA, LUCID_GJK_POLYAK,
                                                     LUCID_GJK_NESTEROV};
    lucid_gjk_options_default(opt);
    opt->algorithm = algorithms[cfg->algorithm];
    opt->normalize = cfg->normalize;
    opt->tol = cfg->tol;
    opt->tol_mode = cfg->relative ? LUCID_GJK_TOL_RELATIVE : LUCID_GJK_TOL_ABSOLUTE;
    if (cfg->epa_tol > 0.0) opt->epa_tol = cfg->epa_tol;
    switch (cfg->warm) {
        case BENCH_WARM_NONE: /* the paper's "No WS": a fixed x0 = (1, 0, 0) */
            opt->warm_start = LUCID_WARM_VECTOR;
            opt->warm_vector = lucid_vec3_make(1.0, 0.0, 0.0);
            break;
        case BENCH_WARM_PREVIOUS:
            if (mem && mem->valid) {
                opt->warm_start = LUCID_WARM_PREVIOUS;
                opt->previous = &mem->last;
            } else {
                opt->warm_start = LUCID_WARM_BOX_CENTERS; /* the paper's fallback */
            }
            break;
        default:
            opt->warm_start = LUCID_WARM_BOX_CENTERS;
            break;
    }
}

double bench_lucid_distance(const bench_lucid_shape *s1, const double *T1,
                            const bench_lucid_shape *s2, const double *T2,
                            const bench_lucid_config *cfg, bench_lucid_memory *mem, int store,
                            double *p1, double *p2, int *iterations) {
    lucid_se3 A = load_pose(T1), B = load_pose(T2);
    lucid_gjk_options opt;
    make_options(cfg, mem, &opt);
    lucid_distance_result res;
    if (lucid_distance(&s1->shape, &A, &s2->shape, &B, &opt, &res) != LUCID_OK) {
        *iterations = -1;
        return NAN;
    }
    *iterations = res.iterations;
    if (p1) lucid_vec3_store(res.p1, p1);
    if (p2) lucid_vec3_store(res.p2, p2);
    if (mem && store) {
        mem->last = res;
        mem->valid = 1;
    }
    return res.distance;
}

int bench_lucid_collide(const bench_lucid_shape *s1, const double *T1, const bench_lucid_shape *s2,
                        const double *T2, const bench_lucid_config *cfg, bench_lucid_memory *mem,
                        int store, int *iterations) {
    lucid_se3 A = load_pose(T1), B = load_pose(T2);
    lucid_gjk_options opt;
    make_options(cfg, mem, &opt);
    lucid_distance_result res;
    int hit = 0;
    if (lucid_collide(&s1->shape, &A, &s2->shape, &B, &opt, &hit, &res) != LUCID_OK) {
        *iterations = -1;
        return -1;
    }
    *iterations = res.iterations;
    if (mem && store) {
        mem->last = res;
        mem->valid = 1;
    }
    return hit;
}
