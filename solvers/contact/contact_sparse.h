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
 * numbers a side, 36 a contact. g, mu, R (may be NULL) as in lucid_contact_problem. */
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

#endif
