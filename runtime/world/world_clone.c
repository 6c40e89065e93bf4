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
    s = LUCID_RESERVE(c, bodies, nb);
    if (s == LUCID_OK) s = LUCID_RESERVE(c, parts, np);
    if (s == LUCID_OK) s = LUCID_RESERVE(c, part_contact, np);
    if (s != LUCID_OK) {
        lucid_world_destroy(c);
        return s;
    }
    if (nb) memcpy(c->bodies, w->bodies, nb * sizeof *c->bodies);
    if (np) memcpy(c->parts, w->parts, np * sizeof *c->parts);
    if (np) memcpy(c->part_contact, w->part_contact, np * sizeof *c->part_contact);
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

/* Reuses copy's buffers when w has as many bodies and parts and the same models. */
static int sync_copy(lucid_world *copy, const lucid_world *w) {
    if (copy->num_bodies != w->num_bodies || copy->num_parts != w->num_parts ||
        !lucid_world_models_sync(copy, w))
        return 0;
    copy->opt = w->opt;
    if (w->num_bodies) memcpy(copy->bodies, w->bodies, (size_t)w->num_bodies * sizeof *w->bodies);
    if (w->num_parts) memcpy(copy->parts, w->parts, (size_t)w->num_parts * sizeof *w->parts);
    if (w->num_parts)
        memcpy(copy->part_contact, w->part_contact, (size_t)w->num_parts * sizeof *w->part_contact);
    /* no warm-start memory, as lucid_world_set_state leaves a world */
    lucid_world_data_forget(&copy->d);
    return 1;
}

lucid_status lucid_world_clone_into(const lucid_world *w, lucid_world **copy) {
    if (!w || !copy) return LUCID_ERR_ARGUMENT;
    if (*copy && sync_copy(*copy, w)) return LUCID_OK;
    lucid_world_destroy(*copy);
    *copy = NULL;
    return lucid_world_clone(w, copy);
}
