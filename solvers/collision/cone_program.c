/* Primal-dual interior-point method for small cone programs (cone_program.h). */
#include "solvers/collision/cone_program.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define MAXN LUCID_CONE_MAX_VARS
#define MAXM LUCID_CONE_MAX_ROWS

/* Iterative-refinement passes of the Jordan-phase and sensitivity solves on the unreduced
 * system (a second pass changed no test result and cost 10% of the query). The
 * Nesterov-Todd phase stops at a residual of 1e-8 (JORDAN_SWITCH), where its normal
 * equations are still accurate enough unrefined. */
#define JORDAN_REFINE_STEPS 1

typedef struct direction {
    double x[MAXN], s[MAXM], z[MAXM];
} direction;

/* ---- one block (a second-order cone of size k; k = 1 is the ray) --------------------- */

/* u0^2 - ||u_1:k||^2, in the product form that keeps digits near the boundary. */
static double cone_det(const double *u, int k) {
    double r = 0.0;
    for (int i = 1; i < k; ++i) r += u[i] * u[i];
    r = sqrt(r);
    return (u[0] - r) * (u[0] + r);
}

/* r = x o y: (x.y, x0 y_1:k + y0 x_1:k). */
static void jordan_product(const double *x, const double *y, int k, double *r) {
    double d = 0.0;
    for (int i = 0; i < k; ++i) d += x[i] * y[i];
    for (int i = 1; i < k; ++i) r[i] = x[0] * y[i] + y[0] * x[i];
    r[0] = d;
}

/* u with l o u = r (l in int Q): u0 = (l0 r0 - l_1.r_1) / det l, u_1 = (r_1 - u0 l_1) / l0. */
static void jordan_divide(const double *l, const double *r, int k, double *u) {
    double d = l[0] * r[0];
    for (int i = 1; i < k; ++i) d -= l[i] * r[i];
    double u0 = d / cone_det(l, k);
    for (int i = 1; i < k; ++i) u[i] = (r[i] - u0 * l[i]) / l[0];
    u[0] = u0;
}

/* Nesterov-Todd scaling of (s, z): W = beta (2 v v^T - J) with W z = W^-1 s (CVXOPT, Sec. 4):
 * sb = s / sqrt(det s), zb = z / sqrt(det z), g = sqrt((1 + zb.sb) / 2),
 * w = (sb + J zb) / (2 g), v = (w + e) / sqrt(2 (w0 + 1)), beta = (det s / det z)^(1/4). */
static void nt_scaling(const double *s, const double *z, int k, double *beta, double *v) {
    double ns = sqrt(cone_det(s, k)), nz = sqrt(cone_det(z, k));
    double dot = 0.0;
    for (int i = 0; i < k; ++i) dot += s[i] * z[i];
    double g = sqrt(0.5 * (1.0 + dot / (ns * nz)));
    double w0 = (s[0] / ns + z[0] / nz) / (2.0 * g);
    double scale = 1.0 / sqrt(2.0 * (w0 + 1.0));
    v[0] = (w0 + 1.0) * scale;
    for (int i = 1; i < k; ++i) v[i] = (s[i] / ns - z[i] / nz) / (2.0 * g) * scale;
    *beta = sqrt(ns / nz);
}

/* y = W x = beta (2 v (v.x) - J x). */
static void apply_w(double beta, const double *v, const double *x, int k, double *y) {
    double d = 0.0;
    for (int i = 0; i < k; ++i) d += v[i] * x[i];
    y[0] = beta * (2.0 * v[0] * d - x[0]);
    for (int i = 1; i < k; ++i) y[i] = beta * (2.0 * v[i] * d + x[i]);
}

/* y = W^-1 x = (2 J v ((J v).x) - J x) / beta. */
static void apply_w_inv(double beta, const double *v, const double *x, int k, double *y) {
    double d = v[0] * x[0];
    for (int i = 1; i < k; ++i) d -= v[i] * x[i];
    y[0] = (2.0 * v[0] * d - x[0]) / beta;
    for (int i = 1; i < k; ++i) y[i] = (-2.0 * v[i] * d + x[i]) / beta;
}

