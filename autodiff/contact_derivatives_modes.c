/* Mode classification and linearised optimality conditions of one contact, per model
 * (docs/contact_derivatives.md). Rows are the conditions F_i = 0 of the mode, differentiated:
 *   breaking  F = lambda_i                                     (every model)
 *   sticking  F = sigma_i                                      (every model)
 *   sliding, NCP / CCP, u = sigma_T / |sigma_T|, w = u rotated by 90 degrees:
 *     F0 = u . lambda_T + mu lambda_N            (force along -u on the cone: one direction)
 *     F1 = w . (lambda_T + mu lambda_N u(sigma_T)), whose derivative, scaled by
 *          c = |sigma_T| / (mu lambda_N), is c w . dlambda_T + w . dsigma_T (the rotation of u)
 *     F2 = sigma_N (NCP: the De Saxce corrected velocity sigma_N + mu |sigma_T| lies on the dual
 *          cone's boundary) or sigma_N - mu |sigma_T| (CCP: sigma itself on that boundary)
 *   LCP (box pyramid), per tangential component k: sigma_k (sticking) or
 *     lambda_k + sign(sigma_k) mu lambda_N (sliding); F2 = sigma_N
 *   RaiSim sliding, uh = lambda_T / |lambda_T|, n1 = (uh, -mu), n2 = row N of (G + R)_ii:
 *     F0 = mu lambda_N - |lambda_T|, F1 = sigma . (n1 x n2) (stationarity on the ellipse
 *     {|lambda_T| = mu lambda_N} x {sigma_N = 0}), F2 = sigma_N
 * Dims 4 and 6 (torsional and rolling friction; NCP and CCP): lambda_T = (t1, t2, s) of rows
 * (t1, t2, n, s), or (t1, t2, s, r1, r2) of rows (t1, t2, n, s, r1, r2); the sliding rows as
 * above with u in that 3- or 5-space and the rows t2, s (, r1, r2) along an orthonormal basis
 * of u's complement (the derivative does not depend on which). */
#include <math.h>
#include <string.h>

#include "autodiff/contact_derivatives_internal.h"
#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_sliding_rows.h"

const char *lucid_contact_mode_name(lucid_contact_mode mode) {
    switch (mode) {
        case LUCID_CONTACT_STICKING:
            return "sticking";
        case LUCID_CONTACT_SLIDING:
            return "sliding";
        case LUCID_CONTACT_BREAKING:
            break;
    }
    return "breaking";
}

static double ratio(double value, double scale) {
    return scale > 0.0 ? value / scale : (value > 0.0 ? INFINITY : 0.0);
}

