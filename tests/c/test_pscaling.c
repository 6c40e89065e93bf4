/* The P-SDF query (solvers/collision/pscaling.h): analytic cases, agreement with GJK/EPA on
 * random poses of every shape pair (sign, contact decision, normals), the defining invariant
 * (the shapes scaled by alpha touch at p), pose derivatives against central finite
 * differences, the box-on-ground contact point of Silico Fig. 4, and bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "solvers/collision/cone_program.h"
#include "solvers/collision/pscaling.h"
#include "test_collision_util.h"

#define NUM_KINDS 8 /* 7 bounded kinds and the halfspace */

static void assert_near(double a, double b, double tol) {
    if (!(fabs(a - b) <= tol)) fail_msg("%.15g != %.15g (tol %g)", a, b, tol);
}

static void assert_vec_near(lucid_vec3 a, lucid_vec3 b, double tol) {
    if (!(lucid_vec3_dist(a, b) <= tol))
        fail_msg("(%.12g %.12g %.12g) != (%.12g %.12g %.12g) (tol %g)", a.x, a.y, a.z, b.x, b.y,
                 b.z, tol);
}

/* An irregular tetrahedron-like hull (6 points, not symmetric about its vertex mean). */
static const double HULL_POINTS[] = {0.3, 0, 0,   -0.2, 0.25, 0,    -0.2, -0.25, 0,
                                     0,   0, 0.4, 0.05, 0.1,  -0.3, 0.1,  -0.2,  0.2};

/* Shape kind k scaled by f about its centre (meshes: a new mesh in *mesh, caller frees). */
static void make_shape(int k, double f, lucid_shape *s, lucid_convex_mesh **mesh) {
    *mesh = NULL;
    switch (k) {
        case 0:
            assert_int_equal(lucid_shape_sphere(0.4 * f, s), LUCID_OK);
            break;
        case 1:
            assert_int_equal(lucid_shape_capsule(0.2 * f, 0.3 * f, s), LUCID_OK);
            break;
        case 2:
            assert_int_equal(lucid_shape_cylinder(0.3 * f, 0.25 * f, s), LUCID_OK);
            break;
        case 3:
            assert_int_equal(lucid_shape_box(0.3 * f, 0.2 * f, 0.4 * f, s), LUCID_OK);
            break;
        case 4:
            assert_int_equal(lucid_shape_ellipsoid(0.3 * f, 0.2 * f, 0.4 * f, s), LUCID_OK);
            break;
        case 5:
            assert_int_equal(lucid_shape_cone(0.3 * f, 0.35 * f, s), LUCID_OK);
            break;
        case 6: { /* scaled about the mean of the hull's vertices, as pscaling.h says */
            lucid_convex_mesh *unit;
            assert_int_equal(lucid_convex_mesh_create(HULL_POINTS, 6, &unit), LUCID_OK);
            int nv = unit->num_vertices;
            lucid_vec3 c = lucid_vec3_zero();
            for (int i = 0; i < nv; ++i) c = lucid_vec3_add(c, unit->vertices[i]);
            c = lucid_vec3_scale(c, 1.0 / nv);
            double p[18];
            for (int i = 0; i < nv; ++i)
                lucid_vec3_store(lucid_vec3_axpy(c, f, lucid_vec3_sub(unit->vertices[i], c)),
                                 p + 3 * i);
            lucid_convex_mesh_destroy(unit);
            assert_int_equal(lucid_convex_mesh_create(p, nv, mesh), LUCID_OK);
            assert_int_equal(lucid_shape_convex(*mesh, s), LUCID_OK);
            break;
        }
        default: /* the halfspace is not scaled */
            assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(0.2, -0.1, 1.0), 0.05, s),
                             LUCID_OK);
    }
}

static lucid_se3 random_pose(uint64_t *st, double spread) {
    return lucid_se3_make(random_rotation(st),
                          lucid_vec3_scale(random_direction(st), spread * uniform(st)));
}

