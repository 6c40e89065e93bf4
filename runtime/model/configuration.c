/* Configuration-space operations: neutral, integrate, difference, random, normalise
 * (configuration.h). */
#include <float.h>
#include <math.h>

#include "runtime/math/so3.h"
#include "runtime/model/configuration.h"
#include "runtime/model/model_internal.h"

#define LUCID_PI 3.14159265358979323846

void lucid_model_neutral(const lucid_model *m, double *q) {
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        double *x = q + nd->idx_q;
        for (size_t k = 0; k < nd->nq; ++k) x[k] = 0.0;
        switch (nd->kind) {
            case LUCID_JOINT_REVOLUTE:
            case LUCID_JOINT_PRISMATIC:
                x[0] = nd->ref;
                break;
            case LUCID_JOINT_SPHERICAL:
                x[0] = 1.0;
                break;
            case LUCID_JOINT_FREE:
                x[3] = 1.0;
                break;
            case LUCID_JOINT_PLANAR:
                x[2] = 1.0;
                break;
            default:
                break;
        }
    }
}

static lucid_quat load_unit_quat(const double *x) {
    lucid_quat q = lucid_quat_make(x[0], x[1], x[2], x[3]);
    if (!lucid_quat_normalize(&q)) q = lucid_quat_identity();
    return q;
}

/* exp(w) as a unit quaternion: (cos(t/2), sin(t/2) w/t), series for small t. */
static lucid_quat quat_exp(lucid_vec3 w) {
    double t = lucid_vec3_norm(w);
    double c = cos(0.5 * t), s = t > 1e-6 ? sin(0.5 * t) / t : 0.5 - t * t / 48.0;
    return lucid_quat_make(c, s * w.x, s * w.y, s * w.z);
}

static void store_quat(lucid_quat q, double *x) {
    lucid_quat_normalize(&q);
    x[0] = q.w, x[1] = q.x, x[2] = q.y, x[3] = q.z;
}

/* SE(2) exponential of (vx, vy, w): angle w, translation V(w) (vx, vy). */
static void se2_exp(double vx, double vy, double w, double *tx, double *ty) {
    double s, c; /* sin(w)/w and (1 - cos w)/w */
    if (fabs(w) > 1e-6) {
        s = sin(w) / w;
        c = (1.0 - cos(w)) / w;
    } else {
        s = 1.0 - w * w / 6.0;
        c = 0.5 * w - w * w * w / 24.0;
    }
    *tx = s * vx - c * vy;
    *ty = c * vx + s * vy;
}

void lucid_model_integrate(const lucid_model *m, const double *q, const double *v, double dt,
                           double *out) {
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        const double *x = q + nd->idx_q, *dv = v + nd->idx_v;
        double *y = out + nd->idx_q;
        switch (nd->kind) {
            case LUCID_JOINT_REVOLUTE:
            case LUCID_JOINT_PRISMATIC:
                y[0] = x[0] + dt * dv[0];
                break;
            case LUCID_JOINT_SPHERICAL: {
                lucid_quat q0 = load_unit_quat(x);
                lucid_vec3 w = lucid_vec3_scale(lucid_vec3_load(dv), dt);
                store_quat(lucid_quat_mul(q0, quat_exp(w)), y);
                break;
            }
            case LUCID_JOINT_FREE: {
                /* translation and rotation apart (MuJoCo's mj_integratePos): t0 + R0 dt v,
                 * R0 exp(dt w) */
                lucid_quat q0 = load_unit_quat(x + 3);
                lucid_vec3 lin = lucid_vec3_scale(lucid_vec3_load(dv), dt);
                lucid_vec3 w = lucid_vec3_scale(lucid_vec3_load(dv + 3), dt);
                lucid_vec3 t = lucid_vec3_add(lucid_vec3_load(x), lucid_quat_rotate(q0, lin));
                lucid_vec3_store(t, y);
                store_quat(lucid_quat_mul(q0, quat_exp(w)), y + 3);
                break;
            }
            case LUCID_JOINT_PLANAR: {
                double n = hypot(x[2], x[3]);
                double c0 = n > 0.0 ? x[2] / n : 1.0, s0 = n > 0.0 ? x[3] / n : 0.0;
                double w = dt * dv[2], tx, ty;
                se2_exp(dt * dv[0], dt * dv[1], w, &tx, &ty);
                double x0 = x[0], y0 = x[1];
                y[0] = x0 + c0 * tx - s0 * ty;
                y[1] = y0 + s0 * tx + c0 * ty;
                double c = cos(w), s = sin(w);
                double c1 = c0 * c - s0 * s, s1 = s0 * c + c0 * s;
                double n1 = hypot(c1, s1);
                y[2] = c1 / n1;
                y[3] = s1 / n1;
                break;
            }
            default:
                break;
        }
    }
}

