/* The world's state and its tangent space (docs/world.md, "Stepping and state").
 *
 * x = (q, v, act): every free body's configuration as a free joint, (x, y, z, qw, qx, qy, qz) in
 * body-id order, then every model's q; then every free body's velocity, the body twist in the
 * body frame (linear velocity of the body origin, then angular velocity, both in body axes),
 * then every model's v; then every model's actuator activations (na, usually none). Static
 * bodies are not in the state; model links move with their q. Tangent vectors dx = (dq, dv,
 * dact) have 2 nv + na entries: nv = 6 per free body + the models' nv; activations add.
 * A free body's configuration integrates as T (+) xi = T exp(xi) (Pinocchio's free joint). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "runtime/math/finite.h"
#include "runtime/math/quat.h"
#include "runtime/world/world_internal.h"

static lucid_status bad(const char **why, const char *msg, lucid_status s) {
    if (why) *why = msg;
    return s;
}

/* Bodies in the state: free bodies (not static, not a model's link). */
static int is_free(const lucid_body *b) {
    return !b->is_static && b->model < 0;
}

static int free_bodies(const lucid_world *w) {
    int n = 0;
    for (int i = 0; i < w->num_bodies; ++i) n += is_free(&w->bodies[i]);
    return n;
}

void lucid_world_state_dims(const lucid_world *w, int *nq, int *nv) {
    int nb = free_bodies(w);
    if (nq) *nq = 7 * nb + (int)lucid_world_models_nq(w);
    if (nv) *nv = 6 * nb + (int)lucid_world_models_nv(w);
}

static int state_na(const lucid_world *w) {
    return w->d.act_inputs ? 0 : (int)lucid_world_models_na(w); /* inputs in the derivatives */
}

int lucid_world_state_size(const lucid_world *w) {
    int nq, nv;
    lucid_world_state_dims(w, &nq, &nv);
    return nq + nv + state_na(w);
}

int lucid_world_tangent_size(const lucid_world *w) {
    int nv;
    lucid_world_state_dims(w, NULL, &nv);
    return 2 * nv + state_na(w);
}

void lucid_world_get_state(const lucid_world *w, double *x) {
    int nq, nv;
    lucid_world_state_dims(w, &nq, &nv);
    int nb = free_bodies(w);
    double *q = x, *v = x + nq;
    for (int i = 0; i < w->num_bodies; ++i) {
        const lucid_body *b = &w->bodies[i];
        if (!is_free(b)) continue;
        lucid_vec3_store(b->pose.t, q);
        lucid_quat r = b->orientation;
        q[3] = r.w, q[4] = r.x, q[5] = r.y, q[6] = r.z;
        memcpy(v, b->twist_body, sizeof b->twist_body);
        q += 7, v += 6;
    }
    lucid_world_models_get_state(w, x + 7 * nb, x + nq + 6 * nb);
    if (state_na(w) > 0) lucid_world_models_get_act(w, x + nq + nv);
}

/* The unit quaternion of free-joint coordinates q (7): normalised unless it is unit to
 * rounding already (so a state read back is bit for bit the one set). 0 when it is zero. */
static int unit_quat_of(const double *q, lucid_quat *r) {
    *r = lucid_quat_make(q[3], q[4], q[5], q[6]);
    double n2 = r->w * r->w + r->x * r->x + r->y * r->y + r->z * r->z;
    if (fabs(n2 - 1.0) <= 8.0 * DBL_EPSILON) return 1;
    return lucid_quat_normalize(r);
}

/* The pose of free-joint coordinates q (7): a zero quaternion is an error. */
static lucid_status pose_of(const double *q, lucid_se3 *T) {
    lucid_quat r;
    if (!unit_quat_of(q, &r)) return LUCID_ERR_ARGUMENT;
    *T = lucid_se3_make(lucid_quat_to_mat3(r), lucid_vec3_load(q));
    return LUCID_OK;
}

