/* lucid_dense_getrf (unblocked loops up to order 48, solvers/dense/dense_kernels.c) against
 * lucid_dense_getrf_lapack (OpenBLAS's dgetrf) on random diagonally shifted matrices of the
 * orders around that bound: CPU microseconds per factorisation (the copy of A included), best
 * of 7 batches, and the largest difference of the factors relative to their largest entry.
 *
 *   OPENBLAS_NUM_THREADS=1 build/tests/bench/bench_small_lu */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "solvers/dense/dense_kernels.h"

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef int (*getrf_fn)(int n, double *a, int lda, int *ipiv);

/* Best of 7 batches of `reps` factorisations of a copy of a0, in microseconds a call. */
static double time_lu(getrf_fn f, int n, const double *a0, double *a, int *ipiv, int reps) {
    double best = INFINITY;
    for (int batch = 0; batch < 7; ++batch) {
        double t0 = cpu_seconds();
        for (int r = 0; r < reps; ++r) {
            memcpy(a, a0, sizeof(double) * (size_t)n * (size_t)n);
            f(n, a, n, ipiv);
        }
        best = fmin(best, (cpu_seconds() - t0) / reps);
    }
    return 1e6 * best;
}

int main(void) {
    const int orders[] = {8, 16, 24, 33, 40, 48, 56, 64, 96};
    printf("%6s %12s %12s %12s\n", "order", "loops us", "LAPACK us", "max diff");
    for (size_t t = 0; t < sizeof orders / sizeof orders[0]; ++t) {
        int n = orders[t];
        size_t nn = (size_t)n * (size_t)n;
        double *a0 = malloc(sizeof(double) * nn), *a = malloc(sizeof(double) * nn),
               *b = malloc(sizeof(double) * nn);
        int *ipiv = malloc(sizeof(int) * (size_t)n);
        if (!a0 || !a || !b || !ipiv) return 1;
        srand(1);
        for (size_t k = 0; k < nn; ++k) a0[k] = rand() / (double)RAND_MAX - 0.5;
        for (int i = 0; i < n; ++i) a0[i + (size_t)n * (size_t)i] += 0.1 * i;
        int reps = 200000 / (n * n) + 20;
        double ours = time_lu(lucid_dense_getrf, n, a0, a, ipiv, reps);
        double lapack = time_lu(lucid_dense_getrf_lapack, n, a0, b, ipiv, reps);
        double big = 0.0, diff = 0.0;
        for (size_t k = 0; k < nn; ++k)
            big = fmax(big, fabs(b[k])), diff = fmax(diff, fabs(a[k] - b[k]));
        printf("%6d %12.2f %12.2f %12.2e\n", n, ours, lapack, diff / big);
        free(a0), free(a), free(b), free(ipiv);
    }
    return 0;
}
