/* Penetrating pairs: EPA depth against analytic and separating-axis depths, continuity of the
 * signed distance through contact, coincident and touching shapes, caps and extreme sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "tests/c/common/test_collision_util.h"

static void assert_near(double a, double b, double tol) {
    if (!(fabs(a - b) <= tol)) fail_msg("%.15g != %.15g (tol %g)", a, b, tol);
}

static void assert_vec_near(lucid_vec3 a, lucid_vec3 b, double tol) {
    if (lucid_vec3_dist(a, b) > tol)
        fail_msg("(%.12g %.12g %.12g) != (%.12g %.12g %.12g) (tol %g)", a.x, a.y, a.z, b.x, b.y,
                 b.z, tol);
}

static lucid_distance_result query(const lucid_shape *s1, lucid_se3 T1, const lucid_shape *s2,
                                   lucid_se3 T2, const lucid_gjk_options *o) {
    lucid_distance_result r;
    assert_int_equal(lucid_distance(s1, &T1, s2, &T2, o, &r), LUCID_OK);
    assert_true(isfinite(r.distance) && lucid_vec3_isfinite(r.p1) && lucid_vec3_isfinite(r.p2));
    assert_near(lucid_vec3_norm(r.normal), 1.0, 1e-9);
    assert_vec_near(lucid_vec3_sub(r.p2, r.p1), lucid_vec3_scale(r.normal, r.distance), 1e-9);
    return r;
}

static void sphere_sphere_depth(void **state) {
    (void)state;
    lucid_shape a, b;
    lucid_shape_sphere(0.3, &a);
    lucid_shape_sphere(0.5, &b);
    lucid_vec3 u = lucid_vec3_normalized(lucid_vec3_make(1, -1, 2));
    for (double depth = 0.05; depth < 0.8; depth += 0.1) {
        lucid_se3 T2 = lucid_se3_make(lucid_mat3_identity(), lucid_vec3_scale(u, 0.8 - depth));
        lucid_distance_result r = query(&a, lucid_se3_identity(), &b, T2, NULL);
        assert_near(r.distance, -depth, 1e-12);
        assert_vec_near(r.normal, u, 1e-12);
        assert_vec_near(r.p1, lucid_vec3_scale(u, 0.3), 1e-12);
    }
    /* concentric: the cores coincide, depth is the radius sum along some unit normal */
    lucid_distance_result r = query(&a, pose_t(1, 2, 3), &b, pose_t(1, 2, 3), NULL);
    assert_near(r.distance, -0.8, 1e-12);
    assert_true(r.converged);
}

static void box_box_depth(void **state) {
    (void)state;
    lucid_shape b1, b2;
    lucid_shape_box(0.5, 0.5, 0.5, &b1);
    lucid_shape_box(0.3, 0.3, 0.3, &b2);
    lucid_gjk_options o;
    for (int v = 0; variant_options(v, &o); ++v)
        for (double depth = 0.01; depth < 0.3; depth += 0.07) {
            lucid_distance_result r =
                query(&b1, lucid_se3_identity(), &b2, pose_t(0.8 - depth, 0.1, 0.05), &o);
            assert_true(r.converged && r.penetrating);
            assert_near(r.distance, -depth, 1e-10);
            assert_vec_near(r.normal, lucid_vec3_make(1, 0, 0), 1e-9);
            assert_near(r.p1.x, 0.5, 1e-10);
            assert_near(r.p2.x, 0.5 - depth, 1e-10);
        }
}

