/* lucid.batch: batch rollouts over threads (runtime/world/world_batch.h).
 *   X = lucid.batch.rollout(w, X0, U [, {threads=, steps=, record="final"|"all"}])
 * X0: an nx x N lucid.mat (column i: rollout i's initial state, as w:state() gives) or a
 * table of N states. U: nil (zero controls; opts.steps required) or a table of N control
 * sequences, each an nu x T lucid.mat (column t: the controls of step t, as w:controls()
 * lays them out) or a table of T control vectors. record = "final" (default): X is the
 * nx x N mat of final states; "all": a table of N nx x (T+1) mats (column 1 = X0's column).
 * opts: lucid_batch_option_table (threads 0, the default: min(N, online CPUs)). w is only
 * read. Results are bit-identical to the serial loop (w:set_state(x0); per step
 * w:set_controls(u_t); w:step()) whatever threads is. Buffers are userdata, so an error raised
 * anywhere leaks nothing; the pool is destroyed before any error is raised. */
#include <lauxlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_options.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_world.h"
#include "runtime/lua/modules.h"
#include "runtime/math/finite.h"
#include "runtime/world/world_batch.h"

#define FNAME "lucid.batch.rollout"

/* Raises "lucid.batch.rollout: <message>" with printf formatting (%zu included). */
static int fail(lua_State *L, const char *fmt, ...) {
    char msg[320];
    va_list args;
    va_start(args, fmt);
    vsnprintf(msg, sizeof msg, fmt, args);
    va_end(args);
    return lucid_lua_fail(L, FNAME, "%s", msg);
}

/* A scratch buffer of n doubles as a userdata pushed on the stack (collected with it). */
static double *scratch(lua_State *L, size_t n, const char *what) {
    if (n > (SIZE_MAX - 8) / sizeof(double) || n > (size_t)LUCID_MATRIX_MAX_ENTRIES * 64)
        fail(L, "%s too large", what);
    return lua_newuserdatauv(L, sizeof(double) * (n + 1), 0);
}

/* The number of rollouts in X0 (at idx) and their states read into a new scratch buffer. */
static double *read_states(lua_State *L, int idx, int nx, size_t *count) {
    lucid_lua_matrix *m = lucid_lua_tomatrix(L, idx);
    if (m) {
        if (m->rows != nx)
            fail(L, "X0 must have %d rows, one state per column (got %d x %d)", nx, m->rows,
                 m->cols);
        *count = (size_t)m->cols;
        double *x = scratch(L, (size_t)nx * *count, "X0");
        memcpy(x, m->data, sizeof(double) * (size_t)nx * *count);
        if (!lucid_all_finite(x, (long)nx * m->cols)) fail(L, "X0 must be finite (has NaN or Inf)");
        return x;
    }
    if (lua_type(L, idx) != LUA_TTABLE)
        fail(L,
             "X0 must be a lucid.mat (one state per column) or a table of "
             "states (got %s)",
             lucid_lua_typename(L, idx));
    lua_Integer n = luaL_len(L, idx);
    if (n < 0) fail(L, "X0 has a negative length");
    *count = (size_t)n;
    double *x = scratch(L, (size_t)nx * *count, "X0");
    char what[48];
    for (lua_Integer i = 1; i <= n; ++i) {
        lua_geti(L, idx, i);
        snprintf(what, sizeof what, "X0[%lld]", (long long)i);
        lucid_lua_checkvalues(L, -1, nx, x + (size_t)nx * (size_t)(i - 1), FNAME, what);
        lua_pop(L, 1);
    }
    return x;
}

/* The steps of one control sequence (at idx): a mat's columns or a table's length. */
static size_t sequence_length(lua_State *L, int idx, lua_Integer i) {
    lucid_lua_matrix *m = lucid_lua_tomatrix(L, idx);
    if (m) return (size_t)m->cols;
    if (lua_type(L, idx) != LUA_TTABLE)
        fail(L,
             "U[%lld] must be a lucid.mat (one control vector per column) or "
             "a table of control vectors (got %s)",
             (long long)i, lucid_lua_typename(L, idx));
    return (size_t)luaL_len(L, idx);
}

