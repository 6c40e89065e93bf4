/* Batched signed distances: validate every pose, then run lucid_distance per column. */
#include "solvers/collision/distance_batch.h"

/* Pose of column `column` of X (7 x n, column-major); the quaternion is normalised.
 * Errors: LUCID_ERR_NONFINITE (NaN or Inf), LUCID_ERR_ARGUMENT (zero quaternion). */
static lucid_status pose_column(const double *X, int column, lucid_se3 *T) {
    const double *c = X + (long)LUCID_POSE_ROWS * column;
    return lucid_se3_from_quat(lucid_quat_make(c[0], c[1], c[2], c[3]),
                               lucid_vec3_make(c[4], c[5], c[6]), T);
}

static lucid_status check_poses(const double *X, int n, int which, lucid_batch_error *err) {
    lucid_se3 T;
    for (int i = 0; i < n; ++i) {
        lucid_status st = pose_column(X, i, &T);
        if (st == LUCID_OK && !(lucid_vec3_max_abs(T.t) <= LUCID_GEOMETRY_MAX))
            st = LUCID_ERR_ARGUMENT; /* outside the representable range (shape.h) */
        if (st != LUCID_OK) {
            if (err) {
                err->which = which;
                err->column = i;
            }
            return st;
        }
    }
    return LUCID_OK;
}

lucid_status lucid_distance_batch(const lucid_shape *s1, const lucid_shape *s2, const double *X1,
                                  const double *X2, int n, const lucid_gjk_options *opt_in,
                                  int chain, double *distances, int *iterations,
                                  lucid_batch_error *err) {
    if (err) err->which = err->column = -1;
    if (!s1 || !s2 || n < 0 || (n > 0 && (!X1 || !X2 || !distances))) return LUCID_ERR_ARGUMENT;
    lucid_status st = check_poses(X1, n, 1, err);
    if (st == LUCID_OK) st = check_poses(X2, n, 2, err);
    if (st != LUCID_OK) return st;
    lucid_gjk_options opt;
    if (opt_in)
        opt = *opt_in;
    else
        lucid_gjk_options_default(&opt);
    lucid_distance_result res;
    for (int i = 0; i < n; ++i) {
        lucid_se3 T1, T2;
        pose_column(X1, i, &T1);
        pose_column(X2, i, &T2);
        st = lucid_distance(s1, &T1, s2, &T2, &opt, &res);
        if (st != LUCID_OK) return st; /* option errors surface on the first query */
        distances[i] = res.distance;
        if (iterations) iterations[i] = res.iterations;
        if (chain) { /* the previous result's separation, as LUCID_WARM_PREVIOUS would use */
            opt.warm_start = LUCID_WARM_VECTOR;
            opt.warm_vector = res.separation;
        }
    }
    return LUCID_OK;
}
