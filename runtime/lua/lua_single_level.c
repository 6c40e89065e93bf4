/* The single-level step's options of lucid.world (lua_single_level.h). */
#include "runtime/lua/lua_single_level.h"

#include <string.h>

#include "runtime/lua/check.h"

static void read_table(lua_State *L, int idx, lucid_single_level_options *o, const char *fname) {
    static const char *const keys[] = {"kappa", "tol", "max_iter", "warm_start", NULL};
    if (lua_type(L, idx) != LUA_TTABLE)
        lucid_lua_fail(L, fname, "single_level must be a table of options (got %s)",
                       lucid_lua_typename(L, idx));
    lucid_lua_check_option_names_prefixed(L, idx, keys, fname, "single_level.");
    if (lua_getfield(L, idx, "kappa") != LUA_TNIL)
        o->kappa = lucid_lua_checkpositive(L, -1, fname, "single_level.kappa");
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "tol") != LUA_TNIL)
        o->tol = lucid_lua_checkpositive(L, -1, fname, "single_level.tol");
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "max_iter") != LUA_TNIL)
        o->max_iter =
            (int)lucid_lua_checkinteger_range(L, -1, 1, 1000000, fname, "single_level.max_iter");
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "warm_start") != LUA_TNIL) {
        if (!lua_isboolean(L, -1))
            lucid_lua_fail(L, fname, "single_level.warm_start must be a boolean (got %s)",
                           lucid_lua_typename(L, -1));
        o->warm_start = lua_toboolean(L, -1);
    }
    lua_pop(L, 1);
}

void lucid_lua_read_single_level_options(lua_State *L, int idx, lucid_world_options *o,
                                         const char *fname) {
    if (lua_getfield(L, idx, "collision") != LUA_TNIL) {
        const char *c = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        if (c && (strcmp(c, "two_stage") == 0 || strcmp(c, "default") == 0))
            o->collision = LUCID_WORLD_COLLISION_TWO_STAGE;
        else if (c && strcmp(c, "single_level") == 0)
            o->collision = LUCID_WORLD_COLLISION_SINGLE_LEVEL;
        else
            lucid_lua_fail(L, fname, "collision must be \"two_stage\" or \"single_level\" (got %s)",
                           c ? c : lucid_lua_typename(L, -1));
    }
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "single_level") != LUA_TNIL)
        read_table(L, lua_gettop(L), &o->single_level, fname);
    lua_pop(L, 1);
}
