/* MJCF mocap bodies against MuJoCo 2.2.2 (libmujoco dlopen'ed: a test-only comparison, lucid
 * never links it): the keyframes' mocap poses equal MuJoCo's mj_resetDataKeyframe mocap_pos /
 * mocap_quat, and a ball dropped onto a tilted mocap plate (tilted through set_mocap and
 * mocap_quat) lands when and where MuJoCo's does and rolls down the plate as it does, within
 * what MuJoCo's soft contact explains (see test_drop); and set_mocap's refusals. Exits 77
 * (skipped) without MuJoCo, after the tests that do not need it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/math/quat.h"
#include "runtime/model/model.h"
#include "runtime/model/model_load.h"
#include "runtime/world/world.h"

#include "tests/c/common/test_mujoco_compare.h"

#define KEYS LUCID_SOURCE_DIR "/tests/data/model/mjcf_mocap.xml"
#define DROP LUCID_SOURCE_DIR "/tests/data/model/mjcf_mocap_drop.xml"

static int skipped;

/* lucid_world_model_set_mocap's refusals, each leaving the pose as it was. */
static void test_set_mocap_errors(void **state) {
    (void)state;
    char err[1024] = "";
    lucid_model_spec *spec = NULL;
    lucid_model *m = NULL;
    lucid_status st = lucid_model_spec_load(KEYS, NULL, &spec, err, sizeof err);
    if (st == LUCID_OK) st = lucid_model_compile(spec, &m, err, sizeof err);
    lucid_model_spec_destroy(spec);
    assert_int_equal(st, LUCID_OK);
    lucid_world_options o;
    lucid_world_default_options(&o);
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    lucid_world_model_desc d;
    lucid_world_model_desc_default(&d);
    int id = -1;
    assert_int_equal(lucid_world_add_model(w, m, &d, &id, NULL), LUCID_OK);
    lucid_se3 before, after, P = lucid_se3_identity();
    assert_int_equal(lucid_world_model_mocap(w, id, 0, &before), LUCID_OK);
    const char *why = NULL;
    P.t.x = NAN;
    assert_int_equal(lucid_world_model_set_mocap(w, id, 0, &P, &why), LUCID_ERR_NONFINITE);
    assert_string_equal(why, "pose must be finite");
    P = lucid_se3_identity();
    P.R.m[0] = 1.01; /* off SO(3) by 1e-2 > LUCID_WORLD_MOCAP_ROTATION_TOLERANCE */
    assert_int_equal(lucid_world_model_set_mocap(w, id, 0, &P, &why), LUCID_ERR_ARGUMENT);
    assert_string_equal(why, "the pose's R is not a rotation matrix");
    P = lucid_se3_identity();
    P.R.m[0] = -1; /* a reflection: det -1 */
    assert_int_equal(lucid_world_model_set_mocap(w, id, 0, &P, &why), LUCID_ERR_ARGUMENT);
    P = lucid_se3_identity();
    P.t.z = 2 * LUCID_GEOMETRY_MAX;
    assert_int_equal(lucid_world_model_set_mocap(w, id, 0, &P, &why), LUCID_ERR_ARGUMENT);
    P = lucid_se3_identity();
    assert_int_equal(lucid_world_model_set_mocap(w, id, 2, &P, &why), LUCID_ERR_ARGUMENT);
    assert_string_equal(why, "unknown model or mocap body");
    assert_int_equal(lucid_world_model_set_mocap(w, id + 1, 0, &P, &why), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_world_model_mocap(w, id, 2, &after), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_world_model_mocap(w, id, 0, &after), LUCID_OK);
    assert_memory_equal(&after, &before, sizeof after);
    /* within the tolerance a rotation is projected onto SO(3) */
    P.R.m[0] = 1 + 1e-9;
    assert_int_equal(lucid_world_model_set_mocap(w, id, 0, &P, &why), LUCID_OK);
    assert_int_equal(lucid_world_model_mocap(w, id, 0, &after), LUCID_OK);
    assert_true(fabs(after.R.m[0] - 1) <= 1e-15);
    /* the mocap bodies' world bodies, in mocap order after the links */
    int mocap_bodies = 0;
    for (int b = 0; b < lucid_world_body_count(w); ++b) {
        int k = lucid_world_body_mocap(w, b);
        if (k < 0) continue;
        assert_int_equal(k, mocap_bodies++);
        assert_int_equal(lucid_world_is_static(w, b), 1);
    }
    assert_int_equal(mocap_bodies, 2);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
}

#if HAVE_MUJOCO
static mujoco_api mj;
static int have;

static int setup(void **state) {
    (void)state;
    have = load_mujoco(&mj);
    return 0;
}

static int have_mujoco(void) {
    return mujoco_loaded(have, &skipped);
}

