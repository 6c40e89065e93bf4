/* GJK distance queries: analytic distances and witness points for primitive pairs in every
 * variant, halfspaces in closed form, brute-force polytope distances, agreement between the
 * variants, Boolean mode against the distance sign, warm starts, tolerances and scales. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tests/c/common/test_collision_util.h"

#define SQRT2 1.4142135623730951
#define SQRT3 1.7320508075688772

static void assert_vec_near(lucid_vec3 a, lucid_vec3 b, double tol) {
    if (lucid_vec3_dist(a, b) > tol)
        fail_msg("(%.12g %.12g %.12g) != (%.12g %.12g %.12g) (tol %g)", a.x, a.y, a.z, b.x, b.y,
                 b.z, tol);
}

static void assert_near(double a, double b, double tol) {
    if (!(fabs(a - b) <= tol)) fail_msg("%.15g != %.15g (tol %g)", a, b, tol);
}

static lucid_distance_result query(const lucid_shape *s1, lucid_se3 T1, const lucid_shape *s2,
                                   lucid_se3 T2, const lucid_gjk_options *o) {
    lucid_distance_result r;
    assert_int_equal(lucid_distance(s1, &T1, s2, &T2, o, &r), LUCID_OK);
    return r;
}

/* Checks distance, witnesses and normal in every variant and with the arguments swapped. */
static void check_pair(const lucid_shape *s1, lucid_se3 T1, const lucid_shape *s2, lucid_se3 T2,
                       double distance, lucid_vec3 p1, lucid_vec3 p2, double tol) {
    lucid_gjk_options o;
    for (int v = 0; variant_options(v, &o); ++v) {
        lucid_distance_result r = query(s1, T1, s2, T2, &o);
        assert_true(r.converged);
        assert_near(r.distance, distance, tol);
        assert_vec_near(r.p1, p1, sqrt(tol));
        assert_vec_near(r.p2, p2, sqrt(tol));
        assert_near(lucid_vec3_norm(r.normal), 1.0, 1e-12);
        assert_vec_near(lucid_vec3_sub(r.p2, r.p1), lucid_vec3_scale(r.normal, r.distance), 1e-9);
        lucid_distance_result q = query(s2, T2, s1, T1, &o);
        assert_near(q.distance, distance, tol);
        assert_vec_near(q.p1, p2, sqrt(tol));
        assert_vec_near(q.p2, p1, sqrt(tol));
        if (fabs(distance) > 1e-6) assert_vec_near(q.normal, lucid_vec3_neg(r.normal), 1e-6);
    }
}

static void sphere_sphere(void **state) {
    (void)state;
    lucid_shape a, b;
    lucid_shape_sphere(0.3, &a);
    lucid_shape_sphere(0.5, &b);
    lucid_vec3 c1 = lucid_vec3_make(0.1, -0.2, 0.3),
               u = lucid_vec3_normalized(lucid_vec3_make(1, 2, -2));
    for (double d = -0.5; d <= 2.0; d += 0.25) {
        lucid_vec3 c2 = lucid_vec3_axpy(c1, 0.8 + d, u);
        uint64_t rng = 7;
        lucid_se3 T1 = lucid_se3_make(random_rotation(&rng), c1);
        lucid_se3 T2 = lucid_se3_make(random_rotation(&rng), c2);
        check_pair(&a, T1, &b, T2, d, lucid_vec3_axpy(c1, 0.3, u), lucid_vec3_axpy(c2, -0.5, u),
                   1e-10);
    }
}

static void sphere_box(void **state) {
    (void)state;
    lucid_shape box, ball;
    lucid_shape_box(0.5, 0.5, 0.5, &box);
    lucid_shape_sphere(0.2, &ball);
    lucid_se3 I = lucid_se3_identity();
    double g = 0.05, a = 0.03, b = 0.04;
    /* face */
    check_pair(&box, I, &ball, pose_t(0.7 + g, 0.1, -0.1), g, lucid_vec3_make(0.5, 0.1, -0.1),
               lucid_vec3_make(0.5 + g, 0.1, -0.1), 1e-10);
    /* edge */
    lucid_vec3 c = lucid_vec3_make(0.5 + a, 0.5 + b, 0.2);
    lucid_vec3 n = lucid_vec3_normalized(lucid_vec3_make(a, b, 0));
    check_pair(&box, I, &ball, pose_t(c.x, c.y, c.z), 0.05 - 0.2, lucid_vec3_make(0.5, 0.5, 0.2),
               lucid_vec3_axpy(c, -0.2, n), 1e-10);
    /* corner */
    c = lucid_vec3_make(0.5 + a, 0.5 + a, 0.5 + a);
    n = lucid_vec3_normalized(lucid_vec3_make(1, 1, 1));
    check_pair(&box, I, &ball, pose_t(c.x, c.y, c.z), SQRT3 * a - 0.2,
               lucid_vec3_make(0.5, 0.5, 0.5), lucid_vec3_axpy(c, -0.2, n), 1e-10);
}

