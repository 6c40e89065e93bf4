/* Active-set polishing of an approximate contact solution: OSQP's "solution polishing"
 * (Stellato et al. 2020, Sec. 5) carried to the cone problems. A first-order solver (ADMM)
 * finds which contacts break, stick or slide long before it resolves the forces, while its
 * criterion is still orders of magnitude above tol (docs/benchmarks/contact.md). With the
 * modes fixed, the optimality conditions are smooth equations, the same rows the implicit
 * derivatives linearise (docs/contact_derivatives.md):
 *   breaking  lambda_i = 0                                          (dropped)
 *   sticking  sigma_i = 0
 *   sliding   u . lambda_T + mu lambda_N = 0,  w . lambda_T = 0,  u = sigma_T / |sigma_T|,
 *             w = u turned by 90 degrees;  sigma_N = 0 (NCP) or sigma_N - mu |sigma_T| = 0 (CCP)
 * (dims 4 and 6: lambda_T, sigma_T and u of 3 or 5 entries, the w rows along a basis of u's
 * complement, lucid_contact_sliding_rows_n)
 * with sigma = (G + R) lambda + g; Newton on them (rows scaled as the derivatives' K, LU)
 * converges in one or two steps where the guess is right. Hyperstatic contacts (a box's
 * corners sticking on the floor, a grasp) make K singular: their internal forces are not fixed
 * by the equations. There the step is K's minimum-norm solution (a complete orthogonal
 * decomposition, as the derivatives'), which keeps the iterate's internal forces, and where it
 * leaves a sticking force outside its cone, alternating projections onto the cones and the
 * modes' solution set follow (contact_polish.c). The modes are guessed from the
 * larger side of each complementarity, normalised by the force scale F = ||lambda||_inf and
 * the velocity scale V = max(||g||_inf, ||sigma - g||_inf):
 *   breaking  lambda_N / F < gap / V          (gap = sigma_N, CCP: sigma_N - mu |sigma_T|)
 *   sticking  (mu lambda_N - |lambda_T|) / F > |sigma_T| / V
 *   sliding   otherwise.
 * A polished answer is kept only when the model's own criterion says it solves the problem
 * to tol; a wrong guess costs one dense LU of the active rows and the solver goes on. An
 * attempt is made when the guess is the same at two successive checks of the solver and is not
 * one that failed before, and after f failed attempts only from the 2^f-th guess of the solve:
 * a guess is only as good as the iterate it was read from, so early guesses often fail, and a
 * fixed count of failures would end the polish before the iterate is good enough; where no
 * guess works, the failed attempts stay log2 of the solve's checks. Dense:
 * only islands of at most LUCID_CONTACT_POLISH_MAX_ROWS rows. */
#ifndef LUCID_CONTACT_POLISH_H
#define LUCID_CONTACT_POLISH_H

#include <stddef.h>

#include "solvers/contact/contact_criteria.h"
#include "solvers/contact/contact_problem.h"

/* The Newton step is O(m^3) in the active rows m: beyond this many rows (64 contacts of 3
 * rows) the sparse solvers' own iterations are cheaper than one attempt. */
#define LUCID_CONTACT_POLISH_MAX_ROWS 192
/* Newton steps of one attempt (a right guess converges in 1 or 2: the sliding rows are the
 * only nonlinear ones, through u). */
#define LUCID_CONTACT_POLISH_NEWTON_STEPS 4
/* Rounds of alternating projections after a minimum-norm Newton step (contact_polish.c): a
 * bound on their work (each one O(q^2) correction and one product with G), within which a
 * violation falling by half a round (two contacts sharing a load) falls by 2^-8. */
#define LUCID_CONTACT_POLISH_PROJECTIONS 8
/* LU pivots below this fraction of the largest make K singular (hyperstatic contacts): the
 * step is then K's minimum-norm solution, columns whose QR pivot is below this fraction of the
 * first dropped (contact_polish.c). */
#define LUCID_CONTACT_POLISH_PIVOT 1e-10
/* The round-off bound's factor under which a polished answer is kept though above tol (the
 * world's solvers stop there too, world_sparse.c). */
#define LUCID_CONTACT_POLISH_FLOOR 2.0
/* Newton stops once the model criterion is below this fraction of tol: the polished answer is
 * then exact to far more than was asked (a Newton step on the modes' smooth equations). */
#define LUCID_CONTACT_POLISH_EXACT 1e-3

typedef struct lucid_contact_polisher lucid_contact_polisher;

/* A polisher for problems of up to min(max_rows, LUCID_CONTACT_POLISH_MAX_ROWS) rows (dim n:
 * contacts of 3, 4 or 6 rows; NULL on a negative size or no memory). */
lucid_contact_polisher *lucid_contact_polisher_create(int max_rows);
void lucid_contact_polisher_destroy(lucid_contact_polisher *pl);
/* Whether problems of n contacts of dim rows are polished by pl (pl may be NULL: no). */
int lucid_contact_polisher_fits(const lucid_contact_polisher *pl, int n, int dim);
/* Whether an attempt may come at the next guess of this solve of n contacts of dim rows: pl
 * fits and, after f failed attempts since the reset, the next guess is at least the 2^f-th. */
int lucid_contact_polisher_trying(const lucid_contact_polisher *pl, int n, int dim);
/* Forgets the modes of the previous solve (call at the start of each solve). */
void lucid_contact_polisher_reset(lucid_contact_polisher *pl);

/* Guesses the modes of lambda (sigma: its velocity; only g, mu and n of p are read) for the
 * model (CCP or NCP) and returns 1 when an attempt is due: the guess equals the previous
 * call's, differs from the last failed attempt's, and after f failed attempts this call is at
 * least the solve's 2^f-th. O(n). */
int lucid_contact_polish_due(lucid_contact_polisher *pl, const lucid_contact_problem *p,
                             lucid_contact_model model, const double *lambda, const double *sigma);

/* As lucid_contact_polish_due for an answer the solver has accepted (its criterion met tol):
 * an attempt is due on its guess at once, without a second look. The criterion is blind to
 * first order in a sliding contact's friction direction (lambda . (sigma + mu |sigma_T| e_N)
 * changes with the square of the angle between lambda_T and -sigma_T), so an accepted answer,
 * a warm start above all, can carry a direction error of ~sqrt(tol) that the exact Newton
 * solution of its modes removes. */
int lucid_contact_polish_accepted_due(lucid_contact_polisher *pl, const lucid_contact_problem *p,
                                      lucid_contact_model model, const double *lambda,
                                      const double *sigma);
/* Newton on the equations of the modes of the last due call, from lambda; out (dim n) receives
 * the candidate and out_sigma (dim n) its velocity, *criteria its model criterion. Returns 1 when
 * that criterion is at most tol, or at most LUCID_CONTACT_POLISH_FLOOR times the round-off
 * bound of contact_round_off.h (a tol below what doubles can show: Newton has then solved p as
 * exactly as it can be, where ADMM stalls orders of magnitude above), else 0 and the guess is
 * remembered as failed. p must hold G (dense). Allocates nothing. */
int lucid_contact_polish(lucid_contact_polisher *pl, const lucid_contact_problem *p,
                         lucid_contact_model model, double tol, const double *lambda, double *out,
                         double *out_sigma, lucid_contact_criteria *criteria);

#endif
