/* Approximate convex decomposition by a k-d tree of cells, each part the hull of the solid's
 * piece in its cell (runtime/shapes/mesh_decompose.h). */
#include "runtime/shapes/mesh_decompose.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/math/vec3.h"
#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/mesh_close_holes.h"

/* Split candidates along each direction: even fractions of the piece's extent, and vertex
 * positions of the piece (the walls of a hole sit on them). */
#define EVEN_CANDIDATES   7
#define VERTEX_CANDIDATES 8

lucid_decompose_options lucid_decompose_default_options(void) {
    lucid_decompose_options o = {64, 0.01, LUCID_HOLES_CLOSE};
    return o;
}

static const lucid_option_choice hole_choices[] = {
    {"close", LUCID_HOLES_CLOSE}, {"refuse", LUCID_HOLES_REFUSE}, {NULL, 0}};

#define S lucid_decompose_options
const lucid_option lucid_decompose_option_table[] = {
    LUCID_OPTION_INTEGER_ENTRY(S, "", max_parts, 1, LUCID_DECOMPOSE_MAX_PARTS,
                               "the most convex parts"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", concavity, POSITIVE,
                              "the parts' total volume may exceed the mesh's by this fraction"),
    LUCID_OPTION_CHOICE_ENTRY(S, "", holes, hole_choices, "\"close\" or \"refuse\"",
                              "an open mesh's holes: capped before decomposing, or an error"),
    LUCID_OPTION_END,
};
#undef S

/* ---- the mesh: welding, closedness, volume -------------------------------------------- */

typedef struct keyed_point {
    double x, y, z;
    int index;
} keyed_point;

static int compare_points(const void *a, const void *b) {
    const keyed_point *p = a, *q = b;
    if (p->x != q->x) return p->x < q->x ? -1 : 1;
    if (p->y != q->y) return p->y < q->y ? -1 : 1;
    if (p->z != q->z) return p->z < q->z ? -1 : 1;
    return (p->index > q->index) - (p->index < q->index);
}

/* canon[i]: the lowest index of a point with the same coordinates as point i. */
static int weld(const double *points, int n, int *canon) {
    keyed_point *k = malloc(sizeof *k * (size_t)n);
    if (k == NULL) return 0;
    for (int i = 0; i < n; ++i)
        k[i] = (keyed_point){points[3 * i], points[3 * i + 1], points[3 * i + 2], i};
    qsort(k, (size_t)n, sizeof *k, compare_points);
    for (int i = 0, first = 0; i < n; ++i) {
        if (i > 0 && (k[i].x != k[first].x || k[i].y != k[first].y || k[i].z != k[first].z))
            first = i;
        canon[k[i].index] = k[first].index;
    }
    free(k);
    return 1;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t p = *(const uint64_t *)a, q = *(const uint64_t *)b;
    return (p > q) - (p < q);
}

static uint64_t edge_key(int a, int b) {
    return (uint64_t)(uint32_t)a << 32 | (uint32_t)b;
}

typedef struct edge_census {
    size_t open, twice; /* edges without a reverse; directed edges used more than once */
    uint64_t first_open;
} edge_census;

/* Every directed edge once, and its reverse present: a closed, consistently oriented surface. */
static lucid_status count_edges(const int *tris, int nt, edge_census *census) {
    size_t m = 3 * (size_t)nt;
    uint64_t *e = malloc(sizeof *e * m);
    if (e == NULL) return LUCID_ERR_NO_MEMORY;
    for (int t = 0; t < nt; ++t)
        for (int k = 0; k < 3; ++k)
            e[3 * t + k] = edge_key(tris[3 * t + k], tris[3 * t + (k + 1) % 3]);
    qsort(e, m, sizeof *e, compare_u64);
    *census = (edge_census){0, 0, 0};
    for (size_t i = 0; i < m; ++i) {
        if (i > 0 && e[i] == e[i - 1]) census->twice++;
        uint64_t reverse = edge_key((int)(e[i] & 0xffffffffu), (int)(e[i] >> 32));
        if (bsearch(&reverse, e, m, sizeof *e, compare_u64) == NULL && census->open++ == 0)
            census->first_open = e[i];
    }
    free(e);
    return LUCID_OK;
}

/* The defect a census finds, as an error (LUCID_OK when there is none). */
static lucid_status census_error(const edge_census *c, char *err, int err_size) {
    if (c->twice > 0)
        return lucid_status_fail(
            err, err_size, LUCID_ERR_DEGENERATE,
            "%zu edges are used twice in the same direction (triangles not consistently "
            "oriented, or a non-manifold edge)",
            c->twice);
    if (c->open > 0)
        return lucid_status_fail(
            err, err_size, LUCID_ERR_DEGENERATE,
            "the mesh is not closed: %zu edges have no opposite edge (first: vertices %d "
            "to %d, 1-based)",
            c->open, (int)(c->first_open >> 32) + 1, (int)(c->first_open & 0xffffffffu) + 1);
    return LUCID_OK;
}

static double tet_volume(lucid_vec3 a, lucid_vec3 b, lucid_vec3 c) {
    return lucid_vec3_dot(a, lucid_vec3_cross(b, c)) / 6.0;
}

/* ---- cells: convex polyhedra with the surface inside them ---------------------------- */

/* A growing array of xyz points. */
typedef struct pointbuf {
    double *xyz;
    size_t n, cap;
} pointbuf;

