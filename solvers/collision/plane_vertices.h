/* The contact points of a polytope (box or convex mesh), a capsule or a cylinder on a
 * halfspace, or on a face of a polytope: every vertex within the margin of the plane (or above
 * the face), the deepest first, up to max_points. A capsule's vertices are its segment's two
 * ends, each point its end sphere's lowest (the end moved by the radius against the plane's
 * normal); a cylinder's are placed from the direction l towards the plane (local), m = l off
 * the axis normalised: r m on the cap facing the plane (its support point), r m turned by
 * +-120 degrees about the axis on that cap (the tripod a tilted cap stands on, as MuJoCo's
 * cylinder-plane) and r m on the other cap (that cap's support point, which lands next when
 * the cylinder lies down); a cone's: its base's three likewise and its apex; none when l is
 * within LUCID_PATCH_ANGULAR_TOLERANCE of the axis,
 * where the contact patch has the cap's polygon (contact_geometry_derivatives.h: these rim
 * points slide round the rims with m).
 *
 * Why not the contact patch: when a polytope meets a plane with a vertex or an edge, its
 * supporting feature is that vertex or edge, so the patch has one or two points. A box
 * landing on a corner then turns about that corner, and within one step of the turn the
 * neighbouring corners swing through the plane: they had no contact row to stop them. With
 * every vertex within the (speed-swept) margin as a speculative contact, as MuJoCo's box-plane
 * and mesh-plane collisions make, the corners that can reach the plane this step are
 * constrained before they do. The deepest points are kept (not the widest spread, as the
 * patch does for a resting face): they are the ones that touch first.
 *
 * Result (contact_patch.h's): normal from shape 1 to shape 2 (the plane's normal, oriented),
 * each point's p1 on shape 1 and p2 on shape 2 with p2 - p1 = separation * normal: the vertex
 * and its projection on the plane. feature1 / feature2: LUCID_FEATURE_PLANE for the halfspace
 * (LUCID_FEATURE_POLYGON for a face, below), LUCID_FEATURE_POINT for the polytope whose
 * vertices the points are. count = 0 when no vertex is
 * within the margin. Points are ordered by separation (lowest vertex index on ties). */
#ifndef LUCID_PLANE_VERTICES_H
#define LUCID_PLANE_VERTICES_H

#include "solvers/collision/contact_patch.h"

/* Whether lucid_plane_vertices applies: one shape a halfspace, the other a box, a convex
 * mesh, a capsule, a cylinder or a cone. */
int lucid_plane_vertices_apply(const lucid_shape *s1, const lucid_shape *s2);
/* Whether lucid_face_vertices applies: one shape a box or a convex mesh, the other that or a
 * capsule, a cylinder or a cone. */
int lucid_face_vertices_apply(const lucid_shape *s1, const lucid_shape *s2);

/* Points with separation < margin, at most max_points (1 .. LUCID_PATCH_MAX_POINTS);
 * LUCID_ERR_ARGUMENT when the pair does not apply or max_points is out of range. */
lucid_status lucid_plane_vertices(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                  const lucid_se3 *T2, double margin, int max_points,
                                  lucid_contact_patch_result *out);

/* The same against a face of a polytope instead of a plane: shape `reference` (1 or 2) a box
 * or a convex mesh, the other one of the shapes above; the reference offers its face whose
 * outward normal is best aligned with `normal` (unit, from shape 1 to shape 2) for reference
 * 1, with -normal for reference 2 (lowest index on ties, as contact_patch.c picks faces). The other
 * shape's vertices count when their projection on the face's plane lies in the face (within 1e-9 of
 * its size) and their separation along the face's outward normal is below margin; out->normal is
 * that face normal, oriented from shape 1 to shape 2. For a vertex or an edge landing on a face, as
 * the plane case is for a halfspace (a box landing on a table). */
lucid_status lucid_face_vertices(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                 const lucid_se3 *T2, int reference, lucid_vec3 normal,
                                 double margin, int max_points, lucid_contact_patch_result *out);

/* Two capsules side by side (a capsule lying along a capsule bar): each segment end against
 * the other's segment, as a sphere against a capsule: the end a (or b) and its closest point b
 * (or a) on the other segment (a on capsule 1, b on capsule 2), the point's own normal
 * normals[k] = (b - a) / |b - a| (from shape 1 to shape 2), separation |b - a| - r1 - r2,
 * p1 = a + r1 normal, p2 = b - r2 normal. Points with separation < margin (and cores apart),
 * the deepest max_points of them; out->normal is the first's. For capsules nearly parallel
 * beyond the patch's angular tolerance, whose single witness would alternate between their
 * ends. */
lucid_status lucid_capsule_ends(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                const lucid_se3 *T2, double margin, int max_points,
                                lucid_contact_patch_result *out, lucid_vec3 *normals);

#endif
