/* Grow-only scratch memory of the derivative estimators. */
#include "autodiff/collision_derivatives_workspace.h"

#include <stdlib.h>
#include <string.h>

lucid_status lucid_derivative_workspace_create(lucid_derivative_workspace **out) {
    if (out == NULL) return LUCID_ERR_ARGUMENT;
    lucid_derivative_workspace *ws = calloc(1, sizeof *ws);
    if (ws == NULL) return LUCID_ERR_NO_MEMORY;
    *out = ws;
    return LUCID_OK;
}

void lucid_derivative_workspace_destroy(lucid_derivative_workspace *ws) {
    if (ws == NULL) return;
    free(ws->stamp);
    free(ws->queue);
    free(ws);
}

lucid_status lucid_derivative_workspace_reserve(lucid_derivative_workspace *ws, int n) {
    if (n <= ws->capacity) return LUCID_OK;
    unsigned *stamp = realloc(ws->stamp, (size_t)n * sizeof *stamp);
    if (stamp == NULL) return LUCID_ERR_NO_MEMORY;
    ws->stamp = stamp;
    /* New entries hold stamp 0, which no search uses. */
    memset(stamp + ws->capacity, 0, (size_t)(n - ws->capacity) * sizeof *stamp);
    int *queue = realloc(ws->queue, (size_t)n * sizeof *queue);
    if (queue == NULL) return LUCID_ERR_NO_MEMORY;
    ws->queue = queue;
    ws->capacity = n;
    return LUCID_OK;
}

unsigned lucid_derivative_workspace_next_stamp(lucid_derivative_workspace *ws) {
    if (++ws->current == 0) {
        memset(ws->stamp, 0, (size_t)ws->capacity * sizeof *ws->stamp);
        ws->current = 1;
    }
    return ws->current;
}
