/* The single-level step's options of lucid.world (lua_single_level.h). */
#include "runtime/lua/lua_single_level.h"

#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_options.h"

static void read_table(lua_State *L, int idx, lucid_single_level_options *o, const char *fname) {
    static const char *const keys[] = {"kappa", "tol", "max_iter", "warm_start", NULL};
    if (lua_type(L, idx) != LUA_TTABLE)
        lucid_lua_fail(L, fname, "single_level must be a table of options (got %s)",
                       lucid_lua_typename(L, idx));
    lucid_lua_check_option_names_prefixed(L, idx, keys, fname, "single_level.");
    lucid_lua_fields f = lucid_lua_fields_at(L, idx, fname, "single_level.");
    o->kappa = lucid_lua_number_in(&f, "kappa", o->kappa, &lucid_lua_positive);
    o->tol = lucid_lua_number_in(&f, "tol", o->tol, &lucid_lua_positive);
    o->max_iter = (int)lucid_lua_integer_field(&f, "max_iter", o->max_iter, 1, 1000000);
    o->warm_start = lucid_lua_boolean_field(&f, "warm_start", o->warm_start);
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