/* Every keyframe's mocap poses (and the initial ones) equal MuJoCo's to 1e-12. */
static void test_keyframes(void **state) {
    (void)state;
    if (!have_mujoco()) return;
    lucid_model *lm = test_load_model(KEYS);
    mjModel *mm;
    mjData *md;
    mujoco_load_file(&mj, KEYS, &mm, &md);
    assert_int_equal((int)lucid_model_nmocap(lm), mm->nmocap);
    for (int k = -1; k < mm->nkey; ++k) {
        if (k >= 0) mj.reset_keyframe(mm, md, k);
        const lucid_se3 *poses = k >= 0 ? lucid_model_keyframes(lm)[k].mocap : NULL;
        for (int b = 0; b < mm->nmocap; ++b) {
            lucid_se3 T = poses ? poses[b] : lucid_model_mocap_pose(lm, (size_t)b);
            lucid_quat q = lucid_se3_to_quat(&T);
            const double *mq = md->mocap_quat + 4 * b, *mp = md->mocap_pos + 3 * b;
            double s = q.w * mq[0] + q.x * mq[1] + q.y * mq[2] + q.z * mq[3] < 0 ? -1 : 1;
            double lq[4] = {s * q.w, s * q.x, s * q.y, s * q.z};
            double lp[3] = {T.t.x, T.t.y, T.t.z};
            for (int i = 0; i < 4; ++i) assert_true(fabs(lq[i] - mq[i]) <= 1e-12);
            for (int i = 0; i < 3; ++i) assert_true(fabs(lp[i] - mp[i]) <= 1e-12);
        }
    }
    mujoco_free_both(&mj, mm, md, lm);
}

/* The plate's tilt about x (rad) and the drop: the ball (radius R, centre H above the plate's
 * centre at release) falls until its centre is (R + half thickness) / cos(tilt) above it. */
#define TILT     0.25
#define RADIUS   0.05
#define HALF     0.05
#define HEIGHT   0.5
#define DURATION 0.6
#define GRAVITY  9.81

typedef struct drop_result {
    double land_time; /* s: the first step with a pushing contact */
    double land[3];   /* the ball's centre then */
    double end[3];    /* its centre at DURATION */
} drop_result;

/* The drop in lucid with time step dt (MuJoCo's: the file's). */
static drop_result drop_lucid(double dt) {
    lucid_model *lm = test_load_model(DROP);
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = dt;
    o.gravity = (lucid_vec3){0, 0, -GRAVITY};
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    lucid_world_model_desc d;
    lucid_world_model_desc_default(&d);
    int id = -1;
    assert_int_equal(lucid_world_add_model(w, lm, &d, &id, NULL), LUCID_OK);
    lucid_quat q = lucid_quat_make(cos(TILT / 2), sin(TILT / 2), 0, 0);
    lucid_se3 P = {lucid_quat_to_mat3(q), {0, 0, 0}};
    assert_int_equal(lucid_world_model_set_mocap(w, id, 0, &P, NULL), LUCID_OK);
    lucid_se3 set; /* P projected onto SO(3) (rounding) */
    assert_int_equal(lucid_world_model_mocap(w, id, 0, &set), LUCID_OK);
    drop_result r = {-1, {0}, {0}};
    int steps = (int)lround(DURATION / o.dt);
    for (int s = 1; s <= steps; ++s) {
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        const double *x = lucid_world_model_q(w, id); /* relative to the placement 0.5 up */
        double c[3] = {x[0], x[1], x[2] + HEIGHT};
        int pushing = 0;
        const lucid_world_contact *cs = lucid_world_contacts(w);
        for (int k = 0; k < lucid_world_contact_count(w); ++k) pushing |= cs[k].force[2] > 0;
        if (pushing && r.land_time < 0) r.land_time = s * o.dt, memcpy(r.land, c, sizeof c);
        if (s == steps) memcpy(r.end, c, sizeof c);
    }
    lucid_se3 back;
    assert_int_equal(lucid_world_model_mocap(w, id, 0, &back), LUCID_OK);
    for (int i = 0; i < 9; ++i) assert_true(back.R.m[i] == set.R.m[i]); /* never moved */
    assert_true(back.t.x == set.t.x && back.t.y == set.t.y && back.t.z == set.t.z);
    lucid_world_destroy(w);
    lucid_model_destroy(lm);
    return r;
}

