/* Batch rollouts over a pool of pthreads, one world copy per worker (world_batch.h). */
#include "runtime/world/world_batch.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct lucid_batch {
    int threads;
    lucid_world **worlds; /* one per worker; worlds[0] is the calling thread's */
    pthread_t *tids;      /* threads - 1 workers */
    int started;          /* workers actually started */
    double *zeros;        /* nu zero controls */
    int nx, nu;

    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    unsigned long generation; /* bumped by each run; workers wait for a new one */
    int quit;
    int pending; /* workers still busy with the current run */

    /* the current run (read-only for workers, except under lock) */
    const lucid_batch_problem *p;
    size_t next;       /* position in the order of the next rollout to take */
    size_t first_fail; /* lowest failed rollout index, SIZE_MAX when none */
    lucid_status fail_status;
    char fail_why[200];
};

typedef struct worker_arg {
    lucid_batch *b;
    int index;
} worker_arg;

static void fill_nan(double *x, size_t n) {
    for (size_t k = 0; k < n; ++k) x[k] = NAN;
}

static void record_failure(lucid_batch *b, size_t i, lucid_status s, const char *stage, long step,
                           const char *why) {
    pthread_mutex_lock(&b->lock);
    if (i < b->first_fail) {
        b->first_fail = i;
        b->fail_status = s;
        if (step >= 0)
            snprintf(b->fail_why, sizeof b->fail_why, "%s %ld: %s", stage, step, why);
        else
            snprintf(b->fail_why, sizeof b->fail_why, "%s: %s", stage, why);
    }
    pthread_mutex_unlock(&b->lock);
}

/* Rollout i on world w: set_state(x0_i), then T times set_controls(u_{i,t}) and step. */
static void rollout(lucid_batch *b, lucid_world *w, size_t i) {
    const lucid_batch_problem *p = b->p;
    const size_t nx = (size_t)b->nx, nu = (size_t)b->nu, T = p->steps;
    const size_t cols = p->record_all ? T + 1 : 1;
    double *out = p->out + nx * cols * i;
    const char *why = "";
    lucid_status s = lucid_world_set_state(w, p->x0 + nx * i, &why);
    if (s != LUCID_OK) {
        fill_nan(out, nx * cols);
        record_failure(b, i, s, "set_state", -1, why);
        if (p->status) p->status[i] = s;
        return;
    }
    if (p->record_all) lucid_world_get_state(w, out), out += nx;
    for (size_t t = 0; t < T; ++t) {
        const double *u = p->u ? p->u + nu * (t + T * i) : b->zeros;
        s = lucid_world_set_controls(w, u);
        if (s == LUCID_OK) s = lucid_world_step(w);
        if (s != LUCID_OK) {
            const char *reason = lucid_world_last_error(w);
            if (!reason[0]) reason = lucid_status_string(s);
            fill_nan(p->record_all ? out : p->out + nx * i, nx * (p->record_all ? T - t : 1));
            record_failure(b, i, s, "step", (long)t + 1, reason);
            if (p->status) p->status[i] = s;
            return;
        }
        if (p->record_all) lucid_world_get_state(w, out), out += nx;
    }
    if (!p->record_all) lucid_world_get_state(w, out);
    if (p->status) p->status[i] = LUCID_OK;
}

/* Takes rollouts until none is left. */
static void work(lucid_batch *b, lucid_world *w) {
    for (;;) {
        pthread_mutex_lock(&b->lock);
        size_t k = b->next < b->p->count ? b->next++ : SIZE_MAX;
        pthread_mutex_unlock(&b->lock);
        if (k == SIZE_MAX) return;
        rollout(b, w, b->p->order ? b->p->order[k] : k);
    }
}

