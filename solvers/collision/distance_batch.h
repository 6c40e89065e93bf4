/* Many signed-distance queries between the same two shapes in one call (lucid.distance_batch):
 * poses come as 7 x n column-major arrays, one column (quaternion w, x, y, z, then translation)
 * per query. Each query is exactly lucid_distance on the poses lucid_se3_from_quat builds, so a
 * batch equals a loop of single queries bit for bit unless chaining is asked for. */
#ifndef LUCID_DISTANCE_BATCH_H
#define LUCID_DISTANCE_BATCH_H

#include "solvers/collision/collision.h"

#define LUCID_POSE_ROWS 7 /* w, x, y, z, tx, ty, tz */

/* Where a batch's input was rejected: which pose array (1 or 2) and which column (0-based). */
typedef struct lucid_batch_error {
    int which;
    int column;
} lucid_batch_error;

/* distances[i] (and iterations[i], when iterations is not NULL) of the query
 * (s1 at column i of X1, s2 at column i of X2), i < n. opt may be NULL (defaults).
 * chain = 0: every query uses opt as given (its warm start included).
 * chain = 1: query 0 uses opt; query i > 0 warm-starts from the separation vector of query
 *            i - 1 (what LUCID_WARM_PREVIOUS uses), which pays off when consecutive poses
 *            are close; results then differ from single queries within the tolerance only.
 * Every pose is checked before any query runs; on error nothing is written to the outputs and,
 * if err is not NULL, it names the offending column. Errors: LUCID_ERR_ARGUMENT (NULL pointers,
 * n < 0, bad options, two halfspaces, a zero quaternion, a translation beyond
 * LUCID_GEOMETRY_MAX), LUCID_ERR_NONFINITE (NaN or Inf in
 * a pose). No heap allocation. */
lucid_status lucid_distance_batch(const lucid_shape *s1, const lucid_shape *s2, const double *X1,
                                  const double *X2, int n, const lucid_gjk_options *opt, int chain,
                                  double *distances, int *iterations, lucid_batch_error *err);

#endif
