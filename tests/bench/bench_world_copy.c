/* The step derivatives' copy of the world (w->scratch, lucid_world_clone_into): what bringing it
 * up to date costs beside a whole lucid_world_step_derivatives call, and its bytes split into the
 * model and state part (bodies, parts, part contacts, models) and its data's arrays
 * (lucid_world_data at capacity; the solvers' workspaces and the models' data not counted), on
 * MuJoCo's humanoid lying on its floor (settled 2 s) and a pile of 27 boxes (settled 1.5 s).
 * docs/benchmarks/world_data.md.
 *   OPENBLAS_NUM_THREADS=1 build/tests/bench/bench_world_copy [--repeats R] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/model/model.h"
#include "runtime/model/model_load.h"
#include "runtime/world/step_derivatives.h"
#include "runtime/world/world_internal.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The bytes of the data's arrays at their capacities. */
static size_t data_bytes(const lucid_world_data *d) {
    size_t vec = sizeof(lucid_vec3), dbl = sizeof(double), in = sizeof(int);
    return (d->aabb_lo_cap + d->aabb_hi_cap + d->v_free_cap + d->w_free_cap + d->v_start_cap +
            d->w_start_cap) *
               vec +
           d->is_static_cap + d->sweep_cap * dbl + d->contacts_cap * sizeof *d->contacts +
           d->sides_cap * sizeof *d->sides + (d->cache_cap + d->cache_next_cap) * sizeof *d->cache +
           (d->parent_cap + d->label_cap + d->contact_island_cap + d->island_start_cap +
            d->island_contacts_cap) *
               in +
           (d->G_cap + d->g_cap + d->mu_cap + d->R_cap + d->lambda_cap + d->dual_cap +
            d->spare_cap + d->sigma_cap + d->link_J_cap + d->link_Y_cap) *
               dbl +
           d->island_info_cap * sizeof *d->island_info;
}

static size_t model_bytes(const lucid_world *w) {
    return w->bodies_cap * sizeof *w->bodies + w->parts_cap * sizeof *w->parts +
           w->part_contact_cap * sizeof *w->part_contact + w->models_cap * sizeof *w->models;
}

/* Best CPU time of `repeats` derivative calls from w's state, and of as many clone_into calls. */
static int report(const char *name, lucid_world *w, int repeats) {
    size_t nx = (size_t)lucid_world_state_size(w);
    double *x = malloc(nx * sizeof *x), best = 1e30, best_copy = 1e30;
    if (!x) return 0;
    lucid_world_get_state(w, x);
    lucid_step_derivative_options o;
    lucid_step_derivative_default_options(&o);
    for (int r = 0; r < repeats; ++r) {
        lucid_step_jacobians J;
        memset(&J, 0, sizeof J);
        const char *why = NULL;
        lucid_world_set_state(w, x, NULL);
        double t0 = now();
        lucid_status s = lucid_world_step_derivatives(w, &o, &J, &why);
        double t1 = now();
        lucid_step_jacobians_free(&J);
        if (s != LUCID_OK)
            return fprintf(stderr, "%s: %s\n", name, why ? why : "failed"), free(x), 0;
        best = t1 - t0 < best ? t1 - t0 : best;
        t0 = now();
        s = lucid_world_clone_into(w, &w->scratch);
        t1 = now();
        if (s != LUCID_OK) return free(x), 0;
        best_copy = t1 - t0 < best_copy ? t1 - t0 : best_copy;
    }
    const lucid_world *c = w->scratch;
    printf("%-10s %6d %5d %8d %12.1f %11.2f %9.4f%% %12zu %11zu\n", name, c->num_bodies,
           c->num_parts, w->d.num_contacts, 1e6 * best, 1e6 * best_copy, 100.0 * best_copy / best,
           model_bytes(c), data_bytes(&c->d));
    free(x);
    return 1;
}

static int humanoid(int repeats) {
    char err[512];
    lucid_model_spec *spec = NULL;
    lucid_model *m = NULL;
    if (lucid_model_spec_load("/usr/share/mujoco/model/humanoid/humanoid.xml", NULL, &spec, err,
                              sizeof err) != LUCID_OK)
        return fprintf(stderr, "humanoid: %s\n", err), 0;
    lucid_status s = lucid_model_compile(spec, &m, err, sizeof err);
    lucid_model_spec_destroy(spec);
    if (s != LUCID_OK) return fprintf(stderr, "humanoid: %s\n", err), 0;
    lucid_world_options wo;
    lucid_world_default_options(&wo);
    wo.dt = lucid_model_timestep(m), wo.gravity = lucid_model_gravity(m);
    lucid_world_model_desc d;
    lucid_world_model_desc_default(&d);
    lucid_world *w = NULL;
    int id, ok = lucid_world_create(&wo, &w) == LUCID_OK &&
                 lucid_world_add_model(w, m, &d, &id, NULL) == LUCID_OK;
    for (int k = 0; ok && k * wo.dt < 2.0; ++k) ok = lucid_world_step(w) == LUCID_OK;
    ok = ok && report("humanoid", w, repeats);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
    return ok;
}

static int box_pile(int repeats) {
    lucid_world_options wo;
    lucid_world_default_options(&wo);
    wo.dt = 0.005;
    lucid_world *w = NULL;
    if (lucid_world_create(&wo, &w) != LUCID_OK) return 0;
    lucid_body_part ground = {{0}, lucid_se3_identity()}, box = {{0}, lucid_se3_identity()};
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0, &ground.shape);
    lucid_shape_box(0.03, 0.03, 0.03, &box.shape);
    lucid_se3 I = lucid_se3_identity();
    int id, ok = lucid_world_add_static(w, &ground, 1, &I, 0.5, &id, NULL) == LUCID_OK;
    for (int i = 0; ok && i < 27; ++i) { /* 3 layers of 3 x 3, each shifted 1 cm */
        lucid_body_desc d;
        lucid_body_desc_default(&d);
        d.parts = &box, d.num_parts = 1;
        d.pose.t = lucid_vec3_make(0.07 * (i % 3) + 0.01 * (i / 9), 0.07 * (i / 3 % 3),
                                   0.035 + 0.065 * (i / 9));
        ok = lucid_world_add_body(w, &d, &id, NULL) == LUCID_OK;
    }
    for (int k = 0; ok && k < 300; ++k) ok = lucid_world_step(w) == LUCID_OK;
    ok = ok && report("box pile", w, repeats);
    lucid_world_destroy(w);
    return ok;
}

int main(int argc, char **argv) {
    int repeats = 20;
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) repeats = atoi(argv[++i]);
    if (repeats < 1) return fprintf(stderr, "bench_world_copy: --repeats must be >= 1\n"), 1;
    printf("%-10s %6s %5s %8s %12s %11s %10s %12s %11s\n", "scene", "bodies", "parts", "contacts",
           "derivs (us)", "copy (us)", "copy share", "model+state B", "data B");
    return humanoid(repeats) && box_pile(repeats) ? 0 : 1;
}
