/* Shape constructors, support functions and bounding boxes. */
#include "runtime/shapes/shape.h"

#include <float.h>
#include <math.h>
#include <stddef.h>

#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/heightfield.h"

static lucid_status check_size(double x) {
    if (!isfinite(x)) return LUCID_ERR_NONFINITE;
    return x > 0.0 && x <= LUCID_GEOMETRY_MAX ? LUCID_OK : LUCID_ERR_ARGUMENT;
}

static lucid_status check_sizes(double a, double b, double c) {
    lucid_status st = check_size(a);
    if (st == LUCID_OK) st = check_size(b);
    if (st == LUCID_OK) st = check_size(c);
    return st;
}

/* v / s componentwise (not v * (1/s), which overflows for subnormal s). */
static lucid_vec3 divide(lucid_vec3 v, double s) {
    return lucid_vec3_make(v.x / s, v.y / s, v.z / s);
}

static lucid_shape blank_shape(lucid_shape_kind kind) {
    lucid_shape s = {0};
    s.kind = kind;
    return s;
}

lucid_status lucid_shape_sphere(double radius, lucid_shape *out) {
    lucid_status st = check_size(radius);
    if (st != LUCID_OK) return st;
    *out = blank_shape(LUCID_SHAPE_SPHERE);
    out->radius = radius;
    return LUCID_OK;
}

lucid_status lucid_shape_ellipsoid(double rx, double ry, double rz, lucid_shape *out) {
    lucid_status st = check_sizes(rx, ry, rz);
    if (st != LUCID_OK) return st;
    *out = blank_shape(LUCID_SHAPE_ELLIPSOID);
    out->u.radii = lucid_vec3_make(rx, ry, rz);
    return LUCID_OK;
}

lucid_status lucid_shape_box(double hx, double hy, double hz, lucid_shape *out) {
    lucid_status st = check_sizes(hx, hy, hz);
    if (st != LUCID_OK) return st;
    *out = blank_shape(LUCID_SHAPE_BOX);
    out->u.half_extents = lucid_vec3_make(hx, hy, hz);
    return LUCID_OK;
}

lucid_status lucid_shape_capsule(double radius, double half_length, lucid_shape *out) {
    lucid_status st = check_sizes(radius, half_length, 1.0);
    if (st != LUCID_OK) return st;
    *out = blank_shape(LUCID_SHAPE_CAPSULE);
    out->radius = radius;
    out->u.half_length = half_length;
    return LUCID_OK;
}

static lucid_status make_round(lucid_shape_kind kind, double radius, double half_length,
                               lucid_shape *out) {
    lucid_status st = check_sizes(radius, half_length, 1.0);
    if (st != LUCID_OK) return st;
    *out = blank_shape(kind);
    out->u.round.radius = radius;
    out->u.round.half_length = half_length;
    return LUCID_OK;
}

lucid_status lucid_shape_cylinder(double radius, double half_length, lucid_shape *out) {
    return make_round(LUCID_SHAPE_CYLINDER, radius, half_length, out);
}

lucid_status lucid_shape_cone(double radius, double half_length, lucid_shape *out) {
    return make_round(LUCID_SHAPE_CONE, radius, half_length, out);
}

lucid_status lucid_shape_halfspace(lucid_vec3 normal, double offset, lucid_shape *out) {
    if (!lucid_vec3_isfinite(normal) || !isfinite(offset)) return LUCID_ERR_NONFINITE;
    double scale = lucid_vec3_max_abs(normal);
    if (!(scale >= DBL_MIN)) return LUCID_ERR_ARGUMENT; /* zero or subnormal */
    /* Scale first so tiny or huge normals normalise without underflow or overflow; dividing
     * both sides of n.x <= offset by |n| keeps the same set. */
    lucid_vec3 scaled = divide(normal, scale);
    double length = lucid_vec3_norm(scaled);
    if (!(fabs(offset / scale / length) <= LUCID_GEOMETRY_MAX)) return LUCID_ERR_ARGUMENT;
    *out = blank_shape(LUCID_SHAPE_HALFSPACE);
    out->u.halfspace.normal = lucid_vec3_scale(scaled, 1.0 / length);
    out->u.halfspace.offset = offset / scale / length;
    return LUCID_OK;
}

