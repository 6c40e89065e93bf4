/* The implicit-function solve shared by the first-order estimators (paper Eq. 12-19, 29).
 *
 * At the solution the witness points are supports: p1 = S1(a1), p2 = S2(a2) with
 * a1 = |d| n = -s x and a2 = -|d| n = s x, where x = p1 - p2 = -d n is the separation vector
 * and s = sign(d) (+1 when separated or touching, -1 when penetrating; Eq. 10). Moving T2 by
 * a local twist xi, with H1, H2 the world support Hessians at a1, a2 and G = dS2/dxi at the
 * fixed argument a2 (3x6), differentiation gives the paper's Eq. 18-19:
 *     (I + s (H1 + H2)) dx = -G,   dp1 = -s H1 dx,   dp2 = s H2 dx + G,
 * and from x = -d n:  dd = -n . dx = n . G  and  dn = -(I - n n^T) dx / d.
 *
 * Smoothed estimators (Gaussian, Gumbel) estimate H at the arguments a1, a2 themselves, as the
 * paper does, so the smoothing scale eps is in the units of x (length) and the smoothing grows
 * relative to the direction as the shapes approach contact; dp1, dp2 and dd stay finite at
 * d = 0, dn does not (it is then LUCID_ERR_DEGENERATE).
 *
 * Exact Hessians are 0-homogeneous, H(a) = K(a / |a|) / |a|, and blow up at contact, so the
 * analytic method passes the Hessians K1, K2 at the unit directions n, -n and the same
 * equations are solved multiplied by |d|: (K1 + K2 + d I + n n^T) dn = (I - n n^T) G,
 * dp1 = K1 dn, dp2 = G - K2 dn, well posed at d = 0.
 *
 * Both forms first symmetrise the Hessians and project them onto the tangent plane of n:
 * exact support Hessians are symmetric and annihilate their argument, so projecting an
 * estimate onto that subspace can only bring it closer to the exact one (and it makes
 * dd = n . G exact for every estimator). */
#ifndef LUCID_COLLISION_DERIVATIVES_IMPLICIT_H
#define LUCID_COLLISION_DERIVATIVES_IMPLICIT_H

#include "autodiff/collision_derivatives.h"

/* K1, K2: world support Hessians of shape 1 at n and of shape 2 at -n (unit directions).
 * Fills res->dp1, dp2, dnormal, ddistance from res->query and T2. LUCID_ERR_SINGULAR when
 * the tangent system is singular, LUCID_ERR_NONFINITE for a non-finite Hessian. */
lucid_status lucid_derivatives_implicit_solve_unit(const lucid_se3 *T2, lucid_mat3 K1,
                                                   lucid_mat3 K2,
                                                   lucid_distance_derivatives_result *res);

/* H1, H2: world support Hessians of shape 1 at |d| n and of shape 2 at -|d| n. Same errors,
 * plus LUCID_ERR_DEGENERATE at d = 0 (the normal's derivative is unbounded there). */
lucid_status lucid_derivatives_implicit_solve_smoothed(const lucid_se3 *T2, lucid_mat3 H1,
                                                       lucid_mat3 H2,
                                                       lucid_distance_derivatives_result *res);

/* R K R^T: a local-frame Hessian expressed in the world frame. */
lucid_mat3 lucid_derivatives_hessian_to_world(const lucid_mat3 *R, const lucid_mat3 *K);

#endif
