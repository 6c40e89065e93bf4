/* lucid.dynamics.regressor, .inertial_parameters, .base_parameters: the joint-torque
 * regressor and the base parameters from Lua (runtime/model/regressor.h, base_parameters.h;
 * docs/model.md, "Regressors").
 *   Y = lucid.dynamics.regressor(m, q, v, a [, opts])          -- nv x ncols
 *   theta, names = lucid.dynamics.inertial_parameters(m [, opts])
 *   b = lucid.dynamics.base_parameters(m [, opts])
 * opts: damping, coulomb, armature, offset (booleans: add that per-dof column group),
 * coulomb_smoothing (>= 0: tanh(v / eps) instead of sign(v)); base_parameters also takes
 * samples, seed, tolerance, pivoted and rows. */
#include <lauxlib.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_model.h"
#include "runtime/lua/lua_options.h"
#include "runtime/math/finite.h"
#include "runtime/model/base_parameters.h"

#define BOX_METATABLE "lucid.base_parameters_box"

static const char *const group_keys[4] = {"damping", "coulomb", "armature", "offset"};
static const unsigned group_bits[4] = {LUCID_REGRESSOR_DAMPING, LUCID_REGRESSOR_COULOMB,
                                       LUCID_REGRESSOR_ARMATURE, LUCID_REGRESSOR_OFFSET};

/* The regressor options of the table at idx (nil: the defaults); names checked by the caller. */
static lucid_regressor_options read_regressor_options(lua_State *L, int idx, const char *F) {
    lucid_regressor_options o = lucid_regressor_options_default();
    if (lua_isnoneornil(L, idx)) return o;
    lucid_lua_fields f = lucid_lua_fields_at(L, idx, F, NULL);
    for (int g = 0; g < 4; ++g)
        if (lucid_lua_boolean_field(&f, group_keys[g], 0)) o.columns |= group_bits[g];
    o.coulomb_smoothing =
        lucid_lua_number_in(&f, "coulomb_smoothing", o.coulomb_smoothing, &lucid_lua_nonnegative);
    return o;
}

static void check_options_table(lua_State *L, int idx, const char *F, const char *const *keys) {
    if (lua_isnoneornil(L, idx)) return;
    if (!lua_istable(L, idx))
        lucid_lua_fail(L, F, "opts must be a table (got %s)", lucid_lua_typename(L, idx));
    lucid_lua_check_option_names(L, idx, keys, F);
}

static const char *const regressor_keys[] = {"damping", "coulomb",           "armature",
                                             "offset",  "coulomb_smoothing", NULL};

static int l_regressor(lua_State *L) {
    lua_settop(L, 5); /* scratch arrays go above the arguments */
    const char *F = "lucid.dynamics.regressor";
    lucid_model_data *d;
    lucid_model *m = lucid_lua_checkmodel(L, 1, F, "m", &d);
    double *q = lucid_lua_model_q(L, 2, m, F, "q"), *v = lucid_lua_model_v(L, 3, m, F, "v");
    double *a = lucid_lua_model_v(L, 4, m, F, "a");
    check_options_table(L, 5, F, regressor_keys);
    lucid_regressor_options o = read_regressor_options(L, 5, F);
    size_t nv = lucid_model_nv(m), p = lucid_regressor_ncols(m, &o);
    if (nv && p > (size_t)LUCID_MATRIX_MAX_ENTRIES / nv)
        lucid_lua_fail(L, F, "the regressor (%I x %I) is too large", (lua_Integer)nv,
                       (lua_Integer)p);
    lucid_lua_matrix *Y = lucid_lua_newmatrix(L, (int)nv, (int)p);
    lucid_model_joint_torque_regressor(m, d, &o, q, v, a, Y->data, nv);
    if (!lucid_all_finite(Y->data, (long)(nv * p))) lucid_lua_fail(L, F, "Y is not finite");
    return 1;
}

