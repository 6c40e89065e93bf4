/* Projected Gauss-Seidel on the body-space form of the contact problem (contact_sparse.h):
 * the per-contact updates of contact_pgs.c, each reading its velocity from the bodies' u and
 * writing its impulse change back into them, so a sweep costs O(n) instead of O(n^2) and
 * nothing of size n^2 exists. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "solvers/contact/contact_internal.h"
#include "solvers/contact/contact_math.h"
#include "solvers/contact/contact_sparse.h"

size_t lucid_contact_sparse_work_size_dim(int n, int dim, size_t columns) {
    if (n < 0 || (dim != 3 && dim != 4 && dim != 6)) return 0;
    size_t b = (size_t)n, per = (size_t)dim * (size_t)(dim + 1); /* sigma, the diagonal blocks */
    if (b > SIZE_MAX / per || columns > SIZE_MAX - per * b) return 0;
    return columns + per * b;
}

/* out (dim) = J_s x (a row-major dim x w block, non-zero in columns [lo, hi), times a
 * w-vector) */
static void block_times(const double *B, int dim, size_t w, size_t lo, size_t hi, const double *x,
                        double *out) {
    for (int d = 0; d < dim; ++d) {
        const double *r = B + (size_t)d * w;
        double v = 0.0;
        for (size_t k = lo; k < hi; ++k) v += r[k] * x[k];
        out[d] = v;
    }
}

/* u_b += W_s^T delta (W_s dim x w, non-zero in columns [lo, hi)) */
static void scatter(const double *W, int dim, size_t w, size_t lo, size_t hi, const double *delta,
                    double *u) {
    for (int d = 0; d < dim; ++d) {
        if (delta[d] == 0.0) continue;
        const double *r = W + (size_t)d * w;
        for (size_t k = lo; k < hi; ++k) u[k] += r[k] * delta[d];
    }
}

/* u_slot(s) += W_s^T delta for side s */
static void scatter_side(const lucid_contact_sparse_problem *p, int s, const double *delta,
                         double *u) {
    int b = p->body[s];
    size_t lo, hi;
    lucid_sparse_span(p, s, 1, &lo, &hi);
    scatter(p->W + lucid_sparse_side_at(p, s), lucid_sparse_dim(p), lucid_sparse_width(p, b), lo,
            hi, delta, u + lucid_sparse_begin(p, b));
}

/* The velocity of contact i: sum_s J_s u_body(s) + g_i + R_i lambda_i. */
static void contact_velocity(const lucid_contact_sparse_problem *p, int i, const double *u,
                             const double *lambda, double *s) {
    int dim = lucid_sparse_dim(p);
    size_t at = (size_t)dim * (size_t)i;
    for (int d = 0; d < dim; ++d)
        s[d] = p->g[at + d] + (p->R ? p->R[at + d] * lambda[at + d] : 0.0);
    for (int side = 2 * i; side < 2 * i + 2; ++side) {
        if (p->body[side] < 0) continue;
        double v[6]; /* dim <= 6 */
        int b = p->body[side];
        size_t lo, hi;
        lucid_sparse_span(p, side, 0, &lo, &hi);
        block_times(p->J + lucid_sparse_side_at(p, side), dim, lucid_sparse_width(p, b), lo, hi,
                    u + lucid_sparse_begin(p, b), v);
        for (int d = 0; d < dim; ++d) s[d] += v[d];
    }
}

void lucid_contact_sparse_velocity(const lucid_contact_sparse_problem *p, const double *lambda,
                                   double *u, double *sigma) {
    size_t dim = (size_t)lucid_sparse_dim(p);
    memset(u, 0, sizeof(double) * lucid_sparse_columns(p));
    for (int side = 0; side < 2 * p->n; ++side)
        if (p->body[side] >= 0) scatter_side(p, side, lambda + dim * (size_t)(side / 2), u);
    for (int i = 0; i < p->n; ++i) contact_velocity(p, i, u, lambda, sigma + dim * (size_t)i);
}

/* D (column-major dim x dim) = sum_s J_s W_s^T + diag(R_i) */
static void diagonal_block(const lucid_contact_sparse_problem *p, int i, double *D) {
    int dim = lucid_sparse_dim(p);
    memset(D, 0, sizeof(double) * (size_t)(dim * dim));
    for (int side = 2 * i; side < 2 * i + 2; ++side) {
        if (p->body[side] < 0) continue;
        size_t at = lucid_sparse_side_at(p, side), w = lucid_sparse_width(p, p->body[side]);
        const double *J = p->J + at, *W = p->W + at;
        for (int a = 0; a < dim; ++a)
            for (int b = 0; b < dim; ++b) {
                double v = 0.0;
                for (size_t k = 0; k < w; ++k) v += J[(size_t)a * w + k] * W[(size_t)b * w + k];
                D[a + dim * b] += v;
            }
    }
    if (p->R)
        for (int a = 0; a < dim; ++a) D[(dim + 1) * a] += p->R[(size_t)dim * (size_t)i + a];
}

