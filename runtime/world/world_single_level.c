/* The single-level step (Silico Problem 20, docs/single_level.md): for every broad-phase pair
 * of shapes, the KKT conditions of the P-SDF program (DCOL's minimal scaling alpha, contact
 * point p) at the next configuration, and the contact impulse at p (normal gamma with
 * gamma (alpha - 1) = kappa, friction in the cone ||beta|| <= mu gamma by maximum
 * dissipation) enter one NCP with the free bodies' next velocities, solved by the interior
 * point of single_level_ncp.h. Unknowns, in order:
 *   y = (v+, w+ per moving body; p, alpha, eps.. per pair),
 *   a = (s rows, s_gamma = alpha - 1, (psi, dt P v_rel[, dt (mu_t / mu) n.w_rel
 *        [, dt (mu_r / mu) P w_rel]])) per pair,
 *   b = (z duals, gamma, (mu gamma, beta[, sigma[, rho]])) per pair,
 * the bracketed spin entry for a pair with torsional friction mu_t (its couple about n is
 * (mu_t / mu) sigma: the round cone of dimension 5 is MuJoCo's elliptic one of dimension 4),
 * and the rolling entries for one with rolling friction mu_r (couple (mu_r / mu) rho),
 * (a, b) complementary block by block. The next pose is the world's integrator's:
 * c+ = c + dt v+, R+ = exp(dt w+) R. The NCP falls apart into islands (bodies linked by
 * candidate pairs, lucid_world_build_islands): each is solved alone, with the layout above
 * over its own bodies and pairs, its unknowns at their own offset of sl->X. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/math/so3.h"
#include "runtime/world/world_internal.h"
#include "solvers/collision/pscaling.h"
#include "solvers/collision/pscaling_rows.h"

#define PAIR_MAX_ROWS LUCID_CONE_MAX_ROWS
/* How far a pair's cone variables start inside their cones: a warm start stays near the last
 * solution, a cold one starts well inside (docs/benchmarks/single_level_islands.md) */
#define WARM_SHIFT 1e-3
#define COLD_SHIFT 1e-2
/* and relatively: u0 >= CONE_DEPTH ||u1|| (a start near the cone's edge, e.g. psi = ||v_t||
 * for a fast sliding contact, left the Newton steps ~1e-6 long at 10 Hz) */
#define CONE_DEPTH     2.0
#define FRICTION_BLOCK 4 /* (mu gamma, beta) and (psi, dt P v_rel) in Q^4 */
#define TORSION_BLOCK  5 /* and the spin's sigma and dt (mu_t / mu) n.w_rel: Q^5 */
#define ROLLING_BLOCK  8 /* and rolling's rho and dt (mu_r / mu) P w_rel: Q^8 */
/* A warm start that has not converged in this many iterations is abandoned for a cold one
 * (converged warm starts take about half as many, a failing one stalls). */
#define WARM_ITERATIONS 20

typedef struct sl_pair {
    int body[2], part[2];
    int island;     /* its island; the offsets below are in that island's unknowns */
    int var[2];     /* offset of each body's (v+, w+) in y, -1 for a body that does not move */
    int row0, m[2]; /* its rows in sl->rows: shape 1's m[0], then shape 2's m[1] */
    int ix, nx;     /* (p, alpha, eps..) at y[ix], nx of them */
    int eps[2];     /* index in x of each shape's auxiliary, -1 when none */
    int ia, na;     /* its cone variables at a[ia], na of them */
    int halfspace;  /* 1 or 2: that shape is a halfspace (its normal is the contact normal) */
    double mu;
    double mu_t; /* m, its torsional coefficient (0: none; only with mu > 0) */
    double mu_r; /* m, its rolling coefficient (0: none; only with mu > 0) */
    int fb;      /* its friction block's size: 0, FRICTION_, TORSION_ or ROLLING_BLOCK */
    lucid_vec3 centre[2];
} sl_pair;

typedef struct sl_cache {
    int body[2], part[2], nx, na;
    double v[LUCID_CONE_MAX_VARS + 2 * (PAIR_MAX_ROWS + 1 + ROLLING_BLOCK)];
} sl_cache;

/* One island's NCP: its pairs, cone blocks and moving bodies are contiguous runs of the
 * step's arrays; its unknowns X = (y, a, b) lie at sl->X + off. */
typedef struct sl_island {
    int pair0, num_pairs;   /* sl->pairs[pair0 ..] */
    int block0, num_blocks; /* sl->block_start[block0 .. block0 + num_blocks]: offsets in a */
    int body0, num_bodies;  /* sl->island_bodies[body0 ..] */
    int ny, na;
    size_t off;
    struct lucid_world_single_level *sl;
    lucid_ncp_workspace ws; /* its solve's buffers; the LU at its answer, for derivatives */
} sl_island;

struct lucid_world_single_level {
    sl_pair *pairs; /* grouped by island */
    int num_pairs;
    size_t pair_cap;
    lucid_pscaling_row *rows;
    size_t row_cap;
    int num_rows;
    int *block_start; /* each island's blocks, then the end of its a */
    size_t block_cap;
    int num_blocks;
    int *body_var; /* per world body: its (v+, w+) offset in its island's y, -1 when none */
    size_t body_var_cap;
    int *island_bodies;        /* the moving bodies, grouped by island */
    struct sl_body_next *next; /* per world body: its next state (the Jacobian's scratch) */
    size_t next_cap;
    size_t island_bodies_cap;
    int num_island_bodies;
    sl_island *islands;
    size_t island_cap;
    int num_islands, islands_made; /* islands in this step; entries initialised so far */
    size_t num_unknowns;           /* all islands' */
    double *extra;
    size_t extra_cap;
    double *X, *Xbest;
    size_t X_cap, Xbest_cap;
    int *order; /* each island's unknowns in the LU's elimination order, at its off */
    size_t order_cap;
    sl_cache *cache, *cache_next;
    size_t cache_cap, cache_next_cap;
    int num_cache;
    lucid_world *w;
};

void lucid_world_single_level_destroy(struct lucid_world_single_level *sl) {
    if (!sl) return;
    free(sl->pairs), free(sl->rows), free(sl->block_start), free(sl->body_var);
    free(sl->island_bodies), free(sl->next), free(sl->order);
    free(sl->extra), free(sl->X), free(sl->Xbest), free(sl->cache), free(sl->cache_next);
    for (int i = 0; i < sl->islands_made; ++i) lucid_ncp_release(&sl->islands[i].ws);
    free(sl->islands);
    free(sl);
}

static const int *island_blocks(const sl_island *is) {
    return is->sl->block_start + is->block0;
}

static lucid_status fail(lucid_world *w, lucid_status s, const char *msg) {
    snprintf(w->d.error, sizeof w->d.error, "single_level: %.140s", msg);
    return s;
}

/* ---- geometry at the next configuration ----------------------------------------------- */

typedef struct sl_body_next {
    lucid_mat3 R; /* body rotation */
    lucid_vec3 c; /* centre of mass */
    lucid_vec3 v, om;
} sl_body_next;

/* The body's next pose from its unknowns (or its current pose when it does not move). */
static sl_body_next body_next(const lucid_world *w, int body, int var, const double *X) {
    const lucid_body *b = &w->bodies[body];
    sl_body_next n;
    n.R = b->pose.R;
    n.c = lucid_se3_act(&b->pose, b->com);
    n.v = n.om = lucid_vec3_zero();
    if (var < 0) return n;
    double dt = w->opt.dt;
    n.v = lucid_vec3_load(X + var), n.om = lucid_vec3_load(X + var + 3);
    n.c = lucid_vec3_axpy(n.c, dt, n.v);
    lucid_mat3 E = lucid_so3_exp(lucid_vec3_scale(n.om, dt));
    n.R = lucid_mat3_mul(&E, &b->pose.R);
    return n;
}

/* The world pose (R, t) of a body's part given the body's next state. */
static void part_next(const lucid_world *w, int body, int part, const sl_body_next *n,
                      lucid_mat3 *R, lucid_vec3 *t) {
    const lucid_body *b = &w->bodies[body];
    const lucid_body_part *p = &w->parts[b->part_begin + part];
    *R = lucid_mat3_mul(&n->R, &p->pose.R);
    *t = lucid_vec3_add(n->c, lucid_mat3_mul_vec(&n->R, lucid_vec3_sub(p->pose.t, b->com)));
}

