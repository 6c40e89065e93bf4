#include "runtime/math/se3.h"

#include <math.h>

#include "runtime/math/so3.h"

static void split(const double xi[6], lucid_vec3 *v, lucid_vec3 *w) {
    *v = lucid_vec3_load(xi);
    *w = lucid_vec3_load(xi + 3);
}

static void set_block(double J[36], int row, int col, const lucid_mat3 *B) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) J[(row + i) + 6 * (col + j)] = B->m[i + 3 * j];
}

/* [[A, B], [0, A]] */
static void block_upper(double J[36], const lucid_mat3 *A, const lucid_mat3 *B) {
    lucid_mat3 zero = lucid_mat3_zero();
    set_block(J, 0, 0, A);
    set_block(J, 0, 3, B);
    set_block(J, 3, 0, &zero);
    set_block(J, 3, 3, A);
}

lucid_se3 lucid_se3_exp(const double xi[6]) {
    lucid_vec3 v, w;
    split(xi, &v, &w);
    lucid_mat3 Jl = lucid_so3_jl(w);
    return lucid_se3_make(lucid_so3_exp(w), lucid_mat3_mul_vec(&Jl, v));
}

void lucid_se3_log(const lucid_se3 *T, double xi[6]) {
    lucid_vec3 w = lucid_so3_log(&T->R);
    lucid_mat3 Jl_inv = lucid_so3_jl_inv(w);
    lucid_vec3_store(lucid_mat3_mul_vec(&Jl_inv, T->t), xi);
    lucid_vec3_store(w, xi + 3);
}

/* Barfoot's coupling block Q(v, w) of the left Jacobian. */
static lucid_mat3 coupling_block(lucid_vec3 v, lucid_vec3 w) {
    double c1, c2, c3;
    lucid_so3_coupling_coefficients(w, &c1, &c2, &c3);
    lucid_mat3 P = lucid_mat3_hat(v), W = lucid_mat3_hat(w);
    lucid_mat3 WP = lucid_mat3_mul(&W, &P), PW = lucid_mat3_mul(&P, &W);
    lucid_mat3 WPW = lucid_mat3_mul(&WP, &W);
    lucid_mat3 WWP = lucid_mat3_mul(&W, &WP), PWW = lucid_mat3_mul(&PW, &W);
    lucid_mat3 WPWW = lucid_mat3_mul(&WPW, &W), WWPW = lucid_mat3_mul(&W, &WPW);
    lucid_mat3 Q;
    for (int k = 0; k < 9; ++k)
        Q.m[k] = 0.5 * P.m[k] + c1 * (WP.m[k] + PW.m[k] + WPW.m[k]) +
                 c2 * (WWP.m[k] + PWW.m[k] - 3.0 * WPW.m[k]) + c3 * (WPWW.m[k] + WWPW.m[k]);
    return Q;
}

void lucid_se3_jl(const double xi[6], double J[36]) {
    lucid_vec3 v, w;
    split(xi, &v, &w);
    lucid_mat3 A = lucid_so3_jl(w), Q = coupling_block(v, w);
    block_upper(J, &A, &Q);
}

void lucid_se3_jl_inv(const double xi[6], double J[36]) {
    lucid_vec3 v, w;
    split(xi, &v, &w);
    lucid_mat3 A = lucid_so3_jl_inv(w), Q = coupling_block(v, w);
    lucid_mat3 AQ = lucid_mat3_mul(&A, &Q);
    lucid_mat3 AQA = lucid_mat3_mul(&AQ, &A);
    lucid_mat3 B = lucid_mat3_scale(&AQA, -1.0);
    block_upper(J, &A, &B);
}

static void negate(const double xi[6], double out[6]) {
    for (int k = 0; k < 6; ++k) out[k] = -xi[k];
}

void lucid_se3_jr(const double xi[6], double J[36]) {
    double m[6];
    negate(xi, m);
    lucid_se3_jl(m, J);
}

void lucid_se3_jr_inv(const double xi[6], double J[36]) {
    double m[6];
    negate(xi, m);
    lucid_se3_jl_inv(m, J);
}

void lucid_se3_adjoint(const lucid_se3 *T, double Ad[36]) {
    lucid_mat3 tx = lucid_mat3_hat(T->t);
    lucid_mat3 txR = lucid_mat3_mul(&tx, &T->R);
    block_upper(Ad, &T->R, &txR);
}

lucid_status lucid_se3_from_quat(lucid_quat q, lucid_vec3 t, lucid_se3 *T) {
    if (!isfinite(q.w) || !isfinite(q.x) || !isfinite(q.y) || !isfinite(q.z) ||
        !lucid_vec3_isfinite(t))
        return LUCID_ERR_NONFINITE;
    if (!lucid_quat_normalize(&q)) return LUCID_ERR_ARGUMENT; /* zero */
    *T = lucid_se3_make(lucid_quat_to_mat3(q), t);
    return LUCID_OK;
}

lucid_quat lucid_se3_to_quat(const lucid_se3 *T) {
    return lucid_quat_from_mat3(&T->R);
}

lucid_status lucid_se3_from_rotation(const lucid_mat3 *R, lucid_vec3 t, double tol, lucid_se3 *T) {
    if (!lucid_mat3_isfinite(R) || !lucid_vec3_isfinite(t)) return LUCID_ERR_NONFINITE;
    if (!(lucid_so3_orthogonality_error(R) <= tol) || !(lucid_mat3_det(R) > 0.0))
        return LUCID_ERR_ARGUMENT;
    lucid_mat3 clean;
    lucid_status st = lucid_so3_project(R, &clean);
    if (st != LUCID_OK) return st;
    *T = lucid_se3_make(clean, t);
    return LUCID_OK;
}

lucid_quat lucid_se3_random_quat(lucid_rng *rng) {
    double v[4];
    lucid_rng_unit_quaternion(rng, v);
    lucid_quat q = lucid_quat_make(v[0], v[1], v[2], v[3]);
    lucid_quat_normalize(&q); /* removes the rounding of the square roots */
    return q;
}

lucid_se3 lucid_se3_random(lucid_rng *rng, double scale) {
    lucid_quat q = lucid_se3_random_quat(rng);
    double t[3];
    for (int i = 0; i < 3; ++i) t[i] = scale * (2.0 * lucid_rng_uniform(rng) - 1.0);
    return lucid_se3_make(lucid_quat_to_mat3(q), lucid_vec3_load(t));
}
