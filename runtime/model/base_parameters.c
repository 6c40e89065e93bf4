/* Base parameters by a column-pivoted QR of a stacked regressor (base_parameters.h). */
#include "runtime/model/base_parameters.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/math/rng.h"
#include "runtime/model/configuration.h"
#include "solvers/dense/dense_qr.h"

/* The largest scaled regrouping coefficient the base in theta's order may have: the pivoted
 * QR's are about 1, so at most two more digits are lost to rounding in theta_b. */
#define LUCID_BASE_MAX_REGROUPING 100.0

lucid_base_parameters_options lucid_base_parameters_options_default(void) {
    lucid_base_parameters_options o;
    o.regressor = lucid_regressor_options_default();
    o.samples = 0;
    o.seed = 1;
    o.tolerance = 1e-8;
    o.pivoted = 0;
    o.rows = NULL;
    return o;
}

void lucid_base_parameters_destroy(lucid_base_parameters *bp) {
    if (!bp) return;
    free(bp->base), free(bp->dependent), free(bp->beta), free(bp->scale);
    free(bp);
}

static lucid_status failf(char *err, size_t errlen, lucid_status st, const char *fmt, ...) {
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return st;
}

/* The stack W (samples * nr rows, column-major) of Y's selected rows (all when o->rows is
 * NULL; nr of them) at random states. */
static lucid_status stack_regressor(const lucid_model *m, const lucid_base_parameters_options *o,
                                    size_t samples, size_t nr, size_t p, double *W) {
    size_t nv = lucid_model_nv(m), rows = samples * nr;
    lucid_model_data *d = NULL;
    double *q = malloc((lucid_model_nq(m) + 2 * nv + nv * p + 1) * sizeof *q);
    lucid_status st = q ? lucid_model_data_create(m, &d) : LUCID_ERR_NO_MEMORY;
    if (st == LUCID_OK) {
        double *v = q + lucid_model_nq(m), *a = v + nv, *Y = a + nv;
        lucid_rng rng;
        lucid_rng_seed(&rng, o->seed);
        for (size_t s = 0; s < samples; ++s) {
            lucid_model_random_configuration(m, &rng, q);
            for (size_t k = 0; k < nv; ++k) v[k] = lucid_rng_normal(&rng);
            for (size_t k = 0; k < nv; ++k) a[k] = lucid_rng_normal(&rng);
            lucid_model_joint_torque_regressor(m, d, &o->regressor, q, v, a, Y, nv);
            for (size_t c = 0; c < p; ++c)
                for (size_t k = 0, r = s * nr; k < nv; ++k)
                    if (!o->rows || o->rows[k]) W[r++ + rows * c] = Y[k + nv * c];
        }
    }
    lucid_model_data_destroy(d);
    free(q);
    return st;
}

/* Scales W's columns to unit norm (scale = the norms); columns at most tol times the
 * largest norm are zeroed (scale 1). Returns 0 when a value is not finite. */
static int scale_columns(double *W, size_t rows, size_t p, double tol, double *scale) {
    double largest = 0.0;
    for (size_t c = 0; c < p; ++c) {
        double s = 0.0;
        for (size_t r = 0; r < rows; ++r) s += W[r + rows * c] * W[r + rows * c];
        scale[c] = sqrt(s);
        if (!isfinite(scale[c])) return 0;
        if (scale[c] > largest) largest = scale[c];
    }
    for (size_t c = 0; c < p; ++c) {
        double f = scale[c] > tol * largest ? 1.0 / scale[c] : 0.0;
        if (f == 0.0) scale[c] = 1.0;
        for (size_t r = 0; r < rows; ++r) W[r + rows * c] *= f;
    }
    return 1;
}

/* X <- R11^-1 X for the upper triangular r x r R11 (leading dimension ld), X r x n. */
static void upper_solve(const double *R, size_t ld, size_t r, double *X, size_t ldx, size_t n) {
    for (size_t j = 0; j < n; ++j)
        for (size_t i = r; i-- > 0;) {
            double s = X[i + ldx * j];
            for (size_t k = i + 1; k < r; ++k) s -= R[i + ld * k] * X[k + ldx * j];
            X[i + ldx * j] = s / R[i + ld * i];
        }
}