static lucid_pscaling_result query(const lucid_shape *s1, const lucid_se3 *T1,
                                   const lucid_shape *s2, const lucid_se3 *T2, int derivatives) {
    lucid_pscaling_options o;
    lucid_pscaling_options_default(&o);
    o.derivatives = derivatives;
    lucid_pscaling_result r;
    lucid_status st = lucid_pscaling(s1, T1, s2, T2, &o, &r);
    if (st != LUCID_OK)
        fail_msg("status %d (%s), %d iterations, residual %g", (int)st, lucid_status_string(st),
                 r.iterations, r.residual);
    assert_true(r.converged);
    assert_true(r.residual <= 1e-10);
    assert_near(r.phi, r.alpha - 1.0, 0.0);
    assert_near(lucid_vec3_norm(r.normal), 1.0, 1e-12);
    return r;
}

static lucid_distance_result gjk(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                 const lucid_se3 *T2) {
    lucid_gjk_options o;
    lucid_gjk_options_default(&o);
    o.tol = 1e-15;
    o.tol_mode = LUCID_GJK_TOL_RELATIVE;
    o.max_iter = 4096;
    o.epa_tol = 1e-12;
    lucid_distance_result d;
    assert_int_equal(lucid_distance(s1, T1, s2, T2, &o, &d), LUCID_OK);
    return d;
}

/* ---- analytic cases --------------------------------------------------------------------- */

static void two_spheres(void **state) {
    (void)state;
    uint64_t st = 11;
    lucid_shape a, b;
    lucid_shape_sphere(0.3, &a);
    lucid_shape_sphere(0.7, &b);
    for (int t = 0; t < 50; ++t) {
        lucid_se3 T1 = random_pose(&st, 2.0), T2 = random_pose(&st, 2.0);
        lucid_vec3 d = lucid_vec3_sub(T2.t, T1.t);
        double dist = lucid_vec3_norm(d);
        lucid_vec3 u = lucid_vec3_scale(d, 1.0 / dist);
        lucid_pscaling_result r = query(&a, &T1, &b, &T2, 1);
        assert_near(r.alpha, dist / 1.0, 1e-10 * fmax(1.0, dist));
        assert_vec_near(r.point, lucid_vec3_axpy(T1.t, 0.3 / 1.0, d), 1e-9 * fmax(1.0, dist));
        assert_vec_near(r.normal, u, 1e-9);
        /* dalpha/dv2 = R2^T u / (r1 + r2), dalpha/dw = 0 (spheres are round) */
        lucid_vec3 g2 = lucid_mat3_tmul_vec(&T2.R, u), g1 = lucid_mat3_tmul_vec(&T1.R, u);
        for (int j = 0; j < 3; ++j) {
            assert_near(r.d.alpha_T2[j], lucid_vec3_get(g2, j), 1e-8);
            assert_near(r.d.alpha_T1[j], -lucid_vec3_get(g1, j), 1e-8);
            assert_near(r.d.alpha_T2[j + 3], 0.0, 1e-8);
        }
    }
}

static void sphere_and_box_on_plane(void **state) {
    (void)state;
    lucid_shape ground, ball, box;
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0.0, &ground);
    lucid_shape_sphere(0.5, &ball);
    lucid_shape_box(0.5, 0.3, 0.2, &box);
    lucid_se3 I = lucid_se3_identity();
    for (double z = 0.05; z < 2.0; z += 0.13) {
        lucid_se3 T = pose_t(0.3, -0.2, z);
        lucid_pscaling_result r = query(&ball, &T, &ground, &I, 0);
        assert_near(r.alpha, z / 0.5, 1e-10);
        assert_vec_near(r.normal, lucid_vec3_make(0, 0, -1), 1e-10);
        assert_vec_near(r.point, lucid_vec3_make(0.3, -0.2, 0.0), 1e-9);
        /* a box tilted about x by 0.3 rad: its lowest point is h_z cos + h_y sin below c */
        lucid_se3 Tb = lucid_se3_make(axis_angle(lucid_vec3_make(1, 0, 0), 0.3), T.t);
        r = query(&ground, &I, &box, &Tb, 0);
        assert_near(r.alpha, z / (0.2 * cos(0.3) + 0.3 * sin(0.3)), 1e-10 * fmax(1, z));
        assert_vec_near(r.normal, lucid_vec3_make(0, 0, 1), 1e-10);
    }
    /* centre below the plane: alpha = 0 in closed form, p = the centre */
    lucid_se3 T = pose_t(0.1, 0.2, -0.1);
    lucid_pscaling_result r = query(&ball, &T, &ground, &I, 1);
    assert_true(r.closed_form);
    assert_near(r.phi, -1.0, 0.0);
    assert_vec_near(r.point, T.t, 0.0);
}

