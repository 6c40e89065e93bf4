#include "solvers/contact/contact_direction.h"

#include <math.h>

#include "solvers/contact/contact_sliding_rows.h"

/* |x_T ^ y_T| = sqrt(|x_T|^2 |y_T|^2 - (x_T . y_T)^2) over the k tangential rows of a contact
 * of dim 4 or 6 (clamped at 0 against round-off). */
static double wedge_n(int dim, const double *x, const double *y) {
    const int *TN = lucid_contact_tangential_rows;
    double xx = 0.0, yy = 0.0, xy = 0.0;
    for (int c = 0; c < dim - 1; ++c) {
        double a = x[TN[c]], b = y[TN[c]];
        xx += a * a, yy += b * b, xy += a * b;
    }
    double w = xx * yy - xy * xy;
    return isnan(w) ? w : sqrt(w > 0.0 ? w : 0.0);
}

double lucid_contact_direction_residual(const lucid_contact_problem *p, const double *lambda,
                                        const double *sigma) {
    int dim = lucid_contact_dim(p);
    double worst = 0.0;
    for (int i = 0; i < p->n; ++i) {
        const double *l = lambda + dim * i, *s = sigma + dim * i;
        double r = dim > 3 ? wedge_n(dim, l, s) : fabs(l[0] * s[1] - l[1] * s[0]);
        if (!(r <= worst)) worst = isnan(r) ? INFINITY : r;
    }
    return worst;
}
