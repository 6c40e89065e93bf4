/* MJCF fixed tendons against MuJoCo 2.2.2 (libmujoco dlopen'ed: a test-only dependency) on
 * tests/data/model/mjcf_tendon_spring.xml (springs, dampers and actuators on tendons joining
 * two trees) and tests/data/model/mjcf_tendon_limit.xml (two limited tendons):
 *   - each compiled tendon equals MuJoCo's: joints, coefficients, range, stiffness, damping,
 *     frictionloss, margin and tendon_lengthspring (the length at qpos_spring unless given);
 *   - at 200 random states and controls: the tendon lengths and velocities, their moments (ten_J)
 *     and the actuator moments, qfrc_passive (the tendons' springs and dampers: the model has no
 *     joint springs or dampers) and qfrc_actuator equal MuJoCo's to 1e-9 relative;
 *   - 1 s of the spring model in lucid's world against mj_step (Euler) at the same dt: the two
 *     steps are the same semi-implicit Euler here (no joint damping, springs or armature, the
 *     tendons' forces explicit in both), so the gap is rounding, bounded by 1e-9 rad;
 *   - 2 s of the limit model pushed into its bounds: lucid's tendon lengths, solved to 1e-12,
 *     never pass the range by more than round-off (64 DBL_EPSILON of the lengths' scale: a limit
 *     rests at its bound), beside MuJoCo's soft limit's overshoot (printed);
 *   - tests/data/model/mjcf_tendon_friction.xml (two pendulums coupled by a tendon with
 *     frictionloss) released beyond its band: wherever MuJoCo's soft friction row is saturated
 *     (its force +-f) the two trajectories agree to 1e-6 rad, lucid's tendon force is f
 *     against the sliding too, and MuJoCo's stick creeps where lucid's holds (printed).
 * Exit 77 with a message when MuJoCo is missing. */
#include <float.h>
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
#include "runtime/world/world_internal.h"

#include "tests/c/common/test_mujoco_compare.h"
#include "tests/c/common/test_random.h"

#define SPRING   LUCID_SOURCE_DIR "/tests/data/model/mjcf_tendon_spring.xml"
#define LIMIT    LUCID_SOURCE_DIR "/tests/data/model/mjcf_tendon_limit.xml"
#define FRICTION LUCID_SOURCE_DIR "/tests/data/model/mjcf_tendon_friction.xml"
#define STATES   200
#define TOL      1e-9

static int skipped;

#if HAVE_MUJOCO
static mujoco_api mj;
static int have_api;

/* Both libraries' models of one file; 0 (skipped) without MuJoCo. */
static int load_both(const char *path, mjModel **mm, mjData **md, lucid_model **lm) {
    if (!mujoco_loaded(have_api, &skipped)) return 0;
    mujoco_load_both(&mj, path, mm, md, lm);
    assert_int_equal((int)lucid_model_ntendons(*lm), (*mm)->ntendon);
    return 1;
}

/* Each tendon's definition against MuJoCo's compiled one. */
static void check_tendons(const mjModel *mm, const lucid_model *lm) {
    const lucid_model_tendon *T = lucid_model_tendons(lm);
    for (int t = 0; t < mm->ntendon; t++) {
        assert_string_equal(T[t].name, mm->names + mm->name_tendonadr[t]);
        assert_int_equal((int)T[t].n, mm->tendon_num[t]);
        for (int i = 0; i < mm->tendon_num[t]; i++) {
            int w = mm->tendon_adr[t] + i;
            assert_int_equal(mm->wrap_type[w], mjWRAP_JOINT);
            assert_int_equal(T[t].joint[i], mm->wrap_objid[w]);
            compare("coef", &T[t].coef[i], &mm->wrap_prm[w], 1, 0.0, t);
        }
        assert_int_equal(T[t].limited, mm->tendon_limited[t]);
        if (T[t].limited) {
            double r[2] = {T[t].lower, T[t].upper};
            compare("range", r, mm->tendon_range + 2 * t, 2, 0.0, t);
        }
        double mine[5] = {T[t].stiffness, T[t].damping, T[t].frictionloss, T[t].margin,
                          T[t].springlength};
        double theirs[5] = {mm->tendon_stiffness[t], mm->tendon_damping[t],
                            mm->tendon_frictionloss[t], mm->tendon_margin[t],
                            mm->tendon_lengthspring[t]};
        compare("tendon values", mine, theirs, 5, 1e-15, t);
    }
}

