/* Articulated models in the world (runtime/world/world_model.c): a free-joint model against
 * the same free body, a pendulum against its own dynamics, joint limits, implicit servos and
 * damping, a link resting on the floor, and the state round trip. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/model/dynamics.h"
#include "runtime/model/model.h"
#include "runtime/world/world.h"
#include "runtime/world/world_internal.h" /* lucid_world_clone_into */
#include "tests/c/common/test_model_file.h"

static const double HALF = 0.05; /* box half-extent (m) */
/* Every case runs twice: every island on the dense path (a sparse_threshold no island
 * reaches) and in body space (sparse_threshold 0: the model's slot of nv columns). */
static int path_threshold = 1000000000;
static const double MASS = 2.0;

static lucid_mat3 box_inertia(double m, double h) {
    double I = m * (2.0 * h) * (2.0 * h) / 6.0;
    lucid_mat3 R = lucid_mat3_identity();
    return lucid_mat3_scale(&R, I);
}

static lucid_world *floor_world(double dt) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = dt;
    o.sparse_threshold = path_threshold;
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    lucid_body_part part = {{0}, lucid_se3_identity()};
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0, &part.shape);
    lucid_se3 I = lucid_se3_identity();
    int id;
    assert_int_equal(lucid_world_add_static(w, &part, 1, &I, 0.5, &id, NULL), LUCID_OK);
    return w;
}

/* One body on a free joint with a box geom: the free body of the world as a model. */
static lucid_model *free_box_model(void) {
    lucid_model_spec *spec;
    assert_int_equal(lucid_model_spec_create(NULL, &spec), LUCID_OK);
    lucid_body_spec b = lucid_body_spec_default();
    b.name = "box";
    b.mass = MASS;
    b.inertia = box_inertia(MASS, HALF);
    int body;
    assert_int_equal(lucid_model_spec_add_body(spec, &b, &body), LUCID_OK);
    lucid_joint_spec j = lucid_joint_spec_default(LUCID_JOINT_FREE);
    j.name = "root";
    assert_int_equal(lucid_model_spec_add_joint(spec, body, &j, NULL), LUCID_OK);
    lucid_geom_spec g = lucid_geom_spec_default();
    g.body = body;
    g.friction = 0.5;
    lucid_shape_box(HALF, HALF, HALF, &g.shape);
    assert_int_equal(lucid_model_spec_add_geom(spec, &g, NULL, NULL), LUCID_OK);
    lucid_model *m = NULL;
    char err[256];
    assert_int_equal(lucid_model_compile(spec, &m, err, sizeof err), LUCID_OK);
    lucid_model_spec_destroy(spec);
    return m;
}

/* A box falling flat onto the floor as a free body and as a free-joint model: the same
 * trajectory in free fall (both integrators are exact for a translation), the same rest
 * height, and contact forces that carry the weight. */
