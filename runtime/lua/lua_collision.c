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
 * separation (the core separation vector a later warm_start = r reads).
 *
 * Differentiable queries: when T1 or T2 of lucid.distance is a differentiable lucid.ad pose,
 * opts.derivatives (a table: method, step, samples, noise, levels, seed, with the names and
 * meaning of lucid.distance_derivatives) chooses the derivative method, and distance, p1, p2
 * and normal of the result are differentiable values. The query runs once; its derivatives
 * w.r.t. the local twist of T2 come from lucid_distance_derivatives_from_query, those w.r.t.
 * T1 by invariance (autodiff/ad_distance.h). The random stream is opts.derivatives.seed: a
 * caller that wants one consistent linearisation per outer iteration passes the same seed
 * throughout it (tasks/contact_pose.lua changes it once per Gauss-Newton iteration). */
#include <lauxlib.h>
#include <limits.h>
#include <string.h>

#include "autodiff/ad_distance.h"
#include "autodiff/ad_ops.h"
#include "autodiff/ad_se3.h"
#include "autodiff/collision_derivatives.h"
#include "runtime/lua/check.h"
#include "runtime/lua/lua_derivative_options.h"
#include "runtime/lua/lua_derivative_workspace.h"
#include "runtime/lua/lua_ad.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_options.h"
#include "runtime/lua/lua_query_options.h"
#include "runtime/lua/lua_se3.h"
#include "runtime/lua/lua_shape.h"
#include "runtime/lua/modules.h"
#include "solvers/collision/distance_batch.h"

static const char *const SINGLE_OPTIONS[] = {"algorithm", "normalize",    "tol",
                                             "tol_mode",  "max_iter",     "warm_start",
                                             "epa_tol",   "epa_max_iter", NULL};
static const char *const DISTANCE_OPTIONS[] = {
    "algorithm",  "normalize", "tol",          "tol_mode",    "max_iter",
    "warm_start", "epa_tol",   "epa_max_iter", "derivatives", NULL};
static const char *const BATCH_OPTIONS[] = {"algorithm", "normalize",  "tol",     "tol_mode",
                                            "max_iter",  "warm_start", "epa_tol", "epa_max_iter",
                                            "chain",     NULL};

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
                       lucid_lua_typename(L, -1));
    }
    opt->warm_start = LUCID_WARM_VECTOR;
    opt->warm_vector = lucid_lua_checkvec3(L, -1, fname, "warm_start");
}

/* The query options present in the table at idx, over *opt (names not checked): those of
 * lucid_gjk_option_table, and the warm start. */
static void read_query_values(lua_State *L, int idx, const char *fname, lucid_gjk_options *opt) {
    lucid_lua_fields f = lucid_lua_fields_at(L, idx, fname, "");
    lucid_lua_read_option_table(&f, lucid_gjk_option_table, opt);
    if (lucid_lua_field(L, idx, "warm_start")) {
        check_warm_start(L, fname, opt);
        lua_pop(L, 1);
    }
}

void lucid_lua_read_derivative_query_options(lua_State *L, int idx, const char *fname,
                                             lucid_gjk_options *opt) {
    lucid_derivative_query_options_default(opt);
    if (!lua_istable(L, idx)) return;
    int tol_mode_given = lucid_lua_field(L, idx, "tol_mode");
    if (tol_mode_given) lua_pop(L, 1);
    if (lucid_lua_field(L, idx, "tol")) {
        lua_pop(L, 1);
        if (!tol_mode_given) opt->tol_mode = LUCID_GJK_TOL_ABSOLUTE; /* as in lucid.distance */
    }
    read_query_values(L, idx, fname, opt);
}

/* GJK options from the table at idx (absent or nil: defaults); *chain receives opts.chain.
 * With derivatives, the tolerances not given are the derivative-grade ones. */
static void read_options_for(lua_State *L, int idx, const char *fname, const char *const *allowed,
                             lucid_gjk_options *opt, int *chain, int derivatives) {
    lucid_gjk_options_default(opt);
    if (chain) *chain = 0;
    if (lua_isnoneornil(L, idx)) {
        if (derivatives) lucid_derivative_query_options_default(opt);
        return;
    }
    if (!lua_istable(L, idx))
        lucid_lua_fail(L, fname, "opts must be a table (got %s)", lucid_lua_typename(L, idx));
    lucid_lua_check_option_names(L, idx, allowed, fname);
    if (derivatives)
        lucid_lua_read_derivative_query_options(L, idx, fname, opt);
    else
        read_query_values(L, idx, fname, opt);
    lucid_lua_fields f = lucid_lua_fields_at(L, idx, fname, "");
    if (chain) *chain = lucid_lua_boolean_field(&f, "chain", 0);
}

