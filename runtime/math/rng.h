/* A seeded, deterministic random generator: xoshiro256** (Blackman & Vigna) whose 256-bit
 * state is filled from the 64-bit seed by splitmix64.
 *
 * Streams are bit-identical across runs, compilers and platforms: the integer core is exact,
 * and every floating-point transform uses only + - * / and sqrt (IEEE-exact operations; this
 * file is compiled with -ffp-contract=off) together with lucid_rng_log, a private logarithm
 * that does not depend on the platform's libm.
 *
 * lucid_rng is a plain value: the caller owns it (on the stack, inside another struct, ...);
 * copying it forks an identical stream. Not thread-safe: use one generator per thread. */
#ifndef LUCID_RNG_H
#define LUCID_RNG_H

#include <stdint.h>

typedef struct lucid_rng {
    uint64_t s[4]; /* xoshiro256** state (never all zero) */
    double spare;  /* second normal deviate of the last polar-method pair */
    int has_spare; /* 1 when `spare` is unused */
} lucid_rng;

/* One step of splitmix64 (advances *state, returns the mixed output). */
uint64_t lucid_splitmix64_next(uint64_t *state);

/* Seeds rng: the four state words are the first four splitmix64 outputs from `seed`. */
void lucid_rng_seed(lucid_rng *rng, uint64_t seed);

/* The next raw 64-bit output of xoshiro256**. */
uint64_t lucid_rng_next_u64(lucid_rng *rng);

/* Uniform in [0, 1) on the 2^53 grid k * 2^-53 (the top 53 bits of one output). */
double lucid_rng_uniform(lucid_rng *rng);

/* Uniform in the open interval (0, 1) on the grid (k + 1/2) * 2^-52: never 0 nor 1, so its
 * logarithm is always finite. */
double lucid_rng_uniform_open(lucid_rng *rng);

/* Standard normal N(0, 1) by Marsaglia's polar method; the second deviate of each pair is
 * kept in rng and returned by the next call. */
double lucid_rng_normal(lucid_rng *rng);

/* Standard Gumbel: -log(-log u) with u uniform in (0, 1) (mean = Euler's gamma,
 * variance = pi^2 / 6). Used for the Gumbel-max trick. */
double lucid_rng_gumbel(lucid_rng *rng);

/* Uniform integer in [lo, hi] (requires lo <= hi; the full int64 range is allowed), without
 * modulo bias: outputs below 2^64 mod n are rejected. */
int64_t lucid_rng_integer(lucid_rng *rng, int64_t lo, int64_t hi);

/* A uniformly distributed unit quaternion q = (w, x, y, z), w >= 0 (a uniform rotation), by
 * Shoemake's method from three uniforms: two angles on two circles whose radii sqrt(1 - u1),
 * sqrt(u1) split the unit 3-sphere uniformly. Bit-reproducible (uses lucid_rng_sincos_turn). */
void lucid_rng_unit_quaternion(lucid_rng *rng, double q[4]);

/* sin and cos of the angle 2 pi u (u in turns, any finite u), computed with + - * / only:
 * exact reduction to a quadrant, then Taylor polynomials on [-pi/4, pi/4]. Within 2 ulp. */
void lucid_rng_sincos_turn(double u, double *s, double *c);

/* Natural logarithm computed with + - * / only (frexp-style range reduction to
 * [sqrt(1/2), sqrt(2)) and the atanh series), so it gives the same bits on every platform.
 * Accurate to within 1 ulp. log(0) = -inf, log(x < 0) = NaN, log(+inf) = +inf, NaN -> NaN. */
double lucid_rng_log(double x);

#endif
