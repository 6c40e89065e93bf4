/* Analytic position columns of the step derivatives (step_positions.h); free bodies below
 * (body_free_change, and their own terms in side_force_change and side_velocity).
 * At the nominal forces lambda0 a model's step is
 *   M~(q) (p - v) = dt (tau(q, u) - b(q, v) - D v - dt K v + J(q)^T lambda0),
 * so along a tangent direction e_j of its configuration (dM/dq a* + db/dq = drnea/dq at
 * a* = (p0 - v) / dt less the free joints' turn rate w x l (configuration.h), Carpentier &
 * Mansard's derivatives):
 *   M~ dp = dt (dtau/dq - drnea/dq(q, v, a*) + d(J^T lambda0)/dq) e_j,
 * every other body's final velocity changes through its contact forces' change, and
 *   dsigma_k = (dJ_k p0 + J_k dp - dc*_k e_n) / dt
 * (c*_k the reference normal velocity on the nominal step's piece: its slope in the
 * separation, or -e times the approach velocity's change for an impact).
 * Moving dof j turns the subtree of its node rigidly by exp(t J_j) (J_j its world column), so
 * a link below it moves with the world twist J_j, each dof column k at or below j's node turns
 * by J_j x J_k, and each contact follows its carried geometry (point x, normal, separation
 * linear in its two shapes' local twists, autodiff/contact_geometry_derivatives.h). A
 * contact's force on a side, f = sign F lambda0 (F its frame), acts at x with the wrench
 * W = (f, x x f) about the world origin, and tau_k = J_k . W, hence
 *   dtau_k = J_k . (dW - [k at or below j's node] J_j x* W),  dW = (df, x x df + dx x f),
 * using (J_j x J_k) . W = -J_k . (J_j x* W); the point's velocity V(x) = V_lin + V_ang x x on
 * a link of twist V changes by (J_j x (V - V_above))(x) + V_ang x dx, V_above the twist of the
 * node above j's, since only the dofs at or below j's node turn.
 * With torsional or rolling friction (dim 4 or 6) rows 3.. are angular: row r is c_r e_r .
 * (w2 - w1), e_r = n, t1, t2 for r = 3, 4, 5 and c_r the spin or rolling scale, its force a
 * couple sign c_r lambda_r e_r on each side: the couple joins W's angular part (dW's with
 * the turned e_r), and dsigma_r = c_r (de_r . w_rel + e_r . dw_rel + e_r . J_r dp) / dt, dw of a
 * link the angular part of J_j x (V - V_above) (a free body's w is p's own: 0). */
#include "runtime/world/step_positions.h"

#include <string.h>

#include "runtime/model/configuration.h"
#include "runtime/model/dynamics.h"
#include "runtime/model/spatial.h"
#include "runtime/world/world_internal.h"

struct lucid_step_positions {
    lucid_world *w;
    const lucid_world_contact *contacts;
    int n, ns, np;
    int dim; /* rows per contact of lambda and dsigma (lucid_world_derivative_dim) */
    const lucid_contact_geometry_derivative *geo;
    const double *lambda, *post0;
    const int *branch;
    int *body_slot;  /* per body: a free body's first entry in p, else -1 */
    int *model_slot; /* per model: its first entry in p (lucid_world_post_velocity_slots) */
    size_t *model_dof;
    double *Jw, *V, *Vs; /* per dof of every model (6 each): world column, link twists along
                          * the dof chain at p0 and at the start velocity */
    int model;           /* the model lucid_step_positions_model prepared, or -1 */
    int leave_rows;      /* dsigma without J_k dp, dp before M~^-1
                          * (lucid_step_positions_leave_rows) */
    int body;            /* the free body lucid_step_positions_body prepared, or -1 */
    lucid_vec3 vc, w_free0, tau, rc; /* that body's start (centre of mass) and free angular
                                      * velocities before contact, applied torque and centre
                                      * of mass from its origin, world */
    lucid_mat3 Iinv;                 /* its world inverse inertia */
    double *R0;                      /* its dt (dtau/dq - drnea/dq), nv x nv */
    double *dtau_dv, *astar;
    int *touched;         /* per model, in one column */
    unsigned char *below; /* per dof of the prepared model, in one column: in the column dof's
                           * subtree (set_below) */
    int *moved;           /* per contact, in one column: its geometry moves */
    double *slope;        /* per contact: the slope of c*_k in its separation on its piece, or -e
                           * for an impact (in its approach velocity), as the nominal step fixed */
    double *dx, *dF;      /* per contact: d point (3), d frame (9, column-major) */
};

