/* Mode selection and result checking around the two sweeps. */
#include "autodiff/jacobian.h"

#include <math.h>

#include "autodiff/sweep.h"

lucid_ad_mode lucid_ad_choose_mode(int n, int m) {
    return n <= m ? LUCID_AD_MODE_FORWARD : LUCID_AD_MODE_REVERSE;
}

lucid_status lucid_ad_jacobian(lucid_ad_tape *tape, lucid_ad_var input, lucid_ad_var output,
                               lucid_ad_mode mode, void *ctx, double *J) {
    if (!lucid_ad_var_is_live(tape, input) || !lucid_ad_var_is_live(tape, output))
        return LUCID_ERR_ARGUMENT;
    int n = tape->nodes[input.index].size, m = tape->nodes[output.index].size;
    if (mode == LUCID_AD_MODE_AUTO) mode = lucid_ad_choose_mode(n, m);
    lucid_status s = mode == LUCID_AD_MODE_FORWARD ? lucid_ad_forward(tape, input, output, ctx, J)
                                                   : lucid_ad_reverse(tape, input, output, ctx, J);
    if (s != LUCID_OK) return s;
    for (size_t e = 0; e < (size_t)m * (size_t)n; ++e)
        if (!isfinite(J[e])) return LUCID_ERR_NONFINITE;
    return LUCID_OK;
}
