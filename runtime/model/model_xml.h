/* What the MJCF and URDF loaders share (internal to runtime/model/): XML documents read with
 * libxml2 (no network, no external entities), `file:line: reason` messages, attribute values
 * checked against the names an element may carry, numbers (finite, counted), paths
 * (relative to the model file, package:// through the package folders) and collision meshes
 * (convex hulls of STL/OBJ files, or dropped with a warning when meshes are skipped). */
#ifndef LUCID_MODEL_XML_H
#define LUCID_MODEL_XML_H

#include <libxml/tree.h>
#include <stddef.h>

#include "runtime/model/model_load.h"
#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/mass_properties.h"

/* The deepest nesting of XML elements a model file may have (the root is level 1): libxml2's
 * default limit (256 open elements above the deepest), kept: XML_PARSE_HUGE would lift it and
 * its other safety limits on untrusted files. */
#define LUCID_XML_MAX_DEPTH 257

typedef struct lucid_model_xml {
    char *err;
    size_t errlen;
    lucid_status status; /* the first failure, LUCID_OK while none */
    const lucid_model_load_options *opts;
    xmlChar **strings; /* attribute values handed out, freed by release */
    size_t nstrings, cap_strings;
    xmlDoc **docs; /* every document read (the model and its <include>s) */
    size_t ndocs, cap_docs;
} lucid_model_xml;

void lucid_model_xml_init(lucid_model_xml *x, const lucid_model_load_options *opts, char *err,
                          size_t errlen);
void lucid_model_xml_release(lucid_model_xml *x);

/* Records the first failure as "file:line: message" for node (or "file: message" when node
 * is NULL and file is given) and returns x->status. Later failures keep the first message. */
