/* Every model x solver pair: closed-form single contacts, random well-posed problems,
 * ill-conditioning, warm start, iteration caps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "solvers/contact/contact_sparse.h"
#include "tests/c/common/test_contact_problems.h"

static const pair ncp_pairs[] = {
    {LUCID_CONTACT_RAISIM, LUCID_CONTACT_BISECTION},
    {LUCID_CONTACT_NCP, LUCID_CONTACT_PGS},
    {LUCID_CONTACT_NCP, LUCID_CONTACT_STAGGERED},
    {LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM},
};

static lucid_contact_options options_for(pair pr, double tol, int max_iter) {
    lucid_contact_options o = lucid_contact_default_options();
    o.model = pr.model, o.solver = pr.solver, o.tol = tol, o.max_iter = max_iter;
    return o;
}

static lucid_status solve(const lucid_contact_problem *p, const lucid_contact_options *o,
                          double *lambda, lucid_contact_result *res) {
    lucid_contact_workspace *ws = lucid_contact_workspace_create(p->n);
    assert_non_null(ws);
    lucid_status s = lucid_contact_solve(p, o, ws, lambda, NULL, res);
    lucid_contact_workspace_destroy(ws);
    return s;
}

/* One contact on a body with effective masses 1/a (tangents) and 1/b (normal): G diagonal,
 * free velocity (vx, vy, vn) with vn < 0. Exact NCP solution: lambda_N = -vn / b; sticking
 * lambda_T = -v_T / a when ||v_T|| / a <= mu lambda_N, otherwise sliding
 * lambda_T = -mu lambda_N v_T / ||v_T|| (on the cone boundary, opposite to the slip). */
static void box_on_plane_solution(double a, double b, double mu, const double v[3], double l[3]) {
    double lN = -v[2] / b, vt = hypot(v[0], v[1]);
    l[2] = lN;
    if (vt / a <= mu * lN) {
        l[0] = -v[0] / a, l[1] = -v[1] / a;
    } else {
        l[0] = -mu * lN * v[0] / vt, l[1] = -mu * lN * v[1] / vt;
    }
}

static void check_box_on_plane(const double v[3], int sliding) {
    const double a = 2.0, b = 0.5, mu = 0.4;
    test_problem t = test_problem_alloc(1);
    t.G[0] = t.G[4] = a, t.G[8] = b;
    memcpy(t.g, v, sizeof(double) * 3);
    t.mu[0] = mu;
    double exact[3];
    box_on_plane_solution(a, b, mu, v, exact);
    double vt = hypot(v[0], v[1]);
    assert_true(sliding == (vt / a > mu * exact[2]));
    for (int k = 0; k < 4; ++k) {
        lucid_contact_options o = options_for(ncp_pairs[k], 1e-10, 5000);
        double l[3];
        lucid_contact_result res;
        assert_int_equal(solve(&t.p, &o, l, &res), LUCID_OK);
        assert_true(res.converged);
        for (int c = 0; c < 3; ++c) assert_true(fabs(l[c] - exact[c]) < 1e-8);
        assert_true(res.ncp.abs <= 1e-10);
    }
    test_problem_free(&t);
}

static void box_on_plane_sticks_below_the_friction_bound(void **state) {
    (void)state;
    const double v[3] = {0.3, -0.2, -1.0}; /* |v_T| / a = 0.18 < mu lambda_N = 0.8 */
    check_box_on_plane(v, 0);
}

static void box_on_plane_slides_on_the_cone_boundary_against_the_slip(void **state) {
    (void)state;
    const double v[3] = {2.0, 1.5, -1.0}; /* |v_T| / a = 1.25 > 0.8 */
    check_box_on_plane(v, 1);
}

/* Sliding diagonally to the pyramid's facets: the LCP friction sits at the pyramid corner
 * (-mu lN, -mu lN), not opposite to the slip (the bias of Fig. 6/9); along t1 it matches. */
