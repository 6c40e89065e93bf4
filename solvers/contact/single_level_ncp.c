/* Primal-dual interior point for the single-level NCP (single_level_ncp.h). */
#include "solvers/contact/single_level_ncp.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BOUNDARY_FRACTION 0.99
#define MAX_BACKTRACKS    12

void lucid_single_level_default_options(lucid_single_level_options *o) {
    o->kappa = 1e-8;
    o->tol = 1e-9;
    o->max_iter = 50;
    o->warm_start = 1;
}

#define S lucid_single_level_options
const lucid_option lucid_single_level_option_table[] = {
    LUCID_OPTION_NUMBER_ENTRY(S, "single_level.", kappa, POSITIVE,
                              "complementarity relaxation the interior point stops at"),
    LUCID_OPTION_NUMBER_ENTRY(S, "single_level.", tol, POSITIVE, "tolerance on its residual"),
    LUCID_OPTION_COUNT_ENTRY(S, "single_level.", max_iter, AT_LEAST1, "Newton iterations per step"),
    LUCID_OPTION_BOOLEAN_ENTRY(S, "single_level.", warm_start,
                               "start from the last step's solution"),
    LUCID_OPTION_END,
};
#undef S

lucid_status lucid_single_level_options_check(const lucid_single_level_options *o,
                                              const char **why) {
    lucid_status s = lucid_option_table_check(lucid_single_level_option_table, o, why);
    return s == LUCID_ERR_NONFINITE ? LUCID_ERR_ARGUMENT : s;
}

lucid_status lucid_ncp_reserve(lucid_ncp_workspace *ws, size_t n) {
    if (n <= ws->cap) return LUCID_OK;
    if (n > 46000) return LUCID_ERR_NO_MEMORY; /* n^2 doubles must fit comfortably */
    lucid_ncp_release(ws);
    ws->J = malloc(n * n * sizeof(double));
    double **v[] = {&ws->R, &ws->d, &ws->daff, &ws->Xt, &ws->Ft, &ws->Fm};
    int ok = ws->J != NULL;
    for (size_t k = 0; k < sizeof v / sizeof v[0]; ++k) {
        *v[k] = malloc(n * sizeof(double));
        ok = ok && *v[k];
    }
    ws->y = malloc(n * sizeof(double));
    ws->perm = malloc(n * sizeof(int));
    ws->rowidx = malloc(n * sizeof(int));
    ws->cols = malloc(n * sizeof(int));
    if (!ok || !ws->y || !ws->perm || !ws->rowidx || !ws->cols) {
        lucid_ncp_release(ws);
        return LUCID_ERR_NO_MEMORY;
    }
    ws->cap = n;
    return LUCID_OK;
}

void lucid_ncp_release(lucid_ncp_workspace *ws) {
    free(ws->J), free(ws->R), free(ws->d), free(ws->daff), free(ws->Xt), free(ws->Ft);
    free(ws->Fm), free(ws->y), free(ws->perm), free(ws->rowidx), free(ws->cols);
    memset(ws, 0, sizeof *ws);
}

/* LU with partial pivoting of J (row-major, N x N) eliminating the unknowns in the order
 * p->order (the rows start in the same order); rows are not moved: ws->rowidx[k] is the row
 * taken k-th, L and U stay in J at their columns. The updates skip the pivot row's zeros: the
 * NCP's Jacobian is sparse, and eliminated in a good order stays mostly so (A - f 0 = A: the
 * result does not depend on the skipping). 0 when a pivot vanishes. */
