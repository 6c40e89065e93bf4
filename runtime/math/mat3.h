/* 3x3 matrices, column-major (element (i, j) is m[i + 3 * j]), all inline. */
#ifndef LUCID_MAT3_H
#define LUCID_MAT3_H

#include "runtime/math/vec3.h"

typedef struct lucid_mat3 {
    double m[9];
} lucid_mat3;

static inline double lucid_mat3_at(const lucid_mat3 *a, int i, int j) {
    return a->m[i + 3 * j];
}

static inline lucid_mat3 lucid_mat3_identity(void) {
    lucid_mat3 a = {{1, 0, 0, 0, 1, 0, 0, 0, 1}};
    return a;
}
static inline lucid_mat3 lucid_mat3_zero(void) {
    lucid_mat3 a = {{0, 0, 0, 0, 0, 0, 0, 0, 0}};
    return a;
}
static inline lucid_mat3 lucid_mat3_from_cols(lucid_vec3 c0, lucid_vec3 c1, lucid_vec3 c2) {
    lucid_mat3 a = {{c0.x, c0.y, c0.z, c1.x, c1.y, c1.z, c2.x, c2.y, c2.z}};
    return a;
}
static inline lucid_vec3 lucid_mat3_col(const lucid_mat3 *a, int j) {
    return lucid_vec3_load(a->m + 3 * j);
}
static inline lucid_vec3 lucid_mat3_row(const lucid_mat3 *a, int i) {
    return lucid_vec3_make(a->m[i], a->m[i + 3], a->m[i + 6]);
}
static inline lucid_mat3 lucid_mat3_diag(lucid_vec3 d) {
    lucid_mat3 a = {{d.x, 0, 0, 0, d.y, 0, 0, 0, d.z}};
    return a;
}

/* A x */
static inline lucid_vec3 lucid_mat3_mul_vec(const lucid_mat3 *a, lucid_vec3 x) {
    const double *m = a->m;
    return lucid_vec3_make(m[0] * x.x + m[3] * x.y + m[6] * x.z,
                           m[1] * x.x + m[4] * x.y + m[7] * x.z,
                           m[2] * x.x + m[5] * x.y + m[8] * x.z);
}
/* A^T x */
static inline lucid_vec3 lucid_mat3_tmul_vec(const lucid_mat3 *a, lucid_vec3 x) {
    const double *m = a->m;
    return lucid_vec3_make(m[0] * x.x + m[1] * x.y + m[2] * x.z,
                           m[3] * x.x + m[4] * x.y + m[5] * x.z,
                           m[6] * x.x + m[7] * x.y + m[8] * x.z);
}
/* A B */
static inline lucid_mat3 lucid_mat3_mul(const lucid_mat3 *a, const lucid_mat3 *b) {
    return lucid_mat3_from_cols(lucid_mat3_mul_vec(a, lucid_mat3_col(b, 0)),
                                lucid_mat3_mul_vec(a, lucid_mat3_col(b, 1)),
                                lucid_mat3_mul_vec(a, lucid_mat3_col(b, 2)));
}
/* A^T B */
static inline lucid_mat3 lucid_mat3_tmul(const lucid_mat3 *a, const lucid_mat3 *b) {
    return lucid_mat3_from_cols(lucid_mat3_tmul_vec(a, lucid_mat3_col(b, 0)),
                                lucid_mat3_tmul_vec(a, lucid_mat3_col(b, 1)),
                                lucid_mat3_tmul_vec(a, lucid_mat3_col(b, 2)));
}
static inline lucid_mat3 lucid_mat3_transpose(const lucid_mat3 *a) {
    return lucid_mat3_from_cols(lucid_mat3_row(a, 0), lucid_mat3_row(a, 1), lucid_mat3_row(a, 2));
}
static inline lucid_mat3 lucid_mat3_add(const lucid_mat3 *a, const lucid_mat3 *b) {
    lucid_mat3 c;
    for (int k = 0; k < 9; ++k) c.m[k] = a->m[k] + b->m[k];
    return c;
}
static inline lucid_mat3 lucid_mat3_sub(const lucid_mat3 *a, const lucid_mat3 *b) {
    lucid_mat3 c;
    for (int k = 0; k < 9; ++k) c.m[k] = a->m[k] - b->m[k];
    return c;
}
static inline lucid_mat3 lucid_mat3_scale(const lucid_mat3 *a, double s) {
    lucid_mat3 c;
    for (int k = 0; k < 9; ++k) c.m[k] = s * a->m[k];
    return c;
}
/* The cross-product matrix: hat(w) x = w x x. */
static inline lucid_mat3 lucid_mat3_hat(lucid_vec3 w) {
    lucid_mat3 a = {{0, w.z, -w.y, -w.z, 0, w.x, w.y, -w.x, 0}};
    return a;
}
/* a b^T */
static inline lucid_mat3 lucid_mat3_outer(lucid_vec3 a, lucid_vec3 b) {
    return lucid_mat3_from_cols(lucid_vec3_scale(a, b.x), lucid_vec3_scale(a, b.y),
                                lucid_vec3_scale(a, b.z));
}
static inline double lucid_mat3_det(const lucid_mat3 *a) {
    return lucid_vec3_dot(lucid_mat3_col(a, 0),
                          lucid_vec3_cross(lucid_mat3_col(a, 1), lucid_mat3_col(a, 2)));
}
static inline double lucid_mat3_trace(const lucid_mat3 *a) {
    return a->m[0] + a->m[4] + a->m[8];
}
static inline int lucid_mat3_isfinite(const lucid_mat3 *a) {
    for (int k = 0; k < 9; ++k)
        if (!isfinite(a->m[k])) return 0;
    return 1;
}
/* Inverse by the adjugate; returns 0 (and leaves *out untouched) when |det| <= tiny * scale. */
static inline int lucid_mat3_inverse(const lucid_mat3 *a, lucid_mat3 *out) {
    lucid_vec3 c0 = lucid_mat3_col(a, 0), c1 = lucid_mat3_col(a, 1), c2 = lucid_mat3_col(a, 2);
    lucid_vec3 r0 = lucid_vec3_cross(c1, c2), r1 = lucid_vec3_cross(c2, c0),
               r2 = lucid_vec3_cross(c0, c1);
    double det = lucid_vec3_dot(c0, r0);
    double scale = lucid_vec3_norm(c0) * lucid_vec3_norm(c1) * lucid_vec3_norm(c2);
    if (!(fabs(det) > 1e-300 + 1e-14 * scale)) return 0;
    lucid_mat3 adj_t = lucid_mat3_from_cols(r0, r1, r2); /* rows of the inverse, as columns */
    lucid_mat3 inv = lucid_mat3_transpose(&adj_t);
    *out = lucid_mat3_scale(&inv, 1.0 / det);
    return 1;
}

#endif
