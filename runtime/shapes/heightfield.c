/* Height fields: validation, MuJoCo's normalisation, cell ranges and per-cell prisms. */
#include "runtime/shapes/heightfield.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/shapes/shape.h"

lucid_status lucid_heightfield_create(int nrow, int ncol, const double *elevation,
                                      const double size[4], lucid_heightfield **out) {
    if (!elevation || !size || !out || nrow < 2 || ncol < 2 || nrow > INT_MAX / ncol)
        return LUCID_ERR_ARGUMENT;
    for (int k = 0; k < 4; ++k) {
        if (!isfinite(size[k])) return LUCID_ERR_NONFINITE;
        if (!(size[k] > 0.0 && size[k] <= LUCID_GEOMETRY_MAX)) return LUCID_ERR_ARGUMENT;
    }
    size_t n = (size_t)nrow * (size_t)ncol;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
        if (!isfinite(elevation[i])) return LUCID_ERR_NONFINITE;
        lo = fmin(lo, elevation[i]), hi = fmax(hi, elevation[i]);
    }
    lucid_heightfield *h = malloc(sizeof *h);
    double *height = malloc(n * sizeof *height);
    if (!h || !height) {
        free(h), free(height);
        return LUCID_ERR_NO_MEMORY;
    }
    h->nrow = nrow, h->ncol = ncol;
    memcpy(h->size, size, sizeof h->size);
    h->height = height;
    h->top = 0.0;
    /* halves: hi - lo of finite elevations may overflow, their halves' difference cannot */
    double range = 0.5 * hi - 0.5 * lo;
    for (size_t i = 0; i < n; ++i) {
        double e = range > 0.0 ? (0.5 * elevation[i] - 0.5 * lo) / range : 0.0;
        height[i] = size[2] * e;
        h->top = fmax(h->top, height[i]);
    }
    *out = h;
    return LUCID_OK;
}

void lucid_heightfield_destroy(lucid_heightfield *h) {
    if (!h) return;
    free(h->height);
    free(h);
}

/* The index range [*i0, *i1) of cells of a grid of n samples over [-s, s] meeting [lo, hi]. */
static void cell_range(double lo, double hi, double s, int n, int *i0, int *i1) {
    double d = 2.0 * s / (n - 1);
    double a = floor((lo + s) / d), b = floor((hi + s) / d) + 1.0;
    a = fmax(a, 0.0), b = fmin(b, (double)(n - 1));
    *i0 = 0, *i1 = 0;
    if (a < b) *i0 = (int)a, *i1 = (int)b; /* also false for NaN */
}

void lucid_heightfield_cells(const lucid_heightfield *h, lucid_vec3 lo, lucid_vec3 hi, int *r0,
                             int *r1, int *c0, int *c1) {
    cell_range(lo.y, hi.y, h->size[1], h->nrow, r0, r1);
    cell_range(lo.x, hi.x, h->size[0], h->ncol, c0, c1);
    if (!(lo.z <= h->top && hi.z >= -h->size[3])) *r1 = *r0, *c1 = *c0;
}

static lucid_vec3 sample(const lucid_heightfield *h, int r, int c) {
    double x = -h->size[0] + 2.0 * h->size[0] * c / (h->ncol - 1);
    double y = -h->size[1] + 2.0 * h->size[1] * r / (h->nrow - 1);
    return lucid_vec3_make(x, y, h->height[(size_t)r * (size_t)h->ncol + (size_t)c]);
}

/* Faces of the prism: top 0 1 2 (counter-clockwise from above), bottom 3 5 4, side i below the
 * top edge (i, i + 1 mod 3): i, i + 3, j + 3, j. Vertex i + 3 lies below vertex i. */
static const int FACE_VERTICES[18] = {0, 1, 2, 3, 5, 4, 0, 3, 4, 1, 1, 4, 5, 2, 2, 5, 3, 0};
static const int FACE_OFFSETS[6] = {0, 3, 6, 10, 14, 18};
/* Edges of each vertex (top ring, bottom ring, vertical), then the diagonals of its two side
 * quads (the extra pairs hill climbing walks on a polygonal face). */
