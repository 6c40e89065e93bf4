/* A model's sensors in the world (model.h "sensors", docs/world.md "Sensors"): MuJoCo 2.2.2's
 * sensordata of the kinds lucid computes. The state sensors read the world's current state
 * (after the last step or set_state), what MuJoCo's mj_forward computes at that state; the
 * step sensors (accelerometer, force, torque, touch) read the last step: its start (q, v) and the
 * acceleration (v+ - v) / dt it applied, what mj_forward computes at the step's start. */
#include <math.h>

#include "runtime/math/quat.h"
#include "runtime/model/dynamics.h"
#include "runtime/model/model.h"
#include "runtime/world/world.h"
#include "runtime/world/world_internal.h"

/* Frame f's twist in its own frame (linear, then angular) at the model's current state; zero
 * for a frame no dof moves (static, mocap). */
static void frame_twist(const lucid_world *w, int id, size_t f, double twist[6]) {
    const lucid_world_model *wm = &w->models[id];
    for (int r = 0; r < 6; ++r) twist[r] = 0.0;
    if (lucid_model_frame_mocap(wm->model, f, NULL) >= 0) return;
    lucid_model_frame_velocity(wm->model, wm->data, f, wm->v, LUCID_REF_LOCAL, twist);
}

static int step_sensor(lucid_sensor_kind kind) {
    return kind == LUCID_SENSOR_ACCELEROMETER || kind == LUCID_SENSOR_FORCE ||
           kind == LUCID_SENSOR_TORQUE || kind == LUCID_SENSOR_TOUCH;
}

/* Signed distance from p to a zone centred at the origin (capsule, cylinder along z; box). */
static double zone_distance(lucid_zone_kind kind, const double s[3], lucid_vec3 p) {
    if (kind == LUCID_ZONE_CAPSULE) {
        double z = fmax(-s[1], fmin(s[1], p.z));
        return sqrt(p.x * p.x + p.y * p.y + (p.z - z) * (p.z - z)) - s[0];
    }
    double e[3];
    int n = kind == LUCID_ZONE_BOX ? 3 : 2; /* a cylinder: radial and axial excess */
    if (kind == LUCID_ZONE_BOX)
        e[0] = fabs(p.x) - s[0], e[1] = fabs(p.y) - s[1], e[2] = fabs(p.z) - s[2];
    else
        e[0] = sqrt(p.x * p.x + p.y * p.y) - s[0], e[1] = fabs(p.z) - s[1];
    double out = 0.0, in = -INFINITY;
    for (int k = 0; k < n; ++k) out += fmax(e[k], 0.0) * fmax(e[k], 0.0), in = fmax(in, e[k]);
    return in > 0.0 ? sqrt(out) : in;
}

/* Whether the ray p + t d (t >= 0, in the zone's frame) meets the zone, as MuJoCo's
 * mju_rayGeom >= 0 (always when p is inside). A sphere or an ellipsoid scales to the unit
 * sphere (an affine map keeps the ray's hit); the others minimise their signed distance, convex
 * along the ray, over t by golden sections down to 1e-12 of the search length. */
int lucid_world_ray_meets_zone(lucid_zone_kind kind, const double s[3], lucid_vec3 p,
                               lucid_vec3 d) {
    if (kind == LUCID_ZONE_SPHERE || kind == LUCID_ZONE_ELLIPSOID) {
        double r[3] = {s[0], kind == LUCID_ZONE_SPHERE ? s[0] : s[1],
                       kind == LUCID_ZONE_SPHERE ? s[0] : s[2]};
        if (!(r[0] > 0.0 && r[1] > 0.0 && r[2] > 0.0)) return 0;
        p = lucid_vec3_make(p.x / r[0], p.y / r[1], p.z / r[2]);
        d = lucid_vec3_make(d.x / r[0], d.y / r[1], d.z / r[2]);
        double pd = lucid_vec3_dot(p, d), dd = lucid_vec3_dot(d, d);
        double t = dd > 0.0 ? fmax(0.0, -pd / dd) : 0.0; /* the ray's closest point */
        return lucid_vec3_norm(lucid_vec3_add(p, lucid_vec3_scale(d, t))) <= 1.0;
    }
    double bound = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    double lo = 0.0, hi = (lucid_vec3_norm(p) + bound) / fmax(lucid_vec3_norm(d), 1e-300);
    const double phi = 0.5 * (sqrt(5.0) - 1.0), tol = 1e-12 * hi;
    while (hi - lo > tol) {
        double a = hi - phi * (hi - lo), b = lo + phi * (hi - lo);
        if (zone_distance(kind, s, lucid_vec3_add(p, lucid_vec3_scale(d, a))) <=
            zone_distance(kind, s, lucid_vec3_add(p, lucid_vec3_scale(d, b))))
            hi = b;
        else
            lo = a;
    }
    return zone_distance(kind, s, lucid_vec3_add(p, lucid_vec3_scale(d, 0.5 * (lo + hi)))) <= 0.0;
}

