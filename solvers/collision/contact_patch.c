/* Contact patches by reference-face / incident-feature clipping (see contact_patch.h). */
#include "solvers/collision/contact_patch.h"

#include <float.h>
#include <stddef.h>

#include "runtime/shapes/convex_mesh.h"

#define PATCH_PI 3.14159265358979323846
/* A convex polygon of k vertices clipped by m half-planes has at most k + m vertices. */
#define CLIP_CAPACITY (2 * LUCID_PATCH_MAX_FACE + 2)
/* Lengths below this fraction of the features' size are treated as round-off: far above the
 * rounding of the clipping (1e-16) and the rotation noise of resting poses (1e-12), far below
 * any geometry that matters for contact. */
#define PATCH_RELATIVE_TOLERANCE 1e-9

/* A supporting feature in world coordinates. */
typedef struct feature {
    lucid_patch_feature kind;
    int count;         /* vertices: 1 point, 2 segment, >= 3 polygon (cyclic, convex), 1 plane */
    lucid_vec3 normal; /* polygon / plane: outward unit normal */
    double radius;     /* swept radius of the shape (sphere, capsule) */
    lucid_vec3 v[LUCID_PATCH_MAX_FACE];
} feature;

typedef struct tolerances {
    double cos_tol, sin_tol;
} tolerances;

/* ---- supporting features, built in the local frame ---------------------------------------- */

static void set_point(feature *f, lucid_vec3 p) {
    f->kind = LUCID_FEATURE_POINT;
    f->count = 1;
    f->v[0] = p;
}

static void set_segment(feature *f, lucid_vec3 a, lucid_vec3 b) {
    f->kind = LUCID_FEATURE_SEGMENT;
    f->count = 2;
    f->v[0] = a;
    f->v[1] = b;
}

static double sign_or_plus(double x) {
    return x < 0.0 ? -1.0 : 1.0;
}
/* fmax/fmin/fabs-max are library calls without -ffast-math; the inputs here are finite. */
static double max2(double a, double b) {
    return a > b ? a : b;
}
static double min2(double a, double b) {
    return a < b ? a : b;
}
static double abs_max3(lucid_vec3 a) {
    return max2(max2(fabs(a.x), fabs(a.y)), fabs(a.z));
}

/* A box face (axis i, side s) as a cycle, or an edge along the least-aligned axis, or a corner. */
static void box_feature(lucid_vec3 h, lucid_vec3 d, tolerances tol, feature *f) {
    double a[3] = {fabs(d.x), fabs(d.y), fabs(d.z)};
    double he[3] = {h.x, h.y, h.z}, dd[3] = {d.x, d.y, d.z}, c[3];
    int i = 0; /* best-aligned axis, lowest index on ties */
    for (int k = 1; k < 3; ++k)
        if (a[k] > a[i]) i = k;
    for (int k = 0; k < 3; ++k) c[k] = sign_or_plus(dd[k]) * he[k];
    if (a[i] >= tol.cos_tol) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        static const double sj[4] = {1, -1, -1, 1}, sk[4] = {1, 1, -1, -1};
        f->kind = LUCID_FEATURE_POLYGON;
        f->count = 4;
        for (int q = 0; q < 4; ++q) {
            double p[3];
            p[i] = c[i];
            p[j] = sj[q] * he[j];
            p[k] = sk[q] * he[k];
            f->v[q] = lucid_vec3_load(p);
        }
        double n[3] = {0, 0, 0};
        n[i] = sign_or_plus(dd[i]);
        f->normal = lucid_vec3_load(n);
        return;
    }
    int e = 0; /* least-aligned axis: the edge direction candidate */
    for (int k = 1; k < 3; ++k)
        if (a[k] < a[e]) e = k;
    if (a[e] <= tol.sin_tol) {
        double lo[3] = {c[0], c[1], c[2]}, hi[3] = {c[0], c[1], c[2]};
        lo[e] = -he[e];
        hi[e] = he[e];
        set_segment(f, lucid_vec3_load(lo), lucid_vec3_load(hi));
        return;
    }
    set_point(f, lucid_vec3_load(c));
}

