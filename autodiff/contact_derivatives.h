/* Exact sensitivities of a contact solution lambda*(G, g, mu, R) by the implicit function
 * theorem on its active modes (docs/contact_derivatives.md).
 *
 * Each contact is classified from normalised quantities (forces by F = ||lambda||_inf,
 * velocities by V = max(||g||_inf, ||(G + R) lambda||_inf), sigma = (G + R) lambda + g):
 *   breaking  lambda_N <= tau F                       -> dlambda_i = 0
 *   sticking  otherwise, ||sigma_T|| <= tau V         -> dsigma_i = 0
 *   sliding   otherwise: the model's sliding law, linearised (normal + the tangential direction
 *             u = sigma_T / ||sigma_T|| + the rotation of u, which the De Saxce form keeps)
 * (LCP: each tangential component sticks or slides on its own; mu = 0 contacts slide.)
 * Every contact's 3 conditions F_i(lambda_i, sigma_i, mu_i, A_ii) = 0 linearise to
 *   Fl dlambda_i + Fs dsigma_i + Fmu dmu_i + Fa . dA_i = 0,  dsigma = (G + R) dlambda + dG lambda
 *   + dR o lambda + dg,
 * so the active contacts' dlambda solves K dlambda_A = -(Fs (dG lambda + dR o lambda + dg) +
 * Fmu dmu + Fa dA), K = Fl + Fs (G + R)_AA, each row scaled to unit max-norm. K is factored by a
 * complete orthogonal decomposition (QR with column pivoting, then RZ): columns whose pivot is
 * below rcond x the first are dropped and the minimum-norm dlambda_A is returned (hyperstatic
 * contacts; rank_deficient is then set). Products (JVP, VJP) cost two orthogonal applications
 * and one triangular solve; nothing dense of size 3n x 3n is formed unless asked. A K that
 * LAPACK's condition estimate shows far from that rank test (rcond_1 >= 1e-6) is factored by LU
 * instead: there K^+ = K^-1, the same derivative at a quarter of the factorisation's cost.
 * Problems of dim 4 (torsional friction, rows t1, t2, n, s) and 6 (rolling friction as well,
 * rows t1, t2, n, s, r1, r2) are taken under the NCP and the CCP: the tangential part is (t1,
 * t2, s) or (t1, t2, s, r1, r2), each contact has dim conditions and every 3n below reads dim n
 * (K has dim x active rows). */
#ifndef LUCID_CONTACT_DERIVATIVES_H
#define LUCID_CONTACT_DERIVATIVES_H

#include "runtime/math/arena.h"

#include "runtime/core/option_table.h"
#include "runtime/core/status.h"
#include "solvers/contact/contact_problem.h"

typedef enum lucid_contact_mode {
    LUCID_CONTACT_BREAKING = 0,
    LUCID_CONTACT_STICKING,
    LUCID_CONTACT_SLIDING
} lucid_contact_mode;

/* "breaking", "sticking", "sliding". */
const char *lucid_contact_mode_name(lucid_contact_mode mode);

typedef struct lucid_contact_derivative_options {
    lucid_contact_model model; /* the model lambda solves (its optimality conditions are used) */
    double threshold; /* tau above, in [0, 1) (default 1e-6): must exceed the solution's error */
    double rcond;     /* rank threshold on the pivots of K, in [0, 1) (default 1e-10) */
} lucid_contact_derivative_options;

/* threshold and rcond described (option_table.h; model is the solution's, not an option):
 * lucid_contact_derivatives_factor's check and lucid.contact.derivatives' reader. */
extern const lucid_option lucid_contact_derivative_option_table[];

typedef struct lucid_contact_derivative_info {
    int contacts;         /* n */
    int active;           /* contacts not breaking */
    int size;             /* rows of K (dim x active) */
    int rank;             /* numerical rank of K */
    int rank_deficient;   /* rank < size: the minimum-norm derivative is returned */
    double free_velocity; /* rank deficient: the largest share of the contact velocity that
                           * one of K's dropped directions moves (the answer's free forces):
                           * ~rounding when only lambda is free, O(1) when the velocities are;
                           * 0 at full rank */
    double margin;        /* min over contacts of the normalised distance to a mode switch */
} lucid_contact_derivative_info;

