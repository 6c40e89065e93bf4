/* lucid.world's options of the single-level step: collision = "two_stage" (alias "default") |
 * "single_level" and single_level = {kappa=, tol=, max_iter=, warm_start=} (docs/single_level.md).
 */
#ifndef LUCID_LUA_SINGLE_LEVEL_H
#define LUCID_LUA_SINGLE_LEVEL_H

#include <lua.h>

#include "runtime/world/world.h"

/* Reads the two options from the table at idx into o (errors name fname). */
void lucid_lua_read_single_level_options(lua_State *L, int idx, lucid_world_options *o,
                                         const char *fname);

#endif