static int push(pointbuf *p, lucid_vec3 v) {
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        double *grown = cap < SIZE_MAX / 24 ? realloc(p->xyz, sizeof(double) * 3 * cap) : NULL;
        if (grown == NULL) return 0;
        p->xyz = grown;
        p->cap = cap;
    }
    double *d = p->xyz + 3 * p->n++;
    d[0] = v.x, d[1] = v.y, d[2] = v.z;
    return 1;
}

static lucid_vec3 at(const pointbuf *p, size_t i) {
    return lucid_vec3_make(p->xyz[3 * i], p->xyz[3 * i + 1], p->xyz[3 * i + 2]);
}

/* A cell of the tree: a convex polyhedron (its vertices, each flagged inside the solid or
 * not) and the surface in it as convex polygons (the mesh's triangles clipped to it). Its
 * part is the hull of the polygons' vertices and of its vertices inside the solid: the
 * boundary of the solid's piece in the cell is those polygons and caps on the cell's faces,
 * whose corners are polygon vertices or cell vertices inside the solid. */
typedef struct cell {
    pointbuf verts;
    unsigned char *inside; /* per cell vertex */
    pointbuf poly;         /* polygon vertices, polygon after polygon */
    int *poly_end;         /* polygon k ends at vertex poly_end[k] */
    size_t num_polys, cap_polys;
    double hull_volume; /* 0 when the piece is empty or flat (the cell is dropped) */
    double *hull;       /* the part's vertices (xyz) */
    int num_hull;
    int dead;         /* not to be cut again: no candidate plane, or its last cut left one part */
    struct cell *cut; /* its chosen cut's two halves, once searched (NULL: not yet, or none) */
    struct cell *alt; /* its middle cut's halves, until one of the two is chosen */
    double rate;      /* the hull volume its cut removes per cut (choose_cut), once chosen */
    int chosen;       /* cut chosen between the two (choose_cut) */
} cell;

static void cell_free(cell *c);

static void free_halves(cell **p) {
    if (*p == NULL) return;
    cell_free(&(*p)[0]);
    cell_free(&(*p)[1]);
    free(*p);
    *p = NULL;
}

static void cell_free(cell *c) {
    free_halves(&c->cut);
    free_halves(&c->alt);
    free(c->verts.xyz);
    free(c->inside);
    free(c->poly.xyz);
    free(c->poly_end);
    free(c->hull);
    memset(c, 0, sizeof *c);
}

static int end_polygon(cell *c) {
    if (c->num_polys == c->cap_polys) {
        size_t cap = c->cap_polys ? 2 * c->cap_polys : 64;
        int *grown = cap < SIZE_MAX / 8 ? realloc(c->poly_end, sizeof(int) * cap) : NULL;
        if (grown == NULL) return 0;
        c->poly_end = grown;
        c->cap_polys = cap;
    }
    if (c->poly.n > INT32_MAX) return 0;
    c->poly_end[c->num_polys++] = (int)c->poly.n;
    return 1;
}

typedef struct context {
    const lucid_vec3 *tri; /* 3 vertices per triangle */
    int num_tris;
    double mesh_volume;
    double eps;       /* distance within which a point is on a cutting plane: 1e-12 of the mesh's
                         extent, far above the rounding of n.x - d and far below any feature */
    pointbuf scratch; /* a piece's points for its hull */
} context;

/* Whether p is in the closed solid, its surface included: its winding number (the solid
 * angles of the triangles seen from p, Van Oosterom and Strackee's formula) is 1 inside, 0
 * outside up to rounding, and between on the surface (1/2 on a face, less on a convex edge or
 * corner). A cell corner on the surface may be a corner of the piece. */
static int inside_solid(const context *c, lucid_vec3 p) {
    double omega = 0.0;
    for (int t = 0; t < c->num_tris; ++t) {
        lucid_vec3 a = lucid_vec3_sub(c->tri[3 * t], p), b = lucid_vec3_sub(c->tri[3 * t + 1], p),
                   d = lucid_vec3_sub(c->tri[3 * t + 2], p);
        double la = lucid_vec3_norm(a), lb = lucid_vec3_norm(b), ld = lucid_vec3_norm(d);
        double num = lucid_vec3_dot(a, lucid_vec3_cross(b, d));
        double den = la * lb * ld + lucid_vec3_dot(a, b) * ld + lucid_vec3_dot(a, d) * lb +
                     lucid_vec3_dot(b, d) * la;
        omega += 2.0 * atan2(num, den);
    }
    return omega > 4.0 * acos(-1.0) * 1e-6; /* winding number omega / (4 pi) above rounding */
}

/* Volume of a convex mesh: its faces fanned into tetrahedra with the origin. */
static double hull_volume(const lucid_convex_mesh *m) {
    double v = 0.0;
    for (int f = 0; f < m->num_faces; ++f) {
        const int *cycle = m->face_vertices + m->face_offsets[f];
        int n = m->face_offsets[f + 1] - m->face_offsets[f];
        for (int i = 1; i + 1 < n; ++i)
            v +=
                tet_volume(m->vertices[cycle[0]], m->vertices[cycle[i]], m->vertices[cycle[i + 1]]);
    }
    return v;
}

