/* The world's internals, shared by the files of runtime/world (not a public header). */
#ifndef LUCID_WORLD_INTERNAL_H
#define LUCID_WORLD_INTERNAL_H

#include <stddef.h>

#include "runtime/world/broad_phase.h"
#include "runtime/world/world.h"

typedef struct lucid_body {
    int is_static;
    int part_begin, num_parts;       /* into world->parts */
    double mass, inv_mass;           /* 0 for static bodies */
    lucid_mat3 inertia, inv_inertia; /* about the centre of mass, body axes (0 if static) */
    lucid_vec3 com;                  /* centre of mass in the body frame */
    lucid_se3 pose;                  /* body frame in the world */
    lucid_vec3 v, w;          /* world twist: velocity of the body origin, angular velocity */
    lucid_vec3 force, torque; /* accumulators, cleared by each step */
    double friction, restitution;
} lucid_body;

/* One row block of the contact Jacobian: the velocity of the contact point on one body along
 * the frame's three directions is dir_k . v_com + ang_k . w. */
typedef struct lucid_contact_side {
    int body;              /* body index, -1 when static */
    double sign;           /* -1 for body1, +1 for body2 */
    lucid_vec3 ang[3];     /* r x dir_k, r = point - x_com */
    lucid_vec3 inv_ang[3]; /* I_world^-1 ang_k */
} lucid_contact_side;

/* The warm-start memory: last step's contacts' forces as world vectors. */
typedef struct lucid_cached_force {
    int body1, body2, part1, part2;
    lucid_vec3 point, force, dual; /* world vectors */
} lucid_cached_force;

/* Body-space islands (world_sparse.c). */
typedef struct lucid_world_sparse lucid_world_sparse;

/* Grow-only array helper: *buf holds *cap elements of size bytes; makes room for n (the
 * capacity doubles, saturating at n). LUCID_ERR_NO_MEMORY when n x size bytes exceed PTRDIFF_MAX
 * or the allocation fails; *buf and *cap are then unchanged. */
lucid_status lucid_world_reserve(void **buf, size_t *cap, size_t n, size_t size);

/* The largest island solved densely: G and the solver's workspace take ~500 m^2 bytes for m
 * contacts (2 GB at this bound) and a factorisation O((3m)^3) flops. A larger island fails
 * the step with LUCID_ERR_NO_MEMORY and lucid_world_last_error saying so. */
#define LUCID_WORLD_MAX_ISLAND_CONTACTS 2048

struct lucid_world {
    lucid_world_options opt;
    lucid_body *bodies;
    int num_bodies;
    size_t body_cap;
    lucid_body_part *parts;
    int num_parts;
    size_t part_cap;

    /* per step */
    lucid_broad_phase *broad;
    lucid_vec3 *aabb_lo, *aabb_hi;
    unsigned char *is_static;
    size_t lo_cap, hi_cap, static_cap;
    lucid_vec3 *v_free, *w_free;   /* free, then final velocities (centre of mass, angular) */
    lucid_vec3 *v_start, *w_start; /* velocities at the start of the step */
    size_t v_cap, w_cap, v_start_cap, w_start_cap;

    lucid_world_contact *contacts;
    lucid_contact_side *sides; /* 2 per contact */
    int num_contacts;
    size_t contact_cap, side_cap;

    lucid_cached_force *cache, *cache_next;
    int num_cache;
    size_t cache_cap, cache_next_cap;

    /* islands */
    int *parent, *label;  /* per body: union-find forest, island label of a root */
    int *contact_island;  /* per contact */
    int *island_start;    /* num_islands + 1 offsets into island_contacts */
    int *island_contacts; /* contact indices grouped by island */
    size_t parent_cap, label_cap, contact_island_cap, island_start_cap, island_contact_cap;
    int num_islands;

    /* one island's problem */
    double *G, *g, *mu, *R, *lambda, *dual;
    double *spare; /* the warm start and the best attempt, kept while retrying (12n) */
    double *sigma; /* contact velocity of a solution, to verify it (3n) */
    size_t g_cap, mu_cap, R_cap, lambda_cap, dual_cap, spare_cap, sigma_cap, G_cap;
    lucid_contact_workspace *workspace;
    lucid_world_sparse *sparse; /* body-space islands' buffers (NULL until one is solved) */
    int last_sparse;            /* the last island solved was on the body-space path */
    lucid_world_stats stats;
    char error[160]; /* why the last step failed ("" when it did not) */
};

/* Steps of lucid_world_step, one file each. */
lucid_status lucid_world_collide(lucid_world *w);         /* world_collision.c */
void lucid_world_warm_start(lucid_world *w);              /* world_warm_start.c */
lucid_status lucid_world_remember_forces(lucid_world *w); /* world_warm_start.c */
lucid_status lucid_world_solve_contacts(lucid_world *w, const lucid_vec3 *v_start,
                                        const lucid_vec3 *w_start); /* world_delassus.c */

/* world_delassus.c, shared with world_sparse.c: contact k's frame velocity from the given
 * bodies' velocities, and the reference normal velocity c*_N (see world.h). */
lucid_vec3 lucid_world_contact_velocity(const lucid_world *w, int k, const lucid_vec3 *v,
                                        const lucid_vec3 *om);
double lucid_world_reference_velocity(const lucid_world *w, const lucid_world_contact *c,
                                      double v_n_before);
/* world_sparse.c: whether an island of m contacts is solved in body space, the solve (forces
 * into the contacts, velocities into v_free / w_free) and the buffers' release. */
int lucid_world_sparse_applies(const lucid_world *w, int m);
/* The island size above which the body-space path is taken: opt.sparse_threshold when >= 0,
 * else (automatic) the measured crossover of the solver (docs/world.md): */
int lucid_world_sparse_threshold(const lucid_world_options *o);
#define LUCID_WORLD_SPARSE_PGS_CROSSOVER    16
#define LUCID_WORLD_SPARSE_ADMM_CROSSOVER   64
#define LUCID_WORLD_SPARSE_NEWTON_CROSSOVER 64
lucid_status lucid_world_solve_island_sparse(lucid_world *w, const int *list, int m,
                                             const lucid_vec3 *v_start, const lucid_vec3 *w_start);
void lucid_world_sparse_destroy(lucid_world_sparse *sp);

/* Centre of mass in the world and world-frame inverse inertia. */
lucid_vec3 lucid_body_com_world(const lucid_body *b);
lucid_mat3 lucid_body_inv_inertia_world(const lucid_body *b);

#endif
