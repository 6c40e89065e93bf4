/* The MuJoCo-comparison tests' shared parts (include after cmocka.h): HAVE_MUJOCO (MuJoCo's
 * headers are here; libmujoco.so is dlopen'ed at run time), lucid's and MuJoCo's models of an
 * MJCF file, the comparison of their arrays and the tests' exit status. */
#ifndef LUCID_TEST_MUJOCO_COMPARE_H
#define LUCID_TEST_MUJOCO_COMPARE_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "runtime/world/world.h"
#include "tests/c/common/test_model_file.h"

#if __has_include(<mujoco/mujoco.h>) && __has_include(<dlfcn.h>)
#define HAVE_MUJOCO 1
#include "tests/bench/mujoco_api.h"
#else
#define HAVE_MUJOCO 0
#endif

/* Whether MuJoCo was loaded (loaded non-zero); if not, says so and sets *skipped (the test then
 * exits 77). */
static inline int mujoco_loaded(int loaded, int *skipped) {
    if (loaded) return 1;
    fprintf(stderr, "MuJoCo 2.2.2 (libmujoco.so) not found: not compared\n");
    *skipped = 1;
    return 0;
}

/* main's exit status: cmocka's failures; else 77 (ctest's skip), saying `why`, when a comparison
 * was skipped; else 0. */
static inline int mujoco_test_result(int failed, int skipped, const char *name, const char *why) {
    if (failed) return failed;
    if (!skipped) return 0;
    fprintf(stderr, "%s: %s: skipped\n", name, why);
    return 77;
}

#if HAVE_MUJOCO
/* MuJoCo's model and data of the file at path (the test fails with MuJoCo's message). */
static inline void mujoco_load_file(const mujoco_api *mj, const char *path, mjModel **mm,
                                    mjData **md) {
    char err[1024] = "";
    *mm = mj->load_xml(path, NULL, err, sizeof err);
    if (!*mm) fprintf(stderr, "MuJoCo: %s\n", err);
    assert_non_null(*mm);
    *md = mj->make_data(*mm);
    assert_non_null(*md);
}

/* Both libraries' models of the file at path, with as many coordinates, dofs and actuators
 * (hinge, slide and ball joints: lucid's coordinates are MuJoCo's). */
static inline void mujoco_load_both(const mujoco_api *mj, const char *path, mjModel **mm,
                                    mjData **md, lucid_model **lm) {
    mujoco_load_file(mj, path, mm, md);
    *lm = test_load_model(path);
    assert_int_equal((int)lucid_model_nq(*lm), (*mm)->nq);
    assert_int_equal((int)lucid_model_nv(*lm), (*mm)->nv);
    assert_int_equal((int)lucid_model_nu(*lm), (*mm)->nu);
}

/* Frees what mujoco_load_both made (each may be NULL). */
static inline void mujoco_free_both(const mujoco_api *mj, mjModel *mm, mjData *md,
                                    lucid_model *lm) {
    if (md) mj->delete_data(md);
    if (mm) mj->delete_model(mm);
    lucid_model_destroy(lm);
}

/* A world of options o (NULL: the defaults; dt is the model's timestep) holding model lm alone
 * at MuJoCo's state (qpos, qvel) and controls, its model id into *id; with own, under the
 * model's gravity (else o's) and with MuJoCo's activations. */
static inline lucid_world *mujoco_world_with(const lucid_world_options *given,
                                             const lucid_model *lm, const mjData *md, int own,
                                             int *id) {
    lucid_world_options o;
    if (given)
        o = *given;
    else
        lucid_world_default_options(&o);
    o.dt = lucid_model_timestep(lm);
    if (own) o.gravity = lucid_model_gravity(lm);
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    lucid_world_model_desc d;
    lucid_world_model_desc_default(&d);
    d.q = md->qpos, d.v = md->qvel;
    assert_int_equal(lucid_world_add_model(w, lm, &d, id, NULL), LUCID_OK);
    assert_int_equal(lucid_world_model_set_control(w, *id, md->ctrl, NULL), LUCID_OK);
    if (own) assert_int_equal(lucid_world_model_set_act(w, *id, md->act, NULL), LUCID_OK);
    return w;
}

/* mujoco_world_with the default options. */
static inline lucid_world *mujoco_world_of(const lucid_model *lm, const mjData *md, int own,
                                           int *id) {
    return mujoco_world_with(NULL, lm, md, own, id);
}

/* max |a_i - b_i| <= tol * max(max |b_i|, 1e-300) over n entries; prints the worst. */
static inline double compare(const char *what, const double *a, const double *b, size_t n,
                             double tol, int index) {
    double scale = 0.0, gap = 0.0;
    size_t worst = 0;
    for (size_t i = 0; i < n; i++) {
        scale = fmax(scale, fabs(b[i]));
        if (fabs(a[i] - b[i]) > gap) gap = fabs(a[i] - b[i]), worst = i;
    }
    double rel = scale > 0.0 ? gap / scale : gap;
    if (!(rel <= tol)) {
        fprintf(stderr, "%s %d: entry %zu lucid %.17g MuJoCo %.17g (%.3g relative)\n", what, index,
                worst, a[worst], b[worst], rel);
        fail();
    }
    return rel;
}

/* As many keyframes as MuJoCo's, each's act, q and u exactly MuJoCo's key_act, key_qpos and
 * key_ctrl (hinges and slides: the same coordinates). */
static inline void mujoco_compare_keyframes(const lucid_model *lm, const mjModel *mm) {
    assert_int_equal((int)lucid_model_nkeyframes(lm), mm->nkey);
    for (int k = 0; k < mm->nkey; k++) {
        const lucid_model_keyframe *K = &lucid_model_keyframes(lm)[k];
        compare("keyframe act", K->act, mm->key_act + mm->na * k, (size_t)mm->na, 0.0, k);
        compare("keyframe q", K->q, mm->key_qpos + mm->nq * k, (size_t)mm->nq, 0.0, k);
        compare("keyframe u", K->u, mm->key_ctrl + mm->nu * k, (size_t)mm->nu, 0.0, k);
    }
}
#endif

#endif
