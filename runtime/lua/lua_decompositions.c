/* LAPACK-backed methods of "lucid.mat" and the BLAS thread setting.
 *
 * Memory discipline: every buffer LAPACK writes into (a copy of A, the right-hand side,
 * the outputs) is a Lua userdata pushed BEFORE the kernel runs, and the LAPACK workspace is
 * one userdata per lua_State kept in the registry (freed by its __gc). So an error raised
 * at any point of a call leaves nothing that the garbage collector does not own. */
#include "runtime/lua/lua_decompositions.h"

#include <float.h>
#include <lauxlib.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/math/finite.h"
#include "solvers/dense/dense_cholesky.h"
#include "solvers/dense/dense_eigen.h"
#include "solvers/dense/dense_least_squares.h"
#include "solvers/dense/dense_lu.h"
#include "solvers/dense/dense_svd.h"
#include "solvers/dense/dense_threads.h"
#include "solvers/dense/dense_workspace.h"

#define WORKSPACE_METATABLE "lucid.dense_workspace"
/* eigh and chol accept A when |a_ij - a_ji| <= SYMMETRY_RTOL * max |a_kl|. */
#define SYMMETRY_RTOL      1e-10
#define SYMMETRY_RTOL_TEXT "1e-10"

/* Its address is the registry key of the workspace (the byte itself is never read). */
static const char workspace_key = 0;

typedef struct workspace_box {
    lucid_dense_workspace *ws;
} workspace_box;

static int workspace_gc(lua_State *L) {
    workspace_box *box = luaL_testudata(L, 1, WORKSPACE_METATABLE);
    if (!box) return 0;
    lucid_dense_workspace_destroy(box->ws);
    box->ws = NULL;
    return 0;
}

/* The box is registered before the C workspace is allocated, so nothing leaks if either
 * step fails. */
static void create_workspace(lua_State *L) {
    workspace_box *box = lua_newuserdatauv(L, sizeof(workspace_box), 0);
    box->ws = NULL;
    static const luaL_Reg metamethods[] = {{"__gc", workspace_gc}, {NULL, NULL}};
    lucid_lua_push_metatable(L, WORKSPACE_METATABLE, metamethods, NULL);
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &workspace_key);
    box->ws = lucid_dense_workspace_create();
}

static lucid_dense_workspace *get_workspace(lua_State *L, const char *fname) {
    lua_rawgetp(L, LUA_REGISTRYINDEX, &workspace_key);
    workspace_box *box = luaL_testudata(L, -1, WORKSPACE_METATABLE);
    lua_pop(L, 1); /* the registry keeps it alive */
    if (!box || !box->ws) lucid_lua_fail_status(L, fname, LUCID_ERR_NO_MEMORY);
    return box->ws;
}

/* ---- argument checks ---- */

static long entries(const lucid_lua_matrix *m) {
    return (long)m->rows * m->cols;
}

/* self: a non-empty matrix of finite numbers. */
static lucid_lua_matrix *check_operand(lua_State *L, const char *fname) {
    lucid_lua_matrix *a = lucid_lua_checkmatrix(L, 1, fname, "self");
    if (entries(a) == 0) lucid_lua_fail(L, fname, "matrix is empty (%d x %d)", a->rows, a->cols);
    if (!lucid_all_finite(a->data, entries(a)))
        lucid_lua_fail(L, fname, "matrix must be finite (has NaN or Inf)");
    return a;
}

static lucid_lua_matrix *check_square(lua_State *L, const char *fname) {
    lucid_lua_matrix *a = check_operand(L, fname);
    if (a->rows != a->cols)
        lucid_lua_fail(L, fname, "matrix must be square (got %d x %d)", a->rows, a->cols);
    return a;
}

static void check_symmetric(lua_State *L, const lucid_lua_matrix *a, const char *fname) {
    if (!lucid_dense_is_symmetric(a->rows, a->data, a->rows, SYMMETRY_RTOL))
        lucid_lua_fail(L, fname, "matrix is not symmetric (to a relative " SYMMETRY_RTOL_TEXT ")");
}

/* Pushes a copy of the right-hand side at idx (a lucid vector/matrix with `rows` rows, or a
 * table of `rows` numbers) and returns it; a vector stays a vector. */
