/* Scaling of a step: boxes dropped in layers into a bin, and a pile of mixed shapes, in lucid
 * and in MuJoCo 2.2.2 on scenes generated identically for both.
 *
 *   build/tests/bench/bench_bin [--n LIST] [--pile N] [--settle S] [--seconds S] [--budget S]
 *       [--memory MIB] [--lucid LIST] [--patch-points K] [--sparse-threshold K] [--no-mujoco]
 *       [--no-lucid] [--stack N] [--trace]
 * Run it with OPENBLAS_NUM_THREADS=1. --help lists the options.
 *
 * Scenes (dt = 5 ms, friction 0.5, density 1000 kg/m^3 on both sides, masses and inertias from
 * the shapes): a bin (ground plane and four static walls) of inner width (k + 1/2) 6.6 cm,
 * k = ceil(sqrt(N / 4)), filled with N objects in layers of k x k, every other layer shifted
 * by half a cell so that each object lands on several below, each object tilted by up to
 * 0.3 rad about a random axis and dropped from 1 cm above the layer below. Bin scenes: boxes
 * of 6 cm. Pile: boxes (4-7 cm), capsules, ellipsoids and convex hulls of 12 random points,
 * in turn, in cells of 9 cm. Stack (--stack N): N cubes of 20 cm, untilted, 1 mm apart, on
 * the floor of a bin 1 m wide. MuJoCo 2.2.2 collides every pair of these (ellipsoids and meshes
 * through libccd's MPR, one point per pair; boxes by its own box code), so both simulate the
 * same shapes.
 *
 * Each (scene, simulator) run is a child process, all started at once: it steps --settle
 * seconds untimed, then --seconds timed, and publishes its figures after every step in shared
 * memory; it is limited to --budget CPU seconds (RLIMIT_CPU: killed) and --memory MiB of
 * address space (RLIMIT_AS: allocations fail), and the parent reports what it had (the step
 * count says how far it got) with its peak resident memory (wait4). Per run: CPU ms per step
 * (a shared, loaded machine inflates wall time several-fold, CPU time much less) over the
 * timed window (or over the steps done when cut short: then mostly free fall, a lower bound),
 * contacts per step, the post-step NCP criterion of the touching contacts (forces against the
 * velocities after the step at the contacts' points and frames, lever arms at the start of
 * the step: the same computation as bench_contact.c, lucid_contact_criteria_eval on N and
 * m/s), its median and 90th percentile over the timed steps, the largest penetration, and the
 * islands, the share of timed steps whose stats.converged held and the solver iterations per
 * step (lucid). Then the least-squares slope of log(ms/step) against log(contacts) over the
 * bin scenes that completed, per simulator. lucid runs with its default options except dt,
 * and --lucid's model:solver settings. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/math/rng.h"
#include "runtime/shapes/convex_mesh.h"
#include "runtime/world/world.h"
#include "solvers/contact/contact_criteria.h"

#define DT         5e-3
#define FRICTION   0.5
#define MAX_LIST   8
#define HULL_NPTS  12
#define MAX_STEPS  4096
#define BIN_HEIGHT 0.6

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of the calling thread (the runs are single-threaded: OPENBLAS_NUM_THREADS=1): what
 * a step costs, much less affected than wall time by other processes sharing the cores. (The
 * process clock read 0 in concurrently forked children here.) */
static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *checked_malloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "bench_bin: out of memory\n");
        exit(1);
    }
    return p;
}

/* ---- scenes ------------------------------------------------------------------------------ */

typedef enum object_kind { OBJ_BOX, OBJ_CAPSULE, OBJ_ELLIPSOID, OBJ_HULL } object_kind;

typedef struct object {
    object_kind kind;
    double size[3]; /* box half extents; capsule (radius, half length); ellipsoid radii */
    double hull[3 * HULL_NPTS];
    double q[4]; /* w, x, y, z */
    double x[3];
} object;

typedef struct scene {
    const char *name;
    int n, k;
    double cell, half_width; /* bin inner half width */
    object *objects;
} scene;

/* A rotation by up to 0.3 rad about a uniformly random axis. */
static void random_tilt(lucid_rng *rng, double q[4]) {
    double axis[3], norm = 0.0;
    do {
        norm = 0.0;
        for (int k = 0; k < 3; ++k) axis[k] = 2.0 * lucid_rng_uniform(rng) - 1.0;
        for (int k = 0; k < 3; ++k) norm += axis[k] * axis[k];
    } while (norm > 1.0 || norm < 1e-6);
    norm = sqrt(norm);
    double angle = 0.3 * lucid_rng_uniform(rng);
    q[0] = cos(0.5 * angle);
    for (int k = 0; k < 3; ++k) q[k + 1] = sin(0.5 * angle) * axis[k] / norm;
}

/* The bounding radius of an object (for the layer heights). */
static double object_radius(const object *o) {
    switch (o->kind) {
        case OBJ_BOX:
            return sqrt(o->size[0] * o->size[0] + o->size[1] * o->size[1] +
                        o->size[2] * o->size[2]);
        case OBJ_CAPSULE:
            return o->size[0] + o->size[1];
        case OBJ_ELLIPSOID:
            return fmax(o->size[0], fmax(o->size[1], o->size[2]));
        case OBJ_HULL: {
            double r = 0.0;
            for (int p = 0; p < HULL_NPTS; ++p)
                r = fmax(r, sqrt(o->hull[3 * p] * o->hull[3 * p] +
                                 o->hull[3 * p + 1] * o->hull[3 * p + 1] +
                                 o->hull[3 * p + 2] * o->hull[3 * p + 2]));
            return r;
        }
    }
    return 0.0;
}

