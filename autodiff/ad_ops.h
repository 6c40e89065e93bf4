/* Recording operations on the tape. Each constructor validates its operands (live handles of
 * this tape, compatible sizes), computes the value immediately and appends one node.
 *
 * Errors: LUCID_ERR_ARGUMENT for a stale or foreign handle, a size mismatch or a bad range;
 * LUCID_ERR_NONFINITE when the value is NaN/Inf (log or sqrt outside their domain, division
 * by zero, overflow); LUCID_ERR_NO_MEMORY when the arena cannot grow. On error the tape is
 * unchanged apart from reserved capacity, so it can still be reset and reused.
 *
 * norm: at a = 0 the derivative is the zero vector, the minimum-norm subgradient (the
 * subdifferential there is the unit ball), so optimisers see a stationary point. */
#ifndef LUCID_AD_OPS_H
#define LUCID_AD_OPS_H

#include "autodiff/tape.h"

/* Independent variable / constant holding a copy of x[0..n). */
lucid_status lucid_ad_input(lucid_ad_tape *tape, const double *x, int n, lucid_ad_var *out);
lucid_status lucid_ad_constant(lucid_ad_tape *tape, const double *x, int n, lucid_ad_var *out);

/* op in {ADD, SUB, MUL, DIV}: elementwise; sizes must match unless one operand has size 1,
 * which broadcasts. */
lucid_status lucid_ad_binary(lucid_ad_tape *tape, lucid_ad_op op, lucid_ad_var a, lucid_ad_var b,
                             lucid_ad_var *out);

/* op in {NEG, EXP, LOG, SQRT, SIN, COS, TANH} elementwise, or NORM (scalar result). */
lucid_status lucid_ad_unary(lucid_ad_tape *tape, lucid_ad_op op, lucid_ad_var a, lucid_ad_var *out);

/* a . b for equal sizes (scalar result). */
lucid_status lucid_ad_dot(lucid_ad_tape *tape, lucid_ad_var a, lucid_ad_var b, lucid_ad_var *out);

/* A a with a constant rows x cols matrix A (column-major, copied); a has size cols. */
lucid_status lucid_ad_matvec(lucid_ad_tape *tape, const double *A, int rows, int cols,
                             lucid_ad_var a, lucid_ad_var *out);

/* a[start .. start+count), 0-based; count >= 1. x[i] is a slice of count 1. */
lucid_status lucid_ad_slice(lucid_ad_tape *tape, lucid_ad_var a, int start, int count,
                            lucid_ad_var *out);

/* The parts joined end to end (count >= 1). */
lucid_status lucid_ad_concat(lucid_ad_tape *tape, const lucid_ad_var *parts, int count,
                             lucid_ad_var *out);

/* A custom primitive y = f(x): the caller computed y[0..m) = f(value of x); the tape stores
 * it and calls prim->jvp / prim->vjp (with the sweep's context and this id) when
 * differentiating. Both callbacks must be non-NULL. */
lucid_status lucid_ad_apply_primitive(lucid_ad_tape *tape, const lucid_ad_primitive *prim, long id,
                                      lucid_ad_var x, const double *y, int m, lucid_ad_var *out);

#endif
