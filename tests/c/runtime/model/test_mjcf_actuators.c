/* MJCF actuators and keyframes against MuJoCo 2.2.2 (libmujoco dlopen'ed: a test-only
 * dependency) on tests/data/model/mjcf_actuators.xml (motor, position, velocity, damper and
 * general actuators with affine gain and bias, gears, control and force ranges, defaults shared
 * by every actuator type; three keyframes over free, ball, hinge and slide joints):
 *   - each compiled actuator's gain/bias form equals MuJoCo's gainprm/biasprm under its
 *     gaintype/biastype, and its gear and ranges;
 *   - qfrc_actuator: lucid_model_actuation at 200 random states and controls (controls beyond
 *     the control ranges, forces beyond the force ranges: both clamps are hit, and missed) equals
 *     MuJoCo's mj_fwdActuation to 1e-9 relative to the largest entry;
 *   - keyframes: lucid's q, v, u of each keyframe equal MuJoCo's qpos, qvel, ctrl after
 *     mj_resetDataKeyframe, mapped to lucid's layout (a free joint's q is its pose relative to
 *     its placement, v its body twist; quaternions normalised), to 1e-12.
 * Exit 77 with a message when MuJoCo is missing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/model/model.h"
#include "runtime/model/model_load.h"

#include "tests/c/common/test_mujoco_compare.h"
#include "tests/c/common/test_random.h"

#define MODEL  LUCID_SOURCE_DIR "/tests/data/model/mjcf_actuators.xml"
#define STATES 200
#define TOL    1e-9

#if HAVE_MUJOCO
static int skipped;
static mujoco_api mj;
static mjModel *mm;
static mjData *md;
static lucid_model *lm;

static int setup(void **state) {
    (void)state;
    if (!load_mujoco(&mj)) return 0;
    mujoco_load_both(&mj, MODEL, &mm, &md, &lm);
    /* lucid's nodes are MuJoCo's joints, in the same order, at the same coordinates */
    for (int j = 0; j < mm->njnt; j++) {
        assert_int_equal((int)lucid_model_joint_idx_q(lm, (size_t)j), mm->jnt_qposadr[j]);
        assert_int_equal((int)lucid_model_joint_idx_v(lm, (size_t)j), mm->jnt_dofadr[j]);
    }
    return 0;
}

static int teardown(void **state) {
    (void)state;
    mujoco_free_both(&mj, mm, md, lm);
    return 0;
}

static int have_mujoco(void) {
    return mujoco_loaded(mm != NULL, &skipped);
}

static void test_gain_bias(void **state) {
    (void)state;
    if (!have_mujoco()) return;
    const lucid_model_actuator *act = lucid_model_actuators(lm);
    for (int a = 0; a < mm->nu; a++) {
        const lucid_model_actuator *A = &act[a];
        assert_string_equal(A->name, mm->names + mm->name_actuatoradr[a]);
        assert_int_equal(mm->actuator_trntype[a], mjTRN_JOINT);
        assert_int_equal(A->joint, mm->actuator_trnid[2 * a]);
        assert_int_equal(mm->actuator_dyntype[a], mjDYN_NONE);
        const double *g = mm->actuator_gainprm + mjNGAIN * a,
                     *b = mm->actuator_biasprm + mjNBIAS * a;
        int affine_gain = mm->actuator_gaintype[a] == mjGAIN_AFFINE;
        int affine_bias = mm->actuator_biastype[a] == mjBIAS_AFFINE;
        double gain[3] = {g[0], affine_gain ? g[1] : 0.0, affine_gain ? g[2] : 0.0};
        double bias[3] = {affine_bias ? b[0] : 0.0, affine_bias ? b[1] : 0.0,
                          affine_bias ? b[2] : 0.0};
        compare("gain", A->gain, gain, 3, 0.0, a);
        compare("bias", A->bias, bias, 3, 0.0, a);
        compare("gear", &A->gear, mm->actuator_gear + 6 * a, 1, 0.0, a);
        assert_int_equal(A->ctrl_limited, mm->actuator_ctrllimited[a]);
        assert_int_equal(A->force_limited, mm->actuator_forcelimited[a]);
        if (A->ctrl_limited) {
            double r[2] = {A->ctrl_lower, A->ctrl_upper};
            compare("ctrlrange", r, mm->actuator_ctrlrange + 2 * a, 2, 0.0, a);
        }
        if (A->force_limited) {
            double r[2] = {A->force_lower, A->force_upper};
            compare("forcerange", r, mm->actuator_forcerange + 2 * a, 2, 0.0, a);
        }
    }
}

static void random_state(uint64_t *seed) {
    mj.reset_data(mm, md);
    for (int j = 0; j < mm->njnt; j++) {
        double *qp = md->qpos + mm->jnt_qposadr[j];
        switch (mm->jnt_type[j]) {
            case mjJNT_FREE:
                for (int i = 0; i < 3; i++) qp[i] = xorshift_range(seed, -1, 1);
                xorshift_quat(seed, qp + 3);
                break;
            case mjJNT_BALL:
                xorshift_quat(seed, qp);
                break;
            default:
                qp[0] = xorshift_range(seed, -2, 2);
        }
    }
    for (int i = 0; i < mm->nv; i++) md->qvel[i] = xorshift_range(seed, -3, 3);
    for (int i = 0; i < mm->nu; i++) md->ctrl[i] = xorshift_range(seed, -3, 3);
}

