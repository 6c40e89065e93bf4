/* Warm start of contact forces across steps. A new contact inherits the force of the nearest
 * previous contact between the same two shapes (same bodies, same parts) within the warm
 * start radius; the force is kept as a world vector and projected on the new frame, which is
 * how it is "rotated" into it. The solver's dual variable (a contact velocity for ADMM) is
 * carried the same way, and so is the penalty its island's ADMM ended at (lucid_world_warm_rho);
 * a new contact starts from zero force and zero dual (a cold start). Contacts
 * are generated in (body1, body2, part1, part2) order, so the memory is sorted by that key and
 * searched by bisection. */
#include <math.h>
#include <string.h>

#include "runtime/world/world_internal.h"

/* The kind of a contact's key: 0 a shape contact, 1 a limit, 2 a dry-friction row. */
static int key_kind(const lucid_world_contact *c) {
    return c->limit_sign != 0 ? 1 : c->frictionloss > 0.0 ? 2 : 0;
}

/* Shape contacts keyed (0, body1, body2, part1, part2), limits (generated after them)
 * (1, model, tendon, dof, sign) with tendon -1 for a joint's, dry-friction rows (after those)
 * (2, model, -1, dof, 0) for a joint's, (2, model, tendon, -1, 0) for a tendon's: the order
 * contacts are generated in (a model's joint rows, then its tendons'). */
static int compare_key(const lucid_cached_force *c, const lucid_world_contact *k) {
    int a[5] = {c->limit, c->body1, c->body2, c->part1, c->part2};
    int b[5] = {key_kind(k), k->body1, k->body2, k->part1, k->part2};
    if (c->limit) a[2] = c->part2, a[3] = c->body2, a[4] = c->part1;
    if (b[0] != 0)
        b[1] = k->limit_model, b[2] = k->limit_tendon, b[3] = k->limit_dof, b[4] = k->limit_sign;
    for (int i = 0; i < 5; ++i)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* Index of the first cached force whose key is not below the contact's. */
static int lower_bound(const lucid_world *w, const lucid_world_contact *c) {
    int lo = 0, hi = w->d.num_cache;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (compare_key(&w->d.cache[mid], c) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void lucid_world_warm_start(lucid_world *w) {
    double r2 = w->opt.warm_start_radius * w->opt.warm_start_radius;
    for (int i = 0; i < w->d.num_contacts; ++i) {
        lucid_world_contact *c = &w->d.contacts[i];
        memset(c->force, 0, sizeof c->force);
        memset(c->dual, 0, sizeof c->dual);
        c->torsion_force = c->torsion_dual = 0.0;
        c->rolling_force[0] = c->rolling_force[1] = c->rolling_dual[0] = c->rolling_dual[1] = 0.0;
        c->rho = 0.0;
        if (!w->opt.contact.warm_start) continue;
        int best = -1;
        double best_d2 = r2;
        for (int k = lower_bound(w, c); k < w->d.num_cache && compare_key(&w->d.cache[k], c) == 0;
             ++k) {
            double d2 = lucid_vec3_norm2(lucid_vec3_sub(w->d.cache[k].point, c->point));
            if (d2 <= best_d2) best_d2 = d2, best = k;
        }
        if (best < 0) continue;
        lucid_vec3_store(lucid_mat3_tmul_vec(&c->frame, w->d.cache[best].force), c->force);
        lucid_vec3_store(lucid_mat3_tmul_vec(&c->frame, w->d.cache[best].dual), c->dual);
        lucid_vec3 n = lucid_mat3_col(&c->frame, 2);
        c->torsion_force = lucid_vec3_dot(n, w->d.cache[best].torque);
        c->torsion_dual = lucid_vec3_dot(n, w->d.cache[best].torque_dual);
        for (int k = 0; c->rolling > 0.0 && k < 2; ++k) {
            lucid_vec3 t = lucid_mat3_col(&c->frame, k);
            c->rolling_force[k] = lucid_vec3_dot(t, w->d.cache[best].torque);
            c->rolling_dual[k] = lucid_vec3_dot(t, w->d.cache[best].torque_dual);
        }
        c->rho = w->d.cache[best].rho;
    }
}

/* A warm ADMM restarted from the spectral rho climbs back by kappa^rho_power (x1.41) per
 * iteration, one refactorisation each, to where the last step ended (docs/world.md, step 5):
 * the carried rho spares that climb. */
double lucid_world_warm_rho(const lucid_world *w, const lucid_contact_options *o, const int *list,
                            int m, double f, double v) {
    if (o->solver != LUCID_CONTACT_ADMM || o->rho > 0.0) return 0.0; /* a user's rho wins */
    double first = 0.0, log_sum = 0.0; /* logs relative to the first: exact when all agree */
    int count = 0;
    for (int i = 0; i < m; ++i) {
        double rho = w->d.contacts[list[i]].rho;
        if (!(rho > 0.0 && isfinite(rho))) continue;
        if (!count) first = rho;
        log_sum += log(rho / first), ++count;
    }
    return count ? first * exp(log_sum / count) * f / v : 0.0;
}

void lucid_world_keep_rho(lucid_world *w, const lucid_contact_options *o, const int *list, int m,
                          double rho, double f, double v) {
    int admm = o->solver == LUCID_CONTACT_ADMM; /* staggered's rho is its own */
    double world = admm && rho > 0.0 && isfinite(rho) ? rho * v / f : 0.0;
    for (int i = 0; i < m; ++i) w->d.contacts[list[i]].rho = world;
}

lucid_status lucid_world_remember_forces(lucid_world *w) {
    lucid_status s = LUCID_RESERVE(w, d.cache_next, (size_t)w->d.num_contacts);
    if (s != LUCID_OK) return s;
    for (int i = 0; i < w->d.num_contacts; ++i) {
        const lucid_world_contact *c = &w->d.contacts[i];
        lucid_cached_force *m = &w->d.cache_next[i];
        m->limit = key_kind(c);
        m->body1 = c->body1, m->body2 = c->body2, m->part1 = c->part1, m->part2 = c->part2;
        if (m->limit) /* the key's fields: model, dof, sign, tendon */
            m->body1 = c->limit_model, m->body2 = c->limit_dof, m->part1 = c->limit_sign,
            m->part2 = c->limit_tendon;
        m->point = c->point;
        m->force = lucid_mat3_mul_vec(&c->frame, lucid_vec3_load(c->force));
        m->dual = lucid_mat3_mul_vec(&c->frame, lucid_vec3_load(c->dual));
        lucid_vec3 n = lucid_mat3_col(&c->frame, 2);
        m->torque = lucid_vec3_scale(n, c->torsion_force);
        m->torque_dual = lucid_vec3_scale(n, c->torsion_dual);
        for (int k = 0; c->rolling > 0.0 && k < 2; ++k) { /* rolling torques about t1, t2 */
            lucid_vec3 t = lucid_mat3_col(&c->frame, k);
            m->torque = lucid_vec3_axpy(m->torque, c->rolling_force[k], t);
            m->torque_dual = lucid_vec3_axpy(m->torque_dual, c->rolling_dual[k], t);
        }
        m->rho = c->rho;
    }
    lucid_cached_force *tmp = w->d.cache;
    size_t tmp_cap = w->d.cache_cap;
    w->d.cache = w->d.cache_next, w->d.cache_cap = w->d.cache_next_cap;
    w->d.cache_next = tmp, w->d.cache_next_cap = tmp_cap;
    w->d.num_cache = w->d.num_contacts;
    return LUCID_OK;
}
