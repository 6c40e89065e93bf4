/* Convex hulls through libqhull_r, converted into compact arrays we own; support by linear
 * scan or hill climbing on the vertex adjacency. */
#include "runtime/shapes/convex_mesh.h"

#include <float.h>
#include <limits.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libqhull_r/qhull_ra.h>

#include "runtime/math/finite.h"

/* ---- support ---------------------------------------------------------------------------- */

int lucid_convex_mesh_support_scan(const lucid_convex_mesh *mesh, lucid_vec3 dir) {
    int best = 0;
    double best_value = lucid_vec3_dot(mesh->vertices[0], dir);
    for (int i = 1; i < mesh->num_vertices; ++i) {
        double value = lucid_vec3_dot(mesh->vertices[i], dir);
        if (value > best_value) { /* strict: the lowest index wins ties */
            best_value = value;
            best = i;
        }
    }
    return best;
}

/* The neighbour of v with the largest <dir, .> above `above` (strictly), or -1; *value_out:
 * the largest neighbour value seen (above itself when none is higher). */
static int better_neighbour(const lucid_convex_mesh *mesh, lucid_vec3 dir, int v, double above,
                            double *value_out) {
    int best = -1;
    double top = -INFINITY;
    for (int k = mesh->climb_offsets[v]; k < mesh->climb_offsets[v + 1]; ++k) {
        int j = mesh->climb_neighbors[k];
        double value = lucid_vec3_dot(mesh->vertices[j], dir);
        if (value > top) top = value;
        if (value > above) above = value, best = j;
    }
    *value_out = best >= 0 ? above : top;
    return best;
}

/* The width of a tie along dir: the hull's tolerance times |dir|_1 (an upper bound of
 * <dir, u> over |u| <= tolerance, and of the rounding of <dir, v> on the hull). */
static double tie_slack(const lucid_convex_mesh *mesh, lucid_vec3 dir) {
    return mesh->tie_tolerance * (fabs(dir.x) + fabs(dir.y) + fabs(dir.z));
}

/* Searched from a stuck vertex v: the vertices tied with v (<dir, .> within tie_slack of
 * value) reachable from it through tied vertices, for one with a neighbour strictly above
 * value. Returns that tied vertex (and its better neighbour in *next), or -1 when the tied
 * set (explored up to LUCID_CONVEX_MESH_PLATEAU_MAX vertices) has none. Bounded, so it
 * allocates nothing. */
static int across_plateau(const lucid_convex_mesh *mesh, lucid_vec3 dir, int v, double value,
                          int *next, double *next_value) {
    int tied[LUCID_CONVEX_MESH_PLATEAU_MAX];
    int count = 0;
    tied[count++] = v;
    double floor = value - tie_slack(mesh, dir);
    for (int q = 0; q < count; ++q) {
        for (int k = mesh->climb_offsets[tied[q]]; k < mesh->climb_offsets[tied[q] + 1]; ++k) {
            int j = mesh->climb_neighbors[k], seen = 0;
            if (!(lucid_vec3_dot(mesh->vertices[j], dir) >= floor)) continue;
            for (int i = 0; i < count && !seen; ++i) seen = tied[i] == j;
            if (seen) continue;
            *next = better_neighbour(mesh, dir, j, value, next_value);
            if (*next >= 0) return j;
            if (count < LUCID_CONVEX_MESH_PLATEAU_MAX) tied[count++] = j;
        }
    }
    return -1;
}

/* Steepest ascent along hull edges (and the diagonals of polygonal faces, see
 * build_adjacency). Each move strictly increases <dir, v>, so it terminates. On an exactly
 * convex polytope a vertex with no strictly better neighbour is a global maximiser (its
 * normal cone contains dir). qhull's hull is convex only up to its merging tolerance: a
 * vertex can be stuck behind vertices tied with it up to that tolerance, one of which has a
 * better neighbour (found by the fuzz harness, tests/fuzz: coordinates spanning 1e-300 to
 * 1e240; two vertices 2e-7 apart on a cloud of extent 4e6, where the climb stopped 4% of the
 * extent short). The climb then crosses the tied vertices (across_plateau). Every move still
 * ends strictly higher. */
