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

/* ln 2 split in two so that k * LN2_HI is exact for every binary exponent k (LN2_HI has only
 * 33 significant bits, |k| < 2^11). */
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
    if (x < 0.0) return NAN;
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

/* ---- deterministic sin/cos and uniform rotations ------------------------------------------ */

/* pi/2 split so that r * PI2_HI + r * PI2_LO carries ~70 bits of pi/2. */
static const double PI2_HI = 0x1.921fb54442d18p0;
static const double PI2_LO = 0x1.1a62633145c07p-54;

void lucid_rng_sincos_turn(double u, double *s, double *c) {
    /* u turns = 4u quarter turns = k + r with integer k and r in [-1/2, 1/2] (exact). */
    double v = 4.0 * (u - floor(u)); /* u - floor(u) in [0, 1), exact */
    double k = floor(v), r = v - k;
    if (r > 0.5) {
        r -= 1.0;
        k += 1.0;
    }
    double x = r * PI2_HI + r * PI2_LO; /* |x| <= pi/4 */
    double z = x * x;
    /* Taylor series to x^21 / x^20: the first omitted terms are below 1e-19 on [-pi/4, pi/4]. */
    double sp = 0.0, cp = 0.0;
    for (int n = 10; n >= 1; --n) {
        sp = (1.0 - sp) * z / ((2 * n) * (2 * n + 1));
        cp = (1.0 - cp) * z / ((2 * n - 1) * (2 * n));
    }
    double sx = x - x * sp, cx = 1.0 - cp;
    switch ((int)k & 3) {
        case 0:
            *s = sx, *c = cx;
            break;
        case 1:
            *s = cx, *c = -sx;
            break;
        case 2:
            *s = -sx, *c = -cx;
            break;
        default:
            *s = -cx, *c = sx;
            break;
    }
}

void lucid_rng_unit_quaternion(lucid_rng *rng, double q[4]) {
    double u1 = lucid_rng_uniform(rng), u2 = lucid_rng_uniform(rng), u3 = lucid_rng_uniform(rng);
    double r1 = sqrt(1.0 - u1), r2 = sqrt(u1);
    double sa, ca, sb, cb;
    lucid_rng_sincos_turn(u2, &sa, &ca);
    lucid_rng_sincos_turn(u3, &sb, &cb);
    double sign = cb < 0.0 ? -1.0 : 1.0; /* q and -q are the same rotation: pick w >= 0 */
    q[0] = sign * r2 * cb;
    q[1] = sign * r1 * sa;
    q[2] = sign * r1 * ca;
    q[3] = sign * r2 * sb;
}
