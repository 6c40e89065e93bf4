/* SE(3) operations as differentiable tape primitives with exact derivative rules.
 *
 * A pose on the tape is a 12-vector: R column-major (9 entries) then t (3). Twists are
 * (v, w), linear first, as in runtime/math/se3.h. Derivatives follow from right
 * perturbations T exp(d):
 *   exp:     d exp(xi)  = exp(xi) hat(Jr(xi) dxi)         (dR = R hat(w'), dt = R v')
 *   compose: d(A B)     = dA B + A dB                      (bilinear in the 12-vectors)
 *   act:     d(R p + t) = dR p + R dp + dt
 *   log:     d log(T)   = Jr(xi)^-1 (R^T dt, vee(skew(R^T dR)))
 * log uses the skew part of R^T dR, which is all of it for a tangent dR = R hat(a); other
 * directions of the 12-vector (leaving SO(3)) are projected out. */
#ifndef LUCID_AD_SE3_H
#define LUCID_AD_SE3_H

#include "autodiff/tape.h"
#include "runtime/math/se3.h"

void lucid_ad_se3_pack(const lucid_se3 *T, double out[12]);
lucid_se3 lucid_ad_se3_unpack(const double in[12]);

/* xi: size 6 -> T: size 12. */
lucid_status lucid_ad_se3_exp(lucid_ad_tape *tape, lucid_ad_var xi, lucid_ad_var *T);
/* A, B: size 12 -> A B: size 12. */
lucid_status lucid_ad_se3_compose(lucid_ad_tape *tape, lucid_ad_var A, lucid_ad_var B,
                                  lucid_ad_var *out);
/* T: size 12, p: size 3 -> R p + t: size 3. */
lucid_status lucid_ad_se3_act(lucid_ad_tape *tape, lucid_ad_var T, lucid_ad_var p,
                              lucid_ad_var *out);
/* T: size 12 -> log(T): size 6. */
lucid_status lucid_ad_se3_log(lucid_ad_tape *tape, lucid_ad_var T, lucid_ad_var *xi);

#endif
