/* Contact-geometry derivatives (autodiff/contact_geometry_derivatives.h) against central finite
 * differences (h = 1e-5) of the collision query the world runs (world_collision.c: the signed
 * distance, then the contact patch; here with derivative-grade query tolerances), on every
 * twist coordinate of both shapes: sphere-plane, capsule-plane (tilted: one cap; flat: a
 * two-point patch), ellipsoid-sphere and a box resting on a plane (a four-point patch), with
 * the plane tilted and as shape 1 or shape 2. GJK's witness points on an ellipsoid are only
 * ~1e-9 m accurate, so that pair's query is polished to machine precision by Newton's method
 * on the optimality conditions (test_collision_derivatives_util.h) before differencing. Where the
 * rules are exact the tolerance is 1e-6 relative (the differences' O(h^2) truncation is ~1e-10); a
 * box with a smoothed estimator is flagged as estimated, and a pair without an exact rule (a
 * box's corner on an ellipsoid) needs an estimator. Convex meshes (hulls built here from point
 * lists: no shared data needed) as faces, edges and vertices, cylinders (caps as faces, sides as
 * cores, standing and lying patches) and a cone's base take the same checks; a cylinder's side is
 * differenced through the capsule with its axis, radius and half-length (test_cylinder says why).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "autodiff/contact_geometry_derivatives.h"
#include "runtime/math/se3.h"
#include "runtime/math/so3.h"
#include "runtime/shapes/convex_mesh.h"
#include "solvers/collision/contact_patch.h"
#include "solvers/collision/plane_vertices.h"
#include "tests/c/common/test_collision_derivatives_util.h"

#define H      1e-5
#define PI     3.14159265358979323846
#define MARGIN 5e-3
/* query's mode for the vertex rules of plane_vertices.h instead of the contact patch */
#define VERTICES 2

static lucid_se3 pose(double vx, double vy, double vz, double wx, double wy, double wz) {
    double xi[6] = {vx, vy, vz, wx, wy, wz};
    return lucid_se3_exp(xi);
}

/* Contact k of the pair as the world generates it: point midway, normal, separation; the
 * number of contacts in *count (polished: the single witness pair polished, smooth pairs;
 * VERTICES: the vertex rules of a capsule's ends or a cylinder's rim points, the world's for
 * a shape landing tilted on a plane or a face). */
static lucid_contact_geometry query(const lucid_shape *s1, const lucid_se3 *T1,
                                    const lucid_shape *s2, const lucid_se3 *T2, int k, int *count,
                                    int polished) {
    lucid_gjk_options go;
    lucid_derivative_query_options_default(&go);
    lucid_distance_result d;
    assert_int_equal(lucid_distance(s1, T1, s2, T2, &go, &d), LUCID_OK);
    if (polished == 1) {
        reference_witness r = polish(s1, T1, s2, T2, d.normal);
        *count = 1;
        lucid_contact_geometry g = {lucid_vec3_scale(lucid_vec3_add(r.p1, r.p2), 0.5), r.normal,
                                    r.distance};
        return g;
    }
    if (polished == VERTICES) { /* the world's vertex rules (plane_vertices.h) */
        lucid_contact_patch_result p;
        lucid_vec3 normals[LUCID_PATCH_MAX_POINTS];
        if (s1->kind == LUCID_SHAPE_CAPSULE && s2->kind == LUCID_SHAPE_CAPSULE) {
            assert_int_equal(lucid_capsule_ends(s1, T1, s2, T2, MARGIN, 4, &p, normals), LUCID_OK);
            *count = p.count;
            assert_true(k < p.count);
            const lucid_contact_point *c = &p.points[k];
            return (lucid_contact_geometry){lucid_vec3_scale(lucid_vec3_add(c->p1, c->p2), 0.5),
                                            normals[k], c->separation};
        }
        if (lucid_plane_vertices_apply(s1, s2)) {
            assert_int_equal(lucid_plane_vertices(s1, T1, s2, T2, MARGIN, 4, &p), LUCID_OK);
        } else {
            int ref = s1->kind == LUCID_SHAPE_BOX || s1->kind == LUCID_SHAPE_CONVEX ? 1 : 2;
            assert_int_equal(lucid_face_vertices(s1, T1, s2, T2, ref, d.normal, MARGIN, 4, &p),
                             LUCID_OK);
        }
        *count = p.count;
        assert_true(k < p.count);
        const lucid_contact_point *c = &p.points[k];
        return (lucid_contact_geometry){lucid_vec3_scale(lucid_vec3_add(c->p1, c->p2), 0.5),
                                        p.normal, c->separation};
    }
    lucid_patch_options po;
    lucid_patch_options_default(&po);
    po.margin = MARGIN, po.angular_tolerance = 1e-2, po.max_points = 4; /* the world's */
    lucid_contact_patch_result p;
    assert_int_equal(lucid_contact_patch(s1, T1, s2, T2, &d, &po, &p), LUCID_OK);
    *count = p.count;
    assert_true(k < p.count);
    const lucid_contact_point *c = &p.points[k];
    lucid_contact_geometry g = {lucid_vec3_scale(lucid_vec3_add(c->p1, c->p2), 0.5), p.normal,
                                c->separation};
    return g;
}

/* The contact of the pair nearest to point (a patch's points are followed by continuity: the
 * patch may list them in another order once its reference face changes side). */
static lucid_contact_geometry nearest(const lucid_shape *s1, const lucid_se3 *T1,
                                      const lucid_shape *s2, const lucid_se3 *T2, lucid_vec3 point,
                                      int expect_count, int polished) {
    int count;
    lucid_contact_geometry best = query(s1, T1, s2, T2, 0, &count, polished);
    assert_int_equal(count, expect_count);
    for (int k = 1; k < count; ++k) {
        lucid_contact_geometry g = query(s1, T1, s2, T2, k, &count, polished);
        if (lucid_vec3_dist(g.point, point) < lucid_vec3_dist(best.point, point)) best = g;
    }
    return best;
}

static double max_abs(const double *a, int n) {
    double m = 0.0;
    for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i]));
    return m;
}

/* The worst relative error of d against central differences over every contact of the pair,
 * the differences taken of the pair (r1, r2): the pair itself, or a reference pair whose
 * contact geometry is the same near the contact (fd_error). */
