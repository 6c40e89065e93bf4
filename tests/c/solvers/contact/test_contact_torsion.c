/* Contacts of dim 4 (torsional friction, lucid_contact_problem.dim) and dim 6 (rolling friction):
 * one contact with G = I, whose NCP answer is known in closed form, solved by every pair that takes
 * its dim (dim 4: ncp:admm, ncp:pgs, ncp:ip, ncp:staggered; ccp:admm, ccp:pgs, ccp:ip and
 * ccp:newton on a pressing contact, where the CCP's answer is the NCP's when nothing slides; dim
 * 6: the same pairs; raisim:bisection, test_contact_raisim_n.c), with first_order too;
 * the interior point, ccp:newton and
 * ncp:staggered on random problems of dims 4 and 6 (ccp:ip and ccp:newton against ccp:admm,
 * ncp:ip and ncp:staggered to the NCP criterion) and ip's relaxed derivatives against central
 * differences; the cone's projection is a projection
 * (idempotent, onto the cone, the residual in the polar cone). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_direction.h"
#include "solvers/contact/contact_ip.h"
#include "solvers/contact/contact_solver.h"
#include "tests/c/common/test_contact_problems.h"

static const double IDENTITY4[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

/* lambda of one contact of dim rows (G = I, mu) with free velocity g under the pair. */
static lucid_status solve_one(int dim, lucid_contact_model model, lucid_contact_solver solver,
                              double mu, const double *g, double *lambda) {
    double G[36] = {0};
    for (int k = 0; k < dim; ++k) G[k * (dim + 1)] = 1.0;
    lucid_contact_problem p = {1, G, g, &mu, NULL, dim};
    lucid_contact_options o = lucid_contact_default_options();
    o.model = model, o.solver = solver, o.tol = 1e-12, o.max_iter = 5000;
    /* ccp:newton solves the compliant problem: R = 1e-14 moves its lambda by 1e-14 here */
    o.newton_compliance = 1e-14;
    lucid_contact_workspace *ws = lucid_contact_workspace_create(2); /* 6 >= dim rows */
    assert_non_null(ws);
    lucid_contact_result res;
    lucid_status s = lucid_contact_solve(&p, &o, ws, lambda, NULL, &res);
    if (s == LUCID_OK) assert_true(res.converged);
    lucid_contact_workspace_destroy(ws);
    return s;
}

static void near_n(int n, const double *a, const double *b, double tol) {
    for (int k = 0; k < n; ++k)
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
        assert_int_equal(
            solve_one(4, LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM, mu, cases[c].g, lambda), LUCID_OK);
        near_n(4, lambda, cases[c].lambda, 1e-9);
        assert_int_equal(solve_one(4, LUCID_CONTACT_NCP, LUCID_CONTACT_PGS, mu, cases[c].g, lambda),
                         LUCID_OK);
        near_n(4, lambda, cases[c].lambda, 1e-9);
        assert_int_equal(solve_one(4, LUCID_CONTACT_NCP, LUCID_CONTACT_IP, mu, cases[c].g, lambda),
                         LUCID_OK);
        near_n(4, lambda, cases[c].lambda, 1e-9);
        assert_int_equal(
            solve_one(4, LUCID_CONTACT_NCP, LUCID_CONTACT_NEWTON, mu, cases[c].g, lambda),
            LUCID_OK);
        near_n(4, lambda, cases[c].lambda, 1e-9);
        assert_int_equal(
            solve_one(4, LUCID_CONTACT_NCP, LUCID_CONTACT_STAGGERED, mu, cases[c].g, lambda),
            LUCID_OK);
        near_n(4, lambda, cases[c].lambda, 1e-9);
        int slides = c == 0 || c == 2;
        if (slides || c == 4) continue; /* the CCP lifts a sliding contact off */
        assert_int_equal(
            solve_one(4, LUCID_CONTACT_CCP, LUCID_CONTACT_ADMM, mu, cases[c].g, lambda), LUCID_OK);
        near_n(4, lambda, cases[c].lambda, 1e-9);
        assert_int_equal(solve_one(4, LUCID_CONTACT_CCP, LUCID_CONTACT_PGS, mu, cases[c].g, lambda),
                         LUCID_OK);
        near_n(4, lambda, cases[c].lambda, 1e-9);
        assert_int_equal(solve_one(4, LUCID_CONTACT_CCP, LUCID_CONTACT_IP, mu, cases[c].g, lambda),
                         LUCID_OK);
        near_n(4, lambda, cases[c].lambda, 1e-9);
        assert_int_equal(
            solve_one(4, LUCID_CONTACT_CCP, LUCID_CONTACT_NEWTON, mu, cases[c].g, lambda),
            LUCID_OK);
        near_n(4, lambda, cases[c].lambda, 1e-9);
    }
}

