/* A sliding contact's linearised conditions (contact_sliding_rows.h). */
#include "solvers/contact/contact_sliding_rows.h"

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
