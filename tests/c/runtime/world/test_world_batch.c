/* Batch rollouts (runtime/world/world_batch.h): bit-identical to the serial loop on one world
 * whatever the thread count (1, 2, 3, 7) and the order workers take rollouts in (a
 * deterministic shuffle), for final states and whole trajectories; the source world is left
 * untouched; failures report the lowest failing rollout; clones and controls behave. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/world/world_batch.h"
#include "tests/bench/batch_scene.h"

enum { BOXES = 12, ROLLOUTS = 9, STEPS = 60, SETTLE = 150 };

/* The reference: rollout after rollout on w itself, as a user would write it. */
static void serial_loop(lucid_world *w, const double *x0, const double *u, size_t N, size_t T,
                        int record_all, double *out) {
    size_t nx = (size_t)lucid_world_state_size(w), nu = (size_t)lucid_world_controls_size(w);
    for (size_t i = 0; i < N; ++i) {
        assert_int_equal(lucid_world_set_state(w, x0 + nx * i, NULL), LUCID_OK);
        double *o = out + nx * (record_all ? T + 1 : 1) * i;
        if (record_all) lucid_world_get_state(w, o), o += nx;
        for (size_t t = 0; t < T; ++t) {
            assert_int_equal(lucid_world_set_controls(w, u + nu * (t + T * i)), LUCID_OK);
            assert_int_equal(lucid_world_step(w), LUCID_OK);
            if (record_all) lucid_world_get_state(w, o), o += nx;
        }
        if (!record_all) lucid_world_get_state(w, o);
    }
}

static lucid_world *settled_heap(void) {
    lucid_world *w = batch_scene_heap(BOXES, 7);
    assert_non_null(w);
    for (int k = 0; k < SETTLE; ++k) assert_int_equal(lucid_world_step(w), LUCID_OK);
    return w;
}

/* Fisher-Yates with a fixed seed. */
static void shuffle(size_t *order, size_t n, uint64_t seed) {
    lucid_rng rng;
    lucid_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    for (size_t i = n; i > 1; --i) {
        size_t j = (size_t)(lucid_rng_uniform(&rng) * (double)i);
        if (j >= i) j = i - 1;
        size_t t = order[i - 1];
        order[i - 1] = order[j], order[j] = t;
    }
}

static void identical_to_serial(int record_all) {
    lucid_world *w = settled_heap();
    size_t nx = (size_t)lucid_world_state_size(w), nu = (size_t)lucid_world_controls_size(w);
    assert_int_equal(nu, 6 * BOXES);
    double *x0, *u;
    assert_true(batch_scene_inputs(w, ROLLOUTS, STEPS, 11, &x0, &u));
    size_t cols = record_all ? STEPS + 1 : 1, n_out = nx * cols * ROLLOUTS;
    double *before = malloc(sizeof(double) * nx), *after = malloc(sizeof(double) * nx);
    double *ref = malloc(sizeof(double) * n_out), *got = malloc(sizeof(double) * n_out);
    assert_true(before && after && ref && got);
    lucid_world_get_state(w, before);

    const int threads[] = {1, 2, 3, 7, 0}; /* 0: lucid_batch_auto_threads */
    size_t order[ROLLOUTS];
    for (int shuffled = 0; shuffled < 2; ++shuffled) {
        shuffle(order, ROLLOUTS, 1234 + (uint64_t)shuffled);
        for (size_t k = 0; k < sizeof threads / sizeof threads[0]; ++k) {
            memset(got, 0xff, sizeof(double) * n_out);
            lucid_batch_problem p = {
                ROLLOUTS, STEPS, x0, u, record_all, got, shuffled ? order : NULL, NULL};
            size_t failed = 99;
            assert_int_equal(lucid_world_batch_rollout(w, threads[k], &p, &failed, NULL, 0),
                             LUCID_OK);
            assert_int_equal(failed, 99);
            lucid_world_get_state(w, after); /* the batch only reads w */
            assert_memory_equal(before, after, sizeof(double) * nx);
            if (k == 0 && !shuffled) {
                serial_loop(w, x0, u, ROLLOUTS, STEPS, record_all, ref);
                assert_int_equal(lucid_world_set_state(w, before, NULL), LUCID_OK);
                /* the rollouts differ from each other (a test of identity must not be vacuous)
                 * and end away from where they started */
                assert_true(memcmp(ref, ref + nx * cols, sizeof(double) * nx * cols) != 0);
                assert_true(fabs(ref[nx * (cols - 1) + 20] - x0[20]) > 1e-6);
            }
            assert_memory_equal(ref, got, sizeof(double) * n_out);
        }
    }
    /* the same pool run twice gives the same answer too */
    lucid_batch *b;
    assert_int_equal(lucid_batch_create(w, 3, &b), LUCID_OK);
    assert_int_equal(lucid_batch_threads(b), 3);
    for (int r = 0; r < 2; ++r) {
        lucid_batch_problem p = {ROLLOUTS, STEPS, x0, u, record_all, got, order, NULL};
        memset(got, 0, sizeof(double) * n_out);
        assert_int_equal(lucid_batch_run(b, &p, NULL, NULL, 0), LUCID_OK);
        assert_memory_equal(ref, got, sizeof(double) * n_out);
    }
    lucid_batch_destroy(b);
    free(before), free(after), free(ref), free(got), free(x0), free(u);
    lucid_world_destroy(w);
}