static void random_boxes_match_separating_axes(void **state) {
    (void)state;
    uint64_t rng = 31;
    int checked = 0;
    for (int k = 0; k < 400; ++k) {
        lucid_vec3 h1 =
            lucid_vec3_make(0.1 + uniform(&rng), 0.1 + uniform(&rng), 0.1 + uniform(&rng));
        lucid_vec3 h2 =
            lucid_vec3_make(0.1 + uniform(&rng), 0.1 + uniform(&rng), 0.1 + uniform(&rng));
        lucid_shape b1, b2;
        lucid_shape_box(h1.x, h1.y, h1.z, &b1);
        lucid_shape_box(h2.x, h2.y, h2.z, &b2);
        lucid_se3 T1 = lucid_se3_make(random_rotation(&rng), lucid_vec3_zero());
        lucid_se3 T2 = lucid_se3_make(
            random_rotation(&rng), lucid_vec3_scale(random_direction(&rng), 1.2 * uniform(&rng)));
        double depth = sat_box_box_depth(h1, &T1, h2, &T2);
        if (depth <= 1e-4) continue;
        lucid_gjk_options o;
        variant_options(k % 4, &o);
        lucid_distance_result r = query(&b1, T1, &b2, T2, &o);
        assert_true(r.converged);
        assert_near(r.distance, -depth, 1e-8);
        /* translating box 2 by the depth along the normal brings it to contact */
        lucid_se3 moved = lucid_se3_make(T2.R, lucid_vec3_axpy(T2.t, depth + 1e-9, r.normal));
        assert_true(sat_box_box_depth(h1, &T1, h2, &moved) <= 1e-8);
        checked++;
    }
    assert_true(checked > 150);
}

static void sphere_in_box_and_halfspace(void **state) {
    (void)state;
    lucid_shape box, ball, hs;
    lucid_shape_box(0.5, 0.5, 0.5, &box);
    lucid_shape_sphere(0.1, &ball);
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0.2, &hs);
    /* the sphere's centre inside the box: depth = radius + distance to the nearest face */
    lucid_distance_result r = query(&box, lucid_se3_identity(), &ball, pose_t(0.4, 0.1, 0.0), NULL);
    assert_near(r.distance, -0.2, 1e-10);
    assert_vec_near(r.normal, lucid_vec3_make(1, 0, 0), 1e-9);
    assert_vec_near(r.p1, lucid_vec3_make(0.5, 0.1, 0.0), 1e-9);
    assert_vec_near(r.p2, lucid_vec3_make(0.3, 0.1, 0.0), 1e-9);
    /* sphere sunk into the halfspace z <= 0.2 (posed at z = 0.1: plane z = 0.3) */
    r = query(&ball, pose_t(1, 1, 0.25), &hs, pose_t(0, 0, 0.1), NULL);
    assert_near(r.distance, 0.15 - 0.3, 1e-12);
    assert_vec_near(r.normal, lucid_vec3_make(0, 0, -1), 1e-12);
    assert_vec_near(r.p1, lucid_vec3_make(1, 1, 0.15), 1e-12);
    assert_vec_near(r.p2, lucid_vec3_make(1, 1, 0.3), 1e-12);
}

/* Sweeps shape 2 along dir through contact in tiny steps: the signed distance must follow the
 * analytic line d(s) = d0 + s * rate, with no jump where GJK hands over to EPA. */
static void sweep(const lucid_shape *s1, lucid_se3 T1, const lucid_shape *s2, lucid_se3 T2,
                  lucid_vec3 dir, double d0, double rate, double tol) {
    lucid_gjk_options o;
    for (int v = 0; variant_options(v, &o); ++v) {
        double prev = 0.0;
        for (int i = -100; i <= 100; ++i) {
            double s = i * 1e-7;
            lucid_se3 T = lucid_se3_make(T2.R, lucid_vec3_axpy(T2.t, s, dir));
            lucid_distance_result r = query(s1, T1, s2, T, &o);
            assert_near(r.distance, d0 + s * rate, tol);
            if (i > -100) assert_near(r.distance - prev, 1e-7 * rate, 2 * tol);
            prev = r.distance;
        }
    }
}

