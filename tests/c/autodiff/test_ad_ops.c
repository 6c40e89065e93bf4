/* Every AD operation's Jacobian against central finite differences, in both modes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tests/c/common/ad_check.h"

#define FD_STEP 1e-6
#define FD_TOL  1e-7

typedef struct binary_case {
    lucid_ad_op op;
    int size_a, size_b; /* operands are x[0..size_a) and x[size_a..size_a+size_b) */
} binary_case;

static lucid_status binary_fn(lucid_ad_tape *t, lucid_ad_var x, const void *p, lucid_ad_var *y) {
    const binary_case *c = p;
    lucid_ad_var a, b;
    lucid_status s = lucid_ad_slice(t, x, 0, c->size_a, &a);
    if (s == LUCID_OK) s = lucid_ad_slice(t, x, c->size_a, c->size_b, &b);
    if (s == LUCID_OK) s = lucid_ad_binary(t, c->op, a, b, y);
    return s;
}

/* The same op with a constant on one side (derivative flows through one operand only). */
static lucid_status binary_const_fn(lucid_ad_tape *t, lucid_ad_var x, const void *p,
                                    lucid_ad_var *y) {
    const binary_case *c = p;
    const double k[3] = {0.7, -1.3, 2.1};
    lucid_ad_var K;
    lucid_status s = lucid_ad_constant(t, k, c->size_b, &K);
    if (s == LUCID_OK) s = lucid_ad_binary(t, c->op, K, x, y);
    return s;
}

static void binary_ops_match_finite_differences(void **state) {
    (void)state;
    const lucid_ad_op ops[] = {LUCID_AD_ADD, LUCID_AD_SUB, LUCID_AD_MUL, LUCID_AD_DIV};
    const int shapes[][2] = {{3, 3}, {3, 1}, {1, 3}, {1, 1}};
    const double x[] = {0.4, -1.2, 2.5, 1.7, -0.9, 0.6};
    for (int o = 0; o < 4; ++o)
        for (int s = 0; s < 4; ++s) {
            binary_case c = {ops[o], shapes[s][0], shapes[s][1]};
            int m = 0;
            double err = ad_fd_error(binary_fn, &c, x, c.size_a + c.size_b, FD_STEP, &m);
            assert_true(err >= 0.0 && err < FD_TOL);
            assert_int_equal(m, c.size_a > c.size_b ? c.size_a : c.size_b);
            err = ad_fd_error(binary_const_fn, &c, x, c.size_a, FD_STEP, &m);
            assert_true(err >= 0.0 && err < FD_TOL);
        }
}

static lucid_status unary_fn(lucid_ad_tape *t, lucid_ad_var x, const void *p, lucid_ad_var *y) {
    return lucid_ad_unary(t, *(const lucid_ad_op *)p, x, y);
}

static void unary_ops_match_finite_differences(void **state) {
    (void)state;
    const lucid_ad_op ops[] = {LUCID_AD_NEG, LUCID_AD_EXP, LUCID_AD_LOG,  LUCID_AD_SQRT,
                               LUCID_AD_SIN, LUCID_AD_COS, LUCID_AD_TANH, LUCID_AD_NORM};
    const double x[] = {0.4, 1.2, 2.5, 0.3}; /* positive: inside log's and sqrt's domain */
    for (int o = 0; o < 8; ++o) {
        int m = 0;
        double err = ad_fd_error(unary_fn, &ops[o], x, 4, FD_STEP, &m);
        assert_true(err >= 0.0 && err < FD_TOL);
        assert_int_equal(m, ops[o] == LUCID_AD_NORM ? 1 : 4);
    }
}

static lucid_status dot_fn(lucid_ad_tape *t, lucid_ad_var x, const void *p, lucid_ad_var *y) {
    (void)p;
    lucid_ad_var a, b;
    lucid_status s = lucid_ad_slice(t, x, 0, 3, &a);
    if (s == LUCID_OK) s = lucid_ad_slice(t, x, 3, 3, &b);
    if (s == LUCID_OK) s = lucid_ad_dot(t, a, b, y);
    return s;
}

static lucid_status self_dot_fn(lucid_ad_tape *t, lucid_ad_var x, const void *p, lucid_ad_var *y) {
    (void)p;
    return lucid_ad_dot(t, x, x, y);
}

static lucid_status matvec_fn(lucid_ad_tape *t, lucid_ad_var x, const void *p, lucid_ad_var *y) {
    (void)p;
    const double A[] = {1.0, -2.0, 0.5, 0.0, 3.0, 1.5, -1.0, 0.25}; /* 2 x 4 column-major */
    return lucid_ad_matvec(t, A, 2, 4, x, y);
}

