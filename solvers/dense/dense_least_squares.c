#include "solvers/dense/dense_least_squares.h"

#include <float.h>
#include <lapacke.h>

#include "solvers/dense/dense_input.h"

static int max_int(int a, int b) {
    return a > b ? a : b;
}
static int min_int(int a, int b) {
    return a < b ? a : b;
}

/* Shapes, finiteness and the workspace pointer common to both solvers. */
static lucid_status check_problem(const lucid_dense_workspace *ws, int m, int n, int nrhs,
                                  const double *a, int lda, const double *b, int ldb) {
    if (!ws || n < 1 || ldb < max_int(m, n)) return LUCID_ERR_ARGUMENT;
    lucid_status status = lucid_dense_check_matrix(m, n, a, lda);
    if (status == LUCID_OK) status = lucid_dense_check_matrix(m, nrhs, b, ldb);
    return status;
}

/* dgels's optimal lwork for the shape, queried once per shape. */
static lucid_status gels_lwork(lucid_dense_workspace *ws, int m, int n, int nrhs, double *a,
                               int lda, double *b, int ldb, int *lwork) {
    lucid_dense_shape shape = {LUCID_DENSE_GELS, m, n, nrhs};
    lucid_dense_lwork sizes;
    if (!lucid_dense_workspace_find(ws, shape, &sizes)) {
        double query = 0.0;
        int info =
            LAPACKE_dgels_work(LAPACK_COL_MAJOR, 'N', m, n, nrhs, a, lda, b, ldb, &query, -1);
        lucid_status status = lucid_dense_status_from_info(LUCID_DENSE_GELS, info);
        if (status != LUCID_OK) return status;
        sizes.lwork = max_int((int)query, 1);
        sizes.liwork = 0;
        lucid_dense_workspace_remember(ws, shape, sizes);
    }
    *lwork = sizes.lwork;
    return LUCID_OK;
}

lucid_status lucid_dense_least_squares_qr(lucid_dense_workspace *ws, int m, int n, int nrhs,
                                          double *a, int lda, double *b, int ldb) {
    lucid_status status = check_problem(ws, m, n, nrhs, a, lda, b, ldb);
    int lwork = 0;
    if (status == LUCID_OK) status = gels_lwork(ws, m, n, nrhs, a, lda, b, ldb, &lwork);
    const int k = min_int(m, n); /* order of the triangular factor R (or L when m < n) */
    double *work = NULL;
    int *iwork = NULL;
    if (status == LUCID_OK)
        status = lucid_dense_workspace_reserve(ws, (size_t)max_int(lwork, 3 * k), (size_t)k, &work,
                                               &iwork);
    if (status != LUCID_OK) return status;
    int info = LAPACKE_dgels_work(LAPACK_COL_MAJOR, 'N', m, n, nrhs, a, lda, b, ldb, work, lwork);
    status = lucid_dense_status_from_info(LUCID_DENSE_GELS, info);
    if (status != LUCID_OK) return status;
    double rcond = 0.0;
    info = LAPACKE_dtrcon_work(LAPACK_COL_MAJOR, '1', m >= n ? 'U' : 'L', 'N', k, a, lda, &rcond,
                               work, iwork);
    status = lucid_dense_status_from_info(LUCID_DENSE_TRCON, info);
    if (status != LUCID_OK) return status;
    return rcond < max_int(m, n) * DBL_EPSILON ? LUCID_ERR_RANK_DEFICIENT : LUCID_OK;
}

/* dgelsd's optimal lwork and liwork for the shape, queried once per shape. */
static lucid_status gelsd_lwork(lucid_dense_workspace *ws, int m, int n, int nrhs, double *a,
                                int lda, double *b, int ldb, lucid_dense_lwork *out) {
    lucid_dense_shape shape = {LUCID_DENSE_GELSD, m, n, nrhs};
    if (lucid_dense_workspace_find(ws, shape, out)) return LUCID_OK;
    double query = 0.0, s_unused = 0.0;
    int iquery = 0, rank_unused = 0;
    int info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, m, n, nrhs, a, lda, b, ldb, &s_unused, -1.0,
                                   &rank_unused, &query, -1, &iquery);
    lucid_status status = lucid_dense_status_from_info(LUCID_DENSE_GELSD, info);
    if (status != LUCID_OK) return status;
    out->lwork = max_int((int)query, 1);
    out->liwork = max_int(iquery, 1);
    lucid_dense_workspace_remember(ws, shape, *out);
    return LUCID_OK;
}

lucid_status lucid_dense_least_squares_min_norm(lucid_dense_workspace *ws, int m, int n, int nrhs,
                                                double *a, int lda, double *b, int ldb,
                                                double rcond, int *rank) {
    if (!rank || rcond != rcond) return LUCID_ERR_ARGUMENT;
    lucid_status status = check_problem(ws, m, n, nrhs, a, lda, b, ldb);
    lucid_dense_lwork sizes = {0, 0};
    if (status == LUCID_OK) status = gelsd_lwork(ws, m, n, nrhs, a, lda, b, ldb, &sizes);
    const int k = min_int(m, n);
    double *work = NULL;
    int *iwork = NULL;
    if (status == LUCID_OK) /* the singular values go after LAPACK's work area */
        status = lucid_dense_workspace_reserve(ws, (size_t)sizes.lwork + (size_t)k,
                                               (size_t)sizes.liwork, &work, &iwork);
    if (status != LUCID_OK) return status;
    int info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, m, n, nrhs, a, lda, b, ldb, work + sizes.lwork,
                                   rcond, rank, work, sizes.lwork, iwork);
    return lucid_dense_status_from_info(LUCID_DENSE_GELSD, info);
}
