/* raisim:bisection's sliding problem (23), a quadratic over the cone cut by the plane of zero
 * normal velocity, solved by lucid_contact_section_minimise (contact_section.h) at every dim:
 * 3, 4 (torsional friction) and 6 (rolling friction). Checked: closed forms with G = I (where
 * RaiSim's model is the NCP's); a dim-4 problem with an idle decoupled spin row solves as its
 * dim-3 part; on random anisotropic coupled blocks of dims 3 (4000, a few hundred of them of
 * unbounded section, where the angle bisection it replaced bracketed the wrong minimum), 4 and
 * 6 the answer meets (23)'s optimality conditions (on the cone, zero normal velocity, and Eq.
 * 24: the sliding velocity against l_T + mu^2 l_N A_TN / A_NN); on random multi-contact
 * problems whose diagonal blocks do not couple normal and tangential rows (there RaiSim's fixed
 * point is an NCP solution, Eq. 24 with A_TN = 0) it meets the NCP criterion that ncp:ip meets;
 * first_order (which judges the NCP and CCP's friction directions only) changes nothing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_section.h"
#include "solvers/contact/contact_solver.h"
#include "tests/c/common/test_contact_problems.h"

static const int TANGENT[5] = {0, 1, 3, 4, 5};

/* raisim:bisection on one contact of dim rows with block A (dim x dim) and free velocity g. */
static lucid_status solve_one(int dim, const double *A, double mu, const double *g, double *lambda,
                              lucid_contact_result *res) {
    lucid_contact_problem p = {1, A, g, &mu, NULL, dim};
    lucid_contact_options o = lucid_contact_default_options();
    o.model = LUCID_CONTACT_RAISIM, o.solver = LUCID_CONTACT_BISECTION;
    o.tol = 1e-13, o.max_iter = 50;
    lucid_contact_workspace *ws = lucid_contact_workspace_create(2);
    assert_non_null(ws);
    lucid_status s = lucid_contact_solve(&p, &o, ws, lambda, NULL, res);
    lucid_contact_workspace_destroy(ws);
    return s;
}

static void near_n(int n, const double *a, const double *b, double tol) {
    for (int k = 0; k < n; ++k)
        if (!(fabs(a[k] - b[k]) <= tol)) fail_msg("entry %d: %.17g, expected %.17g", k, a[k], b[k]);
}

static void identity(int dim, double *G) {
    memset(G, 0, sizeof(double) * (size_t)(dim * dim));
    for (int k = 0; k < dim; ++k) G[k * (dim + 1)] = 1.0;
}

/* With G = I the velocity is lambda + g: the normal cancels g_n < 0; the friction sticks
 * (lambda_T = -g_T) within mu lambda_n, else slides against g_T at that radius. */
static void closed_form_identity(void **state) {
    (void)state;
    const double mu = 0.5;
    const struct {
        int dim;
        double g[6], lambda[6];
    } cases[] = {
        {4, {0.0, 0.0, -1.0, 3.0}, {0.0, 0.0, 1.0, -0.5}},  /* spins: torque at its bound */
        {4, {0.0, 0.0, -1.0, 0.3}, {0.0, 0.0, 1.0, -0.3}},  /* sticks */
        {4, {0.6, 0.0, -1.0, 0.8}, {-0.3, 0.0, 1.0, -0.4}}, /* slides and spins, one cone */
        {4, {0.6, 0.0, 1.0, 0.8}, {0.0, 0.0, 0.0, 0.0}},    /* separating */
        {6, {0.0, 0.0, -1.0, 0.0, 3.0, 0.0}, {0.0, 0.0, 1.0, 0.0, -0.5, 0.0}},    /* rolls */
        {6, {0.1, 0.0, -1.0, 0.2, 0.1, -0.2}, {-0.1, 0.0, 1.0, -0.2, -0.1, 0.2}}, /* sticks */
        {6, {0.6, 0.0, -1.0, 0.0, 0.0, 0.8}, {-0.3, 0.0, 1.0, 0.0, 0.0, -0.4}},   /* all slide */
        {6, {0.0, 0.0, 1.0, 0.5, 0.5, 0.5}, {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}},      /* separating */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        double G[36], lambda[6];
        lucid_contact_result res;
        identity(cases[c].dim, G);
        assert_int_equal(solve_one(cases[c].dim, G, mu, cases[c].g, lambda, &res), LUCID_OK);
        assert_true(res.converged);
        near_n(cases[c].dim, lambda, cases[c].lambda, 1e-14);
        assert_true(res.ncp.abs <= 1e-14);
    }
}

