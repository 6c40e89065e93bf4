/* lucid.ad.primitive: new differentiable operations defined in Lua.
 *
 *   P = lucid.ad.primitive{
 *     forward  = function(x) return y end,        -- x: lucid.vec (n); y: number or lucid.vec (m)
 *     jvp      = function(x, dx) return dy end,   -- dy = J(x) dx      (dx: n, dy: m)
 *     vjp      = function(x, w) return wx end,    -- wx = J(x)^T w     (w: m, wx: n)
 *     jacobian = function(x) return J end,        -- J: m x n lucid.mat
 *     name     = "label",                         -- optional, for error messages
 *   }
 *   y = P(a, b, ...)  -- the arguments are joined into x as lucid.ad.concat would
 *
 * forward is required, plus at least one of jvp, vjp, jacobian: a missing product is built
 * from the others (jacobian, else n jvp or m vjp calls on unit vectors). Called with no
 * differentiable argument, P(...) just returns forward(x).
 *
 * The tape calls the products during a sweep through lucid_lua_ad_primitive_ops. Each call
 * runs under lua_pcall, so an error in user code is caught there, left in the sweep's error
 * slot and reported as a failed status: the C sweep unwinds normally and the evaluation's
 * cleanup resets the tape. Every buffer used here is a Lua userdata. */
#include <lauxlib.h>
#include <math.h>
#include <string.h>

#include "autodiff/ad_ops.h"
#include "runtime/lua/check.h"
#include "runtime/lua/lua_ad.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/math/finite.h"

#define FNAME "lucid.ad.primitive"

static const char *const spec_fields[] = {"forward", "jvp", "vjp", "jacobian", NULL};

/* Copies the validated spec (arg 1) into a new table on top of the stack. */
static void push_checked_spec(lua_State *L) {
    if (lua_type(L, 1) != LUA_TTABLE)
        lucid_lua_fail(L, FNAME, "spec must be a table (got %s)", lucid_lua_typename(L, 1));
    static const char *const all_fields[] = {"forward", "jvp", "vjp", "jacobian", "name", NULL};
    lucid_lua_check_option_names_prefixed(L, 1, all_fields, FNAME, "spec."); /* misspellings */
    lua_newtable(L);
    int products = 0;
    for (int i = 0; spec_fields[i]; ++i) {
        int type = lua_getfield(L, 1, spec_fields[i]);
        if (type != LUA_TNIL && type != LUA_TFUNCTION)
            lucid_lua_fail(L, FNAME, "spec.%s must be a function (got %s)", spec_fields[i],
                           lucid_lua_typename(L, -1));
        if (i == 0 && type != LUA_TFUNCTION) lucid_lua_fail(L, FNAME, "spec.forward is required");
        products += i > 0 && type == LUA_TFUNCTION;
        lua_setfield(L, -2, spec_fields[i]);
    }
    if (!products) lucid_lua_fail(L, FNAME, "spec needs jvp, vjp or jacobian");
    int type = lua_getfield(L, 1, "name");
    if (type != LUA_TNIL && type != LUA_TSTRING)
        lucid_lua_fail(L, FNAME, "spec.name must be a string (got %s)", lucid_lua_typename(L, -1));
    lua_setfield(L, -2, "name");
}

/* "lucid.ad.primitive 'name'" for messages about one primitive (pushed on the stack). */
static const char *push_label(lua_State *L, int spec_idx) {
    lua_getfield(L, spec_idx, "name");
    const char *name = lua_tostring(L, -1);
    lua_pop(L, 1);
    return name ? lua_pushfstring(L, FNAME " '%s'", name) : lua_pushstring(L, FNAME);
}

/* Calls the user function below its nargs arguments; an error it raises is re-raised as
 * "LABEL: WHAT failed: message" so the report names the primitive. */
static void call_user(lua_State *L, int nargs, const char *label, const char *what) {
    if (lua_pcall(L, nargs, 1, 0) == LUA_OK) return;
    const char *msg =
        lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : lucid_lua_typename(L, -1);
    lucid_lua_fail(L, label, "%s failed: %s", what, msg);
}

/* Entries contributed by argument idx to x. */
static int argument_size(lua_State *L, int idx, const char *label) {
    lucid_lua_ad_var *v = lucid_lua_ad_tovar(L, idx, label);
    if (v) return lucid_ad_var_size(v->owner->tape, v->var);
    if (lua_type(L, idx) == LUA_TNUMBER) return 1;
    lucid_lua_matrix *m = lucid_lua_tomatrix(L, idx);
    if (m && (m->is_vector || m->cols == 1)) return m->rows;
    if (lua_type(L, idx) == LUA_TTABLE) return (int)luaL_len(L, idx);
    return lucid_lua_fail(L, label,
                          "argument %d must be a differentiable value, a number or a "
                          "lucid.vec (got %s)",
                          idx, lucid_lua_typename(L, idx));
}

