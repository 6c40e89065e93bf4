/* The LTDL factorisation M = L^T D L of the mass matrix and its solves (dynamics.h;
 * Featherstone, RBDA Sec. 6.3, Table 6.4 and 6.5). Row k of L holds the entries L(k, a) for the
 * ancestors a of dof k, nearest first (model_internal.h), so every loop below walks the
 * parent array and nothing else. */
#include <math.h>

#include "runtime/model/dynamics.h"
#include "runtime/model/model_internal.h"

/* For k = nv-1 .. 0, for each ancestor i of k: a = H_ki / H_kk, H_ij -= a H_kj for j = i and
 * the ancestors of i, H_ki = a; then D = diag(H), L = the strictly lower part. */
void lucid_model_ltdl(const lucid_model *m, lucid_model_data *d) {
    size_t nv = m->nv;
    const int *par = m->dof_parent;
    const size_t *st = m->ltdl_start;
    for (size_t k = 0; k < nv; ++k) {
        d->D[k] = d->M[k + nv * k];
        size_t p = st[k];
        for (int a = par[k]; a >= 0; a = par[a]) d->L[p++] = d->M[k + nv * (size_t)a];
    }
    for (size_t k = nv; k-- > 0;) {
        double *Lk = d->L + st[k];
        size_t depth = st[k + 1] - st[k];
        size_t p = 0;
        for (int i = par[k]; i >= 0; i = par[i], ++p) {
            double a = Lk[p] / d->D[k];
            d->D[i] -= Lk[p] * a;
            double *Li = d->L + st[i];
            for (size_t t = 0; p + 1 + t < depth; ++t) Li[t] -= Lk[p + 1 + t] * a;
            Lk[p] = a;
        }
    }
}

/* The solves take the right-hand sides three at a time (a contact row's three directions), with
 * one walk of the parent array for the three: the walk is a chain of dependent loads and a
 * column's sum a chain of dependent adds, so one column alone runs at their latency. Each
 * column's arithmetic is the one it had alone, in the same order. */

/* L^-T on columns y0, y1, y2 (y1 = y2 = NULL: y0 alone) over dofs [lo, hi), entry k at
 * y[k - lo]: a range closed under dof_parent (whole subtrees hanging from the root). */
static void solve_lt_columns(const lucid_model *m, const lucid_model_data *d, size_t lo, size_t hi,
                             double *y0, double *y1, double *y2) {
    const int *par = m->dof_parent;
    for (size_t k = hi; k-- > lo;) {
        const double *Lk = d->L + m->ltdl_start[k];
        double a0 = y0[k - lo], a1 = y1 ? y1[k - lo] : 0.0, a2 = y2 ? y2[k - lo] : 0.0;
        if (a0 == 0.0 && a1 == 0.0 && a2 == 0.0) continue; /* J^T's rows reach only ancestors */
        size_t p = 0;
        if (!y1)
            for (int a = par[k]; a >= 0; a = par[a]) y0[(size_t)a - lo] -= Lk[p++] * a0;
        else
            for (int a = par[k]; a >= 0; a = par[a], ++p) {
                size_t i = (size_t)a - lo;
                y0[i] -= Lk[p] * a0, y1[i] -= Lk[p] * a1, y2[i] -= Lk[p] * a2;
            }
    }
}

/* x <- L^-T x: for k = nv-1 .. 0, x_a -= L(k, a) x_k over the ancestors a of k. */
static void ltdl_solve_lt(const lucid_model *m, const lucid_model_data *d, double *x, size_t ld,
                          size_t nrhs) {
    size_t c = 0;
    for (; c + 3 <= nrhs; c += 3)
        solve_lt_columns(m, d, 0, m->nv, x + c * ld, x + (c + 1) * ld, x + (c + 2) * ld);
    for (; c < nrhs; ++c) solve_lt_columns(m, d, 0, m->nv, x + c * ld, NULL, NULL);
}

/* L^-1 on columns y0, y1, y2 (y1 = y2 = NULL: y0 alone) over dofs [lo, hi) as above. */
static void solve_l_columns(const lucid_model *m, const lucid_model_data *d, size_t lo, size_t hi,
                            double *y0, double *y1, double *y2) {
    const int *par = m->dof_parent;
    for (size_t k = lo; k < hi; ++k) {
        const double *Lk = d->L + m->ltdl_start[k];
        size_t p = 0;
        if (!y1) {
            double s0 = y0[k - lo];
            for (int a = par[k]; a >= 0; a = par[a]) s0 -= Lk[p++] * y0[(size_t)a - lo];
            y0[k - lo] = s0;
            continue;
        }
        double s0 = y0[k - lo], s1 = y1[k - lo], s2 = y2[k - lo];
        for (int a = par[k]; a >= 0; a = par[a], ++p) {
            size_t i = (size_t)a - lo;
            s0 -= Lk[p] * y0[i], s1 -= Lk[p] * y1[i], s2 -= Lk[p] * y2[i];
        }
        y0[k - lo] = s0, y1[k - lo] = s1, y2[k - lo] = s2;
    }
}