static void *worker_main(void *arg) {
    worker_arg a = *(worker_arg *)arg;
    free(arg);
    lucid_batch *b = a.b;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        while (!b->quit && b->generation == seen) pthread_cond_wait(&b->wake, &b->lock);
        if (b->quit) {
            pthread_mutex_unlock(&b->lock);
            return NULL;
        }
        seen = b->generation;
        pthread_mutex_unlock(&b->lock);
        work(b, b->worlds[a.index]);
        pthread_mutex_lock(&b->lock);
        if (--b->pending == 0) pthread_cond_signal(&b->done);
        pthread_mutex_unlock(&b->lock);
    }
}

void lucid_batch_destroy(lucid_batch *b) {
    if (!b) return;
    pthread_mutex_lock(&b->lock);
    b->quit = 1;
    pthread_cond_broadcast(&b->wake);
    pthread_mutex_unlock(&b->lock);
    for (int k = 0; k < b->started; ++k) pthread_join(b->tids[k], NULL);
    pthread_cond_destroy(&b->wake);
    pthread_cond_destroy(&b->done);
    pthread_mutex_destroy(&b->lock);
    if (b->worlds)
        for (int k = 0; k < b->threads; ++k) lucid_world_destroy(b->worlds[k]);
    free(b->worlds);
    free(b->tids);
    free(b->zeros);
    free(b);
}

lucid_status lucid_batch_create(const lucid_world *w, int threads, lucid_batch **out) {
    if (!w || !out || threads < 1 || threads > LUCID_BATCH_MAX_THREADS) return LUCID_ERR_ARGUMENT;
    lucid_batch *b = calloc(1, sizeof *b);
    if (!b) return LUCID_ERR_NO_MEMORY;
    b->threads = threads;
    b->nx = lucid_world_state_size(w);
    b->nu = lucid_world_controls_size(w);
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->wake, NULL);
    pthread_cond_init(&b->done, NULL);
    b->worlds = calloc((size_t)threads, sizeof *b->worlds);
    b->tids = calloc((size_t)threads, sizeof *b->tids);
    b->zeros = calloc((size_t)b->nu + 1, sizeof *b->zeros);
    if (!b->worlds || !b->tids || !b->zeros) {
        lucid_batch_destroy(b);
        return LUCID_ERR_NO_MEMORY;
    }
    for (int k = 0; k < threads; ++k) {
        lucid_status s = lucid_world_clone(w, &b->worlds[k]);
        if (s != LUCID_OK) {
            lucid_batch_destroy(b);
            return s;
        }
    }
    for (int k = 1; k < threads; ++k) {
        worker_arg *a = malloc(sizeof *a);
        if (!a) {
            lucid_batch_destroy(b);
            return LUCID_ERR_NO_MEMORY;
        }
        *a = (worker_arg){b, k};
        if (pthread_create(&b->tids[b->started], NULL, worker_main, a) != 0) {
            free(a);
            lucid_batch_destroy(b);
            return LUCID_ERR_NO_MEMORY;
        }
        b->started++;
    }
    *out = b;
    return LUCID_OK;
}

int lucid_batch_threads(const lucid_batch *b) {
    return b ? b->threads : 0;
}

/* a x b x c without overflow (0 on overflow, with *ok cleared). */
static size_t mul3(size_t a, size_t b, size_t c, int *ok) {
    if (b && a > SIZE_MAX / b) return *ok = 0, 0;
    size_t ab = a * b;
    if (c && ab > SIZE_MAX / c) return *ok = 0, 0;
    return ab * c;
}

static lucid_status check_problem(const lucid_batch *b, const lucid_batch_problem *p) {
    if (!p) return LUCID_ERR_ARGUMENT;
    int ok = 1;
    size_t nx = (size_t)b->nx;
    mul3(nx, p->count, p->record_all ? p->steps + 1 : 1, &ok);
    mul3((size_t)b->nu, p->steps, p->count, &ok);
    if (!ok || (p->steps == SIZE_MAX && p->record_all)) return LUCID_ERR_ARGUMENT;
    if (p->count > 0 && ((nx > 0 && (!p->x0 || !p->out)))) return LUCID_ERR_ARGUMENT;
    if (!p->order) return LUCID_OK;
    unsigned char *seen = calloc(p->count + 1, 1);
    if (!seen) return LUCID_ERR_NO_MEMORY;
    lucid_status s = LUCID_OK;
    for (size_t k = 0; k < p->count && s == LUCID_OK; ++k) {
        if (p->order[k] >= p->count || seen[p->order[k]])
            s = LUCID_ERR_ARGUMENT;
        else
            seen[p->order[k]] = 1;
    }
    free(seen);
    return s;
}

