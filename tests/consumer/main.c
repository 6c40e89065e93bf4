/* Uses the public C API (umbrella header) and the embedded Lua host of an installed lucid. */
#include <lucid.h>
#include <stdio.h>

int main(void) {
    lucid_se3 T = lucid_se3_identity();
    lucid_vec3 p = lucid_se3_act(&T, lucid_vec3_make(1.0, 2.0, 3.0));
    if (p.x != 1.0 || p.y != 2.0 || p.z != 3.0) return 1;

    lua_State *L = lucid_host_new();
    if (!L) return 1;
    int ok = luaL_dostring(L, "local lucid = require 'lucid'; assert(lucid.version)") == LUA_OK;
    if (!ok) fprintf(stderr, "%s\n", lua_tostring(L, -1));
    lua_close(L);
    printf("consumer: %s\n", lucid_status_string(LUCID_OK));
    return ok ? 0 : 1;
}
