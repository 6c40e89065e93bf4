/* Reading option tables in the Lua bindings: one set of field readers (errors
 * "FNAME: PREFIXkey must be ...", absent or nil fields keep the fallback) and the contact
 * options (lucid_contact_option_table, their Lua keys lucid_lua_contact_keys), parsed by one
 * function for every binding that takes them (lucid.world's contact = {...}, lucid.contact.solve,
 * lucid.contact.derivatives' problem). */
#ifndef LUCID_LUA_OPTIONS_H
#define LUCID_LUA_OPTIONS_H

#include <lua.h>
#include <stddef.h>

#include "runtime/core/option_table.h"
#include "solvers/contact/contact_solver.h"

/* A table of options being read: errors name FNAME and a key as PREFIX key. */
typedef struct lucid_lua_fields {
    lua_State *L;
    int idx;           /* absolute stack index of the table */
    const char *fname; /* the public function named in errors */
    char prefix[96];   /* written before a key in messages: "", "contact.", "bodies[2]." */
} lucid_lua_fields;

/* The readers of the table at idx (made absolute); prefix NULL is "". */
lucid_lua_fields lucid_lua_fields_at(lua_State *L, int idx, const char *fname, const char *prefix);

/* The readers of a named nested table ("bodies[2]"): keys are written "bodies[2].key". */
lucid_lua_fields lucid_lua_fields_of(lua_State *L, int idx, const char *fname, const char *table);

/* Field `key` of the table at idx pushed; 1 when it is not nil (else popped, 0). */
int lucid_lua_field(lua_State *L, int idx, const char *key);

/* 1 when field `key` of the table at idx is not nil (nothing pushed). */
int lucid_lua_has_field(lua_State *L, int idx, const char *key);

/* A closed or open interval; an infinite bound is no bound (the options tables' interval). */
typedef lucid_option_range lucid_lua_range;

/* Any finite number (the range of plain number fields), > 0, >= 0. */
extern const lucid_lua_range lucid_lua_any, lucid_lua_positive, lucid_lua_nonnegative;

/* A finite Lua number (strings are not converted). */
double lucid_lua_number_field(const lucid_lua_fields *f, const char *key, double fallback);

/* A finite number in range r: outside it is an error, never clamped. */
double lucid_lua_number_in(const lucid_lua_fields *f, const char *key, double fallback,
                           const lucid_lua_range *r);

/* An integer in [lo, hi]. */
lua_Integer lucid_lua_integer_field(const lucid_lua_fields *f, const char *key,
                                    lua_Integer fallback, lua_Integer lo, lua_Integer hi);

/* A boolean, returned as 0 or 1. */
int lucid_lua_boolean_field(const lucid_lua_fields *f, const char *key, int fallback);

/* A string (kept alive by the table), or NULL when absent; required: absent is an error. */
const char *lucid_lua_string_field(const lucid_lua_fields *f, const char *key, int required);

/* One of the NULL-terminated names (its index), or fallback when absent; another value is the
 * error 'PREFIXkey must be "a", "b" or "c" (got x)'. */
int lucid_lua_enum_field(const lucid_lua_fields *f, const char *key, const char *const *names,
                         int fallback);

/* ---- options described by a table (runtime/core/option_table.h) ------------------------- */

/* Reads the keys of f's table that `table` describes into the struct at s (absent keys keep
 * their value), each checked as its entry says: errors "FNAME: PREFIXkey must be WORDS (got
 * x)". The caller checks that no other key is present (lucid_lua_option_names). */
void lucid_lua_read_option_table(const lucid_lua_fields *f, const lucid_option *table, void *s);

/* The options table at idx read through `table` into the struct at s, which keeps its values
 * when idx is none or nil (then 0 is returned, else 1). Errors name fname: a value that is not
 * a table ("WHAT must be a table (got T)"), a key neither the table's nor one of `extra`
 * (NULL-terminated, or NULL: the caller reads those), a bad value (as above). */
int lucid_lua_read_options(lua_State *L, int idx, const char *fname, const char *what,
                           const lucid_option *table, const char *const *extra, void *s);

