/* sol:derivatives() of a relaxed ip solve (lua_contact_relaxed.h). Every buffer is part of
 * the state userdata (its __gc destroys the workspace); the results are new lucid.mat. */
#include "runtime/lua/lua_contact_relaxed.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_options.h"
#include "solvers/contact/contact_ip.h"

#define STATE_METATABLE "lucid.contact.relaxed_state"
#define DERIVATIVES     "sol:derivatives"
#define JVP             "sol:derivatives().jvp"
#define VJP             "sol:derivatives().vjp"
#define DLDG            "sol:derivatives().dlambda_dG"

typedef struct relaxed_state {
    lucid_contact_workspace *ws;
    lucid_contact_problem p;
    int has_R, ncp;
    double kappa;
    double data[]; /* G (m^2), g (m), mu (n), R (m), scratch (3m + m^2 + n) */
} relaxed_state;

static int state_gc(lua_State *L) {
    relaxed_state *s = luaL_testudata(L, 1, STATE_METATABLE);
    if (!s) return 0;
    lucid_contact_workspace_destroy(s->ws);
    s->ws = NULL;
    return 0;
}

void lucid_lua_relaxed_state_new(lua_State *L, const char *fname, int n, const double *G,
                                 const double *g, const double *mu, const double *R,
                                 lucid_contact_problem *p, lucid_contact_workspace **ws) {
    size_t m = 3 * (size_t)n, count = 2 * m * m + 6 * m + 2 * (size_t)n + 1;
    relaxed_state *s = lua_newuserdatauv(L, sizeof *s + sizeof(double) * count, 0);
    s->ws = NULL;
    static const luaL_Reg metamethods[] = {{"__gc", state_gc}, {NULL, NULL}};
    lucid_lua_push_metatable(L, STATE_METATABLE, metamethods, NULL);
    lua_setmetatable(L, -2);
    double *G_copy = s->data, *g_copy = G_copy + m * m, *mu_copy = g_copy + m;
    double *R_copy = mu_copy + n;
    memcpy(G_copy, G, sizeof(double) * m * m);
    memcpy(g_copy, g, sizeof(double) * m);
    memcpy(mu_copy, mu, sizeof(double) * (size_t)n);
    if (R) memcpy(R_copy, R, sizeof(double) * m);
    s->has_R = R != NULL;
    s->p = (lucid_contact_problem){n, G_copy, g_copy, mu_copy, R ? R_copy : NULL, 3};
    s->ws = lucid_contact_workspace_create(n);
    if (!s->ws) lucid_lua_fail(L, fname, "cannot allocate a workspace for %d contacts", n);
    *p = s->p;
    *ws = s->ws;
}

static double *scratch(relaxed_state *s) {
    size_t m = 3 * (size_t)s->p.n;
    return s->data + m * m + 2 * m + (size_t)s->p.n;
}

static relaxed_state *upvalue_state(lua_State *L) {
    return luaL_checkudata(L, lua_upvalueindex(1), STATE_METATABLE);
}

static void check_status(lua_State *L, const char *fname, lucid_status status) {
    if (status != LUCID_OK)
        lucid_lua_fail(L, fname, "no relaxed factorisation to differentiate (status %d)",
                       (int)status);
}

/* An optional 3n x 3n lucid.mat at idx (NULL when nil). */
static const double *optional_square(lua_State *L, int idx, int m, const char *fname,
                                     const char *what) {
    return lua_isnil(L, idx) ? NULL : lucid_lua_checksquare(L, idx, m, fname, what);
}

/* jvp{G=, g=, mu=, R=} (each optional) -> dlambda */
static int relaxed_jvp(lua_State *L) {
    relaxed_state *s = upvalue_state(L);
    int n = s->p.n, m = 3 * n;
    if (lua_type(L, 1) != LUA_TTABLE)
        lucid_lua_fail(L, JVP, "expects a table {G=, g=, mu=, R=} (got %s)",
                       lucid_lua_typename(L, 1));
    lua_settop(L, 1);
    static const char *const keys[] = {"G", "g", "mu", "R", NULL};
    lucid_lua_check_option_names(L, 1, keys, JVP);
    double *dg = scratch(s), *dmu = dg + m, *dR = dmu + n;
    memset(dg, 0, sizeof(double) * (size_t)m);
    lua_getfield(L, 1, "G");
    const double *dG = optional_square(L, 2, m, JVP, "G");
    if (lua_getfield(L, 1, "g") != LUA_TNIL) lucid_lua_checkvalues(L, 3, m, dg, JVP, "g");
    int has_mu = lua_getfield(L, 1, "mu") != LUA_TNIL;
    if (has_mu) lucid_lua_checkvalues(L, 4, n, dmu, JVP, "mu");
    int has_R = lua_getfield(L, 1, "R") != LUA_TNIL;
    if (has_R) lucid_lua_checkvalues(L, 5, m, dR, JVP, "R");
    lucid_lua_matrix *out = lucid_lua_newvector(L, m);
    check_status(L, JVP,
                 lucid_contact_ip_jvp(&s->p, s->ws, dg, dG, has_mu ? dmu : NULL, has_R ? dR : NULL,
                                      out->data));
    return 1;
}

