/* Convergence criteria of a candidate impulse lambda with contact velocity
 * sigma = G lambda + g + R lambda (Eq. 15 of Le Lidec et al., "Contact Models in Robotics").
 * Per contact i:
 *   primal          eps_p = dist(lambda_i, K)
 *   dual            eps_d = dist(sigma_i + Gamma(sigma_i), K*)
 *   complementarity eps_c = |<lambda_i, sigma_i + Gamma(sigma_i)>|
 * and abs = max over contacts of the three. The kind picks K and the De Saxce term Gamma:
 *   NCP: second-order cone, Gamma = (0, 0, mu ||sigma_T||_2)          (Eq. 15)
 *   CCP: second-order cone, Gamma = 0                                 (Eq. 16)
 *   LCP: 4-facet pyramid ||.||_inf, Gamma = (0, 0, mu ||sigma_T||_1)  (its exact analogue)
 * The scaled criteria divide forces by ||lambda||_inf and velocities by
 * max(||g||_inf, ||(G + R) lambda||_inf) (each scale skipped when it is zero: no 0/0).
 * Non-finite candidates are never "converged": a contact whose lambda_i or sigma_i holds NaN or
 * Inf, or whose residual overflows or is NaN (Inf - Inf in the product), gets infinite
 * residuals, and every maximum propagates them (fmax would silently drop a NaN). */
#ifndef LUCID_CONTACT_CRITERIA_H
#define LUCID_CONTACT_CRITERIA_H

#include "solvers/contact/contact_problem.h"

typedef enum lucid_contact_criterion {
    LUCID_CRITERION_NCP,
    LUCID_CRITERION_CCP,
    LUCID_CRITERION_LCP
} lucid_contact_criterion;

typedef struct lucid_contact_criteria {
    double primal, dual, complementarity, abs; /* absolute, infinity norm over contacts */
    double primal_scaled, dual_scaled, complementarity_scaled, scaled;
} lucid_contact_criteria;

/* The criterion a model is solved to (RaiSim has no criterion of its own: NCP, as the paper). */
lucid_contact_criterion lucid_contact_model_criterion(lucid_contact_model model);

/* The scales of an answer lambda with velocity sigma: *force = ||lambda||_inf and *velocity =
 * max(||g||_inf, ||sigma - g||_inf) (a NaN entry is skipped, as fmax does). */
void lucid_contact_answer_scales(const lucid_contact_problem *p, const double *lambda,
                                 const double *sigma, double *force, double *velocity);

/* Criteria of lambda given its velocity sigma (from lucid_contact_velocity). per_contact, when
 * not NULL, receives 3n numbers (eps_p, eps_d, eps_c) for each contact. */
void lucid_contact_criteria_eval(const lucid_contact_problem *p, lucid_contact_criterion kind,
                                 const double *lambda, const double *sigma, double *per_contact,
                                 lucid_contact_criteria *out);

#endif
