/* The reduced system K dlambda_A = rhs of the active contacts (contact_derivatives.h): assembly,
 * row equilibration, complete orthogonal decomposition K P = Q [T 0; 0 0] Z (or, K well
 * conditioned, its LU factors: LU_RCOND), and the products.
 * Minimum-norm solve:  x = P Z^T [T^-1 (Q^T b)_1..r; 0];
 * transposed:          z = Q [T^-T (Z P^T w)_1..r; 0]   (the transpose of the same map). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "autodiff/contact_derivatives_internal.h"
#include "solvers/contact/contact_criteria.h"
#include "solvers/contact/contact_math.h"
#include "solvers/dense/dense_kernels.h"
#include "solvers/dense/dense_product.h"

#define DEFAULT_THRESHOLD 1e-6
#define DEFAULT_RCOND     1e-10
/* K is factored by LU (partial pivoting) instead of the COD when LAPACK's estimate of its
 * reciprocal 1-norm condition number is at least this: the COD's rank test drops a column only
 * when a pivot falls below rcond (1e-10) of the first, so sigma_min <= 1e-10 sigma_max and the
 * true rcond_1 <= q 1e-10; 1e-6 leaves the estimator (a lower bound on ||K^-1||_1, typically
 * within a factor 3) four orders of slack. Then K^+ = K^-1 and both give the same derivative to
 * rounding, at a fraction of the COD's cost. */
#define LU_RCOND 1e-6

struct lucid_contact_derivatives {
    int capacity, n, q, rank;
    double free_velocity; /* lucid_contact_derivative_info's: K's null directions' velocity */
    int dim;              /* rows per contact of the factored problem (3, 4 or 6) */
    int lu; /* K holds its LU factors (jpvt the row pivots), not its COD: K is well conditioned */
    int in_arena; /* its memory belongs to an arena (lucid_contact_derivatives_create_in) */
    lucid_contact_model model;
    double *lambda;                    /* m */
    lucid_contact_linearization *lins; /* n */
    lucid_contact_mode *modes;         /* n */
    double *margins;                   /* n */
    int *active;                       /* q / dim contact indices */
    double *K;                         /* q x q: its COD after factor */
    int *jpvt;                         /* q */
    int *iwork; /* q: the rcond estimate's signs (dlacn2), null_velocity's columns */
    double *tau, *tauz, *v0, *v1; /* q, q, m, m */
    double *scratch;              /* m x m */
    double *work;
    int lwork;
};

lucid_contact_derivative_options
lucid_contact_derivative_default_options(lucid_contact_model model) {
    lucid_contact_derivative_options o = {model, DEFAULT_THRESHOLD, DEFAULT_RCOND};
    return o;
}

/* [0, 1): both are fractions of a normalised quantity (a force, a velocity, the first pivot). */
#define LUCID_OPTION_FRACTION_RANGE                                                                \
    { 0.0, 1.0, 0, 1 }
#define LUCID_OPTION_FRACTION_WORDS "in [0, 1)"

#define S lucid_contact_derivative_options
const lucid_option lucid_contact_derivative_option_table[] = {
    LUCID_OPTION_NUMBER_ENTRY(S, "", threshold, FRACTION,
                              "tau of the modes: breaking below tau F, sticking below tau V"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", rcond, FRACTION,
                              "pivots of K below rcond x the first are dropped"),
    LUCID_OPTION_END,
};
#undef S

/* count doubles-or-other of size bytes, from the arena when there is one, else the heap;
 * not zeroed either way (each is written before it is read; the LAPACK workspace alone is
 * 8192 + 66 (3n + 1) doubles). */
static void *take(lucid_arena *arena, size_t count, size_t size) {
    return arena ? lucid_arena_alloc_uninit(arena, count, size) : malloc(count * size);
}

