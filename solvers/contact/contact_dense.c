/* The few dense LAPACK kernels the contact solvers need, on caller-owned buffers. */
#include <cblas.h>
#include <lapacke.h>
#include <string.h>

#include "solvers/contact/contact_internal.h"

static void copy_shifted(const double *A, const double *R, double shift, int m, double *out) {
    memcpy(out, A, sizeof(double) * (size_t)m * (size_t)m);
    for (int k = 0; k < m; ++k) out[k + (size_t)m * k] += shift + (R ? R[k] : 0.0);
}

lucid_status lucid_contact_cholesky(const double *A, const double *R, double shift, int m,
                                    double *chol) {
    copy_shifted(A, R, shift, m, chol);
    lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', m, chol, m);
    if (info > 0) return LUCID_ERR_NOT_SPD;
    return info == 0 ? LUCID_OK : LUCID_ERR_INTERNAL;
}

/* Two level-2 triangular solves: dpotrs with one right-hand side goes through OpenBLAS's
 * dtrsm, which packs (copies) the whole factor on every call, half of ADMM's time (perf). */
void lucid_contact_cholesky_solve(const double *chol, int m, double *x) {
    cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, m, chol, m, x, 1);
    cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, m, chol, m, x, 1);
}

lucid_status lucid_contact_eigen(lucid_contact_workspace *ws, const double *A, const double *R,
                                 int m, double *values, double *vectors, double *scratch) {
    double *a = vectors ? vectors : scratch;
    copy_shifted(A, R, 0.0, m, a);
    lapack_int info =
        LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, vectors ? 'V' : 'N', 'L', m, a, m, values, ws->lwork,
                            ws->lwork_size, ws->iwork, ws->iwork_size);
    return info == 0 ? LUCID_OK : LUCID_ERR_INTERNAL;
}

lucid_status lucid_contact_inverse(const double *A, const double *R, double shift, int m,
                                   double *inv) {
    lucid_status status = lucid_contact_cholesky(A, R, shift, m, inv);
    if (status != LUCID_OK) return status;
    lapack_int info = LAPACKE_dpotri_work(LAPACK_COL_MAJOR, 'L', m, inv, m);
    if (info > 0) return LUCID_ERR_NOT_SPD;
    return info == 0 ? LUCID_OK : LUCID_ERR_INTERNAL;
}

void lucid_contact_inverse_apply(const double *inv, int m, const double *x, double *out) {
    cblas_dsymv(CblasColMajor, CblasLower, m, 1.0, inv, m, x, 1, 0.0, out, 1);
}
