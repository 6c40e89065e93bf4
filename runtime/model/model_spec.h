/* The description of an articulated model before it is compiled: what the MJCF and URDF
 * loaders and lucid.model.build{} produce, and what lucid_model_compile (runtime/model/model.h)
 * turns into the kinematic tree the dynamics algorithms run on. It is a plain list of bodies,
 * the joints that move each body relative to its parent, collision geoms, frames, actuators and
 * contact exclusions, in the loaders' terms; it checks nothing about the physics (positive
 * inertia, valid axes, tree order, ...) — compilation does, and reports errors as
 * `source:line: reason` from the `line` each element carries (or `body 'name': reason` when the
 * spec has no source file).
 *
 * Kinematics of one body b with parent p and joints j1..jk (MJCF's convention; URDF has
 * k <= 1 and anchor 0):
 *   X_world_b = X_world_p * placement_b * M_j1(q_j1) * ... * M_jk(q_jk)
 *   M_j(q) = Trans(anchor_j) * Motion_j(q) * Trans(-anchor_j)
 * with Motion a rotation about / translation along `axis` (revolute, prismatic: by q - ref),
 * a rotation by the unit quaternion q (spherical), the pose q itself (free), or a planar
 * motion (x, y along two axes orthogonal to `axis`, rotation about `axis`). A body with no
 * joint is welded to its parent (a fixed joint); compilation merges welded bodies into their
 * parent and keeps them as frames. Strings are copied by the add functions; every element is
 * owned by the spec (meshes included) until lucid_model_compile takes the meshes over. */
#ifndef LUCID_MODEL_SPEC_H
#define LUCID_MODEL_SPEC_H

#include <stddef.h>

#include "runtime/core/status.h"
#include "runtime/math/se3.h"
#include "runtime/shapes/shape.h"

/* Parent index of root bodies, and the body of geoms fixed in the world (static geoms). */
#define LUCID_MODEL_WORLD (-1)

typedef enum lucid_joint_kind {
    LUCID_JOINT_FIXED,     /* 0 dof */
    LUCID_JOINT_REVOLUTE,  /* 1 dof, also URDF continuous (unlimited) and MJCF hinge */
    LUCID_JOINT_PRISMATIC, /* 1 dof, MJCF slide */
    LUCID_JOINT_SPHERICAL, /* q = (qw, qx, qy, qz), v = angular velocity in the child frame */
    LUCID_JOINT_FREE,      /* q = (x, y, z, qw, qx, qy, qz), v = body twist (linear first) */
    LUCID_JOINT_PLANAR     /* q = (x, y, cos th, sin th), v = (vx, vy, w) — Pinocchio's */
} lucid_joint_kind;

typedef struct lucid_body_spec {
    const char *name;
    int parent;          /* an earlier body's index, or LUCID_MODEL_WORLD */
    lucid_se3 placement; /* body frame in the parent's frame at zero joint motion */
    double mass;         /* kg */
    lucid_vec3 com;      /* centre of mass, body frame */
    lucid_mat3 inertia;  /* about com, body axes (kg m^2) */
    int mocap; /* MJCF mocap: a child of the world with no joints, posed by the user (the world's
                * lucid_world_model_set_mocap); its placement is its initial pose */
    int line;  /* source line, 0 if none */
} lucid_body_spec;

