/* The augmented (KKT) system of a body-space contact problem (contact_sparse.h),
 *   K = [ M  -J^T ]   K [u; z] = [0; r]  <=>  (J M^-1 J^T + B) z = r,  u = M^-1 J^T z,
 *       [ J   B   ]
 * B block diagonal (one d x d block a contact, d = lucid_sparse_dim: 3, or 4 with the spin row;
 * not necessarily symmetric), stored sparse and
 * factorised P K Q = L U by SuiteSparse's KLU with partial pivoting (internal to the contact
 * solvers; the interior point's Newton systems, contact_ip.c).
 * Why not Woodbury through H = M + J^T B^-1 J (contact_sparse_hessian.h) as ADMM does: the
 * interior point's B = R + D (I - E) W^2 D vanishes along the active directions as the gap
 * closes while G = J M^-1 J^T is singular on hyperstatic piles, and the Woodbury form's error,
 * ~eps ||G|| ||B^-1||, then grows past the step itself (measured on a 13-box pile: iterative
 * refinement diverges from the 12th iteration, the solve stalls at 1e-2 where the dense path
 * meets 1e-8; regularising B by 1e-12 to 1e-8 of its scale stalls it too). Why not the
 * contact-space S = G + B (stable, as the dense path's A): S has a 3 x 3 block for each pair
 * of contacts sharing a body (a box with 20 contact sides couples 40 contacts), so on a grid
 * of 13 boxes (172 contacts) KLU on S took 2.2x the dense path's time (measured,
 * bench_crossover.lua). K has O(contacts + bodies) entries (J's blocks twice, M's, B's), and
 * partial pivoting chooses, per elimination, between a contact's B (stable where B is large)
 * and the bodies' M (where it is small): stable and sparse.
 * The pattern is analysed once per problem (KLU's BTF + AMD; kept, with the last factor, when
 * a problem's pattern is the last one's: a resting island's step after step), values
 * factorised per call:
 * refactorised with the last factor's pivots (klu_refactor: no pivot search, no allocation)
 * while KLU's reciprocal pivot growth stays above 1e-6 and its rcond above 1e-12, else
 * factorised afresh with partial pivoting (the interior point's B moves over orders of
 * magnitude between iterations). Measured on bench_crossover.lua's tower of 16 boxes and
 * grids of 5 and 13: 10-40% faster than a fresh factor every time, the same test results.
 * Buffers grow only; KLU's own objects are allocated by KLU (once per pattern, and at each
 * fresh factorisation). */
#ifndef LUCID_CONTACT_SPARSE_KKT_H
#define LUCID_CONTACT_SPARSE_KKT_H

#include <stddef.h>

#include "runtime/core/status.h"
#include "solvers/contact/contact_sparse.h"

typedef struct lucid_contact_kkt lucid_contact_kkt;

lucid_contact_kkt *lucid_contact_kkt_create(void);
void lucid_contact_kkt_destroy(lucid_contact_kkt *k);

/* The pattern of K for p (needs p->M). LUCID_ERR_NO_MEMORY when a size overflows or an
 * allocation fails (LUCID_ERR_INTERNAL when KLU rejects the pattern). */
lucid_status lucid_contact_kkt_analyze(lucid_contact_kkt *k, const lucid_contact_sparse_problem *p);
/* K with the blocks B (n blocks of d x d, row-major, d^2 numbers each), factorised; with
 * pin_rays, z's tangential entries of each contact with mu = 0 (a ray: no tangential force)
 * pinned at 0 (their rows and columns of K replaced by the identity's). LUCID_ERR_NOT_SPD
 * when K is singular in floating point. */
lucid_status lucid_contact_kkt_factor(lucid_contact_kkt *k, const lucid_contact_sparse_problem *p,
                                      const double *B, int pin_rays);
/* K = [M -J^T; S J B] with S, like B, n blocks of d x d (row-major): the same pattern, its
 * contact rows in the slots' columns multiplied by S_i. Then K [u; z] = [0; r] <=>
 * (S J M^-1 J^T + B) z = r: the semismooth Newton's systems (S = Ds, B = Dl + eps I + Ds R,
 * contact_alart_curnier_sparse.c). With fresh 0 the last factor's pivots are kept while rcond
 * stays above its floor, without the pivot-growth test (*kept 1); a new factor (fresh 1, or
 * when they are not kept) keeps its pivots on the diagonal (KLU's diagonal preference at
 * DBL_EPSILON: a pivot leaves it only when it is zero to rounding), in the order AMD chose, so L +
 * U has no fill beyond the symbolic one: a pressed contact's diagonal is eps + B R, tiny against
 * J's entries, and partial pivoting (KLU's preference 1e-3) takes J's entries instead, which
 * fills L + U several fold on a pile's islands (docs/benchmarks/solve_choice.md). The caller
 * verifies its solves and asks, with fresh 1, for new pivots when a solve with the kept ones is not
 * accurate enough. */
lucid_status lucid_contact_kkt_factor_rows(lucid_contact_kkt *k,
                                           const lucid_contact_sparse_problem *p, const double *S,
                                           const double *B, int fresh, int *kept);
/* x (d n) <- (S J M^-1 J^T + B)^-1 x (S the identity after lucid_contact_kkt_factor) */
void lucid_contact_kkt_solve(lucid_contact_kkt *k, double *x);

/* The sparse solvers' workspace's K (created on first use; NULL when that fails). */
lucid_contact_kkt *lucid_contact_sparse_workspace_kkt(lucid_contact_sparse_workspace *ws);

#endif
