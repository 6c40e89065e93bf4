/* lcp:pgs on contacts of dim 4 (torsional friction) and 6 (rolling friction): the box pyramid
 * {|lambda_k| <= mu lambda_n} over every tangential row k (t1, t2, s[, r1, r2]). Its projection
 * is Moreau's (dims 3, 4 and 6) and reduces to the 4-facet pyramid's distances when the extra
 * rows are zero; one contact with G = I solved in closed form (sticking, one row at its bound,
 * several rows at their bounds each, separating); the LCP criterion is zero there and not at the
 * ball's (NCP) answer; a dim-3 problem with a decoupled idle spin row solves as in dim 3;
 * raisim:bisection solves dims 4 and 6 in the round cone, not the box. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_criteria.h"
#include "solvers/contact/contact_solver.h"
#include "tests/c/common/test_contact_problems.h"

static void near_n(int n, const double *a, const double *b, double tol) {
    for (int k = 0; k < n; ++k)
        if (!(fabs(a[k] - b[k]) <= tol)) fail_msg("entry %d: %.17g, expected %.17g", k, a[k], b[k]);
}

/* lambda of one contact of dim rows (G = I, mu = 0.5) with free velocity g under the pair. */
static lucid_status solve_one(int dim, lucid_contact_model model, lucid_contact_solver solver,
                              const double *g, double *lambda) {
    double G[36] = {0}, mu = 0.5;
    for (int k = 0; k < dim; ++k) G[k * (dim + 1)] = 1.0;
    lucid_contact_problem p = {1, G, g, &mu, NULL, dim};
    lucid_contact_options o = lucid_contact_default_options();
    o.model = model, o.solver = solver, o.tol = 1e-12, o.max_iter = 5000;
    lucid_contact_workspace *ws = lucid_contact_workspace_create(2); /* 6 >= dim rows */
    assert_non_null(ws);
    lucid_contact_result res;
    lucid_status s = lucid_contact_solve(&p, &o, ws, lambda, NULL, &res);
    if (s == LUCID_OK) assert_true(res.converged && res.model.abs <= 1e-12);
    lucid_contact_workspace_destroy(ws);
    return s;
}

/* The LCP criterion of (lambda, sigma = lambda + g) for G = I, mu = 0.5. */
static double lcp_criterion(int dim, const double *g, const double *lambda) {
    double G[36] = {0}, mu = 0.5, sigma[6];
    for (int k = 0; k < dim; ++k) G[k * (dim + 1)] = 1.0, sigma[k] = lambda[k] + g[k];
    lucid_contact_problem p = {1, G, g, &mu, NULL, dim};
    lucid_contact_criteria c;
    lucid_contact_criteria_eval(&p, LUCID_CRITERION_LCP, lambda, sigma, NULL, &c);
    return c.abs;
}

/* P(x) in P, P(P(x)) = P(x), P(x) - x in the dual P* and orthogonal to P(x) (Moreau), over a
 * grid of points of dims 3, 4 and 6 and mu in {0, 0.7}. */
static void pyramid_projection_is_moreau(void **state) {
    (void)state;
    const double v[4] = {-2.0, -0.3, 0.4, 1.5}, mus[2] = {0.0, 0.7};
    const int dims[3] = {3, 4, 6};
    for (int di = 0; di < 3; ++di)
        for (int mi = 0; mi < 2; ++mi) {
            int dim = dims[di], codes = 1;
            for (int k = 0; k < dim; ++k) codes *= 4;
            for (int code = 0; code < codes; ++code) {
                double x[6], p[6], q[6], r[6], dot = 0.0, mu = mus[mi];
                for (int k = 0, c = code; k < dim; ++k, c /= 4) x[k] = v[c % 4];
                lucid_pyramid_n_project(dim, mu, x, p);
                assert_true(lucid_pyramid_n_distance(dim, mu, p) <= 1e-14);
                for (int k = 0; k < dim; ++k)
                    if (k != 2) assert_true(fabs(p[k]) <= mu * p[2] + 1e-15);
                lucid_pyramid_n_project(dim, mu, p, q);
                near_n(dim, p, q, 1e-14);
                for (int k = 0; k < dim; ++k) r[k] = p[k] - x[k], dot += r[k] * p[k];
                assert_true(lucid_pyramid_n_distance_dual(dim, mu, r) <= 1e-14);
                assert_true(fabs(dot) <= 1e-14);
            }
        }
}

