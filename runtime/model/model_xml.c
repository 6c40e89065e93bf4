/* XML, messages, numbers, paths and meshes for the model loaders (see model_xml.h). */
#include "runtime/model/model_xml.h"

#include <errno.h>
#include <libxml/parser.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/shapes/mesh_decompose.h"
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

/* The file an element came from. */
static const char *xml_file(const xmlNode *node) {
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
    lucid_status r = vfail(x, xml_file(node), lucid_model_xml_line(node), st, fmt, ap);
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

static void vwarn(lucid_model_xml *x, const char *file, long line, const char *fmt, va_list ap) {
    char msg[768];
    int n = line > 0 ? snprintf(msg, sizeof msg, "%s:%ld: warning: ", file, line)
                     : snprintf(msg, sizeof msg, "%s: warning: ", file);
    if (n >= 0 && (size_t)n < sizeof msg) vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    if (x->opts && x->opts->warn)
        x->opts->warn(x->opts->warn_ctx, msg);
    else
        fprintf(stderr, "lucid: %s\n", msg);
}

void lucid_model_xml_warn(lucid_model_xml *x, const xmlNode *node, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vwarn(x, xml_file(node), lucid_model_xml_line(node), fmt, ap);
    va_end(ap);
}

static void warn_line(lucid_model_xml *x, const char *file, long line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void warn_line(lucid_model_xml *x, const char *file, long line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vwarn(x, file, line, fmt, ap);
    va_end(ap);
}

/* The offset of the first character of the version in data's XML declaration when that
 * version is not 1.x but of the form D.D (pybullet's URDFs say version="0.0", which TinyXML,
 * hence urdfdom and MuJoCo, accept and libxml2 refuses), else 0. */
static size_t odd_xml_version(const char *data, size_t size) {
    size_t i = size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0; /* UTF-8 BOM */
    if (size - i < 6 || memcmp(data + i, "<?xml", 5) != 0) return 0;
    const char *end = memchr(data + i, '>', size - i);
    if (!end) return 0;
    for (const char *p = data + i + 5; p + 8 < end; p++) {
        if (memcmp(p, "version", 7) != 0) continue;
        const char *q = p + 7;
        while (q < end && (*q == ' ' || *q == '=')) q++;
        if (q + 3 >= end || (*q != '"' && *q != '\'')) return 0;
        q++;
        int digits = q[0] >= '0' && q[0] <= '9' && q[1] == '.' && q[2] >= '0' && q[2] <= '9';
        return digits && q[0] != '1' ? (size_t)(q - data) : 0;
    }
    return 0;
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
    size_t at = data ? odd_xml_version(data, size) : 0;
    if (at) { /* read as XML 1.0, on a copy, with a warning */
        char *copy = malloc(size);
        if (!copy) {
            lucid_model_xml_fail_file(x, name, LUCID_ERR_NO_MEMORY, "out of memory");
            return NULL;
        }
        memcpy(copy, data, size);
        warn_line(x, name, 1, "XML declaration version '%.3s' read as '1.%c' (as urdfdom does)",
                  copy + at, copy[at + 2]);
        copy[at] = '1';
        xmlDoc *doc = lucid_model_xml_parse(x, name, copy, size);
        free(copy);
        return doc;
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
    /* messages name the file as given: libxml2 stores it URI-escaped ("a%20b.xml") */
    xmlChar *url = xmlStrdup((const xmlChar *)name);
    if (url) {
        xmlFree((xmlChar *)doc->URL);
        doc->URL = url;
    }
    if (!url || !push_pointer((void ***)&x->docs, &x->ndocs, &x->cap_docs, doc)) {
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

char *lucid_model_xml_base_dir(lucid_model_xml *x, const char *name) {
    const char *given = x->opts ? x->opts->base_dir : NULL;
    char *dir = given ? dup_string(given) : lucid_model_xml_dirname(name);
    if (!dir) lucid_model_xml_fail_file(x, name, LUCID_ERR_NO_MEMORY, "out of memory");
    return dir;
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

/* Eigenvalues w and eigenvectors (columns of V, column-major) of the symmetric I by cyclic
 * Jacobi rotations: quadratic convergence reaches round-off in a few sweeps for 3 x 3; the 50
 * sweeps are a bound that is never reached, not a tolerance. */
static void sym3_eigen(const lucid_mat3 *I, double w[3], double V[9]) {
    double A[9];
    memcpy(A, I->m, sizeof A);
    for (int k = 0; k < 9; k++) V[k] = k % 4 == 0 ? 1.0 : 0.0;
    for (int sweep = 0; sweep < 50; sweep++) {
        double off = fabs(A[3]) + fabs(A[6]) + fabs(A[7]);
        if (off == 0.0) break;
        for (int p = 0; p < 2; p++)
            for (int q = p + 1; q < 3; q++) {
                double apq = A[p + 3 * q];
                if (apq == 0.0) continue;
                double theta = (A[q + 3 * q] - A[p + 3 * p]) / (2.0 * apq);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < 3; k++) { /* A <- A J (columns p, q) */
                    double akp = A[k + 3 * p], akq = A[k + 3 * q];
                    A[k + 3 * p] = c * akp - s * akq;
                    A[k + 3 * q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; k++) { /* A <- J^T A (rows p, q) */
                    double apk = A[p + 3 * k], aqk = A[q + 3 * k];
                    A[p + 3 * k] = c * apk - s * aqk;
                    A[q + 3 * k] = s * apk + c * aqk;
                }
                for (int k = 0; k < 3; k++) {
                    double vkp = V[k + 3 * p], vkq = V[k + 3 * q];
                    V[k + 3 * p] = c * vkp - s * vkq;
                    V[k + 3 * q] = s * vkp + c * vkq;
                }
            }
    }
    for (int k = 0; k < 3; k++) w[k] = A[k + 3 * k];
}

int lucid_model_xml_inertia_valid(double mass, double unit, lucid_mat3 *I, double before[3],
                                  double after[3]) {
    double w[3], V[9], d[3];
    sym3_eigen(I, w, V);
    double tr = w[0] + w[1] + w[2], dmax = 0.0, wmax = fmax(w[0], fmax(w[1], w[2]));
    double wmin = fmin(w[0], fmin(w[1], w[2])), tol = 64.0 * DBL_EPSILON * fabs(tr);
    int valid = 1;
    for (int k = 0; k < 3; k++) {
        before[k] = after[k] = w[k];
        d[k] = 0.5 * tr - w[k];
        dmax = fmax(dmax, d[k]);
        valid = valid && d[k] >= -tol;
    }
    int zero = w[0] == 0.0 && w[1] == 0.0 && w[2] == 0.0;
    if (mass > 0.0) valid = valid && wmin > 1e-9 * wmax;
    if (mass == 0.0) valid = zero || (valid && wmin > 1e-9 * wmax);
    if (valid) return 1;
    double dmin = fmax(mass * 1e-6 * unit * unit, 1e-9 * dmax);
    for (int k = 0; k < 3; k++) d[k] = mass > 0.0 ? fmax(d[k], dmin) : 0.0;
    for (int k = 0; k < 3; k++) after[k] = d[(k + 1) % 3] + d[(k + 2) % 3];
    /* I = V diag(after) V^T */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double v = 0.0;
            for (int k = 0; k < 3; k++) v += V[r + 3 * k] * after[k] * V[c + 3 * k];
            I->m[r + 3 * c] = v;
        }
    for (int r = 0; r < 3; r++) /* exactly symmetric */
        for (int c = 0; c < r; c++) I->m[c + 3 * r] = I->m[r + 3 * c];
    return 0;
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
        lucid_model_xml_warn(x, node, "mesh skipped (meshes = \"skip\"): %s", why);
        return LUCID_OK;
    }
    return lucid_model_xml_fail(x, node, st == LUCID_ERR_IO ? LUCID_ERR_IO : st,
                                "cannot load mesh: %s", why);
}

void lucid_model_xml_parts_free(lucid_model_xml_parts *p) {
    for (int i = 0; i < p->nparts; i++) lucid_convex_mesh_destroy(p->parts[i]);
    free(p->parts);
    p->parts = NULL;
    p->nparts = 0;
}

/* The decomposition's parts as convex meshes into out (all or none). */
static lucid_status parts_to_meshes(const lucid_decomposition *d, lucid_model_xml_parts *out,
                                    char *why, size_t whylen) {
    out->parts = calloc((size_t)d->num_parts, sizeof *out->parts);
    if (!out->parts) return LUCID_ERR_NO_MEMORY;
    for (int p = 0; p < d->num_parts; p++) {
        int begin = d->part_offsets[p], n = d->part_offsets[p + 1] - begin;
        char reason[256] = "";
        lucid_status st = lucid_convex_mesh_create_msg(d->points + 3 * (size_t)begin, n,
                                                       &out->parts[p], reason, (int)sizeof reason);
        if (st != LUCID_OK) {
            snprintf(why, whylen, "part %d: %.200s", p + 1, reason);
            out->nparts = p;
            lucid_model_xml_parts_free(out);
            return st;
        }
        out->nparts = p + 1;
    }
    return LUCID_OK;
}

/* The decomposition's hole caps appended to the mesh's triangles: the closed solid's mass. */
static lucid_status append_caps(const lucid_decomposition *d, int **tris, int *nt) {
    if (d->num_cap_triangles == 0) return LUCID_OK;
    size_t total = (size_t)*nt + (size_t)d->num_cap_triangles;
    int *grown = realloc(*tris, sizeof(int) * 3 * total);
    if (grown == NULL) return LUCID_ERR_NO_MEMORY;
    memcpy(grown + 3 * (size_t)*nt, d->cap_triangles,
           sizeof(int) * 3 * (size_t)d->num_cap_triangles);
    *tris = grown;
    *nt = (int)total;
    return LUCID_OK;
}

lucid_status lucid_model_xml_decompose_mesh(lucid_model_xml *x, const xmlNode *node,
                                            const char *path, const double scale[3],
                                            lucid_model_xml_parts *out) {
    *out = (lucid_model_xml_parts){0};
    double *points = NULL;
    int *tris = NULL, n = 0, nt = 0;
    char why[512] = "";
    lucid_status st =
        lucid_mesh_file_read_triangles(path, 1.0, &points, &n, &tris, &nt, why, (int)sizeof why);
    if (st == LUCID_OK) {
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) points[3 * i + k] *= scale[k];
        if (scale[0] * scale[1] * scale[2] < 0.0) /* a mirror turns the faces inwards */
            for (int t = 0; t < nt; t++) {
                int swap = tris[3 * t + 1];
                tris[3 * t + 1] = tris[3 * t + 2], tris[3 * t + 2] = swap;
            }
        lucid_decompose_options o =
            x->opts ? x->opts->decompose : lucid_decompose_default_options();
        lucid_decomposition d = {0};
        char reason[400] = "";
        st = lucid_mesh_decompose(points, n, tris, nt, &o, &d, reason, (int)sizeof reason);
        if (st != LUCID_OK) snprintf(why, sizeof why, "%.100s: %.400s", path, reason);
        /* the solid's own mass: the parts' hulls also cover its concavities */
        if (st == LUCID_OK && d.holes_closed > 0)
            lucid_model_xml_warn(x, node,
                                 "%s: closed %d hole%s (%d edges; their vertices within %.3g "
                                 "of their planes) before decomposing",
                                 path, d.holes_closed, d.holes_closed == 1 ? "" : "s", d.hole_edges,
                                 d.hole_deviation);
        if (st == LUCID_OK) st = append_caps(&d, &tris, &nt);
        if (st == LUCID_OK)
            st = lucid_triangle_mesh_mass_properties(points, n, tris, nt, 1.0, &out->unit);
        if (st == LUCID_OK && d.num_parts > 1) st = parts_to_meshes(&d, out, why, sizeof why);
        lucid_decomposition_free(&d);
    }
    free(points);
    free(tris);
    if (st == LUCID_OK) return LUCID_OK;
    if (st == LUCID_ERR_NO_MEMORY)
        return lucid_model_xml_fail(x, node, st, "out of memory decomposing mesh '%s'", path);
    return lucid_model_xml_fail(x, node, st, "cannot decompose mesh: %s", why);
}

lucid_status lucid_model_xml_add_parts(lucid_model_xml *x, const xmlNode *node,
                                       lucid_model_spec *spec, int geom, lucid_model_xml_parts *p) {
    lucid_status st = LUCID_OK;
    for (int i = 0; i < p->nparts; i++) {
        lucid_convex_mesh *m = p->parts[i];
        p->parts[i] = NULL; /* the spec owns it now, also on failure */
        if (st == LUCID_OK)
            st = lucid_model_spec_add_geom_part(spec, geom, m);
        else
            lucid_convex_mesh_destroy(m);
    }
    lucid_model_xml_parts_free(p);
    if (st)
        return lucid_model_xml_fail(x, node, st, "decomposed mesh: %s", lucid_status_string(st));
    return LUCID_OK;
}
