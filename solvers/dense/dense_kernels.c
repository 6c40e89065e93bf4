#include "solvers/dense/dense_kernels.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <lapacke.h>

/* Pivot and sign arrays are passed to LAPACK as they are. */
_Static_assert(sizeof(lapack_int) == sizeof(int), "lapack_int must be int (LP64 LAPACK)");

int lucid_dense_potrf(int n, double *a, int lda) {
    return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, a, lda);
}

int lucid_dense_potrs(int n, int nrhs, const double *l, int ldl, double *b, int ldb) {
    return LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, l, ldl, b, ldb);
}

/* Up to this order the LU and its solves run the unblocked loops below: at a contact island's
 * size LAPACK's blocking, recursion and one BLAS call per column cost more than the arithmetic
 * (docs/benchmarks/solve_choice.md). */
enum { SMALL_LU = 48 };

/* Rows j and p of the n columns of a swapped. */
static void swap_rows(int n, double *a, size_t ld, int j, int p) {
    for (int c = 0; c < n; ++c) {
        double t = a[(size_t)j + ld * (size_t)c];
        a[(size_t)j + ld * (size_t)c] = a[(size_t)p + ld * (size_t)c];
        a[(size_t)p + ld * (size_t)c] = t;
    }
}

/* A = P L U by LAPACK dgetf2's steps: pivot = the first entry of largest magnitude on or below
 * the diagonal, whole rows swapped, the column scaled by the pivot's reciprocal (divided when
 * that would overflow), then the rank-1 update of the trailing block (columns whose row-j entry
 * is zero skipped, as reference BLAS dger skips them). info: the first exactly zero pivot. */
static int small_getrf(int n, double *a, size_t ld, int *ipiv) {
    int info = 0;
    for (int j = 0; j < n; ++j) {
        double *restrict cj = a + ld * (size_t)j;
        int p = j;
        double big = fabs(cj[j]);
        for (int i = j + 1; i < n; ++i)
            if (fabs(cj[i]) > big) big = fabs(cj[i]), p = i;
        ipiv[j] = p + 1;
        if (cj[p] == 0.0) {
            if (info == 0) info = j + 1;
            continue;
        }
        if (p != j) swap_rows(n, a, ld, j, p);
        if (fabs(cj[j]) >= DBL_MIN) {
            double r = 1.0 / cj[j];
            for (int i = j + 1; i < n; ++i) cj[i] *= r;
        } else {
            for (int i = j + 1; i < n; ++i) cj[i] /= cj[j];
        }
        int c = j + 1;
        for (; c + 1 < n; c += 2) { /* two columns a pass: cj's entries loaded once for both */
            double *restrict c0 = a + ld * (size_t)c, *restrict c1 = c0 + ld;
            double f0 = c0[j], f1 = c1[j];
            if (f0 != 0.0 && f1 != 0.0)
                for (int i = j + 1; i < n; ++i) c0[i] -= cj[i] * f0, c1[i] -= cj[i] * f1;
            else if (f0 != 0.0)
                for (int i = j + 1; i < n; ++i) c0[i] -= cj[i] * f0;
            else if (f1 != 0.0)
                for (int i = j + 1; i < n; ++i) c1[i] -= cj[i] * f1;
        }
        if (c < n) {
            double *restrict c0 = a + ld * (size_t)c;
            double f0 = c0[j];
            if (f0 != 0.0)
                for (int i = j + 1; i < n; ++i) c0[i] -= cj[i] * f0;
        }
    }
    return info;
}

/* b <- A^-1 b from small_getrf's factors: the row swaps in order, L (unit lower) forward by
 * columns, U backward by columns. */