lucid_status lucid_batch_run(lucid_batch *b, const lucid_batch_problem *p, size_t *failed,
                             char *why, size_t why_size) {
    if (why && why_size) why[0] = '\0';
    if (!b) return LUCID_ERR_ARGUMENT;
    lucid_status s = check_problem(b, p);
    if (s != LUCID_OK) return s;
    pthread_mutex_lock(&b->lock);
    b->p = p;
    b->next = 0;
    b->first_fail = SIZE_MAX;
    b->fail_status = LUCID_OK;
    b->fail_why[0] = '\0';
    b->pending = b->started;
    b->generation++;
    pthread_cond_broadcast(&b->wake);
    pthread_mutex_unlock(&b->lock);
    work(b, b->worlds[0]);
    pthread_mutex_lock(&b->lock);
    while (b->pending > 0) pthread_cond_wait(&b->done, &b->lock);
    b->p = NULL;
    pthread_mutex_unlock(&b->lock);
    if (b->first_fail == SIZE_MAX) return LUCID_OK;
    if (failed) *failed = b->first_fail;
    if (why && why_size) snprintf(why, why_size, "%s", b->fail_why);
    return b->fail_status;
}

lucid_status lucid_world_batch_rollout(const lucid_world *w, int threads,
                                       const lucid_batch_problem *p, size_t *failed, char *why,
                                       size_t why_size) {
    lucid_batch *b;
    if (threads == 0 && p) threads = lucid_batch_auto_threads(p->count);
    lucid_status s = lucid_batch_create(w, threads, &b);
    if (s != LUCID_OK) return s;
    s = lucid_batch_run(b, p, failed, why, why_size);
    lucid_batch_destroy(b);
    return s;
}

int lucid_batch_auto_threads(size_t count) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1) cpus = 1;
    if (cpus > LUCID_BATCH_MAX_THREADS) cpus = LUCID_BATCH_MAX_THREADS;
    if ((size_t)cpus > count) cpus = count > 0 ? (long)count : 1;
    return (int)cpus;
}

void lucid_batch_default_options(lucid_batch_options *o) {
    o->threads = 0;
    o->steps = -1;
    o->record = 0;
}

static const lucid_option_choice records[] = {{"final", 0}, {"all", 1}, {NULL, 0}};

/* Worker counts a pool takes, and the non-negative step counts. */
#define LUCID_OPTION_THREADS_RANGE LUCID_OPTION_INTERVAL(1, LUCID_BATCH_MAX_THREADS)
#define LUCID_OPTION_THREADS_WORDS                                                                 \
    "an integer in [1, " LUCID_OPTION_STR(LUCID_BATCH_MAX_THREADS) "]"
#define LUCID_OPTION_STEPS_RANGE LUCID_OPTION_NONNEGATIVE_RANGE
#define LUCID_OPTION_STEPS_WORDS "an integer >= 0"

#define S lucid_batch_options
const lucid_option lucid_batch_option_table[] = {
    LUCID_OPTION_SPECIAL_ENTRY(S, "", threads, LUCID_OPTION_INTEGER, THREADS, 0.0,
                               "0: min(rollouts, online CPUs)", "worker threads"),
    LUCID_OPTION_SPECIAL_ENTRY(S, "", steps, LUCID_OPTION_INTEGER, STEPS, -1.0,
                               "-1: the control sequences' length", "steps of each rollout"),
    LUCID_OPTION_CHOICE_ENTRY(S, "", record, records, "\"final\" or \"all\"",
                              "the final states, or every state of each rollout"),
    LUCID_OPTION_END,
};
#undef S
