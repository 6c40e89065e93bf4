/* SO(3): exp/log round trips and edge cases, Jacobians against finite differences of their
 * defining relations, projection onto SO(3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>

#include <cmocka.h>

#include "runtime/math/quat.h"
#include "runtime/math/rng.h"
#include "runtime/math/so3.h"

static const double PI = 3.14159265358979323846;

#include "tests/c/common/test_assert.h"

static void assert_mat3_close(const lucid_mat3 *a, const lucid_mat3 *b, double tol) {
    for (int k = 0; k < 9; ++k) assert_close(a->m[k], b->m[k], tol);
}
static void assert_vec3_close(lucid_vec3 a, lucid_vec3 b, double tol) {
    assert_close(a.x, b.x, tol);
    assert_close(a.y, b.y, tol);
    assert_close(a.z, b.z, tol);
}

static lucid_vec3 random_unit(lucid_rng *rng) {
    lucid_vec3 v =
        lucid_vec3_make(lucid_rng_normal(rng), lucid_rng_normal(rng), lucid_rng_normal(rng));
    return lucid_vec3_normalized(v);
}

/* Rotation by `angle` about unit `axis` through the quaternion: an independent path. */
static lucid_mat3 reference_rotation(lucid_vec3 axis, double angle) {
    double s = sin(0.5 * angle);
    return lucid_quat_to_mat3(
        lucid_quat_make(cos(0.5 * angle), s * axis.x, s * axis.y, s * axis.z));
}

static void assert_is_rotation(const lucid_mat3 *R, double tol) {
    assert_close(lucid_so3_orthogonality_error(R), 0.0, tol);
    assert_close(lucid_mat3_det(R), 1.0, tol);
}

static void hat_and_vee_are_inverse_and_hat_is_cross(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 1);
    for (int n = 0; n < 50; ++n) {
        lucid_vec3 w = lucid_vec3_scale(random_unit(&rng), 3.0), x = random_unit(&rng);
        lucid_mat3 W = lucid_so3_hat(w);
        assert_vec3_close(lucid_so3_vee(&W), w, 0.0);
        assert_vec3_close(lucid_mat3_mul_vec(&W, x), lucid_vec3_cross(w, x), 1e-15);
    }
}

static void exp_matches_the_quaternion_rotation(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 2);
    const double angles[] = {
        0.0, 1e-12,           1e-8,           1e-4, 0.3, 0.999999, 1.0, 1.000001, 2.5, PI,
        4.0, 2.0 * PI - 1e-3, 2.0 * PI + 0.3, 11.0};
    for (size_t i = 0; i < sizeof angles / sizeof angles[0]; ++i)
        for (int n = 0; n < 5; ++n) {
            lucid_vec3 a = random_unit(&rng);
            lucid_mat3 R = lucid_so3_exp(lucid_vec3_scale(a, angles[i]));
            lucid_mat3 ref = reference_rotation(a, angles[i]);
            assert_mat3_close(&R, &ref, 4e-15 * (1.0 + angles[i]));
            assert_is_rotation(&R, 1e-14);
        }
}

static void log_inverts_exp_to_machine_precision(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 3);
    const double angles[] = {0.0, 1e-300, 1e-12, 1e-8, 1e-4, 0.1,       0.99,      1.01,
                             2.0, 2.6,    2.7,   3.0,  3.1,  PI - 1e-6, PI - 1e-9, PI - 1e-12};
    for (size_t i = 0; i < sizeof angles / sizeof angles[0]; ++i)
        for (int n = 0; n < 20; ++n) {
            lucid_vec3 w = lucid_vec3_scale(random_unit(&rng), angles[i]);
            lucid_mat3 R = lucid_so3_exp(w);
            lucid_vec3 back = lucid_so3_log(&R);
            /* Relative accuracy at tiny angles (no acos of the trace!), absolute near pi where
             * the axis is determined by R only to ~eps / (pi - angle). */
            double tol = angles[i] < 3.0 ? 8e-15 * angles[i] : 1e-9;
            assert_vec3_close(back, w, tol);
        }
    /* Random rotation vectors inside the ball of radius pi. */
    for (int n = 0; n < 500; ++n) {
        lucid_vec3 w = lucid_vec3_scale(random_unit(&rng), PI * lucid_rng_uniform(&rng));
        lucid_mat3 R = lucid_so3_exp(w);
        assert_vec3_close(lucid_so3_log(&R), w, 1e-10);
    }
}

