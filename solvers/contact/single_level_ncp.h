/* The nonlinear complementarity problem of the single-level step (Silico Problem 20, docs/
 * single_level.md) and its primal-dual interior-point solver. Unknowns X = (y, a, b): y free
 * (ny), a and b (na each) in a product K of second-order cones (a block of size 1 is a ray).
 * The problem is
 *   F(y, a, b) = 0  (ny + na equations, a callback),   a o b = kappa e,   a, b in int K
 * with o the Jordan product of each block (a o b = (a.b, a0 b1 + b0 a1)) and e its identity.
 * Newton on the relaxed system, the target sigma mu (Mehrotra's sigma = (mu_aff / mu)^3 from an
 * affine predictor) driven down to kappa; steps kept inside the cones (fraction to the boundary
 * 0.99) and halved until the violation of the equations or of the complementarity decreases. The
 * Jacobian of F is taken by central differences (F is at most quadratic in most unknowns, where
 * central differences are exact up to rounding), that of a o b exactly; one LU with partial
 * pivoting per iteration, on the dense matrix but skipping its zeros. */
#ifndef LUCID_SINGLE_LEVEL_NCP_H
#define LUCID_SINGLE_LEVEL_NCP_H

#include <stddef.h>

#include "runtime/core/option_table.h"
#include "runtime/core/status.h"

typedef struct lucid_single_level_options {
    double kappa;   /* > 0: complementarity relaxation the solve stops at (default 1e-8) */
    double tol;     /* > 0: max(||F||_inf, ||a o b - kappa e||_inf) at the answer (1e-9) */
    int max_iter;   /* >= 1: Newton iterations per step (default 50) */
    int warm_start; /* start from the previous step's solution of the same pair (default 1) */
} lucid_single_level_options;

void lucid_single_level_default_options(lucid_single_level_options *o);
/* The options' description (lucid.world's single_level = {...}). */
extern const lucid_option lucid_single_level_option_table[];
/* LUCID_OK or LUCID_ERR_ARGUMENT with *why naming the option. */
lucid_status lucid_single_level_options_check(const lucid_single_level_options *o,
                                              const char **why);

typedef void (*lucid_ncp_residual)(void *ctx, const double *X, double *F);
/* dF/dX into the first ny + na rows of J (row-major, N = ny + 2 na columns, every entry of
 * those rows written); X may be changed meanwhile but must be restored. */
typedef void (*lucid_ncp_jacobian)(void *ctx, double *X, double *J);

typedef struct lucid_ncp_problem {
    int ny, na;
    int num_blocks;
    const int *block_start; /* num_blocks + 1 offsets into a (and b) */
    lucid_ncp_residual F;
    void *ctx;
    lucid_ncp_jacobian dF; /* NULL: F's rows by central differences of F */
    int skip_answer_lu;    /* 1: no LU at the converged answer (no one solves with it) */
    const int *order;      /* the unknowns in the LU's elimination order (NULL: 0..N-1), for
                            * a Jacobian that stays sparse when eliminated in that order */
} lucid_ncp_problem;

/* Buffers of one solve, grown by lucid_ncp_reserve (the only allocation). */
typedef struct lucid_ncp_workspace {
    size_t cap; /* unknowns N = ny + 2 na the buffers hold */
    double *J, *R, *d, *daff, *Xt, *Ft, *Fm;
    double *y;          /* the solves' scratch */
    int *perm, *rowidx; /* the LU's elimination order and its rows (lu_factor) */
    int *cols;          /* the factorisation's scratch */
} lucid_ncp_workspace;

lucid_status lucid_ncp_reserve(lucid_ncp_workspace *ws, size_t n);
void lucid_ncp_release(lucid_ncp_workspace *ws);

typedef struct lucid_ncp_result {
    int iterations, converged;
    double residual;        /* ||F||_inf at the answer */
    double complementarity; /* ||a o b - kappa e||_inf there */
} lucid_ncp_result;

/* Solves from X (which must have a, b in int K) in place; the LU of the Jacobian at the
 * answer stays in ws (J, perm, rowidx) for derivatives, unless p->skip_answer_lu.
 * LUCID_ERR_SINGULAR when a Jacobian is singular; LUCID_ERR_NO_CONVERGENCE at the cap (X holds the
 * last iterate). */
lucid_status lucid_ncp_solve(const lucid_ncp_problem *p, const lucid_single_level_options *o,
                             double *X, lucid_ncp_workspace *ws, lucid_ncp_result *res);

/* The same answer by following the central path: solved at kappa0 first, then at halved
 * relaxations down to o->kappa, each stage from the last (a start that stalls at o->kappa often
 * converges this way: the iterates stay centred while the nonlinear equations are resolved).
 * res->iterations counts all stages; converged only when the last stage (o->kappa) is. */
lucid_status lucid_ncp_solve_continued(const lucid_ncp_problem *p,
                                       const lucid_single_level_options *o, double kappa0,
                                       double *X, lucid_ncp_workspace *ws, lucid_ncp_result *res);

/* Solves J x = b (in place) with the LU the last solve left in ws (n unknowns). */
void lucid_ncp_lu_solve(const lucid_ncp_workspace *ws, int n, double *b);

#endif
