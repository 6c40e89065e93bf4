/* One contact step of a robot in lucid's world against MuJoCo 2.2.2's mj_step, both reading
 * the same file: MuJoCo's humanoid lying on its floor (controls 0), the Allegro hand closing on
 * its cube (../shared/data/robots/allegro_cube.xml, the file's grasp recipe) and lucid's 7-joint
 * arm pressing a box (tasks/models/arm7.xml). Each side starts from the file's configuration,
 * settles for `--settle` seconds with the same controls, then `--steps` steps are timed (CPU
 * time of this process, best of `--repeats` runs from the settled state). lucid runs twice,
 * its robot island forced onto the dense path (Delassus matrix, sparse_threshold huge) and
 * into body space (the model's slot of nv columns, sparse_threshold 0). Printed per model:
 * ms per step and lucid's post-step NCP residual (the world's stats.residual, N and m/s^2) for
 * each path, contacts per step (lucid: its contact points and joint-limit contacts; MuJoCo:
 * d->ncon plus its active limit rows), and lucid/MuJoCo for each path. MuJoCo's own residual
 * is not computed here (its contacts are soft: its solver's residual is not the NCP's).
 *
 *   OPENBLAS_NUM_THREADS=1 build/tests/bench/bench_robot_step [--steps N] [--settle S]
 *                                        [--repeats R] [--solver MODEL:SOLVER (the world's
 * default)]
 *                                        [--scene NAME (one of the three; all by default)]
 *                                        [--path dense|body (both by default)]
 * MuJoCo is dlopen'ed (tests/bench/mujoco_api.h); without it only lucid's column is printed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mujoco_api.h"
#include "runtime/model/model.h"
#include "runtime/model/model_load.h"
#include "runtime/world/world.h"

typedef struct scene {
    const char *name;
    const char *path;
    double ctrl[32]; /* by actuator index; the rest 0 */
    int nctrl;
} scene;

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int readable(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

typedef struct result {
    double ms, contacts, residual;
} result;

/* The contact model and solver, and the island size above which the body-space path is taken
 * (-1: the automatic choice, 0: always, BIG: never). */
typedef struct lucid_setup {
    lucid_contact_model model;
    lucid_contact_solver solver;
    int sparse_threshold;
} lucid_setup;
#define BIG 1000000000

static int run_lucid(const scene *sc, const lucid_setup *su, double settle, int steps, int repeats,
                     result *r) {
    char err[512];
    lucid_model_spec *spec = NULL;
    if (lucid_model_spec_load(sc->path, NULL, &spec, err, sizeof err) != LUCID_OK) {
        fprintf(stderr, "%s: %s\n", sc->name, err);
        return 0;
    }
    lucid_model *m = NULL;
    lucid_status s = lucid_model_compile(spec, &m, err, sizeof err);
    lucid_model_spec_destroy(spec);
    if (s != LUCID_OK) {
        fprintf(stderr, "%s: %s\n", sc->name, err);
        return 0;
    }
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = lucid_model_timestep(m);
    o.gravity = lucid_model_gravity(m);
    o.contact.model = su->model, o.contact.solver = su->solver;
    o.sparse_threshold = su->sparse_threshold;
    lucid_world *w = NULL;
    lucid_world_model_desc d;
    lucid_world_model_desc_default(&d);
    int id;
    if (lucid_world_create(&o, &w) != LUCID_OK || lucid_world_add_model(w, m, &d, &id, NULL)) {
        fprintf(stderr, "%s: cannot make the world\n", sc->name);
        return 0;
    }
    double u[32] = {0};
    memcpy(u, sc->ctrl, sizeof(double) * (size_t)sc->nctrl);
    lucid_world_model_set_control(w, id, u, NULL);
    for (int k = 0; k < (int)(settle / o.dt); ++k)
        if (lucid_world_step(w) != LUCID_OK) {
            fprintf(stderr, "%s: %s\n", sc->name, lucid_world_last_error(w));
            return 0;
        }
    int n = lucid_world_state_size(w);
    double *x = malloc(sizeof(double) * (size_t)n);
    lucid_world_get_state(w, x);
    r->ms = INFINITY;
    for (int rep = 0; rep < repeats; ++rep) {
        lucid_world_set_state(w, x, NULL);
        double contacts = 0, residual = 0, t0 = cpu_seconds();
        for (int k = 0; k < steps; ++k) {
            lucid_world_step(w);
            lucid_world_stats st = lucid_world_last_stats(w);
            contacts += st.contacts;
            residual = fmax(residual, st.residual);
        }
        double ms = 1e3 * (cpu_seconds() - t0) / steps;
        if (ms < r->ms) r->ms = ms, r->contacts = contacts / steps, r->residual = residual;
    }
    free(x);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
    return 1;
}

static int run_mujoco(const mujoco_api *api, const scene *sc, double settle, int steps, int repeats,
                      result *r) {
    char err[512] = "";
    mjModel *m = api->load_xml(sc->path, NULL, err, sizeof err);
    if (!m) {
        fprintf(stderr, "%s: MuJoCo: %s\n", sc->name, err);
        return 0;
    }
    mjData *d = api->make_data(m);
    for (int a = 0; a < m->nu && a < sc->nctrl; ++a) d->ctrl[a] = sc->ctrl[a];
    for (int k = 0; k < (int)(settle / m->opt.timestep); ++k) api->step(m, d);
    /* the settled state: time, positions, velocities, warm start */
    double *qpos = malloc(sizeof(double) * (size_t)(m->nq + 2 * m->nv));
    memcpy(qpos, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(qpos + m->nq, d->qvel, sizeof(double) * (size_t)m->nv);
    memcpy(qpos + m->nq + m->nv, d->qacc_warmstart, sizeof(double) * (size_t)m->nv);
    r->ms = INFINITY;
    for (int rep = 0; rep < repeats; ++rep) {
        memcpy(d->qpos, qpos, sizeof(double) * (size_t)m->nq);
        memcpy(d->qvel, qpos + m->nq, sizeof(double) * (size_t)m->nv);
        memcpy(d->qacc_warmstart, qpos + m->nq + m->nv, sizeof(double) * (size_t)m->nv);
        double contacts = 0, t0 = cpu_seconds();
        for (int k = 0; k < steps; ++k) {
            api->step(m, d);
            contacts += d->ncon;
        }
        double ms = 1e3 * (cpu_seconds() - t0) / steps;
        if (ms < r->ms) r->ms = ms, r->contacts = contacts / steps;
    }
    free(qpos);
    api->delete_data(d);
    api->delete_model(m);
    return 1;
}

int main(int argc, char **argv) {
    int steps = 400, repeats = 3;
    double settle = 1.5;
    const char *only = NULL, *path = NULL;
    lucid_world_options defaults; /* the world's default model and solver unless --solver */
    lucid_world_default_options(&defaults);
    lucid_setup su = {defaults.contact.model, defaults.contact.solver, -1};
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
            steps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--settle") == 0 && i + 1 < argc) {
            settle = atof(argv[++i]);
        } else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
            repeats = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--path") == 0 && i + 1 < argc) {
            path = argv[++i];
        } else if (strcmp(argv[i], "--solver") == 0 && i + 1 < argc) {
            char name[64];
            snprintf(name, sizeof name, "%s", argv[++i]);
            char *colon = strchr(name, ':');
            if (!colon) return fprintf(stderr, "--solver: MODEL:SOLVER, e.g. ccp:newton\n"), 2;
            *colon = '\0';
            if (lucid_contact_model_parse(name, &su.model) != LUCID_OK ||
                lucid_contact_solver_parse(colon + 1, &su.solver) != LUCID_OK)
                return fprintf(stderr, "--solver: unknown %s\n", argv[i]), 2;
        } else {
            fprintf(stderr,
                    "usage: %s [--steps N] [--settle SECONDS] [--repeats R] [--solver M:S] "
                    "[--scene NAME] [--path dense|body]\n",
                    argv[0]);
            return 2;
        }
    }
    if (steps < 1 || repeats < 1 || !(settle >= 0)) {
        fprintf(stderr, "bench_robot_step: steps and repeats must be >= 1, settle >= 0\n");
        return 2;
    }
    const char *shared = getenv("LUCID_SHARED_DIR");
    char allegro[1024];
    snprintf(allegro, sizeof allegro, "%s/data/robots/allegro_cube.xml",
             shared ? shared : LUCID_SOURCE_DIR "/../shared");
    scene scenes[] = {
        {"humanoid", "/usr/share/mujoco/model/humanoid/humanoid.xml", {0}, 0},
        /* joints 1-3 of each finger and the thumb to 1.2 rad, the thumb base to 1.3 */
        {"allegro+cube",
         allegro,
         {0, 1.2, 1.2, 1.2, 0, 1.2, 1.2, 1.2, 0, 1.2, 1.2, 1.2, 1.3, 1.2, 1.2, 1.2},
         16},
        {"arm7+box", LUCID_SOURCE_DIR "/tasks/models/arm7.xml", {0, 1.7, 0, -0.5, 0, 0.9, 0}, 7},
    };
    mujoco_api api;
    memset(&api, 0, sizeof api);
    int have_mujoco = load_mujoco(&api);
    printf(
        "one contact step: lucid (%s:%s) vs MuJoCo %s mj_step; %d steps after %.2g s, best of %d "
        "(CPU ms per step)\n",
        lucid_contact_model_name(su.model), lucid_contact_solver_name(su.solver),
        have_mujoco ? api.version() : "(not found)", steps, settle, repeats);
    printf("lucid's robot island on the dense path (Delassus matrix) and in body space (the "
           "model's slot of nv columns, world_sparse.c); ratio: lucid / MuJoCo\n");
    printf("%-14s %9s %9s %9s %9s %9s %9s %9s %8s %8s\n", "model", "dense ms", "residual",
           "body ms", "residual", "contacts", "MuJoCo ms", "contacts", "dense", "body");
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; ++i) {
        const scene *sc = &scenes[i];
        if (only && strcmp(only, sc->name) != 0) continue;
        if (!readable(sc->path)) {
            printf("%-14s skipped: %s not found\n", sc->name, sc->path);
            continue;
        }
        result a = {NAN, NAN, NAN}, e = {NAN, NAN, NAN}, b = {NAN, NAN, NAN};
        lucid_setup dense = su, body = su;
        dense.sparse_threshold = BIG, body.sparse_threshold = 0;
        int run_dense = !path || strcmp(path, "dense") == 0;
        int run_body = !path || strcmp(path, "body") == 0;
        if (run_dense && !run_lucid(sc, &dense, settle, steps, repeats, &a)) return 1;
        if (run_body && !run_lucid(sc, &body, settle, steps, repeats, &e)) return 1;
        int mj = have_mujoco && run_mujoco(&api, sc, settle, steps, repeats, &b);
        printf("%-14s %9.4f %9.2e %9.4f %9.2e %9.1f %9.4f %9.1f %8.2f %8.2f\n", sc->name, a.ms,
               a.residual, e.ms, e.residual, run_body ? e.contacts : a.contacts, mj ? b.ms : NAN,
               mj ? b.contacts : NAN, mj ? a.ms / b.ms : NAN, mj ? e.ms / b.ms : NAN);
    }
    return 0;
}
