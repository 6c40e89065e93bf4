#include "runtime/lua/lua_derivative_workspace.h"

#include <lauxlib.h>

#include "runtime/lua/check.h"

#define WORKSPACE_METATABLE "lucid.derivative_workspace"

typedef struct workspace_box {
    lucid_derivative_workspace *ws;
} workspace_box;

static int workspace_gc(lua_State *L) {
    workspace_box *box = luaL_testudata(L, 1, WORKSPACE_METATABLE);
    if (!box) return 0;
    lucid_derivative_workspace_destroy(box->ws);
    box->ws = NULL;
    return 0;
}

void lucid_lua_push_derivative_workspace(lua_State *L) {
    workspace_box *box = lua_newuserdatauv(L, sizeof *box, 0);
    box->ws = NULL; /* the __gc is attached before the allocation, so nothing can leak */
    static const luaL_Reg metamethods[] = {{"__gc", workspace_gc}, {NULL, NULL}};
    lucid_lua_push_metatable(L, WORKSPACE_METATABLE, metamethods, NULL);
    lua_setmetatable(L, -2);
    if (lucid_derivative_workspace_create(&box->ws) != LUCID_OK)
        luaL_error(L, "lucid: cannot allocate the collision-derivatives workspace");
}

lucid_derivative_workspace *lucid_lua_derivative_workspace(lua_State *L, int idx,
                                                           const char *fname) {
    workspace_box *box = luaL_testudata(L, idx, WORKSPACE_METATABLE);
    if (!box || !box->ws) /* finalized by a call to its __gc by hand */
        luaL_error(L, "%s: the collision-derivatives workspace has been finalized", fname);
    return box->ws;
}
