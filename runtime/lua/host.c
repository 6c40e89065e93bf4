#include "runtime/lua/host.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/embedded_scripts.h"
#include "runtime/lua/modules.h"

static const lucid_embedded_script *find_embedded(const char *module) {
    for (const lucid_embedded_script *s = lucid_embedded_scripts; s->module; ++s)
        if (strcmp(s->module, module) == 0) return s;
    return NULL;
}

/* package.searchers entry: finds modules of scripts/ compiled into the binary. */
static int embedded_searcher(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    const lucid_embedded_script *s = find_embedded(name);
    if (!s) {
        lua_pushfstring(L, "no embedded lucid script '%s'", name);
        return 1;
    }
    if (luaL_loadbufferx(L, s->source, s->size, s->chunkname, "t") != LUA_OK)
        return luaL_error(L, "error loading embedded module '%s':\n\t%s", name,
                          lua_tostring(L, -1));
    lua_pushstring(L, s->chunkname + 1);
    return 2;
}

/* Inserts embedded_searcher right after the preload searcher, once per state. */
static void install_embedded_searcher(lua_State *L) {
    static const char key = 0; /* address used as a unique registry key (never written) */
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &key) != LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    lua_pushboolean(L, 1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &key);

    lua_getglobal(L, "package");
    lua_getfield(L, -1, "searchers");
    lua_Integer n = luaL_len(L, -1);
    for (lua_Integer i = n; i >= 2; --i) { /* shift entries 2..n up by one */
        lua_rawgeti(L, -1, i);
        lua_rawseti(L, -2, i + 1);
    }
    lua_pushcfunction(L, embedded_searcher);
    lua_rawseti(L, -2, 2);
    lua_pop(L, 2);
}

int luaopen_lucid(lua_State *L) {
    install_embedded_searcher(L);
    lua_newtable(L);
    lucid_open_host_utils(L);
    lucid_open_linalg(L);
    lucid_open_se3(L);
    lucid_open_rng(L);
    lucid_open_shapes(L);
    lucid_open_contact(L);
    lucid_open_patch(L);
    lucid_open_world(L);
    lucid_open_collision(L);
    lucid_open_ad(L);
    lucid_open_distance_derivatives(L);
    lucid_open_batch(L);
    lucid_open_model(L);
    lucid_open_model_load(L);
    lucid_open_pscaling(L);
    lucid_open_grasp(L);
    lucid_open_mesh(L);
    lucid_open_options(L);

    /* Register before running the Lua side so its modules can `require "lucid"`. */
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "lucid");
    lua_pop(L, 1);

    if (find_embedded("lucid.init")) {
        lua_getglobal(L, "require");
        lua_pushstring(L, "lucid.init");
        lua_call(L, 1, 0);
    }
    return 1;
}

lua_State *lucid_host_new(void) {
    lua_State *L = luaL_newstate();
    if (!L) return NULL;
    luaL_openlibs(L);
    luaL_requiref(L, "lucid", luaopen_lucid, 1);
    lua_pop(L, 1);
    return L;
}

/* 1 if lucid.ad has a function called NAME (NAME: LEN bytes). */
static int ad_has_function(lua_State *L, const char *name, size_t len) {
    int top = lua_gettop(L), found = 0;
    if (lua_getglobal(L, "lucid") == LUA_TTABLE && lua_getfield(L, -1, "ad") == LUA_TTABLE) {
        lua_pushlstring(L, name, len);
        found = lua_gettable(L, -2) == LUA_TFUNCTION;
    }
    lua_settop(L, top);
    return found;
}

/* MSG with a hint appended when it says a lucid.ad value reached a function taking numbers
 * ("bad argument #1 to 'sin' (number expected, got lucid.ad.var)"): lucid.ad.sin when lucid.ad
 * has a function of that name, else how lucid.ad values go in (lucid.ad.concat, lucid.sim.step). */
static const char *with_ad_hint(lua_State *L, const char *msg) {
    const char *hint = lucid_lua_ad_hint_for_message(msg);
    if (!*hint) return msg;
    const char *to = strstr(msg, " to '");
    const char *name = to ? to + 5 : NULL;
    const char *end = name ? strchr(name, '\'') : NULL;
    if (end && ad_has_function(L, name, (size_t)(end - name))) {
        const char *fn = lua_pushlstring(L, name, (size_t)(end - name));
        return lua_pushfstring(
            L, "%s; '%s' takes plain numbers: use lucid.ad.%s on a lucid.ad value", msg, fn, fn);
    }
    return lua_pushfstring(L, "%s%s", msg, hint);
}

static int traceback_handler(lua_State *L) {
    const char *msg = lua_tostring(L, 1);
    if (msg == NULL) { /* error object is not a string */
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    msg = with_ad_hint(L, msg);
    luaL_traceback(L, L, msg, 1);
    return 1;
}

int lucid_host_pcall(lua_State *L, int nargs, int nresults) {
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, traceback_handler);
    lua_insert(L, base);
    int status = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);
    if (status != LUA_OK) {
        fprintf(stderr, "lucid: %s\n", lua_tostring(L, -1));
        fflush(stderr);
        lua_pop(L, 1);
    }
    return status;
}

int lucid_host_run_file(lua_State *L, int argc, char **argv, int script_index) {
    lua_createtable(L, argc - script_index - 1, script_index + 1);
    for (int i = 0; i < argc; ++i) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - script_index);
    }
    lua_setglobal(L, "arg");

    const char *path = argv[script_index];
    if (strcmp(path, "-") == 0) path = NULL; /* stdin */
    if (luaL_loadfilex(L, path, "t") != LUA_OK) {
        fprintf(stderr, "lucid: %s\n", lua_tostring(L, -1));
        lua_pop(L, 1);
        return 1;
    }
    int nargs = argc - script_index - 1;
    luaL_checkstack(L, nargs, "too many arguments to script");
    for (int i = script_index + 1; i < argc; ++i) lua_pushstring(L, argv[i]);
    return lucid_host_pcall(L, nargs, 0) == LUA_OK ? 0 : 1;
}
