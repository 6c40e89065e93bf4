#include "solvers/contact/contact_solver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/math/finite.h"
#include "solvers/contact/contact_direction.h"
#include "solvers/contact/contact_internal.h"
#include "solvers/contact/contact_math.h"

lucid_contact_options lucid_contact_default_options(void) {
    lucid_contact_options o;
    memset(&o, 0, sizeof o);
    o.model = LUCID_CONTACT_NCP;
    o.solver = LUCID_CONTACT_PGS;
    o.tol = 1e-6;
    o.max_iter = 1000;
    o.stall_tol = 1e-12;
    o.warm_start = 0;
    o.relaxation = 0.8;
    o.admm_alpha = 1.5;
    o.rho = 0.0;
    o.rho_ratio = 10.0;
    o.rho_power = 0.05;
    o.inner_max_iter = 200;
    o.newton_compliance = 1e-8;
    o.check_psd = 1;
    o.kappa = 0.0;
    o.polish = 1;
    return o;
}

lucid_contact_workspace *lucid_contact_workspace_create(int max_contacts) {
    if (max_contacts < 0 || max_contacts > 20000) return NULL;
    lucid_contact_workspace *ws = calloc(1, sizeof *ws);
    if (!ws) return NULL;
    ws->capacity = max_contacts;
    size_t m = 3 * (size_t)(max_contacts > 0 ? max_contacts : 1);
    ws->lwork_size = (int)(1 + 6 * m + 2 * m * m);
    ws->iwork_size = (int)(3 + 5 * m);
    int ok = 1;
    for (int k = 0; k < 4; ++k) ok = ok && (ws->mat[k] = malloc(sizeof(double) * m * m));
    for (int k = 0; k < 16; ++k) ok = ok && (ws->vec[k] = malloc(sizeof(double) * m));
    ok = ok && (ws->eig = malloc(sizeof(double) * m));
    ok = ok && (ws->lwork = malloc(sizeof(double) * (size_t)ws->lwork_size));
    ok = ok && (ws->iwork = malloc(sizeof(int) * (size_t)ws->iwork_size));
    ok = ok && (ws->null_R = malloc(sizeof(double) * m));
    ok = ok && (ws->null_mu = malloc(sizeof(double) * (m / 3)));
    ok = ok && (ws->ip = malloc(sizeof(double) * LUCID_CONTACT_IP_VECTORS * m));
    ok = ok && (ws->ipiv = malloc(sizeof(int) * m));
    if (!ok) {
        lucid_contact_workspace_destroy(ws);
        return NULL;
    }
    return ws;
}

void lucid_contact_workspace_destroy(lucid_contact_workspace *ws) {
    if (!ws) return;
    for (int k = 0; k < 4; ++k) free(ws->mat[k]);
    for (int k = 0; k < 16; ++k) free(ws->vec[k]);
    free(ws->eig);
    free(ws->lwork);
    free(ws->iwork);
    free(ws->null_R);
    free(ws->null_mu);
    free(ws->ip);
    free(ws->ipiv);
    free(ws);
}

int lucid_contact_workspace_capacity(const lucid_contact_workspace *ws) {
    return ws ? ws->capacity : 0;
}

const double *lucid_contact_workspace_velocity(const lucid_contact_workspace *ws) {
    return ws && ws->sigma_given ? ws->vec[0] : NULL;
}

double lucid_contact_max_abs(const double *x, long count) {
    double m = 0.0;
    for (long k = 0; k < count; ++k) m = lucid_contact_fmax(m, fabs(x[k]));
    return m;
}

double lucid_contact_max_abs_diff(const double *x, const double *y, long count) {
    double m = 0.0;
    for (long k = 0; k < count; ++k) m = lucid_contact_fmax(m, fabs(x[k] - y[k]));
    return m;
}

int lucid_contact_stalled(double change, double size, double stall_tol) {
    return change <= stall_tol * size; /* a product, not a ratio: 0/0 cannot happen */
}

int lucid_contact_first_order_applies(const lucid_contact_options *o) {
    return o->first_order && (o->model == LUCID_CONTACT_CCP || o->model == LUCID_CONTACT_NCP) &&
           !(o->solver == LUCID_CONTACT_IP && o->kappa > 0.0); /* relaxed: not a solution */
}

