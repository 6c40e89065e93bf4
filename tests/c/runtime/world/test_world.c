/* The world without contacts and its bookkeeping: free fall against the semi-implicit Euler
 * closed form, torque-free rotation (angular momentum), a body whose centre of mass is off
 * its frame origin, mass properties of every primitive against convex-mesh approximations,
 * composites by the parallel-axis theorem, state get/set reproducibility, energy, errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/mass_properties.h"
#include "runtime/world/world.h"

#define PI 3.14159265358979323846

static lucid_world *make_world(double dt, lucid_vec3 gravity) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = dt, o.gravity = gravity;
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    return w;
}

static int add_shape_body(lucid_world *w, lucid_shape shape, lucid_se3 pose, const double v[6]) {
    lucid_body_part part = {shape, lucid_se3_identity()};
    lucid_body_desc d;
    lucid_body_desc_default(&d);
    d.parts = &part, d.num_parts = 1;
    d.pose = pose;
    if (v) memcpy(d.velocity, v, sizeof d.velocity);
    int id;
    assert_int_equal(lucid_world_add_body(w, &d, &id, NULL), LUCID_OK);
    return id;
}

/* Semi-implicit Euler: v_n = v0 + n dt g and x_n = x0 + n dt v0 + dt^2 g n (n + 1) / 2, which
 * differs from the continuous x0 + v0 t + g t^2 / 2 by exactly g dt t / 2. */
static void test_free_fall(void **state) {
    (void)state;
    const double dt = 1e-3;
    lucid_vec3 g = lucid_vec3_make(0.5, -1.0, -9.81);
    lucid_world *w = make_world(dt, g);
    lucid_shape box;
    lucid_shape_box(0.1, 0.2, 0.3, &box);
    lucid_se3 T0 = lucid_se3_identity();
    T0.t = lucid_vec3_make(1, 2, 30);
    double v0[6] = {1, 2, 3, 0, 0, 0};
    int id = add_shape_body(w, box, T0, v0);
    for (int n = 1; n <= 500; ++n) {
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        lucid_se3 T;
        double v[6];
        lucid_world_pose(w, id, &T);
        lucid_world_velocity(w, id, v);
        for (int k = 0; k < 3; ++k) {
            double gk = lucid_vec3_get(g, k), x0 = lucid_vec3_get(T0.t, k);
            double vn = v0[k] + n * dt * gk;
            double xn = x0 + n * dt * v0[k] + dt * dt * gk * n * (n + 1) / 2.0;
            assert_true(fabs(v[k] - vn) <= 1e-12 * (1 + fabs(vn)));
            assert_true(fabs(lucid_vec3_get(T.t, k) - xn) <= 1e-12 * (1 + fabs(xn)));
            double t = n * dt, xc = x0 + v0[k] * t + 0.5 * gk * t * t;
            assert_true(fabs(lucid_vec3_get(T.t, k) - xc - 0.5 * gk * dt * t) <= 1e-11);
            assert_true(v[3 + k] == 0.0);
        }
        assert_true(memcmp(&T.R, &T0.R, sizeof T.R) == 0);
    }
    lucid_world_destroy(w);
}

static lucid_vec3 angular_momentum(const lucid_world *w, int id) {
    lucid_se3 T;
    double v[6];
    lucid_mat3 I;
    lucid_world_pose(w, id, &T);
    lucid_world_velocity(w, id, v);
    lucid_world_body_inertia(w, id, &I, NULL);
    lucid_vec3 wb = lucid_mat3_tmul_vec(&T.R, lucid_vec3_load(v + 3));
    return lucid_mat3_mul_vec(&T.R, lucid_mat3_mul_vec(&I, wb));
}

/* Relative change of the world angular momentum of a tumbling box after 1 s at step dt. */
static double spin_error(double dt) {
    lucid_world *w = make_world(dt, lucid_vec3_zero());
    lucid_shape box;
    lucid_shape_box(0.1, 0.2, 0.3, &box);
    double v0[6] = {0, 0, 0, 0.4, 6.0, 0.3}; /* near the unstable intermediate axis */
    int id = add_shape_body(w, box, lucid_se3_identity(), v0);
    lucid_vec3 L0 = angular_momentum(w, id);
    int steps = (int)lround(1.0 / dt);
    for (int i = 0; i < steps; ++i) assert_int_equal(lucid_world_step(w), LUCID_OK);
    double err = lucid_vec3_dist(angular_momentum(w, id), L0) / lucid_vec3_norm(L0);
    lucid_world_destroy(w);
    return err;
}