static const lucid_shape *pair_shape(const lucid_world *w, const sl_pair *q, int k) {
    const lucid_body *b = &w->bodies[q->body[k]];
    return &w->parts[b->part_begin + q->part[k]].shape;
}

/* ---- the residual F --------------------------------------------------------------------- */

/* Momentum rows of the moving bodies: M (v+ - v_free) (the contact impulses come later). */
static void momentum_rows(const lucid_world *w, const sl_island *is, const double *X, double *F) {
    const struct lucid_world_single_level *sl = is->sl;
    for (int j = 0; j < is->num_bodies; ++j) {
        int i = sl->island_bodies[is->body0 + j], var = sl->body_var[i];
        const lucid_body *b = &w->bodies[i];
        lucid_vec3 dv = lucid_vec3_sub(lucid_vec3_load(X + var), w->d.v_free[i]);
        lucid_vec3 dw = lucid_vec3_sub(lucid_vec3_load(X + var + 3), w->d.w_free[i]);
        lucid_vec3 Iw = lucid_mat3_mul_vec(
            &b->pose.R, lucid_mat3_mul_vec(&b->inertia, lucid_mat3_tmul_vec(&b->pose.R, dw)));
        lucid_vec3_store(lucid_vec3_scale(dv, b->mass), F + var);
        lucid_vec3_store(Iw, F + var + 3);
    }
}

static void add3(double *F, lucid_vec3 v) {
    F[0] += v.x, F[1] += v.y, F[2] += v.z;
}

/* One pair's rows: its P-SDF KKT conditions, s_gamma, the friction cone's links, and its
 * impulse subtracted from the bodies' momentum rows; nb: its bodies' next states at X. */
static void pair_rows(const lucid_world *w, const sl_island *is, const sl_pair *q, const double *X,
                      const sl_body_next nb[2], double *F) {
    const struct lucid_world_single_level *sl = is->sl;
    const double dt = w->opt.dt;
    const double *x = X + q->ix;
    const double *a = X + is->ny + q->ia, *b = X + is->ny + is->na + q->ia;
    double *Fx = F + q->ix, *Fa = F + is->ny + q->ia;
    lucid_vec3 p = lucid_vec3_load(x);
    double alpha = x[3];
    lucid_vec3 wk[2];
    lucid_mat3 R[2];
    Fx[3] = 1.0;
    for (int k = 4; k < q->nx; ++k) Fx[k] = 0.0;
    for (int k = 0; k < 2; ++k) {
        lucid_vec3 t;
        part_next(w, q->body[k], q->part[k], &nb[k], &R[k], &t);
        lucid_vec3 y =
            lucid_vec3_sub(lucid_mat3_tmul_vec(&R[k], lucid_vec3_sub(p, t)), q->centre[k]);
        double eps = q->eps[k] >= 0 ? x[q->eps[k]] : 0.0;
        lucid_vec3 zB = lucid_vec3_zero();
        int first = q->row0 + (k ? q->m[0] : 0), off = k ? q->m[0] : 0;
        for (int r = 0; r < q->m[k]; ++r) {
            const lucid_pscaling_row *row = &sl->rows[first + r];
            double val = row->a0 + row->aa * alpha + row->ae * eps + lucid_vec3_dot(row->B, y);
            Fa[off + r] = a[off + r] - val;
            double z = b[off + r];
            Fx[3] -= z * row->aa;
            if (q->eps[k] >= 0) Fx[q->eps[k]] += z * row->ae;
            zB = lucid_vec3_axpy(zB, z, row->B);
        }
        wk[k] = lucid_mat3_mul_vec(&R[k], zB);
    }
    lucid_vec3_store(lucid_vec3_add(wk[0], wk[1]), Fx);
    /* the normal from shape 1 to shape 2 (Silico Eq. 15): a halfspace's own normal, else the
     * duals' w2 - w1 (w2 = -w1 at the solution) */
    lucid_vec3 n;
    if (q->halfspace) {
        const lucid_shape *h = pair_shape(w, q, q->halfspace - 1);
        n = lucid_mat3_mul_vec(&R[q->halfspace - 1], h->u.halfspace.normal);
        if (q->halfspace == 2) n = lucid_vec3_neg(n);
    } else {
        lucid_vec3 d = lucid_vec3_sub(wk[1], wk[0]);
        double len = lucid_vec3_norm(d);
        n = len > 0.0 ? lucid_vec3_scale(d, 1.0 / len) : lucid_vec3_make(0, 0, 1);
    }
    int mc = q->m[0] + q->m[1];
    double gamma = b[mc];
    Fa[mc] = a[mc] - (alpha - 1.0);
    lucid_vec3 impulse = lucid_vec3_scale(n, gamma);
    if (q->mu > 0.0) {
        const double *wv = a + mc + 1, *u = b + mc + 1;
        lucid_vec3 beta = lucid_vec3_load(u + 1);
        lucid_vec3 vrel = lucid_vec3_zero();
        for (int k = 0; k < 2; ++k) {
            lucid_vec3 vk =
                lucid_vec3_add(nb[k].v, lucid_vec3_cross(nb[k].om, lucid_vec3_sub(p, nb[k].c)));
            vrel = k ? lucid_vec3_add(vrel, vk) : lucid_vec3_neg(vk);
        }
        lucid_vec3 vt = lucid_vec3_scale(lucid_vec3_axpy(vrel, -lucid_vec3_dot(n, vrel), n), dt);
        Fa[mc + 1] = u[0] - q->mu * gamma;
        Fa[mc + 2] = wv[1] - vt.x, Fa[mc + 3] = wv[2] - vt.y, Fa[mc + 4] = wv[3] - vt.z;
        impulse = lucid_vec3_add(impulse, beta);
    }
    /* the spin: dt (mu_t / mu) n.(w2 - w1) against sigma, whose couple (mu_t / mu) sigma n
     * acts on body 2 (and its opposite on body 1) */
    lucid_vec3 couple = lucid_vec3_zero();
    if (q->fb >= TORSION_BLOCK && q->mu > 0.0) {
        double ratio = q->mu_t / q->mu;
        lucid_vec3 wrel = lucid_vec3_sub(nb[1].om, nb[0].om);
        Fa[mc + 5] = a[mc + 5] - dt * ratio * lucid_vec3_dot(n, wrel);
        couple = lucid_vec3_scale(n, ratio * b[mc + 5]);
        if (q->fb == ROLLING_BLOCK) { /* dt (mu_r / mu) P w_rel against rho */
            double roll = q->mu_r / q->mu;
            lucid_vec3 wt = lucid_vec3_axpy(wrel, -lucid_vec3_dot(n, wrel), n);
            Fa[mc + 6] = a[mc + 6] - dt * roll * wt.x;
            Fa[mc + 7] = a[mc + 7] - dt * roll * wt.y;
            Fa[mc + 8] = a[mc + 8] - dt * roll * wt.z;
            couple = lucid_vec3_axpy(couple, roll, lucid_vec3_load(b + mc + 6));
        }
    }
    for (int k = 0; k < 2; ++k) {
        if (q->var[k] < 0) continue;
        lucid_vec3 f = k ? impulse : lucid_vec3_neg(impulse);
        lucid_vec3 c = k ? couple : lucid_vec3_neg(couple);
        add3(F + q->var[k], lucid_vec3_neg(f));
        add3(F + q->var[k] + 3,
             lucid_vec3_neg(lucid_vec3_add(lucid_vec3_cross(lucid_vec3_sub(p, nb[k].c), f), c)));
    }
}

/* F of one island's NCP (ctx: the island). */
static void residual(void *ctx, const double *X, double *F) {
    const sl_island *is = ctx;
    const struct lucid_world_single_level *sl = is->sl;
    momentum_rows(sl->w, is, X, F);
    for (int k = 0; k < is->num_pairs; ++k) {
        const sl_pair *q = &sl->pairs[is->pair0 + k];
        sl_body_next nb[2];
        for (int j = 0; j < 2; ++j) nb[j] = body_next(sl->w, q->body[j], q->var[j], X);
        pair_rows(sl->w, is, q, X, nb, F);
    }
}