/* MuJoCo's touch: the sum of the last step's contact normal forces on the site's link whose
 * ray (from the contact point along the normal, away from the link) meets the site's zone;
 * the site posed at the step's start, as the contacts (the data pose_step left). */
static double touch_value(const lucid_world *w, const lucid_world_model *wm, size_t f) {
    const lucid_model *m = wm->model;
    double size[3];
    lucid_zone_kind kind = lucid_model_frame_zone(m, f, size);
    lucid_se3 site = lucid_model_frame_pose(m, wm->data, f);
    site = lucid_se3_compose(&wm->base, &site);
    int node = lucid_model_frame_node(m, f);
    double sum = 0.0;
    for (int k = 0; k < w->d.num_contacts; ++k) {
        const lucid_world_contact *c = &w->d.contacts[k];
        if (c->limit_sign != 0 || c->frictionloss > 0.0 || !(c->force[2] > 0.0)) continue;
        int bodies[2] = {c->body1, c->body2};
        for (int s = 0; s < 2; ++s) {
            int b = bodies[s];
            if (b < wm->first_body || b >= wm->first_body + wm->num_bodies ||
                w->bodies[b].node != node)
                continue;
            lucid_vec3 n = lucid_mat3_col(&c->frame, 2); /* from body1 into body2 */
            if (s == 1) n = lucid_vec3_scale(n, -1.0);
            lucid_vec3 p = lucid_mat3_tmul_vec(&site.R, lucid_vec3_sub(c->point, site.t));
            if (lucid_world_ray_meets_zone(kind, size, p, lucid_mat3_tmul_vec(&site.R, n)))
                sum += c->force[2];
            break; /* a contact counts once, as MuJoCo's */
        }
    }
    return sum;
}

/* The last step's shape contacts' forces on the model's links off their nodes' wrenches (in
 * the model frame; the contacts are those of the step's start configuration). Limits and
 * dry-friction rows act on dofs, not as external forces: they stay in the joint wrenches, as
 * MuJoCo's cfrc_ext holds contacts only. */
static void take_contact_forces(const lucid_world *w, lucid_world_model *wm) {
    lucid_se3 to_model = lucid_se3_inverse(&wm->base);
    for (int k = 0; k < w->d.num_contacts; ++k) {
        const lucid_world_contact *c = &w->d.contacts[k];
        if (c->limit_sign != 0 || c->frictionloss > 0.0) continue;
        lucid_vec3 lambda = lucid_vec3_make(c->force[0], c->force[1], c->force[2]);
        lucid_vec3 F = lucid_mat3_mul_vec(&to_model.R, lucid_mat3_mul_vec(&c->frame, lambda));
        lucid_vec3 p = lucid_se3_act(&to_model, c->point);
        /* torsional friction: a couple about the normal; rolling friction: about the tangents */
        lucid_vec3 T = lucid_vec3_scale(
            lucid_mat3_mul_vec(&to_model.R, lucid_mat3_col(&c->frame, 2)), c->torsion_force);
        for (int r = 0; c->rolling > 0.0 && r < 2; ++r)
            T = lucid_vec3_axpy(T, c->rolling_force[r],
                                lucid_mat3_mul_vec(&to_model.R, lucid_mat3_col(&c->frame, r)));
        int has_couple = c->torsion_force != 0.0 || c->rolling > 0.0;
        int bodies[2] = {c->body1, c->body2};
        for (int s = 0; s < 2; ++s) {
            int b = bodies[s];
            if (b < wm->first_body || b >= wm->first_body + wm->num_bodies) continue;
            /* the normal points from body1 into body2: body2 gets +F, body1 -F */
            lucid_vec3 Fs = s == 1 ? F : lucid_vec3_scale(F, -1.0);
            lucid_model_wrench_external_force(wm->model, wm->data, w->bodies[b].node, p, Fs);
            if (has_couple)
                lucid_model_wrench_external_torque(wm->model, wm->data, w->bodies[b].node,
                                                   s == 1 ? T : lucid_vec3_scale(T, -1.0));
        }
    }
}

/* The last step's accelerations (into wm->work) and joint wrenches into the model's data (its
 * workspace: the caller re-poses it at q); 0 (nothing done) before a step or after the state
 * was set. */
static int pose_step(const lucid_world *w, lucid_world_model *wm, lucid_vec3 *g) {
    if (!wm->stepped) return 0;
    const lucid_model *m = wm->model;
    size_t nv = lucid_model_nv(m);
    double *a = wm->work;
    for (size_t k = 0; k < nv; ++k) a[k] = (wm->v[k] - wm->v_start[k]) / w->opt.dt;
    *g = lucid_mat3_tmul_vec(&wm->base.R, w->opt.gravity);
    lucid_model_rnea_wrenches(m, wm->data, wm->q_start, wm->v_start, a, *g);
    take_contact_forces(w, wm);
    lucid_model_gather_wrenches(m, wm->data);
    return 1;
}

