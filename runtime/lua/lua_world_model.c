/* Robots in the world from Lua (docs/world.md "Robots in the world"; C side
 * runtime/world/world_model.c):
 *   id = w:add_model(m [, {q=, v=, act=, pose=, friction=, restitution=}])   (model ids 1-based,
 *        their own numbering; the links become world bodies, see w:links(id))
 *   w:q(id), w:v(id), w:set_q(id, q), w:set_v(id, v), w:control(id), w:set_control(id, u),
 *   w:act(id), w:set_act(id, act)   (the actuator activations, m.na of them)
 *   w:frame_pose(id, name) -> se3;  w:links(id) -> {name = body id, ...}
 *   w:mocap(id, body) -> se3;  w:set_mocap(id, body, pose)   (body: a mocap body's name or
 *        1-based index in m:names("mocap"); poses in the model's frame, world.h)
 *   w:sensors(id) -> lucid.vec of the model's sensor values (m:sensors(), world.h)
 * The world keeps the model userdata alive (in its uservalue) as long as it exists. */
#include <lauxlib.h>
#include <limits.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_model.h"
#include "runtime/lua/lua_options.h"
#include "runtime/lua/lua_se3.h"
#include "runtime/lua/lua_world.h"
#include "runtime/model/configuration.h"
#include "runtime/world/world.h"

/* A model id (1-based) at idx, returned 0-based. */
static int check_model_id(lua_State *L, const lucid_world *w, int idx, const char *fname) {
    int count = lucid_world_model_count(w);
    if (!lua_isinteger(L, idx))
        lucid_lua_fail(L, fname, "model id must be an integer (got %s)",
                       lucid_lua_typename(L, idx));
    lua_Integer id = lua_tointeger(L, idx);
    if (id < 1 || id > count)
        lucid_lua_fail(L, fname, "unknown model id %I (the world has %d models)", id, count);
    return (int)id - 1;
}

/* add_model's option `key` (the table at 3) as n values copied into a buffer that stays on the
 * stack until the call returns, or NULL when absent. */
static const double *optional_values(lua_State *L, const char *key, size_t n, const char *fname) {
    if (lua_getfield(L, 3, key) == LUA_TNIL) {
        lua_pop(L, 1);
        return NULL;
    }
    const double *x = lucid_lua_readvalues(L, -1, n, fname, key);
    lua_remove(L, -2);
    return x;
}

static int l_add_model(lua_State *L) {
    static const char *const fname = "lucid.world:add_model";
    static const char *const keys[] = {"q", "v", "act", "pose", "friction", "restitution", NULL};
    lucid_world *w = lucid_lua_checkworld(L, 1, fname);
    lucid_model *m = lucid_lua_checkmodel(L, 2, fname, "model", NULL);
    lua_settop(L, 3);
    if (lua_isnil(L, 3)) {
        lua_newtable(L);
        lua_replace(L, 3);
    }
    if (lua_type(L, 3) != LUA_TTABLE)
        lucid_lua_fail(L, fname, "expected a table of options (got %s)", lucid_lua_typename(L, 3));
    lucid_lua_check_option_names(L, 3, keys, fname);
    lucid_world_model_desc d;
    lucid_world_model_desc_default(&d);
    d.q = optional_values(L, "q", lucid_model_nq(m), fname);
    d.v = optional_values(L, "v", lucid_model_nv(m), fname);
    d.act = optional_values(L, "act", lucid_model_na(m), fname);
    if (lua_getfield(L, 3, "pose") != LUA_TNIL) d.pose = *lucid_lua_checkpose(L, -1, fname, "pose");
    lua_pop(L, 1);
    lucid_lua_fields f = lucid_lua_fields_at(L, 3, fname, NULL);
    d.has_friction = lucid_lua_has_field(L, 3, "friction");
    d.friction = lucid_lua_number_field(&f, "friction", d.friction);
    d.restitution = lucid_lua_number_field(&f, "restitution", d.restitution);
    if (d.q && lucid_model_check_configuration(m, d.q, NULL) != LUCID_OK)
        lucid_lua_fail(L, fname, "q must be finite with non-zero quaternions");
    const char *why = NULL;
    int id = -1;
    lucid_status s = lucid_world_add_model(w, m, &d, &id, &why);
    if (s != LUCID_OK) {
        if (why) return lucid_lua_fail(L, fname, "%s", why);
        return lucid_lua_fail_status(L, fname, s);
    }
    /* the world refers to the model: keep it alive with the world's shapes */
    if (lua_getiuservalue(L, 1, 1) == LUA_TTABLE) {
        lua_pushvalue(L, 2);
        lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    }
    lua_pop(L, 1);
    lua_pushinteger(L, (lua_Integer)id + 1);
    return 1;
}

