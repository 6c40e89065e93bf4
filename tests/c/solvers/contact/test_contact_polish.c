/* Active-set polishing (solvers/contact/contact_polish.h):
 * - random well-posed problems (G = J M^-1 J^T of full rank, mixed modes), NCP and CCP, of
 *   contacts of 3 rows and of 4 and 6 (torsional and rolling friction): from an early ADMM
 *   iterate whose mode guess is stable, the polish meets 1e-12 and lands on the answer ADMM
 *   reaches only after many more iterations (to 1e-7), in one or two Newton steps;
 * - a wrong guess (everything breaking, from lambda = 0) is refused and not tried again;
 * - hyperstatic sticking contacts (two contacts at one point: G singular) are polished by the
 *   minimum-norm step, which keeps the start's internal force (an LU would pick the split from
 *   round-off), and where that step leaves a force outside its cone, projected into the cones;
 * - an accepted answer whose friction is turned by 1e-8 rad (the criterion cannot see it) is
 *   polished onto the solution, and an accepted answer is due whatever earlier solves guessed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/c/common/test_contact_problems.h"

#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_criteria.h"
#include "solvers/contact/contact_polish.h"
#include "solvers/contact/contact_solver.h"

static double criterion(const lucid_contact_problem *p, lucid_contact_model model,
                        const double *lambda) {
    double *sigma = malloc(sizeof(double) * (size_t)lucid_contact_rows(p));
    assert_non_null(sigma);
    lucid_contact_velocity(p, lambda, sigma);
    lucid_contact_criteria c;
    lucid_contact_criteria_eval(p, lucid_contact_model_criterion(model), lambda, sigma, NULL, &c);
    free(sigma);
    return c.abs;
}

/* lambda after `iterations` of ADMM from zero (tol 0: it runs them all). */
static void admm(const lucid_contact_problem *p, lucid_contact_model model, int iterations,
                 double *lambda) {
    lucid_contact_workspace *ws = lucid_contact_workspace_create(2 * p->n); /* >= dim n / 3 */
    assert_non_null(ws);
    lucid_contact_options o = lucid_contact_default_options();
    o.model = model, o.solver = LUCID_CONTACT_ADMM, o.tol = 0.0, o.max_iter = iterations;
    lucid_contact_result r;
    assert_int_equal(lucid_contact_solve(p, &o, ws, lambda, NULL, &r), LUCID_OK);
    lucid_contact_workspace_destroy(ws);
}

/* The first ADMM iteration count (from 2, step 2) at which the polish is due and succeeds;
 * -1 when none up to `limit`. */
static int polished_at(lucid_contact_polisher *pl, const lucid_contact_problem *p,
                       lucid_contact_model model, int limit, double *out) {
    int m = (int)lucid_contact_rows(p);
    double *lambda = malloc(sizeof(double) * m), *sigma = malloc(sizeof(double) * m),
           *out_sigma = malloc(sizeof(double) * m);
    assert_non_null(lambda), assert_non_null(sigma), assert_non_null(out_sigma);
    lucid_contact_polisher_reset(pl);
    int found = -1;
    for (int k = 2; k <= limit && found < 0; k += 2) {
        admm(p, model, k, lambda);
        lucid_contact_velocity(p, lambda, sigma);
        if (!lucid_contact_polish_due(pl, p, model, lambda, sigma)) continue;
        lucid_contact_criteria c;
        if (lucid_contact_polish(pl, p, model, 1e-12, lambda, out, out_sigma, &c)) found = k;
    }
    free(lambda), free(sigma), free(out_sigma);
    return found;
}

/* A random problem of n contacts of dim rows (4 or 6), as test_random_problem's: G = J M^-1 J^T
 * with J (dim n x nv) Gaussian and M = B^T B + I (nv = 4 dim n), g's normals in [-1, 0.5], its
 * tangential rows Gaussian, mu in [0.1, 1]. */
