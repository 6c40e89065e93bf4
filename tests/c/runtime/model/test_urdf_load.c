/* The URDF loader: tests/data/model/urdf_forms.urdf value by value (rpy placements against
 * an independent quaternion product, inertias rotated into the link frame, full box sizes
 * and cylinder lengths halved, a package:// mesh scaled per axis, every joint type, limits,
 * damping, mimic, actuators one per independent 1-dof joint, floating_base, scale and the
 * meshes option), and the robots of ../shared/data/robots (ur5, a1, simple_humanoid: counts,
 * masses and values from their README; exit 77 with a message when ../shared is absent). */
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
#include "runtime/model/model_load.h"
#include "runtime/shapes/convex_mesh.h"
#include "tests/c/common/test_model_file.h"
#include "tests/c/common/test_random.h"

#define FORMS    LUCID_SOURCE_DIR "/tests/data/model/urdf_forms.urdf"
#define PACKAGES LUCID_SOURCE_DIR "/tests/data/model/packages"
#define NOISE    LUCID_SOURCE_DIR "/tests/data/model/urdf_noise.urdf"

static int skipped;

static lucid_model_spec *load_with(const char *path, const lucid_model_load_options *o) {
    lucid_model_spec *s = NULL;
    char err[1024];
    lucid_status st = lucid_model_spec_load(path, o, &s, err, sizeof err);
    if (st != LUCID_OK) fprintf(stderr, "%s\n", err);
    assert_int_equal(st, LUCID_OK);
    return s;
}

static const char *const package_dirs[] = {"/nonexistent/folder", PACKAGES};

static lucid_model_load_options forms_options(void) {
    lucid_model_load_options o = lucid_model_load_options_default();
    o.package_dirs = package_dirs;
    o.npackage_dirs = 2;
    return o;
}

static void near(double a, double b, double tol) {
    if (!(fabs(a - b) <= tol)) {
        fprintf(stderr, "got %.17g, want %.17g\n", a, b);
        fail();
    }
}

static void near_mat(const lucid_mat3 *a, const lucid_mat3 *b, double tol) {
    for (int i = 0; i < 9; i++) near(a->m[i], b->m[i], tol);
}

static void near_vec(lucid_vec3 a, double x, double y, double z, double tol) {
    near(a.x, x, tol);
    near(a.y, y, tol);
    near(a.z, z, tol);
}

/* URDF's rpy: roll about x, then pitch about y, then yaw about z, all fixed axes, i.e. the
 * quaternion product qz(yaw) qy(pitch) qx(roll). */
static lucid_mat3 rpy(double r, double p, double y) {
    lucid_quat qx = lucid_quat_make(cos(r / 2), sin(r / 2), 0, 0);
    lucid_quat qy = lucid_quat_make(cos(p / 2), 0, sin(p / 2), 0);
    lucid_quat qz = lucid_quat_make(cos(y / 2), 0, 0, sin(y / 2));
    return lucid_quat_to_mat3(lucid_quat_mul(qz, lucid_quat_mul(qy, qx)));
}

static int body(const lucid_model_spec *s, const char *name) {
    int b = lucid_model_spec_find_body(s, name);
    assert_true(b >= 0);
    return b;
}

static const lucid_joint_spec *joint(const lucid_model_spec *s, const char *name) {
    int j = lucid_model_spec_find_joint(s, name);
    assert_true(j >= 0);
    return &s->joints[j];
}

static void dims(const lucid_model_spec *s, int *nq, int *nv) {
    *nq = *nv = 0;
    for (size_t j = 0; j < s->njoints; j++) {
        lucid_joint_kind k = s->joints[j].kind;
        *nq += k == LUCID_JOINT_FREE        ? 7
               : k == LUCID_JOINT_SPHERICAL ? 4
               : k == LUCID_JOINT_PLANAR    ? 4
                                            : 1;
        *nv += k == LUCID_JOINT_FREE        ? 6
               : k == LUCID_JOINT_SPHERICAL ? 3
               : k == LUCID_JOINT_PLANAR    ? 3
                                            : 1;
    }
}

static double total_mass(const lucid_model_spec *s) {
    double m = 0.0;
    for (size_t b = 0; b < s->nbodies; b++) m += s->bodies[b].mass;
    return m;
}

