/* Contact solvers on the paper's scenes and on a heap of boxes, and MuJoCo on the same heap.
 *
 *   build/tests/bench/bench_contact [--heap N] [--settle S] [--seconds S] [--heap-seconds S]
 *       [--tols LIST] [--caps LIST] [--max-iter N] [--quick] [--compare-only]
 * Run it with OPENBLAS_NUM_THREADS=1: the problems are small, and OpenBLAS's threads otherwise
 * spend a third of the time yielding on a loaded machine (perf). --help lists the options.
 *
 * The heap is first stepped --settle seconds untimed, so that the timed windows start once the
 * boxes touch, not during the free fall: lucid once with its default options (every lucid run
 * then starts from that state, warm-start memory empty), MuJoCo by each of its settings from
 * the same initial poses (a state settled by soft contacts is 1 cm deep, and stiffer ones would
 * start by throwing the boxes apart). The two settled states are alike, not identical.
 *
 * Part 1 (lucid): every model:solver pair steps each scene at eps_abs = 1e-6 (at most
 * --max-iter iterations a solve), warm started across steps and cold; the heap for
 * --heap-seconds from the settled state. Per pair: time per step, solver iterations per step
 * (the world's retries included: a failed solve is repeated cold, then with the model's PGS,
 * see runtime/world/world_delassus.c), the share of steps whose solve met the tolerance, and
 * the largest NCP criterion of a step.
 *
 * Part 2, an accuracy/time trade-off on the heap for --seconds: lucid's ncp:admm, ccp:newton
 * and ncp:pgs (warm started) at every eps_abs of --tols and every cap of --caps, and MuJoCo
 * 2.2.2 (loaded with dlopen when <mujoco/mujoco.h> was found at build time and
 * libmujoco.so.2.2.2 loads; skipped with a message otherwise) at settings from looser than its
 * default to its stiffest. Per row: time per step and its ratio to MuJoCo's default, iterations,
 * largest penetration, energy drift (E(end) - E(middle)), and the NCP criterion (Eq. 15) of the
 * contact forces against the contact velocities after the step, computed the same way for both
 * (lucid_contact_criteria_eval on forces in N and velocities in m/s, no reference velocity;
 * the velocities are J(q_t) v+, the bodies' velocities after the step at the contact points
 * and frames found at its start, with the lever arms of the start-of-step poses): its median and
 * 90th percentile over steps for the touching contacts (gap <= 0), and its median for every contact
 * (lucid's also include the margin's not yet touching contacts, whose approach with zero force the
 * criterion, blind to the gap, counts as a violation). Then the "same residual" comparison: per
 * lucid solver, its cheapest setting whose touching median is at most MuJoCo's default's (and at
 * most MuJoCo's smallest), with the time ratio. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/math/rng.h"
#include "runtime/world/world.h"
#include "solvers/contact/contact_criteria.h"

#define MU_CUBE    0.4
#define MU_HEAP    0.5
#define DT         1e-3
#define MAX_LIST   16
#define SAMPLE_CAP 4096

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, lucid_status s) {
    fprintf(stderr, "bench_contact: %s: %s\n", what, lucid_status_string(s));
    exit(1);
}

static void *checked_malloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "bench_contact: out of memory\n");
        exit(1);
    }
    return p;
}

/* ---- scenes --------------------------------------------------------------------------- */

typedef struct heap_box {
    double half[3], mass;
    lucid_quat q;
    lucid_vec3 x;
} heap_box;

typedef enum scene_kind { SLIDE, DRAG, STACK_ILL, STACK4, HEAP } scene_kind;

static const char *const scene_names[] = {"sliding cube", "dragged cube", "stack 1e3/1e-3 kg",
                                          "stack of 4", "heap"};

/* n boxes of random sizes and orientations in columns of a 4 x 4 grid, dropped on the ground:
 * they fall into a heap 1 m wide. */
static void make_heap(heap_box *boxes, int n, uint64_t seed) {
    lucid_rng rng;
    lucid_rng_seed(&rng, seed);
    for (int i = 0; i < n; ++i) {
        heap_box *b = &boxes[i];
        for (int k = 0; k < 3; ++k) b->half[k] = 0.04 + 0.03 * lucid_rng_uniform(&rng);
        b->mass = 1000.0 * 8.0 * b->half[0] * b->half[1] * b->half[2];
        double q[4];
        lucid_rng_unit_quaternion(&rng, q);
        b->q = lucid_quat_make(q[0], q[1], q[2], q[3]);
        int column = i % 16, layer = i / 16;
        /* 0.25 m apart: more than the largest diameter (2 sqrt(3) 0.07), no initial overlap */
        b->x = lucid_vec3_make(0.25 * (column % 4 - 1.5) + 0.02 * (lucid_rng_uniform(&rng) - 0.5),
                               0.25 * (column / 4 - 1.5) + 0.02 * (lucid_rng_uniform(&rng) - 0.5),
                               0.15 + 0.25 * layer);
    }
}

static void add_ground(lucid_world *w, double friction) {
    lucid_body_part ground = {.pose = lucid_se3_identity()};
    int id = -1;
    lucid_status s = lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0.0, &ground.shape);
    if (s == LUCID_OK) s = lucid_world_add_static(w, &ground, 1, &ground.pose, friction, &id, NULL);
    if (s != LUCID_OK) die("ground", s);
}

