/* The Ferrari-Canny grasp quality epsilon (the L1 metric, "Q1"): the radius of the largest
 * ball around the origin inside the grasp wrench space, the convex hull of the contact wrenches
 * (C. Ferrari, J. Canny, "Planning optimal grasps", ICRA 1992). Computed exactly, up to
 * floating point, as the smallest distance from the origin to a facet of the 6-D hull given by
 * libqhull_r.
 *
 * Contact model: point contacts with Coulomb friction mu, each cone linearised by m edges
 *   f_ij = n_i + mu (cos(2 pi j / m) t1_i + sin(2 pi j / m) t2_i),   j = 0 .. m-1,
 * (unit normal force per contact: the L1 metric), n_i the unit normal pointing INTO the object
 * (the direction of the force the finger applies), (t1_i, t2_i) an orthonormal tangent basis
 * of n_i (Duff et al. 2017, so the edges depend on n_i only). Wrench of an edge:
 *   w_ij = (f_ij, s (p_i - c) x f_ij)
 * with c the torque reference (the object's centre of mass) and s the torque scale (1/m), by
 * default 1 / max_i |p_i - c| so that epsilon does not depend on the object's size. */
#ifndef LUCID_GRASP_EPSILON_H
#define LUCID_GRASP_EPSILON_H

#include <stddef.h>

#include "runtime/core/status.h"

#define LUCID_GRASP_MIN_EDGES 3
#define LUCID_GRASP_MAX_EDGES 64

typedef struct lucid_grasp_options {
    int edges;           /* m, edges of each linearised friction cone, in [3, 64]; default 8 */
    double center[3];    /* c, torque reference point (object frame); default the origin */
    double torque_scale; /* s > 0; 0 (default) means 1 / max_i |p_i - c| */
} lucid_grasp_options;

typedef struct lucid_grasp_result {
    double epsilon;      /* max(0, margin): 0 when the grasp is not in force closure */
    double margin;       /* min over hull facets of the origin's distance inside the facet's
                          * plane: epsilon when > 0; <= 0 when the origin is outside or on the
                          * boundary; 0 for a degenerate wrench set */
    int force_closure;   /* epsilon > 0 */
    int degenerate;      /* the wrenches span less than 6 dimensions (no interior) */
    int facets;          /* hull facets (0 when degenerate) */
    double torque_scale; /* the s used */
} lucid_grasp_result;

void lucid_grasp_options_default(lucid_grasp_options *opt);

/* The k m wrenches w_ij of k contacts (points, normals: 3 k doubles each, column j of the 6 x
 * (k m) column-major output is contact j / m, edge j % m). *scale receives the s used.
 * LUCID_ERR_ARGUMENT for k = 0, mu < 0, a zero normal or bad options; LUCID_ERR_NONFINITE for
 * a non-finite input. Allocates nothing. */
lucid_status lucid_grasp_wrenches(const double *points, const double *normals, size_t k, double mu,
                                  const lucid_grasp_options *opt, double *wrenches, double *scale);

/* Epsilon of the hull of n 6-D points (6 x n column-major). Fewer than 7 points or points on a
 * lower-dimensional affine subspace give a degenerate result (epsilon 0), not an error.
 * Allocates (qhull's working memory). err receives qhull's message on failure. */
lucid_status lucid_grasp_hull_epsilon(const double *wrenches, size_t n, lucid_grasp_result *out,
                                      char *err, size_t err_size);

/* Wrenches then epsilon: the quality of a grasp with k contacts. */
lucid_status lucid_grasp_epsilon(const double *points, const double *normals, size_t k, double mu,
                                 const lucid_grasp_options *opt, lucid_grasp_result *out, char *err,
                                 size_t err_size);

#endif
