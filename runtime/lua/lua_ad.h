/* Shared internals of the lucid.ad bindings (lua_ad.c: values, operators, jacobian/grad;
 * lua_ad_primitive.c: user primitives). Not a public header. */
#ifndef LUCID_LUA_AD_H
#define LUCID_LUA_AD_H

#include <lua.h>

#include "autodiff/tape.h"

#define LUCID_AD_VAR_METATABLE  "lucid.ad.var"
#define LUCID_AD_TAPE_METATABLE "lucid.ad.tape"

/* The tape userdata. User value 1: the table of Lua primitives used in the running
 * evaluation (node prim_id indexes it). */
typedef struct lucid_lua_ad_tape {
    lucid_ad_tape *tape;
    int busy; /* inside a jacobian/grad evaluation */
} lucid_lua_ad_tape;

/* A differentiable value. User value 1: its tape userdata (keeps the tape alive). */
typedef struct lucid_lua_ad_var {
    lucid_lua_ad_tape *owner;
    lucid_ad_var var;
} lucid_lua_ad_var;

/* The live differentiable value at idx, NULL when idx is not one; raises "FNAME: stale
 * differentiable value ..." when it is one from a finished evaluation. */
lucid_lua_ad_var *lucid_lua_ad_tovar(lua_State *L, int idx, const char *fname);

/* Pushes a differentiable value for node v of the tape whose userdata is at tape_idx. */
void lucid_lua_ad_pushvar(lua_State *L, int tape_idx, lucid_ad_var v);

/* Pushes the tape userdata of the value at idx (a live differentiable value). */
void lucid_lua_ad_pushtape(lua_State *L, int idx);

/* Records the value at idx (differentiable value, number, lucid.vec or table of numbers) as
 * a node of tape `owner`, raising errors that name FNAME. */
lucid_ad_var lucid_lua_ad_node(lua_State *L, int idx, lucid_lua_ad_tape *owner, const char *fname);

/* Raises the error for a failed op status (never returns). */
int lucid_lua_ad_fail(lua_State *L, const char *fname, lucid_status status);

/* Differentiable lucid.se3 operations (lua_ad_se3.c); the lucid table is on top. */
void lucid_lua_ad_open_se3(lua_State *L);

/* The live differentiable pose at idx or NULL (stale ones raise, naming FNAME). */
lucid_lua_ad_var *lucid_lua_ad_topose(lua_State *L, int idx, const char *fname);

/* The pose at idx (differentiable, of tape `owner`, or a constant lucid.se3) as a 12-vector
 * node of that tape. */
lucid_ad_var lucid_lua_ad_pose_node(lua_State *L, int idx, lucid_lua_ad_tape *owner,
                                    const char *fname);

/* lucid.ad.primitive (lua_ad_primitive.c) and its sweep callbacks. */
int lucid_lua_ad_primitive(lua_State *L);
extern const lucid_ad_primitive lucid_lua_ad_primitive_ops;

/* The context handed to sweeps: Lua primitive callbacks run protected and leave their error
 * in the stack slot err_idx (failed set), so the C sweep unwinds normally. */
typedef struct lucid_lua_ad_sweep {
    lua_State *L;
    int tape_idx, err_idx;
    int failed;
} lucid_lua_ad_sweep;

#endif
