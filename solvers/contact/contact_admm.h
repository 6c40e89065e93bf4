/* ADMM for min 1/2 x^T (A + diag(R)) x + b^T x subject to x in a closed convex set C
 * (internal to the contact solvers). Splitting x = z, multiplier gamma, penalty rho:
 *   x     <- -(A + R + rho I)^{-1} (b - rho z + gamma)
 *   xh    <- alpha x + (1 - alpha) z              (over-relaxation)
 *   z     <- P_C(xh + gamma / rho)
 *   gamma <- gamma + rho (xh - z)
 * The inverse of A + R + rho I (from its Cholesky factor) is reused until rho changes: one
 * symmetric matrix-vector product per x-step instead of two triangular solves (reading half
 * the memory, and a product vectorises where a substitution cannot). The inverse is formed once the
 * factor has made m LUCID_CONTACT_ADMM_INVERT_AFTER_PER_ROW x-steps by triangular solves (a
 * settled island's warm solve makes one or two, which the inversion would not pay back).
 * Multiplying by an inverse is not backward stable, though: its residual grows with the
 * condition number kappa_x of A + R + rho I, where the triangular solves' does not. Above
 * LUCID_CONTACT_ADMM_INVERSE_CONDITION the factor is kept and solved with instead
 * (docs/scenarios.md). rho follows the spectral
 * rule: multiplied (divided) by kappa^power when the primal residual ||x - z|| exceeds
 * (falls below 1/ratio of) the dual residual rho ||z - z_prev||, each relative to the size
 * of its own quantity (forces x, z; velocities gamma, b). */
#ifndef LUCID_CONTACT_ADMM_H
#define LUCID_CONTACT_ADMM_H

#include "runtime/core/status.h"
#include "solvers/contact/contact_anderson.h"
#include "solvers/contact/contact_internal.h"
#include "solvers/contact/contact_polish.h"

typedef void (*lucid_contact_projection)(const void *ctx, const double *x, double *out);

typedef struct lucid_contact_admm {
    int m;
    const double *A, *R; /* m x m column-major, optional diagonal R */
    double *factor;      /* m x m, lower triangle: (A + R + rho I)^{-1} when `factor_inverse`,
                          * else the Cholesky factor of A + R + rho I */
    int inverted;        /* the x-step multiplies by the inverse once it is formed */
    int factor_inverse, factor_uses;      /* x-steps made with the current factor */
    double *x, *z, *z_prev, *gamma, *rhs; /* m-vectors */
    double rho, factored_rho, alpha;
    double eig_min, eig_max; /* smallest non-zero and largest eigenvalue of A + R (rho, kappa) */
    int singular;            /* A + R has a null space (eigenvalues below the threshold) */
    /* 1 while eig_min, eig_max, singular are not known yet (computed once a solve needs them:
     * docs/contact.md): the x-step's condition is then bounded with eig_bound >= eig_max */
    int spectrum_pending;
    double eig_bound;
    double primal_residual, dual_residual; /* ||x - z||_inf, rho ||z - z_prev||_inf */
    double force_scale, velocity_scale;    /* max(|x|, |z|), max(|gamma|, |b|) */
    int factorizations;
} lucid_contact_admm;

/* Eigenvalues below this fraction of the largest are the null space of a PSD A + R: well
 * above the round-off of an assembled J M^-1 J^T (~1e-14 relative) and below the spread of
 * physical effective masses (the paper's 1e6 mass ratios give ~1e-7). */
#define LUCID_CONTACT_ADMM_NULL_EIGENVALUE 1e-10
/* A + R is refused as indefinite when an eigenvalue (a Rayleigh quotient) is below minus this
 * fraction of the largest: far beyond the round-off of an assembled J M^-1 J^T. */
#define LUCID_CONTACT_ADMM_NEGATIVE_EIGENVALUE 1e-9

/* The full criterion is evaluated every iteration within this factor of tol, and every
 * PERIOD-th iteration further away (contact_admm.c). */
#define LUCID_CONTACT_ADMM_CHECK_NEAR   10.0
#define LUCID_CONTACT_ADMM_CHECK_PERIOD 4
/* The period of the body-space ADMM while its polish may still be tried (contact_admm_sparse.c). */
#define LUCID_CONTACT_ADMM_POLISH_CHECK_PERIOD 2

/* The forecast that ends a solve whose caller has a better next attempt
 * (lucid_contact_options.give_up): from iteration WINDOW on, over windows of at least WINDOW
 * iterations, the best criterion is still above FAR tol and its rate of progress in the last
 * window, extrapolated geometrically, reaches tol only after MARGIN x max_iter iterations.
 * Near tol (below FAR tol) ADMM is left to finish: its converged answers (dual, rho) warm start
 * the next steps (docs/benchmarks/contact.md, "Figures from the solvers' comments"). */
#define LUCID_CONTACT_ADMM_FORECAST_WINDOW 20
#define LUCID_CONTACT_ADMM_FORECAST_MARGIN 1.5
#define LUCID_CONTACT_ADMM_FORECAST_FAR    1e3
typedef struct lucid_contact_admm_forecast {
    double best;        /* the smallest criterion so far */
    double window_best; /* the smallest at the start of the current window */
    int window_start;   /* its iteration (0: no window yet) */
} lucid_contact_admm_forecast;
void lucid_contact_admm_forecast_init(lucid_contact_admm_forecast *f);
/* Records the criterion of iteration k; 1 when the solve is hopeless by the forecast above:
 * best > FAR tol and k + log(best / tol) / rate > MARGIN max_iter, rate = log(window_best /
 * best) / (k - start) (any rate <= 0 is hopeless). */
