/* Custom primitives: tape nodes whose derivative rules are supplied by callbacks (Lua
 * primitives through the binding layer, later SE(3) and collision queries in C).
 *
 * A primitive maps one input vector x (size n) to y (size m). Its value is computed by the
 * caller when the node is recorded; the tape only needs the two products below. Blocks use
 * the tape's layout: a block for a vector of size k and width w is k rows of w contiguous
 * doubles (row r holds the w tangents / cotangents of component r). */
#ifndef LUCID_AD_PRIMITIVE_H
#define LUCID_AD_PRIMITIVE_H

#include "runtime/core/status.h"

typedef struct lucid_ad_primitive {
    /* dy (m x w) = J(x) dx (n x w). */
    lucid_status (*jvp)(void *ctx, long id, const double *x, int n, const double *y, int m,
                        const double *dx, double *dy, int width);
    /* wx (n x w) = J(x)^T wy (m x w); wx is overwritten, the tape accumulates it. */
    lucid_status (*vjp)(void *ctx, long id, const double *x, int n, const double *y, int m,
                        const double *wy, double *wx, int width);
} lucid_ad_primitive;

#endif