/* ---- its Jacobian ------------------------------------------------------------------------ */

/* Pair q's rows and its share of its bodies' momentum rows, alone, into F (only those entries
 * written). */
static void pair_share(const lucid_world *w, const sl_island *is, const sl_pair *q, const double *X,
                       const sl_body_next nb[2], double *F) {
    for (int k = 0; k < 2; ++k)
        if (q->var[k] >= 0) memset(F + q->var[k], 0, 6 * sizeof(double));
    pair_rows(w, is, q, X, nb, F);
}

/* Column j of J += the central difference (Fp - Fm) / 2h of pair q's share. */
static void add_difference(const sl_island *is, const sl_pair *q, const double *Fp,
                           const double *Fm, double h, double *J, int j) {
    size_t n = (size_t)is->ny + 2 * (size_t)is->na;
    double inv = 1.0 / (2.0 * h);
    for (int r = 0; r < q->nx; ++r)
        J[(size_t)(q->ix + r) * n + (size_t)j] += (Fp[q->ix + r] - Fm[q->ix + r]) * inv;
    for (int r = 0; r < q->na; ++r) {
        int row = is->ny + q->ia + r;
        J[(size_t)row * n + (size_t)j] += (Fp[row] - Fm[row]) * inv;
    }
    for (int k = 0; k < 2; ++k)
        for (int r = 0; q->var[k] >= 0 && r < 6; ++r) {
            int row = q->var[k] + r;
            J[(size_t)row * n + (size_t)j] += (Fp[row] - Fm[row]) * inv;
        }
}

/* The step of the central differences for an unknown of value x (single_level_ncp.c's). */
static double difference_step(double x) {
    return 1e-6 * fmax(1.0, fabs(x));
}

/* Momentum rows: M (v+ - v_free) has derivative m I in v+ and R I R^T in w+, exactly. */
static void momentum_jacobian(const lucid_world *w, const sl_island *is, double *J) {
    const struct lucid_world_single_level *sl = is->sl;
    size_t n = (size_t)is->ny + 2 * (size_t)is->na;
    for (int j = 0; j < is->num_bodies; ++j) {
        int i = sl->island_bodies[is->body0 + j];
        size_t var = (size_t)sl->body_var[i];
        const lucid_body *b = &w->bodies[i];
        lucid_mat3 RI = lucid_mat3_mul(&b->pose.R, &b->inertia);
        lucid_mat3 Rt = lucid_mat3_transpose(&b->pose.R);
        lucid_mat3 I = lucid_mat3_mul(&RI, &Rt);
        for (int r = 0; r < 3; ++r) {
            J[(var + (size_t)r) * n + var + (size_t)r] = b->mass;
            for (int c = 0; c < 3; ++c)
                J[(var + 3 + (size_t)r) * n + var + 3 + (size_t)c] = lucid_mat3_at(&I, r, c);
        }
    }
}

/* With a halfspace the normal is the plane's: the P-SDF duals z then enter only the
 * stationarity rows, linearly (Fx[3] -= z aa, Fx[eps] += z ae, Fx[0..2] += R_k z B). */
static void dual_columns(const lucid_world *w, const sl_island *is, const sl_pair *q,
                         const sl_body_next nb[2], double *J) {
    const struct lucid_world_single_level *sl = is->sl;
    size_t n = (size_t)is->ny + 2 * (size_t)is->na;
    for (int k = 0, r0 = 0; k < 2; r0 += q->m[k], ++k) {
        lucid_mat3 R;
        lucid_vec3 t;
        part_next(w, q->body[k], q->part[k], &nb[k], &R, &t);
        for (int r = 0; r < q->m[k]; ++r) {
            const lucid_pscaling_row *row = &sl->rows[q->row0 + r0 + r];
            size_t j = (size_t)(is->ny + is->na + q->ia + r0 + r);
            lucid_vec3 RB = lucid_mat3_mul_vec(&R, row->B);
            J[(size_t)q->ix * n + j] = RB.x;
            J[(size_t)(q->ix + 1) * n + j] = RB.y;
            J[(size_t)(q->ix + 2) * n + j] = RB.z;
            J[(size_t)(q->ix + 3) * n + j] = -row->aa;
            if (q->eps[k] >= 0) J[(size_t)(q->ix + q->eps[k]) * n + j] = row->ae;
        }
    }
}

/* A pair's own unknowns (p, alpha, eps.. and its duals b) enter its rows and its bodies'
 * momentum only; its slacks a enter each its own row, with coefficient 1 (psi none). */
static void pair_jacobian(const lucid_world *w, sl_island *is, const sl_pair *q, double *X,
                          double *J) {
    const struct lucid_world_single_level *sl = is->sl;
    size_t n = (size_t)is->ny + 2 * (size_t)is->na;
    int mc = q->m[0] + q->m[1];
    for (int r = 0; r < q->na; ++r) {
        size_t i = (size_t)(is->ny + q->ia + r);
        if (!(q->mu > 0.0 && r == mc + 1)) J[i * n + i] = 1.0;
    }
    sl_body_next nb[2] = {sl->next[q->body[0]], sl->next[q->body[1]]};
    if (q->halfspace) dual_columns(w, is, q, nb, J);
    for (int c = 0; c < q->nx + q->na; ++c) {
        if (q->halfspace && c >= q->nx && c < q->nx + mc) continue; /* dual_columns' */
        int j = c < q->nx ? q->ix + c : is->ny + is->na + q->ia + (c - q->nx);
        double x = X[j], h = difference_step(x);
        X[j] = x + h;
        pair_share(w, is, q, X, nb, is->ws.Ft);
        X[j] = x - h;
        pair_share(w, is, q, X, nb, is->ws.Fm);
        X[j] = x;
        add_difference(is, q, is->ws.Ft, is->ws.Fm, h, J, j);
    }
}

/* A body's (v+, w+) enter the pairs it is in, through its next pose. */
static void body_jacobian(const lucid_world *w, sl_island *is, int body, double *X, double *J) {
    const struct lucid_world_single_level *sl = is->sl;
    int var = sl->body_var[body];
    for (int c = 0; c < 6; ++c) {
        int j = var + c;
        double x = X[j], h = difference_step(x);
        X[j] = x + h;
        sl_body_next plus = body_next(w, body, var, X);
        X[j] = x - h;
        sl_body_next minus = body_next(w, body, var, X);
        X[j] = x;
        for (int k = 0; k < is->num_pairs; ++k) {
            const sl_pair *q = &sl->pairs[is->pair0 + k];
            if (q->body[0] != body && q->body[1] != body) continue;
            int side = q->body[1] == body;
            sl_body_next nb[2] = {sl->next[q->body[0]], sl->next[q->body[1]]};
            nb[side] = plus;
            pair_share(w, is, q, X, nb, is->ws.Ft);
            nb[side] = minus;
            pair_share(w, is, q, X, nb, is->ws.Fm);
            add_difference(is, q, is->ws.Ft, is->ws.Fm, h, J, j);
        }
    }
}

/* dF/dX of one island's NCP (ctx: the island): central differences column by column as
 * single_level_ncp.c takes them, but of the pairs each unknown enters only, the bodies' next
 * poses computed once, and the terms linear in the unknowns exactly. */
static void island_jacobian(void *ctx, double *X, double *J) {
    sl_island *is = ctx;
    struct lucid_world_single_level *sl = is->sl;
    const lucid_world *w = sl->w;
    size_t n = (size_t)is->ny + 2 * (size_t)is->na, ne = (size_t)is->ny + (size_t)is->na;
    memset(J, 0, ne * n * sizeof(double));
    for (int k = 0; k < is->num_pairs; ++k) { /* the next states at X (static bodies too) */
        const sl_pair *q = &sl->pairs[is->pair0 + k];
        for (int j = 0; j < 2; ++j) sl->next[q->body[j]] = body_next(w, q->body[j], q->var[j], X);
    }
    momentum_jacobian(w, is, J);
    for (int k = 0; k < is->num_pairs; ++k) pair_jacobian(w, is, &sl->pairs[is->pair0 + k], X, J);
    for (int j = 0; j < is->num_bodies; ++j)
        body_jacobian(w, is, sl->island_bodies[is->body0 + j], X, J);
}

