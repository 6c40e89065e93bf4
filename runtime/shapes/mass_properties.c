#include "runtime/shapes/mass_properties.h"

#include <math.h>
#include <stddef.h>

#include "runtime/shapes/convex_mesh.h"

static const double pi = 3.14159265358979323846;

static lucid_mat3 diagonal(double a, double b, double c) {
    return lucid_mat3_diag(lucid_vec3_make(a, b, c));
}

/* Second moments of a tetrahedron (0, a, b, c) with vertices relative to the reference point:
 * integral of x x^T over it is det/120 (sum_i v_i v_i^T + (sum_i v_i)(sum_i v_i)^T). */
static lucid_mat3 tetra_covariance(lucid_vec3 a, lucid_vec3 b, lucid_vec3 c, double det) {
    lucid_vec3 s = lucid_vec3_add(lucid_vec3_add(a, b), c);
    lucid_mat3 C = lucid_mat3_outer(s, s);
    lucid_mat3 A = lucid_mat3_outer(a, a), B = lucid_mat3_outer(b, b), D = lucid_mat3_outer(c, c);
    C = lucid_mat3_add(&C, &A);
    C = lucid_mat3_add(&C, &B);
    C = lucid_mat3_add(&C, &D);
    return lucid_mat3_scale(&C, det / 120.0);
}

/* Inertia about the origin from the covariance C = integral x x^T: I = tr(C) Id - C. */
static lucid_mat3 inertia_from_covariance(const lucid_mat3 *C) {
    lucid_mat3 I = lucid_mat3_identity();
    I = lucid_mat3_scale(&I, lucid_mat3_trace(C));
    return lucid_mat3_sub(&I, C);
}

/* Volume, first moment and covariance of a solid, summed over signed tetrahedra from a
 * reference point. */
typedef struct moments {
    double volume;
    lucid_vec3 first;
    lucid_mat3 C;
} moments;

/* Adds the tetrahedron (ref, ref + a, ref + b, ref + c), signed by its orientation. */
static void add_tetra(moments *s, lucid_vec3 a, lucid_vec3 b, lucid_vec3 c) {
    double det = lucid_vec3_dot(a, lucid_vec3_cross(b, c)); /* 6 x signed volume */
    s->volume += det / 6.0;
    s->first = lucid_vec3_add(
        s->first, lucid_vec3_scale(lucid_vec3_add(lucid_vec3_add(a, b), c), det / 24.0));
    lucid_mat3 T = tetra_covariance(a, b, c, det);
    s->C = lucid_mat3_add(&s->C, &T);
}

/* The mass properties at `density` of the summed moments about ref. */
static void finish(const moments *s, lucid_vec3 ref, double density, lucid_mass_properties *out) {
    lucid_vec3 com = lucid_vec3_scale(s->first, 1.0 / s->volume); /* relative to ref */
    /* covariance about the centroid: C - V com com^T */
    lucid_mat3 shift = lucid_mat3_outer(com, com);
    shift = lucid_mat3_scale(&shift, s->volume);
    lucid_mat3 C = lucid_mat3_sub(&s->C, &shift);
    lucid_mat3 I = inertia_from_covariance(&C);
    out->mass = density * s->volume;
    out->com = lucid_vec3_add(ref, com);
    out->inertia = lucid_mat3_scale(&I, density);
}

/* Fans every face from its first vertex and every triangle to the vertex mean, which is
 * inside the hull, so all tetrahedra have positive volume. */