/* The length of a model's q (kind 0), v (1), controls (2) or activations (3). */
static size_t vector_size(const lucid_model *m, int kind) {
    return kind == 0   ? lucid_model_nq(m)
           : kind == 1 ? lucid_model_nv(m)
           : kind == 2 ? lucid_model_nu(m)
                       : lucid_model_na(m);
}

/* Pushes a copy of the model's q (kind 0), v (1), controls (2) or activations (3). */
static int get_vector(lua_State *L, const char *fname, int kind) {
    lucid_world *w = lucid_lua_checkworld(L, 1, fname);
    int id = check_model_id(L, w, 2, fname);
    const lucid_model *m = lucid_world_model_of(w, id);
    size_t n = vector_size(m, kind);
    const double *src = kind == 0   ? lucid_world_model_q(w, id)
                        : kind == 1 ? lucid_world_model_v(w, id)
                        : kind == 2 ? lucid_world_model_control(w, id)
                                    : lucid_world_model_act(w, id);
    lucid_lua_matrix *x = lucid_lua_newvector(L, (int)n);
    if (n) memcpy(x->data, src, n * sizeof(double));
    return 1;
}

static int l_q(lua_State *L) {
    return get_vector(L, "lucid.world:q", 0);
}
static int l_v(lua_State *L) {
    return get_vector(L, "lucid.world:v", 1);
}
static int l_control(lua_State *L) {
    return get_vector(L, "lucid.world:control", 2);
}
static int l_act(lua_State *L) {
    return get_vector(L, "lucid.world:act", 3);
}

typedef lucid_status (*setter)(lucid_world *, int, const double *, const char **);

static int set_vector(lua_State *L, const char *fname, const char *what, setter set, int kind) {
    lucid_world *w = lucid_lua_checkworld(L, 1, fname);
    int id = check_model_id(L, w, 2, fname);
    const lucid_model *m = lucid_world_model_of(w, id);
    size_t n = vector_size(m, kind);
    lua_settop(L, 3);
    double *x = lucid_lua_readvalues(L, 3, n, fname, what);
    const char *why = NULL;
    lucid_status s = set(w, id, x, &why);
    if (s != LUCID_OK) lucid_lua_fail(L, fname, "%s", why ? why : lucid_status_string(s));
    return 0;
}

static int l_set_q(lua_State *L) {
    return set_vector(L, "lucid.world:set_q", "q", lucid_world_model_set_q, 0);
}
static int l_set_v(lua_State *L) {
    return set_vector(L, "lucid.world:set_v", "v", lucid_world_model_set_v, 1);
}
static int l_set_control(lua_State *L) {
    return set_vector(L, "lucid.world:set_control", "u", lucid_world_model_set_control, 2);
}
static int l_set_act(lua_State *L) {
    return set_vector(L, "lucid.world:set_act", "act", lucid_world_model_set_act, 3);
}

static int l_frame_pose(lua_State *L) {
    static const char *const fname = "lucid.world:frame_pose";
    lucid_world *w = lucid_lua_checkworld(L, 1, fname);
    int id = check_model_id(L, w, 2, fname);
    if (lua_type(L, 3) != LUA_TSTRING)
        lucid_lua_fail(L, fname, "frame name must be a string (got %s)", lucid_lua_typename(L, 3));
    const char *name = lua_tostring(L, 3);
    int f = lucid_model_find_frame(lucid_world_model_of(w, id), name);
    if (f < 0) lucid_lua_fail(L, fname, "the model has no frame named '%s'", name);
    lucid_se3 T;
    lucid_world_model_frame_pose(w, id, (size_t)f, &T);
    lucid_lua_pushse3(L, &T);
    return 1;
}

