/* The rigid-body world: free bodies made of convex shapes, static shapes, gravity, external
 * wrenches, frictional contacts solved as the Delassus problem of Le Lidec et al. (Sec. II).
 *
 * Time stepping (semi-implicit Euler at the velocity level, the paper's Eq. 2 and 5):
 *   v_free = v + dt M^-1 (f_ext + m g)          (linear; angular: the gyroscopic term
 *                                                 w x I w by the implicit midpoint rule in the
 *                                                 body frame, solved by Newton, which keeps
 *                                                 a torque-free body's energy and |L|)
 *   v+     = v_free + dt M^-1 J^T lambda,       lambda = contact FORCES (N), per contact
 *                                                 (t1, t2, n), normal last
 *   pose+  = (exp(dt w+) R, x_com + dt v_com+)   rotation on SO(3), world-frame w
 * so the contact problem is solved in forces, as the paper recommends (end of Sec. II): with
 * c = J v+ the contact velocity, c = J v_free + dt G lambda, and the solver receives
 *   G = J M^-1 J^T,   g = (J v_free - c*) / dt,   R = compliance on the normal entries,
 * whose complementarity is that of c - c* (the problem is homogeneous in lambda). The
 * reference velocity c* is zero on the tangents; on the normal, with d the contact's separation
 * less its include_margin (docs/world_step.md, "Position correction"):
 *   c*_N = -(d + slop/2) / dt              for d > -0.4 slop (speculative: rest depth slop/2)
 *   c*_N = 0                               for -slop <= d <= -0.4 slop (the rest band)
 *   c*_N = min(-(d + slop/2) / dt, v_c)    for d < -slop (v_c: options.correction_speed)
 *   c*_N = max(c*_N, -e v_N)               for an impact: the approach speed -v_N (at the
 *                                          step's start) exceeds the restitution threshold
 *                                          and closes the gap within the step (e: the larger
 *                                          of the two bodies' restitution).
 * The slop is the contact's: min(options.slop, LUCID_WORLD_SLOP_PER_SIZE L), L the smallest
 * half extent of the smaller part it touches on a moving body (static bodies, halfspaces and
 * heightfields do not count), so a small body rests at a depth proportional to its size; v_c
 * is derived from that slop. A joint or tendon limit, whose separation is exact (no geometry),
 * has no band and rests at its bound: c*_N = min(-d / dt, v_c), v_c from options.slop.
 * Contacts are independent between islands (bodies connected through contacts, static bodies
 * not joining them): each island is assembled and solved on its own.
 *
 * Bodies and static bodies share one id space (0-based here). A body's pose is the frame its
 * shapes are given in; its velocity is a twist (v, w), linear first, in the world frame: v is
 * the velocity of the body frame's origin, w the angular velocity. External forces act at the
 * centre of mass; they and the torques are cleared after every step (apply them before each
 * step). Friction of a contact between free or static bodies: the smaller of the two bodies'
 * coefficients; between models' geoms: MuJoCo's rule (lucid_world_add_model, and
 * docs/model_files.md for a geom against a free or static body).
 *
 * Memory: the world owns grow-only buffers; once they have reached the sizes a scene needs,
 * lucid_world_step allocates nothing. */
#ifndef LUCID_WORLD_H
#define LUCID_WORLD_H

#include "runtime/shapes/shape.h"
#include "solvers/contact/contact_solver.h"
#include "solvers/contact/contact_sparse.h"
#include "solvers/contact/single_level_ncp.h"

typedef struct lucid_world lucid_world;

