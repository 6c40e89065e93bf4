/* The "lucid.mat" Lua type: constructors (lucid.vec, lucid.mat, lucid.zeros, lucid.eye),
 * element access, arithmetic operators and the simple methods. The LAPACK-backed methods
 * (solve, chol, ...) are added to the same method table by lua_decompositions.c.
 *
 * A vector is an n x 1 matrix flagged is_vector: `#v` is its length, `v[i]` its entries.
 * For a matrix `#m` is the number of rows (like a Lua table of rows) and entries are read
 * with m:get(i, j). Every new matrix is a Lua userdata created before anything can raise,
 * so an error never leaks memory. */
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_decompositions.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/modules.h"
#include "solvers/dense/dense_product.h"

#define MAX_DIM ((lua_Integer)LUCID_MATRIX_MAX_ENTRIES)
/* __tostring prints every entry up to this many; larger matrices print their shape only. */
#define TOSTRING_MAX_ENTRIES 400

static long entry_count(const lucid_lua_matrix *m) {
    return (long)m->rows * (long)m->cols;
}

static lucid_lua_matrix *copy_matrix(lua_State *L, const lucid_lua_matrix *a) {
    lucid_lua_matrix *c =
        a->is_vector ? lucid_lua_newvector(L, a->rows) : lucid_lua_newmatrix(L, a->rows, a->cols);
    if (entry_count(a)) memcpy(c->data, a->data, (size_t)entry_count(a) * sizeof(double));
    return c;
}

/* Size from argument idx as an int in [0, max entries]. */
static int check_size(lua_State *L, int idx, const char *fname, const char *what) {
    return (int)lucid_lua_checkinteger_range(L, idx, 0, MAX_DIM, fname, what);
}

/* ---- constructors ---------------------------------------------------------------- */

/* Raises "FNAME: entry ... PROBLEM" naming entry `row` of a vector (col == 0) or (row, col). */
static void fail_entry(lua_State *L, const char *fname, int row, int col, const char *problem) {
    if (col == 0) lucid_lua_fail(L, fname, "entry %d %s", row, problem);
    lucid_lua_fail(L, fname, "entry (%d, %d) %s", row, col, problem);
}

/* Entry k (1-based) of the table at idx as a finite number; row/col name it in errors
 * (the message is only formatted on failure: constructors may read millions of entries). */
static double table_number(lua_State *L, int idx, lua_Integer k, const char *fname, int row,
                           int col) {
    lua_geti(L, idx, k);
    /* A string such as "0x10" is refused, not converted: only Lua numbers are entries. */
    if (lua_type(L, -1) != LUA_TNUMBER) {
        lua_pushfstring(L, "must be a number (got %s)%s", lucid_lua_typename(L, -1),
                        lucid_lua_ad_hint(L, -1));
        fail_entry(L, fname, row, col, lua_tostring(L, -1));
    }
    double x = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (!isfinite(x)) fail_entry(L, fname, row, col, "must be finite (has NaN or Inf)");
    return x;
}

static lua_Integer table_length(lua_State *L, int idx, const char *fname) {
    lua_Integer n = luaL_len(L, idx);
    if (n > MAX_DIM) lucid_lua_fail(L, fname, "too many entries (%I)", n);
    return n;
}

/* lucid.vec{x1, x2, ...} or lucid.vec(v): a new vector. */
static int l_vec(lua_State *L) {
    const char *fname = "lucid.vec";
    lucid_lua_matrix *src = lucid_lua_tomatrix(L, 1);
    if (src) {
        if (src->rows != 1 && src->cols != 1 && entry_count(src) != 0)
            lucid_lua_fail(L, fname,
                           "argument must be a vector or a 1 x n / n x 1 matrix (got %d x %d)",
                           src->rows, src->cols);
        lucid_lua_pushvalues(L, src->data, (int)entry_count(src));
        return 1;
    }
    if (lua_type(L, 1) != LUA_TTABLE)
        lucid_lua_fail(L, fname, "argument must be a table of numbers (got %s)",
                       lucid_lua_typename(L, 1));
    int n = (int)table_length(L, 1, fname);
    lucid_lua_matrix *v = lucid_lua_newvector(L, n);
    for (int i = 0; i < n; ++i) v->data[i] = table_number(L, 1, i + 1, fname, i + 1, 0);
    return 1;
}

