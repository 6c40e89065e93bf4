/* Contact generation: body boxes, the broad phase, then per shape pair the signed distance
 * (GJK/EPA, closed form for halfspaces) and the contact patch, so that resting faces get
 * several points. Contacts are generated for gaps below the margin (speculative contacts). */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "solvers/collision/contact_patch.h"
#include "solvers/collision/plane_vertices.h"
#include "runtime/shapes/heightfield.h"
#include "runtime/world/world_internal.h"

/* GJK duality gap (m^2): the default 1e-8 only bounds the witness error by 1e-4 m, which
 * leaves the normal of a millimetre gap undetermined; polytopes terminate exactly anyway. */
#define GJK_TOLERANCE 1e-16
/* m: a GJK/EPA normal is accepted when the separation along it matches the distance. */
#define NORMAL_CHECK_TOLERANCE 1e-7
/* m: a shifted round (checked_distance) that gains less separation than EPA's default depth
 * tolerance (epa_tol) ends the refinement. */
#define SHIFT_TOLERANCE 1e-9
/* a cap on the rounds of the shifted query: each shrinks the normal's error on a curved
 * contact by about shift / (shift + radius of curvature), the separation's error with its
 * square, so the tolerance ends them long before */
#define SHIFT_ROUNDS 16

static lucid_se3 part_pose(const lucid_body *b, const lucid_body_part *p) {
    return lucid_se3_compose(&b->pose, &p->pose);
}

static void part_box(const lucid_body *b, const lucid_body_part *p, double pad, lucid_vec3 *lo,
                     lucid_vec3 *hi) {
    lucid_se3 T = part_pose(b, p);
    lucid_shape_aabb(&p->shape, &T, lo, hi);
    lucid_vec3 d = lucid_vec3_make(pad, pad, pad);
    *lo = lucid_vec3_sub(*lo, d), *hi = lucid_vec3_add(*hi, d);
}

static lucid_status body_boxes(lucid_world *w, const double *extra) {
    size_t n = (size_t)w->num_bodies;
    lucid_status s = LUCID_RESERVE(w, d.aabb_lo, n);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.aabb_hi, n);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.is_static, n);
    if (s != LUCID_OK) return s;
    double pad = 0.5 * w->opt.margin;
    for (int i = 0; i < w->num_bodies; ++i) {
        const lucid_body *b = &w->bodies[i];
        lucid_vec3 lo = lucid_vec3_make(INFINITY, INFINITY, INFINITY);
        lucid_vec3 hi = lucid_vec3_neg(lo);
        for (int k = 0; k < b->num_parts; ++k) {
            lucid_vec3 plo, phi;
            double grow = pad + w->part_contact[b->part_begin + k].reach;
            part_box(b, &w->parts[b->part_begin + k], grow + (extra ? extra[i] : 0.0), &plo, &phi);
            lo = lucid_vec3_make(fmin(lo.x, plo.x), fmin(lo.y, plo.y), fmin(lo.z, plo.z));
            hi = lucid_vec3_make(fmax(hi.x, phi.x), fmax(hi.y, phi.y), fmax(hi.z, phi.z));
        }
        w->d.aabb_lo[i] = lo, w->d.aabb_hi[i] = hi;
        w->d.is_static[i] = (unsigned char)b->is_static;
    }
    return LUCID_OK;
}

static int boxes_overlap(lucid_vec3 alo, lucid_vec3 ahi, lucid_vec3 blo, lucid_vec3 bhi) {
    return alo.x <= bhi.x && blo.x <= ahi.x && alo.y <= bhi.y && blo.y <= ahi.y && alo.z <= bhi.z &&
           blo.z <= ahi.z;
}

lucid_mat3 lucid_world_contact_frame(lucid_vec3 n) {
    lucid_vec3 t1 = lucid_vec3_any_orthogonal(n);
    lucid_vec3 t2 = lucid_vec3_cross(n, t1);
    return lucid_mat3_from_cols(t1, t2, n);
}

lucid_status lucid_world_push_contact(lucid_world *w, const lucid_world_contact *c) {
    if (w->d.num_contacts == INT_MAX) return LUCID_ERR_NO_MEMORY;
    lucid_status s = LUCID_RESERVE(w, d.contacts, (size_t)w->d.num_contacts + 1);
    if (s != LUCID_OK) return s;
    w->d.contacts[w->d.num_contacts++] = *c;
    return LUCID_OK;
}

/* World support point of a posed shape in direction dir. */
static lucid_vec3 world_support(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 dir) {
    lucid_vec3 local = lucid_shape_support(s, lucid_mat3_tmul_vec(&T->R, dir), NULL);
    return lucid_se3_act(T, local);
}

/* Separation of the two shapes along the unit direction n: min over shape 2 of n.x minus max
 * over shape 1. The signed distance is the maximum of this over all n, reached at the true
 * contact normal, so it certifies (or refutes) a normal computed by GJK/EPA. */
static double separation_along(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                               const lucid_se3 *T2, lucid_vec3 n) {
    return lucid_vec3_dot(n, world_support(s2, T2, lucid_vec3_neg(n))) -
           lucid_vec3_dot(n, world_support(s1, T1, n));
}

static lucid_vec3 box_centre(const lucid_shape *s, const lucid_se3 *T) {
    lucid_vec3 lo, hi;
    lucid_shape_aabb(s, T, &lo, &hi);
    return lucid_vec3_scale(lucid_vec3_add(lo, hi), 0.5);
}

/* Signed distance with a normal that is checked against the support functions. At (near)
 * touching configurations GJK can report an overlap whose EPA fails (its start simplex is flat
 * to round-off), leaving a normal that its own separation refutes. The query is then repeated
 * with shape 2 moved away from shape 1 by `shift` along the best normal so far (first the line
 * of the box centres): a clearly separated, well-conditioned query whose closest points are
 * the touching ones when that normal is the contact normal, and whose normal is nearer it
 * otherwise (by about shift / (shift + radii of curvature) on curved shapes). Each round keeps
 * the normal with the larger separation (d = max_n separation_along(n), which is second order
 * in the normal's error) until a round gains no more than SHIFT_TOLERANCE. */
static lucid_status checked_distance(const lucid_shape *s1, const lucid_se3 *T1,
                                     const lucid_shape *s2, const lucid_se3 *T2, double shift,
                                     lucid_distance_result *d) {
    lucid_gjk_options go;
    lucid_gjk_options_default(&go);
    go.tol = GJK_TOLERANCE;
    lucid_status s = lucid_distance(s1, T1, s2, T2, &go, d);
    if (s != LUCID_OK || s1->kind == LUCID_SHAPE_HALFSPACE || s2->kind == LUCID_SHAPE_HALFSPACE)
        return s;
    double sep = separation_along(s1, T1, s2, T2, d->normal);
    if (fabs(sep - d->distance) <= NORMAL_CHECK_TOLERANCE) return LUCID_OK;
    lucid_vec3 u = lucid_vec3_sub(box_centre(s2, T2), box_centre(s1, T1));
    u = lucid_vec3_norm(u) > 0.0 ? lucid_vec3_normalized(u) : d->normal;
    for (int round = 0; round < SHIFT_ROUNDS; ++round) {
        lucid_se3 moved = *T2;
        moved.t = lucid_vec3_axpy(T2->t, shift, u);
        lucid_distance_result e;
        s = lucid_distance(s1, T1, s2, &moved, &go, &e);
        if (s != LUCID_OK) return s;
        double sep2 = separation_along(s1, T1, s2, T2, e.normal);
        if (!(sep2 > sep + (round > 0 ? SHIFT_TOLERANCE : 0.0))) {
            if (sep2 > sep) d->normal = e.normal, sep = sep2;
            break;
        }
        d->normal = u = e.normal, sep = sep2;
    }
    d->distance = sep;
    d->p1 = world_support(s1, T1, d->normal);
    d->p2 = lucid_vec3_axpy(d->p1, sep, d->normal);
    return LUCID_OK;
}

