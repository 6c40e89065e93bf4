/* A model file (MJCF or URDF) loaded and compiled for a cmocka test, failing the test with the
 * loader's message, and where the shared model files are. Include after <cmocka.h>. */
#ifndef LUCID_TEST_MODEL_FILE_H
#define LUCID_TEST_MODEL_FILE_H

#include <stdio.h>
#include <stdlib.h>

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

static inline lucid_model *test_load_model(const char *path) {
    char err[512];
    lucid_model_spec *spec = NULL;
    if (lucid_model_spec_load(path, NULL, &spec, err, sizeof err) != LUCID_OK) fail_msg("%s", err);
    lucid_model *m = NULL;
    lucid_status s = lucid_model_compile(spec, &m, err, sizeof err);
    lucid_model_spec_destroy(spec);
    if (s != LUCID_OK) fail_msg("%s", err);
    return m;
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
