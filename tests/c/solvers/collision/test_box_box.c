/* The separating-axis path of lucid_collide for box pairs against GJK/EPA (lucid_distance) on
 * many random pairs: same Boolean answer away from contact, the exact depth when overlapping
 * (EPA's, within the tolerances), a certified lower bound when separated, and a normal along
 * which translating box 2 by the depth separates the pair. Includes aligned, nearly aligned
 * (parallel edges), stacked and rotated-by-90-degree configurations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "solvers/collision/box_box.h"
#include "tests/c/common/test_collision_util.h"

static lucid_mat3 random_or_aligned(uint64_t *rng, int kind) {
    switch (kind) {
        case 0:
            return random_rotation(rng);
        case 1:
            return lucid_mat3_identity();
        case 2:
            return axis_angle(random_direction(rng), 1e-7 * uniform(rng)); /* parallel edges */
        default: { /* a quarter turn about z, then a tiny tilt */
            lucid_mat3 quarter = axis_angle(lucid_vec3_make(0, 0, 1), PI / 2);
            lucid_mat3 tilt = axis_angle(random_direction(rng), 1e-12);
            return lucid_mat3_mul(&quarter, &tilt);
        }
    }
}

static void sat_matches_gjk_epa_on_random_pairs(void **state) {
    (void)state;
    uint64_t rng = 41;
    int hits = 0, misses = 0, contact = 0;
    double worst[4] = {0};
    lucid_gjk_options o;
    lucid_gjk_options_default(&o);
    o.tol = 1e-14;
    o.epa_tol = 1e-12;
    for (int k = 0; k < 20000; ++k) {
        lucid_shape b1, b2;
        lucid_shape_box(0.02 + 0.3 * uniform(&rng), 0.02 + 0.3 * uniform(&rng),
                        0.02 + 0.3 * uniform(&rng), &b1);
        lucid_shape_box(0.02 + 0.3 * uniform(&rng), 0.02 + 0.3 * uniform(&rng),
                        0.02 + 0.3 * uniform(&rng), &b2);
        int kind = k % 4;
        lucid_se3 T1 = lucid_se3_make(random_rotation(&rng), random_direction(&rng));
        lucid_mat3 Rrel = random_or_aligned(&rng, kind);
        lucid_vec3 offset = lucid_vec3_scale(random_direction(&rng), 0.8 * uniform(&rng));
        if (kind == 1 && k % 8 == 1) offset = lucid_vec3_make(0.0, 0.0, 0.7 * uniform(&rng));
        lucid_se3 T2 = lucid_se3_make(lucid_mat3_mul(&T1.R, &Rrel),
                                      lucid_vec3_add(T1.t, lucid_mat3_mul_vec(&T1.R, offset)));
        lucid_distance_result ref, r;
        int hit = -1;
        assert_int_equal(lucid_distance(&b1, &T1, &b2, &T2, &o, &ref), LUCID_OK);
        assert_int_equal(lucid_collide(&b1, &T1, &b2, &T2, NULL, &hit, &r), LUCID_OK);
        assert_int_equal(r.iterations, 0); /* the separating-axis path ran */
        if (!(fabs(lucid_vec3_norm(r.normal) - 1.0) <= 1e-12))
            fail_msg("pair %d: normal (%g %g %g), distance %g", k, r.normal.x, r.normal.y,
                     r.normal.z, r.distance);
        if (fabs(ref.distance) <= 1e-9) { /* contact up to round-off: either answer */
            ++contact;
            continue;
        }
        if (hit != (ref.distance < 0.0))
            fail_msg("pair %d: SAT hit %d, GJK/EPA distance %.17g", k, hit, ref.distance);
        if (hit) {
            ++hits;
            if (!(fabs(r.distance - ref.distance) <= 1e-9))
                fail_msg("pair %d: SAT depth %.17g, EPA %.17g", k, -r.distance, -ref.distance);
            /* moving box 2 by depth + 1e-7 along the normal separates it by ~1e-7 */
            lucid_se3 moved = T2;
            moved.t = lucid_vec3_axpy(T2.t, 1e-7 - r.distance, r.normal);
            lucid_distance_result apart;
            assert_int_equal(lucid_distance(&b1, &T1, &b2, &moved, &o, &apart), LUCID_OK);
            /* nearly parallel edges (kind 2): the axis is known to ~1e-8 rad (box_box.c);
             * measured excess up to 3.3e-8 there, 1.6e-15 elsewhere */
            double slack = kind == 2 ? 5e-8 : 1e-9;
            if (apart.distance - 1e-7 > worst[kind]) worst[kind] = apart.distance - 1e-7;
            if (!(apart.distance > 0.0 && apart.distance <= 1e-7 + slack))
                fail_msg("pair %d: moved by the depth along the normal, distance %.3g", k,
                         apart.distance);
        } else {
            ++misses;
            /* a lower bound, certified: the boxes' extreme points along the normal are that far
             * apart along it */
            assert_true(r.distance > 0.0 && r.distance <= ref.distance + 1e-12);
            double along = lucid_vec3_dot(lucid_vec3_sub(r.p2, r.p1), r.normal);
            if (!(fabs(along - r.distance) <= 1e-12))
                fail_msg(
                    "pair %d (kind %d): gap %.17g, extreme points %.17g apart along the normal", k,
                    kind, r.distance, along);
        }
    }
    printf("largest distance beyond 1e-7 after the move, per kind: %.3g %.3g %.3g %.3g\n", worst[0],
           worst[1], worst[2], worst[3]);
    printf("%d overlapping, %d separated, %d in contact up to 1e-9\n", hits, misses, contact);
    assert_true(hits > 4000 && misses > 4000);
}

/* Exact answers: stacked boxes along z and a box turned 45 degrees over another's edge. */
static void sat_exact_cases(void **state) {
    (void)state;
    lucid_shape b1, b2;
    lucid_shape_box(0.5, 0.5, 0.5, &b1);
    lucid_shape_box(0.3, 0.3, 0.3, &b2);
    lucid_se3 I = lucid_se3_identity();
    int hit;
    lucid_distance_result r;
    lucid_se3 T = pose_t(0.1, -0.2, 0.75); /* overlap 0.05 along z */
    assert_int_equal(lucid_collide(&b1, &I, &b2, &T, NULL, &hit, &r), LUCID_OK);
    assert_true(hit);
    assert_true(fabs(r.distance + 0.05) <= 1e-15);
    assert_true(fabs(r.normal.z - 1.0) <= 1e-15);
    T = pose_t(0.0, 0.0, 0.9); /* 0.1 apart */
    assert_int_equal(lucid_collide(&b1, &I, &b2, &T, NULL, &hit, &r), LUCID_OK);
    assert_false(hit);
    assert_true(fabs(r.distance - 0.1) <= 1e-15);
    /* box 2 turned 45 degrees about x, an edge down: its lowest point at 0.3 sqrt 2 below */
    T = lucid_se3_make(axis_angle(lucid_vec3_make(1, 0, 0), PI / 4),
                       lucid_vec3_make(0, 0, 0.5 + 0.3 * sqrt(2.0) - 0.01));
    assert_int_equal(lucid_collide(&b1, &I, &b2, &T, NULL, &hit, &r), LUCID_OK);
    assert_true(hit);
    assert_true(fabs(r.distance + 0.01) <= 1e-12);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sat_matches_gjk_epa_on_random_pairs),
        cmocka_unit_test(sat_exact_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
