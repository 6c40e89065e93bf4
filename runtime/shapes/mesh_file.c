/* OBJ and STL (ASCII, binary) readers producing vertex positions, and their convex hull;
 * other formats through assimp. */
#include "runtime/shapes/mesh_file.h"

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct reader {
    const char *path;
    char *err;
    int err_size;
    double scale;
    double *points; /* growing xyz array */
    int count, capacity;
    int want_triangles; /* also read faces (OBJ `f`, STL facets) into tris */
    int *tris;          /* growing vertex-index triples, 0-based */
    int tri_count, tri_capacity;
} reader;

/* Records "PATH: message" or "PATH:LINE: message" (line > 0) and returns status. */
static lucid_status fail(reader *r, lucid_status status, long line, const char *fmt, ...) {
    if (r->err == NULL || r->err_size <= 0) return status;
    char msg[256];
    va_list args;
    va_start(args, fmt);
    vsnprintf(msg, sizeof msg, fmt, args);
    va_end(args);
    if (line > 0)
        snprintf(r->err, (size_t)r->err_size, "%s:%ld: %s", r->path, line, msg);
    else
        snprintf(r->err, (size_t)r->err_size, "%s: %s", r->path, msg);
    return status;
}

static lucid_status push_point(reader *r, const double xyz[3], long line) {
    double p[3];
    for (int i = 0; i < 3; ++i) {
        p[i] = xyz[i] * r->scale;
        if (!isfinite(p[i]))
            return fail(r, LUCID_ERR_NONFINITE, line, "vertex coordinate is not finite");
    }
    if (r->count == r->capacity) {
        if (r->capacity > INT_MAX / 6) return fail(r, LUCID_ERR_NO_MEMORY, 0, "too many vertices");
        int capacity = r->capacity ? 2 * r->capacity : 256;
        double *grown = realloc(r->points, sizeof(double) * 3 * (size_t)capacity);
        if (grown == NULL) return fail(r, LUCID_ERR_NO_MEMORY, 0, "out of memory");
        r->points = grown;
        r->capacity = capacity;
    }
    memcpy(r->points + 3 * (size_t)r->count++, p, sizeof p);
    return LUCID_OK;
}

static lucid_status push_triangle(reader *r, int a, int b, int c) {
    if (r->tri_count == r->tri_capacity) {
        if (r->tri_capacity > INT_MAX / 6) return fail(r, LUCID_ERR_NO_MEMORY, 0, "too many faces");
        int capacity = r->tri_capacity ? 2 * r->tri_capacity : 256;
        int *grown = realloc(r->tris, sizeof(int) * 3 * (size_t)capacity);
        if (grown == NULL) return fail(r, LUCID_ERR_NO_MEMORY, 0, "out of memory");
        r->tris = grown;
        r->tri_capacity = capacity;
    }
    int *t = r->tris + 3 * (size_t)r->tri_count++;
    t[0] = a, t[1] = b, t[2] = c;
    return LUCID_OK;
}

/* The whole file, NUL-terminated (the text parsers rely on it). */
static lucid_status read_whole_file(reader *r, char **data, size_t *size) {
    FILE *f = fopen(r->path, "rb");
    if (f == NULL) return fail(r, LUCID_ERR_IO, 0, "cannot open file");
    size_t capacity = 1 << 16, used = 0;
    char *buf = malloc(capacity);
    while (buf != NULL) {
        used += fread(buf + used, 1, capacity - used - 1, f);
        if (used < capacity - 1) break;
        char *grown = capacity < SIZE_MAX / 2 ? realloc(buf, capacity * 2) : NULL;
        if (grown == NULL) free(buf);
        buf = grown;
        capacity *= 2;
    }
    int read_error = ferror(f);
    fclose(f);
    if (buf == NULL) return fail(r, LUCID_ERR_NO_MEMORY, 0, "out of memory");
    if (read_error) {
        free(buf);
        return fail(r, LUCID_ERR_IO, 0, "read error");
    }
    buf[used] = '\0';
    *data = buf;
    *size = used;
    return LUCID_OK;
}