/* Rotation taking the unit vector a onto the unit vector b. */
static lucid_mat3 rotation_between(lucid_vec3 a, lucid_vec3 b) {
    lucid_vec3 axis = lucid_vec3_cross(a, b);
    return axis_angle(axis, atan2(lucid_vec3_norm(axis), lucid_vec3_dot(a, b)));
}

static void box_box(void **state) {
    (void)state;
    lucid_shape b1, b2, b3;
    lucid_shape_box(0.5, 0.5, 0.5, &b1);
    lucid_shape_box(0.3, 0.3, 0.3, &b2);
    lucid_shape_box(0.5, 0.5, 0.5, &b3);
    lucid_se3 I = lucid_se3_identity();
    const double g = 0.02;
    /* face-face: distance and normal are unique, witness points lie on the facing faces */
    lucid_gjk_options o;
    for (int v = 0; variant_options(v, &o); ++v) {
        lucid_distance_result r = query(&b1, I, &b2, pose_t(0.8 + g, 0.1, 0.0), &o);
        assert_true(r.converged);
        assert_near(r.distance, g, 1e-12);
        assert_vec_near(r.normal, lucid_vec3_make(1, 0, 0), 1e-9);
        assert_near(r.p1.x, 0.5, 1e-12);
        assert_near(r.p2.x, 0.5 + g, 1e-12);
        assert_true(r.p1.y >= -0.2 - 1e-12 && r.p1.y <= 0.4 + 1e-12);
        assert_true(fabs(r.p1.z) <= 0.3 + 1e-12);
        assert_near(r.p1.y, r.p2.y, 1e-12);
    }
    /* edge-edge: box 1 turned 45 deg about z, box 2 turned 45 deg about y */
    lucid_se3 T1 = lucid_se3_make(axis_angle(lucid_vec3_make(0, 0, 1), PI / 4), lucid_vec3_zero());
    lucid_se3 T2 = lucid_se3_make(axis_angle(lucid_vec3_make(0, 1, 0), PI / 4),
                                  lucid_vec3_make(SQRT2 + g, 0, 0));
    check_pair(&b3, T1, &b3, T2, g, lucid_vec3_make(0.5 * SQRT2, 0, 0),
               lucid_vec3_make(0.5 * SQRT2 + g, 0, 0), 1e-10);
    /* vertex-face: a corner of box 2 points at the +x face of box 1 */
    lucid_mat3 R = rotation_between(lucid_vec3_normalized(lucid_vec3_make(-1, -1, -1)),
                                    lucid_vec3_make(-1, 0, 0));
    T2 = lucid_se3_make(R, lucid_vec3_make(0.5 + 0.3 * SQRT3 + g, 0.1, 0.2));
    check_pair(&b1, I, &b2, T2, g, lucid_vec3_make(0.5, 0.1, 0.2),
               lucid_vec3_make(0.5 + g, 0.1, 0.2), 1e-10);
}

