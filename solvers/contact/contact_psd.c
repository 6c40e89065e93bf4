#include "solvers/contact/contact_psd.h"

#include <float.h>
#include <math.h>

#include "solvers/dense/dense_kernels.h"

/* Entry (i, j) of G + diag(R), symmetrised (validation allows G a round-off asymmetry). */
static double entry(const lucid_contact_problem *p, long m, long i, long j) {
    double a = 0.5 * (p->G[i + m * j] + p->G[j + m * i]);
    return i == j && p->R ? a + p->R[i] : a;
}

int lucid_contact_delassus_is_psd(const lucid_contact_problem *p, double *work) {
    long m = 3L * p->n, k = 0;
    double *H = work; /* k x k with leading dimension m */
    /* first pass: each row's diagonal; zero rows must be zero, negative diagonals fail */
    for (long i = 0; i < m; ++i) {
        double d = entry(p, m, i, i);
        if (d < 0.0) return 0;
        if (d == 0.0)
            for (long j = 0; j < m; ++j)
                if (entry(p, m, i, j) != 0.0) return 0;
    }
    /* H (k x k, column-major, lower triangle) over the rows of positive diagonal */
    for (long j = 0, cj = 0; j < m; ++j) {
        double dj = entry(p, m, j, j);
        if (dj == 0.0) continue;
        for (long i = j, ci = cj; i < m; ++i) {
            double di = entry(p, m, i, i);
            if (di == 0.0) continue;
            H[ci + m * cj] = entry(p, m, i, j) / (sqrt(di) * sqrt(dj));
            ++ci;
        }
        ++cj, ++k;
    }
    double eps = 4.0 * (double)k * (double)(k + 1) * (0.5 * DBL_EPSILON); /* header */
    for (long j = 0; j < k; ++j) H[j + m * j] += eps;
    /* Cholesky (lower) in place; a non-positive pivot fails */
    return k == 0 || lucid_dense_potrf((int)k, H, (int)m) == 0;
}
