/* MuJoCo's contact semantics for MJCF scenes against MuJoCo 2.2.2 itself (libmujoco, dlopen'ed
 * at run time as in test_mjcf_load.c): on tests/data/model/mjcf_contact.xml (condim, friction,
 * priority, contype/conaffinity, margin/gap, default classes) and MuJoCo's humanoid lying on
 * its floor, the geom pairs MuJoCo's mj_forward puts in contact with constraint rows
 * (exclude = 0) are the pairs lucid's collision detection finds active (separation below the
 * include margin, the world's speculative margin set to 0), and each pair's friction (0 for
 * condim 1, else MuJoCo's friction[0]), torsional coefficient (MuJoCo's spin friction under
 * condim 4, else 0), rolling coefficient (its roll friction under condim 6, else 0) and include
 * margin (margin - gap) are MuJoCo's.
 * Exit 77 with a message when MuJoCo or the humanoid is missing. */
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

static int skipped;

#if HAVE_MUJOCO
/* lucid's geom index of MuJoCo geom g, by name (every geom of the scenes compared is named
 * but the humanoid's, whose geoms both list in the same order: by body, world first). */
static int lucid_geom(const lucid_model *lm, const mjModel *m, int g) {
    const char *name = m->names + m->name_geomadr[g];
    const lucid_model_geom *geoms = lucid_model_geoms(lm);
    if (name[0] == '\0') return g;
    for (size_t i = 0; i < lucid_model_ngeoms(lm); ++i)
        if (geoms[i].name && strcmp(geoms[i].name, name) == 0) return (int)i;
    fail_msg("geom '%s' not in lucid's model", name);
    return -1;
}

/* The pair's key, order-free. */
static long pair_key(int g1, int g2, int n) {
    return g1 < g2 ? (long)g1 * n + g2 : (long)g2 * n + g1;
}

/* Every active MuJoCo pair is found by lucid with MuJoCo's friction and include margin, and
 * every pair lucid finds active is one of MuJoCo's. qpos: MuJoCo's configuration (NULL: the
 * model's), which lucid's q mirrors (a free joint's position is the body's in both). */
