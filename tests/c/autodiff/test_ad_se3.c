/* SE(3) primitives: exact derivative rules against central differences in both modes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tests/c/common/ad_check.h"
#include "autodiff/ad_se3.h"

#define FD_TOL 1e-7

static const double xi0[6] = {0.3, -0.7, 1.1, 0.4, -0.9, 0.6};

static lucid_status exp_fn(lucid_ad_tape *t, lucid_ad_var x, const void *p, lucid_ad_var *y) {
    (void)p;
    return lucid_ad_se3_exp(t, x, y);
}

static void exp_matches_finite_differences(void **state) {
    (void)state;
    int m = 0;
    double err = ad_fd_error(exp_fn, NULL, xi0, 6, 1e-6, &m);
    assert_true(err >= 0.0 && err < FD_TOL);
    assert_int_equal(m, 12);
    const double small[6] = {1e-3, 2e-3, -1e-3, 1e-9, -2e-9, 1e-9}; /* near-zero rotation */
    err = ad_fd_error(exp_fn, NULL, small, 6, 1e-6, &m);
    assert_true(err >= 0.0 && err < FD_TOL);
}

static lucid_status compose_fn(lucid_ad_tape *t, lucid_ad_var x, const void *p, lucid_ad_var *y) {
    (void)p;
    lucid_ad_var a, b;
    lucid_status s = lucid_ad_slice(t, x, 0, 12, &a);
    if (s == LUCID_OK) s = lucid_ad_slice(t, x, 12, 12, &b);
    return s == LUCID_OK ? lucid_ad_se3_compose(t, a, b, y) : s;
}

static lucid_status act_fn(lucid_ad_tape *t, lucid_ad_var x, const void *p, lucid_ad_var *y) {
    (void)p;
    lucid_ad_var T, q;
    lucid_status s = lucid_ad_slice(t, x, 0, 12, &T);
    if (s == LUCID_OK) s = lucid_ad_slice(t, x, 12, 3, &q);
    return s == LUCID_OK ? lucid_ad_se3_act(t, T, q, y) : s;
}

/* compose and act are polynomial in the 12-vector, so raw (off-manifold) perturbations
 * must match too. */
static void compose_and_act_match_finite_differences(void **state) {
    (void)state;
    double x[24];
    lucid_se3 A = lucid_se3_exp(xi0);
    const double xi1[6] = {-0.2, 0.5, 0.1, -1.3, 0.2, 0.8};
    lucid_se3 B = lucid_se3_exp(xi1);
    lucid_ad_se3_pack(&A, x);
    lucid_ad_se3_pack(&B, x + 12);
    int m = 0;
    double err = ad_fd_error(compose_fn, NULL, x, 24, 1e-6, &m);
    assert_true(err >= 0.0 && err < FD_TOL);
    assert_int_equal(m, 12);
    x[12] = 0.25, x[13] = -1.5, x[14] = 2.0;
    err = ad_fd_error(act_fn, NULL, x, 15, 1e-6, &m);
    assert_true(err >= 0.0 && err < FD_TOL);
    assert_int_equal(m, 3);
}

/* log(T0 exp(xi)): log differentiated along tangent directions, where its rule is exact. */
static lucid_status log_fn(lucid_ad_tape *t, lucid_ad_var x, const void *p, lucid_ad_var *y) {
    const lucid_se3 *T0 = p;
    double packed[12];
    lucid_ad_se3_pack(T0, packed);
    lucid_ad_var c, E, T;
    lucid_status s = lucid_ad_constant(t, packed, 12, &c);
    if (s == LUCID_OK) s = lucid_ad_se3_exp(t, x, &E);
    if (s == LUCID_OK) s = lucid_ad_se3_compose(t, c, E, &T);
    return s == LUCID_OK ? lucid_ad_se3_log(t, T, y) : s;
}

static void log_matches_finite_differences(void **state) {
    (void)state;
    const double xt[6] = {0.5, 0.1, -0.4, 0.7, 0.3, -1.2};
    lucid_se3 T0 = lucid_se3_exp(xt);
    int m = 0;
    double err = ad_fd_error(log_fn, &T0, xi0, 6, 1e-6, &m);
    assert_true(err >= 0.0 && err < FD_TOL);
    assert_int_equal(m, 6);
    /* log(exp(xi)) = xi: its Jacobian is the identity */
    lucid_se3 I = lucid_se3_identity();
    lucid_ad_tape *t = lucid_ad_tape_create();
    lucid_ad_var xv, yv;
    double J[36];
    assert_int_equal(ad_record(t, log_fn, &I, xi0, 6, &xv, &yv), LUCID_OK);
    for (int mode = LUCID_AD_MODE_FORWARD; mode <= LUCID_AD_MODE_REVERSE; ++mode) {
        assert_int_equal(lucid_ad_jacobian(t, xv, yv, (lucid_ad_mode)mode, NULL, J), LUCID_OK);
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j) assert_true(fabs(J[i + 6 * j] - (i == j)) < 1e-12);
    }
    lucid_ad_tape_destroy(t);
}

static void wrong_sizes_are_rejected(void **state) {
    (void)state;
    lucid_ad_tape *t = lucid_ad_tape_create();
    const double x[12] = {0};
    lucid_ad_var v5, v12, y;
    assert_int_equal(lucid_ad_input(t, x, 5, &v5), LUCID_OK);
    assert_int_equal(lucid_ad_input(t, x, 12, &v12), LUCID_OK);
    assert_int_equal(lucid_ad_se3_exp(t, v5, &y), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_ad_se3_log(t, v5, &y), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_ad_se3_compose(t, v12, v5, &y), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_ad_se3_act(t, v12, v5, &y), LUCID_ERR_ARGUMENT);
    lucid_ad_tape_destroy(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exp_matches_finite_differences),
        cmocka_unit_test(compose_and_act_match_finite_differences),
        cmocka_unit_test(log_matches_finite_differences),
        cmocka_unit_test(wrong_sizes_are_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