static void continuous_through_contact(void **state) {
    (void)state;
    lucid_shape b1, b2, ball, cap;
    lucid_shape_box(0.5, 0.5, 0.5, &b1);
    lucid_shape_box(0.3, 0.2, 0.4, &b2);
    lucid_shape_sphere(0.1, &ball);
    lucid_shape_capsule(0.1, 0.3, &cap);
    lucid_se3 I = lucid_se3_identity();
    /* face contact at x = 0.8 */
    sweep(&b1, I, &b2, pose_t(0.8, 0.1, 0.0), lucid_vec3_make(1, 0, 0), 0.0, 1.0, 1e-11);
    /* vertex-face contact of a tilted box, approached obliquely: rate = cos of the angle */
    lucid_mat3 R = axis_angle(lucid_vec3_make(1, 1, 0), 0.7);
    lucid_vec3 corners[8];
    lucid_se3 T2 = lucid_se3_make(R, lucid_vec3_zero());
    box_corners(lucid_vec3_make(0.3, 0.2, 0.4), &T2, corners);
    double lowest = INFINITY;
    for (int i = 0; i < 8; ++i) lowest = fmin(lowest, corners[i].z);
    T2.t = lucid_vec3_make(0.05, -0.1, 0.5 - lowest);
    lucid_vec3 dir = lucid_vec3_normalized(lucid_vec3_make(0.2, 0.1, 1.0));
    sweep(&b1, I, &b2, T2, dir, 0.0, dir.z, 1e-11);
    /* the sphere's core (its centre) crossing the box face: GJK on the cores hands over to
     * EPA at d = -radius */
    sweep(&b1, I, &ball, pose_t(0.5, 0.2, 0.1), lucid_vec3_make(1, 0, 0), -0.1, 1.0, 1e-11);
    /* a capsule lying on the box top, its core segment crossing the face */
    lucid_se3 Tc =
        lucid_se3_make(axis_angle(lucid_vec3_make(1, 0, 0), PI / 2), lucid_vec3_make(0.1, 0, 0.5));
    sweep(&b1, I, &cap, Tc, lucid_vec3_make(0, 0, 1), -0.1, 1.0, 1e-11);
}

static void coincident_shapes(void **state) {
    (void)state;
    lucid_shape box, cap, cyl, ell;
    lucid_shape_box(0.3, 0.2, 0.4, &box);
    lucid_shape_capsule(0.15, 0.5, &cap);
    lucid_shape_cylinder(0.5, 0.2, &cyl);
    lucid_shape_ellipsoid(0.3, 0.2, 0.4, &ell);
    uint64_t rng = 2;
    lucid_se3 T = lucid_se3_make(random_rotation(&rng), lucid_vec3_make(0.3, -1, 2));
    lucid_distance_result r = query(&box, T, &box, T, NULL);
    assert_near(r.distance, -0.4, 1e-10); /* separate along the thinnest axis */
    assert_true(r.converged);
    r = query(&cap, T, &cap, T, NULL); /* cores coincide as segments: depth = 2 r */
    assert_near(r.distance, -0.3, 1e-10);
    assert_true(r.converged);
    r = query(&cyl, T, &cyl, T, NULL); /* axial separation 2h is the smallest */
    assert_near(r.distance, -0.4, 1e-9);
    r = query(&ell, T, &ell, T, NULL); /* curved: EPA within its caps, defined and close */
    assert_true(r.distance < -0.39 && r.distance > -0.4 - 1e-9);
}

/* Solids of revolution on one axis: the depth is attained on a whole circle of normals, which
 * a 3D polytope only approaches by chords (issue 16: coincident cylinders gave 0.99998 instead
 * of 1, cones 0.97011 instead of 0.97014 after 1024 iterations). Exact depths: a cone of base
 * radius r and half-length h (a triangle of base 2r and height 2h in section) has minimal width
 * min(2h, 4rh / sqrt(r^2 + 4h^2)), its smallest altitude. */
