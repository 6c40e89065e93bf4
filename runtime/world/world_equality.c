/* Equality constraints of a model in the world (connect, weld, joint couplings, URDF mimic;
 * compiled in runtime/model/model_equality.c) as hard bilateral rows, eliminated from the
 * model's joint-space KKT system by their Schur complement:
 *
 *   E: the k rows' Jacobian over the model's dofs, phi their violation at this step's q,
 *   F = M~^-1 E^T, S = E F,  P = M~^-1 - F S^+ F^T  (the constrained mobility),
 *
 * so wherever the world applies M~^-1 (free velocity, the contact rows' Y = M~^-1 J^T, the
 * summed contact impulses) it applies P, and the free velocity is projected onto E v_free = 0.
 * E P = 0, so contact impulses keep E v+ = 0 and the contact solver sees the Delassus matrix
 * J P J^T of the constrained mechanism. The rows join whole trees (world_model.c's
 * find_trees), so P stays block diagonal over the model's trees.
 *
 * Drift: after q+ = q (+) dt v+ the rows' second-order error (about (dt w)^2 times the
 * mechanism's size) and any violation the state started with are removed at the position
 * level by Gauss-Newton steps q <- q (+) (-F S^+ phi(q)) (post-stabilisation, Cline and Pai
 * 2003): a bilateral row has no side to rest on, and a position projection corrects fully in
 * one step without adding velocity, where a velocity bias -phi/dt would add kinetic energy.
 *
 * S is singular where rows are redundant (a planar four-bar's 3-row connect has rank 2): S^+ is
 * a diagonally pivoted Cholesky factor of S that stops at the first pivot at or below
 * k eps max diag(S) of the pivot's tree (LAPACK dpstrf's default tolerance), the dropped rows'
 * multipliers zero. Any solution of S lambda = b gives the same E^T lambda, so P does not depend
 * on which of the redundant rows is dropped. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/math/so3.h"
#include "runtime/model/configuration.h"
#include "runtime/model/dynamics.h"
#include "runtime/model/model.h"
#include "runtime/world/world_internal.h"

/* *n += a b, 0 when it overflows. */
static int add_product(size_t *n, size_t a, size_t b) {
    if (a != 0 && b > SIZE_MAX / a) return 0;
    if (a * b > SIZE_MAX - *n) return 0;
    *n += a * b;
    return 1;
}

/* The doubles of the workspace: E (k nv), F (nv k), L (k k), phi, y, lambda, scale, z (k
 * each); dq (nv), q_prev (nq). */
static int workspace_size(size_t k, size_t nv, size_t nq, size_t *n) {
    *n = 0;
    return add_product(n, 2 * k, nv) && add_product(n, k, k) && add_product(n, 5, k) &&
           add_product(n, 1, nv) && add_product(n, 1, nq) && *n <= SIZE_MAX / sizeof(double);
}

lucid_status lucid_world_equality_allocate(lucid_world_model *wm) {
    size_t k = lucid_model_equality_rows(wm->model), nv = lucid_model_nv(wm->model), n;
    size_t nq = lucid_model_nq(wm->model);
    wm->eq = NULL, wm->eq_piv = NULL, wm->eq_rank = 0;
    if (k == 0) return LUCID_OK;
    if (k > SIZE_MAX / 2 || !workspace_size(k, nv, nq, &n)) return LUCID_ERR_NO_MEMORY;
    wm->eq = calloc(n, sizeof(double));
    wm->eq_piv = calloc(k, sizeof(size_t));
    return wm->eq && wm->eq_piv ? LUCID_OK : LUCID_ERR_NO_MEMORY;
}

void lucid_world_equality_free(lucid_world_model *wm) {
    free(wm->eq);
    free(wm->eq_piv);
    wm->eq = NULL, wm->eq_piv = NULL;
}

typedef struct eq_views {
    size_t k, nv;
    double *E, *F, *L, *phi, *y, *lambda, *scale, *z, *dq, *q_prev;
} eq_views;

static eq_views views(const lucid_world_model *wm) {
    eq_views v;
    v.k = lucid_model_equality_rows(wm->model), v.nv = lucid_model_nv(wm->model);
    v.E = wm->eq, v.F = v.E + v.k * v.nv, v.L = v.F + v.k * v.nv, v.phi = v.L + v.k * v.k;
    v.y = v.phi + v.k, v.lambda = v.y + v.k, v.scale = v.lambda + v.k;
    v.z = v.scale + v.k, v.dq = v.z + v.k, v.q_prev = v.dq + v.nv;
    return v;
}