/* ---- text formats ------------------------------------------------------------------------ */

/* Parses up to max numbers from s; returns how many, or -1 if a non-number token follows. */
static int parse_numbers(const char *s, double *out, int max) {
    int count = 0;
    for (;;) {
        while (isspace((unsigned char)*s)) s++;
        if (*s == '\0') return count;
        if (count == max) return -1;
        char *end;
        out[count] = strtod(s, &end);
        if (end == s || (*end != '\0' && !isspace((unsigned char)*end))) return -1;
        count++;
        s = end;
    }
}

/* Splits the buffer into NUL-terminated lines (LF or CRLF); returns the next line start. */
static char *next_line(char *s, char **line) {
    *line = s;
    char *nl = strchr(s, '\n');
    char *end = nl ? nl : s + strlen(s);
    if (end > s && end[-1] == '\r') end[-1] = '\0';
    if (nl == NULL) return NULL;
    *nl = '\0';
    return nl + 1;
}

static const char *skip_space(const char *s) {
    while (isspace((unsigned char)*s)) s++;
    return s;
}

/* The first whitespace-delimited token of s equals word. */
static int starts_with_word(const char *s, const char *word) {
    size_t n = strlen(word);
    return strncmp(s, word, n) == 0 && (s[n] == '\0' || isspace((unsigned char)s[n]));
}

/* An OBJ `f` record: vertex references `i`, `i/t`, `i//n` or `i/t/n` (negative: relative to
 * the vertices read so far), a polygon fanned into triangles. */
static lucid_status parse_obj_face(reader *r, const char *s, long line) {
    int first = -1, previous = -1, corners = 0;
    for (;;) {
        s = skip_space(s);
        if (*s == '\0') break;
        char *end;
        long i = strtol(s, &end, 10);
        if (end == s || (*end != '\0' && *end != '/' && !isspace((unsigned char)*end)))
            return fail(r, LUCID_ERR_PARSE, line,
                        "expected 'f v1 v2 v3 ...' (v, v/t, v//n, v/t/n)");
        long v = i > 0 ? i - 1 : (long)r->count + i;
        if (i == 0 || v < 0 || v >= r->count)
            return fail(r, LUCID_ERR_PARSE, line,
                        "face refers to vertex %ld, but %d vertices are defined before it", i,
                        r->count);
        while (*end != '\0' && !isspace((unsigned char)*end)) end++;
        s = end;
        if (corners >= 2) {
            lucid_status st = push_triangle(r, first, previous, (int)v);
            if (st != LUCID_OK) return st;
        }
        if (corners == 0) first = (int)v;
        previous = (int)v;
        corners++;
    }
    if (corners < 3) return fail(r, LUCID_ERR_PARSE, line, "a face needs at least 3 vertices");
    return LUCID_OK;
}

static lucid_status parse_obj(reader *r, char *text) {
    long line_number = 0;
    for (char *rest = text; rest != NULL;) {
        char *line;
        rest = next_line(rest, &line);
        line_number++;
        char *comment = strchr(line, '#');
        if (comment) *comment = '\0';
        const char *s = skip_space(line);
        if (r->want_triangles && starts_with_word(s, "f")) {
            lucid_status st = parse_obj_face(r, s + 1, line_number);
            if (st != LUCID_OK) return st;
            continue;
        }
        if (!starts_with_word(s, "v")) continue; /* vn, vt, f, o, g, usemtl, ... */
        double v[7];
        int k = parse_numbers(s + 1, v, 7);
        if (k < 3 || (k > 4 && k != 6 && k != 7))
            return fail(r, LUCID_ERR_PARSE, line_number,
                        "expected 'v x y z [w]' (or 'v x y z r g b')");
        lucid_status st = push_point(r, v, line_number);
        if (st != LUCID_OK) return st;
    }
    return LUCID_OK;
}

static int looks_like_ascii_stl(const char *text) {
    return starts_with_word(skip_space(text), "solid");
}

