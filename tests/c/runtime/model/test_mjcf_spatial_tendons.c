/* MJCF spatial tendons against MuJoCo 2.2.2 (libmujoco dlopen'ed: a test-only dependency) on
 * tests/data/model/mjcf_tendon_spatial.xml (straight site paths, a sphere wrap outside and
 * through an inside side site, a cylinder wrap with and without a side site, a pulley joining
 * two trees; hinge, ball and slide joints):
 *   - each tendon's path (sites, geoms, side sites, divisors) and values equal MuJoCo's compiled
 *     ones, tendon_lengthspring (the length at qpos_spring) included;
 *   - at 200 random states and controls: ten_length, ten_J, ten_velocity, actuator_moment,
 *     actuator_force, qfrc_passive (the tendons' springs and dampers) and qfrc_actuator (relative
 *     to its largest term) equal MuJoCo's to 1e-12 relative, with every wrap met both wrapped and
 *     straight;
 *   - 250 steps from a state where the limited tendon "straight" is driven into its upper bound,
 *     against mj_step: the gap is printed, and lucid's length never passes the range by more
 *     than the step's second order (a limit rests at its bound, c*_N = -d / dt, which the step
 *     meets to first order: L(q+) - L(q) - dt dL/dq v+) plus round-off,
 *     while MuJoCo's soft limit overshoots (printed);
 *   - MuJoCo's sample tendon_arm/arm26.xml with its muscles replaced by motors (a copy written
 *     to a temporary file): the six wrapped tendons' lengths, moments and forces at 200 random
 *     states within the joints' ranges to 1e-12 relative (skipped where the sample is not
 *     installed);
 *   - arm26.xml itself with MuJoCo's compiled lengthranges written into its six muscles: acc0,
 *     qfrc_actuator and act_dot equal MuJoCo's at 200 random states to 1e-12 relative;
 *   - the moments against central differences of the lengths (1e-7 relative), away from the
 *     kinks where a wrap starts or ends (also without MuJoCo).
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
#include <unistd.h>

#include <cmocka.h>

#include "runtime/model/configuration.h"
#include "runtime/model/model.h"
#include "runtime/model/model_load.h"
#include "runtime/world/world.h"

#include "tests/c/common/test_mujoco_compare.h"
#include "tests/c/common/test_random.h"

#define SPATIAL LUCID_SOURCE_DIR "/tests/data/model/mjcf_tendon_spatial.xml"
#define ARM26   "/usr/share/mujoco/model/tendon_arm/arm26.xml"
#define STATES  200
#define TOL     1e-12

static int skipped;

/* The moment of every tendon of lm against central differences of its length along q ⊕ h e_k
 * (a ball's tangent included) at 200 random configurations; worst[t]: the largest gap relative
 * to the moment's largest entry. Where a wrap switches on or off inside the difference the
 * length has a kink: such columns (the two one-sided differences disagreeing by more than 1e-4
 * relative) are left out and counted in *kinks. */
static void moment_vs_differences(const lucid_model *lm, double *worst, int *kinks) {
    size_t nq = lucid_model_nq(lm), nv = lucid_model_nv(lm), nt = lucid_model_ntendons(lm);
    double *q = calloc(nq, sizeof *q), *qp = calloc(nq, sizeof *qp), *qm = calloc(nq, sizeof *qm);
    double *e = calloc(nv, sizeof *e), *row = calloc(nv, sizeof *row);
    assert_true(q && qp && qm && e && row);
    const lucid_model_tendon *T = lucid_model_tendons(lm);
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    const double h = 1e-6;
    for (int s = 0; s < STATES; s++) {
        lucid_model_neutral(lm, q);
        for (size_t i = 0; i < nv; i++) e[i] = xorshift_range(&seed, -1.5, 1.5);
        lucid_model_integrate(lm, q, e, 1.0, q); /* a random configuration */
        for (size_t t = 0; t < nt; t++) {
            memset(row, 0, nv * sizeof *row);
            lucid_model_tendon_add_moment(&T[t], q, 1.0, 0, nv, row);
            double scale = 0.0, L0 = lucid_model_tendon_length(&T[t], q);
            for (size_t k = 0; k < nv; k++) scale = fmax(scale, fabs(row[k]));
            for (size_t k = 0; k < nv; k++) {
                memset(e, 0, nv * sizeof *e);
                e[k] = 1.0;
                lucid_model_integrate(lm, q, e, h, qp);
                lucid_model_integrate(lm, q, e, -h, qm);
                double Lp = lucid_model_tendon_length(&T[t], qp);
                double Lm = lucid_model_tendon_length(&T[t], qm);
                double fwd = (Lp - L0) / h, bwd = (L0 - Lm) / h;
                if (fabs(fwd - bwd) > 1e-4 * fmax(scale, 1e-12)) {
                    (*kinks)++;
                    continue;
                }
                worst[t] = fmax(worst[t], fabs((Lp - Lm) / (2.0 * h) - row[k]) / scale);
            }
        }
    }
    free(q), free(qp), free(qm), free(e), free(row);
}

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

