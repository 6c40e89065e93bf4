/* lucid.contact.derivatives: sensitivities of a contact solution (docs/contact_derivatives.md).
 *   D = lucid.contact.derivatives(problem, sol [, {method=, threshold=, rcond=, dense=,
 *                                                  allow_unconverged=}])
 * problem: the table given to lucid.contact.solve; sol: what it returned (lambda, converged,
 * model, solver). D: dlambda_dg (3n x 3n), dlambda_dmu (3n x n), dlambda_dR (3n x 3n, column k
 * = d lambda / d R_k) unless dense = false; dlambda_dG(dG) -> dlambda; jvp{G=, g=, mu=, R=} ->
 * dlambda; vjp(w) -> {G=, g=, mu=, R=}; modes, margins (per contact), margin, rank, size,
 * rank_deficient, free_velocity, method, model.
 * Methods: "active_set" (implicit function theorem on the active modes, every model) and
 * "relaxed" (a solution of solver "ip" with kappa > 0: the central path's derivatives from the
 * solve's own factorisation, lua_contact_relaxed.c).
 * ccp:newton solves a compliant problem: where R is 0 (or absent) it uses R = compliance x
 * trace(G_ii) / 3 (contact_newton.c); its answer is differentiated as a solution of that
 * problem, including that R's dependence on G. */
#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "autodiff/contact_derivatives.h"
#include "runtime/lua/check.h"
#include "runtime/lua/lua_contact_relaxed.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_options.h"
#include "runtime/lua/modules.h"

#define DERIVATIVES "lucid.contact.derivatives"
#define METATABLE   "lucid.contact.derivatives.state"

typedef struct state {
    lucid_contact_derivatives *d;
    int n;
    double compliance;      /* ccp:newton: R_k = compliance x trace(G_ii) / 3 where given R_k = 0 */
    unsigned char *derived; /* 3n flags: R_k is derived from G (NULL: none) */
} state;

static int state_gc(lua_State *L) {
    state *s = luaL_testudata(L, 1, METATABLE);
    if (!s) return 0;
    lucid_contact_derivatives_destroy(s->d);
    free(s->derived);
    s->d = NULL, s->derived = NULL;
    return 0;
}

static lucid_status fail_status(lua_State *L, const char *fname, lucid_status status) {
    return (lucid_status)lucid_lua_fail_status(L, fname, status);
}

/* The model of the solution: sol.model, else the problem's (problem.model or "ncp"); both
 * given must agree. */
static lucid_contact_model read_model(const lucid_lua_fields *sol, const lucid_contact_options *po,
                                      unsigned given) {
    const char *name = lucid_lua_string_field(sol, "model", 0);
    if (!name) return po->model;
    lucid_contact_model model;
    if (lucid_contact_model_parse(name, &model) != LUCID_OK)
        lucid_lua_fail(sol->L, DERIVATIVES, "unknown model '%s' (expected lcp, ccp, raisim or ncp)",
                       name);
    if ((given & LUCID_LUA_CONTACT_MODEL) && model != po->model)
        lucid_lua_fail(sol->L, DERIVATIVES, "sol.model '%s' differs from problem.model '%s'", name,
                       lucid_contact_model_name(po->model));
    return model;
}

/* dR (3n) += the change of the derived compliance under dG. */
static void derived_compliance_jvp(const state *s, const double *dG, double *dR) {
    if (!s->derived || !dG) return;
    int m = 3 * s->n;
    for (int i = 0; i < s->n; ++i) {
        double trace = 0.0;
        for (int a = 0; a < 3; ++a) trace += dG[(3 * i + a) * (size_t)(m + 1)];
        for (int a = 0; a < 3; ++a)
            if (s->derived[3 * i + a]) dR[3 * i + a] += s->compliance * trace / 3.0;
    }
}

/* gG += the cotangent reaching G through the derived compliance (gR: R's cotangent). */
static void derived_compliance_vjp(const state *s, const double *gR, double *gG) {
    if (!s->derived) return;
    int m = 3 * s->n;
    for (int i = 0; i < s->n; ++i) {
        double sum = 0.0;
        for (int a = 0; a < 3; ++a)
            if (s->derived[3 * i + a]) sum += gR[3 * i + a];
        for (int a = 0; a < 3; ++a) gG[(3 * i + a) * (size_t)(m + 1)] += s->compliance * sum / 3.0;
    }
}

static state *upvalue_state(lua_State *L, const char *fname) {
    state *s = luaL_testudata(L, lua_upvalueindex(1), METATABLE);
    if (!s || !s->d) lucid_lua_fail(L, fname, "the derivatives have been finalized");
    return s;
}

