#include <math.h>
#include <string.h>

#include "solvers/contact/contact_anderson.h"

int lucid_anderson_storage(int dim, int memory) {
    return (2 * memory + 3) * dim;
}

void lucid_anderson_init(lucid_anderson *a, int dim, int memory, double *storage) {
    memory = memory < 0                           ? 0
             : memory > LUCID_ANDERSON_MAX_MEMORY ? LUCID_ANDERSON_MAX_MEMORY
                                                  : memory;
    *a = (lucid_anderson){.dim = dim, .memory = memory};
    if (memory == 0) return; /* no storage read or written */
    a->dF = storage;
    a->dG = storage + (size_t)memory * dim;
    a->f_previous = storage + 2 * (size_t)memory * dim;
    a->g_previous = a->f_previous + dim;
    a->fallback = a->g_previous + dim;
}

void lucid_anderson_reset(lucid_anderson *a) {
    a->count = a->head = a->has_previous = a->accelerated = 0;
}

/* out[j] = Y_j . x for the count columns Y_j = Y + j n: four (then two) at a time in one pass
 * over x, each sum in index order (the bits of one dot product at a time), so that the sums
 * run as independent chains of additions instead of one after another. */
static void dots(const double *Y, int count, const double *x, int n, double *out) {
    int j = 0;
    for (; j + 4 <= count; j += 4) {
        const double *y0 = Y + (size_t)j * (size_t)n, *y1 = y0 + n, *y2 = y1 + n, *y3 = y2 + n;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        for (int k = 0; k < n; ++k)
            s0 += y0[k] * x[k], s1 += y1[k] * x[k], s2 += y2[k] * x[k], s3 += y3[k] * x[k];
        out[j] = s0, out[j + 1] = s1, out[j + 2] = s2, out[j + 3] = s3;
    }
    for (; j + 2 <= count; j += 2) {
        const double *y0 = Y + (size_t)j * (size_t)n, *y1 = y0 + n;
        double s0 = 0.0, s1 = 0.0;
        for (int k = 0; k < n; ++k) s0 += y0[k] * x[k], s1 += y1[k] * x[k];
        out[j] = s0, out[j + 1] = s1;
    }
    for (; j < count; ++j) {
        const double *y0 = Y + (size_t)j * (size_t)n;
        double s0 = 0.0;
        for (int k = 0; k < n; ++k) s0 += y0[k] * x[k];
        out[j] = s0;
    }
}

/* Solves the k x k SPD system H theta = r in place (Cholesky, H column-major); 0 when it is
 * not numerically positive definite. */
static int solve_small(double *H, double *r, int k) {
    for (int j = 0; j < k; ++j) {
        double d = H[j + j * k];
        for (int i = 0; i < j; ++i) d -= H[j + i * k] * H[j + i * k];
        if (!(d > 0.0)) return 0;
        d = sqrt(d);
        H[j + j * k] = d;
        for (int i = j + 1; i < k; ++i) {
            double v = H[i + j * k];
            for (int l = 0; l < j; ++l) v -= H[i + l * k] * H[j + l * k];
            H[i + j * k] = v / d;
        }
    }
    for (int i = 0; i < k; ++i) {
        for (int l = 0; l < i; ++l) r[i] -= H[i + l * k] * r[l];
        r[i] /= H[i + i * k];
    }
    for (int i = k - 1; i >= 0; --i) {
        for (int l = i + 1; l < k; ++l) r[i] -= H[l + i * k] * r[l];
        r[i] /= H[i + i * k];
    }
    return 1;
}

/* Records the step's differences; returns the residual f = g - u into f_previous. */
static void record(lucid_anderson *a, const double *u, const double *g) {
    int n = a->dim;
    double *dF = a->dF + (size_t)a->head * n, *dG = a->dG + (size_t)a->head * n;
    for (int k = 0; k < n; ++k) {
        double f = g[k] - u[k];
        if (a->has_previous && a->memory > 0) {
            dF[k] = f - a->f_previous[k];
            dG[k] = g[k] - a->g_previous[k];
        }
        a->f_previous[k] = f;
        a->g_previous[k] = g[k];
    }
    if (a->has_previous && a->memory > 0) {
        int h = a->head;
        if (a->count < a->memory) ++a->count;
        double row[LUCID_ANDERSON_MAX_MEMORY]; /* the new difference's row of the Gram matrix */
        dots(a->dF, a->count, a->dF + (size_t)h * n, n, row);
        for (int j = 0; j < a->count; ++j)
            a->gram[h * LUCID_ANDERSON_MAX_MEMORY + j] =
                a->gram[j * LUCID_ANDERSON_MAX_MEMORY + h] = row[j];
        a->head = (h + 1) % a->memory;
    }
    a->has_previous = 1;
}

void lucid_anderson_step(lucid_anderson *a, const double *u, double *g) {
    if (a->memory == 0) return;
    int n = a->dim;
    double norm = 0.0;
    for (int i = 0; i < n; ++i) norm += (g[i] - u[i]) * (g[i] - u[i]);
    norm = sqrt(norm);
    if (a->accelerated && !(norm <= a->previous_norm)) {
        memcpy(g, a->fallback, sizeof(double) * (size_t)n);
        lucid_anderson_reset(a);
        ++a->rejections;
        return;
    }
    a->previous_norm = norm;
    a->accelerated = 0;
    record(a, u, g);
    int k = a->count;
    if (k == 0) return;
    double H[LUCID_ANDERSON_MAX_MEMORY * LUCID_ANDERSON_MAX_MEMORY],
        theta[LUCID_ANDERSON_MAX_MEMORY];
    double trace = 0.0;
    dots(a->dF, k, a->f_previous, n, theta);
    for (int j = 0; j < k; ++j) {
        for (int i = j; i < k; ++i) H[i + j * k] = a->gram[i * LUCID_ANDERSON_MAX_MEMORY + j];
        trace += H[j + j * k];
    }
    /* Tikhonov term: the differences become nearly collinear near convergence, and a tiny
     * regularisation keeps theta bounded without changing a well-posed least squares. */
    for (int j = 0; j < k; ++j) H[j + j * k] += 1e-10 * trace + 1e-300;
    if (!solve_small(H, theta, k)) return;
    /* one pass: the extrapolation's length and the extrapolated g (into fallback, swapped
     * with g when accepted), each in the order of the two passes this replaces */
    double step = 0.0;
    for (int i = 0; i < n; ++i) {
        double d = 0.0, out = g[i];
        for (int j = 0; j < k; ++j) {
            double t = theta[j] * a->dG[(size_t)j * n + i];
            d += t, out -= t;
        }
        step += d * d;
        a->fallback[i] = out;
    }
    if (!(sqrt(step) <= LUCID_ANDERSON_STEP_LIMIT * norm)) return;
    a->accelerated = 1;
    for (int i = 0; i < n; ++i) {
        double plain = g[i];
        g[i] = a->fallback[i], a->fallback[i] = plain;
    }
}
