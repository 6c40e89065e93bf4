/* MJCF sensors against MuJoCo 2.2.2 (libmujoco dlopen'ed: a test-only dependency) on
 * tests/data/model/mjcf_sensors.xml (jointpos, jointvel, actuatorfrc, framepos and framequat of
 * moving and welded bodies and of sites):
 *   - the layout equals MuJoCo's: sensor count, each sensor's dim and adr, nsensordata;
 *   - at 200 random states and controls (MuJoCo: qpos, qvel, ctrl then mj_forward; lucid: a
 *     world at that state, lucid_world_model_sensors) the sensordata agree to 1e-9, framequat
 *     up to the sign (q and -q are one rotation; lucid's has w >= 0), and the controls and
 *     force clamps of the servo are hit;
 *   - along 200 steps of lucid's world, its sensors at each state equal MuJoCo's mj_forward at
 *     that same state (the sensors describe the world's current state);
 *   - the step sensors (accelerometer, force, torque) on tests/data/model/mjcf_step_sensors.xml:
 *     lucid one step from 200 random states and controls against mj_forward at that state;
 *   - the touch sensor's zone test against mju_rayGeom on random rays and zones.
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
#include "runtime/world/world_internal.h"

#include "tests/c/common/test_mujoco_compare.h"
#include "tests/c/common/test_random.h"

#define SENSORS      LUCID_SOURCE_DIR "/tests/data/model/mjcf_sensors.xml"
#define STEP_SENSORS LUCID_SOURCE_DIR "/tests/data/model/mjcf_step_sensors.xml"
#define STATES       200
#define TOL          1e-9

static int skipped;

#if HAVE_MUJOCO
static mujoco_api mj;
static int have_api;

/* Both libraries' models of a file; 0 (skipped) without MuJoCo. */
static int load_file(const char *path, mjModel **mm, mjData **md, lucid_model **lm) {
    if (!mujoco_loaded(have_api, &skipped)) return 0;
    mujoco_load_both(&mj, path, mm, md, lm);
    return 1;
}

static int load_both(mjModel **mm, mjData **md, lucid_model **lm) {
    return load_file(SENSORS, mm, md, lm);
}

static void test_layout(void **state) {
    (void)state;
    mjModel *mm;
    mjData *md;
    lucid_model *lm;
    if (!load_both(&mm, &md, &lm)) return;
    const lucid_model_sensor *S = lucid_model_sensors(lm);
    assert_int_equal((int)lucid_model_nsensors(lm), mm->nsensor);
    assert_int_equal((int)lucid_model_nsensordata(lm), mm->nsensordata);
    for (int k = 0; k < mm->nsensor; k++) {
        assert_int_equal((int)S[k].dim, mm->sensor_dim[k]);
        assert_int_equal((int)S[k].adr, mm->sensor_adr[k]);
        assert_string_equal(S[k].name, mm->names + mm->name_sensoradr[k]);
    }
    mujoco_free_both(&mj, mm, md, lm);
}

/* MuJoCo's sensordata at its current qpos, qvel, ctrl against lucid's world at that state. */
static double compare_at(const mjModel *mm, mjData *md, const lucid_model *lm, lucid_world *w,
                         int id, double *mine, int index) {
    mj.forward(mm, md);
    assert_int_equal(lucid_world_model_sensors(w, id, mine), LUCID_OK);
    const lucid_model_sensor *S = lucid_model_sensors(lm);
    for (size_t k = 0; k < lucid_model_nsensors(lm); k++) {
        if (S[k].kind != LUCID_SENSOR_FRAMEQUAT) continue;
        double *a = mine + S[k].adr;
        const double *b = md->sensordata + S[k].adr;
        if (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0.0)
            for (int i = 0; i < 4; i++) a[i] = -a[i];
    }
    return compare("sensordata", mine, md->sensordata, (size_t)mm->nsensordata, TOL, index);
}

