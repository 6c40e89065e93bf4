/* lucid.ad: differentiable values recorded on a tape (autodiff/), their operators, and
 * jacobian / grad. Each evaluation runs f under lua_pcall with a tape owned by a userdata;
 * whatever happens the tape is reset afterwards, which frees nothing but invalidates every
 * value f saw, so a value kept after its evaluation raises a "stale" error when used. */
#include "runtime/lua/lua_ad.h"

#include <lauxlib.h>
#include <math.h>
#include <string.h>

#include "autodiff/ad_ops.h"
#include "autodiff/jacobian.h"
#include "runtime/lua/check.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/modules.h"
#include "runtime/math/finite.h"

/* Registry key of the state's spare tape (the address is the key; never written). */
static const char spare_tape_key = 0;

/* ---- tapes ------------------------------------------------------------------------- */

/* Safe to call twice; a tape in use by an evaluation (on the stack, so not garbage: only a
 * call by hand can get here) is left alone. */
static int tape_gc(lua_State *L) {
    lucid_lua_ad_tape *t = luaL_testudata(L, 1, LUCID_AD_TAPE_METATABLE);
    if (!t || t->busy) return 0;
    lucid_ad_tape_destroy(t->tape);
    t->tape = NULL;
    return 0;
}

static lucid_lua_ad_tape *push_new_tape(lua_State *L, const char *fname) {
    lucid_lua_ad_tape *t = lua_newuserdatauv(L, sizeof *t, 1);
    t->tape = NULL;
    t->busy = 0;
    luaL_setmetatable(L, LUCID_AD_TAPE_METATABLE); /* __gc owns the tape from here on */
    t->tape = lucid_ad_tape_create();
    if (!t->tape) lucid_lua_fail_status(L, fname, LUCID_ERR_NO_MEMORY);
    return t;
}

/* Pushes a tape for a new evaluation: the state's spare one (whose arena is reused), or a
 * fresh one when the spare is busy with an enclosing evaluation. */
static lucid_lua_ad_tape *acquire_tape(lua_State *L, const char *fname) {
    lua_rawgetp(L, LUA_REGISTRYINDEX, &spare_tape_key);
    lucid_lua_ad_tape *t = luaL_testudata(L, -1, LUCID_AD_TAPE_METATABLE);
    if (!t || t->busy || !t->tape) {
        int have_spare = t != NULL && t->tape != NULL; /* a finalized spare is replaced */
        lua_pop(L, 1);
        t = push_new_tape(L, fname);
        if (!have_spare) {
            lua_pushvalue(L, -1);
            lua_rawsetp(L, LUA_REGISTRYINDEX, &spare_tape_key);
        }
    }
    lucid_ad_tape_reset(t->tape);
    t->busy = 1;
    lua_newtable(L); /* the Lua primitives of this evaluation */
    lua_setiuservalue(L, -2, 1);
    return t;
}

static void release_tape(lua_State *L, int idx) {
    lucid_lua_ad_tape *t = lua_touserdata(L, idx);
    lucid_ad_tape_reset(t->tape);
    t->busy = 0;
    lua_pushnil(L);
    lua_setiuservalue(L, idx, 1);
}

/* ---- differentiable values --------------------------------------------------------- */

lucid_lua_ad_var *lucid_lua_ad_tovar(lua_State *L, int idx, const char *fname) {
    lucid_lua_ad_var *v = luaL_testudata(L, idx, LUCID_AD_VAR_METATABLE);
    if (v && (!v->owner->busy || !lucid_ad_var_is_live(v->owner->tape, v->var)))
        lucid_lua_fail(L, fname,
                       "stale differentiable value (its lucid.ad evaluation has finished)");
    if (v && v->owner->tape->sweeping)
        lucid_lua_fail(L, fname,
                       "differentiable values cannot be used while derivatives are computed "
                       "(inside a primitive's jvp, vjp or jacobian)");
    return v;
}

