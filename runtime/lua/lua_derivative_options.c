/* The estimator table of lucid.distance_derivatives (lua_derivative_options.h). */
#include "runtime/lua/lua_derivative_options.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_options.h"
#include "runtime/lua/lua_query_options.h"

/* The keys besides lucid_derivative_option_table's: the seed, then the distance query's
 * (lucid_gjk_option_table and warm_start, only where the caller takes them). */
static void accepted_keys(int with_query, const char **out, size_t size) {
    static const char *const seed[] = {"seed", NULL};
    static const char *const warm_start[] = {"warm_start", NULL};
    lucid_lua_option_names(lucid_derivative_option_table, seed, out, size);
    if (!with_query) return;
    size_t n = 0;
    while (out[n]) ++n;
    lucid_lua_option_names(lucid_gjk_option_table, warm_start, out + n, size - n);
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
    const char *keys[48];
    accepted_keys(gjk != NULL, keys, sizeof keys / sizeof *keys);
    lucid_lua_check_option_names_prefixed(L, idx, keys, fname, prefix);
    lucid_lua_fields f = lucid_lua_fields_at(L, idx, fname, prefix);
    lucid_lua_read_option_table(&f, lucid_derivative_option_table, o);
    /* any Lua integer, its bits as the random stream's seed */
    o->seed = (uint64_t)lucid_lua_integer_field(&f, "seed", 0, LUA_MININTEGER, LUA_MAXINTEGER);
    if (gjk) lucid_lua_read_derivative_query_options(L, idx, fname, gjk);
}
