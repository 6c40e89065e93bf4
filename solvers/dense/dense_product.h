/* Dense matrix products on contiguous column-major storage. Tiny products run as plain
 * loops (a BLAS call costs more than the arithmetic there); larger ones go to OpenBLAS. */
#ifndef LUCID_DENSE_PRODUCT_H
#define LUCID_DENSE_PRODUCT_H

/* C = A B with A m x k, B k x n, C m x n, all contiguous (leading dimension = rows).
 * C must not alias A or B. Any dimension may be 0 (C is then zero or empty). */
void lucid_dense_matmul(int m, int n, int k, const double *a, const double *b, double *c);

/* Euclidean norm of x[0..n), safe against overflow and underflow (Frobenius for a matrix). */
double lucid_dense_norm2(int n, const double *x);

#endif
