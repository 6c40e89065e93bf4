/* lucid_model_compile: every invalid spec is refused with a message naming the element (as
 * source:line when the spec has a source), welded bodies merge into their parent and stay
 * frames, several joints on one body equal an explicit chain of massless bodies, and the
 * model takes over the spec's convex meshes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/math/so3.h"
#include "runtime/shapes/convex_mesh.h"
#include "tests/c/common/test_assert.h"
#include "tests/c/common/test_model_util.h"

/* A two-body arm: "upper" on a hinge about y at the origin, "lower" on a hinge 0.5 below. */
static lucid_model_spec *arm_spec(const char *source) {
    lucid_model_spec *s;
    assert_int_equal(lucid_model_spec_create(source, &s), LUCID_OK);
    const char *names[2] = {"upper", "lower"};
    for (int k = 0; k < 2; ++k) {
        lucid_body_spec b = lucid_body_spec_default();
        b.name = names[k];
        b.parent = k - 1;
        b.placement.t = lucid_vec3_make(0, 0, k ? -0.5 : 0.0);
        b.mass = 1.0;
        b.com = lucid_vec3_make(0, 0, -0.25);
        b.inertia = lucid_mat3_diag(lucid_vec3_make(0.02, 0.02, 0.001));
        b.line = 10 + k;
        int idx;
        assert_int_equal(lucid_model_spec_add_body(s, &b, &idx), LUCID_OK);
        lucid_joint_spec j = lucid_joint_spec_default(LUCID_JOINT_REVOLUTE);
        j.name = k ? "elbow" : "shoulder";
        j.axis = lucid_vec3_make(0, 1, 0);
        j.line = 20 + k;
        assert_int_equal(lucid_model_spec_add_joint(s, idx, &j, NULL), LUCID_OK);
    }
    return s;
}

/* Compiles s, expecting failure with status st and a message containing `want`. */
static void expect_error(lucid_model_spec *s, lucid_status st, const char *want) {
    lucid_model *m = (lucid_model *)1;
    char err[512];
    lucid_status got = lucid_model_compile(s, &m, err, sizeof err);
    if (got != st || !strstr(err, want)) {
        print_error("status %d (want %d), message '%s' (want '%s')\n", got, st, err, want);
        fail();
    }
    assert_null(m);
    lucid_model_spec_destroy(s);
}

static void valid_arm_compiles(void **state) {
    (void)state;
    lucid_model_spec *s = arm_spec("arm.xml");
    lucid_model *m = NULL;
    char err[256];
    assert_int_equal(lucid_model_compile(s, &m, err, sizeof err), LUCID_OK);
    assert_string_equal(err, "");
    assert_int_equal(lucid_model_nq(m), 2);
    assert_int_equal(lucid_model_nv(m), 2);
    assert_int_equal(lucid_model_nbodies(m), 2);
    assert_int_equal(lucid_model_njoints(m), 2);
    assert_string_equal(lucid_model_joint_name(m, 1), "elbow");
    assert_int_equal(lucid_model_body_parent(m, 1), 0);
    assert_int_equal(lucid_model_find_frame(m, "lower"), 1);
    assert_close(lucid_model_total_mass(m), 2.0, 0.0);
    lucid_model_destroy(m);
    lucid_model_spec_destroy(s);
}