static void test_forms_tree(void **state) {
    (void)state;
    lucid_model_load_options o = forms_options();
    lucid_model_spec *s = load_with(FORMS, &o);
    assert_string_equal(s->name, "forms");
    /* depth first from the root, children in joint order */
    static const char *const order[] = {"base",        "upper", "lower", "carriage",
                                        "finger_link", "tool",  "puck",  "drone"};
    assert_int_equal((int)s->nbodies, 8);
    for (int i = 0; i < 8; i++) assert_string_equal(s->bodies[i].name, order[i]);
    assert_int_equal(s->bodies[0].parent, LUCID_MODEL_WORLD);
    assert_int_equal(s->bodies[body(s, "tool")].parent, body(s, "lower"));
    assert_int_equal(s->bodies[body(s, "puck")].parent, body(s, "base"));
    /* fixed joints and the root have no joint */
    assert_int_equal((int)s->njoints, 6);
    assert_int_equal(lucid_model_spec_find_joint(s, "tool_mount"), -1);
    near(total_mass(s), 2.5 + 1.2 + 0.8 + 0.3 + 0.1 + 0.2 + 0.5, 1e-15);
    /* placements: rpy */
    lucid_mat3 R = rpy(0.1, 0.2, -0.3);
    const lucid_body_spec *up = &s->bodies[body(s, "upper")];
    near_mat(&up->placement.R, &R, 1e-15);
    near_vec(up->placement.t, 0, 0, 0.3, 0);
    R = rpy(0, 0, 3.14159);
    near_mat(&s->bodies[body(s, "tool")].placement.R, &R, 1e-15);
    /* inertia rotated into the link frame: R I R^T, com at the origin's xyz */
    const lucid_body_spec *base = &s->bodies[0];
    lucid_mat3 I = {{0.02, 0.001, -0.002, 0.001, 0.03, 0.0005, -0.002, 0.0005, 0.025}};
    R = rpy(0.3, -0.2, 0.5);
    lucid_mat3 RI = lucid_mat3_mul(&R, &I), Rt = lucid_mat3_transpose(&R);
    lucid_mat3 want = lucid_mat3_mul(&RI, &Rt);
    near_mat(&base->inertia, &want, 1e-17);
    near_vec(base->com, 0.1, 0, 0.05, 0);
    near(base->mass, 2.5, 0);
    near(s->bodies[body(s, "tool")].mass, 0.0, 0); /* no <inertial>: massless */
    lucid_model_spec_destroy(s);
}

static void test_forms_joints(void **state) {
    (void)state;
    lucid_model_load_options o = forms_options();
    lucid_model_spec *s = load_with(FORMS, &o);
    const lucid_joint_spec *j = joint(s, "shoulder");
    assert_int_equal(j->kind, LUCID_JOINT_REVOLUTE);
    near_vec(j->axis, 0, 1, 1, 0);
    near_vec(j->anchor, 0, 0, 0, 0);
    assert_true(j->limited);
    near(j->lower, -1.2, 0), near(j->upper, 2.1, 0);
    near(j->effort_limit, 40, 0), near(j->velocity_limit, 3, 0), near(j->damping, 0.7, 0);
    j = joint(s, "elbow");
    assert_int_equal(j->kind, LUCID_JOINT_REVOLUTE);
    assert_false(j->limited);
    assert_true(isinf(j->effort_limit));
    j = joint(s, "slider");
    assert_int_equal(j->kind, LUCID_JOINT_PRISMATIC);
    assert_true(j->limited);
    near(j->lower, -0.05, 0), near(j->upper, 0.15, 0);
    /* effort="0" velocity="0": placeholders, no limit */
    assert_true(isinf(j->effort_limit) && isinf(j->velocity_limit));
    j = joint(s, "finger");
    assert_false(j->limited); /* lower == upper: no position limit */
    assert_string_equal(j->mimic, "elbow");
    near(j->mimic_multiplier, -0.5, 0), near(j->mimic_offset, 0.1, 0);
    j = joint(s, "table_slide");
    assert_int_equal(j->kind, LUCID_JOINT_PLANAR);
    near_vec(j->axis, 0, 0, 1, 0);
    j = joint(s, "drone_joint");
    assert_int_equal(j->kind, LUCID_JOINT_FREE);
    assert_int_equal(s->joint_body[lucid_model_spec_find_joint(s, "drone_joint")],
                     body(s, "drone"));
    /* one motor per revolute/continuous/prismatic joint that mimics nothing, gear 1 */
    assert_int_equal((int)s->nactuators, 3);
    static const char *const act[] = {"shoulder", "elbow", "slider"};
    for (int a = 0; a < 3; a++) {
        assert_string_equal(s->actuators[a].name, act[a]);
        assert_int_equal(s->actuators[a].kind, LUCID_ACTUATOR_MOTOR);
        assert_string_equal(s->joints[s->actuators[a].joint].name, act[a]);
        near(s->actuators[a].gear, 1.0, 0);
    }
    assert_true(s->actuators[0].force_limited);
    near(s->actuators[0].force_lower, -40, 0), near(s->actuators[0].force_upper, 40, 0);
    assert_false(s->actuators[1].force_limited);
    int nq, nv;
    dims(s, &nq, &nv);
    assert_int_equal(nq, 4 + 4 + 7);
    assert_int_equal(nv, 4 + 3 + 6);
    lucid_model_spec_destroy(s);
}

