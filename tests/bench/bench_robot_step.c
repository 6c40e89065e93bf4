/* One contact step of a robot in lucid's world against MuJoCo 2.2.2's mj_step, both reading
 * the same file: MuJoCo's humanoid lying on its floor (controls 0), the Allegro hand closing on
 * its cube (../shared/data/robots/allegro_cube.xml, the file's grasp recipe) and lucid's 7-joint
 * arm pressing a box (tasks/models/arm7.xml). Each side starts from the file's configuration,
 * settles for `--settle` seconds with the same controls, then `--steps` steps are timed (CPU
 * time of this process, best of `--repeats` runs from the settled state). Printed per model:
 * ms per step, contacts per step (lucid: its contact points and joint-limit contacts; MuJoCo:
 * d->ncon plus its active limit rows), lucid's post-step NCP residual (the world's
 * stats.residual, N and m/s^2), and lucid/MuJoCo. MuJoCo's own residual is not computed here
 * (its contacts are soft: its solver's residual is not the NCP's).
 *
 *   OPENBLAS_NUM_THREADS=1 build/tests/bench/bench_robot_step [--steps N] [--settle S]
 *                                                                [--repeats R]
 * MuJoCo is dlopen'ed (tests/bench/mujoco_api.h); without it only lucid's column is printed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mujoco_api.h"
#include "robot_scene.h"

typedef struct result {
    double ms, contacts, residual;
} result;

static int run_lucid(const robot_scene *sc, double settle, int steps, int repeats, result *r) {
    lucid_world *w;
    lucid_model *m;
    int id;
    if (!robot_scene_lucid(sc, NULL, &w, &m, &id)) return 0;
    if (!robot_scene_settle_lucid(sc->name, w, settle)) return 0;
    int n = lucid_world_state_size(w);
    double *x = malloc(sizeof(double) * (size_t)n);
    lucid_world_get_state(w, x);
    r->ms = INFINITY;
    for (int rep = 0; rep < repeats; ++rep) {
        lucid_world_set_state(w, x, NULL);
        double contacts = 0, residual = 0, t0 = robot_scene_cpu_seconds();
        for (int k = 0; k < steps; ++k) {
            lucid_world_step(w);
            lucid_world_stats st = lucid_world_last_stats(w);
            contacts += st.contacts;
            residual = fmax(residual, st.residual);
        }
        double ms = 1e3 * (robot_scene_cpu_seconds() - t0) / steps;
        if (ms < r->ms) r->ms = ms, r->contacts = contacts / steps, r->residual = residual;
    }
    free(x);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
    return 1;
}

static int run_mujoco(const mujoco_api *api, const robot_scene *sc, double settle, int steps,
                      int repeats, result *r) {
    mjModel *m;
    mjData *d;
    if (!robot_scene_mujoco(api, sc, settle, &m, &d)) return 0;
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
        double contacts = 0, t0 = robot_scene_cpu_seconds();
        for (int k = 0; k < steps; ++k) {
            api->step(m, d);
            contacts += d->ncon;
        }
        double ms = 1e3 * (robot_scene_cpu_seconds() - t0) / steps;
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
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
            steps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--settle") == 0 && i + 1 < argc) {
            settle = atof(argv[++i]);
        } else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
            repeats = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--steps N] [--settle SECONDS] [--repeats R]\n", argv[0]);
            return 2;
        }
    }
    if (steps < 1 || repeats < 1 || !(settle >= 0)) {
        fprintf(stderr, "bench_robot_step: steps and repeats must be >= 1, settle >= 0\n");
        return 2;
    }
    char allegro[1024];
    robot_scene_allegro_path(allegro, sizeof allegro);
    robot_scene scenes[] = {
        {"humanoid", "/usr/share/mujoco/model/humanoid/humanoid.xml", {0}, 0},
        robot_scene_allegro(allegro),
        {"arm7+box", LUCID_SOURCE_DIR "/tasks/models/arm7.xml", {0, 1.7, 0, -0.5, 0, 0.9, 0}, 7},
    };
    mujoco_api api;
    memset(&api, 0, sizeof api);
    int have_mujoco = load_mujoco(&api);
    printf(
        "one contact step: lucid (default ncp:admm) vs MuJoCo %s mj_step; %d steps after %.2g s, "
        "best of %d (CPU ms per step)\n",
        have_mujoco ? api.version() : "(not found)", steps, settle, repeats);
    printf("%-14s %10s %9s %12s %10s %9s %8s\n", "model", "lucid ms", "contacts", "NCP residual",
           "MuJoCo ms", "contacts", "ratio");
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; ++i) {
        const robot_scene *sc = &scenes[i];
        if (!robot_scene_readable(sc->path)) {
            printf("%-14s skipped: %s not found\n", sc->name, sc->path);
            continue;
        }
        result a = {0}, b = {NAN, NAN, NAN};
        if (!run_lucid(sc, settle, steps, repeats, &a)) return 1;
        int mj = have_mujoco && run_mujoco(&api, sc, settle, steps, repeats, &b);
        printf("%-14s %10.4f %9.1f %12.2e %10.4f %9.1f %8.2f\n", sc->name, a.ms, a.contacts,
               a.residual, mj ? b.ms : NAN, mj ? b.contacts : NAN, mj ? a.ms / b.ms : NAN);
    }
    return 0;
}
