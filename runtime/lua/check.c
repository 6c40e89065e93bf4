#include "runtime/lua/check.h"

#include <lauxlib.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

int lucid_lua_fail(lua_State *L, const char *fname, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    lua_pushfstring(L, "%s: ", fname);
    lua_pushvfstring(L, fmt, args);
    va_end(args);
    lua_concat(L, 2);
    return lua_error(L);
}

int lucid_lua_fail_status(lua_State *L, const char *fname, lucid_status status) {
    return lucid_lua_fail(L, fname, "%s", lucid_status_string(status));
}

double lucid_lua_checkfinite(lua_State *L, int idx, const char *fname, const char *what) {
    int isnum = 0;
    lua_Number x = lua_tonumberx(L, idx, &isnum);
    if (!isnum)
        lucid_lua_fail(L, fname, "%s must be a number (got %s)", what, luaL_typename(L, idx));
    if (!isfinite(x)) lucid_lua_fail(L, fname, "%s must be finite (got %f)", what, x);
    return x;
}

double lucid_lua_checkpositive(lua_State *L, int idx, const char *fname, const char *what) {
    double x = lucid_lua_checkfinite(L, idx, fname, what);
    if (!(x > 0.0)) lucid_lua_fail(L, fname, "%s must be positive (got %f)", what, x);
    return x;
}

lua_Integer lucid_lua_checkinteger_range(lua_State *L, int idx, lua_Integer lo, lua_Integer hi,
                                         const char *fname, const char *what) {
    int isint = 0;
    lua_Integer k = lua_tointegerx(L, idx, &isint);
    if (!isint)
        lucid_lua_fail(L, fname, "%s must be an integer (got %s)", what, luaL_typename(L, idx));
    if (k < lo || k > hi)
        lucid_lua_fail(L, fname, "%s = %I is out of range [%I, %I]", what, k, lo, hi);
    return k;
}

void lucid_lua_check_option_names(lua_State *L, int idx, const char *const *keys,
                                  const char *fname) {
    idx = lua_absindex(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        int known = 0;
        if (lua_type(L, -1) == LUA_TSTRING)
            for (int k = 0; keys[k]; ++k) known |= strcmp(lua_tostring(L, -1), keys[k]) == 0;
        if (!known) {
            const char *key =
                lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
            lucid_lua_fail(L, fname, "unknown option '%s'", key);
        }
    }
}

int lucid_all_finite(const double *x, long n) {
    for (long i = 0; i < n; ++i)
        if (!isfinite(x[i])) return 0;
    return 1;
}
