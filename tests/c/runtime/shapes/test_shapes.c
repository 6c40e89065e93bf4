/* Primitive shapes: support functions against analytic formulas and the support property
 * over sampled boundary points, tie-breaking, zero directions, constructors and AABBs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runtime/shapes/shape.h"

#include "tests/c/common/test_random.h"

static lucid_se3 random_pose(uint64_t *state) {
    lucid_quat q = lucid_quat_make(uniform(state) - 0.5, uniform(state) - 0.5, uniform(state) - 0.5,
                                   uniform(state) - 0.5);
    lucid_quat_normalize(&q);
    lucid_vec3 t = lucid_vec3_scale(random_direction(state), 3.0 * uniform(state));
    return lucid_se3_make(lucid_quat_to_mat3(q), t);
}

static void assert_vec_near(lucid_vec3 a, lucid_vec3 b, double tol) {
    assert_true(fabs(a.x - b.x) <= tol);
    assert_true(fabs(a.y - b.y) <= tol);
    assert_true(fabs(a.z - b.z) <= tol);
}

/* A boundary point of the shape from two uniform parameters (u, v) and a third w used to pick
 * a face / cap. Independent of the support code: explicit parametrisations. */
static lucid_vec3 boundary_point(const lucid_shape *s, double u, double v, double w) {
    double theta = 2 * PI * u, z = 2 * v - 1, rho = sqrt(fmax(0.0, 1 - z * z));
    lucid_vec3 sphere = lucid_vec3_make(rho * cos(theta), rho * sin(theta), z);
    switch (s->kind) {
        case LUCID_SHAPE_SPHERE:
            return lucid_vec3_scale(sphere, s->radius);
        case LUCID_SHAPE_ELLIPSOID:
            return lucid_vec3_mul(sphere, s->u.radii);
        case LUCID_SHAPE_BOX: {
            lucid_vec3 h = s->u.half_extents;
            double c[3] = {(2 * u - 1) * h.x, (2 * v - 1) * h.y, (2 * w - 1) * h.z};
            int face = (int)(6 * w) % 6;
            double half[3] = {h.x, h.y, h.z};
            c[face / 2] = face % 2 ? -half[face / 2] : half[face / 2];
            return lucid_vec3_load(c);
        }
        case LUCID_SHAPE_CAPSULE: {
            double h = s->u.half_length, r = s->radius;
            if (w < 0.5) /* side */
                return lucid_vec3_make(r * cos(theta), r * sin(theta), (2 * v - 1) * h);
            return lucid_vec3_add(lucid_vec3_make(0, 0, w < 0.75 ? h : -h),
                                  lucid_vec3_scale(sphere, r));
        }
        case LUCID_SHAPE_CYLINDER: {
            double h = s->u.round.half_length, r = s->u.round.radius;
            if (w < 0.5) return lucid_vec3_make(r * cos(theta), r * sin(theta), (2 * v - 1) * h);
            double rr = r * sqrt(v);
            return lucid_vec3_make(rr * cos(theta), rr * sin(theta), w < 0.75 ? h : -h);
        }
        case LUCID_SHAPE_CONE: {
            double h = s->u.round.half_length, r = s->u.round.radius;
            if (w < 0.5) { /* lateral surface: from apex (v=0) to the base rim (v=1) */
                return lucid_vec3_make(v * r * cos(theta), v * r * sin(theta), h - 2 * h * v);
            }
            double rr = r * sqrt(v);
            return lucid_vec3_make(rr * cos(theta), rr * sin(theta), -h);
        }
        default:
            return lucid_vec3_zero();
    }
}

/* Membership test with tolerance, written from the shape definitions. */
static int contains(const lucid_shape *s, lucid_vec3 p, double tol) {
    switch (s->kind) {
        case LUCID_SHAPE_SPHERE:
            return lucid_vec3_norm(p) <= s->radius + tol;
        case LUCID_SHAPE_ELLIPSOID: {
            lucid_vec3 r = s->u.radii;
            lucid_vec3 q = lucid_vec3_make(p.x / r.x, p.y / r.y, p.z / r.z);
            return lucid_vec3_norm(q) <= 1 + tol;
        }
        case LUCID_SHAPE_BOX: {
            lucid_vec3 h = s->u.half_extents;
            return fabs(p.x) <= h.x + tol && fabs(p.y) <= h.y + tol && fabs(p.z) <= h.z + tol;
        }
        case LUCID_SHAPE_CAPSULE: {
            double h = s->u.half_length;
            lucid_vec3 c = lucid_vec3_make(0, 0, fmax(-h, fmin(h, p.z)));
            return lucid_vec3_dist(p, c) <= s->radius + tol;
        }
        case LUCID_SHAPE_CYLINDER:
            return hypot(p.x, p.y) <= s->u.round.radius + tol &&
                   fabs(p.z) <= s->u.round.half_length + tol;
        case LUCID_SHAPE_CONE: {
            double h = s->u.round.half_length, r = s->u.round.radius;
            if (p.z > h + tol || p.z < -h - tol) return 0;
            double allowed = r * (h - p.z) / (2 * h); /* radius of the cross-section at z */
            return hypot(p.x, p.y) <= allowed + tol;
        }
        default:
            return 0;
    }
}

