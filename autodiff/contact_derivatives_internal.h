/* Shared between the mode classification (contact_derivatives_modes.c) and the reduced-system
 * factorisation (contact_derivatives.c). */
#ifndef LUCID_CONTACT_DERIVATIVES_INTERNAL_H
#define LUCID_CONTACT_DERIVATIVES_INTERNAL_H

#include "autodiff/contact_derivatives.h"

/* The linearised conditions of one contact of dim D (3, 4 or 6): rows r = 0..D-1 of
 *   Fl dlambda_i + Fs dsigma_i + Fmu dmu_i + [r == fa_row] Fa . dA_i = 0
 * with Fl, Fs row-major (F[D r + c]) and dA_i the perturbation of row N of the diagonal block
 * (G + R)_ii (RaiSim's sliding plane only, D = 3; fa_row = -1 elsewhere). */
typedef struct lucid_contact_linearization {
    double Fl[36], Fs[36], Fmu[6], Fa[3];
    int fa_row;
} lucid_contact_linearization;

/* Scales of the normalised criteria. */
typedef struct lucid_contact_scales {
    double force;    /* ||lambda||_inf */
    double velocity; /* max(||g||_inf, ||sigma - g||_inf) */
} lucid_contact_scales;

/* Classifies contact i of the solution (lambda_i, sigma_i = its velocity, A_N = row N of its
 * diagonal block of G + R; dim entries each, dims 4 and 6 only under the NCP or the CCP) under
 * `model`, fills its linearisation and returns its mode; *margin receives its normalised
 * distance to the nearest mode switch. */
lucid_contact_mode lucid_contact_linearize(lucid_contact_model model, int dim, double mu,
                                           const double *l, const double *s, const double *A_N,
                                           const lucid_contact_scales *scales, double tau,
                                           lucid_contact_linearization *lin, double *margin);

#endif
