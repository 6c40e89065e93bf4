/* ADMM of contact_admm.c on the body-space problem (contact_sparse.h): the same iteration,
 * its x-step (G + R + rho I) x = r through the velocity-space matrix
 * H = M + J^T (R + rho I)^-1 J (contact_sparse_hessian.h) instead of a dense factor of G:
 *   x = (r - J u) / (R + rho),  H u = J^T (r / (R + rho)),
 * then, when G + R + rho I is ill-conditioned (kappa > LUCID_CONTACT_ADMM_INVERSE_CONDITION),
 * one step of iterative refinement (x += the same solve of r - (G + R + rho I) x, the
 * residual from a product with G through W), which brings the Woodbury form's error, ~eps
 * ||G|| / rho relative, back to the round-off of a backward stable solve. Memory O(n +
 * bodies + fill of H), nothing allocated once lucid_contact_sparse_reserve has sized it. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/contact/contact_admm.h"
#include "solvers/contact/contact_anderson.h"
#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_internal.h"
#include "solvers/contact/contact_math.h"
#include "solvers/contact/contact_sparse.h"
#include "solvers/contact/contact_sparse_hessian.h"
#include "solvers/contact/contact_sparse_kkt.h"

/* vectors of dim n (3, 4 or 6 rows a contact): x z z_prev gamma rhs b sigma w t e, the polish's
 * candidate and its velocity, and dim more for H's dim x dim blocks (dim^2 n: D); of the
 * columns (6 a free body): u f; then Anderson's */
enum {
    V_X,
    V_Z,
    V_ZP,
    V_GAMMA,
    V_RHS,
    V_B,
    V_SIGMA,
    V_W,
    V_T,
    V_E,
    V_POLISH,
    V_D = V_POLISH + 2,
    V_COUNT = V_D + 6 /* D's dim vectors of dim n at most */
};

struct lucid_contact_sparse_workspace {
    lucid_contact_hessian *h;
    lucid_contact_kkt *kkt; /* the interior point's (contact_ip.c), made on first use */
    double *buf;
    size_t cap;
    lucid_contact_polisher *polisher; /* for islands it fits (contact_polish.h) */
    double *G;                        /* the polish's dense J M^-1 J^T, polish_rows^2 */
    int polish_rows;                  /* the rows the polisher and G are sized for */
    int n, dim, memory; /* reserved sizes (contacts, rows each); Anderson memory that fits */
    size_t columns;
};

lucid_contact_sparse_workspace *lucid_contact_sparse_workspace_create(void) {
    lucid_contact_sparse_workspace *ws = calloc(1, sizeof *ws);
    if (ws && !(ws->h = lucid_contact_hessian_create())) free(ws), ws = NULL;
    return ws;
}

void lucid_contact_sparse_workspace_destroy(lucid_contact_sparse_workspace *ws) {
    if (!ws) return;
    lucid_contact_hessian_destroy(ws->h);
    lucid_contact_kkt_destroy(ws->kkt);
    lucid_contact_polisher_destroy(ws->polisher);
    free(ws->G);
    free(ws->buf);
    free(ws);
}

double *lucid_contact_sparse_workspace_buffer(lucid_contact_sparse_workspace *ws) {
    return ws->buf;
}

lucid_contact_hessian *lucid_contact_sparse_workspace_hessian(lucid_contact_sparse_workspace *ws) {
    return ws->h;
}

lucid_contact_kkt *lucid_contact_sparse_workspace_kkt(lucid_contact_sparse_workspace *ws) {
    if (!ws->kkt) ws->kkt = lucid_contact_kkt_create();
    return ws->kkt;
}

/* The polisher and its dense G for islands of up to rows rows (grown, never shrunk). */
static lucid_status reserve_polish(lucid_contact_sparse_workspace *ws, int rows) {
    if (rows <= ws->polish_rows) return LUCID_OK;
    lucid_contact_polisher_destroy(ws->polisher);
    free(ws->G);
    ws->polisher = lucid_contact_polisher_create(rows);
    ws->G = malloc((size_t)rows * (size_t)rows * sizeof(double));
    ws->polish_rows = ws->polisher && ws->G ? rows : 0;
    return ws->polish_rows ? LUCID_OK : LUCID_ERR_NO_MEMORY;
}