typedef struct lucid_joint_spec {
    const char *name;
    lucid_joint_kind kind;
    lucid_vec3 axis;       /* body frame; need not be unit (compilation normalises) */
    lucid_vec3 anchor;     /* a point of the axis / centre of the ball, body frame */
    double ref;            /* revolute, prismatic: the q at which Motion is the identity */
    int limited;           /* lower/upper apply (revolute, prismatic) */
    double lower, upper;   /* rad or m */
    double velocity_limit; /* INFINITY when none */
    double effort_limit;   /* INFINITY when none */
    double damping;        /* N m s/rad or N s/m, per dof */
    double frictionloss;   /* dry friction |tau| <= frictionloss, N m or N, per dof (stored in
                              the model; the world does not simulate it yet) */
    double armature;       /* added to the diagonal of M, per dof */
    double stiffness;      /* passive spring: tau = -stiffness (q - springref) */
    double springref;
    /* name of the joint this one copies, NULL if none: q = multiplier * q_mimic + offset,
     * a coupling the world enforces as an equality row (lucid_model_joint_mimic) */
    const char *mimic;
    double mimic_multiplier, mimic_offset;
    int line;
} lucid_joint_spec;

typedef struct lucid_geom_spec {
    const char *name;  /* may be NULL */
    int body;          /* body index, or LUCID_MODEL_WORLD for a static geom */
    lucid_shape shape; /* a convex shape's mesh is given to add_geom, not set here */
    lucid_se3 pose;    /* in the body frame */
    /* MuJoCo's contact parameters (docs/model_files.md; URDF: MuJoCo's defaults) */
    double friction;               /* sliding friction coefficient, >= 0 */
    double torsion;                /* m, >= 0: the torsional coefficient (MJCF friction[1]) */
    double rolling;                /* m, >= 0: the rolling coefficient (MJCF friction[2]) */
    int condim;                    /* 1 frictionless, 3 sliding, 4 and torsional, 6 and rolling */
    int priority;                  /* a pair takes the higher priority geom's condim, friction */
    double solmix;                 /* finite; mixes only solref/solimp, which lucid has not */
    double margin, gap;            /* m, >= 0: a pair acts at separation max margin - max gap */
    unsigned contype, conaffinity; /* collision bitmasks; URDF: 1, 1 */
    int line;
} lucid_geom_spec;

/* An MJCF site's zone (MuJoCo's site type and size: a touch sensor's volume). */
typedef enum lucid_zone_kind {
    LUCID_ZONE_SPHERE,    /* size[0]: radius (MuJoCo's default site: 0.005) */
    LUCID_ZONE_CAPSULE,   /* radius, half-length along z */
    LUCID_ZONE_ELLIPSOID, /* semi-axes */
    LUCID_ZONE_CYLINDER,  /* radius, half-length along z */
    LUCID_ZONE_BOX        /* half extents */
} lucid_zone_kind;

typedef struct lucid_frame_spec {
    const char *name;
    int body;             /* body index, or LUCID_MODEL_WORLD */
    lucid_se3 placement;  /* in the body frame */
    lucid_zone_kind zone; /* and its zone, in the frame (a site's; 0 size: none) */
    double zone_size[3];
    int line;
} lucid_frame_spec;

/* MuJoCo's actuator forms (dyntype none, joint transmission), in its gain/bias form: with the
 * length L = gear q and velocity Ld = gear v, force f = gain u + bias, tau = gear f. */
typedef enum lucid_actuator_kind {
    LUCID_ACTUATOR_MOTOR,       /* gain 1, no bias: tau = gear u */
    LUCID_ACTUATOR_POSITION,    /* gain kp, bias -kp L: tau = gear kp (u - gear q) */
    LUCID_ACTUATOR_VELOCITY,    /* gain kv, bias -kv Ld: tau = gear kv (u - gear v) */
    LUCID_ACTUATOR_DAMPER,      /* gain -kv Ld, no bias: tau = -gear^2 kv v u (u >= 0) */
    LUCID_ACTUATOR_GENERAL,     /* gain g0 + g1 L + g2 Ld, bias b0 + b1 L + b2 Ld */
    LUCID_ACTUATOR_INTVELOCITY, /* gain kp, bias -kp L on an integrated input (dyn integrator,
                                 * activation limited): a position servo tracking act */
    LUCID_ACTUATOR_CYLINDER,    /* gain[0] (the area), bias[0..2]; a filtered input */
    LUCID_ACTUATOR_MUSCLE       /* MuJoCo's muscle: gain and bias by its curves (muscle_gain,
                                 * muscle_bias), muscle dynamics */
} lucid_actuator_kind;

