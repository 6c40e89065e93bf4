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
 * default 1 / max_i |p_i - c| so that epsilon does not depend on the object's size.
 *
 * Soft-finger contacts (torsion gamma > 0, a length: MuJoCo's condim 4 torsional friction)
 * also resist a torque tau about their normal, with the elliptic cone
 *   f_N >= sqrt(|f_T|^2 / mu^2 + tau^2 / gamma^2).
 * At unit normal force its section is an ellipsoid in (f_T, tau), linearised like the point
 * contact's circle by 3 m + 2 points on it: rings of m edges at latitudes 0 and +-pi/4,
 *   f = n + mu cos(phi) (cos a_j t1 + sin a_j t2),   tau = gamma sin(phi),
 * and the poles (f = n, tau = +-gamma); an edge's wrench adds s tau n to its torque. */
#ifndef LUCID_GRASP_EPSILON_H
#define LUCID_GRASP_EPSILON_H

#include <stddef.h>

#include "runtime/core/option_table.h"
#include "runtime/core/status.h"

#define LUCID_GRASP_MIN_EDGES 3
#define LUCID_GRASP_MAX_EDGES 64

typedef struct lucid_grasp_options {
    int edges;           /* m, edges of each linearised friction cone, in [3, 64]; default 8 */
    double center[3];    /* c, torque reference point (object frame); default the origin */
    double torque_scale; /* s > 0; 0 (default) means 1 / max_i |p_i - c| */
    double torsion;      /* gamma >= 0 (m): soft-finger contacts; 0 (default): point contacts */
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

/* The options described (option_table.h): the check of lucid_grasp_wrenches and
 * lucid_grasp_epsilon and the Lua reader of lucid.grasp.epsilon and lucid.grasp.wrenches. */
extern const lucid_option lucid_grasp_option_table[];

/* Wrenches per contact: m for point contacts, 3 m + 2 for soft fingers (torsion > 0). */
size_t lucid_grasp_contact_wrenches(const lucid_grasp_options *opt);

/* The k e wrenches of k contacts, e = lucid_grasp_contact_wrenches(opt) (points, normals: 3 k
 * doubles each; column j of the 6 x (k e) column-major output is contact j / e, edge j % e:
 * the rings from latitude -pi/4 up, then the poles -gamma, +gamma). *scale receives the s used.
 * LUCID_ERR_ARGUMENT for k = 0, mu < 0, a zero normal or options outside
 * lucid_grasp_option_table;
 * LUCID_ERR_NONFINITE for a non-finite input. Allocates nothing. */
lucid_status lucid_grasp_wrenches(const double *points, const double *normals, size_t k, double mu,
                                  const lucid_grasp_options *opt, double *wrenches, double *scale);

/* Epsilon of the hull of n 6-D points (6 x n column-major). Fewer than 7 points or points on a
 * lower-dimensional affine subspace give a degenerate result (epsilon 0), not an error.
 * Allocates (qhull's working memory). err receives qhull's message on failure. */
lucid_status lucid_grasp_hull_epsilon(const double *wrenches, size_t n, lucid_grasp_result *out,
                                      char *err, size_t err_size);

/* Wrenches then epsilon: the quality of a grasp with k contacts. Bad options leave their rule
 * (lucid_grasp_option_table) in err. */
lucid_status lucid_grasp_epsilon(const double *points, const double *normals, size_t k, double mu,
                                 const lucid_grasp_options *opt, lucid_grasp_result *out, char *err,
                                 size_t err_size);

#endif