/* Torque-free rotation: the world angular momentum is conserved up to the integrator's
 * first-order error (it halves with dt), and a spin about a principal axis exactly. */
static void test_torque_free_rotation(void **state) {
    (void)state;
    double e1 = spin_error(1e-3), e2 = spin_error(5e-4);
    printf("angular momentum drift over 1 s: %.3g (dt 1e-3), %.3g (dt 5e-4)\n", e1, e2);
    assert_true(e1 < 2e-3); /* measured 1.65e-3: the first-order error, not a looser bound */
    assert_true(e1 / e2 > 1.6 && e1 / e2 < 2.5);
    lucid_world *w = make_world(1e-3, lucid_vec3_zero());
    lucid_shape box;
    lucid_shape_box(0.1, 0.2, 0.3, &box);
    double v0[6] = {0, 0, 0, 0, 0, 7.0};
    int id = add_shape_body(w, box, lucid_se3_identity(), v0);
    lucid_vec3 L0 = angular_momentum(w, id);
    for (int i = 0; i < 1000; ++i) lucid_world_step(w);
    assert_true(lucid_vec3_dist(angular_momentum(w, id), L0) <= 1e-12 * lucid_vec3_norm(L0));
    lucid_se3 T;
    lucid_world_pose(w, id, &T);
    assert_true(fabs(atan2(T.R.m[1], T.R.m[0]) - remainder(7.0, 2 * PI)) < 1e-9);
    assert_true(lucid_vec3_norm(T.t) == 0.0);
    lucid_world_destroy(w);
}

/* Torque-free tumbling near the unstable intermediate axis (issue 33: a 0.2 x 0.4 x 0.6 m box kept
 * 0.89 of |L| and 0.80 of its energy after 100 s at dt 1 ms, 0.41 and 0.23 at 10 ms, under the
 * implicit Euler gyroscopic step). The midpoint rule keeps both quadratic invariants of
 * Euler's equations, and the rotation update exp(dt w+) R leaves the body-frame velocity as
 * the rule gives it, so over 100 s both stay to round-off (1e-9 bounds the measured 4e-11 and 8e-11
 * and lies far below the 0.1% and 1%) while the body flips over and over (its body-frame
 * spin about the intermediate axis changes sign). */
static void tumble(double dt) {
    lucid_world *w = make_world(dt, lucid_vec3_zero());
    lucid_shape box;
    lucid_shape_box(0.1, 0.2, 0.3, &box);
    double v0[6] = {0, 0, 0, 0.4, 6.0, 0.3};
    int id = add_shape_body(w, box, lucid_se3_identity(), v0);
    double L0 = lucid_vec3_norm(angular_momentum(w, id)), E0 = lucid_world_energy_of(w).kinetic;
    int steps = (int)lround(100.0 / dt), flips = 0, sign = 1;
    for (int k = 0; k < steps; ++k) {
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        lucid_se3 T;
        double v[6];
        lucid_world_pose(w, id, &T);
        lucid_world_velocity(w, id, v);
        int now = lucid_mat3_tmul_vec(&T.R, lucid_vec3_load(v + 3)).y > 0.0 ? 1 : -1;
        flips += now != sign, sign = now;
    }
    double dL = lucid_vec3_norm(angular_momentum(w, id)) / L0 - 1.0;
    double dE = lucid_world_energy_of(w).kinetic / E0 - 1.0;
    printf("tumbling 100 s at dt %g: |L| changed by %.3g, energy by %.3g, %d flips\n", dt, dL, dE,
           flips);
    assert_true(fabs(dL) < 1e-9 && fabs(dE) < 1e-9);
    assert_true(flips >= 10);
    lucid_world_destroy(w);
}

static void test_tumbling_keeps_energy_and_momentum(void **state) {
    (void)state;
    tumble(1e-3);
    tumble(1e-2);
}

/* A composite body whose centre of mass is off its frame: the centre of mass falls on the
 * parabola while the body spins about it. */