static void lcp_friction_is_biased_towards_the_pyramid_corner(void **state) {
    (void)state;
    const double a = 2.0, b = 0.5, mu = 0.4;
    test_problem t = test_problem_alloc(1);
    t.G[0] = t.G[4] = a, t.G[8] = b, t.mu[0] = mu;
    lucid_contact_options o = options_for((pair){LUCID_CONTACT_LCP, LUCID_CONTACT_PGS}, 1e-12, 100);
    double l[3];
    lucid_contact_result res;
    t.g[0] = 3.0, t.g[1] = 3.0, t.g[2] = -1.0;
    assert_int_equal(solve(&t.p, &o, l, &res), LUCID_OK);
    assert_true(res.converged);
    double lN = 2.0;
    assert_true(fabs(l[2] - lN) < 1e-12);
    assert_true(fabs(l[0] + mu * lN) < 1e-12 && fabs(l[1] + mu * lN) < 1e-12);
    assert_true(res.ncp.primal > 0.1); /* outside the Coulomb cone by (sqrt(2) - 1) mu lN */
    assert_true(fabs(res.ncp.primal - (sqrt(2.0) - 1.0) * mu * lN / sqrt(1.0 + mu * mu)) < 1e-9);
    t.g[1] = 0.0;
    assert_int_equal(solve(&t.p, &o, l, &res), LUCID_OK);
    assert_true(fabs(l[0] + mu * lN) < 1e-12 && fabs(l[1]) < 1e-12);
    assert_true(res.ncp.abs < 1e-12);
    test_problem_free(&t);
}

/* Re-evaluates the criteria of lambda independently and compares with the report. */
static void check_consistent_report(const lucid_contact_problem *p, pair pr, const double *l,
                                    const lucid_contact_result *res) {
    int m = 3 * p->n;
    double *sigma = calloc((size_t)m, sizeof(double));
    lucid_contact_velocity(p, l, sigma);
    lucid_contact_criteria ncp;
    lucid_contact_criteria_eval(p, LUCID_CRITERION_NCP, l, sigma, NULL, &ncp);
    assert_true(fabs(ncp.abs - res->ncp.abs) <= 1e-12 * fmax(1.0, ncp.abs));
    /* Newton's model is the compliant problem, RaiSim's a fixed point (contact_bisection.c) */
    if (pr.solver != LUCID_CONTACT_NEWTON && pr.model != LUCID_CONTACT_RAISIM) {
        lucid_contact_criteria model;
        lucid_contact_criteria_eval(p, lucid_contact_model_criterion(pr.model), l, sigma, NULL,
                                    &model);
        assert_true(fabs(model.abs - res->model.abs) <= 1e-12 * fmax(1.0, model.abs));
    }
    free(sigma);
}

static void every_solver_reaches_its_criterion_on_random_problems(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        test_problem t = test_random_problem(4, seed);
        for (int k = 0; k < PAIRS; ++k) {
            /* The primal Newton works on the compliant problem and its precision is bounded
             * by round-off amplified by 1/R (R = 1e-8 x diag by default): tol 1e-6 for it. */
            double tol = all_pairs[k].solver == LUCID_CONTACT_NEWTON ? 1e-6 : 1e-8;
            lucid_contact_options o = options_for(all_pairs[k], tol, 20000);
            double l[12];
            lucid_contact_result res;
            assert_int_equal(solve(&t.p, &o, l, &res), LUCID_OK);
            if (!res.converged)
                fprintf(stderr, "seed %d %s:%s: model %.3g after %d iterations\n", (int)seed,
                        lucid_contact_model_name(all_pairs[k].model),
                        lucid_contact_solver_name(all_pairs[k].solver), res.model.abs,
                        res.iterations);
            assert_true(res.converged);
            assert_true(res.model.abs <= tol);
            assert_true(res.iterations > 0);
            check_consistent_report(&t.p, all_pairs[k], l, &res);
        }
        test_problem_free(&t);
    }
}

/* Heavy (1e3 kg) body on a light (1e-3 kg) one: kappa(G) ~ 4e6. The global solvers reach
 * eps_abs <= 1e-6; per-contact Gauss-Seidel stays far above it within its 10^4 sweeps. */
static void global_solvers_handle_an_ill_conditioned_stack(void **state) {
    (void)state;
    test_problem t = test_stack_problem(1e-3, 1e3, 1e-3);
    const double exact_top = 1e3 * 9.81e-3, exact_bottom = (1e3 + 1e-3) * 9.81e-3;
    for (int k = 0; k < PAIRS; ++k) {
        pair pr = all_pairs[k];
        lucid_contact_options o = options_for(pr, 1e-6, 10000);
        double l[6];
        lucid_contact_result res;
        assert_int_equal(solve(&t.p, &o, l, &res), LUCID_OK);
        if (pr.solver == LUCID_CONTACT_PGS || pr.solver == LUCID_CONTACT_BISECTION) {
            assert_false(res.converged);
            assert_true(res.model.abs > 1e-4); /* not close: a qualitative gap, not a near miss */
            continue;
        }
        assert_true(res.converged);
        assert_true(res.model.abs <= 1e-6);
        if (pr.solver == LUCID_CONTACT_ADMM) /* the factor is reused until rho changes */
            assert_true(res.factorizations >= 2 && res.factorizations < res.iterations / 4);
        if (pr.solver == LUCID_CONTACT_NEWTON) continue; /* compliant: a shifted solution */
        /* |lambda - exact| <= residual / eig_min(G) ~ 1e-6 / 5e-4 = 2e-3 */
        assert_true(fabs(l[2] - exact_bottom) < 5e-3 && fabs(l[5] - exact_top) < 5e-3);
        assert_true(res.ncp.abs <= 1e-6);
    }
    test_problem_free(&t);
}

