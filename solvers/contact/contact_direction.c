#include "solvers/contact/contact_direction.h"

#include <math.h>

double lucid_contact_direction_residual(const lucid_contact_problem *p, const double *lambda,
                                        const double *sigma) {
    double worst = 0.0;
    for (int i = 0; i < p->n; ++i) {
        const double *l = lambda + 3 * i, *s = sigma + 3 * i;
        double r = fabs(l[0] * s[1] - l[1] * s[0]);
        if (!(r <= worst)) worst = isnan(r) ? INFINITY : r;
    }
    return worst;
}
