/* Dense LAPACK kernels: known solutions, reconstructions, error statuses, workspace reuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>

#include "solvers/dense/dense_cholesky.h"
#include "solvers/dense/dense_eigen.h"
#include "solvers/dense/dense_input.h"
#include "solvers/dense/dense_kernels.h"
#include "solvers/dense/dense_least_squares.h"
#include "solvers/dense/dense_lu.h"
#include "solvers/dense/dense_product.h"
#include "solvers/dense/dense_qr.h"
#include "solvers/dense/dense_status.h"
#include "solvers/dense/dense_svd.h"
#include "solvers/dense/dense_threads.h"
#include "solvers/dense/dense_workspace.h"

#define MAXN            8
#define AT(a, ld, i, j) ((a)[(i) + (ld) * (j)])

/* ---- helpers ---- */

/* |a - b| <= tol for doubles (cmocka's float assertion rounds to single precision). */
#define assert_near(a, b, tol) assert_near_at((a), (b), (tol), __FILE__, __LINE__)
static void assert_near_at(double a, double b, double tol, const char *file, int line) {
    if (fabs(a - b) <= tol) return;
    print_error("%.17g != %.17g (tolerance %g)\n", a, b, tol);
    _fail(file, line);
}

/* C = op(A) op(B) by plain loops, the reference for every product check. */
static void naive_matmul(int m, int n, int k, const double *a, int ta, const double *b, int tb,
                         double *c) {
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int p = 0; p < k; ++p)
                s += (ta ? a[p + k * i] : a[i + m * p]) * (tb ? b[j + n * p] : b[p + k * j]);
            c[i + m * j] = s;
        }
}

/* Deterministic, well-spread entries in [-1, 1]. */
static void fill(double *a, int count, double seed) {
    for (int k = 0; k < count; ++k) a[k] = sin(seed * (k + 1) + 0.37 * k * k);
}

/* The Householder reflection I - 2 v v^T / (v^T v): orthogonal and symmetric. */
static void householder(int n, double seed, double *q) {
    double v[MAXN], vv = 0.0;
    fill(v, n, seed);
    for (int i = 0; i < n; ++i) vv += v[i] * v[i];
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) q[i + n * j] = (i == j) - 2.0 * v[i] * v[j] / vv;
}

static void assert_all_near(const double *a, const double *b, int count, double tol) {
    for (int k = 0; k < count; ++k) assert_near(a[k], b[k], tol);
}

/* Max |Q^T Q - I| over the k x k Gram matrix of the m x k matrix Q. */
static void assert_orthonormal_columns(int m, int k, const double *q, double tol) {
    double g[MAXN * MAXN];
    naive_matmul(k, k, m, q, 1, q, 0, g);
    for (int j = 0; j < k; ++j)
        for (int i = 0; i < k; ++i) assert_near(g[i + k * j], i == j ? 1.0 : 0.0, tol);
}

static lucid_dense_workspace *ws_new(void) {
    lucid_dense_workspace *ws = lucid_dense_workspace_create();
    assert_non_null(ws);
    return ws;
}

/* ---- Cholesky ---- */

static void cholesky_recovers_the_factor_and_solves(void **state) {
    (void)state;
    enum { n = 4 };
    const double l0[n * n] = {2, 1, -1, 0.5, 0, 3, 2, -1, 0, 0, 1.5, 0.25, 0, 0, 0, 0.8};
    double a[n * n], x[n] = {1, -2, 3, 0.5}, b[n];
    naive_matmul(n, n, n, l0, 0, l0, 1, a); /* A = L0 L0^T, SPD */
    naive_matmul(n, 1, n, a, 0, x, 0, b);
    double l[n * n];
    memcpy(l, a, sizeof a);
    assert_int_equal(lucid_dense_cholesky(n, l, n), LUCID_OK);
    assert_all_near(l, l0, n * n, 1e-13); /* the factor with positive diagonal is unique */
    assert_int_equal(lucid_dense_cholesky_solve(n, 1, l, n, b, n), LUCID_OK);
    assert_all_near(b, x, n, 1e-12);
}

static void cholesky_rejects_bad_input(void **state) {
    (void)state;
    double indefinite[4] = {1, 2, 2, 1}; /* eigenvalues 3 and -1 */
    assert_int_equal(lucid_dense_cholesky(2, indefinite, 2), LUCID_ERR_NOT_SPD);
    double nan_a[4] = {1, NAN, NAN, 1};
    assert_int_equal(lucid_dense_cholesky(2, nan_a, 2), LUCID_ERR_NONFINITE);
    double ok[4] = {4, 0, 0, 9}, b[2] = {INFINITY, 1};
    assert_int_equal(lucid_dense_cholesky(2, ok, 2), LUCID_OK);
    assert_int_equal(lucid_dense_cholesky_solve(2, 1, ok, 2, b, 2), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_dense_cholesky(0, ok, 1), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_dense_cholesky(2, ok, 1), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_dense_cholesky(2, NULL, 2), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_dense_cholesky_solve(2, 0, ok, 2, b, 2), LUCID_ERR_ARGUMENT);
}

/* ---- LU ---- */

static void lu_solves_a_system_that_needs_pivoting(void **state) {
    (void)state;
    lucid_dense_workspace *ws = ws_new();
    enum { n = 3, nrhs = 2 };
    /* a zero leading entry: elimination without row exchanges would divide by zero */
    const double a0[n * n] = {0, 2, 1, 1, -1, 3, 4, 0, -2};
    const double x[n * nrhs] = {1, 2, 3, -0.5, 0.25, 7};
    double a[n * n], b[n * nrhs];
    memcpy(a, a0, sizeof a);
    naive_matmul(n, nrhs, n, a0, 0, x, 0, b);
    assert_int_equal(lucid_dense_lu_solve(ws, n, nrhs, a, n, b, n), LUCID_OK);
    assert_all_near(b, x, n * nrhs, 1e-13);
    lucid_dense_workspace_destroy(ws);
}

