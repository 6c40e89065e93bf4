#include "runtime/math/so3.h"

#include <math.h>

/* Coefficient series switch over below this angle: all series below converge fast there
 * (every term ratio <= t^2/20) while the closed forms above it lose at most a few digits to
 * cancellation. */
static const double SERIES_ANGLE2 = 1.0; /* t^2 */
enum { SERIES_TERMS = 12 };

/* sum_{j>=0} (-1)^j x^j / (2j + m)!  by Horner's rule (x = t^2). */
static double alt_inv_factorial_series(double x, int m) {
    double s = 1.0;
    for (int j = SERIES_TERMS; j >= 1; --j) s = 1.0 - x * s / ((2 * j + m - 1) * (2 * j + m));
    double fact = 1.0;
    for (int k = 2; k <= m; ++k) fact *= k;
    return s / fact;
}

/* sin t / t */
static double coef_a(double t, double t2) {
    return t2 < SERIES_ANGLE2 ? alt_inv_factorial_series(t2, 1) : sin(t) / t;
}
/* (1 - cos t) / t^2, written as 2 sin^2(t/2) / t^2 to avoid cancellation */
static double coef_b(double t, double t2) {
    if (t2 < SERIES_ANGLE2) return alt_inv_factorial_series(t2, 2);
    double h = sin(0.5 * t);
    return 2.0 * h * h / t2;
}
/* (t - sin t) / t^3 */
static double coef_c(double t, double t2) {
    return t2 < SERIES_ANGLE2 ? alt_inv_factorial_series(t2, 3) : (t - sin(t)) / (t2 * t);
}
/* 1/t^2 - cot(t/2) / (2 t) = sum_n |B_2n| t^(2n-2) / (2n)!  (Bernoulli numbers B_2n) */
static double coef_e(double t, double t2) {
    if (t2 < SERIES_ANGLE2) {
        static const double c[] = {1.0 / 12.0,
                                   1.0 / 720.0,
                                   1.0 / 30240.0,
                                   1.0 / 1209600.0,
                                   1.0 / 47900160.0,
                                   691.0 / 1307674368000.0,
                                   1.0 / 74724249600.0,
                                   3617.0 / 10670622842880000.0,
                                   43867.0 / 5109094217170944000.0,
                                   174611.0 / 802857662698291200000.0};
        double s = 0.0;
        for (int k = (int)(sizeof c / sizeof c[0]) - 1; k >= 0; --k) s = c[k] + t2 * s;
        return s;
    }
    double h = 0.5 * t;
    return (1.0 - h * cos(h) / sin(h)) / t2;
}

lucid_mat3 lucid_so3_hat(lucid_vec3 w) {
    return lucid_mat3_hat(w);
}

lucid_vec3 lucid_so3_vee(const lucid_mat3 *W) {
    const double *m = W->m; /* m[i + 3j] = W(i, j) */
    return lucid_vec3_make(0.5 * (m[5] - m[7]), 0.5 * (m[6] - m[2]), 0.5 * (m[1] - m[3]));
}

/* I + a W + b W^2 */
static lucid_mat3 poly_hat(lucid_vec3 w, double a, double b) {
    lucid_mat3 W = lucid_mat3_hat(w);
    lucid_mat3 W2 = lucid_mat3_mul(&W, &W);
    lucid_mat3 out = lucid_mat3_identity();
    for (int k = 0; k < 9; ++k) out.m[k] += a * W.m[k] + b * W2.m[k];
    return out;
}

/* Huge rotation vectors (largest |component| above this) take the unit-axis forms below:
 * |w|^2 and hat(w)^2 overflow from ~1e154, while the axis forms hold for every finite w. */
static const double HUGE_COMPONENT = 1e20;

static int is_huge(lucid_vec3 w) {
    double m = lucid_vec3_max_abs(w);
    return m > HUGE_COMPONENT && isfinite(m); /* NaN and Inf keep the plain path (NaN out) */
}

/* w = t a with |a| = 1, without overflow: w times a power of two (exact) has its largest
 * component in [0.5, 1). t is +INFINITY when |w| exceeds DBL_MAX (components near it). */
static lucid_vec3 split_axis(lucid_vec3 w, double *t) {
    int e;
    frexp(lucid_vec3_max_abs(w), &e);
    lucid_vec3 scaled = lucid_vec3_scale(w, ldexp(1.0, -e));
    double n = lucid_vec3_norm(scaled);
    *t = ldexp(n, e);
    return lucid_vec3_scale(scaled, 1.0 / n);
}