static int vertex_or_edge(lucid_patch_feature f) {
    return f == LUCID_FEATURE_POINT || f == LUCID_FEATURE_SEGMENT;
}

/* Shapes whose vertices (plane_vertices.h) land on a face: a box's corners, a capsule's ends,
 * a lying cylinder's rim points. */
static int curved_or_box(const lucid_shape *s) {
    return s->kind == LUCID_SHAPE_BOX || s->kind == LUCID_SHAPE_CAPSULE ||
           s->kind == LUCID_SHAPE_CYLINDER || s->kind == LUCID_SHAPE_CONE;
}

/* A box or a convex mesh: a shape whose faces lucid_face_vertices takes. */
static int polytope(const lucid_shape *s) {
    return s->kind == LUCID_SHAPE_BOX || s->kind == LUCID_SHAPE_CONVEX;
}

/* Whether the patch is a box's or convex mesh's vertex or edge on a halfspace, or (when
 * `faces`) a box's on a box's or convex mesh's face, where plane_vertices.h gives the points. */
static int vertex_or_edge_on_face(const lucid_shape *s1, const lucid_shape *s2,
                                  const lucid_contact_patch_result *patch, int faces) {
    if (lucid_plane_vertices_apply(s1, s2))
        return vertex_or_edge(s1->kind == LUCID_SHAPE_HALFSPACE ? patch->feature2
                                                                : patch->feature1);
    if (!faces || !lucid_face_vertices_apply(s1, s2)) return 0;
    /* on a face, only a box's corners: a rounded mesh (a fingertip) would bring its few
     * deepest vertices, clustered, where its single witness point does (near-duplicate contacts
     * that stall ADMM); the face a polytope's (a box
     * corner on a cylinder's or cone's flat cap keeps the patch: lucid_face_vertices needs a
     * polytope's face) */
    return (patch->feature1 == LUCID_FEATURE_POLYGON && polytope(s1) &&
            vertex_or_edge(patch->feature2) && curved_or_box(s2)) ||
           (patch->feature2 == LUCID_FEATURE_POLYGON && polytope(s2) &&
            vertex_or_edge(patch->feature1) && curved_or_box(s1));
}

/* The radius of the curved features whose points lucid_face_vertices gives (a capsule's end
 * spheres, a cylinder's or cone's rim); 0 for a polytope's corners. */
static double feature_radius(const lucid_shape *s) {
    if (s->kind == LUCID_SHAPE_CAPSULE) return s->radius;
    if (s->kind == LUCID_SHAPE_CYLINDER || s->kind == LUCID_SHAPE_CONE) return s->u.round.radius;
    return 0.0;
}

/* The patch's points (an edge clipped to the face keeps the points where it leaves the face,
 * which no corner gives), then the deepest corners over the face that are not among them, up
 * to max_points. A corner is the patch's witness when within the witness's accuracy on a
 * feature of radius r: a normal accepted to NORMAL_CHECK_TOLERANCE in separation leaves it
 * sqrt(2 r NORMAL_CHECK_TOLERANCE) along the feature (a duplicate row took a slot and stalled
 * the solve). */
static lucid_status add_corners(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                const lucid_se3 *T2, double margin, int max_points,
                                lucid_contact_patch_result *patch) {
    lucid_contact_patch_result c;
    int reference = patch->feature1 == LUCID_FEATURE_POLYGON ? 1 : 2;
    lucid_status s =
        lucid_face_vertices(s1, T1, s2, T2, reference, patch->normal, margin, max_points, &c);
    double r = feature_radius(reference == 1 ? s2 : s1);
    double same = sqrt(2.0 * r * NORMAL_CHECK_TOLERANCE);
    for (int k = 0; s == LUCID_OK && k < c.count && patch->count < max_points; ++k) {
        int known = 0;
        for (int q = 0; q < patch->count && !known; ++q)
            known = lucid_vec3_dist(patch->points[q].p1, c.points[k].p1) +
                        lucid_vec3_dist(patch->points[q].p2, c.points[k].p2) <=
                    2.0 * same + 1e-9 * (1.0 + fabs(c.points[k].separation));
        if (!known) patch->points[patch->count++] = c.points[k];
    }
    return s;
}

/* Two capsules with a single witness: the witness, then their ends' points within the margin
 * (lucid_capsule_ends, each with its own normal) that are not the witness, up to max_points. */
static lucid_status add_capsule_ends(const lucid_shape *s1, const lucid_se3 *T1,
                                     const lucid_shape *s2, const lucid_se3 *T2, double margin,
                                     int max_points, lucid_contact_patch_result *patch,
                                     lucid_vec3 *normals) {
    lucid_contact_patch_result e;
    lucid_vec3 en[LUCID_PATCH_MAX_POINTS];
    lucid_status s = lucid_capsule_ends(s1, T1, s2, T2, margin, max_points, &e, en);
    double tol = 1e-9 * (1.0 + s1->u.half_length + s2->u.half_length);
    for (int k = 0; s == LUCID_OK && k < e.count && patch->count < max_points; ++k)
        if (lucid_vec3_dist(e.points[k].p1, patch->points[0].p1) > tol)
            normals[patch->count] = en[k], patch->points[patch->count++] = e.points[k];
    return s;
}

/* The contact points of one shape pair (the swap point between a single witness pair and a
 * patch): fills patch and each point's normal (the patch's but for two capsules' ends), sets
 * *found to 0 when the shapes are farther apart than the margin. */
