/* Derivative rules of every tape operation, on width-w blocks (see primitive.h for the
 * layout: one row of w doubles per value component, at tape->derivs + node->deriv).
 * Forward: the node's block = J_node applied to its operands' blocks (overwritten).
 * Reverse: the operands' blocks += J_node^T applied to the node's block. */
#ifndef LUCID_AD_RULES_H
#define LUCID_AD_RULES_H

#include "autodiff/tape.h"

lucid_status lucid_ad_node_jvp(lucid_ad_tape *tape, unsigned index, int width, void *ctx);
lucid_status lucid_ad_node_vjp(lucid_ad_tape *tape, unsigned index, int width, void *ctx);

#endif
