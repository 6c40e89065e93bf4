/* Comparing lucid's arrays with MuJoCo's in the MJCF tests (include after cmocka.h). */
#ifndef LUCID_TEST_MUJOCO_COMPARE_H
#define LUCID_TEST_MUJOCO_COMPARE_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>

/* max |a_i - b_i| <= tol * max(max |b_i|, 1e-300) over n entries; prints the worst. */
static inline double compare(const char *what, const double *a, const double *b, size_t n,
                             double tol, int index) {
    double scale = 0.0, gap = 0.0;
    size_t worst = 0;
    for (size_t i = 0; i < n; i++) {
        scale = fmax(scale, fabs(b[i]));
        if (fabs(a[i] - b[i]) > gap) gap = fabs(a[i] - b[i]), worst = i;
    }
    double rel = scale > 0.0 ? gap / scale : gap;
    if (!(rel <= tol)) {
        fprintf(stderr, "%s %d: entry %zu lucid %.17g MuJoCo %.17g (%.3g relative)\n", what, index,
                worst, a[worst], b[worst], rel);
        fail();
    }
    return rel;
}

#endif
