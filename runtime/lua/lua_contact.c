/* lucid.contact: the Delassus contact problem from Lua.
 *   sol = lucid.contact.solve{G=, g=, mu=, R=, model=, solver=, tol=, max_iter=, warm_start=,
 *                             relaxation=, alpha=, rho=, stall_tol=, inner_max_iter=,
 *                             compliance=, kappa=}
 *   lucid.contact.residual(G, g, mu, lambda [, {R=, model=}])
 *   lucid.contact.options(): the contact options' description (lua_options.h)
 * A relaxed interior-point solve (solver = "ip", kappa > 0) also returns sol.kappa and
 * sol:derivatives() (lua_contact_relaxed.h).
 * Both results carry `round_off`: how much of eps_abs rounding lambda to doubles can cause
 * (solvers/contact/contact_round_off.h).
 * Memory discipline: every buffer (inputs copied out of Lua, the solver workspace, the
 * outputs) is a Lua userdata created before anything can fail, the workspace with a __gc,
 * so an error raised at any point leaves nothing the garbage collector does not own. */
#include <lauxlib.h>
#include <math.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_contact_relaxed.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_options.h"
#include "runtime/lua/modules.h"
#include "solvers/contact/contact_direction.h"
#include "solvers/contact/contact_polish.h"
#include "solvers/contact/contact_psd.h"
#include "solvers/contact/contact_round_off.h"
#include "solvers/contact/contact_solver.h"

#define WORKSPACE_METATABLE "lucid.contact.workspace"
#define SOLVE               "lucid.contact.solve"
#define RESIDUAL            "lucid.contact.residual"

typedef struct workspace_box {
    lucid_contact_workspace *ws;
} workspace_box;

static int workspace_gc(lua_State *L) {
    workspace_box *box = luaL_testudata(L, 1, WORKSPACE_METATABLE);
    if (!box) return 0;
    lucid_contact_workspace_destroy(box->ws);
    box->ws = NULL;
    return 0;
}

/* Raises the error for a failed validation or solve. */
static int fail_problem(lua_State *L, const char *fname, const lucid_contact_problem *p,
                        lucid_status status) {
    const char *why = NULL;
    if (lucid_contact_problem_validate(p, &why) != LUCID_OK)
        return lucid_lua_fail(L, fname, "%s", why);
    if (status == LUCID_ERR_NOT_SPD)
        return lucid_lua_fail(L, fname, "G + R is not positive semi-definite");
    return lucid_lua_fail_status(L, fname, status);
}

static void push_criteria(lua_State *L, const lucid_contact_criteria *c) {
    lua_createtable(L, 0, 8);
    const struct {
        const char *name;
        double value;
    } fields[] = {{"primal", c->primal},
                  {"dual", c->dual},
                  {"complementarity", c->complementarity},
                  {"abs", c->abs},
                  {"primal_scaled", c->primal_scaled},
                  {"dual_scaled", c->dual_scaled},
                  {"complementarity_scaled", c->complementarity_scaled},
                  {"scaled", c->scaled}};
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; ++k) {
        lua_pushnumber(L, fields[k].value);
        lua_setfield(L, -2, fields[k].name);
    }
}

/* solve's own keys; the contact options' are LUCID_LUA_CONTACT_SOLVE_KEYS (lua_options.h) */
static const char *const solve_keys[] = {"G", "g", "mu", "R", "warm_start", NULL};

/* The solver a warm-start solution names (its `solver`), whose dual it carries; ADMM's when it
 * names none (a table of the caller's). */
static lucid_contact_solver warm_solver(lua_State *L, int idx) {
    lucid_contact_solver solver = LUCID_CONTACT_ADMM;
    if (lua_getfield(L, idx, "solver") != LUA_TNIL &&
        (lua_type(L, -1) != LUA_TSTRING ||
         lucid_contact_solver_parse(lua_tostring(L, -1), &solver) != LUCID_OK))
        lucid_lua_fail(L, SOLVE, "warm_start.solver: unknown solver '%s'",
                       luaL_tolstring(L, -1, NULL));
    lua_pop(L, 1);
    return solver;
}

/* warm_start = an initial lambda (vec or table), or a previous solution of any solver (its
 * lambda; its dual, turned into ADMM's multiplier by lucid_contact_multiplier_from, when its
 * solver has one; its rho when it has one). Fills lambda (and dual, returning 1 when one was
 * given). */