/* The inscribed regular polygon of a disc of radius r at height z, counter-clockwise about +z. */
static void disc_feature(double r, double z, double normal_z, feature *f) {
    f->kind = LUCID_FEATURE_POLYGON;
    f->count = LUCID_PATCH_DISC_SIDES;
    /* cos(2 pi q / 16), q = 0..19; sin(a) = cos(a - pi / 2) is the table 4 entries on */
    static const double c[LUCID_PATCH_DISC_SIDES + 4] = {
        1.0,  0.92387953251128674,  0.70710678118654757,  0.38268343236508978,
        0.0,  -0.38268343236508978, -0.70710678118654757, -0.92387953251128674,
        -1.0, -0.92387953251128674, -0.70710678118654757, -0.38268343236508978,
        0.0,  0.38268343236508978,  0.70710678118654757,  0.92387953251128674,
        1.0,  0.92387953251128674,  0.70710678118654757,  0.38268343236508978};
    for (int q = 0; q < LUCID_PATCH_DISC_SIDES; ++q)
        f->v[q] = lucid_vec3_make(
            r * c[q], r * c[(q + LUCID_PATCH_DISC_SIDES - 4) % LUCID_PATCH_DISC_SIDES], z);
    f->normal = lucid_vec3_make(0, 0, normal_z);
}

/* Unit radial direction of d (d must have a radial part). */
static lucid_vec3 radial(lucid_vec3 d) {
    double rho = hypot(d.x, d.y);
    return lucid_vec3_make(d.x / rho, d.y / rho, 0.0);
}

static void cylinder_feature(const lucid_shape *s, lucid_vec3 d, tolerances tol, feature *f) {
    double r = s->u.round.radius, h = s->u.round.half_length;
    if (fabs(d.z) >= tol.cos_tol) {
        double side = sign_or_plus(d.z);
        disc_feature(r, side * h, side, f);
    } else if (fabs(d.z) <= tol.sin_tol) {
        lucid_vec3 u = lucid_vec3_scale(radial(d), r);
        set_segment(f, lucid_vec3_make(u.x, u.y, -h), lucid_vec3_make(u.x, u.y, h));
    } else {
        set_point(f, lucid_shape_support_core(s, d, NULL));
    }
}

/* Cone with apex (0, 0, h) and base disc of radius r at z = -h. */
static void cone_feature(const lucid_shape *s, lucid_vec3 d, tolerances tol, feature *f) {
    double r = s->u.round.radius, h = s->u.round.half_length;
    double rho = hypot(d.x, d.y);
    double side_cos = (2.0 * h * rho + r * d.z) / hypot(2.0 * h, r); /* d . side normal */
    if (-d.z >= tol.cos_tol) {
        disc_feature(r, -h, -1.0, f);
    } else if (rho > 0.0 && side_cos >= tol.cos_tol) {
        lucid_vec3 u = lucid_vec3_scale(radial(d), r);
        set_segment(f, lucid_vec3_make(u.x, u.y, -h), lucid_vec3_make(0, 0, h));
    } else {
        set_point(f, lucid_shape_support_core(s, d, NULL));
    }
}

/* Mesh: best-aligned face by a scan of the face normals (lowest index on ties), else the edge
 * at the support vertex closest to perpendicular to d, else that vertex. */