/* ---- the problem's layout ----------------------------------------------------------------- */

static lucid_status add_block(struct lucid_world_single_level *sl, int start) {
    lucid_status s = lucid_world_reserve((void **)&sl->block_start, &sl->block_cap,
                                         (size_t)sl->num_blocks + 2, sizeof(int));
    if (s == LUCID_OK) sl->block_start[sl->num_blocks++] = start;
    return s;
}

static void pair_name(const lucid_world *w, int a, int ia, int b, int ib, char *buf, size_t n) {
    const lucid_body *ba = &w->bodies[a], *bb = &w->bodies[b];
    snprintf(buf, n, "(%s, part %d of body %d; %s, part %d of body %d)",
             lucid_shape_kind_name(w->parts[ba->part_begin + ia].shape.kind), ia + 1, a + 1,
             lucid_shape_kind_name(w->parts[bb->part_begin + ib].shape.kind), ib + 1, b + 1);
}

/* The pair's friction (the smaller of its bodies'), its torsional and rolling coefficients
 * (the larger of its bodies', where it has friction: lucid_world_pair_contact's and
 * lucid_world_pair_rolling's rule for plain bodies) and the size of its friction block. */
static void pair_friction(const lucid_world *w, sl_pair *q) {
    const lucid_body *a = &w->bodies[q->body[0]], *b = &w->bodies[q->body[1]];
    q->mu = fmin(a->friction, b->friction);
    q->mu_t = q->mu > 0.0 ? fmax(a->torsion, b->torsion) : 0.0;
    q->mu_r = q->mu > 0.0 ? fmax(a->rolling, b->rolling) : 0.0;
    q->fb = !(q->mu > 0.0)  ? 0
            : q->mu_r > 0.0 ? ROLLING_BLOCK
            : q->mu_t > 0.0 ? TORSION_BLOCK
                            : FRICTION_BLOCK;
}

/* Appends the pair (a, ia; b, ib) to island `island` (the last one): its rows, cone blocks
 * and unknowns. */
static lucid_status add_pair(lucid_world *w, struct lucid_world_single_level *sl, int island, int a,
                             int ia, int b, int ib) {
    sl_island *is = &sl->islands[island];
    lucid_status s = lucid_world_reserve((void **)&sl->pairs, &sl->pair_cap,
                                         (size_t)sl->num_pairs + 1, sizeof *sl->pairs);
    if (s == LUCID_OK)
        s = lucid_world_reserve((void **)&sl->rows, &sl->row_cap,
                                (size_t)sl->num_rows + PAIR_MAX_ROWS, sizeof *sl->rows);
    if (s != LUCID_OK) return s;
    sl_pair *q = &sl->pairs[sl->num_pairs];
    q->body[0] = a, q->body[1] = b, q->part[0] = ia, q->part[1] = ib;
    q->island = island;
    q->row0 = sl->num_rows;
    pair_friction(w, q);
    q->halfspace = 0;
    q->nx = 4;
    q->ia = is->na;
    int used = 0;
    for (int k = 0; k < 2; ++k) {
        const lucid_shape *sh = pair_shape(w, q, k);
        int starts[PAIR_MAX_ROWS + 1], nblocks;
        int m = lucid_pscaling_shape_rows(sh, sl->rows + q->row0 + used, PAIR_MAX_ROWS - used,
                                          starts, PAIR_MAX_ROWS, &nblocks);
        if (m < 0) {
            char name[100];
            pair_name(w, a, ia, b, ib, name, sizeof name);
            snprintf(w->d.error, sizeof w->d.error,
                     "single_level: the pair %.100s needs more than %d P-SDF rows", name,
                     PAIR_MAX_ROWS);
            return LUCID_ERR_ARGUMENT;
        }
        for (int j = 0; j < nblocks; ++j) {
            s = add_block(sl, q->ia + used + starts[j]);
            if (s != LUCID_OK) return s;
        }
        q->m[k] = m;
        used += m;
        q->eps[k] = sh->kind == LUCID_SHAPE_CAPSULE ? q->nx++ : -1;
        q->centre[k] = lucid_pscaling_centre(sh);
        if (sh->kind == LUCID_SHAPE_HALFSPACE) q->halfspace = k + 1;
        q->var[k] = sl->body_var[k ? b : a];
    }
    sl->num_rows += used;
    s = add_block(sl, q->ia + used); /* (s_gamma, gamma) */
    if (s == LUCID_OK && q->fb > 0) s = add_block(sl, q->ia + used + 1);
    if (s != LUCID_OK) return s;
    q->na = used + 1 + q->fb;
    is->na += q->na;
    ++sl->num_pairs, ++is->num_pairs;
    return LUCID_OK;
}

/* A body moves in the NCP when it is free (links and static bodies do not). */
static int is_free(const lucid_body *b) {
    return !b->is_static && b->model < 0;
}

/* How far a body may travel in one step, to grow its box: 2 dt (|v| + |w| r). */
static double travel(const lucid_world *w, int i) {
    const lucid_body *b = &w->bodies[i];
    if (!is_free(b)) return 0.0;
    double r = 0.0;
    for (int k = 0; k < b->num_parts; ++k) {
        const lucid_body_part *p = &w->parts[b->part_begin + k];
        r = fmax(r, lucid_vec3_dist(p->pose.t, b->com) + lucid_pscaling_radius(&p->shape));
    }
    return 2.0 * w->opt.dt *
           (lucid_vec3_norm(w->d.v_free[i]) + lucid_vec3_norm(w->d.w_free[i]) * r);
}

static void broad_bodies(const void *ctx, int k, int *body1, int *body2) {
    const lucid_broad_pair *bp = &((const lucid_broad_pair *)ctx)[k];
    *body1 = bp->a, *body2 = bp->b;
}

/* Starts island number sl->num_islands (initialising its entry the first time). */
static lucid_status new_island(struct lucid_world_single_level *sl) {
    lucid_status s = lucid_world_reserve((void **)&sl->islands, &sl->island_cap,
                                         (size_t)sl->num_islands + 1, sizeof *sl->islands);
    if (s != LUCID_OK) return s;
    sl_island *is = &sl->islands[sl->num_islands];
    if (sl->num_islands >= sl->islands_made) memset(is, 0, sizeof *is), ++sl->islands_made;
    is->pair0 = sl->num_pairs, is->num_pairs = 0;
    is->block0 = sl->num_blocks, is->num_blocks = 0;
    is->body0 = sl->num_island_bodies, is->num_bodies = 0;
    is->ny = is->na = 0;
    is->sl = sl;
    return LUCID_OK;
}

/* The moving bodies of the candidate pairs items[0..m) their unknowns in island is, in the
 * order they first appear. */
static lucid_status island_bodies(lucid_world *w, struct lucid_world_single_level *sl,
                                  sl_island *is, const lucid_broad_pair *bp, const int *items,
                                  int m) {
    for (int k = 0; k < m; ++k)
        for (int j = 0; j < 2; ++j) {
            int i = j ? bp[items[k]].b : bp[items[k]].a;
            if (!is_free(&w->bodies[i]) || sl->body_var[i] >= 0) continue;
            lucid_status s =
                lucid_world_reserve((void **)&sl->island_bodies, &sl->island_bodies_cap,
                                    (size_t)sl->num_island_bodies + 1, sizeof(int));
            if (s != LUCID_OK) return s;
            sl->island_bodies[sl->num_island_bodies++] = i, ++is->num_bodies;
            sl->body_var[i] = is->ny, is->ny += 6;
        }
    return LUCID_OK;
}

/* The island's unknowns pair by pair (its p, alpha, eps.., slacks and duals), then the bodies'
 * velocities: a pair's columns meet only its own rows and its bodies' momentum rows, so the LU
 * fills within a pair and the bodies' columns, where the natural order (all velocities, then
 * all x, all a, all b) filled the whole matrix. */
