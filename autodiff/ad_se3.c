/* SE(3) primitives: values through runtime/math/se3, derivative rules per block column. */
#include "autodiff/ad_se3.h"

#include <string.h>

#include "autodiff/ad_ops.h"
#include "runtime/math/so3.h"

void lucid_ad_se3_pack(const lucid_se3 *T, double out[12]) {
    memcpy(out, T->R.m, 9 * sizeof(double));
    out[9] = T->t.x, out[10] = T->t.y, out[11] = T->t.z;
}

lucid_se3 lucid_ad_se3_unpack(const double in[12]) {
    lucid_se3 T;
    memcpy(T.R.m, in, 9 * sizeof(double));
    T.t = lucid_vec3_make(in[9], in[10], in[11]);
    return T;
}

/* Column c of a k x w block into / out of a contiguous k-vector. */
static void get_col(const double *block, int k, int w, int c, double *out) {
    for (int r = 0; r < k; ++r) out[r] = block[(size_t)r * (size_t)w + (size_t)c];
}
static void put_col(double *block, int k, int w, int c, const double *in) {
    for (int r = 0; r < k; ++r) block[(size_t)r * (size_t)w + (size_t)c] = in[r];
}

/* 3x3 column-major helpers on raw arrays: C = A B, C = A^T B, C = A B^T. */
static void mul3(const double *A, const double *B, double *C, int ta, int tb) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0.0;
            for (int k = 0; k < 3; ++k)
                s += (ta ? A[k + 3 * i] : A[i + 3 * k]) * (tb ? B[j + 3 * k] : B[k + 3 * j]);
            C[i + 3 * j] = s;
        }
}
static void mulv3(const double *A, const double *x, double *y, int ta) {
    for (int i = 0; i < 3; ++i)
        y[i] = ta ? A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2]
                  : A[i] * x[0] + A[i + 3] * x[1] + A[i + 6] * x[2];
}
static void hat3(const double *w, double *H) {
    const double h[9] = {0, w[2], -w[1], -w[2], 0, w[0], w[1], -w[0], 0};
    memcpy(H, h, sizeof h);
}
/* (M32 - M23, M13 - M31, M21 - M12): <M, hat(a)> = a . this. */
static void skew_pairing(const double *M, double *out) {
    out[0] = M[2 + 3 * 1] - M[1 + 3 * 2];
    out[1] = M[0 + 3 * 2] - M[2 + 3 * 0];
    out[2] = M[1 + 3 * 0] - M[0 + 3 * 1];
}
/* y = J x (transpose: J^T x) for a 6x6 column-major J. */
static void mul6(const double *J, const double *x, double *y, int transpose) {
    for (int i = 0; i < 6; ++i) {
        double s = 0.0;
        for (int k = 0; k < 6; ++k) s += (transpose ? J[k + 6 * i] : J[i + 6 * k]) * x[k];
        y[i] = s;
    }
}

/* ---- exp ---------------------------------------------------------------------------- */

static lucid_status exp_jvp(void *ctx, long id, const double *x, int n, const double *y, int m,
                            const double *dx, double *dy, int w) {
    (void)ctx, (void)id, (void)n, (void)m;
    double Jr[36], d[6], e[6], out[12];
    lucid_se3_jr(x, Jr);
    for (int c = 0; c < w; ++c) {
        get_col(dx, 6, w, c, d);
        mul6(Jr, d, e, 0);
        double H[9];
        hat3(e + 3, H);
        mul3(y, H, out, 0, 0);   /* dR = R hat(w') */
        mulv3(y, e, out + 9, 0); /* dt = R v' */
        put_col(dy, 12, w, c, out);
    }
    return LUCID_OK;
}

static lucid_status exp_vjp(void *ctx, long id, const double *x, int n, const double *y, int m,
                            const double *wy, double *wx, int w) {
    (void)ctx, (void)id, (void)n, (void)m;
    double Jr[36], bar[12], g[6], M[9], out[6];
    lucid_se3_jr(x, Jr);
    for (int c = 0; c < w; ++c) {
        get_col(wy, 12, w, c, bar);
        mulv3(y, bar + 9, g, 1); /* v' gets R^T tbar */
        mul3(y, bar, M, 1, 0);   /* w' gets the skew pairing of R^T Rbar */
        skew_pairing(M, g + 3);
        mul6(Jr, g, out, 1);
        put_col(wx, 6, w, c, out);
    }
    return LUCID_OK;
}

