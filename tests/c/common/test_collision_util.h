/* Shared helpers for the collision tests: a deterministic generator, random poses and shapes,
 * and an independent brute-force distance between polytopes given by their triangles (the
 * minimum over vertex-triangle and edge-edge feature pairs, exact for separated polytopes). */
#ifndef LUCID_TEST_COLLISION_UTIL_H
#define LUCID_TEST_COLLISION_UTIL_H

#include <math.h>
#include <stdint.h>

#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/shape.h"
#include "solvers/collision/collision.h"

#include "tests/c/common/test_random.h"

static inline lucid_mat3 axis_angle(lucid_vec3 axis, double angle) {
    axis = lucid_vec3_normalized(axis);
    double s = sin(0.5 * angle);
    return lucid_quat_to_mat3(
        lucid_quat_make(cos(0.5 * angle), s * axis.x, s * axis.y, s * axis.z));
}

static inline lucid_se3 pose_t(double x, double y, double z) {
    return lucid_se3_make(lucid_mat3_identity(), lucid_vec3_make(x, y, z));
}

static inline lucid_gjk_options options_for(lucid_gjk_algorithm a, int normalize) {
    lucid_gjk_options o;
    lucid_gjk_options_default(&o);
    o.algorithm = a;
    o.normalize = normalize;
    return o;
}

/* The four variants the paper compares. */
static inline int variant_options(int i, lucid_gjk_options *o) {
    static const lucid_gjk_algorithm alg[4] = {LUCID_GJK_VANILLA, LUCID_GJK_POLYAK,
                                               LUCID_GJK_NESTEROV, LUCID_GJK_NESTEROV};
    if (i < 0 || i >= 4) return 0;
    *o = options_for(alg[i], i == 3);
    return 1;
}

/* --- brute-force polytope distance ---------------------------------------------------- */

static inline double point_segment_dist2(lucid_vec3 p, lucid_vec3 a, lucid_vec3 b) {
    lucid_vec3 e = lucid_vec3_sub(b, a);
    double t = lucid_vec3_dot(lucid_vec3_sub(p, a), e) / lucid_vec3_norm2(e);
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    return lucid_vec3_norm2(lucid_vec3_sub(p, lucid_vec3_axpy(a, t, e)));
}

static inline double point_triangle_dist2(lucid_vec3 p, lucid_vec3 a, lucid_vec3 b, lucid_vec3 c) {
    lucid_vec3 n = lucid_vec3_cross(lucid_vec3_sub(b, a), lucid_vec3_sub(c, a));
    double nn = lucid_vec3_norm2(n);
    double h = lucid_vec3_dot(lucid_vec3_sub(p, a), n) / nn;
    lucid_vec3 q = lucid_vec3_axpy(p, -h, n); /* projection on the plane */
    double u = lucid_vec3_dot(lucid_vec3_cross(lucid_vec3_sub(b, q), lucid_vec3_sub(c, q)), n);
    double v = lucid_vec3_dot(lucid_vec3_cross(lucid_vec3_sub(c, q), lucid_vec3_sub(a, q)), n);
    double w = lucid_vec3_dot(lucid_vec3_cross(lucid_vec3_sub(a, q), lucid_vec3_sub(b, q)), n);
    if (u >= 0 && v >= 0 && w >= 0) return h * h * nn;
    double d = point_segment_dist2(p, a, b);
    d = fmin(d, point_segment_dist2(p, b, c));
    return fmin(d, point_segment_dist2(p, c, a));
}

/* Segment-segment distance by minimising over a fine parameter grid refined by golden
 * section on the convex function t -> min_s |a(t) - b(s)| (closed form inner minimum). */
