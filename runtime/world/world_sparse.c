/* Islands solved in body space (solvers/contact/contact_sparse.h): no Delassus matrix, O(m)
 * memory and O(m) per PGS sweep. Used for islands of more than opt.sparse_threshold contacts
 * when the solver has a body-space implementation (PGS, for the LCP, CCP and NCP models).
 * It measured as fast as the dense path of world_delassus.c or faster at every island size
 * tried (4 to 770 contacts; 32 times faster at 770, docs/benchmarks/bin.md); islands of up to
 * 16 contacts stay dense by default, where both cost the same, so that small scenes keep their
 * Delassus matrix for lucid_world_last_problem.
 *
 * For contact i and its side s on body b (sign -1 for body1, +1 for body2, frame directions
 * d_k, lever arm r = p - x_com, I the world inertia):
 *   J_s row k = sign (d_k, r x d_k),   W_s row k = sign (d_k / m, I^-1 (r x d_k)),
 * and after the solve v_free += dt u_lin, w_free += dt u_ang with u = M^-1 J^T lambda.
 * The attempts mirror the dense path's for a PGS solver: warm, then cold when the warm answer
 * misses tol; the finite answer with the smaller criterion is kept. Buffers grow only (sizes
 * in size_t with overflow checks), so a step allocates nothing once they are large enough. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/world/world_internal.h"
#include "solvers/contact/contact_sparse.h"

struct lucid_world_sparse {
    int *slot; /* per world body: its slot in the island, or -1 */
    int *body; /* 2m side slots */
    double *J, *W, *g, *mu, *R, *lambda, *best, *work;
    size_t slot_cap, body_cap, J_cap, W_cap, g_cap, mu_cap, R_cap, lambda_cap, best_cap, work_cap;
};

/* Makes room for n elements of `size` bytes in *buf (capacity *cap, in elements). */
static lucid_status grow(void **buf, size_t *cap, size_t n, size_t size) {
    if (n <= *cap) return LUCID_OK;
    size_t c = *cap > 0 ? *cap : 16;
    while (c < n) {
        if (c > SIZE_MAX / 2) return LUCID_ERR_NO_MEMORY;
        c *= 2;
    }
    if (size > 0 && c > SIZE_MAX / size) return LUCID_ERR_NO_MEMORY;
    void *p = realloc(*buf, c * size);
    if (!p) return LUCID_ERR_NO_MEMORY;
    *buf = p, *cap = c;
    return LUCID_OK;
}

void lucid_world_sparse_destroy(lucid_world_sparse *sp) {
    if (!sp) return;
    void *buffers[] = {sp->slot, sp->body, sp->J,      sp->W,    sp->g,
                       sp->mu,   sp->R,    sp->lambda, sp->best, sp->work};
    for (size_t k = 0; k < sizeof buffers / sizeof buffers[0]; ++k) free(buffers[k]);
    free(sp);
}

int lucid_world_sparse_applies(const lucid_world *w, int m) {
    return w->opt.contact.solver == LUCID_CONTACT_PGS && m > w->opt.sparse_threshold;
}

static lucid_status reserve(lucid_world *w, size_t m) {
    if (!w->sparse) {
        w->sparse = calloc(1, sizeof *w->sparse);
        if (!w->sparse) return LUCID_ERR_NO_MEMORY;
    }
    lucid_world_sparse *sp = w->sparse;
    if (m > SIZE_MAX / 36) return LUCID_ERR_NO_MEMORY;
    size_t work = lucid_contact_sparse_work_size((int)m, w->num_bodies);
    if (work == 0) return LUCID_ERR_NO_MEMORY;
    lucid_status s = grow((void **)&sp->slot, &sp->slot_cap, (size_t)w->num_bodies, sizeof(int));
    if (s == LUCID_OK) s = grow((void **)&sp->body, &sp->body_cap, 2 * m, sizeof(int));
    if (s == LUCID_OK) s = grow((void **)&sp->J, &sp->J_cap, 36 * m, sizeof(double));
    if (s == LUCID_OK) s = grow((void **)&sp->W, &sp->W_cap, 36 * m, sizeof(double));
    if (s == LUCID_OK) s = grow((void **)&sp->g, &sp->g_cap, 3 * m, sizeof(double));
    if (s == LUCID_OK) s = grow((void **)&sp->mu, &sp->mu_cap, m, sizeof(double));
    if (s == LUCID_OK) s = grow((void **)&sp->R, &sp->R_cap, 3 * m, sizeof(double));
    if (s == LUCID_OK) s = grow((void **)&sp->lambda, &sp->lambda_cap, 3 * m, sizeof(double));
    if (s == LUCID_OK) s = grow((void **)&sp->best, &sp->best_cap, 6 * m, sizeof(double));
    if (s == LUCID_OK) s = grow((void **)&sp->work, &sp->work_cap, work, sizeof(double));
    return s;
}

/* The blocks of side `side` of contact k (slot: its body's island slot, -1 when static). */
static void fill_blocks(const lucid_world *w, int k, int side, double *J, double *W) {
    const lucid_world_contact *c = &w->contacts[k];
    const lucid_contact_side *s = &w->sides[2 * k + side];
    if (s->body < 0) {
        memset(J, 0, sizeof(double) * 18), memset(W, 0, sizeof(double) * 18);
        return;
    }
    double inv_m = w->bodies[s->body].inv_mass;
    for (int d = 0; d < 3; ++d) {
        lucid_vec3 dir = lucid_mat3_col(&c->frame, d);
        lucid_vec3_store(lucid_vec3_scale(dir, s->sign), J + 6 * d);
        lucid_vec3_store(lucid_vec3_scale(s->ang[d], s->sign), J + 6 * d + 3);
        lucid_vec3_store(lucid_vec3_scale(dir, s->sign * inv_m), W + 6 * d);
        lucid_vec3_store(lucid_vec3_scale(s->inv_ang[d], s->sign), W + 6 * d + 3);
    }
}