static double fd_error_ref(const char *name, const lucid_shape *s1, const lucid_se3 *T1,
                           const lucid_shape *s2, const lucid_se3 *T2, const lucid_shape *r1,
                           const lucid_shape *r2, int expect_count, int polished) {
    int count;
    query(s1, T1, s2, T2, 0, &count, polished);
    assert_int_equal(count, expect_count);
    double worst = 0.0;
    for (int k = 0; k < count; ++k) {
        lucid_contact_geometry g = query(s1, T1, s2, T2, k, &count, polished);
        if (r1 != s1 || r2 != s2) { /* the reference pair has the same contact */
            int rc;
            lucid_contact_geometry gr = query(r1, T1, r2, T2, k, &rc, polished);
            printf("  reference pair: point %.1e m, normal %.1e, separation %.1e m apart\n",
                   lucid_vec3_dist(g.point, gr.point), lucid_vec3_dist(g.normal, gr.normal),
                   fabs(g.separation - gr.separation));
            assert_true(lucid_vec3_dist(g.point, gr.point) < 1e-6);
        }
        lucid_contact_geometry_derivative d;
        assert_int_equal(
            lucid_contact_geometry_derivatives(s1, T1, s2, T2, &g, count > 1, NULL, NULL, &d),
            LUCID_OK);
        assert_false(d.estimated);
        double fp[36], fn[36], fs[12];
        for (int c = 0; c < 12; ++c) {
            lucid_contact_geometry side[2];
            for (int sgn = 0; sgn < 2; ++sgn) {
                double xi[6] = {0};
                xi[c % 6] = sgn ? -H : H;
                lucid_se3 E = lucid_se3_exp(xi);
                lucid_se3 A = c < 6 ? lucid_se3_compose(T1, &E) : *T1;
                lucid_se3 B = c < 6 ? *T2 : lucid_se3_compose(T2, &E);
                side[sgn] = nearest(r1, &A, r2, &B, g.point, count, polished);
            }
            lucid_vec3 dp = lucid_vec3_scale(lucid_vec3_sub(side[0].point, side[1].point), 0.5 / H);
            lucid_vec3 dn =
                lucid_vec3_scale(lucid_vec3_sub(side[0].normal, side[1].normal), 0.5 / H);
            lucid_vec3_store(dp, fp + 3 * c), lucid_vec3_store(dn, fn + 3 * c);
            fs[c] = (side[0].separation - side[1].separation) * 0.5 / H;
        }
        double ep[36], en[36], es[12];
        for (int i = 0; i < 36; ++i) ep[i] = d.dpoint[i] - fp[i], en[i] = d.dnormal[i] - fn[i];
        for (int i = 0; i < 12; ++i) es[i] = d.dseparation[i] - fs[i];
        double e = fmax(max_abs(ep, 36) / fmax(max_abs(fp, 36), 1.0),
                        fmax(max_abs(en, 36) / fmax(max_abs(fn, 36), 1.0),
                             max_abs(es, 12) / fmax(max_abs(fs, 12), 1.0)));
        worst = fmax(worst, e);
    }
    printf("%-34s %d contact(s): relative error %.2e\n", name, count, worst);
    return worst;
}

static double fd_error(const char *name, const lucid_shape *s1, const lucid_se3 *T1,
                       const lucid_shape *s2, const lucid_se3 *T2, int expect_count, int polished) {
    return fd_error_ref(name, s1, T1, s2, T2, s1, s2, expect_count, polished);
}

static lucid_shape plane(void) {
    lucid_shape s;
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0.0, &s), LUCID_OK);
    return s;
}

static void test_sphere_plane(void **state) {
    (void)state;
    lucid_shape p = plane(), s;
    assert_int_equal(lucid_shape_sphere(0.1, &s), LUCID_OK);
    lucid_se3 Tp = pose(0.01, -0.02, 0.03, 0.05, -0.08, 0.1); /* a tilted plane */
    lucid_se3 Ts = lucid_se3_compose(
        &Tp, &(lucid_se3){lucid_mat3_identity(), lucid_vec3_make(0.2, 0.1, 0.1 - 3e-4)});
    Ts = lucid_se3_compose(
        &Ts, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(0.3, 0.2, -0.1)), lucid_vec3_zero()});
    assert_true(fd_error("sphere-plane", &p, &Tp, &s, &Ts, 1, 0) <= 1e-6);
    assert_true(fd_error("plane-sphere (plane as shape 2)", &s, &Ts, &p, &Tp, 1, 0) <= 1e-6);
}

static void test_capsule_plane(void **state) {
    (void)state;
    lucid_shape p = plane(), c;
    assert_int_equal(lucid_shape_capsule(0.05, 0.2, &c), LUCID_OK);
    lucid_se3 Tp = pose(0, 0, 0, 0.04, 0.02, 0);
    /* tilted 0.4 rad about x: one cap touches */
    lucid_se3 Tc = lucid_se3_compose(
        &Tp, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(PI / 2 - 0.4, 0.1, 0)),
                          lucid_vec3_make(0.1, 0.0, 0.05 + 0.2 * sin(0.4) - 2e-4)});
    assert_true(fd_error("capsule-plane (cap)", &p, &Tp, &c, &Tc, 1, 0) <= 1e-6);
    /* lying flat: both caps, a two-point patch */
    Tc = lucid_se3_compose(&Tp, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(PI / 2, 0, 0)),
                                             lucid_vec3_make(0.1, 0.0, 0.05 - 2e-4)});
    assert_true(fd_error("capsule-plane (flat, patch)", &p, &Tp, &c, &Tc, 2, 0) <= 1e-6);
    assert_true(fd_error("plane-capsule (flat, patch)", &c, &Tc, &p, &Tp, 2, 0) <= 1e-6);
}

/* The vertex rules of a tilted capsule and cylinder (plane_vertices.h): a capsule's two ends
 * on a plane and on a box's face, a cylinder's tilted cap (its tripod: the support point and
 * the rim points 120 degrees from it, which slide round the rim with the tilt's direction and
 * move the separation as they do) and a lying cylinder's two rim points. */
