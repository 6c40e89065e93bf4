/* ncp:newton's semismooth Newton on the Alart-Curnier function (contact_alart_curnier.c), written
 * once for two backends: the dense one (the generalised Jacobian H = Dl + Ds (G + R) formed,
 * LU) and the body-space one (contact_alart_curnier_sparse.c: G = J M^-1 J^T never formed, the
 * direction from a sparse system KLU factorises). The iteration (merit, regularisation,
 * non-monotone Armijo search, Marquardt's rule, stop, answer) is the shared loop below; a backend
 * supplies the velocity of an iterate and the directions. */
#ifndef LUCID_CONTACT_ALART_CURNIER_H
#define LUCID_CONTACT_ALART_CURNIER_H

#include "solvers/contact/contact_internal.h"

#define LUCID_CONTACT_AC_NONMONOTONE 10 /* Grippo-Lampariello-Lucidi's memory */

typedef struct lucid_contact_ac lucid_contact_ac;

/* What a backend computes. velocity: sigma = (G + R) lambda + g. jacobian: the generalised
 * Jacobian at the iterate (lambda, s->sigma), kept for the calls below. newton: s->d =
 * -(H + eps I)^-1 s->F; lm: s->d = -(H^T H + eps I)^-1 H^T s->F (approximately: any d with
 * F . H d < 0 serves); both 0 when they fail or d is not finite. slope: F . H d. */
typedef struct lucid_contact_ac_backend {
    void (*velocity)(lucid_contact_ac *s, const double *lambda, double *sigma);
    void (*jacobian)(lucid_contact_ac *s, const double *lambda);
    int (*newton)(lucid_contact_ac *s, double eps);
    int (*lm)(lucid_contact_ac *s, double eps);
    double (*slope)(lucid_contact_ac *s);
} lucid_contact_ac_backend;

/* The iteration's state: n contacts of dim rows (m in all), vectors of m set by the caller. */
struct lucid_contact_ac {
    const lucid_contact_problem *p; /* mu (and, dense, G and R); the criteria */
    const lucid_contact_ac_backend *b;
    void *ctx; /* the backend's own */
    int n, dim, m;
    double *rho;               /* rho_N on normal rows, rho_T on tangential ones */
    double *sigma, *F, *d;     /* the iterate's velocity, its F, the direction */
    double *lt, *st, *Ft;      /* the trial point */
    double *best, *best_sigma; /* the iterate with the least criterion */
    double recent[LUCID_CONTACT_AC_NONMONOTONE]; /* phi of the last iterates, a ring */
    int steps;                                   /* iterates in recent so far */
    double theta;                                /* eps's factor, Marquardt's rule */
};

/* rho_N = 1 / W_NN and rho_T = (dim - 1) / trace W_TT per contact, diag the n dim diagonal
 * entries of W = G + R. */
void lucid_contact_ac_rho(int n, int dim, const double *diag, double *rho);

/* F_i of one contact and, when Dl is not NULL, dF_i/dlambda_i (Dl) and dF_i/dsigma_i (Ds),
 * dim x dim column-major. Tangential rows are 0, 1, 3 .. dim - 1; the normal is row 2. */
void lucid_contact_ac_contact(int dim, double mu, double rn, double rt, const double *l,
                              const double *s, double *F, double *Dl, double *Ds);

/* The solve from lambda (s set up, s->rho filled): the answer into lambda, s->sigma its
 * velocity, run->result its report. */
void lucid_contact_ac_solve(lucid_contact_ac *s, lucid_contact_run *run, double *lambda);

#endif
