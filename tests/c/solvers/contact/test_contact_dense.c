/* The dense kernels of the contact solvers: the inverse of A + diag(R) + shift I that ADMM's
 * x-step applies (a recursive blocked triangular inversion above 32 rows), against the
 * identity and against a Cholesky solve, on random SPD matrices of sizes on both sides of
 * the recursion's base; an indefinite matrix is refused. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "solvers/contact/contact_internal.h"
#include "tests/c/common/test_random.h"

/* A = B B^T / m + 0.1 I with B uniform in [-1, 1): SPD, condition number below ~40. */
static double *random_spd(uint64_t *rng, int m) {
    double *B = malloc(sizeof(double) * (size_t)m * m), *A = calloc((size_t)m * m, sizeof(double));
    for (int k = 0; k < m * m; ++k) B[k] = 2.0 * uniform(rng) - 1.0;
    for (int j = 0; j < m; ++j)
        for (int i = 0; i < m; ++i) {
            double s = 0.0;
            for (int k = 0; k < m; ++k) s += B[i + m * k] * B[j + m * k];
            A[i + m * j] = s / m + (i == j ? 0.1 : 0.0);
        }
    free(B);
    return A;
}

static void inverse_matches_identity_and_solve(void **state) {
    (void)state;
    uint64_t rng = 11;
    const int sizes[] = {1, 5, 32, 33, 64, 97, 150};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; ++t) {
        int m = sizes[t];
        double *A = random_spd(&rng, m), *R = malloc(sizeof(double) * m);
        double *inv = malloc(sizeof(double) * (size_t)m * m);
        double *chol = malloc(sizeof(double) * (size_t)m * m);
        double *x = malloc(sizeof(double) * m), *y = malloc(sizeof(double) * m);
        double *z = malloc(sizeof(double) * m);
        for (int k = 0; k < m; ++k) R[k] = uniform(&rng);
        double shift = 0.3;
        assert_int_equal(lucid_contact_inverse(A, R, shift, m, inv), LUCID_OK);
        /* (A + R + shift I) inv = I, inv read from its lower triangle */
        double worst = 0.0;
        for (int j = 0; j < m; ++j)
            for (int i = 0; i < m; ++i) {
                double s = 0.0;
                for (int k = 0; k < m; ++k) {
                    double a = A[i + m * k] + (i == k ? R[i] + shift : 0.0);
                    double v = k >= j ? inv[k + m * j] : inv[j + m * k];
                    s += a * v;
                }
                worst = fmax(worst, fabs(s - (i == j ? 1.0 : 0.0)));
            }
        assert_true(worst < 1e-12);
        /* applying it equals a Cholesky solve */
        assert_int_equal(lucid_contact_cholesky(A, R, shift, m, chol), LUCID_OK);
        for (int k = 0; k < m; ++k) x[k] = 2.0 * uniform(&rng) - 1.0;
        memcpy(y, x, sizeof(double) * m);
        lucid_contact_cholesky_solve(chol, m, y);
        lucid_contact_inverse_apply(inv, m, x, z);
        for (int k = 0; k < m; ++k) assert_true(fabs(z[k] - y[k]) < 1e-12 * (1.0 + fabs(y[k])));
        free(A), free(R), free(inv), free(chol), free(x), free(y), free(z);
    }
}

/* A symmetric matrix with a clearly negative eigenvalue: LUCID_ERR_NOT_SPD at every size. */
static void inverse_refuses_an_indefinite_matrix(void **state) {
    (void)state;
    uint64_t rng = 12;
    const int sizes[] = {3, 40, 90};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; ++t) {
        int m = sizes[t];
        double *A = random_spd(&rng, m), *inv = malloc(sizeof(double) * (size_t)m * m);
        A[(m - 1) + (size_t)m * (m - 1)] = -1.0; /* e_m^T A e_m < 0 */
        assert_int_equal(lucid_contact_inverse(A, NULL, 0.0, m, inv), LUCID_ERR_NOT_SPD);
        free(A), free(inv);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(inverse_matches_identity_and_solve),
        cmocka_unit_test(inverse_refuses_an_indefinite_matrix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
