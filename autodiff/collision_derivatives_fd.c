/* Central finite differences on each twist coordinate: (g(h e_k) - g(-h e_k)) / 2h. The
 * truncation error is O(h^2), the solver's error is amplified by 1/h: the default step 1e-6
 * suits the default distance tolerances only roughly, tight tolerances allow steps ~1e-4 with
 * ~1e-8 relative accuracy on smooth shapes. */
#include "autodiff/collision_derivatives_sampling.h"

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
