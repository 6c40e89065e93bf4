/* Tape behaviour: forward and reverse agree on random compositions, the arena is reused
 * across evaluations, stale handles are rejected, errors leave the tape usable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/c/common/ad_check.h"
#include "autodiff/sweep.h"

/* A deterministic random program: each step applies a random op to random earlier values,
 * with sizes fixed up by slicing, so every op kind appears in many combinations. */
typedef struct program {
    uint64_t seed;
    int steps;
} program;

static uint64_t next(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static lucid_status random_program(lucid_ad_tape *t, lucid_ad_var x, const void *p,
                                   lucid_ad_var *y) {
    const program *prog = p;
    uint64_t s = prog->seed;
    lucid_ad_var pool[64];
    int count = 1;
    pool[0] = x;
    static const double A[] = {0.3, -0.5, 1.1, 0.8, -0.2, 0.6, 0.9, -1.4, 0.1, 0.7, 0.4, -0.3};
    lucid_status st = LUCID_OK;
    for (int step = 0; step < prog->steps && st == LUCID_OK; ++step) {
        lucid_ad_var a = pool[next(&s) % (uint64_t)count], b = pool[next(&s) % (uint64_t)count];
        int ka = lucid_ad_var_size(t, a), kb = lucid_ad_var_size(t, b), k = ka < kb ? ka : kb;
        lucid_ad_var out, a2 = a, b2 = b;
        if (ka != k) st = lucid_ad_slice(t, a, ka - k, k, &a2);
        if (st == LUCID_OK && kb != k) st = lucid_ad_slice(t, b, 0, k, &b2);
        if (st != LUCID_OK) break;
        switch (next(&s) % 9) {
            case 0:
                st = lucid_ad_binary(t, LUCID_AD_ADD, a2, b2, &out);
                break;
            case 1:
                st = lucid_ad_binary(t, LUCID_AD_SUB, a2, b2, &out);
                break;
            case 2:
                st = lucid_ad_binary(t, LUCID_AD_MUL, a2, b2, &out);
                break;
            case 3:
                st = lucid_ad_unary(t, LUCID_AD_TANH, a, &out);
                break;
            case 4:
                st = lucid_ad_unary(t, LUCID_AD_SIN, a, &out);
                break;
            case 5:
                st = lucid_ad_dot(t, a2, b2, &out);
                break;
            case 6: {
                lucid_ad_var parts[2] = {a, b};
                st = lucid_ad_concat(t, parts, ka + kb <= 6 ? 2 : 1, &out);
                break;
            }
            case 7:
                st = ka <= 4 ? lucid_ad_matvec(t, A, 3, ka, a, &out)
                             : lucid_ad_unary(t, LUCID_AD_NORM, a, &out);
                break;
            default:
                st = lucid_ad_unary(t, LUCID_AD_EXP, a2, &out);
                break;
        }
        if (st == LUCID_OK && count < 64) pool[count++] = out;
    }
    /* the output mixes the last few values so most of the program matters */
    lucid_ad_var parts[3] = {pool[count - 1], pool[count > 1 ? count - 2 : 0],
                             pool[count > 2 ? count - 3 : 0]};
    return st == LUCID_OK ? lucid_ad_concat(t, parts, 3, y) : st;
}

static void forward_and_reverse_agree_on_random_programs(void **state) {
    (void)state;
    const double x[] = {0.3, -0.4, 0.2, 0.5};
    for (uint64_t seed = 1; seed <= 40; ++seed) {
        program prog = {seed, 12};
        lucid_ad_tape *t = lucid_ad_tape_create();
        lucid_ad_var xv, yv;
        assert_int_equal(ad_record(t, random_program, &prog, x, 4, &xv, &yv), LUCID_OK);
        int m = lucid_ad_var_size(t, yv);
        double *Jf = calloc((size_t)m * 4, sizeof(double)),
               *Jr = calloc((size_t)m * 4, sizeof(double));
        assert_int_equal(lucid_ad_jacobian(t, xv, yv, LUCID_AD_MODE_FORWARD, NULL, Jf), LUCID_OK);
        assert_int_equal(lucid_ad_jacobian(t, xv, yv, LUCID_AD_MODE_REVERSE, NULL, Jr), LUCID_OK);
        for (int e = 0; e < m * 4; ++e)
            assert_true(fabs(Jf[e] - Jr[e]) <= 1e-12 * fmax(1.0, fabs(Jf[e])));
        free(Jf);
        free(Jr);
        lucid_ad_tape_destroy(t);
        /* and both agree with finite differences */
        int m2 = 0;
        double err = ad_fd_error(random_program, &prog, x, 4, 1e-6, &m2);
        assert_true(err >= 0.0 && err < 1e-6);
    }
}

/* d x / d x = I in both modes (the output is the input node itself), and an input recorded
 * after the output has a zero Jacobian. */
static void the_jacobian_of_an_input_by_itself_is_the_identity(void **state) {
    (void)state;
    const double x[3] = {0.3, -2.0, 5.0};
    lucid_ad_tape *t = lucid_ad_tape_create();
    lucid_ad_var xv, later;
    assert_int_equal(lucid_ad_input(t, x, 3, &xv), LUCID_OK);
    const lucid_ad_mode modes[2] = {LUCID_AD_MODE_FORWARD, LUCID_AD_MODE_REVERSE};
    for (int k = 0; k < 2; ++k) {
        double J[9];
        assert_int_equal(lucid_ad_jacobian(t, xv, xv, modes[k], NULL, J), LUCID_OK);
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 3; ++i) assert_true(J[i + 3 * j] == (i == j ? 1.0 : 0.0));
    }
    assert_int_equal(lucid_ad_input(t, x, 3, &later), LUCID_OK);
    for (int k = 0; k < 2; ++k) {
        double J[9];
        assert_int_equal(lucid_ad_jacobian(t, later, xv, modes[k], NULL, J), LUCID_OK);
        for (int e = 0; e < 9; ++e) assert_true(J[e] == 0.0);
    }
    lucid_ad_tape_destroy(t);
}