static inline double dot6(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* The velocity at world point x of the world twist V: V_lin + V_ang x x. */
static lucid_vec3 point_velocity(const double *V, lucid_vec3 x) {
    return lucid_vec3_add(lucid_sp_lin(V), lucid_vec3_cross(lucid_sp_ang(V), x));
}

/* Whether the column's dof is on the chain from dof `last` (of the prepared model) to the
 * root: last lies in its subtree (set_below). */
static int on_chain(const lucid_step_positions *s, int last) {
    return last >= 0 && s->below[last];
}

/* below[k] = whether dof k lies in dof j's subtree (itself included), for the prepared model
 * of nv dofs: a parent's index is below its child's, so one pass from j. */
static void set_below(lucid_step_positions *s, const lucid_model *m, size_t nv, int j) {
    const int *parent = lucid_model_dof_parent(m);
    memset(s->below, 0, nv);
    s->below[j] = 1;
    for (size_t k = (size_t)j + 1; k < nv; ++k) s->below[k] = parent[k] >= j && s->below[parent[k]];
}

lucid_step_positions *
lucid_step_positions_create(lucid_arena *arena, lucid_world *w, const lucid_world_contact *contacts,
                            int n, int ns, const lucid_contact_geometry_derivative *geo,
                            const double *lambda, const double *post0, const int *branch) {
    lucid_step_positions *s = lucid_arena_alloc(arena, 1, sizeof *s);
    if (!s) return NULL;
    *s = (lucid_step_positions){.w = w,
                                .contacts = contacts,
                                .n = n,
                                .ns = ns,
                                .geo = geo,
                                .lambda = lambda,
                                .post0 = post0,
                                .branch = branch,
                                .model = -1,
                                .body = -1,
                                .dim = lucid_world_derivative_dim(w)};
    size_t nm = (size_t)w->num_models, un = (size_t)n, total = 0, nvmax = 0;
    for (size_t i = 0; i < nm; ++i) {
        size_t nv = lucid_model_nv(w->models[i].model);
        total += nv;
        nvmax = nv > nvmax ? nv : nvmax;
    }
    s->body_slot = lucid_arena_alloc(arena, (size_t)w->num_bodies, sizeof(int));
    s->model_slot = lucid_arena_alloc(arena, nm + 1, sizeof(int));
    s->model_dof = lucid_arena_alloc(arena, nm + 1, sizeof(size_t));
    s->Jw = lucid_arena_alloc(arena, 6 * total, sizeof(double));
    s->V = lucid_arena_alloc(arena, 6 * total, sizeof(double));
    s->Vs = lucid_arena_alloc(arena, 6 * total, sizeof(double));
    s->R0 = lucid_arena_alloc(arena, nvmax * nvmax, sizeof(double));
    s->dtau_dv = lucid_arena_alloc(arena, nvmax * nvmax, sizeof(double));
    s->astar = lucid_arena_alloc(arena, nvmax, sizeof(double));
    s->below = lucid_arena_alloc(arena, nvmax, 1);
    s->touched = lucid_arena_alloc(arena, nm, sizeof(int));
    s->moved = lucid_arena_alloc(arena, un, sizeof(int));
    s->slope = lucid_arena_alloc(arena, un, sizeof(double));
    s->dx = lucid_arena_alloc(arena, 3 * un, sizeof(double));
    s->dF = lucid_arena_alloc(arena, 9 * un, sizeof(double));
    if (!s->body_slot || !s->model_slot || !s->model_dof || !s->Jw || !s->V || !s->Vs || !s->R0 ||
        !s->dtau_dv || !s->astar || !s->below || !s->touched || !s->moved || !s->slope || !s->dx ||
        !s->dF)
        return NULL;
    for (int k = 0; k < n; ++k) {
        const lucid_world_contact *c = &w->d.contacts[k];
        s->slope[k] = branch[k] >= 3 ? -lucid_world_contact_restitution(w, c)
                                     : lucid_world_reference_slope(w, c, branch[k]);
    }
    lucid_world_post_velocity_slots(w, s->body_slot, s->model_slot);
    size_t dof = 0;
    for (size_t i = 0; i < nm; ++i) {
        const lucid_world_model *wm = &w->models[i];
        const lucid_model *m = wm->model;
        size_t nv = lucid_model_nv(m);
        s->model_dof[i] = dof;
        /* the world columns and the chains' twists at q0 (wm->data posed there) */
        const double *p = post0 + s->model_slot[i];
        const lucid_se3 *poses = lucid_model_data_joint_poses(wm->data);
        const int *joint = lucid_model_dof_joint(m), *axis = lucid_model_dof_axis(m),
                  *parent = lucid_model_dof_parent(m);
        for (size_t k = 0; k < nv; ++k) {
            lucid_se3 X = lucid_se3_compose(&wm->base, &poses[joint[k]]);
            double *J = s->Jw + 6 * (dof + k), *V = s->V + 6 * (dof + k),
                   *Vs = s->Vs + 6 * (dof + k);
            lucid_sp_world_column(&X, axis[k], J);
            int par = parent[k];
            for (int r = 0; r < 6; ++r) {
                V[r] = (par >= 0 ? s->V[6 * (dof + (size_t)par) + r] : 0.0) + J[r] * p[k];
                Vs[r] = (par >= 0 ? s->Vs[6 * (dof + (size_t)par) + r] : 0.0) + J[r] * wm->v[k];
            }
        }
        dof += nv;
    }
    s->model_dof[nm] = dof;
    s->np = s->model_slot[nm];
    return s;
}

/* Whether model m has a spatial tendon: its moment changes with q, so its springs', dampers',
 * actuators', limit and friction rows' forces turn with it (f dJ/dq), which these columns leave
 * out. */
static int has_spatial_tendon(const lucid_model *m) {
    for (size_t t = 0; t < lucid_model_ntendons(m); ++t)
        if (lucid_model_tendon_is_spatial(&lucid_model_tendons(m)[t])) return 1;
    return 0;
}

void lucid_step_positions_astar(const lucid_world *w, int i, const double *post0, double *astar) {
    const lucid_world_model *wm = &w->models[i];
    const double dt = w->opt.dt;
    for (size_t k = 0; k < lucid_model_nv(wm->model); ++k) astar[k] = (post0[k] - wm->v[k]) / dt;
    lucid_model_free_turn_rate(wm->model, wm->v, -1.0, astar); /* less the free joints' w x l */
}

int lucid_step_positions_model(lucid_step_positions *s, int i, const double *drnea_dq) {
    lucid_world *w = s->w;
    const lucid_world_model *wm = &w->models[i];
    const lucid_model *m = wm->model;
    if (!lucid_world_model_gravity_is_world(w, i) || has_spatial_tendon(m)) return 0;
    size_t nv = lucid_model_nv(m);
    double dt = w->opt.dt;
    if (drnea_dq) {
        memcpy(s->R0, drnea_dq, nv * nv * sizeof(double));
    } else {
        lucid_step_positions_astar(w, i, s->post0 + s->model_slot[i], s->astar);
        lucid_model_rnea_derivatives(m, wm->data, wm->q, wm->v, s->astar, s->R0, s->dtau_dv);
    }
    for (size_t k = 0; k < nv * nv; ++k) s->R0[k] *= -dt;
    lucid_world_model_add_actuation_stiffness(w, i, dt, s->R0);
    s->model = i, s->body = -1;
    return 1;
}

void lucid_step_positions_body(lucid_step_positions *s, int b) {
    const lucid_world *w = s->w;
    const lucid_body *bd = &w->bodies[b];
    s->body = b, s->model = -1;
    s->rc = lucid_mat3_mul_vec(&bd->pose.R, bd->com);
    s->vc = w->d.v_start[b], s->w_free0 = w->d.w_free[b];
    s->tau = bd->torque;
    s->Iinv = lucid_body_inv_inertia_world(bd);
}

/* The prepared free body's pose change along its tangent j (T exp(e_j), linear first): the
 * world rotation phi (R times e_j's angular part) and its centre of mass's displacement. */
static void body_motion(const lucid_step_positions *s, int j, lucid_vec3 *phi, lucid_vec3 *dcom) {
    const lucid_mat3 *R = &s->w->bodies[s->body].pose.R;
    lucid_vec3 lin = j < 3 ? lucid_mat3_col(R, j) : lucid_vec3_zero();
    *phi = j >= 3 ? lucid_mat3_col(R, j - 3) : lucid_vec3_zero();
    *dcom = lucid_vec3_add(lin, lucid_vec3_cross(*phi, s->rc));
}

/* d of the frame (t1, t2, n) lucid_world_contact_frame builds from n, along dn: t1 = a / |a|
 * with a linear in n (the same branch), t2 = n x t1. */
static void frame_derivative(lucid_vec3 n, lucid_vec3 dn, double *dF) {
    int first = fabs(n.x) < 0.57735;
    lucid_vec3 a = first ? lucid_vec3_make(0.0, -n.z, n.y) : lucid_vec3_make(-n.y, n.x, 0.0);
    lucid_vec3 da = first ? lucid_vec3_make(0.0, -dn.z, dn.y) : lucid_vec3_make(-dn.y, dn.x, 0.0);
    double len = lucid_vec3_norm(a);
    lucid_vec3 t1 = lucid_vec3_scale(a, 1.0 / len);
    lucid_vec3 dt1 = lucid_vec3_scale(lucid_vec3_axpy(da, -lucid_vec3_dot(t1, da), t1), 1.0 / len);
    lucid_vec3 dt2 = lucid_vec3_add(lucid_vec3_cross(dn, t1), lucid_vec3_cross(n, dt1));
    lucid_vec3_store(dt1, dF), lucid_vec3_store(dt2, dF + 3), lucid_vec3_store(dn, dF + 6);
}

static lucid_vec3 frame_apply(const double *F, const double *l) {
    return lucid_vec3_make(F[0] * l[0] + F[3] * l[1] + F[6] * l[2],
                           F[1] * l[0] + F[4] * l[1] + F[7] * l[2],
                           F[2] * l[0] + F[5] * l[1] + F[8] * l[2]);
}

/* Contact k's side `side` moves with dof j (a link at or below j's node): its part's local
 * twist into xi. */
static int side_twist(const lucid_step_positions *s, int k, int side, int j, double *xi) {
    const lucid_world *w = s->w;
    const lucid_world_contact *c = &w->d.contacts[k];
    const lucid_body *b = &w->bodies[side ? c->body2 : c->body1];
    memset(xi, 0, 6 * sizeof(double));
    if (s->body >= 0) { /* a free body's own tangent: its local twist is e_j */
        if ((side ? c->body2 : c->body1) != s->body) return 0;
        double e[6] = {0, 0, 0, 0, 0, 0};
        e[j] = 1.0;
        lucid_contact_geometry_twist_part(
            &w->parts[b->part_begin + (side ? c->part2 : c->part1)].pose, e, xi);
        return 1;
    }
    if (b->model != s->model || b->is_static) return 0;
    const lucid_model *m = w->models[s->model].model;
    if (!on_chain(s, lucid_model_joint_last_dof(m, (size_t)b->node))) return 0;
    double xb[6];
    lucid_sp_motion_act_inv(&b->pose, s->Jw + 6 * (s->model_dof[s->model] + (size_t)j), xb);
    lucid_contact_geometry_twist_part(&w->parts[b->part_begin + (side ? c->part2 : c->part1)].pose,
                                      xb, xi);
    return 1;
}

/* Contact k's angular rows' scales c_r (r = 3 .. dim - 1; 0 for a row it has not) and their
 * couple's direction e_r (column r - 3 of (n, t1, t2)) in frame F (column-major 3 x 3). */
static double row_scale(const lucid_world_contact *c, int r) {
    return r == 3 ? lucid_world_contact_spin(c) : lucid_world_contact_roll(c);
}
static lucid_vec3 row_direction(const double *F, int r) {
    int col = r == 3 ? 2 : r - 4;
    return lucid_vec3_load(F + 3 * col);
}

/* The couple sum_r c_r lambda_r e_r of contact k's angular rows in frame F (its frame, or its
 * derivative dF: then the couple's change). */
static lucid_vec3 couple(const lucid_step_positions *s, int k, const double *F) {
    const lucid_world_contact *c = &s->w->d.contacts[k];
    const double *l = s->lambda + s->dim * k;
    lucid_vec3 out = lucid_vec3_zero();
    for (int r = 3; r < s->dim; ++r)
        out = lucid_vec3_axpy(out, row_scale(c, r) * l[r], row_direction(F, r));
    return out;
}

/* dp (rhs of the models, impulses of the free bodies) += the change of contact k's force on
 * side `side` at its moved point and frame. */
static void side_force_change(lucid_step_positions *s, int k, int side, int moving, int j,
                              double *dp) {
    lucid_world *w = s->w;
    const lucid_world_contact *c = &w->d.contacts[k];
    const lucid_contact_side *sd = &w->d.sides[2 * k + side];
    const double dt = w->opt.dt, *l = s->lambda + s->dim * k;
    lucid_vec3 x = c->point, dx = lucid_vec3_load(s->dx + 3 * k);
    lucid_vec3 f = lucid_vec3_scale(frame_apply(c->frame.m, l), sd->sign);
    lucid_vec3 df = lucid_vec3_scale(frame_apply(s->dF + 9 * k, l), sd->sign);
    lucid_vec3 C = lucid_vec3_scale(couple(s, k, c->frame.m), sd->sign);
    lucid_vec3 dC = lucid_vec3_scale(couple(s, k, s->dF + 9 * k), sd->sign);
    if (sd->model >= 0) {
        const lucid_model *m = w->models[sd->model].model;
        const lucid_body *b = &w->bodies[side ? c->body2 : c->body1];
        const double *Jw = s->Jw + 6 * s->model_dof[sd->model];
        double W[6], dW[6], Z[6] = {0, 0, 0, 0, 0, 0};
        lucid_sp_set(W, f, lucid_vec3_add(lucid_vec3_cross(x, f), C));
        lucid_sp_set(
            dW, df,
            lucid_vec3_add(lucid_vec3_add(lucid_vec3_cross(x, df), lucid_vec3_cross(dx, f)), dC));
        int first =
            moving ? (int)lucid_model_joint_idx_v(m, (size_t)lucid_model_dof_joint(m)[j]) : 0;
        if (moving) lucid_sp_cross_force(Jw + 6 * (size_t)j, W, Z);
        double *rhs = dp + s->model_slot[sd->model];
        const int *parent = lucid_model_dof_parent(m);
        for (int q = lucid_model_joint_last_dof(m, (size_t)b->node); q >= 0; q = parent[q]) {
            double val = dot6(Jw + 6 * (size_t)q, dW);
            if (moving && q >= first) val -= dot6(Jw + 6 * (size_t)q, Z);
            rhs[q] += dt * val;
        }
        s->touched[sd->model] = 1;
    } else if (sd->body >= 0) {
        const lucid_body *b = &w->bodies[sd->body];
        double *v = dp + s->body_slot[sd->body];
        lucid_vec3 r = lucid_vec3_sub(x, lucid_body_com_world(b));
        lucid_mat3 inv = lucid_body_inv_inertia_world(b);
        lucid_vec3 dr = dx, phi = lucid_vec3_zero(), dcom;
        if (moving) { /* its centre of mass moves, its world inertia turns by phi */
            body_motion(s, j, &phi, &dcom);
            dr = lucid_vec3_sub(dx, dcom);
        }
        lucid_vec3 torque = lucid_vec3_add(lucid_vec3_cross(r, f), C);
        lucid_vec3 dtorque =
            lucid_vec3_add(lucid_vec3_add(lucid_vec3_cross(dr, f), lucid_vec3_cross(r, df)), dC);
        /* d(I^-1 t) = I^-1 (dt - phi x t) + phi x I^-1 t */
        dtorque = lucid_vec3_sub(dtorque, lucid_vec3_cross(phi, torque));
        lucid_vec3 dw = lucid_vec3_add(lucid_mat3_mul_vec(&inv, dtorque),
                                       lucid_vec3_cross(phi, lucid_mat3_mul_vec(&inv, torque)));
        for (int d = 0; d < 3; ++d) {
            v[d] += dt * b->inv_mass * (&df.x)[d];
            v[3 + d] += dt * (&dw.x)[d];
        }
    }
}

/* Contact k's geometry along dof j: its point, frame and separation changes (moved[k] = 0 and
 * dsep 0 when neither shape moves), and the change of its forces' generalised forces. */
static void contact_geometry(lucid_step_positions *s, int k, int j, double *dp, double *dsep) {
    double xi[12];
    int moving[2] = {side_twist(s, k, 0, j, xi), side_twist(s, k, 1, j, xi + 6)};
    s->moved[k] = moving[0] || moving[1];
    dsep[k] = 0.0;
    if (!s->moved[k]) return;
    const lucid_contact_geometry_derivative *g = &s->geo[k];
    double dx[3] = {0, 0, 0}, dn[3] = {0, 0, 0}, ds = 0.0;
    for (int c = 0; c < 12; ++c) {
        if (xi[c] == 0.0) continue;
        for (int r = 0; r < 3; ++r)
            dx[r] += g->dpoint[r + 3 * c] * xi[c], dn[r] += g->dnormal[r + 3 * c] * xi[c];
        ds += g->dseparation[c] * xi[c];
    }
    memcpy(s->dx + 3 * k, dx, sizeof dx);
    dsep[k] = ds;
    frame_derivative(lucid_mat3_col(&s->w->d.contacts[k].frame, 2), lucid_vec3_load(dn),
                     s->dF + 9 * k);
    for (int side = 0; side < 2; ++side) side_force_change(s, k, side, moving[side], j, dp);
}

/* A side's point velocity and its change along dof j at fixed final velocities (start: at the
 * start velocities instead). */
static void side_velocity(const lucid_step_positions *s, int k, int side, int j, int start,
                          lucid_vec3 *vel, lucid_vec3 *dvel) {
    const lucid_world *w = s->w;
    const lucid_world_contact *c = &w->d.contacts[k];
    const lucid_body *b = &w->bodies[side ? c->body2 : c->body1];
    lucid_vec3 x = c->point, dx = lucid_vec3_load(s->dx + 3 * k);
    *vel = *dvel = lucid_vec3_zero();
    if (b->is_static) return;
    if (b->model < 0) {
        int body = side ? c->body2 : c->body1, slot = s->body_slot[body];
        lucid_vec3 v = start ? w->d.v_start[body] : lucid_vec3_load(s->post0 + slot);
        lucid_vec3 om = start ? w->d.w_start[body] : lucid_vec3_load(s->post0 + slot + 3);
        lucid_vec3 r = lucid_vec3_sub(x, lucid_body_com_world(b));
        *vel = lucid_vec3_add(v, lucid_vec3_cross(om, r));
        *dvel = lucid_vec3_cross(om, dx);
        if (body != s->body) return;
        lucid_vec3 phi, dcom; /* the body itself moves: r by dx - dcom, and its start velocities
                               * (a body-frame state) turn with it: dv = phi x v, dw = phi x w */
        body_motion(s, j, &phi, &dcom);
        *dvel = lucid_vec3_cross(om, lucid_vec3_sub(dx, dcom));
        if (start)
            *dvel = lucid_vec3_add(*dvel,
                                   lucid_vec3_add(lucid_vec3_cross(phi, v),
                                                  lucid_vec3_cross(lucid_vec3_cross(phi, om), r)));
        return;
    }
    const lucid_model *m = w->models[b->model].model;
    int last = lucid_model_joint_last_dof(m, (size_t)b->node);
    if (last < 0) return;
    size_t d0 = s->model_dof[b->model];
    const double *V = (start ? s->Vs : s->V) + 6 * (d0 + (size_t)last);
    *vel = point_velocity(V, x);
    *dvel = lucid_vec3_cross(lucid_sp_ang(V), dx);
    if (b->model != s->model || !on_chain(s, last)) return;
    int above =
        lucid_model_dof_parent(m)[lucid_model_joint_idx_v(m, (size_t)lucid_model_dof_joint(m)[j])];
    double rel[6], t[6];
    for (int r = 0; r < 6; ++r)
        rel[r] = V[r] - (above >= 0 ? (start ? s->Vs : s->V)[6 * (d0 + (size_t)above) + r] : 0.0);
    lucid_sp_cross_motion(s->Jw + 6 * (d0 + (size_t)j), rel, t);
    *dvel = lucid_vec3_add(*dvel, point_velocity(t, x));
}

/* A side's angular velocity at the final velocities p0 and its change along dof j at fixed p
 * (a free body's is p's own; a link's turns when j is on its chain). */
static void side_angular(const lucid_step_positions *s, int k, int side, int j, lucid_vec3 *om,
                         lucid_vec3 *dom) {
    const lucid_world *w = s->w;
    const lucid_world_contact *c = &w->d.contacts[k];
    const lucid_body *b = &w->bodies[side ? c->body2 : c->body1];
    *om = *dom = lucid_vec3_zero();
    if (b->is_static) return;
    if (b->model < 0) {
        *om = lucid_vec3_load(s->post0 + s->body_slot[side ? c->body2 : c->body1] + 3);
        return;
    }
    const lucid_model *m = w->models[b->model].model;
    int last = lucid_model_joint_last_dof(m, (size_t)b->node);
    if (last < 0) return;
    size_t d0 = s->model_dof[b->model];
    const double *V = s->V + 6 * (d0 + (size_t)last);
    *om = lucid_sp_ang(V);
    if (b->model != s->model || !on_chain(s, last)) return;
    int above =
        lucid_model_dof_parent(m)[lucid_model_joint_idx_v(m, (size_t)lucid_model_dof_joint(m)[j])];
    double rel[6], t[6];
    for (int r = 0; r < 6; ++r)
        rel[r] = V[r] - (above >= 0 ? s->V[6 * (d0 + (size_t)above) + r] : 0.0);
    lucid_sp_cross_motion(s->Jw + 6 * (d0 + (size_t)j), rel, t);
    *dom = lucid_sp_ang(t);
}

/* dsigma of contact k's angular rows r = 3 .. dim - 1: c_r (de_r . w_rel + e_r . dw_rel +
 * [rows kept] J_r dp) / dt. */
static void angular_dsigma(const lucid_step_positions *s, int k, int j, const double *dp,
                           double *ds) {
    const lucid_world *w = s->w;
    const lucid_world_contact *c = &w->d.contacts[k];
    const double dt = w->opt.dt;
    int moved = k < s->ns && s->moved[k];
    lucid_vec3 rel = lucid_vec3_zero(), drel = lucid_vec3_zero();
    for (int side = 0; moved && side < 2; ++side) {
        double sign = w->d.sides[2 * k + side].sign;
        lucid_vec3 om, dom;
        side_angular(s, k, side, j, &om, &dom);
        rel = lucid_vec3_axpy(rel, sign, om), drel = lucid_vec3_axpy(drel, sign, dom);
    }
    for (int r = 3; r < s->dim; ++r) {
        double v = s->leave_rows
                       ? 0.0
                       : lucid_world_contact_row_times(w, k, r, s->body_slot, s->model_slot, dp);
        double scale = row_scale(c, r);
        if (moved && scale > 0.0)
            v += scale * (lucid_vec3_dot(row_direction(s->dF + 9 * k, r), rel) +
                          lucid_vec3_dot(row_direction(c->frame.m, r), drel));
        ds[r] = v / dt;
    }
}

/* dsigma of contact k: (dJ p0 + J dp - dc* e_n) / dt. */
static void contact_dsigma(const lucid_step_positions *s, int k, int j, const double *dp,
                           double dsep, double *ds) {
    const lucid_world *w = s->w;
    const lucid_world_contact *c = &w->d.contacts[k];
    const double dt = w->opt.dt;
    lucid_vec3 du = s->leave_rows
                        ? lucid_vec3_zero()
                        : lucid_world_contact_rows_times(w, k, s->body_slot, s->model_slot, dp);
    double dvb = 0.0;
    if (k < s->ns && s->moved[k]) {
        const double *dF = s->dF + 9 * k;
        lucid_vec3 dn = lucid_vec3_load(dF + 6), n = lucid_mat3_col(&c->frame, 2);
        for (int side = 0; side < 2; ++side) {
            double sign = w->d.sides[2 * k + side].sign;
            lucid_vec3 vel, dvel;
            side_velocity(s, k, side, j, 0, &vel, &dvel);
            for (int d = 0; d < 3; ++d)
                (&du.x)[d] += sign * (lucid_vec3_dot(lucid_vec3_load(dF + 3 * d), vel) +
                                      lucid_vec3_dot(lucid_mat3_col(&c->frame, d), dvel));
            if (s->branch[k] >= 3) {
                side_velocity(s, k, side, j, 1, &vel, &dvel);
                dvb += sign * (lucid_vec3_dot(dn, vel) + lucid_vec3_dot(n, dvel));
            }
        }
    }
    double dc = s->slope[k] * (s->branch[k] >= 3 ? dvb : dsep);
    ds[0] = du.x / dt, ds[1] = du.y / dt, ds[2] = (du.z - dc) / dt;
}

/* The free body's free velocities before contact turn with it: v_free = v_c + dt a and
 * w_free = gyro(R, w) + dt I^-1 tau are rotation-equivariant in (R, w, v_c) at a fixed world
 * tau, so dv_free = phi x v_c, dw_free = phi x w_free - dt I^-1 (phi x tau). */
static void body_free_change(const lucid_step_positions *s, int j, double *dp) {
    lucid_vec3 phi, dcom;
    body_motion(s, j, &phi, &dcom);
    double *p = dp + s->body_slot[s->body];
    lucid_vec3 dv = lucid_vec3_cross(phi, s->vc);
    lucid_vec3 dIt = lucid_mat3_mul_vec(&s->Iinv, lucid_vec3_cross(phi, s->tau));
    lucid_vec3 dw = lucid_vec3_axpy(lucid_vec3_cross(phi, s->w_free0), -s->w->opt.dt, dIt);
    lucid_vec3_store(dv, p), lucid_vec3_store(dw, p + 3);
}

void lucid_step_positions_leave_rows(lucid_step_positions *s) {
    s->leave_rows = 1;
}

void lucid_step_positions_column(lucid_step_positions *s, int j, double *dp, double *dsigma,
                                 double *dsep) {
    lucid_world *w = s->w;
    int i = s->model;
    memset(dp, 0, (size_t)s->np * sizeof(double));
    memset(s->touched, 0, (size_t)w->num_models * sizeof(int));
    if (i >= 0) {
        size_t nv = lucid_model_nv(w->models[i].model);
        set_below(s, w->models[i].model, nv, j);
        for (size_t q = 0; q < nv; ++q) dp[s->model_slot[i] + (int)q] = s->R0[q + nv * (size_t)j];
        s->touched[i] = 1;
    } else {
        body_free_change(s, j, dp);
    }
    for (int k = 0; k < s->ns; ++k) contact_geometry(s, k, j, dp, dsep);
    for (int k = s->ns; k < s->n; ++k) {
        const lucid_world_contact *c = &w->d.contacts[k];
        dsep[k] =
            i >= 0 && c->limit_model == i ? lucid_world_limit_coefficient(w, c, (size_t)j) : 0.0;
    }
    for (int mm = 0; mm < w->num_models && !s->leave_rows; ++mm) {
        if (!s->touched[mm]) continue;
        const lucid_world_model *wm = &w->models[mm];
        lucid_model_mass_solve(wm->model, wm->data, dp + s->model_slot[mm],
                               lucid_model_nv(wm->model), 1);
    }
    for (int k = 0; k < s->n; ++k) {
        contact_dsigma(s, k, j, dp, dsep[k], dsigma + s->dim * k);
        if (s->dim > 3) angular_dsigma(s, k, j, dp, dsigma + s->dim * k);
    }
}
