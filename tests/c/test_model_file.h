/* A model file (MJCF or URDF) loaded and compiled for a cmocka test, failing the test with the
 * loader's message. Include after <cmocka.h>. */
#ifndef LUCID_TEST_MODEL_FILE_H
#define LUCID_TEST_MODEL_FILE_H

#include "runtime/model/model.h"
#include "runtime/model/model_load.h"

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

#endif
