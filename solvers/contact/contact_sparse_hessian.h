/* The velocity-space matrix H = M + J^T diag(w) J of a body-space contact problem
 * (contact_sparse.h), factorised as P H P^T = L D L^T by SuiteSparse's LDL with an AMD
 * ordering of the bodies' contact graph (internal to the contact solvers).
 *
 * Both the ADMM x-step and the primal Newton step of the sparse solvers go through it:
 *   (J M^-1 J^T + diag(d)) x = r  <=>  x = (r - J u) / d,  H u = J^T (r / d),  w = 1 / d
 * (Woodbury; H is SPD for every w >= 0 since M is), and Newton's Hessian is H with w its
 * active-set weights. H has one block per slot (6 x 6 for a body; nv x nv for a robot, with
 * the tree's sparsity) and one per pair of slots sharing a contact: O(bodies + contacts)
 * entries where G = J M^-1 J^T has O(contacts^2), and the factor's fill is that of the slot
 * graph (a bin of boxes is nearly planar; none inside a robot's block).
 * The pattern (analyse) is built once per problem, the values (factor) once per change of w;
 * all memory is owned by the struct and only grows, so after warm-up nothing is allocated.
 * Indices are SuiteSparse_long (64-bit) and every size is checked in size_t. */
#ifndef LUCID_CONTACT_SPARSE_HESSIAN_H
#define LUCID_CONTACT_SPARSE_HESSIAN_H

#include <stddef.h>

#include "runtime/core/status.h"
#include "solvers/contact/contact_sparse.h"

typedef struct lucid_contact_hessian lucid_contact_hessian;

lucid_contact_hessian *lucid_contact_hessian_create(void);
void lucid_contact_hessian_destroy(lucid_contact_hessian *h);

/* The pattern of H for p (needs p->M), its ordering and symbolic factor.
 * LUCID_ERR_NO_MEMORY when a size overflows or an allocation fails. */
lucid_status lucid_contact_hessian_analyze(lucid_contact_hessian *h,
                                           const lucid_contact_sparse_problem *p);
/* H = M + sum over contacts i of J_i^T D_i J_i (D: n symmetric PSD dim x dim blocks,
 * dim^2 numbers each, row-major; dim = lucid_sparse_dim(p)), factorised. LUCID_ERR_NOT_SPD when a
 * pivot is not positive and finite. */
lucid_status lucid_contact_hessian_factor(lucid_contact_hessian *h,
                                          const lucid_contact_sparse_problem *p, const double *D);
/* H = M + w J^T J (every D_i = w I, w >= 0), factorised: the parts M and J^T J are assembled
 * by the first call after lucid_contact_hessian_analyze (p must be the analysed problem, its J
 * and M unchanged since) and kept, so each further w costs an axpy over H's entries and the
 * numeric factorisation (ADMM's changes of rho without compliance). Allocates on first use
 * only (2 nnz doubles). Results equal lucid_contact_hessian_factor's to rounding. */
lucid_status lucid_contact_hessian_factor_uniform(lucid_contact_hessian *h,
                                                  const lucid_contact_sparse_problem *p, double w);
/* x (6 per body slot) <- H^-1 x */
void lucid_contact_hessian_solve(lucid_contact_hessian *h, double *x);

/* The sparse solvers' workspace (contact_sparse.h) as they share it: 17 (3n) + 12 bodies
 * doubles at least, and its H. */
double *lucid_contact_sparse_workspace_buffer(lucid_contact_sparse_workspace *ws);
lucid_contact_hessian *lucid_contact_sparse_workspace_hessian(lucid_contact_sparse_workspace *ws);

#endif