static void test_free_joint_model_matches_free_body(void **state) {
    (void)state;
    const double dt = 2e-3, z0 = 0.2;
    lucid_world *wa = floor_world(dt), *wb = floor_world(dt);
    lucid_body_part part = {{0}, lucid_se3_identity()};
    lucid_shape_box(HALF, HALF, HALF, &part.shape);
    lucid_body_desc d;
    lucid_body_desc_default(&d);
    d.parts = &part, d.num_parts = 1;
    d.has_mass = 1, d.mass = MASS;
    d.has_inertia = 1, d.inertia = box_inertia(MASS, HALF);
    d.pose.t = lucid_vec3_make(0, 0, z0);
    int body;
    assert_int_equal(lucid_world_add_body(wa, &d, &body, NULL), LUCID_OK);
    lucid_model *m = free_box_model();
    lucid_world_model_desc md;
    lucid_world_model_desc_default(&md);
    double q[7] = {0, 0, z0, 1, 0, 0, 0};
    md.q = q;
    int id;
    assert_int_equal(lucid_world_add_model(wb, m, &md, &id, NULL), LUCID_OK);
    double max_diff = 0.0;
    for (int k = 0; k < 400; ++k) {
        assert_int_equal(lucid_world_step(wa), LUCID_OK);
        assert_int_equal(lucid_world_step(wb), LUCID_OK);
        lucid_se3 Ta;
        lucid_world_pose(wa, body, &Ta);
        const double *qb = lucid_world_model_q(wb, id);
        if (Ta.t.z > HALF + 0.01) /* free fall */
            max_diff = fmax(max_diff, fabs(Ta.t.z - qb[2]));
    }
    assert_true(max_diff < 1e-12);
    lucid_se3 Ta;
    lucid_world_pose(wa, body, &Ta);
    const double *qb = lucid_world_model_q(wb, id);
    assert_true(fabs(Ta.t.z - qb[2]) < 1e-6);
    assert_true(fabs(qb[0]) < 1e-9 && fabs(qb[1]) < 1e-9);
    /* the contact forces of the model carry its weight */
    double fz = 0.0;
    const lucid_world_contact *c = lucid_world_contacts(wb);
    for (int k = 0; k < lucid_world_contact_count(wb); ++k) fz += c[k].force[2];
    assert_true(fabs(fz - MASS * 9.81) < 1e-6 * MASS * 9.81);
    lucid_world_destroy(wa);
    lucid_world_destroy(wb);
    lucid_model_destroy(m);
}

/* n boxes, each a root body on its own free joint, in one model (n = 1: one box). Anisotropic
 * inertia, so the models' gyroscopic terms are exercised too. */
static lucid_model *free_boxes_model(int n) {
    lucid_model_spec *spec;
    assert_int_equal(lucid_model_spec_create(NULL, &spec), LUCID_OK);
    for (int i = 0; i < n; ++i) {
        lucid_body_spec b = lucid_body_spec_default();
        char name[16];
        snprintf(name, sizeof name, "box%d", i);
        b.name = name;
        b.mass = MASS;
        b.inertia = box_inertia(MASS, HALF);
        b.inertia.m[4] *= 1.5, b.inertia.m[8] *= 0.7;
        int body;
        assert_int_equal(lucid_model_spec_add_body(spec, &b, &body), LUCID_OK);
        lucid_joint_spec j = lucid_joint_spec_default(LUCID_JOINT_FREE);
        assert_int_equal(lucid_model_spec_add_joint(spec, body, &j, NULL), LUCID_OK);
        lucid_geom_spec g = lucid_geom_spec_default();
        g.body = body;
        g.friction = 0.5;
        lucid_shape_box(HALF, HALF, HALF, &g.shape);
        assert_int_equal(lucid_model_spec_add_geom(spec, &g, NULL, NULL), LUCID_OK);
    }
    lucid_model *m = NULL;
    char err[256];
    assert_int_equal(lucid_model_compile(spec, &m, err, sizeof err), LUCID_OK);
    lucid_model_spec_destroy(spec);
    return m;
}

/* Box i of 6: three columns of two, 0.3 m apart, tilted and spinning, dropped onto the floor
 * (q: x, y, z, quaternion; v: the body twist, linear first). */
static void column_box(int i, double q[7], double v[6]) {
    double a = 0.1 * (i + 1), c = cos(0.5 * a), s = sin(0.5 * a);
    double z = HALF + 0.02 + (i % 2) * (2.0 * HALF + 0.03);
    double qi[7] = {0.3 * (i / 2), 0.01 * (i % 2), z, c, s, 0.5 * s, 0};
    double nq = sqrt(c * c + 1.25 * s * s);
    for (int k = 3; k < 7; ++k) qi[k] /= nq;
    double vi[6] = {0.1 * (i % 3), 0, -0.2, 1.0, -0.5 * i, 0.3};
    memcpy(q, qi, sizeof qi), memcpy(v, vi, sizeof vi);
}