static void test_final_states_identical(void **state) {
    (void)state;
    identical_to_serial(0);
}

static void test_trajectories_identical(void **state) {
    (void)state;
    identical_to_serial(1);
}

/* Without controls (u = NULL) the rollouts apply no wrench, even if w has pending forces. */
static void test_zero_controls(void **state) {
    (void)state;
    lucid_world *w = settled_heap();
    size_t nx = (size_t)lucid_world_state_size(w), nu = (size_t)lucid_world_controls_size(w);
    double *x0, *u;
    assert_true(batch_scene_inputs(w, 3, 20, 5, &x0, &u));
    memset(u, 0, sizeof(double) * nu * 20 * 3);
    double *ref = malloc(sizeof(double) * nx * 3), *got = malloc(sizeof(double) * nx * 3);
    serial_loop(w, x0, u, 3, 20, 0, ref);
    assert_int_equal(lucid_world_apply_force(w, 1, lucid_vec3_make(100, 0, 0), lucid_vec3_zero()),
                     LUCID_OK);
    lucid_batch_problem p = {3, 20, x0, NULL, 0, got, NULL, NULL};
    assert_int_equal(lucid_world_batch_rollout(w, 2, &p, NULL, NULL, 0), LUCID_OK);
    assert_memory_equal(ref, got, sizeof(double) * nx * 3);
    free(ref), free(got), free(x0), free(u);
    lucid_world_destroy(w);
}

/* A bad initial state fails its rollout only; the lowest failing index is reported whatever
 * the threads, the others are complete and the failed one is NaN. */
static void test_failures(void **state) {
    (void)state;
    lucid_world *w = settled_heap();
    size_t nx = (size_t)lucid_world_state_size(w);
    double *x0, *u;
    assert_true(batch_scene_inputs(w, 6, 5, 3, &x0, &u));
    for (int k = 3; k < 7; ++k) x0[nx * 4 + k] = x0[nx * 2 + k] = 0.0; /* zero quaternions */
    double *got = malloc(sizeof(double) * nx * 6), *ref = malloc(sizeof(double) * nx * 6);
    lucid_batch_problem p = {6, 5, x0, u, 0, ref, NULL, NULL};
    lucid_status st[6];
    for (int threads = 1; threads <= 3; ++threads) {
        p.out = threads == 1 ? ref : got;
        p.status = st;
        size_t failed = 99;
        char why[128];
        assert_int_equal(lucid_world_batch_rollout(w, threads, &p, &failed, why, sizeof why),
                         LUCID_ERR_ARGUMENT);
        assert_int_equal(failed, 2);
        assert_non_null(strstr(why, "set_state: a body's quaternion in the state is zero"));
        for (int i = 0; i < 6; ++i)
            assert_int_equal(st[i], i == 2 || i == 4 ? LUCID_ERR_ARGUMENT : LUCID_OK);
        assert_true(isnan(p.out[nx * 2]) && isnan(p.out[nx * 4]) && !isnan(p.out[nx * 5]));
        if (threads > 1) assert_memory_equal(ref + nx * 5, got + nx * 5, sizeof(double) * nx);
    }
    /* argument errors, before anything runs */
    size_t bad[6] = {0, 1, 2, 3, 4, 4};
    p.order = bad;
    assert_int_equal(lucid_world_batch_rollout(w, 2, &p, NULL, NULL, 0), LUCID_ERR_ARGUMENT);
    p.order = NULL;
    p.out = NULL;
    assert_int_equal(lucid_world_batch_rollout(w, 2, &p, NULL, NULL, 0), LUCID_ERR_ARGUMENT);
    p.out = got;
    p.steps = SIZE_MAX;
    assert_int_equal(lucid_world_batch_rollout(w, 2, &p, NULL, NULL, 0), LUCID_ERR_ARGUMENT);
    lucid_batch *b = NULL;
    assert_int_equal(lucid_batch_create(w, 0, &b), LUCID_ERR_ARGUMENT);
    /* threads 0 of lucid_world_batch_rollout: one per rollout, at most one per CPU */
    assert_int_equal(lucid_batch_auto_threads(0), 1);
    assert_int_equal(lucid_batch_auto_threads(1), 1);
    assert_true(lucid_batch_auto_threads(3) >= 1 && lucid_batch_auto_threads(3) <= 3);
    assert_true(lucid_batch_auto_threads(100000) <= LUCID_BATCH_MAX_THREADS);
    assert_int_equal(lucid_batch_create(w, LUCID_BATCH_MAX_THREADS + 1, &b), LUCID_ERR_ARGUMENT);
    free(got), free(ref), free(x0), free(u);
    lucid_world_destroy(w);
}

