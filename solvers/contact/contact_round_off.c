#include "solvers/contact/contact_round_off.h"

#include <float.h>
#include <math.h>

/* Row r of sigma = g + (G + R) lambda (*sigma) and its rounding (*delta): lambda's storage,
 * sum_j |(G + R)_rj| ulp(lambda_j) / 2, plus the sum's own, eps (|g_r| + sum_j |(G + R)_rj
 * lambda_j|) with eps / 2 the unit round-off. */
static void row(const lucid_contact_problem *p, const double *lambda, long r, double *sigma,
                double *delta) {
    long m = 3L * p->n;
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

double lucid_contact_round_off(const lucid_contact_problem *p, const double *lambda) {
    double worst = 0.0;
    for (int i = 0; i < p->n; ++i) {
        double s[3], d[3];
        for (int a = 0; a < 3; ++a) row(p, lambda, 3L * i + a, s + a, d + a);
        worst = fmax(worst, lucid_contact_round_off_bound(p->mu[i], lambda + 3 * i, s, d));
    }
    return worst;
}
