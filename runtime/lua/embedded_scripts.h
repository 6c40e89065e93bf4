/* The Lua-side library (scripts/), compiled into the binary by cmake/EmbedScripts.cmake. */
#ifndef LUCID_EMBEDDED_SCRIPTS_H
#define LUCID_EMBEDDED_SCRIPTS_H

#include <stddef.h>

typedef struct lucid_embedded_script {
    const char *module;    /* "lucid.optim" */
    const char *chunkname; /* "@scripts/lucid/optim.lua", as shown in tracebacks */
    const char *source;
    size_t size;
} lucid_embedded_script;

/* Terminated by an entry whose module is NULL. */
extern const lucid_embedded_script lucid_embedded_scripts[];

#endif
