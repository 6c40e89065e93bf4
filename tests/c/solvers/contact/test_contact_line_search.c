/* The exact line search of Newton (contact_line_search.h) against brute-force sampling of
 * cost functions of Newton's shape: a convex quadratic plus squared norms of cone projections
 * of points moving along lines, phi(a) = 1/2 q a^2 + b a + sum_i 1/2 ||P_K(y_i + a z_i)||^2. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_line_search.h"
#include "tests/c/common/test_random.h"

enum { CONTACTS = 6 };

typedef struct cone_line {
    double q, b, mu[CONTACTS], y[CONTACTS][3], z[CONTACTS][3];
    int calls;
} cone_line;

static double cost(const cone_line *f, double a) {
    double sum = 0.5 * f->q * a * a + f->b * a;
    for (int i = 0; i < CONTACTS; ++i) {
        double x[3], p[3];
        for (int k = 0; k < 3; ++k) x[k] = f->y[i][k] + a * f->z[i][k];
        lucid_cone_project(f->mu[i], x, p);
        sum += 0.5 * (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    }
    return sum;
}

/* phi' = q a + b + sum z . P(x), phi'' = q + sum z^T J z (d/dx 1/2 ||P(x)||^2 = P(x)). */
static void derivatives(void *ctx, double a, double *slope, double *curvature) {
    cone_line *f = ctx;
    ++f->calls;
    double s = f->q * a + f->b, h = f->q;
    for (int i = 0; i < CONTACTS; ++i) {
        double x[3], p[3], J[9];
        for (int k = 0; k < 3; ++k) x[k] = f->y[i][k] + a * f->z[i][k];
        lucid_cone_project(f->mu[i], x, p);
        lucid_cone_project_jacobian(f->mu[i], x, J);
        for (int r = 0; r < 3; ++r) {
            s += f->z[i][r] * p[r];
            for (int c = 0; c < 3; ++c) h += f->z[i][r] * J[r + 3 * c] * f->z[i][c];
        }
    }
    *slope = s, *curvature = h;
}

/* Random line whose cost decreases at 0; scale spreads the minimiser around 1. */
static cone_line random_line(uint64_t *rng, double scale) {
    cone_line f = {0};
    f.q = uniform(rng) < 0.3 ? 0.0 : uniform(rng);
    for (int i = 0; i < CONTACTS; ++i) {
        f.mu[i] = uniform(rng);
        for (int k = 0; k < 3; ++k) {
            f.y[i][k] = 4.0 * uniform(rng) - 2.0;
            f.z[i][k] = (4.0 * uniform(rng) - 2.0) / scale;
        }
    }
    double s, h;
    derivatives(&f, 0.0, &s, &h);
    f.b = -s - 0.5 - uniform(rng); /* phi'(0) in [-1.5, -0.5] */
    f.q += 0.05;                   /* strictly convex: the minimiser exists */
    f.calls = 0;
    return f;
}

/* The minimiser beats every sample of a fine grid over [0, 4 a*] and is within one grid step
 * of the best sample; phi'(a*) ~ 0. */
static void minimiser_matches_brute_force_sampling(void **state) {
    (void)state;
    uint64_t rng = 7;
    const double scales[] = {0.05, 0.3, 1.0, 3.0, 20.0};
    for (int trial = 0; trial < 200; ++trial) {
        cone_line f = random_line(&rng, scales[trial % 5]);
        double slope0, h;
        derivatives(&f, 0.0, &slope0, &h);
        f.calls = 0;
        lucid_line_search_result r = lucid_line_search_exact(derivatives, &f, slope0, 1e-10, 60);
        assert_true(r.alpha > 0.0 && isfinite(r.alpha));
        assert_true(r.evaluations == f.calls && r.evaluations <= 60);
        assert_true(fabs(r.slope) <= 1e-8 * fabs(slope0));
        const int samples = 20000;
        double best = INFINITY, best_at = 0.0, step = 4.0 * r.alpha / samples;
        for (int k = 0; k <= samples; ++k) {
            double value = cost(&f, k * step);
            if (value < best) best = value, best_at = k * step;
        }
        double found = cost(&f, r.alpha);
        assert_true(found <= best + 1e-12 * (1.0 + fabs(best)));
        assert_true(fabs(best_at - r.alpha) <= step);
        assert_true(found < cost(&f, 0.0));
    }
}

/* A quadratic (every point inside the cones: P = identity) is minimised by one Newton step
 * after the first trial; a direction that does not descend gives alpha = 0 without calls. */
static void quadratic_in_two_evaluations_and_no_step_uphill(void **state) {
    (void)state;
    cone_line f = {.q = 3.0, .b = -70.0}; /* phi'(0) = -10 */
    for (int i = 0; i < CONTACTS; ++i) {
        f.mu[i] = 1.0, f.y[i][2] = 100.0, f.z[i][2] = 0.1; /* stays deep inside */
    }
    double slope0, h;
    derivatives(&f, 0.0, &slope0, &h);
    lucid_line_search_result r = lucid_line_search_exact(derivatives, &f, slope0, 1e-12, 60);
    double exact = -(f.b + CONTACTS * 0.1 * 100.0) / (f.q + CONTACTS * 0.01);
    assert_true(fabs(r.alpha - exact) <= 1e-12 * exact);
    assert_true(r.evaluations <= 2);
    f.calls = 0;
    r = lucid_line_search_exact(derivatives, &f, 0.5, 1e-12, 60);
    assert_true(r.alpha == 0.0 && r.evaluations == 0 && f.calls == 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(minimiser_matches_brute_force_sampling),
        cmocka_unit_test(quadratic_in_two_evaluations_and_no_step_uphill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
