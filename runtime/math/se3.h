/* Rigid transforms T = (R, t) acting as x -> R x + t.
 * The inline part (compose, inverse, act) is what hot paths use; exp/log, Jacobians and
 * conversions live in se3.c. Twists are 6-vectors (v, w): linear first. */
#ifndef LUCID_SE3_H
#define LUCID_SE3_H

#include "runtime/math/quat.h"

typedef struct lucid_se3 {
    lucid_mat3 R;
    lucid_vec3 t;
} lucid_se3;

static inline lucid_se3 lucid_se3_identity(void) {
    lucid_se3 T = {lucid_mat3_identity(), {0.0, 0.0, 0.0}};
    return T;
}
static inline lucid_se3 lucid_se3_make(lucid_mat3 R, lucid_vec3 t) {
    lucid_se3 T = {R, t};
    return T;
}
/* T p */
static inline lucid_vec3 lucid_se3_act(const lucid_se3 *T, lucid_vec3 p) {
    return lucid_vec3_add(lucid_mat3_mul_vec(&T->R, p), T->t);
}
/* T^-1 p */
static inline lucid_vec3 lucid_se3_act_inv(const lucid_se3 *T, lucid_vec3 p) {
    return lucid_mat3_tmul_vec(&T->R, lucid_vec3_sub(p, T->t));
}
/* A B */
static inline lucid_se3 lucid_se3_compose(const lucid_se3 *A, const lucid_se3 *B) {
    return lucid_se3_make(lucid_mat3_mul(&A->R, &B->R), lucid_se3_act(A, B->t));
}
/* A^-1 B, without forming A^-1 */
static inline lucid_se3 lucid_se3_between(const lucid_se3 *A, const lucid_se3 *B) {
    return lucid_se3_make(lucid_mat3_tmul(&A->R, &B->R), lucid_se3_act_inv(A, B->t));
}
static inline lucid_se3 lucid_se3_inverse(const lucid_se3 *T) {
    lucid_mat3 Rt = lucid_mat3_transpose(&T->R);
    return lucid_se3_make(Rt, lucid_vec3_neg(lucid_mat3_mul_vec(&Rt, T->t)));
}

/* ---- exp/log, Jacobians, conversions (se3.c) ----------------------------------------------
 * A twist xi is double[6] = (v, w): LINEAR FIRST. exp(xi) = (exp_SO3(w), Jl(w) v), where Jl is
 * the SO(3) left Jacobian (so3.h), i.e. the matrix exponential of [[hat(w), v], [0, 0]].
 * Pose derivatives in lucid are taken w.r.t. a local (right) perturbation T exp(d), hence:
 *   right Jacobian:  exp(xi + d) ~= exp(xi) exp(Jr(xi) d)
 *   left Jacobian:   exp(xi + d) ~= exp(Jl(xi) d) exp(xi),   Jl(xi) = Jr(-xi)
 *   inverses:        log(exp(xi) exp(d)) ~= xi + Jr(xi)^-1 d  (and on the left likewise)
 *   adjoint:         T exp(d) T^-1 = exp(Ad_T d),  Ad_T = [[R, hat(t) R], [0, R]]
 * In block form Jl(xi) = [[Jl(w), Q(v, w)], [0, Jl(w)]] with Barfoot's coupling block Q
 * (State Estimation for Robotics, 2017, eq. 7.86), Jl^-1 = [[Jl^-1, -Jl^-1 Q Jl^-1], [0, Jl^-1]].
 * 6x6 matrices are double[36], column-major: entry (i, j) at J[i + 6 j]. */
#include "runtime/core/status.h"
#include "runtime/math/rng.h"

lucid_se3 lucid_se3_exp(const double xi[6]);
/* The twist of T, with rotation angle |w| in [0, pi] (see lucid_so3_log). */
void lucid_se3_log(const lucid_se3 *T, double xi[6]);

void lucid_se3_jr(const double xi[6], double J[36]);
void lucid_se3_jr_inv(const double xi[6], double J[36]);
void lucid_se3_jl(const double xi[6], double J[36]);
void lucid_se3_jl_inv(const double xi[6], double J[36]);
void lucid_se3_adjoint(const lucid_se3 *T, double Ad[36]);

/* T = (R(q), t) from a quaternion (w, x, y, z) of any non-zero length (it is normalised).
 * LUCID_ERR_NONFINITE for NaN/Inf in q or t, LUCID_ERR_ARGUMENT for q = 0. */
lucid_status lucid_se3_from_quat(lucid_quat q, lucid_vec3 t, lucid_se3 *T);
/* The unit quaternion of T's rotation, with w >= 0. */
lucid_quat lucid_se3_to_quat(const lucid_se3 *T);

/* T = (R', t) where R' is R projected onto SO(3) (lucid_so3_project). R must already be a
 * rotation up to `tol`: ||R^T R - I||_F <= tol and det R > 0, else LUCID_ERR_ARGUMENT;
 * LUCID_ERR_NONFINITE for NaN/Inf in R or t. */
lucid_status lucid_se3_from_rotation(const lucid_mat3 *R, lucid_vec3 t, double tol, lucid_se3 *T);

/* A uniformly distributed rotation (Shoemake's method from three uniforms, see
 * lucid_rng_unit_quaternion), as a unit quaternion with w >= 0. */
lucid_quat lucid_se3_random_quat(lucid_rng *rng);
/* A random pose: uniform rotation, translation uniform in the box [-scale, scale]^3.
 * Draws exactly 6 uniforms (3 for the rotation, then x, y, z); the same seed gives the same
 * pose (the rotation's quaternion is bit-identical on every platform). */
lucid_se3 lucid_se3_random(lucid_rng *rng, double scale);

#endif