/* Six boxes on free joints in one model step as the same six boxes each in a model of its own
 * (a free-joint model steps as a free body: test_free_joint_model_matches_free_body): every
 * box of the model is its own slot and island, and the boxes of one column share an island
 * only while they touch. The same islands, the same problems: the same states to round-off
 * (1e-12 m or m/s over 150 steps of falls, impacts and rests; a shared island, where the
 * solver stops at tol = 1e-6, leaves them ~1e-7 apart). */
static void test_free_boxes_in_one_model_are_separate_islands(void **state) {
    (void)state;
    enum { N = 6, STEPS = 150 };
    const double dt = 2e-3;
    lucid_world *one = floor_world(dt), *many = floor_world(dt);
    lucid_model *all = free_boxes_model(N), *box = free_boxes_model(1);
    double q[7 * N], v[6 * N];
    for (int i = 0; i < N; ++i) column_box(i, q + 7 * i, v + 6 * i);
    lucid_world_model_desc md;
    lucid_world_model_desc_default(&md);
    md.q = q, md.v = v;
    int id;
    assert_int_equal(lucid_world_add_model(one, all, &md, &id, NULL), LUCID_OK);
    for (int i = 0; i < N; ++i) {
        md.q = q + 7 * i, md.v = v + 6 * i;
        assert_int_equal(lucid_world_add_model(many, box, &md, &id, NULL), LUCID_OK);
    }
    int n = lucid_world_state_size(one);
    assert_int_equal(n, lucid_world_state_size(many));
    double *xa = malloc(sizeof(double) * (size_t)n), *xb = malloc(sizeof(double) * (size_t)n);
    assert_non_null(xa), assert_non_null(xb);
    double worst = 0.0;
    int most_islands = 0, stacked = 0;
    for (int k = 0; k < STEPS; ++k) {
        assert_int_equal(lucid_world_step(one), LUCID_OK);
        assert_int_equal(lucid_world_step(many), LUCID_OK);
        lucid_world_stats sa = lucid_world_last_stats(one), sb = lucid_world_last_stats(many);
        assert_int_equal(sa.contacts, sb.contacts);
        assert_int_equal(sa.islands, sb.islands);
        most_islands = sa.islands > most_islands ? sa.islands : most_islands;
        const lucid_world_contact *c = lucid_world_contacts(one);
        for (int i = 0; i < sa.contacts; ++i) /* a contact between two boxes of the model */
            stacked +=
                !lucid_world_is_static(one, c[i].body1) && !lucid_world_is_static(one, c[i].body2);
        lucid_world_get_state(one, xa);
        lucid_world_get_state(many, xb);
        /* both: every box's q, then every box's v (the world's models' state layout) */
        for (int e = 0; e < n; ++e) worst = fmax(worst, fabs(xa[e] - xb[e]));
    }
    printf("%d boxes in one model against %d one-box models, %d steps: largest state "
           "difference %.2e, up to %d islands, %d box-box contacts\n",
           N, N, STEPS, worst, most_islands, stacked);
    assert_true(stacked > 0);           /* the columns' boxes touched ... */
    assert_true(most_islands >= N / 2); /* ... and columns (at least) were islands of their own */
    assert_true(worst <= 1e-12);
    free(xa), free(xb);
    lucid_world_destroy(one), lucid_world_destroy(many);
    lucid_model_destroy(all), lucid_model_destroy(box);
}

/* Two fixed-base arms in one model, 1 m apart, each a gantry (slides along x, y, z in a chain)
 * carrying a box that falls on the floor: M~ is block diagonal over the arms, so they are two
 * slots and two islands while they do not touch each other. */