static int compare_xyz(const void *a, const void *b) {
    const double *p = a, *q = b;
    for (int k = 0; k < 3; ++k)
        if (p[k] != q[k]) return p[k] < q[k] ? -1 : 1;
    return 0;
}

/* The piece's points (polygon vertices, cell vertices inside) into c->scratch, each once
 * (a mesh vertex is a corner of about six polygons: qhull would see it six times). */
static int piece_points(context *c, const cell *cl) {
    c->scratch.n = 0;
    for (size_t i = 0; i < cl->poly.n; ++i)
        if (!push(&c->scratch, at(&cl->poly, i))) return 0;
    for (size_t i = 0; i < cl->verts.n; ++i)
        if (cl->inside[i] && !push(&c->scratch, at(&cl->verts, i))) return 0;
    double *x = c->scratch.xyz;
    qsort(x, c->scratch.n, 3 * sizeof(double), compare_xyz);
    size_t u = 0;
    for (size_t i = 0; i < c->scratch.n; ++i)
        if (u == 0 || compare_xyz(x + 3 * i, x + 3 * (u - 1)) != 0)
            memmove(x + 3 * u++, x + 3 * i, 3 * sizeof(double));
    c->scratch.n = u;
    return 1;
}

/* The part: the hull of the piece. A flat or empty piece gets none (hull_volume 0). */
static lucid_status make_hull(context *c, cell *cl) {
    free(cl->hull);
    cl->hull = NULL;
    cl->num_hull = 0;
    cl->hull_volume = 0.0;
    if (!piece_points(c, cl)) return LUCID_ERR_NO_MEMORY;
    if (c->scratch.n < 4 || c->scratch.n > INT32_MAX) return LUCID_OK;
    lucid_convex_mesh *m = NULL;
    lucid_status st = lucid_convex_mesh_create(c->scratch.xyz, (int)c->scratch.n, &m);
    if (st == LUCID_ERR_NO_MEMORY) return st;
    if (st != LUCID_OK) return LUCID_OK; /* flat: no volume */
    cl->hull_volume = hull_volume(m);
    cl->hull = malloc(sizeof(double) * 3 * (size_t)m->num_vertices);
    if (cl->hull != NULL) {
        memcpy(cl->hull, m->vertices, sizeof(double) * 3 * (size_t)m->num_vertices);
        cl->num_hull = m->num_vertices;
    }
    lucid_convex_mesh_destroy(m);
    return cl->hull != NULL ? LUCID_OK : LUCID_ERR_NO_MEMORY;
}

/* ---- splitting by a plane n.x = d ------------------------------------------------------- */

/* Appends the part of polygon [begin, end) of src with side * (n.x - d) >= -eps to dst: a
 * point within eps of the plane is on it (kept on both sides), so that a surface touching the
 * cell along an edge or at a corner is not lost to rounding. */
static int clip_polygon(const pointbuf *src, size_t begin, size_t end, lucid_vec3 n, double d,
                        double side, double eps, cell *dst) {
    size_t start = dst->poly.n, count = end - begin;
    for (size_t i = 0; i < count; ++i) {
        lucid_vec3 a = at(src, begin + i), b = at(src, begin + (i + 1) % count);
        double da = side * (lucid_vec3_dot(n, a) - d), db = side * (lucid_vec3_dot(n, b) - d);
        if (da >= -eps && !push(&dst->poly, a)) return 0;
        if ((da > eps && db < -eps) || (da < -eps && db > eps))
            if (!push(&dst->poly,
                      lucid_vec3_add(a, lucid_vec3_scale(lucid_vec3_sub(b, a), da / (da - db)))))
                return 0;
    }
    if (dst->poly.n == start) return 1;
    /* A polygon that only touches the plane (an edge or a corner on it) is kept: its points
     * may be corners of the piece, where the surface touches the cell along an edge. */
    return end_polygon(dst);
}

/* The two halves of cl (side -1: n.x <= d, side +1: n.x >= d): its polygons clipped, its
 * vertices on each side, and the points where its edges cross the plane (their inside flag
 * from the winding number). edges: the cell's edges as vertex index pairs. */
static lucid_status split_cell(const context *c, const cell *cl, const int *edges, size_t num_edges,
                               lucid_vec3 n, double d, cell half[2]) {
    memset(half, 0, 2 * sizeof *half);
    for (int h = 0; h < 2; ++h) {
        double side = h ? 1.0 : -1.0;
        cell *out = &half[h];
        out->inside = malloc(cl->verts.n + num_edges + 1);
        if (out->inside == NULL) return LUCID_ERR_NO_MEMORY;
        for (size_t i = 0; i < cl->verts.n; ++i)
            if (side * (lucid_vec3_dot(n, at(&cl->verts, i)) - d) >= -c->eps) {
                out->inside[out->verts.n] = cl->inside[i];
                if (!push(&out->verts, at(&cl->verts, i))) return LUCID_ERR_NO_MEMORY;
            }
        for (size_t k = 0, begin = 0; k < cl->num_polys; begin = (size_t)cl->poly_end[k++])
            if (!clip_polygon(&cl->poly, begin, (size_t)cl->poly_end[k], n, d, side, c->eps, out))
                return LUCID_ERR_NO_MEMORY;
    }
    for (size_t e = 0; e < num_edges; ++e) {
        lucid_vec3 a = at(&cl->verts, (size_t)edges[2 * e]),
                   b = at(&cl->verts, (size_t)edges[2 * e + 1]);
        double da = lucid_vec3_dot(n, a) - d, db = lucid_vec3_dot(n, b) - d;
        if (!((da > c->eps && db < -c->eps) || (da < -c->eps && db > c->eps))) continue;
        lucid_vec3 x = lucid_vec3_add(a, lucid_vec3_scale(lucid_vec3_sub(b, a), da / (da - db)));
        unsigned char in = (unsigned char)inside_solid(c, x);
        for (int h = 0; h < 2; ++h) {
            half[h].inside[half[h].verts.n] = in;
            if (!push(&half[h].verts, x)) return LUCID_ERR_NO_MEMORY;
        }
    }
    return LUCID_OK;
}

