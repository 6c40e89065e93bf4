/* A minimal REPL in the spirit of the standalone `lua`: expressions print their values,
 * incomplete statements continue on the next line. */
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "runtime/lua/host.h"

enum { REPL_LINE_MAX = 4096 };

/* Compiles the buffer as "return <expr>" first, then as a statement. Returns the lua status;
 * LUA_ERRSYNTAX with an "<eof>" message means "incomplete, read more". */
static int compile_chunk(lua_State *L, const char *buffer, size_t length) {
    lua_pushfstring(L, "return %s;", buffer);
    int status = luaL_loadbuffer(L, lua_tostring(L, -1), strlen(lua_tostring(L, -1)), "=stdin");
    lua_remove(L, -2);
    if (status == LUA_OK) return status;
    lua_pop(L, 1);
    return luaL_loadbuffer(L, buffer, length, "=stdin");
}

static int is_incomplete(lua_State *L, int status) {
    if (status != LUA_ERRSYNTAX) return 0;
    const char *msg = lua_tostring(L, -1);
    size_t n = strlen(msg);
    return n >= 5 && strcmp(msg + n - 5, "<eof>") == 0;
}

static void print_results(lua_State *L, int base) {
    int n = lua_gettop(L) - base;
    if (n <= 0) return;
    lua_getglobal(L, "print");
    lua_insert(L, base + 1);
    lucid_host_pcall(L, n, 0);
}

int lucid_host_repl(lua_State *L) {
    char line[REPL_LINE_MAX];
    lua_pushliteral(L, ""); /* pending chunk text lives on the stack, so errors cannot leak it */
    int pending = lua_gettop(L);
    for (;;) {
        fputs(lua_rawlen(L, pending) ? ">> " : "> ", stdout);
        fflush(stdout);
        if (!fgets(line, sizeof line, stdin)) break;
        if (lua_rawlen(L, pending))
            lua_pushfstring(L, "%s\n%s", lua_tostring(L, pending), line);
        else
            lua_pushstring(L, line);
        lua_replace(L, pending);

        size_t length;
        const char *buffer = lua_tolstring(L, pending, &length);
        int base = lua_gettop(L);
        int status = compile_chunk(L, buffer, length);
        if (is_incomplete(L, status)) {
            lua_pop(L, 1);
            continue;
        }
        if (status == LUA_OK) {
            if (lucid_host_pcall(L, 0, LUA_MULTRET) == LUA_OK) print_results(L, base);
        } else {
            fprintf(stderr, "lucid: %s\n", lua_tostring(L, -1));
        }
        lua_settop(L, pending);
        lua_pushliteral(L, "");
        lua_replace(L, pending);
    }
    fputc('\n', stdout);
    lua_settop(L, pending - 1);
    return 0;
}