static int add_box(lucid_world *w, const double half[3], double mass, lucid_se3 pose,
                   double friction, const double velocity[6]) {
    lucid_body_part part = {.pose = lucid_se3_identity()};
    lucid_status s = lucid_shape_box(half[0], half[1], half[2], &part.shape);
    lucid_body_desc d;
    lucid_body_desc_default(&d);
    d.parts = &part;
    d.num_parts = 1;
    d.has_mass = 1;
    d.mass = mass;
    d.pose = pose;
    d.friction = friction;
    if (velocity) memcpy(d.velocity, velocity, sizeof d.velocity);
    int id = -1;
    if (s == LUCID_OK) s = lucid_world_add_body(w, &d, &id, NULL);
    if (s != LUCID_OK) die("box", s);
    return id;
}

static lucid_se3 at(double x, double y, double z) {
    return lucid_se3_make(lucid_mat3_identity(), lucid_vec3_make(x, y, z));
}

/* Builds a scene; returns the id of the body an external force drives (DRAG) or -1. */
static int build_scene(lucid_world *w, scene_kind kind, const heap_box *heap, int n_heap) {
    const double cube[3] = {0.1, 0.1, 0.1}, rest = 0.1 - 0.5e-4;
    switch (kind) {
        case SLIDE: {
            add_ground(w, MU_CUBE);
            const double v[6] = {1.5 * cos(0.3), 1.5 * sin(0.3), 0, 0, 0, 0};
            add_box(w, cube, 1.0, at(0, 0, rest), MU_CUBE, v);
            return -1;
        }
        case DRAG:
            add_ground(w, MU_CUBE);
            return add_box(w, cube, 1.0, at(0, 0, rest), MU_CUBE, NULL);
        case STACK_ILL:
            add_ground(w, MU_CUBE);
            add_box(w, cube, 1e-3, at(0, 0, rest), MU_CUBE, NULL);
            add_box(w, cube, 1e3, at(0, 0, 3 * rest), MU_CUBE, NULL);
            return -1;
        case STACK4: {
            add_ground(w, MU_HEAP);
            const double block[3] = {0.2, 0.15, 0.05};
            for (int k = 0; k < 4; ++k)
                add_box(w, block, 1.0 + k, at(0, 0, 0.05 + 0.1 * k + 0.01 * (k + 1)), MU_HEAP,
                        NULL);
            return -1;
        }
        case HEAP:
            add_ground(w, MU_HEAP);
            for (int i = 0; i < n_heap; ++i)
                add_box(w, heap[i].half, heap[i].mass,
                        lucid_se3_make(lucid_quat_to_mat3(heap[i].q), heap[i].x), MU_HEAP, NULL);
            return -1;
    }
    return -1;
}

/* ---- the NCP criterion of forces against post-step velocities (shared by both sides) ---- */

typedef struct contact_sample {
    double lambda[3], sigma[3], mu; /* (t1, t2, n) */
    int touching;                   /* the shapes overlap or touch (gap <= 0) */
} contact_sample;

/* The NCP criterion of the samples (every one, or only the touching ones); -1 when none. */
static double ncp_residual(const contact_sample *c, int count, int touching_only, double *scratch) {
    double *lambda = scratch, *sigma = scratch + 3 * count, *g = scratch + 6 * count,
           *mu = scratch + 9 * count;
    int n = 0;
    for (int i = 0; i < count; ++i) {
        if (touching_only && !c[i].touching) continue;
        memcpy(lambda + 3 * n, c[i].lambda, sizeof c[i].lambda);
        memcpy(sigma + 3 * n, c[i].sigma, sizeof c[i].sigma);
        g[3 * n] = g[3 * n + 1] = g[3 * n + 2] = 0.0;
        mu[n++] = c[i].mu;
    }
    if (n == 0) return -1.0;
    lucid_contact_problem p = {n, NULL, g, mu, NULL, 3}; /* the criteria read n, mu and g only */
    lucid_contact_criteria out;
    lucid_contact_criteria_eval(&p, LUCID_CRITERION_NCP, lambda, sigma, NULL, &out);
    return out.abs;
}

/* ---- per-run measurements (shared by both simulators) ----------------------------------- */

typedef struct run_result {
    double ms_per_step, iterations_per_step, converged_share, worst_residual;
    double penetration, drift;
    /* post-step NCP criterion over the steps with touching contacts, of those contacts, and
     * the median with every contact (the margin's not yet touching ones too) */
    double ncp_median, ncp_p90, ncp_all_median;
    double mean_contacts;
    int max_contacts;
} run_result;

/* What a run accumulates step by step, turned into a run_result by finish_tally. */
typedef struct tally {
    contact_sample *samples;
    double *scratch, *post, *post_all, seconds, e_mid;
    int steps, with_touching, with_contacts;
    long contacts;
} tally;

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void start_tally(tally *t, int steps) {
    memset(t, 0, sizeof *t);
    t->samples = checked_malloc(sizeof *t->samples * SAMPLE_CAP);
    t->scratch = checked_malloc(sizeof(double) * 10 * SAMPLE_CAP);
    t->post = checked_malloc(sizeof(double) * (size_t)steps);
    t->post_all = checked_malloc(sizeof(double) * (size_t)steps);
    t->steps = steps;
}

/* Records the post-step criterion of step k's n samples and its energy e. */
static void tally_step(tally *t, run_result *r, int k, int n, double e) {
    double touching = ncp_residual(t->samples, n, 1, t->scratch);
    double all = ncp_residual(t->samples, n, 0, t->scratch);
    if (touching >= 0) t->post[t->with_touching++] = touching;
    if (all >= 0) t->post_all[t->with_contacts++] = all;
    t->contacts += n;
    if (n > r->max_contacts) r->max_contacts = n;
    if (k == t->steps / 2) t->e_mid = e;
    if (k == t->steps - 1) r->drift = e - t->e_mid;
}

