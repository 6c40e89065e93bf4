/* LAPACK-backed methods of "lucid.mat" and the BLAS thread setting. */
#include "runtime/lua/lua_decompositions.h"

#include <lauxlib.h>

#include "runtime/lua/check.h"
#include "solvers/dense/dense_threads.h"

/* lucid.set_num_threads(n): OpenBLAS threads (1 by default; small problems run faster). */
static int l_set_num_threads(lua_State *L) {
    const char *fname = "lucid.set_num_threads";
    lua_Integer n = lucid_lua_checkinteger_range(L, 1, 1, LUCID_DENSE_MAX_THREADS, fname, "n");
    lucid_status status = lucid_dense_set_threads((int)n);
    if (status != LUCID_OK) lucid_lua_fail_status(L, fname, status);
    return 0;
}

static int l_get_num_threads(lua_State *L) {
    lua_pushinteger(L, lucid_dense_get_threads());
    return 1;
}

void lucid_lua_add_decomposition_methods(lua_State *L) {
    static const luaL_Reg methods[] = {{NULL, NULL}};
    luaL_setfuncs(L, methods, 0);
}

void lucid_lua_open_decompositions(lua_State *L) {
    static const luaL_Reg functions[] = {{"set_num_threads", l_set_num_threads},
                                         {"get_num_threads", l_get_num_threads},
                                         {NULL, NULL}};
    luaL_setfuncs(L, functions, 0);
    lucid_dense_set_threads(1);
}
