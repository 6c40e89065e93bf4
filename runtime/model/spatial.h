/* Spatial algebra on plain double[6] (linear first) for the dynamics algorithms, all inline.
 * A placement M = (R, p) is a node frame in its parent's; motions (twists) and forces
 * (wrenches) move between the two frames by the actions below (Featherstone's X and X*).
 * 6x6 matrices are double[36], column-major. */
#ifndef LUCID_SPATIAL_H
#define LUCID_SPATIAL_H

#include <math.h>

#include "runtime/math/se3.h"

/* A rigid-body inertia in some frame: mass, first moment h = mass * com, and the rotational
 * inertia about the frame's origin. Composite inertias (CRBA) stay of this form. */
typedef struct lucid_inertia {
    double mass;
    lucid_vec3 h;
    lucid_mat3 I;
} lucid_inertia;

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
 * (m, R h + m p, R I R^T - ([Rh]x[p]x + [p]x[Rh]x + m [p]x^2)); with [a]x[b]x = b a^T - (a.b) 1
 * the bracket is p g^T + g p^T - 2 (g.p) 1 + m (p p^T - (p.p) 1), g = R h (R I R^T symmetric:
 * its upper triangle only). */
static inline lucid_inertia lucid_sp_inertia_act(const lucid_se3 *M, const lucid_inertia *I) {
    lucid_inertia out;
    const double *R = M->R.m, *A = I->I.m;
    lucid_vec3 g = lucid_mat3_mul_vec(&M->R, I->h);
    double T[9], J[9], p[3] = {M->t.x, M->t.y, M->t.z}, gv[3] = {g.x, g.y, g.z}, m = I->mass;
    for (int c = 0; c < 3; ++c) /* T = R A */
        for (int r = 0; r < 3; ++r)
            T[r + 3 * c] = R[r] * A[3 * c] + R[r + 3] * A[3 * c + 1] + R[r + 6] * A[3 * c + 2];
    double gp = 2.0 * (gv[0] * p[0] + gv[1] * p[1] + gv[2] * p[2]),
           pp = m * (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    for (int c = 0; c < 3; ++c) /* J = T R^T - bracket, upper triangle then mirrored */
        for (int r = 0; r <= c; ++r) {
            double x = T[r] * R[c] + T[r + 3] * R[c + 3] + T[r + 6] * R[c + 6];
            x -= p[r] * gv[c] + gv[r] * p[c] + m * p[r] * p[c];
            if (r == c) x += gp + pp;
            J[r + 3 * c] = J[c + 3 * r] = x;
        }
    out.mass = m;
    out.h = lucid_vec3_add(g, lucid_vec3_scale(M->t, m));
    for (int k = 0; k < 9; ++k) out.I.m[k] = J[k];
    return out;
}
static inline void lucid_sp_inertia_add(lucid_inertia *a, const lucid_inertia *b) {
    a->mass += b->mass;
    a->h = lucid_vec3_add(a->h, b->h);
    a->I = lucid_mat3_add(&a->I, &b->I);
}
/* The 6x6 matrix [[m 1, -hat(h)], [hat(h), I]] (every entry written: no zeroing pass). */
static inline void lucid_sp_inertia_matrix(const lucid_inertia *I, double *A) {
    double m = I->mass, x = I->h.x, y = I->h.y, z = I->h.z;
    const double col[6][6] = {{m, 0, 0, 0, z, -y}, {0, m, 0, -z, 0, x}, {0, 0, m, y, -x, 0},
                              {0, -z, y, 0, 0, 0}, {z, 0, -x, 0, 0, 0}, {-y, x, 0, 0, 0, 0}};
    for (int c = 0; c < 6; ++c)
        for (int r = 0; r < 6; ++r) A[r + 6 * c] = col[c][r];
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) A[(r + 3) + 6 * (c + 3)] = I->I.m[r + 3 * c];
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

/* J = Ad(X) e_ax: the world column of a dof whose motion subspace is the unit vector e_ax in
 * the frame of the node placed at X. */
static inline void lucid_sp_world_column(const lucid_se3 *X, int ax, double *J) {
    const double *R = X->R.m;
    if (ax < 3) {
        J[0] = R[3 * ax], J[1] = R[3 * ax + 1], J[2] = R[3 * ax + 2], J[3] = J[4] = J[5] = 0.0;
    } else {
        lucid_vec3 w = lucid_vec3_make(R[3 * (ax - 3)], R[3 * (ax - 3) + 1], R[3 * (ax - 3) + 2]);
        lucid_sp_set(J, lucid_vec3_cross(X->t, w), w);
    }
}

#endif