static void capsule_capsule(void **state) {
    (void)state;
    lucid_shape c1, c2;
    lucid_shape_capsule(0.1, 0.5, &c1);
    lucid_shape_capsule(0.2, 0.3, &c2);
    lucid_se3 I = lucid_se3_identity();
    /* parallel: witness points anywhere along the overlap of the two segments */
    lucid_gjk_options o;
    for (int v = 0; variant_options(v, &o); ++v) {
        lucid_distance_result r = query(&c1, I, &c2, pose_t(1.0, 0.0, 0.2), &o);
        assert_near(r.distance, 0.7, 1e-10);
        assert_near(r.p1.x, 0.1, 1e-10);
        assert_near(r.p2.x, 0.8, 1e-10);
        assert_true(r.p1.z >= -0.1 - 1e-9 && r.p1.z <= 0.5 + 1e-9);
        assert_near(r.p1.z, r.p2.z, 1e-9);
    }
    /* skew: capsule 2 along y above the end of capsule 1 */
    lucid_se3 T2 =
        lucid_se3_make(axis_angle(lucid_vec3_make(1, 0, 0), PI / 2), lucid_vec3_make(0.3, 0, 2));
    lucid_vec3 a = lucid_vec3_make(0, 0, 0.5), b = lucid_vec3_make(0.3, 0, 2.0);
    lucid_vec3 n = lucid_vec3_normalized(lucid_vec3_sub(b, a));
    check_pair(&c1, I, &c2, T2, lucid_vec3_dist(a, b) - 0.3, lucid_vec3_axpy(a, 0.1, n),
               lucid_vec3_axpy(b, -0.2, n), 1e-10);
    /* crossing at right angles with a small gap (interior of both segments) */
    T2 =
        lucid_se3_make(axis_angle(lucid_vec3_make(1, 0, 0), PI / 2), lucid_vec3_make(0.35, 0, 0.1));
    check_pair(&c1, I, &c2, T2, 0.05, lucid_vec3_make(0.1, 0, 0.1), lucid_vec3_make(0.15, 0, 0.1),
               1e-10);
}

static void cylinder_and_cone(void **state) {
    (void)state;
    lucid_shape cyl, cone, ball, box;
    lucid_shape_cylinder(0.4, 0.6, &cyl);
    lucid_shape_cone(0.3, 0.5, &cone);
    lucid_shape_sphere(0.1, &ball);
    lucid_shape_box(1.0, 1.0, 1.0, &box);
    lucid_se3 I = lucid_se3_identity();
    const double g = 0.03, a = 0.02;
    /* cylinder: cap, side, rim */
    check_pair(&cyl, I, &ball, pose_t(0.2, 0.1, 0.7 + g), g, lucid_vec3_make(0.2, 0.1, 0.6),
               lucid_vec3_make(0.2, 0.1, 0.6 + g), 1e-10);
    check_pair(&cyl, I, &ball, pose_t(0.5 + g, 0, 0.2), g, lucid_vec3_make(0.4, 0, 0.2),
               lucid_vec3_make(0.4 + g, 0, 0.2), 1e-10);
    lucid_vec3 n = lucid_vec3_normalized(lucid_vec3_make(1, 0, 1));
    check_pair(&cyl, I, &ball, pose_t(0.4 + a, 0, 0.6 + a), SQRT2 * a - 0.1,
               lucid_vec3_make(0.4, 0, 0.6),
               lucid_vec3_axpy(lucid_vec3_make(0.4 + a, 0, 0.6 + a), -0.1, n), 1e-10);
    /* cone: above the apex, beside the lateral surface, base on a box */
    check_pair(&cone, I, &ball, pose_t(0, 0, 0.6 + g), g, lucid_vec3_make(0, 0, 0.5),
               lucid_vec3_make(0, 0, 0.5 + g), 1e-10);
    n = lucid_vec3_normalized(lucid_vec3_make(1.0, 0, 0.3));
    lucid_vec3 m = lucid_vec3_make(0.15, 0, 0);
    lucid_vec3 c = lucid_vec3_axpy(m, 0.1 + g, n);
    check_pair(&cone, I, &ball, pose_t(c.x, c.y, c.z), g, m, lucid_vec3_axpy(m, g, n), 1e-10);
    lucid_gjk_options o;
    for (int v = 0; variant_options(v, &o); ++v) {
        lucid_distance_result r = query(&cone, I, &box, pose_t(0.2, 0, -1.5 - g), &o);
        assert_near(r.distance, g, 1e-10);
        assert_near(r.p1.z, -0.5, 1e-10);
        assert_vec_near(r.normal, lucid_vec3_make(0, 0, -1), 1e-9);
    }
}

