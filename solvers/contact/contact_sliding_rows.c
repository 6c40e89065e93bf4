/* A sliding contact's linearised conditions (contact_sliding_rows.h). */
#include "solvers/contact/contact_sliding_rows.h"

#include <math.h>

void lucid_contact_sliding_rows(lucid_contact_model model, double mu, const double l[3],
                                const double s[3], double sT, const double u[2], double Fl[9],
                                double Fs[9], double f[3]) {
    double w[2] = {-u[1], u[0]}, force = mu * l[2], scale = 1.0;
    Fl[0] = u[0], Fl[1] = u[1], Fl[2] = mu;
    if (sT <= force) { /* c = sT / force <= 1 */
        double c = force > 0.0 ? sT / force : 0.0;
        Fl[3] = c * w[0], Fl[4] = c * w[1];
        Fs[3] = w[0], Fs[4] = w[1];
        scale = c;
    } else { /* 1 / c = force / sT < 1 */
        double ic = force / sT;
        Fl[3] = w[0], Fl[4] = w[1];
        Fs[3] = ic * w[0], Fs[4] = ic * w[1];
    }
    Fs[8] = 1.0;
    if (model == LUCID_CONTACT_CCP) Fs[6] = -mu * u[0], Fs[7] = -mu * u[1];
    if (!f) return;
    f[0] = u[0] * l[0] + u[1] * l[1] + force;
    f[1] = scale * (w[0] * l[0] + w[1] * l[1]);
    f[2] = model == LUCID_CONTACT_CCP ? s[2] - mu * sT : s[2];
}

const int lucid_contact_tangential_rows[5] = {0, 1, 3, 4, 5};

/* The k - 1 unit vectors orthogonal to the unit u of R^k (k = 3 or 5) and to each other: the
 * columns H e_i, i != j, of the Householder reflection H = I - 2 v v^T / v^T v, v = u + sign(u_j)
 * e_j, j the largest entry of u, which maps u to -sign(u_j) e_j (so H e_i . u = 0); vector a at
 * w + k a. */
static void complement(int k, const double *u, double *w) {
    int j = 0;
    for (int c = 1; c < k; ++c)
        if (fabs(u[c]) > fabs(u[j])) j = c;
    double v[5] = {0.0, 0.0, 0.0, 0.0, 0.0}, vv = 0.0;
    for (int c = 0; c < k; ++c) v[c] = u[c];
    v[j] += u[j] >= 0.0 ? 1.0 : -1.0;
    for (int c = 0; c < k; ++c) vv += v[c] * v[c];
    for (int i = 0, a = 0; i < k; ++i) {
        if (i == j) continue;
        for (int c = 0; c < k; ++c) w[k * a + c] = (c == i ? 1.0 : 0.0) - 2.0 * v[c] * v[i] / vv;
        ++a;
    }
}

void lucid_contact_sliding_rows_n(lucid_contact_model model, int dim, double mu, const double *l,
                                  const double *s, double sT, const double *u, double *Fl,
                                  double *Fs, double *f) {
    const int *TN = lucid_contact_tangential_rows;
    int k = dim - 1;
    double w[20] = {0.0};
    complement(k, u, w);
    double force = mu * l[2], c_l = 1.0, c_s = 1.0; /* F1's scaling, as the 3-row one's */
    if (sT <= force)
        c_l = force > 0.0 ? sT / force : 0.0;
    else
        c_s = force / sT;
    Fl[2] = mu;
    Fs[dim * 2 + 2] = 1.0;
    for (int j = 0; j < k; ++j) {
        int t = TN[j];
        Fl[t] = u[j];
        for (int a = 0; a + 1 < k; ++a) { /* the rotation rows: the tangential rows after t1 */
            int row = dim * TN[a + 1] + t;
            Fl[row] = c_l * w[k * a + j], Fs[row] = c_s * w[k * a + j];
        }
        if (model == LUCID_CONTACT_CCP) Fs[dim * 2 + t] = -mu * u[j];
    }
    if (!f) return;
    f[TN[0]] = force, f[2] = model == LUCID_CONTACT_CCP ? s[2] - mu * sT : s[2];
    for (int j = 0; j < k; ++j) f[TN[0]] += u[j] * l[TN[j]];
    for (int a = 0; a + 1 < k; ++a) {
        double r = 0.0;
        for (int j = 0; j < k; ++j) r += w[k * a + j] * l[TN[j]];
        f[TN[a + 1]] = c_l * r;
    }
}
