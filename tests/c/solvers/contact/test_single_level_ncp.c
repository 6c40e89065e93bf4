/* The single-level NCP interior point (solvers/contact/single_level_ncp.h) on problems with
 * closed-form central-path points: a scalar LCP (b (2 b - 1) = kappa), a 2 x 2 LCP with one
 * pair active and one not, and a second-order-cone pair; plus option and size checks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "solvers/contact/single_level_ncp.h"

static void assert_near(double a, double b, double tol) {
    if (!(fabs(a - b) <= tol)) fail_msg("%.15g != %.15g (tol %g)", a, b, tol);
}

/* a = q + M b (na = 2, no y): F = a - q - M b. */
typedef struct lcp {
    double q[2], M[4];
    int n;
} lcp;

static void lcp_residual(void *ctx, const double *X, double *F) {
    const lcp *p = ctx;
    const double *a = X, *b = X + p->n;
    for (int i = 0; i < p->n; ++i) {
        F[i] = a[i] - p->q[i];
        for (int j = 0; j < p->n; ++j) F[i] -= p->M[i * p->n + j] * b[j];
    }
}

static void scalar_lcp_on_the_central_path(void **state) {
    (void)state;
    lcp p = {{-1.0, 0}, {2.0, 0, 0, 0}, 1};
    int blocks[] = {0, 1};
    lucid_ncp_problem P = {0, 1, 1, blocks, lcp_residual, &p, NULL, 0, NULL};
    lucid_ncp_workspace ws = {0};
    assert_int_equal(lucid_ncp_reserve(&ws, 2), LUCID_OK);
    double kappas[] = {1e-2, 1e-6, 1e-10};
    for (int k = 0; k < 3; ++k) {
        lucid_single_level_options o;
        lucid_single_level_default_options(&o);
        o.kappa = kappas[k], o.tol = 1e-13;
        double X[2] = {1.0, 1.0};
        lucid_ncp_result r;
        assert_int_equal(lucid_ncp_solve(&P, &o, X, &ws, &r), LUCID_OK);
        /* a = 2 b - 1 and a b = kappa: b = (1 + sqrt(1 + 8 kappa)) / 4 */
        double b = (1.0 + sqrt(1.0 + 8.0 * o.kappa)) / 4.0;
        assert_near(X[1], b, 1e-12);
        assert_near(X[0], 2.0 * b - 1.0, 1e-12);
        assert_true(r.converged && r.iterations < 30);
        /* the LU left at the answer gives db/dq (IFT: dX = -J^-1 dF/dq, dF/dq = (-1, 0)),
         * against a central difference of the closed form b(q) = (-q + sqrt(q^2 + 8 kappa))/4 */
        double rhs[2] = {1.0, 0.0};
        lucid_ncp_lu_solve(&ws, 2, rhs);
        double h = 1e-7, q1 = -1.0 + h, q0 = -1.0 - h;
        double bp = (-q1 + sqrt(q1 * q1 + 8.0 * o.kappa)) / 4.0;
        double bm = (-q0 + sqrt(q0 * q0 + 8.0 * o.kappa)) / 4.0;
        assert_near(rhs[1], (bp - bm) / (2.0 * h), 1e-6);
    }
    lucid_ncp_release(&ws);
}

static void two_pairs_one_active(void **state) {
    (void)state;
    /* a = q + M b with q = (-1, 1), M = [[2, 0.5], [0.5, 1]]: at kappa -> 0, b = (0.5, 0),
     * a = (0, 1.25) */
    lcp p = {{-1.0, 1.0}, {2.0, 0.5, 0.5, 1.0}, 2};
    int blocks[] = {0, 1, 2};
    lucid_ncp_problem P = {0, 2, 2, blocks, lcp_residual, &p, NULL, 0, NULL};
    lucid_ncp_workspace ws = {0};
    assert_int_equal(lucid_ncp_reserve(&ws, 4), LUCID_OK);
    lucid_single_level_options o;
    lucid_single_level_default_options(&o);
    o.kappa = 1e-12, o.tol = 1e-13;
    double X[4] = {1, 1, 1, 1};
    lucid_ncp_result r;
    assert_int_equal(lucid_ncp_solve(&P, &o, X, &ws, &r), LUCID_OK);
    assert_near(X[2], 0.5, 1e-9);
    assert_near(X[3], 0.0, 1e-9);
    assert_near(X[0], 0.0, 1e-9);
    assert_near(X[1], 1.25, 1e-9);
    lucid_ncp_release(&ws);
}