static test_problem random_problem_of_dim(int dim, int n, uint64_t seed) {
    test_rng r = {seed * 0x9E3779B97F4A7C15ull + 7};
    int m = dim * n, nv = 4 * m;
    test_problem t;
    memset(&t, 0, sizeof t);
    t.G = calloc((size_t)m * m, sizeof(double)), t.g = calloc((size_t)m, sizeof(double));
    t.mu = calloc((size_t)n, sizeof(double));
    double *J = malloc(sizeof(double) * (size_t)m * nv), *B = malloc(sizeof(double) * nv * nv);
    double *Minv_Jt = malloc(sizeof(double) * (size_t)nv * m);
    assert_non_null(t.G), assert_non_null(t.g), assert_non_null(t.mu);
    assert_non_null(J), assert_non_null(B), assert_non_null(Minv_Jt);
    for (int a = 0; a < m * nv; ++a) J[a] = test_normal(&r);
    for (int a = 0; a < nv * nv; ++a) B[a] = test_normal(&r) / sqrt((double)nv);
    /* M = B^T B + I; M^-1 J^T by Cholesky-free Gauss-Jordan on the small SPD matrix */
    double *M = calloc((size_t)nv * nv, sizeof(double));
    assert_non_null(M);
    for (int i = 0; i < nv; ++i)
        for (int j = 0; j < nv; ++j) {
            double v = i == j ? 1.0 : 0.0;
            for (int k = 0; k < nv; ++k) v += B[k + nv * i] * B[k + nv * j];
            M[i + nv * j] = v;
        }
    for (int c = 0; c < m; ++c)
        for (int i = 0; i < nv; ++i) Minv_Jt[i + nv * c] = J[c + m * i];
    for (int k = 0; k < nv; ++k) { /* M SPD: no pivoting needed */
        double d = M[k + nv * k];
        for (int i = k + 1; i < nv; ++i) {
            double f = M[i + nv * k] / d;
            for (int j = k; j < nv; ++j) M[i + nv * j] -= f * M[k + nv * j];
            for (int c = 0; c < m; ++c) Minv_Jt[i + nv * c] -= f * Minv_Jt[k + nv * c];
        }
    }
    for (int c = 0; c < m; ++c)
        for (int i = nv - 1; i >= 0; --i) {
            double v = Minv_Jt[i + nv * c];
            for (int j = i + 1; j < nv; ++j) v -= M[i + nv * j] * Minv_Jt[j + nv * c];
            Minv_Jt[i + nv * c] = v / M[i + nv * i];
        }
    for (int a = 0; a < m; ++a)
        for (int b = 0; b < m; ++b) {
            double v = 0.0;
            for (int i = 0; i < nv; ++i) v += J[a + m * i] * Minv_Jt[i + nv * b];
            t.G[a + m * b] = v;
        }
    for (int a = 0; a < m; ++a) /* exactly symmetric */
        for (int b = 0; b < a; ++b) t.G[a + m * b] = t.G[b + m * a];
    for (int i = 0; i < n; ++i) {
        for (int a = 0; a < dim; ++a)
            if (a != 2) t.g[dim * i + a] = test_normal(&r);
        t.g[dim * i + 2] = -1.0 + 1.5 * test_uniform(&r);
        t.mu[i] = 0.1 + 0.9 * test_uniform(&r);
    }
    t.p = (lucid_contact_problem){n, t.G, t.g, t.mu, NULL, dim};
    free(J), free(B), free(M), free(Minv_Jt);
    return t;
}

/* Contacts of lambda pressing (lambda_N > 0) and slipping (|sigma_T| > 1e-9): the ones whose
 * rows are the nonlinear sliding ones. */
static int sliding_contacts(const lucid_contact_problem *p, const double *lambda) {
    int dim = lucid_contact_dim(p), count = 0;
    double *sigma = malloc(sizeof(double) * (size_t)lucid_contact_rows(p));
    assert_non_null(sigma);
    lucid_contact_velocity(p, lambda, sigma);
    for (int i = 0; i < p->n; ++i) {
        double slip = 0.0;
        for (int a = 0; a < dim; ++a)
            if (a != 2) slip += sigma[dim * i + a] * sigma[dim * i + a];
        count += lambda[dim * i + 2] > 0.0 && sqrt(slip) > 1e-9;
    }
    free(sigma);
    return count;
}

