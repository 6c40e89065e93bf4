/* Strided pre-scan for a hill-climbing start vertex (see the header). */
#include "autodiff/collision_derivatives_hint.h"

#include "runtime/shapes/convex_mesh.h"

/* Vertices sampled by the pre-scan: cheap next to a walk, and dense enough that the best of
 * them lies a few rings from the maximiser on hulls of a few thousand vertices. */
#define PRESCAN_SAMPLES 32

int lucid_derivatives_start_hint(const lucid_shape *s, lucid_vec3 l) {
    if (s->kind != LUCID_SHAPE_CONVEX) return -1;
    const lucid_convex_mesh *mesh = s->u.mesh;
    int n = mesh->num_vertices;
    int stride = n > PRESCAN_SAMPLES ? n / PRESCAN_SAMPLES : 1;
    int best = 0;
    double best_score = lucid_vec3_dot(mesh->vertices[0], l);
    for (int i = stride; i < n; i += stride) {
        double score = lucid_vec3_dot(mesh->vertices[i], l);
        if (score > best_score) {
            best_score = score;
            best = i;
        }
    }
    return best;
}