static void elimination_order(const struct lucid_world_single_level *sl, const sl_island *is,
                              int *order) {
    int k = 0;
    for (int j = 0; j < is->num_pairs; ++j) {
        const sl_pair *q = &sl->pairs[is->pair0 + j];
        for (int i = 0; i < q->nx; ++i) order[k++] = q->ix + i;
        for (int i = 0; i < q->na; ++i) order[k++] = is->ny + q->ia + i;
        for (int i = 0; i < q->na; ++i) order[k++] = is->ny + is->na + q->ia + i;
    }
    for (int j = 0; j < is->num_bodies; ++j)
        for (int i = 0; i < 6; ++i) order[k++] = sl->body_var[sl->island_bodies[is->body0 + j]] + i;
}

/* One island's NCP from its candidate pairs items[0..m): bodies, then every pair of parts
 * (two halfspaces excepted), then the pairs' (p, alpha, eps..) after the velocities. An island
 * left without a pair is dropped (its bodies keep their free flight). */
static lucid_status build_island(lucid_world *w, struct lucid_world_single_level *sl,
                                 const lucid_broad_pair *bp, const int *items, int m) {
    lucid_status s = new_island(sl);
    if (s != LUCID_OK) return s;
    int id = sl->num_islands;
    sl_island *is = &sl->islands[id];
    s = island_bodies(w, sl, is, bp, items, m);
    for (int k = 0; s == LUCID_OK && k < m; ++k) {
        int a = bp[items[k]].a, b = bp[items[k]].b;
        for (int ia = 0; s == LUCID_OK && ia < w->bodies[a].num_parts; ++ia)
            for (int ib = 0; s == LUCID_OK && ib < w->bodies[b].num_parts; ++ib) {
                const lucid_shape *sa = &w->parts[w->bodies[a].part_begin + ia].shape;
                const lucid_shape *sb = &w->parts[w->bodies[b].part_begin + ib].shape;
                if (sa->kind == LUCID_SHAPE_HALFSPACE && sb->kind == LUCID_SHAPE_HALFSPACE)
                    continue;
                /* P-scaling needs convex shapes: height fields are not in this pipeline */
                if (sa->kind == LUCID_SHAPE_HEIGHTFIELD || sb->kind == LUCID_SHAPE_HEIGHTFIELD)
                    return fail(w, LUCID_ERR_ARGUMENT,
                                "height fields are not supported (not convex); use collision = "
                                "two_stage");
                s = add_pair(w, sl, id, a, ia, b, ib);
                is = &sl->islands[id];
            }
    }
    if (s != LUCID_OK) return s;
    if (is->num_pairs == 0) {
        for (int j = 0; j < is->num_bodies; ++j)
            sl->body_var[sl->island_bodies[is->body0 + j]] = -1;
        sl->num_island_bodies = is->body0;
        return LUCID_OK;
    }
    for (int k = 0; k < is->num_pairs; ++k) { /* x after the velocities */
        sl->pairs[is->pair0 + k].ix = is->ny;
        is->ny += sl->pairs[is->pair0 + k].nx;
    }
    is->num_blocks = sl->num_blocks - is->block0;
    s = add_block(sl, is->na); /* the end of its a */
    if (s != LUCID_OK) return s;
    is->off = sl->num_unknowns;
    size_t n = (size_t)is->ny + 2 * (size_t)is->na;
    sl->num_unknowns += n;
    ++sl->num_islands;
    s = lucid_world_reserve((void **)&sl->order, &sl->order_cap, sl->num_unknowns, sizeof(int));
    if (s == LUCID_OK) elimination_order(sl, is, sl->order + is->off);
    return s == LUCID_OK ? lucid_ncp_reserve(&is->ws, n) : s;
}

/* The broad phase's pairs, grown by each moving body's travel, grouped into islands. */
static lucid_status gather_pairs(lucid_world *w, struct lucid_world_single_level *sl) {
    size_t nb = (size_t)w->num_bodies;
    lucid_status s = lucid_world_reserve((void **)&sl->extra, &sl->extra_cap, nb, sizeof(double));
    if (s == LUCID_OK)
        s = lucid_world_reserve((void **)&sl->body_var, &sl->body_var_cap, nb, sizeof(int));
    if (s == LUCID_OK)
        s = lucid_world_reserve((void **)&sl->next, &sl->next_cap, nb, sizeof *sl->next);
    if (s != LUCID_OK) return s;
    for (int i = 0; i < w->num_bodies; ++i) sl->extra[i] = travel(w, i), sl->body_var[i] = -1;
    s = lucid_world_broad_phase(w, sl->extra);
    if (s != LUCID_OK) return s;
    int np = lucid_broad_phase_pair_count(w->d.broad);
    const lucid_broad_pair *bp = lucid_broad_phase_pairs(w->d.broad);
    w->d.stats.candidate_pairs = np;
    sl->num_pairs = sl->num_rows = sl->num_blocks = sl->num_islands = 0;
    sl->num_island_bodies = 0;
    sl->num_unknowns = 0;
    s = lucid_world_build_islands(w, np, broad_bodies, bp);
    for (int i = 0; s == LUCID_OK && i < w->d.num_islands; ++i) {
        int lo = w->d.island_start[i], hi = w->d.island_start[i + 1];
        s = build_island(w, sl, bp, w->d.island_contacts + lo, hi - lo);
    }
    return s;
}

/* ---- starting point -------------------------------------------------------------------------- */

/* Moves each block of u strictly inside its cone by at least `shift`. */
static void push_inside(const sl_island *is, const sl_pair *q, double *u, double shift) {
    const int *block_start = island_blocks(is);
    for (int k = 0; k < is->num_blocks; ++k) {
        int lo = block_start[k], hi = block_start[k + 1];
        if (lo < q->ia || lo >= q->ia + q->na) continue;
        lo -= q->ia, hi -= q->ia;
        double r = 0.0;
        for (int i = lo + 1; i < hi; ++i) r += u[i] * u[i];
        u[lo] = fmax(u[lo], CONE_DEPTH * sqrt(r) + shift);
    }
}

static int cache_matches(const sl_cache *c, const sl_pair *q) {
    return c->body[0] == q->body[0] && c->body[1] == q->body[1] && c->part[0] == q->part[0] &&
           c->part[1] == q->part[1] && c->nx == q->nx && c->na == q->na;
}

/* The last step's solution of pair q, looked up first where pair number `hint` (q's index) was
 * stored (pairs come in the same order from step to step), then among all. */
static const sl_cache *find_cache(const struct lucid_world_single_level *sl, const sl_pair *q,
                                  int hint) {
    if (hint < sl->num_cache && cache_matches(&sl->cache[hint], q)) return &sl->cache[hint];
    for (int k = 0; k < sl->num_cache; ++k)
        if (cache_matches(&sl->cache[k], q)) return &sl->cache[k];
    return NULL;
}

/* A new pair: p and alpha from the P-SDF query at the current poses, s from the rows, z, gamma
 * and the friction variables at the scale of the pair's weight impulse. */
static void cold_start(lucid_world *w, const sl_island *is, const sl_pair *q, double *X) {
    double *x = X + q->ix, *a = X + is->ny + q->ia, *b = a + is->na;
    const int *block_start = island_blocks(is);
    lucid_se3 T[2];
    double mass = INFINITY;
    for (int k = 0; k < 2; ++k) {
        const lucid_body *bd = &w->bodies[q->body[k]];
        sl_body_next nb = body_next(w, q->body[k], q->var[k], X); /* the free flight's pose */
        part_next(w, q->body[k], q->part[k], &nb, &T[k].R, &T[k].t);
        if (is_free(bd)) mass = fmin(mass, bd->mass);
    }
    lucid_pscaling_options po;
    lucid_pscaling_options_default(&po);
    lucid_pscaling_result r;
    memset(&r, 0, sizeof r);
    lucid_pscaling(pair_shape(w, q, 0), &T[0], pair_shape(w, q, 1), &T[1], &po, &r);
    lucid_vec3_store(r.point, x);
    x[3] = isfinite(r.alpha) ? r.alpha : 1.0;
    for (int k = 4; k < q->nx; ++k) x[k] = 0.0;
    double weight = fmax(mass * lucid_vec3_norm(w->opt.gravity) * w->opt.dt, 1e-6);
    int mc = q->m[0] + q->m[1];
    for (int i = 0; i < q->na; ++i) a[i] = b[i] = 0.0;
    int nblocks = 0;
    for (int k = 0; k < is->num_blocks; ++k)
        if (block_start[k] >= q->ia && block_start[k] < q->ia + mc) ++nblocks;
    for (int k = 0; k < is->num_blocks; ++k) {
        int lo = block_start[k];
        if (lo >= q->ia && lo < q->ia + mc) b[lo - q->ia] = 1.0 / nblocks;
    }
    a[mc] = fmax(x[3] - 1.0, 0.0);
    b[mc] = weight;
    if (q->mu > 0.0) b[mc + 1] = q->mu * weight;
}

