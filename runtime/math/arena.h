/* A scratch arena for work that allocates the same buffers call after call (the step
 * derivatives): allocations are carved from one block and released all at once by
 * lucid_arena_reset, which keeps the block. A call that outgrows the block gets separate
 * allocations, and the next reset replaces the block by one large enough for that call, so
 * that in the steady state nothing is allocated or returned to the system. (Returning heap
 * memory to the system is a TLB shootdown across cores: ~0.3-1 ms on a loaded virtual
 * machine, measured in docs/benchmarks/step_derivatives.md.) */
#ifndef LUCID_ARENA_H
#define LUCID_ARENA_H

#include <stddef.h>

typedef struct lucid_arena {
    unsigned char *block;
    size_t cap, used; /* bytes of the block, and carved from it since the last reset */
    void **extra;     /* allocations past the block since the last reset */
    size_t num_extra, extra_cap, extra_bytes;
} lucid_arena;

/* count x size bytes, zeroed, aligned to 64 bytes (a cache line, and any type); NULL when count x
 * size overflows or memory runs out. Valid until the next lucid_arena_reset or lucid_arena_free. */
void *lucid_arena_alloc(lucid_arena *a, size_t count, size_t size);
/* lucid_arena_alloc without the zeroing, for buffers the caller writes before it reads them
 * (the contents are unspecified: the last round's). */
void *lucid_arena_alloc_uninit(lucid_arena *a, size_t count, size_t size);
/* Releases every allocation; the block grows to what the last round used when it fell short. */
void lucid_arena_reset(lucid_arena *a);
/* Frees everything; a is then empty (all zero) and usable again. */
void lucid_arena_free(lucid_arena *a);

#endif