int lucid_convex_mesh_support_climb(const lucid_convex_mesh *mesh, lucid_vec3 dir, int start) {
    int current = start;
    double best_value = lucid_vec3_dot(mesh->vertices[current], dir);
    for (;;) {
        double value;
        int next = better_neighbour(mesh, dir, current, best_value, &value);
        if (next < 0) { /* a plateau only where a neighbour is tied up to the tolerance */
            if (!(value >= best_value - tie_slack(mesh, dir)) ||
                across_plateau(mesh, dir, current, best_value, &next, &value) < 0)
                return current;
        }
        current = next, best_value = value;
    }
}

/* Cell index in [0, 6 G) of the grid coordinate t in [-1, 1] (comparisons before the cast:
 * t may be NaN when dir has infinite entries). */
static int grid_index(double t) {
    double g = (t + 1.0) * (0.5 * LUCID_CONVEX_MESH_START_GRID);
    if (!(g >= 1.0)) return 0;
    if (!(g < LUCID_CONVEX_MESH_START_GRID - 1.0)) return LUCID_CONVEX_MESH_START_GRID - 1;
    return (int)g;
}

/* Cube-map cell of dir: the face of its largest |component|, then the grid cell of the other
 * two components divided by it. -1 for a zero or NaN direction. */
static int start_cell(lucid_vec3 dir) {
    double ax = fabs(dir.x), ay = fabs(dir.y), az = fabs(dir.z), major, u, v;
    int face;
    if (ax >= ay && ax >= az) {
        face = dir.x >= 0.0 ? 0 : 1;
        major = ax, u = dir.y, v = dir.z;
    } else if (ay >= az) {
        face = dir.y >= 0.0 ? 2 : 3;
        major = ay, u = dir.z, v = dir.x;
    } else {
        face = dir.z >= 0.0 ? 4 : 5;
        major = az, u = dir.x, v = dir.y;
    }
    if (!(major > 0.0)) return -1;
    return (face * LUCID_CONVEX_MESH_START_GRID + grid_index(u / major)) *
               LUCID_CONVEX_MESH_START_GRID +
           grid_index(v / major);
}

/* Central direction of a cell (inverse of start_cell). */
static lucid_vec3 cell_direction(int cell) {
    const int G = LUCID_CONVEX_MESH_START_GRID;
    int face = cell / (G * G), i = cell / G % G, j = cell % G;
    double major = face % 2 == 0 ? 1.0 : -1.0;
    double u = -1.0 + (2.0 * i + 1.0) / G, v = -1.0 + (2.0 * j + 1.0) / G;
    if (face < 2) return lucid_vec3_make(major, u, v);
    if (face < 4) return lucid_vec3_make(v, major, u);
    return lucid_vec3_make(u, v, major);
}

/* Each cell's support vertex, climbing from the previous cell's (neighbouring cells have
 * nearby answers, so this costs a few steps per cell even on large hulls). */
static void fill_start_vertices(lucid_convex_mesh *m) {
    int v = 0;
    for (int c = 0; c < LUCID_CONVEX_MESH_START_CELLS; ++c)
        m->start_vertex[c] = v = lucid_convex_mesh_support_climb(m, cell_direction(c), v);
}

/* The hint or the cell's precomputed vertex, whichever is higher along dir (the hint on ties):
 * GJK's first directions turn a lot, and from the table entry the climb is a few steps. */
static int climb_start(const lucid_convex_mesh *mesh, lucid_vec3 dir, const int *hint) {
    int cell = start_cell(dir);
    int table = cell >= 0 ? mesh->start_vertex[cell] : 0;
    if (hint == NULL || *hint < 0 || *hint >= mesh->num_vertices) return table;
    int h = *hint;
    return lucid_vec3_dot(mesh->vertices[table], dir) > lucid_vec3_dot(mesh->vertices[h], dir)
               ? table
               : h;
}

int lucid_convex_mesh_support_index(const lucid_convex_mesh *mesh, lucid_vec3 dir, int *hint) {
    int found;
    if (mesh->num_vertices < LUCID_CONVEX_MESH_SCAN_THRESHOLD) {
        found = lucid_convex_mesh_support_scan(mesh, dir);
    } else {
        found = lucid_convex_mesh_support_climb(mesh, dir, climb_start(mesh, dir, hint));
    }
    if (hint != NULL) *hint = found;
    return found;
}

lucid_vec3 lucid_convex_mesh_support(const lucid_convex_mesh *mesh, lucid_vec3 dir, int *hint) {
    return mesh->vertices[lucid_convex_mesh_support_index(mesh, dir, hint)];
}

/* ---- creation: input checks ----------------------------------------------------------- */

static void set_message(char *err, int err_size, const char *msg) {
    if (err != NULL && err_size > 0) snprintf(err, (size_t)err_size, "%s", msg);
}

