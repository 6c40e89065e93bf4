/* w:step_derivatives([opts]) (docs/step_derivatives.md; C: runtime/world/step_derivatives.h):
 * steps the world once and returns D = {A = dx+/dx, B = dx+/du, params = {dx+/dtheta_k ...},
 * contacts = {{mode =, margin =, switched =}, ...}, fallback_columns =, rank_deficient =,
 * free_velocity =}.
 * opts: method ("implicit" | "relaxed" | "finite_differences"), step, tol, max_iter, threshold,
 * kappa, params (a list of {body = id, "mass" | "friction" | "restitution" | "torsion" |
 * "rolling"}, {"compliance"},
 * {body = id, "size", part = k, index = i} (a shape size, the sizes
 * runtime/world/step_derivatives.c counts), {model = id, link = name, "mass"}, {model = id, joint =
 * name, "damping" | "frictionloss" | "armature"}, {model = id, tendon = name, "frictionloss" |
 * "damping" | "stiffness"} and
 * {model = id, geom = name, "torsion" | "rolling"}),
 * geometry ("auto" | "carried" | "collide": how position and parameter columns get their contacts)
 * and collision (the estimator table of lucid.distance_derivatives for contacts without an exact
 * geometry derivative). D.geometry says which was used, D.contacts[k].estimated whether that
 * contact's geometry derivative came from the estimator. */
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/world/step_derivatives.h"
#include "runtime/model/model.h"
#include "runtime/lua/check.h"
#include "runtime/lua/lua_derivative_options.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_options.h"
#include "runtime/lua/lua_world.h"

static const char *const FNAME = "lucid.world:step_derivatives";

/* Entries of parameter table t other than [1] and the keys of the NULL-terminated list fail. */
static void check_param_keys(lua_State *L, int t, int k, const char *fname,
                             const char *const *keys) {
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        int ok = (lua_isinteger(L, -1) && lua_tointeger(L, -1) == 1);
        const char *key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        for (int i = 0; key && !ok && keys[i]; ++i) ok = strcmp(key, keys[i]) == 0;
        if (!ok) lucid_lua_fail(L, fname, "params[%d]: unknown entry", k);
    }
}

/* Optional integer field `key` of parameter table t, from 1 (default 1), returned from 0. */
static int optional_index(lua_State *L, int t, int k, const char *fname, const char *key) {
    char prefix[32];
    snprintf(prefix, sizeof prefix, "params[%d].", k);
    lucid_lua_fields f = lucid_lua_fields_at(L, t, fname, prefix);
    return (int)lucid_lua_integer_field(&f, key, 1, 1, 1000000) - 1;
}

/* A model's geom by name, -1 if none. */
static int find_geom(const lucid_model *m, const char *name) {
    const lucid_model_geom *g = lucid_model_geoms(m);
    for (size_t i = 0; i < lucid_model_ngeoms(m); ++i)
        if (g[i].name && strcmp(g[i].name, name) == 0) return (int)i;
    return -1;
}

/* {model = id, link = name, "mass"}, {model = id, joint = name, "damping" | "frictionloss" |
 * "armature"}, {model = id, tendon = name, "frictionloss" | "damping" | "stiffness"} or
 * {model = id, geom = name, "torsion" | "rolling"} at t. */
