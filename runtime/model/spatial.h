/* Spatial algebra on plain double[6] (linear first) for the dynamics algorithms, all inline.
 * A placement M = (R, p) is a node frame in its parent's; motions (twists) and forces
 * (wrenches) move between the two frames by the actions below (Featherstone's X and X*).
 * 6x6 matrices are double[36], column-major. */
#ifndef LUCID_SPATIAL_H
#define LUCID_SPATIAL_H

#include "runtime/model/model_internal.h"

static inline lucid_vec3 lucid_sp_lin(const double *x) {
    return lucid_vec3_make(x[0], x[1], x[2]);
}
static inline lucid_vec3 lucid_sp_ang(const double *x) {
    return lucid_vec3_make(x[3], x[4], x[5]);
}
static inline void lucid_sp_set(double *x, lucid_vec3 lin, lucid_vec3 ang) {
    x[0] = lin.x, x[1] = lin.y, x[2] = lin.z, x[3] = ang.x, x[4] = ang.y, x[5] = ang.z;
}

/* out = M . v : (R v + p x R w, R w) (motion from child to parent coordinates) */
static inline void lucid_sp_motion_act(const lucid_se3 *M, const double *v, double *out) {
    lucid_vec3 w = lucid_mat3_mul_vec(&M->R, lucid_sp_ang(v));
    lucid_vec3 l =
        lucid_vec3_add(lucid_mat3_mul_vec(&M->R, lucid_sp_lin(v)), lucid_vec3_cross(M->t, w));
    lucid_sp_set(out, l, w);
}
/* out = M^-1 . v : (R^T (v - p x w), R^T w) */
static inline void lucid_sp_motion_act_inv(const lucid_se3 *M, const double *v, double *out) {
    lucid_vec3 w = lucid_sp_ang(v);
    lucid_vec3 l = lucid_vec3_sub(lucid_sp_lin(v), lucid_vec3_cross(M->t, w));
    lucid_sp_set(out, lucid_mat3_tmul_vec(&M->R, l), lucid_mat3_tmul_vec(&M->R, w));
}
/* out = M . f : (R f, R n + p x R f) (force from child to parent coordinates) */
static inline void lucid_sp_force_act(const lucid_se3 *M, const double *f, double *out) {
    lucid_vec3 l = lucid_mat3_mul_vec(&M->R, lucid_sp_lin(f));
    lucid_vec3 n =
        lucid_vec3_add(lucid_mat3_mul_vec(&M->R, lucid_sp_ang(f)), lucid_vec3_cross(M->t, l));
    lucid_sp_set(out, l, n);
}
/* out = M^-1 . f : (R^T f, R^T (n - p x f)) */
static inline void lucid_sp_force_act_inv(const lucid_se3 *M, const double *f, double *out) {
    lucid_vec3 l = lucid_sp_lin(f);
    lucid_vec3 n = lucid_vec3_sub(lucid_sp_ang(f), lucid_vec3_cross(M->t, l));
    lucid_sp_set(out, lucid_mat3_tmul_vec(&M->R, l), lucid_mat3_tmul_vec(&M->R, n));
}
/* out = a x b (motion cross motion): (wa x vb + va x wb, wa x wb) */
static inline void lucid_sp_cross_motion(const double *a, const double *b, double *out) {
    lucid_vec3 va = lucid_sp_lin(a), wa = lucid_sp_ang(a), vb = lucid_sp_lin(b),
               wb = lucid_sp_ang(b);
    lucid_sp_set(out, lucid_vec3_add(lucid_vec3_cross(wa, vb), lucid_vec3_cross(va, wb)),
                 lucid_vec3_cross(wa, wb));
}
/* out = v x* f (motion cross force): (w x f, w x n + v x f) */
static inline void lucid_sp_cross_force(const double *v, const double *f, double *out) {
    lucid_vec3 lv = lucid_sp_lin(v), w = lucid_sp_ang(v), lf = lucid_sp_lin(f), n = lucid_sp_ang(f);
    lucid_sp_set(out, lucid_vec3_cross(w, lf),
                 lucid_vec3_add(lucid_vec3_cross(w, n), lucid_vec3_cross(lv, lf)));
}
/* out = I . v : (m v - h x w, I w + h x v) */
static inline void lucid_sp_inertia_apply(const lucid_inertia *I, const double *v, double *out) {
    lucid_vec3 lv = lucid_sp_lin(v), w = lucid_sp_ang(v);
    lucid_sp_set(out, lucid_vec3_sub(lucid_vec3_scale(lv, I->mass), lucid_vec3_cross(I->h, w)),
                 lucid_vec3_add(lucid_mat3_mul_vec(&I->I, w), lucid_vec3_cross(I->h, lv)));
}
/* The inertia I (child frame) in the parent frame of M = (R, p):
 * (m, R h + m p, R I R^T - ([Rh]x[p]x + [p]x[Rh]x + m [p]x^2)). */