static lucid_contact_derivatives *create(lucid_arena *arena, int max_contacts) {
    if (max_contacts < 0 || max_contacts > 20000) return NULL;
    lucid_contact_derivatives *d =
        arena ? lucid_arena_alloc(arena, 1, sizeof *d) : calloc(1, sizeof *d);
    if (!d) return NULL;
    d->in_arena = arena != NULL;
    d->capacity = max_contacts;
    size_t n = (size_t)(max_contacts > 0 ? max_contacts : 1), m = 3 * n;
    d->lwork = (int)(8192 + 66 * (m + 1));
    d->lambda = take(arena, m, sizeof(double));
    d->lins = take(arena, n, sizeof *d->lins);
    d->modes = take(arena, n, sizeof *d->modes);
    d->margins = take(arena, n, sizeof(double));
    d->active = take(arena, n, sizeof(int));
    d->K = take(arena, m * m, sizeof(double));
    d->jpvt = take(arena, m, sizeof(int));
    d->iwork = take(arena, m, sizeof(int));
    d->tau = take(arena, m, sizeof(double));
    d->tauz = take(arena, m, sizeof(double));
    d->v0 = take(arena, m, sizeof(double));
    d->v1 = take(arena, m, sizeof(double));
    d->scratch = take(arena, m * m, sizeof(double));
    d->work = take(arena, (size_t)d->lwork, sizeof(double));
    if (!d->lambda || !d->lins || !d->modes || !d->margins || !d->active || !d->K || !d->jpvt ||
        !d->iwork || !d->tau || !d->tauz || !d->v0 || !d->v1 || !d->scratch || !d->work) {
        lucid_contact_derivatives_destroy(d);
        return NULL;
    }
    return d;
}

lucid_contact_derivatives *lucid_contact_derivatives_create(int max_contacts) {
    return create(NULL, max_contacts);
}

lucid_contact_derivatives *lucid_contact_derivatives_create_in(lucid_arena *arena,
                                                               int max_contacts) {
    return arena ? create(arena, max_contacts) : NULL;
}

void lucid_contact_derivatives_destroy(lucid_contact_derivatives *d) {
    if (!d || d->in_arena) return;
    free(d->lambda), free(d->lins), free(d->modes), free(d->margins), free(d->active);
    free(d->K), free(d->jpvt), free(d->iwork), free(d->tau), free(d->tauz), free(d->v0),
        free(d->v1);
    free(d->scratch), free(d->work);
    free(d);
}

/* Row a of Fs (D entries) dotted with x. */
static double fs_dot(const lucid_contact_linearization *lin, int D, int a, const double *x) {
    double v = 0.0;
    for (int c = 0; c < D; ++c) v += lin->Fs[D * a + c] * x[c];
    return v;
}

/* K = Fl + Fs (G + R)_AA, then each row (and its linearisation) scaled to unit max-norm. */
static void assemble(lucid_contact_derivatives *d, const lucid_contact_problem *p) {
    int D = d->dim, q = d->q, na = q / D;
    for (int kj = 0; kj < na; ++kj) {
        int j = d->active[kj];
        for (int b = 0; b < D; ++b) {
            double *col = d->K + (size_t)q * (D * kj + b);
            for (int ki = 0; ki < na; ++ki) {
                int i = d->active[ki];
                const lucid_contact_linearization *lin = d->lins + i;
                double A[6];
                for (int c = 0; c < D; ++c) A[c] = lucid_contact_entry(p, D * i + c, D * j + b);
                for (int a = 0; a < D; ++a) {
                    double v = fs_dot(lin, D, a, A);
                    if (i == j) v += lin->Fl[D * a + b];
                    col[D * ki + a] = v;
                }
            }
        }
    }
    for (int ki = 0; ki < na; ++ki) {
        lucid_contact_linearization *lin = d->lins + d->active[ki];
        for (int a = 0; a < D; ++a) {
            int r = D * ki + a;
            double big = 0.0;
            for (int c = 0; c < q; ++c)
                big = lucid_contact_fmax(big, fabs(d->K[r + (size_t)q * c]));
            if (!(big > 0.0)) continue;
            double s = 1.0 / big;
            for (int c = 0; c < q; ++c) d->K[r + (size_t)q * c] *= s;
            for (int c = 0; c < D; ++c) lin->Fl[D * a + c] *= s, lin->Fs[D * a + c] *= s;
            lin->Fmu[a] *= s;
            if (lin->fa_row == a)
                for (int c = 0; c < 3; ++c) lin->Fa[c] *= s;
        }
    }
}

