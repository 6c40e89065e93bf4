/* Separating-axis test for box pairs, in box 1's frame. */
#include "solvers/collision/box_box.h"

/* Edge pairs closer to parallel than this angle are skipped. Exactly parallel edges give no
 * new axis (D's section across them has only the face normals as edge normals); nearly
 * parallel ones give a thin face of D whose axis, e_i x c_j, is known only to ~eps / angle (the
 * entries of R12 carry eps absolutely), while skipping it changes the answer by at most
 * ~angle x size: 1e-8 balances both, ~1e-8 x the box size in the worst case. */
#define BOX_EDGE_SIN_MIN 1e-8

/* World support of a box posed by T along the world direction d. */
static lucid_vec3 box_support(const lucid_vec3 h, const lucid_se3 *T, lucid_vec3 d) {
    lucid_vec3 l = lucid_mat3_tmul_vec(&T->R, d);
    lucid_vec3 p =
        lucid_vec3_make(l.x >= 0.0 ? h.x : -h.x, l.y >= 0.0 ? h.y : -h.y, l.z >= 0.0 ? h.z : -h.z);
    return lucid_se3_act(T, p);
}

/* Candidate axis k of 15: 0-2 box 1's faces e_i, 3-5 box 2's faces c_j, 6-14 e_i x c_j (i, j)
 * = ((k - 6) / 3, (k - 6) % 3). Its unnormalised vector L in frame 1. */
static lucid_vec3 axis_vector(int k, double R[3][3]) {
    if (k < 3) return lucid_vec3_make(k == 0, k == 1, k == 2);
    if (k < 6) return lucid_vec3_make(R[0][k - 3], R[1][k - 3], R[2][k - 3]);
    int i = (k - 6) / 3, j = (k - 6) % 3, i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    double L[3];
    L[i] = 0.0;
    L[i1] = -R[i2][j];
    L[i2] = R[i1][j];
    return lucid_vec3_make(L[0], L[1], L[2]);
}

void lucid_box_box_collide(const lucid_shape *b1, const lucid_se3 *T1, const lucid_shape *b2,
                           const lucid_se3 *T2, int *hit, lucid_distance_result *res) {
    const double a[3] = {b1->u.half_extents.x, b1->u.half_extents.y, b1->u.half_extents.z};
    const double b[3] = {b2->u.half_extents.x, b2->u.half_extents.y, b2->u.half_extents.z};
    lucid_se3 T12 = lucid_se3_between(T1, T2);
    /* R[i][j] = <e_i, c_j>: column j of R12 is box 2's axis j in frame 1 (column-major m) */
    double R[3][3], A[3][3], t[3] = {T12.t.x, T12.t.y, T12.t.z};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            R[i][j] = T12.R.m[3 * j + i];
            A[i][j] = fabs(R[i][j]);
        }
    /* Along each axis L: projection p = <t, L>, radius r = r1(L) + r2(L), |L|^2 = s2. The
     * first axis with |p| > r separates (Boolean exit); otherwise the least overlap
     * (r - |p|) / |L| wins, compared without square roots: o^2 s2' < o'^2 s2. The 15 axes are
     * written out (constant indices: everything stays in registers). */
    int chosen = -1;
    double best_o = INFINITY, best_s2 = 1.0;
#define BOX_AXIS(K, P, RAD, S2)                                                                    \
    do {                                                                                           \
        double o_ = (RAD)-fabs(P), s2_ = (S2);                                                     \
        if (o_ < 0.0) {                                                                            \
            chosen = (K);                                                                          \
            goto decided;                                                                          \
        }                                                                                          \
        if (o_ * o_ * best_s2 < best_o * best_o * s2_) {                                           \
            best_o = o_;                                                                           \
            best_s2 = s2_;                                                                         \
            chosen = (K);                                                                          \
        }                                                                                          \
    } while (0)
#define BOX_FACE1(i) BOX_AXIS(i, t[i], a[i] + b[0] * A[i][0] + b[1] * A[i][1] + b[2] * A[i][2], 1.0)
#define BOX_FACE2(j)                                                                               \
    BOX_AXIS(3 + (j), t[0] * R[0][j] + t[1] * R[1][j] + t[2] * R[2][j],                            \
             b[j] + a[0] * A[0][j] + a[1] * A[1][j] + a[2] * A[2][j], 1.0)
    /* L = e_i x c_j (|L| = sin of the edges' angle): L_{i1} = -R_{i2,j}, L_{i2} = R_{i1,j};
     * <L, c_k> = +-R_{i,l} for {j, k, l} = {0, 1, 2}; i1, i2 = i + 1, i + 2 (mod 3). */
#define BOX_EDGE(i, i1, i2, j, j1, j2)                                                             \
    do {                                                                                           \
        double s2e_ = R[i1][j] * R[i1][j] + R[i2][j] * R[i2][j]; /* |L|^2, no cancellation */      \
        if (s2e_ > BOX_EDGE_SIN_MIN * BOX_EDGE_SIN_MIN)                                            \
            BOX_AXIS(6 + 3 * (i) + (j), t[i2] * R[i1][j] - t[i1] * R[i2][j],                       \
                     a[i1] * A[i2][j] + a[i2] * A[i1][j] + b[j1] * A[i][j2] + b[j2] * A[i][j1],    \
                     s2e_);                                                                        \
    } while (0)
    BOX_FACE1(0);
    BOX_FACE1(1);
    BOX_FACE1(2);
    BOX_FACE2(0);
    BOX_FACE2(1);
    BOX_FACE2(2);
    BOX_EDGE(0, 1, 2, 0, 1, 2);
    BOX_EDGE(0, 1, 2, 1, 2, 0);
    BOX_EDGE(0, 1, 2, 2, 0, 1);
    BOX_EDGE(1, 2, 0, 0, 1, 2);
    BOX_EDGE(1, 2, 0, 1, 2, 0);
    BOX_EDGE(1, 2, 0, 2, 0, 1);
    BOX_EDGE(2, 0, 1, 0, 1, 2);
    BOX_EDGE(2, 0, 1, 1, 2, 0);
    BOX_EDGE(2, 0, 1, 2, 0, 1);
#undef BOX_EDGE
#undef BOX_FACE2
#undef BOX_FACE1
#undef BOX_AXIS
decided:;
    lucid_vec3 L = lucid_vec3_normalized(axis_vector(chosen, R));
    lucid_vec3 n1 = lucid_vec3_dot(T12.t, L) >= 0.0 ? L : lucid_vec3_neg(L); /* box 1 to 2 */
    lucid_vec3 n = lucid_mat3_mul_vec(&T1->R, n1);
    /* The reported value is recomputed from the extreme points along the chosen axis, so it is
     * exactly what the plane certifies (the selection formulas above use the orthonormality of
     * R12, which costs ~eps / |L| on nearly parallel edges). */
    res->p1 = box_support(b1->u.half_extents, T1, n);
    res->p2 = box_support(b2->u.half_extents, T2, lucid_vec3_neg(n));
    double value = lucid_vec3_dot(lucid_vec3_sub(res->p2, res->p1), n);
    *hit = !(value > 0.0);
    res->distance = value;
    res->normal = n;
    res->separation = lucid_vec3_scale(n, -value);
    res->iterations = 0;
    res->epa_iterations = 0;
    res->converged = 1;
    res->penetrating = value < 0.0;
    res->gap = 0.0;
    res->simplex.rank = 0;
    res->hint1 = 0;
    res->hint2 = 0;
}