/* Starting from the solution of a nearby problem takes fewer iterations than from zero. */
static void warm_start_reduces_iterations(void **state) {
    (void)state;
    test_problem t = test_random_problem(5, 11);
    lucid_contact_workspace *ws = lucid_contact_workspace_create(5);
    for (int k = 0; k < PAIRS; ++k) {
        double tol = all_pairs[k].solver == LUCID_CONTACT_NEWTON ? 1e-6 : 1e-8;
        lucid_contact_options o = options_for(all_pairs[k], tol, 20000);
        double l[15], dual[15] = {0}; /* PGS leaves dual as given */
        lucid_contact_result first, cold, warm;
        assert_int_equal(lucid_contact_solve(&t.p, &o, ws, l, dual, &first), LUCID_OK);
        assert_true(first.converged);
        for (int c = 0; c < 15; ++c) t.g[c] += 1e-4 * cos(c); /* the next time step */
        double l_cold[15];
        assert_int_equal(lucid_contact_solve(&t.p, &o, ws, l_cold, NULL, &cold), LUCID_OK);
        o.warm_start = 1;
        o.rho = first.rho;
        assert_int_equal(lucid_contact_solve(&t.p, &o, ws, l, dual, &warm), LUCID_OK);
        assert_true(cold.converged && warm.converged);
        /* ip: an interior point gains little from a start near the boundary (measured here:
         * ccp:ip 8 -> 6, ncp:ip 8 -> 8; contact_ip.c, start), but never loses */
        if (all_pairs[k].solver == LUCID_CONTACT_IP)
            assert_true(warm.iterations <= cold.iterations);
        else
            assert_true(warm.iterations < cold.iterations);
        for (int c = 0; c < 15; ++c) t.g[c] -= 1e-4 * cos(c);
    }
    lucid_contact_workspace_destroy(ws);
    test_problem_free(&t);
}

/* The dense ADMM computes the spectrum of G + R only when the solve needs it: to start
 * without a given rho, or once its rule moves rho (the factor kappa^rho_power and the bounds);
 * a warm solve that keeps the caller's rho makes none, and reaches the same answer. */
static void admm_computes_the_spectrum_only_when_rho_moves(void **state) {
    (void)state;
    test_problem t = test_random_problem(5, 11);
    lucid_contact_workspace *ws = lucid_contact_workspace_create(5);
    pair pr = {LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM};
    lucid_contact_options o = options_for(pr, 1e-8, 20000);
    double l[15], dual[15], l0[15], dual0[15];
    lucid_contact_result first, kept, moved;
    assert_int_equal(lucid_contact_solve(&t.p, &o, ws, l, dual, &first), LUCID_OK);
    assert_true(first.converged && first.spectra == 1);
    memcpy(l0, l, sizeof l), memcpy(dual0, dual, sizeof dual);
    for (int c = 0; c < 15; ++c) t.g[c] += 1e-6 * cos(c); /* the next time step */
    o.warm_start = 1, o.rho = first.rho;
    assert_int_equal(lucid_contact_solve(&t.p, &o, ws, l, dual, &kept), LUCID_OK);
    assert_true(kept.converged && kept.iterations > 0);
    assert_true(kept.factorizations == 1 && kept.rho == first.rho && kept.spectra == 0);
    /* a rho far below the spectrum's: the rule raises it, after computing the spectrum */
    memcpy(l, l0, sizeof l), memcpy(dual, dual0, sizeof dual);
    o.rho = 1e-6 * first.rho;
    assert_int_equal(lucid_contact_solve(&t.p, &o, ws, l, dual, &moved), LUCID_OK);
    assert_true(moved.converged && moved.spectra == 1 && moved.rho > o.rho);
    lucid_contact_workspace_destroy(ws);
    test_problem_free(&t);
    /* with a given rho and no spectrum, check_psd still refuses an indefinite G (3, 1, -1) */
    test_problem bad = test_problem_alloc(1);
    bad.G[0] = bad.G[4] = bad.G[8] = 1.0, bad.G[2] = bad.G[6] = 2.0;
    bad.g[2] = -1.0, bad.mu[0] = 0.5;
    o = options_for(pr, 1e-8, 100);
    o.rho = 1.0;
    double lb[3];
    assert_int_equal(solve(&bad.p, &o, lb, &moved), LUCID_ERR_NOT_SPD);
    test_problem_free(&bad);
}