typedef struct lucid_world_options {
    lucid_vec3 gravity;            /* m/s^2, default (0, 0, -9.81) */
    double dt;                     /* s, > 0, default 1e-3 */
    lucid_contact_options contact; /* default ncp:newton, tol 1e-6, 200 iterations, warm
                                    * started. tol is in each island's units (N and m/s^2 for
                                    * bodies of a kilogram and more: lucid_world_island_scales);
                                    * its solver and attempts: world_island_solve.c */
    double slop;                   /* m, a resting contact settles slop/2 deep (default 1e-4);
                                    * parts smaller than slop / LUCID_WORLD_SLOP_PER_SIZE (half
                                    * extent) take a slop proportional to their size */
    double correction_speed;       /* m/s (rad/s on a hinge's limit), >= 0: the fastest a deeper
                                    * overlap is pushed out; -1 (default): sqrt(2 g_n slop) with
                                    * the contact's slop, the speed that rises a body by slop
                                    * under standard gravity */
    double margin;                 /* m, contacts are generated for gaps below it (default 5e-3) */
    double restitution_threshold;  /* m/s, approach speed above which restitution acts (0.5) */
    double compliance;             /* >= 0, R on the normal entries (default 0: rigid) */
    double warm_start_radius;      /* m, a new contact inherits the force of the nearest previous
                                    * contact of the same shape pair within it (default 1e-2) */
    double density;                /* kg/m^3, for bodies whose mass is not given (default 1000) */
    int patch_points;              /* contact points kept per shape pair, in [1, 16] (default 4:
                                    * the area-maximising 4 of a face-face patch) */
    int sparse_threshold;          /* islands of more contacts are solved in body space when
                                    * the solver has a body-space form; -1 (default): each
                                    * solver's crossover (docs/world_step.md, section 4) */
    int collision; /* LUCID_WORLD_COLLISION_TWO_STAGE (GJK/EPA, then the contact problem) or
                    * LUCID_WORLD_COLLISION_SINGLE_LEVEL (docs/single_level.md) */
    lucid_single_level_options single_level; /* the single-level step's solver */
} lucid_world_options;

enum { LUCID_WORLD_COLLISION_TWO_STAGE = 0, LUCID_WORLD_COLLISION_SINGLE_LEVEL = 1 };

void lucid_world_default_options(lucid_world_options *o);
/* The options' description (lucid.world{...}, lucid.world.options()): every field but the
 * nested contact (lucid_contact_options) and single_level (lucid_single_level_option_table). */
extern const lucid_option lucid_world_option_table[];

/* Standard gravity (m/s^2): a body thrown up at sqrt(2 g_n slop) rises slop. */
#define LUCID_STANDARD_GRAVITY 9.80665

/* A contact's slop is at most this fraction of the smallest half extent L of the smaller
 * moving part it touches: it rests slop/2 <= 1% of L deep, and a ball rolls on a radius within
 * 0.5% of its own (its contact point lies slop/4 inside it). The default slop 1e-4 m is that
 * of parts of L >= 5 mm, so bodies of a centimetre and more keep it. */
#define LUCID_WORLD_SLOP_PER_SIZE 0.02

/* The correction speed v_c the options give for a contact of slop `slop`: their own, or
 * sqrt(2 g_n slop) for -1. lucid_world_correction_speed: that of options.slop (the largest). */
double lucid_world_correction_speed_for(const lucid_world_options *o, double slop);
double lucid_world_correction_speed(const lucid_world_options *o);

/* LUCID_OK, or LUCID_ERR_ARGUMENT / LUCID_ERR_NONFINITE with *why naming the bad option (the
 * table's rule, then the contact and single-level options). */
lucid_status lucid_world_options_check(const lucid_world_options *o, const char **why);

lucid_status lucid_world_create(const lucid_world_options *o, lucid_world **out);
void lucid_world_destroy(lucid_world *w);
const lucid_world_options *lucid_world_get_options(const lucid_world *w);

/* A convex shape at a pose in the body frame. The world copies the lucid_shape struct; a
 * convex mesh it points to must outlive the world. */
typedef struct lucid_body_part {
    lucid_shape shape;
    lucid_se3 pose;
} lucid_body_part;

