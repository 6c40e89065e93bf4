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

/* lucid_lua_checkshape for the queries of one convex pair (distance, patch, P-scaling): a
 * height field is refused ("WHAT is a height field, not convex: ..."). */
const lucid_shape *lucid_lua_checkconvex(lua_State *L, int idx, const char *fname,
                                         const char *what);

/* The mesh of a convex shape is reference-counted in C: the shape holds one reference
 * (released by its __gc) and a holder that keeps a copy of the shape beyond the call (a
 * world) takes one with lucid_lua_shape_retain and releases it in its own finaliser. The
 * mesh is freed with the last reference, whatever the order of the finalisers and whatever
 * Lua code does to the holder's references (debug.setuservalue), so __gc called by hand on
 * a shape a world still uses frees nothing under the world. */
typedef struct lucid_lua_mesh_ref lucid_lua_mesh_ref;

/* A new reference to the mesh of the shape at idx, or NULL for a primitive (or not a
 * shape). */
lucid_lua_mesh_ref *lucid_lua_shape_retain(lua_State *L, int idx);

/* Drops a reference (NULL is ignored); the last one frees the mesh. */
void lucid_lua_mesh_release(lucid_lua_mesh_ref *ref);

/* Pushes a new shape equal to s (primitives copied, a convex mesh re-hulled from its vertices
 * into a mesh the new shape owns); errors name FNAME. */
void lucid_lua_push_shape_copy(lua_State *L, const lucid_shape *s, const char *fname);

/* Pushes a new convex shape, the hull of n xyz points (points may be freed afterwards; an
 * error raised here leaks nothing of the caller's that Lua does not own). */
void lucid_lua_push_convex(lua_State *L, const double *points, int n, const char *fname);

#endif
