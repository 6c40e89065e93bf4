/* Operation constructors: validate, append a node, compute its value. */
#include "autodiff/ad_ops.h"

#include <math.h>
#include <string.h>

#include "autodiff/ad_elementwise.h"

static int all_finite(const double *x, int n) {
    for (int i = 0; i < n; ++i)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/* Drops the node just pushed (and its value storage) after a failed value computation. */
static lucid_status discard_last(lucid_ad_tape *tape, lucid_status status) {
    lucid_ad_node *node = &tape->nodes[tape->node_count - 1];
    tape->value_count = node->value;
    tape->node_count -= 1;
    return status;
}

/* Pushes a node, returning its index and value pointer through out / *values. */
static lucid_status push(lucid_ad_tape *tape, lucid_ad_op op, int size, int a, int b,
                         lucid_ad_var *out, double **values) {
    unsigned index;
    lucid_status s = lucid_ad_tape_push(tape, op, size, a, b, &index);
    if (s != LUCID_OK) return s;
    out->index = index;
    out->generation = tape->generation;
    *values = lucid_ad_node_values(tape, &tape->nodes[index]);
    return LUCID_OK;
}

/* Finishes a node whose values were just written: non-finite values undo it. */
static lucid_status finish(lucid_ad_tape *tape, const double *values, int size) {
    return all_finite(values, size) ? LUCID_OK : discard_last(tape, LUCID_ERR_NONFINITE);
}

static const double *values_of(lucid_ad_tape *tape, lucid_ad_var v) {
    return lucid_ad_node_values(tape, &tape->nodes[v.index]);
}

static lucid_status leaf(lucid_ad_tape *tape, lucid_ad_op op, const double *x, int n,
                         lucid_ad_var *out) {
    if (n < 0 || (n > 0 && !x)) return LUCID_ERR_ARGUMENT;
    if (!all_finite(x, n)) return LUCID_ERR_NONFINITE;
    double *y;
    lucid_status s = push(tape, op, n, -1, -1, out, &y);
    if (s != LUCID_OK) return s;
    if (n) memcpy(y, x, (size_t)n * sizeof(double));
    return LUCID_OK;
}

lucid_status lucid_ad_input(lucid_ad_tape *tape, const double *x, int n, lucid_ad_var *out) {
    return leaf(tape, LUCID_AD_INPUT, x, n, out);
}

lucid_status lucid_ad_constant(lucid_ad_tape *tape, const double *x, int n, lucid_ad_var *out) {
    return leaf(tape, LUCID_AD_CONST, x, n, out);
}

static double binary_value(lucid_ad_op op, double a, double b) {
    switch (op) {
        case LUCID_AD_ADD:
            return a + b;
        case LUCID_AD_SUB:
            return a - b;
        case LUCID_AD_MUL:
            return a * b;
        default:
            return a / b;
    }
}

lucid_status lucid_ad_binary(lucid_ad_tape *tape, lucid_ad_op op, lucid_ad_var a, lucid_ad_var b,
                             lucid_ad_var *out) {
    if (op != LUCID_AD_ADD && op != LUCID_AD_SUB && op != LUCID_AD_MUL && op != LUCID_AD_DIV)
        return LUCID_ERR_ARGUMENT;
    if (!lucid_ad_var_is_live(tape, a) || !lucid_ad_var_is_live(tape, b)) return LUCID_ERR_ARGUMENT;
    int ka = tape->nodes[a.index].size, kb = tape->nodes[b.index].size;
    if (ka != kb && ka != 1 && kb != 1) return LUCID_ERR_ARGUMENT;
    int k = ka > kb ? ka : kb;
    double *y;
    lucid_status s = push(tape, op, k, (int)a.index, (int)b.index, out, &y);
    if (s != LUCID_OK) return s;
    const double *va = values_of(tape, a), *vb = values_of(tape, b);
    for (int r = 0; r < k; ++r) y[r] = binary_value(op, va[ka == 1 ? 0 : r], vb[kb == 1 ? 0 : r]);
    return finish(tape, y, k);
}

static double norm_of(const double *x, int n) {
    double scale = 0.0;
    for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(x[i]));
    if (scale == 0.0) return 0.0;
    double sum = 0.0; /* scaled so that huge or tiny entries neither overflow nor underflow */
    for (int i = 0; i < n; ++i) sum += (x[i] / scale) * (x[i] / scale);
    return scale * sqrt(sum);
}

lucid_status lucid_ad_unary(lucid_ad_tape *tape, lucid_ad_op op, lucid_ad_var a,
                            lucid_ad_var *out) {
    if (!lucid_ad_var_is_live(tape, a)) return LUCID_ERR_ARGUMENT;
    int k = tape->nodes[a.index].size;
    if (op == LUCID_AD_NORM) {
        double *y;
        lucid_status s = push(tape, op, 1, (int)a.index, -1, out, &y);
        if (s != LUCID_OK) return s;
        y[0] = norm_of(values_of(tape, a), k);
        return finish(tape, y, 1);
    }
    if (!lucid_ad_is_elementwise(op)) return LUCID_ERR_ARGUMENT;
    double *y;
    lucid_status s = push(tape, op, k, (int)a.index, -1, out, &y);
    if (s != LUCID_OK) return s;
    const double *x = values_of(tape, a);
    for (int r = 0; r < k; ++r) y[r] = lucid_ad_elementwise_value(op, x[r]);
    return finish(tape, y, k);
}