static void errors_carry_source_and_line(void **state) {
    (void)state;
    lucid_model_spec *s = arm_spec("arm.xml");
    s->bodies[1].inertia.m[0] = -1.0;
    expect_error(s, LUCID_ERR_NOT_SPD,
                 "arm.xml:11: body 'lower': inertia is not positive definite");
    s = arm_spec(NULL);
    s->bodies[1].inertia.m[1] = 0.5; /* not symmetric */
    expect_error(s, LUCID_ERR_NOT_SPD, "body 'lower': inertia is not symmetric");
    s = arm_spec("arm.xml");
    s->joints[0].axis = lucid_vec3_zero();
    expect_error(s, LUCID_ERR_ARGUMENT,
                 "arm.xml:20: joint 'shoulder': axis (0, 0, 0) cannot be normalised");
    s = arm_spec("arm.xml");
    s->joints[1].axis.y = NAN;
    expect_error(s, LUCID_ERR_NONFINITE, "arm.xml:21: joint 'elbow': a value is not finite");
    s = arm_spec("arm.xml");
    s->bodies[0].mass = INFINITY;
    expect_error(s, LUCID_ERR_NONFINITE, "arm.xml:10: body 'upper'");
    s = arm_spec("arm.xml");
    s->joints[1].limited = 1, s->joints[1].lower = 1.0, s->joints[1].upper = -1.0;
    expect_error(s, LUCID_ERR_ARGUMENT,
                 "arm.xml:21: joint 'elbow': lower limit 1 is above upper limit -1");
    s = arm_spec("arm.xml");
    s->bodies[1].placement.R.m[0] = 2.0;
    expect_error(s, LUCID_ERR_ARGUMENT,
                 "arm.xml:11: body 'lower': placement rotation is not a rotation matrix");
    s = arm_spec("arm.xml");
    s->timestep = 0.0;
    expect_error(s, LUCID_ERR_ARGUMENT, "timestep must be finite and > 0");
}

/* A mimic joint keeps its own dof; the model stores its target, multiplier and offset, and
 * refuses a target that is unknown, itself or not a 1-dof joint, by name. */
static void mimic_joints_are_stored(void **state) {
    (void)state;
    lucid_model_spec *s = arm_spec("hand.urdf");
    s->joints[1].mimic = strdup("shoulder");
    s->joints[1].mimic_multiplier = -2.0;
    s->joints[1].mimic_offset = 0.25;
    s->joints[0].frictionloss = 0.75;
    lucid_model *m = NULL;
    char err[256];
    assert_int_equal(lucid_model_compile(s, &m, err, sizeof err), LUCID_OK);
    double mult = 0.0, offset = 0.0;
    int elbow = lucid_model_find_joint(m, "elbow"),
        shoulder = lucid_model_find_joint(m, "shoulder");
    assert_int_equal(lucid_model_nv(m), 2);
    assert_int_equal(lucid_model_joint_mimic(m, (size_t)elbow, &mult, &offset), shoulder);
    assert_true(mult == -2.0 && offset == 0.25);
    assert_int_equal(lucid_model_joint_mimic(m, (size_t)shoulder, NULL, NULL), -1);
    assert_true(lucid_model_frictionloss(m)[lucid_model_joint_idx_v(m, (size_t)shoulder)] == 0.75);
    assert_true(lucid_model_frictionloss(m)[lucid_model_joint_idx_v(m, (size_t)elbow)] == 0.0);
    lucid_model_destroy(m);
    lucid_model_spec_destroy(s);
    s = arm_spec("hand.urdf");
    s->joints[1].mimic = strdup("wrist");
    expect_error(s, LUCID_ERR_ARGUMENT,
                 "hand.urdf:21: joint 'elbow': mimic: 'wrist' is not a joint of the model");
    s = arm_spec("hand.urdf");
    s->joints[1].mimic = strdup("elbow");
    expect_error(s, LUCID_ERR_ARGUMENT,
                 "hand.urdf:21: joint 'elbow': mimic: 'elbow' is the joint itself");
    s = arm_spec("hand.urdf");
    s->joints[0].frictionloss = -1.0;
    expect_error(s, LUCID_ERR_ARGUMENT,
                 "hand.urdf:20: joint 'shoulder': frictionloss must be >= 0");
}

