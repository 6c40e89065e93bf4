/* Primal-dual interior point for ccp:ip and ncp:ip (contact_ip.h, docs/contact_ip.md).
 * Iterate (x, y) in int Q^n, residual r = y - P x - c - S(y). With the Nesterov-Todd scaling
 * W_i of (x_i, y_i) (W^2 x = y, v = W x = W^-1 y), the Newton step of
 *   r = 0,  v o v = target
 * solves v o (W dx + W^-1 dy) = r_c for w = W dx + W^-1 dy, so dy = W w - W^2 dx, and
 *   (I - E) dy - P dx = -r   (E = dS/dy: row N_i holds y_T,i / ||y_T,i||, NCP only)
 * becomes, after multiplying by (I - E)^-1 = I + E (E^2 = 0),
 *   A dx = W w + (I + E) r,  A = (I + E) P + W^2.
 * A is SPD for the CCP (Cholesky) and a general matrix for the NCP (LU). Mehrotra: an affine
 * step (r_c = -v o v) gives the centring sigma = (mu_aff / mu)^3, then the combined step
 * r_c = max(sigma mu, kappa) e - v o v - (W dx_a) o (W^-1 dy_a); near the relaxed central
 * point (kappa > 0, gap within 10 kappa) plain Newton on v o v = kappa e. Steps stop at 0.99
 * of the distance to the cones' boundary. Contacts of dim 4 (torsional friction, (t1, t2, n, s))
 * and 6 (rolling, (t1, t2, n, s, r1, r2)) have the cone of dimension 4 or 6 with head n: every
 * formula below is that of a second-order cone of any dimension, written over the tangential
 * entries T (all but n). */
#include "solvers/contact/contact_ip.h"

#include <math.h>
#include <string.h>

#include "solvers/contact/contact_cone.h"
#include "solvers/dense/dense_kernels.h"
#include "solvers/contact/contact_internal.h"
#include "solvers/contact/contact_math.h"
#include "solvers/contact/contact_sparse.h"
#include "solvers/contact/contact_sparse_hessian.h" /* the workspace's buffer */
#include "solvers/contact/contact_sparse_kkt.h"

#define STEP_FRACTION 0.99
#define NEWTON_ZONE   10.0 /* kappa > 0: plain Newton once the mean gap is below this x kappa */

#define WARM_SHIFT   1e-3 /* warm start: shift into the interior by this x the force size */
#define STALL_WINDOW 10   /* stalled: the criterion has not halved in this many iterations */

/* Buffers of one solve in ws->ip; x, y, yhat (E) and the factor survive the solve. In body
 * space (sp != NULL) p holds g, mu and R only (G = NULL) and A is never formed: see
 * factor_sparse. */
typedef struct ip {
    const lucid_contact_problem *p;
    const lucid_contact_sparse_problem *sp; /* body space, or NULL */
    lucid_contact_kkt *K;                   /* body space: [M -J^T; J B] */
    double *diag;                           /* body space: (G + R)_kk, d n */
    double *B;                              /* body space: d^2 per contact, row-major */
    double *u;                              /* body space: the columns */
    int n, m, ncp;
    int d; /* rows per contact: 3, 4 (t1, t2, n, s) or 6 (t1, t2, n, s, r1, r2) */
    double kappa;
    double *x, *y, *dx, *dy, *dxa, *dya, *r, *rhs, *v, *w, *sigma, *lambda, *t1, *t2;
    double *x_best, *y_best; /* the iterate with the smallest model criterion so far */
    double *W, *W2;          /* d^2 per contact each (d m), column-major d x d */
    double *Winv;            /* d^2 per contact */
    double *yhat;            /* d per contact: E's row, y_T / ||y_T|| (0 for the CCP and rays) */
    double *A;               /* m x m: ws->mat[0] */
    int factorizations;
    int *ipiv;
} ip;

static int is_ray(const ip *s, int i) {
    return s->p->mu[i] == 0.0;
}

/* The head (normal) entry of a contact's d entries; the others are tangential. */
#define HEAD    2
#define MAX_DIM 6 /* rows per contact: 3, 4 (t1, t2, n, s) or 6 (t1, t2, n, s, r1, r2) */

/* D's diagonal entry k: 1 on tangents, mu on normals (1 for rays). */
static double dscale(const ip *s, int k) {
    double mu = s->p->mu[k / s->d];
    return k % s->d == HEAD && mu > 0.0 ? mu : 1.0;
}

/* ||x_T|| of a contact's d entries (t1, t2[, s[, r1, r2]]); dim 3 through hypot (no overflow). */
static double tnorm(int d, const double *x) {
    if (d == 3) return lucid_contact_hypot(x[0], x[1]);
    double t = 0.0;
    for (int a = 0; a < d; ++a)
        if (a != HEAD) t += x[a] * x[a];
    return sqrt(t);
}

/* h_T . x_T over a contact's tangential entries (h: E's row) */
static double tdot(int d, const double *h, const double *x) {
    double t = 0.0;
    for (int a = 0; a < d; ++a)
        if (a != HEAD) t += h[a] * x[a];
    return t;
}

/* 1 when E's row h of a contact is zero (the CCP, rays, a resting y_T) */
static int tzero(int d, const double *h) {
    for (int a = 0; a < d; ++a)
        if (a != HEAD && h[a] != 0.0) return 0;
    return 1;
}

/* 1 when contact i's y is stored as (y_T, u): NCP contacts (not rays). y_N = ||y_T|| + u with
 * u = sigma_N / mu - r_N the cone's margin, which is what the Newton equations move (their row
 * N reads du - d sigma_N / mu = -r_N, du = dy_N - yhat . dy_T). Stored, u keeps its digits when
 * a sliding contact's u falls below the round-off of ||y_T|| (y_N - ||y_T|| would cancel). */
static int curved(const ip *s, int i) {
    return s->ncp && !is_ray(s, i);
}

