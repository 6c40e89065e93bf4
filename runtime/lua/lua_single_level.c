/* The single-level step's options of lucid.world (lua_single_level.h). */
#include "runtime/lua/lua_single_level.h"

#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_options.h"

static void read_table(lua_State *L, int idx, lucid_single_level_options *o, const char *fname) {
    const char *keys[16];
    lucid_lua_option_names(lucid_single_level_option_table, NULL, keys, 16);
    if (lua_type(L, idx) != LUA_TTABLE)
        lucid_lua_fail(L, fname, "single_level must be a table of options (got %s)",
                       lucid_lua_typename(L, idx));
    lucid_lua_check_option_names_prefixed(L, idx, keys, fname, "single_level.");
    lucid_lua_fields f = lucid_lua_fields_at(L, idx, fname, "single_level.");
    lucid_lua_read_option_table(&f, lucid_single_level_option_table, o);
}

void lucid_lua_read_single_level_options(lua_State *L, int idx, lucid_world_options *o,
                                         const char *fname) {
    if (lua_getfield(L, idx, "single_level") != LUA_TNIL)
        read_table(L, lua_gettop(L), &o->single_level, fname);
    lua_pop(L, 1);
}
