/* The velocity-space operator of the sparse contact problem (contact_sparse.h): J, J^T and
 * G + R = J M^-1 J^T + R applied through the dim x w blocks (3, 4 or 6 rows) of each contact side
 * (w the width of its slot: 6 for a free body, nv for a robot). */
#include <string.h>

#include "solvers/contact/contact_sparse.h"

/* out[k] += sum_d B[d w + k] y[d] for lo <= k < hi (B^T y, B a row-major dim x w block) */
static void block_transpose_times(const double *B, int dim, size_t w, size_t lo, size_t hi,
                                  const double *y, double *out) {
    for (size_t k = lo; k < hi; ++k) out[k] += B[k] * y[0] + B[w + k] * y[1] + B[2 * w + k] * y[2];
    for (int d = 3; d < dim; ++d)
        for (size_t k = lo; k < hi; ++k) out[k] += B[(size_t)d * w + k] * y[d];
}

/* out[d] += sum over lo <= k < hi of B[d w + k] x[k] (B x, B a row-major dim x w block) */
static void block_times(const double *B, int dim, size_t w, size_t lo, size_t hi, const double *x,
                        double *out) {
    for (int d = 0; d < dim; ++d) {
        const double *r = B + (size_t)d * w;
        double v = 0.0;
        for (size_t k = lo; k < hi; ++k) v += r[k] * x[k];
        out[d] += v;
    }
}

/* f (the columns of p) = sum over sides of B_s^T y_contact(s), B: p's J (w = 0) or W (w = 1) */
static void transpose_times(const lucid_contact_sparse_problem *p, const double *B, int w,
                            const double *y, double *f) {
    memset(f, 0, sizeof(double) * lucid_sparse_columns(p));
    for (int s = 0; s < 2 * p->n; ++s) {
        int b = p->body[s];
        if (b < 0) continue;
        size_t lo, hi;
        lucid_sparse_span(p, s, w, &lo, &hi);
        int dim = lucid_sparse_dim(p);
        block_transpose_times(B + lucid_sparse_side_at(p, s), dim, lucid_sparse_width(p, b), lo, hi,
                              y + (size_t)dim * (size_t)(s / 2), f + lucid_sparse_begin(p, b));
    }
}

void lucid_contact_sparse_jt(const lucid_contact_sparse_problem *p, const double *y, double *f) {
    transpose_times(p, p->J, 0, y, f);
}

void lucid_contact_sparse_j(const lucid_contact_sparse_problem *p, const double *u, double *y) {
    int dim = lucid_sparse_dim(p);
    memset(y, 0, sizeof(double) * lucid_sparse_rows(p));
    for (int s = 0; s < 2 * p->n; ++s) {
        int b = p->body[s];
        if (b < 0) continue;
        size_t lo, hi;
        lucid_sparse_span(p, s, 0, &lo, &hi);
        block_times(p->J + lucid_sparse_side_at(p, s), dim, lucid_sparse_width(p, b), lo, hi,
                    u + lucid_sparse_begin(p, b), y + (size_t)dim * (size_t)(s / 2));
    }
}

void lucid_contact_sparse_apply(const lucid_contact_sparse_problem *p, const double *x, double *u,
                                double *y) {
    transpose_times(p, p->W, 1, x, u); /* u = W^T x = M^-1 J^T x */
    lucid_contact_sparse_j(p, u, y);
    if (p->R)
        for (size_t k = 0; k < lucid_sparse_rows(p); ++k) y[k] += p->R[k] * x[k];
}

int lucid_contact_sparse_has(lucid_contact_model model, lucid_contact_solver solver) {
    if (lucid_contact_pair_check(model, solver) != LUCID_OK) return 0;
    return solver == LUCID_CONTACT_PGS ||
           (solver == LUCID_CONTACT_ADMM &&
            (model == LUCID_CONTACT_CCP || model == LUCID_CONTACT_NCP)) ||
           (solver == LUCID_CONTACT_NEWTON &&
            (model == LUCID_CONTACT_CCP || model == LUCID_CONTACT_NCP)) ||
           (solver == LUCID_CONTACT_IP &&
            (model == LUCID_CONTACT_CCP || model == LUCID_CONTACT_NCP));
}

/* block (i, j) of G += J_s W_t^T (dim x dim) over the columns where both may be non-zero (sides s
 * and t on the same body slot) */
static void add_side_product(const lucid_contact_sparse_problem *p, int s, int t, double *G,
                             size_t m) {
    size_t w = lucid_sparse_width(p, p->body[s]), lo_j, hi_j, lo_w, hi_w;
    lucid_sparse_span(p, s, 0, &lo_j, &hi_j);
    lucid_sparse_span(p, t, 1, &lo_w, &hi_w);
    size_t lo = lo_j > lo_w ? lo_j : lo_w, hi = hi_j < hi_w ? hi_j : hi_w;
    const double *J = p->J + lucid_sparse_side_at(p, s), *W = p->W + lucid_sparse_side_at(p, t);
    size_t dim = (size_t)lucid_sparse_dim(p), i = dim * (size_t)(s / 2), j = dim * (size_t)(t / 2);
    for (size_t a = 0; a < dim; ++a)
        for (size_t b = 0; b < dim; ++b) {
            double v = 0.0;
            for (size_t k = lo; k < hi; ++k) v += J[a * w + k] * W[b * w + k];
            G[(i + a) + m * (j + b)] += v;
        }
}

/* G = J M^-1 J^T: the blocks on and above the diagonal from the sides sharing a body slot,
 * the ones below mirrored (G is symmetric) */
void lucid_contact_sparse_delassus(const lucid_contact_sparse_problem *p, double *G) {
    size_t m = lucid_sparse_rows(p);
    memset(G, 0, sizeof(double) * m * m);
    for (int s = 0; s < 2 * p->n; ++s) {
        if (p->body[s] < 0) continue;
        for (int t = 2 * (s / 2); t < 2 * p->n; ++t)
            if (p->body[t] == p->body[s]) add_side_product(p, s, t, G, m);
    }
    for (size_t c = 0; c < m; ++c) /* below from above; the diagonal blocks' lower parts too */
        for (size_t r = c + 1; r < m; ++r) G[r + m * c] = G[c + m * r];
}
