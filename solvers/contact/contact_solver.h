/* Solving the contact problem: every model x solver pair of Table III of Le Lidec et al.
 *   lcp:pgs          projected Gauss-Seidel on the 4-facet box pyramid (Alg. 1)
 *   ccp:pgs          projected Gauss-Seidel with a cone projection per contact (Alg. 2)
 *   ccp:admm         ADMM on the dual QCQP (Alg. 3): spectral rho, Cholesky reuse, relaxation
 *   ccp:newton       primal Newton with exact line search (Alg. 4, MuJoCo/Drake style)
 *   raisim:bisection per-contact modes, sliding on the Signorini section (Alg. 5)
 *   ncp:pgs          Gauss-Seidel with horizontal projection (Alg. 6)
 *   ncp:staggered    staggered projections, inner QPs by ADMM (Alg. 7)
 *   ncp:admm         ADMM on the CCP with the De Saxce shift updated as a fixed point
 *   ccp:ip, ncp:ip   primal-dual interior point, NT scaling, Mehrotra (contact_ip.h); stops on
 *                    the central path x o y = kappa e when kappa > 0
 *   ncp:newton       semismooth Newton on the Alart-Curnier function, dense
 *                    (contact_alart_curnier.c)
 * Each solver stops when its model's criterion (lucid_contact_criteria.h) drops below tol, when
 * the iterate stops moving (relative change below stall_tol: a stall test, never a
 * convergence test) or at max_iter; the NCP criterion is reported for every model. */
#ifndef LUCID_CONTACT_SOLVER_H
#define LUCID_CONTACT_SOLVER_H

#include "runtime/core/option_table.h"
#include "solvers/contact/contact_criteria.h"
#include "solvers/contact/contact_problem.h"

typedef struct lucid_contact_options {
    lucid_contact_model model;
    lucid_contact_solver solver;
    double tol;         /* on the model criterion's abs value (default 1e-6) */
    int max_iter;       /* outer iterations (default 1000) */
    double stall_tol;   /* relative change of lambda under which the solver has stalled (1e-12) */
    int warm_start;     /* 1: start from the lambda (and dual, rho) passed in; 0: from zero */
    double relaxation;  /* PGS: lambda <- w lambda_new + (1 - w) lambda_old, w in (0, 2); 0.8 by
                         * default, the value the paper reports to help PGS (Sec. III-E) */
    double admm_alpha;  /* ADMM over-relaxation in (0, 2) (default 1.5) */
    double rho;         /* ADMM initial rho; <= 0 picks sqrt(eig_min eig_max) of G + R */
    double rho_ratio;   /* ADMM: adapt rho when one residual exceeds ratio x the other (10) */
    double rho_power;   /* ADMM: spectral update factor kappa^rho_power (0.05) */
    int inner_max_iter; /* staggered projections: ADMM iterations per inner QP (200) */
    double newton_compliance; /* ccp:newton: R_k = this x trace(G_ii)/dim where R_k = 0 (1e-8) */
    int check_psd; /* 1: PGS, bisection, staggered and ADMM with a given rho check G + R is PSD by a
                    * Cholesky factorisation (default; the world turns it off: its G = J M^-1 J^T
                    * is PSD by construction); ADMM without a rho checks with its spectrum,
                    * Newton always checks (it factorises G anyway) */
    double kappa;  /* ip: the central-path relaxation lambda_i . (sigma_i + Gamma_i) = kappa it
                    * stops at (>= 0; 0 by default: the exact problem). With kappa > 0 the model
                    * criterion is the residual of the relaxed system (contact_ip.c) */
    int polish;    /* ADMM in body space (contact_sparse.h, the world's robot islands): 1 (default)
                    * tries Newton on the modes the iterate shows (contact_polish.h) and keeps its
                    * answer when it meets tol; the dense ADMM does not polish */
    int give_up;   /* ADMM in body space: 1 ends a solve whose progress, extrapolated, misses tol
                    * within max_iter (LUCID_CONTACT_ADMM_FORECAST_*, contact_admm.h), for a
                    * caller with a better next attempt (the world's interior point); 0 by
                    * default */
    int first_order; /* CCP and NCP: 1 makes `converged` also require the friction direction
                      * residual <= tol (contact_direction.h), so that a converged answer is
                      * accurate to first order in tol rather than to sqrt(tol); ccp:newton
                      * iterates until it is met. 0 by default (the world judges its islands on
                      * the criterion alone, docs/world.md); lucid.contact.solve sets 1 */
    int derive_dual; /* ADMM warm starts: 1 starts the multiplier from lambda alone (its value at a
                      * solution, as when dual is NULL) without reading dual, which still
                      * receives the multiplier on exit; 0 by default (dual, when given, is read) */
} lucid_contact_options;

/* The options' description: the Lua keys (model, solver, tol, max_iter, warm_start,
 * relaxation, alpha, rho, stall_tol, inner_max_iter, compliance, kappa, polish) and the C-only
 * fields, with their valid values (lucid.contact.options(), runtime/lua/lua_options.h). */
extern const lucid_option lucid_contact_option_table[];

/* LUCID_OK, or LUCID_ERR_ARGUMENT with *why (if not NULL) the first bad option's rule or the
 * invalid model/solver pair. */
lucid_status lucid_contact_options_check(const lucid_contact_options *o, const char **why);

