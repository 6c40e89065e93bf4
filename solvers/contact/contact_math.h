/* Inline replacements for libm's fmax and hypot in the contact solvers' inner loops, where
 * both are out-of-line calls (docs/benchmarks/contact.md, "Figures from the solvers'
 * comments"). Same results on every input the solvers see. */
#ifndef LUCID_CONTACT_MATH_H
#define LUCID_CONTACT_MATH_H

#include <math.h>

/* fmax: the larger of a and b, and the other one when one is NaN. */
static inline double lucid_contact_fmax(double a, double b) {
    return (a >= b || isnan(b)) ? a : b;
}

/* hypot: sqrt(x^2 + y^2) where the squares neither overflow nor lose precision to underflow
 * (within 1 ulp of hypot there), hypot itself outside that range and for NaN or Inf. */
static inline double lucid_contact_hypot(double x, double y) {
    double s = x * x + y * y;
    if (s < 1e300 && s > 1e-300) return sqrt(s);
    return hypot(x, y);
}

#endif