static void make_primitives(lucid_shape primitives[6]) {
    assert_int_equal(lucid_shape_sphere(0.7, &primitives[0]), LUCID_OK);
    assert_int_equal(lucid_shape_ellipsoid(0.3, 1.2, 0.8, &primitives[1]), LUCID_OK);
    assert_int_equal(lucid_shape_box(0.5, 0.2, 1.5, &primitives[2]), LUCID_OK);
    assert_int_equal(lucid_shape_capsule(0.25, 0.6, &primitives[3]), LUCID_OK);
    assert_int_equal(lucid_shape_cylinder(0.4, 0.9, &primitives[4]), LUCID_OK);
    assert_int_equal(lucid_shape_cone(0.5, 0.25, &primitives[5]), LUCID_OK);
}

static void support_matches_analytic_formulas(void **state) {
    (void)state;
    lucid_shape primitives[6];
    make_primitives(primitives);
    uint64_t rng = 1;
    for (int trial = 0; trial < 500; ++trial) {
        lucid_vec3 d = lucid_vec3_scale(random_direction(&rng), 0.1 + 5 * uniform(&rng));
        lucid_vec3 u = lucid_vec3_normalized(d);
        /* sphere: r d / |d| */
        assert_vec_near(lucid_shape_support(&primitives[0], d, NULL), lucid_vec3_scale(u, 0.7),
                        1e-14);
        assert_vec_near(lucid_shape_support_core(&primitives[0], d, NULL), lucid_vec3_zero(), 0);
        /* ellipsoid: A^2 d / |A d| */
        lucid_vec3 a = primitives[1].u.radii;
        lucid_vec3 ad = lucid_vec3_mul(a, d);
        assert_vec_near(lucid_shape_support(&primitives[1], d, NULL),
                        lucid_vec3_scale(lucid_vec3_mul(a, ad), 1.0 / lucid_vec3_norm(ad)), 1e-13);
        /* box: sign pattern */
        lucid_vec3 h = primitives[2].u.half_extents;
        assert_vec_near(lucid_shape_support(&primitives[2], d, NULL),
                        lucid_vec3_make(copysign(h.x, d.x), copysign(h.y, d.y), copysign(h.z, d.z)),
                        0);
        /* capsule: end point of the segment plus r u */
        lucid_vec3 end = lucid_vec3_make(0, 0, copysign(0.6, d.z));
        assert_vec_near(lucid_shape_support(&primitives[3], d, NULL), lucid_vec3_axpy(end, 0.25, u),
                        1e-14);
        /* cylinder: rim point in the radial direction at the end cap along d.z */
        double rho = hypot(d.x, d.y);
        assert_vec_near(lucid_shape_support(&primitives[4], d, NULL),
                        lucid_vec3_make(0.4 * d.x / rho, 0.4 * d.y / rho, copysign(0.9, d.z)),
                        1e-14);
        /* cone: the better of the apex and the base rim point */
        lucid_vec3 apex = lucid_vec3_make(0, 0, 0.25);
        lucid_vec3 rim = lucid_vec3_make(0.5 * d.x / rho, 0.5 * d.y / rho, -0.25);
        lucid_vec3 best = lucid_vec3_dot(apex, d) >= lucid_vec3_dot(rim, d) ? apex : rim;
        assert_vec_near(lucid_shape_support(&primitives[5], d, NULL), best, 1e-14);
    }
}

static void support_dominates_sampled_boundary_points(void **state) {
    (void)state;
    lucid_shape primitives[6];
    make_primitives(primitives);
    uint64_t rng = 2;
    for (int k = 0; k < 6; ++k) {
        const lucid_shape *s = &primitives[k];
        for (int trial = 0; trial < 200; ++trial) {
            lucid_vec3 d = random_direction(&rng);
            lucid_vec3 sp = lucid_shape_support(s, d, NULL);
            assert_true(contains(s, sp, 1e-12));
            double h = lucid_vec3_dot(d, sp);
            for (int j = 0; j < 200; ++j) {
                lucid_vec3 x = boundary_point(s, uniform(&rng), uniform(&rng), uniform(&rng));
                assert_true(contains(s, x, 1e-12)); /* the sampler is right */
                assert_true(lucid_vec3_dot(d, x) <= h + 1e-12);
            }
        }
    }
}