static void read_options(lua_State *L, int idx, const char *fname, const char *const *allowed,
                         lucid_gjk_options *opt, int *chain) {
    read_options_for(L, idx, fname, allowed, opt, chain, 0);
}

static void check_not_two_halfspaces(lua_State *L, const char *fname, const lucid_shape *s1,
                                     const lucid_shape *s2) {
    if (s1->kind == LUCID_SHAPE_HALFSPACE && s2->kind == LUCID_SHAPE_HALFSPACE)
        lucid_lua_fail(L, fname, "s1 and s2 are both halfspaces (their distance is undefined)");
}

static void push_result(lua_State *L, const lucid_distance_result *r) {
    lua_createtable(L, 0, 10);
    lucid_lua_set_number(L, "distance", r->distance);
    lucid_lua_set_vec3(L, "p1", r->p1);
    lucid_lua_set_vec3(L, "p2", r->p2);
    lucid_lua_set_vec3(L, "normal", r->normal);
    lucid_lua_set_integer(L, "iterations", r->iterations);
    lucid_lua_set_boolean(L, "converged", r->converged);
    lucid_lua_set_boolean(L, "penetrating", r->penetrating);
    lucid_lua_set_integer(L, "epa_iterations", r->epa_iterations);
    lucid_lua_set_number(L, "gap", r->gap);
    lucid_lua_set_vec3(L, "separation", r->separation);
}

typedef struct pair_query {
    const lucid_shape *s1, *s2;
    const lucid_se3 *T1, *T2;
    lucid_gjk_options opt;
} pair_query;

/* Arguments (s1, T1, s2, T2 [, opts]) of lucid.distance and lucid.collide. */
static void check_pair_query(lua_State *L, const char *fname, const char *const *allowed,
                             pair_query *q) {
    q->s1 = lucid_lua_checkconvex(L, 1, fname, "s1");
    q->T1 = lucid_lua_checkpose(L, 2, fname, "T1");
    q->s2 = lucid_lua_checkconvex(L, 3, fname, "s2");
    q->T2 = lucid_lua_checkpose(L, 4, fname, "T2");
    read_options(L, 5, fname, allowed, &q->opt, NULL);
    check_not_two_halfspaces(L, fname, q->s1, q->s2);
}

/* ---- differentiable lucid.distance ------------------------------------------------- */

/* opts.derivatives (opts at opts_idx) into *d; returns 0 when it is absent. The estimator
 * table of lucid.distance_derivatives without its query options (lua_derivative_options.h). */
static int read_derivatives(lua_State *L, int opts_idx, const char *fname,
                            lucid_derivative_options *d) {
    lucid_derivative_options_default(d);
    if (!lua_istable(L, opts_idx) || !lucid_lua_field(L, opts_idx, "derivatives")) return 0;
    lucid_lua_read_derivative_options(L, -1, fname, "derivatives.", d, NULL);
    lua_pop(L, 1);
    return 1;
}

/* Clear messages for the shapes a method cannot handle (the C core only says ARGUMENT). */
static void check_shape_for_method(lua_State *L, const char *fname, const lucid_shape *s, int which,
                                   lucid_derivative_method m) {
    const char *name = lucid_derivative_method_name(m);
    if (m == LUCID_DERIV_FINITE_DIFFERENCES || m == LUCID_DERIV_ZEROTH_ORDER) return;
    if (s->kind == LUCID_SHAPE_HALFSPACE)
        lucid_lua_fail(L, fname, "%s needs support functions; s%d is a halfspace", name, which);
    if (m == LUCID_DERIV_FIRST_ORDER_GUMBEL && s->kind != LUCID_SHAPE_CONVEX)
        lucid_lua_fail(L, fname, "%s needs meshes with vertex adjacency; s%d is a %s", name, which,
                       lucid_shape_kind_name(s->kind));
    if (m == LUCID_DERIV_ANALYTIC &&
        !(s->kind == LUCID_SHAPE_SPHERE || s->kind == LUCID_SHAPE_ELLIPSOID ||
          s->kind == LUCID_SHAPE_CAPSULE || s->kind == LUCID_SHAPE_CYLINDER))
        lucid_lua_fail(L, fname, "%s needs smooth curved shapes; s%d is a %s", name, which,
                       lucid_shape_kind_name(s->kind));
}

