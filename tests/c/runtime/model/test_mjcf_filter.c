/* Which geom pairs of an MJCF model may collide, against MuJoCo 2.2.2 itself (libmujoco,
 * dlopen'ed at run time as in test_mjcf_contact.c): every geom's margin is inflated in MuJoCo
 * (geom_margin) and lucid's world margin likewise, so every pair within reach makes a contact
 * and the pairs that make one are the pairs the filters let through: MuJoCo's weld bodies and
 * parent filter (filterparent, and its disable flag), contype/conaffinity and <exclude>.
 * Scenes: tests/data/model/mjcf_filter.xml (each case in its comment), the same with
 * filterparent disabled, MuJoCo's sample models and the Allegro hand with its cube.
 * Exit 77 with a message when MuJoCo or a model is missing. */
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

/* m: the inflated margin, beyond every scene's extent (the humanoid: 2 m), so every pair that
 * the filters let through is within reach in both engines */
#define REACH 10.0

static int skipped;

#if HAVE_MUJOCO
/* MuJoCo's geom of lucid's geom g: the same file body (lucid's frame f is MuJoCo's body f + 1,
 * both in file order), the same place among that body's geoms. */
static int mujoco_geom(const lucid_model *lm, const mjModel *m, int g) {
    const lucid_model_geom *geoms = lucid_model_geoms(lm);
    int f = geoms[g].frame, k = 0;
    for (int i = 0; i < g; ++i) k += geoms[i].frame == f;
    int b = f + 1;
    assert_true(b < m->nbody && k < m->body_geomnum[b]);
    int mg = m->body_geomadr[b] + k;
    const char *name = m->names + m->name_geomadr[mg];
    if (geoms[g].name) assert_string_equal(geoms[g].name, name);
    return mg;
}

/* Which geom pairs touch in MuJoCo (mj_collision with every margin REACH): seen[g1 n + g2]. */
static void mujoco_pairs(const mujoco_api *mj, const char *path, unsigned char *seen, int n) {
    char err[1024] = "";
    mjModel *m = mj->load_xml(path, NULL, err, sizeof err);
    if (!m) fprintf(stderr, "MuJoCo: %s\n", err);
    assert_non_null(m);
    assert_int_equal(m->ngeom, n);
    for (int g = 0; g < n; ++g) m->geom_margin[g] = REACH;
    m->nconmax = 100000; /* room for every pair's contacts */
    m->nstack = m->nstack > (1 << 22) ? m->nstack : (1 << 22);
    mjData *d = mj->make_data(m);
    assert_non_null(d);
    mj->kinematics(m, d);
    mj->collision(m, d);
    assert_true(d->ncon < m->nconmax);
    for (int i = 0; i < d->ncon; ++i) {
        int a = d->contact[i].geom1, b = d->contact[i].geom2;
        seen[a < b ? a * n + b : b * n + a] = 1;
    }
    mj->delete_data(d);
    mj->delete_model(m);
}

/* Which geom pairs touch in lucid (its world's collision with margin REACH, at qpos0), in
 * MuJoCo's geom indices. */
static void lucid_pairs(const lucid_model *lm, const mjModel *m, unsigned char *seen, int n) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.margin = REACH;
    lucid_world *w;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    lucid_world_model_desc md;
    lucid_world_model_desc_default(&md);
    assert_int_equal(lucid_world_add_model(w, lm, &md, NULL, NULL), LUCID_OK);
    assert_int_equal(lucid_world_collide(w), LUCID_OK);
    for (int k = 0; k < lucid_world_contact_count(w); ++k) {
        const lucid_world_contact *c = &lucid_world_contacts(w)[k];
        if (c->limit_sign != 0) continue;
        int a = mujoco_geom(lm, m, lucid_world_part_geom(w, c->body1, c->part1));
        int b = mujoco_geom(lm, m, lucid_world_part_geom(w, c->body2, c->part2));
        seen[a < b ? a * n + b : b * n + a] = 1;
    }
    lucid_world_destroy(w);
}

