/* The conditions of one sliding contact under the NCP or the CCP, linearised: shared by the
 * implicit derivatives (autodiff/contact_derivatives_modes.c) and the active-set polish's
 * Newton step (contact_polish.c). With u the slip direction (sigma_T / |sigma_T|) and w = u
 * turned by 90 degrees, rows r = 0..2 of  f + Fl dlambda + Fs dsigma = 0:
 *   F0 = u . lambda_T + mu lambda_N            (the force along -u, on the cone)
 *   F1 = w . (lambda_T + mu lambda_N u(sigma_T)): its derivative w . dlambda_T + (mu lambda_N /
 *        |sigma_T|) w . dsigma_T is scaled by c = |sigma_T| / (mu lambda_N) when c <= 1, so
 *        that neither coefficient exceeds 1
 *   F2 = sigma_N (NCP) or sigma_N - mu |sigma_T| (CCP). */
#ifndef LUCID_CONTACT_SLIDING_ROWS_H
#define LUCID_CONTACT_SLIDING_ROWS_H

#include "solvers/contact/contact_problem.h"

/* Adds the rows' entries to Fl and Fs (3 x 3, row-major, zeroed by the caller) for the contact
 * (l, s: its lambda and sigma, sT = |sigma_T|, u: the unit slip direction), and the residual
 * into f when f is not NULL. */
void lucid_contact_sliding_rows(lucid_contact_model model, double mu, const double l[3],
                                const double s[3], double sT, const double u[2], double Fl[9],
                                double Fs[9], double f[3]);

/* The same rows for a contact of dim 4 (rows t1, t2, n, s) or 6 (t1, t2, n, s, r1, r2), whose
 * tangential part lambda_T = (t1, t2, s[, r1, r2]) has k = dim - 1 entries: u (k entries, in
 * that order) the unit slip direction, sT = |sigma_T|; row t1 is F0, the other tangential rows
 * F1 along an orthonormal basis of u's complement (each scaled as F1), row n F2. Fl and Fs are
 * dim x dim, row-major, zeroed by the caller; f (dim) when not NULL. */
void lucid_contact_sliding_rows_n(lucid_contact_model model, int dim, double mu, const double *l,
                                  const double *s, double sT, const double *u, double *Fl,
                                  double *Fs, double *f);

/* The rows of a contact's tangential part (dims 4 and 6): t1, t2, s, r1, r2. */
extern const int lucid_contact_tangential_rows[5];

#endif