static lucid_status shape_pair_points(const lucid_shape *s1, const lucid_se3 *T1,
                                      const lucid_shape *s2, const lucid_se3 *T2, double margin,
                                      int max_points, int faces, lucid_contact_patch_result *patch,
                                      lucid_vec3 *normals, int *found) {
    lucid_distance_result d;
    *found = 0;
    lucid_status s = checked_distance(s1, T1, s2, T2, 2.0 * margin + 1e-3, &d);
    if (s != LUCID_OK) return s;
    if (!(d.distance < margin)) return LUCID_OK;
    lucid_patch_options po;
    lucid_patch_options_default(&po);
    po.margin = margin;
    /* a nearly flat face's points all kept within the margin: resting boxes keep 4 */
    po.angular_tolerance = LUCID_PATCH_ANGULAR_TOLERANCE;
    po.max_points = max_points;
    s = lucid_contact_patch(s1, T1, s2, T2, &d, &po, patch);
    if (s == LUCID_OK && vertex_or_edge_on_face(s1, s2, patch, faces)) {
        /* a polytope on a plane or a face by a vertex or an edge: its neighbouring vertices
         * within the margin too, before a turn swings them through (plane_vertices.h) */
        if (lucid_plane_vertices_apply(s1, s2)) {
            /* none (a cylinder nearer upright than 45 degrees): the patch stays */
            lucid_contact_patch_result v;
            s = lucid_plane_vertices(s1, T1, s2, T2, margin, max_points, &v);
            if (s == LUCID_OK && v.count > 0) *patch = v;
        } else {
            s = add_corners(s1, T1, s2, T2, margin, max_points, patch);
        }
        for (int k = 0; s == LUCID_OK && k < patch->count; ++k) normals[k] = patch->normal;
        if (s == LUCID_OK && patch->count > 0) *found = 1;
        return s;
    }
    for (int k = 0; s == LUCID_OK && k < patch->count; ++k) normals[k] = patch->normal;
    if (s == LUCID_OK && patch->count == 1 && s1->kind == LUCID_SHAPE_CAPSULE &&
        s2->kind == LUCID_SHAPE_CAPSULE)
        s = add_capsule_ends(s1, T1, s2, T2, margin, max_points, patch, normals);
    if (s != LUCID_OK) {
        /* a degenerate normal: keep the witness pair when it is usable */
        if (!(fabs(lucid_vec3_norm(d.normal) - 1.0) < 1e-6)) return LUCID_OK;
        patch->normal = normals[0] = d.normal, patch->count = 1;
        patch->points[0].p1 = d.p1, patch->points[0].p2 = d.p2;
        patch->points[0].separation = d.distance;
    }
    *found = 1;
    return LUCID_OK;
}

/* Shapes whose witness point travels over a curved surface as they turn (a sphere's keeps its
 * distance to the centre; polytopes, capsule ends and cylinder rims get their vertices). */
static int rolls(const lucid_shape *s) {
    return s->kind == LUCID_SHAPE_ELLIPSOID || s->kind == LUCID_SHAPE_CONE ||
           s->kind == LUCID_SHAPE_CYLINDER;
}

/* A twist: the velocity of the centre of mass and the angular velocity. */
typedef struct {
    lucid_vec3 v, w;
} twist;

/* One body of a pair: its free twist, or none when it does not move on its own (static, a
 * link: it keeps its pose). */
typedef struct {
    const lucid_body *body;
    int moves;
    lucid_vec3 com;
    twist free;
} pair_body;

static pair_body pair_body_of(const lucid_world *w, int i) {
    const lucid_body *b = &w->bodies[i];
    pair_body r = {.body = b, .com = lucid_body_com_world(b)};
    r.moves = !(b->is_static || b->model >= 0 || (size_t)i >= w->d.v_free_cap);
    if (r.moves) r.free.v = w->d.v_free[i], r.free.w = w->d.w_free[i];
    return r;
}

/* The velocity of the material point x at the twist t (0 for a body that keeps its pose). */
static lucid_vec3 point_velocity(const pair_body *r, const twist *t, lucid_vec3 x) {
    if (!r->moves) return lucid_vec3_zero();
    return lucid_vec3_add(t->v, lucid_vec3_cross(t->w, lucid_vec3_sub(x, r->com)));
}

/* A part's pose after the step at the twist t, as the step integrates the body (its centre of
 * mass moves by dt v, its rotation by exp(dt w)), composed with the part's present pose T in
 * the body. */
static lucid_se3 part_pose_at(const pair_body *r, const twist *t, double dt, const lucid_se3 *T) {
    const lucid_body *b = r->body;
    if (!r->moves) return *T;
    lucid_quat q = lucid_quat_mul(lucid_quat_exp(lucid_vec3_scale(t->w, dt)), b->orientation);
    lucid_quat_normalize(&q);
    lucid_se3 P;
    P.R = lucid_quat_to_mat3(q);
    P.t = lucid_vec3_sub(lucid_vec3_axpy(r->com, dt, t->v), lucid_mat3_mul_vec(&P.R, b->com));
    return lucid_se3_compose(
        &P, &(lucid_se3){lucid_mat3_tmul(&b->pose.R, &T->R), lucid_se3_act_inv(&b->pose, T->t)});
}

/* The inverse mass a moving body shows at its point x: m^-1 1 - [r] I^-1 [r], r = x - com. */
static lucid_mat3 point_inverse_mass(const pair_body *r, lucid_vec3 x) {
    lucid_mat3 Rh = lucid_mat3_hat(lucid_vec3_sub(x, r->com));
    lucid_mat3 Iw = lucid_body_inv_inertia_world(r->body);
    lucid_mat3 RI = lucid_mat3_mul(&Rh, &Iw), RIR = lucid_mat3_mul(&RI, &Rh);
    lucid_mat3 m = lucid_mat3_identity();
    m = lucid_mat3_scale(&m, r->body->inv_mass);
    return lucid_mat3_sub(&m, &RIR);
}

/* The twist change the impulse P at the body's point x gives (none for a body that keeps its
 * pose). */
static twist impulse_change(const pair_body *r, lucid_vec3 x, lucid_vec3 P) {
    twist d = {lucid_vec3_zero(), lucid_vec3_zero()};
    if (!r->moves) return d;
    lucid_mat3 Iw = lucid_body_inv_inertia_world(r->body);
    d.v = lucid_vec3_scale(P, r->body->inv_mass);
    d.w = lucid_mat3_mul_vec(&Iw, lucid_vec3_cross(lucid_vec3_sub(x, r->com), P));
    return d;
}

/* The largest impulse the point p gives in the step on its own: the one that stops its
 * relative velocity u (plastic, sticking), or where that leaves the friction cone, mu times
 * the normal impulse along the tangential impulse sticking asks for, the normal one stopping
 * the approach (the two agree on the cone, so the impulse is continuous in u); times 1 + e
 * (restitution). The twist changes it gives a and b (P on b, -P on a); 0 when the point does
 * not approach. */