static void mesh_feature(const lucid_convex_mesh *m, lucid_vec3 d, tolerances tol, feature *f) {
    int best = 0;
    double best_cos = -INFINITY;
    for (int q = 0; q < m->num_faces; ++q) {
        double c = lucid_vec3_dot(m->face_normals[q], d);
        if (c > best_cos) best_cos = c, best = q;
    }
    if (best_cos >= tol.cos_tol) {
        int begin = m->face_offsets[best], k = m->face_offsets[best + 1] - begin;
        int used = k < LUCID_PATCH_MAX_FACE ? k : LUCID_PATCH_MAX_FACE;
        f->kind = LUCID_FEATURE_POLYGON;
        f->count = used;
        for (int q = 0; q < used; ++q)
            f->v[q] = m->vertices[m->face_vertices[begin + (int)((long)q * k / used)]];
        f->normal = m->face_normals[best];
        return;
    }
    int hint = 0;
    int v = lucid_convex_mesh_support_index(m, d, &hint);
    lucid_vec3 pv = m->vertices[v];
    int edge_to = -1;
    double best_sin = INFINITY;
    for (int q = m->neighbor_offsets[v]; q < m->neighbor_offsets[v + 1]; ++q) {
        int w = m->neighbors[q];
        lucid_vec3 e = lucid_vec3_sub(m->vertices[w], pv);
        double s = fabs(lucid_vec3_dot(e, d)) / lucid_vec3_norm(e);
        if (s < best_sin || (s == best_sin && w < edge_to)) best_sin = s, edge_to = w;
    }
    if (edge_to >= 0 && best_sin <= tol.sin_tol)
        set_segment(f, pv, m->vertices[edge_to]);
    else
        set_point(f, pv);
}

/* The supporting feature of s (posed by T) in the world direction dir (unit), world frame. */
static void support_feature(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 dir,
                            tolerances tol, feature *f) {
    lucid_vec3 d = lucid_mat3_tmul_vec(&T->R, dir);
    f->radius = s->radius;
    switch (s->kind) {
        case LUCID_SHAPE_BOX:
            box_feature(s->u.half_extents, d, tol, f);
            break;
        case LUCID_SHAPE_CAPSULE:
            if (fabs(d.z) <= tol.sin_tol)
                set_segment(f, lucid_vec3_make(0, 0, -s->u.half_length),
                            lucid_vec3_make(0, 0, s->u.half_length));
            else
                set_point(f, lucid_shape_support_core(s, d, NULL));
            break;
        case LUCID_SHAPE_CYLINDER:
            cylinder_feature(s, d, tol, f);
            break;
        case LUCID_SHAPE_CONE:
            cone_feature(s, d, tol, f);
            break;
        case LUCID_SHAPE_CONVEX:
            mesh_feature(s->u.mesh, d, tol, f);
            break;
        case LUCID_SHAPE_HALFSPACE:
            f->kind = LUCID_FEATURE_PLANE;
            f->count = 1;
            f->normal = s->u.halfspace.normal;
            f->v[0] = lucid_vec3_scale(s->u.halfspace.normal, s->u.halfspace.offset);
            break;
        default:
            set_point(f, lucid_shape_support_core(s, d, NULL));
            break;
    }
    for (int q = 0; q < f->count; ++q) f->v[q] = lucid_se3_act(T, f->v[q]);
    if (f->kind == LUCID_FEATURE_POLYGON || f->kind == LUCID_FEATURE_PLANE)
        f->normal = lucid_mat3_mul_vec(&T->R, f->normal);
}

/* ---- reference and clipping ------------------------------------------------------------- */

typedef struct plane {
    lucid_vec3 n; /* inside: <n, x> <= d */
    double d;
} plane;

typedef struct reference {
    lucid_vec3 origin, normal; /* the reference plane; normal points toward the incident shape */
    double radius;
    int num_sides;
    plane sides[LUCID_PATCH_MAX_FACE];
} reference;

static plane plane_through(lucid_vec3 n, lucid_vec3 p) {
    plane pl = {n, lucid_vec3_dot(n, p)};
    return pl;
}

