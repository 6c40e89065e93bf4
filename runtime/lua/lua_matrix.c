/* Construction, checking and conversion of the "lucid.mat" userdata. The arithmetic,
 * methods and LAPACK-backed decompositions are registered by lua_linalg.c. */
#include "runtime/lua/lua_matrix.h"

#include <lauxlib.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/math/finite.h"

static lucid_lua_matrix *new_matrix(lua_State *L, int rows, int cols, int is_vector) {
    if (rows < 0 || cols < 0 || (long)rows * (long)cols > LUCID_MATRIX_MAX_ENTRIES)
        luaL_error(L, "lucid.mat: invalid size %d x %d", rows, cols);
    size_t n = (size_t)rows * (size_t)cols;
    lucid_lua_matrix *m = lua_newuserdatauv(L, sizeof(lucid_lua_matrix) + n * sizeof(double), 0);
    m->rows = rows;
    m->cols = cols;
    m->is_vector = is_vector;
    if (n) memset(m->data, 0, n * sizeof(double));
    luaL_setmetatable(L, LUCID_MATRIX_METATABLE);
    return m;
}

lucid_lua_matrix *lucid_lua_newmatrix(lua_State *L, int rows, int cols) {
    return new_matrix(L, rows, cols, 0);
}

lucid_lua_matrix *lucid_lua_newvector(lua_State *L, int n) {
    return new_matrix(L, n, 1, 1);
}

lucid_lua_matrix *lucid_lua_tomatrix(lua_State *L, int idx) {
    return luaL_testudata(L, idx, LUCID_MATRIX_METATABLE);
}

lucid_lua_matrix *lucid_lua_checkmatrix(lua_State *L, int idx, const char *fname,
                                        const char *what) {
    lucid_lua_matrix *m = lucid_lua_tomatrix(L, idx);
    if (!m)
        lucid_lua_fail(L, fname, "%s must be a lucid matrix (got %s)", what,
                       lucid_lua_typename(L, idx));
    return m;
}

double *lucid_lua_readvalues(lua_State *L, int idx, size_t n, const char *fname, const char *what) {
    idx = lua_absindex(L, idx);
    if (n > 100000000) lucid_lua_fail(L, fname, "%s is too large", what);
    double *x = lua_newuserdatauv(L, sizeof(double) * (n ? n : 1), 0);
    lucid_lua_checkvalues(L, idx, (int)n, x, fname, what);
    return x;
}

double *lucid_lua_newbuffer(lua_State *L, size_t n) {
    double *b = lua_newuserdatauv(L, sizeof(double) * (n ? n : 1), 0);
    memset(b, 0, sizeof(double) * (n ? n : 1));
    return b;
}

/* The lucid.mat at idx; errors name FNAME and WHAT. */
static lucid_lua_matrix *check_mat(lua_State *L, int idx, const char *fname, const char *what) {
    lucid_lua_matrix *M = lucid_lua_tomatrix(L, idx);
    if (!M)
        lucid_lua_fail(L, fname, "%s must be a lucid.mat (got %s)", what,
                       lucid_lua_typename(L, idx));
    return M;
}

const double *lucid_lua_checksquare(lua_State *L, int idx, int m, const char *fname,
                                    const char *what) {
    lucid_lua_matrix *M = check_mat(L, idx, fname, what);
    if (M->rows != m || M->cols != m)
        lucid_lua_fail(L, fname, "%s must be %d x %d (got %d x %d)", what, m, m, M->rows, M->cols);
    if (!lucid_all_finite(M->data, (long)m * m))
        lucid_lua_fail(L, fname, "%s must be finite (has NaN or Inf)", what);
    return M->data;
}

int lucid_lua_checkdelassus(lua_State *L, int idx, const char *fname, const char *what,
                            const double **G) {
    lucid_lua_matrix *M = check_mat(L, idx, fname, what);
    if (M->rows != M->cols || M->rows % 3 != 0)
        lucid_lua_fail(L, fname, "%s must be square with 3 rows per contact (got %d x %d)", what,
                       M->rows, M->cols);
    if (!lucid_all_finite(M->data, (long)M->rows * M->cols))
        lucid_lua_fail(L, fname, "%s must be finite (has NaN or Inf)", what);
    *G = M->data;
    return M->rows / 3;
}

