/* Active-set polishing (solvers/contact/contact_polish.h):
 * - random well-posed problems (G = J M^-1 J^T of full rank, mixed modes), NCP and CCP: from an
 *   early ADMM iterate whose mode guess is stable, the polish meets 1e-12 and lands on the
 *   answer ADMM reaches only after many more iterations (to 1e-7), in one or two Newton steps;
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

#include "test_contact_problems.h"

#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_criteria.h"
#include "solvers/contact/contact_polish.h"
#include "solvers/contact/contact_solver.h"

static double criterion(const lucid_contact_problem *p, lucid_contact_model model,
                        const double *lambda) {
    double *sigma = malloc(sizeof(double) * 3 * (size_t)p->n);
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
    lucid_contact_workspace *ws = lucid_contact_workspace_create(p->n);
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
    int m = 3 * p->n;
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

static void random_problems_polish_exactly(lucid_contact_model model) {
    int polished = 0;
    for (uint64_t seed = 1; seed <= 12; ++seed) {
        test_problem t = test_random_problem(6, seed);
        lucid_contact_problem *p = &t.p;
        int m = 3 * p->n;
        lucid_contact_polisher *pl = lucid_contact_polisher_create(p->n);
        assert_non_null(pl);
        assert_true(lucid_contact_polisher_fits(pl, p->n));
        double *out = malloc(sizeof(double) * m), *ref = malloc(sizeof(double) * m);
        assert_non_null(out), assert_non_null(ref);
        int k = polished_at(pl, p, model, 60, out);
        admm(p, model, 5000, ref);
        double ref_crit = criterion(p, model, ref);
        if (k > 0) {
            double diff = 0.0, size = 0.0;
            for (int j = 0; j < m; ++j)
                diff = fmax(diff, fabs(out[j] - ref[j])), size = fmax(size, fabs(ref[j]));
            printf("%s seed %2llu: polished after %2d ADMM iterations to %.1e; ADMM after 5000: "
                   "%.1e, |difference| %.1e of %.2f\n",
                   lucid_contact_model_name(model), (unsigned long long)seed, k,
                   criterion(p, model, out), ref_crit, diff, size);
            assert_true(criterion(p, model, out) <= 1e-12);
            if (ref_crit <= 1e-9) assert_true(diff <= 1e-7 * fmax(size, 1.0));
            ++polished;
        } else {
            printf("%s seed %2llu: not polished within 60 iterations\n",
                   lucid_contact_model_name(model), (unsigned long long)seed);
        }
        free(out), free(ref);
        lucid_contact_polisher_destroy(pl);
        test_problem_free(&t);
    }
    assert_true(polished >= 9); /* most of the 12: the guess settles early on these */
}

static void test_random_ncp(void **state) {
    (void)state;
    random_problems_polish_exactly(LUCID_CONTACT_NCP);
}

static void test_random_ccp(void **state) {
    (void)state;
    random_problems_polish_exactly(LUCID_CONTACT_CCP);
}

static void test_wrong_guess_refused_once(void **state) {
    (void)state;
    test_problem t = test_random_problem(4, 7);
    lucid_contact_problem *p = &t.p;
    int m = 3 * p->n;
    double lambda[12] = {0}, sigma[12], out[12], out_sigma[12];
    lucid_contact_polisher *pl = lucid_contact_polisher_create(p->n);
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
    lucid_contact_polisher *pl = lucid_contact_polisher_create(p->n);
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
    lucid_contact_polisher *pl = lucid_contact_polisher_create(1);
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
    lucid_contact_polisher *pl = lucid_contact_polisher_create(1);
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
    assert_true(lucid_contact_polisher_fits(pl, LUCID_CONTACT_POLISH_MAX_CONTACTS));
    assert_false(lucid_contact_polisher_fits(pl, LUCID_CONTACT_POLISH_MAX_CONTACTS + 1));
    assert_false(lucid_contact_polisher_fits(NULL, 1));
    lucid_contact_polisher_destroy(pl);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_ncp),
        cmocka_unit_test(test_random_ccp),
        cmocka_unit_test(test_wrong_guess_refused_once),
        cmocka_unit_test(test_hyperstatic_sticking_keeps_internal_force),
        cmocka_unit_test(test_hyperstatic_sticking_projected_into_cones),
        cmocka_unit_test(test_accepted_answer_turned_onto_the_solution),
        cmocka_unit_test(test_accepted_due_ignores_earlier_guesses),
        cmocka_unit_test(test_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
