#include "solvers/dense/dense_workspace.h"

#include <stdlib.h>

/* Remembered query results; a program rarely cycles through more shapes than this, and
 * forgetting one only costs a repeated query. */
#define LUCID_DENSE_QUERY_SLOTS 16

struct lucid_dense_workspace {
    double *doubles;
    int *ints;
    size_t ndoubles, nints;
    lucid_dense_shape shapes[LUCID_DENSE_QUERY_SLOTS];
    lucid_dense_lwork sizes[LUCID_DENSE_QUERY_SLOTS];
    int nslots, next_slot;
    long grows, queries;
};

lucid_dense_workspace *lucid_dense_workspace_create(void) {
    return calloc(1, sizeof(lucid_dense_workspace));
}

void lucid_dense_workspace_destroy(lucid_dense_workspace *ws) {
    if (!ws) return;
    free(ws->doubles);
    free(ws->ints);
    free(ws);
}

lucid_dense_workspace_stats lucid_dense_workspace_get_stats(const lucid_dense_workspace *ws) {
    lucid_dense_workspace_stats s = {ws->ndoubles, ws->nints, ws->grows, ws->queries};
    return s;
}

static int same_shape(lucid_dense_shape a, lucid_dense_shape b) {
    return a.routine == b.routine && a.m == b.m && a.n == b.n && a.nrhs == b.nrhs;
}

int lucid_dense_workspace_find(const lucid_dense_workspace *ws, lucid_dense_shape shape,
                               lucid_dense_lwork *out) {
    for (int k = 0; k < ws->nslots; ++k)
        if (same_shape(ws->shapes[k], shape)) {
            *out = ws->sizes[k];
            return 1;
        }
    return 0;
}

void lucid_dense_workspace_remember(lucid_dense_workspace *ws, lucid_dense_shape shape,
                                    lucid_dense_lwork sizes) {
    int k = ws->next_slot;
    ws->shapes[k] = shape;
    ws->sizes[k] = sizes;
    ws->next_slot = (k + 1) % LUCID_DENSE_QUERY_SLOTS;
    if (ws->nslots < LUCID_DENSE_QUERY_SLOTS) ++ws->nslots;
    ++ws->queries;
}

/* Geometric growth, so a slowly increasing size costs few reallocations. */
static size_t grown_capacity(size_t capacity, size_t need) {
    size_t target = capacity + capacity / 2;
    return target < need ? need : target;
}

/* Buffers are grown with free + malloc: their old contents are never needed, so the copy
 * realloc would make is wasted. A failed allocation leaves the buffer empty. */
lucid_status lucid_dense_workspace_reserve(lucid_dense_workspace *ws, size_t ndoubles, size_t nints,
                                           double **doubles, int **ints) {
    if (ndoubles > ws->ndoubles) {
        size_t capacity = grown_capacity(ws->ndoubles, ndoubles);
        free(ws->doubles);
        ws->doubles = malloc(capacity * sizeof(double));
        ws->ndoubles = ws->doubles ? capacity : 0;
        ++ws->grows;
        if (!ws->doubles) return LUCID_ERR_NO_MEMORY;
    }
    if (nints > ws->nints) {
        size_t capacity = grown_capacity(ws->nints, nints);
        free(ws->ints);
        ws->ints = malloc(capacity * sizeof(int));
        ws->nints = ws->ints ? capacity : 0;
        ++ws->grows;
        if (!ws->ints) return LUCID_ERR_NO_MEMORY;
    }
    *doubles = ws->doubles;
    *ints = ws->ints;
    return LUCID_OK;
}
