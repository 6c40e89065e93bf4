/* The collision-derivative estimator table of lucid.distance_derivatives (method, step,
 * samples, noise, levels, seed and the distance-query options of lucid.distance), read with
 * the same names, checks and defaults wherever Lua passes one: lucid.distance_derivatives'
 * opts and w:step_derivatives' opts.collision. */
#ifndef LUCID_LUA_DERIVATIVE_OPTIONS_H
#define LUCID_LUA_DERIVATIVE_OPTIONS_H

#include <lua.h>

#include "autodiff/collision_derivatives.h"

/* The table at idx (none or nil: the defaults) into *o, its query options into *gjk (o->gjk =
 * gjk; derivative-grade tolerances where not given; gjk NULL: the table takes the estimator's
 * keys only and o->gjk is NULL). Unknown keys and wrong types raise errors naming fname, the
 * keys written with prefix (e.g. "collision.", and the table then "opts.collision"). */
void lucid_lua_read_derivative_options(lua_State *L, int idx, const char *fname, const char *prefix,
                                       lucid_derivative_options *o, lucid_gjk_options *gjk);

#endif
