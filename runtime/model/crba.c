/* The composite-rigid-body algorithm: the joint-space mass matrix (dynamics.h). */

#include "runtime/model/dynamics.h"
#include "runtime/model/model_internal.h"
#include "runtime/model/spatial.h"

static inline double dot6(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* In the world frame (no force transforms up the tree): with J_l the world columns and Ic_i
 * the composite inertia of node i's subtree (world), backward over nodes:
 * M_lk = J_l . Ic_i J_k for l in node i and k in i or an ancestor; Ic_p += Ic_i. */
void lucid_model_crba(const lucid_model *m, lucid_model_data *d, const double *q) {
    lucid_model_forward_kinematics(m, d, q);
    lucid_model_crba_posed(m, d);
}

void lucid_model_crba_posed(const lucid_model *m, lucid_model_data *d) {
    size_t nv = m->nv;
    /* Only the entries (k, a) with a = k or an ancestor of k (and their mirrors) are written
     * below, each every time; the others are structurally zero, zero since
     * lucid_model_data_create and written by nothing: no O(nv^2) clearing per call (N free
     * bodies in one model), and their pages stay untouched. */
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        d->Ic[i] = lucid_sp_inertia_act(&d->oMi[i], &nd->inertia);
        for (size_t c = 0; c < nd->nv; ++c)
            lucid_sp_world_column(&d->oMi[i], m->dof_axis[nd->idx_v + c],
                                  d->oJ + 6 * (nd->idx_v + c));
    }
    for (size_t i = m->nnodes; i-- > 0;) {
        const lucid_model_node *nd = &m->nodes[i];
        size_t n = nd->nv, i0 = nd->idx_v;
        double Y[6][6];
        for (size_t c = 0; c < n; ++c)
            lucid_sp_inertia_apply(&d->Ic[i], d->oJ + 6 * (i0 + c), Y[c]);
        for (size_t c = 0; c < n; ++c) /* the joint's block, mirrored: exactly symmetric */
            for (size_t e = 0; e <= c; ++e)
                d->M[(i0 + c) + nv * (i0 + e)] = d->M[(i0 + e) + nv * (i0 + c)] =
                    dot6(Y[c], d->oJ + 6 * (i0 + e));
        for (int a = m->dof_parent[i0]; a >= 0; a = m->dof_parent[a])
            for (size_t c = 0; c < n; ++c)
                d->M[(i0 + c) + nv * (size_t)a] = d->M[(size_t)a + nv * (i0 + c)] =
                    dot6(Y[c], d->oJ + 6 * (size_t)a);
        if (nd->parent >= 0) lucid_sp_inertia_add(&d->Ic[nd->parent], &d->Ic[i]);
    }
    for (size_t k = 0; k < nv; ++k) d->M[k + nv * k] += m->armature[k];
}

const double *lucid_model_data_mass_matrix(const lucid_model_data *d) {
    return d->M;
}

void lucid_model_data_add_mass_diagonal(const lucid_model *m, lucid_model_data *d,
                                        const double *x) {
    for (size_t k = 0; k < m->nv; ++k) d->M[k + m->nv * k] += x[k];
}

const lucid_se3 *lucid_model_data_joint_poses(const lucid_model_data *d) {
    return d->oMi;
}
