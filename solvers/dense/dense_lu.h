/* Square systems by LU factorisation with partial pivoting (LAPACK dgetrf/dgetrs, i.e.
 * dgesv split in two so the conditioning can be checked before solving), and the inverse
 * (dgetri). Column-major; on error the outputs are unspecified.
 *
 * Singularity: LAPACK only reports an exactly zero pivot. A matrix that is singular up to
 * rounding (e.g. one row the sum of two others) usually factors with a tiny nonzero pivot
 * and would give a meaningless answer, so the reciprocal condition number is also
 * estimated (dgecon, 1-norm) and LUCID_ERR_SINGULAR is reported when rcond < n * eps. */
#ifndef LUCID_DENSE_LU_H
#define LUCID_DENSE_LU_H

#include "runtime/core/status.h"
#include "solvers/dense/dense_workspace.h"

/* Solves A X = B for the n x n A in a (overwritten by its LU factors); b (n x nrhs) is
 * overwritten by X and left untouched when A is singular. */
lucid_status lucid_dense_lu_solve(lucid_dense_workspace *ws, int n, int nrhs, double *a, int lda,
                                  double *b, int ldb);

/* Replaces the n x n A in a by its inverse. */
lucid_status lucid_dense_inverse(lucid_dense_workspace *ws, int n, double *a, int lda);

#endif
