#include "solvers/contact/contact_round_off.h"

#include <float.h>
#include <math.h>

/* Row r of sigma = g + (G + R) lambda (*sigma) and its rounding (*delta): lambda's storage,
 * sum_j |(G + R)_rj| ulp(lambda_j) / 2, plus the sum's own, eps (|g_r| + sum_j |(G + R)_rj
 * lambda_j|) with eps / 2 the unit round-off. */
static void row(const lucid_contact_problem *p, const double *lambda, long r, double *sigma,
                double *delta) {
    long m = lucid_contact_rows(p);
    double rr = p->R ? p->R[r] : 0.0;
    double v = p->g[r] + rr * lambda[r], size = fabs(p->g[r]) + fabs(rr * lambda[r]);
    double moved = rr * lucid_half_ulp(lambda[r]);
    for (long j = 0; j < m; ++j) {
        double a = p->G[r + m * j];
        v += a * lambda[j], size += fabs(a * lambda[j]),
            moved += fabs(a) * lucid_half_ulp(lambda[j]);
    }
    *sigma = v, *delta = moved + 0.5 * DBL_EPSILON * size;
}

double lucid_contact_round_off_bound(double mu, const double l[3], const double s[3],
                                     const double delta[3]) {
    double tangential = hypot(delta[0], delta[1]), total = hypot(tangential, delta[2]);
    double product = fabs(l[0] * s[0]) + fabs(l[1] * s[1]) + fabs(l[2] * s[2]) +
                     fabs(l[2]) * mu * hypot(s[0], s[1]);
    return hypot(hypot(l[0], l[1]), l[2]) * (total + mu * tangential) + 0.5 * DBL_EPSILON * product;
}

/* The bound of a contact with torsional (dim 4) or rolling friction (dim 6): the spin and
 * rolling rows join the tangential ones, folded into t1 of the dim-3 bound ((t1, s, r1, r2) as
 * one entry). */
static double round_off_bound_n(int dim, double mu, const double *l, const double *s,
                                const double *delta) {
    double l3[3] = {l[0], l[1], l[2]}, s3[3] = {s[0], s[1], s[2]};
    double d3[3] = {delta[0], delta[1], delta[2]};
    for (int k = 3; k < dim; ++k)
        l3[0] = hypot(l3[0], l[k]), s3[0] = hypot(s3[0], s[k]), d3[0] = hypot(d3[0], delta[k]);
    return lucid_contact_round_off_bound(mu, l3, s3, d3);
}

double lucid_contact_round_off(const lucid_contact_problem *p, const double *lambda) {
    double worst = 0.0;
    int dim = lucid_contact_dim(p);
    for (int i = 0; i < p->n; ++i) {
        double s[6], d[6];
        for (int a = 0; a < dim; ++a) row(p, lambda, (long)dim * i + a, s + a, d + a);
        worst =
            fmax(worst, dim > 3 ? round_off_bound_n(dim, p->mu[i], lambda + (long)dim * i, s, d)
                                : lucid_contact_round_off_bound(p->mu[i], lambda + 3 * i, s, d));
    }
    return worst;
}
