/* Analytic collision derivatives (exact support Hessians + the implicit solve) against an
 * independent reference: central finite differences (h = 1e-5) of witness pairs polished to
 * machine precision (test_collision_derivatives_util.h). Sphere, ellipsoid, capsule (caps)
 * and cylinder (rim) pairs, separated and penetrating; the tolerance 1e-6 is the issue's,
 * the reference's O(h^2) truncation error is ~1e-9 and round-off ~1e-11. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>

#include <cmocka.h>

#include "tests/c/common/test_collision_derivatives_util.h"

typedef struct pair_case {
    const char *name;
    lucid_shape s1, s2;
    lucid_se3 T1, T2;
} pair_case;

static lucid_se3 pose(double vx, double vy, double vz, double wx, double wy, double wz) {
    double xi[6] = {vx, vy, vz, wx, wy, wz};
    return lucid_se3_exp(xi);
}

static lucid_derivative_options analytic_options(lucid_gjk_options *gjk) {
    lucid_derivative_options o;
    lucid_derivative_options_default(&o);
    o.method = LUCID_DERIV_ANALYTIC;
    /* Tight query tolerances: the derivatives are exact at the query's witness pair, so they
     * are only as accurate as that pair (the default gap 1e-8 m^2 bounds it by 1e-4 m). */
    lucid_gjk_options_default(gjk);
    gjk->tol = 1e-20;
    gjk->max_iter = 1000;
    gjk->epa_tol = 1e-14;
    o.gjk = gjk;
    return o;
}

/* Analytic derivatives of the case against the polished reference; returns the distance. */
static double check_against_reference(const pair_case *c, double tol) {
    lucid_gjk_options gjk;
    lucid_derivative_options o = analytic_options(&gjk);
    lucid_distance_derivatives_result A, R;
    assert_int_equal(lucid_distance_derivatives(&c->s1, &c->T1, &c->s2, &c->T2, &o, NULL, &A),
                     LUCID_OK);
    reference_witness w = polish(&c->s1, &c->T1, &c->s2, &c->T2, A.query.normal);
    /* The nominal query agrees with the polished optimum (GJK / EPA accuracy). */
    assert_true(fabs(w.distance - A.query.distance) < 1e-7);
    reference_derivatives(&c->s1, &c->T1, &c->s2, &c->T2, A.query.normal, 1e-5, &R);
    double e_p1 = relative_error(A.dp1, R.dp1, 18), e_p2 = relative_error(A.dp2, R.dp2, 18);
    double e_n = relative_error(A.dnormal, R.dnormal, 18);
    double e_d = relative_error(A.ddistance, R.ddistance, 6);
    print_message("%-34s d=% .4f  rel err dp1 %.1e dp2 %.1e dn %.1e dd %.1e\n", c->name,
                  A.query.distance, e_p1, e_p2, e_n, e_d);
    assert_true(e_p1 <= tol && e_p2 <= tol && e_n <= tol && e_d <= tol);
    return A.query.distance;
}

static void ellipsoid_pairs_match_finite_differences(void **state) {
    (void)state;
    pair_case c = {"ellipsoid-ellipsoid separated",
                   {0},
                   {0},
                   pose(0.1, 0.2, 0.05, 0.3, -0.2, 0.4),
                   pose(0.6, 0.3, 0.1, -0.5, 0.7, 0.2)};
    lucid_shape_ellipsoid(0.3, 0.2, 0.15, &c.s1);
    lucid_shape_ellipsoid(0.25, 0.1, 0.2, &c.s2);
    assert_true(check_against_reference(&c, 1e-6) > 0.0);
    c.name = "ellipsoid-ellipsoid penetrating";
    c.T2 = pose(0.35, 0.3, 0.1, -0.5, 0.7, 0.2);
    assert_true(check_against_reference(&c, 1e-6) < 0.0);
}

static void sphere_pairs_match_finite_differences(void **state) {
    (void)state;
    pair_case c = {"sphere-sphere separated",
                   {0},
                   {0},
                   pose(0.0, 0.1, 0.0, 0.2, 0.1, 0.0),
                   pose(0.5, 0.2, -0.1, 0.3, -0.4, 0.9)};
    lucid_shape_sphere(0.2, &c.s1);
    lucid_shape_sphere(0.15, &c.s2);
    assert_true(check_against_reference(&c, 1e-6) > 0.0);
    c.name = "sphere-sphere penetrating";
    c.T2 = pose(0.25, 0.1, 0.05, 0.3, -0.4, 0.9);
    assert_true(check_against_reference(&c, 1e-6) < 0.0);
    c.name = "sphere-ellipsoid separated";
    lucid_shape_ellipsoid(0.3, 0.12, 0.2, &c.s2);
    c.T2 = pose(0.55, 0.2, -0.1, 0.3, -0.4, 0.9);
    assert_true(check_against_reference(&c, 1e-6) > 0.0);
    c.name = "sphere-ellipsoid penetrating";
    c.T2 = pose(0.3, 0.15, -0.05, 0.3, -0.4, 0.9);
    assert_true(check_against_reference(&c, 1e-6) < 0.0);
}

