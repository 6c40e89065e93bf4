/* ncp:newton (contact_alart_curnier.c) on the body-space problem (contact_sparse.h): the same
 * iteration (contact_alart_curnier.h's loop), G = J M^-1 J^T never formed. The generalised
 * Jacobian is H = A + B (G + R), A = Dl and B = Ds block diagonal (one d x d block a contact,
 * from the projections); with u = M^-1 J^T d the Newton direction (H + eps I) d = -F is
 *   [ M      -J^T        ] [u]   [ 0]
 *   [ B J   A + eps I + B R] [d] = [-F],
 * sparse and non-symmetric (O(contacts + bodies) entries), factorised by KLU
 * (contact_sparse_kkt.h, lucid_contact_kkt_factor_rows). Eliminating u gives back
 * (A + eps I + B (G + R)) d = -F: the dense path's system, the same direction to rounding.
 * Why this form: H's contact-space matrix has a block for every pair of contacts sharing a
 * body, and the Hessian form M + J^T B^-1 A J needs B invertible, which it is not (B_k = 0 on a
 * contact out of touch, rank 2 on a sliding one); the alternatives are compared in
 * docs/benchmarks/solve_choice.md.
 * Levenberg-Marquardt's direction (H^T H + eps I) d = -H^T F is taken by CGLS on the damped
 * least-squares problem min |H d + F|^2 + eps |d|^2 through products with H and H^T (two
 * applications of G each), stopped by the inexact-Newton forcing term min(1/2, eps) on the
 * normal equations' residual: every CGLS iterate lowers the damped objective from d = 0, so
 * F . H d < 0 (a descent direction) wherever it stops. Nothing is allocated beyond KLU's own
 * (ws reserved for p). */
#include <math.h>
#include <string.h>

#include "solvers/contact/contact_alart_curnier.h"
#include "solvers/contact/contact_sparse.h"
#include "solvers/contact/contact_sparse_hessian.h"
#include "solvers/contact/contact_sparse_kkt.h"

typedef struct sparse_ac {
    const lucid_contact_sparse_problem *p;
    lucid_contact_kkt *K;
    double *u;             /* the slots' columns: scratch of G's products */
    double *A, *B, *KB;    /* n blocks of d x d, row-major: Dl, Ds, K's A + eps I + B R */
    double *Hd, *Wd;       /* H d and (G + R) d of the direction */
    double *r, *z, *q, *t; /* CGLS */
} sparse_ac;

/* sigma = (G + R) lambda + g */
static void sparse_velocity(lucid_contact_ac *s, const double *lambda, double *sigma) {
    sparse_ac *c = s->ctx;
    lucid_contact_sparse_apply(c->p, lambda, c->u, sigma);
    for (int k = 0; k < s->m; ++k) sigma[k] += c->p->g[k];
}

/* A and B of every contact at (lambda, s->sigma), row-major. */
static void sparse_jacobian(lucid_contact_ac *s, const double *lambda) {
    sparse_ac *c = s->ctx;
    int d = s->dim;
    double Dl[LUCID_CONE_MAX_DIM * LUCID_CONE_MAX_DIM], Ds[LUCID_CONE_MAX_DIM * LUCID_CONE_MAX_DIM];
    double F[LUCID_CONE_MAX_DIM];
    for (int i = 0; i < s->n; ++i) {
        int r = d * i;
        lucid_contact_ac_contact(d, s->p->mu[i], s->rho[r + 2], s->rho[r], lambda + r, s->sigma + r,
                                 F, Dl, Ds);
        double *A = c->A + (size_t)d * (size_t)r, *B = c->B + (size_t)d * (size_t)r;
        for (int a = 0; a < d; ++a)
            for (int b = 0; b < d; ++b) A[d * a + b] = Dl[a + d * b], B[d * a + b] = Ds[a + d * b];
    }
}

/* y = X x block by block (X: n blocks of d x d, row-major; transposed with `t`). */
static void blocks_times(const lucid_contact_ac *s, const double *X, int t, const double *x,
                         double *y) {
    int d = s->dim;
    for (int i = 0; i < s->n; ++i) {
        const double *Xi = X + (size_t)d * (size_t)d * (size_t)i, *xi = x + d * i;
        for (int a = 0; a < d; ++a) {
            double v = 0.0;
            for (int b = 0; b < d; ++b) v += (t ? Xi[d * b + a] : Xi[d * a + b]) * xi[b];
            y[d * i + a] = v;
        }
    }
}

