/* The Lua model userdata (metatable "lucid.model"): owns a compiled lucid_model and the
 * lucid_model_data its methods and lucid.dynamics use. Loaders (lucid.model.load) push the
 * models they compile with lucid_lua_push_model. */
#ifndef LUCID_LUA_MODEL_H
#define LUCID_LUA_MODEL_H

#include <lua.h>

#include "runtime/model/model.h"

#define LUCID_MODEL_METATABLE "lucid.model"

/* Pushes a new model userdata that owns m (destroyed by its __gc). On failure (no memory for
 * the workspace) m is destroyed and a Lua error naming FNAME is raised. */
void lucid_lua_push_model(lua_State *L, lucid_model *m, const char *fname);

/* The model at idx (and its workspace in *data when data is not NULL), or a Lua error
 * "FNAME: WHAT must be a lucid.model (got ...)" / "FNAME: WHAT is a finalized model". */
lucid_model *lucid_lua_checkmodel(lua_State *L, int idx, const char *fname, const char *what,
                                  lucid_model_data **data);

/* q (nq finite values, no zero quaternion) and v (nv finite values) at idx, read into scratch
 * buffers left on the stack; a Lua error "FNAME: WHAT ..." otherwise. */
double *lucid_lua_model_q(lua_State *L, int idx, const lucid_model *m, const char *fname,
                          const char *what);
double *lucid_lua_model_v(lua_State *L, int idx, const lucid_model *m, const char *fname,
                          const char *what);

/* Adds regressor, inertial_parameters and base_parameters to the lucid.dynamics table on top
 * of the stack (runtime/lua/lua_regressor.c). */
void lucid_lua_add_regressor(lua_State *L);

/* m:geoms() (runtime/lua/lua_model_geoms.c). */
int lucid_lua_model_geoms(lua_State *L);
/* m:pairs(): the explicit geom pairs (MJCF <contact><pair>), lua_model_geoms.c. */
int lucid_lua_model_pairs(lua_State *L);
/* m:actuators() (runtime/lua/lua_model_actuators.c). */
int lucid_lua_model_actuators(lua_State *L);
/* m:tendons() (runtime/lua/lua_model_actuators.c). */
int lucid_lua_model_tendons(lua_State *L);
int lucid_lua_model_sensors(lua_State *L);

#endif
