/* XML, messages, numbers, paths and meshes for the model loaders (see model_xml.h). */
#include "runtime/model/model_xml.h"

#include <errno.h>
#include <libxml/parser.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/shapes/mesh_file.h"

void lucid_model_xml_init(lucid_model_xml *x, const lucid_model_load_options *opts, char *err,
                          size_t errlen) {
    memset(x, 0, sizeof *x);
    x->err = err;
    x->errlen = errlen;
    x->opts = opts;
    if (err && errlen) err[0] = '\0';
}

void lucid_model_xml_release(lucid_model_xml *x) {
    for (size_t i = 0; i < x->nstrings; i++) xmlFree(x->strings[i]);
    for (size_t i = 0; i < x->ndocs; i++) xmlFreeDoc(x->docs[i]);
    free(x->strings);
    free(x->docs);
    x->strings = NULL;
    x->docs = NULL;
    x->nstrings = x->ndocs = 0;
}

const char *lucid_model_xml_file(const xmlNode *node) {
    return node && node->doc && node->doc->URL ? (const char *)node->doc->URL : "model";
}

long lucid_model_xml_line(const xmlNode *node) {
    return node ? xmlGetLineNo(node) : 0;
}

static lucid_status vfail(lucid_model_xml *x, const char *file, long line, lucid_status st,
                          const char *fmt, va_list ap) {
    if (x->status != LUCID_OK) return x->status;
    x->status = st;
    if (!x->err || !x->errlen) return st;
    int n = line > 0 ? snprintf(x->err, x->errlen, "%s:%ld: ", file, line)
                     : snprintf(x->err, x->errlen, "%s: ", file);
    if (n >= 0 && (size_t)n < x->errlen) vsnprintf(x->err + n, x->errlen - (size_t)n, fmt, ap);
    return st;
}

lucid_status lucid_model_xml_fail(lucid_model_xml *x, const xmlNode *node, lucid_status st,
                                  const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    lucid_status r = vfail(x, lucid_model_xml_file(node), lucid_model_xml_line(node), st, fmt, ap);
    va_end(ap);
    return r;
}

lucid_status lucid_model_xml_fail_file(lucid_model_xml *x, const char *file, lucid_status st,
                                       const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    lucid_status r = vfail(x, file ? file : "model", 0, st, fmt, ap);
    va_end(ap);
    return r;
}

/* A parse failure at a line of a file that has no element to point at. */
static void fail_line(lucid_model_xml *x, const char *file, long line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void fail_line(lucid_model_xml *x, const char *file, long line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(x, file, line, LUCID_ERR_PARSE, fmt, ap);
    va_end(ap);
}

/* Appends p to a growing pointer array; 0 when growing fails. */
static int push_pointer(void ***items, size_t *n, size_t *cap, void *p) {
    if (*n == *cap) {
        size_t want = *cap ? *cap * 2 : 16;
        if (want > SIZE_MAX / sizeof(void *)) return 0;
        void **q = realloc(*items, want * sizeof *q);
        if (!q) return 0;
        *items = q;
        *cap = want;
    }
    (*items)[(*n)++] = p;
    return 1;
}

/* Drops trailing newlines of libxml2's messages. */
static void trim(char *s) {
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' ')) s[--n] = '\0';
}

