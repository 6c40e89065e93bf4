/* Halfspace against any bounded shape, in closed form. */
#include "solvers/collision/halfspace.h"

void lucid_halfspace_distance(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                              const lucid_se3 *T2, lucid_distance_result *res) {
    int first = s1->kind == LUCID_SHAPE_HALFSPACE;
    const lucid_shape *h = first ? s1 : s2, *o = first ? s2 : s1;
    const lucid_se3 *Th = first ? T1 : T2, *To = first ? T2 : T1;
    lucid_vec3 n = lucid_mat3_mul_vec(&Th->R, h->u.halfspace.normal);
    double offset = h->u.halfspace.offset + lucid_vec3_dot(n, Th->t);
    int hint = 0;
    lucid_vec3 deepest = lucid_se3_act(
        To, lucid_shape_support(o, lucid_vec3_neg(lucid_mat3_tmul_vec(&To->R, n)), &hint));
    double d = lucid_vec3_dot(n, deepest) - offset;
    lucid_vec3 on_plane = lucid_vec3_axpy(deepest, -d, n);
    res->distance = d;
    res->p1 = first ? on_plane : deepest;
    res->p2 = first ? deepest : on_plane;
    res->normal = first ? n : lucid_vec3_neg(n);
    res->iterations = 0;
    res->epa_iterations = 0;
    res->converged = 1;
    res->penetrating = d < 0.0;
    res->gap = 0.0;
    res->separation = lucid_vec3_sub(res->p1, res->p2);
    res->simplex.rank = 0;
    res->hint1 = first ? 0 : hint;
    res->hint2 = first ? hint : 0;
}