/* Whether MuJoCo's actuator force sits on a bound of its force range. */
static int force_clamped(int a) {
    if (!mm->actuator_forcelimited[a]) return 0;
    double f = md->actuator_force[a];
    return f == mm->actuator_forcerange[2 * a] || f == mm->actuator_forcerange[2 * a + 1];
}

static void test_qfrc_actuator(void **state) {
    (void)state;
    if (!have_mujoco()) return;
    size_t nv = (size_t)mm->nv;
    double *tau = calloc(nv, sizeof *tau);
    assert_non_null(tau);
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    int clamped = 0, free_limited = 0, ctrl_clamped = 0;
    double worst = 0.0;
    for (int s = 0; s < STATES; s++) {
        random_state(&seed);
        mj.fwd_position(mm, md);
        mj.fwd_velocity(mm, md);
        mj.fwd_actuation(mm, md);
        /* actuated joints are hinges and slides: their coordinates are MuJoCo's */
        lucid_model_actuation(lm, md->qpos, md->qvel, md->ctrl, NULL, tau);
        worst = fmax(worst, compare("qfrc_actuator", tau, md->qfrc_actuator, nv, TOL, s));
        for (int a = 0; a < mm->nu; a++) {
            if (mm->actuator_forcelimited[a]) force_clamped(a) ? clamped++ : free_limited++;
            if (mm->actuator_ctrllimited[a] && (md->ctrl[a] < mm->actuator_ctrlrange[2 * a] ||
                                                md->ctrl[a] > mm->actuator_ctrlrange[2 * a + 1]))
                ctrl_clamped++;
        }
    }
    printf("qfrc_actuator: %d states, worst %.2g relative; force clamps hit %d, missed %d; "
           "controls clamped %d\n",
           STATES, worst, clamped, free_limited, ctrl_clamped);
    assert_true(clamped > 0 && free_limited > 0 && ctrl_clamped > 0);
    free(tau);
}

static void test_keyframes(void **state) {
    (void)state;
    if (!have_mujoco()) return;
    assert_int_equal((int)lucid_model_nkeyframes(lm), mm->nkey);
    assert_true(mm->nkey >= 3);
    size_t nq = (size_t)mm->nq, nv = (size_t)mm->nv, nu = (size_t)mm->nu;
    double *q = calloc(nq, sizeof *q), *v = calloc(nv, sizeof *v);
    assert_true(q && v);
    for (int k = 0; k < mm->nkey; k++) {
        const lucid_model_keyframe *K = &lucid_model_keyframes(lm)[k];
        const char *name = mm->names + mm->name_keyadr[k];
        assert_string_equal(K->name, name);
        if (name[0]) assert_int_equal(lucid_model_find_keyframe(lm, name), k);
        mj.reset_keyframe(mm, md, k);
        mj.kinematics(mm, md);
        /* MuJoCo's state in lucid's layout */
        memcpy(q, md->qpos, nq * sizeof *q);
        memcpy(v, md->qvel, nv * sizeof *v);
        for (int j = 0; j < mm->njnt; j++) {
            int iq = mm->jnt_qposadr[j], iv = mm->jnt_dofadr[j];
            if (mm->jnt_type[j] == mjJNT_BALL) {
                lucid_quat u = lucid_quat_make(q[iq], q[iq + 1], q[iq + 2], q[iq + 3]);
                lucid_quat_normalize(&u);
                q[iq] = u.w, q[iq + 1] = u.x, q[iq + 2] = u.y, q[iq + 3] = u.z;
            }
            if (mm->jnt_type[j] != mjJNT_FREE) continue;
            lucid_se3 X, P = lucid_model_joint_placement(lm, (size_t)j);
            lucid_quat u = lucid_quat_make(md->qpos[iq + 3], md->qpos[iq + 4], md->qpos[iq + 5],
                                           md->qpos[iq + 6]);
            lucid_quat_normalize(&u);
            assert_int_equal(lucid_se3_from_quat(u, lucid_vec3_load(md->qpos + iq), &X), LUCID_OK);
            lucid_se3 L = lucid_se3_between(&P, &X);
            lucid_quat lq = lucid_se3_to_quat(&L);
            lucid_vec3_store(L.t, q + iq);
            q[iq + 3] = lq.w, q[iq + 4] = lq.x, q[iq + 5] = lq.y, q[iq + 6] = lq.z;
            /* the body's world rotation: MuJoCo's xmat (row-major) */
            const double *xm = md->xmat + 9 * mm->jnt_bodyid[j];
            lucid_mat3 R = {{xm[0], xm[3], xm[6], xm[1], xm[4], xm[7], xm[2], xm[5], xm[8]}};
            lucid_vec3_store(lucid_mat3_tmul_vec(&R, lucid_vec3_load(md->qvel + iv)), v + iv);
        }
        compare("keyframe q", K->q, q, nq, 1e-12, k);
        compare("keyframe v", K->v, v, nv, 1e-12, k);
        compare("keyframe u", K->u, md->ctrl, nu, 0.0, k);
    }
    printf("keyframes: %d equal MuJoCo's mj_resetDataKeyframe\n", mm->nkey);
    free(q);
    free(v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gain_bias),
        cmocka_unit_test(test_qfrc_actuator),
        cmocka_unit_test(test_keyframes),
    };
    int failed = cmocka_run_group_tests(tests, setup, teardown);
    return mujoco_test_result(failed, skipped, "test_mjcf_actuators", "MuJoCo 2.2.2 missing");
}
#else
int main(void) {
    return mujoco_test_result(0, 1, "test_mjcf_actuators", "MuJoCo 2.2.2 missing");
}
#endif