static void test_forms_geoms(void **state) {
    (void)state;
    lucid_model_load_options o = forms_options();
    lucid_model_spec *s = load_with(FORMS, &o);
    assert_int_equal((int)s->ngeoms, 5);
    const lucid_geom_spec *g = &s->geoms[0];
    assert_string_equal(g->name, "base_box");
    assert_int_equal(g->shape.kind, LUCID_SHAPE_BOX);
    near_vec(g->shape.u.half_extents, 0.2, 0.1, 0.05, 0); /* URDF sizes are full */
    lucid_mat3 R = rpy(0, 0, 0.25);
    near_mat(&g->pose.R, &R, 1e-16);
    near_vec(g->pose.t, 0, 0, 0.1, 0);
    /* the wedge through package://, scaled (0.1, 0.2, 0.05) per axis */
    g = &s->geoms[1];
    assert_int_equal(g->shape.kind, LUCID_SHAPE_CONVEX);
    const lucid_convex_mesh *m = g->shape.u.mesh;
    assert_int_equal(m->num_vertices, 6);
    lucid_vec3 lo = m->vertices[0], hi = m->vertices[0];
    for (int v = 0; v < m->num_vertices; v++) {
        lo = lucid_vec3_make(fmin(lo.x, m->vertices[v].x), fmin(lo.y, m->vertices[v].y),
                             fmin(lo.z, m->vertices[v].z));
        hi = lucid_vec3_make(fmax(hi.x, m->vertices[v].x), fmax(hi.y, m->vertices[v].y),
                             fmax(hi.z, m->vertices[v].z));
    }
    near_vec(lo, 0, -0.2, 0, 1e-16);
    near_vec(hi, 0.1, 0.2, 0.1, 1e-16);
    g = &s->geoms[2];
    assert_int_equal(g->body, body(s, "upper"));
    assert_int_equal(g->shape.kind, LUCID_SHAPE_CYLINDER);
    near(g->shape.u.round.radius, 0.04, 0), near(g->shape.u.round.half_length, 0.2, 0);
    g = &s->geoms[3];
    assert_int_equal(g->shape.kind, LUCID_SHAPE_SPHERE);
    near(g->shape.radius, 0.05, 0);
    g = &s->geoms[4];
    assert_int_equal(g->shape.kind, LUCID_SHAPE_CAPSULE);
    near(g->shape.radius, 0.05, 0), near(g->shape.u.half_length, 0.1, 0);
    lucid_model_spec_destroy(s);
}

static void test_forms_options(void **state) {
    (void)state;
    /* floating_base: a free joint first, on the root */
    lucid_model_load_options o = forms_options();
    o.floating_base = 1;
    lucid_model_spec *s = load_with(FORMS, &o);
    assert_int_equal(s->joints[0].kind, LUCID_JOINT_FREE);
    assert_int_equal(s->joint_body[0], 0);
    assert_int_equal((int)s->nactuators, 3);
    lucid_model_spec_destroy(s);
    /* scale: lengths times 2, inertias times 4, masses unchanged */
    lucid_model_spec *a =
        load_with(FORMS, &(lucid_model_load_options){
                             .package_dirs = package_dirs, .npackage_dirs = 2, .scale = 1.0});
    o = forms_options();
    o.scale = 2.0;
    s = load_with(FORMS, &o);
    for (size_t b = 0; b < s->nbodies; b++) {
        near(s->bodies[b].mass, a->bodies[b].mass, 0);
        lucid_mat3 I4 = lucid_mat3_scale(&a->bodies[b].inertia, 4.0);
        near_mat(&s->bodies[b].inertia, &I4, 1e-18);
        near_vec(s->bodies[b].placement.t, 2 * a->bodies[b].placement.t.x,
                 2 * a->bodies[b].placement.t.y, 2 * a->bodies[b].placement.t.z, 0);
    }
    const lucid_joint_spec *j = joint(s, "slider");
    near(j->lower, -0.1, 0), near(j->upper, 0.3, 0);
    near_vec(s->geoms[0].shape.u.half_extents, 0.4, 0.2, 0.1, 0);
    near(s->geoms[1].shape.u.mesh->vertices[0].x, 2 * a->geoms[1].shape.u.mesh->vertices[0].x, 0);
    lucid_model_spec_destroy(s);
    lucid_model_spec_destroy(a);
    /* bad scales */
    char err[256];
    o = forms_options();
    o.scale = 0.0;
    assert_int_equal(lucid_model_spec_load(FORMS, &o, &s, err, sizeof err), LUCID_ERR_ARGUMENT);
    assert_null(s);
    o.scale = NAN;
    assert_int_equal(lucid_model_spec_load(FORMS, &o, &s, err, sizeof err), LUCID_ERR_ARGUMENT);
    assert_non_null(strstr(err, "scale"));
}

