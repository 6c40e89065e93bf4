/* Unit quaternions (w, x, y, z), Hamilton convention, all inline. */
#ifndef LUCID_QUAT_H
#define LUCID_QUAT_H

#include <float.h>

#include "runtime/math/mat3.h"

typedef struct lucid_quat {
    double w, x, y, z;
} lucid_quat;

static inline lucid_quat lucid_quat_make(double w, double x, double y, double z) {
    lucid_quat q = {w, x, y, z};
    return q;
}
static inline lucid_quat lucid_quat_identity(void) {
    return lucid_quat_make(1.0, 0.0, 0.0, 0.0);
}
static inline lucid_vec3 lucid_quat_vec(lucid_quat q) {
    return lucid_vec3_make(q.x, q.y, q.z);
}
static inline double lucid_quat_norm(lucid_quat q) {
    return sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
}
static inline lucid_quat lucid_quat_conj(lucid_quat q) {
    return lucid_quat_make(q.w, -q.x, -q.y, -q.z);
}
static inline lucid_quat lucid_quat_mul(lucid_quat a, lucid_quat b) {
    return lucid_quat_make(a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                           a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                           a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                           a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w);
}
/* Normalises q in place; returns 0 when q is zero, subnormal (largest |component| below
 * DBL_MIN: its direction has lost its precision) or not finite (q is then left unchanged).
 * When the sum of squares would overflow (|q| of 1e300) or underflow (1e-300), q is first
 * divided by its largest |component|: any other q has a direction. */
static inline int lucid_quat_normalize(lucid_quat *q) {
    if (!isfinite(q->w) || !isfinite(q->x) || !isfinite(q->y) || !isfinite(q->z)) return 0;
    double n = lucid_quat_norm(*q);
    if (!(n > 1e-150 && n < 1e150)) { /* outside sqrt(DBL_MIN) = 1.5e-154 .. sqrt(DBL_MAX) */
        double mx = fmax(fmax(fabs(q->w), fabs(q->x)), fmax(fabs(q->y), fabs(q->z)));
        if (!(mx >= DBL_MIN)) return 0; /* zero, or subnormal: its direction is lost */
        *q = lucid_quat_make(q->w / mx, q->x / mx, q->y / mx, q->z / mx);
        n = lucid_quat_norm(*q);
    }
    q->w /= n;
    q->x /= n;
    q->y /= n;
    q->z /= n;
    return 1;
}
/* exp(w) = (cos(|w|/2), sin(|w|/2) w/|w|): the rotation by the rotation vector w. |w| is taken
 * on w scaled by its largest entry (no overflow for huge w; cos and sin reduce huge arguments
 * exactly); below 1e-6 the series sin(t/2)/t = 1/2 - t^2/48, exact to rounding there. */
static inline lucid_quat lucid_quat_exp(lucid_vec3 w) {
    double m = fmax(fabs(w.x), fmax(fabs(w.y), fabs(w.z)));
    if (m == 0.0) return lucid_quat_make(1.0, 0.0, 0.0, 0.0);
    if (m < 1e-6) {
        double t = sqrt(w.x * w.x + w.y * w.y + w.z * w.z), s = 0.5 - t * t / 48.0;
        return lucid_quat_make(cos(0.5 * t), s * w.x, s * w.y, s * w.z);
    }
    double ux = w.x / m, uy = w.y / m, uz = w.z / m, n = sqrt(ux * ux + uy * uy + uz * uz);
    double t = m * n, s = sin(0.5 * t) / n;
    return lucid_quat_make(cos(0.5 * t), s * ux, s * uy, s * uz);
}
/* Rotates v by the unit quaternion q. */
static inline lucid_vec3 lucid_quat_rotate(lucid_quat q, lucid_vec3 v) {
    lucid_vec3 u = lucid_quat_vec(q);
    lucid_vec3 t = lucid_vec3_scale(lucid_vec3_cross(u, v), 2.0);
    return lucid_vec3_add(lucid_vec3_axpy(v, q.w, t), lucid_vec3_cross(u, t));
}
/* Rotation matrix of the unit quaternion q. */
static inline lucid_mat3 lucid_quat_to_mat3(lucid_quat q) {
    double w = q.w, x = q.x, y = q.y, z = q.z;
    lucid_mat3 r = {{1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y),
                     2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
                     2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)}};
    return r;
}
/* Unit quaternion of a rotation matrix (Shepperd's method: pivot on the largest of
 * w, x, y, z so the square root never sees a cancelling difference). Returns w >= 0. */
static inline lucid_quat lucid_quat_from_mat3(const lucid_mat3 *r) {
    const double *m = r->m; /* m[i + 3j] = R(i, j) */
    double tr = m[0] + m[4] + m[8];
    lucid_quat q;
    if (tr >= m[0] && tr >= m[4] && tr >= m[8]) {
        double s = 2.0 * sqrt(1.0 + tr);
        q = lucid_quat_make(0.25 * s, (m[5] - m[7]) / s, (m[6] - m[2]) / s, (m[1] - m[3]) / s);
    } else if (m[0] >= m[4] && m[0] >= m[8]) {
        double s = 2.0 * sqrt(1.0 + m[0] - m[4] - m[8]);
        q = lucid_quat_make((m[5] - m[7]) / s, 0.25 * s, (m[3] + m[1]) / s, (m[6] + m[2]) / s);
    } else if (m[4] >= m[8]) {
        double s = 2.0 * sqrt(1.0 + m[4] - m[0] - m[8]);
        q = lucid_quat_make((m[6] - m[2]) / s, (m[3] + m[1]) / s, 0.25 * s, (m[7] + m[5]) / s);
    } else {
        double s = 2.0 * sqrt(1.0 + m[8] - m[0] - m[4]);
        q = lucid_quat_make((m[1] - m[3]) / s, (m[6] + m[2]) / s, (m[7] + m[5]) / s, 0.25 * s);
    }
    if (q.w < 0.0) q = lucid_quat_make(-q.w, -q.x, -q.y, -q.z);
    lucid_quat_normalize(&q);
    return q;
}

#endif
