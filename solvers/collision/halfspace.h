/* Closed-form signed distance between a halfspace {n.x <= offset} and any other shape: the
 * other shape's deepest point is its support in -n; no GJK is needed (nor possible: the
 * halfspace is unbounded). */
#ifndef LUCID_HALFSPACE_H
#define LUCID_HALFSPACE_H

#include "solvers/collision/collision.h"

/* Exactly one of s1, s2 must be a halfspace. Fills distance, witnesses and normal. */
void lucid_halfspace_distance(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                              const lucid_se3 *T2, lucid_distance_result *res);

#endif
