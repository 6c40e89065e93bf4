/* ADMM on the dual CCP (Alg. 3) and on the NCP through the De Saxce shift.
 * ccp:admm solves min_{lambda in K_mu} 1/2 lambda^T (G + R) lambda + g^T lambda.
 * ncp:admm solves the same QCQP with g replaced by g + s, s_i = (0, 0, mu_i ||v_T,i||) with v
 * the ADMM's own estimate of the contact velocity, -gamma (stationarity of the x-step gives
 * gamma = -(sigma + s) at a fixed point; s has no tangential part), updated before every
 * ADMM step: a fixed point of this shifted CCP is exactly a solution of the NCP (15), as in
 * Inria's later simulator.
 * Why -gamma and not sigma(z) = (G + R) z + g: the x-step maps a change of b to a change of
 * x of up to |db| / rho along the null space of a singular G (hyperstatic contacts), so a
 * shift read from sigma(z) closes a loop of gain ~ mu eig_max / rho, which diverged (to NaN
 * or 1e150) whenever rho was small. gamma moves by rho (x - z) per step, and the loop gain is
 * about mu: the fixed-point iteration stays bounded whatever rho.
 * The returned lambda is the projected variable z (always inside the cone). */
#include <math.h>
#include <string.h>

#include "solvers/contact/contact_admm.h"
#include "solvers/contact/contact_anderson.h"
#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_internal.h"
#include "solvers/contact/contact_math.h"

static void project_cones(const void *ctx, const double *x, double *out) {
    const lucid_contact_problem *p = ctx;
    lucid_cones_project(p->n, lucid_contact_dim(p), p->mu, x, out);
}

/* b = g (+ the De Saxce shift for the NCP from the velocity estimate) */
static void linear_term(const lucid_contact_problem *p, int ncp, const double *velocity,
                        double *b) {
    lucid_contact_admm_linear_term(p->n, lucid_contact_dim(p), p->g, p->mu, ncp, velocity, b);
}

/* Sets up the ADMM state from the workspace; rho is the caller's (0 when none) until
 * admm_prepare. */
static void admm_setup(lucid_contact_run *run, lucid_contact_admm *s) {
    const lucid_contact_problem *p = run->p;
    lucid_contact_workspace *ws = run->ws;
    *s = (lucid_contact_admm){.m = (int)lucid_contact_rows(p),
                              .A = p->G,
                              .R = p->R,
                              .factor = ws->mat[0],
                              .x = ws->vec[1],
                              .z = ws->vec[2],
                              .z_prev = ws->vec[3],
                              .gamma = ws->vec[4],
                              .rhs = ws->vec[5],
                              .alpha = run->o->admm_alpha,
                              .rho = run->o->rho > 0.0 ? run->o->rho : 0.0,
                              .factored_rho = NAN};
}

/* The spectrum of G + R (eig_min, eig_max, singular: the eigenvalues, in ws->mat[2]) and
 * rho from it unless the options or the caller gave one. Made only when the solve needs it: to
 * start without a rho, to move rho (its factor kappa^rho_power and its bounds), or to choose
 * the x-step where eig_bound cannot (lucid_contact_admm_needs_spectrum); the warm solves that
 * keep their carried rho never make it (an eigendecomposition costs many warm solves). */
static lucid_status admm_spectrum(lucid_contact_run *run, lucid_contact_admm *s) {
    const lucid_contact_problem *p = run->p;
    lucid_contact_workspace *ws = run->ws;
    lucid_status status = lucid_contact_eigen(ws, p->G, p->R, s->m, ws->eig, NULL, ws->mat[2]);
    if (status != LUCID_OK) return status;
    if ((status = lucid_contact_admm_set_spectrum(s, ws->eig, s->m)) != LUCID_OK) return status;
    s->spectrum_pending = 0;
    run->result->spectra = 1;
    if (!(s->rho > 0.0)) s->rho = lucid_contact_admm_spectral_rho(s);
    return LUCID_OK;
}

/* Gershgorin's bound on the largest eigenvalue of G + R (max row sum of |G| plus R): the
 * x-step's condition bound while the spectrum is pending. */
static double eig_bound(const lucid_contact_problem *p, int m) {
    double bound = 0.0;
    for (int j = 0; j < m; ++j) { /* G is symmetric: column sums */
        const double *col = p->G + (size_t)m * (size_t)j;
        double sum = p->R ? p->R[j] : 0.0;
        for (int i = 0; i < m; ++i) sum += fabs(col[i]);
        bound = lucid_contact_fmax(bound, sum);
    }
    return bound;
}

/* What the iterations need before the first: the spectrum when no rho is given (its rho;
 * it also refuses an indefinite G + R), else the bound on eig_max, after a PSD check by a
 * Cholesky factorisation with check_psd. */
static lucid_status admm_prepare(lucid_contact_run *run, lucid_contact_admm *s) {
    if (!(s->rho > 0.0)) return admm_spectrum(run, s);
    lucid_status status = run->o->check_psd ? lucid_contact_check_psd(run) : LUCID_OK;
    s->spectrum_pending = 1;
    s->eig_bound = eig_bound(run->p, s->m);
    return status;
}

/* Iterations until the next evaluation of the full criterion: its velocity (G + R) z costs
 * as much as the x-step's two triangular solves, and the cone distances about as much again,
 * so it is made every iteration only once the last value was within a factor
 * LUCID_CONTACT_ADMM_CHECK_NEAR of tol, and every LUCID_CONTACT_ADMM_CHECK_PERIOD-th
 * iteration before (a solve that jumps below tol there runs at most PERIOD - 1 iterations
 * more). `converged` still means the full criterion met tol: the last iterate is always
 * evaluated. */
