/* MJCF <equality><tendon> (MuJoCo 2.2.2's: L1 - L1_0 = poly(L2 - L2_0), L_0 the lengths at
 * qpos0; tendon2 omitted: L1 - L1_0 = polycoef[0]) as hard rows (runtime/model/
 * model_equality.c):
 *   - at 200 random states of tests/data/model/mjcf_tendon_coupling.xml (fixed tendons) and
 *     mjcf_tendon_equality_spatial.xml (spatial tendons wrapping a sphere and a cylinder, a
 *     pulley across two trees, a quartic), lucid's violation phi and row E equal MuJoCo's
 *     efc_pos and efc_J rows of the equalities (libmujoco dlopen'ed; skipped without it); so
 *     do the <equality><joint> rows of mjcf_joint_coupling.xml (a quadratic coupling across two
 *     trees, joint2 omitted, an inactive one);
 *   - E equals central differences of phi along every dof (tangent space: the ball's too);
 *   - in the world the fixed tendons' couplings hold to 1e-6 at every step under gravity (the
 *     first step removes the violation the neutral configuration starts with);
 *   - tendon1 = tendon2 is a compile error naming the file, line and equality. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/model/dynamics.h"
#include "runtime/model/configuration.h"
#include "runtime/model/model.h"
#include "runtime/model/model_load.h"
#include "runtime/world/world.h"

#include "tests/c/common/test_mujoco_compare.h"
#include "tests/c/common/test_random.h"

#define DATA    LUCID_SOURCE_DIR "/tests/data/model/"
#define FIXED   DATA "mjcf_tendon_coupling.xml"
#define SPATIAL DATA "mjcf_tendon_equality_spatial.xml"
#define JOINT   DATA "mjcf_joint_coupling.xml"
#define STATES  200

/* A random configuration: q0 (+) a random tangent step of up to 1.5 per dof. */
static void random_q(const lucid_model *m, uint64_t *seed, double *q, double *dq) {
    lucid_model_neutral(m, q);
    for (size_t k = 0; k < lucid_model_nv(m); ++k) dq[k] = xorshift_range(seed, -1.5, 1.5);
    lucid_model_integrate(m, q, dq, 1.0, q);
}

/* E (k x nv) and phi (k) at q. */
static void rows_at(const lucid_model *m, lucid_model_data *d, const double *q, double *E,
                    double *phi) {
    lucid_model_forward_kinematics(m, d, q);
    lucid_model_equality_jacobian(m, d, q, E, phi);
}

/* E against central differences of phi (step h along each tangent direction) at random
 * configurations; the worst gap relative to the row's largest entry. */
static double rows_vs_differences(const char *path) {
    lucid_model *m = test_load_model(path);
    size_t nq = lucid_model_nq(m), nv = lucid_model_nv(m), k = lucid_model_equality_rows(m);
    assert_true(k > 0);
    lucid_model_data *d = NULL;
    assert_int_equal(lucid_model_data_create(m, &d), LUCID_OK);
    double *q = calloc(nq, sizeof *q), *qh = calloc(nq, sizeof *qh), *dq = calloc(nv, sizeof *dq);
    double *E = calloc(k * nv, sizeof *E), *Eh = calloc(k * nv, sizeof *Eh);
    double *p = calloc(k, sizeof *p), *m1 = calloc(k, sizeof *m1), *phi = calloc(k, sizeof *phi);
    assert_true(q && qh && dq && E && Eh && p && m1 && phi);
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    const double h = 1e-6;
    double worst = 0.0;
    for (int s = 0; s < STATES; ++s) {
        random_q(m, &seed, q, dq);
        rows_at(m, d, q, E, phi);
        for (size_t j = 0; j < nv; ++j) {
            memset(dq, 0, nv * sizeof *dq);
            dq[j] = h;
            lucid_model_integrate(m, q, dq, 1.0, qh);
            rows_at(m, d, qh, Eh, p);
            lucid_model_integrate(m, q, dq, -1.0, qh);
            rows_at(m, d, qh, Eh, m1);
            for (size_t i = 0; i < k; ++i) {
                double scale = 0.0;
                for (size_t c = 0; c < nv; ++c) scale = fmax(scale, fabs(E[i * nv + c]));
                double fd = (p[i] - m1[i]) / (2.0 * h);
                worst = fmax(worst, fabs(fd - E[i * nv + j]) / fmax(scale, 1e-300));
            }
        }
    }
    free(q), free(qh), free(dq), free(E), free(Eh), free(p), free(m1), free(phi);
    lucid_model_data_destroy(d);
    lucid_model_destroy(m);
    return worst;
}

