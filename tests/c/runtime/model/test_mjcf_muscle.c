/* MuJoCo 2.2.2's muscles against libmujoco (dlopen'ed: a test-only dependency) on
 * tests/data/model/mjcf_muscle.xml (a motor; <muscle> on hinges, one from a default class, and
 * on a fixed tendon; a general actuator with a muscle gain, an affine bias and a filter):
 *   - each muscle's parameters (gainprm, biasprm, dynprm), lengthrange and acc0 (lucid's
 *     compiler: |M^-1 moment| at the neutral configuration) equal MuJoCo's;
 *   - at 200 random states, controls and activations (normalised lengths below lmin and beyond
 *     lmax, shortening and lengthening, controls and activations outside [0, 1]):
 *     qfrc_actuator and act_dot equal MuJoCo's mj_fwdActuation to 1e-12 relative;
 *   - keyframes: act equals MuJoCo's key_act;
 *   - 250 steps in lucid's world against mj_step (Euler) from the keyframe "start", controls
 *     held: every actuator force is explicit in both, so q and act equal MuJoCo's to 1e-12.
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
#include "runtime/world/world.h"

#include "tests/c/common/test_mujoco_compare.h"
#include "tests/c/common/test_random.h"

#define MODEL  LUCID_SOURCE_DIR "/tests/data/model/mjcf_muscle.xml"
#define STATES 200
#define TOL    1e-12
#define STEPS  250

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
    assert_int_equal((int)lucid_model_na(lm), mm->na);
    assert_true(mm->na == 4 && mm->nq == mm->nv && mm->nq == 2);
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

static void test_compiled(void **state) {
    (void)state;
    if (!have_mujoco()) return;
    const lucid_model_actuator *act = lucid_model_actuators(lm);
    int muscles = 0;
    for (int a = 0; a < mm->nu; a++) {
        const lucid_model_actuator *A = &act[a];
        assert_string_equal(A->name, mm->names + mm->name_actuatoradr[a]);
        static const int dyn[] = {mjDYN_NONE, mjDYN_INTEGRATOR, mjDYN_FILTER, mjDYN_MUSCLE};
        assert_int_equal(dyn[A->dyn], mm->actuator_dyntype[a]);
        assert_int_equal(A->gain_muscle, mm->actuator_gaintype[a] == mjGAIN_MUSCLE);
        assert_int_equal(A->bias_muscle, mm->actuator_biastype[a] == mjBIAS_MUSCLE);
        assert_int_equal(A->act,
                         mm->actuator_dyntype[a] == mjDYN_NONE ? -1 : a - (mm->nu - mm->na));
        if (A->dyn == LUCID_ACTUATOR_DYN_MUSCLE)
            compare("dynprm", A->muscle_tau, mm->actuator_dynprm + mjNDYN * a, 2, 0.0, a);
        if (A->gain_muscle)
            compare("gainprm", A->gainprm, mm->actuator_gainprm + mjNGAIN * a, 9, 0.0, a);
        if (A->bias_muscle)
            compare("biasprm", A->biasprm, mm->actuator_biasprm + mjNBIAS * a, 9, 0.0, a);
        if (A->gain_muscle || A->bias_muscle) {
            compare("lengthrange", A->lengthrange, mm->actuator_lengthrange + 2 * a, 2, 0.0, a);
            compare("acc0", &A->acc0, mm->actuator_acc0 + a, 1, 1e-12, a);
            muscles++;
        }
    }
    assert_int_equal(muscles, 4);
}

/* A random state, controls and activations (beyond their ranges too) in MuJoCo's data. */
static void random_state(uint64_t *seed) {
    mj.reset_data(mm, md);
    for (int i = 0; i < mm->nq; i++) md->qpos[i] = xorshift_range(seed, -2, 2);
    for (int i = 0; i < mm->nv; i++) md->qvel[i] = xorshift_range(seed, -3, 3);
    for (int i = 0; i < mm->nu; i++) md->ctrl[i] = xorshift_range(seed, -0.5, 1.5);
    for (int i = 0; i < mm->na; i++) md->act[i] = xorshift_range(seed, -0.5, 1.5);
}

