/* The estimator table of lucid.distance_derivatives (lua_derivative_options.h). */
#include "runtime/lua/lua_derivative_options.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_options.h"
#include "runtime/lua/lua_query_options.h"

/* The estimator's keys, then the distance query's (only where the caller takes them). */
static const char *const option_keys[] = {"method",  "step",         "samples",   "noise",
                                          "levels",  "seed",         "algorithm", "normalize",
                                          "tol",     "tol_mode",     "max_iter",  "warm_start",
                                          "epa_tol", "epa_max_iter", NULL};
static const char *const estimator_keys[] = {"method", "step", "samples", "noise",
                                             "levels", "seed", NULL};

/* The estimator's method, by name. */
static lucid_derivative_method method_field(const lucid_lua_fields *f) {
    lucid_derivative_method m = LUCID_DERIV_FINITE_DIFFERENCES;
    const char *name = lucid_lua_string_field(f, "method", 0);
    if (name && !lucid_derivative_method_from_name(name, &m))
        lucid_lua_fail(f->L, f->fname,
                       "unknown %smethod '%s' (expected finite_differences, zeroth_order, "
                       "first_order_gaussian, first_order_gumbel or analytic)",
                       f->prefix, name);
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
    lucid_lua_fields f = lucid_lua_fields_at(L, idx, fname, prefix);
    o->method = method_field(&f);
    o->step = lucid_lua_number_in(&f, "step", o->step, &lucid_lua_positive);
    o->samples = (int)lucid_lua_integer_field(&f, "samples", o->samples, 1, 100000000);
    o->noise = lucid_lua_number_in(&f, "noise", o->noise, &lucid_lua_positive);
    o->levels = (int)lucid_lua_integer_field(&f, "levels", o->levels, 0, 1000000000);
    o->seed = (uint64_t)lucid_lua_integer_field(&f, "seed", 0, LUA_MININTEGER, LUA_MAXINTEGER);
    if (gjk) lucid_lua_read_derivative_query_options(L, idx, fname, gjk);
}