static void inverse_of_orthogonal_is_transpose(void **state) {
    (void)state;
    lucid_dense_workspace *ws = ws_new();
    enum { n = 5 };
    double h1[n * n], h2[n * n], q[n * n], inv[n * n];
    householder(n, 0.7, h1);
    householder(n, 1.9, h2);
    naive_matmul(n, n, n, h1, 0, h2, 0, q); /* a non-symmetric orthogonal matrix */
    memcpy(inv, q, sizeof q);
    assert_int_equal(lucid_dense_inverse(ws, n, inv, n), LUCID_OK);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) assert_near(AT(inv, n, i, j), AT(q, n, j, i), 1e-14);
    lucid_dense_workspace_destroy(ws);
}

static void inverse_times_matrix_is_identity(void **state) {
    (void)state;
    lucid_dense_workspace *ws = ws_new();
    enum { n = 6 };
    double a[n * n], inv[n * n], prod[n * n];
    fill(a, n * n, 2.3);
    for (int i = 0; i < n; ++i) AT(a, n, i, i) += 3.0; /* comfortably invertible */
    memcpy(inv, a, sizeof a);
    assert_int_equal(lucid_dense_inverse(ws, n, inv, n), LUCID_OK);
    naive_matmul(n, n, n, a, 0, inv, 0, prod);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) assert_near(AT(prod, n, i, j), i == j, 1e-13);
    lucid_dense_workspace_destroy(ws);
}

/* ---- unchecked kernels (dense_kernels.h) ---- */

/* The unchecked LU and Cholesky solve what the checked API solves (A^T x = b too), the
 * recursive inverse of L L^T times A is the identity on both sides of its recursion base,
 * and dlacn2's estimate of ||A^-1||_1 is a lower bound within a factor 3 of it. */
static void unchecked_kernels_match_the_checked_ones(void **state) {
    (void)state;
    enum { n = 6 };
    double a0[n * n], a[n * n], b[n], x[n] = {1, -2, 3, 0.5, -1, 2}, y[n];
    int ipiv[n];
    fill(a0, n * n, 2.3);
    for (int i = 0; i < n; ++i) AT(a0, n, i, i) += 3.0;
    memcpy(a, a0, sizeof a);
    assert_int_equal(lucid_dense_getrf(n, a, n, ipiv), 0);
    naive_matmul(n, 1, n, a0, 1, x, 0, b); /* b = A^T x */
    assert_int_equal(lucid_dense_getrs(1, n, 1, a, n, ipiv, b, n), 0);
    assert_all_near(b, x, n, 1e-13);
    /* ||A^-1||_1 from the inverse's columns, against the estimate */
    double inv_norm = 0.0;
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) y[i] = i == j;
        assert_int_equal(lucid_dense_getrs(0, n, 1, a, n, ipiv, y, n), 0);
        double s = 0.0;
        for (int i = 0; i < n; ++i) s += fabs(y[i]);
        inv_norm = fmax(inv_norm, s);
    }
    double v[n], w[n], est = 0.0;
    int isgn[n], kase = 0, isave[3] = {0, 0, 0};
    do {
        lucid_dense_lacn2(n, v, w, isgn, &est, &kase, isave);
        if (kase) assert_int_equal(lucid_dense_getrs(kase != 1, n, 1, a, n, ipiv, w, n), 0);
    } while (kase);
    assert_true(est <= inv_norm * (1 + 1e-12) && est >= inv_norm / 3);
    const int sizes[] = {1, 31, 33, 100};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; ++t) {
        int m = sizes[t];
        double *g = malloc(sizeof(double) * (size_t)m * m), *l = malloc(sizeof(double) * m * m);
        fill(g, m * m, 0.4 + (double)t);
        for (int j = 0; j < m; ++j) /* symmetric, diagonally dominant */
            for (int i = 0; i < j; ++i) AT(g, m, i, j) = AT(g, m, j, i);
        for (int i = 0; i < m; ++i) AT(g, m, i, i) = fabs(AT(g, m, i, i)) + m;
        memcpy(l, g, sizeof(double) * (size_t)m * m);
        assert_int_equal(lucid_dense_potrf(m, l, m), 0);
        assert_int_equal(lucid_dense_cholesky_inverse(m, l, m), 0);
        double worst = 0.0;
        for (int j = 0; j < m; ++j)
            for (int i = 0; i < m; ++i) {
                double s = 0.0;
                for (int k = 0; k < m; ++k)
                    s += AT(g, m, i, k) * (k >= j ? AT(l, m, k, j) : AT(l, m, j, k));
                worst = fmax(worst, fabs(s - (i == j)));
            }
        assert_true(worst < 1e-12);
        free(g), free(l);
    }
}

