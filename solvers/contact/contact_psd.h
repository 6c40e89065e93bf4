/* Whether a Delassus matrix G (+ diag R) is positive semi-definite, checked cheaply (one
 * Cholesky factorisation) before a solve: an indefinite G has no physical meaning and the
 * solvers' answers on it are not solutions of anything. */
#ifndef LUCID_CONTACT_PSD_H
#define LUCID_CONTACT_PSD_H

#include "solvers/contact/contact_problem.h"

/* 1 when G + diag(R) of p (R may be NULL) is positive semi-definite to round-off, 0 when it is
 * indefinite. A zero row and column (a contact direction nothing can move) is PSD and
 * accepted; a zero diagonal entry with a non-zero entry in its row is indefinite. The rows
 * of non-zero diagonal are scaled to a unit diagonal, H = D^-1/2 A D^-1/2, and H + eps I is
 * factorised with eps = 4 k (k + 1) u (k kept rows, u = DBL_EPSILON / 2): Cholesky completes
 * on a unit-diagonal H whose smallest eigenvalue exceeds about k (k + 1) u (Higham, Accuracy
 * and Stability, Thm 10.7), and the rest covers the rounding G itself was computed with
 * (k (k + 1) u each for forming and scaling it, with room). So a PSD G is accepted and an
 * indefinite one refused once its scaled smallest eigenvalue is below -4 k (k + 1) u (5e-15
 * for one contact). `work` holds (3 n)^2 doubles. p must be valid
 * (lucid_contact_problem_validate) but for its diagonal rule. */
int lucid_contact_delassus_is_psd(const lucid_contact_problem *p, double *work);

#endif
