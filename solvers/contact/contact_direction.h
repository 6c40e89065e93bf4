/* The first-order accuracy of friction directions. The model criteria of Eq. 15 are blind to
 * first order in a sliding contact's direction: a friction force turned by theta from
 * -sigma_T moves the complementarity by mu lambda_N |sigma_T| (1 - cos theta) ~ theta^2 / 2,
 * so an answer at tol can carry a direction (hence force) error of ~sqrt(tol). The cross
 * product lambda_T x sigma_T = |lambda_T| |sigma_T| sin theta is zero at every CCP and NCP
 * solution (sticking: sigma_T = 0; breaking: lambda = 0; sliding: antiparallel) and first
 * order in theta, in the criterion's units (force x velocity): requiring it <= tol as well
 * bounds the direction error by tol / (|lambda_T| |sigma_T|). */
#ifndef LUCID_CONTACT_DIRECTION_H
#define LUCID_CONTACT_DIRECTION_H

#include "solvers/contact/contact_problem.h"

/* max_i |lambda_t1 sigma_t2 - lambda_t2 sigma_t1| over the contacts of p, sigma the velocity
 * of lambda (dims 4 and 6: |lambda_T ^ sigma_T| over the tangential rows t1, t2, s[, r1, r2]). A
 * tangentially isotropic compliance (R_t1 = R_t2) adds R lambda_T to sigma_T and leaves the cross
 * product unchanged. NaN propagates as +Inf. */
double lucid_contact_direction_residual(const lucid_contact_problem *p, const double *lambda,
                                        const double *sigma);

#endif
