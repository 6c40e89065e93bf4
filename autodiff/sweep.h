/* Forward and reverse sweeps over a recorded tape, producing the Jacobian of one output
 * variable with respect to one input variable (other inputs are held constant).
 *
 * Forward mode carries n-wide tangent blocks (k x n per node, n = input size) in one pass;
 * reverse mode carries m-wide cotangent blocks (m = output size). Both write J (m x n,
 * column-major). ctx is handed to custom primitives' callbacks; a callback error stops the
 * sweep and its status is returned, leaving the tape intact (reset-able, re-sweepable). */
#ifndef LUCID_AD_SWEEP_H
#define LUCID_AD_SWEEP_H

#include "autodiff/tape.h"

lucid_status lucid_ad_forward(lucid_ad_tape *tape, lucid_ad_var input, lucid_ad_var output,
                              void *ctx, double *J);
lucid_status lucid_ad_reverse(lucid_ad_tape *tape, lucid_ad_var input, lucid_ad_var output,
                              void *ctx, double *J);

/* Largest derivative arena of one sweep (doubles; 8 GiB): wider requests fail with
 * LUCID_ERR_NO_MEMORY instead of exhausting the machine. */
#define LUCID_AD_MAX_BLOCK_ENTRIES ((size_t)1 << 30)

/* Gives nodes 0..last a zeroed width-w block each (and the primitive scratch space). */
lucid_status lucid_ad_prepare_blocks(lucid_ad_tape *tape, unsigned last, int width);

#endif