/* A random definite block of dim rows, J J^T / (dim + 2) with J Gaussian: anisotropic and
 * coupled (A_TN != 0). */
static void random_block(test_rng *r, int dim, double *A) {
    int k = dim + 2;
    double J[6 * 8];
    for (int a = 0; a < dim * k; ++a) J[a] = test_normal(r);
    for (int i = 0; i < dim; ++i)
        for (int j = 0; j < dim; ++j) {
            double v = 0.0;
            for (int c = 0; c < k; ++c) v += J[i + dim * c] * J[j + dim * c];
            A[i + dim * j] = v / k;
        }
}

/* A free velocity pressing (g_n in [-1, -0.1]) and sliding hard (tangential entries of 3). */
static void sliding_velocity(test_rng *r, int dim, double *g) {
    for (int a = 0; a < dim; ++a) g[a] = 3.0 * test_normal(r);
    g[2] = -0.1 - 0.9 * test_uniform(r);
}

/* A dim-4 problem whose spin row is decoupled and idle (g_s = 0) is its dim-3 problem with
 * lambda_s = 0: the dim-4 map (eigen-decomposed stiction guess) gives the dim-3 map's answer
 * (the 3 x 3 inverse) on random coupled blocks, sliding or sticking. */
static void idle_spin_row_solves_as_dim3(void **state) {
    (void)state;
    test_rng r = {2024};
    int sliding = 0;
    for (int trial = 0; trial < 200; ++trial) {
        double A[9], g[3], l3[3], A4[16] = {0}, g4[4], l4[4], mu = 0.2 + test_uniform(&r);
        lucid_contact_result res;
        random_block(&r, 3, A);
        sliding_velocity(&r, 3, g);
        assert_int_equal(solve_one(3, A, mu, g, l3, &res), LUCID_OK);
        sliding += lucid_cone_n_tangent_norm(3, l3) >= mu * l3[2] * (1.0 - 1e-12);
        for (int b = 0; b < 3; ++b)
            for (int a = 0; a < 3; ++a) A4[a + 4 * b] = A[a + 3 * b];
        A4[15] = 0.7, g4[0] = g[0], g4[1] = g[1], g4[2] = g[2], g4[3] = 0.0;
        assert_int_equal(solve_one(4, A4, mu, g4, l4, &res), LUCID_OK);
        assert_true(res.converged);
        assert_true(l4[3] == 0.0);
        near_n(3, l4, l3, 1e-9 * (1.0 + fabs(l3[2])));
    }
    assert_true(sliding >= 100);
}

/* (23)'s optimality on random coupled anisotropic blocks of dim rows: the sliding answer lies
 * on the cone (||l_T|| = mu l_N), has zero normal velocity, and its tangential velocity v_T is
 * a non-positive multiple of w = l_T + mu^2 l_N A_TN / A_NN (Eq. 24, the KKT conditions of a
 * convex problem: they prove it the minimiser). Sticking answers have v = 0 inside the cone.
 * Counted: sliding answers on an unbounded section (mu ||A_TN|| >= A_NN). */