static void lu_reports_exactly_and_numerically_singular(void **state) {
    (void)state;
    lucid_dense_workspace *ws = ws_new();
    double b[3] = {1, 2, 3};
    double zero_col[9] = {1, 2, 3, 0, 0, 0, 4, 5, 6};
    assert_int_equal(lucid_dense_lu_solve(ws, 3, 1, zero_col, 3, b, 3), LUCID_ERR_SINGULAR);
    double zero_col2[9] = {1, 2, 3, 0, 0, 0, 4, 5, 6};
    assert_int_equal(lucid_dense_inverse(ws, 3, zero_col2, 3), LUCID_ERR_SINGULAR);

    /* last column = 0.1 * column 1 + 0.7 * column 2: singular in exact arithmetic, but
     * rounding leaves a last pivot of about 1e-16 instead of 0, which dgetrf alone accepts
     * (that premise is asserted first) */
    enum { n = 4 };
    double near[n * n], probe[n * n], b4[n] = {1, 2, 3, 4};
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            near[i + n * j] = sin(1.3 * (i + 1) + 0.7 * j * j + 0.1 * i * j);
    for (int i = 0; i < n; ++i) near[i + n * (n - 1)] = 0.1 * near[i] + 0.7 * near[i + n];
    int ipiv[n];
    memcpy(probe, near, sizeof near);
    assert_int_equal(LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, probe, n, ipiv), 0);
    memcpy(probe, near, sizeof near);
    assert_int_equal(lucid_dense_lu_solve(ws, n, 1, probe, n, b4, n), LUCID_ERR_SINGULAR);
    assert_near(b4[0], 1.0, 0.0); /* b is left untouched when the check fails */
    memcpy(probe, near, sizeof near);
    assert_int_equal(lucid_dense_inverse(ws, n, probe, n), LUCID_ERR_SINGULAR);
    lucid_dense_workspace_destroy(ws);
}

static void lu_rejects_bad_input(void **state) {
    (void)state;
    lucid_dense_workspace *ws = ws_new();
    double a[4] = {1, 0, 0, 1}, b[2] = {1, NAN};
    assert_int_equal(lucid_dense_lu_solve(ws, 2, 1, a, 2, b, 2), LUCID_ERR_NONFINITE);
    double a_inf[4] = {1, 0, INFINITY, 1};
    assert_int_equal(lucid_dense_inverse(ws, 2, a_inf, 2), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_dense_lu_solve(ws, 0, 1, a, 1, b, 1), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_dense_inverse(ws, 0, a, 1), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_dense_inverse(NULL, 2, a, 2), LUCID_ERR_ARGUMENT);
    lucid_dense_workspace_destroy(ws);
}

/* ---- least squares ---- */

static void qr_least_squares_satisfies_normal_equations(void **state) {
    (void)state;
    lucid_dense_workspace *ws = ws_new();
    enum { m = 6, n = 3 };
    double a0[m * n], a[m * n], b0[m], b[m], r[m], atr[n];
    fill(a0, m * n, 0.9);
    fill(b0, m, 3.1); /* generic b: not in the range of A */
    memcpy(a, a0, sizeof a);
    memcpy(b, b0, sizeof b);
    assert_int_equal(lucid_dense_least_squares_qr(ws, m, n, 1, a, m, b, m), LUCID_OK);
    naive_matmul(m, 1, n, a0, 0, b, 0, r);
    for (int i = 0; i < m; ++i) r[i] -= b0[i];
    naive_matmul(n, 1, m, a0, 1, r, 0, atr); /* A^T (A x - b) = 0 at the minimiser */
    for (int j = 0; j < n; ++j) assert_near(atr[j], 0.0, 1e-13);
    lucid_dense_workspace_destroy(ws);
}

static void qr_underdetermined_gives_minimum_norm(void **state) {
    (void)state;
    lucid_dense_workspace *ws = ws_new();
    /* x1 + x2 + x3 = 3: the minimum-norm solution is (1, 1, 1) */
    double a[3] = {1, 1, 1}, b[3] = {3, 0, 0};
    assert_int_equal(lucid_dense_least_squares_qr(ws, 1, 3, 1, a, 1, b, 3), LUCID_OK);
    const double expect[3] = {1, 1, 1};
    assert_all_near(b, expect, 3, 1e-14);
    lucid_dense_workspace_destroy(ws);
}

static void qr_rejects_rank_deficient(void **state) {
    (void)state;
    lucid_dense_workspace *ws = ws_new();
    /* column 2 = 0.3 * column 1 (inexact in binary), and an exactly zero column */
    double a[8] = {1.1, 2.3, -0.7, 0.9, 0.33, 0.69, -0.21, 0.27}, b[4] = {1, 2, 3, 4};
    for (int i = 0; i < 4; ++i) a[4 + i] = 0.3 * a[i];
    assert_int_equal(lucid_dense_least_squares_qr(ws, 4, 2, 1, a, 4, b, 4),
                     LUCID_ERR_RANK_DEFICIENT);
    double z[8] = {1, 2, 3, 4, 0, 0, 0, 0}, b2[4] = {1, 2, 3, 4};
    assert_int_equal(lucid_dense_least_squares_qr(ws, 4, 2, 1, z, 4, b2, 4),
                     LUCID_ERR_RANK_DEFICIENT);
    double nan_a[2] = {NAN, 1}, b3[2] = {1, 1};
    assert_int_equal(lucid_dense_least_squares_qr(ws, 2, 1, 1, nan_a, 2, b3, 2),
                     LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_dense_least_squares_qr(ws, 0, 1, 1, nan_a, 1, b3, 1),
                     LUCID_ERR_ARGUMENT);
    double ok[2] = {1, 2}, short_b[2] = {1, 1};
    assert_int_equal(lucid_dense_least_squares_qr(ws, 1, 2, 1, ok, 1, short_b, 1),
                     LUCID_ERR_ARGUMENT); /* ldb < max(m, n) */
    lucid_dense_workspace_destroy(ws);
}

static void min_norm_matches_pseudo_inverse_on_rank_one(void **state) {
    (void)state;
    lucid_dense_workspace *ws = ws_new();
    /* A = u c^T (rank 1), so A^+ = c u^T / (|u|^2 |c|^2) and x = c (u . b) / (|u|^2 |c|^2) */
    const double u[3] = {1, 2, 3}, c[2] = {2, -1}, b0[3] = {0.5, -1, 4};
    double a[6], b[3];
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 3; ++i) a[i + 3 * j] = u[i] * c[j];
    memcpy(b, b0, sizeof b);
    double ub = 0, uu = 0, cc = 0;
    for (int i = 0; i < 3; ++i) ub += u[i] * b0[i], uu += u[i] * u[i];
    for (int j = 0; j < 2; ++j) cc += c[j] * c[j];
    int rank = -1;
    assert_int_equal(lucid_dense_least_squares_min_norm(ws, 3, 2, 1, a, 3, b, 3, -1.0, &rank),
                     LUCID_OK);
    assert_int_equal(rank, 1);
    for (int j = 0; j < 2; ++j) assert_near(b[j], c[j] * ub / (uu * cc), 1e-14);
    lucid_dense_workspace_destroy(ws);
}

