/* Slider-crank actuators (MJCF cranksite/slidersite) on MuJoCo's sample
 * /usr/share/mujoco/model/slider_crank/slider_crank.xml (forward: slider on the world; backward:
 * slider on the child of the crank's body; broken: a rod too short to reach the axis at first):
 *   - the model loads; each actuator is a slider-crank on the named sites, its cranklength
 *     MuJoCo 2.2.2's;
 *   - at 200 random states and controls (beyond the control ranges too): actuator_length,
 *     actuator_velocity, actuator_moment and qfrc_actuator equal MuJoCo's (mj_fwdPosition,
 *     mj_fwdVelocity, mj_fwdActuation) to 1e-9 relative, with the rod reaching the axis
 *     (sqrt of a positive determinant) and not (MuJoCo's a.v) both met;
 *   - the moment is the derivative of the length (central differences);
 *   - 0.5 s of the sample in lucid's world against mj_step (Euler) from the same state and
 *     controls: without contacts both take the same semi-implicit Euler step (the joints' damping
 *     implicit, the slider-cranks' forces explicit), so the gap is rounding, bounded by 1e-9 rad.
 * Exit 77 with a message when the sample file or MuJoCo is missing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime/model/model.h"
#include "runtime/model/model_load.h"
#include "runtime/world/world.h"

#include "tests/c/common/test_mujoco_compare.h"
#include "tests/c/common/test_random.h"

#define SAMPLE "/usr/share/mujoco/model/slider_crank/slider_crank.xml"
#define STATES 200
#define TOL    1e-9

static int skipped;
static lucid_model *lm;

static int setup(void **state) {
    (void)state;
    if (access(SAMPLE, R_OK) != 0) return 0;
    lm = test_load_model(SAMPLE);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    lucid_model_destroy(lm);
    return 0;
}

static int have_sample(void) {
    if (lm) return 1;
    fprintf(stderr, "%s not found: not tested\n", SAMPLE);
    skipped = 1;
    return 0;
}

/* The sample's three actuators: slider-cranks on the named sites. */
static void test_load(void **state) {
    (void)state;
    if (!have_sample()) return;
    static const char *const names[3][3] = {{"forward", "cranksite", "slidersite"},
                                            {"backward", "cranksite2", "slidersite2"},
                                            {"broken", "cranksite3", "slidersite3"}};
    static const double rods[3] = {0.08, 0.06, 0.05};
    assert_int_equal((int)lucid_model_nu(lm), 3);
    const lucid_model_actuator *A = lucid_model_actuators(lm);
    for (int a = 0; a < 3; a++) {
        assert_string_equal(A[a].name, names[a][0]);
        assert_int_equal(A[a].kind, LUCID_ACTUATOR_POSITION);
        assert_int_equal(A[a].crank, lucid_model_find_frame(lm, names[a][1]));
        assert_int_equal(A[a].slider, lucid_model_find_frame(lm, names[a][2]));
        assert_true(A[a].cranklength == rods[a]);
        assert_true(A[a].tendon == NULL && A[a].joint == -1);
    }
}

/* dL/dq against central differences of L at a few states (h = 1e-6: the error h^2 L''' and
 * the rounding 1e-16 L / h both below 1e-8). */
static void test_moment_is_derivative(void **state) {
    (void)state;
    if (!have_sample()) return;
    size_t nv = lucid_model_nv(lm);
    const lucid_model_actuator *A = lucid_model_actuators(lm);
    double q[3] = {0.3, -0.7, 1.1}, row[3];
    assert_int_equal((int)nv, 3);
    double worst = 0.0;
    for (int s = 0; s < 5; s++) {
        for (int i = 0; i < 3; i++) q[i] += 0.9 + 0.4 * i;
        for (size_t a = 0; a < 3; a++) {
            memset(row, 0, sizeof row);
            lucid_model_actuator_add_moment(&A[a], q, 1.0, row);
            for (size_t k = 0; k < nv; k++) {
                double h = 1e-6, qp[3], qm[3];
                memcpy(qp, q, sizeof q), memcpy(qm, q, sizeof q);
                qp[k] += h, qm[k] -= h;
                double fd = (lucid_model_actuator_length(&A[a], qp) -
                             lucid_model_actuator_length(&A[a], qm)) /
                            (2 * h);
                worst = fmax(worst, fabs(fd - row[k]));
            }
        }
    }
    printf("moment vs central differences of the length: worst %.3g\n", worst);
    assert_true(worst <= 1e-8);
}

