/* One time step: free velocities, contacts, the contact problem, integration on SE(3). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/math/so3.h"
#include "runtime/world/world_internal.h"

/* Newton iterations of the midpoint rule: its residual is at round-off after a few (quadratic
 * convergence); more mean dt |w| beyond where the rule has a unique solution nearby. */
#define MIDPOINT_MAX_ITER 20

/* J = I + dt/2 (hat(m) I - hat(I m)): d/dwb+ of the midpoint residual below (with sign = +1),
 * or, with sign = -1, I - dt/2 (...) = -d/dwb of it. */
static lucid_mat3 midpoint_jacobian(const lucid_mat3 *I, lucid_vec3 m, double dt, double sign) {
    lucid_mat3 A = lucid_mat3_hat(m), B = lucid_mat3_hat(lucid_mat3_mul_vec(I, m));
    A = lucid_mat3_mul(&A, I);
    A = lucid_mat3_sub(&A, &B);
    A = lucid_mat3_scale(&A, 0.5 * sign * dt);
    return lucid_mat3_add(&A, I);
}

/* Torque-free rotation by the implicit midpoint rule in the body frame:
 *   I (wb+ - wb) + dt m x I m = 0,   m = (wb + wb+) / 2,
 * which keeps both quadratic invariants of Euler's equations, the kinetic energy wb.I wb / 2
 * and |I wb| = |L|, to the solve's round-off (implicit Euler dissipates both). The rotation update
 * exp(dt w+) R leaves wb+ the body-frame velocity after the step, so the step keeps them too.
 * Newton from wb; *m_out receives the final m (for the derivatives). A singular Jacobian or a
 * non-finite iterate keeps the last finite one. */
static lucid_vec3 midpoint_body_velocity(const lucid_mat3 *I, lucid_vec3 wb, double dt,
                                         lucid_vec3 *m_out) {
    lucid_vec3 x = wb, Iwb = lucid_mat3_mul_vec(I, wb);
    double scale = lucid_vec3_norm(Iwb);
    for (int it = 0; it < MIDPOINT_MAX_ITER; ++it) {
        lucid_vec3 m = lucid_vec3_scale(lucid_vec3_add(wb, x), 0.5);
        lucid_vec3 F = lucid_vec3_sub(lucid_mat3_mul_vec(I, x), Iwb);
        F = lucid_vec3_axpy(F, dt, lucid_vec3_cross(m, lucid_mat3_mul_vec(I, m)));
        if (lucid_vec3_norm(F) <= 4.0 * DBL_EPSILON * scale) break;
        lucid_mat3 J = midpoint_jacobian(I, m, dt, 1.0), Jinv;
        if (!lucid_mat3_inverse(&J, &Jinv)) break;
        lucid_vec3 next = lucid_vec3_sub(x, lucid_mat3_mul_vec(&Jinv, F));
        if (!lucid_vec3_isfinite(next)) break;
        x = next;
    }
    if (m_out) *m_out = lucid_vec3_scale(lucid_vec3_add(wb, x), 0.5);
    return x;
}

/* The midpoint rule on a body's world angular velocity (in and out in world axes). */
static lucid_vec3 rotation_step(const lucid_body *b, lucid_vec3 w_world, double dt) {
    lucid_vec3 wb = lucid_mat3_tmul_vec(&b->pose.R, w_world);
    return lucid_mat3_mul_vec(&b->pose.R, midpoint_body_velocity(&b->inertia, wb, dt, NULL));
}

lucid_status lucid_world_body_free_velocity_jacobians(const lucid_world *w, int body,
                                                      double *dfree_dxi, double *dstart_dxi,
                                                      double *dfree_du) {
    if (body < 0 || body >= w->num_bodies) return LUCID_ERR_ARGUMENT;
    const lucid_body *b = &w->bodies[body];
    if (b->is_static || b->model >= 0) return LUCID_ERR_ARGUMENT;
    const double dt = w->opt.dt;
    const lucid_mat3 *R = &b->pose.R, *I = &b->inertia;
    lucid_vec3 rc = lucid_mat3_mul_vec(R, b->com);
    /* the midpoint rule F(wb+, wb) = I (wb+ - wb) + dt m x I m = 0 differentiated at its
     * solution: dwb+ = J(m)^-1 (I - dt/2 (hat(m) I - hat(I m))) dwb (identity when J is
     * singular, where the solve keeps its last iterate) */
    lucid_vec3 m, wb = lucid_mat3_tmul_vec(R, b->w);
    midpoint_body_velocity(I, wb, dt, &m);
    lucid_mat3 J = midpoint_jacobian(I, m, dt, 1.0), Jinv, G = lucid_mat3_identity();
    if (lucid_mat3_inverse(&J, &Jinv)) {
        lucid_mat3 K = midpoint_jacobian(I, m, dt, -1.0);
        G = lucid_mat3_mul(&Jinv, &K);
    }
    lucid_mat3 RG = lucid_mat3_mul(R, &G), Rrc = lucid_mat3_hat(rc),
               Iinv = lucid_body_inv_inertia_world(b);
    Rrc = lucid_mat3_mul(&Rrc, R); /* d(w x rc) = -rc x dw = -hat(rc) R dxi_w */
    memset(dfree_dxi, 0, 36 * sizeof(double));
    memset(dstart_dxi, 0, 36 * sizeof(double));
    memset(dfree_du, 0, 36 * sizeof(double));
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) {
            double Rrk = lucid_mat3_at(R, r, k);
            /* linear: v_start = R v_b + (R w_b) x rc */
            dstart_dxi[r + 6 * k] = dfree_dxi[r + 6 * k] = Rrk;
            dstart_dxi[r + 6 * (k + 3)] = dfree_dxi[r + 6 * (k + 3)] = -lucid_mat3_at(&Rrc, r, k);
            dstart_dxi[(r + 3) + 6 * (k + 3)] = Rrk;
            dfree_dxi[(r + 3) + 6 * (k + 3)] = lucid_mat3_at(&RG, r, k);
            dfree_du[r + 6 * k] = r == k ? dt * b->inv_mass : 0.0;
            dfree_du[(r + 3) + 6 * (k + 3)] = dt * lucid_mat3_at(&Iinv, r, k);
        }
    return LUCID_OK;
}

