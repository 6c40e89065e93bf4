/* The Delassus contact problem shared by every contact model and solver.
 * n contacts; contact i owns entries 3i..3i+2 of lambda, g and the rows/columns of G, in its
 * frame (t1, t2, n): tangents first, normal last. The contact velocity of a candidate impulse
 * lambda is sigma = G lambda + g + R lambda (R an optional diagonal compliance).
 * With dim = 4 (torsional friction, MJCF condim 4) contact i owns entries 4i..4i+3, (t1, t2,
 * n, s): s a third tangential row (the spin about n, scaled as the caller chooses), in the cone
 * ||(x_t1, x_t2, x_s)|| <= mu x_n. With dim = 6 (rolling friction, MJCF condim 6) contact i owns
 * entries 6i..6i+5, (t1, t2, n, s, r1, r2): r1, r2 the rolling about t1, t2, two more tangential
 * rows of the same cone ||(x_t1, x_t2, x_s, x_r1, x_r2)|| <= mu x_n. The pairs of
 * every pair takes them (docs/contact.md). */
#ifndef LUCID_CONTACT_PROBLEM_H
#define LUCID_CONTACT_PROBLEM_H

#include "runtime/core/status.h"

typedef struct lucid_contact_problem {
    int n;            /* number of contacts (>= 0) */
    const double *G;  /* 3n x 3n Delassus matrix, column-major, symmetric positive semi-definite */
    const double *g;  /* 3n free velocity */
    const double *mu; /* n friction coefficients, in [0, LUCID_CONTACT_MAX_FRICTION] */
    const double *R;  /* 3n diagonal compliance (>= 0), or NULL for rigid contacts */
    int dim;          /* rows per contact: 3 (or 0, the same), 4 or 6; the sizes are dim n */
} lucid_contact_problem;

/* Rows per contact (3, 4 or 6) and rows in all (dim n). */
static inline int lucid_contact_dim(const lucid_contact_problem *p) {
    return p->dim == 4 || p->dim == 6 ? p->dim : 3;
}
static inline long lucid_contact_rows(const lucid_contact_problem *p) {
    return (long)lucid_contact_dim(p) * p->n;
}

/* The largest friction coefficient accepted. The criteria of Eq. 15 lose sensitivity as mu
 * grows: for the NCP, a contact velocity sigma with a penetrating normal part sigma_N < 0 has
 * a dual residual dist(sigma + (0, 0, mu |sigma_T|), K*) ~ |sigma_N| / mu, so a wrong answer
 * reads as converged once |sigma_N| < mu tol. Measured on G = I, g = (1, 0, -1) (the exact
 * answer is sticking, lambda = (-1, 0, 1)) and 28 random 3x3 SPD problems with a sticking
 * solution: every pair either solves correctly or reports converged = 0 up to mu = 100;
 * ncp:admm misses from mu = 1e3 (lambda_N = 1e-3 instead of 1), ncp:staggered reports a
 * wrong answer as converged at 1e4, and from 1e6 the NCP and LCP pairs report lambda = 0 as
 * converged. 100 is sticking for every load a physical contact sees (no material pair has
 * mu above ~10). */
#define LUCID_CONTACT_MAX_FRICTION 100.0

typedef enum lucid_contact_model {
    LUCID_CONTACT_LCP,    /* linearised (4-facet pyramid) cone, Signorini + box friction */
    LUCID_CONTACT_CCP,    /* cone complementarity: convex relaxation, loses Signorini */
    LUCID_CONTACT_RAISIM, /* RaiSim's per-contact model: Signorini, relaxes MDP */
    LUCID_CONTACT_NCP     /* the full Signorini-Coulomb-MDP problem (De Saxce form) */
} lucid_contact_model;

typedef enum lucid_contact_solver {
    LUCID_CONTACT_PGS,
    LUCID_CONTACT_ADMM,
    LUCID_CONTACT_NEWTON,
    LUCID_CONTACT_STAGGERED,
    LUCID_CONTACT_BISECTION,
    LUCID_CONTACT_IP
} lucid_contact_solver;

/* Names as in the Lua API ("lcp", "ccp", "raisim", "ncp"; "pgs", "admm", "newton",
 * "staggered", "bisection", "ip"). Parsing returns LUCID_ERR_ARGUMENT for unknown names. */
const char *lucid_contact_model_name(lucid_contact_model model);
const char *lucid_contact_solver_name(lucid_contact_solver solver);
lucid_status lucid_contact_model_parse(const char *name, lucid_contact_model *model);
lucid_status lucid_contact_solver_parse(const char *name, lucid_contact_solver *solver);
/* LUCID_OK for the pairs lcp:pgs, ccp:{pgs,admm,newton,ip}, raisim:bisection,
 * ncp:{pgs,staggered,admm,ip,newton}; LUCID_ERR_ARGUMENT otherwise. */
lucid_status lucid_contact_pair_check(lucid_contact_model model, lucid_contact_solver solver);

/* Checks sizes and pointers, finiteness (LUCID_ERR_NONFINITE), 0 <= mu <=
 * LUCID_CONTACT_MAX_FRICTION and R >= 0 (LUCID_ERR_ARGUMENT), symmetry of G and positive diagonal
 * of G + R (LUCID_ERR_NOT_SPD). Positive semi-definiteness needs a factorisation and is checked by
 * the solvers. When `why` is not NULL it receives a static description of the first problem found.
 */
lucid_status lucid_contact_problem_validate(const lucid_contact_problem *p, const char **why);
/* The same checks for a G its caller assembled symmetric as J M^-1 J^T (the world's islands):
 * G is read on its diagonal only, which must be finite (a row of J holding NaN or Inf makes its
 * own diagonal entry so), instead of the O(m^2) pass over G's entry pairs. */
lucid_status lucid_contact_problem_validate_assembled(const lucid_contact_problem *p,
                                                      const char **why);

/* sigma = G lambda + g + R lambda (3n entries; sigma must not alias lambda). */
void lucid_contact_velocity(const lucid_contact_problem *p, const double *lambda, double *sigma);

/* Diagonal entry k of G + R. */
double lucid_contact_diag(const lucid_contact_problem *p, int k);

/* Entry (r, c) of G + R. */
static inline double lucid_contact_entry(const lucid_contact_problem *p, int r, int c) {
    double v = p->G[r + lucid_contact_rows(p) * c];
    return r == c && p->R ? v + p->R[r] : v;
}

#endif
