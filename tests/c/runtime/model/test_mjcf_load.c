/* The MJCF loader against MuJoCo 2.2.2's own compiler (libmujoco, dlopen'ed at run time: a
 * test-only dependency): for every model, the counts (bodies, joints, nq, nv, actuators,
 * geoms, excludes), and per body the mass, centre of mass, inertia tensor and placement,
 * per joint its kind, anchor, axis, limits, ref, springref, damping, armature and stiffness,
 * per geom its kind, size, pose, contact parameters (friction, condim, priority, solmix, margin,
 * gap) and collision masks, per actuator its joint,
 * gear, gain, control and force ranges, all to 1e-9 relative. Models: the repository's
 * tests/data/model/mjcf_forms.xml (every honoured form), mjcf_mesh.xml (mesh assets),
 * mjcf_actuators.xml (every actuator kind), MuJoCo's
 * humanoid.xml (Debian libmujoco-samples) and ../shared/data/robots/allegro_right_hand.xml,
 * allegro_cube.xml (exit 77 with a message when ../shared or MuJoCo is missing; CI has both). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/model/model_load.h"
#include "runtime/shapes/convex_mesh.h"

#include "tests/c/common/test_mujoco_compare.h"

#define TOL 1e-9

static int skipped; /* a model or MuJoCo was missing */

/* Relative tolerance on masses, centres of mass and inertias: TOL, except for bodies whose
 * inertia comes from mesh geoms, where MuJoCo 2.2.2 is only single-precision accurate (its
 * mesh vertices and mesh inertia are floats: a gap of 4e-9 measured on mjcf_mesh.xml). Those
 * are checked against the exact value in test_mesh instead. */
static double inertial_tol = TOL;

static lucid_model_spec *load(const char *path) {
    lucid_model_spec *s = NULL;
    char err[1024];
    lucid_status st = lucid_model_spec_load(path, NULL, &s, err, sizeof err);
    if (st != LUCID_OK) fprintf(stderr, "%s\n", err);
    assert_int_equal(st, LUCID_OK);
    return s;
}

static void joint_dims(lucid_joint_kind k, int *nq, int *nv) {
    *nq = k == LUCID_JOINT_FREE        ? 7
          : k == LUCID_JOINT_SPHERICAL ? 4
          : k == LUCID_JOINT_FIXED     ? 0
                                       : 1;
    *nv = k == LUCID_JOINT_FREE        ? 6
          : k == LUCID_JOINT_SPHERICAL ? 3
          : k == LUCID_JOINT_FIXED     ? 0
                                       : 1;
}

#if HAVE_MUJOCO
/* |a - b| <= tol * max(scale, |a|, |b|) */
static void near_tol(double a, double b, double scale, double rel, const char *what, int index) {
    double tol = rel * fmax(scale, fmax(fabs(a), fabs(b)));
    if (!(fabs(a - b) <= tol)) {
        fprintf(stderr, "%s[%d]: lucid %.17g, MuJoCo %.17g\n", what, index, a, b);
        fail();
    }
}

static void near(double a, double b, double scale, const char *what, int index) {
    near_tol(a, b, scale, TOL, what, index);
}

static void near_vec(lucid_vec3 a, const double *b, double scale, const char *what, int index) {
    near(a.x, b[0], scale, what, index);
    near(a.y, b[1], scale, what, index);
    near(a.z, b[2], scale, what, index);
}

static lucid_mat3 quat_matrix(const double *q) {
    lucid_quat u = lucid_quat_make(q[0], q[1], q[2], q[3]);
    lucid_quat_normalize(&u);
    return lucid_quat_to_mat3(u);
}

static void near_rotation(const lucid_mat3 *R, const double *q, const char *what, int index) {
    lucid_mat3 M = quat_matrix(q);
    for (int i = 0; i < 9; i++) near(R->m[i], M.m[i], 1.0, what, index);
}

static int mujoco_joint_type(lucid_joint_kind k) {
    switch (k) {
        case LUCID_JOINT_FREE:
            return mjJNT_FREE;
        case LUCID_JOINT_SPHERICAL:
            return mjJNT_BALL;
        case LUCID_JOINT_PRISMATIC:
            return mjJNT_SLIDE;
        case LUCID_JOINT_REVOLUTE:
            return mjJNT_HINGE;
        default:
            return -1;
    }
}

