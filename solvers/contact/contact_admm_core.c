#include <math.h>
#include <string.h>

#include "solvers/contact/contact_admm.h"
#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_internal.h"
#include "solvers/contact/contact_math.h"

lucid_status lucid_contact_admm_set_spectrum(lucid_contact_admm *s, const double *values, int m) {
    double top = values[m - 1];
    if (!(top > 0.0) || !isfinite(top) || values[0] < -LUCID_CONTACT_ADMM_NEGATIVE_EIGENVALUE * top)
        return LUCID_ERR_NOT_SPD;
    double zero = LUCID_CONTACT_ADMM_NULL_EIGENVALUE * top;
    int k = 0;
    while (values[k] <= zero) ++k; /* stops at m - 1: top > zero */
    s->eig_min = values[k], s->eig_max = top, s->singular = k > 0;
    return LUCID_OK;
}

void lucid_contact_admm_forecast_init(lucid_contact_admm_forecast *f) {
    *f = (lucid_contact_admm_forecast){.best = INFINITY, .window_best = INFINITY};
}

int lucid_contact_admm_hopeless(lucid_contact_admm_forecast *f, int k, double criterion, double tol,
                                int max_iter) {
    if (criterion < f->best) f->best = criterion; /* a NaN criterion is not recorded */
    if (k < LUCID_CONTACT_ADMM_FORECAST_WINDOW) return 0;
    if (f->window_start == 0) { /* the first window opens */
        f->window_start = k, f->window_best = f->best;
        return 0;
    }
    if (k - f->window_start < LUCID_CONTACT_ADMM_FORECAST_WINDOW) return 0;
    double rate = log(f->window_best / f->best) / (double)(k - f->window_start);
    int hopeless = f->best > LUCID_CONTACT_ADMM_FORECAST_FAR * tol &&
                   !(rate > 0.0 && (double)k + log(f->best / tol) / rate <=
                                       LUCID_CONTACT_ADMM_FORECAST_MARGIN * (double)max_iter);
    f->window_start = k, f->window_best = f->best;
    return hopeless;
}

double lucid_contact_admm_spectral_rho(const lucid_contact_admm *s) {
    return s->singular ? s->eig_min : sqrt(s->eig_min * s->eig_max);
}

double lucid_contact_admm_kappa(const lucid_contact_admm *s) {
    return s->eig_max / s->eig_min;
}

/* kappa of A + R + rho I from the spectrum of A + R (its null space shifts to rho), or its
 * bound (eig_bound + rho) / rho while the spectrum is pending. */
static double shifted_condition(const lucid_contact_admm *s) {
    if (s->spectrum_pending) return (s->eig_bound + s->rho) / s->rho;
    double lowest = s->singular ? 0.0 : s->eig_min;
    return (s->eig_max + s->rho) / (lowest + s->rho);
}

lucid_status lucid_contact_admm_iterate(lucid_contact_admm *s, const double *b,
                                        lucid_contact_projection project, const void *ctx) {
    int m = s->m;
    if (s->rho != s->factored_rho) {
        s->inverted = shifted_condition(s) <= LUCID_CONTACT_ADMM_INVERSE_CONDITION;
        lucid_status status = lucid_contact_cholesky(s->A, s->R, s->rho, m, s->factor);
        if (status != LUCID_OK) return status;
        s->factored_rho = s->rho, s->factor_inverse = 0, s->factor_uses = 0;
        ++s->factorizations;
    } else if (s->inverted && !s->factor_inverse &&
               s->factor_uses >= LUCID_CONTACT_ADMM_INVERT_AFTER_PER_ROW * m) {
        lucid_status status = lucid_contact_invert_factor(s->factor, m);
        if (status != LUCID_OK) return status;
        s->factor_inverse = 1;
    }
    ++s->factor_uses;
    double rho = s->rho, alpha = s->alpha;
    for (int k = 0; k < m; ++k) s->rhs[k] = rho * s->z[k] - s->gamma[k] - b[k];
    if (s->factor_inverse) {
        lucid_contact_inverse_apply(s->factor, m, s->rhs, s->x);
    } else {
        memcpy(s->x, s->rhs, sizeof(double) * (size_t)m);
        lucid_contact_cholesky_solve(s->factor, m, s->x);
    }
    for (int k = 0; k < m; ++k) {
        s->z_prev[k] = s->z[k];
        s->rhs[k] = alpha * s->x[k] + (1.0 - alpha) * s->z[k]; /* relaxed x, kept in rhs */
        s->z[k] = s->rhs[k] + s->gamma[k] / rho;
    }
    project(ctx, s->z, s->z);
    double primal = 0.0, dual = 0.0, force = 0.0, velocity = 0.0;
    for (int k = 0; k < m; ++k) {
        s->gamma[k] += rho * (s->rhs[k] - s->z[k]);
        primal = lucid_contact_fmax(primal, fabs(s->x[k] - s->z[k]));
        dual = lucid_contact_fmax(dual, rho * fabs(s->z[k] - s->z_prev[k]));
        force = lucid_contact_fmax(force, lucid_contact_fmax(fabs(s->x[k]), fabs(s->z[k])));
        velocity = lucid_contact_fmax(velocity, lucid_contact_fmax(fabs(s->gamma[k]), fabs(b[k])));
    }
    s->primal_residual = primal, s->dual_residual = dual;
    s->force_scale = force, s->velocity_scale = velocity;
    return LUCID_OK;
}