static void massless_leaf_is_refused(void **state) {
    (void)state;
    lucid_model_spec *s = arm_spec("arm.xml");
    s->bodies[1].mass = 0.0;
    s->bodies[1].inertia = lucid_mat3_zero();
    expect_error(s, LUCID_ERR_SINGULAR, "arm.xml:21: joint 'elbow': moves no mass");
    /* with armature the dof has inertia: accepted */
    s = arm_spec("arm.xml");
    s->bodies[1].mass = 0.0;
    s->bodies[1].inertia = lucid_mat3_zero();
    s->joints[1].armature = 0.1;
    lucid_model *m = NULL;
    assert_int_equal(lucid_model_compile(s, &m, NULL, 0), LUCID_OK);
    lucid_model_destroy(m);
    lucid_model_spec_destroy(s);
    /* a massless intermediate body carrying a massive one: accepted */
    s = arm_spec("arm.xml");
    s->bodies[0].mass = 0.0;
    s->bodies[0].inertia = lucid_mat3_zero();
    assert_int_equal(lucid_model_compile(s, &m, NULL, 0), LUCID_OK);
    lucid_model_destroy(m);
    lucid_model_spec_destroy(s);
}

/* Two coaxial hinges on one body: M is singular whatever the masses. */
static void redundant_joints_are_refused(void **state) {
    (void)state;
    lucid_model_spec *s = arm_spec("arm.xml");
    lucid_joint_spec j = lucid_joint_spec_default(LUCID_JOINT_REVOLUTE);
    j.name = "elbow2";
    j.axis = lucid_vec3_make(0, 2, 0);
    j.line = 30;
    assert_int_equal(lucid_model_spec_add_joint(s, 1, &j, NULL), LUCID_OK);
    expect_error(s, LUCID_ERR_SINGULAR, "arm.xml:21: joint 'elbow': the mass matrix is singular");
}

static void duplicate_names_are_refused(void **state) {
    (void)state;
    lucid_model_spec *s = arm_spec("arm.xml");
    free((char *)s->joints[1].name);
    s->joints[1].name = strdup("shoulder");
    expect_error(s, LUCID_ERR_ARGUMENT, "joint 'shoulder': the name is used twice");
}

static void actuators_and_geoms_are_checked(void **state) {
    (void)state;
    lucid_model_spec *s = arm_spec("arm.xml");
    lucid_joint_spec ball = lucid_joint_spec_default(LUCID_JOINT_SPHERICAL);
    ball.name = "wrist";
    lucid_body_spec hand = lucid_body_spec_default();
    hand.name = "hand", hand.parent = 1, hand.mass = 0.3;
    hand.inertia = lucid_mat3_diag(lucid_vec3_make(1e-3, 1e-3, 1e-3));
    int ih, iw;
    assert_int_equal(lucid_model_spec_add_body(s, &hand, &ih), LUCID_OK);
    assert_int_equal(lucid_model_spec_add_joint(s, ih, &ball, &iw), LUCID_OK);
    lucid_actuator_spec a = lucid_actuator_spec_default();
    a.name = "wrist_motor", a.joint = iw, a.line = 40;
    assert_int_equal(lucid_model_spec_add_actuator(s, &a, NULL), LUCID_OK);
    expect_error(
        s, LUCID_ERR_ARGUMENT,
        "arm.xml:40: actuator 'wrist_motor': acts on joint 'wrist', which is not revolute");
    s = arm_spec("arm.xml");
    a = lucid_actuator_spec_default();
    a.name = "servo", a.joint = 1, a.kind = LUCID_ACTUATOR_POSITION, a.kp = 0.0, a.line = 41;
    assert_int_equal(lucid_model_spec_add_actuator(s, &a, NULL), LUCID_OK);
    expect_error(s, LUCID_ERR_ARGUMENT,
                 "arm.xml:41: actuator 'servo': a position servo needs kp > 0");
    s = arm_spec("arm.xml");
    lucid_geom_spec g = lucid_geom_spec_default();
    g.name = "floor", g.body = 1, g.line = 50;
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0, &g.shape), LUCID_OK);
    assert_int_equal(lucid_model_spec_add_geom(s, &g, NULL, NULL), LUCID_OK);
    expect_error(s, LUCID_ERR_ARGUMENT,
                 "arm.xml:50: geom 'floor': a plane (halfspace) must be static");
    s = arm_spec("arm.xml");
    g = lucid_geom_spec_default();
    g.name = "ball", g.body = 0, g.line = 51, g.friction = -1;
    assert_int_equal(lucid_shape_sphere(0.1, &g.shape), LUCID_OK);
    assert_int_equal(lucid_model_spec_add_geom(s, &g, NULL, NULL), LUCID_OK);
    expect_error(s, LUCID_ERR_ARGUMENT,
                 "arm.xml:51: geom 'ball': friction must be finite and >= 0");
    s = arm_spec("arm.xml");
    g = lucid_geom_spec_default();
    g.name = "bad", g.body = 0, g.line = 52;
    g.shape.kind = LUCID_SHAPE_SPHERE, g.shape.radius = -1.0;
    assert_int_equal(lucid_model_spec_add_geom(s, &g, NULL, NULL), LUCID_OK);
    expect_error(s, LUCID_ERR_ARGUMENT, "arm.xml:52: geom 'bad': invalid sphere shape");
}

