/* Contacts of dim 4 (torsional friction, lucid_contact_problem.dim) and dim 6 (rolling friction):
 * one contact with G = I, whose NCP answer is known in closed form, solved by every pair that takes
 * dim 4 (ncp:admm, ncp:pgs; ccp:admm and ccp:pgs on a pressing contact, where the CCP's answer is
 * the NCP's when nothing slides), and refused by the others; the cone's projection is a projection
 * (idempotent, onto the cone, the residual in the polar cone). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_solver.h"

static const double IDENTITY4[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

/* lambda of one contact (G = I, mu) with free velocity g under the pair. */
static lucid_status solve4(lucid_contact_model model, lucid_contact_solver solver, double mu,
                           const double g[4], double lambda[4]) {
    lucid_contact_problem p = {1, IDENTITY4, g, &mu, NULL, 4};
    lucid_contact_options o = lucid_contact_default_options();
    o.model = model, o.solver = solver, o.tol = 1e-12, o.max_iter = 5000;
    lucid_contact_workspace *ws = lucid_contact_workspace_create(2); /* 6 >= 4 rows */
    assert_non_null(ws);
    lucid_contact_result res;
    lucid_status s = lucid_contact_solve(&p, &o, ws, lambda, NULL, &res);
    if (s == LUCID_OK) assert_true(res.converged);
    lucid_contact_workspace_destroy(ws);
    return s;
}

static void near4(const double a[4], const double b[4], double tol) {
    for (int k = 0; k < 4; ++k)
        if (!(fabs(a[k] - b[k]) <= tol)) fail_msg("entry %d: %.17g, expected %.17g", k, a[k], b[k]);
}

/* With G = I the velocity is lambda + g: the normal force cancels g_n < 0, and the friction
 * sticks (lambda_T = -g_T) inside the cone's radius mu lambda_n, else slides against g_T with
 * that radius. (t1, t2, n, s) layout: the spin s is the third tangential row. */
static void closed_form(void **state) {
    (void)state;
    const double mu = 0.5;
    const struct {
        double g[4], lambda[4];
    } cases[] = {
        {{0.0, 0.0, -1.0, 3.0}, {0.0, 0.0, 1.0, -0.5}},   /* spins: the torque at its bound */
        {{0.0, 0.0, -1.0, 0.3}, {0.0, 0.0, 1.0, -0.3}},   /* sticks */
        {{0.6, 0.0, -1.0, 0.8}, {-0.3, 0.0, 1.0, -0.4}},  /* slides and spins, one cone */
        {{0.2, -0.1, -1.0, 0.2}, {-0.2, 0.1, 1.0, -0.2}}, /* inside the cone: sticks */
        {{0.6, 0.0, 1.0, 0.8}, {0.0, 0.0, 0.0, 0.0}},     /* separating */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        double lambda[4];
        assert_int_equal(solve4(LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM, mu, cases[c].g, lambda),
                         LUCID_OK);
        near4(lambda, cases[c].lambda, 1e-9);
        assert_int_equal(solve4(LUCID_CONTACT_NCP, LUCID_CONTACT_PGS, mu, cases[c].g, lambda),
                         LUCID_OK);
        near4(lambda, cases[c].lambda, 1e-9);
        int slides = c == 0 || c == 2;
        if (slides || c == 4) continue; /* the CCP lifts a sliding contact off */
        assert_int_equal(solve4(LUCID_CONTACT_CCP, LUCID_CONTACT_ADMM, mu, cases[c].g, lambda),
                         LUCID_OK);
        near4(lambda, cases[c].lambda, 1e-9);
        assert_int_equal(solve4(LUCID_CONTACT_CCP, LUCID_CONTACT_PGS, mu, cases[c].g, lambda),
                         LUCID_OK);
        near4(lambda, cases[c].lambda, 1e-9);
    }
}

