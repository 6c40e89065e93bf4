/* Exact contact sensitivities (autodiff/contact_derivatives.h) against central finite
 * differences of the solvers.
 *
 * Problems with known modes are built by construction: pick a mode per contact, a solution
 * lambda* and a velocity sigma* that satisfy that mode's optimality conditions with margins of at
 * least 0.05 in the normalised criteria (well above the 1e-3 the issue asks; the classification
 * must find them with margin >= 0.01), a random SPD G (and R), and set
 * g = sigma* - (G + R) lambda*. Each problem is solved cold by one of the model's solvers in turn
 * (tol 1e-11; lambda* when it returns another solution or does not converge, counted); the
 * derivatives at that answer are compared, along a random direction (dg, dG symmetric, dmu, dR),
 * with central differences of the first model solver that converges to tol 1e-13 on both sides,
 * warm started from lambda* (step 1e-5): |jvp - fd|_inf <= 1e-6 max(|jvp|_inf, |lambda|_inf).
 * Problems where no solver of the model converges (lcp:pgs: ~2%) are replaced by new ones.
 * Also checked: w . jvp(d) = vjp(w) . d, the dense Jacobians against jvp of unit directions,
 * a sliding contact's closed form, and hyperstatic problems (a box on 4 contacts, the world
 * dumps) through the velocity sensitivities that do not depend on the null space of G. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "autodiff/contact_derivatives.h"
#include "solvers/contact/contact_ip.h"
#include "tests/c/common/test_contact_dump.h"

#define MAXN     4
#define MAXM     (3 * MAXN)
#define FD_STEP  1e-5
#define FD_TOL   1e-13
#define REL_TOL  1e-6
#define PROBLEMS 1000

typedef struct built {
    test_problem t;
    double lambda[MAXM];
    lucid_contact_mode modes[MAXN];
} built;

static double uni(test_rng *r, double lo, double hi) {
    return lo + (hi - lo) * test_uniform(r);
}

static double dot(const double *a, const double *b, int count) {
    double s = 0.0;
    for (int k = 0; k < count; ++k) s += a[k] * b[k];
    return s;
}

static double max_abs_diff(const double *a, const double *b, int count) {
    double s = 0.0;
    for (int k = 0; k < count; ++k) s = fmax(s, fabs(a[k] - b[k]));
    return s;
}

static double max_abs(const double *a, int count) {
    double s = 0.0;
    for (int k = 0; k < count; ++k) s = fmax(s, fabs(a[k]));
    return s;
}

/* sigma_i of a sliding RaiSim contact: on the plane sigma_N = 0, along -(n1 + mu n2 / n2_N). */
static void raisim_sliding_velocity(const double *G, int m, int i, double mu, const double *l,
                                    double a, double *s) {
    double lT = hypot(l[0], l[1]);
    double n1[3] = {l[0] / lT, l[1] / lT, -mu};
    double n2[3];
    for (int c = 0; c < 3; ++c) n2[c] = G[(3 * i + 2) + m * (3 * i + c)];
    for (int c = 0; c < 3; ++c) s[c] = a * (n1[c] + mu * n2[c] / n2[2]);
    s[2] = 0.0;
}

/* A problem of n contacts whose solution under `model` has the drawn modes. */
static built build_problem(lucid_contact_model model, int n, int compliant, uint64_t seed) {
    built b;
    memset(&b, 0, sizeof b);
    test_rng r = {seed * 0x2545F4914F6CDD1Dull + 7};
    b.t = test_random_problem(n, seed + 1000003u * (unsigned)model);
    int m = 3 * n;
    if (compliant) {
        b.t.R = calloc((size_t)m, sizeof(double));
        b.t.p.R = b.t.R;
        for (int i = 0; i < n; ++i) {
            double rt = uni(&r, 0.0, 0.2), rn = uni(&r, 0.0, 0.2);
            b.t.R[3 * i] = b.t.R[3 * i + 1] = rt, b.t.R[3 * i + 2] = rn;
        }
    }
    double sigma[MAXM];
    for (int i = 0; i < n; ++i) {
        double mu = b.t.mu[i] = uni(&r, 0.2, 1.0);
        double *l = b.lambda + 3 * i, *s = sigma + 3 * i;
        int mode = (int)(3 * test_uniform(&r));
        b.modes[i] = (lucid_contact_mode)mode;
        double th = uni(&r, 0.0, 6.283185307179586), u[2] = {cos(th), sin(th)};
        if (mode == LUCID_CONTACT_BREAKING) {
            l[0] = l[1] = l[2] = 0.0;
            s[0] = test_normal(&r), s[1] = test_normal(&r);
            s[2] = uni(&r, 0.2, 1.0) + (model == LUCID_CONTACT_CCP ? mu * hypot(s[0], s[1]) : 0.0);
            continue;
        }
        l[2] = uni(&r, 0.5, 1.5);
        if (mode == LUCID_CONTACT_STICKING) {
            double rho = uni(&r, 0.0, 0.8);
            if (model == LUCID_CONTACT_LCP)
                l[0] = mu * l[2] * uni(&r, -0.8, 0.8), l[1] = mu * l[2] * uni(&r, -0.8, 0.8);
            else
                l[0] = mu * l[2] * rho * u[0], l[1] = mu * l[2] * rho * u[1];
            s[0] = s[1] = s[2] = 0.0;
            continue;
        }
        double speed = uni(&r, 0.2, 1.0);
        switch (model) {
            case LUCID_CONTACT_LCP: {
                int slides = 1 + (int)(3 * test_uniform(&r)); /* bit k: component k slides */
                for (int k = 0; k < 2; ++k) {
                    if (slides & (1 << k)) {
                        double sign = test_uniform(&r) < 0.5 ? -1.0 : 1.0;
                        l[k] = -sign * mu * l[2], s[k] = sign * uni(&r, 0.2, 1.0);
                    } else {
                        l[k] = mu * l[2] * uni(&r, -0.8, 0.8), s[k] = 0.0;
                    }
                }
                s[2] = 0.0;
                break;
            }
            case LUCID_CONTACT_RAISIM:
                l[0] = mu * l[2] * u[0], l[1] = mu * l[2] * u[1];
                raisim_sliding_velocity(b.t.G, m, i, mu, l, -speed, s);
                break;
            case LUCID_CONTACT_CCP:
            case LUCID_CONTACT_NCP:
                l[0] = -mu * l[2] * u[0], l[1] = -mu * l[2] * u[1];
                s[0] = speed * u[0], s[1] = speed * u[1];
                s[2] = model == LUCID_CONTACT_CCP ? mu * speed : 0.0;
                break;
        }
    }
    for (int rr = 0; rr < m; ++rr) {
        double v = sigma[rr] - (b.t.R ? b.t.R[rr] * b.lambda[rr] : 0.0);
        for (int c = 0; c < m; ++c) v -= b.t.G[rr + m * c] * b.lambda[c];
        b.t.g[rr] = v;
    }
    return b;
}