static int read_warm_start(lua_State *L, int idx, int m, double *lambda, double *dual,
                           lucid_contact_options *o) {
    if (!lucid_lua_field(L, idx, "warm_start")) return 0;
    int top = lua_gettop(L), has_dual = 0;
    o->warm_start = 1;
    if (lua_type(L, top) == LUA_TTABLE && lua_getfield(L, top, "lambda") != LUA_TNIL) {
        lucid_lua_checkvalues(L, -1, m, lambda, SOLVE, "warm_start.lambda");
        lucid_contact_solver solver = warm_solver(L, top);
        if (lua_getfield(L, top, "dual") != LUA_TNIL) {
            lucid_lua_checkvalues(L, -1, m, dual, SOLVE, "warm_start.dual");
            has_dual = lucid_contact_multiplier_from(solver, (size_t)m, dual);
        }
        if (lua_getfield(L, top, "rho") != LUA_TNIL && o->rho <= 0.0)
            o->rho = lucid_lua_checkpositive(L, -1, SOLVE, "warm_start.rho");
    } else {
        lucid_lua_checkvalues(L, top, m, lambda, SOLVE, "warm_start");
    }
    lua_settop(L, top - 1);
    return has_dual;
}

/* Refuses an indefinite G + R (a zero row, a contact direction nothing moves, is accepted):
 * the solvers would return an answer to a problem with no physical meaning. */
static void check_psd(lua_State *L, const lucid_contact_problem *p) {
    lucid_status valid = lucid_contact_problem_validate(p, NULL);
    if (valid != LUCID_OK && valid != LUCID_ERR_NOT_SPD)
        return; /* the solve raises the validation error */
    int top = lua_gettop(L);
    size_t m = 3 * (size_t)p->n; /* G is a lucid.mat of m x m entries: m * m does not overflow */
    double *work = lua_newuserdatauv(L, sizeof(double) * (m ? m * m : 1), 0);
    if (!lucid_contact_delassus_is_psd(p, work))
        lucid_lua_fail(L, SOLVE,
                       "G + R is not positive semi-definite (a Delassus matrix J M^-1 J^T is; "
                       "its smallest eigenvalue here is negative beyond round-off)");
    lua_settop(L, top);
}

/* dual = sign (sigma + Gamma), Gamma De Saxce's mu ||sigma_T|| e_N for the NCP (0 for the CCP):
 * ADMM's multiplier at sign -1, the interior point's corrected velocity at sign +1. */
static void corrected_velocity(const lucid_contact_problem *p, lucid_contact_model model,
                               const double *sigma, double sign, double *dual) {
    for (int i = 0; i < p->n; ++i) {
        const double *s = sigma + 3 * i;
        double shift = model == LUCID_CONTACT_NCP ? p->mu[i] * hypot(s[0], s[1]) : 0.0;
        dual[3 * i] = sign * s[0];
        dual[3 * i + 1] = sign * s[1];
        dual[3 * i + 2] = sign * (s[2] + shift);
    }
}

/* An answer that meets tol on the criterion but not on the friction directions
 * (contact_direction.h; an interior point stalls there: its criterion at 1e-13, the
 * directions at ~3e-7) is polished: Newton on the equations of its modes (contact_polish.h)
 * solves them exactly where the modes are right. The polished answer is kept when it meets
 * tol on both, with its dual (when the solver returns one) recomputed from its velocity;
 * `converged` stays false otherwise. */
static void polish_direction(lua_State *L, const lucid_contact_problem *p,
                             const lucid_contact_options *o, double *lambda, double *dual,
                             lucid_contact_result *res) {
    if (res->converged || !(res->model.abs <= o->tol) || o->solver == LUCID_CONTACT_NEWTON ||
        !(o->model == LUCID_CONTACT_CCP || o->model == LUCID_CONTACT_NCP))
        return;
    int m = (int)lucid_contact_rows(p), top = lua_gettop(L);
    double *sigma = lucid_lua_newbuffer(L, m), *out = lucid_lua_newbuffer(L, m),
           *out_sigma = lucid_lua_newbuffer(L, m);
    lucid_contact_polisher *pl = lucid_contact_polisher_create(m); /* no Lua error below */
    if (!pl || !lucid_contact_polisher_fits(pl, p->n, lucid_contact_dim(p))) {
        lucid_contact_polisher_destroy(pl);
        lua_settop(L, top);
        return;
    }
    lucid_contact_velocity(p, lambda, sigma);
    lucid_contact_criteria criteria;
    /* the first look records the modes, the second (same answer) finds them settled */
    lucid_contact_polish_due(pl, p, o->model, lambda, sigma);
    int kept = lucid_contact_polish_due(pl, p, o->model, lambda, sigma) &&
               lucid_contact_polish(pl, p, o->model, o->tol, lambda, out, out_sigma, &criteria) &&
               criteria.abs <= o->tol &&
               lucid_contact_direction_residual(p, out, out_sigma) <= o->tol;
    lucid_contact_polisher_destroy(pl);
    if (kept) {
        memcpy(lambda, out, sizeof(double) * (size_t)m);
        res->model = criteria;
        lucid_contact_criteria_eval(p, LUCID_CRITERION_NCP, lambda, out_sigma, NULL, &res->ncp);
        res->converged = res->polished = 1;
        res->stalled = 0;
        if (dual)
            corrected_velocity(p, o->model, out_sigma, o->solver == LUCID_CONTACT_ADMM ? -1.0 : 1.0,
                               dual);
    }
    lua_settop(L, top);
}