static void random_problems_polish_exactly(lucid_contact_model model, int dim) {
    int polished = 0, sliding = 0;
    for (uint64_t seed = 1; seed <= 12; ++seed) {
        test_problem t =
            dim == 3 ? test_random_problem(6, seed) : random_problem_of_dim(dim, 6, seed);
        lucid_contact_problem *p = &t.p;
        int m = (int)lucid_contact_rows(p);
        lucid_contact_polisher *pl = lucid_contact_polisher_create(m);
        assert_non_null(pl);
        assert_true(lucid_contact_polisher_fits(pl, p->n, dim));
        double *out = malloc(sizeof(double) * m), *ref = malloc(sizeof(double) * m);
        assert_non_null(out), assert_non_null(ref);
        int k = polished_at(pl, p, model, 60, out);
        admm(p, model, 5000, ref);
        double ref_crit = criterion(p, model, ref);
        if (k > 0) {
            double diff = 0.0, size = 0.0;
            for (int j = 0; j < m; ++j)
                diff = fmax(diff, fabs(out[j] - ref[j])), size = fmax(size, fabs(ref[j]));
            printf("%s dim %d seed %2llu: polished after %2d ADMM iterations to %.1e; ADMM after "
                   "5000: %.1e, |difference| %.1e of %.2f\n",
                   lucid_contact_model_name(model), dim, (unsigned long long)seed, k,
                   criterion(p, model, out), ref_crit, diff, size);
            assert_true(criterion(p, model, out) <= 1e-12);
            if (ref_crit <= 1e-9) assert_true(diff <= 1e-7 * fmax(size, 1.0));
            sliding += sliding_contacts(p, out);
            ++polished;
        } else {
            printf("%s dim %d seed %2llu: not polished within 60 iterations\n",
                   lucid_contact_model_name(model), dim, (unsigned long long)seed);
        }
        free(out), free(ref);
        lucid_contact_polisher_destroy(pl);
        test_problem_free(&t);
    }
    printf("%s dim %d: %d of 12 polished, %d sliding contacts among them\n",
           lucid_contact_model_name(model), dim, polished, sliding);
    assert_true(polished >= 9);       /* most of the 12: the guess settles early on these */
    assert_true(sliding >= polished); /* the sliding rows are exercised */
}

static void test_random_ncp(void **state) {
    (void)state;
    random_problems_polish_exactly(LUCID_CONTACT_NCP, 3);
}

static void test_random_ccp(void **state) {
    (void)state;
    random_problems_polish_exactly(LUCID_CONTACT_CCP, 3);
}

static void test_random_torsion_and_rolling(void **state) {
    (void)state;
    for (int dim = 4; dim <= 6; dim += 2) {
        random_problems_polish_exactly(LUCID_CONTACT_NCP, dim);
        random_problems_polish_exactly(LUCID_CONTACT_CCP, dim);
    }
}

static void test_wrong_guess_refused_once(void **state) {
    (void)state;
    test_problem t = test_random_problem(4, 7);
    lucid_contact_problem *p = &t.p;
    int m = 3 * p->n;
    double lambda[12] = {0}, sigma[12], out[12], out_sigma[12];
    lucid_contact_polisher *pl = lucid_contact_polisher_create(3 * p->n);
    assert_non_null(pl);
    lucid_contact_velocity(p, lambda, sigma);
    assert_false(lucid_contact_polish_due(pl, p, LUCID_CONTACT_NCP, lambda, sigma)); /* first */
    assert_true(lucid_contact_polish_due(pl, p, LUCID_CONTACT_NCP, lambda, sigma));
    lucid_contact_criteria c;
    /* every contact breaking: lambda = 0, whose criterion is that of g (some g_N < 0) */
    assert_false(lucid_contact_polish(pl, p, LUCID_CONTACT_NCP, 1e-6, lambda, out, out_sigma, &c));
    assert_true(c.abs > 1e-6);
    for (int k = 0; k < m; ++k) assert_true(out[k] == 0.0);
    assert_false(lucid_contact_polish_due(pl, p, LUCID_CONTACT_NCP, lambda, sigma)); /* failed */
    lucid_contact_polisher_destroy(pl);
    test_problem_free(&t);
}

/* n independent unit contacts (G = I) pressed with g_N = -1: every contact carries lambda_N = 1,
 * so a guess that breaks any of them fails. */
static test_problem pressed_unit_contacts(int n) {
    test_problem t = test_problem_alloc(n);
    int m = 3 * n;
    for (int k = 0; k < m; ++k) t.G[k + m * k] = 1.0;
    for (int i = 0; i < n; ++i) t.g[3 * i + 2] = -1.0, t.mu[i] = 0.5;
    return t;
}