lucid_status lucid_contact_sparse_reserve(lucid_contact_sparse_workspace *ws, int n,
                                          size_t columns) {
    return lucid_contact_sparse_reserve_dim(ws, n, 3, columns);
}

lucid_status lucid_contact_sparse_reserve_dim(lucid_contact_sparse_workspace *ws, int n, int dim,
                                              size_t columns) {
    if (!ws || n < 0 || (dim != 3 && dim != 4 && dim != 6)) return LUCID_ERR_ARGUMENT;
    size_t m = (size_t)dim * (size_t)n, nv = columns;
    /* the largest sum below, (18 + 4 dim) dim n + 2 columns + accel (at most 252 n + 2
     * columns + 2^31 with dim 6), stays below SIZE_MAX */
    if ((size_t)n > SIZE_MAX / 1024 || columns > SIZE_MAX / 1024) return LUCID_ERR_NO_MEMORY;
    int memory = LUCID_CONTACT_ADMM_ANDERSON_MEMORY;
    if (2 * m > (size_t)INT32_MAX / (2 * (size_t)memory + 5)) memory = 0;
    size_t accel = memory ? (size_t)lucid_anderson_storage((int)(2 * m), memory) + 4 * m : 0;
    size_t want = V_COUNT * m + 2 * nv + accel;
    if (want < 17 * m + 2 * nv) want = 17 * m + 2 * nv; /* contact_newton_sparse.c's */
    if (want < (18 + 4 * (size_t)dim) * m + nv) /* contact_ip.c's: 18 + 4 dim vectors of m */
        want = (18 + 4 * (size_t)dim) * m + nv;
    if (want > ws->cap) {
        size_t c = ws->cap > 0 ? ws->cap : 64;
        while (c < want) {
            if (c > SIZE_MAX / 2) return LUCID_ERR_NO_MEMORY;
            c *= 2;
        }
        if (c > (size_t)PTRDIFF_MAX / sizeof(double)) return LUCID_ERR_NO_MEMORY;
        double *b = realloc(ws->buf, c * sizeof(double));
        if (!b) return LUCID_ERR_NO_MEMORY;
        ws->buf = b, ws->cap = c;
    }
    ws->n = n, ws->dim = dim, ws->columns = columns, ws->memory = memory;
    return reserve_polish(ws, m < LUCID_CONTACT_POLISH_MAX_ROWS ? (int)m
                                                                : LUCID_CONTACT_POLISH_MAX_ROWS);
}

typedef struct sparse_admm {
    const lucid_contact_sparse_problem *p;
    lucid_contact_sparse_workspace *ws;
    lucid_contact_admm s; /* the dense solver's state: rho, residuals, spectrum */
    double *v[V_COUNT], *u, *f;
} sparse_admm;

static void project_cones(const void *ctx, const double *x, double *out) {
    const lucid_contact_sparse_problem *p = ctx;
    lucid_cones_project(p->n, lucid_sparse_dim(p), p->mu, x, out);
}

/* x (3n) <- (G + R + rho I)^-1 r through H (factorised for w = 1 / (R + rho)) */
static void woodbury(sparse_admm *a, const double *r, double *x) {
    const lucid_contact_sparse_problem *p = a->p;
    size_t m = lucid_sparse_rows(p);
    double *t = a->v[V_T], *w = a->v[V_W];
    for (size_t k = 0; k < m; ++k) t[k] = r[k] * w[k];
    lucid_contact_sparse_jt(p, t, a->f);
    lucid_contact_hessian_solve(a->ws->h, a->f);
    lucid_contact_sparse_j(p, a->f, t);
    for (size_t k = 0; k < m; ++k) x[k] = (r[k] - t[k]) * w[k];
}

