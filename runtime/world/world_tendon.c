/* Tendons of the world's models (runtime/model/model.h's lucid_model_tendon, fixed and spatial):
 * their length limits as limit rows, their dry friction (frictionloss) as friction rows, and
 * their passive spring and damping forces.
 *
 * A limit is a limit contact like a joint's (lucid_world_contact.limit_sign): one side, the
 * link of the tendon's last dof, frame the identity, separation the distance of L to the bound
 * and include_margin the tendon's margin (so it acts margin inside the range, as MuJoCo's), no
 * friction; its normal Jacobian row is the tendon's moment dL/dq at the model's q (constant for
 * a fixed tendon, +-coef on its dofs) instead of +-e_dof (lucid_world_limit_row), and the
 * position correction, warm start (keyed (model, tendon, sign)) and clone are the joint limits'.
 * A friction row is a joint's (lucid_world_contact.frictionloss) with the moment as its t1 row,
 * keyed (model, tendon). The rows are built over one tree of the model, so the dofs of a tendon
 * with rows are kept in one tree (lucid_world_tendon_span_end).
 *
 * The passive force f = -stiffness (L - springlength) - damping Ld acts along the moment
 * explicitly, as in MuJoCo 2.2.2's mj_passive (its Euler integrator makes only the joints' damping
 * implicit): adding c c^T to M~ would couple the branches the tendon joins and destroy the tree
 * sparsity of M~'s LTDL factor. The step is stable while dt^2 stiffness / (c^T M^-1 c)^-1 and
 * dt damping c^T M^-1 c stay well below 1. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/model/model.h"
#include "runtime/world/world_internal.h"

/* The last dof of tendon t (dofs ascend along every branch). */
static size_t tendon_last_dof(const lucid_model_tendon *T) {
    size_t last = 0;
    for (size_t i = 0; i < T->n; ++i)
        if (T->dof[i] > last) last = T->dof[i];
    return last;
}

static size_t tendon_first_dof(const lucid_model_tendon *T) {
    size_t first = T->dof[0];
    for (size_t i = 1; i < T->n; ++i)
        if (T->dof[i] < first) first = T->dof[i];
    return first;
}

/* Whether tendon T has rows in the contact problem (then its dofs share one tree): a limit, or a
 * dry-friction row (frictionloss > 0) on its moment (lucid_world_tendon_row). A spatial tendon
 * that no dof moves (its path on the world only) has a constant length and a zero moment: no
 * rows (MuJoCo's would have a zero Jacobian row and no effect). */
static int has_rows(const lucid_model_tendon *T) {
    return T->n > 0 && (T->limited || T->frictionloss > 0.0);
}

size_t lucid_world_tendon_span_end(const lucid_model *m, size_t k) {
    size_t end = 0;
    const lucid_model_tendon *tendons = lucid_model_tendons(m);
    for (size_t t = 0; t < lucid_model_ntendons(m); ++t) {
        const lucid_model_tendon *T = &tendons[t];
        if (has_rows(T) && tendon_first_dof(T) == k && tendon_last_dof(T) + 1 > end)
            end = tendon_last_dof(T) + 1;
    }
    return end;
}

int lucid_world_limit_detected(const lucid_world *w, double gap, double rate, double margin) {
    return gap + fmin(0.0, w->opt.dt * rate) < fmax(w->opt.margin, w->opt.slop) + margin;
}

lucid_world_contact lucid_world_model_row(const lucid_world *w, int i, size_t joint, int dof,
                                          int tendon) {
    const lucid_world_model *wm = &w->models[i];
    int body = wm->first_body + lucid_model_joint_body(wm->model, joint);
    lucid_world_contact c;
    memset(&c, 0, sizeof c);
    c.body1 = c.body2 = body;
    c.part1 = c.part2 = -1;
    c.limit_model = i;
    c.limit_dof = dof;
    c.limit_tendon = tendon;
    c.frame = lucid_mat3_identity();
    c.point = w->bodies[body].pose.t;
    return c;
}

lucid_status lucid_world_dry_friction_check(lucid_world *w, int i, const char *what, size_t k) {
    if (w->opt.contact.model != LUCID_CONTACT_CCP) return LUCID_OK;
    snprintf(w->d.error, sizeof w->d.error,
             "dry friction (frictionloss, model %d %s %d) needs contact model ncp, lcp or raisim: "
             "ccp's cone raises its bound",
             i + 1, what, (int)k + 1);
    return LUCID_ERR_ARGUMENT;
}

/* A row of model i's tendon t (a limit's or a dry-friction row): on the link of its last dof. */
static lucid_world_contact tendon_row(const lucid_world *w, int i, size_t t) {
    const lucid_model *m = w->models[i].model;
    size_t joint = (size_t)lucid_model_dof_joint(m)[tendon_last_dof(&lucid_model_tendons(m)[t])];
    return lucid_world_model_row(w, i, joint, -1, (int)t);
}

/* The limit contacts of model i's limited tendons within the detection margin of a bound:
 * separation L - lower (sign +1) or upper - L (sign -1), acting at the tendon's margin. */