static void halfspace_pairs(void **state) {
    (void)state;
    lucid_shape hs, ball, box, cap;
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0.0, &hs);
    lucid_shape_sphere(0.3, &ball);
    lucid_shape_box(0.2, 0.4, 0.6, &box);
    lucid_shape_capsule(0.1, 0.5, &cap);
    /* the halfspace posed with a lift and a tilt: its world plane is n.x <= n.t */
    lucid_mat3 Rh = axis_angle(lucid_vec3_make(1, 1, 0), 0.3);
    lucid_se3 Th = lucid_se3_make(Rh, lucid_vec3_make(0.2, -0.1, 0.4));
    lucid_vec3 n = lucid_mat3_col(&Rh, 2);
    double off = lucid_vec3_dot(n, Th.t);
    for (double h = -0.2; h <= 0.5; h += 0.1) {
        /* sphere */
        lucid_vec3 c =
            lucid_vec3_axpy(lucid_vec3_make(1, 2, 0),
                            off + 0.3 + h - lucid_vec3_dot(n, lucid_vec3_make(1, 2, 0)), n);
        lucid_vec3 deep = lucid_vec3_axpy(c, -0.3, n);
        check_pair(&hs, Th, &ball, lucid_se3_make(lucid_mat3_identity(), c), h,
                   lucid_vec3_axpy(deep, -h, n), deep, 1e-12);
        /* box turned about x: lowest corner */
        lucid_se3 Tb =
            lucid_se3_make(axis_angle(lucid_vec3_make(1, 0, 0), PI / 6), lucid_vec3_make(0, 0, 2));
        lucid_distance_result r = query(&box, Tb, &hs, Th, NULL);
        double lowest = INFINITY;
        lucid_vec3 corners[8];
        box_corners(lucid_vec3_make(0.2, 0.4, 0.6), &Tb, corners);
        for (int i = 0; i < 8; ++i) lowest = fmin(lowest, lucid_vec3_dot(n, corners[i]) - off);
        assert_near(r.distance, lowest, 1e-12);
        assert_vec_near(r.normal, lucid_vec3_neg(n), 1e-12);
        /* capsule tilted by 0.4 rad: end point minus radius */
        lucid_mat3 Rc = axis_angle(lucid_vec3_make(0, 1, 0), 0.4);
        lucid_se3 Tc = lucid_se3_make(Rc, lucid_vec3_make(0.3, 0.3, 0.5 + h));
        lucid_vec3 e1 = lucid_se3_act(&Tc, lucid_vec3_make(0, 0, 0.5)),
                   e2 = lucid_se3_act(&Tc, lucid_vec3_make(0, 0, -0.5));
        double expect = fmin(lucid_vec3_dot(n, e1), lucid_vec3_dot(n, e2)) - off - 0.1;
        r = query(&hs, Th, &cap, Tc, NULL);
        assert_near(r.distance, expect, 1e-12);
        assert_near(lucid_vec3_dot(n, r.p1), off, 1e-12);
    }
}

/* Random separated box pairs against brute-force feature enumeration. */
static void random_boxes_match_brute_force(void **state) {
    (void)state;
    uint64_t rng = 11;
    int checked = 0;
    for (int k = 0; k < 300; ++k) {
        lucid_vec3 h1 =
            lucid_vec3_make(0.1 + uniform(&rng), 0.1 + uniform(&rng), 0.1 + uniform(&rng));
        lucid_vec3 h2 =
            lucid_vec3_make(0.1 + uniform(&rng), 0.1 + uniform(&rng), 0.1 + uniform(&rng));
        lucid_shape b1, b2;
        lucid_shape_box(h1.x, h1.y, h1.z, &b1);
        lucid_shape_box(h2.x, h2.y, h2.z, &b2);
        lucid_se3 T1 = lucid_se3_make(random_rotation(&rng), lucid_vec3_zero());
        lucid_se3 T2 =
            lucid_se3_make(random_rotation(&rng),
                           lucid_vec3_scale(random_direction(&rng), 1.0 + 3.0 * uniform(&rng)));
        lucid_distance_result r = query(&b1, T1, &b2, T2, NULL);
        if (r.distance <= 1e-3) continue;
        double expect = brute_box_box_distance(h1, &T1, h2, &T2);
        lucid_gjk_options o;
        for (int v = 0; variant_options(v, &o); ++v) {
            r = query(&b1, T1, &b2, T2, &o);
            assert_true(r.converged);
            /* Eq. 17: d^2 - d*^2 <= tol, so d - d* <= tol / (2 d*) */
            assert_true(r.distance >= expect - 1e-12);
            assert_true(r.distance <= expect + o.tol / expect + 1e-12);
            /* witnesses lie on the boxes: inside, up to round-off */
            lucid_vec3 l1 = lucid_se3_act_inv(&T1, r.p1), l2 = lucid_se3_act_inv(&T2, r.p2);
            assert_true(fabs(l1.x) <= h1.x + 1e-9 && fabs(l1.y) <= h1.y + 1e-9 &&
                        fabs(l1.z) <= h1.z + 1e-9);
            assert_true(fabs(l2.x) <= h2.x + 1e-9 && fabs(l2.y) <= h2.y + 1e-9 &&
                        fabs(l2.z) <= h2.z + 1e-9);
        }
        checked++;
    }
    assert_true(checked > 200);
}

