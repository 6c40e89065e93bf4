/* Primal Newton for the (compliant) CCP (Alg. 4, MuJoCo/Drake style). The paper's primal
 *   min_v l(v) = 1/2 ||v - v_f||_M^2 + 1/2 ||P^R_K(y(J v))||_R^2,  y(c) = -R^{-1} c
 * needs M and J; from G = J M^-1 J^T alone we carry the iterate as v = v_f + M^-1 J^T mu
 * (mu in R^m). Every Newton step stays in that subspace: with c = J v = g + G mu and
 * gamma = P^R_K(-R^{-1} c),
 *   grad = J^T (mu - gamma),  H = M + J^T D J,  D = -d gamma / d c (block diagonal, PSD),
 * and H M^-1 J^T dmu = J^T (I + D G) dmu, so the Newton step is dv = M^-1 J^T dmu with
 *   (I + D G) dmu = gamma - mu.
 * With D = S S^T per contact (S explicit from the cone's geometry, no factorisation), the
 * push-through identity gives dmu = -e + S K^-1 S^T G e, e = mu - gamma, K = I + S^T G S:
 * K is SPD (eigenvalues >= 1) of the size of the active contact directions only (dim per
 * sticking contact, dim - 1 per sliding one, none for separating contacts, where D = 0), and
 * needs no factorisation of G. Contacts of dim 4 and 6 (torsional, rolling) take the same round
 * cone over their dim - 1 tangential rows. The cost along the direction is
 *   phi(a) = 1/2 ||mu + a dmu||_G^2 + 1/2 ||P^R_K(-R^{-1}(c + a G dmu))||_R^2,
 *   phi'(a) = (G dmu) . (mu + a dmu - gamma(a)),
 * convex and C^1; Alg. 4's exact line search minimises it (contact_line_search.h). The answer
 * is lambda = gamma, or P_K(mu) when that one meets the criterion better (best_candidate). Working
 * on mu instead of a square root of G keeps lambda at the precision of lambda: the gradient mu -
 * gamma and the velocity g + G mu are formed from quantities of the size of lambda and g, never
 * amplified by 1/R. The problem is only defined for R > 0 (the paper: "viable only when R is
 * non-null"): entries of R that are zero get newton_compliance x trace(G_ii) / dim, and the
 * tangential entries of a contact must be equal (the R-metric projection is then closed-form). The
 * model criterion is the CCP criterion of the compliant problem actually solved.
 * Continuation: Newton's iterations grow as R shrinks (the cost's pieces get thin), so a solve
 * runs stages with R scaled by 1e6, 1e4, 1e2 (for the default compliance), each to tol x scale
 * and warm starting the next, and ends on R itself (docs/contact.md, "Newton (Alg. 4)"). */
#include <math.h>
#include <string.h>

#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_direction.h"
#include "solvers/contact/contact_internal.h"
#include "solvers/contact/contact_line_search.h"
#include "solvers/dense/dense_product.h"

#define LINE_SEARCH_TOL   1e-8
#define LINE_SEARCH_EVALS 60

typedef lucid_contact_newton newton;

void lucid_contact_newton_set_compliance(newton *nt, const double *R_target, double scale) {
    for (int k = 0; k < nt->m; ++k) {
        nt->R[k] = scale * R_target[k];
        nt->R_root[k] = sqrt(nt->R[k]);
    }
    for (int i = 0; i < nt->n; ++i)
        nt->mu_scaled[i] = nt->friction[i] * sqrt(nt->R[nt->dim * i] / nt->R[nt->dim * i + 2]);
}

/* A contact of dim > 3: its null tangential rows take the compliance of its first tangential row
 * that is not null (the rule of lucid_contact_newton_null_tangent over dim - 1 rows). */
static void null_tangents_n(int dim, const double *d, const double *given, double *R,
                            unsigned char *from_G) {
    double trace = 0.0;
    for (int a = 0; a < dim; ++a) trace += d[a];
    int null[LUCID_CONE_MAX_DIM] = {0}, reference = -1;
    for (int a = 0; a < dim; ++a) {
        if (a == 2) continue;
        double scale = given ? fmax(trace, given[a]) : trace;
        null[a] = d[a] <= LUCID_CONTACT_NULL_ROW * scale;
        if (!null[a] && reference < 0) reference = a;
    }
    if (reference < 0) return;
    for (int a = 0; a < dim; ++a)
        if (a != 2 && null[a]) R[a] = R[reference], from_G[a] = from_G[reference];
}

