/* ncp:newton: semismooth Newton on the Alart-Curnier function of the Coulomb NCP (Alart and
 * Curnier 1991; Bertails-Descoubes et al. 2011). Per contact, with sigma = (G + R) lambda + g,
 *   tau_N = lambda_N - rho_N sigma_N,   tau_T = lambda_T - rho_T sigma_T,
 *   F_N = lambda_N - max(0, tau_N),     F_T = lambda_T - P_D(mu max(0, tau_N))(tau_T),
 * D(r) the disk (ball over the dim - 1 tangential rows) of radius r. F = 0 exactly at the
 * solutions of the De Saxce NCP the world solves (Signorini, Coulomb, maximal dissipation).
 * F is piecewise smooth; one element H of its generalised Jacobian gives the Newton direction
 * (H + eps I) d = -F, regularised by eps = theta |F| / |lambda| (dimensionless, as H is; it
 * vanishes at a solution: Fan and Yuan's regularised Newton) since H is singular on wedged
 * contacts (rows of G that depend on each other). theta follows Marquardt's rule within one of
 * his factors of 10: 1/10 after a full step, 1 after a shortened one (below 1/10 the direction
 * along a singular H outruns the line search on hyperstatic islands). Steps are taken with
 * the non-monotone Armijo rule of Grippo, Lampariello and Lucidi (1986) on the merit
 * phi = 1/2 |F|^2: decrease against the largest phi of the last NONMONOTONE iterates, which
 * lets the full steps cross the kinks of F where a monotone search crawls. Where the direction
 * is no descent direction or finds no decrease, the Levenberg-Marquardt direction
 * (H^T H + eps I) d = -H^T F, always one of descent, is taken. rho per contact is the inverse
 * of G + R's diagonal (rho_N = 1 / W_NN, rho_T = (dim - 1) / trace W_TT): the natural scale of
 * each contact, so that rho sigma is a force of the size of lambda. Stops when the iterate
 * projected onto its cones meets the NCP criterion's tol (lucid_contact_check); unconverged,
 * the iterate with the least criterion is the answer. The iteration is written once
 * (lucid_contact_ac_solve) for this dense backend and the body-space one
 * (contact_alart_curnier_sparse.c, contact_alart_curnier.h). */
#include <math.h>
#include <string.h>

#include "solvers/contact/contact_alart_curnier.h"
#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_math.h"
#include "solvers/dense/dense_kernels.h"

#define ARMIJO       1e-4 /* sufficient decrease: phi(a) <= (1 - 2 ARMIJO a) phi(0) */
#define MAX_HALVINGS 40   /* steps down to 2^-40 ~ 1e-12 of the full one */
#define NONMONOTONE  LUCID_CONTACT_AC_NONMONOTONE
#define MARQUARDT    10.0 /* Marquardt's factor on theta; theta in [1 / MARQUARDT, 1] */
#define MAX_DIM      LUCID_CONE_MAX_DIM

typedef lucid_contact_ac ac_solver;

void lucid_contact_ac_rho(int n, int dim, const double *diag, double *rho) {
    for (int i = 0; i < n; ++i) {
        double trace = 0.0;
        for (int a = 0; a < dim; ++a)
            if (a != 2) trace += diag[dim * i + a];
        for (int a = 0; a < dim; ++a)
            rho[dim * i + a] = a == 2 ? 1.0 / diag[dim * i + 2] : (dim - 1) / trace;
    }
}

void lucid_contact_ac_contact(int dim, double mu, double rn, double rt, const double *l,
                              const double *s, double *F, double *Dl, double *Ds) {
    double tn = l[2] - rn * s[2], tt[MAX_DIM], norm = 0.0;
    for (int a = 0; a < dim; ++a) tt[a] = a == 2 ? 0.0 : l[a] - rt * s[a];
    norm = lucid_cone_n_tangent_norm(dim, tt);
    double radius = mu * lucid_contact_fmax(tn, 0.0);
    int pressed = tn > 0.0, sticks = pressed && norm <= radius;
    double q = norm > 0.0 ? radius / norm : 0.0; /* sliding: P = q tau_T */
    F[2] = pressed ? rn * s[2] : l[2];
    for (int a = 0; a < dim; ++a)
        if (a != 2) F[a] = sticks ? rt * s[a] : l[a] - q * tt[a];
    if (!Dl) return;
    memset(Dl, 0, sizeof(double) * (size_t)(dim * dim));
    memset(Ds, 0, sizeof(double) * (size_t)(dim * dim));
    Dl[2 + dim * 2] = pressed ? 0.0 : 1.0;
    Ds[2 + dim * 2] = pressed ? rn : 0.0;
    for (int a = 0; a < dim; ++a) {
        if (a == 2) continue;
        if (sticks) {
            Ds[a + dim * a] = rt;
            continue;
        }
        double t_a = norm > 0.0 ? tt[a] / norm : 0.0;
        for (int b = 0; b < dim; ++b) { /* q (I - t t^T) over the tangential rows */
            if (b == 2) continue;
            double t_b = norm > 0.0 ? tt[b] / norm : 0.0, P = q * ((a == b) - t_a * t_b);
            Dl[a + dim * b] = (a == b) - P;
            Ds[a + dim * b] = rt * P;
        }
        if (pressed) Dl[a + dim * 2] = -mu * t_a, Ds[a + dim * 2] = mu * rn * t_a;
    }
}