lucid_status lucid_shape_convex(const lucid_convex_mesh *mesh, lucid_shape *out) {
    if (mesh == NULL || mesh->num_vertices < 4) return LUCID_ERR_ARGUMENT;
    for (int i = 0; i < mesh->num_vertices; ++i)
        if (!(lucid_vec3_max_abs(mesh->vertices[i]) <= LUCID_GEOMETRY_MAX))
            return LUCID_ERR_ARGUMENT;
    *out = blank_shape(LUCID_SHAPE_CONVEX);
    out->u.mesh = mesh;
    return LUCID_OK;
}

lucid_status lucid_shape_heightfield(const lucid_heightfield *h, lucid_shape *out) {
    if (h == NULL) return LUCID_ERR_ARGUMENT;
    *out = blank_shape(LUCID_SHAPE_HEIGHTFIELD);
    out->u.hfield = h;
    return LUCID_OK;
}

const char *lucid_shape_kind_name(lucid_shape_kind kind) {
    switch (kind) {
        case LUCID_SHAPE_SPHERE:
            return "sphere";
        case LUCID_SHAPE_ELLIPSOID:
            return "ellipsoid";
        case LUCID_SHAPE_BOX:
            return "box";
        case LUCID_SHAPE_CAPSULE:
            return "capsule";
        case LUCID_SHAPE_CYLINDER:
            return "cylinder";
        case LUCID_SHAPE_CONE:
            return "cone";
        case LUCID_SHAPE_CONVEX:
            return "convex";
        case LUCID_SHAPE_HALFSPACE:
            return "halfspace";
        case LUCID_SHAPE_HEIGHTFIELD:
            return "heightfield";
    }
    return "unknown";
}

/* ---- support functions ------------------------------------------------------------------ */

/* Largest |entry| of a finite vector: the same as lucid_vec3_max_abs there, without the libm
 * calls fmax compiles to (fmax's NaN rules need them; they cost ~15% of an ellipsoid support). */
static double max_abs_finite(lucid_vec3 a) {
    double x = fabs(a.x), y = fabs(a.y), z = fabs(a.z);
    double m = x > y ? x : y;
    return m > z ? m : z;
}

/* dir / |dir|, computed after scaling by the largest component so neither tiny nor huge
 * directions underflow or overflow. Returns 0 (and leaves *unit zero) for a zero or
 * non-finite dir. */
static int unit_direction(lucid_vec3 dir, lucid_vec3 *unit) {
    *unit = lucid_vec3_zero();
    if (!lucid_vec3_isfinite(dir)) return 0;
    double scale = max_abs_finite(dir);
    if (scale == 0.0) return 0;
    lucid_vec3 d = divide(dir, scale);
    *unit = lucid_vec3_scale(d, 1.0 / lucid_vec3_norm(d));
    return 1;
}

/* + side on ties (zero, -0.0); NaN picks the - side, still a point of the shape. */
static double side(double d, double h) {
    return d >= 0.0 ? h : -h;
}

static lucid_vec3 support_ellipsoid(lucid_vec3 radii, lucid_vec3 dir) {
    if (!lucid_vec3_isfinite(dir)) return lucid_vec3_zero();
    double scale = max_abs_finite(dir);
    if (scale == 0.0) return lucid_vec3_zero();
    /* argmax over {A u : |u| = 1} of <d, A u> is A (A d / |A d|). Only d's direction matters,
     * so dividing by its largest entry (against overflow and underflow) replaces a unit
     * normalisation: one square root per support call, not two. */
    lucid_vec3 ad = lucid_vec3_mul(radii, divide(dir, scale));
    return lucid_vec3_scale(lucid_vec3_mul(radii, ad), 1.0 / lucid_vec3_norm(ad));
}

static lucid_vec3 support_box(lucid_vec3 h, lucid_vec3 dir) {
    return lucid_vec3_make(side(dir.x, h.x), side(dir.y, h.y), side(dir.z, h.z));
}

