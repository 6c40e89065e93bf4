/* Support of the Minkowski difference D = A1 - A2 of two posed shapes, expressed in the frame
 * of shape 1 (one rotation and one translation fewer per support than in world frame, and
 * coordinates relative to shape 1 keep tiny shapes far from the origin accurate):
 *   lucid_minkowski_support(m, d) = argmax_{w in D} <d, w> = s1(d) - (R12 s2(-R12^T d) + t12),
 * with (R12, t12) = T1^-1 T2. The GJK paper writes the support as argmin <d, w>; GJK calls
 * this with -d. Both shapes' points are kept (frame 1) so witness points can be recovered from
 * barycentric weights, and each shape keeps its own mesh hill-climbing hint for the duration
 * of one query. Works on the shape CORES (lucid_shape_support_core): radii are added by the
 * caller. lucid_minkowski_to_world maps results back. */
#ifndef LUCID_MINKOWSKI_H
#define LUCID_MINKOWSKI_H

#include "runtime/shapes/shape.h"

typedef struct lucid_support_point {
    lucid_vec3 w;  /* p1 - p2, a point of D */
    lucid_vec3 p1; /* point of shape 1's core (frame 1) */
    lucid_vec3 p2; /* point of shape 2's core (frame 1) */
} lucid_support_point;

typedef struct lucid_minkowski {
    const lucid_shape *s1, *s2;
    const lucid_se3 *T1; /* world pose of shape 1: the frame of every vector here */
    lucid_se3 T12;       /* pose of shape 2 in frame 1 */
    int hint1, hint2;    /* per-query mesh vertex hints */
} lucid_minkowski;

static inline lucid_minkowski lucid_minkowski_make(const lucid_shape *s1, const lucid_se3 *T1,
                                                   const lucid_shape *s2, const lucid_se3 *T2) {
    /* Meshes start without a hint (-1): their first climb starts from the precomputed vertex
     * of the direction's cube-map cell. Other shapes report 0. */
    lucid_minkowski m = {s1,
                         s2,
                         T1,
                         lucid_se3_between(T1, T2),
                         s1->kind == LUCID_SHAPE_CONVEX ? -1 : 0,
                         s2->kind == LUCID_SHAPE_CONVEX ? -1 : 0};
    return m;
}

static inline lucid_support_point lucid_minkowski_support(lucid_minkowski *m, lucid_vec3 d) {
    lucid_support_point sp;
    sp.p1 = lucid_shape_support_core(m->s1, d, &m->hint1);
    lucid_vec3 l2 = lucid_shape_support_core(
        m->s2, lucid_vec3_neg(lucid_mat3_tmul_vec(&m->T12.R, d)), &m->hint2);
    sp.p2 = lucid_se3_act(&m->T12, l2);
    sp.w = lucid_vec3_sub(sp.p1, sp.p2);
    return sp;
}

/* Frame-1 point / direction to world. */
static inline lucid_vec3 lucid_minkowski_point_to_world(const lucid_minkowski *m, lucid_vec3 p) {
    return lucid_se3_act(m->T1, p);
}
static inline lucid_vec3 lucid_minkowski_dir_to_world(const lucid_minkowski *m, lucid_vec3 d) {
    return lucid_mat3_mul_vec(&m->T1->R, d);
}
static inline lucid_vec3 lucid_minkowski_dir_from_world(const lucid_minkowski *m, lucid_vec3 d) {
    return lucid_mat3_tmul_vec(&m->T1->R, d);
}

#endif
