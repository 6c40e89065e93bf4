/* Shared helpers of the collision-derivative tests: relative errors of 3x6 blocks, and an
 * independent high-accuracy reference for smooth shapes. The reference polishes the witness
 * pair by Newton's method on the optimality condition alone (p1 = S1(n), p2 = S2(-n),
 * p2 - p1 parallel to n), using only support queries and a finite-difference Jacobian, so it
 * is accurate to ~1e-15 and shares nothing with the implicit solve under test; its central
 * finite differences are then accurate to O(h^2). */
#ifndef LUCID_TEST_COLLISION_DERIVATIVES_UTIL_H
#define LUCID_TEST_COLLISION_DERIVATIVES_UTIL_H

#include <math.h>
#include <string.h>

#include "autodiff/collision_derivatives.h"

/* max |a - b| / max |b| over n entries. */
static inline double relative_error(const double *a, const double *b, int n) {
    double err = 0.0, scale = 0.0;
    for (int i = 0; i < n; ++i) {
        err = fmax(err, fabs(a[i] - b[i]));
        scale = fmax(scale, fabs(b[i]));
    }
    return err / fmax(scale, 1e-300);
}

/* The worst relative error over the four derivative blocks. */
static inline double derivative_error(const lucid_distance_derivatives_result *a,
                                      const lucid_distance_derivatives_result *b) {
    double e = relative_error(a->dp1, b->dp1, 18);
    e = fmax(e, relative_error(a->dp2, b->dp2, 18));
    e = fmax(e, relative_error(a->dnormal, b->dnormal, 18));
    return fmax(e, relative_error(a->ddistance, b->ddistance, 6));
}

/* The witness-point blocks only (dp1, dp2, dnormal): what the Hessian estimators change. */
static inline double witness_error(const lucid_distance_derivatives_result *a,
                                   const lucid_distance_derivatives_result *b) {
    double e = relative_error(a->dp1, b->dp1, 18);
    e = fmax(e, relative_error(a->dp2, b->dp2, 18));
    return fmax(e, relative_error(a->dnormal, b->dnormal, 18));
}

typedef struct reference_witness {
    double distance;
    lucid_vec3 p1, p2, normal;
} reference_witness;

static inline lucid_vec3 world_support(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 u) {
    return lucid_se3_act(T, lucid_shape_support(s, lucid_mat3_tmul_vec(&T->R, u), NULL));
}

static inline lucid_vec3 tilted_normal(lucid_vec3 n0, lucid_vec3 t1, lucid_vec3 t2, double a,
                                       double b) {
    return lucid_vec3_normalized(
        lucid_vec3_add(n0, lucid_vec3_add(lucid_vec3_scale(t1, a), lucid_vec3_scale(t2, b))));
}

/* Tangential part of S2(-n) - S1(n) in the fixed basis (t1, t2): zero at the solution. */
static inline void polish_residual(const lucid_shape *s1, const lucid_se3 *T1,
                                   const lucid_shape *s2, const lucid_se3 *T2, lucid_vec3 n,
                                   lucid_vec3 t1, lucid_vec3 t2, double r[2]) {
    lucid_vec3 D =
        lucid_vec3_sub(world_support(s2, T2, lucid_vec3_neg(n)), world_support(s1, T1, n));
    lucid_vec3 tangential = lucid_vec3_axpy(D, -lucid_vec3_dot(D, n), n);
    r[0] = lucid_vec3_dot(t1, tangential);
    r[1] = lucid_vec3_dot(t2, tangential);
}

static inline reference_witness polish(const lucid_shape *s1, const lucid_se3 *T1,
                                       const lucid_shape *s2, const lucid_se3 *T2, lucid_vec3 n0) {
    lucid_vec3 t1 = lucid_vec3_any_orthogonal(n0), t2 = lucid_vec3_cross(n0, t1);
    double a = 0.0, b = 0.0, h = 1e-7;
    for (int it = 0; it < 40; ++it) {
        double r[2], ra[2], rb[2], ra_[2], rb_[2];
        polish_residual(s1, T1, s2, T2, tilted_normal(n0, t1, t2, a, b), t1, t2, r);
        if (fabs(r[0]) + fabs(r[1]) < 1e-16) break;
        polish_residual(s1, T1, s2, T2, tilted_normal(n0, t1, t2, a + h, b), t1, t2, ra);
        polish_residual(s1, T1, s2, T2, tilted_normal(n0, t1, t2, a - h, b), t1, t2, ra_);
        polish_residual(s1, T1, s2, T2, tilted_normal(n0, t1, t2, a, b + h), t1, t2, rb);
        polish_residual(s1, T1, s2, T2, tilted_normal(n0, t1, t2, a, b - h), t1, t2, rb_);
        double j00 = (ra[0] - ra_[0]) / (2 * h), j10 = (ra[1] - ra_[1]) / (2 * h);
        double j01 = (rb[0] - rb_[0]) / (2 * h), j11 = (rb[1] - rb_[1]) / (2 * h);
        double det = j00 * j11 - j01 * j10;
        a -= (j11 * r[0] - j01 * r[1]) / det;
        b -= (-j10 * r[0] + j00 * r[1]) / det;
    }
    reference_witness w;
    w.normal = tilted_normal(n0, t1, t2, a, b);
    w.p1 = world_support(s1, T1, w.normal);
    w.p2 = world_support(s2, T2, lucid_vec3_neg(w.normal));
    w.distance = lucid_vec3_dot(lucid_vec3_sub(w.p2, w.p1), w.normal);
    return w;
}

static inline void store_column(double *m, int j, lucid_vec3 c) {
    m[3 * j] = c.x;
    m[3 * j + 1] = c.y;
    m[3 * j + 2] = c.z;
}

/* Central differences (step h) of the polished witness pair at T2 exp(+-h e_k). */
static inline void reference_derivatives(const lucid_shape *s1, const lucid_se3 *T1,
                                         const lucid_shape *s2, const lucid_se3 *T2, lucid_vec3 n0,
                                         double h, lucid_distance_derivatives_result *out) {
    memset(out, 0, sizeof *out);
    for (int k = 0; k < 6; ++k) {
        double xi[6] = {0, 0, 0, 0, 0, 0};
        xi[k] = h;
        lucid_se3 E = lucid_se3_exp(xi), Tp = lucid_se3_compose(T2, &E);
        xi[k] = -h;
        E = lucid_se3_exp(xi);
        lucid_se3 Tm = lucid_se3_compose(T2, &E);
        reference_witness p = polish(s1, T1, s2, &Tp, n0), m = polish(s1, T1, s2, &Tm, n0);
        double s = 0.5 / h;
        store_column(out->dp1, k, lucid_vec3_scale(lucid_vec3_sub(p.p1, m.p1), s));
        store_column(out->dp2, k, lucid_vec3_scale(lucid_vec3_sub(p.p2, m.p2), s));
        store_column(out->dnormal, k, lucid_vec3_scale(lucid_vec3_sub(p.normal, m.normal), s));
        out->ddistance[k] = (p.distance - m.distance) * s;
    }
}

#endif