static int valid(const lucid_contact_sparse_problem *p, const lucid_contact_options *o,
                 const double *work, const double *lambda) {
    if (!p || !o || !work || !lambda || p->n < 0 || p->num_bodies < 0) return 0;
    if (p->n > 0 && (!p->body || !p->J || !p->W || !p->g || !p->mu)) return 0;
    if (o->solver != LUCID_CONTACT_PGS || lucid_contact_pair_check(o->model, o->solver) != LUCID_OK)
        return 0;
    if (!(o->relaxation > 0.0 && o->relaxation < 2.0) || o->max_iter < 0 || !(o->tol >= 0.0))
        return 0;
    if (p->n > 0 && p->dof && (!p->side_at || (!p->mass_at && p->M))) return 0;
    if (!lucid_sparse_dim_valid(p->dim)) return 0;
    for (int s = 0; s < 2 * p->n; ++s)
        if (p->body[s] >= p->num_bodies) return 0;
    return lucid_contact_sparse_work_size_dim(p->n, lucid_sparse_dim(p), lucid_sparse_columns(p)) >
           0;
}

lucid_status lucid_contact_solve_pgs_sparse(const lucid_contact_sparse_problem *p,
                                            const lucid_contact_options *o, double *work,
                                            double *lambda, lucid_contact_result *result) {
    if (!result) return LUCID_ERR_ARGUMENT;
    memset(result, 0, sizeof *result);
    if (!valid(p, o, work, lambda)) return LUCID_ERR_ARGUMENT;
    int dim = lucid_sparse_dim(p);
    size_t m = lucid_sparse_rows(p), dd = (size_t)(dim * dim);
    if (!o->warm_start) memset(lambda, 0, sizeof(double) * m);
    double *u = work, *sigma = work + lucid_sparse_columns(p), *diag = sigma + m;
    /* the criteria read n, g, mu and R only: no G */
    lucid_contact_problem dense = {p->n, NULL, p->g, p->mu, p->R, dim};
    lucid_contact_run run = {&dense, o, NULL, result, lucid_contact_model_criterion(o->model)};
    for (int i = 0; i < p->n; ++i) diagonal_block(p, i, diag + dd * (size_t)i);
    lucid_contact_sparse_velocity(p, lambda, u, sigma);
    if (lucid_contact_check(&run, lambda, sigma)) {
        result->converged = 1;
        return LUCID_OK;
    }
    double w = o->relaxation;
    for (int k = 1; k <= o->max_iter; ++k) {
        double change = 0.0;
        for (int i = 0; i < p->n; ++i) {
            double *li = lambda + (size_t)dim * (size_t)i, l[6], s[6], delta[6];
            memcpy(l, li, sizeof(double) * (size_t)dim);
            contact_velocity(p, i, u, lambda, s);
            lucid_contact_pgs_update(dim, o->model, p->mu[i], diag + dd * (size_t)i, s, l);
            for (int a = 0; a < dim; ++a) {
                delta[a] = w * (l[a] - li[a]);
                li[a] += delta[a];
                change = lucid_contact_fmax(change, fabs(delta[a]));
            }
            for (int side = 2 * i; side < 2 * i + 2; ++side)
                if (p->body[side] >= 0) scatter_side(p, side, delta, u);
        }
        result->iterations = k;
        for (int i = 0; i < p->n; ++i)
            contact_velocity(p, i, u, lambda, sigma + (size_t)dim * (size_t)i);
        if (lucid_contact_check(&run, lambda, sigma)) {
            result->converged = 1;
            break;
        }
        if (lucid_contact_stalled(change, lucid_contact_max_abs(lambda, (long)m), o->stall_tol)) {
            result->stalled = 1;
            break;
        }
    }
    /* u rebuilt from lambda: the report has no incremental drift */
    lucid_contact_sparse_velocity(p, lambda, u, sigma);
    result->converged = lucid_contact_check(&run, lambda, sigma);
    for (size_t k = 0; k < m; ++k)
        if (!isfinite(lambda[k]) || !isfinite(sigma[k])) {
            memset(lambda, 0, sizeof(double) * m);
            result->diverged = 1, result->converged = 0, result->stalled = 0;
            lucid_contact_sparse_velocity(p, lambda, u, sigma);
            lucid_contact_check(&run, lambda, sigma);
            break;
        }
    return LUCID_OK;
}