static void test_curved_vertices(void **state) {
    (void)state;
    lucid_shape p = plane(), c, cyl, table;
    assert_int_equal(lucid_shape_capsule(0.05, 0.2, &c), LUCID_OK);
    assert_int_equal(lucid_shape_cylinder(0.05, 0.03, &cyl), LUCID_OK);
    assert_int_equal(lucid_shape_box(0.5, 0.4, 0.1, &table), LUCID_OK);
    lucid_se3 Tp = pose(0, 0, 0.01, 0.04, 0.02, 0);
    /* lying, tilted 8e-3 rad: the ends 3.2 mm apart in height, both within the margin */
    lucid_se3 Tc = lucid_se3_compose(
        &Tp, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(PI / 2 - 8e-3, 0.0, 0.0)),
                          lucid_vec3_make(0.1, 0.0, 0.05 + 0.2 * sin(8e-3) - 2e-4)});
    double e = fd_error("capsule-plane (ends)", &p, &Tp, &c, &Tc, 2, VERTICES);
    e = fmax(e, fd_error("plane-capsule (ends)", &c, &Tc, &p, &Tp, 2, VERTICES));
    /* the same over the table's top face (z = 0.1 at Tt) */
    lucid_se3 Tt = pose(0.05, -0.02, -0.1, 0.01, -0.02, 0.3);
    lucid_se3 Tct = lucid_se3_compose(
        &Tt, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(PI / 2 - 8e-3, 0.0, 0.0)),
                          lucid_vec3_make(0.1, 0.0, 0.15 + 0.2 * sin(8e-3) - 2e-4)});
    e = fmax(e, fd_error("box face-capsule (ends)", &table, &Tt, &c, &Tct, 2, VERTICES));
    e = fmax(e, fd_error("capsule-box face (ends)", &c, &Tct, &table, &Tt, 2, VERTICES));
    /* a cylinder standing on its lower cap, tilted 0.04 rad: the tripod within the margin
     * (1.5 r sin 0.04 = 3 mm), the upper cap 6 cm above */
    lucid_se3 Ty = lucid_se3_compose(
        &Tp, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(0.03, -0.0265, 0.0)),
                          lucid_vec3_make(-0.1, 0.2, 0.03 + 0.05 * sin(0.04) - 2e-4)});
    e = fmax(e, fd_error("cylinder-plane (tripod)", &p, &Tp, &cyl, &Ty, 3, VERTICES));
    e = fmax(e, fd_error("plane-cylinder (tripod)", &cyl, &Ty, &p, &Tp, 3, VERTICES));
    /* lying, its axis 8e-3 rad off the plane: the two caps' lowest rim points */
    lucid_se3 Tl = lucid_se3_compose(
        &Tp, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(PI / 2 - 8e-3, 0.0, 0.0)),
                          lucid_vec3_make(0.0, 0.1, 0.05 + 0.03 * sin(8e-3) - 2e-4)});
    e = fmax(e, fd_error("cylinder-plane (lying)", &p, &Tp, &cyl, &Tl, 2, VERTICES));
    /* a capsule lying along a capsule bar, 8e-3 rad off parallel and turned 0.05 rad about
     * the vertical: its two ends against the bar's segment (each end rigid, its closest point
     * sliding on the bar), each with its own normal */
    lucid_shape bar;
    assert_int_equal(lucid_shape_capsule(0.03, 0.3, &bar), LUCID_OK);
    lucid_se3 Tbar = lucid_se3_compose(
        &Tp, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(0.0, PI / 2, 0.0)), lucid_vec3_zero()});
    lucid_mat3 Rc = lucid_so3_exp(lucid_vec3_make(0.0, 0.0, 0.05));
    lucid_mat3 Rt = lucid_so3_exp(lucid_vec3_make(0.0, PI / 2 - 8e-3, 0.0));
    lucid_se3 Tcc = lucid_se3_compose(
        &Tp, &(lucid_se3){lucid_mat3_mul(&Rc, &Rt),
                          lucid_vec3_make(0.02, 0.0, 0.08 + 0.2 * sin(8e-3) - 2e-4)});
    e = fmax(e, fd_error("capsule-capsule (ends)", &bar, &Tbar, &c, &Tcc, 2, VERTICES));
    e = fmax(e, fd_error("capsule-capsule (ends, swapped)", &c, &Tcc, &bar, &Tbar, 2, VERTICES));
    /* a cone tipped onto its base rim (one rim point: the base disc's support, sliding), and
     * tilted 0.02 rad on its base (the base's tripod) and lying on its side (its apex, a
     * vertex, and the base's support point) */
    lucid_shape cone;
    assert_int_equal(lucid_shape_cone(0.1, 0.1, &cone), LUCID_OK);
    lucid_se3 Tk = lucid_se3_compose(
        &Tp, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(0.3, 0.1, 0)),
                          lucid_vec3_make(0.05, 0, 0.1 * cos(0.316) + 0.1 * sin(0.316) - 1e-4)});
    e = fmax(e, fd_error("cone rim-plane", &p, &Tp, &cone, &Tk, 1, 0));
    Tk = lucid_se3_compose(
        &Tp, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(0.015, -0.01323, 0.0)),
                          lucid_vec3_make(0.0, 0.1, 0.1 * cos(0.02) + 0.1 * sin(0.02) - 2e-4)});
    e = fmax(e, fd_error("cone base-plane (tripod)", &p, &Tp, &cone, &Tk, 3, VERTICES));
    double side = atan(0.5) + PI / 2; /* the ruling's slope: r / 2h */
    Tk = lucid_se3_compose(&Tp,
                           &(lucid_se3){lucid_so3_exp(lucid_vec3_make(side - 8e-3, 0.0, 0.0)),
                                        lucid_vec3_make(0.0, 0.0, 0.1 * sin(atan(0.5)) - 2e-4)});
    e = fmax(e, fd_error("cone side-plane (apex, rim)", &p, &Tp, &cone, &Tk, 2, VERTICES));
    assert_true(e <= 1e-6);
}

