/* The layout of a compiled model and of its workspace, shared by the algorithms of
 * runtime/model/. Users (the world included) go through model.h and dynamics.h. */
#ifndef LUCID_MODEL_INTERNAL_H
#define LUCID_MODEL_INTERNAL_H

#include <stdatomic.h>

#include "runtime/model/model.h"
#include "runtime/model/spatial.h"

typedef struct lucid_model_node {
    char *name;
    lucid_joint_kind kind;
    int parent;       /* node, -1: world */
    int body;         /* public body it moves */
    lucid_se3 X_tree; /* node frame in the parent node's frame at zero motion */
    size_t idx_q, idx_v, nq, nv;
    double ref;
    lucid_inertia inertia; /* in the node frame */
    int mimic;             /* the node this one copies (URDF mimic), -1 if none */
    double mimic_multiplier, mimic_offset;
} lucid_model_node;

typedef struct lucid_model_body {
    char *name;
    int node;
    int parent;          /* public body, -1: world */
    lucid_se3 placement; /* body frame in node frame */
    double mass;
} lucid_model_body;

typedef struct lucid_model_frame {
    char *name;
    lucid_frame_kind kind;
    int node;             /* -1: world */
    lucid_se3 placement;  /* in the node frame */
    int mocap;            /* the mocap body it moves with, -1: none */
    lucid_se3 in_mocap;   /* its pose in that body's frame */
    lucid_zone_kind zone; /* a site's zone in its frame (lucid_frame_spec) */
    double zone_size[3];
} lucid_model_frame;

/* An active equality constraint (model_equality.c; the world's rows: world_equality.c). */
typedef struct lucid_model_equality {
    char *name; /* "" when unnamed (a URDF mimic: the mimic joint's name) */
    lucid_equality_kind kind;
    int node1, node2;  /* connect, weld: the nodes carrying body1 and body2 (-1: world) */
    lucid_vec3 p1, p2; /* the points that meet, in node1's and node2's frames */
    int rotation;      /* weld with torquescale > 0: node2's frame turned by R12 in node1's */
    lucid_mat3 R12;    /* (orientation rows) */
    size_t q1, v1;     /* joint: joint1's coordinate and dof */
    size_t q2, v2;     /* joint2's; v2 = SIZE_MAX: none */
    double coef[5];    /* q1 - ref1 = coef[0] + coef[1] d + ... + coef[4] d^4, d = q2 - ref2 */
    double ref1, ref2; /* joint: the neutral coordinates; tendon: the lengths there */
    const lucid_model_tendon *t1, *t2; /* tendon: L1 and L2 in place of q1 and q2 (t2 NULL: none) */
    size_t rows;           /* 3 (connect, weld without rotation), 6 (weld), 1 (joint, tendon) */
    size_t dof_lo, dof_hi; /* its rows touch dofs in [dof_lo, dof_hi] only */
} lucid_model_equality;

typedef struct lucid_model_mocap {
    char *name;
    lucid_se3 pose; /* initial pose in the model's world frame */
} lucid_model_mocap;

struct lucid_model {
    atomic_int refs; /* lucid_model_retain / lucid_model_destroy (0 counts as 1) */
    char *name;
    lucid_vec3 gravity;
    double timestep;
    size_t nq, nv, nu, na, nnodes, nbodies, nframes, ngeoms, nexcludes; /* na: activations */
    lucid_model_node *nodes;
    lucid_model_body *bodies;
    lucid_model_frame *frames;
    lucid_model_geom *geoms; /* grouped by body, static first */
    size_t *geom_start;      /* nbodies + 2 offsets: static = [0], body b = [b + 1] */
    lucid_convex_mesh **meshes;
    size_t nmeshes;
    lucid_shape *part_shapes;    /* the decomposed geoms' parts, geom after geom (geoms[].parts) */
    lucid_heightfield **hfields; /* owned, taken over from the spec */
    size_t nhfields;
    lucid_model_actuator *actuators;
    lucid_model_tendon *tendons; /* fixed tendons (model.h) */
    size_t ntendons;
    lucid_model_keyframe *keyframes;
    size_t nkeyframes;
    lucid_model_sensor *sensors;
    size_t nsensors, nsensordata;
    lucid_model_mocap *mocap;
    size_t nmocap;
    int (*excludes)[2];                      /* frame index pairs, -1: the world body */
    lucid_model_parent_filter filter_parent; /* the parent/child rule (model.h) */
    lucid_model_collision collision;         /* which geom pairs collide (model.h) */
    lucid_model_pair *pairs;                 /* explicit pairs, the spec's order */
    int *pair_order;                         /* pairs by (smaller geom, larger geom) */
    size_t npairs;
    lucid_model_equality *equalities; /* the active ones */
    size_t nequalities, equality_rows;
    /* per coordinate (nq) and per dof (nv) */
    double *lower, *upper, *springref;
    int *limited;
    double *velocity_limit, *effort_limit, *damping, *armature, *stiffness, *frictionloss;
    int *dof_parent, *dof_node;
    int *dof_axis; /* S's column of each dof is the unit vector e_axis in its node frame */
    /* LTDL sparsity: row k of L holds the entries (k, a) for the ancestors a of dof k, nearest
     * first; ltdl_start[k] .. ltdl_start[k + 1]. ltdl_nnz = sum of the dof depths. */
    size_t *ltdl_start;
    size_t ltdl_nnz;
    double total_mass;
    /* A variant (model_variant.h): the model its shared arrays belong to; it owns only nodes,
     * bodies and damping. NULL for a compiled model. */
    const lucid_model *base;
};

