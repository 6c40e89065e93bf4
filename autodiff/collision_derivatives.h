/* Derivatives of the signed distance, the world witness points and the normal between two
 * posed convex shapes w.r.t. a local twist xi of the second pose, T2 * exp(xi) (linear part
 * first), for separated and penetrating pairs alike: the C API behind
 * lucid.distance_derivatives. Five estimators (Montaut et al., "Differentiable Collision
 * Detection: a Randomized Smoothing Approach"):
 *
 *   FINITE_DIFFERENCES    central differences of warm-started distance queries, step h;
 *   ZEROTH_ORDER          Gaussian smoothing of the pose (Eq. 6), M samples, noise eps;
 *   FIRST_ORDER_GAUSSIAN  implicit differentiation of the optimality conditions (Eq. 12-19)
 *                         with support Hessians from Gaussian smoothing of the support
 *                         argument (Eq. 26), M samples, noise eps;
 *   FIRST_ORDER_GUMBEL    the same implicit solve with the closed-form soft-max Hessian over
 *                         the mesh vertices within n_l adjacency levels of the support vertex
 *                         (Eq. 27-28), temperature eps (both shapes must be convex meshes);
 *   ANALYTIC              the same implicit solve with exact support Hessians (sphere,
 *                         ellipsoid, capsule caps, cylinder rims, plus the swept radius).
 *
 * As in the paper, the smoothed first-order estimators evaluate the support Hessians at the
 * support arguments +-x* (x* = p1 - p2, |x*| = |d|; see collision_derivatives_implicit.h):
 * eps is in the units of x* (the noise on x* for Gaussian, in m; the temperature of the
 * scores <v, x*> for Gumbel, in m^2), so relative to the direction the smoothing is
 * eps / |d| and grows as the shapes approach contact.
 * They give finite dp1, dp2, dd at contact, but dn is unbounded there: d = 0 exactly is
 * LUCID_ERR_DEGENERATE for them.
 *
 * Every random draw comes from lucid_rng seeded with `seed`: the same inputs give the same
 * bits. Nothing is allocated per query beyond the caller's grow-only workspace. */
#ifndef LUCID_COLLISION_DERIVATIVES_H
#define LUCID_COLLISION_DERIVATIVES_H

#include <stdint.h>

#include "solvers/collision/collision.h"

typedef enum lucid_derivative_method {
    LUCID_DERIV_FINITE_DIFFERENCES,
    LUCID_DERIV_ZEROTH_ORDER,
    LUCID_DERIV_FIRST_ORDER_GAUSSIAN,
    LUCID_DERIV_FIRST_ORDER_GUMBEL,
    LUCID_DERIV_ANALYTIC
} lucid_derivative_method;

typedef struct lucid_derivative_options {
    lucid_derivative_method method;
    double step;   /* finite differences: central step on each twist coordinate; 0 (default):
                      automatic, lucid_derivative_auto_step */
    int samples;   /* M (zeroth order, first-order Gaussian), default 20 */
    double noise;  /* eps, default 1e-3: zeroth order: noise std on the twist; first-order
                      Gaussian: noise std on x* (m); Gumbel: temperature of <v, x*> (m^2) */
    int levels;    /* n_l: adjacency levels around the support vertex (Gumbel), default 1 */
    uint64_t seed; /* random stream, default 0 */
    const lucid_gjk_options *gjk; /* distance-query options (NULL: the derivative-grade
                                     lucid_derivative_query_options_default) */
} lucid_derivative_options;

void lucid_derivative_options_default(lucid_derivative_options *opt);

/* The options described (option_table.h; seed and gjk are not in it): the check of
 * lucid_distance_derivatives and of lucid_world_step_derivatives' collision, and the Lua
 * readers of lucid.distance_derivatives, lucid.distance's derivatives and w:step_derivatives'
 * collision. Every entry is checked, whatever the method. */
extern const lucid_option lucid_derivative_option_table[];

/* LUCID_OK when every option of the table is valid, else LUCID_ERR_ARGUMENT with *why (if not
 * NULL) the first bad option's rule. */
lucid_status lucid_derivative_options_check(const lucid_derivative_options *opt, const char **why);