static int stopping_impulse(const pair_body *ra, const pair_body *rb, const lucid_contact_point *p,
                            lucid_vec3 n, double mu, double e, twist *da, twist *db) {
    lucid_mat3 K = lucid_mat3_zero();
    if (ra->moves) K = point_inverse_mass(ra, p->p1);
    if (rb->moves) {
        lucid_mat3 Kb = point_inverse_mass(rb, p->p2);
        K = lucid_mat3_add(&K, &Kb);
    }
    lucid_vec3 u =
        lucid_vec3_sub(point_velocity(rb, &rb->free, p->p2), point_velocity(ra, &ra->free, p->p1));
    double un = lucid_vec3_dot(n, u);
    lucid_mat3 Ki;
    if (!(un < 0.0) || !lucid_mat3_inverse(&K, &Ki)) return 0;
    lucid_vec3 P = lucid_vec3_neg(lucid_mat3_mul_vec(&Ki, u));
    double Pn = lucid_vec3_dot(n, P);
    lucid_vec3 Pt = lucid_vec3_axpy(P, -Pn, n);
    double lt = lucid_vec3_norm(Pt);
    if (!(lt <= mu * Pn)) {
        lucid_vec3 dir = lt > 0.0 ? lucid_vec3_axpy(n, mu / lt, Pt) : n;
        double k = lucid_vec3_dot(n, lucid_mat3_mul_vec(&K, dir));
        if (!(k > 0.0)) dir = n, k = lucid_vec3_dot(n, lucid_mat3_mul_vec(&K, n));
        if (!(k > 0.0)) return 0;
        P = lucid_vec3_scale(dir, -un / k);
    }
    P = lucid_vec3_scale(P, 1.0 + e);
    *da = impulse_change(ra, p->p1, lucid_vec3_neg(P));
    *db = impulse_change(rb, p->p2, P);
    return 1;
}

/* The least end separation of the points at the twists ta, tb as the step constrains it, to
 * first order: separation + dt n . (relative velocity of the material points). */
static double linear_end(const pair_body *ra, const twist *ta, const pair_body *rb, const twist *tb,
                         double dt, const lucid_contact_point *p, const lucid_vec3 *n, int count) {
    double end = INFINITY;
    for (int k = 0; k < count; ++k) {
        lucid_vec3 u =
            lucid_vec3_sub(point_velocity(rb, tb, p[k].p2), point_velocity(ra, ta, p[k].p1));
        end = fmin(end, p[k].separation + dt * lucid_vec3_dot(n[k], u));
    }
    return end;
}

/* One twist of the range: on segment seg (-1: the free twists) at s, the twists, the witness
 * pair of the parts' poses they predict, and whether that pair was added. */
typedef struct {
    int seg;
    double s;
    twist ta, tb;
    lucid_distance_result d;
    lucid_se3 Ma, Mb;
    int taken;
} twist_sample;

/* the free twists, one end per present point and two halves per added point (max points) */
#define MAX_TWIST_SAMPLES (2 * LUCID_PATCH_MAX_POINTS + 1)

/* The pair being predicted: its bodies, parts and the segments' twist changes. */
typedef struct {
    pair_body ra, rb;
    const lucid_shape *sa, *sb;
    const lucid_se3 *Ta, *Tb;
    double dt;
    twist da[LUCID_PATCH_MAX_POINTS], db[LUCID_PATCH_MAX_POINTS];
} twist_ranges;

/* Appends the sample at (seg, s); 0 when there is no room or its distance failed. */
static int add_sample(const twist_ranges *g, twist_sample *S, int *ns, int seg, double s) {
    if (*ns >= MAX_TWIST_SAMPLES) return 0;
    twist_sample x = {.seg = seg, .s = s, .ta = g->ra.free, .tb = g->rb.free};
    if (seg >= 0) {
        x.ta.v = lucid_vec3_axpy(x.ta.v, s, g->da[seg].v);
        x.ta.w = lucid_vec3_axpy(x.ta.w, s, g->da[seg].w);
        x.tb.v = lucid_vec3_axpy(x.tb.v, s, g->db[seg].v);
        x.tb.w = lucid_vec3_axpy(x.tb.w, s, g->db[seg].w);
    }
    x.Ma = part_pose_at(&g->ra, &x.ta, g->dt, g->Ta);
    x.Mb = part_pose_at(&g->rb, &x.tb, g->dt, g->Tb);
    if (checked_distance(g->sa, &x.Ma, g->sb, &x.Mb, 1e-3, &x.d) != LUCID_OK) return 0;
    S[(*ns)++] = x;
    return 1;
}

/* The nearest s sampled on sample j's segment below it (the free twists at 0 count) and above
 * it (INFINITY when none). */
static void segment_neighbours(const twist_sample *S, int ns, int j, double *lo, double *hi) {
    *lo = 0.0, *hi = INFINITY;
    for (int i = 0; i < ns; ++i) {
        if (S[i].seg != S[j].seg) continue;
        if (S[i].s < S[j].s) *lo = fmax(*lo, S[i].s);
        if (S[i].s > S[j].s) *hi = fmin(*hi, S[i].s);
    }
}

/* Predicted witnesses: the material points that the twists the step may end with bring
 * deepest. One contact on a turning curved surface constrains the point that is deepest now,
 * while the step turns another one deeper by ~(omega dt)^2 (rho - p) / 2, and an impact's
 * impulse turns the body within the step. The twists range from the free ones to those after
 * each present point's stopping impulse (one segment per point, s in [0, 1]); the witness pair
 * of the poses a twist predicts, carried back to the present poses (each with its body), is
 * added where it ends deeper than the points so far constrain by more than tol, the deepest
 * such first; an added twist's neighbours halfway on its segment are tried next, up to max
 * points. Returns the new count. */
static int predicted_witnesses(const lucid_world *w, int a, const lucid_shape *sa,
                               const lucid_se3 *Ta, int b, const lucid_shape *sb,
                               const lucid_se3 *Tb, lucid_contact_point *points, lucid_vec3 *n,
                               int count, int max, double tol, double mu, double e) {
    if (count >= max) return count;
    twist_ranges g = {.ra = pair_body_of(w, a),
                      .rb = pair_body_of(w, b),
                      .sa = sa,
                      .sb = sb,
                      .Ta = Ta,
                      .Tb = Tb,
                      .dt = w->opt.dt};
    twist_sample S[MAX_TWIST_SAMPLES];
    int ns = 0, present = count;
    add_sample(&g, S, &ns, -1, 0.0);
    for (int k = 0; k < present; ++k)
        if (stopping_impulse(&g.ra, &g.rb, &points[k], n[k], mu, e, &g.da[k], &g.db[k]))
            add_sample(&g, S, &ns, k, 1.0);
    while (count < max) {
        int best = -1;
        double worst = tol;
        for (int j = 0; j < ns; ++j) {
            if (S[j].taken) continue;
            double gap = linear_end(&g.ra, &S[j].ta, &g.rb, &S[j].tb, g.dt, points, n, count) -
                         S[j].d.distance;
            if (gap > worst) worst = gap, best = j;
        }
        if (best < 0) break;
        twist_sample x = S[best];
        S[best].taken = 1;
        lucid_contact_point *p = &points[count];
        p->p1 = lucid_se3_act(Ta, lucid_se3_act_inv(&x.Ma, x.d.p1));
        p->p2 = lucid_se3_act(Tb, lucid_se3_act_inv(&x.Mb, x.d.p2));
        p->separation = lucid_vec3_dot(x.d.normal, lucid_vec3_sub(p->p2, p->p1));
        n[count++] = x.d.normal;
        if (x.seg < 0) continue; /* the free twists: no segment of its own */
        double lo, hi;
        segment_neighbours(S, ns, best, &lo, &hi);
        add_sample(&g, S, &ns, x.seg, 0.5 * (lo + x.s));
        if (hi < INFINITY) add_sample(&g, S, &ns, x.seg, 0.5 * (x.s + hi));
    }
    return count;
}

