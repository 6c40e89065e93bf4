/* cmocka assertion on doubles: |a - b| <= tol, printing both values on failure. */
#ifndef LUCID_TEST_ASSERT_H
#define LUCID_TEST_ASSERT_H

#include <math.h>

#define assert_close(a, b, tol) assert_close_impl((a), (b), (tol), #a, __FILE__, __LINE__)
static inline void assert_close_impl(double a, double b, double tol, const char *what,
                                     const char *file, int line) {
    if (!(fabs(a - b) <= tol)) {
        print_error("%s:%d: %s = %.17g, expected %.17g (tol %g)\n", file, line, what, a, b, tol);
        fail();
    }
}

#endif