static void test_definitions(void **state) {
    (void)state;
    const char *paths[2] = {SPRING, LIMIT};
    for (int k = 0; k < 2; k++) {
        mjModel *mm;
        mjData *md;
        lucid_model *lm;
        if (!load_both(paths[k], &mm, &md, &lm)) return;
        check_tendons(mm, lm);
        mujoco_free_both(&mj, mm, md, lm);
    }
    printf("tendon definitions: equal MuJoCo's in both models\n");
}

/* Whether MuJoCo's actuator force sits on a bound of its force range. */
static int force_clamped(const mjModel *mm, const mjData *md, int a) {
    if (!mm->actuator_forcelimited[a]) return 0;
    double f = md->actuator_force[a];
    return f == mm->actuator_forcerange[2 * a] || f == mm->actuator_forcerange[2 * a + 1];
}

static void test_random_states(void **state) {
    (void)state;
    mjModel *mm;
    mjData *md;
    lucid_model *lm;
    if (!load_both(SPRING, &mm, &md, &lm)) return;
    size_t nv = (size_t)mm->nv, nt = (size_t)mm->ntendon, nu = (size_t)mm->nu;
    double *tau = calloc(nv, sizeof *tau), *row = calloc(nv, sizeof *row);
    double *len = calloc(nt, sizeof *len), *vel = calloc(nt, sizeof *vel);
    assert_true(tau && row && len && vel);
    const lucid_model_tendon *T = lucid_model_tendons(lm);
    const lucid_model_actuator *A = lucid_model_actuators(lm);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    double worst[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
    int clamped = 0, missed = 0, ctrl_clamped = 0;
    for (int s = 0; s < STATES; s++) {
        mj.reset_data(mm, md);
        for (int i = 0; i < mm->nq; i++) md->qpos[i] = xorshift_range(&seed, -2, 2);
        for (int i = 0; i < mm->nv; i++) md->qvel[i] = xorshift_range(&seed, -3, 3);
        for (int i = 0; i < mm->nu; i++) md->ctrl[i] = xorshift_range(&seed, -3, 3);
        mj.fwd_position(mm, md);
        mj.fwd_velocity(mm, md);
        mj.fwd_actuation(mm, md);
        for (size_t t = 0; t < nt; t++) {
            len[t] = lucid_model_tendon_length(&T[t], md->qpos);
            vel[t] = lucid_model_tendon_velocity(&T[t], md->qpos, md->qvel);
            memset(row, 0, nv * sizeof *row);
            for (size_t i = 0; i < T[t].n; i++) row[T[t].dof[i]] += T[t].coef[i];
            worst[0] = fmax(worst[0], compare("ten_J", row, md->ten_J + t * nv, nv, TOL, s));
        }
        worst[1] = fmax(worst[1], compare("ten_length", len, md->ten_length, nt, TOL, s));
        worst[1] = fmax(worst[1], compare("ten_velocity", vel, md->ten_velocity, nt, TOL, s));
        for (size_t a = 0; a < nu; a++) {
            memset(row, 0, nv * sizeof *row);
            lucid_model_actuator_add_moment(&A[a], md->qpos, 1.0, row);
            worst[2] = fmax(worst[2], compare("actuator_moment", row, md->actuator_moment + a * nv,
                                              nv, TOL, s));
            if (mm->actuator_forcelimited[a]) force_clamped(mm, md, (int)a) ? clamped++ : missed++;
            if (mm->actuator_ctrllimited[a] && (md->ctrl[a] < mm->actuator_ctrlrange[2 * a] ||
                                                md->ctrl[a] > mm->actuator_ctrlrange[2 * a + 1]))
                ctrl_clamped++;
        }
        memset(tau, 0, nv * sizeof *tau);
        lucid_model_tendon_passive(lm, md->qpos, md->qvel, tau);
        worst[3] = fmax(worst[3], compare("qfrc_passive", tau, md->qfrc_passive, nv, TOL, s));
        lucid_model_actuation(lm, md->qpos, md->qvel, md->ctrl, NULL, tau);
        worst[4] = fmax(worst[4], compare("qfrc_actuator", tau, md->qfrc_actuator, nv, TOL, s));
    }
    printf("%d random states: worst relative gaps ten_J %.2g, length/velocity %.2g, "
           "actuator_moment %.2g, qfrc_passive %.2g, qfrc_actuator %.2g; force clamps hit %d, "
           "missed %d; controls clamped %d\n",
           STATES, worst[0], worst[1], worst[2], worst[3], worst[4], clamped, missed, ctrl_clamped);
    assert_true(clamped > 0 && missed > 0 && ctrl_clamped > 0);
    free(tau), free(row), free(len), free(vel);
    mujoco_free_both(&mj, mm, md, lm);
}

static void test_spring_trajectory(void **state) {
    (void)state;
    mjModel *mm;
    mjData *md;
    lucid_model *lm;
    if (!load_both(SPRING, &mm, &md, &lm)) return;
    mj.reset_data(mm, md);
    const double q0[4] = {0.4, -0.6, 0.3, 0.05}, v0[4] = {1.0, -2.0, 0.5, 0.2};
    const double u[5] = {0.3, 0.5, -0.2, 0.4, -0.1};
    memcpy(md->qpos, q0, sizeof q0), memcpy(md->qvel, v0, sizeof v0);
    memcpy(md->ctrl, u, sizeof u);
    int id;
    lucid_world *w = mujoco_world_of(lm, md, 0, &id);
    int steps = (int)lround(1.0 / mm->opt.timestep);
    double gap = 0.0, travel = 0.0;
    for (int s = 0; s < steps; s++) {
        mj.step(mm, md);
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        const double *q = lucid_world_model_q(w, id);
        for (int i = 0; i < mm->nq; i++) {
            gap = fmax(gap, fabs(q[i] - md->qpos[i]));
            travel = fmax(travel, fabs(md->qpos[i] - q0[i]));
        }
        assert_int_equal(lucid_world_contact_count(w), 0);
    }
    printf("spring trajectory: %d steps of %g s: max |q_lucid - q_MuJoCo| = %.3g (the joints "
           "moved up to %.3g)\n",
           steps, mm->opt.timestep, gap, travel);
    assert_true(travel > 0.5); /* the springs and actuators moved the model */
    assert_true(gap <= 1e-9);
    lucid_world_destroy(w);
    mujoco_free_both(&mj, mm, md, lm);
}

/* The largest excess of tendon t's length over its range (0 inside). */
static double excess(const lucid_model_tendon *T, const double *q) {
    double L = lucid_model_tendon_length(T, q);
    return fmax(0.0, fmax(T->lower - L, L - T->upper));
}

static void test_limit_overshoot(void **state) {
    (void)state;
    mjModel *mm;
    mjData *md;
    lucid_model *lm;
    if (!load_both(LIMIT, &mm, &md, &lm)) return;
    mj.reset_data(mm, md);
    md->ctrl[0] = 1.0; /* the motor pushes "bend" to its upper bound, gravity helps */
    int id;
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.contact.tol = 1e-12, o.contact.max_iter = 5000; /* a solve whose residual moves nothing */
    lucid_world *w = mujoco_world_with(&o, lm, md, 0, &id);
    const lucid_model_tendon *T = lucid_model_tendons(lm);
    size_t nt = lucid_model_ntendons(lm);
    int steps = (int)lround(2.0 / mm->opt.timestep), active[2] = {0, 0};
    double mine[2] = {0.0, 0.0}, theirs[2] = {0.0, 0.0};
    for (int s = 0; s < steps; s++) {
        mj.step(mm, md);
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        const lucid_world_contact *c = lucid_world_contacts(w);
        for (int k = 0; k < lucid_world_contact_count(w); k++)
            if (c[k].limit_tendon >= 0 && c[k].force[2] > 0.0) active[c[k].limit_tendon]++;
        for (size_t t = 0; t < nt; t++) {
            mine[t] = fmax(mine[t], excess(&T[t], lucid_world_model_q(w, id)));
            theirs[t] = fmax(theirs[t], excess(&T[t], md->qpos));
        }
    }
    for (size_t t = 0; t < nt; t++) {
        /* round-off on lengths of the joints' scale (|q| <= 2 rad here, |coef| <= 1) */
        double round_off = 64.0 * DBL_EPSILON * 2.0;
        printf("tendon '%s': pushing steps %d of %d; largest excess over the range: lucid %.3g "
               "(round-off %.3g), MuJoCo's soft limit %.3g\n",
               T[t].name, active[t], steps, mine[t], round_off, theirs[t]);
        assert_true(active[t] > 0);
        assert_true(mine[t] <= round_off);
    }
    lucid_world_destroy(w);
    mujoco_free_both(&mj, mm, md, lm);
}
/* MuJoCo's force on tendon t's friction row in its last step, and whether it has one. */
static int mujoco_tendon_friction(const mjData *md, int t, double *force) {
    for (int i = 0; i < md->nefc; i++)
        if (md->efc_type[i] == mjCNSTR_FRICTION_TENDON && md->efc_id[i] == t) {
            *force = md->efc_force[i];
            return 1;
        }
    return 0;
}

/* Released asymmetric at rest, q = (0.7, 0.1): gravity's force along the tendon (1.34 N m)
 * exceeds f = 1, so it slides, and its common mode swings freely. MuJoCo's friction row is soft:
 * its force is below f at small |Ld| (the start, the stops); where it saturates at +-f both
 * steps are the same semi-implicit Euler step under the same forces. */
static void test_friction_sliding(void **state) {
    (void)state;
    mjModel *mm;
    mjData *md;
    lucid_model *lm;
    if (!load_both(FRICTION, &mm, &md, &lm)) return;
    check_tendons(mm, lm);
    mj.reset_data(mm, md);
    md->qpos[0] = 0.7, md->qpos[1] = 0.1;
    int id;
    lucid_world *w = mujoco_world_of(lm, md, 0, &id);
    const lucid_model_tendon *T = lucid_model_tendons(lm);
    const double f = T[0].frictionloss;
    int steps = (int)lround(3.0 / mm->opt.timestep), saturated = 0, sliding = 0;
    double gap = 0.0, worst_gap = 0.0, worst_force = 0.0;
    for (int s = 0; s < steps; s++) {
        mj.step(mm, md);
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        const double *q = lucid_world_model_q(w, id), *v = lucid_world_model_v(w, id);
        double d = fmax(fabs(q[0] - md->qpos[0]), fabs(q[1] - md->qpos[1])), force = 0.0;
        worst_gap = fmax(worst_gap, d);
        assert_true(mujoco_tendon_friction(md, 0, &force));
        if (fabs(fabs(force) - f) <= 1e-12 * f) saturated++, gap = fmax(gap, d);
        assert_int_equal(lucid_world_contact_count(w), 1);
        const lucid_world_contact *c = lucid_world_contacts(w);
        assert_int_equal(c->limit_tendon, 0);
        double Ld = lucid_model_tendon_velocity(&T[0], q, v);
        if (fabs(Ld) > 1e-6) { /* sliding: the force is f against the tendon's velocity */
            sliding++;
            worst_force = fmax(worst_force, fabs(c->force[0] + copysign(f, Ld)));
        }
    }
    const double *q = lucid_world_model_q(w, id), *v = lucid_world_model_v(w, id);
    printf("tendon friction: %d steps, MuJoCo's row saturated on %d: max |q_lucid - q_MuJoCo| "
           "%.3g there, %.3g at worst; lucid slid %d steps at ||lambda_t| - f| <= %.2g; at 3 s "
           "MuJoCo's tendon creeps at Ld = %.3g rad/s (lucid %.3g), its L %.3g rad from lucid's\n",
           steps, saturated, gap, worst_gap, sliding, worst_force,
           lucid_model_tendon_velocity(&T[0], md->qpos, md->qvel),
           lucid_model_tendon_velocity(&T[0], q, v),
           lucid_model_tendon_length(&T[0], md->qpos) - lucid_model_tendon_length(&T[0], q));
    assert_true(saturated > 100 && sliding > 100);
    assert_true(gap <= 1e-6);
    assert_true(worst_force <= 1e-6 * f);
    /* MuJoCo's soft stick creeps where lucid's holds */
    assert_true(fabs(lucid_model_tendon_velocity(&T[0], md->qpos, md->qvel)) >
                1e3 * fabs(lucid_model_tendon_velocity(&T[0], q, v)));
    lucid_world_destroy(w);
    mujoco_free_both(&mj, mm, md, lm);
}

/* A clone taken while the tendon limits act steps as the world does once the world's own
 * warm-start memory is cleared as the clone's is (lucid_world_set_state), bit for bit: the
 * merged tree, the limit rows and their keys are the clone's too. Then the warm start: each
 * tendon limit of the next step starts from the force its key held in this one. */
static void test_clone_at_limits(void **state) {
    (void)state;
    char err[512];
    lucid_model_spec *spec = NULL;
    lucid_model *lm = NULL;
    lucid_status st = lucid_model_spec_load(LIMIT, NULL, &spec, err, sizeof err);
    if (st == LUCID_OK) st = lucid_model_compile(spec, &lm, err, sizeof err);
    lucid_model_spec_destroy(spec);
    assert_int_equal(st, LUCID_OK);
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = lucid_model_timestep(lm);
    lucid_world *w = NULL, *c = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    lucid_world_model_desc d;
    lucid_world_model_desc_default(&d);
    int id;
    assert_int_equal(lucid_world_add_model(w, lm, &d, &id, NULL), LUCID_OK);
    const double u = 1.0;
    assert_int_equal(lucid_world_model_set_control(w, id, &u, NULL), LUCID_OK);
    for (int s = 0; s < 300; s++) assert_int_equal(lucid_world_step(w), LUCID_OK);
    int limits = 0;
    for (int k = 0; k < lucid_world_contact_count(w); k++)
        limits += lucid_world_contacts(w)[k].limit_tendon >= 0;
    assert_true(limits > 0);
    assert_int_equal(lucid_world_clone(w, &c), LUCID_OK);
    double x[64];
    assert_true(lucid_world_state_size(w) <= 64);
    lucid_world_get_state(w, x);
    assert_int_equal(lucid_world_set_state(w, x, NULL), LUCID_OK);
    for (int s = 0; s < 100; s++) {
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        assert_int_equal(lucid_world_step(c), LUCID_OK);
    }
    assert_memory_equal(lucid_world_model_q(w, id), lucid_world_model_q(c, id),
                        lucid_model_nq(lm) * sizeof(double));
    /* warm start: the next step's tendon limits start from this step's forces, found by their
     * key (model, tendon, side) */
    double last[2][2] = {{0.0, 0.0}, {0.0, 0.0}}; /* [tendon][side] */
    const lucid_world_contact *k = lucid_world_contacts(w);
    for (int i = 0; i < lucid_world_contact_count(w); i++)
        if (k[i].limit_tendon >= 0) last[k[i].limit_tendon][k[i].limit_sign < 0] = k[i].force[2];
    assert_int_equal(lucid_world_step_prepare(w), LUCID_OK);
    lucid_world_warm_start(w);
    int warm = 0;
    k = lucid_world_contacts(w);
    for (int i = 0; i < lucid_world_contact_count(w); i++) {
        if (k[i].limit_tendon < 0) continue;
        double f = last[k[i].limit_tendon][k[i].limit_sign < 0];
        assert_true(k[i].force[2] == f);
        warm += f > 0.0;
    }
    assert_true(warm > 0);
    lucid_world_destroy(c);
    lucid_world_destroy(w);
    lucid_model_destroy(lm);
}
#else
static void test_definitions(void **state) {
    (void)state;
    skipped = 1;
}
static void test_random_states(void **state) {
    (void)state;
    skipped = 1;
}
static void test_spring_trajectory(void **state) {
    (void)state;
    skipped = 1;
}
static void test_limit_overshoot(void **state) {
    (void)state;
    skipped = 1;
}
static void test_friction_sliding(void **state) {
    (void)state;
    skipped = 1;
}
#endif

int main(void) {
#if HAVE_MUJOCO
    have_api = load_mujoco(&mj);
    if (!have_api) fprintf(stderr, "MuJoCo 2.2.2 (libmujoco.so) not found: not compared\n");
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_definitions),
        cmocka_unit_test(test_random_states),
        cmocka_unit_test(test_spring_trajectory),
        cmocka_unit_test(test_limit_overshoot),
        cmocka_unit_test(test_friction_sliding),
#if HAVE_MUJOCO
        cmocka_unit_test(test_clone_at_limits),
#endif
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return mujoco_test_result(failed, skipped, "test_mjcf_tendons", "MuJoCo 2.2.2 missing");
}