static void mesh_properties(const lucid_convex_mesh *m, double density,
                            lucid_mass_properties *out) {
    lucid_vec3 ref = lucid_vec3_zero();
    for (int i = 0; i < m->num_vertices; ++i) ref = lucid_vec3_add(ref, m->vertices[i]);
    ref = lucid_vec3_scale(ref, 1.0 / m->num_vertices);
    moments s = {0.0, lucid_vec3_zero(), lucid_mat3_zero()};
    for (int f = 0; f < m->num_faces; ++f) {
        const int *cycle = m->face_vertices + m->face_offsets[f];
        int count = m->face_offsets[f + 1] - m->face_offsets[f];
        lucid_vec3 a = lucid_vec3_sub(m->vertices[cycle[0]], ref);
        for (int k = 1; k + 1 < count; ++k)
            add_tetra(&s, a, lucid_vec3_sub(m->vertices[cycle[k]], ref),
                      lucid_vec3_sub(m->vertices[cycle[k + 1]], ref));
    }
    finish(&s, ref, density, out);
}

lucid_status lucid_triangle_mesh_mass_properties(const double *points, int num_points,
                                                 const int *triangles, int num_triangles,
                                                 double density, lucid_mass_properties *out) {
    if (!points || !triangles || !out || num_points < 1 || num_triangles < 1 || !(density > 0.0) ||
        !isfinite(density))
        return LUCID_ERR_ARGUMENT;
    lucid_vec3 ref = lucid_vec3_zero();
    for (int i = 0; i < num_points; ++i) ref = lucid_vec3_add(ref, lucid_vec3_load(points + 3 * i));
    ref = lucid_vec3_scale(ref, 1.0 / num_points);
    moments s = {0.0, lucid_vec3_zero(), lucid_mat3_zero()};
    for (int t = 0; t < num_triangles; ++t) {
        lucid_vec3 v[3];
        for (int k = 0; k < 3; ++k) {
            int i = triangles[3 * t + k];
            if (i < 0 || i >= num_points) return LUCID_ERR_ARGUMENT;
            v[k] = lucid_vec3_sub(lucid_vec3_load(points + 3 * (size_t)i), ref);
        }
        add_tetra(&s, v[0], v[1], v[2]);
    }
    if (!(s.volume > 0.0) || !isfinite(s.volume)) return LUCID_ERR_DEGENERATE;
    finish(&s, ref, density, out);
    return LUCID_OK;
}

lucid_status lucid_shape_mass_properties(const lucid_shape *s, double density,
                                         lucid_mass_properties *out) {
    if (!s || !out || !(density > 0.0) || !isfinite(density)) return LUCID_ERR_ARGUMENT;
    out->com = lucid_vec3_zero();
    switch (s->kind) {
        case LUCID_SHAPE_SPHERE: {
            double r = s->radius, m = density * 4.0 / 3.0 * pi * r * r * r;
            out->mass = m;
            out->inertia = diagonal(0.4 * m * r * r, 0.4 * m * r * r, 0.4 * m * r * r);
            return LUCID_OK;
        }
        case LUCID_SHAPE_ELLIPSOID: {
            lucid_vec3 r = s->u.radii;
            double m = density * 4.0 / 3.0 * pi * r.x * r.y * r.z;
            out->mass = m;
            out->inertia =
                diagonal(0.2 * m * (r.y * r.y + r.z * r.z), 0.2 * m * (r.x * r.x + r.z * r.z),
                         0.2 * m * (r.x * r.x + r.y * r.y));
            return LUCID_OK;
        }
        case LUCID_SHAPE_BOX: {
            lucid_vec3 h = s->u.half_extents;
            double m = density * 8.0 * h.x * h.y * h.z;
            out->mass = m;
            out->inertia =
                diagonal(m * (h.y * h.y + h.z * h.z) / 3.0, m * (h.x * h.x + h.z * h.z) / 3.0,
                         m * (h.x * h.x + h.y * h.y) / 3.0);
            return LUCID_OK;
        }
        case LUCID_SHAPE_CAPSULE: {
            /* cylinder of length 2h plus two hemispheres; a hemisphere's inertia about a
             * diameter of its base is 2/5 M r^2, its centroid 3r/8 from the base */
            double r = s->radius, h = s->u.half_length;
            double mc = density * pi * r * r * 2.0 * h, ms = density * 4.0 / 3.0 * pi * r * r * r;
            double ix =
                mc * (r * r / 4.0 + h * h / 3.0) + ms * (0.4 * r * r + h * h + 0.75 * h * r);
            double iz = mc * r * r / 2.0 + ms * 0.4 * r * r;
            out->mass = mc + ms;
            out->inertia = diagonal(ix, ix, iz);
            return LUCID_OK;
        }
        case LUCID_SHAPE_CYLINDER: {
            double r = s->u.round.radius, h = s->u.round.half_length;
            double m = density * pi * r * r * 2.0 * h, ix = m * (r * r / 4.0 + h * h / 3.0);
            out->mass = m;
            out->inertia = diagonal(ix, ix, m * r * r / 2.0);
            return LUCID_OK;
        }
        case LUCID_SHAPE_CONE: {
            /* height H = 2h, apex at +h: the centroid is H/4 above the base, at z = -h/2 */
            double r = s->u.round.radius, H = 2.0 * s->u.round.half_length;
            double m = density * pi * r * r * H / 3.0;
            double ix = m * (3.0 / 20.0 * r * r + 3.0 / 80.0 * H * H);
            out->mass = m;
            out->com = lucid_vec3_make(0.0, 0.0, -0.25 * H);
            out->inertia = diagonal(ix, ix, 0.3 * m * r * r);
            return LUCID_OK;
        }
        case LUCID_SHAPE_CONVEX:
            if (!s->u.mesh || s->u.mesh->num_vertices < 4) return LUCID_ERR_ARGUMENT;
            mesh_properties(s->u.mesh, density, out);
            return LUCID_OK;
        case LUCID_SHAPE_HALFSPACE:
        case LUCID_SHAPE_HEIGHTFIELD: /* unbounded / static only: no mass */
            break;
    }
    return LUCID_ERR_ARGUMENT;
}