/* Fills X's start: the free velocities scaled by vscale (1: the free flight, 0: at rest), each
 * pair's cached solution (warm start) or cold start, then the rows' slacks from the residual and
 * every cone variable pushed inside. */
static int start_point(lucid_world *w, sl_island *is, double *X, int warm_ok, double vscale) {
    const struct lucid_world_single_level *sl = is->sl;
    for (int j = 0; j < is->num_bodies; ++j) {
        int i = sl->island_bodies[is->body0 + j], var = sl->body_var[i];
        lucid_vec3_store(lucid_vec3_scale(w->d.v_free[i], vscale), X + var);
        lucid_vec3_store(lucid_vec3_scale(w->d.w_free[i], vscale), X + var + 3);
    }
    int warm[is->num_pairs > 0 ? is->num_pairs : 1], any = 0;
    for (int k = 0; k < is->num_pairs; ++k) {
        const sl_pair *q = &sl->pairs[is->pair0 + k];
        const sl_cache *c =
            warm_ok && w->opt.single_level.warm_start ? find_cache(sl, q, is->pair0 + k) : NULL;
        warm[k] = c != NULL;
        any |= warm[k];
        if (!c) {
            cold_start(w, is, q, X);
            continue;
        }
        memcpy(X + q->ix, c->v, (size_t)q->nx * sizeof(double));
        memcpy(X + is->ny + q->ia, c->v + q->nx, (size_t)q->na * sizeof(double));
        memcpy(X + is->ny + is->na + q->ia, c->v + q->nx + q->na, (size_t)q->na * sizeof(double));
    }
    /* slacks of a cold pair: the values its equations give them (residual = a - value) */
    double *F = is->ws.Ft;
    residual(is, X, F);
    for (int k = 0; k < is->num_pairs; ++k) {
        const sl_pair *q = &sl->pairs[is->pair0 + k];
        double *a = X + is->ny + q->ia, *b = a + is->na;
        if (!warm[k])
            for (int i = 0; i < q->na; ++i) a[i] -= F[is->ny + q->ia + i];
        if (q->mu > 0.0 && !warm[k]) { /* psi is no equation's: start it on the cone's axis */
            int mc = q->m[0] + q->m[1];
            a[mc + 1] = 0.0;
            for (int i = mc + 2; i < mc + 1 + q->fb; ++i) b[i] = 0.0;
        }
        push_inside(is, q, a, warm[k] ? WARM_SHIFT : COLD_SHIFT);
        push_inside(is, q, b, warm[k] ? WARM_SHIFT : COLD_SHIFT);
    }
    return any;
}

/* ---- results ------------------------------------------------------------------------------ */

/* Pair q's island's unknowns in sl->X. */
static const sl_island *pair_island(const struct lucid_world_single_level *sl, const sl_pair *q,
                                    const double **X) {
    const sl_island *is = &sl->islands[q->island];
    *X = sl->X + is->off;
    return is;
}

/* Every pair's solution, kept for the next step's warm start. */
static lucid_status remember(struct lucid_world_single_level *sl) {
    lucid_status s = lucid_world_reserve((void **)&sl->cache_next, &sl->cache_next_cap,
                                         (size_t)sl->num_pairs, sizeof(sl_cache));
    if (s != LUCID_OK) return s;
    for (int k = 0; k < sl->num_pairs; ++k) {
        const sl_pair *q = &sl->pairs[k];
        const double *X;
        const sl_island *is = pair_island(sl, q, &X);
        sl_cache *c = &sl->cache_next[k];
        c->body[0] = q->body[0], c->body[1] = q->body[1];
        c->part[0] = q->part[0], c->part[1] = q->part[1];
        c->nx = q->nx, c->na = q->na;
        memcpy(c->v, X + q->ix, (size_t)q->nx * sizeof(double));
        memcpy(c->v + q->nx, X + is->ny + q->ia, (size_t)q->na * sizeof(double));
        memcpy(c->v + q->nx + q->na, X + is->ny + is->na + q->ia, (size_t)q->na * sizeof(double));
    }
    sl_cache *t = sl->cache;
    size_t tc = sl->cache_cap;
    sl->cache = sl->cache_next, sl->cache_cap = sl->cache_next_cap;
    sl->cache_next = t, sl->cache_next_cap = tc;
    sl->num_cache = sl->num_pairs;
    return LUCID_OK;
}

/* One world contact per pair: p, the frame of the normal, phi = alpha - 1 as `separation`,
 * the impulse / dt as force. */
static lucid_status publish_contacts(lucid_world *w, struct lucid_world_single_level *sl) {
    w->d.num_contacts = 0;
    for (int k = 0; k < sl->num_pairs; ++k) {
        const sl_pair *q = &sl->pairs[k];
        const double *X;
        const sl_island *is = pair_island(sl, q, &X);
        const double *x = X + q->ix, *b = X + is->ny + is->na + q->ia;
        int mc = q->m[0] + q->m[1];
        /* the normal as the residual used it: recomputed from the duals */
        lucid_vec3 n;
        sl_body_next nb[2];
        lucid_mat3 R[2];
        lucid_vec3 wk[2];
        for (int j = 0; j < 2; ++j) {
            nb[j] = body_next(w, q->body[j], q->var[j], X);
            lucid_vec3 t;
            part_next(w, q->body[j], q->part[j], &nb[j], &R[j], &t);
            lucid_vec3 zB = lucid_vec3_zero();
            int first = q->row0 + (j ? q->m[0] : 0), off = j ? q->m[0] : 0;
            for (int r = 0; r < q->m[j]; ++r)
                zB = lucid_vec3_axpy(zB, b[off + r], sl->rows[first + r].B);
            wk[j] = lucid_mat3_mul_vec(&R[j], zB);
        }
        if (q->halfspace) {
            n = lucid_mat3_mul_vec(&R[q->halfspace - 1],
                                   pair_shape(w, q, q->halfspace - 1)->u.halfspace.normal);
            if (q->halfspace == 2) n = lucid_vec3_neg(n);
        } else {
            n = lucid_vec3_normalized(lucid_vec3_sub(wk[1], wk[0]));
        }
        lucid_world_contact c;
        memset(&c, 0, sizeof c);
        c.body1 = q->body[0], c.body2 = q->body[1], c.part1 = q->part[0], c.part2 = q->part[1];
        lucid_vec3 t1 = lucid_vec3_any_orthogonal(n);
        c.frame = lucid_mat3_from_cols(t1, lucid_vec3_cross(n, t1), n);
        c.point = lucid_vec3_load(x);
        c.separation = x[3] - 1.0;
        c.friction = q->mu;
        lucid_vec3 imp = lucid_vec3_scale(n, b[mc]);
        if (q->mu > 0.0) imp = lucid_vec3_add(imp, lucid_vec3_load(b + mc + 2));
        lucid_vec3 f = lucid_vec3_scale(lucid_mat3_tmul_vec(&c.frame, imp), 1.0 / w->opt.dt);
        lucid_vec3_store(f, c.force);
        if (q->fb >= TORSION_BLOCK && q->mu_t > 0.0) { /* the couple on body 2 about n */
            c.torsion = q->mu_t;
            c.torsion_force = q->mu_t / q->mu * b[mc + 5] / w->opt.dt;
        }
        if (q->fb == ROLLING_BLOCK) { /* and about t1, t2 */
            lucid_vec3 rho =
                lucid_vec3_scale(lucid_vec3_load(b + mc + 6), q->mu_r / q->mu / w->opt.dt);
            c.rolling = q->mu_r;
            c.rolling_force[0] = lucid_vec3_dot(lucid_mat3_col(&c.frame, 0), rho);
            c.rolling_force[1] = lucid_vec3_dot(lucid_mat3_col(&c.frame, 1), rho);
        }
        lucid_status s = lucid_world_push_contact(w, &c);
        if (s != LUCID_OK) return s;
    }
    return LUCID_OK;
}