lucid_status lucid_contact_newton_compliance(const lucid_contact_problem *p, double compliance,
                                             double *R, unsigned char *derived) {
    int dim = lucid_contact_dim(p);
    long m = lucid_contact_rows(p);
    for (int i = 0; i < p->n; ++i) {
        double d[LUCID_CONE_MAX_DIM], trace = 0.0, *Ri = R + (long)dim * i;
        const double *given = p->R ? p->R + (long)dim * i : NULL;
        unsigned char from_G[LUCID_CONE_MAX_DIM];
        for (int a = 0; a < dim; ++a) trace += d[a] = p->G[((long)dim * i + a) * (m + 1)];
        for (int a = 0; a < dim; ++a) {
            double value = given ? given[a] : 0.0;
            from_G[a] = !(value > 0.0);
            Ri[a] = from_G[a] ? compliance * trace / dim : value;
        }
        if (dim == 3) {
            int copied = lucid_contact_newton_null_tangent(d, given, Ri);
            for (int a = 0; a < 2; ++a)
                if (copied & (1 << a)) from_G[a] = from_G[1 - a];
        } else {
            null_tangents_n(dim, d, given, Ri, from_G);
        }
        if (derived) memcpy(derived + (long)dim * i, from_G, (size_t)dim);
        for (int a = 1; a < dim; ++a)
            if (a != 2 && Ri[a] != Ri[0]) return LUCID_ERR_ARGUMENT;
        if (!(Ri[2] > 0.0)) return LUCID_ERR_ARGUMENT;
    }
    return LUCID_OK;
}

/* |(a, b)| without hypot's cost (a fifth of the solve's time); hypot where squares could
 * overflow or underflow. */
static double norm2(double a, double b) {
    double s = a * a + b * b;
    return s > 1e-290 && s < 1e290 ? sqrt(s) : hypot(a, b);
}

/* The tangential rows of a contact: 0, 1, then 3 .. dim - 1 (contact_problem.h). */
static const int TANGENT[LUCID_CONE_MAX_DIM - 1] = {0, 1, 3, 4, 5};

/* Columns 1 .. k - 1 of the Householder reflection H = I - 2 w w^T / |w|^2, w = u + sign(u_0)
 * e_0 (k = dim - 1 entries): an orthonormal basis of the complement of the unit tangent u, each
 * scaled by beta, written at S[1 + j][TANGENT[...]]. dim 3 keeps the closed form t = (-u_2, u_1).
 */
static void tangent_complement(int dim, const double *u, double beta,
                               double (*S)[LUCID_CONE_MAX_DIM]) {
    if (dim == 3) {
        S[1][0] = -u[1] * beta, S[1][1] = u[0] * beta;
        return;
    }
    int k = dim - 1;
    double w[LUCID_CONE_MAX_DIM - 1], ww = 0.0;
    for (int j = 0; j < k; ++j) w[j] = u[j];
    w[0] += u[0] >= 0.0 ? 1.0 : -1.0;
    for (int j = 0; j < k; ++j) ww += w[j] * w[j];
    for (int col = 1; col < k; ++col)
        for (int j = 0; j < k; ++j)
            S[col][TANGENT[j]] = beta * ((j == col ? 1.0 : 0.0) - 2.0 * w[j] * w[col] / ww);
}

/* Contact i at velocity ci (dim rows): the projection pg = P_{K_mu'}(y) of y = -R^{-1/2} c_i
 * (gamma_i = R^{-1/2} pg) and, when S is not NULL, the columns of S_i with D_i = S_i S_i^T
 * (D_i = R^-1/2 J R^-1/2, J the projection's Jacobian at y): J = I inside the cone, 0 in the
 * polar cone, and on the sliding part J = a a^T + beta (I_T - u u^T) with a = (mu' u, 1) /
 * sqrt(1 + mu'^2), u the unit tangent (dim - 1 entries), beta = mu' s / |y_T| (the projection is
 * s (mu' u, 1); contact_cone.c). Returns the column count (dim sticking, 1 to dim - 1 sliding, 0
 * separating). */