void lucid_lua_checkvalues(lua_State *L, int idx, int n, double *out, const char *fname,
                           const char *what) {
    lucid_lua_matrix *m = lucid_lua_tomatrix(L, idx);
    if (m) {
        if (m->rows * m->cols != n || (m->rows != 1 && m->cols != 1))
            lucid_lua_fail(L, fname, "%s must have %d entries (got a %d x %d matrix)", what, n,
                           m->rows, m->cols);
        memcpy(out, m->data, (size_t)n * sizeof(double));
    } else if (lua_type(L, idx) == LUA_TTABLE) {
        lua_Integer len = luaL_len(L, idx);
        if (len != n) lucid_lua_fail(L, fname, "%s must have %d entries (got %I)", what, n, len);
        for (int i = 0; i < n; ++i) {
            lua_geti(L, idx, i + 1);
            /* Only Lua numbers: a string such as "0x10" is refused, not converted. */
            if (lua_type(L, -1) != LUA_TNUMBER)
                lucid_lua_fail(L, fname, "%s[%d] must be a number (got %s)%s", what, i + 1,
                               lucid_lua_typename(L, -1), lucid_lua_ad_hint(L, -1));
            out[i] = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
    } else {
        lucid_lua_fail(L, fname, "%s must be a lucid.vec or a table of %d numbers (got %s)%s", what,
                       n, lucid_lua_typename(L, idx), lucid_lua_ad_hint(L, idx));
    }
    if (!lucid_all_finite(out, n))
        lucid_lua_fail(L, fname, "%s must be finite (has NaN or Inf)", what);
}

lucid_vec3 lucid_lua_checkvec3(lua_State *L, int idx, const char *fname, const char *what) {
    double v[3];
    lucid_lua_checkvalues(L, idx, 3, v, fname, what);
    return lucid_vec3_load(v);
}

lucid_mat3 lucid_lua_checkmat3(lua_State *L, int idx, const char *fname, const char *what) {
    lucid_mat3 out;
    lucid_lua_matrix *m = lucid_lua_tomatrix(L, idx);
    if (m) {
        if (m->rows != 3 || m->cols != 3)
            lucid_lua_fail(L, fname, "%s must be 3 x 3 (got %d x %d)", what, m->rows, m->cols);
        memcpy(out.m, m->data, sizeof out.m);
    } else if (lua_type(L, idx) == LUA_TTABLE && luaL_len(L, idx) == 3) {
        for (int i = 0; i < 3; ++i) {
            double row[3];
            lua_geti(L, idx, i + 1);
            lucid_lua_checkvalues(L, -1, 3, row, fname, what);
            lua_pop(L, 1);
            for (int j = 0; j < 3; ++j) out.m[i + 3 * j] = row[j];
        }
    } else {
        lucid_lua_fail(L, fname, "%s must be a 3 x 3 lucid.mat or a table of 3 rows (got %s)", what,
                       lucid_lua_typename(L, idx));
    }
    if (!lucid_mat3_isfinite(&out))
        lucid_lua_fail(L, fname, "%s must be finite (has NaN or Inf)", what);
    return out;
}

void lucid_lua_pushvec3(lua_State *L, lucid_vec3 v) {
    lucid_lua_matrix *m = lucid_lua_newvector(L, 3);
    lucid_vec3_store(v, m->data);
}

void lucid_lua_pushmat3(lua_State *L, const lucid_mat3 *a) {
    lucid_lua_matrix *m = lucid_lua_newmatrix(L, 3, 3);
    memcpy(m->data, a->m, sizeof a->m);
}

void lucid_lua_pushvalues(lua_State *L, const double *data, int n) {
    lucid_lua_matrix *m = lucid_lua_newvector(L, n);
    if (n) memcpy(m->data, data, (size_t)n * sizeof(double));
}

void lucid_lua_pushmatrix_data(lua_State *L, const double *data, int rows, int cols) {
    lucid_lua_matrix *m = lucid_lua_newmatrix(L, rows, cols);
    if (rows && cols) memcpy(m->data, data, (size_t)rows * (size_t)cols * sizeof(double));
}

void lucid_lua_set_vec3(lua_State *L, const char *key, lucid_vec3 v) {
    lucid_lua_pushvec3(L, v);
    lua_setfield(L, -2, key);
}

void lucid_lua_set_values(lua_State *L, const char *key, const double *data, int n) {
    lucid_lua_pushvalues(L, data, n);
    lua_setfield(L, -2, key);
}