/* x <- (G + R + rho I)^-1 r, with one refinement step when G + R + rho I is worse
 * conditioned than LUCID_CONTACT_ADMM_INVERSE_CONDITION (where the dense path stops
 * multiplying by an inverse for the same reason: below it the error, ~eps kappa relative, is
 * far under any tolerance) */
static void x_step(sparse_admm *a, const double *r, double *x) {
    const lucid_contact_sparse_problem *p = a->p;
    size_t m = lucid_sparse_rows(p);
    double *e = a->v[V_E], rho = a->s.rho;
    woodbury(a, r, x);
    if (a->s.inverted) return;
    lucid_contact_sparse_apply(p, x, a->u, e);
    for (size_t k = 0; k < m; ++k) e[k] = r[k] - e[k] - rho * x[k];
    woodbury(a, e, e);
    for (size_t k = 0; k < m; ++k) x[k] += e[k];
}

/* The factor of H for the current rho (without compliance every weight is 1 / rho: H's parts
 * are then kept across the solve's changes of rho, lucid_contact_hessian_factor_uniform). */
static lucid_status refactor(sparse_admm *a) {
    const lucid_contact_sparse_problem *p = a->p;
    double *w = a->v[V_W], *D = a->v[V_D], rho = a->s.rho;
    size_t dim = (size_t)lucid_sparse_dim(p);
    for (size_t k = 0; k < lucid_sparse_rows(p); ++k) w[k] = 1.0 / ((p->R ? p->R[k] : 0.0) + rho);
    lucid_status st;
    if (!p->R) {
        st = lucid_contact_hessian_factor_uniform(a->ws->h, p, 1.0 / rho);
    } else {
        memset(D, 0, sizeof(double) * dim * dim * (size_t)p->n);
        for (size_t i = 0; i < (size_t)p->n; ++i)
            for (size_t r = 0; r < dim; ++r) D[dim * dim * i + (dim + 1) * r] = w[dim * i + r];
        st = lucid_contact_hessian_factor(a->ws->h, p, D);
    }
    if (st != LUCID_OK) return st;
    a->s.factored_rho = rho;
    ++a->s.factorizations;
    return LUCID_OK;
}

/* kappa of G + R + rho I from the (estimated) spectrum of G + R, as contact_admm_core.c (its
 * bound while the spectrum is pending) */
static double shifted_condition(const lucid_contact_admm *s) {
    if (s->spectrum_pending) return (s->eig_bound + s->rho) / s->rho;
    double lowest = s->singular ? 0.0 : s->eig_min;
    return (s->eig_max + s->rho) / (lowest + s->rho);
}

