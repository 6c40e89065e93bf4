/* Support Hessian of a convex mesh from Gumbel smoothing (paper Eq. 27-28): perturbing the
 * vertex scores z = V^T l with Gumbel noise of scale eps turns the argmax weights into the
 * soft-max a = softmax(z / eps) in closed form, so the smoothed support V a has the Hessian
 * V (diag(a) - a a^T) V^T / eps, the a-weighted covariance of the vertices over eps. Weights
 * decay exponentially with the score gap, so only the vertices within n_l adjacency levels of
 * the support vertex are kept (found breadth-first on the mesh's vertex adjacency). */
#include <math.h>
#include <stddef.h>

#include "autodiff/collision_derivatives_hessians.h"
#include "autodiff/collision_derivatives_workspace.h"
#include "runtime/shapes/convex_mesh.h"

/* Breadth-first search from `root` up to `levels` rings; returns the number of vertices
 * written to ws->queue (the root first). */
static int neighbourhood(const lucid_convex_mesh *mesh, int root, int levels,
                         lucid_derivative_workspace *ws) {
    unsigned stamp = lucid_derivative_workspace_next_stamp(ws);
    int count = 0, ring_begin = 0;
    ws->queue[count++] = root;
    ws->stamp[root] = stamp;
    for (int level = 0; level < levels; ++level) {
        int ring_end = count;
        for (int q = ring_begin; q < ring_end; ++q) {
            int v = ws->queue[q];
            for (int k = mesh->neighbor_offsets[v]; k < mesh->neighbor_offsets[v + 1]; ++k) {
                int w = mesh->neighbors[k];
                if (ws->stamp[w] == stamp) continue;
                ws->stamp[w] = stamp;
                ws->queue[count++] = w;
            }
        }
        if (count == ring_end) break; /* the whole mesh is already in */
        ring_begin = ring_end;
    }
    return count;
}

lucid_status lucid_support_hessian_gumbel(const lucid_shape *s, lucid_vec3 l, double scale,
                                          int levels, double temperature,
                                          lucid_derivative_workspace *ws, lucid_mat3 *K) {
    const lucid_convex_mesh *mesh = s->u.mesh;
    lucid_status st = lucid_derivative_workspace_reserve(ws, mesh->num_vertices);
    if (st != LUCID_OK) return st;
    int root = lucid_convex_mesh_support_index(mesh, l, NULL); /* from the cube-map table */
    int count = neighbourhood(mesh, root, levels, ws);
    double top = lucid_vec3_dot(mesh->vertices[root], l);
    /* Weighted moments about the support vertex (shift-invariant covariance, better
     * conditioned than raw moments far from the origin). */
    double total = 0.0;
    lucid_vec3 mean = lucid_vec3_zero();
    lucid_mat3 second = lucid_mat3_zero();
    for (int q = 0; q < count; ++q) {
        lucid_vec3 v = mesh->vertices[ws->queue[q]];
        double w = exp(scale * (lucid_vec3_dot(v, l) - top) / temperature);
        lucid_vec3 e = lucid_vec3_sub(v, mesh->vertices[root]);
        lucid_mat3 ee = lucid_mat3_outer(e, e);
        ee = lucid_mat3_scale(&ee, w);
        second = lucid_mat3_add(&second, &ee);
        mean = lucid_vec3_axpy(mean, w, e);
        total += w;
    }
    mean = lucid_vec3_scale(mean, 1.0 / total);
    second = lucid_mat3_scale(&second, 1.0 / total);
    lucid_mat3 mm = lucid_mat3_outer(mean, mean);
    lucid_mat3 cov = lucid_mat3_sub(&second, &mm);
    *K = lucid_mat3_scale(&cov, 1.0 / temperature);
    return LUCID_OK;
}
