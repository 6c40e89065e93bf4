/* Contact patches: the several contact points of a face-face or edge-face contact, which a
 * single pair of GJK/EPA witness points cannot represent (a box resting on a plane needs its
 * four corners, or the world's contact solver lets it rock; Silico paper, Sections V-VI).
 *
 * Given two posed shapes and their distance result (normal n from shape 1 to shape 2), each
 * shape's supporting feature is chosen (shape 1 in direction n, shape 2 in direction -n):
 *   box / convex mesh: the face whose outward normal is within `angular_tolerance` of the
 *     direction (best aligned face, lowest index on ties), else the edge at the support vertex
 *     that is within the tolerance of perpendicular, else the vertex;
 *   cylinder: a cap disc, approximated by the inscribed regular LUCID_PATCH_DISC_SIDES-gon
 *     whose first vertex is on local +x, when the direction is within the tolerance of the
 *     axis; its side segment (a ruling) when within the tolerance of perpendicular; else a point;
 *   cone: base disc (same polygon) / a side ruling from the apex, likewise;
 *   capsule: its core segment (swept by the radius) when perpendicular, else a point;
 *   sphere, ellipsoid: a point; halfspace: its plane (an infinite face).
 * The mesh face is found by a scan of the face normals (O(faces): the mesh has no
 * vertex-to-face adjacency to start from the support vertex), the edge from the support vertex.
 * Faces of meshes with more than LUCID_PATCH_MAX_FACE vertices are represented by
 * LUCID_PATCH_MAX_FACE of their vertices, evenly spaced along the cycle (an inscribed polygon).
 *
 * Clipping (reference face / incident feature): the reference is the halfspace plane if there
 * is one, else the face better aligned with n (shape 1 on a tie), else - for two parallel
 * segments - shape 1's segment with the normal made perpendicular to it. The incident feature
 * (polygon or segment) is clipped against the side planes of the reference (Sutherland-Hodgman)
 * and each remaining point's separation is measured along the reference face normal. When a
 * feature is a point, or two segments are not parallel, or the clipped set is empty, the patch
 * is the single witness pair of the distance result.
 *
 * Result: `normal` is the reference face normal oriented from shape 1 to shape 2 (exactly the
 * face normal, not GJK's estimate; the distance normal in the witness case). Each point holds
 * p1 on (the boundary of) shape 1, p2 on shape 2 and separation = <p2 - p1, normal>, negative
 * when penetrating, with p2 - p1 = separation * normal: the incident point stays on its
 * feature and its partner is its projection on the reference plane (for swept shapes moved
 * out by the radius along the normal).
 * Round-off: lengths below tol = 1e-9 times the larger feature's size + 16 eps times the
 * coordinates' magnitude are round-off. Clipped points within tol of their predecessor are
 * merged, and points within tol of the line through their two neighbours are dropped (an
 * incident edge that coincides with a reference side up to round-off crosses it at an
 * arbitrary point of the edge, a redundant vertex), so faces that coincide up to round-off
 * give exactly their corners and no point of the patch is a duplicate or inside an edge.
 * Kept points: separation <= max(margin, deepest separation) + tol, so a patch of faces
 * parallel up to round-off is complete at any gap while a slightly tilted face only
 * contributes the points within the margin.
 * Reduction to the options' max_points (LUCID_PATCH_MAX_POINTS by default): to at most 4,
 * the area-maximising choice of Box2D and Bullet (the deepest point, the point farthest from
 * it, the one spanning the largest triangle with them, the one giving the largest
 * quadrilateral, on the reference plane), so the support polygon of a resting face is kept
 * as far as 4 points can; to more, while too many remain, the point (never the deepest)
 * whose removal loses the least polygon area - the triangle it spans with its two neighbours
 * along the convex cycle - is dropped. Lowest index first on ties; kept points keep their
 * cyclic order.
 *
 * Everything runs on the caller's stack (no heap allocation) and is deterministic.
 *
 * Lua (docs/collision.md):
 *   patch = lucid.contact_patch(s1, T1, s2, T2 [, opts])
 * runs lucid.distance with default options, then this function; opts: `margin` (m, >= 0,
 * default 0), `angular_tolerance` (radians in [0, pi/2), default 1e-2), `max_points` (integer
 * in [1, 16], default 16). Returns
 *   {normal = vec, points = {{p1 = vec, p2 = vec, separation = x}, ...}}. */