static void test_ellipsoid_sphere(void **state) {
    (void)state;
    lucid_shape e, s;
    assert_int_equal(lucid_shape_ellipsoid(0.2, 0.1, 0.15, &e), LUCID_OK);
    assert_int_equal(lucid_shape_sphere(0.08, &s), LUCID_OK);
    lucid_se3 Te = pose(0.01, 0.02, -0.03, 0.3, -0.2, 0.5);
    lucid_se3 Ts = pose(0.05, 0.1, 0.16, 0.1, 0.2, 0.3); /* overlapping a little */
    lucid_gjk_options go;
    lucid_derivative_query_options_default(&go);
    lucid_distance_result d;
    assert_int_equal(lucid_distance(&e, &Te, &s, &Ts, &go, &d), LUCID_OK);
    assert_true(d.distance < 0.0);
    double err = fd_error("ellipsoid-sphere (penetrating)", &e, &Te, &s, &Ts, 1, 1);
    Ts = pose(0.05, 0.1, 0.2, 0.1, 0.2, 0.3); /* 8 mm apart */
    err = fmax(err, fd_error("ellipsoid-sphere (separated)", &e, &Te, &s, &Ts, 1, 1));
    assert_true(err <= 1e-6);
}

static void test_box_plane_patch(void **state) {
    (void)state;
    lucid_shape p = plane(), b;
    assert_int_equal(lucid_shape_box(0.1, 0.15, 0.05, &b), LUCID_OK);
    lucid_se3 Tp = pose(0, 0, 0.02, -0.03, 0.05, 0);
    /* resting 2e-4 deep, turned about the normal, rotated 1e-3 rad about x: all four corners
     * within the margin but at different depths */
    lucid_se3 Tb = lucid_se3_compose(&Tp, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(1e-3, 0, 0.7)),
                                                       lucid_vec3_make(0.3, -0.1, 0.05 - 2e-4)});
    assert_true(fd_error("box-plane (patch)", &p, &Tp, &b, &Tb, 4, 0) <= 1e-6);
    assert_true(fd_error("plane-box (patch)", &b, &Tb, &p, &Tp, 4, 0) <= 1e-6);
}

/* A box's face holding one witness is a halfspace to first order: a sphere and a capsule's cap
 * on a box's face (either order), a small box resting on a larger one (a patch whose points are
 * the small box's vertices); two boxes face to face whose witnesses are both inside a face
 * (equal boxes offset: clipped points sliding on edges) have no exact rule. */
static void test_box_face(void **state) {
    (void)state;
    lucid_shape box, s, c, cube;
    assert_int_equal(lucid_shape_box(0.2, 0.15, 0.05, &box), LUCID_OK);
    assert_int_equal(lucid_shape_sphere(0.03, &s), LUCID_OK);
    assert_int_equal(lucid_shape_capsule(0.02, 0.04, &c), LUCID_OK);
    assert_int_equal(lucid_shape_box(0.025, 0.025, 0.025, &cube), LUCID_OK);
    lucid_se3 Tb = pose(0.1, -0.05, 0.2, 0.1, -0.2, 0.3);
    lucid_se3 Ts = lucid_se3_compose(
        &Tb, &(lucid_se3){lucid_mat3_identity(), lucid_vec3_make(0.05, 0.03, 0.08 - 2e-4)});
    assert_true(fd_error("box face-sphere", &box, &Tb, &s, &Ts, 1, 0) <= 1e-6);
    assert_true(fd_error("sphere-box face", &s, &Ts, &box, &Tb, 1, 0) <= 1e-6);
    lucid_se3 Tc = lucid_se3_compose(
        &Tb, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(0.5, 0.2, 0)),
                          lucid_vec3_make(-0.05, 0.02, 0.05 + 0.02 + 0.04 * cos(0.5385) - 3e-4)});
    assert_true(fd_error("box face-capsule cap", &box, &Tb, &c, &Tc, 1, 0) <= 1e-6);
    lucid_se3 Tq = lucid_se3_compose(&Tb, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(0, 0, 0.4)),
                                                       lucid_vec3_make(0.03, 0.02, 0.075 - 2e-4)});
    assert_true(fd_error("box face-cube (patch)", &box, &Tb, &cube, &Tq, 4, 0) <= 1e-6);
    assert_true(fd_error("cube-box face (patch)", &cube, &Tq, &box, &Tb, 4, 0) <= 1e-6);
    /* equal cubes face to face, offset: both witnesses inside a face */
    lucid_se3 T1 = lucid_se3_identity();
    lucid_se3 T2 = {lucid_so3_exp(lucid_vec3_make(0, 0, 0.3)),
                    lucid_vec3_make(0.02, 0.01, 0.05 - 2e-4)};
    int count;
    lucid_contact_geometry g = query(&cube, &T1, &cube, &T2, 0, &count, 0);
    assert_true(count > 1);
    lucid_contact_geometry_derivative d;
    assert_int_equal(
        lucid_contact_geometry_derivatives(&cube, &T1, &cube, &T2, &g, 1, NULL, NULL, &d),
        LUCID_ERR_DEGENERATE);
}

/* Two capsules crossing side to side (their caps' analytic rule does not apply): the cores'
 * closest points slide along both axes; a cap or a sphere against a side: one slides. */
static void test_capsule_sides(void **state) {
    (void)state;
    lucid_shape a, b;
    assert_int_equal(lucid_shape_capsule(0.03, 0.2, &a), LUCID_OK);
    assert_int_equal(lucid_shape_capsule(0.02, 0.15, &b), LUCID_OK);
    lucid_se3 Ta = pose(0.01, 0.02, 0.03, 0.2, -0.1, 0.3);
    lucid_se3 Tb =
        lucid_se3_compose(&Ta, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(1.2, 0.3, 0.1)),
                                            lucid_vec3_make(0.05, -0.02, 0.0)});
    /* move b along the common perpendicular until the cores are 0.05 - 3e-4 apart */
    lucid_gjk_options go;
    lucid_derivative_query_options_default(&go);
    lucid_distance_result r;
    assert_int_equal(lucid_distance(&a, &Ta, &b, &Tb, &go, &r), LUCID_OK);
    Tb.t = lucid_vec3_axpy(Tb.t, -3e-4 - r.distance, r.normal);
    assert_true(fd_error("capsule side-capsule side", &a, &Ta, &b, &Tb, 1, 0) <= 1e-6);
    assert_true(fd_error("capsule side-capsule side (swapped)", &b, &Tb, &a, &Ta, 1, 0) <= 1e-6);
    /* a cap against a side, and a sphere against a side: one core point rigid */
    lucid_shape sp;
    assert_int_equal(lucid_shape_sphere(0.04, &sp), LUCID_OK);
    lucid_se3 Tc =
        lucid_se3_compose(&Ta, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(0.3, 1.9, 0.2)),
                                            lucid_vec3_make(0.3, 0.1, 0.05)});
    assert_int_equal(lucid_distance(&a, &Ta, &b, &Tc, &go, &r), LUCID_OK);
    Tc.t = lucid_vec3_axpy(Tc.t, -3e-4 - r.distance, r.normal);
    assert_true(fd_error("capsule side-capsule cap", &a, &Ta, &b, &Tc, 1, 0) <= 1e-6);
    assert_true(fd_error("capsule cap-capsule side", &b, &Tc, &a, &Ta, 1, 0) <= 1e-6);
    lucid_se3 Ts = lucid_se3_compose(
        &Ta, &(lucid_se3){lucid_mat3_identity(), lucid_vec3_make(0.06, 0.02, 0.05)});
    assert_int_equal(lucid_distance(&a, &Ta, &sp, &Ts, &go, &r), LUCID_OK);
    Ts.t = lucid_vec3_axpy(Ts.t, -3e-4 - r.distance, r.normal);
    assert_true(fd_error("capsule side-sphere", &a, &Ta, &sp, &Ts, 1, 0) <= 1e-6);
}