static void test_offset_centre_of_mass(void **state) {
    (void)state;
    const double dt = 1e-3;
    lucid_vec3 g = lucid_vec3_make(0, 0, -9.81);
    lucid_world *w = make_world(dt, g);
    lucid_body_part parts[2];
    lucid_shape_sphere(0.1, &parts[0].shape);
    lucid_shape_box(0.1, 0.1, 0.1, &parts[1].shape);
    parts[0].pose = lucid_se3_identity(), parts[1].pose = lucid_se3_identity();
    parts[0].pose.t = lucid_vec3_make(0.5, 0, 0), parts[1].pose.t = lucid_vec3_make(0.5, 0.3, 0);
    lucid_body_desc d;
    lucid_body_desc_default(&d);
    d.parts = parts, d.num_parts = 2;
    d.velocity[5] = 3.0; /* spin about world z through the body origin */
    int id;
    assert_int_equal(lucid_world_add_body(w, &d, &id, NULL), LUCID_OK);
    lucid_vec3 com;
    lucid_world_body_inertia(w, id, NULL, &com);
    assert_true(com.x > 0.49 && com.y > 0.0);
    /* the origin velocity is w x (0 - c) at t = 0 in the body's COM motion: v_com = w x c */
    lucid_vec3 vc0 = lucid_vec3_cross(lucid_vec3_make(0, 0, 3.0), com);
    for (int n = 1; n <= 300; ++n) {
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        lucid_se3 T;
        lucid_world_pose(w, id, &T);
        lucid_vec3 x = lucid_se3_act(&T, com);
        lucid_vec3 expect = lucid_vec3_add(com, lucid_vec3_scale(vc0, n * dt));
        expect.z += dt * dt * g.z * n * (n + 1) / 2.0;
        assert_true(lucid_vec3_dist(x, expect) < 1e-12);
    }
    lucid_world_destroy(w);
}

/* ---- mass properties ------------------------------------------------------------------- */

static lucid_convex_mesh *mesh_of(const double *pts, int n) {
    lucid_convex_mesh *m = NULL;
    assert_int_equal(lucid_convex_mesh_create(pts, n, &m), LUCID_OK);
    return m;
}

static void assert_close_props(const lucid_mass_properties *a, const lucid_mass_properties *b,
                               double tol) {
    assert_true(fabs(a->mass - b->mass) <= tol * b->mass);
    double scale = fmax(fmax(b->inertia.m[0], b->inertia.m[4]), b->inertia.m[8]);
    for (int k = 0; k < 9; ++k) assert_true(fabs(a->inertia.m[k] - b->inertia.m[k]) <= tol * scale);
    assert_true(lucid_vec3_dist(a->com, b->com) <= tol * cbrt(b->mass));
}

/* A box as an 8-point convex mesh: the tetrahedral decomposition is exact. */
static void test_mesh_cube_matches_box(void **state) {
    (void)state;
    double pts[24];
    for (int i = 0; i < 8; ++i) {
        pts[3 * i] = (i & 1) ? 0.3 : -0.3;
        pts[3 * i + 1] = (i & 2) ? 0.2 : -0.2;
        pts[3 * i + 2] = (i & 4) ? 0.1 : -0.1;
        pts[3 * i] += 1.0; /* off-centre: the centre of mass follows */
    }
    lucid_convex_mesh *m = mesh_of(pts, 8);
    lucid_shape mesh, box;
    lucid_shape_convex(m, &mesh);
    lucid_shape_box(0.3, 0.2, 0.1, &box);
    lucid_mass_properties pm, pb;
    assert_int_equal(lucid_shape_mass_properties(&mesh, 500.0, &pm), LUCID_OK);
    assert_int_equal(lucid_shape_mass_properties(&box, 500.0, &pb), LUCID_OK);
    pb.com = lucid_vec3_make(1.0, 0, 0);
    assert_close_props(&pm, &pb, 1e-12);
    /* closed form of the box itself: m = rho 8 abc, I_xx = m (b^2 + c^2) / 3 */
    double mass = 500.0 * 8 * 0.3 * 0.2 * 0.1;
    assert_true(fabs(pb.mass - mass) < 1e-12 * mass);
    assert_true(fabs(pb.inertia.m[0] - mass * (0.04 + 0.01) / 3) < 1e-12 * mass);
    assert_true(fabs(pb.inertia.m[4] - mass * (0.09 + 0.01) / 3) < 1e-12 * mass);
    assert_true(fabs(pb.inertia.m[8] - mass * (0.09 + 0.04) / 3) < 1e-12 * mass);
    lucid_convex_mesh_destroy(m);
}