/* The model criterion meets tol, and with o->first_order the friction directions too. */
int lucid_contact_check(lucid_contact_run *run, const double *lambda, const double *sigma) {
    lucid_contact_criteria_eval(run->p, run->criterion, lambda, sigma, NULL, &run->result->model);
    if (run->criterion == LUCID_CRITERION_NCP)
        run->result->ncp = run->result->model;
    else
        lucid_contact_criteria_eval(run->p, LUCID_CRITERION_NCP, lambda, sigma, NULL,
                                    &run->result->ncp);
    if (!(run->result->model.abs <= run->o->tol)) return 0;
    return !lucid_contact_first_order_applies(run->o) ||
           lucid_contact_direction_residual(run->p, lambda, sigma) <= run->o->tol;
}

lucid_status lucid_contact_check_psd(lucid_contact_run *run) {
    const lucid_contact_problem *p = run->p;
    int m = (int)lucid_contact_rows(p);
    double scale = 0.0;
    for (int k = 0; k < m; ++k) scale = lucid_contact_fmax(scale, lucid_contact_diag(p, k));
    return lucid_contact_cholesky(p->G, p->R, 1e-9 * scale, m, run->ws->mat[0]);
}

static lucid_status dispatch(lucid_contact_run *run, double *lambda, double *dual) {
    switch (run->o->solver) {
        case LUCID_CONTACT_PGS:
            return lucid_contact_solve_pgs(run, lambda);
        case LUCID_CONTACT_BISECTION:
            return lucid_contact_solve_bisection(run, lambda);
        case LUCID_CONTACT_ADMM:
            return lucid_contact_solve_admm(run, lambda, dual);
        case LUCID_CONTACT_STAGGERED:
            return lucid_contact_solve_staggered(run, lambda);
        case LUCID_CONTACT_NEWTON:
            return run->o->model == LUCID_CONTACT_NCP
                       ? lucid_contact_solve_alart_curnier(run, lambda)
                       : lucid_contact_solve_newton(run, lambda);
        case LUCID_CONTACT_IP:
            return lucid_contact_solve_ip(run, lambda, dual);
    }
    return LUCID_ERR_ARGUMENT;
}

/* Whatever a solver did, a non-finite answer is never reported: when lambda, its velocity,
 * its NCP criterion or the dual is not finite, the result becomes diverged (lambda = 0,
 * dual = 0, converged = stalled = 0, criteria of that lambda; the model criterion is then the
 * generic one of lucid_contact_model_criterion). Leaves the velocity of the returned lambda in
 * ws->vec[0] (the solver's own when ws->sigma_current). */
static void guard_divergence(lucid_contact_run *run, double *lambda, double *dual) {
    const lucid_contact_problem *p = run->p;
    long m = lucid_contact_rows(p);
    double *sigma = run->ws->vec[0];
    lucid_contact_result *r = run->result;
    int has_dual = dual && (run->o->solver == LUCID_CONTACT_ADMM ||
                            run->o->solver == LUCID_CONTACT_IP); /* others leave it alone */
    int finite = lucid_all_finite(lambda, m) && (!has_dual || lucid_all_finite(dual, m));
    if (finite) {
        if (!run->ws->sigma_current) lucid_contact_velocity(p, lambda, sigma);
        finite = lucid_all_finite(sigma, m) && isfinite(r->ncp.abs);
    }
    if (finite) return;
    run->ws->ip_state.valid = 0;
    memset(lambda, 0, sizeof(double) * (size_t)m);
    if (has_dual) memset(dual, 0, sizeof(double) * (size_t)m);
    r->diverged = 1, r->converged = 0, r->stalled = 0;
    lucid_contact_velocity(p, lambda, sigma);
    lucid_contact_check(run, lambda, sigma);
}

/* With o->first_order, a converged answer whose friction directions are not accurate to first
 * order (contact_direction.h) is not converged. The velocity is that of p (guard_divergence
 * left it in ws->vec[0]): a solver's own compliance (ccp:newton's) is tangentially isotropic
 * and does not change the residual. */
