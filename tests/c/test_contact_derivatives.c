/* Exact contact sensitivities (autodiff/contact_derivatives.h) against central finite
 * differences of the solvers.
 *
 * Problems with known modes are built by construction: pick a mode per contact, a solution
 * lambda* and a velocity sigma* that satisfy that mode's optimality conditions with margins of at
 * least 0.05 in the normalised criteria (well above the 1e-3 the issue asks), a random SPD G
 * (and R), and set g = sigma* - (G + R) lambda*. Each problem is solved cold by one of the
 * model's solvers (tol 1e-11); the derivatives at that answer are compared, along a random
 * direction (dg, dG symmetric, dmu, dR), with central differences of the solver warm started
 * from lambda* at tol 1e-13 (step 1e-5): |jvp - fd|_inf <= 1e-6 max(|jvp|_inf, |lambda|_inf).
 * Also checked: w . jvp(d) = vjp(w) . d, the dense Jacobians against jvp of unit directions,
 * a sliding contact's closed form, and hyperstatic problems (a box on 4 contacts, the world
 * dumps) through the velocity sensitivities that do not depend on the null space of G. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "autodiff/contact_derivatives.h"
#include "tests/c/test_contact_problems.h"

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
    if (getenv("DEBUG_SOLVE") && !res.converged)
        print_message("solve %s:%s n=%d it=%d model %.3g ncp %.3g\n",
                      lucid_contact_model_name(model), lucid_contact_solver_name(solver), p->n,
                      res.iterations, res.model.abs, res.ncp.abs);
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
    return (lucid_contact_problem){n, G, g, mu, p->R ? R : NULL};
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ncp_matches_finite_differences),
        cmocka_unit_test(ccp_matches_finite_differences),
        cmocka_unit_test(lcp_matches_finite_differences),
        cmocka_unit_test(raisim_matches_finite_differences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