static void min_norm_full_rank_matches_qr_and_rejects_bad_input(void **state) {
    (void)state;
    lucid_dense_workspace *ws = ws_new();
    enum { m = 5, n = 3 };
    double a0[m * n], a1[m * n], a2[m * n], b1[m], b2[m];
    fill(a0, m * n, 1.3);
    fill(b1, m, 0.4);
    memcpy(b2, b1, sizeof b1);
    memcpy(a1, a0, sizeof a0);
    memcpy(a2, a0, sizeof a0);
    int rank = 0;
    assert_int_equal(lucid_dense_least_squares_min_norm(ws, m, n, 1, a1, m, b1, m, -1, &rank),
                     LUCID_OK);
    assert_int_equal(rank, n);
    assert_int_equal(lucid_dense_least_squares_qr(ws, m, n, 1, a2, m, b2, m), LUCID_OK);
    assert_all_near(b1, b2, n, 1e-13);
    double nan_b[2] = {NAN, 0}, one[2] = {1, 1};
    assert_int_equal(lucid_dense_least_squares_min_norm(ws, 2, 1, 1, one, 2, nan_b, 2, -1, &rank),
                     LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_dense_least_squares_min_norm(ws, 2, 0, 1, one, 2, one, 2, -1, &rank),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_dense_least_squares_min_norm(ws, 2, 1, 1, one, 2, one, 2, -1, NULL),
                     LUCID_ERR_ARGUMENT);
    lucid_dense_workspace_destroy(ws);
}

/* ---- eigen ---- */

static void symmetric_eigen_recovers_spectrum_and_reconstructs(void **state) {
    (void)state;
    lucid_dense_workspace *ws = ws_new();
    enum { n = 4 };
    const double d[n] = {5, -1, 2, 0.5}, ascending[n] = {-1, 0.5, 2, 5};
    double q[n * n], qd[n * n], a[n * n], v[n * n], w[n], vd[n * n], back[n * n];
    householder(n, 1.1, q);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) qd[i + n * j] = q[i + n * j] * d[j];
    naive_matmul(n, n, n, qd, 0, q, 1, a); /* A = Q diag(d) Q^T */
    assert_true(lucid_dense_is_symmetric(n, a, n, 1e-12));
    memcpy(v, a, sizeof a);
    assert_int_equal(lucid_dense_symmetric_eigen(ws, n, v, n, w), LUCID_OK);
    assert_all_near(w, ascending, n, 1e-13);
    assert_orthonormal_columns(n, n, v, 1e-13);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) vd[i + n * j] = v[i + n * j] * w[j];
    naive_matmul(n, n, n, vd, 0, v, 1, back);
    assert_all_near(back, a, n * n, 1e-13);
    lucid_dense_workspace_destroy(ws);
}

/* The symmetry test is relative to the matrix's largest entry: the same relative asymmetry
 * (1e-9) gets the same verdict at every scale. */
static void symmetry_check_is_relative_to_the_scale(void **state) {
    (void)state;
    const double scales[] = {1e-6, 1.0, 1e6};
    for (int k = 0; k < 3; ++k) {
        double s = scales[k];
        double a[4] = {s, 2 * s, 2 * s * (1 + 1e-9), s};
        assert_true(lucid_dense_is_symmetric(2, a, 2, 1e-8));
        assert_false(lucid_dense_is_symmetric(2, a, 2, 1e-10));
    }
}

static void symmetry_check_and_eigen_bad_input(void **state) {
    (void)state;
    lucid_dense_workspace *ws = ws_new();
    double a[4] = {1, 2, 2 + 1e-9, 1}, w[2];
    assert_false(lucid_dense_is_symmetric(2, a, 2, 1e-10));
    assert_true(lucid_dense_is_symmetric(2, a, 2, 1e-8));
    double nan_a[4] = {1, NAN, NAN, 1};
    assert_false(lucid_dense_is_symmetric(2, nan_a, 2, 1e-10));
    assert_int_equal(lucid_dense_symmetric_eigen(ws, 2, nan_a, 2, w), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_dense_symmetric_eigen(ws, 0, a, 1, w), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_dense_symmetric_eigen(ws, 2, a, 2, NULL), LUCID_ERR_ARGUMENT);
    lucid_dense_workspace_destroy(ws);
}

/* ---- SVD ---- */

/* A = Q1[:, :k] diag(s0) Q2[:k, :]: known singular values; checks s, U, V, reconstruction. */
static void check_svd_shape(lucid_dense_workspace *ws, int m, int n) {
    const int k = m < n ? m : n;
    const double s0[4] = {4, 2.5, 1, 0.125};
    double q1[MAXN * MAXN], q2[MAXN * MAXN], a[MAXN * MAXN] = {0}, work[MAXN * MAXN];
    householder(m, 0.6, q1);
    householder(n, 1.7, q2);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i)
            for (int p = 0; p < k; ++p) a[i + m * j] += q1[i + m * p] * s0[p] * q2[p + n * j];
    double s[MAXN], u[MAXN * MAXN], vt[MAXN * MAXN], v[MAXN * MAXN], us[MAXN * MAXN],
        back[MAXN * MAXN];
    memcpy(work, a, sizeof work);
    assert_int_equal(lucid_dense_svd(ws, m, n, work, m, s, u, m, vt, k), LUCID_OK);
    assert_all_near(s, s0, k, 1e-13);
    assert_orthonormal_columns(m, k, u, 1e-13);
    for (int j = 0; j < n; ++j)
        for (int p = 0; p < k; ++p) v[j + n * p] = vt[p + k * j];
    assert_orthonormal_columns(n, k, v, 1e-13);
    for (int p = 0; p < k; ++p)
        for (int i = 0; i < m; ++i) us[i + m * p] = u[i + m * p] * s[p];
    naive_matmul(m, n, k, us, 0, vt, 0, back);
    assert_all_near(back, a, m * n, 1e-13);
}

