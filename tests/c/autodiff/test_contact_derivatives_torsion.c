/* Exact sensitivities of contact problems of dim 4 (torsional friction: rows t1, t2, n, s; the
 * cone ||(x_t1, x_t2, x_s)|| <= mu x_n) and dim 6 (rolling friction as well: rows t1, t2, n, s,
 * r1, r2; the cone over the five tangential entries) against central differences of
 * ncp:admm / ccp:admm (or pgs).
 *
 * As in test_contact_derivatives.c, problems with known modes are built by construction: per
 * contact a mode (breaking, sticking, sliding along a random direction of the 3- or
 * 5-dimensional tangential space, so spinning, sliding, rolling or all; in dim 6 half of the
 * sliding contacts roll alone: slip only in (r1, r2), the rolling force at the cone's bound),
 * lambda* and sigma* meeting its conditions
 * with margins >= 0.2, a random SPD G (and R), g = sigma* - (G + R) lambda*. The derivatives at
 * lambda* are compared along a random direction (dg, dG symmetric, dmu, dR) with central
 * differences (step 1e-5) of the model's solvers converged to 1e-13 from lambda*:
 * |jvp - fd|_inf <= 1e-6 max(|jvp|_inf, |lambda|_inf); w . jvp(d) = vjp(w) . d and the dense
 * Jacobians' columns equal jvp of the unit directions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "autodiff/contact_derivatives.h"
#include "tests/c/common/test_contact_problems.h"

#define MAXN     3
#define MAXM     (6 * MAXN)
#define FD_STEP  1e-5
#define FD_TOL   1e-13
#define REL_TOL  1e-6
#define PROBLEMS 200

static const int TANGENTIAL[5] = {0, 1, 3, 4, 5};

typedef struct built {
    int n, m, dim;
    double G[MAXM * MAXM], g[MAXM], mu[MAXN], R[MAXM], lambda[MAXM];
    int compliant;
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

static double max_abs(const double *a, int count) {
    double s = 0.0;
    for (int k = 0; k < count; ++k) s = fmax(s, fabs(a[k]));
    return s;
}

static lucid_contact_problem problem(const built *b) {
    return (lucid_contact_problem){b->n, b->G, b->g, b->mu, b->compliant ? b->R : NULL, b->dim};
}

/* A random unit vector of R^k, or with `rolling` (k = 5) one of the rolling entries' plane
 * (3, 4). */
static void unit(test_rng *r, int k, int rolling, double *u) {
    double s;
    do {
        for (int c = 0; c < k; ++c) u[c] = rolling && c < 3 ? 0.0 : test_normal(r);
        s = sqrt(dot(u, u, k));
    } while (s < 1e-3);
    for (int c = 0; c < k; ++c) u[c] /= s;
}

/* n contacts of dim D (4 or 6) whose solution under `model` (NCP or CCP) has drawn modes.
 * G = A A^T / 2m + 0.2 I with A Gaussian (m x 2m): SPD, condition below ~30. *rolling_alone
 * counts the sliding contacts that roll alone. */