/* Each tendon's path and values against MuJoCo's compiled one. */
static void check_tendons(const mjModel *mm, const lucid_model *lm) {
    const lucid_model_tendon *T = lucid_model_tendons(lm);
    for (int t = 0; t < mm->ntendon; t++) {
        assert_string_equal(T[t].name, mm->names + mm->name_tendonadr[t]);
        assert_true(lucid_model_tendon_is_spatial(&T[t]));
        assert_int_equal((int)T[t].npath, mm->tendon_num[t]);
        for (size_t i = 0; i < T[t].npath; i++) {
            const lucid_model_tendon_point *P = &T[t].path[i];
            int w = mm->tendon_adr[t] + (int)i, id = mm->wrap_objid[w];
            if (P->kind == LUCID_TENDON_PATH_PULLEY) {
                assert_int_equal(mm->wrap_type[w], mjWRAP_PULLEY);
                compare("divisor", &P->divisor, &mm->wrap_prm[w], 1, 0.0, t);
            } else if (P->kind == LUCID_TENDON_PATH_SITE) {
                assert_int_equal(mm->wrap_type[w], mjWRAP_SITE);
                assert_string_equal(lucid_model_name_at(lm, "frame", (size_t)P->object),
                                    mm->names + mm->name_siteadr[id]);
            } else {
                assert_int_equal(mm->wrap_type[w], P->cylinder ? mjWRAP_CYLINDER : mjWRAP_SPHERE);
                assert_string_equal(lucid_model_geoms(lm)[P->object].name,
                                    mm->names + mm->name_geomadr[id]);
                compare("radius", &P->radius, &mm->geom_size[3 * id], 1, 0.0, t);
                int side = (int)lround(mm->wrap_prm[w]);
                assert_int_equal(P->side >= 0, side >= 0);
                if (side >= 0)
                    assert_string_equal(lucid_model_name_at(lm, "frame", (size_t)P->side),
                                        mm->names + mm->name_siteadr[side]);
            }
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
        compare("tendon values", mine, theirs, 5, TOL, t);
    }
}

/* A random state of a model of hinges, slides and balls (a unit quaternion at a ball's qpos;
 * a limited joint within its range: MuJoCo's side-site wrap jumps between its two solutions at
 * rounding-level changes of q where the side point lines up with the tendon, as arm26's
 * shoulder does at q = -1.94 rad, outside its range, in both libraries). */
static void random_state(const mjModel *mm, mjData *md, uint64_t *seed) {
    for (int j = 0; j < mm->njnt; j++) {
        double *q = md->qpos + mm->jnt_qposadr[j];
        if (mm->jnt_type[j] == mjJNT_BALL) {
            double n = 0.0;
            for (int k = 0; k < 4; k++) q[k] = xorshift_range(seed, -1, 1), n += q[k] * q[k];
            for (int k = 0; k < 4; k++) q[k] /= sqrt(n);
        } else if (mm->jnt_limited[j]) {
            q[0] = xorshift_range(seed, mm->jnt_range[2 * j], mm->jnt_range[2 * j + 1]);
        } else {
            q[0] = mm->jnt_type[j] == mjJNT_SLIDE ? xorshift_range(seed, -0.2, 0.2)
                                                  : xorshift_range(seed, -2, 2);
        }
    }
    for (int i = 0; i < mm->nv; i++) md->qvel[i] = xorshift_range(seed, -3, 3);
    for (int i = 0; i < mm->nu; i++) md->ctrl[i] = xorshift_range(seed, -3, 3);
}

/* Whether MuJoCo's tendon t wraps around a geom in md (a wrap point on a geom). */
static int mujoco_wrapped(const mjData *md, int t) {
    for (int k = 0; k < md->ten_wrapnum[t]; k++)
        if (md->wrap_obj[md->ten_wrapadr[t] + k] >= 0) return 1;
    return 0;
}

/* Lengths, moments and velocities of every tendon at STATES random states, and (forces) the
 * actuators' moments, qfrc_actuator and (forces > 1: a model whose only passive forces are its
 * tendons') qfrc_passive; worst[0..4] the worst relative gaps;
 * wrapped[t], straight[t]: how often MuJoCo's tendon t wrapped or not. */
static void compare_states(const mjModel *mm, mjData *md, const lucid_model *lm, int forces,
                           double worst[5], int *wrapped, int *straight) {
    size_t nv = (size_t)mm->nv, nt = (size_t)mm->ntendon, nu = (size_t)mm->nu;
    double *tau = calloc(nv, sizeof *tau), *row = calloc(nv, sizeof *row);
    double *len = calloc(nt, sizeof *len), *vel = calloc(nt, sizeof *vel);
    assert_true(tau && row && len && vel);
    const lucid_model_tendon *T = lucid_model_tendons(lm);
    const lucid_model_actuator *A = lucid_model_actuators(lm);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (int s = 0; s < STATES; s++) {
        mj.reset_data(mm, md);
        random_state(mm, md, &seed);
        mj.fwd_position(mm, md);
        mj.fwd_velocity(mm, md);
        if (forces) mj.fwd_actuation(mm, md);
        for (size_t t = 0; t < nt; t++) {
            len[t] = lucid_model_tendon_length(&T[t], md->qpos);
            vel[t] = lucid_model_tendon_velocity(&T[t], md->qpos, md->qvel);
            memset(row, 0, nv * sizeof *row);
            lucid_model_tendon_add_moment(&T[t], md->qpos, 1.0, 0, nv, row);
            worst[0] = fmax(worst[0], compare("ten_J", row, md->ten_J + t * nv, nv, TOL, s));
            mujoco_wrapped(md, (int)t) ? wrapped[t]++ : straight[t]++;
        }
        worst[1] = fmax(worst[1], compare("ten_length", len, md->ten_length, nt, TOL, s));
        worst[1] = fmax(worst[1], compare("ten_velocity", vel, md->ten_velocity, nt, TOL, s));
        if (!forces) continue;
        for (size_t a = 0; a < nu; a++) {
            memset(row, 0, nv * sizeof *row);
            lucid_model_actuator_add_moment(&A[a], md->qpos, 1.0, row);
            worst[2] = fmax(worst[2], compare("actuator_moment", row, md->actuator_moment + a * nv,
                                              nv, TOL, s));
        }
        memset(tau, 0, nv * sizeof *tau);
        lucid_model_tendon_passive(lm, md->qpos, md->qvel, tau);
        if (forces > 1)
            worst[3] = fmax(worst[3], compare("qfrc_passive", tau, md->qfrc_passive, nv, TOL, s));
        /* qfrc_actuator against the size of its terms (the sum cancels when every force is
         * clamped to 0), and each actuator's force */
        double scale = 0.0, gap = 0.0;
        for (size_t a = 0; a < nu; a++) {
            double f = lucid_model_actuator_force(&A[a], md->qpos, md->qvel, md->ctrl[a], NULL);
            worst[4] =
                fmax(worst[4], compare("actuator_force", &f, &md->actuator_force[a], 1, TOL, s));
            for (size_t i = 0; i < nv; i++)
                scale = fmax(scale, fabs(f * md->actuator_moment[a * nv + i]));
        }
        lucid_model_actuation(lm, md->qpos, md->qvel, md->ctrl, NULL, tau);
        for (size_t i = 0; i < nv; i++) gap = fmax(gap, fabs(tau[i] - md->qfrc_actuator[i]));
        if (scale > 0.0) worst[4] = fmax(worst[4], gap / scale);
        assert_true(gap <= TOL * scale);
    }
    free(tau), free(row), free(len), free(vel);
}

static void test_definitions(void **state) {
    (void)state;
    mjModel *mm;
    mjData *md;
    lucid_model *lm;
    if (!load_both(SPATIAL, &mm, &md, &lm)) return;
    check_tendons(mm, lm);
    mujoco_free_both(&mj, mm, md, lm);
    printf("spatial tendon definitions: equal MuJoCo's\n");
}

static void test_random_states(void **state) {
    (void)state;
    mjModel *mm;
    mjData *md;
    lucid_model *lm;
    if (!load_both(SPATIAL, &mm, &md, &lm)) return;
    double worst[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
    int wrapped[16] = {0}, straight[16] = {0};
    assert_true(mm->ntendon <= 16);
    compare_states(mm, md, lm, 2, worst, wrapped, straight);
    printf("%d random states: worst relative gaps ten_J %.2g, length/velocity %.2g, "
           "actuator_moment %.2g, qfrc_passive %.2g, qfrc_actuator %.2g\n",
           STATES, worst[0], worst[1], worst[2], worst[3], worst[4]);
    for (int t = 0; t < mm->ntendon; t++) {
        printf("  tendon '%s': wrapped at %d states, straight at %d\n",
               mm->names + mm->name_tendonadr[t], wrapped[t], straight[t]);
        int geoms = 0;
        for (int i = 0; i < mm->tendon_num[t]; i++)
            geoms += mm->wrap_type[mm->tendon_adr[t] + i] == mjWRAP_SPHERE ||
                     mm->wrap_type[mm->tendon_adr[t] + i] == mjWRAP_CYLINDER;
        if (geoms) assert_true(wrapped[t] > 10 && straight[t] > 10); /* both met */
    }
    mujoco_free_both(&mj, mm, md, lm);
}
/* 250 steps from rest under gravity and constant controls: the arm swings down and the limited
 * tendon "straight" (t = 0) reaches its bound. Before it does, both steps are the same
 * semi-implicit Euler step (no joint damping, springs or armature; the tendons' forces explicit
 * in both); after, MuJoCo's soft limit lets the tendon past its bound where lucid's holds. */
static void test_limited_trajectory(void **state) {
    (void)state;
    mjModel *mm;
    mjData *md;
    lucid_model *lm;
    if (!load_both(SPATIAL, &mm, &md, &lm)) return;
    mj.reset_data(mm, md);
    const double u[5] = {0.5, 0.3, 0.2, 0.4, -0.3};
    memcpy(md->ctrl, u, sizeof u);
    int id;
    lucid_world *w = mujoco_world_of(lm, md, 0, &id);
    const lucid_model_tendon *T = lucid_model_tendons(lm);
    assert_true(T[0].limited);
    double free_gap = 0.0, gap = 0.0, mine = 0.0, theirs = 0.0, Lmin = INFINITY, Lmax = -INFINITY;
    double second = 0.0, q0[16]; /* the second order in L of the limit's steps; q before one */
    int first = -1, held = 0;
    assert_true(mm->nq <= 16);
    for (int s = 0; s < 250; s++) {
        memcpy(q0, lucid_world_model_q(w, id), sizeof(double) * (size_t)mm->nq);
        mj.step(mm, md);
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        const double *q = lucid_world_model_q(w, id);
        double linear =
            lucid_model_tendon_length(&T[0], q0) +
            mm->opt.timestep * lucid_model_tendon_velocity(&T[0], q0, lucid_world_model_v(w, id));
        double d = 0.0;
        for (int i = 0; i < mm->nq; i++) d = fmax(d, fabs(q[i] - md->qpos[i]));
        int limit = 0;
        for (int k = 0; k < lucid_world_contact_count(w); k++)
            limit += lucid_world_contacts(w)[k].limit_tendon == 0;
        if (limit) second = fmax(second, fabs(lucid_model_tendon_length(&T[0], q) - linear));
        for (int k = 0; k < md->nefc; k++) limit += md->efc_type[k] == mjCNSTR_LIMIT_TENDON;
        if (limit && first < 0) first = s;
        if (first < 0) free_gap = fmax(free_gap, d);
        gap = fmax(gap, d);
        double L = lucid_model_tendon_length(&T[0], q), Lm = md->ten_length[0];
        held += L >= T[0].upper - 1e-3;
        Lmin = fmin(Lmin, L), Lmax = fmax(Lmax, L);
        mine = fmax(mine, fmax(T[0].lower - L, L - T[0].upper));
        theirs = fmax(theirs, fmax(T[0].lower - Lm, Lm - T[0].upper));
    }
    double round_off = 64.0 * DBL_EPSILON * T[0].upper;
    printf(
        "limited spatial tendon 'straight' in [%g, %g]: 250 steps, its limit first active at step "
        "%d; max |q_lucid - q_MuJoCo| %.3g before, %.3g over the whole run; lucid's L in [%.4g, "
        "%.4g], at the bound on %d steps, largest excess %.3g (the step's second order in L "
        "%.3g, round-off %.3g); MuJoCo's soft limit's %.3g\n",
        T[0].lower, T[0].upper, first, free_gap, gap, Lmin, Lmax, held, mine, second, round_off,
        theirs);
    assert_true(first > 10 && held > 50);
    assert_true(free_gap <= 1e-9);
    assert_true(mine <= second + round_off);
    lucid_world_destroy(w);
    mujoco_free_both(&mj, mm, md, lm);
}
/* arm26.xml with "<muscle" replaced by "<motor" (its default and its six actuators), written
 * beside nothing else (the sample includes no file); *path receives the copy's name. */
static int arm26_with_motors(char *path, size_t size) {
    FILE *f = fopen(ARM26, "rb");
    if (!f) return 0;
    char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    assert_true(n > 0 && n < sizeof text - 1);
    text[n] = '\0';
    snprintf(path, size, "/tmp/lucid_arm26_motors_%ld.xml", (long)getpid());
    FILE *out = fopen(path, "wxb"); /* exclusive: a file of that name is another's */
    assert_non_null(out);
    int replaced = 0;
    for (const char *p = text; *p;) {
        const char *hit = strstr(p, "<muscle");
        size_t len = hit ? (size_t)(hit - p) : strlen(p);
        fwrite(p, 1, len, out);
        if (!hit) break;
        fputs("<motor", out);
        p = hit + strlen("<muscle"), replaced++;
    }
    fclose(out);
    assert_int_equal(replaced, 7); /* the default and six actuators */
    return 1;
}

static void test_arm26(void **state) {
    (void)state;
    char path[64];
    if (!have_api || !arm26_with_motors(path, sizeof path)) {
        printf("arm26: %s: skipped\n", have_api ? "sample not installed" : "no MuJoCo");
        skipped = 1;
        return;
    }
    mjModel *mm;
    mjData *md;
    lucid_model *lm;
    int ok = load_both(path, &mm, &md, &lm);
    remove(path);
    if (!ok) return;
    assert_int_equal(mm->ntendon, 6);
    check_tendons(mm, lm);
    double worst[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
    int wrapped[6] = {0}, straight[6] = {0};
    compare_states(mm, md, lm, 1, worst, wrapped, straight);
    printf("arm26 (muscles as motors), %d random states: worst relative gaps ten_J %.2g, "
           "length/velocity %.2g, actuator_moment %.2g, qfrc_actuator %.2g; wrapped (of 200):",
           STATES, worst[0], worst[1], worst[2], worst[4]);
    for (int t = 0; t < 6; t++) {
        printf(" %s %d", mm->names + mm->name_tendonadr[t], wrapped[t]);
        assert_true(wrapped[t] > 10);
    }
    printf("\n");
    mujoco_free_both(&mj, mm, md, lm);
}

/* arm26.xml with each of its six muscles given the lengthrange MuJoCo 2.2.2 computed for it
 * (mm's, by its compile-time simulation, which lucid does not do); *path receives the copy. */
static int arm26_with_lengthranges(const mjModel *mm, char *path, size_t size) {
    FILE *f = fopen(ARM26, "rb");
    if (!f) return 0;
    char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    assert_true(n > 0 && n < sizeof text - 1);
    text[n] = '\0';
    snprintf(path, size, "/tmp/lucid_arm26_lengthrange_%ld.xml", (long)getpid());
    FILE *out = fopen(path, "wxb");
    assert_non_null(out);
    int a = 0;
    for (const char *p = text; *p;) {
        const char *hit = strstr(p, "<muscle name=");
        const char *end = hit ? strstr(hit, "/>") : NULL;
        size_t len = end ? (size_t)(end - p) : strlen(p);
        fwrite(p, 1, len, out);
        if (!end) break;
        assert_true(a < mm->nu);
        fprintf(out, " lengthrange=\"%.17g %.17g\"", mm->actuator_lengthrange[2 * a],
                mm->actuator_lengthrange[2 * a + 1]);
        p = end, a++;
    }
    fclose(out);
    assert_int_equal(a, 6);
    return 1;
}

/* arm26's state for an actuation comparison: q uniform over the joints' ranges, v in
 * [-3, 3], controls and activations in [0, 1], then MuJoCo's position, velocity and actuation
 * stages. */
static void random_actuated_state(const mjModel *mm, mjData *md, uint64_t *seed) {
    mj.reset_data(mm, md);
    for (int i = 0; i < mm->nq; i++)
        md->qpos[i] = xorshift_range(seed, mm->jnt_range[2 * i], mm->jnt_range[2 * i + 1]);
    for (int i = 0; i < mm->nv; i++) md->qvel[i] = xorshift_range(seed, -3, 3);
    for (int i = 0; i < mm->nu; i++) md->ctrl[i] = xorshift_range(seed, 0, 1);
    for (int i = 0; i < mm->na; i++) md->act[i] = xorshift_range(seed, 0, 1);
    mj.fwd_position(mm, md);
    mj.fwd_velocity(mm, md);
    mj.fwd_actuation(mm, md);
}

/* MuJoCo's arm26 as it is (six muscles on six spatial tendons with wraps and side sites), given
 * MuJoCo's own lengthranges: acc0 and, at random states within the joints' ranges, controls and
 * activations in [0, 1], qfrc_actuator and act_dot equal MuJoCo's mj_fwdActuation. */
static void test_arm26_muscles(void **state) {
    (void)state;
    char err[1024] = "", path[64];
    mjModel *orig = have_api ? mj.load_xml(ARM26, NULL, err, sizeof err) : NULL;
    if (!orig || !arm26_with_lengthranges(orig, path, sizeof path)) {
        printf("arm26 muscles: %s: skipped\n", have_api ? "sample not installed" : "no MuJoCo");
        if (orig) mj.delete_model(orig);
        skipped = 1;
        return;
    }
    mj.delete_model(orig);
    mjModel *mm;
    mjData *md;
    lucid_model *lm;
    int ok = load_both(path, &mm, &md, &lm);
    remove(path);
    if (!ok) return;
    assert_int_equal((int)lucid_model_na(lm), mm->na);
    const lucid_model_actuator *A = lucid_model_actuators(lm);
    for (int a = 0; a < mm->nu; a++)
        compare("acc0", &A[a].acc0, mm->actuator_acc0 + a, 1, 1e-12, a);
    size_t nv = (size_t)mm->nv, na = (size_t)mm->na;
    double tau[2], act_dot[6], worst[2] = {0.0, 0.0};
    assert_true(nv == 2 && na == 6);
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    for (int s = 0; s < STATES; s++) {
        random_actuated_state(mm, md, &seed);
        lucid_model_actuation(lm, md->qpos, md->qvel, md->ctrl, md->act, tau);
        worst[0] = fmax(worst[0], compare("qfrc_actuator", tau, md->qfrc_actuator, nv, TOL, s));
        for (int a = 0; a < mm->nu; a++)
            act_dot[A[a].act] = lucid_model_actuator_act_dot(&A[a], md->ctrl[a], md->act[A[a].act]);
        worst[1] = fmax(worst[1], compare("act_dot", act_dot, md->act_dot, na, TOL, s));
    }
    printf("arm26 with MuJoCo's lengthranges, %d random states: worst relative gaps "
           "qfrc_actuator %.2g, act_dot %.2g\n",
           STATES, worst[0], worst[1]);
    mujoco_free_both(&mj, mm, md, lm);
}
/* MuJoCo's arm26.xml unmodified: lucid computes its muscles' missing lengthranges as the
 * extremes of L over the joints' box (here at its corners: no extreme is interior). MuJoCo's
 * compile-time simulation (replayed here) pushes each muscle to the same corner but rests past
 * it by the soft joint limits' penetration (bounded by ARM26_OVERSHOOT rad; figures in
 * docs/model_files.md, "Actuator activations"):
 * lucid's L at that rest is MuJoCo's range end, and at the rest clamped into the box lucid's,
 * so MuJoCo's range contains lucid's and the whole gap is that overshoot.
 * With lucid's own ranges the muscle forces differ from MuJoCo's by that gap alone: with
 * MuJoCo's ranges they agree to TOL at every state, and the gap through the force-length and
 * force-velocity curves is at most ARM26_FORCE_GAP relative. */
#define ARM26_OVERSHOOT 1.5e-3
#define ARM26_FORCE_GAP 1e-2

/* The least and greatest L over the box's corners; *over: the joint overshoot past the corner
 * at each end that explains MuJoCo's range r (its gap over the moment's norm there). */
static void arm26_corners(const mjModel *mm, const lucid_model_actuator *A, const double *r,
                          double ext[2], double over[2]) {
    ext[0] = INFINITY, ext[1] = -INFINITY;
    for (int c = 0; c < 4; c++) {
        double q[2] = {mm->jnt_range[c & 1], mm->jnt_range[2 + ((c >> 1) & 1)]}, g[2] = {0, 0};
        double L = lucid_model_actuator_length(A, q);
        lucid_model_actuator_add_moment(A, q, 1.0, g);
        for (int side = 0; side < 2; side++)
            if (side == 0 ? L < ext[0] : L > ext[1])
                ext[side] = L, over[side] = fabs(r[side] - L) / hypot(g[0], g[1]);
    }
}

/* MuJoCo 2.2.2's length-range search for actuator a, replayed (mj_setLengthRange with the
 * default mjLROpt: accel 20, timestep 0.01, timeconst 1, inttotal 10, inteval 2, under the
 * compiler's disable flags): the least (side 0) or greatest L of the last 2 s, and in q the
 * configuration reaching it, past the joint limits. */
static double arm26_mujoco_search(mjModel *mm, mjData *md, int a, int side, double q[2]) {
    mjOption saved = mm->opt;
    mm->opt.disableflags =
        mjDSBL_FRICTIONLOSS | mjDSBL_CONTACT | mjDSBL_PASSIVE | mjDSBL_GRAVITY | mjDSBL_ACTUATION;
    mm->opt.timestep = 0.01;
    mj.reset_data(mm, md);
    int nv = mm->nv, updated = 0;
    double best = 0.0;
    while (md->time < 10.0) {
        for (int k = 0; k < nv; k++) md->qvel[k] *= exp(-mm->opt.timestep / 1.0);
        mj.step1(mm, md);
        mj.solve_m(mm, md, md->qfrc_applied, md->actuator_moment + a * nv, 1);
        double n = 0.0;
        for (int k = 0; k < nv; k++) n += md->qfrc_applied[k] * md->qfrc_applied[k];
        for (int k = 0; k < nv; k++)
            md->qfrc_applied[k] =
                md->actuator_moment[a * nv + k] * (2 * side - 1) * 20.0 / fmax(mjMINVAL, sqrt(n));
        double at[2] = {md->qpos[0], md->qpos[1]}; /* the pose step1 computed L at */
        mj.step2(mm, md);
        double L = md->actuator_length[a];
        if (md->time > 8.0 && (!updated || (side == 0 ? L < best : L > best)))
            best = L, q[0] = at[0], q[1] = at[1], updated = 1;
    }
    mm->opt = saved;
    return best;
}

static void test_arm26_computed_lengthranges(void **state) {
    (void)state;
    mjModel *mm;
    mjData *md;
    lucid_model *lm;
    if (access(ARM26, R_OK) != 0) {
        printf("arm26 computed lengthranges: sample not installed: skipped\n");
        skipped = 1;
        return;
    }
    if (!load_both(ARM26, &mm, &md, &lm)) return;
    const lucid_model_actuator *A = lucid_model_actuators(lm);
    lucid_model_actuator B[6]; /* the muscles with MuJoCo's ranges */
    double worst_gap = 0.0, worst_over = 0.0, worst_f = 0.0, worst_same = 0.0, worst_pen = 0.0;
    assert_int_equal(mm->nu, 6);
    for (int a = 0; a < mm->nu; a++) {
        const double *r = mm->actuator_lengthrange + 2 * a, *lr = A[a].lengthrange;
        double ext[2], over[2] = {INFINITY, INFINITY}, width = r[1] - r[0];
        arm26_corners(mm, &A[a], r, ext, over);
        compare("lengthrange at the corners", lr, ext, 2, 1e-15, a);
        assert_true(r[0] < lr[0] && lr[1] < r[1]); /* the overshoot's sign */
        worst_over = fmax(worst_over, fmax(over[0], over[1]));
        worst_gap = fmax(worst_gap, fmax(lr[0] - r[0], r[1] - lr[1]) / width);
        B[a] = A[a], B[a].lengthrange[0] = r[0], B[a].lengthrange[1] = r[1];
        /* the cause: MuJoCo's search rests past the joint box; lucid's L there is MuJoCo's
         * range end, and at that rest clamped into the box lucid's own */
        for (int side = 0; side < 2; side++) {
            double rest[2], q[2], pen = 0.0;
            double L = arm26_mujoco_search(mm, md, a, side, rest);
            compare("MuJoCo's search replayed", &L, &r[side], 1, 1e-14, a);
            for (int j = 0; j < 2; j++) {
                double lo = mm->jnt_range[2 * j], hi = mm->jnt_range[2 * j + 1];
                q[j] = fmin(fmax(rest[j], lo), hi);
                pen = fmax(pen, fabs(rest[j] - q[j]));
            }
            double Lrest = lucid_model_actuator_length(&A[a], rest);
            double Lbox = lucid_model_actuator_length(&A[a], q);
            compare("L at MuJoCo's rest", &Lrest, &r[side], 1, 1e-13, a);
            compare("L at MuJoCo's rest in the box", &Lbox, &lr[side], 1, 1e-13, a);
            worst_pen = fmax(worst_pen, pen);
        }
    }
    assert_true(worst_over <= ARM26_OVERSHOOT && worst_pen <= ARM26_OVERSHOOT);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (int s = 0; s < STATES; s++) {
        random_actuated_state(mm, md, &seed);
        double tau[2], same[2] = {0.0, 0.0};
        lucid_model_actuation(lm, md->qpos, md->qvel, md->ctrl, md->act, tau);
        for (int a = 0; a < mm->nu; a++)
            lucid_model_actuator_add_moment(
                &B[a], md->qpos,
                lucid_model_actuator_force(&B[a], md->qpos, md->qvel, md->ctrl[a], md->act), same);
        worst_same = fmax(worst_same, compare("qfrc_actuator (MuJoCo's ranges)", same,
                                              md->qfrc_actuator, 2, TOL, s));
        worst_f =
            fmax(worst_f, compare("qfrc_actuator", tau, md->qfrc_actuator, 2, ARM26_FORCE_GAP, s));
    }
    printf("arm26 computed lengthranges: MuJoCo's wider by at most %.3g of the width (a joint "
           "overshoot of %.3g rad; its search rests up to %.3g rad past the limits); %d random "
           "states: qfrc_actuator %.3g relative (%.2g with MuJoCo's ranges)\n",
           worst_gap, worst_over, worst_pen, STATES, worst_f, worst_same);
    mujoco_free_both(&mj, mm, md, lm);
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
static void test_limited_trajectory(void **state) {
    (void)state;
    skipped = 1;
}
static void test_arm26(void **state) {
    (void)state;
    skipped = 1;
}
static void test_arm26_muscles(void **state) {
    (void)state;
    skipped = 1;
}
static void test_arm26_computed_lengthranges(void **state) {
    (void)state;
    skipped = 1;
}
#endif

static void test_moment_differences(void **state) {
    (void)state;
    lucid_model *lm = test_load_model(SPATIAL);
    double worst[16] = {0.0};
    int kinks = 0;
    assert_true(lucid_model_ntendons(lm) <= 16);
    moment_vs_differences(lm, worst, &kinks);
    printf("moment against central differences of the length (h 1e-6, %d random states, %d "
           "columns at a wrap's kink left out):",
           STATES, kinks);
    for (size_t t = 0; t < lucid_model_ntendons(lm); t++)
        printf(" %s %.2g", lucid_model_tendons(lm)[t].name, worst[t]);
    printf("\n");
    for (size_t t = 0; t < lucid_model_ntendons(lm); t++) assert_true(worst[t] <= 1e-7);
    assert_true(kinks < STATES); /* a few of the 200 x 6 x 7 columns */
    lucid_model_destroy(lm);
}

int main(void) {
#if HAVE_MUJOCO
    have_api = load_mujoco(&mj);
    if (!have_api) fprintf(stderr, "MuJoCo 2.2.2 (libmujoco.so) not found: not compared\n");
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_definitions),
        cmocka_unit_test(test_random_states),
        cmocka_unit_test(test_limited_trajectory),
        cmocka_unit_test(test_arm26),
        cmocka_unit_test(test_arm26_muscles),
        cmocka_unit_test(test_arm26_computed_lengthranges),
        cmocka_unit_test(test_moment_differences),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return mujoco_test_result(failed, skipped, "test_mjcf_spatial_tendons", "MuJoCo 2.2.2 missing");
}