static double percentile(double *x, int n, double q) {
    if (n == 0) return 0.0;
    qsort(x, (size_t)n, sizeof *x, compare_doubles);
    return x[(int)(q * (n - 1) + 0.5)];
}

static void finish_tally(tally *t, run_result *r) {
    r->ncp_median = percentile(t->post, t->with_touching, 0.5);
    r->ncp_p90 = percentile(t->post, t->with_touching, 0.9);
    r->ncp_all_median = percentile(t->post_all, t->with_contacts, 0.5);
    r->mean_contacts = (double)t->contacts / t->steps;
    r->ms_per_step = 1e3 * t->seconds / t->steps;
    r->iterations_per_step /= t->steps;
    free(t->samples);
    free(t->scratch);
    free(t->post);
    free(t->post_all);
}

/* ---- lucid runs ------------------------------------------------------------------------ */

/* The centre of mass of every body in the world frame (static bodies: their pose's origin);
 * x holds lucid_world_body_count(w) entries. */
static void centres_of_mass(const lucid_world *w, lucid_vec3 *x) {
    for (int id = 0; id < lucid_world_body_count(w); ++id) {
        lucid_se3 pose;
        lucid_mat3 inertia;
        lucid_vec3 com = lucid_vec3_zero();
        if (lucid_world_pose(w, id, &pose) != LUCID_OK) die("pose", LUCID_ERR_ARGUMENT);
        if (!lucid_world_is_static(w, id)) lucid_world_body_inertia(w, id, &inertia, &com);
        x[id] = lucid_vec3_add(pose.t, lucid_mat3_mul_vec(&pose.R, com));
    }
}

/* Velocity after the step of the point p of a body, with the lever arm p - x_com taken at the
 * start of the step (x_start): J(q_t) v+, the contact velocity of the problem the step solved
 * (and what MuJoCo's samples measure). The pose after the step would move the lever arm by
 * dt v, the velocity by dt w x v: up to 1e-2 m/s on the heap's tumbling boxes. */
static lucid_vec3 point_velocity(const lucid_world *w, int id, const lucid_vec3 *x_start,
                                 lucid_vec3 p) {
    double tw[6];
    lucid_se3 pose;
    lucid_mat3 inertia;
    lucid_vec3 com = lucid_vec3_zero();
    if (lucid_world_is_static(w, id)) return lucid_vec3_zero();
    if (lucid_world_velocity(w, id, tw) != LUCID_OK || lucid_world_pose(w, id, &pose) != LUCID_OK ||
        lucid_world_body_inertia(w, id, &inertia, &com) != LUCID_OK)
        die("body", LUCID_ERR_ARGUMENT);
    lucid_vec3 om = lucid_vec3_load(tw + 3);
    /* the twist's v is the body origin's: the centre of mass moves at v + w x (R com) */
    lucid_vec3 v_com =
        lucid_vec3_add(lucid_vec3_load(tw), lucid_vec3_cross(om, lucid_mat3_mul_vec(&pose.R, com)));
    return lucid_vec3_add(v_com, lucid_vec3_cross(om, lucid_vec3_sub(p, x_start[id])));
}

/* Fills samples from the world's contacts (forces of the last step, velocities after it at
 * the contacts' points and frames, lever arms from x_start: the centres of mass before it). */
static int lucid_samples(const lucid_world *w, const lucid_vec3 *x_start, contact_sample *out,
                         int cap, double *penetration) {
    int n = lucid_world_contact_count(w);
    const lucid_world_contact *c = lucid_world_contacts(w);
    if (n > cap) n = cap;
    for (int i = 0; i < n; ++i) {
        lucid_vec3 rel = lucid_vec3_sub(point_velocity(w, c[i].body2, x_start, c[i].point),
                                        point_velocity(w, c[i].body1, x_start, c[i].point));
        lucid_vec3 local = lucid_mat3_tmul_vec(&c[i].frame, rel);
        lucid_vec3_store(local, out[i].sigma);
        memcpy(out[i].lambda, c[i].force, sizeof c[i].force);
        out[i].mu = c[i].friction;
        out[i].touching = c[i].separation <= 0.0;
        *penetration = fmax(*penetration, -c[i].separation);
    }
    return n;
}

typedef struct lucid_setting {
    lucid_contact_model model;
    lucid_contact_solver solver;
    int warm, max_iter;
    double tol; /* 0: every solve runs to max_iter (or stalls) */
} lucid_setting;

/* A world of the scene with the setting's contact options, from state when not NULL. */
static lucid_world *make_world(scene_kind kind, const lucid_setting *set, const heap_box *heap,
                               int n_heap, const double *state, int *driven) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = DT;
    o.contact.model = set->model;
    o.contact.solver = set->solver;
    o.contact.tol = set->tol;
    o.contact.max_iter = set->max_iter;
    o.contact.warm_start = set->warm;
    lucid_world *w = NULL;
    lucid_status s = lucid_world_create(&o, &w);
    if (s != LUCID_OK) die("world", s);
    *driven = build_scene(w, kind, heap, n_heap);
    const char *why = NULL;
    if (state && (s = lucid_world_set_state(w, state, &why)) != LUCID_OK) die(why, s);
    return w;
}