/* The same for the body-space ADMM on a unit cube (1 kg, inertia 1/6) resting on its four
 * bottom corners (the ground a static side), pushed sideways: its power iteration runs only to
 * start without a rho or once the rule moves rho (the polish off, so that ADMM iterates). */
static void sparse_admm_computes_the_spectrum_only_when_rho_moves(void **state) {
    (void)state;
    enum { N = 4 };
    double J[2 * N * 18] = {0}, W[2 * N * 18] = {0}, M[36] = {0}, g[3 * N], mu[N];
    int body[2 * N];
    for (int k = 0; k < 6; ++k) M[7 * k] = k < 3 ? 1.0 : 1.0 / 6.0;
    for (int i = 0; i < N; ++i) {
        double r[3] = {i & 1 ? 0.5 : -0.5, i & 2 ? 0.5 : -0.5, -0.5};
        body[2 * i] = 0, body[2 * i + 1] = -1, mu[i] = 0.5;
        for (int d = 0; d < 3; ++d) { /* row d: (e_d, r x e_d) and W = M^-1 of it */
            double e[3] = {d == 0, d == 1, d == 2}, *Jr = J + 36 * i + 6 * d;
            double c[3] = {r[1] * e[2] - r[2] * e[1], r[2] * e[0] - r[0] * e[2],
                           r[0] * e[1] - r[1] * e[0]};
            for (int k = 0; k < 3; ++k)
                Jr[k] = e[k], Jr[3 + k] = c[k], W[36 * i + 6 * d + k] = e[k],
                W[36 * i + 6 * d + 3 + k] = 6.0 * c[k];
        }
        g[3 * i] = 0.01, g[3 * i + 1] = 0.0, g[3 * i + 2] = -0.05;
    }
    lucid_contact_sparse_problem p = {
        .n = N, .num_bodies = 1, .body = body, .J = J, .W = W, .g = g, .mu = mu, .M = M};
    lucid_contact_sparse_workspace *ws = lucid_contact_sparse_workspace_create();
    assert_non_null(ws);
    assert_int_equal(lucid_contact_sparse_reserve(ws, N, 6), LUCID_OK);
    pair pr = {LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM};
    lucid_contact_options o = options_for(pr, 1e-6, 2000);
    o.polish = 0;
    double l[3 * N], dual[3 * N], l0[3 * N], dual0[3 * N];
    lucid_contact_result first, kept, moved;
    assert_int_equal(lucid_contact_solve_admm_sparse(&p, &o, ws, l, dual, &first), LUCID_OK);
    assert_true(first.converged && first.spectra == 1);
    memcpy(l0, l, sizeof l), memcpy(dual0, dual, sizeof dual);
    for (int c = 0; c < 3 * N; ++c) g[c] += 1e-5 * cos(c);
    o.warm_start = 1, o.rho = first.rho;
    assert_int_equal(lucid_contact_solve_admm_sparse(&p, &o, ws, l, dual, &kept), LUCID_OK);
    assert_true(kept.converged && kept.iterations > 0);
    assert_true(kept.factorizations == 1 && kept.rho == first.rho && kept.spectra == 0);
    memcpy(l, l0, sizeof l), memcpy(dual, dual0, sizeof dual);
    o.rho = 1e-6 * first.rho;
    assert_int_equal(lucid_contact_solve_admm_sparse(&p, &o, ws, l, dual, &moved), LUCID_OK);
    assert_true(moved.converged && moved.spectra == 1 && moved.rho > o.rho);
    lucid_contact_sparse_workspace_destroy(ws);
}

/* At the cap: converged = 0, iterations = max_iter, lambda the last (finite) iterate. The
 * one other exit before the cap is an iterate that repeats itself bit for bit (stall_tol 0),
 * which ncp:staggered's outer loop reaches here at its second iteration: it must say so. */