/* The dim-3 distances equal the 4-facet pyramid's (enumerated edges, contact_cone.c), and with
 * the extra rows zero so do those of dims 4 and 6. */
static void pyramid_distances_match_the_four_facet_one(void **state) {
    (void)state;
    test_rng r = {5};
    for (int trial = 0; trial < 400; ++trial) {
        double mu = 0.1 + test_uniform(&r), x[6] = {0};
        for (int a = 0; a < 3; ++a) x[a] = test_normal(&r);
        double d = lucid_pyramid_distance(mu, x), dd = lucid_pyramid_distance_dual(mu, x);
        for (int dim = 3; dim <= 6; dim += dim == 4 ? 2 : 1) {
            assert_true(fabs(lucid_pyramid_n_distance(dim, mu, x) - d) <= 1e-12);
            assert_true(fabs(lucid_pyramid_n_distance_dual(dim, mu, x) - dd) <= 1e-12);
        }
    }
}

/* With G = I, sigma = lambda + g: lambda_n cancels g_n < 0, and each tangential row sticks
 * (lambda_k = -g_k) inside its bound mu lambda_n, else sits at the bound against g_k, row by
 * row (the ball of ncp would scale the rows together). */
static void closed_form(void **state) {
    (void)state;
    const struct {
        int dim;
        double g[6], lambda[6];
    } cases[] = {
        {4, {0.0, 0.0, -1.0, 3.0}, {0.0, 0.0, 1.0, -0.5}},   /* spins: the torque at its bound */
        {4, {0.2, -0.1, -1.0, 0.3}, {-0.2, 0.1, 1.0, -0.3}}, /* sticks */
        {4, {0.6, 0.0, -1.0, 0.3}, {-0.5, 0.0, 1.0, -0.3}},  /* slides, the spin sticks */
        {4, {0.6, -0.7, -1.0, 0.8}, {-0.5, 0.5, 1.0, -0.5}}, /* every row at its bound */
        {4, {0.6, 0.0, 1.0, 0.8}, {0.0, 0.0, 0.0, 0.0}},     /* separating */
        {6, {0.0, 0.0, -1.0, 0.0, 3.0, 0.0}, {0.0, 0.0, 1.0, 0.0, -0.5, 0.0}},      /* rolls */
        {6, {0.1, 0.0, -1.0, 0.2, 0.4, -0.45}, {-0.1, 0.0, 1.0, -0.2, -0.4, 0.45}}, /* sticks */
        {6, {0.6, 0.0, -1.0, 0.3, -0.8, 0.1}, {-0.5, 0.0, 1.0, -0.3, 0.5, -0.1}},   /* two bounds */
        {6, {0.0, 0.0, 1.0, 0.5, 0.5, 0.5}, {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}},        /* separating */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        int dim = cases[c].dim;
        double lambda[6];
        assert_int_equal(solve_one(dim, LUCID_CONTACT_LCP, LUCID_CONTACT_PGS, cases[c].g, lambda),
                         LUCID_OK);
        near_n(dim, lambda, cases[c].lambda, 1e-9);
        assert_true(lcp_criterion(dim, cases[c].g, cases[c].lambda) <= 1e-15);
    }
    /* the ball's answer where two rows exceed it is not the box's: inside the box while both
     * rows slide, its complementarity is lambda . (sigma + (0, 0, mu ||sigma_T||_1)) = 0.1 */
    const double g[4] = {0.6, 0.0, -1.0, 0.8}, ball[4] = {-0.3, 0.0, 1.0, -0.4};
    double lambda[4];
    assert_int_equal(solve_one(4, LUCID_CONTACT_NCP, LUCID_CONTACT_PGS, g, lambda), LUCID_OK);
    near_n(4, lambda, ball, 1e-9);
    assert_true(fabs(lcp_criterion(4, g, ball) - 0.1) <= 1e-15);
}

/* A random definite dim-3 problem of n contacts embedded in dim 4 with a spin row that touches
 * nothing (G_ss = 1, g_s = 0): lcp:pgs leaves the spin at zero and solves the rest as in dim 3
 * (both to the LCP criterion at 1e-11). */