/* The island's problem; returns the number of body slots. */
static int assemble(lucid_world *w, const int *list, int m, const lucid_vec3 *v0,
                    const lucid_vec3 *w0) {
    lucid_world_sparse *sp = w->sparse;
    const double dt = w->opt.dt;
    int slots = 0;
    for (int i = 0; i < m; ++i)
        for (int side = 0; side < 2; ++side) {
            int b = w->sides[2 * list[i] + side].body;
            if (b >= 0) sp->slot[b] = -1;
        }
    for (int i = 0; i < m; ++i) {
        const lucid_world_contact *c = &w->contacts[list[i]];
        for (int side = 0; side < 2; ++side) {
            int b = w->sides[2 * list[i] + side].body, s = 2 * i + side;
            if (b >= 0 && sp->slot[b] < 0) sp->slot[b] = slots++;
            sp->body[s] = b >= 0 ? sp->slot[b] : -1;
            fill_blocks(w, list[i], side, sp->J + 18 * (size_t)s, sp->W + 18 * (size_t)s);
        }
        lucid_vec3 vf = lucid_world_contact_velocity(w, list[i], w->v_free, w->w_free);
        double before = lucid_world_contact_velocity(w, list[i], v0, w0).z;
        vf.z -= lucid_world_reference_velocity(w, c, before);
        lucid_vec3_store(lucid_vec3_scale(vf, 1.0 / dt), sp->g + 3 * (size_t)i);
        sp->mu[i] = c->friction;
        sp->R[3 * i] = sp->R[3 * i + 1] = 0.0;
        sp->R[3 * i + 2] = w->opt.compliance;
        memcpy(sp->lambda + 3 * (size_t)i, c->force, sizeof c->force);
    }
    return slots;
}

static int finite_answer(const double *x, size_t n) {
    double big = 0.0;
    for (size_t k = 0; k < n; ++k) {
        if (!isfinite(x[k])) return 0;
        big = fmax(big, fabs(x[k]));
    }
    return big < 1e150; /* the criteria multiply forces by velocities: no overflow */
}

lucid_status lucid_world_solve_island_sparse(lucid_world *w, const int *list, int m,
                                             const lucid_vec3 *v0, const lucid_vec3 *w0) {
    lucid_status s = reserve(w, (size_t)m);
    if (s != LUCID_OK) return s;
    lucid_world_sparse *sp = w->sparse;
    size_t n3 = 3 * (size_t)m;
    int slots = assemble(w, list, m, v0, w0);
    lucid_contact_sparse_problem p = {
        m, slots, sp->body, sp->J, sp->W, sp->g, sp->mu, w->opt.compliance > 0.0 ? sp->R : NULL};
    double *warm = sp->best, *best = sp->best + n3;
    memcpy(warm, sp->lambda, sizeof(double) * n3);
    lucid_contact_result res, best_res;
    int have_best = 0, iterations = 0;
    for (int a = w->opt.contact.warm_start ? 0 : 1; a <= 1; ++a) {
        lucid_contact_options o = w->opt.contact;
        o.warm_start = a == 0;
        memcpy(sp->lambda, warm, sizeof(double) * n3);
        s = lucid_contact_solve_pgs_sparse(&p, &o, sp->work, sp->lambda, &res);
        if (s != LUCID_OK) return s;
        iterations += res.iterations;
        int finite = !res.diverged && finite_answer(sp->lambda, n3) &&
                     finite_answer(sp->work + 6 * (size_t)slots, n3) && isfinite(res.model.abs);
        if (finite && (!have_best || res.converged || res.model.abs < best_res.model.abs)) {
            memcpy(best, sp->lambda, sizeof(double) * n3);
            best_res = res, have_best = 1;
        }
        if (finite && res.converged) break;
    }
    if (!have_best) return LUCID_ERR_NO_CONVERGENCE;
    w->stats.solver_iterations += iterations;
    w->stats.converged &= best_res.converged;
    w->stats.residual = fmax(w->stats.residual, best_res.ncp.abs);
    /* u = M^-1 J^T lambda of the kept answer; v+ = v_free + dt u */
    double *u = sp->work;
    lucid_contact_sparse_velocity(&p, best, u, sp->work + 6 * (size_t)slots);
    for (int i = 0; i < m; ++i) {
        memcpy(w->contacts[list[i]].force, best + 3 * (size_t)i, sizeof(double) * 3);
        for (int side = 0; side < 2; ++side) {
            int b = w->sides[2 * list[i] + side].body;
            if (b < 0 || sp->slot[b] < 0) continue;
            const double *ub = u + 6 * (size_t)sp->slot[b];
            w->v_free[b] = lucid_vec3_axpy(w->v_free[b], w->opt.dt, lucid_vec3_load(ub));
            w->w_free[b] = lucid_vec3_axpy(w->w_free[b], w->opt.dt, lucid_vec3_load(ub + 3));
            sp->slot[b] = -1; /* applied once */
        }
    }
    return LUCID_OK;
}