/* Side planes of a convex polygon: through each edge, perpendicular to the face, outward. */
static void polygon_reference(const feature *f, reference *ref) {
    lucid_vec3 newell = lucid_vec3_zero();
    for (int q = 0; q < f->count; ++q)
        newell = lucid_vec3_add(newell, lucid_vec3_cross(f->v[q], f->v[(q + 1) % f->count]));
    double orient = lucid_vec3_dot(newell, f->normal) >= 0.0 ? 1.0 : -1.0;
    ref->origin = f->v[0];
    ref->normal = f->normal;
    ref->radius = f->radius;
    ref->num_sides = f->count;
    for (int q = 0; q < f->count; ++q) {
        lucid_vec3 e = lucid_vec3_sub(f->v[(q + 1) % f->count], f->v[q]);
        lucid_vec3 out =
            lucid_vec3_normalized(lucid_vec3_scale(lucid_vec3_cross(e, f->normal), orient));
        ref->sides[q] = plane_through(out, f->v[q]);
    }
}

/* A segment as a degenerate face: the plane containing it perpendicular to `toward` (the
 * direction to the incident shape made perpendicular to the segment), two end planes. */
static void segment_reference(const feature *f, lucid_vec3 toward, reference *ref) {
    lucid_vec3 e = lucid_vec3_normalized(lucid_vec3_sub(f->v[1], f->v[0]));
    lucid_vec3 m = lucid_vec3_normalized(lucid_vec3_axpy(toward, -lucid_vec3_dot(toward, e), e));
    ref->origin = f->v[0];
    ref->normal = m;
    ref->radius = f->radius;
    ref->num_sides = 2;
    ref->sides[0] = plane_through(lucid_vec3_neg(e), f->v[0]);
    ref->sides[1] = plane_through(e, f->v[1]);
}

static double side_distance(plane p, lucid_vec3 x) {
    return lucid_vec3_dot(p.n, x) - p.d;
}

/* Sutherland-Hodgman: the part of the closed polygon in[0..n) inside p, into out. */
static int clip_polygon(const lucid_vec3 *in, int n, plane p, lucid_vec3 *out) {
    int m = 0;
    for (int q = 0; q < n; ++q) {
        lucid_vec3 s = in[(q + n - 1) % n], e = in[q];
        double ds = side_distance(p, s), de = side_distance(p, e);
        if ((ds <= 0.0) != (de <= 0.0)) out[m++] = lucid_vec3_lerp(s, e, ds / (ds - de));
        if (de <= 0.0) out[m++] = e;
    }
    return m;
}

/* The part of segment (a, b) inside every side plane; returns the number of points (0 or 2). */
static int clip_segment(lucid_vec3 a, lucid_vec3 b, const reference *ref, lucid_vec3 *out) {
    double t0 = 0.0, t1 = 1.0;
    for (int q = 0; q < ref->num_sides; ++q) {
        double da = side_distance(ref->sides[q], a), db = side_distance(ref->sides[q], b);
        if (da > 0.0 && db > 0.0) return 0;
        if (da > 0.0) t0 = max2(t0, da / (da - db));
        if (db > 0.0) t1 = min2(t1, da / (da - db));
    }
    if (t0 > t1) return 0;
    out[0] = lucid_vec3_lerp(a, b, t0);
    out[1] = lucid_vec3_lerp(a, b, t1);
    return 2;
}

/* The incident feature clipped by the reference's side planes, into buf (CLIP_CAPACITY). */
static int clip_incident(const feature *inc, const reference *ref, lucid_vec3 *buf) {
    if (inc->kind == LUCID_FEATURE_SEGMENT) return clip_segment(inc->v[0], inc->v[1], ref, buf);
    lucid_vec3 tmp[CLIP_CAPACITY];
    const lucid_vec3 *src = inc->v;
    int n = inc->count;
    for (int q = 0; q < ref->num_sides && n > 0; ++q) { /* ping-pong, the last pass into buf */
        lucid_vec3 *dst = (ref->num_sides - q) % 2 == 1 ? buf : tmp;
        n = clip_polygon(src, n, ref->sides[q], dst);
        src = dst;
    }
    if (src != buf)
        for (int q = 0; q < n; ++q) buf[q] = src[q];
    return n;
}

/* ---- points: separations, filtering, reduction ------------------------------------------- */

typedef struct patch_point {
    lucid_vec3 on_ref, on_inc;
    double separation;
} patch_point;