static void test_rows_match_differences(void **state) {
    (void)state;
    double fixed = rows_vs_differences(FIXED), spatial = rows_vs_differences(SPATIAL);
    printf("tendon equality rows vs central differences of phi (h 1e-6), %d states: fixed %.2g, "
           "spatial %.2g relative\n",
           STATES, fixed, spatial);
    assert_true(fixed < 1e-7);
    assert_true(spatial < 1e-6);
}

#if HAVE_MUJOCO
/* phi and E against MuJoCo's equality rows (efc_pos, efc_J) at random states: the worst
 * relative gap of E, *pos_gap the worst absolute gap of phi. */
static double rows_vs_mujoco(const mujoco_api *api, const char *path, double *pos_gap) {
    mjModel *mm;
    mjData *md;
    mujoco_load_file(api, path, &mm, &md);
    lucid_model *m = test_load_model(path);
    size_t nq = lucid_model_nq(m), nv = lucid_model_nv(m), k = lucid_model_equality_rows(m);
    assert_int_equal((int)nq, mm->nq); /* hinges, slides and balls: the same coordinates */
    assert_int_equal((int)nv, mm->nv);
    int active[64], nactive = 0; /* lucid compiles the active equalities, in file order */
    assert_true(mm->neq <= 64);
    for (int e = 0; e < mm->neq; ++e) active[e] = mm->eq_active[e] ? nactive++ : -1;
    assert_int_equal((int)k, nactive);
    lucid_model_data *d = NULL;
    assert_int_equal(lucid_model_data_create(m, &d), LUCID_OK);
    double *dq = calloc(nv, sizeof *dq), *E = calloc(k * nv, sizeof *E),
           *phi = calloc(k, sizeof *phi);
    assert_true(dq && E && phi);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    double worst = 0.0;
    for (int s = 0; s < STATES; ++s) {
        api->reset_data(mm, md);
        random_q(m, &seed, md->qpos, dq);
        api->fwd_position(mm, md);
        rows_at(m, d, md->qpos, E, phi);
        size_t seen = 0;
        for (int r = 0; r < md->nefc; ++r) {
            if (md->efc_type[r] != mjCNSTR_EQUALITY) continue;
            assert_true(md->efc_id[r] >= 0 && md->efc_id[r] < mm->neq);
            int e = active[md->efc_id[r]];
            assert_true(e >= 0 && (size_t)e < k);
            /* phi is a difference of O(1 m) lengths: its gap is absolute, round-off of those */
            double gap = fabs(phi[e] - md->efc_pos[r]);
            if (!(gap <= 1e-12))
                fprintf(stderr, "efc_pos %d, equality %d: lucid %.17g MuJoCo %.17g\n", s, e, phi[e],
                        md->efc_pos[r]);
            assert_true(gap <= 1e-12);
            *pos_gap = fmax(*pos_gap, gap);
            worst = fmax(worst, compare("efc_J", E + (size_t)e * nv, md->efc_J + (size_t)r * nv, nv,
                                        1e-12, s));
            ++seen;
        }
        assert_int_equal(seen, k);
    }
    free(dq), free(E), free(phi);
    lucid_model_data_destroy(d);
    mujoco_free_both(api, mm, md, m);
    return worst;
}
#endif

static void test_rows_match_mujoco(void **state) {
    (void)state;
#if HAVE_MUJOCO
    mujoco_api api;
    memset(&api, 0, sizeof api);
    if (!load_mujoco(&api)) {
        printf("MuJoCo not found: skipped\n");
        skip();
    }
    double pos[3] = {0.0, 0.0, 0.0};
    double fixed = rows_vs_mujoco(&api, FIXED, &pos[0]);
    double spatial = rows_vs_mujoco(&api, SPATIAL, &pos[1]);
    double joint = rows_vs_mujoco(&api, JOINT, &pos[2]);
    printf("tendon equality rows vs MuJoCo %s, %d random states: efc_J relative gap fixed %.2g, "
           "spatial %.2g; efc_pos absolute gap fixed %.2g, spatial %.2g\n",
           api.version(), STATES, fixed, spatial, pos[0], pos[1]);
    printf("joint equality rows (polynomial coupling, joint2 omitted, one inactive) vs MuJoCo: "
           "efc_J relative gap %.2g, efc_pos absolute gap %.2g\n",
           joint, pos[2]);
#else
    skip();
#endif
}

/* phi of every equality of model id in world w, the largest |phi|. */
static double violation(const lucid_world *w, int id, lucid_model_data *d) {
    const lucid_model *m = lucid_world_model_of(w, id);
    size_t k = lucid_model_equality_rows(m), nv = lucid_model_nv(m);
    double *E = calloc(k * nv, sizeof *E), *phi = calloc(k, sizeof *phi), worst = 0.0;
    assert_true(E && phi);
    rows_at(m, d, lucid_world_model_q(w, id), E, phi);
    for (size_t i = 0; i < k; ++i) worst = fmax(worst, fabs(phi[i]));
    free(E), free(phi);
    return worst;
}

