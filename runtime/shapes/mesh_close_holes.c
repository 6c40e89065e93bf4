/* Capping the holes of an open mesh by ear clipping (runtime/shapes/mesh_close_holes.h). */
#include "runtime/shapes/mesh_close_holes.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/math/vec3.h"

static int compare_u64(const void *a, const void *b) {
    uint64_t p = *(const uint64_t *)a, q = *(const uint64_t *)b;
    return (p > q) - (p < q);
}

static uint64_t edge_key(int a, int b) {
    return (uint64_t)(uint32_t)a << 32 | (uint32_t)b;
}

static lucid_vec3 point(const double *points, int i) {
    return lucid_vec3_make(points[3 * i], points[3 * i + 1], points[3 * i + 2]);
}

/* next[a] = b for every boundary edge a -> b (no edge b -> a), -1 elsewhere; *count of them.
 * A vertex starting two boundary edges is where two holes touch: refused. */
static lucid_status boundary_edges(const int *tris, int nt, int np, int *next, int *count,
                                   uint64_t **sorted, char *err, int err_size) {
    size_t m = 3 * (size_t)nt;
    uint64_t *e = *sorted = malloc(sizeof *e * m);
    if (e == NULL) return lucid_status_fail(err, err_size, LUCID_ERR_NO_MEMORY, "out of memory");
    for (int t = 0; t < nt; ++t)
        for (int k = 0; k < 3; ++k)
            e[3 * t + k] = edge_key(tris[3 * t + k], tris[3 * t + (k + 1) % 3]);
    qsort(e, m, sizeof *e, compare_u64);
    for (int v = 0; v < np; ++v) next[v] = -1;
    lucid_status st = LUCID_OK;
    *count = 0;
    for (size_t i = 0; i < m && st == LUCID_OK; ++i) {
        int a = (int)(e[i] >> 32), b = (int)(e[i] & 0xffffffffu);
        uint64_t reverse = edge_key(b, a);
        if (bsearch(&reverse, e, m, sizeof *e, compare_u64) != NULL) continue;
        if (next[a] >= 0)
            st = lucid_status_fail(
                err, err_size, LUCID_ERR_DEGENERATE,
                "vertex %d is on two holes' boundaries (a non-manifold vertex): the holes "
                "cannot be told apart",
                a + 1);
        next[a] = b;
        ++*count;
    }
    return st;
}

/* A hole being capped: its vertices in the cap's order, projected on its plane, and the ring
 * of those not yet cut off. */
typedef struct hole {
    int *vertex;
    double *x, *y;
    int *prev, *next;
    int n;
    const uint64_t *edges; /* the mesh's directed edges, sorted (num_edges) */
    size_t num_edges;
} hole;

/* (b - a) x (c - b) in the plane: > 0 where the ring turns left (convex, counter-clockwise). */
static double turn(const hole *h, int a, int b, int c) {
    return (h->x[b] - h->x[a]) * (h->y[c] - h->y[b]) - (h->y[b] - h->y[a]) * (h->x[c] - h->x[b]);
}

/* Whether the mesh has an edge between vertices u and v (either way). */
static int mesh_edge(const hole *h, int u, int v) {
    uint64_t k[2] = {edge_key(u, v), edge_key(v, u)};
    return bsearch(&k[0], h->edges, h->num_edges, sizeof k[0], compare_u64) != NULL ||
           bsearch(&k[1], h->edges, h->num_edges, sizeof k[1], compare_u64) != NULL;
}

/* Whether ring vertex b is an ear: convex, no other vertex of the ring in its triangle
 * (boundary included, so that a vertex on the new diagonal blocks it), and, while it cuts a
 * diagonal (more than 3 left), not along an edge the mesh already has (each direction would
 * then be used twice). */
static int is_ear(const hole *h, int b, int left) {
    int a = h->prev[b], c = h->next[b];
    if (!(turn(h, a, b, c) > 0)) return 0;
    if (left > 3 && mesh_edge(h, h->vertex[a], h->vertex[c])) return 0;
    for (int p = h->next[c]; p != a; p = h->next[p])
        if (turn(h, a, b, p) >= 0 && turn(h, b, c, p) >= 0 && turn(h, c, a, p) >= 0) return 0;
    return 1;
}

/* Projects the hole on the plane through its centroid normal to its vector area (Newell's
 * normal of the cap's order), so that the cap's polygon runs counter-clockwise. Returns the
 * largest distance of a vertex from that plane, or -1 when the hole has no area. */