static void small_getrs_n(int n, const double *lu, size_t ld, const int *ipiv, double *b) {
    for (int j = 0; j < n; ++j)
        if (ipiv[j] - 1 != j) {
            double t = b[j];
            b[j] = b[ipiv[j] - 1], b[ipiv[j] - 1] = t;
        }
    for (int j = 0; j < n; ++j) {
        const double *cj = lu + ld * (size_t)j;
        double x = b[j];
        if (x != 0.0)
            for (int i = j + 1; i < n; ++i) b[i] -= cj[i] * x;
    }
    for (int j = n; j-- > 0;) {
        const double *cj = lu + ld * (size_t)j;
        double x = b[j] /= cj[j];
        if (x != 0.0)
            for (int i = 0; i < j; ++i) b[i] -= cj[i] * x;
    }
}

/* b <- A^-T b for the w <= 4 columns b[0..w): U^T forward and L^T backward by dot products
 * down the columns, then the row swaps in reverse order. The columns advance together, each
 * with the arithmetic it has alone: a column's dot product is a chain of dependent adds, so one
 * column alone runs at their latency. */
static void small_getrs_t(int n, const double *lu, size_t ld, const int *ipiv, double *const *b,
                          int w) {
    for (int j = 0; j < n; ++j) {
        const double *cj = lu + ld * (size_t)j;
        double s[4];
        for (int c = 0; c < w; ++c) s[c] = b[c][j];
        for (int i = 0; i < j; ++i)
            for (int c = 0; c < w; ++c) s[c] -= cj[i] * b[c][i];
        for (int c = 0; c < w; ++c) b[c][j] = s[c] / cj[j];
    }
    for (int j = n; j-- > 0;) {
        const double *cj = lu + ld * (size_t)j;
        double s[4];
        for (int c = 0; c < w; ++c) s[c] = b[c][j];
        for (int i = j + 1; i < n; ++i)
            for (int c = 0; c < w; ++c) s[c] -= cj[i] * b[c][i];
        for (int c = 0; c < w; ++c) b[c][j] = s[c];
    }
    for (int j = n; j-- > 0;)
        if (ipiv[j] - 1 != j)
            for (int c = 0; c < w; ++c) {
                double t = b[c][j];
                b[c][j] = b[c][ipiv[j] - 1], b[c][ipiv[j] - 1] = t;
            }
}

int lucid_dense_getrf_lapack(int n, double *a, int lda, int *ipiv) {
    return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, a, lda, ipiv);
}

int lucid_dense_getrs_lapack(int transposed, int n, int nrhs, const double *lu, int ldlu,
                             const int *ipiv, double *b, int ldb) {
    return LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, transposed ? 'T' : 'N', n, nrhs, lu, ldlu, ipiv, b,
                               ldb);
}

int lucid_dense_getrf(int n, double *a, int lda, int *ipiv) {
    if (n >= 0 && n <= SMALL_LU && lda >= (n > 1 ? n : 1))
        return small_getrf(n, a, (size_t)lda, ipiv);
    return lucid_dense_getrf_lapack(n, a, lda, ipiv);
}

