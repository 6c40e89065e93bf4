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

/* x <- L^-T L^-1 x: the two triangular solves written out, column by column (unit stride in
 * the column-major factor). Not dpotrs: with one right-hand side it goes through OpenBLAS's
 * dtrsm, which packs (copies) the whole factor on every call, half of ADMM's time (perf). Not
 * cblas_dtrsv either: OpenBLAS's level-2 interface takes its buffer from an allocator behind
 * a global mutex on every call, so solvers running in parallel threads (lucid.batch) queued
 * on it: 2 threads gave 1.00x on a heap of boxes while ncp:pgs, which calls no BLAS, gave
 * 1.98x. These loops are what dtrsv does for the sizes of an island (memory-bound). */
void lucid_contact_cholesky_solve(const double *chol, int m, double *x) {
    for (int j = 0; j < m; ++j) { /* L y = x, y over x */
        const double *col = chol + (size_t)m * (size_t)j;
        double y = x[j] / col[j];
        x[j] = y;
        for (int i = j + 1; i < m; ++i) x[i] -= col[i] * y;
    }
    for (int j = m - 1; j >= 0; --j) { /* L^T z = y: row j of L^T is column j of L */
        const double *col = chol + (size_t)m * (size_t)j;
        double s = x[j];
        for (int i = j + 1; i < m; ++i) s -= col[i] * x[i];
        x[j] = s / col[j];
    }
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

/* Below this order the recursions hand over to LAPACK's unblocked kernels. */
enum { RECURSION_BASE = 32 };

/* L (n x n lower, leading dimension ld) <- L^{-1}, in place: with L = [L11 0; L21 L22],
 * L^{-1} = [X11 0; -X22 L21 X11 X22], X = the inverses of the diagonal blocks. Recursive so
 * that the work is matrix-matrix products: OpenBLAS's dtrtri runs unblocked (matrix-vector)
 * at the sizes of a world's islands, where it was 3x slower than this (perf). */
static lucid_status lower_inverse(double *L, int n, int ld) {
    if (n <= RECURSION_BASE) {
        lapack_int info = LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, L, ld);
        return info == 0 ? LUCID_OK : info > 0 ? LUCID_ERR_NOT_SPD : LUCID_ERR_INTERNAL;
    }
    int n1 = n / 2, n2 = n - n1;
    double *L11 = L, *L21 = L + n1, *L22 = L + n1 + (size_t)ld * n1;
    lucid_status status = lower_inverse(L11, n1, ld);
    if (status == LUCID_OK) status = lower_inverse(L22, n2, ld);
    if (status != LUCID_OK) return status;
    cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, 1.0, L11,
                ld, L21, ld);
    cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, -1.0, L22,
                ld, L21, ld);
    return LUCID_OK;
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

lucid_status lucid_contact_inverse(const double *A, const double *R, double shift, int m,
                                   double *inv) {
    lucid_status status = lucid_contact_cholesky(A, R, shift, m, inv);
    if (status == LUCID_OK) status = lower_inverse(inv, m, m); /* L^{-1} */
    if (status == LUCID_OK) lower_gram(inv, m, m);             /* L^{-T} L^{-1} = (L L^T)^{-1} */
    return status;
}

/* out = S x for the symmetric S whose lower triangle inv holds (dsymv written out, for the
 * reason given at lucid_contact_cholesky_solve): column j adds S(j:m, j) x_j below the
 * diagonal and S(j+1:m, j) . x(j+1:m) to out_j. */
void lucid_contact_inverse_apply(const double *inv, int m, const double *x, double *out) {
    for (int i = 0; i < m; ++i) out[i] = 0.0;
    for (int j = 0; j < m; ++j) {
        const double *col = inv + (size_t)m * (size_t)j;
        double xj = x[j], s = col[j] * xj;
        for (int i = j + 1; i < m; ++i) {
            out[i] += col[i] * xj;
            s += col[i] * x[i];
        }
        out[j] += s;
    }
}
