/* Reader of the contact problems dumped from the world (tests/data/contact/README.md):
 * header-only, static, shared by the contact tests. */
#ifndef LUCID_TEST_CONTACT_DUMP_H
#define LUCID_TEST_CONTACT_DUMP_H

#include <stdio.h>

#include "tests/c/common/test_contact_problems.h"

typedef struct dumped {
    test_problem t;
    double *lambda0, *dual0;
} dumped;

/* Reads "key=v1,v2,..." (hex floats) into out (capacity values); returns the count. */
static int read_values(FILE *f, const char *key, double *out, int capacity) {
    char name[32];
    int count = 0, c;
    if (fscanf(f, " %31[^=]=", name) != 1 || strcmp(name, key) != 0) return -1;
    while ((c = fgetc(f)) != EOF && c != '\n') {
        ungetc(c, f);
        double v;
        if (fscanf(f, "%la", &v) != 1 || count >= capacity) return -1;
        out[count++] = v;
        if ((c = fgetc(f)) == '\n' || c == EOF) break;
        if (c != ',') return -1;
    }
    return count;
}

/* Loads tests/data/contact/<file>; returns 0 (and frees what it allocated) on any error. */
static int load_dump(const char *file, int max_contacts, dumped *d) {
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/contact/%s", LUCID_SOURCE_DIR, file);
    FILE *f = fopen(path, "r");
    int n = 0;
    if (!f) return 0;
    if (fscanf(f, "n=%d", &n) != 1 || n <= 0 || n > max_contacts) {
        fclose(f);
        return 0;
    }
    int m = 3 * n;
    d->t = test_problem_alloc(n);
    d->lambda0 = calloc((size_t)m, sizeof(double)), d->dual0 = calloc((size_t)m, sizeof(double));
    int ok = read_values(f, "G", d->t.G, m * m) == m * m && read_values(f, "g", d->t.g, m) == m &&
             read_values(f, "mu", d->t.mu, n) == n &&
             read_values(f, "lambda0", d->lambda0, m) == m &&
             read_values(f, "dual0", d->dual0, m) == m;
    fclose(f);
    if (!ok) {
        test_problem_free(&d->t);
        free(d->lambda0), free(d->dual0);
    }
    return ok;
}

#endif
