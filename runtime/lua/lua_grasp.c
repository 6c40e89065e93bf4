/* Lua binding of grasp quality (solvers/grasp/grasp_epsilon.h; docs/grasp.md):
 *   eps, info = lucid.grasp.epsilon(points, normals, mu [, opts])
 *   W, s = lucid.grasp.wrenches(points, normals, mu [, opts])
 * points, normals: a list of k 3-vectors (tables or lucid.vec) or a 3 x k lucid.mat; normals
 * point into the object. opts: the keys of lucid_grasp_option_table (edges, center,
 * torque_scale, torsion), with its rules and defaults. */
#include <lauxlib.h>
#include <stdint.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_options.h"
#include "runtime/lua/modules.h"
#include "runtime/math/finite.h"
#include "solvers/grasp/grasp_epsilon.h"

/* Contacts beyond this are surely a mistake (qhull's cost grows fast with the point count). */
#define GRASP_MAX_CONTACTS 4096

/* opts read through lucid_grasp_option_table over the defaults. */
static void read_options(lua_State *L, int idx, const char *fname, lucid_grasp_options *opt) {
    lucid_grasp_options_default(opt);
    lucid_lua_read_options(L, idx, fname, "opts", lucid_grasp_option_table, NULL, opt);
}

/* The number of 3-vectors at idx: columns of a 3 x k matrix or entries of a list. */
static size_t count_vectors(lua_State *L, int idx, const char *fname, const char *what) {
    lucid_lua_matrix *m = lucid_lua_tomatrix(L, idx);
    if (m != NULL) {
        if (m->rows != 3 || m->is_vector)
            lucid_lua_fail(L, fname, "%s must be a 3 x k matrix (got %d x %d)", what, m->rows,
                           m->cols);
        return (size_t)m->cols;
    }
    if (!lua_istable(L, idx))
        lucid_lua_fail(L, fname, "%s must be a list of 3-vectors or a 3 x k matrix (got %s)", what,
                       lucid_lua_typename(L, idx));
    return (size_t)lua_rawlen(L, idx);
}

/* Reads k 3-vectors at idx into out (3 k doubles). */
static void read_vectors(lua_State *L, int idx, size_t k, double *out, const char *fname,
                         const char *what) {
    lucid_lua_matrix *m = lucid_lua_tomatrix(L, idx);
    if (m != NULL) {
        memcpy(out, m->data, sizeof(double) * 3 * k);
        if (!lucid_all_finite(out, (long)(3 * k)))
            lucid_lua_fail(L, fname, "%s holds a non-finite number", what);
        return;
    }
    char label[64];
    for (size_t i = 0; i < k; ++i) {
        lua_rawgeti(L, idx, (lua_Integer)i + 1);
        snprintf(label, sizeof(label), "%s[%zu]", what, i + 1);
        lucid_lua_checkvalues(L, -1, 3, out + 3 * i, fname, label);
        lua_pop(L, 1);
    }
}

/* Reads arguments 1-4; returns k and leaves a buffer of 6 k e + 6 k doubles (e wrenches a
 * contact, lucid_grasp_contact_wrenches) (userdata,
 * collected with the stack) whose first 6 k hold points then normals. */
static double *read_grasp(lua_State *L, const char *fname, size_t *k_out, double *mu,
                          lucid_grasp_options *opt) {
    size_t k = count_vectors(L, 1, fname, "points");
    size_t kn = count_vectors(L, 2, fname, "normals");
    if (k == 0) lucid_lua_fail(L, fname, "points is empty");
    if (k > GRASP_MAX_CONTACTS)
        lucid_lua_fail(L, fname, "too many contacts (%I, at most %d)", (lua_Integer)k,
                       GRASP_MAX_CONTACTS);
    if (kn != k)
        lucid_lua_fail(L, fname, "%I points but %I normals", (lua_Integer)k, (lua_Integer)kn);
    *mu = lucid_lua_checkfinite(L, 3, fname, "mu");
    if (*mu < 0.0) lucid_lua_fail(L, fname, "mu must be >= 0 (got %f)", *mu);
    read_options(L, 4, fname, opt);
    size_t e = lucid_grasp_contact_wrenches(opt);
    double *buf = lua_newuserdatauv(L, sizeof(double) * (6 * k + 6 * k * e), 0);
    read_vectors(L, 1, k, buf, fname, "points");
    read_vectors(L, 2, k, buf + 3 * k, fname, "normals");
    for (size_t i = 0; i < k; ++i) {
        const double *n = buf + 3 * k + 3 * i;
        if (!(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] > 0.0))
            lucid_lua_fail(L, fname, "normals[%I] is zero", (lua_Integer)i + 1);
    }
    *k_out = k;
    return buf;
}

static int l_epsilon(lua_State *L) {
    const char *fname = "lucid.grasp.epsilon";
    size_t k;
    double mu;
    lucid_grasp_options opt;
    double *buf = read_grasp(L, fname, &k, &mu, &opt);
    lucid_grasp_result r;
    char err[600];
    lucid_status st = lucid_grasp_epsilon(buf, buf + 3 * k, k, mu, &opt, &r, err, sizeof(err));
    if (st != LUCID_OK) {
        if (err[0] != '\0') return lucid_lua_fail(L, fname, "%s", err);
        return lucid_lua_fail_status(L, fname, st);
    }
    lua_pushnumber(L, r.epsilon);
    lua_createtable(L, 0, 7);
    lucid_lua_set_number(L, "margin", r.margin);
    lucid_lua_set_boolean(L, "force_closure", r.force_closure);
    lucid_lua_set_boolean(L, "degenerate", r.degenerate);
    lucid_lua_set_integer(L, "facets", r.facets);
    lucid_lua_set_number(L, "torque_scale", r.torque_scale);
    lucid_lua_set_integer(L, "edges", opt.edges);
    lucid_lua_set_number(L, "torsion", opt.torsion);
    return 2;
}

static int l_wrenches(lua_State *L) {
    const char *fname = "lucid.grasp.wrenches";
    size_t k;
    double mu;
    lucid_grasp_options opt;
    double *buf = read_grasp(L, fname, &k, &mu, &opt);
    double scale = 1.0, *w = buf + 6 * k;
    lucid_status st = lucid_grasp_wrenches(buf, buf + 3 * k, k, mu, &opt, w, &scale);
    if (st != LUCID_OK) return lucid_lua_fail_status(L, fname, st);
    lucid_lua_pushmatrix_data(L, w, 6, (int)(k * lucid_grasp_contact_wrenches(&opt)));
    lua_pushnumber(L, scale);
    return 2;
}

void lucid_open_grasp(lua_State *L) {
    static const luaL_Reg functions[] = {
        {"epsilon", l_epsilon}, {"wrenches", l_wrenches}, {NULL, NULL}};
    luaL_newlib(L, functions);
    lua_setfield(L, -2, "grasp");
}
