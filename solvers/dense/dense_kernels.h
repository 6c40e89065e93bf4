/* Unchecked dense kernels for hot paths, on caller-owned buffers: no scan of the inputs and no
 * allocation (LAPACK's _work routines and CBLAS level 3), where the checked API
 * (dense_cholesky.h, dense_lu.h, ...) validates every entry first. Column-major; triangles are
 * the lower ones. The int-valued kernels return LAPACK's info: 0 on success, i > 0 when a
 * factorisation failed at column i (a non-positive pivot, an exactly zero one), < 0 for an
 * invalid argument. */
#ifndef LUCID_DENSE_KERNELS_H
#define LUCID_DENSE_KERNELS_H

/* A = L L^T: a's lower triangle becomes L (its strict upper triangle is not touched). */
int lucid_dense_potrf(int n, double *a, int lda);
/* B <- A^-1 B from the factor L of lucid_dense_potrf. */
int lucid_dense_potrs(int n, int nrhs, const double *l, int ldl, double *b, int ldb);
/* A = P L U with partial pivoting (ipiv 1-based, as LAPACK's): up to order 48 by unblocked
 * loops (dgetf2's steps and pivots; LAPACK's call and blocking overheads exceed the arithmetic
 * there), LAPACK's dgetrf above. */
int lucid_dense_getrf(int n, double *a, int lda, int *ipiv);
/* B <- A^-1 B (A^-T B when transposed) from lucid_dense_getrf's factors. */
int lucid_dense_getrs(int transposed, int n, int nrhs, const double *lu, int ldlu, const int *ipiv,
                      double *b, int ldb);
/* The same by LAPACK's dgetrf/dgetrs at every order, whose kernels round less than the
 * unblocked loops: for systems whose answers' precision follows the LU's rounding (the
 * interior point's Newton systems as kappa -> 0). */
int lucid_dense_getrf_lapack(int n, double *a, int lda, int *ipiv);
int lucid_dense_getrs_lapack(int transposed, int n, int nrhs, const double *lu, int ldlu,
                             const int *ipiv, double *b, int ldb);
/* The eigenvalues w (ascending) of the symmetric A (its lower triangle), and its eigenvectors
 * in a when `vectors` (else a is destroyed); work: lwork >= 1 + 6n + 2n^2 doubles, iwork:
 * liwork >= 3 + 5n ints. */
int lucid_dense_syevd(int vectors, int n, double *a, int lda, double *w, double *work, int lwork,
                      int *iwork, int liwork);
/* L (lower, the factor of lucid_dense_potrf) <- the lower triangle of (L L^T)^-1, in place:
 * L^-1 then L^-T L^-1, each by a recursion on halves whose work is matrix-matrix products
 * (LAPACK's dtrtri and dlauum run unblocked at the sizes of a contact island). */
int lucid_dense_cholesky_inverse(int n, double *l, int ld);
/* ||A||_1, the largest column sum of |A| (m x n). */
double lucid_dense_norm1_unchecked(int m, int n, const double *a, int lda);
/* One step of Hager and Higham's estimate of ||A^-1||_1 (LAPACK dlacn2): call with kase = 0,
 * then while kase != 0 replace x by A^-1 x (kase 1) or A^-T x (kase 2) and call again; est is
 * the estimate. v, x: n doubles; isgn: n ints; isave: 3 ints kept between calls. */
void lucid_dense_lacn2(int n, double *v, double *x, int *isgn, double *est, int *kase, int *isave);
/* The complete orthogonal decomposition's kernels below run, up to order 48, unblocked loops
 * with the steps of LAPACK's own unblocked kernels (dlaqp2, dlatrz, dorm2r, dormr3; the norms
 * summed in long double), LAPACK above and for fixed pivot columns: its call layers cost more
 * than the arithmetic at a contact island's size. */
/* A P = Q R with column pivoting (jpvt in/out, 1-based; 0 entries are free columns). */
int lucid_dense_geqp3(int m, int n, double *a, int lda, int *jpvt, double *tau, double *work,
                      int lwork);
/* The upper trapezoidal m x n (m <= n) R = [R1 R2] reduced to [T 0] Z (LAPACK dtzrzf). */
int lucid_dense_tzrzf(int m, int n, double *a, int lda, double *tau, double *work, int lwork);
/* C (m x n) <- Q^T C (Q C when not transposed), Q of lucid_dense_geqp3's k reflectors. */
int lucid_dense_ormqr(int transposed, int m, int n, int k, const double *a, int lda,
                      const double *tau, double *c, int ldc, double *work, int lwork);
/* C (m x n) <- Z^T C (Z C when not transposed), Z of lucid_dense_tzrzf's k reflectors of
 * length l. */
int lucid_dense_ormrz(int transposed, int m, int n, int k, int l, const double *a, int lda,
                      const double *tau, double *c, int ldc, double *work, int lwork);

#endif
