/* Differentiable poses in lucid.ad: lucid.se3.exp of a differentiable twist gives a
 * differentiable pose (metatable "lucid.ad.se3", a 12-vector node: R column-major, t) with
 * `*` (compose, with differentiable or constant lucid.se3 poses on either side),
 * :act(p) and :log() (a differentiable twist) and :value() (the current lucid.se3). The rules
 * are autodiff/ad_se3.c. lucid.se3.exp, lucid.se3's `*` and :act are wrapped so constant poses
 * combine with differentiable values; without one the original functions run unchanged. */
#include <lauxlib.h>

#include "autodiff/ad_ops.h"
#include "autodiff/ad_se3.h"
#include "runtime/lua/check.h"
#include "runtime/lua/lua_ad.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_se3.h"

#define POSE_METATABLE "lucid.ad.se3"

lucid_lua_ad_var *lucid_lua_ad_topose(lua_State *L, int idx, const char *fname) {
    lucid_lua_ad_var *v = luaL_testudata(L, idx, POSE_METATABLE);
    if (v && (!v->owner->busy || !lucid_ad_var_is_live(v->owner->tape, v->var)))
        lucid_lua_fail(L, fname,
                       "stale differentiable pose (its lucid.ad evaluation has finished)");
    if (v && v->owner->tape->sweeping)
        lucid_lua_fail(L, fname,
                       "differentiable poses cannot be used while derivatives are computed");
    return v;
}

static void push_pose(lua_State *L, int tape_idx, lucid_ad_var v) {
    tape_idx = lua_absindex(L, tape_idx);
    lucid_lua_ad_var *u = lua_newuserdatauv(L, sizeof *u, 1);
    u->owner = lua_touserdata(L, tape_idx);
    u->var = v;
    luaL_setmetatable(L, POSE_METATABLE);
    lua_pushvalue(L, tape_idx);
    lua_setiuservalue(L, -2, 1);
}

lucid_ad_var lucid_lua_ad_pose_node(lua_State *L, int idx, lucid_lua_ad_tape *owner,
                                    const char *fname) {
    lucid_lua_ad_var *v = lucid_lua_ad_topose(L, idx, fname);
    if (v) {
        if (v->owner != owner)
            lucid_lua_fail(L, fname,
                           "differentiable values of different evaluations cannot be mixed");
        return v->var;
    }
    const lucid_se3 *T = lucid_lua_tose3(L, idx);
    if (!T)
        lucid_lua_fail(L, fname, "expected a pose (lucid.se3 or differentiable), got %s",
                       lucid_lua_typename(L, idx));
    double packed[12];
    lucid_ad_se3_pack(T, packed);
    lucid_ad_var out;
    lucid_status s = lucid_ad_constant(owner->tape, packed, 12, &out);
    if (s != LUCID_OK) lucid_lua_ad_fail(L, fname, s);
    return out;
}

/* Pushes the result of an op as a pose (as_pose) or a plain differentiable value, on the
 * tape of the value at owner_idx. */
static int push_result(lua_State *L, int owner_idx, lucid_status s, lucid_ad_var out, int as_pose,
                       const char *fname) {
    if (s != LUCID_OK) lucid_lua_ad_fail(L, fname, s);
    lua_getiuservalue(L, owner_idx, 1);
    if (as_pose)
        push_pose(L, -1, out);
    else
        lucid_lua_ad_pushvar(L, -1, out);
    return 1;
}

/* lucid.se3.exp(xi): upvalue 1 is the original function. */
static int l_exp(lua_State *L) {
    const char *fname = "lucid.se3.exp";
    lucid_lua_ad_var *xi = lucid_lua_ad_tovar(L, 1, fname);
    if (!xi) {
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_insert(L, 1);
        lua_call(L, lua_gettop(L) - 1, 1);
        return 1;
    }
    int k = lucid_ad_var_size(xi->owner->tape, xi->var);
    if (k != 6) lucid_lua_fail(L, fname, "twist must have 6 entries (got %d)", k);
    lucid_ad_var out;
    return push_result(L, 1, lucid_ad_se3_exp(xi->owner->tape, xi->var, &out), out, 1, fname);
}