static void log_at_exactly_pi_and_beyond_wraps(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 4);
    /* Exactly pi: the diagonal half-turns (exact matrices) and random axes. */
    const lucid_mat3 half_turns[] = {{{1, 0, 0, 0, -1, 0, 0, 0, -1}},
                                     {{-1, 0, 0, 0, 1, 0, 0, 0, -1}},
                                     {{-1, 0, 0, 0, -1, 0, 0, 0, 1}}};
    for (int k = 0; k < 3; ++k) {
        lucid_vec3 w = lucid_so3_log(&half_turns[k]);
        assert_close(lucid_vec3_norm(w), PI, 1e-15);
        assert_close(fabs(lucid_vec3_get(w, k)), PI, 1e-15);
        lucid_mat3 back = lucid_so3_exp(w);
        assert_mat3_close(&back, &half_turns[k], 1e-15);
    }
    for (int n = 0; n < 100; ++n) {
        lucid_vec3 a = random_unit(&rng);
        const double angles[] = {PI, PI + 1e-9, 2.0 * PI - 0.1, 2.0 * PI, 2.0 * PI + 0.2, 9.0};
        for (size_t i = 0; i < sizeof angles / sizeof angles[0]; ++i) {
            lucid_mat3 R = lucid_so3_exp(lucid_vec3_scale(a, angles[i]));
            lucid_vec3 w = lucid_so3_log(&R);
            assert_true(lucid_vec3_norm(w) <= PI * (1.0 + 1e-15));
            lucid_mat3 again = lucid_so3_exp(w);
            assert_mat3_close(&again, &R, 1e-14);
        }
        /* Just below pi the sign of the axis must be right (from the skew part). */
        lucid_vec3 w = lucid_vec3_scale(a, PI - 1e-9);
        lucid_mat3 R = lucid_so3_exp(w);
        assert_true(lucid_vec3_dot(lucid_so3_log(&R), a) > 0.0);
    }
}

typedef lucid_mat3 (*jacobian_fn)(lucid_vec3);
enum { RIGHT_JACOBIAN, LEFT_JACOBIAN, RIGHT_INVERSE, LEFT_INVERSE };

static lucid_vec3 axpy_axis(lucid_vec3 w, int k, double h) {
    double v[3];
    lucid_vec3_store(w, v);
    v[k] += h;
    return lucid_vec3_load(v);
}

/* The quantity whose derivative in h at 0 is column k of the Jacobian (defining relations). */
static lucid_vec3 defining_map(int kind, lucid_vec3 w, int k, double h) {
    lucid_mat3 R = lucid_so3_exp(w);
    lucid_vec3 d = axpy_axis(lucid_vec3_zero(), k, h);
    lucid_mat3 P, M;
    switch (kind) {
        case RIGHT_JACOBIAN: /* exp(w + d) = exp(w) exp(Jr d) */
            P = lucid_so3_exp(axpy_axis(w, k, h));
            M = lucid_mat3_tmul(&R, &P);
            return lucid_so3_log(&M);
        case LEFT_JACOBIAN: { /* exp(w + d) = exp(Jl d) exp(w) */
            P = lucid_so3_exp(axpy_axis(w, k, h));
            lucid_mat3 Rt = lucid_mat3_transpose(&R);
            M = lucid_mat3_mul(&P, &Rt);
            return lucid_so3_log(&M);
        }
        case RIGHT_INVERSE: /* log(exp(w) exp(d)) = w + Jr^-1 d */
            P = lucid_so3_exp(d);
            M = lucid_mat3_mul(&R, &P);
            return lucid_so3_log(&M);
        default: /* log(exp(d) exp(w)) = w + Jl^-1 d */
            P = lucid_so3_exp(d);
            M = lucid_mat3_mul(&P, &R);
            return lucid_so3_log(&M);
    }
}