static void ties_pick_the_plus_side_deterministically(void **state) {
    (void)state;
    lucid_shape primitives[6];
    make_primitives(primitives);
    lucid_vec3 h = primitives[2].u.half_extents;
    /* Axis directions leave two components zero: those pick +. -0.0 counts as zero. */
    assert_vec_near(lucid_shape_support(&primitives[2], lucid_vec3_make(-1, 0, -0.0), NULL),
                    lucid_vec3_make(-h.x, h.y, h.z), 0);
    assert_vec_near(lucid_shape_support(&primitives[2], lucid_vec3_make(0, 0, -2), NULL),
                    lucid_vec3_make(h.x, h.y, -h.z), 0);
    /* Capsule and cylinder with a horizontal direction: the +h end. */
    lucid_vec3 side = lucid_vec3_make(0, 1, 0);
    assert_vec_near(lucid_shape_support(&primitives[3], side, NULL), lucid_vec3_make(0, 0.25, 0.6),
                    1e-15);
    assert_vec_near(lucid_shape_support(&primitives[4], side, NULL), lucid_vec3_make(0, 0.4, 0.9),
                    1e-15);
    /* Cylinder cap (flat face): the disc centre. Cone base: base centre; cone generator tie:
     * the apex. */
    assert_vec_near(lucid_shape_support(&primitives[4], lucid_vec3_make(0, 0, -1), NULL),
                    lucid_vec3_make(0, 0, -0.9), 0);
    assert_vec_near(lucid_shape_support(&primitives[5], lucid_vec3_make(0, 0, -1), NULL),
                    lucid_vec3_make(0, 0, -0.25), 0);
    /* Normal of the lateral surface of the cone (r = 0.5, h = 0.25): (2h, 0, r) = (1, 0, 1)/2:
     * the whole generator ties and the apex wins. */
    assert_vec_near(lucid_shape_support(&primitives[5], lucid_vec3_make(1.0, 0, 1.0), NULL),
                    lucid_vec3_make(0, 0, 0.25), 0);
    /* Repeated calls give bit-identical answers (no hidden state). */
    uint64_t rng = 3;
    for (int k = 0; k < 6; ++k)
        for (int i = 0; i < 50; ++i) {
            lucid_vec3 d = random_direction(&rng);
            lucid_vec3 a = lucid_shape_support(&primitives[k], d, NULL);
            lucid_vec3 b = lucid_shape_support(&primitives[k], d, NULL);
            assert_memory_equal(&a, &b, sizeof a);
        }
}

static void degenerate_directions_give_points_of_the_shape(void **state) {
    (void)state;
    lucid_shape primitives[6];
    make_primitives(primitives);
    lucid_vec3 odd[] = {lucid_vec3_zero(), lucid_vec3_make(-0.0, 0.0, -0.0),
                        lucid_vec3_make(NAN, 1, 0), lucid_vec3_make(INFINITY, 0, 0),
                        lucid_vec3_make(1e-310, -2e-310, 0)};
    for (int k = 0; k < 6; ++k)
        for (size_t i = 0; i < sizeof odd / sizeof odd[0]; ++i) {
            lucid_vec3 p = lucid_shape_support(&primitives[k], odd[i], NULL);
            assert_true(lucid_vec3_isfinite(p));
            assert_true(contains(&primitives[k], p, 1e-12));
        }
    /* Tiny and huge directions (no overflow in |d|) match the unit direction. */
    uint64_t rng = 4;
    for (int k = 0; k < 6; ++k)
        for (int i = 0; i < 50; ++i) {
            lucid_vec3 d = random_direction(&rng);
            lucid_vec3 ref = lucid_shape_support(&primitives[k], d, NULL);
            assert_vec_near(lucid_shape_support(&primitives[k], lucid_vec3_scale(d, 1e-300), NULL),
                            ref, 1e-13);
            assert_vec_near(lucid_shape_support(&primitives[k], lucid_vec3_scale(d, 1e300), NULL),
                            ref, 1e-13);
        }
}

