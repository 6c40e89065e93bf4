/* A compiled articulated model: the kinematic tree the dynamics algorithms run on, made from a
 * lucid_model_spec (model_spec.h) by lucid_model_compile, and the per-thread workspace
 * (lucid_model_data) every algorithm writes into, so that no algorithm allocates.
 *
 * The tree. Each moving joint of the spec becomes one node of the tree ("joint" below, njoints
 * of them, in an order where a parent comes before its children). A spec body with one joint
 * is one node; a body with k > 1 joints (MJCF) becomes a chain of k nodes where the first
 * k - 1 are massless intermediate bodies, so that X_world_b = X_world_p * placement_b *
 * M_j1(q1) * ... * M_jk(qk) exactly as in MuJoCo, and the dynamics equal MuJoCo's. A body
 * with no joint is welded to its parent: its mass, geoms and frames merge into the parent's
 * last node (into the world when welded to it: a fixed base), and it is kept as a frame. The
 * public bodies (nbodies, names "body") are the spec bodies that have at least one joint, in
 * spec order; body b is carried by the last node of its chain.
 *
 * Node frames. A node's frame is its joint frame: placed at the joint's anchor, and for
 * revolute, prismatic and planar joints rotated so that the axis is its z axis (the planar
 * plane's x, y axes are lucid_vec3_any_orthogonal(axis) and axis x that). So every joint's
 * motion subspace S is constant in the node frame: revolute (0,0,0,0,0,1), prismatic
 * (0,0,1,0,0,0), spherical [0; I3], free I6, planar [e1 e2 e6]. Inertias, geoms and frames
 * are expressed in the frame of the node that carries them. Spatial vectors are 6-vectors,
 * LINEAR FIRST: twists (v, w), wrenches (f, n).
 *
 * Configuration (Pinocchio's conventions, quaternions (w, x, y, z)): revolute and prismatic
 * q = 1 number (the rotation / translation is q - ref), spherical q = (qw, qx, qy, qz) and
 * v = angular velocity in the child frame, free q = (x, y, z, qw, qx, qy, qz) (the pose of
 * the joint frame in its parent's) and v = its twist in its own frame, linear first, planar
 * q = (x, y, cos th, sin th) and v = (vx, vy, w) in the child frame. See configuration.h.
 * A free joint's q is relative to its body's placement (X = X_parent placement pose(q)): a
 * loader that wants MuJoCo's convention (qpos = the world pose of a top-level body) gives such a
 * body an identity placement and its MJCF pos/quat as the initial configuration.
 *
 * Choices made at compilation (errors, never silent):
 *  - mimic joints (q = multiplier * q_target + offset) keep their own dof (lucid_model_joint_mimic)
 *    and the world holds the coupling as an equality row (lucid_model_nequalities, with
 *    the spec's <equality> constraints); their target must be a revolute or prismatic joint;
 *  - limits on spherical and free joints are refused (a box on a quaternion is meaningless);
 *  - a body with mass > 0 needs a symmetric positive definite inertia; a massless body needs
 *    a symmetric positive semi-definite one (normally zero); a node whose whole subtree has no
 *    mass (a dof that would have no inertia, unless its armature makes it positive) is
 *    refused, and so is a model whose mass matrix at the neutral configuration is singular
 *    (redundant joints, e.g. two coaxial hinges carrying one body);
 *  - actuators act on revolute or prismatic joints, on tendons or through a slider-crank
 *    (two frames on no mocap body, cranklength > 0) only; a spatial tendon's sites and geoms
 *    are on no mocap body and its path is MuJoCo's (docs/model_files.md); a fixed tendon's
 *    joints are revolute or prismatic, each once, with finite coefficients, its range has
 *    lower <= upper and its stiffness, damping, frictionloss and margin are >= 0; a plane geom
 *    (halfspace) must be static (on the world body), as in MuJoCo.
 * Messages read "source:line: reason" when the spec has a source and the element a line,
 * else "body 'name': reason" (joint, geom, frame, actuator likewise). */