xmlDoc *lucid_model_xml_parse(lucid_model_xml *x, const char *name, const void *data, size_t size) {
    if (size > INT_MAX) {
        lucid_model_xml_fail_file(x, name, LUCID_ERR_PARSE, "file too large for the XML reader");
        return NULL;
    }
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt) {
        lucid_model_xml_fail_file(x, name, LUCID_ERR_NO_MEMORY, "out of memory");
        return NULL;
    }
    int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES;
    xmlDoc *doc = xmlCtxtReadMemory(ctxt, (const char *)data, (int)size, name, NULL, options);
    if (!doc || !ctxt->wellFormed) {
        const xmlError *e = xmlCtxtGetLastError(ctxt);
        char msg[256];
        snprintf(msg, sizeof msg, "%s", e && e->message ? e->message : "not well-formed");
        trim(msg);
        /* libxml2 names its option to lift the limit; lucid keeps the limit (files are not
         * trusted) and says what it is */
        if (strstr(msg, "Excessive depth"))
            snprintf(msg, sizeof msg,
                     "elements are nested more than %d deep, the most lucid reads (in MJCF: "
                     "<mujoco>, <worldbody> and %d levels of bodies and their elements)",
                     LUCID_XML_MAX_DEPTH, LUCID_XML_MAX_DEPTH - 2);
        long line = e ? e->line : 0;
        if (line > 0) {
            fail_line(x, name, line, "XML error: %s", msg);
        } else {
            lucid_model_xml_fail_file(x, name, LUCID_ERR_PARSE, "XML error: %s", msg);
        }
        if (doc) xmlFreeDoc(doc);
        xmlFreeParserCtxt(ctxt);
        return NULL;
    }
    xmlFreeParserCtxt(ctxt);
    if (!push_pointer((void ***)&x->docs, &x->ndocs, &x->cap_docs, doc)) {
        xmlFreeDoc(doc);
        lucid_model_xml_fail_file(x, name, LUCID_ERR_NO_MEMORY, "out of memory");
        return NULL;
    }
    return doc;
}

/* Why path is not a regular file (NULL when it is): a model's <include> or mesh must not make
 * the loader read a device (/dev/zero never ends, /dev/stdin blocks) or a folder. */
static const char *not_regular(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return strerror(errno);
    return S_ISREG(st.st_mode) ? NULL : "not a regular file";
}

/* The whole file in a heap buffer; 0 with errno kept when it cannot be read. */
static int read_file(const char *path, char **data, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        if (cap > SIZE_MAX / 2) {
            free(buf);
            buf = NULL;
            break;
        }
        char *more = realloc(buf, cap * 2);
        if (!more) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = more;
        cap *= 2;
    }
    int bad = !buf || ferror(f);
    int saved = errno;
    fclose(f);
    if (bad) {
        free(buf);
        errno = saved ? saved : ENOMEM;
        return 0;
    }
    *data = buf;
    *size = n;
    return 1;
}

unsigned char *lucid_model_xml_read_asset(lucid_model_xml *x, const xmlNode *node, const char *path,
                                          size_t *size) {
    char *data = NULL;
    const char *bad = not_regular(path);
    if (bad || !read_file(path, &data, size)) {
        lucid_model_xml_fail(x, node, LUCID_ERR_IO, "cannot read '%s': %s", path,
                             bad ? bad : strerror(errno));
        return NULL;
    }
    return (unsigned char *)data;
}

xmlDoc *lucid_model_xml_read(lucid_model_xml *x, const char *path, const xmlNode *from) {
    char *data = NULL;
    size_t size = 0;
    const char *bad = not_regular(path);
    if (bad || !read_file(path, &data, &size)) {
        const char *why = bad ? bad : strerror(errno);
        if (from)
            lucid_model_xml_fail(x, from, LUCID_ERR_IO, "cannot read '%s': %s", path, why);
        else
            lucid_model_xml_fail_file(x, path, LUCID_ERR_IO, "cannot read the file: %s", why);
        return NULL;
    }
    xmlDoc *doc = lucid_model_xml_parse(x, path, data, size);
    free(data);
    return doc;
}

int lucid_model_xml_is(const xmlNode *node, const char *name) {
    return node && node->type == XML_ELEMENT_NODE && strcmp((const char *)node->name, name) == 0;
}

const xmlNode *lucid_model_xml_first(const xmlNode *parent) {
    const xmlNode *c = parent ? parent->children : NULL;
    while (c && c->type != XML_ELEMENT_NODE) c = c->next;
    return c;
}

const xmlNode *lucid_model_xml_next(const xmlNode *node) {
    const xmlNode *c = node ? node->next : NULL;
    while (c && c->type != XML_ELEMENT_NODE) c = c->next;
    return c;
}