int lucid_contact_admm_hopeless(lucid_contact_admm_forecast *f, int k, double criterion, double tol,
                                int max_iter);

/* Differences kept by the Anderson acceleration of ncp:admm / ccp:admm (contact_anderson.h). */
#define LUCID_CONTACT_ADMM_ANDERSON_MEMORY 5

/* The largest condition number of A + R + rho I for which the x-step multiplies by the
 * inverse: its residual is then within ~1e4 eps relative, well below every tolerance a
 * caller can ask for on problems whose round-off floor is not itself that close. */
#define LUCID_CONTACT_ADMM_INVERSE_CONDITION 1e4

/* x-steps per row of A by triangular solves after which a factor is inverted: the inversion
 * (dtrtri + dlauum) costs what m/9 (m >= 96) to m/4 (m = 24) x-steps save by a product over
 * two triangular solves (docs/benchmarks/bin.md). Inverting at about that break-even
 * keeps the x-steps within twice the cost of the better choice made knowing the iteration
 * count (the ski-rental bound); at least one x-step is always solved. */
#define LUCID_CONTACT_ADMM_INVERT_AFTER_PER_ROW 0.125

/* Sets eig_min, eig_max from the ascending spectrum of A + R (m values). A + R is PSD, not PD,
 * whenever there are more contact rows than degrees of freedom (hyperstatic contacts), and
 * its zero eigenvalues say nothing about the conditioning: the x-step is a regularised
 * solve on the range of A + R while the null space is fixed by the projection alone. So the
 * paper's eig_min is taken as the smallest eigenvalue above the null threshold, which also
 * keeps kappa (hence the spectral factor) finite. LUCID_ERR_NOT_SPD when a clearly negative
 * eigenvalue (below -1e-9 eig_max) or no positive one exists. */
lucid_status lucid_contact_admm_set_spectrum(lucid_contact_admm *s, const double *values, int m);
/* The initial rho: the paper's sqrt(eig_min eig_max) when A + R is definite, eig_min (the
 * smallest non-zero eigenvalue) when it is singular. Along the null space the x-step is
 * x = z - (gamma + b) / rho, a proximal step of length 1 / rho that only the projection
 * stops, so those directions want rho small; the range wants rho within [eig_min, eig_max].
 * eig_min is the smallest rho that still damps every range direction at least as strongly
 * as its own curvature (docs/contact.md).
 * kappa = eig_max / eig_min drives the spectral update factor kappa^power. */
double lucid_contact_admm_spectral_rho(const lucid_contact_admm *s);
double lucid_contact_admm_kappa(const lucid_contact_admm *s);
/* b = g (n contacts of dim rows), plus for the NCP the De Saxce shift mu_i ||v_T,i|| on each
 * normal row from the velocity estimate v (only norms of its tangential parts are read, so
 * gamma can stand for -gamma; with dim 4 or 6 the spin and rolling rows are tangential). */
void lucid_contact_admm_linear_term(int n, int dim, const double *g, const double *mu, int ncp,
                                    const double *velocity, double *b);
/* out (2m) = (z, gamma / rho): the point of the map Anderson accelerates. */
void lucid_contact_admm_pack(const lucid_contact_admm *s, double *out);
/* Replaces the step's output (s->z, s->gamma) by a's accelerated next input of the (z, gamma /
 * rho) map; u, g: its packed input and output (2m each). */
void lucid_contact_admm_accelerate(lucid_anderson *a, lucid_contact_admm *s, double *u, double *g);
/* One iteration; factorises (and inverts, when well conditioned) A + R + rho I first when rho
 * changed. */
lucid_status lucid_contact_admm_iterate(lucid_contact_admm *s, const double *b,
                                        lucid_contact_projection project, const void *ctx);
/* The active-set polish of the iterate s->z (sigma: its velocity) on run's problem (dense G),
 * once lucid_contact_polish_due said it is due: when lucid_contact_polish keeps the candidate,
 * z, sigma and gamma (its value at a solution, -(sigma + the De Saxce shift) for the NCP)
 * become the candidate's, run's criteria (lucid_contact_check) and `polished` are set
 * (`stalled` too when it is kept at the round-off floor above tol) and 1 is returned: the solve
 * stops. Otherwise nothing changes but the scratch (2 x 3n). */
int lucid_contact_admm_polish(lucid_contact_polisher *pl, lucid_contact_run *run,
                              lucid_contact_admm *s, double *sigma, double *scratch);
/* 1 when the next iteration needs the spectrum first: it is pending, rho changed since the
 * last factorisation, and eig_bound cannot show kappa(A + R + rho I) <=
 * LUCID_CONTACT_ADMM_INVERSE_CONDITION (the choice of x-step then reads the spectrum, so that
 * it is the one the spectrum gives). */
int lucid_contact_admm_needs_spectrum(const lucid_contact_admm *s);
/* The direction the spectral rule moves rho after an iteration: +1 up (the primal residual
 * exceeds ratio x the dual, each relative to its own scale), -1 down, 0 none. */
int lucid_contact_admm_adapt_direction(const lucid_contact_admm *s, double ratio);
/* Applies the spectral rule to rho after an iteration; returns 1 when rho changed. */
int lucid_contact_admm_adapt(lucid_contact_admm *s, double ratio, double power);

#endif
