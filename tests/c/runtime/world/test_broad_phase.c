/* Broad phase: sweep and prune finds exactly the brute-force overlapping pairs on random
 * scenes (sparse and dense, static proxies, unbounded boxes, after incremental motion), and a
 * 200-body world steps with far fewer narrow-phase tests than body pairs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "runtime/world/broad_phase.h"
#include "runtime/world/world.h"
#include "tests/c/common/test_random.h"

#define N 1000

typedef struct scene {
    lucid_vec3 lo[N], hi[N];
    unsigned char is_static[N];
} scene;

/* n boxes with centres uniform in [0, extent]^3 and half sizes in [0.1, 1] x size; a tenth
 * static; a few unbounded boxes (halfspace-like) and, on the extent axes, degenerate ones. */
static void random_scene(scene *s, uint64_t seed, double extent, double size) {
    uint64_t st = seed;
    for (int i = 0; i < N; ++i) {
        lucid_vec3 c =
            lucid_vec3_make(extent * uniform(&st), extent * uniform(&st), extent * uniform(&st));
        lucid_vec3 h =
            lucid_vec3_make(size * (0.1 + 0.9 * uniform(&st)), size * (0.1 + 0.9 * uniform(&st)),
                            size * (0.1 + 0.9 * uniform(&st)));
        s->lo[i] = lucid_vec3_sub(c, h), s->hi[i] = lucid_vec3_add(c, h);
        s->is_static[i] = uniform(&st) < 0.1;
    }
    /* a ground halfspace z <= 1 (static) and an unbounded slab */
    s->lo[0] = lucid_vec3_make(-INFINITY, -INFINITY, -INFINITY);
    s->hi[0] = lucid_vec3_make(INFINITY, INFINITY, 1.0);
    s->is_static[0] = 1;
    s->lo[1] = lucid_vec3_make(-INFINITY, 2.0, -INFINITY);
    s->hi[1] = lucid_vec3_make(INFINITY, 2.5, INFINITY);
    s->is_static[1] = 0;
}

static int overlap(const scene *s, int a, int b) {
    return s->lo[a].x <= s->hi[b].x && s->lo[b].x <= s->hi[a].x && s->lo[a].y <= s->hi[b].y &&
           s->lo[b].y <= s->hi[a].y && s->lo[a].z <= s->hi[b].z && s->lo[b].z <= s->hi[a].z;
}

/* Brute force, in (a, b) order, compared entry by entry with the broad phase's sorted pairs. */
static int check_against_brute_force(const scene *s, lucid_broad_phase *bp) {
    const lucid_broad_pair *pairs = lucid_broad_phase_pairs(bp);
    int count = lucid_broad_phase_pair_count(bp), k = 0;
    for (int a = 0; a < N; ++a)
        for (int b = a + 1; b < N; ++b) {
            if (!overlap(s, a, b) || (s->is_static[a] && s->is_static[b])) continue;
            assert_true(k < count);
            assert_int_equal(pairs[k].a, a);
            assert_int_equal(pairs[k].b, b);
            ++k;
        }
    assert_int_equal(k, count);
    return count;
}

static void exact_pairs(double extent, double size, int min_pairs) {
    static scene s;
    lucid_broad_phase *bp = lucid_broad_phase_create();
    assert_non_null(bp);
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        random_scene(&s, seed * 7919, extent, size);
        assert_int_equal(lucid_broad_phase_update(bp, N, s.lo, s.hi, s.is_static), LUCID_OK);
        int count = check_against_brute_force(&s, bp);
        assert_true(count >= min_pairs); /* the scene is as sparse / dense as intended */
        /* small motions: the insertion sort re-sorts a nearly sorted order cheaply */
        uint64_t st = seed;
        for (int step = 0; step < 3; ++step) {
            for (int i = 2; i < N; ++i) {
                lucid_vec3 d = lucid_vec3_make(0.02 * (uniform(&st) - 0.5) * size,
                                               0.02 * (uniform(&st) - 0.5) * size,
                                               0.02 * (uniform(&st) - 0.5) * size);
                s.lo[i] = lucid_vec3_add(s.lo[i], d), s.hi[i] = lucid_vec3_add(s.hi[i], d);
            }
            assert_int_equal(lucid_broad_phase_update(bp, N, s.lo, s.hi, s.is_static), LUCID_OK);
            check_against_brute_force(&s, bp);
            assert_true(lucid_broad_phase_sort_moves(bp) < 20L * N);
        }
    }
    lucid_broad_phase_destroy(bp);
}

