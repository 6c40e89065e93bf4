/* The world's life cycle, options, accessors, state and energy. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/math/so3.h"
#include "runtime/world/world_internal.h"
#include "solvers/collision/contact_patch.h"

lucid_status lucid_world_reserve(void **buf, size_t *cap, size_t n, size_t size) {
    if (n <= *cap) return LUCID_OK;
    /* elements whose bytes fit in an object (PTRDIFF_MAX: no valid object is larger) */
    size_t limit = (size_t)PTRDIFF_MAX / (size ? size : 1);
    if (n > limit) return LUCID_ERR_NO_MEMORY;
    size_t c = *cap > 0 ? *cap : 16;
    while (c < n) c = c > limit / 2 ? n : 2 * c;
    void *p = realloc(*buf, size * c);
    if (!p) return LUCID_ERR_NO_MEMORY;
    *buf = p, *cap = c;
    return LUCID_OK;
}

const char *lucid_world_last_error(const lucid_world *w) {
    return w ? w->error : "";
}

lucid_status lucid_world_create(const lucid_world_options *o, lucid_world **out) {
    if (!out) return LUCID_ERR_ARGUMENT;
    lucid_world_options def;
    if (!o) lucid_world_default_options(&def), o = &def;
    lucid_status s = lucid_world_options_check(o, NULL);
    if (s != LUCID_OK) return s;
    lucid_world *w = calloc(1, sizeof *w);
    if (!w) return LUCID_ERR_NO_MEMORY;
    w->opt = *o;
    w->broad = lucid_broad_phase_create();
    if (!w->broad) {
        free(w);
        return LUCID_ERR_NO_MEMORY;
    }
    *out = w;
    return LUCID_OK;
}

void lucid_world_destroy(lucid_world *w) {
    if (!w) return;
    lucid_broad_phase_destroy(w->broad);
    lucid_contact_workspace_destroy(w->workspace);
    lucid_world_sparse_destroy(w->sparse);
    lucid_world_models_destroy(w);
    lucid_world_single_level_destroy(w->single_level);
    lucid_world_destroy(w->scratch);
    lucid_arena_free(&w->derivative_arena);
    void *buffers[] = {w->bodies,
                       w->parts,
                       w->part_contact,
                       w->aabb_lo,
                       w->aabb_hi,
                       w->is_static,
                       w->sweep,
                       w->v_free,
                       w->v_start,
                       w->w_start,
                       w->w_free,
                       w->contacts,
                       w->sides,
                       w->cache,
                       w->cache_next,
                       w->parent,
                       w->label,
                       w->contact_island,
                       w->island_start,
                       w->island_contacts,
                       w->island_info,
                       w->G,
                       w->g,
                       w->mu,
                       w->R,
                       w->lambda,
                       w->dual,
                       w->spare,
                       w->sigma};
    for (size_t k = 0; k < sizeof buffers / sizeof buffers[0]; ++k) free(buffers[k]);
    free(w);
}

const lucid_world_options *lucid_world_get_options(const lucid_world *w) {
    return &w->opt;
}
int lucid_world_body_count(const lucid_world *w) {
    return w->num_bodies;
}

static int valid_id(const lucid_world *w, int id) {
    return w && id >= 0 && id < w->num_bodies;
}

/* A body the caller moves directly: a free body (not static, not a model's link). */
static int free_id(const lucid_world *w, int id) {
    return valid_id(w, id) && !w->bodies[id].is_static && w->bodies[id].model < 0;
}

int lucid_world_is_static(const lucid_world *w, int id) {
    return valid_id(w, id) ? w->bodies[id].is_static : -1;
}

double lucid_world_body_mass(const lucid_world *w, int id) {
    return valid_id(w, id) ? w->bodies[id].mass : 0.0;
}

lucid_status lucid_world_body_inertia(const lucid_world *w, int id, lucid_mat3 *inertia,
                                      lucid_vec3 *com) {
    if (!valid_id(w, id)) return LUCID_ERR_ARGUMENT;
    if (inertia) *inertia = w->bodies[id].inertia;
    if (com) *com = w->bodies[id].com;
    return LUCID_OK;
}

lucid_status lucid_world_pose(const lucid_world *w, int id, lucid_se3 *pose) {
    if (!valid_id(w, id) || !pose) return LUCID_ERR_ARGUMENT;
    *pose = w->bodies[id].pose;
    return LUCID_OK;
}

lucid_status lucid_world_velocity(const lucid_world *w, int id, double twist[6]) {
    if (!valid_id(w, id) || !twist) return LUCID_ERR_ARGUMENT;
    lucid_vec3_store(w->bodies[id].v, twist);
    lucid_vec3_store(w->bodies[id].w, twist + 3);
    return LUCID_OK;
}

