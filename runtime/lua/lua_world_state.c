/* The world's state tangent space from Lua (docs/world.md "Stepping and state"; C side
 * runtime/world/world_state.c):
 *   x1 = w:state_integrate(x, dx)     x (+) dx, dx of 2 nv entries
 *   dx = w:state_difference(x0, x1)   the dx with x0 (+) dx = x1 */
#include <lauxlib.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_world.h"

static int l_state_integrate(lua_State *L) {
    static const char *const fname = "lucid.world:state_integrate";
    lucid_world *w = lucid_lua_checkworld(L, 1, fname);
    lua_settop(L, 3);
    int nx = lucid_world_state_size(w), nt = lucid_world_tangent_size(w);
    const double *x = lucid_lua_readvalues(L, 2, (size_t)nx, fname, "x");
    const double *dx = lucid_lua_readvalues(L, 3, (size_t)nt, fname, "dx");
    lucid_lua_matrix *out = lucid_lua_newvector(L, nx);
    if (lucid_world_state_integrate(w, x, dx, out->data) != LUCID_OK)
        lucid_lua_fail(L, fname, "x holds a zero quaternion");
    return 1;
}

static int l_state_difference(lua_State *L) {
    static const char *const fname = "lucid.world:state_difference";
    lucid_world *w = lucid_lua_checkworld(L, 1, fname);
    lua_settop(L, 3);
    int nx = lucid_world_state_size(w), nt = lucid_world_tangent_size(w);
    const double *x0 = lucid_lua_readvalues(L, 2, (size_t)nx, fname, "x0");
    const double *x1 = lucid_lua_readvalues(L, 3, (size_t)nx, fname, "x1");
    lucid_lua_matrix *out = lucid_lua_newvector(L, nt);
    if (lucid_world_state_difference(w, x0, x1, out->data) != LUCID_OK)
        lucid_lua_fail(L, fname, "a state holds a zero quaternion");
    return 1;
}

void lucid_lua_world_state_methods(lua_State *L) {
    static const luaL_Reg methods[] = {{"state_integrate", l_state_integrate},
                                       {"state_difference", l_state_difference},
                                       {NULL, NULL}};
    luaL_setfuncs(L, methods, 0);
}