typedef struct lucid_contact_result {
    int iterations;               /* outer iterations performed */
    int inner_iterations;         /* staggered projections: total inner ADMM iterations */
    int converged;                /* the model criterion reached tol (never with diverged) */
    int diverged;                 /* the iterate became non-finite: lambda = dual = 0 returned */
    int stalled;                  /* stopped because the iterate no longer moved */
    int factorizations;           /* Cholesky factorisations performed (ADMM, Newton) */
    int spectra;                  /* ADMM: spectra of G + R computed (0, 1, contact.md) */
    double rho;                   /* ADMM: final rho, to warm start the next solve */
    int polished;                 /* the answer came from the active-set polish */
    lucid_contact_criteria model; /* the model's own criterion (what tol applies to) */
    lucid_contact_criteria ncp;   /* the NCP criterion of the returned lambda */
} lucid_contact_result;

typedef struct lucid_contact_workspace lucid_contact_workspace;

lucid_contact_options lucid_contact_default_options(void);

/* A workspace for problems of up to max_contacts contacts (NULL on bad size / no memory). */
lucid_contact_workspace *lucid_contact_workspace_create(int max_contacts);
void lucid_contact_workspace_destroy(lucid_contact_workspace *ws);
int lucid_contact_workspace_capacity(const lucid_contact_workspace *ws);
/* The velocity (G + R) lambda + g (3n) of the lambda the last lucid_contact_solve on ws
 * returned with LUCID_OK, valid until ws's next solve; NULL when that solve did not return
 * LUCID_OK or solved a copy of its problem with null rows conditioned (contact_null_rows.h). */
const double *lucid_contact_workspace_velocity(const lucid_contact_workspace *ws);

/* Solves p with the options' model and solver. lambda (3n) holds the warm start on entry
 * when o->warm_start and the solution on exit. dual (3n, may be NULL) is read on entry by ADMM
 * only, as its multiplier when warm starting (derived from lambda instead when NULL or with
 * o->derive_dual), and written on exit in the solver's own convention
 * (lucid_contact_multiplier_from). Statuses: invalid problem (see
 * lucid_contact_problem_validate), invalid pair or options or too small a workspace
 * (LUCID_ERR_ARGUMENT), G + R not PSD (LUCID_ERR_NOT_SPD). Hitting max_iter is not an error:
 * result->converged is 0 and lambda the last iterate. Divergence is not an error either, and never
 * returns garbage: when the iterate (lambda, its velocity, its NCP criterion or the dual) is not
 * finite, the solve returns LUCID_OK with result->diverged = 1, converged = 0, lambda (and dual)
 * set to zero and the criteria of that zero lambda, so a caller tests `converged` (or `diverged`)
 * and retries or falls back. Rows no force can move (a zero row of G, contact_null_rows.h) are
 * solved, not refused: such a row gets a compliance that selects its least force and a contact
 * whose normal row is zero no friction; the criteria are those of that problem. Every pair takes
 * problems of dim 4 (torsional friction) and 6 (rolling friction), first_order included (dense:
 * the workspace holds 3 capacity >= dim n rows; in body space ccp:newton takes dim 3 only and
 * raisim:bisection and ncp:staggered have no form). */

lucid_status lucid_contact_solve(const lucid_contact_problem *p, const lucid_contact_options *o,
                                 lucid_contact_workspace *ws, double *lambda, double *dual,
                                 lucid_contact_result *result);
/* lucid_contact_solve of a problem whose G its caller assembled symmetric as J M^-1 J^T (the
 * world's islands): validated by lucid_contact_problem_validate_assembled, which reads G's
 * diagonal instead of every entry pair (an O(m^2) pass as long as a warm solve). */
lucid_status lucid_contact_solve_assembled(const lucid_contact_problem *p,
                                           const lucid_contact_options *o,
                                           lucid_contact_workspace *ws, double *lambda,
                                           double *dual, lucid_contact_result *result);

/* The dual each solver writes on exit, at a solution with velocity sigma and shift Gamma (De
 * Saxce's mu ||sigma_T|| e_N for the NCP, 0 for the CCP): ADMM (ccp:admm, ncp:admm, dense or
 * in body space) its multiplier gamma = -(sigma + Gamma) (stationarity of its x-step); ip
 * (ccp:ip, ncp:ip) its corrected velocity y = sigma + Gamma; the other solvers none. Turns the
 * dual of a `solver` solve into ADMM's multiplier in place (m entries), the one conversion for
 * warm-starting ADMM from another solver's answer: 1, or 0 when that solver has no dual (dual
 * untouched). */
int lucid_contact_multiplier_from(lucid_contact_solver solver, size_t m, double *dual);

/* The compliance ccp:newton solves with (a dense problem of dim 3, 4 or 6 rows per contact;
 * contact_newton.c): R_k = the problem's R_k where > 0, else compliance x trace(G_ii) / dim
 * (derived[k] = 1: R_k depends on G so; derived may be NULL); a tangential row no motion
 * reaches takes the other tangent's (dim 3), the first reachable tangential row's (dim 4, 6).
 * R: dim n entries. LUCID_ERR_ARGUMENT when a contact's tangential entries then differ. */
lucid_status lucid_contact_newton_compliance(const lucid_contact_problem *p, double compliance,
                                             double *R, unsigned char *derived);

#endif
