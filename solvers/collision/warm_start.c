/* Warm starts of GJK: bounding-box centres (the paper's default), frame origins, a given
 * vector, or the separation vector of a previous result. */
#include "solvers/collision/warm_start.h"

lucid_vec3 lucid_shape_box_center(const lucid_shape *s) {
    if (s->kind != LUCID_SHAPE_CONVEX) return lucid_vec3_zero();
    int hint = 0;
    lucid_vec3 c;
    double lo[3], hi[3];
    for (int i = 0; i < 3; ++i) {
        double e[3] = {0, 0, 0};
        e[i] = 1.0;
        hi[i] = lucid_vec3_get(lucid_shape_support_core(s, lucid_vec3_load(e), &hint), i);
        e[i] = -1.0;
        lo[i] = lucid_vec3_get(lucid_shape_support_core(s, lucid_vec3_load(e), &hint), i);
    }
    c = lucid_vec3_make(0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]));
    return c;
}

lucid_vec3 lucid_gjk_start_vector(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                  const lucid_se3 *T2, const lucid_gjk_options *opt) {
    switch (opt->warm_start) {
        case LUCID_WARM_NONE:
            return lucid_vec3_sub(T1->t, T2->t);
        case LUCID_WARM_VECTOR:
            if (lucid_vec3_norm2(opt->warm_vector) > 0.0 && lucid_vec3_isfinite(opt->warm_vector))
                return opt->warm_vector;
            break;
        case LUCID_WARM_PREVIOUS:
            if (opt->previous && lucid_vec3_norm2(opt->previous->separation) > 0.0 &&
                lucid_vec3_isfinite(opt->previous->separation))
                return opt->previous->separation;
            break;
        case LUCID_WARM_BOX_CENTERS:
            break;
    }
    return lucid_vec3_sub(lucid_se3_act(T1, lucid_shape_box_center(s1)),
                          lucid_se3_act(T2, lucid_shape_box_center(s2)));
}
