/* The grow-only workspace of the collision-derivative estimators, owned by a Lua userdata so
 * that the bindings using it (lucid.distance_derivatives, differentiable lucid.distance) keep
 * it as a closure upvalue and it is freed with the state. */
#ifndef LUCID_LUA_DERIVATIVE_WORKSPACE_H
#define LUCID_LUA_DERIVATIVE_WORKSPACE_H

#include <lua.h>

#include "autodiff/collision_derivatives.h"

/* Pushes a new workspace userdata (raises a Lua error when memory is exhausted). */
void lucid_lua_push_derivative_workspace(lua_State *L);

/* The workspace held by the userdata at idx (e.g. lua_upvalueindex(1)). */
lucid_derivative_workspace *lucid_lua_derivative_workspace(lua_State *L, int idx,
                                                           const char *fname);

#endif