void lucid_lua_ad_pushvar(lua_State *L, int tape_idx, lucid_ad_var v) {
    tape_idx = lua_absindex(L, tape_idx);
    lucid_lua_ad_var *u = lua_newuserdatauv(L, sizeof *u, 1);
    u->owner = lua_touserdata(L, tape_idx);
    u->var = v;
    luaL_setmetatable(L, LUCID_AD_VAR_METATABLE);
    lua_pushvalue(L, tape_idx);
    lua_setiuservalue(L, -2, 1);
}

void lucid_lua_ad_pushtape(lua_State *L, int idx) {
    lua_getiuservalue(L, idx, 1);
}

int lucid_lua_ad_fail(lua_State *L, const char *fname, lucid_status status) {
    switch (status) {
        case LUCID_ERR_NONFINITE:
            return lucid_lua_fail(L, fname,
                                  "result is not finite (NaN or Inf: argument outside the "
                                  "domain, division by zero or overflow)");
        case LUCID_ERR_ARGUMENT:
            return lucid_lua_fail(L, fname, "invalid operands (sizes or ranges do not match)");
        default:
            return lucid_lua_fail_status(L, fname, status);
    }
}

static int var_size(const lucid_lua_ad_var *v) {
    return lucid_ad_var_size(v->owner->tape, v->var);
}

lucid_ad_var lucid_lua_ad_node(lua_State *L, int idx, lucid_lua_ad_tape *owner, const char *fname) {
    lucid_lua_ad_var *v = lucid_lua_ad_tovar(L, idx, fname);
    if (v) {
        if (v->owner != owner)
            lucid_lua_fail(L, fname,
                           "differentiable values of different evaluations cannot be mixed");
        return v->var;
    }
    lucid_ad_var out = {0, 0};
    lucid_status s = LUCID_ERR_ARGUMENT;
    lucid_lua_matrix *m = lucid_lua_tomatrix(L, idx);
    if (lua_type(L, idx) == LUA_TNUMBER) {
        double x = lucid_lua_checkfinite(L, idx, fname, "operand");
        s = lucid_ad_constant(owner->tape, &x, 1, &out);
    } else if (m) {
        if (!m->is_vector && m->cols != 1)
            lucid_lua_fail(L, fname, "a %d x %d matrix can only multiply a vector (A * x)", m->rows,
                           m->cols);
        if (!lucid_all_finite(m->data, m->rows))
            lucid_lua_fail(L, fname, "operand must be finite (has NaN or Inf)");
        s = lucid_ad_constant(owner->tape, m->data, m->rows, &out);
    } else if (lua_type(L, idx) == LUA_TTABLE) {
        idx = lua_absindex(L, idx);
        int n = (int)luaL_len(L, idx);
        double *buf = lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1) * sizeof(double), 0);
        lucid_lua_checkvalues(L, idx, n, buf, fname, "operand");
        s = n > 0 ? lucid_ad_constant(owner->tape, buf, n, &out) : LUCID_ERR_ARGUMENT;
        lua_pop(L, 1);
    } else {
        lucid_lua_fail(L, fname,
                       "operand must be a differentiable value, a number or a lucid.vec (got %s)",
                       lucid_lua_typename(L, idx));
    }
    if (s != LUCID_OK) lucid_lua_ad_fail(L, fname, s);
    return out;
}

/* The live value at idx, or an error naming what was expected. */
static lucid_lua_ad_var *check_var(lua_State *L, int idx, const char *fname) {
    lucid_lua_ad_var *v = lucid_lua_ad_tovar(L, idx, fname);
    if (!v)
        lucid_lua_fail(L, fname, "expected a differentiable value (got %s)",
                       lucid_lua_typename(L, idx));
    return v;
}

/* Pushes the result node as a new value of the tape of the value at owner_idx. */
static int push_result(lua_State *L, int owner_idx, lucid_status s, lucid_ad_var out,
                       const char *fname) {
    if (s != LUCID_OK) lucid_lua_ad_fail(L, fname, s);
    lucid_lua_ad_pushtape(L, owner_idx);
    lucid_lua_ad_pushvar(L, -1, out);
    return 1;
}