#if HAVE_MUJOCO
static mujoco_api mj;

/* MuJoCo's model and data of the sample; 0 (skipped) without MuJoCo. */
static int load_mj(mjModel **mm, mjData **md) {
    if (!have_sample()) return 0;
    if (!mujoco_loaded(mj.lib || load_mujoco(&mj), &skipped)) return 0;
    mujoco_load_file(&mj, SAMPLE, mm, md);
    assert_int_equal((int)lucid_model_nq(lm), (*mm)->nq); /* hinges: the same coordinates */
    assert_int_equal((int)lucid_model_nv(lm), (*mm)->nv);
    assert_int_equal((int)lucid_model_nu(lm), (*mm)->nu);
    const lucid_model_actuator *A = lucid_model_actuators(lm);
    for (int a = 0; a < (*mm)->nu; a++) {
        assert_int_equal((*mm)->actuator_trntype[a], mjTRN_SLIDERCRANK);
        const char *crank = (*mm)->names + (*mm)->name_siteadr[(*mm)->actuator_trnid[2 * a]];
        const char *slider = (*mm)->names + (*mm)->name_siteadr[(*mm)->actuator_trnid[2 * a + 1]];
        assert_int_equal(A[a].crank, lucid_model_find_frame(lm, crank));
        assert_int_equal(A[a].slider, lucid_model_find_frame(lm, slider));
        compare("cranklength", &A[a].cranklength, (*mm)->actuator_cranklength + a, 1, 0.0, a);
        compare("gear", &A[a].gear, (*mm)->actuator_gear + 6 * a, 1, 0.0, a);
    }
    return 1;
}

/* Whether MuJoCo's rod of actuator a reaches its slider's axis at md (det > 0). */
static int reaches(const mjModel *mm, const mjData *md, int a) {
    int c = mm->actuator_trnid[2 * a], s = mm->actuator_trnid[2 * a + 1];
    double v[3],
        ax[3] = {md->site_xmat[9 * s + 2], md->site_xmat[9 * s + 5], md->site_xmat[9 * s + 8]};
    for (int i = 0; i < 3; i++) v[i] = md->site_xpos[3 * c + i] - md->site_xpos[3 * s + i];
    double av = v[0] * ax[0] + v[1] * ax[1] + v[2] * ax[2], r = mm->actuator_cranklength[a];
    return av * av + r * r - (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) > 0.0;
}

