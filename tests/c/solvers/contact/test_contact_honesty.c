/* Whether every solver's `converged` and reported criteria are honest, judged by criteria
 * computed here, independently of solvers/contact/contact_criteria.c: Eq. 15 of Le Lidec et
 * al. re-implemented from its definitions (the distance to the friction cone and to its dual
 * by the closed forms of a circular cone, to the 4-facet pyramid and its dual by enumerating
 * the candidate projections: the point itself, its projections on each facet plane and each
 * edge ray, the apex), the contact velocity sigma = (G + R) lambda + g by a plain product.
 * Problems: random well-conditioned ones, point-mass stacks of mass ratio 1e3 and 1e9 (the
 * 1e4 kg box on a 1e-5 kg one), each solved with iteration caps from 1 to 1000 so that both
 * converged and unconverged answers are checked. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/c/common/test_contact_eq15.h"
#include "tests/c/common/test_contact_problems.h"

/* The compliance ccp:newton solves with (contact_newton.c): newton_compliance x trace(G_ii)/3
 * where p has none. */
static void newton_compliance(const lucid_contact_problem *p, double eps, double *R) {
    int m = 3 * p->n;
    for (int i = 0; i < p->n; ++i) {
        double trace = 0.0;
        for (int a = 0; a < 3; ++a) trace += p->G[(3 * i + a) * (m + 1)];
        for (int a = 0; a < 3; ++a) {
            double given = p->R ? p->R[3 * i + a] : 0.0;
            R[3 * i + a] = given > 0.0 ? given : eps * trace / 3.0;
        }
    }
}

/* Solves p with every pair and the caps, and checks each answer against eq15. */
static void check_problem(const lucid_contact_problem *p, const char *name, int *checked,
                          int *converged_count) {
    int m = 3 * p->n;
    double *lambda = calloc((size_t)m, sizeof(double)), *R = calloc((size_t)m, sizeof(double));
    lucid_contact_workspace *ws = lucid_contact_workspace_create(p->n);
    assert_non_null(ws);
    const int caps[] = {1, 3, 10, 30, 100, 1000};
    for (int k = 0; k < PAIRS; ++k)
        for (size_t c = 0; c < sizeof caps / sizeof caps[0]; ++c) {
            lucid_contact_options o = lucid_contact_default_options();
            o.model = all_pairs[k].model, o.solver = all_pairs[k].solver;
            o.tol = 1e-6, o.max_iter = caps[c];
            lucid_contact_result res;
            assert_int_equal(lucid_contact_solve(p, &o, ws, lambda, NULL, &res), LUCID_OK);
            lucid_contact_criterion kind = lucid_contact_model_criterion(o.model);
            double ncp = eq15(p, LUCID_CRITERION_NCP, lambda, p->R);
            double own = NAN;
            if (o.solver == LUCID_CONTACT_NEWTON) {
                newton_compliance(p, o.newton_compliance, R);
                own = eq15(p, LUCID_CRITERION_CCP, lambda, R);
            } else if (o.model != LUCID_CONTACT_RAISIM) {
                own = eq15(p, kind, lambda, p->R);
            }
            int honest_ncp = close_to(res.ncp.abs, ncp);
            int honest_model = isnan(own) || close_to(res.model.abs, own);
            int honest_flag = isnan(own) || !res.converged || own <= o.tol * (1 + 1e-9);
            if (!honest_ncp || !honest_model || !honest_flag)
                printf("%s %s:%s cap %d: converged %d, reported model %.6g ncp %.6g, "
                       "recomputed model %.6g ncp %.6g\n",
                       name, lucid_contact_model_name(o.model), lucid_contact_solver_name(o.solver),
                       caps[c], res.converged, res.model.abs, res.ncp.abs, own, ncp);
            assert_true(honest_ncp);
            assert_true(honest_model);
            assert_true(honest_flag);
            ++*checked;
            *converged_count += res.converged;
        }
    lucid_contact_workspace_destroy(ws);
    free(lambda);
    free(R);
}

/* The independent distances against hand-computed values, so that the checker itself is
 * checked: K with mu = 0.5 at (3, 4, 1) is (5 - 0.5) / sqrt(1.25) away; the pyramid's facet
 * |y_1| <= mu y_N at (2, 0, 1), mu = 0.5, is (2 - 0.5) / sqrt(1.25) away; its dual at
 * (1, 1, 0) with mu = 1 is (1 + 1 - 0) / sqrt(3) away (facet y_N >= y_1 + y_2). */
static void independent_distances_match_hand_values(void **state) {
    (void)state;
    const double x1[3] = {3, 4, 1}, x2[3] = {2, 0, 1}, x3[3] = {1, 1, 0}, x4[3] = {0, 0, -2};
    assert_true(fabs(dist_K(0.5, x1) - 4.5 / sqrt(1.25)) < 1e-14);
    assert_true(fabs(dist_pyramid(0.5, x2) - 1.5 / sqrt(1.25)) < 1e-14);
    assert_true(fabs(dist_pyramid_dual(1.0, x3) - 2.0 / sqrt(3.0)) < 1e-14);
    assert_true(fabs(dist_K(0.5, x4) - 2.0) < 1e-14 && fabs(dist_pyramid(0.5, x4) - 2.0) < 1e-14);
    const double x5[3] = {0.3, 0.4, 1};
    assert_true(dist_K_dual(0.5, x5) == 0.0 && dist_pyramid_dual(0.1, x5) == 0.0);
    assert_true(dist_K_dual(0.5, x1) > 0.0);
}

static void every_solver_reports_honest_criteria(void **state) {
    (void)state;
    int checked = 0, converged = 0;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        test_problem t = test_random_problem(3, seed);
        check_problem(&t.p, "random", &checked, &converged);
        test_problem_free(&t);
    }
    const double ratios[] = {1e3, 1e9};
    for (int r = 0; r < 2; ++r) {
        /* 1e-5 kg under 1e4 kg at ratio 1e9 */
        test_problem t = test_stack_problem(1e-5, 1e-5 * ratios[r], 1e-3);
        check_problem(&t.p, r ? "stack 1e9" : "stack 1e3", &checked, &converged);
        test_problem_free(&t);
    }
    printf("%d answers checked, %d converged\n", checked, converged);
    assert_true(converged > checked / 4 && converged < checked); /* both kinds were judged */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(independent_distances_match_hand_values),
        cmocka_unit_test(every_solver_reports_honest_criteria),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
