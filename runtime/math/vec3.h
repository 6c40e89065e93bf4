/* 3-vectors as a small value type: everything inline, no allocation. */
#ifndef LUCID_VEC3_H
#define LUCID_VEC3_H

#include <math.h>

typedef struct lucid_vec3 {
    double x, y, z;
} lucid_vec3;

static inline lucid_vec3 lucid_vec3_make(double x, double y, double z) {
    lucid_vec3 v = {x, y, z};
    return v;
}
static inline lucid_vec3 lucid_vec3_zero(void) {
    return lucid_vec3_make(0.0, 0.0, 0.0);
}
static inline lucid_vec3 lucid_vec3_load(const double *p) {
    return lucid_vec3_make(p[0], p[1], p[2]);
}
static inline void lucid_vec3_store(lucid_vec3 v, double *p) {
    p[0] = v.x;
    p[1] = v.y;
    p[2] = v.z;
}
static inline double lucid_vec3_get(lucid_vec3 v, int i) {
    return i == 0 ? v.x : (i == 1 ? v.y : v.z);
}

static inline lucid_vec3 lucid_vec3_add(lucid_vec3 a, lucid_vec3 b) {
    return lucid_vec3_make(a.x + b.x, a.y + b.y, a.z + b.z);
}
static inline lucid_vec3 lucid_vec3_sub(lucid_vec3 a, lucid_vec3 b) {
    return lucid_vec3_make(a.x - b.x, a.y - b.y, a.z - b.z);
}
static inline lucid_vec3 lucid_vec3_neg(lucid_vec3 a) {
    return lucid_vec3_make(-a.x, -a.y, -a.z);
}
static inline lucid_vec3 lucid_vec3_scale(lucid_vec3 a, double s) {
    return lucid_vec3_make(s * a.x, s * a.y, s * a.z);
}
/* a + s * b */
static inline lucid_vec3 lucid_vec3_axpy(lucid_vec3 a, double s, lucid_vec3 b) {
    return lucid_vec3_make(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}
/* (1 - t) * a + t * b */
static inline lucid_vec3 lucid_vec3_lerp(lucid_vec3 a, lucid_vec3 b, double t) {
    return lucid_vec3_make(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z));
}
static inline lucid_vec3 lucid_vec3_mul(lucid_vec3 a, lucid_vec3 b) {
    return lucid_vec3_make(a.x * b.x, a.y * b.y, a.z * b.z);
}
static inline double lucid_vec3_dot(lucid_vec3 a, lucid_vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline lucid_vec3 lucid_vec3_cross(lucid_vec3 a, lucid_vec3 b) {
    return lucid_vec3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double lucid_vec3_norm2(lucid_vec3 a) {
    return lucid_vec3_dot(a, a);
}
static inline double lucid_vec3_norm(lucid_vec3 a) {
    return sqrt(lucid_vec3_dot(a, a));
}
static inline double lucid_vec3_dist(lucid_vec3 a, lucid_vec3 b) {
    return lucid_vec3_norm(lucid_vec3_sub(a, b));
}
static inline double lucid_vec3_max_abs(lucid_vec3 a) {
    return fmax(fabs(a.x), fmax(fabs(a.y), fabs(a.z)));
}
static inline int lucid_vec3_isfinite(lucid_vec3 a) {
    return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}

/* Unit vector along a; returns the zero vector for a zero (or non-finite-norm) input. */
static inline lucid_vec3 lucid_vec3_normalized(lucid_vec3 a) {
    double n = lucid_vec3_norm(a);
    return n > 0.0 && isfinite(n) ? lucid_vec3_scale(a, 1.0 / n) : lucid_vec3_zero();
}

/* A unit vector orthogonal to the unit vector n (deterministic, continuous away from n.z = -1). */
static inline lucid_vec3 lucid_vec3_any_orthogonal(lucid_vec3 n) {
    lucid_vec3 t =
        fabs(n.x) < 0.57735 ? lucid_vec3_make(0.0, -n.z, n.y) : lucid_vec3_make(-n.y, n.x, 0.0);
    return lucid_vec3_normalized(t);
}

#endif
