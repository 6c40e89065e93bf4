/* Contact solvers on the paper's scenes and on a heap of boxes, and MuJoCo on the same heap.
 *
 *   build/tests/bench/bench_contact [--heap N] [--seconds S] [--quick] [--compare-only]
 * (--quick leaves the heap out of part 1, --compare-only runs part 2 only). Run it with
 * OPENBLAS_NUM_THREADS=1: the problems are small, and OpenBLAS's threads otherwise spend a
 * third of the time yielding on a loaded machine (perf).
 *
 * Part 1 (lucid): every model:solver pair steps each scene at eps_abs = 1e-6 (max 1000
 * iterations a solve), warm started across steps and cold; per pair: time per step,
 * solver iterations per step (the world's retries included: a failed solve is repeated
 * cold, then with the model's PGS, see runtime/world/world_delassus.c), the share of steps
 * whose solve met the tolerance, and the largest NCP criterion of a step.
 * Part 2 (MuJoCo 2.2.2, loaded with dlopen when <mujoco/mujoco.h> was found at build time and
 * libmujoco.so.2.2.2 loads; skipped with a message otherwise): the same heap (same sizes,
 * masses, poses, friction, dt, gravity; elliptic cones, Newton solver, Euler) against lucid's
 * ncp:admm, ccp:newton and ncp:pgs, warm and cold. For both: time per step, largest penetration,
 * energy drift once settled (E(end) - E(middle)), and the NCP criterion (Eq. 15) of the
 * contact forces against the contact velocities after the step, computed the same way for
 * both (lucid_contact_criteria_eval on forces in N and velocities in m/s, no reference
 * velocity). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/math/rng.h"
#include "runtime/world/world.h"
#include "solvers/contact/contact_criteria.h"

#define MU_CUBE 0.4
#define MU_HEAP 0.5

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, lucid_status s) {
    fprintf(stderr, "bench_contact: %s: %s\n", what, lucid_status_string(s));
    exit(1);
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
} contact_sample;

static double ncp_residual(const contact_sample *c, int n, double *scratch) {
    if (n == 0) return 0.0;
    double *lambda = scratch, *sigma = scratch + 3 * n, *g = scratch + 6 * n, *mu = scratch + 9 * n;
    for (int i = 0; i < n; ++i) {
        memcpy(lambda + 3 * i, c[i].lambda, sizeof c[i].lambda);
        memcpy(sigma + 3 * i, c[i].sigma, sizeof c[i].sigma);
        g[3 * i] = g[3 * i + 1] = g[3 * i + 2] = 0.0;
        mu[i] = c[i].mu;
    }
    lucid_contact_problem p = {n, NULL, g, mu, NULL}; /* the criteria read n, mu and g only */
    lucid_contact_criteria out;
    lucid_contact_criteria_eval(&p, LUCID_CRITERION_NCP, lambda, sigma, NULL, &out);
    return out.abs;
}

static lucid_vec3 point_velocity(const lucid_world *w, int id, lucid_vec3 p) {
    double tw[6];
    lucid_se3 pose;
    if (lucid_world_velocity(w, id, tw) != LUCID_OK || lucid_world_pose(w, id, &pose) != LUCID_OK)
        return lucid_vec3_zero();
    lucid_vec3 v = lucid_vec3_load(tw), om = lucid_vec3_load(tw + 3);
    return lucid_vec3_add(v, lucid_vec3_cross(om, lucid_vec3_sub(p, pose.t)));
}

/* Fills samples from the world's contacts (forces of the last step, velocities after it). */
static int lucid_samples(const lucid_world *w, contact_sample *out, int cap, double *penetration) {
    int n = lucid_world_contact_count(w);
    const lucid_world_contact *c = lucid_world_contacts(w);
    if (n > cap) n = cap;
    for (int i = 0; i < n; ++i) {
        lucid_vec3 rel = lucid_vec3_sub(point_velocity(w, c[i].body2, c[i].point),
                                        point_velocity(w, c[i].body1, c[i].point));
        lucid_vec3 local = lucid_mat3_tmul_vec(&c[i].frame, rel);
        lucid_vec3_store(local, out[i].sigma);
        memcpy(out[i].lambda, c[i].force, sizeof c[i].force);
        out[i].mu = c[i].friction;
        *penetration = fmax(*penetration, -c[i].separation);
    }
    return n;
}