/* One Q^3 pair: a = b - c with c = (0, 1, 0) (y: none). At kappa, a o b = kappa e. By
 * symmetry b = (beta, t, 0), a = (beta, t - 1, 0): beta^2 + t (t - 1) = kappa and
 * beta (t - 1) + beta t = 0, so t = 1/2 and beta = sqrt(kappa + 1/4). */
static void soc_residual(void *ctx, const double *X, double *F) {
    (void)ctx;
    const double *a = X, *b = X + 3;
    F[0] = a[0] - b[0];
    F[1] = a[1] - (b[1] - 1.0);
    F[2] = a[2] - b[2];
}

static void second_order_cone_pair(void **state) {
    (void)state;
    int blocks[] = {0, 3};
    lucid_ncp_problem P = {0, 3, 1, blocks, soc_residual, NULL, NULL, 0, NULL};
    lucid_ncp_workspace ws = {0};
    assert_int_equal(lucid_ncp_reserve(&ws, 6), LUCID_OK);
    lucid_single_level_options o;
    lucid_single_level_default_options(&o);
    o.kappa = 1e-4, o.tol = 1e-13;
    double X[6] = {2, 0.3, -0.2, 2, 0.1, 0.4};
    lucid_ncp_result r;
    assert_int_equal(lucid_ncp_solve(&P, &o, X, &ws, &r), LUCID_OK);
    assert_near(X[3], sqrt(o.kappa + 0.25), 1e-12);
    assert_near(X[4], 0.5, 1e-12);
    assert_near(X[5], 0.0, 1e-12);
    assert_near(X[1], -0.5, 1e-12);
    lucid_ncp_release(&ws);
}

/* The same central-path points by following the path from kappa0 = 0.1 (halving), and a stage
 * that does not converge stopping it, reported as not converged. */
static void central_path_following(void **state) {
    (void)state;
    lcp p = {{-1.0, 0}, {2.0, 0, 0, 0}, 1};
    int blocks[] = {0, 1};
    lucid_ncp_problem P = {0, 1, 1, blocks, lcp_residual, &p, NULL, 0, NULL};
    lucid_ncp_workspace ws = {0};
    assert_int_equal(lucid_ncp_reserve(&ws, 6), LUCID_OK);
    lucid_single_level_options o;
    lucid_single_level_default_options(&o);
    o.kappa = 1e-8, o.tol = 1e-13;
    double X[6] = {1.0, 1.0};
    lucid_ncp_result r;
    assert_int_equal(lucid_ncp_solve_continued(&P, &o, 0.1, X, &ws, &r), LUCID_OK);
    double b = (1.0 + sqrt(1.0 + 8.0 * o.kappa)) / 4.0;
    assert_near(X[1], b, 1e-12);
    assert_near(X[0], 2.0 * b - 1.0, 1e-12);
    /* 0.1 / 2^k > 1e-8 for k < 24: 24 stages, at least one iteration each */
    assert_true(r.converged && r.iterations >= 24);
    int sblocks[] = {0, 3};
    lucid_ncp_problem S = {0, 3, 1, sblocks, soc_residual, NULL, NULL, 0, NULL};
    double Y[6] = {2, 0.3, -0.2, 2, 0.1, 0.4};
    o.kappa = 1e-6;
    assert_int_equal(lucid_ncp_solve_continued(&S, &o, 0.1, Y, &ws, &r), LUCID_OK);
    assert_near(Y[3], sqrt(o.kappa + 0.25), 1e-12);
    assert_near(Y[4], 0.5, 1e-12);
    /* a first stage capped at one iteration: not converged, and no further stage taken */
    o.max_iter = 1;
    double Z[2] = {1.0, 1.0};
    assert_int_equal(lucid_ncp_solve_continued(&P, &o, 0.1, Z, &ws, &r), LUCID_ERR_NO_CONVERGENCE);
    assert_false(r.converged);
    assert_int_equal(r.iterations, 1);
    lucid_ncp_release(&ws);
}

