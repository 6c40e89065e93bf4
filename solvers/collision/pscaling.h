/* The P-SDF collision query (DCOL's minimal scaling; Silico, Problem 14): the smallest factor
 * alpha by which both shapes, each scaled about its centre, share a point p:
 *   minimise alpha over (p, alpha, eps)  s.t.  p in c1 + alpha (S1 - c1),  p in c2 + alpha (S2 -
 * c2) The pseudo signed distance phi = alpha - 1 is < 0 exactly when the shapes overlap, > 0 when
 * they are apart and 0 at contact. Each shape is a cone constraint on (p, alpha) (plus one
 * auxiliary eps for a capsule's core parameter); the program is solved by the primal-dual
 * interior-point method of cone_program.h. The contact normal comes from the duals (Silico
 * Eq. 15/41): n ~ dalpha/dt2 = R2 B2^T z2 (shape 2's rows), unit, from shape 1 to shape 2.
 * Derivatives w.r.t. the poses come from the implicit function theorem on the KKT system.
 *
 * Shapes and their centres (docs/single_level.md):
 *   sphere, ellipsoid, box, capsule, cylinder, cone: the frame origin (the cone's origin is the
 *     midpoint of its axis, inside it);
 *   convex mesh: its faces as halfspaces n_f.x <= d_f, scaled about the mean of its vertices;
 *   halfspace: not scaled (it has no centre); with a halfspace, alpha = 0 (phi = -1) once the
 *     other shape's centre is inside it, answered in closed form.
 * Everything runs on the caller's stack: no heap allocation. */
#ifndef LUCID_PSCALING_H
#define LUCID_PSCALING_H

#include "runtime/core/option_table.h"
#include "runtime/shapes/shape.h"

typedef struct lucid_pscaling_options {
    double tol;      /* KKT residual of the (dimensionless) program, default 1e-11 */
    int max_iter;    /* interior-point iterations, default 60 */
    int derivatives; /* fill lucid_pscaling_result.d (12 back-substitutions), default 0 */
} lucid_pscaling_options;

void lucid_pscaling_options_default(lucid_pscaling_options *opt);

/* The options described (option_table.h): lucid_pscaling's check and lucid.pscaling's reader. */
extern const lucid_option lucid_pscaling_option_table[];

/* Derivatives w.r.t. the local twists (v, w) of T1 and T2 (T exp(d), linear first, as in
 * se3.h). 3 x 6 blocks are column-major: (i, j) at [i + 3 j]. */
typedef struct lucid_pscaling_derivatives {
    double alpha_T1[6], alpha_T2[6];
    double point_T1[18], point_T2[18];
    double normal_T1[18], normal_T2[18];
} lucid_pscaling_derivatives;

typedef struct lucid_pscaling_result {
    double alpha, phi; /* phi = alpha - 1 */
    lucid_vec3 point;  /* p: in both scaled shapes (on both boundaries when they touch) */
    lucid_vec3 normal; /* unit, from shape 1 to shape 2, from the duals */
    int iterations;
    int converged;
    double residual; /* KKT residual of the dimensionless program (lengths / scale) */
    double scale;    /* its length unit: max(larger bounding radius, separation of the centres) */
    int closed_form; /* 1: halfspace with the centre inside (alpha = 0, no solve) */
    lucid_pscaling_derivatives d; /* when options.derivatives */
} lucid_pscaling_result;

/* Errors: LUCID_ERR_ARGUMENT (NULL pointers, two halfspaces, an option outside
 * lucid_pscaling_option_table, a mesh with more faces than the program holds, a translation beyond
 * LUCID_GEOMETRY_MAX), LUCID_ERR_NONFINITE (NaN/Inf in a pose), LUCID_ERR_NO_CONVERGENCE (iteration
 * cap; res holds the last iterate), LUCID_ERR_SINGULAR (the solver's linear system broke down, or,
 * with derivatives, the solution is not unique, e.g. a face resting on a face, or the centres
 * coincide, alpha ~ 0: alpha, p and n are then filled, the derivatives zero). */
lucid_status lucid_pscaling(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                            const lucid_se3 *T2, const lucid_pscaling_options *opt,
                            lucid_pscaling_result *res);

#endif