/* MuJoCo's actuator dynamics: the force's input is the control u (none) or the actuator's
 * activation act, a state of the world, with act_dot = u (integrator) or (u - act) / timeconst
 * (filter), u clamped to the control range; act is clamped to its range after each step when
 * limited (MuJoCo 2.2.2's mj_fwdActuation and mj_advance). */
typedef enum lucid_actuator_dyn {
    LUCID_ACTUATOR_DYN_NONE = 0,
    LUCID_ACTUATOR_DYN_INTEGRATOR,
    LUCID_ACTUATOR_DYN_FILTER,
    LUCID_ACTUATOR_DYN_MUSCLE /* act_dot = (clamp(u, 0, 1) - act) / tau, tau = tau_act (0.5 + 1.5
                               * clamp(act, 0, 1)) when activating, else tau_deact / (0.5 + 1.5
                               * clamp(act, 0, 1)) (MuJoCo 2.2.2's mju_muscleDynamics) */
} lucid_actuator_dyn;

/* MuJoCo 2.2.2's muscle curves (mju_muscleGain, mju_muscleBias): prm = (range[0], range[1],
 * force, scale, lmin, lmax, vmax, fpmax, fvmax) over the actuator's length range; force < 0
 * means scale / acc0 (acc0: |M^-1 moment| at the neutral configuration, computed by the
 * compiler). */
enum { LUCID_MUSCLE_PRM = 9 };

typedef struct lucid_actuator_spec {
    const char *name;
    lucid_actuator_kind kind;
    int joint;  /* index into the spec's joints (1-dof joints only), -1 with a tendon */
    int tendon; /* index into the spec's tendons (a tendon transmission), -1: the joint */
    /* a slider-crank (MuJoCo's cranksite/slidersite): indices into the spec's frames, -1: none;
     * with them joint and tendon are ignored, cranklength (the rod, > 0) in m */
    int crank, slider;
    double cranklength;
    double gear;
    double kp;      /* position servos */
    double kv;      /* velocity servos and dampers */
    double gain[3]; /* general, cylinder: the affine gain (g0, g1, g2) and bias (b0, b1, b2) */
    double bias[3];
    lucid_actuator_dyn dyn;       /* none except for intvelocity (integrator), cylinder (filter) and
                                   * general */
    double timeconst;             /* a filter's time constant (> 0) */
    double muscle_tau[2];         /* muscle dynamics: activation and deactivation time constants */
    int gain_muscle, bias_muscle; /* gain or bias by the muscle curves (then gain[], bias[]
                                   * unused) with gainprm, biasprm */
    double gainprm[LUCID_MUSCLE_PRM], biasprm[LUCID_MUSCLE_PRM];
    double lengthrange[2];    /* a muscle's: lower < upper, given, or computed when */
    int lengthrange_compute;  /* is set: the extremes of L over the joints' ranges (the compiler's
                               * stand-in for MuJoCo's compile-time simulation; model_files.md) */
    int lengthrange_uselimit; /* computed: a limited joint's or tendon's range when it is the
                               * transmission (MuJoCo's uselimit: copied, gear not applied) */
    int act_limited;          /* the activation clamped to [act_lower, act_upper] after a step */
    double act_lower, act_upper;
    int ctrl_limited;
    double ctrl_lower, ctrl_upper;
    int force_limited;
    double force_lower, force_upper;
    int line;
} lucid_actuator_spec;

