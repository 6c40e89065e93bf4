/* Deterministic random inputs shared by the C tests and benchmarks: a splitmix64 stream
 * local to each test (independent of the library's RNG, so a bug there cannot hide one
 * here), random unit directions and rotations. */
#ifndef LUCID_TEST_RANDOM_H
#define LUCID_TEST_RANDOM_H

#include <stdint.h>

#include "runtime/math/quat.h"

#define PI 3.14159265358979323846

/* Uniform in [0, 1). */
static inline double uniform(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform on the unit sphere (rejection from the cube). */
static inline lucid_vec3 random_direction(uint64_t *state) {
    for (;;) {
        lucid_vec3 v =
            lucid_vec3_make(2 * uniform(state) - 1, 2 * uniform(state) - 1, 2 * uniform(state) - 1);
        double n = lucid_vec3_norm(v);
        if (n > 0.1 && n <= 1.0) return lucid_vec3_scale(v, 1.0 / n);
    }
}

/* A random rotation (not exactly uniform: normalised quaternion from the cube). */
static inline lucid_mat3 random_rotation(uint64_t *state) {
    lucid_quat q = lucid_quat_make(uniform(state) - 0.5, uniform(state) - 0.5, uniform(state) - 0.5,
                                   uniform(state) - 0.5);
    lucid_quat_normalize(&q);
    return lucid_quat_to_mat3(q);
}

#endif