/* Largest t with u + t du in Q (u in int Q); INFINITY when the whole ray stays inside.
 * f(t) = det(u + t du) = a t^2 + b t + c with f(0) = c > 0: the first positive root. */
static double max_step_block(const double *u, const double *du, int k) {
    if (k == 1) return du[0] < 0.0 ? -u[0] / du[0] : INFINITY;
    double a = cone_det(du, k), b = u[0] * du[0], c = cone_det(u, k);
    for (int i = 1; i < k; ++i) b -= u[i] * du[i];
    b *= 2.0;
    if (a == 0.0) return b < 0.0 ? -c / b : INFINITY;
    double disc = b * b - 4.0 * a * c;
    if (disc < 0.0) return INFINITY; /* a > 0: f never vanishes (a < 0 would give disc > 0) */
    double q = -0.5 * (b + copysign(sqrt(disc), b));
    double r1 = q / a, r2 = q != 0.0 ? c / q : INFINITY;
    double lo = fmin(r1, r2), hi = fmax(r1, r2);
    if (a < 0.0) return hi; /* one root of each sign */
    return lo > 0.0 ? lo : INFINITY;
}

/* ---- the whole cone -------------------------------------------------------------------- */

static double max_step(const lucid_cone_program *P, const double *u, const double *du) {
    double t = INFINITY;
    for (int b = 0; b < P->num_blocks; ++b) {
        int o = P->block_start[b], k = P->block_start[b + 1] - o;
        t = fmin(t, max_step_block(u + o, du + o, k));
    }
    return t;
}

typedef void (*block_map)(double, const double *, const double *, int, double *);

static void apply_blocks(const lucid_cone_program *P, const lucid_cone_solution *S, block_map f,
                         const double *x, double *y) {
    for (int b = 0; b < P->num_blocks; ++b) {
        int o = P->block_start[b], k = P->block_start[b + 1] - o;
        f(S->beta[b], S->v + o, x + o, k, y + o);
    }
}

/* y = G x */
static void g_mul(const lucid_cone_program *P, const double *x, double *y) {
    for (int i = 0; i < P->m; ++i) {
        double a = 0.0;
        for (int j = 0; j < P->n; ++j) a += P->G[i * P->n + j] * x[j];
        y[i] = a;
    }
}

/* y = G^T x */
static void gt_mul(const lucid_cone_program *P, const double *x, double *y) {
    for (int j = 0; j < P->n; ++j) y[j] = 0.0;
    for (int i = 0; i < P->m; ++i)
        for (int j = 0; j < P->n; ++j) y[j] += P->G[i * P->n + j] * x[i];
}

/* In-place Cholesky of the n x n matrix A (row-major, lower factor kept). */
static int cholesky(double *A, int n) {
    for (int j = 0; j < n; ++j) {
        double d = A[j * n + j];
        for (int k = 0; k < j; ++k) d -= A[j * n + k] * A[j * n + k];
        if (!(d > 0.0)) return 0;
        d = sqrt(d);
        A[j * n + j] = d;
        for (int i = j + 1; i < n; ++i) {
            double a = A[i * n + j];
            for (int k = 0; k < j; ++k) a -= A[i * n + k] * A[j * n + k];
            A[i * n + j] = a / d;
        }
    }
    return 1;
}

static void cholesky_solve(const double *L, int n, double *x) {
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < i; ++k) x[i] -= L[i * n + k] * x[k];
        x[i] /= L[i * n + i];
    }
    for (int i = n - 1; i >= 0; --i) {
        for (int k = i + 1; k < n; ++k) x[i] -= L[k * n + i] * x[k];
        x[i] /= L[i * n + i];
    }
}

