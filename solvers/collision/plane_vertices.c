/* A polytope's vertices within the margin of a plane or over a face (plane_vertices.h). */
#include "solvers/collision/plane_vertices.h"

#include <math.h>
#include <stddef.h>

#include "runtime/shapes/convex_mesh.h"

static int is_polytope(const lucid_shape *s) {
    return s->kind == LUCID_SHAPE_BOX || s->kind == LUCID_SHAPE_CONVEX;
}

/* A shape whose points are its vertices (a capsule's: its segment's two ends, swept; a
 * cylinder's or a cone's: rim points placed from the direction, below, and a cone's apex). */
static int has_vertices(const lucid_shape *s) {
    return is_polytope(s) || s->kind == LUCID_SHAPE_CAPSULE || s->kind == LUCID_SHAPE_CYLINDER ||
           s->kind == LUCID_SHAPE_CONE;
}

int lucid_plane_vertices_apply(const lucid_shape *s1, const lucid_shape *s2) {
    return (s1->kind == LUCID_SHAPE_HALFSPACE && has_vertices(s2)) ||
           (s2->kind == LUCID_SHAPE_HALFSPACE && has_vertices(s1));
}

int lucid_face_vertices_apply(const lucid_shape *s1, const lucid_shape *s2) {
    return (is_polytope(s1) && has_vertices(s2)) || (is_polytope(s2) && has_vertices(s1));
}

/* A cylinder's rim points for the local direction l (towards the plane), m = l off the axis,
 * normalised: on the cap facing l, r m (the support point) and r m turned by +-120 degrees
 * about the axis (a tripod the cap can stand on); on the other cap r m (the support point of
 * that cap, which lands next when the cylinder lies down). A cone: the three on its base
 * (z = -h) and its apex. None when l is within the patch's angular tolerance of the axis: the
 * patch's cap polygon is the face then. */
#define RIM_POINTS 4 /* a cylinder: 3 on the facing cap, 1 on the other; a cone: 3, apex */

static int rim_count(lucid_vec3 l) {
    return hypot(l.x, l.y) > fabs(l.z) * tan(LUCID_PATCH_ANGULAR_TOLERANCE) ? RIM_POINTS : 0;
}

static lucid_vec3 rim_point(const lucid_shape *s, int i, lucid_vec3 l) {
    /* cos, sin of 0, +120, -120 degrees; the last: 0 on the other cap */
    static const double q = 0.86602540378443864676;
    static const double c[RIM_POINTS] = {1.0, -0.5, -0.5, 1.0}, sn[RIM_POINTS] = {0.0, q, -q, 0.0};
    double rho = hypot(l.x, l.y), r = s->u.round.radius, h = s->u.round.half_length;
    double mx = l.x / rho, my = l.y / rho, z = l.z < 0.0 ? -h : h;
    if (s->kind == LUCID_SHAPE_CONE) { /* its base disc at z = -h, and its apex */
        if (i == RIM_POINTS - 1) return lucid_vec3_make(0, 0, h);
        z = -h;
    }
    return lucid_vec3_make(r * (c[i] * mx - sn[i] * my), r * (sn[i] * mx + c[i] * my),
                           i == RIM_POINTS - 1 ? -z : z);
}

static int vertex_count(const lucid_shape *s, lucid_vec3 l) {
    if (s->kind == LUCID_SHAPE_CAPSULE) return 2;
    if (s->kind == LUCID_SHAPE_CYLINDER || s->kind == LUCID_SHAPE_CONE) return rim_count(l);
    return s->kind == LUCID_SHAPE_BOX ? 8 : s->u.mesh->num_vertices;
}

/* Local vertex i: a box's corner (bit k of i: the sign of coordinate k), a capsule's segment
 * end (z = -h, +h), a cylinder's rim point, or the mesh's. */
static lucid_vec3 vertex(const lucid_shape *s, int i, lucid_vec3 l) {
    if (s->kind == LUCID_SHAPE_CAPSULE)
        return lucid_vec3_make(0, 0, i ? s->u.half_length : -s->u.half_length);
    if (s->kind == LUCID_SHAPE_CYLINDER || s->kind == LUCID_SHAPE_CONE) return rim_point(s, i, l);
    if (s->kind != LUCID_SHAPE_BOX) return s->u.mesh->vertices[i];
    lucid_vec3 h = s->u.half_extents;
    return lucid_vec3_make(i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z);
}