/* exp for huge w: Rodrigues on the unit axis A = hat(a), I + sin t A + (1 - cos t) A^2. sin and cos
 * reduce t modulo 2 pi exactly (glibc's argument reduction is exact for every double), so
 * the result is the rotation by the exact angle |w| (rounded once to a double) about the
 * axis: orthonormal to rounding at any size. When |w| itself overflows, exp(w) is
 * exp(w / 2)^2 (an identity, w / 2 exact), whose norm is finite. */
static lucid_mat3 exp_huge(lucid_vec3 w) {
    double t;
    lucid_vec3 axis = split_axis(w, &t);
    if (isinf(t)) {
        lucid_mat3 half = exp_huge(lucid_vec3_scale(w, 0.5));
        return lucid_mat3_mul(&half, &half);
    }
    double h = sin(0.5 * t);
    return poly_hat(axis, sin(t), 2.0 * h * h);
}

/* Jl (sign +1) or Jr (sign -1) for huge w: b hat(w) = (1 - cos t) / t A and
 * c hat(w)^2 = (1 - sin t / t) A^2 on the unit axis (the quotients are 0 when t overflows). */
static lucid_mat3 jacobian_huge(lucid_vec3 w, double sign) {
    double t;
    lucid_vec3 axis = split_axis(w, &t);
    double h = sin(0.5 * t);
    double b = isinf(t) ? 0.0 : 2.0 * h * h / t, sinc = isinf(t) ? 0.0 : sin(t) / t;
    return poly_hat(axis, sign * b, 1.0 - sinc);
}

lucid_mat3 lucid_so3_exp(lucid_vec3 w) {
    if (is_huge(w)) return exp_huge(w);
    double t2 = lucid_vec3_norm2(w), t = sqrt(t2);
    return poly_hat(w, coef_a(t, t2), coef_b(t, t2));
}

lucid_mat3 lucid_so3_jr(lucid_vec3 w) {
    if (is_huge(w)) return jacobian_huge(w, -1.0);
    double t2 = lucid_vec3_norm2(w), t = sqrt(t2);
    return poly_hat(w, -coef_b(t, t2), coef_c(t, t2));
}

lucid_mat3 lucid_so3_jl(lucid_vec3 w) {
    if (is_huge(w)) return jacobian_huge(w, 1.0);
    double t2 = lucid_vec3_norm2(w), t = sqrt(t2);
    return poly_hat(w, coef_b(t, t2), coef_c(t, t2));
}

lucid_mat3 lucid_so3_jr_inv(lucid_vec3 w) {
    double t2 = lucid_vec3_norm2(w), t = sqrt(t2);
    return poly_hat(w, 0.5, coef_e(t, t2));
}

lucid_mat3 lucid_so3_jl_inv(lucid_vec3 w) {
    double t2 = lucid_vec3_norm2(w), t = sqrt(t2);
    return poly_hat(w, -0.5, coef_e(t, t2));
}

/* Unit rotation axis of R for angles near pi, from R + R^T = 2 cos(t) I + 2 (1 - cos t) a a^T:
 * the column of a a^T with the largest diagonal entry is a * a_k, with a_k^2 >= 1/3. */
static lucid_vec3 axis_from_symmetric_part(const lucid_mat3 *R, double cos_t) {
    lucid_mat3 Rt = lucid_mat3_transpose(R);
    lucid_mat3 S = lucid_mat3_add(R, &Rt);
    double inv = 1.0 / (1.0 - cos_t);
    lucid_mat3 aat;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            aat.m[i + 3 * j] = (0.5 * S.m[i + 3 * j] - (i == j ? cos_t : 0.0)) * inv;
    int k = 0;
    if (aat.m[4] > aat.m[0]) k = 1;
    if (aat.m[8] > aat.m[4 * k]) k = 2;
    return lucid_vec3_normalized(lucid_mat3_col(&aat, k));
}

