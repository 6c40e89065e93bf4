/* The Lua shape userdata (metatable "lucid.shape"): owns its lucid_shape and, for convex
 * meshes, the lucid_convex_mesh it refers to (freed by __gc once no holder pins it). */
#ifndef LUCID_LUA_SHAPE_H
#define LUCID_LUA_SHAPE_H

#include <lua.h>

#include "runtime/shapes/shape.h"

#define LUCID_SHAPE_METATABLE "lucid.shape"

/* The shape at idx, or a Lua error "FNAME: WHAT must be a lucid shape (got ...)". The
 * pointer stays valid while the userdata is alive (keep it on the stack during the call). */
const lucid_shape *lucid_lua_checkshape(lua_State *L, int idx, const char *fname, const char *what);

/* The shape at idx or NULL. */
const lucid_shape *lucid_lua_toshape(lua_State *L, int idx);

/* A holder that keeps a copy of the shape at idx beyond the call (a world) pins it, and
 * unpins it when it lets go (its own finaliser). The mesh of a convex shape is freed when
 * the shape has been finalised and no pin is left, whatever the order of the finalisers, so
 * __gc called by hand on a shape a world still uses frees nothing under the world. */
void lucid_lua_shape_pin(lua_State *L, int idx);
void lucid_lua_shape_unpin(lua_State *L, int idx);

#endif