/* The two engines' pair sets are equal; prints each pair one has and the other not. want: the
 * number of pairs expected (-1: not checked). */
static void compare_pairs(const char *path, int want) {
    mujoco_api mj;
    if (!load_mujoco(&mj)) {
        fprintf(stderr, "MuJoCo 2.2.2 (libmujoco.so) not found: %s not compared\n", path);
        skipped = 1;
        return;
    }
    if (!test_file_exists(path)) {
        fprintf(stderr, "%s missing: skipped\n", path);
        skipped = 1;
        return;
    }
    mjModel *m;
    mjData *d;
    lucid_model *lm;
    mujoco_load_both(&mj, path, &m, &d, &lm);
    int n = m->ngeom;
    assert_int_equal((int)lucid_model_ngeoms(lm), n);
    unsigned char *want_set = calloc((size_t)n * (size_t)n, 1);
    unsigned char *got = calloc((size_t)n * (size_t)n, 1);
    assert_true(want_set && got);
    mujoco_pairs(&mj, path, want_set, n);
    lucid_pairs(lm, m, got, n);
    int pairs = 0, differ = 0;
    for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b) {
            pairs += want_set[a * n + b];
            if (want_set[a * n + b] == got[a * n + b]) continue;
            ++differ;
            fprintf(stderr, "%s: geoms %d '%s' (body '%s') and %d '%s' (body '%s'): %s\n", path, a,
                    m->names + m->name_geomadr[a], m->names + m->name_bodyadr[m->geom_bodyid[a]], b,
                    m->names + m->name_geomadr[b], m->names + m->name_bodyadr[m->geom_bodyid[b]],
                    want_set[a * n + b] ? "MuJoCo collides them, lucid not"
                                        : "lucid collides them, MuJoCo not");
        }
    printf("%s: %d geoms, %d pairs may collide in MuJoCo, %d differ in lucid\n", path, n, pairs,
           differ);
    assert_int_equal(differ, 0);
    if (want >= 0) assert_int_equal(pairs, want);
    free(want_set);
    free(got);
    mujoco_free_both(&mj, m, d, lm);
}
#else
static void compare_pairs(const char *path, int want) {
    (void)want;
    fprintf(stderr, "built without <mujoco/mujoco.h>: %s not compared\n", path);
    skipped = 1;
}
#endif

/* The scene's cases (its comment). The counts by hand: 11 geoms of contype = conaffinity = 1
 * in 6 weld bodies (the world's floor, pillar, post and mocap; arm; fore with hand's two; finger;
 * cart; ball) make 55 - 6 - 3 = 46 pairs across weld bodies; the parent filter takes arm-fore
 * (3) and fore-finger (3), the excludes arm-ball (1) and hand-cart (2), and the bitmasks add
 * picky-shy alone: 38, and 44 with the parent filter off. */
static void test_scene(void **state) {
    (void)state;
    compare_pairs(LUCID_SOURCE_DIR "/tests/data/model/mjcf_filter.xml", 38);
    compare_pairs(LUCID_SOURCE_DIR "/tests/data/model/mjcf_filter_noparent.xml", 44);
}

static void test_samples(void **state) {
    (void)state;
    compare_pairs("/usr/share/mujoco/model/humanoid/humanoid.xml", -1);
    compare_pairs("/usr/share/mujoco/model/tendon_arm/arm26.xml", -1);
    compare_pairs("/usr/share/mujoco/model/slider_crank/slider_crank.xml", -1);
    compare_pairs("/usr/share/mujoco/model/mug/mug.xml", -1);
}

static void test_allegro(void **state) {
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/data/robots/allegro_cube.xml", test_shared_dir());
    compare_pairs(path, -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scene),
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_allegro),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return mujoco_test_result(failed, skipped, "test_mjcf_filter", "not compared (above)");
}