static lucid_step_param read_model_param(lua_State *L, lucid_world *w, int t, int k,
                                         const char *fname) {
    lua_rawgeti(L, t, 1);
    const char *kind = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    int mass = strcmp(kind, "mass") == 0, damping = strcmp(kind, "damping") == 0;
    int frictionloss = strcmp(kind, "frictionloss") == 0, armature = strcmp(kind, "armature") == 0;
    int torsion = strcmp(kind, "torsion") == 0, rolling = strcmp(kind, "rolling") == 0;
    int stiffness = strcmp(kind, "stiffness") == 0;
    lua_pop(L, 1);
    lua_getfield(L, t, "tendon");
    int tendon = (frictionloss || damping || stiffness) && !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!mass && !damping && !frictionloss && !armature && !torsion && !rolling && !tendon)
        lucid_lua_fail(L, fname,
                       "params[%d][1] must be \"mass\" (with link =), \"damping\", "
                       "\"frictionloss\" or \"armature\" (with joint =), \"frictionloss\", "
                       "\"damping\" or \"stiffness\" (with tendon =) or \"torsion\" or "
                       "\"rolling\" (with geom =) for a model",
                       k);
    const char *key = mass ? "link" : tendon ? "tendon" : torsion || rolling ? "geom" : "joint";
    const char *const keys[] = {"model", key, NULL};
    check_param_keys(L, t, k, fname, keys);
    lua_getfield(L, t, "model");
    if (!lua_isinteger(L, -1)) lucid_lua_fail(L, fname, "params[%d].model must be a model id", k);
    lua_Integer id = lua_tointeger(L, -1);
    lua_pop(L, 1);
    const lucid_model *m =
        id >= 1 && id <= lucid_world_model_count(w) ? lucid_world_model_of(w, (int)id - 1) : NULL;
    if (!m) lucid_lua_fail(L, fname, "params[%d]: unknown model id %I", k, id);
    lua_getfield(L, t, key);
    if (lua_type(L, -1) != LUA_TSTRING)
        lucid_lua_fail(L, fname, "params[%d].%s must be a %s name", k, key, key);
    const char *name = lua_tostring(L, -1);
    int index = mass                 ? lucid_model_find_body(m, name)
                : tendon             ? lucid_model_find_tendon(m, name)
                : torsion || rolling ? find_geom(m, name)
                                     : lucid_model_find_joint(m, name);
    if (index < 0) lucid_lua_fail(L, fname, "params[%d]: the model has no %s \"%s\"", k, key, name);
    lua_pop(L, 1);
    lucid_step_param p = {mass                  ? LUCID_STEP_PARAM_LINK_MASS
                          : tendon && damping   ? LUCID_STEP_PARAM_TENDON_DAMPING
                          : tendon && stiffness ? LUCID_STEP_PARAM_TENDON_STIFFNESS
                          : tendon              ? LUCID_STEP_PARAM_TENDON_FRICTIONLOSS
                          : damping             ? LUCID_STEP_PARAM_JOINT_DAMPING
                          : armature            ? LUCID_STEP_PARAM_JOINT_ARMATURE
                          : torsion             ? LUCID_STEP_PARAM_GEOM_TORSION
                          : rolling             ? LUCID_STEP_PARAM_GEOM_ROLLING
                                                : LUCID_STEP_PARAM_JOINT_FRICTIONLOSS,
                          -1, (int)id - 1, index, -1};
    return p;
}

/* One parameter entry {body = id, "kind"} (or a model's, above) at the top of the stack. */
static lucid_step_param read_param(lua_State *L, lucid_world *w, int k, const char *fname) {
    /* in the order of lucid_step_param_kind, the model's kinds (read above) left out */
    static const char *const kinds[] = {"mass", "friction", "restitution", "compliance", NULL};
    int t = lua_gettop(L);
    if (!lua_istable(L, t))
        lucid_lua_fail(L, fname, "params[%d] must be a table like {body = id, \"mass\"}", k);
    lua_getfield(L, t, "model");
    int has_model = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (has_model) return read_model_param(L, w, t, k, fname);
    lua_rawgeti(L, t, 1);
    const char *name = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    int kind = -1;
    for (int i = 0; name && kinds[i]; ++i)
        if (strcmp(name, kinds[i]) == 0) kind = i;
    if (name && strcmp(name, "size") == 0) kind = LUCID_STEP_PARAM_SIZE;
    if (name && strcmp(name, "torsion") == 0) kind = LUCID_STEP_PARAM_TORSION;
    if (name && strcmp(name, "rolling") == 0) kind = LUCID_STEP_PARAM_ROLLING;
    if (kind < 0)
        lucid_lua_fail(L, fname,
                       "params[%d][1] must be \"mass\", \"friction\", \"restitution\", "
                       "\"torsion\", \"rolling\", \"size\" or \"compliance\" (or a model's "
                       "\"mass\", "
                       "\"damping\", \"frictionloss\", \"armature\" with model =)",
                       k);
    lua_pop(L, 1);
    lucid_step_param p = {(lucid_step_param_kind)kind, -1, -1, -1, -1};
    if (kind == LUCID_STEP_PARAM_SIZE) {
        p.part = optional_index(L, t, k, fname, "part");
        p.index = optional_index(L, t, k, fname, "index");
    }
    lua_getfield(L, t, "body");
    if (kind != LUCID_STEP_PARAM_COMPLIANCE) {
        if (!lua_isinteger(L, -1)) lucid_lua_fail(L, fname, "params[%d].body must be a body id", k);
        lua_Integer id = lua_tointeger(L, -1);
        if (id < 1 || id > lucid_world_body_count(w))
            lucid_lua_fail(L, fname, "params[%d]: unknown body id %I", k, id);
        p.body = (int)id - 1;
    }
    lua_pop(L, 1);
    const char *const body_keys[] = {"body", NULL}, *const size_keys[] = {"body", "part", "index",
                                                                          NULL};
    check_param_keys(L, t, k, fname, kind == LUCID_STEP_PARAM_SIZE ? size_keys : body_keys);
    return p;
}