/* ---- lucid runs ------------------------------------------------------------------------ */

typedef struct run_result {
    double ms_per_step, iterations_per_step, converged_share, worst_residual;
    double penetration, drift, post_ncp; /* post_ncp: the median over steps with contacts */
    int max_contacts;
} run_result;

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static run_result run_lucid(scene_kind kind, lucid_contact_model model, lucid_contact_solver solver,
                            int warm, int steps, const heap_box *heap, int n_heap) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.contact.model = model;
    o.contact.solver = solver;
    o.contact.tol = 1e-6;
    o.contact.max_iter = 1000;
    o.contact.warm_start = warm;
    lucid_world *w = NULL;
    lucid_status s = lucid_world_create(&o, &w);
    if (s != LUCID_OK) die("world", s);
    int driven = build_scene(w, kind, heap, n_heap);
    enum { CAP = 4096 };
    contact_sample *samples = malloc(sizeof *samples * CAP);
    double *scratch = malloc(sizeof(double) * 10 * CAP), *post = malloc(sizeof(double) * steps);
    run_result r = {0};
    int converged = 0, with_contacts = 0;
    double e_mid = 0.0, seconds = 0.0;
    for (int k = 0; k < steps; ++k) {
        if (driven >= 0)
            lucid_world_apply_force(w, driven, lucid_vec3_make(20.0 * k * o.dt, 0, 0),
                                    lucid_vec3_zero());
        double t0 = now_seconds();
        s = lucid_world_step(w);
        seconds += now_seconds() - t0;
        if (s != LUCID_OK) die("step", s);
        lucid_world_stats st = lucid_world_last_stats(w);
        r.iterations_per_step += st.solver_iterations;
        converged += st.converged;
        r.worst_residual = fmax(r.worst_residual, st.residual);
        if (st.contacts > r.max_contacts) r.max_contacts = st.contacts;
        int n = lucid_samples(w, samples, CAP, &r.penetration);
        if (n > 0) post[with_contacts++] = ncp_residual(samples, n, scratch);
        lucid_world_energy e = lucid_world_energy_of(w);
        if (k == steps / 2) e_mid = e.kinetic + e.potential;
        if (k == steps - 1) r.drift = e.kinetic + e.potential - e_mid;
    }
    qsort(post, (size_t)with_contacts, sizeof *post, compare_doubles);
    r.post_ncp = with_contacts ? post[with_contacts / 2] : 0.0;
    r.ms_per_step = 1e3 * seconds / steps;
    r.iterations_per_step /= steps;
    r.converged_share = (double)converged / steps;
    free(samples);
    free(scratch);
    free(post);
    lucid_world_destroy(w);
    return r;
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

static void print_header(void) {
    printf("%-18s %-17s %-4s %9s %9s %6s %10s %10s\n", "scene", "model:solver", "ws", "ms/step",
           "iter/step", "conv", "worst NCP", "max pen");
}

static void print_row(const char *scene, int pair, int warm, const run_result *r) {
    char name[32];
    snprintf(name, sizeof name, "%s:%s", lucid_contact_model_name(pairs[pair].model),
             lucid_contact_solver_name(pairs[pair].solver));
    printf("%-18s %-17s %-4s %9.3f %9.1f %5.0f%% %10.2e %10.2e\n", scene, name,
           warm ? "warm" : "cold", r->ms_per_step, r->iterations_per_step,
           100.0 * r->converged_share, r->worst_residual, r->penetration);
    fflush(stdout);
}

/* ---- MuJoCo ------------------------------------------------------------------------------ */

