/* Rows of an island's contact problem that no degree of freedom can move.
 *
 * A row k of G = J M^-1 J^T is null when J_k M^-1 J_k^T is zero: the contact direction is
 * orthogonal to every motion the joints allow (the hinge axis of a planar arm on its floor,
 * the normal of a turntable resting on the ground). G being PSD, its whole row and column
 * are then zero, so the row's force changes no velocity and its own velocity is g_k whatever
 * the forces. The solvers divide by the diagonal of G + R; a null row gets R_k = the island's
 * largest diagonal instead (any positive value gives the same answer, this one keeps the
 * spectrum of G + R within G's own), which selects its least force: zero where g_k is, as
 * it is along a direction nothing moves. A contact whose normal row is null can be pressed
 * by nothing, so it carries no friction: mu = 0. */
#include <float.h>
#include <math.h>

#include "runtime/world/world_internal.h"

/* A row is null when its diagonal is below the round-off of the island's largest one
 * (DBL_EPSILON relative): a mathematically zero row computes to O(eps^2) of it, a real one
 * at the most extreme mass ratio a double resolves stays above. */
int lucid_world_null_rows(int m, double (*diag)(const void *, int), const void *ctx, double *R,
                          double *mu) {
    double top = 0.0;
    for (int k = 0; k < 3 * m; ++k) top = fmax(top, diag(ctx, k));
    if (!(top > 0.0)) top = 1.0; /* nothing moves at all: every row is null, any R will do */
    int count = 0;
    for (int k = 0; k < 3 * m; ++k) {
        if (diag(ctx, k) + R[k] > DBL_EPSILON * top) continue;
        R[k] = top;
        if (k % 3 == 2) mu[k / 3] = 0.0;
        ++count;
    }
    return count;
}

const double *lucid_world_problem_R(const double *R, int m) {
    for (int k = 0; k < 3 * m; ++k)
        if (R[k] > 0.0) return R;
    return NULL;
}
