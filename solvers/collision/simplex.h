/* GJK's active set: a simplex of 1-4 support points of the Minkowski difference, and the
 * "distance sub-algorithm" that projects the origin onto its convex hull.
 *
 * The newest vertex is always v[rank - 1]. When GJK adds a support point s with a positive
 * Frank-Wolfe gap <x, x - s> > 0, the projection of the origin onto conv(W + s) is strictly
 * shorter than x = proj(conv W), so it must give s a positive weight: only the Voronoi regions
 * of faces that contain the newest vertex need to be examined. Each region is accepted by the
 * exact optimality conditions of the minimum-norm problem (positive barycentric weights on the
 * face, and <p, v - p> >= 0 for every other vertex), without epsilon tests. */
#ifndef LUCID_SIMPLEX_H
#define LUCID_SIMPLEX_H

#include "solvers/collision/minkowski.h"

typedef struct lucid_simplex {
    int rank;                 /* number of vertices, 0-4 */
    lucid_support_point v[4]; /* v[rank - 1] is the newest */
    double lambda[4];         /* barycentric weights of the projection, summing to 1 */
} lucid_simplex;

/* Projects the origin onto conv(v[0..rank-1]) (rank >= 1), keeps only the vertices with a
 * positive weight (newest last, order otherwise preserved) and returns the projection in *x.
 * Returns 1 when the origin lies in the simplex (x = 0: the shapes overlap or touch), else 0.
 * If round-off makes every region test fail, the candidate face of smallest norm is kept. */
int lucid_simplex_project_origin(lucid_simplex *s, lucid_vec3 *x);

/* Same, leaving s untouched and writing the reduced simplex to out (out may equal s). */
int lucid_simplex_project_origin_into(const lucid_simplex *s, lucid_simplex *out, lucid_vec3 *x);

/* Witness points sum(lambda_i p1_i), sum(lambda_i p2_i) of the current weights (in the
 * frame of the simplex points). */
void lucid_simplex_witnesses(const lucid_simplex *s, lucid_vec3 *p1, lucid_vec3 *p2);

#endif