static void test_meshes_option(void **state) {
    (void)state;
    /* no package folder: the mesh cannot be found, an error naming file and line ... */
    lucid_model_spec *s = NULL;
    char err[1024];
    lucid_model_load_options o = lucid_model_load_options_default();
    assert_int_equal(lucid_model_spec_load(FORMS, &o, &s, err, sizeof err), LUCID_ERR_IO);
    assert_null(s);
    assert_non_null(strstr(err, "urdf_forms.urdf:18: cannot load mesh"));
    assert_non_null(strstr(err, "wedge.obj"));
    /* ... or, with meshes skipped, the geom dropped (a warning on stderr) */
    o.skip_meshes = 1;
    s = load_with(FORMS, &o);
    assert_int_equal((int)s->ngeoms, 4);
    for (size_t g = 0; g < s->ngeoms; g++)
        assert_int_not_equal(s->geoms[g].shape.kind, LUCID_SHAPE_CONVEX);
    lucid_model_spec_destroy(s);
}

/* ---- harmless noise: warned about, not refused ------------------------------------------- */

typedef struct warnings {
    char text[16][768];
    int n;
} warnings;

static void collect(void *ctx, const char *message) {
    warnings *w = ctx;
    if (w->n < 16) snprintf(w->text[w->n], sizeof w->text[0], "%s", message);
    w->n++;
}

/* The line of the first line of the file at path that contains `needle` (1-based). */
static int line_of(const char *path, const char *needle) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char buf[512];
    int line = 0, found = 0;
    while (!found && fgets(buf, sizeof buf, f)) line++, found = strstr(buf, needle) != NULL;
    fclose(f);
    assert_true(found);
    return line;
}

/* The one warning that starts with "urdf_noise.urdf:LINE: warning: " for the file line holding
 * `needle`, and contains `text`. */
static void expect_warning(const warnings *w, const char *needle, const char *text) {
    char where[1200];
    snprintf(where, sizeof where, "%s:%d: warning: ", NOISE, line_of(NOISE, needle));
    int count = 0;
    for (int i = 0; i < w->n && i < 16; i++)
        count += strncmp(w->text[i], where, strlen(where)) == 0 && strstr(w->text[i], text);
    if (count != 1) {
        fprintf(stderr, "want one warning '%s...%s', got %d among:\n", where, text, count);
        for (int i = 0; i < w->n && i < 16; i++) fprintf(stderr, "  %s\n", w->text[i]);
        fail();
    }
}

/* Cholesky of the symmetric n x n column-major A (copied): 1 when positive definite. */
static int positive_definite(const double *A, int n) {
    double L[64 * 64];
    assert_true(n <= 64);
    for (int j = 0; j < n; j++) {
        double d = A[j + n * j];
        for (int k = 0; k < j; k++) d -= L[j + n * k] * L[j + n * k];
        if (!(d > 0.0)) return 0;
        L[j + n * j] = sqrt(d);
        for (int i = j + 1; i < n; i++) {
            double v = A[i + n * j];
            for (int k = 0; k < j; k++) v -= L[i + n * k] * L[j + n * k];
            L[i + n * j] = v / L[j + n * j];
        }
    }
    return 1;
}

/* Physically valid: I positive definite and tr(I)/2 - I (the second moments of the mass
 * distribution, whose nonnegativity is the triangle inequality A + B >= C) positive definite. */
static void physically_valid(const lucid_mat3 *I) {
    double A[9], B[9], tr = I->m[0] + I->m[4] + I->m[8];
    for (int k = 0; k < 9; k++) {
        A[k] = I->m[k];
        B[k] = (k % 4 == 0 ? 0.5 * tr : 0.0) - I->m[k];
    }
    assert_true(positive_definite(A, 3));
    assert_true(positive_definite(B, 3));
}