#ifndef LUCID_MODEL_H
#define LUCID_MODEL_H

#include <stddef.h>

#include "runtime/model/model_spec.h"

typedef struct lucid_model lucid_model;
typedef struct lucid_model_data lucid_model_data;

/* Compiles spec into *out. On success the model takes over the spec's convex meshes (the
 * spec's geom_mesh entries become NULL; the spec must still be destroyed by the caller). On
 * failure *out is NULL, the spec is unchanged, and err (if not NULL) holds a message of at
 * most errlen - 1 characters. LUCID_ERR_ARGUMENT for an invalid model (the message says
 * why), LUCID_ERR_NONFINITE for NaN/Inf values, LUCID_ERR_NOT_SPD for an inertia that is not
 * positive definite, LUCID_ERR_SINGULAR for a singular mass matrix, LUCID_ERR_NO_MEMORY. */
lucid_status lucid_model_compile(lucid_model_spec *spec, lucid_model **out, char *err,
                                 size_t errlen);
/* Models are reference counted (atomically: holders may live in different threads): compile
 * returns one reference, lucid_model_retain adds one (and returns m), lucid_model_destroy
 * drops one and frees the model with the last. A world holds a reference to each model it
 * was given, so the caller may destroy its own at any time. */
lucid_model *lucid_model_retain(const lucid_model *m);
void lucid_model_destroy(lucid_model *m);

/* ---- sizes and model-wide values ------------------------------------------------------- */
size_t lucid_model_nq(const lucid_model *m);
size_t lucid_model_nv(const lucid_model *m);
size_t lucid_model_nu(const lucid_model *m);      /* actuators */
size_t lucid_model_na(const lucid_model *m);      /* activations (stateful actuators) */
size_t lucid_model_nbodies(const lucid_model *m); /* public (moving) bodies */
size_t lucid_model_njoints(const lucid_model *m); /* tree nodes = moving joints */
size_t lucid_model_nframes(const lucid_model *m);
size_t lucid_model_ngeoms(const lucid_model *m);
size_t lucid_model_nexcludes(const lucid_model *m);
lucid_vec3 lucid_model_gravity(const lucid_model *m);
double lucid_model_timestep(const lucid_model *m);
const char *lucid_model_name(const lucid_model *m); /* "" when the spec had none */
/* Sum of the masses of the moving bodies (bodies welded to the world are not counted). */
double lucid_model_total_mass(const lucid_model *m);

/* ---- joints (tree nodes), 0 <= j < njoints ------------------------------------------- */
const char *lucid_model_joint_name(const lucid_model *m, size_t j);
lucid_joint_kind lucid_model_joint_kind(const lucid_model *m, size_t j);
int lucid_model_joint_parent(const lucid_model *m, size_t j); /* node index, -1: world */
size_t lucid_model_joint_idx_q(const lucid_model *m, size_t j);
size_t lucid_model_joint_idx_v(const lucid_model *m, size_t j);
size_t lucid_model_joint_nq(const lucid_model *m, size_t j);
size_t lucid_model_joint_nv(const lucid_model *m, size_t j);
int lucid_model_joint_body(const lucid_model *m, size_t j); /* public body it moves */
/* Node frame in the parent node's frame at zero joint motion. */
lucid_se3 lucid_model_joint_placement(const lucid_model *m, size_t j);
int lucid_model_find_joint(const lucid_model *m, const char *name); /* -1 if none */
/* Joint j's mass (its body's, welded bodies merged; 0 for a chain's intermediate node) and, when
 * positive, its centre of mass in the joint frame into *com (may be NULL). */
double lucid_model_joint_mass(const lucid_model *m, size_t j, lucid_vec3 *com);
/* Joint j's last dof: it and its ancestors through lucid_model_dof_parent are the dofs that
 * move joint j's frame. */
int lucid_model_joint_last_dof(const lucid_model *m, size_t j);
/* The joint (node) that joint j copies, q_j = multiplier * q_target + offset (URDF mimic), or
 * -1 (multiplier and offset, may be NULL, untouched then). The world enforces the coupling as
 * a hard equality row (docs/model_files.md). */
