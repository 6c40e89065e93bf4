/* The base parameters of a model's joint-torque regressor (regressor.h): the linear
 * combinations of theta that inverse dynamics can identify (docs/model.md, "Regressors").
 *
 * Some columns of Y are zero at every state (a parameter with no effect, e.g. the mass of a
 * body on a vertical hinge at its axis) or combinations of others (a link's Izz and its
 * child's mass on parallel axes): then Y theta = Y_b theta_b with Y_b the base columns of Y
 * (rank of them) and theta_b = theta[base] + beta theta[dependent]. They are found by a
 * rank-revealing QR with column pivoting (LAPACK dgeqp3) of Y stacked over random states
 * (q from lucid_model_random_configuration, v and a standard normal), columns scaled to unit
 * norm first so that the tolerance is relative to each column: the rank is the number of
 * |R_kk| > tolerance. A column whose norm is at most tolerance times the largest is zero
 * (an unidentifiable parameter with no effect).
 *
 * Which columns form the base: by default those chosen in theta's order (Khalil and Gautier's
 * regrouping: a column is kept when its distance to the span of the columns kept before it
 * exceeds the tolerance, so a dropped parameter is regrouped onto earlier ones, e.g. a child
 * link's mass onto its parent's first moment and inertia: ZZ1 + l1^2 m2), provided that gives
 * the QR's rank and no scaled coefficient (beta(i, j) scale[dependent j] / scale[base i])
 * above 100 (two digits of rounding; the pivoted QR's are about 1); otherwise, or with the
 * pivoted option, the QR's first rank pivots. */
#ifndef LUCID_MODEL_BASE_PARAMETERS_H
#define LUCID_MODEL_BASE_PARAMETERS_H

#include <stdint.h>

#include "runtime/model/regressor.h"

typedef struct lucid_base_parameters_options {
    lucid_regressor_options regressor;
    size_t samples;   /* random states stacked; 0: max(20, ceil(3 ncols / rows stacked)) */
    uint64_t seed;    /* of the states' random stream */
    double tolerance; /* relative rank tolerance on the scaled R's diagonal, in (0, 1) */
    int pivoted;      /* 1: the pivoted QR's base, 0: the base in theta's order */
    /* nv entries, nonzero for the rows (dofs) of Y to stack (e.g. without a free joint's rows,
     * which no joint sensor gives); NULL: every row */
    const unsigned char *rows;
} lucid_base_parameters_options;

/* The regressor's defaults, samples 0, seed 1, tolerance 1e-8, pivoted 0, rows NULL. */
lucid_base_parameters_options lucid_base_parameters_options_default(void);

typedef struct lucid_base_parameters {
    size_t nparams;    /* ncols of the regressor */
    size_t rank;       /* base parameters */
    size_t samples;    /* states stacked */
    double tolerance;  /* the options' */
    int pivoted;       /* 1 when base holds the pivoted QR's columns (see above) */
    size_t *base;      /* rank: the columns of Y kept, ascending */
    size_t *dependent; /* nparams - rank: the others, ascending */
    /* rank x (nparams - rank), column-major: Y[:, dependent[j]] = sum_i beta(i, j) Y[:, base[i]]
     * at every state, so theta_b(i) = theta[base[i]] + sum_j beta(i, j) theta[dependent[j]] */
    double *beta;
    double *scale; /* nparams: each column's norm in the stack (1 for a zero column) */
    /* the scaled QR's |R_kk| at the rank boundary: the smallest kept (last_kept) and the
     * largest dropped (first_dropped, 0 when rank = nparams): the gap the tolerance splits */
    double last_kept, first_dropped;
} lucid_base_parameters;

/* Computes the base parameters of m's regressor with the options (NULL: defaults). Allocates
 * (a setup function). LUCID_ERR_ARGUMENT (err says why) for bad options, LUCID_ERR_NO_MEMORY,
 * LUCID_ERR_NONFINITE when the stacked regressor is not finite, or LAPACK's failure. */
lucid_status lucid_model_base_parameters(const lucid_model *m,
                                         const lucid_base_parameters_options *o,
                                         lucid_base_parameters **out, char *err, size_t errlen);
void lucid_base_parameters_destroy(lucid_base_parameters *bp);

/* theta_b (rank) from theta (nparams). */
void lucid_base_parameters_reduce(const lucid_base_parameters *bp, const double *theta,
                                  double *theta_b);

/* Base parameter i as text into buf (snprintf's contract): its column's name, then
 * " + c name" / " - c name" for each dependent parameter with a scaled coefficient above the
 * tolerance (c omitted when 1), e.g. "link1.Izz + 0.09 link2.m + link2.Iyy". */
int lucid_base_parameters_describe(const lucid_model *m, const lucid_base_parameters *bp,
                                   const lucid_regressor_options *o, size_t i, char *buf,
                                   size_t len);

#endif
