/* The distance primitive's rule: pose tangents -> local twists -> the recorded Jacobians. */
#include "autodiff/ad_distance.h"

#include <string.h>

#include "autodiff/ad_ops.h"

enum { POSE = 12, JAC = 60, INPUT = 2 * POSE + 2 * JAC };

/* 3x3 column-major helpers on raw arrays. */
static void mat3_tmul_vec(const double *R, const double *x, double *y) {
    for (int i = 0; i < 3; ++i) y[i] = R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2];
}
static void mat3_mul_vec(const double *R, const double *x, double *y) {
    for (int i = 0; i < 3; ++i) y[i] = R[i] * x[0] + R[i + 3] * x[1] + R[i + 6] * x[2];
}

/* Local twist (R^T dt, vee(skew(R^T dR))) of the pose tangent d (12) at R. */
static void local_twist(const double *R, const double *d, double xi[6]) {
    mat3_tmul_vec(R, d + 9, xi);
    double M[9]; /* R^T dR */
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            M[i + 3 * j] =
                R[3 * i] * d[3 * j] + R[3 * i + 1] * d[3 * j + 1] + R[3 * i + 2] * d[3 * j + 2];
    xi[3] = 0.5 * (M[2 + 3 * 1] - M[1 + 3 * 2]);
    xi[4] = 0.5 * (M[0 + 3 * 2] - M[2 + 3 * 0]);
    xi[5] = 0.5 * (M[1 + 3 * 0] - M[0 + 3 * 1]);
}

/* Adjoint of local_twist: the pose cotangent (12) of a twist cotangent g at R:
 * tbar = R gv, Rbar = 0.5 R hat(gw). */
static void pose_cotangent(const double *R, const double g[6], double out[12]) {
    const double H[9] = {0, g[5], -g[4], -g[5], 0, g[3], g[4], -g[3], 0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            out[i + 3 * j] =
                0.5 * (R[i] * H[3 * j] + R[i + 3] * H[3 * j + 1] + R[i + 6] * H[3 * j + 2]);
    mat3_mul_vec(R, g, out + 9);
}

static lucid_status distance_jvp(void *ctx, long id, const double *x, int n, const double *y, int m,
                                 const double *dx, double *dy, int w) {
    (void)ctx, (void)id, (void)y;
    if (n != INPUT || m != LUCID_AD_DISTANCE_OUT) return LUCID_ERR_ARGUMENT;
    const double *J[2] = {x + 2 * POSE, x + 2 * POSE + JAC};
    for (int c = 0; c < w; ++c) {
        double out[LUCID_AD_DISTANCE_OUT] = {0};
        for (int k = 0; k < 2; ++k) {
            double d[POSE], xi[6];
            for (int r = 0; r < POSE; ++r) d[r] = dx[(size_t)(k * POSE + r) * (size_t)w + c];
            local_twist(x + k * POSE, d, xi);
            for (int r = 0; r < LUCID_AD_DISTANCE_OUT; ++r)
                for (int j = 0; j < 6; ++j) out[r] += J[k][r + 10 * j] * xi[j];
        }
        for (int r = 0; r < LUCID_AD_DISTANCE_OUT; ++r) dy[(size_t)r * (size_t)w + c] = out[r];
    }
    return LUCID_OK;
}

static lucid_status distance_vjp(void *ctx, long id, const double *x, int n, const double *y, int m,
                                 const double *wy, double *wx, int w) {
    (void)ctx, (void)id, (void)y;
    if (n != INPUT || m != LUCID_AD_DISTANCE_OUT) return LUCID_ERR_ARGUMENT;
    const double *J[2] = {x + 2 * POSE, x + 2 * POSE + JAC};
    for (int c = 0; c < w; ++c) {
        for (int k = 0; k < 2; ++k) {
            double g[6], out[POSE];
            for (int j = 0; j < 6; ++j) {
                g[j] = 0.0;
                for (int r = 0; r < LUCID_AD_DISTANCE_OUT; ++r)
                    g[j] += J[k][r + 10 * j] * wy[(size_t)r * (size_t)w + c];
            }
            pose_cotangent(x + k * POSE, g, out);
            for (int r = 0; r < POSE; ++r) wx[(size_t)(k * POSE + r) * (size_t)w + c] = out[r];
        }
        for (int r = 2 * POSE; r < INPUT; ++r) wx[(size_t)r * (size_t)w + c] = 0.0;
    }
    return LUCID_OK;
}

static const lucid_ad_primitive distance_rule = {distance_jvp, distance_vjp};

void lucid_ad_distance_t1_jacobian(const lucid_se3 *T1, const lucid_se3 *T2, const double y[10],
                                   const double J2[60], double J1[60]) {
    lucid_se3 rel = lucid_se3_between(T2, T1); /* T2^-1 T1 */
    double Ad[36];
    lucid_se3_adjoint(&rel, Ad);
    for (int r = 0; r < 10; ++r)
        for (int c = 0; c < 6; ++c) {
            double s = 0.0;
            for (int k = 0; k < 6; ++k) s -= J2[r + 10 * k] * Ad[k + 6 * c];
            J1[r + 10 * c] = s;
        }
    /* rigid part: a world point q moves by R1 v + R1 (w x R1^T (q - t1)) = R1 v - hat(q - t1) R1 w
     */
    const double *Rm = T1->R.m;
    lucid_vec3 pts[3] = {lucid_vec3_sub(lucid_vec3_load(y + 1), T1->t),
                         lucid_vec3_sub(lucid_vec3_load(y + 4), T1->t), lucid_vec3_load(y + 7)};
    for (int b = 0; b < 3; ++b) {
        int row = 1 + 3 * b, with_linear = b < 2;
        lucid_mat3 H = lucid_mat3_hat(pts[b]);
        lucid_mat3 HR = lucid_mat3_mul(&H, &T1->R);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                if (with_linear) J1[row + i + 10 * j] += Rm[i + 3 * j];
                J1[row + i + 10 * (3 + j)] -= HR.m[i + 3 * j];
            }
    }
}

lucid_status lucid_ad_distance(lucid_ad_tape *tape, lucid_ad_var T1, lucid_ad_var T2,
                               const double y[10], const double J1[60], const double J2[60],
                               lucid_ad_var *out) {
    if (lucid_ad_var_size(tape, T1) != POSE || lucid_ad_var_size(tape, T2) != POSE)
        return LUCID_ERR_ARGUMENT;
    double jac[2 * JAC];
    memcpy(jac, J1, JAC * sizeof(double));
    memcpy(jac + JAC, J2, JAC * sizeof(double));
    lucid_ad_var parts[3] = {T1, T2, {0, 0}};
    lucid_status s = lucid_ad_constant(tape, jac, 2 * JAC, &parts[2]);
    if (s != LUCID_OK) return s;
    lucid_ad_var x;
    s = lucid_ad_concat(tape, parts, 3, &x);
    if (s != LUCID_OK) return s;
    return lucid_ad_apply_primitive(tape, &distance_rule, 0, x, y, LUCID_AD_DISTANCE_OUT, out);
}