/* ---- the solve: starts tried in turn ----------------------------------------------------------
 */

/* Kinetic + gravitational energy of the NCP's moving bodies, now (X NULL) or after the step X
 * describes (com velocity v+, w+, the pose of the world's integrator); *kinetic gets the
 * kinetic part when not NULL. */
static double moving_energy(const lucid_world *w, const sl_island *is, const double *X,
                            double *kinetic) {
    const struct lucid_world_single_level *sl = is->sl;
    double e = 0.0, k = 0.0;
    for (int j = 0; j < is->num_bodies; ++j) {
        int i = sl->island_bodies[is->body0 + j], var = sl->body_var[i];
        const lucid_body *b = &w->bodies[i];
        lucid_vec3 v, om, c;
        lucid_mat3 R;
        if (X) {
            sl_body_next nb = body_next(w, i, var, X);
            v = nb.v, om = nb.om, c = nb.c, R = nb.R;
        } else {
            c = lucid_body_com_world(b), R = b->pose.R, om = b->w;
            v = lucid_vec3_add(b->v, lucid_vec3_cross(b->w, lucid_mat3_mul_vec(&R, b->com)));
        }
        lucid_vec3 ob = lucid_mat3_tmul_vec(&R, om);
        double ki = 0.5 * b->mass * lucid_vec3_norm2(v) +
                    0.5 * lucid_vec3_dot(ob, lucid_mat3_mul_vec(&b->inertia, ob));
        k += ki;
        e += ki - b->mass * lucid_vec3_dot(w->opt.gravity, c);
    }
    if (kinetic) *kinetic = k;
    return e;
}

/* The starts tried in turn while none has given an admissible answer: the warm start (capped at
 * WARM_ITERATIONS), then cold starts with the bodies' velocities at vscale times the free
 * flight's (1: the free flight, 0: at rest, then points between), each solved directly
 * (kappa0 = 0) and by following the central path from kappa0. */
static const struct {
    double vscale, kappa0;
} STARTS[] = {{1.0, 0.0},  {1.0, 1e-1}, {0.0, 0.0},   {0.0, 1e-1}, {0.5, 0.0},
              {0.5, 1e-1}, {0.25, 0.0}, {0.25, 1e-1}, {0.75, 0.0}, {0.75, 1e-1}};
#define NUM_STARTS ((int)(sizeof STARTS / sizeof STARTS[0]))
/* An answer is admissible when the moving bodies' energy does not rise by more than this share
 * of their kinetic energy plus m g^2 dt^2 (twice what a free-flight step of the integrator
 * loses), plus kappa r / dt per pair (r: the larger bounding radius; the work the relaxed
 * impulse gamma = kappa / phi may do: a box landing at 300 Hz, kappa 1e-4, is lifted by its
 * relaxed gap, +4.6e-3 J, the same answer from every start). At 10 Hz the NCP has spurious
 * solutions that spin a landing box up (docs/single_level.md). */
#define ENERGY_RISE 1e-3

/* The highest admissible energy after the step (above); *scale gets kinetic + m g^2 dt^2. */
static double energy_bound(const lucid_world *w, const sl_island *is, double *scale) {
    const struct lucid_world_single_level *sl = is->sl;
    double kinetic, e0 = moving_energy(w, is, NULL, &kinetic), weight = 0.0, relax = 0.0;
    double g2dt2 = lucid_vec3_norm2(w->opt.gravity) * w->opt.dt * w->opt.dt;
    for (int j = 0; j < is->num_bodies; ++j)
        weight += w->bodies[sl->island_bodies[is->body0 + j]].mass * g2dt2;
    for (int k = 0; k < is->num_pairs; ++k) {
        double r = 0.0;
        for (int j = 0; j < 2; ++j) {
            const lucid_shape *sh = pair_shape(w, &sl->pairs[is->pair0 + k], j);
            if (sh->kind != LUCID_SHAPE_HALFSPACE) r = fmax(r, lucid_pscaling_radius(sh));
        }
        relax += w->opt.single_level.kappa * r / w->opt.dt;
    }
    *scale = kinetic + weight;
    return e0 + ENERGY_RISE * *scale + relax;
}

/* Solves island is's NCP from the starts in turn (above) into its part of sl->X; *out reports
 * the answer taken, its iterations those of every start tried. */
static lucid_status solve_island(lucid_world *w, sl_island *is, lucid_ncp_result *out) {
    struct lucid_world_single_level *sl = is->sl;
    lucid_ncp_problem p = {
        is->ny, is->na,          is->num_blocks,        island_blocks(is),  residual,
        is,     island_jacobian, !w->d.single_level_lu, sl->order + is->off};
    const lucid_single_level_options *opt = &w->opt.single_level;
    size_t n = (size_t)is->ny + 2 * (size_t)is->na;
    double *X = sl->X + is->off, *Xbest = sl->Xbest + is->off;
    double scale, allowed = energy_bound(w, is, &scale), best = INFINITY;
    int iterations = 0, have_best = 0;
    lucid_status s = LUCID_OK, sbest = LUCID_OK;
    lucid_ncp_result res, rbest;
    memset(&res, 0, sizeof res);
    memset(&rbest, 0, sizeof rbest);
    memset(out, 0, sizeof *out);
    int warm = start_point(w, is, X, 1, 1.0);
    for (int k = warm ? -1 : 0; k < NUM_STARTS; ++k) {
        lucid_single_level_options o = *opt;
        if (k < 0) {
            if (o.max_iter > WARM_ITERATIONS) o.max_iter = WARM_ITERATIONS;
            s = lucid_ncp_solve(&p, &o, X, &is->ws, &res);
        } else {
            if (k > 0 || warm) start_point(w, is, X, 0, STARTS[k].vscale);
            s = STARTS[k].kappa0 > 0.0
                    ? lucid_ncp_solve_continued(&p, &o, STARTS[k].kappa0, X, &is->ws, &res)
                    : lucid_ncp_solve(&p, &o, X, &is->ws, &res);
        }
        iterations += res.iterations;
        if (s == LUCID_ERR_SINGULAR) continue;
        double e = res.converged ? moving_energy(w, is, X, NULL) : INFINITY;
        if (res.converged && e <= allowed) {
            res.iterations = iterations;
            *out = res;
            return s;
        }
        /* a second start converging to the energy of the best answer: the same answer, the
         * rise is the step's own (more starts would find it again) */
        if (res.converged && fabs(e - best) <= 1e-6 * scale + 1e-12) break;
        /* keep the lowest-energy converged answer, else the first iterate */
        if (!have_best || (res.converged && e < best)) {
            memcpy(Xbest, X, n * sizeof(double));
            best = e, rbest = res, sbest = s, have_best = 1;
        }
    }
    if (!have_best) {
        out->iterations = iterations;
        return s;
    }
    memcpy(X, Xbest, n * sizeof(double));
    if (rbest.converged) /* the factorisation at that answer, for derivatives */
        sbest = lucid_ncp_solve(&p, opt, X, &is->ws, &rbest);
    rbest.iterations = iterations;
    *out = rbest;
    return sbest;
}

/* Every island's NCP solved alone; the stats sum the iterations and report the worst island
 * (converged only when all are). The moving bodies get their v+, w+. */
