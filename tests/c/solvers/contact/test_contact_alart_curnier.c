/* ncp:newton, the semismooth Newton on the Alart-Curnier function (contact_alart_curnier.c):
 * single contacts with analytic answers (sticking, sliding on the cone's boundary against the
 * slip, separating) and random multi-contact problems judged on the NCP criterion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "solvers/contact/contact_criteria.h"
#include "tests/c/common/test_contact_problems.h"

static lucid_contact_options newton_options(double tol) {
    lucid_contact_options o = lucid_contact_default_options();
    o.model = LUCID_CONTACT_NCP, o.solver = LUCID_CONTACT_NEWTON;
    o.tol = tol, o.max_iter = 100;
    return o;
}

/* Solves one contact with W = G (3 x 3) and free velocity g; lambda receives the answer. */
static lucid_contact_result solve_one(const double G[9], const double g[3], double mu,
                                      double lambda[3]) {
    lucid_contact_problem p = {1, G, g, &mu, NULL, 3};
    lucid_contact_options o = newton_options(1e-12);
    lucid_contact_workspace *ws = lucid_contact_workspace_create(1);
    lucid_contact_result res;
    assert_int_equal(lucid_contact_solve(&p, &o, ws, lambda, NULL, &res), LUCID_OK);
    lucid_contact_workspace_destroy(ws);
    return res;
}

static const double anisotropic_G[9] = {2.0, 0.3, 0.1, 0.3, 1.5, -0.2, 0.1, -0.2, 1.0};

/* |lambda_T| < mu lambda_N at sigma = 0: lambda = -G^-1 g, checked through G lambda + g = 0. */
static void a_pushed_contact_below_the_bound_sticks(void **state) {
    (void)state;
    const double g[3] = {0.1, -0.05, -1.0};
    double l[3], s[3];
    lucid_contact_result res = solve_one(anisotropic_G, g, 0.8, l);
    assert_true(res.converged);
    for (int r = 0; r < 3; ++r) {
        s[r] = g[r];
        for (int c = 0; c < 3; ++c) s[r] += anisotropic_G[r + 3 * c] * l[c];
        assert_true(fabs(s[r]) <= 1e-10);
    }
    assert_true(hypot(l[0], l[1]) < 0.8 * l[2]);
}

/* G = I, g = (2, 0, -1), mu 0.5: lambda = (-0.5, 0, 1) on the cone's boundary, sliding at
 * sigma_T = (1.5, 0) against the friction force, sigma_N = 0. */
static void a_dragged_contact_slides_on_the_cone_boundary(void **state) {
    (void)state;
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, g[3] = {2.0, 0.0, -1.0};
    double l[3];
    lucid_contact_result res = solve_one(I, g, 0.5, l);
    assert_true(res.converged);
    assert_true(fabs(l[0] + 0.5) <= 1e-10 && fabs(l[1]) <= 1e-10 && fabs(l[2] - 1.0) <= 1e-10);
}

/* A separating free velocity (sigma_N = g_N > 0) gets no force, whatever its slip. */
static void a_separating_contact_gets_no_force(void **state) {
    (void)state;
    const double g[3] = {0.3, 0.2, 0.5};
    double l[3];
    lucid_contact_result res = solve_one(anisotropic_G, g, 0.5, l);
    assert_true(res.converged);
    for (int k = 0; k < 3; ++k) assert_true(fabs(l[k]) <= 1e-12);
}

/* Random problems of 2 to 12 contacts, cold: converged, and the NCP criterion of the returned
 * lambda, evaluated here, within tol. */
static void random_problems_meet_the_ncp_criterion(void **state) {
    (void)state;
    lucid_contact_workspace *ws = lucid_contact_workspace_create(12);
    int solved = 0, total = 0;
    for (uint64_t seed = 1; seed <= 30; ++seed) {
        int n = 2 + (int)(seed % 11);
        test_problem t = test_random_problem(n, seed);
        lucid_contact_options o = newton_options(1e-8);
        double l[36], s[36];
        lucid_contact_result res;
        assert_int_equal(lucid_contact_solve(&t.p, &o, ws, l, NULL, &res), LUCID_OK);
        lucid_contact_velocity(&t.p, l, s);
        lucid_contact_criteria c;
        lucid_contact_criteria_eval(&t.p, LUCID_CRITERION_NCP, l, s, NULL, &c);
        if (!res.converged)
            fprintf(stderr, "seed %d (%d contacts): %.3g after %d iterations\n", (int)seed, n,
                    c.abs, res.iterations);
        assert_true(res.converged == (c.abs <= 1e-8));
        solved += res.converged, total++;
        test_problem_free(&t);
    }
    assert_int_equal(solved, total);
    lucid_contact_workspace_destroy(ws);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_pushed_contact_below_the_bound_sticks),
        cmocka_unit_test(a_dragged_contact_slides_on_the_cone_boundary),
        cmocka_unit_test(a_separating_contact_gets_no_force),
        cmocka_unit_test(random_problems_meet_the_ncp_criterion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