static void sliding_meets_the_optimality_conditions_of(int dim, unsigned seed, int trials,
                                                       int *unbounded) {
    test_rng r = {seed};
    int sliding = 0;
    double worst = 0.0;
    *unbounded = 0;
    for (int trial = 0; trial < trials; ++trial) {
        double A[36], g[6], l[6], v[6], mu = 0.2 + test_uniform(&r);
        lucid_contact_result res;
        random_block(&r, dim, A);
        sliding_velocity(&r, dim, g);
        assert_int_equal(solve_one(dim, A, mu, g, l, &res), LUCID_OK);
        double size = 1.0; /* the fixed point to the round-off of lambda (up to ~4e3 here) */
        for (int a = 0; a < dim; ++a) size = fmax(size, fabs(l[a]));
        if (!(res.model.abs <= 1e-11 * size))
            fail_msg("dim %d trial %d: fixed point %.3g at |lambda| %.3g", dim, trial,
                     res.model.abs, size);
        double scale = 0.0;
        for (int a = 0; a < dim; ++a) {
            v[a] = g[a];
            for (int b = 0; b < dim; ++b) v[a] += A[a + dim * b] * l[b];
            scale = fmax(scale, fabs(g[a]));
        }
        double lt = lucid_cone_n_tangent_norm(dim, l), vt = lucid_cone_n_tangent_norm(dim, v);
        if (lt < mu * l[2] * (1.0 - 1e-12)) { /* sticking */
            for (int a = 0; a < dim; ++a)
                if (!(fabs(v[a]) <= 1e-12 * scale))
                    fail_msg("dim %d trial %d: sticking velocity %.3g of %.3g, |lambda| %.3g", dim,
                             trial, fabs(v[a]), scale, size);
            continue;
        }
        ++sliding;
        double atn = 0.0;
        for (int j = 0; j < dim - 1; ++j) atn = hypot(atn, A[TANGENT[j] + dim * 2]);
        *unbounded += mu * atn >= A[2 + 2 * dim];
        assert_true(fabs(lt - mu * l[2]) <= 1e-12 * lt);
        assert_true(fabs(v[2]) <= 1e-12 * scale);
        double w[5], wn = 0.0, dot = 0.0, ann = A[2 + 2 * dim];
        for (int j = 0; j < dim - 1; ++j) {
            int t = TANGENT[j];
            w[j] = l[t] + mu * mu * l[2] * A[t + dim * 2] / ann;
            wn = hypot(wn, w[j]), dot += v[t] * w[j];
        }
        assert_true(dot <= 0.0);
        double off = 0.0; /* v_T's part across w */
        for (int j = 0; j < dim - 1; ++j) off = hypot(off, v[TANGENT[j]] - dot * w[j] / (wn * wn));
        worst = fmax(worst, off / vt);
        if (!(off <= 1e-9 * vt))
            fail_msg("dim %d trial %d: v_T off Eq. 24 by %.3g", dim, trial, off / vt);
    }
    fprintf(stderr,
            "dim %d: %d sliding of %d (%d on an unbounded section), v_T off Eq. 24 by at most "
            "%.3g (relative)\n",
            dim, sliding, trials, *unbounded, worst);
    assert_true(sliding >= trials / 2);
}

/* Dim 3 over many blocks: an unbounded section, or a boundary along which f has two local
 * minima, once made the angle scan bracket a minimum that is not the global one. */
static void sliding_meets_the_optimality_conditions(void **state) {
    (void)state;
    int unbounded;
    sliding_meets_the_optimality_conditions_of(3, 2024, 4000, &unbounded);
    assert_true(unbounded >= 200);
    sliding_meets_the_optimality_conditions_of(4, 41, 200, &unbounded);
    sliding_meets_the_optimality_conditions_of(6, 61, 200, &unbounded);
}

/* A random problem of n contacts of dim rows, G = C C^T / k (C: dim n x k, k = dim n + 2,
 * Gaussian) with each contact's normal row of C made orthogonal to its own tangential rows, so
 * that every diagonal block has A_TN = 0 and anisotropic A_TT while contacts couple; g's
 * tangential rows Gaussian, normals in [-1, 0.5], mu in [0.1, 1]. */
static void decoupled_problem(test_rng *r, int dim, int n, double *G, double *g, double *mu) {
    int m = dim * n, k = m + 2;
    double *C = malloc(sizeof(double) * (size_t)(m * k)), Q[5][64];
    for (int a = 0; a < m * k; ++a) C[a] = test_normal(r);
    for (int i = 0; i < n; ++i) { /* Gram-Schmidt of the tangential rows, then the normal's */
        int nq = 0;
        for (int j = 0; j < dim - 1; ++j) {
            double *q = Q[nq], norm = 0.0;
            for (int c = 0; c < k; ++c) q[c] = C[dim * i + TANGENT[j] + m * c];
            for (int p = 0; p < nq; ++p) {
                double d = 0.0;
                for (int c = 0; c < k; ++c) d += Q[p][c] * q[c];
                for (int c = 0; c < k; ++c) q[c] -= d * Q[p][c];
            }
            for (int c = 0; c < k; ++c) norm = hypot(norm, q[c]);
            for (int c = 0; c < k; ++c) q[c] /= norm;
            ++nq;
        }
        for (int p = 0; p < nq; ++p) {
            double d = 0.0;
            for (int c = 0; c < k; ++c) d += Q[p][c] * C[dim * i + 2 + m * c];
            for (int c = 0; c < k; ++c) C[dim * i + 2 + m * c] -= d * Q[p][c];
        }
    }
    for (int i = 0; i < m; ++i)
        for (int j = 0; j <= i; ++j) {
            double v = 0.0;
            for (int c = 0; c < k; ++c) v += C[i + m * c] * C[j + m * c];
            G[i + m * j] = G[j + m * i] = v / k;
        }
    for (int i = 0; i < n; ++i) {
        for (int a = 0; a < dim; ++a)
            if (a != 2) g[dim * i + a] = test_normal(r);
        g[dim * i + 2] = -1.0 + 1.5 * test_uniform(r);
        mu[i] = 0.1 + 0.9 * test_uniform(r);
    }
    free(C);
}

