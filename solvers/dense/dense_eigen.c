#include "solvers/dense/dense_eigen.h"

#include <lapacke.h>
#include <math.h>

#include "solvers/dense/dense_input.h"

static int max_int(int a, int b) {
    return a > b ? a : b;
}

/* dsyevd's optimal lwork and liwork for order n, queried once per n. */
static lucid_status syevd_lwork(lucid_dense_workspace *ws, int n, double *a, int lda, double *w,
                                lucid_dense_lwork *out) {
    lucid_dense_shape shape = {LUCID_DENSE_SYEVD, n, n, 0};
    if (lucid_dense_workspace_find(ws, shape, out)) return LUCID_OK;
    double query = 0.0;
    int iquery = 0;
    int info =
        LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, 'V', 'L', n, a, lda, w, &query, -1, &iquery, -1);
    lucid_status status = lucid_dense_status_from_info(LUCID_DENSE_SYEVD, info);
    if (status != LUCID_OK) return status;
    out->lwork = max_int((int)query, 1);
    out->liwork = max_int(iquery, 1);
    lucid_dense_workspace_remember(ws, shape, *out);
    return LUCID_OK;
}

lucid_status lucid_dense_symmetric_eigen(lucid_dense_workspace *ws, int n, double *a, int lda,
                                         double *w) {
    if (!ws || !w) return LUCID_ERR_ARGUMENT;
    lucid_status status = lucid_dense_check_matrix(n, n, a, lda);
    lucid_dense_lwork sizes = {0, 0};
    if (status == LUCID_OK) status = syevd_lwork(ws, n, a, lda, w, &sizes);
    double *work = NULL;
    int *iwork = NULL;
    if (status == LUCID_OK)
        status = lucid_dense_workspace_reserve(ws, (size_t)sizes.lwork, (size_t)sizes.liwork, &work,
                                               &iwork);
    if (status != LUCID_OK) return status;
    int info = LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, 'V', 'L', n, a, lda, w, work, sizes.lwork,
                                   iwork, sizes.liwork);
    return lucid_dense_status_from_info(LUCID_DENSE_SYEVD, info);
}

int lucid_dense_is_symmetric(int n, const double *a, int lda, double rtol) {
    double scale = 0.0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(a[i + (long)lda * j]));
    for (int j = 0; j < n; ++j)
        for (int i = j + 1; i < n; ++i)
            if (!(fabs(a[i + (long)lda * j] - a[j + (long)lda * i]) <= rtol * scale)) return 0;
    return 1;
}