static void coaxial_solids_of_revolution(void **state) {
    (void)state;
    lucid_shape cyl, cyl2, cone, cap, ball, spheroid;
    lucid_shape_cylinder(0.5, 1.0, &cyl);
    lucid_shape_cylinder(0.3, 1.0, &cyl2);
    lucid_shape_cone(0.5, 1.0, &cone);
    lucid_shape_capsule(0.2, 0.5, &cap);
    lucid_shape_sphere(0.3, &ball);
    lucid_shape_ellipsoid(0.4, 0.4, 0.7, &spheroid);
    uint64_t rng = 5;
    lucid_se3 T = lucid_se3_make(random_rotation(&rng), lucid_vec3_make(0.3, -1, 2));
    lucid_vec3 axis = lucid_mat3_mul_vec(&T.R, lucid_vec3_make(0, 0, 1));
    lucid_se3 up = lucid_se3_make(T.R, lucid_vec3_axpy(T.t, 0.2, axis)); /* 0.2 along the axis */
    lucid_se3 flip =
        lucid_se3_make(lucid_mat3_mul(&T.R, &(lucid_mat3){{1, 0, 0, 0, -1, 0, 0, 0, -1}}),
                       T.t);                                      /* the same axis, reversed */
    const double cone_width = 4.0 * 0.5 * 1.0 / sqrt(0.25 + 4.0); /* < 2h = 2 */
    struct {
        const lucid_shape *a, *b;
        lucid_se3 Tb;
        double depth;
    } cases[] = {
        {&cyl, &cyl, T, 1.0},          /* radial: 2r < 2h */
        {&cone, &cone, T, cone_width}, /* a cone of oblique normals */
        {&cyl, &cyl2, up, 0.8},        /* offset along the axis: radial 0.8 < axial 1.8 */
        /* D = cylinder + (-cone): support 0.5 s + c + max(c, 0.5 s - c) along (s, -c), least
         * (= s) where c = s / 4: 4 / sqrt(17), the cone width again */
        {&cyl, &cone, T, 4.0 / sqrt(17.0)},
        /* D = 2 cone: twice the distance from the cone's centre to its side, 2rh / sqrt(r^2 +
         * 4h^2) = half the cone width (< 2h to the base) */
        {&cone, &cone, flip, 0.5 * cone_width},
        {&ball, &cyl, up, 0.8},    /* a sphere on the axis: radial 0.5 + 0.3 */
        {&cap, &spheroid, T, 0.6}, /* capsule core segment and spheroid: 0.2 + 0.4 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        lucid_distance_result r = query(cases[i].a, T, cases[i].b, cases[i].Tb, NULL);
        if (!(fabs(r.distance + cases[i].depth) <= 1e-9) || !r.converged)
            fail_msg("case %zu: distance %.15g, exact %.15g, converged %d, EPA iterations %d", i,
                     r.distance, -cases[i].depth, r.converged, r.epa_iterations);
        /* translating shape 2 by the depth along the normal separates the pair */
        lucid_se3 moved = cases[i].Tb;
        moved.t = lucid_vec3_axpy(moved.t, 1e-6 - r.distance, r.normal);
        lucid_distance_result apart = query(cases[i].a, T, cases[i].b, moved, NULL);
        assert_true(apart.distance > 0.0 && apart.distance < 2e-6);
    }
}

static void touching_and_parallel_faces(void **state) {
    (void)state;
    lucid_shape b1, b2;
    lucid_shape_box(0.5, 0.5, 0.5, &b1);
    lucid_shape_box(0.5, 0.5, 0.5, &b2);
    lucid_gjk_options o;
    for (int v = 0; variant_options(v, &o); ++v) {
        /* exactly touching faces, fully aligned (parallel faces, every point a witness) */
        lucid_distance_result r = query(&b1, lucid_se3_identity(), &b2, pose_t(1.0, 0, 0), &o);
        assert_near(r.distance, 0.0, 1e-12);
        assert_near(fabs(r.normal.x), 1.0, 1e-9);
        assert_near(r.p1.x, 0.5, 1e-12);
        /* stacked with an offset: touching along a face patch */
        r = query(&b1, lucid_se3_identity(), &b2, pose_t(0.3, -0.2, 1.0), &o);
        assert_near(r.distance, 0.0, 1e-12);
        assert_near(fabs(r.normal.z), 1.0, 1e-9);
        /* shallow parallel overlap */
        r = query(&b1, lucid_se3_identity(), &b2, pose_t(0.3, -0.2, 1.0 - 1e-9), &o);
        assert_near(r.distance, -1e-9, 1e-13);
        assert_vec_near(r.normal, lucid_vec3_make(0, 0, 1), 1e-9);
    }
}

