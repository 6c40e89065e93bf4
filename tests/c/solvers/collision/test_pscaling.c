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
#include "tests/c/common/test_collision_util.h"

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

/* One query at tolerance tol (0: the default), checked for convergence and consistency. */
static lucid_pscaling_result query_tol(const lucid_shape *s1, const lucid_se3 *T1,
                                       const lucid_shape *s2, const lucid_se3 *T2, int derivatives,
                                       double tol) {
    lucid_pscaling_options o;
    lucid_pscaling_options_default(&o);
    o.derivatives = derivatives;
    if (tol > 0.0) o.tol = tol;
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

static lucid_pscaling_result query(const lucid_shape *s1, const lucid_se3 *T1,
                                   const lucid_shape *s2, const lucid_se3 *T2, int derivatives) {
    return query_tol(s1, T1, s2, T2, derivatives, 0.0);
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

/* Far apart (1e6 sizes) and coinciding centres (alpha = 0: no derivatives). */
static void extreme_separations(void **state) {
    (void)state;
    lucid_shape a, b;
    lucid_shape_sphere(0.3, &a);
    lucid_shape_box(0.1, 0.2, 0.3, &b);
    lucid_se3 I = lucid_se3_identity(), far = pose_t(1e6, 2.0, -3.0);
    lucid_pscaling_result r = query(&a, &I, &a, &far, 1);
    assert_near(r.alpha, lucid_vec3_norm(far.t) / 0.6, 1e-10 * r.alpha);
    assert_vec_near(r.normal, lucid_vec3_normalized(far.t), 1e-10);
    r = query(&b, &I, &a, &far, 1);
    assert_true(r.alpha > 1e6);
    lucid_pscaling_options o;
    lucid_pscaling_options_default(&o);
    o.derivatives = 1;
    lucid_se3 T = lucid_se3_make(axis_angle(lucid_vec3_make(1, 2, 3), 0.4), lucid_vec3_zero());
    assert_int_equal(lucid_pscaling(&a, &I, &b, &T, &o, &r), LUCID_ERR_SINGULAR);
    assert_true(r.converged && r.alpha <= 1e-10);
    assert_vec_near(r.point, lucid_vec3_zero(), 1e-10);
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

/* max over the posed shape of n.x (the halfspace: its plane's value when n is its normal). */
static double support_value(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 n) {
    if (s->kind == LUCID_SHAPE_HALFSPACE) {
        lucid_vec3 hn = lucid_mat3_mul_vec(&T->R, s->u.halfspace.normal);
        assert_vec_near(n, hn, 1e-12);
        return s->u.halfspace.offset + lucid_vec3_dot(hn, T->t);
    }
    int hint = 0;
    lucid_vec3 x = lucid_se3_act(T, lucid_shape_support(s, lucid_mat3_tmul_vec(&T->R, n), &hint));
    return lucid_vec3_dot(n, x);
}

/* Every shape pair on random poses: phi and the GJK/EPA signed distance have the same sign,
 * lucid_collide takes the same decision; n is a separating normal of the shapes scaled by
 * alpha, touching at p (support functions, exact); and the shapes scaled by alpha (1 -+ delta)
 * are apart / overlapping, with GJK's normal and witnesses of the slightly shrunk pair (its
 * contact is then unique) at the P-SDF normal and point. The 1e-4 on normals is GJK's own
 * accuracy at ~1e-7 separations of curved shapes (measured 9e-6), not the P-SDF's. */
static void random_pairs_agree_with_gjk(void **state) {
    (void)state;
    uint64_t st = 2024;
    const double delta = 1e-6;
    int pairs = 0, overlapping = 0;
    double worst_normal = 0.0, worst_point = 0.0, worst_support = 0.0;
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
                /* exact: n separates the alpha-scaled shapes at p (support-function test) */
                lucid_shape e1, e2;
                lucid_convex_mesh *x1, *x2;
                make_shape(a, r.alpha, &e1, &x1);
                make_shape(b, r.alpha, &e2, &x2);
                double plane = lucid_vec3_dot(r.normal, r.point);
                double h1 = support_value(&e1, &T1, r.normal) - plane;
                double h2 = support_value(&e2, &T2, lucid_vec3_neg(r.normal)) + plane;
                worst_support = fmax(worst_support, fmax(fabs(h1), fabs(h2)));
                if (!(fabs(h1) <= 1e-9 && fabs(h2) <= 1e-9))
                    fail_msg("kinds %d %d: n is no separating normal at p (%g, %g)", a, b, h1, h2);
                lucid_convex_mesh_destroy(x1);
                lucid_convex_mesh_destroy(x2);
                double en = lucid_vec3_dist(in.normal, r.normal);
                double ep = fmax(lucid_vec3_dist(in.p1, r.point), lucid_vec3_dist(in.p2, r.point));
                worst_normal = fmax(worst_normal, en);
                worst_point = fmax(worst_point, ep);
                if (!(en <= 1e-4 && ep <= 1e-5))
                    fail_msg("kinds %d %d: normal off by %g, point by %g", a, b, en, ep);
                lucid_convex_mesh_destroy(n1);
                lucid_convex_mesh_destroy(n2);
                lucid_convex_mesh_destroy(k1);
                lucid_convex_mesh_destroy(k2);
            }
            lucid_convex_mesh_destroy(m1);
            lucid_convex_mesh_destroy(m2);
        }
    print_message("%d pairs (%d overlapping): worst |n - n_gjk| %.2e, |p - p_gjk| %.2e, "
                  "support gap %.2e\n",
                  pairs, overlapping, worst_normal, worst_point, worst_support);
    assert_true(pairs > 2000 && overlapping > 200);
}

/* ---- derivatives ------------------------------------------------------------------------ */

static lucid_se3 perturbed(const lucid_se3 *T, int j, double h) {
    double xi[6] = {0, 0, 0, 0, 0, 0};
    xi[j] = h;
    lucid_se3 E = lucid_se3_exp(xi);
    return lucid_se3_compose(T, &E);
}

/* The normal comes from the duals, whose error is ~ the KKT residual / |N|: at the default
 * 1e-11 it reaches ~1e-9 on deep overlaps (alpha ~ 0.06), which central differences with
 * h = 1e-5 turn into 1e-4. The derivative check solves at 1e-12 (both sides). */
#define DERIVATIVE_TOL 1e-12

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
            lucid_pscaling_result p = query_tol(s1, &P1, s2, &P2, 0, DERIVATIVE_TOL),
                                  m = query_tol(s1, &M1, s2, &M2, 0, DERIVATIVE_TOL);
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
                lucid_pscaling_result r = query_tol(&s1, &T1, &s2, &T2, 1, DERIVATIVE_TOL);
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

/* ---- Silico Fig. 4: a box resting on the ground ------------------------------------------ */

/* Face down (any yaw, any of the 6 faces, touching, slightly in or slightly above the ground)
 * the P-SDF problem has a whole face of solutions; the interior-point iterates run down the
 * central path, which ends at the analytic centre of that face, the point below the centre of
 * mass. How close they get is set by rounding: along the face only the side faces' duals,
 * ~mu ~ 1e-13 at the tolerance, hold p, against dual residuals of ~1e-16, so p sits within
 * ~h 1e-16 / mu ~ 1e-3 h of the centre (measured 8e-5 m on this 1 m box). lucid's default
 * pipeline (closed-form halfspace: the support point in -n) answers a corner, 0.36-0.58 m
 * away. Tilted by theta, the optimal set is the lowest edge and the P-SDF point its midpoint
 * (the jump of Silico Fig. 5). */
static void box_on_ground_point_below_centre_of_mass(void **state) {
    (void)state;
    uint64_t st = 4;
    lucid_shape ground, box;
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0.0, &ground);
    lucid_vec3 e = lucid_vec3_make(0.5, 0.3, 0.2);
    lucid_shape_box(e.x, e.y, e.z, &box);
    lucid_se3 I = lucid_se3_identity();
    static const lucid_vec3 down_axes[6] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                            {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
    double worst_pscaling = 0.0, least_pipeline = INFINITY;
    for (int t = 0; t < 120; ++t) {
        lucid_vec3 a = down_axes[t % 6]; /* the local axis that points down */
        double half = fabs(lucid_vec3_dot(a, e));
        /* R maps a to -z, then a random yaw about z */
        lucid_vec3 axis = lucid_vec3_cross(a, lucid_vec3_make(0, 0, -1));
        lucid_mat3 R0 =
            lucid_vec3_norm(axis) > 0.5
                ? axis_angle(axis, 0.5 * PI)
                : (a.z < 0 ? lucid_mat3_identity() : axis_angle(lucid_vec3_make(1, 0, 0), PI));
        lucid_mat3 Y = axis_angle(lucid_vec3_make(0, 0, 1), 2 * PI * uniform(&st));
        double gap = 0.02 * ((t / 6) % 3 - 1);
        lucid_se3 T =
            lucid_se3_make(lucid_mat3_mul(&Y, &R0),
                           lucid_vec3_make(4 * uniform(&st) - 2, 4 * uniform(&st) - 2, half + gap));
        assert_vec_near(lucid_mat3_mul_vec(&T.R, a), lucid_vec3_make(0, 0, -1), 1e-15);
        lucid_pscaling_result r = query(&box, &T, &ground, &I, 0);
        assert_near(r.alpha, T.t.z / half, 1e-10);
        if (t < 6) { /* the point can slide along the face: no derivatives */
            lucid_pscaling_options o;
            lucid_pscaling_options_default(&o);
            o.derivatives = 1;
            lucid_pscaling_result rd;
            assert_int_equal(lucid_pscaling(&box, &T, &ground, &I, &o, &rd), LUCID_ERR_SINGULAR);
            assert_near(rd.alpha, r.alpha, 1e-12);
            assert_near(rd.d.point_T1[0], 0.0, 0.0);
        }
        assert_vec_near(r.normal, lucid_vec3_make(0, 0, -1), 1e-10);
        double off = hypot(r.point.x - T.t.x, r.point.y - T.t.y);
        worst_pscaling = fmax(worst_pscaling, off);
        lucid_distance_result d = gjk(&box, &T, &ground, &I);
        least_pipeline = fmin(least_pipeline, hypot(d.p1.x - T.t.x, d.p1.y - T.t.y));
    }
    print_message("face down: P-SDF point off the vertical of the centre of mass by at most %.2e; "
                  "lucid_distance's witness by at least %.3f (a corner)\n",
                  worst_pscaling, least_pipeline);
    assert_true(worst_pscaling <= 1e-3);
    /* every witness of the pipeline is a corner: half the diagonal of a face away */
    assert_true(least_pipeline >= hypot(0.3, 0.2) - 1e-12);
    /* tilted about the box's x axis: the lowest edge, at its midpoint (the barrier keeps p
     * ~mu / theta off the edge across it: theta >= 1e-3 for 1e-9) */
    for (int i = 0; i < 3; ++i) {
        double theta = (double[]){1e-3, 0.1, 0.5}[i];
        lucid_se3 T = lucid_se3_make(axis_angle(lucid_vec3_make(1, 0, 0), theta),
                                     lucid_vec3_make(0.3, -0.1, 0.2));
        lucid_pscaling_result r = query(&box, &T, &ground, &I, 0);
        lucid_vec3 mid = lucid_se3_act(&T, lucid_vec3_make(0, -e.y, -e.z));
        lucid_vec3 below = lucid_vec3_sub(r.point, T.t);
        lucid_vec3 want = lucid_vec3_scale(lucid_vec3_sub(mid, T.t), r.alpha);
        assert_vec_near(below, want, 1e-9);
        print_message("tilt %g: P-SDF point %.6f off the vertical of the centre of mass\n", theta,
                      hypot(below.x, below.y));
    }
}

/* ---- bad input and the cone solver on its own ------------------------------------------- */

static void bad_input(void **state) {
    (void)state;
    lucid_shape ball, ground;
    lucid_shape_sphere(0.5, &ball);
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0.0, &ground);
    lucid_se3 I = lucid_se3_identity(), T = pose_t(0, 0, 1);
    lucid_pscaling_result r;
    lucid_pscaling_options o;
    lucid_pscaling_options_default(&o);
    assert_int_equal(lucid_pscaling(NULL, &I, &ball, &T, NULL, &r), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_pscaling(&ball, &I, &ball, &T, NULL, NULL), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_pscaling(&ground, &I, &ground, &T, NULL, &r), LUCID_ERR_ARGUMENT);
    o.tol = 0.0;
    assert_int_equal(lucid_pscaling(&ball, &I, &ball, &T, &o, &r), LUCID_ERR_ARGUMENT);
    lucid_pscaling_options_default(&o);
    o.max_iter = 0;
    assert_int_equal(lucid_pscaling(&ball, &I, &ball, &T, &o, &r), LUCID_ERR_ARGUMENT);
    /* every option as lucid_pscaling_option_table describes it: a NaN tol, a flag not 0 or 1 */
    lucid_pscaling_options_default(&o);
    o.tol = NAN;
    assert_int_equal(lucid_pscaling(&ball, &I, &ball, &T, &o, &r), LUCID_ERR_ARGUMENT);
    lucid_pscaling_options_default(&o);
    o.derivatives = 2;
    assert_int_equal(lucid_pscaling(&ball, &I, &ball, &T, &o, &r), LUCID_ERR_ARGUMENT);
    lucid_se3 bad = T;
    bad.t.y = NAN;
    assert_int_equal(lucid_pscaling(&ball, &I, &ball, &bad, NULL, &r), LUCID_ERR_NONFINITE);
    bad = T;
    bad.R.m[4] = INFINITY;
    assert_int_equal(lucid_pscaling(&ball, &bad, &ball, &T, NULL, &r), LUCID_ERR_NONFINITE);
    bad = T;
    bad.t.x = 2 * LUCID_GEOMETRY_MAX;
    assert_int_equal(lucid_pscaling(&ball, &I, &ball, &bad, NULL, &r), LUCID_ERR_ARGUMENT);
    /* two hulls of 200 points on a sphere (~400 faces each) exceed the program's rows */
    uint64_t st = 3;
    double pts[600];
    for (int i = 0; i < 200; ++i) lucid_vec3_store(random_direction(&st), pts + 3 * i);
    lucid_convex_mesh *mesh;
    assert_int_equal(lucid_convex_mesh_create(pts, 200, &mesh), LUCID_OK);
    assert_true(2 * mesh->num_faces > LUCID_CONE_MAX_ROWS);
    lucid_shape hull;
    lucid_shape_convex(mesh, &hull);
    assert_int_equal(lucid_pscaling(&hull, &I, &hull, &T, NULL, &r), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_pscaling(&hull, &I, &ball, &T, NULL, &r), LUCID_OK); /* one fits */
    lucid_convex_mesh_destroy(mesh);
    /* the iteration cap is reported, with the last iterate */
    lucid_pscaling_options_default(&o);
    o.max_iter = 2;
    assert_int_equal(lucid_pscaling(&ball, &I, &ball, &T, &o, &r), LUCID_ERR_NO_CONVERGENCE);
    assert_false(r.converged);
    assert_true(r.residual > o.tol);
}

