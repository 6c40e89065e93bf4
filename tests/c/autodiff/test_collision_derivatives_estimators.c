/* The randomized and soft-max estimators against the exact (analytic) derivatives of smooth
 * shapes: the first-order Gaussian estimate converges as M grows and eps shrinks, the Gumbel
 * estimate on ever finer meshes of an ellipsoid approaches the smooth ellipsoid's derivative,
 * the zeroth-order estimate's error shrinks with M; plus determinism given the seed and the
 * rejection of bad requests. Errors are relative (max-norm) over dp1, dp2 and dnormal,
 * averaged over a few seeds so that one lucky draw cannot pass a test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "autodiff/collision_derivatives_hessians.h"
#include "runtime/shapes/convex_mesh.h"
#include "tests/c/common/test_collision_derivatives_util.h"

#define SEEDS 4

static lucid_se3 pose(double vx, double vy, double vz, double wx, double wy, double wz) {
    double xi[6] = {vx, vy, vz, wx, wy, wz};
    return lucid_se3_exp(xi);
}

typedef struct scene {
    lucid_shape s1, s2;
    lucid_se3 T1, T2;
    lucid_gjk_options gjk;
} scene;

/* Two ellipsoids, separated (penetrating = 0) or overlapping. */
static scene ellipsoids(int penetrating) {
    scene s;
    lucid_shape_ellipsoid(0.3, 0.2, 0.15, &s.s1);
    lucid_shape_ellipsoid(0.25, 0.1, 0.2, &s.s2);
    s.T1 = pose(0.1, 0.2, 0.05, 0.3, -0.2, 0.4);
    s.T2 = pose(penetrating ? 0.35 : 0.6, 0.3, 0.1, -0.5, 0.7, 0.2);
    lucid_gjk_options_default(&s.gjk);
    s.gjk.tol = 1e-20;
    s.gjk.max_iter = 1000;
    s.gjk.epa_tol = 1e-14;
    return s;
}

static lucid_derivative_options options(const scene *s, lucid_derivative_method m) {
    lucid_derivative_options o;
    lucid_derivative_options_default(&o);
    o.method = m;
    o.gjk = &s->gjk;
    return o;
}

static void derivatives(const scene *s, const lucid_derivative_options *o,
                        lucid_derivative_workspace *ws, lucid_distance_derivatives_result *r) {
    assert_int_equal(lucid_distance_derivatives(&s->s1, &s->T1, &s->s2, &s->T2, o, ws, r),
                     LUCID_OK);
}

/* Mean witness error of `method` over SEEDS seeds against the exact derivatives. */
static double mean_error(const scene *s, lucid_derivative_method method, int samples, double noise,
                         const lucid_distance_derivatives_result *exact) {
    double sum = 0.0;
    for (int seed = 0; seed < SEEDS; ++seed) {
        lucid_derivative_options o = options(s, method);
        o.samples = samples;
        o.noise = noise;
        o.seed = (uint64_t)seed + 1;
        lucid_distance_derivatives_result r;
        derivatives(s, &o, NULL, &r);
        sum += witness_error(&r, exact);
    }
    return sum / SEEDS;
}

static lucid_distance_derivatives_result exact_derivatives(const scene *s) {
    lucid_derivative_options o = options(s, LUCID_DERIV_ANALYTIC);
    lucid_distance_derivatives_result exact;
    derivatives(s, &o, NULL, &exact);
    return exact;
}

/* Over the grid M x eps: for each eps the error falls with M (Monte-Carlo, ~1/sqrt(M)); at the
 * largest M the smallest eps is best (smoothing bias); the finest cell is within 1%. */
static void first_order_gaussian_converges_to_analytic(void **state) {
    (void)state;
    enum { NM = 5, NE = 3 };
    const int Ms[NM] = {10, 100, 1000, 10000, 100000};
    const double eps[NE] = {1e-2, 1e-3, 1e-4}; /* m, at |d| ~ 0.1 m: angles 0.1 ... 1e-3 */
    for (int pen = 0; pen < 2; ++pen) {
        scene s = ellipsoids(pen);
        lucid_distance_derivatives_result exact = exact_derivatives(&s);
        double err[NE][NM];
        for (int i = 0; i < NE; ++i)
            for (int j = 0; j < NM; ++j) {
                err[i][j] = mean_error(&s, LUCID_DERIV_FIRST_ORDER_GAUSSIAN, Ms[j], eps[i], &exact);
                print_message("gaussian %s eps=%.0e M=%6d err %.2e\n",
                              pen ? "penetrating" : "separated", eps[i], Ms[j], err[i][j]);
            }
        for (int i = 0; i < NE; ++i) {
            for (int j = 1; j < NM; ++j) assert_true(err[i][j] < err[i][j - 1]);
            assert_true(err[i][3] < 0.1 * err[i][0]); /* sqrt(1000) ~ 32 expected */
        }
        assert_true(err[2][NM - 1] < err[0][NM - 1]);
        assert_true(err[2][NM - 1] < 1e-2);
    }
}