/* The cell's edges: pairs of its vertices adjacent on its hull (qhull keeps the input
 * coordinates, so each hull vertex is found among the cell's by equality). */
static lucid_status cell_edges(const cell *cl, int **edges, size_t *num_edges) {
    *edges = NULL;
    *num_edges = 0;
    lucid_convex_mesh *m = NULL;
    if (cl->verts.n > INT32_MAX) return LUCID_ERR_NO_MEMORY;
    lucid_status st = lucid_convex_mesh_create(cl->verts.xyz, (int)cl->verts.n, &m);
    if (st != LUCID_OK) return st;
    int *index = malloc(sizeof(int) * (size_t)m->num_vertices);
    *edges = malloc(sizeof(int) * (size_t)(m->neighbor_offsets[m->num_vertices] + 1));
    if (index == NULL || *edges == NULL) st = LUCID_ERR_NO_MEMORY;
    for (int i = 0; i < m->num_vertices && st == LUCID_OK; ++i) {
        index[i] = -1;
        for (size_t j = 0; j < cl->verts.n && index[i] < 0; ++j) {
            lucid_vec3 v = at(&cl->verts, j);
            if (v.x == m->vertices[i].x && v.y == m->vertices[i].y && v.z == m->vertices[i].z)
                index[i] = (int)j;
        }
        if (index[i] < 0) st = LUCID_ERR_INTERNAL;
    }
    for (int i = 0; i < m->num_vertices && st == LUCID_OK; ++i)
        for (int k = m->neighbor_offsets[i]; k < m->neighbor_offsets[i + 1]; ++k)
            if (m->neighbors[k] > i) {
                (*edges)[2 * *num_edges] = index[i];
                (*edges)[2 * *num_edges + 1] = index[m->neighbors[k]];
                ++*num_edges;
            }
    free(index);
    lucid_convex_mesh_destroy(m);
    if (st != LUCID_OK) {
        free(*edges);
        *edges = NULL;
    }
    return st;
}

/* The directions of the candidate planes: the axes and the diagonals of the coordinate
 * planes (a ring about an axis is cut into sectors by them, not only into quadrants). */
static const double directions[][3] = {{1, 0, 0}, {0, 1, 0},  {0, 0, 1}, {1, 1, 0}, {1, -1, 0},
                                       {1, 0, 1}, {1, 0, -1}, {0, 1, 1}, {0, 1, -1}};
#define NUM_DIRECTIONS (sizeof directions / sizeof directions[0])

static int compare_double(const void *a, const void *b) {
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

/* Offsets of the candidate planes along n: EVEN_CANDIDATES even fractions of the piece's
 * extent and up to VERTEX_CANDIDATES of its points' projections, strictly inside the extent.
 * proj: scratch of c->scratch.n entries. *lo, *hi: the extent. */
static int candidates(const context *c, lucid_vec3 n, double *proj, double *out, double *lo,
                      double *hi) {
    size_t m = c->scratch.n;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < m; ++i) {
        proj[i] = lucid_vec3_dot(n, at(&c->scratch, i));
        *lo = fmin(*lo, proj[i]);
        *hi = fmax(*hi, proj[i]);
    }
    if (!(*hi - *lo > 0)) return 0;
    double margin = 1e-9 * (*hi - *lo); /* a plane at the end of the extent cuts nothing */
    int count = 0;
    for (int k = 1; k <= EVEN_CANDIDATES; ++k)
        out[count++] = *lo + (*hi - *lo) * k / (EVEN_CANDIDATES + 1);
    qsort(proj, m, sizeof *proj, compare_double);
    size_t u = 0;
    for (size_t i = 0; i < m; ++i)
        if (proj[i] > *lo + margin && proj[i] < *hi - margin && (u == 0 || proj[i] != proj[u - 1]))
            proj[u++] = proj[i];
    for (size_t k = 0; k < VERTEX_CANDIDATES && k < u; ++k)
        out[count++] = proj[u <= VERTEX_CANDIDATES ? k : (k + 1) * u / (VERTEX_CANDIDATES + 1)];
    return count;
}

/* cl split by the plane n.x = d into half[2], their parts built. */
static lucid_status split_and_hull(context *c, const cell *cl, const int *edges, size_t num_edges,
                                   lucid_vec3 n, double d, cell half[2]) {
    lucid_status st = split_cell(c, cl, edges, num_edges, n, d, half);
    for (int h = 0; h < 2 && st == LUCID_OK; ++h) st = make_hull(c, &half[h]);
    if (st != LUCID_OK) cell_free(&half[0]), cell_free(&half[1]);
    return st;
}