#if defined(__has_include)
#if __has_include(<mujoco/mujoco.h>) && __has_include(<dlfcn.h>)
#define HAVE_MUJOCO_HEADER 1
#endif
#endif

#ifdef HAVE_MUJOCO_HEADER
#include <dlfcn.h>
#include <mujoco/mujoco.h>

typedef struct mujoco_api {
    void *lib;
    mjModel *(*load_xml)(const char *, const mjVFS *, char *, int);
    mjData *(*make_data)(const mjModel *);
    void (*step)(const mjModel *, mjData *);
    void (*forward)(const mjModel *, mjData *);
    void (*delete_data)(mjData *);
    void (*delete_model)(mjModel *);
    void (*contact_force)(const mjModel *, const mjData *, int, mjtNum *);
    void (*energy_pos)(const mjModel *, mjData *);
    void (*energy_vel)(const mjModel *, mjData *);
    const char *(*version)(void);
} mujoco_api;

/* dlsym returns an object pointer; POSIX guarantees it converts to a function pointer. */
#define LOAD(field, name)                                                                          \
    do {                                                                                           \
        void *sym = dlsym(api->lib, name);                                                         \
        if (!sym) return 0;                                                                        \
        memcpy(&api->field, &sym, sizeof sym);                                                     \
    } while (0)

static int load_mujoco(mujoco_api *api) {
    api->lib = dlopen("libmujoco.so.2.2.2", RTLD_NOW);
    if (!api->lib) api->lib = dlopen("libmujoco.so", RTLD_NOW);
    if (!api->lib) return 0;
    LOAD(load_xml, "mj_loadXML");
    LOAD(make_data, "mj_makeData");
    LOAD(step, "mj_step");
    LOAD(forward, "mj_forward");
    LOAD(delete_data, "mj_deleteData");
    LOAD(delete_model, "mj_deleteModel");
    LOAD(contact_force, "mj_contactForce");
    LOAD(energy_pos, "mj_energyPos");
    LOAD(energy_vel, "mj_energyVel");
    LOAD(version, "mj_versionString");
    return 1;
}

/* The heap as MJCF: a free body per box (geom at the body origin, mass given, so the centre of
 * mass is the box centre as in lucid), the same ground, dt, gravity and friction. */