static void svd_recovers_singular_values_and_reconstructs(void **state) {
    (void)state;
    lucid_dense_workspace *ws = ws_new();
    check_svd_shape(ws, 5, 3); /* tall */
    check_svd_shape(ws, 3, 5); /* wide */
    check_svd_shape(ws, 4, 4);
    double nan_a[4] = {1, 2, INFINITY, 4}, s[2], u[4], vt[4];
    assert_int_equal(lucid_dense_svd(ws, 2, 2, nan_a, 2, s, u, 2, vt, 2), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_dense_svd(ws, 0, 2, nan_a, 1, s, u, 1, vt, 1), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_dense_svd(ws, 2, 2, nan_a, 2, s, u, 1, vt, 2), LUCID_ERR_ARGUMENT);
    lucid_dense_workspace_destroy(ws);
}

/* ---- status mapping, workspace, threads, products ---- */

static void info_maps_to_the_routine_failure(void **state) {
    (void)state;
    const struct {
        lucid_dense_routine routine;
        lucid_status failure;
    } table[] = {{LUCID_DENSE_POTRF, LUCID_ERR_NOT_SPD},
                 {LUCID_DENSE_GETRF, LUCID_ERR_SINGULAR},
                 {LUCID_DENSE_GETRI, LUCID_ERR_SINGULAR},
                 {LUCID_DENSE_GELS, LUCID_ERR_RANK_DEFICIENT},
                 {LUCID_DENSE_GELSD, LUCID_ERR_NO_CONVERGENCE},
                 {LUCID_DENSE_SYEVD, LUCID_ERR_NO_CONVERGENCE},
                 {LUCID_DENSE_GESVD, LUCID_ERR_NO_CONVERGENCE},
                 {LUCID_DENSE_POTRS, LUCID_ERR_INTERNAL},
                 {LUCID_DENSE_GETRS, LUCID_ERR_INTERNAL},
                 {LUCID_DENSE_GECON, LUCID_ERR_INTERNAL},
                 {LUCID_DENSE_TRCON, LUCID_ERR_INTERNAL},
                 {LUCID_DENSE_GEQP3, LUCID_ERR_INTERNAL}};
    for (size_t k = 0; k < sizeof table / sizeof table[0]; ++k) {
        assert_int_equal(lucid_dense_status_from_info(table[k].routine, 0), LUCID_OK);
        assert_int_equal(lucid_dense_status_from_info(table[k].routine, 2), table[k].failure);
        assert_int_equal(lucid_dense_status_from_info(table[k].routine, -3), LUCID_ERR_INTERNAL);
        assert_int_equal(lucid_dense_status_from_info(table[k].routine, LAPACK_WORK_MEMORY_ERROR),
                         LUCID_ERR_NO_MEMORY);
    }
}

static void workspace_is_queried_once_per_shape_and_reused(void **state) {
    (void)state;
    lucid_dense_workspace *ws = ws_new();
    lucid_dense_workspace_stats s0 = lucid_dense_workspace_get_stats(ws);
    assert_int_equal(s0.doubles, 0);
    assert_int_equal(s0.queries, 0);
    check_svd_shape(ws, 5, 3);
    lucid_dense_workspace_stats s1 = lucid_dense_workspace_get_stats(ws);
    assert_int_equal(s1.queries, 1);
    assert_true(s1.doubles > 0);
    check_svd_shape(ws, 5, 3); /* same shape: no query, no growth */
    lucid_dense_workspace_stats s2 = lucid_dense_workspace_get_stats(ws);
    assert_int_equal(s2.queries, s1.queries);
    assert_int_equal(s2.grows, s1.grows);
    assert_int_equal(s2.doubles, s1.doubles);

    enum { n = 8 };
    double a[n * n], w[n], v[n * n];
    fill(a, n * n, 0.2);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < j; ++i) a[i + n * j] = a[j + n * i];
    memcpy(v, a, sizeof a);
    assert_int_equal(lucid_dense_symmetric_eigen(ws, n, v, n, w), LUCID_OK);
    lucid_dense_workspace_stats s3 = lucid_dense_workspace_get_stats(ws);
    assert_int_equal(s3.queries, s2.queries + 1); /* a new shape is queried ... */
    assert_true(s3.grows > s2.grows);             /* ... and dsyevd needs more room */
    memcpy(v, a, sizeof a);
    assert_int_equal(lucid_dense_symmetric_eigen(ws, n, v, n, w), LUCID_OK);
    lucid_dense_workspace_stats s4 = lucid_dense_workspace_get_stats(ws);
    assert_int_equal(s4.queries, s3.queries);
    assert_int_equal(s4.grows, s3.grows);
    lucid_dense_workspace_destroy(ws);
    lucid_dense_workspace_destroy(NULL);
}

static void thread_count_is_settable(void **state) {
    (void)state;
    assert_int_equal(lucid_dense_set_threads(1), LUCID_OK);
    assert_int_equal(lucid_dense_get_threads(), 1);
    assert_int_equal(lucid_dense_set_threads(0), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_dense_get_threads(), 1);
}

