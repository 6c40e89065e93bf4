/* Householder QR with column pivoting: the rank-revealing factorisation behind the model's
 * base parameters. */
#ifndef LUCID_DENSE_QR_H
#define LUCID_DENSE_QR_H

#include "runtime/core/status.h"

/* A P = Q R (LAPACK dgeqp3) of the m x n column-major a, in place: R in its upper triangle
 * (|diagonal| non-increasing), the Householder vectors below it with tau (min(m, n) entries);
 * jpvt (n entries) receives P as 1-based column indices. Every column is free to move. m or n
 * may be 0 (nothing to do); LUCID_ERR_NONFINITE on NaN/Inf, LUCID_ERR_NO_MEMORY when LAPACK
 * cannot allocate its workspace. */
lucid_status lucid_dense_qr_pivoted(int m, int n, double *a, int lda, int *jpvt, double *tau);

#endif