lucid_status lucid_ad_dot(lucid_ad_tape *tape, lucid_ad_var a, lucid_ad_var b, lucid_ad_var *out) {
    if (!lucid_ad_var_is_live(tape, a) || !lucid_ad_var_is_live(tape, b)) return LUCID_ERR_ARGUMENT;
    int k = tape->nodes[a.index].size;
    if (tape->nodes[b.index].size != k) return LUCID_ERR_ARGUMENT;
    double *y;
    lucid_status s = push(tape, LUCID_AD_DOT, 1, (int)a.index, (int)b.index, out, &y);
    if (s != LUCID_OK) return s;
    const double *va = values_of(tape, a), *vb = values_of(tape, b);
    double sum = 0.0;
    for (int r = 0; r < k; ++r) sum += va[r] * vb[r];
    y[0] = sum;
    return finish(tape, y, 1);
}

lucid_status lucid_ad_matvec(lucid_ad_tape *tape, const double *A, int rows, int cols,
                             lucid_ad_var a, lucid_ad_var *out) {
    if (!lucid_ad_var_is_live(tape, a) || rows < 1 || cols != tape->nodes[a.index].size || !A)
        return LUCID_ERR_ARGUMENT;
    if (!all_finite(A, rows * cols)) return LUCID_ERR_NONFINITE;
    size_t matrix;
    lucid_status s = lucid_ad_tape_reserve_values(tape, (size_t)rows * (size_t)cols, &matrix);
    if (s != LUCID_OK) return s;
    memcpy(tape->values + matrix, A, (size_t)rows * (size_t)cols * sizeof(double));
    double *y;
    s = push(tape, LUCID_AD_MATVEC, rows, (int)a.index, -1, out, &y);
    if (s != LUCID_OK) {
        tape->value_count = matrix;
        return s;
    }
    lucid_ad_node *node = &tape->nodes[out->index];
    node->aux = matrix;
    node->aux_count = cols;
    const double *M = tape->values + matrix, *x = values_of(tape, a);
    for (int r = 0; r < rows; ++r) {
        double sum = 0.0;
        for (int c = 0; c < cols; ++c) sum += M[r + (size_t)rows * c] * x[c];
        y[r] = sum;
    }
    if (all_finite(y, rows)) return LUCID_OK;
    tape->node_count -= 1;
    tape->value_count = matrix;
    return LUCID_ERR_NONFINITE;
}

lucid_status lucid_ad_slice(lucid_ad_tape *tape, lucid_ad_var a, int start, int count,
                            lucid_ad_var *out) {
    if (!lucid_ad_var_is_live(tape, a)) return LUCID_ERR_ARGUMENT;
    int k = tape->nodes[a.index].size;
    if (start < 0 || count < 1 || count > k - start) return LUCID_ERR_ARGUMENT;
    double *y;
    lucid_status s = push(tape, LUCID_AD_SLICE, count, (int)a.index, -1, out, &y);
    if (s != LUCID_OK) return s;
    tape->nodes[out->index].aux_count = start;
    memcpy(y, values_of(tape, a) + start, (size_t)count * sizeof(double));
    return LUCID_OK;
}

lucid_status lucid_ad_concat(lucid_ad_tape *tape, const lucid_ad_var *parts, int count,
                             lucid_ad_var *out) {
    if (count < 1 || !parts) return LUCID_ERR_ARGUMENT;
    long total = 0;
    for (int i = 0; i < count; ++i) {
        if (!lucid_ad_var_is_live(tape, parts[i])) return LUCID_ERR_ARGUMENT;
        total += tape->nodes[parts[i].index].size;
        if (total > 0x7fffffffL) return LUCID_ERR_ARGUMENT;
    }
    size_t links;
    lucid_status s = lucid_ad_tape_reserve_links(tape, (size_t)count, &links);
    if (s != LUCID_OK) return s;
    double *y;
    s = push(tape, LUCID_AD_CONCAT, (int)total, -1, -1, out, &y);
    if (s != LUCID_OK) {
        tape->link_count = links;
        return s;
    }
    tape->nodes[out->index].aux = links;
    tape->nodes[out->index].aux_count = count;
    for (int i = 0; i < count; ++i) {
        const lucid_ad_node *part = &tape->nodes[parts[i].index];
        tape->links[links + (size_t)i] = (int)parts[i].index;
        memcpy(y, tape->values + part->value, (size_t)part->size * sizeof(double));
        y += part->size;
    }
    return LUCID_OK;
}

lucid_status lucid_ad_apply_primitive(lucid_ad_tape *tape, const lucid_ad_primitive *prim, long id,
                                      lucid_ad_var x, const double *y, int m, lucid_ad_var *out) {
    if (!prim || !prim->jvp || !prim->vjp || !lucid_ad_var_is_live(tape, x) || m < 1 || !y)
        return LUCID_ERR_ARGUMENT;
    if (!all_finite(y, m)) return LUCID_ERR_NONFINITE;
    double *values;
    lucid_status s = push(tape, LUCID_AD_PRIMITIVE, m, (int)x.index, -1, out, &values);
    if (s != LUCID_OK) return s;
    tape->nodes[out->index].prim = prim;
    tape->nodes[out->index].prim_id = id;
    memcpy(values, y, (size_t)m * sizeof(double));
    return LUCID_OK;
}