static int check_period(const lucid_contact_run *run) {
    double near = LUCID_CONTACT_ADMM_CHECK_NEAR * run->o->tol;
    return run->result->model.abs <= near ? 1 : LUCID_CONTACT_ADMM_CHECK_PERIOD;
}

/* Anderson acceleration of the (z, gamma / rho) map in ws->mat[1]:
 * its memory shrinks on problems too small for the buffer, where ADMM is fast anyway. */
typedef struct admm_accel {
    lucid_anderson a;
    double *u, *g; /* packed input and output of one ADMM step (2m each) */
} admm_accel;

static void accel_init(admm_accel *acc, lucid_contact_workspace *ws, int m) {
    int memory = LUCID_CONTACT_ADMM_ANDERSON_MEMORY;
    while (memory > 0 && lucid_anderson_storage(2 * m, memory) + 4 * m > m * m) --memory;
    double *storage = ws->mat[1];
    lucid_anderson_init(&acc->a, 2 * m, memory, storage);
    acc->u = memory ? storage + lucid_anderson_storage(2 * m, memory) : NULL;
    acc->g = memory ? acc->u + 2 * m : NULL;
}

lucid_status lucid_contact_solve_admm(lucid_contact_run *run, double *lambda, double *dual) {
    const lucid_contact_problem *p = run->p;
    const lucid_contact_options *o = run->o;
    int m = (int)lucid_contact_rows(p), ncp = o->model == LUCID_CONTACT_NCP;
    lucid_contact_admm s;
    admm_setup(run, &s);
    lucid_status status = LUCID_OK;
    double *sigma = run->ws->vec[0], *b = run->ws->vec[6];
    /* Start: z = P_K(lambda); gamma from the caller, else (dual NULL or o->derive_dual)
     * -(velocity + shift), its value at the solution (stationarity of the x-step:
     * (G + R) x + b + gamma = 0); cold, 0, unless z already meets tol: the returned
     * multiplier is then that value too. */
    project_cones(p, lambda, s.z);
    lucid_contact_velocity(p, s.z, sigma);
    linear_term(p, ncp, sigma, b);
    int done = lucid_contact_check(run, s.z, sigma), checked = 1, next_check = 1;
    for (int k = 0; k < m; ++k) {
        double from_velocity = -(sigma[k] + b[k] - p->g[k]);
        s.gamma[k] = o->warm_start && dual && !o->derive_dual ? dual[k]
                     : o->warm_start || done                  ? from_velocity
                                                              : 0.0;
    }
    if (!done && (status = admm_prepare(run, &s)) != LUCID_OK) return status;
    admm_accel acc;
    accel_init(&acc, run->ws, m);
    for (int k = 1; !done && k <= o->max_iter; ++k) {
        if (acc.u) lucid_contact_admm_pack(&s, acc.u);
        if (lucid_contact_admm_needs_spectrum(&s) && (status = admm_spectrum(run, &s)) != LUCID_OK)
            return status;
        if ((status = lucid_contact_admm_iterate(&s, b, project_cones, p)) != LUCID_OK)
            return status;
        run->result->iterations = k;
        checked = k >= next_check;
        if (checked) {
            lucid_contact_velocity(p, s.z, sigma);
            if ((done = lucid_contact_check(run, s.z, sigma))) break;
            next_check = k + check_period(run);
        }
        if (!isfinite(s.force_scale) || !isfinite(s.velocity_scale)) break; /* diverged */
        double size =
            lucid_contact_fmax(lucid_contact_max_abs(s.z, m), lucid_contact_max_abs(s.z_prev, m));
        if (lucid_contact_stalled(lucid_contact_max_abs_diff(s.z, s.z_prev, m), size,
                                  o->stall_tol) &&
            lucid_contact_stalled(s.primal_residual, size, o->stall_tol)) {
            run->result->stalled = 1;
            break;
        }
        /* Anderson acceleration while rho is constant (the map changes with it), and only
         * with the well-conditioned inverse x-step (with the factor its extrapolations fit
         * round-off, docs/contact.md). Never on the last iteration: z is returned projected. */
        if (s.spectrum_pending && lucid_contact_admm_adapt_direction(&s, o->rho_ratio) &&
            (status = admm_spectrum(run, &s)) != LUCID_OK)
            return status;
        if (!s.spectrum_pending && lucid_contact_admm_adapt(&s, o->rho_ratio, o->rho_power))
            lucid_anderson_reset(&acc.a);
        else if (k < o->max_iter && s.inverted && acc.a.memory > 0)
            lucid_contact_admm_accelerate(&acc.a, &s, acc.u, acc.g);
        linear_term(p, ncp, s.gamma, b); /* ||-gamma_T|| = ||gamma_T|| */
    }
    if (!checked) { /* the criteria of the returned iterate */
        lucid_contact_velocity(p, s.z, sigma);
        done = lucid_contact_check(run, s.z, sigma);
    }
    if (done) run->result->converged = 1;
    run->ws->sigma_current = 1; /* sigma is the velocity of s.z: from its last check */
    memcpy(lambda, s.z, sizeof(double) * (size_t)m);
    if (dual) memcpy(dual, s.gamma, sizeof(double) * (size_t)m);
    run->result->rho = s.rho;
    run->result->factorizations = s.factorizations;
    return LUCID_OK;
}