int lucid_contact_newton_piece(const newton *nt, int i, const double *ci, double *pg,
                               double (*S)[LUCID_CONE_MAX_DIM]) {
    int dim = nt->dim, k = dim - 1;
    const double *root = nt->R_root + dim * i;
    double mu = nt->mu_scaled[i], y[LUCID_CONE_MAX_DIM];
    for (int a = 0; a < dim; ++a) y[a] = -ci[a] / root[a];
    double r = dim == 3 ? norm2(y[0], y[1]) : lucid_cone_n_tangent_norm(dim, y);
    int count = 0;
    if (S) memset(S, 0, sizeof(double) * LUCID_CONE_MAX_DIM * LUCID_CONE_MAX_DIM);
    if (r <= mu * y[2] && y[2] >= 0.0) {
        for (int a = 0; a < dim; ++a) pg[a] = y[a];
        if (S)
            for (int c = 0; c < dim; ++c) S[c][c] = 1.0;
        count = dim;
    } else if (mu * r > -y[2]) { /* sliding: r > 0 here */
        double d = 1.0 + mu * mu, s = (mu * r + y[2]) / d, u[LUCID_CONE_MAX_DIM - 1];
        for (int j = 0; j < k; ++j) u[j] = y[TANGENT[j]] / r;
        for (int j = 0; j < k; ++j) pg[TANGENT[j]] = s * mu * u[j];
        pg[2] = s;
        double beta = sqrt(fmax(mu * s / r, 0.0));
        count = beta > 0.0 ? k : 1;
        if (S) {
            double root_d = sqrt(d);
            for (int j = 0; j < k; ++j) S[0][TANGENT[j]] = mu * u[j] / root_d;
            S[0][2] = 1.0 / root_d;
            tangent_complement(dim, u, beta, S);
        }
    } else {
        for (int a = 0; a < dim; ++a) pg[a] = 0.0;
    }
    if (S)
        for (int c = 0; c < count; ++c)
            for (int a = 0; a < dim; ++a) S[c][a] /= root[a];
    return count;
}

void lucid_contact_newton_project(const newton *nt, const double *c, double *gamma) {
    int dim = nt->dim;
    for (int i = 0; i < nt->n; ++i) {
        double pg[LUCID_CONE_MAX_DIM];
        lucid_contact_newton_piece(nt, i, c + dim * i, pg, NULL);
        for (int a = 0; a < dim; ++a) gamma[dim * i + a] = pg[a] / nt->R_root[dim * i + a];
    }
}

/* The line function phi'(a), phi''(a) (contact_line_search.h). */
typedef struct line_ctx {
    const newton *nt;
    double quad_mu, quad_dmu; /* dc . mu and dc . dmu */
} line_ctx;

static void line_function(void *ctx, double alpha, double *slope, double *curvature) {
    line_ctx *l = ctx;
    const newton *nt = l->nt;
    int dim = nt->dim;
    double s = l->quad_mu + alpha * l->quad_dmu, h = l->quad_dmu;
    for (int i = 0; i < nt->n; ++i) {
        double c[LUCID_CONE_MAX_DIM], pg[LUCID_CONE_MAX_DIM];
        double S[LUCID_CONE_MAX_DIM][LUCID_CONE_MAX_DIM];
        const double *dci = nt->dc + dim * i;
        for (int a = 0; a < dim; ++a) c[a] = nt->c[dim * i + a] + alpha * dci[a];
        int count = lucid_contact_newton_piece(nt, i, c, pg, S);
        for (int a = 0; a < dim; ++a) s -= dci[a] * pg[a] / nt->R_root[dim * i + a];
        for (int col = 0; col < count; ++col) {
            double dot = 0.0;
            for (int a = 0; a < dim; ++a) dot += S[col][a] * dci[a];
            h += dot * dot;
        }
    }
    *slope = s, *curvature = h;
}

