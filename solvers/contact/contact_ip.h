/* Primal-dual interior-point solver for the CCP and the NCP (ccp:ip, ncp:ip), and the
 * derivatives of its relaxed solutions (docs/contact_ip.md).
 * Per contact i, scaled so that both cones are the standard second-order cone Q:
 *   x_i = D_i lambda_i,  y_i = D_i^-1 (sigma_i + Gamma_i),  D_i = diag(1, 1, mu_i)
 * (x_i in Q iff lambda_i in K_mu, y_i in Q iff the corrected velocity is in K_mu*, and
 * x_i . y_i = lambda_i . (sigma_i + Gamma_i)). The IP solves
 *   y = P x + c + S(y),  x o y = kappa e,  x, y in int Q
 * with P = D^-1 (G + R) D^-1, c = D^-1 g, o the cone (Jordan) product, e = (0, 0, 1), and
 * S_i(y) = (0, 0, ||y_T,i||) the De Saxce shift (NCP; S = 0 for the CCP): in scaled
 * coordinates mu_i ||sigma_T,i|| / mu_i. Newton on this system with Nesterov-Todd scaling
 * and Mehrotra's predictor-corrector; kappa = 0 drives the gap to 0 (an exact solver held to
 * the model's criterion), kappa > 0 stops on the central path (relaxed complementarity). A
 * contact with mu = 0 has the ray {lambda_T = 0, lambda_N >= 0} for a cone: its tangential
 * impulse is pinned at 0 and only its normal pair is complementary. Contacts of dim 4
 * (t1, t2, n, s) have the cone of dimension 4 with head n, D_i = diag(1, 1, mu_i, 1) (dense
 * problems; the body-space solve takes dim 3). */
#ifndef LUCID_CONTACT_IP_H
#define LUCID_CONTACT_IP_H

#include "solvers/contact/contact_solver.h"

/* Derivatives of the relaxed solution (kappa > 0) of the last ip solve made with ws, from
 * the factorisation of the relaxed system the solve left at the returned point: one
 * back-substitution per right-hand side. p must be the problem that solve was given (same
 * pointers; LUCID_ERR_ARGUMENT otherwise, or when ws holds no such factorisation: another
 * solver ran since, kappa was 0, or the solve failed). G is differentiated entry by entry
 * (a perturbation dG need not be symmetric; the VJP's G_bar is the full outer product).
 * Contacts with mu = 0 have no derivative in mu (their cone is a ray): dmu_i is ignored
 * there and mu_bar_i = 0.
 * JVP: dlambda = dl/dg dg + dl/dG [dG] + dl/dmu dmu + dl/dR dR (dG, dmu, dR may be NULL;
 * R's derivative exists whether p has an R or not). */
lucid_status lucid_contact_ip_jvp(const lucid_contact_problem *p, lucid_contact_workspace *ws,
                                  const double *dg, const double *dG, const double *dmu,
                                  const double *dR, double *dlambda);
/* VJP: g_bar = (dl/dg)^T lambda_bar (3n), G_bar (3n x 3n column-major), mu_bar (n) and R_bar
 * (3n), each but g_bar may be NULL. */
lucid_status lucid_contact_ip_vjp(const lucid_contact_problem *p, lucid_contact_workspace *ws,
                                  const double *lambda_bar, double *g_bar, double *G_bar,
                                  double *mu_bar, double *R_bar);

#endif
