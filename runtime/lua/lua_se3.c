/* The Lua pose type "lucid.se3" (first version: the shared accessors; the full module follows). */
#include "runtime/lua/lua_se3.h"

#include <lauxlib.h>

#include "runtime/lua/check.h"
#include "runtime/lua/modules.h"

const lucid_se3 *lucid_lua_tose3(lua_State *L, int idx) {
    return luaL_testudata(L, idx, LUCID_SE3_METATABLE);
}

const lucid_se3 *lucid_lua_checkse3(lua_State *L, int idx, const char *fname, const char *what) {
    const lucid_se3 *T = lucid_lua_tose3(L, idx);
    if (!T)
        lucid_lua_fail(L, fname, "%s must be a lucid.se3 pose (got %s)", what,
                       luaL_typename(L, idx));
    return T;
}

void lucid_lua_pushse3(lua_State *L, const lucid_se3 *T) {
    lucid_se3 *u = lua_newuserdatauv(L, sizeof *u, 0);
    *u = *T;
    luaL_setmetatable(L, LUCID_SE3_METATABLE);
}

void lucid_open_se3(lua_State *L) {
    luaL_newmetatable(L, LUCID_SE3_METATABLE);
    lua_pop(L, 1);
}
