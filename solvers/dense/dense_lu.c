#include "solvers/dense/dense_lu.h"

#include <float.h>
#include <lapacke.h>

#include "solvers/dense/dense_input.h"

/* The singularity threshold on the reciprocal condition number for an n x n matrix. */
static double singular_rcond(int n) {
    return n * DBL_EPSILON;
}

/* LU-factors a in place (pivots in ipiv) and rejects exactly or numerically singular A.
 * work needs 4n doubles and iwork n ints (for dgecon). */
static lucid_status factor_checked(int n, double *a, int lda, int *ipiv, double *work, int *iwork) {
    double anorm = lucid_dense_norm1(n, n, a, lda);
    int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, a, lda, ipiv);
    lucid_status status = lucid_dense_status_from_info(LUCID_DENSE_GETRF, info);
    if (status != LUCID_OK) return status;
    double rcond = 0.0;
    info = LAPACKE_dgecon_work(LAPACK_COL_MAJOR, '1', n, a, lda, anorm, &rcond, work, iwork);
    status = lucid_dense_status_from_info(LUCID_DENSE_GECON, info);
    if (status != LUCID_OK) return status;
    return rcond < singular_rcond(n) ? LUCID_ERR_SINGULAR : LUCID_OK;
}

lucid_status lucid_dense_lu_solve(lucid_dense_workspace *ws, int n, int nrhs, double *a, int lda,
                                  double *b, int ldb) {
    if (!ws) return LUCID_ERR_ARGUMENT;
    lucid_status status = lucid_dense_check_matrix(n, n, a, lda);
    if (status == LUCID_OK) status = lucid_dense_check_matrix(n, nrhs, b, ldb);
    double *work = NULL;
    int *ints = NULL;
    if (status == LUCID_OK)
        status = lucid_dense_workspace_reserve(ws, 4 * (size_t)n, 2 * (size_t)n, &work, &ints);
    if (status == LUCID_OK) status = factor_checked(n, a, lda, ints, work, ints + n);
    if (status != LUCID_OK) return status;
    int info = LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs, a, lda, ints, b, ldb);
    return lucid_dense_status_from_info(LUCID_DENSE_GETRS, info);
}

/* dgetri's optimal lwork for n, queried once per n. */
static lucid_status getri_lwork(lucid_dense_workspace *ws, int n, double *a, int lda, int *lwork) {
    lucid_dense_shape shape = {LUCID_DENSE_GETRI, n, n, 0};
    lucid_dense_lwork sizes;
    if (!lucid_dense_workspace_find(ws, shape, &sizes)) {
        double query = 0.0;
        int info = LAPACKE_dgetri_work(LAPACK_COL_MAJOR, n, a, lda, NULL, &query, -1);
        lucid_status status = lucid_dense_status_from_info(LUCID_DENSE_GETRI, info);
        if (status != LUCID_OK) return status;
        sizes.lwork = (int)query > n ? (int)query : n;
        sizes.liwork = 0;
        lucid_dense_workspace_remember(ws, shape, sizes);
    }
    *lwork = sizes.lwork;
    return LUCID_OK;
}

lucid_status lucid_dense_inverse(lucid_dense_workspace *ws, int n, double *a, int lda) {
    if (!ws) return LUCID_ERR_ARGUMENT;
    lucid_status status = lucid_dense_check_matrix(n, n, a, lda);
    int lwork = 0;
    if (status == LUCID_OK) status = getri_lwork(ws, n, a, lda, &lwork);
    double *work = NULL;
    int *ints = NULL;
    size_t ndoubles = (size_t)lwork > 4 * (size_t)n ? (size_t)lwork : 4 * (size_t)n;
    if (status == LUCID_OK)
        status = lucid_dense_workspace_reserve(ws, ndoubles, 2 * (size_t)n, &work, &ints);
    if (status == LUCID_OK) status = factor_checked(n, a, lda, ints, work, ints + n);
    if (status != LUCID_OK) return status;
    int info = LAPACKE_dgetri_work(LAPACK_COL_MAJOR, n, a, lda, ints, work, lwork);
    return lucid_dense_status_from_info(LUCID_DENSE_GETRI, info);
}
