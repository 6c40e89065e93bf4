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

/* Where plain numbers are expected, lucid.ad values have two ways in: lucid.ad's own
 * functions, and lucid.sim.step, the one differentiable world step. */
static const char AD_HINT[] =
    "; lucid.ad values do not pass through functions that take numbers: build a lucid.ad vector "
    "with lucid.ad.concat{...} and step the world with lucid.sim.step(w, x, u) (u: every free "
    "body's wrench, as in w:controls()), whose x, u and opts.theta may be lucid.ad values";

const char *lucid_lua_ad_hint(lua_State *L, int idx) {
    return strcmp(lucid_lua_typename(L, idx), "lucid.ad.var") == 0 ? AD_HINT : "";
}

const char *lucid_lua_ad_hint_for_message(const char *message) {
    return message && strstr(message, "got lucid.ad.var)") ? AD_HINT : "";
}

int lucid_lua_fail_status(lua_State *L, const char *fname, lucid_status status) {
    return lucid_lua_fail(L, fname, "%s", lucid_status_string(status));
}

double lucid_lua_checkfinite(lua_State *L, int idx, const char *fname, const char *what) {
    if (lua_type(L, idx) != LUA_TNUMBER)
        lucid_lua_fail(L, fname, "%s must be a number (got %s)%s", what, lucid_lua_typename(L, idx),
                       lucid_lua_ad_hint(L, idx));
    lua_Number x = lua_tonumber(L, idx);
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
    lua_Integer k = lua_type(L, idx) == LUA_TNUMBER ? lua_tointegerx(L, idx, &isint) : 0;
    if (!isint && lua_type(L, idx) == LUA_TNUMBER)
        lucid_lua_fail(L, fname, "%s must be an integer (got %f)", what, lua_tonumber(L, idx));
    if (!isint)
        lucid_lua_fail(L, fname, "%s must be an integer (got %s)", what,
                       lucid_lua_typename(L, idx));
    if (k < lo || k > hi)
        lucid_lua_fail(L, fname, "%s = %I is out of range [%I, %I]", what, k, lo, hi);
    return k;
}

/* Raises the unknown-option error for the key on top of the stack. */
static void fail_unknown_option(lua_State *L, const char *const *keys, const char *fname,
                                const char *prefix) {
    if (lua_type(L, -1) != LUA_TSTRING)
        lucid_lua_fail(L, fname, "option names must be strings (got %s %s)",
                       lucid_lua_typename(L, -1), luaL_tolstring(L, -1, NULL));
    luaL_Buffer b;
    const char *key = lua_tostring(L, -1);
    luaL_buffinit(L, &b);
    for (int k = 0; keys[k]; ++k) {
        if (k > 0) luaL_addstring(&b, ", ");
        luaL_addstring(&b, keys[k]);
    }
    luaL_pushresult(&b);
    lucid_lua_fail(L, fname, "unknown option '%s%s' (expected one of: %s)", prefix, key,
                   lua_tostring(L, -1));
}

void lucid_lua_check_option_names_prefixed(lua_State *L, int idx, const char *const *keys,
                                           const char *fname, const char *prefix) {
    idx = lua_absindex(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        int known = 0;
        if (lua_type(L, -1) == LUA_TSTRING)
            for (int k = 0; keys[k] && !known; ++k)
                known = strcmp(lua_tostring(L, -1), keys[k]) == 0;
        if (!known) fail_unknown_option(L, keys, fname, prefix);
    }
}

void lucid_lua_check_option_names(lua_State *L, int idx, const char *const *keys,
                                  const char *fname) {
    lucid_lua_check_option_names_prefixed(L, idx, keys, fname, "");
}

const char *lucid_lua_typename(lua_State *L, int idx) {
    if (lua_type(L, idx) == LUA_TUSERDATA && luaL_getmetafield(L, idx, "__name") != LUA_TNIL) {
        const char *name = lua_tostring(L, -1); /* kept alive by the registry's metatable */
        lua_pop(L, 1);
        if (name) return name;
    }
    return luaL_typename(L, idx);
}

void lucid_lua_push_metatable(lua_State *L, const char *type_name, const luaL_Reg *metamethods,
                              const luaL_Reg *methods) {
    if (!luaL_newmetatable(L, type_name)) return;
    lua_pushstring(L, type_name);
    lua_setfield(L, -2, "__metatable");
    luaL_setfuncs(L, metamethods, 0);
    if (!methods) return;
    int count = 0;
    while (methods[count].name) ++count;
    lua_createtable(L, 0, count); /* sized as luaL_newlib sizes it */
    luaL_setfuncs(L, methods, 0);
    lua_setfield(L, -2, "__index");
}

void lucid_lua_set_number(lua_State *L, const char *key, double x) {
    lua_pushnumber(L, x);
    lua_setfield(L, -2, key);
}

void lucid_lua_set_integer(lua_State *L, const char *key, lua_Integer x) {
    lua_pushinteger(L, x);
    lua_setfield(L, -2, key);
}

void lucid_lua_set_string(lua_State *L, const char *key, const char *s) {
    lua_pushstring(L, s);
    lua_setfield(L, -2, key);
}

void lucid_lua_set_boolean(lua_State *L, const char *key, int b) {
    lua_pushboolean(L, b);
    lua_setfield(L, -2, key);
}