/* A random problem of n contacts of dim rows: G = J J^T / k with J (dim n x k, k = dim n + 2)
 * Gaussian (definite), g's tangential rows Gaussian, normals in [-1, 0.5], mu in [0.1, 1]
 * (contact 0 a ray, mu = 0, when ray is set). Buffers of (dim n)^2, dim n and n. */
static void random_problem(test_rng *r, int dim, int n, int ray, double *G, double *g, double *mu) {
    int m = dim * n, k = m + 2;
    double *J = malloc(sizeof(double) * (size_t)(m * k));
    for (int a = 0; a < m * k; ++a) J[a] = test_normal(r);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j <= i; ++j) {
            double v = 0.0;
            for (int c = 0; c < k; ++c) v += J[i + m * c] * J[j + m * c];
            G[i + m * j] = G[j + m * i] = v / k;
        }
    for (int i = 0; i < n; ++i) {
        for (int a = 0; a < dim; ++a)
            if (a != 2) g[dim * i + a] = test_normal(r);
        g[dim * i + 2] = -1.0 + 1.5 * test_uniform(r);
        mu[i] = ray && i == 0 ? 0.0 : 0.1 + 0.9 * test_uniform(r);
    }
    free(J);
}

/* ccp:ip (tol 1e-9) agrees with ccp:admm (tol 1e-11, 1e-10 for dim 6; the CCP's answer is
 * unique for G definite) within 1e-4, as test_contact_ip.c's dim 3 check: |dlambda| <~
 * sqrt(tol / eig_min), eig_min of G down to ~1e-2 here; ncp:ip meets the
 * NCP criterion at tol 1e-9 within 60 iterations, on random problems of 1-4 contacts of dim 4 and
 * of dim 6 (a third of them with a ray); the NCP's answer may not be unique, its criterion is what
 * is checked. */
static void ip_solves_random_problems_of(int dim, unsigned seed) {
    test_rng r = {seed};
    int solved = 0;
    double worst = 0.0;
    for (int trial = 0; trial < 30; ++trial) {
        int n = 1 + trial % 4, m = dim * n;
        double *G = calloc((size_t)(m * m), sizeof(double)), *g = calloc(m, sizeof(double));
        double *mu = calloc(n, sizeof(double)), *l = calloc(m, sizeof(double));
        double *ref = calloc(m, sizeof(double));
        random_problem(&r, dim, n, trial % 3 == 2, G, g, mu);
        lucid_contact_problem p = {n, G, g, mu, NULL, dim};
        lucid_contact_workspace *ws = lucid_contact_workspace_create(m / 3 + 1);
        lucid_contact_options o = lucid_contact_default_options();
        o.solver = LUCID_CONTACT_IP, o.tol = 1e-9, o.max_iter = 200;
        lucid_contact_result res;
        o.model = LUCID_CONTACT_NCP;
        assert_int_equal(lucid_contact_solve(&p, &o, ws, l, NULL, &res), LUCID_OK);
        if (!res.converged) fail_msg("trial %d: ncp:ip criterion %.3g", trial, res.ncp.abs);
        assert_true(res.ncp.abs <= 1e-9 && res.iterations <= 60);
        o.model = LUCID_CONTACT_CCP;
        assert_int_equal(lucid_contact_solve(&p, &o, ws, l, NULL, &res), LUCID_OK);
        if (!res.converged)
            fail_msg("trial %d: ccp:ip criterion %.3g after %d (stalled %d)", trial, res.model.abs,
                     res.iterations, res.stalled);
        o.solver = LUCID_CONTACT_ADMM, o.tol = dim == 4 ? 1e-11 : 1e-10, o.max_iter = 20000;
        assert_int_equal(lucid_contact_solve(&p, &o, ws, ref, NULL, &res), LUCID_OK);
        if (!res.converged) fail_msg("dim %d trial %d: ccp:admm %.3g", dim, trial, res.model.abs);
        for (int k = 0; k < m; ++k) worst = fmax(worst, fabs(l[k] - ref[k]));
        for (int k = 0; k < m; ++k)
            if (!(fabs(l[k] - ref[k]) <= 1e-4 * fmax(1.0, fabs(ref[k]))))
                fail_msg("trial %d entry %d: ccp:ip %.17g, ccp:admm %.17g", trial, k, l[k], ref[k]);
        ++solved;
        lucid_contact_workspace_destroy(ws);
        free(G), free(g), free(mu), free(l), free(ref);
    }
    assert_int_equal(solved, 30);
    fprintf(stderr, "30 problems of dim %d: ccp:ip against ccp:admm within %.3g\n", dim, worst);
}

