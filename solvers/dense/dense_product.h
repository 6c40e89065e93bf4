/* Dense matrix products on contiguous column-major storage. Tiny products run as plain
 * loops (a BLAS call costs more than the arithmetic there); larger ones go to OpenBLAS. */
#ifndef LUCID_DENSE_PRODUCT_H
#define LUCID_DENSE_PRODUCT_H

/* C = A B with A m x k, B k x n, C m x n, all contiguous (leading dimension = rows).
 * C must not alias A or B. Any dimension may be 0 (C is then zero or empty). */
void lucid_dense_matmul(int m, int n, int k, const double *a, const double *b, double *c);

/* The BLAS level-2/3 calls the solvers and derivatives make, column-major, on strided storage
 * (ld >= the stored rows), so that only solvers/dense includes CBLAS. trans_*: 0 for the
 * matrix, 1 for its transpose. */
/* C = alpha op(A) op(B) + beta C, op(A) m x k, op(B) k x n (dgemm). */
void lucid_dense_gemm(int trans_a, int trans_b, int m, int n, int k, double alpha, const double *a,
                      int lda, const double *b, int ldb, double beta, double *c, int ldc);
/* y = alpha A x + beta y, A m x n (dgemv; unit strides). */
void lucid_dense_gemv(int m, int n, double alpha, const double *a, int lda, const double *x,
                      double beta, double *y);
/* y = alpha A x + beta y, A n x n symmetric of which only the lower triangle is read (dsymv). */
void lucid_dense_symv_lower(int n, double alpha, const double *a, int lda, const double *x,
                            double beta, double *y);
/* B <- op(U)^-1 B, U the upper triangle (non-unit diagonal) of the n x n u, B n x nrhs (dtrsm). */
void lucid_dense_upper_solve(int trans, int n, int nrhs, const double *u, int ldu, double *b,
                             int ldb);

/* Euclidean norm of x[0..n), safe against overflow and underflow (Frobenius for a matrix). */
double lucid_dense_norm2(int n, const double *x);

#endif
