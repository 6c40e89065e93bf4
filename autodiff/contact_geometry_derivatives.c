/* Contact-geometry derivatives (contact_geometry_derivatives.h): the rules per pair kind. */
#include "autodiff/contact_geometry_derivatives.h"

#include <math.h>
#include <string.h>

#include "autodiff/ad_distance.h"
#include "autodiff/collision_derivatives_hessians.h"
#include "solvers/collision/contact_patch.h"
#include "runtime/math/se3.h"
#include "runtime/math/so3.h"
#include "runtime/shapes/convex_mesh.h"

/* M[:, col..col+2] += A (M 3 x 12 column-major). */
static void add_block(double *M, int col, const lucid_mat3 *A) {
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) M[i + 3 * (col + j)] += A->m[i + 3 * j];
}

/* M[:, off..off+5] += s d(p)/d(xi) for the world point p rigid with pose T: [R, -hat(p - t) R]. */
static void add_rigid(double *M, int off, const lucid_se3 *T, lucid_vec3 p, double s) {
    lucid_mat3 H = lucid_mat3_hat(lucid_vec3_sub(p, T->t));
    lucid_mat3 HR = lucid_mat3_mul(&H, &T->R);
    lucid_mat3 A = lucid_mat3_scale(&T->R, s), B = lucid_mat3_scale(&HR, -s);
    add_block(M, off, &A);
    add_block(M, off + 3, &B);
}

/* dphi = n . (V2(p2) - V1(p1)), the witnesses as material points (envelope theorem). */
static void separation_rows(const lucid_se3 *T1, const lucid_se3 *T2,
                            const lucid_contact_geometry *g, double *dphi) {
    lucid_vec3 n = g->normal;
    lucid_vec3 p1 = lucid_vec3_axpy(g->point, -0.5 * g->separation, n);
    lucid_vec3 p2 = lucid_vec3_axpy(g->point, 0.5 * g->separation, n);
    double V[36] = {0};
    add_rigid(V, 0, T1, p1, -1.0);
    add_rigid(V, 6, T2, p2, 1.0);
    for (int c = 0; c < 12; ++c) dphi[c] = n.x * V[3 * c] + n.y * V[1 + 3 * c] + n.z * V[2 + 3 * c];
}

/* ---- halfspace pairs ------------------------------------------------------------------- */

/* Whether the world point q is a vertex of the box or convex mesh s at T (within 1e-7 m). */
static int is_vertex(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 q) {
    lucid_vec3 ql = lucid_mat3_tmul_vec(&T->R, lucid_vec3_sub(q, T->t));
    if (s->radius != 0.0) return 0;
    if (s->kind == LUCID_SHAPE_CONVEX) {
        for (int k = 0; k < s->u.mesh->num_vertices; ++k)
            if (lucid_vec3_dist(ql, s->u.mesh->vertices[k]) <= 1e-7) return 1;
        return 0;
    }
    if (s->kind != LUCID_SHAPE_BOX) return 0;
    for (int i = 0; i < 3; ++i)
        if (fabs(fabs(lucid_vec3_get(ql, i)) - lucid_vec3_get(s->u.half_extents, i)) > 1e-7)
            return 0;
    return 1;
}

/* Whether the world point q is on a rim of the cylinder s at T, or on the cone's base rim
 * (within 1e-7 m). */
static int on_rim(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 q) {
    if (s->kind != LUCID_SHAPE_CYLINDER && s->kind != LUCID_SHAPE_CONE) return 0;
    lucid_vec3 ql = lucid_mat3_tmul_vec(&T->R, lucid_vec3_sub(q, T->t));
    double h = s->u.round.half_length, r = s->u.round.radius;
    double z = s->kind == LUCID_SHAPE_CONE ? ql.z + h : fabs(ql.z) - h;
    return fabs(z) <= 1e-7 && fabs(hypot(ql.x, ql.y) - r) <= 1e-7;
}

/* K where the shape has no exact curvature at l and no estimator is given: the rules that are
 * exact all the same (q the witness, on s at T); *exact = 0 where none applies, 2 for a point
 * off the support (its slide is not tangent to the plane). */