static void test_noise_warned(void **state) {
    (void)state;
    warnings w = {.n = 0};
    lucid_model_load_options o = lucid_model_load_options_default();
    o.warn = collect;
    o.warn_ctx = &w;
    lucid_model_spec *s = load_with(NOISE, &o);
    expect_warning(&w, "ixx=\"1e-6\"", "<inertia>: not positive definite or violates A + B >= C");
    expect_warning(&w, "ixx=\"1e-6\"", "repaired to the nearest valid inertia");
    expect_warning(&w, "izz=\"0.003\"", "principal moments");
    /* the point mass on the fixed joint: zero inertia with mass is repaired too */
    expect_warning(&w, "ixx=\"0\"", "mass 0.0001");
    /* one warning per unknown name, at its first occurrence, with the count */
    expect_warning(&w, "<joint_properties",
                   "<joint>: unknown element <joint_properties> ignored (2 times; the first here)");
    expect_warning(&w, "<contact_coefficients", "<link>: unknown element <contact_coefficients>");
    expect_warning(&w, "mystery=", "<link>: unknown attribute 'mystery' ignored");
    /* transmission and gazebo are silent, as in urdfdom; a mimic and dry friction are simulated
       (world_equality.c, the friction rows): silent */
    assert_int_equal(w.n, 6);
    /* repaired inertias are physically valid, and the ANYmal one keeps its principal axes:
     * (1, 1, 1)/sqrt(3) with moment 3e-6 */
    for (size_t b = 0; b < s->nbodies; b++)
        if (s->bodies[b].mass > 0.0) physically_valid(&s->bodies[b].inertia);
    const lucid_mat3 *T = &s->bodies[body(s, "thigh")].inertia;
    for (int r = 0; r < 3; r++) near(T->m[r] + T->m[r + 3] + T->m[r + 6], 3e-6, 1e-18);
    /* the valid base inertia is untouched */
    near_mat(&s->bodies[body(s, "base")].inertia,
             &(lucid_mat3){{0.02, 0, 0, 0, 0.02, 0, 0, 0, 0.02}}, 0.0);
    /* friction and mimic are in the spec, then in the model */
    assert_true(joint(s, "hip")->frictionloss == 0.3 && joint(s, "hip")->damping == 0.1);
    assert_string_equal(joint(s, "knee")->mimic, "hip");
    lucid_model *m = NULL;
    char err[512];
    assert_int_equal(lucid_model_compile(s, &m, err, sizeof err), LUCID_OK);
    lucid_model_spec_destroy(s);
    int hip = lucid_model_find_joint(m, "hip"), knee = lucid_model_find_joint(m, "knee");
    double mult = 0.0, offset = 0.0;
    assert_int_equal(lucid_model_joint_mimic(m, (size_t)knee, &mult, &offset), hip);
    assert_true(mult == -2.0 && offset == 0.1);
    assert_true(lucid_model_frictionloss(m)[lucid_model_joint_idx_v(m, (size_t)hip)] == 0.3);
    /* the mass matrix (CRBA) is symmetric positive definite at random configurations */
    lucid_model_data *d = NULL;
    assert_int_equal(lucid_model_data_create(m, &d), LUCID_OK);
    size_t nv = lucid_model_nv(m);
    assert_int_equal((int)nv, 3);
    double q[3];
    for (int trial = 0; trial < 20; trial++) {
        for (int k = 0; k < 3; k++) q[k] = sin(1.7 * trial + 2.3 * k);
        lucid_model_crba(m, d, q);
        const double *M = lucid_model_data_mass_matrix(d);
        for (size_t i = 0; i < nv; i++)
            for (size_t k = 0; k < nv; k++) near(M[i + nv * k], M[k + nv * i], 1e-15);
        assert_true(positive_definite(M, (int)nv));
    }
    lucid_model_data_destroy(d);
    lucid_model_destroy(m);
}

/* Random inertias (rotated principal moments, a third of them violating A + B >= C, some
 * negative or tiny) through the URDF reader: a valid one is kept (to the round-off of its
 * 17-digit text) without a warning; an invalid one is repaired with one warning into a
 * physically valid inertia with the same principal axes (it commutes with the input). */
