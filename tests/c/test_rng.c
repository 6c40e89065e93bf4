/* The deterministic generator: published reference streams, reproducibility, the private
 * logarithm against libm, and the distributions' moments within sampling error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/math/rng.h"

#define assert_close(a, b, tol) assert_close_impl((a), (b), (tol), #a, __FILE__, __LINE__)
static void assert_close_impl(double a, double b, double tol, const char *what, const char *file,
                              int line) {
    if (!(fabs(a - b) <= tol)) {
        print_error("%s:%d: %s = %.17g, expected %.17g (tol %g)\n", file, line, what, a, b, tol);
        fail();
    }
}

static void splitmix64_matches_the_reference_implementation(void **state) {
    (void)state;
    /* Published outputs of Vigna's splitmix64.c (as listed in rand_xoshiro's tests). */
    const uint64_t expected[] = {UINT64_C(1985237415132408290),  UINT64_C(2979275885539914483),
                                 UINT64_C(13511426838097143398), UINT64_C(8488337342461049707),
                                 UINT64_C(15141737807933549159), UINT64_C(17093170987380407015)};
    uint64_t s = UINT64_C(1477776061723855037);
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; ++i)
        assert_int_equal(lucid_splitmix64_next(&s), expected[i]);
    const uint64_t from_zero[] = {UINT64_C(0xE220A8397B1DCDAF), UINT64_C(0x6E789E6AA1B965F4),
                                  UINT64_C(0x06C45D188009454F), UINT64_C(0xF88BB8A8724C81EC)};
    s = 0;
    for (int i = 0; i < 4; ++i) assert_int_equal(lucid_splitmix64_next(&s), from_zero[i]);
    /* Seeding fills the state with exactly those outputs. */
    lucid_rng rng;
    lucid_rng_seed(&rng, 0);
    assert_memory_equal(rng.s, from_zero, sizeof from_zero);
}

static void xoshiro256starstar_matches_the_reference_implementation(void **state) {
    (void)state;
    /* Published outputs of xoshiro256starstar.c from the state {1, 2, 3, 4}. */
    const uint64_t expected[] = {UINT64_C(11520),
                                 UINT64_C(0),
                                 UINT64_C(1509978240),
                                 UINT64_C(1215971899390074240),
                                 UINT64_C(1216172134540287360),
                                 UINT64_C(607988272756665600),
                                 UINT64_C(16172922978634559625),
                                 UINT64_C(8476171486693032832),
                                 UINT64_C(10595114339597558777),
                                 UINT64_C(2904607092377533576)};
    lucid_rng rng = {{1, 2, 3, 4}, 0.0, 0};
    for (int i = 0; i < 10; ++i) assert_int_equal(lucid_rng_next_u64(&rng), expected[i]);
}

static void streams_are_reproducible_and_seeds_differ(void **state) {
    (void)state;
    const uint64_t seeds[] = {0, 1, 2, 42, UINT64_C(1) << 63, UINT64_MAX};
    enum { NSEEDS = sizeof seeds / sizeof seeds[0] };
    uint64_t first[NSEEDS];
    for (int k = 0; k < NSEEDS; ++k) {
        lucid_rng a, b;
        lucid_rng_seed(&a, seeds[k]);
        lucid_rng_seed(&b, seeds[k]);
        first[k] = lucid_rng_next_u64(&a);
        assert_int_equal(lucid_rng_next_u64(&b), first[k]);
        for (int n = 0; n < 1000; ++n) {
            assert_true(lucid_rng_normal(&a) == lucid_rng_normal(&b));
            assert_true(lucid_rng_gumbel(&a) == lucid_rng_gumbel(&b));
        }
        lucid_rng fork = a; /* copying the value forks an identical stream */
        for (int n = 0; n < 100; ++n)
            assert_int_equal(lucid_rng_next_u64(&fork), lucid_rng_next_u64(&a));
    }
    for (int i = 0; i < NSEEDS; ++i)
        for (int j = i + 1; j < NSEEDS; ++j) assert_true(first[i] != first[j]);
}

/* Distance in units in the last place of `ref`. */
static double ulps(double x, double ref) {
    double r = fabs(ref);
    double ulp = nextafter(r, INFINITY) - r;
    if (r == 0.0) return x == 0.0 ? 0.0 : INFINITY;
    return fabs(x - ref) / ulp;
}