typedef struct lucid_body_desc {
    const lucid_body_part *parts; /* may be NULL with num_parts 0 (then mass and inertia
                                   * must be given) */
    int num_parts;
    int has_mass;       /* mass given; otherwise density x volume of the parts */
    double mass;        /* kg, > 0 */
    int has_inertia;    /* inertia given (about the centre of mass, body axes); otherwise
                         * that of the parts at uniform density, scaled to the mass */
    lucid_mat3 inertia; /* symmetric positive definite */
    lucid_se3 pose;     /* world pose of the body frame */
    double velocity[6]; /* world-frame twist, linear first */
    double friction;    /* in [0, LUCID_CONTACT_MAX_FRICTION = 100] */
    double restitution; /* in [0, 1] */
    /* m, >= 0: the torsional friction coefficient (MuJoCo's friction[1]): with friction > 0 its
     * contacts resist spinning about their normal by a torque of at most torsion x the normal
     * force (condim 4, docs/model_files.md "Torsional friction"); 0 (the default): none */
    double torsion;
    /* m, >= 0: the rolling friction coefficient (MuJoCo's friction[2]): with friction > 0 its
     * contacts resist rolling by a couple of at most rolling x the normal force (condim 6,
     * docs/model_files.md "Rolling friction"); 0 (the default): none */
    double rolling;
} lucid_body_desc;

/* Fills the defaults: no parts, mass from density, identity pose, zero velocity, friction 0.5,
 * restitution 0, torsion and rolling 0. */
void lucid_body_desc_default(lucid_body_desc *d);

/* Adds a free body (its centre of mass is that of its parts, or the body origin when it has
 * none). Errors: LUCID_ERR_ARGUMENT (halfspace part, mass <= 0, inertia not symmetric positive
 * definite, friction outside [0, 100], restitution outside [0, 1], torsion or rolling < 0) with
 * *why set; LUCID_ERR_NONFINITE; LUCID_ERR_NO_MEMORY. why may be NULL. */
lucid_status lucid_world_add_body(lucid_world *w, const lucid_body_desc *d, int *id,
                                  const char **why);
/* Adds a static body (any shapes, halfspaces included) at pose; its torsional and rolling
 * coefficients are 0. */
lucid_status lucid_world_add_static(lucid_world *w, const lucid_body_part *parts, int num_parts,
                                    const lucid_se3 *pose, double friction, int *id,
                                    const char **why);
/* The same with MuJoCo's friction vector: friction[0] the sliding coefficient in [0, 100],
 * friction[1] the torsional and friction[2] the rolling coefficient (m, >= 0; as a free body's
 * lucid_body_desc.torsion and .rolling, paired with the other side's by the same rule: the
 * larger, where the pair has sliding friction). Errors as lucid_world_add_body's for these. */
lucid_status lucid_world_add_static_friction(lucid_world *w, const lucid_body_part *parts,
                                             int num_parts, const lucid_se3 *pose,
                                             const double friction[3], int *id, const char **why);

int lucid_world_body_count(const lucid_world *w);
int lucid_world_is_static(const lucid_world *w, int id);    /* -1 for an unknown id */
double lucid_world_body_mass(const lucid_world *w, int id); /* 0 for static bodies */
/* Inertia about the centre of mass in body axes, and the centre of mass in the body frame. */
lucid_status lucid_world_body_inertia(const lucid_world *w, int id, lucid_mat3 *inertia,
                                      lucid_vec3 *com);

lucid_status lucid_world_pose(const lucid_world *w, int id, lucid_se3 *pose);
lucid_status lucid_world_velocity(const lucid_world *w, int id, double twist[6]);
lucid_status lucid_world_set_velocity(lucid_world *w, int id, const double twist[6]);

/* Adds f (N, at the centre of mass) and tau (N m), world frame, to the body's accumulators,
 * which the next step consumes and clears. Static ids: LUCID_ERR_ARGUMENT. */
lucid_status lucid_world_apply_force(lucid_world *w, int id, lucid_vec3 f, lucid_vec3 tau);

/* Advances one time step. Errors: LUCID_ERR_NO_MEMORY (growing a buffer, a buffer size that
 * overflows size_t, or an island of more contacts than the dense solver takes:
 * LUCID_WORLD_MAX_ISLAND_CONTACTS = 2048), the contact solver's errors (LUCID_ERR_NOT_SPD...),
 * LUCID_ERR_NONFINITE if the state became NaN. lucid_world_last_error says what failed; the
 * bodies have not moved unless the status is LUCID_ERR_NONFINITE. */
lucid_status lucid_world_step(lucid_world *w);
/* Why the last lucid_world_step failed, "" after a successful one (valid until the next). */
const char *lucid_world_last_error(const lucid_world *w);

