/* Validation of the matrices handed to the dense kernels, done before LAPACK sees them:
 * LAPACK neither rejects NaN/Inf nor reports bad shapes in a way a user can act on. */
#ifndef LUCID_DENSE_INPUT_H
#define LUCID_DENSE_INPUT_H

#include "runtime/core/status.h"

/* LUCID_ERR_ARGUMENT when a is NULL, rows or cols < 1 (empty) or ld < rows;
 * LUCID_ERR_NONFINITE when an entry of the rows x cols block holds NaN or Inf. */
lucid_status lucid_dense_check_matrix(int rows, int cols, const double *a, int ld);

/* Sum of absolute values of column j, maximised over j (the matrix 1-norm). */
double lucid_dense_norm1(int rows, int cols, const double *a, int ld);

#endif
