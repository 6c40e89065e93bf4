/* Rigid transforms T = (R, t) acting as x -> R x + t.
 * The inline part (compose, inverse, act) is what hot paths use; exp/log, Jacobians and
 * conversions live in se3.c. Twists are 6-vectors (v, w): linear first. */
#ifndef LUCID_SE3_H
#define LUCID_SE3_H

#include "runtime/math/quat.h"

typedef struct lucid_se3 {
    lucid_mat3 R;
    lucid_vec3 t;
} lucid_se3;

static inline lucid_se3 lucid_se3_identity(void) {
    lucid_se3 T = {lucid_mat3_identity(), {0.0, 0.0, 0.0}};
    return T;
}
static inline lucid_se3 lucid_se3_make(lucid_mat3 R, lucid_vec3 t) {
    lucid_se3 T = {R, t};
    return T;
}
/* T p */
static inline lucid_vec3 lucid_se3_act(const lucid_se3 *T, lucid_vec3 p) {
    return lucid_vec3_add(lucid_mat3_mul_vec(&T->R, p), T->t);
}
/* T^-1 p */
static inline lucid_vec3 lucid_se3_act_inv(const lucid_se3 *T, lucid_vec3 p) {
    return lucid_mat3_tmul_vec(&T->R, lucid_vec3_sub(p, T->t));
}
/* A B */
static inline lucid_se3 lucid_se3_compose(const lucid_se3 *A, const lucid_se3 *B) {
    return lucid_se3_make(lucid_mat3_mul(&A->R, &B->R), lucid_se3_act(A, B->t));
}
/* A^-1 B, without forming A^-1 */
static inline lucid_se3 lucid_se3_between(const lucid_se3 *A, const lucid_se3 *B) {
    return lucid_se3_make(lucid_mat3_tmul(&A->R, &B->R), lucid_se3_act_inv(A, B->t));
}
static inline lucid_se3 lucid_se3_inverse(const lucid_se3 *T) {
    lucid_mat3 Rt = lucid_mat3_transpose(&T->R);
    return lucid_se3_make(Rt, lucid_vec3_neg(lucid_mat3_mul_vec(&Rt, T->t)));
}

#endif
