/* The interior-point solver (ccp:ip, ncp:ip) and its relaxed derivatives: agreement with the
 * other solvers, contacts with mu = 0, the relaxed system at kappa > 0, derivatives against
 * central finite differences of the solver at the same kappa (JVP in g, G, mu; VJP as the
 * adjoint), their limit as kappa -> 0 (closed forms of one contact), misuse, and no
 * allocation per solve. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "solvers/contact/contact_ip.h"
#include "tests/c/common/test_contact_problems.h"

#include "tests/c/common/test_alloc_counter.h"

static lucid_contact_options ip_options(lucid_contact_model model, double kappa, double tol) {
    lucid_contact_options o = lucid_contact_default_options();
    o.model = model, o.solver = LUCID_CONTACT_IP, o.kappa = kappa, o.tol = tol;
    o.max_iter = 500;
    return o;
}

static double max_abs_diff(const double *a, const double *b, int m) {
    double d = 0.0;
    for (int k = 0; k < m; ++k) d = fmax(d, fabs(a[k] - b[k]));
    return d;
}

static double max_abs(const double *a, int m) {
    double d = 0.0;
    for (int k = 0; k < m; ++k) d = fmax(d, fabs(a[k]));
    return d;
}

/* Solves p (cold) into l; returns the result. */
static lucid_contact_result solve(const lucid_contact_problem *p, const lucid_contact_options *o,
                                  lucid_contact_workspace *ws, double *l) {
    lucid_contact_result res;
    assert_int_equal(lucid_contact_solve(p, o, ws, l, NULL, &res), LUCID_OK);
    return res;
}

/* ccp:ip agrees with ccp:admm (the CCP's solution is unique for G + R definite) and ncp:ip
 * meets the NCP criterion at the same tolerance as ncp:admm, on random problems. */
static void ip_agrees_with_the_other_solvers(void **state) {
    (void)state;
    for (int trial = 0; trial < 40; ++trial) {
        int n = 1 + trial % 6;
        test_problem t = test_random_problem(n, 100 + (uint64_t)trial);
        lucid_contact_workspace *ws = lucid_contact_workspace_create(n);
        double l_ip[18], l_ref[18];
        lucid_contact_options o = ip_options(LUCID_CONTACT_CCP, 0.0, 1e-9);
        lucid_contact_result r = solve(&t.p, &o, ws, l_ip);
        if (!r.converged) fprintf(stderr, "ccp:ip trial %d: %.3g\n", trial, r.model.abs);
        assert_true(r.converged && r.model.abs <= 1e-9);
        lucid_contact_options a = lucid_contact_default_options();
        a.model = LUCID_CONTACT_CCP, a.solver = LUCID_CONTACT_ADMM, a.tol = 1e-9;
        a.max_iter = 20000;
        lucid_contact_result ra = solve(&t.p, &a, ws, l_ref);
        assert_true(ra.converged);
        /* both within 1e-9 of the criterion: |dlambda| <~ sqrt(1e-9 / eig_min) */
        assert_true(max_abs_diff(l_ip, l_ref, 3 * n) <= 1e-4 * fmax(1.0, max_abs(l_ref, 3 * n)));
        o = ip_options(LUCID_CONTACT_NCP, 0.0, 1e-9);
        r = solve(&t.p, &o, ws, l_ip);
        if (!r.converged)
            fprintf(stderr, "ncp:ip trial %d: %.3g after %d iterations\n", trial, r.model.abs,
                    r.iterations);
        assert_true(r.converged && r.ncp.abs <= 1e-9 && r.iterations <= 60);
        lucid_contact_workspace_destroy(ws);
        test_problem_free(&t);
    }
}

/* One contact with effective masses 1/a (tangents), 1/b (normal), G diagonal: the exact NCP
 * (= CCP for sticking) solution in closed form. */
static void one_contact_solution(double a, double b, double mu, const double g[3], double l[3]) {
    double lN = fmax(-g[2] / b, 0.0), vt = hypot(g[0], g[1]);
    l[2] = lN;
    if (vt / a <= mu * lN) {
        l[0] = -g[0] / a, l[1] = -g[1] / a;
    } else {
        l[0] = -mu * lN * g[0] / vt, l[1] = -mu * lN * g[1] / vt;
    }
}