/* ---- operators --------------------------------------------------------------------- */

static int matvec(lua_State *L, const lucid_lua_matrix *A, lucid_lua_ad_var *x, const char *fname) {
    if (A->cols != var_size(x))
        lucid_lua_fail(L, fname, "shape mismatch (%d x %d matrix times a vector of %d entries)",
                       A->rows, A->cols, var_size(x));
    if (!lucid_all_finite(A->data, (long)A->rows * A->cols))
        lucid_lua_fail(L, fname, "matrix must be finite (has NaN or Inf)");
    lucid_ad_var out;
    lucid_status s = lucid_ad_matvec(x->owner->tape, A->data, A->rows, A->cols, x->var, &out);
    return push_result(L, 2, s, out, fname);
}

static int arith(lua_State *L, lucid_ad_op op, const char *fname) {
    lucid_lua_ad_var *a = lucid_lua_ad_tovar(L, 1, fname), *b = lucid_lua_ad_tovar(L, 2, fname);
    if (!a && !b) lucid_lua_fail(L, fname, "no differentiable operand");
    lucid_lua_matrix *A = lucid_lua_tomatrix(L, 1), *B = lucid_lua_tomatrix(L, 2);
    if (op == LUCID_AD_MUL && A && !A->is_vector) return matvec(L, A, b, fname);
    if (B && !B->is_vector)
        lucid_lua_fail(L, fname, "a matrix operand must be on the left of a product (A * x)");
    lucid_lua_ad_tape *owner = (a ? a : b)->owner;
    lucid_ad_var va = lucid_lua_ad_node(L, 1, owner, fname);
    lucid_ad_var vb = lucid_lua_ad_node(L, 2, owner, fname);
    int ka = lucid_ad_var_size(owner->tape, va), kb = lucid_ad_var_size(owner->tape, vb);
    if (ka != kb && ka != 1 && kb != 1)
        lucid_lua_fail(L, fname, "size mismatch (%d and %d entries)", ka, kb);
    lucid_ad_var out;
    lucid_status s = lucid_ad_binary(owner->tape, op, va, vb, &out);
    return push_result(L, a ? 1 : 2, s, out, fname);
}

static int l_add(lua_State *L) {
    return arith(L, LUCID_AD_ADD, "lucid.ad.__add (+)");
}
static int l_sub(lua_State *L) {
    return arith(L, LUCID_AD_SUB, "lucid.ad.__sub (-)");
}
static int l_mul(lua_State *L) {
    return arith(L, LUCID_AD_MUL, "lucid.ad.__mul (*)");
}
static int l_div(lua_State *L) {
    return arith(L, LUCID_AD_DIV, "lucid.ad.__div (/)");
}

static int l_unm(lua_State *L) {
    const char *fname = "lucid.ad.__unm (-)";
    lucid_lua_ad_var *a = check_var(L, 1, fname);
    lucid_ad_var out;
    return push_result(L, 1, lucid_ad_unary(a->owner->tape, LUCID_AD_NEG, a->var, &out), out,
                       fname);
}

/* The elementwise functions; numbers pass through as plain numbers. */
typedef struct unary_fn {
    const char *name, *fname;
    lucid_ad_op op;
    double (*number)(double);
} unary_fn;

static const unary_fn unary_fns[] = {
    {"exp", "lucid.ad.exp", LUCID_AD_EXP, exp},     {"log", "lucid.ad.log", LUCID_AD_LOG, log},
    {"sqrt", "lucid.ad.sqrt", LUCID_AD_SQRT, sqrt}, {"sin", "lucid.ad.sin", LUCID_AD_SIN, sin},
    {"cos", "lucid.ad.cos", LUCID_AD_COS, cos},     {"tanh", "lucid.ad.tanh", LUCID_AD_TANH, tanh},
};