static void hitting_the_cap_reports_not_converged(void **state) {
    (void)state;
    test_problem t = test_stack_problem(1e-3, 1e3, 1e-3);
    for (int k = 0; k < PAIRS; ++k) {
        lucid_contact_options o = options_for(all_pairs[k], 1e-14, 3);
        o.stall_tol = 0.0; /* the stall test only fires when the iterate is exactly still */
        double l[6];
        lucid_contact_result res;
        assert_int_equal(solve(&t.p, &o, l, &res), LUCID_OK);
        assert_false(res.converged);
        if (res.stalled)
            assert_true(res.iterations < 3);
        else
            assert_int_equal(res.iterations, 3);
        for (int c = 0; c < 6; ++c) assert_true(isfinite(l[c]));
        assert_true(res.model.abs > 1e-14);
    }
    test_problem_free(&t);
}

/* A separating contact (g_N > 0) needs no impulse: every solver returns 0 at once. */
static void separating_contacts_get_no_impulse(void **state) {
    (void)state;
    test_problem t = test_random_problem(3, 5);
    for (int i = 0; i < 3; ++i) t.g[3 * i + 2] = 10.0 + i; /* far apart, G coupling small */
    for (int k = 0; k < PAIRS; ++k) {
        lucid_contact_options o = options_for(all_pairs[k], 1e-9, 1000);
        double l[9];
        lucid_contact_result res;
        assert_int_equal(solve(&t.p, &o, l, &res), LUCID_OK);
        assert_true(res.converged);
        for (int c = 0; c < 9; ++c) assert_true(fabs(l[c]) < 1e-7);
    }
    test_problem_free(&t);
}

/* lucid_contact_workspace_velocity: bit for bit (G + R) lambda + g of each solver's answer
 * (the ADMM's own, the others' recomputed); NULL after a refused solve and after a solve of
 * a problem whose null rows were conditioned (its velocity is of the conditioned copy). */
static void the_workspace_keeps_the_answers_velocity(void **state) {
    (void)state;
    test_problem t = test_random_problem(3, 7);
    lucid_contact_workspace *ws = lucid_contact_workspace_create(3);
    assert_null(lucid_contact_workspace_velocity(ws)); /* no solve yet */
    double l[9], sigma[9];
    lucid_contact_result res;
    for (int k = 0; k < PAIRS; ++k) {
        lucid_contact_options o = options_for(all_pairs[k], 1e-9, 1000);
        assert_int_equal(lucid_contact_solve(&t.p, &o, ws, l, NULL, &res), LUCID_OK);
        const double *kept = lucid_contact_workspace_velocity(ws);
        assert_non_null(kept);
        lucid_contact_velocity(&t.p, l, sigma);
        for (int c = 0; c < 9; ++c) assert_true(kept[c] == sigma[c]);
        o.tol = NAN;
        assert_int_equal(lucid_contact_solve(&t.p, &o, ws, l, NULL, &res), LUCID_ERR_ARGUMENT);
        assert_null(lucid_contact_workspace_velocity(ws));
    }
    for (int j = 0; j < 9; ++j) t.G[8 + 9 * j] = t.G[j + 9 * 8] = 0.0; /* row 8: null */
    lucid_contact_options o = options_for(all_pairs[0], 1e-9, 1000);
    assert_int_equal(lucid_contact_solve(&t.p, &o, ws, l, NULL, &res), LUCID_OK);
    assert_null(lucid_contact_workspace_velocity(ws));
    lucid_contact_workspace_destroy(ws);
    test_problem_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(box_on_plane_sticks_below_the_friction_bound),
        cmocka_unit_test(box_on_plane_slides_on_the_cone_boundary_against_the_slip),
        cmocka_unit_test(lcp_friction_is_biased_towards_the_pyramid_corner),
        cmocka_unit_test(every_solver_reaches_its_criterion_on_random_problems),
        cmocka_unit_test(global_solvers_handle_an_ill_conditioned_stack),
        cmocka_unit_test(warm_start_reduces_iterations),
        cmocka_unit_test(admm_computes_the_spectrum_only_when_rho_moves),
        cmocka_unit_test(sparse_admm_computes_the_spectrum_only_when_rho_moves),
        cmocka_unit_test(hitting_the_cap_reports_not_converged),
        cmocka_unit_test(separating_contacts_get_no_impulse),
        cmocka_unit_test(the_workspace_keeps_the_answers_velocity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