/* Hull of n Fibonacci-lattice points on the ellipsoid with semi-axes r (all are vertices). */
static lucid_convex_mesh *ellipsoid_mesh(lucid_vec3 r, int n) {
    double *p = malloc((size_t)n * 3 * sizeof *p);
    assert_non_null(p);
    const double golden = 3.14159265358979323846 * (3.0 - sqrt(5.0));
    for (int i = 0; i < n; ++i) {
        double z = 1.0 - (2.0 * i + 1.0) / n, rho = sqrt(1.0 - z * z), a = golden * i;
        p[3 * i] = r.x * rho * cos(a);
        p[3 * i + 1] = r.y * rho * sin(a);
        p[3 * i + 2] = r.z * z;
    }
    lucid_convex_mesh *m = NULL;
    assert_int_equal(lucid_convex_mesh_create(p, n, &m), LUCID_OK);
    free(p);
    return m;
}

/* Meshes of n = 250 ... 16000 points; the temperature follows the mesh spacing h. The scores
 * are taken at x* (|x*| = |d|), so on unit directions the temperature is e = eps / |d|; the
 * soft-max weights exp(-|t|^2 / (2 rho e)) of a surface with curvature radius rho are then a
 * Gaussian of width sqrt(rho e) in the tangent offset t, which must span a few vertices
 * (e = h^2 / rho with rho ~ 0.2) and fit inside the n_l = 6 rings kept. */
static void gumbel_on_refined_meshes_approaches_the_smooth_ellipsoid(void **state) {
    (void)state;
    lucid_derivative_workspace *ws;
    assert_int_equal(lucid_derivative_workspace_create(&ws), LUCID_OK);
    enum { NS = 4 };
    const int sizes[NS] = {250, 1000, 4000, 16000};
    for (int pen = 0; pen < 2; ++pen) {
        scene smooth = ellipsoids(pen);
        lucid_distance_derivatives_result exact = exact_derivatives(&smooth);
        double err[NS];
        for (int k = 0; k < NS; ++k) {
            scene meshed = smooth;
            lucid_convex_mesh *m1 = ellipsoid_mesh(smooth.s1.u.radii, sizes[k]);
            lucid_convex_mesh *m2 = ellipsoid_mesh(smooth.s2.u.radii, sizes[k]);
            lucid_shape_convex(m1, &meshed.s1);
            lucid_shape_convex(m2, &meshed.s2);
            double h = 0.2 * sqrt(4.0 * 3.14159265358979323846 / sizes[k]);
            lucid_derivative_options o = options(&meshed, LUCID_DERIV_FIRST_ORDER_GUMBEL);
            o.levels = 6;
            o.noise = fabs(exact.query.distance) * h * h / 0.2; /* eps / |d| on directions */
            lucid_distance_derivatives_result r;
            derivatives(&meshed, &o, ws, &r);
            err[k] = witness_error(&r, &exact);
            print_message("gumbel %s n=%5d eps %.1e err %.2e\n", pen ? "penetrating" : "separated",
                          sizes[k], o.noise, err[k]);
            lucid_convex_mesh_destroy(m1);
            lucid_convex_mesh_destroy(m2);
        }
        for (int k = 1; k < NS; ++k) assert_true(err[k] < 1.5 * err[k - 1]);
        assert_true(err[NS - 1] < 0.2 * err[0]);
        assert_true(err[NS - 1] < 2e-2);
    }
    lucid_derivative_workspace_destroy(ws);
}