static int l_unary(lua_State *L) {
    const unary_fn *fn = &unary_fns[lua_tointeger(L, lua_upvalueindex(1))];
    if (lua_type(L, 1) == LUA_TNUMBER) {
        double y = fn->number(lucid_lua_checkfinite(L, 1, fn->fname, "argument"));
        if (!isfinite(y) || (fn->op == LUCID_AD_LOG && lua_tonumber(L, 1) <= 0.0))
            lucid_lua_ad_fail(L, fn->fname, LUCID_ERR_NONFINITE);
        lua_pushnumber(L, y);
        return 1;
    }
    lucid_lua_ad_var *a = lucid_lua_ad_tovar(L, 1, fn->fname);
    if (!a)
        lucid_lua_fail(L, fn->fname, "argument must be a differentiable value or a number (got %s)",
                       lucid_lua_typename(L, 1));
    lucid_ad_var out;
    return push_result(L, 1, lucid_ad_unary(a->owner->tape, fn->op, a->var, &out), out, fn->fname);
}

/* ---- methods ----------------------------------------------------------------------- */

/* x[i]: a size-1 value (1-based index). */
static int index_entry(lua_State *L, lucid_lua_ad_var *x) {
    const char *fname = "lucid.ad.var[i]";
    int i = (int)lucid_lua_checkinteger_range(L, 2, 1, var_size(x), fname, "index");
    lucid_ad_var out;
    return push_result(L, 1, lucid_ad_slice(x->owner->tape, x->var, i - 1, 1, &out), out, fname);
}

/* x:slice(i, j): entries i..j inclusive, 1-based like string.sub. */
static int m_slice(lua_State *L) {
    const char *fname = "lucid.ad.var:slice";
    lucid_lua_ad_var *x = check_var(L, 1, fname);
    int k = var_size(x);
    int i = (int)lucid_lua_checkinteger_range(L, 2, 1, k, fname, "start");
    int j = (int)lucid_lua_checkinteger_range(L, 3, i, k, fname, "end");
    lucid_ad_var out;
    return push_result(L, 1, lucid_ad_slice(x->owner->tape, x->var, i - 1, j - i + 1, &out), out,
                       fname);
}

static int m_dot(lua_State *L) {
    const char *fname = "lucid.ad.var:dot";
    lucid_lua_ad_var *x = check_var(L, 1, fname);
    lucid_ad_var other = lucid_lua_ad_node(L, 2, x->owner, fname);
    int kb = lucid_ad_var_size(x->owner->tape, other);
    if (kb != var_size(x))
        lucid_lua_fail(L, fname, "size mismatch (%d and %d entries)", var_size(x), kb);
    lucid_ad_var out;
    return push_result(L, 1, lucid_ad_dot(x->owner->tape, x->var, other, &out), out, fname);
}

static int m_norm(lua_State *L) {
    const char *fname = "lucid.ad.var:norm";
    lucid_lua_ad_var *x = check_var(L, 1, fname);
    lucid_ad_var out;
    return push_result(L, 1, lucid_ad_unary(x->owner->tape, LUCID_AD_NORM, x->var, &out), out,
                       fname);
}

/* x:value(): the current numbers, as a lucid.vec (not differentiable). */
static int m_value(lua_State *L) {
    lucid_lua_ad_var *x = check_var(L, 1, "lucid.ad.var:value");
    lucid_lua_pushvalues(L, lucid_ad_var_values(x->owner->tape, x->var), var_size(x));
    return 1;
}

static int l_len(lua_State *L) {
    lua_pushinteger(L, var_size(check_var(L, 1, "lucid.ad.var.__len (#)")));
    return 1;
}

static int l_tostring(lua_State *L) {
    lucid_lua_ad_var *v = luaL_testudata(L, 1, LUCID_AD_VAR_METATABLE);
    if (!v)
        lucid_lua_fail(L, "lucid.ad.var:__tostring", "self must be a differentiable value (got %s)",
                       lucid_lua_typename(L, 1));
    if (!v->owner->busy || !lucid_ad_var_is_live(v->owner->tape, v->var))
        lua_pushstring(L, "lucid.ad value (stale)");
    else
        lua_pushfstring(L, "lucid.ad value (%d entries)", var_size(v));
    return 1;
}