lucid_status lucid_model_xml_fail(lucid_model_xml *x, const xmlNode *node, lucid_status st,
                                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
lucid_status lucid_model_xml_fail_file(lucid_model_xml *x, const char *file, lucid_status st,
                                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* A warning "file:line: warning: message" for node (the file alone when node is NULL) through
 * opts->warn, or on stderr. Loading goes on. */
void lucid_model_xml_warn(lucid_model_xml *x, const xmlNode *node, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The document of data (name: its file name for messages), kept until release; NULL after
 * failing. */
xmlDoc *lucid_model_xml_parse(lucid_model_xml *x, const char *name, const void *data, size_t size);
/* The same for a file on disk; `from` is the element that named it (for the message). */
xmlDoc *lucid_model_xml_read(lucid_model_xml *x, const char *path, const xmlNode *from);

/* The whole asset file at path (heap, *size bytes; a regular file only: not a device, FIFO or
 * folder), named by node; NULL after failing ("cannot read 'path': reason"). */
unsigned char *lucid_model_xml_read_asset(lucid_model_xml *x, const xmlNode *node, const char *path,
                                          size_t *size);

/* The line an element comes from. */
long lucid_model_xml_line(const xmlNode *node);

/* Element tests and iteration over element children. */
int lucid_model_xml_is(const xmlNode *node, const char *name);
const xmlNode *lucid_model_xml_first(const xmlNode *parent);
const xmlNode *lucid_model_xml_next(const xmlNode *node);

/* The value of attribute `name` of node, or NULL (the string lives until release). */
const char *lucid_model_xml_attr(lucid_model_xml *x, const xmlNode *node, const char *name);

/* Fails on the first attribute of node whose name is not in `known` (NULL-terminated). */
lucid_status lucid_model_xml_check_attrs(lucid_model_xml *x, const xmlNode *node,
                                         const char *const *known);

/* Parses `value` (attribute `attr` of node, for messages) as between min and max real
 * numbers into out; returns the count, or -1 after failing (non-finite numbers, trailing
 * garbage, too few or too many). */
int lucid_model_xml_reals(lucid_model_xml *x, const xmlNode *node, const char *attr,
                          const char *value, double *out, int min, int max);
/* One integer in [lo, hi]; 0 after failing. */
int lucid_model_xml_int(lucid_model_xml *x, const xmlNode *node, const char *attr,
                        const char *value, long lo, long hi, long *out);
/* "true" / "false" (1 / 0), or -1 after failing. */
int lucid_model_xml_bool(lucid_model_xml *x, const xmlNode *node, const char *attr,
                         const char *value);

/* A heap path: rel itself when absolute, else dir/rel (dir may be NULL or ""). */
char *lucid_model_xml_join(const char *dir, const char *rel);
/* The folder of a file path ("" for a bare name), heap string. */
char *lucid_model_xml_dirname(const char *path);
/* The folder a model's relative asset paths resolve against: opts->base_dir when set, else
 * the folder of the model's name (its path). Heap string; NULL after failing (out of memory,
 * recorded as named by name). */
char *lucid_model_xml_base_dir(lucid_model_xml *x, const char *name);
/* Resolves a mesh file name: package://PKG/REST through opts->package_dirs (DIR/PKG/REST,
 * then DIR/REST), file://PATH, or a path relative to dir. NULL after failing (no package
 * folder holds it). Heap string. */
char *lucid_model_xml_resolve(lucid_model_xml *x, const xmlNode *node, const char *dir,
                              const char *uri);

/* A link's rotational inertia I (about its centre of mass, symmetric) is physically valid when
 * its principal moments are those of a mass distribution: the second moments along the
 * principal axes, d_i = (A + B + C)/2 - (moment i), are >= 0 (which is A + B >= C for every
 * ordering, and moments >= 0), to round-off (64 eps of the trace); with mass > 0 the
 * smallest moment must also exceed 1e-9 of the largest (else the compiler's positive
 * definiteness test fails); a massless link's inertia must be zero or valid.
 * Returns 1 when I is valid (unchanged); 0 after writing the repair into *I: the nearest valid
 * inertia with the same principal axes, its second moments clamped at
 * d_min = max(mass * (1 mm * unit)^2, 1e-9 * max d_i) (unit: the file's length scale), or zero
 * for a massless link; the moments before and after go to before[3], after[3]. */
int lucid_model_xml_inertia_valid(double mass, double unit, lucid_mat3 *I, double before[3],
                                  double after[3]);

/* The convex hull of the mesh file at path with its vertices scaled per axis. Returns
 * LUCID_OK with *mesh set; LUCID_OK with *mesh NULL when the mesh cannot be loaded and meshes
 * are skipped (a warning naming node and the reason went to stderr); an error otherwise. */
lucid_status lucid_model_xml_load_mesh(lucid_model_xml *x, const xmlNode *node, const char *path,
                                       const double scale[3], lucid_convex_mesh **mesh);

/* meshes = "decompose": a mesh geom's convex parts and its solid's mass properties. */
typedef struct lucid_model_xml_parts {
    lucid_convex_mesh **parts; /* nparts hulls in the mesh's frame (none: the mesh is convex) */
    int nparts;
    lucid_mass_properties unit; /* the closed mesh's own solid at density 1 (not its hull's) */
} lucid_model_xml_parts;

/* Decomposes the closed mesh at path, its vertices scaled per axis, with the options'
 * decompose settings (lucid_mesh_decompose); a decomposition into one part leaves out->parts
 * empty (the geom stays its hull). Errors name node: "cannot decompose mesh: PATH: reason". */
lucid_status lucid_model_xml_decompose_mesh(lucid_model_xml *x, const xmlNode *node,
                                            const char *path, const double scale[3],
                                            lucid_model_xml_parts *out);
/* Hands the parts to the spec as geom's (lucid_model_spec_add_geom_part); p is emptied. */
lucid_status lucid_model_xml_add_parts(lucid_model_xml *x, const xmlNode *node,
                                       lucid_model_spec *spec, int geom, lucid_model_xml_parts *p);
void lucid_model_xml_parts_free(lucid_model_xml_parts *p);

#endif
