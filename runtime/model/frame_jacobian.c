/* Frame Jacobians in Pinocchio's three reference frames (dynamics.h). */
#include <string.h>

#include "runtime/model/dynamics.h"
#include "runtime/model/model_internal.h"
#include "runtime/model/spatial.h"

/* The twist in `ref` of frame f (world placement oMf) made by a unit velocity of dof k of node
 * j: col = oMj . e_axis (world, at the origin), then local = oMf^-1 . col,
 * local_world_aligned = (v + w x p_f, w). */
static void dof_column(const lucid_model *m, const lucid_model_data *d, int j, size_t k,
                       const lucid_se3 *oMf, lucid_reference_frame ref, double c[6]) {
    double e[6] = {0, 0, 0, 0, 0, 0}, w[6];
    e[m->dof_axis[m->nodes[j].idx_v + k]] = 1.0;
    lucid_sp_motion_act(&d->oMi[j], e, w);
    switch (ref) {
        case LUCID_REF_WORLD:
            memcpy(c, w, sizeof w);
            break;
        case LUCID_REF_LOCAL:
            lucid_sp_motion_act_inv(oMf, w, c);
            break;
        default: {
            lucid_vec3 ang = lucid_sp_ang(w);
            lucid_sp_set(c, lucid_vec3_add(lucid_sp_lin(w), lucid_vec3_cross(ang, oMf->t)), ang);
            break;
        }
    }
}

void lucid_model_frame_jacobian(const lucid_model *m, const lucid_model_data *d, size_t f,
                                lucid_reference_frame ref, double *J) {
    memset(J, 0, 6 * m->nv * sizeof *J);
    lucid_se3 oMf = lucid_model_frame_pose(m, d, f);
    for (int j = m->frames[f].node; j >= 0; j = m->nodes[j].parent)
        for (size_t k = 0; k < m->nodes[j].nv; ++k)
            dof_column(m, d, j, k, &oMf, ref, J + 6 * (m->nodes[j].idx_v + k));
}

void lucid_model_frame_velocity(const lucid_model *m, const lucid_model_data *d, size_t f,
                                const double *v, lucid_reference_frame ref, double twist[6]) {
    memset(twist, 0, 6 * sizeof *twist);
    lucid_se3 oMf = lucid_model_frame_pose(m, d, f);
    for (int j = m->frames[f].node; j >= 0; j = m->nodes[j].parent)
        for (size_t k = 0; k < m->nodes[j].nv; ++k) {
            double c[6];
            dof_column(m, d, j, k, &oMf, ref, c);
            for (int r = 0; r < 6; ++r) twist[r] += c[r] * v[m->nodes[j].idx_v + k];
        }
}
