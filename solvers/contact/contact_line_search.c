/* Exact line search on a convex C^1 function (contact_line_search.h). */
#include "solvers/contact/contact_line_search.h"

#include <math.h>

/* The next trial: Newton's step from alpha when it stays strictly inside the bracket, else
 * doubling (no upper end yet) or bisection. */
static double next_trial(double alpha, double slope, double curvature, double lo, double hi) {
    double newton = curvature > 0.0 ? alpha - slope / curvature : NAN;
    if (newton > lo && newton < hi) return newton;
    return isinf(hi) ? 2.0 * fmax(alpha, lo) : 0.5 * (lo + hi);
}

lucid_line_search_result lucid_line_search_exact(lucid_line_function f, void *ctx, double slope0,
                                                 double rel_tol, int max_evaluations) {
    lucid_line_search_result r = {0.0, slope0, 0};
    if (!(slope0 < 0.0)) return r;
    double lo = 0.0, lo_slope = slope0, hi = INFINITY, alpha = 1.0;
    while (r.evaluations < max_evaluations) {
        double slope, curvature;
        f(ctx, alpha, &slope, &curvature);
        ++r.evaluations;
        if (!isfinite(slope)) { /* beyond what the problem can represent: shrink */
            hi = alpha;
            alpha = 0.5 * (lo + hi);
            continue;
        }
        if (fabs(slope) <= rel_tol * -slope0) {
            r.alpha = alpha, r.slope = slope;
            return r;
        }
        if (slope < 0.0)
            lo = alpha, lo_slope = slope;
        else
            hi = alpha;
        double next = next_trial(alpha, slope, curvature, lo, hi);
        if (fabs(next - alpha) <= 1e-13 * alpha) { /* Newton has converged to round-off */
            r.alpha = alpha, r.slope = slope;
            return r;
        }
        alpha = next;
        if (isfinite(hi) && !(hi - lo > 1e-15 * hi)) break; /* bracket at round-off: lo */
    }
    r.alpha = lo, r.slope = lo_slope;
    return r;
}
