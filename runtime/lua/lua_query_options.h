/* The distance-query options shared by lucid.distance and lucid.distance_derivatives
 * (runtime/lua/lua_collision.c): algorithm, normalize, tol, tol_mode, max_iter, warm_start,
 * epa_tol, epa_max_iter, with the same names, checks and meaning in both. */
#ifndef LUCID_LUA_QUERY_OPTIONS_H
#define LUCID_LUA_QUERY_OPTIONS_H

#include <lua.h>

#include "solvers/collision/gjk.h"

/* The query options for derivatives: lucid_derivative_query_options_default (tolerances at
 * rounding level), overridden by those given in the table at idx (if it is a table; option
 * names are not checked here). A tol given without tol_mode is absolute, as in
 * lucid.distance. Errors name fname. */
void lucid_lua_read_derivative_query_options(lua_State *L, int idx, const char *fname,
                                             lucid_gjk_options *opt);

#endif
