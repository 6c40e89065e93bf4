/* PLACEHOLDER: replaced by the linear-algebra bindings. */
#include <lauxlib.h>

#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/modules.h"

void lucid_open_linalg(lua_State *L) {
    luaL_newmetatable(L, LUCID_MATRIX_METATABLE);
    lua_pop(L, 1);
}
