/* Jacobian-vector and vector-Jacobian products of each operation on width-w blocks. */
#include "autodiff/ad_rules.h"

#include <string.h>

#include "autodiff/ad_elementwise.h"

typedef struct rule_args {
    lucid_ad_tape *tape;
    const lucid_ad_node *node, *a, *b; /* a, b NULL when unused */
    int w;
} rule_args;

static double *block(const rule_args *r, const lucid_ad_node *n) {
    return r->tape->derivs + n->deriv;
}
static const double *value(const rule_args *r, const lucid_ad_node *n) {
    return r->tape->values + n->value;
}
/* Row of component i of operand n, honouring size-1 broadcasting. */
static double *row(const rule_args *r, const lucid_ad_node *n, int i) {
    return block(r, n) + (size_t)(n->size == 1 ? 0 : i) * (size_t)r->w;
}
static double entry(const rule_args *r, const lucid_ad_node *n, int i) {
    return value(r, n)[n->size == 1 ? 0 : i];
}

/* The local partials of a binary elementwise op at component i: dy = pa da + pb db. */
static void binary_partials(const rule_args *r, int i, double *pa, double *pb) {
    double a = entry(r, r->a, i), b = entry(r, r->b, i);
    switch (r->node->op) {
        case LUCID_AD_ADD:
            *pa = 1.0, *pb = 1.0;
            break;
        case LUCID_AD_SUB:
            *pa = 1.0, *pb = -1.0;
            break;
        case LUCID_AD_MUL:
            *pa = b, *pb = a;
            break;
        default:
            *pa = 1.0 / b, *pb = -a / (b * b);
            break;
    }
}

static void binary_jvp(const rule_args *r) {
    for (int i = 0; i < r->node->size; ++i) {
        double pa, pb, *y = row(r, r->node, i);
        const double *da = row(r, r->a, i), *db = row(r, r->b, i);
        binary_partials(r, i, &pa, &pb);
        for (int c = 0; c < r->w; ++c) y[c] = pa * da[c] + pb * db[c];
    }
}

static void binary_vjp(const rule_args *r) {
    for (int i = 0; i < r->node->size; ++i) {
        double pa, pb, *ga = row(r, r->a, i), *gb = row(r, r->b, i);
        const double *gy = row(r, r->node, i);
        binary_partials(r, i, &pa, &pb);
        for (int c = 0; c < r->w; ++c) ga[c] += pa * gy[c];
        for (int c = 0; c < r->w; ++c) gb[c] += pb * gy[c];
    }
}

static void elementwise_rule(const rule_args *r, int reverse) {
    const double *x = value(r, r->a), *y = value(r, r->node);
    for (int i = 0; i < r->node->size; ++i) {
        double d = lucid_ad_elementwise_derivative(r->node->op, x[i], y[i]);
        double *out = row(r, reverse ? r->a : r->node, i);
        const double *in = row(r, reverse ? r->node : r->a, i);
        if (reverse)
            for (int c = 0; c < r->w; ++c) out[c] += d * in[c];
        else
            for (int c = 0; c < r->w; ++c) out[c] = d * in[c];
    }
}

/* Scalar-output ops (dot, norm): dy = sum_i pa_i da_i + pb_i db_i. The partials of dot are
 * the other operand; those of norm are a / |a| (zero at a = 0, see ad_ops.h). */
static double reduction_partial(const rule_args *r, const lucid_ad_node *wrt, int i) {
    if (r->node->op == LUCID_AD_DOT) return value(r, wrt == r->a ? r->b : r->a)[i];
    double norm = value(r, r->node)[0];
    return norm > 0.0 ? value(r, r->a)[i] / norm : 0.0;
}

static void reduction_jvp(const rule_args *r) {
    double *y = block(r, r->node);
    memset(y, 0, (size_t)r->w * sizeof(double));
    const lucid_ad_node *ops[2] = {r->a, r->b};
    for (int o = 0; o < 2 && ops[o]; ++o)
        for (int i = 0; i < ops[o]->size; ++i) {
            double p = reduction_partial(r, ops[o], i);
            const double *d = row(r, ops[o], i);
            for (int c = 0; c < r->w; ++c) y[c] += p * d[c];
        }
}

static void reduction_vjp(const rule_args *r) {
    const double *gy = block(r, r->node);
    const lucid_ad_node *ops[2] = {r->a, r->b};
    for (int o = 0; o < 2 && ops[o]; ++o)
        for (int i = 0; i < ops[o]->size; ++i) {
            /* for x:dot(x) both passes hit the same block: the sum is 2 x, as it must be */
            double p = reduction_partial(r, ops[o], i), *g = row(r, ops[o], i);
            for (int c = 0; c < r->w; ++c) g[c] += p * gy[c];
        }
}

static void matvec_jvp(const rule_args *r, int reverse) {
    const double *A = r->tape->values + r->node->aux;
    int rows = r->node->size, cols = r->node->aux_count;
    if (!reverse) memset(block(r, r->node), 0, (size_t)rows * (size_t)r->w * sizeof(double));
    for (int j = 0; j < cols; ++j) {
        double *x = row(r, r->a, j);
        for (int i = 0; i < rows; ++i) {
            double aij = A[i + (size_t)rows * j], *y = row(r, r->node, i);
            if (aij == 0.0) continue;
            if (reverse)
                for (int c = 0; c < r->w; ++c) x[c] += aij * y[c];
            else
                for (int c = 0; c < r->w; ++c) y[c] += aij * x[c];
        }
    }
}

