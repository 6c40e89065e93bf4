/* Signed distance and Boolean collision between two posed convex shapes: the C API behind
 * lucid.distance and lucid.collide (and lucid.distance_batch, which loops over poses).
 *
 * GJK (or its Polyak / Nesterov acceleration) runs on the shape cores; sphere and capsule
 * radii are added afterwards. When the cores overlap, EPA gives the penetration depth.
 * A halfspace is answered in closed form from the other shape's support. Everything runs on
 * the caller's stack: no heap allocation. */
#ifndef LUCID_COLLISION_H
#define LUCID_COLLISION_H

#include "solvers/collision/epa.h"
#include "solvers/collision/gjk.h"

typedef struct lucid_distance_result {
    double distance; /* signed: > 0 separated, < 0 penetrating (minus the depth) */
    lucid_vec3 p1,
        p2; /* world witness points on shape 1 and shape 2: p2 - p1 = distance * normal */
    lucid_vec3 normal; /* unit, from shape 1 to shape 2 */
    int iterations;    /* GJK iterations */
    int epa_iterations;
    int converged;         /* GJK (and EPA, when used) met their tolerances */
    int penetrating;       /* the cores overlapped and EPA computed the depth */
    double gap;            /* final GJK duality gap 2 <x, x - s> (0 when the cores overlap) */
    lucid_vec3 separation; /* core separation vector p1c - p2c; LUCID_WARM_PREVIOUS starts here */
    lucid_simplex simplex; /* GJK's final simplex on the cores (world frame) */
    /* Final mesh-vertex hints of shape 1 and shape 2: the vertex index of each shape's last
     * support answer (convex meshes; 0 for other shapes). A later query with
     * LUCID_WARM_PREVIOUS starts its hill climbing there, and the derivative estimators can
     * pass them to lucid_shape_support_core to warm-start their own support searches. */
    int hint1, hint2;
} lucid_distance_result;

/* Signed distance with witness points. opt may be NULL (defaults).
 * Errors: LUCID_ERR_ARGUMENT (NULL pointers, tol <= 0, max_iter < 1, two halfspaces, a
 * translation component beyond LUCID_GEOMETRY_MAX), LUCID_ERR_NONFINITE (a pose holds NaN or
 * Inf). */
lucid_status lucid_distance(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                            const lucid_se3 *T2, const lucid_gjk_options *opt,
                            lucid_distance_result *res);

/* Boolean check with early exit (Alg. 2): *hit = 1 when the shapes intersect (an exact contact
 * may go either way at round-off level).
 * GJK stops at the first plane separating the inflated shapes or once overlap is proven, so
 * res->distance is only a bound: a positive lower bound when separated (from the plane, whose
 * normal is res->normal), an upper bound <= 0 when overlapping. Same errors as lucid_distance. */
lucid_status lucid_collide(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                           const lucid_se3 *T2, const lucid_gjk_options *opt, int *hit,
                           lucid_distance_result *res);

#endif
