/* Expanding Polytope Algorithm: penetration depth of two overlapping cores.
 * Starts from GJK's final simplex of any rank (1-4), blows it up to a polytope around the
 * origin with support points in well-chosen directions, then repeatedly expands the face
 * closest to the origin through its horizon. All storage is a fixed-size struct on the stack:
 * caps on vertices, faces and iterations, no heap allocation.
 * When D has no interior (flat, a segment or a point: e.g. coincident sphere centres or
 * coplanar capsule cores) the origin lies on its boundary and the core depth is 0.
 * Coaxial solids of revolution (cylinders, cones, capsules, spheroids, spheres on the axis) are
 * solved on D's meridian section instead (see epa.c): their depth is often attained on a whole
 * circle of normals, which the 3D polytope could only approach by chords. */
#ifndef LUCID_EPA_H
#define LUCID_EPA_H

#include "solvers/collision/simplex.h"

/* Curved shapes need many vertices where D's boundary hugs the sphere of radius depth (deep
 * overlaps of similar ellipsoids): at epa_tol = 1e-9 m, about 1 in 10^4 random deep ellipsoid
 * pairs needs 500+ iterations and 1 in 3 10^4 nearly 1000 (bench_gjk). Only the stack pages a
 * query touches are used, so the cap costs nothing on ordinary queries (mean ~50 iterations). */
#define LUCID_EPA_MAX_ITER     1024
#define LUCID_EPA_MAX_VERTICES (LUCID_EPA_MAX_ITER + 8)
#define LUCID_EPA_MAX_FACES    (2 * LUCID_EPA_MAX_VERTICES)
#define LUCID_EPA_MAX_HORIZON  128 /* edges of one horizon loop (a few dozen in practice) */

/* Vectors are in the Minkowski difference's frame (shape 1's, see minkowski.h). */
typedef struct lucid_epa_result {
    double depth;      /* penetration depth of the cores (>= 0 up to round-off) */
    lucid_vec3 normal; /* unit: translating shape 2 by depth * normal separates the cores */
    lucid_vec3 p1, p2; /* witness points on the cores, p1 - p2 = depth * normal */
    int iterations;
    int converged; /* certified: upper - lower bound on the depth <= tol (see epa.c) */
} lucid_epa_result;

/* start: GJK's final simplex (rank 1-4) whose hull contains (or touches) the origin.
 * fallback_normal: used only when D is a single point (any unit vector is then valid). */
void lucid_epa_solve(lucid_minkowski *m, const lucid_simplex *start, double tol, int max_iter,
                     lucid_vec3 fallback_normal, lucid_epa_result *res);

#endif
