/* PLACEHOLDER: replaced by the SE(3) bindings. */
#include "runtime/lua/modules.h"

void lucid_open_se3(lua_State *L) {
    (void)L;
}