static int mujoco_geom_type(const lucid_shape *s) {
    switch (s->kind) {
        case LUCID_SHAPE_HALFSPACE:
            return mjGEOM_PLANE;
        case LUCID_SHAPE_SPHERE:
            return mjGEOM_SPHERE;
        case LUCID_SHAPE_CAPSULE:
            return mjGEOM_CAPSULE;
        case LUCID_SHAPE_ELLIPSOID:
            return mjGEOM_ELLIPSOID;
        case LUCID_SHAPE_CYLINDER:
            return mjGEOM_CYLINDER;
        case LUCID_SHAPE_BOX:
            return mjGEOM_BOX;
        case LUCID_SHAPE_CONVEX:
            return mjGEOM_MESH;
        default:
            return -1;
    }
}

/* The MuJoCo size triple of a lucid primitive. */
static void mujoco_size(const lucid_shape *s, double out[3]) {
    out[0] = out[1] = out[2] = 0.0;
    switch (s->kind) {
        case LUCID_SHAPE_SPHERE:
            out[0] = s->radius;
            break;
        case LUCID_SHAPE_CAPSULE:
            out[0] = s->radius, out[1] = s->u.half_length;
            break;
        case LUCID_SHAPE_CYLINDER:
            out[0] = s->u.round.radius, out[1] = s->u.round.half_length;
            break;
        case LUCID_SHAPE_ELLIPSOID:
            lucid_vec3_store(s->u.radii, out);
            break;
        case LUCID_SHAPE_BOX:
            lucid_vec3_store(s->u.half_extents, out);
            break;
        default:
            break;
    }
}

static void compare_bodies(const mujoco_api *mj, const lucid_model_spec *s, const mjModel *m) {
    assert_int_equal((int)s->nbodies + 1, m->nbody);
    for (int b = 0; b < (int)s->nbodies; b++) {
        const lucid_body_spec *B = &s->bodies[b];
        int mb = b + 1;
        if (B->name) assert_string_equal(B->name, m->names + m->name_bodyadr[mb]);
        assert_int_equal(B->parent + 1, m->body_parentid[mb]);
        near_tol(B->mass, m->body_mass[mb], 0.0, inertial_tol, "body mass", b);
        near_vec(B->placement.t, m->body_pos + 3 * mb, 1.0, "body pos", b);
        near_rotation(&B->placement.R, m->body_quat + 4 * mb, "body quat", b);
        if (B->mass == 0.0) continue;
        for (int i = 0; i < 3; i++)
            near_tol(lucid_vec3_get(B->com, i), m->body_ipos[3 * mb + i], 1.0, inertial_tol,
                     "body ipos", b);
        /* MuJoCo's principal frame and moments, back in body axes: R diag(I) R^T */
        lucid_mat3 R = quat_matrix(m->body_iquat + 4 * mb);
        lucid_mat3 D = lucid_mat3_diag(lucid_vec3_load(m->body_inertia + 3 * mb));
        lucid_mat3 RD = lucid_mat3_mul(&R, &D), Rt = lucid_mat3_transpose(&R);
        lucid_mat3 I = lucid_mat3_mul(&RD, &Rt);
        double scale = 0.0, gap = 0.0;
        for (int i = 0; i < 9; i++) scale = fmax(scale, fabs(B->inertia.m[i]));
        for (int i = 0; i < 9; i++) gap = fmax(gap, fabs(B->inertia.m[i] - I.m[i]));
        if (gap <= inertial_tol * scale) continue;
        /* A full tensor that MuJoCo diagonalised with mju_eig3, whose eigenvectors are only
         * accurate to ~1e-8 relative (measured: its own reconstruction residual): then the
         * same mju_eig3 applied to lucid's tensor must give MuJoCo's compiled principal
         * moments and axes to 1e-9, i.e. both fed the same tensor to the diagonalisation. */
        double M[9], ev[3], vec[9], q[4];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) M[3 * i + j] = lucid_mat3_at(&B->inertia, i, j);
        mj->eig3(ev, vec, q, M);
        for (int i = 0; i < 3; i++)
            near(ev[i], m->body_inertia[3 * mb + i], scale, "principal inertia", b);
        lucid_mat3 Q = quat_matrix(q);
        near_rotation(&Q, m->body_iquat + 4 * mb, "principal axes", b);
    }
}