static lucid_shape random_shape(uint64_t *rng) {
    lucid_shape s;
    double a = 0.05 + 0.3 * uniform(rng), b = 0.05 + 0.3 * uniform(rng),
           c = 0.05 + 0.3 * uniform(rng);
    switch ((int)(6 * uniform(rng))) {
        case 0:
            lucid_shape_sphere(a, &s);
            break;
        case 1:
            lucid_shape_ellipsoid(a, b, c, &s);
            break;
        case 2:
            lucid_shape_box(a, b, c, &s);
            break;
        case 3:
            lucid_shape_capsule(a, b, &s);
            break;
        case 4:
            lucid_shape_cylinder(a, b, &s);
            break;
        default:
            lucid_shape_cone(a, b, &s);
            break;
    }
    return s;
}

static void boolean_agrees_with_distance_sign(void **state) {
    (void)state;
    uint64_t rng = 23;
    int hits = 0, misses = 0;
    for (int k = 0; k < 4000; ++k) {
        lucid_shape s1 = random_shape(&rng), s2 = random_shape(&rng);
        lucid_se3 T1 = lucid_se3_make(random_rotation(&rng), lucid_vec3_zero());
        lucid_se3 T2 = lucid_se3_make(
            random_rotation(&rng), lucid_vec3_scale(random_direction(&rng), 0.9 * uniform(&rng)));
        lucid_gjk_options o;
        variant_options(k % 4, &o);
        lucid_distance_result d, c;
        assert_int_equal(lucid_distance(&s1, &T1, &s2, &T2, &o, &d), LUCID_OK);
        if (fabs(d.distance) < 1e-6) continue;
        int hit = -1;
        assert_int_equal(lucid_collide(&s1, &T1, &s2, &T2, &o, &hit, &c), LUCID_OK);
        if (hit != (d.distance < 0.0))
            fail_msg("k=%d kinds %d %d hit %d d %.12g c %.12g it %d pen %d conv %d", k, s1.kind,
                     s2.kind, hit, d.distance, c.distance, d.iterations, d.penetrating,
                     d.converged);
        /* the Boolean result's distance is a certified bound on the true one */
        if (hit)
            assert_true(c.distance <= 1e-9);
        else
            assert_true(c.distance > 0.0 && c.distance <= d.distance + 1e-9);
        hits += hit;
        misses += !hit;
    }
    assert_true(hits > 500 && misses > 500);
}

static void variants_agree_on_random_pairs(void **state) {
    (void)state;
    uint64_t rng = 5;
    for (int k = 0; k < 600; ++k) {
        lucid_shape s1, s2;
        double r[6];
        for (int i = 0; i < 6; ++i) r[i] = 0.05 + 0.25 * uniform(&rng);
        if (k % 2) {
            lucid_shape_ellipsoid(r[0], r[1], r[2], &s1);
            lucid_shape_ellipsoid(r[3], r[4], r[5], &s2);
        } else {
            lucid_shape_box(r[0], r[1], r[2], &s1);
            lucid_shape_box(r[3], r[4], r[5], &s2);
        }
        lucid_se3 T1 = lucid_se3_make(random_rotation(&rng), lucid_vec3_zero());
        lucid_se3 T2 =
            lucid_se3_make(random_rotation(&rng),
                           lucid_vec3_scale(random_direction(&rng), 0.3 + 1.2 * uniform(&rng)));
        lucid_gjk_options o;
        variant_options(0, &o);
        lucid_distance_result ref = query(&s1, T1, &s2, T2, &o);
        if (ref.distance <= 1e-3) continue;
        assert_true(ref.converged);
        for (int v = 1; variant_options(v, &o); ++v) {
            lucid_distance_result q = query(&s1, T1, &s2, T2, &o);
            assert_true(q.converged);
            /* termination used the true Frank-Wolfe gap (support along x, Eq. 17), not the
             * momentum direction's: recompute it independently at the returned iterate */
            lucid_minkowski m = lucid_minkowski_make(&s1, &T1, &s2, &T2);
            lucid_vec3 x = lucid_mat3_tmul_vec(&T1.R, q.separation); /* to shape 1's frame */
            lucid_support_point sp = lucid_minkowski_support(&m, lucid_vec3_neg(x));
            assert_true(2.0 * lucid_vec3_dot(x, lucid_vec3_sub(x, sp.w)) <= o.tol);
            /* both are within tol / (2 d*) above the true distance */
            assert_near(q.distance, ref.distance, o.tol / ref.distance);
        }
    }
}