/* Pushes x = the joined values of arguments 1..nargs as a lucid.vec. */
static void push_joined_values(lua_State *L, int nargs, const char *label) {
    int total = 0;
    for (int i = 1; i <= nargs; ++i) total += argument_size(L, i, label);
    if (total < 1) lucid_lua_fail(L, label, "no input values");
    lucid_lua_matrix *x = lucid_lua_newvector(L, total);
    double *at = x->data;
    for (int i = 1; i <= nargs; ++i) {
        int n = argument_size(L, i, label);
        lucid_lua_ad_var *v = lucid_lua_ad_tovar(L, i, label);
        if (v)
            memcpy(at, lucid_ad_var_values(v->owner->tape, v->var), (size_t)n * sizeof(double));
        else if (lua_type(L, i) == LUA_TNUMBER)
            *at = lucid_lua_checkfinite(L, i, label, "argument");
        else
            lucid_lua_checkvalues(L, i, n, at, label, "argument");
        at += n;
    }
}

/* P(...): upvalue 1 is the spec. Stack: args 1..nargs, label, x, forward(x). */
static int apply(lua_State *L) {
    int nargs = lua_gettop(L);
    const char *label = push_label(L, lua_upvalueindex(1));
    int owner_idx = 0;
    for (int i = 1; i <= nargs && !owner_idx; ++i)
        if (lucid_lua_ad_tovar(L, i, label)) owner_idx = i;
    push_joined_values(L, nargs, label);
    lua_getfield(L, lua_upvalueindex(1), "forward");
    lua_pushvalue(L, nargs + 2);
    call_user(L, 1, label, "forward");
    int result_idx = nargs + 3;
    if (!owner_idx) return 1;
    int m = lua_type(L, result_idx) == LUA_TNUMBER ? 1
            : lucid_lua_tomatrix(L, result_idx) || lua_type(L, result_idx) == LUA_TTABLE
                ? argument_size(L, result_idx, label)
                : 0;
    if (m < 1)
        lucid_lua_fail(L, label, "forward must return a number or a non-empty lucid.vec (got %s)",
                       lucid_lua_typename(L, result_idx));
    double *y = lua_newuserdatauv(L, (size_t)m * sizeof(double), 0);
    if (lua_type(L, result_idx) == LUA_TNUMBER) {
        y[0] = lua_tonumber(L, result_idx);
        if (!isfinite(y[0])) lucid_lua_fail(L, label, "forward result must be finite");
    } else {
        lucid_lua_checkvalues(L, result_idx, m, y, label, "forward result");
    }
    lucid_lua_ad_var *owner = lua_touserdata(L, owner_idx);
    lucid_ad_var x = owner->var;
    if (nargs > 1) {
        lucid_ad_var *parts = lua_newuserdatauv(L, (size_t)nargs * sizeof *parts, 0);
        for (int i = 1; i <= nargs; ++i)
            parts[i - 1] = lucid_lua_ad_node(L, i, owner->owner, label);
        lucid_status s = lucid_ad_concat(owner->owner->tape, parts, nargs, &x);
        if (s != LUCID_OK) lucid_lua_ad_fail(L, label, s);
    }
    lucid_lua_ad_pushtape(L, owner_idx);
    int tape_idx = lua_gettop(L);
    lua_getiuservalue(L, tape_idx, 1); /* the evaluation's primitive list */
    long id = (long)luaL_len(L, -1) + 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_rawseti(L, -2, id);
    lucid_ad_var out;
    lucid_status s = lucid_ad_apply_primitive(owner->owner->tape, &lucid_lua_ad_primitive_ops, id,
                                              x, y, m, &out);
    if (s != LUCID_OK) lucid_lua_ad_fail(L, label, s);
    lucid_lua_ad_pushvar(L, tape_idx, out);
    return 1;
}

int lucid_lua_ad_primitive(lua_State *L) {
    push_checked_spec(L);
    lua_pushcclosure(L, apply, 1);
    return 1;
}

/* ---- products during a sweep -------------------------------------------------------- */

typedef struct product_call {
    lucid_lua_ad_sweep *sweep;
    int reverse;
    long id;
    const double *x;
    int n, m;
    const double *in; /* dx (n x w) forward, wy (m x w) reverse */
    double *out;      /* dy (m x w) forward, wx (n x w) reverse */
    int w;
} product_call;

/* Calls fn (at fn_idx) as fn(x, v) with v = unit vector e_k or column c of a block, and
 * stores its result (out_size values) in out. */
static void call_product(lua_State *L, int fn_idx, int x_idx, const double *v, int v_size,
                         double *out, int out_size, const char *label, const char *what) {
    lua_pushvalue(L, fn_idx);
    lua_pushvalue(L, x_idx);
    lucid_lua_pushvalues(L, v, v_size);
    call_user(L, 2, label, what);
    lua_pushfstring(L, "%s result", what);
    lucid_lua_checkvalues(L, -2, out_size, out, label, lua_tostring(L, -1));
    lua_pop(L, 1);
    lua_pop(L, 1);
}