/* The names of the table's entries followed by those of `extra` (NULL-terminated, or NULL),
 * NULL-terminated, in out (room for `size`). */
void lucid_lua_option_names(const lucid_option *table, const char *const *extra, const char **out,
                            size_t size);

/* Pushes a list of {name=, type=, range=, doc=, default=}, one per entry of the table, with
 * the defaults read from the struct at s. */
void lucid_lua_push_option_list(lua_State *L, const lucid_option *table, const void *s);

/* ---- the contact options (lucid_contact_options) --------------------------------------- */

/* The keys of the table, one bit each, selecting which keys a binding reads. */
enum {
    LUCID_LUA_CONTACT_MODEL = 1u << 0,
    LUCID_LUA_CONTACT_SOLVER = 1u << 1,
    LUCID_LUA_CONTACT_TOL = 1u << 2,
    LUCID_LUA_CONTACT_MAX_ITER = 1u << 3,
    LUCID_LUA_CONTACT_WARM_START = 1u << 4,
    LUCID_LUA_CONTACT_RELAXATION = 1u << 5,
    LUCID_LUA_CONTACT_ALPHA = 1u << 6,
    LUCID_LUA_CONTACT_RHO = 1u << 7,
    LUCID_LUA_CONTACT_STALL_TOL = 1u << 8,
    LUCID_LUA_CONTACT_INNER_MAX_ITER = 1u << 9,
    LUCID_LUA_CONTACT_COMPLIANCE = 1u << 10,
    LUCID_LUA_CONTACT_KAPPA = 1u << 11,
    LUCID_LUA_CONTACT_POLISH = 1u << 12,
};

/* lucid.world's contact = {...} and lucid.contact.solve's keys of the table (solve's
 * warm_start, a vector or a previous solution, is its own key, not the world's flag). */
#define LUCID_LUA_CONTACT_WORLD_KEYS                                                               \
    (LUCID_LUA_CONTACT_MODEL | LUCID_LUA_CONTACT_SOLVER | LUCID_LUA_CONTACT_TOL |                  \
     LUCID_LUA_CONTACT_MAX_ITER | LUCID_LUA_CONTACT_WARM_START | LUCID_LUA_CONTACT_KAPPA |         \
     LUCID_LUA_CONTACT_POLISH)
#define LUCID_LUA_CONTACT_SOLVE_KEYS                                                               \
    (LUCID_LUA_CONTACT_MODEL | LUCID_LUA_CONTACT_SOLVER | LUCID_LUA_CONTACT_TOL |                  \
     LUCID_LUA_CONTACT_MAX_ITER | LUCID_LUA_CONTACT_RELAXATION | LUCID_LUA_CONTACT_ALPHA |         \
     LUCID_LUA_CONTACT_RHO | LUCID_LUA_CONTACT_STALL_TOL | LUCID_LUA_CONTACT_INNER_MAX_ITER |      \
     LUCID_LUA_CONTACT_COMPLIANCE | LUCID_LUA_CONTACT_KAPPA)

/* The Lua keys of lucid_contact_option_table (solvers/contact/contact_solver.h) with their
 * bits, in the table's order, terminated by a NULL name; the table's other entries are C-only. */
typedef struct lucid_lua_contact_key {
    const char *name;
    unsigned bit;
} lucid_lua_contact_key;
extern const lucid_lua_contact_key lucid_lua_contact_keys[];

/* Reads the keys of the table at idx that `keys` (LUCID_LUA_CONTACT_* bits) selects into o,
 * keeping o's values for absent ones, after checking every key of the table is one of those
 * or of `extra` (the binding's own keys, NULL-terminated, or NULL). The model/solver pair is
 * checked. Returns the bits of the keys present. */
unsigned lucid_lua_read_contact_options(lua_State *L, int idx, const char *fname,
                                        const char *prefix, unsigned keys, const char *const *extra,
                                        lucid_contact_options *o);

/* lucid.contact.options(): a list of {name=, type=, range=, doc=, world=, solve=}, one per
 * entry of the table; world and solve: the default where that binding takes the key (nil
 * elsewhere), as it reads an empty table. */
int lucid_lua_contact_option_list(lua_State *L);

#endif
