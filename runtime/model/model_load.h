/* Reading articulated models from MJCF (MuJoCo's XML, root <mujoco>) and URDF (root <robot>)
 * files, or their text in memory, into a lucid_model_spec (runtime/model/model_spec.h). The format
 * is chosen by the root element, not the file name. What of each format is honoured, refused and
 * ignored is listed in docs/model_files.md; in short, everything that changes the dynamics or the
 * contacts lucid computes is either honoured or refused with an error naming it, and only
 * visual or solver-tuning data is ignored.
 *
 * Errors: LUCID_ERR_IO (a file, an <include>d file or a mesh cannot be read), LUCID_ERR_PARSE
 * (malformed XML, unknown or unsupported elements/attributes, missing required attributes,
 * bad numbers, inconsistent trees), LUCID_ERR_NONFINITE (NaN/Inf in a number),
 * LUCID_ERR_NOT_SPD (an inertia that is not positive definite), LUCID_ERR_ARGUMENT (bad
 * options), LUCID_ERR_NO_MEMORY. The message buffer receives `file:line: reason` (the file an
 * element came from and its line), or `file: reason` when no element is to blame. */
#ifndef LUCID_MODEL_LOAD_H
#define LUCID_MODEL_LOAD_H

#include <stddef.h>

#include "runtime/core/status.h"
#include "runtime/model/model_spec.h"
#include "runtime/shapes/mesh_decompose.h"

typedef struct lucid_model_load_options {
    const char *const *package_dirs; /* folders searched for package://NAME/... (URDF, MJCF) */
    size_t npackage_dirs;
    int skip_meshes;      /* meshes = "skip": an unreadable mesh drops its geom (warning on
                             stderr) instead of failing the load */
    int decompose_meshes; /* meshes = "decompose": a collision mesh (closed, OBJ/STL) collides
                             as its convex parts (lucid_mesh_decompose with `decompose`), its
                             mass (MJCF) from the mesh's own solid */
    lucid_decompose_options decompose;
    int floating_base;  /* URDF: a free joint between the world and the root link */
    double scale;       /* every length of the file times scale (> 0, finite; default 1) */
    int strict_inertia; /* inertia = "strict": an inertia that is not physically valid (or not
                           positive definite on a link with mass) is refused (LUCID_ERR_NOT_SPD)
                           instead of repaired with a warning (docs/model_files.md) */
    /* The folder relative <include>s, meshes and height field files resolve against ("": the
     * current directory); NULL: the folder of the file (lucid_model_spec_parse: of `name`). */
    const char *base_dir;
    /* Where warnings go ("file:line: warning: ..." without a newline); NULL: stderr, each line
     * prefixed "lucid: ". */
    void (*warn)(void *ctx, const char *message);
    void *warn_ctx;
} lucid_model_load_options;

/* Meshes loaded, no package folder, fixed base, scale 1, inertias repaired, assets beside
 * the file, warnings on stderr. */
lucid_model_load_options lucid_model_load_options_default(void);

/* Reads the file at path (MJCF or URDF by its root element). opts may be NULL (defaults).
 * On success *out is a new spec (release with lucid_model_spec_destroy); on failure *out is
 * NULL and err (may be NULL, errlen bytes) holds the reason. */
lucid_status lucid_model_spec_load(const char *path, const lucid_model_load_options *opts,
                                   lucid_model_spec **out, char *err, size_t errlen);

/* The same from a model's text in memory (size bytes, not necessarily NUL-terminated); name
 * plays the path's part in messages (`name:line: reason`; NULL: "model"), and its folder is
 * the one relative <include>s and assets resolve against unless opts->base_dir is set. The
 * _mjcf and _urdf forms insist on their format. */
lucid_status lucid_model_spec_parse(const char *name, const void *data, size_t size,
                                    const lucid_model_load_options *opts, lucid_model_spec **out,
                                    char *err, size_t errlen);
lucid_status lucid_model_spec_parse_mjcf(const char *name, const void *data, size_t size,
                                         const lucid_model_load_options *opts,
                                         lucid_model_spec **out, char *err, size_t errlen);
lucid_status lucid_model_spec_parse_urdf(const char *name, const void *data, size_t size,
                                         const lucid_model_load_options *opts,
                                         lucid_model_spec **out, char *err, size_t errlen);

#endif
