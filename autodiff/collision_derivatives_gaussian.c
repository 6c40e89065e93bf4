/* Support Hessian by Gaussian smoothing of the support argument (paper Eq. 26): integration
 * by parts turns E[grad sigma(a + eps Z)] into the gradient estimate E[S(a + eps Z) Z^T] / eps.
 * Works for any shape with a support function; costs M support queries, warm-started for
 * meshes: every sample climbs from the unperturbed support vertex, which is nearer to a
 * sample's answer than the previous (independent) sample's answer is. The base support starts
 * from the mesh's own cube-map start table, and the outer products are summed in place. */
#include <stddef.h>

#include "autodiff/collision_derivatives_hessians.h"
#include "runtime/shapes/convex_mesh.h"

lucid_mat3 lucid_support_hessian_gaussian(const lucid_shape *s, lucid_vec3 a, lucid_vec3 l,
                                          int samples, double noise, lucid_rng *rng) {
    (void)l;
    int hint = -1;
    lucid_vec3 base = lucid_shape_support(s, a, &hint);
    const lucid_convex_mesh *mesh =
        s->kind == LUCID_SHAPE_CONVEX && s->radius == 0.0 &&
                s->u.mesh->num_vertices >= LUCID_CONVEX_MESH_SCAN_THRESHOLD
            ? s->u.mesh
            : NULL;                                              /* small meshes: the plain scan */
    double m[9] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}; /* column-major sum */
    for (int j = 0; j < samples; ++j) {
        double z[3];
        z[0] = lucid_rng_normal(rng);
        z[1] = lucid_rng_normal(rng);
        z[2] = lucid_rng_normal(rng);
        lucid_vec3 arg = lucid_vec3_axpy(a, noise, lucid_vec3_make(z[0], z[1], z[2]));
        lucid_vec3 p;
        if (mesh != NULL) {
            int start = hint;
            p = mesh->vertices[lucid_convex_mesh_support_index(mesh, arg, &start)];
        } else {
            int start = hint;
            p = lucid_shape_support(s, arg, &start);
        }
        lucid_vec3 e = lucid_vec3_sub(p, base);
        for (int c = 0; c < 3; ++c) { /* (e z^T)(i, c) = e_i z_c */
            m[3 * c] += e.x * z[c];
            m[3 * c + 1] += e.y * z[c];
            m[3 * c + 2] += e.z * z[c];
        }
    }
    double scale = 1.0 / (noise * samples);
    lucid_mat3 H;
    for (int i = 0; i < 9; ++i) H.m[i] = m[i] * scale;
    return H;
}
