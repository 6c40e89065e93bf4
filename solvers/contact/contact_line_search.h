/* Exact line search for a convex, continuously differentiable function of one variable,
 * phi(alpha) on alpha >= 0, given its slope phi' and a (generalised) curvature phi'' >= 0.
 * Newton's primal cost along a Newton direction is such a function (piecewise smooth: the
 * pieces are the regions of the friction cone projection), and Alg. 4 (line 5) takes its exact
 * minimiser, as Drake's SAP and MuJoCo do. */
#ifndef LUCID_CONTACT_LINE_SEARCH_H
#define LUCID_CONTACT_LINE_SEARCH_H

/* Fills phi'(alpha) and phi''(alpha) (curvature >= 0; any element of the generalised second
 * derivative at a kink). */
typedef void (*lucid_line_function)(void *ctx, double alpha, double *slope, double *curvature);

typedef struct lucid_line_search_result {
    double alpha; /* the step: phi'(alpha) ~ 0, or the largest point known to have phi' < 0 */
    double slope; /* phi'(alpha) */
    int evaluations;
} lucid_line_search_result;

/* The minimiser of phi on [0, inf) by Newton's method on phi', safeguarded by a bracket
 * [lo, hi] with phi'(lo) < 0 <= phi'(hi) (doubling from alpha = 1 until phi' >= 0, bisection
 * whenever a Newton step leaves the bracket). slope0 = phi'(0) must be < 0 (otherwise alpha = 0
 * is returned). Stops when |phi'(alpha)| <= rel_tol |slope0| or after max_evaluations; the
 * returned alpha then has phi(alpha) < phi(0) (it is the bracket's lower end when the last
 * trial has phi' > 0). */
lucid_line_search_result lucid_line_search_exact(lucid_line_function f, void *ctx, double slope0,
                                                 double rel_tol, int max_evaluations);

#endif