/* y_i in the cone's coordinates (y_T, y_N) from its stored form. */
static void y_full(const ip *s, int i, const double *yi, double *out) {
    for (int a = 0; a < s->d; ++a) out[a] = yi[a];
    out[HEAD] = curved(s, i) ? tnorm(s->d, yi) + yi[HEAD] : yi[HEAD];
}

/* y_N^2 - ||y_T||^2 of the stored y_i, without cancellation. */
static double y_jnorm2(const ip *s, int i, const double *yi);

/* (G + R)_kk */
static double diag_entry(const ip *s, int k) {
    return s->sp ? s->diag[k] : lucid_contact_diag(s->p, k);
}

/* ---- one cone (d entries, head HEAD) ------------------------------------------------------ */

/* a o b = (a_N b_T + b_N a_T, a . b) */
static void jordan(int d, int ray, const double *a, const double *b, double *out) {
    if (ray) {
        for (int c = 0; c < d; ++c) out[c] = 0.0;
        out[HEAD] = a[HEAD] * b[HEAD];
        return;
    }
    double dot = 0.0;
    for (int c = 0; c < d; ++c) {
        dot += a[c] * b[c];
        if (c != HEAD) out[c] = a[HEAD] * b[c] + b[HEAD] * a[c];
    }
    out[HEAD] = dot;
}

/* a with v o a = r (v in int Q) */
static void jordan_divide(int d, int ray, const double *v, const double *r, double *a) {
    if (ray) {
        for (int c = 0; c < d; ++c) a[c] = 0.0;
        a[HEAD] = r[HEAD] / v[HEAD];
        return;
    }
    double t = tnorm(d, v), det = (v[HEAD] - t) * (v[HEAD] + t), num = v[HEAD] * r[HEAD];
    for (int c = 0; c < d; ++c)
        if (c != HEAD) num -= v[c] * r[c];
    a[HEAD] = num / det;
    for (int c = 0; c < d; ++c)
        if (c != HEAD) a[c] = (r[c] - a[HEAD] * v[c]) / v[HEAD];
}

/* (x_N - ||x_T||)(x_N + ||x_T||) = x^T J x, without cancellation */
static double jnorm2(int d, const double *x) {
    double t = tnorm(d, x);
    return (x[HEAD] - t) * (x[HEAD] + t);
}

static double y_jnorm2(const ip *s, int i, const double *yi) {
    if (!curved(s, i)) return jnorm2(s->d, yi);
    double t = tnorm(s->d, yi);
    return yi[HEAD] * (yi[HEAD] + 2.0 * t);
}

/* x^T J y with J = diag(-1 on T, 1 on N) */
static double jdot(int d, const double *x, const double *y) {
    double q = x[HEAD] * y[HEAD];
    for (int c = 0; c < d; ++c)
        if (c != HEAD) q -= x[c] * y[c];
    return q;
}

/* The largest a with x + a d in Q (x in int Q; HUGE_VAL when unbounded). With
 * f(a) = (x_N + a d_N)^2 - ||x_T + a d_T||^2 = qa a^2 + 2 qb a + qc (qc > 0), f >= 0 on
 * [0, a*] with a* the smallest positive root, qc / (-qb + sqrt(qb^2 - qa qc)), whenever
 * qa < 0 or qb < 0 (and a real root exists). f >= 0 also holds on -Q: a path through the
 * apex (d along x's axis: a double root, which round-off may turn into none) leaves Q with f
 * >= 0, so the head x_N + a d_N >= 0 bounds a as well. */
static double max_step(int dim, int ray, const double *x, const double *d) {
    double head = d[HEAD] < 0.0 ? -x[HEAD] / d[HEAD] : HUGE_VAL;
    if (ray) return head;
    double qa = jdot(dim, d, d), qb = jdot(dim, x, d), qc = jnorm2(dim, x);
    if (!(qa < 0.0 || qb < 0.0)) return head;
    double disc = qb * qb - qa * qc;
    if (qa > 0.0 && disc < 0.0) return head; /* f > 0 everywhere */
    return fmin(head, qc / (-qb + sqrt(fmax(disc, 0.0))));
}

/* Nesterov-Todd scaling of (x, y) (x = forces, y = velocities, both in int Q): W x = W^-1 y.
 * With J = diag(-1 on T, 1 on N), xb = x / sqrt(x^T J x), yb = y / sqrt(y^T J y)
 * (determinant 1), the scaling point of (xb, yb) is their geometric mean
 * wb = (yb + J xb) / (2 gamma), gamma = sqrt((1 + xb . yb) / 2), its square root
 * u = (wb + e) / sqrt(2 (wb_N + 1)), and
 *   W = eta (2 u u^T - J),  W^-1 = (2 (J u)(J u)^T - J) / eta,  eta = (y^T J y / x^T J x)^(1/4)
 * (W^2 = eta^2 (2 wb wb^T - J) is the quadratic representation of the scaling point). */
static void nt_scaling(int d, int ray, const double *x, const double *y, double y_jn, double *W,
                       double *Winv) {
    memset(W, 0, sizeof(double) * (size_t)(d * d)),
        memset(Winv, 0, sizeof(double) * (size_t)(d * d));
    if (ray) {
        double eta = sqrt(y[HEAD] / x[HEAD]);
        W[HEAD * (d + 1)] = eta, Winv[HEAD * (d + 1)] = 1.0 / eta;
        return;
    }
    double nx = sqrt(jnorm2(d, x)), ny = sqrt(y_jn);
    double xb[MAX_DIM], yb[MAX_DIM], wb[MAX_DIM] = {0}, u[MAX_DIM], Ju[MAX_DIM], J[MAX_DIM],
                                     dot = 1.0; /* 1 + xb . yb */
    for (int a = 0; a < d; ++a) xb[a] = x[a] / nx, yb[a] = y[a] / ny, J[a] = a == HEAD ? 1.0 : -1.0;
    for (int a = 0; a < d; ++a) dot += xb[a] * yb[a];
    double gamma = sqrt(0.5 * dot);
    for (int a = 0; a < d; ++a) wb[a] = (yb[a] + J[a] * xb[a]) / (2.0 * gamma);
    double dn = sqrt(2.0 * (wb[HEAD] + 1.0));
    for (int a = 0; a < d; ++a) u[a] = (a == HEAD ? wb[a] + 1.0 : wb[a]) / dn, Ju[a] = J[a] * u[a];
    double eta = sqrt(ny / nx);
    for (int b = 0; b < d; ++b)
        for (int a = 0; a < d; ++a) {
            double j = a == b ? J[a] : 0.0;
            W[a + d * b] = eta * (2.0 * u[a] * u[b] - j);
            Winv[a + d * b] = (2.0 * Ju[a] * Ju[b] - j) / eta;
        }
}

