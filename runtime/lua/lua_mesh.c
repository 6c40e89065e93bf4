/* lucid.mesh.decompose: approximate convex decomposition of a closed mesh (a file or a
 * {vertices=, triangles=} table) into a list of {shape=} parts, a composite body's `shape`
 * (runtime/shapes/mesh_decompose.h). */
#include <lauxlib.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_options.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_shape.h"
#include "runtime/lua/modules.h"
#include "runtime/shapes/mesh_decompose.h"
#include "runtime/shapes/mesh_file.h"

#define HOLDER_METATABLE "lucid.mesh.buffers"

/* The C arrays of one call, freed by __gc whatever error a Lua call raises meanwhile. */
typedef struct holder {
    double *points; /* a file's vertices (malloc'd) */
    int *triangles; /* a file's triangles (malloc'd) */
    lucid_decomposition result;
} holder;

static int holder_gc(lua_State *L) {
    holder *h = luaL_testudata(L, 1, HOLDER_METATABLE);
    if (h == NULL) return 0;
    free(h->points);
    free(h->triangles);
    lucid_decomposition_free(&h->result);
    h->points = NULL;
    h->triangles = NULL;
    return 0;
}

static holder *push_holder(lua_State *L) {
    holder *h = lua_newuserdatauv(L, sizeof *h, 0);
    h->points = NULL;
    h->triangles = NULL;
    h->result = (lucid_decomposition){0};
    luaL_setmetatable(L, HOLDER_METATABLE);
    return h;
}

static lucid_decompose_options read_options(lua_State *L, int idx, const char *fname,
                                            double *scale) {
    static const char *const scale_key[] = {"scale", NULL};
    lucid_decompose_options o = lucid_decompose_default_options();
    *scale = 1.0;
    if (!lucid_lua_read_options(L, idx, fname, "options", lucid_decompose_option_table, scale_key,
                                &o))
        return o;
    lucid_lua_fields f = lucid_lua_fields_at(L, idx, fname, "");
    *scale = lucid_lua_number_in(&f, "scale", 1.0, &lucid_lua_positive);
    return o;
}

/* A list field of the mesh table: count entries of `width` numbers into a buffer userdata
 * left on the stack. */
static double *read_list(lua_State *L, int idx, const char *field, const char *fname, int *count) {
    if (lua_getfield(L, idx, field) != LUA_TTABLE)
        lucid_lua_fail(L, fname, "mesh.%s must be a list of {x, y, z} / {i, j, k} (got %s)", field,
                       lucid_lua_typename(L, -1));
    lua_Integer n = luaL_len(L, -1);
    if (n > (1 << 26)) lucid_lua_fail(L, fname, "mesh.%s has too many entries (%I)", field, n);
    *count = (int)n;
    double *buf = lua_newuserdatauv(L, sizeof(double) * 3 * (size_t)(n > 0 ? n : 1), 0);
    for (int i = 0; i < *count; ++i) {
        char what[48];
        snprintf(what, sizeof what, "mesh.%s[%d]", field, i + 1);
        lua_geti(L, -2, i + 1);
        lucid_lua_checkvalues(L, -1, 3, buf + 3 * i, fname, what);
        lua_pop(L, 1);
    }
    lua_remove(L, -2); /* the list */
    return buf;
}

/* The mesh table's triangles: 1-based integers into a 0-based int buffer (a userdata). */
static int *read_triangles(lua_State *L, int idx, const char *fname, int *count) {
    double *values = read_list(L, idx, "triangles", fname, count);
    int *tris = lua_newuserdatauv(L, sizeof(int) * 3 * (size_t)(*count > 0 ? *count : 1), 0);
    for (int i = 0; i < 3 * *count; ++i) {
        double v = values[i];
        if (!(fabs(v) <= INT32_MAX && v == floor(v))) /* range first: (int) of 1e20 is UB */
            lucid_lua_fail(L, fname, "mesh.triangles[%d] must hold integer vertex indices",
                           i / 3 + 1);
        tris[i] = (int)v - 1;
    }
    return tris;
}