/* ---- agreement with GJK/EPA and the defining invariant on random poses ------------------ */

/* Every shape pair on random poses: phi and the GJK/EPA signed distance have the same sign,
 * lucid_collide takes the same decision, and the shapes scaled by alpha (1 -+ delta) about
 * their centres are apart / overlapping, with GJK's normal of the slightly shrunk pair (its
 * contact is then unique) equal to the P-SDF normal and its witnesses at p. */
static void random_pairs_agree_with_gjk(void **state) {
    (void)state;
    uint64_t st = 2024;
    const double delta = 1e-7;
    int pairs = 0, overlapping = 0;
    double worst_normal = 0.0, worst_point = 0.0;
    for (int a = 0; a < NUM_KINDS; ++a)
        for (int b = 0; b < NUM_KINDS; ++b) {
            if (a == 7 && b == 7) continue;
            lucid_shape s1, s2;
            lucid_convex_mesh *m1, *m2;
            make_shape(a, 1.0, &s1, &m1);
            make_shape(b, 1.0, &s2, &m2);
            for (int t = 0; t < 60; ++t) {
                lucid_se3 T1 = random_pose(&st, 1.0), T2 = random_pose(&st, 1.0);
                lucid_pscaling_result r = query(&s1, &T1, &s2, &T2, 0);
                lucid_distance_result d = gjk(&s1, &T1, &s2, &T2);
                if (fabs(d.distance) < 1e-6) continue; /* grazing: either sign is right */
                ++pairs;
                overlapping += d.distance < 0;
                if ((d.distance > 0) != (r.phi > 0))
                    fail_msg("kinds %d %d: distance %g, phi %g", a, b, d.distance, r.phi);
                int hit;
                lucid_distance_result c;
                assert_int_equal(lucid_collide(&s1, &T1, &s2, &T2, NULL, &hit, &c), LUCID_OK);
                assert_int_equal(hit, r.phi < 0);
                if (r.closed_form) continue;
                lucid_shape q1, q2, g1, g2;
                lucid_convex_mesh *n1, *n2, *k1, *k2;
                make_shape(a, r.alpha * (1 - delta), &q1, &n1);
                make_shape(b, r.alpha * (1 - delta), &q2, &n2);
                make_shape(a, r.alpha * (1 + delta), &g1, &k1);
                make_shape(b, r.alpha * (1 + delta), &g2, &k2);
                lucid_distance_result in = gjk(&q1, &T1, &q2, &T2), out = gjk(&g1, &T1, &g2, &T2);
                if (!(in.distance > 0 && out.distance < 0))
                    fail_msg("kinds %d %d: alpha %.15g does not make them touch (%g, %g)", a, b,
                             r.alpha, in.distance, out.distance);
                double en = lucid_vec3_dist(in.normal, r.normal);
                double ep = fmax(lucid_vec3_dist(in.p1, r.point), lucid_vec3_dist(in.p2, r.point));
                worst_normal = fmax(worst_normal, en);
                worst_point = fmax(worst_point, ep);
                if (!(en <= 1e-5 && ep <= 1e-5))
                    fail_msg("kinds %d %d: normal off by %g, point by %g", a, b, en, ep);
                lucid_convex_mesh_destroy(n1);
                lucid_convex_mesh_destroy(n2);
                lucid_convex_mesh_destroy(k1);
                lucid_convex_mesh_destroy(k2);
            }
            lucid_convex_mesh_destroy(m1);
            lucid_convex_mesh_destroy(m2);
        }
    print_message("%d pairs (%d overlapping): worst |n - n_gjk| %.2e, |p - p_gjk| %.2e\n", pairs,
                  overlapping, worst_normal, worst_point);
    assert_true(pairs > 2000 && overlapping > 200);
}

