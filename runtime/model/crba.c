/* The composite-rigid-body algorithm: the joint-space mass matrix (dynamics.h). */
#include <string.h>

#include "runtime/model/dynamics.h"
#include "runtime/model/spatial.h"

/* Backward over nodes i: Ic_i = I_i + sum of children; F = Ic_i S_i, M_ii = S_i^T F; then F is
 * carried to each ancestor j (F <- pMj F) and M_ji = S_j^T F = M_ij^T; Ic_p += pMi Ic_i. */
void lucid_model_crba(const lucid_model *m, lucid_model_data *d, const double *q) {
    size_t nv = m->nv;
    lucid_model_forward_kinematics(m, d, q);
    memset(d->M, 0, nv * nv * sizeof *d->M);
    for (size_t i = 0; i < m->nnodes; ++i) d->Ic[i] = m->nodes[i].inertia;
    double *F = d->U; /* 6 x nv_i columns of Ic_i S_i, carried up the tree */
    for (size_t i = m->nnodes; i-- > 0;) {
        const lucid_model_node *nd = &m->nodes[i];
        for (size_t k = 0; k < nd->nv; ++k) {
            double e[6] = {0, 0, 0, 0, 0, 0};
            e[m->dof_axis[nd->idx_v + k]] = 1.0;
            lucid_sp_inertia_apply(&d->Ic[i], e, F + 6 * k);
        }
        for (size_t k = 0; k < nd->nv; ++k)
            for (size_t r = 0; r <= k; ++r) /* the joint's block, mirrored: exactly symmetric */
                d->M[(nd->idx_v + r) + nv * (nd->idx_v + k)] =
                    d->M[(nd->idx_v + k) + nv * (nd->idx_v + r)] =
                        F[6 * k + m->dof_axis[nd->idx_v + r]];
        int j = (int)i;
        while (m->nodes[j].parent >= 0) {
            int p = m->nodes[j].parent;
            for (size_t k = 0; k < nd->nv; ++k) {
                double t[6];
                lucid_sp_force_act(&d->liMi[j], F + 6 * k, t);
                memcpy(F + 6 * k, t, sizeof t);
            }
            const lucid_model_node *np = &m->nodes[p];
            for (size_t k = 0; k < nd->nv; ++k)
                for (size_t r = 0; r < np->nv; ++r) {
                    double x = F[6 * k + m->dof_axis[np->idx_v + r]];
                    d->M[(np->idx_v + r) + nv * (nd->idx_v + k)] = x;
                    d->M[(nd->idx_v + k) + nv * (np->idx_v + r)] = x;
                }
            j = p;
        }
        if (nd->parent >= 0) {
            lucid_inertia t = lucid_sp_inertia_act(&d->liMi[i], &d->Ic[i]);
            lucid_sp_inertia_add(&d->Ic[nd->parent], &t);
        }
    }
    for (size_t k = 0; k < nv; ++k) d->M[k + nv * k] += m->armature[k];
}

const double *lucid_model_data_mass_matrix(const lucid_model_data *d) {
    return d->M;
}