/* The directional derivative: jvp{G=, g=, mu=, R=} (each optional). */
static int jvp(lua_State *L) {
    const char *fname = DERIVATIVES ".jvp";
    state *s = upvalue_state(L, fname);
    int m = 3 * s->n;
    if (lua_type(L, 1) != LUA_TTABLE)
        lucid_lua_fail(L, fname, "expects a table {G=, g=, mu=, R=} (got %s)",
                       lucid_lua_typename(L, 1));
    lua_settop(L, 1);
    static const char *const keys[] = {"G", "g", "mu", "R", NULL};
    lucid_lua_check_option_names(L, 1, keys, fname);
    double *dG = NULL, *dg = NULL, *dmu = NULL, *dR = lucid_lua_newbuffer(L, (size_t)m);
    int has_R = 0;
    if (lucid_lua_field(L, 1, "G")) {
        dG = lucid_lua_newbuffer(L, (size_t)m * (size_t)m);
        memcpy(dG, lucid_lua_checksquare(L, -2, m, fname, "G"),
               sizeof(double) * (size_t)m * (size_t)m);
    }
    if (lucid_lua_field(L, 1, "g")) {
        dg = lucid_lua_newbuffer(L, m);
        lucid_lua_checkvalues(L, -2, m, dg, fname, "g");
    }
    if (lucid_lua_field(L, 1, "mu")) {
        dmu = lucid_lua_newbuffer(L, s->n);
        lucid_lua_checkvalues(L, -2, s->n, dmu, fname, "mu");
    }
    if (lucid_lua_field(L, 1, "R")) lucid_lua_checkvalues(L, -1, m, dR, fname, "R"), has_R = 1;
    derived_compliance_jvp(s, dG, dR);
    lucid_lua_matrix *out = lucid_lua_newvector(L, m);
    lucid_status status = lucid_contact_derivatives_jvp(
        s->d, dG, dg, dmu, has_R || (s->derived && dG) ? dR : NULL, out->data);
    if (status != LUCID_OK) fail_status(L, fname, status);
    return 1;
}

static int dlambda_dG(lua_State *L) {
    const char *fname = DERIVATIVES ".dlambda_dG";
    state *s = upvalue_state(L, fname);
    int m = 3 * s->n;
    lua_settop(L, 1);
    double *dG = lucid_lua_newbuffer(L, (size_t)m * (size_t)m), *dR = lucid_lua_newbuffer(L, m);
    memcpy(dG, lucid_lua_checksquare(L, 1, m, fname, "dG"), sizeof(double) * (size_t)m * (size_t)m);
    derived_compliance_jvp(s, dG, dR);
    lucid_lua_matrix *out = lucid_lua_newvector(L, m);
    lucid_status status =
        lucid_contact_derivatives_jvp(s->d, dG, NULL, NULL, s->derived ? dR : NULL, out->data);
    if (status != LUCID_OK) fail_status(L, fname, status);
    return 1;
}

/* vjp(w) -> {G=, g=, mu=, R=}: the cotangents of w . lambda. */
static int vjp(lua_State *L) {
    const char *fname = DERIVATIVES ".vjp";
    state *s = upvalue_state(L, fname);
    int n = s->n, m = 3 * n;
    lua_settop(L, 1);
    double *w = lucid_lua_newbuffer(L, m);
    lucid_lua_checkvalues(L, 1, m, w, fname, "w");
    lucid_lua_matrix *gG = lucid_lua_newmatrix(L, m > 0 ? m : 1, m > 0 ? m : 1);
    int gG_idx = lua_gettop(L);
    lucid_lua_matrix *gg = lucid_lua_newvector(L, m);
    int gg_idx = lua_gettop(L);
    lucid_lua_matrix *gmu = lucid_lua_newvector(L, n);
    int gmu_idx = lua_gettop(L);
    lucid_lua_matrix *gR = lucid_lua_newvector(L, m);
    int gR_idx = lua_gettop(L);
    lucid_status status =
        lucid_contact_derivatives_vjp(s->d, w, gG->data, gg->data, gmu->data, gR->data);
    if (status != LUCID_OK) fail_status(L, fname, status);
    derived_compliance_vjp(s, gR->data, gG->data);
    lua_createtable(L, 0, 4);
    lua_pushvalue(L, gG_idx);
    lua_setfield(L, -2, "G");
    lua_pushvalue(L, gg_idx);
    lua_setfield(L, -2, "g");
    lua_pushvalue(L, gmu_idx);
    lua_setfield(L, -2, "mu");
    lua_pushvalue(L, gR_idx);
    lua_setfield(L, -2, "R");
    return 1;
}