static double project(const double *points, hole *h) {
    lucid_vec3 c = lucid_vec3_make(0, 0, 0), n = lucid_vec3_make(0, 0, 0);
    for (int i = 0; i < h->n; ++i) c = lucid_vec3_add(c, point(points, h->vertex[i]));
    c = lucid_vec3_scale(c, 1.0 / h->n);
    for (int i = 0; i < h->n; ++i) {
        lucid_vec3 p = lucid_vec3_sub(point(points, h->vertex[i]), c);
        lucid_vec3 q = lucid_vec3_sub(point(points, h->vertex[(i + 1) % h->n]), c);
        n = lucid_vec3_add(n, lucid_vec3_cross(p, q));
    }
    double area2 = lucid_vec3_norm(n);
    if (!(area2 > 0)) return -1.0;
    n = lucid_vec3_scale(n, 1.0 / area2);
    /* u: the axis least along n, made normal to it; v = n x u, so u x v = n */
    lucid_vec3 axis = fabs(n.x) <= fabs(n.y) && fabs(n.x) <= fabs(n.z) ? lucid_vec3_make(1, 0, 0)
                      : fabs(n.y) <= fabs(n.z)                         ? lucid_vec3_make(0, 1, 0)
                                                                       : lucid_vec3_make(0, 0, 1);
    lucid_vec3 u = lucid_vec3_cross(axis, n);
    u = lucid_vec3_scale(u, 1.0 / lucid_vec3_norm(u));
    lucid_vec3 v = lucid_vec3_cross(n, u);
    double deviation = 0.0;
    for (int i = 0; i < h->n; ++i) {
        lucid_vec3 p = lucid_vec3_sub(point(points, h->vertex[i]), c);
        h->x[i] = lucid_vec3_dot(p, u);
        h->y[i] = lucid_vec3_dot(p, v);
        deviation = fmax(deviation, fabs(lucid_vec3_dot(p, n)));
        h->prev[i] = (i + h->n - 1) % h->n;
        h->next[i] = (i + 1) % h->n;
    }
    return deviation;
}

/* Cuts the projected hole into ears, appending their triangles to out (0 when some part of
 * the ring has no ear: the projection is not a simple polygon). */
static int clip_ears(hole *h, lucid_hole_caps *out) {
    int b = 0, left = h->n, misses = 0;
    while (left > 3) {
        if (!is_ear(h, b, left)) {
            b = h->next[b];
            if (++misses > left) return 0;
            continue;
        }
        int a = h->prev[b], c = h->next[b];
        int *t = out->triangles + 3 * (size_t)out->num_triangles++;
        t[0] = h->vertex[a], t[1] = h->vertex[b], t[2] = h->vertex[c];
        h->next[a] = c;
        h->prev[c] = a;
        --left;
        misses = 0;
        b = a;
    }
    if (!is_ear(h, b, 3)) return 0;
    int *t = out->triangles + 3 * (size_t)out->num_triangles++;
    t[0] = h->vertex[h->prev[b]], t[1] = h->vertex[b], t[2] = h->vertex[h->next[b]];
    return 1;
}

/* The hole through boundary vertex `start`, in the cap's order: against the boundary edges'
 * direction (the mesh's triangles traverse them a -> b, the cap b -> a). Marks its edges used
 * by clearing next[]. */
static int trace(int *next, int start, hole *h) {
    h->n = 0;
    for (int v = start; next[v] >= 0;) {
        int w = next[v];
        h->vertex[h->n++] = v;
        next[v] = -1;
        v = w;
    }
    for (int i = 0, j = h->n - 1; i < j; ++i, --j) {
        int swap = h->vertex[i];
        h->vertex[i] = h->vertex[j], h->vertex[j] = swap;
    }
    return h->n;
}

static int find_root(int *parent, int v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
}

/* Every connected component holding a cap must enclose a positive volume (signed tetrahedra
 * with the component's first vertex, which keeps the rounding at the component's scale). */