/* The patch of the vertices at[] (their separations sep[] along the reference's outward
 * normal n; the reference is shape 1 when first): each vertex and its projection. */
static void write_points(lucid_contact_patch_result *out, int first, lucid_vec3 n,
                         const double *sep, const lucid_vec3 *at, int count) {
    out->normal = first ? n : lucid_vec3_neg(n);
    out->count = count;
    out->feature1 = first ? LUCID_FEATURE_POLYGON : LUCID_FEATURE_POINT;
    out->feature2 = first ? LUCID_FEATURE_POINT : LUCID_FEATURE_POLYGON;
    for (int k = 0; k < count; ++k) {
        lucid_vec3 on_plane = lucid_vec3_axpy(at[k], -sep[k], n);
        out->points[k].p1 = first ? on_plane : at[k];
        out->points[k].p2 = first ? at[k] : on_plane;
        out->points[k].separation = sep[k];
    }
}

/* Inserts (sep, v) into the list sorted by separation, keeping at most cap entries; a later
 * vertex goes after equal separations (the lower index first). */
static int insert_sorted(double *sep, lucid_vec3 *v, int n, int cap, double s, lucid_vec3 x) {
    int at = n;
    while (at > 0 && sep[at - 1] > s) --at;
    if (at >= cap) return n;
    int last = n < cap ? n : cap - 1;
    for (int k = last; k > at; --k) sep[k] = sep[k - 1], v[k] = v[k - 1];
    sep[at] = s, v[at] = x;
    return n < cap ? n + 1 : n;
}

/* The world face of polytope s posed by T best aligned with the world direction dir: its
 * outward normal, its offset (normal.x = offset on the face) and its corners (up to cap). */
static int best_face(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 dir, lucid_vec3 *normal,
                     double *offset, lucid_vec3 *corners, int cap) {
    lucid_vec3 d = lucid_mat3_tmul_vec(&T->R, dir), n;
    int count;
    if (s->kind == LUCID_SHAPE_BOX) {
        double a[3] = {fabs(d.x), fabs(d.y), fabs(d.z)}, dd[3] = {d.x, d.y, d.z};
        int i = 0; /* best-aligned axis, lowest index on ties */
        for (int k = 1; k < 3; ++k)
            if (a[k] > a[i]) i = k;
        double he[3] = {s->u.half_extents.x, s->u.half_extents.y, s->u.half_extents.z};
        double sign = dd[i] < 0.0 ? -1.0 : 1.0, nl[3] = {0, 0, 0};
        nl[i] = sign;
        n = lucid_vec3_load(nl);
        int j = (i + 1) % 3, k = (i + 2) % 3;
        static const double sj[4] = {1, -1, -1, 1}, sk[4] = {1, 1, -1, -1};
        count = 4;
        for (int q = 0; q < 4; ++q) {
            double p[3];
            p[i] = sign * he[i], p[j] = sj[q] * he[j], p[k] = sk[q] * he[k];
            corners[q] = lucid_vec3_load(p);
        }
    } else {
        const lucid_convex_mesh *m = s->u.mesh;
        int best = 0;
        double best_cos = -INFINITY;
        for (int q = 0; q < m->num_faces; ++q) {
            double c = lucid_vec3_dot(m->face_normals[q], d);
            if (c > best_cos) best_cos = c, best = q;
        }
        int begin = m->face_offsets[best];
        count = m->face_offsets[best + 1] - begin;
        if (count > cap) count = cap;
        for (int q = 0; q < count; ++q) corners[q] = m->vertices[m->face_vertices[begin + q]];
        n = m->face_normals[best];
    }
    *normal = lucid_mat3_mul_vec(&T->R, n);
    for (int q = 0; q < count; ++q) corners[q] = lucid_se3_act(T, corners[q]);
    *offset = lucid_vec3_dot(*normal, corners[0]);
    return count;
}

