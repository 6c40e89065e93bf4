/* Projected Gauss-Seidel for the LCP (Alg. 1), CCP (Alg. 2) and NCP (Alg. 6) models.
 * Sweeps over contacts, updating each one's impulse from its current velocity and projecting
 * it; the velocity sigma = (G + R) lambda + g is kept up to date incrementally (one column
 * block of G per contact), so a sweep costs O((3n)^2) like one product with G. */
#include <math.h>
#include <string.h>

#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_internal.h"
#include "solvers/contact/contact_math.h"

/* D[a + 3 b] = (G + R)_ii(a, b) */
#define D_(a, b) D[(a) + 3 * (b)]

/* The Gershgorin bound of the largest eigenvalue of D's leading k x k block (k = 2, 3). A
 * projected gradient step on a block decreases its quadratic only below 2 / eig_max: the
 * paper's steps (3 / trace on the cone, 1 / min of the tangential diagonal) reach 3 / eig_max
 * and beyond on a block with one stiff direction, and the sweeps diverge; they are capped at
 * 2 / bound, where the iteration cannot grow. */
static double eig_bound(const double D[9], int k) {
    double top = 0.0;
    for (int a = 0; a < k; ++a) {
        double row = 0.0;
        for (int b = 0; b < k; ++b) row += fabs(D_(a, b));
        top = lucid_contact_fmax(top, row);
    }
    return top;
}

/* Alg. 1 / Alg. 6: normal step, then a tangential step (isotropic, at most 2 / eig_bound of
 * the tangential block) with the updated velocity; the LCP
 * clamps each tangential component to [-mu lN, mu lN] (the 4-facet box pyramid: facets
 * normal to t1 and t2), the NCP projects the tangential vector on the disk of radius mu lN. */
static void update_split(lucid_contact_model model, double mu, const double D[9], const double s[3],
                         double l[3]) {
    double lN = lucid_contact_fmax(0.0, l[2] - s[2] / D_(2, 2));
    double dN = lN - l[2];
    double tangent_step = fmin(1.0 / fmin(D_(0, 0), D_(1, 1)), 2.0 / eig_bound(D, 2));
    double sT[2] = {s[0] + D_(0, 2) * dN, s[1] + D_(1, 2) * dN};
    l[0] -= tangent_step * sT[0];
    l[1] -= tangent_step * sT[1];
    l[2] = lN;
    if (model == LUCID_CONTACT_LCP) {
        double bound = mu * lN;
        l[0] = fmin(bound, lucid_contact_fmax(-bound, l[0]));
        l[1] = fmin(bound, lucid_contact_fmax(-bound, l[1]));
    } else {
        lucid_cone_project_horizontal(mu, l);
    }
}

/* Alg. 2: one step on the whole contact, scaled by 3 / trace (at most 2 / eig_bound), then a
 * cone projection. */
static void update_cone(double mu, const double D[9], const double s[3], double l[3]) {
    double step = fmin(3.0 / (D_(0, 0) + D_(1, 1) + D_(2, 2)), 2.0 / eig_bound(D, 3));
    for (int a = 0; a < 3; ++a) l[a] -= step * s[a];
    lucid_cone_project(mu, l, l);
}

/* ---- contacts of dim 4 or 6 (torsional friction: (t1, t2, n, s), s a third tangential row;
 * rolling friction: (t1, t2, n, s, r1, r2), five tangential rows) ---- */

/* The Gershgorin bound of the largest eigenvalue of D's block over the rows `rows` (dim x dim
 * D). */
static double eig_bound_n(int dim, const double *D, const int *rows, int k) {
    double top = 0.0;
    for (int a = 0; a < k; ++a) {
        double row = 0.0;
        for (int b = 0; b < k; ++b) row += fabs(D[rows[a] + dim * rows[b]]);
        top = lucid_contact_fmax(top, row);
    }
    return top;
}

/* Alg. 6 / Alg. 1 / Alg. 2 with dim - 1 tangential rows (0, 1, 3, ...): the NCP's and LCP's
 * exact normal step, then the tangential step (at most 2 / eig_bound of their block) and the
 * NCP's horizontal projection on the ball of radius mu lN, or the LCP's clamp of each row to
 * [-mu lN, mu lN] (the box pyramid over the dim - 1 rows); the CCP's step dim / trace (at most
 * 2 / eig_bound) and the cone's projection. */