/* The guess with contact `on` alone carrying its load (the others breaking): a wrong guess. */
static void one_contact_guess(int n, int on, double *lambda, double *sigma) {
    memset(lambda, 0, sizeof(double) * 3 * (size_t)n);
    lambda[3 * on + 2] = 1.0;
    for (int k = 0; k < 3 * n; ++k) sigma[k] = lambda[k] + (k % 3 == 2 ? -1.0 : 0.0);
}

/* After f failed attempts an attempt waits for the 2^f-th guess of the solve: a third and a
 * fourth wrong guess are still tried (a fixed budget of two failures refused them), the fifth
 * not before the 16th guess. */
static void test_failed_attempts_back_off(void **state) {
    (void)state;
    enum { N = 4 };
    test_problem t = pressed_unit_contacts(N);
    lucid_contact_problem *p = &t.p;
    double lambda[3 * N], sigma[3 * N], out[3 * N], out_sigma[3 * N];
    lucid_contact_criteria c;
    lucid_contact_polisher *pl = lucid_contact_polisher_create(3 * N);
    assert_non_null(pl);
    /* guesses 1-2: contact 0, attempted (1 <= 2) and failed; 3-4: contact 1 (2 <= 4); 5-6:
     * contact 2 (4 <= 6); 7-8: contact 3 (8 <= 8) */
    for (int f = 0; f < N; ++f) {
        one_contact_guess(N, f, lambda, sigma);
        assert_false(lucid_contact_polish_due(pl, p, LUCID_CONTACT_NCP, lambda, sigma));
        assert_true(lucid_contact_polisher_trying(pl, p->n, 3));
        assert_true(lucid_contact_polish_due(pl, p, LUCID_CONTACT_NCP, lambda, sigma));
        assert_false(
            lucid_contact_polish(pl, p, LUCID_CONTACT_NCP, 1e-6, lambda, out, out_sigma, &c));
    }
    /* four failures: the next attempt from the 16th guess on (guesses 9-15 wait) */
    one_contact_guess(N, 0, lambda, sigma);
    for (int look = 9; look < 16; ++look) {
        assert_false(lucid_contact_polisher_trying(pl, p->n, 3));
        assert_false(lucid_contact_polish_due(pl, p, LUCID_CONTACT_NCP, lambda, sigma));
    }
    assert_true(lucid_contact_polisher_trying(pl, p->n, 3));
    assert_true(lucid_contact_polish_due(pl, p, LUCID_CONTACT_NCP, lambda, sigma));
    lucid_contact_polisher_destroy(pl);
    test_problem_free(&t);
}

/* Two contacts at the same point of one body (G = [A A; A A], rank 3, so K is singular: only
 * the sum of their forces is determined) and, where asked, a third, separating contact on its
 * own (G = I, g_N = 100: it breaks, and it sets the velocity scale V the mode guess divides by).
 * Both pressed with g = (g_x, 0, -1). */
static test_problem shared_point_problem(int n, double g_x) {
    test_problem t = test_problem_alloc(n);
    int m = 3 * n;
    double A[9] = {2.0, 0.1, 0.0, 0.1, 1.5, 0.2, 0.0, 0.2, 1.0};
    for (int bi = 0; bi < 2; ++bi)
        for (int bj = 0; bj < 2; ++bj)
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) t.G[(3 * bi + i) + m * (3 * bj + j)] = A[i + 3 * j];
    for (int i = 0; i < 2; ++i) t.g[3 * i] = g_x, t.g[3 * i + 2] = -1.0, t.mu[i] = 0.8;
    if (n == 3) {
        for (int k = 6; k < 9; ++k) t.G[k + m * k] = 1.0;
        t.g[8] = 100.0, t.mu[2] = 0.8;
    }
    return t;
}

/* Polishes lambda (the guess due at the second look) at tol; returns whether it was
 * kept, out and its criterion. */
static int polish_twice(const lucid_contact_problem *p, const double *lambda, double *out,
                        lucid_contact_criteria *c, double tol) {
    double sigma[9], out_sigma[9];
    lucid_contact_velocity(p, lambda, sigma);
    lucid_contact_polisher *pl = lucid_contact_polisher_create(3 * p->n);
    assert_non_null(pl);
    lucid_contact_polish_due(pl, p, LUCID_CONTACT_NCP, lambda, sigma);
    assert_true(lucid_contact_polish_due(pl, p, LUCID_CONTACT_NCP, lambda, sigma));
    int ok = lucid_contact_polish(pl, p, LUCID_CONTACT_NCP, tol, lambda, out, out_sigma, c);
    lucid_contact_polisher_destroy(pl);
    return ok;
}

