/* The articulated-body algorithm: forward dynamics in O(njoints) (dynamics.h). */
#include <math.h>
#include <string.h>

#include "runtime/model/dynamics.h"
#include "runtime/model/model_internal.h"
#include "runtime/model/spatial.h"

/* Inverse of the n x n symmetric positive definite A (n <= 6, column-major, ld n) by Cholesky:
 * A = L L^T, inv = L^-T L^-1. A pivot <= 0 (a singular joint) gives non-finite entries. */
static void spd_inverse(size_t n, const double *A, double *inv) {
    double L[36] = {0};
    for (size_t j = 0; j < n; ++j) {
        double s = A[j + n * j];
        for (size_t k = 0; k < j; ++k) s -= L[j + n * k] * L[j + n * k];
        double ljj = sqrt(s);
        L[j + n * j] = ljj;
        for (size_t i = j + 1; i < n; ++i) {
            double t = A[i + n * j];
            for (size_t k = 0; k < j; ++k) t -= L[i + n * k] * L[j + n * k];
            L[i + n * j] = t / ljj;
        }
    }
    /* columns of L^-1 by forward substitution, then inv = (L^-1)^T L^-1 */
    double Li[36] = {0};
    for (size_t c = 0; c < n; ++c)
        for (size_t i = c; i < n; ++i) {
            double t = i == c ? 1.0 : 0.0;
            for (size_t k = c; k < i; ++k) t -= L[i + n * k] * Li[k + n * c];
            Li[i + n * c] = t / L[i + n * i];
        }
    for (size_t r = 0; r < n; ++r)
        for (size_t c = 0; c <= r; ++c) {
            double t = 0.0;
            for (size_t k = r; k < n; ++k) t += Li[k + n * r] * Li[k + n * c];
            inv[r + n * c] = inv[c + n * r] = t;
        }
}

/* Pass 1: v_i, c_i = v_i x S qd_i, Ia_i = I_i, pA_i = v_i x* I_i v_i. Pass 2 (leaves first):
 * U = Ia S, D = S^T U + armature, u = tau - S^T pA, and to the parent pMi (Ia - U D^-1 U^T) and
 * pMi (pA + Ia^a c + U D^-1 u). Pass 3: a' = iMp a_p + c_i, qdd = D^-1 (u - U^T a'),
 * a_i = a' + S qdd (a_world = -g). */
