/* Mass, centre of mass and inertia of shapes of uniform density, and of composites of them.
 * Closed forms for the primitives; convex meshes by a decomposition of the hull into
 * tetrahedra from an interior point (exact for polytopes); composites by summing the parts'
 * first moments and moving each part's inertia with the parallel-axis theorem. */
#ifndef LUCID_MASS_PROPERTIES_H
#define LUCID_MASS_PROPERTIES_H

#include "runtime/shapes/shape.h"

typedef struct lucid_mass_properties {
    double mass;
    lucid_vec3 com;     /* centre of mass in the frame the shape was posed in */
    lucid_mat3 inertia; /* about com, axes of that frame (kg m^2) */
} lucid_mass_properties;

/* Mass properties of s at `density` (> 0) in its own frame. Halfspace: LUCID_ERR_ARGUMENT. */
lucid_status lucid_shape_mass_properties(const lucid_shape *s, double density,
                                         lucid_mass_properties *out);

/* Mass properties at `density` (> 0) of the solid bounded by a closed, outward-oriented
 * triangle mesh (num_triangles 0-based index triples into num_points xyz points), convex or
 * not: signed tetrahedra from the vertex mean, exact for any closed mesh. An index out of
 * range or a bad argument LUCID_ERR_ARGUMENT; a volume that is not positive (open or inward
 * mesh) LUCID_ERR_DEGENERATE. */
lucid_status lucid_triangle_mesh_mass_properties(const double *points, int num_points,
                                                 const int *triangles, int num_triangles,
                                                 double density, lucid_mass_properties *out);

/* The properties of a part expressed in a parent frame where the part sits at pose T. */
lucid_mass_properties lucid_mass_properties_transform(const lucid_mass_properties *p,
                                                      const lucid_se3 *T);

/* The union of n parts given in one frame (parallel-axis theorem). n >= 1, total mass > 0. */
lucid_status lucid_mass_properties_combine(const lucid_mass_properties *parts, int n,
                                           lucid_mass_properties *out);

#endif
