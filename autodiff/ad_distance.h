/* The signed-distance query as a differentiable tape primitive (behind lucid.distance with a
 * differentiable pose).
 *
 * Output y (size 10): distance, p1 (3), p2 (3), normal (3), in that order. Inputs: the two
 * poses as 12-vectors (see ad_se3.h). The derivatives are given when recording, as two 10x6
 * Jacobians (column-major, entry (r, c) at [r + 10 c]) w.r.t. local twists, J1 for T1 exp(xi)
 * and J2 for T2 exp(xi) (linear part first). A pose tangent (dR, dt) is mapped to its local
 * twist (R^T dt, vee(skew(R^T dR))) before J is applied, as in ad_se3's log rule.
 *
 * The Jacobians ride on the tape as a constant input block (x = [T1, T2, J1, J2], 144
 * entries) so the rule needs no side storage; that block is a constant, so its tangent is
 * zero and its cotangent is dropped. */
#ifndef LUCID_AD_DISTANCE_H
#define LUCID_AD_DISTANCE_H

#include "autodiff/tape.h"
#include "runtime/math/se3.h"

enum { LUCID_AD_DISTANCE_OUT = 10 };

/* J1 from J2 by invariance: the query depends on T1^-1 T2 only, and the world outputs move
 * rigidly with T1. T1 exp(eta) with T2 fixed is the rigid motion exp(Ad_T1 eta) applied to
 * the pair (T1, T2 exp(-Ad_{T2^-1 T1} eta)), so
 *   J1 = -J2 Ad_{T2^-1 T1} + rigid,  rigid rows: p_i: [R1, -hat(p_i - t1) R1],
 *                                               normal: [0, -hat(n) R1], distance: 0.
 * y is the query's output (distance, p1, p2, normal). */
void lucid_ad_distance_t1_jacobian(const lucid_se3 *T1, const lucid_se3 *T2, const double y[10],
                                   const double J2[60], double J1[60]);

/* Records y = distance query of poses T1, T2 (size-12 nodes) with Jacobians J1, J2. */
lucid_status lucid_ad_distance(lucid_ad_tape *tape, lucid_ad_var T1, lucid_ad_var T2,
                               const double y[10], const double J1[60], const double J2[60],
                               lucid_ad_var *out);

#endif