static void check_first_order(lucid_contact_run *run, const double *lambda) {
    if (!run->result->converged || !lucid_contact_first_order_applies(run->o)) return;
    const double *sigma = run->ws->vec[0];
    if (!(lucid_contact_direction_residual(run->p, lambda, sigma) <= run->o->tol))
        run->result->converged = 0;
}

/* p with its null rows conditioned (contact_null_rows.h) in ws's buffers when it has any,
 * else p itself. */
static const lucid_contact_problem *condition_null_rows(const lucid_contact_problem *p,
                                                        lucid_contact_workspace *ws,
                                                        lucid_contact_problem *q) {
    if (!p || p->n <= 0 || !p->G || !p->mu || !ws || 3L * ws->capacity < lucid_contact_rows(p))
        return p;
    size_t m = (size_t)lucid_contact_rows(p);
    for (size_t k = 0; k < m; ++k) ws->null_R[k] = p->R ? p->R[k] : 0.0;
    memcpy(ws->null_mu, p->mu, sizeof(double) * (size_t)p->n);
    if (lucid_contact_dense_null_rows_dim(p->n, lucid_contact_dim(p), p->G, ws->null_R,
                                          ws->null_mu) == 0)
        return p;
    *q = *p;
    q->R = ws->null_R, q->mu = ws->null_mu;
    return q;
}

/* lucid_contact_solve, G validated whole or (assembled) on its diagonal. */
static lucid_status solve(const lucid_contact_problem *given, const lucid_contact_options *o,
                          lucid_contact_workspace *ws, double *lambda, double *dual,
                          lucid_contact_result *result, int assembled) {
    if (!o || !result) return LUCID_ERR_ARGUMENT;
    memset(result, 0, sizeof *result);
    if (ws) ws->sigma_given = 0;
    lucid_contact_problem conditioned;
    const lucid_contact_problem *p = condition_null_rows(given, ws, &conditioned);
    lucid_status status = assembled ? lucid_contact_problem_validate_assembled(p, NULL)
                                    : lucid_contact_problem_validate(p, NULL);
    if (status != LUCID_OK) return status;
    if ((status = lucid_contact_options_check(o, NULL)) != LUCID_OK) return status;
    long m = lucid_contact_rows(p);
    if (!ws || 3L * ws->capacity < m || (p->n > 0 && !lambda)) return LUCID_ERR_ARGUMENT;
    ws->ip_state.valid = 0, ws->sigma_current = 0;
    if (o->warm_start && !lucid_all_finite(lambda, m)) return LUCID_ERR_NONFINITE;
    if (o->warm_start && !o->derive_dual && dual && !lucid_all_finite(dual, m))
        return LUCID_ERR_NONFINITE;
    if (!o->warm_start && m > 0) memset(lambda, 0, sizeof(double) * (size_t)m);
    lucid_contact_run run = {p, o, ws, result, lucid_contact_model_criterion(o->model)};
    if (p->n == 0) {
        result->converged = 1;
        return LUCID_OK;
    }
    status = dispatch(&run, lambda, dual);
    if (status == LUCID_OK) guard_divergence(&run, lambda, dual);
    if (status == LUCID_OK) check_first_order(&run, lambda);
    if (status != LUCID_OK) ws->ip_state.valid = 0;
    ws->sigma_given = status == LUCID_OK && p == given; /* guard_divergence's velocity */
    return status;
}

lucid_status lucid_contact_solve(const lucid_contact_problem *p, const lucid_contact_options *o,
                                 lucid_contact_workspace *ws, double *lambda, double *dual,
                                 lucid_contact_result *result) {
    return solve(p, o, ws, lambda, dual, result, 0);
}

lucid_status lucid_contact_solve_assembled(const lucid_contact_problem *p,
                                           const lucid_contact_options *o,
                                           lucid_contact_workspace *ws, double *lambda,
                                           double *dual, lucid_contact_result *result) {
    return solve(p, o, ws, lambda, dual, result, 1);
}

int lucid_contact_multiplier_from(lucid_contact_solver solver, size_t m, double *dual) {
    if (solver == LUCID_CONTACT_ADMM) return 1;
    if (solver != LUCID_CONTACT_IP) return 0;
    for (size_t k = 0; k < m; ++k) dual[k] = -dual[k]; /* -(sigma + Gamma) */
    return 1;
}