/* min x1 + x2 s.t. x >= (1, 2) and (4, x1 - 1, x2 - 2) in Q^3 (a circle of radius 4 about
 * (1, 2)): the corner (1, 2), duals z = (1, 1) on the two rays, 0 on the cone. */
static void cone_program_known_solution(void **state) {
    (void)state;
    lucid_cone_program P;
    P.n = 2;
    P.m = 5;
    P.num_blocks = 3;
    int starts[4] = {0, 1, 2, 5};
    for (int b = 0; b <= 3; ++b) P.block_start[b] = starts[b];
    double G[10] = {-1, 0, 0, -1, 0, 0, -1, 0, 0, -1};
    double h[5] = {-1, -2, 4, -1, -2};
    for (int i = 0; i < 10; ++i) P.G[i] = G[i];
    for (int i = 0; i < 5; ++i) P.h[i] = h[i];
    P.c[0] = P.c[1] = 1.0;
    lucid_cone_solution S;
    assert_int_equal(lucid_cone_solve(&P, 1e-12, 50, &S), LUCID_OK);
    assert_true(S.converged && S.residual <= 1e-12);
    assert_near(S.x[0], 1.0, 1e-11);
    assert_near(S.x[1], 2.0, 1e-11);
    assert_near(S.z[0], 1.0, 1e-11);
    assert_near(S.z[1], 1.0, 1e-11);
    for (int i = 2; i < 5; ++i) assert_near(S.z[i], 0.0, 1e-11);
    /* moving the lower bound of x1 to 1 + t moves x1 by t: b2 = dh-change of G x + s - h */
    double b1[2] = {0, 0}, b2[5] = {1, 0, 0, 0, 0}, dx[2];
    lucid_cone_factor F;
    assert_int_equal(lucid_cone_factor_kkt(&P, &S, &F), LUCID_OK);
    lucid_cone_sensitivity(&P, &S, &F, b1, b2, dx, NULL);
    assert_near(dx[0], 1.0, 1e-9);
    assert_near(dx[1], 0.0, 1e-9);
    P.block_start[1] = 0; /* an empty block */
    assert_int_equal(lucid_cone_solve(&P, 1e-12, 50, &S), LUCID_ERR_ARGUMENT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_spheres),
        cmocka_unit_test(sphere_and_box_on_plane),
        cmocka_unit_test(extreme_separations),
        cmocka_unit_test(random_pairs_agree_with_gjk),
        cmocka_unit_test(derivatives_match_finite_differences),
        cmocka_unit_test(box_on_ground_point_below_centre_of_mass),
        cmocka_unit_test(bad_input),
        cmocka_unit_test(cone_program_known_solution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