static int write_mjcf(const char *path, const heap_box *heap, int n, double dt) {
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fprintf(f,
            "<mujoco model=\"heap\">\n"
            "  <option timestep=\"%.17g\" gravity=\"0 0 -9.81\" integrator=\"Euler\" "
            "cone=\"elliptic\" solver=\"Newton\" jacobian=\"auto\">\n"
            "    <flag energy=\"enable\"/>\n"
            "  </option>\n"
            "  <size nconmax=\"4000\" njmax=\"12000\"/>\n"
            "  <worldbody>\n"
            "    <geom type=\"plane\" size=\"0 0 1\" friction=\"%g 0.005 0.0001\" condim=\"3\"/>\n",
            dt, MU_HEAP);
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

/* Velocity of a world point on a MuJoCo body (free joint: qvel linear in world, angular in the
 * body frame; the body origin is the centre of mass here). */
static lucid_vec3 mj_point_velocity(const mjModel *m, const mjData *d, int body, lucid_vec3 p) {
    if (body == 0) return lucid_vec3_zero();
    int dof = m->jnt_dofadr[m->body_jntadr[body]];
    const mjtNum *R = d->xmat + 9 * body, *qv = d->qvel + dof;
    lucid_vec3 w = lucid_vec3_make(R[0] * qv[3] + R[1] * qv[4] + R[2] * qv[5],
                                   R[3] * qv[3] + R[4] * qv[4] + R[5] * qv[5],
                                   R[6] * qv[3] + R[7] * qv[4] + R[8] * qv[5]);
    lucid_vec3 x = lucid_vec3_make(d->xpos[3 * body], d->xpos[3 * body + 1], d->xpos[3 * body + 2]);
    return lucid_vec3_add(lucid_vec3_make(qv[0], qv[1], qv[2]),
                          lucid_vec3_cross(w, lucid_vec3_sub(p, x)));
}

/* Samples MuJoCo's contacts of the step just taken: forces from mj_contactForce (normal first
 * in MuJoCo's frame), velocities after the step (xpos/xmat refreshed by mj_forward on a copy
 * would cost a step: the positions are those the contacts were found at, as in lucid). */
static int mujoco_samples(const mujoco_api *api, const mjModel *m, const mjData *d,
                          contact_sample *out, int cap, double *penetration) {
    int n = 0;
    for (int i = 0; i < d->ncon && n < cap; ++i) {
        const mjContact *c = &d->contact[i];
        if (c->efc_address < 0) continue;
        mjtNum f[6];
        api->contact_force(m, d, i, f);
        lucid_vec3 p = lucid_vec3_make(c->pos[0], c->pos[1], c->pos[2]);
        int b1 = m->geom_bodyid[c->geom1], b2 = m->geom_bodyid[c->geom2];
        lucid_vec3 rel =
            lucid_vec3_sub(mj_point_velocity(m, d, b2, p), mj_point_velocity(m, d, b1, p));
        const mjtNum *F = c->frame; /* rows: normal, t1, t2 */
        for (int k = 0; k < 3; ++k) {
            int row = k == 2 ? 0 : k + 1;
            out[n].sigma[k] = F[3 * row] * rel.x + F[3 * row + 1] * rel.y + F[3 * row + 2] * rel.z;
        }
        out[n].lambda[0] = f[1];
        out[n].lambda[1] = f[2];
        out[n].lambda[2] = f[0];
        out[n].mu = c->friction[0];
        *penetration = fmax(*penetration, -c->dist);
        ++n;
    }
    return n;
}

static int run_mujoco(const heap_box *heap, int n_heap, int steps, double dt, run_result *r) {
    mujoco_api api;
    if (!load_mujoco(&api)) {
        printf("MuJoCo: libmujoco.so.2.2.2 not loadable (%s): skipped\n", dlerror());
        return 0;
    }
    char path[] = "/tmp/lucid_bench_heap_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || !write_mjcf(path, heap, n_heap, dt)) {
        printf("MuJoCo: cannot write the MJCF: skipped\n");
        return 0;
    }
    char error[1000] = "";
    mjModel *m = api.load_xml(path, NULL, error, sizeof error);
    remove(path);
    if (!m) {
        printf("MuJoCo: %s: skipped\n", error);
        return 0;
    }
    mjData *d = api.make_data(m);
    enum { CAP = 4096 };
    contact_sample *samples = malloc(sizeof *samples * CAP);
    double *scratch = malloc(sizeof(double) * 10 * CAP), *post = malloc(sizeof(double) * steps);
    memset(r, 0, sizeof *r);
    int with_contacts = 0;
    double e_mid = 0.0, seconds = 0.0;
    for (int k = 0; k < steps; ++k) {
        double t0 = now_seconds();
        api.step(m, d);
        seconds += now_seconds() - t0;
        int n = mujoco_samples(&api, m, d, samples, CAP, &r->penetration);
        if (n > r->max_contacts) r->max_contacts = n;
        if (n > 0) post[with_contacts++] = ncp_residual(samples, n, scratch);
        if (k == steps / 2 || k == steps - 1) {
            api.energy_pos(m, d);
            api.energy_vel(m, d);
            double e = d->energy[0] + d->energy[1];
            if (k == steps / 2)
                e_mid = e;
            else
                r->drift = e - e_mid;
        }
        r->iterations_per_step += d->solver_iter;
    }
    qsort(post, (size_t)with_contacts, sizeof *post, compare_doubles);
    r->post_ncp = with_contacts ? post[with_contacts / 2] : 0.0;
    r->ms_per_step = 1e3 * seconds / steps;
    r->iterations_per_step /= steps;
    r->converged_share = NAN;
    r->worst_residual = NAN;
    printf("MuJoCo %s loaded\n", api.version());
    free(samples);
    free(scratch);
    free(post);
    api.delete_data(d);
    api.delete_model(m);
    return 1;
}
#endif