/* Brute-force Eq. 28: the soft-max covariance over the vertices in `keep` (a 0/1 mask). */
static lucid_mat3 softmax_covariance(const lucid_convex_mesh *m, const int *keep, lucid_vec3 a,
                                     double eps) {
    double top = -INFINITY, total = 0.0;
    for (int i = 0; i < m->num_vertices; ++i)
        if (keep[i]) top = fmax(top, lucid_vec3_dot(m->vertices[i], a));
    lucid_vec3 mean = lucid_vec3_zero();
    lucid_mat3 second = lucid_mat3_zero();
    for (int i = 0; i < m->num_vertices; ++i) {
        if (!keep[i]) continue;
        double w = exp((lucid_vec3_dot(m->vertices[i], a) - top) / eps);
        lucid_mat3 vv = lucid_mat3_outer(m->vertices[i], m->vertices[i]);
        vv = lucid_mat3_scale(&vv, w);
        second = lucid_mat3_add(&second, &vv);
        mean = lucid_vec3_axpy(mean, w, m->vertices[i]);
        total += w;
    }
    mean = lucid_vec3_scale(mean, 1.0 / total);
    second = lucid_mat3_scale(&second, 1.0 / total);
    lucid_mat3 mm = lucid_mat3_outer(mean, mean);
    lucid_mat3 cov = lucid_mat3_sub(&second, &mm);
    return lucid_mat3_scale(&cov, 1.0 / eps);
}

/* The Gumbel Hessian against Eq. 28 evaluated directly: on the support vertex and its ring
 * (n_l = 1, the mask built from the adjacency here) and on the whole mesh (n_l large). */
static void gumbel_hessian_matches_the_softmax_formula(void **state) {
    (void)state;
    lucid_convex_mesh *m = ellipsoid_mesh(lucid_vec3_make(0.3, 0.2, 0.15), 200);
    lucid_shape s;
    lucid_shape_convex(m, &s);
    lucid_derivative_workspace *ws;
    assert_int_equal(lucid_derivative_workspace_create(&ws), LUCID_OK);
    int *keep = calloc((size_t)m->num_vertices, sizeof *keep);
    assert_non_null(keep);
    lucid_vec3 l = lucid_vec3_normalized(lucid_vec3_make(0.3, -0.5, 0.8));
    double scale = 0.07, eps = 2e-4;
    lucid_vec3 a = lucid_vec3_scale(l, scale);
    int root = lucid_convex_mesh_support_scan(m, l);
    keep[root] = 1;
    for (int k = m->neighbor_offsets[root]; k < m->neighbor_offsets[root + 1]; ++k)
        keep[m->neighbors[k]] = 1;
    lucid_mat3 K, ref = softmax_covariance(m, keep, a, eps);
    assert_true(lucid_mat3_trace(&ref) > 1e-3); /* the weights are genuinely soft here */
    assert_int_equal(lucid_support_hessian_gumbel(&s, l, scale, 1, eps, ws, &K), LUCID_OK);
    for (int k = 0; k < 9; ++k) assert_true(fabs(K.m[k] - ref.m[k]) <= 1e-9 * (1 + fabs(ref.m[k])));
    for (int i = 0; i < m->num_vertices; ++i) keep[i] = 1;
    ref = softmax_covariance(m, keep, a, eps);
    assert_int_equal(lucid_support_hessian_gumbel(&s, l, scale, 1000, eps, ws, &K), LUCID_OK);
    for (int k = 0; k < 9; ++k) assert_true(fabs(K.m[k] - ref.m[k]) <= 1e-9 * (1 + fabs(ref.m[k])));
    /* n_l = 0 keeps the support vertex alone: no curvature. */
    assert_int_equal(lucid_support_hessian_gumbel(&s, l, scale, 0, eps, ws, &K), LUCID_OK);
    for (int k = 0; k < 9; ++k) assert_true(K.m[k] == 0.0);
    free(keep);
    lucid_derivative_workspace_destroy(ws);
    lucid_convex_mesh_destroy(m);
}

/* Eq. 6 on a smooth pair: the error against the exact Jacobian shrinks like 1/sqrt(M). */
static void zeroth_order_error_shrinks_with_samples(void **state) {
    (void)state;
    enum { NM = 3 };
    const int Ms[NM] = {30, 300, 3000};
    scene s = ellipsoids(0);
    lucid_distance_derivatives_result exact = exact_derivatives(&s);
    double err[NM];
    for (int j = 0; j < NM; ++j) {
        err[j] = mean_error(&s, LUCID_DERIV_ZEROTH_ORDER, Ms[j], 1e-3, &exact);
        print_message("zeroth order M=%4d err %.2e\n", Ms[j], err[j]);
    }
    for (int j = 1; j < NM; ++j) assert_true(err[j] < 0.6 * err[j - 1]); /* 1/sqrt(10) ~ 0.32 */
    assert_true(err[NM - 1] < 0.1);
}

static int same_bits(const lucid_distance_derivatives_result *a,
                     const lucid_distance_derivatives_result *b) {
    return memcmp(a->dp1, b->dp1, sizeof a->dp1) == 0 &&
           memcmp(a->dp2, b->dp2, sizeof a->dp2) == 0 &&
           memcmp(a->dnormal, b->dnormal, sizeof a->dnormal) == 0 &&
           memcmp(a->ddistance, b->ddistance, sizeof a->ddistance) == 0;
}

