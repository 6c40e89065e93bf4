/* Zeroth-order estimator (paper Eq. 6): Gaussian smoothing of the pose, T2 exp(eps z) with
 * z ~ N(0, I6), and integration by parts, J ~ (1/M) sum_j g(eps z_j) z_j^T / eps (for the
 * standard Gaussian, -grad log mu(z) = z). The nominal value g(0) is subtracted from every
 * sample: E[z] = 0 keeps the expectation of Eq. 6, and the control variate removes the
 * O(|g| / eps) variance that would otherwise swamp the estimate (|p| / eps ~ 1e2 - 1e3). */
#include "autodiff/collision_derivatives_sampling.h"

#include <string.h>

#include "runtime/math/rng.h"

static void accumulate(double *m, lucid_vec3 value, lucid_vec3 base, const double z[6],
                       double scale) {
    lucid_vec3 d = lucid_vec3_scale(lucid_vec3_sub(value, base), scale);
    for (int k = 0; k < 6; ++k) {
        m[3 * k] += d.x * z[k];
        m[3 * k + 1] += d.y * z[k];
        m[3 * k + 2] += d.z * z[k];
    }
}

lucid_status lucid_derivatives_zeroth_order(const lucid_pose_query *q, int samples, double noise,
                                            uint64_t seed, lucid_distance_derivatives_result *res) {
    lucid_rng rng;
    lucid_rng_seed(&rng, seed);
    memset(res->dp1, 0, sizeof res->dp1);
    memset(res->dp2, 0, sizeof res->dp2);
    memset(res->dnormal, 0, sizeof res->dnormal);
    memset(res->ddistance, 0, sizeof res->ddistance);
    const lucid_distance_result *g0 = &res->query;
    double scale = 1.0 / (noise * samples);
    for (int j = 0; j < samples; ++j) {
        double z[6], xi[6];
        for (int k = 0; k < 6; ++k) {
            z[k] = lucid_rng_normal(&rng);
            xi[k] = noise * z[k];
        }
        lucid_distance_result g;
        lucid_status st = lucid_pose_query_run(q, xi, &g);
        if (st != LUCID_OK) return st;
        accumulate(res->dp1, g.p1, g0->p1, z, scale);
        accumulate(res->dp2, g.p2, g0->p2, z, scale);
        accumulate(res->dnormal, g.normal, g0->normal, z, scale);
        for (int k = 0; k < 6; ++k) res->ddistance[k] += (g.distance - g0->distance) * scale * z[k];
    }
    return LUCID_OK;
}