static int contact_solve(lua_State *L) {
    if (lua_type(L, 1) != LUA_TTABLE)
        lucid_lua_fail(L, SOLVE, "expects a table of options (got %s)", lucid_lua_typename(L, 1));
    lua_settop(L, 1);
    lucid_contact_options o = lucid_contact_default_options();
    o.first_order = 1; /* converged: accurate to first order in tol (contact_direction.h) */
    lucid_lua_read_contact_options(L, 1, SOLVE, "", LUCID_LUA_CONTACT_SOLVE_KEYS, solve_keys, &o);
    const double *G = NULL;
    if (lua_getfield(L, 1, "G") == LUA_TNIL) lucid_lua_fail(L, SOLVE, "G is required");
    int n = lucid_lua_checkdelassus(L, lua_gettop(L), SOLVE, "G", &G); /* G stays on the stack */
    int m = 3 * n;
    double *g = lucid_lua_newbuffer(L, m), *mu = lucid_lua_newbuffer(L, n),
           *dual = lucid_lua_newbuffer(L, m);
    double *R = NULL;
    if (lua_getfield(L, 1, "g") == LUA_TNIL) lucid_lua_fail(L, SOLVE, "g is required");
    lucid_lua_checkvalues(L, -1, m, g, SOLVE, "g");
    if (lua_getfield(L, 1, "mu") == LUA_TNIL) lucid_lua_fail(L, SOLVE, "mu is required");
    lucid_lua_checkvalues(L, -1, n, mu, SOLVE, "mu");
    if (lucid_lua_field(L, 1, "R")) {
        R = lucid_lua_newbuffer(L, m);
        lucid_lua_checkvalues(L, -2, m, R, SOLVE, "R");
    }
    lucid_lua_matrix *lambda = lucid_lua_newvector(L, m > 0 ? m : 0);
    int lambda_idx = lua_gettop(L);
    int has_dual = read_warm_start(L, 1, m, lambda->data, dual, &o);
    if (!has_dual) { /* a warm lambda alone: ADMM derives its multiplier from it */
        memset(dual, 0, sizeof(double) * (size_t)m);
        o.derive_dual = 1;
    }
    int writes_dual = o.solver == LUCID_CONTACT_ADMM || o.solver == LUCID_CONTACT_IP;
    lucid_contact_problem p = {n, G, g, mu, R, 3};
    check_psd(L, &p);
    lucid_contact_workspace *ws = NULL;
    workspace_box *box = lua_newuserdatauv(L, sizeof *box, 0);
    box->ws = NULL;
    luaL_setmetatable(L, WORKSPACE_METATABLE);
    /* a relaxed ip solve keeps its problem and workspace for sol:derivatives() */
    int relaxed = o.solver == LUCID_CONTACT_IP && o.kappa > 0.0, state_idx = 0;
    if (relaxed) {
        lucid_lua_relaxed_state_new(L, SOLVE, n, G, g, mu, R, &p, &ws);
        state_idx = lua_gettop(L);
    } else {
        ws = box->ws = lucid_contact_workspace_create(n);
        if (!ws) lucid_lua_fail(L, SOLVE, "cannot allocate a workspace for %d contacts", n);
    }
    lucid_contact_result res;
    lucid_status status =
        lucid_contact_solve(&p, &o, ws, lambda->data, writes_dual ? dual : NULL, &res);
    lucid_contact_workspace_destroy(box->ws);
    box->ws = NULL;
    if (status == LUCID_ERR_ARGUMENT && o.solver == LUCID_CONTACT_NEWTON &&
        lucid_contact_problem_validate(&p, NULL) == LUCID_OK)
        lucid_lua_fail(L, SOLVE, "ccp:newton needs equal tangential compliance R per contact");
    if (status != LUCID_OK) fail_problem(L, SOLVE, &p, status);
    if (!relaxed) polish_direction(L, &p, &o, lambda->data, writes_dual ? dual : NULL, &res);

    lua_createtable(L, 0, 14);
    lua_pushvalue(L, lambda_idx);
    lua_setfield(L, -2, "lambda");
    if (writes_dual) { /* other solvers have no multiplier: no dual */
        lucid_lua_set_values(L, "dual", dual, m);
    }
    lucid_lua_set_integer(L, "iterations", res.iterations);
    lucid_lua_set_integer(L, "inner_iterations", res.inner_iterations);
    lucid_lua_set_boolean(L, "converged", res.converged);
    lucid_lua_set_boolean(L, "stalled", res.stalled);
    lucid_lua_set_boolean(L, "diverged", res.diverged);
    if (res.rho > 0.0) { /* a solver without rho (or an ADMM that chose none): no rho */
        lucid_lua_set_number(L, "rho", res.rho);
    }
    push_criteria(L, &res.ncp);
    lua_setfield(L, -2, "residual");
    push_criteria(L, &res.model);
    lua_setfield(L, -2, "model_residual");
    lucid_lua_set_number(L, "round_off", lucid_contact_round_off(&p, lambda->data));
    lucid_lua_set_string(L, "model", lucid_contact_model_name(o.model));
    lucid_lua_set_string(L, "solver", lucid_contact_solver_name(o.solver));
    if (relaxed) {
        lucid_lua_set_number(L, "kappa", o.kappa);
        lucid_lua_push_relaxed_derivatives(L, state_idx, o.model == LUCID_CONTACT_NCP, o.kappa);
        lua_setfield(L, -2, "derivatives");
    }
    return 1;
}

