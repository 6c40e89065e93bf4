/* The velocity-space operator of the sparse contact problem (contact_sparse.h): J, J^T and
 * G + R = J M^-1 J^T + R applied through the 3 x 6 blocks of each contact side. */
#include <string.h>

#include "solvers/contact/contact_sparse.h"

void lucid_contact_sparse_jt(const lucid_contact_sparse_problem *p, const double *y, double *f) {
    memset(f, 0, sizeof(double) * 6 * (size_t)p->num_bodies);
    for (int s = 0; s < 2 * p->n; ++s) {
        if (p->body[s] < 0) continue;
        const double *J = p->J + 18 * (size_t)s, *ys = y + 3 * (size_t)(s / 2);
        double *fb = f + 6 * (size_t)p->body[s];
        for (int k = 0; k < 6; ++k) fb[k] += J[k] * ys[0] + J[6 + k] * ys[1] + J[12 + k] * ys[2];
    }
}

void lucid_contact_sparse_j(const lucid_contact_sparse_problem *p, const double *u, double *y) {
    memset(y, 0, sizeof(double) * 3 * (size_t)p->n);
    for (int s = 0; s < 2 * p->n; ++s) {
        if (p->body[s] < 0) continue;
        const double *J = p->J + 18 * (size_t)s, *ub = u + 6 * (size_t)p->body[s];
        double *ys = y + 3 * (size_t)(s / 2);
        for (int d = 0; d < 3; ++d) {
            const double *r = J + 6 * d;
            ys[d] += r[0] * ub[0] + r[1] * ub[1] + r[2] * ub[2] + r[3] * ub[3] + r[4] * ub[4] +
                     r[5] * ub[5];
        }
    }
}

void lucid_contact_sparse_apply(const lucid_contact_sparse_problem *p, const double *x, double *u,
                                double *y) {
    memset(u, 0, sizeof(double) * 6 * (size_t)p->num_bodies);
    for (int s = 0; s < 2 * p->n; ++s) { /* u = W^T x = M^-1 J^T x */
        if (p->body[s] < 0) continue;
        const double *W = p->W + 18 * (size_t)s, *xs = x + 3 * (size_t)(s / 2);
        double *ub = u + 6 * (size_t)p->body[s];
        for (int k = 0; k < 6; ++k) ub[k] += W[k] * xs[0] + W[6 + k] * xs[1] + W[12 + k] * xs[2];
    }
    lucid_contact_sparse_j(p, u, y);
    if (p->R)
        for (size_t k = 0; k < 3 * (size_t)p->n; ++k) y[k] += p->R[k] * x[k];
}

int lucid_contact_sparse_has(lucid_contact_model model, lucid_contact_solver solver) {
    if (lucid_contact_pair_check(model, solver) != LUCID_OK) return 0;
    return solver == LUCID_CONTACT_PGS ||
           (solver == LUCID_CONTACT_ADMM &&
            (model == LUCID_CONTACT_CCP || model == LUCID_CONTACT_NCP)) ||
           (solver == LUCID_CONTACT_NEWTON && model == LUCID_CONTACT_CCP);
}

void lucid_contact_sparse_delassus(const lucid_contact_sparse_problem *p, double *G) {
    size_t m = 3 * (size_t)p->n;
    memset(G, 0, sizeof(double) * m * m);
    for (int i = 0; i < p->n; ++i)
        for (int j = 0; j < p->n; ++j)
            for (int s = 2 * i; s < 2 * i + 2; ++s)
                for (int t = 2 * j; t < 2 * j + 2; ++t) {
                    if (p->body[s] < 0 || p->body[s] != p->body[t]) continue;
                    const double *J = p->J + 18 * (size_t)s, *W = p->W + 18 * (size_t)t;
                    for (int a = 0; a < 3; ++a) /* block (i, j) += J_s W_t^T */
                        for (int b = 0; b < 3; ++b) {
                            double v = 0.0;
                            for (int k = 0; k < 6; ++k) v += J[6 * a + k] * W[6 * b + k];
                            G[(3 * (size_t)i + a) + m * (3 * (size_t)j + b)] += v;
                        }
                }
    if (p->R)
        for (size_t k = 0; k < m; ++k) G[k + m * k] += p->R[k];
}