/* Reads U (at idx: a table of `count` sequences of `steps` control vectors) into out. */
static void read_controls(lua_State *L, int idx, int nu, size_t count, size_t steps, double *out) {
    char what[64];
    for (size_t i = 0; i < count; ++i) {
        lua_geti(L, idx, (lua_Integer)i + 1);
        int seq = lua_gettop(L);
        if (sequence_length(L, seq, (lua_Integer)i + 1) != steps)
            fail(L, "U[%zu] must have %zu steps (got %zu)", i + 1, steps,
                 sequence_length(L, seq, (lua_Integer)i + 1));
        double *o = out + (size_t)nu * steps * i;
        lucid_lua_matrix *m = lucid_lua_tomatrix(L, seq);
        if (m) {
            if (m->rows != nu)
                fail(L, "U[%zu] must have %d rows, w:controls() entries (got %d)", i + 1, nu,
                     m->rows);
            memcpy(o, m->data, sizeof(double) * (size_t)nu * steps);
            if (!lucid_all_finite(o, (long)((size_t)nu * steps)))
                fail(L, "U[%zu] must be finite (has NaN or Inf)", i + 1);
        } else {
            for (size_t t = 0; t < steps; ++t) {
                lua_geti(L, seq, (lua_Integer)t + 1);
                snprintf(what, sizeof what, "U[%zu][%zu]", i + 1, t + 1);
                lucid_lua_checkvalues(L, -1, nu, o + (size_t)nu * t, FNAME, what);
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
}

static int l_rollout(lua_State *L) {
    lucid_world *w = lucid_lua_checkworld(L, 1, FNAME);
    lua_settop(L, 4);
    int has_u = !lua_isnil(L, 3);
    if (has_u && lua_type(L, 3) != LUA_TTABLE)
        fail(L, "U must be nil or a table of control sequences (got %s)", lucid_lua_typename(L, 3));
    lucid_batch_options o;
    lucid_batch_default_options(&o);
    lucid_lua_read_options(L, 4, FNAME, "opts", lucid_batch_option_table, NULL, &o);
    int has_steps = o.steps >= 0, record_all = o.record;
    size_t steps = has_steps ? (size_t)o.steps : 0;
    int nx = lucid_world_state_size(w), nu = lucid_world_controls_size(w);
    size_t count;
    double *x0 = read_states(L, 2, nx, &count);
    if (has_u) {
        lua_Integer n = luaL_len(L, 3);
        if (n < 0 || (size_t)n != count)
            fail(L, "U must have one control sequence per rollout (%zu, got %lld)", count,
                 (long long)n);
        if (count > 0) {
            lua_geti(L, 3, 1);
            size_t t1 = sequence_length(L, -1, 1);
            lua_pop(L, 1);
            if (has_steps && t1 != steps)
                fail(L, "opts.steps is %zu but U[1] has %zu steps", steps, t1);
            steps = t1, has_steps = 1;
        }
    }
    if (!has_steps) fail(L, "the number of steps is missing (give U or opts.steps)");
    if (steps > INT32_MAX) fail(L, "too many steps");
    double *u = NULL;
    if (has_u) {
        u = scratch(L, (size_t)nu * steps * count, "U");
        read_controls(L, 3, nu, count, steps, u);
    }
    size_t cols = record_all ? steps + 1 : 1;
    double *out = scratch(L, (size_t)nx * cols * count, "the result");

    lucid_batch_problem p = {count, steps, x0, u, record_all, out, NULL, NULL};
    size_t failed = 0;
    char why[200];
    lucid_status s = lucid_world_batch_rollout(w, o.threads, &p, &failed, why, sizeof why);
    if (s != LUCID_OK) {
        if (why[0]) fail(L, "rollout %zu: %s", failed + 1, why);
        lucid_lua_fail_status(L, FNAME, s);
    }
    if (!record_all) {
        if (count > (size_t)INT32_MAX) fail(L, "too many rollouts");
        lucid_lua_pushmatrix_data(L, out, nx, (int)count);
        return 1;
    }
    lua_createtable(L, count > INT32_MAX ? 0 : (int)count, 0);
    for (size_t i = 0; i < count; ++i) {
        lucid_lua_pushmatrix_data(L, out + (size_t)nx * cols * i, nx, (int)cols);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

void lucid_open_batch(lua_State *L) {
    static const luaL_Reg fns[] = {{"rollout", l_rollout}, {NULL, NULL}};
    luaL_newlib(L, fns);
    lua_setfield(L, -2, "batch");
}
