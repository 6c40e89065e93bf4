/* Derivatives of one world step x+ = step(x, u; theta) (docs/step_derivatives.md), in the state's
 * tangent coordinates (lucid_world_state_integrate): A = dx+/dx (2nv x 2nv), B = dx+/du (2nv x nu),
 * P = dx+/dtheta (2nv x np), each column the central difference (tangent of x+ at the nominal x+)
 * along one input.
 *
 * LUCID_STEP_IMPLICIT: the contact solution is differentiated exactly by the implicit function
 * theorem on its active modes (autodiff/contact_derivatives.h), one factorisation per island;
 * the rest of the step - free dynamics (gyroscopic term, the models' M~ with implicit damping
 * and servos), collision geometry (points, frames, separations of the same contacts, patch
 * points included), Jacobians, Baumgarte and restitution references, the integrator on SE(3)
 * and on the joint manifolds - is a smooth map at fixed contact forces, differentiated by
 * central differences of lucid_world_step_with_forces (no contact solve). Per column:
 *   dsigma = d/de [(G + R) lambda + g](lambda fixed),  dlambda = IFT(dsigma, dmu),
 *   dx+ = d/de x+(e, lambda + e dlambda).
 * A column whose perturbed steps change the contact list (a contact appears or vanishes) is
 * computed by LUCID_STEP_FINITE_DIFFERENCES instead and its contacts flagged.
 * LUCID_STEP_FINITE_DIFFERENCES: central differences of whole steps, each warm started from
 * the nominal step's solution and solved to opts.tol.
 *
 * The world is stepped exactly once as lucid_world_step would (same result, same warm-start
 * memory afterwards); the perturbed evaluations run on it in between and are undone. */
#ifndef LUCID_STEP_DERIVATIVES_H
#define LUCID_STEP_DERIVATIVES_H

#include "autodiff/collision_derivatives.h"
#include "autodiff/contact_derivatives.h"
#include "runtime/world/world.h"

typedef enum lucid_step_method {
    LUCID_STEP_IMPLICIT = 0,
    LUCID_STEP_FINITE_DIFFERENCES,
    LUCID_STEP_RELAXED /* as implicit, with dlambda from the interior-point central path at kappa
                        * (solvers/contact/contact_ip.h) of each island's problem: derivatives of
                        * the smoothed contact solution, continuous across mode switches (models
                        * ncp and ccp) */
} lucid_step_method;

typedef enum lucid_step_param_kind {
    LUCID_STEP_PARAM_MASS = 0,    /* a free body's mass, its inertia scaled with it (the same
                                   * shape at another density) */
    LUCID_STEP_PARAM_FRICTION,    /* a body's friction coefficient (a contact takes the smaller) */
    LUCID_STEP_PARAM_RESTITUTION, /* a body's restitution (a contact takes the larger) */
    LUCID_STEP_PARAM_COMPLIANCE,  /* the world's normal compliance R (body unused) */
    LUCID_STEP_PARAM_LINK_MASS,   /* a model link's mass, its inertia scaled with it */
    LUCID_STEP_PARAM_JOINT_DAMPING, /* a model joint's damping (all its dofs) */
    LUCID_STEP_PARAM_SIZE, /* a size of a body's shape (part `part`, size `index`: sphere radius;
                            * box half extents x, y, z; ellipsoid radii; capsule, cylinder, cone
                            * radius then half length): the collision geometry only, the body's
                            * mass and inertia stay as they are */
    LUCID_STEP_PARAM_JOINT_FRICTIONLOSS,  /* a model joint's dry friction (all its dofs) */
    LUCID_STEP_PARAM_JOINT_ARMATURE,      /* a model joint's armature (all its dofs) */
    LUCID_STEP_PARAM_TENDON_FRICTIONLOSS, /* a model tendon's dry friction (index: the tendon) */
    LUCID_STEP_PARAM_GEOM_TORSION,        /* a model geom's torsional friction coefficient (m, MJCF
                                           * friction[1]; index: the geom; every part of a decomposed
                                           * geom): a pair takes the larger at equal priority */
    LUCID_STEP_PARAM_GEOM_ROLLING,        /* a model geom's rolling friction coefficient (m, MJCF
                                           * friction[2]; as GEOM_TORSION) */
    LUCID_STEP_PARAM_TORSION,         /* a free or static body's torsional friction coefficient (m,
                                       * lucid_body_desc torsion, lucid_world_add_static_friction's
                                       * friction[1]; a pair takes the larger) */
    LUCID_STEP_PARAM_ROLLING,         /* a free or static body's rolling friction coefficient (m,
                                       * lucid_body_desc rolling, friction[2]; a pair takes the larger) */
    LUCID_STEP_PARAM_TENDON_DAMPING,  /* a model tendon's damping (index: the tendon) */
    LUCID_STEP_PARAM_TENDON_STIFFNESS /* a model tendon's stiffness (index: the tendon) */
} lucid_step_param_kind;

typedef struct lucid_step_param {
    lucid_step_param_kind kind;
    int body;  /* world body id (static bodies: friction and size only) */
    int model; /* LINK_MASS, JOINT_*, TENDON_*, GEOM_*: the world's model id, and index its
                * model body (link), joint or tendon (lucid_world_set_model_param) or geom */
    int index; /* those, or SIZE: which size, from 0 */
    int part;  /* SIZE: the part of the body, from 0 */
} lucid_step_param;