/* sum_a S[a] x[a] over a contact's dim entries. */
static double dot_dim(int dim, const double *S, const double *x) {
    double sum = 0.0;
    for (int a = 0; a < dim; ++a) sum += S[a] * x[a];
    return sum;
}

/* Newton direction dmu = -e + S K^-1 S^T (G e), e = mu - gamma (Ge given). Returns the
 * status of the Cholesky factorisation of K. cols (m ints), Scol (dim m), GS (m x m), K, chol
 * scratch. */
static lucid_status direction(const lucid_contact_problem *p, const newton *nt, const double *e,
                              const double *Ge, double *dmu, int *cols, double *Scol, double *GS,
                              double *K, double *chol) {
    int m = nt->m, dim = nt->dim, q = 0;
    for (int i = 0; i < p->n; ++i) {
        double S[LUCID_CONE_MAX_DIM][LUCID_CONE_MAX_DIM], pg[LUCID_CONE_MAX_DIM];
        int count = lucid_contact_newton_piece(nt, i, nt->c + dim * i, pg, S);
        for (int col = 0; col < count; ++col, ++q) {
            cols[q] = i;
            memcpy(Scol + (long)dim * q, S[col], sizeof(double) * (size_t)dim);
        }
    }
    for (int k = 0; k < m; ++k) dmu[k] = -e[k];
    if (q == 0) return LUCID_OK;
    /* GS = G S (m x q), K - I = S^T G S (q x q): S is block sparse, dim entries per column */
    for (int j = 0; j < q; ++j) {
        const double *g0 = p->G + (long)m * dim * cols[j], *Sj = Scol + (long)dim * j;
        for (int k = 0; k < m; ++k) {
            double sum = 0.0;
            for (int a = 0; a < dim; ++a) sum += g0[k + (long)m * a] * Sj[a];
            GS[k + (long)m * j] = sum;
        }
    }
    for (int j = 0; j < q; ++j)
        for (int i = 0; i < q; ++i)
            K[i + (long)q * j] =
                dot_dim(dim, Scol + (long)dim * i, GS + (long)m * j + (long)dim * cols[i]);
    lucid_status status = lucid_contact_cholesky(K, NULL, 1.0, q, chol);
    if (status != LUCID_OK) return status;
    double *t = K; /* K is no longer needed: t = S^T G e, then K^-1 t */
    for (int j = 0; j < q; ++j) t[j] = dot_dim(dim, Scol + (long)dim * j, Ge + (long)dim * cols[j]);
    lucid_contact_cholesky_solve(chol, q, t);
    for (int j = 0; j < q; ++j)
        for (int a = 0; a < dim; ++a) dmu[dim * cols[j] + a] += Scol[(long)dim * j + a] * t[j];
    return LUCID_OK;
}

/* Buffers of one solve (workspace vectors and matrices). */
typedef struct buffers {
    double *sigma, *e, *Ge, *gamma_try, *projected, *answer, *Scol, *K, *GS, *chol;
    int *cols;
} buffers;

/* Model criterion (CCP of the compliant problem with compliance R) of lambda. */
static void check(lucid_contact_run *run, const double *R, const double *lambda, double *sigma) {
    lucid_contact_problem compliant = *run->p;
    compliant.R = R;
    lucid_contact_velocity(&compliant, lambda, sigma);
    lucid_contact_criteria_eval(&compliant, LUCID_CRITERION_CCP, lambda, sigma, NULL,
                                &run->result->model);
}

/* NCP criterion of the answer (once, at the end). sigma holds its compliant velocity with
 * compliance R: the problem's own velocity differs by the added compliance only. */
static void check_ncp(lucid_contact_run *run, const double *R, const double *lambda,
                      double *sigma) {
    const lucid_contact_problem *p = run->p;
    for (long k = 0; k < lucid_contact_rows(p); ++k)
        sigma[k] -= (R[k] - (p->R ? p->R[k] : 0.0)) * lambda[k];
    lucid_contact_criteria_eval(p, LUCID_CRITERION_NCP, lambda, sigma, NULL, &run->result->ncp);
}

/* Whether the candidate lambda (sigma: its compliant velocity, its criterion in run->result)
 * meets tol: the criterion, and with o->first_order the friction directions too
 * (contact_direction.h; Newton converges quadratically, so the few more iterations that
 * takes are cheap). */