/* lucid.mat{{row}, {row}, ...} or lucid.mat(m) (a copy; a vector becomes an n x 1 matrix). */
static int l_mat(lua_State *L) {
    const char *fname = "lucid.mat";
    lucid_lua_matrix *src = lucid_lua_tomatrix(L, 1);
    if (src) {
        lucid_lua_pushmatrix_data(L, src->data, src->rows, src->cols);
        return 1;
    }
    if (lua_type(L, 1) != LUA_TTABLE)
        lucid_lua_fail(L, fname, "argument must be a table of rows (got %s)",
                       lucid_lua_typename(L, 1));
    int rows = (int)table_length(L, 1, fname);
    int cols = 0;
    if (rows > 0) {
        if (lua_geti(L, 1, 1) != LUA_TTABLE)
            lucid_lua_fail(L, fname, "row 1 must be a table of numbers (got %s)",
                           lucid_lua_typename(L, -1));
        cols = (int)table_length(L, -1, fname);
        lua_pop(L, 1);
        if ((long)rows * cols > LUCID_MATRIX_MAX_ENTRIES)
            lucid_lua_fail(L, fname, "too many entries (%d x %d)", rows, cols);
    }
    lucid_lua_matrix *m = lucid_lua_newmatrix(L, rows, cols);
    for (int i = 0; i < rows; ++i) {
        if (lua_geti(L, 1, i + 1) != LUA_TTABLE)
            lucid_lua_fail(L, fname, "row %d must be a table of numbers (got %s)", i + 1,
                           lucid_lua_typename(L, -1));
        lua_Integer len = luaL_len(L, -1);
        if (len != cols)
            lucid_lua_fail(L, fname, "row %d has %I entries, row 1 has %d", i + 1, len, cols);
        for (int j = 0; j < cols; ++j)
            m->data[i + (long)rows * j] = table_number(L, -1, j + 1, fname, i + 1, j + 1);
        lua_pop(L, 1);
    }
    return 1;
}

/* lucid.zeros(n) -> vector, lucid.zeros(n, m) -> n x m matrix. */
static int l_zeros(lua_State *L) {
    int rows = check_size(L, 1, "lucid.zeros", "n");
    if (lua_isnoneornil(L, 2)) {
        lucid_lua_newvector(L, rows);
        return 1;
    }
    int cols = check_size(L, 2, "lucid.zeros", "m");
    if ((long)rows * cols > LUCID_MATRIX_MAX_ENTRIES)
        lucid_lua_fail(L, "lucid.zeros", "too many entries (%d x %d)", rows, cols);
    lucid_lua_newmatrix(L, rows, cols);
    return 1;
}

/* lucid.eye(n): the n x n identity. */
static int l_eye(lua_State *L) {
    lua_Integer n = lucid_lua_checkinteger_range(L, 1, 0, 1 << 14, "lucid.eye", "n");
    lucid_lua_matrix *m = lucid_lua_newmatrix(L, (int)n, (int)n);
    for (int i = 0; i < n; ++i) m->data[i + (long)n * i] = 1.0;
    return 1;
}

/* ---- element access ---------------------------------------------------------------- */

static lucid_lua_matrix *check_self(lua_State *L, const char *fname) {
    return lucid_lua_checkmatrix(L, 1, fname, "self");
}

/* A 1-based index at idx in [1, n], returned 0-based. */
static int check_index(lua_State *L, int idx, int n, const char *fname, const char *what) {
    int isint = 0;
    lua_Integer k = lua_tointegerx(L, idx, &isint);
    if (!isint) {
        if (lua_type(L, idx) == LUA_TNUMBER)
            lucid_lua_fail(L, fname, "%s must be an integer (got %f)", what, lua_tonumber(L, idx));
        lucid_lua_fail(L, fname, "%s must be an integer (got %s)", what,
                       lucid_lua_typename(L, idx));
    }
    if (k < 1 || k > n) lucid_lua_fail(L, fname, "%s %I is out of range [1, %d]", what, k, n);
    return (int)(k - 1);
}

/* __index: v[i] for vectors, otherwise the method table (upvalue 1). */
static int l_index(lua_State *L) {
    lucid_lua_matrix *m = lucid_lua_checkmatrix(L, 1, "lucid.vec[i]", "self");
    if (lua_type(L, 2) == LUA_TNUMBER) {
        if (!m->is_vector)
            lucid_lua_fail(L, "lucid.mat[i]", "a matrix is indexed with m:get(i, j), not m[i]");
        lua_pushnumber(L, m->data[check_index(L, 2, m->rows, "lucid.vec[i]", "index")]);
        return 1;
    }
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    return 1;
}