static void compare_joints(const lucid_model_spec *s, const mjModel *m) {
    assert_int_equal((int)s->njoints, m->njnt);
    int nq = 0, nv = 0;
    for (int j = 0; j < (int)s->njoints; j++) {
        const lucid_joint_spec *J = &s->joints[j];
        int jq, jv;
        joint_dims(J->kind, &jq, &jv);
        assert_int_equal(m->jnt_qposadr[j], nq);
        assert_int_equal(m->jnt_dofadr[j], nv);
        nq += jq, nv += jv;
        assert_int_equal(mujoco_joint_type(J->kind), m->jnt_type[j]);
        assert_int_equal(s->joint_body[j] + 1, m->jnt_bodyid[j]);
        if (J->name) assert_string_equal(J->name, m->names + m->name_jntadr[j]);
        if (J->kind == LUCID_JOINT_FREE) continue;
        near_vec(J->anchor, m->jnt_pos + 3 * j, 1.0, "joint pos", j);
        if (J->kind != LUCID_JOINT_SPHERICAL)
            near_vec(lucid_vec3_normalized(J->axis), m->jnt_axis + 3 * j, 1.0, "joint axis", j);
        assert_int_equal(J->limited, m->jnt_limited[j]);
        if (J->limited) {
            near(J->lower, m->jnt_range[2 * j], 1.0, "joint lower", j);
            near(J->upper, m->jnt_range[2 * j + 1], 1.0, "joint upper", j);
        }
        int d = m->jnt_dofadr[j], q = m->jnt_qposadr[j];
        near(J->damping, m->dof_damping[d], 0.0, "joint damping", j);
        near(J->armature, m->dof_armature[d], 0.0, "joint armature", j);
        near(J->stiffness, m->jnt_stiffness[j], 0.0, "joint stiffness", j);
        near(J->frictionloss, m->dof_frictionloss[d], 0.0, "joint frictionloss", j);
        if (J->kind == LUCID_JOINT_SPHERICAL) continue;
        near(J->ref, m->qpos0[q], 1.0, "joint ref", j);
        near(J->springref, m->qpos_spring[q], 1.0, "joint springref", j);
    }
    assert_int_equal(nq, m->nq);
    assert_int_equal(nv, m->nv);
}

static void compare_geoms(const lucid_model_spec *s, const mjModel *m) {
    assert_int_equal((int)s->ngeoms, m->ngeom);
    /* the k-th geom of a body in the spec is the k-th geom of that body in MuJoCo */
    for (int g = 0; g < m->ngeom; g++) {
        int body = m->geom_bodyid[g] - 1, k = g - m->body_geomadr[body + 1], found = -1;
        for (int i = 0, seen = 0; i < (int)s->ngeoms && found < 0; i++)
            if (s->geoms[i].body == body && seen++ == k) found = i;
        assert_true(found >= 0);
        const lucid_geom_spec *G = &s->geoms[found];
        assert_int_equal(mujoco_geom_type(&G->shape), m->geom_type[g]);
        assert_int_equal((int)G->contype, m->geom_contype[g]);
        assert_int_equal((int)G->conaffinity, m->geom_conaffinity[g]);
        near(G->friction, m->geom_friction[3 * g], 0.0, "geom friction", g);
        near(G->torsion, m->geom_friction[3 * g + 1], 0.0, "geom torsional friction", g);
        near(G->rolling, m->geom_friction[3 * g + 2], 0.0, "geom rolling friction", g);
        assert_int_equal(G->condim, m->geom_condim[g]);
        assert_int_equal(G->priority, m->geom_priority[g]);
        near(G->solmix, m->geom_solmix[g], 0.0, "geom solmix", g);
        near(G->margin, m->geom_margin[g], 0.0, "geom margin", g);
        near(G->gap, m->geom_gap[g], 0.0, "geom gap", g);
        if (G->shape.kind == LUCID_SHAPE_CONVEX) continue; /* MuJoCo recentres meshes */
        near_vec(G->pose.t, m->geom_pos + 3 * g, 1.0, "geom pos", g);
        near_rotation(&G->pose.R, m->geom_quat + 4 * g, "geom quat", g);
        if (G->shape.kind == LUCID_SHAPE_HALFSPACE) continue;
        double size[3];
        mujoco_size(&G->shape, size);
        int used = G->shape.kind == LUCID_SHAPE_SPHERE ? 1
                   : (G->shape.kind == LUCID_SHAPE_CAPSULE || G->shape.kind == LUCID_SHAPE_CYLINDER)
                       ? 2
                       : 3;
        for (int i = 0; i < used; i++) near(size[i], m->geom_size[3 * g + i], 0.0, "geom size", g);
    }
}