/* A contact with mu = 0 has the ray {lambda_T = 0} for a cone: ip returns no tangential
 * impulse and the normal impulse of the closed form, alone and among other contacts. */
static void frictionless_contacts(void **state) {
    (void)state;
    test_problem t = test_problem_alloc(1);
    t.G[0] = t.G[4] = 2.0, t.G[8] = 0.5;
    t.g[0] = 0.3, t.g[1] = -0.2, t.g[2] = -1.0;
    t.mu[0] = 0.0;
    lucid_contact_workspace *ws = lucid_contact_workspace_create(6);
    double l[18], exact[3];
    one_contact_solution(2.0, 0.5, 0.0, t.g, exact);
    for (int model = 0; model < 2; ++model) {
        lucid_contact_options o =
            ip_options(model ? LUCID_CONTACT_NCP : LUCID_CONTACT_CCP, 0.0, 1e-12);
        lucid_contact_result r = solve(&t.p, &o, ws, l);
        assert_true(r.converged);
        assert_true(max_abs_diff(l, exact, 3) <= 1e-10);
    }
    test_problem_free(&t);
    test_problem r6 = test_random_problem(6, 9);
    r6.mu[1] = r6.mu[4] = 0.0;
    lucid_contact_options o = ip_options(LUCID_CONTACT_NCP, 0.0, 1e-10);
    lucid_contact_result r = solve(&r6.p, &o, ws, l);
    assert_true(r.converged && r.ncp.abs <= 1e-10);
    assert_true(l[3] == 0.0 && l[4] == 0.0 && l[12] == 0.0 && l[13] == 0.0);
    lucid_contact_workspace_destroy(ws);
    test_problem_free(&r6);
}

/* With kappa > 0 the answer is on the central path: every contact's gap
 * lambda_i . (sigma_i + Gamma_i) equals kappa, and the model criterion is the relaxed
 * system's (converged at tol), while the NCP criterion reads about kappa. */
static void relaxed_solutions_sit_on_the_central_path(void **state) {
    (void)state;
    test_problem t = test_random_problem(4, 21);
    lucid_contact_workspace *ws = lucid_contact_workspace_create(4);
    double l[12], sigma[12];
    for (int model = 0; model < 2; ++model) {
        const double kappa = 1e-3;
        lucid_contact_options o =
            ip_options(model ? LUCID_CONTACT_NCP : LUCID_CONTACT_CCP, kappa, 1e-12);
        lucid_contact_result r = solve(&t.p, &o, ws, l);
        assert_true(r.converged && r.model.abs <= 1e-12);
        lucid_contact_velocity(&t.p, l, sigma);
        for (int i = 0; i < 4; ++i) {
            const double *li = l + 3 * i, *si = sigma + 3 * i;
            double shift = model ? t.mu[i] * hypot(si[0], si[1]) : 0.0;
            double gap = li[0] * si[0] + li[1] * si[1] + li[2] * (si[2] + shift);
            assert_true(fabs(gap - kappa) <= 1e-10);
            assert_true(hypot(li[0], li[1]) < t.mu[i] * li[2]); /* strictly inside the cone */
        }
        if (model) assert_true(r.ncp.abs > 0.1 * kappa && r.ncp.abs < 10.0 * kappa);
    }
    lucid_contact_workspace_destroy(ws);
    test_problem_free(&t);
}

/* Central differences of the relaxed solution along (dg, dG, dmu) with step h. */
static void central_difference(const test_problem *t, const lucid_contact_options *o,
                               const double *dg, const double *dG, const double *dmu, double h,
                               double *out) {
    int n = t->p.n, m = 3 * n;
    double *g = malloc(sizeof(double) * m), *G = malloc(sizeof(double) * m * m);
    double *mu = malloc(sizeof(double) * n), *lp = malloc(sizeof(double) * m);
    double *lm = malloc(sizeof(double) * m);
    lucid_contact_workspace *ws = lucid_contact_workspace_create(n);
    for (int side = 0; side < 2; ++side) {
        double s = side ? -h : h;
        for (int k = 0; k < m; ++k) g[k] = t->g[k] + s * dg[k];
        for (int k = 0; k < m * m; ++k) G[k] = t->G[k] + (dG ? s * dG[k] : 0.0);
        for (int i = 0; i < n; ++i) mu[i] = t->mu[i] + (dmu ? s * dmu[i] : 0.0);
        lucid_contact_problem q = {n, G, g, mu, NULL, 3};
        lucid_contact_result r = solve(&q, o, ws, side ? lm : lp);
        assert_true(r.converged);
    }
    for (int k = 0; k < m; ++k) out[k] = (lp[k] - lm[k]) / (2.0 * h);
    lucid_contact_workspace_destroy(ws);
    free(g), free(G), free(mu), free(lp), free(lm);
}