/* Step sensor S's values into y from the data pose_step left (NaN when it did not). */
static void step_sensor_values(const lucid_world *w, int id, const lucid_model_sensor *S, int posed,
                               lucid_vec3 g, double *y) {
    const lucid_world_model *wm = &w->models[id];
    size_t frame = (size_t)S->object;
    /* a mocap site's motion is the user's and a world site's contacts are not the model's */
    int unknown = lucid_model_frame_mocap(wm->model, frame, NULL) >= 0 ||
                  (S->kind == LUCID_SENSOR_TOUCH && lucid_model_frame_node(wm->model, frame) < 0);
    if (!posed || unknown) {
        for (size_t i = 0; i < S->dim; ++i) y[i] = NAN;
        return;
    }
    if (S->kind == LUCID_SENSOR_TOUCH) {
        y[0] = touch_value(w, wm, frame);
        return;
    }
    if (S->kind == LUCID_SENSOR_ACCELEROMETER) {
        lucid_model_frame_proper_acceleration(wm->model, wm->data, frame, g, y);
        return;
    }
    double f[6];
    lucid_model_frame_joint_wrench(wm->model, wm->data, frame, f);
    int at = S->kind == LUCID_SENSOR_FORCE ? 0 : 3;
    for (int i = 0; i < 3; ++i) y[i] = f[at + i];
}

/* Sensor S's values at the model's current state into y (S->dim values). */
static void sensor_values(const lucid_world *w, int id, const lucid_model_sensor *S, double *y) {
    const lucid_model *m = lucid_world_model_of(w, id);
    const double *q = lucid_world_model_q(w, id), *v = lucid_world_model_v(w, id);
    switch (S->kind) {
        case LUCID_SENSOR_JOINTPOS:
            y[0] = q[lucid_model_joint_idx_q(m, (size_t)S->object)];
            return;
        case LUCID_SENSOR_JOINTVEL:
            y[0] = v[lucid_model_joint_idx_v(m, (size_t)S->object)];
            return;
        case LUCID_SENSOR_ACTUATORFRC: {
            const lucid_model_actuator *A = &lucid_model_actuators(m)[S->object];
            y[0] = lucid_model_actuator_force(A, q, v, lucid_world_model_control(w, id)[S->object],
                                              lucid_world_model_act(w, id));
            return;
        }
        case LUCID_SENSOR_FRAMEPOS:
        case LUCID_SENSOR_FRAMEQUAT: {
            lucid_se3 T;
            lucid_world_model_frame_pose(w, id, (size_t)S->object, &T);
            if (S->kind == LUCID_SENSOR_FRAMEPOS) {
                lucid_vec3_store(T.t, y);
                return;
            }
            /* q and -q are one rotation: the sign with w >= 0 */
            lucid_quat r = lucid_quat_from_mat3(&T.R);
            double s = r.w < 0.0 ? -1.0 : 1.0;
            y[0] = s * r.w, y[1] = s * r.x, y[2] = s * r.y, y[3] = s * r.z;
            return;
        }
        case LUCID_SENSOR_GYRO:
        case LUCID_SENSOR_VELOCIMETER: {
            double twist[6];
            frame_twist(w, id, (size_t)S->object, twist);
            int at = S->kind == LUCID_SENSOR_GYRO ? 3 : 0;
            for (int i = 0; i < 3; ++i) y[i] = twist[at + i];
            return;
        }
        default:
            return;
    }
}

lucid_status lucid_world_model_sensors(lucid_world *w, int id, double *out) {
    const lucid_model *m = w && out ? lucid_world_model_of(w, id) : NULL;
    if (!m) return LUCID_ERR_ARGUMENT;
    const lucid_model_sensor *S = lucid_model_sensors(m);
    size_t n = lucid_model_nsensors(m), steps = 0;
    for (size_t k = 0; k < n; ++k) {
        if (step_sensor(S[k].kind))
            ++steps;
        else
            sensor_values(w, id, &S[k], out + S[k].adr);
    }
    if (steps == 0) return LUCID_OK;
    /* the step sensors last: they re-pose the model's data, restored at q after */
    lucid_world_model *wm = &w->models[id];
    lucid_vec3 g = lucid_vec3_zero();
    int posed = pose_step(w, wm, &g);
    for (size_t k = 0; k < n; ++k)
        if (step_sensor(S[k].kind)) step_sensor_values(w, id, &S[k], posed, g, out + S[k].adr);
    if (posed) lucid_model_forward_kinematics(m, wm->data, wm->q);
    return LUCID_OK;
}
