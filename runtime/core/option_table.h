/* A C options struct described once: a table of its fields (name, type, offset, valid values,
 * meaning). The table drives validation in C (lucid_option_table_check), the Lua bindings'
 * parsing and messages (runtime/lua/lua_options.h), and the lists the bindings return for the
 * documentation (lucid.world.options()). Defaults are those of the struct's default function. */
#ifndef LUCID_OPTION_TABLE_H
#define LUCID_OPTION_TABLE_H

#include <math.h>
#include <stddef.h>

#include "runtime/core/status.h"

typedef enum lucid_option_type {
    LUCID_OPTION_NUMBER,  /* double */
    LUCID_OPTION_INTEGER, /* int */
    LUCID_OPTION_BOOLEAN, /* int, 0 or 1 */
    LUCID_OPTION_CHOICE,  /* int, one of the values named by choices */
    LUCID_OPTION_VEC3     /* double[3] (lucid_vec3), each entry finite */
} lucid_option_type;

/* A closed or open interval; an infinite bound is no bound. */
typedef struct lucid_option_range {
    double lo, hi;
    unsigned char lo_open, hi_open;
} lucid_option_range;

/* A name a CHOICE option accepts and the int it stores; lists end with a NULL name. */
typedef struct lucid_option_choice {
    const char *name;
    int value;
} lucid_option_choice;

typedef struct lucid_option {
    const char *name;
    lucid_option_type type;
    size_t offset;                      /* of the field in its struct */
    lucid_option_range range;           /* NUMBER and INTEGER values (finite, within it) */
    int has_special;                    /* one more value outside the range, with its meaning: */
    double special;                     /* e.g. -1 for "automatic" */
    const lucid_option_choice *choices; /* CHOICE */
    const char *words;                  /* the valid values in words: "> 0", ">= 0 (or -1: ...)" */
    const char *rule;                   /* "NAME must be WORDS": the message of a bad value */
    const char *doc;                    /* one line: what it means, with its unit */
} lucid_option;

/* Ranges with their words, for the entry macros below (NAME_RANGE, NAME_WORDS). */
#define LUCID_OPTION_ANY_RANGE                                                                     \
    { -INFINITY, INFINITY, 0, 0 }
#define LUCID_OPTION_ANY_WORDS "finite"
#define LUCID_OPTION_POSITIVE_RANGE                                                                \
    { 0.0, INFINITY, 1, 0 }
#define LUCID_OPTION_POSITIVE_WORDS "> 0"
#define LUCID_OPTION_NONNEGATIVE_RANGE                                                             \
    { 0.0, INFINITY, 0, 0 }
#define LUCID_OPTION_NONNEGATIVE_WORDS ">= 0"
#define LUCID_OPTION_AT_LEAST1_RANGE                                                               \
    { 1.0, INFINITY, 0, 0 }
#define LUCID_OPTION_AT_LEAST1_WORDS ">= 1"
#define LUCID_OPTION_ABOVE1_RANGE                                                                  \
    { 1.0, INFINITY, 1, 0 }
#define LUCID_OPTION_ABOVE1_WORDS "> 1"
#define LUCID_OPTION_OPEN02_RANGE                                                                  \
    { 0.0, 2.0, 1, 1 }
#define LUCID_OPTION_OPEN02_WORDS "in (0, 2)"
#define LUCID_OPTION_INTERVAL(LO, HI)                                                              \
    { LO, HI, 0, 0 }

#define LUCID_OPTION_STR_(x) #x
#define LUCID_OPTION_STR(x)  LUCID_OPTION_STR_(x)

/* Table entries of struct S for its field f under the key NAME (the _AS forms; the others use
 * f's own name), whose messages name it P NAME (P: "" or a nested table's "name."): a number
 * in range R (ANY, POSITIVE, NONNEGATIVE, AT_LEAST1, ABOVE1, OPEN02), the same with one
 * special value V described by VWORDS, an integer in [LO, HI], an integer in range R, a
 * boolean, a choice among C (a lucid_option_choice list) described by WORDS, a finite
 * 3-vector; the terminator. */
#define LUCID_OPTION_ENTRY_(NAME, type, S, f, range, special_flag, special, C, WORDS, P, doc)      \
    {                                                                                              \
        NAME, type, offsetof(S, f), range, special_flag, special, C, WORDS,                        \
            P NAME " must be " WORDS, doc                                                          \
    }
