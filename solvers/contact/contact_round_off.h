/* How much of a contact criterion double precision alone can account for.
 * Storing an impulse lambda in doubles rounds each entry by up to half an ulp; through
 * sigma = (G + R) lambda + g that moves contact i's velocity by at most
 *   delta_i = sum_j |(G + R)_ij| ulp(lambda_j) / 2      (componentwise),
 * and its complementarity |<lambda_i, sigma_i + Gamma(sigma_i)>| by at most
 *   ||lambda_i|| (||delta_i|| + mu_i ||delta_T,i||)      (Cauchy-Schwarz; Gamma is
 * mu-Lipschitz in sigma_T). The maximum over contacts is what even the exact solution,
 * rounded to doubles, may show as eps_abs: a tolerance far below it is met only by chance.
 * Heavy objects on light ones make it large (1e3 kg on 1e-3 kg: ~9e-6, docs/scenarios.md). */
#ifndef LUCID_CONTACT_ROUND_OFF_H
#define LUCID_CONTACT_ROUND_OFF_H

#include "solvers/contact/contact_problem.h"

/* The bound above for the candidate lambda (3n entries) of problem p (assumed valid). */
double lucid_contact_round_off(const lucid_contact_problem *p, const double *lambda);

#endif
