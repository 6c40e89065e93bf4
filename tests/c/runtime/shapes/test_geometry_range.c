/* The representable range of geometry (LUCID_GEOMETRY_MAX, runtime/shapes/shape.h): sizes,
 * mesh vertices, halfspace offsets and pose translations up to the bound are accepted and give
 * the same answers as at unit scale; one ulp beyond, they are rejected. Regressions of issue
 * 16: unit spheres at +-1.7e308 gave distance -2 and a hit, at +-1e300 an infinite distance
 * with a zero normal, sizes from 1e150 NaN; lucid.halfspace({1e-320, 0, 0}, 1) was accepted. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runtime/math/so3.h"
#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/shape.h"
#include "solvers/collision/collision.h"

static const double MAX = LUCID_GEOMETRY_MAX;

static lucid_se3 at(double x, double y, double z) {
    return lucid_se3_make(lucid_mat3_identity(), lucid_vec3_make(x, y, z));
}

static void sizes_are_accepted_up_to_the_bound(void **state) {
    (void)state;
    double beyond = nextafter(MAX, INFINITY);
    lucid_shape s;
    assert_int_equal(lucid_shape_sphere(MAX, &s), LUCID_OK);
    assert_int_equal(lucid_shape_sphere(beyond, &s), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_shape_sphere(1e150, &s), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_shape_ellipsoid(1, MAX, 1, &s), LUCID_OK);
    assert_int_equal(lucid_shape_ellipsoid(1, beyond, 1, &s), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_shape_box(MAX, MAX, MAX, &s), LUCID_OK);
    assert_int_equal(lucid_shape_box(1, 1, beyond, &s), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_shape_capsule(MAX, MAX, &s), LUCID_OK);
    assert_int_equal(lucid_shape_capsule(1, beyond, &s), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_shape_cylinder(MAX, 1, &s), LUCID_OK);
    assert_int_equal(lucid_shape_cylinder(beyond, 1, &s), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_shape_cone(1, MAX, &s), LUCID_OK);
    assert_int_equal(lucid_shape_cone(1, beyond, &s), LUCID_ERR_ARGUMENT);
    /* Meshes: every vertex coordinate. */
    double tet[12] = {0, 0, 0, MAX, 0, 0, 0, MAX, 0, 0, 0, -MAX};
    lucid_convex_mesh *m = NULL;
    assert_int_equal(lucid_convex_mesh_create(tet, 4, &m), LUCID_OK);
    assert_int_equal(lucid_shape_convex(m, &s), LUCID_OK);
    lucid_convex_mesh_destroy(m);
    tet[11] = -beyond;
    assert_int_equal(lucid_convex_mesh_create(tet, 4, &m), LUCID_OK);
    assert_int_equal(lucid_shape_convex(m, &s), LUCID_ERR_ARGUMENT);
    lucid_convex_mesh_destroy(m);
}

static void halfspaces_need_a_normal_normal_and_a_bounded_offset(void **state) {
    (void)state;
    lucid_shape s;
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(1e-320, 0, 0), 1, &s),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(nextafter(DBL_MIN, 0), 0, 0), 0, &s),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(0, DBL_MIN, 0), 0, &s), LUCID_OK);
    assert_int_equal(s.u.halfspace.normal.y, 1.0);
    /* offset / |n| is the plane's distance from the origin: a coordinate. */
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(0, 0, 2), 2 * MAX, &s), LUCID_OK);
    assert_true(s.u.halfspace.offset == MAX);
    assert_int_equal(
        lucid_shape_halfspace(lucid_vec3_make(0, 0, 2), 2 * nextafter(MAX, INFINITY), &s),
        LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(1e-300, 0, 0), 1, &s),
                     LUCID_ERR_ARGUMENT); /* offset 1e300 */
}

static void translations_beyond_the_bound_are_rejected(void **state) {
    (void)state;
    lucid_shape a;
    assert_int_equal(lucid_shape_sphere(1, &a), LUCID_OK);
    lucid_distance_result r;
    int hit = -1;
    double far[] = {1.7e308, 1e300, 1e41, nextafter(MAX, INFINITY)};
    for (int i = 0; i < 4; ++i) {
        lucid_se3 T1 = at(far[i], 0, 0), T2 = at(-far[i], 0, 0), T0 = at(0, 0, 0);
        assert_int_equal(lucid_distance(&a, &T1, &a, &T2, NULL, &r), LUCID_ERR_ARGUMENT);
        assert_int_equal(lucid_collide(&a, &T1, &a, &T2, NULL, &hit, &r), LUCID_ERR_ARGUMENT);
        assert_int_equal(lucid_distance(&a, &T0, &a, &T2, NULL, &r), LUCID_ERR_ARGUMENT);
        T2 = at(0, 0, -far[i]);
        assert_int_equal(lucid_distance(&a, &T0, &a, &T2, NULL, &r), LUCID_ERR_ARGUMENT);
    }
    /* At the bound: the exact answer, 2e40 - 2 (rounds to 2e40). */
    lucid_se3 T1 = at(MAX, 0, 0), T2 = at(-MAX, 0, 0);
    assert_int_equal(lucid_distance(&a, &T1, &a, &T2, NULL, &r), LUCID_OK);
    assert_true(fabs(r.distance - 2 * MAX) <= 1e-15 * MAX);
    assert_true(fabs(r.normal.x) == 1.0);
    assert_int_equal(lucid_collide(&a, &T1, &a, &T2, NULL, &hit, &r), LUCID_OK);
    assert_int_equal(hit, 0);
}