static void test_inertia_repair_random(void **state) {
    (void)state;
    uint64_t rng = 34;
    int repaired = 0;
    for (int trial = 0; trial < 300; trial++) {
        double mom[3], mass = 0.1 + 10.0 * uniform(&rng);
        for (int k = 0; k < 3; k++) mom[k] = 1e-3 * (0.05 + uniform(&rng));
        int kind = trial % 6;
        if (kind == 1) mom[trial % 3] = 1.3 * (mom[(trial + 1) % 3] + mom[(trial + 2) % 3]);
        if (kind == 3) mom[trial % 3] = -1e-4 * uniform(&rng);
        if (kind == 5) mom[trial % 3] = 0.0, mom[(trial + 1) % 3] = 0.0;
        double d0 = mom[1] + mom[2] - mom[0], d1 = mom[0] + mom[2] - mom[1],
               d2 = mom[0] + mom[1] - mom[2], mn = fmin(mom[0], fmin(mom[1], mom[2])),
               mx = fmax(mom[0], fmax(mom[1], mom[2]));
        int valid = d0 > 1e-9 && d1 > 1e-9 && d2 > 1e-9 && mn > 1e-6 * mx;
        int invalid = d0 < -1e-9 || d1 < -1e-9 || d2 < -1e-9 || mn <= 0.0;
        if (!valid && !invalid) continue; /* too close to the boundary to call */
        lucid_mat3 R = random_rotation(&rng),
                   D = lucid_mat3_diag(lucid_vec3_make(mom[0], mom[1], mom[2]));
        lucid_mat3 RD = lucid_mat3_mul(&R, &D), Rt = lucid_mat3_transpose(&R);
        lucid_mat3 I = lucid_mat3_mul(&RD, &Rt);
        char urdf[1024];
        snprintf(urdf, sizeof urdf,
                 "<robot name='r'><link name='a'><inertial><mass value='%.17g'/>"
                 "<inertia ixx='%.17g' ixy='%.17g' ixz='%.17g' iyy='%.17g' iyz='%.17g' "
                 "izz='%.17g'/></inertial></link></robot>",
                 mass, I.m[0], I.m[3], I.m[6], I.m[4], I.m[7], I.m[8]);
        warnings w = {.n = 0};
        lucid_model_load_options o = lucid_model_load_options_default();
        o.warn = collect;
        o.warn_ctx = &w;
        lucid_model_spec *s = NULL;
        char err[512];
        lucid_status st =
            lucid_model_spec_parse("r.urdf", urdf, strlen(urdf), &o, &s, err, sizeof err);
        if (st != LUCID_OK) fail_msg("%s", err);
        const lucid_mat3 *J = &s->bodies[0].inertia;
        physically_valid(J);
        assert_int_equal(w.n, valid ? 0 : 1);
        repaired += !valid;
        for (int k = 0; k < 9; k++) {
            if (valid) near(J->m[k], I.m[k], 1e-15);
            double ij = 0.0, ji = 0.0; /* (I J - J I)[k] */
            for (int l = 0; l < 3; l++)
                ij += I.m[k % 3 + 3 * l] * J->m[l + 3 * (k / 3)],
                    ji += J->m[k % 3 + 3 * l] * I.m[l + 3 * (k / 3)];
            near(ij, ji, 1e-18);
        }
        lucid_model_spec_destroy(s);
    }
    assert_true(repaired >= 100);
}

/* inertia = "strict": the first invalid inertia is refused, naming its file and line. */
static void test_noise_strict(void **state) {
    (void)state;
    warnings w = {.n = 0};
    lucid_model_load_options o = lucid_model_load_options_default();
    o.warn = collect;
    o.warn_ctx = &w;
    o.strict_inertia = 1;
    lucid_model_spec *s = NULL;
    char err[1024], want[1200];
    assert_int_equal(lucid_model_spec_load(NOISE, &o, &s, err, sizeof err), LUCID_ERR_NOT_SPD);
    assert_null(s);
    snprintf(want, sizeof want, "%s:%d: <inertia>: not positive definite", NOISE,
             line_of(NOISE, "ixx=\"0\""));
    if (strncmp(err, want, strlen(want)) != 0) fail_msg("got '%s', want '%s...'", err, want);
    assert_non_null(strstr(err, "inertia = \"strict\""));
}

/* A massless leaf on a moving joint is the one refusal (as in MuJoCo), by name and line. */
static void test_massless_leaf(void **state) {
    (void)state;
    static const char urdf[] = "<robot name='r'>\n"
                               "  <link name='a'><inertial><mass value='1'/>\n"
                               "    <inertia ixx='1' ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/>\n"
                               "  </inertial></link>\n"
                               "  <link name='b'/>\n"
                               "  <joint name='j' type='continuous'>\n"
                               "    <parent link='a'/><child link='b'/>\n"
                               "  </joint>\n"
                               "</robot>\n";
    lucid_model_spec *s = NULL;
    char err[512];
    assert_int_equal(
        lucid_model_spec_parse("leaf.urdf", urdf, sizeof urdf - 1, NULL, &s, err, sizeof err),
        LUCID_OK);
    lucid_model *m = NULL;
    assert_int_equal(lucid_model_compile(s, &m, err, sizeof err), LUCID_ERR_SINGULAR);
    assert_non_null(strstr(err, "leaf.urdf:6: joint 'j': moves no mass"));
    lucid_model_spec_destroy(s);
}

