/* Random and hand-built contact problems shared by the contact tests (header-only, static). */
#ifndef LUCID_TEST_CONTACT_PROBLEMS_H
#define LUCID_TEST_CONTACT_PROBLEMS_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/contact/contact_solver.h"

typedef struct test_rng {
    uint64_t state;
} test_rng;

static inline double test_uniform(test_rng *r) {
    r->state ^= r->state << 13, r->state ^= r->state >> 7, r->state ^= r->state << 17;
    return (double)(r->state >> 11) / 9007199254740992.0;
}

static inline double test_normal(test_rng *r) {
    double u = test_uniform(r) + 1e-300, v = test_uniform(r);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

typedef struct test_problem {
    lucid_contact_problem p;
    double *G, *g, *mu, *R;
} test_problem;

static inline test_problem test_problem_alloc(int n) {
    test_problem t;
    memset(&t, 0, sizeof t);
    int m = 3 * n;
    t.G = calloc((size_t)m * m + 1, sizeof(double));
    t.g = calloc((size_t)m + 1, sizeof(double));
    t.mu = calloc((size_t)n + 1, sizeof(double));
    t.p = (lucid_contact_problem){n, t.G, t.g, t.mu, NULL, 3};
    return t;
}

static inline void test_problem_free(test_problem *t) {
    free(t->G), free(t->g), free(t->mu), free(t->R);
}

/* G = J M^{-1} J^T with J (3n x nv) Gaussian and M = B^T B + I (nv = 4 x 3n: well
 * conditioned); g normals in [-1, 0.5], tangents Gaussian; mu in [0.1, 1]. */
static inline test_problem test_random_problem(int n, uint64_t seed) {
    test_rng r = {seed * 0x9E3779B97F4A7C15ull + 1};
    test_problem t = test_problem_alloc(n);
    int m = 3 * n, nv = 4 * m;
    double *J = calloc((size_t)m * nv, sizeof(double));
    double *B = calloc((size_t)nv * nv, sizeof(double));
    double *Minv = calloc((size_t)nv * nv, sizeof(double));
    for (int k = 0; k < m * nv; ++k) J[k] = test_normal(&r);
    for (int k = 0; k < nv * nv; ++k) B[k] = 0.3 * test_normal(&r) / sqrt((double)nv);
    /* M = B^T B + I; M^{-1} by Gauss-Jordan (small, test only). */
    double *M = calloc((size_t)nv * nv, sizeof(double));
    for (int i = 0; i < nv; ++i)
        for (int j = 0; j < nv; ++j) {
            double s = i == j;
            for (int k = 0; k < nv; ++k) s += B[k + nv * i] * B[k + nv * j];
            M[i + nv * j] = s;
            Minv[i + nv * j] = i == j;
        }
    for (int c = 0; c < nv; ++c) {
        double pivot = M[c + nv * c];
        for (int j = 0; j < nv; ++j) M[c + nv * j] /= pivot, Minv[c + nv * j] /= pivot;
        for (int i = 0; i < nv; ++i) {
            if (i == c) continue;
            double f = M[i + nv * c];
            for (int j = 0; j < nv; ++j)
                M[i + nv * j] -= f * M[c + nv * j], Minv[i + nv * j] -= f * Minv[c + nv * j];
        }
    }
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) {
            double s = 0.0;
            for (int a = 0; a < nv; ++a)
                for (int b = 0; b < nv; ++b) s += J[i + m * a] * Minv[a + nv * b] * J[j + m * b];
            t.G[i + m * j] = s / nv;
        }
    for (int i = 0; i < m; ++i) /* exact symmetry */
        for (int j = 0; j < i; ++j) t.G[i + m * j] = t.G[j + m * i];
    for (int i = 0; i < n; ++i) {
        t.g[3 * i] = test_normal(&r), t.g[3 * i + 1] = test_normal(&r);
        t.g[3 * i + 2] = -1.0 + 1.5 * test_uniform(&r);
        t.mu[i] = 0.1 + 0.9 * test_uniform(&r);
    }
    free(J), free(B), free(M), free(Minv);
    return t;
}

/* Two point masses stacked on the ground: contact 0 ground-light, contact 1 light-heavy.
 * G = [[a, -a], [-a, a + b]] (x) I3, a = 1/m_light, b = 1/m_heavy; gravity gives g. */
static inline test_problem test_stack_problem(double m_light, double m_heavy, double dt) {
    test_problem t = test_problem_alloc(2);
    double a = 1.0 / m_light, b = 1.0 / m_heavy;
    for (int k = 0; k < 3; ++k) {
        t.G[k + 6 * k] = a;
        t.G[(k + 3) + 6 * (k + 3)] = a + b;
        t.G[k + 6 * (k + 3)] = t.G[(k + 3) + 6 * k] = -a;
    }
    t.g[2] = -9.81 * dt; /* the light body falls onto the ground; the relative velocity is 0 */
    t.mu[0] = t.mu[1] = 0.5;
    return t;
}

/* Every valid model x solver pair of Table III. */
typedef struct pair {
    lucid_contact_model model;
    lucid_contact_solver solver;
} pair;

static const pair all_pairs[] = {
    {LUCID_CONTACT_LCP, LUCID_CONTACT_PGS},          {LUCID_CONTACT_CCP, LUCID_CONTACT_PGS},
    {LUCID_CONTACT_CCP, LUCID_CONTACT_ADMM},         {LUCID_CONTACT_CCP, LUCID_CONTACT_NEWTON},
    {LUCID_CONTACT_RAISIM, LUCID_CONTACT_BISECTION}, {LUCID_CONTACT_NCP, LUCID_CONTACT_PGS},
    {LUCID_CONTACT_NCP, LUCID_CONTACT_STAGGERED},    {LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM},
    {LUCID_CONTACT_CCP, LUCID_CONTACT_IP},           {LUCID_CONTACT_NCP, LUCID_CONTACT_IP},
};
#define PAIRS (int)(sizeof all_pairs / sizeof all_pairs[0])

#endif