/* A part's contact parameters; a plain body's part takes its body's friction, torsion and
 * rolling and condim 3 (4 with a torsion, 6 with a rolling coefficient), or 1 when that
 * friction is 0 (a frictionless body). */
static lucid_part_contact part_contact(const lucid_world *w, int body, int part) {
    const lucid_body *b = &w->bodies[body];
    lucid_part_contact p = w->part_contact[b->part_begin + part];
    if (p.geom < 0) {
        p.friction = b->friction, p.torsion = b->torsion, p.rolling = b->rolling;
        p.condim = !(b->friction > 0.0) ? 1 : b->rolling > 0.0 ? 6 : b->torsion > 0.0 ? 4 : 3;
    }
    return p;
}

int lucid_world_pair_contact(const lucid_world *w, int a, int ia, int b, int ib, double *friction,
                             double *torsion, double *include_margin) {
    double unused;
    if (!torsion) torsion = &unused;
    lucid_pair_contact e;
    if (lucid_world_models_explicit_pair(w, a, ia, b, ib, &e)) { /* its own parameters */
        *friction = e.friction, *torsion = e.torsion, *include_margin = e.include_margin;
        return 1;
    }
    lucid_part_contact p = part_contact(w, a, ia), q = part_contact(w, b, ib);
    int plain = p.geom < 0 || q.geom < 0;
    if (p.geom < 0 && q.geom < 0) { /* lucid's rule: the smaller friction; the torsion of
                                     * the body that has one (MuJoCo's larger) when it slides */
        *friction = fmin(p.friction, q.friction), *include_margin = 0.0;
        *torsion = *friction > 0.0 ? fmax(p.torsion, q.torsion) : 0.0;
        return 1;
    }
    /* MuJoCo's filter: collide when either's type meets the other's affinity */
    if (!(p.contype & q.conaffinity) && !(q.contype & p.conaffinity)) return 0;
    int condim;
    double mu, mu_t;
    if (p.priority != q.priority) { /* the higher priority geom's parameters */
        const lucid_part_contact *win = p.priority > q.priority ? &p : &q;
        condim = win->condim, mu = win->friction, mu_t = win->torsion;
    } else { /* the larger condim; friction the larger, or a plain body's rule, the smaller;
              * the larger torsional coefficient (a plain body's is its `torsion`, often 0) */
        condim = p.condim > q.condim ? p.condim : q.condim;
        mu = plain ? fmin(p.friction, q.friction) : fmax(p.friction, q.friction);
        mu_t = fmax(p.torsion, q.torsion);
    }
    *friction = condim == 1 ? 0.0 : mu;
    *torsion = condim >= 4 ? mu_t : 0.0;
    *include_margin = fmax(p.margin, q.margin) - fmax(p.gap, q.gap);
    return 1;
}

double lucid_world_pair_rolling(const lucid_world *w, int a, int ia, int b, int ib) {
    lucid_pair_contact e;
    if (lucid_world_models_explicit_pair(w, a, ia, b, ib, &e)) return e.rolling;
    lucid_part_contact p = part_contact(w, a, ia), q = part_contact(w, b, ib);
    if (p.geom < 0 && q.geom < 0) /* as their torsion: the larger, where they have friction */
        return fmin(p.friction, q.friction) > 0.0 ? fmax(p.rolling, q.rolling) : 0.0;
    if (p.priority != q.priority) {
        const lucid_part_contact *win = p.priority > q.priority ? &p : &q;
        return win->condim >= 6 ? win->rolling : 0.0;
    }
    return (p.condim > q.condim ? p.condim : q.condim) >= 6 ? fmax(p.rolling, q.rolling) : 0.0;
}

double lucid_world_pair_margin(const lucid_world *w, int a, int b, double include_margin) {
    int swept = w->d.sweep && w->d.sweep_cap >= (size_t)w->num_bodies;
    /* a negative include margin (gap > margin) keeps the world's: contacts act deeper only */
    return w->opt.margin + fmax(include_margin, 0.0) +
           (swept ? w->d.sweep[a] + w->d.sweep[b] : 0.0);
}

/* Contact points of a height field pair kept before the final reduction: MuJoCo's cap per
 * geom pair (mjMAXCONPAIR). */
#define HFIELD_MAX_POINTS 50
/* m: depths that differ by less are ties (EPA's default depth tolerance, epa_tol) */
#define HFIELD_DEPTH_TIE 1e-9

typedef struct hfield_points {
    int count;
    lucid_contact_point p[HFIELD_MAX_POINTS];
    lucid_vec3 n[HFIELD_MAX_POINTS];
    int piece[HFIELD_MAX_POINTS][4]; /* the point's prism: row, column, triangle, top face */
} hfield_points;

/* Moves point q of h to slot m (m <= q). */
static void hfield_move(hfield_points *h, int q, int m) {
    h->p[m] = h->p[q], h->n[m] = h->n[q];
    memcpy(h->piece[m], h->piece[q], sizeof h->piece[m]);
}

/* How much keeping point x adds, given the kept points pick[0 .. k): the patch's
 * area-maximising choice for the first four (the farthest from the deepest point, the largest
 * triangle, the largest quadrilateral), then the distance to the nearest kept point. */
static double spread_score(const hfield_points *h, const int *pick, int k, lucid_vec3 x,
                           lucid_vec3 n) {
    lucid_vec3 a = h->p[pick[0]].p1;
    if (k == 1) return lucid_vec3_dist(x, a);
    if (k == 2)
        return lucid_vec3_norm(
            lucid_vec3_cross(lucid_vec3_sub(h->p[pick[1]].p1, a), lucid_vec3_sub(x, a)));
    if (k == 3) return lucid_patch_quad_area2(a, h->p[pick[1]].p1, h->p[pick[2]].p1, x, n);
    double gap = INFINITY;
    for (int j = 0; j < k; ++j) gap = fmin(gap, lucid_vec3_dist(x, h->p[pick[j]].p1));
    return gap;
}

/* Keeps `capacity` points spread over the contact (spread_score), the deepest first; the kept
 * points keep their order, ties go to the lowest index. */
static void hfield_spread(hfield_points *h, int capacity) {
    if (h->count <= capacity) return;
    int pick[HFIELD_MAX_POINTS] = {0};
    unsigned char kept[HFIELD_MAX_POINTS] = {0};
    /* the deepest point; among points as deep up to EPA's depth tolerance (a face resting on
     * the field), the one farthest from their centroid: a corner, not a point along an edge */
    double deepest = INFINITY;
    lucid_vec3 centre = lucid_vec3_zero();
    for (int q = 0; q < h->count; ++q) {
        deepest = fmin(deepest, h->p[q].separation);
        centre = lucid_vec3_axpy(centre, 1.0 / h->count, h->p[q].p1);
    }
    double far = -1.0;
    for (int q = 0; q < h->count; ++q)
        if (h->p[q].separation <= deepest + HFIELD_DEPTH_TIE &&
            lucid_vec3_dist(h->p[q].p1, centre) > far)
            far = lucid_vec3_dist(h->p[q].p1, centre), pick[0] = q;
    kept[pick[0]] = 1;
    lucid_vec3 n = h->n[pick[0]];
    for (int k = 1; k < capacity; ++k) {
        double best = -1.0;
        for (int q = 0; q < h->count; ++q) {
            if (kept[q]) continue;
            double score = spread_score(h, pick, k, h->p[q].p1, n);
            if (score > best) best = score, pick[k] = q;
        }
        kept[pick[k]] = 1;
    }
    int m = 0;
    for (int q = 0; q < h->count; ++q)
        if (kept[q]) hfield_move(h, q, m++);
    h->count = m;
}

