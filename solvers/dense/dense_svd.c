#include "solvers/dense/dense_svd.h"

#include <lapacke.h>

#include "solvers/dense/dense_input.h"

static int max_int(int a, int b) {
    return a > b ? a : b;
}
static int min_int(int a, int b) {
    return a < b ? a : b;
}

/* dgesvd's optimal lwork for the shape, queried once per shape. */
static lucid_status gesvd_lwork(lucid_dense_workspace *ws, int m, int n, double *a, int lda,
                                double *s, double *u, int ldu, double *vt, int ldvt, int *lwork) {
    lucid_dense_shape shape = {LUCID_DENSE_GESVD, m, n, 0};
    lucid_dense_lwork sizes;
    if (!lucid_dense_workspace_find(ws, shape, &sizes)) {
        double query = 0.0;
        int info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'S', 'S', m, n, a, lda, s, u, ldu, vt,
                                       ldvt, &query, -1);
        lucid_status status = lucid_dense_status_from_info(LUCID_DENSE_GESVD, info);
        if (status != LUCID_OK) return status;
        sizes.lwork = max_int((int)query, 1);
        sizes.liwork = 0;
        lucid_dense_workspace_remember(ws, shape, sizes);
    }
    *lwork = sizes.lwork;
    return LUCID_OK;
}

lucid_status lucid_dense_svd(lucid_dense_workspace *ws, int m, int n, double *a, int lda, double *s,
                             double *u, int ldu, double *vt, int ldvt) {
    if (!ws || !s || !u || !vt || ldu < m || ldvt < min_int(m, n)) return LUCID_ERR_ARGUMENT;
    lucid_status status = lucid_dense_check_matrix(m, n, a, lda);
    int lwork = 0;
    if (status == LUCID_OK) status = gesvd_lwork(ws, m, n, a, lda, s, u, ldu, vt, ldvt, &lwork);
    double *work = NULL;
    int *iwork = NULL;
    if (status == LUCID_OK)
        status = lucid_dense_workspace_reserve(ws, (size_t)lwork, 0, &work, &iwork);
    if (status != LUCID_OK) return status;
    int info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'S', 'S', m, n, a, lda, s, u, ldu, vt, ldvt,
                                   work, lwork);
    return lucid_dense_status_from_info(LUCID_DENSE_GESVD, info);
}
