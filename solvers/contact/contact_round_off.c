#include "solvers/contact/contact_round_off.h"

#include <float.h>
#include <math.h>

/* Half the spacing of the doubles around x (0 for x = 0; subnormals use the smallest one). */
static double half_ulp(double x) {
    double a = fabs(x);
    if (a == 0.0) return 0.0;
    if (a < DBL_MIN) return 0.5 * DBL_TRUE_MIN;
    int exponent;
    frexp(a, &exponent); /* a = f 2^exponent, f in [0.5, 1): the ulp is 2^(exponent - 53) */
    return ldexp(0.5, exponent - DBL_MANT_DIG);
}

/* delta_r = sum_j |(G + R)_rj| ulp(lambda_j) / 2 */
static double row_perturbation(const lucid_contact_problem *p, const double *lambda, long r) {
    long m = 3L * p->n;
    double sum = p->R ? p->R[r] * half_ulp(lambda[r]) : 0.0;
    for (long j = 0; j < m; ++j) sum += fabs(p->G[r + m * j]) * half_ulp(lambda[j]);
    return sum;
}

double lucid_contact_round_off(const lucid_contact_problem *p, const double *lambda) {
    double worst = 0.0;
    for (int i = 0; i < p->n; ++i) {
        const double *l = lambda + 3 * i;
        double d[3];
        for (int a = 0; a < 3; ++a) d[a] = row_perturbation(p, lambda, 3L * i + a);
        double tangential = hypot(d[0], d[1]), total = hypot(tangential, d[2]);
        double bound = hypot(hypot(l[0], l[1]), l[2]) * (total + p->mu[i] * tangential);
        worst = fmax(worst, bound);
    }
    return worst;
}