/* Solves p with (model, solver) from lambda (warm when warm != 0); 1 when converged. */
static int solve(const lucid_contact_problem *p, lucid_contact_model model,
                 lucid_contact_solver solver, double tol, int warm, double *lambda) {
    lucid_contact_options o = lucid_contact_default_options();
    o.model = model, o.solver = solver, o.tol = tol, o.max_iter = 20000, o.warm_start = warm;
    o.stall_tol = 0.0;
    lucid_contact_workspace *ws = lucid_contact_workspace_create(p->n);
    lucid_contact_result res;
    lucid_status status = lucid_contact_solve(p, &o, ws, lambda, NULL, &res);
    lucid_contact_workspace_destroy(ws);
    return status == LUCID_OK && res.converged;
}

typedef struct direction {
    double dG[MAXM * MAXM], dg[MAXM], dmu[MAXN], dR[MAXM];
} direction;

static direction random_direction(test_rng *r, int n, int compliant) {
    direction d;
    memset(&d, 0, sizeof d);
    int m = 3 * n;
    for (int i = 0; i < m; ++i) {
        d.dg[i] = test_normal(r);
        d.dR[i] = compliant ? test_normal(r) * 0.1 : 0.0;
        for (int j = 0; j <= i; ++j) d.dG[i + m * j] = d.dG[j + m * i] = 0.2 * test_normal(r);
    }
    for (int i = 0; i < n; ++i) d.dmu[i] = test_normal(r) * 0.2;
    if (compliant) /* keep the tangential pair equal (ccp:newton's requirement) */
        for (int i = 0; i < n; ++i) d.dR[3 * i + 1] = d.dR[3 * i];
    return d;
}

/* The problem moved by h along d (buffers G, g, mu, R of the right sizes). */
static lucid_contact_problem moved(const lucid_contact_problem *p, const direction *d, double h,
                                   double *G, double *g, double *mu, double *R) {
    int n = p->n, m = 3 * n;
    for (int k = 0; k < m * m; ++k) G[k] = p->G[k] + h * d->dG[k];
    for (int k = 0; k < m; ++k) g[k] = p->g[k] + h * d->dg[k];
    for (int k = 0; k < n; ++k) mu[k] = p->mu[k] + h * d->dmu[k];
    for (int k = 0; k < m; ++k) R[k] = p->R ? p->R[k] + h * d->dR[k] : 0.0;
    return (lucid_contact_problem){n, G, g, mu, p->R ? R : NULL, 3};
}

/* The model's solvers, in the order tried for the finite differences. */
static const lucid_contact_solver model_solvers[4][3] = {
    [LUCID_CONTACT_LCP] = {LUCID_CONTACT_PGS, LUCID_CONTACT_PGS, LUCID_CONTACT_PGS},
    [LUCID_CONTACT_CCP] = {LUCID_CONTACT_ADMM, LUCID_CONTACT_PGS, LUCID_CONTACT_ADMM},
    [LUCID_CONTACT_RAISIM] = {LUCID_CONTACT_BISECTION, LUCID_CONTACT_BISECTION,
                              LUCID_CONTACT_BISECTION},
    [LUCID_CONTACT_NCP] = {LUCID_CONTACT_ADMM, LUCID_CONTACT_STAGGERED, LUCID_CONTACT_PGS},
};

/* Central difference along d of the first of the model's solvers that converges to FD_TOL on
 * both sides, warm started from lambda0; returns that solver + 1, or 0 if none did. */
static int central_difference(const lucid_contact_problem *p, lucid_contact_model model,
                              const direction *d, const double *lambda0, double *fd) {
    int m = 3 * p->n;
    double G[MAXM * MAXM], g[MAXM], mu[MAXN], R[MAXM], lp[MAXM], lm[MAXM];
    for (int s = 0; s < 3; ++s) {
        lucid_contact_solver solver = model_solvers[model][s];
        memcpy(lp, lambda0, sizeof(double) * m), memcpy(lm, lambda0, sizeof(double) * m);
        lucid_contact_problem q = moved(p, d, FD_STEP, G, g, mu, R);
        if (!solve(&q, model, solver, FD_TOL, 1, lp)) continue;
        q = moved(p, d, -FD_STEP, G, g, mu, R);
        if (!solve(&q, model, solver, FD_TOL, 1, lm)) continue;
        for (int k = 0; k < m; ++k) fd[k] = (lp[k] - lm[k]) / (2 * FD_STEP);
        return 1 + (int)solver;
    }
    return 0;
}