static lucid_status check_capped_volumes(const double *points, int np, const int *tris, int nt,
                                         const lucid_hole_caps *caps, char *err, int err_size) {
    int *parent = malloc(sizeof(int) * (size_t)np);
    double *volume = calloc((size_t)np, sizeof(double));
    if (parent == NULL || volume == NULL) {
        free(parent);
        free(volume);
        return lucid_status_fail(err, err_size, LUCID_ERR_NO_MEMORY, "out of memory");
    }
    for (int v = 0; v < np; ++v) parent[v] = v;
    for (int t = 0; t < nt + caps->num_triangles; ++t) {
        const int *f = t < nt ? tris + 3 * (size_t)t : caps->triangles + 3 * (size_t)(t - nt);
        for (int k = 1; k < 3; ++k) parent[find_root(parent, f[k])] = find_root(parent, f[0]);
    }
    for (int t = 0; t < nt + caps->num_triangles; ++t) {
        const int *f = t < nt ? tris + 3 * (size_t)t : caps->triangles + 3 * (size_t)(t - nt);
        int r = find_root(parent, f[0]);
        lucid_vec3 o = point(points, r), a = lucid_vec3_sub(point(points, f[0]), o),
                   b = lucid_vec3_sub(point(points, f[1]), o),
                   c = lucid_vec3_sub(point(points, f[2]), o);
        volume[r] += lucid_vec3_dot(a, lucid_vec3_cross(b, c)) / 6.0;
    }
    lucid_status st = LUCID_OK;
    for (int t = 0; t < caps->num_triangles && st == LUCID_OK; ++t) {
        int r = find_root(parent, caps->triangles[3 * t]);
        if (!(volume[r] > 0))
            st = lucid_status_fail(
                err, err_size, LUCID_ERR_DEGENERATE,
                "closing the hole at vertex %d leaves its piece of the mesh with volume %g: "
                "the surface around the hole is flat or faces into it (an open sheet, e.g. "
                "a liquid's surface, bounds no solid)",
                caps->triangles[3 * t] + 1, volume[r]);
    }
    free(parent);
    free(volume);
    return st;
}

/* Caps every hole traced from next[] into out. */
static lucid_status cap_holes(const double *points, int *next, int np, int num_edges,
                              const uint64_t *mesh_edges, size_t num_mesh_edges,
                              lucid_hole_caps *out, char *err, int err_size) {
    size_t n = (size_t)num_edges;
    hole h = {malloc(sizeof(int) * n),
              malloc(sizeof(double) * n),
              malloc(sizeof(double) * n),
              malloc(sizeof(int) * n),
              malloc(sizeof(int) * n),
              0,
              mesh_edges,
              num_mesh_edges};
    out->triangles = malloc(sizeof(int) * 3 * n);
    lucid_status st = LUCID_OK;
    if (h.vertex == NULL || h.x == NULL || h.y == NULL || h.prev == NULL || h.next == NULL ||
        out->triangles == NULL)
        st = lucid_status_fail(err, err_size, LUCID_ERR_NO_MEMORY, "out of memory");
    for (int v = 0; v < np && st == LUCID_OK; ++v) {
        if (next[v] < 0) continue;
        int first = v + 1, edges = trace(next, v, &h);
        double deviation = edges >= 3 ? project(points, &h) : -1.0;
        if (!(deviation >= 0) || !clip_ears(&h, out))
            st = lucid_status_fail(
                err, err_size, LUCID_ERR_DEGENERATE,
                "the hole of %d edges at vertex %d cannot be capped: seen along its normal "
                "it is not a simple polygon",
                edges, first);
        out->num_holes++;
        out->num_edges += edges;
        out->max_deviation = fmax(out->max_deviation, deviation);
    }
    free(h.vertex);
    free(h.x);
    free(h.y);
    free(h.prev);
    free(h.next);
    return st;
}

lucid_status lucid_mesh_close_holes(const double *points, int num_points, const int *triangles,
                                    int num_triangles, lucid_hole_caps *out, char *err,
                                    int err_size) {
    if (out == NULL || points == NULL || triangles == NULL || num_points < 1 || num_triangles < 1 ||
        num_triangles > INT32_MAX / 3)
        return lucid_status_fail(err, err_size, LUCID_ERR_ARGUMENT, "invalid arguments");
    memset(out, 0, sizeof *out);
    int *next = malloc(sizeof(int) * (size_t)num_points), count = 0;
    if (next == NULL) return lucid_status_fail(err, err_size, LUCID_ERR_NO_MEMORY, "out of memory");
    uint64_t *edges = NULL;
    lucid_status st =
        boundary_edges(triangles, num_triangles, num_points, next, &count, &edges, err, err_size);
    if (st == LUCID_OK && count > 0)
        st = cap_holes(points, next, num_points, count, edges, 3 * (size_t)num_triangles, out, err,
                       err_size);
    free(edges);
    if (st == LUCID_OK && count > 0)
        st = check_capped_volumes(points, num_points, triangles, num_triangles, out, err, err_size);
    free(next);
    if (st != LUCID_OK) lucid_hole_caps_free(out);
    return st;
}

void lucid_hole_caps_free(lucid_hole_caps *caps) {
    if (caps == NULL) return;
    free(caps->triangles);
    memset(caps, 0, sizeof *caps);
}
