/* Batch rollouts: N independent rollouts of one scene, each from its own initial state and
 * control sequence, run by a pool of threads that each own a copy of the world
 * (lucid_world_clone). Workers share nothing mutable but the index of the next rollout to
 * take; every rollout writes only its own output columns. A rollout is
 *   set_state(x0_i); for t = 0..T-1: set_controls(u_{i,t}); step
 * on a world whose warm-start memory set_state cleared, so it is a pure function of
 * (x0_i, u_i): the results are bit-identical to that serial loop on one world, whatever the
 * number of threads and the order in which they take rollouts
 * (tests/c/runtime/world/test_world_batch.c).
 *
 * Layouts (column-major, nx = lucid_world_state_size, nu = lucid_world_controls_size):
 *   x0   nx x N          column i: rollout i's initial state (as lucid_world_get_state)
 *   u    nu x T x N      column t + T i: the controls of step t of rollout i
 *                        (lucid_world_set_controls); NULL: zero controls
 *   out  nx x N          final states (record_all = 0), or
 *        nx x (T+1) x N  column t + (T+1) i: the state after t steps of rollout i (t = 0 is
 *                        x0_i as set_state left it)
 *
 * Memory: the pool allocates its threads and worlds at creation; a world's buffers grow during
 * its first rollouts of a scene, after which rollouts allocate nothing (tests/bench/
 * bench_batch.c counts). Dense linear algebra inside steps calls OpenBLAS from several threads
 * at once: keep it at one thread per call (OPENBLAS_NUM_THREADS=1, lucid_dense_set_threads). */
#ifndef LUCID_WORLD_BATCH_H
#define LUCID_WORLD_BATCH_H

#include <stddef.h>

#include "runtime/world/world.h"

#define LUCID_BATCH_MAX_THREADS 256

/* The options of a batch rollout (lucid.batch.rollout's opts), described by
 * lucid_batch_option_table (option_table.h) which its Lua reader follows. */
typedef struct lucid_batch_options {
    int threads; /* 1..LUCID_BATCH_MAX_THREADS, or 0 (default): lucid_batch_auto_threads */
    int steps;   /* T >= 0, or -1 (default): the length of the control sequences */
    int record;  /* 0 (default): final states only; 1: every state (record_all) */
} lucid_batch_options;

void lucid_batch_default_options(lucid_batch_options *o);
extern const lucid_option lucid_batch_option_table[];

/* The threads of a pool for `count` rollouts: min(count, online CPUs,
 * LUCID_BATCH_MAX_THREADS), at least 1. */
int lucid_batch_auto_threads(size_t count);

typedef struct lucid_batch lucid_batch;

typedef struct lucid_batch_problem {
    size_t count;         /* N >= 0 rollouts */
    size_t steps;         /* T >= 0 steps each */
    const double *x0;     /* nx x N */
    const double *u;      /* nu x T x N, or NULL for zero controls */
    int record_all;       /* 0: final states; 1: every state (see above) */
    double *out;          /* nx x N, or nx x (T+1) x N */
    const size_t *order;  /* NULL, or a permutation of 0..N-1: the order in which workers take
                           * rollouts (tests use it to show that scheduling does not matter) */
    lucid_status *status; /* NULL, or N entries: each rollout's status */
} lucid_batch_problem;

/* A pool of `threads` workers (1..LUCID_BATCH_MAX_THREADS; the calling thread is one of
 * them), each with a clone of w. w is only read, and may be destroyed afterwards (meshes must
 * outlive the pool). LUCID_ERR_ARGUMENT, LUCID_ERR_NO_MEMORY (also when a thread cannot be
 * started). */
lucid_status lucid_batch_create(const lucid_world *w, int threads, lucid_batch **out);
void lucid_batch_destroy(lucid_batch *b);
int lucid_batch_threads(const lucid_batch *b);

/* Runs the rollouts of p. Returns LUCID_OK, LUCID_ERR_ARGUMENT (bad sizes, NULL buffers, a
 * bad order) before running anything, or the status of the failed rollout of lowest index:
 * a rollout stops at its first failing set_state or step (its remaining output columns are
 * NaN, the others are complete); *failed receives its index and why (when not NULL, at most
 * why_size bytes) the reason, "set_state: ..." or "step t: ...". */
lucid_status lucid_batch_run(lucid_batch *b, const lucid_batch_problem *p, size_t *failed,
                             char *why, size_t why_size);

/* create (threads 0: lucid_batch_auto_threads(p->count)), run, destroy. */
lucid_status lucid_world_batch_rollout(const lucid_world *w, int threads,
                                       const lucid_batch_problem *p, size_t *failed, char *why,
                                       size_t why_size);

#endif