/* Box edges and vertices as cores: a sphere on an edge, a capsule's side across an edge, two
 * boxes edge to edge (crossing), a box's vertex against a capsule's side; each placed 3e-4 m
 * deep along the query's normal. */
static void test_box_edges(void **state) {
    (void)state;
    lucid_shape box, sp, cap, other;
    assert_int_equal(lucid_shape_box(0.1, 0.08, 0.06, &box), LUCID_OK);
    assert_int_equal(lucid_shape_sphere(0.04, &sp), LUCID_OK);
    assert_int_equal(lucid_shape_capsule(0.02, 0.1, &cap), LUCID_OK);
    assert_int_equal(lucid_shape_box(0.05, 0.04, 0.03, &other), LUCID_OK);
    lucid_se3 Tb = pose(0.01, -0.02, 0.03, 0.2, 0.1, -0.3);
    struct {
        const char *name;
        const lucid_shape *s;
        lucid_vec3 w, t; /* the second shape's pose relative to the box */
    } cases[] = {
        {"box edge-sphere", &sp, {0, 0, 0}, {0.0, 0.1, 0.09}},
        {"box edge-capsule side", &cap, {0.3, 1.2, 0.2}, {0.02, 0.1, 0.08}},
        {"box edge-box edge", &other, {0.5, 0.4, 0.9}, {0.03, 0.14, 0.1}},
        {"box vertex-capsule side", &cap, {1.0, 0.7, 0.0}, {0.13, 0.11, 0.09}},
    };
    lucid_gjk_options go;
    lucid_derivative_query_options_default(&go);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        lucid_se3 T = lucid_se3_compose(&Tb, &(lucid_se3){lucid_so3_exp(cases[i].w), cases[i].t});
        lucid_distance_result r;
        assert_int_equal(lucid_distance(&box, &Tb, cases[i].s, &T, &go, &r), LUCID_OK);
        T.t = lucid_vec3_axpy(T.t, -3e-4 - r.distance, r.normal);
        assert_true(fd_error(cases[i].name, &box, &Tb, cases[i].s, &T, 1, 0) <= 1e-6);
        assert_true(fd_error(cases[i].name, cases[i].s, &T, &box, &Tb, 1, 0) <= 1e-6);
    }
}

/* T2 moved along the pair's normal until the shapes overlap by depth. */
static lucid_se3 touching(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                          lucid_se3 T2, double depth) {
    lucid_gjk_options go;
    lucid_derivative_query_options_default(&go);
    lucid_distance_result r;
    assert_int_equal(lucid_distance(s1, T1, s2, &T2, &go, &r), LUCID_OK);
    T2.t = lucid_vec3_axpy(T2.t, -depth - r.distance, r.normal);
    return T2;
}

/* fd_error of the pair both ways round, s2 first moved to overlap by depth (if > 0), with
 * expect_count contacts (0: whatever count the query gives). */
static double fd_both(const char *name, const lucid_shape *s1, const lucid_se3 *T1,
                      const lucid_shape *s2, lucid_se3 T2, double depth, int expect_count) {
    int count;
    if (depth != 0.0) T2 = touching(s1, T1, s2, T2, depth);
    query(s1, T1, s2, &T2, 0, &count, 0);
    if (expect_count) assert_int_equal(count, expect_count);
    double e = fd_error(name, s1, T1, s2, &T2, count, 0);
    return fmax(e, fd_error(name, s2, &T2, s1, T1, count, 0));
}

/* The hull of n points (xyz triples); destroyed by the caller. */
static lucid_convex_mesh *hull(const double *pts, int n, lucid_shape *s) {
    lucid_convex_mesh *m = NULL;
    assert_int_equal(lucid_convex_mesh_create(pts, n, &m), LUCID_OK);
    assert_int_equal(lucid_shape_convex(m, s), LUCID_OK);
    return m;
}

/* An irregular octagonal slab 0.06 m thick (faces of 8 vertices, none a box's). */
static lucid_convex_mesh *slab(lucid_shape *s) {
    double pts[48];
    for (int k = 0; k < 8; ++k) {
        double a = 2.0 * PI * k / 8 + 0.1 * sin(3.0 * k), r = 0.25 + 0.03 * cos(2.0 * k);
        for (int z = 0; z < 2; ++z) {
            double *p = pts + 3 * (2 * k + z);
            p[0] = r * cos(a), p[1] = 0.8 * r * sin(a), p[2] = z ? 0.03 : -0.03;
        }
    }
    return hull(pts, 16, s);
}

/* A convex mesh's face holding one witness strictly inside, or containing the other's
 * parallel face, is a halfspace to first order: a sphere and a capsule's cap on the slab, a
 * box resting on it (the slab's face contains the box's: the box's vertices), a small
 * wedge-shaped mesh resting on a box and on the slab (the larger face contains the wedge's
 * triangle), each both ways round. */