/* 1 / (||K||_1 ||K^-1||_1) from K's LU factors (norm = ||K||_1): Hager and Higham's estimate
 * of ||K^-1||_1 (dlacn2), as dgecon makes it, with its solves by dgetrs where dgecon guards
 * each against overflow (dlatrs, a cost out of proportion on an island's K), as K's rows are
 * scaled to unit max-norm. A non-finite estimate
 * (a numerically singular K) gives 0. */
static double lu_rcond(lucid_contact_derivatives *d, int q, double norm) {
    double *v = d->work, *x = d->work + q, est = 0.0;
    int kase = 0, isave[3] = {0, 0, 0};
    do {
        lucid_dense_lacn2(q, v, x, d->iwork, &est, &kase, isave);
        if (kase != 0 && lucid_dense_getrs(kase != 1, q, 1, d->K, q, d->jpvt, x, q) != 0)
            return 0.0;
    } while (kase != 0);
    return est > 0.0 && isfinite(est) ? 1.0 / (norm * est) : 0.0;
}

/* K's LU factorisation when K is well conditioned (LU_RCOND): 1, rank q; else 0 and K as it
 * was (restored from the scratch copy). */
static int factor_lu(lucid_contact_derivatives *d) {
    int q = d->q;
    memcpy(d->scratch, d->K, sizeof(double) * (size_t)q * (size_t)q);
    double norm = lucid_dense_norm1_unchecked(q, q, d->K, q);
    double rcond = 0.0;
    int info = lucid_dense_getrf(q, d->K, q, d->jpvt);
    if (info == 0 && isfinite(norm) && norm > 0.0) rcond = lu_rcond(d, q, norm);
    if (info == 0 && rcond >= LU_RCOND) {
        d->lu = 1, d->rank = q;
        return 1;
    }
    memcpy(d->K, d->scratch, sizeof(double) * (size_t)q * (size_t)q);
    return 0;
}

/* The contact velocities along K's dropped directions: k = P Z^T [0; e_j] (the COD's null
 * space), y = (G + R)_{:,A} k, and free_velocity = max over k of |y|_inf / max_r sum_c
 * |(G + R)_rc k_c| (how much of the velocity the free forces k produce does not cancel: rounding
 * where J^T k = 0, as for a box's corners sticking; O(1) where k moves the bodies). The f
 * directions in one pass over (G + R)'s entries, each direction's sums in its own order. */
static lucid_status null_velocity(lucid_contact_derivatives *d, const lucid_contact_problem *p) {
    int q = d->q, r = d->rank, f = q - r, D = d->dim, m = D * d->n;
    double *B = d->scratch, *perm = d->v1;
    memset(B, 0, sizeof(double) * (size_t)q * (size_t)f);
    for (int c = 0; c < f; ++c) B[r + c + (size_t)q * c] = 1.0;
    if (r > 0 && lucid_dense_ormrz(1, q, f, r, f, d->K, q, d->tauz, B, q, d->work, d->lwork) != 0)
        return LUCID_ERR_INTERNAL;
    int *col = d->iwork; /* K's column j: the problem's row col[j] */
    for (int j = 0; j < q; ++j) col[j] = D * d->active[j / D] + j % D;
    for (int c = 0; c < f; ++c) { /* each direction in the problem's order */
        double *k = B + (size_t)q * c;
        for (int j = 0; j < q; ++j) perm[d->jpvt[j] - 1] = k[j];
        memcpy(k, perm, sizeof(double) * (size_t)q);
    }
    double *y = d->work, *a = y + f, *worst = a + f, *scale = worst + f; /* ormrz is done */
    for (int c = 0; c < f; ++c) worst[c] = scale[c] = 0.0;
    for (int row = 0; row < m; ++row) {
        for (int c = 0; c < f; ++c) y[c] = a[c] = 0.0;
        for (int j = 0; j < q; ++j) {
            double e = lucid_contact_entry(p, row, col[j]);
            for (int c = 0; c < f; ++c) {
                double g = e * B[j + (size_t)q * c];
                y[c] += g, a[c] += fabs(g);
            }
        }
        for (int c = 0; c < f; ++c)
            worst[c] = fmax(worst[c], fabs(y[c])), scale[c] = fmax(scale[c], a[c]);
    }
    for (int c = 0; c < f; ++c)
        if (scale[c] > 0.0) d->free_velocity = fmax(d->free_velocity, worst[c] / scale[c]);
    return LUCID_OK;
}