static int lu_factor(const lucid_ncp_problem *p, lucid_ncp_workspace *ws, int n) {
    double *A = ws->J;
    int *col = ws->perm, *row = ws->rowidx, *cols = ws->cols;
    for (int i = 0; i < n; ++i) col[i] = row[i] = p->order ? p->order[i] : i;
    for (int k = 0; k < n; ++k) {
        int ck = col[k], best = k;
        double big = fabs(A[(size_t)row[k] * n + ck]);
        for (int i = k + 1; i < n; ++i) {
            double v = fabs(A[(size_t)row[i] * n + ck]);
            if (v > big) big = v, best = i;
        }
        if (!(big > 0.0)) return 0;
        int t = row[k];
        row[k] = row[best], row[best] = t;
        const double *pivot = A + (size_t)row[k] * n;
        double inv = 1.0 / pivot[ck];
        int nc = 0;
        for (int j = k + 1; j < n; ++j)
            if (pivot[col[j]] != 0.0) cols[nc++] = col[j];
        for (int i = k + 1; i < n; ++i) {
            double *r = A + (size_t)row[i] * n, f = r[ck] * inv;
            if (f == 0.0) continue;
            r[ck] = f;
            for (int c = 0; c < nc; ++c) r[cols[c]] -= f * pivot[cols[c]];
        }
    }
    return 1;
}

void lucid_ncp_lu_solve(const lucid_ncp_workspace *ws, int n, double *b) {
    const double *A = ws->J;
    const int *col = ws->perm, *row = ws->rowidx;
    double *y = ws->y;
    for (int i = 0; i < n; ++i) { /* L y = the rows' b (L unit lower triangular) */
        const double *r = A + (size_t)row[i] * n;
        double s = b[row[i]];
        for (int k = 0; k < i; ++k) s -= r[col[k]] * y[k];
        y[i] = s;
    }
    for (int i = n - 1; i >= 0; --i) { /* U x = y, x in the elimination order */
        const double *r = A + (size_t)row[i] * n;
        double s = y[i];
        for (int j = i + 1; j < n; ++j) s -= r[col[j]] * y[j];
        y[i] = s / r[col[i]];
    }
    for (int i = 0; i < n; ++i) b[col[i]] = y[i];
}

/* Block product u o v into out (u0 v0 + u1.v1, u0 v1 + v0 u1). */
static void jordan(const double *u, const double *v, int k, double *out) {
    double dot = 0.0;
    for (int i = 0; i < k; ++i) dot += u[i] * v[i];
    out[0] = dot;
    for (int i = 1; i < k; ++i) out[i] = u[0] * v[i] + v[0] * u[i];
}

/* The largest t in (0, inf] with u + t du in the cone (u inside it). */
static double cone_step(const double *u, const double *du, int k) {
    double tmax = du[0] < 0.0 ? -u[0] / du[0] : INFINITY;
    if (k == 1) return tmax;
    double A = du[0] * du[0], B = u[0] * du[0], C = u[0] * u[0];
    for (int i = 1; i < k; ++i) A -= du[i] * du[i], B -= u[i] * du[i], C -= u[i] * u[i];
    /* f(t) = A t^2 + 2 B t + C > 0 at t = 0: the first positive root is where it leaves */
    if (fabs(A) < 1e-300) {
        if (B < 0.0) tmax = fmin(tmax, -C / (2.0 * B));
        return tmax;
    }
    double disc = B * B - A * C;
    if (disc < 0.0) return tmax;
    /* the roots as q / A and C / q with q = -(B + sign(B) sqrt(disc)): the textbook
     * (-B -+ sqrt(disc)) / A cancels when C is small (u near the cone's edge) and loses the
     * near root, letting steps leave the cone */
    double sq = sqrt(disc), q = B < 0.0 ? sq - B : -(B + sq);
    double r1 = q / A, r2 = q != 0.0 ? C / q : INFINITY;
    if (r1 > 0.0) tmax = fmin(tmax, r1);
    if (r2 > 0.0) tmax = fmin(tmax, r2);
    return tmax;
}