static lucid_status solve_islands(lucid_world *w, struct lucid_world_single_level *sl) {
    w->d.stats.solver_iterations = 0;
    w->d.stats.converged = 1;
    w->d.stats.residual = 0.0;
    lucid_status s = LUCID_RESERVE(w, d.island_info, (size_t)sl->num_islands);
    if (s != LUCID_OK) return fail(w, s, "island reports");
    for (int i = 0; i < sl->num_islands; ++i) {
        sl_island *is = &sl->islands[i];
        lucid_ncp_result res;
        s = solve_island(w, is, &res);
        int dim = 3; /* 4 with a torsional pair, 6 with a rolling one (as the two-stage rows) */
        for (int k = 0; k < is->num_pairs; ++k) {
            const sl_pair *q = &sl->pairs[is->pair0 + k];
            dim = q->mu_r > 0.0 ? 6 : q->mu_t > 0.0 && dim < 4 ? 4 : dim;
        }
        w->d.island_info[i] =
            (lucid_world_island_info){.contacts = is->num_pairs,
                                      .dim = dim,
                                      .solver = LUCID_CONTACT_NEWTON,
                                      .answer = LUCID_ISLAND_NEWTON,
                                      .attempts = 1u << LUCID_ISLAND_NEWTON,
                                      .iterations = res.iterations,
                                      .converged = res.converged,
                                      .residual = fmax(res.residual, res.complementarity)};
        w->d.num_island_info = i + 1;
        w->d.stats.solver_iterations += res.iterations;
        w->d.stats.converged = w->d.stats.converged && res.converged;
        w->d.stats.residual = fmax(w->d.stats.residual, fmax(res.residual, res.complementarity));
        if (s == LUCID_ERR_SINGULAR) return fail(w, s, "singular Newton system");
        const double *X = sl->X + is->off;
        for (int j = 0; j < is->num_bodies; ++j) {
            int b = sl->island_bodies[is->body0 + j], var = sl->body_var[b];
            w->d.v_free[b] = lucid_vec3_load(X + var);
            w->d.w_free[b] = lucid_vec3_load(X + var + 3);
        }
    }
    w->d.stats.scaled_residual = w->d.stats.residual;
    return LUCID_OK;
}

lucid_status lucid_world_step_single_level(lucid_world *w) {
    lucid_status s = lucid_world_step_begin(w);
    if (s != LUCID_OK) return s;
    if (w->num_models > 0)
        return fail(w, LUCID_ERR_ARGUMENT,
                    "models (robots) are not supported; use collision = two_stage");
    if (!w->d.single_level) {
        w->d.single_level = calloc(1, sizeof *w->d.single_level);
        if (!w->d.single_level) return fail(w, LUCID_ERR_NO_MEMORY, "out of memory");
    }
    struct lucid_world_single_level *sl = w->d.single_level;
    sl->w = w;
    s = gather_pairs(w, sl);
    if (s != LUCID_OK) return w->d.error[0] ? s : fail(w, s, "pair buffers");
    size_t n = sl->num_unknowns > 0 ? sl->num_unknowns : 1;
    s = lucid_world_reserve((void **)&sl->X, &sl->X_cap, n, sizeof(double));
    if (s == LUCID_OK)
        s = lucid_world_reserve((void **)&sl->Xbest, &sl->Xbest_cap, n, sizeof(double));
    if (s != LUCID_OK) return fail(w, s, "NCP buffers");
    w->d.stats.narrow_tests = w->d.stats.contacts = sl->num_pairs;
    w->d.stats.islands = sl->num_islands;
    if (sl->num_pairs > 0) {
        s = solve_islands(w, sl);
        if (s != LUCID_OK) return s;
        s = remember(sl);
        if (s == LUCID_OK) s = publish_contacts(w, sl);
        if (s != LUCID_OK) return fail(w, s, "result buffers");
    } else {
        w->d.num_contacts = 0;
        sl->num_cache = 0;
    }
    return lucid_world_step_integrate(w);
}

/* ---- for the step derivatives ---------------------------------------------------------------- */

void lucid_world_single_level_forget(struct lucid_world_single_level *sl) {
    if (sl) sl->num_cache = 0;
}

int lucid_world_single_level_unknowns(const lucid_world *w) {
    const struct lucid_world_single_level *sl = w->d.single_level;
    return sl && sl->num_pairs > 0 ? (int)sl->num_unknowns : 0;
}

int lucid_world_single_level_memory(const lucid_world *w) {
    return w->d.single_level ? w->d.single_level->num_cache : 0;
}

void lucid_world_single_level_set_memory(lucid_world *w, int count) {
    if (w->d.single_level) w->d.single_level->num_cache = count;
}

/* Pair q's P-SDF rows again from its shapes (a size parameter may have moved: the same kinds,
 * so the same row and block counts as add_pair found). */
static void refresh_rows(const lucid_world *w, struct lucid_world_single_level *sl, sl_pair *q) {
    int used = 0;
    for (int k = 0; k < 2; ++k) {
        const lucid_shape *sh = pair_shape(w, q, k);
        int starts[PAIR_MAX_ROWS + 1], nblocks;
        lucid_pscaling_shape_rows(sh, sl->rows + q->row0 + used, q->m[k], starts, PAIR_MAX_ROWS,
                                  &nblocks);
        q->centre[k] = lucid_pscaling_centre(sh);
        used += q->m[k];
    }
}

void lucid_world_single_level_equations(lucid_world *w, double *F) {
    struct lucid_world_single_level *sl = w->d.single_level;
    for (int k = 0; k < sl->num_pairs; ++k) { /* a friction or size parameter may have moved */
        sl_pair *q = &sl->pairs[k];
        int fb = q->fb; /* the layout stays: the coefficients only */
        if (fb > 0) pair_friction(w, q), q->fb = fb;
        refresh_rows(w, sl, q);
    }
    for (int i = 0; i < sl->num_islands; ++i) { /* F, then the complementarity rows' 0 */
        const sl_island *is = &sl->islands[i];
        double *Fi = F + is->off;
        residual((void *)is, sl->X + is->off, Fi);
        memset(Fi + is->ny + is->na, 0, (size_t)is->na * sizeof(double));
    }
}

void lucid_world_single_level_solve(const lucid_world *w, double *rhs) {
    const struct lucid_world_single_level *sl = w->d.single_level;
    for (int i = 0; i < sl->num_islands; ++i) {
        const sl_island *is = &sl->islands[i];
        lucid_ncp_lu_solve(&is->ws, is->ny + 2 * is->na, rhs + is->off);
    }
}

void lucid_world_single_level_velocities(lucid_world *w, const double *dX, double h) {
    const struct lucid_world_single_level *sl = w->d.single_level;
    for (int i = 0; i < sl->num_islands; ++i) {
        const sl_island *is = &sl->islands[i];
        const double *X = sl->X + is->off, *d = dX + is->off;
        for (int j = 0; j < is->num_bodies; ++j) {
            int b = sl->island_bodies[is->body0 + j], var = sl->body_var[b];
            w->d.v_free[b] = lucid_vec3_axpy(lucid_vec3_load(X + var), h, lucid_vec3_load(d + var));
            w->d.w_free[b] =
                lucid_vec3_axpy(lucid_vec3_load(X + var + 3), h, lucid_vec3_load(d + var + 3));
        }
    }
}

/* Breaking when the normal impulse is below 1e-3 of the lighter body's weight impulse (the
 * relaxed gamma = kappa / phi of a pair apart), else sliding when the tangential speed is above
 * 1e-6 m/s, else sticking: a classification of the relaxed solution, not of a switch. */
int lucid_world_single_level_mode(const lucid_world *w, int k) {
    const struct lucid_world_single_level *sl = w->d.single_level;
    const sl_pair *q = &sl->pairs[k];
    const double *X;
    const sl_island *is = pair_island(sl, q, &X);
    const double *a = X + is->ny + q->ia, *b = a + is->na;
    int mc = q->m[0] + q->m[1];
    double mass = INFINITY;
    for (int j = 0; j < 2; ++j)
        if (is_free(&w->bodies[q->body[j]])) mass = fmin(mass, w->bodies[q->body[j]].mass);
    double weight = mass * lucid_vec3_norm(w->opt.gravity) * w->opt.dt;
    if (!(b[mc] > 1e-3 * weight)) return 0;
    if (q->mu > 0.0) {
        double vt = sqrt(a[mc + 2] * a[mc + 2] + a[mc + 3] * a[mc + 3] + a[mc + 4] * a[mc + 4]);
        if (vt / w->opt.dt > 1e-6) return 2;
    }
    return 1;
}
