/* The Lua pose userdata (metatable "lucid.se3"), shared by every binding that takes poses. */
#ifndef LUCID_LUA_SE3_H
#define LUCID_LUA_SE3_H

#include <lua.h>

#include "runtime/math/se3.h"

#define LUCID_SE3_METATABLE "lucid.se3"

/* The pose at idx or NULL. */
const lucid_se3 *lucid_lua_tose3(lua_State *L, int idx);

/* lucid_lua_checkse3 for the pose of a shape (collision queries, world bodies): also raises
 * fname's error when a translation component is beyond LUCID_GEOMETRY_MAX (shape.h). */
const lucid_se3 *lucid_lua_checkpose(lua_State *L, int idx, const char *fname, const char *what);
/* Pushes a new pose userdata holding a copy of T. */
void lucid_lua_pushse3(lua_State *L, const lucid_se3 *T);

#endif