/* __newindex: v[i] = x for vectors (finite x only); nothing else may be assigned. */
static int l_newindex(lua_State *L) {
    lucid_lua_matrix *m = lucid_lua_checkmatrix(L, 1, "lucid.vec[i]", "self");
    if (lua_type(L, 2) != LUA_TNUMBER)
        lucid_lua_fail(L, "lucid.vec[i]", "cannot assign field '%s' (a %s key)",
                       lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "?",
                       lucid_lua_typename(L, 2));
    if (!m->is_vector)
        lucid_lua_fail(L, "lucid.mat[i]", "a matrix is assigned with m:set(i, j, x), not m[i] = x");
    int i = check_index(L, 2, m->rows, "lucid.vec[i]", "index");
    m->data[i] = lucid_lua_checkfinite(L, 3, "lucid.vec[i]", "value");
    return 0;
}

/* #v: the length of a vector; the number of rows of a matrix. */
static int l_len(lua_State *L) {
    lua_pushinteger(L, lucid_lua_checkmatrix(L, 1, "lucid.mat.__len (#)", "self")->rows);
    return 1;
}

static int l_rows(lua_State *L) {
    lua_pushinteger(L, check_self(L, "lucid.mat:rows")->rows);
    return 1;
}

static int l_cols(lua_State *L) {
    lua_pushinteger(L, check_self(L, "lucid.mat:cols")->cols);
    return 1;
}

/* m:size() -> rows, cols */
static int l_size(lua_State *L) {
    lucid_lua_matrix *m = check_self(L, "lucid.mat:size");
    lua_pushinteger(L, m->rows);
    lua_pushinteger(L, m->cols);
    return 2;
}

/* m:get(i, j); for a vector j may be omitted. */
static int l_get(lua_State *L) {
    const char *fname = "lucid.mat:get";
    lucid_lua_matrix *m = check_self(L, fname);
    int i = check_index(L, 2, m->rows, fname, "row");
    int j =
        (m->is_vector && lua_isnoneornil(L, 3)) ? 0 : check_index(L, 3, m->cols, fname, "column");
    lua_pushnumber(L, m->data[i + (long)m->rows * j]);
    return 1;
}

/* m:set(i, j, x) with finite x; returns m. */
static int l_set(lua_State *L) {
    const char *fname = "lucid.mat:set";
    lucid_lua_matrix *m = check_self(L, fname);
    int i = check_index(L, 2, m->rows, fname, "row");
    int j = check_index(L, 3, m->cols, fname, "column");
    m->data[i + (long)m->rows * j] = lucid_lua_checkfinite(L, 4, fname, "value");
    lua_settop(L, 1);
    return 1;
}