/* An equality constraint (MJCF <equality>, MuJoCo 2.2.2's meanings), enforced by the world
 * as hard bilateral rows (docs/model_files.md):
 *  - connect: the point `anchor` (body1's frame) stays where it is in body2's frame at the
 *    neutral configuration (3 rows);
 *  - weld: body2 keeps the pose relpose (position, then quaternion w x y z) in body1's frame,
 *    the point `anchor` of body2 (its frame) meeting relpose's position; without relpose
 *    (has_relpose 0) the relative pose at the neutral configuration (6 rows; 3 when
 *    torquescale is 0: the rotation is free);
 *  - joint: q1 - ref1 = c0 + c1 d + ... + c4 d^4, d = q2 - ref2 (ref: the joints' neutral
 *    coordinate); joint2 -1: q1 - ref1 = c0 (1 row; revolute and prismatic joints);
 *  - tendon: the same polynomial in the tendons' lengths, L1 - L1_0 = poly(L2 - L2_0), L_0 the
 *    lengths at the neutral configuration (MuJoCo's tendon_length0); tendon2 -1: L1 - L1_0 =
 *    c0 (1 row; fixed and spatial tendons). */
typedef enum lucid_equality_kind {
    LUCID_EQUALITY_CONNECT,
    LUCID_EQUALITY_WELD,
    LUCID_EQUALITY_JOINT,
    LUCID_EQUALITY_TENDON
} lucid_equality_kind;

typedef struct lucid_equality_spec {
    const char *name; /* may be NULL */
    lucid_equality_kind kind;
    int active;           /* 0: stored, not enforced */
    int body1, body2;     /* connect, weld: spec bodies, body2 may be LUCID_MODEL_WORLD */
    int joint1, joint2;   /* joint: spec joints, joint2 -1: none */
    int tendon1, tendon2; /* tendon: spec tendons, tendon2 -1: none */
    lucid_vec3 anchor;
    int has_relpose;
    lucid_se3 relpose;
    double torquescale; /* weld: >= 0; a hard weld's rows only depend on whether it is 0 */
    double polycoef[5];
    int line;
} lucid_equality_spec;

/* One element of a spatial tendon's path (MJCF <spatial> children, MuJoCo 2.2.2's meanings): a
 * site the tendon passes through, a sphere or cylinder geom it wraps around (between two sites;
 * side: a site on the side it prefers, or inside the geom: the path passes through it), or a
 * pulley starting a new branch whose length counts divided by divisor (> 0). */
typedef enum lucid_tendon_path_kind {
    LUCID_TENDON_PATH_SITE,
    LUCID_TENDON_PATH_GEOM,
    LUCID_TENDON_PATH_PULLEY
} lucid_tendon_path_kind;
typedef struct lucid_tendon_path_spec {
    lucid_tendon_path_kind kind;
    int index;      /* site: a spec frame; geom: a spec geom; pulley: -1 */
    int side;       /* geom: the spec frame of its side site, -1: none */
    double divisor; /* pulley */
    int line;
} lucid_tendon_path_spec;

/* A tendon (MuJoCo's semantics). Fixed (n > 0, npath 0): length L = sum_i coef[i] q_i over n
 * 1-dof joints (indices into the spec's joints). Spatial (npath > 0, n 0): the length of the
 * path through its sites and around its wrapping geoms (MuJoCo 2.2.2's mj_tendon). Either is
 * limited to [lower, upper] (acting at margin inside it), with a spring to springlength (NAN: L
 * at the joints' springref), damping and dry friction (frictionloss) along it. The model's
 * lucid_model_tendon. */
typedef struct lucid_tendon_spec {
    const char *name; /* may be NULL */
    size_t n;
    int *joints;  /* n joint indices (copied by add_tendon) */
    double *coef; /* n coefficients (copied) */
    size_t npath;
    lucid_tendon_path_spec *path; /* npath elements (copied) */
    int limited;
    double lower, upper, margin;
    double stiffness, damping, frictionloss;
    double springlength; /* NAN: the length at the joints' springref */
    int line;
} lucid_tendon_spec;