static void test_mesh_face(void **state) {
    (void)state;
    lucid_shape sl, s, c, b, wedge;
    lucid_convex_mesh *m = slab(&sl);
    assert_int_equal(lucid_shape_sphere(0.03, &s), LUCID_OK);
    assert_int_equal(lucid_shape_capsule(0.02, 0.04, &c), LUCID_OK);
    assert_int_equal(lucid_shape_box(0.04, 0.03, 0.02, &b), LUCID_OK);
    double wp[] = {-0.03, -0.02, -0.02, 0.04, -0.01, -0.02, -0.01, 0.03, -0.02, 0.0, 0.0, 0.03};
    lucid_convex_mesh *wm = hull(wp, 4, &wedge);
    lucid_se3 Ts = pose(0.1, -0.05, 0.2, 0.1, -0.2, 0.3);
    lucid_se3 T = lucid_se3_compose(
        &Ts, &(lucid_se3){lucid_mat3_identity(), lucid_vec3_make(0.05, 0.03, 0.08)});
    double e = fd_both("mesh face-sphere", &sl, &Ts, &s, T, 2e-4, 1);
    T = lucid_se3_compose(&Ts, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(0.5, 0.2, 0)),
                                            lucid_vec3_make(-0.05, 0.02, 0.1)});
    e = fmax(e, fd_both("mesh face-capsule cap", &sl, &Ts, &c, T, 3e-4, 1));
    /* the box a little tilted (1e-3 rad): its corners at different depths, all in the margin */
    T = lucid_se3_compose(&Ts, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(1e-3, 0, 0.4)),
                                            lucid_vec3_make(0.03, 0.02, 0.06)});
    e = fmax(e, fd_both("mesh face-box (patch)", &sl, &Ts, &b, T, 2e-4, 4));
    T = lucid_se3_compose(&Ts, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(0, 1e-3, 0.7)),
                                            lucid_vec3_make(-0.04, 0.03, 0.06)});
    e = fmax(e, fd_both("mesh face-wedge (patch)", &sl, &Ts, &wedge, T, 2e-4, 3));
    /* the same two faces exactly parallel (turned about the normal only): the containment
     * rule (the larger face's normal) rather than the witness strictly inside one face */
    T = lucid_se3_compose(&Ts, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(0, 0, 0.4)),
                                            lucid_vec3_make(0.03, 0.02, 0.06)});
    e = fmax(e, fd_both("mesh face-box (parallel, patch)", &sl, &Ts, &b, T, 2e-4, 4));
    lucid_shape big;
    assert_int_equal(lucid_shape_box(0.2, 0.15, 0.05, &big), LUCID_OK);
    T = lucid_se3_compose(&Ts, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(1e-3, 0, 0.3)),
                                            lucid_vec3_make(0.02, -0.03, 0.08)});
    e = fmax(e, fd_both("box face-wedge (patch)", &big, &Ts, &wedge, T, 2e-4, 3));
    T = lucid_se3_compose(&Ts, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(0, 0, 0.3)),
                                            lucid_vec3_make(0.02, -0.03, 0.08)});
    e = fmax(e, fd_both("box face-wedge (parallel, patch)", &big, &Ts, &wedge, T, 2e-4, 3));
    assert_true(e <= 1e-6);
    lucid_convex_mesh_destroy(wm);
    lucid_convex_mesh_destroy(m);
}

/* Convex-mesh edges and vertices as cores at radius 0: the cases of test_box_edges with the
 * box as the hull of its 8 corners (edge to edge with a box, a mesh and a capsule's side, a
 * vertex against a capsule's side), and an irregular wedge's edge across a capsule. */
static void test_mesh_edges(void **state) {
    (void)state;
    double pts[24];
    for (int k = 0; k < 8; ++k)
        pts[3 * k] = k & 1 ? 0.1 : -0.1, pts[3 * k + 1] = k & 2 ? 0.08 : -0.08,
                pts[3 * k + 2] = k & 4 ? 0.06 : -0.06;
    lucid_shape mb, sp, cap, other, mother;
    lucid_convex_mesh *m = hull(pts, 8, &mb);
    for (int k = 0; k < 8; ++k) pts[3 * k] *= 0.5, pts[3 * k + 1] *= 0.5, pts[3 * k + 2] *= 0.5;
    lucid_convex_mesh *m2 = hull(pts, 8, &mother);
    assert_int_equal(lucid_shape_sphere(0.04, &sp), LUCID_OK);
    assert_int_equal(lucid_shape_capsule(0.02, 0.1, &cap), LUCID_OK);
    assert_int_equal(lucid_shape_box(0.05, 0.04, 0.03, &other), LUCID_OK);
    lucid_se3 Tb = pose(0.01, -0.02, 0.03, 0.2, 0.1, -0.3);
    struct {
        const char *name;
        const lucid_shape *s;
        lucid_vec3 w, t; /* the second shape's pose relative to the mesh */
    } cases[] = {
        {"mesh edge-sphere", &sp, {0, 0, 0}, {0.0, 0.1, 0.09}},
        {"mesh edge-capsule side", &cap, {0.3, 1.2, 0.2}, {0.02, 0.1, 0.08}},
        {"mesh edge-box edge", &other, {0.5, 0.4, 0.9}, {0.03, 0.14, 0.1}},
        {"mesh edge-mesh edge", &mother, {0.5, 0.4, 0.9}, {0.03, 0.14, 0.1}},
        {"mesh vertex-capsule side", &cap, {1.0, 0.7, 0.0}, {0.13, 0.11, 0.09}},
    };
    double e = 0.0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        lucid_se3 T = lucid_se3_compose(&Tb, &(lucid_se3){lucid_so3_exp(cases[i].w), cases[i].t});
        e = fmax(e, fd_both(cases[i].name, &mb, &Tb, cases[i].s, T, 3e-4, 1));
    }
    lucid_shape wedge;
    double wp[] = {-0.03, -0.02, -0.02, 0.04, -0.01, -0.02, -0.01, 0.03, -0.02, 0.0, 0.0, 0.03};
    lucid_convex_mesh *wm = hull(wp, 4, &wedge);
    /* the capsule's side across the edge from (-0.01, 0.03, -0.02) to (0, 0, 0.03) */
    lucid_se3 T = {lucid_so3_exp(lucid_vec3_make(0.2, 1.3, 0.4)),
                   lucid_vec3_make(0.06, 0.02, 0.03)};
    T = lucid_se3_compose(&Tb, &T);
    e = fmax(e, fd_both("wedge edge-capsule side", &wedge, &Tb, &cap, T, 3e-4, 1));
    assert_true(e <= 1e-6);
    lucid_convex_mesh_destroy(wm);
    lucid_convex_mesh_destroy(m2);
    lucid_convex_mesh_destroy(m);
}