static void check_jacobian(int kind, jacobian_fn fn, lucid_vec3 w) {
    const double h = 1e-6;
    lucid_mat3 J = fn(w);
    for (int k = 0; k < 3; ++k) {
        lucid_vec3 col = lucid_vec3_scale(
            lucid_vec3_sub(defining_map(kind, w, k, h), defining_map(kind, w, k, -h)), 0.5 / h);
        assert_vec3_close(col, lucid_mat3_col(&J, k), 2e-8);
    }
}

static void jacobians_match_finite_differences(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 5);
    const double angles[] = {0.0, 1e-9, 0.3, 0.999, 1.0, 1.001, 2.0, 2.8};
    const jacobian_fn fns[] = {lucid_so3_jr, lucid_so3_jl, lucid_so3_jr_inv, lucid_so3_jl_inv};
    for (size_t i = 0; i < sizeof angles / sizeof angles[0]; ++i)
        for (int n = 0; n < 4; ++n) {
            lucid_vec3 w = lucid_vec3_scale(random_unit(&rng), angles[i]);
            for (int kind = 0; kind < 4; ++kind) check_jacobian(kind, fns[kind], w);
        }
}

static void jacobian_identities_hold(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 6);
    lucid_mat3 I = lucid_mat3_identity();
    for (int n = 0; n < 200; ++n) {
        double angle = n < 20 ? 1e-10 * n : 6.0 * lucid_rng_uniform(&rng); /* up to ~2 pi */
        lucid_vec3 w = lucid_vec3_scale(random_unit(&rng), angle);
        lucid_mat3 Jr = lucid_so3_jr(w), Jri = lucid_so3_jr_inv(w);
        lucid_mat3 Jl = lucid_so3_jl(w), Jli = lucid_so3_jl_inv(w);
        lucid_mat3 P1 = lucid_mat3_mul(&Jr, &Jri), P2 = lucid_mat3_mul(&Jl, &Jli);
        /* Jr^-1 grows like 1 / sin^2(angle / 2) towards 2 pi. */
        double tol = angle < 1.0 ? 1e-14 : 1e-14 / fmin(1.0, pow(sin(0.5 * angle), 2));
        assert_mat3_close(&P1, &I, tol);
        assert_mat3_close(&P2, &I, tol);
        lucid_mat3 Jr_neg = lucid_so3_jr(lucid_vec3_neg(w));
        assert_mat3_close(&Jl, &Jr_neg, 0.0);
        /* Jl = R Jr */
        lucid_mat3 R = lucid_so3_exp(w);
        lucid_mat3 RJr = lucid_mat3_mul(&R, &Jr);
        assert_mat3_close(&Jl, &RJr, 1e-14);
        /* The axis is a fixed vector of every Jacobian. */
        assert_vec3_close(lucid_mat3_mul_vec(&Jr, w), w, 1e-14 * (1.0 + angle));
    }
}

/* The series and the closed forms must agree where they hand over (|w| = 1): this catches a
 * wrong series coefficient far below the resolution of finite differences. */
static void series_and_closed_forms_agree_at_the_switch(void **state) {
    (void)state;
    const jacobian_fn fns[] = {lucid_so3_exp, lucid_so3_jr, lucid_so3_jl, lucid_so3_jr_inv,
                               lucid_so3_jl_inv};
    for (int axis = 0; axis < 3; ++axis) {
        /* |w|^2 = 1 exactly (closed forms) and one ulp below (series). */
        lucid_vec3 above = axpy_axis(lucid_vec3_zero(), axis, 1.0);
        lucid_vec3 below = axpy_axis(lucid_vec3_zero(), axis, nextafter(1.0, 0.0));
        for (size_t f = 0; f < sizeof fns / sizeof fns[0]; ++f) {
            lucid_mat3 A = fns[f](below), B = fns[f](above);
            assert_mat3_close(&A, &B, 1e-15);
        }
        double c[2][3];
        lucid_so3_coupling_coefficients(below, &c[0][0], &c[0][1], &c[0][2]);
        lucid_so3_coupling_coefficients(above, &c[1][0], &c[1][1], &c[1][2]);
        for (int k = 0; k < 3; ++k) assert_close(c[0][k], c[1][k], 1e-15);
    }
}

