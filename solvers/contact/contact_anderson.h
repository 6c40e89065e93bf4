/* Anderson acceleration (type II) of a fixed-point iteration u <- T(u) (internal to the
 * contact solvers). With the residuals f_k = T(u_k) - u_k of the last `memory` steps, the next
 * input is T(u_k) - dG theta, theta = argmin ||f_k - dF theta|| (dF, dG: differences of
 * consecutive residuals and of consecutive outputs T(u)). On an affine map this is GMRES on
 * the fixed-point equation; the ADMM map is affine on each set of active cone faces, which is
 * where its linear tail is spent. Caller-owned storage, nothing allocated. */
#ifndef LUCID_CONTACT_ANDERSON_H
#define LUCID_CONTACT_ANDERSON_H

/* The largest memory: the least-squares system is solved on the stack. */
#define LUCID_ANDERSON_MAX_MEMORY 8

/* Extrapolations longer than this multiple of the residual ||T(u) - u|| are not taken (the
 * plain output is): a fit to nearly collinear differences can jump arbitrarily far, and on
 * wedged piles of boxes ncp:admm's iterate reached 1e9 between two rejections. A linear
 * contraction by c needs steps up to ~1 / (1 - c) residuals: 1e3 leaves c = 0.999. */
#define LUCID_ANDERSON_STEP_LIMIT 1e3

typedef struct lucid_anderson {
    int dim, memory; /* vector length, number of differences kept */
    int count, head; /* differences stored, slot of the next one */
    int has_previous;
    double *dF, *dG;                 /* memory columns of dim */
    double *f_previous, *g_previous; /* dim each */
    double *fallback;                /* the plain output T(u) behind the last accelerated input */
    double previous_norm;            /* ||T(u) - u|| at the previous input */
    int accelerated;                 /* the current input is an extrapolation */
    int rejections;                  /* accelerated inputs whose residual grew */
    /* dF_i . dF_j of the stored slots (row-major, LUCID_ANDERSON_MAX_MEMORY wide), kept up
     * to date as each difference is recorded: one new row a step instead of the whole Gram
     * matrix (memory 5: 5 products of length dim instead of 15) */
    double gram[LUCID_ANDERSON_MAX_MEMORY * LUCID_ANDERSON_MAX_MEMORY];
} lucid_anderson;

/* Doubles of storage lucid_anderson_init needs. */
int lucid_anderson_storage(int dim, int memory);
/* memory is clamped to [0, LUCID_ANDERSON_MAX_MEMORY]; 0 makes every step a plain one. */
void lucid_anderson_init(lucid_anderson *a, int dim, int memory, double *storage);
/* Forgets the history (the map changed). */
void lucid_anderson_reset(lucid_anderson *a);
/* Given the input u of the map and its output g = T(u), overwrites g with the accelerated
 * next input (g unchanged until two steps are known, or when the least-squares system is
 * degenerate, or the extrapolation longer than LUCID_ANDERSON_STEP_LIMIT residuals). Safeguard:
 * when u was an extrapolation and its residual ||T(u) - u|| exceeds the residual at the input
 * before it, g becomes the plain output that the extrapolation replaced and the history is
 * forgotten: a rejected step costs one map evaluation, and the iteration can never be driven
 * further from the fixed point than the plain one. */
void lucid_anderson_step(lucid_anderson *a, const double *u, double *g);

#endif
