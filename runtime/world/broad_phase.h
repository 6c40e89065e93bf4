/* Broad phase: sweep and prune on one axis with incremental re-sorting.
 *
 * Why sweep and prune rather than a dynamic AABB tree: the world re-tests every proxy every
 * step anyway (bodies move), contact scenes are dense in 2 axes and spread in at most one
 * (heaps, stacks, rows on a ground), and between steps the sorted order barely changes, so an
 * insertion sort re-sorts in ~linear time with no allocation and no tree rebalancing. The
 * sweep axis is the one of largest variance of the box centres, which keeps the number of
 * intervals overlapping on the axis (and so the work) smallest.
 *
 * Overlap is closed: boxes that touch are candidates. Unbounded boxes (halfspaces, +-INFINITY)
 * are handled exactly; a box with lo > hi (an empty body) never overlaps anything. Pairs of
 * static proxies are never reported. */
#ifndef LUCID_BROAD_PHASE_H
#define LUCID_BROAD_PHASE_H

#include "runtime/core/status.h"
#include "runtime/math/vec3.h"

typedef struct lucid_broad_pair {
    int a, b; /* proxy indices, a < b */
} lucid_broad_pair;

typedef struct lucid_broad_phase lucid_broad_phase;

lucid_broad_phase *lucid_broad_phase_create(void);
void lucid_broad_phase_destroy(lucid_broad_phase *bp);

/* Finds the pairs of the n boxes [lo[i], hi[i]] (already inflated by the caller's margin)
 * that overlap, skipping pairs where both is_static[i] are non-zero (is_static may be NULL).
 * The sort order of the previous call is reused when n did not change. Buffers grow as needed
 * (LUCID_ERR_NO_MEMORY if that fails) and are never shrunk, so once capacities are reached
 * this allocates nothing. NaN bounds are LUCID_ERR_NONFINITE. Pairs are sorted by (a, b). */
lucid_status lucid_broad_phase_update(lucid_broad_phase *bp, int n, const lucid_vec3 *lo,
                                      const lucid_vec3 *hi, const unsigned char *is_static);

int lucid_broad_phase_pair_count(const lucid_broad_phase *bp);
const lucid_broad_pair *lucid_broad_phase_pairs(const lucid_broad_phase *bp);
/* The sweep axis of the last update (0, 1 or 2). */
int lucid_broad_phase_axis(const lucid_broad_phase *bp);
/* Element moves the last update's insertion sort made (0 when the order was unchanged). */
long lucid_broad_phase_sort_moves(const lucid_broad_phase *bp);

#endif