static void products_match_reference_loops(void **state) {
    (void)state;
    static double a[40 * 40], b[40 * 40], c[40 * 40], ref[40 * 40];
    const int shapes[][3] = {{2, 3, 4}, {40, 40, 40}, {40, 1, 37}, {7, 5, 0}, {0, 3, 2}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        const int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        fill(a, m * k, 0.5 + s);
        fill(b, k * n, 1.5 + s);
        for (int i = 0; i < m * n; ++i) c[i] = NAN; /* every entry must be written */
        lucid_dense_matmul(m, n, k, a, b, c);
        naive_matmul(m, n, k, a, 0, b, 0, ref);
        assert_all_near(c, ref, m * n, 1e-12);
    }
    const double v[2] = {3e200, -4e200};
    assert_near(lucid_dense_norm2(2, v), 5e200, 1e186);
    assert_near(lucid_dense_norm2(0, v), 0.0, 0.0);
    assert_near(lucid_dense_norm1(2, 1, v, 2), 7e200, 1e186);
}

/* The strided BLAS passthroughs against loops: transposes, alpha and beta, leading dimensions
 * beyond the rows, and only the documented triangle read (the other one holds NaN). */
static void blas_passthroughs_match_reference_loops(void **state) {
    (void)state;
    enum { M = 5, N = 4, K = 3, LD = 7 };
    double a[LD * 6], b[LD * 6], c[LD * N], ref[LD * N];
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
            fill(a, LD * 6, 0.3 + ta);
            fill(b, LD * 6, 0.7 + tb);
            fill(c, LD * N, 1.1);
            for (int i = 0; i < M; ++i)
                for (int j = 0; j < N; ++j) {
                    double s = 0.0;
                    for (int p = 0; p < K; ++p)
                        s += (ta ? a[p + LD * i] : a[i + LD * p]) *
                             (tb ? b[j + LD * p] : b[p + LD * j]);
                    ref[i + LD * j] = 0.5 * s - 2.0 * c[i + LD * j];
                }
            lucid_dense_gemm(ta, tb, M, N, K, 0.5, a, LD, b, LD, -2.0, c, LD);
            for (int i = 0; i < M; ++i)
                for (int j = 0; j < N; ++j) assert_near(c[i + LD * j], ref[i + LD * j], 1e-14);
        }
    double x[LD], y[LD], yref[LD];
    fill(a, LD * 6, 2.3);
    fill(x, LD, 0.9);
    fill(y, LD, 1.7);
    for (int i = 0; i < M; ++i) {
        double s = 0.0;
        for (int j = 0; j < N; ++j) s += a[i + LD * j] * x[j];
        yref[i] = 3.0 * s + 0.25 * y[i];
    }
    lucid_dense_gemv(M, N, 3.0, a, LD, x, 0.25, y);
    for (int i = 0; i < M; ++i) assert_near(y[i], yref[i], 1e-14);
    /* symmetric: the lower triangle of a, NaN above it */
    fill(y, LD, 1.3);
    for (int i = 0; i < M; ++i) {
        double s = 0.0;
        for (int j = 0; j < M; ++j) s += (i >= j ? a[i + LD * j] : a[j + LD * i]) * x[j];
        yref[i] = -1.5 * s + y[i];
    }
    for (int j = 1; j < M; ++j)
        for (int i = 0; i < j; ++i) a[i + LD * j] = NAN;
    lucid_dense_symv_lower(M, -1.5, a, LD, x, 1.0, y);
    for (int i = 0; i < M; ++i) assert_near(y[i], yref[i], 1e-14);
    /* upper triangular solves: b = op(U) x_true, NaN below the diagonal */
    for (int trans = 0; trans < 2; ++trans) {
        double u[LD * M], xt[LD * 2], rhs[LD * 2];
        fill(u, LD * M, 0.4 + trans);
        fill(xt, LD * 2, 1.9);
        for (int j = 0; j < M; ++j) {
            u[j + LD * j] = 2.0 + fabs(u[j + LD * j]);
            for (int i = j + 1; i < M; ++i) u[i + LD * j] = NAN;
        }
        for (int col = 0; col < 2; ++col)
            for (int i = 0; i < M; ++i) {
                double s = 0.0;
                for (int p = 0; p < M; ++p) {
                    double uip =
                        trans ? (p <= i ? u[p + LD * i] : 0.0) : (i <= p ? u[i + LD * p] : 0.0);
                    s += uip * xt[p + LD * col];
                }
                rhs[i + LD * col] = s;
            }
        lucid_dense_upper_solve(trans, M, 2, u, LD, rhs, LD);
        for (int col = 0; col < 2; ++col)
            for (int i = 0; i < M; ++i) assert_near(rhs[i + LD * col], xt[i + LD * col], 1e-13);
    }
}

/* A P = Q R on a rank-3 6 x 4 matrix (column 2 = column 0 + column 1): P a permutation, R's
 * diagonal non-increasing in magnitude with the last one at round-off, and R^T R = (A P)^T A P
 * (Q orthogonal). Non-finite input and empty shapes. */