/* Capsules stacked along their axes so the witness points lie on the hemispherical caps. */
static void capsule_pairs_match_finite_differences(void **state) {
    (void)state;
    pair_case c = {"capsule-capsule separated",
                   {0},
                   {0},
                   pose(0.0, 0.0, 0.0, 0.1, 0.05, 0.0),
                   pose(0.05, 0.03, 0.75, 0.2, -0.15, 0.3)};
    lucid_shape_capsule(0.1, 0.2, &c.s1);
    lucid_shape_capsule(0.08, 0.25, &c.s2);
    assert_true(check_against_reference(&c, 1e-6) > 0.0);
    c.name = "capsule-capsule penetrating";
    c.T2 = pose(0.05, 0.03, 0.55, 0.2, -0.15, 0.3);
    assert_true(check_against_reference(&c, 1e-6) < 0.0);
    c.name = "capsule-ellipsoid separated";
    lucid_shape_ellipsoid(0.2, 0.15, 0.1, &c.s2);
    c.T2 = pose(0.08, -0.04, 0.45, 0.4, 0.2, -0.1);
    assert_true(check_against_reference(&c, 1e-6) > 0.0);
    c.name = "capsule-ellipsoid penetrating";
    c.T2 = pose(0.08, -0.04, 0.35, 0.4, 0.2, -0.1);
    assert_true(check_against_reference(&c, 1e-6) < 0.0);
}

/* A sphere against a cylinder's rim: the cylinder's Hessian has rank one there. */
static void cylinder_rim_matches_finite_differences(void **state) {
    (void)state;
    pair_case c = {"cylinder rim-sphere separated",
                   {0},
                   {0},
                   pose(0, 0, 0, 0, 0, 0),
                   pose(0.3, 0.1, 0.35, 0.0, 0.0, 0.0)};
    lucid_shape_cylinder(0.2, 0.2, &c.s1);
    lucid_shape_sphere(0.1, &c.s2);
    assert_true(check_against_reference(&c, 1e-6) > 0.0);
    c.name = "cylinder rim-sphere penetrating";
    c.T2 = pose(0.23, 0.08, 0.27, 0.0, 0.0, 0.0);
    assert_true(check_against_reference(&c, 1e-6) < 0.0);
}

/* The library's own finite-difference method agrees with the analytic derivatives to the
 * accuracy the distance queries allow: GJK/EPA witness points are good to ~1e-9, amplified
 * by 1/h, plus the O(h^2) truncation error; h = 1e-3 balances them near 1e-5. */
static void finite_difference_method_agrees_with_analytic(void **state) {
    (void)state;
    lucid_shape a, b;
    lucid_shape_ellipsoid(0.3, 0.2, 0.15, &a);
    lucid_shape_ellipsoid(0.25, 0.1, 0.2, &b);
    lucid_se3 T1 = pose(0.1, 0.2, 0.05, 0.3, -0.2, 0.4);
    double x[2] = {0.6, 0.35}; /* separated, penetrating */
    for (int i = 0; i < 2; ++i) {
        lucid_se3 T2 = pose(x[i], 0.3, 0.1, -0.5, 0.7, 0.2);
        lucid_gjk_options gjk;
        lucid_derivative_options o = analytic_options(&gjk);
        lucid_distance_derivatives_result A, F;
        assert_int_equal(lucid_distance_derivatives(&a, &T1, &b, &T2, &o, NULL, &A), LUCID_OK);
        o.method = LUCID_DERIV_FINITE_DIFFERENCES;
        o.step = 1e-3;
        assert_int_equal(lucid_distance_derivatives(&a, &T1, &b, &T2, &o, NULL, &F), LUCID_OK);
        double e = derivative_error(&F, &A);
        print_message("finite_differences h=1e-3 vs analytic: %.1e\n", e);
        assert_true(e < 1e-3);
    }
}

/* Non-smooth supports are refused rather than answered with a wrong curvature. */
static void analytic_refuses_non_smooth_supports(void **state) {
    (void)state;
    lucid_gjk_options gjk;
    lucid_derivative_options o = analytic_options(&gjk);
    lucid_distance_derivatives_result r;
    lucid_shape box, sphere, capsule, cylinder;
    lucid_shape_box(0.1, 0.1, 0.1, &box);
    lucid_shape_sphere(0.1, &sphere);
    lucid_shape_capsule(0.1, 0.3, &capsule);
    lucid_shape_cylinder(0.1, 0.3, &cylinder);
    lucid_se3 I = lucid_se3_identity(), side = pose(0.5, 0.0, 0.0, 0, 0, 0),
              top = pose(0.0, 0.0, 0.6, 0, 0, 0);
    assert_int_equal(lucid_distance_derivatives(&box, &I, &sphere, &side, &o, NULL, &r),
                     LUCID_ERR_ARGUMENT);
    /* Capsule flat side, cylinder flat side and cap: the support jumps along the face. */
    assert_int_equal(lucid_distance_derivatives(&capsule, &I, &sphere, &side, &o, NULL, &r),
                     LUCID_ERR_DEGENERATE);
    assert_int_equal(lucid_distance_derivatives(&cylinder, &I, &sphere, &side, &o, NULL, &r),
                     LUCID_ERR_DEGENERATE);
    assert_int_equal(lucid_distance_derivatives(&cylinder, &I, &sphere, &top, &o, NULL, &r),
                     LUCID_ERR_DEGENERATE);
    /* ... while the capsule's cap is fine. */
    assert_int_equal(lucid_distance_derivatives(&capsule, &I, &sphere, &top, &o, NULL, &r),
                     LUCID_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ellipsoid_pairs_match_finite_differences),
        cmocka_unit_test(sphere_pairs_match_finite_differences),
        cmocka_unit_test(capsule_pairs_match_finite_differences),
        cmocka_unit_test(cylinder_rim_matches_finite_differences),
        cmocka_unit_test(finite_difference_method_agrees_with_analytic),
        cmocka_unit_test(analytic_refuses_non_smooth_supports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