/* Regression: Polyak with the relative tolerance used to stall on overlapping pairs with the
 * origin on a face of the simplex up to round-off (||x|| ~ 1e-17) and return distance ~ 0,
 * converged = false, instead of running EPA (pair 164 of this stream: Polyak, relative). Every
 * variant in both tolerance modes must detect the overlap and give the EPA depth. */
static void overlaps_found_in_every_mode(void **state) {
    (void)state;
    uint64_t rng = 99; /* the stream of bench_gjk's overlap sweep */
    int checked = 0;
    for (int k = 0; k < 1000; ++k) {
        lucid_shape e1, e2;
        double r[6];
        for (int i = 0; i < 6; ++i) r[i] = 0.05 + 0.1 * uniform(&rng);
        lucid_shape_ellipsoid(r[0], r[1], r[2], &e1);
        lucid_shape_ellipsoid(r[3], r[4], r[5], &e2);
        lucid_mat3 R1 = random_rotation(&rng), R2 = random_rotation(&rng);
        lucid_vec3 t2 = lucid_vec3_scale(random_direction(&rng), 0.6);
        lucid_se3 T1 = lucid_se3_make(R1, lucid_vec3_zero()), T2 = lucid_se3_make(R2, t2);
        lucid_gjk_options o = options_for(LUCID_GJK_VANILLA, 0);
        o.tol = 1e-14;
        double target = -(1e-6 + (0.1 - 1e-6) * uniform(&rng));
        for (int pass = 0; pass < 3; ++pass) { /* move along the witness axis to the target */
            lucid_distance_result p = query(&e1, T1, &e2, T2, &o);
            T2.t = lucid_vec3_axpy(T2.t, target - p.distance, p.normal);
        }
        if (k % 3 != 0 && k != 164) continue; /* keep the suite fast; 164 failed before */
        lucid_distance_result ref = query(&e1, T1, &e2, T2, NULL);
        assert_true(ref.converged && ref.penetrating && ref.distance < 0.0);
        for (int v = 0; variant_options(v, &o); ++v)
            for (int mode = 0; mode < 2; ++mode) {
                o.tol_mode = mode ? LUCID_GJK_TOL_RELATIVE : LUCID_GJK_TOL_ABSOLUTE;
                lucid_distance_result q = query(&e1, T1, &e2, T2, &o);
                if (!q.converged || !q.penetrating)
                    fail_msg("pair %d variant %d mode %d: distance %g converged %d", k, v, mode,
                             q.distance, q.converged);
                /* both EPA runs certify their depth within epa_tol = 1e-9 */
                assert_near(q.distance, ref.distance, 2.0 * o.epa_tol + 1e-12);
            }
        ++checked;
    }
    assert_true(checked >= 300);
}