/* F of every contact at (lambda, sigma); returns phi = 1/2 |F|^2. */
static double ac_residual(const ac_solver *s, const double *lambda, const double *sigma,
                          double *F) {
    double phi = 0.0;
    for (int i = 0; i < s->n; ++i) {
        int r = s->dim * i;
        lucid_contact_ac_contact(s->dim, s->p->mu[i], s->rho[r + 2], s->rho[r], lambda + r,
                                 sigma + r, F + r, NULL, NULL);
    }
    for (int k = 0; k < s->m; ++k) phi += 0.5 * F[k] * F[k];
    return isfinite(phi) ? phi : INFINITY;
}

/* eps = theta |F| / |lambda| (theta at lambda = 0): dimensionless as H is, vanishing at a
 * solution (Fan and Yuan's regularised Newton with exponent 1). */
static double ac_regularisation(const ac_solver *s, const double *lambda) {
    double fn = 0.0, ln = 0.0;
    for (int k = 0; k < s->m; ++k) fn += s->F[k] * s->F[k], ln += lambda[k] * lambda[k];
    return s->theta * (ln > 0.0 ? sqrt(fn / ln) : 1.0);
}

/* The non-monotone reference: the largest phi of the last NONMONOTONE iterates. */
static double ac_reference(const ac_solver *s) {
    double ref = 0.0;
    int n = s->steps < NONMONOTONE ? s->steps : NONMONOTONE;
    for (int j = 0; j < n; ++j) ref = fmax(ref, s->recent[j]);
    return ref;
}

/* Armijo backtracking along d from lambda: phi(a) <= ref + ARMIJO a slope, slope = phi'(0) <
 * 0, ref the non-monotone reference. On success lambda, sigma, F move to the accepted point,
 * *step is a and its phi is returned; else -1. */
static double ac_line_search(ac_solver *s, double *lambda, double slope, double *step) {
    int m = s->m;
    double a = 1.0, ref = ac_reference(s);
    for (int h = 0; h <= MAX_HALVINGS; ++h, a *= 0.5) {
        for (int k = 0; k < m; ++k) s->lt[k] = lambda[k] + a * s->d[k];
        s->b->velocity(s, s->lt, s->st);
        double trial = ac_residual(s, s->lt, s->st, s->Ft);
        if (trial <= ref + ARMIJO * a * slope) {
            memcpy(lambda, s->lt, sizeof(double) * (size_t)m);
            memcpy(s->sigma, s->st, sizeof(double) * (size_t)m);
            memcpy(s->F, s->Ft, sizeof(double) * (size_t)m);
            *step = a;
            return trial;
        }
    }
    return -1.0;
}

/* One iteration from the iterate whose merit is phi: the regularised Newton direction
 * (H + eps I) d = -F when it descends and the line search accepts a step (theta then follows
 * Marquardt's rule), else Levenberg-Marquardt's. Returns the new phi, or -1 when neither
 * finds a step. */
static double ac_step(ac_solver *s, double *lambda, double phi) {
    s->recent[s->steps++ % NONMONOTONE] = phi;
    s->b->jacobian(s, lambda);
    double step = 0.0;
    if (s->b->newton(s, ac_regularisation(s, lambda))) {
        double slope = s->b->slope(s);
        double next = slope < 0.0 ? ac_line_search(s, lambda, slope, &step) : -1.0;
        if (next >= 0.0) {
            s->theta = step == 1.0 ? fmax(s->theta / MARQUARDT, 1.0 / MARQUARDT)
                                   : fmin(s->theta * MARQUARDT, 1.0);
            return next;
        }
    }
    if (!s->b->lm(s, ac_regularisation(s, lambda))) return -1.0;
    double slope = s->b->slope(s);
    return slope < 0.0 ? ac_line_search(s, lambda, slope, &step) : -1.0;
}

