/* The implicit-function solve shared by the first-order estimators (paper Eq. 12-19, 29).
 *
 * At the solution the witness points are supports at unit directions: p1 = S1(n),
 * p2 = S2(-n), and p2 - p1 = d n (separated d > 0 and penetrating d < 0 alike). Moving T2 by
 * a local twist xi and differentiating, with K1, K2 the world support Hessians at n and -n
 * and G = dS2/dxi at a fixed direction (3x6):
 *     (K1 + K2 + d I) dn + n dd = G,   n . dn = 0,
 * hence dd = n . G and (K1 + K2 + d I + n n^T) dn = (I - n n^T) G, then dp1 = K1 dn and
 * dp2 = G - K2 dn. This is the paper's (I + H1 + R H2 R^T) dx = -df/dq (Eq. 18-19) for
 * x = p1 - p2 = -d n, multiplied by |d| (H at x is H at the unit direction divided by |x|),
 * so it stays well posed at contact (d = 0) and needs no case split for penetration.
 * K1, K2 are first symmetrised and projected onto the tangent plane of n: exact support
 * Hessians are symmetric and annihilate their direction (the support is 0-homogeneous), so
 * projecting an estimate onto that subspace can only bring it closer to the exact one. */
#ifndef LUCID_COLLISION_DERIVATIVES_IMPLICIT_H
#define LUCID_COLLISION_DERIVATIVES_IMPLICIT_H

#include "autodiff/collision_derivatives.h"

/* K1, K2: world support Hessians of shape 1 at n and of shape 2 at -n (unit directions).
 * Fills res->dp1, dp2, dnormal, ddistance from res->query and T2. LUCID_ERR_SINGULAR when
 * the tangent system is singular, LUCID_ERR_NONFINITE for a non-finite Hessian. */
lucid_status lucid_derivatives_implicit_solve(const lucid_se3 *T2, lucid_mat3 K1, lucid_mat3 K2,
                                              lucid_distance_derivatives_result *res);

/* R K R^T: a local-frame Hessian expressed in the world frame. */
lucid_mat3 lucid_derivatives_hessian_to_world(const lucid_mat3 *R, const lucid_mat3 *K);

#endif
