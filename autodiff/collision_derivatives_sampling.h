/* The estimators that only re-run distance queries at perturbed poses of shape 2: central
 * finite differences (collision_derivatives_fd.c) and zeroth-order Gaussian smoothing of the
 * pose (Eq. 6, collision_derivatives_zeroth.c). Each query is warm-started from the nominal
 * one. res->query must hold the nominal query; they fill the derivative fields. */
#ifndef LUCID_COLLISION_DERIVATIVES_SAMPLING_H
#define LUCID_COLLISION_DERIVATIVES_SAMPLING_H

#include "autodiff/collision_derivatives.h"

typedef struct lucid_pose_query {
    const lucid_shape *s1, *s2;
    const lucid_se3 *T1, *T2;
    lucid_gjk_options gjk; /* warm-started from the nominal query */
} lucid_pose_query;

/* Sets q up for perturbations around res->query (gjk may be NULL: defaults). */
void lucid_pose_query_init(lucid_pose_query *q, const lucid_shape *s1, const lucid_se3 *T1,
                           const lucid_shape *s2, const lucid_se3 *T2, const lucid_gjk_options *gjk,
                           const lucid_distance_result *nominal);

/* The distance query at T2 exp(xi). */
lucid_status lucid_pose_query_run(const lucid_pose_query *q, const double xi[6],
                                  lucid_distance_result *out);

lucid_status lucid_derivatives_finite_differences(const lucid_pose_query *q, double step,
                                                  lucid_distance_derivatives_result *res);

lucid_status lucid_derivatives_zeroth_order(const lucid_pose_query *q, int samples, double noise,
                                            uint64_t seed, lucid_distance_derivatives_result *res);

#endif