/* A non-convex closed triangle mesh, an L-shaped prism, has the mass properties of its two
 * boxes combined (not its hull's); an inward or open mesh and a bad index are refused. */
static void test_triangle_mesh_mass_properties(void **state) {
    (void)state;
    const double xy[6][2] = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}}; /* CCW */
    double pts[36];
    for (int i = 0; i < 12; ++i) {
        pts[3 * i] = xy[i % 6][0], pts[3 * i + 1] = xy[i % 6][1], pts[3 * i + 2] = i < 6 ? 0 : 0.5;
    }
    int tris[60], n = 0;
    for (int k = 1; k + 1 < 6; ++k) { /* the profile fanned from (0, 0): bottom down, top up */
        int bottom[3] = {0, k + 1, k}, top[3] = {6, 6 + k, 6 + k + 1};
        for (int j = 0; j < 3; ++j) tris[3 * n + j] = bottom[j], tris[3 * (n + 1) + j] = top[j];
        n += 2;
    }
    for (int i = 0; i < 6; ++i) { /* the sides, facing outwards */
        int j = (i + 1) % 6;
        int a[3] = {i, j, 6 + j}, b[3] = {i, 6 + j, 6 + i};
        for (int k = 0; k < 3; ++k) tris[3 * n + k] = a[k], tris[3 * (n + 1) + k] = b[k];
        n += 2;
    }
    lucid_mass_properties mesh, parts[2], expected;
    assert_int_equal(lucid_triangle_mesh_mass_properties(pts, 12, tris, n, 700.0, &mesh), LUCID_OK);
    lucid_shape boxes[2];
    lucid_shape_box(1.0, 0.5, 0.25, &boxes[0]); /* [0, 2] x [0, 1] x [0, 0.5] */
    lucid_shape_box(0.5, 0.5, 0.25, &boxes[1]); /* [0, 1] x [1, 2] x [0, 0.5] */
    lucid_se3 at[2] = {lucid_se3_identity(), lucid_se3_identity()};
    at[0].t = lucid_vec3_make(1.0, 0.5, 0.25), at[1].t = lucid_vec3_make(0.5, 1.5, 0.25);
    for (int k = 0; k < 2; ++k) {
        assert_int_equal(lucid_shape_mass_properties(&boxes[k], 700.0, &parts[k]), LUCID_OK);
        parts[k] = lucid_mass_properties_transform(&parts[k], &at[k]);
    }
    assert_int_equal(lucid_mass_properties_combine(parts, 2, &expected), LUCID_OK);
    assert_true(fabs(expected.mass - 700.0 * 1.5) < 1e-12 * expected.mass);
    assert_close_props(&mesh, &expected, 1e-12);
    for (int t = 0; t < n; ++t) { /* inwards */
        int swap = tris[3 * t + 1];
        tris[3 * t + 1] = tris[3 * t + 2], tris[3 * t + 2] = swap;
    }
    assert_int_equal(lucid_triangle_mesh_mass_properties(pts, 12, tris, n, 700.0, &mesh),
                     LUCID_ERR_DEGENERATE);
    tris[0] = 12;
    assert_int_equal(lucid_triangle_mesh_mass_properties(pts, 12, tris, n, 700.0, &mesh),
                     LUCID_ERR_ARGUMENT);
}

/* Points on a unit sphere (Fibonacci lattice). */
static void sphere_point(int i, int n, double *x, double *y, double *z) {
    double zz = 1.0 - 2.0 * (i + 0.5) / n, r = sqrt(1.0 - zz * zz),
           phi = i * PI * (3.0 - sqrt(5.0));
    *x = r * cos(phi), *y = r * sin(phi), *z = zz;
}

/* Every curved primitive against a fine inscribed convex mesh: volume and inertia converge
 * quadratically in the sampling, so a dense mesh matches the closed forms to ~1e-3. */