/* out = M x, M d x d column-major */
static void mat_vec(int d, const double *M, const double *x, double *out) {
    for (int a = 0; a < d; ++a) {
        double t = M[a] * x[0];
        for (int c = 1; c < d; ++c) t += M[a + d * c] * x[c];
        out[a] = t;
    }
}

/* ---- the whole problem -------------------------------------------------------------------- */

/* lambda = D^-1 x, sigma = (G + R) lambda + g */
static void unscale(ip *s) {
    for (int k = 0; k < s->m; ++k) s->lambda[k] = s->x[k] / dscale(s, k);
    if (s->sp)
        lucid_contact_sparse_velocity(s->sp, s->lambda, s->u, s->sigma);
    else
        lucid_contact_velocity(s->p, s->lambda, s->sigma);
}

/* r = y - D^-1 sigma - S(y) (tangents of rays: 0); yhat = E's rows (NCP). */
static void residual(ip *s) {
    for (int i = 0; i < s->n; ++i) {
        int d = s->d;
        double *r = s->r + d * i, *y = s->y + d * i, *h = s->yhat + d * i;
        /* NCP: y[HEAD] is u = y_N - S(y), so r_N = u - sigma_N / mu */
        for (int a = 0; a < d; ++a) r[a] = y[a] - s->sigma[d * i + a] / dscale(s, d * i + a);
        for (int a = 0; a < d; ++a) h[a] = 0.0;
        if (is_ray(s, i)) {
            for (int a = 0; a < d; ++a)
                if (a != HEAD) r[a] = 0.0;
            continue;
        }
        if (!s->ncp) continue;
        double t = tnorm(d, y);
        if (t > 0.0)
            for (int a = 0; a < d; ++a)
                if (a != HEAD) h[a] = y[a] / t;
    }
}

static double gap(const ip *s) {
    double sum = 0.0;
    for (int i = 0; i < s->n; ++i) {
        double y[MAX_DIM];
        y_full(s, i, s->y + s->d * i, y);
        for (int a = 0; a < s->d; ++a) sum += s->x[s->d * i + a] * y[a];
    }
    return sum / s->n;
}

/* Scalings and v = W x of every contact. */
static void scale_all(ip *s) {
    for (int i = 0; i < s->n; ++i) {
        int d = s->d, dd = d * d;
        double y[MAX_DIM];
        y_full(s, i, s->y + d * i, y);
        nt_scaling(d, is_ray(s, i), s->x + d * i, y, y_jnorm2(s, i, s->y + d * i), s->W + dd * i,
                   s->Winv + dd * i);
        double *W = s->W + dd * i, *W2 = s->W2 + dd * i;
        for (int b = 0; b < d; ++b)
            for (int a = 0; a < d; ++a) {
                double t = W[a] * W[d * b];
                for (int c = 1; c < d; ++c) t += W[a + d * c] * W[c + d * b];
                W2[a + d * b] = t;
            }
        mat_vec(d, W, s->x + d * i, s->v + d * i);
    }
}

/* Body space. With dx = D z, multiplying A dx = b by D (I + E)^-1 = D (I - E) gives
 *   (G + B) z = D (I - E) b,  B = R + D (I - E)(W^2 + shift I) D
 * (B block diagonal, d x d a contact, symmetric for the CCP), solved through the sparse
 * augmented system [M -J^T; J B] [u; z] = [0; r] factorised by KLU (contact_sparse_kkt.h:
 * why not Woodbury through M + J^T B^-1 J, nor G + B in contact space). A ray's tangents are
 * pinned (dx_T = 0) as in the dense path: their rows and columns are the identity's. */
static lucid_status factor_sparse(ip *s, double shift) {
    int n = s->d, nn = n * n;
    for (int i = 0; i < s->n; ++i) {
        const double *W2 = s->W2 + nn * i, *h = s->yhat + n * i;
        double *B = s->B + nn * i, d[MAX_DIM], col[MAX_DIM];
        for (int a = 0; a < n; ++a) d[a] = dscale(s, n * i + a);
        for (int b = 0; b < n; ++b) { /* B[a][b] = d_a ((I - E)(W^2 + shift I))_ab d_b + R_a */
            for (int a = 0; a < n; ++a) col[a] = W2[a + n * b] + (a == b ? shift : 0.0);
            col[HEAD] -= tdot(n, h, col);
            for (int a = 0; a < n; ++a) B[n * a + b] = d[a] * col[a] * d[b];
        }
        if (s->p->R)
            for (int a = 0; a < n; ++a) B[(n + 1) * a] += s->p->R[n * i + a];
    }
    return lucid_contact_kkt_factor(s->K, s->sp, s->B, 1);
}

/* x <- A^-1 x in body space: r = D (I - E) x, z = S^-1 r, x = D z (rays' tangents: 0). */
static void factor_solve_sparse(const ip *s, double *x) {
    int d = s->d;
    for (int i = 0; i < s->n; ++i) x[d * i + HEAD] -= tdot(d, s->yhat + d * i, x + d * i);
    for (int k = 0; k < s->m; ++k) x[k] *= dscale(s, k);
    lucid_contact_kkt_solve(s->K, x);
    for (int k = 0; k < s->m; ++k) x[k] *= dscale(s, k);
}

/* A = (I + E) P + W^2 + shift I (rows and columns of rays' tangents: identity), factorised in
 * place. */
