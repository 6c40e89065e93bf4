/* Convex shapes in their local frame and their support functions.
 * Sphere and capsule are a point / segment core swept by `radius`: collision algorithms work
 * on the core (support_core) and inflate witness points afterwards, which keeps GJK fast on
 * rounded surfaces. Shapes are immutable after creation; per-query state (the hill-climbing
 * vertex hint of meshes) belongs to the caller. */
#ifndef LUCID_SHAPE_H
#define LUCID_SHAPE_H

#include "runtime/core/status.h"
#include "runtime/math/se3.h"

/* The representable range of geometry: every size (radius, semi-axis, half-extent,
 * half-length), every coordinate of a mesh vertex, a halfspace's offset and every component
 * of a pose's translation given to collision queries or the world is at most this in
 * absolute value. Why 1e40: the highest-degree product in the collision pipeline is the
 * simplex sign test of GJK, the product of two triple products (degree 6) of
 * Minkowski-difference coordinates; those are at most ~11x the largest coordinate or size,
 * so (11e40)^6 ~ 2e246 stays finite with ~60 decades to spare for the sums and for the
 * world's mass properties (a box's inertia grows as density * size^5: 1e200 * density).
 * At 1e50 the sign test would already be at 2e306. Beyond the range, constructors and
 * queries return LUCID_ERR_ARGUMENT (the Lua functions raise an error naming the argument).
 * There is no lower bound on sizes other than > 0. */
#define LUCID_GEOMETRY_MAX 1e40

typedef enum lucid_shape_kind {
    LUCID_SHAPE_SPHERE,
    LUCID_SHAPE_ELLIPSOID,
    LUCID_SHAPE_BOX,
    LUCID_SHAPE_CAPSULE,
    LUCID_SHAPE_CYLINDER,
    LUCID_SHAPE_CONE,
    LUCID_SHAPE_CONVEX,
    LUCID_SHAPE_HALFSPACE,
    /* static only: collided per grid cell (runtime/shapes/heightfield.h), never by GJK whole */
    LUCID_SHAPE_HEIGHTFIELD
} lucid_shape_kind;

typedef struct lucid_convex_mesh lucid_convex_mesh; /* runtime/shapes/convex_mesh.h */
typedef struct lucid_heightfield lucid_heightfield; /* runtime/shapes/heightfield.h */

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
        const lucid_convex_mesh *mesh;   /* owned by whoever created the shape */
        const lucid_heightfield *hfield; /* likewise */
    } u;
} lucid_shape;

/* Constructors: sizes must be finite (else LUCID_ERR_NONFINITE), > 0 and at most
 * LUCID_GEOMETRY_MAX (else LUCID_ERR_ARGUMENT); *out is written only on success.
 * Half-lengths are along local z. */
lucid_status lucid_shape_sphere(double radius, lucid_shape *out);
lucid_status lucid_shape_ellipsoid(double rx, double ry, double rz, lucid_shape *out);
lucid_status lucid_shape_box(double hx, double hy, double hz, lucid_shape *out);
lucid_status lucid_shape_capsule(double radius, double half_length, lucid_shape *out);
lucid_status lucid_shape_cylinder(double radius, double half_length, lucid_shape *out);
/* Apex at (0, 0, +h), base disc of radius r at z = -h. */
lucid_status lucid_shape_cone(double radius, double half_length, lucid_shape *out);
/* The set n.x <= offset; normal is normalised here. LUCID_ERR_ARGUMENT: a normal whose
 * largest |component| is zero or subnormal (below DBL_MIN: its direction has lost its
 * digits), or a distance offset / |normal| from the origin beyond LUCID_GEOMETRY_MAX. */
lucid_status lucid_shape_halfspace(lucid_vec3 normal, double offset, lucid_shape *out);
/* A shape referring to (not owning) mesh; mesh must outlive the shape. LUCID_ERR_ARGUMENT
 * when a vertex coordinate exceeds LUCID_GEOMETRY_MAX in absolute value. */
lucid_status lucid_shape_convex(const lucid_convex_mesh *mesh, lucid_shape *out);

/* A shape referring to (not owning) the height field h, which must outlive it.
 * LUCID_ERR_ARGUMENT when h is NULL. */
lucid_status lucid_shape_heightfield(const lucid_heightfield *h, lucid_shape *out);

/* "sphere", "ellipsoid", "box", "capsule", "cylinder", "cone", "convex", "halfspace",
 * "heightfield". */
const char *lucid_shape_kind_name(lucid_shape_kind kind);

/* World-frame axis-aligned bounding box of the shape posed by T (exact: the support in the
 * six world axis directions, closed form for primitives, a vertex scan for meshes). A
 * halfspace is unbounded: its box is +-INFINITY except along a world axis its normal is
 * exactly aligned with. */
void lucid_shape_aabb(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 *lo, lucid_vec3 *hi);

/* Support of the core (the shape without its swept radius) in local frame (of a height
 * field: of its convex hull, a scan of its samples; collision never uses it):
 * argmax_{x in core} <dir, x>. dir need not be unit; a zero dir returns a valid core point.
 * hint is the caller's per-query warm-start vertex for meshes (may be NULL; start at -1 or 0).
 * Ties on flat faces are broken deterministically. */
lucid_vec3 lucid_shape_support_core(const lucid_shape *s, lucid_vec3 dir, int *hint);

/* Tie-breaking rules (all deterministic, no hidden state):
 *  - a zero component of dir picks the + side (box corners, capsule/cylinder end, cone apex);
 *  - a direction with no radial part picks the disc centre (cylinder) / the apex or base
 *    centre (cone); a zero (or non-finite) dir gives the core point those rules select, which
 *    is a point of the shape (for sphere/ellipsoid: the centre);
 *  - meshes: hill climbing from *hint, so on a tie it returns a maximiser near the hint.
 * The halfspace is unbounded and has no support: collision answers halfspace queries in
 * closed form from the other shape's support. Here it returns the boundary point closest to
 * the origin, offset * normal, for every dir (defined, finite, never a crash). */

/* Support of the full shape (core + radius along dir). */
lucid_vec3 lucid_shape_support(const lucid_shape *s, lucid_vec3 dir, int *hint);

#endif
