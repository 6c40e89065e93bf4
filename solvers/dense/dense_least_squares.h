/* Linear least squares min ||A X - B|| (Frobenius) for an m x n A. Column-major; b has
 * ldb >= max(m, n) rows: on entry its first m rows hold B (m x nrhs), on exit its first n
 * rows hold X (n x nrhs). a is destroyed. On error the outputs are unspecified. */
#ifndef LUCID_DENSE_LEAST_SQUARES_H
#define LUCID_DENSE_LEAST_SQUARES_H

#include "runtime/core/status.h"
#include "solvers/dense/dense_workspace.h"

/* Full-rank problems by QR / LQ (LAPACK dgels): the least-squares solution when m >= n,
 * the minimum-norm solution when m < n. LUCID_ERR_RANK_DEFICIENT when A does not have full
 * rank: dgels itself only notices an exactly zero diagonal of R, so the triangular factor's
 * reciprocal condition is also estimated (dtrcon) and rcond < max(m, n) * eps is rejected. */
lucid_status lucid_dense_least_squares_qr(lucid_dense_workspace *ws, int m, int n, int nrhs,
                                          double *a, int lda, double *b, int ldb);

/* The minimum-norm least-squares solution for any rank (LAPACK dgelsd, SVD-based):
 * singular values <= rcond * s_max are treated as zero, and *rank receives the number kept.
 * rcond < 0 means machine precision. */
lucid_status lucid_dense_least_squares_min_norm(lucid_dense_workspace *ws, int m, int n, int nrhs,
                                                double *a, int lda, double *b, int ldb,
                                                double rcond, int *rank);

#endif
