/* Convex shapes in their local frame and their support functions.
 * Sphere and capsule are a point / segment core swept by `radius`: collision algorithms work
 * on the core (support_core) and inflate witness points afterwards, which keeps GJK fast on
 * rounded surfaces. Shapes are immutable after creation; per-query state (the hill-climbing
 * vertex hint of meshes) belongs to the caller. */
#ifndef LUCID_SHAPE_H
#define LUCID_SHAPE_H

#include "runtime/core/status.h"
#include "runtime/math/se3.h"

typedef enum lucid_shape_kind {
    LUCID_SHAPE_SPHERE,
    LUCID_SHAPE_ELLIPSOID,
    LUCID_SHAPE_BOX,
    LUCID_SHAPE_CAPSULE,
    LUCID_SHAPE_CYLINDER,
    LUCID_SHAPE_CONE,
    LUCID_SHAPE_CONVEX,
    LUCID_SHAPE_HALFSPACE
} lucid_shape_kind;

typedef struct lucid_convex_mesh lucid_convex_mesh; /* runtime/shapes/convex_mesh.h */

typedef struct lucid_shape {
    lucid_shape_kind kind;
    double radius; /* swept-sphere radius of the core: sphere r, capsule r, 0 otherwise */
    union {
        lucid_vec3 radii;        /* ellipsoid semi-axes */
        lucid_vec3 half_extents; /* box */
        double half_length;      /* capsule core segment [-h, h] on local z */
        struct {
            double radius, half_length; /* cylinder, cone: base radius, half-length on z */
        } round;
        struct {
            lucid_vec3 normal; /* unit; the set n.x <= offset */
            double offset;
        } halfspace;
        const lucid_convex_mesh *mesh; /* owned by whoever created the shape */
    } u;
} lucid_shape;

/* Support of the core (the shape without its swept radius) in local frame:
 * argmax_{x in core} <dir, x>. dir need not be unit; a zero dir returns a valid core point.
 * hint is the caller's per-query warm-start vertex for meshes (may be NULL; start at -1 or 0).
 * Ties on flat faces are broken deterministically. */
lucid_vec3 lucid_shape_support_core(const lucid_shape *s, lucid_vec3 dir, int *hint);

/* Support of the full shape (core + radius along dir). */
lucid_vec3 lucid_shape_support(const lucid_shape *s, lucid_vec3 dir, int *hint);

#endif