static void test_primitives_against_meshes(void **state) {
    (void)state;
    enum { NS = 4000, NC = 720 };
    static double pts[3 * (NS + 2 * NC + 2)];
    const double rho = 1200.0;
    for (int kind = 0; kind < 5; ++kind) {
        lucid_shape s;
        int n = 0;
        if (kind <= 2) { /* sphere, ellipsoid, capsule */
            double a = 0.3, b = kind == 1 ? 0.2 : 0.3, c = kind == 1 ? 0.5 : 0.3, h = 0.4;
            if (kind == 0) lucid_shape_sphere(0.3, &s);
            if (kind == 1) lucid_shape_ellipsoid(a, b, c, &s);
            if (kind == 2) lucid_shape_capsule(0.3, h, &s);
            for (int i = 0; i < NS; ++i, ++n) {
                double x, y, z;
                sphere_point(i, NS, &x, &y, &z);
                pts[3 * n] = a * x, pts[3 * n + 1] = b * y, pts[3 * n + 2] = c * z;
                if (kind == 2) pts[3 * n + 2] += z >= 0 ? h : -h;
            }
        } else { /* cylinder, cone */
            double r = 0.25, h = 0.35;
            if (kind == 3) lucid_shape_cylinder(r, h, &s);
            if (kind == 4) lucid_shape_cone(r, h, &s);
            for (int i = 0; i < NC; ++i) {
                double t = 2 * PI * i / NC;
                pts[3 * n] = r * cos(t), pts[3 * n + 1] = r * sin(t), pts[3 * n + 2] = -h, ++n;
                if (kind == 3)
                    pts[3 * n] = r * cos(t), pts[3 * n + 1] = r * sin(t), pts[3 * n + 2] = h, ++n;
            }
            if (kind == 4) pts[3 * n] = 0, pts[3 * n + 1] = 0, pts[3 * n + 2] = h, ++n;
        }
        lucid_convex_mesh *m = mesh_of(pts, n);
        lucid_shape ms;
        lucid_shape_convex(m, &ms);
        lucid_mass_properties pm, ps;
        assert_int_equal(lucid_shape_mass_properties(&ms, rho, &pm), LUCID_OK);
        assert_int_equal(lucid_shape_mass_properties(&s, rho, &ps), LUCID_OK);
        printf(
            "%s: mass %.6g vs mesh %.6g, Ixx %.6g vs %.6g, Izz %.6g vs %.6g, com z %.4g vs %.4g\n",
            lucid_shape_kind_name(s.kind), ps.mass, pm.mass, ps.inertia.m[0], pm.inertia.m[0],
            ps.inertia.m[8], pm.inertia.m[8], ps.com.z, pm.com.z);
        assert_close_props(&pm, &ps, 3e-3);
        lucid_convex_mesh_destroy(m);
    }
}

/* Two unit cubes side by side are one 2 x 1 x 1 box (parallel-axis theorem), and the
 * composite's centre of mass is the mass-weighted mean. */
static void test_composite_parallel_axis(void **state) {
    (void)state;
    lucid_shape cube, bar;
    lucid_shape_box(0.5, 0.5, 0.5, &cube);
    lucid_shape_box(1.0, 0.5, 0.5, &bar);
    lucid_mass_properties p, parts[2], sum, whole;
    lucid_shape_mass_properties(&cube, 2.0, &p);
    lucid_se3 left = lucid_se3_identity(), right = lucid_se3_identity();
    left.t = lucid_vec3_make(2.5, 1, 0), right.t = lucid_vec3_make(3.5, 1, 0);
    parts[0] = lucid_mass_properties_transform(&p, &left);
    parts[1] = lucid_mass_properties_transform(&p, &right);
    assert_int_equal(lucid_mass_properties_combine(parts, 2, &sum), LUCID_OK);
    lucid_shape_mass_properties(&bar, 2.0, &whole);
    whole.com = lucid_vec3_make(3, 1, 0);
    assert_close_props(&sum, &whole, 1e-12);
    /* a rotated box: R I R^T */
    lucid_se3 rot = lucid_se3_identity();
    rot.R = lucid_mat3_from_cols(lucid_vec3_make(0, 1, 0), lucid_vec3_make(-1, 0, 0),
                                 lucid_vec3_make(0, 0, 1));
    lucid_mass_properties r = lucid_mass_properties_transform(&whole, &rot);
    assert_true(fabs(r.inertia.m[0] - whole.inertia.m[4]) < 1e-12);
    assert_true(fabs(r.inertia.m[4] - whole.inertia.m[0]) < 1e-12);
    lucid_shape half;
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0, &half);
    assert_int_equal(lucid_shape_mass_properties(&half, 1.0, &p), LUCID_ERR_ARGUMENT);
}