static void auto_mode_picks_the_narrower_side(void **state) {
    (void)state;
    assert_int_equal(lucid_ad_choose_mode(2, 5), LUCID_AD_MODE_FORWARD);
    assert_int_equal(lucid_ad_choose_mode(3, 3), LUCID_AD_MODE_FORWARD);
    assert_int_equal(lucid_ad_choose_mode(6, 1), LUCID_AD_MODE_REVERSE);
}

static void reset_reuses_the_arena(void **state) {
    (void)state;
    program prog = {7, 20};
    const double x[] = {0.1, 0.2, -0.3, 0.4};
    lucid_ad_tape *t = lucid_ad_tape_create();
    lucid_ad_var xv, yv;
    double J1[4 * 64], J2[4 * 64];
    assert_int_equal(ad_record(t, random_program, &prog, x, 4, &xv, &yv), LUCID_OK);
    int m = lucid_ad_var_size(t, yv);
    assert_true(m <= 64);
    assert_int_equal(lucid_ad_jacobian(t, xv, yv, LUCID_AD_MODE_REVERSE, NULL, J1), LUCID_OK);
    size_t nodes = t->node_count, bytes = lucid_ad_tape_reserved_bytes(t);
    assert_true(bytes > 0);
    assert_int_equal(ad_record(t, random_program, &prog, x, 4, &xv, &yv), LUCID_OK);
    assert_int_equal(t->node_count, nodes);
    assert_int_equal(lucid_ad_jacobian(t, xv, yv, LUCID_AD_MODE_REVERSE, NULL, J2), LUCID_OK);
    assert_int_equal(lucid_ad_tape_reserved_bytes(t), bytes);
    assert_memory_equal(J1, J2, (size_t)m * 4 * sizeof(double));
    lucid_ad_tape_destroy(t);
}