/* The sweep of one model: PROBLEMS problems of 1 to MAXN contacts. */
static void sweep(lucid_contact_model model) {
    test_rng r = {0x5eed0000u + (uint64_t)model};
    lucid_contact_derivatives *der = lucid_contact_derivatives_create(MAXN);
    assert_non_null(der);
    int checked = 0, found_other = 0, no_fd = 0, modes_seen[3] = {0, 0, 0};
    double worst = 0.0, worst_adjoint = 0.0;
    for (int k = 0; checked < PROBLEMS && k < 2 * PROBLEMS; ++k) {
        int n = 1 + k % MAXN, m = 3 * n, compliant = model == LUCID_CONTACT_CCP && (k / 4) % 2;
        built b = build_problem(model, n, compliant, (uint64_t)k + 1);
        const lucid_contact_problem *p = &b.t.p;
        /* the answer of one of the model's solvers, cold */
        double lambda[MAXM];
        lucid_contact_solver solver = model_solvers[model][k % 3];
        if (compliant && k % 3 == 2) solver = LUCID_CONTACT_NEWTON; /* compliant CCP only */
        int ok = solve(p, model, solver, 1e-11, 0, lambda);
        if (!ok || max_abs_diff(lambda, b.lambda, m) > 1e-6) {
            /* another solution (the NCP need not be unique) or a slow solver: use lambda* */
            memcpy(lambda, b.lambda, sizeof lambda);
            ++found_other;
        }
        lucid_contact_derivative_options o = lucid_contact_derivative_default_options(model);
        assert_int_equal(lucid_contact_derivatives_factor(der, p, lambda, &o), LUCID_OK);
        lucid_contact_derivative_info info;
        lucid_contact_derivatives_get_info(der, &info);
        for (int i = 0; i < n; ++i) {
            assert_int_equal(lucid_contact_derivatives_mode(der, i), b.modes[i]);
            ++modes_seen[b.modes[i]];
        }
        assert_true(info.margin >= 0.01);
        assert_false(info.rank_deficient);
        direction d = random_direction(&r, n, compliant);
        double jvp[MAXM], fd[MAXM];
        assert_int_equal(
            lucid_contact_derivatives_jvp(der, d.dG, d.dg, d.dmu, compliant ? d.dR : NULL, jvp),
            LUCID_OK);
        if (!compliant) memset(d.dR, 0, sizeof d.dR);
        if (!central_difference(p, model, &d, b.lambda, fd)) {
            ++no_fd; /* no solver of the model converges there: not a check */
            test_problem_free(&b.t);
            continue;
        }
        double scale = fmax(max_abs(jvp, m), max_abs(b.lambda, m)), err = 0.0;
        for (int c = 0; c < m; ++c) err = fmax(err, fabs(jvp[c] - fd[c]));
        worst = fmax(worst, err / scale);
        if (err > REL_TOL * scale)
            fail_msg("%s problem %d (n = %d): |jvp - fd| = %.3g, scale %.3g",
                     lucid_contact_model_name(model), k, n, err, scale);
        /* reverse mode is the transpose of forward mode */
        double w[MAXM], gG[MAXM * MAXM], gg[MAXM], gmu[MAXN], gR[MAXM];
        for (int c = 0; c < m; ++c) w[c] = test_normal(&r);
        assert_int_equal(lucid_contact_derivatives_vjp(der, w, gG, gg, gmu, gR), LUCID_OK);
        double lhs = dot(w, jvp, m);
        double rhs = dot(gG, d.dG, m * m) + dot(gg, d.dg, m) + dot(gmu, d.dmu, n) +
                     (compliant ? dot(gR, d.dR, m) : 0.0);
        double adj = fabs(lhs - rhs) / fmax(1.0, fabs(lhs));
        worst_adjoint = fmax(worst_adjoint, adj);
        assert_true(adj < 1e-10);
        ++checked;
        test_problem_free(&b.t);
    }
    print_message("%s: %d problems (%d more without a converging solver), modes "
                  "breaking/sticking/sliding %d/%d/%d, %d answers "
                  "replaced by lambda*, worst |jvp - fd| / scale %.2e, worst adjoint %.2e\n",
                  lucid_contact_model_name(model), checked, no_fd, modes_seen[0], modes_seen[1],
                  modes_seen[2], found_other, worst, worst_adjoint);
    assert_int_equal(checked, PROBLEMS);
    assert_true(found_other <= PROBLEMS / 10);
    lucid_contact_derivatives_destroy(der);
}

static void ncp_matches_finite_differences(void **state) {
    (void)state;
    sweep(LUCID_CONTACT_NCP);
}
static void ccp_matches_finite_differences(void **state) {
    (void)state;
    sweep(LUCID_CONTACT_CCP);
}
static void lcp_matches_finite_differences(void **state) {
    (void)state;
    sweep(LUCID_CONTACT_LCP);
}
static void raisim_matches_finite_differences(void **state) {
    (void)state;
    sweep(LUCID_CONTACT_RAISIM);
}

/* threshold and rcond as lucid_contact_derivative_option_table states them: in [0, 1) (a
 * threshold of 1 or more passed the factorisation's check before and read every contact as
 * breaking), finite. */
static void options_checked_by_the_table(void **state) {
    (void)state;
    double G[9] = {2, 0, 0, 0, 2, 0, 0, 0, 3}, g[3] = {0.1, 0, -1}, mu[1] = {0.5};
    double lambda[3] = {0, 0, 1.0 / 3.0};
    lucid_contact_problem p = {1, G, g, mu, NULL, 3};
    lucid_contact_derivatives *d = lucid_contact_derivatives_create(1);
    lucid_contact_derivative_options o =
        lucid_contact_derivative_default_options(LUCID_CONTACT_NCP);
    assert_int_equal(lucid_contact_derivatives_factor(d, &p, lambda, &o), LUCID_OK);
    const double bad[] = {1.0, 2.0, -1e-12, NAN, INFINITY};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        o = lucid_contact_derivative_default_options(LUCID_CONTACT_NCP);
        o.threshold = bad[k];
        assert_int_equal(lucid_contact_derivatives_factor(d, &p, lambda, &o), LUCID_ERR_ARGUMENT);
        o = lucid_contact_derivative_default_options(LUCID_CONTACT_NCP);
        o.rcond = bad[k];
        assert_int_equal(lucid_contact_derivatives_factor(d, &p, lambda, &o), LUCID_ERR_ARGUMENT);
    }
    lucid_contact_derivatives_destroy(d);
}

/* One sliding contact, G = diag(a, a, b): sigma_N = b l_N + g_N = 0 and sigma_T = a l_T + g_T
 * parallel to l_T's opposite u = g_T / |g_T| give l_N = -g_N / b, l_T = -mu l_N u (NCP), so
 *   dl_N/dg_N = -1/b, dl_T/dg_N = mu u / b, dl_T/dg_T = (mu g_N / (b |g_T|)) (I - u u^T),
 *   dl_T/dmu = (g_N / b) u, dl_N/db = g_N / b^2, dl_T/db = -mu g_N u / b^2, dl/da = 0.
 * CCP: sigma_N = mu |sigma_T| with |sigma_T| = |g_T| - a mu l_N gives
 *   l_N = (mu |g_T| - g_N) / (b + a mu^2),  l_T = -mu l_N u. */