/* A tendon over joints j (n of them, coefficient 1 each) and its values, added to s. */
static void add_tendon(lucid_model_spec *s, const int *j, size_t n, lucid_tendon_spec t) {
    double coef[4] = {1.0, 1.0, 1.0, 1.0};
    t.name = "t", t.line = 60, t.n = n, t.joints = (int *)j, t.coef = coef;
    assert_int_equal(lucid_model_spec_add_tendon(s, &t, NULL), LUCID_OK);
}

/* Fixed tendons: a joint twice, a ball joint, a negative stiffness and an inverted range are
 * refused naming the tendon; a valid one compiles with its spring length at the springrefs. */
static void tendons_are_checked(void **state) {
    (void)state;
    const int both[2] = {0, 1}, twice[2] = {1, 1};
    lucid_model_spec *s = arm_spec("arm.xml");
    add_tendon(s, twice, 2, lucid_tendon_spec_default());
    expect_error(s, LUCID_ERR_ARGUMENT, "arm.xml:60: tendon 't': joint 'elbow' appears twice");
    s = arm_spec("arm.xml");
    lucid_tendon_spec t = lucid_tendon_spec_default();
    t.stiffness = -1.0;
    add_tendon(s, both, 2, t);
    expect_error(s, LUCID_ERR_ARGUMENT,
                 "arm.xml:60: tendon 't': stiffness must be finite and >= 0");
    s = arm_spec("arm.xml");
    t = lucid_tendon_spec_default();
    t.limited = 1, t.lower = 1.0, t.upper = -1.0;
    add_tendon(s, both, 2, t);
    expect_error(s, LUCID_ERR_ARGUMENT, "arm.xml:60: tendon 't': range [1, -1] must be finite");
    s = arm_spec("arm.xml");
    lucid_joint_spec ball = lucid_joint_spec_default(LUCID_JOINT_SPHERICAL);
    ball.name = "wrist";
    lucid_body_spec hand = lucid_body_spec_default();
    hand.name = "hand", hand.parent = 1, hand.mass = 0.3;
    hand.inertia = lucid_mat3_diag(lucid_vec3_make(1e-3, 1e-3, 1e-3));
    int ih, iw;
    assert_int_equal(lucid_model_spec_add_body(s, &hand, &ih), LUCID_OK);
    assert_int_equal(lucid_model_spec_add_joint(s, ih, &ball, &iw), LUCID_OK);
    const int with_ball[2] = {0, iw};
    add_tendon(s, with_ball, 2, lucid_tendon_spec_default());
    expect_error(s, LUCID_ERR_ARGUMENT,
                 "arm.xml:60: tendon 't': joint 'wrist' is not a hinge or slide joint");
    s = arm_spec("arm.xml");
    s->joints[0].springref = 0.25, s->joints[1].springref = -0.5;
    add_tendon(s, both, 2, lucid_tendon_spec_default());
    lucid_model *m = NULL;
    char err[256];
    assert_int_equal(lucid_model_compile(s, &m, err, sizeof err), LUCID_OK);
    assert_int_equal((int)lucid_model_ntendons(m), 1);
    assert_true(lucid_model_tendons(m)[0].springlength == 0.25 - 0.5);
    lucid_model_destroy(m);
    lucid_model_spec_destroy(s);
}