static lucid_vec3 point_at(const double *points, int i) {
    return lucid_vec3_load(points + 3 * i);
}

/* The point of largest |p - p0| (dims 3), distance to the line p0 + t axis (dims 2) or
 * distance to the plane through p0 with unit normal axis (dims 1); *dist receives it. */
static int farthest(const double *points, int n, lucid_vec3 p0, lucid_vec3 axis, int dims,
                    double *dist) {
    int best = 0;
    *dist = -1.0;
    for (int i = 0; i < n; ++i) {
        lucid_vec3 d = lucid_vec3_sub(point_at(points, i), p0);
        double m = dims == 3   ? lucid_vec3_norm(d)
                   : dims == 2 ? lucid_vec3_norm(lucid_vec3_cross(axis, d))
                               : fabs(lucid_vec3_dot(axis, d));
        if (m > *dist) {
            *dist = m;
            best = i;
        }
    }
    return best;
}

/* Rejects point sets with no volume before qhull sees them, so every degenerate case gets a
 * precise message. The tolerance is relative to the point set's size. */
static lucid_status check_volume(const double *points, int n, char *err, int err_size) {
    lucid_vec3 p0 = point_at(points, 0);
    double size, line_dist, plane_dist;
    int a = farthest(points, n, p0, lucid_vec3_zero(), 3, &size);
    if (size == 0.0) {
        set_message(err, err_size, "all points coincide");
        return LUCID_ERR_DEGENERATE;
    }
    double tol = 1e-10 * size;
    lucid_vec3 axis = lucid_vec3_normalized(lucid_vec3_sub(point_at(points, a), p0));
    int b = farthest(points, n, p0, axis, 2, &line_dist);
    if (line_dist <= tol) {
        set_message(err, err_size, "points are collinear");
        return LUCID_ERR_DEGENERATE;
    }
    lucid_vec3 normal =
        lucid_vec3_normalized(lucid_vec3_cross(axis, lucid_vec3_sub(point_at(points, b), p0)));
    farthest(points, n, p0, normal, 1, &plane_dist);
    if (plane_dist <= tol) {
        set_message(err, err_size, "points are coplanar");
        return LUCID_ERR_DEGENERATE;
    }
    return LUCID_OK;
}

static lucid_status check_finite_count(const double *points, int n, char *err, int err_size) {
    if (n == 0) {
        set_message(err, err_size, "no points");
        return LUCID_ERR_DEGENERATE;
    }
    if (!lucid_all_finite(points, 3 * (size_t)n)) {
        set_message(err, err_size, "points contain NaN or Inf");
        return LUCID_ERR_NONFINITE;
    }
    if (n < 4) {
        set_message(err, err_size, "a convex hull needs at least 4 points");
        return LUCID_ERR_DEGENERATE;
    }
    return LUCID_OK;
}

/* ---- creation: from qhull's facets to our arrays -------------------------------------- */

void lucid_convex_mesh_destroy(lucid_convex_mesh *mesh) {
    if (mesh == NULL) return;
    free(mesh->vertices);
    free(mesh->neighbor_offsets);
    free(mesh->neighbors);
    free(mesh->climb_offsets);
    free(mesh->climb_neighbors);
    free(mesh->face_offsets);
    free(mesh->face_vertices);
    free(mesh->face_normals);
    free(mesh->face_offsets_d);
    free(mesh);
}

/* Hull vertices numbered in increasing input order (independent of qhull's internal ids);
 * index_of[point id] is the vertex number or -1. */
static int number_vertices(qhT *qh, int n, int *index_of) {
    vertexT *vertex;
    for (int i = 0; i < n; ++i) index_of[i] = -1;
    FORALLvertices index_of[qh_pointid(qh, vertex->point)] = 0;
    int count = 0;
    for (int i = 0; i < n; ++i)
        if (index_of[i] == 0) index_of[i] = count++;
    return count;
}

/* v times 2^e, exactly (ldexp per component: 2^e alone may overflow for subnormal clouds). */
static lucid_vec3 scale_exp(lucid_vec3 v, int e) {
    return lucid_vec3_make(ldexp(v.x, e), ldexp(v.y, e), ldexp(v.z, e));
}

/* Reverses face f's cycle if its Newell normal disagrees with the outward facet normal (on
 * the vertices times 2^-exponent, so the cross products neither overflow nor underflow
 * whatever the mesh's size). */