/* x[i] or a method (methods check staleness themselves, naming themselves). */
static int l_index(lua_State *L) {
    if (lua_type(L, 2) == LUA_TNUMBER) return index_entry(L, check_var(L, 1, "lucid.ad.var[i]"));
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    return 1;
}

/* ---- concat ------------------------------------------------------------------------ */

/* Number of values the constant part at idx contributes (for concat without a variable). */
static void push_constant_concat(lua_State *L, int count, const char *fname) {
    int total = 0;
    for (int i = 1; i <= count; ++i) {
        lua_geti(L, 1, i);
        lucid_lua_matrix *m = lucid_lua_tomatrix(L, -1);
        if (lua_type(L, -1) == LUA_TNUMBER)
            total += 1;
        else if (m && (m->is_vector || m->cols == 1))
            total += m->rows;
        else
            lucid_lua_fail(L, fname,
                           "entry %d must be a differentiable value, a number or a "
                           "lucid.vec (got %s)",
                           i, lucid_lua_typename(L, -1));
        lua_pop(L, 1);
    }
    lucid_lua_matrix *out = lucid_lua_newvector(L, total);
    double *y = out->data;
    for (int i = 1; i <= count; ++i) {
        lua_geti(L, 1, i);
        lucid_lua_matrix *m = lucid_lua_tomatrix(L, -1);
        int n = m ? m->rows : 1;
        if (m)
            memcpy(y, m->data, (size_t)n * sizeof(double));
        else
            *y = lucid_lua_checkfinite(L, -1, fname, "entry");
        y += n;
        lua_pop(L, 1);
    }
}

static int l_concat(lua_State *L) {
    const char *fname = "lucid.ad.concat";
    if (lua_type(L, 1) != LUA_TTABLE)
        lucid_lua_fail(L, fname, "argument must be a table of values (got %s)",
                       lucid_lua_typename(L, 1));
    int count = (int)luaL_len(L, 1);
    if (count < 1) lucid_lua_fail(L, fname, "nothing to join (empty table)");
    int owner_idx = 0;
    for (int i = 1; i <= count && !owner_idx; ++i) {
        lua_geti(L, 1, i);
        if (lucid_lua_ad_tovar(L, -1, fname))
            owner_idx = lua_gettop(L);
        else
            lua_pop(L, 1);
    }
    if (!owner_idx) {
        push_constant_concat(L, count, fname);
        return 1;
    }
    lucid_lua_ad_var *first = lua_touserdata(L, owner_idx);
    lucid_ad_var *parts = lua_newuserdatauv(L, (size_t)count * sizeof *parts, 0);
    for (int i = 1; i <= count; ++i) {
        lua_geti(L, 1, i);
        parts[i - 1] = lucid_lua_ad_node(L, -1, first->owner, fname);
        lua_pop(L, 1);
    }
    lucid_ad_var out;
    return push_result(L, owner_idx, lucid_ad_concat(first->owner->tape, parts, count, &out), out,
                       fname);
}

/* ---- jacobian / grad --------------------------------------------------------------- */

static lucid_ad_mode check_mode(lua_State *L, int idx, const char *fname) {
    static const char *const keys[] = {"mode", NULL};
    if (lua_isnoneornil(L, idx)) return LUCID_AD_MODE_AUTO;
    if (lua_type(L, idx) != LUA_TTABLE)
        lucid_lua_fail(L, fname, "opts must be a table (got %s)", lucid_lua_typename(L, idx));
    lucid_lua_check_option_names(L, idx, keys, fname);
    lua_getfield(L, idx, "mode");
    const char *mode = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    lucid_ad_mode out = LUCID_AD_MODE_AUTO;
    if (lua_isnil(L, -1) || (mode && strcmp(mode, "auto") == 0))
        out = LUCID_AD_MODE_AUTO;
    else if (mode && strcmp(mode, "forward") == 0)
        out = LUCID_AD_MODE_FORWARD;
    else if (mode && strcmp(mode, "reverse") == 0)
        out = LUCID_AD_MODE_REVERSE;
    else
        lucid_lua_fail(L, fname, "opts.mode must be \"forward\", \"reverse\" or \"auto\"");
    lua_pop(L, 1);
    return out;
}