lucid_status lucid_contact_derivatives_factor(lucid_contact_derivatives *d,
                                              const lucid_contact_problem *p, const double *lambda,
                                              const lucid_contact_derivative_options *o) {
    if (!d || !p || !o || (p->n > 0 && !lambda)) return LUCID_ERR_ARGUMENT;
    lucid_status status = lucid_contact_problem_validate(p, NULL);
    if (status != LUCID_OK) return status;
    int D = lucid_contact_dim(p);
    if (p->n > d->capacity || lucid_contact_rows(p) > 3L * d->capacity ||
        (D > 3 && o->model != LUCID_CONTACT_NCP && o->model != LUCID_CONTACT_CCP) ||
        lucid_option_table_check(lucid_contact_derivative_option_table, o, NULL) != LUCID_OK)
        return LUCID_ERR_ARGUMENT;
    int n = p->n, m = D * n;
    for (int k = 0; k < m; ++k)
        if (!isfinite(lambda[k])) return LUCID_ERR_NONFINITE;
    d->n = n, d->dim = D, d->model = o->model, d->q = 0, d->rank = 0, d->free_velocity = 0.0;
    memcpy(d->lambda, lambda, sizeof(double) * (size_t)m);
    double *sigma = d->v0;
    lucid_contact_velocity(p, lambda, sigma);
    lucid_contact_scales sc;
    lucid_contact_answer_scales(p, lambda, sigma, &sc.force, &sc.velocity);
    if (!isfinite(sc.velocity)) return LUCID_ERR_NONFINITE;
    int na = 0;
    for (int i = 0; i < n; ++i) {
        double A_N[6];
        for (int c = 0; c < D; ++c) A_N[c] = lucid_contact_entry(p, D * i + 2, D * i + c);
        d->modes[i] = lucid_contact_linearize(o->model, D, p->mu[i], lambda + D * i, sigma + D * i,
                                              A_N, &sc, o->threshold, d->lins + i, d->margins + i);
        if (d->modes[i] != LUCID_CONTACT_BREAKING) d->active[na++] = i;
    }
    int q = d->q = D * na;
    d->lu = 0;
    if (q == 0) return LUCID_OK;
    assemble(d, p);
    if (factor_lu(d)) return LUCID_OK;
    for (int k = 0; k < q; ++k) d->jpvt[k] = 0;
    int info = lucid_dense_geqp3(q, q, d->K, q, d->jpvt, d->tau, d->work, d->lwork);
    if (info != 0) return LUCID_ERR_INTERNAL;
    double first = fabs(d->K[0]);
    int rank = 0;
    while (rank < q && fabs(d->K[rank + (size_t)q * rank]) > o->rcond * first) ++rank;
    d->rank = rank;
    if (rank > 0 && rank < q) {
        info = lucid_dense_tzrzf(rank, q, d->K, q, d->tauz, d->work, d->lwork);
        if (info != 0) return LUCID_ERR_INTERNAL;
    }
    return rank < q ? null_velocity(d, p) : LUCID_OK;
}

void lucid_contact_derivatives_get_info(const lucid_contact_derivatives *d,
                                        lucid_contact_derivative_info *info) {
    info->contacts = d->n, info->active = d->q / d->dim, info->size = d->q, info->rank = d->rank;
    info->rank_deficient = d->rank < d->q;
    info->free_velocity = d->free_velocity;
    info->margin = INFINITY;
    for (int i = 0; i < d->n; ++i) info->margin = fmin(info->margin, d->margins[i]);
}

lucid_contact_mode lucid_contact_derivatives_mode(const lucid_contact_derivatives *d, int i) {
    return d->modes[i];
}

double lucid_contact_derivatives_margin(const lucid_contact_derivatives *d, int i) {
    return d->margins[i];
}

