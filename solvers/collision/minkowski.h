/* Support of the Minkowski difference D = A1 - A2 of two posed shapes, in world frame.
 * Convention: lucid_minkowski_support(m, d) = argmax_{w in D} <d, w>
 *           = T1 s1(R1^T d) - T2 s2(-R2^T d).
 * The GJK paper writes the support as argmin <d, w>; GJK calls this with -d.
 * Both shapes' points are kept so witness points can be recovered from barycentric weights,
 * and each shape keeps its own mesh hill-climbing hint for the duration of one query.
 * Works on the shape CORES (lucid_shape_support_core): radii are added by the caller. */
#ifndef LUCID_MINKOWSKI_H
#define LUCID_MINKOWSKI_H

#include "runtime/shapes/shape.h"

typedef struct lucid_support_point {
    lucid_vec3 w;  /* p1 - p2, a point of D */
    lucid_vec3 p1; /* world point of shape 1's core */
    lucid_vec3 p2; /* world point of shape 2's core */
} lucid_support_point;

typedef struct lucid_minkowski {
    const lucid_shape *s1, *s2;
    const lucid_se3 *T1, *T2;
    int hint1, hint2; /* per-query mesh vertex hints */
} lucid_minkowski;

static inline lucid_minkowski lucid_minkowski_make(const lucid_shape *s1, const lucid_se3 *T1,
                                                   const lucid_shape *s2, const lucid_se3 *T2) {
    lucid_minkowski m = {s1, s2, T1, T2, 0, 0};
    return m;
}

static inline lucid_support_point lucid_minkowski_support(lucid_minkowski *m, lucid_vec3 d) {
    lucid_support_point sp;
    lucid_vec3 l1 = lucid_shape_support_core(m->s1, lucid_mat3_tmul_vec(&m->T1->R, d), &m->hint1);
    lucid_vec3 l2 = lucid_shape_support_core(
        m->s2, lucid_vec3_neg(lucid_mat3_tmul_vec(&m->T2->R, d)), &m->hint2);
    sp.p1 = lucid_se3_act(m->T1, l1);
    sp.p2 = lucid_se3_act(m->T2, l2);
    sp.w = lucid_vec3_sub(sp.p1, sp.p2);
    return sp;
}

#endif
