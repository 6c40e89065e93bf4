/* A polytope's vertices within the margin of a plane (plane_vertices.h). */
#include "solvers/collision/plane_vertices.h"

#include "runtime/shapes/convex_mesh.h"

static int is_polytope(const lucid_shape *s) {
    return s->kind == LUCID_SHAPE_BOX || s->kind == LUCID_SHAPE_CONVEX;
}

int lucid_plane_vertices_apply(const lucid_shape *s1, const lucid_shape *s2) {
    return (s1->kind == LUCID_SHAPE_HALFSPACE && is_polytope(s2)) ||
           (s2->kind == LUCID_SHAPE_HALFSPACE && is_polytope(s1));
}

static int vertex_count(const lucid_shape *s) {
    return s->kind == LUCID_SHAPE_BOX ? 8 : s->u.mesh->num_vertices;
}

/* Local vertex i: a box's corner (bit k of i: the sign of coordinate k), or the mesh's. */
static lucid_vec3 vertex(const lucid_shape *s, int i) {
    if (s->kind != LUCID_SHAPE_BOX) return s->u.mesh->vertices[i];
    lucid_vec3 h = s->u.half_extents;
    return lucid_vec3_make(i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z);
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
    double sep[LUCID_PATCH_MAX_POINTS];
    lucid_vec3 at[LUCID_PATCH_MAX_POINTS];
    int count = 0, total = vertex_count(poly);
    for (int i = 0; i < total; ++i) {
        lucid_vec3 v = lucid_se3_act(Tp, vertex(poly, i));
        double s = lucid_vec3_dot(n, v) - offset;
        if (s < margin) count = insert_sorted(sep, at, count, max_points, s, v);
    }
    out->normal = first ? n : lucid_vec3_neg(n);
    out->count = count;
    out->feature1 = first ? LUCID_FEATURE_PLANE : LUCID_FEATURE_POINT;
    out->feature2 = first ? LUCID_FEATURE_POINT : LUCID_FEATURE_PLANE;
    for (int k = 0; k < count; ++k) {
        lucid_vec3 on_plane = lucid_vec3_axpy(at[k], -sep[k], n);
        out->points[k].p1 = first ? on_plane : at[k];
        out->points[k].p2 = first ? at[k] : on_plane;
        out->points[k].separation = sep[k];
    }
    return LUCID_OK;
}