static const int CLIMB[30] = {1, 2, 3, 5, 4, 0, 2, 4, 3, 5, 0, 1, 5, 4, 3,
                              4, 5, 0, 2, 1, 3, 5, 1, 0, 2, 3, 4, 2, 1, 0};

void lucid_heightfield_prism_build(const lucid_heightfield *h, int r, int c, int tri,
                                   lucid_heightfield_prism *p) {
    lucid_vec3 *v = p->vertices;
    if (tri == 0)
        v[0] = sample(h, r, c), v[1] = sample(h, r, c + 1), v[2] = sample(h, r + 1, c);
    else
        v[0] = sample(h, r + 1, c), v[1] = sample(h, r, c + 1), v[2] = sample(h, r + 1, c + 1);
    lucid_vec3 lo = v[0], hi = v[0];
    for (int i = 0; i < 3; ++i) {
        v[i + 3] = lucid_vec3_make(v[i].x, v[i].y, -h->size[3]);
        lo = lucid_vec3_make(fmin(lo.x, v[i].x), fmin(lo.y, v[i].y), fmin(lo.z, v[i + 3].z));
        hi = lucid_vec3_make(fmax(hi.x, v[i].x), fmax(hi.y, v[i].y), fmax(hi.z, v[i].z));
    }
    p->normals[0] = lucid_vec3_normalized(
        lucid_vec3_cross(lucid_vec3_sub(v[1], v[0]), lucid_vec3_sub(v[2], v[0])));
    p->normals[1] = lucid_vec3_make(0.0, 0.0, -1.0);
    for (int i = 0; i < 3; ++i) {
        lucid_vec3 e = lucid_vec3_sub(v[(i + 1) % 3], v[i]);
        p->normals[2 + i] = lucid_vec3_normalized(lucid_vec3_make(e.y, -e.x, 0.0));
    }
    for (int f = 0; f < 5; ++f)
        p->face_d[f] = lucid_vec3_dot(p->normals[f], v[FACE_VERTICES[FACE_OFFSETS[f]]]);
    for (int i = 0; i <= 6; ++i) p->neighbor_offsets[i] = 3 * i, p->climb_offsets[i] = 5 * i;
    for (int i = 0; i < 6; ++i)
        for (int k = 0; k < 3; ++k) p->neighbors[3 * i + k] = CLIMB[5 * i + k];
    memcpy(p->climb_neighbors, CLIMB, sizeof CLIMB);
    memcpy(p->face_offsets, FACE_OFFSETS, sizeof FACE_OFFSETS);
    memcpy(p->face_vertices, FACE_VERTICES, sizeof FACE_VERTICES);
    lucid_convex_mesh *m = &p->mesh;
    m->num_vertices = 6;
    m->vertices = p->vertices;
    m->neighbor_offsets = p->neighbor_offsets, m->neighbors = p->neighbors;
    m->climb_offsets = p->climb_offsets, m->climb_neighbors = p->climb_neighbors;
    m->num_faces = 5;
    m->face_offsets = p->face_offsets, m->face_vertices = p->face_vertices;
    m->face_normals = p->normals, m->face_offsets_d = p->face_d;
    m->box_center = lucid_vec3_scale(lucid_vec3_add(lo, hi), 0.5);
    /* exact vertices: ties are rounding of the coordinates only */
    m->tie_tolerance = 8.0 * DBL_EPSILON * lucid_vec3_max_abs(lucid_vec3_sub(hi, lo));
    memset(m->start_vertex, 0, sizeof m->start_vertex); /* 6 < the scan threshold: unused */
}