static lucid_mat3 rule_hessian(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 q, lucid_vec3 l,
                               int patch, int *exact) {
    lucid_mat3 K = lucid_mat3_zero();
    *exact = 1;
    /* a vertex: rigid (a point clipped on an edge would slide along it) */
    if (is_vertex(s, T, q)) return K;
    if (s->kind == LUCID_SHAPE_CAPSULE || s->kind == LUCID_SHAPE_SPHERE) {
        /* a tied core (the segment's end points) plus the radius along the direction */
        lucid_mat3 I = lucid_mat3_identity(), P = lucid_mat3_outer(l, l);
        P = lucid_mat3_sub(&I, &P);
        return lucid_mat3_scale(&P, s->radius);
    }
    if (s->kind == LUCID_SHAPE_CONE) { /* its apex: a vertex, rigid */
        lucid_vec3 ql = lucid_mat3_tmul_vec(&T->R, lucid_vec3_sub(q, T->t));
        if (lucid_vec3_dist(ql, lucid_vec3_make(0, 0, s->u.round.half_length)) <= 1e-7) return K;
    }
    if (on_rim(s, T, q)) {
        /* a cap's patch: the vertices of its inscribed polygon, rigid; a cylinder's or a
         * cone's rim points beyond it (its support point, plane_vertices.h's: the side
         * segment's ends of a lying cylinder, a tilted cap's or base's tripod) sit at a fixed
         * angle a from m = l_xy / |l_xy| and slide round the rim with it:
         * q = (r Rz(a) m, z), K = r Rz(a) (P - m m^T) / |l_xy| */
        double rho = hypot(l.x, l.y);
        if (rho <= fabs(l.z) * tan(LUCID_PATCH_ANGULAR_TOLERANCE)) {
            if (patch) return K;
        } else {
            lucid_vec3 m = lucid_vec3_make(l.x / rho, l.y / rho, 0.0);
            lucid_vec3 ql = lucid_mat3_tmul_vec(&T->R, lucid_vec3_sub(q, T->t));
            double r = s->u.round.radius, ca = (ql.x * m.x + ql.y * m.y) / r,
                   sa = (m.x * ql.y - m.y * ql.x) / r;
            lucid_mat3 P = lucid_mat3_diag(lucid_vec3_make(1.0, 1.0, 0.0)),
                       mm = lucid_mat3_outer(m, m), Rz = lucid_mat3_identity();
            P = lucid_mat3_sub(&P, &mm);
            Rz.m[0] = ca, Rz.m[1] = sa, Rz.m[3] = -sa, Rz.m[4] = ca; /* column-major */
            K = lucid_mat3_mul(&Rz, &P);
            /* off the support (a != 0) the slide moves the separation too */
            if (fabs(sa) > 1e-9 || ca < 0.0) *exact = 2;
            return lucid_mat3_scale(&K, r / rho);
        }
    }
    *exact = 0;
    return K;
}

/* The smoothed K of a first-order estimator at the unit direction l. */
static lucid_status smoothed_hessian(const lucid_shape *s, lucid_vec3 l,
                                     const lucid_derivative_options *e,
                                     lucid_derivative_workspace *ws, lucid_mat3 *K) {
    if (e->method == LUCID_DERIV_FIRST_ORDER_GUMBEL) {
        if (!ws || s->kind != LUCID_SHAPE_CONVEX) return LUCID_ERR_ARGUMENT;
        return lucid_support_hessian_gumbel(s, l, 1.0, e->levels, e->noise, ws, K);
    }
    lucid_rng rng;
    lucid_rng_seed(&rng, e->seed);
    *K = lucid_support_hessian_gaussian(s, l, l, e->samples, e->noise, &rng);
    return LUCID_OK;
}

/* dq (3 x 12) of the other shape's witness q from its support Hessian K (o = 0: shape 1 is
 * the other, at To; h offset of the halfspace's columns; dn the normal's rows; sdir = +-1:
 * the support direction dir = sdir n). */
static void witness_from_hessian(const lucid_se3 *To, int o_off, lucid_vec3 q, lucid_vec3 dir,
                                 const lucid_mat3 *K, const double *dn, double sdir, double *dq) {
    add_rigid(dq, o_off, To, q, 1.0);
    lucid_vec3 l = lucid_mat3_tmul_vec(&To->R, dir);
    lucid_mat3 Hl = lucid_mat3_hat(l), RK = lucid_mat3_mul(&To->R, K);
    lucid_mat3 A = lucid_mat3_mul(&RK, &Hl);
    add_block(dq, o_off + 3, &A); /* -R K (w x l) = R K hat(l) w */
    lucid_mat3 Rt = lucid_mat3_transpose(&To->R), RKRt = lucid_mat3_mul(&RK, &Rt);
    for (int c = 0; c < 12; ++c) { /* R K R^T d(dir), dir = sdir n */
        lucid_vec3 ddir =
            lucid_vec3_scale(lucid_vec3_make(dn[3 * c], dn[1 + 3 * c], dn[2 + 3 * c]), sdir);
        lucid_vec3 v = lucid_mat3_mul_vec(&RKRt, ddir);
        dq[3 * c] += v.x, dq[1 + 3 * c] += v.y, dq[2 + 3 * c] += v.z;
    }
}

static lucid_status pair_query(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                               const lucid_se3 *T2, const lucid_derivative_options *o,
                               lucid_derivative_workspace *ws, double J[120], double y[10]);

/* dq (3 x 12) of the witness q of the shape facing the halfspace (shape 1 when h2), whose
 * support direction is dir = sdir n, d->dnormal filled: the exact support Hessian, the rules
 * of a patch or a vertex, or the estimator e (then d->estimated). */