static void caps_give_defined_results(void **state) {
    (void)state;
    lucid_shape e1, e2;
    lucid_shape_ellipsoid(0.3, 0.2, 0.4, &e1);
    lucid_shape_ellipsoid(0.2, 0.5, 0.1, &e2);
    lucid_gjk_options o;
    lucid_gjk_options_default(&o);
    for (int cap = 0; cap <= 3; ++cap) {
        o.epa_max_iter = cap;
        lucid_distance_result r = query(&e1, lucid_se3_identity(), &e2, pose_t(0.1, 0.05, 0.1), &o);
        assert_false(r.converged);
        assert_true(r.penetrating && r.distance < 0.0);
        assert_true(r.epa_iterations <= cap);
    }
    /* with the full budget the depth only grows towards the true one */
    lucid_gjk_options_default(&o);
    o.epa_max_iter = 5;
    double shallow = query(&e1, lucid_se3_identity(), &e2, pose_t(0.1, 0.05, 0.1), &o).distance;
    o.epa_max_iter = LUCID_EPA_MAX_ITER;
    double deep = query(&e1, lucid_se3_identity(), &e2, pose_t(0.1, 0.05, 0.1), &o).distance;
    assert_true(deep <= shallow + 1e-12);
    /* a cap above the EPA's buffers is refused (lucid_gjk_option_table), not clamped */
    const char *why = NULL;
    o.epa_max_iter = LUCID_EPA_MAX_ITER + 1;
    assert_int_equal(lucid_gjk_options_check(&o, &why), LUCID_ERR_ARGUMENT);
    assert_string_equal(why, "epa_max_iter must be an integer in [0, 1024]");
    lucid_se3 T = pose_t(0.1, 0.05, 0.1), I = lucid_se3_identity();
    lucid_distance_result res;
    assert_int_equal(lucid_distance(&e1, &I, &e2, &T, &o, &res), LUCID_ERR_ARGUMENT);
    lucid_gjk_options_default(&o);
    o.algorithm = (lucid_gjk_algorithm)7;
    assert_int_equal(lucid_gjk_options_check(&o, &why), LUCID_ERR_ARGUMENT);
    assert_non_null(strstr(why, "algorithm must be"));
}

static void tiny_and_huge_boxes(void **state) {
    (void)state;
    uint64_t rng = 41;
    for (int s = 0; s < 2; ++s) {
        double L = s == 0 ? 1e-6 : 1e3;
        lucid_vec3 h1 = lucid_vec3_make(0.5 * L, 0.4 * L, 0.3 * L),
                   h2 = lucid_vec3_make(0.2 * L, 0.3 * L, 0.4 * L);
        lucid_shape b1, b2;
        lucid_shape_box(h1.x, h1.y, h1.z, &b1);
        lucid_shape_box(h2.x, h2.y, h2.z, &b2);
        lucid_se3 T1 = lucid_se3_make(random_rotation(&rng), lucid_vec3_make(L, -L, 0.5 * L));
        lucid_se3 T2 =
            lucid_se3_make(random_rotation(&rng), lucid_vec3_make(1.3 * L, -0.8 * L, 0.6 * L));
        double depth = sat_box_box_depth(h1, &T1, h2, &T2);
        assert_true(depth > 0.0);
        lucid_gjk_options o;
        lucid_gjk_options_default(&o);
        o.epa_tol = 1e-12 * L;
        lucid_distance_result r = query(&b1, T1, &b2, T2, &o);
        assert_near(r.distance / L, -depth / L, 1e-9);
    }
}