const char *lucid_model_xml_attr(lucid_model_xml *x, const xmlNode *node, const char *name) {
    if (!node || node->type != XML_ELEMENT_NODE) return NULL;
    if (!xmlHasProp(node, (const xmlChar *)name)) return NULL;
    xmlChar *v = xmlGetProp(node, (const xmlChar *)name);
    if (!v) return NULL;
    if (!push_pointer((void ***)&x->strings, &x->nstrings, &x->cap_strings, v)) {
        xmlFree(v);
        lucid_model_xml_fail(x, node, LUCID_ERR_NO_MEMORY, "out of memory");
        return NULL;
    }
    return (const char *)v;
}

lucid_status lucid_model_xml_check_attrs(lucid_model_xml *x, const xmlNode *node,
                                         const char *const *known) {
    for (const xmlAttr *a = node->properties; a; a = a->next) {
        int ok = 0;
        for (const char *const *k = known; *k && !ok; k++)
            ok = strcmp((const char *)a->name, *k) == 0;
        if (!ok)
            return lucid_model_xml_fail(x, node, LUCID_ERR_PARSE,
                                        "<%s>: unsupported attribute '%s'",
                                        (const char *)node->name, (const char *)a->name);
    }
    return LUCID_OK;
}

int lucid_model_xml_reals(lucid_model_xml *x, const xmlNode *node, const char *attr,
                          const char *value, double *out, int min, int max) {
    const char *s = value;
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
        if (!*s) break;
        char *end = NULL;
        errno = 0;
        double v = strtod(s, &end);
        if (end == s) {
            lucid_model_xml_fail(x, node, LUCID_ERR_PARSE, "<%s> %s: '%s' is not a list of numbers",
                                 (const char *)node->name, attr, value);
            return -1;
        }
        if (!isfinite(v)) {
            lucid_model_xml_fail(x, node, LUCID_ERR_NONFINITE, "<%s> %s: non-finite number in '%s'",
                                 (const char *)node->name, attr, value);
            return -1;
        }
        if (n == max) {
            lucid_model_xml_fail(x, node, LUCID_ERR_PARSE, "<%s> %s: more than %d number%s in '%s'",
                                 (const char *)node->name, attr, max, max == 1 ? "" : "s", value);
            return -1;
        }
        out[n++] = v;
        s = end;
        if (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') {
            lucid_model_xml_fail(x, node, LUCID_ERR_PARSE, "<%s> %s: '%s' is not a list of numbers",
                                 (const char *)node->name, attr, value);
            return -1;
        }
    }
    if (n < min) {
        lucid_model_xml_fail(x, node, LUCID_ERR_PARSE, "<%s> %s: %d number%s expected, '%s' has %d",
                             (const char *)node->name, attr, min, min == 1 ? "" : "s", value, n);
        return -1;
    }
    return n;
}

int lucid_model_xml_int(lucid_model_xml *x, const xmlNode *node, const char *attr,
                        const char *value, long lo, long hi, long *out) {
    char *end = NULL;
    errno = 0;
    long v = strtol(value, &end, 10);
    while (end && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')) end++;
    if (end == value || !end || *end || errno == ERANGE || v < lo || v > hi) {
        lucid_model_xml_fail(x, node, LUCID_ERR_PARSE,
                             "<%s> %s: '%s' is not an integer in [%ld, %ld]",
                             (const char *)node->name, attr, value, lo, hi);
        return 0;
    }
    *out = v;
    return 1;
}

int lucid_model_xml_bool(lucid_model_xml *x, const xmlNode *node, const char *attr,
                         const char *value) {
    if (strcmp(value, "true") == 0) return 1;
    if (strcmp(value, "false") == 0) return 0;
    lucid_model_xml_fail(x, node, LUCID_ERR_PARSE, "<%s> %s: '%s' is neither true nor false",
                         (const char *)node->name, attr, value);
    return -1;
}

static char *dup_string(const char *s) {
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

char *lucid_model_xml_join(const char *dir, const char *rel) {
    if (rel[0] == '/' || !dir || !dir[0]) return dup_string(rel);
    size_t a = strlen(dir), b = strlen(rel);
    if (a > SIZE_MAX - b - 2) return NULL;
    char *p = malloc(a + b + 2);
    if (!p) return NULL;
    memcpy(p, dir, a);
    size_t k = a;
    if (dir[a - 1] != '/') p[k++] = '/';
    memcpy(p + k, rel, b + 1);
    return p;
}

char *lucid_model_xml_dirname(const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) return dup_string("");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, path, n);
    d[n] = '\0';
    return d;
}