/* A keyframe (MJCF <key>) in MuJoCo's layout: qpos over the spec's joints in order (free: world
 * position, then quaternion w x y z; ball: quaternion; hinge, slide: the coordinate), qvel
 * (free: world linear velocity, then body angular velocity), ctrl per actuator, mpos (3) and
 * mquat (4, w x y z) per mocap body in spec order. An absent array (count 0) means MuJoCo's
 * default: qpos0 (lucid's neutral configuration), zero velocity and controls, the mocap
 * bodies' placements. */
typedef struct lucid_keyframe_spec {
    const char *name;                                /* NULL: unnamed */
    double *qpos, *qvel, *ctrl, *act, *mpos, *mquat; /* act: per stateful actuator */
    size_t nqpos, nqvel, nctrl, nact, nmpos, nmquat;
    int line;
} lucid_keyframe_spec;

/* A sensor (MJCF <sensor> child) of a kind lucid computes (model.h); the compiler resolves its
 * object by name: a joint (jointpos, jointvel), an actuator (actuatorfrc), a body or a site
 * (framepos, framequat: objtype 0 body, 1 site), a site (gyro, velocimeter: objtype 1). */
typedef enum lucid_sensor_kind {
    LUCID_SENSOR_JOINTPOS,
    LUCID_SENSOR_JOINTVEL,
    LUCID_SENSOR_ACTUATORFRC,
    LUCID_SENSOR_FRAMEPOS,
    LUCID_SENSOR_FRAMEQUAT,
    LUCID_SENSOR_GYRO,        /* a site's angular velocity in its own frame */
    LUCID_SENSOR_VELOCIMETER, /* a site origin's linear velocity in the site's frame */
    /* of the last step (docs/world.md "Sensors"): */
    LUCID_SENSOR_ACCELEROMETER, /* a site origin's acceleration minus gravity, site frame */
    LUCID_SENSOR_FORCE,         /* the force the site's body gets from its parent, site frame */
    LUCID_SENSOR_TORQUE,        /* and its torque about the site's origin */
    LUCID_SENSOR_TOUCH,         /* the normal forces of contacts in the site's zone */
    LUCID_SENSOR_KIND_COUNT
} lucid_sensor_kind;
/* "jointpos", "jointvel", "actuatorfrc", "framepos", "framequat", "gyro", "velocimeter"
 * (MJCF's element names). */
const char *lucid_sensor_kind_name(lucid_sensor_kind kind);
typedef struct lucid_sensor_spec {
    const char *name; /* NULL: unnamed */
    lucid_sensor_kind kind;
    const char *object;
    int objtype; /* frame sensors: 0 body (MJCF's body and xbody), 1 site */
    double noise, cutoff;
    int line;
} lucid_sensor_spec;

/* Which link and parent link pairs never collide, beside the bitmasks and the exclusions. */
typedef enum lucid_model_parent_filter {
    LUCID_MODEL_FILTER_ADJACENT, /* a link and its parent link, a root link not on a free joint
                                  * and the static geoms (URDF, lucid.model.build) */
    LUCID_MODEL_FILTER_PARENT,   /* a link and its parent link, never the world body's geoms
                                  * (MJCF: MuJoCo's filterparent) */
    LUCID_MODEL_FILTER_NONE      /* none (MJCF <flag filterparent="disable">) */
} lucid_model_parent_filter;

/* Which geom pairs collide (MJCF <option collision>, MuJoCo 2.2.2's mj_collision). */
typedef enum lucid_model_collision {
    LUCID_MODEL_COLLISION_ALL,        /* the filtered geom pairs and the explicit pairs (an
                                       * explicit pair replaces its geoms' filtered one) */
    LUCID_MODEL_COLLISION_PREDEFINED, /* the explicit pairs only */
    LUCID_MODEL_COLLISION_DYNAMIC     /* the filtered geom pairs only */
} lucid_model_collision;