static void make_object(lucid_rng *rng, object_kind kind, int mixed, object *o) {
    memset(o, 0, sizeof *o);
    o->kind = kind;
    double u = lucid_rng_uniform(rng), v = lucid_rng_uniform(rng), w = lucid_rng_uniform(rng);
    switch (kind) {
        case OBJ_BOX:
            if (mixed)
                o->size[0] = 0.02 + 0.015 * u, o->size[1] = 0.02 + 0.015 * v,
                o->size[2] = 0.02 + 0.015 * w;
            else
                o->size[0] = o->size[1] = o->size[2] = 0.03;
            break;
        case OBJ_CAPSULE:
            o->size[0] = 0.012 + 0.008 * u, o->size[1] = 0.01 + 0.015 * v;
            break;
        case OBJ_ELLIPSOID:
            o->size[0] = 0.02 + 0.015 * u, o->size[1] = 0.02 + 0.015 * v,
            o->size[2] = 0.015 + 0.01 * w;
            break;
        case OBJ_HULL:
            for (int p = 0; p < HULL_NPTS; ++p) {
                double d[3], n2;
                do {
                    n2 = 0.0;
                    for (int k = 0; k < 3; ++k) d[k] = 2.0 * lucid_rng_uniform(rng) - 1.0;
                    for (int k = 0; k < 3; ++k) n2 += d[k] * d[k];
                } while (n2 > 1.0 || n2 < 1e-4);
                double r = (0.02 + 0.012 * lucid_rng_uniform(rng)) / sqrt(n2);
                for (int k = 0; k < 3; ++k) o->hull[3 * p + k] = r * d[k];
            }
            break;
    }
}

/* N objects in layers of k x k, k = ceil(sqrt(N / 4)), in cells of `cell`. */
static scene make_scene(const char *name, int n, int mixed, uint64_t seed) {
    scene s = {.name = name, .n = n, .cell = mixed ? 0.09 : 0.066};
    s.k = (int)ceil(sqrt(n / 4.0) - 1e-9);
    if (s.k < 1) s.k = 1;
    s.half_width = 0.5 * (s.k + 0.5) * s.cell + 0.004;
    s.objects = checked_malloc(sizeof *s.objects * (size_t)n);
    lucid_rng rng;
    lucid_rng_seed(&rng, seed);
    double z = 0.0, layer_height = 0.0;
    for (int i = 0; i < n; ++i) {
        int per = s.k * s.k, layer = i / per, cell = i % per;
        if (cell == 0) z += layer_height, layer_height = 0.0;
        object *o = &s.objects[i];
        make_object(&rng, mixed ? (object_kind)(i % 4) : OBJ_BOX, mixed, o);
        random_tilt(&rng, o->q);
        double r = object_radius(o), shift = layer % 2 ? 0.5 * s.cell : 0.0;
        o->x[0] = -s.half_width + 0.004 + (cell % s.k + 0.5) * s.cell + shift;
        o->x[1] = -s.half_width + 0.004 + (cell / s.k + 0.5) * s.cell + shift;
        o->x[2] = z + r + 0.01;
        layer_height = fmax(layer_height, 2.0 * r + 0.01);
    }
    return s;
}

/* A stack of n cubes of 20 cm (issue 32's "stack of 10 boxes", bench_solve_choice.lua's), each
 * 1 mm above the one below, untilted, in a bin 1 m wide (the walls far from the stack). */
static scene make_stack(int n) {
    scene s = {.name = "stack", .n = n, .k = 1, .cell = 0.2, .half_width = 0.5};
    s.objects = checked_malloc(sizeof *s.objects * (size_t)n);
    for (int i = 0; i < n; ++i) {
        object *o = &s.objects[i];
        memset(o, 0, sizeof *o);
        o->kind = OBJ_BOX;
        o->size[0] = o->size[1] = o->size[2] = 0.1;
        o->q[0] = 1.0;
        o->x[2] = 0.1 + 0.201 * i;
    }
    return s;
}

/* The four walls: (centre, half extents) of static boxes 2 cm thick. */
static void wall(const scene *s, int i, double c[3], double h[3]) {
    double t = 0.01, w = s->half_width;
    c[2] = h[2] = 0.5 * BIN_HEIGHT;
    if (i < 2) {
        c[0] = (i ? 1 : -1) * (w + t), c[1] = 0.0;
        h[0] = t, h[1] = w + 2 * t;
    } else {
        c[0] = 0.0, c[1] = (i == 3 ? 1 : -1) * (w + t);
        h[0] = w + 2 * t, h[1] = t;
    }
}

/* ---- the post-step NCP criterion (as bench_contact.c) -------------------------------------- */

typedef struct contact_sample {
    double lambda[3], sigma[3], mu; /* (t1, t2, n) */
    int touching;
} contact_sample;

typedef struct samples {
    contact_sample *c;
    double *scratch;
    int cap;
} samples;