static void warm_starts(void **state) {
    (void)state;
    lucid_shape e1, e2;
    lucid_shape_ellipsoid(0.2, 0.1, 0.3, &e1);
    lucid_shape_ellipsoid(0.15, 0.25, 0.1, &e2);
    uint64_t rng = 3;
    lucid_se3 T1 = lucid_se3_make(random_rotation(&rng), lucid_vec3_make(0.1, 0, 0));
    lucid_se3 T2 = lucid_se3_make(random_rotation(&rng), lucid_vec3_make(0.6, 0.2, 0.1));
    lucid_gjk_options o = options_for(LUCID_GJK_NESTEROV, 0);
    lucid_distance_result ref = query(&e1, T1, &e2, T2, &o);
    /* a zero-length warm-start vector (and a zero previous result) fall back to box centres */
    o.warm_start = LUCID_WARM_VECTOR;
    o.warm_vector = lucid_vec3_zero();
    lucid_distance_result r = query(&e1, T1, &e2, T2, &o);
    assert_true(r.converged);
    assert_near(r.distance, ref.distance, 1e-7);
    /* a non-finite vector is ignored the same way */
    o.warm_vector = lucid_vec3_make(NAN, 0, 0);
    r = query(&e1, T1, &e2, T2, &o);
    assert_near(r.distance, ref.distance, 1e-7);
    /* frame origins */
    o.warm_start = LUCID_WARM_NONE;
    r = query(&e1, T1, &e2, T2, &o);
    assert_near(r.distance, ref.distance, 1e-7);
    /* previous result at the same pose: starts on the answer */
    o.warm_start = LUCID_WARM_PREVIOUS;
    o.previous = &ref;
    o.algorithm = LUCID_GJK_VANILLA;
    r = query(&e1, T1, &e2, T2, &o);
    assert_near(r.distance, ref.distance, 1e-7);
    assert_true(r.iterations <= ref.iterations);
    o.previous = NULL;
    r = query(&e1, T1, &e2, T2, &o);
    assert_near(r.distance, ref.distance, 1e-7);
}

static void tolerance_modes_and_caps(void **state) {
    (void)state;
    lucid_shape e1, e2;
    lucid_shape_ellipsoid(0.2, 0.1, 0.3, &e1);
    lucid_shape_ellipsoid(0.15, 0.25, 0.1, &e2);
    lucid_se3 I = lucid_se3_identity(), T2 = pose_t(2.0, 1.0, 0.5);
    lucid_gjk_options o = options_for(LUCID_GJK_VANILLA, 0);
    o.tol = 1e-14;
    lucid_distance_result exact = query(&e1, I, &e2, T2, &o);
    /* relative: the reported gap is within tol ||x||^2 and the error within sqrt(tol) d */
    o.tol_mode = LUCID_GJK_TOL_RELATIVE;
    o.tol = 1e-6;
    lucid_distance_result r = query(&e1, I, &e2, T2, &o);
    assert_true(r.converged);
    assert_true(r.gap <= o.tol * lucid_vec3_norm2(r.separation));
    assert_true(r.distance - exact.distance <= sqrt(o.tol) * exact.distance);
    /* an iteration cap of 1 reports no convergence and finite values */
    o.max_iter = 1;
    o.tol_mode = LUCID_GJK_TOL_ABSOLUTE;
    r = query(&e1, I, &e2, T2, &o);
    assert_false(r.converged);
    assert_int_equal(r.iterations, 1);
    assert_true(isfinite(r.distance) && lucid_vec3_isfinite(r.p1) && lucid_vec3_isfinite(r.normal));
    assert_true(isfinite(r.gap) && r.gap > o.tol); /* the true gap of the unfinished iterate */
}

static void tiny_and_huge_shapes(void **state) {
    (void)state;
    for (int s = 0; s < 2; ++s) {
        double L = s == 0 ? 1e-6 : 1e3;
        lucid_shape b1, b2, e1;
        lucid_shape_box(0.5 * L, 0.4 * L, 0.3 * L, &b1);
        lucid_shape_box(0.2 * L, 0.3 * L, 0.4 * L, &b2);
        lucid_shape_ellipsoid(0.5 * L, 0.2 * L, 0.3 * L, &e1);
        uint64_t rng = 17;
        lucid_se3 T1 = lucid_se3_make(random_rotation(&rng), lucid_vec3_make(L, -L, 0.5 * L));
        lucid_se3 T2 =
            lucid_se3_make(random_rotation(&rng), lucid_vec3_make(2.5 * L, 0.2 * L, 0.5 * L));
        lucid_gjk_options o;
        for (int v = 0; variant_options(v, &o); ++v) {
            o.tol_mode = LUCID_GJK_TOL_RELATIVE;
            o.tol = 1e-12;
            lucid_distance_result r = query(&b1, T1, &b2, T2, &o);
            double expect = brute_box_box_distance(lucid_vec3_make(0.5 * L, 0.4 * L, 0.3 * L), &T1,
                                                   lucid_vec3_make(0.2 * L, 0.3 * L, 0.4 * L), &T2);
            assert_true(r.converged);
            assert_near(r.distance / L, expect / L, 1e-9);
            /* default absolute tolerance: finite, and accurate relative to the size */
            r = query(&e1, T1, &b2, T2, NULL);
            assert_true(isfinite(r.distance) && lucid_vec3_isfinite(r.p1) &&
                        lucid_vec3_isfinite(r.p2));
            assert_near(lucid_vec3_norm(r.normal), 1.0, 1e-12);
            assert_true(r.distance > 0.0 && r.distance < 2.5 * L);
        }
    }
}

