/* Small host services for the Lua side: terminal detection (progress bars draw only on a
 * terminal), the version string, a monotonic clock and the calling thread's CPU clock. */
#include <lauxlib.h>
#include <time.h>
#include <unistd.h>

#include "runtime/lua/check.h"
#include "runtime/lua/modules.h"

#define LUCID_VERSION_STRING "0.1.0"

/* lucid.isatty(fd): fd is 0 (stdin), 1 (stdout) or 2 (stderr). */
static int l_isatty(lua_State *L) {
    lua_Integer fd = lucid_lua_checkinteger_range(L, 1, 0, 2, "lucid.isatty", "fd");
    lua_pushboolean(L, isatty((int)fd));
    return 1;
}

/* lucid.clock(): seconds from an arbitrary origin, monotonic, nanosecond resolution. */
static int l_clock(lua_State *L) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    lua_pushnumber(L, (lua_Number)ts.tv_sec + 1e-9 * (lua_Number)ts.tv_nsec);
    return 1;
}

/* lucid.cpu_clock(): CPU seconds used by the calling thread. Unlike os.clock (the whole
 * process: every thread, OpenBLAS's idle pool included), it cannot exceed the wall time of
 * what it measures, so "CPU s" beside "wall s" reads as the work of one core. */
static int l_cpu_clock(lua_State *L) {
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        lucid_lua_fail(L, "lucid.cpu_clock", "the thread's CPU clock is not available");
    lua_pushnumber(L, (lua_Number)ts.tv_sec + 1e-9 * (lua_Number)ts.tv_nsec);
    return 1;
}

void lucid_open_host_utils(lua_State *L) {
    static const luaL_Reg functions[] = {
        {"isatty", l_isatty}, {"clock", l_clock}, {"cpu_clock", l_cpu_clock}, {NULL, NULL}};
    luaL_setfuncs(L, functions, 0);
    lua_pushliteral(L, LUCID_VERSION_STRING);
    lua_setfield(L, -2, "version");
}