static run_result run_lucid(scene_kind kind, const lucid_setting *set, int steps,
                            const heap_box *heap, int n_heap, const double *state) {
    int driven = -1;
    lucid_world *w = make_world(kind, set, heap, n_heap, state, &driven);
    run_result r = {0};
    tally t;
    start_tally(&t, steps);
    int converged = 0;
    lucid_vec3 *x_start = checked_malloc(sizeof *x_start * (size_t)lucid_world_body_count(w));
    for (int k = 0; k < steps; ++k) {
        if (driven >= 0)
            lucid_world_apply_force(w, driven, lucid_vec3_make(20.0 * k * DT, 0, 0),
                                    lucid_vec3_zero());
        centres_of_mass(w, x_start); /* untimed, like the sampling */
        double t0 = now_seconds();
        lucid_status s = lucid_world_step(w);
        t.seconds += now_seconds() - t0;
        if (s != LUCID_OK) die("step", s);
        lucid_world_stats st = lucid_world_last_stats(w);
        r.iterations_per_step += st.solver_iterations;
        converged += st.converged;
        r.worst_residual = fmax(r.worst_residual, st.residual);
        int n = lucid_samples(w, x_start, t.samples, SAMPLE_CAP, &r.penetration);
        lucid_world_energy e = lucid_world_energy_of(w);
        tally_step(&t, &r, k, n, e.kinetic + e.potential);
    }
    finish_tally(&t, &r);
    free(x_start);
    r.converged_share = (double)converged / steps;
    lucid_world_destroy(w);
    return r;
}

/* The heap stepped `seconds` with lucid's default options; returns its state (caller frees). */
static double *settle_lucid(const heap_box *heap, int n_heap, double seconds) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    lucid_setting set = {o.contact.model, o.contact.solver, o.contact.warm_start,
                         o.contact.max_iter, o.contact.tol};
    int driven = -1;
    lucid_world *w = make_world(HEAP, &set, heap, n_heap, NULL, &driven);
    for (int k = 0; k < (int)(seconds / DT + 0.5); ++k) {
        lucid_status s = lucid_world_step(w);
        if (s != LUCID_OK) die("settling step", s);
    }
    double *state = checked_malloc(sizeof(double) * (size_t)lucid_world_state_size(w));
    lucid_world_get_state(w, state);
    lucid_world_destroy(w);
    return state;
}

static const struct {
    lucid_contact_model model;
    lucid_contact_solver solver;
} pairs[] = {
    {LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM},   {LUCID_CONTACT_NCP, LUCID_CONTACT_STAGGERED},
    {LUCID_CONTACT_NCP, LUCID_CONTACT_PGS},    {LUCID_CONTACT_CCP, LUCID_CONTACT_ADMM},
    {LUCID_CONTACT_CCP, LUCID_CONTACT_NEWTON}, {LUCID_CONTACT_CCP, LUCID_CONTACT_PGS},
    {LUCID_CONTACT_LCP, LUCID_CONTACT_PGS},    {LUCID_CONTACT_RAISIM, LUCID_CONTACT_BISECTION}};
enum { NUM_PAIRS = sizeof pairs / sizeof pairs[0] };

/* Part 2's robust solvers: ncp:admm, ccp:newton, ncp:pgs (staggered projections are left out:
 * their inner ADMM solves make them the slowest on the heap by far). */
static const int robust[] = {0, 4, 2};
enum { NUM_ROBUST = sizeof robust / sizeof robust[0] };

static void pair_name(int pair, char *out, size_t size) {
    snprintf(out, size, "%s:%s", lucid_contact_model_name(pairs[pair].model),
             lucid_contact_solver_name(pairs[pair].solver));
}

static void print_part1_header(void) {
    printf("%-18s %-17s %-4s %9s %9s %6s %10s %10s\n", "scene", "model:solver", "ws", "ms/step",
           "iter/step", "conv", "worst NCP", "max pen");
}

static void print_part1_row(const char *scene, int pair, int warm, const run_result *r) {
    char name[32];
    pair_name(pair, name, sizeof name);
    printf("%-18s %-17s %-4s %9.3f %9.1f %5.0f%% %10.2e %10.2e\n", scene, name,
           warm ? "warm" : "cold", r->ms_per_step, r->iterations_per_step,
           100.0 * r->converged_share, r->worst_residual, r->penetration);
}

/* ---- MuJoCo ------------------------------------------------------------------------------ */

/* A MuJoCo setting: solref = (timeconst, 1), solimp = (dmin, dmax, 0.001, 0.5, 2). */
typedef struct mujoco_setting {
    const char *name;
    double timeconst, dmin, dmax, impratio, tolerance;
    int iterations, noslip_iterations;
} mujoco_setting;

/* From looser than the default to the stiffest MuJoCo allows: the time constant at its
 * minimum 2 dt (below it MuJoCo clamps), a harder impedance, friction as stiff as the normal
 * direction (impratio), more iterations at a tighter tolerance, and the noslip post-pass. */
static const mujoco_setting mujoco_settings[] = {
    {"default", 0.02, 0.9, 0.95, 1.0, 1e-8, 100, 0},
    {"tol 1e-3, 3 it", 0.02, 0.9, 0.95, 1.0, 1e-3, 3, 0},
    {"solref 2dt", 2 * DT, 0.9, 0.95, 1.0, 1e-8, 100, 0},
    {"solref 2dt, 1e-12, 1000 it", 2 * DT, 0.9, 0.95, 1.0, 1e-12, 1000, 0},
    {"solref 2dt, noslip 10", 2 * DT, 0.9, 0.95, 1.0, 1e-8, 100, 10},
    {"solref 2dt, solimp .99", 2 * DT, 0.99, 0.99, 1.0, 1e-8, 100, 0},
    {"stiffest, noslip 100", 2 * DT, 0.99, 0.99, 10.0, 1e-12, 1000, 100},
};
enum { NUM_MUJOCO = sizeof mujoco_settings / sizeof mujoco_settings[0] };

