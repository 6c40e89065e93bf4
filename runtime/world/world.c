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
    return w ? w->d.error : "";
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
    if (lucid_world_data_init(&w->d) != LUCID_OK) {
        free(w);
        return LUCID_ERR_NO_MEMORY;
    }
    *out = w;
    return LUCID_OK;
}

void lucid_world_destroy(lucid_world *w) {
    if (!w) return;
    lucid_world_data_free(&w->d);
    lucid_world_models_destroy(w);
    lucid_world_destroy(w->scratch);
    lucid_arena_free(&w->derivative_arena);
    free(w->bodies), free(w->parts), free(w->part_contact);
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

static lucid_world_energy energy(const lucid_world *w, int posed) {
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
    lucid_world_models_energy(w, posed, &e.kinetic, &e.potential);
    return e;
}

lucid_world_energy lucid_world_energy_of(const lucid_world *w) {
    return energy(w, 0);
}

lucid_world_energy lucid_world_energy_after_integrate(const lucid_world *w) {
    return energy(w, 1);
}

int lucid_world_contact_count(const lucid_world *w) {
    return w->d.num_contacts;
}
const lucid_world_contact *lucid_world_contacts(const lucid_world *w) {
    return w->d.contacts;
}
lucid_world_stats lucid_world_last_stats(const lucid_world *w) {
    return w->d.stats;
}
const lucid_world_island_info *lucid_world_islands(const lucid_world *w, int *count) {
    *count = w->d.num_island_info;
    return w->d.num_island_info > 0 ? w->d.island_info : NULL;
}
lucid_world_island_info *lucid_world_current_island(lucid_world *w) {
    return w->d.num_island_info > 0 ? &w->d.island_info[w->d.num_island_info - 1] : NULL;
}

void lucid_world_last_problem(const lucid_world *w, lucid_contact_problem *p,
                              const int **contacts) {
    int k = w->d.num_islands - 1;
    int n = w->d.num_contacts > 0 && k >= 0 && !w->d.last_sparse
                ? w->d.island_start[k + 1] - w->d.island_start[k]
                : 0;
    int dim = n > 0 && (w->d.last_dim == 4 || w->d.last_dim == 6) ? w->d.last_dim : 3;
    *p = (lucid_contact_problem){
        n,  w->d.G, w->d.g, w->d.mu, n > 0 ? lucid_world_problem_R(w->d.R, (long)dim * n) : NULL,
        dim};
    if (contacts) *contacts = n > 0 ? w->d.island_contacts + w->d.island_start[k] : NULL;
}
