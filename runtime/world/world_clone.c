/* lucid_world_clone: an independent copy of a world (for one world per thread). */
#include <stdlib.h>
#include <string.h>

#include "runtime/world/world_internal.h"

lucid_status lucid_world_clone(const lucid_world *w, lucid_world **out) {
    if (!w || !out) return LUCID_ERR_ARGUMENT;
    lucid_world *c;
    lucid_status s = lucid_world_create(&w->opt, &c);
    if (s != LUCID_OK) return s;
    size_t nb = (size_t)w->num_bodies, np = (size_t)w->num_parts;
    s = lucid_world_reserve((void **)&c->bodies, &c->body_cap, nb, sizeof *c->bodies);
    if (s == LUCID_OK)
        s = lucid_world_reserve((void **)&c->parts, &c->part_cap, np, sizeof *c->parts);
    if (s != LUCID_OK) {
        lucid_world_destroy(c);
        return s;
    }
    if (nb) memcpy(c->bodies, w->bodies, nb * sizeof *c->bodies);
    if (np) memcpy(c->parts, w->parts, np * sizeof *c->parts);
    c->num_bodies = w->num_bodies;
    c->num_parts = w->num_parts;
    s = lucid_world_models_clone(c, w);
    if (s != LUCID_OK) {
        lucid_world_destroy(c);
        return s;
    }
    *out = c;
    return LUCID_OK;
}