static void compare_actuators(const lucid_model_spec *s, const mjModel *m) {
    assert_int_equal((int)s->nactuators, m->nu);
    for (int a = 0; a < m->nu; a++) {
        const lucid_actuator_spec *A = &s->actuators[a];
        assert_int_equal(m->actuator_trntype[a], mjTRN_JOINT);
        assert_int_equal(A->joint, m->actuator_trnid[2 * a]);
        near(A->gear, m->actuator_gear[6 * a], 0.0, "actuator gear", a);
        const double *g = m->actuator_gainprm + mjNGAIN * a, *b = m->actuator_biasprm + mjNBIAS * a;
        assert_int_equal(m->actuator_dyntype[a], mjDYN_NONE);
        switch (A->kind) {
            case LUCID_ACTUATOR_POSITION:
                near(A->kp, g[0], 0.0, "actuator kp", a);
                near(-A->kp, b[1], 0.0, "actuator bias", a);
                assert_int_equal(m->actuator_biastype[a], mjBIAS_AFFINE);
                break;
            case LUCID_ACTUATOR_VELOCITY:
                near(A->kv, g[0], 0.0, "actuator kv", a);
                near(-A->kv, b[2], 0.0, "actuator bias", a);
                assert_int_equal(m->actuator_biastype[a], mjBIAS_AFFINE);
                break;
            case LUCID_ACTUATOR_DAMPER:
                near(-A->kv, g[2], 0.0, "damper gain", a);
                assert_int_equal(m->actuator_gaintype[a], mjGAIN_AFFINE);
                assert_int_equal(m->actuator_biastype[a], mjBIAS_NONE);
                break;
            case LUCID_ACTUATOR_GENERAL: /* the parameters each type reads */
                for (int k = 0; k < 3; k++) {
                    if (k == 0 || m->actuator_gaintype[a] == mjGAIN_AFFINE)
                        near(A->gain[k], g[k], 0.0, "actuator gain", a);
                    if (m->actuator_biastype[a] == mjBIAS_AFFINE)
                        near(A->bias[k], b[k], 0.0, "actuator bias", a);
                }
                break;
            default:
                near(1.0, g[0], 0.0, "motor gain", a);
                assert_int_equal(m->actuator_biastype[a], mjBIAS_NONE);
        }
        assert_int_equal(A->ctrl_limited, m->actuator_ctrllimited[a]);
        if (A->ctrl_limited) {
            near(A->ctrl_lower, m->actuator_ctrlrange[2 * a], 0.0, "ctrl lower", a);
            near(A->ctrl_upper, m->actuator_ctrlrange[2 * a + 1], 0.0, "ctrl upper", a);
        }
        assert_int_equal(A->force_limited, m->actuator_forcelimited[a]);
        if (A->force_limited) {
            near(A->force_lower, m->actuator_forcerange[2 * a], 0.0, "force lower", a);
            near(A->force_upper, m->actuator_forcerange[2 * a + 1], 0.0, "force upper", a);
        }
    }
}

static void compare_model(const char *path) {
    mujoco_api mj;
    if (!load_mujoco(&mj)) {
        fprintf(stderr, "MuJoCo 2.2.2 (libmujoco.so) not found: %s not compared\n", path);
        skipped = 1;
        return;
    }
    char err[1024] = "";
    mjModel *m = mj.load_xml(path, NULL, err, sizeof err);
    if (!m) fprintf(stderr, "MuJoCo: %s\n", err);
    assert_non_null(m);
    lucid_model_spec *s = load(path);
    near(s->timestep, m->opt.timestep, 0.0, "timestep", 0);
    near_vec(s->gravity, m->opt.gravity, 1.0, "gravity", 0);
    compare_bodies(&mj, s, m);
    compare_joints(s, m);
    compare_geoms(s, m);
    compare_actuators(s, m);
    assert_int_equal((int)s->nexcludes, m->nexclude);
    for (int e = 0; e < m->nexclude; e++) {
        /* MuJoCo 2.2.2 signs a pair of body ids b with (b1 + 1) << 16 | (b2 + 1) */
        int b1 = s->excludes[e][0] + 2, b2 = s->excludes[e][1] + 2;
        int sig = m->exclude_signature[e];
        assert_true(sig == (b1 << 16) + b2 || sig == (b2 << 16) + b1);
    }
    printf("%s: %zu bodies, %zu joints, %zu geoms, %zu actuators: as MuJoCo compiles it\n", path,
           s->nbodies, s->njoints, s->ngeoms, s->nactuators);
    lucid_model_spec_destroy(s);
    mj.delete_model(m);
}
#else
static void compare_model(const char *path) {
    fprintf(stderr, "built without <mujoco/mujoco.h>: %s not compared\n", path);
    skipped = 1;
}
#endif

static void test_forms(void **state) {
    (void)state;
    compare_model(LUCID_SOURCE_DIR "/tests/data/model/mjcf_forms.xml");
}

