/* Support-function Hessians in the shape's local frame, one estimator per source file:
 * exact at a unit direction (collision_derivatives_analytic.c, swept radius r included as
 * r (I - l l^T)), Gaussian smoothing of the support argument (Eq. 26,
 * collision_derivatives_gaussian.c) and the Gumbel soft-max over mesh neighbourhoods
 * (Eq. 27-28, collision_derivatives_gumbel.c). The smoothed ones are evaluated at the
 * paper's argument, the scaled direction a = |d| l (see collision_derivatives_implicit.h). */
#ifndef LUCID_COLLISION_DERIVATIVES_HESSIANS_H
#define LUCID_COLLISION_DERIVATIVES_HESSIANS_H

#include "autodiff/collision_derivatives.h"
#include "runtime/math/rng.h"

/* Exact Hessian at unit l. LUCID_ERR_ARGUMENT for shapes without one (box, cone, convex,
 * halfspace), LUCID_ERR_DEGENERATE where the support is not smooth at l (capsule or
 * cylinder side with l almost perpendicular to the axis, cylinder cap). */
lucid_status lucid_support_hessian_analytic(const lucid_shape *s, lucid_vec3 l, lucid_mat3 *K);

/* (1/M) sum_j (S(a + eps z_j) - S(a)) z_j^T / eps with z_j ~ N(0, I3) drawn from rng: the
 * Monte-Carlo form of Eq. 26 at the argument a (any vector, zero included), with S(a) as a
 * control variate (E z = 0 keeps the mean; it removes the O(|S| / eps) variance).
 * l is the unit direction of a (for the hill-climbing start on meshes). */
lucid_mat3 lucid_support_hessian_gaussian(const lucid_shape *s, lucid_vec3 a, lucid_vec3 l,
                                          int samples, double noise, lucid_rng *rng);

struct lucid_derivative_workspace;
/* V (diag(w) - w w^T) V^T / eps with w = softmax(V^T (scale l) / eps) over the vertices
 * within `levels` adjacency levels of the support vertex in the unit direction l (the
 * w-weighted vertex covariance over eps), i.e. Eq. 28 at the argument scale * l (scale >= 0).
 * s must be a convex mesh (no swept radius). LUCID_ERR_NO_MEMORY if ws cannot grow. */
lucid_status lucid_support_hessian_gumbel(const lucid_shape *s, lucid_vec3 l, double scale,
                                          int levels, double temperature,
                                          struct lucid_derivative_workspace *ws, lucid_mat3 *K);

#endif