lucid_status lucid_world_set_velocity(lucid_world *w, int id, const double twist[6]) {
    if (!free_id(w, id) || !twist) return LUCID_ERR_ARGUMENT;
    if (!lucid_vec3_isfinite(lucid_vec3_load(twist)) ||
        !lucid_vec3_isfinite(lucid_vec3_load(twist + 3)))
        return LUCID_ERR_NONFINITE;
    w->bodies[id].v = lucid_vec3_load(twist);
    w->bodies[id].w = lucid_vec3_load(twist + 3);
    lucid_body_sync_twist(&w->bodies[id]);
    return LUCID_OK;
}

lucid_status lucid_world_apply_force(lucid_world *w, int id, lucid_vec3 f, lucid_vec3 tau) {
    if (!free_id(w, id)) return LUCID_ERR_ARGUMENT;
    if (!lucid_vec3_isfinite(f) || !lucid_vec3_isfinite(tau)) return LUCID_ERR_NONFINITE;
    lucid_body *b = &w->bodies[id];
    b->force = lucid_vec3_add(b->force, f);
    b->torque = lucid_vec3_add(b->torque, tau);
    return LUCID_OK;
}

void lucid_body_sync_twist(lucid_body *b) {
    lucid_vec3_store(lucid_mat3_tmul_vec(&b->pose.R, b->v), b->twist_body);
    lucid_vec3_store(lucid_mat3_tmul_vec(&b->pose.R, b->w), b->twist_body + 3);
    lucid_body_twist_from_state(b);
}

void lucid_body_twist_from_state(lucid_body *b) {
    b->v = lucid_mat3_mul_vec(&b->pose.R, lucid_vec3_load(b->twist_body));
    b->w = lucid_mat3_mul_vec(&b->pose.R, lucid_vec3_load(b->twist_body + 3));
}

lucid_vec3 lucid_body_com_world(const lucid_body *b) {
    return lucid_se3_act(&b->pose, b->com);
}

lucid_mat3 lucid_body_inv_inertia_world(const lucid_body *b) {
    lucid_mat3 RI = lucid_mat3_mul(&b->pose.R, &b->inv_inertia);
    lucid_mat3 Rt = lucid_mat3_transpose(&b->pose.R);
    return lucid_mat3_mul(&RI, &Rt);
}

/* ---- energy, contacts, stats ----------------------------------------------------------- */

lucid_world_energy lucid_world_energy_of(const lucid_world *w) {
    lucid_world_energy e = {0.0, 0.0};
    for (int i = 0; i < w->num_bodies; ++i) {
        const lucid_body *b = &w->bodies[i];
        if (b->is_static) continue;
        lucid_vec3 rc = lucid_mat3_mul_vec(&b->pose.R, b->com);
        lucid_vec3 vc = lucid_vec3_add(b->v, lucid_vec3_cross(b->w, rc));
        lucid_vec3 wb = lucid_mat3_tmul_vec(&b->pose.R, b->w);
        e.kinetic += 0.5 * b->mass * lucid_vec3_norm2(vc) +
                     0.5 * lucid_vec3_dot(wb, lucid_mat3_mul_vec(&b->inertia, wb));
        e.potential -= b->mass * lucid_vec3_dot(w->opt.gravity, lucid_body_com_world(b));
    }
    lucid_world_models_energy(w, &e.kinetic, &e.potential);
    return e;
}

int lucid_world_contact_count(const lucid_world *w) {
    return w->num_contacts;
}
const lucid_world_contact *lucid_world_contacts(const lucid_world *w) {
    return w->contacts;
}
lucid_world_stats lucid_world_last_stats(const lucid_world *w) {
    return w->stats;
}
const lucid_world_island_info *lucid_world_islands(const lucid_world *w, int *count) {
    *count = w->num_island_info;
    return w->num_island_info > 0 ? w->island_info : NULL;
}
lucid_world_island_info *lucid_world_current_island(lucid_world *w) {
    return w->num_island_info > 0 ? &w->island_info[w->num_island_info - 1] : NULL;
}

void lucid_world_last_problem(const lucid_world *w, lucid_contact_problem *p,
                              const int **contacts) {
    int k = w->num_islands - 1;
    int n = w->num_contacts > 0 && k >= 0 && !w->last_sparse
                ? w->island_start[k + 1] - w->island_start[k]
                : 0;
    int dim = n > 0 && (w->last_dim == 4 || w->last_dim == 6) ? w->last_dim : 3;
    *p = (lucid_contact_problem){
        n, w->G, w->g, w->mu, n > 0 ? lucid_world_problem_R(w->R, (long)dim * n) : NULL, dim};
    if (contacts) *contacts = n > 0 ? w->island_contacts + w->island_start[k] : NULL;
}
