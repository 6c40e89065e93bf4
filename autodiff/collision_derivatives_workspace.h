/* The caller-owned, grow-only scratch memory of the derivative estimators: per-vertex visit
 * stamps and a breadth-first queue for the Gumbel neighbourhoods. Stamps increase with every
 * search, so nothing is cleared between queries. */
#ifndef LUCID_COLLISION_DERIVATIVES_WORKSPACE_H
#define LUCID_COLLISION_DERIVATIVES_WORKSPACE_H

#include "autodiff/collision_derivatives.h"

struct lucid_derivative_workspace {
    int capacity;     /* entries of stamp and queue */
    unsigned *stamp;  /* stamp[v] == current: vertex v is already in the queue */
    int *queue;       /* vertices in breadth-first order */
    unsigned current; /* stamp of the running search */
};

/* Makes room for meshes of n vertices (keeps the larger buffers). LUCID_ERR_NO_MEMORY. */
lucid_status lucid_derivative_workspace_reserve(lucid_derivative_workspace *ws, int n);

/* A fresh stamp for a new search (wraps by clearing the stamps). */
unsigned lucid_derivative_workspace_next_stamp(lucid_derivative_workspace *ws);

#endif
