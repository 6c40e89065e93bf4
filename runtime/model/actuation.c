/* Actuator forces in MuJoCo 2.2.2's gain/bias form (mj_fwdActuation with a joint, fixed-tendon
 * or slider-crank transmission): with the length L = gear q on a 1-dof joint (gear L_t on a
 * tendon, gear L_crank on a slider-crank) and its velocity Ld,
 *   f = (g0 + g1 L + g2 Ld) w + b0 + b1 L + b2 Ld,  clamped to forcerange,
 *   tau = f dL/dq  (MuJoCo's qfrc_actuator: gear on the joint's dof, gear coef on a tendon's),
 * w = clamp(u, ctrlrange) (dyntype none) or the actuator's activation (integrator, filter). */
#include <math.h>
#include <string.h>

#include "runtime/model/model_internal.h"
#include "runtime/model/spatial.h"

double lucid_model_tendon_length(const lucid_model_tendon *T, const double *q) {
    double L = 0.0;
    for (size_t i = 0; i < T->n; ++i) L += T->coef[i] * q[T->coord[i]];
    return L;
}

double lucid_model_tendon_velocity(const lucid_model_tendon *T, const double *v) {
    double Ld = 0.0;
    for (size_t i = 0; i < T->n; ++i) Ld += T->coef[i] * v[T->dof[i]];
    return Ld;
}

void lucid_model_tendon_passive(const lucid_model *m, const double *q, const double *v,
                                double *tau) {
    for (size_t t = 0; t < m->ntendons; ++t) {
        const lucid_model_tendon *T = &m->tendons[t];
        double f = 0.0;
        if (T->stiffness != 0.0)
            f -= T->stiffness * (lucid_model_tendon_length(T, q) - T->springlength);
        if (T->damping != 0.0) f -= T->damping * lucid_model_tendon_velocity(T, v);
        for (size_t i = 0; f != 0.0 && i < T->n; ++i) tau[T->dof[i]] += f * T->coef[i];
    }
}

/* ---- slider-crank (MuJoCo 2.2.2's mj_transmission, mjTRN_SLIDERCRANK) ----------------------
 * The poses come from walking each frame's chain at q (no model data, nothing allocated); a
 * dof's moment entry from its world column (lin, ang): the crank pin moves by lin + ang x p_c,
 * the slider origin by lin + ang x p_s and its axis by ang x a. */

/* The world pose of node j at q (its ancestors composed). */
static lucid_se3 node_pose(const lucid_model *m, int j, const double *q) {
    const lucid_model_node *nd = &m->nodes[j];
    lucid_se3 XJ = lucid_joint_motion(nd, q + nd->idx_q);
    lucid_se3 l = lucid_se3_compose(&nd->X_tree, &XJ);
    if (nd->parent < 0) return l;
    lucid_se3 p = node_pose(m, nd->parent, q);
    return lucid_se3_compose(&p, &l);
}

static lucid_se3 frame_pose(const lucid_model *m, int f, const double *q) {
    const lucid_model_frame *fr = &m->frames[f];
    if (fr->node < 0) return fr->placement;
    lucid_se3 X = node_pose(m, fr->node, q);
    return lucid_se3_compose(&X, &fr->placement);
}

/* The slider-crank at q: pin p_c, slider origin p_s and axis a, length (before gear) and the
 * length's gradients in v = p_c - p_s and in a. */
typedef struct crank_state {
    lucid_vec3 pc, ps, a, dldv, dlda;
    double L;
} crank_state;

static crank_state crank_at(const lucid_model_actuator *A, const double *q) {
    crank_state c;
    lucid_se3 C = frame_pose(A->model, A->crank, q), S = frame_pose(A->model, A->slider, q);
    c.pc = C.t, c.ps = S.t;
    c.a = lucid_mat3_mul_vec(&S.R, lucid_vec3_make(0.0, 0.0, 1.0));
    lucid_vec3 v = lucid_vec3_sub(c.pc, c.ps);
    double av = lucid_vec3_dot(v, c.a), r = A->cranklength;
    double det = av * av + r * r - lucid_vec3_dot(v, v);
    if (det <= 0.0) { /* the rod cannot reach the axis: MuJoCo's L = a.v and its gradients */
        c.L = av, c.dldv = c.a, c.dlda = v;
        return c;
    }
    double sdet = sqrt(det);
    c.L = av - sdet;
    c.dldv =
        lucid_vec3_add(lucid_vec3_scale(c.a, 1.0 - av / sdet), lucid_vec3_scale(v, 1.0 / sdet));
    c.dlda = lucid_vec3_scale(v, 1.0 - av / sdet);
    return c;
}

/* The part of dL/dq_k (before gear) from frame f's chain when dof k moves it: node j carries k. */
static double chain_entry(const lucid_model *m, int f, const double *q, size_t k, lucid_vec3 p,
                          lucid_vec3 wp, const lucid_vec3 *a, lucid_vec3 wa) {
    for (int j = m->frames[f].node; j >= 0; j = m->nodes[j].parent) {
        const lucid_model_node *nd = &m->nodes[j];
        if (k < nd->idx_v || k >= nd->idx_v + nd->nv) continue;
        lucid_se3 X = node_pose(m, j, q);
        double w[6];
        lucid_sp_world_column(&X, m->dof_axis[k], w);
        lucid_vec3 lin = lucid_sp_lin(w), ang = lucid_sp_ang(w);
        double e = lucid_vec3_dot(wp, lucid_vec3_add(lin, lucid_vec3_cross(ang, p)));
        if (a) e += lucid_vec3_dot(wa, lucid_vec3_cross(ang, *a));
        return e;
    }
    return 0.0;
}