static inline double segment_segment_dist2(lucid_vec3 a0, lucid_vec3 a1, lucid_vec3 b0,
                                           lucid_vec3 b1) {
    double lo = 0.0, hi = 1.0;
    const double g = 0.6180339887498949;
    lucid_vec3 ea = lucid_vec3_sub(a1, a0);
    for (int it = 0; it < 80; ++it) {
        double t1 = hi - g * (hi - lo), t2 = lo + g * (hi - lo);
        double f1 = point_segment_dist2(lucid_vec3_axpy(a0, t1, ea), b0, b1);
        double f2 = point_segment_dist2(lucid_vec3_axpy(a0, t2, ea), b0, b1);
        if (f1 < f2)
            hi = t2;
        else
            lo = t1;
    }
    double f = point_segment_dist2(lucid_vec3_axpy(a0, 0.5 * (lo + hi), ea), b0, b1);
    f = fmin(f, point_segment_dist2(a0, b0, b1));
    return fmin(f, point_segment_dist2(a1, b0, b1));
}

/* World corners of a posed box, index bits (x, y, z) -> sign. */
static inline void box_corners(lucid_vec3 h, const lucid_se3 *T, lucid_vec3 *out) {
    for (int i = 0; i < 8; ++i) {
        lucid_vec3 c = lucid_vec3_make(i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z);
        out[i] = lucid_se3_act(T, c);
    }
}

static const int box_tris[12][3] = {{0, 1, 3}, {0, 3, 2}, {4, 5, 7}, {4, 7, 6},
                                    {0, 1, 5}, {0, 5, 4}, {2, 3, 7}, {2, 7, 6},
                                    {0, 2, 6}, {0, 6, 4}, {1, 3, 7}, {1, 7, 5}};
static const int box_edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                     {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};

/* Distance between two separated posed boxes by enumerating feature pairs. */
static inline double brute_box_box_distance(lucid_vec3 h1, const lucid_se3 *T1, lucid_vec3 h2,
                                            const lucid_se3 *T2) {
    lucid_vec3 A[8], B[8];
    box_corners(h1, T1, A);
    box_corners(h2, T2, B);
    double best = INFINITY;
    for (int i = 0; i < 8; ++i)
        for (int f = 0; f < 12; ++f) {
            best = fmin(best, point_triangle_dist2(A[i], B[box_tris[f][0]], B[box_tris[f][1]],
                                                   B[box_tris[f][2]]));
            best = fmin(best, point_triangle_dist2(B[i], A[box_tris[f][0]], A[box_tris[f][1]],
                                                   A[box_tris[f][2]]));
        }
    for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j)
            best = fmin(best, segment_segment_dist2(A[box_edges[i][0]], A[box_edges[i][1]],
                                                    B[box_edges[j][0]], B[box_edges[j][1]]));
    return sqrt(best);
}

/* Penetration depth of two overlapping boxes by the separating-axis theorem: the minimum
 * overlap over the 3 + 3 face normals and 9 edge cross products (exact for boxes). */
static inline double sat_box_box_depth(lucid_vec3 h1, const lucid_se3 *T1, lucid_vec3 h2,
                                       const lucid_se3 *T2) {
    lucid_vec3 A[8], B[8], axes[15];
    box_corners(h1, T1, A);
    box_corners(h2, T2, B);
    int n = 0;
    for (int i = 0; i < 3; ++i) axes[n++] = lucid_mat3_col(&T1->R, i);
    for (int i = 0; i < 3; ++i) axes[n++] = lucid_mat3_col(&T2->R, i);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            lucid_vec3 c = lucid_vec3_cross(lucid_mat3_col(&T1->R, i), lucid_mat3_col(&T2->R, j));
            if (lucid_vec3_norm(c) > 1e-9) axes[n++] = lucid_vec3_normalized(c);
        }
    double best = INFINITY;
    for (int k = 0; k < n; ++k) {
        double lo1 = INFINITY, hi1 = -INFINITY, lo2 = INFINITY, hi2 = -INFINITY;
        for (int i = 0; i < 8; ++i) {
            double a = lucid_vec3_dot(axes[k], A[i]), b = lucid_vec3_dot(axes[k], B[i]);
            lo1 = fmin(lo1, a);
            hi1 = fmax(hi1, a);
            lo2 = fmin(lo2, b);
            hi2 = fmax(hi2, b);
        }
        best = fmin(best, fmin(hi1 - lo2, hi2 - lo1));
    }
    return best;
}

#endif