static void stale_handles_are_rejected(void **state) {
    (void)state;
    lucid_ad_tape *t = lucid_ad_tape_create();
    const double x[2] = {1.0, 2.0};
    lucid_ad_var old, y, fresh;
    double J[4];
    assert_int_equal(lucid_ad_input(t, x, 2, &old), LUCID_OK);
    lucid_ad_tape_reset(t);
    assert_int_equal(lucid_ad_input(t, x, 2, &fresh), LUCID_OK);
    assert_int_equal(fresh.index, old.index); /* same slot, different generation */
    assert_false(lucid_ad_var_is_live(t, old));
    assert_true(lucid_ad_var_is_live(t, fresh));
    assert_int_equal(lucid_ad_unary(t, LUCID_AD_SIN, old, &y), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_ad_binary(t, LUCID_AD_ADD, fresh, old, &y), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_ad_jacobian(t, old, fresh, LUCID_AD_MODE_AUTO, NULL, J),
                     LUCID_ERR_ARGUMENT);
    assert_null(lucid_ad_var_values(t, old));
    lucid_ad_tape_destroy(t);
}

static void bad_operations_leave_the_tape_unchanged(void **state) {
    (void)state;
    lucid_ad_tape *t = lucid_ad_tape_create();
    const double x[3] = {1.0, 0.0, -2.0}, A[4] = {1, 2, 3, 4};
    lucid_ad_var v, a, b, y;
    assert_int_equal(lucid_ad_input(t, x, 3, &v), LUCID_OK);
    assert_int_equal(lucid_ad_slice(t, v, 0, 2, &a), LUCID_OK);
    size_t nodes = t->node_count, values = t->value_count;
    assert_int_equal(lucid_ad_binary(t, LUCID_AD_ADD, v, a, &y), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_ad_binary(t, LUCID_AD_DIV, v, v, &y), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_ad_unary(t, LUCID_AD_LOG, v, &y), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_ad_unary(t, LUCID_AD_SQRT, v, &y), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_ad_matvec(t, A, 2, 2, v, &y), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_ad_slice(t, v, 2, 2, &y), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_ad_dot(t, v, a, &y), LUCID_ERR_ARGUMENT);
    assert_int_equal(t->node_count, nodes);
    assert_int_equal(t->value_count, values);
    /* sqrt at 0 has an infinite slope: reported, not hidden */
    assert_int_equal(lucid_ad_slice(t, v, 1, 1, &b), LUCID_OK);
    assert_int_equal(lucid_ad_unary(t, LUCID_AD_SQRT, b, &y), LUCID_OK);
    double J[3];
    assert_int_equal(lucid_ad_jacobian(t, v, y, LUCID_AD_MODE_AUTO, NULL, J), LUCID_ERR_NONFINITE);
    lucid_ad_tape_destroy(t);
}

/* A primitive whose callbacks fail once a counter in ctx runs out. */
static lucid_status failing_jvp(void *ctx, long id, const double *x, int n, const double *y, int m,
                                const double *dx, double *dy, int w) {
    (void)id, (void)x, (void)y, (void)m;
    int *budget = ctx;
    if ((*budget)-- <= 0) return LUCID_ERR_ARGUMENT;
    memcpy(dy, dx, (size_t)n * (size_t)w * sizeof(double));
    return LUCID_OK;
}
static lucid_status failing_vjp(void *ctx, long id, const double *x, int n, const double *y, int m,
                                const double *wy, double *wx, int w) {
    return failing_jvp(ctx, id, x, n, y, m, wy, wx, w);
}
static const lucid_ad_primitive failing = {failing_jvp, failing_vjp};

