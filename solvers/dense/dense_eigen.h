/* Eigen-decomposition of a real symmetric matrix (LAPACK dsyevd, divide and conquer).
 * Column-major; on error the outputs are unspecified. */
#ifndef LUCID_DENSE_EIGEN_H
#define LUCID_DENSE_EIGEN_H

#include "runtime/core/status.h"
#include "solvers/dense/dense_workspace.h"

/* A = V diag(w) V^T for the n x n A in a, of which only the lower triangle is read (use
 * lucid_dense_is_symmetric to vet the input). w (n) receives the eigenvalues in ascending
 * order and a is overwritten by the orthonormal eigenvectors V, one per column. */
lucid_status lucid_dense_symmetric_eigen(lucid_dense_workspace *ws, int n, double *a, int lda,
                                         double *w);

/* 1 when |a_ij - a_ji| <= rtol * max_kl |a_kl| for every i, j of the n x n matrix. */
int lucid_dense_is_symmetric(int n, const double *a, int lda, double rtol);

#endif