/* A welded body's mass moves its parent's inertia, its geoms join the parent, and it stays a
 * frame placed where it was; the dynamics equal those of one body with the merged inertia. */
static void welded_bodies_merge_into_their_parent(void **state) {
    (void)state;
    lucid_model_spec *s = arm_spec("arm.xml");
    lucid_body_spec tool = lucid_body_spec_default();
    tool.name = "tool", tool.parent = 1, tool.mass = 0.5;
    tool.placement.t = lucid_vec3_make(0.1, 0, -0.5);
    tool.inertia = lucid_mat3_diag(lucid_vec3_make(1e-3, 2e-3, 3e-3));
    int it;
    assert_int_equal(lucid_model_spec_add_body(s, &tool, &it), LUCID_OK);
    lucid_geom_spec g = lucid_geom_spec_default();
    g.body = it;
    assert_int_equal(lucid_shape_sphere(0.05, &g.shape), LUCID_OK);
    assert_int_equal(lucid_model_spec_add_geom(s, &g, NULL, NULL), LUCID_OK);
    lucid_model *m = NULL;
    assert_int_equal(lucid_model_compile(s, &m, NULL, 0), LUCID_OK);
    lucid_model_spec_destroy(s);
    assert_int_equal(lucid_model_nbodies(m), 2);
    assert_close(lucid_model_body_mass(m, 1), 1.5, 1e-15);
    size_t first, count;
    lucid_model_body_geoms(m, 1, &first, &count);
    assert_int_equal(count, 1);
    assert_int_equal(lucid_model_geoms(m)[first].body, 1);
    int f = lucid_model_find_frame(m, "tool");
    assert_true(f >= 0);
    assert_int_equal(lucid_model_frame_kind(m, (size_t)f), LUCID_FRAME_FIXED);
    /* the merged model against one with the tool's mass folded in by hand */
    lucid_model_spec *s2 = arm_spec("arm.xml");
    lucid_body_spec *lo = &s2->bodies[1];
    lucid_vec3 c1 = lo->com, c2 = tool.placement.t;
    lucid_vec3 c = lucid_vec3_scale(lucid_vec3_add(c1, lucid_vec3_scale(c2, 0.5)), 1.0 / 1.5);
    lucid_mat3 I = lucid_mat3_add(&lo->inertia, &tool.inertia);
    lucid_vec3 r1 = lucid_vec3_sub(c1, c), r2 = lucid_vec3_sub(c2, c);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double d = i == j;
            I.m[i + 3 * j] +=
                1.0 * (lucid_vec3_norm2(r1) * d - lucid_vec3_get(r1, i) * lucid_vec3_get(r1, j)) +
                0.5 * (lucid_vec3_norm2(r2) * d - lucid_vec3_get(r2, i) * lucid_vec3_get(r2, j));
        }
    lo->mass = 1.5, lo->com = c, lo->inertia = I;
    lucid_model *m2 = NULL;
    assert_int_equal(lucid_model_compile(s2, &m2, NULL, 0), LUCID_OK);
    lucid_model_spec_destroy(s2);
    lucid_model_data *d, *d2;
    assert_int_equal(lucid_model_data_create(m, &d), LUCID_OK);
    assert_int_equal(lucid_model_data_create(m2, &d2), LUCID_OK);
    double q[2] = {0.3, -0.7}, v[2] = {1.0, 2.0}, b[2], b2[2];
    lucid_model_crba(m, d, q);
    lucid_model_crba(m2, d2, q);
    for (int k = 0; k < 4; ++k)
        assert_close(lucid_model_data_mass_matrix(d)[k], lucid_model_data_mass_matrix(d2)[k],
                     1e-13);
    lucid_model_nle(m, d, q, v, b);
    lucid_model_nle(m2, d2, q, v, b2);
    assert_close(b[0], b2[0], 1e-12), assert_close(b[1], b2[1], 1e-12);
    /* the tool frame sits at lower * placement */
    lucid_model_forward_kinematics(m, d, q);
    lucid_se3 Tl = lucid_model_frame_pose(m, d, (size_t)lucid_model_find_frame(m, "lower"));
    lucid_se3 Tt = lucid_model_frame_pose(m, d, (size_t)f);
    lucid_se3 want = lucid_se3_compose(&Tl, &tool.placement);
    assert_close(lucid_vec3_dist(Tt.t, want.t), 0.0, 1e-15);
    lucid_model_data_destroy(d), lucid_model_data_destroy(d2);
    lucid_model_destroy(m), lucid_model_destroy(m2);
}