#if defined(__has_include)
#if __has_include(<mujoco/mujoco.h>) && __has_include(<dlfcn.h>)
#define HAVE_MUJOCO_HEADER 1
#endif
#endif

#ifdef HAVE_MUJOCO_HEADER
#include <unistd.h>

#include "tests/bench/mujoco_api.h"

/* The heap as MJCF: a free body per box (geom at the body origin, mass given, so the centre of
 * mass is the box centre as in lucid), the same ground, dt, gravity and friction. The buffers
 * allow 12 contacts a box: MuJoCo's arena holds njmax^2 numbers, and allocating (and freeing)
 * a needlessly large one costs seconds of page faults; run_mujoco reports an overflow. */
static int write_mjcf(const char *path, const heap_box *heap, int n) {
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fprintf(f,
            "<mujoco model=\"heap\">\n"
            "  <option timestep=\"%.17g\" gravity=\"0 0 -9.81\" integrator=\"Euler\" "
            "cone=\"elliptic\" solver=\"Newton\" jacobian=\"auto\">\n"
            "    <flag energy=\"enable\"/>\n"
            "  </option>\n"
            "  <size nconmax=\"%d\" njmax=\"%d\"/>\n"
            "  <worldbody>\n"
            "    <geom type=\"plane\" size=\"0 0 1\" friction=\"%g 0.005 0.0001\" condim=\"3\"/>\n",
            DT, 12 * n + 100, 40 * n + 200, MU_HEAP);
    for (int i = 0; i < n; ++i) {
        const heap_box *b = &heap[i];
        fprintf(f,
                "    <body pos=\"%.17g %.17g %.17g\" quat=\"%.17g %.17g %.17g %.17g\">"
                "<freejoint/><geom type=\"box\" size=\"%.17g %.17g %.17g\" mass=\"%.17g\" "
                "friction=\"%g 0.005 0.0001\" condim=\"3\"/></body>\n",
                b->x.x, b->x.y, b->x.z, b->q.w, b->q.x, b->q.y, b->q.z, b->half[0], b->half[1],
                b->half[2], b->mass, MU_HEAP);
    }
    fprintf(f, "  </worldbody>\n</mujoco>\n");
    return fclose(f) == 0;
}

/* Every field a setting names, on every geom (equal per-geom values mix to themselves). */
static void apply_setting(mjModel *m, const mujoco_setting *set) {
    m->opt.impratio = set->impratio;
    m->opt.tolerance = set->tolerance;
    m->opt.iterations = set->iterations;
    m->opt.noslip_iterations = set->noslip_iterations;
    for (int g = 0; g < m->ngeom; ++g) {
        m->geom_solref[mjNREF * g] = set->timeconst;
        m->geom_solref[mjNREF * g + 1] = 1.0;
        m->geom_solimp[mjNIMP * g] = set->dmin;
        m->geom_solimp[mjNIMP * g + 1] = set->dmax;
    }
}

/* Samples MuJoCo's contacts of the step just taken: forces from mj_contactForce (normal first
 * in MuJoCo's frame), velocities after the step at the positions the contacts were found at
 * (mj_step leaves xpos/xmat at the start of the step): J(q_t) v+, as lucid_samples. */
static int mujoco_samples(const mujoco_api *api, const mjModel *m, const mjData *d,
                          contact_sample *out, int cap, double *penetration) {
    int n = 0;
    for (int i = 0; i < d->ncon && n < cap; ++i) {
        const mjContact *c = &d->contact[i];
        if (!mujoco_contact_sample(api, m, d, i, out[n].sigma, out[n].lambda)) continue;
        out[n].mu = c->friction[0];
        out[n].touching = c->dist <= 0.0;
        *penetration = fmax(*penetration, -c->dist);
        ++n;
    }
    return n;
}

/* The heap in MuJoCo: the library, the model and one data reused by every setting. */
typedef struct mujoco_heap {
    mujoco_api api;
    mjModel *model;
    mjData *data;
    double settle; /* untimed seconds before each timed window */
} mujoco_heap;

static void close_mujoco(mujoco_heap *h) {
    if (h->data) h->api.delete_data(h->data);
    if (h->model) h->api.delete_model(h->model);
    memset(h, 0, sizeof *h);
}

/* Loads MuJoCo and the heap. */
static int open_mujoco(mujoco_heap *h, const heap_box *heap, int n_heap, double settle) {
    memset(h, 0, sizeof *h);
    if (!load_mujoco(&h->api)) {
        printf("MuJoCo: libmujoco.so.2.2.2 not loadable (%s): skipped\n", dlerror());
        return 0;
    }
    char path[] = "/tmp/lucid_bench_heap_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        printf("MuJoCo: cannot create a temporary MJCF file: skipped\n");
        return 0;
    }
    close(fd);
    char error[1000] = "";
    if (write_mjcf(path, heap, n_heap)) h->model = h->api.load_xml(path, NULL, error, sizeof error);
    remove(path);
    if (!h->model) {
        printf("MuJoCo: cannot load the heap (%s): skipped\n",
               error[0] ? error : "MJCF not written");
        return 0;
    }
    h->data = h->api.make_data(h->model);
    if (!h->data) {
        printf("MuJoCo: cannot allocate its data: skipped\n");
        return 0;
    }
    h->settle = settle;
    printf("MuJoCo %s loaded\n", h->api.version());
    return 1;
}