/* Cylinders: a cap is a face (standing on the floor: its inscribed polygon's vertices rigid; a
 * sphere on it; standing on a box, a small box on it), the side a core (the axis at radius r:
 * against a sphere, a box's edge, a capsule's side), lying on the floor (the side segment's
 * ends slide round the rims); a cone standing on its base. */
static void test_cylinder(void **state) {
    (void)state;
    lucid_shape p = plane(), cy, sp, box, small, cap, cone;
    assert_int_equal(lucid_shape_cylinder(0.05, 0.08, &cy), LUCID_OK);
    assert_int_equal(lucid_shape_sphere(0.03, &sp), LUCID_OK);
    assert_int_equal(lucid_shape_box(0.2, 0.15, 0.05, &box), LUCID_OK);
    assert_int_equal(lucid_shape_box(0.02, 0.015, 0.02, &small), LUCID_OK);
    assert_int_equal(lucid_shape_capsule(0.02, 0.1, &cap), LUCID_OK);
    assert_int_equal(lucid_shape_cone(0.06, 0.05, &cone), LUCID_OK);
    lucid_se3 Tp = pose(0, 0, 0.02, -0.03, 0.05, 0);
    /* standing, tilted 1e-3 rad: 4 of the polygon's 16 vertices kept (the deepest, spread) */
    lucid_se3 T = lucid_se3_compose(&Tp, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(1e-3, 0, 0.3)),
                                                      lucid_vec3_make(0.1, 0.2, 0.1)});
    double e = fd_both("plane-cylinder cap (patch)", &p, &Tp, &cy, T, 2e-4, 0);
    T = lucid_se3_compose(&Tp, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(PI / 2, 0, 0.3)),
                                            lucid_vec3_make(0.1, 0.2, 0.1)});
    e = fmax(e, fd_both("plane-cylinder side (patch)", &p, &Tp, &cy, T, 2e-4, 2));
    lucid_se3 Tc = pose(0.1, -0.05, 0.2, 0.1, -0.2, 0.3);
    T = lucid_se3_compose(&Tc,
                          &(lucid_se3){lucid_mat3_identity(), lucid_vec3_make(0.02, 0.01, 0.2)});
    e = fmax(e, fd_both("cylinder cap-sphere", &cy, &Tc, &sp, T, 2e-4, 1));
    T = lucid_se3_compose(&Tc, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(1e-3, 0, 0.5)),
                                            lucid_vec3_make(0.01, -0.01, 0.2)});
    e = fmax(e, fd_both("cylinder cap-small box (patch)", &cy, &Tc, &small, T, 2e-4, 4));
    T = lucid_se3_compose(&Tc, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(1e-3, 0, 0.5)),
                                            lucid_vec3_make(0.01, -0.01, 0.2)});
    e = fmax(e, fd_both("box face-cylinder cap (patch)", &box, &Tc, &cy, T, 2e-4, 0));
    /* the side as a core; GJK's normal on a cylinder's side is only ~1e-8 accurate (its
     * support jumps between the rims; printed below), which differences at h = 1e-5 would
     * amplify to 1e-3, so the differences are taken of the capsule with the same axis, radius
     * and half-length: within the rims its side is the cylinder's (the contacts agree) */
    lucid_shape proxy;
    assert_int_equal(lucid_shape_capsule(0.05, 0.08, &proxy), LUCID_OK);
    struct {
        const char *name;
        const lucid_shape *s;
        lucid_vec3 w, t;
        double depth;
    } sides[] = {
        {"cylinder side-sphere", &sp, {0, 0, 0}, {0.1, 0.02, 0.03}, 3e-4},
        {"cylinder side-box vertex", &small, {0.5, 0.4, 0.9}, {0.15, 0.05, 0.01}, 3e-4},
        {"cylinder side-box vertex (apart)", &small, {0.5, 0.4, 0.9}, {0.15, 0.05, 0.01}, -3e-4},
        {"cylinder side-box edge", &small, {0.1, 0.78, 0.0}, {0.15, 0.004, 0.01}, 3e-4},
        {"cylinder side-capsule side", &cap, {1.2, 0.3, 0.1}, {0.1, -0.02, 0.0}, 3e-4},
    };
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; ++i) {
        T = lucid_se3_compose(&Tc, &(lucid_se3){lucid_so3_exp(sides[i].w), sides[i].t});
        T = touching(&cy, &Tc, sides[i].s, T, sides[i].depth);
        e = fmax(e,
                 fd_error_ref(sides[i].name, &cy, &Tc, sides[i].s, &T, &proxy, sides[i].s, 1, 0));
        e = fmax(e,
                 fd_error_ref(sides[i].name, sides[i].s, &T, &cy, &Tc, sides[i].s, &proxy, 1, 0));
    }
    e = fmax(e, fd_both("cylinder side-sphere (direct)", &cy, &Tc, &sp,
                        lucid_se3_compose(&Tc, &(lucid_se3){lucid_mat3_identity(),
                                                            lucid_vec3_make(0.1, 0.02, 0.03)}),
                        3e-4, 1));
    /* a cone standing on its base (tilted 1e-3 rad) */
    T = lucid_se3_compose(&Tp, &(lucid_se3){lucid_so3_exp(lucid_vec3_make(0, 1e-3, 0.2)),
                                            lucid_vec3_make(-0.1, 0.1, 0.1)});
    e = fmax(e, fd_both("plane-cone base (patch)", &p, &Tp, &cone, T, 2e-4, 0));
    assert_true(e <= 1e-6);
}

/* A box's corner has no curvature: with a smoothed estimator its geometry derivative is
 * flagged estimated (and finite), while a box resting on a face (a patch: vertices rigid with
 * their face) keeps the exact rule; a box's corner on an ellipsoid has no rule at all:
 * without an estimator LUCID_ERR_DEGENERATE (the step derivatives then run collision
 * detection). A cone's rim point takes an estimator when one is given. */