/* ---- compose ------------------------------------------------------------------------ */

static lucid_status compose_jvp(void *ctx, long id, const double *x, int n, const double *y, int m,
                                const double *dx, double *dy, int w) {
    (void)ctx, (void)id, (void)n, (void)y, (void)m;
    const double *A = x, *B = x + 12;
    double d[24], out[12], tmp[9], v[3];
    for (int c = 0; c < w; ++c) {
        get_col(dx, 24, w, c, d);
        mul3(d, B, out, 0, 0); /* dRA RB + RA dRB */
        mul3(A, d + 12, tmp, 0, 0);
        for (int k = 0; k < 9; ++k) out[k] += tmp[k];
        mulv3(d, B + 9, out + 9, 0); /* dRA tB + RA dtB + dtA */
        mulv3(A, d + 21, v, 0);
        for (int k = 0; k < 3; ++k) out[9 + k] += v[k] + d[9 + k];
        put_col(dy, 12, w, c, out);
    }
    return LUCID_OK;
}

static lucid_status compose_vjp(void *ctx, long id, const double *x, int n, const double *y, int m,
                                const double *wy, double *wx, int w) {
    (void)ctx, (void)id, (void)n, (void)y, (void)m;
    const double *A = x, *B = x + 12;
    double bar[12], out[24];
    for (int c = 0; c < w; ++c) {
        get_col(wy, 12, w, c, bar);
        mul3(bar, B, out, 0, 1); /* RAbar = Rbar RB^T + tbar tB^T */
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) out[i + 3 * j] += bar[9 + i] * B[9 + j];
        memcpy(out + 9, bar + 9, 3 * sizeof(double)); /* tAbar = tbar */
        mul3(A, bar, out + 12, 1, 0);                 /* RBbar = RA^T Rbar */
        mulv3(A, bar + 9, out + 21, 1);               /* tBbar = RA^T tbar */
        put_col(wx, 24, w, c, out);
    }
    return LUCID_OK;
}

/* ---- act ---------------------------------------------------------------------------- */

static lucid_status act_jvp(void *ctx, long id, const double *x, int n, const double *y, int m,
                            const double *dx, double *dy, int w) {
    (void)ctx, (void)id, (void)n, (void)y, (void)m;
    const double *R = x, *p = x + 12;
    double d[15], out[3], v[3];
    for (int c = 0; c < w; ++c) {
        get_col(dx, 15, w, c, d);
        mulv3(d, p, out, 0);
        mulv3(R, d + 12, v, 0);
        for (int k = 0; k < 3; ++k) out[k] += v[k] + d[9 + k];
        put_col(dy, 3, w, c, out);
    }
    return LUCID_OK;
}

static lucid_status act_vjp(void *ctx, long id, const double *x, int n, const double *y, int m,
                            const double *wy, double *wx, int w) {
    (void)ctx, (void)id, (void)n, (void)y, (void)m;
    const double *R = x, *p = x + 12;
    double bar[3], out[15];
    for (int c = 0; c < w; ++c) {
        get_col(wy, 3, w, c, bar);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) out[i + 3 * j] = bar[i] * p[j]; /* Rbar = ybar p^T */
        memcpy(out + 9, bar, 3 * sizeof(double));
        mulv3(R, bar, out + 12, 1);
        put_col(wx, 15, w, c, out);
    }
    return LUCID_OK;
}

/* ---- log ---------------------------------------------------------------------------- */

static lucid_status log_jvp(void *ctx, long id, const double *x, int n, const double *y, int m,
                            const double *dx, double *dy, int w) {
    (void)ctx, (void)id, (void)n, (void)m;
    double Ji[36], d[12], M[9], e[6], out[6];
    lucid_se3_jr_inv(y, Ji);
    for (int c = 0; c < w; ++c) {
        get_col(dx, 12, w, c, d);
        mulv3(x, d + 9, e, 1); /* v' = R^T dt */
        mul3(x, d, M, 1, 0);   /* w' = vee(skew(R^T dR)) */
        skew_pairing(M, e + 3);
        for (int k = 3; k < 6; ++k) e[k] *= 0.5;
        mul6(Ji, e, out, 0);
        put_col(dy, 6, w, c, out);
    }
    return LUCID_OK;
}