static void single_sliding_contact_closed_form(void **state) {
    (void)state;
    const double a = 2.0, b = 3.0, mu = 0.4, gT[2] = {1.5, -2.0}, gN = -1.2;
    double G[9] = {a, 0, 0, 0, a, 0, 0, 0, b}, g[3] = {gT[0], gT[1], gN}, muv[1] = {mu};
    lucid_contact_problem p = {1, G, g, muv, NULL, 3};
    double nT = hypot(gT[0], gT[1]), u[2] = {gT[0] / nT, gT[1] / nT};
    lucid_contact_derivatives *d = lucid_contact_derivatives_create(1);
    for (int model = LUCID_CONTACT_CCP; model <= LUCID_CONTACT_NCP; model += 2) {
        double lN = model == LUCID_CONTACT_NCP ? -gN / b : (mu * nT - gN) / (b + a * mu * mu);
        double lambda[3] = {-mu * lN * u[0], -mu * lN * u[1], lN};
        lucid_contact_derivative_options o =
            lucid_contact_derivative_default_options((lucid_contact_model)model);
        assert_int_equal(lucid_contact_derivatives_factor(d, &p, lambda, &o), LUCID_OK);
        assert_int_equal(lucid_contact_derivatives_mode(d, 0), LUCID_CONTACT_SLIDING);
        double Jg[9], Jmu[3], expect_g[9], expect_mu[3];
        assert_int_equal(lucid_contact_derivatives_jacobian(d, Jg, Jmu, NULL), LUCID_OK);
        /* the closed forms, differentiated by hand */
        double dlN_dgT[2] = {0, 0}, dlN_dgN = -1.0 / b, dlN_dmu = 0.0;
        if (model == LUCID_CONTACT_CCP) {
            double den = b + a * mu * mu;
            dlN_dgT[0] = mu * u[0] / den, dlN_dgT[1] = mu * u[1] / den, dlN_dgN = -1.0 / den;
            dlN_dmu = (nT * den - (mu * nT - gN) * 2 * a * mu) / (den * den);
        }
        for (int k = 0; k < 2; ++k) {
            for (int j = 0; j < 2; ++j) /* d(-mu lN u_k)/dg_T,j */
                expect_g[k + 3 * j] =
                    -mu * (dlN_dgT[j] * u[k] + lN * ((k == j) - u[k] * u[j]) / nT);
            expect_g[k + 6] = -mu * dlN_dgN * u[k];
            expect_mu[k] = -(lN + mu * dlN_dmu) * u[k];
        }
        expect_g[2] = dlN_dgT[0], expect_g[5] = dlN_dgT[1], expect_g[8] = dlN_dgN;
        expect_mu[2] = dlN_dmu;
        for (int k = 0; k < 9; ++k) assert_true(fabs(Jg[k] - expect_g[k]) < 1e-12);
        for (int k = 0; k < 3; ++k) assert_true(fabs(Jmu[k] - expect_mu[k]) < 1e-12);
        if (model == LUCID_CONTACT_NCP) { /* G: only b matters */
            double dG[9] = {0}, dl[3];
            dG[8] = 1.0;
            lucid_contact_derivatives_jvp(d, dG, NULL, NULL, NULL, dl);
            assert_true(fabs(dl[2] - gN / (b * b)) < 1e-12);
            for (int k = 0; k < 2; ++k) assert_true(fabs(dl[k] + mu * gN * u[k] / (b * b)) < 1e-12);
            memset(dG, 0, sizeof dG);
            dG[0] = dG[4] = 1.0;
            lucid_contact_derivatives_jvp(d, dG, NULL, NULL, NULL, dl);
            assert_true(max_abs(dl, 3) < 1e-12);
        }
    }
    lucid_contact_derivatives_destroy(d);
}

/* The dense Jacobians are the JVPs of the unit directions (and the VJPs of unit cotangents);
 * vjp_many of a block of cotangents is the transposed Jacobians times it. */
static void dense_jacobians_are_the_products(void **state) {
    (void)state;
    lucid_contact_derivatives *der = lucid_contact_derivatives_create(MAXN);
    for (int model = 0; model < 4; ++model)
        for (int k = 0; k < 20; ++k) {
            int n = 1 + k % MAXN, m = 3 * n;
            built b = build_problem((lucid_contact_model)model, n, k % 2, (uint64_t)k + 77);
            lucid_contact_derivative_options o =
                lucid_contact_derivative_default_options((lucid_contact_model)model);
            assert_int_equal(lucid_contact_derivatives_factor(der, &b.t.p, b.lambda, &o), LUCID_OK);
            double Jg[MAXM * MAXM], Jmu[MAXM * MAXN], JR[MAXM * MAXM], col[MAXM], e[MAXM];
            double gg[MAXM], gmu[MAXN], gR[MAXM];
            assert_int_equal(lucid_contact_derivatives_jacobian(der, Jg, Jmu, JR), LUCID_OK);
            for (int c = 0; c < m; ++c) {
                memset(e, 0, sizeof e), e[c] = 1.0;
                lucid_contact_derivatives_jvp(der, NULL, e, NULL, NULL, col);
                assert_true(max_abs_diff(col, Jg + m * c, m) < 1e-12);
                lucid_contact_derivatives_jvp(der, NULL, NULL, NULL, e, col);
                assert_true(max_abs_diff(col, JR + m * c, m) < 1e-12);
                lucid_contact_derivatives_vjp(der, e, NULL, gg, gmu, gR);
                for (int j = 0; j < m; ++j) assert_true(fabs(gg[j] - Jg[c + m * j]) < 1e-12);
                for (int j = 0; j < m; ++j) assert_true(fabs(gR[j] - JR[c + m * j]) < 1e-12);
                for (int j = 0; j < n; ++j) assert_true(fabs(gmu[j] - Jmu[c + m * j]) < 1e-12);
            }
            for (int c = 0; c < n; ++c) {
                memset(e, 0, sizeof e), e[c] = 1.0;
                lucid_contact_derivatives_jvp(der, NULL, NULL, e, NULL, col);
                assert_true(max_abs_diff(col, Jmu + m * c, m) < 1e-12);
            }
            /* many cotangents at once: 2m + 1 of them, so the 3n-column chunks are crossed */
            enum { MANY = 2 * MAXM + 1 };
            double W[MAXM * MANY], Gg[MAXM * MANY], Gmu[MAXN * MANY];
            int count = 2 * m + 1;
            for (int j = 0; j < m * count; ++j) W[j] = sin(1.0 + 0.37 * j + k);
            assert_int_equal(lucid_contact_derivatives_vjp_many(der, W, count, Gg, Gmu), LUCID_OK);
            for (int c = 0; c < count; ++c) {
                for (int j = 0; j < m; ++j) {
                    double want = 0.0;
                    for (int r = 0; r < m; ++r) want += Jg[r + m * j] * W[r + m * c];
                    assert_true(fabs(Gg[j + m * c] - want) < 1e-12 * (1.0 + fabs(want)));
                }
                for (int j = 0; j < n; ++j) {
                    double want = 0.0;
                    for (int r = 0; r < m; ++r) want += Jmu[r + m * j] * W[r + m * c];
                    assert_true(fabs(Gmu[j + n * c] - want) < 1e-12 * (1.0 + fabs(want)));
                }
            }
            test_problem_free(&b.t);
        }
    lucid_contact_derivatives_destroy(der);
}

