/* lucid_contact_delassus_is_psd (solvers/contact/contact_psd.h): indefinite matrices are
 * refused, PSD ones accepted, rank-deficient and zero-row ones included, at any scale, and the
 * friction direction residual (contact_direction.h) is first order in the angle. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "solvers/contact/contact_direction.h"
#include "solvers/contact/contact_psd.h"

/* G = s J J^T (+ shift I) for a 3n x k J of a fixed pseudo-random sequence. */
static void gram(int n, int k, double s, double shift, unsigned seed, double *G) {
    int m = 3 * n;
    double J[6 * 6];
    for (int i = 0; i < m * k; ++i) {
        seed = seed * 1103515245u + 12345u;
        J[i] = (double)((seed >> 8) % 2001) / 1000.0 - 1.0;
    }
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) {
            double sum = 0.0;
            for (int l = 0; l < k; ++l) sum += J[i + m * l] * J[j + m * l];
            G[i + m * j] = s * sum + (i == j ? shift : 0.0);
        }
}

static int psd(int n, const double *G, const double *R) {
    double g[6] = {0}, mu[2] = {0.5, 0.5}, work[36];
    lucid_contact_problem p = {n, G, g, mu, R, 3};
    return lucid_contact_delassus_is_psd(&p, work);
}

static void the_issue_example_is_refused(void **state) {
    (void)state;
    const double G[9] = {1, 2, 0, 2, 1, 0, 0, 0, 1}; /* eigenvalues 3, 1, -1 */
    assert_false(psd(1, G, NULL));
    const double R[3] = {1.0 + 1e-12, 1.0 + 1e-12, 0.0}; /* G + R: eigenvalue 1e-12 > 0 */
    assert_true(psd(1, G, R));
}

static void rank_deficient_gram_matrices_are_accepted_at_any_scale(void **state) {
    (void)state;
    double G[36];
    for (unsigned seed = 1; seed <= 200; ++seed)
        for (int e = -300; e <= 300; e += 100) {
            gram(2, 2 + (int)(seed % 4), pow(10.0, e), 0.0, seed, G); /* rank 2..5 of 6 */
            assert_true(psd(2, G, NULL));
        }
}

static void a_negative_eigenvalue_beyond_round_off_is_refused(void **state) {
    (void)state;
    double G[36];
    for (unsigned seed = 1; seed <= 200; ++seed) {
        /* J J^T of rank 3 minus 1e-9 I: eigenvalues -1e-9 on the null space */
        gram(2, 3, 1.0, -1e-9, seed, G);
        assert_false(psd(2, G, NULL));
    }
}

static void a_zero_row_is_accepted_and_a_zero_diagonal_with_coupling_refused(void **state) {
    (void)state;
    double G[9] = {1, 0, 0.5, 0, 0, 0, 0.5, 0, 1}; /* row 2: a direction nothing moves */
    assert_true(psd(1, G, NULL));
    G[1] = G[3] = 1e-300; /* zero diagonal, non-zero coupling: indefinite */
    assert_false(psd(1, G, NULL));
}

static void the_direction_residual_is_first_order_in_the_angle(void **state) {
    (void)state;
    /* a sliding contact: lambda_T antiparallel to sigma_T, then turned by theta */
    double G[9] = {0}, g[3] = {0}, mu = 0.5;
    lucid_contact_problem p = {1, G, g, &mu, NULL, 3};
    double sigma[3] = {2.0, 0.0, 0.0};
    for (double theta = 1e-2; theta > 1e-8; theta /= 10.0) {
        double lambda[3] = {-0.5 * cos(theta), -0.5 * sin(theta), 1.0};
        double r = lucid_contact_direction_residual(&p, lambda, sigma);
        assert_true(fabs(r - 2.0 * 0.5 * sin(theta)) <= 1e-15);
    }
    double exact[3] = {-0.5, 0.0, 1.0};
    assert_true(lucid_contact_direction_residual(&p, exact, sigma) == 0.0);
    double nan_lambda[3] = {NAN, 0.0, 1.0};
    assert_true(isinf(lucid_contact_direction_residual(&p, nan_lambda, sigma)));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_issue_example_is_refused),
        cmocka_unit_test(rank_deficient_gram_matrices_are_accepted_at_any_scale),
        cmocka_unit_test(a_negative_eigenvalue_beyond_round_off_is_refused),
        cmocka_unit_test(a_zero_row_is_accepted_and_a_zero_diagonal_with_coupling_refused),
        cmocka_unit_test(the_direction_residual_is_first_order_in_the_angle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