/* chol = factor of G^T W^-2 G (W from S). */
static int factor_normal_equations(const lucid_cone_program *P, lucid_cone_solution *S) {
    int n = P->n, m = P->m;
    double col[MAXM], scaled[MAXN][MAXM];
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < m; ++i) col[i] = P->G[i * n + j];
        apply_blocks(P, S, apply_w_inv, col, scaled[j]);
    }
    for (int a = 0; a < n; ++a)
        for (int b = 0; b <= a; ++b) {
            double d = 0.0;
            for (int i = 0; i < m; ++i) d += scaled[a][i] * scaled[b][i];
            S->chol[a * n + b] = S->chol[b * n + a] = d;
        }
    return cholesky(S->chol, n);
}

/* One solve of G^T dz = -rd, G dx + ds = -rp, W^-1 ds + W dz = u by the normal equations. */
static void solve_once(const lucid_cone_program *P, const lucid_cone_solution *S, const double *rd,
                       const double *rp, const double *u, direction *d) {
    int n = P->n, m = P->m;
    double t[MAXM], q[MAXM];
    apply_blocks(P, S, apply_w_inv, rp, t);
    for (int i = 0; i < m; ++i) t[i] += u[i];
    apply_blocks(P, S, apply_w_inv, t, q); /* q = W^-2 rp + W^-1 u */
    gt_mul(P, q, d->x);
    for (int j = 0; j < n; ++j) d->x[j] = -rd[j] - d->x[j];
    cholesky_solve(S->chol, n, d->x);
    g_mul(P, d->x, t);
    for (int i = 0; i < m; ++i) t[i] += rp[i];
    apply_blocks(P, S, apply_w_inv, t, q);
    for (int i = 0; i < m; ++i) q[i] += u[i];
    apply_blocks(P, S, apply_w_inv, q, d->z); /* dz = W^-1 (W^-1 (G dx + rp) + u) */
    apply_blocks(P, S, apply_w, d->z, t);
    for (int i = 0; i < m; ++i) t[i] = u[i] - t[i];
    apply_blocks(P, S, apply_w, t, d->s); /* ds = W (u - W dz) */
}

/* Shifts u into the interior of K: u += (1 + t) e when its smallest eigenvalue -t <= 0. */
static void shift_into_cone(const lucid_cone_program *P, double *u) {
    double t = -INFINITY;
    for (int b = 0; b < P->num_blocks; ++b) {
        int o = P->block_start[b], k = P->block_start[b + 1] - o;
        double r = 0.0;
        for (int i = 1; i < k; ++i) r += u[o + i] * u[o + i];
        t = fmax(t, sqrt(r) - u[o]);
    }
    if (t < 0.0) return;
    for (int b = 0; b < P->num_blocks; ++b) u[P->block_start[b]] += 1.0 + t;
}

/* CVXOPT's starting point: x least squares on G x = h, z least norm on G^T z = -c, both
 * slacks shifted into K. */
static int initial_point(const lucid_cone_program *P, lucid_cone_solution *S) {
    int n = P->n, m = P->m;
    double A[MAXN * MAXN], w[MAXN];
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
            double d = 0.0;
            for (int i = 0; i < m; ++i) d += P->G[i * n + a] * P->G[i * n + b];
            A[a * n + b] = d;
        }
    if (!cholesky(A, n)) return 0;
    gt_mul(P, P->h, S->x);
    cholesky_solve(A, n, S->x);
    g_mul(P, S->x, S->s);
    for (int i = 0; i < m; ++i) S->s[i] = P->h[i] - S->s[i];
    for (int j = 0; j < n; ++j) w[j] = P->c[j];
    cholesky_solve(A, n, w);
    g_mul(P, w, S->z);
    for (int i = 0; i < m; ++i) S->z[i] = -S->z[i];
    shift_into_cone(P, S->s);
    shift_into_cone(P, S->z);
    return 1;
}