static void coupling_coefficients_have_the_right_limits(void **state) {
    (void)state;
    double c1, c2, c3;
    lucid_so3_coupling_coefficients(lucid_vec3_zero(), &c1, &c2, &c3);
    assert_close(c1, 1.0 / 6.0, 1e-17);
    assert_close(c2, 1.0 / 24.0, 1e-17);
    assert_close(c3, 1.0 / 120.0, 1e-17);
    /* Away from the series the closed forms are well conditioned: compare at t = 2.5. */
    double t = 2.5;
    lucid_so3_coupling_coefficients(lucid_vec3_make(0, t, 0), &c1, &c2, &c3);
    assert_close(c1, (t - sin(t)) / (t * t * t), 1e-15);
    assert_close(c2, (cos(t) - 1 + 0.5 * t * t) / pow(t, 4), 1e-15);
    assert_close(c3, (2 * t - 3 * sin(t) + t * cos(t)) / (2 * pow(t, 5)), 1e-15);
}

/* Regression (issue 16): exp of a huge rotation vector overflowed (|w|^2 from 1e154, hat(w)^2)
 * into NaN, or into an all-zero "rotation" in the world. Now: rotations at every size,
 * about the right axis, by the angle |w| reduced modulo 2 pi exactly. */
static void huge_rotation_vectors_give_exact_rotations(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 16);
    for (int k = 20; k <= 308; k += 4) {
        double theta = pow(10.0, k) * (1.0 + 0.7 * lucid_rng_uniform(&rng));
        /* Along x, |w| = theta exactly: the reference is the quaternion rotation with the
         * angle reduced independently (x87 long double sinl/cosl of theta / 2, exact). */
        lucid_mat3 R = lucid_so3_exp(lucid_vec3_make(theta, 0, 0));
        assert_is_rotation(&R, 1e-12);
        long double h = 0.5L * (long double)theta;
        lucid_mat3 Q = lucid_quat_to_mat3(lucid_quat_make((double)cosl(h), (double)sinl(h), 0, 0));
        assert_mat3_close(&R, &Q, 1e-12);
        /* Any axis: a rotation fixing the axis, R(-w) = R(w)^T, R(2w) = R(w)^2 (2w is exact). */
        lucid_vec3 axis = random_unit(&rng);
        lucid_vec3 w = lucid_vec3_scale(axis, theta);
        R = lucid_so3_exp(w);
        assert_is_rotation(&R, 1e-12);
        assert_vec3_close(lucid_mat3_mul_vec(&R, axis), axis, 1e-12);
        lucid_mat3 Rneg = lucid_so3_exp(lucid_vec3_neg(w)), Rt = lucid_mat3_transpose(&R);
        assert_mat3_close(&Rneg, &Rt, 1e-12);
        if (k < 308) {
            lucid_mat3 R2 = lucid_so3_exp(lucid_vec3_scale(w, 2.0)), RR = lucid_mat3_mul(&R, &R);
            assert_mat3_close(&R2, &RR, 1e-12);
        }
        /* The Jacobians stay finite; Jl w = w (w is its own direction of no change). */
        lucid_mat3 Jl = lucid_so3_jl(w), Jr = lucid_so3_jr(w);
        assert_true(lucid_mat3_isfinite(&Jl) && lucid_mat3_isfinite(&Jr));
        assert_vec3_close(lucid_mat3_mul_vec(&Jl, axis), axis, 1e-12);
        assert_vec3_close(lucid_mat3_mul_vec(&Jr, axis), axis, 1e-12);
    }
    /* |w| beyond DBL_MAX: exp(w) = exp(w / 2)^2, still a rotation about the axis. */
    lucid_vec3 w = lucid_vec3_make(1.7e308, 1.7e308, -1.7e308);
    lucid_mat3 R = lucid_so3_exp(w), half = lucid_so3_exp(lucid_vec3_scale(w, 0.5));
    lucid_mat3 hh = lucid_mat3_mul(&half, &half);
    assert_is_rotation(&R, 1e-12);
    assert_mat3_close(&R, &hh, 1e-12);
    lucid_vec3 axis = lucid_vec3_normalized(lucid_vec3_make(1, 1, -1));
    assert_vec3_close(lucid_mat3_mul_vec(&R, axis), axis, 1e-12);
    /* Non-finite input stays non-finite (never a fake rotation). */
    R = lucid_so3_exp(lucid_vec3_make(INFINITY, 0, 0));
    assert_false(lucid_mat3_isfinite(&R));
}