int lucid_model_joint_mimic(const lucid_model *m, size_t j, double *multiplier, double *offset);
/* Equality constraints the world enforces (active MJCF <equality> elements and mimic
 * couplings) and their rows (3 connect, 6 weld, 1 joint or tendon coupling). */
size_t lucid_model_nequalities(const lucid_model *m);
size_t lucid_model_equality_rows(const lucid_model *m);
/* E (lucid_model_equality_rows x nv, row-major) and the violation phi of every equality at q,
 * the data posed at q (lucid_model_forward_kinematics), in the model's frame: connect and weld
 * positions x1 - x2 (3 rows), a weld's orientation log(R2 (R1 R12)^T) (3 rows), a joint
 * coupling q1 - ref1 - poly(q2 - ref2) (1 row), a tendon coupling L1 - L1_0 - poly(L2 - L2_0)
 * (1 row, dL1/dq - poly' dL2/dq); E v is the rate of phi. */
void lucid_model_equality_jacobian(const lucid_model *m, const lucid_model_data *d, const double *q,
                                   double *E, double *phi);
/* Equality i's first dof (its rows touch no dof below it) and its number of rows. */
void lucid_model_equality_span(const lucid_model *m, size_t i, size_t *dof_lo, size_t *rows);
/* Equality i's last dof (its rows touch no dof above it). */
size_t lucid_model_equality_last_dof(const lucid_model *m, size_t i);

/* ---- per-coordinate and per-dof vectors (arrays of nq or nv entries) -------------------
 * lower/upper: nq entries, -INFINITY/INFINITY for unlimited coordinates (quaternion and
 * planar cos/sin coordinates are -1/1 like Pinocchio's); velocity, effort, damping, armature,
 * stiffness: nv entries; springref: nq entries (the spring's rest q, 1-dof joints). */
const double *lucid_model_lower_limits(const lucid_model *m);
const double *lucid_model_upper_limits(const lucid_model *m);
const double *lucid_model_velocity_limits(const lucid_model *m);
const double *lucid_model_effort_limits(const lucid_model *m);
const double *lucid_model_damping(const lucid_model *m);
/* Dry friction bound per dof (URDF <dynamics friction>): stored, not simulated by the world
 * yet (docs/model_files.md). */
const double *lucid_model_frictionloss(const lucid_model *m);
const double *lucid_model_armature(const lucid_model *m);
const double *lucid_model_stiffness(const lucid_model *m); /* nv: joint springs (1-dof joints) */
const double *lucid_model_springref(const lucid_model *m); /* nq: the springs' rest coordinates */
/* 1 where a 1-dof joint's coordinate is limited (nq entries; 0 on multi-dof joints). */
const int *lucid_model_limited(const lucid_model *m);
/* The parent dof of each dof (nv entries, -1 at a root): the sparsity pattern of M and of
 * its LTDL factor (dof i and k interact only when one is an ancestor of the other). */
const int *lucid_model_dof_parent(const lucid_model *m);
/* The node that owns each dof (nv entries). */
const int *lucid_model_dof_joint(const lucid_model *m);
/* Each dof's column of the motion subspace S in its joint frame (nv entries): 0-2 a translation
 * along x, y, z, 3-5 a rotation about x, y, z. */
const int *lucid_model_dof_axis(const lucid_model *m);

/* ---- bodies, 0 <= b < nbodies --------------------------------------------------------- */
const char *lucid_model_body_name(const lucid_model *m, size_t b);
int lucid_model_body_joint(const lucid_model *m, size_t b);  /* the node carrying it */
int lucid_model_body_parent(const lucid_model *m, size_t b); /* public body, -1: world */
/* The body frame in its node's frame. */
lucid_se3 lucid_model_body_placement(const lucid_model *m, size_t b);
/* The body's mass, welded bodies merged into it included. */
double lucid_model_body_mass(const lucid_model *m, size_t b);
int lucid_model_find_body(const lucid_model *m, const char *name); /* -1 if none */