static int readable(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fclose(f);
    return 1;
}

char *lucid_model_xml_resolve(lucid_model_xml *x, const xmlNode *node, const char *dir,
                              const char *uri) {
    char *p = NULL;
    if (strncmp(uri, "package://", 10) == 0) {
        const char *pkg = uri + 10, *slash = strchr(pkg, '/');
        if (!slash || slash == pkg || !slash[1]) {
            lucid_model_xml_fail(x, node, LUCID_ERR_PARSE, "malformed package URI '%s'", uri);
            return NULL;
        }
        size_t npkg = (size_t)(slash - pkg);
        size_t ndirs = x->opts ? x->opts->npackage_dirs : 0;
        for (size_t i = 0; i < ndirs; i++) {
            const char *d = x->opts->package_dirs[i];
            /* DIR/PKG/REST: DIR holds packages */
            p = lucid_model_xml_join(d, pkg);
            if (!p) break;
            if (readable(p)) return p;
            free(p);
            /* DIR/REST: DIR is the package itself */
            p = lucid_model_xml_join(d, slash + 1);
            if (!p) break;
            if (readable(p)) return p;
            free(p);
            p = NULL;
        }
        (void)npkg;
        /* Not found: report the first candidate (or the URI) so the message names the file. */
        if (ndirs) return lucid_model_xml_join(x->opts->package_dirs[0], pkg);
        return dup_string(uri);
    }
    if (strncmp(uri, "file://", 7) == 0) return dup_string(uri + 7);
    p = lucid_model_xml_join(dir, uri);
    if (!p) lucid_model_xml_fail(x, node, LUCID_ERR_NO_MEMORY, "out of memory");
    return p;
}

lucid_status lucid_model_xml_load_mesh(lucid_model_xml *x, const xmlNode *node, const char *path,
                                       const double scale[3], lucid_convex_mesh **mesh) {
    *mesh = NULL;
    double *points = NULL;
    int n = 0;
    char why[512] = "";
    lucid_status st = LUCID_OK;
    const char *bad = not_regular(path);
    if (bad) {
        snprintf(why, sizeof why, "%.400s: %.100s", path, bad);
        st = LUCID_ERR_IO;
    } else {
        st = lucid_mesh_file_read_points(path, 1.0, &points, &n, why, (int)sizeof why);
    }
    if (st == LUCID_OK) {
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) points[3 * i + k] *= scale[k];
        char reason[256] = "";
        st = lucid_convex_mesh_create_msg(points, n, mesh, reason, (int)sizeof reason);
        if (st != LUCID_OK) snprintf(why, sizeof why, "%.200s: convex hull: %.250s", path, reason);
    }
    free(points);
    if (st == LUCID_OK) return LUCID_OK;
    if (st == LUCID_ERR_NO_MEMORY)
        return lucid_model_xml_fail(x, node, st, "out of memory loading mesh '%s'", path);
    if (x->opts && x->opts->skip_meshes) {
        fprintf(stderr, "lucid: %s:%ld: warning: mesh skipped (meshes = \"skip\"): %s\n",
                lucid_model_xml_file(node), lucid_model_xml_line(node), why);
        return LUCID_OK;
    }
    return lucid_model_xml_fail(x, node, st == LUCID_ERR_IO ? LUCID_ERR_IO : st,
                                "cannot load mesh: %s", why);
}
