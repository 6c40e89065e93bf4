/* Random articulated models for the model tests and the dynamics benchmark: random trees
 * with every joint kind (some bodies with several joints, some welded), random placements,
 * masses and inertias, built through lucid_model_spec like a loader would. */
#ifndef LUCID_TEST_MODEL_UTIL_H
#define LUCID_TEST_MODEL_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/model/dynamics.h"
#include "tests/c/common/test_random.h"

static inline double urange(uint64_t *s, double lo, double hi) {
    return lo + (hi - lo) * uniform(s);
}

/* A random positive definite inertia about the com: R diag(a, b, c) R^T with the triangle
 * inequalities of a real body. */
static inline lucid_mat3 random_inertia(uint64_t *s, double mass) {
    double x = urange(s, 0.05, 0.3), y = urange(s, 0.05, 0.3), z = urange(s, 0.05, 0.3);
    lucid_vec3 d = lucid_vec3_make(mass * (y * y + z * z) / 5, mass * (x * x + z * z) / 5,
                                   mass * (x * x + y * y) / 5);
    lucid_mat3 R = random_rotation(s), D = lucid_mat3_diag(d), RD = lucid_mat3_mul(&R, &D);
    lucid_mat3 Rt = lucid_mat3_transpose(&R);
    lucid_mat3 I = lucid_mat3_mul(&RD, &Rt);
    for (int r = 0; r < 3; ++r) /* exactly symmetric */
        for (int c = 0; c < r; ++c) I.m[c + 3 * r] = I.m[r + 3 * c];
    return I;
}

static inline lucid_body_spec random_body(uint64_t *s, int parent, const char *name) {
    lucid_body_spec b = lucid_body_spec_default();
    b.name = name;
    b.parent = parent;
    b.placement = lucid_se3_make(
        random_rotation(s),
        lucid_vec3_make(urange(s, -0.5, 0.5), urange(s, -0.5, 0.5), urange(s, -0.5, 0.5)));
    b.mass = urange(s, 0.5, 2.0);
    b.com = lucid_vec3_make(urange(s, -0.2, 0.2), urange(s, -0.2, 0.2), urange(s, -0.2, 0.2));
    b.inertia = random_inertia(s, b.mass);
    return b;
}

static inline lucid_joint_spec random_joint(uint64_t *s, lucid_joint_kind kind, const char *name) {
    lucid_joint_spec j = lucid_joint_spec_default(kind);
    j.name = name;
    j.axis = lucid_vec3_make(urange(s, -1, 1), urange(s, -1, 1), urange(s, -1, 1));
    if (lucid_vec3_norm(j.axis) < 0.2) j.axis = lucid_vec3_make(0, 0, 1);
    j.anchor = lucid_vec3_make(urange(s, -0.2, 0.2), urange(s, -0.2, 0.2), urange(s, -0.2, 0.2));
    if (kind == LUCID_JOINT_REVOLUTE || kind == LUCID_JOINT_PRISMATIC) {
        j.ref = urange(s, -0.3, 0.3);
        if (uniform(s) < 0.5) {
            j.limited = 1;
            j.lower = urange(s, -2.0, -0.5);
            j.upper = urange(s, 0.5, 2.0);
        }
    }
    j.armature = uniform(s) < 0.5 ? urange(s, 0.0, 0.1) : 0.0;
    j.damping = urange(s, 0.0, 0.5);
    return j;
}

/* A random tree of nbodies bodies: body 0 on a free joint, then each body on a random earlier
 * parent with 0 (welded, 1 in 10), 1 (most) or 2 (1 in 8) joints of random kinds. Every kind
 * appears when nbodies >= 20 (the first ones cycle through the kinds). */
