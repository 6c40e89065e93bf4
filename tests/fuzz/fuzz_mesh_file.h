/* The body shared by the mesh file harnesses: parse the bytes as the named file; on success
 * every point is finite and the hull (when one exists) passes the hull checks; on failure
 * the message names the file. */
#ifndef LUCID_FUZZ_MESH_FILE_H
#define LUCID_FUZZ_MESH_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz_check.h"
#include "runtime/shapes/mesh_file.h"

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
}

#endif