static int contact_residual(lua_State *L) {
    lua_settop(L, 5); /* fixed argument slots before any scratch buffer is pushed */
    const double *G = NULL;
    int n = lucid_lua_checkdelassus(L, 1, RESIDUAL, "G", &G), m = 3 * n;
    double *g = lucid_lua_newbuffer(L, m), *mu = lucid_lua_newbuffer(L, n),
           *lambda = lucid_lua_newbuffer(L, m);
    double *sigma = lucid_lua_newbuffer(L, m), *per_contact = lucid_lua_newbuffer(L, m), *R = NULL;
    lucid_lua_checkvalues(L, 2, m, g, RESIDUAL, "g");
    lucid_lua_checkvalues(L, 3, n, mu, RESIDUAL, "mu");
    lucid_lua_checkvalues(L, 4, m, lambda, RESIDUAL, "lambda");
    lucid_contact_criterion kind = LUCID_CRITERION_NCP;
    if (!lua_isnoneornil(L, 5)) {
        static const char *const keys[] = {"R", "model", NULL};
        if (lua_type(L, 5) != LUA_TTABLE)
            lucid_lua_fail(L, RESIDUAL, "options must be a table (got %s)",
                           lucid_lua_typename(L, 5));
        lucid_lua_check_option_names(L, 5, keys, RESIDUAL);
        if (lua_getfield(L, 5, "R") != LUA_TNIL) {
            R = lucid_lua_newbuffer(L, m);
            lucid_lua_checkvalues(L, -2, m, R, RESIDUAL, "R");
        }
        if (lua_getfield(L, 5, "model") != LUA_TNIL) {
            lucid_contact_model model;
            if (lua_type(L, -1) != LUA_TSTRING ||
                lucid_contact_model_parse(lua_tostring(L, -1), &model) != LUCID_OK)
                lucid_lua_fail(L, RESIDUAL, "unknown model '%s'", luaL_tolstring(L, -1, NULL));
            kind = lucid_contact_model_criterion(model);
        }
    }
    lucid_contact_problem p = {n, G, g, mu, R, 3};
    lucid_status status = lucid_contact_problem_validate(&p, NULL);
    if (status != LUCID_OK) fail_problem(L, RESIDUAL, &p, status);
    lucid_contact_velocity(&p, lambda, sigma);
    lucid_contact_criteria c;
    lucid_contact_criteria_eval(&p, kind, lambda, sigma, per_contact, &c);
    push_criteria(L, &c);
    lucid_lua_set_number(L, "round_off", lucid_contact_round_off(&p, lambda));
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; ++i) {
        lua_createtable(L, 0, 3);
        lucid_lua_set_number(L, "primal", per_contact[3 * i]);
        lucid_lua_set_number(L, "dual", per_contact[3 * i + 1]);
        lucid_lua_set_number(L, "complementarity", per_contact[3 * i + 2]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "contacts");
    lucid_lua_set_values(L, "velocity", sigma, m);
    return 1;
}

void lucid_open_contact(lua_State *L) {
    static const luaL_Reg metamethods[] = {{"__gc", workspace_gc}, {NULL, NULL}};
    lucid_lua_push_metatable(L, WORKSPACE_METATABLE, metamethods, NULL);
    lua_pop(L, 1);
    static const luaL_Reg functions[] = {{"solve", contact_solve},
                                         {"residual", contact_residual},
                                         {"options", lucid_lua_contact_option_list},
                                         {NULL, NULL}};
    luaL_newlib(L, functions);
    lucid_open_contact_derivatives(L);
    lua_setfield(L, -2, "contact");
}