/* One ADMM iteration (lucid_contact_admm_iterate with the sparse x-step). */
static lucid_status iterate(sparse_admm *a, const double *b) {
    lucid_contact_admm *s = &a->s;
    int m = s->m;
    if (s->rho != s->factored_rho) {
        lucid_status st = refactor(a);
        if (st != LUCID_OK) return st;
        s->inverted = shifted_condition(s) <= LUCID_CONTACT_ADMM_INVERSE_CONDITION;
    }
    double rho = s->rho, alpha = s->alpha;
    for (int k = 0; k < m; ++k) s->rhs[k] = rho * s->z[k] - s->gamma[k] - b[k];
    x_step(a, s->rhs, s->x);
    for (int k = 0; k < m; ++k) {
        s->z_prev[k] = s->z[k];
        s->rhs[k] = alpha * s->x[k] + (1.0 - alpha) * s->z[k];
        s->z[k] = s->rhs[k] + s->gamma[k] / rho;
    }
    project_cones(a->p, s->z, s->z);
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

/* Largest eigenvalue of G + R by power iteration (30 products, O(n) each; the Rayleigh
 * quotient of the last iterate, from below, raised by 5% as a bound); the smallest non-zero
 * one as LUCID_CONTACT_SPARSE_EIG_RATIO times it; singular when 3n > the columns (rank).
 * Made only when the solve needs it, as the dense ADMM's (contact_admm.c, docs/contact.md). */
static lucid_status spectrum(sparse_admm *a, lucid_contact_result *result) {
    const lucid_contact_sparse_problem *p = a->p;
    size_t m = lucid_sparse_rows(p);
    double *v = a->v[V_T], *y = a->v[V_E], top = 0.0;
    for (size_t k = 0; k < m; ++k) v[k] = 1.0 + 0.1 * (double)(k % 7);
    for (int it = 0; it < 30; ++it) {
        double norm = 0.0;
        for (size_t k = 0; k < m; ++k) norm += v[k] * v[k];
        norm = sqrt(norm);
        if (!(norm > 0.0) || !isfinite(norm)) break;
        for (size_t k = 0; k < m; ++k) v[k] /= norm;
        lucid_contact_sparse_apply(p, v, a->u, y);
        top = 0.0;
        for (size_t k = 0; k < m; ++k) top += v[k] * y[k];
        memcpy(v, y, sizeof(double) * m);
    }
    if (!(top > 0.0) || !isfinite(top)) return LUCID_ERR_NOT_SPD;
    a->s.eig_max = 1.05 * top;
    a->s.eig_min = LUCID_CONTACT_SPARSE_EIG_RATIO * a->s.eig_max;
    a->s.singular = m > lucid_sparse_columns(p);
    a->s.spectrum_pending = 0;
    result->spectra = 1;
    return LUCID_OK;
}

/* Gershgorin's bound on the largest eigenvalue of G + R: the largest row sum of |J| |W|^T
 * (which bounds |G| entrywise) plus R, one product with the pieces' absolute values. */
static double eig_bound(const sparse_admm *a) {
    const lucid_contact_sparse_problem *p = a->p;
    size_t dim = (size_t)lucid_sparse_dim(p);
    double *u = a->u, *d = a->v[V_E];
    memset(u, 0, sizeof(double) * lucid_sparse_columns(p));
    for (int s = 0; s < 2 * p->n; ++s) { /* u = |W|^T 1 */
        if (p->body[s] < 0) continue;
        size_t w = lucid_sparse_width(p, p->body[s]), lo, hi;
        lucid_sparse_span(p, s, 1, &lo, &hi);
        const double *W = p->W + lucid_sparse_side_at(p, s);
        double *ub = u + lucid_sparse_begin(p, p->body[s]);
        for (size_t r = 0; r < dim; ++r)
            for (size_t k = lo; k < hi; ++k) ub[k] += fabs(W[r * w + k]);
    }
    for (size_t k = 0; k < lucid_sparse_rows(p); ++k) d[k] = p->R ? p->R[k] : 0.0;
    for (int s = 0; s < 2 * p->n; ++s) { /* d += |J| u */
        if (p->body[s] < 0) continue;
        size_t w = lucid_sparse_width(p, p->body[s]), lo, hi;
        lucid_sparse_span(p, s, 0, &lo, &hi);
        const double *J = p->J + lucid_sparse_side_at(p, s);
        const double *ub = u + lucid_sparse_begin(p, p->body[s]);
        for (size_t r = 0; r < dim; ++r)
            for (size_t k = lo; k < hi; ++k)
                d[dim * (size_t)(s / 2) + r] += fabs(J[r * w + k]) * ub[k];
    }
    double bound = 0.0;
    for (size_t k = 0; k < lucid_sparse_rows(p); ++k) bound = lucid_contact_fmax(bound, d[k]);
    return bound;
}

/* b = g (+ the De Saxce shift for the NCP from the velocity estimate) */
static void linear_term(const lucid_contact_sparse_problem *p, int ncp, const double *velocity,
                        double *b) {
    lucid_contact_admm_linear_term(p->n, lucid_sparse_dim(p), p->g, p->mu, ncp, velocity, b);
}

/* sigma = (G + R) z + g */
static void velocity(sparse_admm *a, const double *z, double *sigma) {
    lucid_contact_sparse_apply(a->p, z, a->u, sigma);
    for (size_t k = 0; k < lucid_sparse_rows(a->p); ++k) sigma[k] += a->p->g[k];
}

/* The solve's polisher: NULL when contact.polish is off (every lucid_contact_polisher_* query
 * then says no). */
static lucid_contact_polisher *polisher(const sparse_admm *a, const lucid_contact_run *run) {
    return run->o->polish ? a->ws->polisher : NULL;
}

/* The active-set polish of the iterate when it is due (contact_polish.h), on run's dense
 * problem, whose G = J M^-1 J^T is built at the solve's first attempt (NULL until then). */
static int try_polish(sparse_admm *a, lucid_contact_run *run, lucid_contact_problem *dense,
                      double *sigma, int accepted) {
    lucid_contact_polisher *pl = polisher(a, run);
    int due = accepted ? lucid_contact_polish_accepted_due(pl, dense, run->o->model, a->s.z, sigma)
                       : lucid_contact_polish_due(pl, dense, run->o->model, a->s.z, sigma);
    if (!due) return 0;
    if (!dense->G) {
        lucid_contact_sparse_delassus(a->p, a->ws->G);
        dense->G = a->ws->G;
    }
    return lucid_contact_admm_polish(pl, run, &a->s, sigma, a->v[V_POLISH]);
}

/* A carried answer (a warm start that is not zero: the last step's solution, moved) polished
 * before any iteration, when polishing is on and the polisher fits (try_polish): in a rollout its
 * modes are the last step's and Newton on them solves the problem in one or two steps, so the
 * spectrum, the analysis of H, its factorisation and ADMM's iterations are not needed. A wrong
 * guess costs one LU and is not tried again by the iterations (contact_polish.h). The result's rho
 * is the caller's. */
static int polish_carried(sparse_admm *a, lucid_contact_run *run, lucid_contact_problem *dense,
                          double *sigma) {
    const lucid_contact_options *o = run->o;
    if (!o->warm_start || !(lucid_contact_max_abs(a->s.z, a->s.m) > 0.0)) return 0;
    return try_polish(a, run, dense, sigma, 1);
}

/* ADMM's rho without the caller's: the spectral rho (lucid_contact_admm_spectral_rho), except
 * where the polish is on and fits, which wants the modes early rather than a converged iterate:
 * there sqrt(eig_min eig_max) also on a singular G, sparing the factorisations of a rising rho
 * (docs/benchmarks/contact.md, "Figures from the solvers' comments"). */
static double initial_rho(const sparse_admm *a, const lucid_contact_run *run) {
    const lucid_contact_admm *s = &a->s;
    if (lucid_contact_polisher_fits(polisher(a, run), a->p->n, lucid_sparse_dim(a->p)))
        return sqrt(s->eig_min * s->eig_max);
    return lucid_contact_admm_spectral_rho(s);
}

/* Iterations to the next check (the criterion, and the polish's mode guess): every iteration
 * within LUCID_CONTACT_ADMM_CHECK_NEAR of tol, as contact_admm.c; further away every
 * LUCID_CONTACT_ADMM_CHECK_PERIOD-th, or every LUCID_CONTACT_ADMM_POLISH_CHECK_PERIOD-th while
 * the polish is on and still trying (lucid_contact_polisher_trying): its attempt is due once two
 * checks guess the same modes, so the checks' spacing is what it waits. */
static int check_period(const sparse_admm *a, const lucid_contact_run *run) {
    if (run->result->model.abs <= LUCID_CONTACT_ADMM_CHECK_NEAR * run->o->tol) return 1;
    return lucid_contact_polisher_trying(polisher(a, run), a->p->n, lucid_sparse_dim(a->p))
               ? LUCID_CONTACT_ADMM_POLISH_CHECK_PERIOD
               : LUCID_CONTACT_ADMM_CHECK_PERIOD;
}

/* The answer z (and the multiplier) into lambda and dual, the result's counters; a non-finite
 * answer is replaced by lambda = 0 and reported diverged. */
static void finish(sparse_admm *a, lucid_contact_run *run, double *lambda, double *dual, int done) {
    lucid_contact_result *result = run->result;
    lucid_contact_admm *s = &a->s;
    int m = s->m;
    double *sigma = a->v[V_SIGMA];
    if (done) result->converged = 1;
    memcpy(lambda, s->z, sizeof(double) * (size_t)m);
    if (dual) memcpy(dual, s->gamma, sizeof(double) * (size_t)m);
    result->rho = s->rho;
    result->factorizations = s->factorizations;
    for (int k = 0; k < m; ++k)
        if (!isfinite(lambda[k]) || !isfinite(sigma[k]) || (dual && !isfinite(dual[k]))) {
            memset(lambda, 0, sizeof(double) * (size_t)m);
            if (dual) memset(dual, 0, sizeof(double) * (size_t)m);
            result->diverged = 1, result->converged = 0, result->stalled = 0;
            velocity(a, lambda, sigma);
            lucid_contact_check(run, lambda, sigma);
            break;
        }
}

lucid_status lucid_contact_solve_admm_sparse(const lucid_contact_sparse_problem *p,
                                             const lucid_contact_options *o,
                                             lucid_contact_sparse_workspace *ws, double *lambda,
                                             double *dual, lucid_contact_result *result) {
    if (!result) return LUCID_ERR_ARGUMENT;
    memset(result, 0, sizeof *result);
    if (!p || !o || !ws || !lambda || p->n < 0 || p->num_bodies < 0 ||
        (size_t)ws->n * (size_t)ws->dim < lucid_sparse_rows(p) ||
        ws->columns < lucid_sparse_columns(p) || o->solver != LUCID_CONTACT_ADMM ||
        (o->model != LUCID_CONTACT_CCP && o->model != LUCID_CONTACT_NCP) || !(o->tol >= 0.0) ||
        o->max_iter < 0 || !(o->admm_alpha > 0.0 && o->admm_alpha < 2.0) ||
        (p->n > 0 && (!p->body || !p->J || !p->W || !p->M || !p->g || !p->mu)) ||
        !lucid_sparse_dim_valid(p->dim))
        return LUCID_ERR_ARGUMENT;
    int m = (int)lucid_sparse_rows(p), ncp = o->model == LUCID_CONTACT_NCP;
    if (!o->warm_start) memset(lambda, 0, sizeof(double) * (size_t)m);
    lucid_contact_problem dense = {p->n, NULL, p->g, p->mu, p->R, lucid_sparse_dim(p)};
    lucid_contact_run run = {&dense, o, NULL, result, lucid_contact_model_criterion(o->model)};
    if (p->n == 0) {
        result->converged = 1;
        return LUCID_OK;
    }
    sparse_admm a = {.p = p, .ws = ws};
    for (int k = 0; k < V_COUNT; ++k) a.v[k] = ws->buf + (size_t)k * (size_t)m;
    a.u = ws->buf + (size_t)V_COUNT * (size_t)m;
    a.f = a.u + lucid_sparse_columns(p);
    double *accel_storage = a.f + lucid_sparse_columns(p);
    a.s = (lucid_contact_admm){.m = m,
                               .x = a.v[V_X],
                               .z = a.v[V_Z],
                               .z_prev = a.v[V_ZP],
                               .gamma = a.v[V_GAMMA],
                               .rhs = a.v[V_RHS],
                               .alpha = o->admm_alpha,
                               .factored_rho = NAN};
    lucid_contact_admm *s = &a.s;
    double *sigma = a.v[V_SIGMA], *b = a.v[V_B];
    project_cones(p, lambda, s->z);
    velocity(&a, s->z, sigma);
    linear_term(p, ncp, sigma, b);
    int done = lucid_contact_check(&run, s->z, sigma), checked = 1, next_check = 1;
    for (int k = 0; k < m; ++k) { /* as the dense ADMM's start (contact_admm.c) */
        double from_velocity = -(sigma[k] + b[k] - p->g[k]);
        s->gamma[k] = o->warm_start && dual && !o->derive_dual ? dual[k]
                      : o->warm_start || done                  ? from_velocity
                                                               : 0.0;
    }
    lucid_contact_polisher_reset(polisher(&a, &run));
    s->rho = o->rho > 0.0 ? o->rho : 0.0; /* the caller's, until the spectrum is needed */
    if (!done && polish_carried(&a, &run, &dense, sigma)) {
        finish(&a, &run, lambda, dual, !result->stalled);
        return LUCID_OK;
    }
    lucid_status status = LUCID_OK;
    if (!done) { /* H serves the iterations only; the spectrum their start without a rho, or
                  * a move of rho (as the dense ADMM: contact_admm.c) */
        status = lucid_contact_hessian_analyze(ws->h, p);
        if (status == LUCID_OK && !(o->rho > 0.0)) status = spectrum(&a, result);
        if (status != LUCID_OK) return status;
        if (!(o->rho > 0.0))
            s->rho = initial_rho(&a, &run);
        else
            s->spectrum_pending = 1, s->eig_bound = eig_bound(&a);
    }
    lucid_anderson acc;
    lucid_anderson_init(&acc, 2 * m, ws->memory, accel_storage);
    lucid_contact_admm_forecast forecast;
    lucid_contact_admm_forecast_init(&forecast);
    double *acc_u = NULL, *acc_g = NULL;
    if (ws->memory) {
        acc_u = accel_storage + lucid_anderson_storage(2 * m, ws->memory);
        acc_g = acc_u + 2 * m;
    }
    for (int k = 1; !done && k <= o->max_iter; ++k) {
        if (acc_u) lucid_contact_admm_pack(s, acc_u);
        if (lucid_contact_admm_needs_spectrum(s) && (status = spectrum(&a, result)) != LUCID_OK)
            return status;
        if ((status = iterate(&a, b)) != LUCID_OK) return status;
        result->iterations = k;
        checked = k >= next_check;
        if (checked) {
            velocity(&a, s->z, sigma);
            if ((done = lucid_contact_check(&run, s->z, sigma))) break;
            if (try_polish(&a, &run, &dense, sigma, 0)) {
                done = !result->stalled;
                break;
            }
            if (o->give_up &&
                lucid_contact_admm_hopeless(&forecast, k, result->model.abs, o->tol, o->max_iter))
                break;
            next_check = k + check_period(&a, &run);
        }
        if (!isfinite(s->force_scale) || !isfinite(s->velocity_scale)) break; /* diverged */
        double size =
            lucid_contact_fmax(lucid_contact_max_abs(s->z, m), lucid_contact_max_abs(s->z_prev, m));
        if (lucid_contact_stalled(lucid_contact_max_abs_diff(s->z, s->z_prev, m), size,
                                  o->stall_tol) &&
            lucid_contact_stalled(s->primal_residual, size, o->stall_tol)) {
            result->stalled = 1;
            break;
        }
        if (s->spectrum_pending && lucid_contact_admm_adapt_direction(s, o->rho_ratio) &&
            (status = spectrum(&a, result)) != LUCID_OK)
            return status;
        if (!s->spectrum_pending && lucid_contact_admm_adapt(s, o->rho_ratio, o->rho_power))
            lucid_anderson_reset(&acc);
        else if (k < o->max_iter && s->inverted && acc_u)
            lucid_contact_admm_accelerate(&acc, s, acc_u, acc_g);
        linear_term(p, ncp, s->gamma, b);
    }
    if (!checked) {
        velocity(&a, s->z, sigma);
        done = lucid_contact_check(&run, s->z, sigma);
    }
    /* an accepted answer polished to its modes' exact solution (contact_polish.h says why); as
     * in the loop, a polished answer that only the round-off floor admits is stalled, not done */
    if (done && !result->polished && !result->stalled && try_polish(&a, &run, &dense, sigma, 1))
        done = !result->stalled;
    finish(&a, &run, lambda, dual, done);
    return LUCID_OK;
}