/* Keeps lambda in best when its NCP criterion is the least so far. */
static void ac_keep_best(ac_solver *s, lucid_contact_run *run, const double *lambda,
                         double *best_abs) {
    if (!(run->result->ncp.abs < *best_abs)) return;
    *best_abs = run->result->ncp.abs;
    memcpy(s->best, lambda, sizeof(double) * (size_t)s->m);
    memcpy(s->best_sigma, s->sigma, sizeof(double) * (size_t)s->m);
}

/* lambda projected onto its cones (Newton's iterate meets the criterion's primal part only to
 * tol, so a force may leave its cone by that much) replaces lambda when it meets tol, or, with
 * or_no_worse, when lambda misses tol and the projection is no worse (lambda, sigma and the
 * criteria then move there, converged saying whether it meets tol; else the criteria stay
 * lambda's). Returns 1 when the projection meets tol. */
static int ac_project(ac_solver *s, lucid_contact_run *run, double *lambda, int or_no_worse) {
    lucid_contact_result kept = *run->result;
    lucid_cones_project(s->n, s->dim, s->p->mu, lambda, s->lt);
    s->b->velocity(s, s->lt, s->st);
    int met = lucid_contact_check(run, s->lt, s->st);
    if (!met && !(or_no_worse && !kept.converged && run->result->ncp.abs <= kept.ncp.abs)) {
        *run->result = kept;
        return 0;
    }
    run->result->converged = met;
    memcpy(lambda, s->lt, sizeof(double) * (size_t)s->m);
    memcpy(s->sigma, s->st, sizeof(double) * (size_t)s->m);
    return met;
}

void lucid_contact_ac_solve(ac_solver *s, lucid_contact_run *run, double *lambda) {
    s->theta = 1.0, s->steps = 0;
    s->b->velocity(s, lambda, s->sigma);
    double phi = ac_residual(s, lambda, s->sigma, s->F), best_abs = INFINITY;
    lucid_contact_result *res = run->result;
    double met_abs = INFINITY; /* the criterion of the last iterate meeting tol */
    int met = lucid_contact_check(run, lambda, s->sigma);
    res->converged = met && ac_project(s, run, lambda, 0);
    ac_keep_best(s, run, lambda, &best_abs);
    while (!res->converged && res->iterations < run->o->max_iter) {
        if (met) met_abs = res->ncp.abs;
        double next = ac_step(s, lambda, phi);
        res->factorizations++;
        if (next < 0.0) {
            res->stalled = 1;
            break;
        }
        phi = next;
        res->iterations++;
        met = lucid_contact_check(run, lambda, s->sigma);
        if (met && !(res->ncp.abs < met_abs)) break; /* met tol, the criterion no longer falls */
        res->converged = met && ac_project(s, run, lambda, 0);
        ac_keep_best(s, run, lambda, &best_abs);
    }
    if (!res->converged) {
        if (best_abs < res->ncp.abs) {
            memcpy(lambda, s->best, sizeof(double) * (size_t)s->m);
            memcpy(s->sigma, s->best_sigma, sizeof(double) * (size_t)s->m);
        }
        res->converged = lucid_contact_check(run, lambda, s->sigma);
        ac_project(s, run, lambda, 1);
    }
}

/* ---- the dense backend: H = Dl + Ds (G + R) formed, LU ---------------------------------- */

typedef struct dense_ac {
    double *H, *N; /* m x m: the generalised Jacobian, the LM matrix */
    int *ipiv;
} dense_ac;

static void dense_velocity(ac_solver *s, const double *lambda, double *sigma) {
    lucid_contact_velocity(s->p, lambda, sigma);
}

/* H = Dl + Ds W, row block by row block (W = G + R; Dl, Ds block diagonal). */
static void dense_jacobian(ac_solver *s, const double *lambda) {
    dense_ac *d = s->ctx;
    int dim = s->dim, m = s->m;
    const double *G = s->p->G, *R = s->p->R, *sigma = s->sigma;
    double Dl[MAX_DIM * MAX_DIM], Ds[MAX_DIM * MAX_DIM], F[MAX_DIM];
    for (int i = 0; i < s->n; ++i) {
        int r = dim * i;
        lucid_contact_ac_contact(dim, s->p->mu[i], s->rho[r + 2], s->rho[r], lambda + r, sigma + r,
                                 F, Dl, Ds);
        for (int c = 0; c < m; ++c) {
            const double *Wc = G + (size_t)m * (size_t)c;
            for (int a = 0; a < dim; ++a) {
                double h = c >= r && c < r + dim ? Dl[a + dim * (c - r)] : 0.0;
                for (int b = 0; b < dim; ++b) {
                    double w = Wc[r + b] + (R && r + b == c ? R[c] : 0.0);
                    h += Ds[a + dim * b] * w;
                }
                d->H[r + a + (size_t)m * (size_t)c] = h;
            }
        }
    }
}