lucid_vec3 lucid_so3_log(const lucid_mat3 *R) {
    /* sin(t) a from the skew part, cos(t) from the trace; atan2 gives t in [0, pi] accurately
     * over the whole range. */
    lucid_vec3 sin_axis = lucid_so3_vee(R);
    double sin_t = lucid_vec3_norm(sin_axis);
    double cos_t = 0.5 * (lucid_mat3_trace(R) - 1.0);
    double t = atan2(sin_t, cos_t);
    if (cos_t > -0.9) {
        /* sin t >= 0.43 or t small: w = t / sin(t) * sin_axis, with the series near 0. */
        double t2 = t * t;
        double scale = t2 < SERIES_ANGLE2 ? 1.0 / coef_a(t, t2) : t / sin_t;
        return lucid_vec3_scale(sin_axis, scale);
    }
    /* Near pi the skew part vanishes: axis from the symmetric part, sign from the skew part. */
    lucid_vec3 a = axis_from_symmetric_part(R, cos_t);
    if (lucid_vec3_dot(a, sin_axis) < 0.0) a = lucid_vec3_neg(a);
    return lucid_vec3_scale(a, t);
}

double lucid_so3_orthogonality_error(const lucid_mat3 *R) {
    lucid_mat3 RtR = lucid_mat3_tmul(R, R);
    double sum = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double d = RtR.m[i + 3 * j] - (i == j ? 1.0 : 0.0);
            sum += d * d;
        }
    return sqrt(sum);
}

static double frobenius(const lucid_mat3 *A) {
    double s = 0.0;
    for (int k = 0; k < 9; ++k) s += A->m[k] * A->m[k];
    return sqrt(s);
}

/* One step of the polar iteration X <- (g X + X^-T / g) / 2; returns 0 if X is singular. */
static int polar_step(lucid_mat3 *X, int scaled) {
    lucid_mat3 Xinv;
    if (!lucid_mat3_inverse(X, &Xinv)) return 0;
    lucid_mat3 XinvT = lucid_mat3_transpose(&Xinv);
    /* Frobenius-norm scaling (Higham) gives fast convergence even far from orthogonal. */
    double g = scaled ? sqrt(frobenius(&Xinv) / frobenius(X)) : 1.0;
    for (int k = 0; k < 9; ++k) X->m[k] = 0.5 * (g * X->m[k] + XinvT.m[k] / g);
    return 1;
}

lucid_status lucid_so3_project(const lucid_mat3 *M, lucid_mat3 *R) {
    if (!lucid_mat3_isfinite(M)) return LUCID_ERR_NONFINITE;
    lucid_mat3 X = *M, unused;
    if (!lucid_mat3_inverse(&X, &unused)) return LUCID_ERR_SINGULAR;
    if (!(lucid_mat3_det(&X) > 0.0)) return LUCID_ERR_ARGUMENT;
    for (int iter = 0; iter < 100; ++iter) {
        lucid_mat3 prev = X;
        if (!polar_step(&X, 1)) return LUCID_ERR_SINGULAR;
        lucid_mat3 diff = lucid_mat3_sub(&X, &prev);
        if (frobenius(&diff) <= 1e-10) {
            /* Quadratic convergence: two plain steps reach machine precision. */
            polar_step(&X, 0);
            polar_step(&X, 0);
            *R = X;
            return LUCID_OK;
        }
    }
    return LUCID_ERR_NO_CONVERGENCE;
}

/* sum_{j>=0} (-1)^j (j + 1) x^j / (2j + 5)!, the series of c3 */
static double c3_series(double x) {
    double coef[SERIES_TERMS + 1];
    double fact = 120.0; /* 5! */
    for (int j = 0; j <= SERIES_TERMS; ++j) {
        coef[j] = (j + 1) / fact;
        fact *= (2 * j + 6) * (2 * j + 7);
    }
    double s = 0.0;
    for (int j = SERIES_TERMS; j >= 0; --j) s = coef[j] - x * s;
    return s;
}

void lucid_so3_coupling_coefficients(lucid_vec3 w, double *c1, double *c2, double *c3) {
    double t2 = lucid_vec3_norm2(w), t = sqrt(t2);
    *c1 = coef_c(t, t2);
    if (t2 < SERIES_ANGLE2) {
        *c2 = alt_inv_factorial_series(t2, 4);
        *c3 = c3_series(t2);
    } else {
        *c2 = (cos(t) - 1.0 + 0.5 * t2) / (t2 * t2);
        *c3 = (2.0 * t - 3.0 * sin(t) + t * cos(t)) / (2.0 * t2 * t2 * t);
    }
}