static lucid_status log_vjp(void *ctx, long id, const double *x, int n, const double *y, int m,
                            const double *wy, double *wx, int w) {
    (void)ctx, (void)id, (void)n, (void)m;
    double Ji[36], bar[6], g[6], H[9], out[12];
    lucid_se3_jr_inv(y, Ji);
    for (int c = 0; c < w; ++c) {
        get_col(wy, 6, w, c, bar);
        mul6(Ji, bar, g, 1);
        hat3(g + 3, H);
        mul3(x, H, out, 0, 0); /* Rbar = 0.5 R hat(gw) */
        for (int k = 0; k < 9; ++k) out[k] *= 0.5;
        mulv3(x, g, out + 9, 0); /* tbar = R gv */
        put_col(wx, 12, w, c, out);
    }
    return LUCID_OK;
}

static const lucid_ad_primitive exp_prim = {exp_jvp, exp_vjp};
static const lucid_ad_primitive compose_prim = {compose_jvp, compose_vjp};
static const lucid_ad_primitive act_prim = {act_jvp, act_vjp};
static const lucid_ad_primitive log_prim = {log_jvp, log_vjp};

static int has_size(const lucid_ad_tape *tape, lucid_ad_var v, int k) {
    return lucid_ad_var_is_live(tape, v) && lucid_ad_var_size(tape, v) == k;
}

lucid_status lucid_ad_se3_exp(lucid_ad_tape *tape, lucid_ad_var xi, lucid_ad_var *T) {
    if (!has_size(tape, xi, 6)) return LUCID_ERR_ARGUMENT;
    double y[12];
    lucid_se3 E = lucid_se3_exp(lucid_ad_var_values(tape, xi));
    lucid_ad_se3_pack(&E, y);
    return lucid_ad_apply_primitive(tape, &exp_prim, 0, xi, y, 12, T);
}

/* Records the primitive on the concatenation (a, b). */
static lucid_status binary_primitive(lucid_ad_tape *tape, const lucid_ad_primitive *prim,
                                     lucid_ad_var a, lucid_ad_var b, const double *y, int m,
                                     lucid_ad_var *out) {
    lucid_ad_var parts[2] = {a, b}, joined;
    lucid_status s = lucid_ad_concat(tape, parts, 2, &joined);
    return s == LUCID_OK ? lucid_ad_apply_primitive(tape, prim, 0, joined, y, m, out) : s;
}

lucid_status lucid_ad_se3_compose(lucid_ad_tape *tape, lucid_ad_var A, lucid_ad_var B,
                                  lucid_ad_var *out) {
    if (!has_size(tape, A, 12) || !has_size(tape, B, 12)) return LUCID_ERR_ARGUMENT;
    lucid_se3 a = lucid_ad_se3_unpack(lucid_ad_var_values(tape, A));
    lucid_se3 b = lucid_ad_se3_unpack(lucid_ad_var_values(tape, B));
    lucid_se3 c = lucid_se3_compose(&a, &b);
    double y[12];
    lucid_ad_se3_pack(&c, y);
    return binary_primitive(tape, &compose_prim, A, B, y, 12, out);
}

lucid_status lucid_ad_se3_act(lucid_ad_tape *tape, lucid_ad_var T, lucid_ad_var p,
                              lucid_ad_var *out) {
    if (!has_size(tape, T, 12) || !has_size(tape, p, 3)) return LUCID_ERR_ARGUMENT;
    lucid_se3 t = lucid_ad_se3_unpack(lucid_ad_var_values(tape, T));
    lucid_vec3 q = lucid_vec3_load(lucid_ad_var_values(tape, p));
    lucid_vec3 r = lucid_se3_act(&t, q);
    double y[3] = {r.x, r.y, r.z};
    return binary_primitive(tape, &act_prim, T, p, y, 3, out);
}

lucid_status lucid_ad_se3_log(lucid_ad_tape *tape, lucid_ad_var T, lucid_ad_var *xi) {
    if (!has_size(tape, T, 12)) return LUCID_ERR_ARGUMENT;
    lucid_se3 t = lucid_ad_se3_unpack(lucid_ad_var_values(tape, T));
    double y[6];
    lucid_se3_log(&t, y);
    return lucid_ad_apply_primitive(tape, &log_prim, 0, T, y, 6, xi);
}