static lucid_status facing_witness(const lucid_shape *s1, const lucid_se3 *T1,
                                   const lucid_shape *s2, const lucid_se3 *T2, int h2, lucid_vec3 q,
                                   lucid_vec3 dir, double sdir, int patch,
                                   const lucid_derivative_options *e,
                                   lucid_derivative_workspace *ws,
                                   lucid_contact_geometry_derivative *d, double *dq, int *slides) {
    const lucid_shape *so = h2 ? s1 : s2;
    const lucid_se3 *To = h2 ? T1 : T2;
    lucid_vec3 l = lucid_mat3_tmul_vec(&To->R, dir);
    lucid_mat3 K = lucid_mat3_zero();
    int analytic = !patch && lucid_support_hessian_analytic(so, l, &K) == LUCID_OK;
    if (!analytic && (patch || !e)) {
        /* a patch's points are vertices (or a capsule's cap bottoms) rigid with their faces */
        int rule;
        K = rule_hessian(so, To, q, l, patch, &rule);
        if (!rule) return LUCID_ERR_DEGENERATE;
        *slides = rule == 2;
    } else if (!analytic) { /* the caller asked for smoothed derivatives */
        d->estimated = 1;
        if (e->method != LUCID_DERIV_FIRST_ORDER_GAUSSIAN &&
            e->method != LUCID_DERIV_FIRST_ORDER_GUMBEL) {
            double J[120], y[10];
            lucid_status st = pair_query(s1, T1, s2, T2, e, ws, J, y);
            int row = h2 ? 1 : 4; /* the facing shape's witness rows */
            for (int c = 0; st == LUCID_OK && c < 12; ++c)
                for (int i = 0; i < 3; ++i) dq[i + 3 * c] = J[row + i + 10 * c];
            return st;
        }
        lucid_status st = smoothed_hessian(so, l, e, ws, &K);
        if (st != LUCID_OK) return st;
    }
    witness_from_hessian(To, h2 ? 0 : 6, q, dir, &K, d->dnormal, sdir, dq);
    return LUCID_OK;
}

/* A pair whose normal is rigid with one shape (h2: shape 2, else shape 1): a halfspace, or a
 * box's face (face_owner). */
static lucid_status halfspace_pair(const lucid_shape *s1, const lucid_se3 *T1,
                                   const lucid_shape *s2, const lucid_se3 *T2,
                                   const lucid_contact_geometry *g, int patch, int h2,
                                   const lucid_derivative_options *e,
                                   lucid_derivative_workspace *ws,
                                   lucid_contact_geometry_derivative *d) {
    const lucid_se3 *Th = h2 ? T2 : T1;
    int h_off = h2 ? 6 : 0;
    lucid_vec3 n = g->normal;
    /* n rigid with the halfspace: dn = (R w) x n */
    lucid_mat3 Hn = lucid_mat3_hat(n), A = lucid_mat3_mul(&Hn, &Th->R);
    A = lucid_mat3_scale(&A, -1.0);
    add_block(d->dnormal, h_off + 3, &A);
    /* the other shape's witness and its support direction (towards the halfspace) */
    double so_sign = h2 ? 1.0 : -1.0; /* q = p1 (other is shape 1) or p2 */
    lucid_vec3 q = lucid_vec3_axpy(g->point, -0.5 * so_sign * g->separation, n);
    double dq[36] = {0};
    lucid_vec3 dir = lucid_vec3_scale(n, so_sign);
    int slides = 0;
    lucid_status st =
        facing_witness(s1, T1, s2, T2, h2, q, dir, so_sign, patch, e, ws, d, dq, &slides);
    if (st != LUCID_OK) return st;
    separation_rows(T1, T2, g, d->dseparation);
    if (slides) { /* phi = n . (p2 - p1) moves with q's slide dq - V(q) as well */
        double rigid[36] = {0};
        add_rigid(rigid, h2 ? 0 : 6, h2 ? T1 : T2, q, 1.0);
        for (int c = 0; c < 12; ++c)
            for (int i = 0; i < 3; ++i)
                d->dseparation[c] -=
                    so_sign * lucid_vec3_get(n, i) * (dq[i + 3 * c] - rigid[i + 3 * c]);
    }
    /* point = q +- phi/2 n */
    for (int c = 0; c < 12; ++c)
        for (int i = 0; i < 3; ++i)
            d->dpoint[i + 3 * c] = dq[i + 3 * c] + so_sign * 0.5 *
                                                       (lucid_vec3_get(n, i) * d->dseparation[c] +
                                                        g->separation * d->dnormal[i + 3 * c]);
    return LUCID_OK;
}

/* ---- other pairs ------------------------------------------------------------------------ */