/* The state x = (q, v, act) (docs/world.md, runtime/world/world_state.c): every free body's pose
 * as free- joint coordinates (x, y, z, qw, qx, qy, qz), in id order, then every model's q; then
 * every free body's body-frame twist (linear velocity of the body origin, angular velocity, in
 * body axes), then every model's v; then every model's actuator activations (na, none in most
 * worlds). Static bodies and model links are not in it. nq = 7 per free body + the models' nq,
 * nv = 6 per free body + the models' nv, na the models' activations; size nq + nv + na. */
void lucid_world_state_dims(const lucid_world *w, int *nq, int *nv); /* either may be NULL */
int lucid_world_state_size(const lucid_world *w);
int lucid_world_tangent_size(const lucid_world *w); /* 2 nv + na: (dq, dv, dact) */
void lucid_world_get_state(const lucid_world *w, double *x);
/* Sets the state (size lucid_world_state_size). Quaternions may have any non-zero norm (they
 * are normalised). It also forgets the warm-start memory, so stepping from a given state is a
 * pure function of it: set_state(x) then n steps reproduces the same trajectory bit for bit. */
lucid_status lucid_world_set_state(lucid_world *w, const double *x, const char **why);
/* out = x (+) dx (out may alias x): T exp(dq_body) for free bodies (the body-frame twist
 * convention of their velocities), the models' joint manifolds (lucid_model_integrate), v + dv,
 * act + dact.
 * LUCID_ERR_ARGUMENT for a zero quaternion in x. */
lucid_status lucid_world_state_integrate(const lucid_world *w, const double *x, const double *dx,
                                         double *out);
/* dx = x1 (-) x0, the tangent with x0 (+) dx = x1: log(T0^-1 T1) for free bodies. */
lucid_status lucid_world_state_difference(const lucid_world *w, const double *x0, const double *x1,
                                          double *dx);

typedef struct lucid_world_energy {
    double kinetic, potential; /* J; potential of gravity, -m g.x_com */
} lucid_world_energy;
lucid_world_energy lucid_world_energy_of(const lucid_world *w);

typedef struct lucid_world_contact {
    int body1, body2;      /* ids; the normal points from body1 into body2 */
    int part1, part2;      /* shape indices within the bodies */
    lucid_vec3 point;      /* world, midway between the witness points */
    lucid_mat3 frame;      /* columns t1, t2, n */
    double separation;     /* m, < 0 penetrating */
    double include_margin; /* m, MuJoCo's margin - gap of two model geoms (0 otherwise): the
                            * contact acts on separation - include_margin (docs/model_files.md) */
    double force[3];       /* lambda (N) in (t1, t2, n) */
    double dual[3];        /* the solver's dual variable (ADMM multiplier), kept for warm start */
    double rho; /* the ADMM penalty its island's answer ended at (in the units of G), kept
                 * for warm start; 0 when none */
    double friction;
    /* m, the pair's torsional friction coefficient (condim 4, docs/model_files.md); 0: none.
     * A contact with torsion > 0 has a fourth row, the relative angular velocity about n */
    double torsion;
    double torsion_force; /* N m, the torque about n of its torsional friction (on body2) */
    double torsion_dual;  /* the solver's dual of its spin row, kept for warm start */
    /* m, the pair's rolling friction coefficient (condim 6); 0: none. A contact with
     * rolling > 0 has six rows: the spin and the relative angular velocities about t1, t2 */
    double rolling;
    double rolling_force[2]; /* N m, the rolling torques about t1, t2 (on body2) */
    double rolling_dual[2];  /* the solver's duals of its rolling rows, kept for warm start */
    /* A limit rather than a shape contact when limit_sign != 0: dof limit_dof of model
     * limit_model at its lower (+1: the normal velocity is +v_dof) or upper (-1) bound;
     * body1 = body2 = the link it moves, frame the identity, separation the distance to the
     * bound (rad or m), no friction. A fixed tendon's limit has limit_tendon >= 0 (the model's
     * tendon; limit_dof -1): its normal velocity is +-Ld, its row the tendon's moment, and
     * include_margin the tendon's margin; limit_tendon is -1 on a joint limit. */
    int limit_model, limit_dof, limit_sign, limit_tendon;
    /* 1: not the pair's present witness but the material points its bodies' free twists bring
     * closest by the step's end (a turning curved surface: docs/world.md), each point rigid
     * with its body */
    int predicted;
    /* A height field contact's convex piece (on_prism = 1): prism prism_tri of cell
     * (prism_row, prism_col) (lucid_heightfield_prism_build), or, when prism_top, its top
     * face's plane, which the top-face rule collides as a halfspace (docs/collision.md). The
     * contact geometry derivatives take that piece in place of the field. */
    int on_prism, prism_row, prism_col, prism_tri, prism_top;
    /* A dry-friction row rather than a shape contact when > 0 (N m or N, the dof's or the
     * tendon's frictionloss; limit_sign 0): a joint's on dof limit_dof of model limit_model
     * (limit_tendon -1), a fixed tendon's on tendon limit_tendon (limit_dof -1); body1 = body2 =
     * the link it moves (a tendon's: its last joint's), frame the identity. Its t1 row is the
     * dof's velocity (a tendon's: Ld, its moment) and |force[0]| <= frictionloss opposes it
     * (force[2] = frictionloss, the prescribed normal force of a virtual decoupled normal row
     * with friction 1; force[1] = 0): docs/world.md. */
    double frictionloss;
    double row_diagonal; /* a dry-friction row: d, its normal row's G_nn (the dof row's own
                          * diagonal), set by the island solve; the step derivatives read it */
} lucid_world_contact;