/* pybullet's URDFs declare <?xml version="0.0" ?> (Minitaur), which TinyXML (urdfdom,
 * MuJoCo) accepts and libxml2 refuses: read as 1.0 with a warning at line 1. */
static void test_xml_version(void **state) {
    (void)state;
    static const char urdf[] = "<?xml version=\"0.0\" ?>\n"
                               "<robot name='r'>\n"
                               "  <link name='a'><contact><lateral_friction value='1'/></contact>"
                               "</link>\n"
                               "</robot>\n";
    warnings w = {.n = 0};
    lucid_model_load_options o = lucid_model_load_options_default();
    o.warn = collect;
    o.warn_ctx = &w;
    lucid_model_spec *s = NULL;
    char err[512];
    lucid_status st =
        lucid_model_spec_parse("minitaur.urdf", urdf, sizeof urdf - 1, &o, &s, err, sizeof err);
    if (st != LUCID_OK) fail_msg("%s", err);
    assert_int_equal(w.n, 2);
    assert_string_equal(w.text[0],
                        "minitaur.urdf:1: warning: XML declaration version '0.0' read as '1.0' "
                        "(as urdfdom does)");
    assert_string_equal(w.text[1],
                        "minitaur.urdf:3: warning: <link>: unknown element <contact> ignored");
    lucid_model_spec_destroy(s);
}

/* A COLLADA collision mesh (read through assimp) becomes the convex hull of its vertices, in
 * metres (its <unit>) and placed by its node, times the URDF's per-axis scale. */
static void test_dae_collision(void **state) {
    (void)state;
    static const char urdf[] = "<robot name='r'>\n"
                               "  <link name='a'><collision><geometry>\n"
                               "    <mesh filename='meshes/tetra.dae' scale='1 2 1'/>\n"
                               "  </geometry></collision></link>\n"
                               "</robot>\n";
    lucid_model_spec *s = NULL;
    char err[512];
    lucid_status st = lucid_model_spec_parse(LUCID_SOURCE_DIR "/tests/data/model/dae.urdf", urdf,
                                             sizeof urdf - 1, NULL, &s, err, sizeof err);
    if (st != LUCID_OK) fail_msg("%s", err);
    assert_int_equal((int)s->ngeoms, 1);
    assert_int_equal(s->geoms[0].shape.kind, LUCID_SHAPE_CONVEX);
    const lucid_convex_mesh *hull = s->geom_mesh[0];
    assert_int_equal(hull->num_vertices, 4);
    double lo[3] = {1e9, 1e9, 1e9}, hi[3] = {-1e9, -1e9, -1e9};
    for (int i = 0; i < 4; i++) {
        const double v[3] = {hull->vertices[i].x, hull->vertices[i].y, hull->vertices[i].z};
        for (int k = 0; k < 3; k++) lo[k] = fmin(lo[k], v[k]), hi[k] = fmax(hi[k], v[k]);
    }
    const double want_lo[3] = {0.1, 0.4, 0.3}, want_hi[3] = {0.12, 0.46, 0.34};
    for (int k = 0; k < 3; k++) near(lo[k], want_lo[k], 1e-7), near(hi[k], want_hi[k], 1e-7);
    lucid_model_spec_destroy(s);
}

/* ---- the shared robots ------------------------------------------------------------------- */

static lucid_model_spec *shared(const char *name, int floating) {
    char path[1024];
    snprintf(path, sizeof path, "%s/data/robots/%s", test_shared_dir(), name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s missing (../shared absent; LUCID_SHARED_DIR overrides): skipped\n",
                path);
        skipped = 1;
        return NULL;
    }
    fclose(f);
    lucid_model_load_options o = lucid_model_load_options_default();
    o.skip_meshes = 1; /* README: the meshes are not shipped */
    o.floating_base = floating;
    return load_with(path, &o);
}

static void check_counts(lucid_model_spec *s, int bodies, int nq, int nv, int nu, double mass) {
    int q, v;
    dims(s, &q, &v);
    assert_int_equal((int)s->nbodies, bodies);
    assert_int_equal(q, nq);
    assert_int_equal(v, nv);
    assert_int_equal((int)s->nactuators, nu);
    near(total_mass(s), mass, 1e-12 * mass);
}