static void random_estimators_are_deterministic_given_the_seed(void **state) {
    (void)state;
    scene s = ellipsoids(1);
    lucid_derivative_method methods[2] = {LUCID_DERIV_ZEROTH_ORDER,
                                          LUCID_DERIV_FIRST_ORDER_GAUSSIAN};
    for (int i = 0; i < 2; ++i) {
        lucid_derivative_options o = options(&s, methods[i]);
        o.seed = 42;
        lucid_distance_derivatives_result a, b, c;
        derivatives(&s, &o, NULL, &a);
        derivatives(&s, &o, NULL, &b);
        o.seed = 43;
        derivatives(&s, &o, NULL, &c);
        assert_true(same_bits(&a, &b));
        assert_false(same_bits(&a, &c));
    }
}

static void bad_requests_are_rejected(void **state) {
    (void)state;
    scene s = ellipsoids(0);
    lucid_distance_derivatives_result r;
    lucid_derivative_options o = options(&s, LUCID_DERIV_FIRST_ORDER_GAUSSIAN);
    o.samples = 0;
    assert_int_equal(lucid_distance_derivatives(&s.s1, &s.T1, &s.s2, &s.T2, &o, NULL, &r),
                     LUCID_ERR_ARGUMENT);
    o = options(&s, LUCID_DERIV_ZEROTH_ORDER);
    o.noise = 0.0;
    assert_int_equal(lucid_distance_derivatives(&s.s1, &s.T1, &s.s2, &s.T2, &o, NULL, &r),
                     LUCID_ERR_ARGUMENT);
    o.noise = NAN;
    assert_int_equal(lucid_distance_derivatives(&s.s1, &s.T1, &s.s2, &s.T2, &o, NULL, &r),
                     LUCID_ERR_ARGUMENT);
    o = options(&s, LUCID_DERIV_FINITE_DIFFERENCES);
    o.step = -1e-6;
    assert_int_equal(lucid_distance_derivatives(&s.s1, &s.T1, &s.s2, &s.T2, &o, NULL, &r),
                     LUCID_ERR_ARGUMENT);
    o = options(&s, (lucid_derivative_method)99);
    assert_int_equal(lucid_distance_derivatives(&s.s1, &s.T1, &s.s2, &s.T2, &o, NULL, &r),
                     LUCID_ERR_ARGUMENT);
    /* every entry of lucid_derivative_option_table is checked whatever the method (a bad
     * sample count passed unseen under finite differences), with the table's rule */
    o = options(&s, LUCID_DERIV_FINITE_DIFFERENCES);
    o.samples = 0;
    assert_int_equal(lucid_distance_derivatives(&s.s1, &s.T1, &s.s2, &s.T2, &o, NULL, &r),
                     LUCID_ERR_ARGUMENT);
    const char *why = NULL;
    assert_int_equal(lucid_derivative_options_check(&o, &why), LUCID_ERR_ARGUMENT);
    assert_string_equal(why, "samples must be an integer >= 1");
    o.samples = 20, o.step = 0.0; /* 0: the automatic step */
    assert_int_equal(lucid_derivative_options_check(&o, &why), LUCID_OK);
    /* Gumbel needs meshes on both sides, a workspace and levels >= 0. */
    lucid_derivative_workspace *ws;
    assert_int_equal(lucid_derivative_workspace_create(&ws), LUCID_OK);
    o = options(&s, LUCID_DERIV_FIRST_ORDER_GUMBEL);
    assert_int_equal(lucid_distance_derivatives(&s.s1, &s.T1, &s.s2, &s.T2, &o, ws, &r),
                     LUCID_ERR_ARGUMENT);
    lucid_convex_mesh *m = ellipsoid_mesh(s.s1.u.radii, 50);
    lucid_shape mesh;
    lucid_shape_convex(m, &mesh);
    assert_int_equal(lucid_distance_derivatives(&mesh, &s.T1, &mesh, &s.T2, &o, ws, &r), LUCID_OK);
    assert_int_equal(lucid_distance_derivatives(&mesh, &s.T1, &mesh, &s.T2, &o, NULL, &r),
                     LUCID_ERR_ARGUMENT);
    o.levels = -1;
    assert_int_equal(lucid_distance_derivatives(&mesh, &s.T1, &mesh, &s.T2, &o, ws, &r),
                     LUCID_ERR_ARGUMENT);
    /* First-order methods need a support function: not a halfspace. */
    lucid_shape plane;
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), -1.0, &plane);
    o = options(&s, LUCID_DERIV_FIRST_ORDER_GAUSSIAN);
    assert_int_equal(lucid_distance_derivatives(&plane, &s.T1, &s.s2, &s.T2, &o, NULL, &r),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_distance_derivatives(NULL, &s.T1, &s.s2, &s.T2, &o, NULL, &r),
                     LUCID_ERR_ARGUMENT);
    lucid_convex_mesh_destroy(m);
    lucid_derivative_workspace_destroy(ws);
}