/* Pivoted Cholesky of S (k x k, column-major in L, overwritten by the factor of its leading
 * rank x rank block in pivot order); piv: the rows in pivot order. */
static size_t pivoted_cholesky(double *L, size_t k, const double *scale, size_t *piv) {
    for (size_t i = 0; i < k; ++i) piv[i] = i;
    for (size_t j = 0; j < k; ++j) {
        size_t p = j; /* the largest remaining diagonal relative to its tree's scale */
        for (size_t i = j + 1; i < k; ++i)
            if (L[i + k * i] * scale[piv[p]] > L[p + k * p] * scale[piv[i]]) p = i;
        if (!(L[p + k * p] > (double)k * DBL_EPSILON * scale[piv[p]])) return j;
        if (p != j) { /* symmetric swap of rows and columns j, p */
            for (size_t i = 0; i < k; ++i) {
                double t = L[j + k * i];
                L[j + k * i] = L[p + k * i], L[p + k * i] = t;
            }
            for (size_t i = 0; i < k; ++i) {
                double t = L[i + k * j];
                L[i + k * j] = L[i + k * p], L[i + k * p] = t;
            }
            size_t t = piv[j];
            piv[j] = piv[p], piv[p] = t;
        }
        double d = sqrt(L[j + k * j]);
        L[j + k * j] = d;
        for (size_t i = j + 1; i < k; ++i) L[i + k * j] /= d;
        for (size_t c = j + 1; c < k; ++c)
            for (size_t i = c; i < k; ++i) {
                L[i + k * c] -= L[i + k * j] * L[c + k * j];
                L[c + k * i] = L[i + k * c];
            }
    }
    return k;
}

/* lambda = S^+ b through the pivoted factor (the dropped rows' multipliers zero); b and lambda
 * distinct from v->z. */
static void solve_s(const lucid_world_model *wm, const eq_views *v, const double *b,
                    double *lambda) {
    size_t k = v->k, r = wm->eq_rank;
    const size_t *piv = wm->eq_piv;
    double *z = v->z;
    for (size_t i = 0; i < r; ++i) { /* L z = (P b) */
        double s = b[piv[i]];
        for (size_t j = 0; j < i; ++j) s -= v->L[i + k * j] * z[j];
        z[i] = s / v->L[i + k * i];
    }
    for (size_t i = r; i-- > 0;) { /* L^T z' = z */
        double s = z[i];
        for (size_t j = i + 1; j < r; ++j) s -= v->L[j + k * i] * z[j];
        z[i] = s / v->L[i + k * i];
    }
    for (size_t i = 0; i < k; ++i) lambda[i] = 0.0;
    for (size_t i = 0; i < r; ++i) lambda[piv[i]] = z[i];
}

/* E, phi, F, S and its factor at the configuration the model's data is posed at. */
static void assemble(lucid_world_model *wm, const eq_views *v) {
    const lucid_model *m = wm->model;
    size_t row = 0, neq = lucid_model_nequalities(m);
    lucid_model_equality_jacobian(m, wm->data, wm->q, v->E, v->phi);
    memcpy(v->F, v->E, v->k * v->nv * sizeof(double)); /* row i of E = column i of F */
    lucid_model_mass_solve(m, wm->data, v->F, v->nv, v->k);
    for (size_t j = 0; j < v->k; ++j)
        for (size_t i = 0; i < v->k; ++i) {
            double s = 0.0;
            for (size_t c = 0; c < v->nv; ++c) s += v->E[i * v->nv + c] * v->F[c + v->nv * j];
            v->L[i + v->k * j] = s;
        }
    /* each row's scale: the largest diagonal of S among the rows of its tree */
    for (size_t i = 0; i < neq; ++i) {
        size_t lo, rows;
        lucid_model_equality_span(m, i, &lo, &rows);
        int t = wm->dof_tree[lo];
        double s = 0.0;
        size_t r2 = 0;
        for (size_t e = 0; e < neq; ++e) {
            size_t lo_e, rows_e;
            lucid_model_equality_span(m, e, &lo_e, &rows_e);
            if (wm->dof_tree[lo_e] == t)
                for (size_t d = 0; d < rows_e; ++d) s = fmax(s, v->L[(r2 + d) * (v->k + 1)]);
            r2 += rows_e;
        }
        for (size_t d = 0; d < rows; ++d) v->scale[row + d] = s;
        row += rows;
    }
    wm->eq_rank = pivoted_cholesky(v->L, v->k, v->scale, wm->eq_piv);
}