/* EPA started directly from simplices of every rank (and a flat tetrahedron) built from
 * points of the two boxes' intersection, each enclosing or touching the origin: all give the
 * separating-axis depth. */
static void start_from_any_rank(void **state) {
    (void)state;
    lucid_vec3 h1 = lucid_vec3_make(0.5, 0.5, 0.5), h2 = lucid_vec3_make(0.4, 0.3, 0.35);
    lucid_shape b1, b2;
    lucid_shape_box(h1.x, h1.y, h1.z, &b1);
    lucid_shape_box(h2.x, h2.y, h2.z, &b2);
    lucid_se3 T1 = lucid_se3_identity();
    lucid_se3 T2 =
        lucid_se3_make(axis_angle(lucid_vec3_make(1, 2, 3), 0.3), lucid_vec3_make(0.7, 0.1, 0.05));
    double depth = sat_box_box_depth(h1, &T1, h2, &T2);
    lucid_vec3 q = lucid_vec3_make(0.4, 0.1, 0.05); /* inside both boxes */
    const double e = 0.03, c = 0.8660254037844386;
    lucid_vec3 offsets[6][4] = {
        {{0, 0, 0}},
        {{e, 0, 0}, {-e, 0, 0}},
        {{e, 0, 0}, {-e / 2, c * e, 0}, {-e / 2, -c * e, 0}},
        {{e, e, e}, {e, -e, -e}, {-e, e, -e}, {-e, -e, e}},
        {{e, 0, 0}, {0, e, 0}, {-e, 0, 0}, {0, -e, 0}},    /* flat */
        {{0, 0, e}, {0, 0, -e}, {0, 0, 0}, {0, 0, 2 * e}}, /* collinear */
    };
    const int ranks[6] = {1, 2, 3, 4, 4, 4};
    for (int t = 0; t < 6; ++t) {
        lucid_simplex start;
        start.rank = ranks[t];
        for (int i = 0; i < start.rank; ++i) {
            start.v[i].p1 = lucid_vec3_add(q, offsets[t][i]);
            start.v[i].p2 = q;
            start.v[i].w = offsets[t][i];
            start.lambda[i] = 1.0 / start.rank;
        }
        lucid_minkowski m = lucid_minkowski_make(&b1, &T1, &b2, &T2);
        lucid_epa_result r;
        lucid_epa_solve(&m, &start, 1e-12, LUCID_EPA_MAX_ITER, lucid_vec3_make(0, 0, 1), &r);
        assert_true(r.converged);
        assert_near(r.depth, depth, 1e-9);
        assert_near(lucid_vec3_norm(r.normal), 1.0, 1e-12);
        assert_vec_near(lucid_vec3_sub(r.p1, r.p2), lucid_vec3_scale(r.normal, r.depth), 1e-9);
    }
}

/* Distance from a point c strictly inside the ellipsoid sum x_i^2 / a_i^2 <= 1 to its boundary,
 * independently of GJK/EPA: the closest boundary point is x_i = a_i^2 c_i / (a_i^2 + t) with t
 * the unique root in (-min a_i^2, 0) of F(t) = sum (a_i c_i / (a_i^2 + t))^2 - 1, which is
 * decreasing there (Eberly, "Distance from a point to an ellipsoid"); bisection to round-off. */
static double inside_distance_to_ellipsoid(lucid_vec3 a, lucid_vec3 c) {
    double ax[3] = {a.x, a.y, a.z}, cx[3] = {c.x, c.y, c.z};
    double amin2 = fmin(a.x * a.x, fmin(a.y * a.y, a.z * a.z));
    double lo = -amin2, hi = 0.0;
    for (int it = 0; it < 200 && lo < hi; ++it) {
        double t = 0.5 * (lo + hi), f = -1.0;
        if (t == lo || t == hi) break;
        for (int i = 0; i < 3; ++i) {
            double q = ax[i] * cx[i] / (ax[i] * ax[i] + t);
            f += q * q;
        }
        if (f > 0.0)
            lo = t;
        else
            hi = t;
    }
    double t = 0.5 * (lo + hi), d2 = 0.0;
    for (int i = 0; i < 3; ++i) {
        double x = ax[i] * ax[i] * cx[i] / (ax[i] * ax[i] + t);
        d2 += (x - cx[i]) * (x - cx[i]);
    }
    return sqrt(d2);
}