int lucid_dense_getrs(int transposed, int n, int nrhs, const double *lu, int ldlu, const int *ipiv,
                      double *b, int ldb) {
    if (n < 0 || n > SMALL_LU || nrhs < 0 || ldlu < (n > 1 ? n : 1) || ldb < (n > 1 ? n : 1))
        return lucid_dense_getrs_lapack(transposed, n, nrhs, lu, ldlu, ipiv, b, ldb);
    for (int c = 0; !transposed && c < nrhs; ++c)
        small_getrs_n(n, lu, (size_t)ldlu, ipiv, b + (size_t)ldb * (size_t)c);
    for (int c = 0; transposed && c < nrhs; c += 4) {
        double *cols[4];
        int w = nrhs - c < 4 ? nrhs - c : 4;
        for (int k = 0; k < w; ++k) cols[k] = b + (size_t)ldb * (size_t)(c + k);
        small_getrs_t(n, lu, (size_t)ldlu, ipiv, cols, w);
    }
    return 0;
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

/* Up to this order the pivoted QR, the RZ reduction and their applications run the unblocked
 * loops below: LAPACK runs the same unblocked algorithms there (dlaqp2, dlatrz, dorm2r, dormr3,
 * below its block size), and its calling layers (LAPACKE, one BLAS-2 call per reflector) cost
 * more than the arithmetic (docs/benchmarks/step_derivatives.md). The LU's crossover. */
enum { SMALL_QR = SMALL_LU };

#define AT(a, ld, i, j) (a)[(size_t)(i) + (size_t)(ld) * (size_t)(j)]

/* ||x||_2 of n entries at stride inc: the squares summed in long double (OpenBLAS's x86-64
 * dnrm2 sums in the x87's extended precision, so the reflectors round as LAPACK's), scaled by
 * the largest magnitude where squaring could overflow or underflow. */
static double nrm2(int n, const double *x, size_t inc) {
    double big = 0.0;
    for (int i = 0; i < n; ++i) big = fmax(big, fabs(x[inc * (size_t)i]));
    if (big == 0.0 || !isfinite(big)) return big;
    long double s = 0.0L;
    if (big > 1e-150 && big < 1e150) {
        for (int i = 0; i < n; ++i) s += (long double)x[inc * (size_t)i] * x[inc * (size_t)i];
        return (double)sqrtl(s);
    }
    for (int i = 0; i < n; ++i) {
        long double t = x[inc * (size_t)i] / big;
        s += t * t;
    }
    return big * (double)sqrtl(s);
}

/* sqrt(x^2 + y^2) without overflow (dlapy2). */
static double lapy2(double x, double y) {
    double w = fmax(fabs(x), fabs(y)), z = fmin(fabs(x), fabs(y));
    return z == 0.0 ? w : w * sqrt(1.0 + (z / w) * (z / w));
}

/* The reflector H = I - tau [1; v] [1 v^T] with H [alpha; x] = [beta; 0] (dlarfg): x (n - 1
 * entries at stride inc) becomes v, alpha beta; beta rescaled when it would underflow. */
static void larfg(int n, double *alpha, double *x, size_t inc, double *tau) {
    *tau = 0.0;
    if (n <= 1) return;
    double xnorm = nrm2(n - 1, x, inc);
    if (xnorm == 0.0) return;
    double beta = -copysign(lapy2(*alpha, xnorm), *alpha);
    const double safmin = DBL_MIN / (DBL_EPSILON / 2.0), rsafmn = 1.0 / safmin;
    int knt = 0;
    if (fabs(beta) < safmin) {
        do {
            ++knt;
            for (int i = 0; i < n - 1; ++i) x[inc * (size_t)i] *= rsafmn;
            beta *= rsafmn, *alpha *= rsafmn;
        } while (fabs(beta) < safmin && knt < 20);
        xnorm = nrm2(n - 1, x, inc);
        beta = -copysign(lapy2(*alpha, xnorm), *alpha);
    }
    *tau = (beta - *alpha) / beta;
    double scale = 1.0 / (*alpha - beta);
    for (int i = 0; i < n - 1; ++i) x[inc * (size_t)i] *= scale;
    for (int j = 0; j < knt; ++j) beta *= safmin;
    *alpha = beta;
}

/* C (m x n) <- H C, H = I - tau u u^T, u = [1; v[1..m)] when unit, else v (dlarf from the
 * left: w = C^T u, then C -= tau u w^T, column by column). */
static void larf_left(int m, int n, const double *v, int unit, double tau, double *c, int ldc) {
    if (tau == 0.0) return;
    for (int j = 0; j < n; ++j) {
        double *cj = c + (size_t)ldc * (size_t)j, s = unit ? cj[0] : cj[0] * v[0];
        for (int i = 1; i < m; ++i) s += cj[i] * v[i];
        double t = -tau * s;
        cj[0] += (unit ? 1.0 : v[0]) * t;
        for (int i = 1; i < m; ++i) cj[i] += v[i] * t;
    }
}

/* A P = Q R (dgeqp3 with every column free: dlaqp2's steps): the column of largest remaining
 * norm is swapped in, its reflector applied to the trailing columns, and their norms downdated
 * (recomputed where cancellation would leave fewer than half the digits: tol3z). work: 2n. */
static void small_geqp3(int m, int n, double *a, int lda, int *jpvt, double *tau, double *vn) {
    double *vn1 = vn, *vn2 = vn + n;
    const double tol3z = sqrt(DBL_EPSILON / 2.0);
    for (int j = 0; j < n; ++j) {
        jpvt[j] = j + 1;
        vn1[j] = vn2[j] = nrm2(m, &AT(a, lda, 0, j), 1);
    }
    int k = m < n ? m : n;
    for (int i = 0; i < k; ++i) {
        int pvt = i; /* the first of largest norm, as idamax */
        for (int j = i + 1; j < n; ++j)
            if (fabs(vn1[j]) > fabs(vn1[pvt])) pvt = j;
        if (pvt != i) {
            for (int r = 0; r < m; ++r) {
                double t = AT(a, lda, r, pvt);
                AT(a, lda, r, pvt) = AT(a, lda, r, i), AT(a, lda, r, i) = t;
            }
            int t = jpvt[pvt];
            jpvt[pvt] = jpvt[i], jpvt[i] = t;
            vn1[pvt] = vn1[i], vn2[pvt] = vn2[i];
        }
        larfg(m - i, &AT(a, lda, i, i), &AT(a, lda, i + 1 < m ? i + 1 : i, i), 1, &tau[i]);
        if (i + 1 < n)
            larf_left(m - i, n - i - 1, &AT(a, lda, i, i), 1, tau[i], &AT(a, lda, i, i + 1), lda);
        for (int j = i + 1; j < n; ++j) {
            if (vn1[j] == 0.0) continue;
            double t = fabs(AT(a, lda, i, j)) / vn1[j];
            t = fmax(1.0 - t * t, 0.0);
            double r = vn1[j] / vn2[j];
            if (t * r * r <= tol3z) {
                vn1[j] = i + 1 < m ? nrm2(m - i - 1, &AT(a, lda, i + 1, j), 1) : 0.0;
                vn2[j] = vn1[j];
            } else {
                vn1[j] *= sqrt(t);
            }
        }
    }
}

/* C (m x n) <- H C (from the left) or C H (from the right), H = I - tau u u^T with u = [1; 0;
 * v] whose l entries v (stride incv) meet C's last l rows (left) or columns (right) (dlarz).
 * work: n (left) or m (right). */
static void larz(int left, int m, int n, int l, const double *v, size_t incv, double tau, double *c,
                 int ldc, double *w) {
    if (tau == 0.0) return;
    if (left) {
        for (int j = 0; j < n; ++j) { /* w = C(0, :)^T + C(m-l.., :)^T v */
            double s = 0.0;
            for (int i = 0; i < l; ++i) s += AT(c, ldc, m - l + i, j) * v[incv * (size_t)i];
            w[j] = AT(c, ldc, 0, j) + s;
        }
        for (int j = 0; j < n; ++j) AT(c, ldc, 0, j) += -tau * w[j];
        for (int j = 0; j < n; ++j) {
            double t = -tau * w[j];
            for (int i = 0; i < l; ++i) AT(c, ldc, m - l + i, j) += v[incv * (size_t)i] * t;
        }
        return;
    }
    for (int i = 0; i < m; ++i) w[i] = AT(c, ldc, i, 0); /* w = C(:, 0) + C(:, n-l..) v */
    for (int j = 0; j < l; ++j) {
        double t = v[incv * (size_t)j];
        for (int i = 0; i < m; ++i) w[i] += t * AT(c, ldc, i, n - l + j);
    }
    for (int i = 0; i < m; ++i) AT(c, ldc, i, 0) += -tau * w[i];
    for (int j = 0; j < l; ++j) {
        double t = -tau * v[incv * (size_t)j];
        for (int i = 0; i < m; ++i) AT(c, ldc, i, n - l + j) += w[i] * t;
    }
}

/* [R1 R2] (m x n, m < n) reduced to [T 0] Z, row by row from the last (dlatrz). work: m. */
static void small_tzrzf(int m, int n, double *a, int lda, double *tau, double *work) {
    int l = n - m;
    for (int i = m; i-- > 0;) {
        larfg(l + 1, &AT(a, lda, i, i), &AT(a, lda, i, n - l), (size_t)lda, &tau[i]);
        larz(0, i, n - i, l, &AT(a, lda, i, n - l), (size_t)lda, tau[i], &AT(a, lda, 0, i), lda,
             work);
    }
}

/* The sizes the unblocked loops take: m x n up to SMALL_QR, a leading dimension ld >= rows of
 * its matrix, lwork >= need (LAPACK checks and reports every other case). */
static int small_shape(int m, int n, int ld, int rows, int lwork, int need) {
    return m >= 0 && n >= 0 && m <= SMALL_QR && n <= SMALL_QR && ld >= (rows > 1 ? rows : 1) &&
           lwork >= need;
}

int lucid_dense_geqp3(int m, int n, double *a, int lda, int *jpvt, double *tau, double *work,
                      int lwork) {
    int free_columns = jpvt != NULL;
    for (int j = 0; free_columns && j < n; ++j) free_columns = jpvt[j] == 0;
    if (free_columns && small_shape(m, n, lda, m, lwork, 3 * n + 1)) {
        small_geqp3(m, n, a, lda, jpvt, tau, work);
        return 0;
    }
    return LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, m, n, a, lda, jpvt, tau, work, lwork);
}