static void ip_solves_random_problems(void **state) {
    (void)state;
    ip_solves_random_problems_of(4, 77);
    ip_solves_random_problems_of(6, 78);
}

/* ccp:newton (tol 1e-10, its default compliance R = newton_compliance trace(G_ii) / dim) agrees
 * with ccp:admm on the same compliant problem (lucid_contact_newton_compliance's R, tol
 * 1e-10) within 1e-4 as ccp:ip above; ncp:staggered meets the NCP criterion at tol 1e-9;
 * random problems of 1-4 contacts of dims 4 and 6, a third of them with a ray. */
static void newton_and_staggered_of(int dim, unsigned seed) {
    test_rng r = {seed};
    double worst = 0.0;
    int newton_iterations = 0, staggered_iterations = 0;
    for (int trial = 0; trial < 30; ++trial) {
        int n = 1 + trial % 4, m = dim * n;
        double *G = calloc((size_t)(m * m), sizeof(double)), *g = calloc(m, sizeof(double));
        double *mu = calloc(n, sizeof(double)), *l = calloc(m, sizeof(double));
        double *ref = calloc(m, sizeof(double)), *R = calloc(m, sizeof(double));
        random_problem(&r, dim, n, trial % 3 == 2, G, g, mu);
        lucid_contact_problem p = {n, G, g, mu, NULL, dim};
        lucid_contact_workspace *ws = lucid_contact_workspace_create(m / 3 + 1);
        lucid_contact_options o = lucid_contact_default_options();
        lucid_contact_result res;
        o.model = LUCID_CONTACT_NCP, o.solver = LUCID_CONTACT_STAGGERED;
        o.tol = 1e-9, o.max_iter = 2000;
        assert_int_equal(lucid_contact_solve(&p, &o, ws, l, NULL, &res), LUCID_OK);
        if (!res.converged || !(res.ncp.abs <= 1e-9))
            fail_msg("dim %d trial %d: ncp:staggered criterion %.3g after %d", dim, trial,
                     res.ncp.abs, res.iterations);
        staggered_iterations =
            res.iterations > staggered_iterations ? res.iterations : staggered_iterations;
        o.model = LUCID_CONTACT_CCP, o.solver = LUCID_CONTACT_NEWTON;
        o.tol = 1e-10, o.max_iter = 200;
        assert_int_equal(lucid_contact_solve(&p, &o, ws, l, NULL, &res), LUCID_OK);
        if (!res.converged)
            fail_msg("dim %d trial %d: ccp:newton criterion %.3g after %d (stalled %d)", dim, trial,
                     res.model.abs, res.iterations, res.stalled);
        newton_iterations = res.iterations > newton_iterations ? res.iterations : newton_iterations;
        assert_int_equal(lucid_contact_newton_compliance(&p, o.newton_compliance, R, NULL),
                         LUCID_OK);
        lucid_contact_problem compliant = p;
        compliant.R = R;
        o.solver = LUCID_CONTACT_ADMM, o.tol = 1e-10, o.max_iter = 20000;
        assert_int_equal(lucid_contact_solve(&compliant, &o, ws, ref, NULL, &res), LUCID_OK);
        if (!res.converged) fail_msg("dim %d trial %d: ccp:admm %.3g", dim, trial, res.model.abs);
        for (int k = 0; k < m; ++k) worst = fmax(worst, fabs(l[k] - ref[k]));
        for (int k = 0; k < m; ++k)
            if (!(fabs(l[k] - ref[k]) <= 1e-4 * fmax(1.0, fabs(ref[k]))))
                fail_msg("dim %d trial %d entry %d: ccp:newton %.17g, ccp:admm %.17g", dim, trial,
                         k, l[k], ref[k]);
        lucid_contact_workspace_destroy(ws);
        free(G), free(g), free(mu), free(l), free(ref), free(R);
    }
    fprintf(stderr,
            "30 problems of dim %d: ccp:newton against ccp:admm within %.3g (at most %d "
            "iterations), ncp:staggered at most %d outer iterations\n",
            dim, worst, newton_iterations, staggered_iterations);
}