void lucid_world_equality_prepare(lucid_world_model *wm) {
    if (lucid_model_equality_rows(wm->model) == 0) return;
    eq_views v = views(wm);
    assemble(wm, &v);
}

/* The largest |phi| entry. */
static double residual(const eq_views *v) {
    double worst = 0.0;
    for (size_t i = 0; i < v->k; ++i) worst = fmax(worst, fabs(v->phi[i]));
    return worst;
}

void lucid_world_equality_stabilise(lucid_world_model *wm) {
    const lucid_model *m = wm->model;
    if (lucid_model_equality_rows(m) == 0) return;
    eq_views v = views(wm);
    lucid_model_forward_kinematics(m, wm->data, wm->q);
    assemble(wm, &v);
    double res = residual(&v);
    for (int it = 0; it < LUCID_WORLD_EQUALITY_PROJECTIONS && res > 0.0; ++it) {
        for (size_t i = 0; i < v.k; ++i) v.y[i] = -v.phi[i];
        solve_s(wm, &v, v.y, v.lambda); /* dq = -F S^+ phi: the M~-least change */
        memset(v.dq, 0, v.nv * sizeof(double));
        for (size_t i = 0; i < v.k; ++i)
            for (size_t j = 0; j < v.nv; ++j) v.dq[j] += v.F[v.nv * i + j] * v.lambda[i];
        memcpy(v.q_prev, wm->q, lucid_model_nq(m) * sizeof(double));
        lucid_model_integrate(m, wm->q, v.dq, 1.0, wm->q);
        lucid_model_forward_kinematics(m, wm->data, wm->q);
        assemble(wm, &v);
        double next = residual(&v);
        if (!(next < res)) { /* no better (round-off, or far from the rows' manifold): undo */
            memcpy(wm->q, v.q_prev, lucid_model_nq(m) * sizeof(double));
            lucid_model_forward_kinematics(m, wm->data, wm->q);
            break;
        }
        if (!(next < 0.5 * res)) break; /* at round-off: Newton no longer contracts */
        res = next;
    }
}

/* S = d stabilise(q_pre (+) d) / dd at d = 0 (nv x nv, column-major), read as a tangent at
 * q1 = stabilise(q_pre), by central differences of step h: the step derivatives chain it after
 * the integrator's Jacobians. The Gauss-Newton projection runs to round-off, so it is the
 * smooth map onto the rows' manifold (its iteration count changes nothing above round-off).
 * scratch: nq + 2 nv doubles. Leaves wm->q = q1, the data posed there. */
void lucid_world_equality_stabilise_jacobian(lucid_world_model *wm, const double *q_pre, double h,
                                             double *S, double *scratch) {
    const lucid_model *m = wm->model;
    size_t nq = lucid_model_nq(m), nv = lucid_model_nv(m);
    double *q1 = scratch, *d = q1 + nq, *minus = d + nv;
    memcpy(wm->q, q_pre, nq * sizeof(double));
    lucid_world_equality_stabilise(wm);
    memcpy(q1, wm->q, nq * sizeof(double));
    for (size_t j = 0; j < nv; ++j) {
        double *col = S + nv * j;
        for (int side = 0; side < 2; ++side) {
            memset(d, 0, nv * sizeof(double));
            d[j] = side == 0 ? h : -h;
            lucid_model_integrate(m, q_pre, d, 1.0, wm->q);
            lucid_world_equality_stabilise(wm);
            lucid_model_difference(m, q1, wm->q, side == 0 ? col : minus);
        }
        for (size_t i = 0; i < nv; ++i) col[i] = (col[i] - minus[i]) / (2.0 * h);
    }
    memcpy(wm->q, q1, nq * sizeof(double));
    lucid_model_forward_kinematics(m, wm->data, wm->q);
}

/* X (columns over the dofs [lo, lo + width), leading dimension ld) <- X - F S^+ E X. */
void lucid_world_equality_project(const lucid_world_model *wm, size_t lo, size_t width, double *X,
                                  size_t ld, size_t ncol) {
    if (lucid_model_equality_rows(wm->model) == 0) return;
    eq_views v = views(wm);
    for (size_t c = 0; c < ncol; ++c) {
        double *x = X + c * ld;
        for (size_t i = 0; i < v.k; ++i) {
            double s = 0.0;
            const double *e = v.E + i * v.nv + lo;
            for (size_t j = 0; j < width; ++j) s += e[j] * x[j];
            v.y[i] = s;
        }
        solve_s(wm, &v, v.y, v.lambda);
        for (size_t i = 0; i < v.k; ++i) {
            if (v.lambda[i] == 0.0) continue;
            const double *f = v.F + v.nv * i + lo;
            for (size_t j = 0; j < width; ++j) x[j] -= f[j] * v.lambda[i];
        }
    }
}