static void test_hyperstatic_sticking_keeps_internal_force(void **state) {
    (void)state;
    /* both stick; the minimum-norm step moves both forces by the same amount (orthogonal to
     * the null space (d, -d)), so their difference, the internal force, stays the start's */
    test_problem t = shared_point_problem(2, 0.0);
    double lambda[6] = {0, 0, 0.4, 0, 0, 0.6}, out[6];
    lucid_contact_criteria c;
    assert_true(polish_twice(&t.p, lambda, out, &c, 1e-12));
    assert_true(c.abs <= 1e-12);
    for (int k = 0; k < 3; ++k)
        assert_true(fabs((out[k] - out[3 + k]) - (lambda[k] - lambda[3 + k])) <= 1e-15);
    test_problem_free(&t);
}

static void test_hyperstatic_sticking_projected_into_cones(void **state) {
    (void)state;
    /* pushed along x: the sum S = A^-1 (0.5, 0, 1) has |S_T| = 0.30, S_N = 1.03. Contact 1
     * starts 1e-4 inside its cone's edge (normal 0.3), contact 2 carries the rest less 4e-4
     * along S_T: the minimum-norm step adds 2e-4 to each tangential force, which takes contact
     * 1 out of its cone by ~1e-4 (checked below); projections onto the cones and back onto the
     * solution set split the sum so that both stick, inside their cones to tol */
    test_problem t = shared_point_problem(3, -0.5);
    double S[3] = {0.5, 0.0, 1.0}, A[9] = {2.0, 0.1, 0.0, 0.1, 1.5, 0.2, 0.0, 0.2, 1.0};
    /* S = A^-1 (0.5, 0, 1) by Cramer's rule (A symmetric) */
    double det = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[3] * (A[1] * A[8] - A[2] * A[7]) +
                 A[6] * (A[1] * A[5] - A[2] * A[4]);
    double b[3] = {S[0], S[1], S[2]};
    for (int col = 0; col < 3; ++col) {
        double M[9];
        memcpy(M, A, sizeof M);
        for (int r = 0; r < 3; ++r) M[r + 3 * col] = b[r];
        S[col] = (M[0] * (M[4] * M[8] - M[5] * M[7]) - M[3] * (M[1] * M[8] - M[2] * M[7]) +
                  M[6] * (M[1] * M[5] - M[2] * M[4])) /
                 det;
    }
    double sT = hypot(S[0], S[1]), dir[2] = {S[0] / sT, S[1] / sT};
    double edge = 0.8 * 0.3 - 1e-4, tol = 1e-6;
    double lambda[9] = {edge * dir[0], edge * dir[1], 0.3, 0, 0, 0, 0, 0, 0}, out[9];
    for (int k = 0; k < 2; ++k) lambda[3 + k] = S[k] - lambda[k] - 4e-4 * dir[k];
    lambda[5] = S[2] - 0.3;
    double newton_only[3] = {lambda[0] + 2e-4 * dir[0], lambda[1] + 2e-4 * dir[1], lambda[2]};
    assert_true(lucid_cone_distance(0.8, newton_only) > 50 * tol); /* the step alone fails */
    lucid_contact_criteria c;
    assert_true(polish_twice(&t.p, lambda, out, &c, tol));
    assert_true(c.abs <= tol);
    for (int i = 0; i < 2; ++i) /* inside their cones, and their sum the determined one */
        assert_true(lucid_cone_distance(0.8, out + 3 * i) <= tol);
    for (int k = 0; k < 3; ++k) assert_true(fabs(out[k] + out[3 + k] - S[k]) <= 1e-12);
    for (int k = 6; k < 9; ++k) assert_true(out[k] == 0.0); /* the third breaks */
    test_problem_free(&t);
}

/* The criterion's blind spot: one contact sliding along x on G = I (g = (1, 0, -1), mu = 0.5;
 * the solution is lambda = (-0.5, 0, 1)). A friction force turned by 1e-8 rad meets tol 1e-12
 * (its criterion moves with the angle squared), so a solver would accept it; polished as an
 * accepted answer (at once, no second look), it lands on the solution to round-off. */