/* Body "b" with hinges about x (anchor a1) then y (anchor a2), against "mid" (massless, hinge
 * x at a1) carrying "b" (hinge y at a2, identity placement): same M, nle and frame poses. */
static void several_joints_equal_a_massless_chain(void **state) {
    (void)state;
    uint64_t st = 5;
    lucid_body_spec b = random_body(&st, LUCID_MODEL_WORLD, "b");
    lucid_joint_spec j1 = random_joint(&st, LUCID_JOINT_REVOLUTE, "j1");
    lucid_joint_spec j2 = random_joint(&st, LUCID_JOINT_PRISMATIC, "j2");
    lucid_model_spec *s1, *s2;
    assert_int_equal(lucid_model_spec_create(NULL, &s1), LUCID_OK);
    assert_int_equal(lucid_model_spec_create(NULL, &s2), LUCID_OK);
    int i1, im, i2;
    assert_int_equal(lucid_model_spec_add_body(s1, &b, &i1), LUCID_OK);
    assert_int_equal(lucid_model_spec_add_joint(s1, i1, &j1, NULL), LUCID_OK);
    assert_int_equal(lucid_model_spec_add_joint(s1, i1, &j2, NULL), LUCID_OK);
    lucid_body_spec mid = lucid_body_spec_default();
    mid.name = "mid", mid.placement = b.placement;
    assert_int_equal(lucid_model_spec_add_body(s2, &mid, &im), LUCID_OK);
    assert_int_equal(lucid_model_spec_add_joint(s2, im, &j1, NULL), LUCID_OK);
    lucid_body_spec b2 = b;
    b2.parent = im, b2.placement = lucid_se3_identity();
    assert_int_equal(lucid_model_spec_add_body(s2, &b2, &i2), LUCID_OK);
    assert_int_equal(lucid_model_spec_add_joint(s2, i2, &j2, NULL), LUCID_OK);
    lucid_model *m1 = NULL, *m2 = NULL;
    assert_int_equal(lucid_model_compile(s1, &m1, NULL, 0), LUCID_OK);
    assert_int_equal(lucid_model_compile(s2, &m2, NULL, 0), LUCID_OK);
    lucid_model_spec_destroy(s1), lucid_model_spec_destroy(s2);
    assert_int_equal(lucid_model_nbodies(m1), 1);
    assert_int_equal(lucid_model_njoints(m1), 2);
    lucid_model_data *d1, *d2;
    assert_int_equal(lucid_model_data_create(m1, &d1), LUCID_OK);
    assert_int_equal(lucid_model_data_create(m2, &d2), LUCID_OK);
    double q[2] = {0.4, 0.2}, v[2] = {-1.0, 0.5}, n1[2], n2[2];
    lucid_model_crba(m1, d1, q);
    lucid_model_crba(m2, d2, q);
    for (int k = 0; k < 4; ++k)
        assert_close(lucid_model_data_mass_matrix(d1)[k], lucid_model_data_mass_matrix(d2)[k],
                     1e-13);
    lucid_model_nle(m1, d1, q, v, n1);
    lucid_model_nle(m2, d2, q, v, n2);
    assert_close(n1[0], n2[0], 1e-12), assert_close(n1[1], n2[1], 1e-12);
    lucid_model_forward_kinematics(m1, d1, q);
    lucid_model_forward_kinematics(m2, d2, q);
    lucid_se3 T1 = lucid_model_frame_pose(m1, d1, (size_t)lucid_model_find_frame(m1, "b"));
    lucid_se3 T2 = lucid_model_frame_pose(m2, d2, (size_t)lucid_model_find_frame(m2, "b"));
    /* and both equal placement * M_j1(q1) * M_j2(q2) computed by hand */
    lucid_vec3 a1 = lucid_vec3_normalized(j1.axis), a2 = lucid_vec3_normalized(j2.axis);
    lucid_se3 M1 =
        lucid_se3_make(lucid_so3_exp(lucid_vec3_scale(a1, q[0] - j1.ref)), lucid_vec3_zero());
    M1.t = lucid_vec3_sub(j1.anchor, lucid_mat3_mul_vec(&M1.R, j1.anchor));
    lucid_se3 M2 = lucid_se3_make(lucid_mat3_identity(), lucid_vec3_scale(a2, q[1] - j2.ref));
    lucid_se3 T = lucid_se3_compose(&b.placement, &M1);
    T = lucid_se3_compose(&T, &M2);
    for (int k = 0; k < 9; ++k) {
        assert_close(T1.R.m[k], T2.R.m[k], 1e-14);
        assert_close(T1.R.m[k], T.R.m[k], 1e-14);
    }
    assert_close(lucid_vec3_dist(T1.t, T.t), 0.0, 1e-14);
    assert_close(lucid_vec3_dist(T2.t, T.t), 0.0, 1e-14);
    lucid_model_data_destroy(d1), lucid_model_data_destroy(d2);
    lucid_model_destroy(m1), lucid_model_destroy(m2);
}

