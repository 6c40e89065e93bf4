/* Analytic derivatives of the inverse and forward dynamics in the tangent space of q
 * (dynamics.h), Carpentier & Mansard's algorithm (RSS 2018; Pinocchio's
 * computeRNEADerivatives / computeABADerivatives): one forward and one backward pass in the
 * world frame, O(sum of dof depths) spatial operations for all nv columns at once.
 *
 * World-frame Newton-Euler: with J_l = Ad(oM_i) S_l the world columns of node i (parent p),
 *   ov_i = ov_p + vJ,  oa_i = oa_p + aJ + ov_p x vJ  (vJ = sum J_l qd_l, aJ = sum J_l qdd_l,
 *   oa_world = -g),  of_i = oI_i oa_i + ov_i x* oI_i ov_i,  oF_i = of_i + sum over children,
 *   tau_l = J_l . oF_i + armature_l a_l.
 * Moving q_k (k in node j) turns the subtree of j rigidly by exp(t J_k); J_l . F is invariant
 * under a rigid motion of both, so only the non-rigid parts remain: the subtree's velocities
 * change by dVdq_k = ov_p x J_k on top of the rigid motion, its accelerations by
 * dAdq_k = oa_p x J_k + ov_p x dVdq_k plus dVdq_k x ov_b on each body b. With
 *   B_b = ov_b x* oI_b - oI_b ov_b x + H(oI_b ov_b)   (H(h) x = x x* h; 12 numbers, see
 *   bias_matrix)
 * a body's wrench changes by oI_b dAdq_k + B_b dVdq_k, and summed over node i's subtree by
 * Yc_i dAdq_k + B_i dVdq_k (Yc_i, B_i: the subtree sums of oI_b and B_b). Likewise changing
 * qd_k changes the subtree's accelerations by dAdv_k = (ov_j + ov_p) x J_k plus J_k x ov_b,
 * its wrenches by Yc_i dAdv_k + B_i J_k. Hence, for l in node i and k in i or an ancestor:
 *   dtau_l/dq_k = J_l . (Yc_i dAdq_k + B_i dVdq_k),  dtau_l/dqd_k = J_l . (Yc_i dAdv_k + B_i J_k),
 *   M_lk = J_l . Yc_i J_k,
 * and for k in node i and l in an ancestor (J_l does not move, oF_i turns with the subtree):
 *   dtau_l/dq_k = J_l . (Yc_i dAdq_k + B_i dVdq_k + J_k x* oF_i),
 *   dtau_l/dqd_k = J_l . (Yc_i dAdv_k + B_i J_k).
 * ABA: da/dq = -M^-1 dtau/dq, da/dqd = -M^-1 dtau/dqd at a = ABA(q, v, tau), da/dtau = M^-1,
 * with M from the same pass, its LTDL factors, and the three nv x nv right-hand sides solved
 * together row by row (each LTDL step a contiguous row operation; dtau/dq and dtau/dqd
 * interleaved column by column), L^-T only on the columns where the rows can be nonzero (the
 * branch sparsity above), M^-1 only from the diagonal on (it is symmetric). */
#include <string.h>

#include "runtime/model/dynamics.h"
#include "runtime/model/model_internal.h"
#include "runtime/model/spatial.h"

