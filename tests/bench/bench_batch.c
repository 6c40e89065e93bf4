/* Batch rollouts over threads (runtime/world/world_batch.h) against the serial loop on one
 * world, on a heap of boxes (tests/bench/batch_scene.h), measured in the same run.
 *
 *   OPENBLAS_NUM_THREADS=1 build/tests/bench/bench_batch [--boxes 50 | --model FILE]
 *       [--rollouts 8] [--steps 100] [--settle 400] [--threads 2] [--repeats 3]
 *
 * --model FILE: instead of the heap, a robot scene: the model (MJCF or URDF) alone in a world
 * of its own timestep, its actuators driven by the random controls (e.g. tasks/models/arm7.xml).
 *
 * The heap is stepped --settle steps (dt = 1 ms), then --rollouts rollouts of --steps steps
 * start from its state with random body twists and random applied wrenches each step. Timed,
 * wall clock, best of --repeats: (a) the serial loop on one world (set_state, then per step
 * set_controls and step), (b) lucid_batch_run with 1 thread and (c) with --threads threads on a
 * pool created beforehand. Printed: seconds, rollouts per second, the speed-up (a)/(c) and
 * (a)/(b) (wall clock), the CPU seconds of each (all threads: equal CPU with a shorter wall time
 * is the parallel gain; on a loaded machine wall time stretches), whether (b) and (c) equal (a)
 * bit for bit, and the allocations counted by the
 * malloc/calloc/realloc interposer below: at pool creation, during the first run (the worlds'
 * buffers grow: warm-up), during later runs of the same inputs, and during a run of new
 * inputs; per rollout. The machine's load matters: run it when `uptime` shows a load below 1. */
#define _DEFAULT_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/model/model.h"
#include "runtime/model/model_load.h"
#include "runtime/world/world_batch.h"
#include "solvers/dense/dense_threads.h"
#include "tests/bench/batch_scene.h"

