/* The robot scenes that bench_robot_step and bench_step_derivatives load into lucid and into
 * MuJoCo 2.2.2 from the same file, and the helpers both use: CPU time, a file test, the
 * Allegro file's path, a lucid world holding a compiled model with its controls set, and
 * settling each side for the same time with the same controls. Include after mujoco_api.h. */
#ifndef LUCID_TESTS_ROBOT_SCENE_H
#define LUCID_TESTS_ROBOT_SCENE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mujoco_api.h"
#include "runtime/model/model.h"
#include "runtime/model/model_load.h"
#include "runtime/world/world.h"

typedef struct robot_scene {
    const char *name;
    const char *path;
    double ctrl[32]; /* by actuator index; the rest 0 */
    int nctrl;
} robot_scene;

/* CPU time of this process, s (timings are not disturbed by other processes' load). */
static inline double robot_scene_cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline int robot_scene_readable(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

/* The Allegro hand with its cube: $LUCID_SHARED_DIR/data/robots/allegro_cube.xml, else
 * ../shared next to the source tree. */
static inline void robot_scene_allegro_path(char *buf, size_t n) {
    const char *shared = getenv("LUCID_SHARED_DIR");
    snprintf(buf, n, "%s/data/robots/allegro_cube.xml",
             shared ? shared : LUCID_SOURCE_DIR "/../shared");
}

/* The Allegro scene closing on its cube: joints 1-3 of each finger and the thumb to 1.2 rad,
 * the thumb base to 1.3 (the file's grasp recipe). */
static inline robot_scene robot_scene_allegro(const char *path) {
    robot_scene sc = {"allegro+cube",
                      path,
                      {0, 1.2, 1.2, 1.2, 0, 1.2, 1.2, 1.2, 0, 1.2, 1.2, 1.2, 1.3, 1.2, 1.2, 1.2},
                      16};
    return sc;
}

/* A lucid world holding sc's model with its controls, its options the defaults but dt and
 * gravity from the file and, when o is not NULL, the contact options o->contact (tol, solver):
 * *w, *m and *id on success (1); 0 with a message on stderr. The caller destroys w then m. */
static inline int robot_scene_lucid(const robot_scene *sc, const lucid_world_options *o,
                                    lucid_world **w, lucid_model **m, int *id) {
    char err[512];
    lucid_model_spec *spec = NULL;
    *w = NULL, *m = NULL;
    if (lucid_model_spec_load(sc->path, NULL, &spec, err, sizeof err) != LUCID_OK) {
        fprintf(stderr, "%s: %s\n", sc->name, err);
        return 0;
    }
    lucid_status s = lucid_model_compile(spec, m, err, sizeof err);
    lucid_model_spec_destroy(spec);
    if (s != LUCID_OK) {
        fprintf(stderr, "%s: %s\n", sc->name, err);
        return 0;
    }
    lucid_world_options wo;
    lucid_world_default_options(&wo);
    if (o) wo.contact = o->contact;
    wo.dt = lucid_model_timestep(*m);
    wo.gravity = lucid_model_gravity(*m);
    lucid_world_model_desc d;
    lucid_world_model_desc_default(&d);
    double u[32] = {0};
    memcpy(u, sc->ctrl, sizeof(double) * (size_t)sc->nctrl);
    if (lucid_world_create(&wo, w) != LUCID_OK || lucid_world_add_model(*w, *m, &d, id, NULL) ||
        lucid_world_model_set_control(*w, *id, u, NULL)) {
        fprintf(stderr, "%s: cannot make the world\n", sc->name);
        lucid_world_destroy(*w);
        lucid_model_destroy(*m);
        *w = NULL, *m = NULL;
        return 0;
    }
    return 1;
}

/* Steps w for `seconds` (its controls as set); 0 with a message when a step fails. */
static inline int robot_scene_settle_lucid(const char *name, lucid_world *w, double seconds) {
    double dt = lucid_world_get_options(w)->dt;
    for (int k = 0; k < (int)(seconds / dt); ++k)
        if (lucid_world_step(w) != LUCID_OK) {
            fprintf(stderr, "%s: %s\n", name, lucid_world_last_error(w));
            return 0;
        }
    return 1;
}

/* MuJoCo's model and data of sc with sc's controls, settled for `seconds`: 1, or 0 with a
 * message. The caller deletes d then m. */
static inline int robot_scene_mujoco(const mujoco_api *api, const robot_scene *sc, double seconds,
                                     mjModel **m, mjData **d) {
    char err[512] = "";
    *m = api->load_xml(sc->path, NULL, err, sizeof err);
    if (!*m) {
        fprintf(stderr, "%s: MuJoCo: %s\n", sc->name, err);
        return 0;
    }
    *d = api->make_data(*m);
    for (int a = 0; a < (*m)->nu && a < sc->nctrl; ++a) (*d)->ctrl[a] = sc->ctrl[a];
    for (int k = 0; k < (int)(seconds / (*m)->opt.timestep); ++k) api->step(*m, *d);
    return 1;
}

#endif
