/* Support-function Hessians at a unit local direction, one estimator per source file:
 * exact (collision_derivatives_analytic.c), Gaussian smoothing of the direction (Eq. 26,
 * collision_derivatives_gaussian.c) and the Gumbel soft-max over mesh neighbourhoods
 * (Eq. 27-28, collision_derivatives_gumbel.c). All include the swept radius r, whose
 * contribution r (I - l l^T) is exact. The result is in the shape's local frame. */
#ifndef LUCID_COLLISION_DERIVATIVES_HESSIANS_H
#define LUCID_COLLISION_DERIVATIVES_HESSIANS_H

#include "autodiff/collision_derivatives.h"
#include "runtime/math/rng.h"

/* Exact Hessian at unit l. LUCID_ERR_ARGUMENT for shapes without one (box, cone, convex,
 * halfspace), LUCID_ERR_DEGENERATE where the support is not smooth at l (capsule or
 * cylinder side with l almost perpendicular to the axis, cylinder cap). */
lucid_status lucid_support_hessian_analytic(const lucid_shape *s, lucid_vec3 l, lucid_mat3 *K);

/* (1/M) sum_j (S(l + eps z_j) - S(l)) z_j^T / eps with z_j ~ N(0, I3) drawn from rng: the
 * Monte-Carlo form of Eq. 26 with S(l) as control variate (E z = 0: same mean). */
lucid_mat3 lucid_support_hessian_gaussian(const lucid_shape *s, lucid_vec3 l, int samples,
                                          double noise, lucid_rng *rng);

struct lucid_derivative_workspace;
/* V (diag(a) - a a^T) V^T / eps with a = softmax(V^T l / eps) over the vertices within
 * `levels` adjacency levels of the support vertex (the a-weighted vertex covariance / eps).
 * s must be a convex mesh. LUCID_ERR_NO_MEMORY if the workspace cannot grow. */
lucid_status lucid_support_hessian_gumbel(const lucid_shape *s, lucid_vec3 l, int levels,
                                          double temperature, struct lucid_derivative_workspace *ws,
                                          lucid_mat3 *K);

#endif