static void test_random_states(void **state) {
    (void)state;
    mjModel *mm;
    mjData *md;
    lucid_model *lm;
    if (!load_both(&mm, &md, &lm)) return;
    double *mine = malloc((size_t)mm->nsensordata * sizeof *mine);
    assert_non_null(mine);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    double worst = 0.0;
    int force_clamped = 0, ctrl_clamped = 0;
    for (int s = 0; s < STATES; s++) {
        mj.reset_data(mm, md);
        for (int i = 0; i < mm->nq; i++) md->qpos[i] = xorshift_range(&seed, -2, 2);
        for (int i = 0; i < mm->nv; i++) md->qvel[i] = xorshift_range(&seed, -3, 3);
        for (int i = 0; i < mm->nu; i++) md->ctrl[i] = xorshift_range(&seed, -3, 3);
        int id;
        lucid_world *w = mujoco_world_of(lm, md, 0, &id);
        worst = fmax(worst, compare_at(mm, md, lm, w, id, mine, s));
        force_clamped += fabs(md->actuator_force[0]) == 5.0;
        ctrl_clamped += fabs(md->ctrl[0]) > 1.0;
        lucid_world_destroy(w);
    }
    printf("%d random states: sensordata worst relative gap %.2g; servo force clamped %d, "
           "control clamped %d\n",
           STATES, worst, force_clamped, ctrl_clamped);
    assert_true(force_clamped > 0 && force_clamped < STATES && ctrl_clamped > 0);
    free(mine);
    mujoco_free_both(&mj, mm, md, lm);
}

static void test_trajectory(void **state) {
    (void)state;
    mjModel *mm;
    mjData *md;
    lucid_model *lm;
    if (!load_both(&mm, &md, &lm)) return;
    double *mine = malloc((size_t)mm->nsensordata * sizeof *mine);
    assert_non_null(mine);
    md->ctrl[0] = 0.7, md->ctrl[1] = -0.3;
    md->qvel[1] = 2.0;
    int id;
    lucid_world *w = mujoco_world_of(lm, md, 0, &id);
    double worst = 0.0;
    for (int s = 0; s < STATES; s++) {
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        memcpy(md->qpos, lucid_world_model_q(w, id), (size_t)mm->nq * sizeof(double));
        memcpy(md->qvel, lucid_world_model_v(w, id), (size_t)mm->nv * sizeof(double));
        worst = fmax(worst, compare_at(mm, md, lm, w, id, mine, s));
    }
    printf("%d steps of lucid's world: sensordata at each state, worst relative gap %.2g\n", STATES,
           worst);
    lucid_world_destroy(w);
    free(mine);
    mujoco_free_both(&mj, mm, md, lm);
}
static int step_kind(lucid_sensor_kind k) {
    return k == LUCID_SENSOR_ACCELEROMETER || k == LUCID_SENSOR_FORCE || k == LUCID_SENSOR_TORQUE;
}

/* The step sensors' entries of x (the others zeroed). */
static void step_entries(const lucid_model *lm, double *x) {
    const lucid_model_sensor *S = lucid_model_sensors(lm);
    for (size_t k = 0; k < lucid_model_nsensors(lm); k++)
        if (!step_kind(S[k].kind))
            for (size_t i = 0; i < S[k].dim; i++) x[S[k].adr + i] = 0.0;
}

/* Whether every step sensor's value in x is NaN. */
static int step_nan(const lucid_model *lm, const double *x) {
    const lucid_model_sensor *S = lucid_model_sensors(lm);
    for (size_t k = 0; k < lucid_model_nsensors(lm); k++)
        for (size_t i = 0; i < S[k].dim; i++)
            if (step_kind(S[k].kind) != (x[S[k].adr + i] != x[S[k].adr + i])) return 0;
    return 1;
}

/* accelerometer, force, torque: lucid after one step from a state against MuJoCo's mj_forward
 * at that state (its sensordata of mj_step), in free motion with motors only, where lucid's step
 * is MuJoCo's Euler step: v+ = v + dt qacc. NaN before the step and after set_v. */