/* Drops the points that are not corners of the points' outline (their convex hull across the
 * deepest point's normal, Andrew's monotone chain; points along its edges are dropped too),
 * keeping the deepest; then spreads to half the capacity if the outline is still that long.
 * The area-maximising reduction only ever picks outline corners and the deepest point. */
static void hfield_outline(hfield_points *h) {
    int deepest = 0;
    for (int q = 1; q < h->count; ++q)
        if (h->p[q].separation < h->p[deepest].separation) deepest = q;
    lucid_vec3 n = h->n[deepest], u = lucid_vec3_any_orthogonal(n);
    lucid_vec3 v = lucid_vec3_cross(n, u);
    double x[HFIELD_MAX_POINTS], y[HFIELD_MAX_POINTS];
    int order[HFIELD_MAX_POINTS], hull[2 * HFIELD_MAX_POINTS], m = 0;
    for (int q = 0; q < h->count; ++q) {
        x[q] = lucid_vec3_dot(h->p[q].p1, u), y[q] = lucid_vec3_dot(h->p[q].p1, v);
        order[q] = q;
    }
    for (int i = 1; i < h->count; ++i) /* insertion sort by (x, y): at most 50 points */
        for (int j = i; j > 0; --j) {
            int a = order[j - 1], b = order[j];
            if (x[a] < x[b] || (x[a] == x[b] && y[a] <= y[b])) break;
            order[j - 1] = b, order[j] = a;
        }
    for (int pass = 0; pass < 2; ++pass) { /* lower then upper chain */
        int start = m;
        for (int i = 0; i < h->count; ++i) {
            int q = order[pass ? h->count - 1 - i : i];
            while (m >= start + 2) {
                int a = hull[m - 2], b = hull[m - 1];
                double turn = (x[b] - x[a]) * (y[q] - y[a]) - (y[b] - y[a]) * (x[q] - x[a]);
                if (turn > 0.0) break;
                --m;
            }
            hull[m++] = q;
        }
        --m; /* the last point starts the other chain */
    }
    unsigned char keep[HFIELD_MAX_POINTS] = {0};
    keep[deepest] = 1;
    for (int i = 0; i < m; ++i) keep[hull[i]] = 1;
    int k = 0;
    for (int q = 0; q < h->count; ++q)
        if (keep[q]) hfield_move(h, q, k++);
    h->count = k;
    hfield_spread(h, HFIELD_MAX_POINTS / 2);
}

/* Adds a prism's point unless one at the same place (1e-9 of the local scale) with the same
 * normal (within the patch's angular tolerance) is known: the prisms sharing an edge or a
 * vertex all report a contact there. The deeper of two duplicates stays. */
static void hfield_add(hfield_points *h, const lucid_contact_point *p, lucid_vec3 n,
                       const int piece[4]) {
    double tol = 1e-9 * (1.0 + lucid_vec3_max_abs(p->p1));
    double cos_tol = cos(LUCID_PATCH_ANGULAR_TOLERANCE);
    for (int q = 0; q < h->count; ++q) {
        lucid_contact_point *k = &h->p[q];
        if (lucid_vec3_dist(k->p1, p->p1) + lucid_vec3_dist(k->p2, p->p2) <=
                tol + fabs(k->separation - p->separation) &&
            lucid_vec3_dot(h->n[q], n) >= cos_tol) {
            if (p->separation < k->separation) {
                *k = *p, h->n[q] = n;
                memcpy(h->piece[q], piece, sizeof h->piece[q]);
            }
            return;
        }
    }
    /* full (a shape over many cells): keep the outline and go on, rather than dropping the
     * cells visited last as MuJoCo does at its cap */
    if (h->count == HFIELD_MAX_POINTS) hfield_outline(h);
    memcpy(h->piece[h->count], piece, sizeof h->piece[h->count]);
    h->p[h->count] = *p, h->n[h->count++] = n;
}

/* Whether every point of a prism's patch lies on an internal face (a wall between prisms, not
 * the terrain's surface: lucid_heightfield_supports): a shape sunk below the top is then
 * touched through the top, not through the walls its deepest points have passed. */
static int only_internal(const lucid_heightfield *h, int r, int c, int tri, const lucid_se3 *Th,
                         int hf_first, const lucid_contact_patch_result *patch,
                         const lucid_vec3 *normals) {
    for (int k = 0; k < patch->count; ++k) {
        const lucid_contact_point *q = &patch->points[k];
        lucid_vec3 p = lucid_se3_act_inv(Th, hf_first ? q->p1 : q->p2);
        lucid_vec3 n = lucid_mat3_tmul_vec(&Th->R, normals[k]);
        if (!hf_first) n = lucid_vec3_neg(n);
        if (lucid_heightfield_supports(h, r, c, tri, p, n)) return 0;
    }
    return 1;
}

/* The contacts of a prism's top face as those of its plane, as on a halfspace (the same vertex
 * rules, plane_vertices.h), keeping the points over the triangle: a flat field is then exactly
 * a plane, whatever the shape. When the prism touches by that face (its feature there, the
 * normal within the patch's angular tolerance of the face's) they replace the patch; otherwise
 * (the prism's closest feature an edge of the top, say) they join it where no deeper than the
 * prism's own closest point: a vertex over the triangle and above its plane is that far from
 * the prism, so a corner of a flat face spanning cells is found in each cell it lies over, as
 * on the plane. Points from *first_top on are the plane's. */
