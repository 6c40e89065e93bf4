/* The MPI backend of lucid.mpi for the `lucid` executable (runtime/mpi_host.h). The backend is
 * a table of C functions that scripts/lucid/mpi.lua finds in package.loaded["lucid.mpi.backend"]:
 *   rank(), size(), barrier(),
 *   allgather(s) -> {s_0, ..., s_{size-1}}   (byte strings of any lengths, in rank order)
 *   allreduce(s, op) -> s'                   (s: doubles packed "<d"; op "sum" | "min" | "max")
 * Everything else (vectors, serialisation, sweep) is Lua. */
#include "runtime/mpi_host.h"

#ifdef LUCID_HAVE_MPI

#include <lauxlib.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int started; /* this process initialised MPI (process-wide, like MPI itself) */

static int check(lua_State *L, int rc, const char *fname) {
    if (rc == MPI_SUCCESS) return 0;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    return luaL_error(L, "%s: %s", fname, msg);
}

static int l_rank(lua_State *L) {
    int r;
    check(L, MPI_Comm_rank(MPI_COMM_WORLD, &r), "lucid.mpi.rank");
    lua_pushinteger(L, r);
    return 1;
}

static int l_size(lua_State *L) {
    int s;
    check(L, MPI_Comm_size(MPI_COMM_WORLD, &s), "lucid.mpi.size");
    lua_pushinteger(L, s);
    return 1;
}

static int l_barrier(lua_State *L) {
    check(L, MPI_Barrier(MPI_COMM_WORLD), "lucid.mpi.barrier");
    return 0;
}

/* Buffers are Lua userdata, so an error raised anywhere leaks nothing. */
static int l_allgather(lua_State *L) {
    static const char *const fname = "lucid.mpi.allgather";
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    if (len > INT_MAX) return luaL_error(L, "%s: message of %zu bytes too large", fname, len);
    int size;
    check(L, MPI_Comm_size(MPI_COMM_WORLD, &size), fname);
    int mine = (int)len;
    int *lens = lua_newuserdatauv(L, sizeof(int) * (size_t)size, 0);
    int *offsets = lua_newuserdatauv(L, sizeof(int) * (size_t)size, 0);
    check(L, MPI_Allgather(&mine, 1, MPI_INT, lens, 1, MPI_INT, MPI_COMM_WORLD), fname);
    size_t total = 0;
    for (int r = 0; r < size; ++r) {
        if (total > INT_MAX) return luaL_error(L, "%s: messages too large", fname);
        offsets[r] = (int)total;
        total += (size_t)lens[r];
    }
    if (total > INT_MAX) return luaL_error(L, "%s: messages too large", fname);
    char *all = lua_newuserdatauv(L, total + 1, 0);
    check(L, MPI_Allgatherv(s, mine, MPI_CHAR, all, lens, offsets, MPI_CHAR, MPI_COMM_WORLD),
          fname);
    lua_createtable(L, size, 0);
    for (int r = 0; r < size; ++r) {
        lua_pushlstring(L, all + offsets[r], (size_t)lens[r]);
        lua_rawseti(L, -2, r + 1);
    }
    return 1;
}

static int l_allreduce(lua_State *L) {
    static const char *const fname = "lucid.mpi.allreduce";
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const char *op_name = luaL_checkstring(L, 2);
    MPI_Op op = strcmp(op_name, "sum") == 0   ? MPI_SUM
                : strcmp(op_name, "min") == 0 ? MPI_MIN
                : strcmp(op_name, "max") == 0 ? MPI_MAX
                                              : MPI_OP_NULL;
    if (op == MPI_OP_NULL)
        return luaL_error(L, "%s: op must be \"sum\", \"min\" or \"max\" (got '%s')", fname,
                          op_name);
    if (len % sizeof(double) != 0 || len / sizeof(double) > INT_MAX)
        return luaL_error(L, "%s: bad vector", fname);
    int n = (int)(len / sizeof(double));
    double *in = lua_newuserdatauv(L, len + sizeof(double), 0);
    double *out = lua_newuserdatauv(L, len + sizeof(double), 0);
    memcpy(in, s, len);
    check(L, MPI_Allreduce(in, out, n, MPI_DOUBLE, op, MPI_COMM_WORLD), fname);
    lua_pushlstring(L, (const char *)out, len);
    return 1;
}

static void finalize_at_exit(void) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (started && !finalized) MPI_Finalize();
}

/* Whether a launcher started this process (OpenMPI, PMIx, PMI-1/2 launchers: MPICH, Slurm). */
static int launched_by_mpirun(void) {
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"};
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; ++k)
        if (getenv(vars[k])) return 1;
    return 0;
}

int lucid_mpi_attach(lua_State *L) {
    if (!launched_by_mpirun()) return 0;
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
        if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
            fputs("lucid: MPI_Init failed\n", stderr);
            return 1;
        }
        started = 1;
        atexit(finalize_at_exit);
    }
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0 && !freopen("/dev/null", "w", stdout)) {
        fputs("lucid: cannot silence standard output on this rank\n", stderr);
        return 1;
    }
    static const luaL_Reg fns[] = {{"rank", l_rank},           {"size", l_size},
                                   {"barrier", l_barrier},     {"allgather", l_allgather},
                                   {"allreduce", l_allreduce}, {NULL, NULL}};
    /* package.loaded["lucid.mpi.backend"] = the functions; lucid.mpi.enabled = true */
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    luaL_newlib(L, fns);
    lua_setfield(L, -2, "lucid.mpi.backend");
    int ok = lua_getfield(L, -1, "lucid.mpi") == LUA_TTABLE;
    if (ok) {
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "enabled");
    } else {
        fputs("lucid: lucid.mpi is not loaded\n", stderr);
    }
    lua_pop(L, 2);
    return ok ? 0 : 1;
}

void lucid_mpi_fail(int code) {
    if (started) {
        fflush(stdout);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, code);
    }
}

#else

int lucid_mpi_attach(lua_State *L) {
    (void)L;
    return 0;
}

void lucid_mpi_fail(int code) {
    (void)code;
}

#endif
