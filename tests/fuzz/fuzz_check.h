/* Shared checks of the fuzz harnesses: any failure aborts (libFuzzer records the input). */
#ifndef LUCID_FUZZ_CHECK_H
#define LUCID_FUZZ_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/shapes/convex_mesh.h"

#define FUZZ_REQUIRE(cond)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond);          \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* An error message is a non-empty, NUL-terminated line starting with the given prefix. */
static inline void fuzz_check_message(const char *err, size_t size, const char *prefix) {
    size_t len = strnlen(err, size);
    FUZZ_REQUIRE(len > 0 && len < size);
    FUZZ_REQUIRE(strncmp(err, prefix, strlen(prefix)) == 0);
}

/* Invariants of a hull built from points: finite vertices taken from the input, unit
 * normals, every input point inside every face plane (up to qhull's merging tolerance,
 * relative to the cloud's extent), Euler's formula, a symmetric adjacency of degree >= 3,
 * and hill climbing from every vertex agreeing with a linear scan. */
static inline void fuzz_check_hull(const lucid_convex_mesh *m, const double *points, int n) {
    double extent = 0.0;
    for (long i = 0; i < 3L * n; ++i) extent = fmax(extent, fabs(points[i]));
    FUZZ_REQUIRE(m->num_vertices >= 4 && m->num_vertices <= n && m->num_faces >= 4);
    for (int v = 0; v < m->num_vertices; ++v) FUZZ_REQUIRE(lucid_vec3_isfinite(m->vertices[v]));
    /* Containment is checked on the points scaled (exactly) to unit extent, where products
     * neither overflow nor underflow, for clouds of normal size: below ~1e-290 the stored
     * face offsets are subnormal numbers, whose absolute precision (5e-324) is no longer
     * small against the extent (outside the documented range, docs/collision.md). */
    int e = 0;
    frexp(extent, &e);
    for (int f = 0; f < m->num_faces; ++f) {
        lucid_vec3 nrm = m->face_normals[f];
        FUZZ_REQUIRE(fabs(lucid_vec3_norm(nrm) - 1.0) < 1e-9);
        FUZZ_REQUIRE(isfinite(m->face_offsets_d[f]));
        for (int i = 0; i < n && extent >= 1e-290; ++i) {
            const double *q = points + 3 * i;
            lucid_vec3 p = lucid_vec3_make(ldexp(q[0], -e), ldexp(q[1], -e), ldexp(q[2], -e));
            FUZZ_REQUIRE(lucid_vec3_dot(nrm, p) <= ldexp(m->face_offsets_d[f], -e) + 1e-9);
        }
    }
    long edges2 = m->neighbor_offsets[m->num_vertices];
    FUZZ_REQUIRE(edges2 % 2 == 0);
    FUZZ_REQUIRE(m->num_vertices - edges2 / 2 + m->num_faces == 2);
    for (int v = 0; v < m->num_vertices; ++v) {
        FUZZ_REQUIRE(m->neighbor_offsets[v + 1] - m->neighbor_offsets[v] >= 3);
        for (int k = m->neighbor_offsets[v]; k < m->neighbor_offsets[v + 1]; ++k) {
            int w = m->neighbors[k], back = 0;
            FUZZ_REQUIRE(w >= 0 && w < m->num_vertices && w != v);
            for (int j = m->neighbor_offsets[w]; j < m->neighbor_offsets[w + 1]; ++j)
                back |= m->neighbors[j] == v;
            FUZZ_REQUIRE(back);
        }
    }
    /* Directions: the face normals and the vertices seen from the box centre (scaled by a
     * power of two to unit size; the dot products neither overflow nor lose their digits to
     * subnormal underflow for extents in [1e-300, 1e307]). The
     * climb may stop on a near-tie that rounding or qhull's merging hides (values within 64
     * ulps of the extent or the hull's tie_tolerance): anything beyond that is a missed
     * support. */
    if (!(extent < 1e307 && extent > 1e-300)) return;
    int checks = m->num_faces + m->num_vertices;
    if (checks > 64) checks = 64;
    for (int c = 0; c < checks; ++c) {
        lucid_vec3 d = c < m->num_faces
                           ? m->face_normals[c]
                           : lucid_vec3_sub(m->vertices[c - m->num_faces], m->box_center);
        double size = lucid_vec3_max_abs(d);
        if (!(size > 0.0) || !isfinite(size)) continue;
        int k = ilogb(size); /* ldexp per component: 2^-k overflows for subnormal sizes */
        d = lucid_vec3_make(ldexp(d.x, -k), ldexp(d.y, -k), ldexp(d.z, -k));
        double best = lucid_vec3_dot(m->vertices[lucid_convex_mesh_support_scan(m, d)], d);
        double slack = fmax(64 * 2.220446049250313e-16 * extent, m->tie_tolerance) *
                       (fabs(d.x) + fabs(d.y) + fabs(d.z));
        int starts = m->num_vertices < 16 ? m->num_vertices : 16;
        for (int s = 0; s < starts; ++s) {
            int got = lucid_convex_mesh_support_climb(m, d, s);
            FUZZ_REQUIRE(lucid_vec3_dot(m->vertices[got], d) >= best - slack);
        }
    }
}

#endif
