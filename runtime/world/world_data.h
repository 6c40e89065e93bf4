/* The world's per-step data (after MuJoCo's mjData): what a step computes and keeps until the
 * next, grown only, apart from what the user built (docs/world.md, "Model and data"). */
#ifndef LUCID_WORLD_DATA_H
#define LUCID_WORLD_DATA_H

#include <stddef.h>

#include "runtime/world/broad_phase.h"
#include "runtime/world/world.h"

/* One row block of the contact Jacobian: the velocity of the contact point on one body along
 * the frame's three directions is dir_k . v_com + ang_k . w. */
typedef struct lucid_contact_side {
    int body;              /* body index, -1 when static */
    double sign;           /* -1 for body1, +1 for body2 */
    lucid_vec3 ang[3];     /* r x dir_k, r = point - x_com */
    lucid_vec3 inv_ang[3]; /* I_world^-1 ang_k */
    int model;             /* a model's link side: the model (body is then -1), else -1 */
    int tree;              /* and the model's tree of the link (lucid_world_model), else -1 */
    size_t row;            /* a link side's rows J and Y = M~^-1 J^T in link_J / link_Y, */
    size_t dof, width;     /* over the tree's dofs [dof, dof + width): row d at row + d width */
    /* A contact with torsional friction (lucid_world_contact_spin > 0) has a fourth row, the
     * spin: a times the angular velocity about n (a the spin scale); a body's is a n . w
     * (spin_ang = a n, inv_spin_ang = I_world^-1 a n), a link's row 3 of its J and Y. */
    int spin;
    lucid_vec3 spin_ang, inv_spin_ang;
    /* With rolling friction (lucid_world_contact_roll > 0) rows 4 and 5, the rolling: b times
     * the angular velocity about t1, t2; a body's roll_ang[k] = b t_k (inv_roll_ang = I^-1 of
     * it), a link's rows 4, 5 of its J and Y (row 3, the spin, then present even when zero). */
    int roll;
    lucid_vec3 roll_ang[2], inv_roll_ang[2];
} lucid_contact_side;

/* The warm-start memory: last step's contacts' forces as world vectors. */
typedef struct lucid_cached_force {
    int limit; /* 1 for a limit, keyed (limit_model, limit_tendon, limit_dof, limit_sign), 2 for
                * a dry-friction row (limit_model, limit_tendon, limit_dof, 0): a joint's
                * (model, -1, dof, 0), a tendon's (model, tendon, -1, 0); 0 a shape contact */
    int body1, body2, part1, part2;
    lucid_vec3 point, force, dual;  /* world vectors */
    lucid_vec3 torque, torque_dual; /* torsional and rolling friction's torque and duals (along
                                     * n, t1, t2) */
    double rho;                     /* its island's final ADMM penalty (0: none) */
} lucid_cached_force;

/* Body-space islands (world_sparse.c). */
typedef struct lucid_world_sparse lucid_world_sparse;

typedef struct lucid_world_data {
    lucid_broad_phase *broad;
    lucid_vec3 *aabb_lo, *aabb_hi;
    unsigned char *is_static;
    size_t aabb_lo_cap, aabb_hi_cap, is_static_cap;
    double *sweep; /* per body: how far its surface may move in the step (world_collision.c) */
    size_t sweep_cap;
    lucid_vec3 *v_free, *w_free;   /* free, then final velocities (centre of mass, angular) */
    lucid_vec3 *v_start, *w_start; /* velocities at the start of the step */
    size_t v_free_cap, w_free_cap, v_start_cap, w_start_cap;

    lucid_world_contact *contacts;
    lucid_contact_side *sides; /* 2 per contact */
    int num_contacts;
    size_t contacts_cap, sides_cap;
    /* an island's contacts by the body or tree of their sides (lucid_world_island_delassus_dim):
     * per key (a free body, or num_bodies + a model's tree) its first side, per side the next
     * with its key, per contact of the island the last contact i whose pairs (i, j) took it */
    int *side_head, *side_next, *side_mark;
    size_t side_head_cap, side_next_cap, side_mark_cap;

    lucid_cached_force *cache, *cache_next; /* the warm-start memory, and the next one */
    int num_cache;
    size_t cache_cap, cache_next_cap;

    /* islands */
    int *parent, *label;  /* per body: union-find forest, island label of a root */
    int *contact_island;  /* per contact */
    int *island_start;    /* num_islands + 1 offsets into island_contacts */
    int *island_contacts; /* contact indices grouped by island */
    size_t parent_cap, label_cap, contact_island_cap, island_start_cap, island_contacts_cap;
    int num_islands;

    /* one island's problem */
    double *G, *g, *mu, *R, *lambda, *dual;
    double *spare; /* the warm start and the best attempt, kept while retrying, and the dense
                    * judge's last lambda (15n) */
    double *sigma; /* contact velocity of a solution, to verify it (3n) */
    size_t g_cap, mu_cap, R_cap, lambda_cap, dual_cap, spare_cap, sigma_cap, G_cap;
    lucid_contact_workspace *workspace;
    lucid_world_sparse *sparse; /* body-space islands' buffers (NULL until one is solved) */
    int last_sparse;            /* the last island solved was on the body-space path */
    int last_dim; /* rows per contact of the last dense island (3, 4: torsion, 6: rolling) */
    double *link_J, *link_Y; /* rows of the link sides of this step's contacts */
    /* Set only by the step derivatives around evaluations that apply known forces: link rows
     * get J but not Y = M~^-1 J^T (3 solves per row), and the forces' impulse on a model is
     * one solve (lucid_world_models_apply_forces). Nothing may read link_Y meanwhile. */
    int rows_without_inverse;
    size_t link_J_cap, link_Y_cap, link_rows;
    lucid_world_stats stats;
    lucid_world_island_info *island_info; /* this step's islands as solved */
    int num_island_info;
    size_t island_info_cap;
    double applied_work; /* J, this step's work of applied wrenches, actuators and springs (set
                          * by lucid_world_step_integrate, for the energy-jump guard) */
    char error[256];     /* why the last step failed ("" when it did not) */
    struct lucid_world_single_level *single_level; /* its buffers (NULL until a step) */
    /* Set only by the step derivatives around their nominal step: the single-level step then
     * keeps each island's LU at its answer (otherwise not computed: nobody solves with it). */
    int single_level_lu;
    /* Set only by the step derivatives (and on their copy): the models' activations are inputs,
     * each model's after its controls in lucid_world_get/set_controls, and not part of the
     * state (na 0 in lucid_world_state_size), so that their machinery over (q, v) differentiates
     * with respect to them as it does to controls (runtime/world/step_derivatives.c). */
    int act_inputs;
} lucid_world_data;

/* An empty data (its broad phase made); LUCID_ERR_NO_MEMORY when that fails. */
lucid_status lucid_world_data_init(lucid_world_data *d);
/* Forgets the step's contacts and the warm-start memory (a step from a set state is a function
 * of the state alone). */
void lucid_world_data_forget(lucid_world_data *d);
/* Frees every buffer of d. */
void lucid_world_data_free(lucid_world_data *d);

#endif
