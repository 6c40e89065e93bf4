/* Finiteness of a double array: the check every input validation makes before arithmetic. */
#ifndef LUCID_FINITE_H
#define LUCID_FINITE_H

#include <math.h>
#include <stddef.h>

/* 1 when the n entries of x are all finite (none is NaN or infinite). */
static inline int lucid_all_finite(const double *x, size_t n) {
    for (size_t k = 0; k < n; ++k)
        if (!isfinite(x[k])) return 0;
    return 1;
}

#endif