/* Two arms of three slides each, the tip of each a box (at z = 0.1 + its slide's q). */
static lucid_model *two_arms_model(void) {
    lucid_model_spec *spec;
    assert_int_equal(lucid_model_spec_create(NULL, &spec), LUCID_OK);
    for (int a = 0; a < 2; ++a) {
        int parent = LUCID_MODEL_WORLD;
        for (int k = 0; k < 3; ++k) {
            char name[16];
            snprintf(name, sizeof name, "arm%d_%d", a, k);
            lucid_body_spec b = lucid_body_spec_default();
            b.name = name;
            b.parent = parent;
            b.placement.t = k == 0 ? lucid_vec3_make(1.0 * a, 0, 0.3) : lucid_vec3_make(0, 0, -0.1);
            b.mass = 1.0;
            b.inertia = box_inertia(1.0, HALF);
            assert_int_equal(lucid_model_spec_add_body(spec, &b, &parent), LUCID_OK);
            lucid_joint_spec j = lucid_joint_spec_default(LUCID_JOINT_PRISMATIC);
            j.axis = lucid_vec3_make(k == 0, k == 1, k == 2);
            assert_int_equal(lucid_model_spec_add_joint(spec, parent, &j, NULL), LUCID_OK);
        }
        lucid_geom_spec g = lucid_geom_spec_default();
        g.body = parent; /* the tip, at z = 0.1 + its slide's q */
        lucid_shape_box(HALF, HALF, HALF, &g.shape);
        assert_int_equal(lucid_model_spec_add_geom(spec, &g, NULL, NULL), LUCID_OK);
    }
    lucid_model *m = NULL;
    char err[256];
    assert_int_equal(lucid_model_compile(spec, &m, err, sizeof err), LUCID_OK);
    lucid_model_spec_destroy(spec);
    return m;
}

static void test_separate_arms_are_separate_islands(void **state) {
    (void)state;
    lucid_model *m = two_arms_model();
    lucid_world *w = floor_world(2e-3);
    lucid_world_model_desc md;
    lucid_world_model_desc_default(&md);
    int id;
    assert_int_equal(lucid_world_add_model(w, m, &md, &id, NULL), LUCID_OK);
    lucid_world_stats st = {0};
    for (int k = 0; k < 300; ++k) {
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        st = lucid_world_last_stats(w);
    }
    /* both boxes rest on the floor (their centres at HALF), each arm its own island */
    const double *q = lucid_world_model_q(w, id);
    printf("two arms on the floor: %d contacts, %d islands, tips at %.4f and %.4f m\n", st.contacts,
           st.islands, 0.1 + q[2], 0.1 + q[5]);
    assert_true(st.contacts >= 2);
    assert_int_equal(st.islands, 2);
    assert_true(fabs(0.1 + q[2] - HALF) < 1e-3 && fabs(0.1 + q[5] - HALF) < 1e-3);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
}

/* A pendulum: a point-like mass on a massless rod, hinged about world y at height H. */
static lucid_model *pendulum(double length, double mass, int limited, double lower, double damping,
                             int servo, double kp) {
    lucid_model_spec *spec;
    assert_int_equal(lucid_model_spec_create(NULL, &spec), LUCID_OK);
    lucid_body_spec b = lucid_body_spec_default();
    b.name = "bob";
    b.placement.t = lucid_vec3_make(0, 0, 1.0);
    b.mass = mass;
    b.com = lucid_vec3_make(length, 0, 0);
    lucid_mat3 I = lucid_mat3_identity();
    b.inertia = lucid_mat3_scale(&I, 1e-6 * mass);
    int body;
    assert_int_equal(lucid_model_spec_add_body(spec, &b, &body), LUCID_OK);
    lucid_joint_spec j = lucid_joint_spec_default(LUCID_JOINT_REVOLUTE);
    j.name = "hinge";
    j.axis = lucid_vec3_make(0, 1, 0);
    j.limited = limited, j.lower = lower, j.upper = 10.0;
    j.damping = damping;
    int joint;
    assert_int_equal(lucid_model_spec_add_joint(spec, body, &j, &joint), LUCID_OK);
    if (servo) {
        lucid_actuator_spec a = lucid_actuator_spec_default();
        a.name = "servo";
        a.kind = LUCID_ACTUATOR_POSITION;
        a.joint = joint;
        a.kp = kp;
        assert_int_equal(lucid_model_spec_add_actuator(spec, &a, NULL), LUCID_OK);
    }
    lucid_model *m = NULL;
    char err[256];
    assert_int_equal(lucid_model_compile(spec, &m, err, sizeof err), LUCID_OK);
    lucid_model_spec_destroy(spec);
    return m;
}