static void check_log(double x) {
    double mine = lucid_rng_log(x), ref = log(x);
    if (!(ulps(mine, ref) <= 1.0)) {
        print_error("log(%a): %.17g vs libm %.17g\n", x, mine, ref);
        fail();
    }
}

static void deterministic_log_is_within_one_ulp_of_libm(void **state) {
    (void)state;
    const double edges[] = {DBL_TRUE_MIN,
                            2 * DBL_TRUE_MIN,
                            0x1p-1050,
                            DBL_MIN,
                            nextafter(DBL_MIN, 0.0),
                            nextafter(DBL_MIN, 1.0),
                            DBL_MAX,
                            0.5,
                            2.0,
                            0.1,
                            10.0,
                            2.718281828459045,
                            nextafter(1.0, 0.0),
                            nextafter(1.0, 2.0),
                            1.0 + 1e-10,
                            1.0 - 1e-10,
                            1.4142135623730951,
                            nextafter(1.4142135623730951, 2.0),
                            nextafter(1.4142135623730951, 0.0),
                            0.70710678118654757,
                            0x1.fffffffffffffp-1,
                            0x1p1023,
                            3.0,
                            1e300,
                            1e-300};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; ++i) check_log(edges[i]);
    assert_true(lucid_rng_log(1.0) == 0.0);
    assert_true(lucid_rng_log(0.0) == -INFINITY);
    assert_true(lucid_rng_log(-0.0) == -INFINITY);
    assert_true(lucid_rng_log(INFINITY) == INFINITY);
    assert_true(isnan(lucid_rng_log(-1.0)));
    assert_true(isnan(lucid_rng_log(-INFINITY)));
    assert_true(isnan(lucid_rng_log(NAN)));
    lucid_rng rng;
    lucid_rng_seed(&rng, 99);
    /* Random bit patterns cover every binade, subnormals included... */
    for (int n = 0; n < 200000; ++n) {
        uint64_t bits = lucid_rng_next_u64(&rng) & UINT64_C(0x7fffffffffffffff);
        double x;
        memcpy(&x, &bits, sizeof x);
        if (isfinite(x) && x > 0.0) check_log(x);
    }
    /* ...and dense sampling where the result is small and cancellation bites: near 1, and
     * the uniforms the normal and Gumbel transforms actually feed in. */
    for (int n = 0; n < 100000; ++n) {
        check_log(1.0 + 1e-3 * (2.0 * lucid_rng_uniform(&rng) - 1.0));
        check_log(lucid_rng_uniform_open(&rng));
    }
}

static void uniforms_stay_in_range_on_their_grids(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 5);
    enum { N = 200000 };
    double sum = 0.0, sq = 0.0, sum_open = 0.0;
    for (int n = 0; n < N; ++n) {
        double u = lucid_rng_uniform(&rng), o = lucid_rng_uniform_open(&rng);
        assert_true(u >= 0.0 && u < 1.0);
        assert_true(o > 0.0 && o < 1.0);
        assert_true(u * 0x1p53 == floor(u * 0x1p53));             /* k 2^-53 */
        assert_true(o * 0x1p52 - 0.5 == floor(o * 0x1p52 - 0.5)); /* (k + 1/2) 2^-52 */
        sum += u;
        sq += u * u;
        sum_open += o;
    }
    double mean = sum / N, var = sq / N - mean * mean;
    /* sd(mean) = sqrt(1/12/N); sd(var) ~ sqrt((1/80 - 1/144)/N) */
    assert_close(mean, 0.5, 5 * sqrt(1.0 / 12.0 / N));
    assert_close(sum_open / N, 0.5, 5 * sqrt(1.0 / 12.0 / N));
    assert_close(var, 1.0 / 12.0, 5 * sqrt((1.0 / 80.0 - 1.0 / 144.0) / N));
}