/* Hyperstatic: a box (1 kg, half-extents 0.2, 0.1, 0.05) flat on the ground on its 4 bottom
 * corners. J maps the body twist (linear, angular; world frame at the centre) to the contacts'
 * (t1 = x, t2 = y, n = z) velocities; G = J M^-1 J^T (12 x 12, rank 6), g = J v_f. lambda is
 * not unique (any null-space part of G can be added) but the generalised impulse J^T lambda
 * is, so J^T dlambda + dJ^T lambda is compared with central differences of J'^T lambda' along a
 * random dJ (moving the contact points on the ground), dv_f and dmu. The friction changes by the
 * same amount at every contact: in the sliding case a per-contact change would weigh the normal
 * forces of the null space differently, and the velocity sensitivity then depends on which
 * solution of the set the solver returned (no derivative exists; the minimum-norm one is
 * returned). The free velocity translates the box, so that the null space's internal normal
 * forces exert no friction either (free_velocity ~ rounding): a spin would leave the 4 sliding
 * directions different and the velocities themselves not unique (box_spinning below). */
#define BOX_NV 6
static void box_jacobian(const double *corner_shift, double *J) {
    const double h[3] = {0.2, 0.1, 0.05};
    for (int k = 0; k < 4; ++k) {
        double pt[3] = {(k & 1 ? 1 : -1) * h[0], (k & 2 ? 1 : -1) * h[1], -h[2]};
        for (int c = 0; c < 3; ++c) pt[c] += corner_shift[3 * k + c];
        for (int a = 0; a < 3; ++a) {
            int row = 3 * k + a;
            double e[3] = {a == 0, a == 1, a == 2}, pe[3];
            pe[0] = pt[1] * e[2] - pt[2] * e[1], pe[1] = pt[2] * e[0] - pt[0] * e[2];
            pe[2] = pt[0] * e[1] - pt[1] * e[0];
            for (int c = 0; c < 3; ++c) J[row + 12 * c] = e[c], J[row + 12 * (3 + c)] = pe[c];
        }
    }
}

static void box_problem(const double *J, const double *vf, double *G, double *g) {
    const double minv[BOX_NV] = {1.0, 1.0, 1.0, 1.0 / 4.2e-3, 1.0 / 1.4e-2, 1.0 / 1.7e-2};
    for (int i = 0; i < 12; ++i) {
        g[i] = 0.0;
        for (int c = 0; c < BOX_NV; ++c) g[i] += J[i + 12 * c] * vf[c];
        for (int j = 0; j < 12; ++j) {
            double s = 0.0;
            for (int c = 0; c < BOX_NV; ++c) s += J[i + 12 * c] * minv[c] * J[j + 12 * c];
            G[i + 12 * j] = s;
        }
    }
}

static void generalized_impulse(const double *J, const double *lambda, double *out) {
    for (int c = 0; c < BOX_NV; ++c) {
        out[c] = 0.0;
        for (int i = 0; i < 12; ++i) out[c] += J[i + 12 * c] * lambda[i];
    }
}

