/* Lua binding of the P-SDF query (solvers/collision/pscaling.h, docs/single_level.md):
 *
 *   r = lucid.pscaling(s1, T1, s2, T2 [, opts])
 *
 * opts: tol, max_iter, derivatives (lucid_pscaling_option_table). Result: alpha, phi, point,
 * normal, iterations, converged, residual, scale, closed_form and, with derivatives, dalpha_dT1,
 * dalpha_dT2 (6-vectors) and dpoint_dT1, dpoint_dT2, dnormal_dT1, dnormal_dT2 (3 x 6), w.r.t. the
 * local twists (v, w) of T1, T2. With derivatives, derivatives_defined is false (and the derivative
 * fields absent) when the solution is not unique (a face resting on a face: p can slide). An
 * iteration cap is no error: the last iterate comes back with converged = false. */
#include <lauxlib.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_options.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_se3.h"
#include "runtime/lua/lua_shape.h"
#include "runtime/lua/modules.h"
#include "solvers/collision/pscaling.h"

static void set_matrix(lua_State *L, const char *name, const double *data, int rows, int cols) {
    if (cols == 1)
        lucid_lua_pushvalues(L, data, rows);
    else
        lucid_lua_pushmatrix_data(L, data, rows, cols);
    lua_setfield(L, -2, name);
}

static void push_result(lua_State *L, const lucid_pscaling_result *r, int derivatives) {
    lua_createtable(L, 0, derivatives ? 15 : 9);
    lucid_lua_set_number(L, "alpha", r->alpha);
    lucid_lua_set_number(L, "phi", r->phi);
    lucid_lua_set_vec3(L, "point", r->point);
    lucid_lua_set_vec3(L, "normal", r->normal);
    lucid_lua_set_integer(L, "iterations", r->iterations);
    lucid_lua_set_boolean(L, "converged", r->converged);
    lucid_lua_set_number(L, "residual", r->residual);
    lucid_lua_set_number(L, "scale", r->scale);
    lucid_lua_set_boolean(L, "closed_form", r->closed_form);
    if (!derivatives) return;
    set_matrix(L, "dalpha_dT1", r->d.alpha_T1, 6, 1);
    set_matrix(L, "dalpha_dT2", r->d.alpha_T2, 6, 1);
    set_matrix(L, "dpoint_dT1", r->d.point_T1, 3, 6);
    set_matrix(L, "dpoint_dT2", r->d.point_T2, 3, 6);
    set_matrix(L, "dnormal_dT1", r->d.normal_T1, 3, 6);
    set_matrix(L, "dnormal_dT2", r->d.normal_T2, 3, 6);
}

static int l_pscaling(lua_State *L) {
    const char *fname = "lucid.pscaling";
    const lucid_shape *s1 = lucid_lua_checkconvex(L, 1, fname, "s1");
    const lucid_se3 *T1 = lucid_lua_checkpose(L, 2, fname, "T1");
    const lucid_shape *s2 = lucid_lua_checkconvex(L, 3, fname, "s2");
    const lucid_se3 *T2 = lucid_lua_checkpose(L, 4, fname, "T2");
    lucid_pscaling_options opt;
    lucid_pscaling_options_default(&opt);
    lucid_lua_read_options(L, 5, fname, "opts", lucid_pscaling_option_table, NULL, &opt);
    if (s1->kind == LUCID_SHAPE_HALFSPACE && s2->kind == LUCID_SHAPE_HALFSPACE)
        return lucid_lua_fail(L, fname, "s1 and s2 are both halfspaces (no centre to scale)");
    lucid_pscaling_result r;
    lucid_status st = lucid_pscaling(s1, T1, s2, T2, &opt, &r);
    /* derivatives asked for at a solution that is not unique: the result without them */
    int undefined = st == LUCID_ERR_SINGULAR && opt.derivatives && r.converged;
    if (st != LUCID_OK && st != LUCID_ERR_NO_CONVERGENCE && !undefined)
        return lucid_lua_fail_status(L, fname, st);
    push_result(L, &r, opt.derivatives && st == LUCID_OK);
    if (opt.derivatives) lucid_lua_set_boolean(L, "derivatives_defined", st == LUCID_OK);
    return 1;
}

void lucid_open_pscaling(lua_State *L) {
    lua_pushcfunction(L, l_pscaling);
    lua_setfield(L, -2, "pscaling");
}