static int fail_derivatives(lua_State *L, const char *fname, lucid_derivative_method m,
                            lucid_status st) {
    const char *name = lucid_derivative_method_name(m);
    if (st == LUCID_ERR_DEGENERATE)
        return lucid_lua_fail(L, fname,
                              m == LUCID_DERIV_ANALYTIC
                                  ? "%s: a support is not smooth at the witness point"
                                  : "%s: the normal's derivative is unbounded at distance 0",
                              name);
    if (st == LUCID_ERR_SINGULAR)
        return lucid_lua_fail(L, fname, "%s: the implicit system is singular", name);
    return lucid_lua_fail_status(L, fname, st);
}

/* The numeric pose at idx: a differentiable pose's current value or a lucid.se3. */
static lucid_se3 pose_value(lua_State *L, int idx, const lucid_lua_ad_var *v, const char *what) {
    if (v) return lucid_ad_se3_unpack(lucid_ad_var_values(v->owner->tape, v->var));
    return *lucid_lua_checkpose(L, idx, "lucid.distance", what);
}

/* y = (distance, p1, p2, normal) and J2 (10 x 6, column-major) from the C derivatives. */
static void pack_derivatives(const lucid_distance_derivatives_result *d, double y[10],
                             double J2[60]) {
    y[0] = d->query.distance;
    lucid_vec3_store(d->query.p1, y + 1);
    lucid_vec3_store(d->query.p2, y + 4);
    lucid_vec3_store(d->query.normal, y + 7);
    for (int c = 0; c < 6; ++c) {
        J2[10 * c] = d->ddistance[c];
        for (int i = 0; i < 3; ++i) {
            J2[1 + i + 10 * c] = d->dp1[i + 3 * c];
            J2[4 + i + 10 * c] = d->dp2[i + 3 * c];
            J2[7 + i + 10 * c] = d->dnormal[i + 3 * c];
        }
    }
}

/* Replaces result fields distance, p1, p2, normal (table on top) by slices of node out. */
static void set_differentiable_fields(lua_State *L, int owner_idx, lucid_lua_ad_tape *owner,
                                      lucid_ad_var out, const char *fname) {
    static const struct {
        const char *name;
        int start, count;
    } fields[] = {{"distance", 0, 1}, {"p1", 1, 3}, {"p2", 4, 3}, {"normal", 7, 3}};
    int result_idx = lua_gettop(L);
    lucid_lua_ad_pushtape(L, owner_idx);
    for (int k = 0; k < 4; ++k) {
        lucid_ad_var v;
        lucid_status st = lucid_ad_slice(owner->tape, out, fields[k].start, fields[k].count, &v);
        if (st != LUCID_OK) lucid_lua_ad_fail(L, fname, st);
        lucid_lua_ad_pushvar(L, result_idx + 1, v);
        lua_setfield(L, result_idx, fields[k].name);
    }
    lua_pop(L, 1);
}