/* B (q x nrhs, ld q) <- K^+ B, the minimum-norm solution; uses v1 / scratch for the pivoting. */
static lucid_status solve(lucid_contact_derivatives *d, double *B, int nrhs, double *perm) {
    int q = d->q, r = d->rank;
    if (d->lu)
        return lucid_dense_getrs(0, q, nrhs, d->K, q, d->jpvt, B, q) == 0 ? LUCID_OK
                                                                          : LUCID_ERR_INTERNAL;
    int info = lucid_dense_ormqr(1, q, nrhs, q, d->K, q, d->tau, B, q, d->work, d->lwork);
    if (info != 0) return LUCID_ERR_INTERNAL;
    if (r > 0) lucid_dense_upper_solve(0, r, nrhs, d->K, q, B, q);
    for (int c = 0; c < nrhs; ++c)
        for (int k = r; k < q; ++k) B[k + (size_t)q * c] = 0.0;
    if (r > 0 && r < q) {
        info = lucid_dense_ormrz(1, q, nrhs, r, q - r, d->K, q, d->tauz, B, q, d->work, d->lwork);
        if (info != 0) return LUCID_ERR_INTERNAL;
    }
    for (int c = 0; c < nrhs; ++c) {
        double *col = B + (size_t)q * c;
        for (int k = 0; k < q; ++k) perm[d->jpvt[k] - 1] = col[k];
        memcpy(col, perm, sizeof(double) * (size_t)q);
    }
    return LUCID_OK;
}

/* Z (q x nrhs, ld q) <- (K^T)^+ Z. */
static lucid_status solve_transposed(lucid_contact_derivatives *d, double *Z, int nrhs,
                                     double *perm) {
    int q = d->q, r = d->rank;
    if (d->lu)
        return lucid_dense_getrs(1, q, nrhs, d->K, q, d->jpvt, Z, q) == 0 ? LUCID_OK
                                                                          : LUCID_ERR_INTERNAL;
    for (int c = 0; c < nrhs; ++c) {
        double *z = Z + (size_t)q * c;
        for (int k = 0; k < q; ++k) perm[k] = z[d->jpvt[k] - 1];
        memcpy(z, perm, sizeof(double) * (size_t)q);
    }
    int info;
    if (r > 0 && r < q) {
        info = lucid_dense_ormrz(0, q, nrhs, r, q - r, d->K, q, d->tauz, Z, q, d->work, d->lwork);
        if (info != 0) return LUCID_ERR_INTERNAL;
    }
    if (r > 0) lucid_dense_upper_solve(1, r, nrhs, d->K, q, Z, q);
    for (int c = 0; c < nrhs; ++c)
        for (int k = r; k < q; ++k) Z[k + (size_t)q * c] = 0.0;
    info = lucid_dense_ormqr(0, q, nrhs, q, d->K, q, d->tau, Z, q, d->work, d->lwork);
    return info == 0 ? LUCID_OK : LUCID_ERR_INTERNAL;
}

static int finite_or_null(const double *x, long count) {
    if (!x) return 1;
    for (long k = 0; k < count; ++k)
        if (!isfinite(x[k])) return 0;
    return 1;
}