/* dL/dq_k of a slider-crank (gear included). */
static double crank_entry(const lucid_model_actuator *A, const crank_state *c, const double *q,
                          size_t k) {
    const lucid_model *m = A->model;
    double e = chain_entry(m, A->crank, q, k, c->pc, c->dldv, NULL, c->dlda);
    e += chain_entry(m, A->slider, q, k, c->ps, lucid_vec3_scale(c->dldv, -1.0), &c->a, c->dlda);
    return A->gear * e;
}

/* ---- every transmission ----------------------------------------------------------------- */

double lucid_model_actuator_length(const lucid_model_actuator *A, const double *q) {
    if (A->crank >= 0) return A->gear * crank_at(A, q).L;
    return A->gear * (A->tendon ? lucid_model_tendon_length(A->tendon, q) : q[A->coord]);
}

double lucid_model_actuator_velocity(const lucid_model_actuator *A, const double *q,
                                     const double *v) {
    if (A->crank >= 0) { /* MuJoCo's actuator_velocity = moment . qvel */
        crank_state c = crank_at(A, q);
        double Ld = 0.0;
        for (size_t k = 0; k < A->model->nv; ++k)
            if (v[k] != 0.0) Ld += crank_entry(A, &c, q, k) * v[k];
        return Ld;
    }
    return A->gear * (A->tendon ? lucid_model_tendon_velocity(A->tendon, v) : v[A->dof]);
}

void lucid_model_actuator_add_moment(const lucid_model_actuator *A, const double *q, double scale,
                                     double *tau) {
    if (A->crank >= 0) {
        crank_state c = crank_at(A, q);
        for (size_t k = 0; k < A->model->nv; ++k) tau[k] += scale * crank_entry(A, &c, q, k);
        return;
    }
    if (!A->tendon) {
        tau[A->dof] += scale * A->gear;
        return;
    }
    for (size_t i = 0; i < A->tendon->n; ++i)
        tau[A->tendon->dof[i]] += scale * A->gear * A->tendon->coef[i];
}

void lucid_model_actuator_add_outer(const lucid_model_actuator *A, const double *q, double scale,
                                    double *R, size_t nv) {
    if (A->crank >= 0) {
        crank_state c = crank_at(A, q);
        for (size_t i = 0; i < nv; ++i) {
            double ri = crank_entry(A, &c, q, i);
            for (size_t k = 0; ri != 0.0 && k < nv; ++k)
                R[i + nv * k] += scale * ri * crank_entry(A, &c, q, k);
        }
        return;
    }
    if (!A->tendon) {
        R[A->dof + nv * A->dof] += scale * A->gear * A->gear;
        return;
    }
    const lucid_model_tendon *T = A->tendon;
    double g2 = A->gear * A->gear;
    for (size_t i = 0; i < T->n; ++i)
        for (size_t k = 0; k < T->n; ++k)
            R[T->dof[i] + nv * T->dof[k]] += scale * g2 * T->coef[i] * T->coef[k];
}

double lucid_model_actuator_gain(const lucid_model_actuator *A, const double *q, const double *v) {
    double L = lucid_model_actuator_length(A, q), Ld = lucid_model_actuator_velocity(A, q, v);
    return A->gain[0] + A->gain[1] * L + A->gain[2] * Ld;
}

static double clamp_control(const lucid_model_actuator *A, double u) {
    return A->ctrl_limited ? fmin(fmax(u, A->ctrl_lower), A->ctrl_upper) : u;
}

double lucid_model_actuator_input(const lucid_model_actuator *A, double u, const double *act) {
    return A->act >= 0 ? act[A->act] : clamp_control(A, u);
}

double lucid_model_actuator_force(const lucid_model_actuator *A, const double *q, const double *v,
                                  double u, const double *act) {
    double w = lucid_model_actuator_input(A, u, act);
    double L = lucid_model_actuator_length(A, q), Ld = lucid_model_actuator_velocity(A, q, v);
    double f =
        lucid_model_actuator_gain(A, q, v) * w + A->bias[0] + A->bias[1] * L + A->bias[2] * Ld;
    if (A->force_limited) f = fmin(fmax(f, A->force_lower), A->force_upper);
    return f;
}

/* ---- actuator dynamics (MuJoCo 2.2.2's act_dot and mj_advance) --------------------------- */

double lucid_model_actuator_act_dot(const lucid_model_actuator *A, double u, double a) {
    double uc = clamp_control(A, u);
    switch (A->dyn) {
        case LUCID_ACTUATOR_DYN_INTEGRATOR:
            return uc;
        case LUCID_ACTUATOR_DYN_FILTER:
            return (uc - a) / A->timeconst;
        default:
            return 0.0;
    }
}

double lucid_model_actuator_act_next(const lucid_model_actuator *A, double u, double a, double dt) {
    double next = a + dt * lucid_model_actuator_act_dot(A, u, a);
    return A->act_limited ? fmin(fmax(next, A->act_lower), A->act_upper) : next;
}

void lucid_model_actuation(const lucid_model *m, const double *q, const double *v, const double *u,
                           const double *act, double *tau) {
    memset(tau, 0, m->nv * sizeof *tau);
    for (size_t a = 0; a < m->nu; ++a) {
        const lucid_model_actuator *A = &m->actuators[a];
        lucid_model_actuator_add_moment(A, q, lucid_model_actuator_force(A, q, v, u[a], act), tau);
    }
}