/* On problems whose diagonal blocks have A_TN = 0, RaiSim's fixed point is an NCP solution:
 * raisim:bisection meets the NCP criterion at 1e-9, as ncp:ip does on the same problem. */
static void decoupled_problems_of(int dim, unsigned seed) {
    test_rng r = {seed};
    int most = 0;
    for (int trial = 0; trial < 30; ++trial) {
        int n = 1 + trial % 4, m = dim * n;
        double *G = calloc((size_t)(m * m), sizeof(double)), *g = calloc(m, sizeof(double));
        double *mu = calloc(n, sizeof(double)), *l = calloc(m, sizeof(double));
        decoupled_problem(&r, dim, n, G, g, mu);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < dim - 1; ++j)
                assert_true(fabs(G[dim * i + 2 + m * (dim * i + TANGENT[j])]) <= 1e-14);
        lucid_contact_problem p = {n, G, g, mu, NULL, dim};
        lucid_contact_workspace *ws = lucid_contact_workspace_create(m / 3 + 1);
        lucid_contact_options o = lucid_contact_default_options();
        o.model = LUCID_CONTACT_NCP, o.solver = LUCID_CONTACT_IP, o.tol = 1e-9, o.max_iter = 200;
        lucid_contact_result res;
        assert_int_equal(lucid_contact_solve(&p, &o, ws, l, NULL, &res), LUCID_OK);
        if (!res.converged) fail_msg("dim %d trial %d: ncp:ip %.3g", dim, trial, res.ncp.abs);
        o.model = LUCID_CONTACT_RAISIM, o.solver = LUCID_CONTACT_BISECTION;
        o.tol = 1e-11, o.max_iter = 5000;
        assert_int_equal(lucid_contact_solve(&p, &o, ws, l, NULL, &res), LUCID_OK);
        if (!res.converged || !(res.ncp.abs <= 1e-9))
            fail_msg("dim %d trial %d: raisim:bisection fixed point %.3g, NCP %.3g after %d", dim,
                     trial, res.model.abs, res.ncp.abs, res.iterations);
        most = res.iterations > most ? res.iterations : most;
        lucid_contact_workspace_destroy(ws);
        free(G), free(g), free(mu), free(l);
    }
    fprintf(stderr, "30 problems of dim %d: raisim:bisection meets NCP 1e-9 in at most %d sweeps\n",
            dim, most);
}

static void decoupled_problems_meet_the_ncp(void **state) {
    (void)state;
    decoupled_problems_of(4, 5);
    decoupled_problems_of(6, 6);
}

/* first_order judges the NCP's and the CCP's friction directions: raisim:bisection's answer at
 * dims 4 and 6 is the same with it. */
static void first_order_leaves_raisim_as_it_is(void **state) {
    (void)state;
    double G[36], g[6] = {0.0, 0.0, -1.0, 0.0, 3.0, 0.0}, lambda[6], mu = 0.5;
    lucid_contact_workspace *ws = lucid_contact_workspace_create(2);
    for (int dim = 4; dim <= 6; dim += 2) {
        identity(dim, G);
        lucid_contact_problem p = {1, G, g, &mu, NULL, dim};
        lucid_contact_options o = lucid_contact_default_options();
        o.model = LUCID_CONTACT_RAISIM, o.solver = LUCID_CONTACT_BISECTION;
        lucid_contact_result res;
        double plain[6];
        assert_int_equal(lucid_contact_solve(&p, &o, ws, plain, NULL, &res), LUCID_OK);
        o.first_order = 1;
        assert_int_equal(lucid_contact_solve(&p, &o, ws, lambda, NULL, &res), LUCID_OK);
        for (int k = 0; k < dim; ++k) assert_true(lambda[k] == plain[k]);
    }
    lucid_contact_workspace_destroy(ws);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(closed_form_identity),
        cmocka_unit_test(idle_spin_row_solves_as_dim3),
        cmocka_unit_test(sliding_meets_the_optimality_conditions),
        cmocka_unit_test(decoupled_problems_meet_the_ncp),
        cmocka_unit_test(first_order_leaves_raisim_as_it_is),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