static void newton_and_staggered_solve_random_problems(void **state) {
    (void)state;
    newton_and_staggered_of(4, 81);
    newton_and_staggered_of(6, 82);
}

/* The relaxed derivatives (kappa > 0, contact_ip.h) of a dim 4 or 6 problem: the JVP in g and
 * in mu against central differences of ip at the same kappa (step 1e-5) to 1e-6 relative, and
 * the VJP its adjoint, both models, 1-3 contacts. */
static void relaxed_derivatives_of(int dim, unsigned seed) {
    test_rng r = {seed};
    for (int trial = 0; trial < 12; ++trial) {
        int n = 1 + trial % 3, m = dim * n;
        double *G = calloc((size_t)(m * m), sizeof(double)), *g = calloc(m, sizeof(double));
        double *mu = calloc(n, sizeof(double)), *l = calloc(m, sizeof(double));
        double *dg = calloc(m, sizeof(double)), *dmu = calloc(n, sizeof(double));
        double *jvp = calloc(m, sizeof(double)), *lp = calloc(m, sizeof(double));
        double *lm = calloc(m, sizeof(double)), *gp = calloc(m, sizeof(double));
        double *mup = calloc(n, sizeof(double)), *lbar = calloc(m, sizeof(double));
        double *gbar = calloc(m, sizeof(double)), *mubar = calloc(n, sizeof(double));
        random_problem(&r, dim, n, 0, G, g, mu);
        for (int k = 0; k < m; ++k) dg[k] = test_normal(&r), lbar[k] = test_normal(&r);
        for (int i = 0; i < n; ++i) dmu[i] = 0.1 * test_normal(&r);
        lucid_contact_problem p = {n, G, g, mu, NULL, dim};
        lucid_contact_workspace *ws = lucid_contact_workspace_create(m / 3 + 1);
        lucid_contact_workspace *fd_ws = lucid_contact_workspace_create(m / 3 + 1);
        lucid_contact_options o = lucid_contact_default_options();
        o.solver = LUCID_CONTACT_IP, o.tol = 1e-12, o.max_iter = 500;
        o.model = trial % 2 ? LUCID_CONTACT_NCP : LUCID_CONTACT_CCP;
        o.kappa = trial % 4 < 2 ? 1e-2 : 1e-4;
        lucid_contact_result res;
        assert_int_equal(lucid_contact_solve(&p, &o, ws, l, NULL, &res), LUCID_OK);
        if (!res.converged)
            fail_msg("trial %d: relaxed criterion %.3g after %d iterations (stalled %d)", trial,
                     res.model.abs, res.iterations, res.stalled);
        for (int dir = 0; dir < 2; ++dir) {
            const double *a = dir == 0 ? dg : NULL, *b = dir == 1 ? dmu : NULL;
            double *zero = lm; /* the JVP's dg when only mu moves */
            memset(zero, 0, sizeof(double) * (size_t)m);
            assert_int_equal(lucid_contact_ip_jvp(&p, ws, a ? a : zero, NULL, b, NULL, jvp),
                             LUCID_OK);
            double h = 1e-5, fd_max = 0.0, err = 0.0;
            for (int side = 0; side < 2; ++side) {
                double sg = side ? -h : h;
                for (int k = 0; k < m; ++k) gp[k] = g[k] + (a ? sg * a[k] : 0.0);
                for (int i = 0; i < n; ++i) mup[i] = mu[i] + (b ? sg * b[i] : 0.0);
                lucid_contact_problem q = {n, G, gp, mup, NULL, dim};
                assert_int_equal(lucid_contact_solve(&q, &o, fd_ws, side ? lm : lp, NULL, &res),
                                 LUCID_OK);
                if (!res.converged)
                    fail_msg("trial %d side %d: relaxed criterion %.3g", trial, side,
                             res.model.abs);
            }
            for (int k = 0; k < m; ++k) fd_max = fmax(fd_max, fabs(lp[k] - lm[k]) / (2.0 * h));
            for (int k = 0; k < m; ++k) err = fmax(err, fabs(jvp[k] - (lp[k] - lm[k]) / (2.0 * h)));
            if (!(err <= 1e-6 * fmax(fd_max, 1e-12)))
                fail_msg("trial %d direction %d: error %.3g of %.3g", trial, dir, err, fd_max);
        }
        /* VJP: <lbar, J (dg, dmu)> = <g_bar, dg> + <mu_bar, dmu> */
        assert_int_equal(lucid_contact_ip_vjp(&p, ws, lbar, gbar, NULL, mubar, NULL), LUCID_OK);
        assert_int_equal(lucid_contact_ip_jvp(&p, ws, dg, NULL, dmu, NULL, jvp), LUCID_OK);
        double lhs = 0.0, rhs = 0.0, scale = 0.0;
        for (int k = 0; k < m; ++k) lhs += lbar[k] * jvp[k], rhs += gbar[k] * dg[k];
        for (int i = 0; i < n; ++i) rhs += mubar[i] * dmu[i];
        for (int k = 0; k < m; ++k) scale += fabs(lbar[k] * jvp[k]);
        assert_true(fabs(lhs - rhs) <= 1e-10 * fmax(scale, 1.0));
        lucid_contact_workspace_destroy(ws), lucid_contact_workspace_destroy(fd_ws);
        free(G), free(g), free(mu), free(l), free(dg), free(dmu), free(jvp), free(lp), free(lm);
        free(gp), free(mup), free(lbar), free(gbar), free(mubar);
    }
}

