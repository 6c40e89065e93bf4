/* A model file (MJCF or URDF), or its text, loaded and compiled for a cmocka test, failing the
 * test with the loader's message, and where the shared model files are. Include after <cmocka.h>.
 */
#ifndef LUCID_TEST_MODEL_FILE_H
#define LUCID_TEST_MODEL_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/model/model.h"
#include "runtime/model/model_load.h"

/* The shared data folder: LUCID_SHARED_DIR, else shared/ beside the source tree. */
static inline const char *test_shared_dir(void) {
    const char *d = getenv("LUCID_SHARED_DIR");
    return d ? d : LUCID_SOURCE_DIR "/../shared";
}

/* Whether the file at path can be opened for reading. */
static inline int test_file_exists(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fclose(f);
    return 1;
}

/* The spec compiled (and released); a failure fails the test. */
static inline lucid_model *test_compile_model(lucid_model_spec *spec) {
    char err[512];
    lucid_model *m = NULL;
    lucid_status s = lucid_model_compile(spec, &m, err, sizeof err);
    lucid_model_spec_destroy(spec);
    if (s != LUCID_OK) fail_msg("%s", err);
    return m;
}

static inline lucid_model *test_load_model(const char *path) {
    char err[512];
    lucid_model_spec *spec = NULL;
    if (lucid_model_spec_load(path, NULL, &spec, err, sizeof err) != LUCID_OK) fail_msg("%s", err);
    return test_compile_model(spec);
}

/* A model from its MJCF or URDF text (relative paths from the current directory). */
static inline lucid_model *test_load_model_text(const char *text) {
    char err[512];
    lucid_model_spec *spec = NULL;
    lucid_model_load_options o = lucid_model_load_options_default();
    o.base_dir = "";
    if (lucid_model_spec_parse("<string>", text, strlen(text), &o, &spec, err, sizeof err) !=
        LUCID_OK)
        fail_msg("%s", err);
    return test_compile_model(spec);
}

/* Whether one of the model's subtrees hanging from its world body (a free body, a fixed-base
 * arm or finger, a floating robot: each a body-space slot of the world) has `width` dofs. */
static inline int test_subtree_width(const lucid_model *m, size_t width) {
    size_t nv = lucid_model_nv(m);
    const int *parent = lucid_model_dof_parent(m);
    for (size_t k = 0, count = 0; k < nv; ++k) { /* a subtree's dofs follow its root's */
        count = parent[k] < 0 ? 1 : count + 1;
        if (count == width && (k + 1 == nv || parent[k + 1] < 0)) return 1;
    }
    return 0;
}

#endif
