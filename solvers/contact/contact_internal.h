/* Shared internals of the contact solvers (not part of the public API). */
#ifndef LUCID_CONTACT_INTERNAL_H
#define LUCID_CONTACT_INTERNAL_H

#include <float.h>
#include <math.h>

#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_null_rows.h"
#include "solvers/contact/contact_solver.h"

/* Caller-owned scratch memory, sized once for up to `capacity` contacts. */
struct lucid_contact_workspace {
    int capacity;
    double *mat[4];  /* 4 dense (3N)^2 buffers */
    double *vec[16]; /* 16 vectors of 3N */
    double *eig;     /* 3N eigenvalues */
    double *lwork;   /* dsyevd real workspace */
    int *iwork;      /* dsyevd integer workspace */
    int lwork_size, iwork_size;
    double *null_R, *null_mu; /* 3N and N: a problem's R and mu with its null rows conditioned */
    double *ip; /* interior point: LUCID_CONTACT_IP_VECTORS vectors of 3N (contact_ip.c) */
    int *ipiv;  /* 3N pivots of its LU factorisation */
    /* 1 when the solver returned with vec[0] holding (G + R) lambda + g of the returned
     * lambda, which lucid_contact_solve's checks then read instead of recomputing it */
    int sigma_current;
    int sigma_given; /* lucid_contact_workspace_velocity's: vec[0] is of the caller's problem */
    /* What the last solve left for lucid_contact_ip_jvp / _vjp: mat[0] holds the factor of the
     * relaxed system at the returned point when `valid` (reset by every solve). */
    struct {
        int valid, lu, n;
        const double *G, *g, *mu, *R;
    } ip_state;
};

/* Vectors of 3N in the interior-point buffer: 17 + 3 d vectors of d n rows <= 3N (dim 6: 35). */
#define LUCID_CONTACT_IP_VECTORS 35

/* One solve's bookkeeping shared by the solver loops. */
typedef struct lucid_contact_run {
    const lucid_contact_problem *p;
    const lucid_contact_options *o;
    lucid_contact_workspace *ws;
    lucid_contact_result *result;
    lucid_contact_criterion criterion;
} lucid_contact_run;

/* Whether o asks converged answers to be accurate to first order (lucid_contact_options
 * first_order) and the model has a friction direction to check (CCP, NCP; not a relaxed ip). */
int lucid_contact_first_order_applies(const lucid_contact_options *o);

/* --- dense kernels (LAPACK) -------------------------------------------------------------- */
/* chol = lower Cholesky factor of A + diag(R) + shift I (m x m, column-major).
 * LUCID_ERR_NOT_SPD when it does not exist. R may be NULL. */
lucid_status lucid_contact_cholesky(const double *A, const double *R, double shift, int m,
                                    double *chol);
/* x <- (L L^T)^{-1} x */
void lucid_contact_cholesky_solve(const double *chol, int m, double *x);
/* inv = (A + diag(R) + shift I)^{-1}, lower triangle only (from its Cholesky factor, by
 * recursive blocked triangular inversion);
 * LUCID_ERR_NOT_SPD when the factor does not exist. */
lucid_status lucid_contact_inverse(const double *A, const double *R, double shift, int m,
                                   double *inv);
/* chol (lucid_contact_cholesky's factor) <- the inverse's lower triangle, in place */
lucid_status lucid_contact_invert_factor(double *chol, int m);
/* out <- inv x (inv as lucid_contact_inverse leaves it; out and x distinct) */
void lucid_contact_inverse_apply(const double *inv, int m, const double *x, double *out);
/* Eigenvalues (ascending) of A + diag(R), and eigenvectors into `vectors` when not NULL
 * (otherwise `scratch` (m x m) is used). */
lucid_status lucid_contact_eigen(lucid_contact_workspace *ws, const double *A, const double *R,
                                 int m, double *values, double *vectors, double *scratch);

/* --- helpers ------------------------------------------------------------------------------ */
double lucid_contact_max_abs(const double *x, long count);
double lucid_contact_max_abs_diff(const double *x, const double *y, long count);
/* 1 when the iterate moved by at most stall_tol relative to its size (0/0 safe). */
int lucid_contact_stalled(double change, double size, double stall_tol);
/* Evaluates the run's model criterion and the NCP criterion of lambda (sigma is its
 * velocity); returns 1 when the model criterion is below tol. */