static built build(lucid_contact_model model, int D, int n, int compliant, test_rng *r,
                   int *rolling_alone) {
    built b;
    memset(&b, 0, sizeof b);
    b.n = n, b.m = D * n, b.dim = D, b.compliant = compliant;
    int m = b.m, kt = D - 1;
    double A[MAXM * 2 * MAXM];
    for (int k = 0; k < m * 2 * m; ++k) A[k] = test_normal(r);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) {
            double s = i == j ? 0.2 : 0.0;
            for (int k = 0; k < 2 * m; ++k) s += A[i + m * k] * A[j + m * k] / (2.0 * m);
            b.G[i + m * j] = s;
        }
    if (compliant)
        for (int i = 0; i < n; ++i) {
            double rt = uni(r, 0.0, 0.2);
            for (int c = 0; c < kt; ++c) b.R[D * i + TANGENTIAL[c]] = rt;
            b.R[D * i + 2] = uni(r, 0.0, 0.2);
        }
    double sigma[MAXM];
    for (int i = 0; i < n; ++i) {
        double mu = b.mu[i] = uni(r, 0.2, 1.0), u[5];
        double *l = b.lambda + D * i, *s = sigma + D * i;
        int mode = (int)(3 * test_uniform(r));
        int rolling = D == 6 && mode == LUCID_CONTACT_SLIDING && test_uniform(r) < 0.5;
        b.modes[i] = (lucid_contact_mode)mode;
        *rolling_alone += rolling;
        unit(r, kt, rolling, u);
        for (int c = 0; c < D; ++c) l[c] = s[c] = 0.0;
        if (mode == LUCID_CONTACT_BREAKING) {
            double st = uni(r, 0.0, 1.0);
            for (int c = 0; c < kt; ++c) s[TANGENTIAL[c]] = st * u[c];
            s[2] = uni(r, 0.2, 1.0) + (model == LUCID_CONTACT_CCP ? mu * st : 0.0);
            continue;
        }
        l[2] = uni(r, 0.5, 1.5);
        if (mode == LUCID_CONTACT_STICKING) {
            double rho = uni(r, 0.0, 0.75);
            for (int c = 0; c < kt; ++c) l[TANGENTIAL[c]] = mu * l[2] * rho * u[c];
            continue;
        }
        double speed = uni(r, 0.2, 1.0);
        for (int c = 0; c < kt; ++c)
            l[TANGENTIAL[c]] = -mu * l[2] * u[c], s[TANGENTIAL[c]] = speed * u[c];
        s[2] = model == LUCID_CONTACT_CCP ? mu * speed : 0.0;
    }
    for (int rr = 0; rr < m; ++rr) {
        double v = sigma[rr] - (compliant ? b.R[rr] * b.lambda[rr] : 0.0);
        for (int c = 0; c < m; ++c) v -= b.G[rr + m * c] * b.lambda[c];
        b.g[rr] = v;
    }
    return b;
}

/* Solves p by (model, solver) to tol from lambda; 1 when converged. */
static int solve(const lucid_contact_problem *p, lucid_contact_model model,
                 lucid_contact_solver solver, double *lambda) {
    lucid_contact_options o = lucid_contact_default_options();
    o.model = model, o.solver = solver, o.tol = FD_TOL, o.max_iter = 50000, o.warm_start = 1;
    o.stall_tol = 0.0;
    lucid_contact_workspace *ws = lucid_contact_workspace_create(MAXM / 3);
    lucid_contact_result res;
    lucid_status status = lucid_contact_solve(p, &o, ws, lambda, NULL, &res);
    lucid_contact_workspace_destroy(ws);
    return status == LUCID_OK && res.converged;
}

typedef struct direction {
    double dG[MAXM * MAXM], dg[MAXM], dmu[MAXN], dR[MAXM];
} direction;

static direction random_direction(test_rng *r, const built *b) {
    direction d;
    memset(&d, 0, sizeof d);
    int m = b->m;
    for (int i = 0; i < m; ++i) {
        d.dg[i] = test_normal(r);
        for (int j = 0; j <= i; ++j) d.dG[i + m * j] = d.dG[j + m * i] = 0.2 * test_normal(r);
    }
    for (int i = 0; i < b->n; ++i) {
        d.dmu[i] = 0.2 * test_normal(r);
        if (!b->compliant) continue;
        double dt = 0.1 * test_normal(r); /* keep the tangential rows' compliance equal */
        int D = b->dim;
        for (int c = 0; c < D - 1; ++c) d.dR[D * i + TANGENTIAL[c]] = dt;
        d.dR[D * i + 2] = 0.1 * test_normal(r);
    }
    return d;
}

/* Central difference along d of lambda, by the first of the model's solvers (admm, pgs) that
 * converges on both sides from lambda*; 0 when neither does. */
static int central_difference(const built *b, lucid_contact_model model, const direction *d,
                              double *fd) {
    const lucid_contact_solver solvers[2] = {LUCID_CONTACT_ADMM, LUCID_CONTACT_PGS};
    int m = b->m;
    for (int k = 0; k < 2; ++k) {
        double side[2][MAXM];
        int ok = 1;
        for (int e = 0; e < 2 && ok; ++e) {
            built q = *b;
            double h = e == 0 ? FD_STEP : -FD_STEP;
            for (int c = 0; c < m * m; ++c) q.G[c] += h * d->dG[c];
            for (int c = 0; c < m; ++c) q.g[c] += h * d->dg[c], q.R[c] += h * d->dR[c];
            for (int c = 0; c < b->n; ++c) q.mu[c] += h * d->dmu[c];
            memcpy(side[e], b->lambda, sizeof(double) * (size_t)m);
            lucid_contact_problem p = problem(&q);
            ok = solve(&p, model, solvers[k], side[e]);
        }
        if (!ok) continue;
        for (int c = 0; c < m; ++c) fd[c] = (side[0][c] - side[1][c]) / (2 * FD_STEP);
        return 1;
    }
    return 0;
}

