/* GJK's starting vector x0 from the options' warm-start mode. */
#ifndef LUCID_WARM_START_H
#define LUCID_WARM_START_H

#include "solvers/collision/collision.h"

/* Bounding-box centre of the shape's core in its local frame: zero for every primitive (they
 * are centred); meshes use their frame origin until lucid_convex_mesh stores its box centre. */
lucid_vec3 lucid_shape_box_center(const lucid_shape *s);

/* x0 in world frame; may be zero, in which case GJK starts along +x. */
lucid_vec3 lucid_gjk_start_vector(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                  const lucid_se3 *T2, const lucid_gjk_options *opt);

#endif
