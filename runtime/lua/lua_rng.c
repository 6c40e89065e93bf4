/* PLACEHOLDER: replaced by the RNG bindings. */
#include "runtime/lua/modules.h"

void lucid_open_rng(lua_State *L) {
    (void)L;
}