lucid_status lucid_world_set_state(lucid_world *w, const double *x, const char **why) {
    if (!w || (!x && lucid_world_state_size(w) > 0))
        return bad(why, "state missing", LUCID_ERR_ARGUMENT);
    int nq, nv, nb = free_bodies(w);
    lucid_world_state_dims(w, &nq, &nv);
    const double *q = x, *v = x + nq, *act = x + nq + nv;
    if (!lucid_all_finite(act, state_na(w)))
        return bad(why, "state must be finite", LUCID_ERR_NONFINITE);
    for (int k = 0; k < nb; ++k) {
        lucid_se3 T;
        if (!lucid_all_finite(q + 7 * k, 7) || !lucid_all_finite(v + 6 * k, 6))
            return bad(why, "state must be finite", LUCID_ERR_NONFINITE);
        if (pose_of(q + 7 * k, &T) != LUCID_OK)
            return bad(why, "a body's quaternion in the state is zero", LUCID_ERR_ARGUMENT);
    }
    lucid_status s = lucid_world_models_check_state(w, q + 7 * nb, v + 6 * nb, why);
    if (s != LUCID_OK) return s;
    for (int i = 0; i < w->num_bodies; ++i) {
        lucid_body *b = &w->bodies[i];
        if (!is_free(b)) continue;
        unit_quat_of(q, &b->orientation);
        pose_of(q, &b->pose);
        memcpy(b->twist_body, v, sizeof b->twist_body);
        lucid_body_twist_from_state(b);
        q += 7, v += 6;
    }
    lucid_world_models_set_state(w, q, v);
    if (state_na(w) > 0) lucid_world_models_set_act(w, act);
    lucid_world_data_forget(&w->d);
    return LUCID_OK;
}

/* out = x (+) dx: T exp(dq) for free bodies, the models' joint manifolds, v + dv. */
lucid_status lucid_world_state_integrate(const lucid_world *w, const double *x, const double *dx,
                                         double *out) {
    int nq, nv, nb = free_bodies(w);
    lucid_world_state_dims(w, &nq, &nv);
    const double *q = x, *v = x + nq, *dq = dx, *dv = dx + nv;
    double *qo = out, *vo = out + nq;
    for (int k = 0; k < nb; ++k, q += 7, v += 6, dq += 6, dv += 6, qo += 7, vo += 6) {
        lucid_se3 T;
        lucid_quat r0;
        if (pose_of(q, &T) != LUCID_OK || !unit_quat_of(q, &r0)) return LUCID_ERR_ARGUMENT;
        lucid_se3 E = lucid_se3_exp(dq); /* its translation is Jl(w) v */
        lucid_vec3 t = lucid_vec3_add(T.t, lucid_mat3_mul_vec(&T.R, E.t));
        lucid_quat r = lucid_quat_mul(r0, lucid_quat_exp(lucid_vec3_load(dq + 3)));
        lucid_quat_normalize(&r);
        lucid_vec3_store(t, qo);
        qo[3] = r.w, qo[4] = r.x, qo[5] = r.y, qo[6] = r.z;
        for (int j = 0; j < 6; ++j) vo[j] = v[j] + dv[j];
    }
    lucid_world_models_integrate_state(w, q, v, dq, dv, qo, vo);
    for (int k = 0, na = state_na(w); k < na; ++k)
        out[nq + nv + k] = x[nq + nv + k] + dx[2 * nv + k];
    return LUCID_OK;
}

/* dx = x1 (-) x0: log(T0^-1 T1) for free bodies, the models' differences, v1 - v0. */
lucid_status lucid_world_state_difference(const lucid_world *w, const double *x0, const double *x1,
                                          double *dx) {
    int nq, nv, nb = free_bodies(w);
    lucid_world_state_dims(w, &nq, &nv);
    const double *q0 = x0, *v0 = x0 + nq, *q1 = x1, *v1 = x1 + nq;
    double *dq = dx, *dv = dx + nv;
    for (int k = 0; k < nb; ++k, q0 += 7, q1 += 7, v0 += 6, v1 += 6, dq += 6, dv += 6) {
        lucid_se3 T0, T1;
        if (pose_of(q0, &T0) != LUCID_OK || pose_of(q1, &T1) != LUCID_OK) return LUCID_ERR_ARGUMENT;
        lucid_se3 D = lucid_se3_between(&T0, &T1);
        lucid_se3_log(&D, dq);
        for (int j = 0; j < 6; ++j) dv[j] = v1[j] - v0[j];
    }
    lucid_world_models_difference_state(w, q0, v0, q1, v1, dq, dv);
    for (int k = 0, na = state_na(w); k < na; ++k)
        dx[2 * nv + k] = x1[nq + nv + k] - x0[nq + nv + k];
    return LUCID_OK;
}
