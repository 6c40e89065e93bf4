/* The implicit-function solve of the first-order estimators (see the header for the
 * derivation). */
#include "autodiff/collision_derivatives_implicit.h"

#include <math.h>

#include "runtime/math/mat3.h"

lucid_mat3 lucid_derivatives_hessian_to_world(const lucid_mat3 *R, const lucid_mat3 *K) {
    lucid_mat3 RK = lucid_mat3_mul(R, K);
    lucid_mat3 Rt = lucid_mat3_transpose(R);
    return lucid_mat3_mul(&RK, &Rt);
}

/* P sym(K) P with P = I - n n^T, expanded (|n| = 1): S - n u^T - u n^T + (n.u) n n^T with
 * u = S n, a rank-2 update instead of two matrix products. */
static lucid_mat3 tangent_part(const lucid_mat3 *K, lucid_vec3 n) {
    double S[9];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) S[i + 3 * j] = 0.5 * (K->m[i + 3 * j] + K->m[j + 3 * i]);
    double nv[3] = {n.x, n.y, n.z}, u[3];
    for (int i = 0; i < 3; ++i) u[i] = S[i] * nv[0] + S[i + 3] * nv[1] + S[i + 6] * nv[2];
    double c = nv[0] * u[0] + nv[1] * u[1] + nv[2] * u[2];
    lucid_mat3 T;
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i)
            T.m[i + 3 * j] = S[i + 3 * j] - nv[i] * u[j] - u[i] * nv[j] + c * nv[i] * nv[j];
    return T;
}

static void store_column(double *m, int j, lucid_vec3 c) {
    m[3 * j] = c.x;
    m[3 * j + 1] = c.y;
    m[3 * j + 2] = c.z;
}

/* Column j of dS2/dxi at the fixed world argument a of shape 2's support, i.e.
 * (R2, (-hat(R2 y) + H2 hat(a)) R2) with y the local witness point and H2 the Hessian at a:
 * translating T2 moves the point with R2; rotating it by w carries the point along,
 * (R2 w) x (R2 y), and turns the local argument by -w, which the support follows through its
 * Hessian, H2 (a x R2 w). */
static lucid_vec3 support_motion(const lucid_se3 *T2, const lucid_mat3 *H2, lucid_vec3 a,
                                 lucid_vec3 offset, int j) {
    lucid_vec3 e = lucid_mat3_col(&T2->R, j % 3);
    if (j < 3) return e;
    lucid_vec3 turn = lucid_vec3_cross(e, offset);                      /* (R2 w) x (R2 y) */
    lucid_vec3 follow = lucid_mat3_mul_vec(H2, lucid_vec3_cross(a, e)); /* H2 (a x R2 w) */
    return lucid_vec3_add(turn, follow);
}

lucid_status lucid_derivatives_implicit_solve_unit(const lucid_se3 *T2, lucid_mat3 K1,
                                                   lucid_mat3 K2,
                                                   lucid_distance_derivatives_result *res) {
    if (!lucid_mat3_isfinite(&K1) || !lucid_mat3_isfinite(&K2)) return LUCID_ERR_NONFINITE;
    const lucid_distance_result *q = &res->query;
    lucid_vec3 n = q->normal;
    K1 = tangent_part(&K1, n);
    K2 = tangent_part(&K2, n);
    lucid_mat3 A = lucid_mat3_add(&K1, &K2);
    lucid_mat3 nn = lucid_mat3_outer(n, n);
    A = lucid_mat3_add(&A, &nn);
    for (int i = 0; i < 3; ++i) A.m[4 * i] += q->distance;
    lucid_mat3 Ainv;
    if (!lucid_mat3_inverse(&A, &Ainv)) return LUCID_ERR_SINGULAR;
    lucid_vec3 offset = lucid_vec3_sub(q->p2, T2->t);
    for (int j = 0; j < 6; ++j) {
        lucid_vec3 G = support_motion(T2, &K2, lucid_vec3_neg(n), offset, j);
        double dd = lucid_vec3_dot(n, G);
        lucid_vec3 dn = lucid_mat3_mul_vec(&Ainv, lucid_vec3_axpy(G, -dd, n));
        res->ddistance[j] = dd;
        store_column(res->dnormal, j, dn);
        store_column(res->dp1, j, lucid_mat3_mul_vec(&K1, dn));
        store_column(res->dp2, j, lucid_vec3_sub(G, lucid_mat3_mul_vec(&K2, dn)));
    }
    return LUCID_OK;
}

lucid_status lucid_derivatives_implicit_solve_smoothed(const lucid_se3 *T2, lucid_mat3 H1,
                                                       lucid_mat3 H2,
                                                       lucid_distance_derivatives_result *res) {
    if (!lucid_mat3_isfinite(&H1) || !lucid_mat3_isfinite(&H2)) return LUCID_ERR_NONFINITE;
    const lucid_distance_result *q = &res->query;
    if (q->distance == 0.0) return LUCID_ERR_DEGENERATE;
    lucid_vec3 n = q->normal;
    double s = q->distance > 0.0 ? 1.0 : -1.0;
    H1 = tangent_part(&H1, n);
    H2 = tangent_part(&H2, n);
    /* I + s (H1 + H2), with the projected Hessians acting on the tangent plane only. */
    lucid_mat3 A = lucid_mat3_add(&H1, &H2);
    A = lucid_mat3_scale(&A, s);
    for (int i = 0; i < 3; ++i) A.m[4 * i] += 1.0;
    lucid_mat3 Ainv;
    if (!lucid_mat3_inverse(&A, &Ainv)) return LUCID_ERR_SINGULAR;
    lucid_vec3 a2 = lucid_vec3_scale(n, -fabs(q->distance));
    lucid_vec3 offset = lucid_vec3_sub(q->p2, T2->t);
    for (int j = 0; j < 6; ++j) {
        lucid_vec3 G = support_motion(T2, &H2, a2, offset, j);
        lucid_vec3 dx = lucid_vec3_neg(lucid_mat3_mul_vec(&Ainv, G));
        lucid_vec3 tangential = lucid_vec3_axpy(dx, -lucid_vec3_dot(n, dx), n);
        res->ddistance[j] = -lucid_vec3_dot(n, dx);
        store_column(res->dnormal, j, lucid_vec3_scale(tangential, -1.0 / q->distance));
        store_column(res->dp1, j, lucid_vec3_scale(lucid_mat3_mul_vec(&H1, dx), -s));
        store_column(res->dp2, j, lucid_vec3_axpy(G, s, lucid_mat3_mul_vec(&H2, dx)));
    }
    return LUCID_OK;
}