static void test_exact_pairs_sparse(void **state) {
    (void)state;
    exact_pairs(100.0, 1.0, 20);
}

static void test_exact_pairs_dense(void **state) {
    (void)state;
    exact_pairs(10.0, 1.0, 3000);
}

/* A flat scene (spread in x only) must sweep along x, and then few intervals overlap. */
static void test_sweep_axis_follows_spread(void **state) {
    (void)state;
    static scene s;
    random_scene(&s, 3, 1.0, 0.01);
    for (int i = 0; i < N; ++i) {
        double shift = 0.5 * i;
        s.lo[i].x += shift, s.hi[i].x += shift;
    }
    s.lo[0] = s.lo[2], s.hi[0] = s.hi[2], s.lo[1] = s.lo[3], s.hi[1] = s.hi[3];
    lucid_broad_phase *bp = lucid_broad_phase_create();
    assert_int_equal(lucid_broad_phase_update(bp, N, s.lo, s.hi, s.is_static), LUCID_OK);
    assert_int_equal(lucid_broad_phase_axis(bp), 0);
    check_against_brute_force(&s, bp);
    lucid_broad_phase_destroy(bp);
}

static void test_bad_input(void **state) {
    (void)state;
    lucid_broad_phase *bp = lucid_broad_phase_create();
    lucid_vec3 lo = {0, 0, NAN}, hi = {1, 1, 1};
    assert_int_equal(lucid_broad_phase_update(bp, 1, &lo, &hi, NULL), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_broad_phase_update(bp, -1, &lo, &hi, NULL), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_broad_phase_update(bp, 0, NULL, NULL, NULL), LUCID_OK);
    assert_int_equal(lucid_broad_phase_pair_count(bp), 0);
    lucid_broad_phase_destroy(bp);
}

/* 200 bodies (boxes and spheres on a 20 x 10 grid, some stacked in pairs, falling onto the
 * ground): the narrow phase runs on far fewer than the 200 x 199 / 2 body pairs. */
static void test_world_200_bodies(void **state) {
    (void)state;
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(NULL, &w), LUCID_OK);
    lucid_body_part ground;
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0, &ground.shape), LUCID_OK);
    ground.pose = lucid_se3_identity();
    lucid_se3 I = lucid_se3_identity();
    int id;
    assert_int_equal(lucid_world_add_static(w, &ground, 1, &I, 0.5, &id, NULL), LUCID_OK);
    for (int k = 0; k < 200; ++k) {
        lucid_body_part part;
        part.pose = lucid_se3_identity();
        if (k % 2)
            assert_int_equal(lucid_shape_sphere(0.1, &part.shape), LUCID_OK);
        else
            assert_int_equal(lucid_shape_box(0.1, 0.1, 0.1, &part.shape), LUCID_OK);
        lucid_body_desc d;
        lucid_body_desc_default(&d);
        d.parts = &part, d.num_parts = 1;
        int cell = k / 2;
        d.pose.t = lucid_vec3_make(0.5 * (cell % 10), 0.5 * (cell / 10), 0.11 + 0.21 * (k % 2));
        assert_int_equal(lucid_world_add_body(w, &d, &id, NULL), LUCID_OK);
    }
    long tests = 0;
    int most_pairs = 0;
    for (int i = 0; i < 60; ++i) {
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        lucid_world_stats st = lucid_world_last_stats(w);
        tests += st.narrow_tests;
        if (st.candidate_pairs > most_pairs) most_pairs = st.candidate_pairs;
        assert_true(st.narrow_tests <= st.candidate_pairs);
    }
    lucid_world_stats st = lucid_world_last_stats(w);
    printf("200 bodies: at most %d candidate pairs per step (of %d), %ld narrow tests in 60 "
           "steps, %d contacts, %d islands\n",
           most_pairs, 201 * 200 / 2, tests, st.contacts, st.islands);
    /* ground + 200 bodies: 200 ground pairs and 100 sphere-on-box pairs at most */
    assert_true(most_pairs <= 300);
    assert_true(tests < 60L * 201 * 200 / 2 / 50);
    assert_int_equal(st.islands, 100); /* each box-sphere stack is its own island */
    lucid_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_pairs_sparse),        cmocka_unit_test(test_exact_pairs_dense),
        cmocka_unit_test(test_sweep_axis_follows_spread), cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_world_200_bodies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
