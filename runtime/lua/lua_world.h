/* The lucid.world userdata for other bindings (lucid.batch). */
#ifndef LUCID_LUA_WORLD_H
#define LUCID_LUA_WORLD_H

#include <lua.h>

#include "runtime/world/world.h"

/* The world at idx, or a Lua error "FNAME: expected a lucid.world (got ...)" / "... finalized". */
lucid_world *lucid_lua_checkworld(lua_State *L, int idx, const char *fname);

/* Adds the model methods of the world (w:add_model, w:q, ...; lua_world_model.c) to the
 * method table on top of the stack. */
void lucid_lua_world_model_methods(lua_State *L);
/* w:state_integrate, w:state_difference (lua_world_state.c). */
void lucid_lua_world_state_methods(lua_State *L);
/* w:step_derivatives (lua_step_derivatives.c). */
void lucid_lua_world_derivative_methods(lua_State *L);

#endif