static lucid_world *empty_world(double dt) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = dt;
    o.sparse_threshold = path_threshold;
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    return w;
}

/* The energy-jump guard's energy after a step (the kinematics the integration left, not
 * recomputed) is the energy recomputed from the new state, bit for bit, on arms that fall,
 * land and slide. */
static void test_energy_after_step_is_recomputed_energy(void **state) {
    (void)state;
    lucid_model *m = two_arms_model();
    lucid_world *w = floor_world(2e-3);
    lucid_world_model_desc md;
    lucid_world_model_desc_default(&md);
    int id;
    assert_int_equal(lucid_world_add_model(w, m, &md, &id, NULL), LUCID_OK);
    for (int k = 0; k < 150; ++k) {
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        lucid_world_energy a = lucid_world_energy_after_integrate(w), e = lucid_world_energy_of(w);
        assert_true(a.kinetic == e.kinetic && a.potential == e.potential);
    }
    lucid_world_destroy(w);
    lucid_model_destroy(m);
}

/* Without contacts or damping the world's step is semi-implicit Euler on the model's ABA: the
 * same velocity update to rounding, and an energy error that stays bounded and shrinks with
 * dt (first order). */
static void test_pendulum_follows_aba(void **state) {
    (void)state;
    lucid_model *m = pendulum(0.5, 1.0, 0, 0, 0, 0, 0);
    lucid_model_data *d;
    assert_int_equal(lucid_model_data_create(m, &d), LUCID_OK);
    double drift[2];
    for (int r = 0; r < 2; ++r) {
        double dt = r ? 5e-4 : 1e-3;
        lucid_world *w = empty_world(dt);
        lucid_world_model_desc md;
        lucid_world_model_desc_default(&md);
        double q0 = 1.0;
        md.q = &q0;
        int id;
        assert_int_equal(lucid_world_add_model(w, m, &md, &id, NULL), LUCID_OK);
        lucid_world_energy e0 = lucid_world_energy_of(w);
        double worst = 0.0;
        for (int k = 0; k < (int)(2.0 / dt); ++k) {
            double q = lucid_world_model_q(w, id)[0], v = lucid_world_model_v(w, id)[0], tau = 0, a;
            lucid_model_aba(m, d, &q, &v, &tau, &a);
            assert_int_equal(lucid_world_step(w), LUCID_OK);
            double v1 = lucid_world_model_v(w, id)[0];
            assert_true(fabs(v1 - (v + dt * a)) < 1e-12 * (1.0 + fabs(v1)));
            assert_true(fabs(lucid_world_model_q(w, id)[0] - (q + dt * v1)) < 1e-14);
            lucid_world_energy e = lucid_world_energy_of(w);
            worst = fmax(worst, fabs(e.kinetic + e.potential - e0.kinetic - e0.potential));
        }
        drift[r] = worst;
        lucid_world_destroy(w);
    }
    /* first order: halving dt halves the energy error (within 20%) */
    assert_true(drift[0] < 0.05);
    assert_true(drift[1] < 0.6 * drift[0] && drift[1] > 0.4 * drift[0]);
    lucid_model_data_destroy(d);
    lucid_model_destroy(m);
}

/* A pendulum whose gravity drives it onto its lower limit (the model turned half a turn
 * about x, so the hinge axis is -y and positive q lifts the bob) falls from q = 0.2 onto the
 * limit at -0.3 and rests there, the limit's force balancing gravity's torque m g L cos q.
 * The turned model's own gravity points up: the world's replaces it. */