/* A * B with at least one differentiable pose. */
static int compose(lua_State *L) {
    const char *fname = "lucid.se3.__mul (*)";
    lucid_lua_ad_var *a = lucid_lua_ad_topose(L, 1, fname), *b = lucid_lua_ad_topose(L, 2, fname);
    if (!a && !b) lucid_lua_fail(L, fname, "no differentiable pose");
    lucid_lua_ad_tape *owner = (a ? a : b)->owner;
    lucid_ad_var va = lucid_lua_ad_pose_node(L, 1, owner, fname),
                 vb = lucid_lua_ad_pose_node(L, 2, owner, fname);
    lucid_ad_var out;
    return push_result(L, a ? 1 : 2, lucid_ad_se3_compose(owner->tape, va, vb, &out), out, 1,
                       fname);
}

/* T:act(p) where T or p is differentiable. */
static int act(lua_State *L, lucid_lua_ad_var *T, lucid_lua_ad_var *p) {
    const char *fname = "lucid.se3:act";
    lucid_lua_ad_tape *owner = (T ? T : p)->owner;
    lucid_ad_var vT = lucid_lua_ad_pose_node(L, 1, owner, fname);
    lucid_ad_var vp = lucid_lua_ad_node(L, 2, owner, fname);
    int k = lucid_ad_var_size(owner->tape, vp);
    if (k != 3) lucid_lua_fail(L, fname, "point must have 3 entries (got %d)", k);
    lucid_ad_var out;
    return push_result(L, T ? 1 : 2, lucid_ad_se3_act(owner->tape, vT, vp, &out), out, 0, fname);
}

static int m_act(lua_State *L) {
    lucid_lua_ad_var *T = lucid_lua_ad_topose(L, 1, "lucid.se3:act");
    if (!T) lucid_lua_fail(L, "lucid.se3:act", "self must be a pose");
    return act(L, T, lucid_lua_ad_tovar(L, 2, "lucid.se3:act"));
}

/* lucid.se3's :act (upvalue 1: the original) with a differentiable point. */
static int constant_act(lua_State *L) {
    lucid_lua_ad_var *p = lucid_lua_ad_tovar(L, 2, "lucid.se3:act");
    if (p) return act(L, NULL, p);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* lucid.se3's __mul (upvalue 1: the original) with a differentiable operand. */
static int constant_mul(lua_State *L) {
    if (luaL_testudata(L, 1, POSE_METATABLE) || luaL_testudata(L, 2, POSE_METATABLE))
        return compose(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int m_log(lua_State *L) {
    const char *fname = "lucid.se3:log";
    lucid_lua_ad_var *T = lucid_lua_ad_topose(L, 1, fname);
    if (!T) lucid_lua_fail(L, fname, "self must be a pose");
    lucid_ad_var out;
    return push_result(L, 1, lucid_ad_se3_log(T->owner->tape, T->var, &out), out, 0, fname);
}

static int m_value(lua_State *L) {
    lucid_lua_ad_var *T = lucid_lua_ad_topose(L, 1, "lucid.ad.se3:value");
    if (!T) lucid_lua_fail(L, "lucid.ad.se3:value", "self must be a pose");
    lucid_se3 v = lucid_ad_se3_unpack(lucid_ad_var_values(T->owner->tape, T->var));
    lucid_lua_pushse3(L, &v);
    return 1;
}

static int m_tostring(lua_State *L) {
    lucid_lua_ad_var *v = luaL_testudata(L, 1, POSE_METATABLE);
    if (!v)
        lucid_lua_fail(L, "lucid.ad.se3:__tostring", "self must be a differentiable pose (got %s)",
                       lucid_lua_typename(L, 1));
    int live = v->owner->busy && lucid_ad_var_is_live(v->owner->tape, v->var);
    lua_pushstring(L, live ? "lucid.ad pose" : "lucid.ad pose (stale)");
    return 1;
}

/* Replaces field NAME of the table on top with closure(fn, original value). */
static void wrap_field(lua_State *L, const char *name, lua_CFunction fn) {
    lua_getfield(L, -1, name);
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, -2, name);
}

void lucid_lua_ad_open_se3(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"act", m_act}, {"log", m_log}, {"value", m_value}, {NULL, NULL}};
    static const luaL_Reg metamethods[] = {
        {"__mul", compose}, {"__tostring", m_tostring}, {NULL, NULL}};
    lucid_lua_push_metatable(L, POSE_METATABLE, metamethods, methods);
    lua_pop(L, 1);

    if (lua_getfield(L, -1, "se3") == LUA_TTABLE) wrap_field(L, "exp", l_exp);
    lua_pop(L, 1);
    if (luaL_getmetatable(L, LUCID_SE3_METATABLE) == LUA_TTABLE) {
        wrap_field(L, "__mul", constant_mul);
        if (lua_getfield(L, -1, "__index") == LUA_TTABLE) wrap_field(L, "act", constant_act);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}
