/* The world's per-step data: its life cycle. */
#include <stdlib.h>
#include <string.h>

#include "runtime/world/world_internal.h"

lucid_status lucid_world_data_init(lucid_world_data *d) {
    memset(d, 0, sizeof *d);
    d->broad = lucid_broad_phase_create();
    return d->broad ? LUCID_OK : LUCID_ERR_NO_MEMORY;
}

void lucid_world_data_forget(lucid_world_data *d) {
    d->num_cache = 0, d->num_contacts = 0;
    lucid_world_single_level_forget(d->single_level);
}

void lucid_world_data_free(lucid_world_data *d) {
    lucid_broad_phase_destroy(d->broad);
    lucid_contact_workspace_destroy(d->workspace);
    lucid_world_sparse_destroy(d->sparse);
    lucid_world_single_level_destroy(d->single_level);
    free(d->aabb_lo), free(d->aabb_hi), free(d->is_static), free(d->sweep), free(d->v_free);
    free(d->v_start), free(d->w_start), free(d->w_free), free(d->contacts), free(d->sides);
    free(d->cache), free(d->cache_next), free(d->parent), free(d->label), free(d->contact_island);
    free(d->island_start), free(d->island_contacts), free(d->island_info), free(d->G), free(d->g);
    free(d->mu), free(d->R), free(d->lambda), free(d->dual), free(d->spare), free(d->sigma);
    free(d->link_J), free(d->link_Y), free(d->side_head), free(d->side_next), free(d->side_mark);
    memset(d, 0, sizeof *d);
}