static inline lucid_model *random_model(uint64_t seed, int nbodies) {
    uint64_t st = seed, *s = &st;
    lucid_model_spec *spec;
    if (lucid_model_spec_create(NULL, &spec) != LUCID_OK) return NULL;
    spec->gravity = lucid_vec3_make(urange(s, -1, 1), urange(s, -1, 1), -9.81);
    static const lucid_joint_kind kinds[5] = {LUCID_JOINT_REVOLUTE, LUCID_JOINT_PRISMATIC,
                                              LUCID_JOINT_SPHERICAL, LUCID_JOINT_PLANAR,
                                              LUCID_JOINT_FREE};
    char name[64];
    for (int b = 0; b < nbodies; ++b) {
        snprintf(name, sizeof name, "b%d", b);
        int parent = b == 0 ? LUCID_MODEL_WORLD : (int)(uniform(s) * b);
        lucid_body_spec body = random_body(s, parent, name);
        int idx;
        if (lucid_model_spec_add_body(spec, &body, &idx) != LUCID_OK) break;
        int nj = b == 0 ? 1 : (uniform(s) < 0.1 ? 0 : (uniform(s) < 0.125 ? 2 : 1));
        if (b >= 1 && b <= 5) nj = 1;
        if (b == 6) nj = 0;
        if (b == 7) nj = 2;
        for (int k = 0; k < nj; ++k) {
            lucid_joint_kind kind = b == 0   ? LUCID_JOINT_FREE
                                    : b <= 5 ? kinds[b - 1]
                                             : kinds[(int)(uniform(s) * 4.999)];
            if (nj == 2) /* two joints on one body: no redundant (coaxial, ball) pair */
                kind = b == 7 || uniform(s) < 0.5 ? LUCID_JOINT_REVOLUTE : LUCID_JOINT_PRISMATIC;
            snprintf(name, sizeof name, "j%d_%d", b, k);
            lucid_joint_spec j = random_joint(s, kind, name);
            lucid_model_spec_add_joint(spec, idx, &j, NULL);
        }
    }
    /* a site on every third body */
    for (int b = 0; b < nbodies; b += 3) {
        lucid_frame_spec f = {0};
        snprintf(name, sizeof name, "site%d", b);
        f.name = name;
        f.body = b;
        f.placement = lucid_se3_make(
            random_rotation(s),
            lucid_vec3_make(urange(s, -0.3, 0.3), urange(s, -0.3, 0.3), urange(s, -0.3, 0.3)));
        lucid_model_spec_add_frame(spec, &f, NULL);
    }
    lucid_model *m = NULL;
    char err[256];
    if (lucid_model_compile(spec, &m, err, sizeof err) != LUCID_OK)
        fprintf(stderr, "random_model: %s\n", err);
    lucid_model_spec_destroy(spec);
    return m;
}

/* A chain of n revolute links (a pendulum): link k hangs length l below its parent, hinge
 * axes alternating between y and a tilted axis, unit masses at the link ends. */
static inline lucid_model *pendulum_chain(int n, double l) {
    lucid_model_spec *spec;
    if (lucid_model_spec_create(NULL, &spec) != LUCID_OK) return NULL;
    char name[32];
    for (int k = 0; k < n; ++k) {
        lucid_body_spec b = lucid_body_spec_default();
        snprintf(name, sizeof name, "link%d", k);
        b.name = name;
        b.parent = k - 1;
        b.placement.t = lucid_vec3_make(0, 0, k == 0 ? 0.0 : -l);
        b.mass = 1.0;
        b.com = lucid_vec3_make(0, 0, -l);
        b.inertia = lucid_mat3_diag(lucid_vec3_make(0.01, 0.01, 0.002));
        int idx;
        lucid_model_spec_add_body(spec, &b, &idx);
        lucid_joint_spec j = lucid_joint_spec_default(LUCID_JOINT_REVOLUTE);
        snprintf(name, sizeof name, "hinge%d", k);
        j.name = name;
        j.axis = k % 2 ? lucid_vec3_make(0.3, 1, 0) : lucid_vec3_make(0, 1, 0);
        lucid_model_spec_add_joint(spec, idx, &j, NULL);
    }
    lucid_model *m = NULL;
    char err[256];
    if (lucid_model_compile(spec, &m, err, sizeof err) != LUCID_OK)
        fprintf(stderr, "pendulum_chain: %s\n", err);
    lucid_model_spec_destroy(spec);
    return m;
}

static inline void random_vector(uint64_t *s, double *x, size_t n, double scale) {
    for (size_t i = 0; i < n; ++i) x[i] = urange(s, -scale, scale);
}

static inline double norm_inf(const double *x, size_t n) {
    double r = 0.0;
    for (size_t i = 0; i < n; ++i) r = fmax(r, fabs(x[i]));
    return r;
}

static inline double diff_inf(const double *x, const double *y, size_t n) {
    double r = 0.0;
    for (size_t i = 0; i < n; ++i) r = fmax(r, fabs(x[i] - y[i]));
    return r;
}

#endif