static inline lucid_inertia lucid_sp_inertia_act(const lucid_se3 *M, const lucid_inertia *I) {
    lucid_inertia out;
    lucid_vec3 Rh = lucid_mat3_mul_vec(&M->R, I->h);
    lucid_mat3 RI = lucid_mat3_mul(&M->R, &I->I);
    lucid_mat3 Rt = lucid_mat3_transpose(&M->R);
    lucid_mat3 J = lucid_mat3_mul(&RI, &Rt);
    lucid_mat3 P = lucid_mat3_hat(M->t), H = lucid_mat3_hat(Rh);
    lucid_mat3 HP = lucid_mat3_mul(&H, &P), PH = lucid_mat3_mul(&P, &H),
               PP = lucid_mat3_mul(&P, &P);
    for (int k = 0; k < 9; ++k) J.m[k] -= HP.m[k] + PH.m[k] + I->mass * PP.m[k];
    out.mass = I->mass;
    out.h = lucid_vec3_add(Rh, lucid_vec3_scale(M->t, I->mass));
    out.I = J;
    return out;
}
static inline void lucid_sp_inertia_add(lucid_inertia *a, const lucid_inertia *b) {
    a->mass += b->mass;
    a->h = lucid_vec3_add(a->h, b->h);
    a->I = lucid_mat3_add(&a->I, &b->I);
}
/* The 6x6 matrix [[m 1, -hat(h)], [hat(h), I]]. */
static inline void lucid_sp_inertia_matrix(const lucid_inertia *I, double *A) {
    for (int k = 0; k < 36; ++k) A[k] = 0.0;
    lucid_vec3 h = I->h;
    double H[9] = {0, h.z, -h.y, -h.z, 0, h.x, h.y, -h.x, 0}; /* hat(h), column-major */
    for (int i = 0; i < 3; ++i) {
        A[i + 6 * i] = I->mass;
        for (int j = 0; j < 3; ++j) {
            A[i + 6 * (j + 3)] = -H[i + 3 * j];
            A[(i + 3) + 6 * j] = H[i + 3 * j];
            A[(i + 3) + 6 * (j + 3)] = I->I.m[i + 3 * j];
        }
    }
}
/* out += M* A M^-1 for a symmetric motion-to-force matrix A in the child frame (out in the
 * parent frame). With F = [[R, 0], [P R, R]] (P = hat(p)) and B = diag(R, R) A diag(R, R)^T:
 * F A F^T = [[B11, B12 - B11 P], [., B22 + P B12 - (P B11 + B21) P]] (symmetric). */
static inline void lucid_sp_matrix_act_add(const lucid_se3 *M, const double *A, double *out) {
    lucid_mat3 A11, A12, A22;
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) {
            A11.m[r + 3 * c] = A[r + 6 * c];
            A12.m[r + 3 * c] = A[r + 6 * (c + 3)];
            A22.m[r + 3 * c] = A[(r + 3) + 6 * (c + 3)];
        }
    lucid_mat3 Rt = lucid_mat3_transpose(&M->R), T;
    T = lucid_mat3_mul(&M->R, &A11);
    lucid_mat3 B11 = lucid_mat3_mul(&T, &Rt);
    T = lucid_mat3_mul(&M->R, &A12);
    lucid_mat3 B12 = lucid_mat3_mul(&T, &Rt);
    T = lucid_mat3_mul(&M->R, &A22);
    lucid_mat3 B22 = lucid_mat3_mul(&T, &Rt);
    lucid_mat3 P = lucid_mat3_hat(M->t), B21 = lucid_mat3_transpose(&B12);
    lucid_mat3 B11P = lucid_mat3_mul(&B11, &P), PB11 = lucid_mat3_mul(&P, &B11);
    lucid_mat3 PB12 = lucid_mat3_mul(&P, &B12);
    lucid_mat3 S = lucid_mat3_add(&PB11, &B21);
    lucid_mat3 SP = lucid_mat3_mul(&S, &P);
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) {
            int k = r + 3 * c;
            double c12 = B12.m[k] - B11P.m[k];
            out[r + 6 * c] += B11.m[k];
            out[r + 6 * (c + 3)] += c12;
            out[(c + 3) + 6 * r] += c12;
            out[(r + 3) + 6 * (c + 3)] += B22.m[k] + PB12.m[k] - SP.m[k];
        }
}

/* The joint motion X_J(q) of a node (its frame relative to its zero-motion frame). */
static inline lucid_se3 lucid_joint_motion(const lucid_model_node *nd, const double *q) {
    lucid_se3 X = lucid_se3_identity();
    switch (nd->kind) {
        case LUCID_JOINT_REVOLUTE: {
            double th = q[0] - nd->ref, c = cos(th), s = sin(th);
            lucid_mat3 R = {{c, s, 0, -s, c, 0, 0, 0, 1}};
            X.R = R;
            break;
        }
        case LUCID_JOINT_PRISMATIC:
            X.t = lucid_vec3_make(0.0, 0.0, q[0] - nd->ref);
            break;
        case LUCID_JOINT_SPHERICAL: {
            lucid_quat qu = lucid_quat_make(q[0], q[1], q[2], q[3]);
            lucid_quat_normalize(&qu);
            X.R = lucid_quat_to_mat3(qu);
            break;
        }
        case LUCID_JOINT_FREE: {
            lucid_quat qu = lucid_quat_make(q[3], q[4], q[5], q[6]);
            lucid_quat_normalize(&qu);
            X.R = lucid_quat_to_mat3(qu);
            X.t = lucid_vec3_make(q[0], q[1], q[2]);
            break;
        }
        case LUCID_JOINT_PLANAR: {
            double n = hypot(q[2], q[3]);
            double c = n > 0.0 ? q[2] / n : 1.0, s = n > 0.0 ? q[3] / n : 0.0;
            lucid_mat3 R = {{c, s, 0, -s, c, 0, 0, 0, 1}};
            X.R = R;
            X.t = lucid_vec3_make(q[0], q[1], 0.0);
            break;
        }
        default:
            break;
    }
    return X;
}

#endif