static void relaxed_derivatives_of_dim4_and_6(void **state) {
    (void)state;
    relaxed_derivatives_of(4, 91);
    relaxed_derivatives_of(6, 92);
}

/* Every pair takes dim 4 (raisim:bisection too: its closed form here, test_contact_raisim_n.c
 * for the rest), with first_order too (the direction residual |lambda_T ^ sigma_T| over the
 * tangential rows: zero on the spinning, sliding answer, and a turned answer is not converged);
 * dims other than 3, 4, 6 are refused. */
static void every_pair_takes_it(void **state) {
    (void)state;
    const double g[4] = {0.0, 0.0, -1.0, 3.0}, spins[4] = {0.0, 0.0, 1.0, -0.5};
    double lambda[4];
    assert_int_equal(solve_one(4, LUCID_CONTACT_RAISIM, LUCID_CONTACT_BISECTION, 0.5, g, lambda),
                     LUCID_OK);
    near_n(4, lambda, spins, 1e-12);
    double mu = 0.5;
    lucid_contact_options o = lucid_contact_default_options();
    o.first_order = 1, o.tol = 1e-12, o.max_iter = 5000;
    lucid_contact_workspace *ws = lucid_contact_workspace_create(2);
    lucid_contact_result res;
    lucid_contact_problem p = {1, IDENTITY4, g, &mu, NULL, 4};
    assert_int_equal(lucid_contact_solve(&p, &o, ws, lambda, NULL, &res), LUCID_OK);
    printf("first_order dim 4: converged %d, %d iterations, model %.3g, lambda %.17g %.17g %.17g "
           "%.17g\n",
           res.converged, res.iterations, res.model.abs, lambda[0], lambda[1], lambda[2],
           lambda[3]);
    assert_true(res.converged);
    near_n(4, lambda, spins, 1e-9);
    double sigma[4], turned[4] = {1e-3, 0.0, 1.0, -0.5}; /* the spin's force turned into t1 */
    lucid_contact_velocity(&p, lambda, sigma);
    assert_true(lucid_contact_direction_residual(&p, lambda, sigma) <= 1e-12);
    lucid_contact_velocity(&p, turned, sigma);
    assert_true(lucid_contact_direction_residual(&p, turned, sigma) > 1e-4);
    lucid_contact_workspace_destroy(ws);
    p.dim = 5;
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
                    near_n(4, p, q, 1e-14);
                    for (int k = 0; k < 4; ++k) r[k] = p[k] - x[k]; /* -(x - P(x)) in K* */
                    assert_true(lucid_cone4_distance_dual(mu, r) <= 1e-14);
                    double dot = 0.0;
                    for (int k = 0; k < 4; ++k) dot += r[k] * p[k];
                    assert_true(fabs(dot) <= 1e-14);
                }
}