static lucid_status reserve_velocities(lucid_world *w) {
    size_t n = (size_t)w->num_bodies;
    lucid_status s = LUCID_RESERVE(w, d.v_free, n);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.w_free, n);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.v_start, n);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.w_start, n);
    return s;
}

/* v_free = v + dt (g + f / m), w_free = midpoint rotation step + dt I^-1 tau (centre of mass). */
static void free_velocities(lucid_world *w) {
    const double dt = w->opt.dt;
    for (int i = 0; i < w->num_bodies; ++i) {
        const lucid_body *b = &w->bodies[i];
        w->d.v_start[i] = w->d.w_start[i] = w->d.v_free[i] = w->d.w_free[i] = lucid_vec3_zero();
        if (b->is_static || b->model >= 0) continue; /* links move with their model */
        lucid_vec3 rc = lucid_mat3_mul_vec(&b->pose.R, b->com);
        lucid_vec3 vc = lucid_vec3_add(b->v, lucid_vec3_cross(b->w, rc));
        w->d.v_start[i] = vc, w->d.w_start[i] = b->w;
        lucid_vec3 acc = lucid_vec3_axpy(w->opt.gravity, b->inv_mass, b->force);
        w->d.v_free[i] = lucid_vec3_axpy(vc, dt, acc);
        lucid_mat3 inv = lucid_body_inv_inertia_world(b);
        w->d.w_free[i] =
            lucid_vec3_axpy(rotation_step(b, b->w, dt), dt, lucid_mat3_mul_vec(&inv, b->torque));
    }
}

/* x_com+ = x_com + dt v+, R+ = exp(dt w+) R (on the unit quaternion, renormalised), then back
 * to the body origin. */
static void integrate(lucid_world *w) {
    const double dt = w->opt.dt;
    for (int i = 0; i < w->num_bodies; ++i) {
        lucid_body *b = &w->bodies[i];
        b->force = b->torque = lucid_vec3_zero();
        if (b->is_static || b->model >= 0) continue;
        lucid_vec3 x = lucid_vec3_axpy(lucid_body_com_world(b), dt, w->d.v_free[i]);
        lucid_quat r =
            lucid_quat_mul(lucid_quat_exp(lucid_vec3_scale(w->d.w_free[i], dt)), b->orientation);
        lucid_quat_normalize(&r);
        b->orientation = r;
        b->pose.R = lucid_quat_to_mat3(r);
        lucid_vec3 rc = lucid_mat3_mul_vec(&b->pose.R, b->com);
        b->pose.t = lucid_vec3_sub(x, rc);
        b->w = w->d.w_free[i];
        b->v = lucid_vec3_sub(w->d.v_free[i], lucid_vec3_cross(b->w, rc));
        lucid_body_sync_twist(b);
    }
}

static int state_finite(const lucid_world *w) {
    for (int i = 0; i < w->num_bodies; ++i) {
        const lucid_body *b = &w->bodies[i];
        if (!lucid_vec3_isfinite(b->pose.t) || !lucid_vec3_isfinite(b->v) ||
            !lucid_vec3_isfinite(b->w) || !lucid_mat3_isfinite(&b->pose.R))
            return 0;
    }
    return lucid_world_models_finite(w);
}

/* Records why the step failed (unless a more precise reason was recorded) and returns s. The
 * statistics say so too: not converged, and no residual (NaN) since no answer was applied. */