static void test_joint_limit_holds(void **state) {
    (void)state;
    lucid_model *m = pendulum(0.5, 1.0, 1, -0.3, 0, 0, 0);
    lucid_world *w = empty_world(1e-3);
    lucid_world_model_desc md;
    lucid_world_model_desc_default(&md);
    md.pose.R = lucid_mat3_from_cols(lucid_vec3_make(1, 0, 0), lucid_vec3_make(0, -1, 0),
                                     lucid_vec3_make(0, 0, -1));
    double q0 = 0.2;
    md.q = &q0;
    int id;
    assert_int_equal(lucid_world_add_model(w, m, &md, &id, NULL), LUCID_OK);
    for (int k = 0; k < 2000; ++k) assert_int_equal(lucid_world_step(w), LUCID_OK);
    double q = lucid_world_model_q(w, id)[0], v = lucid_world_model_v(w, id)[0];
    assert_true(q > -0.3 - 2e-4 && q < -0.3 + 1e-3);
    assert_true(fabs(v) < 1e-6);
    int limits = 0;
    const lucid_world_contact *c = lucid_world_contacts(w);
    for (int k = 0; k < lucid_world_contact_count(w); ++k)
        if (c[k].limit_sign != 0) {
            ++limits;
            /* gravity torque at q: m g L cos(q) */
            double torque = 1.0 * 9.81 * 0.5 * cos(q);
            assert_true(fabs(c[k].force[2] - torque) < 1e-6 * torque);
        }
    assert_int_equal(limits, 1);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
}

/* A position servo with kp dt^2 far above the inertia stays stable (implicit), and holds the
 * target against gravity with the static error m g L cos(q) / kp (explicit Euler would
 * diverge at once: kp dt^2 / (m L^2) = 400). */
static void test_stiff_servo_is_stable(void **state) {
    (void)state;
    const double kp = 1e5, dt = 1e-2;
    lucid_model *m = pendulum(0.5, 0.1, 0, 0, 50.0, 1, kp); /* kp dt^2 = 10 >> m L^2 = .025 */
    lucid_world *w = empty_world(dt);
    lucid_world_model_desc md;
    lucid_world_model_desc_default(&md);
    int id;
    assert_int_equal(lucid_world_add_model(w, m, &md, &id, NULL), LUCID_OK);
    double target = 0.7;
    assert_int_equal(lucid_world_model_set_control(w, id, &target, NULL), LUCID_OK);
    for (int k = 0; k < 500; ++k) assert_int_equal(lucid_world_step(w), LUCID_OK);
    double q = lucid_world_model_q(w, id)[0];
    /* gravity turns the hinge toward +q (rotation about +y lowers the bob at +x) */
    double expected = target + 0.1 * 9.81 * 0.5 * cos(q) / kp;
    assert_true(fabs(q - expected) < 1e-9);
    assert_true(fabs(lucid_world_model_v(w, id)[0]) < 1e-9);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
}

/* set_state then n steps reproduces the same trajectory bit for bit, models included. */
static void test_state_round_trip(void **state) {
    (void)state;
    lucid_world *w = floor_world(2e-3);
    lucid_model *m = free_box_model();
    lucid_world_model_desc md;
    lucid_world_model_desc_default(&md);
    double q[7] = {0.01, 0, 0.08, cos(0.2), sin(0.2), 0, 0};
    md.q = q;
    int id;
    assert_int_equal(lucid_world_add_model(w, m, &md, &id, NULL), LUCID_OK);
    lucid_model *p = pendulum(0.3, 1.0, 1, -1.0, 0.1, 0, 0);
    md.q = NULL;
    md.pose.t = lucid_vec3_make(1, 0, 0);
    int pid;
    assert_int_equal(lucid_world_add_model(w, p, &md, &pid, NULL), LUCID_OK);
    int n = lucid_world_state_size(w);
    assert_int_equal(n, 7 + 6 + 1 + 1); /* the floor is static: not in the state */
    double *x0 = malloc(sizeof(double) * (size_t)n), *x1 = malloc(sizeof(double) * (size_t)n),
           *x2 = malloc(sizeof(double) * (size_t)n);
    for (int k = 0; k < 30; ++k) assert_int_equal(lucid_world_step(w), LUCID_OK);
    lucid_world_get_state(w, x0);
    assert_int_equal(lucid_world_set_state(w, x0, NULL), LUCID_OK);
    for (int k = 0; k < 50; ++k) assert_int_equal(lucid_world_step(w), LUCID_OK);
    lucid_world_get_state(w, x1);
    assert_int_equal(lucid_world_set_state(w, x0, NULL), LUCID_OK);
    for (int k = 0; k < 50; ++k) assert_int_equal(lucid_world_step(w), LUCID_OK);
    lucid_world_get_state(w, x2);
    assert_memory_equal(x1, x2, sizeof(double) * (size_t)n);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
    lucid_model_destroy(p);
    free(x0), free(x1), free(x2);
}

