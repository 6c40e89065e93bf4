/* The round-off bound of a contact criterion (solvers/contact/contact_round_off.h): exact on
 * a hand-built case, never exceeded by the worst half-ulp perturbation of lambda (velocities
 * evaluated in long double; its lambda term is attained by it), and large exactly where heavy
 * bodies rest on light ones. */
#include <float.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "solvers/contact/contact_round_off.h"
#include "tests/c/common/test_contact_problems.h"

/* Half the spacing of the doubles at x, independently of the library: nextafter. */
static double half_spacing(double x) {
    double a = fabs(x);
    return a == 0.0 ? 0.0 : 0.5 * (nextafter(a, INFINITY) - a);
}

/* lucid_half_ulp reads the exponent bits where its answer is normal: it must equal the spacing
 * of the doubles at every finite x, subnormal, tiny, huge, negative (random bit patterns over
 * all exponents, and the edges of its fast path). */
static void half_ulp_is_half_the_spacing(void **state) {
    (void)state;
    double edges[] = {0.0,      -0.0,     DBL_TRUE_MIN, DBL_MIN,     0x1p-1000,
                      0x1p-969, 0x1p-968, 0x1.8p-969,   0x1p-970,    1.0,
                      -1.0,     3.0,      0x1p1000,     -DBL_MAX / 2};
    for (size_t k = 0; k < sizeof edges / sizeof *edges; ++k)
        assert_true(lucid_half_ulp(edges[k]) == half_spacing(edges[k]));
    uint64_t state64 = 0x9e3779b97f4a7c15u;
    int checked = 0;
    for (int k = 0; k < 200000; ++k) {
        state64 = state64 * 6364136223846793005u + 1442695040888963407u; /* LCG (Knuth) */
        uint64_t bits = state64 ^ (state64 >> 29);
        double x;
        memcpy(&x, &bits, sizeof x);
        if (!isfinite(x) || fabs(x) == DBL_MAX) continue;
        if (lucid_half_ulp(x) != half_spacing(x))
            fail_msg("x = %a: %a, spacing / 2 = %a", x, lucid_half_ulp(x), half_spacing(x));
        ++checked;
    }
    assert_true(checked > 190000);
}

/* One contact, G = diag(2, 2, 8), g = 0, lambda = (0, 0, 1): only the normal moves, by
 * 8 ulp(1)/2 = 4 eps from lambda's rounding and u 8 = 4 eps from the sum sigma_N = 8 (u = eps/2);
 * the product lambda_N sigma_N = 8 rounds by u 8 = 4 eps: 12 eps in all. */
static void diagonal_case_is_exact(void **state) {
    (void)state;
    test_problem t = test_problem_alloc(1);
    t.G[0] = t.G[4] = 2.0, t.G[8] = 8.0, t.mu[0] = 0.5;
    double lambda[3] = {0.0, 0.0, 1.0};
    assert_true(lucid_contact_round_off(&t.p, lambda) == 12.0 * DBL_EPSILON);
    /* now sigma = (6, 0, 8): the tangent moves by 2 ulp(3)/2 = 2 eps and u 6 = 3 eps, the
     * product's terms |3 6| + |1 8| + mu |1| |sigma_T| = 29 round by 14.5 eps */
    lambda[0] = 3.0;
    double d_t = 5.0 * DBL_EPSILON, d_n = 8.0 * DBL_EPSILON;
    double expected = sqrt(10.0) * (hypot(d_t, d_n) + 0.5 * d_t) + 14.5 * DBL_EPSILON;
    assert_true(fabs(lucid_contact_round_off(&t.p, lambda) - expected) <= 1e-15 * expected);
    lambda[0] = lambda[2] = 0.0; /* lambda = 0: nothing to round */
    assert_true(lucid_contact_round_off(&t.p, lambda) == 0.0);
    test_problem_free(&t);
}