/* Whether x projects into the convex polygon (corners around normal n), within tol. */
static int over_face(lucid_vec3 x, const lucid_vec3 *c, int count, lucid_vec3 n, double tol) {
    lucid_vec3 centre = lucid_vec3_zero();
    for (int q = 0; q < count; ++q) centre = lucid_vec3_add(centre, c[q]);
    centre = lucid_vec3_scale(centre, 1.0 / count);
    for (int q = 0; q < count; ++q) {
        lucid_vec3 a = c[q], b = c[(q + 1) % count];
        lucid_vec3 side = lucid_vec3_normalized(lucid_vec3_cross(lucid_vec3_sub(b, a), n));
        double inside = lucid_vec3_dot(side, lucid_vec3_sub(centre, a)) < 0.0 ? -1.0 : 1.0;
        if (inside * lucid_vec3_dot(side, lucid_vec3_sub(x, a)) < -tol) return 0;
    }
    return 1;
}

/* The vertices of poly (posed by Tp) with n.v - offset < margin, over the face (its corners;
 * none: the whole plane) within tol, the deepest max_points of them, into out (the reference,
 * whose outward normal is n, is shape 1 when first). */
static void deepest_vertices(const lucid_shape *poly, const lucid_se3 *Tp, lucid_vec3 n,
                             double offset, const lucid_vec3 *face, int face_count, double tol,
                             double margin, int max_points, int first,
                             lucid_contact_patch_result *out) {
    double sep[LUCID_PATCH_MAX_POINTS];
    lucid_vec3 at[LUCID_PATCH_MAX_POINTS];
    lucid_vec3 l = lucid_mat3_tmul_vec(&Tp->R, lucid_vec3_neg(n)); /* towards the plane */
    int count = 0, total = vertex_count(poly, l);
    for (int i = 0; i < total; ++i) {
        /* a swept vertex's (a capsule end's) point is its sphere's deepest, radius along -n */
        lucid_vec3 v = lucid_vec3_axpy(lucid_se3_act(Tp, vertex(poly, i, l)), -poly->radius, n);
        double s = lucid_vec3_dot(n, v) - offset;
        if (s < margin && (!face || over_face(v, face, face_count, n, tol)))
            count = insert_sorted(sep, at, count, max_points, s, v);
    }
    write_points(out, first, n, sep, at, count);
}

#define FACE_CAP 256 /* corners of a mesh face used for the inside test (its faces are convex) */

lucid_status lucid_face_vertices(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                 const lucid_se3 *T2, int reference, lucid_vec3 normal,
                                 double margin, int max_points, lucid_contact_patch_result *out) {
    if (!s1 || !T1 || !s2 || !T2 || !out || (reference != 1 && reference != 2) ||
        !is_polytope(reference == 1 ? s1 : s2) || !has_vertices(reference == 1 ? s2 : s1) ||
        max_points < 1 || max_points > LUCID_PATCH_MAX_POINTS ||
        !(fabs(lucid_vec3_norm(normal) - 1.0) < 1e-6))
        return LUCID_ERR_ARGUMENT;
    int first = reference == 1;
    const lucid_shape *ref = first ? s1 : s2, *poly = first ? s2 : s1;
    const lucid_se3 *Tr = first ? T1 : T2, *Tp = first ? T2 : T1;
    lucid_vec3 corners[FACE_CAP], n;
    double offset;
    int count_face =
        best_face(ref, Tr, first ? normal : lucid_vec3_neg(normal), &n, &offset, corners, FACE_CAP);
    double size = 0.0;
    for (int q = 0; q < count_face; ++q)
        size = fmax(size, lucid_vec3_dist(corners[q], corners[(q + 1) % count_face]));
    deepest_vertices(poly, Tp, n, offset, corners, count_face, 1e-9 * size, margin, max_points,
                     first, out);
    return LUCID_OK;
}