static lucid_status failed(lucid_world *w, const char *stage, lucid_status s) {
    if (s == LUCID_OK) return s;
    if (w->d.error[0] == '\0')
        snprintf(w->d.error, sizeof w->d.error, "%s: %s", stage, lucid_status_string(s));
    w->d.stats.converged = 0;
    w->d.stats.residual = w->d.stats.scaled_residual = NAN;
    return s;
}

/* Fresh statistics, the velocity buffers and v_free / w_free of the free bodies. */
static lucid_status start_step(lucid_world *w) {
    memset(&w->d.stats, 0, sizeof w->d.stats);
    w->d.stats.converged = 1;
    w->d.num_island_info = 0;
    w->d.error[0] = '\0';
    lucid_status s = reserve_velocities(w);
    if (s != LUCID_OK) return failed(w, "velocity buffers", s);
    free_velocities(w);
    return LUCID_OK;
}

lucid_status lucid_world_step_begin(lucid_world *w) {
    lucid_status s = start_step(w);
    if (s == LUCID_OK) lucid_world_models_begin_step(w);
    return s;
}

lucid_status lucid_world_step_prepare(lucid_world *w) {
    lucid_status s = lucid_world_step_begin(w);
    if (s != LUCID_OK) return s;
    s = lucid_world_collide(w);
    if (s == LUCID_OK) s = lucid_world_models_limits(w);
    if (s == LUCID_OK) s = lucid_world_models_friction_rows(w);
    return s == LUCID_OK ? LUCID_OK : failed(w, "collision detection", s);
}

lucid_status lucid_world_step_prepare_velocities(lucid_world *w) {
    lucid_status s = start_step(w);
    if (s == LUCID_OK) lucid_world_models_free_velocities(w);
    return s;
}

/* dt (f . v+ + tau . w+) over the free bodies' applied wrenches (v+ at the centre of mass, where
 * f acts), plus the models' actuators and springs: read before integrate clears the wrenches. */
static double applied_work(const lucid_world *w) {
    double work = 0.0;
    for (int i = 0; i < w->num_bodies; ++i) {
        const lucid_body *b = &w->bodies[i];
        if (b->is_static || b->model >= 0 || (size_t)i >= w->d.v_free_cap) continue;
        work += w->opt.dt * (lucid_vec3_dot(b->force, w->d.v_free[i]) +
                             lucid_vec3_dot(b->torque, w->d.w_free[i]));
    }
    return work + lucid_world_models_actuation_work(w);
}

lucid_status lucid_world_step_integrate(lucid_world *w) {
    w->d.applied_work = applied_work(w);
    integrate(w);
    lucid_world_models_integrate(w);
    return state_finite(w) ? LUCID_OK : failed(w, "integration", LUCID_ERR_NONFINITE);
}

/* The energy-jump guard (lucid_world_stats.energy_jump): the kinetic energy after the step
 * against what it had plus the positive work of gravity, applied wrenches, actuators and
 * springs, plus E_c, the energy the default position correction may give every body of mass m:
 * m g_n slop as speed (v_c = sqrt(2 g_n slop)) and m |g| slop as height. A correction speed set
 * far above the default launches bodies, and the guard says so.
 * Contacts and limits otherwise only take energy (restitution at most keeps it). */
static void energy_guard(lucid_world *w, const lucid_world_energy *before) {
    lucid_world_energy after = lucid_world_energy_after_integrate(w);
    double mass = lucid_world_models_total_mass(w);
    for (int i = 0; i < w->num_bodies; ++i) mass += w->bodies[i].mass; /* static: 0 */
    double allowance =
        mass * (LUCID_STANDARD_GRAVITY + lucid_vec3_norm(w->opt.gravity)) * w->opt.slop;
    double work = before->potential - after.potential + w->d.applied_work;
    double bound = before->kinetic + fmax(work, 0.0) + allowance;
    w->d.stats.energy_ratio = bound > 0.0 ? after.kinetic / bound : 0.0;
    w->d.stats.energy_jump = w->d.stats.energy_ratio > LUCID_WORLD_ENERGY_JUMP;
}

static lucid_status two_stage_step(lucid_world *w) {
    lucid_status s = lucid_world_step_prepare(w);
    if (s != LUCID_OK) return s;
    lucid_world_warm_start(w);
    s = lucid_world_solve_contacts(w, w->d.v_start, w->d.w_start);
    if (s != LUCID_OK) return failed(w, "contact solver", s);
    s = lucid_world_remember_forces(w);
    if (s != LUCID_OK) return failed(w, "warm-start memory", s);
    return lucid_world_step_integrate(w);
}

lucid_status lucid_world_step(lucid_world *w) {
    if (!w) return LUCID_ERR_ARGUMENT;
    lucid_world_energy before = lucid_world_energy_of(w);
    lucid_status s = w->opt.collision == LUCID_WORLD_COLLISION_SINGLE_LEVEL
                         ? lucid_world_step_single_level(w)
                         : two_stage_step(w);
    if (s == LUCID_OK) energy_guard(w, &before); /* both steps end in lucid_world_step_integrate */
    return s;
}
