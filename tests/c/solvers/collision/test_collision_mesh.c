/* Convex-mesh pairs (hulls of random points, hill-climbing supports) against independent
 * brute force: the separation distance by enumerating vertex-triangle and edge-edge feature
 * pairs, and the penetration depth by the separating-axis theorem over face normals and edge
 * cross products (exact for polytopes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tests/c/common/test_collision_util.h"

#define NPTS 40

typedef struct world_mesh {
    lucid_vec3 v[NPTS];
    int nv;
} world_mesh;

static void to_world(const lucid_convex_mesh *m, const lucid_se3 *T, world_mesh *w) {
    w->nv = m->num_vertices;
    for (int i = 0; i < m->num_vertices; ++i) w->v[i] = lucid_se3_act(T, m->vertices[i]);
}

static double brute_distance(const lucid_convex_mesh *A, const world_mesh *a,
                             const lucid_convex_mesh *B, const world_mesh *b) {
    double best = INFINITY;
    for (int pass = 0; pass < 2; ++pass) {
        const lucid_convex_mesh *M = pass ? A : B;
        const world_mesh *mw = pass ? a : b, *pw = pass ? b : a;
        for (int f = 0; f < M->num_faces; ++f) {
            const int *cyc = M->face_vertices + M->face_offsets[f];
            int n = M->face_offsets[f + 1] - M->face_offsets[f];
            for (int t = 1; t + 1 < n; ++t)
                for (int i = 0; i < pw->nv; ++i)
                    best = fmin(best, point_triangle_dist2(pw->v[i], mw->v[cyc[0]], mw->v[cyc[t]],
                                                           mw->v[cyc[t + 1]]));
        }
    }
    for (int i = 0; i < A->num_vertices; ++i)
        for (int k = A->neighbor_offsets[i]; k < A->neighbor_offsets[i + 1]; ++k) {
            int j = A->neighbors[k];
            if (j < i) continue;
            for (int p = 0; p < B->num_vertices; ++p)
                for (int l = B->neighbor_offsets[p]; l < B->neighbor_offsets[p + 1]; ++l) {
                    int q = B->neighbors[l];
                    if (q < p) continue;
                    best = fmin(best, segment_segment_dist2(a->v[i], a->v[j], b->v[p], b->v[q]));
                }
        }
    return sqrt(best);
}

static double overlap_along(lucid_vec3 u, const world_mesh *a, const world_mesh *b) {
    double lo1 = INFINITY, hi1 = -INFINITY, lo2 = INFINITY, hi2 = -INFINITY;
    for (int i = 0; i < a->nv; ++i) {
        double x = lucid_vec3_dot(u, a->v[i]);
        lo1 = fmin(lo1, x);
        hi1 = fmax(hi1, x);
    }
    for (int i = 0; i < b->nv; ++i) {
        double x = lucid_vec3_dot(u, b->v[i]);
        lo2 = fmin(lo2, x);
        hi2 = fmax(hi2, x);
    }
    return fmin(hi1 - lo2, hi2 - lo1);
}

static double sat_depth(const lucid_convex_mesh *A, const world_mesh *a, const lucid_se3 *TA,
                        const lucid_convex_mesh *B, const world_mesh *b, const lucid_se3 *TB) {
    double best = INFINITY;
    for (int f = 0; f < A->num_faces; ++f)
        best = fmin(best, overlap_along(lucid_mat3_mul_vec(&TA->R, A->face_normals[f]), a, b));
    for (int f = 0; f < B->num_faces; ++f)
        best = fmin(best, overlap_along(lucid_mat3_mul_vec(&TB->R, B->face_normals[f]), a, b));
    for (int i = 0; i < A->num_vertices; ++i)
        for (int k = A->neighbor_offsets[i]; k < A->neighbor_offsets[i + 1]; ++k)
            for (int p = 0; p < B->num_vertices; ++p)
                for (int l = B->neighbor_offsets[p]; l < B->neighbor_offsets[p + 1]; ++l) {
                    lucid_vec3 c = lucid_vec3_cross(lucid_vec3_sub(a->v[A->neighbors[k]], a->v[i]),
                                                    lucid_vec3_sub(b->v[B->neighbors[l]], b->v[p]));
                    if (lucid_vec3_norm(c) > 1e-9)
                        best = fmin(best, overlap_along(lucid_vec3_normalized(c), a, b));
                }
    return best;
}

static lucid_convex_mesh *random_hull(uint64_t *rng) {
    double pts[3 * NPTS];
    lucid_vec3 scale = lucid_vec3_make(0.1 + 0.3 * uniform(rng), 0.1 + 0.3 * uniform(rng),
                                       0.1 + 0.3 * uniform(rng));
    for (int i = 0; i < NPTS; ++i)
        lucid_vec3_store(lucid_vec3_mul(random_direction(rng), scale), pts + 3 * i);
    lucid_convex_mesh *m = NULL;
    assert_int_equal(lucid_convex_mesh_create(pts, NPTS, &m), LUCID_OK);
    return m;
}

static void random_hulls_match_brute_force(void **state) {
    (void)state;
    uint64_t rng = 404;
    int separated = 0, penetrating = 0;
    for (int k = 0; k < 16; ++k) {
        lucid_convex_mesh *A = random_hull(&rng), *B = random_hull(&rng);
        assert_true(A->num_vertices > LUCID_CONVEX_MESH_SCAN_THRESHOLD); /* hill climbing */
        lucid_shape sa, sb;
        lucid_shape_convex(A, &sa);
        lucid_shape_convex(B, &sb);
        lucid_se3 TA = lucid_se3_make(random_rotation(&rng), lucid_vec3_zero());
        lucid_se3 TB = lucid_se3_make(
            random_rotation(&rng),
            lucid_vec3_scale(random_direction(&rng), (k % 2 ? 0.1 : 0.6) + 0.3 * uniform(&rng)));
        world_mesh a, b;
        to_world(A, &TA, &a);
        to_world(B, &TB, &b);
        double depth = sat_depth(A, &a, &TA, B, &b, &TB);
        double expect = depth > 0.0 ? -depth : brute_distance(A, &a, B, &b);
        lucid_gjk_options o;
        for (int v = 0; variant_options(v, &o); ++v) {
            lucid_distance_result r;
            assert_int_equal(lucid_distance(&sa, &TA, &sb, &TB, &o, &r), LUCID_OK);
            assert_true(r.converged);
            double tol = expect > 0.0 ? o.tol / expect + 1e-12 : 1e-8;
            if (!(fabs(r.distance - expect) <= tol))
                fail_msg("k=%d variant %d: %.12g vs brute force %.12g", k, v, r.distance, expect);
            int hit;
            assert_int_equal(lucid_collide(&sa, &TA, &sb, &TB, &o, &hit, &r), LUCID_OK);
            assert_int_equal(hit, expect <= 0.0);
        }
        separated += expect > 0.0;
        penetrating += expect < 0.0;
        lucid_convex_mesh_destroy(A);
        lucid_convex_mesh_destroy(B);
    }
    assert_true(separated >= 4 && penetrating >= 4);
}

