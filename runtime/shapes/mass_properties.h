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

/* The properties of a part expressed in a parent frame where the part sits at pose T. */
lucid_mass_properties lucid_mass_properties_transform(const lucid_mass_properties *p,
                                                      const lucid_se3 *T);

/* The union of n parts given in one frame (parallel-axis theorem). n >= 1, total mass > 0. */
lucid_status lucid_mass_properties_combine(const lucid_mass_properties *parts, int n,
                                           lucid_mass_properties *out);

#endif