/* A flat face of a shape at T that a normal can be rigid with: a box's face (index: its
 * axis), a convex mesh's face (index: the face) or a disc (index -1: a cylinder's cap, a
 * cone's base; centre and radius), with its world outward normal and plane out . x = plane. */
typedef struct flat_face {
    const lucid_shape *s;
    const lucid_se3 *T;
    lucid_vec3 out, centre;
    double plane, radius;
    int index;
} flat_face;

/* The face of s at T whose outward normal is out (within 1e-9); 0 if there is none. */
static int find_face(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 out, flat_face *f) {
    lucid_vec3 nl = lucid_mat3_tmul_vec(&T->R, out);
    double ot = lucid_vec3_dot(out, T->t), cos_tol = 1.0 - 1e-9;
    *f = (flat_face){s, T, out, T->t, 0.0, 0.0, -1};
    if (s->radius != 0.0) return 0;
    if (s->kind == LUCID_SHAPE_BOX) {
        for (int i = 0; i < 3; ++i)
            if (fabs(lucid_vec3_get(nl, i)) > cos_tol)
                return f->index = i, f->plane = ot + lucid_vec3_get(s->u.half_extents, i), 1;
        return 0;
    }
    if (s->kind == LUCID_SHAPE_CONVEX) {
        const lucid_convex_mesh *m = s->u.mesh;
        for (int q = 0; q < m->num_faces; ++q)
            if (lucid_vec3_dot(m->face_normals[q], nl) > cos_tol)
                return f->index = q, f->plane = ot + m->face_offsets_d[q], 1;
        return 0;
    }
    /* a cylinder's caps at z = +-h, a cone's base at z = -h */
    int cyl = s->kind == LUCID_SHAPE_CYLINDER, cone = s->kind == LUCID_SHAPE_CONE;
    if (!(cyl && fabs(nl.z) > cos_tol) && !(cone && nl.z < -cos_tol)) return 0;
    double h = s->u.round.half_length;
    f->centre = lucid_se3_act(T, lucid_vec3_make(0, 0, nl.z > 0 ? h : -h));
    f->radius = s->u.round.radius, f->plane = lucid_vec3_dot(out, f->centre);
    return 1;
}

/* The polygon face's vertex count and its k-th vertex (world, in cyclic order). */
static int face_count(const flat_face *f) {
    if (f->index < 0) return 0;
    if (f->s->kind == LUCID_SHAPE_BOX) return 4;
    return f->s->u.mesh->face_offsets[f->index + 1] - f->s->u.mesh->face_offsets[f->index];
}
static lucid_vec3 face_vertex(const flat_face *f, int k) {
    if (f->s->kind == LUCID_SHAPE_CONVEX) {
        const lucid_convex_mesh *m = f->s->u.mesh;
        return lucid_se3_act(f->T, m->vertices[m->face_vertices[m->face_offsets[f->index] + k]]);
    }
    static const double sj[4] = {1, -1, -1, 1}, sk[4] = {1, 1, -1, -1};
    int a = f->index;
    double c[3];
    lucid_vec3_store(f->s->u.half_extents, c);
    c[a] *= lucid_vec3_get(lucid_mat3_tmul_vec(&f->T->R, f->out), a) > 0 ? 1.0 : -1.0;
    c[(a + 1) % 3] *= sj[k], c[(a + 2) % 3] *= sk[k];
    return lucid_se3_act(f->T, lucid_vec3_load(c));
}

/* Whether the world point p lies on the face, within 1e-7 m of its plane and more than margin
 * inside its boundary (a polygon's edges, a disc's rim). */
static int face_holds(const flat_face *f, lucid_vec3 p, double margin) {
    if (fabs(lucid_vec3_dot(f->out, p) - f->plane) > 1e-7) return 0;
    int n = face_count(f);
    if (n == 0) {
        lucid_vec3 r = lucid_vec3_sub(p, f->centre);
        r = lucid_vec3_axpy(r, -lucid_vec3_dot(r, f->out), f->out);
        return lucid_vec3_norm(r) < f->radius - margin;
    }
    lucid_vec3 mid = lucid_vec3_zero();
    for (int k = 0; k < n; ++k) mid = lucid_vec3_add(mid, face_vertex(f, k));
    mid = lucid_vec3_scale(mid, 1.0 / n);
    for (int k = 0; k < n; ++k) {
        lucid_vec3 a = face_vertex(f, k), b = face_vertex(f, (k + 1) % n);
        lucid_vec3 in = lucid_vec3_normalized(lucid_vec3_cross(f->out, lucid_vec3_sub(b, a)));
        double s = lucid_vec3_dot(in, lucid_vec3_sub(mid, a)) < 0.0 ? -1.0 : 1.0;
        if (!(s * lucid_vec3_dot(in, lucid_vec3_sub(p, a)) > margin)) return 0;
    }
    return 1;
}