/* JVP in g, in G (a symmetric direction) and in mu against central differences of ip at the
 * same kappa, to 1e-6 relative; the VJP is the JVP's adjoint. Random problems of 1-5
 * contacts (one with mu = 0 among them), both models, kappa 1e-2 and 1e-4. */
static void relaxed_derivatives_match_finite_differences(void **state) {
    (void)state;
    test_rng rng = {4242};
    double worst = 0.0;
    int checked = 0;
    for (int trial = 0; trial < 24; ++trial) {
        int n = 1 + trial % 5, m = 3 * n;
        test_problem t = test_random_problem(n, 300 + (uint64_t)trial);
        if (trial % 4 == 3) t.mu[0] = 0.0;
        double kappa = trial % 2 ? 1e-2 : 1e-4;
        lucid_contact_model model = trial % 3 ? LUCID_CONTACT_NCP : LUCID_CONTACT_CCP;
        lucid_contact_options o = ip_options(model, kappa, 1e-14);
        lucid_contact_workspace *ws = lucid_contact_workspace_create(n);
        double *l = calloc(m, sizeof(double)), *dg = calloc(m, sizeof(double));
        double *dG = calloc((size_t)m * m, sizeof(double)), *dmu = calloc(n, sizeof(double));
        double *jvp = calloc(m, sizeof(double)), *fd = calloc(m, sizeof(double));
        double *lbar = calloc(m, sizeof(double)), *gbar = calloc(m, sizeof(double));
        double *Gbar = calloc((size_t)m * m, sizeof(double)), *mubar = calloc(n, sizeof(double));
        lucid_contact_result r = solve(&t.p, &o, ws, l);
        assert_true(r.converged);
        for (int k = 0; k < m; ++k) dg[k] = test_normal(&rng), lbar[k] = test_normal(&rng);
        for (int j = 0; j < m; ++j)
            for (int i = 0; i <= j; ++i)
                dG[i + m * j] = dG[j + m * i] = 0.1 * test_normal(&rng) * t.G[i + m * i];
        for (int i = 0; i < n; ++i) dmu[i] = t.mu[i] > 0.0 ? 0.1 * test_normal(&rng) : 0.0;
        const double *dirs[3][3] = {{dg, NULL, NULL}, {NULL, dG, NULL}, {NULL, NULL, dmu}};
        double *zero = calloc(m, sizeof(double));
        for (int d = 0; d < 3; ++d) {
            const double *a = dirs[d][0] ? dirs[d][0] : zero;
            assert_int_equal(lucid_contact_ip_jvp(&t.p, ws, a, dirs[d][1], dirs[d][2], NULL, jvp),
                             LUCID_OK);
            /* step cbrt(1e-15): the solves' round-off (1e-15) over h balances h^2 */
            central_difference(&t, &o, a, dirs[d][1], dirs[d][2], 1e-5, fd);
            double err = max_abs_diff(jvp, fd, m) / fmax(max_abs(fd, m), 1e-12);
            worst = fmax(worst, err);
            if (err > 1e-6)
                fprintf(stderr, "trial %d direction %d: relative error %.3g (|fd| %.3g)\n", trial,
                        d, err, max_abs(fd, m));
            assert_true(err <= 1e-6);
            ++checked;
        }
        /* VJP: <lbar, J d> = <g_bar, dg> + <G_bar, dG> + <mu_bar, dmu> */
        assert_int_equal(lucid_contact_ip_vjp(&t.p, ws, lbar, gbar, Gbar, mubar, NULL), LUCID_OK);
        assert_int_equal(lucid_contact_ip_jvp(&t.p, ws, dg, dG, dmu, NULL, jvp), LUCID_OK);
        double lhs = 0.0, rhs = 0.0, scale = 0.0;
        for (int k = 0; k < m; ++k) lhs += lbar[k] * jvp[k], rhs += gbar[k] * dg[k];
        for (int k = 0; k < m * m; ++k) rhs += Gbar[k] * dG[k];
        for (int i = 0; i < n; ++i) rhs += mubar[i] * dmu[i];
        for (int k = 0; k < m; ++k) scale += fabs(lbar[k] * jvp[k]);
        assert_true(fabs(lhs - rhs) <= 1e-10 * fmax(scale, 1.0));
        free(zero), free(l), free(dg), free(dG), free(dmu), free(jvp), free(fd), free(lbar);
        free(gbar), free(Gbar), free(mubar);
        lucid_contact_workspace_destroy(ws);
        test_problem_free(&t);
    }
    fprintf(stderr, "%d directional derivatives, worst relative error %.3g\n", checked, worst);
}