static lucid_status parse_ascii_stl(reader *r, char *text) {
    static const char *const ignored[] = {"solid",   "facet",    "outer",
                                          "endloop", "endfacet", "endsolid"};
    long line_number = 0;
    for (char *rest = text; rest != NULL;) {
        char *line;
        rest = next_line(rest, &line);
        line_number++;
        const char *s = skip_space(line);
        if (*s == '\0') continue;
        if (starts_with_word(s, "vertex")) {
            double v[3];
            if (parse_numbers(s + 6, v, 3) != 3)
                return fail(r, LUCID_ERR_PARSE, line_number, "expected 'vertex x y z'");
            lucid_status st = push_point(r, v, line_number);
            if (st == LUCID_OK && r->want_triangles && r->count % 3 == 0)
                st = push_triangle(r, r->count - 3, r->count - 2, r->count - 1);
            if (st != LUCID_OK) return st;
            continue;
        }
        int known = 0;
        for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; ++i)
            known |= starts_with_word(s, ignored[i]);
        if (!known) {
            int len = 0;
            while (s[len] && !isspace((unsigned char)s[len]) && len < 32) len++;
            return fail(r, LUCID_ERR_PARSE, line_number, "unexpected '%.*s' in ASCII STL", len, s);
        }
    }
    return LUCID_OK;
}

/* ---- binary STL ------------------------------------------------------------------------- */

static uint32_t read_le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static double read_le_float(const unsigned char *p) {
    uint32_t bits = read_le32(p);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static int is_binary_stl(const unsigned char *data, size_t size) {
    return size >= 84 && (uint64_t)size == 84 + 50 * (uint64_t)read_le32(data + 80);
}

static lucid_status parse_binary_stl(reader *r, const unsigned char *data) {
    uint32_t triangles = read_le32(data + 80);
    for (uint32_t t = 0; t < triangles; ++t) {
        const unsigned char *tri = data + 84 + 50 * (size_t)t + 12; /* skip the normal */
        for (int k = 0; k < 3; ++k) {
            double v[3] = {read_le_float(tri + 12 * k), read_le_float(tri + 12 * k + 4),
                           read_le_float(tri + 12 * k + 8)};
            lucid_status st = push_point(r, v, 0);
            if (st != LUCID_OK) return st;
        }
        if (r->want_triangles) {
            lucid_status st = push_triangle(r, r->count - 3, r->count - 2, r->count - 1);
            if (st != LUCID_OK) return st;
        }
    }
    return LUCID_OK;
}

/* ---- dispatch --------------------------------------------------------------------------- */

/* The extension after the last '.' of the file name (not of a directory), or "". */
static const char *extension(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    return dot ? dot + 1 : "";
}

static int has_extension(const char *path, const char *ext) {
    return strcasecmp(extension(path), ext) == 0;
}

static int starts_with(const char *data, size_t size, const char *magic) {
    size_t n = strlen(magic);
    return size >= n && memcmp(data, magic, n) == 0;
}

/* Formats lucid does not read itself (assimp does): by extension, else (when the extension is
 * neither .obj nor .stl, whose contents may begin with anything) by their magic bytes. */
static const char *other_format(const char *path, const char *data, size_t size) {
    static const char *const extensions[] = {"ply",  "off", "dae",  "3ds", "fbx",
                                             "gltf", "glb", "step", "stp", "iges",
                                             "igs",  "x3d", "wrl",  "vtk", "blend"};
    for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; ++i)
        if (has_extension(path, extensions[i])) return extensions[i];
    if (has_extension(path, "obj") || has_extension(path, "stl")) return NULL; /* trusted */
    if (starts_with(data, size, "ply\n") || starts_with(data, size, "ply\r\n")) return "ply";
    if (starts_with(data, size, "glTF")) return "glb";
    if (starts_with(data, size, "OFF\n") || starts_with(data, size, "OFF\r\n")) return "off";
    if (starts_with(data, size, "# vtk DataFile")) return "vtk";
    return NULL;
}