/* A world under gravity (-9.81 along z) holding model m at its neutral configuration (its id
 * into *id); dt 0 keeps the default step. */
static lucid_world *world_with(const lucid_model *m, double dt, int *id) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    if (dt > 0.0) o.dt = dt;
    o.gravity = lucid_vec3_make(0, 0, -9.81);
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    lucid_world_model_desc desc;
    lucid_world_model_desc_default(&desc);
    assert_int_equal(lucid_world_add_model(w, m, &desc, id, NULL), LUCID_OK);
    return w;
}

/* 1000 steps (2 s) of dt 2 ms under gravity from the neutral configuration: the largest
 * violation after any step; *start: before the first, *swing: the largest |q - q0| of
 * coordinate `watch`. */
static double hold(const char *path, size_t watch, double *start, double *swing) {
    lucid_model *m = test_load_model(path);
    int id;
    lucid_world *w = world_with(m, 0.002, &id);
    lucid_model_data *d = NULL;
    assert_int_equal(lucid_model_data_create(m, &d), LUCID_OK);
    double q0 = lucid_world_model_q(w, id)[watch], worst = 0.0;
    *start = violation(w, id, d), *swing = 0.0;
    for (int s = 0; s < 1000; ++s) {
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        worst = fmax(worst, violation(w, id, d));
        *swing = fmax(*swing, fabs(lucid_world_model_q(w, id)[watch] - q0));
    }
    lucid_model_data_destroy(d);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
    return worst;
}

/* The fixed couplings checked by hand too: ta = a1 + 0.5 a2, tb = 2 b, tc = -c. */
static void test_coupling_holds(void **state) {
    (void)state;
    double start, swing;
    double worst = hold(FIXED, 2, &start, &swing); /* q: a1, a2, b, c */
    printf("fixed tendon coupling: starts %.3g off, largest violation over 2 s %.3g, b swings "
           "%.3g rad\n",
           start, worst, swing);
    assert_true(start > 0.04); /* the neutral configuration violates both couplings */
    assert_true(worst < 1e-6);
    assert_true(swing > 0.5);
    /* the hand-written rule at the final state */
    lucid_model *m = test_load_model(FIXED);
    int id;
    lucid_world *w = world_with(m, 0.0, &id);
    for (int s = 0; s < 300; ++s) assert_int_equal(lucid_world_step(w), LUCID_OK);
    const double *q = lucid_world_model_q(w, id);
    double ta = q[0] + 0.5 * q[1] - (0.2 + 0.5 * -0.3), x = 2.0 * q[2] - 2.0 * -0.1;
    double tc = -q[3] - -0.4;
    printf("  after 300 steps: ta - ta0 %.6f, poly(tb - tb0) %.6f, tc - tc0 %.6f\n", ta,
           0.05 + 0.5 * x + 0.3 * x * x, tc);
    assert_true(fabs(ta - (0.05 + 0.5 * x + 0.3 * x * x)) < 1e-6);
    assert_true(fabs(tc - 0.1) < 1e-6);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
}

static void test_same_tendon_refused(void **state) {
    (void)state;
    static const char xml[] = "<mujoco>\n"
                              "  <worldbody><body><joint name=\"h\"/><geom size=\"0.1\"/></body>"
                              "</worldbody>\n"
                              "  <tendon><fixed name=\"t\"><joint joint=\"h\" coef=\"1\"/></fixed>"
                              "</tendon>\n"
                              "  <equality><tendon name=\"self\" tendon1=\"t\" tendon2=\"t\"/>"
                              "</equality>\n"
                              "</mujoco>\n";
    lucid_model_spec *spec = NULL;
    lucid_model *m = NULL;
    char err[512] = "";
    assert_int_equal(
        lucid_model_spec_parse("self.xml", xml, sizeof xml - 1, NULL, &spec, err, sizeof err),
        LUCID_OK);
    assert_int_not_equal(lucid_model_compile(spec, &m, err, sizeof err), LUCID_OK);
    assert_null(m);
    printf("%s\n", err);
    assert_non_null(strstr(err, "self.xml:4: equality 'self': tendon1 and tendon2 are the same "
                                "tendon"));
    lucid_model_spec_destroy(spec);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_match_differences),
        cmocka_unit_test(test_rows_match_mujoco),
        cmocka_unit_test(test_coupling_holds),
        cmocka_unit_test(test_same_tendon_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
