/* The Jacobian of a recorded function, choosing the cheaper sweep.
 *
 * Cost model: every node's rule costs about (its work) x (block width), and both sweeps visit
 * the same nodes, so forward mode costs ~ n x W and reverse ~ m x W for the same tape work W.
 * AUTO therefore picks forward when n <= m (input no wider than output) and reverse otherwise
 * (e.g. gradients of scalar costs). */
#ifndef LUCID_AD_JACOBIAN_H
#define LUCID_AD_JACOBIAN_H

#include "autodiff/tape.h"

typedef enum lucid_ad_mode {
    LUCID_AD_MODE_AUTO,
    LUCID_AD_MODE_FORWARD,
    LUCID_AD_MODE_REVERSE
} lucid_ad_mode;

/* The mode AUTO resolves to for an n-input, m-output function. */
lucid_ad_mode lucid_ad_choose_mode(int n, int m);

/* J (m x n, column-major) = d output / d input. Returns LUCID_ERR_NONFINITE when a derivative
 * is infinite or NaN (e.g. sqrt at 0), with J filled in anyway. */
lucid_status lucid_ad_jacobian(lucid_ad_tape *tape, lucid_ad_var input, lucid_ad_var output,
                               lucid_ad_mode mode, void *ctx, double *J);

#endif