static void test_accepted_answer_turned_onto_the_solution(void **state) {
    (void)state;
    test_problem t = test_problem_alloc(1);
    lucid_contact_problem *p = &t.p;
    t.G[0] = t.G[4] = t.G[8] = 1.0, t.mu[0] = 0.5;
    t.g[0] = 1.0, t.g[2] = -1.0;
    double theta = 1e-8, mu = 0.5;
    double lambda[3] = {-mu * cos(theta), -mu * sin(theta), 1.0}, sigma[3], out[3], out_sigma[3];
    assert_true(criterion(p, LUCID_CONTACT_NCP, lambda) <= 1e-12); /* blind to the turn */
    lucid_contact_velocity(p, lambda, sigma);
    lucid_contact_polisher *pl = lucid_contact_polisher_create(3);
    assert_non_null(pl);
    assert_false(lucid_contact_polish_due(pl, p, LUCID_CONTACT_NCP, lambda, sigma)); /* 1st look */
    lucid_contact_polisher_reset(pl);
    assert_true(lucid_contact_polish_accepted_due(pl, p, LUCID_CONTACT_NCP, lambda, sigma));
    lucid_contact_criteria c;
    assert_true(lucid_contact_polish(pl, p, LUCID_CONTACT_NCP, 1e-12, lambda, out, out_sigma, &c));
    printf("turned by %.1e rad: polished lambda_T = (%.17g, %.3g), lambda_N = %.17g\n", theta,
           out[0], out[1], out[2]);
    assert_true(fabs(out[0] + mu) <= 1e-15 && fabs(out[1]) <= 1e-15 && fabs(out[2] - 1.0) <= 1e-15);
    lucid_contact_polisher_destroy(pl);
    test_problem_free(&t);
}

/* An accepted answer is due at once whatever an earlier solve guessed: the previous solve's
 * look at lambda = 0 (every contact breaking) must not decide (the world solves from a state
 * set twice must take the same attempts, test_world_model's round trip). */
static void test_accepted_due_ignores_earlier_guesses(void **state) {
    (void)state;
    test_problem t = test_problem_alloc(1);
    lucid_contact_problem *p = &t.p;
    t.G[0] = t.G[4] = t.G[8] = 1.0, t.mu[0] = 0.5;
    t.g[0] = 1.0, t.g[2] = -1.0;
    double zero[3] = {0, 0, 0}, lambda[3] = {-0.5, 0.0, 1.0}, sigma[3];
    lucid_contact_polisher *pl = lucid_contact_polisher_create(3);
    assert_non_null(pl);
    lucid_contact_velocity(p, zero, sigma);
    assert_false(lucid_contact_polish_due(pl, p, LUCID_CONTACT_NCP, zero, sigma)); /* breaking */
    lucid_contact_polisher_reset(pl); /* the next solve */
    lucid_contact_velocity(p, lambda, sigma);
    assert_true(lucid_contact_polish_accepted_due(pl, p, LUCID_CONTACT_NCP, lambda, sigma));
    lucid_contact_polisher_destroy(pl);
    test_problem_free(&t);
}

static void test_sizes(void **state) {
    (void)state;
    assert_null(lucid_contact_polisher_create(-1));
    lucid_contact_polisher *pl = lucid_contact_polisher_create(1000);
    assert_non_null(pl);
    for (int dim = 3; dim <= 6; ++dim) { /* the bound is in rows */
        int most = LUCID_CONTACT_POLISH_MAX_ROWS / dim;
        assert_int_equal(lucid_contact_polisher_fits(pl, most, dim), dim != 5);
        assert_false(lucid_contact_polisher_fits(pl, most + 1, dim));
    }
    assert_false(lucid_contact_polisher_fits(NULL, 1, 3));
    lucid_contact_polisher_destroy(pl);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_ncp),
        cmocka_unit_test(test_random_ccp),
        cmocka_unit_test(test_random_torsion_and_rolling),
        cmocka_unit_test(test_wrong_guess_refused_once),
        cmocka_unit_test(test_failed_attempts_back_off),
        cmocka_unit_test(test_hyperstatic_sticking_keeps_internal_force),
        cmocka_unit_test(test_hyperstatic_sticking_projected_into_cones),
        cmocka_unit_test(test_accepted_answer_turned_onto_the_solution),
        cmocka_unit_test(test_accepted_due_ignores_earlier_guesses),
        cmocka_unit_test(test_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
