/* The configuration space of a model (Pinocchio's conventions, quaternions (w, x, y, z)):
 * q has nq entries, velocities and tangent vectors nv. Per joint:
 *   revolute, prismatic  q ⊕ v = q + v                      difference = q1 - q0
 *   spherical            q ⊕ v = q * exp(v)  (v: angular velocity in the child frame)
 *   free                 (t, R) ⊕ (l, w) = (t + R l, R exp(w))  (v = (l, w): body twist)
 *   planar               q ⊕ v = (x, y, th) * exp_SE2(v)  (v = (vx, vy, w), child frame)
 * and difference(q0, q1) is the v with q0 ⊕ v = q1 (rotation angles in [0, pi]). A free joint
 * moves its translation and rotation apart, MuJoCo's mj_integratePos: R l is the velocity in
 * the parent's axes that MuJoCo integrates. Quaternions and planar (cos, sin) pairs may have any
 * non-zero norm on input; they are normalised where used, and integrate returns unit ones. No
 * function here allocates. */
#ifndef LUCID_MODEL_CONFIGURATION_H
#define LUCID_MODEL_CONFIGURATION_H

#include "runtime/math/rng.h"
#include "runtime/model/model.h"

/* The neutral configuration: revolute/prismatic q = ref (MuJoCo's qpos0), identity
 * quaternions, zero translations, planar (0, 0, 1, 0). */
void lucid_model_neutral(const lucid_model *m, double *q);

/* out = q ⊕ dt * v (out may alias q). */
void lucid_model_integrate(const lucid_model *m, const double *q, const double *v, double dt,
                           double *out);

/* v = q1 ⊖ q0 (nv entries), so that integrate(q0, v, 1) = q1. */
void lucid_model_difference(const lucid_model *m, const double *q0, const double *q1, double *v);

/* The Jacobians of q1 = q ⊕ dt v (lucid_model_integrate), as tangents at q1 (q1 ⊕ d, d read
 * back by lucid_model_difference from q1): Jq = dq1/dq for q moved as q ⊕ delta, Jv = dq1/dv;
 * both nv x nv, column-major, caller-owned (either may be NULL), block-diagonal per joint:
 *   revolute, prismatic  Jq = 1,                 Jv = dt
 *   spherical            Jq = exp(dt w)^T,       Jv = dt Jr_SO3(dt w)
 *   free                 Jq = [E^T, -E^T hat(dt l); 0, E^T],  Jv = dt [E^T, 0; 0, Jr_SO3(dt w)]
 *                        with E = exp(dt w)
 *   planar               Jq = Ad(exp(-dt v)),    Jv = dt Jr_SE2(dt v). */
void lucid_model_integrate_jacobians(const lucid_model *m, const double *q, const double *v,
                                     double dt, double *Jq, double *Jv);
/* The same into the nv x nv blocks at Jq, Jv of larger column-major matrices with leading
 * dimension ld >= nv (only those blocks are written). */
void lucid_model_integrate_jacobians_ld(const lucid_model *m, const double *q, const double *v,
                                        double dt, double *Jq, double *Jv, size_t ld);

/* A free joint's body-frame linear velocity l turns with its frame (d(R^T u)/dt = -w x l
 * for a fixed parent-frame u = R l): a step that treats the velocity as MuJoCo does (u and w
 * integrated, u constant under the rotation) adds back dt (w x l) to the explicit
 * acceleration's step, v_free_l += dt w x l over v's free joints (lucid_model_free_turn_rate),
 * and after q+ = q ⊕ dt v+ reads u in the new frame, l+ <- exp(-dt w+) l+
 * (lucid_model_free_transport). Other joints are left as they are. */
void lucid_model_free_turn_rate(const lucid_model *m, const double *v, double dt, double *out);
void lucid_model_free_transport(const lucid_model *m, double dt, double *v);
/* Their Jacobians, added into nv x nv column-major blocks of leading dimension ld:
 * d(dt w x l)/dv into D (lucid_model_free_turn_rate's), and the transport's dv+/dv at v as
 * T - I into T (so a caller holding the identity gets the whole Jacobian). */
void lucid_model_free_turn_rate_jacobian(const lucid_model *m, const double *v, double dt,
                                         double *D, size_t ld);
void lucid_model_free_transport_jacobian(const lucid_model *m, const double *v, double dt,
                                         double *T, size_t ld);
/* A random configuration: limited 1-dof coordinates uniform in [lower, upper]; unlimited
 * revolute in [-pi, pi], unlimited prismatic in [-1, 1] (m); spherical and the rotation of
 * free joints uniform on SO(3); free translations uniform in [-1, 1]^3; planar (x, y) in
 * [-1, 1]^2 and angle uniform. Draws from rng in coordinate order. */
void lucid_model_random_configuration(const lucid_model *m, lucid_rng *rng, double *q);

/* Normalises every quaternion and planar (cos, sin) pair of q in place (one of unit norm to
 * rounding, within 8 ulps, is left bit for bit as it is). LUCID_ERR_NONFINITE
 * when q holds NaN/Inf, LUCID_ERR_ARGUMENT when one of them is zero (q is left unchanged). */
lucid_status lucid_model_normalize(const lucid_model *m, double *q);

/* LUCID_OK when q is finite and its quaternions and (cos, sin) pairs are non-zero, their
 * largest component at least DBL_MIN (any norm is accepted: the algorithms normalise them by
 * that component first); else as lucid_model_normalize, and if `joint`
 * is not NULL it receives the offending joint's index. */
lucid_status lucid_model_check_configuration(const lucid_model *m, const double *q, int *joint);

#endif