static void reserve_samples(samples *s, int n) {
    if (n <= s->cap) return;
    free(s->c);
    free(s->scratch);
    s->cap = 2 * n;
    s->c = checked_malloc(sizeof *s->c * (size_t)s->cap);
    s->scratch = checked_malloc(sizeof(double) * 10 * (size_t)s->cap);
}

/* The NCP criterion of the touching samples; -1 when none. */
static double ncp_residual(const samples *s, int count) {
    double *lambda = s->scratch, *sigma = s->scratch + 3 * count, *g = s->scratch + 6 * count,
           *mu = s->scratch + 9 * count;
    int n = 0;
    for (int i = 0; i < count; ++i) {
        if (!s->c[i].touching) continue;
        memcpy(lambda + 3 * n, s->c[i].lambda, sizeof s->c[i].lambda);
        memcpy(sigma + 3 * n, s->c[i].sigma, sizeof s->c[i].sigma);
        g[3 * n] = g[3 * n + 1] = g[3 * n + 2] = 0.0;
        mu[n++] = s->c[i].mu;
    }
    if (n == 0) return -1.0;
    lucid_contact_problem p = {n, NULL, g, mu, NULL, 3}; /* the criteria read n, mu and g only */
    lucid_contact_criteria out;
    lucid_contact_criteria_eval(&p, LUCID_CRITERION_NCP, lambda, sigma, NULL, &out);
    return out.abs;
}

/* ---- what a run publishes (shared memory, written by the child after every step) --------- */

typedef struct run_report {
    int steps_done, timed_steps, ok, max_contacts, max_islands, failed;
    int converged_steps; /* timed steps whose stats.converged held (lucid; -1 for MuJoCo) */
    double seconds, timed_seconds, contacts, penetration, iterations;
    double residual[MAX_STEPS];
    int num_residuals;
} run_report;

static void record_step(run_report *r, int timed, double seconds, int contacts, double residual,
                        double penetration) {
    r->steps_done++;
    r->seconds += seconds;
    if (!timed) return;
    r->timed_steps++;
    r->timed_seconds += seconds;
    r->contacts += contacts;
    if (contacts > r->max_contacts) r->max_contacts = contacts;
    r->penetration = fmax(r->penetration, penetration);
    if (residual >= 0 && r->num_residuals < MAX_STEPS) r->residual[r->num_residuals++] = residual;
}

/* ---- lucid -------------------------------------------------------------------------------- */

typedef struct lucid_scene {
    lucid_world *w;
    lucid_convex_mesh **meshes;
    int n_meshes;
} lucid_scene;

static void die(const char *what, lucid_status s) {
    fprintf(stderr, "bench_bin: %s: %s\n", what, lucid_status_string(s));
    exit(1);
}

static lucid_se3 pose_of(const double q[4], const double x[3]) {
    return lucid_se3_make(lucid_quat_to_mat3(lucid_quat_make(q[0], q[1], q[2], q[3])),
                          lucid_vec3_make(x[0], x[1], x[2]));
}

static lucid_scene lucid_build(const scene *sc, const lucid_world_options *o) {
    lucid_scene ls = {0};
    lucid_status s = lucid_world_create(o, &ls.w);
    if (s != LUCID_OK) die("world", s);
    lucid_body_part part = {.pose = lucid_se3_identity()};
    int id = -1;
    s = lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0.0, &part.shape);
    if (s == LUCID_OK) s = lucid_world_add_static(ls.w, &part, 1, &part.pose, FRICTION, &id, NULL);
    for (int i = 0; i < 4 && s == LUCID_OK; ++i) {
        double c[3], h[3];
        wall(sc, i, c, h);
        lucid_se3 pose = lucid_se3_make(lucid_mat3_identity(), lucid_vec3_load(c));
        s = lucid_shape_box(h[0], h[1], h[2], &part.shape);
        if (s == LUCID_OK) s = lucid_world_add_static(ls.w, &part, 1, &pose, FRICTION, &id, NULL);
    }
    if (s != LUCID_OK) die("bin", s);
    ls.meshes = checked_malloc(sizeof *ls.meshes * (size_t)sc->n);
    for (int i = 0; i < sc->n; ++i) {
        const object *ob = &sc->objects[i];
        switch (ob->kind) {
            case OBJ_BOX:
                s = lucid_shape_box(ob->size[0], ob->size[1], ob->size[2], &part.shape);
                break;
            case OBJ_CAPSULE:
                s = lucid_shape_capsule(ob->size[0], ob->size[1], &part.shape);
                break;
            case OBJ_ELLIPSOID:
                s = lucid_shape_ellipsoid(ob->size[0], ob->size[1], ob->size[2], &part.shape);
                break;
            case OBJ_HULL:
                s = lucid_convex_mesh_create(ob->hull, HULL_NPTS, &ls.meshes[ls.n_meshes]);
                if (s == LUCID_OK) s = lucid_shape_convex(ls.meshes[ls.n_meshes++], &part.shape);
                break;
        }
        lucid_body_desc d;
        lucid_body_desc_default(&d);
        d.parts = &part;
        d.num_parts = 1;
        d.pose = pose_of(ob->q, ob->x);
        d.friction = FRICTION;
        if (s == LUCID_OK) s = lucid_world_add_body(ls.w, &d, &id, NULL);
        if (s != LUCID_OK) die("object", s);
    }
    return ls;
}