static int meets(lucid_contact_run *run, double tol, const double *lambda, const double *sigma) {
    if (!(run->result->model.abs <= tol)) return 0;
    return !lucid_contact_first_order_applies(run->o) ||
           lucid_contact_direction_residual(run->p, lambda, sigma) <= tol;
}

/* The answer of the iterate: gamma or P_K(mu), whichever has the smaller model criterion
 * (copied into answer, its model criterion in run->result; returns 1 when it meets tol). The two
 * agree at the solution, but gamma = P(-R^-1 c) carries the round-off of c amplified by 1/R
 * (R ~ 1e-8 diag G: ~1e-4 on a heap of boxes, above tol), while mu, the impulse that produces
 * the iterate's velocity, is moved by Newton steps of size R G^-1 e along stiff directions
 * and stays at the precision of lambda. The projection keeps it in the cone. */
static int best_candidate(lucid_contact_run *run, const double *R, double tol, const double *gamma,
                          const double *mu, const buffers *b) {
    const lucid_contact_problem *p = run->p;
    int m = (int)lucid_contact_rows(p), dim = lucid_contact_dim(p);
    check(run, R, gamma, b->sigma);
    memcpy(b->answer, gamma, sizeof(double) * (size_t)m);
    if (meets(run, tol, gamma, b->sigma)) return 1;
    lucid_contact_criteria model = run->result->model;
    lucid_cones_project(p->n, dim, p->mu, mu, b->projected);
    check(run, R, b->projected, b->sigma);
    if (run->result->model.abs < model.abs) {
        memcpy(b->answer, b->projected, sizeof(double) * (size_t)m);
        return meets(run, tol, b->projected, b->sigma);
    }
    run->result->model = model;
    return 0;
}

static double dot(const double *x, const double *y, int m) {
    double s = 0.0;
    for (int k = 0; k < m; ++k) s += x[k] * y[k];
    return s;
}

int lucid_contact_newton_advance(const lucid_contact_run *run, const newton *nt, const double *e,
                                 double *gamma_try, double *mu, double *c, double *gamma) {
    int m = nt->m;
    const double *dmu = nt->dmu, *dc = nt->dc;
    line_ctx line = {nt, dot(dc, mu, m), dot(dc, dmu, m)};
    /* phi'(0) = dc . e; dc = 0 means the step only moves mu along the null space of G
     * (v does not change) and the full step is exact there. */
    double slope0 = dot(dc, e, m), alpha = 1.0;
    if (lucid_contact_max_abs(dc, m) > 0.0)
        alpha = lucid_line_search_exact(line_function, &line, slope0, LINE_SEARCH_TOL,
                                        LINE_SEARCH_EVALS)
                    .alpha;
    for (int i = 0; i < m; ++i) mu[i] += alpha * dmu[i];
    /* c is updated by a G dmu rather than recomputed as g + G mu: near the solution only
     * the small increments are rounded (the terms of g + G mu reach |g|). */
    for (int i = 0; i < m; ++i) c[i] += alpha * dc[i];
    lucid_contact_newton_project(nt, c, gamma_try);
    /* Stall on lambda = gamma (as the other solvers). */
    double change = lucid_contact_max_abs_diff(gamma_try, gamma, m);
    double size = fmax(lucid_contact_max_abs(gamma, m), lucid_contact_max_abs(gamma_try, m));
    memcpy(gamma, gamma_try, sizeof(double) * (size_t)m);
    return lucid_contact_stalled(change, size, run->o->stall_tol);
}

/* One Newton iteration from (mu, c, gamma) on the compliance nt->R; 1 when gamma stalled. */
static lucid_status iterate(lucid_contact_run *run, const newton *nt, double *mu, double *c,
                            double *gamma, double *dmu, double *dc, const buffers *b,
                            int *stalled) {
    const lucid_contact_problem *p = run->p;
    int m = nt->m;
    for (int i = 0; i < m; ++i) b->e[i] = mu[i] - gamma[i];
    lucid_dense_symv_lower(m, 1.0, p->G, m, b->e, 0.0, b->Ge);
    lucid_status status =
        direction(p, nt, b->e, b->Ge, dmu, b->cols, b->Scol, b->GS, b->K, b->chol);
    if (status != LUCID_OK) return status;
    ++run->result->factorizations;
    lucid_dense_symv_lower(m, 1.0, p->G, m, dmu, 0.0, dc);
    *stalled = lucid_contact_newton_advance(run, nt, b->e, b->gamma_try, mu, c, gamma);
    return LUCID_OK;
}