lucid_status lucid_contact_derivatives_jvp(lucid_contact_derivatives *d, const double *dG,
                                           const double *dg, const double *dmu, const double *dR,
                                           double *dlambda) {
    if (!d || !dlambda) return LUCID_ERR_ARGUMENT;
    int D = d->dim, n = d->n, m = D * n, q = d->q;
    if (!finite_or_null(dG, (long)m * m) || !finite_or_null(dg, m) || !finite_or_null(dmu, n) ||
        !finite_or_null(dR, m))
        return LUCID_ERR_NONFINITE;
    memset(dlambda, 0, sizeof(double) * (size_t)m);
    if (q == 0) return LUCID_OK;
    double *b = d->v0;
    for (int k = 0; k < q / D; ++k) {
        int i = d->active[k];
        const lucid_contact_linearization *lin = d->lins + i;
        double ds[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}, dA[3] = {0.0, 0.0, 0.0};
        for (int a = 0; a < D; ++a) {
            int r = D * i + a;
            if (dg) ds[a] += dg[r];
            if (dR) ds[a] += dR[r] * d->lambda[r];
            if (dG)
                for (int c = 0; c < m; ++c) ds[a] += dG[r + (size_t)m * c] * d->lambda[c];
        }
        if (lin->fa_row >= 0) { /* RaiSim: D = 3 */
            for (int c = 0; c < 3; ++c)
                dA[c] = dG ? dG[(3 * i + 2) + (size_t)m * (3 * i + c)] : 0.0;
            if (dR) dA[2] += dR[3 * i + 2];
        }
        for (int a = 0; a < D; ++a) {
            double v = fs_dot(lin, D, a, ds);
            if (dmu) v += lin->Fmu[a] * dmu[i];
            if (lin->fa_row == a) v += lin->Fa[0] * dA[0] + lin->Fa[1] * dA[1] + lin->Fa[2] * dA[2];
            b[D * k + a] = -v;
        }
    }
    lucid_status status = solve(d, b, 1, d->v1);
    if (status != LUCID_OK) return status;
    for (int k = 0; k < q / D; ++k)
        for (int a = 0; a < D; ++a) dlambda[D * d->active[k] + a] = b[D * k + a];
    return LUCID_OK;
}

lucid_status lucid_contact_derivatives_vjp(lucid_contact_derivatives *d, const double *w,
                                           double *gG, double *gg, double *gmu, double *gR) {
    if (!d || !w) return LUCID_ERR_ARGUMENT;
    int D = d->dim, n = d->n, m = D * n, q = d->q;
    if (!finite_or_null(w, m)) return LUCID_ERR_NONFINITE;
    /* y = -Fs^T z per active contact (0 elsewhere), z = (K^T)^+ w_A */
    double *z = d->v0, *y = d->scratch;
    memset(y, 0, sizeof(double) * (size_t)m);
    for (int k = 0; k < q / D; ++k)
        for (int a = 0; a < D; ++a) z[D * k + a] = w[D * d->active[k] + a];
    if (q > 0) {
        lucid_status status = solve_transposed(d, z, 1, d->v1);
        if (status != LUCID_OK) return status;
    }
    for (int k = 0; k < q / D; ++k) {
        const lucid_contact_linearization *lin = d->lins + d->active[k];
        for (int c = 0; c < D; ++c) {
            double v = 0.0;
            for (int a = 0; a < D; ++a) v += lin->Fs[D * a + c] * z[D * k + a];
            y[D * d->active[k] + c] = -v;
        }
    }
    if (gg) memcpy(gg, y, sizeof(double) * (size_t)m);
    if (gR)
        for (int r = 0; r < m; ++r) gR[r] = y[r] * d->lambda[r];
    if (gG)
        for (int c = 0; c < m; ++c)
            for (int r = 0; r < m; ++r) gG[r + (size_t)m * c] = y[r] * d->lambda[c];
    if (gmu) memset(gmu, 0, sizeof(double) * (size_t)n);
    for (int k = 0; k < q / D; ++k) {
        int i = d->active[k];
        const lucid_contact_linearization *lin = d->lins + i;
        if (gmu)
            for (int a = 0; a < D; ++a) gmu[i] -= lin->Fmu[a] * z[D * k + a];
        if (lin->fa_row < 0) continue; /* RaiSim: D = 3 */
        double zr = z[3 * k + lin->fa_row];
        if (gG)
            for (int c = 0; c < 3; ++c)
                gG[(3 * i + 2) + (size_t)m * (3 * i + c)] -= zr * lin->Fa[c];
        if (gR) gR[3 * i + 2] -= zr * lin->Fa[2];
    }
    return LUCID_OK;
}

/* The g and mu parts of vjp for every column of W at once, in chunks of at most m = D n columns
 * (the scratch holds q x m): Z = (K^T)^+ W_A, then per active contact gg_i = -Fs_i^T z_i and gmu_i
 * = -Fmu_i . z_i. */
