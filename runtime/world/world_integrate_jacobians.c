/* The Jacobians of the step's integration (lucid_world_step_integrate) in the state's tangent
 * space (world_internal.h): x+ from configuration x0 and final velocities p, read at x+.
 *
 * A free body (pose (R0, t0) of its origin, centre of mass c in its frame, p = (vf, wf) of
 * its centre of mass, world) integrates as (world_step.c):
 *   R+ = exp(dt wf) R0,  t+ = R0 c + t0 + dt vf - R+ c,  twist = (R+^T vf - Om x c, Om),
 * Om = R+^T wf. Its tangent at x+ is (rho, th) with T+ exp(rho, th), i.e. dR+ = R+ hat(th),
 * dt+ = R+ rho, then the twist's plain difference; x0 moves as T0 exp(rho0, th0). Then
 *   d/dwf: th = A = dt R0^T Jr(dt wf) (= dt R+^T Jl(dt wf)), rho = hat(c) A,
 *          dOm = R+^T + hat(Om) A, dlin = hat(R+^T vf) A + hat(c) dOm
 *   d/dvf: rho = dt R+^T, dlin = R+^T
 *   d/drho0: rho = E = R+^T R0;  d/dth0: th = I, rho = hat(c) - E hat(c),
 *          dOm = hat(Om), dlin = hat(R+^T vf) + hat(c) hat(Om)
 * (every dlin from d(R+^T x) = hat(R+^T x) th). A model's q+ = q0 (+) dt p has the joint
 * manifolds' Jacobians (lucid_model_integrate_jacobians) and v+ = p, but for a free joint's
 * linear velocity read in its new frame, exp(dt w)^T l (lucid_model_free_transport). */
#include <string.h>

#include "runtime/math/so3.h"
#include "runtime/model/configuration.h"
#include "runtime/world/world_internal.h"

typedef struct {
    double *J;
    size_t nt; /* leading dimension */
} jac;

/* J(r..r+2, c..c+2) = B */
static void put(jac J, size_t r, size_t c, const lucid_mat3 *B) {
    if (!J.J) return;
    for (size_t i = 0; i < 3; ++i)
        for (size_t j = 0; j < 3; ++j) J.J[(r + i) + J.nt * (c + j)] = B->m[i + 3 * j];
}

/* A B + C D */
static lucid_mat3 mul_add(const lucid_mat3 *A, const lucid_mat3 *B, const lucid_mat3 *C,
                          const lucid_mat3 *D) {
    lucid_mat3 AB = lucid_mat3_mul(A, B), CD = lucid_mat3_mul(C, D);
    return lucid_mat3_add(&AB, &CD);
}

/* Free body at state slot k (position rows/columns 6k, velocity rows nv + 6k): q (7) of x0,
 * p (6) its final velocities, c its centre of mass in its frame. */
static void free_body(const double *q, const double *p, lucid_vec3 c, double dt, size_t k,
                      size_t nv, jac Dq, jac Dp) {
    lucid_quat r = lucid_quat_make(q[3], q[4], q[5], q[6]);
    if (!lucid_quat_normalize(&r)) r = lucid_quat_identity();
    lucid_mat3 R0 = lucid_quat_to_mat3(r);
    lucid_vec3 vf = lucid_vec3_load(p), wf = lucid_vec3_load(p + 3);
    lucid_vec3 phi = lucid_vec3_scale(wf, dt);
    lucid_mat3 Rphi = lucid_so3_exp(phi), Rp = lucid_mat3_mul(&Rphi, &R0);
    lucid_mat3 Rpt = lucid_mat3_transpose(&Rp), I = lucid_mat3_identity();
    lucid_mat3 C = lucid_mat3_hat(c), Jr = lucid_so3_jr(phi);
    lucid_mat3 Om = lucid_mat3_hat(lucid_mat3_mul_vec(&Rpt, wf));
    lucid_mat3 Vb = lucid_mat3_hat(lucid_mat3_mul_vec(&Rpt, vf));
    size_t pos = 6 * k, vel = nv + 6 * k;
    /* d/dp */
    lucid_mat3 A = lucid_mat3_tmul(&R0, &Jr);
    A = lucid_mat3_scale(&A, dt);
    lucid_mat3 CA = lucid_mat3_mul(&C, &A), OmA = lucid_mat3_mul(&Om, &A);
    lucid_mat3 dOm = lucid_mat3_add(&Rpt, &OmA), dlin = mul_add(&Vb, &A, &C, &dOm);
    lucid_mat3 dtRpt = lucid_mat3_scale(&Rpt, dt);
    put(Dp, pos, pos, &dtRpt), put(Dp, vel, pos, &Rpt);
    put(Dp, pos + 3, pos + 3, &A), put(Dp, pos, pos + 3, &CA);
    put(Dp, vel + 3, pos + 3, &dOm), put(Dp, vel, pos + 3, &dlin);
    /* d/d(position tangent of x0) */
    lucid_mat3 E = lucid_mat3_mul(&Rpt, &R0), EC = lucid_mat3_mul(&E, &C);
    lucid_mat3 rho_th = lucid_mat3_sub(&C, &EC), lin_th = mul_add(&I, &Vb, &C, &Om);
    put(Dq, pos, pos, &E), put(Dq, pos + 3, pos + 3, &I), put(Dq, pos, pos + 3, &rho_th);
    put(Dq, vel + 3, pos + 3, &Om), put(Dq, vel, pos + 3, &lin_th);
}

void lucid_world_integrate_jacobians(const lucid_world *w, const double *x0, const double *p,
                                     double *Dq, double *Dp) {
    int nqi, nvi;
    lucid_world_state_dims(w, &nqi, &nvi);
    size_t nv = (size_t)nvi, nt = 2 * nv, k = 0;
    jac JQ = {Dq, nt}, JP = {Dp, nt};
    if (Dq) memset(Dq, 0, nt * nv * sizeof(double));
    if (Dp) memset(Dp, 0, nt * nv * sizeof(double));
    const double *q = x0;
    for (int i = 0; i < w->num_bodies; ++i) {
        const lucid_body *b = &w->bodies[i];
        if (b->is_static || b->model >= 0) continue;
        free_body(q, p, b->com, w->opt.dt, k, nv, JQ, JP);
        q += 7, p += 6, ++k;
    }
    size_t o = 6 * k; /* the models' first dof */
    for (int i = 0; i < w->num_models; ++i) {
        const lucid_model *m = w->models[i].model;
        size_t mq = lucid_model_nq(m), mv = lucid_model_nv(m);
        double *jq = Dq ? Dq + o + nt * o : NULL, *jv = Dp ? Dp + o + nt * o : NULL;
        lucid_model_integrate_jacobians_ld(m, q, p, w->opt.dt, jq, jv, nt);
        for (size_t j = 0; Dp && j < mv; ++j) Dp[(nv + o + j) + nt * (o + j)] = 1.0;
        if (Dp) lucid_model_free_transport_jacobian(m, p, w->opt.dt, Dp + (nv + o) + nt * o, nt);
        q += mq, p += mv, o += mv;
    }
}
