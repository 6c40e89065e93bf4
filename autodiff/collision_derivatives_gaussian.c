/* Support Hessian by Gaussian smoothing of the support argument (paper Eq. 26): integration
 * by parts turns E[grad sigma(a + eps Z)] into the gradient estimate E[S(a + eps Z) Z^T] / eps.
 * Works for any shape with a support function; costs M support queries, warm-started for
 * meshes: every sample climbs from the unperturbed support vertex, which is nearer to a
 * sample's answer than the previous (independent) sample's answer is. */
#include "autodiff/collision_derivatives_hessians.h"
#include "autodiff/collision_derivatives_hint.h"

static lucid_vec3 normal_vec3(lucid_rng *rng) {
    double x = lucid_rng_normal(rng), y = lucid_rng_normal(rng);
    return lucid_vec3_make(x, y, lucid_rng_normal(rng));
}

lucid_mat3 lucid_support_hessian_gaussian(const lucid_shape *s, lucid_vec3 a, lucid_vec3 l,
                                          int samples, double noise, lucid_rng *rng) {
    int hint = lucid_derivatives_start_hint(s, l);
    lucid_vec3 base = lucid_shape_support(s, a, &hint);
    lucid_mat3 sum = lucid_mat3_zero();
    for (int j = 0; j < samples; ++j) {
        lucid_vec3 z = normal_vec3(rng);
        int start = hint;
        lucid_vec3 p = lucid_shape_support(s, lucid_vec3_axpy(a, noise, z), &start);
        lucid_mat3 outer = lucid_mat3_outer(lucid_vec3_sub(p, base), z);
        sum = lucid_mat3_add(&sum, &outer);
    }
    return lucid_mat3_scale(&sum, 1.0 / (noise * samples));
}
