/* Lays out the derivative blocks of a sweep in the tape's reusable deriv arena. */
#include <string.h>

#include "autodiff/sweep.h"

lucid_status lucid_ad_prepare_blocks(lucid_ad_tape *tape, unsigned last, int width) {
    if (width < 1) return LUCID_ERR_ARGUMENT;
    size_t total = 0, scratch = 0;
    for (unsigned i = 0; i <= last; ++i) {
        lucid_ad_node *node = &tape->nodes[i];
        node->deriv = total;
        total += (size_t)node->size * (size_t)width;
        if (node->op == LUCID_AD_PRIMITIVE) {
            size_t in = (size_t)tape->nodes[node->a].size * (size_t)width;
            if (in > scratch) scratch = in;
        }
    }
    if (total > LUCID_AD_MAX_BLOCK_ENTRIES) return LUCID_ERR_NO_MEMORY;
    lucid_status s = lucid_ad_tape_reserve_derivs(tape, total, scratch);
    if (s != LUCID_OK) return s;
    if (total) memset(tape->derivs, 0, total * sizeof(double));
    return LUCID_OK;
}