int lucid_world_contact_count(const lucid_world *w);
const lucid_world_contact *lucid_world_contacts(const lucid_world *w);

/* The contact problem of the last island the last step solved, as the solver received it
 * (G, g, mu, R: pointers into the world's buffers, valid until the next step or set_state),
 * and the indices into lucid_world_contacts of its contacts (*contacts may be NULL). With a
 * single island it is the whole scene's problem. n = 0 when the last step had no contacts, and
 * when that island was solved in body space (opt.sparse_threshold): it has no G (see
 * lucid_world_last_sparse_problem and lucid_world_last_problem_dense). */
void lucid_world_last_problem(const lucid_world *w, lucid_contact_problem *p, const int **contacts);
/* The same island's problem when it was solved in body space (n = 0 otherwise): the sparse
 * pieces of solvers/contact/contact_sparse.h (J and W = M^-1 J^T blocks per contact side, the
 * slots' mass blocks when the solver is not PGS, g, mu, R; the slots' columns: 6 for a free
 * body, nv for a model whose links it touches, 2 for a joint limit's tangential rows; world
 * units, pointers valid until the next step), the world body of each side (2n: a link's for
 * a robot row, -1 for a static one or a joint limit's tangential rows) in *side_bodies and the
 * contacts as above. lucid_contact_sparse_delassus builds its G when wanted. */
void lucid_world_last_sparse_problem(const lucid_world *w, lucid_contact_sparse_problem *p,
                                     const int **side_bodies, const int **contacts);
/* lucid_world_last_problem for either path: for a body-space island its G is built (into the
 * world's dense buffer, allocated here if need be: not part of a step) from the sparse pieces.
 * LUCID_ERR_NO_MEMORY above LUCID_WORLD_MAX_ISLAND_CONTACTS (2048) contacts or when the
 * allocation fails (then p->n = 0). */
lucid_status lucid_world_last_problem_dense(lucid_world *w, lucid_contact_problem *p,
                                            const int **contacts);