/* Drops points within tol of their cyclic predecessor (clipping at a vertex duplicates it). */
static int merge_duplicates(lucid_vec3 *x, int n, double tol) {
    double tol2 = tol * tol;
    int m = 0;
    for (int q = 0; q < n; ++q)
        if (m == 0 || lucid_vec3_norm2(lucid_vec3_sub(x[q], x[m - 1])) > tol2) x[m++] = x[q];
    while (m > 1 && lucid_vec3_norm2(lucid_vec3_sub(x[m - 1], x[0])) <= tol2) --m;
    return m;
}

/* Distance of b from the line through a and c (from a when a and c coincide). */
static double chord_distance(lucid_vec3 a, lucid_vec3 b, lucid_vec3 c) {
    lucid_vec3 ac = lucid_vec3_sub(c, a), ab = lucid_vec3_sub(b, a);
    double len = lucid_vec3_norm(ac);
    return len > 0.0 ? lucid_vec3_norm(lucid_vec3_cross(ab, ac)) / len : lucid_vec3_norm(ab);
}

/* Drops the vertices of the cycle x[0..n) that lie within tol of the line through their two
 * neighbours. An incident edge that coincides with a side plane up to round-off crosses it at
 * an arbitrary point of the edge; that crossing is a vertex of the exact clipped polygon, but
 * a redundant one: it bends the edge by less than the round-off. The scan stops after a full
 * turn without a drop; after a drop the predecessor, whose neighbour changed, is looked at
 * again. */
static int drop_collinear(lucid_vec3 *x, int n, double tol) {
    int q = 0, checked = 0;
    while (n > 2 && checked < n) {
        if (chord_distance(x[(q + n - 1) % n], x[q], x[(q + 1) % n]) > tol) {
            q = (q + 1) % n, ++checked;
            continue;
        }
        for (int k = q; k + 1 < n; ++k) x[k] = x[k + 1];
        --n;
        q = (q + n - 1) % n, checked = 0;
    }
    return n;
}

static double triangle_area2(lucid_vec3 a, lucid_vec3 b, lucid_vec3 c) {
    return lucid_vec3_norm(lucid_vec3_cross(lucid_vec3_sub(b, a), lucid_vec3_sub(c, a)));
}

static int deepest_index(const patch_point *p, int n) {
    int best = 0;
    for (int q = 1; q < n; ++q)
        if (p[q].separation < p[best].separation) best = q;
    return best;
}

/* The point a reduction keeps first: the deepest, depths within tol being equal, and of equal
 * ones the farthest from the points' centroid. Equal faces turned in their plane clip to an
 * octagon whose edge crossings tie with its corners: a corner keeps the kept set continuous. */
static int anchor_index(const patch_point *p, int n, double tol) {
    double least = p[deepest_index(p, n)].separation;
    lucid_vec3 centre = lucid_vec3_zero();
    for (int q = 0; q < n; ++q) centre = lucid_vec3_add(centre, p[q].on_ref);
    centre = lucid_vec3_scale(centre, 1.0 / n);
    int best = -1;
    double far = -1.0;
    for (int q = 0; q < n; ++q) {
        double r = lucid_vec3_dist(p[q].on_ref, centre);
        if (p[q].separation <= least + tol && r > far) far = r, best = q;
    }
    return best;
}

/* Repeatedly drops the point (never the anchor) spanning the smallest triangle with its
 * neighbours along the cycle, until `capacity` remain. */
static int reduce_points(patch_point *p, int n, int capacity, double tol) {
    while (n > capacity) {
        int keep = anchor_index(p, n, tol), drop = -1;
        double least = INFINITY;
        for (int q = 0; q < n; ++q) {
            if (q == keep) continue;
            double a =
                triangle_area2(p[(q + n - 1) % n].on_ref, p[q].on_ref, p[(q + 1) % n].on_ref);
            if (a < least) least = a, drop = q;
        }
        for (int q = drop; q + 1 < n; ++q) p[q] = p[q + 1];
        --n;
    }
    return n;
}

