/* Forward mode: seed the input's block with the identity and push tangents through. */
#include "autodiff/ad_rules.h"
#include "autodiff/sweep.h"

static lucid_status sweep(lucid_ad_tape *tape, lucid_ad_var input, lucid_ad_var output, void *ctx,
                          double *J) {
    if (!lucid_ad_var_is_live(tape, input) || !lucid_ad_var_is_live(tape, output) || !J)
        return LUCID_ERR_ARGUMENT;
    int n = tape->nodes[input.index].size, m = tape->nodes[output.index].size;
    if (n < 1 || m < 1) return LUCID_ERR_ARGUMENT;
    lucid_status s = lucid_ad_prepare_blocks(tape, output.index, n);
    if (s != LUCID_OK) return s;
    if (input.index <= output.index) {
        double *seed = tape->derivs + tape->nodes[input.index].deriv;
        for (int i = 0; i < n; ++i) seed[(size_t)i * (size_t)n + (size_t)i] = 1.0;
    }
    for (unsigned i = 0; i <= output.index; ++i) {
        if (i == input.index) continue; /* keep the seed */
        s = lucid_ad_node_jvp(tape, i, n, ctx);
        if (s != LUCID_OK) return s;
    }
    const double *out = tape->derivs + tape->nodes[output.index].deriv;
    for (int r = 0; r < m; ++r)
        for (int c = 0; c < n; ++c) J[r + (size_t)m * c] = out[(size_t)r * (size_t)n + c];
    return LUCID_OK;
}

lucid_status lucid_ad_forward(lucid_ad_tape *tape, lucid_ad_var input, lucid_ad_var output,
                              void *ctx, double *J) {
    tape->sweeping = 1; /* primitive callbacks run inside: they must not grow the arena */
    lucid_status s = sweep(tape, input, output, ctx, J);
    tape->sweeping = 0;
    return s;
}