/* Deep overlaps of curved shapes: a sphere whose centre lies inside a random ellipsoid (semi-
 * axes in [0.05, 0.15] m), anywhere from the surface to the centre, where D's boundary can hug
 * the sphere of radius depth and EPA needs hundreds of vertices. At the default epa_tol = 1e-9
 * m, EPA must certify convergence on >= 99.99% of the pairs (here: all of them) and then be
 * within epa_tol of the independent depth. */
static void deep_sphere_in_ellipsoid_depths(void **state) {
    (void)state;
    uint64_t rng = 2024;
    const int pairs = 10000;
    int unconverged = 0;
    double worst = 0.0;
    for (int k = 0; k < pairs; ++k) {
        lucid_vec3 a = lucid_vec3_make(0.05 + 0.1 * uniform(&rng), 0.05 + 0.1 * uniform(&rng),
                                       0.05 + 0.1 * uniform(&rng));
        double radius = 0.01 + 0.05 * uniform(&rng);
        lucid_vec3 dir = random_direction(&rng);
        double reach = 1.0 / sqrt(dir.x * dir.x / (a.x * a.x) + dir.y * dir.y / (a.y * a.y) +
                                  dir.z * dir.z / (a.z * a.z));
        lucid_vec3 c = lucid_vec3_scale(dir, reach * (0.001 + 0.998 * uniform(&rng)));
        lucid_mat3 R = random_rotation(&rng);
        lucid_se3 T1 = lucid_se3_make(R, lucid_vec3_make(0.3, -0.2, 0.1));
        lucid_se3 T2 = lucid_se3_make(lucid_mat3_identity(), lucid_se3_act(&T1, c));
        lucid_shape e, s;
        lucid_shape_ellipsoid(a.x, a.y, a.z, &e);
        lucid_shape_sphere(radius, &s);
        lucid_distance_result r = query(&e, T1, &s, T2, NULL);
        double expected = -(inside_distance_to_ellipsoid(a, c) + radius);
        if (!r.converged) {
            ++unconverged;
            continue;
        }
        assert_true(r.penetrating);
        worst = fmax(worst, fabs(r.distance - expected));
    }
    if (unconverged * 10000 > pairs) fail_msg("%d of %d not converged", unconverged, pairs);
    if (!(worst <= 1e-9 + 1e-12)) fail_msg("depth error %g > epa_tol", worst);
}

/* A box as a convex mesh of its 8 corners (same geometry, other support code path). */
static lucid_convex_mesh *box_as_mesh(lucid_vec3 h) {
    double pts[24];
    for (int i = 0; i < 8; ++i) {
        pts[3 * i] = i & 1 ? h.x : -h.x;
        pts[3 * i + 1] = i & 2 ? h.y : -h.y;
        pts[3 * i + 2] = i & 4 ? h.z : -h.z;
    }
    lucid_convex_mesh *m = NULL;
    assert_int_equal(lucid_convex_mesh_create(pts, 8, &m), LUCID_OK);
    return m;
}

/* Stacked boxes turned by 1e-17..1e-9 rad about random axes with a tiny face-face overlap:
 * D's vertices come in clusters closer than the coordinates' ulp, so support points repeat
 * or line up with polytope edges. Every query must certify convergence, give the separating-
 * axis depth and a normal along +z (from the bottom box to the top one; -z swapped) up to the
 * tilt. Lateral offsets include aligned edges (0 for equal boxes, h1 - h2 for unequal). */
