/* The AD tape: a list of vector-valued operations recorded in evaluation order.
 *
 * Storage is an arena of growable arrays addressed by offsets (never pointers), so growth can
 * move it and reset keeps its capacity: a second evaluation of the same function allocates
 * nothing. Every reset bumps a generation counter; a variable handle carries the generation
 * it was created in, so a handle that outlives its evaluation is detected (LUCID_ERR_ARGUMENT
 * from every op, lucid_ad_var_is_live() == 0) instead of silently reading a new node. */
#ifndef LUCID_AD_TAPE_H
#define LUCID_AD_TAPE_H

#include <stddef.h>

#include "autodiff/primitive.h"
#include "runtime/core/status.h"

typedef enum lucid_ad_op {
    LUCID_AD_INPUT,  /* independent variable */
    LUCID_AD_CONST,  /* constant: zero derivative */
    LUCID_AD_ADD,    /* a + b, a size-1 operand broadcasts */
    LUCID_AD_SUB,    /* a - b */
    LUCID_AD_MUL,    /* a * b elementwise */
    LUCID_AD_DIV,    /* a / b elementwise */
    LUCID_AD_NEG,    /* -a */
    LUCID_AD_DOT,    /* a . b (scalar) */
    LUCID_AD_NORM,   /* |a| (scalar) */
    LUCID_AD_MATVEC, /* A a with a constant matrix A */
    LUCID_AD_SLICE,  /* a[start .. start+size) (also x[i] as a size-1 slice) */
    LUCID_AD_CONCAT, /* (a1, a2, ...) */
    LUCID_AD_EXP,    /* elementwise functions */
    LUCID_AD_LOG,
    LUCID_AD_SQRT,
    LUCID_AD_SIN,
    LUCID_AD_COS,
    LUCID_AD_TANH,
    LUCID_AD_PRIMITIVE /* user rule: lucid_ad_primitive callbacks */
} lucid_ad_op;

/* A handle to a node; valid only while the tape's generation matches. */
typedef struct lucid_ad_var {
    unsigned index;
    unsigned generation;
} lucid_ad_var;

typedef struct lucid_ad_node {
    lucid_ad_op op;
    int size;      /* k: length of the value vector */
    int a, b;      /* operand node indices, -1 when unused */
    size_t value;  /* offset of the k values in tape->values */
    size_t aux;    /* MATVEC: offset of the matrix in values; CONCAT: offset in links */
    int aux_count; /* SLICE: start; CONCAT: operand count; MATVEC: matrix columns */
    long prim_id;  /* PRIMITIVE: id passed back to the callbacks */
    const lucid_ad_primitive *prim;
    size_t deriv; /* offset of this node's derivative block during a sweep */
} lucid_ad_node;

typedef struct lucid_ad_tape {
    lucid_ad_node *nodes;
    size_t node_count, node_capacity;
    double *values; /* node values and constant matrices */
    size_t value_count, value_capacity;
    int *links; /* operand lists of CONCAT nodes */
    size_t link_count, link_capacity;
    double *derivs; /* tangent / cotangent blocks, sized per sweep */
    size_t deriv_capacity;
    double *scratch; /* primitive VJP output */
    size_t scratch_capacity;
    unsigned generation;
    int sweeping; /* inside a sweep: recording is refused (it would move the arena) */
} lucid_ad_tape;

/* create/destroy pair; create returns NULL when out of memory. */
lucid_ad_tape *lucid_ad_tape_create(void);
void lucid_ad_tape_destroy(lucid_ad_tape *tape);

/* Forgets every node (keeping capacity) and invalidates every handle issued so far. */
void lucid_ad_tape_reset(lucid_ad_tape *tape);

/* Bytes currently reserved by the arena (for checking that reuse does not grow it). */
size_t lucid_ad_tape_reserved_bytes(const lucid_ad_tape *tape);

/* 1 when v belongs to the tape's current generation and names an existing node. */
int lucid_ad_var_is_live(const lucid_ad_tape *tape, lucid_ad_var v);

/* Size and values of a live variable (NULL / 0 when stale). */
int lucid_ad_var_size(const lucid_ad_tape *tape, lucid_ad_var v);
const double *lucid_ad_var_values(const lucid_ad_tape *tape, lucid_ad_var v);

/* Appends a node with room for its values; the operands must already be validated.
 * Refused (LUCID_ERR_ARGUMENT) during a sweep: a primitive callback must not record.
 * On success *index is the new node's index. Used by the op constructors. */
lucid_status lucid_ad_tape_push(lucid_ad_tape *tape, lucid_ad_op op, int size, int a, int b,
                                unsigned *index);
/* Reserves n doubles in the value arena (offset in *offset) / n ints in the link arena. */
lucid_status lucid_ad_tape_reserve_values(lucid_ad_tape *tape, size_t n, size_t *offset);
lucid_status lucid_ad_tape_reserve_links(lucid_ad_tape *tape, size_t n, size_t *offset);
/* Ensures derivs holds n doubles and scratch holds s doubles (contents undefined). */
lucid_status lucid_ad_tape_reserve_derivs(lucid_ad_tape *tape, size_t n, size_t s);

static inline double *lucid_ad_node_values(lucid_ad_tape *tape, const lucid_ad_node *node) {
    return tape->values + node->value;
}

#endif