static void sweep(lucid_contact_model model, int D) {
    test_rng r = {0x70e510u + (uint64_t)model + (D == 6 ? 0x600u : 0u)};
    /* storage counted in rows: MAXN contacts of dim D need D/3 MAXN of dim 3 */
    lucid_contact_derivatives *der = lucid_contact_derivatives_create(D * MAXN / 3);
    assert_non_null(der);
    int checked = 0, no_fd = 0, modes_seen[3] = {0, 0, 0}, rolling_alone = 0;
    double worst = 0.0, worst_adjoint = 0.0;
    for (int k = 0; checked < PROBLEMS && k < 2 * PROBLEMS; ++k) {
        built b = build(model, D, 1 + k % MAXN, (k / 3) % 2, &r, &rolling_alone);
        int n = b.n, m = b.m;
        lucid_contact_problem p = problem(&b);
        lucid_contact_derivative_options o = lucid_contact_derivative_default_options(model);
        assert_int_equal(lucid_contact_derivatives_factor(der, &p, b.lambda, &o), LUCID_OK);
        lucid_contact_derivative_info info;
        lucid_contact_derivatives_get_info(der, &info);
        for (int i = 0; i < n; ++i) {
            assert_int_equal(lucid_contact_derivatives_mode(der, i), b.modes[i]);
            ++modes_seen[b.modes[i]];
        }
        assert_true(info.margin >= 0.01);
        assert_false(info.rank_deficient);
        assert_int_equal(info.size, D * info.active);
        direction d = random_direction(&r, &b);
        double jvp[MAXM], fd[MAXM];
        assert_int_equal(
            lucid_contact_derivatives_jvp(der, d.dG, d.dg, d.dmu, b.compliant ? d.dR : NULL, jvp),
            LUCID_OK);
        if (!central_difference(&b, model, &d, fd)) {
            ++no_fd;
            continue;
        }
        double scale = fmax(max_abs(jvp, m), max_abs(b.lambda, m)), err = 0.0;
        for (int c = 0; c < m; ++c) err = fmax(err, fabs(jvp[c] - fd[c]));
        worst = fmax(worst, err / scale);
        if (err > REL_TOL * scale)
            fail_msg("%s problem %d (n = %d): |jvp - fd| = %.3g, scale %.3g",
                     lucid_contact_model_name(model), k, n, err, scale);
        double w[MAXM], gG[MAXM * MAXM], gg[MAXM], gmu[MAXN], gR[MAXM];
        for (int c = 0; c < m; ++c) w[c] = test_normal(&r);
        assert_int_equal(lucid_contact_derivatives_vjp(der, w, gG, gg, gmu, gR), LUCID_OK);
        double lhs = dot(w, jvp, m), rhs = dot(gG, d.dG, m * m) + dot(gg, d.dg, m) +
                                           dot(gmu, d.dmu, n) +
                                           (b.compliant ? dot(gR, d.dR, m) : 0.0);
        double adj = fabs(lhs - rhs) / fmax(1.0, fabs(lhs));
        worst_adjoint = fmax(worst_adjoint, adj);
        assert_true(adj < 1e-10);
        /* the dense Jacobians and vjp_many are the same products */
        double Jg[MAXM * MAXM], Jmu[MAXM * MAXN], Wg[MAXM * MAXM], Wmu[MAXN * MAXM];
        assert_int_equal(lucid_contact_derivatives_jacobian(der, Jg, Jmu, NULL), LUCID_OK);
        double col[MAXM], e[MAXM];
        for (int c = 0; c < m; ++c) {
            memset(e, 0, sizeof e), e[c] = 1.0;
            assert_int_equal(lucid_contact_derivatives_jvp(der, NULL, e, NULL, NULL, col),
                             LUCID_OK);
            for (int a = 0; a < m; ++a) assert_true(fabs(col[a] - Jg[a + m * c]) < 1e-12);
        }
        double I[MAXM * MAXM];
        memset(I, 0, sizeof I);
        for (int c = 0; c < m; ++c) I[c + m * c] = 1.0;
        assert_int_equal(lucid_contact_derivatives_vjp_many(der, I, m, Wg, Wmu), LUCID_OK);
        for (int a = 0; a < m; ++a) {
            for (int c = 0; c < m; ++c) assert_true(fabs(Wg[c + m * a] - Jg[a + m * c]) < 1e-12);
            for (int c = 0; c < n; ++c) assert_true(fabs(Wmu[c + n * a] - Jmu[a + m * c]) < 1e-12);
        }
        ++checked;
    }
    print_message("%s dim %d: %d problems (%d more without a converging solver), modes "
                  "breaking/sticking/sliding %d/%d/%d (rolling alone %d), worst |jvp - fd| / "
                  "scale %.2e, worst adjoint %.2e\n",
                  lucid_contact_model_name(model), D, checked, no_fd, modes_seen[0], modes_seen[1],
                  modes_seen[2], rolling_alone, worst, worst_adjoint);
    assert_int_equal(checked, PROBLEMS);
    if (D == 6) assert_true(rolling_alone > 0);
    lucid_contact_derivatives_destroy(der);
}