static lucid_lua_matrix *push_rhs_copy(lua_State *L, int idx, int rows, const char *fname) {
    lucid_lua_matrix *b = lucid_lua_tomatrix(L, idx);
    if (!b) {
        if (lua_type(L, idx) != LUA_TTABLE)
            lucid_lua_fail(L, fname, "b must be a lucid.vec, lucid.mat or table (got %s)",
                           lucid_lua_typename(L, idx));
        lucid_lua_matrix *x = lucid_lua_newvector(L, rows);
        lucid_lua_checkvalues(L, idx, rows, x->data, fname, "b");
        return x;
    }
    if (b->rows != rows)
        lucid_lua_fail(L, fname, "b has %d rows, the matrix has %d", b->rows, rows);
    if (b->cols == 0) lucid_lua_fail(L, fname, "b is empty (%d x 0)", b->rows);
    if (!lucid_all_finite(b->data, entries(b)))
        lucid_lua_fail(L, fname, "b must be finite (has NaN or Inf)");
    lucid_lua_matrix *x =
        b->is_vector ? lucid_lua_newvector(L, rows) : lucid_lua_newmatrix(L, rows, b->cols);
    memcpy(x->data, b->data, (size_t)entries(b) * sizeof(double));
    return x;
}

/* Pushes a plain-matrix copy of a (LAPACK overwrites it). */
static lucid_lua_matrix *push_work_copy(lua_State *L, const lucid_lua_matrix *a) {
    lucid_lua_matrix *c = lucid_lua_newmatrix(L, a->rows, a->cols);
    memcpy(c->data, a->data, (size_t)entries(a) * sizeof(double));
    return c;
}

static void check_status(lua_State *L, lucid_status status, const char *fname) {
    if (status != LUCID_OK) lucid_lua_fail_status(L, fname, status);
}

/* ---- methods ---- */

/* A:solve(b): x with A x = b (LU with partial pivoting); b a vector or a matrix. */
static int l_solve(lua_State *L) {
    const char *fname = "lucid.mat:solve";
    lucid_dense_workspace *ws = get_workspace(L, fname);
    lucid_lua_matrix *a = check_square(L, fname);
    lucid_lua_matrix *x = push_rhs_copy(L, 2, a->rows, fname);
    int x_idx = lua_gettop(L);
    lucid_lua_matrix *lu = push_work_copy(L, a);
    check_status(L, lucid_dense_lu_solve(ws, a->rows, x->cols, lu->data, a->rows, x->data, a->rows),
                 fname);
    lua_pushvalue(L, x_idx);
    return 1;
}

/* A:inv(): the inverse of a square non-singular A. */
static int l_inv(lua_State *L) {
    const char *fname = "lucid.mat:inv";
    lucid_dense_workspace *ws = get_workspace(L, fname);
    lucid_lua_matrix *a = check_square(L, fname);
    lucid_lua_matrix *x = push_work_copy(L, a);
    check_status(L, lucid_dense_inverse(ws, a->rows, x->data, a->rows), fname);
    return 1;
}

/* A:chol(): lower-triangular L with A = L L^T (A symmetric positive definite). */
static int l_chol(lua_State *L) {
    const char *fname = "lucid.mat:chol";
    lucid_lua_matrix *a = check_square(L, fname);
    check_symmetric(L, a, fname);
    lucid_lua_matrix *l = push_work_copy(L, a);
    check_status(L, lucid_dense_cholesky(a->rows, l->data, a->rows), fname);
    return 1;
}

/* A:cholsolve(b): x with A x = b through the Cholesky factor of A. */
static int l_cholsolve(lua_State *L) {
    const char *fname = "lucid.mat:cholsolve";
    lucid_lua_matrix *a = check_square(L, fname);
    check_symmetric(L, a, fname);
    lucid_lua_matrix *x = push_rhs_copy(L, 2, a->rows, fname);
    int x_idx = lua_gettop(L);
    lucid_lua_matrix *l = push_work_copy(L, a);
    const int n = a->rows;
    check_status(L, lucid_dense_cholesky(n, l->data, n), fname);
    check_status(L, lucid_dense_cholesky_solve(n, x->cols, l->data, n, x->data, n), fname);
    lua_pushvalue(L, x_idx);
    return 1;
}

/* A:lstsq(b [, rcond]) -> x, rank: the minimum-norm least-squares solution (SVD-based).
 * Singular values <= rcond * s_max count as zero; rcond defaults to max(m, n) * eps. */