/* Residuals rp = G x + s - h, rd = G^T z + c and the KKT residual max(|rp|, |rd|, s.z). */
static double residuals(const lucid_cone_program *P, const lucid_cone_solution *S, double *rp,
                        double *rd, double *gap, double *plain) {
    double r = 0.0, g = 0.0;
    g_mul(P, S->x, rp);
    for (int i = 0; i < P->m; ++i) {
        rp[i] += S->s[i] - P->h[i];
        r = fmax(r, fabs(rp[i]));
        g += S->s[i] * S->z[i];
    }
    gt_mul(P, S->z, rd);
    for (int j = 0; j < P->n; ++j) {
        rd[j] += P->c[j];
        r = fmax(r, fabs(rd[j]));
    }
    *gap = g;
    *plain = fmax(r, g);
    /* complementarity is the whole Jordan product s o z = 0: s.z alone can be ~mu while the
     * rotational part s0 z_1 + z0 s_1 is still ~sqrt(mu) (s and z not yet aligned) */
    double c = g;
    for (int b = 0; b < P->num_blocks; ++b) {
        int o = P->block_start[b], k = P->block_start[b + 1] - o;
        for (int i = 1; i < k; ++i)
            c = fmax(c, fabs(S->s[o] * S->z[o + i] + S->z[o] * S->s[o + i]));
    }
    return fmax(r, c);
}

static void compute_scaling(const lucid_cone_program *P, lucid_cone_solution *S) {
    for (int b = 0; b < P->num_blocks; ++b) {
        int o = P->block_start[b], k = P->block_start[b + 1] - o;
        nt_scaling(S->s + o, S->z + o, k, &S->beta[b], S->v + o);
    }
}

static int valid_program(const lucid_cone_program *P) {
    if (P->n < 1 || P->n > MAXN || P->m < P->n || P->m > MAXM || P->num_blocks < 1 ||
        P->num_blocks > LUCID_CONE_MAX_BLOCKS || P->block_start[0] != 0 ||
        P->block_start[P->num_blocks] != P->m)
        return 0;
    for (int b = 0; b < P->num_blocks; ++b)
        if (P->block_start[b + 1] <= P->block_start[b] ||
            P->block_start[b + 1] - P->block_start[b] > LUCID_CONE_MAX_BLOCK_DIM)
            return 0;
    return 1;
}

/* The Mehrotra corrector's right-hand side u = lambda \ (sigma mu e - lambda o lambda - a o b)
 * with a = W^-1 ds_aff, b = W dz_aff (all per block). */
static void corrector_rhs(const lucid_cone_program *P, const lucid_cone_solution *S,
                          const double *lambda, const direction *aff, double sigma_mu, double *u) {
    double a[MAXM], b[MAXM], r[MAXM], ll[MAXM];
    apply_blocks(P, S, apply_w_inv, aff->s, a);
    apply_blocks(P, S, apply_w, aff->z, b);
    for (int k = 0; k < P->num_blocks; ++k) {
        int o = P->block_start[k], d = P->block_start[k + 1] - o;
        jordan_product(a + o, b + o, d, r + o);
        jordan_product(lambda + o, lambda + o, d, ll + o);
        for (int i = 0; i < d; ++i) r[o + i] = -ll[o + i] - r[o + i];
        r[o] += sigma_mu;
        jordan_divide(lambda + o, r + o, d, u + o);
    }
}

static void take_step(const lucid_cone_program *P, lucid_cone_solution *S, const direction *d,
                      double t) {
    for (int j = 0; j < P->n; ++j) S->x[j] += t * d->x[j];
    for (int i = 0; i < P->m; ++i) {
        S->s[i] += t * d->s[i];
        S->z[i] += t * d->z[i];
    }
}

