/* The contact problem in body space, for islands too large for a dense Delassus matrix.
 *
 * Contact i has two sides s = 2i, 2i+1, each acting on one body slot body[s] (-1: none, a
 * static body). A side holds two 3 x 6 blocks (dim x 6: with dim 4 a fourth row, the spin
 * s, with dim 6 the rolling rows r1, r2 too), rows d = 0..2 along the contact frame (t1, t2,
 * n), columns (linear, angular) of the
 * body's twist:
 *   J_s  the contact Jacobian block (its sign included), and
 *   W_s  = (M_b^-1 J_s^T)^T, the block of M^-1 J^T (linear part / m, angular part I^-1 .),
 * so that G = J M^-1 J^T is never formed: with u_b = sum over the sides s of body b of
 * W_s^T lambda_i (6 numbers a body),
 *   sigma_i = sum_s J_s u_body(s) + g_i + R_i lambda_i,
 *   G_ii    = sum_s J_s W_s^T                                 (the only blocks formed).
 * Storage is O(n + bodies); a product with G costs O(n). Both blocks are row-major, 18
 * numbers a side, 36 a contact (6 dim and 12 dim with dim rows). g, mu, R (may be NULL) as in
 * lucid_contact_problem.
 *
 * Slots of any width. A slot is a group of velocity unknowns (columns): 6 for a free body
 * (its twist), nv for an articulated model (all its links share the model's generalised
 * velocities, so a link side's J_s is 3 x nv, dense over the link's ancestor dofs, and
 * W_s = (M~^-1 J_s^T)^T comes from the tree factorisation), or 2 for the tangential rows of
 * a joint limit (J = W = [I_2; 0], unit and decoupled). With dof == NULL every slot is 6 wide
 * (the layout above); otherwise slot b spans columns dof[b] .. dof[b + 1] - 1, side s's
 * 3 x width blocks start at J + side_at[s] and W + side_at[s], and slot b's width x width
 * mass block (row-major, symmetric) at M + mass_at[b]. The helpers below read both layouts,
 * so every operator and solver is written once for slots of width w.
 *
 * The velocity-space operator. The solvers touch J and M only through
 *   lucid_contact_sparse_jt      f = J^T y             (contact rows -> velocity space),
 *   lucid_contact_sparse_j       y = J u               (velocity space -> contact rows),
 *   lucid_contact_sparse_apply   y = (J M^-1 J^T + R) x (W = M^-1 J^T applied by bodies),
 * and the factorisation of H = M + J^T diag(w) J (contact_sparse_hessian.h), which reads M
 * (one block per slot) and the J blocks. A chain of joints (a robot) enters as a slot whose
 * J rows span its joints and whose W = (M~^-1 J^T)^T is applied through the tree
 * factorisation (runtime/world/world_sparse.c): slots of any width, below. */
#ifndef LUCID_CONTACT_SPARSE_H
#define LUCID_CONTACT_SPARSE_H

#include <stddef.h>

#include "solvers/contact/contact_solver.h"

typedef struct lucid_contact_sparse_problem {
    int n;             /* contacts */
    int num_bodies;    /* body slots, 0 .. num_bodies - 1 */
    const int *body;   /* 2n slots (-1 for none) */
    const double *J;   /* 2n x 6 dim: J_s, row-major dim x 6 */
    const double *W;   /* 2n x 6 dim: W_s = (M^-1 J_s^T)^T, row-major dim x 6 */
    const double *g;   /* dim n */
    const double *mu;  /* n */
    const double *R;   /* dim n or NULL */
    const double *M;   /* num_bodies x 36: each slot's 6 x 6 mass matrix (m I, I_world), row-major
                        * (with dof: w x w at mass_at); read by the ADMM and Newton solvers only
                        * (NULL for PGS) */
    const size_t *dof; /* num_bodies + 1 column offsets, or NULL: 6 columns a slot */
    const size_t *side_at; /* 2n offsets of the sides' blocks in J and W (with dof) */
    const size_t *mass_at; /* num_bodies offsets of the slots' blocks in M (with dof) */
    const size_t *span;    /* 4 per side or NULL: its J block is zero outside the columns
                            * [span[4s], span[4s + 1]) of its slot, W outside
                            * [span[4s + 2], span[4s + 3]) (a robot link's rows touch its
                            * ancestors' dofs; M~^-1 spreads W over the ones they move) */
    int dim;               /* rows per contact: 3 (or 0, the same), 4 (torsional friction:
                            * (t1, t2, n, s) as lucid_contact_problem's) or 6 (rolling
                            * friction: (t1, t2, n, s, r1, r2)); the blocks are then dim x w,
                            * and g, R and the solvers' vectors dim n */
} lucid_contact_sparse_problem;

