/* GJK's Frank-Wolfe quantities checked against values computed here, independently of gjk.c:
 * the duality gap reported when the iteration cap stops GJK (Eq. 17: g = 2 <x, x - s> with
 * s = argmin_{w in D} <x, w>, from the ellipsoids' closed-form supports) and the momentum
 * directions of Eq. 28b / Eq. 33 with the schedule delta_k = (k + 1) / (k + 3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "solvers/collision/gjk.h"
#include "solvers/collision/minkowski.h"
#include "tests/c/common/test_assert.h"

/* Support of the axis-aligned ellipsoid with radii r centred at c: c + diag(r^2) d / |diag(r) d| */
static lucid_vec3 ellipsoid_support(lucid_vec3 r, lucid_vec3 c, lucid_vec3 d) {
    lucid_vec3 rd = lucid_vec3_make(r.x * d.x, r.y * d.y, r.z * d.z);
    double n = lucid_vec3_norm(rd);
    return lucid_vec3_add(c, lucid_vec3_make(r.x * rd.x / n, r.y * rd.y / n, r.z * rd.z / n));
}

static const lucid_vec3 R1 = {0.2, 0.1, 0.3}, R2 = {0.15, 0.25, 0.1};
static const lucid_vec3 C2 = {2.0, 1.0, 0.5};

/* GJK on two ellipsoids (shape 1 at the origin, shape 2 at C2), from x0, capped at max_iter. */
static lucid_gjk_result run_mode(lucid_gjk_algorithm algorithm, int normalize, int max_iter,
                                 lucid_vec3 x0, double margin) {
    lucid_shape e1, e2;
    lucid_shape_ellipsoid(R1.x, R1.y, R1.z, &e1);
    lucid_shape_ellipsoid(R2.x, R2.y, R2.z, &e2);
    lucid_se3 T1 = lucid_se3_identity(), T2 = lucid_se3_make(lucid_mat3_identity(), C2);
    lucid_minkowski m = lucid_minkowski_make(&e1, &T1, &e2, &T2);
    lucid_gjk_options o;
    lucid_gjk_options_default(&o);
    o.algorithm = algorithm;
    o.normalize = normalize;
    o.tol = 1e-300; /* never converged: every run stops on the cap */
    o.max_iter = max_iter;
    lucid_gjk_result res;
    lucid_gjk_solve(&m, &o, x0, margin, &res);
    return res;
}

static lucid_gjk_result run(lucid_gjk_algorithm algorithm, int normalize, int max_iter,
                            lucid_vec3 x0) {
    return run_mode(algorithm, normalize, max_iter, x0, -1.0); /* distance mode */
}

/* s = argmin_{w in D} <x, w> for D = E1 - E2: s1(-x) - s2(x). */
static lucid_vec3 minkowski_support(lucid_vec3 x) {
    lucid_vec3 zero = lucid_vec3_zero();
    return lucid_vec3_sub(ellipsoid_support(R1, zero, lucid_vec3_neg(x)),
                          ellipsoid_support(R2, C2, x));
}

static void gap_at_the_iteration_cap_is_the_true_frank_wolfe_gap(void **state) {
    (void)state;
    const lucid_vec3 x0 = lucid_vec3_make(0.3, -1.0, 0.2); /* a poor start: many iterations */
    for (int alg = 0; alg < 3; ++alg)
        for (int cap = 2; cap <= 5; ++cap) {
            lucid_gjk_result r = run((lucid_gjk_algorithm)alg, 0, cap, x0);
            assert_false(r.converged);
            assert_int_equal(r.iterations, cap);
            lucid_vec3 x = r.x, s = minkowski_support(x);
            double gap = 2.0 * lucid_vec3_dot(x, lucid_vec3_sub(x, s));
            assert_true(gap > 0.0);
            /* to the round-off of 2 <x, x - s>, about eps (|x|^2 + |x| |s|) per term */
            double nx = lucid_vec3_norm(x);
            assert_close(r.gap, gap, 1e-14 * nx * (nx + lucid_vec3_norm(s)));
            /* and the gap bounds the suboptimality ||x||^2 - ||x*||^2 (Eq. 17) */
            lucid_gjk_result best = run(LUCID_GJK_VANILLA, 0, 128, x0);
            assert_true(lucid_vec3_norm2(x) - lucid_vec3_norm2(best.x) <= gap * (1 + 1e-12));
        }
}

/* Eq. 28b: d_k = delta_k d_{k-1} + 2 (1 - delta_k) y_k, with y_k = x_k (Polyak) or
 * delta_k x_k + (1 - delta_k) s_{k-1} (Nesterov), d_{-1} = s_{-1} = x_0; Eq. 33 mixes the
 * normalised d_{k-1} and y_k. After the first step x_1 = s_0 (a single vertex), so y_1 = x_1
 * for both variants. d_0 is the direction of a run capped at one iteration; d_1 that of a
 * Boolean run whose plane test fails at k = 0 (x_0 nearly orthogonal to the separation) and
 * succeeds at k = 1 (the momentum phase lasts the first half of the budget). */
static void momentum_directions_follow_the_schedule(void **state) {
    (void)state;
    const lucid_vec3 x0 = lucid_vec3_make(0.1, -0.2, 0.0); /* <x0, -C2> = 0: no plane at k = 0 */
    const double delta0 = 1.0 / 3.0, delta1 = 2.0 / 4.0;
    for (int alg = LUCID_GJK_POLYAK; alg <= LUCID_GJK_NESTEROV; ++alg)
        for (int normalize = 0; normalize < 2; ++normalize) {
            lucid_gjk_result r0 = run((lucid_gjk_algorithm)alg, normalize, 1, x0);
            lucid_vec3 d0 = normalize ? lucid_vec3_normalized(x0)
                                      : lucid_vec3_scale(x0, delta0 + 2.0 * (1.0 - delta0));
            for (int i = 0; i < 3; ++i)
                assert_close(lucid_vec3_get(r0.direction, i), lucid_vec3_get(d0, i), 1e-15);
            lucid_vec3 x1 = minkowski_support(d0); /* x_1 = s_0 = argmin_D <d_0, w> */
            for (int i = 0; i < 3; ++i)
                assert_close(lucid_vec3_get(r0.x, i), lucid_vec3_get(x1, i), 1e-14);
            lucid_gjk_result r1 = run_mode((lucid_gjk_algorithm)alg, normalize, 128, x0, 0.0);
            assert_int_equal(r1.outcome, LUCID_GJK_PLANE);
            assert_int_equal(r1.iterations, 2);
            lucid_vec3 d1 =
                normalize ? lucid_vec3_add(lucid_vec3_scale(lucid_vec3_normalized(d0), delta1),
                                           lucid_vec3_scale(lucid_vec3_normalized(x1), 1 - delta1))
                          : lucid_vec3_add(lucid_vec3_scale(d0, delta1),
                                           lucid_vec3_scale(x1, 2.0 * (1.0 - delta1)));
            for (int i = 0; i < 3; ++i)
                assert_close(lucid_vec3_get(r1.direction, i), lucid_vec3_get(d1, i), 1e-14);
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gap_at_the_iteration_cap_is_the_true_frank_wolfe_gap),
        cmocka_unit_test(momentum_directions_follow_the_schedule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