static void test_forces(void **state) {
    (void)state;
    if (!have_mujoco()) return;
    size_t nv = (size_t)mm->nv, na = (size_t)mm->na;
    double *tau = calloc(nv, sizeof *tau), *act_dot = calloc(na, sizeof *act_dot);
    assert_true(tau && act_dot);
    const lucid_model_actuator *A = lucid_model_actuators(lm);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    double worst[2] = {0.0, 0.0};
    int below = 0, above = 0, inside = 0; /* the flexor's normalised length against lmin, lmax */
    for (int s = 0; s < STATES; s++) {
        random_state(&seed);
        mj.fwd_position(mm, md);
        mj.fwd_velocity(mm, md);
        mj.fwd_actuation(mm, md);
        lucid_model_actuation(lm, md->qpos, md->qvel, md->ctrl, md->act, tau);
        worst[0] = fmax(worst[0], compare("qfrc_actuator", tau, md->qfrc_actuator, nv, TOL, s));
        for (int a = 0; a < mm->nu; a++)
            if (A[a].act >= 0)
                act_dot[A[a].act] =
                    lucid_model_actuator_act_dot(&A[a], md->ctrl[a], md->act[A[a].act]);
        worst[1] = fmax(worst[1], compare("act_dot", act_dot, md->act_dot, na, TOL, s));
        const double *prm = mm->actuator_gainprm + mjNGAIN * 1, *lr = mm->actuator_lengthrange + 2;
        double L0 = (lr[1] - lr[0]) / (prm[1] - prm[0]);
        double l = prm[0] + (md->actuator_length[1] - lr[0]) / L0;
        l<prm[4] ? below++ : l> prm[5] ? above++ : inside++;
    }
    printf("%d states: worst relative gaps qfrc_actuator %.2g, act_dot %.2g; the flexor's "
           "normalised length below lmin %d, beyond lmax %d, between %d\n",
           STATES, worst[0], worst[1], below, above, inside);
    assert_true(below > 0 && above > 0 && inside > 0);
    free(tau);
    free(act_dot);
}

static void test_keyframes(void **state) {
    (void)state;
    if (have_mujoco()) mujoco_compare_keyframes(lm, mm);
}

/* 250 steps of file `path` from its keyframe "start" in lucid's world and by mj_step, controls
 * held; the largest q and v gaps. */
static void trajectory(const char *path, double *gap_q, double *gap_v) {
    mjModel *tm;
    mjData *td;
    mujoco_load_file(&mj, path, &tm, &td);
    lucid_model *tl = test_load_model(path);
    int k = lucid_model_find_keyframe(tl, "start");
    assert_true(k >= 0);
    mj.reset_keyframe(tm, td, k);
    const double u[5] = {0.3, 0.9, 1.5, 0.2, 0.6}; /* the extensor's beyond its ctrlrange */
    memcpy(td->ctrl, u, sizeof u);
    int id;
    lucid_world *w = mujoco_world_of(tl, td, 1, &id);
    double gap_act = 0.0, travel = 0.0;
    *gap_q = *gap_v = 0.0;
    for (int s = 0; s < STEPS; s++) {
        mj.step(tm, td);
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        const double *q = lucid_world_model_q(w, id), *v = lucid_world_model_v(w, id);
        const double *act = lucid_world_model_act(w, id);
        for (int i = 0; i < tm->nq; i++) {
            *gap_q = fmax(*gap_q, fabs(q[i] - td->qpos[i]));
            *gap_v = fmax(*gap_v, fabs(v[i] - td->qvel[i]));
            travel = fmax(travel, fabs(td->qpos[i] - tm->key_qpos[tm->nq * k + i]));
        }
        for (int i = 0; i < tm->na; i++) gap_act = fmax(gap_act, fabs(act[i] - td->act[i]));
        assert_int_equal(lucid_world_contact_count(w), 0);
    }
    printf("%s: %d steps of %g s: max |act gap| %.3g, |q gap| %.3g, |v gap| %.3g "
           "(MuJoCo's joints moved up to %.3g)\n",
           strrchr(path, '/') + 1, STEPS, tm->opt.timestep, gap_act, *gap_q, *gap_v, travel);
    assert_true(gap_act <= 1e-12);
    assert_true(travel > 0.5);
    lucid_world_destroy(w);
    mujoco_free_both(&mj, tm, td, tl);
}

static void test_trajectory(void **state) {
    (void)state;
    if (!have_mujoco()) return;
    double gap_q, gap_v;
    trajectory(MODEL, &gap_q, &gap_v);
    assert_true(gap_q <= 1e-12); /* the same step, rounding apart */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compiled),
        cmocka_unit_test(test_forces),
        cmocka_unit_test(test_keyframes),
        cmocka_unit_test(test_trajectory),
    };
    int failed = cmocka_run_group_tests(tests, setup, teardown);
    return mujoco_test_result(failed, skipped, "test_mjcf_muscle", "MuJoCo 2.2.2 missing");
}
#else
int main(void) {
    return mujoco_test_result(0, 1, "test_mjcf_muscle", "MuJoCo 2.2.2 missing");
}
#endif