static void constructors_reject_invalid_sizes(void **state) {
    (void)state;
    lucid_shape s;
    double bad[] = {0.0, -1.0, -0.0};
    for (size_t i = 0; i < 3; ++i) {
        assert_int_equal(lucid_shape_sphere(bad[i], &s), LUCID_ERR_ARGUMENT);
        assert_int_equal(lucid_shape_ellipsoid(1, bad[i], 1, &s), LUCID_ERR_ARGUMENT);
        assert_int_equal(lucid_shape_box(1, 1, bad[i], &s), LUCID_ERR_ARGUMENT);
        assert_int_equal(lucid_shape_capsule(bad[i], 1, &s), LUCID_ERR_ARGUMENT);
        assert_int_equal(lucid_shape_cylinder(1, bad[i], &s), LUCID_ERR_ARGUMENT);
        assert_int_equal(lucid_shape_cone(bad[i], 1, &s), LUCID_ERR_ARGUMENT);
    }
    assert_int_equal(lucid_shape_sphere(NAN, &s), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_shape_box(1, INFINITY, 1, &s), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_shape_capsule(1, NAN, &s), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_zero(), 1, &s), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(0, NAN, 1), 1, &s), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_shape_convex(NULL, &s), LUCID_ERR_ARGUMENT);
    assert_string_equal(lucid_shape_kind_name(LUCID_SHAPE_CONE), "cone");
    assert_string_equal(lucid_shape_kind_name(LUCID_SHAPE_HALFSPACE), "halfspace");
}

static void halfspace_is_normalised_and_its_support_is_defined(void **state) {
    (void)state;
    lucid_shape s;
    /* 3x + 4z <= 10 is the same set as 0.6x + 0.8z <= 2. */
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(3, 0, 4), 10, &s), LUCID_OK);
    assert_vec_near(s.u.halfspace.normal, lucid_vec3_make(0.6, 0, 0.8), 1e-15);
    assert_true(fabs(s.u.halfspace.offset - 2.0) < 1e-15);
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(0, 1e-300, 0), 1e-300, &s), LUCID_OK);
    assert_vec_near(s.u.halfspace.normal, lucid_vec3_make(0, 1, 0), 0);
    assert_true(fabs(s.u.halfspace.offset - 1.0) < 1e-15);
    lucid_vec3 p = lucid_shape_support(&s, lucid_vec3_make(1, 2, 3), NULL);
    assert_vec_near(p, lucid_vec3_make(0, 1, 0), 1e-15);
    lucid_se3 I = lucid_se3_identity();
    lucid_vec3 lo, hi;
    lucid_shape_aabb(&s, &I, &lo, &hi); /* y <= 1, everything else unbounded */
    assert_true(isinf(lo.x) && isinf(lo.y) && isinf(lo.z) && isinf(hi.x) && isinf(hi.z));
    assert_true(fabs(hi.y - 1.0) < 1e-15);
}

/* AABB bounds along world axis i must be the support values in the directions +-e_i. */
static void aabb_equals_support_extents(void **state) {
    (void)state;
    lucid_shape primitives[6];
    make_primitives(primitives);
    uint64_t rng = 5;
    for (int k = 0; k < 6; ++k)
        for (int trial = 0; trial < 100; ++trial) {
            lucid_se3 T = random_pose(&rng);
            lucid_vec3 lo, hi;
            lucid_shape_aabb(&primitives[k], &T, &lo, &hi);
            for (int i = 0; i < 3; ++i) {
                lucid_vec3 e = lucid_vec3_make(i == 0, i == 1, i == 2);
                lucid_vec3 local = lucid_mat3_tmul_vec(&T.R, e);
                lucid_vec3 up = lucid_se3_act(&T, lucid_shape_support(&primitives[k], local, NULL));
                lucid_vec3 down = lucid_se3_act(
                    &T, lucid_shape_support(&primitives[k], lucid_vec3_neg(local), NULL));
                assert_true(fabs(lucid_vec3_get(up, i) - lucid_vec3_get(hi, i)) < 1e-12);
                assert_true(fabs(lucid_vec3_get(down, i) - lucid_vec3_get(lo, i)) < 1e-12);
            }
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(support_matches_analytic_formulas),
        cmocka_unit_test(support_dominates_sampled_boundary_points),
        cmocka_unit_test(ties_pick_the_plus_side_deterministically),
        cmocka_unit_test(degenerate_directions_give_points_of_the_shape),
        cmocka_unit_test(constructors_reject_invalid_sizes),
        cmocka_unit_test(halfspace_is_normalised_and_its_support_is_defined),
        cmocka_unit_test(aabb_equals_support_extents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
