/* The integrator's Jacobian D = dx+/dp of the step derivatives (runtime/world/step_derivatives.c,
 * velocity_jacobian): lucid_world_integrate_jacobians (the exp/log Jacobians on SE(3) and the
 * joint manifolds) against the baseline it replaced in the same run, central differences of
 * lucid_world_step_integrate (two whole integrations, forward kinematics included, per column
 * of p), on the settled humanoid and the Allegro hand with its cube. Prints both CPU times
 * (best of N), their ratio and max|D_fd - D| / max|D|.
 *
 *   bench_integrate_jacobians [--scene humanoid|allegro] [--repeats N] [--settle S]
 *
 * MuJoCo's humanoid is read from /usr/share/mujoco (libmujoco-dev), the Allegro scene from
 * $LUCID_SHARED_DIR (or ../shared); a missing scene is reported and skipped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot_scene.h"
#include "runtime/world/world_internal.h"

typedef struct {
    lucid_world *w;
    int nt, np;
    double *x0, *x1, *xs, *p0, *p, *dp, *dm, *D;
} bench;

/* The replaced velocity_jacobian: D by central differences of lucid_world_step_integrate. */
static lucid_status fd_jacobian(bench *b) {
    double scale = 1.0;
    for (int j = 0; j < b->np; ++j) scale = fmax(scale, fabs(b->p0[j]));
    double h = 1e-6 * scale;
    for (int j = 0; j < b->np; ++j) {
        for (int side = 0; side < 2; ++side) {
            lucid_status s = lucid_world_set_state(b->w, b->x0, NULL);
            if (s != LUCID_OK) return s;
            memcpy(b->p, b->p0, (size_t)b->np * sizeof(double));
            b->p[j] += side ? -h : h;
            lucid_world_set_post_velocity(b->w, b->p);
            s = lucid_world_step_integrate(b->w);
            if (s == LUCID_OK) lucid_world_get_state(b->w, b->xs);
            if (s == LUCID_OK)
                s = lucid_world_state_difference(b->w, b->x1, b->xs, side ? b->dm : b->dp);
            if (s != LUCID_OK) return s;
        }
        for (int r = 0; r < b->nt; ++r)
            b->D[r + (size_t)b->nt * j] = (b->dp[r] - b->dm[r]) / (2 * h);
    }
    return LUCID_OK;
}

static int run(const robot_scene *sc, int repeats, double settle) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    lucid_world *w = NULL;
    lucid_model *m = NULL;
    int id;
    if (!robot_scene_readable(sc->path)) {
        printf("%-13s skipped: %s not found\n", sc->name, sc->path);
        return 1;
    }
    if (!robot_scene_lucid(sc, &o, &w, &m, &id) || !robot_scene_settle_lucid(sc->name, w, settle))
        return 0;
    bench b = {.w = w, .nt = lucid_world_tangent_size(w)};
    b.np = b.nt / 2;
    size_t nx = (size_t)lucid_world_state_size(w), nt = (size_t)b.nt, np = (size_t)b.np;
    b.x0 = malloc(nx * sizeof(double)), b.x1 = malloc(nx * sizeof(double));
    b.xs = malloc(nx * sizeof(double));
    b.p0 = malloc(np * sizeof(double)), b.p = malloc(np * sizeof(double));
    b.dp = malloc(nt * sizeof(double)), b.dm = malloc(nt * sizeof(double));
    b.D = malloc(nt * np * sizeof(double));
    double *D = malloc(nt * np * sizeof(double)), *Dq = malloc(nt * np * sizeof(double));
    int ok = b.x0 && b.x1 && b.xs && b.p0 && b.p && b.dp && b.dm && b.D && D && Dq, contacts = 0;
    if (ok) {
        lucid_world_get_state(w, b.x0);
        ok = lucid_world_step(w) == LUCID_OK;
        contacts = lucid_world_contact_count(w); /* set_state empties the list below */
        lucid_world_get_state(w, b.x1);
        lucid_world_post_velocity(w, b.p0);
    }
    double fd = INFINITY, an = INFINITY, both = INFINITY;
    for (int k = 0; ok && k < repeats; ++k) {
        double t0 = robot_scene_cpu_seconds();
        ok = fd_jacobian(&b) == LUCID_OK;
        double t1 = robot_scene_cpu_seconds();
        lucid_world_integrate_jacobians(w, b.x0, b.p0, NULL, D);
        double t2 = robot_scene_cpu_seconds();
        lucid_world_integrate_jacobians(w, b.x0, b.p0, Dq, D);
        double t3 = robot_scene_cpu_seconds();
        fd = fmin(fd, t1 - t0), an = fmin(an, t2 - t1), both = fmin(both, t3 - t2);
    }
    if (ok) {
        double e = 0.0, mx = 0.0;
        for (size_t k = 0; k < nt * np; ++k)
            e = fmax(e, fabs(b.D[k] - D[k])), mx = fmax(mx, fabs(D[k]));
        printf("%-13s %4d %4d %12.2f %12.2f %12.2f %8.1fx %11.2e\n", sc->name, b.nt, contacts,
               1e6 * fd, 1e6 * an, 1e6 * both, fd / an, e / mx);
    }
    free(b.x0), free(b.x1), free(b.xs), free(b.p0), free(b.p), free(b.dp), free(b.dm);
    free(b.D), free(D), free(Dq);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
    return ok;
}

int main(int argc, char **argv) {
    const char *only = NULL;
    int repeats = 200;
    double settle = 2.0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else if (strcmp(argv[i], "--settle") == 0 && i + 1 < argc)
            settle = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--scene humanoid|allegro] [--repeats N] [--settle S]\n",
                    argv[0]);
            return 2;
        }
    }
    if (repeats < 1 || !(settle >= 0.0)) return 2;
    char allegro[1024];
    robot_scene_allegro_path(allegro, sizeof allegro);
    struct {
        const char *which;
        robot_scene sc;
    } scenes[] = {
        {"humanoid", {"humanoid", "/usr/share/mujoco/model/humanoid/humanoid.xml", {0}, 0}},
        {"allegro", robot_scene_allegro(allegro)}};
    printf("D = dx+/dp of the step's integration: central differences of "
           "lucid_world_step_integrate (baseline) vs lucid_world_integrate_jacobians; CPU us, "
           "best of %d, after %g s settled\n",
           repeats, settle);
    printf("%-13s %4s %4s %12s %12s %12s %9s %11s\n", "scene", "nt", "cont", "FD us", "analytic us",
           "+Dq us", "FD/anal", "max|dD|/|D|");
    int status = 0;
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; ++i)
        if (!only || strcmp(only, scenes[i].which) == 0)
            if (!run(&scenes[i].sc, repeats, settle)) status = 1;
    return status;
}
