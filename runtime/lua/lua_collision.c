/* Lua bindings of collision queries: lucid.distance, lucid.collide, lucid.distance_batch.
 *
 *   r = lucid.distance(s1, T1, s2, T2 [, opts])       signed distance (EPA when overlapping)
 *   hit, r = lucid.collide(s1, T1, s2, T2 [, opts])   Boolean with early exit; r.distance is
 *                                                     only a bound there (see docs/collision.md)
 *   d, it = lucid.distance_batch(s1, s2, X1, X2 [, opts])   N queries in one C call
 *
 * opts: algorithm ("gjk" | "polyak" | "nesterov"), normalize, tol, tol_mode ("absolute" |
 * "relative"), max_iter, warm_start (a 3-vector or a previous result), epa_tol, epa_max_iter;
 * distance_batch also takes chain (warm-start each query from the previous one). Unknown
 * option names are errors, so a typo never silently falls back to a default.
 * Result: distance, p1, p2, normal, iterations, converged, penetrating, epa_iterations, gap and
 * separation (the core separation vector a later warm_start = r reads). */
#include <lauxlib.h>
#include <limits.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_se3.h"
#include "runtime/lua/lua_shape.h"
#include "runtime/lua/modules.h"
#include "solvers/collision/distance_batch.h"

static const char *const SINGLE_OPTIONS[] = {"algorithm", "normalize",    "tol",
                                             "tol_mode",  "max_iter",     "warm_start",
                                             "epa_tol",   "epa_max_iter", NULL};
static const char *const BATCH_OPTIONS[] = {"algorithm", "normalize",  "tol",     "tol_mode",
                                            "max_iter",  "warm_start", "epa_tol", "epa_max_iter",
                                            "chain",     NULL};

static int in_list(const char *name, const char *const *list) {
    for (int i = 0; list[i]; ++i)
        if (strcmp(name, list[i]) == 0) return 1;
    return 0;
}

/* Every key of the options table must be a known option name. */
static void check_option_names(lua_State *L, int idx, const char *fname,
                               const char *const *allowed) {
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            lucid_lua_fail(L, fname, "option names must be strings (got %s)", luaL_typename(L, -1));
        const char *name = lua_tostring(L, -1);
        if (!in_list(name, allowed)) lucid_lua_fail(L, fname, "unknown option '%s'", name);
    }
}