double lucid_patch_quad_area2(lucid_vec3 a, lucid_vec3 b, lucid_vec3 c, lucid_vec3 d,
                              lucid_vec3 n) {
    const lucid_vec3 *order[3][4] = {{&a, &b, &c, &d}, {&a, &b, &d, &c}, {&a, &c, &b, &d}};
    double best = 0.0;
    for (int o = 0; o < 3; ++o) {
        lucid_vec3 sum = lucid_vec3_zero();
        for (int q = 0; q < 4; ++q)
            sum = lucid_vec3_add(sum, lucid_vec3_cross(*order[o][q], *order[o][(q + 1) % 4]));
        best = max2(best, fabs(lucid_vec3_dot(sum, n)));
    }
    return best;
}

/* Keeps `capacity` (1 to 4) well-spread points, the area-maximising choice of Box2D and
 * Bullet: the anchor (the deepest point, anchor_index), the one farthest from it, the one spanning
 * the largest triangle with them, then the one giving the largest quadrilateral (on the reference
 * plane, normal n). The kept points keep their cyclic order; ties go to the lowest index. */
static int spread_points(patch_point *p, int n, int capacity, lucid_vec3 normal, double tol) {
    int pick[4] = {anchor_index(p, n, tol), -1, -1, -1};
    for (int k = 1; k < capacity; ++k) {
        double best = -1.0;
        for (int q = 0; q < n; ++q) {
            int used = 0;
            for (int j = 0; j < k; ++j) used |= pick[j] == q;
            if (used) continue;
            lucid_vec3 x = p[q].on_ref, a = p[pick[0]].on_ref;
            double score = k == 1   ? lucid_vec3_dist(x, a)
                           : k == 2 ? triangle_area2(a, p[pick[1]].on_ref, x)
                                    : lucid_patch_quad_area2(a, p[pick[1]].on_ref,
                                                             p[pick[2]].on_ref, x, normal);
            if (score > best) best = score, pick[k] = q;
        }
    }
    int m = 0;
    for (int q = 0; q < n; ++q)
        for (int j = 0; j < capacity; ++j)
            if (pick[j] == q) p[m++] = p[q];
    return m;
}

/* Keeps points with separation <= max(margin, deepest) + slack, preserving their order. */
static int filter_points(patch_point *p, int n, double margin, double slack) {
    double limit = max2(margin, p[deepest_index(p, n)].separation) + slack;
    int m = 0;
    for (int q = 0; q < n; ++q)
        if (p[q].separation <= limit) p[m++] = p[q];
    return m;
}

static double max_abs_coordinate(const lucid_vec3 *x, int n, lucid_vec3 extra) {
    double s = abs_max3(extra);
    for (int q = 0; q < n; ++q) s = max2(s, abs_max3(x[q]));
    return s;
}

static double extent(const feature *f) {
    double e = 0.0;
    for (int q = 1; q < f->count; ++q) e = max2(e, lucid_vec3_dist(f->v[q], f->v[0]));
    return e;
}

/* ---- assembling the patch ---------------------------------------------------------------- */

static void witness_patch(const lucid_distance_result *dist, lucid_vec3 normal,
                          lucid_contact_patch_result *out) {
    out->normal = normal;
    out->count = 1;
    out->points[0].p1 = dist->p1;
    out->points[0].p2 = dist->p2;
    out->points[0].separation = dist->distance;
}