/* Copies (forward) or accumulates (reverse) between the node's rows [at, at+count) and the
 * first count rows of operand src starting at src_row. */
static void move_rows(const rule_args *r, const lucid_ad_node *src, int src_row, int at, int count,
                      int reverse) {
    size_t n = (size_t)count * (size_t)r->w;
    double *y = block(r, r->node) + (size_t)at * (size_t)r->w;
    double *x = block(r, src) + (size_t)src_row * (size_t)r->w;
    if (!reverse) {
        memcpy(y, x, n * sizeof(double));
        return;
    }
    for (size_t e = 0; e < n; ++e) x[e] += y[e];
}

static void concat_rule(const rule_args *r, int reverse) {
    const int *parts = r->tape->links + r->node->aux;
    int at = 0;
    for (int p = 0; p < r->node->aux_count; ++p) {
        const lucid_ad_node *part = &r->tape->nodes[parts[p]];
        move_rows(r, part, 0, at, part->size, reverse);
        at += part->size;
    }
}

static lucid_status primitive_jvp(const rule_args *r, void *ctx) {
    const lucid_ad_node *n = r->node;
    return n->prim->jvp(ctx, n->prim_id, value(r, r->a), r->a->size, value(r, n), n->size,
                        block(r, r->a), block(r, n), r->w);
}

static lucid_status primitive_vjp(const rule_args *r, void *ctx) {
    const lucid_ad_node *n = r->node;
    double *scratch = r->tape->scratch;
    lucid_status s = n->prim->vjp(ctx, n->prim_id, value(r, r->a), r->a->size, value(r, n), n->size,
                                  block(r, n), scratch, r->w);
    if (s != LUCID_OK) return s;
    double *g = block(r, r->a);
    for (size_t e = 0; e < (size_t)r->a->size * (size_t)r->w; ++e) g[e] += scratch[e];
    return LUCID_OK;
}

static rule_args make_args(lucid_ad_tape *tape, unsigned index, int width) {
    const lucid_ad_node *n = &tape->nodes[index];
    rule_args r = {tape, n, n->a >= 0 ? &tape->nodes[n->a] : NULL,
                   n->b >= 0 ? &tape->nodes[n->b] : NULL, width};
    return r;
}

lucid_status lucid_ad_node_jvp(lucid_ad_tape *tape, unsigned index, int width, void *ctx) {
    rule_args r = make_args(tape, index, width);
    switch (r.node->op) {
        case LUCID_AD_INPUT:
        case LUCID_AD_CONST:
            return LUCID_OK; /* seeded by the sweep */
        case LUCID_AD_ADD:
        case LUCID_AD_SUB:
        case LUCID_AD_MUL:
        case LUCID_AD_DIV:
            binary_jvp(&r);
            return LUCID_OK;
        case LUCID_AD_DOT:
        case LUCID_AD_NORM:
            reduction_jvp(&r);
            return LUCID_OK;
        case LUCID_AD_MATVEC:
            matvec_jvp(&r, 0);
            return LUCID_OK;
        case LUCID_AD_SLICE:
            move_rows(&r, r.a, r.node->aux_count, 0, r.node->size, 0);
            return LUCID_OK;
        case LUCID_AD_CONCAT:
            concat_rule(&r, 0);
            return LUCID_OK;
        case LUCID_AD_PRIMITIVE:
            return primitive_jvp(&r, ctx);
        default:
            if (!lucid_ad_is_elementwise(r.node->op)) return LUCID_ERR_INTERNAL;
            elementwise_rule(&r, 0);
            return LUCID_OK;
    }
}

lucid_status lucid_ad_node_vjp(lucid_ad_tape *tape, unsigned index, int width, void *ctx) {
    rule_args r = make_args(tape, index, width);
    switch (r.node->op) {
        case LUCID_AD_INPUT:
        case LUCID_AD_CONST:
            return LUCID_OK;
        case LUCID_AD_ADD:
        case LUCID_AD_SUB:
        case LUCID_AD_MUL:
        case LUCID_AD_DIV:
            binary_vjp(&r);
            return LUCID_OK;
        case LUCID_AD_DOT:
        case LUCID_AD_NORM:
            reduction_vjp(&r);
            return LUCID_OK;
        case LUCID_AD_MATVEC:
            matvec_jvp(&r, 1);
            return LUCID_OK;
        case LUCID_AD_SLICE:
            move_rows(&r, r.a, r.node->aux_count, 0, r.node->size, 1);
            return LUCID_OK;
        case LUCID_AD_CONCAT:
            concat_rule(&r, 1);
            return LUCID_OK;
        case LUCID_AD_PRIMITIVE:
            return primitive_vjp(&r, ctx);
        default:
            if (!lucid_ad_is_elementwise(r.node->op)) return LUCID_ERR_INTERNAL;
            elementwise_rule(&r, 1);
            return LUCID_OK;
    }
}