static void lucid_free_scene(lucid_scene *ls) {
    lucid_world_destroy(ls->w);
    for (int i = 0; i < ls->n_meshes; ++i) lucid_convex_mesh_destroy(ls->meshes[i]);
    free(ls->meshes);
}

static void centres_of_mass(const lucid_world *w, lucid_vec3 *x) {
    for (int id = 0; id < lucid_world_body_count(w); ++id) {
        lucid_se3 pose;
        lucid_mat3 inertia;
        lucid_vec3 com = lucid_vec3_zero();
        lucid_world_pose(w, id, &pose);
        if (!lucid_world_is_static(w, id)) lucid_world_body_inertia(w, id, &inertia, &com);
        x[id] = lucid_vec3_add(pose.t, lucid_mat3_mul_vec(&pose.R, com));
    }
}

/* J(q_t) v+ at p on body id (lever arm from the start-of-step centre of mass). */
static lucid_vec3 point_velocity(const lucid_world *w, int id, const lucid_vec3 *x_start,
                                 lucid_vec3 p) {
    if (lucid_world_is_static(w, id)) return lucid_vec3_zero();
    double tw[6];
    lucid_se3 pose;
    lucid_mat3 inertia;
    lucid_vec3 com = lucid_vec3_zero();
    lucid_world_velocity(w, id, tw);
    lucid_world_pose(w, id, &pose);
    lucid_world_body_inertia(w, id, &inertia, &com);
    lucid_vec3 om = lucid_vec3_load(tw + 3);
    lucid_vec3 v_com =
        lucid_vec3_add(lucid_vec3_load(tw), lucid_vec3_cross(om, lucid_mat3_mul_vec(&pose.R, com)));
    return lucid_vec3_add(v_com, lucid_vec3_cross(om, lucid_vec3_sub(p, x_start[id])));
}

static int lucid_samples(const lucid_world *w, const lucid_vec3 *x_start, samples *out,
                         double *penetration) {
    int n = lucid_world_contact_count(w);
    const lucid_world_contact *c = lucid_world_contacts(w);
    reserve_samples(out, n);
    for (int i = 0; i < n; ++i) {
        lucid_vec3 rel = lucid_vec3_sub(point_velocity(w, c[i].body2, x_start, c[i].point),
                                        point_velocity(w, c[i].body1, x_start, c[i].point));
        lucid_vec3_store(lucid_mat3_tmul_vec(&c[i].frame, rel), out->c[i].sigma);
        memcpy(out->c[i].lambda, c[i].force, sizeof c[i].force);
        out->c[i].mu = c[i].friction;
        out->c[i].touching = c[i].separation <= 0.0;
        *penetration = fmax(*penetration, -c[i].separation);
    }
    return n;
}

/* --trace: a step's CPU time and its islands of more than 16 contacts (contacts, body space,
 * solver, the attempts made as a bit mask of lucid_island_answer, the answer applied,
 * iterations, converged) on stderr. */
static void trace_step(const lucid_world *w, int k, double seconds) {
    int count = 0;
    const lucid_world_island_info *in = lucid_world_islands(w, &count);
    fprintf(stderr, "step %d %.1f ms:", k, 1e3 * seconds);
    for (int i = 0; i < count; ++i)
        if (in[i].contacts > 16)
            fprintf(stderr, " [%d%s %s a%x=%d it %d%s]", in[i].contacts,
                    in[i].body_space ? " body" : "", lucid_contact_solver_name(in[i].solver),
                    in[i].attempts, (int)in[i].answer, in[i].iterations,
                    in[i].converged ? "" : " UNCONV");
    fputc('\n', stderr);
}

static void run_lucid(const scene *sc, const lucid_world_options *o, int settle_steps,
                      int timed_steps, int trace, run_report *r) {
    lucid_scene ls = lucid_build(sc, o);
    samples smp = {0};
    lucid_vec3 *x_start = checked_malloc(sizeof *x_start * (size_t)lucid_world_body_count(ls.w));
    for (int k = 0; k < settle_steps + timed_steps; ++k) {
        int timed = k >= settle_steps;
        if (timed) centres_of_mass(ls.w, x_start);
        double t0 = cpu_seconds();
        lucid_status s = lucid_world_step(ls.w);
        double t = cpu_seconds() - t0;
        if (s != LUCID_OK) {
            fprintf(stderr, "bench_bin: lucid step %d: %s\n", k, lucid_status_string(s));
            r->failed = 1;
            break;
        }
        if (trace) trace_step(ls.w, k, t);
        lucid_world_stats st = lucid_world_last_stats(ls.w);
        if (st.islands > r->max_islands) r->max_islands = st.islands;
        double pen = 0.0, res = -1.0;
        int n = st.contacts;
        if (timed) {
            n = lucid_samples(ls.w, x_start, &smp, &pen);
            res = ncp_residual(&smp, n);
        }
        record_step(r, timed, t, n, res, pen);
        if (timed) r->converged_steps += st.converged, r->iterations += st.solver_iterations;
    }
    r->ok = !r->failed;
    free(x_start);
    free(smp.c);
    free(smp.scratch);
    lucid_free_scene(&ls);
}

/* ---- MuJoCo -------------------------------------------------------------------------------- */