static lucid_status assemble_and_factor_shifted(ip *s, double shift) {
    if (s->sp) return factor_sparse(s, shift);
    const lucid_contact_problem *p = s->p;
    int m = s->m;
    double *A = s->A;
    for (int j = 0; j < m; ++j) {
        double dj = dscale(s, j);
        for (int i = 0; i < m; ++i)
            A[i + (size_t)m * j] = p->G[i + (size_t)m * j] / (dscale(s, i) * dj);
        if (p->R) A[j + (size_t)m * j] += p->R[j] / (dj * dj);
    }
    int d = s->d;
    if (s->ncp)
        for (int i = 0; i < s->n; ++i) {
            const double *h = s->yhat + d * i;
            if (tzero(d, h)) continue;
            for (int j = 0; j < m; ++j) {
                double *col = A + (size_t)m * j + d * i;
                col[HEAD] += tdot(d, h, col);
            }
        }
    for (int i = 0; i < s->n; ++i)
        for (int b = 0; b < d; ++b)
            for (int a = 0; a < d; ++a)
                A[d * i + a + (size_t)m * (d * i + b)] += s->W2[d * d * i + a + d * b];
    for (int k = 0; k < m; ++k) A[k + (size_t)m * k] += shift;
    for (int i = 0; i < s->n; ++i) {
        if (!is_ray(s, i)) continue;
        for (int t = 0; t < d; ++t) {
            if (t == HEAD) continue;
            int k = d * i + t;
            for (int j = 0; j < m; ++j) A[k + (size_t)m * j] = A[j + (size_t)m * k] = 0.0;
            A[k + (size_t)m * k] = 1.0;
        }
    }
    int info = s->ncp ? lucid_dense_getrf_lapack(m, A, m, s->ipiv) : lucid_dense_potrf(m, A, m);
    if (info > 0) return LUCID_ERR_NOT_SPD;
    return info == 0 ? LUCID_OK : LUCID_ERR_INTERNAL;
}

/* The factor of A; where it does not exist in floating point (P singular, as G is for
 * hyperstatic contacts, and W^2 vanishing along the active directions as the gap closes), of
 * A + shift I with the smallest shift in 1e-14, 1e-12, ..., 1e-6 x max diag A that works: a
 * regularised Newton step (LUCID_ERR_NOT_SPD when none does). */
static lucid_status assemble_and_factor(ip *s) {
    double big = 0.0;
    for (int k = 0; k < s->m; ++k)
        big = fmax(big, diag_entry(s, k) / (dscale(s, k) * dscale(s, k)) +
                            s->W2[s->d * s->d * (k / s->d) + (s->d + 1) * (k % s->d)]);
    lucid_status status = assemble_and_factor_shifted(s, 0.0);
    if (status != LUCID_ERR_NOT_SPD) return status;
    for (double f = 1e-14; status == LUCID_ERR_NOT_SPD && f <= 1e-6; f *= 100.0)
        status = assemble_and_factor_shifted(s, f * big);
    return status;
}

/* x <- A^-1 x (transposed: A^-T x) from the factor. */
static void factor_solve(const ip *s, int transposed, double *x) {
    if (s->sp)
        factor_solve_sparse(s, x); /* never transposed: no derivatives in body space */
    else if (s->ncp)
        lucid_dense_getrs_lapack(transposed, s->m, 1, s->A, s->m, s->ipiv, x, s->m);
    else
        lucid_dense_potrs(s->m, 1, s->A, s->m, x, s->m);
}

/* (I + E) u in place */
static void apply_IE(const ip *s, double *u) {
    int d = s->d;
    for (int i = 0; i < s->n; ++i) {
        const double *h = s->yhat + d * i;
        double *ui = u + d * i;
        ui[HEAD] += tdot(d, h, ui);
    }
}

/* (I + E)^T u in place */
static void apply_IE_transposed(const ip *s, double *u) {
    int d = s->d;
    for (int i = 0; i < s->n; ++i) {
        const double *h = s->yhat + d * i;
        double *ui = u + d * i;
        for (int a = 0; a < d; ++a)
            if (a != HEAD) ui[a] += h[a] * ui[HEAD];
    }
}

/* Zeroes the tangential entries of rays in z. */
static void zero_ray_tangents(const ip *s, double *z) {
    for (int i = 0; i < s->n; ++i)
        if (is_ray(s, i))
            for (int a = 0; a < s->d; ++a)
                if (a != HEAD) z[s->d * i + a] = 0.0;
}

/* The Newton direction (dx, dy) for the complementarity right-hand side rc (per contact). */
static void direction(ip *s, const double *rc, double *dx, double *dy) {
    int d = s->d;
    for (int i = 0; i < s->n; ++i) {
        int ray = is_ray(s, i);
        jordan_divide(d, ray, s->v + d * i, rc + d * i, s->w + d * i);
        mat_vec(d, s->W + d * d * i, s->w + d * i, s->t1 + d * i); /* W w */
    }
    memcpy(dx, s->r, sizeof(double) * (size_t)s->m);
    apply_IE(s, dx);
    for (int k = 0; k < s->m; ++k) dx[k] += s->t1[k];
    zero_ray_tangents(s, dx);
    factor_solve(s, 0, dx);
    for (int i = 0; i < s->n; ++i) {
        double W2dx[MAX_DIM];
        mat_vec(d, s->W2 + d * d * i, dx + d * i, W2dx);
        for (int a = 0; a < d; ++a) dy[d * i + a] = s->t1[d * i + a] - W2dx[a];
    }
}

/* du = dy_N - yhat . dy_T of a curved contact: the change of its stored u. */
static double margin_step(const ip *s, int i, const double *dy) {
    const double *d = dy + s->d * i, *h = s->yhat + s->d * i;
    double du = d[HEAD]; /* summed term by term, in row order */
    for (int a = 0; a < s->d; ++a)
        if (a != HEAD) du -= h[a] * d[a];
    return du;
}