/* Allocation counter (benchmark-only instrumentation: the allocator has no other way to
 * report). glibc's __libc_* entry points do the work. */
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t m);
void *__libc_realloc(void *p, size_t n);
static atomic_long allocations;
void *malloc(size_t n) {
    atomic_fetch_add(&allocations, 1);
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t m) {
    atomic_fetch_add(&allocations, 1);
    return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n) {
    atomic_fetch_add(&allocations, 1);
    return __libc_realloc(p, n);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* CPU seconds of the whole process (every thread). */
static double cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void die(const char *what, lucid_status s) {
    fprintf(stderr, "bench_batch: %s: %s\n", what, lucid_status_string(s));
    exit(1);
}

static long arg_long(int argc, char **argv, const char *name, long fallback) {
    for (int i = 1; i + 1 < argc; ++i)
        if (strcmp(argv[i], name) == 0) return strtol(argv[i + 1], NULL, 10);
    return fallback;
}

/* The scene of --model: the model (MJCF or URDF) alone in a world of its timestep, its
 * servos and the free bodies it holds driven by the random controls of batch_scene_inputs. */
static lucid_world *model_scene(const char *path, lucid_model **model) {
    char err[512];
    lucid_model_spec *spec = NULL;
    if (lucid_model_spec_load(path, NULL, &spec, err, sizeof err) != LUCID_OK) {
        fprintf(stderr, "bench_batch: %s\n", err);
        return NULL;
    }
    lucid_status s = lucid_model_compile(spec, model, err, sizeof err);
    lucid_model_spec_destroy(spec);
    if (s != LUCID_OK) {
        fprintf(stderr, "bench_batch: %s\n", err);
        return NULL;
    }
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = lucid_model_timestep(*model);
    lucid_world *w = NULL;
    lucid_world_model_desc d;
    lucid_world_model_desc_default(&d);
    if (lucid_world_create(&o, &w) != LUCID_OK) return NULL;
    if (lucid_world_add_model(w, *model, &d, NULL, NULL) != LUCID_OK) {
        lucid_world_destroy(w);
        return NULL;
    }
    return w;
}

static void serial_loop(lucid_world *w, const double *x0, const double *u, size_t N, size_t T,
                        double *out) {
    size_t nx = (size_t)lucid_world_state_size(w), nu = (size_t)lucid_world_controls_size(w);
    for (size_t i = 0; i < N; ++i) {
        lucid_status s = lucid_world_set_state(w, x0 + nx * i, NULL);
        for (size_t t = 0; t < T && s == LUCID_OK; ++t) {
            s = lucid_world_set_controls(w, u + nu * (t + T * i));
            if (s == LUCID_OK) s = lucid_world_step(w);
        }
        if (s != LUCID_OK) die("serial rollout", s);
        lucid_world_get_state(w, out + nx * i);
    }
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--help") == 0) {
            puts("usage: bench_batch [--boxes 50 | --model FILE] [--rollouts 8] [--steps 100] "
                 "[--settle 400] [--threads 2] [--repeats 3]");
            return 0;
        }
    int boxes = (int)arg_long(argc, argv, "--boxes", 50);
    size_t N = (size_t)arg_long(argc, argv, "--rollouts", 8);
    size_t T = (size_t)arg_long(argc, argv, "--steps", 100);
    long settle = arg_long(argc, argv, "--settle", 400);
    int threads = (int)arg_long(argc, argv, "--threads", 2);
    int repeats = (int)arg_long(argc, argv, "--repeats", 3);
    if (boxes < 1 || N < 1 || T < 1 || settle < 0 || threads < 1 || repeats < 1) {
        fputs("bench_batch: every option must be positive\n", stderr);
        return 2;
    }
    lucid_dense_set_threads(1); /* several threads call OpenBLAS at once */

    const char *model_path = NULL;
    for (int i = 1; i + 1 < argc; ++i)
        if (strcmp(argv[i], "--model") == 0) model_path = argv[i + 1];
    lucid_model *model = NULL;
    lucid_world *w = model_path ? model_scene(model_path, &model) : batch_scene_heap(boxes, 7);
    if (!w) die("scene", LUCID_ERR_NO_MEMORY);
    for (long k = 0; k < settle; ++k) {
        lucid_status s = lucid_world_step(w);
        if (s != LUCID_OK) die("settling", s);
    }
    int contacts = lucid_world_contact_count(w);
    size_t nx = (size_t)lucid_world_state_size(w);
    double *x0, *u, *x0b, *ub;
    if (!batch_scene_inputs(w, N, T, 11, &x0, &u) || !batch_scene_inputs(w, N, T, 12, &x0b, &ub))
        die("inputs", LUCID_ERR_NO_MEMORY);
    double *ref = malloc(sizeof(double) * nx * N), *got1 = malloc(sizeof(double) * nx * N),
           *gotn = malloc(sizeof(double) * nx * N);
    if (!ref || !got1 || !gotn) die("outputs", LUCID_ERR_NO_MEMORY);

    lucid_batch *b1, *bn;
    long a0 = atomic_load(&allocations);
    lucid_status s = lucid_batch_create(w, 1, &b1);
    if (s != LUCID_OK) die("pool", s);
    s = lucid_batch_create(w, threads, &bn);
    if (s != LUCID_OK) die("pool", s);
    long at_create = atomic_load(&allocations) - a0;

    lucid_batch_problem p1 = {N, T, x0, u, 0, got1, NULL, NULL};
    lucid_batch_problem pn = {N, T, x0, u, 0, gotn, NULL, NULL};
    double t_serial = 1e300, t_one = 1e300, t_many = 1e300;
    double c_serial = 1e300, c_one = 1e300, c_many = 1e300;
    long first_run = -1, later_runs = 0;
    for (int r = 0; r < repeats; ++r) {
        double t0 = now(), k0 = cpu();
        serial_loop(w, x0, u, N, T, ref);
        double t1 = now(), k1 = cpu();
        if ((s = lucid_batch_run(b1, &p1, NULL, NULL, 0)) != LUCID_OK) die("batch", s);
        double t2 = now(), k2 = cpu();
        long before = atomic_load(&allocations);
        if ((s = lucid_batch_run(bn, &pn, NULL, NULL, 0)) != LUCID_OK) die("batch", s);
        double t3 = now(), k3 = cpu();
        if (k1 - k0 < c_serial) c_serial = k1 - k0;
        if (k2 - k1 < c_one) c_one = k2 - k1;
        if (k3 - k2 < c_many) c_many = k3 - k2;
        long made = atomic_load(&allocations) - before;
        if (r == 0)
            first_run = made;
        else
            later_runs += made;
        if (t1 - t0 < t_serial) t_serial = t1 - t0;
        if (t2 - t1 < t_one) t_one = t2 - t1;
        if (t3 - t2 < t_many) t_many = t3 - t2;
    }
    int same1 = memcmp(ref, got1, sizeof(double) * nx * N) == 0;
    int samen = memcmp(ref, gotn, sizeof(double) * nx * N) == 0;
    /* new inputs on the warmed pool */
    lucid_batch_problem pb = {N, T, x0b, ub, 0, gotn, NULL, NULL};
    long before = atomic_load(&allocations);
    if ((s = lucid_batch_run(bn, &pb, NULL, NULL, 0)) != LUCID_OK) die("batch", s);
    long new_inputs = atomic_load(&allocations) - before;

    if (model_path)
        printf("bench_batch: %s (%d contacts after %ld settling steps), %zu rollouts x %zu "
               "steps, best of %d\n",
               model_path, contacts, settle, N, T, repeats);
    else
        printf("bench_batch: %d boxes (%d contacts after %ld settling steps), %zu rollouts x %zu "
               "steps, best of %d\n",
               boxes, contacts, settle, N, T, repeats);
    printf("  serial loop, one world  %8.3f s wall %8.3f s CPU %7.2f rollouts/s\n", t_serial,
           c_serial, N / t_serial);
    printf("  batch, 1 thread         %8.3f s wall %8.3f s CPU %7.2f rollouts/s  speed-up %.2fx  "
           "identical %s\n",
           t_one, c_one, N / t_one, t_serial / t_one, same1 ? "yes" : "NO");
    printf("  batch, %d threads        %8.3f s wall %8.3f s CPU %7.2f rollouts/s  speed-up %.2fx  "
           "identical %s\n",
           threads, t_many, c_many, N / t_many, t_serial / t_many, samen ? "yes" : "NO");
    printf("  allocations: pool creation %ld; first run (warm-up) %ld; later %d runs %ld "
           "(%.2f per rollout); new inputs %ld (%.2f per rollout)\n",
           at_create, first_run, repeats - 1, later_runs,
           repeats > 1 ? (double)later_runs / (double)(N * (size_t)(repeats - 1)) : 0.0, new_inputs,
           (double)new_inputs / (double)N);
    lucid_batch_destroy(b1);
    lucid_batch_destroy(bn);
    lucid_world_destroy(w);
    lucid_model_destroy(model);
    free(x0), free(u), free(x0b), free(ub), free(ref), free(got1), free(gotn);
    return same1 && samen ? 0 : 1;
}