/* A clone steps exactly as its source, independently of it. */
static void test_clone(void **state) {
    (void)state;
    lucid_world *w = settled_heap(), *c = NULL;
    assert_int_equal(lucid_world_clone(w, &c), LUCID_OK);
    size_t nx = (size_t)lucid_world_state_size(w);
    assert_int_equal(lucid_world_state_size(c), (int)nx);
    double *a = malloc(sizeof(double) * nx), *b = malloc(sizeof(double) * nx);
    lucid_world_get_state(w, a);
    assert_int_equal(lucid_world_set_state(w, a, NULL), LUCID_OK); /* forget warm starts */
    for (int k = 0; k < 30; ++k) assert_int_equal(lucid_world_step(c), LUCID_OK);
    lucid_world_get_state(w, b);
    assert_memory_equal(a, b, sizeof(double) * nx); /* w did not move */
    for (int k = 0; k < 30; ++k) assert_int_equal(lucid_world_step(w), LUCID_OK);
    lucid_world_get_state(w, a);
    lucid_world_get_state(c, b);
    assert_memory_equal(a, b, sizeof(double) * nx);
    lucid_world_destroy(w); /* the clone outlives its source */
    assert_int_equal(lucid_world_step(c), LUCID_OK);
    lucid_world_destroy(c);
    free(a), free(b);
}

/* Controls: size, layout (force then torque per free body), replaced by set, cleared by step. */
static void test_controls(void **state) {
    (void)state;
    lucid_world *w = batch_scene_heap(3, 1);
    assert_non_null(w);
    assert_int_equal(lucid_world_controls_size(w), 18);
    double u[18], v[18];
    assert_int_equal(
        lucid_world_apply_force(w, 2, lucid_vec3_make(1, 2, 3), lucid_vec3_make(4, 5, 6)),
        LUCID_OK);
    lucid_world_get_controls(w, u);
    for (int k = 0; k < 18; ++k) assert_true(u[k] == (k >= 6 && k < 12 ? k - 5 : 0));
    for (int k = 0; k < 18; ++k) v[k] = k;
    assert_int_equal(lucid_world_set_controls(w, v), LUCID_OK);
    lucid_world_get_controls(w, u);
    assert_memory_equal(u, v, sizeof u);
    v[4] = NAN;
    assert_int_equal(lucid_world_set_controls(w, v), LUCID_ERR_NONFINITE);
    lucid_world_get_controls(w, u);
    assert_true(u[4] == 4.0);
    assert_int_equal(lucid_world_step(w), LUCID_OK);
    lucid_world_get_controls(w, u);
    for (int k = 0; k < 18; ++k) assert_true(u[k] == 0.0);
    lucid_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_final_states_identical),
        cmocka_unit_test(test_trajectories_identical),
        cmocka_unit_test(test_zero_controls),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_clone),
        cmocka_unit_test(test_controls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