/* ---- geoms: grouped by body, the static ones (body -1) first ----------------------------- */
typedef struct lucid_model_geom {
    const char *name;  /* NULL when unnamed */
    int body;          /* public body, -1 for a static geom */
    int frame;         /* the file body holding it (its frame index), -1: the world body */
    int joint;         /* node that carries it, -1 for a static geom */
    lucid_shape shape; /* meshes are owned by the model */
    lucid_se3 pose;    /* in the node's frame (in the world frame when static) */
    double friction;   /* MuJoCo's contact parameters, as lucid_geom_spec has them */
    double torsion, rolling;
    int condim, priority;
    double solmix, margin, gap;
    unsigned contype, conaffinity;
    int mocap;          /* the mocap body it moves with (-1: none); such a geom counts as static
                         * (body = joint = -1, pose at the mocap body's initial pose) */
    lucid_se3 in_mocap; /* its pose in that mocap body's frame */
    /* nparts > 0: a decomposed mesh (loader option meshes = "decompose") that collides as
     * these convex parts, each at the geom's pose with its contact parameters; shape is then
     * the mesh's hull (for queries that want one convex shape) */
    const lucid_shape *parts;
    size_t nparts;
} lucid_model_geom;
const lucid_model_geom *lucid_model_geoms(const lucid_model *m); /* ngeoms entries */
/* The geoms of body b (-1: the static ones) are geoms[*first .. *first + *count). */
void lucid_model_body_geoms(const lucid_model *m, int body, size_t *first, size_t *count);

/* ---- frames: every spec body (moving or welded) in spec order, then the spec's frames ------
 * (URDF fixed links, MJCF sites). A name may repeat across the two groups (MJCF namespaces);
 * lookup returns the first. */
typedef enum lucid_frame_kind {
    LUCID_FRAME_BODY,  /* a moving body's frame */
    LUCID_FRAME_FIXED, /* a welded body (merged into its parent) */
    LUCID_FRAME_SITE   /* a frame of the spec (site, URDF fixed link given as a frame) */
} lucid_frame_kind;
lucid_frame_kind lucid_model_frame_kind(const lucid_model *m, size_t f);
/* Site f's zone (MuJoCo's site type; its size into size[3]; LUCID_ZONE_SPHERE of size 0 for
 * other frames). */
lucid_zone_kind lucid_model_frame_zone(const lucid_model *m, size_t f, double size[3]);
/* The tree node carrying frame f (-1: the world or a mocap body). */
int lucid_model_frame_node(const lucid_model *m, size_t f);
int lucid_model_find_frame(const lucid_model *m, const char *name); /* -1 if none */
/* The mocap body frame f moves with (-1: none) and, in *in_mocap (may be NULL), its pose in that
 * body's frame; the frame's placement (node -1) is its pose at the mocap body's initial pose. */
int lucid_model_frame_mocap(const lucid_model *m, size_t f, lucid_se3 *in_mocap);

/* ---- mocap bodies (MJCF mocap="true"), 0 <= k < nmocap ----------------------------------
 * Kinematic bodies posed by the user (MuJoCo's mocap_pos/mocap_quat): children of the world
 * with no joints, their geoms (and the bodies welded to them) static parts of the world posed
 * at the pose the world holds for them (lucid_world_model_set_mocap), in spec order. */
size_t lucid_model_nmocap(const lucid_model *m);
const char *lucid_model_mocap_name(const lucid_model *m, size_t k);
/* The initial pose (the body's placement in the model's world frame: MuJoCo's body_pos/quat). */
lucid_se3 lucid_model_mocap_pose(const lucid_model *m, size_t k);
int lucid_model_find_mocap(const lucid_model *m, const char *name); /* -1 if none */