/* ---- sensitivities: the KKT system linearised with the Jordan product ------------------
 * With ds = r2 - G dx eliminated, the system in (dx, dz) is
 *   [ 0             G^T     ] [dx]   [ r1                ]
 *   [ -Arw(z) G     Arw(s)  ] [dz] = [ r3 - Arw(z) r2    ],  Arw(u) = [[u0, u1^T], [u1, u0 I]]
 * (z o ds = Arw(z) ds). Near the solution Arw(s) of an active block is singular to O(mu),
 * so eliminating every dz (normal equations) loses ~1/mu digits; only the inactive blocks,
 * whose s is well inside the cone (smallest eigenvalue >= z0), are eliminated,
 *   dz_I = Arw(s_I)^-1 (r3_I - Arw(z_I) (r2_I - G_I dx)),
 * and the active ones stay in a small dense system solved by LU with partial pivoting. */

#define MAXK LUCID_CONE_MAX_FACTOR

typedef lucid_cone_factor sensitivity_system;

/* y = Arw(u) x on one block. */
static void arrow_mul(const double *u, const double *x, int k, double *y) {
    jordan_product(u, x, k, y);
}

static double smallest_eigenvalue(const double *u, int k) {
    double r = 0.0;
    for (int i = 1; i < k; ++i) r += u[i] * u[i];
    return u[0] - sqrt(r);
}

/* LU with partial pivoting of the n x n row-major A; 0 when singular. */
static int lu_factor(double *A, int n, int *piv) {
    for (int j = 0; j < n; ++j) {
        int p = j;
        for (int i = j + 1; i < n; ++i)
            if (fabs(A[i * n + j]) > fabs(A[p * n + j])) p = i;
        piv[j] = p;
        if (!(A[p * n + j] != 0.0)) return 0;
        if (p != j)
            for (int l = 0; l < n; ++l) {
                double t = A[j * n + l];
                A[j * n + l] = A[p * n + l];
                A[p * n + l] = t;
            }
        for (int i = j + 1; i < n; ++i) {
            double f = A[i * n + j] /= A[j * n + j];
            for (int l = j + 1; l < n; ++l) A[i * n + l] -= f * A[j * n + l];
        }
    }
    return 1;
}

static void lu_solve(const double *A, int n, const int *piv, double *x) {
    for (int j = 0; j < n; ++j) {
        double t = x[piv[j]];
        x[piv[j]] = x[j];
        x[j] = t;
    }
    for (int i = 0; i < n; ++i)
        for (int l = 0; l < i; ++l) x[i] -= A[i * n + l] * x[l];
    for (int i = n - 1; i >= 0; --i) {
        for (int l = i + 1; l < n; ++l) x[i] -= A[i * n + l] * x[l];
        x[i] /= A[i * n + i];
    }
}

/* Column j of G restricted to block b, mapped by M_b = Arw(s)^-1 Arw(z) into out. */
static void inactive_column(const lucid_cone_program *P, const lucid_cone_solution *S, int b, int j,
                            double *out) {
    int o = P->block_start[b], k = P->block_start[b + 1] - o;
    double g[LUCID_CONE_MAX_BLOCK_DIM], t[LUCID_CONE_MAX_BLOCK_DIM];
    for (int i = 0; i < k; ++i) g[i] = P->G[(o + i) * P->n + j];
    arrow_mul(S->z + o, g, k, t);
    jordan_divide(S->s + o, t, k, out);
}