/* Unit radial direction (dx, dy)/rho in *ux, *uy; 0 when the radial part is zero or NaN. */
static int radial_direction(lucid_vec3 dir, double *ux, double *uy) {
    *ux = *uy = 0.0;
    if (!isfinite(dir.x) || !isfinite(dir.y)) return 0;
    double scale = fabs(dir.x) > fabs(dir.y) ? fabs(dir.x) : fabs(dir.y);
    if (scale == 0.0) return 0;
    double x = dir.x / scale, y = dir.y / scale;
    double rho = sqrt(x * x + y * y);
    *ux = x / rho;
    *uy = y / rho;
    return 1;
}

static lucid_vec3 support_cylinder(double r, double h, lucid_vec3 dir) {
    double ux, uy;
    radial_direction(dir, &ux, &uy);
    return lucid_vec3_make(r * ux, r * uy, side(dir.z, h));
}

static lucid_vec3 support_cone(double r, double h, lucid_vec3 dir) {
    double ux, uy;
    lucid_vec3 d;
    if (!unit_direction(dir, &d)) return lucid_vec3_make(0.0, 0.0, h);
    radial_direction(d, &ux, &uy);
    double rho = ux * d.x + uy * d.y; /* |radial part of the unit direction| */
    /* Apex value h dz against the best base point -h dz + r rho; the apex wins ties. */
    if (h * d.z >= -h * d.z + r * rho) return lucid_vec3_make(0.0, 0.0, h);
    return lucid_vec3_make(r * ux, r * uy, -h);
}

static lucid_vec3 halfspace_point(const lucid_shape *s) {
    return lucid_vec3_scale(s->u.halfspace.normal, s->u.halfspace.offset);
}

lucid_vec3 lucid_shape_support_core(const lucid_shape *s, lucid_vec3 dir, int *hint) {
    switch (s->kind) {
        case LUCID_SHAPE_SPHERE:
            return lucid_vec3_zero();
        case LUCID_SHAPE_ELLIPSOID:
            return support_ellipsoid(s->u.radii, dir);
        case LUCID_SHAPE_BOX:
            return support_box(s->u.half_extents, dir);
        case LUCID_SHAPE_CAPSULE:
            return lucid_vec3_make(0.0, 0.0, side(dir.z, s->u.half_length));
        case LUCID_SHAPE_CYLINDER:
            return support_cylinder(s->u.round.radius, s->u.round.half_length, dir);
        case LUCID_SHAPE_CONE:
            return support_cone(s->u.round.radius, s->u.round.half_length, dir);
        case LUCID_SHAPE_CONVEX:
            return lucid_convex_mesh_support(s->u.mesh, dir, hint);
        case LUCID_SHAPE_HALFSPACE:
            return halfspace_point(s);
        case LUCID_SHAPE_HEIGHTFIELD:
            return lucid_heightfield_support(s->u.hfield, dir);
    }
    return lucid_vec3_zero();
}

lucid_vec3 lucid_shape_support(const lucid_shape *s, lucid_vec3 dir, int *hint) {
    lucid_vec3 core = lucid_shape_support_core(s, dir, hint);
    if (s->radius == 0.0) return core;
    lucid_vec3 d;
    if (!unit_direction(dir, &d)) return core;
    return lucid_vec3_axpy(core, s->radius, d);
}

/* ---- bounding boxes ------------------------------------------------------------------- */

/* Extents of the posed shape along world axis i are given by row i of R (the world axis
 * expressed in the local frame): lo/hi offsets relative to the translation. */
static void axis_extent(const lucid_shape *s, lucid_vec3 row, double *lo, double *hi) {
    *hi = 0.0; /* sphere and capsule cores are points / segments through the origin */
    switch (s->kind) {
        case LUCID_SHAPE_SPHERE:
            *hi = 0.0;
            break;
        case LUCID_SHAPE_ELLIPSOID:
            *hi = lucid_vec3_norm(lucid_vec3_mul(row, s->u.radii));
            break;
        case LUCID_SHAPE_BOX: {
            lucid_vec3 h = s->u.half_extents;
            *hi = fabs(row.x) * h.x + fabs(row.y) * h.y + fabs(row.z) * h.z;
            break;
        }
        case LUCID_SHAPE_CAPSULE:
            *hi = fabs(row.z) * s->u.half_length;
            break;
        case LUCID_SHAPE_CYLINDER:
            *hi = fabs(row.z) * s->u.round.half_length +
                  s->u.round.radius * sqrt(row.x * row.x + row.y * row.y);
            break;
        case LUCID_SHAPE_CONE: {
            double r = s->u.round.radius, h = s->u.round.half_length;
            double apex = row.z * h, disc = r * sqrt(row.x * row.x + row.y * row.y);
            *hi = fmax(apex, -row.z * h + disc);
            *lo = fmin(apex, -row.z * h - disc);
            return;
        }
        case LUCID_SHAPE_CONVEX:
        case LUCID_SHAPE_HALFSPACE:
        case LUCID_SHAPE_HEIGHTFIELD:
            *hi = 0.0;
            break;
    }
    *lo = -*hi;
}

