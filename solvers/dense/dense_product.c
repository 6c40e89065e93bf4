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

static enum CBLAS_TRANSPOSE op(int trans) {
    return trans ? CblasTrans : CblasNoTrans;
}

void lucid_dense_gemm(int trans_a, int trans_b, int m, int n, int k, double alpha, const double *a,
                      int lda, const double *b, int ldb, double beta, double *c, int ldc) {
    cblas_dgemm(CblasColMajor, op(trans_a), op(trans_b), m, n, k, alpha, a, lda, b, ldb, beta, c,
                ldc);
}

void lucid_dense_gemv(int m, int n, double alpha, const double *a, int lda, const double *x,
                      double beta, double *y) {
    cblas_dgemv(CblasColMajor, CblasNoTrans, m, n, alpha, a, lda, x, 1, beta, y, 1);
}

void lucid_dense_symv_lower(int n, double alpha, const double *a, int lda, const double *x,
                            double beta, double *y) {
    cblas_dsymv(CblasColMajor, CblasLower, n, alpha, a, lda, x, 1, beta, y, 1);
}

void lucid_dense_upper_solve(int trans, int n, int nrhs, const double *u, int ldu, double *b,
                             int ldb) {
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, op(trans), CblasNonUnit, n, nrhs, 1.0, u, ldu,
                b, ldb);
}