/* A list of the names of parameters idx[0..n) (all ncols when idx is NULL). */
static void push_names(lua_State *L, const lucid_model *m, const lucid_regressor_options *o,
                       const size_t *idx, size_t n) {
    lua_createtable(L, (int)n, 0);
    char name[256];
    for (size_t k = 0; k < n; ++k) {
        lucid_regressor_parameter_name(m, o, idx ? idx[k] : k, name, sizeof name);
        lua_pushstring(L, name);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
}

static int l_inertial_parameters(lua_State *L) {
    lua_settop(L, 2);
    const char *F = "lucid.dynamics.inertial_parameters";
    lucid_model *m = lucid_lua_checkmodel(L, 1, F, "m", NULL);
    check_options_table(L, 2, F, regressor_keys);
    lucid_regressor_options o = read_regressor_options(L, 2, F);
    size_t p = lucid_regressor_ncols(m, &o);
    lucid_lua_matrix *theta = lucid_lua_newvector(L, (int)p);
    lucid_model_regressor_parameters(m, &o, theta->data);
    push_names(L, m, &o, NULL, p);
    return 2;
}

typedef struct bp_box {
    lucid_base_parameters *bp;
} bp_box;

/* __gc: quiet on anything but a box (finalisers may be called by hand with junk). */
static int box_gc(lua_State *L) {
    bp_box *box = luaL_testudata(L, 1, BOX_METATABLE);
    if (!box) return 0;
    lucid_base_parameters_destroy(box->bp);
    box->bp = NULL;
    return 0;
}

/* The rows option at the top of the stack: a list of 1-based dofs, as a mask of nv entries in
 * a userdata left on the stack in its place. */
static const unsigned char *read_rows(lua_State *L, size_t nv, const char *F) {
    if (!lua_istable(L, -1))
        lucid_lua_fail(L, F, "rows must be a list of dof indices (got %s)",
                       lucid_lua_typename(L, -1));
    unsigned char *mask = lua_newuserdatauv(L, nv + 1, 0);
    memset(mask, 0, nv + 1);
    lua_Integer n = luaL_len(L, -2);
    for (lua_Integer i = 1; i <= n; ++i) {
        lua_geti(L, -2, i);
        lua_Integer k = lucid_lua_checkinteger_range(L, -1, 1, (lua_Integer)nv, F, "rows[i]");
        mask[k - 1] = 1;
        lua_pop(L, 1);
    }
    lua_replace(L, -2);
    return mask;
}

/* Leaves one value on the stack: the rows mask (or nil), alive until the call returns. */
static void read_base_options(lua_State *L, int idx, const char *F, size_t nv,
                              lucid_base_parameters_options *o) {
    static const char *const keys[] = {"damping",           "coulomb", "armature", "offset",
                                       "coulomb_smoothing", "samples", "seed",     "tolerance",
                                       "pivoted",           "rows",    NULL};
    check_options_table(L, idx, F, keys);
    *o = lucid_base_parameters_options_default();
    o->regressor = read_regressor_options(L, idx, F);
    if (lua_isnoneornil(L, idx)) {
        lua_pushnil(L);
        return;
    }
    lucid_lua_fields f = lucid_lua_fields_at(L, idx, F, NULL);
    static const lucid_lua_range fraction = {0.0, 1.0, 1, 1};
    o->samples =
        (size_t)lucid_lua_integer_field(&f, "samples", (lua_Integer)o->samples, 1, 1000000);
    o->seed = (uint64_t)lucid_lua_integer_field(&f, "seed", (lua_Integer)o->seed, 0, INT64_MAX);
    o->tolerance = lucid_lua_number_in(&f, "tolerance", o->tolerance, &fraction);
    o->pivoted = lucid_lua_boolean_field(&f, "pivoted", o->pivoted);
    if (lua_getfield(L, idx, "rows") != LUA_TNIL) o->rows = read_rows(L, nv, F);
}

static void set_integer_list(lua_State *L, const char *key, const size_t *x, size_t n) {
    lua_createtable(L, (int)n, 0);
    for (size_t k = 0; k < n; ++k) {
        lua_pushinteger(L, (lua_Integer)x[k] + 1);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    lua_setfield(L, -2, key);
}

/* The fields of b (the table on top) that describe the parameters: names, unidentifiable. */
static void set_descriptions(lua_State *L, const lucid_model *m, const lucid_base_parameters *bp,
                             const lucid_regressor_options *o) {
    size_t r = bp->rank, nd = bp->nparams - r;
    lua_createtable(L, (int)r, 0);
    for (size_t i = 0; i < r; ++i) {
        int n = lucid_base_parameters_describe(m, bp, o, i, NULL, 0);
        char *text = lua_newuserdatauv(L, (size_t)n + 1, 0);
        lucid_base_parameters_describe(m, bp, o, i, text, (size_t)n + 1);
        lua_pushstring(L, text);
        lua_rawseti(L, -3, (lua_Integer)i + 1);
        lua_pop(L, 1);
    }
    lua_setfield(L, -2, "names");
    lua_newtable(L); /* dependent parameters in no base parameter: no effect on tau */
    char name[256];
    lua_Integer count = 0;
    for (size_t j = 0; j < nd; ++j) {
        size_t cd = bp->dependent[j], i = 0;
        while (i < r && !(fabs(bp->beta[i + r * j] * bp->scale[bp->base[i]] / bp->scale[cd]) >
                          bp->tolerance))
            ++i;
        if (i < r) continue;
        lucid_regressor_parameter_name(m, o, cd, name, sizeof name);
        lua_pushstring(L, name);
        lua_rawseti(L, -2, ++count);
    }
    lua_setfield(L, -2, "unidentifiable");
}

/* map K (rank x p: theta_b = K theta) and select S (p x rank: Y_b = Y S, and theta = S theta_b
 * is a parameter vector with those base parameters). */
static void set_matrices(lua_State *L, const lucid_base_parameters *bp) {
    size_t r = bp->rank, p = bp->nparams;
    lucid_lua_matrix *K = lucid_lua_newmatrix(L, (int)r, (int)p);
    for (size_t i = 0; i < r; ++i) {
        K->data[i + r * bp->base[i]] = 1.0;
        for (size_t j = 0; j < p - r; ++j) K->data[i + r * bp->dependent[j]] = bp->beta[i + r * j];
    }
    lua_setfield(L, -2, "map");
    lucid_lua_matrix *S = lucid_lua_newmatrix(L, (int)p, (int)r);
    for (size_t i = 0; i < r; ++i) S->data[bp->base[i] + p * i] = 1.0;
    lua_setfield(L, -2, "select");
}

static int l_base_parameters(lua_State *L) {
    lua_settop(L, 2);
    const char *F = "lucid.dynamics.base_parameters";
    lucid_model *m = lucid_lua_checkmodel(L, 1, F, "m", NULL);
    lucid_base_parameters_options o;
    read_base_options(L, 2, F, lucid_model_nv(m), &o);
    size_t p = lucid_regressor_ncols(m, &o.regressor);
    if ((double)p * (double)p > (double)LUCID_MATRIX_MAX_ENTRIES)
        lucid_lua_fail(L, F, "%I parameters are too many", (lua_Integer)p);
    bp_box *box = lua_newuserdatauv(L, sizeof *box, 0);
    box->bp = NULL;
    luaL_setmetatable(L, BOX_METATABLE);
    char err[256];
    lucid_status st = lucid_model_base_parameters(m, &o, &box->bp, err, sizeof err);
    if (st != LUCID_OK) lucid_lua_fail(L, F, "%s", err);
    const lucid_base_parameters *bp = box->bp;
    lua_newtable(L);
    lucid_lua_set_integer(L, "rank", (lua_Integer)bp->rank);
    lucid_lua_set_integer(L, "nparams", (lua_Integer)bp->nparams);
    lucid_lua_set_integer(L, "samples", (lua_Integer)bp->samples);
    lucid_lua_set_number(L, "tolerance", bp->tolerance);
    lucid_lua_set_boolean(L, "pivoted", bp->pivoted);
    lucid_lua_set_number(L, "last_kept", bp->last_kept);
    lucid_lua_set_number(L, "first_dropped", bp->first_dropped);
    set_integer_list(L, "columns", bp->base, bp->rank);
    set_integer_list(L, "dependent", bp->dependent, bp->nparams - bp->rank);
    push_names(L, m, &o.regressor, NULL, p);
    lua_setfield(L, -2, "parameters");
    set_descriptions(L, m, bp, &o.regressor);
    set_matrices(L, bp);
    return 1;
}

void lucid_lua_add_regressor(lua_State *L) {
    static const luaL_Reg metamethods[] = {{"__gc", box_gc}, {NULL, NULL}};
    lucid_lua_push_metatable(L, BOX_METATABLE, metamethods, NULL);
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {{"regressor", l_regressor},
                                   {"inertial_parameters", l_inertial_parameters},
                                   {"base_parameters", l_base_parameters},
                                   {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
}