/* sigma change of lambda + s * spacing / 2 (signs s), in long double. */
static void velocity_change(const test_problem *t, const double *lambda, const int *s,
                            long double *dsigma) {
    int m = 3 * t->p.n;
    for (int i = 0; i < m; ++i) {
        long double sum = 0.0L;
        for (int j = 0; j < m; ++j)
            sum += (long double)t->G[i + m * j] * s[j] * (long double)half_spacing(lambda[j]);
        dsigma[i] = sum;
    }
}

static double contact_bound(const test_problem *t, const double *lambda, int i,
                            const long double *dsigma) {
    double dt = (double)hypotl(dsigma[3 * i], dsigma[3 * i + 1]);
    double dn = (double)fabsl(dsigma[3 * i + 2]);
    const double *l = lambda + 3 * i;
    return hypot(hypot(l[0], l[1]), l[2]) * (hypot(dt, dn) + t->mu[i] * dt);
}

/* Random problems and forces: random sign patterns never exceed the bound; the pattern
 * s_j = sign(G_rj) of each normal row r makes that row's change equal to its term. */
static void bound_holds_and_is_attained(void **state) {
    (void)state;
    test_rng r = {99};
    for (int trial = 0; trial < 20; ++trial) {
        int n = 1 + trial % 5, m = 3 * n;
        test_problem t = test_random_problem(n, 40 + (uint64_t)trial);
        double lambda[15];
        int s[15];
        long double dsigma[15];
        for (int k = 0; k < m; ++k)
            lambda[k] = ldexp(test_normal(&r), (int)(20 * test_uniform(&r)) - 10);
        double bound = lucid_contact_round_off(&t.p, lambda);
        for (int pattern = 0; pattern < 50; ++pattern) {
            for (int k = 0; k < m; ++k) s[k] = test_uniform(&r) < 0.5 ? -1 : 1;
            velocity_change(&t, lambda, s, dsigma);
            for (int i = 0; i < n; ++i)
                assert_true(contact_bound(&t, lambda, i, dsigma) <= bound * (1 + 1e-12));
        }
        for (int i = 0; i < n; ++i) { /* the normal row of contact i at its worst signs */
            int row = 3 * i + 2;
            long double term = 0.0L;
            for (int j = 0; j < m; ++j) {
                s[j] = t.G[row + m * j] < 0 ? -1 : 1;
                term += fabsl((long double)t.G[row + m * j]) * (long double)half_spacing(lambda[j]);
            }
            velocity_change(&t, lambda, s, dsigma);
            assert_true(fabsl(dsigma[row] - term) <= 1e-15L * term);
        }
        test_problem_free(&t);
    }
}

/* Two point masses stacked on the ground (forces in N, g / dt): the bound grows with the
 * heavy body's weight squared over the light body's mass, ~ (m_heavy g)^2 eps / m_light
 * (measured 1.5-2.1 times that from a mass ratio of 10 on; 6.4 at equal masses, where the
 * light body's own weight doubles its force and the rounding of g counts as much). */
static void grows_with_the_mass_ratio(void **state) {
    (void)state;
    double previous = 0.0;
    for (int e = 0; e <= 6; ++e) {
        double heavy = pow(10.0, e / 2.0), light = 1.0 / heavy;
        test_problem t = test_stack_problem(light, heavy, 1.0);
        double w = 9.81 * heavy; /* the light body carries the heavy one's weight */
        double lambda[6] = {0, 0, w + 9.81 * light, 0, 0, w};
        double bound = lucid_contact_round_off(&t.p, lambda);
        double scale = w * w / light * DBL_EPSILON;
        assert_true(bound > 0.25 * scale && bound < 8.0 * scale);
        assert_true(bound > previous);
        previous = bound;
        test_problem_free(&t);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(half_ulp_is_half_the_spacing),
        cmocka_unit_test(diagonal_case_is_exact),
        cmocka_unit_test(bound_holds_and_is_attained),
        cmocka_unit_test(grows_with_the_mass_ratio),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
