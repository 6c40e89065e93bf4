/* Actuator forces in MuJoCo 2.2.2's gain/bias form (mj_fwdActuation with dyntype none and a
 * joint transmission): with L = gear q and Ld = gear v on the actuator's 1-dof joint,
 *   f = (g0 + g1 L + g2 Ld) clamp(u, ctrlrange) + b0 + b1 L + b2 Ld,  clamped to forcerange,
 *   tau = gear f  (MuJoCo's qfrc_actuator). */
#include <math.h>
#include <string.h>

#include "runtime/model/model_internal.h"

double lucid_model_actuator_gain(const lucid_model_actuator *A, const double *q, const double *v) {
    double L = A->gear * q[A->coord], Ld = A->gear * v[A->dof];
    return A->gain[0] + A->gain[1] * L + A->gain[2] * Ld;
}

double lucid_model_actuator_force(const lucid_model_actuator *A, const double *q, const double *v,
                                  double u) {
    if (A->ctrl_limited) u = fmin(fmax(u, A->ctrl_lower), A->ctrl_upper);
    double L = A->gear * q[A->coord], Ld = A->gear * v[A->dof];
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
        tau[A->dof] += A->gear * lucid_model_actuator_force(A, q, v, u[a]);
    }
}