void lucid_world_equality_free_velocity(lucid_world_model *wm) {
    if (lucid_model_equality_rows(wm->model) == 0) return;
    eq_views v = views(wm);
    for (size_t i = 0; i < v.k; ++i) { /* b = -E v_free */
        double s = 0.0;
        for (size_t j = 0; j < v.nv; ++j) s -= v.E[i * v.nv + j] * wm->v_free[j];
        v.y[i] = s;
    }
    solve_s(wm, &v, v.y, v.lambda);
    for (size_t i = 0; i < v.k; ++i)
        for (size_t j = 0; j < v.nv; ++j) wm->v_free[j] += v.F[v.nv * i + j] * v.lambda[i];
}

int lucid_world_models_have_equalities(const lucid_world *w) {
    for (int i = 0; i < w->num_models; ++i)
        if (lucid_model_equality_rows(w->models[i].model) > 0) return 1;
    return 0;
}

/* The tree of equality row `row` (an equality's dofs lie in one tree, find_trees). */
static int row_tree(const lucid_world_model *wm, size_t row) {
    const lucid_model *m = wm->model;
    for (size_t e = 0, at = 0, lo, rows; e < lucid_model_nequalities(m); ++e, at += rows) {
        lucid_model_equality_span(m, e, &lo, &rows);
        if (row < at + rows) return wm->dof_tree[lo];
    }
    return -1;
}

size_t lucid_world_equality_tree_rank(const lucid_world_model *wm, int t) {
    size_t r = 0;
    for (size_t i = 0; i < wm->eq_rank; ++i) r += row_tree(wm, wm->eq_piv[i]) == t;
    return r;
}

/* Householder QR of A = E_t^T (width x r, column-major; tree t's independent rows over its
 * dofs): A = Q [R; 0], the reflectors v_j (unit, zero above j) left in A's columns; Z = the
 * last width - r columns of Q = H_0 ... H_{r-1} [0; I], applied from H_{r-1} down. */
void lucid_world_equality_null_basis(const lucid_world_model *wm, int t, double *Z,
                                     double *scratch) {
    size_t nv = lucid_model_nv(wm->model), lo = wm->tree_dof[t];
    size_t width = wm->tree_dof[t + 1] - lo, r = 0;
    double *A = scratch;
    for (size_t i = 0; i < wm->eq_rank; ++i)
        if (row_tree(wm, wm->eq_piv[i]) == t)
            memcpy(A + width * r++, wm->eq + wm->eq_piv[i] * nv + lo, width * sizeof(double));
    for (size_t j = 0; j < r; ++j) {
        double *v = A + width * j, norm = 0.0;
        for (size_t i = j; i < width; ++i) norm = hypot(norm, v[i]);
        for (size_t i = 0; i < j; ++i) v[i] = 0.0;
        if (norm == 0.0) continue;          /* not reached: the factor's rows are independent */
        v[j] += v[j] >= 0.0 ? norm : -norm; /* v = x + sign(x_j) |x| e_j */
        double vv = 0.0;
        for (size_t i = j; i < width; ++i) vv = hypot(vv, v[i]);
        for (size_t i = j; i < width; ++i) v[i] /= vv;
        for (size_t c = j + 1; c < r; ++c) { /* A_c -= 2 v (v . A_c) */
            double *a = A + width * c, s = 0.0;
            for (size_t i = j; i < width; ++i) s += v[i] * a[i];
            for (size_t i = j; i < width; ++i) a[i] -= 2.0 * s * v[i];
        }
    }
    for (size_t c = r; c < width; ++c) {
        double *z = Z + width * (c - r);
        memset(z, 0, width * sizeof(double));
        z[c] = 1.0;
        for (size_t j = r; j-- > 0;) {
            const double *v = A + width * j;
            double s = 0.0;
            for (size_t i = j; i < width; ++i) s += v[i] * z[i];
            for (size_t i = j; i < width; ++i) z[i] -= 2.0 * s * v[i];
        }
    }
}