/* Whether dim is a body-space problem's rows per contact (0 meaning 3); the rows per contact
 * of p (3, 4 or 6) and rows in all (dim n). */
static inline int lucid_sparse_dim_valid(int dim) {
    return dim == 0 || dim == 3 || dim == 4 || dim == 6;
}
static inline int lucid_sparse_dim(const lucid_contact_sparse_problem *p) {
    return p->dim == 4 || p->dim == 6 ? p->dim : 3;
}
static inline size_t lucid_sparse_rows(const lucid_contact_sparse_problem *p) {
    return (size_t)lucid_sparse_dim(p) * (size_t)p->n;
}

/* The first column of slot b, its width, the offsets of side s's blocks and of slot b's mass
 * block, and the number of columns (velocity unknowns) of p. */
static inline size_t lucid_sparse_begin(const lucid_contact_sparse_problem *p, int b) {
    return p->dof ? p->dof[b] : 6 * (size_t)b;
}
static inline size_t lucid_sparse_width(const lucid_contact_sparse_problem *p, int b) {
    return p->dof ? p->dof[b + 1] - p->dof[b] : 6;
}
static inline size_t lucid_sparse_side_at(const lucid_contact_sparse_problem *p, int s) {
    return p->dof ? p->side_at[s] : 6 * (size_t)lucid_sparse_dim(p) * (size_t)s;
}
static inline size_t lucid_sparse_mass_at(const lucid_contact_sparse_problem *p, int b) {
    return p->dof ? p->mass_at[b] : 36 * (size_t)b;
}
static inline size_t lucid_sparse_columns(const lucid_contact_sparse_problem *p) {
    return p->dof ? p->dof[p->num_bodies] : 6 * (size_t)p->num_bodies;
}
/* The columns [*lo, *hi) of side s's J (w = 0) or W (w = 1) block that may be non-zero. */
static inline void lucid_sparse_span(const lucid_contact_sparse_problem *p, int s, int w,
                                     size_t *lo, size_t *hi) {
    if (p->span) {
        *lo = p->span[4 * (size_t)s + 2 * (size_t)w],
        *hi = p->span[4 * (size_t)s + 2 * (size_t)w + 1];
    } else {
        *lo = 0, *hi = lucid_sparse_width(p, p->body[s]);
    }
}

/* Doubles of workspace lucid_contact_solve_pgs_sparse needs for contacts of dim rows (3, 4 or
 * 6): the columns (6 a free body, lucid_sparse_columns) + dim (dim + 1) n (0 when that
 * overflows size_t or n is negative). */
size_t lucid_contact_sparse_work_size_dim(int n, int dim, size_t columns);

/* u (lucid_sparse_columns) = M^-1 J^T lambda by slots, then sigma = J u + g + R lambda (dim n). */
void lucid_contact_sparse_velocity(const lucid_contact_sparse_problem *p, const double *lambda,
                                   double *u, double *sigma);

/* Projected Gauss-Seidel of lucid_contact_solve (LCP, CCP and NCP models) on the sparse form:
 * the same per-contact updates in the same order (so the same iterates up to rounding), each
 * in O(1) through the bodies' u; criteria as lucid_contact_solve reports them (the model's,
 * and NCP). work: lucid_contact_sparse_work_size_dim doubles. lambda: warm start when
 * o->warm_start, else zeroed; the answer on exit. G + R is PSD by construction (M positive
 * definite): no check is made. LUCID_ERR_ARGUMENT for a solver other than PGS, a model without
 * PGS, bad sizes or NULL pointers. */
lucid_status lucid_contact_solve_pgs_sparse(const lucid_contact_sparse_problem *p,
                                            const lucid_contact_options *o, double *work,
                                            double *lambda, lucid_contact_result *result);

/* f (lucid_sparse_columns) = J^T y (y: dim n) */
void lucid_contact_sparse_jt(const lucid_contact_sparse_problem *p, const double *y, double *f);
/* y (dim n) = J u (u: lucid_sparse_columns) */
void lucid_contact_sparse_j(const lucid_contact_sparse_problem *p, const double *u, double *y);
/* y (dim n) = (G + R) x with G = J M^-1 J^T through W; u: lucid_sparse_columns of scratch */
void lucid_contact_sparse_apply(const lucid_contact_sparse_problem *p, const double *x, double *u,
                                double *y);