static void test_ur5(void **state) {
    (void)state;
    lucid_model_spec *s = shared("ur5.urdf", 0);
    if (!s) return;
    /* README: 6 revolute, 4 fixed, 11 links, 20.9939 kg; only ee_link keeps its 1 cm box */
    check_counts(s, 11, 6, 6, 6, 20.9939);
    assert_int_equal((int)s->ngeoms, 1);
    near_vec(s->geoms[0].shape.u.half_extents, 0.005, 0.005, 0.005, 1e-18);
    assert_int_equal(s->geoms[0].body, body(s, "ee_link"));
    const lucid_joint_spec *j = joint(s, "shoulder_pan_joint");
    near_vec(s->bodies[body(s, "shoulder_link")].placement.t, 0, 0, 0.089159, 0);
    near_vec(j->axis, 0, 0, 1, 0);
    near(j->lower, -6.28318530718, 0), near(j->upper, 6.28318530718, 0);
    near(j->effort_limit, 150, 0), near(j->velocity_limit, 3.15, 0);
    j = joint(s, "elbow_joint");
    near(j->lower, -3.14159265359, 0);
    lucid_model_spec_destroy(s);
    s = shared("ur5.urdf", 1);
    check_counts(s, 11, 13, 12, 6, 20.9939);
    assert_int_equal(s->joints[0].kind, LUCID_JOINT_FREE);
    lucid_model_spec_destroy(s);
}

static void test_a1(void **state) {
    (void)state;
    lucid_model_spec *s = shared("a1.urdf", 0);
    if (!s) return;
    /* README: 12 revolute (limited), 10 fixed, 23 links, 13.741 kg; 10 boxes, 8 cylinders,
     * 4 spheres */
    check_counts(s, 23, 12, 12, 12, 13.741);
    int kinds[8] = {0};
    for (size_t g = 0; g < s->ngeoms; g++) kinds[s->geoms[g].shape.kind]++;
    assert_int_equal(kinds[LUCID_SHAPE_BOX], 10);
    assert_int_equal(kinds[LUCID_SHAPE_CYLINDER], 8);
    assert_int_equal(kinds[LUCID_SHAPE_SPHERE], 4);
    for (size_t j = 0; j < s->njoints; j++) assert_true(s->joints[j].limited);
    const lucid_joint_spec *j = joint(s, "FR_hip_joint");
    near(j->lower, -0.8028514559173915, 0), near(j->upper, 0.8028514559173915, 0);
    near(j->effort_limit, 33.5, 0), near(j->velocity_limit, 21, 0);
    lucid_model_spec_destroy(s);
    s = shared("a1.urdf", 1);
    check_counts(s, 23, 19, 18, 12, 13.741);
    lucid_model_spec_destroy(s);
}

static void test_simple_humanoid(void **state) {
    (void)state;
    lucid_model_spec *s = shared("simple_humanoid.urdf", 0);
    if (!s) return;
    /* README: 29 revolute, every <limit lower="0" upper="0"> (unlimited), 130.8 kg; with
     * meshes skipped only the cylinder 'test' (r = 1 m, length 1 m) is left */
    check_counts(s, 30, 29, 29, 29, 130.8);
    for (size_t j = 0; j < s->njoints; j++) assert_false(s->joints[j].limited);
    assert_int_equal((int)s->ngeoms, 1);
    assert_string_equal(s->geoms[0].name, "test");
    near(s->geoms[0].shape.u.round.radius, 1.0, 0);
    near(s->geoms[0].shape.u.round.half_length, 0.5, 0);
    lucid_model_spec_destroy(s);
    s = shared("simple_humanoid.urdf", 1);
    check_counts(s, 30, 36, 35, 29, 130.8);
    lucid_model_spec_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms_tree),
        cmocka_unit_test(test_forms_joints),
        cmocka_unit_test(test_forms_geoms),
        cmocka_unit_test(test_forms_options),
        cmocka_unit_test(test_meshes_option),
        cmocka_unit_test(test_noise_warned),
        cmocka_unit_test(test_inertia_repair_random),
        cmocka_unit_test(test_noise_strict),
        cmocka_unit_test(test_massless_leaf),
        cmocka_unit_test(test_dae_collision),
        cmocka_unit_test(test_xml_version),
        cmocka_unit_test(test_ur5),
        cmocka_unit_test(test_a1),
        cmocka_unit_test(test_simple_humanoid),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (failed) return failed;
    if (skipped) {
        fprintf(stderr, "test_urdf_load: the shared robots were not loaded (above): skipped\n");
        return 77;
    }
    return 0;
}