static void projection_finds_the_nearest_rotation(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 8);
    for (int n = 0; n < 100; ++n) {
        lucid_mat3 R =
            lucid_so3_exp(lucid_vec3_scale(random_unit(&rng), 3.0 * lucid_rng_uniform(&rng)));
        lucid_mat3 out;
        assert_int_equal(lucid_so3_project(&R, &out), LUCID_OK);
        assert_mat3_close(&out, &R, 1e-15);
        /* A near-rotation is pulled back onto SO(3), and barely moves. */
        lucid_mat3 M = R;
        for (int k = 0; k < 9; ++k) M.m[k] += 1e-7 * lucid_rng_normal(&rng);
        assert_int_equal(lucid_so3_project(&M, &out), LUCID_OK);
        assert_is_rotation(&out, 1e-15);
        assert_mat3_close(&out, &R, 1e-6);
        /* A general matrix with det > 0: the polar factor makes R^T M symmetric. */
        for (int k = 0; k < 9; ++k) M.m[k] = R.m[k] + 0.4 * lucid_rng_normal(&rng);
        if (lucid_mat3_det(&M) > 0.05) {
            assert_int_equal(lucid_so3_project(&M, &out), LUCID_OK);
            assert_is_rotation(&out, 1e-14);
            lucid_mat3 S = lucid_mat3_tmul(&out, &M), St = lucid_mat3_transpose(&S);
            assert_mat3_close(&S, &St, 1e-12);
        }
    }
}

static void projection_rejects_bad_input(void **state) {
    (void)state;
    lucid_mat3 out = lucid_mat3_zero();
    lucid_mat3 reflection = lucid_mat3_diag(lucid_vec3_make(1, 1, -1));
    assert_int_equal(lucid_so3_project(&reflection, &out), LUCID_ERR_ARGUMENT);
    lucid_mat3 singular = lucid_mat3_diag(lucid_vec3_make(1, 1, 0));
    assert_int_equal(lucid_so3_project(&singular, &out), LUCID_ERR_SINGULAR);
    lucid_mat3 nan = lucid_mat3_identity();
    nan.m[4] = NAN;
    assert_int_equal(lucid_so3_project(&nan, &out), LUCID_ERR_NONFINITE);
    nan.m[4] = INFINITY;
    assert_int_equal(lucid_so3_project(&nan, &out), LUCID_ERR_NONFINITE);
    lucid_mat3 zero = lucid_mat3_zero();
    assert_mat3_close(&out, &zero, 0.0); /* untouched on error */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hat_and_vee_are_inverse_and_hat_is_cross),
        cmocka_unit_test(exp_matches_the_quaternion_rotation),
        cmocka_unit_test(log_inverts_exp_to_machine_precision),
        cmocka_unit_test(log_at_exactly_pi_and_beyond_wraps),
        cmocka_unit_test(jacobians_match_finite_differences),
        cmocka_unit_test(jacobian_identities_hold),
        cmocka_unit_test(series_and_closed_forms_agree_at_the_switch),
        cmocka_unit_test(coupling_coefficients_have_the_right_limits),
        cmocka_unit_test(huge_rotation_vectors_give_exact_rotations),
        cmocka_unit_test(projection_finds_the_nearest_rotation),
        cmocka_unit_test(projection_rejects_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