/* opts.collision (into e and gjk, which o->collision then points to). */
static void read_collision(lua_State *L, int idx, lucid_step_derivative_options *o,
                           lucid_derivative_options *e, lucid_gjk_options *gjk) {
    lua_getfield(L, idx, "collision");
    if (!lua_isnil(L, -1)) {
        lucid_lua_read_derivative_options(L, -1, FNAME, "collision.", e, gjk);
        o->collision = e;
    }
    lua_pop(L, 1);
}

/* The options table at idx into o (lucid_step_derivative_option_table, params, collision);
 * params into a userdata buffer left on the stack. */
static void read_options(lua_State *L, int idx, lucid_world *w, lucid_step_derivative_options *o,
                         lucid_derivative_options *e, lucid_gjk_options *gjk) {
    static const char *const nested[] = {"params", "collision", NULL};
    lucid_step_derivative_default_options(o);
    if (!lucid_lua_read_options(L, idx, FNAME, "opts", lucid_step_derivative_option_table, nested,
                                o))
        return;
    idx = lua_absindex(L, idx);
    read_collision(L, idx, o, e, gjk);
    lua_getfield(L, idx, "params");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    if (!lua_istable(L, -1)) lucid_lua_fail(L, FNAME, "params must be a list of tables");
    int t = lua_gettop(L), n = (int)luaL_len(L, t);
    if (n > 100000) lucid_lua_fail(L, FNAME, "too many params");
    lucid_step_param *p = lua_newuserdatauv(L, sizeof *p * (size_t)(n > 0 ? n : 1), 0);
    for (int k = 1; k <= n; ++k) {
        lua_rawgeti(L, t, k);
        p[k - 1] = read_param(L, w, k, FNAME);
        lua_pop(L, 1);
    }
    o->params = p, o->num_params = n;
    lua_remove(L, t); /* the buffer stays on the stack */
}

static void push_matrix(lua_State *L, const double *data, int rows, int cols) {
    lucid_lua_matrix *m = lucid_lua_newmatrix(L, rows, cols);
    if (rows > 0 && cols > 0) memcpy(m->data, data, sizeof(double) * (size_t)rows * (size_t)cols);
}

static void push_result(lua_State *L, const lucid_step_jacobians *J) {
    lua_createtable(L, 0, 6);
    push_matrix(L, J->A, J->nt, J->nt);
    lua_setfield(L, -2, "A");
    push_matrix(L, J->B, J->nt, J->nu);
    lua_setfield(L, -2, "B");
    lua_createtable(L, J->np, 0);
    for (int k = 0; k < J->np; ++k) {
        push_matrix(L, J->P + (size_t)J->nt * (size_t)k, J->nt, 1);
        lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, -2, "params");
    lua_createtable(L, J->contacts, 0);
    for (int k = 0; k < J->contacts; ++k) {
        lua_createtable(L, 0, 3);
        lucid_lua_set_string(L, "mode", lucid_contact_mode_name(J->mode[k]));
        lucid_lua_set_number(L, "margin", J->margin[k]);
        lucid_lua_set_boolean(L, "switched", J->switched[k]);
        lucid_lua_set_boolean(L, "estimated", J->estimated && J->estimated[k]);
        lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, -2, "contacts");
    lucid_lua_set_integer(L, "fallback_columns", J->fallback_columns);
    lucid_lua_set_boolean(L, "rank_deficient", J->rank_deficient);
    lucid_lua_set_number(L, "free_velocity", J->free_velocity);
    /* a single_level world's derivatives have their own geometry (no estimated flags) */
    lucid_lua_set_string(L, "geometry",
                         !J->estimated ? "single_level"
                         : J->carried  ? "carried"
                                       : "collide");
}