/* Vector -> flat list; matrix -> list of rows. */
static int l_totable(lua_State *L) {
    lucid_lua_matrix *m = check_self(L, "lucid.mat:totable");
    if (m->is_vector) {
        lua_createtable(L, m->rows, 0);
        for (int i = 0; i < m->rows; ++i) {
            lua_pushnumber(L, m->data[i]);
            lua_rawseti(L, -2, i + 1);
        }
        return 1;
    }
    lua_createtable(L, m->rows, 0);
    for (int i = 0; i < m->rows; ++i) {
        lua_createtable(L, m->cols, 0);
        for (int j = 0; j < m->cols; ++j) {
            lua_pushnumber(L, m->data[i + (long)m->rows * j]);
            lua_rawseti(L, -2, j + 1);
        }
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int l_copy(lua_State *L) {
    copy_matrix(L, check_self(L, "lucid.mat:copy"));
    return 1;
}

/* m:T(): the transpose, always a matrix (a vector of length n becomes 1 x n). */
static int l_transpose(lua_State *L) {
    lucid_lua_matrix *a = check_self(L, "lucid.mat:T");
    lucid_lua_matrix *t = lucid_lua_newmatrix(L, a->cols, a->rows);
    for (int j = 0; j < a->cols; ++j)
        for (int i = 0; i < a->rows; ++i)
            t->data[j + (long)a->cols * i] = a->data[i + (long)a->rows * j];
    return 1;
}

/* a:dot(b): sum of a_ij b_ij for a and b of the same shape (vectors: the dot product). */
static int l_dot(lua_State *L) {
    const char *fname = "lucid.mat:dot";
    lucid_lua_matrix *a = check_self(L, fname);
    lucid_lua_matrix *b = lucid_lua_checkmatrix(L, 2, fname, "argument");
    if (a->rows != b->rows || a->cols != b->cols)
        lucid_lua_fail(L, fname, "shapes differ (%d x %d and %d x %d)", a->rows, a->cols, b->rows,
                       b->cols);
    double sum = 0.0;
    for (long k = 0; k < entry_count(a); ++k) sum += a->data[k] * b->data[k];
    lua_pushnumber(L, sum);
    return 1;
}

/* 2-norm of a vector, Frobenius norm of a matrix. */
static int l_norm(lua_State *L) {
    lucid_lua_matrix *a = check_self(L, "lucid.mat:norm");
    lua_pushnumber(L, lucid_dense_norm2((int)entry_count(a), a->data));
    return 1;
}

/* Writes entry (i, j) of m as "%.14g" into num (40 bytes); returns its length. */
static int format_entry(const lucid_lua_matrix *m, int i, int j, char num[40]) {
    return snprintf(num, 40, "%.14g", m->data[i + (long)m->rows * j]);
}

/* A vector on one line, `lucid.vec{1, 2}`; a matrix one row per line, its columns right-aligned,
 * `lucid.mat{{1, 2},\n          {3, 4}}` (still a Lua constructor that rebuilds it). */
static int l_tostring(lua_State *L) {
    lucid_lua_matrix *m = lucid_lua_checkmatrix(L, 1, "lucid.mat.__tostring", "self");
    if (entry_count(m) > TOSTRING_MAX_ENTRIES) {
        if (m->is_vector)
            lua_pushfstring(L, "lucid.vec(%d entries)", m->rows);
        else
            lua_pushfstring(L, "lucid.mat(%d x %d)", m->rows, m->cols);
        return 1;
    }
    char num[40];
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    if (m->is_vector) {
        luaL_addstring(&b, "lucid.vec{");
        for (int i = 0; i < m->rows; ++i) {
            if (i) luaL_addstring(&b, ", ");
            format_entry(m, i, 0, num);
            luaL_addstring(&b, num);
        }
        luaL_addchar(&b, '}');
        luaL_pushresult(&b);
        return 1;
    }
    luaL_addstring(&b, "lucid.mat{");
    for (int i = 0; i < m->rows; ++i) {
        luaL_addstring(&b, i ? ",\n          {" : "{"); /* under the first row's '{' */
        for (int j = 0; j < m->cols; ++j) {
            int width = 0; /* the column's widest entry (TOSTRING_MAX_ENTRIES bounds the work) */
            for (int r = 0; r < m->rows; ++r) {
                int n = format_entry(m, r, j, num);
                if (n > width) width = n;
            }
            int n = format_entry(m, i, j, num);
            if (j) luaL_addstring(&b, ", ");
            for (int pad = n; pad < width; ++pad) luaL_addchar(&b, ' ');
            luaL_addstring(&b, num);
        }
        luaL_addchar(&b, '}');
    }
    luaL_addchar(&b, '}');
    luaL_pushresult(&b);
    return 1;
}

/* ---- arithmetic ---------------------------------------------------------------------- */

/* Both operands of + or - must be matrices of the same shape. */
static int l_add_sub(lua_State *L, const char *fname, double sign) {
    lucid_lua_matrix *a = lucid_lua_tomatrix(L, 1);
    lucid_lua_matrix *b = lucid_lua_tomatrix(L, 2);
    if (!a || !b)
        lucid_lua_fail(L, fname, "cannot combine a %s with a %s (both must be lucid.vec/mat)",
                       lucid_lua_typename(L, 1), lucid_lua_typename(L, 2));
    if (a->rows != b->rows || a->cols != b->cols)
        lucid_lua_fail(L, fname, "shape mismatch (%d x %d and %d x %d)", a->rows, a->cols, b->rows,
                       b->cols);
    lucid_lua_matrix *c = a->is_vector && b->is_vector ? lucid_lua_newvector(L, a->rows)
                                                       : lucid_lua_newmatrix(L, a->rows, a->cols);
    for (long k = 0; k < entry_count(a); ++k) c->data[k] = a->data[k] + sign * b->data[k];
    return 1;
}

static int l_add(lua_State *L) {
    return l_add_sub(L, "lucid.mat.__add (+)", 1.0);
}
static int l_sub(lua_State *L) {
    return l_add_sub(L, "lucid.mat.__sub (-)", -1.0);
}

static void push_scaled(lua_State *L, const lucid_lua_matrix *a, double s) {
    lucid_lua_matrix *c = copy_matrix(L, a);
    for (long k = 0; k < entry_count(c); ++k) c->data[k] *= s;
}

static int l_unm(lua_State *L) {
    push_scaled(L, lucid_lua_checkmatrix(L, 1, "lucid.mat.__unm (-)", "self"), -1.0);
    return 1;
}

/* scalar * X, X * scalar, A * B (a vector is an n x 1 matrix; A * vector is a vector). */
static int l_mul(lua_State *L) {
    const char *fname = "lucid.mat.__mul (*)";
    lucid_lua_matrix *a = lucid_lua_tomatrix(L, 1);
    lucid_lua_matrix *b = lucid_lua_tomatrix(L, 2);
    if (!a && !b) lucid_lua_fail(L, fname, "one operand must be a lucid matrix");
    if (!a || !b) {
        int scalar_idx = a ? 2 : 1;
        lucid_lua_matrix *x = a ? a : b;
        if (lua_type(L, scalar_idx) != LUA_TNUMBER)
            lucid_lua_fail(L, fname, "cannot multiply a lucid matrix by a %s",
                           lucid_lua_typename(L, scalar_idx));
        push_scaled(L, x, lua_tonumber(L, scalar_idx));
        return 1;
    }
    if (a->cols != b->rows)
        lucid_lua_fail(L, fname, "shape mismatch (%d x %d times %d x %d)", a->rows, a->cols,
                       b->rows, b->cols);
    lucid_lua_matrix *c =
        b->is_vector ? lucid_lua_newvector(L, a->rows) : lucid_lua_newmatrix(L, a->rows, b->cols);
    lucid_dense_matmul(a->rows, b->cols, a->cols, a->data, b->data, c->data);
    return 1;
}

/* X / scalar */
static int l_div(lua_State *L) {
    const char *fname = "lucid.mat.__div (/)";
    lucid_lua_matrix *a = lucid_lua_tomatrix(L, 1);
    if (!a || lua_type(L, 2) != LUA_TNUMBER)
        lucid_lua_fail(L, fname, "only a lucid matrix divided by a number is defined (got %s / %s)",
                       lucid_lua_typename(L, 1), lucid_lua_typename(L, 2));
    push_scaled(L, a, 1.0 / lua_tonumber(L, 2));
    return 1;
}

/* a == b: same shape and kind, equal entries. */
static int l_eq(lua_State *L) {
    lucid_lua_matrix *a = lucid_lua_tomatrix(L, 1);
    lucid_lua_matrix *b = lucid_lua_tomatrix(L, 2);
    int equal = a && b && a->rows == b->rows && a->cols == b->cols && a->is_vector == b->is_vector;
    for (long k = 0; equal && k < entry_count(a); ++k) equal = a->data[k] == b->data[k];
    lua_pushboolean(L, equal);
    return 1;
}

/* ---- registration -------------------------------------------------------------------- */

void lucid_open_linalg(lua_State *L) {
    static const luaL_Reg methods[] = {{"rows", l_rows}, {"cols", l_cols},   {"size", l_size},
                                       {"get", l_get},   {"set", l_set},     {"totable", l_totable},
                                       {"copy", l_copy}, {"T", l_transpose}, {"dot", l_dot},
                                       {"norm", l_norm}, {NULL, NULL}};
    static const luaL_Reg metamethods[] = {{"__newindex", l_newindex},
                                           {"__len", l_len},
                                           {"__tostring", l_tostring},
                                           {"__add", l_add},
                                           {"__sub", l_sub},
                                           {"__unm", l_unm},
                                           {"__mul", l_mul},
                                           {"__div", l_div},
                                           {"__eq", l_eq},
                                           {NULL, NULL}};
    static const luaL_Reg functions[] = {
        {"vec", l_vec}, {"mat", l_mat}, {"zeros", l_zeros}, {"eye", l_eye}, {NULL, NULL}};

    lucid_lua_push_metatable(L, LUCID_MATRIX_METATABLE, metamethods, NULL);
    lua_newtable(L); /* the method table, shared by __index */
    luaL_setfuncs(L, methods, 0);
    lucid_lua_add_decomposition_methods(L);
    lua_pushcclosure(L, l_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);

    luaL_setfuncs(L, functions, 0);
    lucid_lua_open_decompositions(L);
}