/* Text formats are line based: a NUL byte is an error at its line, never an end of file. */
static lucid_status check_no_nul(reader *r, const char *data, size_t size, const char *format) {
    const char *nul = memchr(data, '\0', size);
    if (nul == NULL) return LUCID_OK;
    long line = 1;
    for (const char *p = data; p < nul; ++p) line += *p == '\n';
    return fail(r, LUCID_ERR_PARSE, line, "NUL byte in %s text", format);
}

static lucid_status parse_text(reader *r, char *data, size_t size, int stl) {
    lucid_status st = check_no_nul(r, data, size, stl ? "ASCII STL" : "OBJ");
    if (st != LUCID_OK) return st;
    return stl ? parse_ascii_stl(r, data) : parse_obj(r, data);
}

/* The unsigned decimal at *p (its leading digits), saturated above 1e9; advances *p past it. */
static size_t leading_count(const char **p) {
    size_t v = 0;
    for (; isdigit((unsigned char)**p); ++*p)
        v = v < 1000000000u ? v * 10 + (size_t)(**p - '0') : v;
    return v;
}

/* The next whitespace-separated token at or after p; with `comments`, a '#' comment runs to
 * its line's end ('\n' or '\r'). */
static const char *next_token(const char *p, int comments) {
    for (;;) {
        while (isspace((unsigned char)*p)) ++p;
        if (!comments || *p != '#') return p;
        while (*p != '\0' && *p != '\n' && *p != '\r') ++p;
    }
}

/* The largest of OFF's counts: [keyword] [dimension] vertices faces edges. */
static size_t off_counts(const char *data, int comments) {
    size_t most = 0;
    const char *p = next_token(data, comments);
    int counts = 3;
    if (!isdigit((unsigned char)*p)) { /* the keyword [ST][C][N][4][n]OFF: n, a dimension */
        for (; *p != '\0' && !isspace((unsigned char)*p); ++p) counts += *p == 'n';
        counts = counts > 4 ? 4 : counts;
    }
    for (int k = 0; k < counts; ++k) {
        p = next_token(p, comments);
        size_t v = leading_count(&p);
        most = v > most ? v : most;
        while (*p != '\0' && !isspace((unsigned char)*p)) ++p;
    }
    return most;
}

/* assimp sizes its arrays by the counts an OFF or PLY header declares before reading a
 * vertex, so a count no file of this size can hold (every vertex and face takes a byte at
 * least) is refused here: OFF's [keyword] [dimension] vertices faces edges, PLY's
 * "element NAME COUNT" lines. */
static lucid_status check_declared_counts(reader *r, const char *data, size_t size,
                                          const char *format) {
    size_t most = 0;
    if (strcmp(format, "off") == 0) {
        /* read with and without '#' comments: whichever way assimp's tokenizer takes them */
        size_t a = off_counts(data, 1), b = off_counts(data, 0);
        most = a > b ? a : b;
    } else if (strcmp(format, "ply") == 0) {
        const char *end = strstr(data, "end_header");
        for (const char *p = strstr(data, "element"); p != NULL && (end == NULL || p < end);
             p = strstr(p + 1, "element")) {
            const char *q = next_token(p + 7, 1);
            while (*q != '\0' && !isspace((unsigned char)*q)) ++q; /* the element's name */
            q = next_token(q, 1);
            size_t v = leading_count(&q);
            most = v > most ? v : most;
        }
    }
    if (most > size)
        return fail(r, LUCID_ERR_PARSE, 0,
                    "%s header declares %zu elements, more than its %zu bytes can hold", format,
                    most, size);
    return LUCID_OK;
}

/* A format lucid does not read itself (COLLADA .dae, PLY, glTF, ...) through assimp: every
 * vertex of every mesh, placed by its node's transform (COLLADA's <unit> included) in the
 * file's own axes (COLLADA's up_axis is not applied: ROS and Gazebo take the file's z as up). */