/* R = (F(X), a o b - target e); returns ||R||_2, and sets the two inf-norms. */
static double residual(const lucid_ncp_problem *p, const double *X, double target, double *R,
                       double *feq, double *fcomp) {
    int ne = p->ny + p->na;
    p->F(p->ctx, X, R);
    const double *a = X + p->ny, *b = a + p->na;
    double *c = R + ne;
    for (int k = 0; k < p->num_blocks; ++k) {
        int lo = p->block_start[k], dim = p->block_start[k + 1] - lo;
        jordan(a + lo, b + lo, dim, c + lo);
        c[lo] -= target;
    }
    double s = 0.0, e = 0.0, m = 0.0;
    for (int i = 0; i < ne; ++i) s += R[i] * R[i], e = fmax(e, fabs(R[i]));
    for (int i = 0; i < p->na; ++i) s += c[i] * c[i], m = fmax(m, fabs(c[i]));
    if (feq) *feq = e;
    if (fcomp) *fcomp = m;
    return sqrt(s);
}

static double mean_gap(const lucid_ncp_problem *p, const double *X) {
    const double *a = X + p->ny, *b = a + p->na;
    double s = 0.0;
    for (int k = 0; k < p->num_blocks; ++k)
        for (int i = p->block_start[k]; i < p->block_start[k + 1]; ++i) s += a[i] * b[i];
    return p->num_blocks > 0 ? s / p->num_blocks : 0.0;
}

/* J = dR/dX: F's rows from p->dF or by central differences, the Jordan rows exactly
 * (row-major N x N). */
static void jacobian(const lucid_ncp_problem *p, double *X, lucid_ncp_workspace *ws) {
    int ne = p->ny + p->na, n = ne + p->na;
    double *J = ws->J;
    if (p->dF) p->dF(p->ctx, X, J);
    for (int j = 0; !p->dF && j < n; ++j) {
        double x = X[j], h = 1e-6 * fmax(1.0, fabs(x));
        X[j] = x + h;
        p->F(p->ctx, X, ws->Ft);
        X[j] = x - h;
        p->F(p->ctx, X, ws->Fm);
        X[j] = x;
        double inv = 1.0 / (2.0 * h);
        for (int i = 0; i < ne; ++i) J[(size_t)i * n + j] = (ws->Ft[i] - ws->Fm[i]) * inv;
    }
    const double *a = X + p->ny, *b = a + p->na;
    for (int i = ne; i < n; ++i) memset(J + (size_t)i * n, 0, (size_t)n * sizeof(double));
    for (int k = 0; k < p->num_blocks; ++k) {
        int lo = p->block_start[k], dim = p->block_start[k + 1] - lo;
        for (int r = 0; r < dim; ++r) {
            double *row = J + (size_t)(ne + lo + r) * n;
            int ca = p->ny + lo, cb = p->ny + p->na + lo;
            if (r == 0) {
                for (int i = 0; i < dim; ++i) row[ca + i] = b[lo + i], row[cb + i] = a[lo + i];
            } else {
                row[ca + 0] = b[lo + r], row[ca + r] = b[lo];
                row[cb + 0] = a[lo + r], row[cb + r] = a[lo];
            }
        }
    }
}

/* Fraction-to-boundary step along d for both a and b. */
static double max_step(const lucid_ncp_problem *p, const double *X, const double *d) {
    double t = INFINITY;
    for (int side = 0; side < 2; ++side) {
        int off = p->ny + side * p->na;
        for (int k = 0; k < p->num_blocks; ++k) {
            int lo = p->block_start[k], dim = p->block_start[k + 1] - lo;
            double tk = cone_step(X + off + lo, d + off + lo, dim);
            t = fmin(t, tk);
        }
    }
    return fmin(1.0, BOUNDARY_FRACTION * t);
}

/* Newton direction for the target: d = -J^-1 (F, a o b - target e). */
static void direction(const lucid_ncp_problem *p, const double *X, double target,
                      lucid_ncp_workspace *ws, double *d) {
    int n = p->ny + 2 * p->na;
    residual(p, X, target, d, NULL, NULL);
    for (int i = 0; i < n; ++i) d[i] = -d[i];
    lucid_ncp_lu_solve(ws, n, d);
}