/* The dense m x n Jacobian (column-major) from spec.jacobian or the other product. */
static void dense_jacobian(lua_State *L, const product_call *c, int spec_idx, int x_idx, double *J,
                           const char *label) {
    int m = c->m, n = c->n;
    if (lua_getfield(L, spec_idx, "jacobian") == LUA_TFUNCTION) {
        lua_pushvalue(L, x_idx);
        call_user(L, 1, label, "jacobian");
        lucid_lua_matrix *M = lucid_lua_tomatrix(L, -1);
        if (!M || M->rows != m || M->cols != n)
            lucid_lua_fail(L, label, "jacobian must return a %d x %d lucid.mat", m, n);
        if (!lucid_all_finite(M->data, (long)m * n))
            lucid_lua_fail(L, label, "jacobian result must be finite (has NaN or Inf)");
        memcpy(J, M->data, (size_t)m * (size_t)n * sizeof(double));
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    /* forward needs the missing jvp from vjp (rows), reverse the missing vjp from jvp */
    int by_rows = !c->reverse;
    lua_getfield(L, spec_idx, by_rows ? "vjp" : "jvp");
    int fn_idx = lua_gettop(L), count = by_rows ? m : n, len = by_rows ? n : m;
    double *unit = lua_newuserdatauv(L, (size_t)count * sizeof(double), 0);
    double *res = lua_newuserdatauv(L, (size_t)len * sizeof(double), 0);
    memset(unit, 0, (size_t)count * sizeof(double));
    for (int k = 0; k < count; ++k) {
        unit[k] = 1.0;
        call_product(L, fn_idx, x_idx, unit, count, res, len, label, by_rows ? "vjp" : "jvp");
        unit[k] = 0.0;
        for (int e = 0; e < len; ++e) J[by_rows ? k + (size_t)m * e : e + (size_t)m * k] = res[e];
    }
    lua_pop(L, 3);
}

/* Runs under lua_pcall with (product_call light userdata, spec). */
static int product_body(lua_State *L) {
    product_call *c = lua_touserdata(L, 1);
    int in_size = c->reverse ? c->m : c->n, out_size = c->reverse ? c->n : c->m;
    int spec_idx = 2;
    const char *label = push_label(L, spec_idx);
    lucid_lua_pushvalues(L, c->x, c->n);
    int x_idx = lua_gettop(L);
    double *col_in = lua_newuserdatauv(L, (size_t)in_size * sizeof(double), 0);
    double *col_out = lua_newuserdatauv(L, (size_t)out_size * sizeof(double), 0);
    double *J = NULL;
    int fn_type = lua_getfield(L, spec_idx, c->reverse ? "vjp" : "jvp");
    int fn_idx = lua_gettop(L);
    if (fn_type != LUA_TFUNCTION) {
        J = lua_newuserdatauv(L, (size_t)c->m * (size_t)c->n * sizeof(double), 0);
        dense_jacobian(L, c, spec_idx, x_idx, J, label);
    }
    for (int col = 0; col < c->w; ++col) {
        for (int r = 0; r < in_size; ++r) col_in[r] = c->in[(size_t)r * (size_t)c->w + col];
        if (J) {
            for (int r = 0; r < out_size; ++r) {
                double sum = 0.0;
                for (int s = 0; s < in_size; ++s)
                    sum += (c->reverse ? J[s + (size_t)c->m * r] : J[r + (size_t)c->m * s]) *
                           col_in[s];
                col_out[r] = sum;
            }
        } else {
            call_product(L, fn_idx, x_idx, col_in, in_size, col_out, out_size, label,
                         c->reverse ? "vjp" : "jvp");
        }
        for (int r = 0; r < out_size; ++r) c->out[(size_t)r * (size_t)c->w + col] = col_out[r];
    }
    return 0;
}

static lucid_status run_product(product_call *c) {
    lua_State *L = c->sweep->L;
    if (!lua_checkstack(L, 6)) return LUCID_ERR_NO_MEMORY;
    lua_pushcfunction(L, product_body);
    lua_pushlightuserdata(L, c);
    /* the spec is fetched here, in the frame whose stack holds the tape */
    lua_getiuservalue(L, c->sweep->tape_idx, 1);
    lua_rawgeti(L, -1, c->id);
    lua_remove(L, -2);
    if (lua_pcall(L, 2, 0, 0) == LUA_OK) return LUCID_OK;
    lua_replace(L, c->sweep->err_idx);
    c->sweep->failed = 1;
    return LUCID_ERR_ARGUMENT;
}

static lucid_status lua_jvp(void *ctx, long id, const double *x, int n, const double *y, int m,
                            const double *dx, double *dy, int width) {
    (void)y;
    product_call c = {ctx, 0, id, x, n, m, dx, dy, width};
    return run_product(&c);
}

static lucid_status lua_vjp(void *ctx, long id, const double *x, int n, const double *y, int m,
                            const double *wy, double *wx, int width) {
    (void)y;
    product_call c = {ctx, 1, id, x, n, m, wy, wx, width};
    return run_product(&c);
}

const lucid_ad_primitive lucid_lua_ad_primitive_ops = {lua_jvp, lua_vjp};