/* The model takes the spec's meshes: the spec's entries become NULL, and destroying the spec
 * then the model frees each mesh once (checked under the sanitizers). */
static void model_takes_over_meshes(void **state) {
    (void)state;
    lucid_model_spec *s = arm_spec(NULL);
    double pts[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    lucid_convex_mesh *mesh = NULL;
    assert_int_equal(lucid_convex_mesh_create(pts, 4, &mesh), LUCID_OK);
    lucid_geom_spec g = lucid_geom_spec_default();
    g.body = 1;
    g.shape.kind = LUCID_SHAPE_CONVEX;
    assert_int_equal(lucid_model_spec_add_geom(s, &g, mesh, NULL), LUCID_OK);
    lucid_model *m = NULL;
    assert_int_equal(lucid_model_compile(s, &m, NULL, 0), LUCID_OK);
    assert_null(s->geom_mesh[0]);
    lucid_model_spec_destroy(s);
    assert_int_equal(lucid_model_ngeoms(m), 1);
    assert_ptr_equal(lucid_model_geoms(m)[0].shape.u.mesh, mesh);
    lucid_model_destroy(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_arm_compiles),
        cmocka_unit_test(errors_carry_source_and_line),
        cmocka_unit_test(mimic_joints_are_stored),
        cmocka_unit_test(massless_leaf_is_refused),
        cmocka_unit_test(redundant_joints_are_refused),
        cmocka_unit_test(duplicate_names_are_refused),
        cmocka_unit_test(actuators_and_geoms_are_checked),
        cmocka_unit_test(tendons_are_checked),
        cmocka_unit_test(welded_bodies_merge_into_their_parent),
        cmocka_unit_test(several_joints_equal_a_massless_chain),
        cmocka_unit_test(model_takes_over_meshes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