int lucid_contact_admm_needs_spectrum(const lucid_contact_admm *s) {
    return s->spectrum_pending && s->rho != s->factored_rho &&
           !((s->eig_bound + s->rho) / s->rho <= LUCID_CONTACT_ADMM_INVERSE_CONDITION);
}

int lucid_contact_admm_adapt_direction(const lucid_contact_admm *s, double ratio) {
    /* Residuals relative to their own units (forces, velocities), as OSQP does, so the
     * balance does not depend on the problem's scaling; 0/0 cannot occur (products). */
    double primal = s->primal_residual * s->velocity_scale;
    double dual = s->dual_residual * s->force_scale;
    return primal > ratio * dual ? 1 : dual > ratio * primal ? -1 : 0;
}

int lucid_contact_admm_adapt(lucid_contact_admm *s, double ratio, double power) {
    double factor = pow(lucid_contact_admm_kappa(s), power);
    if (!(factor > 1.0)) return 0;
    /* rho stays within the spectrum [eig_min, eig_max] around its sqrt(eig_min eig_max)
     * start: beyond it the x-step is either unregularised or ignores A, and unbounded
     * decreases (a warm start where z no longer moves) drove rho to 1e-8 and stalled. */
    double old = s->rho;
    int direction = lucid_contact_admm_adapt_direction(s, ratio);
    if (direction > 0) s->rho = fmin(s->rho * factor, lucid_contact_fmax(old, s->eig_max));
    if (direction < 0) s->rho = lucid_contact_fmax(s->rho / factor, fmin(old, s->eig_min));
    return s->rho != old;
}

int lucid_contact_admm_polish(lucid_contact_polisher *pl, lucid_contact_run *run,
                              lucid_contact_admm *s, double *sigma, double *scratch) {
    const lucid_contact_problem *p = run->p;
    const lucid_contact_options *o = run->o;
    int dim = lucid_contact_dim(p), m = dim * p->n;
    double *candidate = scratch, *velocity = scratch + m;
    lucid_contact_criteria criteria;
    if (!lucid_contact_polish(pl, p, o->model, o->tol, s->z, candidate, velocity, &criteria))
        return 0;
    memcpy(s->z, candidate, sizeof(double) * (size_t)m);
    memcpy(sigma, velocity, sizeof(double) * (size_t)m);
    for (int k = 0; k < m; ++k) s->gamma[k] = -sigma[k];
    if (o->model == LUCID_CONTACT_NCP)
        for (int i = 0; i < p->n; ++i)
            s->gamma[dim * i + 2] -= p->mu[i] * lucid_cone_n_tangent_norm(dim, sigma + dim * i);
    /* at the round-off floor, below which tol lies, when the check fails */
    run->result->stalled = !lucid_contact_check(run, s->z, sigma);
    run->result->polished = 1;
    return 1;
}

void lucid_contact_admm_linear_term(int n, int dim, const double *g, const double *mu, int ncp,
                                    const double *velocity, double *b) {
    memcpy(b, g, sizeof(double) * (size_t)dim * (size_t)n);
    if (!ncp) return;
    if (dim > 3) {
        for (int i = 0; i < n; ++i)
            b[dim * i + 2] += mu[i] * lucid_cone_n_tangent_norm(dim, velocity + dim * i);
        return;
    }
    for (int i = 0; i < n; ++i)
        b[3 * i + 2] += mu[i] * lucid_contact_hypot(velocity[3 * i], velocity[3 * i + 1]);
}

void lucid_contact_admm_pack(const lucid_contact_admm *s, double *out) {
    for (int k = 0; k < s->m; ++k) out[k] = s->z[k], out[s->m + k] = s->gamma[k] / s->rho;
}

void lucid_contact_admm_accelerate(lucid_anderson *a, lucid_contact_admm *s, double *u, double *g) {
    int m = s->m;
    lucid_contact_admm_pack(s, g);
    lucid_anderson_step(a, u, g);
    for (int k = 0; k < m; ++k) s->z[k] = g[k], s->gamma[k] = s->rho * g[m + k];
}