void lucid_model_difference(const lucid_model *m, const double *q0, const double *q1, double *v) {
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        const double *a = q0 + nd->idx_q, *b = q1 + nd->idx_q;
        double *dv = v + nd->idx_v;
        switch (nd->kind) {
            case LUCID_JOINT_REVOLUTE:
            case LUCID_JOINT_PRISMATIC:
                dv[0] = b[0] - a[0];
                break;
            case LUCID_JOINT_SPHERICAL: {
                lucid_mat3 Ra = lucid_quat_to_mat3(load_unit_quat(a));
                lucid_mat3 Rb = lucid_quat_to_mat3(load_unit_quat(b));
                lucid_mat3 R = lucid_mat3_tmul(&Ra, &Rb);
                lucid_vec3_store(lucid_so3_log(&R), dv);
                break;
            }
            case LUCID_JOINT_FREE: { /* (Ra^T (tb - ta), log(Ra^T Rb)): integrate's inverse */
                lucid_mat3 Ra = lucid_quat_to_mat3(load_unit_quat(a + 3));
                lucid_mat3 Rb = lucid_quat_to_mat3(load_unit_quat(b + 3));
                lucid_vec3 d = lucid_vec3_sub(lucid_vec3_load(b), lucid_vec3_load(a));
                lucid_vec3_store(lucid_mat3_tmul_vec(&Ra, d), dv);
                lucid_mat3 R = lucid_mat3_tmul(&Ra, &Rb);
                lucid_vec3_store(lucid_so3_log(&R), dv + 3);
                break;
            }
            case LUCID_JOINT_PLANAR: {
                double na = hypot(a[2], a[3]), nb = hypot(b[2], b[3]);
                double ca = na > 0 ? a[2] / na : 1.0, sa = na > 0 ? a[3] / na : 0.0;
                double cb = nb > 0 ? b[2] / nb : 1.0, sb = nb > 0 ? b[3] / nb : 0.0;
                /* relative pose: angle of (R_a^T R_b), translation R_a^T (t_b - t_a) */
                double w = atan2(ca * sb - sa * cb, ca * cb + sa * sb);
                double dx = b[0] - a[0], dy = b[1] - a[1];
                double tx = ca * dx + sa * dy, ty = -sa * dx + ca * dy;
                /* invert V(w): V = [[s, -c], [c, s]] with s = sin w / w, c = (1 - cos w) / w */
                double s, c;
                if (fabs(w) > 1e-6) {
                    s = sin(w) / w;
                    c = (1.0 - cos(w)) / w;
                } else {
                    s = 1.0 - w * w / 6.0;
                    c = 0.5 * w - w * w * w / 24.0;
                }
                double det = s * s + c * c;
                dv[0] = (s * tx + c * ty) / det;
                dv[1] = (-c * tx + s * ty) / det;
                dv[2] = w;
                break;
            }
            default:
                break;
        }
    }
}

static double uniform(lucid_rng *rng, double lo, double hi) {
    return lo + (hi - lo) * lucid_rng_uniform(rng);
}