/* ---- tendons (MJCF <tendon>), 0 <= t < ntendons ---------------------------------------------
 * MuJoCo 2.2.2's tendons. A fixed tendon is a linear combination of 1-dof joints: length
 * L = sum_i coef[i] q[coord[i]], so its moment (dL/dq) is coef on dof[i]. A spatial tendon is a
 * path through sites, wrapping around spheres and cylinders, split into branches by pulleys
 * (MuJoCo's mj_tendon and mju_wrap): L is the sum of the branches' lengths, each divided by its
 * pulley's divisor, and its moment depends on q (n, dof: every dof that can move a point of the
 * path, ascending; joint: their nodes; coord and coef unused). The velocity is Ld = dL/dq v.
 * The world keeps L in [lower, upper] by a limit row (a unilateral contact whose Jacobian row is
 * the moment; it acts at margin inside the range, as MuJoCo's), bounds the force along it by
 * frictionloss (a friction row), and applies the passive force f = -stiffness (L -
 * springlength) - damping Ld along the moment, explicitly (docs/model_files.md). */
typedef enum lucid_tendon_kind { LUCID_TENDON_FIXED, LUCID_TENDON_SPATIAL } lucid_tendon_kind;
/* A spatial tendon's path element, posed on a node of the tree (-1: the world). */
typedef struct lucid_model_tendon_point {
    lucid_tendon_path_kind kind;
    int node;              /* site, geom: the node carrying it, -1: the world */
    lucid_se3 pose;        /* site: its placement in the node frame; geom: its pose there */
    int object;            /* site: its model frame; geom: its model geom */
    int cylinder;          /* geom: 1 a cylinder (unbounded along its z axis), 0 a sphere */
    double radius;         /* geom */
    int side;              /* geom: the model frame of its side site, -1: none */
    int side_node;         /* that site's node (-1: the world) */
    lucid_vec3 side_point; /* and its origin in that node's frame */
    double divisor;        /* pulley: the following branch's length is divided by it (> 0) */
} lucid_model_tendon_point;
typedef struct lucid_model_tendon {
    const char *name;
    lucid_tendon_kind kind;
    size_t n;            /* fixed: joints; spatial: the dofs that can move the path */
    int *joint;          /* their nodes */
    size_t *dof, *coord; /* idx_v, idx_q of each joint (spatial: dof only) */
    double *coef;        /* fixed: n coefficients; spatial: NULL */
    size_t npath;        /* spatial: the path (MJCF order); fixed: 0 */
    lucid_model_tendon_point *path;
    const lucid_model *model; /* the model whose frames a spatial path reads */
    int limited;              /* lower/upper apply */
    double lower, upper;      /* m or rad (the coefficients' units times q's) */
    double margin;            /* the limit acts when L is within margin of a bound (>= 0) */
    double stiffness;         /* >= 0 */
    double damping;           /* >= 0 */
    double frictionloss;      /* >= 0: dry friction along the tendon (a friction row) */
    double springlength;      /* the spring's rest length (default: L at the joints' springref) */
    int line;                 /* source line, 0 if none */
} lucid_model_tendon;
size_t lucid_model_ntendons(const lucid_model *m);
const lucid_model_tendon *lucid_model_tendons(const lucid_model *m); /* ntendons entries */
int lucid_model_find_tendon(const lucid_model *m, const char *name); /* -1 if none */
double lucid_model_tendon_length(const lucid_model_tendon *T, const double *q);
/* Ld = dL/dq v at q. */
double lucid_model_tendon_velocity(const lucid_model_tendon *T, const double *q, const double *v);
/* out[k - lo] += scale dL/dq_k at q for the dofs lo <= k < lo + width (MuJoCo's ten_J row);
 * nothing is allocated. */
void lucid_model_tendon_add_moment(const lucid_model_tendon *T, const double *q, double scale,
                                   size_t lo, size_t width, double *out);
/* Whether T's moment depends on q (a spatial tendon). */
int lucid_model_tendon_is_spatial(const lucid_model_tendon *T);
/* tau (nv) += the tendons' passive forces f_t dL_t/dq, f_t = -stiffness (L - springlength) -
 * damping Ld: MuJoCo 2.2.2's tendon part of qfrc_passive. */