/* dlambda_dG(dG) -> dlambda */
static int relaxed_dG(lua_State *L) {
    relaxed_state *s = upvalue_state(L);
    int m = 3 * s->p.n;
    lua_settop(L, 1);
    if (lua_isnil(L, 1)) lucid_lua_fail(L, DLDG, "dG must be a lucid.mat (got nil)");
    const double *dG = optional_square(L, 1, m, DLDG, "dG");
    double *zero = scratch(s);
    memset(zero, 0, sizeof(double) * (size_t)m);
    lucid_lua_matrix *out = lucid_lua_newvector(L, m);
    check_status(L, DLDG, lucid_contact_ip_jvp(&s->p, s->ws, zero, dG, NULL, NULL, out->data));
    return 1;
}

/* vjp(w) -> {G=, g=, mu=, R=}: the cotangents of w . lambda */
static int relaxed_vjp(lua_State *L) {
    relaxed_state *s = upvalue_state(L);
    int n = s->p.n, m = 3 * n;
    lua_settop(L, 1);
    double *w = scratch(s);
    lucid_lua_checkvalues(L, 1, m, w, VJP, "w");
    lua_createtable(L, 0, 4);
    lucid_lua_matrix *g = lucid_lua_newvector(L, m);
    lua_setfield(L, -2, "g");
    lucid_lua_matrix *G = lucid_lua_newmatrix(L, m, m);
    lua_setfield(L, -2, "G");
    lucid_lua_matrix *mu = lucid_lua_newvector(L, n);
    lua_setfield(L, -2, "mu");
    lucid_lua_matrix *R = lucid_lua_newvector(L, m);
    lua_setfield(L, -2, "R");
    check_status(L, VJP,
                 lucid_contact_ip_vjp(&s->p, s->ws, w, g->data, G->data, mu->data, R->data));
    return 1;
}

/* The derivatives table of the state at idx (dense Jacobians when asked). */
static void push_table(lua_State *L, int idx, int dense) {
    relaxed_state *s = luaL_checkudata(L, idx, STATE_METATABLE);
    int n = s->p.n, m = 3 * n;
    lua_createtable(L, 0, 10);
    if (dense) {
        lucid_lua_matrix *Jg = lucid_lua_newmatrix(L, m, m);
        lua_setfield(L, -2, "dlambda_dg");
        lucid_lua_matrix *Jmu = lucid_lua_newmatrix(L, m, n);
        lua_setfield(L, -2, "dlambda_dmu");
        lucid_lua_matrix *JR = lucid_lua_newmatrix(L, m, m);
        lua_setfield(L, -2, "dlambda_dR");
        double *e = scratch(s), *zero = e + m;
        memset(e, 0, sizeof(double) * (size_t)m), memset(zero, 0, sizeof(double) * (size_t)m);
        for (int j = 0; j < m; ++j) { /* one back-substitution per column */
            double *col = Jg->data + (size_t)m * j;
            e[j] = 1.0;
            check_status(L, DERIVATIVES,
                         lucid_contact_ip_jvp(&s->p, s->ws, e, NULL, NULL, NULL, col));
            check_status(
                L, DERIVATIVES,
                lucid_contact_ip_jvp(&s->p, s->ws, zero, NULL, NULL, e, JR->data + (size_t)m * j));
            e[j] = 0.0;
        }
        for (int i = 0; i < n; ++i) {
            e[i] = 1.0;
            check_status(
                L, DERIVATIVES,
                lucid_contact_ip_jvp(&s->p, s->ws, zero, NULL, e, NULL, Jmu->data + (size_t)m * i));
            e[i] = 0.0;
        }
    }
    const struct {
        lua_CFunction f;
        const char *name;
    } closures[] = {{relaxed_jvp, "jvp"}, {relaxed_vjp, "vjp"}, {relaxed_dG, "dlambda_dG"}};
    for (int k = 0; k < 3; ++k) {
        lua_pushvalue(L, idx);
        lua_pushcclosure(L, closures[k].f, 1);
        lua_setfield(L, -2, closures[k].name);
    }
    lucid_lua_set_string(L, "method", "relaxed");
    lucid_lua_set_string(L, "model", s->ncp ? "ncp" : "ccp");
    lucid_lua_set_number(L, "kappa", s->kappa);
}