/* ---- articulated models (runtime/model/model.h) -----------------------------------------
 * A model's links are world bodies (ids after those that existed when it was added; one per
 * moving model body, plus one static body for the geoms fixed in the model's world frame when
 * it has any), posed by forward kinematics: lucid_world_pose works on them, velocities and
 * forces are set through the model (lucid_world_set_velocity / apply_force refuse them). Its
 * links collide with every body, static shape and other model, and with its own links and
 * static geoms as its filter says (docs/model_files.md, Collision filtering): not a link and
 * its parent link (lucid_model_filter_parent; LUCID_MODEL_FILTER_ADJACENT: also a root link
 * not on a free joint and the static geoms; LUCID_MODEL_FILTER_NONE: none), not the geoms of
 * an excluded pair of file bodies. Contacts follow MuJoCo's
 * semantics (docs/model_files.md): two geoms collide when (contype1 & conaffinity2) ||
 * (contype2 & conaffinity1), a free or static body counting as a geom of contype = conaffinity
 * = 1; a pair of geoms takes the larger condim and the larger friction, or the higher
 * `priority` geom's; condim 1 is frictionless, condim 4 adds torsional friction (a fourth row
 * per contact, lucid_world_contact.torsion), condim 6 rolling friction as well (six rows,
 * lucid_world_contact.rolling); the pair acts at separation max(margin) -
 * max(gap) (lucid_world_contact.include_margin). has_friction gives every geom of the model
 * that friction and condim 3 (1 for friction 0). Joint
 * and fixed-tendon limits act as unilateral contacts (lucid_world_contact.limit_sign). Damping,
 * joint springs and position servos on joints are implicit in the step (world_model.c); tendon
 * springs, dampers and actuators explicit (world_tendon.c). The state (lucid_world_get_state)
 * holds every model's q after the free bodies' poses, and its v after their twists. */
typedef struct lucid_model lucid_model;
typedef struct lucid_world_model_desc {
    const double *q; /* copied */ /* nq entries, NULL: the neutral configuration */
    const double *v;              /* nv entries, NULL: zero */
    const double *act;            /* na activations (finite), NULL: zero */
    lucid_se3 pose;     /* placement of the model's world frame (a fixed base's placement) */
    int has_friction;   /* friction given to every geom (condim 3, 1 for 0), else the file's */
    double friction;    /* in [0, 100] */
    double restitution; /* in [0, 1] */
} lucid_world_model_desc;
void lucid_world_model_desc_default(lucid_world_model_desc *d);
/* Adds a model (the world holds a reference: lucid_model_retain); *id receives its index
 * among the models. */
lucid_status lucid_world_add_model(lucid_world *w, const lucid_model *m,
                                   const lucid_world_model_desc *d, int *id, const char **why);
int lucid_world_model_count(const lucid_world *w);
const lucid_model *lucid_world_model_of(const lucid_world *w, int id); /* NULL if unknown */
/* A model's physical parameters (world_model_params.c): a link's (model body's) mass, its
 * inertia scaled with it, a joint's damping, frictionloss or armature (every dof of it) and a
 * tendon's frictionloss, damping or stiffness. Setting one changes this world's own variant of the
 * model (runtime/model/model_variant.h), never the model the caller or other worlds hold.
 * LUCID_ERR_ARGUMENT (*why says why) for an unknown model, link, joint or tendon, a link that does
 * not carry its joint's whole inertia, a value out of range (mass > 0, damping, frictionloss,
 * armature and stiffness >= 0, finite; armature > 0 on a joint moving no mass), or a tendon
 * frictionloss > 0 on a tendon whose dofs the world keeps in different trees (added with neither a
 * limit nor frictionloss, its friction row would join them). */
typedef enum lucid_model_param_kind {
    LUCID_MODEL_PARAM_LINK_MASS = 0,
    LUCID_MODEL_PARAM_JOINT_DAMPING,
    LUCID_MODEL_PARAM_JOINT_FRICTIONLOSS,  /* every dof of the joint (N m or N) */
    LUCID_MODEL_PARAM_JOINT_ARMATURE,      /* every dof of the joint (kg m^2 or kg) */
    LUCID_MODEL_PARAM_TENDON_FRICTIONLOSS, /* index: a tendon (its force unit: N or N m) */
    LUCID_MODEL_PARAM_TENDON_DAMPING,      /* index: a tendon (force per unit of Ld) */
    LUCID_MODEL_PARAM_TENDON_STIFFNESS     /* index: a tendon (force per unit of L) */
} lucid_model_param_kind;
lucid_status lucid_world_model_param(const lucid_world *w, int model, lucid_model_param_kind kind,
                                     size_t index, double *value, const char **why);