static void other_pairs_refuse_it(void **state) {
    (void)state;
    const double g[4] = {0.0, 0.0, -1.0, 3.0};
    double lambda[4];
    assert_int_equal(solve4(LUCID_CONTACT_NCP, LUCID_CONTACT_STAGGERED, 0.5, g, lambda),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(solve4(LUCID_CONTACT_NCP, LUCID_CONTACT_IP, 0.5, g, lambda),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(solve4(LUCID_CONTACT_CCP, LUCID_CONTACT_NEWTON, 0.5, g, lambda),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(solve4(LUCID_CONTACT_LCP, LUCID_CONTACT_PGS, 0.5, g, lambda),
                     LUCID_ERR_ARGUMENT);
    double mu = 0.5;
    lucid_contact_problem p = {1, IDENTITY4, g, &mu, NULL, 5};
    const char *why = NULL;
    assert_int_equal(lucid_contact_problem_validate(&p, &why), LUCID_ERR_ARGUMENT);
    assert_string_equal(why, "dim (rows per contact) must be 3, 4 or 6");
}

/* P(x) lies in the cone, P(P(x)) = P(x), and x - P(x) is in the polar cone (-K*) and
 * orthogonal to P(x): Moreau's decomposition, over a grid of points. */
static void cone4_projection_is_moreau(void **state) {
    (void)state;
    const double mu = 0.7, v[5] = {-2.0, -0.3, 0.0, 0.4, 1.5};
    for (int a = 0; a < 5; ++a)
        for (int b = 0; b < 5; ++b)
            for (int c = 0; c < 5; ++c)
                for (int d = 0; d < 5; ++d) {
                    double x[4] = {v[a], v[b], v[c], v[d]}, p[4], q[4], r[4];
                    lucid_cone4_project(mu, x, p);
                    assert_true(lucid_cone4_distance(mu, p) <= 1e-14);
                    lucid_cone4_project(mu, p, q);
                    near4(p, q, 1e-14);
                    for (int k = 0; k < 4; ++k) r[k] = p[k] - x[k]; /* -(x - P(x)) in K* */
                    assert_true(lucid_cone4_distance_dual(mu, r) <= 1e-14);
                    double dot = 0.0;
                    for (int k = 0; k < 4; ++k) dot += r[k] * p[k];
                    assert_true(fabs(dot) <= 1e-14);
                }
}

/* Contacts of dim 6 (rolling friction: (t1, t2, n, s, r1, r2)): the same closed form with five
 * tangential rows, by ncp:admm and ncp:pgs (ccp where nothing slides); the other pairs refuse
 * it. */
static const double IDENTITY6[36] = {1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
                                     0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1};

static lucid_status solve6(lucid_contact_model model, lucid_contact_solver solver, double mu,
                           const double g[6], double lambda[6]) {
    lucid_contact_problem p = {1, IDENTITY6, g, &mu, NULL, 6};
    lucid_contact_options o = lucid_contact_default_options();
    o.model = model, o.solver = solver, o.tol = 1e-12, o.max_iter = 5000;
    lucid_contact_workspace *ws = lucid_contact_workspace_create(2); /* 6 rows */
    assert_non_null(ws);
    lucid_contact_result res;
    lucid_status s = lucid_contact_solve(&p, &o, ws, lambda, NULL, &res);
    if (s == LUCID_OK) assert_true(res.converged);
    lucid_contact_workspace_destroy(ws);
    return s;
}

static void near6(const double a[6], const double b[6], double tol) {
    for (int k = 0; k < 6; ++k)
        if (!(fabs(a[k] - b[k]) <= tol)) fail_msg("entry %d: %.17g, expected %.17g", k, a[k], b[k]);
}

static void closed_form6(void **state) {
    (void)state;
    const double mu = 0.5;
    const struct {
        double g[6], lambda[6];
    } cases[] = {
        /* rolls about t1: the rolling force at its bound mu lambda_n */
        {{0.0, 0.0, -1.0, 0.0, 3.0, 0.0}, {0.0, 0.0, 1.0, 0.0, -0.5, 0.0}},
        /* rolls and spins inside the cone: sticks */
        {{0.1, 0.0, -1.0, 0.2, 0.1, -0.2}, {-0.1, 0.0, 1.0, -0.2, -0.1, 0.2}},
        /* slides, spins and rolls in one cone: |g_T| = 1, each against its velocity */
        {{0.6, 0.0, -1.0, 0.0, 0.0, 0.8}, {-0.3, 0.0, 1.0, 0.0, 0.0, -0.4}},
        /* separating */
        {{0.0, 0.0, 1.0, 0.5, 0.5, 0.5}, {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        double lambda[6];
        assert_int_equal(solve6(LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM, mu, cases[c].g, lambda),
                         LUCID_OK);
        near6(lambda, cases[c].lambda, 1e-9);
        assert_int_equal(solve6(LUCID_CONTACT_NCP, LUCID_CONTACT_PGS, mu, cases[c].g, lambda),
                         LUCID_OK);
        near6(lambda, cases[c].lambda, 1e-9);
        if (c != 1) continue; /* the CCP lifts a sliding contact off */
        assert_int_equal(solve6(LUCID_CONTACT_CCP, LUCID_CONTACT_ADMM, mu, cases[c].g, lambda),
                         LUCID_OK);
        near6(lambda, cases[c].lambda, 1e-9);
        assert_int_equal(solve6(LUCID_CONTACT_CCP, LUCID_CONTACT_PGS, mu, cases[c].g, lambda),
                         LUCID_OK);
        near6(lambda, cases[c].lambda, 1e-9);
    }
    const double g[6] = {0.0, 0.0, -1.0, 0.0, 3.0, 0.0};
    double lambda[6];
    assert_int_equal(solve6(LUCID_CONTACT_NCP, LUCID_CONTACT_IP, mu, g, lambda),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(solve6(LUCID_CONTACT_CCP, LUCID_CONTACT_NEWTON, mu, g, lambda),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(solve6(LUCID_CONTACT_NCP, LUCID_CONTACT_STAGGERED, mu, g, lambda),
                     LUCID_ERR_ARGUMENT);
}

/* Moreau's decomposition of the dim-6 cone's projection, over a grid of points. */
static void cone6_projection_is_moreau(void **state) {
    (void)state;
    const double mu = 0.7, v[4] = {-2.0, -0.3, 0.4, 1.5};
    for (int code = 0; code < 4 * 4 * 4 * 4 * 4 * 4; ++code) {
        double x[6], p[6], q[6], r[6], dot = 0.0;
        for (int k = 0, c = code; k < 6; ++k, c /= 4) x[k] = v[c % 4];
        lucid_cone_n_project(6, mu, x, p);
        assert_true(lucid_cone_n_distance(6, mu, p) <= 1e-14);
        lucid_cone_n_project(6, mu, p, q);
        near6(p, q, 1e-14);
        for (int k = 0; k < 6; ++k) r[k] = p[k] - x[k], dot += r[k] * p[k];
        assert_true(lucid_cone_n_distance_dual(6, mu, r) <= 1e-14);
        assert_true(fabs(dot) <= 1e-14);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(closed_form),
        cmocka_unit_test(other_pairs_refuse_it),
        cmocka_unit_test(cone4_projection_is_moreau),
        cmocka_unit_test(closed_form6),
        cmocka_unit_test(cone6_projection_is_moreau),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
