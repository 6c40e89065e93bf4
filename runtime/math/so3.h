/* The rotation group SO(3): exponential and logarithm maps, their Jacobians, hat/vee.
 *
 * Conventions (shared with se3.h and every pose derivative in lucid):
 *   exp(w)   = Rodrigues: rotation by |w| about w / |w|.
 *   Jr(w)    right Jacobian:  exp(w + d) ~= exp(w) exp(Jr(w) d)    (perturbation on the right)
 *   Jl(w)    left Jacobian:   exp(w + d) ~= exp(Jl(w) d) exp(w);   Jl(w) = Jr(-w) = R Jr(w)
 *   Jr_inv   log(exp(w) exp(d)) ~= w + Jr(w)^-1 d, and likewise Jl_inv on the left.
 * Closed forms, with t = |w| and W = hat(w):
 *   Jr = I - (1 - cos t)/t^2 W + (t - sin t)/t^3 W^2
 *   Jr^-1 = I + W/2 + (1/t^2 - cot(t/2)/(2t)) W^2
 * Every coefficient switches to its Taylor series for small t, so all functions are accurate
 * to machine precision at tiny angles (including exactly 0). Jr_inv and Jl_inv are singular
 * at |w| = 2 pi (returned entries are then non-finite); log() never returns such a vector.
 * Matrices are lucid_mat3 (column-major). */
#ifndef LUCID_SO3_H
#define LUCID_SO3_H

#include "runtime/core/status.h"
#include "runtime/math/mat3.h"

/* hat(w) x = w x x */
lucid_mat3 lucid_so3_hat(lucid_vec3 w);
/* The inverse of hat on the skew part: vee(W) = ((W32 - W23)/2, (W13 - W31)/2, (W21 - W12)/2). */
lucid_vec3 lucid_so3_vee(const lucid_mat3 *W);

/* Rotation matrix exp(hat(w)) for any finite w (angles beyond pi wrap around as rotations
 * do). Huge w (components above 1e20, up to DBL_MAX) are exact too: the angle |w| is
 * computed without overflow and reduced modulo 2 pi exactly (by sin/cos), keeping the axis,
 * so the result is always a rotation (orthonormal to rounding, det 1), never NaN. jl and jr
 * likewise stay finite. Non-finite w give NaN. */
lucid_mat3 lucid_so3_exp(lucid_vec3 w);

/* Rotation vector of the rotation matrix R: angle |w| in [0, pi]. Robust near 0 (series) and
 * near pi (axis from the symmetric part of R, sign from its skew part). At exactly pi the
 * two answers +-pi a are both valid; one of them is returned. R must be a rotation. */
lucid_vec3 lucid_so3_log(const lucid_mat3 *R);

lucid_mat3 lucid_so3_jr(lucid_vec3 w);
lucid_mat3 lucid_so3_jr_inv(lucid_vec3 w);
lucid_mat3 lucid_so3_jl(lucid_vec3 w);
lucid_mat3 lucid_so3_jl_inv(lucid_vec3 w);

/* Frobenius norm of R^T R - I (0 for an exact rotation). */
double lucid_so3_orthogonality_error(const lucid_mat3 *R);

/* The rotation nearest to M in the Frobenius norm (the orthogonal polar factor, computed by
 * the scaled Newton iteration X <- (g X + X^-T / g) / 2). Returns LUCID_ERR_NONFINITE for
 * NaN/Inf input, LUCID_ERR_SINGULAR when M is singular, LUCID_ERR_ARGUMENT when det M < 0
 * (M is nearer a reflection than a rotation), LUCID_ERR_NO_CONVERGENCE if the iteration
 * stalls. On error *R is left untouched. Intended for validating and cleaning user input. */
lucid_status lucid_so3_project(const lucid_mat3 *M, lucid_mat3 *R);

/* The scalar coefficients of the coupling block Q of the SE(3) Jacobians (used by se3.c),
 * accurate at every angle t = |w| (series below t = 1):
 *   c1 = (t - sin t) / t^3,  c2 = (cos t - 1 + t^2/2) / t^4,  c3 = (2t - 3 sin t + t cos t) / (2
 * t^5). */
void lucid_so3_coupling_coefficients(lucid_vec3 w, double *c1, double *c2, double *c3);

#endif