/* Every pair of shapes, separated and overlapping, at unit scale and scaled by 2^132
 * (~5.4e39: translations and sizes just inside the bound; scaling by a power of two is exact,
 * and so are the scaled tolerances): the same distances, witnesses and normals, all finite. */
static void queries_at_the_bound_match_unit_scale(void **state) {
    (void)state;
    const double S = ldexp(1.0, 132);
    assert_true(S <= MAX && 2 * S > MAX);
    double tet[12] = {-0.25, -0.25, -0.25, 0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5}, big[12];
    for (int i = 0; i < 12; ++i) big[i] = tet[i] * S;
    lucid_convex_mesh *m1 = NULL, *mS = NULL;
    assert_int_equal(lucid_convex_mesh_create(tet, 4, &m1), LUCID_OK);
    assert_int_equal(lucid_convex_mesh_create(big, 4, &mS), LUCID_OK);
    lucid_shape unit[7], scaled[7];
    for (int k = 0; k < 2; ++k) {
        double u = k ? S : 1.0;
        lucid_shape *s = k ? scaled : unit;
        assert_int_equal(lucid_shape_sphere(0.5 * u, &s[0]), LUCID_OK);
        assert_int_equal(lucid_shape_ellipsoid(0.5 * u, 0.25 * u, 0.375 * u, &s[1]), LUCID_OK);
        assert_int_equal(lucid_shape_box(0.25 * u, 0.5 * u, 0.375 * u, &s[2]), LUCID_OK);
        assert_int_equal(lucid_shape_capsule(0.25 * u, 0.5 * u, &s[3]), LUCID_OK);
        assert_int_equal(lucid_shape_cylinder(0.5 * u, 0.25 * u, &s[4]), LUCID_OK);
        assert_int_equal(lucid_shape_cone(0.5 * u, 0.5 * u, &s[5]), LUCID_OK);
        assert_int_equal(lucid_shape_convex(k ? mS : m1, &s[6]), LUCID_OK);
    }
    lucid_mat3 R = lucid_so3_exp(lucid_vec3_make(0.3, -0.2, 0.5));
    lucid_gjk_options o1, oS;
    lucid_gjk_options_default(&o1);
    oS = o1;
    oS.tol = o1.tol * S * S; /* absolute tolerances carry units: m^2 and m */
    oS.epa_tol = o1.epa_tol * S;
    double gaps[] = {0.75, 0.0625, -0.5}; /* far, close, overlapping (for most pairs) */
    int overlaps = 0;
    for (int i = 0; i < 7; ++i)
        for (int j = 0; j < 7; ++j)
            for (int g = 0; g < 3; ++g) {
                lucid_se3 A1 = lucid_se3_make(R, lucid_vec3_make(-0.5, 0.125, 0.0625));
                lucid_se3 B1 = at(0.5 + gaps[g], -0.125, 0.25);
                lucid_se3 AS = lucid_se3_make(R, lucid_vec3_scale(A1.t, S));
                lucid_se3 BS = at(B1.t.x * S, B1.t.y * S, B1.t.z * S);
                lucid_distance_result r1, rS;
                assert_int_equal(lucid_distance(&unit[i], &A1, &unit[j], &B1, &o1, &r1), LUCID_OK);
                assert_int_equal(lucid_distance(&scaled[i], &AS, &scaled[j], &BS, &oS, &rS),
                                 LUCID_OK);
                assert_true(isfinite(rS.distance));
                assert_true(fabs(lucid_vec3_norm(rS.normal) - 1.0) < 1e-12);
                if (fabs(rS.distance / S - r1.distance) > 1e-12)
                    fail_msg("pair %d-%d gap %g: %.17g at 2^132 vs %.17g at unit scale", i, j,
                             gaps[g], rS.distance / S, r1.distance);
                assert_true(lucid_vec3_dist(lucid_vec3_scale(rS.p1, 1 / S), r1.p1) <= 1e-12);
                assert_true(lucid_vec3_dist(rS.normal, r1.normal) <= 1e-12);
                double dS = rS.distance;
                int h1, hS;
                assert_int_equal(lucid_collide(&unit[i], &A1, &unit[j], &B1, &o1, &h1, &r1),
                                 LUCID_OK);
                assert_int_equal(lucid_collide(&scaled[i], &AS, &scaled[j], &BS, &oS, &hS, &rS),
                                 LUCID_OK);
                assert_int_equal(h1, hS);
                assert_int_equal(hS, dS < 0);
                overlaps += hS;
            }
    assert_true(overlaps >= 30); /* EPA ran at the bound too */
    lucid_convex_mesh_destroy(m1);
    lucid_convex_mesh_destroy(mS);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes_are_accepted_up_to_the_bound),
        cmocka_unit_test(halfspaces_need_a_normal_normal_and_a_bounded_offset),
        cmocka_unit_test(translations_beyond_the_bound_are_rejected),
        cmocka_unit_test(queries_at_the_bound_match_unit_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