/* Whether the face o (outward normal -f.out) projects strictly inside the face f: its
 * vertices, or its disc (centre at least its radius inside), moved onto f's plane. Then the
 * normal of a face-on-face contact is f's, to first order (tilting either shape, the larger
 * face gives the larger separation). */
static int face_contains(const flat_face *f, const flat_face *o) {
    int n = face_count(o);
    for (int k = 0; k < (n ? n : 1); ++k) {
        lucid_vec3 p = n ? face_vertex(o, k) : o->centre;
        p = lucid_vec3_axpy(p, f->plane - lucid_vec3_dot(f->out, p), f->out);
        if (!face_holds(f, p, n ? 1e-9 : o->radius + 1e-9)) return 0;
    }
    return 1;
}

/* Which shape's flat face the normal is rigid with, to first order: 1 or 2, 0 for none. A face
 * holding one witness strictly inside it (the other a vertex, a curved shape's point); two
 * parallel faces: the one containing the other's whole face. */
static int face_owner(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                      const lucid_se3 *T2, const lucid_contact_geometry *g) {
    lucid_vec3 n = g->normal;
    flat_face f1, f2;
    int a1 = find_face(s1, T1, n, &f1), a2 = find_face(s2, T2, lucid_vec3_neg(n), &f2);
    if (a1 && a2) {
        int c1 = face_contains(&f1, &f2), c2 = face_contains(&f2, &f1);
        return c1 != c2 ? (c1 ? 1 : 2) : 0;
    }
    lucid_vec3 p1 = lucid_vec3_axpy(g->point, -0.5 * g->separation, n);
    lucid_vec3 p2 = lucid_vec3_axpy(g->point, 0.5 * g->separation, n);
    if (a1 && face_holds(&f1, p1, 1e-9)) return 1;
    if (a2 && face_holds(&f2, p2, 1e-9)) return 2;
    return 0;
}

/* J (10 x 12: distance, p1, p2, n w.r.t. xi1 then xi2) and y (the query) of the pair. */
static lucid_status pair_query(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                               const lucid_se3 *T2, const lucid_derivative_options *o,
                               lucid_derivative_workspace *ws, double J[120], double y[10]) {
    lucid_distance_derivatives_result r;
    lucid_status st = lucid_distance_derivatives(s1, T1, s2, T2, o, ws, &r);
    if (st != LUCID_OK) return st;
    y[0] = r.query.distance;
    lucid_vec3_store(r.query.p1, y + 1), lucid_vec3_store(r.query.p2, y + 4);
    lucid_vec3_store(r.query.normal, y + 7);
    double *J1 = J, *J2 = J + 60;
    for (int c = 0; c < 6; ++c) {
        J2[10 * c] = r.ddistance[c];
        for (int i = 0; i < 3; ++i) {
            J2[1 + i + 10 * c] = r.dp1[i + 3 * c];
            J2[4 + i + 10 * c] = r.dp2[i + 3 * c];
            J2[7 + i + 10 * c] = r.dnormal[i + 3 * c];
        }
    }
    lucid_ad_distance_t1_jacobian(T1, T2, y, J2, J1);
    return LUCID_OK;
}

/* A contact feature as a swept segment: centre a, unit axis u, half-length h (0: a point),
 * radius r, rigid with the shape's pose T. */
typedef struct core {
    lucid_vec3 a, u;
    double h, r;
    const lucid_se3 *T;
} core;

/* The core of the convex mesh s at T holding the witness at local pl: a vertex (within 1e-7
 * m), or the edge shared by the two faces whose planes hold it (within 1e-7 m); 0 on one face
 * only (the halfspace rule's) or none. */
static int mesh_core(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 pl, core *k) {
    const lucid_convex_mesh *m = s->u.mesh;
    if (s->radius != 0.0) return 0;
    for (int v = 0; v < m->num_vertices; ++v)
        if (lucid_vec3_dist(pl, m->vertices[v]) <= 1e-7)
            return k->a = lucid_se3_act(T, m->vertices[v]), 1;
    int on[2], count = 0;
    for (int q = 0; q < m->num_faces && count < 2; ++q)
        if (fabs(lucid_vec3_dot(m->face_normals[q], pl) - m->face_offsets_d[q]) <= 1e-7)
            on[count++] = q;
    if (count < 2) return 0;
    lucid_vec3 end[2];
    int ends = 0; /* the edge's ends: the vertices on both planes */
    for (int v = 0; v < m->num_vertices && ends <= 2; ++v) {
        lucid_vec3 x = m->vertices[v];
        if (fabs(lucid_vec3_dot(m->face_normals[on[0]], x) - m->face_offsets_d[on[0]]) <= 1e-7 &&
            fabs(lucid_vec3_dot(m->face_normals[on[1]], x) - m->face_offsets_d[on[1]]) <= 1e-7) {
            if (ends == 2) return 0;
            end[ends++] = x;
        }
    }
    if (ends != 2) return 0;
    lucid_vec3 e = lucid_vec3_sub(end[1], end[0]);
    k->a = lucid_se3_act(T, lucid_vec3_scale(lucid_vec3_add(end[0], end[1]), 0.5));
    k->u = lucid_mat3_mul_vec(&T->R, lucid_vec3_normalized(e));
    k->h = 0.5 * lucid_vec3_norm(e);
    return 1;
}

