/* lucid.rng(seed): a deterministic generator for Lua (see runtime/math/rng.h).
 *   lucid.rng([seed])      seed: a non-negative integer (default 0) -> generator
 *   g:uniform()            uniform in [0, 1);  g:uniform(a, b): a + (b - a) u, a <= b
 *   g:normal()             N(0, 1);  g:normal(mu, sigma) with sigma >= 0
 *   g:gumbel()             standard Gumbel;  g:gumbel(mu, beta) with beta > 0
 *   g:integer(lo, hi)      uniform integer in [lo, hi], no modulo bias
 *   g:clone()              an independent copy continuing the identical stream
 * Streams are bit-identical on every platform for the same seed and call sequence. */
#include "runtime/lua/lua_rng.h"

#include <lauxlib.h>
#include <math.h>

#include "runtime/lua/check.h"
#include "runtime/lua/modules.h"

/* The generator at idx or NULL. */
static lucid_rng *torng(lua_State *L, int idx) {
    return luaL_testudata(L, idx, LUCID_RNG_METATABLE);
}

lucid_rng *lucid_lua_checkrng(lua_State *L, int idx, const char *fname) {
    lucid_rng *rng = torng(L, idx);
    if (!rng)
        lucid_lua_fail(L, fname, "argument %d must be a lucid.rng generator (got %s)", idx,
                       lucid_lua_typename(L, idx));
    return rng;
}

static lucid_rng *push_rng(lua_State *L) {
    lucid_rng *rng = lua_newuserdatauv(L, sizeof *rng, 0);
    luaL_setmetatable(L, LUCID_RNG_METATABLE);
    return rng;
}

/* A Lua integer (or an integral float) at idx; strings and other types are refused. */
static lua_Integer check_integer(lua_State *L, int idx, const char *fname, const char *what) {
    int isint = 0;
    lua_Integer k = lua_type(L, idx) == LUA_TNUMBER ? lua_tointegerx(L, idx, &isint) : 0;
    if (!isint) {
        if (lua_type(L, idx) == LUA_TNUMBER)
            lucid_lua_fail(L, fname, "%s must be an integer (got %s)", what, lua_tostring(L, idx));
        lucid_lua_fail(L, fname, "%s must be an integer (got %s)", what,
                       lucid_lua_typename(L, idx));
    }
    return k;
}

static int l_new(lua_State *L) {
    const char *fname = "lucid.rng";
    lua_Integer seed = 0;
    if (!lua_isnoneornil(L, 1)) {
        seed = check_integer(L, 1, fname, "seed");
        if (seed < 0)
            lucid_lua_fail(L, fname, "seed must be a non-negative integer (got %I)", seed);
    }
    lucid_rng *rng = push_rng(L);
    lucid_rng_seed(rng, (uint64_t)seed);
    return 1;
}

static int l_uniform(lua_State *L) {
    const char *fname = "lucid.rng:uniform";
    lucid_rng *rng = lucid_lua_checkrng(L, 1, fname);
    if (lua_gettop(L) == 1) {
        lua_pushnumber(L, lucid_rng_uniform(rng));
        return 1;
    }
    double a = lucid_lua_checkfinite(L, 2, fname, "lower bound a");
    double b = lucid_lua_checkfinite(L, 3, fname, "upper bound b");
    if (!(a <= b)) lucid_lua_fail(L, fname, "need a <= b (got a = %f, b = %f)", a, b);
    if (!isfinite(b - a)) lucid_lua_fail(L, fname, "interval [a, b] is too wide (b - a overflows)");
    lua_pushnumber(L, a + (b - a) * lucid_rng_uniform(rng));
    return 1;
}

static int l_normal(lua_State *L) {
    const char *fname = "lucid.rng:normal";
    lucid_rng *rng = lucid_lua_checkrng(L, 1, fname);
    double mu = 0.0, sigma = 1.0;
    if (lua_gettop(L) > 1) {
        mu = lucid_lua_checkfinite(L, 2, fname, "mean mu");
        sigma = lua_isnoneornil(L, 3) ? 1.0 : lucid_lua_checkfinite(L, 3, fname, "sigma");
        if (sigma < 0.0) lucid_lua_fail(L, fname, "sigma must be >= 0 (got %f)", sigma);
    }
    lua_pushnumber(L, mu + sigma * lucid_rng_normal(rng));
    return 1;
}

static int l_gumbel(lua_State *L) {
    const char *fname = "lucid.rng:gumbel";
    lucid_rng *rng = lucid_lua_checkrng(L, 1, fname);
    double mu = 0.0, beta = 1.0;
    if (lua_gettop(L) > 1) {
        mu = lucid_lua_checkfinite(L, 2, fname, "location mu");
        beta = lua_isnoneornil(L, 3) ? 1.0 : lucid_lua_checkpositive(L, 3, fname, "scale beta");
    }
    lua_pushnumber(L, mu + beta * lucid_rng_gumbel(rng));
    return 1;
}

static int l_integer(lua_State *L) {
    const char *fname = "lucid.rng:integer";
    lucid_rng *rng = lucid_lua_checkrng(L, 1, fname);
    lua_Integer lo = check_integer(L, 2, fname, "lo");
    lua_Integer hi = check_integer(L, 3, fname, "hi");
    if (lo > hi) lucid_lua_fail(L, fname, "need lo <= hi (got lo = %I, hi = %I)", lo, hi);
    lua_pushinteger(L, (lua_Integer)lucid_rng_integer(rng, (int64_t)lo, (int64_t)hi));
    return 1;
}

static int l_clone(lua_State *L) {
    lucid_rng *rng = lucid_lua_checkrng(L, 1, "lucid.rng:clone");
    lucid_rng *copy = push_rng(L);
    *copy = *rng;
    return 1;
}

static int l_tostring(lua_State *L) {
    lucid_lua_checkrng(L, 1, "lucid.rng:__tostring");
    lua_pushfstring(L, "lucid.rng (%p)", lua_topointer(L, 1));
    return 1;
}

void lucid_open_rng(lua_State *L) {
    static const luaL_Reg methods[] = {{"uniform", l_uniform}, {"normal", l_normal},
                                       {"gumbel", l_gumbel},   {"integer", l_integer},
                                       {"clone", l_clone},     {NULL, NULL}};
    static const luaL_Reg metamethods[] = {{"__tostring", l_tostring}, {NULL, NULL}};
    lucid_lua_push_metatable(L, LUCID_RNG_METATABLE, metamethods, methods);
    lua_pop(L, 1);
    lua_pushcfunction(L, l_new);
    lua_setfield(L, -2, "rng");
}