/* Given mass scales the shape's inertia; given inertia replaces it. */
static void test_given_mass_and_inertia(void **state) {
    (void)state;
    lucid_world *w = make_world(1e-3, lucid_vec3_zero());
    lucid_body_part part = {{0}, lucid_se3_identity()};
    lucid_shape_box(0.1, 0.2, 0.3, &part.shape);
    lucid_body_desc d;
    lucid_body_desc_default(&d);
    d.parts = &part, d.num_parts = 1, d.has_mass = 1, d.mass = 2.0;
    int id;
    assert_int_equal(lucid_world_add_body(w, &d, &id, NULL), LUCID_OK);
    lucid_mat3 I;
    lucid_world_body_inertia(w, id, &I, NULL);
    assert_true(fabs(I.m[0] - 2.0 * (0.04 + 0.09) / 3) < 1e-14);
    d.has_inertia = 1, d.inertia = lucid_mat3_diag(lucid_vec3_make(1, 2, 3));
    assert_int_equal(lucid_world_add_body(w, &d, &id, NULL), LUCID_OK);
    lucid_world_body_inertia(w, id, &I, NULL);
    assert_true(I.m[4] == 2.0 && lucid_world_body_mass(w, id) == 2.0);
    lucid_world_destroy(w);
}

/* ---- state and energy ------------------------------------------------------------------ */

static lucid_world *tumbling_scene(void) {
    lucid_world *w = make_world(2e-3, lucid_vec3_make(0, 0, -9.81));
    lucid_body_part ground = {{0}, lucid_se3_identity()};
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0, &ground.shape);
    lucid_se3 I = lucid_se3_identity();
    int id;
    assert_int_equal(lucid_world_add_static(w, &ground, 1, &I, 0.6, &id, NULL), LUCID_OK);
    for (int k = 0; k < 3; ++k) {
        lucid_shape box;
        lucid_shape_box(0.1, 0.15, 0.05, &box);
        lucid_se3 T = lucid_se3_identity();
        double xi[6] = {0.1 * k, 0, 0.12 + 0.35 * k, 0.3, 0.2 * k, 0.1};
        T = lucid_se3_exp(xi);
        double v[6] = {0.2, -0.1 * k, 0, 1.0, -2.0, 0.5 * k};
        add_shape_body(w, box, T, v);
    }
    return w;
}

static void record(lucid_world *w, int steps, double *traj) {
    int n = lucid_world_state_size(w);
    for (int i = 0; i < steps; ++i) {
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        lucid_world_get_state(w, traj + (size_t)i * n);
    }
}

/* set_state(x) then n steps is a pure function of x: bit for bit the same trajectory. */
static void test_state_reproducibility(void **state) {
    (void)state;
    lucid_world *w = tumbling_scene();
    for (int i = 0; i < 100; ++i) assert_int_equal(lucid_world_step(w), LUCID_OK);
    int n = lucid_world_state_size(w), steps = 150;
    assert_int_equal(n, 3 * 13); /* 3 free bodies: pose (7) and body twist (6); no static */
    double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
    double *a = malloc(sizeof(double) * n * steps), *b = malloc(sizeof(double) * n * steps);
    lucid_world_get_state(w, x);
    assert_int_equal(lucid_world_set_state(w, x, NULL), LUCID_OK);
    lucid_world_get_state(w, y);
    assert_memory_equal(x, y, sizeof(double) * n);
    record(w, steps, a);
    assert_int_equal(lucid_world_set_state(w, x, NULL), LUCID_OK);
    record(w, steps, b);
    assert_memory_equal(a, b, sizeof(double) * n * steps);
    /* the trajectory really is in contact and moving (the test is not vacuous) */
    assert_true(lucid_world_contact_count(w) > 0);
    assert_true(memcmp(a, a + (size_t)(steps - 1) * n, sizeof(double) * n) != 0);
    /* a zero quaternion is refused, a non-unit one normalised, NaN refused */
    double q[4] = {x[10], x[11], x[12], x[13]};
    x[10] = x[11] = x[12] = x[13] = 0.0;
    assert_int_equal(lucid_world_set_state(w, x, NULL), LUCID_ERR_ARGUMENT);
    for (int k = 0; k < 4; ++k) x[10 + k] = 3.0 * q[k];
    assert_int_equal(lucid_world_set_state(w, x, NULL), LUCID_OK);
    lucid_world_get_state(w, y);
    for (int k = 0; k < 4; ++k) assert_true(fabs(y[10 + k] - q[k]) < 1e-15);
    x[10] = NAN;
    assert_int_equal(lucid_world_set_state(w, x, NULL), LUCID_ERR_NONFINITE);
    free(x), free(y), free(a), free(b);
    lucid_world_destroy(w);
}