lucid_vec3 lucid_heightfield_support(const lucid_heightfield *h, lucid_vec3 dir) {
    /* the base corners, then every sample (the hull's vertices are among them) */
    lucid_vec3 best = lucid_vec3_make(dir.x >= 0.0 ? h->size[0] : -h->size[0],
                                      dir.y >= 0.0 ? h->size[1] : -h->size[1], -h->size[3]);
    double value = lucid_vec3_dot(best, dir);
    for (int r = 0; r < h->nrow; ++r)
        for (int c = 0; c < h->ncol; ++c) {
            lucid_vec3 s = sample(h, r, c);
            if (lucid_vec3_dot(s, dir) > value) best = s, value = lucid_vec3_dot(s, dir);
        }
    return best;
}

lucid_status lucid_heightfield_copy(const lucid_heightfield *h, lucid_heightfield **out) {
    if (!h || !out) return LUCID_ERR_ARGUMENT;
    size_t n = (size_t)h->nrow * (size_t)h->ncol;
    lucid_heightfield *c = malloc(sizeof *c);
    double *height = malloc(n * sizeof *height);
    if (!c || !height) {
        free(c), free(height);
        return LUCID_ERR_NO_MEMORY;
    }
    *c = *h;
    c->height = height;
    memcpy(height, h->height, n * sizeof *height);
    *out = c;
    return LUCID_OK;
}

/* The top triangle `tri` of cell (r, c): its three samples. */
static void triangle(const lucid_heightfield *h, int r, int c, int tri, lucid_vec3 v[3]) {
    if (tri == 0)
        v[0] = sample(h, r, c), v[1] = sample(h, r, c + 1), v[2] = sample(h, r + 1, c);
    else
        v[0] = sample(h, r + 1, c), v[1] = sample(h, r, c + 1), v[2] = sample(h, r + 1, c + 1);
}

/* Whether the xy projection of p lies in the triangle's, up to tol. */
static int above_triangle(const lucid_vec3 v[3], lucid_vec3 p, double tol) {
    for (int i = 0; i < 3; ++i) {
        lucid_vec3 a = v[i], b = v[(i + 1) % 3];
        double ex = b.x - a.x, ey = b.y - a.y;
        double cross = ex * (p.y - a.y) - ey * (p.x - a.x); /* > 0 inside (counter-clockwise) */
        if (cross < -tol * sqrt(ex * ex + ey * ey)) return 0;
    }
    return 1;
}

int lucid_heightfield_supports(const lucid_heightfield *h, int r, int c, int tri, lucid_vec3 p,
                               lucid_vec3 n) {
    double dx = 2.0 * h->size[0] / (h->ncol - 1), dy = 2.0 * h->size[1] / (h->nrow - 1);
    double scale = fmax(fmax(h->size[0], h->size[1]), fmax(h->top, h->size[3]));
    double tol = 1e-9 * scale;
    lucid_vec3 own[3];
    triangle(h, r, c, tri, own);
    if (above_triangle(own, p, -tol)) return 1; /* inside its own triangle: no edge */
    int r0, r1, c0, c1;
    lucid_heightfield_cells(h, lucid_vec3_make(p.x - dx, p.y - dy, -h->size[3]),
                            lucid_vec3_make(p.x + dx, p.y + dy, h->top), &r0, &r1, &c0, &c1);
    for (int i = r0; i < r1; ++i)
        for (int j = c0; j < c1; ++j)
            for (int k = 0; k < 2; ++k) {
                lucid_vec3 v[3];
                triangle(h, i, j, k, v);
                if ((i == r && j == c && k == tri) || !above_triangle(v, p, tol)) continue;
                for (int q = 0; q < 3; ++q)
                    if (lucid_vec3_dot(n, lucid_vec3_sub(v[q], p)) > tol) return 0;
            }
    return 1;
}

int lucid_heightfield_covers(const lucid_heightfield *h, int r, int c, int tri, lucid_vec3 p) {
    double scale = fmax(fmax(h->size[0], h->size[1]), fmax(h->top, h->size[3]));
    lucid_vec3 v[3];
    triangle(h, r, c, tri, v);
    return above_triangle(v, p, 1e-9 * scale);
}
