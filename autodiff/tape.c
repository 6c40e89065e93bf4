/* Tape storage: growable arrays addressed by offsets, kept across resets. */
#include "autodiff/tape.h"

#include <stdlib.h>

lucid_ad_tape *lucid_ad_tape_create(void) {
    lucid_ad_tape *tape = calloc(1, sizeof *tape);
    if (tape) tape->generation = 1;
    return tape;
}

void lucid_ad_tape_destroy(lucid_ad_tape *tape) {
    if (!tape) return;
    free(tape->nodes);
    free(tape->values);
    free(tape->links);
    free(tape->derivs);
    free(tape->scratch);
    free(tape);
}

void lucid_ad_tape_reset(lucid_ad_tape *tape) {
    tape->sweeping = 0;
    tape->node_count = 0;
    tape->value_count = 0;
    tape->link_count = 0;
    tape->generation += 1;
    if (tape->generation == 0) tape->generation = 1; /* 0 never names a live tape */
}

size_t lucid_ad_tape_reserved_bytes(const lucid_ad_tape *tape) {
    return tape->node_capacity * sizeof(lucid_ad_node) + tape->value_capacity * sizeof(double) +
           tape->link_capacity * sizeof(int) + tape->deriv_capacity * sizeof(double) +
           tape->scratch_capacity * sizeof(double);
}

int lucid_ad_var_is_live(const lucid_ad_tape *tape, lucid_ad_var v) {
    return tape && v.generation == tape->generation && v.index < tape->node_count;
}

int lucid_ad_var_size(const lucid_ad_tape *tape, lucid_ad_var v) {
    return lucid_ad_var_is_live(tape, v) ? tape->nodes[v.index].size : 0;
}

const double *lucid_ad_var_values(const lucid_ad_tape *tape, lucid_ad_var v) {
    return lucid_ad_var_is_live(tape, v) ? tape->values + tape->nodes[v.index].value : NULL;
}

/* Grows *array (element size elem) so it holds at least need elements; doubles capacity. */
static lucid_status grow(void **array, size_t *capacity, size_t need, size_t elem) {
    if (need <= *capacity) return LUCID_OK;
    size_t cap = *capacity ? *capacity : 16;
    while (cap < need) {
        if (cap > ((size_t)-1) / 2 / elem) return LUCID_ERR_NO_MEMORY;
        cap *= 2;
    }
    void *p = realloc(*array, cap * elem);
    if (!p) return LUCID_ERR_NO_MEMORY;
    *array = p;
    *capacity = cap;
    return LUCID_OK;
}

lucid_status lucid_ad_tape_reserve_values(lucid_ad_tape *tape, size_t n, size_t *offset) {
    if (tape->sweeping) return LUCID_ERR_ARGUMENT;
    lucid_status s =
        grow((void **)&tape->values, &tape->value_capacity, tape->value_count + n, sizeof(double));
    if (s != LUCID_OK) return s;
    *offset = tape->value_count;
    tape->value_count += n;
    return LUCID_OK;
}

lucid_status lucid_ad_tape_reserve_links(lucid_ad_tape *tape, size_t n, size_t *offset) {
    if (tape->sweeping) return LUCID_ERR_ARGUMENT;
    lucid_status s =
        grow((void **)&tape->links, &tape->link_capacity, tape->link_count + n, sizeof(int));
    if (s != LUCID_OK) return s;
    *offset = tape->link_count;
    tape->link_count += n;
    return LUCID_OK;
}

lucid_status lucid_ad_tape_reserve_derivs(lucid_ad_tape *tape, size_t n, size_t s) {
    lucid_status st = grow((void **)&tape->derivs, &tape->deriv_capacity, n, sizeof(double));
    if (st != LUCID_OK) return st;
    return grow((void **)&tape->scratch, &tape->scratch_capacity, s, sizeof(double));
}

lucid_status lucid_ad_tape_push(lucid_ad_tape *tape, lucid_ad_op op, int size, int a, int b,
                                unsigned *index) {
    if (size < 0 || tape->node_count >= 0x7fffffffu || tape->sweeping) return LUCID_ERR_ARGUMENT;
    lucid_status s = grow((void **)&tape->nodes, &tape->node_capacity, tape->node_count + 1,
                          sizeof(lucid_ad_node));
    if (s != LUCID_OK) return s;
    size_t value;
    s = lucid_ad_tape_reserve_values(tape, (size_t)size, &value);
    if (s != LUCID_OK) return s;
    lucid_ad_node *node = &tape->nodes[tape->node_count];
    node->op = op;
    node->size = size;
    node->a = a;
    node->b = b;
    node->value = value;
    node->aux = 0;
    node->aux_count = 0;
    node->prim_id = 0;
    node->prim = NULL;
    node->deriv = 0;
    *index = (unsigned)tape->node_count++;
    return LUCID_OK;
}
