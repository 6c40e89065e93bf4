/* Primal Newton (contact_newton.c) on the body-space problem (contact_sparse.h).
 * The iterate is the same impulse mu (v = v_f + M^-1 J^T mu), with c = J v = g + G mu and
 * gamma = P^R_K(-R^-1 c); the direction of contact_newton.c, (I + D G) dmu = -(mu - gamma),
 * is taken in velocity space instead of through K = I + S^T G S (whose size is that of the
 * active directions, dense):
 *   H dv = -J^T e,  H = M + J^T D J,  e = mu - gamma,  dmu = -e - D J dv,  G dmu = J dv
 * (multiply the first by M^-1 J^T: the two are the same equation), H factorised by sparse
 * LDL once per iteration (contact_sparse_hessian.h): MuJoCo's Newton Hessian. D = S S^T per
 * contact from the projection's geometry, through contact_newton.c's per-contact pieces (the
 * projection, its Jacobian's square root, the line search). Continuation and the choice of the
 * answer are those of contact_newton.c; nothing is allocated (ws sized by
 * lucid_contact_sparse_reserve). */
#include <math.h>
#include <string.h>

#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_internal.h"
#include "solvers/contact/contact_sparse.h"
#include "solvers/contact/contact_sparse_hessian.h"

typedef lucid_contact_newton newton;

/* R_k = eps trace(G_ii) / 3 where p has none; trace from the J and W blocks */
static lucid_status effective_compliance(const lucid_contact_sparse_problem *p, double eps,
                                         double *R) {
    for (int i = 0; i < p->n; ++i) {
        double d[3] = {0.0, 0.0, 0.0}, trace = 0.0;
        for (int s = 2 * i; s < 2 * i + 2; ++s) {
            if (p->body[s] < 0) continue;
            size_t at = lucid_sparse_side_at(p, s), w = lucid_sparse_width(p, p->body[s]);
            const double *J = p->J + at, *W = p->W + at;
            for (size_t k = 0; k < 3 * w; ++k) d[k / w] += J[k] * W[k];
        }
        trace = d[0] + d[1] + d[2];
        if (p->R) trace += p->R[3 * i] + p->R[3 * i + 1] + p->R[3 * i + 2];
        for (int a = 0; a < 3; ++a) {
            double given = p->R ? p->R[3 * i + a] : 0.0;
            R[3 * i + a] = given > 0.0 ? given : eps * trace / 3.0;
        }
        lucid_contact_newton_null_tangent(d, p->R ? p->R + 3 * i : NULL, R + 3 * i);
        if (R[3 * i] != R[3 * i + 1] || !(R[3 * i + 2] > 0.0)) return LUCID_ERR_ARGUMENT;
    }
    return LUCID_OK;
}

typedef struct buffers {
    double *sigma, *e, *gamma_try, *projected, *answer, *D, *dv, *f;
    lucid_contact_hessian *h;
} buffers;

/* sigma = (G + R) lambda + g with the given R (the compliant problem) */
static void velocity(const lucid_contact_sparse_problem *p, const double *R, const double *lambda,
                     double *u, double *sigma) {
    lucid_contact_sparse_problem q = *p;
    q.R = R;
    lucid_contact_sparse_apply(&q, lambda, u, sigma);
    for (size_t k = 0; k < 3 * (size_t)p->n; ++k) sigma[k] += p->g[k];
}

static void check(lucid_contact_run *run, const lucid_contact_sparse_problem *p, const double *R,
                  const double *lambda, const buffers *b) {
    velocity(p, R, lambda, b->f, b->sigma);
    lucid_contact_problem compliant = *run->p;
    compliant.R = R;
    lucid_contact_criteria_eval(&compliant, LUCID_CRITERION_CCP, lambda, b->sigma, NULL,
                                &run->result->model);
}

static int best_candidate(lucid_contact_run *run, const lucid_contact_sparse_problem *p,
                          const double *R, double tol, const double *gamma, const double *mu,
                          const buffers *b) {
    int m = 3 * p->n;
    check(run, p, R, gamma, b);
    memcpy(b->answer, gamma, sizeof(double) * (size_t)m);
    if (run->result->model.abs <= tol) return 1;
    lucid_contact_criteria model = run->result->model;
    lucid_cones_project(p->n, 3, p->mu, mu, b->projected);
    check(run, p, R, b->projected, b);
    if (run->result->model.abs < model.abs) {
        memcpy(b->answer, b->projected, sizeof(double) * (size_t)m);
        return run->result->model.abs <= tol;
    }
    run->result->model = model;
    return 0;
}

/* The direction: D = S S^T per contact, H factorised, dv, dmu = -e - D J dv, dc = J dv. */
static lucid_status direction(const lucid_contact_sparse_problem *p, const newton *nt,
                              const buffers *b, double *dmu, double *dc) {
    for (int i = 0; i < p->n; ++i) {
        double S[LUCID_CONE_MAX_DIM][LUCID_CONE_MAX_DIM], pg[LUCID_CONE_MAX_DIM], *D = b->D + 9 * i;
        int count = lucid_contact_newton_piece(nt, i, nt->c + 3 * i, pg, S);
        for (int a = 0; a < 3; ++a)
            for (int c = 0; c < 3; ++c) {
                double v = 0.0;
                for (int k = 0; k < count; ++k) v += S[k][a] * S[k][c];
                D[3 * a + c] = v;
            }
    }
    lucid_status st = lucid_contact_hessian_factor(b->h, p, b->D);
    if (st != LUCID_OK) return st;
    lucid_contact_sparse_jt(p, b->e, b->dv);
    for (size_t k = 0; k < lucid_sparse_columns(p); ++k) b->dv[k] = -b->dv[k];
    lucid_contact_hessian_solve(b->h, b->dv);
    lucid_contact_sparse_j(p, b->dv, dc);
    for (int i = 0; i < p->n; ++i) {
        const double *D = b->D + 9 * i, *y = dc + 3 * i;
        for (int a = 0; a < 3; ++a)
            dmu[3 * i + a] =
                -b->e[3 * i + a] - (D[3 * a] * y[0] + D[3 * a + 1] * y[1] + D[3 * a + 2] * y[2]);
    }
    return LUCID_OK;
}