lucid_status lucid_contact_derivatives_vjp_many(lucid_contact_derivatives *d, const double *W,
                                                int count, double *gg, double *gmu) {
    if (!d || !W || count < 0) return LUCID_ERR_ARGUMENT;
    int D = d->dim, n = d->n, m = D * n, q = d->q;
    if (!finite_or_null(W, (long)m * count)) return LUCID_ERR_NONFINITE;
    if (gg) memset(gg, 0, sizeof(double) * (size_t)m * (size_t)count);
    if (gmu) memset(gmu, 0, sizeof(double) * (size_t)n * (size_t)count);
    if (q == 0) return LUCID_OK;
    for (int c0 = 0; c0 < count; c0 += m) {
        int cols = count - c0 < m ? count - c0 : m;
        double *Z = d->scratch;
        for (int c = 0; c < cols; ++c)
            for (int k = 0; k < q / D; ++k)
                for (int a = 0; a < D; ++a)
                    Z[D * k + a + (size_t)q * c] =
                        W[D * d->active[k] + a + (size_t)m * (size_t)(c0 + c)];
        lucid_status status = solve_transposed(d, Z, cols, d->v1);
        if (status != LUCID_OK) return status;
        for (int c = 0; c < cols; ++c)
            for (int k = 0; k < q / D; ++k) {
                int i = d->active[k];
                const lucid_contact_linearization *lin = d->lins + i;
                const double *z = Z + D * k + (size_t)q * c;
                double gm = 0.0;
                for (int e = 0; e < D; ++e) {
                    double v = 0.0;
                    for (int a = 0; a < D; ++a) v += lin->Fs[D * a + e] * z[a];
                    if (gg) gg[D * i + e + (size_t)m * (size_t)(c0 + c)] = -v;
                    gm -= lin->Fmu[e] * z[e];
                }
                if (gmu) gmu[i + (size_t)n * (size_t)(c0 + c)] = gm;
            }
    }
    return LUCID_OK;
}

/* Solves for the columns in B (q x cols), scatters the rows of the active contacts into out
 * (D n x cols), zero elsewhere. */
static lucid_status solve_scatter(lucid_contact_derivatives *d, double *B, int cols, double *out) {
    int D = d->dim, m = D * d->n, q = d->q;
    memset(out, 0, sizeof(double) * (size_t)m * (size_t)cols);
    if (q == 0 || cols == 0) return LUCID_OK;
    lucid_status status = solve(d, B, cols, d->v1);
    if (status != LUCID_OK) return status;
    for (int c = 0; c < cols; ++c)
        for (int k = 0; k < q / D; ++k)
            for (int a = 0; a < D; ++a)
                out[D * d->active[k] + a + (size_t)m * c] = B[D * k + a + (size_t)q * c];
    return LUCID_OK;
}

lucid_status lucid_contact_derivatives_jacobian(lucid_contact_derivatives *d, double *dg,
                                                double *dmu, double *dR) {
    if (!d) return LUCID_ERR_ARGUMENT;
    int D = d->dim, n = d->n, m = D * n, q = d->q;
    double *B = d->scratch;
    lucid_status status = LUCID_OK;
    for (int pass = 0; pass < 3 && status == LUCID_OK; ++pass) {
        double *out = pass == 0 ? dg : pass == 1 ? dmu : dR;
        if (!out) continue;
        int cols = pass == 1 ? n : m;
        memset(B, 0, sizeof(double) * (size_t)q * (size_t)cols);
        for (int k = 0; k < q / D; ++k) {
            int i = d->active[k];
            const lucid_contact_linearization *lin = d->lins + i;
            for (int a = 0; a < D; ++a) {
                double *row = B + D * k + a;
                if (pass == 1) {
                    row[(size_t)q * i] = -lin->Fmu[a];
                    continue;
                }
                for (int c = 0; c < D; ++c) {
                    double scale = pass == 0 ? 1.0 : d->lambda[D * i + c];
                    row[(size_t)q * (D * i + c)] = -lin->Fs[D * a + c] * scale;
                }
                if (pass == 2 && lin->fa_row == a) row[(size_t)q * (3 * i + 2)] -= lin->Fa[2];
            }
        }
        status = solve_scatter(d, B, cols, out);
    }
    return status;
}
