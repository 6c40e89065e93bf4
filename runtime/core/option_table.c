/* Options tables: values read, written and checked through their descriptions (option_table.h). */
#include "runtime/core/option_table.h"

#include <limits.h>
#include <string.h>

int lucid_option_range_contains(const lucid_option_range *r, double x) {
    int above = r->lo_open ? x > r->lo : x >= r->lo;
    int below = r->hi_open ? x < r->hi : x <= r->hi;
    return above && below;
}

int lucid_option_accepts(const lucid_option *o, double x) {
    if (o->has_special && x == o->special) return 1;
    if (!isfinite(x) || !lucid_option_range_contains(&o->range, x)) return 0;
    return o->type != LUCID_OPTION_INTEGER || (x == floor(x) && x >= INT_MIN && x <= INT_MAX);
}

const char *lucid_option_choice_name(const lucid_option *o, int value) {
    for (const lucid_option_choice *c = o->choices; c && c->name; ++c)
        if (c->value == value) return c->name;
    return NULL;
}

int lucid_option_choice_value(const lucid_option *o, const char *name, int *value) {
    for (const lucid_option_choice *c = o->choices; c && c->name; ++c)
        if (strcmp(c->name, name) == 0) {
            *value = c->value;
            return 1;
        }
    return 0;
}

double lucid_option_get(const lucid_option *o, const void *s, int k) {
    const char *at = (const char *)s + o->offset;
    double x;
    int i;
    if (o->type == LUCID_OPTION_NUMBER || o->type == LUCID_OPTION_VEC3) {
        memcpy(&x, at + (o->type == LUCID_OPTION_VEC3 ? (size_t)k * sizeof x : 0), sizeof x);
        return x;
    }
    memcpy(&i, at, sizeof i);
    return i;
}

void lucid_option_set(const lucid_option *o, void *s, int k, double x) {
    char *at = (char *)s + o->offset;
    if (o->type == LUCID_OPTION_NUMBER || o->type == LUCID_OPTION_VEC3) {
        memcpy(at + (o->type == LUCID_OPTION_VEC3 ? (size_t)k * sizeof x : 0), &x, sizeof x);
        return;
    }
    int i = o->type == LUCID_OPTION_BOOLEAN ? x != 0.0 : (int)x;
    memcpy(at, &i, sizeof i);
}

/* LUCID_OK, or the status of option o's bad value in s. */
static lucid_status check_one(const lucid_option *o, const void *s) {
    switch (o->type) {
        case LUCID_OPTION_VEC3:
            for (int k = 0; k < 3; ++k)
                if (!isfinite(lucid_option_get(o, s, k))) return LUCID_ERR_NONFINITE;
            return LUCID_OK;
        case LUCID_OPTION_NUMBER: {
            double x = lucid_option_get(o, s, 0);
            if (!isfinite(x) && !(o->has_special && x == o->special)) return LUCID_ERR_NONFINITE;
            return lucid_option_accepts(o, x) ? LUCID_OK : LUCID_ERR_ARGUMENT;
        }
        case LUCID_OPTION_INTEGER:
            return lucid_option_accepts(o, lucid_option_get(o, s, 0)) ? LUCID_OK
                                                                      : LUCID_ERR_ARGUMENT;
        case LUCID_OPTION_BOOLEAN: {
            double x = lucid_option_get(o, s, 0);
            return x == 0.0 || x == 1.0 ? LUCID_OK : LUCID_ERR_ARGUMENT;
        }
        case LUCID_OPTION_CHOICE:
            return lucid_option_choice_name(o, (int)lucid_option_get(o, s, 0)) ? LUCID_OK
                                                                               : LUCID_ERR_ARGUMENT;
    }
    return LUCID_ERR_ARGUMENT;
}

lucid_status lucid_option_table_check(const lucid_option *table, const void *s, const char **why) {
    if (!table || !s) {
        if (why) *why = "options missing";
        return LUCID_ERR_ARGUMENT;
    }
    for (const lucid_option *o = table; o->name; ++o) {
        lucid_status status = check_one(o, s);
        if (status == LUCID_OK) continue;
        if (why) *why = o->rule;
        return status;
    }
    return LUCID_OK;
}