static void mesh_aabb(const lucid_convex_mesh *m, const lucid_se3 *T, lucid_vec3 *lo,
                      lucid_vec3 *hi) {
    *lo = *hi = lucid_se3_act(T, m->vertices[0]);
    for (int i = 1; i < m->num_vertices; ++i) {
        lucid_vec3 p = lucid_se3_act(T, m->vertices[i]);
        *lo = lucid_vec3_make(fmin(lo->x, p.x), fmin(lo->y, p.y), fmin(lo->z, p.z));
        *hi = lucid_vec3_make(fmax(hi->x, p.x), fmax(hi->y, p.y), fmax(hi->z, p.z));
    }
}

/* Bounded only along a world axis the normal equals exactly (n = +e_i bounds x_i above). */
static void halfspace_aabb(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 *lo,
                           lucid_vec3 *hi) {
    lucid_vec3 n = lucid_mat3_mul_vec(&T->R, s->u.halfspace.normal);
    double offset = s->u.halfspace.offset + lucid_vec3_dot(n, T->t);
    double l[3], h[3];
    for (int i = 0; i < 3; ++i) {
        double ni = lucid_vec3_get(n, i);
        int aligned = lucid_vec3_norm2(n) - ni * ni == 0.0;
        l[i] = aligned && ni < 0.0 ? -offset : -INFINITY;
        h[i] = aligned && ni > 0.0 ? offset : INFINITY;
    }
    *lo = lucid_vec3_load(l);
    *hi = lucid_vec3_load(h);
}

/* The posed local box [-sx, sx] x [-sy, sy] x [-base, top], from its 8 corners (exact when T
 * is a translation). */
static void heightfield_aabb(const lucid_heightfield *h, const lucid_se3 *T, lucid_vec3 *lo,
                             lucid_vec3 *hi) {
    for (int k = 0; k < 8; ++k) {
        lucid_vec3 c =
            lucid_vec3_make(k & 1 ? h->size[0] : -h->size[0], k & 2 ? h->size[1] : -h->size[1],
                            k & 4 ? h->top : -h->size[3]);
        lucid_vec3 p = lucid_se3_act(T, c);
        if (k == 0) *lo = *hi = p;
        *lo = lucid_vec3_make(fmin(lo->x, p.x), fmin(lo->y, p.y), fmin(lo->z, p.z));
        *hi = lucid_vec3_make(fmax(hi->x, p.x), fmax(hi->y, p.y), fmax(hi->z, p.z));
    }
}

void lucid_shape_aabb(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 *lo, lucid_vec3 *hi) {
    if (s->kind == LUCID_SHAPE_CONVEX) {
        mesh_aabb(s->u.mesh, T, lo, hi);
        return;
    }
    if (s->kind == LUCID_SHAPE_HALFSPACE) {
        halfspace_aabb(s, T, lo, hi);
        return;
    }
    if (s->kind == LUCID_SHAPE_HEIGHTFIELD) {
        heightfield_aabb(s->u.hfield, T, lo, hi);
        return;
    }
    double l[3], h[3];
    for (int i = 0; i < 3; ++i) {
        axis_extent(s, lucid_mat3_row(&T->R, i), &l[i], &h[i]);
        double t = lucid_vec3_get(T->t, i);
        l[i] = t + l[i] - s->radius;
        h[i] = t + h[i] + s->radius;
    }
    *lo = lucid_vec3_load(l);
    *hi = lucid_vec3_load(h);
}