void lucid_model_tendon_passive(const lucid_model *m, const double *q, const double *v,
                                double *tau);

/* ---- actuators, 0 <= a < nu ------------------------------------------------------------ */
typedef struct lucid_model_actuator {
    const char *name;
    lucid_actuator_kind kind;
    /* the transmission: a 1-dof joint (tendon NULL, crank -1), a tendon of the model, or
     * a slider-crank (MuJoCo 2.2.2's): the rod of length cranklength joins the crank pin (frame
     * crank's origin) to a slider on the z axis of frame slider; L = a.v - sqrt((a.v)^2 + r^2 -
     * v.v) with v = crank - slider origin, a that axis (a.v where the root is not real) */
    const lucid_model_tendon *tendon;
    int tendon_index;  /* -1: a joint transmission */
    int crank, slider; /* frames of a slider-crank, -1: none */
    double cranklength;
    const lucid_model *model; /* the model whose frames a slider-crank reads (NULL otherwise) */
    int joint;                /* node (-1 for a tendon or a slider-crank) */
    size_t dof;               /* idx_v of the joint */
    size_t coord;             /* idx_q of the joint */
    double gear, kp;          /* kp: a position servo's gain[0], 0 for other kinds */
    double
        gain[3]; /* f = (gain[0] + gain[1] L + gain[2] Ld) u + bias[0] + bias[1] L + bias[2] Ld */
    double bias[3]; /* with L = gear q[coord], Ld = gear v[dof] (every kind in this form); on a
                     * tendon L = gear L_tendon, Ld = gear Ld_tendon; a slider-crank's likewise */
    int ctrl_limited;
    double ctrl_lower, ctrl_upper;
    int force_limited;
    double force_lower, force_upper;
    /* dynamics (MuJoCo's dyntype): with dyn none the force's input is the clamped control;
     * else it is the activation act[act] of the model's na, act_dot = u (integrator) or
     * (u - act) / timeconst (filter), u clamped, act clamped to [act_lower, act_upper] after a
     * step when act_limited */
    lucid_actuator_dyn dyn;
    int act; /* -1: stateless */
    double timeconst;
    double muscle_tau[2]; /* muscle dynamics: tau_act, tau_deact */
    /* muscle curves (model_spec.h) in place of the affine gain or bias */
    int gain_muscle, bias_muscle;
    double gainprm[LUCID_MUSCLE_PRM], biasprm[LUCID_MUSCLE_PRM];
    double lengthrange[2];
    double acc0; /* |M^-1 dL/dq| at the neutral configuration (MuJoCo's actuator_acc0) */
    int act_limited;
    double act_lower, act_upper;
} lucid_model_actuator;
const lucid_model_actuator *lucid_model_actuators(const lucid_model *m); /* nu entries */
/* Actuator A's force f at (q, v), control u and the model's activations act (na entries, read
 * only for a stateful actuator; may be NULL when na is 0): f = gain w + bias clamped to its force
 * range, w = u clamped to the control range, or act[A->act] (MuJoCo 2.2.2's mj_fwdActuation). */
double lucid_model_actuator_force(const lucid_model_actuator *A, const double *q, const double *v,
                                  double u, const double *act);
/* A's input w: the clamped control, or its activation. */
double lucid_model_actuator_input(const lucid_model_actuator *A, double u, const double *act);
/* d act / dt of stateful actuator A at control u and its activation a (MuJoCo's act_dot). */
double lucid_model_actuator_act_dot(const lucid_model_actuator *A, double u, double a);
/* The activation after a step of dt from a (Euler), clamped to the range when limited (MuJoCo
 * 2.2.2's mj_advance). */