#define LUCID_OPTION_NUMBER_AS(S, P, NAME, f, R, doc)                                              \
    LUCID_OPTION_ENTRY_(#NAME, LUCID_OPTION_NUMBER, S, f, LUCID_OPTION_##R##_RANGE, 0, 0.0, NULL,  \
                        LUCID_OPTION_##R##_WORDS, P, doc)
#define LUCID_OPTION_NUMBER_ENTRY(S, P, f, R, doc) LUCID_OPTION_NUMBER_AS(S, P, f, f, R, doc)
#define LUCID_OPTION_SPECIAL_ENTRY(S, P, f, type, R, V, VWORDS, doc)                               \
    LUCID_OPTION_ENTRY_(#f, type, S, f, LUCID_OPTION_##R##_RANGE, 1, V, NULL,                      \
                        LUCID_OPTION_##R##_WORDS " (or " VWORDS ")", P, doc)
#define LUCID_OPTION_INTEGER_ENTRY(S, P, f, LO, HI, doc)                                           \
    LUCID_OPTION_ENTRY_(                                                                           \
        #f, LUCID_OPTION_INTEGER, S, f, LUCID_OPTION_INTERVAL(LO, HI), 0, 0.0, NULL,               \
        "an integer in [" LUCID_OPTION_STR(LO) ", " LUCID_OPTION_STR(HI) "]", P, doc)
#define LUCID_OPTION_COUNT_AS(S, P, NAME, f, R, doc)                                               \
    LUCID_OPTION_ENTRY_(#NAME, LUCID_OPTION_INTEGER, S, f, LUCID_OPTION_##R##_RANGE, 0, 0.0, NULL, \
                        "an integer " LUCID_OPTION_##R##_WORDS, P, doc)
#define LUCID_OPTION_COUNT_ENTRY(S, P, f, R, doc) LUCID_OPTION_COUNT_AS(S, P, f, f, R, doc)
#define LUCID_OPTION_BOOLEAN_ENTRY(S, P, f, doc)                                                   \
    LUCID_OPTION_ENTRY_(#f, LUCID_OPTION_BOOLEAN, S, f, LUCID_OPTION_INTERVAL(0, 1), 0, 0.0, NULL, \
                        "a boolean", P, doc)
#define LUCID_OPTION_CHOICE_ENTRY(S, P, f, C, WORDS, doc)                                          \
    LUCID_OPTION_ENTRY_(#f, LUCID_OPTION_CHOICE, S, f, LUCID_OPTION_ANY_RANGE, 0, 0.0, C, WORDS,   \
                        P, doc)
#define LUCID_OPTION_VEC3_ENTRY(S, P, f, doc)                                                      \
    LUCID_OPTION_ENTRY_(#f, LUCID_OPTION_VEC3, S, f, LUCID_OPTION_ANY_RANGE, 0, 0.0, NULL,         \
                        "finite", P, doc)
#define LUCID_OPTION_END                                                                           \
    { NULL, LUCID_OPTION_NUMBER, 0, LUCID_OPTION_ANY_RANGE, 0, 0.0, NULL, NULL, NULL, NULL }

/* 1 when x lies in r. */
int lucid_option_range_contains(const lucid_option_range *r, double x);

/* 1 when x is a valid value of a NUMBER or INTEGER option: finite and in its range, or its
 * special value. */
int lucid_option_accepts(const lucid_option *o, double x);

/* The name of a CHOICE option's value (its first name), or NULL. */
const char *lucid_option_choice_name(const lucid_option *o, int value);

/* The value named `name` of a CHOICE option into *value; 0 when no choice has that name. */
int lucid_option_choice_value(const lucid_option *o, const char *name, int *value);

/* The field of option o in the struct at s, as a double (NUMBER; INTEGER, BOOLEAN, CHOICE
 * converted; VEC3: entry k). */
double lucid_option_get(const lucid_option *o, const void *s, int k);

/* Stores x into option o's field of the struct at s (VEC3: entry k), converted to its type. */
void lucid_option_set(const lucid_option *o, void *s, int k, double x);

/* LUCID_OK when every option of the table holds a valid value in the struct at s; else
 * LUCID_ERR_NONFINITE (a NaN or infinity) or LUCID_ERR_ARGUMENT, with *why (if not NULL) the
 * first bad option's rule. */
lucid_status lucid_option_table_check(const lucid_option *table, const void *s, const char **why);

#endif