static int cmp_size(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Fills bp's index sets (ascending) and beta from the pivots and the solved R11^-1 R12. */
static lucid_status fill_result(lucid_base_parameters *bp, const int *jpvt, const double *B,
                                size_t r) {
    size_t p = bp->nparams, nd = p - r;
    size_t *pos = malloc((p + 1) * sizeof *pos); /* pivot position of each column */
    if (!pos) return LUCID_ERR_NO_MEMORY;
    for (size_t k = 0; k < p; ++k) pos[(size_t)jpvt[k] - 1] = k;
    for (size_t k = 0; k < r; ++k) bp->base[k] = (size_t)jpvt[k] - 1;
    for (size_t k = r; k < p; ++k) bp->dependent[k - r] = (size_t)jpvt[k] - 1;
    qsort(bp->base, r, sizeof *bp->base, cmp_size);
    qsort(bp->dependent, nd, sizeof *bp->dependent, cmp_size);
    for (size_t j = 0; j < nd; ++j)
        for (size_t i = 0; i < r; ++i) {
            size_t cb = bp->base[i], cd = bp->dependent[j];
            bp->beta[i + r * j] = B[pos[cb] + r * (pos[cd] - r)] * bp->scale[cd] / bp->scale[cb];
        }
    free(pos);
    return LUCID_OK;
}

static lucid_status allocate(lucid_base_parameters **out, size_t p, size_t samples,
                             double tolerance) {
    lucid_base_parameters *bp = calloc(1, sizeof *bp);
    if (!bp) return LUCID_ERR_NO_MEMORY;
    bp->nparams = p;
    bp->samples = samples;
    bp->tolerance = tolerance;
    bp->base = malloc((p + 1) * sizeof *bp->base);
    bp->dependent = malloc((p + 1) * sizeof *bp->dependent);
    bp->scale = malloc((p + 1) * sizeof *bp->scale);
    bp->beta = malloc((p / 2 + 1) * (p / 2 + 1) * sizeof *bp->beta); /* r (p - r) <= p^2 / 4 */
    *out = bp;
    if (!bp->base || !bp->dependent || !bp->scale || !bp->beta) return LUCID_ERR_NO_MEMORY;
    return LUCID_OK;
}

/* dgeqp3 of the scaled stack W (rows x p, overwritten): jpvt and the rank, with the diagonal
 * at the rank boundary. */
static lucid_status pivoted_qr(lucid_base_parameters *bp, double *W, size_t rows, double tol,
                               int *jpvt, char *err, size_t errlen) {
    size_t p = bp->nparams, kmax = rows < p ? rows : p;
    double *tau = malloc((kmax + 1) * sizeof *tau);
    if (!tau) return LUCID_ERR_NO_MEMORY;
    lucid_status st = lucid_dense_qr_pivoted((int)rows, (int)p, W, (int)rows, jpvt, tau);
    free(tau);
    if (st == LUCID_ERR_NO_MEMORY) return st;
    if (st != LUCID_OK)
        return failf(err, errlen, st, "lucid_model_base_parameters: the pivoted QR failed (%s)",
                     lucid_status_string(st));
    double r00 = kmax ? fabs(W[0]) : 0.0;
    size_t r = 0;
    while (r < kmax && r00 > 0.0 && fabs(W[r + rows * r]) > tol * r00) ++r;
    bp->rank = r;
    bp->last_kept = r ? fabs(W[(r - 1) * (rows + 1)]) / r00 : 0.0;
    bp->first_dropped = r < kmax ? fabs(W[r * (rows + 1)]) / (r00 > 0.0 ? r00 : 1.0) : 0.0;
    return LUCID_OK;
}

/* The pivoted QR's own base (its first rank pivots): beta = R11^-1 R12 from its factors. */
static lucid_status pivoted_base(lucid_base_parameters *bp, double *W, size_t rows,
                                 const int *jpvt) {
    size_t p = bp->nparams, r = bp->rank;
    upper_solve(W, rows, r, W + rows * r, rows, p - r); /* in W's columns r.. */
    double *Bc = malloc((r * (p - r) + 1) * sizeof *Bc);
    if (!Bc) return LUCID_ERR_NO_MEMORY;
    for (size_t j = 0; j < p - r; ++j)
        for (size_t i = 0; i < r; ++i) Bc[i + r * j] = W[i + rows * (r + j)];
    lucid_status st = fill_result(bp, jpvt, Bc, r); /* compact copy, then ascending order */
    free(Bc);
    return st;
}

/* x -= sum_i (q_i . x) q_i over the first k columns of Q (twice: Gram-Schmidt that stays
 * orthogonal to rounding), the coefficients added to s. */
static void project_out(const double *Q, size_t rows, size_t k, double *x, double *s) {
    for (int pass = 0; pass < 2; ++pass)
        for (size_t i = 0; i < k; ++i) {
            const double *qi = Q + rows * i;
            double d = 0.0;
            for (size_t t = 0; t < rows; ++t) d += qi[t] * x[t];
            for (size_t t = 0; t < rows; ++t) x[t] -= d * qi[t];
            s[i] += d;
        }
}

/* The base in theta's order (Khalil and Gautier's regrouping): column c is kept when its
 * distance to the span of the columns kept before it exceeds tol, and a dropped column is a
 * combination of earlier kept columns only. Fills bp's index sets and beta and returns 1 when
 * exactly bp->rank columns are kept and every scaled coefficient is at most
 * LUCID_BASE_MAX_REGROUPING, else returns 0 (the pivoted base is used). */
static int natural_base(lucid_base_parameters *bp, const double *W, size_t rows, double tol,
                        lucid_status *st) {
    size_t p = bp->nparams, r = bp->rank, kept = 0, nd = 0;
    double *Q = malloc((rows * r + rows + r + 1) * sizeof *Q);
    double *x = Q ? Q + rows * r : NULL, *s = Q ? x + rows : NULL;
    double *R = calloc(r * r + 1, sizeof *R), *S = calloc(r * p + 1, sizeof *S);
    *st = Q && R && S ? LUCID_OK : LUCID_ERR_NO_MEMORY;
    for (size_t c = 0; *st == LUCID_OK && c < p && kept <= r; ++c) {
        memcpy(x, W + rows * c, rows * sizeof *x);
        memset(s, 0, (r + 1) * sizeof *s);
        project_out(Q, rows, kept, x, s);
        double nrm = 0.0;
        for (size_t t = 0; t < rows; ++t) nrm += x[t] * x[t];
        nrm = sqrt(nrm);
        if (nrm > tol) {
            if (kept == r) {
                ++kept; /* more than the QR's rank: disagree */
                break;
            }
            for (size_t t = 0; t < rows; ++t) Q[rows * kept + t] = x[t] / nrm;
            memcpy(R + r * kept, s, kept * sizeof *s);
            R[kept + r * kept] = nrm;
            bp->base[kept++] = c;
        } else {
            memcpy(S + r * nd, s, kept * sizeof *s);
            bp->dependent[nd++] = c;
        }
    }
    int ok = *st == LUCID_OK && kept == r;
    if (ok) {
        upper_solve(R, r, r, S, r, nd); /* beta-hat = R^-1 s: earlier kept columns only */
        for (size_t k = 0; k < r * nd; ++k) ok = ok && fabs(S[k]) <= LUCID_BASE_MAX_REGROUPING;
        for (size_t j = 0; j < nd; ++j)
            for (size_t i = 0; i < r; ++i)
                bp->beta[i + r * j] =
                    S[i + r * j] * bp->scale[bp->dependent[j]] / bp->scale[bp->base[i]];
    }
    free(Q), free(R), free(S);
    return ok;
}

/* Rank from the pivoted QR of the scaled stack W (rows x p); the base in theta's order when
 * it has that rank and the pivoted one is not asked for, else the pivoted QR's. */
static lucid_status factorise(lucid_base_parameters *bp, double *W, size_t rows, double tol,
                              int pivoted, char *err, size_t errlen) {
    size_t p = bp->nparams;
    int *jpvt = calloc(p + 1, sizeof *jpvt);
    double *Wc = malloc((rows * p + 1) * sizeof *Wc);
    lucid_status st = jpvt && Wc ? LUCID_OK : LUCID_ERR_NO_MEMORY;
    if (st == LUCID_OK) {
        memcpy(Wc, W, rows * p * sizeof *W);
        st = pivoted_qr(bp, Wc, rows, tol, jpvt, err, errlen);
    }
    bp->pivoted = 1;
    if (st == LUCID_OK && !pivoted && natural_base(bp, W, rows, tol, &st)) bp->pivoted = 0;
    if (st == LUCID_OK && bp->pivoted) st = pivoted_base(bp, Wc, rows, jpvt);
    free(jpvt);
    free(Wc);
    return st;
}

lucid_status lucid_model_base_parameters(const lucid_model *m,
                                         const lucid_base_parameters_options *opts,
                                         lucid_base_parameters **out, char *err, size_t errlen) {
    const char *F = "lucid_model_base_parameters";
    *out = NULL;
    lucid_base_parameters_options o = opts ? *opts : lucid_base_parameters_options_default();
    const char *why = NULL;
    if (lucid_regressor_options_check(&o.regressor, &why) != LUCID_OK)
        return failf(err, errlen, LUCID_ERR_ARGUMENT, "%s: %s", F, why);
    if (!(o.tolerance > 0.0 && o.tolerance < 1.0))
        return failf(err, errlen, LUCID_ERR_ARGUMENT, "%s: tolerance must be in (0, 1) (got %g)", F,
                     o.tolerance);
    size_t nv = lucid_model_nv(m), p = lucid_regressor_ncols(m, &o.regressor), nr = 0;
    for (size_t k = 0; k < nv; ++k) nr += !o.rows || o.rows[k];
    if (nr == 0)
        return failf(err, errlen, LUCID_ERR_ARGUMENT, "%s: no rows to stack (%s)", F,
                     nv ? "rows selects none" : "the model has no degree of freedom");
    size_t samples = o.samples ? o.samples : (3 * p + nr - 1) / nr;
    if (!o.samples && samples < 20) samples = 20;
    if (samples > SIZE_MAX / nr / p / sizeof(double) || samples * nr > INT32_MAX || p > INT32_MAX)
        return failf(err, errlen, LUCID_ERR_ARGUMENT, "%s: %zu samples of %zu x %zu are too many",
                     F, samples, nr, p);
    size_t rows = samples * nr;
    double *W = malloc(rows * p * sizeof *W);
    lucid_base_parameters *bp = NULL;
    lucid_status st = W ? allocate(&bp, p, samples, o.tolerance) : LUCID_ERR_NO_MEMORY;
    if (st == LUCID_OK) st = stack_regressor(m, &o, samples, nr, p, W);
    if (st == LUCID_OK && !scale_columns(W, rows, p, o.tolerance, bp->scale))
        st = failf(err, errlen, LUCID_ERR_NONFINITE, "%s: the stacked regressor is not finite", F);
    if (st == LUCID_OK) st = factorise(bp, W, rows, o.tolerance, o.pivoted, err, errlen);
    free(W);
    if (st != LUCID_OK) {
        lucid_base_parameters_destroy(bp);
        if (st == LUCID_ERR_NO_MEMORY) failf(err, errlen, st, "%s: out of memory", F);
        return st;
    }
    *out = bp;
    return LUCID_OK;
}

void lucid_base_parameters_reduce(const lucid_base_parameters *bp, const double *theta,
                                  double *theta_b) {
    size_t r = bp->rank;
    for (size_t i = 0; i < r; ++i) {
        double s = theta[bp->base[i]];
        for (size_t j = 0; j < bp->nparams - r; ++j)
            s += bp->beta[i + r * j] * theta[bp->dependent[j]];
        theta_b[i] = s;
    }
}

/* Appends to buf at *at like snprintf (the total needed length is still counted). */
static void append(char *buf, size_t len, size_t *at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(*at < len ? buf + *at : NULL, *at < len ? len - *at : 0, fmt, ap);
    va_end(ap);
    if (n > 0) *at += (size_t)n;
}

int lucid_base_parameters_describe(const lucid_model *m, const lucid_base_parameters *bp,
                                   const lucid_regressor_options *o, size_t i, char *buf,
                                   size_t len) {
    char name[256];
    size_t at = 0, r = bp->rank;
    if (len) buf[0] = '\0';
    lucid_regressor_parameter_name(m, o, bp->base[i], name, sizeof name);
    append(buf, len, &at, "%s", name);
    for (size_t j = 0; j < bp->nparams - r; ++j) {
        size_t cb = bp->base[i], cd = bp->dependent[j];
        double c = bp->beta[i + r * j], scaled = c * bp->scale[cb] / bp->scale[cd];
        if (!(fabs(scaled) > bp->tolerance)) continue; /* a rounding-level coefficient */
        lucid_regressor_parameter_name(m, o, cd, name, sizeof name);
        const char *sign = c < 0 ? "-" : "+";
        if (fabs(fabs(c) - 1.0) <= 1e-9)
            append(buf, len, &at, " %s %s", sign, name);
        else
            append(buf, len, &at, " %s %.6g %s", sign, fabs(c), name);
    }
    return (int)at;
}