static int differentiable_distance(lua_State *L, lucid_lua_ad_var *a1, lucid_lua_ad_var *a2) {
    const char *fname = "lucid.distance";
    int owner_idx = a1 ? 2 : 4;
    lucid_lua_ad_tape *owner = (a1 ? a1 : a2)->owner;
    const lucid_shape *s1 = lucid_lua_checkconvex(L, 1, fname, "s1");
    const lucid_shape *s2 = lucid_lua_checkconvex(L, 3, fname, "s2");
    lucid_se3 T1 = pose_value(L, 2, a1, "T1"), T2 = pose_value(L, 4, a2, "T2");
    lucid_gjk_options gjk; /* tolerances not given: derivative-grade */
    read_options_for(L, 5, fname, DISTANCE_OPTIONS, &gjk, NULL, 1);
    check_not_two_halfspaces(L, fname, s1, s2);
    lucid_derivative_options d;
    if (!read_derivatives(L, 5, fname, &d))
        lucid_lua_fail(L, fname,
                       "a differentiable pose needs opts.derivatives (e.g. {method = "
                       "\"first_order_gaussian\", samples = 20, noise = 1e-3, seed = 0})");
    d.gjk = &gjk;
    check_shape_for_method(L, fname, s1, 1, d.method);
    check_shape_for_method(L, fname, s2, 2, d.method);
    lucid_ad_var v1 = lucid_lua_ad_pose_node(L, 2, owner, fname);
    lucid_ad_var v2 = lucid_lua_ad_pose_node(L, 4, owner, fname);

    lucid_distance_result r;
    lucid_status st = lucid_distance(s1, &T1, s2, &T2, &gjk, &r);
    if (st != LUCID_OK) return lucid_lua_fail_status(L, fname, st);
    lucid_derivative_workspace *ws = lucid_lua_derivative_workspace(L, lua_upvalueindex(1), fname);
    lucid_distance_derivatives_result dr;
    st = lucid_distance_derivatives_from_query(s1, &T1, s2, &T2, &d, ws, &r, &dr);
    if (st != LUCID_OK) return fail_derivatives(L, fname, d.method, st);
    double y[10], J1[60], J2[60];
    pack_derivatives(&dr, y, J2);
    lucid_ad_distance_t1_jacobian(&T1, &T2, y, J2, J1);
    lucid_ad_var out;
    st = lucid_ad_distance(owner->tape, v1, v2, y, J1, J2, &out);
    if (st != LUCID_OK) return lucid_lua_ad_fail(L, fname, st);
    push_result(L, &r);
    set_differentiable_fields(L, owner_idx, owner, out, fname);
    return 1;
}

static int l_distance(lua_State *L) {
    const char *fname = "lucid.distance";
    lucid_lua_ad_var *a1 = lucid_lua_ad_topose(L, 2, fname);
    lucid_lua_ad_var *a2 = lucid_lua_ad_topose(L, 4, fname);
    if (a1 || a2) return differentiable_distance(L, a1, a2);
    pair_query q;
    check_pair_query(L, fname, DISTANCE_OPTIONS, &q);
    lucid_derivative_options unused;
    read_derivatives(L, 5, fname, &unused); /* validated even when nothing is differentiable */
    lucid_distance_result r;
    lucid_status st = lucid_distance(q.s1, q.T1, q.s2, q.T2, &q.opt, &r);
    if (st != LUCID_OK) return lucid_lua_fail_status(L, fname, st);
    push_result(L, &r);
    return 1;
}

static int l_collide(lua_State *L) {
    const char *fname = "lucid.collide";
    pair_query q;
    check_pair_query(L, fname, SINGLE_OPTIONS, &q);
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

static int fail_batch(lua_State *L, const char *fname, lucid_status st, const lucid_batch_error *e,
                      const double *X1, const double *X2) {
    if (e->which < 1) return lucid_lua_fail_status(L, fname, st);
    const double *t = (e->which == 1 ? X1 : X2) + (long)LUCID_POSE_ROWS * e->column + 4;
    if (st == LUCID_ERR_ARGUMENT && !(lucid_vec3_max_abs(lucid_vec3_load(t)) <= LUCID_GEOMETRY_MAX))
        return lucid_lua_fail(L, fname,
                              "X%d column %d: translation must be within +-%f (the "
                              "representable range of geometry)",
                              e->which, e->column + 1, LUCID_GEOMETRY_MAX);
    return lucid_lua_fail(L, fname, "X%d column %d is not a pose: %s", e->which, e->column + 1,
                          st == LUCID_ERR_NONFINITE ? "it contains NaN or Inf"
                                                    : "its quaternion is zero");
}

static int l_distance_batch(lua_State *L) {
    const char *fname = "lucid.distance_batch";
    const lucid_shape *s1 = lucid_lua_checkconvex(L, 1, fname, "s1");
    const lucid_shape *s2 = lucid_lua_checkconvex(L, 2, fname, "s2");
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
    if (st != LUCID_OK) return fail_batch(L, fname, st, &e, X1->data, X2->data);
    for (int i = 0; i < n; ++i) it->data[i] = counts[i];
    lua_pop(L, 1);
    return 2;
}

void lucid_open_collision(lua_State *L) {
    static const luaL_Reg functions[] = {
        {"collide", l_collide}, {"distance_batch", l_distance_batch}, {NULL, NULL}};
    luaL_setfuncs(L, functions, 0);
    /* lucid.distance keeps the Gumbel neighbourhood workspace (grow-only) as an upvalue */
    lucid_lua_push_derivative_workspace(L);
    lua_pushcclosure(L, l_distance, 1);
    lua_setfield(L, -2, "distance");
}