#ifndef LUCID_CONTACT_PATCH_H
#define LUCID_CONTACT_PATCH_H

#include "runtime/core/option_table.h"
#include "solvers/collision/collision.h"

#define LUCID_PATCH_MAX_POINTS 16 /* capacity of a patch after reduction */
#define LUCID_PATCH_DISC_SIDES 16 /* polygon standing for cylinder caps and cone bases */
#define LUCID_PATCH_MAX_FACE   64 /* vertices of a mesh face used for clipping */
/* rad: the default angular_tolerance, also the world's: a cylinder's cap within it of the
 * direction is a face (its inscribed polygon), beyond it a rim point */
#define LUCID_PATCH_ANGULAR_TOLERANCE 1e-2

typedef enum lucid_patch_feature {
    LUCID_FEATURE_POINT,
    LUCID_FEATURE_SEGMENT,
    LUCID_FEATURE_POLYGON,
    LUCID_FEATURE_PLANE /* a halfspace's boundary */
} lucid_patch_feature;

typedef struct lucid_patch_options {
    double margin;            /* m, >= 0: points with separation <= margin are kept */
    double angular_tolerance; /* radians in [0, pi/2): face / edge alignment tolerance */
    int max_points;           /* 1 .. LUCID_PATCH_MAX_POINTS: points kept (see Reduction) */
} lucid_patch_options;

/* margin 0, angular_tolerance LUCID_PATCH_ANGULAR_TOLERANCE, max_points LUCID_PATCH_MAX_POINTS. */
void lucid_patch_options_default(lucid_patch_options *opt);

/* The options described (option_table.h): lucid_contact_patch's check and lucid.contact_patch's
 * reader. */
extern const lucid_option lucid_patch_option_table[];

/* Twice the area of the convex hull of the 4 points a, b, c, d of a plane with unit normal n:
 * the largest |shoelace| over the three cyclic orders (the convex one when the points are in
 * convex position); the patch reduction's measure of a quadrilateral. */
double lucid_patch_quad_area2(lucid_vec3 a, lucid_vec3 b, lucid_vec3 c, lucid_vec3 d, lucid_vec3 n);

typedef struct lucid_contact_point {
    lucid_vec3 p1, p2; /* world points on shape 1 and shape 2: p2 - p1 = separation * normal */
    double separation; /* < 0 penetrating */
} lucid_contact_point;

typedef struct lucid_contact_patch_result {
    lucid_vec3 normal;                      /* unit, from shape 1 to shape 2 */
    int count;                              /* 1 .. LUCID_PATCH_MAX_POINTS */
    lucid_patch_feature feature1, feature2; /* the supporting features that were clipped */
    lucid_contact_point points[LUCID_PATCH_MAX_POINTS];
} lucid_contact_patch_result;

/* The contact patch of s1 posed by T1 and s2 posed by T2, whose distance query gave dist
 * (from lucid_distance on the same arguments). opt may be NULL (defaults).
 * Errors: LUCID_ERR_ARGUMENT (NULL pointers, two halfspaces, a zero normal, margin < 0,
 * angular_tolerance outside [0, pi/2), max_points outside [1, LUCID_PATCH_MAX_POINTS]),
 * LUCID_ERR_NONFINITE (NaN/Inf in a pose, the distance
 * result or the options). *out is written only on success. */
lucid_status lucid_contact_patch(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                 const lucid_se3 *T2, const lucid_distance_result *dist,
                                 const lucid_patch_options *opt, lucid_contact_patch_result *out);

#endif