/* Pushes a copy of the point x (lucid.vec, table of numbers or a number) as a lucid.vec. */
static void push_point(lua_State *L, int idx, const char *fname) {
    if (lua_type(L, idx) == LUA_TNUMBER) {
        lucid_lua_newvector(L, 1)->data[0] = lucid_lua_checkfinite(L, idx, fname, "x");
        return;
    }
    lucid_lua_matrix *m = lucid_lua_tomatrix(L, idx);
    int n = m ? m->rows * m->cols : lua_type(L, idx) == LUA_TTABLE ? (int)luaL_len(L, idx) : 0;
    if (n < 1)
        lucid_lua_fail(L, fname,
                       "x must be a non-empty lucid.vec, table of numbers or number "
                       "(got %s)",
                       lucid_lua_typename(L, idx));
    lucid_lua_matrix *x = lucid_lua_newvector(L, n);
    lucid_lua_checkvalues(L, idx, n, x->data, fname, "x");
}

/* Runs under lua_pcall: (f, x, tape, mode, grad, fname) -> value, J. */
static int evaluate_protected(lua_State *L) {
    lucid_lua_matrix *x = lucid_lua_tomatrix(L, 2);
    lucid_lua_ad_tape *t = lua_touserdata(L, 3);
    lucid_ad_mode mode = (lucid_ad_mode)lua_tointeger(L, 4);
    int grad = lua_toboolean(L, 5);
    const char *fname = lua_tostring(L, 6);
    lucid_ad_var input;
    lucid_status s = lucid_ad_input(t->tape, x->data, x->rows, &input);
    if (s != LUCID_OK) lucid_lua_ad_fail(L, fname, s);
    lua_pushvalue(L, 1);
    lucid_lua_ad_pushvar(L, 3, input);
    lua_call(L, 1, 1); /* idx 7: f(x) */
    lucid_lua_ad_var *y = lucid_lua_ad_tovar(L, 7, fname);
    if (!y)
        lucid_lua_fail(L, fname, "f must return a differentiable value (got %s)",
                       lucid_lua_typename(L, 7));
    if (y->owner != t) lucid_lua_fail(L, fname, "f returned a value of a different evaluation");
    int m = var_size(y), n = x->rows;
    if (grad && m != 1) lucid_lua_fail(L, fname, "f must return a scalar (got %d entries)", m);
    if (grad)
        lua_pushnumber(L, lucid_ad_var_values(t->tape, y->var)[0]);
    else
        lucid_lua_pushvalues(L, lucid_ad_var_values(t->tape, y->var), m);
    lucid_lua_matrix *J = grad ? lucid_lua_newvector(L, n) : lucid_lua_newmatrix(L, m, n);
    lua_pushnil(L); /* where a failing Lua primitive leaves its error */
    lucid_lua_ad_sweep ctx = {L, 3, lua_gettop(L), 0};
    s = lucid_ad_jacobian(t->tape, input, y->var, grad ? LUCID_AD_MODE_REVERSE : mode, &ctx,
                          J->data);
    if (ctx.failed) {
        lua_pushvalue(L, ctx.err_idx);
        return lua_error(L);
    }
    if (s == LUCID_ERR_NONFINITE)
        lucid_lua_fail(L, fname, "derivative is not finite (e.g. sqrt at 0)");
    if (s != LUCID_OK) lucid_lua_ad_fail(L, fname, s);
    lua_pop(L, 1);
    return 2;
}