/* The step sensors read the last step (the model's stepped flag with its q_start, v_start):
 * a clone and a synced copy (lucid_world_clone, _clone_into) give the same values bit for bit,
 * and NaN once the state is set (no step behind it). */
static void test_step_sensors_follow_copies(void **state) {
    (void)state;
    lucid_model *m = test_load_model(LUCID_SOURCE_DIR "/tests/data/model/mjcf_step_sensors.xml");
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = lucid_model_timestep(m);
    lucid_world *w = NULL, *c = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    lucid_world_model_desc md;
    lucid_world_model_desc_default(&md);
    int id;
    assert_int_equal(lucid_world_add_model(w, m, &md, &id, NULL), LUCID_OK);
    const double u[3] = {0.5, -1.0, 0.3};
    assert_int_equal(lucid_world_model_set_control(w, id, u, NULL), LUCID_OK);
    size_t n = lucid_model_nsensordata(m);
    double *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    double *x = calloc((size_t)lucid_world_state_size(w), sizeof *x);
    assert_true(a && b && x);
    for (int k = 0; k < 20; ++k) assert_int_equal(lucid_world_step(w), LUCID_OK);
    for (int copy = 0; copy < 2; ++copy) { /* a clone, then the sync of clone_into */
        if (copy == 1) assert_int_equal(lucid_world_step(w), LUCID_OK);
        lucid_status st = copy ? lucid_world_clone_into(w, &c) : lucid_world_clone(w, &c);
        assert_int_equal(st, LUCID_OK);
        assert_int_equal(lucid_world_model_sensors(w, id, a), LUCID_OK);
        assert_int_equal(lucid_world_model_sensors(c, id, b), LUCID_OK);
        for (size_t i = 0; i < n; ++i) assert_true(isfinite(a[i]));
        assert_memory_equal(a, b, n * sizeof *a);
    }
    lucid_world_get_state(w, x);
    assert_int_equal(lucid_world_set_state(w, x, NULL), LUCID_OK);
    assert_int_equal(lucid_world_clone_into(w, &c), LUCID_OK);
    assert_int_equal(lucid_world_model_sensors(c, id, b), LUCID_OK);
    assert_true(isfinite(b[0]) && isnan(b[1])); /* jointpos; the accelerometer a_tip */
    lucid_world_destroy(c);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
    free(a), free(b), free(x);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_free_joint_model_matches_free_body),
        cmocka_unit_test(test_free_boxes_in_one_model_are_separate_islands),
        cmocka_unit_test(test_separate_arms_are_separate_islands),
        cmocka_unit_test(test_energy_after_step_is_recomputed_energy),
        cmocka_unit_test(test_pendulum_follows_aba),
        cmocka_unit_test(test_joint_limit_holds),
        cmocka_unit_test(test_stiff_servo_is_stable),
        cmocka_unit_test(test_state_round_trip),
        cmocka_unit_test(test_step_sensors_follow_copies),
    };
    int failed = cmocka_run_group_tests_name("dense path", tests, NULL, NULL);
    path_threshold = 0;
    return failed + cmocka_run_group_tests_name("body space", tests, NULL, NULL);
}