static void convex_mesh_cubes(void **state) {
    (void)state;
    /* cubes given as meshes against the same cubes as boxes and the brute-force distance */
    double pts[8 * 3];
    lucid_vec3 h = lucid_vec3_make(0.3, 0.2, 0.4);
    for (int i = 0; i < 8; ++i) {
        pts[3 * i + 0] = i & 1 ? h.x : -h.x;
        pts[3 * i + 1] = i & 2 ? h.y : -h.y;
        pts[3 * i + 2] = i & 4 ? h.z : -h.z;
    }
    lucid_convex_mesh *mesh = NULL;
    assert_int_equal(lucid_convex_mesh_create(pts, 8, &mesh), LUCID_OK);
    lucid_shape m, b;
    lucid_shape_convex(mesh, &m);
    lucid_shape_box(h.x, h.y, h.z, &b);
    uint64_t rng = 99;
    for (int k = 0; k < 200; ++k) {
        lucid_se3 T1 = lucid_se3_make(random_rotation(&rng), lucid_vec3_zero());
        lucid_se3 T2 =
            lucid_se3_make(random_rotation(&rng),
                           lucid_vec3_scale(random_direction(&rng), 0.2 + 1.5 * uniform(&rng)));
        lucid_gjk_options o;
        variant_options(k % 4, &o);
        lucid_distance_result rm = query(&m, T1, &m, T2, &o), rb = query(&b, T1, &b, T2, &o);
        if (rb.distance > 1e-3) {
            double expect = brute_box_box_distance(h, &T1, h, &T2);
            assert_near(rm.distance, expect, o.tol / expect + 1e-12);
        } else {
            assert_near(rm.distance, rb.distance, 1e-7);
        }
    }
    lucid_convex_mesh_destroy(mesh);
}

static void invalid_arguments(void **state) {
    (void)state;
    lucid_shape a, hs;
    lucid_shape_sphere(1.0, &a);
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0.0, &hs);
    lucid_se3 I = lucid_se3_identity(), bad = pose_t(NAN, 0, 0);
    lucid_distance_result r;
    int hit;
    assert_int_equal(lucid_distance(NULL, &I, &a, &I, NULL, &r), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_distance(&a, &I, &a, &I, NULL, NULL), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_distance(&a, &bad, &a, &I, NULL, &r), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_collide(&a, &I, &a, &bad, NULL, &hit, &r), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_collide(&a, &I, &a, &I, NULL, NULL, &r), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_distance(&hs, &I, &hs, &I, NULL, &r), LUCID_ERR_ARGUMENT);
    lucid_gjk_options o;
    lucid_gjk_options_default(&o);
    o.tol = 0.0;
    assert_int_equal(lucid_distance(&a, &I, &a, &I, &o, &r), LUCID_ERR_ARGUMENT);
    lucid_gjk_options_default(&o);
    o.max_iter = 0;
    assert_int_equal(lucid_distance(&a, &I, &a, &I, &o, &r), LUCID_ERR_ARGUMENT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sphere_sphere),
        cmocka_unit_test(sphere_box),
        cmocka_unit_test(box_box),
        cmocka_unit_test(capsule_capsule),
        cmocka_unit_test(cylinder_and_cone),
        cmocka_unit_test(halfspace_pairs),
        cmocka_unit_test(random_boxes_match_brute_force),
        cmocka_unit_test(boolean_agrees_with_distance_sign),
        cmocka_unit_test(variants_agree_on_random_pairs),
        cmocka_unit_test(overlaps_found_in_every_mode),
        cmocka_unit_test(warm_starts),
        cmocka_unit_test(tolerance_modes_and_caps),
        cmocka_unit_test(tiny_and_huge_shapes),
        cmocka_unit_test(convex_mesh_cubes),
        cmocka_unit_test(invalid_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