static int sensitivity_factor(const lucid_cone_program *P, const lucid_cone_solution *S,
                              sensitivity_system *Y) {
    int n = P->n;
    /* active: s nearer the boundary than z is from 0; far from the solution many blocks may
     * qualify, and the threshold is lowered until they fit (eliminating them is then safe) */
    for (double tau = 1.0;; tau *= 0.25) {
        Y->size = n;
        for (int b = 0; b < P->num_blocks; ++b) {
            int o = P->block_start[b], k = P->block_start[b + 1] - o;
            Y->active[b] = smallest_eigenvalue(S->s + o, k) < tau * S->z[o];
            for (int i = o; i < o + k; ++i) Y->row_of[i] = Y->active[b] ? Y->size++ : -1;
        }
        if (Y->size <= MAXK) break;
        if (tau < 1e-300) return 0;
    }
    int N = Y->size;
    for (int i = 0; i < N * N; ++i) Y->K[i] = 0.0;
    for (int b = 0; b < P->num_blocks; ++b) {
        int o = P->block_start[b], k = P->block_start[b + 1] - o;
        if (!Y->active[b]) { /* G_I^T M_I G_I into the top-left block */
            for (int j = 0; j < n; ++j) {
                double mg[LUCID_CONE_MAX_BLOCK_DIM];
                inactive_column(P, S, b, j, mg);
                for (int a = 0; a < n; ++a)
                    for (int i = 0; i < k; ++i) Y->K[a * N + j] += P->G[(o + i) * n + a] * mg[i];
            }
            continue;
        }
        for (int i = 0; i < k; ++i) {
            int r = Y->row_of[o + i];
            for (int a = 0; a < n; ++a) Y->K[a * N + r] = P->G[(o + i) * n + a]; /* G_A^T */
            for (int l = 0; l < k; ++l) {
                /* Arw(u)(i, l) = u0 on the diagonal, u_l on row 0, u_i on column 0 */
                double az = i == 0 ? S->z[o + l] : (l == 0 ? S->z[o + i] : (i == l ? S->z[o] : 0));
                double as = i == 0 ? S->s[o + l] : (l == 0 ? S->s[o + i] : (i == l ? S->s[o] : 0));
                Y->K[r * N + Y->row_of[o + l]] = as;
                for (int a = 0; a < n; ++a) Y->K[r * N + a] -= az * P->G[(o + l) * n + a];
            }
        }
    }
    return lu_factor(Y->K, N, Y->piv);
}

/* G^T dz = r1, G dx + ds = r2, z o ds + s o dz = r3 (see the section comment). */
static void sensitivity_once(const lucid_cone_program *P, const lucid_cone_solution *S,
                             const sensitivity_system *Y, const double *r1, const double *r2,
                             const double *r3, direction *d) {
    int n = P->n, N = Y->size;
    double rhs[MAXK], w[MAXM], t[LUCID_CONE_MAX_BLOCK_DIM];
    for (int j = 0; j < n; ++j) rhs[j] = r1[j];
    for (int b = 0; b < P->num_blocks; ++b) {
        int o = P->block_start[b], k = P->block_start[b + 1] - o;
        arrow_mul(S->z + o, r2 + o, k, t);
        for (int i = 0; i < k; ++i) t[i] = r3[o + i] - t[i];
        if (Y->active[b]) {
            for (int i = 0; i < k; ++i) rhs[Y->row_of[o + i]] = t[i];
        } else {
            jordan_divide(S->s + o, t, k, w + o); /* the dz_I part independent of dx */
            for (int a = 0; a < n; ++a)
                for (int i = 0; i < k; ++i) rhs[a] -= P->G[(o + i) * n + a] * w[o + i];
        }
    }
    lu_solve(Y->K, N, Y->piv, rhs);
    for (int j = 0; j < n; ++j) d->x[j] = rhs[j];
    g_mul(P, d->x, d->s);
    for (int i = 0; i < P->m; ++i) d->s[i] = r2[i] - d->s[i];
    for (int b = 0; b < P->num_blocks; ++b) {
        int o = P->block_start[b], k = P->block_start[b + 1] - o;
        if (Y->active[b]) {
            for (int i = 0; i < k; ++i) d->z[o + i] = rhs[Y->row_of[o + i]];
            continue;
        }
        arrow_mul(S->z + o, d->s + o, k, t);
        for (int i = 0; i < k; ++i) t[i] = r3[o + i] - t[i];
        jordan_divide(S->s + o, t, k, d->z + o);
    }
}

