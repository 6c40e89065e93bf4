/* Frame Jacobians in Pinocchio's three reference frames (dynamics.h). */
#include <string.h>

#include "runtime/model/dynamics.h"
#include "runtime/model/spatial.h"

/* Column of dof k: oMj . e_axis (world, at the origin), then moved to the requested frame:
 * local = oMf^-1 . col, local_world_aligned = (v + w x p_f, w). */
void lucid_model_frame_jacobian(const lucid_model *m, const lucid_model_data *d, size_t f,
                                lucid_reference_frame ref, double *J) {
    memset(J, 0, 6 * m->nv * sizeof *J);
    const lucid_model_frame *fr = &m->frames[f];
    lucid_se3 oMf = lucid_model_frame_pose(m, d, f);
    for (int j = fr->node; j >= 0; j = m->nodes[j].parent) {
        const lucid_model_node *nd = &m->nodes[j];
        for (size_t k = 0; k < nd->nv; ++k) {
            double e[6] = {0, 0, 0, 0, 0, 0}, w[6];
            size_t col = nd->idx_v + k;
            e[m->dof_axis[col]] = 1.0;
            lucid_sp_motion_act(&d->oMi[j], e, w);
            double *c = J + 6 * col;
            switch (ref) {
                case LUCID_REF_WORLD:
                    memcpy(c, w, sizeof w);
                    break;
                case LUCID_REF_LOCAL:
                    lucid_sp_motion_act_inv(&oMf, w, c);
                    break;
                default: {
                    lucid_vec3 ang = lucid_sp_ang(w);
                    lucid_sp_set(c, lucid_vec3_add(lucid_sp_lin(w), lucid_vec3_cross(ang, oMf.t)),
                                 ang);
                    break;
                }
            }
        }
    }
}