/* The core of shape s at T holding its witness p: a sphere's centre, a capsule's segment, a
 * cylinder's axis at radius r (p on its side, off the rims), a box's or a convex mesh's edge or
 * vertex (its witness on 2 or 3 of its faces); 0 for anything else (a face is the halfspace
 * rule's, a rim has no core). */
static int witness_core(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 p, core *k) {
    *k = (core){T->t, lucid_mat3_col(&T->R, 2), 0.0, s->radius, T};
    if (s->kind == LUCID_SHAPE_SPHERE) return 1;
    if (s->kind == LUCID_SHAPE_CAPSULE) return k->h = s->u.half_length, 1;
    lucid_vec3 pl = lucid_mat3_tmul_vec(&T->R, lucid_vec3_sub(p, T->t));
    if (s->kind == LUCID_SHAPE_CYLINDER) { /* its side, off the rims: the axis at radius r */
        double h = s->u.round.half_length, r = s->u.round.radius;
        k->h = h, k->r = r;
        return fabs(pl.z) < h - 1e-9 && fabs(hypot(pl.x, pl.y) - r) <= 1e-7;
    }
    if (s->kind == LUCID_SHAPE_CONVEX) return mesh_core(s, T, pl, k);
    if (s->kind != LUCID_SHAPE_BOX || s->radius != 0.0) return 0;
    double c[3];
    int free_axis = -1, on = 0;
    for (int i = 0; i < 3; ++i) {
        double h = lucid_vec3_get(s->u.half_extents, i), x = lucid_vec3_get(pl, i);
        int at = fabs(fabs(x) - h) <= 1e-7;
        on += at;
        c[i] = at ? (x > 0 ? h : -h) : 0.0;
        if (!at) free_axis = i;
    }
    if (on < 2) return 0;
    k->a = lucid_se3_act(T, lucid_vec3_load(c));
    if (on == 2)
        k->u = lucid_mat3_col(&T->R, free_axis),
        k->h = lucid_vec3_get(s->u.half_extents, free_axis);
    return 1;
}

/* Two cores whose closest points are not both rigid (not both ends or points: the analytic
 * rule's case, or a box's vertex against a vertex): c_i = a_i + t_i u_i, a point inside a
 * segment sliding on it (free), an end or a point rigid. d(w . u_i) = 0 for the free ones
 * (w = c2 - c1; both free: 2 x 2 with determinant 1 - (u1.u2)^2, the axes not parallel), then
 * n = sigma w / |w| (sigma the sign of the cores' distance) and p_i = c_i -+ r_i n. */
