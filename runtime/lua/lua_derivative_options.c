/* The estimator table of lucid.distance_derivatives (lua_derivative_options.h). */
#include "runtime/lua/lua_derivative_options.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_query_options.h"

/* The estimator's keys, then the distance query's (only where the caller takes them). */
static const char *const option_keys[] = {"method",  "step",         "samples",   "noise",
                                          "levels",  "seed",         "algorithm", "normalize",
                                          "tol",     "tol_mode",     "max_iter",  "warm_start",
                                          "epa_tol", "epa_max_iter", NULL};
static const char *const estimator_keys[] = {"method", "step", "samples", "noise",
                                             "levels", "seed", NULL};

typedef struct reader {
    lua_State *L;
    int idx;
    const char *fname, *prefix;
    char label[64];
} reader;

/* Field `key` pushed; returns 1 when it is not nil (else pops it). r->label names it. */
static int get_field(reader *r, const char *key) {
    snprintf(r->label, sizeof r->label, "%s%s", r->prefix, key);
    if (lua_getfield(r->L, r->idx, key) != LUA_TNIL) return 1;
    lua_pop(r->L, 1);
    return 0;
}

static double positive_field(reader *r, const char *key, double fallback) {
    if (!get_field(r, key)) return fallback;
    double x = lucid_lua_checkpositive(r->L, -1, r->fname, r->label);
    lua_pop(r->L, 1);
    return x;
}

static lua_Integer integer_field(reader *r, const char *key, lua_Integer fallback, lua_Integer lo,
                                 lua_Integer hi) {
    if (!get_field(r, key)) return fallback;
    lua_Integer k = lucid_lua_checkinteger_range(r->L, -1, lo, hi, r->fname, r->label);
    lua_pop(r->L, 1);
    return k;
}

static lucid_derivative_method method_field(reader *r) {
    lucid_derivative_method m = LUCID_DERIV_FINITE_DIFFERENCES;
    lua_State *L = r->L;
    if (!get_field(r, "method")) return m;
    if (lua_type(L, -1) != LUA_TSTRING)
        lucid_lua_fail(L, r->fname, "%s must be a string (got %s)", r->label,
                       lucid_lua_typename(L, -1));
    if (!lucid_derivative_method_from_name(lua_tostring(L, -1), &m))
        lucid_lua_fail(L, r->fname,
                       "unknown %s '%s' (expected finite_differences, zeroth_order, "
                       "first_order_gaussian, first_order_gumbel or analytic)",
                       r->label, lua_tostring(L, -1));
    lua_pop(L, 1);
    return m;
}

void lucid_lua_read_derivative_options(lua_State *L, int idx, const char *fname, const char *prefix,
                                       lucid_derivative_options *o, lucid_gjk_options *gjk) {
    lucid_derivative_options_default(o);
    if (gjk) lucid_derivative_query_options_default(gjk);
    o->gjk = gjk;
    if (lua_isnoneornil(L, idx)) return;
    idx = lua_absindex(L, idx);
    if (!lua_istable(L, idx)) {
        char table[64] = "opts"; /* prefix "collision." names opts.collision */
        size_t n = strlen(prefix);
        if (n > 1) snprintf(table, sizeof table, "opts.%.*s", (int)(n - 1), prefix);
        lucid_lua_fail(L, fname, "%s must be a table (got %s)", table, lucid_lua_typename(L, idx));
    }
    lucid_lua_check_option_names_prefixed(L, idx, gjk ? option_keys : estimator_keys, fname,
                                          prefix);
    reader r = {L, idx, fname, prefix, {0}};
    o->method = method_field(&r);
    o->step = positive_field(&r, "step", o->step);
    o->samples = (int)integer_field(&r, "samples", o->samples, 1, 100000000);
    o->noise = positive_field(&r, "noise", o->noise);
    o->levels = (int)integer_field(&r, "levels", o->levels, 0, 1000000000);
    o->seed = (uint64_t)integer_field(&r, "seed", 0, LUA_MININTEGER, LUA_MAXINTEGER);
    if (gjk) lucid_lua_read_derivative_query_options(L, idx, fname, gjk);
}