/* sol:derivatives([{dense=}]) */
static int relaxed_derivatives(lua_State *L) {
    lua_settop(L, 2);
    int dense = 1;
    if (!lua_isnil(L, 2)) {
        if (lua_type(L, 2) != LUA_TTABLE)
            lucid_lua_fail(L, DERIVATIVES, "opts must be a table (got %s)",
                           lucid_lua_typename(L, 2));
        static const char *const keys[] = {"dense", NULL};
        lucid_lua_check_option_names_prefixed(L, 2, keys, DERIVATIVES, "opts.");
        lucid_lua_fields f = lucid_lua_fields_at(L, 2, DERIVATIVES, "opts.");
        dense = lucid_lua_boolean_field(&f, "dense", dense);
    }
    push_table(L, lua_upvalueindex(1), dense);
    return 1;
}

void lucid_lua_push_relaxed_derivatives(lua_State *L, int idx, int ncp, double kappa) {
    relaxed_state *s = luaL_checkudata(L, idx, STATE_METATABLE);
    s->ncp = ncp, s->kappa = kappa;
    lua_pushvalue(L, idx);
    lua_pushcclosure(L, relaxed_derivatives, 1);
}

/* The relaxed state behind sol.derivatives, or NULL (pushes it when found). */
static relaxed_state *state_of_solution(lua_State *L, int sol) {
    lua_getfield(L, sol, "derivatives");
    if (lua_tocfunction(L, -1) != relaxed_derivatives || !lua_getupvalue(L, -1, 1)) {
        lua_pop(L, 1);
        return NULL;
    }
    relaxed_state *s = luaL_testudata(L, -1, STATE_METATABLE);
    lua_remove(L, -2);
    if (!s) lua_pop(L, 1);
    return s;
}

static int same_values(lua_State *L, int idx, const char *key, const double *values, int count,
                       double *buffer, const char *fname) {
    if (lua_getfield(L, idx, key) == LUA_TNIL) {
        lua_pop(L, 1);
        return values == NULL;
    }
    if (!values) return 0;
    char what[32];
    snprintf(what, sizeof what, "problem.%s", key);
    lucid_lua_checkvalues(L, -1, count, buffer, fname, what);
    lua_pop(L, 1);
    return memcmp(buffer, values, sizeof(double) * (size_t)count) == 0;
}

int lucid_lua_relaxed_contact_derivatives(lua_State *L, int problem, int sol, int dense,
                                          int allow_unconverged, const char *fname) {
    relaxed_state *s = state_of_solution(L, sol);
    if (!s)
        lucid_lua_fail(L, fname,
                       "opts.method 'relaxed' needs a solution of lucid.contact.solve with "
                       "solver 'ip' and kappa > 0");
    int state_idx = lua_gettop(L), n = s->p.n, m = 3 * n;
    lua_getfield(L, sol, "converged");
    if (!allow_unconverged && !lua_toboolean(L, -1))
        lucid_lua_fail(L, fname,
                       "the solution did not converge (sol.converged is not true; pass "
                       "opts.allow_unconverged = true to differentiate it anyway)");
    lua_pop(L, 1);
    /* the problem must be the one solved (its copy in the state) */
    lua_getfield(L, problem, "G");
    lucid_lua_matrix *G = lucid_lua_tomatrix(L, -1);
    int same = G && G->rows == m && G->cols == m &&
               memcmp(G->data, s->p.G, sizeof(double) * (size_t)m * (size_t)m) == 0;
    lua_pop(L, 1);
    double *buffer = scratch(s);
    same = same && same_values(L, problem, "g", s->p.g, m, buffer, fname) &&
           same_values(L, problem, "mu", s->p.mu, n, buffer, fname) &&
           same_values(L, problem, "R", s->p.R, m, buffer, fname);
    if (!same) lucid_lua_fail(L, fname, "problem differs from the one sol solved (G, g, mu, R)");
    push_table(L, state_idx, dense);
    return 1;
}
