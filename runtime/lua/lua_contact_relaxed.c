/* sol:derivatives() of a relaxed ip solve (lua_contact_relaxed.h). Every buffer is part of
 * the state userdata (its __gc destroys the workspace); the results are new lucid.mat. */
#include "runtime/lua/lua_contact_relaxed.h"

#include <lauxlib.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_matrix.h"
#include "solvers/contact/contact_ip.h"

#define STATE_METATABLE "lucid.contact.relaxed_state"
#define DERIVATIVES     "sol:derivatives"
#define JVP             "sol:derivatives().jvp"
#define VJP             "sol:derivatives().vjp"

typedef struct relaxed_state {
    lucid_contact_workspace *ws;
    lucid_contact_problem p;
    int has_R;
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
    if (luaL_newmetatable(L, STATE_METATABLE)) {
        lua_pushcfunction(L, state_gc);
        lua_setfield(L, -2, "__gc");
        lucid_lua_protect_metatable(L, STATE_METATABLE);
    }
    lua_setmetatable(L, -2);
    double *G_copy = s->data, *g_copy = G_copy + m * m, *mu_copy = g_copy + m;
    double *R_copy = mu_copy + n;
    memcpy(G_copy, G, sizeof(double) * m * m);
    memcpy(g_copy, g, sizeof(double) * m);
    memcpy(mu_copy, mu, sizeof(double) * (size_t)n);
    if (R) memcpy(R_copy, R, sizeof(double) * m);
    s->has_R = R != NULL;
    s->p = (lucid_contact_problem){n, G_copy, g_copy, mu_copy, R ? R_copy : NULL};
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

/* jvp(dg [, dG [, dmu]]) -> dlambda */
static int relaxed_jvp(lua_State *L) {
    relaxed_state *s = upvalue_state(L);
    int n = s->p.n, m = 3 * n;
    lua_settop(L, 3);
    double *dg = scratch(s), *dmu = dg + m, *dG = NULL;
    lucid_lua_checkvalues(L, 1, m, dg, JVP, "dg");
    if (!lua_isnil(L, 2)) {
        lucid_lua_matrix *M = lucid_lua_checkmatrix(L, 2, JVP, "dG");
        if (M->rows != m || M->cols != m)
            lucid_lua_fail(L, JVP, "dG must be %d x %d (got %d x %d)", m, m, M->rows, M->cols);
        if (!lucid_all_finite(M->data, (long)m * m))
            lucid_lua_fail(L, JVP, "dG must be finite (has NaN or Inf)");
        dG = M->data;
    }
    if (!lua_isnil(L, 3)) lucid_lua_checkvalues(L, 3, n, dmu, JVP, "dmu");
    lucid_lua_matrix *out = lucid_lua_newvector(L, m);
    check_status(
        L, JVP,
        lucid_contact_ip_jvp(&s->p, s->ws, dg, dG, lua_isnil(L, 3) ? NULL : dmu, out->data));
    return 1;
}

/* vjp(lambda_bar) -> {g =, G =, mu =} */
static int relaxed_vjp(lua_State *L) {
    relaxed_state *s = upvalue_state(L);
    int n = s->p.n, m = 3 * n;
    lua_settop(L, 1);
    double *lbar = scratch(s);
    lucid_lua_checkvalues(L, 1, m, lbar, VJP, "lambda_bar");
    lua_createtable(L, 0, 3);
    lucid_lua_matrix *g = lucid_lua_newvector(L, m);
    lua_setfield(L, -2, "g");
    lucid_lua_matrix *G = lucid_lua_newmatrix(L, m, m);
    lua_setfield(L, -2, "G");
    lucid_lua_matrix *mu = lucid_lua_newvector(L, n);
    lua_setfield(L, -2, "mu");
    check_status(L, VJP, lucid_contact_ip_vjp(&s->p, s->ws, lbar, g->data, G->data, mu->data));
    return 1;
}

/* sol:derivatives() */
static int relaxed_derivatives(lua_State *L) {
    relaxed_state *s = upvalue_state(L);
    int n = s->p.n, m = 3 * n;
    if (lua_gettop(L) > 2 || (!lua_isnoneornil(L, 2) && lua_type(L, 2) != LUA_TTABLE))
        lucid_lua_fail(L, DERIVATIVES, "expects sol:derivatives([opts])");
    lua_createtable(L, 0, 4);
    lucid_lua_matrix *Jg = lucid_lua_newmatrix(L, m, m);
    lua_setfield(L, -2, "dlambda_dg");
    lucid_lua_matrix *Jmu = lucid_lua_newmatrix(L, m, n > 0 ? n : 0);
    lua_setfield(L, -2, "dlambda_dmu");
    double *e = scratch(s), *zero = e + m;
    memset(e, 0, sizeof(double) * (size_t)m), memset(zero, 0, sizeof(double) * (size_t)m);
    for (int j = 0; j < m; ++j) { /* one back-substitution per column */
        e[j] = 1.0;
        check_status(L, DERIVATIVES,
                     lucid_contact_ip_jvp(&s->p, s->ws, e, NULL, NULL, Jg->data + (size_t)m * j));
        e[j] = 0.0;
    }
    double *dmu = e;
    for (int i = 0; i < n; ++i) {
        dmu[i] = 1.0;
        check_status(
            L, DERIVATIVES,
            lucid_contact_ip_jvp(&s->p, s->ws, zero, NULL, dmu, Jmu->data + (size_t)m * i));
        dmu[i] = 0.0;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushcclosure(L, relaxed_jvp, 1);
    lua_setfield(L, -2, "jvp");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushcclosure(L, relaxed_vjp, 1);
    lua_setfield(L, -2, "vjp");
    return 1;
}

void lucid_lua_push_relaxed_derivatives(lua_State *L, int idx) {
    lua_pushvalue(L, idx);
    lua_pushcclosure(L, relaxed_derivatives, 1);
}
