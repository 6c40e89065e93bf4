/* The `lucid` executable: Lua 5.4 with `lucid` preloaded.
 *   lucid FILE.lua [ARGS...]   run a script (arg set as the standalone lua does)
 *   lucid -                    run stdin
 *   lucid                      interactive REPL on a terminal; otherwise (stdin piped or a
 *                              file) run stdin as a script, as the standalone lua does */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/lua/host.h"
#include "runtime/mpi_host.h"
#include <lua.h>

static void print_usage(FILE *out) {
    fputs("usage: lucid [FILE.lua [ARGS...]]\n"
          "  FILE.lua    run a Lua script with the lucid module preloaded\n"
          "  -           run a script read from standard input\n"
          "  (no file)   start an interactive prompt (stdin not a terminal: run it)\n"
          "  --version   print the version\n",
          out);
}

int main(int argc, char **argv) {
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        print_usage(stdout);
        return 0;
    }
    lua_State *L = lucid_host_new();
    if (!L) {
        fputs("lucid: cannot create a Lua state (out of memory)\n", stderr);
        return 1;
    }
    if (lucid_mpi_attach(L) != 0) { /* under mpirun only; see runtime/mpi_host.h */
        lua_close(L);
        return 1;
    }
    int code;
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        lua_getglobal(L, "lucid");
        lua_getfield(L, -1, "version");
        printf("lucid %s (%s)\n", lua_tostring(L, -1), LUA_RELEASE);
        code = 0;
    } else if (argc > 1) {
        code = lucid_host_run_file(L, argc, argv, 1);
    } else if (!isatty(STDIN_FILENO)) { /* `echo 'print(1)' | lucid`: no banner, no prompt */
        char stdin_name[] = "-";
        char *stdin_argv[] = {argv[0], stdin_name, NULL};
        code = lucid_host_run_file(L, 2, stdin_argv, 1);
    } else {
        printf("lucid (%s) -- `lucid` is loaded; Ctrl-D exits\n", LUA_RELEASE);
        code = lucid_host_repl(L);
    }
    lua_close(L);
    if (code != 0) lucid_mpi_fail(code); /* the other ranks must not wait for this one */
    return code;
}