lucid_status lucid_plane_vertices(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                  const lucid_se3 *T2, double margin, int max_points,
                                  lucid_contact_patch_result *out) {
    if (!s1 || !T1 || !s2 || !T2 || !out || !lucid_plane_vertices_apply(s1, s2) || max_points < 1 ||
        max_points > LUCID_PATCH_MAX_POINTS)
        return LUCID_ERR_ARGUMENT;
    int first = s1->kind == LUCID_SHAPE_HALFSPACE;
    const lucid_shape *h = first ? s1 : s2, *poly = first ? s2 : s1;
    const lucid_se3 *Th = first ? T1 : T2, *Tp = first ? T2 : T1;
    /* the plane n.x = offset in world coordinates; a vertex's separation is n.v - offset */
    lucid_vec3 n = lucid_mat3_mul_vec(&Th->R, h->u.halfspace.normal);
    double offset = h->u.halfspace.offset + lucid_vec3_dot(n, Th->t);
    deepest_vertices(poly, Tp, n, offset, NULL, 0, 0.0, margin, max_points, first, out);
    out->feature1 = first ? LUCID_FEATURE_PLANE : LUCID_FEATURE_POINT;
    out->feature2 = first ? LUCID_FEATURE_POINT : LUCID_FEATURE_PLANE;
    return LUCID_OK;
}

/* The point of the segment [a - h u, a + h u] closest to x. */
static lucid_vec3 closest_on_segment(lucid_vec3 a, lucid_vec3 u, double h, lucid_vec3 x) {
    double t = fmin(fmax(lucid_vec3_dot(u, lucid_vec3_sub(x, a)), -h), h);
    return lucid_vec3_axpy(a, t, u);
}

lucid_status lucid_capsule_ends(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                const lucid_se3 *T2, double margin, int max_points,
                                lucid_contact_patch_result *out, lucid_vec3 *normals) {
    if (!s1 || !T1 || !s2 || !T2 || !out || !normals || s1->kind != LUCID_SHAPE_CAPSULE ||
        s2->kind != LUCID_SHAPE_CAPSULE || max_points < 1 || max_points > LUCID_PATCH_MAX_POINTS)
        return LUCID_ERR_ARGUMENT;
    const lucid_shape *s[2] = {s1, s2};
    const lucid_se3 *T[2] = {T1, T2};
    lucid_vec3 u[2];
    for (int i = 0; i < 2; ++i) u[i] = lucid_mat3_col(&T[i]->R, 2);
    double sep[LUCID_PATCH_MAX_POINTS];
    lucid_vec3 a_at[LUCID_PATCH_MAX_POINTS], b_at[LUCID_PATCH_MAX_POINTS];
    int count = 0;
    for (int i = 0; i < 2; ++i) /* the ends of capsule i against the other's segment */
        for (int e = 0; e < 2; ++e) {
            int o = 1 - i;
            double h = s[i]->u.half_length;
            lucid_vec3 end = lucid_vec3_axpy(T[i]->t, e ? h : -h, u[i]);
            lucid_vec3 near = closest_on_segment(T[o]->t, u[o], s[o]->u.half_length, end);
            lucid_vec3 a = i == 0 ? end : near, b = i == 0 ? near : end;
            double d = lucid_vec3_dist(a, b);
            if (!(d > 0.0) || !(d - s1->radius - s2->radius < margin)) continue; /* no normal */
            /* insertion by separation, keeping both core points */
            int k = count < max_points ? count : max_points - 1;
            d -= s1->radius + s2->radius;
            if (count == max_points && !(d < sep[k])) continue;
            while (k > 0 && sep[k - 1] > d) {
                sep[k] = sep[k - 1], a_at[k] = a_at[k - 1], b_at[k] = b_at[k - 1];
                --k;
            }
            sep[k] = d, a_at[k] = a, b_at[k] = b;
            if (count < max_points) ++count;
        }
    out->feature1 = out->feature2 = LUCID_FEATURE_POINT;
    out->count = count;
    for (int k = 0; k < count; ++k) {
        normals[k] = lucid_vec3_normalized(lucid_vec3_sub(b_at[k], a_at[k]));
        out->points[k].p1 = lucid_vec3_axpy(a_at[k], s1->radius, normals[k]);
        out->points[k].p2 = lucid_vec3_axpy(b_at[k], -s2->radius, normals[k]);
        out->points[k].separation = sep[k];
    }
    out->normal = count > 0 ? normals[0] : lucid_vec3_make(0, 0, 1);
    return LUCID_OK;
}