static inline double dot6(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* B = X + X^T + H(p) with X = ov x* I (I's 6x6 [[m 1, -hat(h)], [hat(h), I_o]]), H(p) x =
 * x x* p and p = I ov the momentum: the derivative of the wrench I a + ov x* I ov along a
 * velocity change dv (with a changing by dv x ov) is B dv. Written out by blocks (hat(a) hat(b)
 * = b a^T - (a.b) 1, and hat(h) hat(w) - hat(w) hat(h) = hat(h x w)), B's first three columns
 * vanish: B = [[0, -2 hat(p_lin)], [0, C]], C = 2 (v.h) 1 - h v^T - v h^T + S + S^T - hat(p_ang)
 * with S = hat(w) I_o. Stored as 12 numbers (p_lin, then C column-major); subtree sums stay so. */
static void bias_matrix(const lucid_inertia *I, const double *ov, const double *p, double *B) {
    lucid_vec3 v = lucid_sp_lin(ov), w = lucid_sp_ang(ov), h = I->h;
    double vh = 2.0 * lucid_vec3_dot(v, h), S[9], hv[3] = {h.x, h.y, h.z}, vv[3] = {v.x, v.y, v.z};
    for (int c = 0; c < 3; ++c) {
        lucid_vec3 col = lucid_vec3_cross(
            w, lucid_vec3_make(I->I.m[3 * c], I->I.m[3 * c + 1], I->I.m[3 * c + 2]));
        S[3 * c] = col.x, S[3 * c + 1] = col.y, S[3 * c + 2] = col.z;
    }
    const double P[9] = {0, p[5], -p[4], -p[5], 0, p[3], p[4], -p[3], 0}; /* hat(p_ang) */
    B[0] = p[0], B[1] = p[1], B[2] = p[2];
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
            B[3 + r + 3 * c] = S[r + 3 * c] + S[c + 3 * r] - hv[r] * vv[c] - vv[r] * hv[c] -
                               P[r + 3 * c] + (r == c ? vh : 0.0);
}

/* out = B x: (-2 p_lin x x_ang, C x_ang) */
static inline void bias_apply(const double *B, const double *x, double *out) {
    lucid_vec3 pl = lucid_vec3_make(B[0], B[1], B[2]), xa = lucid_sp_ang(x);
    const double *C = B + 3;
    lucid_sp_set(out, lucid_vec3_scale(lucid_vec3_cross(pl, xa), -2.0),
                 lucid_vec3_make(C[0] * xa.x + C[3] * xa.y + C[6] * xa.z,
                                 C[1] * xa.x + C[4] * xa.y + C[7] * xa.z,
                                 C[2] * xa.x + C[5] * xa.y + C[8] * xa.z));
}
/* out = B^T y: (0, 2 p_lin x y_lin + C^T y_ang) */
static inline void bias_tapply(const double *B, const double *y, double *out) {
    lucid_vec3 pl = lucid_vec3_make(B[0], B[1], B[2]), ya = lucid_sp_ang(y);
    lucid_vec3 t = lucid_vec3_scale(lucid_vec3_cross(pl, lucid_sp_lin(y)), 2.0);
    const double *C = B + 3;
    lucid_sp_set(out, lucid_vec3_make(0.0, 0.0, 0.0),
                 lucid_vec3_make(t.x + C[0] * ya.x + C[1] * ya.y + C[2] * ya.z,
                                 t.y + C[3] * ya.x + C[4] * ya.y + C[5] * ya.z,
                                 t.z + C[6] * ya.x + C[7] * ya.y + C[8] * ya.z));
}

/* The forward pass after lucid_model_forward_kinematics: oJ, ov, oa, oI, the node wrenches in
 * oF, dVdq, dAdq, dAdv, and the node's own oYc = oI and oB = B. a = NULL: zero accelerations
 * (add_accelerations adds them later). */
static void forward_pass(const lucid_model *m, lucid_model_data *d, const double *v,
                         const double *a) {
    const double a0[6] = {-m->gravity.x, -m->gravity.y, -m->gravity.z, 0.0, 0.0, 0.0};
    const double zero[6] = {0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        const double *vp = nd->parent < 0 ? zero : d->ov + 6 * nd->parent;
        const double *ap = nd->parent < 0 ? a0 : d->oa + 6 * nd->parent;
        double *ov = d->ov + 6 * i, *oa = d->oa + 6 * i, *of = d->oF + 6 * i;
        double vJ[6] = {0, 0, 0, 0, 0, 0}, aJ[6] = {0, 0, 0, 0, 0, 0}, t[6], h[6];
        for (size_t c = 0; c < nd->nv; ++c) {
            size_t l = nd->idx_v + c;
            double *J = d->oJ + 6 * l;
            lucid_sp_world_column(&d->oMi[i], m->dof_axis[l], J);
            double al = a ? a[l] : 0.0;
            for (int r = 0; r < 6; ++r) vJ[r] += v[l] * J[r], aJ[r] += al * J[r];
        }
        lucid_sp_cross_motion(vp, vJ, t);
        for (int r = 0; r < 6; ++r) ov[r] = vp[r] + vJ[r], oa[r] = ap[r] + aJ[r] + t[r];
        lucid_inertia *oI = &d->oI[i];
        *oI = lucid_sp_inertia_act(&d->oMi[i], &nd->inertia);
        d->oYc[i] = *oI;
        lucid_sp_inertia_apply(oI, ov, h);
        lucid_sp_inertia_apply(oI, oa, of);
        lucid_sp_cross_force(ov, h, t);
        for (int r = 0; r < 6; ++r) of[r] += t[r];
        bias_matrix(oI, ov, h, d->oB + 12 * i);
        double vs[6];
        for (int r = 0; r < 6; ++r) vs[r] = ov[r] + vp[r];
        for (size_t c = 0; c < nd->nv; ++c) {
            size_t l = nd->idx_v + c;
            const double *J = d->oJ + 6 * l;
            double *dV = d->dVdq + 6 * l, *dA = d->dAdq + 6 * l;
            lucid_sp_cross_motion(vp, J, dV);
            lucid_sp_cross_motion(ap, J, dA);
            lucid_sp_cross_motion(vp, dV, t);
            for (int r = 0; r < 6; ++r) dA[r] += t[r];
            lucid_sp_cross_motion(vs, J, d->dAdv + 6 * l);
        }
    }
}

/* After forward_pass(a = NULL): the accelerations' share aJ_i = aJ_p + sum J_l a_l (oa_i +=
 * aJ_i, dAdq_l += aJ_p x J_l), and the node wrenches it adds, oI_i aJ_i, into ext. */
static void add_accelerations(const lucid_model *m, lucid_model_data *d, const double *a,
                              double *aJ, double *ext) {
    const double zero[6] = {0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        const double *ap = nd->parent < 0 ? zero : aJ + 6 * nd->parent;
        double *ai = aJ + 6 * i, t[6];
        for (int r = 0; r < 6; ++r) ai[r] = ap[r];
        for (size_t c = 0; c < nd->nv; ++c) {
            size_t l = nd->idx_v + c;
            const double *J = d->oJ + 6 * l;
            lucid_sp_cross_motion(ap, J, t);
            for (int r = 0; r < 6; ++r) d->dAdq[6 * l + r] += t[r], ai[r] += a[l] * J[r];
        }
        for (int r = 0; r < 6; ++r) d->oa[6 * i + r] += ai[r];
        lucid_sp_inertia_apply(&d->oI[i], ai, ext + 6 * i);
    }
}

/* What the backward pass does: with sums, it forms the subtree sums oYc, oB, oF (else they
 * are formed already, and ext, when not NULL, holds node wrenches whose subtree sums it adds to
 * oF); with M, it writes M (nv x nv column-major, zeroed by the caller); with b, b_l =
 * J_l . oF_i; with dq and dv, entry (l, k) of dtau/dq at dq[l * rs + k * cs], of dtau/dqd at
 * dv[l * rs + k * cs]. */
typedef struct pass_layout {
    int sums;
    double *ext, *M, *b, *dq, *dv;
    size_t rs, cs;
} pass_layout;

/* Two doubles on one SSE2 / NEON lane pair (GCC and Clang vector extension): the compilers do
 * not pair the two sums of dot_pairs by themselves. */
typedef double v2 __attribute__((vector_size(16)));

/* (sum_r x_r p_2r, sum_r x_r p_2r+1), r < n: two dot products sharing x, p interleaved (two
 * partial sums, for a shorter dependency chain) */
static inline v2 dot_pairs(const double *x, const double *p, int n) {
    v2 s[2] = {{0.0, 0.0}, {0.0, 0.0}}, t;
    for (int r = 0; r < n; ++r) {
        memcpy(&t, p + 2 * r, sizeof t);
        s[r & 1] += (v2){x[r], x[r]} * t;
    }
    return s[0] + s[1];
}

/* Dof k's column data for node_entries, packed so that its two sums per entry are one sweep
 * over pairs (on two lanes): G_k = (dAdq_k, dVdq_k ang) and (dAdv_k, J_k ang), interleaved. */
static void pack_columns(const lucid_model *m, lucid_model_data *d) {
    for (size_t k = 0; k < m->nv; ++k) {
        double *G = d->dG + 18 * k;
        const double *dA = d->dAdq + 6 * k, *dV = d->dVdq + 6 * k, *dAv = d->dAdv + 6 * k,
                     *J = d->oJ + 6 * k;
        for (int r = 0; r < 6; ++r) G[2 * r] = dA[r], G[2 * r + 1] = dAv[r];
        for (int r = 0; r < 3; ++r) G[12 + 2 * r] = dV[3 + r], G[13 + 2 * r] = J[3 + r];
    }
}

/* The entries of dtau/dq and dtau/dqd in node i's rows and columns (module comment): with
 * H_l = (Yc J_l, (B^T J_l) ang) the entries (l, k) are H_l . G_k (pack_columns), and the
 * entries (k, l) for k in an ancestor are J_k . (Fq_l, Fv_l), Fq_l = Yc dAdq_l + B dVdq_l +
 * J_l x* oF_i, Fv_l = Yc dAdv_l + B J_l (kept interleaved). */
static void node_entries(const lucid_model *m, const lucid_model_data *d, size_t i,
                         const pass_layout *o) {
    const lucid_model_node *nd = &m->nodes[i];
    const lucid_inertia *Yc = &d->oYc[i];
    const double *B = d->oB + 12 * i, *F = d->oF + 6 * i;
    size_t n = nd->nv, i0 = nd->idx_v, rs = o->rs, cs = o->cs;
    double H[6][9], FF[6][12], Y[6], Bt[6], Fq[6], Fv[6], t[6];
    for (size_t c = 0; c < n; ++c) {
        size_t l = i0 + c;
        const double *J = d->oJ + 6 * l;
        lucid_sp_inertia_apply(Yc, J, Y);
        bias_tapply(B, J, Bt);
        for (int r = 0; r < 6; ++r) H[c][r] = Y[r];
        for (int r = 0; r < 3; ++r) H[c][6 + r] = Bt[3 + r];
        lucid_sp_inertia_apply(Yc, d->dAdq + 6 * l, Fq);
        bias_apply(B, d->dVdq + 6 * l, t);
        for (int r = 0; r < 6; ++r) Fq[r] += t[r];
        lucid_sp_cross_force(J, F, t);
        for (int r = 0; r < 6; ++r) Fq[r] += t[r];
        lucid_sp_inertia_apply(Yc, d->dAdv + 6 * l, Fv);
        bias_apply(B, J, t);
        for (int r = 0; r < 6; ++r) FF[c][2 * r] = Fq[r], FF[c][2 * r + 1] = Fv[r] + t[r];
    }
    for (size_t c = 0; c < n; ++c) /* the node's own block */
        for (size_t e = 0; e < n; ++e) {
            size_t l = i0 + c, k = i0 + e;
            const double *G = d->dG + 18 * k;
            v2 s = dot_pairs(H[c], G, 9);
            o->dq[l * rs + k * cs] = s[0];
            o->dv[l * rs + k * cs] = s[1];
        }
    for (int a = m->dof_parent[i0]; a >= 0; a = m->dof_parent[a]) { /* ancestors */
        size_t k = (size_t)a;
        const double *G = d->dG + 18 * k, *Ja = d->oJ + 6 * k;
        for (size_t c = 0; c < n; ++c) {
            size_t l = i0 + c;
            v2 s = dot_pairs(H[c], G, 9), u = dot_pairs(Ja, FF[c], 6);
            o->dq[l * rs + k * cs] = s[0];
            o->dv[l * rs + k * cs] = s[1];
            o->dq[k * rs + l * cs] = u[0];
            o->dv[k * rs + l * cs] = u[1];
        }
    }
}

/* Node i's rows and columns of M = J^T Yc J, and b_l = J_l . oF_i. */
static void node_mass(const lucid_model *m, const lucid_model_data *d, size_t i,
                      const pass_layout *o) {
    const lucid_model_node *nd = &m->nodes[i];
    size_t n = nd->nv, i0 = nd->idx_v, nv = m->nv;
    double Y[6][6];
    for (size_t c = 0; c < n; ++c) {
        size_t l = i0 + c;
        lucid_sp_inertia_apply(&d->oYc[i], d->oJ + 6 * l, Y[c]);
        if (o->b) o->b[l] = dot6(d->oJ + 6 * l, d->oF + 6 * i);
    }
    if (!o->M) return;
    for (size_t c = 0; c < n; ++c)
        for (size_t e = 0; e <= c; ++e) {
            size_t l = i0 + c, k = i0 + e;
            o->M[l + k * nv] = o->M[k + l * nv] =
                dot6(Y[c], d->oJ + 6 * k) + (l == k) * m->armature[l];
        }
    for (int a = m->dof_parent[i0]; a >= 0; a = m->dof_parent[a])
        for (size_t c = 0; c < n; ++c) {
            size_t l = i0 + c, k = (size_t)a;
            o->M[l + k * nv] = o->M[k + l * nv] = dot6(Y[c], d->oJ + 6 * k);
        }
}

static void backward_pass(const lucid_model *m, lucid_model_data *d, const pass_layout *o) {
    for (size_t i = m->nnodes; i-- > 0;) {
        int p = m->nodes[i].parent;
        double *F = d->oF + 6 * i;
        if (o->ext) {
            for (int r = 0; r < 6; ++r) F[r] += o->ext[6 * i + r];
            if (p >= 0)
                for (int r = 0; r < 6; ++r) o->ext[6 * p + r] += o->ext[6 * i + r];
        }
        if (o->M || o->b) node_mass(m, d, i, o);
        if (o->dq) node_entries(m, d, i, o);
        if (!o->sums || p < 0) continue;
        lucid_sp_inertia_add(&d->oYc[p], &d->oYc[i]);
        for (int r = 0; r < 12; ++r) d->oB[12 * p + r] += d->oB[12 * i + r];
        for (int r = 0; r < 6; ++r) d->oF[6 * p + r] += F[r];
    }
}

void lucid_model_rnea_derivatives(const lucid_model *m, lucid_model_data *d, const double *q,
                                  const double *v, const double *a, double *dtau_dq,
                                  double *dtau_dv) {
    size_t nv = m->nv;
    lucid_model_forward_kinematics(m, d, q);
    forward_pass(m, d, v, a);
    memset(dtau_dq, 0, nv * nv * sizeof *dtau_dq);
    memset(dtau_dv, 0, nv * nv * sizeof *dtau_dv);
    pack_columns(m, d);
    pass_layout o = {1, NULL, NULL, NULL, dtau_dq, dtau_dv, 1, nv};
    backward_pass(m, d, &o);
}

/* x[c0..c1) <- x[c0..c1) * scale - sum_j s_j y_j[c0..c1), y_j = X + rows[j] * w, s_j = L[pos[j]]
 * (pos NULL: s_j = L[j]); in registers, in blocks of 16, then 8, 4, 2 and 1 columns. */
#define ROW_GATHER_BLOCK(W)                                                                        \
    for (; c + (W) <= c1; c += (W)) {                                                              \
        double acc[W];                                                                             \
        for (int j = 0; j < (W); ++j) acc[j] = x[c + j] * scale;                                   \
        for (size_t e = 0; e < cnt; ++e) {                                                         \
            const double *y = X + rows[e * rstride] * w + c;                                       \
            double s = L[pos ? pos[e * rstride] : e];                                              \
            for (int j = 0; j < (W); ++j) acc[j] -= s * y[j];                                      \
        }                                                                                          \
        for (int j = 0; j < (W); ++j) x[c + j] = acc[j];                                           \
    }
static void row_gather(double *x, double scale, const double *X, size_t w, const size_t *rows,
                       size_t rstride, const size_t *pos, const double *L, size_t cnt, size_t c0,
                       size_t c1) {
    size_t c = c0;
    ROW_GATHER_BLOCK(16)
    ROW_GATHER_BLOCK(8)
    ROW_GATHER_BLOCK(4)
    ROW_GATHER_BLOCK(2)
    ROW_GATHER_BLOCK(1)
}
#undef ROW_GATHER_BLOCK

/* The sparsity the solve exploits (parents have smaller indices than their children, so dof
 * k's subtree lies in [k, dof_last[k]], exactly when the numbering is depth first). The trunk,
 * dofs 0 .. r-1 (r = d->dof_trunk), is a chain that is an ancestor of every other dof (a
 * floating base's 6 dofs, a whole serial arm; empty when the world has several children); every
 * other dof descends from one trunk child b = d->dof_branch[k], its branch, which lies in
 * [b, dof_last[b]]. Row k of dtau/dq and dtau/dqd is zero outside k's ancestors, node and
 * subtree (module comment), so outside [0, r) and [b, dof_last[k]]. */

/* x <- x - sum over cnt entries (row k, position p) of L[p] X_k, on the columns of dofs
 * [c0, c1) of the first two blocks (dtau/dq and dtau/dqd, interleaved: dof c at 2c, 2c + 1). */
static void gather_dq_dv(double *x, const double *X, size_t w, const size_t (*below)[2], size_t cnt,
                         const double *L, size_t c0, size_t c1) {
    if (cnt > 0 && c0 < c1)
        row_gather(x, 1.0, X, w, &below[0][0], 2, &below[0][1], L, cnt, 2 * c0, 2 * c1);
}

/* X <- M^-1 X for the nv rows of X (row r at X + r * w, w = nb nv columns: dtau/dq and dtau/dqd
 * interleaved (dof c's columns at 2c, 2c + 1), then the identity when nb = 3) with the LTDL
 * factors, each step on whole rows (contiguous, vectorised, accumulated in registers): L^-T
 * (for a = nv-1 .. 0, x_a -= sum of L(k, a) x_k over the dofs k below a: L by columns), then
 * D^-1 and L^-1 (x_k = x_k / D_k - sum of L(k, a) x_a over the ancestors a). L^-T mixes rows
 * into their ancestors only, so while it runs row k keeps the sparsity of its right-hand side:
 * [0, r) and [b, dof_last[k]] in the first two blocks (see above), [k, dof_last[k]] in the
 * identity; only those columns are gathered (for a trunk row, branch by branch). M^-1 is symmetric:
 * its rows are only formed from the diagonal on (row k of L^-1 reads the ancestors' rows at columns
 * >= k only). */
static void mass_solve_rows(const lucid_model *m, const lucid_model_data *d, double *X, size_t nb) {
    size_t nv = m->nv, w = nb * nv, nid = 2 * nv; /* columns before the identity */
    int has_id = nb == 3;
    size_t r = d->dof_trunk;
    for (size_t a = nv; a-- > 0;) {
        const size_t(*below)[2] = d->ltdl_below + d->ltdl_below_start[a];
        size_t cnt = d->ltdl_below_start[a + 1] - d->ltdl_below_start[a];
        if (cnt == 0) continue;
        double *xa = X + a * w;
        const size_t *kk = &below[0][0], *pp = &below[0][1];
        if (a >= r) { /* the rows below a lie in a's branch */
            gather_dq_dv(xa, X, w, below, cnt, d->L, 0, r);
            gather_dq_dv(xa, X, w, below, cnt, d->L, d->dof_branch[a], d->dof_last[a] + 1);
            if (has_id)
                row_gather(xa, 1.0, X, w, kk, 2, pp, d->L, cnt, nid + a, nid + d->dof_last[a] + 1);
            continue;
        }
        /* a in the trunk: the trunk rows below a (first), then each branch's rows on their
         * columns */
        size_t t = r - 1 - a;
        gather_dq_dv(xa, X, w, below, t, d->L, 0, nv);
        gather_dq_dv(xa, X, w, below + t, cnt - t, d->L, 0, r);
        if (has_id) row_gather(xa, 1.0, X, w, kk, 2, pp, d->L, t, nid + a, w);
        for (size_t e = t; e < cnt;) { /* runs of rows in one branch */
            size_t b = d->dof_branch[below[e][0]], e1 = e + 1;
            while (e1 < cnt && d->dof_branch[below[e1][0]] == b) ++e1;
            gather_dq_dv(xa, X, w, below + e, e1 - e, d->L, b, d->dof_last[b] + 1);
            if (has_id)
                row_gather(xa, 1.0, X, w, kk + 2 * e, 2, pp + 2 * e, d->L, e1 - e, nid + b,
                           nid + d->dof_last[b] + 1);
            e = e1;
        }
    }
    for (size_t k = 0; k < nv; ++k) {
        size_t p0 = m->ltdl_start[k], cnt = m->ltdl_start[k + 1] - p0;
        double *xk = X + k * w, s = 1.0 / d->D[k];
        row_gather(xk, s, X, w, d->ltdl_col + p0, 1, NULL, d->L + p0, cnt, 0, nid);
        if (has_id) row_gather(xk, s, X, w, d->ltdl_col + p0, 1, NULL, d->L + p0, cnt, nid + k, w);
    }
}

void lucid_model_aba_derivatives(const lucid_model *m, lucid_model_data *d, const double *q,
                                 const double *v, const double *tau, double *a, double *da_dq,
                                 double *da_dv, double *da_dtau) {
    size_t nv = m->nv, w = da_dtau ? 3 * nv : 2 * nv;
    double *X = d->dwork;
    /* pass 1 at zero acceleration: M, b = nle, their subtree sums; a = M^-1 (tau - b) */
    lucid_model_forward_kinematics(m, d, q);
    forward_pass(m, d, v, NULL);
    memset(d->M, 0, nv * nv * sizeof *d->M);
    pass_layout o1 = {1, NULL, d->M, a, NULL, NULL, 0, 0};
    backward_pass(m, d, &o1);
    lucid_model_ltdl(m, d);
    for (size_t k = 0; k < nv; ++k) a[k] = tau[k] - a[k];
    lucid_model_mass_solve(m, d, a, nv, 1);
    /* pass 2: the accelerations' share, then every entry */
    add_accelerations(m, d, a, d->a, d->f);
    memset(X, 0, nv * w * sizeof *X);
    if (da_dtau)
        for (size_t k = 0; k < nv; ++k) X[k * w + 2 * nv + k] = 1.0;
    pack_columns(m, d);
    pass_layout o2 = {0, d->f, NULL, NULL, X, X + 1, w, 2};
    backward_pass(m, d, &o2);
    mass_solve_rows(m, d, X, da_dtau ? 3 : 2);
    for (size_t c = 0; c < nv; ++c) /* column by column: contiguous stores */
        for (size_t r = 0; r < nv; ++r) {
            da_dq[r + c * nv] = -X[r * w + 2 * c];
            da_dv[r + c * nv] = -X[r * w + 2 * c + 1];
        }
    if (da_dtau) /* the upper triangle, mirrored */
        for (size_t c = 0; c < nv; ++c)
            for (size_t r = 0; r <= c; ++r)
                da_dtau[r + c * nv] = da_dtau[c + r * nv] = X[r * w + 2 * nv + c];
}
