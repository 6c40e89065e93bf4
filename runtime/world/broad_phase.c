#include "runtime/world/broad_phase.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

struct lucid_broad_phase {
    int n, axis;
    int *order; /* proxy indices sorted by their lower bound on the axis */
    int order_capacity;
    lucid_broad_pair *pairs;
    int num_pairs, pair_capacity;
    long sort_moves;
};

lucid_broad_phase *lucid_broad_phase_create(void) {
    lucid_broad_phase *bp = calloc(1, sizeof *bp);
    return bp;
}

void lucid_broad_phase_destroy(lucid_broad_phase *bp) {
    if (!bp) return;
    free(bp->order);
    free(bp->pairs);
    free(bp);
}

int lucid_broad_phase_pair_count(const lucid_broad_phase *bp) {
    return bp->num_pairs;
}
const lucid_broad_pair *lucid_broad_phase_pairs(const lucid_broad_phase *bp) {
    return bp->pairs;
}
int lucid_broad_phase_axis(const lucid_broad_phase *bp) {
    return bp->axis;
}
long lucid_broad_phase_sort_moves(const lucid_broad_phase *bp) {
    return bp->sort_moves;
}

/* The axis of largest centre variance; the current axis is kept unless another one is clearly
 * better (20%), so that the order is not re-sorted from scratch back and forth. */
static int sweep_axis(int n, const lucid_vec3 *lo, const lucid_vec3 *hi, int current) {
    double sum[3] = {0, 0, 0}, sum2[3] = {0, 0, 0};
    int count = 0;
    for (int i = 0; i < n; ++i) {
        if (!(isfinite(lo[i].x) && isfinite(hi[i].x) && isfinite(lo[i].y) && isfinite(hi[i].y) &&
              isfinite(lo[i].z) && isfinite(hi[i].z) && lo[i].x <= hi[i].x))
            continue;
        ++count;
        for (int k = 0; k < 3; ++k) {
            double c = 0.5 * (lucid_vec3_get(lo[i], k) + lucid_vec3_get(hi[i], k));
            sum[k] += c, sum2[k] += c * c;
        }
    }
    if (count == 0) return current;
    double var[3];
    int best = 0;
    for (int k = 0; k < 3; ++k) {
        double mean = sum[k] / count;
        var[k] = sum2[k] / count - mean * mean;
        if (var[k] > var[best]) best = k;
    }
    return var[best] > 1.2 * var[current] ? best : current;
}

/* Room for `needed` pairs (the capacity doubles, saturating at INT_MAX pairs: counts are int). */
static lucid_status reserve_pairs(lucid_broad_phase *bp, int needed) {
    if (needed <= bp->pair_capacity) return LUCID_OK;
    int cap = bp->pair_capacity ? bp->pair_capacity : 64;
    while (cap < needed) cap = cap > INT_MAX / 2 ? INT_MAX : 2 * cap;
    if ((size_t)cap > SIZE_MAX / sizeof(lucid_broad_pair)) return LUCID_ERR_NO_MEMORY;
    lucid_broad_pair *p = realloc(bp->pairs, sizeof *p * (size_t)cap);
    if (!p) return LUCID_ERR_NO_MEMORY;
    bp->pairs = p, bp->pair_capacity = cap;
    return LUCID_OK;
}

static lucid_status reset_order(lucid_broad_phase *bp, int n) {
    if (n > bp->order_capacity) {
        int *o = realloc(bp->order, sizeof *o * (size_t)n);
        if (!o) return LUCID_ERR_NO_MEMORY;
        bp->order = o, bp->order_capacity = n;
    }
    for (int i = 0; i < n; ++i) bp->order[i] = i;
    bp->n = n;
    return LUCID_OK;
}

/* Insertion sort by lower bound: linear on the nearly sorted order of the previous step. */
static void insertion_sort(lucid_broad_phase *bp, const lucid_vec3 *lo) {
    int *o = bp->order, k = bp->axis;
    bp->sort_moves = 0;
    for (int i = 1; i < bp->n; ++i) {
        int id = o[i], j = i;
        double key = lucid_vec3_get(lo[id], k);
        while (j > 0 && lucid_vec3_get(lo[o[j - 1]], k) > key) {
            o[j] = o[j - 1];
            --j;
        }
        bp->sort_moves += i - j;
        o[j] = id;
    }
}

static int overlap_other_axes(lucid_vec3 alo, lucid_vec3 ahi, lucid_vec3 blo, lucid_vec3 bhi,
                              int axis) {
    for (int k = 0; k < 3; ++k) {
        if (k == axis) continue;
        if (!(lucid_vec3_get(alo, k) <= lucid_vec3_get(bhi, k) &&
              lucid_vec3_get(blo, k) <= lucid_vec3_get(ahi, k)))
            return 0;
    }
    return 1;
}

static lucid_status add_pair(lucid_broad_phase *bp, int a, int b) {
    if (bp->num_pairs == INT_MAX) return LUCID_ERR_NO_MEMORY;
    lucid_status s = reserve_pairs(bp, bp->num_pairs + 1);
    if (s != LUCID_OK) return s;
    lucid_broad_pair p = {a < b ? a : b, a < b ? b : a};
    bp->pairs[bp->num_pairs++] = p;
    return LUCID_OK;
}

static int compare_pairs(const void *x, const void *y) {
    const lucid_broad_pair *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* Sweep: every j after i in the order has lo_j >= lo_i, so the boxes overlap on the axis
 * exactly when lo_j <= hi_i; the scan for i stops at the first j past hi_i. */
static lucid_status sweep(lucid_broad_phase *bp, const lucid_vec3 *lo, const lucid_vec3 *hi,
                          const unsigned char *is_static) {
    const int *o = bp->order, k = bp->axis;
    bp->num_pairs = 0;
    for (int i = 0; i < bp->n; ++i) {
        int a = o[i];
        double top = lucid_vec3_get(hi[a], k);
        if (!(lucid_vec3_get(lo[a], k) <= top)) continue; /* empty box */
        for (int j = i + 1; j < bp->n; ++j) {
            int b = o[j];
            if (!(lucid_vec3_get(lo[b], k) <= top)) break;
            if (is_static && is_static[a] && is_static[b]) continue;
            if (!overlap_other_axes(lo[a], hi[a], lo[b], hi[b], k)) continue;
            lucid_status s = add_pair(bp, a, b);
            if (s != LUCID_OK) return s;
        }
    }
    if (bp->num_pairs > 1)
        qsort(bp->pairs, (size_t)bp->num_pairs, sizeof *bp->pairs, compare_pairs);
    return LUCID_OK;
}

lucid_status lucid_broad_phase_update(lucid_broad_phase *bp, int n, const lucid_vec3 *lo,
                                      const lucid_vec3 *hi, const unsigned char *is_static) {
    if (!bp || n < 0 || (n > 0 && (!lo || !hi))) return LUCID_ERR_ARGUMENT;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k)
            if (isnan(lucid_vec3_get(lo[i], k)) || isnan(lucid_vec3_get(hi[i], k)))
                return LUCID_ERR_NONFINITE;
    int axis = sweep_axis(n, lo, hi, bp->axis);
    if (n != bp->n || bp->order == NULL) {
        lucid_status s = reset_order(bp, n);
        if (s != LUCID_OK) return s;
    }
    bp->axis = axis;
    insertion_sort(bp, lo);
    return sweep(bp, lo, hi, is_static);
}
