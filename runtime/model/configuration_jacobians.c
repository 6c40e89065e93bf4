/* The Jacobians of the configuration integrator q1 = q ⊕ dt v (configuration.h), in the
 * tangent space at q1. A free joint integrates its translation and rotation apart (below);
 * every other joint on the right, q1 = q exp(xi) with xi = dt v, so
 * q exp(d) exp(xi) = q1 exp(Ad(exp(-xi)) d) and exp(xi + dt e) = exp(xi) exp(Jr(xi) dt e).
 * A planar joint is the subgroup of SE(3) with twists (vx, vy, 0, 0, 0, w): its exp is the
 * SE(3) one restricted there (V(w) of configuration.c's se2_exp is Jl_SO3(w e_z) on the plane),
 * so its Jacobians are the SE(3) ones' rows and columns {0, 1, 5}. Allocates nothing. */
#include <string.h>

#include "runtime/math/se3.h"
#include "runtime/math/so3.h"
#include "runtime/model/configuration.h"
#include "runtime/model/model_internal.h"

/* Column-major, leading dimension ld: entry (r, c) of the joint block starting at dof i. */
static double *at(double *J, size_t ld, size_t i, size_t r, size_t c) {
    return J + (i + r) + ld * (i + c);
}

/* The 3x3 block at rows i + r0, columns i + c0, scaled. */
static void put_block(double *J, size_t ld, size_t i, size_t r0, size_t c0, const lucid_mat3 *B,
                      double scale) {
    for (size_t r = 0; r < 3; ++r)
        for (size_t c = 0; c < 3; ++c) *at(J, ld, i, r0 + r, c0 + c) = scale * B->m[r + 3 * c];
}

static void put_mat3(double *J, size_t ld, size_t i, const lucid_mat3 *B, double scale) {
    put_block(J, ld, i, 0, 0, B, scale);
}

/* The 6x6 (column-major) block, or its rows/columns sel[0..n-1], scaled. */
static void put_6x6(double *J, size_t ld, size_t i, const double *B, const int *sel, size_t n,
                    double scale) {
    for (size_t r = 0; r < n; ++r)
        for (size_t c = 0; c < n; ++c) *at(J, ld, i, r, c) = scale * B[sel[r] + 6 * sel[c]];
}

/* Jq = Ad(exp(-xi)) = Ad(exp(xi)^-1) and Jv = dt Jr(xi) of one SE(3) joint block. */
static void se3_blocks(const double xi[6], double dt, const int *sel, size_t n, double *Jq,
                       double *Jv, size_t ld, size_t i) {
    double B[36];
    if (Jq) {
        lucid_se3 E = lucid_se3_exp(xi), Einv = lucid_se3_inverse(&E);
        lucid_se3_adjoint(&Einv, B);
        put_6x6(Jq, ld, i, B, sel, n, 1.0);
    }
    if (Jv) {
        lucid_se3_jr(xi, B);
        put_6x6(Jv, ld, i, B, sel, n, dt);
    }
}

/* A free joint, (t, R) (+) (l, w) = (t + R l, R exp(w)) with (l, w) = dt v, E = exp(w):
 * Jq = [E^T, -E^T hat(l); 0, E^T], Jv = dt [E^T, 0; 0, Jr(w)]. */
static void free_blocks(const double *v, double dt, double *Jq, double *Jv, size_t ld, size_t i) {
    lucid_vec3 l = lucid_vec3_scale(lucid_vec3_load(v), dt);
    lucid_vec3 w = lucid_vec3_scale(lucid_vec3_load(v + 3), dt);
    lucid_mat3 E = lucid_so3_exp(w), Et = lucid_mat3_transpose(&E);
    if (Jq) {
        lucid_mat3 L = lucid_mat3_hat(l);
        L = lucid_mat3_mul(&Et, &L);
        put_mat3(Jq, ld, i, &Et, 1.0);
        put_block(Jq, ld, i, 0, 3, &L, -1.0);
        put_block(Jq, ld, i, 3, 3, &Et, 1.0);
    }
    if (Jv) {
        lucid_mat3 Jr = lucid_so3_jr(w);
        put_mat3(Jv, ld, i, &Et, dt);
        put_block(Jv, ld, i, 3, 3, &Jr, dt);
    }
}

static void joint_blocks(const lucid_model_node *nd, const double *v, double dt, double *Jq,
                         double *Jv, size_t ld) {
    static const int planar[3] = {0, 1, 5};
    const double *dv = v + nd->idx_v;
    size_t i = nd->idx_v;
    switch (nd->kind) {
        case LUCID_JOINT_REVOLUTE:
        case LUCID_JOINT_PRISMATIC:
            if (Jq) *at(Jq, ld, i, 0, 0) = 1.0;
            if (Jv) *at(Jv, ld, i, 0, 0) = dt;
            break;
        case LUCID_JOINT_SPHERICAL: {
            lucid_vec3 w = lucid_vec3_scale(lucid_vec3_load(dv), dt);
            if (Jq) {
                lucid_mat3 E = lucid_so3_exp(w), Et = lucid_mat3_transpose(&E);
                put_mat3(Jq, ld, i, &Et, 1.0);
            }
            if (Jv) {
                lucid_mat3 Jr = lucid_so3_jr(w);
                put_mat3(Jv, ld, i, &Jr, dt);
            }
            break;
        }
        case LUCID_JOINT_FREE:
            free_blocks(dv, dt, Jq, Jv, ld, i);
            break;
        case LUCID_JOINT_PLANAR: {
            double xi[6] = {dt * dv[0], dt * dv[1], 0.0, 0.0, 0.0, dt * dv[2]};
            se3_blocks(xi, dt, planar, 3, Jq, Jv, ld, i);
            break;
        }
        default:
            break;
    }
}

static void zero_block(double *J, size_t nv, size_t ld) {
    for (size_t c = 0; J && c < nv; ++c) memset(J + ld * c, 0, nv * sizeof(double));
}

void lucid_model_integrate_jacobians_ld(const lucid_model *m, const double *q, const double *v,
                                        double dt, double *Jq, double *Jv, size_t ld) {
    (void)q; /* right-trivialised: the blocks depend on dt v alone */
    size_t nv = lucid_model_nv(m);
    zero_block(Jq, nv, ld);
    zero_block(Jv, nv, ld);
    for (size_t k = 0; k < m->nnodes; ++k) joint_blocks(&m->nodes[k], v, dt, Jq, Jv, ld);
}

void lucid_model_integrate_jacobians(const lucid_model *m, const double *q, const double *v,
                                     double dt, double *Jq, double *Jv) {
    lucid_model_integrate_jacobians_ld(m, q, v, dt, Jq, Jv, lucid_model_nv(m));
}
