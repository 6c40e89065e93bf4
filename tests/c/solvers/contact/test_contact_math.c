/* The inline fmax and hypot of the contact solvers' inner loops against libm: hypot within
 * 2 ulp on random magnitudes from 1e-200 to 1e200 (both branches) and equal on 0, Inf, NaN;
 * fmax equal to libm's, NaN handling included. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "solvers/contact/contact_math.h"
#include "tests/c/common/test_random.h"

static int same(double a, double b) {
    return (isnan(a) && isnan(b)) || a == b;
}

static void hypot_matches_libm(void **state) {
    (void)state;
    uint64_t rng = 5;
    for (int k = 0; k < 200000; ++k) {
        double x = (2.0 * uniform(&rng) - 1.0) * pow(10.0, 400.0 * uniform(&rng) - 200.0);
        double y = (2.0 * uniform(&rng) - 1.0) * pow(10.0, 400.0 * uniform(&rng) - 200.0);
        if (k % 3 == 0) y = x * (2.0 * uniform(&rng) - 1.0); /* comparable sizes */
        double want = hypot(x, y), got = lucid_contact_hypot(x, y);
        assert_true(fabs(got - want) <= 2.0 * DBL_EPSILON * want);
    }
    const double special[] = {0.0, -0.0, 1.0, 1e-310, 1e300, INFINITY, -INFINITY, NAN};
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
            double x = special[i], y = special[j];
            assert_true(same(lucid_contact_hypot(x, y), hypot(x, y)));
        }
}

static void fmax_matches_libm(void **state) {
    (void)state;
    const double v[] = {-INFINITY, -1.0, -0.0, 0.0, 2.5, INFINITY, NAN};
    for (int i = 0; i < 7; ++i)
        for (int j = 0; j < 7; ++j) {
            double a = v[i], b = v[j], got = lucid_contact_fmax(a, b), want = fmax(a, b);
            /* fmax may return either zero for (-0, +0): compare values, not signs */
            assert_true(same(got, want));
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hypot_matches_libm),
        cmocka_unit_test(fmax_matches_libm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