#if defined(__has_include)
#if __has_include(<mujoco/mujoco.h>) && __has_include(<dlfcn.h>)
#define HAVE_MUJOCO_HEADER 1
#endif
#endif

#ifdef HAVE_MUJOCO_HEADER
#include "tests/bench/mujoco_api.h"

/* The scene as MJCF: MuJoCo's defaults (Newton, solref/solimp, 100 iterations, tolerance
 * 1e-8) with lucid's integrator (Euler), dt, gravity, friction (condim 3) and its elliptic
 * cone; geoms at density 1000 like lucid's bodies. Buffers: 10 contacts an object (MuJoCo 2.2.2
 * allocates njmax^2 numbers). */
static int write_mjcf(const char *path, const scene *sc) {
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fprintf(f,
            "<mujoco model=\"%s\">\n"
            "  <option timestep=\"%.17g\" gravity=\"0 0 -9.81\" integrator=\"Euler\" "
            "cone=\"elliptic\" solver=\"Newton\" jacobian=\"auto\"/>\n"
            "  <size nconmax=\"%d\" njmax=\"%d\"/>\n"
            "  <default><geom friction=\"%g 0.005 0.0001\" condim=\"3\" density=\"1000\"/>"
            "</default>\n  <asset>\n",
            sc->name, DT, 10 * sc->n + 100, 3 * (10 * sc->n + 100), FRICTION);
    for (int i = 0; i < sc->n; ++i) {
        const object *o = &sc->objects[i];
        if (o->kind != OBJ_HULL) continue;
        fprintf(f, "    <mesh name=\"hull%d\" vertex=\"", i);
        for (int p = 0; p < 3 * HULL_NPTS; ++p) fprintf(f, "%.17g ", o->hull[p]);
        fprintf(f, "\"/>\n");
    }
    fprintf(f, "  </asset>\n  <worldbody>\n    <geom type=\"plane\" size=\"0 0 1\"/>\n");
    for (int i = 0; i < 4; ++i) {
        double c[3], h[3];
        wall(sc, i, c, h);
        fprintf(f,
                "    <geom type=\"box\" pos=\"%.17g %.17g %.17g\" size=\"%.17g %.17g %.17g\"/>\n",
                c[0], c[1], c[2], h[0], h[1], h[2]);
    }
    for (int i = 0; i < sc->n; ++i) {
        const object *o = &sc->objects[i];
        fprintf(f,
                "    <body pos=\"%.17g %.17g %.17g\" quat=\"%.17g %.17g %.17g %.17g\"><freejoint/>",
                o->x[0], o->x[1], o->x[2], o->q[0], o->q[1], o->q[2], o->q[3]);
        switch (o->kind) {
            case OBJ_BOX:
                fprintf(f, "<geom type=\"box\" size=\"%.17g %.17g %.17g\"/>", o->size[0],
                        o->size[1], o->size[2]);
                break;
            case OBJ_CAPSULE:
                fprintf(f, "<geom type=\"capsule\" size=\"%.17g %.17g\"/>", o->size[0], o->size[1]);
                break;
            case OBJ_ELLIPSOID:
                fprintf(f, "<geom type=\"ellipsoid\" size=\"%.17g %.17g %.17g\"/>", o->size[0],
                        o->size[1], o->size[2]);
                break;
            case OBJ_HULL:
                fprintf(f, "<geom type=\"mesh\" mesh=\"hull%d\"/>", i);
                break;
        }
        fprintf(f, "</body>\n");
    }
    fprintf(f, "  </worldbody>\n</mujoco>\n");
    return fclose(f) == 0;
}

static int mujoco_samples(const mujoco_api *api, const mjModel *m, const mjData *d, samples *out,
                          double *penetration) {
    reserve_samples(out, d->ncon);
    int n = 0;
    for (int i = 0; i < d->ncon; ++i) {
        const mjContact *c = &d->contact[i];
        if (!mujoco_contact_sample(api, m, d, i, out->c[n].sigma, out->c[n].lambda)) continue;
        out->c[n].mu = c->friction[0];
        out->c[n].touching = c->dist <= 0.0;
        *penetration = fmax(*penetration, -c->dist);
        ++n;
    }
    return n;
}

static void run_mujoco(const scene *sc, int settle_steps, int timed_steps, run_report *r) {
    mujoco_api api;
    if (!load_mujoco(&api)) {
        fprintf(stderr, "bench_bin: libmujoco.so.2.2.2 not loadable\n");
        r->failed = 1;
        return;
    }
    char path[] = "/tmp/lucid_bench_bin_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        r->failed = 1;
        return;
    }
    close(fd);
    char error[1000] = "";
    mjModel *m = write_mjcf(path, sc) ? api.load_xml(path, NULL, error, sizeof error) : NULL;
    remove(path);
    if (!m) {
        fprintf(stderr, "bench_bin: MuJoCo cannot load the scene: %s\n", error);
        r->failed = 1;
        return;
    }
    mjData *d = api.make_data(m);
    samples smp = {0};
    for (int k = 0; k < settle_steps + timed_steps; ++k) {
        int timed = k >= settle_steps;
        double t0 = cpu_seconds();
        api.step(m, d);
        double t = cpu_seconds() - t0;
        double pen = 0.0, res = -1.0;
        int n = d->ncon;
        if (timed) {
            n = mujoco_samples(&api, m, d, &smp, &pen);
            res = ncp_residual(&smp, n);
        }
        record_step(r, timed, t, n, res, pen);
    }
    if (d->warning[mjWARN_CONTACTFULL].number || d->warning[mjWARN_CNSTRFULL].number) {
        fprintf(stderr, "bench_bin: MuJoCo's contact buffer was full\n");
        r->failed = 1;
    }
    r->ok = !r->failed;
    free(smp.c);
    free(smp.scratch);
    api.delete_data(d);
    api.delete_model(m);
}
#endif