lucid_mass_properties lucid_mass_properties_transform(const lucid_mass_properties *p,
                                                      const lucid_se3 *T) {
    lucid_mass_properties q;
    q.mass = p->mass;
    q.com = lucid_se3_act(T, p->com);
    lucid_mat3 RI = lucid_mat3_mul(&T->R, &p->inertia);
    lucid_mat3 Rt = lucid_mat3_transpose(&T->R);
    q.inertia = lucid_mat3_mul(&RI, &Rt);
    return q;
}

/* Inertia of a point mass m at offset d: m (|d|^2 Id - d d^T). */
static lucid_mat3 point_inertia(double m, lucid_vec3 d) {
    lucid_mat3 I = lucid_mat3_identity();
    I = lucid_mat3_scale(&I, lucid_vec3_norm2(d));
    lucid_mat3 dd = lucid_mat3_outer(d, d);
    I = lucid_mat3_sub(&I, &dd);
    return lucid_mat3_scale(&I, m);
}

lucid_status lucid_mass_properties_combine(const lucid_mass_properties *parts, int n,
                                           lucid_mass_properties *out) {
    if (!parts || !out || n < 1) return LUCID_ERR_ARGUMENT;
    double mass = 0.0;
    lucid_vec3 first = lucid_vec3_zero();
    for (int i = 0; i < n; ++i) {
        mass += parts[i].mass;
        first = lucid_vec3_axpy(first, parts[i].mass, parts[i].com);
    }
    if (!(mass > 0.0) || !isfinite(mass)) return LUCID_ERR_ARGUMENT;
    lucid_vec3 com = lucid_vec3_scale(first, 1.0 / mass);
    lucid_mat3 I = lucid_mat3_zero();
    for (int i = 0; i < n; ++i) {
        lucid_mat3 shift = point_inertia(parts[i].mass, lucid_vec3_sub(parts[i].com, com));
        I = lucid_mat3_add(&I, &parts[i].inertia);
        I = lucid_mat3_add(&I, &shift);
    }
    out->mass = mass, out->com = com, out->inertia = I;
    return LUCID_OK;
}
