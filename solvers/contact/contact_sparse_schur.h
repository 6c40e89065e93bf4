/* The contact-space matrix S = J M^-1 J^T + B of a body-space contact problem
 * (contact_sparse.h), B block diagonal (one 3 x 3 block a contact, not necessarily
 * symmetric), stored sparse and factorised P S Q = L U by SuiteSparse's KLU (internal to the
 * contact solvers).
 * Why not Woodbury through H = M + J^T B^-1 J (contact_sparse_hessian.h) as ADMM does: the
 * interior point's B = R + D (I - E) W^2 D vanishes along the active directions as the gap
 * closes while G = J M^-1 J^T is singular on hyperstatic piles, and the Woodbury form's error,
 * ~eps ||G|| ||B^-1||, then grows past the step itself (measured on a 13-box pile: iterative
 * refinement diverges from the 12th iteration, the solve stalls at 1e-2 where the dense path
 * meets 1e-8; regularising B by 1e-12 to 1e-8 of its scale stalls it too). S is factorised as
 * the dense path factorises A, backward stable, without forming G densely.
 * S has a 3 x 3 block for each pair of contacts sharing a slot (G_ij = sum over the shared
 * slots of J_s W_t^T): O(sum over slots of contacts^2) entries, against O(n^2) for the dense
 * G. The pattern is analysed once per problem (KLU's AMD ordering), values factorised per
 * call, refactorising with the kept pivots while KLU's rcond stays above 1e-12. Buffers grow
 * only; KLU's own objects are allocated by KLU once per pattern (and per fresh pivoting). */
#ifndef LUCID_CONTACT_SPARSE_SCHUR_H
#define LUCID_CONTACT_SPARSE_SCHUR_H

#include <stddef.h>

#include "runtime/core/status.h"
#include "solvers/contact/contact_sparse.h"

typedef struct lucid_contact_schur lucid_contact_schur;

lucid_contact_schur *lucid_contact_schur_create(void);
void lucid_contact_schur_destroy(lucid_contact_schur *s);

/* The pattern of S for p (the pairs of contacts sharing a slot). LUCID_ERR_NO_MEMORY when a
 * size overflows or an allocation fails. */
lucid_status lucid_contact_schur_analyze(lucid_contact_schur *s,
                                         const lucid_contact_sparse_problem *p);
/* S = J M^-1 J^T + B (B: n blocks of 3 x 3, row-major, 9 numbers each), factorised; with
 * pin_rays, the tangential rows and columns of each contact with mu = 0 (a ray: no tangential
 * force) replaced by the identity's. LUCID_ERR_NOT_SPD when S is singular in floating point. */
lucid_status lucid_contact_schur_factor(lucid_contact_schur *s,
                                        const lucid_contact_sparse_problem *p, const double *B,
                                        int pin_rays);
/* x (3n) <- S^-1 x */
void lucid_contact_schur_solve(lucid_contact_schur *s, double *x);
/* Entries of S's pattern, and bytes the struct holds (KLU's objects not counted). */
size_t lucid_contact_schur_entries(const lucid_contact_schur *s);
size_t lucid_contact_schur_bytes(const lucid_contact_schur *s);

/* The sparse solvers' workspace's S (created on first use; NULL when that fails). */
lucid_contact_schur *lucid_contact_sparse_workspace_schur(lucid_contact_sparse_workspace *ws);

#endif