static void print_comparison(const char *name, const run_result *r, double mujoco_ms) {
    printf("%-26s %9.3f %9.2f %8.1f %10.2e %11.2e %12.2e %6d\n", name, r->ms_per_step,
           mujoco_ms > 0 ? r->ms_per_step / mujoco_ms : NAN, r->iterations_per_step, r->penetration,
           r->drift, r->post_ncp, r->max_contacts);
}

int main(int argc, char **argv) {
    int n_heap = 64, quick = 0, compare_only = 0;
    double heap_seconds = 1.0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--heap") && i + 1 < argc)
            n_heap = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            heap_seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--compare-only"))
            compare_only = 1;
        else {
            fprintf(stderr, "usage: %s [--heap N] [--seconds S] [--quick] [--compare-only]\n",
                    argv[0]);
            return 2;
        }
    }
    if (n_heap < 1 || n_heap > 1000 || !(heap_seconds > 0)) {
        fprintf(stderr, "bench_contact: --heap in [1, 1000], --seconds > 0\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    heap_box *heap = malloc(sizeof *heap * (size_t)n_heap);
    make_heap(heap, n_heap, 1);
    const double dt = 1e-3;
    /* the stack is short: its solves hit the iteration cap (3 attempts of 1000) every step */
    const int scene_steps[] = {500, 500, 20, 300, (int)(heap_seconds / dt + 0.5)};

    if (!compare_only)
        printf("Part 1: lucid, eps_abs = 1e-6, at most 1000 iterations a solve, dt = 1 ms\n");
    if (!compare_only) print_header();
    for (int kind = SLIDE; kind <= HEAP && !compare_only; ++kind) {
        if (quick && kind == HEAP) continue;
        for (int p = 0; p < NUM_PAIRS; ++p)
            for (int warm = 1; warm >= 0; --warm) {
                run_result r = run_lucid((scene_kind)kind, pairs[p].model, pairs[p].solver, warm,
                                         scene_steps[kind], heap, n_heap);
                print_row(kind == HEAP ? "heap" : scene_names[kind], p, warm, &r);
            }
    }

    int steps = scene_steps[HEAP];
    printf("\nPart 2: heap of %d boxes, %d steps of 1 ms, lucid vs MuJoCo\n", n_heap, steps);
    double mujoco_ms = -1.0;
    run_result mj = {0};
#ifdef HAVE_MUJOCO_HEADER
    if (run_mujoco(heap, n_heap, steps, dt, &mj)) mujoco_ms = mj.ms_per_step;
#else
    printf("MuJoCo: <mujoco/mujoco.h> not found at build time (apt-get install libmujoco-dev): "
           "skipped\n");
#endif
    printf("%-26s %9s %9s %8s %10s %11s %12s %6s\n", "simulator", "ms/step", "/MuJoCo", "iter",
           "max pen", "drift (J)", "post NCP eps", "max nc");
    if (mujoco_ms > 0) print_comparison("mujoco newton", &mj, mujoco_ms);
    /* ncp:admm, ccp:newton, ncp:pgs (staggered projections are left out: inner ADMM solves
     * make them the slowest on the heap by far), warm then cold */
    const int compared[] = {0, 4, 2};
    for (int c = 0; c < 3; ++c)
        for (int warm = 1; warm >= 0; --warm) {
            int p = compared[c];
            run_result r =
                run_lucid(HEAP, pairs[p].model, pairs[p].solver, warm, steps, heap, n_heap);
            char name[48];
            snprintf(name, sizeof name, "lucid %s:%s %s", lucid_contact_model_name(pairs[p].model),
                     lucid_contact_solver_name(pairs[p].solver), warm ? "warm" : "cold");
            print_comparison(name, &r, mujoco_ms);
        }
    free(heap);
    return 0;
}
