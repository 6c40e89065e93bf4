#include "solvers/dense/dense_qr.h"

#include <lapacke.h>

#include "solvers/dense/dense_input.h"
#include "solvers/dense/dense_status.h"

lucid_status lucid_dense_qr_pivoted(int m, int n, double *a, int lda, int *jpvt, double *tau) {
    if (m < 0 || n < 0 || !jpvt || !tau) return LUCID_ERR_ARGUMENT;
    if (m == 0 || n == 0) return LUCID_OK;
    lucid_status status = lucid_dense_check_matrix(m, n, a, lda);
    if (status != LUCID_OK) return status;
    for (int j = 0; j < n; ++j) jpvt[j] = 0; /* 0: a free column */
    int info = LAPACKE_dgeqp3(LAPACK_COL_MAJOR, m, n, a, lda, jpvt, tau);
    return lucid_dense_status_from_info(LUCID_DENSE_GEQP3, info);
}