/* A callback that tries to record on the tape being swept: refused, the arena stays put. */
static lucid_status recording_jvp(void *ctx, long id, const double *x, int n, const double *y,
                                  int m, const double *dx, double *dy, int w) {
    (void)id, (void)y, (void)m;
    lucid_ad_tape *tape = ctx;
    lucid_ad_var v;
    lucid_status s = lucid_ad_constant(tape, x, n, &v);
    if (s == LUCID_OK) return LUCID_ERR_INTERNAL; /* would have moved the arena mid-sweep */
    memcpy(dy, dx, (size_t)n * (size_t)w * sizeof(double));
    return LUCID_OK;
}
static lucid_status recording_vjp(void *ctx, long id, const double *x, int n, const double *y,
                                  int m, const double *wy, double *wx, int w) {
    return recording_jvp(ctx, id, x, n, y, m, wy, wx, w);
}
static const lucid_ad_primitive recording = {recording_jvp, recording_vjp};

static void recording_during_a_sweep_is_refused(void **state) {
    (void)state;
    lucid_ad_tape *t = lucid_ad_tape_create();
    const double x[2] = {1.0, 2.0};
    lucid_ad_var v, y;
    double J[4];
    assert_int_equal(lucid_ad_input(t, x, 2, &v), LUCID_OK);
    assert_int_equal(lucid_ad_apply_primitive(t, &recording, 0, v, x, 2, &y), LUCID_OK);
    size_t nodes = t->node_count;
    for (int mode = LUCID_AD_MODE_FORWARD; mode <= LUCID_AD_MODE_REVERSE; ++mode) {
        assert_int_equal(lucid_ad_jacobian(t, v, y, (lucid_ad_mode)mode, t, J), LUCID_OK);
        assert_true(J[0] == 1.0 && J[1] == 0.0 && J[2] == 0.0 && J[3] == 1.0);
    }
    assert_int_equal(t->node_count, nodes);
    assert_int_equal(lucid_ad_constant(t, x, 2, &y), LUCID_OK); /* allowed again afterwards */
    lucid_ad_tape_destroy(t);
}

static void primitive_errors_stop_the_sweep_cleanly(void **state) {
    (void)state;
    lucid_ad_tape *t = lucid_ad_tape_create();
    const double x[2] = {1.0, 2.0};
    lucid_ad_var v, y, z;
    double J[4];
    int budget = 0;
    assert_int_equal(lucid_ad_input(t, x, 2, &v), LUCID_OK);
    assert_int_equal(lucid_ad_apply_primitive(t, &failing, 0, v, x, 2, &y), LUCID_OK);
    assert_int_equal(lucid_ad_unary(t, LUCID_AD_EXP, y, &z), LUCID_OK);
    assert_int_equal(lucid_ad_jacobian(t, v, z, LUCID_AD_MODE_FORWARD, &budget, J),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_ad_jacobian(t, v, z, LUCID_AD_MODE_REVERSE, &budget, J),
                     LUCID_ERR_ARGUMENT);
    budget = 1; /* the same tape sweeps again once the callback succeeds */
    assert_int_equal(lucid_ad_jacobian(t, v, z, LUCID_AD_MODE_REVERSE, &budget, J), LUCID_OK);
    assert_true(fabs(J[0] - exp(1.0)) < 1e-15 && J[1] == 0.0 && J[2] == 0.0);
    assert_true(fabs(J[3] - exp(2.0)) < 1e-14);
    lucid_ad_tape_reset(t);
    assert_int_equal(t->node_count, 0);
    const lucid_ad_primitive incomplete = {failing_jvp, NULL};
    assert_int_equal(lucid_ad_input(t, x, 2, &v), LUCID_OK);
    assert_int_equal(lucid_ad_apply_primitive(t, &incomplete, 0, v, x, 2, &y), LUCID_ERR_ARGUMENT);
    lucid_ad_tape_destroy(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(forward_and_reverse_agree_on_random_programs),
        cmocka_unit_test(the_jacobian_of_an_input_by_itself_is_the_identity),
        cmocka_unit_test(auto_mode_picks_the_narrower_side),
        cmocka_unit_test(reset_reuses_the_arena),
        cmocka_unit_test(stale_handles_are_rejected),
        cmocka_unit_test(bad_operations_leave_the_tape_unchanged),
        cmocka_unit_test(primitive_errors_stop_the_sweep_cleanly),
        cmocka_unit_test(recording_during_a_sweep_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
