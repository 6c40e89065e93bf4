/* Boolean collision of two boxes by the separating-axis theorem (Gottschalk et al., OBBTree):
 * the 15 candidate axes are the 3 + 3 face normals and the 9 edge cross products. The
 * Minkowski difference of two boxes is a polyhedron whose face normals are among those axes,
 * so the smallest overlap over them is the exact penetration depth; when some axis separates,
 * its gap is a certified lower bound on the distance (the first such axis: a Boolean exit).
 * No GJK iteration runs. */
#ifndef LUCID_BOX_BOX_H
#define LUCID_BOX_BOX_H

#include "solvers/collision/collision.h"

/* b1, b2 are boxes (LUCID_SHAPE_BOX). *hit = 1 when they intersect (touching counts, up to
 * round-off). res: distance = -depth when hit (exact up to round-off), else the gap along the
 * first separating axis in the order box 1's faces, box 2's faces, edge pairs (a lower bound
 * on the distance); normal = that axis, unit, from box 1
 * to box 2; p1, p2 = the boxes' extreme points along it (p1 on box 1 along normal, p2 on box 2
 * along -normal); separation = -distance * normal (a warm start); iterations 0; converged 1. */
void lucid_box_box_collide(const lucid_shape *b1, const lucid_se3 *T1, const lucid_shape *b2,
                           const lucid_se3 *T2, int *hit, lucid_distance_result *res);

#endif