static lucid_status iterate(lucid_contact_run *run, const lucid_contact_sparse_problem *p,
                            const newton *nt, double *mu, double *c, double *gamma, double *dmu,
                            double *dc, const buffers *b, int *stalled) {
    for (int i = 0; i < nt->m; ++i) b->e[i] = mu[i] - gamma[i];
    lucid_status status = direction(p, nt, b, dmu, dc);
    if (status != LUCID_OK) return status;
    ++run->result->factorizations;
    *stalled = lucid_contact_newton_advance(run, nt, b->e, b->gamma_try, mu, c, gamma);
    return LUCID_OK;
}

lucid_status lucid_contact_solve_newton_sparse(const lucid_contact_sparse_problem *p,
                                               const lucid_contact_options *o,
                                               lucid_contact_sparse_workspace *ws, double *lambda,
                                               lucid_contact_result *result) {
    if (!result) return LUCID_ERR_ARGUMENT;
    memset(result, 0, sizeof *result);
    if (!p || !o || !ws || !lambda || p->n < 0 || o->solver != LUCID_CONTACT_NEWTON ||
        o->model != LUCID_CONTACT_CCP || !(o->tol >= 0.0) || o->max_iter < 0 ||
        !(o->newton_compliance > 0.0) || lucid_sparse_dim(p) != 3 || /* dim 4, 6: dense */
        (p->n > 0 && (!p->body || !p->J || !p->W || !p->M || !p->g || !p->mu)))
        return LUCID_ERR_ARGUMENT;
    int m = 3 * p->n;
    lucid_contact_problem dense = {p->n, NULL, p->g, p->mu, p->R, 3};
    lucid_contact_run run = {&dense, o, NULL, result, LUCID_CRITERION_CCP};
    if (!o->warm_start) memset(lambda, 0, sizeof(double) * (size_t)m);
    if (p->n == 0) {
        result->converged = 1;
        return LUCID_OK;
    }
    double *v = lucid_contact_sparse_workspace_buffer(ws);
    double *vec[16];
    for (int k = 0; k < 13; ++k) vec[k] = v + (size_t)k * (size_t)m;
    double *mu = vec[0], *c = vec[1], *gamma = vec[2], *dmu = vec[3], *dc = vec[4], *R = vec[5];
    buffers b = {.sigma = vec[6],
                 .e = vec[7],
                 .gamma_try = vec[8],
                 .projected = vec[9],
                 .answer = vec[10],
                 .D = v + 14 * (size_t)m, /* 9n = 3m */
                 .dv = v + 17 * (size_t)m,
                 .h = lucid_contact_sparse_workspace_hessian(ws)};
    b.f = b.dv + lucid_sparse_columns(p);
    newton nt = {p->n, 3, m, p->mu, vec[11], vec[12], v + 13 * (size_t)m, mu, dmu, c, dc};
    lucid_status status = effective_compliance(p, o->newton_compliance, R);
    if (status == LUCID_OK) status = lucid_contact_hessian_analyze(b.h, p);
    if (status != LUCID_OK) return status;
    if (o->warm_start)
        memcpy(mu, lambda, sizeof(double) * (size_t)m);
    else
        memset(mu, 0, sizeof(double) * (size_t)m);
    velocity(p, NULL, mu, b.f, c); /* c = g + G mu */
    double scale = fmax(1.0, LUCID_CONTACT_NEWTON_CONTINUATION_START / o->newton_compliance);
    int done = 0, k = 0;
    for (;; scale = fmax(1.0, scale / LUCID_CONTACT_NEWTON_CONTINUATION_FACTOR)) {
        lucid_contact_newton_set_compliance(&nt, R, scale);
        double stage_tol = scale * o->tol;
        lucid_contact_newton_project(&nt, c, gamma);
        int stage_done = best_candidate(&run, p, nt.R, stage_tol, gamma, mu, &b);
        int stalled = 0;
        while (!stage_done && !stalled && k < o->max_iter) {
            if ((status = iterate(&run, p, &nt, mu, c, gamma, dmu, dc, &b, &stalled)) != LUCID_OK)
                return status;
            result->iterations = ++k;
            stage_done = best_candidate(&run, p, nt.R, stage_tol, gamma, mu, &b);
        }
        if (scale == 1.0) {
            done = stage_done;
            result->stalled = stalled && !done;
            break;
        }
        if (k >= o->max_iter) {
            lucid_contact_newton_set_compliance(&nt, R, 1.0);
            lucid_contact_newton_project(&nt, c, gamma);
            done = best_candidate(&run, p, R, o->tol, gamma, mu, &b);
            break;
        }
    }
    memcpy(lambda, b.answer, sizeof(double) * (size_t)m);
    check(&run, p, R, lambda, &b);
    /* the NCP criterion on p's own velocity (its R, not the added compliance) */
    velocity(p, p->R, lambda, b.f, b.sigma);
    lucid_contact_criteria_eval(&dense, LUCID_CRITERION_NCP, lambda, b.sigma, NULL, &result->ncp);
    result->converged = done;
    return LUCID_OK;
}