/* The stored y_i + a dy_i. A curved contact moves y_T by a dy_T and u by a du, so the
 * residual falls exactly by (1 - a), as for the CCP, and y in Q <=> u >= 0 bounds a linearly.
 * A straight step along dy would cross the cone's curved side when y_T turns (at second order
 * in a): it held sliding contacts whose velocity had to turn to steps of 1e-3 to 1e-7
 * (docs/contact_ip.md). */
static void y_step(const ip *s, int i, double a, const double *dy, double *out) {
    const double *y = s->y + s->d * i, *d = dy + s->d * i;
    double du = curved(s, i) ? margin_step(s, i, dy) : d[HEAD];
    for (int c = 0; c < s->d; ++c) out[c] = y[c] + a * (c == HEAD ? du : d[c]);
}

/* The largest a with y_step(a) in Q (HUGE_VAL when unbounded). */
static double max_step_y(const ip *s, int i, const double *dy) {
    int d = s->d;
    if (!curved(s, i)) return max_step(d, is_ray(s, i), s->y + d * i, dy + d * i);
    double du = margin_step(s, i, dy);
    return du < 0.0 ? -s->y[d * i + HEAD] / du : HUGE_VAL;
}

static double step_to_boundary(const ip *s, const double *dx, const double *dy) {
    double a = HUGE_VAL;
    for (int i = 0; i < s->n; ++i) {
        a = fmin(a, max_step(s->d, is_ray(s, i), s->x + s->d * i, dx + s->d * i));
        a = fmin(a, max_step_y(s, i, dy));
    }
    return a;
}

/* Relaxed-system criterion (kappa > 0): primal dist(lambda, K), dual ||D r||_inf (a velocity),
 * complementarity ||x o y - kappa e||_inf; scaled as lucid_contact_criteria_eval scales. */
static void relaxed_criteria(ip *s, lucid_contact_criteria *out) {
    double ep = 0.0, ed = 0.0, ec = 0.0, force = 0.0, velocity = 0.0;
    for (int i = 0; i < s->n; ++i) {
        int ray = is_ray(s, i), d = s->d;
        double xy[MAX_DIM], y[MAX_DIM], mu = s->p->mu[i];
        y_full(s, i, s->y + d * i, y);
        jordan(d, ray, s->x + d * i, y, xy);
        xy[HEAD] -= s->kappa;
        ep = fmax(ep, d > 3 ? lucid_cone_n_distance(d, mu, s->lambda + d * i)
                            : lucid_cone_distance(mu, s->lambda + d * i));
        for (int a = 0; a < d; ++a) {
            ed = fmax(ed, fabs(s->r[d * i + a] * dscale(s, d * i + a)));
            ec = fmax(ec, fabs(xy[a]));
        }
    }
    for (int k = 0; k < s->m; ++k) {
        force = fmax(force, fabs(s->lambda[k]));
        velocity = fmax(velocity, fmax(fabs(s->p->g[k]), fabs(s->sigma[k] - s->p->g[k])));
    }
    int finite = isfinite(ep) && isfinite(ed) && isfinite(ec);
    out->primal = ep, out->dual = ed, out->complementarity = ec;
    out->abs = finite ? fmax(ep, fmax(ed, ec)) : INFINITY;
    out->primal_scaled = force > 0.0 ? ep / force : ep;
    out->dual_scaled = velocity > 0.0 ? ed / velocity : ed;
    out->complementarity_scaled = force * velocity > 0.0 ? ec / (force * velocity) : ec;
    out->scaled =
        finite ? fmax(out->primal_scaled, fmax(out->dual_scaled, out->complementarity_scaled))
               : INFINITY;
}

/* Evaluates the model criterion of the iterate (the relaxed one when kappa > 0) and the NCP
 * criterion; 1 when the model criterion meets tol. */
static int check(lucid_contact_run *run, ip *s) {
    unscale(s);
    residual(s);
    if (s->kappa > 0.0) {
        relaxed_criteria(s, &run->result->model);
        lucid_contact_criteria_eval(s->p, LUCID_CRITERION_NCP, s->lambda, s->sigma, NULL,
                                    &run->result->ncp);
        return run->result->model.abs <= run->o->tol;
    }
    return lucid_contact_check(run, s->lambda, s->sigma);
}

/* Per contact, a point of int Q: z + (max(||z_T|| - z_N, 0) + shift) e (rays: z_T = 0). */
static void into_interior(const ip *s, double *z, double shift) {
    for (int i = 0; i < s->n; ++i) {
        double *zi = z + s->d * i;
        if (is_ray(s, i))
            for (int a = 0; a < s->d; ++a)
                if (a != HEAD) zi[a] = 0.0;
        double t = tnorm(s->d, zi);
        zi[HEAD] = fmax(zi[HEAD], t) + shift;
    }
}

/* Starting point: x_i = (0, 0, sx), y_i = (0, 0, sy) with sy = max |c| (1 if c = 0) and
 * sx = sy / mean diag P (so that P x and y are of one size). A warm start replaces x by
 * D lambda, shifted into the interior by WARM_SHIFT x its size (Silico uses x + 1e-2 e), and
 * keeps the cold y. Measured on the dragged cube (180 steps of the world, 4 hyperstatic
 * contacts sticking): cold 1050 iterations; warm x and y (y from the previous corrected
 * velocity, shifted alike) 4883 iterations, and the previous step's internal forces kept
 * (2.5 N: a start on the optimal face's boundary never re-centres along G's null space);
 * warm x only 725 iterations and no internal force (1e-8 N). The shift: 1e-4 to 1e-2 give
 * 724-725 iterations there; on a random 5-contact problem (test_contact_solvers,
 * warm_start_reduces_iterations) ncp:ip takes 8 (1e-4, 1e-3), 10 (1e-2), 11 (1e-1)
 * iterations against 8 cold. */
