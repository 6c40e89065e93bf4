#include "solvers/dense/dense_kernels.h"

#include <cblas.h>
#include <lapacke.h>

/* Pivot and sign arrays are passed to LAPACK as they are. */
_Static_assert(sizeof(lapack_int) == sizeof(int), "lapack_int must be int (LP64 LAPACK)");

int lucid_dense_potrf(int n, double *a, int lda) {
    return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, a, lda);
}

int lucid_dense_potrs(int n, int nrhs, const double *l, int ldl, double *b, int ldb) {
    return LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, l, ldl, b, ldb);
}

int lucid_dense_getrf(int n, double *a, int lda, int *ipiv) {
    return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, a, lda, ipiv);
}

int lucid_dense_getrs(int transposed, int n, int nrhs, const double *lu, int ldlu, const int *ipiv,
                      double *b, int ldb) {
    return LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, transposed ? 'T' : 'N', n, nrhs, lu, ldlu, ipiv, b,
                               ldb);
}

int lucid_dense_syevd(int vectors, int n, double *a, int lda, double *w, double *work, int lwork,
                      int *iwork, int liwork) {
    return LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, vectors ? 'V' : 'N', 'L', n, a, lda, w, work,
                               lwork, iwork, liwork);
}

/* Below this order the recursions hand over to LAPACK's unblocked kernels. */
enum { RECURSION_BASE = 32 };

/* L (n x n lower) <- L^-1: with L = [L11 0; L21 L22], L^-1 = [X11 0; -X22 L21 X11 X22], X the
 * inverses of the diagonal blocks. */
static int lower_inverse(double *L, int n, int ld) {
    if (n <= RECURSION_BASE) return LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, L, ld);
    int n1 = n / 2, n2 = n - n1;
    double *L11 = L, *L21 = L + n1, *L22 = L + n1 + (size_t)ld * n1;
    int info = lower_inverse(L11, n1, ld);
    if (info != 0) return info;
    info = lower_inverse(L22, n2, ld);
    if (info != 0) return info > 0 ? info + n1 : info;
    cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, 1.0, L11,
                ld, L21, ld);
    cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, -1.0, L22,
                ld, L21, ld);
    return 0;
}

/* The lower triangle of X^T X for X lower (n x n), in place: [X11 0; X21 X22] gives
 * X11^T X11 + X21^T X21, X22^T X21 and X22^T X22 (the same recursion, for dlauum). */
static void lower_gram(double *X, int n, int ld) {
    if (n <= RECURSION_BASE) {
        LAPACKE_dlauum_work(LAPACK_COL_MAJOR, 'L', n, X, ld);
        return;
    }
    int n1 = n / 2, n2 = n - n1;
    double *X11 = X, *X21 = X + n1, *X22 = X + n1 + (size_t)ld * n1;
    lower_gram(X11, n1, ld);
    cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, n1, n2, 1.0, X21, ld, 1.0, X11, ld);
    cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, n2, n1, 1.0, X22,
                ld, X21, ld);
    lower_gram(X22, n2, ld);
}

int lucid_dense_cholesky_inverse(int n, double *l, int ld) {
    int info = lower_inverse(l, n, ld);  /* L^-1 */
    if (info == 0) lower_gram(l, n, ld); /* L^-T L^-1 = (L L^T)^-1 */
    return info;
}

double lucid_dense_norm1_unchecked(int m, int n, const double *a, int lda) {
    return LAPACKE_dlange_work(LAPACK_COL_MAJOR, '1', m, n, a, lda, NULL);
}

void lucid_dense_lacn2(int n, double *v, double *x, int *isgn, double *est, int *kase, int *isave) {
    LAPACKE_dlacn2_work(n, v, x, isgn, est, kase, isave);
}

int lucid_dense_geqp3(int m, int n, double *a, int lda, int *jpvt, double *tau, double *work,
                      int lwork) {
    return LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, m, n, a, lda, jpvt, tau, work, lwork);
}

int lucid_dense_tzrzf(int m, int n, double *a, int lda, double *tau, double *work, int lwork) {
    return LAPACKE_dtzrzf_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, work, lwork);
}

int lucid_dense_ormqr(int transposed, int m, int n, int k, const double *a, int lda,
                      const double *tau, double *c, int ldc, double *work, int lwork) {
    return LAPACKE_dormqr_work(LAPACK_COL_MAJOR, 'L', transposed ? 'T' : 'N', m, n, k, a, lda, tau,
                               c, ldc, work, lwork);
}

int lucid_dense_ormrz(int transposed, int m, int n, int k, int l, const double *a, int lda,
                      const double *tau, double *c, int ldc, double *work, int lwork) {
    return LAPACKE_dormrz_work(LAPACK_COL_MAJOR, 'L', transposed ? 'T' : 'N', m, n, k, l, a, lda,
                               tau, c, ldc, work, lwork);
}