/* Derivatives of a query run by the caller equal those of the all-in-one call, bit for bit. */
static void derivatives_from_a_query_match_the_full_call(void **state) {
    (void)state;
    scene s = ellipsoids(1);
    lucid_derivative_method methods[3] = {LUCID_DERIV_ANALYTIC, LUCID_DERIV_FIRST_ORDER_GAUSSIAN,
                                          LUCID_DERIV_FINITE_DIFFERENCES};
    for (int i = 0; i < 3; ++i) {
        lucid_derivative_options o = options(&s, methods[i]);
        lucid_distance_derivatives_result full, split;
        derivatives(&s, &o, NULL, &full);
        lucid_distance_result q;
        assert_int_equal(lucid_distance(&s.s1, &s.T1, &s.s2, &s.T2, &s.gjk, &q), LUCID_OK);
        assert_int_equal(
            lucid_distance_derivatives_from_query(&s.s1, &s.T1, &s.s2, &s.T2, &o, NULL, &q, &split),
            LUCID_OK);
        assert_true(same_bits(&full, &split));
        assert_int_equal(lucid_distance_derivatives_from_query(&s.s1, &s.T1, &s.s2, &s.T2, &o, NULL,
                                                               NULL, &split),
                         LUCID_ERR_ARGUMENT);
    }
}

/* At contact (d = 0) the smoothed estimators' normal derivative is unbounded (they smooth at
 * x* = 0), which is reported; the analytic method, solved at unit directions, is fine. */
static void touching_pairs_analytic_works_smoothed_reports(void **state) {
    (void)state;
    lucid_shape a;
    lucid_shape_sphere(0.125, &a);
    lucid_se3 T1 = lucid_se3_identity();
    lucid_se3 T2 = lucid_se3_make(lucid_mat3_identity(), lucid_vec3_make(0.25, 0.0, 0.0));
    lucid_distance_derivatives_result r;
    lucid_derivative_options o;
    lucid_derivative_options_default(&o);
    o.method = LUCID_DERIV_ANALYTIC;
    assert_int_equal(lucid_distance_derivatives(&a, &T1, &a, &T2, &o, NULL, &r), LUCID_OK);
    assert_true(r.query.distance == 0.0);
    /* Two spheres of radius r touching: dp1/dv = r (I - n n^T) / (2r) for the tangential v. */
    assert_true(fabs(r.dp1[3 * 1 + 1] - 0.5) < 1e-12);
    o.method = LUCID_DERIV_FIRST_ORDER_GAUSSIAN;
    assert_int_equal(lucid_distance_derivatives(&a, &T1, &a, &T2, &o, NULL, &r),
                     LUCID_ERR_DEGENERATE);
}

static void method_names_round_trip(void **state) {
    (void)state;
    for (int i = 0; i <= (int)LUCID_DERIV_ANALYTIC; ++i) {
        lucid_derivative_method m = (lucid_derivative_method)-1;
        assert_true(lucid_derivative_method_from_name(
            lucid_derivative_method_name((lucid_derivative_method)i), &m));
        assert_int_equal(m, i);
    }
    lucid_derivative_method m = LUCID_DERIV_ANALYTIC;
    assert_false(lucid_derivative_method_from_name("gumbel", &m));
    assert_int_equal(m, LUCID_DERIV_ANALYTIC);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_order_gaussian_converges_to_analytic),
        cmocka_unit_test(gumbel_on_refined_meshes_approaches_the_smooth_ellipsoid),
        cmocka_unit_test(gumbel_hessian_matches_the_softmax_formula),
        cmocka_unit_test(zeroth_order_error_shrinks_with_samples),
        cmocka_unit_test(random_estimators_are_deterministic_given_the_seed),
        cmocka_unit_test(bad_requests_are_rejected),
        cmocka_unit_test(derivatives_from_a_query_match_the_full_call),
        cmocka_unit_test(touching_pairs_analytic_works_smoothed_reports),
        cmocka_unit_test(method_names_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
