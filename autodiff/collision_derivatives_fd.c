/* Central finite differences on each twist coordinate: (g(h e_k) - g(-h e_k)) / 2h. The
 * truncation error is O(h^2), the solver's error is amplified by 1/h, so the automatic step
 * is cbrt of the witness accuracy the query options guarantee (collision_derivatives.h). */
#include <float.h>
#include <math.h>

#include "autodiff/collision_derivatives_sampling.h"

double lucid_derivative_auto_step(const lucid_gjk_options *gjk, const lucid_se3 *T1,
                                  const lucid_se3 *T2, const lucid_distance_result *query) {
    double d = fabs(query->distance);
    double L = fmax(d, fmax(lucid_vec3_norm(lucid_vec3_sub(query->p1, T1->t)),
                            lucid_vec3_norm(lucid_vec3_sub(query->p2, T2->t))));
    double delta = sqrt(DBL_EPSILON) * L; /* witness points of curved shapes at rounding */
    if (gjk->tol_mode == LUCID_GJK_TOL_RELATIVE)
        delta = fmax(delta, sqrt(fmax(gjk->tol, 8.0 * DBL_EPSILON)) * d);
    else
        delta = fmax(delta, sqrt(gjk->tol));
    if (query->distance < 0.0) delta = fmax(delta, sqrt(gjk->epa_tol * L));
    double h = cbrt(delta);
    return isfinite(h) && h > 0.0 ? h : 1e-6; /* L = 0 (points at both origins): any step */
}

static void store_difference(double *m, int j, lucid_vec3 plus, lucid_vec3 minus, double scale) {
    lucid_vec3 d = lucid_vec3_scale(lucid_vec3_sub(plus, minus), scale);
    m[3 * j] = d.x;
    m[3 * j + 1] = d.y;
    m[3 * j + 2] = d.z;
}

lucid_status lucid_derivatives_finite_differences(const lucid_pose_query *q, double step,
                                                  lucid_distance_derivatives_result *res) {
    for (int k = 0; k < 6; ++k) {
        double xi[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
        lucid_distance_result plus, minus;
        xi[k] = step;
        lucid_status st = lucid_pose_query_run(q, xi, &plus);
        if (st != LUCID_OK) return st;
        xi[k] = -step;
        st = lucid_pose_query_run(q, xi, &minus);
        if (st != LUCID_OK) return st;
        double scale = 0.5 / step;
        store_difference(res->dp1, k, plus.p1, minus.p1, scale);
        store_difference(res->dp2, k, plus.p2, minus.p2, scale);
        store_difference(res->dnormal, k, plus.normal, minus.normal, scale);
        res->ddistance[k] = (plus.distance - minus.distance) * scale;
    }
    return LUCID_OK;
}
