/* The joint-torque regressor Y(q, v, a) with tau = Y theta (regressor.h). */
#include "runtime/model/regressor.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/model/model_internal.h"
#include "runtime/model/spatial.h"

static const unsigned group_bits[4] = {LUCID_REGRESSOR_DAMPING, LUCID_REGRESSOR_COULOMB,
                                       LUCID_REGRESSOR_ARMATURE, LUCID_REGRESSOR_OFFSET};
static const char *const group_names[4] = {"damping", "coulomb", "armature", "offset"};
static const char *const inertial_names[10] = {"m",   "mx",  "my",  "mz",  "Ixx",
                                               "Ixy", "Iyy", "Ixz", "Iyz", "Izz"};
static const char *const axis_names[6] = {"vx", "vy", "vz", "wx", "wy", "wz"};

lucid_regressor_options lucid_regressor_options_default(void) {
    lucid_regressor_options o = {0u, 0.0};
    return o;
}

lucid_status lucid_regressor_options_check(const lucid_regressor_options *o, const char **why) {
    if (o->columns & ~(unsigned)LUCID_REGRESSOR_ALL) {
        *why = "columns has unknown bits";
        return LUCID_ERR_ARGUMENT;
    }
    if (!isfinite(o->coulomb_smoothing) || o->coulomb_smoothing < 0.0) {
        *why = "coulomb_smoothing must be finite and >= 0";
        return LUCID_ERR_ARGUMENT;
    }
    return LUCID_OK;
}

static size_t ngroups(const lucid_regressor_options *o) {
    size_t n = 0;
    for (int g = 0; g < 4; ++g) n += (o->columns & group_bits[g]) != 0;
    return n;
}

size_t lucid_regressor_ncols(const lucid_model *m, const lucid_regressor_options *o) {
    return 10 * m->nbodies + ngroups(o) * m->nv;
}

/* Body b's inertia in its own frame (the node carries it in the node frame). */
static lucid_inertia body_inertia(const lucid_model *m, size_t b) {
    const lucid_model_body *bd = &m->bodies[b];
    lucid_se3 node_in_body = lucid_se3_inverse(&bd->placement);
    return lucid_sp_inertia_act(&node_in_body, &m->nodes[bd->node].inertia);
}

void lucid_model_regressor_parameters(const lucid_model *m, const lucid_regressor_options *o,
                                      double *theta) {
    for (size_t b = 0; b < m->nbodies; ++b) {
        lucid_inertia in = body_inertia(m, b);
        const double *I = in.I.m;
        double *p = theta + 10 * b;
        p[0] = in.mass, p[1] = in.h.x, p[2] = in.h.y, p[3] = in.h.z;
        p[4] = I[0], p[5] = I[3], p[6] = I[4], p[7] = I[6], p[8] = I[7], p[9] = I[8];
    }
    double *x = theta + 10 * m->nbodies;
    for (int g = 0; g < 4; ++g) {
        if (!(o->columns & group_bits[g])) continue;
        for (size_t k = 0; k < m->nv; ++k)
            x[k] = g == 0 ? m->damping[k] : g == 2 ? m->armature[k] : 0.0;
        x += m->nv;
    }
}

int lucid_regressor_parameter_name(const lucid_model *m, const lucid_regressor_options *o, size_t k,
                                   char *buf, size_t len) {
    if (k < 10 * m->nbodies)
        return snprintf(buf, len, "%s.%s", m->bodies[k / 10].name, inertial_names[k % 10]);
    k -= 10 * m->nbodies;
    for (int g = 0; g < 4; ++g) {
        if (!(o->columns & group_bits[g])) continue;
        if (k >= m->nv) {
            k -= m->nv;
            continue;
        }
        const lucid_model_node *nd = &m->nodes[m->dof_node[k]];
        if (nd->nv == 1) return snprintf(buf, len, "%s.%s", nd->name, group_names[g]);
        return snprintf(buf, len, "%s.%s.%s", nd->name, axis_names[m->dof_axis[k]], group_names[g]);
    }
    return snprintf(buf, len, "?");
}

static inline void put3(double *x, lucid_vec3 a) {
    x[0] = a.x, x[1] = a.y, x[2] = a.z;
}

