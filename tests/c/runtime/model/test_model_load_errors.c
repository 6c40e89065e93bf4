/* Malformed model files: every tests/data/model/bad_*.{xml,urdf} carries, in a comment on its
 * first line, the message its load must fail with (`<!-- expect: FILE:LINE: reason -->`).
 * Each is loaded from disk and from memory (the same message both ways), must fail with a
 * message holding the expectation, and must leave *out NULL. Also: missing files, bad
 * arguments, a message buffer too small to hold the message (truncated, terminated), the
 * options' base_dir and names written as given. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/model/model_load.h"

#define DATA LUCID_SOURCE_DIR "/tests/data/model"

static char *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_bad_files(void **state) {
    (void)state;
    DIR *d = opendir(DATA);
    assert_non_null(d);
    char *names[256];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, "bad_", 4) == 0 && n < 256) names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, compare_names);
    assert_true(n >= 30);
    int failures = 0;
    for (int i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", DATA, names[i]);
        size_t size;
        char *text = read_all(path, &size);
        const char *tag = strstr(text, "<!-- expect: ");
        assert_non_null(tag);
        const char *end = strstr(tag, " -->");
        assert_non_null(end);
        char expect[512];
        snprintf(expect, sizeof expect, "%.*s", (int)(end - tag - 13), tag + 13);
        /* from disk */
        lucid_model_spec *s = (lucid_model_spec *)1;
        char err[1024];
        lucid_status st = lucid_model_spec_load(path, NULL, &s, err, sizeof err);
        int ok = st != LUCID_OK && s == NULL && strstr(err, expect) != NULL &&
                 strncmp(err, path, strlen(path)) == 0;
        /* from memory, under the same name: the same message */
        lucid_model_spec *m = (lucid_model_spec *)1;
        char err2[1024];
        lucid_status st2 = lucid_model_spec_parse(path, text, size, NULL, &m, err2, sizeof err2);
        ok = ok && st2 == st && m == NULL && strcmp(err, err2) == 0;
        printf("%-34s %s\n", names[i], err);
        if (!ok) {
            fprintf(stderr, "%s: expected a failure with\n  '%s'\ngot (%d) '%s'\nand (%d) '%s'\n",
                    names[i], expect, st, err, st2, err2);
            failures++;
        }
        free(text);
        free(names[i]);
    }
    assert_int_equal(failures, 0);
}

static void test_io_and_arguments(void **state) {
    (void)state;
    lucid_model_spec *s = NULL;
    char err[256];
    assert_int_equal(lucid_model_spec_load(DATA "/no_such_model.urdf", NULL, &s, err, sizeof err),
                     LUCID_ERR_IO);
    assert_null(s);
    assert_non_null(strstr(err, "no_such_model.urdf: cannot read the file"));
    assert_int_equal(lucid_model_spec_load(NULL, NULL, &s, err, sizeof err), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_model_spec_load(DATA "/urdf_forms.urdf", NULL, NULL, err, sizeof err),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_model_spec_parse("x.xml", NULL, 5, NULL, &s, err, sizeof err),
                     LUCID_ERR_ARGUMENT);
    /* empty input: an XML error, not a crash */
    assert_int_equal(lucid_model_spec_parse("empty.xml", "", 0, NULL, &s, err, sizeof err),
                     LUCID_ERR_PARSE);
    assert_non_null(strstr(err, "empty.xml"));
    /* the formats insist on their root */
    const char *urdf = "<robot name=\"r\"><link name=\"a\"/></robot>";
    assert_int_equal(
        lucid_model_spec_parse_mjcf("r.urdf", urdf, strlen(urdf), NULL, &s, err, sizeof err),
        LUCID_ERR_PARSE);
    assert_non_null(strstr(err, "r.urdf:1: the root element is not <mujoco>"));
    assert_int_equal(
        lucid_model_spec_parse_urdf("r.urdf", urdf, strlen(urdf), NULL, &s, err, sizeof err),
        LUCID_OK);
    assert_int_equal((int)s->nbodies, 1);
    lucid_model_spec_destroy(s);
    /* a small message buffer: truncated and terminated; no buffer at all is fine too */
    char tiny[8];
    memset(tiny, 'x', sizeof tiny);
    assert_int_equal(
        lucid_model_spec_parse("bad.xml", "<mujoco><x/></mujoco>", 21, NULL, &s, tiny, sizeof tiny),
        LUCID_ERR_PARSE);
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
    assert_int_equal(
        lucid_model_spec_parse("bad.xml", "<mujoco><x/></mujoco>", 21, NULL, &s, NULL, 0),
        LUCID_ERR_PARSE);
}

/* base_dir: the folder relative <include>s resolve against instead of the name's; the name is
 * written as given in messages (libxml2 keeps a URI-escaped copy: "%3Cstring%3E"). */
static void test_base_dir_and_name(void **state) {
    (void)state;
    size_t size;
    char *text = read_all(DATA "/mjcf_forms.xml", &size);
    lucid_model_load_options o = lucid_model_load_options_default();
    lucid_model_spec *s = NULL;
    char err[512];
    assert_int_equal(lucid_model_spec_parse("<string>", text, size, &o, &s, err, sizeof err),
                     LUCID_ERR_IO);
    assert_null(s);
    assert_non_null(strstr(err, "<string>:49: cannot read 'mjcf_forms_part.xml'"));
    o.base_dir = DATA;
    assert_int_equal(lucid_model_spec_parse("<string>", text, size, &o, &s, err, sizeof err),
                     LUCID_OK);
    lucid_model_spec *f = NULL;
    assert_int_equal(lucid_model_spec_load(DATA "/mjcf_forms.xml", NULL, &f, err, sizeof err),
                     LUCID_OK);
    assert_int_equal(s->nbodies, f->nbodies);
    assert_int_equal(s->njoints, f->njoints);
    assert_int_equal(s->ngeoms, f->ngeoms);
    lucid_model_spec_destroy(s);
    lucid_model_spec_destroy(f);
    free(text);
    const char *bad = "<mujoco>\n<worldbody>\n<x/></worldbody></mujoco>";
    assert_int_equal(
        lucid_model_spec_parse("my arm <1>.xml", bad, strlen(bad), NULL, &s, err, sizeof err),
        LUCID_ERR_PARSE);
    assert_non_null(strstr(err, "my arm <1>.xml:3: <worldbody>: unsupported element <x>"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_io_and_arguments),
        cmocka_unit_test(test_base_dir_and_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