/* Steps the heap with one setting: h->settle seconds untimed from the initial poses, then the
 * timed window (each setting settles with its own contacts: a state settled with soft contacts
 * sinks 1 cm, and stiffer contacts would start by throwing the boxes apart). */
static run_result run_mujoco(mujoco_heap *h, const mujoco_setting *set, int steps) {
    const mujoco_api *api = &h->api;
    mjModel *m = h->model;
    apply_setting(m, set);
    mjData *d = h->data;
    api->reset_data(m, d); /* the initial poses, at rest */
    for (int k = 0; k < (int)(h->settle / DT + 0.5); ++k) api->step(m, d);
    run_result r = {0};
    tally t;
    start_tally(&t, steps);
    for (int k = 0; k < steps; ++k) {
        double t0 = now_seconds();
        api->step(m, d);
        t.seconds += now_seconds() - t0;
        r.iterations_per_step += d->solver_iter;
        int n = mujoco_samples(api, m, d, t.samples, SAMPLE_CAP, &r.penetration);
        double e = 0.0;
        if (k == steps / 2 || k == steps - 1) {
            api->energy_pos(m, d);
            api->energy_vel(m, d);
            e = d->energy[0] + d->energy[1];
        }
        tally_step(&t, &r, k, n, e);
    }
    finish_tally(&t, &r);
    r.converged_share = NAN;
    r.worst_residual = NAN;
    if (d->warning[mjWARN_CONTACTFULL].number || d->warning[mjWARN_CNSTRFULL].number)
        printf("MuJoCo %s: contact or constraint buffer full: contacts were dropped\n", set->name);
    apply_setting(m, &mujoco_settings[0]);
    return r;
}
#endif

/* ---- options ------------------------------------------------------------------------------ */

typedef struct bench_options {
    int n_heap, quick, compare_only, max_iter;
    double settle, seconds, heap_seconds;
    double tols[MAX_LIST];
    int num_tols, caps[MAX_LIST], num_caps;
} bench_options;

static const char usage[] =
    "usage: bench_contact [options]\n"
    "  --heap N           boxes in the heap, 1..1000 (default 64)\n"
    "  --settle S         untimed seconds before the heap's timed windows, >= 0 (0.4)\n"
    "  --seconds S        part 2's timed window on the heap, >= 0.001 (0.1)\n"
    "  --heap-seconds S   part 1's timed window on the heap, >= 0.001 (0.03)\n"
    "  --tols LIST        part 2: lucid's eps_abs values, comma-separated, >= 0; 0 runs every\n"
    "                     solve to the cap (default 10,1,1e-2,1e-4,1e-6)\n"
    "  --caps LIST        part 2: lucid's iteration caps, comma-separated, >= 1 (1000)\n"
    "  --max-iter N       part 1: lucid's iteration cap, >= 1 (1000)\n"
    "  --quick            leave the heap out of part 1\n"
    "  --compare-only     run part 2 only\n";

static int bad_option(const char *option, const char *value, const char *expected) {
    fprintf(stderr, "bench_contact: %s %s: expected %s (--help lists the options)\n", option,
            value ? value : "(missing)", expected);
    return 0;
}

static int parse_double(const char *text, double *out) {
    char *end = NULL;
    errno = 0;
    *out = strtod(text, &end);
    return end != text && *end == '\0' && errno == 0 && isfinite(*out);
}

static int parse_int(const char *text, int *out) {
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    *out = (int)v;
    return end != text && *end == '\0' && errno == 0 && v >= -1000000000L && v <= 1000000000L;
}

/* A comma-separated list of at most MAX_LIST numbers, each >= lo (ints when is_int). */
static int parse_list(const char *text, double lo, int is_int, double *doubles, int *ints,
                      int *count) {
    char buf[512];
    if (strlen(text) >= sizeof buf) return 0;
    strcpy(buf, text);
    *count = 0;
    for (char *item = strtok(buf, ","); item; item = strtok(NULL, ",")) {
        if (*count == MAX_LIST) return 0;
        double v = 0.0;
        int i = 0;
        if (is_int ? !parse_int(item, &i) : !parse_double(item, &v)) return 0;
        if ((is_int ? (double)i : v) < lo) return 0;
        if (is_int)
            ints[*count] = i;
        else
            doubles[*count] = v;
        ++*count;
    }
    return *count > 0;
}