/* Iterates stay in the cones from starts on the edge of a second-order cone to rounding (a0 =
 * ||a1|| (1 + 4e-16), where the fraction-to-boundary steps drive iterates): the step to the
 * boundary is the near root of det(u + t du), which the textbook formula lost to cancellation
 * there (steps then left the cone by up to 3 % of ||a1||, measured on a sliding box). One
 * iteration from each of many such starts; outside by more than rounding counts. */
static void iterates_stay_in_the_cone_from_its_edge(void **state) {
    (void)state;
    int blocks[] = {0, 3};
    lucid_ncp_problem S = {0, 3, 1, blocks, soc_residual, NULL, NULL, 0, NULL};
    lucid_ncp_workspace ws = {0};
    assert_int_equal(lucid_ncp_reserve(&ws, 6), LUCID_OK);
    lucid_single_level_options o;
    lucid_single_level_default_options(&o);
    o.max_iter = 1, o.tol = 1e-14;
    unsigned seed = 12345u;
    int left = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        double X[6];
        for (int i = 0; i < 6; ++i) {
            seed = seed * 1664525u + 1013904223u;
            X[i] = (double)(seed >> 8) / 16777216.0 * 2.0 - 1.0;
        }
        for (int side = 0; side < 2; ++side) { /* a on its edge, b well inside */
            double *u = X + 3 * side, r = sqrt(u[1] * u[1] + u[2] * u[2]);
            u[0] = side == 0 ? r * (1.0 + 4e-16) : 2.0 * r + 0.5;
        }
        lucid_ncp_result res;
        lucid_ncp_solve(&S, &o, X, &ws, &res);
        for (int side = 0; side < 2; ++side) {
            const double *u = X + 3 * side;
            if (!(u[0] >= sqrt(u[1] * u[1] + u[2] * u[2]) * (1.0 - 1e-12))) ++left;
        }
    }
    assert_int_equal(left, 0);
    lucid_ncp_release(&ws);
}

static void options_and_sizes(void **state) {
    (void)state;
    lucid_single_level_options o;
    lucid_single_level_default_options(&o);
    const char *why = NULL;
    assert_int_equal(lucid_single_level_options_check(&o, &why), LUCID_OK);
    o.kappa = 0.0;
    assert_int_equal(lucid_single_level_options_check(&o, &why), LUCID_ERR_ARGUMENT);
    assert_string_equal(why, "single_level.kappa must be > 0");
    lucid_single_level_default_options(&o);
    o.tol = NAN;
    assert_int_equal(lucid_single_level_options_check(&o, &why), LUCID_ERR_ARGUMENT);
    lucid_single_level_default_options(&o);
    o.max_iter = 0;
    assert_int_equal(lucid_single_level_options_check(&o, &why), LUCID_ERR_ARGUMENT);
    /* a workspace smaller than the problem */
    lcp p = {{-1.0, 0}, {2.0, 0, 0, 0}, 1};
    int blocks[] = {0, 1};
    lucid_ncp_problem P = {0, 1, 1, blocks, lcp_residual, &p, NULL, 0, NULL};
    lucid_ncp_workspace ws = {0};
    assert_int_equal(lucid_ncp_reserve(&ws, 1), LUCID_OK);
    lucid_single_level_default_options(&o);
    double X[2] = {1, 1};
    lucid_ncp_result r;
    assert_int_equal(lucid_ncp_solve(&P, &o, X, &ws, &r), LUCID_ERR_ARGUMENT);
    /* the iteration cap */
    assert_int_equal(lucid_ncp_reserve(&ws, 2), LUCID_OK);
    o.max_iter = 1, o.tol = 1e-14;
    assert_int_equal(lucid_ncp_solve(&P, &o, X, &ws, &r), LUCID_ERR_NO_CONVERGENCE);
    assert_false(r.converged);
    lucid_ncp_release(&ws);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scalar_lcp_on_the_central_path),
        cmocka_unit_test(two_pairs_one_active),
        cmocka_unit_test(second_order_cone_pair),
        cmocka_unit_test(options_and_sizes),
        cmocka_unit_test(central_path_following),
        cmocka_unit_test(iterates_stay_in_the_cone_from_its_edge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
