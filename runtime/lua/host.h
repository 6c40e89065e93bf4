/* The Lua host: a Lua 5.4 state with the standard libraries, `lucid` preloaded and the
 * embedded scripts/ reachable through `require`. */
#ifndef LUCID_HOST_H
#define LUCID_HOST_H

#include <lua.h>

/* Opens the `lucid` module (the C bindings plus the Lua-side library); usable with
 * luaL_requiref or as a regular C module entry point. */
int luaopen_lucid(lua_State *L);

/* A new state with the standard libraries, `require "lucid"` available, and the global
 * `lucid` set. Returns NULL when memory is exhausted. Close with lua_close. */
lua_State *lucid_host_new(void);

/* Runs a chunk already on the stack (below its arguments) under lua_pcall with a traceback
 * handler. On error prints the traceback to stderr. Returns a lua status code. */
int lucid_host_pcall(lua_State *L, int nargs, int nresults);

/* Runs FILE ("-" for stdin) like the standalone interpreter: sets the global `arg`
 * (arg[0] = script, arg[1..] = script arguments, arg[-k] = interpreter words), passes the
 * arguments as `...`. Returns a process exit code. */
int lucid_host_run_file(lua_State *L, int argc, char **argv, int script_index);

/* Interactive read-eval-print loop on stdin; returns a process exit code. */
int lucid_host_repl(lua_State *L);

#endif