static void update_n(int dim, lucid_contact_model model, double mu, const double *D,
                     const double *s, double *l) {
    static const int tangent[5] = {0, 1, 3, 4, 5}, all[6] = {0, 1, 2, 3, 4, 5};
    int nt = dim - 1;
    if (model == LUCID_CONTACT_CCP) {
        double trace = 0.0;
        for (int a = 0; a < dim; ++a) trace += D[a * (dim + 1)];
        double step = fmin(dim / trace, 2.0 / eig_bound_n(dim, D, all, dim));
        for (int a = 0; a < dim; ++a) l[a] -= step * s[a];
        lucid_cone_n_project(dim, mu, l, l);
        return;
    }
    double lN = lucid_contact_fmax(0.0, l[2] - s[2] / D[2 * (dim + 1)]), dN = lN - l[2];
    double smallest = D[0];
    for (int k = 1; k < nt; ++k) smallest = fmin(smallest, D[tangent[k] * (dim + 1)]);
    double step = fmin(1.0 / smallest, 2.0 / eig_bound_n(dim, D, tangent, nt));
    for (int k = 0; k < nt; ++k)
        l[tangent[k]] -= step * (s[tangent[k]] + D[tangent[k] + 2 * dim] * dN);
    l[2] = lN;
    double radius = mu * lN, r = lucid_cone_n_tangent_norm(dim, l);
    if (model == LUCID_CONTACT_LCP) { /* the box pyramid: each row clamped to its bound */
        for (int k = 0; k < nt; ++k)
            l[tangent[k]] = fmin(radius, lucid_contact_fmax(-radius, l[tangent[k]]));
    } else if (r > radius) {
        double scale = r > 0.0 ? radius / r : 0.0;
        for (int k = 0; k < nt; ++k) l[tangent[k]] *= scale;
    }
}

void lucid_contact_pgs_update(int dim, lucid_contact_model model, double mu, const double *D,
                              const double *s, double *l) {
    if (dim > 3)
        update_n(dim, model, mu, D, s, l);
    else if (model == LUCID_CONTACT_CCP)
        update_cone(mu, D, s, l);
    else
        update_split(model, mu, D, s, l);
}

/* One sweep over the contacts, sigma += (G + R)[:, contact i's columns] delta_i after each;
 * returns the largest change. */
static double sweep(const lucid_contact_problem *p, lucid_contact_model model, double w,
                    double *lambda, double *sigma) {
    int dim = lucid_contact_dim(p);
    long m = (long)dim * p->n;
    double change = 0.0;
    for (int i = 0; i < p->n; ++i) {
        double *li = lambda + dim * i, l[6], D[36], delta[6];
        for (int a = 0; a < dim; ++a) l[a] = li[a];
        for (int b = 0; b < dim; ++b)
            for (int a = 0; a < dim; ++a)
                D[a + dim * b] = lucid_contact_entry(p, dim * i + a, dim * i + b);
        lucid_contact_pgs_update(dim, model, p->mu[i], D, sigma + dim * i, l);
        for (int a = 0; a < dim; ++a) {
            delta[a] = w * (l[a] - li[a]);
            li[a] += delta[a];
            change = lucid_contact_fmax(change, fabs(delta[a]));
            if (delta[a] == 0.0) continue;
            const double *column = p->G + m * (dim * i + a);
            for (long k = 0; k < m; ++k) sigma[k] += column[k] * delta[a];
            if (p->R) sigma[dim * i + a] += p->R[dim * i + a] * delta[a];
        }
    }
    return change;
}

lucid_status lucid_contact_solve_pgs(lucid_contact_run *run, double *lambda) {
    const lucid_contact_problem *p = run->p;
    const lucid_contact_options *o = run->o;
    if (o->check_psd) {
        lucid_status status = lucid_contact_check_psd(run);
        if (status != LUCID_OK) return status;
    }
    long m = lucid_contact_rows(p);
    double *sigma = run->ws->vec[0];
    lucid_contact_velocity(p, lambda, sigma);
    if (lucid_contact_check(run, lambda, sigma)) {
        run->result->converged = 1;
        return LUCID_OK;
    }
    double w = o->relaxation;
    for (int k = 1; k <= o->max_iter; ++k) {
        double change = sweep(p, o->model, w, lambda, sigma);
        run->result->iterations = k;
        if (lucid_contact_check(run, lambda, sigma)) {
            run->result->converged = 1;
            break;
        }
        if (lucid_contact_stalled(change, lucid_contact_max_abs(lambda, m), o->stall_tol)) {
            run->result->stalled = 1;
            break;
        }
    }
    /* Rebuild sigma-derived criteria from scratch so the report has no incremental drift. */
    lucid_contact_velocity(p, lambda, sigma);
    run->result->converged = lucid_contact_check(run, lambda, sigma);
    return LUCID_OK;
}