static void box_case(lucid_contact_model model, double vx, double mu0, const char *expect) {
    test_rng r = {0xb0c5u + (uint64_t)(vx * 1000)};
    double shift[12] = {0}, J[12 * BOX_NV], G[144], g[12], mu[4] = {mu0, mu0, mu0, mu0};
    double vf[BOX_NV] = {vx, 0.3 * vx, -9.81 * 0.01, 0.0, 0.0, 0.0};
    box_jacobian(shift, J);
    box_problem(J, vf, G, g);
    lucid_contact_problem p = {4, G, g, mu, NULL, 3};
    double lambda[12];
    lucid_contact_solver solver = LUCID_CONTACT_ADMM;
    assert_true(solve(&p, model, solver, 1e-13, 0, lambda));
    lucid_contact_derivatives *der = lucid_contact_derivatives_create(4);
    lucid_contact_derivative_options o = lucid_contact_derivative_default_options(model);
    assert_int_equal(lucid_contact_derivatives_factor(der, &p, lambda, &o), LUCID_OK);
    lucid_contact_derivative_info info;
    lucid_contact_derivatives_get_info(der, &info);
    for (int i = 0; i < 4; ++i)
        assert_string_equal(lucid_contact_mode_name(lucid_contact_derivatives_mode(der, i)),
                            expect);
    assert_true(info.rank_deficient);
    assert_true(info.rank < info.size);
    print_message("box %s (%s): free_velocity %.1e\n", lucid_contact_model_name(model), expect,
                  info.free_velocity);
    assert_true(info.free_velocity < 1e-12);
    /* a random direction: corner shifts, free velocity, friction */
    double dshift[12], dvf[BOX_NV], dmu[4], dJ[12 * BOX_NV], Jp[12 * BOX_NV], Jm[12 * BOX_NV];
    for (int k = 0; k < 12; ++k) dshift[k] = 0.02 * test_normal(&r);
    for (int k = 0; k < 12; ++k) dshift[3 * (k / 3) + 2] = 0.0; /* stay on the ground plane */
    for (int c = 0; c < BOX_NV; ++c) dvf[c] = 0.1 * test_normal(&r);
    for (int k = 0; k < 4; ++k) dmu[k] = k ? dmu[0] : 0.1 * test_normal(&r); /* see above */
    const double h = 1e-6;
    double sp[12], sm[12], vp[BOX_NV], vm[BOX_NV], mp[4], mm[4];
    for (int k = 0; k < 12; ++k) sp[k] = h * dshift[k], sm[k] = -h * dshift[k];
    for (int c = 0; c < BOX_NV; ++c) vp[c] = vf[c] + h * dvf[c], vm[c] = vf[c] - h * dvf[c];
    for (int k = 0; k < 4; ++k) mp[k] = mu[k] + h * dmu[k], mm[k] = mu[k] - h * dmu[k];
    box_jacobian(sp, Jp), box_jacobian(sm, Jm);
    for (int k = 0; k < 12 * BOX_NV; ++k) dJ[k] = (Jp[k] - Jm[k]) / (2 * h); /* linear in shift */
    double Gp[144], gp[12], Gm[144], gm[12], lp[12], lm[12];
    box_problem(Jp, vp, Gp, gp), box_problem(Jm, vm, Gm, gm);
    memcpy(lp, lambda, sizeof lp), memcpy(lm, lambda, sizeof lm);
    lucid_contact_problem pp = {4, Gp, gp, mp, NULL, 3}, pm = {4, Gm, gm, mm, NULL, 3};
    assert_true(solve(&pp, model, solver, 1e-13, 1, lp));
    assert_true(solve(&pm, model, solver, 1e-13, 1, lm));
    double Pp[BOX_NV], Pm[BOX_NV], fd[BOX_NV];
    generalized_impulse(Jp, lp, Pp), generalized_impulse(Jm, lm, Pm);
    for (int c = 0; c < BOX_NV; ++c) fd[c] = (Pp[c] - Pm[c]) / (2 * h);
    /* exact: dG = dJ M^-1 J^T + J M^-1 dJ^T (the derivative of box_problem), dg = dJ vf + J dvf */
    double dG[144], dg[12], dl[12];
    for (int k = 0; k < 144; ++k) dG[k] = (Gp[k] - Gm[k]) / (2 * h); /* quadratic in h: exact */
    for (int k = 0; k < 12; ++k) dg[k] = (gp[k] - gm[k]) / (2 * h);
    assert_int_equal(lucid_contact_derivatives_jvp(der, dG, dg, dmu, NULL, dl), LUCID_OK);
    for (int k = 0; k < 12; ++k) assert_true(isfinite(dl[k]));
    double exact[BOX_NV], extra[BOX_NV];
    generalized_impulse(J, dl, exact);
    generalized_impulse(dJ, lambda, extra);
    double err = 0.0, scale = 0.0, P[BOX_NV];
    generalized_impulse(J, lambda, P);
    for (int c = 0; c < BOX_NV; ++c) {
        exact[c] += extra[c];
        err = fmax(err, fabs(exact[c] - fd[c]));
        scale = fmax(scale, fmax(fabs(fd[c]), fabs(P[c])));
    }
    print_message("box %s (%s): rank %d of %d, |J^T dl - fd| = %.2e (scale %.2e)\n",
                  lucid_contact_model_name(model), expect, info.rank, info.size, err, scale);
    assert_true(err <= 1e-6 * scale);
    lucid_contact_derivatives_destroy(der);
}

/* The box sliding and spinning (v_f = (0.5, 0.15) m/s, w_z = 2 rad/s): the 4 slip directions
 * differ, the internal normal forces' friction turns the box, and the solution set's velocities
 * are not unique: K's dropped direction moves the contact velocities (free_velocity O(1e-2)),
 * and two solvers' answers give different impulses J^T lambda. */
static void box_spinning(void **state) {
    (void)state;
    double shift[12] = {0}, J[12 * BOX_NV], G[144], g[12], mu[4] = {0.3, 0.3, 0.3, 0.3};
    double vf[BOX_NV] = {0.5, 0.15, -9.81 * 0.01, 0.0, 0.0, 2.0};
    box_jacobian(shift, J);
    box_problem(J, vf, G, g);
    lucid_contact_problem p = {4, G, g, mu, NULL, 3};
    double la[12], lp[12], Pa[BOX_NV], Pp[BOX_NV];
    assert_true(solve(&p, LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM, 1e-9, 0, la));
    assert_true(solve(&p, LUCID_CONTACT_NCP, LUCID_CONTACT_PGS, 1e-9, 0, lp));
    generalized_impulse(J, la, Pa), generalized_impulse(J, lp, Pp);
    double diff = 0.0, scale = 0.0;
    for (int c = 0; c < BOX_NV; ++c)
        diff = fmax(diff, fabs(Pa[c] - Pp[c])), scale = fmax(scale, fabs(Pa[c]));
    lucid_contact_derivatives *der = lucid_contact_derivatives_create(4);
    lucid_contact_derivative_options o =
        lucid_contact_derivative_default_options(LUCID_CONTACT_NCP);
    assert_int_equal(lucid_contact_derivatives_factor(der, &p, la, &o), LUCID_OK);
    lucid_contact_derivative_info info;
    lucid_contact_derivatives_get_info(der, &info);
    print_message("box spinning: rank %d of %d, free_velocity %.2e, admm and pgs J^T lambda "
                  "%.2e apart (scale %.2e)\n",
                  info.rank, info.size, info.free_velocity, diff, scale);
    for (int i = 0; i < 4; ++i)
        assert_int_equal(lucid_contact_derivatives_mode(der, i), LUCID_CONTACT_SLIDING);
    assert_true(info.rank_deficient);
    assert_true(info.free_velocity > 1e-3);
    assert_true(diff > 1e-3 * scale);
    lucid_contact_derivatives_destroy(der);
}

