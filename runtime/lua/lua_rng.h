/* The Lua generator userdata (metatable "lucid.rng") holding a lucid_rng, so every binding
 * that needs randomness (random poses, randomized smoothing, ...) draws from the user's
 * seeded stream. */
#ifndef LUCID_LUA_RNG_H
#define LUCID_LUA_RNG_H

#include <lua.h>

#include "runtime/math/rng.h"

#define LUCID_RNG_METATABLE "lucid.rng"

/* The generator at idx, or a Lua error "FNAME: argument N must be a lucid.rng generator
 * (got TYPE)". The pointer stays valid while the userdata is reachable (e.g. on the stack). */
lucid_rng *lucid_lua_checkrng(lua_State *L, int idx, const char *fname);

#endif