int lucid_contact_check(lucid_contact_run *run, const double *lambda, const double *sigma);
/* Checks G + R is PSD with a Cholesky factorisation of G + R + tiny I (for the solvers that
 * factor nothing otherwise). */
lucid_status lucid_contact_check_psd(lucid_contact_run *run);

/* One projected Gauss-Seidel update of contact impulse l (dim 3, 4 or 6: (t1, t2, n), then
 * the spin s and rolling r1, r2) from its velocity s and the diagonal block D = (G + R)_ii
 * (dim x dim, column-major): Alg. 1 (LCP), 2 (CCP), 6 (NCP). Shared by the dense and the
 * sparse PGS (contact_pgs_sparse.c). */
void lucid_contact_pgs_update(int dim, lucid_contact_model model, double mu, const double *D,
                              const double *s, double *l);

/* Newton's R-metric projection needs equal tangential compliances. A tangential row whose
 * diagonal d of G is null (contact_null_rows.h) relative to its given compliance or to the
 * contact's trace is one no motion reaches: its force changes nothing, nor does its
 * compliance, so it takes the other tangent's. given: the problem's 3 entries or NULL. Returns
 * the rows that took the other's (bit a: row a). */
static inline int lucid_contact_newton_null_tangent(const double d[3], const double *given,
                                                    double R[3]) {
    double trace = d[0] + d[1] + d[2];
    int copied = 0; /* bit a: R[a] took R[1 - a] */
    for (int a = 0; a < 2; ++a) {
        double scale = given ? fmax(trace, given[a]) : trace;
        if (d[a] <= LUCID_CONTACT_NULL_ROW * scale) R[a] = R[1 - a], copied |= 1 << a;
    }
    return copied;
}

/* Primal Newton's per-contact pieces on the R-metric cone (contact_newton.c), shared by the
 * dense and body-space solves: n contacts of dim rows (m in all) of friction `friction`; the
 * stage's compliance R (> 0), its square root and per contact the friction of P^R_K's cone,
 * mu sqrt(R_T / R_N); the line mu + a dmu, c + a dc (dc = G dmu). */
typedef struct lucid_contact_newton {
    int n, dim, m;
    const double *friction;
    double *R, *R_root, *mu_scaled;
    const double *mu, *dmu, *c, *dc;
} lucid_contact_newton;
/* The continuation's first stage's newton_compliance (MuJoCo-like) and the factor R shrinks
 * by from stage to stage. */
#define LUCID_CONTACT_NEWTON_CONTINUATION_START  1e-2
#define LUCID_CONTACT_NEWTON_CONTINUATION_FACTOR 1e2
/* The stage's compliance: scale x R_target, and the quantities derived from it. */
void lucid_contact_newton_set_compliance(lucid_contact_newton *nt, const double *R_target,
                                         double scale);
/* Contact i at velocity ci: the projection pg of y = -R^-1/2 c_i and, when S is not NULL, the
 * columns of S_i with D_i = S_i S_i^T; returns their count. */
int lucid_contact_newton_piece(const lucid_contact_newton *nt, int i, const double *ci, double *pg,
                               double (*S)[LUCID_CONE_MAX_DIM]);
/* gamma = P^R_K(-R^{-1} c), contact by contact. */
void lucid_contact_newton_project(const lucid_contact_newton *nt, const double *c, double *gamma);
/* Alg. 4's exact line search along nt's line (e = mu - gamma), then mu, c and gamma moved to
 * its minimiser (gamma_try: scratch); 1 when gamma stalled. */
int lucid_contact_newton_advance(const lucid_contact_run *run, const lucid_contact_newton *nt,
                                 const double *e, double *gamma_try, double *mu, double *c,
                                 double *gamma);

/* --- the solvers -------------------------------------------------------------------------- */
lucid_status lucid_contact_solve_pgs(lucid_contact_run *run, double *lambda);
lucid_status lucid_contact_solve_bisection(lucid_contact_run *run, double *lambda);
lucid_status lucid_contact_solve_admm(lucid_contact_run *run, double *lambda, double *dual);
lucid_status lucid_contact_solve_staggered(lucid_contact_run *run, double *lambda);
lucid_status lucid_contact_solve_newton(lucid_contact_run *run, double *lambda);
/* ncp:newton: semismooth Newton on the Alart-Curnier function (contact_alart_curnier.c). */
lucid_status lucid_contact_solve_alart_curnier(lucid_contact_run *run, double *lambda);
lucid_status lucid_contact_solve_ip(lucid_contact_run *run, double *lambda, double *dual);

#endif
