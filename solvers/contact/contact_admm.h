/* ADMM for min 1/2 x^T (A + diag(R)) x + b^T x subject to x in a closed convex set C
 * (internal to the contact solvers). Splitting x = z, multiplier gamma, penalty rho:
 *   x     <- -(A + R + rho I)^{-1} (b - rho z + gamma)
 *   xh    <- alpha x + (1 - alpha) z              (over-relaxation)
 *   z     <- P_C(xh + gamma / rho)
 *   gamma <- gamma + rho (xh - z)
 * The Cholesky factor of A + R + rho I is reused until rho changes. rho follows the spectral
 * rule: multiplied (divided) by kappa^power when the primal residual ||x - z|| exceeds
 * (falls below 1/ratio of) the dual residual rho ||z - z_prev||, each relative to the size
 * of its own quantity (forces x, z; velocities gamma, b). */
#ifndef LUCID_CONTACT_ADMM_H
#define LUCID_CONTACT_ADMM_H

#include "runtime/core/status.h"

typedef void (*lucid_contact_projection)(const void *ctx, const double *x, double *out);

typedef struct lucid_contact_admm {
    int m;
    const double *A, *R;                  /* m x m column-major, optional diagonal R */
    double *chol;                         /* m x m factor buffer */
    double *x, *z, *z_prev, *gamma, *rhs; /* m-vectors */
    double rho, factored_rho, alpha;
    double eig_min, eig_max;               /* of A + R, for the initial rho and kappa */
    double primal_residual, dual_residual; /* ||x - z||_inf, rho ||z - z_prev||_inf */
    double force_scale, velocity_scale;    /* max(|x|, |z|), max(|gamma|, |b|) */
    int factorizations;
} lucid_contact_admm;

/* rho = sqrt(eig_min eig_max) with eig_min floored at 1e-10 eig_max (PSD problems). */
double lucid_contact_admm_spectral_rho(const lucid_contact_admm *s);
double lucid_contact_admm_kappa(const lucid_contact_admm *s);
/* One iteration; factorises first when rho changed. */
lucid_status lucid_contact_admm_iterate(lucid_contact_admm *s, const double *b,
                                        lucid_contact_projection project, const void *ctx);
/* Applies the spectral rule to rho after an iteration; returns 1 when rho changed. */
int lucid_contact_admm_adapt(lucid_contact_admm *s, double ratio, double power);

#endif