static void push_closure(lua_State *L, int state_idx, lua_CFunction f, const char *name) {
    lua_pushvalue(L, state_idx);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, -2, name);
}

/* the problem's own keys; its contact options are lucid.contact.solve's (lua_options.h) */
static const char *const problem_keys[] = {"G", "g", "mu", "R", "warm_start", NULL};
/* opts: lucid_contact_derivative_option_table's keys and the binding's own */
static const char *const own_option_keys[] = {"method", "dense", "allow_unconverged", NULL};

static int contact_derivatives(lua_State *L) {
    lua_settop(L, 3);
    luaL_checkstack(L, 40, DERIVATIVES);
    if (lua_type(L, 1) != LUA_TTABLE)
        lucid_lua_fail(L, DERIVATIVES, "problem must be a table (got %s)",
                       lucid_lua_typename(L, 1));
    if (lua_type(L, 2) != LUA_TTABLE)
        lucid_lua_fail(L, DERIVATIVES, "sol must be a table (got %s)", lucid_lua_typename(L, 2));
    if (!lua_isnil(L, 3) && lua_type(L, 3) != LUA_TTABLE)
        lucid_lua_fail(L, DERIVATIVES, "opts must be a table (got %s)", lucid_lua_typename(L, 3));
    lucid_contact_options po = lucid_contact_default_options();
    unsigned given = lucid_lua_read_contact_options(
        L, 1, DERIVATIVES, "problem.", LUCID_LUA_CONTACT_SOLVE_KEYS, problem_keys, &po);
    if (lua_isnil(L, 3)) {
        lua_newtable(L);
        lua_replace(L, 3);
    }
    const char *option_keys[8];
    lucid_lua_option_names(lucid_contact_derivative_option_table, own_option_keys, option_keys, 8);
    lucid_lua_check_option_names_prefixed(L, 3, option_keys, DERIVATIVES, "opts.");
    lucid_lua_fields opts = lucid_lua_fields_at(L, 3, DERIVATIVES, "opts.");
    lucid_lua_fields sol = lucid_lua_fields_at(L, 2, DERIVATIVES, "sol.");
    const char *method = lucid_lua_string_field(&opts, "method", 0);
    int dense = lucid_lua_boolean_field(&opts, "dense", 1);
    int allow = lucid_lua_boolean_field(&opts, "allow_unconverged", 0);
    if (method && strcmp(method, "relaxed") == 0) /* lua_contact_relaxed.c */
        return lucid_lua_relaxed_contact_derivatives(L, 1, 2, dense, allow, DERIVATIVES);
    if (method && strcmp(method, "active_set") != 0)
        lucid_lua_fail(L, DERIVATIVES, "unknown opts.method '%s' (expected active_set or relaxed)",
                       method);
    lucid_contact_model model = read_model(&sol, &po, given);
    const char *solver = lucid_lua_string_field(&sol, "solver", 0);
    if (solver && strcmp(solver, "ip") == 0 && po.kappa > 0.0)
        /* a point of the central path, not a solution of the model */
        lucid_lua_fail(L, DERIVATIVES,
                       "sol is a relaxed ip solution (kappa = %f > 0): the active-set "
                       "derivatives are those of exact solutions (kappa = 0)",
                       po.kappa);
    lucid_contact_derivative_options o = lucid_contact_derivative_default_options(model);
    lucid_lua_read_option_table(&opts, lucid_contact_derivative_option_table, &o);

    /* the problem */
    if (!lucid_lua_field(L, 1, "G")) lucid_lua_fail(L, DERIVATIVES, "problem.G is required");
    const double *G;
    int n = lucid_lua_checkdelassus(L, -1, DERIVATIVES, "problem.G", &G), m = 3 * n;
    double *g = lucid_lua_newbuffer(L, m), *mu = lucid_lua_newbuffer(L, n), *R = NULL,
           *lambda = lucid_lua_newbuffer(L, m);
    if (!lucid_lua_field(L, 1, "g")) lucid_lua_fail(L, DERIVATIVES, "problem.g is required");
    lucid_lua_checkvalues(L, -1, m, g, DERIVATIVES, "problem.g");
    if (!lucid_lua_field(L, 1, "mu")) lucid_lua_fail(L, DERIVATIVES, "problem.mu is required");
    lucid_lua_checkvalues(L, -1, n, mu, DERIVATIVES, "problem.mu");
    int newton = model == LUCID_CONTACT_CCP && solver && strcmp(solver, "newton") == 0;
    if (lucid_lua_field(L, 1, "R")) {
        R = lucid_lua_newbuffer(L, m);
        lucid_lua_checkvalues(L, -2, m, R, DERIVATIVES, "problem.R");
    }

    /* the solution */
    if (!lucid_lua_field(L, 2, "lambda")) lucid_lua_fail(L, DERIVATIVES, "sol.lambda is required");
    lucid_lua_checkvalues(L, -1, m, lambda, DERIVATIVES, "sol.lambda");
    lua_getfield(L, 2, "converged");
    if (!allow && !lua_toboolean(L, -1))
        lucid_lua_fail(L, DERIVATIVES,
                       "the solution did not converge (sol.converged is not true; pass "
                       "opts.allow_unconverged = true to differentiate it anyway)");

    state *s = lua_newuserdatauv(L, sizeof *s, 0);
    memset(s, 0, sizeof *s);
    luaL_setmetatable(L, METATABLE);
    int state_idx = lua_gettop(L);
    s->n = n;
    s->d = lucid_contact_derivatives_create(n);
    if (!s->d) lucid_lua_fail(L, DERIVATIVES, "cannot allocate storage for %d contacts", n);
    lucid_contact_problem p = {n, G, g, mu, R, 3};
    if (newton) { /* the compliance ccp:newton solved with, some of it derived from G */
        s->compliance = po.newton_compliance;
        s->derived = calloc((size_t)(m > 0 ? m : 1), 1);
        if (!s->derived) lucid_lua_fail(L, DERIVATIVES, "out of memory");
        double *solved_R = lucid_lua_newbuffer(L, m);
        if (lucid_contact_newton_compliance(&p, s->compliance, solved_R, s->derived) != LUCID_OK)
            lucid_lua_fail(L, DERIVATIVES,
                           "ccp:newton needs equal tangential compliance R per contact");
        p.R = solved_R;
    }
    const char *why = NULL; /* after the compliance: a newton problem's R = 0 rows are filled */
    lucid_status status = lucid_contact_problem_validate(&p, &why);
    if (status != LUCID_OK) lucid_lua_fail(L, DERIVATIVES, "%s", why ? why : "invalid problem");
    status = lucid_contact_derivatives_factor(s->d, &p, lambda, &o);
    if (status != LUCID_OK) fail_status(L, DERIVATIVES, status);
    lucid_contact_derivative_info info;
    lucid_contact_derivatives_get_info(s->d, &info);

    lua_createtable(L, 0, 16);
    if (dense) {
        lucid_lua_matrix *Jg = lucid_lua_newmatrix(L, m > 0 ? m : 1, m > 0 ? m : 1);
        lucid_lua_matrix *Jmu = lucid_lua_newmatrix(L, m > 0 ? m : 1, n > 0 ? n : 1);
        lucid_lua_matrix *JR = lucid_lua_newmatrix(L, m > 0 ? m : 1, m > 0 ? m : 1);
        if (m > 0) {
            status = lucid_contact_derivatives_jacobian(s->d, Jg->data, Jmu->data, JR->data);
            if (status != LUCID_OK) fail_status(L, DERIVATIVES, status);
        }
        lua_setfield(L, -4, "dlambda_dR");
        lua_setfield(L, -3, "dlambda_dmu");
        lua_setfield(L, -2, "dlambda_dg");
    }
    push_closure(L, state_idx, dlambda_dG, "dlambda_dG");
    push_closure(L, state_idx, jvp, "jvp");
    push_closure(L, state_idx, vjp, "vjp");
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; ++i) {
        lua_pushstring(L, lucid_contact_mode_name(lucid_contact_derivatives_mode(s->d, i)));
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "modes");
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; ++i) {
        lua_pushnumber(L, lucid_contact_derivatives_margin(s->d, i));
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "margins");
    lucid_lua_set_number(L, "margin", info.margin);
    lucid_lua_set_integer(L, "rank", info.rank);
    lucid_lua_set_integer(L, "size", info.size);
    lucid_lua_set_boolean(L, "rank_deficient", info.rank_deficient);
    lucid_lua_set_number(L, "free_velocity", info.free_velocity);
    lucid_lua_set_string(L, "method", "active_set");
    lucid_lua_set_string(L, "model", lucid_contact_model_name(model));
    return 1;
}

void lucid_open_contact_derivatives(lua_State *L) {
    static const luaL_Reg metamethods[] = {{"__gc", state_gc}, {NULL, NULL}};
    lucid_lua_push_metatable(L, METATABLE, metamethods, NULL);
    lua_pop(L, 1);
    lua_pushcfunction(L, contact_derivatives);
    lua_setfield(L, -2, "derivatives");
}