lucid_status lucid_ncp_solve(const lucid_ncp_problem *p, const lucid_single_level_options *o,
                             double *X, lucid_ncp_workspace *ws, lucid_ncp_result *res) {
    int ne = p->ny + p->na, n = ne + p->na;
    memset(res, 0, sizeof *res);
    if ((size_t)n > ws->cap) return LUCID_ERR_ARGUMENT;
    double feq, fcomp;
    for (int it = 0;; ++it) {
        residual(p, X, o->kappa, ws->R, &feq, &fcomp);
        res->iterations = it, res->residual = feq, res->complementarity = fcomp;
        if (feq <= o->tol && fcomp <= o->tol) {
            res->converged = 1;
            if (p->skip_answer_lu) return LUCID_OK;
            jacobian(p, X, ws); /* the factorisation at the answer, for derivatives */
            return lu_factor(p, ws, n) ? LUCID_OK : LUCID_ERR_SINGULAR;
        }
        if (it >= o->max_iter) return LUCID_ERR_NO_CONVERGENCE;
        jacobian(p, X, ws);
        if (!lu_factor(p, ws, n)) return LUCID_ERR_SINGULAR;
        double mu = mean_gap(p, X);
        /* predictor: the affine direction (target 0) and how far it may go */
        direction(p, X, 0.0, ws, ws->daff);
        double taff = max_step(p, X, ws->daff);
        for (int i = 0; i < n; ++i) ws->Xt[i] = X[i] + taff * ws->daff[i];
        double mu_aff = mean_gap(p, ws->Xt);
        double sigma = mu > 0.0 ? pow(fmax(mu_aff, 0.0) / mu, 3.0) : 0.0;
        double target = fmax(o->kappa, fmin(sigma, 1.0) * mu);
        /* the centred direction: Mehrotra's second-order term daff_a o daff_b is left out, it
         * spoils the direction when the affine step is far outside the cones (stalls) */
        direction(p, X, target, ws, ws->d);
        double t = max_step(p, X, ws->d);
        /* backtracking until the equations' or the complementarity's violation (at kappa)
         * decreases: the acceptance of the paper's solver (Mehrotra.jl). A decrease of the
         * residual's 2-norm at the target, asked before, stalled near degenerate answers
         * (a box spinning on its face at 300 Hz, kappa 1e-8: steps of 1/64 for 50 iterations
         * at a residual of 2e-8, where this rule converges in 10) */
        for (int k = 0; k <= MAX_BACKTRACKS; ++k) {
            for (int i = 0; i < n; ++i) ws->Xt[i] = X[i] + t * ws->d[i];
            double e1, c1;
            residual(p, ws->Xt, o->kappa, ws->R, &e1, &c1);
            if (e1 <= feq || c1 <= fcomp || k == MAX_BACKTRACKS) break;
            t *= 0.5;
        }
        memcpy(X, ws->Xt, (size_t)n * sizeof(double));
    }
}

/* Central-path following: the solve at kappa0, then at kappa0 / 2, kappa0 / 4, ... down to
 * o->kappa, each from the last answer (the intermediate ones to max(tol, 1e-3 kappa_k)). Stops
 * at the first stage that does not converge. */
lucid_status lucid_ncp_solve_continued(const lucid_ncp_problem *p,
                                       const lucid_single_level_options *o, double kappa0,
                                       double *X, lucid_ncp_workspace *ws, lucid_ncp_result *res) {
    lucid_single_level_options stage = *o;
    int total = 0;
    lucid_status s = LUCID_OK;
    for (double k = fmax(kappa0, o->kappa);; k *= 0.5) {
        int last = k <= o->kappa;
        stage.kappa = last ? o->kappa : k;
        stage.tol = last ? o->tol : fmax(o->tol, 1e-3 * k);
        s = lucid_ncp_solve(p, &stage, X, ws, res);
        total += res->iterations;
        if (last || !res->converged) break;
    }
    res->iterations = total;
    if (res->converged && stage.kappa != o->kappa) res->converged = 0;
    return s;
}