void lucid_model_random_configuration(const lucid_model *m, lucid_rng *rng, double *q) {
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        double *x = q + nd->idx_q;
        switch (nd->kind) {
            case LUCID_JOINT_REVOLUTE:
            case LUCID_JOINT_PRISMATIC: {
                double box = nd->kind == LUCID_JOINT_REVOLUTE ? LUCID_PI : 1.0;
                if (m->limited[nd->idx_q])
                    x[0] = uniform(rng, m->lower[nd->idx_q], m->upper[nd->idx_q]);
                else
                    x[0] = uniform(rng, -box, box);
                break;
            }
            case LUCID_JOINT_SPHERICAL:
                lucid_rng_unit_quaternion(rng, x);
                break;
            case LUCID_JOINT_FREE:
                for (int k = 0; k < 3; ++k) x[k] = uniform(rng, -1.0, 1.0);
                lucid_rng_unit_quaternion(rng, x + 3);
                break;
            case LUCID_JOINT_PLANAR: {
                x[0] = uniform(rng, -1.0, 1.0);
                x[1] = uniform(rng, -1.0, 1.0);
                double th = uniform(rng, -LUCID_PI, LUCID_PI);
                x[2] = cos(th);
                x[3] = sin(th);
                break;
            }
            default:
                break;
        }
    }
}

/* The offset and length of joint i's unit-norm block in q (length 0 when none). */
static size_t unit_block(const lucid_model_node *nd, size_t *off) {
    switch (nd->kind) {
        case LUCID_JOINT_SPHERICAL:
            *off = 0;
            return 4;
        case LUCID_JOINT_FREE:
            *off = 3;
            return 4;
        case LUCID_JOINT_PLANAR:
            *off = 2;
            return 2;
        default:
            *off = 0;
            return 0;
    }
}

lucid_status lucid_model_check_configuration(const lucid_model *m, const double *q, int *joint) {
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        for (size_t k = 0; k < nd->nq; ++k)
            if (!isfinite(q[nd->idx_q + k])) {
                if (joint) *joint = (int)i;
                return LUCID_ERR_NONFINITE;
            }
        size_t off, len = unit_block(nd, &off);
        if (len) {
            double s = 0.0, mx = 0.0;
            for (size_t k = 0; k < len; ++k) mx = fmax(mx, fabs(q[nd->idx_q + off + k]));
            for (size_t k = 0; mx > 0.0 && k < len; ++k) {
                double y = q[nd->idx_q + off + k] / mx;
                s += y * y;
            }
            /* a block whose largest component is normal (>= DBL_MIN) has a direction to full
             * precision, at any magnitude: every reader normalises it by that component first
             * (lucid_quat_normalize, hypot); a subnormal one has lost its direction */
            if (!(mx >= DBL_MIN) || !(s > 0.0)) {
                if (joint) *joint = (int)i;
                return LUCID_ERR_ARGUMENT;
            }
        }
    }
    return LUCID_OK;
}

lucid_status lucid_model_normalize(const lucid_model *m, double *q) {
    lucid_status st = lucid_model_check_configuration(m, q, NULL);
    if (st != LUCID_OK) return st;
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        size_t off, len = unit_block(nd, &off);
        if (!len) continue;
        double *x = q + nd->idx_q + off, mx = 0.0, s = 0.0, n2 = 0.0;
        /* a block unit to rounding stays as it is, so a state read back is bit for bit the
         * one set (as for the world's free bodies) */
        for (size_t k = 0; k < len; ++k) n2 += x[k] * x[k];
        if (fabs(n2 - 1.0) <= 8.0 * DBL_EPSILON) continue;
        for (size_t k = 0; k < len; ++k) mx = fmax(mx, fabs(x[k]));
        for (size_t k = 0; k < len; ++k) s += (x[k] / mx) * (x[k] / mx);
        double n = sqrt(s); /* of x / mx: mx n may leave the range of doubles */
        for (size_t k = 0; k < len; ++k) x[k] = (x[k] / mx) / n;
    }
    return LUCID_OK;
}
