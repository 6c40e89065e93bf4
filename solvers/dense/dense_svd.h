/* Thin singular value decomposition (LAPACK dgesvd). Column-major; on error the outputs
 * are unspecified. */
#ifndef LUCID_DENSE_SVD_H
#define LUCID_DENSE_SVD_H

#include "runtime/core/status.h"
#include "solvers/dense/dense_workspace.h"

/* A = U diag(s) V^T for the m x n A in a (destroyed), with k = min(m, n): s (k) receives
 * the singular values in descending order, u (m x k, ldu >= m) the left and vt (k x n,
 * ldvt >= k) the transposed right singular vectors. */
lucid_status lucid_dense_svd(lucid_dense_workspace *ws, int m, int n, double *a, int lda, double *s,
                             double *u, int ldu, double *vt, int ldvt);

#endif
