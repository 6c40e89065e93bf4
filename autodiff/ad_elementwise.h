/* Elementwise unary functions: value and derivative dy/dx (given x and y = f(x), so rules
 * reuse the recorded value where that is cheaper, e.g. exp' = y). */
#ifndef LUCID_AD_ELEMENTWISE_H
#define LUCID_AD_ELEMENTWISE_H

#include <math.h>

#include "autodiff/tape.h"

static inline int lucid_ad_is_elementwise(lucid_ad_op op) {
    return op == LUCID_AD_NEG || op == LUCID_AD_EXP || op == LUCID_AD_LOG || op == LUCID_AD_SQRT ||
           op == LUCID_AD_SIN || op == LUCID_AD_COS || op == LUCID_AD_TANH;
}

static inline double lucid_ad_elementwise_value(lucid_ad_op op, double x) {
    switch (op) {
        case LUCID_AD_NEG:
            return -x;
        case LUCID_AD_EXP:
            return exp(x);
        case LUCID_AD_LOG:
            return x > 0.0 ? log(x) : NAN; /* log(0) = -inf is rejected too */
        case LUCID_AD_SQRT:
            return sqrt(x);
        case LUCID_AD_SIN:
            return sin(x);
        case LUCID_AD_COS:
            return cos(x);
        case LUCID_AD_TANH:
            return tanh(x);
        default:
            return NAN;
    }
}

/* sqrt at 0 has an infinite derivative: it is returned as such and the Jacobian routine
 * reports LUCID_ERR_NONFINITE rather than hiding it. */
static inline double lucid_ad_elementwise_derivative(lucid_ad_op op, double x, double y) {
    switch (op) {
        case LUCID_AD_NEG:
            return -1.0;
        case LUCID_AD_EXP:
            return y;
        case LUCID_AD_LOG:
            return 1.0 / x;
        case LUCID_AD_SQRT:
            return 0.5 / y;
        case LUCID_AD_SIN:
            return cos(x);
        case LUCID_AD_COS:
            return -sin(x);
        case LUCID_AD_TANH:
            return 1.0 - y * y;
        default:
            return NAN;
    }
}

#endif