double lucid_model_actuator_act_next(const lucid_model_actuator *A, double u, double a, double dt);
/* A's gain at (q, v) (df/du inside both ranges) and bias (MuJoCo's: affine or muscle). */
double lucid_model_actuator_gain(const lucid_model_actuator *A, const double *q, const double *v);
double lucid_model_actuator_bias(const lucid_model_actuator *A, const double *q, const double *v);
/* The partial derivatives of gain w + bias (before the force clamp) in the length L and the
 * velocity Ld at (q, v) and input w. */
void lucid_model_actuator_force_partials(const lucid_model_actuator *A, const double *q,
                                         const double *v, double w, double *d_len, double *d_vel);
/* MuJoCo 2.2.2's muscle active force factor (-F0 FL(L) FV(V), negative) at length len and
 * velocity vel, and passive force, with prm as model_spec.h describes. */
double lucid_muscle_gain(double len, double vel, const double lengthrange[2], double acc0,
                         const double *prm);
double lucid_muscle_bias(double len, const double lengthrange[2], double acc0, const double *prm);
/* A's length L (gear times the joint's q, the tendon's length or the slider-crank's) and its
 * velocity Ld = dL/dq v at q. */
double lucid_model_actuator_length(const lucid_model_actuator *A, const double *q);
double lucid_model_actuator_velocity(const lucid_model_actuator *A, const double *q,
                                     const double *v);
/* tau += scale * dL/dq (nv) at q: gear on the joint's dof, gear times the tendon's moment, or a
 * slider-crank's (MuJoCo's actuator_moment; it depends on q for a slider-crank and a spatial
 * tendon). */
void lucid_model_actuator_add_moment(const lucid_model_actuator *A, const double *q, double scale,
                                     double *tau);
/* R (nv x nv, column-major) += scale * dL/dq^T dL/dq: the outer product of A's moment at q;
 * scratch: nv doubles. */
void lucid_model_actuator_add_outer(const lucid_model_actuator *A, const double *q, double scale,
                                    double *R, size_t nv, double *scratch);
/* R (nv x nv, column-major; R[i + nv k] the change of tau_i with q_k) += f dr/dq + g r (dLd/dq)
 * with r = dL/dq at q and dLd/dq = v^T dr/dq: the change of f r with q at a fixed force f and a
 * force slope g in Ld beyond what r's outer product gives. Nonzero for a slider-crank only (a
 * joint's and a fixed tendon's moment are constant; a spatial tendon's is left out); q tangents
 * as the step derivatives take them. scratch: nv doubles. */
void lucid_model_actuator_add_moment_change(const lucid_model_actuator *A, const double *q,
                                            const double *v, double f, double g, double *R,
                                            size_t nv, double *scratch);
/* tau (nv) = sum over actuators of f times their moment: MuJoCo's qfrc_actuator (act: the na
 * activations, NULL when na is 0). */
void lucid_model_actuation(const lucid_model *m, const double *q, const double *v, const double *u,
                           const double *act, double *tau);

/* ---- keyframes (MJCF <key>), 0 <= k < nkeyframes --------------------------------------------
 * q, v, u in lucid's layout (MuJoCo's qpos/qvel/ctrl mapped: a free joint's q is its pose
 * relative to its placement and v its body twist; quaternions normalised); absent parts are the
 * neutral configuration, zero velocity and controls. */
typedef struct lucid_model_keyframe {
    const char *name;        /* "" when unnamed */
    double *q, *v, *u, *act; /* act: na activations (MuJoCo's act; absent: zero) */
    lucid_se3 *mocap;        /* nmocap poses in the model's world frame (MuJoCo's mpos, mquat
                              * normalised; absent: the initial poses); NULL when nmocap is 0 */
} lucid_model_keyframe;
size_t lucid_model_nkeyframes(const lucid_model *m);
const lucid_model_keyframe *lucid_model_keyframes(const lucid_model *m); /* nkeyframes entries */
int lucid_model_find_keyframe(const lucid_model *m, const char *name);   /* -1 if none */