/* An explicit geom pair (MJCF <contact><pair>): its two geoms collide whatever the filters
 * (bitmasks, parent filter, excludes) say, with these contact parameters instead of the
 * geoms' mixed ones (docs/model_files.md). */
typedef struct lucid_pair_spec {
    const char *name;                  /* may be NULL */
    int geom1, geom2;                  /* spec geom indices, different */
    int condim;                        /* 1, 3, 4 or 6 */
    double friction, torsion, rolling; /* as a geom's: sliding, and lengths (m), >= 0 */
    double margin, gap;                /* m, >= 0: the pair acts at separation margin - gap */
    int line;
} lucid_pair_spec;

typedef struct lucid_model_spec {
    char *source; /* the file it came from (for messages), NULL if none */
    char *name;
    lucid_vec3 gravity; /* default (0, 0, -9.81) */
    double timestep;    /* default 0.002 (MJCF's default); URDF has none */
    lucid_body_spec *bodies;
    size_t nbodies, cap_bodies;
    lucid_joint_spec *joints;
    int *joint_body; /* joints[i] moves body joint_body[i]; a body's joints in order */
    size_t njoints, cap_joints;
    lucid_geom_spec *geoms;
    lucid_convex_mesh **geom_mesh; /* owned mesh of a convex geom, NULL otherwise */
    size_t ngeoms, cap_geoms;
    /* convex parts of decomposed mesh geoms (meshes = "decompose"): part k, an owned mesh in
     * its geom's frame, belongs to geom part_geom[k]; parts of one geom are consecutive */
    lucid_convex_mesh **part_mesh;
    int *part_geom;
    size_t nparts, cap_parts;
    lucid_frame_spec *frames;
    size_t nframes, cap_frames;
    lucid_actuator_spec *actuators;
    size_t nactuators, cap_actuators;
    int (*excludes)[2]; /* body index pairs whose geoms never collide */
    size_t nexcludes, cap_excludes;
    lucid_model_parent_filter filter_parent; /* default LUCID_MODEL_FILTER_ADJACENT */
    lucid_pair_spec *pairs;                  /* explicit geom pairs */
    size_t npairs, cap_pairs;
    lucid_model_collision collision; /* default LUCID_MODEL_COLLISION_ALL */
    lucid_keyframe_spec *keyframes;
    size_t nkeyframes, cap_keyframes;
    lucid_tendon_spec *tendons;
    size_t ntendons, cap_tendons;
    lucid_heightfield **hfields; /* owned height fields, which heightfield geoms refer to */
    size_t nhfields, cap_hfields;
    lucid_equality_spec *equalities;
    size_t nequalities, cap_equalities;
    lucid_sensor_spec *sensors;
    size_t nsensors, cap_sensors;
} lucid_model_spec;

/* An empty spec (gravity (0, 0, -9.81), timestep 0.002); source may be NULL. */
lucid_status lucid_model_spec_create(const char *source, lucid_model_spec **out);
void lucid_model_spec_destroy(lucid_model_spec *spec);

/* Each appends a copy (strings duplicated) and writes the new element's index to *index
 * (may be NULL). LUCID_ERR_ARGUMENT for an index out of range (a parent must already exist),
 * LUCID_ERR_NO_MEMORY when growing fails (the spec is unchanged then). */
lucid_status lucid_model_spec_add_body(lucid_model_spec *spec, const lucid_body_spec *body,
                                       int *index);
lucid_status lucid_model_spec_add_joint(lucid_model_spec *spec, int body,
                                        const lucid_joint_spec *joint, int *index);
/* mesh: the convex mesh of a LUCID_SHAPE_CONVEX geom, whose ownership passes to the spec
 * (also on failure: it is destroyed then); NULL for every other kind. */
lucid_status lucid_model_spec_add_geom(lucid_model_spec *spec, const lucid_geom_spec *geom,
                                       lucid_convex_mesh *mesh, int *index);