static void orient_face(lucid_convex_mesh *m, int f, int exponent) {
    int *cycle = m->face_vertices + m->face_offsets[f];
    int k = m->face_offsets[f + 1] - m->face_offsets[f];
    lucid_vec3 newell = lucid_vec3_zero();
    for (int i = 0; i < k; ++i)
        newell = lucid_vec3_add(
            newell, lucid_vec3_cross(scale_exp(m->vertices[cycle[i]], -exponent),
                                     scale_exp(m->vertices[cycle[(i + 1) % k]], -exponent)));
    if (lucid_vec3_dot(newell, m->face_normals[f]) >= 0.0) return;
    for (int i = 0, j = k - 1; i < j; ++i, --j) {
        int t = cycle[i];
        cycle[i] = cycle[j];
        cycle[j] = t;
    }
}

/* qhull ran on the points times 2^-exponent: its unit normals hold as they are, its offsets
 * are scaled back by 2^exponent (exactly). */
static lucid_status copy_faces(qhT *qh, lucid_convex_mesh *m, const int *index_of, int exponent) {
    facetT *facet;
    vertexT *vertex, **vertexp;
    int faces = 0, corners = 0;
    FORALLfacets {
        faces++;
        corners += qh_setsize(qh, facet->vertices);
    }
    m->num_faces = faces;
    m->face_offsets = malloc(sizeof(int) * (size_t)(faces + 1));
    m->face_vertices = malloc(sizeof(int) * (size_t)corners);
    m->face_normals = malloc(sizeof(lucid_vec3) * (size_t)faces);
    m->face_offsets_d = malloc(sizeof(double) * (size_t)faces);
    if (!m->face_offsets || !m->face_vertices || !m->face_normals || !m->face_offsets_d)
        return LUCID_ERR_NO_MEMORY;
    int f = 0, c = 0;
    FORALLfacets {
        m->face_offsets[f] = c;
        /* qh_facet3vertex lists a 3-d facet's vertices in cyclic order. */
        setT *cycle = qh_facet3vertex(qh, facet);
        FOREACHvertex_(cycle) m->face_vertices[c++] = index_of[qh_pointid(qh, vertex->point)];
        qh_settempfree(qh, &cycle);
        m->face_normals[f] = lucid_vec3_load(facet->normal);
        m->face_offsets_d[f] = ldexp(-facet->offset, exponent); /* qhull: n.x + offset = 0 */
        f++;
    }
    m->face_offsets[f] = c;
    for (int g = 0; g < faces; ++g) orient_face(m, g, exponent);
    return LUCID_OK;
}