/* Largest <n, v> over the posed vertices of m. */
static double max_along(const lucid_convex_mesh *m, const lucid_se3 *T, lucid_vec3 n) {
    double best = -INFINITY;
    for (int i = 0; i < m->num_vertices; ++i)
        best = fmax(best, lucid_vec3_dot(n, lucid_se3_act(T, m->vertices[i])));
    return best;
}

/* The final mesh-vertex hints of a separated query are the supports of the two hulls along
 * the separating normal (up to the GJK tolerance), and a query warm-started from the result
 * (LUCID_WARM_PREVIOUS, hints included) at the same poses gives the same distance. Returns 0
 * for a pair that is not clearly separated (skipped). */
static int check_hints(const lucid_convex_mesh *A, const lucid_se3 *TA, const lucid_convex_mesh *B,
                       const lucid_se3 *TB) {
    lucid_shape sa, sb;
    lucid_shape_convex(A, &sa);
    lucid_shape_convex(B, &sb);
    lucid_gjk_options o;
    lucid_gjk_options_default(&o);
    lucid_distance_result r;
    assert_int_equal(lucid_distance(&sa, TA, &sb, TB, &o, &r), LUCID_OK);
    if (!(r.distance > 1e-3)) return 0;
    assert_true(r.hint1 >= 0 && r.hint1 < A->num_vertices);
    assert_true(r.hint2 >= 0 && r.hint2 < B->num_vertices);
    /* within sqrt(tol) of the extreme vertex along the normal (a random vertex is not) */
    lucid_vec3 v1 = lucid_se3_act(TA, A->vertices[r.hint1]);
    lucid_vec3 v2 = lucid_se3_act(TB, B->vertices[r.hint2]);
    assert_true(lucid_vec3_dot(r.normal, v1) >= max_along(A, TA, r.normal) - 1e-4);
    assert_true(-lucid_vec3_dot(r.normal, v2) >= max_along(B, TB, lucid_vec3_neg(r.normal)) - 1e-4);
    o.warm_start = LUCID_WARM_PREVIOUS;
    o.previous = &r;
    lucid_distance_result w;
    assert_int_equal(lucid_distance(&sa, TA, &sb, TB, &o, &w), LUCID_OK);
    assert_true(w.converged);
    assert_true(fabs(w.distance - r.distance) <= o.tol / r.distance);
    return 1;
}

static void final_vertex_hints(void **state) {
    (void)state;
    uint64_t rng = 77;
    int checked = 0;
    for (int k = 0; k < 12; ++k) {
        lucid_convex_mesh *A = random_hull(&rng), *B = random_hull(&rng);
        lucid_se3 TA = lucid_se3_make(random_rotation(&rng), lucid_vec3_zero());
        lucid_se3 TB =
            lucid_se3_make(random_rotation(&rng), lucid_vec3_scale(random_direction(&rng), 1.0));
        checked += check_hints(A, &TA, B, &TB);
        lucid_convex_mesh_destroy(A);
        lucid_convex_mesh_destroy(B);
    }
    assert_true(checked >= 6);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(random_hulls_match_brute_force),
                                       cmocka_unit_test(final_vertex_hints)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
