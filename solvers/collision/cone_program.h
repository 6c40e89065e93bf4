/* A small cone program and its primal-dual interior-point solver (the engine of the P-SDF
 * query, pscaling.h):
 *   minimise c^T x  subject to  G x + s = h,  s in K,
 * where K is a product of second-order cones Q^k = {u : u0 >= ||u_1:k||} (a block of size 1
 * is the ray u0 >= 0, so linear inequalities are blocks of size 1). Its KKT conditions are
 *   G^T z + c = 0,  G x + s - h = 0,  s o z = 0,  s, z in K
 * with o the Jordan product of each block. The solver is Newton on these conditions with
 * Mehrotra's predictor-corrector: Nesterov-Todd scaled directions (the scheme of CVXOPT's
 * coneqp, L. Vandenberghe, "The CVXOPT linear and quadratic cone program solvers", 2010) on
 * the n x n normal equations (n <= 6 here) until the residual is 1e-8, then directions of the
 * Jordan-product linearisation (AHO) on a system that keeps the active blocks unreduced, which
 * reaches the tolerance on the whole of s o z (cone_program.c says why).
 * Everything lives in fixed-size structs on the caller's stack: no heap allocation. */
#ifndef LUCID_CONE_PROGRAM_H
#define LUCID_CONE_PROGRAM_H

#include "runtime/core/status.h"

#define LUCID_CONE_MAX_VARS      6   /* p (3), alpha, one auxiliary per capsule */
#define LUCID_CONE_MAX_ROWS      512 /* rows of G: a convex mesh contributes one per face */
#define LUCID_CONE_MAX_BLOCKS    LUCID_CONE_MAX_ROWS
#define LUCID_CONE_MAX_BLOCK_DIM 4 /* the largest cone: (alpha r, y) in Q^4 */

typedef struct lucid_cone_program {
    int n, m, num_blocks;
    int block_start[LUCID_CONE_MAX_BLOCKS + 1]; /* block b: rows [start[b], start[b + 1]) */
    double G[LUCID_CONE_MAX_ROWS * LUCID_CONE_MAX_VARS]; /* row-major: (i, j) at G[i * n + j] */
    double h[LUCID_CONE_MAX_ROWS];
    double c[LUCID_CONE_MAX_VARS];
} lucid_cone_program;

typedef struct lucid_cone_solution {
    double x[LUCID_CONE_MAX_VARS];
    double s[LUCID_CONE_MAX_ROWS], z[LUCID_CONE_MAX_ROWS];
    int iterations;
    int converged;   /* residual <= tol */
    double residual; /* max(||G x + s - h||_inf, ||G^T z + c||_inf, ||s o z||_inf) there */
    /* Working storage of the Nesterov-Todd steps: the scaling W = beta (2 v v^T - J) of each
     * block (W z = W^-1 s) and the Cholesky factor of G^T W^-2 G. */
    double beta[LUCID_CONE_MAX_BLOCKS];
    double v[LUCID_CONE_MAX_ROWS];
    double chol[LUCID_CONE_MAX_VARS * LUCID_CONE_MAX_VARS];
} lucid_cone_solution;

/* Solves P to residual <= tol within max_iter iterations. G must have full column rank.
 * LUCID_ERR_ARGUMENT: sizes out of range, tol <= 0, max_iter < 1; LUCID_ERR_SINGULAR: the
 * normal equations lost positive definiteness (G rank-deficient); LUCID_ERR_NO_CONVERGENCE:
 * the cap was reached (sol holds the last iterate and its residual). */
lucid_status lucid_cone_solve(const lucid_cone_program *P, double tol, int max_iter,
                              lucid_cone_solution *sol);

/* The KKT system linearised at sol with complementarity by the Jordan product (the exact
 * Jacobian of s o z = 0, continuous up to the solution), factorised once by
 * lucid_cone_factor_kkt: the blocks whose s is well inside its cone are eliminated, the
 * active ones kept in a dense LU of at most LUCID_CONE_MAX_FACTOR unknowns. */
#define LUCID_CONE_MAX_FACTOR (LUCID_CONE_MAX_VARS + 32)

typedef struct lucid_cone_factor {
    int active[LUCID_CONE_MAX_BLOCKS];
    int row_of[LUCID_CONE_MAX_ROWS]; /* active row -> unknown of the dense system, else -1 */
    int size;
    double K[LUCID_CONE_MAX_FACTOR * LUCID_CONE_MAX_FACTOR]; /* LU factors */
    int piv[LUCID_CONE_MAX_FACTOR];
} lucid_cone_factor;

/* LUCID_ERR_SINGULAR when the reduced system is singular. */
lucid_status lucid_cone_factor_kkt(const lucid_cone_program *P, const lucid_cone_solution *sol,
                                   lucid_cone_factor *F);

/* For right-hand sides (b1, b2), solves through F
 *   G^T dz = -b1,  G dx + ds = -b2,  z o ds + s o dz = 0,
 * i.e. the implicit-function derivative (dx, dz) of the solution when a parameter moves the
 * dual residual by b1 and the primal residual by b2 (complementarity does not depend on it).
 * dz may be NULL. A solution that is not unique (a face resting on a face) has a singular
 * Jacobian: the LU then holds pivots ~mu and the derivatives come out ~1/mu. */
void lucid_cone_sensitivity(const lucid_cone_program *P, const lucid_cone_solution *sol,
                            const lucid_cone_factor *F, const double *b1, const double *b2,
                            double *dx, double *dz);

#endif
