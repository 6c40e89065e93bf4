/* The joint-torque regressor: inverse dynamics is linear in the inertial parameters,
 * tau = rnea(q, v, a) = Y(q, v, a) theta (docs/model.md, "Regressors").
 *
 * Parameters theta (ncols entries), in this order:
 *  - 10 per public body b (0 <= b < nbodies, in body order), about the BODY FRAME's origin
 *    and in its axes: pi_b = [m, m c_x, m c_y, m c_z, I_xx, I_xy, I_yy, I_xz, I_yz, I_zz],
 *    m the mass, c the centre of mass, I the rotational inertia about the origin (Pinocchio's
 *    order for its dynamic parameters). Bodies welded to a moving body are merged into it
 *    (their mass is in its pi); bodies welded to the world have no parameters.
 *  - then, each group selected in the options, one per dof (nv, in dof order):
 *    damping (column v_k: tau_k = d_k v_k, the torque a motor supplies against viscous
 *    damping), Coulomb friction (column sign(v_k), 0 at v_k = 0, or tanh(v_k / eps) with the
 *    smooth option), armature (column a_k: the rotor inertia that RNEA adds to tau_k) and
 *    offset (column 1: a constant torque, e.g. a sensor bias).
 * Y is nv x ncols. With theta = lucid_model_regressor_parameters (the model's inertias, its
 * damping and armature, no friction or offset), Y theta = rnea(q, v, a) + damping * v.
 * Without the armature group, Y pi = rnea(q, v, a) - armature * a.
 *
 * Rows are RNEA's: the generalised force of each dof. A free joint's six rows are the wrench
 * (force, then moment) the root's subtree needs about the free joint frame, in its axes: the
 * Newton-Euler equations of the whole floating robot, which no motor supplies (in a log they
 * equal the contact wrenches' effect, zero in flight); they are kept, as in Pinocchio. */
#ifndef LUCID_MODEL_REGRESSOR_H
#define LUCID_MODEL_REGRESSOR_H

#include "runtime/model/dynamics.h"

/* The per-dof column groups (bits of lucid_regressor_options.columns), in theta's order. */
enum {
    LUCID_REGRESSOR_DAMPING = 1u,
    LUCID_REGRESSOR_COULOMB = 2u,
    LUCID_REGRESSOR_ARMATURE = 4u,
    LUCID_REGRESSOR_OFFSET = 8u,
    LUCID_REGRESSOR_ALL = 15u
};

typedef struct lucid_regressor_options {
    unsigned columns; /* LUCID_REGRESSOR_* bits; 0: the inertial parameters only */
    /* 0: Coulomb column sign(v); > 0 (rad/s or m/s): tanh(v / coulomb_smoothing) */
    double coulomb_smoothing;
} lucid_regressor_options;

/* Inertial parameters only, sign(v) for Coulomb friction. */
lucid_regressor_options lucid_regressor_options_default(void);

/* LUCID_OK, or LUCID_ERR_ARGUMENT when columns has unknown bits or coulomb_smoothing is
 * negative or not finite (*why says which). */
lucid_status lucid_regressor_options_check(const lucid_regressor_options *o, const char **why);

/* ncols = 10 nbodies + nv per selected group. */
size_t lucid_regressor_ncols(const lucid_model *m, const lucid_regressor_options *o);

/* theta (ncols): each body's pi as above, then the model's damping, zero Coulomb friction
 * (the model has none), the model's armature, zero offset, for the groups selected. */
void lucid_model_regressor_parameters(const lucid_model *m, const lucid_regressor_options *o,
                                      double *theta);

/* The name of parameter k (< ncols) into buf (snprintf's contract; returns the length it
 * needs): "<body>.m", ".mx", ".my", ".mz", ".Ixx", ".Ixy", ".Iyy", ".Ixz", ".Iyz", ".Izz";
 * "<joint>.damping", ".coulomb", ".armature", ".offset" for a 1-dof joint, and
 * "<joint>.<axis>.damping" (axis vx vy vz wx wy wz of the joint's velocity) for the others. */
int lucid_regressor_parameter_name(const lucid_model *m, const lucid_regressor_options *o, size_t k,
                                   char *buf, size_t len);

/* Y (nv x ncols, column-major, leading dimension ldy >= nv: a stack of states is rows of one
 * larger matrix) at (q, v, a): every entry written. Gravity is the model's. One RNEA forward
 * pass, then each body's 6 x 10 block is projected on the joints from its node to the root:
 * O(sum over bodies of their depth) spatial operations. Allocates nothing (d is the
 * workspace; d->v, d->a, d->f and the placements are overwritten). Inputs are trusted like
 * the dynamics algorithms' (options checked with lucid_regressor_options_check). */
void lucid_model_joint_torque_regressor(const lucid_model *m, lucid_model_data *d,
                                        const lucid_regressor_options *o, const double *q,
                                        const double *v, const double *a, double *Y, size_t ldy);

/* The 6 x 10 body regressor (column-major): the wrench I a + v x* I v of a body with unit
 * parameter j at twist v and spatial acceleration a (linear first, the body's frame). */
void lucid_body_regressor(const double *v, const double *a, double *B);

#endif
