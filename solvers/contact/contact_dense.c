/* The contact solvers' dense factorisations of G + R + shift I (Cholesky, its inverse, the
 * spectrum) on caller-owned buffers, through the unchecked kernels of solvers/dense. */
#include <string.h>

#include "solvers/contact/contact_internal.h"
#include "solvers/dense/dense_kernels.h"

static void copy_shifted(const double *A, const double *R, double shift, int m, double *out) {
    memcpy(out, A, sizeof(double) * (size_t)m * (size_t)m);
    for (int k = 0; k < m; ++k) out[k + (size_t)m * k] += shift + (R ? R[k] : 0.0);
}

lucid_status lucid_contact_cholesky(const double *A, const double *R, double shift, int m,
                                    double *chol) {
    copy_shifted(A, R, shift, m, chol);
    int info = lucid_dense_potrf(m, chol, m);
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
    int info = lucid_dense_syevd(vectors != NULL, m, a, m, values, ws->lwork, ws->lwork_size,
                                 ws->iwork, ws->iwork_size);
    return info == 0 ? LUCID_OK : LUCID_ERR_INTERNAL;
}

lucid_status lucid_contact_invert_factor(double *chol, int m) {
    int info = lucid_dense_cholesky_inverse(m, chol, m);
    return info == 0 ? LUCID_OK : info > 0 ? LUCID_ERR_NOT_SPD : LUCID_ERR_INTERNAL;
}

lucid_status lucid_contact_inverse(const double *A, const double *R, double shift, int m,
                                   double *inv) {
    lucid_status status = lucid_contact_cholesky(A, R, shift, m, inv);
    return status == LUCID_OK ? lucid_contact_invert_factor(inv, m) : status;
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