static void start(lucid_contact_run *run, ip *s, const double *lambda) {
    const lucid_contact_problem *p = s->p;
    int m = s->m;
    double sy = 0.0, diag = 0.0;
    for (int k = 0; k < m; ++k) {
        sy = fmax(sy, fabs(p->g[k] / dscale(s, k)));
        diag += diag_entry(s, k) / (dscale(s, k) * dscale(s, k));
    }
    if (!(sy > 0.0)) sy = 1.0;
    double sx = sy / (diag / m);
    memset(s->x, 0, sizeof(double) * (size_t)m), memset(s->y, 0, sizeof(double) * (size_t)m);
    for (int i = 0; i < s->n; ++i) s->x[s->d * i + HEAD] = sx, s->y[s->d * i + HEAD] = sy;
    if (!run->o->warm_start) return;
    for (int k = 0; k < m; ++k) s->x[k] = lambda[k] * dscale(s, k);
    double xs = lucid_contact_max_abs(s->x, m);
    double shift = WARM_SHIFT * (xs > 0.0 ? xs : sx);
    if (shift * sy < s->kappa) shift = s->kappa / sy;
    into_interior(s, s->x, shift);
}

static ip ip_layout(lucid_contact_run *run) {
    const lucid_contact_problem *p = run->p;
    lucid_contact_workspace *ws = run->ws;
    int d = lucid_contact_dim(p), m = d * p->n;
    double *b = ws->ip;
    ip s = {.p = p,
            .n = p->n,
            .m = m,
            .d = d,
            .ncp = run->o->model == LUCID_CONTACT_NCP,
            .kappa = run->o->kappa,
            .A = ws->mat[0],
            .ipiv = ws->ipiv};
    double **slots[] = {&s.x,  &s.y,   &s.dx,   &s.dy,     &s.dxa,   &s.dya,
                        &s.r,  &s.rhs, &s.v,    &s.w,      &s.sigma, &s.lambda,
                        &s.t1, &s.t2,  &s.yhat, &s.x_best, &s.y_best};
    size_t count = sizeof slots / sizeof slots[0];
    for (size_t k = 0; k < count; ++k) *slots[k] = b + k * (size_t)m;
    s.W = b + count * m, s.W2 = s.W + (size_t)d * m, s.Winv = s.W2 + (size_t)d * m;
    return s; /* 17 + 3 d vectors of d n (35 for d = 6): LUCID_CONTACT_IP_VECTORS of 3 capacity */
}

/* One predictor-corrector iteration from (x, y) whose residual r is current. */
static lucid_status iterate(ip *s, double *alpha_out) {
    int m = s->m;
    scale_all(s);
    lucid_status status = assemble_and_factor(s);
    if (status != LUCID_OK) return status;
    ++s->factorizations;
    double mu = gap(s);
    double *rc = s->rhs;
    int newton = s->kappa > 0.0 && mu <= NEWTON_ZONE * s->kappa, d = s->d;
    for (int i = 0; i < s->n; ++i) {
        jordan(d, is_ray(s, i), s->v + d * i, s->v + d * i, rc + d * i);
        for (int a = 0; a < d; ++a) rc[d * i + a] = -rc[d * i + a];
        if (newton) rc[d * i + HEAD] += s->kappa;
    }
    if (!newton) {
        direction(s, rc, s->dxa, s->dya);
        double a = fmin(1.0, step_to_boundary(s, s->dxa, s->dya));
        double mu_aff = 0.0;
        for (int i = 0; i < s->n; ++i) {
            double ya[MAX_DIM], yf[MAX_DIM];
            y_step(s, i, a, s->dya, ya);
            y_full(s, i, ya, yf);
            for (int c = 0; c < d; ++c) mu_aff += (s->x[d * i + c] + a * s->dxa[d * i + c]) * yf[c];
        }
        mu_aff /= s->n;
        double ratio = fmax(mu_aff, 0.0) / mu, target = fmax(ratio * ratio * ratio * mu, s->kappa);
        for (int i = 0; i < s->n; ++i) {
            int ray = is_ray(s, i);
            double wdx[MAX_DIM], wdy[MAX_DIM], corr[MAX_DIM];
            mat_vec(d, s->W + d * d * i, s->dxa + d * i, wdx);
            mat_vec(d, s->Winv + d * d * i, s->dya + d * i, wdy);
            jordan(d, ray, wdx, wdy, corr);
            for (int a2 = 0; a2 < d; ++a2) rc[d * i + a2] -= corr[a2];
            rc[d * i + HEAD] += target;
        }
    }
    direction(s, rc, s->dx, s->dy);
    for (int k = 0; k < m; ++k)
        if (!isfinite(s->dx[k]) || !isfinite(s->dy[k])) return LUCID_ERR_NONFINITE;
    double alpha = fmin(1.0, STEP_FRACTION * step_to_boundary(s, s->dx, s->dy));
    for (int k = 0; k < m; ++k) s->x[k] += alpha * s->dx[k];
    for (int i = 0; i < s->n; ++i) y_step(s, i, alpha, s->dy, s->y + d * i);
    zero_ray_tangents(s, s->x), zero_ray_tangents(s, s->y);
    *alpha_out = alpha;
    return LUCID_OK;
}

