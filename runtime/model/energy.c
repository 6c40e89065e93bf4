/* Kinetic and potential energy, centre of mass (dynamics.h). */
#include "runtime/model/dynamics.h"
#include "runtime/model/model_internal.h"
#include "runtime/model/spatial.h"

/* T = 1/2 sum v_i . I_i v_i + 1/2 sum armature qd^2; V = -g . sum (R_i h_i + m_i p_i). */
void lucid_model_energy(const lucid_model *m, lucid_model_data *d, const double *q, const double *v,
                        double *kinetic, double *potential) {
    lucid_model_forward_kinematics(m, d, q);
    lucid_model_energy_posed(m, d, v, kinetic, potential);
}

void lucid_model_energy_posed(const lucid_model *m, lucid_model_data *d, const double *v,
                              double *kinetic, double *potential) {
    const double zero[6] = {0, 0, 0, 0, 0, 0};
    double T = 0.0;
    lucid_vec3 mc = lucid_vec3_zero();
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        double *vi = d->v + 6 * i, Iv[6];
        const double *vp = nd->parent < 0 ? zero : d->v + 6 * nd->parent;
        lucid_sp_motion_act_inv(&d->liMi[i], vp, vi);
        for (size_t k = 0; k < nd->nv; ++k) vi[m->dof_axis[nd->idx_v + k]] += v[nd->idx_v + k];
        lucid_sp_inertia_apply(&nd->inertia, vi, Iv);
        for (int k = 0; k < 6; ++k) T += 0.5 * vi[k] * Iv[k];
        const lucid_se3 *X = &d->oMi[i];
        mc = lucid_vec3_add(mc, lucid_vec3_add(lucid_mat3_mul_vec(&X->R, nd->inertia.h),
                                               lucid_vec3_scale(X->t, nd->inertia.mass)));
    }
    for (size_t k = 0; k < m->nv; ++k) T += 0.5 * m->armature[k] * v[k] * v[k];
    if (kinetic) *kinetic = T;
    if (potential) *potential = -lucid_vec3_dot(m->gravity, mc);
}

lucid_vec3 lucid_model_com(const lucid_model *m, lucid_model_data *d, const double *q) {
    lucid_model_forward_kinematics(m, d, q);
    lucid_vec3 mc = lucid_vec3_zero();
    double mass = 0.0;
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_inertia *in = &m->nodes[i].inertia;
        const lucid_se3 *X = &d->oMi[i];
        mc = lucid_vec3_add(
            mc, lucid_vec3_add(lucid_mat3_mul_vec(&X->R, in->h), lucid_vec3_scale(X->t, in->mass)));
        mass += in->mass;
    }
    return mass > 0.0 ? lucid_vec3_scale(mc, 1.0 / mass) : lucid_vec3_zero();
}