lucid_status lucid_world_set_model_param(lucid_world *w, int model, lucid_model_param_kind kind,
                                         size_t index, double value, const char **why);
const double *lucid_world_model_q(const lucid_world *w, int id);       /* nq */
const double *lucid_world_model_v(const lucid_world *w, int id);       /* nv */
const double *lucid_world_model_control(const lucid_world *w, int id); /* nu */
lucid_status lucid_world_model_set_q(lucid_world *w, int id, const double *q, const char **why);
lucid_status lucid_world_model_set_v(lucid_world *w, int id, const double *v, const char **why);
/* Actuator inputs, held until changed (ctrlrange applied when the actuator is limited). */
lucid_status lucid_world_model_set_control(lucid_world *w, int id, const double *u,
                                           const char **why);
/* The model's actuator activations (lucid_model_na, MuJoCo's act; 0 when added), part of the
 * state. set_act takes any finite values (the activation range clamps only a step's result). */
const double *lucid_world_model_act(const lucid_world *w, int id); /* na */
lucid_status lucid_world_model_set_act(lucid_world *w, int id, const double *act, const char **why);
/* World placement of the model's frame `frame` (lucid_model_find_frame) at its q. */
lucid_status lucid_world_model_frame_pose(const lucid_world *w, int id, size_t frame, lucid_se3 *T);
/* The model's sensors (lucid_model_sensors) at its current state into out
 * (lucid_model_nsensordata values, MuJoCo's sensordata layout); frame sensors in the world
 * frame (lucid_world_model_frame_pose's), framequat with w >= 0, gyro and velocimeter in the
 * site's frame. The step sensors (accelerometer, force, torque, touch) are computed in the
 * model's workspace, re-posed at its q after: the world's state is unchanged, but the call
 * writes into w (not concurrently with other calls on w). Nothing is allocated.
 * LUCID_ERR_ARGUMENT for an unknown model id. */
lucid_status lucid_world_model_sensors(lucid_world *w, int id, double *out);
/* The model a world body belongs to (-1 for a free or static body) and, in *link, the
 * model's body index (-1: the model's static geoms or a mocap body). */
int lucid_world_body_model(const lucid_world *w, int body, int *link);

/* Mocap bodies (lucid_model_nmocap): each is a static world body of its model (after its links
 * and static geoms), posed by the user; contacts see it at rest (zero velocity, as MuJoCo's
 * mocap bodies: a moving one pushes bodies only through the overlap its new pose makes, which
 * the position correction resolves). Its pose is not part of the state (lucid_world_get_state,
 * like every static body's), clones copy it, set_state leaves it. Poses are in the model's
 * world frame (MuJoCo's mocap_pos, mocap_quat), the world frame when the model was added at the
 * identity. set: LUCID_ERR_ARGUMENT (*why) for an unknown model or mocap index, a rotation off
 * SO(3) by more than LUCID_WORLD_MOCAP_ROTATION_TOLERANCE (||R^T R - I||_F; within it R is
 * projected onto SO(3)) or a translation beyond LUCID_GEOMETRY_MAX; LUCID_ERR_NONFINITE. */
#define LUCID_WORLD_MOCAP_ROTATION_TOLERANCE 1e-6 /* that of lucid.se3's constructors */
lucid_status lucid_world_model_mocap(const lucid_world *w, int id, size_t k, lucid_se3 *pose);
lucid_status lucid_world_model_set_mocap(lucid_world *w, int id, size_t k, const lucid_se3 *pose,
                                         const char **why);
/* The mocap index (of its model) of world body `body`, -1 for any other body. */
int lucid_world_body_mocap(const lucid_world *w, int body);
/* The model geom (index into lucid_model_geoms) that part `part` of a model's world body is;
 * -1 for a free or static body's part or an unknown body or part. */
int lucid_world_part_geom(const lucid_world *w, int body, int part);