static int l_lstsq(lua_State *L) {
    const char *fname = "lucid.mat:lstsq";
    lucid_dense_workspace *ws = get_workspace(L, fname);
    lucid_lua_matrix *a = check_operand(L, fname);
    const int m = a->rows, n = a->cols, ld = m > n ? m : n;
    double rcond = ld * DBL_EPSILON;
    if (!lua_isnoneornil(L, 3)) {
        rcond = lucid_lua_checkfinite(L, 3, fname, "rcond");
        if (rcond < 0.0 || rcond >= 1.0)
            lucid_lua_fail(L, fname, "rcond must be in [0, 1) (got %f)", rcond);
    }
    lucid_lua_matrix *b = push_rhs_copy(L, 2, m, fname);
    const int nrhs = b->cols;
    lucid_lua_matrix *x =
        b->is_vector ? lucid_lua_newvector(L, n) : lucid_lua_newmatrix(L, n, nrhs);
    int x_idx = lua_gettop(L);
    lucid_lua_matrix *work_b = lucid_lua_newmatrix(L, ld, nrhs); /* LAPACK needs max(m, n) rows */
    for (int j = 0; j < nrhs; ++j)
        memcpy(work_b->data + (long)ld * j, b->data + (long)m * j, (size_t)m * sizeof(double));
    lucid_lua_matrix *work_a = push_work_copy(L, a);
    int rank = 0;
    check_status(L,
                 lucid_dense_least_squares_min_norm(ws, m, n, nrhs, work_a->data, m, work_b->data,
                                                    ld, rcond, &rank),
                 fname);
    for (int j = 0; j < nrhs; ++j)
        memcpy(x->data + (long)n * j, work_b->data + (long)ld * j, (size_t)n * sizeof(double));
    lua_pushvalue(L, x_idx);
    lua_pushinteger(L, rank);
    return 2;
}

/* A:eigh() -> w, V: eigenvalues ascending (vec) and orthonormal eigenvectors (columns of V)
 * of a symmetric A, so A = V diag(w) V^T. */
static int l_eigh(lua_State *L) {
    const char *fname = "lucid.mat:eigh";
    lucid_dense_workspace *ws = get_workspace(L, fname);
    lucid_lua_matrix *a = check_square(L, fname);
    check_symmetric(L, a, fname);
    lucid_lua_matrix *w = lucid_lua_newvector(L, a->rows);
    lucid_lua_matrix *v = push_work_copy(L, a);
    check_status(L, lucid_dense_symmetric_eigen(ws, a->rows, v->data, a->rows, w->data), fname);
    return 2;
}

/* A:svd() -> U, s, V: the thin SVD A = U diag(s) V^T, s descending (vec), k = min(m, n):
 * U is m x k and V is n x k, both with orthonormal columns. */
static int l_svd(lua_State *L) {
    const char *fname = "lucid.mat:svd";
    lucid_dense_workspace *ws = get_workspace(L, fname);
    lucid_lua_matrix *a = check_operand(L, fname);
    const int m = a->rows, n = a->cols, k = m < n ? m : n;
    int first = lua_gettop(L) + 1;
    lucid_lua_matrix *u = lucid_lua_newmatrix(L, m, k);
    lucid_lua_matrix *s = lucid_lua_newvector(L, k);
    lucid_lua_matrix *v = lucid_lua_newmatrix(L, n, k);
    lucid_lua_matrix *vt = lucid_lua_newmatrix(L, k, n);
    lucid_lua_matrix *work_a = push_work_copy(L, a);
    check_status(L, lucid_dense_svd(ws, m, n, work_a->data, m, s->data, u->data, m, vt->data, k),
                 fname);
    for (int p = 0; p < k; ++p)
        for (int j = 0; j < n; ++j) v->data[j + (long)n * p] = vt->data[p + (long)k * j];
    lua_settop(L, first + 2); /* U, s, V */
    return 3;
}

/* lucid.set_num_threads(n): OpenBLAS threads (1 by default; small problems run faster). */
static int l_set_num_threads(lua_State *L) {
    const char *fname = "lucid.set_num_threads";
    lua_Integer n = lucid_lua_checkinteger_range(L, 1, 1, LUCID_DENSE_MAX_THREADS, fname, "n");
    check_status(L, lucid_dense_set_threads((int)n), fname);
    return 0;
}

static int l_get_num_threads(lua_State *L) {
    lua_pushinteger(L, lucid_dense_get_threads());
    return 1;
}

void lucid_lua_add_decomposition_methods(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"solve", l_solve}, {"inv", l_inv},   {"chol", l_chol}, {"cholsolve", l_cholsolve},
        {"lstsq", l_lstsq}, {"eigh", l_eigh}, {"svd", l_svd},   {NULL, NULL}};
    luaL_setfuncs(L, methods, 0);
}

void lucid_lua_open_decompositions(lua_State *L) {
    static const luaL_Reg functions[] = {{"set_num_threads", l_set_num_threads},
                                         {"get_num_threads", l_get_num_threads},
                                         {NULL, NULL}};
    luaL_setfuncs(L, functions, 0);
    create_workspace(L);
    lucid_dense_set_threads(1);
}