/* Pushes opts[name]; returns 0 (and pops it) when it is nil. */
static int push_option(lua_State *L, int idx, const char *name) {
    if (lua_getfield(L, idx, name) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    return 0;
}

static lucid_gjk_algorithm check_algorithm(lua_State *L, const char *fname) {
    if (lua_type(L, -1) != LUA_TSTRING)
        lucid_lua_fail(L, fname, "algorithm must be a string (got %s)", luaL_typename(L, -1));
    const char *name = lua_tostring(L, -1);
    if (strcmp(name, "gjk") == 0) return LUCID_GJK_VANILLA;
    if (strcmp(name, "polyak") == 0) return LUCID_GJK_POLYAK;
    if (strcmp(name, "nesterov") == 0) return LUCID_GJK_NESTEROV;
    lucid_lua_fail(L, fname,
                   "unknown algorithm '%s' (expected \"gjk\", \"polyak\" or \"nesterov\")", name);
    return LUCID_GJK_VANILLA;
}

static lucid_gjk_tolerance check_tol_mode(lua_State *L, const char *fname) {
    const char *name = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    if (strcmp(name, "absolute") == 0) return LUCID_GJK_TOL_ABSOLUTE;
    if (strcmp(name, "relative") == 0) return LUCID_GJK_TOL_RELATIVE;
    lucid_lua_fail(L, fname, "tol_mode must be \"absolute\" or \"relative\"");
    return LUCID_GJK_TOL_ABSOLUTE;
}

static int check_boolean(lua_State *L, const char *fname, const char *what) {
    if (!lua_isboolean(L, -1))
        lucid_lua_fail(L, fname, "%s must be a boolean (got %s)", what, luaL_typename(L, -1));
    return lua_toboolean(L, -1);
}

/* warm_start: a previous result table (its separation field) or a 3-vector (vec or table). */
static void check_warm_start(lua_State *L, const char *fname, lucid_gjk_options *opt) {
    if (lua_type(L, -1) == LUA_TTABLE) {
        int has_separation = lua_getfield(L, -1, "separation") != LUA_TNIL;
        if (has_separation) {
            opt->warm_start = LUCID_WARM_VECTOR;
            opt->warm_vector = lucid_lua_checkvec3(L, -1, fname, "warm_start.separation");
            lua_pop(L, 1);
            return;
        }
        lua_pop(L, 1);
    } else if (!lucid_lua_tomatrix(L, -1)) {
        lucid_lua_fail(L, fname, "warm_start must be a 3-vector or a previous result (got %s)",
                       luaL_typename(L, -1));
    }
    opt->warm_start = LUCID_WARM_VECTOR;
    opt->warm_vector = lucid_lua_checkvec3(L, -1, fname, "warm_start");
}

/* Reads the number / integer options (each value is on top of the stack when checked). */
static void read_numeric_options(lua_State *L, int idx, const char *fname, lucid_gjk_options *opt) {
    if (push_option(L, idx, "tol")) {
        opt->tol = lucid_lua_checkfinite(L, -1, fname, "tol");
        if (!(opt->tol > 0.0)) lucid_lua_fail(L, fname, "tol must be > 0 (got %f)", opt->tol);
        lua_pop(L, 1);
    }
    if (push_option(L, idx, "max_iter")) {
        opt->max_iter = (int)lucid_lua_checkinteger_range(L, -1, 1, INT_MAX, fname, "max_iter");
        lua_pop(L, 1);
    }
    if (push_option(L, idx, "epa_tol")) {
        opt->epa_tol = lucid_lua_checkfinite(L, -1, fname, "epa_tol");
        if (!(opt->epa_tol >= 0.0))
            lucid_lua_fail(L, fname, "epa_tol must be >= 0 (got %f)", opt->epa_tol);
        lua_pop(L, 1);
    }
    if (push_option(L, idx, "epa_max_iter")) {
        opt->epa_max_iter =
            (int)lucid_lua_checkinteger_range(L, -1, 1, LUCID_EPA_MAX_ITER, fname, "epa_max_iter");
        lua_pop(L, 1);
    }
}

/* GJK options from the table at idx (absent or nil: defaults); *chain receives opts.chain. */
static void read_options(lua_State *L, int idx, const char *fname, const char *const *allowed,
                         lucid_gjk_options *opt, int *chain) {
    lucid_gjk_options_default(opt);
    if (chain) *chain = 0;
    if (lua_isnoneornil(L, idx)) return;
    if (!lua_istable(L, idx))
        lucid_lua_fail(L, fname, "opts must be a table (got %s)", luaL_typename(L, idx));
    check_option_names(L, idx, fname, allowed);
    if (push_option(L, idx, "algorithm")) {
        opt->algorithm = check_algorithm(L, fname);
        lua_pop(L, 1);
    }
    if (push_option(L, idx, "normalize")) {
        opt->normalize = check_boolean(L, fname, "normalize");
        lua_pop(L, 1);
    }
    if (push_option(L, idx, "tol_mode")) {
        opt->tol_mode = check_tol_mode(L, fname);
        lua_pop(L, 1);
    }
    if (push_option(L, idx, "warm_start")) {
        check_warm_start(L, fname, opt);
        lua_pop(L, 1);
    }
    if (chain && push_option(L, idx, "chain")) {
        *chain = check_boolean(L, fname, "chain");
        lua_pop(L, 1);
    }
    read_numeric_options(L, idx, fname, opt);
}

static void check_not_two_halfspaces(lua_State *L, const char *fname, const lucid_shape *s1,
                                     const lucid_shape *s2) {
    if (s1->kind == LUCID_SHAPE_HALFSPACE && s2->kind == LUCID_SHAPE_HALFSPACE)
        lucid_lua_fail(L, fname, "s1 and s2 are both halfspaces (their distance is undefined)");
}

static void set_vec3(lua_State *L, const char *name, lucid_vec3 v) {
    lucid_lua_pushvec3(L, v);
    lua_setfield(L, -2, name);
}

static void push_result(lua_State *L, const lucid_distance_result *r) {
    lua_createtable(L, 0, 10);
    lua_pushnumber(L, r->distance);
    lua_setfield(L, -2, "distance");
    set_vec3(L, "p1", r->p1);
    set_vec3(L, "p2", r->p2);
    set_vec3(L, "normal", r->normal);
    lua_pushinteger(L, r->iterations);
    lua_setfield(L, -2, "iterations");
    lua_pushboolean(L, r->converged);
    lua_setfield(L, -2, "converged");
    lua_pushboolean(L, r->penetrating);
    lua_setfield(L, -2, "penetrating");
    lua_pushinteger(L, r->epa_iterations);
    lua_setfield(L, -2, "epa_iterations");
    lua_pushnumber(L, r->gap);
    lua_setfield(L, -2, "gap");
    set_vec3(L, "separation", r->separation);
}

typedef struct pair_query {
    const lucid_shape *s1, *s2;
    const lucid_se3 *T1, *T2;
    lucid_gjk_options opt;
} pair_query;

/* Arguments (s1, T1, s2, T2 [, opts]) of lucid.distance and lucid.collide. */
static void check_pair_query(lua_State *L, const char *fname, pair_query *q) {
    q->s1 = lucid_lua_checkshape(L, 1, fname, "s1");
    q->T1 = lucid_lua_checkse3(L, 2, fname, "T1");
    q->s2 = lucid_lua_checkshape(L, 3, fname, "s2");
    q->T2 = lucid_lua_checkse3(L, 4, fname, "T2");
    read_options(L, 5, fname, SINGLE_OPTIONS, &q->opt, NULL);
    check_not_two_halfspaces(L, fname, q->s1, q->s2);
}

static int l_distance(lua_State *L) {
    const char *fname = "lucid.distance";
    pair_query q;
    check_pair_query(L, fname, &q);
    lucid_distance_result r;
    lucid_status st = lucid_distance(q.s1, q.T1, q.s2, q.T2, &q.opt, &r);
    if (st != LUCID_OK) return lucid_lua_fail_status(L, fname, st);
    push_result(L, &r);
    return 1;
}

static int l_collide(lua_State *L) {
    const char *fname = "lucid.collide";
    pair_query q;
    check_pair_query(L, fname, &q);
    lucid_distance_result r;
    int hit = 0;
    lucid_status st = lucid_collide(q.s1, q.T1, q.s2, q.T2, &q.opt, &hit, &r);
    if (st != LUCID_OK) return lucid_lua_fail_status(L, fname, st);
    lua_pushboolean(L, hit);
    push_result(L, &r);
    return 2;
}

/* A 7 x n pose matrix at idx. */
static const lucid_lua_matrix *check_poses(lua_State *L, int idx, const char *fname,
                                           const char *what) {
    const lucid_lua_matrix *X = lucid_lua_checkmatrix(L, idx, fname, what);
    if (X->rows != LUCID_POSE_ROWS)
        lucid_lua_fail(L, fname,
                       "%s must be 7 x N (quaternion w, x, y, z and translation per column), "
                       "got %d x %d",
                       what, X->rows, X->cols);
    return X;
}

static int fail_batch(lua_State *L, const char *fname, lucid_status st,
                      const lucid_batch_error *e) {
    if (e->which < 1) return lucid_lua_fail_status(L, fname, st);
    return lucid_lua_fail(L, fname, "X%d column %d is not a pose: %s", e->which, e->column + 1,
                          st == LUCID_ERR_NONFINITE ? "it contains NaN or Inf"
                                                    : "its quaternion is zero");
}

static int l_distance_batch(lua_State *L) {
    const char *fname = "lucid.distance_batch";
    const lucid_shape *s1 = lucid_lua_checkshape(L, 1, fname, "s1");
    const lucid_shape *s2 = lucid_lua_checkshape(L, 2, fname, "s2");
    const lucid_lua_matrix *X1 = check_poses(L, 3, fname, "X1");
    const lucid_lua_matrix *X2 = check_poses(L, 4, fname, "X2");
    if (X1->cols != X2->cols)
        lucid_lua_fail(L, fname, "X1 and X2 must have the same number of columns (%d vs %d)",
                       X1->cols, X2->cols);
    lucid_gjk_options opt;
    int chain = 0;
    read_options(L, 5, fname, BATCH_OPTIONS, &opt, &chain);
    check_not_two_halfspaces(L, fname, s1, s2);
    int n = X1->cols;
    /* Outputs and the iteration scratch are owned by Lua before the C call. */
    lucid_lua_matrix *d = lucid_lua_newvector(L, n);
    lucid_lua_matrix *it = lucid_lua_newvector(L, n);
    int *counts = lua_newuserdatauv(L, sizeof(int) * (size_t)(n > 0 ? n : 1), 0);
    lucid_batch_error e;
    lucid_status st =
        lucid_distance_batch(s1, s2, X1->data, X2->data, n, &opt, chain, d->data, counts, &e);
    if (st != LUCID_OK) return fail_batch(L, fname, st, &e);
    for (int i = 0; i < n; ++i) it->data[i] = counts[i];
    lua_pop(L, 1);
    return 2;
}

void lucid_open_collision(lua_State *L) {
    static const luaL_Reg functions[] = {{"distance", l_distance},
                                         {"collide", l_collide},
                                         {"distance_batch", l_distance_batch},
                                         {NULL, NULL}};
    luaL_setfuncs(L, functions, 0);
}
