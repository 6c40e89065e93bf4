/* LAPACK-backed methods of the "lucid.mat" type (solve, chol, cholsolve, lstsq, eigh, svd,
 * inv) and lucid.set_num_threads. Called by lucid_open_linalg (lua_linalg.c). */
#ifndef LUCID_LUA_DECOMPOSITIONS_H
#define LUCID_LUA_DECOMPOSITIONS_H

#include <lua.h>

/* Adds the decomposition methods to the method table on top of the stack. */
void lucid_lua_add_decomposition_methods(lua_State *L);

/* Adds lucid.set_num_threads / lucid.get_num_threads to the `lucid` table on top of the
 * stack, creates this state's LAPACK workspace and pins OpenBLAS to one thread. */
void lucid_lua_open_decompositions(lua_State *L);

#endif
