/* Forward kinematics and frame placements (dynamics.h). */
#include "runtime/model/dynamics.h"
#include "runtime/model/model_internal.h"
#include "runtime/model/spatial.h"

/* liMi = X_tree X_J(q_i), oMi = oM_parent liMi, parents first. */
void lucid_model_forward_kinematics(const lucid_model *m, lucid_model_data *d, const double *q) {
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        lucid_se3 XJ = lucid_joint_motion(nd, q + nd->idx_q);
        d->liMi[i] = lucid_se3_compose(&nd->X_tree, &XJ);
        d->oMi[i] =
            nd->parent < 0 ? d->liMi[i] : lucid_se3_compose(&d->oMi[nd->parent], &d->liMi[i]);
    }
}

lucid_se3 lucid_model_frame_pose(const lucid_model *m, const lucid_model_data *d, size_t f) {
    const lucid_model_frame *fr = &m->frames[f];
    if (fr->node < 0) return fr->placement;
    return lucid_se3_compose(&d->oMi[fr->node], &fr->placement);
}