/* ---- sensors (MJCF <sensor>), 0 <= k < nsensors ---------------------------------------------
 * MuJoCo 2.2.2's sensors of the kinds lucid computes, in the file's order; their values are
 * laid out as MuJoCo's sensordata (sensor k at adr, dim values). jointpos/jointvel: a hinge or
 * slide joint's q and v; actuatorfrc: the actuator's scalar force (MuJoCo's actuator_force);
 * framepos (3) and framequat (4, w x y z): a body's or site's pose in the model's world frame;
 * gyro and velocimeter (3 each): a site's angular velocity and its origin's linear velocity,
 * both in the site's frame (MuJoCo's mj_objectVelocity, local); of the last step (the world
 * computes them): accelerometer (a site origin's acceleration minus gravity), force and torque
 * (the wrench a site's body gets from its parent, about the site), 3 each, in the site's
 * frame; touch (1: the normal contact forces in the site's zone).
 * noise and cutoff are stored, not applied (lucid's sensors are noiseless and unclamped). */
/* lucid_sensor_kind: model_spec.h */
typedef struct lucid_model_sensor {
    const char *name; /* "" when unnamed */
    lucid_sensor_kind kind;
    int object;           /* joint node, actuator index or frame index */
    size_t dim, adr;      /* its values: sensordata[adr .. adr + dim) */
    double noise, cutoff; /* stored, not applied */
    int line;             /* source line, 0 if none */
} lucid_model_sensor;
size_t lucid_model_nsensors(const lucid_model *m);
const lucid_model_sensor *lucid_model_sensors(const lucid_model *m); /* nsensors entries */
size_t lucid_model_nsensordata(const lucid_model *m); /* the sum of the sensors' dims */

/* ---- contact filtering ---------------------------------------------------------------------
 * Exclusions: pairs of file bodies (frame indices, -1: the world body) whose own geoms never
 * collide (MJCF <exclude>: MuJoCo's body pair, a welded body's geoms alone). */
const int (*lucid_model_excludes(const lucid_model *m))[2];
/* The model's parent/child rule (lucid_model_parent_filter, model_spec.h). */
lucid_model_parent_filter lucid_model_filter_parent(const lucid_model *m);
/* Which geom pairs collide: the filtered ones, the explicit pairs or both (model_spec.h). */
lucid_model_collision lucid_model_collision_mode(const lucid_model *m);
/* An explicit geom pair (MJCF <contact><pair>, lucid_pair_spec): geoms geom1 and geom2 (model
 * geom indices) collide with these parameters instead of their mixed ones, whatever the filters
 * say, unless the collision mode is LUCID_MODEL_COLLISION_DYNAMIC. */
typedef struct lucid_model_pair {
    const char *name;                  /* NULL when unnamed */
    int geom1, geom2;                  /* lucid_model_geoms indices, different */
    int condim;                        /* 1, 3, 4 or 6 */
    double friction, torsion, rolling; /* sliding; torsional and rolling lengths (m) */
    double margin, gap;                /* m: contacts act at separation margin - gap */
    int line;                          /* source line, 0 if none */
} lucid_model_pair;
size_t lucid_model_npairs(const lucid_model *m);
const lucid_model_pair *lucid_model_pairs(const lucid_model *m); /* npairs, in the spec's order */
/* The explicit pair of geoms g1 and g2 (either order), -1 if none: O(log npairs). */
int lucid_model_find_pair(const lucid_model *m, int g1, int g2);

/* Names by kind: kind "body", "joint", "frame", "actuator", "mocap" or "tendon"; *count receives
 * how many. Returns 0 (and *count 0) for an unknown kind. name(i) for i < *count. */
int lucid_model_names_count(const lucid_model *m, const char *kind, size_t *count);
const char *lucid_model_name_at(const lucid_model *m, const char *kind, size_t i);

/* ---- workspace ------------------------------------------------------------------------
 * Every buffer the algorithms need, sized for m (O(njoints * 36 + nv^2) doubles). One per
 * thread; it must only be used with the model it was made for. */
lucid_status lucid_model_data_create(const lucid_model *m, lucid_model_data **out);
void lucid_model_data_destroy(lucid_model_data *d);

#endif