/* A mocap body of model id at idx: its name or 1-based index, returned 0-based. */
static size_t check_mocap(lua_State *L, const lucid_world *w, int id, int idx, const char *fname) {
    const lucid_model *m = lucid_world_model_of(w, id);
    size_t n = lucid_model_nmocap(m);
    if (lua_type(L, idx) == LUA_TSTRING) {
        int k = lucid_model_find_mocap(m, lua_tostring(L, idx));
        if (k < 0)
            lucid_lua_fail(L, fname, "model %d has no mocap body named '%s' (it has %I)", id + 1,
                           lua_tostring(L, idx), (lua_Integer)n);
        return (size_t)k;
    }
    if (!lua_isinteger(L, idx))
        lucid_lua_fail(L, fname, "mocap body must be a name or a 1-based index (got %s)",
                       lucid_lua_typename(L, idx));
    lua_Integer i = lua_tointeger(L, idx);
    if (i < 1 || (lua_Unsigned)i > n)
        lucid_lua_fail(L, fname, "mocap index %I out of range (model %d has %I mocap bodies)", i,
                       id + 1, (lua_Integer)n);
    return (size_t)(i - 1);
}

static int l_mocap(lua_State *L) {
    static const char *const fname = "lucid.world:mocap";
    lucid_world *w = lucid_lua_checkworld(L, 1, fname);
    int id = check_model_id(L, w, 2, fname);
    size_t k = check_mocap(L, w, id, 3, fname);
    lucid_se3 T;
    lucid_world_model_mocap(w, id, k, &T);
    lucid_lua_pushse3(L, &T);
    return 1;
}

static int l_set_mocap(lua_State *L) {
    static const char *const fname = "lucid.world:set_mocap";
    lucid_world *w = lucid_lua_checkworld(L, 1, fname);
    int id = check_model_id(L, w, 2, fname);
    size_t k = check_mocap(L, w, id, 3, fname);
    const lucid_se3 *T = lucid_lua_checkpose(L, 4, fname, "pose");
    const char *why = NULL;
    lucid_status s = lucid_world_model_set_mocap(w, id, k, T, &why);
    if (s != LUCID_OK) lucid_lua_fail(L, fname, "%s", why ? why : lucid_status_string(s));
    return 0;
}

/* {body name = world body id} for the model's links (and "static" for its fixed geoms, each
 * mocap body's name for its world body). */
static int l_links(lua_State *L) {
    static const char *const fname = "lucid.world:links";
    lucid_world *w = lucid_lua_checkworld(L, 1, fname);
    int id = check_model_id(L, w, 2, fname);
    const lucid_model *m = lucid_world_model_of(w, id);
    lua_newtable(L);
    for (int b = 0; b < lucid_world_body_count(w); ++b) {
        int link;
        if (lucid_world_body_model(w, b, &link) != id) continue;
        int mocap = lucid_world_body_mocap(w, b);
        lua_pushinteger(L, b + 1);
        lua_setfield(L, -2,
                     mocap >= 0 ? lucid_model_mocap_name(m, (size_t)mocap)
                     : link < 0 ? "static"
                                : lucid_model_body_name(m, (size_t)link));
    }
    return 1;
}

static int l_sensors(lua_State *L) {
    static const char *const fname = "lucid.world:sensors";
    lucid_world *w = lucid_lua_checkworld(L, 1, fname);
    int id = check_model_id(L, w, 2, fname);
    size_t n = lucid_model_nsensordata(lucid_world_model_of(w, id));
    if (n > (size_t)INT_MAX) lucid_lua_fail(L, fname, "too many sensor values");
    lucid_lua_matrix *y = lucid_lua_newvector(L, (int)n);
    lucid_status s = lucid_world_model_sensors(w, id, y->data);
    if (s != LUCID_OK) lucid_lua_fail_status(L, fname, s);
    return 1;
}

void lucid_lua_world_model_methods(lua_State *L) {
    static const luaL_Reg methods[] = {{"add_model", l_add_model},
                                       {"q", l_q},
                                       {"v", l_v},
                                       {"control", l_control},
                                       {"set_q", l_set_q},
                                       {"set_v", l_set_v},
                                       {"set_control", l_set_control},
                                       {"act", l_act},
                                       {"set_act", l_set_act},
                                       {"frame_pose", l_frame_pose},
                                       {"links", l_links},
                                       {"mocap", l_mocap},
                                       {"set_mocap", l_set_mocap},
                                       {"sensors", l_sensors},
                                       {NULL, NULL}};
    luaL_setfuncs(L, methods, 0);
}
