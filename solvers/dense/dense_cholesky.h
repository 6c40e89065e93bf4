/* Cholesky factorisation A = L L^T of a symmetric positive definite matrix, and solves
 * with the factor (LAPACK dpotrf / dpotrs). Column-major; on error the outputs are
 * unspecified. */
#ifndef LUCID_DENSE_CHOLESKY_H
#define LUCID_DENSE_CHOLESKY_H

#include "runtime/core/status.h"

/* Factors the n x n matrix in a in place. Only the lower triangle of A is read (symmetry
 * is the caller's business); on success the lower triangle holds L and the strict upper
 * triangle is zeroed, so a is exactly L. All n x n entries must be finite.
 * LUCID_ERR_NOT_SPD when A is not positive definite. */
lucid_status lucid_dense_cholesky(int n, double *a, int lda);

/* Solves A X = B given the factor L of A from lucid_dense_cholesky; b (n x nrhs) is
 * overwritten by X. */
lucid_status lucid_dense_cholesky_solve(int n, int nrhs, const double *l, int ldl, double *b,
                                        int ldb);

#endif
