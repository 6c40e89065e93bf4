/* The body shared by the mesh file harnesses: parse the bytes as the named file; on success
 * every point is finite and the hull (when one exists) passes the hull checks; on failure
 * the message names the file. */
#ifndef LUCID_FUZZ_MESH_FILE_H
#define LUCID_FUZZ_MESH_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz_check.h"
#include "runtime/shapes/mesh_decompose.h"
#include "runtime/shapes/mesh_file.h"

/* The same bytes as a triangle mesh and, when small, its convex decomposition: on success
 * every part has a hull's worth of finite points and the volumes are finite and positive. */
static inline void fuzz_mesh_decompose(const char *name, const uint8_t *data, size_t size) {
    double *points = NULL;
    int *tris = NULL, n = 0, nt = 0;
    char err[512];
    lucid_status st = lucid_mesh_file_parse_triangles(name, data, size, 1.0, &points, &n, &tris,
                                                      &nt, err, sizeof err);
    if (st != LUCID_OK) {
        FUZZ_REQUIRE(points == NULL && tris == NULL && n == 0 && nt == 0);
        fuzz_check_message(err, sizeof err, name);
        return;
    }
    for (long i = 0; i < 3L * nt; ++i) FUZZ_REQUIRE(tris[i] >= 0 && tris[i] < n);
    if (nt <= 256) {
        lucid_decompose_options o = lucid_decompose_default_options();
        o.max_parts = 4;
        lucid_decomposition d;
        if (lucid_mesh_decompose(points, n, tris, nt, &o, &d, err, sizeof err) == LUCID_OK) {
            FUZZ_REQUIRE(d.num_parts >= 1 && d.num_parts <= 4);
            FUZZ_REQUIRE(d.mesh_volume > 0 && isfinite(d.parts_volume) && d.parts_volume > 0);
            /* every hole of n edges is capped by n - 2 ears */
            FUZZ_REQUIRE(d.hole_edges >= 3 * d.holes_closed &&
                         d.num_cap_triangles == d.hole_edges - 2 * d.holes_closed);
            for (int p = 0; p < d.num_parts; ++p)
                FUZZ_REQUIRE(d.part_offsets[p + 1] - d.part_offsets[p] >= 4);
            for (long i = 0; i < 3L * d.part_offsets[d.num_parts]; ++i)
                FUZZ_REQUIRE(isfinite(d.points[i]));
            lucid_decomposition_free(&d);
        } else {
            fuzz_check_message(err, sizeof err, "");
        }
    }
    free(points);
    free(tris);
}

static inline void fuzz_mesh_file(const char *name, const uint8_t *data, size_t size) {
    double *points = NULL;
    int n = 0;
    char err[512];
    lucid_status st =
        lucid_mesh_file_parse_points(name, data, size, 1.0, &points, &n, err, sizeof err);
    if (st != LUCID_OK) {
        FUZZ_REQUIRE(points == NULL && n == 0);
        fuzz_check_message(err, sizeof err, name);
        return;
    }
    FUZZ_REQUIRE(n > 0);
    for (long i = 0; i < 3L * n; ++i) FUZZ_REQUIRE(isfinite(points[i]));
    if (n <= 4096) {
        lucid_convex_mesh *m = NULL;
        if (lucid_convex_mesh_create_msg(points, n, &m, err, sizeof err) == LUCID_OK) {
            fuzz_check_hull(m, points, n);
            lucid_convex_mesh_destroy(m);
        } else {
            fuzz_check_message(err, sizeof err, "");
        }
    }
    free(points);
    fuzz_mesh_decompose(name, data, size);
}

#endif
