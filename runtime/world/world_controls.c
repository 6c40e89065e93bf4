/* The controls vector: every model's actuator inputs (none yet), then every free body's
 * applied wrench (force, torque; world frame), in id order. */
#include <math.h>

#include "runtime/world/world_internal.h"

int lucid_world_controls_size(const lucid_world *w) {
    int n = 0;
    for (int i = 0; i < w->num_bodies; ++i) n += w->bodies[i].is_static ? 0 : 6;
    return n;
}

void lucid_world_get_controls(const lucid_world *w, double *u) {
    for (int i = 0; i < w->num_bodies; ++i) {
        const lucid_body *b = &w->bodies[i];
        if (b->is_static) continue;
        lucid_vec3_store(b->force, u);
        lucid_vec3_store(b->torque, u + 3);
        u += 6;
    }
}

lucid_status lucid_world_set_controls(lucid_world *w, const double *u) {
    int n = lucid_world_controls_size(w);
    for (int k = 0; k < n; ++k)
        if (!isfinite(u[k])) return LUCID_ERR_NONFINITE;
    for (int i = 0; i < w->num_bodies; ++i) {
        lucid_body *b = &w->bodies[i];
        if (b->is_static) continue;
        b->force = lucid_vec3_load(u);
        b->torque = lucid_vec3_load(u + 3);
        u += 6;
    }
    return LUCID_OK;
}