static void hyperstatic_box_velocity_sensitivities(void **state) {
    (void)state;
    box_case(LUCID_CONTACT_NCP, 0.02, 0.8, "sticking");
    box_case(LUCID_CONTACT_NCP, 0.5, 0.3, "sliding");
    box_case(LUCID_CONTACT_CCP, 0.02, 0.8, "sticking");
    box_case(LUCID_CONTACT_CCP, 0.5, 0.3, "sliding");
}

/* The dumped world problems (tests/data/contact, every G singular): with J unknown, the
 * invariant is G dlambda (G = J M^-1 J^T: G times a null-space vector is 0). Directions that
 * keep the problem a world problem: contact frames turned, J' = (I + e A) J with A block
 * diagonal skew, so G' = (I + e A) G (I + e A)^T and g' = (I + e A) g + e G w (a change of the
 * free velocity); the generalised impulse J'^T lambda' is then seen through
 * G (I + e A)^T lambda', whose derivative is G (A^T lambda + dlambda). */
static void dumped_case(const char *file, lucid_contact_model model, lucid_contact_solver solver,
                        double tol, double h, double rel) {
    dumped dd;
    if (!load_dump(file, 64, &dd)) {
        print_message("%s not readable: skipped\n", file);
        exit(77);
    }
    lucid_contact_problem *p = &dd.t.p;
    int n = p->n, m = 3 * n;
    size_t mm = (size_t)m * m;
    double *lambda = calloc((size_t)m, sizeof(double)), *w = calloc((size_t)m, sizeof(double));
    double *A = calloc(mm, sizeof(double)), *dG = calloc(mm, sizeof(double));
    double *Gp = calloc(mm, sizeof(double)), *Gm = calloc(mm, sizeof(double));
    double *gp = calloc((size_t)m, sizeof(double)), *gm = calloc((size_t)m, sizeof(double));
    double *lp = calloc((size_t)m, sizeof(double)), *lm = calloc((size_t)m, sizeof(double));
    double *dg = calloc((size_t)m, sizeof(double)), *dl = calloc((size_t)m, sizeof(double));
    double *tmp = calloc((size_t)m, sizeof(double)), *fd = calloc((size_t)m, sizeof(double));
    double *ex = calloc((size_t)m, sizeof(double));
    memcpy(lambda, dd.lambda0, sizeof(double) * (size_t)m);
    assert_true(solve(p, model, solver, tol, 1, lambda));
    lucid_contact_derivatives *der = lucid_contact_derivatives_create(n);
    lucid_contact_derivative_options o = lucid_contact_derivative_default_options(model);
    assert_int_equal(lucid_contact_derivatives_factor(der, p, lambda, &o), LUCID_OK);
    lucid_contact_derivative_info info;
    lucid_contact_derivatives_get_info(der, &info);
    test_rng r = {0xd0d0u + (uint64_t)n};
    for (int i = 0; i < n; ++i) { /* skew block: a small rotation of contact i's frame */
        double x = test_normal(&r), y = test_normal(&r), z = test_normal(&r);
        double *B = A + 3 * i + (size_t)m * 3 * i;
        B[1] = z, B[2] = -y, B[m] = -z, B[m + 2] = x, B[2 * m] = y, B[2 * m + 1] = -x;
    }
    for (int k = 0; k < m; ++k) w[k] = test_normal(&r);
    /* moved problems at +-h: (I + e A) G (I + e A)^T, (I + e A) (g + e G w) (in its range) */
    for (int side = 0; side < 2; ++side) {
        double e = side ? -h : h, *Gs = side ? Gm : Gp, *gs = side ? gm : gp;
        for (int i = 0; i < m; ++i) { /* tmp = g + e G w */
            double s = p->g[i];
            for (int k = 0; k < m; ++k) s += e * p->G[i + (size_t)m * k] * w[k];
            tmp[i] = s;
        }
        for (int i = 0; i < m; ++i) {
            double s = tmp[i];
            for (int k = 0; k < m; ++k) s += e * A[i + (size_t)m * k] * tmp[k];
            gs[i] = s;
            for (int j = 0; j < m; ++j) {
                double t = 0.0; /* ((I + eA) G (I + eA)^T)_ij */
                for (int k = 0; k < m; ++k) {
                    double left = (i == k) + e * A[i + (size_t)m * k];
                    for (int l = 0; l < m; ++l) {
                        double right = (j == l) + e * A[j + (size_t)m * l];
                        if (left != 0.0 && right != 0.0)
                            t += left * p->G[k + (size_t)m * l] * right;
                    }
                }
                Gs[i + (size_t)m * j] = t;
            }
        }
        for (int i = 0; i < m; ++i) /* exact symmetry */
            for (int j = 0; j < i; ++j) Gs[i + (size_t)m * j] = Gs[j + (size_t)m * i];
    }
    for (size_t k = 0; k < mm; ++k) dG[k] = (Gp[k] - Gm[k]) / (2 * h);
    for (int k = 0; k < m; ++k) dg[k] = (gp[k] - gm[k]) / (2 * h);
    memcpy(lp, lambda, sizeof(double) * (size_t)m), memcpy(lm, lambda, sizeof(double) * (size_t)m);
    lucid_contact_problem pp = {n, Gp, gp, p->mu, NULL, 3}, pm = {n, Gm, gm, p->mu, NULL, 3};
    assert_true(solve(&pp, model, solver, tol, 1, lp));
    assert_true(solve(&pm, model, solver, tol, 1, lm));
    /* fd of G (I + e A)^T lambda' */
    for (int side = 0; side < 2; ++side) {
        double e = side ? -h : h, *l = side ? lm : lp;
        for (int k = 0; k < m; ++k) {
            double s = l[k];
            for (int j = 0; j < m; ++j) s += e * A[j + (size_t)m * k] * l[j];
            tmp[k] = s;
        }
        for (int i = 0; i < m; ++i) {
            double s = 0.0;
            for (int k = 0; k < m; ++k) s += p->G[i + (size_t)m * k] * tmp[k];
            fd[i] += (side ? -1.0 : 1.0) * s / (2 * h);
        }
    }
    assert_int_equal(lucid_contact_derivatives_jvp(der, dG, dg, NULL, NULL, dl), LUCID_OK);
    for (int k = 0; k < m; ++k) {
        assert_true(isfinite(dl[k]));
        double s = dl[k];
        for (int j = 0; j < m; ++j) s += A[j + (size_t)m * k] * lambda[j];
        tmp[k] = s;
    }
    double err = 0.0, scale = 0.0;
    for (int i = 0; i < m; ++i) {
        double s = 0.0;
        for (int k = 0; k < m; ++k) s += p->G[i + (size_t)m * k] * tmp[k];
        ex[i] = s;
        double Gl = 0.0;
        for (int k = 0; k < m; ++k) Gl += p->G[i + (size_t)m * k] * lambda[k];
        err = fmax(err, fabs(s - fd[i])), scale = fmax(scale, fmax(fabs(fd[i]), fabs(Gl)));
    }
    int modes[3] = {0, 0, 0};
    for (int i = 0; i < n; ++i) ++modes[lucid_contact_derivatives_mode(der, i)];
    print_message("%s %s:%s: %d/%d/%d breaking/sticking/sliding, rank %d of %d, margin %.2e, "
                  "|G dl - fd| = %.2e (scale %.2e)\n",
                  file, lucid_contact_model_name(model), lucid_contact_solver_name(solver),
                  modes[0], modes[1], modes[2], info.rank, info.size, info.margin, err, scale);
    assert_true(err <= rel * scale);
    lucid_contact_derivatives_destroy(der);
    free(lambda), free(w), free(A), free(dG), free(Gp), free(Gm), free(gp), free(gm), free(lp);
    free(lm), free(dg), free(dl), free(tmp), free(fd), free(ex);
    test_problem_free(&dd.t), free(dd.lambda0), free(dd.dual0);
}