static void qr_pivoted_reveals_the_rank(void **state) {
    (void)state;
    enum { M = 6, N = 4 };
    double a[M * N], r[M * N], tau[N];
    int jpvt[N];
    fill(a, M * N, 0.8);
    for (int i = 0; i < M; ++i) a[i + M * 2] = a[i] + a[i + M];
    memcpy(r, a, sizeof a);
    assert_int_equal(lucid_dense_qr_pivoted(M, N, r, M, jpvt, tau), LUCID_OK);
    int seen[N] = {0};
    for (int j = 0; j < N; ++j) {
        assert_true(jpvt[j] >= 1 && jpvt[j] <= N);
        seen[jpvt[j] - 1]++;
    }
    for (int j = 0; j < N; ++j) assert_int_equal(seen[j], 1);
    for (int j = 1; j < N; ++j) assert_true(fabs(r[j + M * j]) <= fabs(r[(j - 1) + M * (j - 1)]));
    assert_true(fabs(r[(N - 1) + M * (N - 1)]) < 1e-12 * fabs(r[0]));
    assert_true(fabs(r[(N - 2) + M * (N - 2)]) > 1e-3 * fabs(r[0]));
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
            double rtr = 0.0, apap = 0.0;
            for (int k = 0; k <= i && k <= j; ++k) rtr += r[k + M * i] * r[k + M * j];
            for (int k = 0; k < M; ++k) apap += a[k + M * (jpvt[i] - 1)] * a[k + M * (jpvt[j] - 1)];
            assert_near(rtr, apap, 1e-12);
        }
    a[3] = NAN;
    assert_int_equal(lucid_dense_qr_pivoted(M, N, a, M, jpvt, tau), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_dense_qr_pivoted(0, N, a, M, jpvt, tau), LUCID_OK);
    assert_int_equal(lucid_dense_qr_pivoted(M, N, r, M - 1, jpvt, tau), LUCID_ERR_ARGUMENT);
}

/* The unblocked LU of small orders (dense_kernels.c) against LAPACK's dgetrf/dgetrs on random
 * matrices of every order around its bound, with a leading dimension above the order: the same
 * pivots (ties do not occur), factors to round-off, solves (A x = b, A^T x = b) to round-off;
 * a zero column gives LAPACK's info (the first zero pivot). */
static void small_lu_matches_lapack(void **state) {
    (void)state;
    enum { top = 70, ld = top + 3 };
    double *a0 = malloc(sizeof(double) * ld * top), *a = malloc(sizeof(double) * ld * top),
           *r = malloc(sizeof(double) * ld * top), b[2 * ld], c[2 * ld];
    int ipiv[top], rpiv[top];
    assert_non_null(a0), assert_non_null(a), assert_non_null(r);
    unsigned seed = 12345u;
    for (int n = 1; n <= top; ++n) {
        for (int k = 0; k < ld * n; ++k) {
            seed = seed * 1103515245u + 12345u;
            a0[k] = (double)(seed >> 8 & 0xffff) / 65536.0 - 0.5;
        }
        memcpy(a, a0, sizeof(double) * ld * (size_t)n), memcpy(r, a0, sizeof(double) * ld * n);
        assert_int_equal(lucid_dense_getrf(n, a, ld, ipiv), 0);
        assert_int_equal(LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, r, ld, rpiv), 0);
        double big = 0.0;
        for (int j = 0; j < n; ++j) {
            assert_int_equal(ipiv[j], rpiv[j]);
            for (int i = 0; i < n; ++i) big = fmax(big, fabs(AT(r, ld, i, j)));
        }
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i)
                assert_true(fabs(AT(a, ld, i, j) - AT(r, ld, i, j)) <= 1e-12 * big * n);
        for (int t = 0; t < 2; ++t) {
            for (int i = 0; i < 2 * ld; ++i) b[i] = c[i] = sin(0.7 * i + n);
            assert_int_equal(lucid_dense_getrs(t, n, 2, a, ld, ipiv, b, ld), 0);
            assert_int_equal(
                LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, t ? 'T' : 'N', n, 2, r, ld, rpiv, c, ld), 0);
            double xs = 0.0;
            for (int i = 0; i < n; ++i) xs = fmax(xs, fmax(fabs(c[i]), fabs(c[ld + i])));
            for (int i = 0; i < n; ++i) {
                assert_true(fabs(b[i] - c[i]) <= 1e-9 * xs);
                assert_true(fabs(b[ld + i] - c[ld + i]) <= 1e-9 * xs);
            }
        }
        for (int i = 0; i < n; ++i) AT(a0, ld, i, n / 2) = 0.0; /* column n/2 exactly 0 */
        memcpy(a, a0, sizeof(double) * ld * (size_t)n), memcpy(r, a0, sizeof(double) * ld * n);
        assert_int_equal(lucid_dense_getrf(n, a, ld, ipiv), n / 2 + 1);
        assert_int_equal(LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, r, ld, rpiv), n / 2 + 1);
    }
    free(a0), free(a), free(r);
}

/* The unblocked pivoted QR, RZ reduction and their applications (orders up to 48) against
 * LAPACK's on random matrices, full rank and of rank n / 2 (the complete orthogonal
 * decomposition of a rank-deficient K, as contact_derivatives.c takes it): the same |R_jj| and
 * Q R = A P (the pivots themselves may differ where two columns' norms tie to round-off), and
 * from LAPACK's factors the same Q^T C, Q C, T, Z^T C and Z C, to round-off. */
