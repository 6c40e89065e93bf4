/* The controls vector: every model's actuator inputs (in model order; with act_inputs each
 * model's activations after them), then every free body's applied wrench (force, torque; world
 * frame), in id order. */
#include <math.h>
#include <string.h>

#include "runtime/model/model.h"
#include "runtime/world/world_internal.h"

/* A body whose wrench is a control: a free body (not static, not a model's link). */
static int has_wrench(const lucid_body *b) {
    return !b->is_static && b->model < 0;
}

int lucid_world_controls_size(const lucid_world *w) {
    int n = 0;
    for (int i = 0; i < w->num_models; ++i) n += (int)lucid_world_model_inputs(w, i);
    for (int i = 0; i < w->num_bodies; ++i) n += has_wrench(&w->bodies[i]) ? 6 : 0;
    return n;
}

void lucid_world_get_controls(const lucid_world *w, double *u) {
    for (int i = 0; i < w->num_models; ++i) {
        size_t nu = lucid_model_nu(w->models[i].model);
        size_t na = lucid_world_model_inputs(w, i) - nu;
        if (nu) memcpy(u, w->models[i].u, nu * sizeof(double));
        if (na) memcpy(u + nu, w->models[i].act, na * sizeof(double));
        u += nu + na;
    }
    for (int i = 0; i < w->num_bodies; ++i) {
        const lucid_body *b = &w->bodies[i];
        if (!has_wrench(b)) continue;
        lucid_vec3_store(b->force, u);
        lucid_vec3_store(b->torque, u + 3);
        u += 6;
    }
}

lucid_status lucid_world_set_controls(lucid_world *w, const double *u) {
    int n = lucid_world_controls_size(w);
    for (int k = 0; k < n; ++k)
        if (!isfinite(u[k])) return LUCID_ERR_NONFINITE;
    for (int i = 0; i < w->num_models; ++i) {
        size_t nu = lucid_model_nu(w->models[i].model);
        size_t na = lucid_world_model_inputs(w, i) - nu;
        if (nu) memcpy(w->models[i].u, u, nu * sizeof(double));
        if (na) memcpy(w->models[i].act, u + nu, na * sizeof(double));
        u += nu + na;
    }
    for (int i = 0; i < w->num_bodies; ++i) {
        lucid_body *b = &w->bodies[i];
        if (!has_wrench(b)) continue;
        b->force = lucid_vec3_load(u);
        b->torque = lucid_vec3_load(u + 3);
        u += 6;
    }
    return LUCID_OK;
}
