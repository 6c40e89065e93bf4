/* Contact-geometry derivatives (issue 11, item 2): how one shape contact of the world - its
 * point (midway between the witness points), unit normal n (from shape 1 into shape 2) and
 * separation - moves to first order with the local twists xi1, xi2 of its two shapes' poses,
 * T1 exp(xi1) and T2 exp(xi2) (linear part first, as lucid_distance_derivatives), so that the
 * step derivatives carry the nominal contacts to a perturbed configuration instead of running
 * collision detection there (runtime/world/step_derivatives.c, docs/step_derivatives.md).
 *
 *   separation  exact for every pair (envelope theorem): dphi = n . (V2(p2) - V1(p1)), V_i the
 *               rigid velocity of body i at its witness p_i = point -+ phi/2 n;
 *   halfspace   n is rigid with the halfspace; the other shape's witness q is its support point
 *   pairs       in the direction of the halfspace, dq = V(q) + R K R^T d(dir) - R K (w x l)
 *               with K the support Hessian at the local direction l: the exact one
 *               (sphere, ellipsoid, capsule caps, cylinder rims: lucid_support_hessian_analytic),
 *               else 0 for polytope vertices (box, convex mesh) and the swept radius
 *               r (I - l l^T) for a capsule's tied support; a patch's points (a face, a capsule
 *               or a cylinder lying flat, a cylinder's cap or a cone's base standing) always
 *               take these rules: its points are vertices rigid with their faces (a cap's
 *               inscribed polygon's too), a lying cylinder's the side segment's ends, which
 *               slide round the rims (K = r (P - m m^T) / |P l|, P the projector off the axis,
 *               m = P l / |P l|), a tilted cylinder's rim points of plane_vertices.h at their fixed
 *               angle a from m likewise, K = r Rz(a) (P - m m^T) / |P l|, the separation
 *               gaining n . (dq - V(q)) off the support (a != 0); the point is q -+ phi/2 n;
 *   flat faces  a box's or convex mesh's face, a cylinder's cap or a cone's base holding one
 *               witness strictly inside it, or containing the other shape's parallel face
 *               whole (its vertices, or a disc with its radius), is that halfspace to first
 *               order;
 *   cores       sphere centres, capsule segments, cylinder axes (the witness on the side,
 *               off the rims), box and convex-mesh edges and vertices holding the witnesses
 *               at a radius: a closest core point inside a segment slides on it (w = c2 - c1
 *               stays perpendicular to the sliding axes), n = +-w / |w|, p_i = c_i -+ r_i n;
 *   other pairs dp1, dp2, dn of lucid_distance_derivatives with LUCID_DERIV_ANALYTIC (both
 *               shapes with exact curvature), T1's by invariance (lucid_ad_distance_t1_jacobian);
 *   patches     (several contacts of one shape pair, not on a halfspace or face) two
 *               capsules' points each by the cores rule with its own normal (two ends too);
 *               others the normal from the pair's derivative, each witness rigid with its body.
 * A single witness without exact curvature (a polytope's vertex) takes
 * the estimator when one is given (the table of lucid.distance_derivatives: the caller asks
 * for smoothed derivatives), the result flagged `estimated`; without one the
 * vertex rule above where it applies. A first-order smoothed method gives K on halfspace
 * pairs (Gaussian smoothing of the support at the unit direction l, noise an angle; Gumbel on
 * convex meshes at l, temperature in m), every other method the pair's
 * lucid_distance_derivatives. Without an estimator such a contact is LUCID_ERR_DEGENERATE
 * (the caller runs collision detection instead). A cone's apex is a vertex (rigid), its base
 * rim the rim rule above. Still without an exact rule: a polytope's edge
 * or vertex or a cylinder's side against an ellipsoid or a cylinder's rim, two parallel faces
 * neither containing the other, a patch's points clipped on an edge. */
#ifndef LUCID_CONTACT_GEOMETRY_DERIVATIVES_H
#define LUCID_CONTACT_GEOMETRY_DERIVATIVES_H

#include "autodiff/collision_derivatives.h"

typedef struct lucid_contact_geometry {
    lucid_vec3 point;  /* world, midway between the witness points */
    lucid_vec3 normal; /* unit, from shape 1 into shape 2 */
    double separation; /* m, < 0 penetrating */
} lucid_contact_geometry;

/* 3 x 12 matrices are column-major ([i + 3 j]); columns 0-5: xi1, 6-11: xi2. */
typedef struct lucid_contact_geometry_derivative {
    double dpoint[36], dnormal[36], dseparation[12];
    int estimated; /* point and normal came from the estimator */
} lucid_contact_geometry_derivative;

/* d for the contact g of shapes s1 at T1 and s2 at T2 (the posed shapes the contact was
 * generated from); patch: the pair produced several contacts. estimator (may be NULL) and ws
 * (Gumbel only) as lucid_distance_derivatives. Errors: LUCID_ERR_DEGENERATE (no exact rule and
 * no estimator, or the estimator's own), LUCID_ERR_ARGUMENT for two halfspaces or NULL
 * pointers, and the errors of lucid_distance_derivatives. */
lucid_status lucid_contact_geometry_derivatives(const lucid_shape *s1, const lucid_se3 *T1,
                                                const lucid_shape *s2, const lucid_se3 *T2,
                                                const lucid_contact_geometry *g, int patch,
                                                const lucid_derivative_options *estimator,
                                                lucid_derivative_workspace *ws,
                                                lucid_contact_geometry_derivative *d);

/* The rigid carriage: the separation exact (envelope theorem), the normal rigid with shape
 * normal_shape (1 or 2) and each witness with its shape. Not the geometry's derivative in
 * general; the step derivatives use it for a contact without an exact rule that carries no
 * force and is separated, whose point and normal do not enter the step to first order (its
 * force stays 0: it is breaking) - only its separation, which decides whether it stays a
 * contact. */
void lucid_contact_geometry_rigid(const lucid_se3 *T1, const lucid_se3 *T2,
                                  const lucid_contact_geometry *g, int normal_shape,
                                  lucid_contact_geometry_derivative *d);

/* The local twist from T0 to T, log(T0^-1 T) (linear part first) to first order:
 * (R0^T (t - t0), vee of the skew part of R0^T R). It differs from the logarithm in second
 * order only, which the step derivatives' central differences cancel, and costs no
 * trigonometry. */
void lucid_contact_geometry_twist(const lucid_se3 *T0, const lucid_se3 *T, double xi[6]);
/* A part's twist from its body's: the part at P in the body frame moves by
 * P^-1 exp(xi_body) P = exp(Ad_{P^-1} xi_body). */
void lucid_contact_geometry_twist_part(const lucid_se3 *P, const double xi_body[6], double xi[6]);

/* g = g0 + d [xi1; xi2] to first order (the normal renormalised). */
void lucid_contact_geometry_predict(const lucid_contact_geometry *g0,
                                    const lucid_contact_geometry_derivative *d, const double xi1[6],
                                    const double xi2[6], lucid_contact_geometry *g);

#endif