/* a x b */
static void cross(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Sliding rows of the NCP and the CCP (header; solvers/contact/contact_sliding_rows.h); u from
 * sigma_T, or -lambda_T when sigma_T = 0 (then the margin is 0 anyway). */
static void sliding_cone(lucid_contact_model model, double mu, const double l[3], const double s[3],
                         lucid_contact_linearization *lin) {
    double sT = hypot(s[0], s[1]), lT = hypot(l[0], l[1]);
    double u[2] = {1.0, 0.0};
    if (sT > 0.0)
        u[0] = s[0] / sT, u[1] = s[1] / sT;
    else if (lT > 0.0)
        u[0] = -l[0] / lT, u[1] = -l[1] / lT;
    lucid_contact_sliding_rows(model, mu, l, s, sT, u, lin->Fl, lin->Fs, NULL);
    lin->Fmu[0] = sT > 0.0 || mu > 0.0 ? l[2] : 0.0; /* mu = 0 without slip: no direction */
    if (model == LUCID_CONTACT_CCP) lin->Fmu[2] = -sT;
}

/* LCP rows; returns the number of sliding components and lowers *margin. */
static int sliding_box(double mu, const double l[3], const double s[3],
                       const lucid_contact_scales *sc, double tau, lucid_contact_linearization *lin,
                       double *margin) {
    int sliding = 0;
    for (int k = 0; k < 2; ++k) {
        double slip = ratio(fabs(s[k]), sc->velocity);
        if (slip > tau || mu == 0.0) {
            double sign = s[k] > 0.0 ? 1.0 : (s[k] < 0.0 ? -1.0 : (l[k] > 0.0 ? -1.0 : 1.0));
            lin->Fl[4 * k] = 1.0;
            lin->Fl[3 * k + 2] = sign * mu;
            lin->Fmu[k] = sign * l[2];
            *margin = fmin(*margin, slip);
            ++sliding;
        } else {
            lin->Fs[4 * k] = 1.0;
            *margin = fmin(*margin, ratio(mu * l[2] - fabs(l[k]), sc->force));
        }
    }
    lin->Fs[8] = 1.0;
    return sliding;
}

/* RaiSim's sliding rows (header). */
static void sliding_raisim(double mu, const double l[3], const double s[3], const double A_N[3],
                           lucid_contact_linearization *lin) {
    double lT = hypot(l[0], l[1]);
    if (mu == 0.0 || lT == 0.0) { /* frictionless: lambda_T = 0, sigma_N = 0 */
        lin->Fl[0] = lin->Fl[4] = 1.0;
        lin->Fs[8] = 1.0;
        return;
    }
    double uh[2] = {l[0] / lT, l[1] / lT};
    double n1[3] = {uh[0], uh[1], -mu}, t[3], v[3], a[3];
    cross(n1, A_N, t);
    cross(A_N, s, v);
    cross(s, n1, a);
    lin->Fl[0] = -uh[0], lin->Fl[1] = -uh[1], lin->Fl[2] = mu;
    lin->Fmu[0] = l[2];
    /* row 1: dF1 = t . dsigma + v . dn1 + a . dn2, dn1 = ((I - uh uh^T) dlambda_T / lT, -dmu) */
    double vu = v[0] * uh[0] + v[1] * uh[1];
    lin->Fl[3] = (v[0] - vu * uh[0]) / lT, lin->Fl[4] = (v[1] - vu * uh[1]) / lT;
    for (int c = 0; c < 3; ++c) lin->Fs[3 + c] = t[c], lin->Fa[c] = a[c];
    lin->Fmu[1] = -v[2];
    lin->fa_row = 1;
    lin->Fs[8] = 1.0;
}

/* The sliding rows of a contact of dim 4 or 6 under the NCP or the CCP (file header;
 * lucid_contact_sliding_rows_n); u from sigma_T, or -lambda_T when sigma_T = 0. */
static void sliding_cone_n(lucid_contact_model model, int dim, double mu, const double *l,
                           const double *s, lucid_contact_linearization *lin) {
    const int *TN = lucid_contact_tangential_rows;
    int k = dim - 1;
    double u[5] = {1.0, 0.0, 0.0, 0.0, 0.0}, sT = 0.0, lT = 0.0;
    for (int c = 0; c < k; ++c) sT += s[TN[c]] * s[TN[c]], lT += l[TN[c]] * l[TN[c]];
    sT = sqrt(sT), lT = sqrt(lT);
    if (sT > 0.0)
        for (int c = 0; c < k; ++c) u[c] = s[TN[c]] / sT;
    else if (lT > 0.0)
        for (int c = 0; c < k; ++c) u[c] = -l[TN[c]] / lT;
    lucid_contact_sliding_rows_n(model, dim, mu, l, s, sT, u, lin->Fl, lin->Fs, NULL);
    lin->Fmu[0] = sT > 0.0 || mu > 0.0 ? l[2] : 0.0;
    if (model == LUCID_CONTACT_CCP) lin->Fmu[2] = -sT;
}

/* |(x_t1, x_t2[, x_s[, x_r1, x_r2]])|: the tangential part of a contact's entries. */
static double tangential(int dim, const double *x) {
    return dim > 3 ? lucid_cone_n_tangent_norm(dim, x) : hypot(x[0], x[1]);
}

lucid_contact_mode lucid_contact_linearize(lucid_contact_model model, int dim, double mu,
                                           const double *l, const double *s, const double *A_N,
                                           const lucid_contact_scales *sc, double tau,
                                           lucid_contact_linearization *lin, double *margin) {
    memset(lin, 0, sizeof *lin);
    lin->fa_row = -1;
    double normal = ratio(l[2], sc->force);
    if (!(normal > tau)) {
        for (int k = 0; k < dim; ++k) lin->Fl[(dim + 1) * k] = 1.0;
        double slack = model == LUCID_CONTACT_CCP ? s[2] - mu * tangential(dim, s) : s[2];
        *margin = ratio(slack, sc->velocity);
        return LUCID_CONTACT_BREAKING;
    }
    *margin = normal;
    if (model == LUCID_CONTACT_LCP)
        return sliding_box(mu, l, s, sc, tau, lin, margin) ? LUCID_CONTACT_SLIDING
                                                           : LUCID_CONTACT_STICKING;
    double slip = ratio(tangential(dim, s), sc->velocity);
    if (slip <= tau && mu > 0.0) {
        for (int k = 0; k < dim; ++k) lin->Fs[(dim + 1) * k] = 1.0;
        *margin = fmin(*margin, ratio(mu * l[2] - tangential(dim, l), sc->force));
        return LUCID_CONTACT_STICKING;
    }
    *margin = fmin(*margin, slip);
    if (model == LUCID_CONTACT_RAISIM)
        sliding_raisim(mu, l, s, A_N, lin);
    else if (dim > 3)
        sliding_cone_n(model, dim, mu, l, s, lin);
    else
        sliding_cone(model, mu, l, s, lin);
    return LUCID_CONTACT_SLIDING;
}