static void compare_contacts(const char *path, const double *qpos, int nq, int want_pairs) {
    mujoco_api mj;
    if (!load_mujoco(&mj)) {
        fprintf(stderr, "MuJoCo 2.2.2 (libmujoco.so) not found: %s not compared\n", path);
        skipped = 1;
        return;
    }
    mjModel *m;
    mjData *d;
    mujoco_load_file(&mj, path, &m, &d);
    if (qpos) {
        assert_int_equal(nq, m->nq);
        memcpy(d->qpos, qpos, (size_t)nq * sizeof(double));
    }
    mj.forward(m, d);

    lucid_model *lm = test_load_model(path);
    assert_int_equal((int)lucid_model_ngeoms(lm), m->ngeom);
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.margin = 0.0; /* no speculative contacts: only MuJoCo's active ones */
    lucid_world *w;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    lucid_world_model_desc md;
    lucid_world_model_desc_default(&md);
    double *q = NULL;
    if (qpos) { /* lucid's free joint: position relative to the body's placement */
        q = malloc((size_t)nq * sizeof *q);
        memcpy(q, qpos, (size_t)nq * sizeof *q);
        for (int k = 0; k < 3; ++k) q[k] -= m->body_pos[3 + k];
        md.q = q;
    }
    assert_int_equal(lucid_world_add_model(w, lm, &md, NULL, NULL), LUCID_OK);
    assert_int_equal(lucid_world_collide(w), LUCID_OK);

    int n = m->ngeom, found = 0;
    for (int i = 0; i < d->ncon; ++i) {
        const mjContact *c = &d->contact[i];
        if (c->exclude) continue;
        int g1 = lucid_geom(lm, m, c->geom1), g2 = lucid_geom(lm, m, c->geom2);
        double friction = c->dim == 1 ? 0.0 : c->friction[0];
        double torsion = c->dim >= 4 ? c->friction[2] : 0.0; /* (t1, t2, spin, roll1, roll2) */
        double rolling = c->dim >= 6 ? c->friction[3] : 0.0;
        int seen = 0;
        for (int k = 0; k < lucid_world_contact_count(w); ++k) {
            const lucid_world_contact *l = &lucid_world_contacts(w)[k];
            if (l->limit_sign != 0) continue;
            int h1 = lucid_world_part_geom(w, l->body1, l->part1);
            int h2 = lucid_world_part_geom(w, l->body2, l->part2);
            if (pair_key(h1, h2, n) != pair_key(g1, g2, n)) continue;
            ++seen;
            if (l->friction != friction || l->torsion != torsion || l->rolling != rolling ||
                l->include_margin != c->includemargin)
                fail_msg("pair (%d, %d): lucid friction %g, torsion %g, rolling %g, include margin "
                         "%g; MuJoCo %g, %g, %g, %g",
                         g1, g2, l->friction, l->torsion, l->rolling, l->include_margin, friction,
                         torsion, rolling, c->includemargin);
        }
        if (!seen) fail_msg("MuJoCo's pair (%d, %d) (dist %g) not found by lucid", g1, g2, c->dist);
    }
    /* conversely: lucid's active pairs are MuJoCo's */
    for (int k = 0; k < lucid_world_contact_count(w); ++k) {
        const lucid_world_contact *l = &lucid_world_contacts(w)[k];
        if (l->limit_sign != 0 || !(l->separation < l->include_margin)) continue;
        int h1 = lucid_world_part_geom(w, l->body1, l->part1);
        int h2 = lucid_world_part_geom(w, l->body2, l->part2);
        int known = 0;
        for (int i = 0; i < d->ncon && !known; ++i) {
            const mjContact *c = &d->contact[i];
            known = !c->exclude && pair_key(lucid_geom(lm, m, c->geom1),
                                            lucid_geom(lm, m, c->geom2), n) == pair_key(h1, h2, n);
        }
        if (!known)
            fail_msg("lucid's pair (%d, %d) (separation %g) is not MuJoCo's", h1, h2,
                     l->separation);
    }
    long keys[256];
    for (int i = 0; i < d->ncon; ++i) {
        const mjContact *c = &d->contact[i];
        if (c->exclude) continue;
        long key = pair_key(c->geom1, c->geom2, n);
        int known = 0;
        for (int j = 0; j < found && !known; ++j) known = keys[j] == key;
        if (!known && found < 256) keys[found++] = key;
    }
    printf("%s: %d MuJoCo contacts, %d active pairs, %d lucid contacts: friction, torsion, rolling "
           "and include margin as MuJoCo's\n",
           path, d->ncon, found, lucid_world_contact_count(w));
    if (want_pairs >= 0) assert_int_equal(found, want_pairs);
    free(q);
    lucid_world_destroy(w);
    mujoco_free_both(&mj, m, d, lm);
}
#else
static void compare_contacts(const char *path, const double *qpos, int nq, int want_pairs) {
    (void)qpos, (void)nq, (void)want_pairs;
    fprintf(stderr, "built without <mujoco/mujoco.h>: %s not compared\n", path);
    skipped = 1;
}
#endif

static void test_scene(void **state) {
    (void)state;
    /* the scene's comments: 8 pairs in contact (slip, prio, slick, affine, padded, lower,
     * upper-lower, meek on the floor; masked and gapped not) */
    compare_contacts(LUCID_SOURCE_DIR "/tests/data/model/mjcf_contact.xml", NULL, 0, 8);
    /* condim 4: the three spheres on the floor */
    compare_contacts(LUCID_SOURCE_DIR "/tests/data/model/mjcf_torsion.xml", NULL, 0, 3);
    /* condim 6: the four spheres on the floor */
    compare_contacts(LUCID_SOURCE_DIR "/tests/data/model/mjcf_rolling_pairs.xml", NULL, 0, 4);
}

/* The humanoid lying on its back on its floor: its torso 6.5 cm high (5 mm deep), rotated a quarter
 * turn about y, joints at 0 (capsules of condim 1 against the floor's condim 3). */
static void test_humanoid(void **state) {
    (void)state;
    const char *path = "/usr/share/mujoco/model/humanoid/humanoid.xml";
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s missing (Debian libmujoco-samples): skipped\n", path);
        skipped = 1;
        return;
    }
    fclose(f);
    double qpos[28] = {0.0, 0.0, 0.065, sqrt(0.5), 0.0, -sqrt(0.5), 0.0};
    compare_contacts(path, qpos, 28, -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scene),
        cmocka_unit_test(test_humanoid),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return mujoco_test_result(failed, skipped, "test_mjcf_contact", "not compared (above)");
}