/* Which feature is the reference: 1 or 2, or 0 when the patch is the witness pair. */
static int choose_reference(const feature *f1, const feature *f2, lucid_vec3 n, tolerances tol) {
    if (f1->kind == LUCID_FEATURE_POINT || f2->kind == LUCID_FEATURE_POINT) return 0;
    if (f1->kind == LUCID_FEATURE_PLANE) return 1;
    if (f2->kind == LUCID_FEATURE_PLANE) return 2;
    int face1 = f1->kind == LUCID_FEATURE_POLYGON, face2 = f2->kind == LUCID_FEATURE_POLYGON;
    if (face1 && face2)
        return -lucid_vec3_dot(f2->normal, n) > lucid_vec3_dot(f1->normal, n) ? 2 : 1;
    if (face1 || face2) return face1 ? 1 : 2;
    lucid_vec3 e1 = lucid_vec3_normalized(lucid_vec3_sub(f1->v[1], f1->v[0]));
    lucid_vec3 e2 = lucid_vec3_normalized(lucid_vec3_sub(f2->v[1], f2->v[0]));
    return fabs(lucid_vec3_dot(e1, e2)) >= tol.cos_tol ? 1 : 0;
}

/* The patch's length tolerance: lengths below PATCH_RELATIVE_TOLERANCE times the size of the
 * two features (plus the rounding of coordinates of magnitude `scale`) are round-off. */
static double length_tolerance(const feature *inc, const feature *ref, double scale) {
    double size = max2(extent(inc), extent(ref));
    return PATCH_RELATIVE_TOLERANCE * size + 16.0 * DBL_EPSILON * scale;
}

/* Clips inc against ref (built from the feature ref_f) into points (CLIP_CAPACITY), without the
 * duplicate and collinear points of coinciding edges; returns their number and sets *tol to
 * the length tolerance used. */
static int clipped_points(const feature *inc, const feature *ref_f, const reference *ref,
                          patch_point *pts, double *tol) {
    lucid_vec3 x[CLIP_CAPACITY];
    int n = clip_incident(inc, ref, x);
    double scale = max_abs_coordinate(x, n, ref->origin) + inc->radius + ref->radius;
    *tol = length_tolerance(inc, ref_f, scale);
    n = drop_collinear(x, merge_duplicates(x, n, *tol), *tol);
    for (int q = 0; q < n; ++q) {
        double core = lucid_vec3_dot(ref->normal, lucid_vec3_sub(x[q], ref->origin));
        pts[q].separation = core - inc->radius - ref->radius;
        pts[q].on_inc = lucid_vec3_axpy(x[q], -inc->radius, ref->normal);
        pts[q].on_ref = lucid_vec3_axpy(x[q], ref->radius - core, ref->normal);
    }
    return n;
}

static void write_points(const patch_point *p, int n, int ref_is_1,
                         lucid_contact_patch_result *out) {
    out->count = n;
    for (int q = 0; q < n; ++q) {
        out->points[q].p1 = ref_is_1 ? p[q].on_ref : p[q].on_inc;
        out->points[q].p2 = ref_is_1 ? p[q].on_inc : p[q].on_ref;
        out->points[q].separation = p[q].separation;
    }
}

static int pose_is_finite(const lucid_se3 *T) {
    for (int i = 0; i < 9; ++i)
        if (!isfinite(T->R.m[i])) return 0;
    return lucid_vec3_isfinite(T->t);
}

static lucid_status check_arguments(const lucid_shape *s1, const lucid_se3 *T1,
                                    const lucid_shape *s2, const lucid_se3 *T2,
                                    const lucid_distance_result *dist,
                                    const lucid_patch_options *opt,
                                    lucid_contact_patch_result *out) {
    if (!s1 || !T1 || !s2 || !T2 || !dist || !opt || !out) return LUCID_ERR_ARGUMENT;
    if (s1->kind == LUCID_SHAPE_HALFSPACE && s2->kind == LUCID_SHAPE_HALFSPACE)
        return LUCID_ERR_ARGUMENT;
    if (s1->kind == LUCID_SHAPE_HEIGHTFIELD || s2->kind == LUCID_SHAPE_HEIGHTFIELD)
        return LUCID_ERR_ARGUMENT; /* not convex: the world collides its prisms */
    if (!pose_is_finite(T1) || !pose_is_finite(T2) || !isfinite(dist->distance) ||
        !lucid_vec3_isfinite(dist->p1) || !lucid_vec3_isfinite(dist->p2) ||
        !lucid_vec3_isfinite(dist->normal))
        return LUCID_ERR_NONFINITE;
    if (!(lucid_vec3_norm2(dist->normal) > 0.0)) return LUCID_ERR_ARGUMENT;
    return lucid_option_table_check(lucid_patch_option_table, opt, NULL);
}