/* y = H x = A x + B (G + R) x (w: scratch of m) */
static void h_times(lucid_contact_ac *s, const double *x, double *w, double *y) {
    sparse_ac *c = s->ctx;
    lucid_contact_sparse_apply(c->p, x, c->u, w);
    blocks_times(s, c->B, 0, w, y);
    for (int i = 0; i < s->n; ++i) {
        const double *A = c->A + (size_t)(s->dim * s->dim) * (size_t)i, *xi = x + s->dim * i;
        for (int a = 0; a < s->dim; ++a)
            for (int b = 0; b < s->dim; ++b) y[s->dim * i + a] += A[s->dim * a + b] * xi[b];
    }
}

/* y = H^T x = A^T x + (G + R) B^T x (w: scratch of m) */
static void ht_times(lucid_contact_ac *s, const double *x, double *w, double *y) {
    sparse_ac *c = s->ctx;
    blocks_times(s, c->B, 1, x, w);
    lucid_contact_sparse_apply(c->p, w, c->u, y);
    blocks_times(s, c->A, 1, x, w);
    for (int k = 0; k < s->m; ++k) y[k] += w[k];
}

static int all_finite(const double *x, int m) {
    for (int k = 0; k < m; ++k)
        if (!isfinite(x[k])) return 0;
    return 1;
}

/* |(H + eps I) d + F| <= min(1/2, eps) |F|: the inexact Newton condition (Dembo, Eisenstat and
 * Steihaug) with a forcing term vanishing as eps does, which keeps Newton's fast convergence. */
static int accurate(lucid_contact_ac *s, double eps) {
    sparse_ac *c = s->ctx;
    h_times(s, s->d, c->Wd, c->Hd);
    double r = 0.0, f = 0.0;
    for (int k = 0; k < s->m; ++k) {
        double e = c->Hd[k] + eps * s->d[k] + s->F[k];
        r += e * e, f += s->F[k] * s->F[k];
    }
    return r <= fmin(0.25, eps * eps) * f;
}

/* d = -F solved with K's factor. */
static int solve_direction(lucid_contact_ac *s) {
    sparse_ac *c = s->ctx;
    for (int k = 0; k < s->m; ++k) s->d[k] = -s->F[k];
    lucid_contact_kkt_solve(c->K, s->d);
    return all_finite(s->d, s->m);
}

/* (H + eps I) d = -F through K = [M -J^T; B J, A + eps I + B R], refactorised with the last
 * pivots, new pivots when that solve is not accurate (inexact Newton's condition). */
static int sparse_newton(lucid_contact_ac *s, double eps) {
    sparse_ac *c = s->ctx;
    int d = s->dim, kept = 0;
    const double *R = c->p->R;
    for (int i = 0; i < s->n; ++i) {
        size_t at = (size_t)d * (size_t)d * (size_t)i;
        for (int a = 0; a < d; ++a)
            for (int b = 0; b < d; ++b) {
                size_t e = at + (size_t)(d * a + b);
                c->KB[e] = c->A[e] + (a == b ? eps : 0.0) + (R ? c->B[e] * R[d * i + b] : 0.0);
            }
    }
    if (lucid_contact_kkt_factor_rows(c->K, c->p, c->B, c->KB, 0, &kept) != LUCID_OK) return 0;
    if (solve_direction(s) && (!kept || accurate(s, eps))) return 1;
    if (!kept || lucid_contact_kkt_factor_rows(c->K, c->p, c->B, c->KB, 1, &kept) != LUCID_OK)
        return 0;
    return solve_direction(s);
}

static double dot(const double *x, const double *y, int m) {
    double v = 0.0;
    for (int k = 0; k < m; ++k) v += x[k] * y[k];
    return v;
}

/* CGLS on min |H d + F|^2 + eps |d|^2 from d = 0 (Paige and Saunders' damped form): z the
 * normal equations' residual -H^T (H d + F) - eps d, stopped when |z| <= min(1/2, eps) |z_0|
 * or after m iterations (exact in exact arithmetic). */
static int sparse_lm(lucid_contact_ac *s, double eps) {
    sparse_ac *c = s->ctx;
    int m = s->m;
    double *x = s->d, *r = c->r, *z = c->z, *pd = c->q, *q = c->Hd;
    for (int k = 0; k < m; ++k) x[k] = 0.0, r[k] = -s->F[k];
    ht_times(s, r, c->t, z);
    memcpy(pd, z, sizeof(double) * (size_t)m);
    double gamma = dot(z, z, m), stop = fmin(0.5, eps) * sqrt(gamma);
    for (int it = 0; it < m && sqrt(gamma) > stop; ++it) {
        h_times(s, pd, c->t, q);
        double delta = dot(q, q, m) + eps * dot(pd, pd, m);
        if (!(delta > 0.0)) break;
        double alpha = gamma / delta;
        for (int k = 0; k < m; ++k) x[k] += alpha * pd[k], r[k] -= alpha * q[k];
        ht_times(s, r, c->t, z);
        for (int k = 0; k < m; ++k) z[k] -= eps * x[k];
        double next = dot(z, z, m);
        for (int k = 0; k < m; ++k) pd[k] = z[k] + next / gamma * pd[k];
        gamma = next;
    }
    return all_finite(x, m) && dot(x, x, m) > 0.0;
}