/* sensitivity_once plus iterative refinement on the unreduced system. */
static void solve_jordan(const lucid_cone_program *P, const lucid_cone_solution *S,
                         const sensitivity_system *Y, const double *r1, const double *r2,
                         const double *r3, direction *d) {
    int n = P->n, m = P->m;
    direction c;
    sensitivity_once(P, S, Y, r1, r2, r3, d);
    for (int pass = 0; pass < JORDAN_REFINE_STEPS; ++pass) {
        double e1[MAXN], e2[MAXM], e3[MAXM], u[LUCID_CONE_MAX_BLOCK_DIM];
        gt_mul(P, d->z, e1);
        for (int j = 0; j < n; ++j) e1[j] = r1[j] - e1[j];
        g_mul(P, d->x, e2);
        for (int i = 0; i < m; ++i) e2[i] = r2[i] - e2[i] - d->s[i];
        for (int b = 0; b < P->num_blocks; ++b) {
            int o = P->block_start[b], k = P->block_start[b + 1] - o;
            arrow_mul(S->z + o, d->s + o, k, e3 + o);
            arrow_mul(S->s + o, d->z + o, k, u);
            for (int i = 0; i < k; ++i) e3[o + i] = r3[o + i] - e3[o + i] - u[i];
        }
        sensitivity_once(P, S, Y, e1, e2, e3, &c);
        for (int j = 0; j < n; ++j) d->x[j] += c.x[j];
        for (int i = 0; i < m; ++i) {
            d->z[i] += c.z[i];
            d->s[i] += c.s[i];
        }
    }
}

lucid_status lucid_cone_factor_kkt(const lucid_cone_program *P, const lucid_cone_solution *S,
                                   lucid_cone_factor *F) {
    return sensitivity_factor(P, S, F) ? LUCID_OK : LUCID_ERR_SINGULAR;
}

void lucid_cone_sensitivity(const lucid_cone_program *P, const lucid_cone_solution *S,
                            const lucid_cone_factor *F, const double *b1, const double *b2,
                            double *dx, double *dz) {
    int n = P->n, m = P->m;
    double r1[MAXN], r2[MAXM], r3[MAXM];
    for (int j = 0; j < n; ++j) r1[j] = -b1[j];
    for (int i = 0; i < m; ++i) {
        r2[i] = -b2[i];
        r3[i] = 0.0;
    }
    direction d;
    solve_jordan(P, S, F, r1, r2, r3, &d);
    memcpy(dx, d.x, sizeof(double) * (size_t)n);
    if (dz) memcpy(dz, d.z, sizeof(double) * (size_t)m);
}

/* ---- the iterations ---------------------------------------------------------------------- */

/* Below this KKT residual (primal, dual, s.z) the iterations switch from Nesterov-Todd to
 * Jordan-product (AHO) Newton directions: NT's normal equations stop improving near 1e-12
 * and cannot align s and z of an active second-order cone (their rotational residual
 * s0 z_1 + z0 s_1 stays ~sqrt(mu)); the Jordan system above is solved without forming
 * W^-2, and AHO's direction is well defined there because s and z nearly commute. */
#define JORDAN_SWITCH 1e-8

