/* Scratch arena (arena.h). */
#include "runtime/math/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { ARENA_ALIGN = 64 }; /* a cache line: also enough for any type */

static size_t round_up(size_t n) {
    return (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
}

static void *extra_alloc(lucid_arena *a, size_t bytes) {
    if (a->num_extra == a->extra_cap) {
        size_t cap = a->extra_cap ? 2 * a->extra_cap : 8;
        void **list = realloc(a->extra, cap * sizeof *list);
        if (!list) return NULL;
        a->extra = list, a->extra_cap = cap;
    }
    void *p = aligned_alloc(ARENA_ALIGN, bytes); /* bytes: a multiple of ARENA_ALIGN */
    if (!p) return NULL;
    memset(p, 0, bytes);
    a->extra[a->num_extra++] = p;
    a->extra_bytes += bytes;
    return p;
}

static void *carve(lucid_arena *a, size_t count, size_t size, int zero) {
    if (count == 0) count = 1;
    if (size != 0 && count > (SIZE_MAX - ARENA_ALIGN) / size) return NULL;
    size_t bytes = round_up(count * size);
    if (a->block && bytes <= a->cap - a->used) {
        void *p = a->block + a->used;
        a->used += bytes;
        if (zero) memset(p, 0, bytes);
        return p;
    }
    return extra_alloc(a, bytes);
}

void *lucid_arena_alloc(lucid_arena *a, size_t count, size_t size) {
    return carve(a, count, size, 1);
}

void *lucid_arena_alloc_uninit(lucid_arena *a, size_t count, size_t size) {
    return carve(a, count, size, 0);
}

void lucid_arena_reset(lucid_arena *a) {
    size_t want = a->used + a->extra_bytes;
    for (size_t k = 0; k < a->num_extra; ++k) free(a->extra[k]);
    a->num_extra = 0, a->extra_bytes = 0, a->used = 0;
    if (want <= a->cap) return;
    /* one block for all of the last round (aligned_alloc: sizes are multiples of 64) */
    free(a->block);
    a->block = aligned_alloc(ARENA_ALIGN, round_up(want));
    a->cap = a->block ? round_up(want) : 0;
}

void lucid_arena_free(lucid_arena *a) {
    for (size_t k = 0; k < a->num_extra; ++k) free(a->extra[k]);
    free(a->block);
    free(a->extra);
    memset(a, 0, sizeof *a);
}
