/* MJCF <contact><pair> under <option collision="all" | "predefined" | "dynamic"> against MuJoCo
 * 2.2.2 itself (libmujoco, dlopen'ed at run time as in test_mjcf_contact.c), on
 * tests/data/model/mjcf_pair_scene.xml (its comment names each case: pairs the parent filter,
 * an <exclude> or the bitmasks would drop, a pair that is also a filtered pair, a pair on one
 * welded body). Three checks per mode:
 * - the model's pairs are MuJoCo's mjModel pairs (geoms, condim, friction's five numbers,
 *   margin, gap), but for the welded pair, which the loader skips with a warning naming it;
 * - with every margin inflated (geom_margin and pair_margin in MuJoCo, the world's margin in
 *   lucid) the geom pairs that touch are MuJoCo's, but for the welded pair;
 * - at qpos0 the pairs MuJoCo's mj_forward puts in contact (exclude = 0) are those lucid finds
 *   active (the world's speculative margin 0), each with MuJoCo's dim, friction (both
 *   tangential numbers), torsional and rolling coefficients (both rolling numbers) and include
 *   margin, and the pair that is both filtered and explicit is collided once (one contact of
 *   the ball on the floor in both).
 * Exit 77 with a message when MuJoCo is missing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/model/model.h"
#include "runtime/model/model_load.h"
#include "runtime/world/world_internal.h"

#include "tests/c/common/test_mujoco_compare.h"

#define DATA LUCID_SOURCE_DIR "/tests/data/model/"

/* m: the inflated margin, beyond the scene's extent */
#define REACH 10.0

static int skipped;

/* The loader's warnings, concatenated. */
static char warnings[4096];

static void keep_warning(void *ctx, const char *message) {
    (void)ctx;
    size_t n = strlen(warnings);
    snprintf(warnings + n, sizeof warnings - n, "%s\n", message);
}

/* lucid's model of path, its warnings in `warnings`. */
static lucid_model *load_model(const char *path) {
    lucid_model_load_options o = lucid_model_load_options_default();
    o.warn = keep_warning;
    warnings[0] = '\0';
    char err[512];
    lucid_model_spec *spec = NULL;
    if (lucid_model_spec_load(path, &o, &spec, err, sizeof err) != LUCID_OK) fail_msg("%s", err);
    lucid_model *m = NULL;
    lucid_status s = lucid_model_compile(spec, &m, err, sizeof err);
    lucid_model_spec_destroy(spec);
    if (s != LUCID_OK) fail_msg("%s", err);
    return m;
}

static const char *lucid_geom_name(const lucid_model *lm, int g) {
    return lucid_model_geoms(lm)[g].name;
}

/* The pair's key over names, order-free: "a|b" with a <= b. */
static void pair_key(const char *a, const char *b, char *out, size_t n) {
    if (strcmp(a, b) > 0) {
        const char *t = a;
        a = b, b = t;
    }
    snprintf(out, n, "%s|%s", a, b);
}

/* The scene's one pair on a welded body, which MuJoCo keeps and lucid skips. */
static int welded(const char *key) {
    return strcmp(key, "lower|palm") == 0;
}

#if HAVE_MUJOCO
static const char *mj_geom_name(const mjModel *m, int g) {
    return m->names + m->name_geomadr[g];
}

/* Every lucid pair is MuJoCo's pair of the same geoms with its dim, friction, margin and gap;
 * MuJoCo has the welded pair besides, which lucid's loader warned about. */
static void compare_model_pairs(const lucid_model *lm, const mjModel *m, int collides) {
    int welded_seen = 0;
    for (int i = 0; i < m->npair; ++i) {
        char key[128];
        pair_key(mj_geom_name(m, m->pair_geom1[i]), mj_geom_name(m, m->pair_geom2[i]), key,
                 sizeof key);
        welded_seen += welded(key);
    }
    assert_int_equal(welded_seen, 1);
    assert_int_equal((int)lucid_model_npairs(lm), m->npair - 1);
    assert_non_null(strstr(warnings, "geoms 'palm' and 'lower' are on one rigid body"));
    for (size_t k = 0; k < lucid_model_npairs(lm); ++k) {
        const lucid_model_pair *p = &lucid_model_pairs(lm)[k];
        char key[128], other[128];
        pair_key(lucid_geom_name(lm, p->geom1), lucid_geom_name(lm, p->geom2), key, sizeof key);
        int found = 0;
        for (int i = 0; i < m->npair && !found; ++i) {
            pair_key(mj_geom_name(m, m->pair_geom1[i]), mj_geom_name(m, m->pair_geom2[i]), other,
                     sizeof other);
            if (strcmp(key, other) != 0) continue;
            found = 1;
            const mjtNum *f = m->pair_friction + 5 * i;
            assert_int_equal(p->condim, m->pair_dim[i]);
            assert_true(p->friction == f[0] && p->friction == f[1]);
            assert_true(p->torsion == f[2]);
            assert_true(p->rolling == f[3] && p->rolling == f[4]);
            assert_true(p->margin == m->pair_margin[i] && p->gap == m->pair_gap[i]);
        }
        if (!found) fail_msg("lucid's pair %s is not MuJoCo's", key);
    }
    assert_int_equal((int)lucid_model_collision_mode(lm), collides);
}