/* The iterations from the start, the answer (the best iterate) into lambda and dual. */
static void solve(lucid_contact_run *run, ip *sp, double *lambda, double *dual) {
    const lucid_contact_options *o = run->o;
    ip s = *sp;
    start(run, &s, lambda);
    /* The answer is the iterate with the smallest model criterion: once the gap is below the
     * round-off of P x + c, iterates scatter around the round-off floor (the 1e3 kg on 1e-3 kg
     * stack: between 3e-6 and 3e-5) and the last one is no better than any other. The solve
     * stops when the criterion meets tol, or has not halved in STALL_WINDOW iterations. */
    int done = check(run, &s), k = 0, progress_k = 0;
    double best = run->result->model.abs, progress = best;
    size_t bytes = sizeof(double) * (size_t)s.m;
    memcpy(s.x_best, s.x, bytes), memcpy(s.y_best, s.y, bytes);
    while (!done && k < o->max_iter) {
        double alpha = 0.0;
        if (iterate(&s, &alpha) != LUCID_OK) { /* no factor even regularised: stop there */
            run->result->stalled = 1;
            break;
        }
        run->result->iterations = ++k;
        run->result->factorizations = s.factorizations;
        done = check(run, &s);
        double now = run->result->model.abs;
        if (!isfinite(now) || !isfinite(run->result->ncp.abs)) break; /* keep the best */
        if (now < best || done) {
            best = now;
            memcpy(s.x_best, s.x, bytes), memcpy(s.y_best, s.y, bytes);
        }
        if (now <= 0.5 * progress) progress = now, progress_k = k;
        if (!done && k - progress_k >= STALL_WINDOW) {
            run->result->stalled = 1;
            break;
        }
    }
    memcpy(s.x, s.x_best, bytes), memcpy(s.y, s.y_best, bytes);
    done = check(run, &s);
    run->result->converged = done;
    memcpy(lambda, s.lambda, sizeof(double) * (size_t)s.m);
    if (dual)
        for (int i = 0; i < s.n; ++i) {
            double y[MAX_DIM];
            y_full(&s, i, s.y + s.d * i, y);
            for (int a = 0; a < s.d; ++a) dual[s.d * i + a] = y[a] * dscale(&s, s.d * i + a);
        }
    *sp = s;
}

lucid_status lucid_contact_solve_ip(lucid_contact_run *run, double *lambda, double *dual) {
    const lucid_contact_problem *p = run->p;
    lucid_status status = lucid_contact_check_psd(run);
    if (status != LUCID_OK) return status;
    ip s = ip_layout(run);
    solve(run, &s, lambda, dual);
    /* The relaxed system's factor at the returned point, for the derivatives. */
    if (s.kappa > 0.0 && isfinite(run->result->ncp.abs)) {
        scale_all(&s);
        if (assemble_and_factor(&s) == LUCID_OK) {
            run->ws->ip_state.valid = 1;
            run->ws->ip_state.lu = s.ncp;
            run->ws->ip_state.n = p->n;
            run->ws->ip_state.G = p->G, run->ws->ip_state.g = p->g;
            run->ws->ip_state.mu = p->mu, run->ws->ip_state.R = p->R;
            ++run->result->factorizations;
        }
    }
    return LUCID_OK;
}

/* (G + R)_kk of every row: sum over the contact's sides of J_s row . W_s row (+ R) */
static void sparse_diagonal(const lucid_contact_sparse_problem *p, double *diag) {
    int dim = lucid_sparse_dim(p);
    for (int i = 0; i < p->n; ++i)
        for (int a = 0; a < dim; ++a) {
            double d = p->R ? p->R[dim * i + a] : 0.0;
            for (int side = 2 * i; side < 2 * i + 2; ++side) {
                if (p->body[side] < 0) continue;
                size_t w = lucid_sparse_width(p, p->body[side]);
                size_t at = lucid_sparse_side_at(p, side) + (size_t)a * w;
                for (size_t k = 0; k < w; ++k) d += p->J[at + k] * p->W[at + k];
            }
            diag[dim * i + a] = d;
        }
}

lucid_status lucid_contact_solve_ip_sparse(const lucid_contact_sparse_problem *p,
                                           const lucid_contact_options *o,
                                           lucid_contact_sparse_workspace *ws, double *lambda,
                                           double *dual, lucid_contact_result *result) {
    if (!result) return LUCID_ERR_ARGUMENT;
    memset(result, 0, sizeof *result);
    if (!p || !o || !ws || !lambda || p->n < 0 || p->num_bodies < 0 ||
        o->solver != LUCID_CONTACT_IP ||
        (o->model != LUCID_CONTACT_CCP && o->model != LUCID_CONTACT_NCP) || !(o->tol >= 0.0) ||
        o->max_iter < 0 || !(o->kappa >= 0.0) || !lucid_sparse_dim_valid(p->dim) ||
        (p->n > 0 && (!p->body || !p->J || !p->W || !p->M || !p->g || !p->mu)))
        return LUCID_ERR_ARGUMENT;
    int d = lucid_sparse_dim(p);
    lucid_contact_problem dense = {p->n, NULL, p->g, p->mu, p->R, d};
    lucid_contact_run run = {&dense, o, NULL, result, lucid_contact_model_criterion(o->model)};
    if (p->n == 0) {
        result->converged = 1;
        return LUCID_OK;
    }
    size_t m = (size_t)d * (size_t)p->n;
    double *b = lucid_contact_sparse_workspace_buffer(ws);
    ip s = {.p = &dense,
            .sp = p,
            .K = lucid_contact_sparse_workspace_kkt(ws),
            .n = p->n,
            .m = (int)m,
            .d = d,
            .ncp = o->model == LUCID_CONTACT_NCP,
            .kappa = o->kappa};
    double **slots[] = {&s.x,  &s.y,   &s.dx,   &s.dy,     &s.dxa,    &s.dya,
                        &s.r,  &s.rhs, &s.v,    &s.w,      &s.sigma,  &s.lambda,
                        &s.t1, &s.t2,  &s.yhat, &s.x_best, &s.y_best, &s.diag};
    size_t count = sizeof slots / sizeof slots[0];
    for (size_t k = 0; k < count; ++k) *slots[k] = b + k * m;
    s.W = b + count * m, s.W2 = s.W + d * m, s.Winv = s.W2 + d * m;
    s.B = s.Winv + d * m, s.u = s.B + d * m; /* 18 + 4 d vectors of d n, one of the columns */
    if (!s.K) return LUCID_ERR_NO_MEMORY;
    lucid_status status = lucid_contact_kkt_analyze(s.K, p);
    if (status != LUCID_OK) return status;
    sparse_diagonal(p, s.diag);
    solve(&run, &s, lambda, dual);
    return LUCID_OK;
}

/* ---- derivatives ------------------------------------------------------------------------- */