lucid_status lucid_contact_solve_newton(lucid_contact_run *run, double *lambda) {
    const lucid_contact_problem *p = run->p;
    const lucid_contact_options *o = run->o;
    lucid_contact_workspace *ws = run->ws;
    int m = (int)lucid_contact_rows(p);
    double **v = ws->vec;
    double *mu = v[1], *c = v[2], *gamma = v[3], *dmu = v[5], *dc = v[7], *R = v[9];
    newton nt = {p->n, lucid_contact_dim(p), m, p->mu, v[13], v[14], v[15], mu, dmu, c, dc};
    buffers b = {.sigma = v[0],
                 .e = v[4],
                 .Ge = v[6],
                 .gamma_try = v[8],
                 .projected = v[11],
                 .answer = v[12],
                 .Scol = ws->lwork, /* dim entries per column, at most m columns */
                 .K = ws->mat[1],
                 .GS = ws->mat[2],
                 .chol = ws->mat[0],
                 .cols = ws->iwork};
    lucid_status status = lucid_contact_newton_compliance(p, o->newton_compliance, R, NULL);
    if (status != LUCID_OK) return status;
    /* Nothing factorises G any more: check it is PSD as the other solvers do. */
    if ((status = lucid_contact_check_psd(run)) != LUCID_OK) return status;
    if (o->warm_start)
        memcpy(mu, lambda, sizeof(double) * (size_t)m);
    else
        memset(mu, 0, sizeof(double) * (size_t)m);
    memcpy(c, p->g, sizeof(double) * (size_t)m);
    if (o->warm_start) lucid_dense_symv_lower(m, 1.0, p->G, m, mu, 1.0, c);
    /* Continuation: the iterations Newton needs grow as R shrinks, as the cost's pieces get
     * thin, so the solve first solves the problem with R scaled by 1e6, 1e4, 1e2, ... (each
     * stage to tol x scale, warm starting the next) and ends on R itself. Warm starts too: one
     * from the previous time step is not close at the scale of R (a change of g of 1e-4 moves
     * y = -R^-1 c by 1e4 lambda). Figures: docs/contact.md, "Newton (Alg. 4)". */
    double scale = fmax(1.0, LUCID_CONTACT_NEWTON_CONTINUATION_START / o->newton_compliance);
    int done = 0, k = 0;
    for (;; scale = fmax(1.0, scale / LUCID_CONTACT_NEWTON_CONTINUATION_FACTOR)) {
        lucid_contact_newton_set_compliance(&nt, R, scale);
        double stage_tol = scale * o->tol;
        lucid_contact_newton_project(&nt, c, gamma);
        int stage_done = best_candidate(run, nt.R, stage_tol, gamma, mu, &b);
        int stalled = 0;
        while (!stage_done && !stalled && k < o->max_iter) {
            if ((status = iterate(run, &nt, mu, c, gamma, dmu, dc, &b, &stalled)) != LUCID_OK)
                return status;
            run->result->iterations = ++k;
            stage_done = best_candidate(run, nt.R, stage_tol, gamma, mu, &b);
        }
        if (scale == 1.0) {
            done = stage_done;
            run->result->stalled = stalled && !done;
            break;
        }
        if (k >= o->max_iter) { /* out of iterations before the last stage */
            lucid_contact_newton_set_compliance(&nt, R, 1.0);
            lucid_contact_newton_project(&nt, c, gamma);
            done = best_candidate(run, R, o->tol, gamma, mu, &b);
            break;
        }
    }
    memcpy(lambda, b.answer, sizeof(double) * (size_t)m);
    check(run, R, lambda, b.sigma);
    check_ncp(run, R, lambda, b.sigma);
    run->result->converged = done;
    return LUCID_OK;
}