static drop_result drop_mujoco(void) {
    mjModel *mm;
    mjData *md;
    mujoco_load_file(&mj, DROP, &mm, &md);
    mm->opt.gravity[2] = -GRAVITY;
    md->mocap_quat[0] = cos(TILT / 2), md->mocap_quat[1] = sin(TILT / 2);
    md->mocap_quat[2] = md->mocap_quat[3] = 0;
    drop_result r = {-1, {0}, {0}};
    int steps = (int)lround(DURATION / mm->opt.timestep);
    for (int s = 1; s <= steps; ++s) {
        mj.step(mm, md);
        int pushing = 0;
        for (int k = 0; k < md->ncon; ++k) {
            mjtNum f[6];
            mj.contact_force(mm, md, k, f);
            pushing |= f[0] > 0;
        }
        if (pushing && r.land_time < 0)
            r.land_time = s * mm->opt.timestep, memcpy(r.land, md->qpos, 3 * sizeof(double));
        if (s == steps) memcpy(r.end, md->qpos, 3 * sizeof(double));
    }
    mujoco_free_both(&mj, mm, md, NULL);
    return r;
}

/* Distance rolled down the slope from the analytic landing point, and depth below the plate's
 * top face (m), of a ball centre c. */
static double downhill(const double *c, double zc) {
    return -c[1] * cos(TILT) - (c[2] - zc) * sin(TILT);
}
static double depth(const double *c) {
    return RADIUS + HALF - (-c[1] * sin(TILT) + c[2] * cos(TILT));
}

/* The ball lands and rolls as the analytic rigid answer says, lucid to its O(dt) time
 * discretisation, MuJoCo to its soft contact, which lets the ball sink into the plate before
 * and while it pushes:
 *  - landing: lucid's speculative contact acts in the step in which the ball would reach the
 *    plate, MuJoCo's once the ball has penetrated it: each within one step of the analytic
 *    time, and the landing heights within one step of fall (g t dt) plus the rest depth;
 *  - rolling: the analytic distance (a sticking impact keeps 5/7 of the tangential velocity,
 *    then 5/7 g sin(tilt)); lucid's error is first order in dt (a quarter of dt: at most half
 *    the error), MuJoCo's soft, regularised friction lets the ball creep: within 5%;
 *  - rolling on the plate lucid's ball stays in the rest band (0.4 slop to slop deep: world.h),
 *    MuJoCo's at its soft contact's equilibrium depth (printed). */
static void test_drop(void **state) {
    (void)state;
    if (!have_mujoco()) return;
    const double dt = 1e-3; /* the file's timestep */
    lucid_world_options o;
    lucid_world_default_options(&o);
    drop_result a = drop_lucid(dt), fine = drop_lucid(dt / 4), b = drop_mujoco();
    double zc = (RADIUS + HALF) / cos(TILT), tl = sqrt(2 * (HEIGHT - zc) / GRAVITY);
    double vt = 5.0 / 7.0 * GRAVITY * tl * sin(TILT), at = 5.0 / 7.0 * GRAVITY * sin(TILT);
    double tr = DURATION - tl, slide = vt * tr + 0.5 * at * tr * tr;
    double sa = downhill(a.end, zc), sf = downhill(fine.end, zc), sb = downhill(b.end, zc);
    printf("landing: analytic t %.4f z %.5f | lucid t %.4f z %.5f | MuJoCo t %.4f z %.5f\n", tl, zc,
           a.land_time, a.land[2], b.land_time, b.land[2]);
    printf("rolled %.2f s: analytic %.5f m | lucid %.5f (dt/4: %.5f) | MuJoCo %.5f; depth: lucid "
           "%.2e MuJoCo %.2e m\n",
           tr, slide, sa, sf, sb, depth(a.end), depth(b.end));
    assert_true(fabs(a.land_time - tl) <= dt && fabs(b.land_time - tl) <= dt);
    double fall = GRAVITY * tl * dt;
    assert_true(fabs(a.land[2] - zc) <= fall + o.slop && fabs(b.land[2] - zc) <= fall + o.slop);
    assert_true(fabs(sf - slide) <= 0.5 * fabs(sa - slide));
    assert_true(fabs(sb - slide) <= 0.05 * slide && fabs(sa - slide) <= 0.05 * slide);
    assert_true(depth(a.end) >= 0.4 * o.slop && depth(a.end) <= o.slop);
}

static int teardown(void **state) {
    (void)state;
    return 0;
}
#else
static int setup(void **state) {
    (void)state;
    return 0;
}
static int teardown(void **state) {
    (void)state;
    return 0;
}
static void test_keyframes(void **state) {
    (void)state;
    skipped = 1;
}
static void test_drop(void **state) {
    (void)state;
    skipped = 1;
}
#endif

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_mocap_errors),
        cmocka_unit_test(test_keyframes),
        cmocka_unit_test(test_drop),
    };
    int failed = cmocka_run_group_tests(tests, setup, teardown);
    return mujoco_test_result(failed, skipped, "test_mjcf_mocap", "MuJoCo 2.2.2 missing");
}
