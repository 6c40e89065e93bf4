/* The scene of the batch-rollout test and benchmark: n boxes of random sizes and orientations
 * dropped in columns of a 4 x 4 grid onto the ground (they fall into a heap 1 m wide, as in
 * bench_contact), and N initial states and control sequences around a given state. */
#ifndef LUCID_TESTS_BATCH_SCENE_H
#define LUCID_TESTS_BATCH_SCENE_H

#include <stdint.h>
#include <stdlib.h>

#include "runtime/math/quat.h"
#include "runtime/math/rng.h"
#include "runtime/world/world.h"

/* A world with the ground and n boxes (NULL on failure). */
static inline lucid_world *batch_scene_heap(int n, uint64_t seed) {
    lucid_world *w = NULL;
    if (lucid_world_create(NULL, &w) != LUCID_OK) return NULL;
    lucid_body_part ground = {.pose = lucid_se3_identity()};
    int id;
    lucid_status s = lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0.0, &ground.shape);
    if (s == LUCID_OK) s = lucid_world_add_static(w, &ground, 1, &ground.pose, 0.5, &id, NULL);
    lucid_rng rng;
    lucid_rng_seed(&rng, seed);
    for (int i = 0; i < n && s == LUCID_OK; ++i) {
        double half[3], q[4];
        for (int k = 0; k < 3; ++k) half[k] = 0.04 + 0.03 * lucid_rng_uniform(&rng);
        lucid_rng_unit_quaternion(&rng, q);
        int column = i % 16, layer = i / 16;
        lucid_vec3 x =
            lucid_vec3_make(0.25 * (column % 4 - 1.5) + 0.02 * (lucid_rng_uniform(&rng) - 0.5),
                            0.25 * (column / 4 - 1.5) + 0.02 * (lucid_rng_uniform(&rng) - 0.5),
                            0.15 + 0.25 * layer);
        lucid_body_part part = {.pose = lucid_se3_identity()};
        s = lucid_shape_box(half[0], half[1], half[2], &part.shape);
        lucid_body_desc d;
        lucid_body_desc_default(&d);
        d.parts = &part, d.num_parts = 1;
        d.pose = lucid_se3_make(lucid_quat_to_mat3(lucid_quat_make(q[0], q[1], q[2], q[3])), x);
        if (s == LUCID_OK) s = lucid_world_add_body(w, &d, &id, NULL);
    }
    if (s != LUCID_OK) lucid_world_destroy(w), w = NULL;
    return w;
}

/* N initial states (nx x N): w's state with every free body's twist replaced by a random one
 * (linear up to 0.5 m/s, angular up to 2 rad/s), and controls (nu x T x N): random forces up
 * to 5 N and torques up to 0.2 N m. Returns 0 when out of memory. */
static inline int batch_scene_inputs(const lucid_world *w, size_t N, size_t T, uint64_t seed,
                                     double **x0, double **u) {
    size_t nx = (size_t)lucid_world_state_size(w), nu = (size_t)lucid_world_controls_size(w);
    *x0 = malloc(sizeof(double) * (nx * N + 1));
    *u = malloc(sizeof(double) * (nu * T * N + 1));
    if (!*x0 || !*u) return free(*x0), free(*u), 0;
    lucid_rng rng;
    lucid_rng_seed(&rng, seed);
    lucid_world *c = NULL; /* a copy whose velocities are set: layout-independent */
    if (lucid_world_clone(w, &c) != LUCID_OK) return free(*x0), free(*u), 0;
    for (size_t i = 0; i < N; ++i) {
        for (int b = 0; b < lucid_world_body_count(c); ++b) {
            if (lucid_world_is_static(c, b)) continue;
            double v[6];
            for (int k = 0; k < 6; ++k)
                v[k] = (k < 3 ? 0.5 : 2.0) * (2.0 * lucid_rng_uniform(&rng) - 1.0);
            lucid_world_set_velocity(c, b, v);
        }
        lucid_world_get_state(c, *x0 + nx * i);
    }
    lucid_world_destroy(c);
    for (size_t k = 0; k < nu * T * N; ++k)
        (*u)[k] = (k % 6 < 3 ? 5.0 : 0.2) * (2.0 * lucid_rng_uniform(&rng) - 1.0);
    return 1;
}

#endif