struct lucid_model_data {
    size_t nnodes, nv;
    lucid_se3 *liMi;   /* node frame in the parent's frame */
    lucid_se3 *oMi;    /* node frame in the world */
    double *v, *a, *f; /* 6 per node: twist, acceleration, wrench (node frame) */
    double *c;         /* 6 per node: velocity-product acceleration v x (S qd) */
    lucid_inertia *Ic; /* composite inertias (CRBA) */
    double *Ia;        /* 36 per node: articulated inertias (ABA), column-major */
    double *pA;        /* 6 per node: bias forces (ABA) */
    double *U;         /* 6 x nv: Ia S per dof (ABA) */
    double *Dinv;      /* 36 per node: (S^T Ia S + armature)^-1 (ABA), nv_j x nv_j */
    double *u;         /* nv (ABA) */
    double *M;         /* nv x nv, column-major (CRBA) */
    double *L;         /* ltdl_nnz: the strictly lower entries of the LTDL factor */
    double *D;         /* nv: its diagonal */
    double *tmp;       /* 7 * nv scratch */
    /* world-frame quantities of the derivative algorithms (rnea_derivatives.c) */
    double *oJ;          /* 6 x nv: the motion subspace columns J in the world frame */
    double *dVdq, *dAdq; /* 6 x nv: the non-rigid parts of d ov / dq_k and d oa / dq_k */
    double *dAdv;        /* 6 x nv: the part of d oa / dv_k common to the subtree */
    double *dG;          /* 18 x nv: dAdq, dAdv, dVdq, oJ of each dof packed (rnea_derivatives.c) */
    double *ov, *oa;     /* 6 per node: twist and acceleration (world, at the origin) */
    double *oF;          /* 6 per node: the wrench of the node's subtree */
    double *oB;          /* 12 per node: the subtree's sum of the B matrices (rnea_derivatives.c) */
    lucid_inertia *oI;   /* the node's inertia in the world frame */
    lucid_inertia *oYc;  /* the composite inertia of the node's subtree in the world frame */
    double *dwork;       /* 3 nv^2: the right-hand sides of aba_derivatives, row-major */
    size_t *dof_last;    /* nv: the largest dof index in each dof's subtree (the dof if a leaf) */
    /* dofs 0 .. dof_trunk-1: the chain that is an ancestor of every other dof; dof_branch[k]:
     * for the other dofs, the trunk child above k (rnea_derivatives.c's solve) */
    size_t dof_trunk, *dof_branch;
    size_t *ltdl_col; /* ltdl_nnz: the column (ancestor dof) of each entry of L */
    /* L by columns: the entries below dof a are ltdl_below[ltdl_below_start[a] ..
     * ltdl_below_start[a + 1]), each the pair (row k, position of L(k, a) in L) */
    size_t *ltdl_below_start, (*ltdl_below)[2];
};

/* The last dof of a node: its dofs and their ancestors are reached from it through
 * dof_parent (the chain a point fixed to the node moves with). */
static inline int lucid_model_node_last_dof(const lucid_model *m, int node) {
    return (int)(m->nodes[node].idx_v + m->nodes[node].nv) - 1;
}

/* RNEA's forward pass on posed data: every node's twist d->v, acceleration d->a (gravity
 * included as the world's acceleration -g) and wrench d->f = I a + v x* I v (node frames). */
void lucid_model_rnea_forward(const lucid_model *m, lucid_model_data *d, const double *v,
                              const double *a);

/* Compiles spec's active equality constraints and the nodes' mimic couplings into
 * m->equalities (after the tree and dofs are built): body_node and body_in_node give each spec
 * body's node (-1: the world) and its frame there, body_mocap its mocap body (-1: none),
 * joint_node each spec joint's node (-1: fixed). Errors are "source:line: equality 'name':
 * reason" in err. */
lucid_status lucid_model_build_equalities(lucid_model *m, const lucid_model_spec *spec,
                                          const int *body_node, const lucid_se3 *body_in_node,
                                          const int *body_mocap, const int *joint_node, char *err,
                                          size_t errlen);

/* The joint motion X_J(q) of a node (its frame relative to its zero-motion frame). */
static inline lucid_se3 lucid_joint_motion(const lucid_model_node *nd, const double *q) {
    lucid_se3 X = lucid_se3_identity();
    switch (nd->kind) {
        case LUCID_JOINT_REVOLUTE: {
            double th = q[0] - nd->ref, c = cos(th), s = sin(th);
            lucid_mat3 R = {{c, s, 0, -s, c, 0, 0, 0, 1}};
            X.R = R;
            break;
        }
        case LUCID_JOINT_PRISMATIC:
            X.t = lucid_vec3_make(0.0, 0.0, q[0] - nd->ref);
            break;
        case LUCID_JOINT_SPHERICAL: {
            lucid_quat qu = lucid_quat_make(q[0], q[1], q[2], q[3]);
            lucid_quat_normalize(&qu);
            X.R = lucid_quat_to_mat3(qu);
            break;
        }
        case LUCID_JOINT_FREE: {
            lucid_quat qu = lucid_quat_make(q[3], q[4], q[5], q[6]);
            lucid_quat_normalize(&qu);
            X.R = lucid_quat_to_mat3(qu);
            X.t = lucid_vec3_make(q[0], q[1], q[2]);
            break;
        }
        case LUCID_JOINT_PLANAR: {
            double n = hypot(q[2], q[3]);
            double c = n > 0.0 ? q[2] / n : 1.0, s = n > 0.0 ? q[3] / n : 0.0;
            lucid_mat3 R = {{c, s, 0, -s, c, 0, 0, 0, 1}};
            X.R = R;
            X.t = lucid_vec3_make(q[0], q[1], 0.0);
            break;
        }
        default:
            break;
    }
    return X;
}

#endif