static lucid_status parse_with_assimp(reader *r, const char *data, size_t size,
                                      const char *format) {
    if (size > UINT_MAX) return fail(r, LUCID_ERR_PARSE, 0, "%s: file too large", format);
    lucid_status st = check_declared_counts(r, data, size, format);
    if (st != LUCID_OK) return st;
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (props == NULL) return fail(r, LUCID_ERR_NO_MEMORY, 0, "out of memory");
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, 1);
    /* the format found (by extension or magic bytes) is assimp's hint, not the file's name */
    const struct aiScene *scene = aiImportFileFromMemoryWithProperties(
        data, (unsigned)size, aiProcess_PreTransformVertices, format, props);
    aiReleasePropertyStore(props);
    if (scene == NULL)
        return fail(r, LUCID_ERR_PARSE, 0, "'%s' file not read by assimp: %s", format,
                    aiGetErrorString());
    for (unsigned m = 0; st == LUCID_OK && m < scene->mNumMeshes; ++m) {
        const struct aiMesh *mesh = scene->mMeshes[m];
        for (unsigned k = 0; st == LUCID_OK && k < mesh->mNumVertices; ++k) {
            double v[3] = {mesh->mVertices[k].x, mesh->mVertices[k].y, mesh->mVertices[k].z};
            st = push_point(r, v, 0);
        }
    }
    aiReleaseImport(scene);
    return st;
}

static lucid_status parse_contents(reader *r, char *data, size_t size) {
    const unsigned char *bytes = (const unsigned char *)data;
    /* 3MF (a zip archive): assimp's reader leaks memory on malformed archives (found by
     * fuzz_stl), and no robot description uses it */
    if (has_extension(r->path, "3mf") || starts_with(data, size, "PK\x03\x04"))
        return fail(r, LUCID_ERR_PARSE, 0, "3MF and other zip archives are not read");
    const char *other = other_format(r->path, data, size);
    if (other != NULL) return parse_with_assimp(r, data, size, other);
    if (has_extension(r->path, "obj")) return parse_text(r, data, size, 0);
    if (is_binary_stl(bytes, size)) return parse_binary_stl(r, bytes);
    if (looks_like_ascii_stl(data)) return parse_text(r, data, size, 1);
    if (has_extension(r->path, "stl"))
        return fail(r, LUCID_ERR_PARSE, 0,
                    "neither a binary STL (size %zu is not 84 + 50 * triangles) nor an ASCII "
                    "STL (no 'solid' header)",
                    size);
    return parse_text(r, data, size, 0);
}

static lucid_status check_arguments(reader *r, const void *data, double **points, int *n) {
    if (r->err != NULL && r->err_size > 0) r->err[0] = '\0';
    if (data == NULL || points == NULL || n == NULL)
        return fail(r, LUCID_ERR_ARGUMENT, 0, "invalid arguments");
    *points = NULL;
    *n = 0;
    if (!isfinite(r->scale) || !(r->scale > 0.0))
        return fail(r, LUCID_ERR_ARGUMENT, 0, "scale must be finite and positive");
    return LUCID_OK;
}

/* Parses data (NUL-terminated, modified in place) and hands over the points. */
static lucid_status finish(reader *r, char *data, size_t size, double **points, int *n) {
    lucid_status st = parse_contents(r, data, size);
    if (st == LUCID_OK && r->count == 0) st = fail(r, LUCID_ERR_DEGENERATE, 0, "no vertices");
    if (st != LUCID_OK) {
        free(r->points);
        free(r->tris);
        return st;
    }
    *points = r->points;
    *n = r->count;
    return LUCID_OK;
}

lucid_status lucid_mesh_file_read_points(const char *path, double scale, double **points, int *n,
                                         char *err, int err_size) {
    reader r = {path ? path : "(null)", err, err_size, scale, NULL, 0, 0, 0, NULL, 0, 0};
    lucid_status st = check_arguments(&r, path, points, n);
    if (st != LUCID_OK) return st;
    char *data = NULL;
    size_t size = 0;
    st = read_whole_file(&r, &data, &size);
    if (st != LUCID_OK) return st;
    st = finish(&r, data, size, points, n);
    free(data);
    return st;
}