static void push_parts(lua_State *L, const lucid_decomposition *d, const char *fname) {
    lua_createtable(L, d->num_parts, 0);
    for (int p = 0; p < d->num_parts; ++p) {
        lua_createtable(L, 0, 1);
        int begin = d->part_offsets[p], n = d->part_offsets[p + 1] - begin;
        lucid_lua_push_convex(L, d->points + 3 * (size_t)begin, n, fname);
        lua_setfield(L, -2, "shape");
        lua_rawseti(L, -2, p + 1);
    }
    lua_createtable(L, 0, 4);
    lucid_lua_set_number(L, "mesh_volume", d->mesh_volume);
    lucid_lua_set_number(L, "parts_volume", d->parts_volume);
    lucid_lua_set_integer(L, "holes_closed", d->holes_closed);
    lucid_lua_set_integer(L, "hole_edges", d->hole_edges);
}

/* A Lua warning (shown after warn("@on")) that the mesh's holes were capped: the parts are
 * of a closed surface the file does not hold. */
static void warn_holes(lua_State *L, const lucid_decomposition *d, const char *fname,
                       const char *what) {
    if (d->holes_closed == 0) return;
    char msg[512];
    snprintf(msg, sizeof msg,
             "%s: warning: %.200s: closed %d hole%s (%d edges; their vertices within %.3g of "
             "their planes) before decomposing; holes = \"refuse\" refuses an open mesh",
             fname, what, d->holes_closed, d->holes_closed == 1 ? "" : "s", d->hole_edges,
             d->hole_deviation);
    lua_warning(L, msg, 0);
}

/* parts, info = lucid.mesh.decompose(path_or_mesh [, {max_parts=, concavity=, holes=, scale=}]) */
static int l_decompose(lua_State *L) {
    const char *fname = "lucid.mesh.decompose";
    lua_settop(L, 2);
    double scale;
    lucid_decompose_options o = read_options(L, 2, fname, &scale);
    holder *h = push_holder(L);
    const double *points;
    const int *tris;
    int np, nt;
    char err[512];
    if (lua_type(L, 1) == LUA_TSTRING) {
        const char *path = lua_tostring(L, 1);
        lucid_status st = lucid_mesh_file_read_triangles(path, scale, &h->points, &np,
                                                         &h->triangles, &nt, err, sizeof err);
        if (st != LUCID_OK) lucid_lua_fail(L, fname, "%s", err);
        points = h->points;
        tris = h->triangles;
    } else if (lua_istable(L, 1)) {
        static const char *const keys[] = {"vertices", "triangles", NULL};
        lucid_lua_check_option_names_prefixed(L, 1, keys, fname, "mesh.");
        double *v = read_list(L, 1, "vertices", fname, &np);
        for (int i = 0; i < 3 * np; ++i) v[i] *= scale;
        points = v;
        tris = read_triangles(L, 1, fname, &nt);
    } else {
        return lucid_lua_fail(L, fname,
                              "expected a mesh file path or a {vertices=, triangles=} table "
                              "(got %s)",
                              lucid_lua_typename(L, 1));
    }
    lucid_status st = lucid_mesh_decompose(points, np, tris, nt, &o, &h->result, err, sizeof err);
    if (st != LUCID_OK) {
        if (lua_type(L, 1) == LUA_TSTRING)
            return lucid_lua_fail(L, fname, "%s: %s", lua_tostring(L, 1), err);
        return lucid_lua_fail(L, fname, "%s", err);
    }
    warn_holes(L, &h->result, fname, lua_type(L, 1) == LUA_TSTRING ? lua_tostring(L, 1) : "mesh");
    push_parts(L, &h->result, fname);
    return 2;
}

void lucid_open_mesh(lua_State *L) {
    static const luaL_Reg functions[] = {{"decompose", l_decompose}, {NULL, NULL}};
    static const luaL_Reg metamethods[] = {{"__gc", holder_gc}, {NULL, NULL}};
    lucid_lua_push_metatable(L, HOLDER_METATABLE, metamethods, NULL);
    lua_pop(L, 1);
    luaL_newlib(L, functions);
    lua_setfield(L, -2, "mesh");
}