static void small_cod_matches_lapack(void **state) {
    (void)state;
    enum { top = 48, ld = top + 3, lwork = 8192 };
    size_t bytes = sizeof(double) * ld * top;
    double *a0 = malloc(bytes), *a = malloc(bytes), *r = malloc(bytes), *qr = malloc(bytes),
           *c = malloc(sizeof(double) * ld * 3), *e = malloc(sizeof(double) * ld * 3),
           *work = malloc(sizeof(double) * lwork), tau[top], rtau[top], tz[top], rtz[top];
    int jp[top], rjp[top];
    assert_non_null(a0), assert_non_null(a), assert_non_null(r), assert_non_null(qr);
    assert_non_null(c), assert_non_null(e), assert_non_null(work);
    unsigned seed = 777u;
    for (int n = 1; n <= top; ++n)
        for (int deficient = 0; deficient < 2; ++deficient) {
            for (int k = 0; k < ld * n; ++k) {
                seed = seed * 1103515245u + 12345u;
                a0[k] = (double)(seed >> 8 & 0xffff) / 65536.0 - 0.5;
            }
            int rank = deficient ? n / 2 : n;
            for (int j = rank; deficient && j < n; ++j) /* column j: a mix of the first rank */
                for (int i = 0; i < n; ++i) {
                    double v = 0.0;
                    for (int q = 0; q < rank; ++q) v += AT(a0, ld, i, q) * sin(1.0 + j + 3.0 * q);
                    AT(a0, ld, i, j) = v;
                }
            memcpy(a, a0, sizeof(double) * ld * (size_t)n);
            memcpy(r, a0, sizeof(double) * ld * (size_t)n);
            for (int j = 0; j < n; ++j) jp[j] = rjp[j] = 0;
            assert_int_equal(lucid_dense_geqp3(n, n, a, ld, jp, tau, work, lwork), 0);
            assert_int_equal(LAPACKE_dgeqp3(LAPACK_COL_MAJOR, n, n, r, ld, rjp, rtau), 0);
            double big = fabs(AT(r, ld, 0, 0)), tol = 1e-12 * big * n;
            for (int j = 0; j < n; ++j) /* the dropped pivots: round-off on both sides */
                assert_true(fabs(fabs(AT(a, ld, j, j)) - fabs(AT(r, ld, j, j))) <= tol);
            for (int j = 0; j < n; ++j) /* Q R = A P */
                for (int i = 0; i < n; ++i) AT(qr, ld, i, j) = i <= j ? AT(a, ld, i, j) : 0.0;
            assert_int_equal(lucid_dense_ormqr(0, n, n, n, a, ld, tau, qr, ld, work, lwork), 0);
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < n; ++i)
                    assert_true(fabs(AT(qr, ld, i, j) - AT(a0, ld, i, jp[j] - 1)) <= tol);
            for (int t = 0; t < 2; ++t) { /* Q^T C, Q C from LAPACK's factors */
                for (int i = 0; i < 3 * ld; ++i) c[i] = e[i] = cos(0.3 * i + n);
                assert_int_equal(lucid_dense_ormqr(t, n, 3, n, r, ld, rtau, c, ld, work, lwork), 0);
                assert_int_equal(LAPACKE_dormqr(LAPACK_COL_MAJOR, 'L', t ? 'T' : 'N', n, 3, n, r,
                                                ld, rtau, e, ld),
                                 0);
                for (int q = 0; q < 3; ++q)
                    for (int i = 0; i < n; ++i)
                        assert_true(fabs(AT(c, ld, i, q) - AT(e, ld, i, q)) <= 1e-12 * n);
            }
            if (rank == n || rank == 0) continue;
            memcpy(a, r, sizeof(double) * ld * (size_t)n);
            assert_int_equal(lucid_dense_tzrzf(rank, n, a, ld, tz, work, lwork), 0);
            assert_int_equal(LAPACKE_dtzrzf(LAPACK_COL_MAJOR, rank, n, r, ld, rtz), 0);
            for (int i = 0; i < rank; ++i) {
                assert_true(fabs(tz[i] - rtz[i]) <= 1e-12 * n);
                for (int j = i; j < n; ++j)
                    assert_true(fabs(AT(a, ld, i, j) - AT(r, ld, i, j)) <= tol);
            }
            for (int t = 0; t < 2; ++t) { /* Z^T C, Z C */
                for (int i = 0; i < 3 * ld; ++i) c[i] = e[i] = cos(0.3 * i + n);
                assert_int_equal(
                    lucid_dense_ormrz(t, n, 3, rank, n - rank, r, ld, rtz, c, ld, work, lwork), 0);
                assert_int_equal(LAPACKE_dormrz(LAPACK_COL_MAJOR, 'L', t ? 'T' : 'N', n, 3, rank,
                                                n - rank, r, ld, rtz, e, ld),
                                 0);
                for (int q = 0; q < 3; ++q)
                    for (int i = 0; i < n; ++i)
                        assert_true(fabs(AT(c, ld, i, q) - AT(e, ld, i, q)) <= 1e-12 * n);
            }
        }
    free(a0), free(a), free(r), free(qr), free(c), free(e), free(work);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cholesky_recovers_the_factor_and_solves),
        cmocka_unit_test(cholesky_rejects_bad_input),
        cmocka_unit_test(unchecked_kernels_match_the_checked_ones),
        cmocka_unit_test(small_lu_matches_lapack),
        cmocka_unit_test(small_cod_matches_lapack),
        cmocka_unit_test(lu_solves_a_system_that_needs_pivoting),
        cmocka_unit_test(inverse_of_orthogonal_is_transpose),
        cmocka_unit_test(inverse_times_matrix_is_identity),
        cmocka_unit_test(lu_reports_exactly_and_numerically_singular),
        cmocka_unit_test(lu_rejects_bad_input),
        cmocka_unit_test(qr_least_squares_satisfies_normal_equations),
        cmocka_unit_test(qr_underdetermined_gives_minimum_norm),
        cmocka_unit_test(qr_rejects_rank_deficient),
        cmocka_unit_test(min_norm_matches_pseudo_inverse_on_rank_one),
        cmocka_unit_test(min_norm_full_rank_matches_qr_and_rejects_bad_input),
        cmocka_unit_test(symmetric_eigen_recovers_spectrum_and_reconstructs),
        cmocka_unit_test(symmetry_check_is_relative_to_the_scale),
        cmocka_unit_test(symmetry_check_and_eigen_bad_input),
        cmocka_unit_test(svd_recovers_singular_values_and_reconstructs),
        cmocka_unit_test(info_maps_to_the_routine_failure),
        cmocka_unit_test(workspace_is_queried_once_per_shape_and_reused),
        cmocka_unit_test(thread_count_is_settable),
        cmocka_unit_test(products_match_reference_loops),
        cmocka_unit_test(blas_passthroughs_match_reference_loops),
        cmocka_unit_test(qr_pivoted_reveals_the_rank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
