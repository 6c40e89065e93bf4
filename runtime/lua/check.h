/* Argument checking and error raising for the Lua bindings. Every error message starts
 * with the public function name, e.g. "lucid.mat:solve: matrix is singular". */
#ifndef LUCID_CHECK_H
#define LUCID_CHECK_H

#include <lauxlib.h>
#include <lua.h>

#include "runtime/core/status.h"

/* Raises "FNAME: <formatted message>" as a Lua error (never returns). */
int lucid_lua_fail(lua_State *L, const char *fname, const char *fmt, ...);

/* Raises "FNAME: <status description>" (never returns). */
int lucid_lua_fail_status(lua_State *L, const char *fname, lucid_status status);

/* A finite number (a Lua number: strings are not converted) at idx; WHAT names the argument in the
 * message ("radius", "argument 2"). */
double lucid_lua_checkfinite(lua_State *L, int idx, const char *fname, const char *what);

/* A finite number > 0 at idx. */
double lucid_lua_checkpositive(lua_State *L, int idx, const char *fname, const char *what);

/* An integer in [lo, hi] at idx. */
lua_Integer lucid_lua_checkinteger_range(lua_State *L, int idx, lua_Integer lo, lua_Integer hi,
                                         const char *fname, const char *what);

/* Raises "FNAME: unknown option 'k' (expected one of: a, b, ...)" for any key of the table
 * at idx that is not in the NULL-terminated list `keys`, so that a misspelt option does not
 * pass silently; a key that is not a string is an error too. */
void lucid_lua_check_option_names(lua_State *L, int idx, const char *const *keys,
                                  const char *fname);

/* As lucid_lua_check_option_names, for a nested table: PREFIX ("derivatives.") is written
 * before the key in the message. */
void lucid_lua_check_option_names_prefixed(lua_State *L, int idx, const char *const *keys,
                                           const char *fname, const char *prefix);

/* The type of the value at idx for messages: the __name of a lucid userdata ("lucid.shape",
 * "lucid.ad.var", ...), otherwise the Lua type name. */
const char *lucid_lua_typename(lua_State *L, int idx);

/* What to do instead when the value at idx is a lucid.ad value where numbers are expected
 * ("; lucid.ad values ...: use lucid.ad.concat ..."), else "": appended to type errors. */
const char *lucid_lua_ad_hint(lua_State *L, int idx);

/* The same hint for a message that names the type of the offending value ("... got
 * lucid.ad.var)", as luaL_argerror writes for math.sin): "" when it names another type. */
const char *lucid_lua_ad_hint_for_message(const char *message);

/* Pushes the metatable of type_name, creating it on first use with the metamethods and, where
 * methods is not NULL, a table of those methods as its __index. `__metatable` is its type name,
 * so getmetatable(x) returns that string (and the metamethods, __gc included, cannot be reached
 * or replaced from plain Lua). */
void lucid_lua_push_metatable(lua_State *L, const char *type_name, const luaL_Reg *metamethods,
                              const luaL_Reg *methods);

/* Sets field `key` of the table on top of the stack to a number, integer, string or boolean. */
void lucid_lua_set_number(lua_State *L, const char *key, double x);
void lucid_lua_set_integer(lua_State *L, const char *key, lua_Integer x);
void lucid_lua_set_string(lua_State *L, const char *key, const char *s);
void lucid_lua_set_boolean(lua_State *L, const char *key, int b);

#endif
