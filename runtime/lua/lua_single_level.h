/* lucid.world's single_level = {kappa=, tol=, max_iter=, warm_start=}: the single-level step's
 * options (docs/single_level.md), read through lucid_single_level_option_table. */
#ifndef LUCID_LUA_SINGLE_LEVEL_H
#define LUCID_LUA_SINGLE_LEVEL_H

#include <lua.h>

#include "runtime/world/world.h"

/* Reads single_level of the table at idx into o->single_level (errors name fname). */
void lucid_lua_read_single_level_options(lua_State *L, int idx, lucid_world_options *o,
                                         const char *fname);

#endif