void lucid_patch_options_default(lucid_patch_options *opt) {
    opt->margin = 0.0;
    opt->angular_tolerance = LUCID_PATCH_ANGULAR_TOLERANCE;
    opt->max_points = LUCID_PATCH_MAX_POINTS;
}

/* [0, pi/2): a feature turned by a quarter turn no longer faces the normal. */
#define LUCID_OPTION_QUARTER_TURN_RANGE                                                            \
    { 0.0, 0.5 * PATCH_PI, 0, 1 }
#define LUCID_OPTION_QUARTER_TURN_WORDS "in [0, pi/2)"

#define S lucid_patch_options
const lucid_option lucid_patch_option_table[] = {
    LUCID_OPTION_NUMBER_ENTRY(S, "", margin, NONNEGATIVE,
                              "points with separation <= margin are kept, m"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", angular_tolerance, QUARTER_TURN,
                              "how far from the normal a face or edge may turn and still count "
                              "as supporting, rad"),
    LUCID_OPTION_INTEGER_ENTRY(S, "", max_points, 1, LUCID_PATCH_MAX_POINTS, "points kept"),
    LUCID_OPTION_END,
};
#undef S

lucid_status lucid_contact_patch(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                 const lucid_se3 *T2, const lucid_distance_result *dist,
                                 const lucid_patch_options *opt_in,
                                 lucid_contact_patch_result *out) {
    lucid_patch_options defaults;
    lucid_patch_options_default(&defaults);
    const lucid_patch_options *opt = opt_in ? opt_in : &defaults;
    lucid_status st = check_arguments(s1, T1, s2, T2, dist, opt, out);
    if (st != LUCID_OK) return st;

    tolerances tol = {cos(opt->angular_tolerance), sin(opt->angular_tolerance)};
    lucid_vec3 n = lucid_vec3_normalized(dist->normal);
    feature f1, f2;
    support_feature(s1, T1, n, tol, &f1);
    support_feature(s2, T2, lucid_vec3_neg(n), tol, &f2);
    out->feature1 = f1.kind;
    out->feature2 = f2.kind;

    int which = choose_reference(&f1, &f2, n, tol);
    if (which == 0) {
        witness_patch(dist, n, out);
        return LUCID_OK;
    }
    const feature *ref_f = which == 1 ? &f1 : &f2, *inc_f = which == 1 ? &f2 : &f1;
    lucid_vec3 toward = which == 1 ? n : lucid_vec3_neg(n); /* from reference to incident */
    reference ref;
    if (ref_f->kind == LUCID_FEATURE_SEGMENT) {
        segment_reference(ref_f, toward, &ref);
    } else if (ref_f->kind == LUCID_FEATURE_PLANE) {
        ref.origin = ref_f->v[0];
        ref.normal = ref_f->normal;
        ref.radius = 0.0;
        ref.num_sides = 0;
    } else {
        polygon_reference(ref_f, &ref);
    }

    patch_point pts[CLIP_CAPACITY];
    double length_tol;
    int count = clipped_points(inc_f, ref_f, &ref, pts, &length_tol);
    if (count == 0) {
        witness_patch(dist, n, out);
        return LUCID_OK;
    }
    /* separations differing by less than the length tolerance are equal: faces parallel up to
     * round-off give all their points at any gap */
    count = filter_points(pts, count, opt->margin, length_tol);
    if (count > opt->max_points)
        count = opt->max_points <= 4
                    ? spread_points(pts, count, opt->max_points, ref.normal, length_tol)
                    : reduce_points(pts, count, opt->max_points, length_tol);
    out->normal = which == 1 ? ref.normal : lucid_vec3_neg(ref.normal);
    write_points(pts, count, which == 1, out);
    return LUCID_OK;
}