typedef struct lucid_world_stats {
    int candidate_pairs; /* broad-phase body pairs */
    int narrow_tests;    /* shape-pair distance queries */
    int contacts;
    int islands;
    int solver_iterations;  /* summed over islands */
    int converged;          /* every island's answer met tol, on the scaled criterion */
    double residual;        /* largest NCP criterion (abs, in N and m/s^2) over islands */
    double scaled_residual; /* largest model criterion in the island's units (what tol bounds,
                             * see world_island_solve.c: lucid_world_island_scales) */
    /* The energy-jump guard (lucid_world_step, docs/world.md): energy_ratio = T+ / (T + W + E_c),
     * T and T+ the kinetic energy before and after the step, W the positive part of the work of
     * gravity, applied wrenches, actuators and joint springs over it, E_c = sum m (g_n + |g|)
     * slop what the default position correction may give the bodies; energy_jump
     * = 1 when the ratio exceeds LUCID_WORLD_ENERGY_JUMP (a launch). */
    int energy_jump;
    double energy_ratio;
} lucid_world_stats;

/* An order of magnitude: a step whose kinetic energy exceeds this many times what it could
 * have (lucid_world_stats.energy_ratio) reports energy_jump. */
#define LUCID_WORLD_ENERGY_JUMP 10.0
lucid_world_stats lucid_world_last_stats(const lucid_world *w);

/* Which answer of the island solve (world_island_solve.c, docs/world.md "How a step works") an
 * island's applied forces are. */
typedef enum lucid_island_answer {
    LUCID_ISLAND_ZERO,  /* lambda = 0: it met tol, or no attempt gave an answer to keep */
    LUCID_ISLAND_WARM,  /* the world's solver from the forces carried from the last step */
    LUCID_ISLAND_COLD,  /* the world's solver from zero */
    LUCID_ISLAND_PGS,   /* the model's PGS continuing the best answer so far */
    LUCID_ISLAND_IP,    /* the model's interior point from its own start */
    LUCID_ISLAND_NEWTON /* the single-level pipeline's Newton on the island's NCP */
} lucid_island_answer;

/* One island of the last step and how its contact problem was solved. */
typedef struct lucid_world_island_info {
    int contacts;                /* its contacts, joint-limit and dry-friction rows included */
    int dim;                     /* rows per contact: 3, 4 (torsion) or 6 (rolling) */
    int body_space;              /* solved in body space (world_sparse.c), else on a dense G */
    lucid_contact_solver solver; /* the island's solver (its warm and cold attempts) */
    lucid_island_answer answer;  /* the attempt whose answer the step applied */
    unsigned attempts;           /* the attempts made: bit (1 << a) for each answer a */
    int iterations;              /* of all its attempts */
    int converged;               /* the applied answer met tol */
    double residual; /* the applied answer's model criterion in the island's units (what tol
                      * bounds; lucid_world_stats.scaled_residual is the largest) */
} lucid_world_island_info;

/* The islands of the last step, in the order they were solved (*count of them; NULL when none,
 * and after a failed step those solved before it failed). Valid until the next step. */
const lucid_world_island_info *lucid_world_islands(const lucid_world *w, int *count);

/* A copy of w: same options, bodies, static bodies, state and pending applied wrenches, with
 * empty buffers and no warm-start memory (as after lucid_world_set_state). Shapes are copied;
 * a convex mesh they point to is shared (meshes are immutable) and must outlive both worlds.
 * The copy is independent: stepping one never touches the other, so copies may be stepped
 * in different threads at once. LUCID_ERR_NO_MEMORY, LUCID_ERR_ARGUMENT (NULL). */
lucid_status lucid_world_clone(const lucid_world *w, lucid_world **out);

/* Controls: one vector holding every input a step consumes. Layout (docs/world.md): every
 * model's actuator inputs (in model order), then for every free body in id order its applied
 * wrench, 6 numbers: force (N, at the centre of mass) then torque (N m), world frame. Static
 * bodies have none. The wrench entries are the accumulators of lucid_world_apply_force:
 * get reads what the next step will apply, set replaces it; a step clears them. */
int lucid_world_controls_size(const lucid_world *w);
void lucid_world_get_controls(const lucid_world *w, double *u);
/* LUCID_ERR_NONFINITE (nothing changed) when an entry is not finite. */
lucid_status lucid_world_set_controls(lucid_world *w, const double *u);

#endif