/* Two splits of cl. best: the one whose two parts have the smallest total volume (the
 * pieces' volumes add up to the cell's whatever the plane, so this is the smallest excess); a
 * tie (within 1e-6 of the parts' total excess, cell_excess) goes to the plane nearer the
 * middle of the piece. mid: among the planes through the middle of the piece's extent, the
 * one of smallest volume (the first direction on a tie); absent (found[1] = 0) when it is
 * best's plane. A hollow's cuts all remove nothing, or a sliver, while its middle cut sets up
 * halves whose own cuts remove most of it: the caller judges the two by their halves' cuts. */
static lucid_status best_split(context *c, const cell *cl, double cell_excess, cell best[2],
                               cell mid[2], int found[2]) {
    found[0] = found[1] = 0;
    int *edges;
    size_t num_edges;
    lucid_status st = cell_edges(cl, &edges, &num_edges);
    if (st != LUCID_OK) return st == LUCID_ERR_NO_MEMORY ? st : LUCID_OK;
    if (!piece_points(c, cl)) st = LUCID_ERR_NO_MEMORY;
    size_t m = c->scratch.n;
    double *proj = malloc(sizeof(double) * (m + 1));
    if (proj == NULL) st = LUCID_ERR_NO_MEMORY;
    double best_volume = INFINITY, best_balance = INFINITY, tie = 1e-6 * cell_excess;
    double mid_volume = INFINITY, best_d = 0.0, mid_d = 0.0;
    lucid_vec3 best_n = lucid_vec3_make(0, 0, 0), mid_n = best_n;
    for (size_t k = 0; k < NUM_DIRECTIONS && st == LUCID_OK; ++k) {
        lucid_vec3 n = lucid_vec3_make(directions[k][0], directions[k][1], directions[k][2]);
        n = lucid_vec3_scale(n, 1.0 / lucid_vec3_norm(n));
        double planes[EVEN_CANDIDATES + VERTEX_CANDIDATES], lo, hi;
        if (!piece_points(c, cl)) st = LUCID_ERR_NO_MEMORY;
        int np = st == LUCID_OK ? candidates(c, n, proj, planes, &lo, &hi) : 0;
        for (int p = 0; p < np && st == LUCID_OK; ++p) {
            cell half[2];
            st = split_and_hull(c, cl, edges, num_edges, n, planes[p], half);
            if (st != LUCID_OK) break;
            double volume = half[0].hull_volume + half[1].hull_volume;
            double balance = fabs(planes[p] - 0.5 * (lo + hi)) / (hi - lo);
            if (p == EVEN_CANDIDATES / 2 && volume < mid_volume - tie)
                mid_volume = volume, mid_n = n, mid_d = planes[p], found[1] = 1;
            if (volume < best_volume - tie ||
                (volume <= best_volume + tie && balance < best_balance)) {
                if (found[0]) cell_free(&best[0]), cell_free(&best[1]);
                best[0] = half[0];
                best[1] = half[1];
                best_volume = volume;
                best_balance = balance;
                best_n = n, best_d = planes[p];
                found[0] = 1;
            } else {
                cell_free(&half[0]);
                cell_free(&half[1]);
            }
        }
    }
    if (st == LUCID_OK && found[1] && mid_d == best_d && lucid_vec3_dot(mid_n, best_n) == 1.0)
        found[1] = 0;
    if (st == LUCID_OK && found[1]) {
        st = split_and_hull(c, cl, edges, num_edges, mid_n, mid_d, mid);
        if (st != LUCID_OK) found[1] = 0;
    }
    free(proj);
    free(edges);
    if (st != LUCID_OK && found[0]) cell_free(&best[0]), cell_free(&best[1]), found[0] = 0;
    if (st != LUCID_OK && found[1]) cell_free(&mid[0]), cell_free(&mid[1]), found[1] = 0;
    return st;
}

/* ---- the decomposition ----------------------------------------------------------------- */

static lucid_status check_input(const double *points, int np, const int *tris, int nt,
                                const lucid_decompose_options *o, char *err, int err_size) {
    if (points == NULL || tris == NULL || o == NULL)
        return lucid_status_fail(err, err_size, LUCID_ERR_ARGUMENT, "invalid arguments");
    if (np < 4 || nt < 1) /* fewer triangles than a tetrahedron's are open: see below */
        return lucid_status_fail(err, err_size, LUCID_ERR_ARGUMENT,
                                 "a solid needs at least 4 vertices and a triangle (got %d and %d)",
                                 np, nt);
    if (nt > INT32_MAX / 3)
        return lucid_status_fail(err, err_size, LUCID_ERR_ARGUMENT, "too many triangles (%d)", nt);
    const char *why = NULL;
    if (lucid_option_table_check(lucid_decompose_option_table, o, &why) != LUCID_OK)
        return lucid_status_fail(err, err_size, LUCID_ERR_ARGUMENT,
                                 "%s (got %d parts, concavity %g, holes %s)", why, o->max_parts,
                                 o->concavity,
                                 o->holes == LUCID_HOLES_CLOSE    ? "close"
                                 : o->holes == LUCID_HOLES_REFUSE ? "refuse"
                                                                  : "unknown");
    for (int i = 0; i < 3 * np; ++i)
        if (!isfinite(points[i]))
            return lucid_status_fail(err, err_size, LUCID_ERR_NONFINITE, "vertex %d is not finite",
                                     i / 3 + 1);
    for (int t = 0; t < nt; ++t)
        for (int k = 0; k < 3; ++k)
            if (tris[3 * t + k] < 0 || tris[3 * t + k] >= np)
                return lucid_status_fail(
                    err, err_size, LUCID_ERR_ARGUMENT,
                    "triangle %d refers to vertex %d (the mesh has %d, 1-based)", t + 1,
                    tris[3 * t + k] + 1, np);
    return LUCID_OK;
}