lucid_status lucid_mesh_file_parse_points(const char *name, const void *data, size_t size,
                                          double scale, double **points, int *n, char *err,
                                          int err_size) {
    reader r = {name ? name : "(memory)", err, err_size, scale, NULL, 0, 0, 0, NULL, 0, 0};
    lucid_status st = check_arguments(&r, data, points, n);
    if (st != LUCID_OK) return st;
    char *copy = size < SIZE_MAX ? malloc(size + 1) : NULL;
    if (copy == NULL) return fail(&r, LUCID_ERR_NO_MEMORY, 0, "out of memory");
    memcpy(copy, data, size);
    copy[size] = '\0';
    st = finish(&r, copy, size, points, n);
    free(copy);
    return st;
}

lucid_status lucid_mesh_file_load_hull(const char *path, double scale, lucid_convex_mesh **out,
                                       char *err, int err_size) {
    double *points;
    int n;
    lucid_status st = lucid_mesh_file_read_points(path, scale, &points, &n, err, err_size);
    if (st != LUCID_OK) return st;
    char reason[200];
    st = lucid_convex_mesh_create_msg(points, n, out, reason, sizeof reason);
    free(points);
    if (st != LUCID_OK && err != NULL && err_size > 0)
        snprintf(err, (size_t)err_size, "%s: %s", path, reason);
    return st;
}

/* Hands over the points and triangles of a parse; a file without faces is an error. */
static lucid_status finish_triangles(reader *r, char *data, size_t size, double **points, int *n,
                                     int **triangles, int *num_triangles) {
    lucid_status st = finish(r, data, size, points, n);
    if (st == LUCID_OK && r->tri_count == 0) {
        free(*points);
        free(r->tris);
        *points = NULL;
        *n = 0;
        return fail(r, LUCID_ERR_DEGENERATE, 0, "no faces (a point cloud has no surface)");
    }
    if (st != LUCID_OK) return st;
    *triangles = r->tris;
    *num_triangles = r->tri_count;
    return LUCID_OK;
}

static lucid_status check_triangle_arguments(reader *r, const void *data, double **points, int *n,
                                             int **triangles, int *num_triangles) {
    if (triangles == NULL || num_triangles == NULL)
        return fail(r, LUCID_ERR_ARGUMENT, 0, "invalid arguments");
    *triangles = NULL;
    *num_triangles = 0;
    return check_arguments(r, data, points, n);
}

lucid_status lucid_mesh_file_read_triangles(const char *path, double scale, double **points, int *n,
                                            int **triangles, int *num_triangles, char *err,
                                            int err_size) {
    reader r = {path ? path : "(null)", err, err_size, scale, NULL, 0, 0, 1, NULL, 0, 0};
    lucid_status st = check_triangle_arguments(&r, path, points, n, triangles, num_triangles);
    if (st != LUCID_OK) return st;
    char *data = NULL;
    size_t size = 0;
    st = read_whole_file(&r, &data, &size);
    if (st != LUCID_OK) return st;
    st = finish_triangles(&r, data, size, points, n, triangles, num_triangles);
    free(data);
    return st;
}

lucid_status lucid_mesh_file_parse_triangles(const char *name, const void *data, size_t size,
                                             double scale, double **points, int *n, int **triangles,
                                             int *num_triangles, char *err, int err_size) {
    reader r = {name ? name : "(memory)", err, err_size, scale, NULL, 0, 0, 1, NULL, 0, 0};
    lucid_status st = check_triangle_arguments(&r, data, points, n, triangles, num_triangles);
    if (st != LUCID_OK) return st;
    char *copy = size < SIZE_MAX ? malloc(size + 1) : NULL;
    if (copy == NULL) return fail(&r, LUCID_ERR_NO_MEMORY, 0, "out of memory");
    memcpy(copy, data, size);
    copy[size] = '\0';
    st = finish_triangles(&r, copy, size, points, n, triangles, num_triangles);
    free(copy);
    return st;
}
