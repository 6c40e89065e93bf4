/* libFuzzer harness: convex hulls of raw point bytes (each 24 bytes are one xyz triple of
 * native doubles, so NaN, Inf, subnormals, huge and duplicate points all occur). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "runtime/shapes/convex_mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int n = (int)(size / 24);
    if (n > 4096) n = 4096; /* qhull's cost, not its correctness, grows beyond */
    double *points = malloc(sizeof(double) * 3 * (size_t)(n > 0 ? n : 1));
    if (points == NULL) return 0;
    memcpy(points, data, sizeof(double) * 3 * (size_t)n);
    lucid_convex_mesh *m = NULL;
    char err[256];
    lucid_status st = lucid_convex_mesh_create_msg(points, n, &m, err, sizeof err);
    if (st == LUCID_OK) {
        fuzz_check_hull(m, points, n);
        lucid_convex_mesh_destroy(m);
    } else {
        FUZZ_REQUIRE(m == NULL);
        fuzz_check_message(err, sizeof err, "");
    }
    free(points);
    return 0;
}