/* *welded: the triangles on welded vertices (malloc'd); a triangle with two corners at one
 * point is refused. */
static lucid_status weld_triangles(const double *points, int np, const int *tris, int nt,
                                   int **welded, char *err, int err_size) {
    int *canon = malloc(sizeof(int) * (size_t)np);
    *welded = malloc(sizeof(int) * 3 * (size_t)nt);
    lucid_status st = LUCID_OK;
    if (canon == NULL || *welded == NULL || !weld(points, np, canon))
        st = lucid_status_fail(err, err_size, LUCID_ERR_NO_MEMORY, "out of memory");
    for (int t = 0; t < nt && st == LUCID_OK; ++t) {
        int *w = *welded + 3 * t;
        for (int k = 0; k < 3; ++k) w[k] = canon[tris[3 * t + k]];
        if (w[0] == w[1] || w[1] == w[2] || w[2] == w[0])
            st = lucid_status_fail(err, err_size, LUCID_ERR_DEGENERATE,
                                   "triangle %d has two corners at the same point", t + 1);
    }
    free(canon);
    return st;
}

/* Caps the holes of the welded triangles (options "close", into caps) and appends the caps to
 * them; *census is then the capped mesh's. */
static lucid_status close_holes(const double *points, int np, int **welded, int nt,
                                lucid_hole_caps *caps, edge_census *census, char *err,
                                int err_size) {
    lucid_status st = lucid_mesh_close_holes(points, np, *welded, nt, caps, err, err_size);
    if (st != LUCID_OK) return st;
    int *grown = realloc(*welded, sizeof(int) * 3 * ((size_t)nt + (size_t)caps->num_triangles));
    if (grown == NULL)
        return lucid_status_fail(err, err_size, LUCID_ERR_NO_MEMORY, "out of memory");
    *welded = grown;
    memcpy(grown + 3 * (size_t)nt, caps->triangles, sizeof(int) * 3 * (size_t)caps->num_triangles);
    if (count_edges(grown, nt + caps->num_triangles, census) != LUCID_OK)
        return lucid_status_fail(err, err_size, LUCID_ERR_NO_MEMORY, "out of memory");
    if (census->twice == 0 && census->open == 0) return LUCID_OK;
    char why[256];
    census_error(census, why, (int)sizeof why);
    return lucid_status_fail(err, err_size, LUCID_ERR_DEGENERATE, "after capping %d holes: %s",
                             caps->num_holes, why);
}

/* The triangles on welded vertices, their holes capped (holes "close", the caps in caps),
 * checked closed; *tri their corner positions, *num_tris their count (the mesh's, then the
 * caps'). */
static lucid_status prepare_mesh(const double *points, int np, const int *tris, int nt, int holes,
                                 lucid_hole_caps *caps, lucid_vec3 **tri, int *num_tris, char *err,
                                 int err_size) {
    int *welded = NULL;
    *tri = NULL;
    lucid_status st = weld_triangles(points, np, tris, nt, &welded, err, err_size);
    edge_census census = {0, 0, 0};
    if (st == LUCID_OK && count_edges(welded, nt, &census) != LUCID_OK)
        st = lucid_status_fail(err, err_size, LUCID_ERR_NO_MEMORY, "out of memory");
    if (st == LUCID_OK && census.twice == 0 && census.open > 0 && holes == LUCID_HOLES_CLOSE)
        st = close_holes(points, np, &welded, nt, caps, &census, err, err_size);
    if (st == LUCID_OK) st = census_error(&census, err, err_size);
    *num_tris = nt + caps->num_triangles;
    if (st == LUCID_OK && (*tri = malloc(sizeof(lucid_vec3) * 3 * (size_t)*num_tris)) == NULL)
        st = lucid_status_fail(err, err_size, LUCID_ERR_NO_MEMORY, "out of memory");
    for (int i = 0; i < 3 * *num_tris && st == LUCID_OK; ++i) {
        int v = welded[i];
        (*tri)[i] = lucid_vec3_make(points[3 * v], points[3 * v + 1], points[3 * v + 2]);
    }
    free(welded);
    return st;
}

/* The root cell: the mesh's bounding box, all its triangles. */
static lucid_status root_cell(context *c, cell *root) {
    memset(root, 0, sizeof *root);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < 3 * c->num_tris; ++i)
        for (int j = 0; j < 3; ++j) {
            lo[j] = fmin(lo[j], lucid_vec3_get(c->tri[i], j));
            hi[j] = fmax(hi[j], lucid_vec3_get(c->tri[i], j));
        }
    c->eps = 1e-12 * sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                          (hi[2] - lo[2]) * (hi[2] - lo[2]));
    root->inside = malloc(8);
    if (root->inside == NULL) return LUCID_ERR_NO_MEMORY;
    for (int k = 0; k < 8; ++k) {
        lucid_vec3 v =
            lucid_vec3_make(k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]);
        root->inside[k] = (unsigned char)inside_solid(c, v);
        if (!push(&root->verts, v)) return LUCID_ERR_NO_MEMORY;
    }
    for (int t = 0; t < c->num_tris; ++t) {
        for (int k = 0; k < 3; ++k)
            if (!push(&root->poly, c->tri[3 * t + k])) return LUCID_ERR_NO_MEMORY;
        if (!end_polygon(root)) return LUCID_ERR_NO_MEMORY;
    }
    return make_hull(c, root);
}

