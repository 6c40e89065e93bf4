/* lucid.model.load(path [, opts]): an MJCF or URDF file (chosen by its root element) read into
 * a model spec (runtime/model/model_load.h), compiled (runtime/model/model.h) and returned as
 * a lucid.model. opts: package_dirs (a list of folder names), meshes ("load", "skip" or
 * "decompose"), decompose ({max_parts=, concavity=}, with meshes = "decompose" only),
 * floating_base (boolean), scale (number > 0), inertia ("repair" or "strict"); any other key
 * is an error. Every error is raised as "lucid.model.load: file:line: reason".
 * lucid.model.load_string(text [, opts]): the same from the model's text, with three more
 * options: name (for messages, default "<string>"), base_dir (the folder relative <include>s
 * and assets resolve against, default the current directory) and format ("mjcf" or "urdf";
 * default: the root element's). See docs/model_files.md. */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_options.h"
#include "runtime/lua/lua_model.h"
#include "runtime/lua/modules.h"
#include "runtime/model/model.h"
#include "runtime/model/model_load.h"

#define LOAD        "lucid.model.load"
#define LOAD_STRING "lucid.model.load_string"

/* opts.decompose: lucid_mesh_decompose's max_parts, concavity and holes for meshes =
 * "decompose". */
static void read_decompose(lua_State *L, int idx, const char *fname, lucid_model_load_options *o) {
    if (!lucid_lua_field(L, idx, "decompose")) return;
    if (!lua_istable(L, -1))
        lucid_lua_fail(L, fname,
                       "decompose must be a table {max_parts=, concavity=, holes=} (got %s)",
                       lucid_lua_typename(L, -1));
    if (!o->decompose_meshes)
        lucid_lua_fail(L, fname, "decompose options need meshes = \"decompose\"");
    const char *keys[5];
    lucid_lua_option_names(lucid_decompose_option_table, NULL, keys, 5);
    int t = lua_absindex(L, -1);
    lucid_lua_check_option_names_prefixed(L, t, keys, fname, "decompose.");
    lucid_lua_fields f = lucid_lua_fields_at(L, t, fname, "decompose.");
    lucid_lua_read_option_table(&f, lucid_decompose_option_table, &o->decompose);
    lua_pop(L, 1);
}

/* Reads the options table at idx, whose allowed names are keys, into *o; package folder names
 * are kept in a userdata pushed on the stack (alive until the call returns, collected on
 * error). */
static void read_options(lua_State *L, int idx, const char *fname, const char *const *keys,
                         lucid_model_load_options *o) {
    lucid_lua_check_option_names(L, idx, keys, fname);
    lua_getfield(L, idx, "package_dirs");
    if (!lua_isnil(L, -1)) {
        if (!lua_istable(L, -1))
            lucid_lua_fail(L, fname, "package_dirs must be a list of strings (got %s)",
                           lucid_lua_typename(L, -1));
        lua_Integer n = luaL_len(L, -1);
        if (n < 0 || (uint64_t)n > SIZE_MAX / sizeof(char *))
            lucid_lua_fail(L, fname, "package_dirs: bad length");
        const char **dirs = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *dirs, 0);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_geti(L, -2, i);
            if (lua_type(L, -1) != LUA_TSTRING)
                lucid_lua_fail(L, fname, "package_dirs[%d] must be a string (got %s)", (int)i,
                               lucid_lua_typename(L, -1));
            dirs[i - 1] = lua_tostring(L, -1); /* kept alive by the table */
            lua_pop(L, 1);
        }
        o->package_dirs = dirs;
        o->npackage_dirs = (size_t)n;
        lua_insert(L, -2); /* userdata below the table: both stay on the stack */
    } else {
        lua_pop(L, 1);
        lua_pushnil(L); /* keep the stack shape: [dirs-or-nil] */
        lua_pushnil(L);
    }
    static const char *const meshes[] = {"load", "skip", "decompose", NULL};
    static const char *const inertia[] = {"repair", "strict", NULL};
    lucid_lua_fields f = lucid_lua_fields_at(L, idx, fname, "");
    int mode = lucid_lua_enum_field(&f, "meshes", meshes, 0);
    o->skip_meshes = mode == 1;
    o->decompose_meshes = mode == 2;
    read_decompose(L, idx, fname, o);
    o->floating_base = lucid_lua_boolean_field(&f, "floating_base", o->floating_base);
    o->scale = lucid_lua_number_in(&f, "scale", o->scale, &lucid_lua_positive);
    o->strict_inertia = lucid_lua_enum_field(&f, "inertia", inertia, o->strict_inertia) == 1;
}