/* x <- L^-1 x: for k = 0 .. nv-1, x_k -= sum over the ancestors a of L(k, a) x_a. */
static void ltdl_solve_l(const lucid_model *m, const lucid_model_data *d, double *x, size_t ld,
                         size_t nrhs) {
    size_t c = 0;
    for (; c + 3 <= nrhs; c += 3)
        solve_l_columns(m, d, 0, m->nv, x + c * ld, x + (c + 1) * ld, x + (c + 2) * ld);
    for (; c < nrhs; ++c) solve_l_columns(m, d, 0, m->nv, x + c * ld, NULL, NULL);
}

/* x <- D^-1 x */
static void ltdl_solve_d(const lucid_model *m, const lucid_model_data *d, double *x, size_t ld,
                         size_t nrhs) {
    for (size_t c = 0; c < nrhs; ++c)
        for (size_t k = 0; k < m->nv; ++k) x[c * ld + k] /= d->D[k];
}

/* x <- M^-1 x = L^-1 D^-1 L^-T x */
void lucid_model_mass_solve(const lucid_model *m, const lucid_model_data *d, double *x, size_t ld,
                            size_t nrhs) {
    ltdl_solve_lt(m, d, x, ld, nrhs);
    ltdl_solve_d(m, d, x, ld, nrhs);
    ltdl_solve_l(m, d, x, ld, nrhs);
}

/* x <- M^-1 x on dofs [lo, hi) (dynamics.h): each column's arithmetic as mass_solve's. */
void lucid_model_mass_solve_range(const lucid_model *m, const lucid_model_data *d, size_t lo,
                                  size_t hi, double *x, size_t ld, size_t nrhs) {
    size_t c = 0;
    for (; c + 3 <= nrhs; c += 3) {
        double *y0 = x + c * ld, *y1 = y0 + ld, *y2 = y1 + ld;
        solve_lt_columns(m, d, lo, hi, y0, y1, y2);
        for (size_t k = lo; k < hi; ++k)
            y0[k - lo] /= d->D[k], y1[k - lo] /= d->D[k], y2[k - lo] /= d->D[k];
        solve_l_columns(m, d, lo, hi, y0, y1, y2);
    }
    for (; c < nrhs; ++c) {
        double *y = x + c * ld;
        solve_lt_columns(m, d, lo, hi, y, NULL, NULL);
        for (size_t k = lo; k < hi; ++k) y[k - lo] /= d->D[k];
        solve_l_columns(m, d, lo, hi, y, NULL, NULL);
    }
}

/* x <- D^-1/2 L^-T x */
void lucid_model_ltdl_half_solve(const lucid_model *m, const lucid_model_data *d, double *x,
                                 size_t ld, size_t nrhs) {
    ltdl_solve_lt(m, d, x, ld, nrhs);
    for (size_t c = 0; c < nrhs; ++c)
        for (size_t k = 0; k < m->nv; ++k) x[c * ld + k] /= sqrt(d->D[k]);
}

/* y = L^T D L x: t = L x (t_k = x_k + sum_a L(k, a) x_a), t *= D, y = L^T t. */
void lucid_model_mass_multiply(const lucid_model *m, const lucid_model_data *d, const double *x,
                               double *y, size_t ld, size_t nrhs) {
    const int *par = m->dof_parent;
    for (size_t c = 0; c < nrhs; ++c) {
        const double *xc = x + c * ld;
        double *yc = y + c * ld;
        for (size_t k = 0; k < m->nv; ++k) {
            const double *Lk = d->L + m->ltdl_start[k];
            double s = xc[k];
            size_t p = 0;
            for (int a = par[k]; a >= 0; a = par[a]) s += Lk[p++] * xc[a];
            yc[k] = s * d->D[k];
        }
        /* ascending: y_k is still t_k when it is spread to k's ancestors */
        for (size_t k = 0; k < m->nv; ++k) {
            const double *Lk = d->L + m->ltdl_start[k];
            size_t p = 0;
            for (int a = par[k]; a >= 0; a = par[a]) yc[a] += Lk[p++] * yc[k];
        }
    }
}