/* A convex part of geom `geom` (a mesh geom already added, the last one given parts): the geom
 * then collides as its parts, each with the geom's pose and contact parameters. The mesh's
 * ownership passes to the spec (also on failure). */
lucid_status lucid_model_spec_add_geom_part(lucid_model_spec *spec, int geom,
                                            lucid_convex_mesh *mesh);
lucid_status lucid_model_spec_add_frame(lucid_model_spec *spec, const lucid_frame_spec *frame,
                                        int *index);
lucid_status lucid_model_spec_add_actuator(lucid_model_spec *spec,
                                           const lucid_actuator_spec *actuator, int *index);
/* Copies the name, joint indices and coefficients or the path; the compiler checks them. */
lucid_status lucid_model_spec_add_tendon(lucid_model_spec *spec, const lucid_tendon_spec *tendon,
                                         int *index);
lucid_status lucid_model_spec_add_exclude(lucid_model_spec *spec, int body1, int body2);
/* Copies the pair's name; the compiler checks its geoms and parameters. */
lucid_status lucid_model_spec_add_pair(lucid_model_spec *spec, const lucid_pair_spec *pair,
                                       int *index);
/* Copies the keyframe's name and arrays; the compiler checks their sizes. */
lucid_status lucid_model_spec_add_keyframe(lucid_model_spec *spec, const lucid_keyframe_spec *key,
                                           int *index);
/* Copies the sensor's name and object name; the compiler resolves the object. */
lucid_status lucid_model_spec_add_sensor(lucid_model_spec *spec, const lucid_sensor_spec *sensor,
                                         int *index);
/* Appends an equality constraint (name copied); indices are checked by the compiler. */
lucid_status lucid_model_spec_add_equality(lucid_model_spec *spec, const lucid_equality_spec *eq,
                                           int *index);
/* Hands a height field to the spec (destroyed on failure too); geoms of kind
 * LUCID_SHAPE_HEIGHTFIELD refer to it (lucid_shape_heightfield), on the world body only. */
lucid_status lucid_model_spec_add_heightfield(lucid_model_spec *spec, lucid_heightfield *h);

/* Why spatial tendon t's path breaks MuJoCo's rules, NULL if it does not (*where: the offending
 * element): at least two elements, starting with a site; a geom between two sites; a pulley
 * neither last nor after a pulley; a site with a neighbour that is no pulley; not the same site
 * twice in a row. So each branch starts and ends with a site. */
const char *lucid_tendon_path_problem(const lucid_tendon_spec *t, size_t *where);

/* Index of the body / joint named `name`, or -1. */
int lucid_model_spec_find_body(const lucid_model_spec *spec, const char *name);
int lucid_model_spec_find_joint(const lucid_model_spec *spec, const char *name);
int lucid_model_spec_find_tendon(const lucid_model_spec *spec, const char *name);
int lucid_model_spec_find_geom(const lucid_model_spec *spec, const char *name);

/* Defaults a loader starts an element from: identity placement/pose, unit axis z, zero mass
 * and inertia, no limits (velocity/effort INFINITY), gear 1, friction 1, condim 3,
 * solmix 1, contype 1, conaffinity 1 (priority, margin, gap 0), parent/body LUCID_MODEL_WORLD. */
lucid_body_spec lucid_body_spec_default(void);
lucid_joint_spec lucid_joint_spec_default(lucid_joint_kind kind);
lucid_geom_spec lucid_geom_spec_default(void);
/* active, body2 LUCID_MODEL_WORLD, joint1 = joint2 = tendon1 = tendon2 = -1, torquescale 1,
 * polycoef (0 1 0 0 0), identity relpose (has_relpose 0). */
lucid_equality_spec lucid_equality_spec_default(lucid_equality_kind kind);
lucid_actuator_spec lucid_actuator_spec_default(void); /* joint 0, tendon -1, no crank */
lucid_tendon_spec lucid_tendon_spec_default(void);     /* no joints, springlength NAN */

#endif