/* The options of both loaders; load_string's own follow. */
#define LOAD_KEYS "package_dirs", "meshes", "decompose", "floating_base", "scale", "inertia"

/* The spec compiled and pushed as a lucid.model (the spec is released). */
static int push_compiled(lua_State *L, const char *fname, lucid_model_spec *spec) {
    char err[1024];
    lucid_model *m = NULL;
    lucid_status st = lucid_model_compile(spec, &m, err, sizeof err);
    lucid_model_spec_destroy(spec);
    if (st != LUCID_OK) return lucid_lua_fail(L, fname, "%s", err);
    lucid_lua_push_model(L, m, fname);
    return 1;
}

/* The options argument at idx (none or nil: the defaults) read into *o. */
static void read_argument(lua_State *L, int idx, const char *fname, const char *const *keys,
                          lucid_model_load_options *o) {
    *o = lucid_model_load_options_default();
    if (lua_isnoneornil(L, idx)) return;
    if (!lua_istable(L, idx))
        lucid_lua_fail(L, fname, "options must be a table (got %s)", lucid_lua_typename(L, idx));
    read_options(L, idx, fname, keys, o);
}

static int model_load(lua_State *L) {
    static const char *const keys[] = {LOAD_KEYS, NULL};
    if (lua_type(L, 1) != LUA_TSTRING)
        return lucid_lua_fail(L, LOAD, "path must be a string (got %s)", lucid_lua_typename(L, 1));
    const char *path = lua_tostring(L, 1);
    lucid_model_load_options o;
    read_argument(L, 2, LOAD, keys, &o);
    char err[1024];
    lucid_model_spec *spec = NULL;
    if (lucid_model_spec_load(path, &o, &spec, err, sizeof err) != LUCID_OK)
        return lucid_lua_fail(L, LOAD, "%s", err);
    return push_compiled(L, LOAD, spec);
}

static int model_load_string(lua_State *L) {
    static const char *const keys[] = {LOAD_KEYS, "name", "base_dir", "format", NULL};
    static const char *const formats[] = {"mjcf", "urdf", NULL};
    if (lua_type(L, 1) != LUA_TSTRING)
        return lucid_lua_fail(L, LOAD_STRING, "text must be a string (got %s)",
                              lucid_lua_typename(L, 1));
    size_t size = 0;
    const char *text = lua_tolstring(L, 1, &size);
    lucid_model_load_options o;
    read_argument(L, 2, LOAD_STRING, keys, &o);
    const char *name = "<string>";
    int format = -1;
    o.base_dir = ""; /* the current directory */
    if (lua_istable(L, 2)) {
        lucid_lua_fields f = lucid_lua_fields_at(L, 2, LOAD_STRING, "");
        const char *given = lucid_lua_string_field(&f, "name", 0);
        if (given) name = given;
        const char *dir = lucid_lua_string_field(&f, "base_dir", 0);
        if (dir) o.base_dir = dir;
        format = lucid_lua_enum_field(&f, "format", formats, -1);
    }
    char err[1024];
    lucid_model_spec *spec = NULL;
    lucid_status st =
        format == 0   ? lucid_model_spec_parse_mjcf(name, text, size, &o, &spec, err, sizeof err)
        : format == 1 ? lucid_model_spec_parse_urdf(name, text, size, &o, &spec, err, sizeof err)
                      : lucid_model_spec_parse(name, text, size, &o, &spec, err, sizeof err);
    if (st != LUCID_OK) return lucid_lua_fail(L, LOAD_STRING, "%s", err);
    return push_compiled(L, LOAD_STRING, spec);
}

void lucid_open_model_load(lua_State *L) {
    lua_getfield(L, -1, "model");
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, -3, "model");
    }
    static const luaL_Reg functions[] = {
        {"load", model_load}, {"load_string", model_load_string}, {NULL, NULL}};
    luaL_setfuncs(L, functions, 0);
    lua_pop(L, 1);
}