static void test_against_mujoco(void **state) {
    (void)state;
    mjModel *mm;
    mjData *md;
    if (!load_mj(&mm, &md)) return;
    size_t nv = (size_t)mm->nv, nu = (size_t)mm->nu;
    const lucid_model_actuator *A = lucid_model_actuators(lm);
    double len[3], vel[3], row[3], tau[3];
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    double worst[4] = {0, 0, 0, 0};
    int reached = 0, missed = 0;
    for (int s = 0; s < STATES; s++) {
        mj.reset_data(mm, md);
        for (size_t i = 0; i < nv; i++) md->qpos[i] = xorshift_range(&seed, -3.14159, 3.14159);
        for (size_t i = 0; i < nv; i++) md->qvel[i] = xorshift_range(&seed, -3, 3);
        for (size_t i = 0; i < nu; i++) md->ctrl[i] = xorshift_range(&seed, -0.2, 0.2);
        mj.fwd_position(mm, md);
        mj.fwd_velocity(mm, md);
        mj.fwd_actuation(mm, md);
        for (size_t a = 0; a < nu; a++) {
            reaches(mm, md, (int)a) ? reached++ : missed++;
            len[a] = lucid_model_actuator_length(&A[a], md->qpos);
            vel[a] = lucid_model_actuator_velocity(&A[a], md->qpos, md->qvel);
            memset(row, 0, sizeof row);
            lucid_model_actuator_add_moment(&A[a], md->qpos, 1.0, row);
            worst[2] = fmax(worst[2], compare("actuator_moment", row, md->actuator_moment + a * nv,
                                              nv, TOL, s));
        }
        worst[0] = fmax(worst[0], compare("actuator_length", len, md->actuator_length, nu, TOL, s));
        worst[1] =
            fmax(worst[1], compare("actuator_velocity", vel, md->actuator_velocity, nu, TOL, s));
        lucid_model_actuation(lm, md->qpos, md->qvel, md->ctrl, NULL, tau);
        worst[3] = fmax(worst[3], compare("qfrc_actuator", tau, md->qfrc_actuator, nv, TOL, s));
    }
    printf("%d states: worst relative gaps: length %.2g, velocity %.2g, moment %.2g, "
           "qfrc_actuator %.2g; rod reaching the axis %d, not %d\n",
           STATES, worst[0], worst[1], worst[2], worst[3], reached, missed);
    assert_true(reached > 0 && missed > 0);
    mujoco_free_both(&mj, mm, md, NULL);
}

/* The sample stepped in lucid's world and by mj_step from its initial state, controls held. */
static void test_simulation(void **state) {
    (void)state;
    mjModel *mm;
    mjData *md;
    if (!load_mj(&mm, &md)) return;
    mj.reset_data(mm, md);
    const double u[3] = {0.05, -0.08, 0.1};
    memcpy(md->ctrl, u, sizeof u);
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = lucid_model_timestep(lm);
    assert_true(o.dt == mm->opt.timestep);
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    lucid_world_model_desc d;
    lucid_world_model_desc_default(&d);
    d.q = md->qpos, d.v = md->qvel;
    int id;
    assert_int_equal(lucid_world_add_model(w, lm, &d, &id, NULL), LUCID_OK);
    assert_int_equal(lucid_world_model_set_control(w, id, md->ctrl, NULL), LUCID_OK);
    int steps = (int)lround(0.5 / mm->opt.timestep), first = 10;
    double gap_first = 0.0, gap = 0.0, travel = 0.0;
    for (int s = 0; s < steps; s++) {
        mj.step(mm, md);
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        const double *q = lucid_world_model_q(w, id);
        for (int i = 0; i < mm->nq; i++) {
            assert_true(isfinite(q[i]));
            double g = fabs(q[i] - md->qpos[i]);
            gap = fmax(gap, g);
            if (s < first) gap_first = fmax(gap_first, g);
            travel = fmax(travel, fabs(md->qpos[i] - mm->qpos0[i]));
        }
        assert_int_equal(lucid_world_contact_count(w), 0);
    }
    printf("simulation: %d steps of %g s: max |q_lucid - q_MuJoCo| %.3g rad over the first %d "
           "steps, %.3g over all (MuJoCo's joints moved up to %.3g rad); contacts at the end %d\n",
           steps, mm->opt.timestep, gap_first, first, gap, travel, lucid_world_contact_count(w));
    assert_true(travel > 0.1); /* the actuators moved the mechanism */
    assert_true(gap <= 1e-9);  /* the same step: rounding apart */
    lucid_world_destroy(w);
    mujoco_free_both(&mj, mm, md, NULL);
}
#else
static void test_against_mujoco(void **state) {
    (void)state;
    skipped = 1;
}
static void test_simulation(void **state) {
    (void)state;
    skipped = 1;
}
#endif

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_moment_is_derivative),
        cmocka_unit_test(test_against_mujoco),
        cmocka_unit_test(test_simulation),
    };
    int failed = cmocka_run_group_tests(tests, setup, teardown);
    return mujoco_test_result(failed, skipped, "test_mjcf_slider_crank",
                              "the sample or MuJoCo 2.2.2 missing");
}