static void ncp_matches_finite_differences(void **state) {
    (void)state;
    sweep(LUCID_CONTACT_NCP, 4);
}

static void ccp_matches_finite_differences(void **state) {
    (void)state;
    sweep(LUCID_CONTACT_CCP, 4);
}

static void ncp_dim6_matches_finite_differences(void **state) {
    (void)state;
    sweep(LUCID_CONTACT_NCP, 6);
}

static void ccp_dim6_matches_finite_differences(void **state) {
    (void)state;
    sweep(LUCID_CONTACT_CCP, 6);
}

/* The LCP's pyramid and RaiSim's model have no dim 4 or 6; a storage holds 3 x max_contacts
 * rows. */
static void refusals(void **state) {
    (void)state;
    test_rng r = {99};
    int rolling = 0;
    built b = build(LUCID_CONTACT_NCP, 4, 3, 0, &r, &rolling);
    lucid_contact_problem p = problem(&b);
    lucid_contact_derivatives *small = lucid_contact_derivatives_create(3); /* 9 < 12 rows */
    lucid_contact_derivatives *der = lucid_contact_derivatives_create(4);
    assert_non_null(small), assert_non_null(der);
    lucid_contact_derivative_options o =
        lucid_contact_derivative_default_options(LUCID_CONTACT_NCP);
    assert_int_equal(lucid_contact_derivatives_factor(small, &p, b.lambda, &o), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_contact_derivatives_factor(der, &p, b.lambda, &o), LUCID_OK);
    o.model = LUCID_CONTACT_LCP;
    assert_int_equal(lucid_contact_derivatives_factor(der, &p, b.lambda, &o), LUCID_ERR_ARGUMENT);
    o.model = LUCID_CONTACT_RAISIM;
    assert_int_equal(lucid_contact_derivatives_factor(der, &p, b.lambda, &o), LUCID_ERR_ARGUMENT);
    /* dim 6: 2 contacts need 12 rows, 4 capacity units; the LCP refused as well */
    built b6 = build(LUCID_CONTACT_NCP, 6, 2, 0, &r, &rolling);
    lucid_contact_problem p6 = problem(&b6);
    o.model = LUCID_CONTACT_NCP;
    assert_int_equal(lucid_contact_derivatives_factor(small, &p6, b6.lambda, &o),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_contact_derivatives_factor(der, &p6, b6.lambda, &o), LUCID_OK);
    o.model = LUCID_CONTACT_LCP;
    assert_int_equal(lucid_contact_derivatives_factor(der, &p6, b6.lambda, &o), LUCID_ERR_ARGUMENT);
    lucid_contact_derivatives_destroy(small), lucid_contact_derivatives_destroy(der);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ncp_matches_finite_differences),
        cmocka_unit_test(ccp_matches_finite_differences),
        cmocka_unit_test(ncp_dim6_matches_finite_differences),
        cmocka_unit_test(ccp_dim6_matches_finite_differences),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