/* ---- runs in child processes ------------------------------------------------------------- */

#define MAX_SETTINGS 3

typedef struct bench_options {
    int n[MAX_LIST], num_n, pile, stack, mujoco, num_settings, trace;
    double settle, seconds, budget, memory_mib;
    lucid_world_options world[MAX_SETTINGS]; /* lucid's settings */
    char name[MAX_SETTINGS][32];
} bench_options;

typedef struct run_result {
    run_report rep;
    int killed;
    double peak_mib, wall;
} run_result;

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile(double *x, int n, double q) {
    if (n == 0) return NAN;
    qsort(x, (size_t)n, sizeof *x, compare_doubles);
    return x[(int)(q * (n - 1) + 0.5)];
}

/* A run in a child process: its pid and the report it publishes. */
typedef struct child {
    pid_t pid;
    run_report *shared;
    double t0;
} child;

/* Starts simulator `sim` (-1 MuJoCo, else lucid's setting sim) on sc in a child, limited to
 * o->budget CPU seconds and o->memory_mib of address space. */
static child start_child(const bench_options *o, const scene *sc, int sim) {
    child c = {0, NULL, now_seconds()};
    c.shared =
        mmap(NULL, sizeof *c.shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (c.shared == MAP_FAILED) {
        fprintf(stderr, "bench_bin: mmap failed\n");
        exit(1);
    }
    memset(c.shared, 0, sizeof *c.shared);
    if (sim < 0) c.shared->converged_steps = -1; /* MuJoCo reports no convergence */
    int settle = (int)(o->settle / DT + 0.5), timed = (int)(o->seconds / DT + 0.5);
    fflush(stdout);
    c.pid = fork();
    if (c.pid == 0) {
        struct rlimit cpu = {(rlim_t)ceil(o->budget), (rlim_t)ceil(o->budget) + 1};
        setrlimit(RLIMIT_CPU, &cpu); /* SIGXCPU ends the run at the budget */
        rlim_t bytes = (rlim_t)(o->memory_mib * 1048576.0);
        struct rlimit mem = {bytes, bytes};
        setrlimit(RLIMIT_AS, &mem); /* a run that needs more fails to allocate */
        if (sim >= 0) run_lucid(sc, &o->world[sim], settle, timed, o->trace, c.shared);
#ifdef HAVE_MUJOCO_HEADER
        if (sim < 0) run_mujoco(sc, settle, timed, c.shared);
#endif
        _exit(0);
    }
    if (c.pid < 0) {
        fprintf(stderr, "bench_bin: fork failed\n");
        exit(1);
    }
    return c;
}

static run_result finish_child(child *c) {
    run_result res;
    memset(&res, 0, sizeof res);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    wait4(c->pid, &status, 0, &ru);
    res.killed = WIFSIGNALED(status);
    res.wall = now_seconds() - c->t0;
    res.rep = *c->shared;
    res.peak_mib = (double)ru.ru_maxrss / 1024.0;
    munmap(c->shared, sizeof *c->shared);
    return res;
}

/* ms per step: over the timed window, or over every step done when the run was cut short. */
static double ms_per_step(const run_result *r) {
    if (r->rep.timed_steps > 0) return 1e3 * r->rep.timed_seconds / r->rep.timed_steps;
    return r->rep.steps_done > 0 ? 1e3 * r->rep.seconds / r->rep.steps_done : NAN;
}

static double contacts_per_step(const run_result *r) {
    return r->rep.timed_steps > 0 ? r->rep.contacts / r->rep.timed_steps : NAN;
}

static void print_row(const scene *sc, const char *sim, run_result *r, double ref_ms) {
    double ms = ms_per_step(r);
    int complete = r->rep.ok && !r->killed && r->rep.timed_steps > 0;
    int lucid = r->rep.converged_steps >= 0, timed = r->rep.timed_steps;
    printf("%-10s %5d %-8s %10.3f %8.2f %9.1f %9.2e %9.2e %9.2e %7d %8.0f %7.2f %8.1f  %s",
           sc->name, sc->n, sim, ms, ref_ms > 0 ? ms / ref_ms : NAN, contacts_per_step(r),
           percentile(r->rep.residual, r->rep.num_residuals, 0.5),
           percentile(r->rep.residual, r->rep.num_residuals, 0.9), r->rep.penetration,
           r->rep.max_islands, r->peak_mib,
           lucid && timed > 0 ? 100.0 * r->rep.converged_steps / timed : NAN,
           lucid && timed > 0 ? r->rep.iterations / timed : NAN,
           complete    ? ""
           : r->killed ? "KILLED"
                       : "FAILED");
    if (!complete)
        printf(" after %d steps (%d timed) in %.0f s", r->rep.steps_done, r->rep.timed_steps,
               r->wall);
    printf("\n");
    fflush(stdout);
}

/* Least-squares slope of log y against log x. */
static double loglog_slope(const double *x, const double *y, int n) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; ++i) {
        double a = log(x[i]), b = log(y[i]);
        sx += a, sy += b, sxx += a * a, sxy += a * b;
    }
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

