/* lucid.distance_derivatives: smoothed collision derivatives from Lua.
 *   d = lucid.distance_derivatives(s1, T1, s2, T2 [, opts])
 * opts: method ("finite_differences" (default), "zeroth_order", "first_order_gaussian",
 * "first_order_gumbel", "analytic"), step (automatic: cbrt of the witness accuracy of the
 * queries, lucid_derivative_auto_step), samples (M, 20), noise (eps, 1e-3; units in
 * autodiff/collision_derivatives.h), levels (n_l, 1), seed (0), and the distance-query
 * options of lucid.distance (algorithm, normalize, tol, tol_mode, max_iter, warm_start,
 * epa_tol, epa_max_iter: runtime/lua/lua_query_options.h). The tolerances not given are
 * derivative-grade (lucid_derivative_query_options_default: rounding level), not
 * lucid.distance's defaults, whose witness points are only ~1e-4 m accurate on curved
 * shapes.
 * d.dp1, d.dp2, d.dnormal (3x6) and d.ddistance (1x6) are lucid.mat derivatives w.r.t. xi in
 * T2 * exp(xi) (linear part first); d.distance, d.p1, d.p2, d.normal describe
 * the nominal query. The Gumbel neighbourhood workspace is a userdata upvalue of the
 * function (grow-only, freed by __gc), so nothing is allocated that an error could leak. */
#include <lauxlib.h>
#include <string.h>

#include "autodiff/collision_derivatives.h"
#include "runtime/lua/check.h"
#include "runtime/lua/lua_derivative_options.h"
#include "runtime/lua/lua_derivative_workspace.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_se3.h"
#include "runtime/lua/lua_shape.h"
#include "runtime/lua/modules.h"

#define FNAME "lucid.distance_derivatives"

/* Clear messages for the shapes a method cannot handle (the C core only says ARGUMENT). */
static void check_shape_for_method(lua_State *L, const lucid_shape *s, int which,
                                   lucid_derivative_method m) {
    const char *kind = lucid_shape_kind_name(s->kind);
    if (m == LUCID_DERIV_FINITE_DIFFERENCES || m == LUCID_DERIV_ZEROTH_ORDER) return;
    if (s->kind == LUCID_SHAPE_HALFSPACE)
        lucid_lua_fail(L, FNAME, "%s needs support functions; shape %d is a halfspace",
                       lucid_derivative_method_name(m), which);
    if (m == LUCID_DERIV_FIRST_ORDER_GUMBEL && s->kind != LUCID_SHAPE_CONVEX)
        lucid_lua_fail(L, FNAME,
                       "first_order_gumbel needs meshes with vertex adjacency (lucid.convex); "
                       "shape %d is a %s",
                       which, kind);
    if (m == LUCID_DERIV_ANALYTIC &&
        !(s->kind == LUCID_SHAPE_SPHERE || s->kind == LUCID_SHAPE_ELLIPSOID ||
          s->kind == LUCID_SHAPE_CAPSULE || s->kind == LUCID_SHAPE_CYLINDER))
        lucid_lua_fail(L, FNAME,
                       "analytic needs smooth curved shapes (sphere, ellipsoid, capsule, "
                       "cylinder); shape %d is a %s",
                       which, kind);
}

static void set_matrix(lua_State *L, const char *key, const double *data, int rows) {
    lucid_lua_pushmatrix_data(L, data, rows, 6);
    lua_setfield(L, -2, key);
}

static void push_result(lua_State *L, const lucid_distance_derivatives_result *r) {
    lua_createtable(L, 0, 8);
    set_matrix(L, "dp1", r->dp1, 3);
    set_matrix(L, "dp2", r->dp2, 3);
    set_matrix(L, "dnormal", r->dnormal, 3);
    set_matrix(L, "ddistance", r->ddistance, 1);
    lucid_lua_set_number(L, "distance", r->query.distance);
    lucid_lua_set_vec3(L, "p1", r->query.p1);
    lucid_lua_set_vec3(L, "p2", r->query.p2);
    lucid_lua_set_vec3(L, "normal", r->query.normal);
}

static int fail_derivatives(lua_State *L, lucid_derivative_method m, lucid_status st) {
    if (st == LUCID_ERR_DEGENERATE && m == LUCID_DERIV_ANALYTIC)
        return lucid_lua_fail(L, FNAME,
                              "analytic: a support is not smooth at the witness point (flat "
                              "side or cap of a capsule or cylinder)");
    if (st == LUCID_ERR_DEGENERATE)
        return lucid_lua_fail(L, FNAME,
                              "%s: the normal's derivative is unbounded at contact (distance "
                              "exactly 0; the smoothing is evaluated at x* = p1 - p2 = 0)",
                              lucid_derivative_method_name(m));
    if (st == LUCID_ERR_SINGULAR)
        return lucid_lua_fail(L, FNAME,
                              "%s: the implicit system is singular (no curvature at the contact)",
                              lucid_derivative_method_name(m));
    return lucid_lua_fail_status(L, FNAME, st);
}

static int l_distance_derivatives(lua_State *L) {
    const lucid_shape *s1 = lucid_lua_checkconvex(L, 1, FNAME, "argument 1 (s1)");
    const lucid_se3 *T1 = lucid_lua_checkpose(L, 2, FNAME, "argument 2 (T1)");
    const lucid_shape *s2 = lucid_lua_checkconvex(L, 3, FNAME, "argument 3 (s2)");
    const lucid_se3 *T2 = lucid_lua_checkpose(L, 4, FNAME, "argument 4 (T2)");
    lucid_derivative_options o;
    lucid_gjk_options gjk;
    lucid_lua_read_derivative_options(L, 5, FNAME, "", &o, &gjk);
    check_shape_for_method(L, s1, 1, o.method);
    check_shape_for_method(L, s2, 2, o.method);
    lucid_derivative_workspace *ws = lucid_lua_derivative_workspace(L, lua_upvalueindex(1), FNAME);
    lucid_distance_derivatives_result r;
    lucid_status st = lucid_distance_derivatives(s1, T1, s2, T2, &o, ws, &r);
    if (st != LUCID_OK) return fail_derivatives(L, o.method, st);
    push_result(L, &r);
    return 1;
}

void lucid_open_distance_derivatives(lua_State *L) {
    lucid_lua_push_derivative_workspace(L);
    lua_pushcclosure(L, l_distance_derivatives, 1);
    lua_setfield(L, -2, "distance_derivatives");
}