/* Two halves of a cell, malloc'd (NULL when out of memory; the halves are then freed). */
static cell *own_halves(cell half[2]) {
    cell *p = malloc(2 * sizeof *p);
    if (p == NULL) {
        cell_free(&half[0]);
        cell_free(&half[1]);
        return NULL;
    }
    p[0] = half[0];
    p[1] = half[1];
    return p;
}

/* Searches cl's two cuts (best_split) once: cut, the best, and alt, the middle one. */
static lucid_status search_cut(context *c, cell *cl, double excess_total) {
    if (cl->dead || cl->cut != NULL) return LUCID_OK;
    cell best[2], mid[2];
    int found[2];
    lucid_status st = best_split(c, cl, excess_total, best, mid, found);
    if (st != LUCID_OK) return st;
    if (!found[0]) {
        cl->dead = 1;
        return LUCID_OK;
    }
    if ((cl->cut = own_halves(best)) == NULL) {
        if (found[1]) cell_free(&mid[0]), cell_free(&mid[1]);
        return LUCID_ERR_NO_MEMORY;
    }
    if (found[1] && (cl->alt = own_halves(mid)) == NULL) return LUCID_ERR_NO_MEMORY;
    return LUCID_OK;
}

/* The hull volume removed by cut (cl's halves) and by each half's own cut: g, g0, g1. */
static void cut_gains(const cell *cl, const cell *cut, double g[3]) {
    g[0] = cl->hull_volume - cut[0].hull_volume - cut[1].hull_volume;
    for (int h = 0; h < 2; ++h)
        g[1 + h] =
            cut[h].cut == NULL
                ? 0.0
                : fmax(cut[h].hull_volume - cut[h].cut[0].hull_volume - cut[h].cut[1].hull_volume,
                       0.0);
}

/* cl's cut: of its two, the one that removes more hull volume over two levels, g + g0 + g1
 * (its halves' cuts searched here; the volume of a single cut cannot tell a hollow's cuts
 * apart, all of which remove nothing). cl->rate: the volume it removes per cut, at its best
 * over its next one to three cuts, max(g, (g + max(g0, g1)) / 2, (g + g0 + g1) / 3): the
 * first cut of a ring removes nothing (each half's hull is a half disc) while its quarters
 * lose most of it, so the order of the cuts sees the second level too. */
static lucid_status choose_cut(context *c, cell *cl, double excess_total) {
    lucid_status st = search_cut(c, cl, excess_total);
    if (st != LUCID_OK || cl->dead || cl->chosen) return st;
    cell *options[2] = {cl->cut, cl->alt};
    double g[2][3], total[2] = {-INFINITY, -INFINITY};
    for (int k = 0; k < 2; ++k) {
        if (options[k] == NULL) continue;
        for (int h = 0; h < 2 && st == LUCID_OK; ++h)
            if (options[k][h].hull != NULL) st = search_cut(c, &options[k][h], excess_total);
        if (st != LUCID_OK) return st;
        cut_gains(cl, options[k], g[k]);
        total[k] = g[k][0] + g[k][1] + g[k][2];
    }
    int k = total[1] > total[0];
    if (k) {
        cl->cut = cl->alt;
        cl->alt = options[0];
    }
    free_halves(&cl->alt);
    cl->rate = fmax(g[k][0], fmax((g[k][0] + fmax(g[k][1], g[k][2])) / 2.0, total[k] / 3.0));
    cl->chosen = 1;
    return LUCID_OK;
}

/* Cuts the part whose cut removes the most hull volume per cut over two levels (choose_cut; the
 * largest part when none removes any) until the parts' volume is within concavity of the
 * mesh's or there are max_parts parts. */
static lucid_status refine(context *c, cell *cells, int *count, const lucid_decompose_options *o) {
    for (;;) {
        double total = 0.0;
        for (int i = 0; i < *count; ++i) total += cells[i].hull_volume;
        if (total <= (1.0 + o->concavity) * c->mesh_volume || *count >= o->max_parts)
            return LUCID_OK;
        int w = -1, largest = -1;
        double best_rate = -INFINITY;
        for (int i = 0; i < *count; ++i) {
            lucid_status st = choose_cut(c, &cells[i], total - c->mesh_volume);
            if (st != LUCID_OK) return st;
            if (cells[i].dead) continue;
            double rate = cells[i].rate;
            if (w < 0 || rate > best_rate) w = i, best_rate = rate;
            if (largest < 0 || cells[i].hull_volume > cells[largest].hull_volume) largest = i;
        }
        if (w < 0) return LUCID_OK;
        if (!(best_rate > 1e-6 * (total - c->mesh_volume))) w = largest;
        cell *half = cells[w].cut;
        if (half[0].hull == NULL && half[1].hull == NULL) { /* no solid on either side: */
            free_halves(&cells[w].cut);                     /* the piece stays whole */
            cells[w].dead = 1;
            continue;
        }
        cells[w].cut = NULL;
        cell_free(&cells[w]);
        cells[w] = cells[--*count];
        int kept = 0;
        for (int h = 0; h < 2; ++h) {
            if (half[h].hull != NULL)
                cells[(*count)++] = half[h], kept++;
            else
                cell_free(&half[h]);
        }
        free(half);
        /* a cut that only shaved a flat sliver off would not end: the piece stays whole */
        if (kept == 1) cells[*count - 1].dead = 1;
    }
}

