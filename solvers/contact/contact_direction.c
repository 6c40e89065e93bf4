#include "solvers/contact/contact_direction.h"

#include <math.h>

#include "solvers/contact/contact_sliding_rows.h"

/* |x_T ^ y_T| = sqrt(sum_{a<b} (x_a y_b - x_b y_a)^2) over the k tangential rows of a contact of
 * dim 4 or 6: the pairs' cross products, without the cancellation of |x|^2 |y|^2 - (x . y)^2. */
static double wedge_n(int dim, const double *x, const double *y) {
    const int *TN = lucid_contact_tangential_rows;
    double sum = 0.0;
    for (int a = 0; a < dim - 1; ++a)
        for (int b = a + 1; b < dim - 1; ++b) {
            double w = x[TN[a]] * y[TN[b]] - x[TN[b]] * y[TN[a]];
            sum += w * w;
        }
    return sqrt(sum);
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
