#include "solvers/contact/contact_null_rows.h"

#include <math.h>
#include <stddef.h>

int lucid_contact_null_rows_dim(int n, int dim, double (*diag)(const void *, int), const void *ctx,
                                double *R, double *mu) {
    double top = 0.0;
    for (int k = 0; k < dim * n; ++k) top = fmax(top, diag(ctx, k));
    if (!(top > 0.0)) top = 1.0; /* nothing moves at all: every row is null, any R will do */
    int count = 0;
    for (int k = 0; k < dim * n; ++k) {
        if (!(R[k] >= 0.0) || diag(ctx, k) + R[k] > LUCID_CONTACT_NULL_ROW * top)
            continue; /* a moving row, or a bad R for the problem's validation to refuse */
        R[k] = top;
        if (k % dim == 2) mu[k / dim] = 0.0;
        ++count;
    }
    return count;
}

typedef struct dense_matrix {
    const double *G;
    size_t ld;
} dense_matrix;

/* Entry (k, k) of a dense column-major matrix. */
static double dense_diagonal(const void *ctx, int k) {
    const dense_matrix *d = ctx;
    return d->G[(size_t)k * (d->ld + 1)];
}

int lucid_contact_dense_null_rows_dim(int n, int dim, const double *G, double *R, double *mu) {
    return lucid_contact_null_rows_dim(n, dim, dense_diagonal,
                                       &(dense_matrix){G, (size_t)dim * (size_t)n}, R, mu);
}