/* ---- options ------------------------------------------------------------------------------ */

static const char usage[] =
    "usage: bench_bin [options]\n"
    "  --n LIST            boxes in the bin scenes, comma-separated (default 16,64,256,1024)\n"
    "  --pile N            objects of the mixed pile, 0 for none (default 200)\n"
    "  --stack N           cubes of 20 cm stacked on the floor, 0 for none (default 0)\n"
    "  --settle S          untimed seconds before the timed window (default 0.5)\n"
    "  --seconds S         timed window (default 0.1: 20 steps of 5 ms)\n"
    "  --budget S          CPU seconds a run may take before it is killed (default 300)\n"
    "  --memory MIB        address space a run may use (default 4096)\n"
    "  --lucid LIST        lucid's settings, comma-separated MODEL:SOLVER or default, at most 3\n"
    "                      (default: default, the world's default options)\n"
    "  --patch-points K    lucid's contact points per shape pair, 1..16 (default: the world's)\n"
    "  --sparse-threshold K  lucid's islands of more contacts solved in body space (-1: auto)\n"
    "  --no-mujoco, --no-lucid  leave a simulator out\n"
    "  --trace             each lucid step's CPU time and islands of more than 16 contacts, on\n"
    "                      stderr (solver, attempts, answer, iterations, converged)\n";

static int parse_double(const char *text, double *out) {
    char *end = NULL;
    errno = 0;
    *out = strtod(text, &end);
    return end != text && *end == '\0' && errno == 0 && isfinite(*out);
}

static int parse_n_list(const char *text, bench_options *o) {
    char buf[256];
    if (strlen(text) >= sizeof buf) return 0;
    strcpy(buf, text);
    o->num_n = 0;
    for (char *item = strtok(buf, ","); item; item = strtok(NULL, ",")) {
        double v;
        if (o->num_n == MAX_LIST || !parse_double(item, &v) || v < 1 || v > 100000 || v != floor(v))
            return 0;
        o->n[o->num_n++] = (int)v;
    }
    return o->num_n > 0;
}

/* "MODEL:SOLVER" or "default", into setting k; K is patch_points/sparse_threshold's owner. */
static int parse_setting(const char *text, lucid_world_options *w, char *name, size_t size) {
    char buf[64];
    if (strlen(text) >= sizeof buf) return 0;
    strcpy(buf, text);
    char *colon = strchr(buf, ':');
    if (colon) {
        *colon = '\0';
        if (lucid_contact_model_parse(buf, &w->contact.model) != LUCID_OK) return 0;
        if (lucid_contact_solver_parse(colon + 1, &w->contact.solver) != LUCID_OK) return 0;
        if (lucid_contact_pair_check(w->contact.model, w->contact.solver) != LUCID_OK) return 0;
    } else if (strcmp(buf, "default")) {
        return 0;
    }
    snprintf(name, size, "%s:%s", lucid_contact_model_name(w->contact.model),
             lucid_contact_solver_name(w->contact.solver));
    return 1;
}

/* --lucid LIST: comma-separated settings. */
static int parse_settings(const char *text, bench_options *o) {
    char buf[256];
    if (strlen(text) >= sizeof buf) return 0;
    strcpy(buf, text);
    lucid_world_options base = o->world[0];
    o->num_settings = 0;
    for (char *item = strtok(buf, ","); item; item = strtok(NULL, ",")) {
        if (o->num_settings == MAX_SETTINGS) return 0;
        int k = o->num_settings++;
        o->world[k] = base;
        if (!parse_setting(item, &o->world[k], o->name[k], sizeof o->name[k])) return 0;
    }
    return o->num_settings > 0;
}

