/* Reverse mode: seed the output's block with the identity and pull cotangents back. */
#include "autodiff/ad_rules.h"
#include "autodiff/sweep.h"

static lucid_status sweep(lucid_ad_tape *tape, lucid_ad_var input, lucid_ad_var output, void *ctx,
                          double *J) {
    if (!lucid_ad_var_is_live(tape, input) || !lucid_ad_var_is_live(tape, output) || !J)
        return LUCID_ERR_ARGUMENT;
    int n = tape->nodes[input.index].size, m = tape->nodes[output.index].size;
    if (n < 1 || m < 1) return LUCID_ERR_ARGUMENT;
    lucid_status s = lucid_ad_prepare_blocks(tape, output.index, m);
    if (s != LUCID_OK) return s;
    double *seed = tape->derivs + tape->nodes[output.index].deriv;
    for (int r = 0; r < m; ++r) seed[(size_t)r * (size_t)m + (size_t)r] = 1.0;
    for (unsigned i = output.index + 1; i-- > 0;) {
        s = lucid_ad_node_vjp(tape, i, m, ctx);
        if (s != LUCID_OK) return s;
    }
    /* an input recorded after the output cannot influence it: its Jacobian is zero */
    int reached = input.index <= output.index;
    const double *in = tape->derivs + (reached ? tape->nodes[input.index].deriv : 0);
    for (int r = 0; r < m; ++r)
        for (int c = 0; c < n; ++c)
            J[r + (size_t)m * c] = reached ? in[(size_t)c * (size_t)m + r] : 0.0;
    return LUCID_OK;
}

lucid_status lucid_ad_reverse(lucid_ad_tape *tape, lucid_ad_var input, lucid_ad_var output,
                              void *ctx, double *J) {
    tape->sweeping = 1; /* primitive callbacks run inside: they must not grow the arena */
    lucid_status s = sweep(tape, input, output, ctx, J);
    tape->sweeping = 0;
    return s;
}