static void dumped_problems_velocity_sensitivities(void **state) {
    (void)state;
    const char *files[] = {"world_n5.txt",   "world_n8.txt",   "world_n10.txt",
                           "stack3_n12.txt", "stack4_n18.txt", "heap_n46.txt"};
    for (int f = 0; f < 6; ++f) {
        /* no NCP solver converges on the heap (ncp:admm stops at ~9e-4 after 20000 iterations) */
        if (f < 5) dumped_case(files[f], LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM, 1e-9, 1e-4, 1e-6);
        dumped_case(files[f], LUCID_CONTACT_CCP, LUCID_CONTACT_ADMM, 1e-9, 1e-4, 1e-6);
    }
}

/* The interior-point solver's relaxed derivatives (solvers/contact/contact_ip.h) tend to these
 * exact ones as kappa -> 0, on the NCP and CCP problems of the sweeps (rigid, 1-4 contacts):
 * the worst gap over 200 problems shrinks with kappa (measured: ccp 1.2e-3, 1.2e-5, 7.2e-6 and
 * ncp 7.1e-4, 7.1e-6, 4.1e-6 at kappa 1e-6, 1e-8, 1e-10: linear in kappa down to the ip
 * solve's own precision). */
static void relaxed_ip_derivatives_tend_to_the_exact_ones(void **state) {
    (void)state;
    const double kappas[3] = {1e-6, 1e-8, 1e-10};
    lucid_contact_derivatives *der = lucid_contact_derivatives_create(MAXN);
    lucid_contact_workspace *ws = lucid_contact_workspace_create(MAXN);
    for (int model = LUCID_CONTACT_CCP; model <= LUCID_CONTACT_NCP; model += 2) {
        double worst[3] = {0, 0, 0};
        test_rng r = {0x1bu + (uint64_t)model};
        for (int k = 0; k < 200; ++k) {
            int n = 1 + k % MAXN, m = 3 * n;
            built b = build_problem((lucid_contact_model)model, n, 0, (uint64_t)k + 5000);
            lucid_contact_derivative_options o =
                lucid_contact_derivative_default_options((lucid_contact_model)model);
            assert_int_equal(lucid_contact_derivatives_factor(der, &b.t.p, b.lambda, &o), LUCID_OK);
            direction d = random_direction(&r, n, 0);
            double exact[MAXM], relaxed[MAXM], lambda[MAXM];
            lucid_contact_derivatives_jvp(der, d.dG, d.dg, d.dmu, NULL, exact);
            /* problems are O(1); all-breaking ones have exact = lambda = 0 */
            double scale = fmax(1.0, fmax(max_abs(exact, m), max_abs(b.lambda, m)));
            for (int j = 0; j < 3; ++j) {
                lucid_contact_options so = lucid_contact_default_options();
                so.model = (lucid_contact_model)model, so.solver = LUCID_CONTACT_IP;
                so.kappa = kappas[j], so.tol = 1e-12, so.max_iter = 200;
                lucid_contact_result res;
                assert_int_equal(lucid_contact_solve(&b.t.p, &so, ws, lambda, NULL, &res),
                                 LUCID_OK);
                assert_int_equal(lucid_contact_ip_jvp(&b.t.p, ws, d.dg, d.dG, d.dmu, NULL, relaxed),
                                 LUCID_OK);
                worst[j] = fmax(worst[j], max_abs_diff(relaxed, exact, m) / scale);
            }
            test_problem_free(&b.t);
        }
        print_message("%s: worst |ip relaxed - exact| / scale at kappa 1e-6, 1e-8, 1e-10: "
                      "%.2e %.2e %.2e\n",
                      lucid_contact_model_name((lucid_contact_model)model), worst[0], worst[1],
                      worst[2]);
        assert_true(worst[1] < worst[0] && worst[2] < worst[1]);
        assert_true(worst[2] < 1e-4);
    }
    lucid_contact_workspace_destroy(ws);
    lucid_contact_derivatives_destroy(der);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ncp_matches_finite_differences),
        cmocka_unit_test(ccp_matches_finite_differences),
        cmocka_unit_test(lcp_matches_finite_differences),
        cmocka_unit_test(raisim_matches_finite_differences),
        cmocka_unit_test(options_checked_by_the_table),
        cmocka_unit_test(single_sliding_contact_closed_form),
        cmocka_unit_test(dense_jacobians_are_the_products),
        cmocka_unit_test(hyperstatic_box_velocity_sensitivities),
        cmocka_unit_test(box_spinning),
        cmocka_unit_test(dumped_problems_velocity_sensitivities),
        cmocka_unit_test(relaxed_ip_derivatives_tend_to_the_exact_ones),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