static int parse_options(int argc, char **argv, bench_options *o) {
    memset(o, 0, sizeof *o);
    o->n[0] = 16, o->n[1] = 64, o->n[2] = 256, o->n[3] = 1024, o->num_n = 4;
    o->pile = 200, o->mujoco = 1;
    o->settle = 0.5, o->seconds = 0.1, o->budget = 300, o->memory_mib = 4096;
    lucid_world_default_options(&o->world[0]);
    o->world[0].dt = DT;
    o->num_settings = 1;
    parse_setting("default", &o->world[0], o->name[0], sizeof o->name[0]);
    int patch_points = o->world[0].patch_points, threshold = o->world[0].sparse_threshold;
    int lucid = 1;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        double x = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("%s", usage);
            return -1;
        } else if (!strcmp(a, "--no-mujoco")) {
            o->mujoco = 0;
            continue;
        } else if (!strcmp(a, "--trace")) {
            o->trace = 1;
            continue;
        } else if (!strcmp(a, "--no-lucid")) {
            lucid = 0;
            continue;
        } else if (!strcmp(a, "--n")) {
            if (!v || !parse_n_list(v, o)) return 0;
        } else if (!strcmp(a, "--pile")) {
            if (!v || !parse_double(v, &x) || x < 0 || x > 100000) return 0;
            o->pile = (int)x;
        } else if (!strcmp(a, "--stack")) {
            if (!v || !parse_double(v, &x) || x < 0 || x > 1000 || x != floor(x)) return 0;
            o->stack = (int)x;
        } else if (!strcmp(a, "--settle")) {
            if (!v || !parse_double(v, &o->settle) || o->settle < 0) return 0;
        } else if (!strcmp(a, "--seconds")) {
            if (!v || !parse_double(v, &o->seconds) || o->seconds < DT ||
                o->seconds > DT * MAX_STEPS)
                return 0;
        } else if (!strcmp(a, "--budget")) {
            if (!v || !parse_double(v, &o->budget) || o->budget <= 0) return 0;
        } else if (!strcmp(a, "--memory")) {
            if (!v || !parse_double(v, &o->memory_mib) || o->memory_mib < 64) return 0;
        } else if (!strcmp(a, "--patch-points")) {
            if (!v || !parse_double(v, &x) || x < 1 || x > 16 || x != floor(x)) return 0;
            patch_points = (int)x;
        } else if (!strcmp(a, "--sparse-threshold")) {
            if (!v || !parse_double(v, &x) || x < -1 || x > 1e9 || x != floor(x)) return 0;
            threshold = (int)x;
        } else if (!strcmp(a, "--lucid")) {
            if (!v || !parse_settings(v, o)) return 0;
        } else {
            return 0;
        }
        ++i;
    }
    for (int k = 0; k < o->num_settings; ++k)
        o->world[k].patch_points = patch_points, o->world[k].sparse_threshold = threshold;
    if (!lucid) o->num_settings = 0;
    return 1;
}

int main(int argc, char **argv) {
    bench_options o;
    int parsed = parse_options(argc, argv, &o);
    if (parsed < 0) return 0;
    if (!parsed) {
        fprintf(stderr, "bench_bin: bad options\n%s", usage);
        return 2;
    }
#ifndef HAVE_MUJOCO_HEADER
    if (o.mujoco) printf("MuJoCo: <mujoco/mujoco.h> not found at build time: skipped\n");
    o.mujoco = 0;
#endif
    printf("bench_bin: dt %g s, settle %g s, timed %g s; a run is limited to %g CPU s and %g MiB; "
           "MuJoCo 2.2.2 Newton (elliptic cone, default solref/solimp); CPU ms per step\n",
           DT, o.settle, o.seconds, o.budget, o.memory_mib);
    for (int k = 0; k < o.num_settings; ++k)
        printf("lucid%d: %s, tol %g, max_iter %d, patch_points %d, sparse_threshold %d\n", k + 1,
               o.name[k], o.world[k].contact.tol, o.world[k].contact.max_iter,
               o.world[k].patch_points, o.world[k].sparse_threshold);
    printf("%-6s %5s %-7s %10s %8s %9s %9s %9s %9s %7s %8s %7s %8s\n", "scene", "N", "sim",
           "ms/step", "/MuJoCo", "contacts", "NCP p50", "NCP p90", "max pen", "islands", "peak MiB",
           "conv %", "iter");
    /* every run at once (the machine may be shared: CPU time is what is measured) */
    int num_scenes = o.num_n + (o.stack > 0) + (o.pile > 0), num_sims = o.num_settings + o.mujoco;
    scene scenes[MAX_LIST + 2];
    child children[(MAX_LIST + 2) * (MAX_SETTINGS + 1)];
    for (int s = 0; s < num_scenes; ++s) {
        scenes[s] = s < o.num_n                   ? make_scene("bin", o.n[s], 0, 5)
                    : s == o.num_n && o.stack > 0 ? make_stack(o.stack)
                                                  : make_scene("pile", o.pile, 1, 7);
        for (int k = 0; k < num_sims; ++k)
            children[s * num_sims + k] = start_child(&o, &scenes[s], k - o.mujoco);
    }
    double lx[MAX_SETTINGS + 1][MAX_LIST], ly[MAX_SETTINGS + 1][MAX_LIST];
    int ln[MAX_SETTINGS + 1] = {0};
    for (int s = 0; s < num_scenes; ++s) {
        double ref = 0.0;
        for (int k = 0; k < num_sims; ++k) {
            run_result r = finish_child(&children[s * num_sims + k]);
            char sim[24];
            if (k < o.mujoco)
                snprintf(sim, sizeof sim, "MuJoCo");
            else
                snprintf(sim, sizeof sim, "lucid%d", k - o.mujoco + 1);
            if (k < o.mujoco) ref = r.rep.ok && !r.killed ? ms_per_step(&r) : 0.0;
            print_row(&scenes[s], sim, &r, ref);
            if (s < o.num_n && r.rep.ok && !r.killed && r.rep.timed_steps > 0)
                lx[k][ln[k]] = contacts_per_step(&r), ly[k][ln[k]++] = ms_per_step(&r);
        }
        free(scenes[s].objects);
    }
    for (int k = 0; k < num_sims; ++k)
        if (ln[k] >= 2)
            printf("log-log slope of ms/step against contacts, %s%s, %d bin scenes: %.2f\n",
                   k < o.mujoco ? "MuJoCo" : "lucid", k < o.mujoco ? "" : o.name[k - o.mujoco],
                   ln[k], loglog_slope(lx[k], ly[k], ln[k]));
    return 0;
}