static void test_estimated_and_degenerate(void **state) {
    (void)state;
    lucid_shape p = plane(), b, cone;
    assert_int_equal(lucid_shape_box(0.1, 0.1, 0.1, &b), LUCID_OK);
    assert_int_equal(lucid_shape_cone(0.1, 0.1, &cone), LUCID_OK);
    lucid_se3 Tp = lucid_se3_identity();
    lucid_derivative_options e;
    lucid_derivative_options_default(&e);
    e.method = LUCID_DERIV_FIRST_ORDER_GAUSSIAN, e.samples = 50, e.noise = 1e-2;
    lucid_contact_geometry_derivative d;
    int count;
    lucid_se3 Tb = pose(0, 0, 0.1 - 2e-4, 0, 0, 0);
    lucid_contact_geometry g = query(&p, &Tp, &b, &Tb, 0, &count, 0);
    assert_int_equal(count, 4);
    assert_int_equal(lucid_contact_geometry_derivatives(&p, &Tp, &b, &Tb, &g, 1, &e, NULL, &d),
                     LUCID_OK);
    assert_false(d.estimated);
    /* on a corner: the body diagonal vertical */
    double tilt = acos(1.0 / sqrt(3.0)) / sqrt(2.0);
    lucid_mat3 R = lucid_so3_exp(lucid_vec3_make(tilt, -tilt, 0));
    Tb = (lucid_se3){R, lucid_vec3_make(0, 0, 0.1 * sqrt(3.0) - 1e-4)};
    g = query(&p, &Tp, &b, &Tb, 0, &count, 0);
    assert_int_equal(count, 1);
    assert_true(fabs(g.separation + 1e-4) < 1e-12);
    assert_int_equal(lucid_contact_geometry_derivatives(&p, &Tp, &b, &Tb, &g, 0, &e, NULL, &d),
                     LUCID_OK);
    assert_true(d.estimated);
    for (int i = 0; i < 36; ++i) assert_true(isfinite(d.dpoint[i]) && isfinite(d.dnormal[i]));
    /* the cone tipped onto its base rim: one rim point touches */
    lucid_se3 Tc = lucid_se3_compose(
        &(lucid_se3){lucid_mat3_identity(),
                     lucid_vec3_make(0, 0, 0.1 * cos(0.3) + 0.1 * sin(0.3) - 1e-4)},
        &(lucid_se3){lucid_so3_exp(lucid_vec3_make(0.3, 0, 0)), lucid_vec3_zero()});
    g = query(&p, &Tp, &cone, &Tc, 0, &count, 0);
    assert_int_equal(count, 1);
    assert_int_equal(lucid_contact_geometry_derivatives(&p, &Tp, &cone, &Tc, &g, 0, &e, NULL, &d),
                     LUCID_OK);
    assert_true(d.estimated);
    /* a box's corner on an ellipsoid has no exact rule: the estimator's, or an error */
    lucid_shape ell;
    assert_int_equal(lucid_shape_ellipsoid(0.3, 0.2, 0.1, &ell), LUCID_OK);
    lucid_se3 Te = pose(0, 0, -0.1, 0, 0, 0);
    g = query(&ell, &Te, &b, &Tb, 0, &count, 0);
    assert_int_equal(count, 1);
    assert_int_equal(lucid_contact_geometry_derivatives(&ell, &Te, &b, &Tb, &g, 0, NULL, NULL, &d),
                     LUCID_ERR_DEGENERATE);
    assert_int_equal(lucid_contact_geometry_derivatives(&ell, &Te, &b, &Tb, &g, 0, &e, NULL, &d),
                     LUCID_OK);
    assert_true(d.estimated);
    /* two halfspaces have no distance */
    assert_int_equal(lucid_contact_geometry_derivatives(&p, &Tp, &p, &Tp, &g, 0, NULL, NULL, &d),
                     LUCID_ERR_ARGUMENT);
}

/* The twists: log(T0^-1 T) to first order (central differences of it give xi to O(e^2)), and
 * a part's twist from its body's is the twist of the part's own poses to first order. */
static void test_twist(void **state) {
    (void)state;
    lucid_se3 T0 = pose(0.1, 0.2, 0.3, 0.4, -0.5, 0.6), P = pose(0.05, -0.1, 0.2, 0.3, 0.1, -0.2);
    lucid_se3 A0 = lucid_se3_compose(&T0, &P);
    double xi[6] = {1.0, -2.0, 3.0, 4.0, -5.0, 6.0}, e = 1e-5;
    double body[2][6], part[2][6], direct[2][6];
    for (int sgn = 0; sgn < 2; ++sgn) {
        double step[6];
        for (int i = 0; i < 6; ++i) step[i] = (sgn ? -e : e) * xi[i];
        lucid_se3 E = lucid_se3_exp(step), T = lucid_se3_compose(&T0, &E);
        lucid_se3 A = lucid_se3_compose(&T, &P);
        lucid_contact_geometry_twist(&T0, &T, body[sgn]);
        lucid_contact_geometry_twist_part(&P, body[sgn], part[sgn]);
        lucid_contact_geometry_twist(&A0, &A, direct[sgn]);
    }
    for (int i = 0; i < 6; ++i) {
        assert_true(fabs((body[0][i] - body[1][i]) / (2 * e) - xi[i]) < 1e-8);
        double dp = (part[0][i] - part[1][i]) / (2 * e);
        assert_true(fabs(dp - (direct[0][i] - direct[1][i]) / (2 * e)) < 1e-8);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sphere_plane),
        cmocka_unit_test(test_capsule_plane),
        cmocka_unit_test(test_ellipsoid_sphere),
        cmocka_unit_test(test_box_plane_patch),
        cmocka_unit_test(test_box_face),
        cmocka_unit_test(test_capsule_sides),
        cmocka_unit_test(test_box_edges),
        cmocka_unit_test(test_mesh_face),
        cmocka_unit_test(test_mesh_edges),
        cmocka_unit_test(test_cylinder),
        cmocka_unit_test(test_curved_vertices),
        cmocka_unit_test(test_estimated_and_degenerate),
        cmocka_unit_test(test_twist),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