/* ---- derivatives ------------------------------------------------------------------------ */

static lucid_se3 perturbed(const lucid_se3 *T, int j, double h) {
    double xi[6] = {0, 0, 0, 0, 0, 0};
    xi[j] = h;
    lucid_se3 E = lucid_se3_exp(xi);
    return lucid_se3_compose(T, &E);
}

/* Largest |analytic - central difference| over alpha, p and n, relative to the largest
 * entry of each derivative (or 1). */
static double derivative_error(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                               const lucid_se3 *T2, const lucid_pscaling_result *r) {
    const double h = 1e-5; /* truncation ~h^2, solver noise ~1e-11 / h: both ~1e-6 or less */
    double worst = 0.0;
    for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 6; ++j) {
            lucid_se3 P1 = *T1, P2 = *T2, M1 = *T1, M2 = *T2;
            if (k == 0) {
                P1 = perturbed(T1, j, h);
                M1 = perturbed(T1, j, -h);
            } else {
                P2 = perturbed(T2, j, h);
                M2 = perturbed(T2, j, -h);
            }
            lucid_pscaling_result p = query(s1, &P1, s2, &P2, 0), m = query(s1, &M1, s2, &M2, 0);
            const double *da = k == 0 ? r->d.alpha_T1 : r->d.alpha_T2;
            const double *dp = k == 0 ? r->d.point_T1 : r->d.point_T2;
            const double *dn = k == 0 ? r->d.normal_T1 : r->d.normal_T2;
            double fa = (p.alpha - m.alpha) / (2 * h);
            worst = fmax(worst, fabs(fa - da[j]) / fmax(1.0, fabs(fa)));
            for (int i = 0; i < 3; ++i) {
                double fp = (lucid_vec3_get(p.point, i) - lucid_vec3_get(m.point, i)) / (2 * h);
                double fn = (lucid_vec3_get(p.normal, i) - lucid_vec3_get(m.normal, i)) / (2 * h);
                worst = fmax(worst, fabs(fp - dp[i + 3 * j]) / fmax(1.0, fabs(fp)));
                worst = fmax(worst, fabs(fn - dn[i + 3 * j]) / fmax(1.0, fabs(fn)));
            }
        }
    return worst;
}

static void derivatives_match_finite_differences(void **state) {
    (void)state;
    uint64_t st = 99;
    double worst = 0.0;
    int checked = 0;
    for (int a = 0; a < NUM_KINDS; ++a)
        for (int b = 0; b < NUM_KINDS; ++b) {
            if (a == 7 && b == 7) continue;
            lucid_shape s1, s2;
            lucid_convex_mesh *m1, *m2;
            make_shape(a, 1.0, &s1, &m1);
            make_shape(b, 1.0, &s2, &m2);
            for (int t = 0; t < 6; ++t) {
                lucid_se3 T1 = random_pose(&st, 1.0), T2 = random_pose(&st, 1.0);
                lucid_pscaling_result r = query(&s1, &T1, &s2, &T2, 1);
                double e = derivative_error(&s1, &T1, &s2, &T2, &r);
                worst = fmax(worst, e);
                ++checked;
                if (!(e <= 1e-5))
                    fail_msg("kinds %d %d pose %d: derivative off by %g (alpha %g)", a, b, t, e,
                             r.alpha);
            }
            lucid_convex_mesh_destroy(m1);
            lucid_convex_mesh_destroy(m2);
        }
    print_message("%d pairs: worst relative derivative error %.2e\n", checked, worst);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_spheres),
        cmocka_unit_test(sphere_and_box_on_plane),
        cmocka_unit_test(random_pairs_agree_with_gjk),
        cmocka_unit_test(derivatives_match_finite_differences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