int lucid_dense_tzrzf(int m, int n, double *a, int lda, double *tau, double *work, int lwork) {
    if (m <= n && small_shape(m, n, lda, m, lwork, m > 1 ? m : 1)) {
        if (m < n) small_tzrzf(m, n, a, lda, tau, work);
        for (int i = 0; m == n && i < m; ++i) tau[i] = 0.0;
        return 0;
    }
    return LAPACKE_dtzrzf_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, work, lwork);
}

int lucid_dense_ormqr(int transposed, int m, int n, int k, const double *a, int lda,
                      const double *tau, double *c, int ldc, double *work, int lwork) {
    if (k >= 0 && k <= m && small_shape(m, n, lda, m, lwork, n > 1 ? n : 1) &&
        ldc >= (m > 1 ? m : 1)) {
        /* Q^T C = H(k-1) ... H(0) C: the first reflector first; Q C the last first (dorm2r) */
        for (int t = 0; t < k; ++t) {
            int i = transposed ? t : k - 1 - t;
            larf_left(m - i, n, &AT(a, lda, i, i), 1, tau[i], &AT(c, ldc, i, 0), ldc);
        }
        return 0;
    }
    return LAPACKE_dormqr_work(LAPACK_COL_MAJOR, 'L', transposed ? 'T' : 'N', m, n, k, a, lda, tau,
                               c, ldc, work, lwork);
}

int lucid_dense_ormrz(int transposed, int m, int n, int k, int l, const double *a, int lda,
                      const double *tau, double *c, int ldc, double *work, int lwork) {
    if (k >= 0 && k <= m && l >= 0 && l <= m && small_shape(m, n, lda, k, lwork, n > 1 ? n : 1) &&
        ldc >= (m > 1 ? m : 1)) {
        /* Z = H(0) ... H(k-1): Z^T C applies the first first (dormr3) */
        for (int t = 0; t < k; ++t) {
            int i = transposed ? t : k - 1 - t;
            larz(1, m - i, n, l, &AT(a, lda, i, m - l), (size_t)lda, tau[i], &AT(c, ldc, i, 0), ldc,
                 work);
        }
        return 0;
    }
    return LAPACKE_dormrz_work(LAPACK_COL_MAJOR, 'L', transposed ? 'T' : 'N', m, n, k, l, a, lda,
                               tau, c, ldc, work, lwork);
}