/* A world of lm alone at qpos0 with world margin `margin`, collided. */
static lucid_world *collided_world(const lucid_model *lm, double margin) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.margin = margin;
    lucid_world *w;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    lucid_world_model_desc md;
    lucid_world_model_desc_default(&md);
    assert_int_equal(lucid_world_add_model(w, lm, &md, NULL, NULL), LUCID_OK);
    assert_int_equal(lucid_world_collide(w), LUCID_OK);
    return w;
}

/* The key of lucid's contact c. */
static void contact_key(const lucid_world *w, const lucid_model *lm, const lucid_world_contact *c,
                        char *key, size_t n) {
    int g1 = lucid_world_part_geom(w, c->body1, c->part1);
    int g2 = lucid_world_part_geom(w, c->body2, c->part2);
    pair_key(lucid_geom_name(lm, g1), lucid_geom_name(lm, g2), key, n);
}

/* Whether `key` is among the n keys. */
static int listed(char (*keys)[128], int n, const char *key) {
    for (int i = 0; i < n; ++i)
        if (strcmp(keys[i], key) == 0) return 1;
    return 0;
}

/* The geom pairs that touch with every margin inflated: MuJoCo's but the welded one, which
 * MuJoCo collides (under all and predefined: explicit_welded) and lucid skips. */
static void compare_reach(const mujoco_api *mj, const char *path, const lucid_model *lm,
                          int explicit_welded, int want) {
    char err[1024] = "";
    mjModel *m = mj->load_xml(path, NULL, err, sizeof err);
    assert_non_null(m);
    for (int g = 0; g < m->ngeom; ++g) m->geom_margin[g] = REACH;
    for (int i = 0; i < m->npair; ++i) m->pair_margin[i] = REACH;
    m->nconmax = 10000;
    mjData *d = mj->make_data(m);
    mj->kinematics(m, d);
    mj->collision(m, d);
    static char want_keys[256][128], got_keys[256][128];
    int nw = 0, ng = 0;
    for (int i = 0; i < d->ncon && nw < 256; ++i) {
        char key[128];
        pair_key(mj_geom_name(m, d->contact[i].geom1), mj_geom_name(m, d->contact[i].geom2), key,
                 sizeof key);
        if (!listed(want_keys, nw, key)) strcpy(want_keys[nw++], key);
    }
    lucid_world *w = collided_world(lm, REACH);
    for (int k = 0; k < lucid_world_contact_count(w) && ng < 256; ++k) {
        const lucid_world_contact *c = &lucid_world_contacts(w)[k];
        if (c->limit_sign != 0) continue;
        char key[128];
        contact_key(w, lm, c, key, sizeof key);
        if (!listed(got_keys, ng, key)) strcpy(got_keys[ng++], key);
    }
    int differ = 0;
    for (int i = 0; i < nw; ++i)
        if (!listed(got_keys, ng, want_keys[i]) && !(explicit_welded && welded(want_keys[i])))
            ++differ,
                fprintf(stderr, "%s: %s: MuJoCo collides them, lucid not\n", path, want_keys[i]);
    for (int i = 0; i < ng; ++i)
        if (!listed(want_keys, nw, got_keys[i]))
            ++differ,
                fprintf(stderr, "%s: %s: lucid collides them, MuJoCo not\n", path, got_keys[i]);
    assert_int_equal(listed(want_keys, nw, "lower|palm"), explicit_welded);
    assert_false(listed(got_keys, ng, "lower|palm"));
    printf("%s: %d geom pairs within reach in MuJoCo, %d in lucid, %d differ\n", path, nw, ng,
           differ);
    assert_int_equal(differ, 0);
    assert_int_equal(nw, want);
    lucid_world_destroy(w);
    mj->delete_data(d);
    mj->delete_model(m);
}

