/* The recursive Newton-Euler algorithm and the nonlinear effects (dynamics.h). */
#include "runtime/model/dynamics.h"
#include "runtime/model/model_internal.h"
#include "runtime/model/spatial.h"

/* lucid_model_rnea on data posed at q (lucid_model_forward_kinematics). */
static void rnea_posed(const lucid_model *m, lucid_model_data *d, const double *v, const double *a,
                       double *tau);
static void forward_pass(const lucid_model *m, lucid_model_data *d, const double *v,
                         const double *a, lucid_vec3 g);

/* Forward: v_i = iMp v_p + S qd_i, a_i = iMp a_p + S qdd_i + v_i x S qd_i (a_world = -g),
 * f_i = I_i a_i + v_i x* I_i v_i; backward: tau_i = S^T f_i + armature qdd_i, f_p += pMi f_i. */
void lucid_model_rnea(const lucid_model *m, lucid_model_data *d, const double *q, const double *v,
                      const double *a, double *tau) {
    lucid_model_forward_kinematics(m, d, q);
    rnea_posed(m, d, v, a, tau);
}

/* The forward pass: every node's twist, acceleration and wrench (data v, a, f). */
void lucid_model_rnea_forward(const lucid_model *m, lucid_model_data *d, const double *v,
                              const double *a) {
    forward_pass(m, d, v, a, m->gravity);
}

/* The forward pass with gravity g (model frame): the root's acceleration is -g. */
static void forward_pass(const lucid_model *m, lucid_model_data *d, const double *v,
                         const double *a, lucid_vec3 g) {
    const double a0[6] = {-g.x, -g.y, -g.z, 0.0, 0.0, 0.0};
    const double zero[6] = {0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        double *vi = d->v + 6 * i, *ai = d->a + 6 * i, vJ[6] = {0, 0, 0, 0, 0, 0}, t[6];
        const double *vp = nd->parent < 0 ? zero : d->v + 6 * nd->parent;
        const double *ap = nd->parent < 0 ? a0 : d->a + 6 * nd->parent;
        lucid_sp_motion_act_inv(&d->liMi[i], vp, vi);
        lucid_sp_motion_act_inv(&d->liMi[i], ap, ai);
        for (size_t k = 0; k < nd->nv; ++k) {
            int ax = m->dof_axis[nd->idx_v + k];
            vJ[ax] += v[nd->idx_v + k];
            ai[ax] += a[nd->idx_v + k];
        }
        for (int k = 0; k < 6; ++k) vi[k] += vJ[k];
        lucid_sp_cross_motion(vi, vJ, t);
        for (int k = 0; k < 6; ++k) ai[k] += t[k];
        double Iv[6], fi[6];
        lucid_sp_inertia_apply(&nd->inertia, ai, d->f + 6 * i);
        lucid_sp_inertia_apply(&nd->inertia, vi, Iv);
        lucid_sp_cross_force(vi, Iv, fi);
        for (int k = 0; k < 6; ++k) d->f[6 * i + k] += fi[k];
    }
}

static void rnea_posed(const lucid_model *m, lucid_model_data *d, const double *v, const double *a,
                       double *tau) {
    lucid_model_rnea_forward(m, d, v, a);
    for (size_t i = m->nnodes; i-- > 0;) {
        const lucid_model_node *nd = &m->nodes[i];
        const double *fi = d->f + 6 * i;
        for (size_t k = 0; k < nd->nv; ++k) {
            size_t dof = nd->idx_v + k;
            tau[dof] = fi[m->dof_axis[dof]] + m->armature[dof] * a[dof];
        }
        if (nd->parent >= 0) {
            double fp[6];
            lucid_sp_force_act(&d->liMi[i], fi, fp);
            for (int k = 0; k < 6; ++k) d->f[6 * nd->parent + k] += fp[k];
        }
    }
}

/* b = rnea(q, v, 0), with d->tmp holding the zero acceleration. */
void lucid_model_nle(const lucid_model *m, lucid_model_data *d, const double *q, const double *v,
                     double *b) {
    lucid_model_forward_kinematics(m, d, q);
    lucid_model_nle_posed(m, d, v, b);
}

void lucid_model_nle_posed(const lucid_model *m, lucid_model_data *d, const double *v, double *b) {
    double *zero = d->tmp;
    for (size_t k = 0; k < m->nv; ++k) zero[k] = 0.0;
    rnea_posed(m, d, v, zero, b);
}

void lucid_model_rnea_wrenches(const lucid_model *m, lucid_model_data *d, const double *q,
                               const double *v, const double *a, lucid_vec3 g) {
    lucid_model_forward_kinematics(m, d, q);
    forward_pass(m, d, v, a, g);
}

void lucid_model_wrench_external_force(const lucid_model *m, lucid_model_data *d, int node,
                                       lucid_vec3 point, lucid_vec3 force) {
    (void)m;
    double f[6], fi[6];
    lucid_sp_set(f, force, lucid_vec3_cross(point, force));
    lucid_sp_force_act_inv(&d->oMi[node], f, fi);
    for (int k = 0; k < 6; ++k) d->f[6 * node + k] -= fi[k];
}

void lucid_model_wrench_external_torque(const lucid_model *m, lucid_model_data *d, int node,
                                        lucid_vec3 torque) {
    (void)m;
    double f[6], fi[6];
    lucid_sp_set(f, lucid_vec3_zero(), torque);
    lucid_sp_force_act_inv(&d->oMi[node], f, fi);
    for (int k = 0; k < 6; ++k) d->f[6 * node + k] -= fi[k];
}

void lucid_model_gather_wrenches(const lucid_model *m, lucid_model_data *d) {
    for (size_t i = m->nnodes; i-- > 0;) {
        int p = m->nodes[i].parent;
        if (p < 0) continue;
        double fp[6];
        lucid_sp_force_act(&d->liMi[i], d->f + 6 * i, fp);
        for (int k = 0; k < 6; ++k) d->f[6 * p + k] += fp[k];
    }
}

void lucid_model_frame_proper_acceleration(const lucid_model *m, const lucid_model_data *d,
                                           size_t f, lucid_vec3 g, double out[3]) {
    const lucid_model_frame *F = &m->frames[f];
    double a[6] = {-g.x, -g.y, -g.z, 0.0, 0.0, 0.0}, v[6] = {0, 0, 0, 0, 0, 0}, af[6], vf[6];
    if (F->node >= 0)
        for (int k = 0; k < 6; ++k) a[k] = d->a[6 * F->node + k], v[k] = d->v[6 * F->node + k];
    lucid_sp_motion_act_inv(&F->placement, a, af);
    lucid_sp_motion_act_inv(&F->placement, v, vf);
    /* the spatial acceleration's linear part plus w x v: the origin's classical acceleration */
    lucid_vec3 c =
        lucid_vec3_add(lucid_sp_lin(af), lucid_vec3_cross(lucid_sp_ang(vf), lucid_sp_lin(vf)));
    lucid_vec3_store(c, out);
}

void lucid_model_frame_joint_wrench(const lucid_model *m, const lucid_model_data *d, size_t f,
                                    double out[6]) {
    const lucid_model_frame *F = &m->frames[f];
    for (int k = 0; k < 6; ++k) out[k] = 0.0;
    if (F->node < 0) return;
    lucid_sp_force_act_inv(&F->placement, d->f + 6 * F->node, out);
}