/* How the position and parameter columns of "implicit" and "relaxed" get the contacts at the
 * perturbed configuration (docs/step_derivatives.md, "Contact geometry"). */
typedef enum lucid_step_geometry {
    LUCID_STEP_GEOMETRY_AUTO = 0, /* CARRIED when every shape contact has a geometry derivative
                                   * (an exact rule, or opts.collision given) and detection with
                                   * the margin widened by 10 step finds no more contacts, else
                                   * COLLIDE */
    LUCID_STEP_GEOMETRY_CARRIED,  /* the nominal contacts carried to first order by their
                                   * geometry derivatives (autodiff/contact_geometry_derivatives.h),
                                   * no collision detection; LUCID_ERR_ARGUMENT where a contact
                                   * has none */
    LUCID_STEP_GEOMETRY_COLLIDE   /* collision detection re-run at each perturbed configuration
                                   * (the contact geometry by finite differences) */
} lucid_step_geometry;

typedef struct lucid_step_derivative_options {
    lucid_step_method method;
    double step;  /* h of the central differences, in (0, 1) (default 1e-6); a parameter within h of
                   * its lower bound 0 takes a forward difference */
    double tol;   /* finite differences: the contact solver's tol in the perturbed steps,
                   * > 0 (default 1e-11) */
    int max_iter; /* finite differences: its iteration limit, >= 1 (default 10000) */
    double threshold; /* implicit: the mode threshold of lucid_contact_derivative_options, in
                       * (0, 1) */
    double kappa;     /* relaxed: the central-path relaxation, > 0 (default 1e-6, in the island's
                       * units: N m/s^2 per contact) */
    const lucid_step_param *params;
    int num_params;
    lucid_step_geometry geometry; /* default AUTO */
    /* the collision-derivative estimator for the contacts without an exact geometry rule
     * (lucid_distance_derivatives' options; NULL, the default: none, see geometry) */
    const lucid_derivative_options *collision;
} lucid_step_derivative_options;

void lucid_step_derivative_default_options(lucid_step_derivative_options *o);

/* The options described (option_table.h; params and collision are not in it): the check of
 * lucid_world_step_derivatives and w:step_derivatives' reader. */
extern const lucid_option lucid_step_derivative_option_table[];

/* LUCID_OK when every option of the table is valid, else LUCID_ERR_ARGUMENT with *why (if not
 * NULL) the first bad option's rule ("step must be in (0, 1)"). */
lucid_status lucid_step_derivative_options_check(const lucid_step_derivative_options *o,
                                                 const char **why);

/* A parameter's value, and setting it (a mass scales the body's inertia with it; friction in
 * [0, 100], restitution in [0, 1], mass and compliance >= 0... as lucid_world_add_body checks;
 * a model's parameters as lucid_world_set_model_param sets them).
 * LUCID_ERR_ARGUMENT (*why set) for an unknown body, a kind the body has not, or a value out of
 * range. */
lucid_status lucid_step_param_get(const lucid_world *w, const lucid_step_param *p, double *value,
                                  const char **why);
lucid_status lucid_step_param_set(lucid_world *w, const lucid_step_param *p, double value,
                                  const char **why);

/* The Jacobians of the state's retraction at x (nx = state size, nt = 2 nv): E (nx x nt) =
 * d(x (+) d)/dd at d = 0 and L (nt x nx) = d(x (-) y)/dy at y = x (the chain rule between a
 * function of the state coordinates and the tangent A, B), column-major, by central
 * differences of lucid_world_state_integrate / _difference (smooth maps; error ~1e-10).
 * LUCID_ERR_ARGUMENT for a zero quaternion. */
lucid_status lucid_world_state_jacobians(const lucid_world *w, const double *x, double *E,
                                         double *L);

typedef struct lucid_step_jacobians {
    int nt, nu, np, contacts; /* 2 nv, controls, parameters, contacts of the step */
    double *A, *B, *P;        /* nt x nt, nt x nu, nt x np, column-major */
    lucid_contact_mode *mode; /* per contact: breaking, sticking or sliding (IFT classification) */
    double *margin;           /* per contact: normalised distance to a mode switch */
    int *switched;            /* per contact: 1 when a perturbed step lost or gained contacts
                               * of its pair (the derivative there is a one-sided mix) */
    int *estimated;           /* per contact: its geometry derivative came from the
                               * estimator opts.collision (carried geometry only); NULL on a
                               * single_level world (single_level_derivatives.h) */
    int carried;              /* the position and parameter columns carried the contacts
                               * (1) or re-ran collision detection (0) */
    int fallback_columns;     /* implicit: columns computed by finite differences */
    int rank_deficient;       /* an island's IFT system was rank deficient (hyperstatic) */
    double free_velocity;     /* the largest of the islands' lucid_contact_derivative_info
                               * free_velocity: O(1) when the free forces move the step */
} lucid_step_jacobians;

/* Steps w once and fills J (its arrays allocated here: lucid_step_jacobians_free). Errors:
 * the step's (lucid_world_last_error says why; then nothing was stepped), LUCID_ERR_ARGUMENT
 * for bad options or parameters (*why names it), LUCID_ERR_NO_MEMORY. */
lucid_status lucid_world_step_derivatives(lucid_world *w, const lucid_step_derivative_options *o,
                                          lucid_step_jacobians *J, const char **why);
void lucid_step_jacobians_free(lucid_step_jacobians *J);

#endif