static void normal_has_the_right_moments(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 6);
    enum { N = 200000 };
    double s1 = 0, s2 = 0, s3 = 0, s4 = 0, inside = 0;
    for (int n = 0; n < N; ++n) {
        double x = lucid_rng_normal(&rng);
        assert_true(isfinite(x));
        s1 += x;
        s2 += x * x;
        s3 += x * x * x;
        s4 += x * x * x * x;
        inside += fabs(x) < 1.0;
    }
    /* Standard errors: mean 1/sqrt(N), E[x^2] sqrt(2/N), E[x^3] sqrt(15/N), E[x^4] sqrt(96/N),
     * P(|x| < 1) = 0.682689 with sqrt(p(1-p)/N). Bounds are 5 standard errors. */
    assert_close(s1 / N, 0.0, 5 * sqrt(1.0 / N));
    assert_close(s2 / N, 1.0, 5 * sqrt(2.0 / N));
    assert_close(s3 / N, 0.0, 5 * sqrt(15.0 / N));
    assert_close(s4 / N, 3.0, 5 * sqrt(96.0 / N));
    assert_close(inside / N, 0.6826894921370859, 5 * sqrt(0.6827 * 0.3173 / N));
}

/* The polar method recomputed here from the raw stream with libm's log: the library's
 * deterministic transform must agree to rounding. */
static void normal_is_the_polar_method_on_the_raw_stream(void **state) {
    (void)state;
    lucid_rng a, b;
    lucid_rng_seed(&a, 7);
    lucid_rng_seed(&b, 7);
    for (int n = 0; n < 1000; ++n) {
        double u, v, s;
        do {
            u = 2.0 * ((double)(lucid_rng_next_u64(&b) >> 11) * 0x1p-53) - 1.0;
            v = 2.0 * ((double)(lucid_rng_next_u64(&b) >> 11) * 0x1p-53) - 1.0;
            s = u * u + v * v;
        } while (s >= 1.0 || s == 0.0);
        double f = sqrt(-2.0 * log(s) / s);
        double x1 = lucid_rng_normal(&a), x2 = lucid_rng_normal(&a);
        assert_close(x1, u * f, 1e-14 * (1.0 + fabs(u * f)));
        assert_close(x2, v * f, 1e-14 * (1.0 + fabs(v * f)));
    }
}

static void gumbel_has_the_right_moments(void **state) {
    (void)state;
    lucid_rng rng, raw;
    lucid_rng_seed(&rng, 8);
    lucid_rng_seed(&raw, 8);
    enum { N = 200000 };
    const double euler_gamma = 0.5772156649015329, var = 1.6449340668482264; /* pi^2/6 */
    double s1 = 0, s2 = 0;
    for (int n = 0; n < N; ++n) {
        double g = lucid_rng_gumbel(&rng);
        assert_true(isfinite(g));
        s1 += g;
        s2 += g * g;
        if (n < 1000) { /* the transform, recomputed from the raw stream with libm */
            double u = ((double)(lucid_rng_next_u64(&raw) >> 12) + 0.5) * 0x1p-52;
            double ref = -log(-log(u));
            assert_close(g, ref, 1e-13 * (1.0 + fabs(ref)));
        }
    }
    double mean = s1 / N, sample_var = s2 / N - mean * mean;
    /* Excess kurtosis 12/5: sd(variance) = var sqrt((3 + 12/5 - 1)/N). */
    assert_close(mean, euler_gamma, 5 * sqrt(var / N));
    assert_close(sample_var, var, 5 * var * sqrt(4.4 / N));
}

static void integers_are_in_range_and_unbiased(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 9);
    enum { N = 70000 };
    int counts[7] = {0};
    for (int n = 0; n < N; ++n) {
        int64_t k = lucid_rng_integer(&rng, -3, 3);
        assert_true(k >= -3 && k <= 3);
        counts[k + 3]++;
    }
    /* Each count ~ Binomial(N, 1/7): 5 standard deviations. */
    for (int i = 0; i < 7; ++i) assert_close(counts[i], N / 7.0, 5 * sqrt(N / 7.0 * 6.0 / 7.0));
    assert_int_equal(lucid_rng_integer(&rng, 5, 5), 5);
    assert_int_equal(lucid_rng_integer(&rng, INT64_MIN, INT64_MIN), INT64_MIN);
    int saw_negative = 0, saw_positive = 0;
    for (int n = 0; n < 100; ++n) {
        int64_t k = lucid_rng_integer(&rng, INT64_MIN, INT64_MAX);
        saw_negative |= k < 0;
        saw_positive |= k > 0;
    }
    assert_true(saw_negative && saw_positive);
    /* A span of 3 * 2^62: reducing a raw output modulo the span would put half the draws
     * below 2^62 instead of a third. */
    const int64_t span = INT64_C(3) << 61; /* [0, 3 * 2^62) as [-(3*2^61), 3*2^61) */
    int below = 0;
    enum { M = 30000 };
    for (int n = 0; n < M; ++n) below += lucid_rng_integer(&rng, -span, span - 1) < -span / 3;
    assert_close((double)below / M, 1.0 / 3.0, 5 * sqrt(2.0 / 9.0 / M));
}

