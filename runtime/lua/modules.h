/* The C binding modules. Each one receives the `lucid` table on top of the stack, adds its
 * functions and types to it, and leaves the stack as it found it. */
#ifndef LUCID_MODULES_H
#define LUCID_MODULES_H

#include <lua.h>

void lucid_open_host_utils(lua_State *L); /* lucid.isatty, lucid.version, ... */
void lucid_open_linalg(lua_State *L);     /* lucid.vec, lucid.mat, lucid.zeros, lucid.eye */
void lucid_open_se3(lua_State *L);        /* lucid.se3, lucid.so3 */
void lucid_open_rng(lua_State *L);        /* lucid.rng */
void lucid_open_shapes(lua_State *L);     /* lucid.sphere, ..., lucid.convex, lucid.load_mesh */
void lucid_open_contact(lua_State *L);    /* lucid.contact */
void lucid_open_patch(lua_State *L);      /* lucid.contact_patch */
void lucid_open_world(lua_State *L);      /* lucid.world */
void lucid_open_collision(lua_State *L);  /* lucid.distance, lucid.collide, lucid.distance_batch */
void lucid_open_ad(lua_State *L);         /* lucid.ad (after linalg: wraps lucid.mat operators) */
void lucid_open_distance_derivatives(lua_State *L); /* lucid.distance_derivatives */
void lucid_open_batch(lua_State *L);                /* lucid.batch (after world) */

/* lucid.contact.derivatives: adds to the lucid.contact table on top of the stack. */
void lucid_open_contact_derivatives(lua_State *L);
void lucid_open_model(lua_State *L); /* lucid.model, lucid.dynamics (runtime/lua/lua_model.c) */
void lucid_open_model_load(lua_State *L); /* lucid.model.load, load_string (after model) */
void lucid_open_pscaling(lua_State *L);   /* lucid.pscaling (runtime/lua/lua_pscaling.c) */
void lucid_open_grasp(lua_State *L);      /* lucid.grasp.epsilon, lucid.grasp.wrenches */
void lucid_open_mesh(lua_State *L);       /* lucid.mesh.decompose */
void lucid_open_options(lua_State *L);    /* lucid.options (runtime/lua/lua_options.c) */

#endif