/* As kappa -> 0 the relaxed derivative of one contact approaches the derivative of the closed
 * form (sticking: -G^-1; sliding: lambda_T = -mu lambda_N g_T / |g_T|) away from the switch,
 * the error falling with kappa (measured, relative: sticking 5.8e-5, 5.8e-7, 5.9e-9 (CCP) and
 * 3.3e-5, 3.3e-7, 3.4e-9 (NCP) at kappa 1e-4, 1e-6, 1e-8; sliding 4.0e-5, 9.2e-6, 9.3e-8). At
 * kappa = 1e-10 the solve's centrality floor (3.6e-13 against kappa) makes it 1.6e-6 sliding. */
static void relaxed_derivatives_approach_the_exact_ones(void **state) {
    (void)state;
    const double a = 2.0, b = 0.5, mu = 0.4;
    const double cases[2][3] = {{0.3, -0.2, -1.0},  /* sticking: |g_T| / a = 0.18 < 0.8 */
                                {2.5, -1.0, -1.0}}; /* sliding: 1.35 > 0.8 */
    test_problem t = test_problem_alloc(1);
    t.G[0] = t.G[4] = a, t.G[8] = b;
    t.mu[0] = mu;
    lucid_contact_workspace *ws = lucid_contact_workspace_create(1);
    for (int c = 0; c < 2; ++c) {
        double exact[9]; /* d lambda / d g by central differences of the closed form */
        for (int j = 0; j < 3; ++j) {
            double gp[3], gm[3], lp[3], lm[3];
            memcpy(gp, cases[c], sizeof gp), memcpy(gm, cases[c], sizeof gm);
            gp[j] += 1e-7, gm[j] -= 1e-7;
            one_contact_solution(a, b, mu, gp, lp);
            one_contact_solution(a, b, mu, gm, lm);
            for (int i = 0; i < 3; ++i) exact[i + 3 * j] = (lp[i] - lm[i]) / 2e-7;
        }
        for (int model = 0; model < 2; ++model) {
            if (c == 1 && model == 0) continue; /* the CCP slides differently (it lifts off) */
            double previous = INFINITY;
            for (double kappa = 1e-4; kappa >= 1e-8; kappa *= 1e-2) {
                memcpy(t.g, cases[c], sizeof cases[c]);
                lucid_contact_options o = ip_options(model ? LUCID_CONTACT_NCP : LUCID_CONTACT_CCP,
                                                     kappa, fmax(1e-3 * kappa, 1e-12));
                double l[3], J[9], e[3] = {0, 0, 0};
                lucid_contact_result r = solve(&t.p, &o, ws, l);
                assert_true(r.converged);
                for (int j = 0; j < 3; ++j) {
                    e[j] = 1.0;
                    assert_int_equal(lucid_contact_ip_jvp(&t.p, ws, e, NULL, NULL, NULL, J + 3 * j),
                                     LUCID_OK);
                    e[j] = 0.0;
                }
                double err = max_abs_diff(J, exact, 9) / max_abs(exact, 9);
                assert_true(err < previous);
                previous = err;
                if (kappa < 1e-7) assert_true(err <= 1e-6);
            }
        }
    }
    lucid_contact_workspace_destroy(ws);
    test_problem_free(&t);
}

