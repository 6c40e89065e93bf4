#include "solvers/dense/dense_product.h"

#include <cblas.h>
#include <string.h>

/* Below this many multiply-adds the BLAS call overhead dominates. */
#define LUCID_DENSE_BLAS_MIN_FLOPS 4096L

static void matmul_loops(int m, int n, int k, const double *a, const double *b, double *c) {
    memset(c, 0, (size_t)m * (size_t)n * sizeof(double));
    for (int j = 0; j < n; ++j)
        for (int p = 0; p < k; ++p) {
            const double bpj = b[p + (long)k * j];
            const double *ap = a + (long)m * p;
            double *cj = c + (long)m * j;
            for (int i = 0; i < m; ++i) cj[i] += ap[i] * bpj;
        }
}

void lucid_dense_matmul(int m, int n, int k, const double *a, const double *b, double *c) {
    if (m == 0 || n == 0) return;
    if (k == 0 || (long)m * n * k < LUCID_DENSE_BLAS_MIN_FLOPS) {
        matmul_loops(m, n, k, a, b, c);
    } else if (n == 1) {
        cblas_dgemv(CblasColMajor, CblasNoTrans, m, k, 1.0, a, m, b, 1, 0.0, c, 1);
    } else {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, m, b, k, 0.0, c, m);
    }
}

double lucid_dense_norm2(int n, const double *x) {
    /* dnrm2 scales internally, so huge or tiny entries neither overflow nor flush to zero. */
    return n > 0 ? cblas_dnrm2(n, x, 1) : 0.0;
}
