/* Deterministic random inputs shared by the C tests and benchmarks: a splitmix64 stream
 * local to each test (independent of the library's RNG, so a bug there cannot hide one
 * here), an xorshift64* one, random unit directions and rotations. */
#ifndef LUCID_TEST_RANDOM_H
#define LUCID_TEST_RANDOM_H

#include <math.h>
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

/* Uniform in [lo, hi) from an xorshift64* stream (state non-zero): the MuJoCo-comparison
 * tests' draws, a stream of its own (not uniform()'s). */
static inline double xorshift_range(uint64_t *s, double lo, double hi) {
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return lo + (hi - lo) * (double)((*s * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}

/* A random unit quaternion q[4] (w, x, y, z) from xorshift_range's stream (normalised from the
 * cube's shell 0.1 <= |q| <= 1). */
static inline void xorshift_quat(uint64_t *s, double q[4]) {
    double n = 0.0;
    do {
        for (int i = 0; i < 4; i++) q[i] = xorshift_range(s, -1, 1);
        n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    } while (n < 0.1 || n > 1.0);
    for (int i = 0; i < 4; i++) q[i] /= n;
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