/* The pairs in contact at qpos0 and their parameters; the ball touches the floor once. */
static void compare_active(const mujoco_api *mj, const char *path, const lucid_model *lm,
                           int want) {
    mjModel *m;
    mjData *d;
    mujoco_load_file(mj, path, &m, &d);
    mj->forward(m, d);
    lucid_world *w = collided_world(lm, 0.0);
    static char keys[256][128];
    int n = 0, ball_mj = 0, ball_lucid = 0;
    for (int i = 0; i < d->ncon; ++i) {
        const mjContact *c = &d->contact[i];
        if (c->exclude) continue;
        char key[128];
        pair_key(mj_geom_name(m, c->geom1), mj_geom_name(m, c->geom2), key, sizeof key);
        ball_mj += strcmp(key, "ball|floor") == 0;
        if (!listed(keys, n, key) && n < 256) strcpy(keys[n++], key);
        int seen = 0;
        for (int k = 0; k < lucid_world_contact_count(w); ++k) {
            const lucid_world_contact *l = &lucid_world_contacts(w)[k];
            char other[128];
            if (l->limit_sign != 0) continue;
            contact_key(w, lm, l, other, sizeof other);
            if (strcmp(key, other) != 0) continue;
            ++seen;
            /* lucid's dim: 1 without friction, 6 with rolling, 4 with torsion, else 3 */
            int dim = !(l->friction > 0.0) ? 1 : l->rolling > 0.0 ? 6 : l->torsion > 0.0 ? 4 : 3;
            const double *f = c->friction;
            int ok = dim == c->dim && l->include_margin == c->includemargin;
            if (c->dim >= 3) ok &= l->friction == f[0] && l->friction == f[1];
            if (c->dim >= 4) ok &= l->torsion == f[2];
            if (c->dim >= 6) ok &= l->rolling == f[3] && l->rolling == f[4];
            if (!ok)
                fail_msg(
                    "%s: %s: lucid dim %d friction %g torsion %g rolling %g include margin %g; "
                    "MuJoCo dim %d friction %g %g %g %g %g include margin %g",
                    path, key, dim, l->friction, l->torsion, l->rolling, l->include_margin, c->dim,
                    f[0], f[1], f[2], f[3], f[4], c->includemargin);
        }
        if (!seen) fail_msg("%s: MuJoCo's pair %s not found by lucid", path, key);
    }
    for (int k = 0; k < lucid_world_contact_count(w); ++k) {
        const lucid_world_contact *l = &lucid_world_contacts(w)[k];
        if (l->limit_sign != 0 || !(l->separation < l->include_margin)) continue;
        char key[128];
        contact_key(w, lm, l, key, sizeof key);
        ball_lucid += strcmp(key, "ball|floor") == 0;
        if (!listed(keys, n, key)) fail_msg("%s: lucid's pair %s is not MuJoCo's", path, key);
    }
    printf("%s: %d pairs in contact in both, parameters as MuJoCo's; ball on floor: %d contact in "
           "MuJoCo, %d in lucid\n",
           path, n, ball_mj, ball_lucid);
    assert_int_equal(n, want);
    assert_int_equal(ball_mj, 1);
    assert_int_equal(ball_lucid, 1);
    lucid_world_destroy(w);
    mujoco_free_both(mj, m, d, NULL);
}

/* The three checks on the scene under collision mode `mode`. */
static void compare_mode(const char *mode, int collides, int reach_pairs, int active_pairs) {
    mujoco_api mj;
    if (!mujoco_loaded(load_mujoco(&mj), &skipped)) return;
    char path[512];
    snprintf(path, sizeof path, DATA "mjcf_pair_%s.xml", mode);
    lucid_model *lm = load_model(path);
    char err[1024] = "";
    mjModel *m = mj.load_xml(path, NULL, err, sizeof err);
    assert_non_null(m);
    compare_model_pairs(lm, m, collides);
    mj.delete_model(m);
    compare_reach(&mj, path, lm, collides != LUCID_MODEL_COLLISION_DYNAMIC, reach_pairs);
    compare_active(&mj, path, lm, active_pairs);
    lucid_model_destroy(lm);
}
#else
static void compare_mode(const char *mode, int collides, int reach_pairs, int active_pairs) {
    (void)collides, (void)reach_pairs, (void)active_pairs;
    fprintf(stderr, "built without <mujoco/mujoco.h>: mjcf_pair_%s.xml not compared\n", mode);
    skipped = 1;
}
#endif

/* The scene's counts by hand. Geoms: floor; upper (arm); lower, palm (fore, hand welded to it);
 * cube1, cube2, ghost, ball, crate, each on its own slider. Filtered pairs across weld bodies
 * with contype = conaffinity = 1 (ghost has neither): 8 geoms in 7 weld bodies make 28 - 1
 * (lower-palm) = 27, less upper-lower and upper-palm (parent filter) and cube1-cube2 (exclude):
 * 24. The explicit pairs add upper-lower, cube1-cube2, ghost-floor (ball-floor is one of the 24)
 * and, in MuJoCo only, lower-palm. Within reach: all 27 (+ lower-palm in MuJoCo's count), only
 * the 5 explicit pairs (4 + lower-palm) under predefined, the 24 filtered under dynamic. In
 * contact at qpos0 (the scene's comment, and cube1 resting on the floor): all 6 (upper-lower,
 * cube1-cube2, ghost-floor, ball-floor, crate-floor, cube1-floor), predefined 4, dynamic 3
 * (ball-floor, crate-floor, cube1-floor). */
static void test_all(void **state) {
    (void)state;
    compare_mode("all", LUCID_MODEL_COLLISION_ALL, 28, 6);
}

static void test_predefined(void **state) {
    (void)state;
    compare_mode("predefined", LUCID_MODEL_COLLISION_PREDEFINED, 5, 4);
}

static void test_dynamic(void **state) {
    (void)state;
    compare_mode("dynamic", LUCID_MODEL_COLLISION_DYNAMIC, 24, 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all),
        cmocka_unit_test(test_predefined),
        cmocka_unit_test(test_dynamic),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return mujoco_test_result(failed, skipped, "test_mjcf_pair", "not compared (above)");
}
