/* Choosing MJCF or URDF by the root element, and reading model files (see model_load.h). */
#include "runtime/model/model_load.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/model/model_xml.h"

lucid_model_load_options lucid_model_load_options_default(void) {
    lucid_model_load_options o;
    memset(&o, 0, sizeof o);
    o.scale = 1.0;
    o.decompose = lucid_decompose_default_options();
    return o;
}

static void ignore_warning(void *ctx, const char *message) {
    (void)ctx, (void)message;
}

lucid_status lucid_model_spec_parse(const char *name, const void *data, size_t size,
                                    const lucid_model_load_options *opts, lucid_model_spec **out,
                                    char *err, size_t errlen) {
    if (out) *out = NULL;
    if (!name) name = "model";
    /* a first read for the root element only: its warnings come from the format's reader */
    lucid_model_load_options quiet = opts ? *opts : lucid_model_load_options_default();
    quiet.warn = ignore_warning;
    lucid_model_xml x;
    lucid_model_xml_init(&x, &quiet, err, errlen);
    if (!out || (!data && size))
        return lucid_model_xml_fail_file(&x, name, LUCID_ERR_ARGUMENT, "invalid arguments");
    xmlDoc *doc = lucid_model_xml_parse(&x, name, data, size);
    int mjcf = 0, urdf = 0;
    if (doc) {
        const xmlNode *root = xmlDocGetRootElement(doc);
        mjcf = lucid_model_xml_is(root, "mujoco");
        urdf = lucid_model_xml_is(root, "robot");
        if (!mjcf && !urdf)
            lucid_model_xml_fail(&x, root, LUCID_ERR_PARSE,
                                 "the root element <%s> is neither <mujoco> (MJCF) nor <robot> "
                                 "(URDF)",
                                 root ? (const char *)root->name : "");
    }
    lucid_status st = x.status;
    lucid_model_xml_release(&x);
    if (st) return st;
    if (mjcf) return lucid_model_spec_parse_mjcf(name, data, size, opts, out, err, errlen);
    return lucid_model_spec_parse_urdf(name, data, size, opts, out, err, errlen);
}

lucid_status lucid_model_spec_load(const char *path, const lucid_model_load_options *opts,
                                   lucid_model_spec **out, char *err, size_t errlen) {
    if (out) *out = NULL;
    if (err && errlen) err[0] = '\0';
    if (!path || !out) {
        if (err && errlen) snprintf(err, errlen, "model: invalid arguments");
        return LUCID_ERR_ARGUMENT;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot read the file: %s", path, strerror(errno));
        return LUCID_ERR_IO;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    int ok = buf != NULL;
    while (ok) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        char *more = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
        if (!more)
            ok = 0;
        else
            buf = more, cap *= 2;
    }
    int io = ok && ferror(f);
    fclose(f);
    if (!ok || io) {
        free(buf);
        if (err && errlen)
            snprintf(err, errlen, "%s: %s", path, io ? "cannot read the file" : "out of memory");
        return io ? LUCID_ERR_IO : LUCID_ERR_NO_MEMORY;
    }
    lucid_status st = lucid_model_spec_parse(path, buf, n, opts, out, err, errlen);
    free(buf);
    return st;
}
