/* A starting vertex for hill climbing on a convex mesh when no warm hint is known: the best
 * of a few vertices spread over the vertex list. The first-order estimators query supports
 * at the witness directions of a query whose hints they do not see; a cold climb from vertex
 * 0 walks across the hull and dominated their cost (perf: ~30% of the first-order Gaussian
 * estimate, M = 10), a strided pre-scan shortens that walk. Any start gives the same
 * maximiser. */
#ifndef LUCID_COLLISION_DERIVATIVES_HINT_H
#define LUCID_COLLISION_DERIVATIVES_HINT_H

#include "runtime/shapes/shape.h"

/* A vertex index of s's mesh to start climbing towards direction l (-1 if s is not a mesh). */
int lucid_derivatives_start_hint(const lucid_shape *s, lucid_vec3 l);

#endif