/* d = -(H + eps I)^-1 F by LU (N holds the factor); 0 when singular or d is not finite. */
static int dense_newton(ac_solver *s, double eps) {
    dense_ac *d = s->ctx;
    int m = s->m;
    memcpy(d->N, d->H, sizeof(double) * (size_t)m * (size_t)m);
    for (int k = 0; k < m; ++k) d->N[k + (size_t)m * (size_t)k] += eps;
    if (lucid_dense_getrf(m, d->N, m, d->ipiv) != 0) return 0;
    for (int k = 0; k < m; ++k) s->d[k] = -s->F[k];
    lucid_dense_getrs(0, m, 1, d->N, m, d->ipiv, s->d, m);
    for (int k = 0; k < m; ++k)
        if (!isfinite(s->d[k])) return 0;
    return 1;
}

/* d = -(H^T H + eps I)^-1 H^T F (Levenberg-Marquardt); 0 on failure. */
static int dense_lm(ac_solver *s, double eps) {
    dense_ac *d = s->ctx;
    int m = s->m;
    for (int j = 0; j < m; ++j) { /* lower triangle of H^T H + eps I */
        const double *hj = d->H + (size_t)m * (size_t)j;
        for (int i = j; i < m; ++i) {
            const double *hi = d->H + (size_t)m * (size_t)i;
            double v = 0.0;
            for (int k = 0; k < m; ++k) v += hi[k] * hj[k];
            d->N[i + (size_t)m * (size_t)j] = v + (i == j ? eps : 0.0);
        }
    }
    for (int j = 0; j < m; ++j) { /* d = -H^T F */
        const double *hj = d->H + (size_t)m * (size_t)j;
        double v = 0.0;
        for (int k = 0; k < m; ++k) v += hj[k] * s->F[k];
        s->d[j] = -v;
    }
    if (lucid_dense_potrf(m, d->N, m) != 0) return 0;
    lucid_dense_potrs(m, 1, d->N, m, s->d, m);
    for (int k = 0; k < m; ++k)
        if (!isfinite(s->d[k])) return 0;
    return 1;
}

/* phi'(0) = F . H d along the direction d. */
static double dense_slope(ac_solver *s) {
    const dense_ac *d = s->ctx;
    int m = s->m;
    double v = 0.0;
    for (int c = 0; c < m; ++c) {
        const double *hc = d->H + (size_t)m * (size_t)c;
        double dc = s->d[c];
        for (int r = 0; r < m; ++r) v += s->F[r] * hc[r] * dc;
    }
    return v;
}

static const lucid_contact_ac_backend DENSE = {dense_velocity, dense_jacobian, dense_newton,
                                               dense_lm, dense_slope};

lucid_status lucid_contact_solve_alart_curnier(lucid_contact_run *run, double *lambda) {
    const lucid_contact_problem *p = run->p;
    lucid_contact_workspace *ws = run->ws;
    dense_ac d = {ws->mat[1], ws->mat[2], ws->ipiv};
    ac_solver s;
    memset(&s, 0, sizeof s);
    s.p = p, s.b = &DENSE, s.ctx = &d;
    s.n = p->n, s.dim = lucid_contact_dim(p), s.m = (int)lucid_contact_rows(p);
    s.rho = ws->vec[6], s.sigma = ws->vec[0], s.F = ws->vec[1], s.d = ws->vec[2];
    s.lt = ws->vec[3], s.st = ws->vec[4], s.Ft = ws->vec[5];
    s.best = ws->vec[7], s.best_sigma = ws->vec[8];
    if (run->o->check_psd) {
        lucid_status status = lucid_contact_check_psd(run);
        if (status != LUCID_OK) return status;
    }
    for (int k = 0; k < s.m; ++k) s.lt[k] = lucid_contact_diag(p, k); /* W's diagonal */
    lucid_contact_ac_rho(s.n, s.dim, s.lt, s.rho);
    lucid_contact_ac_solve(&s, run, lambda);
    ws->sigma_current = 1;
    return LUCID_OK;
}
