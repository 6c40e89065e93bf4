/* The Lua recording userdata (metatable "lucid.record"), made by w:record() (lua_world.c):
 *   rec = w:record{every = 1, max_frames = 1000000, max_bytes = 268435456}
 *   rec:stop()      rec:info()      rec:frame(i)      rec:json()      #rec
 * It owns a lucid_record (runtime/world/world_record.h). While it records, the world keeps a
 * pointer to it (and a Lua reference, so it lives as long as the world) and calls
 * lucid_lua_record_after_step after every successful step. */
#ifndef LUCID_LUA_RECORD_H
#define LUCID_LUA_RECORD_H

#include <lua.h>

#include "runtime/world/world.h"

#define LUCID_RECORD_METATABLE "lucid.record"

typedef struct lucid_lua_record lucid_lua_record;

/* Pushes a new recording of w with the options table at opts (or none), its first frame
 * (time 0) taken; *slot is the world's pointer to its recording, set here and cleared by
 * rec:stop() and the recording's finaliser. Raises "FNAME: ..." errors. */
lucid_lua_record *lucid_lua_record_new(lua_State *L, int opts, const lucid_world *w,
                                       lucid_lua_record **slot, const char *fname);

/* After a successful step of the world being recorded: advances the clock and keeps one step
 * in `every`. Never raises (a frame that cannot be kept is counted as dropped). */
void lucid_lua_record_after_step(lucid_lua_record *r, const lucid_world *w);

/* The world is being finalised: the recording stops (it keeps its frames). */
void lucid_lua_record_detach(lucid_lua_record *r);

void lucid_open_record(lua_State *L);

#endif
