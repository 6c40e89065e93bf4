/* Analytic derivatives of the inverse and forward dynamics in the tangent space of q
 * (dynamics.h). World-frame Newton-Euler: with J_l = Ad(oM_i) S_l the world columns of node i,
 *   ov_i = ov_p + vJ,  oa_i = oa_p + aJ + ov_p x vJ  (vJ = sum J_l qd_l, aJ = sum J_l qdd_l,
 *   oa_world = -g),  of_i = oI_i oa_i + ov_i x* oI_i ov_i,  oF_i = of_i + sum over children,
 *   tau_l = J_l . oF_i + armature_l a_l.
 * Moving dof k (column J_k, joint j with parent velocity vp and acceleration ap) by t turns the
 * subtree D of j rigidly by exp(t J_k): for i in D, with w_i = ov_i - vp,
 *   d ov_i = J_k x w_i,   d oa_i = J_k x (oa_i - ap) + (vp x J_k) x w_i,
 *   d oI x = J_k x* (oI x) - oI (J_k x x),   d J_l = J_k x J_l  (l in D);
 * changing qd_k by t gives d ov_i = J_k, d oa_i = J_k x (ov_i - vp - ov_j), oI and J fixed.
 * Then d tau_l = d J_l . oF_i + J_l . d oF_i for l in D, J_l . d oF_j for the ancestors of j. */
#include <string.h>

#include "runtime/model/dynamics.h"
#include "runtime/model/spatial.h"

static void axpy6(double *y, double s, const double *x) {
    for (int k = 0; k < 6; ++k) y[k] += s * x[k];
}
static double dot6(const double *a, const double *b) {
    double s = 0.0;
    for (int k = 0; k < 6; ++k) s += a[k] * b[k];
    return s;
}

/* The forward pass: oI, oJ, ov, oa, of, oF. */
static void world_pass(const lucid_model *m, lucid_model_data *d, const double *q, const double *v,
                       const double *a) {
    const double a0[6] = {-m->gravity.x, -m->gravity.y, -m->gravity.z, 0.0, 0.0, 0.0};
    const double zero[6] = {0, 0, 0, 0, 0, 0};
    lucid_model_forward_kinematics(m, d, q);
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        d->oI[i] = lucid_sp_inertia_act(&d->oMi[i], &nd->inertia);
        double vJ[6] = {0}, aJ[6] = {0}, t[6], Iv[6];
        for (size_t k = 0; k < nd->nv; ++k) {
            size_t l = nd->idx_v + k;
            double e[6] = {0, 0, 0, 0, 0, 0};
            e[m->dof_axis[l]] = 1.0;
            lucid_sp_motion_act(&d->oMi[i], e, d->oJ + 6 * l);
            axpy6(vJ, v[l], d->oJ + 6 * l);
            axpy6(aJ, a[l], d->oJ + 6 * l);
        }
        const double *vp = nd->parent < 0 ? zero : d->ov + 6 * nd->parent;
        const double *ap = nd->parent < 0 ? a0 : d->oa + 6 * nd->parent;
        double *ov = d->ov + 6 * i, *oa = d->oa + 6 * i, *of = d->of + 6 * i;
        lucid_sp_cross_motion(vp, vJ, t);
        for (int r = 0; r < 6; ++r) {
            ov[r] = vp[r] + vJ[r];
            oa[r] = ap[r] + aJ[r] + t[r];
        }
        lucid_sp_inertia_apply(&d->oI[i], oa, of);
        lucid_sp_inertia_apply(&d->oI[i], ov, Iv);
        lucid_sp_cross_force(ov, Iv, t);
        axpy6(of, 1.0, t);
    }
    memcpy(d->oF, d->of, 6 * m->nnodes * sizeof(double));
    for (size_t i = m->nnodes; i-- > 0;)
        if (m->nodes[i].parent >= 0) axpy6(d->oF + 6 * m->nodes[i].parent, 1.0, d->oF + 6 * i);
}

/* d oI x = J x* (oI x) - oI (J x x) */
static void inertia_derivative(const lucid_inertia *I, const double *J, const double *x,
                               double *out) {
    double Ix[6], Jx[6], t[6];
    lucid_sp_inertia_apply(I, x, Ix);
    lucid_sp_cross_force(J, Ix, out);
    lucid_sp_cross_motion(J, x, Jx);
    lucid_sp_inertia_apply(I, Jx, t);
    for (int r = 0; r < 6; ++r) out[r] -= t[r];
}

/* Column k of dtau (wrt q when wrt_q, else wrt qd) from the subtree's d of_i in d->dF. */
static void column(const lucid_model *m, lucid_model_data *d, size_t k, int wrt_q, double *col) {
    const int j = m->dof_node[k];
    const double *Jk = d->oJ + 6 * k;
    memset(col, 0, m->nv * sizeof *col);
    for (size_t i = m->nnodes; i-- > (size_t)j;) /* subtree sums */
        if (d->mark[i] && (int)i != j) axpy6(d->dF + 6 * m->nodes[i].parent, 1.0, d->dF + 6 * i);
    for (size_t i = (size_t)j; i < m->nnodes; ++i) {
        if (!d->mark[i]) continue;
        const lucid_model_node *nd = &m->nodes[i];
        for (size_t c = 0; c < nd->nv; ++c) {
            size_t l = nd->idx_v + c;
            double s = dot6(d->oJ + 6 * l, d->dF + 6 * i);
            if (wrt_q) {
                double dJ[6];
                lucid_sp_cross_motion(Jk, d->oJ + 6 * l, dJ);
                s += dot6(dJ, d->oF + 6 * i);
            }
            col[l] = s;
        }
    }
    for (int p = m->nodes[j].parent; p >= 0; p = m->nodes[p].parent) {
        const lucid_model_node *np = &m->nodes[p];
        for (size_t c = 0; c < np->nv; ++c)
            col[np->idx_v + c] = dot6(d->oJ + 6 * (np->idx_v + c), d->dF + 6 * j);
    }
}