static lucid_status slice_concat_fn(lucid_ad_tape *t, lucid_ad_var x, const void *p,
                                    lucid_ad_var *y) {
    (void)p;
    lucid_ad_var parts[3];
    const double k = 2.0;
    lucid_status s = lucid_ad_slice(t, x, 2, 1, &parts[0]); /* x[3] as an index */
    if (s == LUCID_OK) s = lucid_ad_constant(t, &k, 1, &parts[1]);
    if (s == LUCID_OK) s = lucid_ad_slice(t, x, 0, 3, &parts[2]);
    if (s == LUCID_OK) s = lucid_ad_concat(t, parts, 3, y);
    return s;
}

static void structural_ops_match_finite_differences(void **state) {
    (void)state;
    const double x[] = {0.4, -1.2, 2.5, 1.7, -0.9, 0.6};
    const ad_test_fn fns[] = {dot_fn, self_dot_fn, matvec_fn, slice_concat_fn};
    const int n[] = {6, 6, 4, 4}, m_expected[] = {1, 1, 2, 5};
    for (int i = 0; i < 4; ++i) {
        int m = 0;
        double err = ad_fd_error(fns[i], NULL, x, n[i], FD_STEP, &m);
        assert_true(err >= 0.0 && err < FD_TOL);
        assert_int_equal(m, m_expected[i]);
    }
}

/* y = (x0 x1, sin x2): a C primitive with hand-written products. */
static lucid_status prim_jvp(void *ctx, long id, const double *x, int n, const double *y, int m,
                             const double *dx, double *dy, int w) {
    (void)ctx, (void)id, (void)n, (void)y, (void)m;
    for (int c = 0; c < w; ++c) {
        dy[c] = x[1] * dx[c] + x[0] * dx[w + c];
        dy[w + c] = cos(x[2]) * dx[2 * w + c];
    }
    return LUCID_OK;
}

static lucid_status prim_vjp(void *ctx, long id, const double *x, int n, const double *y, int m,
                             const double *wy, double *wx, int w) {
    (void)ctx, (void)id, (void)n, (void)y, (void)m;
    for (int c = 0; c < w; ++c) {
        wx[c] = x[1] * wy[c];
        wx[w + c] = x[0] * wy[c];
        wx[2 * w + c] = cos(x[2]) * wy[w + c];
    }
    return LUCID_OK;
}

static const lucid_ad_primitive test_primitive = {prim_jvp, prim_vjp};

static lucid_status primitive_fn(lucid_ad_tape *t, lucid_ad_var x, const void *p, lucid_ad_var *y) {
    (void)p;
    const double *v = lucid_ad_var_values(t, x);
    double out[2] = {v[0] * v[1], sin(v[2])};
    lucid_ad_var z;
    lucid_status s = lucid_ad_apply_primitive(t, &test_primitive, 7, x, out, 2, &z);
    if (s == LUCID_OK) s = lucid_ad_binary(t, LUCID_AD_MUL, z, z, y); /* used downstream */
    return s;
}

static void custom_primitive_matches_finite_differences(void **state) {
    (void)state;
    const double x[] = {0.4, -1.2, 2.5};
    int m = 0;
    double err = ad_fd_error(primitive_fn, NULL, x, 3, FD_STEP, &m);
    assert_true(err >= 0.0 && err < FD_TOL);
    assert_int_equal(m, 2);
}

/* At 0 the norm's derivative is the minimum-norm subgradient, 0, in both modes. */
static void norm_at_zero_has_zero_subgradient(void **state) {
    (void)state;
    lucid_ad_tape *t = lucid_ad_tape_create();
    const double zero[3] = {0.0, 0.0, 0.0};
    lucid_ad_var x, y;
    double J[3] = {1.0, 1.0, 1.0};
    assert_int_equal(lucid_ad_input(t, zero, 3, &x), LUCID_OK);
    assert_int_equal(lucid_ad_unary(t, LUCID_AD_NORM, x, &y), LUCID_OK);
    for (int mode = LUCID_AD_MODE_FORWARD; mode <= LUCID_AD_MODE_REVERSE; ++mode) {
        assert_int_equal(lucid_ad_jacobian(t, x, y, (lucid_ad_mode)mode, NULL, J), LUCID_OK);
        for (int i = 0; i < 3; ++i) assert_true(J[i] == 0.0);
    }
    lucid_ad_tape_destroy(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(binary_ops_match_finite_differences),
        cmocka_unit_test(unary_ops_match_finite_differences),
        cmocka_unit_test(structural_ops_match_finite_differences),
        cmocka_unit_test(custom_primitive_matches_finite_differences),
        cmocka_unit_test(norm_at_zero_has_zero_subgradient),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
