/* Actuator forces in MuJoCo 2.2.2's gain/bias form (mj_fwdActuation with a joint, tendon or
 * slider-crank transmission): with the length L = gear q on a 1-dof joint (gear L_t on a
 * tendon, gear L_crank on a slider-crank) and its velocity Ld,
 *   f = (g0 + g1 L + g2 Ld) w + b0 + b1 L + b2 Ld,  clamped to forcerange,
 *   tau = f dL/dq  (MuJoCo's qfrc_actuator: gear on the joint's dof, gear times a tendon's
 *   moment (runtime/model/tendon.c)),
 * w = clamp(u, ctrlrange) (dyntype none) or the actuator's activation (integrator, filter,
 * muscle). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "runtime/model/model_internal.h"
#include "runtime/model/spatial.h"

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
    lucid_vec3 pc, ps, a, v, dldv, dlda;
    double L, av, sdet; /* sdet: sqrt(det), 0 where the rod cannot reach the axis */
} crank_state;

static crank_state crank_at(const lucid_model_actuator *A, const double *q) {
    crank_state c;
    lucid_se3 C = frame_pose(A->model, A->crank, q), S = frame_pose(A->model, A->slider, q);
    c.pc = C.t, c.ps = S.t;
    c.a = lucid_mat3_mul_vec(&S.R, lucid_vec3_make(0.0, 0.0, 1.0));
    lucid_vec3 v = c.v = lucid_vec3_sub(c.pc, c.ps);
    double av = c.av = lucid_vec3_dot(v, c.a), r = A->cranklength;
    double det = av * av + r * r - lucid_vec3_dot(v, v);
    c.sdet = 0.0;
    if (det <= 0.0) { /* the rod cannot reach the axis: MuJoCo's L = a.v and its gradients */
        c.L = av, c.dldv = c.a, c.dlda = v;
        return c;
    }
    double sdet = c.sdet = sqrt(det);
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

/* ---- the slider-crank moment's change with q ----------------------------------------------
 * r_i = dL/dq_i = dldv . dv_i + dlda . da_i, with dv_i, da_i the motion of v and a per unit rate
 * of dof i. Moving dof k (q (+) t e_k, as the step derivatives' tangents) changes r_i through
 * the gradients (dldv, dlda move with v and a) and through dv_i, da_i: frame points move by
 * dof k's world column J_k, and dof i's column turns by J_k x J_i when i is at or below k's
 * node (runtime/world/step_positions.c's convention). */

/* Dof k's world column and the motion of v and a per unit rate of it. */
typedef struct crank_dof {
    lucid_vec3 lin, ang, dv, da;
    int crank, slider; /* whether k moves the crank pin, the slider's frame */
} crank_dof;

/* Whether dof k moves frame f (k on the chain of the node carrying f). */
static int moves_frame(const lucid_model *m, int f, size_t k) {
    for (int j = m->frames[f].node; j >= 0; j = m->nodes[j].parent)
        if (k >= m->nodes[j].idx_v && k < m->nodes[j].idx_v + m->nodes[j].nv) return 1;
    return 0;
}

static lucid_vec3 point_rate(const crank_dof *d, lucid_vec3 p) {
    return lucid_vec3_add(d->lin, lucid_vec3_cross(d->ang, p));
}

static crank_dof crank_dof_at(const lucid_model_actuator *A, const crank_state *c, const double *q,
                              size_t k) {
    const lucid_model *m = A->model;
    crank_dof d = {.crank = moves_frame(m, A->crank, k), .slider = moves_frame(m, A->slider, k)};
    d.lin = d.ang = d.dv = d.da = lucid_vec3_zero();
    if (!d.crank && !d.slider) return d;
    lucid_se3 X = node_pose(m, m->dof_node[k], q);
    double w[6];
    lucid_sp_world_column(&X, m->dof_axis[k], w);
    d.lin = lucid_sp_lin(w), d.ang = lucid_sp_ang(w);
    if (d.crank) d.dv = point_rate(&d, c->pc);
    if (d.slider) {
        d.dv = lucid_vec3_sub(d.dv, point_rate(&d, c->ps));
        d.da = lucid_vec3_cross(d.ang, c->a);
    }
    return d;
}

/* The change of (dldv, dlda) when v and a move by (dv, da): L = a.v - sqrt(det),
 * det = (a.v)^2 + r^2 - v.v (or L = a.v where det <= 0). */
static void gradient_change(const crank_state *c, lucid_vec3 dv, lucid_vec3 da, lucid_vec3 *gv,
                            lucid_vec3 *ga) {
    if (c->sdet == 0.0) {
        *gv = da, *ga = dv;
        return;
    }
    double dav = lucid_vec3_dot(c->a, dv) + lucid_vec3_dot(c->v, da);
    double dsdet = (c->av * dav - lucid_vec3_dot(c->v, dv)) / c->sdet;
    double s = c->av / c->sdet, ds = (dav - s * dsdet) / c->sdet;
    *gv =
        lucid_vec3_add(lucid_vec3_sub(lucid_vec3_scale(da, 1.0 - s), lucid_vec3_scale(c->a, ds)),
                       lucid_vec3_scale(lucid_vec3_sub(dv, lucid_vec3_scale(c->v, dsdet / c->sdet)),
                                        1.0 / c->sdet));
    *ga = lucid_vec3_sub(lucid_vec3_scale(dv, 1.0 - s), lucid_vec3_scale(c->v, ds));
}

/* Whether dof i's world column turns with dof k: i at or below k's node. */
static int column_turns(const lucid_model *m, size_t i, size_t k) {
    if (i < m->nodes[m->dof_node[k]].idx_v) return 0;
    for (int j = lucid_model_node_last_dof(m, m->dof_node[i]); j >= 0; j = m->dof_parent[j])
        if ((size_t)j == k) return 1;
    return 0;
}

/* d r_i / dq_k (gear included) from the two dofs' motions. */
static double crank_curvature(const lucid_model_actuator *A, const crank_state *c, size_t i,
                              const crank_dof *di, size_t k, const crank_dof *dk) {
    lucid_vec3 gv, ga;
    gradient_change(c, dk->dv, dk->da, &gv, &ga);
    double e = lucid_vec3_dot(gv, di->dv) + lucid_vec3_dot(ga, di->da);
    /* dv_i and da_i along k: the frames' points and axis move, dof i's column turns */
    lucid_vec3 tl = lucid_vec3_zero(), ta = lucid_vec3_zero();
    if (column_turns(A->model, i, k)) {
        tl = lucid_vec3_add(lucid_vec3_cross(dk->ang, di->lin), lucid_vec3_cross(dk->lin, di->ang));
        ta = lucid_vec3_cross(dk->ang, di->ang);
    }
    lucid_vec3 ddv = lucid_vec3_zero();
    if (di->crank) {
        lucid_vec3 dpc = dk->crank ? point_rate(dk, c->pc) : lucid_vec3_zero();
        ddv = lucid_vec3_add(lucid_vec3_add(tl, lucid_vec3_cross(ta, c->pc)),
                             lucid_vec3_cross(di->ang, dpc));
    }
    if (di->slider) {
        lucid_vec3 dps = dk->slider ? point_rate(dk, c->ps) : lucid_vec3_zero();
        ddv = lucid_vec3_sub(ddv, lucid_vec3_add(lucid_vec3_add(tl, lucid_vec3_cross(ta, c->ps)),
                                                 lucid_vec3_cross(di->ang, dps)));
        lucid_vec3 dda =
            lucid_vec3_add(lucid_vec3_cross(ta, c->a), lucid_vec3_cross(di->ang, dk->da));
        e += lucid_vec3_dot(c->dlda, dda);
    }
    e += lucid_vec3_dot(c->dldv, ddv);
    return A->gear * e;
}

void lucid_model_actuator_add_moment_change(const lucid_model_actuator *A, const double *q,
                                            const double *v, double f, double g, double *R,
                                            size_t nv, double *scratch) {
    if (A->crank < 0) return; /* a joint's or fixed tendon's moment is constant */
    crank_state c = crank_at(A, q);
    for (size_t i = 0; i < nv; ++i) scratch[i] = crank_entry(A, &c, q, i);
    for (size_t k = 0; k < nv; ++k) {
        crank_dof dk = crank_dof_at(A, &c, q, k);
        if (!dk.crank && !dk.slider) continue;
        double hv = 0.0; /* d Ld / dq_k = sum_l v_l d r_l / dq_k */
        for (size_t l = 0; g != 0.0 && l < nv; ++l) {
            crank_dof dl = crank_dof_at(A, &c, q, l);
            if (v[l] != 0.0 && (dl.crank || dl.slider))
                hv += v[l] * crank_curvature(A, &c, l, &dl, k, &dk);
        }
        for (size_t i = 0; i < nv; ++i) {
            crank_dof di = crank_dof_at(A, &c, q, i);
            if (!di.crank && !di.slider) continue;
            R[i + nv * k] += f * crank_curvature(A, &c, i, &di, k, &dk) + g * scratch[i] * hv;
        }
    }
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
    return A->gear * (A->tendon ? lucid_model_tendon_velocity(A->tendon, q, v) : v[A->dof]);
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
    lucid_model_tendon_add_moment(A->tendon, q, scale * A->gear, 0, SIZE_MAX, tau);
}

void lucid_model_actuator_add_outer(const lucid_model_actuator *A, const double *q, double scale,
                                    double *R, size_t nv, double *scratch) {
    if (!A->tendon && A->crank < 0) {
        R[A->dof + nv * A->dof] += scale * A->gear * A->gear;
        return;
    }
    memset(scratch, 0, nv * sizeof *scratch);
    lucid_model_actuator_add_moment(A, q, 1.0, scratch);
    for (size_t i = 0; i < nv; ++i)
        for (size_t k = 0; scratch[i] != 0.0 && k < nv; ++k)
            R[i + nv * k] += scale * scratch[i] * scratch[k];
}

/* ---- MuJoCo 2.2.2's muscle curves (mju_muscleGain, mju_muscleBias) -------------------------
 * The length normalised to the optimal length L0 = (lr1 - lr0) / (range1 - range0):
 * l = range0 + (len - lr0) / L0, the velocity v = vel / (L0 vmax). The compiler checks what
 * MuJoCo guards with 1e-15 (range0 < range1, lr0 < lr1, lmin < 1 < lmax, vmax > 0, acc0 > 0
 * where force < 0), so no guard is needed here. */

/* The peak force F0: prm's force, or scale / acc0 when it is negative. */
static double muscle_force(double acc0, const double *prm) {
    return prm[2] < 0.0 ? prm[3] / acc0 : prm[2];
}

static double muscle_length(double len, const double lr[2], const double *prm, double *L0) {
    *L0 = (lr[1] - lr[0]) / (prm[1] - prm[0]);
    return prm[0] + (len - lr[0]) / *L0;
}

/* FL: two half-parabolas up from lmin to 1 and two down to lmax, zero beyond lmax. Below lmin
 * MuJoCo 2.2.2 continues the second parabola (its tests skip the first branch there), so FL
 * turns negative: kept, so that the forces are MuJoCo's. */
static double muscle_fl(double l, double lmin, double lmax) {
    double a = 0.5 * (lmin + 1.0), b = 0.5 * (1.0 + lmax), x;
    if (l > lmax) return 0.0;
    if (l >= lmin && l <= a) {
        x = (l - lmin) / (a - lmin);
        return 0.5 * x * x;
    }
    if (l <= 1.0) {
        x = (1.0 - l) / (1.0 - a);
        return 1.0 - 0.5 * x * x;
    }
    if (l <= b) {
        x = (l - 1.0) / (b - 1.0);
        return 1.0 - 0.5 * x * x;
    }
    x = (lmax - l) / (lmax - b);
    return 0.5 * x * x;
}

/* FV: 0 below v = -1, (v + 1)^2 up to 0, then a parabola rising to fvmax at v = fvmax - 1. */
static double muscle_fv(double v, double fvmax) {
    double y = fvmax - 1.0;
    if (v <= -1.0) return 0.0;
    if (v <= 0.0) return (v + 1.0) * (v + 1.0);
    if (v <= y) return fvmax - (y - v) * (y - v) / y;
    return fvmax;
}

/* dFL/dl on the branches of muscle_fl. */
static double muscle_dfl(double l, double lmin, double lmax) {
    double a = 0.5 * (lmin + 1.0), b = 0.5 * (1.0 + lmax);
    if (l > lmax) return 0.0;
    if (l >= lmin && l <= a) return (l - lmin) / ((a - lmin) * (a - lmin));
    if (l <= 1.0) return (1.0 - l) / ((1.0 - a) * (1.0 - a));
    if (l <= b) return -(l - 1.0) / ((b - 1.0) * (b - 1.0));
    return -(lmax - l) / ((lmax - b) * (lmax - b));
}

/* dFV/dv on the branches of muscle_fv. */
static double muscle_dfv(double v, double fvmax) {
    double y = fvmax - 1.0;
    if (v <= -1.0) return 0.0;
    if (v <= 0.0) return 2.0 * (v + 1.0);
    if (v <= y) return 2.0 * (y - v) / y;
    return 0.0;
}

/* The muscle gain's partial derivatives in len and vel. */
static void muscle_gain_partials(double len, double vel, const double lr[2], double acc0,
                                 const double *prm, double *d_len, double *d_vel) {
    double L0, l = muscle_length(len, lr, prm, &L0), v = vel / (L0 * prm[6]);
    double f0 = muscle_force(acc0, prm);
    *d_len = -f0 * muscle_dfl(l, prm[4], prm[5]) * muscle_fv(v, prm[8]) / L0;
    *d_vel = -f0 * muscle_fl(l, prm[4], prm[5]) * muscle_dfv(v, prm[8]) / (L0 * prm[6]);
}

/* The passive force's derivative in len. */
static double muscle_bias_partial(double len, const double lr[2], double acc0, const double *prm) {
    double L0, l = muscle_length(len, lr, prm, &L0);
    double b = 0.5 * (1.0 + prm[5]), f = muscle_force(acc0, prm) * prm[7];
    if (l <= 1.0) return 0.0;
    if (l <= b) return -f * (l - 1.0) / ((b - 1.0) * (b - 1.0) * L0);
    return -f / ((b - 1.0) * L0);
}

double lucid_muscle_gain(double len, double vel, const double lengthrange[2], double acc0,
                         const double *prm) {
    double L0, l = muscle_length(len, lengthrange, prm, &L0);
    double fl = muscle_fl(l, prm[4], prm[5]), fv = muscle_fv(vel / (L0 * prm[6]), prm[8]);
    return -muscle_force(acc0, prm) * fl * fv;
}

/* The passive force: zero below l = 1, a half-parabola to b = (1 + lmax) / 2, linear beyond. */
double lucid_muscle_bias(double len, const double lengthrange[2], double acc0, const double *prm) {
    double L0, l = muscle_length(len, lengthrange, prm, &L0);
    double b = 0.5 * (1.0 + prm[5]), f = muscle_force(acc0, prm) * prm[7];
    if (l <= 1.0) return 0.0;
    if (l <= b) {
        double x = (l - 1.0) / (b - 1.0);
        return -f * 0.5 * x * x;
    }
    return -f * (0.5 + (l - b) / (b - 1.0));
}

double lucid_model_actuator_gain(const lucid_model_actuator *A, const double *q, const double *v) {
    double L = lucid_model_actuator_length(A, q), Ld = lucid_model_actuator_velocity(A, q, v);
    if (A->gain_muscle) return lucid_muscle_gain(L, Ld, A->lengthrange, A->acc0, A->gainprm);
    return A->gain[0] + A->gain[1] * L + A->gain[2] * Ld;
}

void lucid_model_actuator_force_partials(const lucid_model_actuator *A, const double *q,
                                         const double *v, double w, double *d_len, double *d_vel) {
    double L = lucid_model_actuator_length(A, q), Ld = lucid_model_actuator_velocity(A, q, v);
    double gl = A->gain[1], gv = A->gain[2], bl = A->bias[1], bv = A->bias[2];
    if (A->gain_muscle) muscle_gain_partials(L, Ld, A->lengthrange, A->acc0, A->gainprm, &gl, &gv);
    if (A->bias_muscle) bl = muscle_bias_partial(L, A->lengthrange, A->acc0, A->biasprm), bv = 0.0;
    *d_len = gl * w + bl;
    *d_vel = gv * w + bv;
}

double lucid_model_actuator_bias(const lucid_model_actuator *A, const double *q, const double *v) {
    double L = lucid_model_actuator_length(A, q);
    if (A->bias_muscle) return lucid_muscle_bias(L, A->lengthrange, A->acc0, A->biasprm);
    return A->bias[0] + A->bias[1] * L + A->bias[2] * lucid_model_actuator_velocity(A, q, v);
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
    double f = lucid_model_actuator_gain(A, q, v) * w + lucid_model_actuator_bias(A, q, v);
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
        case LUCID_ACTUATOR_DYN_MUSCLE: { /* faster activation at high act, slower release */
            double target = fmin(fmax(uc, 0.0), 1.0), level = 0.5 + 1.5 * fmin(fmax(a, 0.0), 1.0);
            double tau = target > a ? A->muscle_tau[0] * level : A->muscle_tau[1] / level;
            return (target - a) / tau;
        }
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