static int core_pair(const core *k1, const core *k2, const lucid_contact_geometry *g, int rigid_ok,
                     lucid_contact_geometry_derivative *d) {
    lucid_vec3 n = g->normal, u1 = k1->u, u2 = k2->u;
    double c = lucid_vec3_dot(u1, u2), det = 1.0 - c * c;
    lucid_vec3 c1 = lucid_vec3_axpy(g->point, -0.5 * g->separation - k1->r, n);
    lucid_vec3 c2 = lucid_vec3_axpy(g->point, 0.5 * g->separation + k2->r, n);
    double t1 = lucid_vec3_dot(lucid_vec3_sub(c1, k1->a), u1);
    double t2 = lucid_vec3_dot(lucid_vec3_sub(c2, k2->a), u2);
    int free1 = fabs(t1) < k1->h - 1e-9, free2 = fabs(t2) < k2->h - 1e-9;
    lucid_vec3 w = lucid_vec3_sub(c2, c1);
    double D = lucid_vec3_norm(w), sigma = lucid_vec3_dot(w, n) < 0.0 ? -1.0 : 1.0;
    if (!(free1 || free2 || rigid_ok) || !(D > 1e-9) || (free1 && free2 && !(det > 1e-6))) return 0;
    if (!free1) t1 = k1->h > 0.0 ? (t1 > 0 ? k1->h : -k1->h) : 0.0; /* an end, exactly */
    if (!free2) t2 = k2->h > 0.0 ? (t2 > 0 ? k2->h : -k2->h) : 0.0;
    for (int col = 0; col < 12; ++col) {
        /* one unit twist coordinate of one body: its core's centre and axis move rigidly */
        const core *k = col < 6 ? k1 : k2;
        lucid_vec3 z = lucid_vec3_zero(), da, du = z;
        if (col % 6 < 3) {
            da = lucid_mat3_col(&k->T->R, col % 6);
        } else {
            lucid_vec3 e = lucid_mat3_col(&k->T->R, col % 6 - 3); /* R w for a unit w */
            da = lucid_vec3_cross(e, lucid_vec3_sub(k->a, k->T->t));
            du = lucid_vec3_cross(e, k->u);
        }
        lucid_vec3 da1 = col < 6 ? da : z, du1 = col < 6 ? du : z;
        lucid_vec3 da2 = col < 6 ? z : da, du2 = col < 6 ? z : du;
        /* b = the change of w at fixed t: da2 + t2 du2 - da1 - t1 du1 */
        lucid_vec3 b = lucid_vec3_sub(lucid_vec3_axpy(da2, t2, du2), lucid_vec3_axpy(da1, t1, du1));
        double f1 = -lucid_vec3_dot(b, u1) - lucid_vec3_dot(w, du1);
        double f2 = -lucid_vec3_dot(b, u2) - lucid_vec3_dot(w, du2);
        /* free1: c dt2 - dt1 = f1; free2: dt2 - c dt1 = f2 */
        double dt1 = free1 && free2 ? (c * f2 - f1) / det : free1 ? -f1 : 0.0;
        double dt2 = free1 && free2 ? (f2 - c * f1) / det : free2 ? f2 : 0.0;
        lucid_vec3 dc1 = lucid_vec3_axpy(lucid_vec3_axpy(da1, dt1, u1), t1, du1);
        lucid_vec3 dc2 = lucid_vec3_axpy(lucid_vec3_axpy(da2, dt2, u2), t2, du2);
        lucid_vec3 dw = lucid_vec3_sub(dc2, dc1);
        lucid_vec3 dn = lucid_vec3_scale(lucid_vec3_axpy(dw, -lucid_vec3_dot(n, dw), n), sigma / D);
        lucid_vec3 dp = lucid_vec3_axpy(lucid_vec3_scale(lucid_vec3_add(dc1, dc2), 0.5),
                                        0.5 * (k1->r - k2->r), dn);
        lucid_vec3_store(dn, d->dnormal + 3 * col), lucid_vec3_store(dp, d->dpoint + 3 * col);
        d->dseparation[col] = lucid_vec3_dot(n, dw);
    }
    return 1;
}

/* core_pair where both witnesses lie on cores (swept shapes, cylinder sides, polytope edges and
 * vertices); rigid_ok: also two ends or points (two capsules' end points, lucid_capsule_ends). */
static int swept_cores(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                       const lucid_se3 *T2, const lucid_contact_geometry *g, int rigid_ok,
                       lucid_contact_geometry_derivative *d) {
    core k1, k2;
    lucid_vec3 p1 = lucid_vec3_axpy(g->point, -0.5 * g->separation, g->normal);
    lucid_vec3 p2 = lucid_vec3_axpy(g->point, 0.5 * g->separation, g->normal);
    return witness_core(s1, T1, p1, &k1) && witness_core(s2, T2, p2, &k2) &&
           core_pair(&k1, &k2, g, rigid_ok, d);
}

static lucid_status shape_pair(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                               const lucid_se3 *T2, const lucid_contact_geometry *g, int patch,
                               const lucid_derivative_options *e, lucid_derivative_workspace *ws,
                               lucid_contact_geometry_derivative *d) {
    /* two capsules' several points (parallel segments clipped, or each end against the
     * other's segment: plane_vertices.h) are each a pair of cores with its own normal */
    int capsules = s1->kind == LUCID_SHAPE_CAPSULE && s2->kind == LUCID_SHAPE_CAPSULE;
    if ((!patch || capsules) && swept_cores(s1, T1, s2, T2, g, patch && capsules, d))
        return LUCID_OK;
    lucid_derivative_options analytic;
    lucid_derivative_options_default(&analytic);
    analytic.method = LUCID_DERIV_ANALYTIC;
    double J[120], y[10];
    lucid_status st = pair_query(s1, T1, s2, T2, &analytic, NULL, J, y);
    if (st == LUCID_ERR_ARGUMENT || st == LUCID_ERR_DEGENERATE || st == LUCID_ERR_SINGULAR) {
        if (!e) return LUCID_ERR_DEGENERATE;
        d->estimated = 1;
        st = pair_query(s1, T1, s2, T2, e, ws, J, y);
    }
    if (st != LUCID_OK) return st;
    for (int c = 0; c < 12; ++c)
        for (int i = 0; i < 3; ++i) {
            d->dnormal[i + 3 * c] = J[7 + i + 10 * c];
            d->dpoint[i + 3 * c] = patch ? 0.0 : 0.5 * (J[1 + i + 10 * c] + J[4 + i + 10 * c]);
        }
    if (patch) { /* each witness rigid with its body */
        lucid_vec3 n = g->normal;
        add_rigid(d->dpoint, 0, T1, lucid_vec3_axpy(g->point, -0.5 * g->separation, n), 0.5);
        add_rigid(d->dpoint, 6, T2, lucid_vec3_axpy(g->point, 0.5 * g->separation, n), 0.5);
    }
    separation_rows(T1, T2, g, d->dseparation);
    return LUCID_OK;
}