/* Energy: kinetic 1/2 m v^2 + 1/2 w^T I w, potential -m g.x_com; and in free flight the
 * semi-implicit scheme changes the total by exactly m |g|^2 dt t / 2 (from x_n above). */
static void test_energy(void **state) {
    (void)state;
    const double dt = 1e-3;
    lucid_world *w = make_world(dt, lucid_vec3_make(0, 0, -9.81));
    lucid_shape box;
    lucid_shape_box(0.1, 0.2, 0.3, &box);
    lucid_se3 T = lucid_se3_identity();
    T.t = lucid_vec3_make(0, 0, 2.0);
    double v[6] = {1, 0, 2, 0, 0, 3};
    int id = add_shape_body(w, box, T, v);
    double m = lucid_world_body_mass(w, id);
    lucid_mat3 I;
    lucid_world_body_inertia(w, id, &I, NULL);
    lucid_world_energy e = lucid_world_energy_of(w);
    assert_true(fabs(e.kinetic - (0.5 * m * 5 + 0.5 * I.m[8] * 9)) < 1e-12 * e.kinetic);
    assert_true(fabs(e.potential - m * 9.81 * 2.0) < 1e-12 * e.potential);
    double total0 = e.kinetic + e.potential;
    for (int n = 1; n <= 400; ++n) lucid_world_step(w);
    e = lucid_world_energy_of(w);
    double t = 400 * dt, drift = e.kinetic + e.potential - total0;
    assert_true(fabs(drift - (-0.5 * m * 9.81 * 9.81 * dt * t)) < 1e-9 * total0);
    lucid_world_destroy(w);
}

/* External forces act for one step and are then cleared. */
static void test_forces_cleared(void **state) {
    (void)state;
    const double dt = 1e-2;
    lucid_world *w = make_world(dt, lucid_vec3_zero());
    lucid_shape box;
    lucid_shape_box(0.1, 0.1, 0.1, &box);
    int id = add_shape_body(w, box, lucid_se3_identity(), NULL);
    double m = lucid_world_body_mass(w, id);
    lucid_mat3 I;
    lucid_world_body_inertia(w, id, &I, NULL);
    assert_int_equal(
        lucid_world_apply_force(w, id, lucid_vec3_make(m, 0, 0), lucid_vec3_make(0, 0, I.m[8])),
        LUCID_OK);
    lucid_world_step(w);
    lucid_world_step(w);
    double v[6];
    lucid_world_velocity(w, id, v);
    assert_true(fabs(v[0] - dt) < 1e-15 && fabs(v[5] - dt) < 1e-15);
    lucid_world_destroy(w);
}

