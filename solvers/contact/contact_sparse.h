/* The contact problem in body space, for islands too large for a dense Delassus matrix.
 *
 * Contact i has two sides s = 2i, 2i+1, each acting on one body slot body[s] (-1: none, a
 * static body). A side holds two 3 x 6 blocks, rows d = 0..2 along the contact frame
 * (t1, t2, n), columns (linear, angular) of the body's twist:
 *   J_s  the contact Jacobian block (its sign included), and
 *   W_s  = (M_b^-1 J_s^T)^T, the block of M^-1 J^T (linear part / m, angular part I^-1 .),
 * so that G = J M^-1 J^T is never formed: with u_b = sum over the sides s of body b of
 * W_s^T lambda_i (6 numbers a body),
 *   sigma_i = sum_s J_s u_body(s) + g_i + R_i lambda_i,
 *   G_ii    = sum_s J_s W_s^T                                 (the only blocks formed).
 * Storage is O(n + bodies); a product with G costs O(n). Both blocks are row-major, 18
 * numbers a side, 36 a contact. g, mu, R (may be NULL) as in lucid_contact_problem.
 *
 * The velocity-space operator. The solvers touch J and M only through
 *   lucid_contact_sparse_jt      f = J^T y             (contact rows -> velocity space),
 *   lucid_contact_sparse_j       y = J u               (velocity space -> contact rows),
 *   lucid_contact_sparse_apply   y = (J M^-1 J^T + R) x (W = M^-1 J^T applied by bodies),
 * and the factorisation of H = M + J^T diag(w) J (contact_sparse_hessian.h), which reads M
 * (one 6 x 6 block per body slot) and the J blocks. A chain of joints (a robot) enters the
 * same way as a slot whose J rows span its joints and whose M^-1 is applied through the
 * tree factorisation: these four functions are what such rows must provide. */
#ifndef LUCID_CONTACT_SPARSE_H
#define LUCID_CONTACT_SPARSE_H

#include <stddef.h>

#include "solvers/contact/contact_solver.h"

typedef struct lucid_contact_sparse_problem {
    int n;            /* contacts */
    int num_bodies;   /* body slots, 0 .. num_bodies - 1 */
    const int *body;  /* 2n slots (-1 for none) */
    const double *J;  /* 2n x 18: J_s, row-major 3 x 6 */
    const double *W;  /* 2n x 18: W_s = (M^-1 J_s^T)^T, row-major 3 x 6 */
    const double *g;  /* 3n */
    const double *mu; /* n */
    const double *R;  /* 3n or NULL */
    const double *M;  /* num_bodies x 36: each slot's 6 x 6 mass matrix (m I, I_world), row-major;
                       * read by the ADMM and Newton solvers only (NULL for PGS) */
} lucid_contact_sparse_problem;

/* Doubles of workspace lucid_contact_solve_pgs_sparse needs: 6 bodies + 12 n (0 when that
 * overflows size_t or a size is negative). */
size_t lucid_contact_sparse_work_size(int n, int num_bodies);

/* u (6 per body) = M^-1 J^T lambda by bodies, then sigma = J u + g + R lambda (3n). */
void lucid_contact_sparse_velocity(const lucid_contact_sparse_problem *p, const double *lambda,
                                   double *u, double *sigma);

/* Projected Gauss-Seidel of lucid_contact_solve (LCP, CCP and NCP models) on the sparse form:
 * the same per-contact updates in the same order (so the same iterates up to rounding), each
 * in O(1) through the bodies' u; criteria as lucid_contact_solve reports them (the model's,
 * and NCP). work: lucid_contact_sparse_work_size doubles. lambda: warm start when
 * o->warm_start, else zeroed; the answer on exit. G + R is PSD by construction (M positive
 * definite): no check is made. LUCID_ERR_ARGUMENT for a solver other than PGS, a model without
 * PGS, bad sizes or NULL pointers. */