/* Parses argv into o; 0 (after a message) on a bad option, -1 after --help. */
static int parse_options(int argc, char **argv, bench_options *o) {
    *o = (bench_options){.n_heap = 64,
                         .max_iter = 1000,
                         .settle = 0.4,
                         .seconds = 0.1,
                         .heap_seconds = 0.03,
                         .tols = {10, 1, 1e-2, 1e-4, 1e-6},
                         .num_tols = 5,
                         .caps = {1000},
                         .num_caps = 1};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes_value = 1;
        if (!strcmp(a, "--quick"))
            o->quick = 1, takes_value = 0;
        else if (!strcmp(a, "--compare-only"))
            o->compare_only = 1, takes_value = 0;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return printf("%s", usage), -1;
        else if (!strcmp(a, "--heap")) {
            if (!v || !parse_int(v, &o->n_heap) || o->n_heap < 1 || o->n_heap > 1000)
                return bad_option(a, v, "an integer in [1, 1000]");
        } else if (!strcmp(a, "--max-iter")) {
            if (!v || !parse_int(v, &o->max_iter) || o->max_iter < 1)
                return bad_option(a, v, "an integer >= 1");
        } else if (!strcmp(a, "--settle")) {
            if (!v || !parse_double(v, &o->settle) || o->settle < 0 || o->settle > 100)
                return bad_option(a, v, "seconds in [0, 100]");
        } else if (!strcmp(a, "--seconds") || !strcmp(a, "--heap-seconds")) {
            double *dst = !strcmp(a, "--seconds") ? &o->seconds : &o->heap_seconds;
            if (!v || !parse_double(v, dst) || *dst < DT || *dst > 100)
                return bad_option(a, v, "seconds in [0.001, 100] (at least one step)");
        } else if (!strcmp(a, "--tols")) {
            if (!v || !parse_list(v, 0.0, 0, o->tols, NULL, &o->num_tols))
                return bad_option(a, v, "1 to 16 comma-separated numbers >= 0, e.g. 1e-3,1e-6");
        } else if (!strcmp(a, "--caps")) {
            if (!v || !parse_list(v, 1.0, 1, NULL, o->caps, &o->num_caps))
                return bad_option(a, v, "1 to 16 comma-separated integers >= 1, e.g. 100,1000");
        } else {
            fprintf(stderr, "bench_contact: unknown option %s (--help lists the options)\n", a);
            return 0;
        }
        i += takes_value;
    }
    return 1;
}

/* ---- part 1 ------------------------------------------------------------------------------- */

static void run_part1(const bench_options *o, const heap_box *heap, const double *settled) {
    printf("Part 1: lucid, eps_abs = 1e-6, at most %d iterations a solve, dt = 1 ms", o->max_iter);
    if (!o->quick)
        printf("; heap of %d boxes: %d steps after %.3g s settling", o->n_heap,
               (int)(o->heap_seconds / DT + 0.5), o->settle);
    printf("\n");
    print_part1_header();
    /* the stack is short: its solves hit the iteration cap (3 attempts) every step */
    const int scene_steps[] = {500, 500, 20, 300, (int)(o->heap_seconds / DT + 0.5)};
    for (int kind = SLIDE; kind <= HEAP; ++kind) {
        if (o->quick && kind == HEAP) continue;
        for (int p = 0; p < NUM_PAIRS; ++p)
            for (int warm = 1; warm >= 0; --warm) {
                lucid_setting set = {pairs[p].model, pairs[p].solver, warm, o->max_iter, 1e-6};
                run_result r = run_lucid((scene_kind)kind, &set, scene_steps[kind], heap, o->n_heap,
                                         kind == HEAP ? settled : NULL);
                print_part1_row(scene_names[kind], p, warm, &r);
            }
    }
    printf("\n");
}

/* ---- part 2 ------------------------------------------------------------------------------- */

typedef struct part2_row {
    char name[80];
    int pair; /* index into pairs, -1 for MuJoCo */
    run_result r;
} part2_row;

static void print_part2_header(void) {
    printf("%-30s %9s %7s %8s %9s %10s %9s %9s %9s %9s\n", "setting", "ms/step", "/MJdef", "iter",
           "max pen", "drift (J)", "NCP p50", "NCP p90", "p50 all", "contacts");
}

static void print_part2_row(const part2_row *row, double mujoco_ms) {
    const run_result *r = &row->r;
    printf("%-30s %9.3f %7.2f %8.1f %9.2e %10.2e %9.2e %9.2e %9.2e %5.0f/%d\n", row->name,
           r->ms_per_step, mujoco_ms > 0 ? r->ms_per_step / mujoco_ms : NAN, r->iterations_per_step,
           r->penetration, r->drift, r->ncp_median, r->ncp_p90, r->ncp_all_median, r->mean_contacts,
           r->max_contacts);
}

/* The cheapest row of lucid pair `pair` whose median and 90th percentile are at most those of
 * ref (the median alone would let a setting through whose bad steps are worse), or NULL. */
static const part2_row *cheapest_at(const part2_row *rows, int n, int pair, const part2_row *ref) {
    const part2_row *best = NULL;
    for (int i = 0; i < n; ++i)
        if (rows[i].pair == pair && rows[i].r.ncp_median <= ref->r.ncp_median &&
            rows[i].r.ncp_p90 <= ref->r.ncp_p90 &&
            (!best || rows[i].r.ms_per_step < best->r.ms_per_step))
            best = &rows[i];
    return best;
}

/* For every robust solver: its cheapest setting reaching the reference row's median. */
static void print_same_residual(const part2_row *rows, int n, const part2_row *ref) {
    printf("  %s: NCP p50 %.2e, p90 %.2e, %.3f ms/step\n", ref->name, ref->r.ncp_median,
           ref->r.ncp_p90, ref->r.ms_per_step);
    for (int c = 0; c < NUM_ROBUST; ++c) {
        char name[32];
        pair_name(robust[c], name, sizeof name);
        const part2_row *b = cheapest_at(rows, n, robust[c], ref);
        if (b)
            printf("    %-11s %-28s p50 %.2e p90 %.2e %9.3f ms/step = %7.2f x\n", name, b->name,
                   b->r.ncp_median, b->r.ncp_p90, b->r.ms_per_step,
                   b->r.ms_per_step / ref->r.ms_per_step);
        else
            printf("    %-11s no setting of the sweep reaches both\n", name);
    }
}