lucid_status lucid_contact_geometry_derivatives(const lucid_shape *s1, const lucid_se3 *T1,
                                                const lucid_shape *s2, const lucid_se3 *T2,
                                                const lucid_contact_geometry *g, int patch,
                                                const lucid_derivative_options *estimator,
                                                lucid_derivative_workspace *ws,
                                                lucid_contact_geometry_derivative *d) {
    if (!s1 || !T1 || !s2 || !T2 || !g || !d) return LUCID_ERR_ARGUMENT;
    memset(d, 0, sizeof *d);
    int h1 = s1->kind == LUCID_SHAPE_HALFSPACE, h2 = s2->kind == LUCID_SHAPE_HALFSPACE;
    if (h1 && h2) return LUCID_ERR_ARGUMENT;
    /* a height field is not convex: its contact belongs to one of its prisms, which the
     * caller passes instead (the world's step derivatives do) */
    if (s1->kind == LUCID_SHAPE_HEIGHTFIELD || s2->kind == LUCID_SHAPE_HEIGHTFIELD)
        return LUCID_ERR_ARGUMENT;
    if (h1 || h2) return halfspace_pair(s1, T1, s2, T2, g, patch, h2, estimator, ws, d);
    int owner = face_owner(s1, T1, s2, T2, g); /* a flat face acting as a halfspace */
    if (owner) return halfspace_pair(s1, T1, s2, T2, g, patch, owner == 2, estimator, ws, d);
    return shape_pair(s1, T1, s2, T2, g, patch, estimator, ws, d);
}

void lucid_contact_geometry_rigid(const lucid_se3 *T1, const lucid_se3 *T2,
                                  const lucid_contact_geometry *g, int normal_shape,
                                  lucid_contact_geometry_derivative *d) {
    memset(d, 0, sizeof *d);
    lucid_vec3 n = g->normal;
    const lucid_se3 *Tn = normal_shape == 2 ? T2 : T1;
    lucid_mat3 Hn = lucid_mat3_hat(n), A = lucid_mat3_mul(&Hn, &Tn->R);
    A = lucid_mat3_scale(&A, -1.0);
    add_block(d->dnormal, normal_shape == 2 ? 9 : 3, &A);
    add_rigid(d->dpoint, 0, T1, lucid_vec3_axpy(g->point, -0.5 * g->separation, n), 0.5);
    add_rigid(d->dpoint, 6, T2, lucid_vec3_axpy(g->point, 0.5 * g->separation, n), 0.5);
    separation_rows(T1, T2, g, d->dseparation);
}

void lucid_contact_geometry_twist(const lucid_se3 *T0, const lucid_se3 *T, double xi[6]) {
    lucid_se3 D = lucid_se3_between(T0, T);
    lucid_vec3_store(D.t, xi);
    const double *m = D.R.m; /* column-major: (i, j) at [i + 3 j] */
    xi[3] = 0.5 * (m[5] - m[7]), xi[4] = 0.5 * (m[6] - m[2]), xi[5] = 0.5 * (m[1] - m[3]);
}

void lucid_contact_geometry_twist_part(const lucid_se3 *P, const double xi_body[6], double xi[6]) {
    /* exp(xi) of the body seen from the part: P^-1 exp(xi) P = exp(Ad_{P^-1} xi),
     * Ad_{P^-1} = [[R^T, -R^T hat(t)], [0, R^T]] */
    lucid_vec3 v = lucid_vec3_load(xi_body), w = lucid_vec3_load(xi_body + 3);
    lucid_vec3 vw = lucid_vec3_sub(v, lucid_vec3_cross(P->t, w));
    lucid_vec3_store(lucid_mat3_tmul_vec(&P->R, vw), xi);
    lucid_vec3_store(lucid_mat3_tmul_vec(&P->R, w), xi + 3);
}

void lucid_contact_geometry_predict(const lucid_contact_geometry *g0,
                                    const lucid_contact_geometry_derivative *d, const double xi1[6],
                                    const double xi2[6], lucid_contact_geometry *g) {
    double p[3], n[3], phi = g0->separation;
    lucid_vec3_store(g0->point, p), lucid_vec3_store(g0->normal, n);
    for (int c = 0; c < 12; ++c) {
        double x = c < 6 ? xi1[c] : xi2[c - 6];
        if (x == 0.0) continue;
        for (int i = 0; i < 3; ++i)
            p[i] += d->dpoint[i + 3 * c] * x, n[i] += d->dnormal[i + 3 * c] * x;
        phi += d->dseparation[c] * x;
    }
    g->point = lucid_vec3_load(p);
    g->normal = lucid_vec3_normalized(lucid_vec3_load(n));
    g->separation = phi;
}