/* G (dim n x dim n, column-major) = J M^-1 J^T: the dense Delassus matrix of p without diag(R) (a
 * dense problem holds R apart, lucid_contact_problem), built on request only
 * (lucid_world_last_sparse_problem's users, the world's ip attempt); O(n^2) memory and time. */
void lucid_contact_sparse_delassus(const lucid_contact_sparse_problem *p, double *G);

/* The solvers with a body-space implementation (lucid_contact_sparse_has): PGS (LCP, CCP,
 * NCP), ADMM (CCP, NCP), Newton (CCP, NCP) and the interior point (CCP, NCP). */
int lucid_contact_sparse_has(lucid_contact_model model, lucid_contact_solver solver);

/* Growable memory of the sparse ADMM and Newton solvers (contact_admm_sparse.c,
 * contact_newton_sparse.c): created empty, grown by lucid_contact_sparse_reserve (the only
 * place that allocates), released by destroy. */
typedef struct lucid_contact_sparse_workspace lucid_contact_sparse_workspace;
lucid_contact_sparse_workspace *lucid_contact_sparse_workspace_create(void);
void lucid_contact_sparse_workspace_destroy(lucid_contact_sparse_workspace *ws);
lucid_status lucid_contact_sparse_reserve(lucid_contact_sparse_workspace *ws, int n,
                                          size_t columns);
/* As lucid_contact_sparse_reserve for contacts of dim rows (3, 4 or 6; 4 and 6 for ADMM, PGS
 * and IP). */
lucid_status lucid_contact_sparse_reserve_dim(lucid_contact_sparse_workspace *ws, int n, int dim,
                                              size_t columns);

/* ADMM of lucid_contact_solve (ccp:admm, ncp:admm) on the sparse form: the same iteration
 * (spectral rho, over-relaxation, De Saxce shift, Anderson acceleration, checks), its x-step
 * (G + R + rho I) x = r solved through H = M + J^T (R + rho I)^-1 J (Woodbury, one LDL
 * factorisation per rho, one step of iterative refinement when ill-conditioned). The
 * spectrum is estimated: the largest eigenvalue of G + R by power iteration, the smallest
 * non-zero one as LUCID_CONTACT_SPARSE_EIG_RATIO times it (G is singular whenever
 * 3n > the columns).
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
 * G dmu = J dv. ws reserved for p. Contacts of dim 3 only (LUCID_ERR_ARGUMENT else: the dense
 * form takes dims 4 and 6). */
lucid_status lucid_contact_solve_newton_sparse(const lucid_contact_sparse_problem *p,
                                               const lucid_contact_options *o,
                                               lucid_contact_sparse_workspace *ws, double *lambda,
                                               lucid_contact_result *result);

/* Semismooth Newton of lucid_contact_solve (ncp:newton, contact_alart_curnier.c) on the sparse
 * form: the same iteration (merit, regularisation, line search, stop, answer), its Newton
 * direction (H + eps I) d = -F, H = A + B (G + R), from the sparse system
 * [M -J^T; B J, A + eps I + B R] factorised by KLU (contact_sparse_kkt.h), its
 * Levenberg-Marquardt direction by CGLS (contact_alart_curnier_sparse.c). Contacts of dim 3, 4
 * or 6. LUCID_ERR_NOT_SPD when a diagonal entry of G + R is not positive (a null row:
 * contact_null_rows.h conditions those). ws reserved for p. */
lucid_status lucid_contact_solve_alart_curnier_sparse(const lucid_contact_sparse_problem *p,
                                                      const lucid_contact_options *o,
                                                      lucid_contact_sparse_workspace *ws,
                                                      double *lambda, lucid_contact_result *result);

/* Interior point of lucid_contact_solve (ccp:ip, ncp:ip; contact_ip.h) on the sparse form:
 * the same iterates, each Newton system A dx = b solved as (G + B) z = D (I - E) b with B the
 * d x d blocks R + D (I - E) W^2 D (d = lucid_sparse_dim: 3, 4 or 6), through the sparse
 * augmented system [M -J^T; J B]
 * factorised by KLU (contact_sparse_kkt.h, which says why not through H = M + J^T B^-1 J).
 * No derivatives (lucid_contact_ip_jvp needs the dense problem). dual:
 * the corrected velocity as lucid_contact_solve's (may be NULL). ws reserved for p. */
lucid_status lucid_contact_solve_ip_sparse(const lucid_contact_sparse_problem *p,
                                           const lucid_contact_options *o,
                                           lucid_contact_sparse_workspace *ws, double *lambda,
                                           double *dual, lucid_contact_result *result);

#endif