/* phi'(0) = F . H d */
static double sparse_slope(lucid_contact_ac *s) {
    sparse_ac *c = s->ctx;
    h_times(s, s->d, c->Wd, c->Hd);
    return dot(s->F, c->Hd, s->m);
}

static const lucid_contact_ac_backend SPARSE = {sparse_velocity, sparse_jacobian, sparse_newton,
                                                sparse_lm, sparse_slope};

/* The n dim diagonal entries of G + R: per row, the sides' J row . W row (+ R). */
static void sparse_diagonal(const lucid_contact_sparse_problem *p, double *diag) {
    int dim = lucid_sparse_dim(p);
    for (int i = 0; i < p->n; ++i)
        for (int a = 0; a < dim; ++a) {
            double v = p->R ? p->R[dim * i + a] : 0.0;
            for (int side = 2 * i; side < 2 * i + 2; ++side) {
                if (p->body[side] < 0) continue;
                size_t w = lucid_sparse_width(p, p->body[side]);
                size_t at = lucid_sparse_side_at(p, side) + (size_t)a * w;
                for (size_t k = 0; k < w; ++k) v += p->J[at + k] * p->W[at + k];
            }
            diag[dim * i + a] = v;
        }
}

lucid_status lucid_contact_solve_alart_curnier_sparse(const lucid_contact_sparse_problem *p,
                                                      const lucid_contact_options *o,
                                                      lucid_contact_sparse_workspace *ws,
                                                      double *lambda,
                                                      lucid_contact_result *result) {
    if (!result) return LUCID_ERR_ARGUMENT;
    memset(result, 0, sizeof *result);
    if (!p || !o || !ws || !lambda || p->n < 0 || p->num_bodies < 0 ||
        o->solver != LUCID_CONTACT_NEWTON || o->model != LUCID_CONTACT_NCP || !(o->tol >= 0.0) ||
        o->max_iter < 0 || !lucid_sparse_dim_valid(p->dim) ||
        (p->n > 0 && (!p->body || !p->J || !p->W || !p->M || !p->g || !p->mu)))
        return LUCID_ERR_ARGUMENT;
    int d = lucid_sparse_dim(p), m = d * p->n;
    if (!o->warm_start) memset(lambda, 0, sizeof(double) * (size_t)m);
    lucid_contact_problem dense = {p->n, NULL, p->g, p->mu, p->R, d};
    lucid_contact_run run = {&dense, o, NULL, result, LUCID_CRITERION_NCP};
    if (p->n == 0) {
        result->converged = 1;
        return LUCID_OK;
    }
    double *v = lucid_contact_sparse_workspace_buffer(ws);
    double *vec[16];
    for (int k = 0; k < 16; ++k) vec[k] = v + (size_t)k * (size_t)m;
    size_t blocks = (size_t)d * (size_t)m; /* 16 + 3 d vectors of m, one of the columns */
    sparse_ac c = {.p = p,
                   .K = lucid_contact_sparse_workspace_kkt(ws),
                   .A = v + 16 * (size_t)m,
                   .Hd = vec[9],
                   .Wd = vec[10],
                   .r = vec[11],
                   .z = vec[12],
                   .q = vec[13],
                   .t = vec[14]};
    c.B = c.A + blocks, c.KB = c.B + blocks, c.u = c.KB + blocks;
    if (!c.K) return LUCID_ERR_NO_MEMORY;
    lucid_contact_ac s = {.p = &dense, .b = &SPARSE, .ctx = &c, .n = p->n, .dim = d, .m = m};
    s.rho = vec[0], s.sigma = vec[1], s.F = vec[2], s.d = vec[3], s.lt = vec[4], s.st = vec[5];
    s.Ft = vec[6], s.best = vec[7], s.best_sigma = vec[8];
    sparse_diagonal(p, s.lt);
    for (int k = 0; k < m; ++k)
        if (!(s.lt[k] > 0.0)) return LUCID_ERR_NOT_SPD; /* a null row the caller left */
    lucid_contact_ac_rho(p->n, d, s.lt, s.rho);
    lucid_status status = lucid_contact_kkt_analyze(c.K, p);
    if (status != LUCID_OK) return status;
    lucid_contact_ac_solve(&s, &run, lambda);
    return LUCID_OK;
}
