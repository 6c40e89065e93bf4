/* Distance queries at perturbed poses T2 exp(xi), warm-started from the nominal query. */
#include "autodiff/collision_derivatives_sampling.h"

#include <stddef.h>

void lucid_pose_query_init(lucid_pose_query *q, const lucid_shape *s1, const lucid_se3 *T1,
                           const lucid_shape *s2, const lucid_se3 *T2, const lucid_gjk_options *gjk,
                           const lucid_distance_result *nominal) {
    q->s1 = s1;
    q->s2 = s2;
    q->T1 = T1;
    q->T2 = T2;
    if (gjk != NULL)
        q->gjk = *gjk;
    else
        lucid_gjk_options_default(&q->gjk);
    q->gjk.warm_start = LUCID_WARM_PREVIOUS;
    q->gjk.previous = nominal;
}

lucid_status lucid_pose_query_run(const lucid_pose_query *q, const double xi[6],
                                  lucid_distance_result *out) {
    lucid_se3 E = lucid_se3_exp(xi);
    lucid_se3 T = lucid_se3_compose(q->T2, &E);
    return lucid_distance(q->s1, q->T1, q->s2, &T, &q->gjk, out);
}