static void nearly_aligned_boxes(void **state) {
    (void)state;
    const lucid_vec3 h1 = lucid_vec3_make(0.3, 0.2, 0.1);
    const lucid_vec3 hs[2] = {h1, lucid_vec3_make(0.2, 0.15, 0.07)};
    const double angles[5] = {1e-17, 2e-17, 1e-16, 1e-13, 1e-9};
    const double overlaps[4] = {1e-7, 2.93e-6, 1e-5, 1e-3};
    lucid_convex_mesh *m1 = box_as_mesh(h1);
    uint64_t rng = 7;
    double worst_depth = 0.0;
    for (int shape = 0; shape < 4; ++shape) {
        lucid_vec3 h2 = hs[shape & 1];
        lucid_convex_mesh *m2 = box_as_mesh(h2);
        lucid_shape b1, b2;
        if (shape & 2) {
            lucid_shape_convex(m1, &b1);
            lucid_shape_convex(m2, &b2);
        } else {
            lucid_shape_box(h1.x, h1.y, h1.z, &b1);
            lucid_shape_box(h2.x, h2.y, h2.z, &b2);
        }
        const lucid_vec3 offsets[3] = {lucid_vec3_zero(), lucid_vec3_sub(h1, h2),
                                       lucid_vec3_make(0.03, -0.02, 0.0)};
        for (int a = 0; a < 5; ++a)
            for (int o = 0; o < 4; ++o)
                for (int l = 0; l < 3; ++l)
                    for (int k = 0; k < 3; ++k) {
                        double angle = k == 2 ? -angles[a] : angles[a];
                        lucid_mat3 R = axis_angle(random_direction(&rng), angle);
                        lucid_vec3 t =
                            lucid_vec3_make(offsets[l].x, offsets[l].y, h1.z + h2.z - overlaps[o]);
                        lucid_se3 bottom = lucid_se3_identity(), top = lucid_se3_make(R, t);
                        double depth = sat_box_box_depth(h1, &bottom, h2, &top);
                        for (int swapped = 0; swapped < 2; ++swapped) {
                            lucid_distance_result r = swapped ? query(&b2, top, &b1, bottom, NULL)
                                                              : query(&b1, bottom, &b2, top, NULL);
                            if (!r.converged)
                                fail_msg("shape %d angle %g overlap %g offset %d swapped %d: not "
                                         "converged (distance %.17g)",
                                         shape, angle, overlaps[o], l, swapped, r.distance);
                            assert_true(r.penetrating);
                            /* D's top is tilted by the angle over its half-extent: EPA
                             * may stop (certified, within epa_tol) on any face there */
                            double tilt = fabs(angle) * (h1.x + h2.x + h1.y + h2.y);
                            worst_depth =
                                fmax(worst_depth, fabs(r.distance + depth) / (1e-15 + tilt));
                            lucid_vec3 up = lucid_vec3_make(0, 0, swapped ? -1.0 : 1.0);
                            assert_vec_near(r.normal, up, 1e-9 + fabs(angle));
                        }
                    }
        lucid_convex_mesh_destroy(m2);
    }
    lucid_convex_mesh_destroy(m1);
    /* the depth error is round-off (1e-15 m) plus at most the tilt of D's top face */
    if (!(worst_depth <= 1.0)) fail_msg("depth error %g x (round-off + tilt)", worst_depth);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sphere_sphere_depth),
        cmocka_unit_test(box_box_depth),
        cmocka_unit_test(random_boxes_match_separating_axes),
        cmocka_unit_test(sphere_in_box_and_halfspace),
        cmocka_unit_test(continuous_through_contact),
        cmocka_unit_test(coincident_shapes),
        cmocka_unit_test(coaxial_solids_of_revolution),
        cmocka_unit_test(touching_and_parallel_faces),
        cmocka_unit_test(caps_give_defined_results),
        cmocka_unit_test(tiny_and_huge_boxes),
        cmocka_unit_test(start_from_any_rank),
        cmocka_unit_test(deep_sphere_in_ellipsoid_depths),
        cmocka_unit_test(nearly_aligned_boxes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