/* Derivatives need the relaxed factorisation of that very problem. */
static void derivatives_refuse_what_they_cannot_answer(void **state) {
    (void)state;
    test_problem t = test_random_problem(2, 5), other = test_random_problem(2, 6);
    lucid_contact_workspace *ws = lucid_contact_workspace_create(2);
    double l[6], d[6] = {1, 0, 0, 0, 0, 1}, out[6];
    lucid_contact_options o = ip_options(LUCID_CONTACT_NCP, 0.0, 1e-8);
    solve(&t.p, &o, ws, l); /* kappa = 0: no relaxed system */
    assert_int_equal(lucid_contact_ip_jvp(&t.p, ws, d, NULL, NULL, NULL, out), LUCID_ERR_ARGUMENT);
    o.kappa = 1e-3;
    solve(&t.p, &o, ws, l);
    assert_int_equal(lucid_contact_ip_jvp(&t.p, ws, d, NULL, NULL, NULL, out), LUCID_OK);
    assert_int_equal(lucid_contact_ip_jvp(&other.p, ws, d, NULL, NULL, NULL, out),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_contact_ip_vjp(&t.p, ws, NULL, out, NULL, NULL, NULL),
                     LUCID_ERR_ARGUMENT);
    lucid_contact_options a = lucid_contact_default_options();
    a.solver = LUCID_CONTACT_ADMM;
    solve(&t.p, &a, ws, l); /* another solver ran since */
    assert_int_equal(lucid_contact_ip_vjp(&t.p, ws, d, out, NULL, NULL, NULL), LUCID_ERR_ARGUMENT);
    o.kappa = -1.0;
    lucid_contact_result r;
    assert_int_equal(lucid_contact_solve(&t.p, &o, ws, l, NULL, &r), LUCID_ERR_ARGUMENT);
    o.kappa = NAN;
    assert_int_equal(lucid_contact_solve(&t.p, &o, ws, l, NULL, &r), LUCID_ERR_ARGUMENT);
    lucid_contact_workspace_destroy(ws);
    test_problem_free(&t), test_problem_free(&other);
}

/* Once the workspace exists, solves (cold, warm, relaxed) and derivatives allocate nothing. */
static void no_allocation_per_solve(void **state) {
    (void)state;
    test_problem t = test_random_problem(5, 77);
    lucid_contact_workspace *ws = lucid_contact_workspace_create(5);
    double l[15], dual[15], d[15] = {1}, out[15], out2[15], G_bar[225], mu_bar[5];
    lucid_contact_options o = ip_options(LUCID_CONTACT_NCP, 1e-3, 1e-10);
    solve(&t.p, &o, ws, l); /* BLAS / LAPACK set themselves up on first use */
    counting = 1, allocations = 0;
    lucid_contact_result r;
    for (int model = 0; model < 2; ++model) {
        o.model = model ? LUCID_CONTACT_NCP : LUCID_CONTACT_CCP;
        o.warm_start = 0, o.kappa = 0.0;
        assert_int_equal(lucid_contact_solve(&t.p, &o, ws, l, dual, &r), LUCID_OK);
        o.warm_start = 1, o.kappa = 1e-3;
        assert_int_equal(lucid_contact_solve(&t.p, &o, ws, l, dual, &r), LUCID_OK);
        assert_int_equal(lucid_contact_ip_jvp(&t.p, ws, d, NULL, d, NULL, out), LUCID_OK);
        assert_int_equal(lucid_contact_ip_vjp(&t.p, ws, d, out, G_bar, mu_bar, out2), LUCID_OK);
    }
    counting = 0;
    assert_int_equal(allocations, 0);
    lucid_contact_workspace_destroy(ws);
    test_problem_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ip_agrees_with_the_other_solvers),
        cmocka_unit_test(frictionless_contacts),
        cmocka_unit_test(relaxed_solutions_sit_on_the_central_path),
        cmocka_unit_test(relaxed_derivatives_match_finite_differences),
        cmocka_unit_test(relaxed_derivatives_approach_the_exact_ones),
        cmocka_unit_test(derivatives_refuse_what_they_cannot_answer),
        cmocka_unit_test(no_allocation_per_solve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
