#include "solvers/contact/contact_criteria.h"

#include <math.h>

#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_math.h"

lucid_contact_criterion lucid_contact_model_criterion(lucid_contact_model model) {
    switch (model) {
        case LUCID_CONTACT_LCP:
            return LUCID_CRITERION_LCP;
        case LUCID_CONTACT_CCP:
            return LUCID_CRITERION_CCP;
        case LUCID_CONTACT_RAISIM:
        case LUCID_CONTACT_NCP:
            break;
    }
    return LUCID_CRITERION_NCP;
}

/* The corrected velocity sigma + Gamma(sigma) of one contact. */
static void corrected_velocity(lucid_contact_criterion kind, double mu, const double s[3],
                               double d[3]) {
    d[0] = s[0], d[1] = s[1], d[2] = s[2];
    if (kind == LUCID_CRITERION_NCP) d[2] += mu * lucid_contact_hypot(s[0], s[1]);
    if (kind == LUCID_CRITERION_LCP) d[2] += mu * (fabs(s[0]) + fabs(s[1]));
}

/* fmax drops NaN; every maximum here must instead make a NaN (or Inf) the worst value. */
static double worst(double a, double b) {
    if (isnan(a) || isnan(b)) return INFINITY;
    return lucid_contact_fmax(a, b);
}

static double max_abs(const double *x, long count) {
    double m = 0.0;
    for (long k = 0; k < count; ++k) m = worst(m, fabs(x[k]));
    return m;
}

static double scaled(double value, double scale) {
    if (!isfinite(value)) return INFINITY;
    return scale > 0.0 ? value / scale : value;
}

static int finite3(const double x[3]) {
    return isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]);
}

/* A residual that overflowed or is NaN (e.g. Inf - Inf in a product) is infinite. */
static double residual(double value) {
    return isfinite(value) ? value : INFINITY;
}

void lucid_contact_answer_scales(const lucid_contact_problem *p, const double *lambda,
                                 const double *sigma, double *force, double *velocity) {
    double f = 0.0, v = 0.0;
    for (long k = 0; k < lucid_contact_rows(p); ++k) {
        f = lucid_contact_fmax(f, fabs(lambda[k]));
        v = lucid_contact_fmax(v, lucid_contact_fmax(fabs(p->g[k]), fabs(sigma[k] - p->g[k])));
    }
    *force = f, *velocity = v;
}

/* The residuals (eps_p, eps_d, eps_c) of a contact with torsional (dim 4) or rolling friction
 * (dim 6): the second-order cone over (t1, t2, s[, r1, r2]) with the NCP's Gamma
 * mu ||sigma_T|| (none for the CCP); the LCP's box pyramid over the same rows with its Gamma
 * mu ||sigma_T||_1, as for dim 3. */
static void residuals_n(lucid_contact_criterion kind, int dim, double mu, const double *l,
                        const double *s, double out[3]) {
    double d[LUCID_CONE_MAX_DIM], dot = 0.0;
    int finite = 1;
    for (int k = 0; k < dim; ++k) d[k] = s[k];
    if (kind == LUCID_CRITERION_NCP) d[2] += mu * lucid_cone_n_tangent_norm(dim, s);
    if (kind == LUCID_CRITERION_LCP) {
        for (int k = 0; k < dim; ++k) d[2] += k == 2 ? 0.0 : mu * fabs(s[k]);
        out[0] = lucid_pyramid_n_distance(dim, mu, l);
        out[1] = lucid_pyramid_n_distance_dual(dim, mu, d);
    } else {
        out[0] = lucid_cone_n_distance(dim, mu, l);
        out[1] = lucid_cone_n_distance_dual(dim, mu, d);
    }
    for (int k = 0; k < dim; ++k) dot += l[k] * d[k], finite &= isfinite(l[k]) && isfinite(d[k]);
    out[2] = fabs(dot);
    if (!finite) out[0] = out[1] = out[2] = INFINITY;
}

void lucid_contact_criteria_eval(const lucid_contact_problem *p, lucid_contact_criterion kind,
                                 const double *lambda, const double *sigma, double *per_contact,
                                 lucid_contact_criteria *out) {
    double ep = 0.0, ed = 0.0, ec = 0.0;
    int dim = lucid_contact_dim(p);
    for (int i = 0; i < p->n; ++i) {
        const double *l = lambda + dim * i, *s = sigma + dim * i;
        double mu = p->mu[i], d[3], pi, di, ci;
        if (dim > 3) {
            double r[3];
            residuals_n(kind, dim, mu, l, s, r);
            pi = r[0], di = r[1], ci = r[2];
        } else {
            corrected_velocity(kind, mu, s, d);
            int pyramid = kind == LUCID_CRITERION_LCP;
            pi = pyramid ? lucid_pyramid_distance(mu, l) : lucid_cone_distance(mu, l);
            di = pyramid ? lucid_pyramid_distance_dual(mu, d) : lucid_cone_distance_dual(mu, d);
            ci = fabs(l[0] * d[0] + l[1] * d[1] + l[2] * d[2]);
            if (!finite3(l) || !finite3(d)) pi = di = ci = INFINITY;
        }
        pi = residual(pi), di = residual(di), ci = residual(ci);
        if (per_contact)
            per_contact[3 * i] = pi, per_contact[3 * i + 1] = di, per_contact[3 * i + 2] = ci;
        ep = worst(ep, pi), ed = worst(ed, di), ec = worst(ec, ci);
    }
    long m = lucid_contact_rows(p);
    double force = max_abs(lambda, m), velocity = max_abs(p->g, m);
    for (long k = 0; k < m; ++k) velocity = worst(velocity, fabs(sigma[k] - p->g[k]));
    out->primal = ep, out->dual = ed, out->complementarity = ec;
    out->abs = worst(ep, worst(ed, ec));
    out->primal_scaled = scaled(ep, force);
    out->dual_scaled = scaled(ed, velocity);
    out->complementarity_scaled = scaled(ec, force * velocity);
    out->scaled = worst(out->primal_scaled, worst(out->dual_scaled, out->complementarity_scaled));
}
