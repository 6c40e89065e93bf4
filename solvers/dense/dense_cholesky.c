#include "solvers/dense/dense_cholesky.h"

#include <lapacke.h>

#include "solvers/dense/dense_input.h"
#include "solvers/dense/dense_status.h"

lucid_status lucid_dense_cholesky(int n, double *a, int lda) {
    lucid_status status = lucid_dense_check_matrix(n, n, a, lda);
    if (status != LUCID_OK) return status;
    int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, a, lda);
    status = lucid_dense_status_from_info(LUCID_DENSE_POTRF, info);
    if (status != LUCID_OK) return status;
    for (int j = 1; j < n; ++j) /* dpotrf leaves the upper triangle untouched */
        for (int i = 0; i < j; ++i) a[i + (long)lda * j] = 0.0;
    return LUCID_OK;
}

lucid_status lucid_dense_cholesky_solve(int n, int nrhs, const double *l, int ldl, double *b,
                                        int ldb) {
    lucid_status status = lucid_dense_check_matrix(n, n, l, ldl);
    if (status == LUCID_OK) status = lucid_dense_check_matrix(n, nrhs, b, ldb);
    if (status != LUCID_OK) return status;
    int info = LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, l, ldl, b, ldb);
    return lucid_dense_status_from_info(LUCID_DENSE_POTRS, info);
}