static void sincos_turn_matches_libm(void **state) {
    (void)state;
    const long double pi_l = 3.141592653589793238462643383279502884L;
    /* Quarter turns are exact. */
    const double quarters[][3] = {{0.0, 0.0, 1.0},   {0.25, 1.0, 0.0}, {0.5, 0.0, -1.0},
                                  {0.75, -1.0, 0.0}, {1.0, 0.0, 1.0},  {-0.25, -1.0, 0.0}};
    for (int i = 0; i < 6; ++i) {
        double s, c;
        lucid_rng_sincos_turn(quarters[i][0], &s, &c);
        assert_true(s == quarters[i][1] && c == quarters[i][2]);
    }
    lucid_rng rng;
    lucid_rng_seed(&rng, 10);
    for (int n = 0; n < 200000; ++n) {
        double u =
            n < 1000 ? n / 1000.0 : (n < 2000 ? (n - 1000) / 8.0 + 1e-9 : lucid_rng_uniform(&rng));
        double s, c;
        lucid_rng_sincos_turn(u, &s, &c);
        /* Reference in long double, so that rounding 2 pi u does not dominate. */
        long double angle = 2.0L * pi_l * (long double)u;
        assert_close(s, (double)sinl(angle), 3.5e-16);
        assert_close(c, (double)cosl(angle), 3.5e-16);
    }
}

static void unit_quaternions_are_uniform_on_the_sphere(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 11);
    enum { N = 40000 };
    double abs_w = 0.0, sq[4] = {0}, mean[4] = {0};
    for (int n = 0; n < N; ++n) {
        double q[4];
        lucid_rng_unit_quaternion(&rng, q);
        assert_close(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-15);
        assert_true(q[0] >= 0.0);
        abs_w += q[0] / N;
        for (int k = 0; k < 4; ++k) {
            sq[k] += q[k] * q[k] / N;
            mean[k] += q[k] / N;
        }
    }
    /* On the uniform 3-sphere: E[q_k^2] = 1/4 (E[q_k^4] = 1/8, so sd = sqrt((1/8 - 1/16)/N));
     * E|w| = 4 / (3 pi) (sd sqrt((1/4 - E|w|^2)/N)); x, y, z have mean 0 (sd sqrt(1/(4N))). */
    for (int k = 0; k < 4; ++k) assert_close(sq[k], 0.25, 5 * sqrt(1.0 / 16.0 / N));
    double ew = 4.0 / (3.0 * 3.14159265358979323846);
    assert_close(abs_w, ew, 5 * sqrt((0.25 - ew * ew) / N));
    for (int k = 1; k < 4; ++k) assert_close(mean[k], 0.0, 5 * sqrt(0.25 / N));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(splitmix64_matches_the_reference_implementation),
        cmocka_unit_test(xoshiro256starstar_matches_the_reference_implementation),
        cmocka_unit_test(streams_are_reproducible_and_seeds_differ),
        cmocka_unit_test(deterministic_log_is_within_one_ulp_of_libm),
        cmocka_unit_test(uniforms_stay_in_range_on_their_grids),
        cmocka_unit_test(normal_has_the_right_moments),
        cmocka_unit_test(normal_is_the_polar_method_on_the_raw_stream),
        cmocka_unit_test(gumbel_has_the_right_moments),
        cmocka_unit_test(integers_are_in_range_and_unbiased),
        cmocka_unit_test(sincos_turn_matches_libm),
        cmocka_unit_test(unit_quaternions_are_uniform_on_the_sphere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