static void test_step_sensors(void **state) {
    (void)state;
    mjModel *mm;
    mjData *md;
    lucid_model *lm;
    if (!load_file(STEP_SENSORS, &mm, &md, &lm)) return;
    size_t n = (size_t)mm->nsensordata;
    assert_int_equal((int)lucid_model_nsensors(lm), mm->nsensor);
    assert_int_equal((int)lucid_model_nsensordata(lm), mm->nsensordata);
    double *mine = malloc(n * sizeof *mine), *theirs = malloc(n * sizeof *theirs);
    assert_true(mine && theirs);
    uint64_t seed = 0x243F6A8885A308D3ull;
    double worst = 0.0, worst_acc = 0.0, scale = 0.0;
    for (int s = 0; s < STATES; s++) {
        mj.reset_data(mm, md);
        for (int i = 0; i < mm->nq; i++) md->qpos[i] = xorshift_range(&seed, -2, 2);
        for (int i = 0; i < mm->nv; i++) md->qvel[i] = xorshift_range(&seed, -3, 3);
        for (int i = 0; i < mm->nu; i++) md->ctrl[i] = xorshift_range(&seed, -3, 3);
        int id;
        lucid_world *w = mujoco_world_of(lm, md, 0, &id);
        assert_int_equal(lucid_world_model_sensors(w, id, mine), LUCID_OK);
        assert_true(step_nan(lm, mine));
        mj.forward(mm, md);
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        const double *v1 = lucid_world_model_v(w, id);
        double acc[64];
        assert_true(mm->nv <= 64);
        for (int i = 0; i < mm->nv; i++) acc[i] = (v1[i] - md->qvel[i]) / mm->opt.timestep;
        worst_acc = fmax(worst_acc, compare("qacc", acc, md->qacc, (size_t)mm->nv, TOL, s));
        assert_int_equal(lucid_world_model_sensors(w, id, mine), LUCID_OK);
        memcpy(theirs, md->sensordata, n * sizeof *theirs);
        step_entries(lm, mine);
        step_entries(lm, theirs);
        for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(theirs[i]));
        worst = fmax(worst, compare("step sensordata", mine, theirs, n, TOL, s));
        assert_int_equal(lucid_world_model_set_v(w, id, v1, NULL), LUCID_OK);
        assert_int_equal(lucid_world_model_sensors(w, id, mine), LUCID_OK);
        assert_true(step_nan(lm, mine));
        lucid_world_destroy(w);
    }
    printf("%d random states, one step each: accelerometer/force/torque worst relative gap %.2g "
           "(largest value %.3g), the step's acceleration against qacc %.2g\n",
           STATES, worst, scale, worst_acc);
    free(mine);
    free(theirs);
    mujoco_free_both(&mj, mm, md, lm);
}
/* The touch sensor's zone test against MuJoCo's mju_rayGeom: random rays from points in and
 * around random zones of each site type; every answer agrees, and both answers occur. */
static void test_touch_zone(void **state) {
    (void)state;
    if (!have_api) {
        skipped = 1;
        return;
    }
    const double pos[3] = {0, 0, 0}, mat[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    uint64_t seed = 0x13198A2E03707344ull;
    for (int kind = LUCID_ZONE_SPHERE; kind <= LUCID_ZONE_BOX; kind++) {
        int hits = 0, n = 20000;
        for (int i = 0; i < n; i++) {
            double size[3], p[3], d[3];
            for (int k = 0; k < 3; k++) size[k] = xorshift_range(&seed, 0.05, 0.5);
            for (int k = 0; k < 3; k++) p[k] = xorshift_range(&seed, -1, 1);
            for (int k = 0; k < 3; k++) d[k] = xorshift_range(&seed, -1, 1);
            double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            for (int k = 0; k < 3; k++) d[k] /= len;
            int theirs = mj.ray_geom(pos, mat, size, p, d, mjGEOM_SPHERE + kind) >= 0.0;
            int mine = lucid_world_ray_meets_zone((lucid_zone_kind)kind, size, lucid_vec3_load(p),
                                                  lucid_vec3_load(d));
            if (mine != theirs)
                fprintf(stderr, "zone %d ray %d: lucid %d MuJoCo %d\n", kind, i, mine, theirs);
            assert_int_equal(mine, theirs);
            hits += theirs;
        }
        printf("zone %d: %d random rays, %d meet it, lucid agrees with mju_rayGeom on all\n", kind,
               n, hits);
        assert_true(hits > 100 && hits < n - 100); /* both answers occur often */
    }
}
#else
static void test_touch_zone(void **state) {
    (void)state;
    skipped = 1;
}
static void test_step_sensors(void **state) {
    (void)state;
    skipped = 1;
}
static void test_layout(void **state) {
    (void)state;
    skipped = 1;
}
static void test_random_states(void **state) {
    (void)state;
    skipped = 1;
}
static void test_trajectory(void **state) {
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
        cmocka_unit_test(test_layout),     cmocka_unit_test(test_random_states),
        cmocka_unit_test(test_trajectory), cmocka_unit_test(test_step_sensors),
        cmocka_unit_test(test_touch_zone),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return mujoco_test_result(failed, skipped, "test_mjcf_sensors", "MuJoCo 2.2.2 missing");
}