lucid_status lucid_world_tendon_limits(lucid_world *w, int i) {
    const lucid_world_model *wm = &w->models[i];
    const lucid_model *m = wm->model;
    const lucid_model_tendon *tendons = lucid_model_tendons(m);
    for (size_t t = 0; t < lucid_model_ntendons(m); ++t) {
        const lucid_model_tendon *T = &tendons[t];
        if (!T->limited || !has_rows(T)) continue;
        double L = lucid_model_tendon_length(T, wm->q);
        double Ld = lucid_model_tendon_velocity(T, wm->q, wm->v_free);
        double gaps[2] = {L - T->lower, T->upper - L}, rates[2] = {Ld, -Ld};
        for (int side = 0; side < 2; ++side) {
            if (!lucid_world_limit_detected(w, gaps[side], rates[side], T->margin)) continue;
            lucid_world_contact c = tendon_row(w, i, t);
            c.limit_sign = side == 0 ? 1 : -1;
            c.separation = gaps[side];
            c.include_margin = T->margin;
            c.friction = 0.0;
            lucid_status s = lucid_world_push_contact(w, &c);
            if (s != LUCID_OK) return s;
        }
    }
    return LUCID_OK;
}

/* The dry-friction rows of model i's tendons with frictionloss f > 0 (after its joints'): one
 * each on the link of the tendon's last joint, its t1 row the moment (|lambda_t1| <= f). */
lucid_status lucid_world_tendon_friction_rows(lucid_world *w, int i) {
    const lucid_world_model *wm = &w->models[i];
    const lucid_model *m = wm->model;
    const lucid_model_tendon *tendons = lucid_model_tendons(m);
    for (size_t t = 0; t < lucid_model_ntendons(m); ++t) {
        const lucid_model_tendon *T = &tendons[t];
        if (!(T->frictionloss > 0.0) || !has_rows(T)) continue;
        lucid_status s = lucid_world_dry_friction_check(w, i, "tendon", t);
        if (s != LUCID_OK) return s;
        lucid_world_contact c = tendon_row(w, i, t);
        c.frictionloss = T->frictionloss;
        c.friction = 1.0; /* the bound is friction x the prescribed normal force f */
        s = lucid_world_push_contact(w, &c);
        if (s != LUCID_OK) return s;
    }
    return LUCID_OK;
}

double lucid_world_limit_coefficient(const lucid_world *w, const lucid_world_contact *c,
                                     size_t dof) {
    if (c->limit_tendon < 0) return (int)dof == c->limit_dof ? c->limit_sign : 0.0;
    const lucid_world_model *wm = &w->models[c->limit_model];
    double e = 0.0;
    lucid_model_tendon_add_moment(&lucid_model_tendons(wm->model)[c->limit_tendon], wm->q,
                                  c->limit_sign, dof, 1, &e);
    return e;
}

void lucid_world_tendon_row(const lucid_world *w, const lucid_world_contact *c, double scale,
                            size_t lo, size_t width, double *row) {
    memset(row, 0, width * sizeof(double));
    if (c->limit_tendon < 0) {
        row[(size_t)c->limit_dof - lo] = scale;
        return;
    }
    const lucid_world_model *wm = &w->models[c->limit_model];
    lucid_model_tendon_add_moment(&lucid_model_tendons(wm->model)[c->limit_tendon], wm->q, scale,
                                  lo, width, row);
}

void lucid_world_limit_row(const lucid_world *w, const lucid_world_contact *c, double sign,
                           size_t lo, size_t width, double *row) {
    lucid_world_tendon_row(w, c, sign * c->limit_sign, lo, width, row);
}

void lucid_world_tendon_passive(const lucid_world_model *wm, double *tau) {
    lucid_model_tendon_passive(wm->model, wm->q, wm->v, tau);
}

double lucid_world_tendon_spring_power(const lucid_world_model *wm, const double *v) {
    const lucid_model *m = wm->model;
    double power = 0.0;
    const lucid_model_tendon *tendons = lucid_model_tendons(m);
    for (size_t t = 0; t < lucid_model_ntendons(m); ++t) {
        const lucid_model_tendon *T = &tendons[t];
        if (T->stiffness == 0.0) continue;
        double f = -T->stiffness * (lucid_model_tendon_length(T, wm->q) - T->springlength);
        power += f * lucid_model_tendon_velocity(T, wm->q, v);
    }
    return power;
}

/* X (nv x nv, column-major) += scale * value_t c_t c_t^T over the tendons, value_t read by get,
 * c_t the moment at the model's q (in wm->moment). */
static void add_outer(const lucid_world_model *wm, double scale,
                      double (*get)(const lucid_model_tendon *), double *X) {
    const lucid_model *m = wm->model;
    size_t nv = lucid_model_nv(m);
    const lucid_model_tendon *tendons = lucid_model_tendons(m);
    double *c = wm->moment;
    for (size_t t = 0; t < lucid_model_ntendons(m); ++t) {
        const lucid_model_tendon *T = &tendons[t];
        double s = scale * get(T);
        if (s == 0.0) continue;
        memset(c, 0, nv * sizeof *c);
        lucid_model_tendon_add_moment(T, wm->q, 1.0, 0, nv, c);
        for (size_t i = 0; i < T->n; ++i)
            for (size_t k = 0; k < T->n; ++k)
                X[T->dof[i] + nv * T->dof[k]] += s * c[T->dof[i]] * c[T->dof[k]];
    }
}

static double damping_of(const lucid_model_tendon *T) {
    return T->damping;
}
static double stiffness_of(const lucid_model_tendon *T) {
    return T->stiffness;
}

void lucid_world_tendon_add_damping(const lucid_world_model *wm, double scale, double *X) {
    add_outer(wm, scale, damping_of, X);
}

void lucid_world_tendon_add_stiffness(const lucid_world_model *wm, double scale, double *R) {
    add_outer(wm, scale, stiffness_of, R);
}