/* The column of I u for the inertia entry k of [xx xy yy xz yz zz] (I symmetric). */
static lucid_vec3 inertia_column(int k, lucid_vec3 u) {
    switch (k) {
        case 0:
            return lucid_vec3_make(u.x, 0, 0);
        case 1:
            return lucid_vec3_make(u.y, u.x, 0);
        case 2:
            return lucid_vec3_make(0, u.y, 0);
        case 3:
            return lucid_vec3_make(u.z, 0, u.x);
        case 4:
            return lucid_vec3_make(0, u.z, u.y);
        default:
            return lucid_vec3_make(0, 0, u.z);
    }
}

/* With v = (u, w), a = (al, dw) and the classical linear acceleration c = al + w x u:
 * f = m c + dw x h + w x (w x h), n = h x c + I dw + w x (I w): linear in (m, h, I). */
void lucid_body_regressor(const double *v, const double *a, double *B) {
    lucid_vec3 u = lucid_sp_lin(v), w = lucid_sp_ang(v), dw = lucid_sp_ang(a);
    lucid_vec3 c = lucid_vec3_add(lucid_sp_lin(a), lucid_vec3_cross(w, u));
    memset(B, 0, 60 * sizeof *B);
    put3(B, c); /* mass: force only */
    for (int k = 0; k < 3; ++k) {
        lucid_vec3 e = lucid_vec3_make(k == 0, k == 1, k == 2);
        lucid_vec3 f =
            lucid_vec3_add(lucid_vec3_cross(dw, e), lucid_vec3_cross(w, lucid_vec3_cross(w, e)));
        put3(B + 6 * (1 + k), f);
        put3(B + 6 * (1 + k) + 3, lucid_vec3_cross(e, c));
    }
    for (int k = 0; k < 6; ++k) /* rotational inertia: moment only */
        put3(B + 6 * (4 + k) + 3,
             lucid_vec3_add(inertia_column(k, dw), lucid_vec3_cross(w, inertia_column(k, w))));
}

/* Body b's 10 wrench columns in its node's frame, then up to the root: each dof's row takes
 * its axis component, each parent step maps the wrenches into the parent's frame. */
static void body_columns(const lucid_model *m, const lucid_model_data *d, size_t b, double *Y,
                         size_t ldy) {
    const lucid_model_body *bd = &m->bodies[b];
    double vb[6], ab[6], B[60], F[60];
    lucid_sp_motion_act_inv(&bd->placement, d->v + 6 * bd->node, vb);
    lucid_sp_motion_act_inv(&bd->placement, d->a + 6 * bd->node, ab);
    lucid_body_regressor(vb, ab, B);
    for (int c = 0; c < 10; ++c) lucid_sp_force_act(&bd->placement, B + 6 * c, F + 6 * c);
    double *Yb = Y + ldy * 10 * b;
    for (int j = bd->node; j >= 0; j = m->nodes[j].parent) {
        const lucid_model_node *nd = &m->nodes[j];
        for (size_t k = 0; k < nd->nv; ++k) {
            size_t dof = nd->idx_v + k;
            int ax = m->dof_axis[dof];
            for (int c = 0; c < 10; ++c) Yb[dof + ldy * (size_t)c] = F[6 * c + ax];
        }
        if (nd->parent < 0) break;
        for (int c = 0; c < 10; ++c) {
            double t[6];
            lucid_sp_force_act(&d->liMi[j], F + 6 * c, t);
            memcpy(F + 6 * c, t, sizeof t);
        }
    }
}

static double coulomb(double v, double eps) {
    if (eps > 0.0) return tanh(v / eps);
    return v > 0.0 ? 1.0 : v < 0.0 ? -1.0 : 0.0;
}

void lucid_model_joint_torque_regressor(const lucid_model *m, lucid_model_data *d,
                                        const lucid_regressor_options *o, const double *q,
                                        const double *v, const double *a, double *Y, size_t ldy) {
    size_t nv = m->nv, ncols = lucid_regressor_ncols(m, o);
    for (size_t c = 0; c < ncols; ++c) memset(Y + ldy * c, 0, nv * sizeof *Y);
    lucid_model_forward_kinematics(m, d, q);
    lucid_model_rnea_forward(m, d, v, a);
    for (size_t b = 0; b < m->nbodies; ++b) body_columns(m, d, b, Y, ldy);
    double *X = Y + ldy * 10 * m->nbodies;
    for (int g = 0; g < 4; ++g) {
        if (!(o->columns & group_bits[g])) continue;
        for (size_t k = 0; k < nv; ++k)
            X[k + ldy * k] = g == 0   ? v[k]
                             : g == 1 ? coulomb(v[k], o->coulomb_smoothing)
                             : g == 2 ? a[k]
                                      : 1.0;
        X += ldy * nv;
    }
}