/* <compiler balanceinertia="true">: diag and full inertias violating A + B >= C balanced as
 * MuJoCo balances them; valid ones untouched (without the option the file is refused:
 * tests/data/model/bad_mjcf_inertia.xml). */
static void test_balance(void **state) {
    (void)state;
    compare_model(LUCID_SOURCE_DIR "/tests/data/model/mjcf_balance.xml");
}

/* size and friction layered through nested classes number by number (MuJoCo's reading) */
static void test_layered_defaults(void **state) {
    (void)state;
    compare_model(LUCID_SOURCE_DIR "/tests/data/model/mjcf_defaults_layered.xml");
}

static void test_actuators(void **state) {
    (void)state;
    compare_model(LUCID_SOURCE_DIR "/tests/data/model/mjcf_actuators.xml");
}

static void test_mesh(void **state) {
    (void)state;
    const char *path = LUCID_SOURCE_DIR "/tests/data/model/mjcf_mesh.xml";
    inertial_tol = 1e-7;
    compare_model(path);
    inertial_tol = TOL;
    /* the exact mass: wedges of volume 2 sx sy sz at density 900 and mass 2, a sphere of radius
     * 0.05 at density 1000 */
    lucid_model_spec *s = load(path);
    double want = 900.0 * 2.0 * 0.125 * 0.0625 * 0.25 + 2.0 +
                  1000.0 * 4.0 / 3.0 * 3.14159265358979323846 * 0.05 * 0.05 * 0.05;
    assert_true(fabs(s->bodies[0].mass - want) <= 1e-15 * want);
    assert_int_equal(s->geoms[0].shape.kind, LUCID_SHAPE_CONVEX);
    assert_int_equal(s->geoms[0].shape.u.mesh->num_vertices, 6);
    lucid_model_spec_destroy(s);
}

static void test_humanoid(void **state) {
    (void)state;
    const char *path = "/usr/share/mujoco/model/humanoid/humanoid.xml";
    if (!test_file_exists(path)) {
        fprintf(stderr, "%s missing (Debian libmujoco-samples): skipped\n", path);
        skipped = 1;
        return;
    }
    compare_model(path);
    /* counts as the file's header states: 27 dof, 21 actuators */
    lucid_model_spec *s = load(path);
    int nq = 0, nv = 0;
    for (size_t j = 0; j < s->njoints; j++) {
        int a, b;
        joint_dims(s->joints[j].kind, &a, &b);
        nq += a, nv += b;
    }
    assert_int_equal(nv, 27);
    assert_int_equal(nq, 28);
    assert_int_equal((int)s->nactuators, 21);
    assert_int_equal((int)s->nbodies, 16);
    lucid_model_spec_destroy(s);
}

static void shared_model(const char *name, int bodies, int nq, int nv, int nu, double mass) {
    char path[1024];
    snprintf(path, sizeof path, "%s/data/robots/%s", test_shared_dir(), name);
    if (!test_file_exists(path)) {
        fprintf(stderr, "%s missing (../shared absent; LUCID_SHARED_DIR overrides): skipped\n",
                path);
        skipped = 1;
        return;
    }
    compare_model(path);
    lucid_model_spec *s = load(path);
    int q = 0, v = 0;
    double total = 0.0;
    for (size_t j = 0; j < s->njoints; j++) {
        int a, b;
        joint_dims(s->joints[j].kind, &a, &b);
        q += a, v += b;
    }
    for (size_t b = 0; b < s->nbodies; b++) total += s->bodies[b].mass;
    assert_int_equal((int)s->nbodies, bodies);
    assert_int_equal(q, nq);
    assert_int_equal(v, nv);
    assert_int_equal((int)s->nactuators, nu);
    assert_true(fabs(total - mass) <= 1e-6 * mass); /* README: rounded to 1e-6 kg */
    lucid_model_spec_destroy(s);
}

static void test_allegro(void **state) {
    (void)state;
    /* README of ../shared/data/robots: nq = nv = 16, 16 position actuators, 0.530724 kg */
    shared_model("allegro_right_hand.xml", 21, 16, 16, 16, 0.530724);
}

static void test_allegro_cube(void **state) {
    (void)state;
    shared_model("allegro_cube.xml", 22, 23, 22, 16, 0.530724 + 0.0875);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),        cmocka_unit_test(test_actuators),
        cmocka_unit_test(test_mesh),         cmocka_unit_test(test_balance),
        cmocka_unit_test(test_humanoid),     cmocka_unit_test(test_allegro),
        cmocka_unit_test(test_allegro_cube), cmocka_unit_test(test_layered_defaults),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return mujoco_test_result(failed, skipped, "test_mjcf_load",
                              "some models were not compared (above)");
}
