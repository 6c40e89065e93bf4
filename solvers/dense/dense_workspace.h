/* Caller-owned scratch memory for the LAPACK kernels. LAPACK's optimal workspace size is
 * asked once per (routine, problem shape) with an lwork = -1 query and remembered; the
 * buffers only ever grow, so repeated solves of the same shape allocate nothing. */
#ifndef LUCID_DENSE_WORKSPACE_H
#define LUCID_DENSE_WORKSPACE_H

#include <stddef.h>

#include "runtime/core/status.h"
#include "solvers/dense/dense_status.h"

typedef struct lucid_dense_workspace lucid_dense_workspace;

/* A new, empty workspace (NULL when out of memory); release with _destroy (NULL is fine). */
lucid_dense_workspace *lucid_dense_workspace_create(void);
void lucid_dense_workspace_destroy(lucid_dense_workspace *ws);

/* What the workspace holds and how often it had to grow or ask LAPACK for sizes. */
typedef struct lucid_dense_workspace_stats {
    size_t doubles, ints; /* current capacities */
    long grows;           /* times a buffer was reallocated */
    long queries;         /* lwork = -1 queries run */
} lucid_dense_workspace_stats;
lucid_dense_workspace_stats lucid_dense_workspace_get_stats(const lucid_dense_workspace *ws);

/* ---- for the kernels ---- */

/* The shape a workspace query depends on. */
typedef struct lucid_dense_shape {
    lucid_dense_routine routine;
    int m, n, nrhs;
} lucid_dense_shape;

/* LAPACK's optimal lwork / liwork for a shape. */
typedef struct lucid_dense_lwork {
    int lwork, liwork;
} lucid_dense_lwork;

/* 1 and *out filled when the sizes for `shape` were remembered, else 0. */
int lucid_dense_workspace_find(const lucid_dense_workspace *ws, lucid_dense_shape shape,
                               lucid_dense_lwork *out);
/* Remembers the result of a query (counted in stats.queries); old entries are recycled. */
void lucid_dense_workspace_remember(lucid_dense_workspace *ws, lucid_dense_shape shape,
                                    lucid_dense_lwork sizes);

/* Makes room for ndoubles doubles and nints ints and returns the buffers (contents
 * unspecified). LUCID_ERR_NO_MEMORY leaves the workspace empty but valid. */
lucid_status lucid_dense_workspace_reserve(lucid_dense_workspace *ws, size_t ndoubles, size_t nints,
                                           double **doubles, int **ints);

#endif