typedef struct lucid_contact_derivatives lucid_contact_derivatives;

lucid_contact_derivative_options
lucid_contact_derivative_default_options(lucid_contact_model model);

/* Storage for problems of up to max_contacts contacts and 3 max_contacts rows (so dim-4
 * problems of up to 3/4 max_contacts contacts, dim-6 of up to 1/2; NULL on bad size or no
 * memory). */
lucid_contact_derivatives *lucid_contact_derivatives_create(int max_contacts);
void lucid_contact_derivatives_destroy(lucid_contact_derivatives *d);
/* The same, its memory carved from arena (valid until the arena's next reset; destroy is then
 * a no-op): for callers that factor afresh at every call, as the step derivatives do. */
lucid_contact_derivatives *lucid_contact_derivatives_create_in(lucid_arena *arena,
                                                               int max_contacts);

/* Classifies the contacts of the solution lambda of p and factors K. p and lambda are copied
 * where needed (they may change afterwards). LUCID_ERR_ARGUMENT on bad sizes/options, too
 * small a storage or dim 4 or 6 under the LCP or RaiSim's model, the problem's validation status,
 * LUCID_ERR_NONFINITE for a non-finite lambda, LUCID_ERR_INTERNAL if LAPACK fails. Allocates
 * nothing. */
lucid_status lucid_contact_derivatives_factor(lucid_contact_derivatives *d,
                                              const lucid_contact_problem *p, const double *lambda,
                                              const lucid_contact_derivative_options *o);

void lucid_contact_derivatives_get_info(const lucid_contact_derivatives *d,
                                        lucid_contact_derivative_info *info);
/* Mode of contact i (0 <= i < n) and its margin (normalised distance to a switch). */
lucid_contact_mode lucid_contact_derivatives_mode(const lucid_contact_derivatives *d, int i);
double lucid_contact_derivatives_margin(const lucid_contact_derivatives *d, int i);

/* Forward mode: dlambda (3n) = dl/dG dG + dl/dg dg + dl/dmu dmu + dl/dR dR. Any direction may
 * be NULL (zero). dG: 3n x 3n column-major, every entry independent (pass a symmetric dG for
 * the derivative along symmetric perturbations); dR: the 3n diagonal entries. */
lucid_status lucid_contact_derivatives_jvp(lucid_contact_derivatives *d, const double *dG,
                                           const double *dg, const double *dmu, const double *dR,
                                           double *dlambda);

/* Reverse mode: the cotangents of w (3n) with respect to G (3n x 3n), g (3n), mu (n) and R
 * (3n): gG = (dl/dG)^T w etc., overwritten; any output may be NULL. */
lucid_status lucid_contact_derivatives_vjp(lucid_contact_derivatives *d, const double *w,
                                           double *gG, double *gg, double *gmu, double *gR);

/* Reverse mode for count cotangents at once, the columns of W (3n x count, column-major):
 * gg = (dl/dg)^T W (3n x count) and gmu = (dl/dmu)^T W (n x count), overwritten; either may be
 * NULL. One multi-right-hand-side transposed solve (uses the storage's scratch): cheaper than
 * the dense Jacobians when count < 4n, as when the cotangents are the rows of dp/dlambda of
 * the few velocities an island moves (step_derivatives.c). */
lucid_status lucid_contact_derivatives_vjp_many(lucid_contact_derivatives *d, const double *W,
                                                int count, double *gg, double *gmu);

/* Dense Jacobians: dl/dg (3n x 3n), dl/dmu (3n x n), dl/dR (3n x 3n), column-major; any may be
 * NULL. Uses the storage's scratch (3n x 3n). */
lucid_status lucid_contact_derivatives_jacobian(lucid_contact_derivatives *d, double *dg,
                                                double *dmu, double *dR);

#endif