void lucid_model_aba(const lucid_model *m, lucid_model_data *d, const double *q, const double *v,
                     const double *tau, double *a) {
    const double a0[6] = {-m->gravity.x, -m->gravity.y, -m->gravity.z, 0.0, 0.0, 0.0};
    const double zero[6] = {0, 0, 0, 0, 0, 0};
    lucid_model_forward_kinematics(m, d, q);
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        double *vi = d->v + 6 * i, vJ[6] = {0, 0, 0, 0, 0, 0}, Iv[6];
        const double *vp = nd->parent < 0 ? zero : d->v + 6 * nd->parent;
        lucid_sp_motion_act_inv(&d->liMi[i], vp, vi);
        for (size_t k = 0; k < nd->nv; ++k) vJ[m->dof_axis[nd->idx_v + k]] += v[nd->idx_v + k];
        for (int k = 0; k < 6; ++k) vi[k] += vJ[k];
        lucid_sp_cross_motion(vi, vJ, d->c + 6 * i);
        lucid_sp_inertia_matrix(&nd->inertia, d->Ia + 36 * i);
        lucid_sp_inertia_apply(&nd->inertia, vi, Iv);
        lucid_sp_cross_force(vi, Iv, d->pA + 6 * i);
    }
    for (size_t i = m->nnodes; i-- > 0;) {
        const lucid_model_node *nd = &m->nodes[i];
        size_t n = nd->nv, iv = nd->idx_v;
        double *Ia = d->Ia + 36 * i, *pA = d->pA + 6 * i, *U = d->U + 6 * iv;
        double *Dinv = d->Dinv + 36 * i, D[36];
        const int *ax = m->dof_axis + iv;
        if (n == 1) { /* the common 1-dof joint: D and U scalar-wise, no small loops */
            memcpy(U, Ia + 6 * ax[0], 6 * sizeof *U);
            double dinv = 1.0 / (U[ax[0]] + m->armature[iv]), u = tau[iv] - pA[ax[0]];
            Dinv[0] = dinv;
            d->u[iv] = u;
            if (nd->parent < 0) continue;
            double pa[6], t[6], Uc[6];
            for (int r = 0; r < 6; ++r) Uc[r] = U[r] * dinv;
            for (int c = 0; c < 6; ++c)
                for (int r = 0; r < 6; ++r) Ia[r + 6 * c] -= Uc[r] * U[c];
            const double *ci = d->c + 6 * i;
            for (int r = 0; r < 6; ++r) {
                double s = pA[r] + Uc[r] * u;
                for (int c = 0; c < 6; ++c) s += Ia[r + 6 * c] * ci[c];
                pa[r] = s;
            }
            lucid_sp_matrix_act_add(&d->liMi[i], Ia, d->Ia + 36 * nd->parent);
            lucid_sp_force_act(&d->liMi[i], pa, t);
            for (int r = 0; r < 6; ++r) d->pA[6 * nd->parent + r] += t[r];
            continue;
        }
        for (size_t k = 0; k < n; ++k) memcpy(U + 6 * k, Ia + 6 * ax[k], 6 * sizeof *U);
        for (size_t k = 0; k < n; ++k) {
            for (size_t r = 0; r < n; ++r) D[r + n * k] = U[6 * k + ax[r]];
            D[k + n * k] += m->armature[iv + k];
            d->u[iv + k] = tau[iv + k] - pA[ax[k]];
        }
        spd_inverse(n, D, Dinv);
        if (nd->parent < 0) continue;
        /* Ia^a = Ia - U Dinv U^T; pa = pA + Ia^a c + U Dinv u */
        double UD[36], Dinvu[6] = {0}, pa[6], t[6];
        for (size_t k = 0; k < n; ++k)
            for (int r = 0; r < 6; ++r) {
                double s = 0.0;
                for (size_t l = 0; l < n; ++l) s += U[6 * l + r] * Dinv[l + n * k];
                UD[r + 6 * k] = s;
            }
        for (size_t k = 0; k < n; ++k)
            for (size_t l = 0; l < n; ++l) Dinvu[k] += Dinv[k + n * l] * d->u[iv + l];
        for (int c = 0; c < 6; ++c)
            for (int r = 0; r < 6; ++r) {
                double s = 0.0;
                for (size_t k = 0; k < n; ++k) s += UD[r + 6 * k] * U[6 * k + c];
                Ia[r + 6 * c] -= s;
            }
        const double *ci = d->c + 6 * i;
        for (int r = 0; r < 6; ++r) {
            double s = pA[r];
            for (int c = 0; c < 6; ++c) s += Ia[r + 6 * c] * ci[c];
            for (size_t k = 0; k < n; ++k) s += U[6 * k + r] * Dinvu[k];
            pa[r] = s;
        }
        lucid_sp_matrix_act_add(&d->liMi[i], Ia, d->Ia + 36 * nd->parent);
        lucid_sp_force_act(&d->liMi[i], pa, t);
        for (int r = 0; r < 6; ++r) d->pA[6 * nd->parent + r] += t[r];
    }
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        size_t n = nd->nv, iv = nd->idx_v;
        double *ai = d->a + 6 * i, r[6];
        const double *ap = nd->parent < 0 ? a0 : d->a + 6 * nd->parent;
        const double *U = d->U + 6 * iv, *Dinv = d->Dinv + 36 * i, *ci = d->c + 6 * i;
        lucid_sp_motion_act_inv(&d->liMi[i], ap, ai);
        for (int k = 0; k < 6; ++k) ai[k] += ci[k];
        for (size_t k = 0; k < n; ++k) {
            double s = d->u[iv + k];
            for (int c = 0; c < 6; ++c) s -= U[6 * k + c] * ai[c];
            r[k] = s;
        }
        for (size_t k = 0; k < n; ++k) {
            double s = 0.0;
            for (size_t l = 0; l < n; ++l) s += Dinv[k + n * l] * r[l];
            a[iv + k] = s;
            ai[m->dof_axis[iv + k]] += s;
        }
    }
}