static lucid_status derivative_state(const lucid_contact_problem *p, lucid_contact_workspace *ws,
                                     ip *s) {
    if (!p || !ws || !ws->ip_state.valid || ws->ip_state.n != p->n || ws->ip_state.G != p->G ||
        ws->ip_state.g != p->g || ws->ip_state.mu != p->mu || ws->ip_state.R != p->R)
        return LUCID_ERR_ARGUMENT;
    lucid_contact_options o = lucid_contact_default_options();
    o.model = ws->ip_state.lu ? LUCID_CONTACT_NCP : LUCID_CONTACT_CCP;
    lucid_contact_result res;
    lucid_contact_run run = {p, &o, ws, &res, LUCID_CRITERION_NCP};
    *s = ip_layout(&run);
    unscale(s); /* lambda, sigma of the returned x (x, y, yhat and the factor are kept) */
    return LUCID_OK;
}

lucid_status lucid_contact_ip_jvp(const lucid_contact_problem *p, lucid_contact_workspace *ws,
                                  const double *dg, const double *dG, const double *dmu,
                                  const double *dR, double *dlambda) {
    ip s;
    lucid_status status = derivative_state(p, ws, &s);
    if (status != LUCID_OK) return status;
    if (!dg || !dlambda) return LUCID_ERR_ARGUMENT;
    int m = s.m;
    double *b = s.dx; /* b = D^-1 (dg + (dG + dR) lambda) + sum_i dmu_i d(P x + c)/dmu_i */
    for (int k = 0; k < m; ++k) b[k] = dg[k];
    if (dG)
        for (int j = 0; j < m; ++j)
            for (int i = 0; i < m; ++i) b[i] += dG[i + (size_t)m * j] * s.lambda[j];
    if (dR)
        for (int k = 0; k < m; ++k) b[k] += dR[k] * s.lambda[k];
    /* d(Px + c)/dmu_i = -sigma_Ni / mu_i^2 e_Ni - (lambda_Ni / mu_i) D^-1 H e_Ni: the second
     * term is accumulated unscaled in t1 = H (sum_i lambda_Ni dmu_i / mu_i e_Ni) */
    memset(s.t1, 0, sizeof(double) * (size_t)m);
    int any_mu = 0;
    for (int i = 0; dmu && i < s.n; ++i)
        if (!is_ray(&s, i) && dmu[i] != 0.0) {
            s.t1[s.d * i + HEAD] = s.lambda[s.d * i + HEAD] * dmu[i] / p->mu[i];
            any_mu = 1;
        }
    if (any_mu) {
        memcpy(s.t2, s.t1, sizeof(double) * (size_t)m);
        lucid_contact_problem H = *p;
        double *zero_g = s.w;
        memset(zero_g, 0, sizeof(double) * (size_t)m);
        H.g = zero_g;
        lucid_contact_velocity(&H, s.t2, s.t1); /* t1 = (G + R) t2 */
        for (int k = 0; k < m; ++k) b[k] -= s.t1[k];
    }
    for (int k = 0; k < m; ++k) b[k] /= dscale(&s, k);
    for (int i = 0; dmu && i < s.n; ++i)
        if (!is_ray(&s, i))
            b[s.d * i + HEAD] -= s.sigma[s.d * i + HEAD] * dmu[i] / (p->mu[i] * p->mu[i]);
    /* A dx = -(I + E) b (rays' tangents: 0) */
    apply_IE(&s, b);
    for (int k = 0; k < m; ++k) b[k] = -b[k];
    zero_ray_tangents(&s, b);
    factor_solve(&s, 0, b);
    for (int k = 0; k < m; ++k) dlambda[k] = b[k] / dscale(&s, k);
    for (int i = 0; dmu && i < s.n; ++i)
        if (!is_ray(&s, i)) dlambda[s.d * i + HEAD] -= s.lambda[s.d * i + HEAD] * dmu[i] / p->mu[i];
    return LUCID_OK;
}

lucid_status lucid_contact_ip_vjp(const lucid_contact_problem *p, lucid_contact_workspace *ws,
                                  const double *lambda_bar, double *g_bar, double *G_bar,
                                  double *mu_bar, double *R_bar) {
    ip s;
    lucid_status status = derivative_state(p, ws, &s);
    if (status != LUCID_OK) return status;
    if (!lambda_bar || !g_bar) return LUCID_ERR_ARGUMENT;
    int m = s.m;
    /* z = A^-T D^-1 lambda_bar; q = -(I + E)^T Pi z (Pi zeroes rays' tangents) */
    double *q = s.dx;
    for (int k = 0; k < m; ++k) q[k] = lambda_bar[k] / dscale(&s, k);
    factor_solve(&s, 1, q);
    zero_ray_tangents(&s, q);
    apply_IE_transposed(&s, q);
    for (int k = 0; k < m; ++k) q[k] = -q[k];
    for (int k = 0; k < m; ++k) g_bar[k] = q[k] / dscale(&s, k);
    if (G_bar)
        for (int j = 0; j < m; ++j)
            for (int i = 0; i < m; ++i) G_bar[i + (size_t)m * j] = g_bar[i] * s.lambda[j];
    if (R_bar)
        for (int k = 0; k < m; ++k) R_bar[k] = g_bar[k] * s.lambda[k];
    if (mu_bar) {
        /* mu_bar_i = q . d(Px + c)/dmu_i - lambda_bar_Ni lambda_Ni / mu_i
         *          = -q_Ni sigma_Ni / mu_i^2 - (lambda_Ni / mu_i) (H g_bar)_Ni - ... */
        lucid_contact_problem H = *p;
        double *zero_g = s.w;
        memset(zero_g, 0, sizeof(double) * (size_t)m);
        H.g = zero_g;
        lucid_contact_velocity(&H, g_bar, s.t1); /* t1 = (G + R) g_bar */
        for (int i = 0; i < s.n; ++i) {
            double mu = p->mu[i];
            if (is_ray(&s, i)) {
                mu_bar[i] = 0.0;
                continue;
            }
            int k = s.d * i + HEAD;
            double lN = s.lambda[k];
            mu_bar[i] =
                -q[k] * s.sigma[k] / (mu * mu) - lN / mu * s.t1[k] - lambda_bar[k] * lN / mu;
        }
    }
    return LUCID_OK;
}
