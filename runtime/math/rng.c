#include "runtime/math/rng.h"

#include <math.h>
#include <string.h>

uint64_t lucid_splitmix64_next(uint64_t *state) {
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void lucid_rng_seed(lucid_rng *rng, uint64_t seed) {
    uint64_t sm = seed;
    /* Four consecutive splitmix64 outputs come from distinct states through a bijective
     * mixer, so they are never all zero (the one state xoshiro cannot leave). */
    for (int i = 0; i < 4; ++i) rng->s[i] = lucid_splitmix64_next(&sm);
    rng->spare = 0.0;
    rng->has_spare = 0;
}

static uint64_t rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

uint64_t lucid_rng_next_u64(lucid_rng *rng) {
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double lucid_rng_uniform(lucid_rng *rng) {
    return (double)(lucid_rng_next_u64(rng) >> 11) * 0x1p-53;
}

double lucid_rng_uniform_open(lucid_rng *rng) {
    /* 52 bits so that the largest value, 1 - 2^-53, is representable (with 53 bits the
     * top point 1 - 2^-54 would round to 1). */
    return ((double)(lucid_rng_next_u64(rng) >> 12) + 0.5) * 0x1p-52;
}

double lucid_rng_normal(lucid_rng *rng) {
    if (rng->has_spare) {
        rng->has_spare = 0;
        return rng->spare;
    }
    double u, v, s;
    do {
        u = 2.0 * lucid_rng_uniform(rng) - 1.0;
        v = 2.0 * lucid_rng_uniform(rng) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    double f = sqrt(-2.0 * lucid_rng_log(s) / s);
    rng->spare = v * f;
    rng->has_spare = 1;
    return u * f;
}

double lucid_rng_gumbel(lucid_rng *rng) {
    return -lucid_rng_log(-lucid_rng_log(lucid_rng_uniform_open(rng)));
}

int64_t lucid_rng_integer(lucid_rng *rng, int64_t lo, int64_t hi) {
    /* Work in uint64 so the span of the full int64 range does not overflow. */
    uint64_t n = (uint64_t)hi - (uint64_t)lo + 1u; /* 0 means all 2^64 values */
    uint64_t x = lucid_rng_next_u64(rng);
    if (n != 0) {
        uint64_t reject_below = (0u - n) % n; /* 2^64 mod n */
        while (x < reject_below) x = lucid_rng_next_u64(rng);
        x %= n;
    }
    return (int64_t)((uint64_t)lo + x);
}

/* ---- deterministic logarithm ---------------------------------------------------------- */

/* ln 2 split so that k * LN2_HI is exact for every binary exponent k (LN2_HI has its low
 * 32 significand bits zero). */
static const double LN2_HI = 0x1.62e42feep-1;
static const double LN2_LO = 0x1.a39ef35793c76p-33;

/* x = m * 2^k with m in [sqrt(1/2), sqrt(2)); x must be positive, finite and normal. */
static double reduce(double x, int *k) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int e = (int)((bits >> 52) & 0x7ff) - 1023;
    bits = (bits & UINT64_C(0x000fffffffffffff)) | UINT64_C(0x3ff0000000000000);
    double m;
    memcpy(&m, &bits, sizeof m); /* m in [1, 2) */
    if (m > 1.4142135623730951) {
        m *= 0.5; /* exact */
        ++e;
    }
    *k = e;
    return m;
}

double lucid_rng_log(double x) {
    if (x != x) return x;
    if (x < 0.0) return (x - x) / (x - x); /* NaN, raised as an IEEE invalid operation */
    if (x == 0.0) return -INFINITY;
    if (x == INFINITY) return x;
    int scale = 0;
    if (x < 0x1p-1022) { /* subnormal: make it normal first (exact) */
        x *= 0x1p54;
        scale = -54;
    }
    int k;
    double m = reduce(x, &k);
    k += scale;
    /* log(1 + f) = 2 atanh(s) with s = f / (2 + f), |s| <= 0.1716:
     * 2 atanh(s) = 2s + s R(s^2), R(z) = 2z/3 + 2z^2/5 + ... ; 2s = f - hfsq + s hfsq. */
    double f = m - 1.0; /* exact (Sterbenz) */
    double s = f / (2.0 + f);
    double z = s * s;
    double r = 0.0;
    for (int j = 10; j >= 1; --j) r = z * (2.0 / (2 * j + 1) + r);
    double hfsq = 0.5 * f * f;
    double dk = (double)k;
    return dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f);
}