static lucid_status export_parts(const cell *cells, int count, double mesh_volume,
                                 lucid_decomposition *out) {
    size_t total = 0;
    for (int i = 0; i < count; ++i) total += (size_t)cells[i].num_hull;
    out->part_offsets = malloc(sizeof(int) * ((size_t)count + 1));
    out->points = malloc(sizeof(double) * 3 * (total > 0 ? total : 1));
    if (out->part_offsets == NULL || out->points == NULL) {
        lucid_decomposition_free(out);
        return LUCID_ERR_NO_MEMORY;
    }
    out->num_parts = count;
    out->mesh_volume = mesh_volume;
    out->parts_volume = 0.0;
    out->part_offsets[0] = 0;
    for (int i = 0; i < count; ++i) {
        memcpy(out->points + 3 * (size_t)out->part_offsets[i], cells[i].hull,
               sizeof(double) * 3 * (size_t)cells[i].num_hull);
        out->part_offsets[i + 1] = out->part_offsets[i] + cells[i].num_hull;
        out->parts_volume += cells[i].hull_volume;
    }
    return LUCID_OK;
}

/* The holes closed, and the caps' triangles (moved from caps), into out. */
static void take_caps(lucid_hole_caps *caps, lucid_decomposition *out) {
    out->holes_closed = caps->num_holes;
    out->hole_edges = caps->num_edges;
    out->hole_deviation = caps->max_deviation;
    out->cap_triangles = caps->triangles;
    out->num_cap_triangles = caps->num_triangles;
    caps->triangles = NULL;
    caps->num_triangles = 0;
}

lucid_status lucid_mesh_decompose(const double *points, int num_points, const int *triangles,
                                  int num_triangles, const lucid_decompose_options *options,
                                  lucid_decomposition *out, char *err, int err_size) {
    if (err != NULL && err_size > 0) err[0] = '\0';
    if (out == NULL)
        return lucid_status_fail(err, err_size, LUCID_ERR_ARGUMENT, "invalid arguments");
    memset(out, 0, sizeof *out);
    lucid_status st =
        check_input(points, num_points, triangles, num_triangles, options, err, err_size);
    if (st != LUCID_OK) return st;
    context c = {NULL, 0, 0.0, 0.0, {NULL, 0, 0}};
    lucid_vec3 *tri;
    lucid_hole_caps caps = {0};
    st = prepare_mesh(points, num_points, triangles, num_triangles, options->holes, &caps, &tri,
                      &c.num_tris, err, err_size);
    if (st != LUCID_OK) {
        lucid_hole_caps_free(&caps);
        free(tri);
        return st;
    }
    c.tri = tri;
    for (int t = 0; t < c.num_tris; ++t)
        c.mesh_volume += tet_volume(tri[3 * t], tri[3 * t + 1], tri[3 * t + 2]);
    if (!(c.mesh_volume > 0) || !isfinite(c.mesh_volume)) {
        lucid_hole_caps_free(&caps);
        free(tri);
        return lucid_status_fail(
            err, err_size, LUCID_ERR_DEGENERATE,
            "the mesh's volume is %g (a closed mesh's triangles must face outwards, "
            "counter-clockwise seen from outside)",
            c.mesh_volume);
    }
    cell *cells = calloc((size_t)options->max_parts + 1, sizeof *cells);
    int count = 0;
    st = cells == NULL ? LUCID_ERR_NO_MEMORY : root_cell(&c, &cells[0]);
    if (cells != NULL) count = 1;
    if (st == LUCID_OK && cells[0].hull == NULL)
        st = lucid_status_fail(err, err_size, LUCID_ERR_DEGENERATE,
                               "the mesh's convex hull cannot be built");
    if (st == LUCID_OK) st = refine(&c, cells, &count, options);
    if (st == LUCID_OK) st = export_parts(cells, count, c.mesh_volume, out);
    if (st == LUCID_OK) take_caps(&caps, out);
    lucid_hole_caps_free(&caps);
    for (int i = 0; i < count; ++i) cell_free(&cells[i]);
    free(cells);
    free(c.scratch.xyz);
    free(tri);
    if (st == LUCID_ERR_NO_MEMORY) return lucid_status_fail(err, err_size, st, "out of memory");
    if (st != LUCID_OK && err != NULL && err_size > 0 && err[0] == '\0')
        return lucid_status_fail(err, err_size, st, "decomposition failed (status %d)", (int)st);
    return st;
}

void lucid_decomposition_free(lucid_decomposition *d) {
    if (d == NULL) return;
    free(d->part_offsets);
    free(d->points);
    free(d->cap_triangles);
    d->part_offsets = NULL;
    d->points = NULL;
    d->cap_triangles = NULL;
    d->num_cap_triangles = 0;
    d->num_parts = 0;
}