/* One Mehrotra predictor-corrector step with Jordan-product directions. */
static int jordan_step(const lucid_cone_program *P, lucid_cone_solution *S, const double *rd,
                       const double *rp, double gap, double tol) {
    int n = P->n, m = P->m;
    sensitivity_system Y;
    if (!sensitivity_factor(P, S, &Y)) return 0;
    double r1[MAXN], r2[MAXM], r3[MAXM];
    for (int j = 0; j < n; ++j) r1[j] = -rd[j];
    for (int i = 0; i < m; ++i) r2[i] = -rp[i];
    for (int b = 0; b < P->num_blocks; ++b) {
        int o = P->block_start[b], k = P->block_start[b + 1] - o;
        jordan_product(S->s + o, S->z + o, k, r3 + o);
        for (int i = o; i < o + k; ++i) r3[i] = -r3[i];
    }
    direction aff, d;
    solve_jordan(P, S, &Y, r1, r2, r3, &aff);
    double ta = fmin(1.0, fmin(max_step(P, S->s, aff.s), max_step(P, S->z, aff.z)));
    double gap_aff = 0.0;
    for (int i = 0; i < m; ++i) gap_aff += (S->s[i] + ta * aff.s[i]) * (S->z[i] + ta * aff.z[i]);
    double sigma = fmin(1.0, fmax(0.0, gap_aff / gap));
    /* the target never drops below a tenth of the tolerance: s and z pressed against the
     * boundary at rounding level could no longer be rotated into alignment */
    double mu = fmax(sigma * sigma * sigma * gap, 0.1 * tol) / P->num_blocks;
    for (int b = 0; b < P->num_blocks; ++b) {
        int o = P->block_start[b], k = P->block_start[b + 1] - o;
        double t[LUCID_CONE_MAX_BLOCK_DIM];
        jordan_product(aff.s + o, aff.z + o, k, t);
        for (int i = 0; i < k; ++i) r3[o + i] -= t[i];
        r3[o] += mu;
    }
    solve_jordan(P, S, &Y, r1, r2, r3, &d);
    double t = fmin(1.0, 0.99 * fmin(max_step(P, S->s, d.s), max_step(P, S->z, d.z)));
    take_step(P, S, &d, t);
    return 1;
}

/* One Mehrotra predictor-corrector step with Nesterov-Todd directions. */
static int nt_step(const lucid_cone_program *P, lucid_cone_solution *S, const double *rd,
                   const double *rp, double gap) {
    int m = P->m;
    if (m < 1) return 0;
    double lambda[MAXM], neg[MAXM], u[MAXM];
    compute_scaling(P, S);
    if (!factor_normal_equations(P, S)) return 0;
    apply_blocks(P, S, apply_w, S->z, lambda);
    for (int i = 0; i < m; ++i) neg[i] = -lambda[i]; /* lambda \ (-lambda o lambda) */
    direction aff, d;
    solve_once(P, S, rd, rp, neg, &aff);
    double ta = fmin(1.0, fmin(max_step(P, S->s, aff.s), max_step(P, S->z, aff.z)));
    double gap_aff = 0.0;
    for (int i = 0; i < m; ++i) gap_aff += (S->s[i] + ta * aff.s[i]) * (S->z[i] + ta * aff.z[i]);
    double sigma = fmin(1.0, fmax(0.0, gap_aff / gap));
    sigma = sigma * sigma * sigma;
    corrector_rhs(P, S, lambda, &aff, sigma * gap / P->num_blocks, u);
    solve_once(P, S, rd, rp, u, &d);
    double t = fmin(1.0, 0.99 * fmin(max_step(P, S->s, d.s), max_step(P, S->z, d.z)));
    take_step(P, S, &d, t);
    return 1;
}

lucid_status lucid_cone_solve(const lucid_cone_program *P, double tol, int max_iter,
                              lucid_cone_solution *S) {
    if (!P || !S || !valid_program(P) || !(tol > 0.0) || max_iter < 1) return LUCID_ERR_ARGUMENT;
    if (!initial_point(P, S)) return LUCID_ERR_SINGULAR;
    double rp[MAXM], rd[MAXN], gap, plain;
    S->converged = 0;
    for (S->iterations = 0;; ++S->iterations) {
        S->residual = residuals(P, S, rp, rd, &gap, &plain);
        if (S->residual <= tol) {
            S->converged = 1;
            return LUCID_OK;
        }
        if (S->iterations >= max_iter) return LUCID_ERR_NO_CONVERGENCE;
        int ok = plain > JORDAN_SWITCH ? nt_step(P, S, rd, rp, gap)
                                       : jordan_step(P, S, rd, rp, gap, tol);
        if (!ok) return LUCID_ERR_SINGULAR;
    }
}
