/* Shared helpers of the AD C tests: finite-difference Jacobian checks in both modes.
 * A test function records y = f(x) on a tape from an input of size n. */
#ifndef LUCID_TEST_AD_CHECK_H
#define LUCID_TEST_AD_CHECK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "autodiff/ad_ops.h"
#include "autodiff/jacobian.h"

typedef lucid_status (*ad_test_fn)(lucid_ad_tape *tape, lucid_ad_var x, const void *param,
                                   lucid_ad_var *y);

/* Records f at x; returns the status and the output size / values (copied to y_out). */
static lucid_status ad_record(lucid_ad_tape *tape, ad_test_fn f, const void *param, const double *x,
                              int n, lucid_ad_var *xv, lucid_ad_var *yv) {
    lucid_ad_tape_reset(tape);
    lucid_status s = lucid_ad_input(tape, x, n, xv);
    if (s != LUCID_OK) return s;
    return f(tape, *xv, param, yv);
}

/* Largest |J_mode - J_fd| / max(1, |J_fd|) over both modes, by central differences with step
 * h; writes the output size to *m_out. Returns -1 on any failure. */
static double ad_fd_error(ad_test_fn f, const void *param, const double *x0, int n, double h,
                          int *m_out) {
    lucid_ad_tape *tape = lucid_ad_tape_create();
    lucid_ad_var xv, yv;
    double worst = -1.0;
    double *x = malloc((size_t)n * sizeof *x);
    memcpy(x, x0, (size_t)n * sizeof *x);
    if (ad_record(tape, f, param, x, n, &xv, &yv) != LUCID_OK) goto done;
    int m = lucid_ad_var_size(tape, yv);
    *m_out = m;
    double *Jf = calloc((size_t)m * n, sizeof *Jf), *Jr = calloc((size_t)m * n, sizeof *Jr);
    double *Jd = calloc((size_t)m * n, sizeof *Jd);
    if (lucid_ad_jacobian(tape, xv, yv, LUCID_AD_MODE_FORWARD, NULL, Jf) != LUCID_OK ||
        lucid_ad_jacobian(tape, xv, yv, LUCID_AD_MODE_REVERSE, NULL, Jr) != LUCID_OK)
        goto free_all;
    for (int j = 0; j < n; ++j) {
        double yp[64], ym[64];
        if (m > 64) goto free_all;
        x[j] = x0[j] + h;
        if (ad_record(tape, f, param, x, n, &xv, &yv) != LUCID_OK) goto free_all;
        memcpy(yp, lucid_ad_var_values(tape, yv), (size_t)m * sizeof(double));
        x[j] = x0[j] - h;
        if (ad_record(tape, f, param, x, n, &xv, &yv) != LUCID_OK) goto free_all;
        memcpy(ym, lucid_ad_var_values(tape, yv), (size_t)m * sizeof(double));
        x[j] = x0[j];
        for (int i = 0; i < m; ++i) Jd[i + (size_t)m * j] = (yp[i] - ym[i]) / (2.0 * h);
    }
    worst = 0.0;
    for (int e = 0; e < m * n; ++e) {
        double scale = fmax(1.0, fabs(Jd[e]));
        worst = fmax(worst, fabs(Jf[e] - Jd[e]) / scale);
        worst = fmax(worst, fabs(Jr[e] - Jd[e]) / scale);
    }
free_all:
    free(Jf);
    free(Jr);
    free(Jd);
done:
    free(x);
    lucid_ad_tape_destroy(tape);
    return worst;
}

#endif