/* The converse: the cheapest MuJoCo setting reaching lucid's smallest p50, if any. */
static void print_mujoco_at_lucid(const part2_row *rows, int n) {
    const part2_row *lucid = NULL, *mujoco = NULL;
    for (int i = 0; i < n; ++i)
        if (rows[i].pair >= 0 && (!lucid || rows[i].r.ncp_median < lucid->r.ncp_median))
            lucid = &rows[i];
    if (!lucid) return;
    for (int i = 0; i < n; ++i)
        if (rows[i].pair < 0 && rows[i].r.ncp_median <= lucid->r.ncp_median &&
            (!mujoco || rows[i].r.ms_per_step < mujoco->r.ms_per_step))
            mujoco = &rows[i];
    printf("  lucid's smallest p50: %.2e (%s); ", lucid->r.ncp_median, lucid->name);
    if (mujoco)
        printf("cheapest MuJoCo setting at or below it: %s, %.3f ms/step\n", mujoco->name,
               mujoco->r.ms_per_step);
    else
        printf("no MuJoCo setting reaches it\n");
}

/* MuJoCo's rows (none when it is unavailable); returns how many were written. */
static int mujoco_rows(const bench_options *o, const heap_box *heap, int steps, part2_row *rows) {
    int n = 0;
#ifdef HAVE_MUJOCO_HEADER
    mujoco_heap mh;
    if (!open_mujoco(&mh, heap, o->n_heap, o->settle)) return 0;
    print_part2_header();
    for (; n < NUM_MUJOCO; ++n) {
        snprintf(rows[n].name, sizeof rows[n].name, "mujoco %s", mujoco_settings[n].name);
        rows[n].pair = -1;
        rows[n].r = run_mujoco(&mh, &mujoco_settings[n], steps);
        print_part2_row(&rows[n], rows[0].r.ms_per_step);
    }
    close_mujoco(&mh);
#else
    (void)o, (void)heap, (void)steps, (void)rows, (void)mujoco_settings;
    printf("MuJoCo: <mujoco/mujoco.h> not found at build time (apt-get install libmujoco-dev): "
           "skipped\n");
#endif
    return n;
}

/* One row of lucid pair p at (tol, cap). */
static void lucid_row(const bench_options *o, const heap_box *heap, const double *settled,
                      int steps, int p, double tol, int cap, part2_row *row) {
    lucid_setting set = {pairs[p].model, pairs[p].solver, 1, cap, tol};
    char pname[32], tol_text[16];
    pair_name(p, pname, sizeof pname);
    if (tol > 0)
        snprintf(tol_text, sizeof tol_text, "%.0e", tol);
    else
        snprintf(tol_text, sizeof tol_text, "0 (cap)");
    snprintf(row->name, sizeof row->name, "lucid %s %s/%d", pname, tol_text, cap);
    row->pair = p;
    row->r = run_lucid(HEAP, &set, steps, heap, o->n_heap, settled);
}

/* The same-residual comparison against MuJoCo's default (rows[0]) and its most accurate. */
static void print_summary(const part2_row *rows, int n) {
    const part2_row *best = &rows[0];
    for (int k = 1; k < NUM_MUJOCO; ++k)
        if (rows[k].r.ncp_median < best->r.ncp_median) best = &rows[k];
    printf("\nSame residual (NCP of touching contacts): per lucid solver, the cheapest setting "
           "whose\np50 and p90 are at most the reference's; x = its time / the reference's\n");
    print_same_residual(rows, n, &rows[0]);
    if (best != &rows[0]) {
        printf("  MuJoCo's smallest p50 over its settings, at %.2f x its default's time:\n",
               best->r.ms_per_step / rows[0].r.ms_per_step);
        print_same_residual(rows, n, best);
    } else {
        printf("  MuJoCo's default has the smallest p50 of its settings\n");
    }
    print_mujoco_at_lucid(rows, n);
}

static void run_part2(const bench_options *o, const heap_box *heap, const double *settled) {
    int steps = (int)(o->seconds / DT + 0.5);
    printf("Part 2: heap of %d boxes, %d steps of 1 ms after %.3g s settling (untimed), "
           "lucid (warm started) vs MuJoCo\n",
           o->n_heap, steps, o->settle);
    part2_row *rows = checked_malloc(sizeof *rows *
                                     (size_t)(NUM_MUJOCO + NUM_ROBUST * o->num_tols * o->num_caps));
    int num_mujoco = mujoco_rows(o, heap, steps, rows), n = num_mujoco;
    double mujoco_ms = num_mujoco ? rows[0].r.ms_per_step : -1.0;
    if (!num_mujoco) print_part2_header();
    for (int c = 0; c < NUM_ROBUST; ++c)
        for (int ci = 0; ci < o->num_caps; ++ci)
            for (int ti = 0; ti < o->num_tols; ++ti, ++n) {
                lucid_row(o, heap, settled, steps, robust[c], o->tols[ti], o->caps[ci], &rows[n]);
                print_part2_row(&rows[n], mujoco_ms);
            }
    if (num_mujoco) print_summary(rows, n);
    free(rows);
}

int main(int argc, char **argv) {
    bench_options o;
    int ok = parse_options(argc, argv, &o);
    if (ok <= 0) return ok < 0 ? 0 : 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    heap_box *heap = checked_malloc(sizeof *heap * (size_t)o.n_heap);
    make_heap(heap, o.n_heap, 1);
    double *settled = settle_lucid(heap, o.n_heap, o.settle);
    if (!o.compare_only) run_part1(&o, heap, settled);
    run_part2(&o, heap, settled);
    free(settled);
    free(heap);
    return 0;
}
