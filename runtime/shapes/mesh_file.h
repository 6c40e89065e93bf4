/* Reading mesh files (Wavefront OBJ, STL ASCII and binary) into point sets and convex hulls,
 * and into triangle meshes (lucid_mesh_file_read_triangles, which reads faces too).
 * Only vertex positions matter for a hull: OBJ `v x y z [w]` records are read (w, the
 * rational-curve weight of the OBJ spec, is ignored; trailing vertex colours too), every other
 * record is skipped; STL triangles contribute their three vertices. The format comes from the
 * extension (.obj / .stl, any case), else from the contents; other mesh formats (PLY, OFF,
 * glTF, ... by extension or magic bytes) are rejected as unsupported, by name. A NUL byte in a
 * text format is an error at its line (it never ends the file early). A binary STL is recognised by
 * its size (84 + 50 n bytes for the n triangles its header announces), not by a "solid" prefix,
 * which binary files often carry too.
 *
 * Errors: missing/unreadable file LUCID_ERR_IO; malformed contents LUCID_ERR_PARSE (message
 * with the line number); NaN/Inf coordinates LUCID_ERR_NONFINITE; no vertices or a flat point
 * set LUCID_ERR_DEGENERATE; scale not finite and > 0 LUCID_ERR_ARGUMENT. The message buffer
 * err (may be NULL) receives "PATH: reason" or "PATH:LINE: reason". */
#ifndef LUCID_MESH_FILE_H
#define LUCID_MESH_FILE_H

#include <stddef.h>

#include "runtime/core/status.h"
#include "runtime/shapes/convex_mesh.h"

/* Vertex positions times scale as *n xyz triples in *points (malloc'd: release with free()). */
lucid_status lucid_mesh_file_read_points(const char *path, double scale, double **points, int *n,
                                         char *err, int err_size);

/* The same from a file's contents in memory (data: size bytes, not necessarily
 * NUL-terminated); name plays the path's part (format by extension, error messages). */
lucid_status lucid_mesh_file_parse_points(const char *name, const void *data, size_t size,
                                          double scale, double **points, int *n, char *err,
                                          int err_size);

/* Vertex positions and triangles (0-based index triples; OBJ polygons fanned, each STL facet
 * one triangle on its own three vertices) for the surface's own uses, e.g. decomposition.
 * A file without faces is LUCID_ERR_DEGENERATE. Release both arrays with free(). */
lucid_status lucid_mesh_file_read_triangles(const char *path, double scale, double **points, int *n,
                                            int **triangles, int *num_triangles, char *err,
                                            int err_size);

/* The same from a file's contents in memory (as lucid_mesh_file_parse_points). */
lucid_status lucid_mesh_file_parse_triangles(const char *name, const void *data, size_t size,
                                             double scale, double **points, int *n, int **triangles,
                                             int *num_triangles, char *err, int err_size);

/* Convex hull of the file's vertices times scale (release with lucid_convex_mesh_destroy). */
lucid_status lucid_mesh_file_load_hull(const char *path, double scale, lucid_convex_mesh **out,
                                       char *err, int err_size);

#endif