static void test_errors(void **state) {
    (void)state;
    lucid_world_options o;
    lucid_world_default_options(&o);
    lucid_world *w = NULL;
    const char *why = NULL;
    o.dt = 0.0;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_world_options_check(&o, &why), LUCID_ERR_ARGUMENT);
    assert_non_null(strstr(why, "dt"));
    /* the table's rules: NaN is not finite, a special value is accepted, others named */
    o.dt = NAN;
    assert_int_equal(lucid_world_options_check(&o, &why), LUCID_ERR_NONFINITE);
    assert_string_equal(why, "dt must be > 0");
    lucid_world_default_options(&o);
    o.correction_speed = -1.0, o.sparse_threshold = -1;
    assert_int_equal(lucid_world_options_check(&o, &why), LUCID_OK);
    o.correction_speed = -0.5;
    assert_int_equal(lucid_world_options_check(&o, &why), LUCID_ERR_ARGUMENT);
    assert_string_equal(why, "correction_speed must be >= 0 (or -1: sqrt(2 g_n slop))");
    o.correction_speed = -1.0, o.patch_points = 17;
    assert_int_equal(lucid_world_options_check(&o, &why), LUCID_ERR_ARGUMENT);
    assert_string_equal(why, "patch_points must be an integer in [1, 16]");
    o.patch_points = 4, o.collision = 2;
    assert_int_equal(lucid_world_options_check(&o, &why), LUCID_ERR_ARGUMENT);
    assert_non_null(strstr(why, "collision must be"));
    lucid_world_default_options(&o); /* the contact options' table, C-only fields included */
    o.contact.relaxation = 2.0;
    assert_int_equal(lucid_world_options_check(&o, &why), LUCID_ERR_ARGUMENT);
    assert_string_equal(why, "contact relaxation must be in (0, 2)");
    o.contact.relaxation = 0.8, o.contact.rho_ratio = 1.0;
    assert_int_equal(lucid_world_options_check(&o, &why), LUCID_ERR_ARGUMENT);
    assert_string_equal(why, "contact rho_ratio must be > 1");
    lucid_world_default_options(&o);
    o.contact.model = LUCID_CONTACT_LCP, o.contact.solver = LUCID_CONTACT_ADMM;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_world_create(NULL, &w), LUCID_OK);
    lucid_body_part part = {{0}, lucid_se3_identity()};
    lucid_shape_box(0.1, 0.1, 0.1, &part.shape);
    lucid_body_desc d;
    lucid_body_desc_default(&d);
    d.parts = &part, d.num_parts = 1;
    int id;
    d.has_mass = 1, d.mass = -1.0;
    assert_int_equal(lucid_world_add_body(w, &d, &id, &why), LUCID_ERR_ARGUMENT);
    assert_non_null(strstr(why, "mass"));
    d.mass = 1.0, d.has_inertia = 1;
    d.inertia = lucid_mat3_diag(lucid_vec3_make(1, -1, 1));
    assert_int_equal(lucid_world_add_body(w, &d, &id, &why), LUCID_ERR_ARGUMENT);
    assert_non_null(strstr(why, "inertia"));
    d.inertia = lucid_mat3_identity(), d.inertia.m[1] = 0.5; /* not symmetric */
    assert_int_equal(lucid_world_add_body(w, &d, &id, &why), LUCID_ERR_ARGUMENT);
    d.has_inertia = 0;
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0, &part.shape);
    assert_int_equal(lucid_world_add_body(w, &d, &id, &why), LUCID_ERR_ARGUMENT);
    assert_non_null(strstr(why, "halfspace"));
    lucid_shape_box(0.1, 0.1, 0.1, &part.shape);
    d.velocity[2] = NAN;
    assert_int_equal(lucid_world_add_body(w, &d, &id, &why), LUCID_ERR_NONFINITE);
    d.velocity[2] = 0.0;
    assert_int_equal(lucid_world_add_body(w, &d, &id, &why), LUCID_OK);
    assert_int_equal(lucid_world_apply_force(w, id, lucid_vec3_make(NAN, 0, 0), lucid_vec3_zero()),
                     LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_world_apply_force(w, id + 1, lucid_vec3_zero(), lucid_vec3_zero()),
                     LUCID_ERR_ARGUMENT);
    lucid_se3 T = lucid_se3_identity(); /* pose(-1) below leaves it unwritten */
    assert_int_equal(lucid_world_pose(w, -1, &T), LUCID_ERR_ARGUMENT);
    int ground;
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0, &part.shape);
    assert_int_equal(lucid_world_add_static(w, &part, 1, &T, 0.5, &ground, &why), LUCID_OK);
    assert_int_equal(lucid_world_apply_force(w, ground, lucid_vec3_zero(), lucid_vec3_zero()),
                     LUCID_ERR_ARGUMENT);
    lucid_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_free_fall),
        cmocka_unit_test(test_torque_free_rotation),
        cmocka_unit_test(test_tumbling_keeps_energy_and_momentum),
        cmocka_unit_test(test_offset_centre_of_mass),
        cmocka_unit_test(test_mesh_cube_matches_box),
        cmocka_unit_test(test_triangle_mesh_mass_properties),
        cmocka_unit_test(test_primitives_against_meshes),
        cmocka_unit_test(test_composite_parallel_axis),
        cmocka_unit_test(test_given_mass_and_inertia),
        cmocka_unit_test(test_state_reproducibility),
        cmocka_unit_test(test_energy),
        cmocka_unit_test(test_forces_cleared),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
