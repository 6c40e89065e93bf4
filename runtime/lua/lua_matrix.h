/* The Lua matrix/vector userdata (metatable "lucid.mat"): column-major doubles stored
 * inline after the header. A vector is an n x 1 matrix flagged is_vector, so `#v`, `v[i]`
 * and vector-returning products behave as users expect. */
#ifndef LUCID_LUA_MATRIX_H
#define LUCID_LUA_MATRIX_H

#include <lua.h>

#include "runtime/math/mat3.h"

#define LUCID_MATRIX_METATABLE   "lucid.mat"
#define LUCID_MATRIX_MAX_ENTRIES (1L << 28)

typedef struct lucid_lua_matrix {
    int rows, cols;
    int is_vector;
    double data[]; /* rows * cols entries, column-major: (i, j) at data[i + rows * j] */
} lucid_lua_matrix;

/* Pushes a new zero matrix / vector (raises a Lua error on bad sizes or no memory). */
lucid_lua_matrix *lucid_lua_newmatrix(lua_State *L, int rows, int cols);
lucid_lua_matrix *lucid_lua_newvector(lua_State *L, int n);

/* The matrix at idx or NULL when it is not a lucid matrix. */
lucid_lua_matrix *lucid_lua_tomatrix(lua_State *L, int idx);
/* The matrix at idx or a Lua error "FNAME: WHAT must be a lucid matrix (got ...)". */
lucid_lua_matrix *lucid_lua_checkmatrix(lua_State *L, int idx, const char *fname, const char *what);

/* Reads n finite numbers from a lucid vector (or n x 1 / 1 x n matrix) or a Lua table of
 * numbers at idx into out; raises an error naming FNAME and WHAT otherwise. */
void lucid_lua_checkvalues(lua_State *L, int idx, int n, double *out, const char *fname,
                           const char *what);
/* As lucid_lua_checkvalues, into a new buffer userdata left on the stack (its contents live as
 * long as it stays there); n above 1e8 is an error. */
double *lucid_lua_readvalues(lua_State *L, int idx, size_t n, const char *fname, const char *what);
/* A new zeroed buffer of n doubles (at least one), a userdata left on the stack. */
double *lucid_lua_newbuffer(lua_State *L, size_t n);
/* The data of the m x m finite lucid.mat at idx; otherwise an error naming FNAME and WHAT. */
const double *lucid_lua_checksquare(lua_State *L, int idx, int m, const char *fname,
                                    const char *what);
/* A Delassus matrix at idx: a finite square lucid.mat of 3 rows per contact. Returns the number
 * of contacts, its data in *G; errors name FNAME and WHAT. */
int lucid_lua_checkdelassus(lua_State *L, int idx, const char *fname, const char *what,
                            const double **G);
lucid_vec3 lucid_lua_checkvec3(lua_State *L, int idx, const char *fname, const char *what);
/* A 3x3 from a lucid matrix or a table of 3 rows of 3 numbers (finite). */
lucid_mat3 lucid_lua_checkmat3(lua_State *L, int idx, const char *fname, const char *what);

void lucid_lua_pushvec3(lua_State *L, lucid_vec3 v);
void lucid_lua_pushmat3(lua_State *L, const lucid_mat3 *m);
/* Pushes a new vector / rows x cols matrix holding a copy of data (column-major). */
void lucid_lua_pushvalues(lua_State *L, const double *data, int n);
void lucid_lua_pushmatrix_data(lua_State *L, const double *data, int rows, int cols);
/* Set field key of the table on top of the stack to a new 3-vector / vector copy of data. */
void lucid_lua_set_vec3(lua_State *L, const char *key, lucid_vec3 v);
void lucid_lua_set_values(lua_State *L, const char *key, const double *data, int n);

#endif