static int compare_edges(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The vertex graph in CSR form (neighbours ascending): the consecutive pairs of the face
 * cycles (the hull's edges, each seen twice), and with `diagonals` also every other pair of
 * vertices of a polygonal face. Collected, sorted and deduplicated. */
static lucid_status build_graph(const lucid_convex_mesh *m, int diagonals, int **offsets_out,
                                int **list_out) {
    int nv = m->num_vertices;
    size_t pairs = 0;
    for (int f = 0; f < m->num_faces; ++f) {
        size_t k = (size_t)(m->face_offsets[f + 1] - m->face_offsets[f]);
        pairs += diagonals ? k * (k - 1) / 2 : k;
    }
    if (pairs > (size_t)INT_MAX / 2) return LUCID_ERR_NO_MEMORY;
    int64_t *edges = malloc(sizeof(int64_t) * (pairs > 0 ? pairs : 1));
    int *offsets = calloc((size_t)nv + 1, sizeof(int));
    *offsets_out = offsets;
    if (!edges || !offsets) {
        free(edges);
        return LUCID_ERR_NO_MEMORY;
    }
    int count = 0;
    for (int f = 0; f < m->num_faces; ++f) {
        int begin = m->face_offsets[f], k = m->face_offsets[f + 1] - begin;
        for (int i = 0; i < k; ++i)
            for (int j = i + 1; j < (diagonals ? k : i + 2); ++j) {
                int a = m->face_vertices[begin + i], b = m->face_vertices[begin + j % k];
                int lo = a < b ? a : b, hi = a < b ? b : a;
                edges[count++] = (int64_t)lo * nv + hi;
            }
    }
    qsort(edges, (size_t)count, sizeof(int64_t), compare_edges);
    int unique = 0;
    for (int i = 0; i < count; ++i)
        if (unique == 0 || edges[i] != edges[unique - 1]) edges[unique++] = edges[i];
    for (int i = 0; i < unique; ++i) {
        offsets[edges[i] / nv + 1]++;
        offsets[edges[i] % nv + 1]++;
    }
    for (int v = 0; v < nv; ++v) offsets[v + 1] += offsets[v];
    int *list = malloc(sizeof(int) * (size_t)(2 * unique > 0 ? 2 * unique : 1));
    int *fill = malloc(sizeof(int) * (size_t)nv);
    *list_out = list;
    if (!list || !fill) {
        free(edges);
        free(fill);
        return LUCID_ERR_NO_MEMORY;
    }
    memcpy(fill, offsets, sizeof(int) * (size_t)nv);
    for (int i = 0; i < unique; ++i) {
        int a = (int)(edges[i] / nv), b = (int)(edges[i] % nv);
        list[fill[a]++] = b;
        list[fill[b]++] = a;
    }
    free(fill);
    free(edges);
    return LUCID_OK;
}

/* The hull's edges (neighbors), and the graph hill climbing walks (climb_neighbors): the
 * edges plus every pair of vertices of a polygonal face. qhull merges facets that are
 * coplanar within its roundoff (relative to the largest coordinate) into one polygon; such a
 * polygon may be bent by less than that roundoff, and then an edge of the true hull is a
 * diagonal of the polygon (issue 16: on a 5-vertex hull with a 1e9 aspect ratio the climb
 * stopped one edge short of the support). Climbing on a supergraph of the true edge graph
 * stays exact (a vertex that no neighbour improves on is a local, hence global, maximiser
 * of a linear function on a convex polytope), and polygons are few and small on real hulls. */
static lucid_status build_adjacency(lucid_convex_mesh *m) {
    lucid_status st = build_graph(m, 0, &m->neighbor_offsets, &m->neighbors);
    if (st == LUCID_OK) st = build_graph(m, 1, &m->climb_offsets, &m->climb_neighbors);
    return st;
}

/* Centre of the vertices' axis-aligned box, stored so the warm start costs nothing per query. */
static lucid_vec3 vertex_box_center(const lucid_convex_mesh *m) {
    lucid_vec3 lo = m->vertices[0], hi = m->vertices[0];
    for (int i = 1; i < m->num_vertices; ++i) {
        lucid_vec3 v = m->vertices[i];
        lo = lucid_vec3_make(fmin(lo.x, v.x), fmin(lo.y, v.y), fmin(lo.z, v.z));
        hi = lucid_vec3_make(fmax(hi.x, v.x), fmax(hi.y, v.y), fmax(hi.z, v.z));
    }
    return lucid_vec3_add(lucid_vec3_scale(lo, 0.5), lucid_vec3_scale(hi, 0.5)); /* no overflow */
}

/* The distance up to which qhull's hull is convex: its merging tolerance ONEmerge (facets
 * whose vertices are within it of coplanar are merged, so a vertex may stand that far out of
 * a face's plane), at least 64 ulps of the largest coordinate (the rounding of <dir, v>).
 * qhull ran on the points times 2^-exponent (largest coordinate below 1). */
static double hull_tolerance(const qhT *qh, int exponent) {
    return ldexp(fmax(qh->ONEmerge, 64.0 * DBL_EPSILON), exponent);
}

static lucid_status copy_hull(qhT *qh, const double *points, int n, int exponent,
                              lucid_convex_mesh *m) {
    int *index_of = malloc(sizeof(int) * (size_t)n);
    if (index_of == NULL) return LUCID_ERR_NO_MEMORY;
    m->num_vertices = number_vertices(qh, n, index_of);
    m->vertices = malloc(sizeof(lucid_vec3) * (size_t)m->num_vertices);
    lucid_status st = m->vertices ? LUCID_OK : LUCID_ERR_NO_MEMORY;
    for (int i = 0; st == LUCID_OK && i < n; ++i)
        if (index_of[i] >= 0) m->vertices[index_of[i]] = point_at(points, i);
    if (st == LUCID_OK) st = copy_faces(qh, m, index_of, exponent);
    if (st == LUCID_OK) st = build_adjacency(m);
    if (st == LUCID_OK) m->box_center = vertex_box_center(m);
    if (st == LUCID_OK) m->tie_tolerance = hull_tolerance(qh, exponent);
    if (st == LUCID_OK) fill_start_vertices(m);
    free(index_of);
    return st;
}

static lucid_status qhull_status(int exitcode) {
    switch (exitcode) {
        case qh_ERRnone:
            return LUCID_OK;
        case qh_ERRinput:
        case qh_ERRsingular:
        case qh_ERRprec:
        case qh_ERRtopology:
        case qh_ERRwide:
            return LUCID_ERR_DEGENERATE;
        case qh_ERRmem:
            return LUCID_ERR_NO_MEMORY;
        default:
            return LUCID_ERR_INTERNAL;
    }
}

/* Runs qhull (default options: facets of coplanar triangles are merged into polygons) with
 * its messages captured in qhull_err, and converts the hull into m. */
static lucid_status run_qhull(const double *points, double *coords, int n, int exponent,
                              lucid_convex_mesh *m, char *qhull_err, size_t qhull_err_size) {
    FILE *errfile = fmemopen(qhull_err, qhull_err_size, "w");
    if (errfile == NULL) return LUCID_ERR_INTERNAL;
    qhT qh_storage;
    qhT *qh = &qh_storage;
    qh_zero(qh, errfile);
    char options[] = "qhull";
    int exitcode = qh_new_qhull(qh, 3, n, coords, False, options, NULL, errfile);
    volatile lucid_status st = qhull_status(exitcode);
    if (st == LUCID_OK) {
        /* qhull reports errors inside its own calls by longjmp to qh->errexit. */
        if (setjmp(qh->errexit) == 0) {
            qh->NOerrexit = False;
            st = copy_hull(qh, points, n, exponent, m);
        } else {
            st = LUCID_ERR_INTERNAL;
        }
        qh->NOerrexit = True;
    }
    int curlong, totlong;
    qh_freeqhull(qh, !qh_ALL);
    qh_memfreeshort(qh, &curlong, &totlong);
    fclose(errfile);
    return st;
}

/* The first line of qhull's message, for the error text. */
static void qhull_message(const char *qhull_err, char *err, int err_size) {
    if (err == NULL || err_size <= 0) return;
    size_t len = strcspn(qhull_err, "\n");
    snprintf(err, (size_t)err_size, "qhull failed: %.*s", (int)len,
             len > 0 ? qhull_err : "(no message)");
}

/* The exponent e with max |coordinate| < 2^e (0 for an all-zero set): the points times 2^-e
 * lie in (-1, 1), exactly (a power-of-two scaling rounds nothing while the results are normal
 * numbers), so the degeneracy checks and qhull see the same well-scaled problem at every
 * size: nothing overflows at 1e300 nor underflows at 1e-300. */
static int scale_exponent(const double *points, int n) {
    double largest = 0.0;
    for (long i = 0; i < 3L * n; ++i) largest = fmax(largest, fabs(points[i]));
    int e = 0;
    if (largest > 0.0) frexp(largest, &e);
    return e;
}

lucid_status lucid_convex_mesh_create_msg(const double *points, int n, lucid_convex_mesh **out,
                                          char *err, int err_size) {
    set_message(err, err_size, "");
    if (out == NULL || n < 0 || (points == NULL && n > 0)) {
        set_message(err, err_size, "invalid arguments");
        return LUCID_ERR_ARGUMENT;
    }
    *out = NULL;
    lucid_status st = check_finite_count(points, n, err, err_size);
    if (st != LUCID_OK) return st;
    int exponent = scale_exponent(points, n);
    lucid_convex_mesh *m = calloc(1, sizeof(*m));
    double *coords = malloc(sizeof(double) * 3 * (size_t)n); /* qhull may write its input */
    if (m == NULL || coords == NULL) {
        free(m);
        free(coords);
        set_message(err, err_size, "out of memory");
        return LUCID_ERR_NO_MEMORY;
    }
    for (long i = 0; i < 3L * n; ++i) coords[i] = ldexp(points[i], -exponent);
    st = check_volume(coords, n, err, err_size);
    char qhull_err[512] = {0};
    if (st == LUCID_OK)
        st = run_qhull(points, coords, n, exponent, m, qhull_err, sizeof(qhull_err) - 1);
    free(coords);
    if (st != LUCID_OK) {
        lucid_convex_mesh_destroy(m);
        if (qhull_err[0] != '\0' || (err != NULL && err_size > 0 && err[0] == '\0'))
            qhull_message(qhull_err, err, err_size);
        return st;
    }
    *out = m;
    return LUCID_OK;
}

lucid_status lucid_convex_mesh_create(const double *points, int n, lucid_convex_mesh **out) {
    return lucid_convex_mesh_create_msg(points, n, out, NULL, 0);
}