lucid_status lucid_contact_solve_pgs_sparse(const lucid_contact_sparse_problem *p,
                                            const lucid_contact_options *o, double *work,
                                            double *lambda, lucid_contact_result *result);

/* f (6 per body slot) = J^T y (y: 3n) */
void lucid_contact_sparse_jt(const lucid_contact_sparse_problem *p, const double *y, double *f);
/* y (3n) = J u (u: 6 per body slot) */
void lucid_contact_sparse_j(const lucid_contact_sparse_problem *p, const double *u, double *y);
/* y (3n) = (G + R) x with G = J M^-1 J^T through W; u: 6 per body slot of scratch */
void lucid_contact_sparse_apply(const lucid_contact_sparse_problem *p, const double *x, double *u,
                                double *y);

/* G (3n x 3n, column-major) = J M^-1 J^T + diag(R): the dense Delassus matrix of p, built on
 * request only (lucid_world_last_sparse_problem's users); O(n^2) memory and time. */
void lucid_contact_sparse_delassus(const lucid_contact_sparse_problem *p, double *G);

/* The solvers with a body-space implementation (lucid_contact_sparse_has): PGS (LCP, CCP,
 * NCP), ADMM (CCP, NCP) and Newton (CCP). */
int lucid_contact_sparse_has(lucid_contact_model model, lucid_contact_solver solver);

/* Growable memory of the sparse ADMM and Newton solvers (contact_admm_sparse.c,
 * contact_newton_sparse.c): created empty, grown by lucid_contact_sparse_reserve (the only
 * place that allocates), released by destroy. */
typedef struct lucid_contact_sparse_workspace lucid_contact_sparse_workspace;
lucid_contact_sparse_workspace *lucid_contact_sparse_workspace_create(void);
void lucid_contact_sparse_workspace_destroy(lucid_contact_sparse_workspace *ws);
lucid_status lucid_contact_sparse_reserve(lucid_contact_sparse_workspace *ws, int n,
                                          int num_bodies);
/* Bytes the workspace holds. */
size_t lucid_contact_sparse_workspace_bytes(const lucid_contact_sparse_workspace *ws);

/* ADMM of lucid_contact_solve (ccp:admm, ncp:admm) on the sparse form: the same iteration
 * (spectral rho, over-relaxation, De Saxce shift, Anderson acceleration, checks), its x-step
 * (G + R + rho I) x = r solved through H = M + J^T (R + rho I)^-1 J (Woodbury, one LDL
 * factorisation per rho, one step of iterative refinement when ill-conditioned). The
 * spectrum is estimated: the largest eigenvalue of G + R by power iteration, the smallest
 * non-zero one as LUCID_CONTACT_SPARSE_EIG_RATIO times it (G is singular whenever
 * 3n > 6 bodies).
 * dual: the ADMM multiplier as in lucid_contact_solve (may be NULL). ws reserved for p. */
#define LUCID_CONTACT_SPARSE_EIG_RATIO 1e-3
lucid_status lucid_contact_solve_admm_sparse(const lucid_contact_sparse_problem *p,
                                             const lucid_contact_options *o,
                                             lucid_contact_sparse_workspace *ws, double *lambda,
                                             double *dual, lucid_contact_result *result);

/* Primal Newton of lucid_contact_solve (ccp:newton, contact_newton.c) on the sparse form:
 * the same iterate mu, continuation, exact line search and answer, its direction from
 * H dv = -J^T (mu - gamma), H = M + J^T D J (D the projection's 3 x 3 blocks, one sparse LDL
 * factorisation per iteration: MuJoCo's Hessian), dmu = -(mu - gamma) - D J dv,
 * G dmu = J dv. ws reserved for p. */
lucid_status lucid_contact_solve_newton_sparse(const lucid_contact_sparse_problem *p,
                                               const lucid_contact_options *o,
                                               lucid_contact_sparse_workspace *ws, double *lambda,
                                               lucid_contact_result *result);

#endif