static void idle_spin_row_solves_as_dim3(void **state) {
    (void)state;
    test_rng r = {21};
    int compared = 0;
    for (int trial = 0; trial < 20; ++trial) {
        int n = 1 + trial % 3, m3 = 3 * n, m4 = 4 * n, k = m3 + 2;
        double *J = malloc(sizeof(double) * (size_t)(m3 * k));
        double *G3 = calloc((size_t)(m3 * m3), sizeof(double));
        double *G4 = calloc((size_t)(m4 * m4), sizeof(double));
        double g3[9], g4[12] = {0}, mu[3], l3[9], l4[12];
        for (int a = 0; a < m3 * k; ++a) J[a] = test_normal(&r);
        for (int i = 0; i < m3; ++i)
            for (int j = 0; j < m3; ++j) {
                double v = 0.0;
                for (int c = 0; c < k; ++c) v += J[i + m3 * c] * J[j + m3 * c];
                G3[i + m3 * j] = v / k;
                int I = 4 * (i / 3) + i % 3, Jc = 4 * (j / 3) + j % 3; /* rows 0..2 of 4 */
                G4[I + m4 * Jc] = v / k;
            }
        for (int i = 0; i < n; ++i) {
            G4[(4 * i + 3) * (m4 + 1)] = 1.0;
            g3[3 * i] = test_normal(&r), g3[3 * i + 1] = test_normal(&r);
            g3[3 * i + 2] = -1.0 + 1.5 * test_uniform(&r);
            for (int a = 0; a < 3; ++a) g4[4 * i + a] = g3[3 * i + a];
            mu[i] = 0.1 + 0.4 * test_uniform(&r);
        }
        lucid_contact_problem p3 = {n, G3, g3, mu, NULL, 3}, p4 = {n, G4, g4, mu, NULL, 4};
        lucid_contact_options o = lucid_contact_default_options();
        o.model = LUCID_CONTACT_LCP, o.solver = LUCID_CONTACT_PGS, o.tol = 1e-11;
        o.max_iter = 100000;
        lucid_contact_workspace *ws = lucid_contact_workspace_create(4);
        lucid_contact_result r3, r4;
        assert_int_equal(lucid_contact_solve(&p3, &o, ws, l3, NULL, &r3), LUCID_OK);
        assert_int_equal(lucid_contact_solve(&p4, &o, ws, l4, NULL, &r4), LUCID_OK);
        if (r3.converged != r4.converged)
            fail_msg("trial %d: dim 3 converged %d (%.3g), dim 4 %d (%.3g)", trial, r3.converged,
                     r3.model.abs, r4.converged, r4.model.abs);
        if (r3.converged) {
            for (int i = 0; i < n; ++i) {
                assert_true(l4[4 * i + 3] == 0.0);
                near_n(3, l4 + 4 * i, l3 + 3 * i, 1e-7);
            }
            ++compared;
        }
        lucid_contact_workspace_destroy(ws);
        free(J), free(G3), free(G4);
    }
    fprintf(stderr, "%d of 20 problems compared\n", compared);
    assert_true(compared >= 15);
}

/* raisim:bisection takes dims 4 and 6 in the round cone: sliding and spinning in one cone it
 * gives the ball's answer (lambda_T against g_T at radius mu lambda_n), which the box's
 * criterion rejects. */
static void raisim_keeps_the_round_cone(void **state) {
    (void)state;
    const double g4[4] = {0.6, 0.0, -1.0, 0.8}, ball4[4] = {-0.3, 0.0, 1.0, -0.4};
    const double g6[6] = {0.6, 0.0, -1.0, 0.0, 0.0, 0.8},
                 ball6[6] = {-0.3, 0.0, 1.0, 0.0, 0.0, -0.4};
    double lambda[6];
    assert_int_equal(solve_one(4, LUCID_CONTACT_RAISIM, LUCID_CONTACT_BISECTION, g4, lambda),
                     LUCID_OK);
    for (int k = 0; k < 4; ++k) assert_true(fabs(lambda[k] - ball4[k]) <= 1e-12);
    assert_true(fabs(lcp_criterion(4, g4, lambda) - 0.1) <= 1e-12); /* closed_form's 0.1 */
    assert_int_equal(solve_one(6, LUCID_CONTACT_RAISIM, LUCID_CONTACT_BISECTION, g6, lambda),
                     LUCID_OK);
    for (int k = 0; k < 6; ++k) assert_true(fabs(lambda[k] - ball6[k]) <= 1e-12);
    assert_true(fabs(lcp_criterion(6, g6, lambda) - 0.1) <= 1e-12);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pyramid_projection_is_moreau),
        cmocka_unit_test(pyramid_distances_match_the_four_facet_one),
        cmocka_unit_test(closed_form),
        cmocka_unit_test(idle_spin_row_solves_as_dim3),
        cmocka_unit_test(raisim_keeps_the_round_cone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