static int evaluate(lua_State *L, const char *fname, int grad) {
    if (lua_type(L, 1) != LUA_TFUNCTION && !luaL_getmetafield(L, 1, "__call"))
        lucid_lua_fail(L, fname, "f must be a function (got %s)", lucid_lua_typename(L, 1));
    lucid_ad_mode mode = check_mode(L, 3, fname);
    lua_settop(L, 2);
    push_point(L, 2, fname); /* 3 */
    acquire_tape(L, fname);  /* 4 */
    lua_pushcfunction(L, evaluate_protected);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 3);
    lua_pushvalue(L, 4);
    lua_pushinteger(L, mode);
    lua_pushboolean(L, grad);
    lua_pushstring(L, fname);
    int status = lua_pcall(L, 6, 2, 0);
    release_tape(L, 4); /* on success and on error alike */
    if (status != LUA_OK) return lua_error(L);
    return 2;
}

static int l_jacobian(lua_State *L) {
    return evaluate(L, "lucid.ad.jacobian", 0);
}
static int l_grad(lua_State *L) {
    return evaluate(L, "lucid.ad.grad", 1);
}

/* ---- lucid.mat operators with a differentiable operand ----------------------------- */

/* Replaces lucid.mat's metamethod: a differentiable operand goes to the AD operator
 * (upvalue 2), anything else to the original (upvalue 1). Lua calls the left operand's
 * metamethod first, so `A * x` with a lucid.mat A would never reach lucid.ad otherwise. */
static int mat_dispatch(lua_State *L) {
    int ad = luaL_testudata(L, 1, LUCID_AD_VAR_METATABLE) ||
             luaL_testudata(L, 2, LUCID_AD_VAR_METATABLE);
    lua_pushvalue(L, lua_upvalueindex(ad ? 2 : 1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static void wrap_matrix_operators(lua_State *L) {
    static const luaL_Reg ops[] = {
        {"__add", l_add}, {"__sub", l_sub}, {"__mul", l_mul}, {"__div", l_div}, {NULL, NULL}};
    luaL_getmetatable(L, LUCID_MATRIX_METATABLE);
    if (lua_type(L, -1) != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    for (const luaL_Reg *op = ops; op->name; ++op) {
        if (lua_getfield(L, -1, op->name) == LUA_TNIL) { /* Lua falls back to ours anyway */
            lua_pop(L, 1);
            continue;
        }
        lua_pushcfunction(L, op->func);
        lua_pushcclosure(L, mat_dispatch, 2);
        lua_setfield(L, -2, op->name);
    }
    lua_pop(L, 1);
}

void lucid_open_ad(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"slice", m_slice}, {"dot", m_dot}, {"norm", m_norm}, {"value", m_value}, {NULL, NULL}};
    static const luaL_Reg metamethods[] = {
        {"__add", l_add}, {"__sub", l_sub}, {"__mul", l_mul},           {"__div", l_div},
        {"__unm", l_unm}, {"__len", l_len}, {"__tostring", l_tostring}, {NULL, NULL}};
    static const luaL_Reg functions[] = {{"jacobian", l_jacobian},
                                         {"grad", l_grad},
                                         {"concat", l_concat},
                                         {"primitive", lucid_lua_ad_primitive},
                                         {NULL, NULL}};

    static const luaL_Reg tape_metamethods[] = {{"__gc", tape_gc}, {NULL, NULL}};
    lucid_lua_push_metatable(L, LUCID_AD_TAPE_METATABLE, tape_metamethods, NULL);
    lua_pop(L, 1);

    lucid_lua_push_metatable(L, LUCID_AD_VAR_METATABLE, metamethods, NULL);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_pushcclosure(L, l_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);

    wrap_matrix_operators(L);
    lucid_lua_ad_open_se3(L);

    lua_newtable(L);
    luaL_setfuncs(L, functions, 0);
    for (size_t i = 0; i < sizeof unary_fns / sizeof unary_fns[0]; ++i) {
        lua_pushinteger(L, (lua_Integer)i);
        lua_pushcclosure(L, l_unary, 1);
        lua_setfield(L, -2, unary_fns[i].name);
    }
    lua_setfield(L, -2, "ad");
}