static lucid_status top_face_points(const lucid_heightfield *h, int r, int c, int tri,
                                    const lucid_heightfield_prism *prism, const lucid_se3 *Th,
                                    const lucid_shape *o, const lucid_se3 *To, int hf_first,
                                    double margin, int max_points, int faces,
                                    lucid_contact_patch_result *patch, lucid_vec3 *normals,
                                    int *found, int *first_top) {
    lucid_vec3 n = lucid_mat3_tmul_vec(&Th->R, patch->normal); /* outward, field frame */
    if (!hf_first) n = lucid_vec3_neg(n);
    lucid_patch_feature f = hf_first ? patch->feature1 : patch->feature2;
    int replace = (f == LUCID_FEATURE_POLYGON &&
                   lucid_vec3_dot(n, prism->normals[0]) >= cos(LUCID_PATCH_ANGULAR_TOLERANCE)) ||
                  only_internal(h, r, c, tri, Th, hf_first, patch, normals);
    double closest = INFINITY;
    for (int k = 0; k < patch->count; ++k) closest = fmin(closest, patch->points[k].separation);
    lucid_shape plane;
    lucid_status s = lucid_shape_halfspace(prism->normals[0], prism->face_d[0], &plane);
    lucid_contact_patch_result q;
    lucid_vec3 qn[LUCID_PATCH_MAX_POINTS];
    int hit = 0;
    if (s == LUCID_OK)
        s = hf_first
                ? shape_pair_points(&plane, Th, o, To, margin, max_points, faces, &q, qn, &hit)
                : shape_pair_points(o, To, &plane, Th, margin, max_points, faces, &q, qn, &hit);
    if (s != LUCID_OK) return s;
    int m = replace ? 0 : patch->count;
    *first_top = m;
    for (int k = 0; hit && k < q.count && m < LUCID_PATCH_MAX_POINTS; ++k) {
        lucid_vec3 p = lucid_se3_act_inv(Th, hf_first ? q.points[k].p1 : q.points[k].p2);
        if (lucid_heightfield_covers(h, r, c, tri, p) &&
            (replace || q.points[k].separation >= closest - HFIELD_DEPTH_TIE))
            patch->points[m] = q.points[k], normals[m++] = qn[k];
    }
    patch->count = m;
    *found = m > 0;
    return LUCID_OK;
}

/* The contact points of a height field (shape 1 when hf_first) and a convex shape, as
 * MuJoCo's mjc_ConvexHField: every triangular prism under the shape's box within the margin
 * is collided as a convex mesh; points on a top triangle's boundary whose neighbouring
 * triangle rises above their tangent plane are dropped (lucid_heightfield_supports: the
 * internal edges the prisms add to the surface), the rest merged and spread to max_points. */
static lucid_status hfield_pair_points(const lucid_shape *hf, const lucid_se3 *Th,
                                       const lucid_shape *o, const lucid_se3 *To, int hf_first,
                                       double margin, int max_points, int faces,
                                       hfield_points *out) {
    const lucid_heightfield *h = hf->u.hfield;
    lucid_se3 local = lucid_se3_between(Th, To);
    lucid_vec3 lo, hi, pad = lucid_vec3_make(margin, margin, margin);
    lucid_shape_aabb(o, &local, &lo, &hi);
    int r0, r1, c0, c1;
    lucid_heightfield_cells(h, lucid_vec3_sub(lo, pad), lucid_vec3_add(hi, pad), &r0, &r1, &c0,
                            &c1);
    out->count = 0;
    /* every point of each prism's patch: reducing each to max_points would drop corners of a
     * face spanning several cells, and which ones would change with tiny motions */
    int per_prism = LUCID_PATCH_MAX_POINTS;
    for (int r = r0; r < r1; ++r)
        for (int c = c0; c < c1; ++c)
            for (int tri = 0; tri < 2; ++tri) {
                lucid_heightfield_prism prism;
                lucid_heightfield_prism_build(h, r, c, tri, &prism);
                lucid_shape ps;
                lucid_status s = lucid_shape_convex(&prism.mesh, &ps);
                lucid_contact_patch_result patch;
                lucid_vec3 normals[LUCID_PATCH_MAX_POINTS];
                int found = 0, first_top = 0;
                if (s == LUCID_OK)
                    s = hf_first ? shape_pair_points(&ps, Th, o, To, margin, per_prism, faces,
                                                     &patch, normals, &found)
                                 : shape_pair_points(o, To, &ps, Th, margin, per_prism, faces,
                                                     &patch, normals, &found);
                if (s == LUCID_OK && found)
                    s = top_face_points(h, r, c, tri, &prism, Th, o, To, hf_first, margin,
                                        per_prism, faces, &patch, normals, &found, &first_top);
                if (s != LUCID_OK) return s;
                for (int k = 0; found && k < patch.count; ++k) {
                    const lucid_contact_point *q = &patch.points[k];
                    /* the field's witness point and outward normal, in the field's frame */
                    lucid_vec3 p = lucid_se3_act_inv(Th, hf_first ? q->p1 : q->p2);
                    lucid_vec3 n = lucid_mat3_tmul_vec(&Th->R, normals[k]);
                    if (!hf_first) n = lucid_vec3_neg(n);
                    if (q->separation < margin && lucid_heightfield_supports(h, r, c, tri, p, n))
                        hfield_add(out, q, normals[k], (const int[4]){r, c, tri, k >= first_top});
                }
            }
    hfield_spread(out, max_points);
    return LUCID_OK;
}

/* Contacts between part ia of body a and part ib of body b: an explicit pair's, or, where the
 * body filters let the two bodies touch (dynamic), the filtered geom pair's. */