/* Contacts of dim 6 (rolling friction: (t1, t2, n, s, r1, r2)): the same closed form with five
 * tangential rows, by ncp:admm, ncp:pgs and ncp:ip (ccp where nothing slides) and
 * raisim:bisection. */
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
        assert_int_equal(
            solve_one(6, LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM, mu, cases[c].g, lambda), LUCID_OK);
        near_n(6, lambda, cases[c].lambda, 1e-9);
        assert_int_equal(solve_one(6, LUCID_CONTACT_NCP, LUCID_CONTACT_PGS, mu, cases[c].g, lambda),
                         LUCID_OK);
        near_n(6, lambda, cases[c].lambda, 1e-9);
        assert_int_equal(solve_one(6, LUCID_CONTACT_NCP, LUCID_CONTACT_IP, mu, cases[c].g, lambda),
                         LUCID_OK);
        near_n(6, lambda, cases[c].lambda, 1e-9);
        assert_int_equal(
            solve_one(6, LUCID_CONTACT_NCP, LUCID_CONTACT_NEWTON, mu, cases[c].g, lambda),
            LUCID_OK);
        near_n(6, lambda, cases[c].lambda, 1e-9);
        assert_int_equal(
            solve_one(6, LUCID_CONTACT_NCP, LUCID_CONTACT_STAGGERED, mu, cases[c].g, lambda),
            LUCID_OK);
        near_n(6, lambda, cases[c].lambda, 1e-9);
        if (c != 1) continue; /* the CCP lifts a sliding contact off */
        assert_int_equal(
            solve_one(6, LUCID_CONTACT_CCP, LUCID_CONTACT_ADMM, mu, cases[c].g, lambda), LUCID_OK);
        near_n(6, lambda, cases[c].lambda, 1e-9);
        assert_int_equal(solve_one(6, LUCID_CONTACT_CCP, LUCID_CONTACT_PGS, mu, cases[c].g, lambda),
                         LUCID_OK);
        near_n(6, lambda, cases[c].lambda, 1e-9);
        assert_int_equal(solve_one(6, LUCID_CONTACT_CCP, LUCID_CONTACT_IP, mu, cases[c].g, lambda),
                         LUCID_OK);
        near_n(6, lambda, cases[c].lambda, 1e-9);
        assert_int_equal(
            solve_one(6, LUCID_CONTACT_CCP, LUCID_CONTACT_NEWTON, mu, cases[c].g, lambda),
            LUCID_OK);
        near_n(6, lambda, cases[c].lambda, 1e-9);
    }
    const double g[6] = {0.0, 0.0, -1.0, 0.0, 3.0, 0.0}, rolls[6] = {0.0, 0.0, 1.0, 0.0, -0.5, 0.0};
    double lambda[6];
    assert_int_equal(solve_one(6, LUCID_CONTACT_RAISIM, LUCID_CONTACT_BISECTION, mu, g, lambda),
                     LUCID_OK);
    near_n(6, lambda, rolls, 1e-12);
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
        near_n(6, p, q, 1e-14);
        for (int k = 0; k < 6; ++k) r[k] = p[k] - x[k], dot += r[k] * p[k];
        assert_true(lucid_cone_n_distance_dual(6, mu, r) <= 1e-14);
        assert_true(fabs(dot) <= 1e-14);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(closed_form),
        cmocka_unit_test(every_pair_takes_it),
        cmocka_unit_test(ip_solves_random_problems),
        cmocka_unit_test(newton_and_staggered_solve_random_problems),
        cmocka_unit_test(relaxed_derivatives_of_dim4_and_6),
        cmocka_unit_test(cone4_projection_is_moreau),
        cmocka_unit_test(closed_form6),
        cmocka_unit_test(cone6_projection_is_moreau),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