static int l_step_derivatives(lua_State *L) {
    lucid_world *w = lucid_lua_checkworld(L, 1, FNAME);
    lucid_step_derivative_options o;
    lucid_derivative_options e;
    lucid_gjk_options gjk;
    read_options(L, 2, w, &o, &e, &gjk);
    lucid_step_jacobians J;
    const char *why = NULL;
    lucid_status s = lucid_world_step_derivatives(w, &o, &J, &why);
    if (s != LUCID_OK) {
        const char *step_why = lucid_world_last_error(w);
        lucid_lua_fail(L, FNAME, "%s",
                       why ? why : (step_why && *step_why ? step_why : lucid_status_string(s)));
    }
    push_result(L, &J);
    lucid_step_jacobians_free(&J);
    return 1;
}

/* A parameter spec {body = id, "mass"} at idx, for w:param / w:set_param. */
static lucid_step_param check_param_arg(lua_State *L, lucid_world *w, int idx, const char *fname) {
    if (!lua_istable(L, idx))
        lucid_lua_fail(L, fname, "parameter must be a table like {body = id, \"mass\"} (got %s)",
                       lucid_lua_typename(L, idx));
    lua_pushvalue(L, idx);
    lucid_step_param p = read_param(L, w, 1, fname);
    lua_pop(L, 1);
    return p;
}

static int l_param(lua_State *L) {
    static const char *const fname = "lucid.world:param";
    lucid_world *w = lucid_lua_checkworld(L, 1, fname);
    lucid_step_param p = check_param_arg(L, w, 2, fname);
    double v;
    const char *why = NULL;
    if (lucid_step_param_get(w, &p, &v, &why) != LUCID_OK) lucid_lua_fail(L, fname, "%s", why);
    lua_pushnumber(L, v);
    return 1;
}

static int l_set_param(lua_State *L) {
    static const char *const fname = "lucid.world:set_param";
    lucid_world *w = lucid_lua_checkworld(L, 1, fname);
    lucid_step_param p = check_param_arg(L, w, 2, fname);
    double v = lucid_lua_checkfinite(L, 3, fname, "value");
    const char *why = NULL;
    if (lucid_step_param_set(w, &p, v, &why) != LUCID_OK) lucid_lua_fail(L, fname, "%s", why);
    return 0;
}

static int l_state_jacobians(lua_State *L) {
    static const char *const fname = "lucid.world:state_jacobians";
    lucid_world *w = lucid_lua_checkworld(L, 1, fname);
    lua_settop(L, 2);
    int nx = lucid_world_state_size(w), nt = lucid_world_tangent_size(w);
    const double *x = lucid_lua_readvalues(L, 2, (size_t)nx, fname, "x");
    lucid_lua_matrix *E = lucid_lua_newmatrix(L, nx, nt);
    lucid_lua_matrix *Lm = lucid_lua_newmatrix(L, nt, nx);
    lucid_status s = lucid_world_state_jacobians(w, x, E->data, Lm->data);
    if (s != LUCID_OK)
        lucid_lua_fail(L, fname, "%s",
                       s == LUCID_ERR_ARGUMENT ? "x holds a zero quaternion"
                                               : lucid_status_string(s));
    return 2;
}

void lucid_lua_world_derivative_methods(lua_State *L) {
    static const luaL_Reg methods[] = {{"step_derivatives", l_step_derivatives},
                                       {"param", l_param},
                                       {"set_param", l_set_param},
                                       {"state_jacobians", l_state_jacobians},
                                       {NULL, NULL}};
    luaL_setfuncs(L, methods, 0);
}