static lucid_status collide_parts(lucid_world *w, int a, int ia, int b, int ib, int dynamic) {
    const lucid_body *ba = &w->bodies[a], *bb = &w->bodies[b];
    const lucid_body_part *pa = &w->parts[ba->part_begin + ia];
    const lucid_body_part *pb = &w->parts[bb->part_begin + ib];
    lucid_shape_kind ka = pa->shape.kind, kb = pb->shape.kind;
    if (ka == LUCID_SHAPE_HALFSPACE && kb == LUCID_SHAPE_HALFSPACE) return LUCID_OK;
    /* as MuJoCo: a height field collides with convex shapes only (terrain is static) */
    if ((ka == LUCID_SHAPE_HEIGHTFIELD || kb == LUCID_SHAPE_HEIGHTFIELD) &&
        (ka == LUCID_SHAPE_HALFSPACE || kb == LUCID_SHAPE_HALFSPACE || ka == kb))
        return LUCID_OK;
    double friction, torsion, include_margin;
    lucid_pair_contact e;
    if (!lucid_world_models_explicit_pair(w, a, ia, b, ib, &e) &&
        (!dynamic || !lucid_world_models_parts_allowed(w, a, ia, b, ib)))
        return LUCID_OK;
    if (!lucid_world_pair_contact(w, a, ia, b, ib, &friction, &torsion, &include_margin))
        return LUCID_OK;
    /* the margin grows with how far the two surfaces may move towards each other this step */
    double margin = lucid_world_pair_margin(w, a, b, include_margin);
    double pad = 0.5 * w->opt.margin;
    lucid_vec3 alo, ahi, blo, bhi;
    part_box(ba, pa, pad + w->part_contact[ba->part_begin + ia].reach + w->d.sweep[a], &alo, &ahi);
    part_box(bb, pb, pad + w->part_contact[bb->part_begin + ib].reach + w->d.sweep[b], &blo, &bhi);
    if ((ba->num_parts > 1 || bb->num_parts > 1) && !boxes_overlap(alo, ahi, blo, bhi))
        return LUCID_OK;
    lucid_se3 Ta = part_pose(ba, pa), Tb = part_pose(bb, pb);
    lucid_contact_patch_result patch;
    lucid_vec3 normals[LUCID_PATCH_MAX_POINTS];
    int found;
    ++w->d.stats.narrow_tests;
    /* corners on a face between free and static bodies only: on a robot's links the corners'
     * extra contacts over a finger's faces make the grasp hyperstatic beyond what the solve
     * resolves (docs/benchmarks/contact.md, "Figures from the solvers' comments") */
    int faces = ba->model < 0 && bb->model < 0;
    lucid_status s;
    hfield_points hp;
    const lucid_contact_point *points = patch.points;
    if (ka == LUCID_SHAPE_HEIGHTFIELD || kb == LUCID_SHAPE_HEIGHTFIELD) {
        int first = ka == LUCID_SHAPE_HEIGHTFIELD;
        s = first ? hfield_pair_points(&pa->shape, &Ta, &pb->shape, &Tb, 1, margin,
                                       w->opt.patch_points, faces, &hp)
                  : hfield_pair_points(&pb->shape, &Tb, &pa->shape, &Ta, 0, margin,
                                       w->opt.patch_points, faces, &hp);
        found = hp.count > 0, patch.count = hp.count, points = hp.p;
    } else {
        s = shape_pair_points(&pa->shape, &Ta, &pb->shape, &Tb, margin, w->opt.patch_points, faces,
                              &patch, normals, &found);
    }
    if (s != LUCID_OK || !found) return s;
    lucid_world_contact c = {0};
    c.body1 = a, c.body2 = b, c.part1 = ia, c.part2 = ib;
    c.friction = friction;
    c.torsion = torsion;
    c.rolling = lucid_world_pair_rolling(w, a, ia, b, ib);
    c.include_margin = include_margin;
    int present = patch.count; /* the points after it are predicted */
    /* what the position correction takes out within the step anyway (world.h) */
    double recovered =
        lucid_world_correction_speed_for(&w->opt, lucid_world_contact_slop(w, &c)) * w->opt.dt;
    if (points == patch.points && (rolls(&pa->shape) || rolls(&pb->shape)))
        patch.count = predicted_witnesses(w, a, &pa->shape, &Ta, b, &pb->shape, &Tb, patch.points,
                                          normals, patch.count, w->opt.patch_points, recovered,
                                          friction, lucid_world_contact_restitution(w, &c));
    const lucid_vec3 *ns = points == hp.p ? hp.n : normals;
    for (int k = 0; k < patch.count; ++k) {
        const lucid_contact_point *p = &points[k];
        /* a predicted witness ends deeper than the points within the margin: kept wherever it
         * is now (an impact's spin-up is no part of the sweep) */
        if (!(p->separation < margin) && k < present) continue;
        c.predicted = k >= present;
        if (points == hp.p) {
            c.on_prism = 1, c.prism_row = hp.piece[k][0], c.prism_col = hp.piece[k][1];
            c.prism_tri = hp.piece[k][2], c.prism_top = hp.piece[k][3];
        }
        c.frame = lucid_world_contact_frame(ns[k]);
        c.point = lucid_vec3_scale(lucid_vec3_add(p->p1, p->p2), 0.5);
        c.separation = p->separation;
        s = lucid_world_push_contact(w, &c);
        if (s != LUCID_OK) return s;
    }
    return LUCID_OK;
}

lucid_status lucid_world_broad_phase(lucid_world *w, const double *extra) {
    lucid_status s = body_boxes(w, extra);
    if (s == LUCID_OK)
        s = lucid_broad_phase_update(w->d.broad, w->num_bodies, w->d.aabb_lo, w->d.aabb_hi,
                                     w->d.is_static);
    return s;
}

/* The body's box over all its parts (no padding). */
static void body_box(const lucid_world *w, const lucid_body *b, lucid_vec3 *lo, lucid_vec3 *hi) {
    *lo = lucid_vec3_make(INFINITY, INFINITY, INFINITY), *hi = lucid_vec3_neg(*lo);
    for (int k = 0; k < b->num_parts; ++k) {
        lucid_vec3 plo, phi;
        part_box(b, &w->parts[b->part_begin + k], 0.0, &plo, &phi);
        *lo = lucid_vec3_make(fmin(lo->x, plo.x), fmin(lo->y, plo.y), fmin(lo->z, plo.z));
        *hi = lucid_vec3_make(fmax(hi->x, phi.x), fmax(hi->y, phi.y), fmax(hi->z, phi.z));
    }
}

/* sweep_i = max(0, dt (|v| + |w| r) - margin / 2): how much farther than half the margin a
 * body's surface may move in the step. A free body: v, w its free twist, r the diagonal of its
 * box (a bound on any surface point's distance from its centre of mass); a model's link: v
 * the free velocity of its box's centre and w its angular velocity (from the model's free
 * velocity), r half the diagonal; 0 for static bodies. Contacts within the pair's margin plus
 * both sweeps are generated (speculative), so a body faster than margin / (2 dt) stops at the
 * surface instead of tunnelling into it, and slower bodies see the plain margin. Called after
 * the step's free velocities. */
static lucid_status sweeps(lucid_world *w) {
    size_t n = (size_t)w->num_bodies;
    lucid_status s = LUCID_RESERVE(w, d.sweep, n);
    if (s != LUCID_OK) return s;
    for (int i = 0; i < w->num_bodies; ++i) {
        const lucid_body *b = &w->bodies[i];
        w->d.sweep[i] = 0.0;
        int link = b->model >= 0 && b->link >= 0;
        if (b->is_static || (b->model >= 0 && !link) || (!link && (size_t)i >= w->d.v_free_cap))
            continue;
        lucid_vec3 lo, hi, v, om;
        body_box(w, b, &lo, &hi);
        double r = lucid_vec3_norm(lucid_vec3_sub(hi, lo));
        if (link) {
            lucid_vec3 centre = lucid_vec3_scale(lucid_vec3_add(lo, hi), 0.5);
            lucid_world_models_link_velocity(w, i, centre, &v, &om);
            r *= 0.5;
        } else {
            v = w->d.v_free[i], om = w->d.w_free[i];
        }
        double d = w->opt.dt * (lucid_vec3_norm(v) + lucid_vec3_norm(om) * r);
        /* half the margin is covered already; slower bodies keep the plain margin */
        d -= 0.5 * w->opt.margin;
        w->d.sweep[i] = isfinite(d) && d > 0.0 ? d : 0.0; /* none without a finite box */
    }
    return LUCID_OK;
}

lucid_status lucid_world_collide(lucid_world *w) {
    w->d.num_contacts = 0;
    lucid_status s = sweeps(w);
    if (s == LUCID_OK) s = lucid_world_broad_phase(w, w->d.sweep);
    if (s != LUCID_OK) return s;
    int np = lucid_broad_phase_pair_count(w->d.broad);
    const lucid_broad_pair *pairs = lucid_broad_phase_pairs(w->d.broad);
    w->d.stats.candidate_pairs = np;
    for (int k = 0; k < np; ++k) {
        int a = pairs[k].a, b = pairs[k].b;
        int dynamic = lucid_world_models_pair_allowed(w, a, b);
        if (!dynamic && !lucid_world_models_may_pair(w, a, b)) continue;
        for (int ia = 0; ia < w->bodies[a].num_parts; ++ia)
            for (int ib = 0; ib < w->bodies[b].num_parts; ++ib) {
                s = collide_parts(w, a, ia, b, ib, dynamic);
                if (s != LUCID_OK) return s;
            }
    }
    return LUCID_OK;
}