void lucid_model_rnea_derivatives(const lucid_model *m, lucid_model_data *d, const double *q,
                                  const double *v, const double *a, double *dtau_dq,
                                  double *dtau_dv) {
    const double a0[6] = {-m->gravity.x, -m->gravity.y, -m->gravity.z, 0.0, 0.0, 0.0};
    const double zero[6] = {0, 0, 0, 0, 0, 0};
    size_t nv = m->nv;
    world_pass(m, d, q, v, a);
    for (size_t k = 0; k < nv; ++k) {
        const int j = m->dof_node[k];
        const int pj = m->nodes[j].parent;
        const double *Jk = d->oJ + 6 * k;
        const double *vp = pj < 0 ? zero : d->ov + 6 * pj;
        const double *ap = pj < 0 ? a0 : d->oa + 6 * pj;
        for (size_t i = (size_t)j; i < m->nnodes; ++i) {
            int p = m->nodes[i].parent;
            d->mark[i] = (int)i == j || (p >= j && d->mark[p]);
        }
        /* wrt q_k */
        double vpJ[6];
        lucid_sp_cross_motion(vp, Jk, vpJ);
        for (size_t i = (size_t)j; i < m->nnodes; ++i) {
            if (!d->mark[i]) continue;
            const double *ov = d->ov + 6 * i, *oa = d->oa + 6 * i;
            const lucid_inertia *I = &d->oI[i];
            double w[6], rel[6], dov[6], doa[6], t[6], Iv[6], df[6];
            for (int r = 0; r < 6; ++r) w[r] = ov[r] - vp[r], rel[r] = oa[r] - ap[r];
            lucid_sp_cross_motion(Jk, w, dov);
            lucid_sp_cross_motion(Jk, rel, doa);
            lucid_sp_cross_motion(vpJ, w, t);
            axpy6(doa, 1.0, t);
            /* df = dI oa + oI doa + dov x* oI ov + ov x* (dI ov + oI dov) */
            inertia_derivative(I, Jk, oa, df);
            lucid_sp_inertia_apply(I, doa, t);
            axpy6(df, 1.0, t);
            lucid_sp_inertia_apply(I, ov, Iv);
            lucid_sp_cross_force(dov, Iv, t);
            axpy6(df, 1.0, t);
            double dIv[6];
            inertia_derivative(I, Jk, ov, dIv);
            lucid_sp_inertia_apply(I, dov, t);
            axpy6(dIv, 1.0, t);
            lucid_sp_cross_force(ov, dIv, t);
            axpy6(df, 1.0, t);
            memcpy(d->dF + 6 * i, df, sizeof df);
        }
        column(m, d, k, 1, dtau_dq + k * nv);
        /* wrt qd_k */
        const double *ovj = d->ov + 6 * j;
        for (size_t i = (size_t)j; i < m->nnodes; ++i) {
            if (!d->mark[i]) continue;
            const double *ov = d->ov + 6 * i;
            const lucid_inertia *I = &d->oI[i];
            double w[6], doa[6], t[6], Iv[6], df[6];
            for (int r = 0; r < 6; ++r) w[r] = ov[r] - vp[r] - ovj[r];
            lucid_sp_cross_motion(Jk, w, doa);
            lucid_sp_inertia_apply(I, doa, df);
            lucid_sp_inertia_apply(I, ov, Iv);
            lucid_sp_cross_force(Jk, Iv, t);
            axpy6(df, 1.0, t);
            lucid_sp_inertia_apply(I, Jk, Iv);
            lucid_sp_cross_force(ov, Iv, t);
            axpy6(df, 1.0, t);
            memcpy(d->dF + 6 * i, df, sizeof df);
        }
        column(m, d, k, 0, dtau_dv + k * nv);
    }
}

void lucid_model_aba_derivatives(const lucid_model *m, lucid_model_data *d, const double *q,
                                 const double *v, const double *tau, double *a, double *da_dq,
                                 double *da_dv, double *da_dtau) {
    size_t nv = m->nv;
    lucid_model_aba(m, d, q, v, tau, a);
    lucid_model_rnea_derivatives(m, d, q, v, a, da_dq, da_dv);
    lucid_model_crba(m, d, q);
    lucid_model_ltdl(m, d);
    lucid_model_mass_solve(m, d, da_dq, nv, nv);
    lucid_model_mass_solve(m, d, da_dv, nv, nv);
    for (size_t k = 0; k < nv * nv; ++k) da_dq[k] = -da_dq[k], da_dv[k] = -da_dv[k];
    if (da_dtau) {
        memset(da_dtau, 0, nv * nv * sizeof *da_dtau);
        for (size_t k = 0; k < nv; ++k) da_dtau[k + nv * k] = 1.0;
        lucid_model_mass_solve(m, d, da_dtau, nv, nv);
    }
}