/* Distance-query options for derivatives: lucid's defaults with the tolerances tightened to
 * rounding level (GJK: relative gap tolerance 1e-30, i.e. the round-off floor of the gap,
 * max_iter 512; EPA: epa_tol 1e-15 m, up to LUCID_EPA_MAX_ITER). Derivatives divide query errors
 * by the step (finite differences) or evaluate curvature at the witness points, so the
 * query defaults (gap 1e-8 m^2: witness points to ~1e-4 m on curved shapes) are too loose:
 * with them and a 1e-6 step finite differences were wrong by 100% on ellipsoids. */
void lucid_derivative_query_options_default(lucid_gjk_options *opt);

/* The automatic finite-difference step h = cbrt(delta), delta (m) the accuracy of the
 * witness points that the query options guarantee: the largest of sqrt(tol) (absolute gap
 * tolerance; sqrt(max(tol, 8 eps)) |d| relative), sqrt(epa_tol L) when penetrating, and the
 * rounding floor sqrt(eps) L, with L the larger distance of a witness point from its shape's
 * origin (at least |d|). Central differences err by ~delta / h + h^2 (curvature terms), so
 * h ~ cbrt(delta) balances the two for shapes of centimetres to metres: h ~ 1.4e-3 with
 * lucid_derivative_query_options_default on 10 cm shapes (relative errors ~1e-5 on
 * ellipsoids), h ~ 0.05 with lucid.distance's default tolerance. */
double lucid_derivative_auto_step(const lucid_gjk_options *gjk, const lucid_se3 *T1,
                                  const lucid_se3 *T2, const lucid_distance_result *query);

/* "finite_differences", "zeroth_order", "first_order_gaussian", "first_order_gumbel",
 * "analytic"; *method is written only when the name is known (returns 1, else 0). */
int lucid_derivative_method_from_name(const char *name, lucid_derivative_method *method);
const char *lucid_derivative_method_name(lucid_derivative_method method);

/* 3x6 matrices are double[18], column-major: entry (i, j) at [i + 3 j]. */
typedef struct lucid_distance_derivatives_result {
    lucid_distance_result query; /* the nominal distance query (distance, p1, p2, normal) */
    double dp1[18], dp2[18], dnormal[18];
    double ddistance[6];
} lucid_distance_derivatives_result;

/* Caller-owned scratch memory for the mesh neighbourhoods of the Gumbel estimator; it only
 * grows (to the largest mesh seen). Create once, reuse for any number of queries. */
typedef struct lucid_derivative_workspace lucid_derivative_workspace;
lucid_status lucid_derivative_workspace_create(lucid_derivative_workspace **out);
void lucid_derivative_workspace_destroy(lucid_derivative_workspace *ws);

/* Derivatives by opt->method (opt may be NULL: defaults, i.e. finite differences with the
 * automatic step and derivative-grade queries). ws may be
 * NULL except for FIRST_ORDER_GUMBEL. Errors:
 *   LUCID_ERR_ARGUMENT   NULL pointers, unknown method, step not finite and >= 0, noise
 *                        not finite and > 0,
 *                        samples < 1, levels < 0, a halfspace with a first-order method,
 *                        Gumbel on a shape that is not a convex mesh, Gumbel without ws,
 *                        analytic on a shape without exact curvature (box, cone, mesh, ...);
 *   LUCID_ERR_DEGENERATE analytic where the support is not smooth at the witness point
 *                        (a capsule's or cylinder's flat side, a cylinder cap); a smoothed
 *                        first-order method at d = 0 exactly;
 *   LUCID_ERR_SINGULAR   the implicit system is singular (e.g. two flat contacts);
 *   LUCID_ERR_NO_MEMORY  the workspace could not grow;
 *   and every error of lucid_distance. */
lucid_status lucid_distance_derivatives(const lucid_shape *s1, const lucid_se3 *T1,
                                        const lucid_shape *s2, const lucid_se3 *T2,
                                        const lucid_derivative_options *opt,
                                        lucid_derivative_workspace *ws,
                                        lucid_distance_derivatives_result *res);

/* The same derivatives for a distance query the caller has already run on these shapes and
 * poses (e.g. by lucid_distance with its own options): *query is copied to res->query and
 * only the derivative work is done. Same errors, except that no nominal query runs. */
lucid_status lucid_distance_derivatives_from_query(const lucid_shape *s1, const lucid_se3 *T1,
                                                   const lucid_shape *s2, const lucid_se3 *T2,
                                                   const lucid_derivative_options *opt,
                                                   lucid_derivative_workspace *ws,
                                                   const lucid_distance_result *query,
                                                   lucid_distance_derivatives_result *res);

#endif
