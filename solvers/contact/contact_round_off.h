/* How much of a contact criterion double precision alone can account for.
 * Storing an impulse lambda in doubles rounds each entry by up to half an ulp, and summing
 * sigma = (G + R) lambda + g in doubles rounds each row by about u = eps / 2 (the unit
 * round-off) times the size of its terms; together they move contact i's velocity by up to
 *   delta_i = sum_j |(G + R)_ij| ulp(lambda_j) / 2 + u (|g_i| + sum_j |(G + R)_ij lambda_j|)
 * (componentwise, to first order), and its complementarity |<lambda_i, sigma_i + Gamma(sigma_i)>|
 * by up to ||lambda_i|| (||delta_i|| + mu_i ||delta_T,i||) (Cauchy-Schwarz; Gamma is
 * mu-Lipschitz in sigma_T); the dot product itself rounds by u sum_k |lambda_ik d_ik|. The
 * maximum over contacts is what even the exact solution, rounded to doubles, may show as
 * eps_abs: a tolerance far below it is met only by chance. Heavy objects on light ones make it
 * large (1e3 kg on 1e-3 kg: ~9e-6, docs/scenarios.md), and so do sliding contacts, whose
 * lambda_T . sigma_T and mu lambda_N |sigma_T| cancel in the product (a sphere sliding at 1 m/s:
 * the exact solution of tol 1e-13's problem shows 4.6e-13; the lambda term alone said 5e-15).
 * The bound is that of the lambda given, growing as ||lambda||^2: forces inflated along
 * cancelling directions (G y = 0) inflate it faster than their criterion, so a caller that lets
 * it excuse an answer takes it at forces the problem can resolve (world_island_solve.c). */
#ifndef LUCID_CONTACT_ROUND_OFF_H
#define LUCID_CONTACT_ROUND_OFF_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "solvers/contact/contact_problem.h"

/* Half the spacing of the doubles around x: 2^(e - 54) for |x| = f 2^e, f in [0.5, 1) (0 for
 * x = 0, half the smallest subnormal spacing below DBL_MIN). Read off the exponent bits where
 * the result is a normal double (the bound evaluates it (3n)^2 times, where frexp and ldexp
 * cost more than the bound's arithmetic), frexp / ldexp elsewhere; bit for bit the same. */
static inline double lucid_half_ulp(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    uint64_t biased = (bits >> 52) & 0x7ff; /* |x| = 1.f 2^(biased - 1023) */
    if (biased >= 54 && biased < 0x7ff) {
        uint64_t half = (biased - 53) << 52; /* 2^(biased - 1076), a normal double */
        double h;
        memcpy(&h, &half, sizeof h);
        return h;
    }
    double a = fabs(x);
    if (a == 0.0) return 0.0;
    if (a < DBL_MIN) return 0.5 * DBL_TRUE_MIN;
    int exponent;
    frexp(a, &exponent); /* a = f 2^exponent, f in [0.5, 1): the ulp is 2^(exponent - 53) */
    return ldexp(0.5, exponent - DBL_MANT_DIG);
}

/* Contact i's share of the bound: lambda_i, its velocity sigma_i, delta_i as above. */
double lucid_contact_round_off_bound(double mu, const double l[3], const double s[3],
                                     const double delta[3]);
/* The bound above for the candidate lambda (3n entries) of problem p (assumed valid). */
double lucid_contact_round_off(const lucid_contact_problem *p, const double *lambda);

#endif
