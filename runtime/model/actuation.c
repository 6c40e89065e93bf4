/* Actuator forces in MuJoCo 2.2.2's gain/bias form (mj_fwdActuation with dyntype none and a
 * joint or fixed-tendon transmission): with the length L = gear q on a 1-dof joint (gear L_t on
 * a tendon) and its velocity Ld,
 *   f = (g0 + g1 L + g2 Ld) clamp(u, ctrlrange) + b0 + b1 L + b2 Ld,  clamped to forcerange,
 *   tau = f dL/dq  (MuJoCo's qfrc_actuator: gear on the joint's dof, gear coef on a tendon's). */
#include <math.h>
#include <string.h>

#include "runtime/model/model_internal.h"

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

double lucid_model_actuator_length(const lucid_model_actuator *A, const double *q) {
    return A->gear * (A->tendon ? lucid_model_tendon_length(A->tendon, q) : q[A->coord]);
}

double lucid_model_actuator_velocity(const lucid_model_actuator *A, const double *v) {
    return A->gear * (A->tendon ? lucid_model_tendon_velocity(A->tendon, v) : v[A->dof]);
}

void lucid_model_actuator_add_moment(const lucid_model_actuator *A, double scale, double *tau) {
    if (!A->tendon) {
        tau[A->dof] += scale * A->gear;
        return;
    }
    for (size_t i = 0; i < A->tendon->n; ++i)
        tau[A->tendon->dof[i]] += scale * A->gear * A->tendon->coef[i];
}

void lucid_model_actuator_add_outer(const lucid_model_actuator *A, double scale, double *R,
                                    size_t nv) {
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
    double L = lucid_model_actuator_length(A, q), Ld = lucid_model_actuator_velocity(A, v);
    return A->gain[0] + A->gain[1] * L + A->gain[2] * Ld;
}

double lucid_model_actuator_force(const lucid_model_actuator *A, const double *q, const double *v,
                                  double u) {
    if (A->ctrl_limited) u = fmin(fmax(u, A->ctrl_lower), A->ctrl_upper);
    double L = lucid_model_actuator_length(A, q), Ld = lucid_model_actuator_velocity(A, v);
    double f =
        lucid_model_actuator_gain(A, q, v) * u + A->bias[0] + A->bias[1] * L + A->bias[2] * Ld;
    if (A->force_limited) f = fmin(fmax(f, A->force_lower), A->force_upper);
    return f;
}

void lucid_model_actuation(const lucid_model *m, const double *q, const double *v, const double *u,
                           double *tau) {
    memset(tau, 0, m->nv * sizeof *tau);
    for (size_t a = 0; a < m->nu; ++a) {
        const lucid_model_actuator *A = &m->actuators[a];
        lucid_model_actuator_add_moment(A, lucid_model_actuator_force(A, q, v, u[a]), tau);
    }
}
