/* MJCF (MuJoCo 2.2.2's XML) into a lucid_model_spec: the subset real robot models use, with
 * MuJoCo's meanings (angles in degrees unless <compiler angle="radian">, capsule and
 * cylinder sizes as half-lengths, inertia from geoms at density 1000 when a body has no
 * <inertial>, defaults classes with childclass inheritance). Bodies are numbered in document
 * preorder and each body's joints in document order, as MuJoCo numbers them, so a spec's
 * bodies, joints and geoms line up with mjModel's (body i of the spec is MuJoCo's body i + 1).
 * What is honoured, refused and ignored: docs/model_files.md. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/model/model_load.h"
#include "runtime/model/model_xml.h"
#include "runtime/shapes/heightfield.h"
#include "runtime/shapes/shape.h"
#include "runtime/shapes/mass_properties.h"

#define X_               (&P->x)
#define IS               lucid_model_xml_is
#define ATTR(node, name) lucid_model_xml_attr(X_, node, name)

static const double deg = 3.14159265358979323846 / 180.0;

enum { K_JOINT, K_GEOM, K_SITE, K_ACTUATOR, K_MESH, K_TENDON, K_PAIR, K_COUNT };
#define CLASS_NODES       8
#define MAX_INCLUDE_DEPTH 16

typedef struct mjcf_class {
    const char *name;
    int parent; /* -1 for main */
    const xmlNode *nodes[K_COUNT][CLASS_NODES];
    int count[K_COUNT];
} mjcf_class;

typedef struct node_list {
    const xmlNode **items;
    size_t n, cap;
} node_list;

typedef struct mjcf_mesh {
    const char *name;
    const xmlNode *node;
    char *path;
    double scale[3];
} mjcf_mesh;

typedef struct mjcf_hfield {
    const char *name; /* given, else the file name (its extension not part of the name) */
    int derived;
    const lucid_heightfield *field; /* owned by the spec */
} mjcf_hfield;

typedef struct mjcf {
    lucid_model_xml x;
    lucid_model_spec *spec;
    double scale;
    char *dir; /* folder of the main file */
    int degree;
    char eulerseq[4];
    int autolimits;
    const char *meshdir, *assetdir;
    int strippath;
    int inertiafromgeom; /* 0 false, 1 true, 2 auto */
    int balanceinertia;  /* moments violating A + B >= C become their mean (MuJoCo's) */
    int lr_mode_none;    /* <compiler><lengthrange mode="none">: no muscle range is computed */
    int lr_useexisting;  /* a muscle's valid lengthrange is kept, not computed (default 1) */
    int lr_uselimit;     /* a limited joint or tendon transmission's range is taken as is */
    long group_lo, group_hi;
    mjcf_class *classes;
    size_t nclasses, cap_classes;
    mjcf_mesh *meshes;
    size_t nmeshes, cap_meshes;
    mjcf_hfield *hfields;
    size_t nhfields, cap_hfields;
    node_list skipped_geoms; /* geoms dropped with their unreadable mesh (meshes = "skip") */
} mjcf;

/* ---- element lists with <include> expanded ------------------------------------------------ */

static int list_push(node_list *l, const xmlNode *n) {
    if (l->n == l->cap) {
        size_t want = l->cap ? l->cap * 2 : 32;
        if (want > SIZE_MAX / sizeof *l->items) return 0;
        const xmlNode **p = realloc(l->items, want * sizeof *p);
        if (!p) return 0;
        l->items = p;
        l->cap = want;
    }
    l->items[l->n++] = n;
    return 1;
}

static const char *const include_attrs[] = {"file", NULL};

/* The element children of parent, each <include file> replaced by the children of the
 * included file's <mujoco> root (recursively; paths relative to the main file's folder). */
static lucid_status collect(mjcf *P, const xmlNode *parent, node_list *out, int depth) {
    for (const xmlNode *c = lucid_model_xml_first(parent); c; c = lucid_model_xml_next(c)) {
        if (!IS(c, "include")) {
            if (!list_push(out, c))
                return lucid_model_xml_fail(X_, c, LUCID_ERR_NO_MEMORY, "out of memory");
            continue;
        }
        if (lucid_model_xml_check_attrs(X_, c, include_attrs)) return X_->status;
        const char *file = ATTR(c, "file");
        if (!file) return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<include>: missing 'file'");
        if (depth >= MAX_INCLUDE_DEPTH)
            return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE,
                                        "<include>: more than %d nested includes (a cycle?)",
                                        MAX_INCLUDE_DEPTH);
        char *path = lucid_model_xml_join(P->dir, file);
        if (!path) return lucid_model_xml_fail(X_, c, LUCID_ERR_NO_MEMORY, "out of memory");
        xmlDoc *doc = lucid_model_xml_read(X_, path, c);
        free(path);
        if (!doc) return X_->status;
        const xmlNode *root = xmlDocGetRootElement(doc);
        if (!IS(root, "mujoco"))
            return lucid_model_xml_fail(X_, root ? root : c, LUCID_ERR_PARSE,
                                        "included file's root element is not <mujoco>");
        if (collect(P, root, out, depth + 1)) return X_->status;
    }
    return LUCID_OK;
}

/* fn on each element child of el (collect's: includes expanded), in order, until an error is
 * recorded. */
static lucid_status each_child(mjcf *P, const xmlNode *el,
                               lucid_status (*fn)(mjcf *P, const xmlNode *c)) {
    node_list kids = {0};
    if (!collect(P, el, &kids, 0))
        for (size_t i = 0; i < kids.n && !X_->status; i++) fn(P, kids.items[i]);
    free(kids.items);
    return X_->status;
}

/* ---- numbers and attributes through default classes --------------------------------------- */

static int class_index(mjcf *P, const char *name) {
    for (size_t i = 0; i < P->nclasses; i++)
        if (strcmp(P->classes[i].name, name) == 0) return (int)i;
    return -1;
}

/* The value of `name` for element el of kind k in class cls: el's own attribute, else the
 * nearest class (cls, its parent, ..., main) whose default element of kind k sets it. */
static const char *lookup(mjcf *P, const xmlNode *el, int k, int cls, const char *name) {
    const char *v = ATTR(el, name);
    if (v || k < 0) return v;
    for (int c = cls; c >= 0; c = P->classes[c].parent) {
        const mjcf_class *C = &P->classes[c];
        for (int i = C->count[k] - 1; i >= 0; i--) {
            v = ATTR(C->nodes[k][i], name);
            if (v) return v;
        }
    }
    return NULL;
}

/* Reads `name` (up to max reals) as MuJoCo layers a default: each class from main down to cls
 * sets the numbers it gives, then the element its own; out keeps the rest. Returns the most
 * numbers a layer gave (0 when none), -1 after failing. */
static int layered_reals(mjcf *P, const xmlNode *el, int k, int cls, const char *name, double *out,
                         int max) {
    int n = 0;
    if (cls >= 0) {
        n = layered_reals(P, NULL, k, P->classes[cls].parent, name, out, max);
        const mjcf_class *C = &P->classes[cls];
        for (int i = 0; i < C->count[k] && n >= 0; i++) {
            const char *v = ATTR(C->nodes[k][i], name);
            int m = v ? lucid_model_xml_reals(X_, C->nodes[k][i], name, v, out, 1, max) : 0;
            n = m < 0 ? -1 : m > n ? m : n;
        }
    }
    const char *v = el && n >= 0 ? ATTR(el, name) : NULL;
    int m = v ? lucid_model_xml_reals(X_, el, name, v, out, 1, max) : 0;
    return n < 0 || m < 0 ? -1 : m > n ? m : n;
}

/* Reads attribute `name` as min..max reals; returns the count (0 when absent), -1 after failing.
 * An attribute of 1..max numbers of a defaulted kind is layered (layered_reals); one of a fixed
 * count is taken whole from the nearest definition, which is the same thing. */
static int reals(mjcf *P, const xmlNode *el, int k, int cls, const char *name, double *out, int min,
                 int max) {
    if (k >= 0 && min == 1 && max > 1) return layered_reals(P, el, k, cls, name, out, max);
    const char *v = lookup(P, el, k, cls, name);
    if (!v) return X_->status ? -1 : 0;
    return lucid_model_xml_reals(X_, el, name, v, out, min, max);
}

/* One real, *out unchanged when absent; 0 after failing. */
static int real1(mjcf *P, const xmlNode *el, int k, int cls, const char *name, double *out) {
    return reals(P, el, k, cls, name, out, 1, 1) >= 0;
}

/* true / false / auto: 1, 0, 2 (absent: 2); -1 after failing. */
static int tristate(mjcf *P, const xmlNode *el, int k, int cls, const char *name) {
    const char *v = lookup(P, el, k, cls, name);
    if (!v) return X_->status ? -1 : 2;
    if (strcmp(v, "auto") == 0) return 2;
    return lucid_model_xml_bool(X_, el, name, v);
}

/* Whether a range [lo, hi] applies, from `limited` and autolimits (MuJoCo 2.2.2's rule: a
 * range with limited="auto" is an error unless autolimits is on). -1 after failing. */
static int resolve_limited(mjcf *P, const xmlNode *el, int t, const char *limited, int has_range) {
    if (t != 2) return t;
    if (!has_range) return 0;
    if (!P->autolimits) {
        const char *range = strcmp(limited, "limited") == 0       ? "range"
                            : strcmp(limited, "ctrllimited") == 0 ? "ctrlrange"
                            : strcmp(limited, "actlimited") == 0  ? "actrange"
                                                                  : "forcerange";
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<%s> has '%s' but not '%s': set <compiler autolimits=\"true\"/> "
                             "or give '%s' explicitly",
                             (const char *)el->name, range, limited, limited);
        return -1;
    }
    return 1;
}

static int limited_flag(mjcf *P, const xmlNode *el, int k, int cls, const char *limited,
                        int has_range) {
    int t = tristate(P, el, k, cls, limited);
    return t < 0 ? -1 : resolve_limited(P, el, t, limited, has_range);
}

/* ---- orientations (MuJoCo's conversions) ---------------------------------------------------- */

static lucid_quat axis_angle(lucid_vec3 a, double angle) {
    double s = sin(0.5 * angle);
    return lucid_quat_make(cos(0.5 * angle), a.x * s, a.y * s, a.z * s);
}

/* The minimal rotation taking +z to v (mjuu_z2quat). */
static lucid_quat z_to(lucid_vec3 v) {
    lucid_vec3 a = lucid_vec3_cross(lucid_vec3_make(0.0, 0.0, 1.0), v);
    double s = lucid_vec3_norm(a);
    if (s < 1e-10)
        a = lucid_vec3_make(1.0, 0.0, 0.0);
    else
        a = lucid_vec3_scale(a, 1.0 / s);
    return axis_angle(a, atan2(s, v.z));
}

/* The orientation of el: quat (own or from the class), overridden by one of axisangle /
 * euler / xyaxes / zaxis on the element itself. 0 after failing. */
static int orientation(mjcf *P, const xmlNode *el, int k, int cls, lucid_quat *q) {
    static const char *const alts[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
    int own = 0;
    for (int i = 0; i < 5; i++) own += ATTR(el, alts[i]) != NULL;
    if (own > 1) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<%s>: more than one of quat, axisangle, euler, xyaxes, zaxis",
                             (const char *)el->name);
        return 0;
    }
    double v[6];
    *q = lucid_quat_identity();
    int n;
    if ((n = reals(P, el, -1, cls, "axisangle", v, 4, 4)) != 0) {
        if (n < 0) return 0;
        lucid_vec3 a = lucid_vec3_make(v[0], v[1], v[2]);
        double len = lucid_vec3_norm(a);
        if (!(len > 0.0)) {
            lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s> axisangle: zero axis",
                                 (const char *)el->name);
            return 0;
        }
        *q = axis_angle(lucid_vec3_scale(a, 1.0 / len), P->degree ? v[3] * deg : v[3]);
    } else if ((n = reals(P, el, -1, cls, "euler", v, 3, 3)) != 0) {
        if (n < 0) return 0;
        for (int i = 0; i < 3; i++) {
            char c = P->eulerseq[i];
            double a = P->degree ? v[i] * deg : v[i];
            lucid_vec3 ax =
                lucid_vec3_make(c == 'x' || c == 'X', c == 'y' || c == 'Y', c == 'z' || c == 'Z');
            lucid_quat r = axis_angle(ax, a);
            *q = (c >= 'a') ? lucid_quat_mul(*q, r) : lucid_quat_mul(r, *q);
        }
    } else if ((n = reals(P, el, -1, cls, "xyaxes", v, 6, 6)) != 0) {
        if (n < 0) return 0;
        lucid_vec3 x = lucid_vec3_make(v[0], v[1], v[2]), y = lucid_vec3_make(v[3], v[4], v[5]);
        double nx = lucid_vec3_norm(x);
        if (nx > 0.0) x = lucid_vec3_scale(x, 1.0 / nx);
        y = lucid_vec3_axpy(y, -lucid_vec3_dot(x, y), x);
        double ny = lucid_vec3_norm(y);
        if (!(nx > 0.0) || !(ny > 1e-10)) {
            lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s> xyaxes: degenerate axes",
                                 (const char *)el->name);
            return 0;
        }
        y = lucid_vec3_scale(y, 1.0 / ny);
        lucid_mat3 R = lucid_mat3_from_cols(x, y, lucid_vec3_cross(x, y));
        *q = lucid_quat_from_mat3(&R);
    } else if ((n = reals(P, el, -1, cls, "zaxis", v, 3, 3)) != 0) {
        if (n < 0) return 0;
        lucid_vec3 z = lucid_vec3_make(v[0], v[1], v[2]);
        double nz = lucid_vec3_norm(z);
        if (!(nz > 0.0)) {
            lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s> zaxis: zero vector",
                                 (const char *)el->name);
            return 0;
        }
        *q = z_to(lucid_vec3_scale(z, 1.0 / nz));
    } else if ((n = reals(P, el, k, cls, "quat", v, 4, 4)) != 0) {
        if (n < 0) return 0;
        *q = lucid_quat_make(v[0], v[1], v[2], v[3]);
        if (!lucid_quat_normalize(q)) {
            lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s> quat: zero quaternion",
                                 (const char *)el->name);
            return 0;
        }
    }
    return 1;
}

/* pos of el, scaled, into *t (the origin when absent): a length within the representable
 * range of geometry (LUCID_GEOMETRY_MAX, shape.h), refused here with the file and line rather
 * than as a singular mass matrix later. 0 after failing. */
static int position(mjcf *P, const xmlNode *el, int k, int cls, lucid_vec3 *t) {
    double p[3] = {0.0, 0.0, 0.0};
    if (reals(P, el, k, cls, "pos", p, 3, 3) < 0) return 0;
    *t = lucid_vec3_scale(lucid_vec3_make(p[0], p[1], p[2]), P->scale);
    if (!(lucid_vec3_max_abs(*t) <= LUCID_GEOMETRY_MAX)) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<%s> pos: (%g %g %g) is beyond the representable range of "
                             "geometry (|component| <= %g)",
                             (const char *)el->name, t->x, t->y, t->z, LUCID_GEOMETRY_MAX);
        return 0;
    }
    return 1;
}

/* pos (scaled) and orientation of el as a pose. 0 after failing. */
static int frame(mjcf *P, const xmlNode *el, int k, int cls, lucid_se3 *T) {
    if (!position(P, el, k, cls, &T->t)) return 0;
    lucid_quat q;
    if (!orientation(P, el, k, cls, &q)) return 0;
    T->R = lucid_quat_to_mat3(q);
    return 1;
}

/* ---- <compiler>, <option> ------------------------------------------------------------------ */

static const char *const compiler_attrs[] = {
    "angle",           "eulerseq",          "autolimits",
    "meshdir",         "assetdir",          "texturedir",
    "inertiafromgeom", "inertiagrouprange", "coordinate",
    "strippath",       "discardvisual",     "convexhull",
    "usethread",       "fusestatic",        "boundmass",
    "boundinertia",    "settotalmass",      "balanceinertia",
    "fitaabb",         "exactmeshinertia",  NULL};

static const char *const lengthrange_attrs[] = {"mode",     "useexisting", "uselimit", "accel",
                                                "maxforce", "timeconst",   "timestep", "inttotal",
                                                "inteval",  "tolrange",    NULL};

/* <compiler><lengthrange>: which muscles get a computed length range. lucid computes it as the
 * extremes over the joints' ranges (model_compile.c), so MuJoCo's settings of its simulation
 * and the modes it has no counterpart for are refused by name. */
static lucid_status compiler_lengthrange(mjcf *P, const xmlNode *el) {
    if (lucid_model_xml_check_attrs(X_, el, lengthrange_attrs)) return X_->status;
    const char *v = ATTR(el, "mode");
    if (v && strcmp(v, "none") && strcmp(v, "muscle"))
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                    "<lengthrange> mode='%s' is not supported (none, muscle)", v);
    P->lr_mode_none = v && strcmp(v, "none") == 0;
    int b;
    if ((v = ATTR(el, "useexisting"))) {
        if ((b = lucid_model_xml_bool(X_, el, "useexisting", v)) < 0) return X_->status;
        P->lr_useexisting = b;
    }
    if ((v = ATTR(el, "uselimit"))) {
        if ((b = lucid_model_xml_bool(X_, el, "uselimit", v)) < 0) return X_->status;
        P->lr_uselimit = b;
    }
    for (size_t i = 3; lengthrange_attrs[i]; i++) /* accel onwards: the simulation's */
        if (ATTR(el, lengthrange_attrs[i]))
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<lengthrange> %s is not supported (a setting of "
                                        "MuJoCo's simulation; lucid finds the range's extremes "
                                        "over the joints' ranges)",
                                        lengthrange_attrs[i]);
    return LUCID_OK;
}

static lucid_status compiler(mjcf *P, const xmlNode *el) {
    if (lucid_model_xml_check_attrs(X_, el, compiler_attrs)) return X_->status;
    for (const xmlNode *c = lucid_model_xml_first(el); c; c = lucid_model_xml_next(c)) {
        if (!IS(c, "lengthrange"))
            return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<compiler>: unknown element <%s>",
                                        (const char *)c->name);
        if (compiler_lengthrange(P, c)) return X_->status;
    }
    const char *v;
    if ((v = ATTR(el, "angle"))) {
        if (strcmp(v, "degree") && strcmp(v, "radian"))
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<compiler> angle: '%s' is neither degree nor radian", v);
        P->degree = strcmp(v, "degree") == 0;
    }
    if ((v = ATTR(el, "eulerseq"))) {
        if (strlen(v) != 3 || strspn(v, "xyzXYZ") != 3)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<compiler> eulerseq: '%s' is not three of xyzXYZ", v);
        memcpy(P->eulerseq, v, 4);
    }
    int b;
    if ((v = ATTR(el, "autolimits"))) {
        if ((b = lucid_model_xml_bool(X_, el, "autolimits", v)) < 0) return X_->status;
        P->autolimits = b;
    }
    if ((v = ATTR(el, "strippath"))) {
        if ((b = lucid_model_xml_bool(X_, el, "strippath", v)) < 0) return X_->status;
        P->strippath = b;
    }
    if ((v = ATTR(el, "meshdir"))) P->meshdir = v;
    if ((v = ATTR(el, "assetdir"))) P->assetdir = v;
    if ((v = ATTR(el, "inertiafromgeom"))) {
        if (strcmp(v, "auto") == 0)
            P->inertiafromgeom = 2;
        else if ((b = lucid_model_xml_bool(X_, el, "inertiafromgeom", v)) < 0)
            return X_->status;
        else
            P->inertiafromgeom = b;
    }
    if ((v = ATTR(el, "inertiagrouprange"))) {
        double g[2];
        if (lucid_model_xml_reals(X_, el, "inertiagrouprange", v, g, 2, 2) < 0) return X_->status;
        P->group_lo = (long)g[0];
        P->group_hi = (long)g[1];
    }
    if ((v = ATTR(el, "coordinate")) && strcmp(v, "local") != 0)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                    "<compiler> coordinate='%s' is not supported (only local)", v);
    static const char *const zero_reals[] = {"boundmass", "boundinertia"};
    for (int i = 0; i < 2; i++) {
        double z = 0.0;
        if ((v = ATTR(el, zero_reals[i])) &&
            (lucid_model_xml_reals(X_, el, zero_reals[i], v, &z, 1, 1) < 0 || z != 0.0))
            return X_->status ? X_->status
                              : lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                                     "<compiler> %s is not supported (it changes "
                                                     "the masses)",
                                                     zero_reals[i]);
    }
    double total = -1.0;
    if ((v = ATTR(el, "settotalmass")) &&
        (lucid_model_xml_reals(X_, el, "settotalmass", v, &total, 1, 1) < 0 || total > 0.0))
        return X_->status ? X_->status
                          : lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                                 "<compiler> settotalmass is not supported");
    if ((v = ATTR(el, "balanceinertia"))) {
        if ((b = lucid_model_xml_bool(X_, el, "balanceinertia", v)) < 0) return X_->status;
        P->balanceinertia = b;
    }
    if ((v = ATTR(el, "fitaabb"))) {
        if ((b = lucid_model_xml_bool(X_, el, "fitaabb", v)) < 0) return X_->status;
        if (b)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<compiler> fitaabb=\"true\" is not supported");
    }
    return LUCID_OK;
}

static const char *const option_attrs[] = {
    "timestep",         "gravity",       "apirate",    "impratio",          "tolerance",
    "noslip_tolerance", "mpr_tolerance", "integrator", "collision",         "cone",
    "jacobian",         "solver",        "iterations", "noslip_iterations", "mpr_iterations",
    "magnetic",         "o_margin",      "o_solref",   "o_solimp",          "wind",
    "density",          "viscosity",     NULL};
static const char *const flag_refused[] = {"constraint", "equality", "frictionloss", "limit",
                                           "contact",    "passive",  "actuation",    NULL};

/* <option collision>: which geom pairs collide, the filtered ones ("dynamic"), the <pair>s
 * ("predefined") or both ("all", the default). 0 after failing. */
static int collision_mode(mjcf *P, const xmlNode *el) {
    static const char *const modes[] = {"all", "predefined", "dynamic"};
    const char *v = ATTR(el, "collision");
    for (int k = 0; v && k < 3; k++)
        if (strcmp(v, modes[k]) == 0) {
            P->spec->collision = (lucid_model_collision)k; /* the enum's order */
            return 1;
        }
    return !v || !lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                       "<option> collision: '%s' is not all, predefined or "
                                       "dynamic",
                                       v);
}

static lucid_status option(mjcf *P, const xmlNode *el) {
    if (lucid_model_xml_check_attrs(X_, el, option_attrs)) return X_->status;
    double t = P->spec->timestep, g[3];
    if (!real1(P, el, -1, -1, "timestep", &t)) return X_->status;
    if (!(t > 0.0))
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<option> timestep must be > 0");
    P->spec->timestep = t;
    if (!collision_mode(P, el)) return X_->status;
    int n = reals(P, el, -1, -1, "gravity", g, 3, 3);
    if (n < 0) return X_->status;
    if (n == 3) P->spec->gravity = lucid_vec3_make(g[0], g[1], g[2]);
    static const char *const zero3[] = {"wind", "density", "viscosity"};
    for (int i = 0; i < 3; i++) {
        double w[3] = {0, 0, 0};
        if ((n = reals(P, el, -1, -1, zero3[i], w, 1, 3)) < 0) return X_->status;
        if (w[0] != 0.0 || w[1] != 0.0 || w[2] != 0.0)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<option> %s is not supported (lucid has no fluid forces)",
                                        zero3[i]);
    }
    for (const xmlNode *c = lucid_model_xml_first(el); c; c = lucid_model_xml_next(c)) {
        if (!IS(c, "flag"))
            return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE,
                                        "<option>: unsupported element <%s>",
                                        (const char *)c->name);
        for (const xmlAttr *a = c->properties; a; a = a->next) {
            const char *name = (const char *)a->name, *v = ATTR(c, name);
            if (!v) return X_->status;
            if (strcmp(v, "enable") && strcmp(v, "disable"))
                return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE,
                                            "<flag> %s: '%s' is neither enable nor disable", name,
                                            v);
            int disable = strcmp(v, "disable") == 0;
            if (strcmp(name, "gravity") == 0) {
                if (disable) P->spec->gravity = lucid_vec3_zero();
                continue;
            }
            if (strcmp(name, "filterparent") == 0) { /* MuJoCo's parent/child filter */
                P->spec->filter_parent =
                    disable ? LUCID_MODEL_FILTER_NONE : LUCID_MODEL_FILTER_PARENT;
                continue;
            }
            int refused = strcmp(name, "override") == 0 && !disable;
            for (int i = 0; flag_refused[i] && !refused; i++)
                refused = disable && strcmp(name, flag_refused[i]) == 0;
            if (refused)
                return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE,
                                            "<flag> %s=\"%s\" is not supported", name, v);
        }
    }
    return LUCID_OK;
}

/* ---- <default> ------------------------------------------------------------------------------ */

static const char *const joint_attrs[] = {
    "name",         "class",          "type",           "pos",       "axis",      "range",
    "limited",      "damping",        "armature",       "stiffness", "springref", "ref",
    "frictionloss", "margin",         "springdamper",   "group",     "user",      "solreflimit",
    "solimplimit",  "solreffriction", "solimpfriction", NULL};
static const char *const geom_attrs[] = {
    "name",        "class",    "type",   "size", "pos",      "quat",     "axisangle", "euler",
    "xyaxes",      "zaxis",    "fromto", "mass", "density",  "friction", "condim",    "contype",
    "conaffinity", "mesh",     "group",  "rgba", "material", "user",     "solref",    "solimp",
    "solmix",      "priority", "margin", "gap",  "fitscale", "hfield",   NULL};
static const char *const site_attrs[] = {
    "name",   "class", "type", "size",     "pos",   "quat", "axisangle", "euler",
    "xyaxes", "zaxis", "rgba", "material", "group", "user", "fromto",    NULL};
/* Actuator attributes: those every type takes, then each type's own (MuJoCo 2.2.2's schema). */
#define ACTUATOR_COMMON                                                                            \
    "name", "class", "group", "ctrllimited", "forcelimited", "actlimited", "ctrlrange",            \
        "forcerange", "actrange", "lengthrange", "gear", "cranklength", "joint", "jointinparent",  \
        "tendon", "cranksite", "slidersite", "site", "user"
static const char *const actuator_attrs[] = {ACTUATOR_COMMON, NULL}; /* motor */
static const char *const position_attrs[] = {ACTUATOR_COMMON, "kp", NULL};
static const char *const velocity_attrs[] = {ACTUATOR_COMMON, "kv", NULL}; /* and damper */
static const char *const general_attrs[] = {ACTUATOR_COMMON, "dyntype", "gaintype", "biastype",
                                            "dynprm",        "gainprm", "biasprm",  NULL};
static const char *const cylinder_attrs[] = {ACTUATOR_COMMON, "timeconst", "area",
                                             "diameter",      "bias",      NULL};
static const char *const muscle_attrs[] = {ACTUATOR_COMMON, "timeconst", "range", "force",
                                           "scale",         "lmin",      "lmax",  "vmax",
                                           "fpmax",         "fvmax",     NULL};
static const char *const adhesion_attrs[] = {ACTUATOR_COMMON, "gain", "body", NULL};

/* The actuator types of MuJoCo 2.2.2 and their attributes; lucid reads the first five. */
enum {
    A_MOTOR,
    A_POSITION,
    A_VELOCITY,
    A_DAMPER,
    A_GENERAL,
    A_INTVELOCITY,
    A_CYLINDER,
    A_MUSCLE,
    A_ADHESION,
    A_COUNT
};
static const char *const actuator_types[A_COUNT] = {"motor",    "position", "velocity",
                                                    "damper",   "general",  "intvelocity",
                                                    "cylinder", "muscle",   "adhesion"};
static const char *const *const actuator_type_attrs[A_COUNT] = {
    actuator_attrs, position_attrs, velocity_attrs, velocity_attrs, general_attrs,
    position_attrs, cylinder_attrs, muscle_attrs,   adhesion_attrs};

static int actuator_type(const xmlNode *c) {
    for (int t = 0; t < A_COUNT; t++)
        if (IS(c, actuator_types[t])) return t;
    return -1;
}

static const char *const mesh_attrs[] = {"name",   "class",   "file",         "scale",
                                         "refpos", "refquat", "smoothnormal", NULL};
/* MuJoCo 2.2.2's <fixed> tendon, and its <default><tendon> (which adds the visual ones) */
#define TENDON_COMMON                                                                              \
    "group", "limited", "range", "solreflimit", "solimplimit", "solreffriction", "solimpfriction", \
        "frictionloss", "margin", "stiffness", "damping", "springlength", "user"
static const char *const fixed_attrs[] = {"name", "class", TENDON_COMMON, NULL};
static const char *const spatial_attrs[] = {"name", "class",    TENDON_COMMON, "width",
                                            "rgba", "material", NULL};
static const char *const tendon_default_attrs[] = {TENDON_COMMON, "width", "rgba", "material",
                                                   NULL};

/* MuJoCo 2.2.2's <contact><pair>, and its <default><pair> */
static const char *const pair_attrs[] = {"name",   "class",    "geom1",  "geom2",
                                         "condim", "friction", "solref", "solimp",
                                         "margin", "gap",      NULL};
static const char *const pair_default_attrs[] = {"condim", "friction", "solref", "solimp",
                                                 "margin", "gap",      NULL};

static int element_kind(const xmlNode *c) {
    if (IS(c, "joint")) return K_JOINT;
    if (IS(c, "geom")) return K_GEOM;
    if (IS(c, "site")) return K_SITE;
    if (actuator_type(c) >= 0) return K_ACTUATOR;
    if (IS(c, "mesh")) return K_MESH;
    if (IS(c, "tendon")) return K_TENDON;
    if (IS(c, "pair")) return K_PAIR;
    return -1;
}

static const char *const *kind_attrs[K_COUNT] = {
    joint_attrs, geom_attrs,           site_attrs,        actuator_attrs,
    mesh_attrs,  tendon_default_attrs, pair_default_attrs};

/* Default children that only matter to elements lucid refuses or ignores anyway. */
static int ignored_default(const xmlNode *c) {
    static const char *const names[] = {"camera", "light", "material", "texture", "equality", NULL};
    for (int i = 0; names[i]; i++)
        if (IS(c, names[i])) return 1;
    return 0;
}

static const char *const default_attrs[] = {"class", NULL};

static lucid_status default_class(mjcf *P, const xmlNode *el, int parent) {
    if (lucid_model_xml_check_attrs(X_, el, default_attrs)) return X_->status;
    const char *name = ATTR(el, "class");
    if (parent < 0 && name && strcmp(name, "main") != 0)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                    "<default>: the top-level default class is 'main', not '%s'",
                                    name);
    int idx;
    if (parent < 0 && class_index(P, "main") >= 0) {
        idx = 0; /* another top-level <default>: more of main */
    } else {
        if (!name && parent >= 0)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<default>: missing 'class'");
        if (!name) name = "main";
        if (class_index(P, name) >= 0)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<default>: class '%s' defined twice", name);
        if (P->nclasses == P->cap_classes) {
            size_t want = P->cap_classes ? 2 * P->cap_classes : 16;
            mjcf_class *c = realloc(P->classes, want * sizeof *c);
            if (!c) return lucid_model_xml_fail(X_, el, LUCID_ERR_NO_MEMORY, "out of memory");
            P->classes = c;
            P->cap_classes = want;
        }
        idx = (int)P->nclasses++;
        memset(&P->classes[idx], 0, sizeof P->classes[idx]);
        P->classes[idx].name = name;
        P->classes[idx].parent = parent;
    }
    node_list kids = {0};
    if (collect(P, el, &kids, 0)) {
        free(kids.items);
        return X_->status;
    }
    for (size_t i = 0; i < kids.n && !X_->status; i++) {
        const xmlNode *c = kids.items[i];
        if (IS(c, "default")) {
            default_class(P, c, idx);
            continue;
        }
        int k = element_kind(c);
        if (IS(c, "equality") && ATTR(c, "active")) { /* the one default that changes physics */
            lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE,
                                 "<default>: <equality> 'active' is not supported in defaults "
                                 "(set it on each constraint)");
            break;
        }
        if (k < 0) {
            if (!ignored_default(c))
                lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<default>: unsupported element <%s>",
                                     (const char *)c->name);
            continue;
        }
        const char *const *attrs =
            k == K_ACTUATOR ? actuator_type_attrs[actuator_type(c)] : kind_attrs[k];
        if (lucid_model_xml_check_attrs(X_, c, attrs)) break;
        mjcf_class *C = &P->classes[idx];
        if (C->count[k] == CLASS_NODES) {
            lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<default>: too many <%s> elements",
                                 (const char *)c->name);
            break;
        }
        C->nodes[k][C->count[k]++] = c;
    }
    free(kids.items);
    return X_->status;
}

/* The class of an element: its own `class`, else the inherited childclass, else main. */
static int element_class(mjcf *P, const xmlNode *el, int childclass) {
    const char *name = ATTR(el, "class");
    if (!name) return childclass >= 0 ? childclass : 0;
    int c = class_index(P, name);
    if (c < 0) lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "unknown class '%s'", name);
    return c;
}

/* ---- <asset> --------------------------------------------------------------------------------- */

static const char *base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The path of an asset file named by el (meshdir, else assetdir, as MuJoCo: both meshes and
 * height fields); NULL after failing. */
static char *asset_path(mjcf *P, const xmlNode *el, const char *file) {
    const char *rel = P->strippath ? base_name(file) : file;
    if (strncmp(rel, "package://", 10) == 0 || strncmp(rel, "file://", 7) == 0)
        return lucid_model_xml_resolve(X_, el, P->dir, rel);
    const char *sub = P->meshdir ? P->meshdir : P->assetdir;
    char *folder = sub ? lucid_model_xml_join(P->dir, sub) : NULL;
    char *path = lucid_model_xml_join(folder ? folder : P->dir, rel);
    free(folder);
    if (!path) lucid_model_xml_fail(X_, el, LUCID_ERR_NO_MEMORY, "out of memory");
    return path;
}

static lucid_status asset_mesh(mjcf *P, const xmlNode *el) {
    if (lucid_model_xml_check_attrs(X_, el, mesh_attrs)) return X_->status;
    int cls = element_class(P, el, -1);
    if (cls < 0) return X_->status;
    const char *file = lookup(P, el, K_MESH, cls, "file");
    if (!file)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                    "<mesh>: missing 'file' (inline meshes are not supported)");
    double s[3] = {1.0, 1.0, 1.0}, v[4];
    if (reals(P, el, K_MESH, cls, "scale", s, 3, 3) < 0) return X_->status;
    int n = reals(P, el, K_MESH, cls, "refpos", v, 3, 3);
    if (n < 0) return X_->status;
    if (n && (v[0] != 0.0 || v[1] != 0.0 || v[2] != 0.0))
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<mesh> refpos is not supported");
    if ((n = reals(P, el, K_MESH, cls, "refquat", v, 4, 4)) < 0) return X_->status;
    if (n && (v[0] != 1.0 || v[1] != 0.0 || v[2] != 0.0 || v[3] != 0.0))
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<mesh> refquat is not supported");
    /* name: given, else the file name without folder and extension */
    const char *name = ATTR(el, "name");
    char *derived = NULL;
    if (!name) {
        const char *b = base_name(file), *dot = strrchr(b, '.');
        size_t len = dot ? (size_t)(dot - b) : strlen(b);
        derived = malloc(len + 1);
        if (!derived) return lucid_model_xml_fail(X_, el, LUCID_ERR_NO_MEMORY, "out of memory");
        memcpy(derived, b, len);
        derived[len] = '\0';
    }
    char *path = asset_path(P, el, file);
    if (!path) {
        free(derived);
        return X_->status;
    }
    if (P->nmeshes == P->cap_meshes) {
        size_t want = P->cap_meshes ? 2 * P->cap_meshes : 16;
        mjcf_mesh *m = realloc(P->meshes, want * sizeof *m);
        if (!m) {
            free(path);
            free(derived);
            return lucid_model_xml_fail(X_, el, LUCID_ERR_NO_MEMORY, "out of memory");
        }
        P->meshes = m;
        P->cap_meshes = want;
    }
    mjcf_mesh *m = &P->meshes[P->nmeshes++];
    m->node = el;
    m->path = path;
    m->name = name;
    if (derived) {
        /* keep the derived name alive with the path: store it after the path's string */
        size_t lp = strlen(path), ln = strlen(derived);
        char *both = realloc(path, lp + ln + 2);
        if (!both) {
            free(derived);
            P->nmeshes--;
            free(path);
            return lucid_model_xml_fail(X_, el, LUCID_ERR_NO_MEMORY, "out of memory");
        }
        memcpy(both + lp + 1, derived, ln + 1);
        m->path = both;
        m->name = both + lp + 1;
        free(derived);
    }
    for (int i = 0; i < 3; i++) m->scale[i] = s[i] * P->scale;
    return LUCID_OK;
}

/* ---- <hfield> ---- */

static const char *const hfield_attrs[] = {"name", "file",      "nrow", "ncol",
                                           "size", "elevation", NULL};

static uint32_t le32(const unsigned char *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* MuJoCo's binary height field: int32 nrow, int32 ncol, then nrow * ncol float32, row-major
 * (little-endian). Returns the elevations (heap) or NULL after failing. */
static double *read_binary_hfield(mjcf *P, const xmlNode *el, const char *path, const char *file,
                                  int *nrow, int *ncol) {
    size_t size = 0;
    unsigned char *b = lucid_model_xml_read_asset(X_, el, path, &size);
    if (!b) return NULL;
    double *e = NULL;
    long r = size >= 8 ? (long)(int32_t)le32(b) : 0, c = size >= 8 ? (long)(int32_t)le32(b + 4) : 0;
    if (size < 8)
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<hfield>: '%s' is shorter than its header",
                             file);
    else if (r < 2 || c < 2 || r > INT_MAX / c)
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<hfield>: '%s' has %ld x %ld samples (at least 2 x 2)", file, r, c);
    else if ((size - 8) / 4 != (size_t)r * (size_t)c || (size - 8) % 4 != 0)
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<hfield>: '%s' holds %zu bytes, its %ld x %ld header needs %zu", file,
                             size, r, c, 8 + 4 * (size_t)r * (size_t)c);
    else if (!(e = malloc((size_t)r * (size_t)c * sizeof *e)))
        lucid_model_xml_fail(X_, el, LUCID_ERR_NO_MEMORY, "out of memory");
    for (size_t i = 0; e && i < (size_t)r * (size_t)c; ++i) {
        uint32_t u = le32(b + 8 + 4 * i);
        float f;
        memcpy(&f, &u, sizeof f);
        e[i] = f;
    }
    free(b);
    *nrow = (int)r, *ncol = (int)c;
    return e;
}

/* An 8-bit grey PNG (libpng), as MuJoCo reads it: its rows bottom-up (the image's top row at
 * +y), grey levels normalised later. Colour, alpha and 16-bit images are refused (MuJoCo
 * converts them to grey by its own rules, which libpng's do not reproduce). Returns the
 * elevations (heap) or NULL after failing. */
static double *read_png_hfield(mjcf *P, const xmlNode *el, const char *path, const char *file,
                               int *nrow, int *ncol) {
    size_t size = 0;
    unsigned char *bytes = lucid_model_xml_read_asset(X_, el, path, &size);
    if (!bytes) return NULL;
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    int ok = png_image_begin_read_from_memory(&img, bytes, size);
    if (!ok) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<hfield>: '%s': %s", file, img.message);
        png_image_free(&img);
        free(bytes);
        return NULL;
    }
    size_t w = img.width, h = img.height;
    unsigned char *pixels = NULL;
    double *e = NULL;
    if (img.format != PNG_FORMAT_GRAY)
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<hfield>: '%s' is not an 8-bit grey PNG without alpha", file);
    else if (w < 2 || h < 2 || h > (size_t)INT_MAX / w)
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<hfield>: '%s' has %zu x %zu pixels (at least 2 x 2)", file, h, w);
    else if (!(pixels = malloc(w * h)) || !(e = malloc(w * h * sizeof *e))) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_NO_MEMORY, "out of memory");
    } else if (!png_image_finish_read(&img, NULL, pixels, (png_int_32)w, NULL)) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<hfield>: '%s': %s", file, img.message);
    } else {
        for (size_t r = 0; r < h; ++r)
            for (size_t c = 0; c < w; ++c) e[r * w + c] = pixels[(h - 1 - r) * w + c];
        *nrow = (int)h, *ncol = (int)w;
        free(pixels), free(bytes);
        return e;
    }
    png_image_free(&img);
    free(pixels), free(e), free(bytes);
    return NULL;
}

static int ends_with_png(const char *file) {
    size_t n = strlen(file);
    return n >= 4 && (strcmp(file + n - 4, ".png") == 0 || strcmp(file + n - 4, ".PNG") == 0);
}

static lucid_status asset_hfield(mjcf *P, const xmlNode *el) {
    if (lucid_model_xml_check_attrs(X_, el, hfield_attrs)) return X_->status;
    const char *file = ATTR(el, "file"), *elev = ATTR(el, "elevation"), *v;
    const char *name = ATTR(el, "name");
    long nrow = 0, ncol = 0;
    if ((v = ATTR(el, "nrow")) && !lucid_model_xml_int(X_, el, "nrow", v, 0, INT_MAX, &nrow))
        return X_->status;
    if ((v = ATTR(el, "ncol")) && !lucid_model_xml_int(X_, el, "ncol", v, 0, INT_MAX, &ncol))
        return X_->status;
    double size[4];
    if (!(v = ATTR(el, "size")))
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<hfield>: missing 'size'");
    if (lucid_model_xml_reals(X_, el, "size", v, size, 4, 4) < 0) return X_->status;
    for (int k = 0; k < 4; ++k)
        if (!(size[k] > 0.0))
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<hfield>: size %g is not positive (x, y, elevation, "
                                        "base must be > 0)",
                                        size[k]);
    for (int k = 0; k < 4; ++k) size[k] *= P->scale;
    if (!name && !file)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<hfield>: missing 'name'");
    if (!!file + !!elev != 1)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                    "<hfield>: give exactly one of 'file' and 'elevation' "
                                    "(data written at run time is not supported)");
    double *e = NULL;
    int nr = (int)nrow, nc = (int)ncol;
    if (file) {
        if (nrow || ncol)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<hfield>: nrow and ncol come from the file");
        char *path = asset_path(P, el, file);
        if (!path) return X_->status;
        e = ends_with_png(file) ? read_png_hfield(P, el, path, file, &nr, &nc)
                                : read_binary_hfield(P, el, path, file, &nr, &nc);
        free(path);
        if (!e) return X_->status;
    } else {
        if (nrow < 2 || ncol < 2 || nrow > INT_MAX / ncol)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<hfield>: elevation needs nrow and ncol >= 2 (got %ld, "
                                        "%ld)",
                                        nrow, ncol);
        /* each number takes at least a character: a grid the text cannot hold is refused
         * before its nrow x ncol doubles are allocated (a shorter miss is counted below) */
        if ((size_t)nrow * (size_t)ncol > strlen(elev))
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<hfield>: elevation holds fewer than nrow x ncol = %ld "
                                        "numbers",
                                        nrow * ncol);
        e = malloc((size_t)nrow * (size_t)ncol * sizeof *e);
        if (!e) return lucid_model_xml_fail(X_, el, LUCID_ERR_NO_MEMORY, "out of memory");
        if (lucid_model_xml_reals(X_, el, "elevation", elev, e, nr * nc, nr * nc) < 0) {
            free(e);
            return X_->status;
        }
    }
    lucid_heightfield *h = NULL;
    lucid_status st = lucid_heightfield_create(nr, nc, e, size, &h);
    free(e);
    if (st)
        return lucid_model_xml_fail(X_, el, st, "<hfield>: %s (elevations must be finite)",
                                    lucid_status_string(st));
    if ((st = lucid_model_spec_add_heightfield(P->spec, h)))
        return lucid_model_xml_fail(X_, el, st, "<hfield>: %s", lucid_status_string(st));
    if (P->nhfields == P->cap_hfields) {
        size_t want = P->cap_hfields ? 2 * P->cap_hfields : 4;
        mjcf_hfield *grown = realloc(P->hfields, want * sizeof *grown);
        if (!grown) return lucid_model_xml_fail(X_, el, LUCID_ERR_NO_MEMORY, "out of memory");
        P->hfields = grown, P->cap_hfields = want;
    }
    /* unnamed: MuJoCo's name, the file's without folder and extension (kept in the list) */
    P->hfields[P->nhfields].name = name ? name : base_name(file);
    P->hfields[P->nhfields].derived = !name;
    P->hfields[P->nhfields++].field = h;
    return LUCID_OK;
}

static const lucid_heightfield *find_hfield(mjcf *P, const char *name) {
    for (size_t i = 0; i < P->nhfields; i++) {
        const char *n = P->hfields[i].name, *dot = strrchr(n, '.');
        size_t len = P->hfields[i].derived && dot ? (size_t)(dot - n) : strlen(n);
        if (strlen(name) == len && strncmp(n, name, len) == 0) return P->hfields[i].field;
    }
    return NULL;
}

/* One child of <asset>: a mesh or a height field (textures, materials and skins ignored). */
static lucid_status asset(mjcf *P, const xmlNode *c) {
    if (IS(c, "mesh")) return asset_mesh(P, c);
    if (IS(c, "hfield")) return asset_hfield(P, c);
    if (!IS(c, "texture") && !IS(c, "material") && !IS(c, "skin"))
        lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<asset>: unsupported element <%s>",
                             (const char *)c->name);
    return X_->status;
}

/* ---- bodies ------------------------------------------------------------------------------------
 */

static const char *const body_attrs[] = {"name",      "childclass", "pos",    "quat",
                                         "axisangle", "euler",      "xyaxes", "zaxis",
                                         "mocap",     "user",       NULL};
static const char *const inertial_attrs[] = {"pos",         "quat",  "axisangle", "euler",
                                             "xyaxes",      "zaxis", "mass",      "diaginertia",
                                             "fullinertia", NULL};
static const char *const freejoint_attrs[] = {"name", "group", NULL};

/* Symmetric positive semi-definite (strict when `strict`) by Sylvester's criterion on the
 * matrix scaled to unit size. */
/* Principal moments m[3] violating A + B >= C (to 64 eps of their sum) are refused as in
 * MuJoCo, or replaced by their mean under <compiler balanceinertia="true">: 1 when valid, 2
 * when balanced, 0 after failing. */
static int balance(mjcf *P, const xmlNode *el, const char *attr, double m[3]) {
    double sum = m[0] + m[1] + m[2], tol = 64.0 * DBL_EPSILON * sum;
    int bad = 0;
    for (int k = 0; k < 3; k++) bad |= m[(k + 1) % 3] + m[(k + 2) % 3] < m[k] - tol;
    if (!bad) return 1;
    if (!P->balanceinertia) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_NOT_SPD,
                             "<inertial>: %s: principal moments %g %g %g violate A + B >= C "
                             "(<compiler balanceinertia=\"true\"> averages them, as MuJoCo)",
                             attr, m[0], m[1], m[2]);
        return 0;
    }
    m[0] = m[1] = m[2] = sum / 3.0;
    return 2;
}

static int spd(const lucid_mat3 *I, int strict) {
    double s = 0.0;
    for (int i = 0; i < 9; i++) s = fmax(s, fabs(I->m[i]));
    if (s == 0.0) return !strict;
    lucid_mat3 A = lucid_mat3_scale(I, 1.0 / s);
    const double *m = A.m;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < i; j++)
            if (fabs(m[i + 3 * j] - m[j + 3 * i]) > 1e-12) return 0;
    double d1 = m[0], d2 = m[0] * m[4] - m[1] * m[3], d3 = lucid_mat3_det(&A);
    double tol = strict ? 0.0 : -1e-14;
    return d1 > tol && d2 > tol && d3 > tol && m[4] > tol && m[8] > tol;
}

static lucid_status inertial(mjcf *P, const xmlNode *el, lucid_body_spec *b) {
    if (lucid_model_xml_check_attrs(X_, el, inertial_attrs)) return X_->status;
    lucid_se3 T;
    if (!frame(P, el, -1, -1, &T)) return X_->status;
    double mass = NAN, d[6];
    if (!real1(P, el, -1, -1, "mass", &mass)) return X_->status;
    if (isnan(mass))
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<inertial>: missing 'mass'");
    if (mass < 0.0)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<inertial>: negative mass %g", mass);
    int nd = reals(P, el, -1, -1, "diaginertia", d, 3, 3);
    if (nd < 0) return X_->status;
    lucid_mat3 I;
    if (nd == 3) {
        if (ATTR(el, "fullinertia"))
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<inertial>: both diaginertia and fullinertia");
        if (d[0] < 0 || d[1] < 0 || d[2] < 0)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_NOT_SPD,
                                        "<inertial>: diaginertia (%g %g %g) is negative", d[0],
                                        d[1], d[2]);
        if (!balance(P, el, "diaginertia", d)) return X_->status;
        lucid_mat3 D = lucid_mat3_diag(lucid_vec3_make(d[0], d[1], d[2]));
        lucid_mat3 RD = lucid_mat3_mul(&T.R, &D);
        lucid_mat3 Rt = lucid_mat3_transpose(&T.R);
        I = lucid_mat3_mul(&RD, &Rt);
    } else {
        int nf = reals(P, el, -1, -1, "fullinertia", d, 6, 6);
        if (nf < 0) return X_->status;
        if (nf == 0)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<inertial>: missing 'diaginertia' or 'fullinertia'");
        if (ATTR(el, "quat") || ATTR(el, "axisangle") || ATTR(el, "euler") || ATTR(el, "xyaxes") ||
            ATTR(el, "zaxis"))
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<inertial>: fullinertia with an orientation");
        I = (lucid_mat3){{d[0], d[3], d[4], d[3], d[1], d[5], d[4], d[5], d[2]}};
    }
    if (!spd(&I, mass > 0.0))
        return lucid_model_xml_fail(X_, el, LUCID_ERR_NOT_SPD,
                                    "<inertial>: inertia is not positive definite");
    if (nd != 3) { /* fullinertia: its principal moments obey A + B >= C too */
        lucid_mat3 tmp = I;
        double w[3], after[3];
        lucid_model_xml_inertia_valid(mass, 1.0, &tmp, w, after);
        int balanced = balance(P, el, "fullinertia", w);
        if (!balanced) return X_->status;
        if (balanced == 2) I = lucid_mat3_diag(lucid_vec3_make(w[0], w[1], w[2])); /* isotropic */
    }
    b->mass = mass;
    b->com = T.t;
    b->inertia = lucid_mat3_scale(&I, P->scale * P->scale);
    return LUCID_OK;
}

/* The joint kind of a type name, or -1. */
static int joint_kind(const char *type) {
    if (strcmp(type, "hinge") == 0) return LUCID_JOINT_REVOLUTE;
    if (strcmp(type, "slide") == 0) return LUCID_JOINT_PRISMATIC;
    if (strcmp(type, "ball") == 0) return LUCID_JOINT_SPHERICAL;
    if (strcmp(type, "free") == 0) return LUCID_JOINT_FREE;
    return -1;
}

static lucid_status joint(mjcf *P, const xmlNode *el, int body, int childclass) {
    if (lucid_model_xml_check_attrs(X_, el, joint_attrs)) return X_->status;
    int cls = element_class(P, el, childclass);
    if (cls < 0) return X_->status;
    const char *type = lookup(P, el, K_JOINT, cls, "type");
    int kind = type ? joint_kind(type) : LUCID_JOINT_REVOLUTE;
    if (kind < 0)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<joint>: unknown joint type '%s'",
                                    type);
    lucid_joint_spec j = lucid_joint_spec_default((lucid_joint_kind)kind);
    j.name = ATTR(el, "name");
    j.line = (int)lucid_model_xml_line(el);
    double a[3] = {0.0, 0.0, 1.0}, r[2];
    if (!position(P, el, K_JOINT, cls, &j.anchor)) return X_->status;
    if (reals(P, el, K_JOINT, cls, "axis", a, 3, 3) < 0) return X_->status;
    j.axis = lucid_vec3_make(a[0], a[1], a[2]);
    if ((kind == LUCID_JOINT_REVOLUTE || kind == LUCID_JOINT_PRISMATIC) &&
        !(lucid_vec3_norm(j.axis) > 0.0))
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<joint>: zero axis");
    /* lengths scale, angles convert */
    double unit = kind == LUCID_JOINT_PRISMATIC ? P->scale
                  : (kind == LUCID_JOINT_REVOLUTE || kind == LUCID_JOINT_SPHERICAL) && P->degree
                      ? deg
                      : 1.0;
    int nr = reals(P, el, K_JOINT, cls, "range", r, 2, 2);
    if (nr < 0) return X_->status;
    int lim = limited_flag(P, el, K_JOINT, cls, "limited", nr == 2);
    if (lim < 0) return X_->status;
    if (lim && kind != LUCID_JOINT_FREE) {
        if (nr != 2)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<joint>: limited without a 'range'");
        if (kind == LUCID_JOINT_SPHERICAL)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<joint>: limits of ball joints are not supported");
        if (!(r[0] < r[1]))
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<joint>: range lower %g is not below upper %g", r[0],
                                        r[1]);
        j.limited = 1;
        j.lower = r[0] * unit;
        j.upper = r[1] * unit;
    }
    if (!real1(P, el, K_JOINT, cls, "ref", &j.ref) ||
        !real1(P, el, K_JOINT, cls, "springref", &j.springref) ||
        !real1(P, el, K_JOINT, cls, "damping", &j.damping) ||
        !real1(P, el, K_JOINT, cls, "armature", &j.armature) ||
        !real1(P, el, K_JOINT, cls, "stiffness", &j.stiffness))
        return X_->status;
    j.ref *= unit;
    j.springref *= unit;
    if (j.damping < 0.0 || j.armature < 0.0 || j.stiffness < 0.0)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                    "<joint>: negative damping, armature or stiffness");
    if (!real1(P, el, K_JOINT, cls, "frictionloss", &j.frictionloss)) return X_->status;
    if (j.frictionloss < 0.0)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<joint>: negative frictionloss");
    double z[2] = {0.0, 0.0};
    if (!real1(P, el, K_JOINT, cls, "margin", &z[0])) return X_->status;
    if (z[0] != 0.0)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<joint> margin is not supported");
    z[0] = 0.0;
    if (reals(P, el, K_JOINT, cls, "springdamper", z, 2, 2) < 0) return X_->status;
    if (z[0] != 0.0 || z[1] != 0.0)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                    "<joint> springdamper is not supported");
    lucid_status st = lucid_model_spec_add_joint(P->spec, body, &j, NULL);
    if (st) return lucid_model_xml_fail(X_, el, st, "<joint>: %s", lucid_status_string(st));
    return LUCID_OK;
}

static lucid_status freejoint(mjcf *P, const xmlNode *el, int body) {
    if (lucid_model_xml_check_attrs(X_, el, freejoint_attrs)) return X_->status;
    lucid_joint_spec j = lucid_joint_spec_default(LUCID_JOINT_FREE);
    j.name = ATTR(el, "name");
    j.line = (int)lucid_model_xml_line(el);
    lucid_status st = lucid_model_spec_add_joint(P->spec, body, &j, NULL);
    if (st) return lucid_model_xml_fail(X_, el, st, "<freejoint>: %s", lucid_status_string(st));
    return LUCID_OK;
}

/* Growing list of the mass properties of a body's geoms. */
typedef struct parts {
    lucid_mass_properties *p;
    int n, cap;
} parts;

static int parts_push(parts *ps, const lucid_mass_properties *m) {
    if (ps->n == ps->cap) {
        int want = ps->cap ? 2 * ps->cap : 8;
        lucid_mass_properties *q = realloc(ps->p, (size_t)want * sizeof *q);
        if (!q) return 0;
        ps->p = q;
        ps->cap = want;
    }
    ps->p[ps->n++] = *m;
    return 1;
}

static const mjcf_mesh *find_mesh(mjcf *P, const char *name) {
    for (size_t i = 0; i < P->nmeshes; i++)
        if (strcmp(P->meshes[i].name, name) == 0) return &P->meshes[i];
    return NULL;
}

static lucid_status geom(mjcf *P, const xmlNode *el, int body, int childclass, parts *mass) {
    if (lucid_model_xml_check_attrs(X_, el, geom_attrs)) return X_->status;
    int cls = element_class(P, el, childclass);
    if (cls < 0) return X_->status;
    const char *type = lookup(P, el, K_GEOM, cls, "type");
    if (!type) type = "sphere";
    double size[3] = {0.0, 0.0, 0.0}, ft[6];
    int ns = reals(P, el, K_GEOM, cls, "size", size, 1, 3);
    if (ns < 0) return X_->status;
    int nft = reals(P, el, K_GEOM, cls, "fromto", ft, 6, 6);
    if (nft < 0) return X_->status;
    int sphere = !strcmp(type, "sphere"), capsule = !strcmp(type, "capsule");
    int cylinder = !strcmp(type, "cylinder"), box = !strcmp(type, "box");
    int ellipsoid = !strcmp(type, "ellipsoid"), plane = !strcmp(type, "plane");
    int mesh = !strcmp(type, "mesh"), hfield = !strcmp(type, "hfield");
    if (!(sphere || capsule || cylinder || box || ellipsoid || plane || mesh || hfield))
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                    "<geom>: geom type '%s' is not supported", type);
    lucid_geom_spec g = lucid_geom_spec_default();
    g.name = ATTR(el, "name");
    g.body = body;
    g.line = (int)lucid_model_xml_line(el);
    if (nft == 6) {
        if (!(capsule || cylinder || box || ellipsoid))
            return lucid_model_xml_fail(
                X_, el, LUCID_ERR_PARSE,
                "<geom>: fromto needs a capsule, cylinder, box or ellipsoid");
        lucid_vec3 a = lucid_vec3_make(ft[0], ft[1], ft[2]),
                   b = lucid_vec3_make(ft[3], ft[4], ft[5]);
        lucid_vec3 d = lucid_vec3_sub(a, b); /* MuJoCo aligns z with from - to */
        double len = lucid_vec3_norm(d);
        if (!(len > 0.0))
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<geom>: fromto of zero length");
        g.pose.R = lucid_quat_to_mat3(z_to(lucid_vec3_scale(d, 1.0 / len)));
        g.pose.t = lucid_vec3_scale(lucid_vec3_scale(lucid_vec3_add(a, b), 0.5), P->scale);
        if (capsule || cylinder) size[1] = 0.5 * len;
        if (box || ellipsoid) size[1] = size[0], size[2] = 0.5 * len;
        ns = 3;
    } else if (!frame(P, el, K_GEOM, cls, &g.pose)) {
        return X_->status;
    }
    int need = sphere ? 1 : (capsule || cylinder) ? 2 : (box || ellipsoid) ? 3 : 0;
    if (ns < need)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<geom>: a %s needs %d size number%s",
                                    type, need, need > 1 ? "s" : "");
    for (int i = 0; i < need; i++) {
        if (!(size[i] > 0.0))
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<geom>: size %g is not positive",
                                        size[i]);
        size[i] *= P->scale;
    }
    /* collision and contact parameters */
    long contype = 1, conaffinity = 1, condim = 3, group = 0, priority = 0;
    const char *v;
    if ((v = lookup(P, el, K_GEOM, cls, "contype")) &&
        !lucid_model_xml_int(X_, el, "contype", v, 0, UINT32_MAX, &contype))
        return X_->status;
    if ((v = lookup(P, el, K_GEOM, cls, "conaffinity")) &&
        !lucid_model_xml_int(X_, el, "conaffinity", v, 0, UINT32_MAX, &conaffinity))
        return X_->status;
    if ((v = lookup(P, el, K_GEOM, cls, "condim")) &&
        !lucid_model_xml_int(X_, el, "condim", v, 1, 6, &condim))
        return X_->status;
    if ((v = lookup(P, el, K_GEOM, cls, "group")) &&
        !lucid_model_xml_int(X_, el, "group", v, -1000000, 1000000, &group))
        return X_->status;
    if ((v = lookup(P, el, K_GEOM, cls, "priority")) &&
        !lucid_model_xml_int(X_, el, "priority", v, INT_MIN, INT_MAX, &priority))
        return X_->status;
    if (X_->status) return X_->status;
    if (condim != 1 && condim != 3 && condim != 4 && condim != 6)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                    "<geom> condim must be 1, 3, 4 or 6 (got %ld)", condim);
    /* sliding, torsional (a length, condim >= 4) and rolling (a length, condim 6) coefficients */
    double fr[3] = {1.0, 0.005, 0.0001};
    if (reals(P, el, K_GEOM, cls, "friction", fr, 1, 3) < 0) return X_->status;
    if (fr[0] < 0.0 || fr[1] < 0.0 || fr[2] < 0.0)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<geom>: negative friction");
    /* the pair's rule (condim and friction of the pair, docs/model_files.md) is the world's */
    g.friction = fr[0];
    g.torsion = fr[1] * P->scale;
    g.rolling = fr[2] * P->scale;
    g.condim = (int)condim;
    g.priority = (int)priority;
    g.contype = (unsigned)contype;
    g.conaffinity = (unsigned)conaffinity;
    double margin = 0.0, gap = 0.0, solmix = 1.0;
    if (!real1(P, el, K_GEOM, cls, "margin", &margin) || !real1(P, el, K_GEOM, cls, "gap", &gap) ||
        !real1(P, el, K_GEOM, cls, "solmix", &solmix))
        return X_->status;
    if (margin < 0.0 || gap < 0.0)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                    "<geom>: margin and gap must be >= 0 (got %g, %g)", margin,
                                    gap);
    g.margin = margin * P->scale, g.gap = gap * P->scale, g.solmix = solmix;
    /* the shape */
    lucid_status st = LUCID_OK;
    lucid_convex_mesh *hull = NULL;
    lucid_model_xml_parts dec = {0}; /* meshes = "decompose" */
    int decomposed = 0;
    if (sphere)
        st = lucid_shape_sphere(size[0], &g.shape);
    else if (capsule)
        st = lucid_shape_capsule(size[0], size[1], &g.shape);
    else if (cylinder)
        st = lucid_shape_cylinder(size[0], size[1], &g.shape);
    else if (box)
        st = lucid_shape_box(size[0], size[1], size[2], &g.shape);
    else if (ellipsoid)
        st = lucid_shape_ellipsoid(size[0], size[1], size[2], &g.shape);
    else if (plane) {
        if (body != LUCID_MODEL_WORLD)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<geom>: planes are only supported on the world body");
        st = lucid_shape_halfspace(lucid_vec3_make(0.0, 0.0, 1.0), 0.0, &g.shape);
    } else if (hfield) {
        if (body != LUCID_MODEL_WORLD)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<geom>: height fields are only supported on the world "
                                        "body");
        const char *hname = lookup(P, el, K_GEOM, cls, "hfield");
        if (!hname)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<geom>: missing 'hfield'");
        const lucid_heightfield *h = find_hfield(P, hname);
        if (!h)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<geom>: unknown hfield '%s'",
                                        hname);
        st = lucid_shape_heightfield(h, &g.shape);
    } else {
        const char *mname = lookup(P, el, K_GEOM, cls, "mesh");
        if (!mname) return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<geom>: missing 'mesh'");
        const mjcf_mesh *m = find_mesh(P, mname);
        if (!m)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<geom>: unknown mesh '%s'",
                                        mname);
        if (lucid_model_xml_load_mesh(X_, el, m->path, m->scale, &hull)) return X_->status;
        if (!hull) /* skipped, with a warning; a <pair> naming it is skipped too */
            return list_push(&P->skipped_geoms, el)
                       ? LUCID_OK
                       : lucid_model_xml_fail(X_, el, LUCID_ERR_NO_MEMORY, "out of memory");
        st = lucid_shape_convex(hull, &g.shape);
        if (st) lucid_convex_mesh_destroy(hull), hull = NULL;
        if (!st && X_->opts->decompose_meshes) {
            if (lucid_model_xml_decompose_mesh(X_, el, m->path, m->scale, &dec)) goto fail;
            decomposed = 1;
        }
    }
    if (st) return lucid_model_xml_fail(X_, el, st, "<geom>: %s", lucid_status_string(st));
    /* mass properties for a body without <inertial> */
    if (!plane && !hfield && group >= P->group_lo && group <= P->group_hi) {
        double gmass = -1.0, density = 1000.0;
        if (!real1(P, el, K_GEOM, cls, "mass", &gmass) ||
            !real1(P, el, K_GEOM, cls, "density", &density))
            goto fail;
        lucid_mass_properties mp = dec.unit; /* decomposed: the mesh's solid, not its hull */
        lucid_status ms = decomposed ? LUCID_OK : lucid_shape_mass_properties(&g.shape, 1.0, &mp);
        if (ms) {
            lucid_model_xml_fail(X_, el, ms, "<geom>: mass properties: %s",
                                 lucid_status_string(ms));
            goto fail;
        }
        double rho = gmass >= 0.0 ? gmass / mp.mass : density;
        if (!(rho >= 0.0) || !isfinite(rho)) {
            lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<geom>: negative mass or density");
            goto fail;
        }
        mp.mass *= rho;
        mp.inertia = lucid_mat3_scale(&mp.inertia, rho);
        mp = lucid_mass_properties_transform(&mp, &g.pose);
        if (!parts_push(mass, &mp)) {
            lucid_model_xml_fail(X_, el, LUCID_ERR_NO_MEMORY, "out of memory");
            goto fail;
        }
    }
    int index;
    st = lucid_model_spec_add_geom(P->spec, &g, hull, &index);
    hull = NULL; /* the spec's now, also on failure */
    if (st) {
        lucid_model_xml_fail(X_, el, st, "<geom>: %s", lucid_status_string(st));
        goto fail;
    }
    return lucid_model_xml_add_parts(X_, el, P->spec, index, &dec);
fail:
    lucid_convex_mesh_destroy(hull);
    lucid_model_xml_parts_free(&dec);
    return X_->status;
}

/* A site's zone (a touch sensor's volume): MuJoCo 2.2.2's type and size (default a sphere of
 * 0.005), the size scaled like positions; a fromto (ft) sets the half-length of a capsule or
 * cylinder (size[1]) and the z semi-axis of an ellipsoid or box (size[2]). 0 after failing. */
static int site_zone(mjcf *P, const xmlNode *el, int cls, const double *ft, lucid_frame_spec *f) {
    static const char *const types[] = {"sphere", "capsule", "ellipsoid", "cylinder", "box", NULL};
    const char *type = lookup(P, el, K_SITE, cls, "type");
    int t = 0;
    if (type) {
        while (types[t] && strcmp(types[t], type) != 0) t++;
        if (!types[t]) {
            lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<site>: unknown type '%s'", type);
            return 0;
        }
    }
    double size[3] = {0.005, 0.005, 0.005};
    int n = reals(P, el, K_SITE, cls, "size", size, 1, 3);
    if (n < 0) return 0;
    for (int k = 0; k < 3; k++) {
        if (!(size[k] >= 0.0)) {
            lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<site>: size must be >= 0");
            return 0;
        }
        f->zone_size[k] = size[k] * P->scale;
    }
    if (ft) {
        double dx = ft[3] - ft[0], dy = ft[4] - ft[1], dz = ft[5] - ft[2];
        double half = 0.5 * sqrt(dx * dx + dy * dy + dz * dz) * P->scale;
        f->zone_size[t == 1 || t == 3 ? 1 : 2] = half;
    }
    f->zone = (lucid_zone_kind)t;
    return 1;
}

static lucid_status site(mjcf *P, const xmlNode *el, int body, int childclass) {
    if (lucid_model_xml_check_attrs(X_, el, site_attrs)) return X_->status;
    int cls = element_class(P, el, childclass);
    if (cls < 0) return X_->status;
    lucid_frame_spec f = {0};
    f.name = ATTR(el, "name");
    f.body = body;
    f.line = (int)lucid_model_xml_line(el);
    double ft[6];
    int nft = reals(P, el, K_SITE, cls, "fromto", ft, 6, 6);
    if (nft < 0) return X_->status;
    if (nft == 6) {
        lucid_vec3 a = lucid_vec3_make(ft[0], ft[1], ft[2]),
                   b = lucid_vec3_make(ft[3], ft[4], ft[5]);
        lucid_vec3 d = lucid_vec3_sub(a, b);
        double len = lucid_vec3_norm(d);
        if (!(len > 0.0))
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<site>: fromto of zero length");
        f.placement.R = lucid_quat_to_mat3(z_to(lucid_vec3_scale(d, 1.0 / len)));
        f.placement.t = lucid_vec3_scale(lucid_vec3_scale(lucid_vec3_add(a, b), 0.5), P->scale);
    } else if (!frame(P, el, K_SITE, cls, &f.placement)) {
        return X_->status;
    }
    if (!f.name) return LUCID_OK; /* an unnamed site cannot be asked for: nothing to keep */
    if (!site_zone(P, el, cls, nft == 6 ? ft : NULL, &f)) return X_->status;
    lucid_status st = lucid_model_spec_add_frame(P->spec, &f, NULL);
    if (st) return lucid_model_xml_fail(X_, el, st, "<site>: %s", lucid_status_string(st));
    return LUCID_OK;
}

/* A body (or the world, body == LUCID_MODEL_WORLD) and its subtree: first its own elements,
 * then its child bodies, so bodies come in document preorder like MuJoCo's. */
static lucid_status body_contents(mjcf *P, const xmlNode *el, int body, int childclass) {
    node_list kids = {0};
    parts mass = {0};
    const xmlNode *inert = NULL;
    if (collect(P, el, &kids, 0)) goto done;
    for (size_t i = 0; i < kids.n && !X_->status; i++) {
        const xmlNode *c = kids.items[i];
        if (IS(c, "body") || IS(c, "camera") || IS(c, "light")) continue;
        if (IS(c, "geom")) {
            geom(P, c, body, childclass, &mass);
        } else if (IS(c, "site")) {
            site(P, c, body, childclass);
        } else if (body != LUCID_MODEL_WORLD && IS(c, "joint")) {
            joint(P, c, body, childclass);
        } else if (body != LUCID_MODEL_WORLD && IS(c, "freejoint")) {
            freejoint(P, c, body);
        } else if (body != LUCID_MODEL_WORLD && IS(c, "inertial")) {
            if (inert)
                lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<body>: more than one <inertial>");
            inert = c;
        } else {
            lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<%s>: unsupported element <%s>",
                                 body == LUCID_MODEL_WORLD ? "worldbody" : "body",
                                 (const char *)c->name);
        }
    }
    if (X_->status) goto done;
    if (body != LUCID_MODEL_WORLD) {
        lucid_body_spec *b = &P->spec->bodies[body];
        int from_geoms = P->inertiafromgeom == 1 || (P->inertiafromgeom == 2 && !inert);
        if (inert && !from_geoms) {
            lucid_body_spec tmp = *b;
            if (inertial(P, inert, &tmp)) goto done;
            P->spec->bodies[body] = tmp;
        } else if (inert && inertial(P, inert, &(lucid_body_spec){0})) {
            goto done; /* still checked */
        }
        if (from_geoms && mass.n > 0) {
            double total = 0.0;
            for (int i = 0; i < mass.n; i++) total += mass.p[i].mass;
            if (total > 0.0) {
                lucid_mass_properties all;
                lucid_status st = lucid_mass_properties_combine(mass.p, mass.n, &all);
                if (st) {
                    lucid_model_xml_fail(X_, el, st, "<body>: mass properties: %s",
                                         lucid_status_string(st));
                    goto done;
                }
                b = &P->spec->bodies[body];
                b->mass = all.mass;
                b->com = all.com;
                b->inertia = all.inertia;
            }
        }
    }
    for (size_t i = 0; i < kids.n && !X_->status; i++) {
        const xmlNode *c = kids.items[i];
        if (!IS(c, "body")) continue;
        if (lucid_model_xml_check_attrs(X_, c, body_attrs)) break;
        const char *v = ATTR(c, "mocap");
        int mocap = v ? lucid_model_xml_bool(X_, c, "mocap", v) : 0;
        if (mocap < 0) break;
        int cc = childclass;
        if ((v = ATTR(c, "childclass")) && (cc = class_index(P, v)) < 0) {
            lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<body>: unknown childclass '%s'", v);
            break;
        }
        lucid_body_spec b = lucid_body_spec_default();
        b.name = ATTR(c, "name");
        b.parent = body;
        b.mocap = mocap;
        b.line = (int)lucid_model_xml_line(c);
        if (!frame(P, c, -1, -1, &b.placement)) break;
        int index = -1;
        lucid_status st = lucid_model_spec_add_body(P->spec, &b, &index);
        if (st) {
            lucid_model_xml_fail(X_, c, st, "<body>: %s", lucid_status_string(st));
            break;
        }
        body_contents(P, c, index, cc);
    }
done:
    free(kids.items);
    free(mass.p);
    return X_->status;
}

/* ---- <actuator>, <contact> ------------------------------------------------------------------- */

/* An actuator as MuJoCo 2.2.2's XML reader builds it (its OneActuator): a default class applies
 * its actuator elements, of any type, in order to a copy of its parent's, and an actuator
 * applies itself to a copy of its class's (so a <position> reads a kp from a <general gainprm>
 * default, as in MuJoCo). */
enum { DYN_NONE, DYN_INTEGRATOR, DYN_FILTER, DYN_MUSCLE, DYN_USER };
enum { PRM_FIXED_NONE, PRM_AFFINE, PRM_MUSCLE, PRM_USER }; /* gain fixed / bias none = 0 */
typedef struct mj_actuator {
    int ctrllimited, forcelimited, actlimited; /* 0, 1, 2: auto */
    double ctrlrange[2], forcerange[2], actrange[2], lengthrange[2], gear[6];
    int dyntype, gaintype, biastype;
    double dynprm[10], gainprm[10], biasprm[10];
    const xmlNode *joint;  /* the element that named the joint */
    const xmlNode *tendon; /* or the one that named a tendon */
    const xmlNode *crank;  /* or the one that named a cranksite (a slider-crank) */
    const xmlNode *slider; /* the one that named its slidersite */
    double cranklength;
    const xmlNode *trn;     /* one that named another transmission, or NULL */
    const char *trn_attr;   /* its attribute */
    const xmlNode *foreign; /* a default of a type lucid does not read, still in effect */
} mj_actuator;

static mj_actuator mj_actuator_default(void) {
    mj_actuator a;
    memset(&a, 0, sizeof a);
    a.ctrllimited = a.forcelimited = a.actlimited = 2;
    a.gear[0] = 1.0;
    a.dynprm[0] = 1.0;
    a.gainprm[0] = 1.0;
    return a;
}

/* A keyword attribute among names (index into *out, unchanged when absent); 0 after failing. */
static int keyword(mjcf *P, const xmlNode *el, const char *attr, const char *const *names,
                   int *out) {
    const char *v = ATTR(el, attr);
    if (!v) return 1;
    for (int i = 0; names[i]; i++)
        if (strcmp(v, names[i]) == 0) return *out = i, 1;
    lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s>: unknown %s '%s'", (const char *)el->name,
                         attr, v);
    return 0;
}

/* The attributes every type reads (MuJoCo's common part of OneActuator); 0 after failing. */
static int apply_common(mjcf *P, const xmlNode *el, mj_actuator *a) {
    /* the transmissions lucid does not simulate */
    static const char *const others[] = {"site", "jointinparent", NULL};
    int t;
    if ((t = tristate(P, el, -1, 0, "ctrllimited")) < 0) return 0;
    if (ATTR(el, "ctrllimited")) a->ctrllimited = t;
    if ((t = tristate(P, el, -1, 0, "forcelimited")) < 0) return 0;
    if (ATTR(el, "forcelimited")) a->forcelimited = t;
    if ((t = tristate(P, el, -1, 0, "actlimited")) < 0) return 0;
    if (ATTR(el, "actlimited")) a->actlimited = t;
    if (reals(P, el, -1, 0, "ctrlrange", a->ctrlrange, 2, 2) < 0 ||
        reals(P, el, -1, 0, "forcerange", a->forcerange, 2, 2) < 0 ||
        reals(P, el, -1, 0, "actrange", a->actrange, 2, 2) < 0 ||
        reals(P, el, -1, 0, "lengthrange", a->lengthrange, 2, 2) < 0 ||
        reals(P, el, -1, 0, "gear", a->gear, 1, 6) < 0 ||
        !real1(P, el, -1, 0, "cranklength", &a->cranklength))
        return 0;
    if (ATTR(el, "joint")) a->joint = el, a->tendon = a->crank = NULL;
    if (ATTR(el, "tendon")) a->tendon = el, a->joint = a->crank = NULL;
    if (ATTR(el, "cranksite")) a->crank = el, a->joint = a->tendon = NULL;
    if (ATTR(el, "slidersite")) a->slider = el;
    for (int i = 0; others[i]; i++)
        if (ATTR(el, others[i])) {
            a->trn = el, a->trn_attr = others[i];
            break;
        }
    return 1;
}

/* A <muscle> applied to *a (MuJoCo 2.2.2's OneActuator: parameters still at the global
 * defaults become the muscle's, then its attributes; the bias takes the gain's parameters); 0
 * after failing. */
static int muscle_attrs_apply(mjcf *P, const xmlNode *el, mj_actuator *a) {
    static const double muscle[9] = {0.75, 1.05, -1.0, 200.0, 0.5, 1.6, 1.5, 1.3, 1.2};
    static const double global[9] = {1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    if (a->dynprm[0] == 1.0) a->dynprm[0] = 0.01; /* tau_act */
    if (a->dynprm[1] == 0.0) a->dynprm[1] = 0.04; /* tau_deact */
    for (int k = 0; k < 9; k++)
        if (a->gainprm[k] == global[k]) a->gainprm[k] = muscle[k];
    static const char *const one[] = {"force", "scale", "lmin", "lmax", "vmax", "fpmax", "fvmax"};
    if (reals(P, el, -1, 0, "timeconst", a->dynprm, 2, 2) < 0 ||
        reals(P, el, -1, 0, "range", a->gainprm, 2, 2) < 0)
        return 0;
    for (int k = 0; k < 7; k++)
        if (!real1(P, el, -1, 0, one[k], &a->gainprm[2 + k])) return 0;
    for (int k = 0; k < 9; k++) a->biasprm[k] = a->gainprm[k];
    a->dyntype = DYN_MUSCLE, a->gaintype = PRM_MUSCLE, a->biastype = PRM_MUSCLE;
    a->foreign = NULL;
    return 1;
}

/* One actuator element of type `type` (a default's when in_default) applied to *a; 0 after
 * failing. */
static int apply_actuator(mjcf *P, const xmlNode *el, int type, int in_default, mj_actuator *a) {
    static const char *const dyn[] = {"none", "integrator", "filter", "muscle", "user", NULL};
    static const char *const gain[] = {"fixed", "affine", "muscle", "user", NULL};
    static const char *const bias[] = {"none", "affine", "muscle", "user", NULL};
    if (!apply_common(P, el, a)) return 0;
    const char *name = (const char *)el->name;
    switch (type) {
        case A_MOTOR:
            a->gainprm[0] = 1.0;
            a->dyntype = DYN_NONE, a->gaintype = a->biastype = PRM_FIXED_NONE;
            a->foreign = NULL;
            return 1;
        case A_POSITION:
        case A_VELOCITY: {
            const char *k = type == A_POSITION ? "kp" : "kv";
            memset(a->biasprm, 0, sizeof a->biasprm);
            if (!real1(P, el, -1, 0, k, &a->gainprm[0])) return 0;
            a->biasprm[type == A_POSITION ? 1 : 2] = -a->gainprm[0];
            a->dyntype = DYN_NONE, a->gaintype = PRM_FIXED_NONE, a->biastype = PRM_AFFINE;
            if (ATTR(el, k)) a->foreign = NULL; /* else its gain may come from that default */
            return 1;
        }
        case A_DAMPER:
            memset(a->gainprm, 0, sizeof a->gainprm);
            if (!real1(P, el, -1, 0, "kv", &a->gainprm[2])) return 0;
            if (a->gainprm[2] < 0.0) {
                lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<damper>: kv must be >= 0 (got %g)",
                                     a->gainprm[2]);
                return 0;
            }
            a->gainprm[2] = -a->gainprm[2];
            if (a->ctrlrange[0] < 0.0 || a->ctrlrange[1] < 0.0) {
                lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                     "<damper>: ctrlrange must not be negative");
                return 0;
            }
            a->ctrllimited = 1;
            a->dyntype = DYN_NONE, a->gaintype = PRM_AFFINE, a->biastype = PRM_FIXED_NONE;
            a->foreign = NULL;
            return 1;
        case A_GENERAL:
            if (!keyword(P, el, "dyntype", dyn, &a->dyntype) ||
                !keyword(P, el, "gaintype", gain, &a->gaintype) ||
                !keyword(P, el, "biastype", bias, &a->biastype))
                return 0;
            if (reals(P, el, -1, 0, "dynprm", a->dynprm, 1, 10) < 0 ||
                reals(P, el, -1, 0, "gainprm", a->gainprm, 1, 10) < 0 ||
                reals(P, el, -1, 0, "biasprm", a->biasprm, 1, 10) < 0)
                return 0;
            if (ATTR(el, "dyntype") && ATTR(el, "gaintype") && ATTR(el, "biastype") &&
                ATTR(el, "gainprm") && ATTR(el, "biasprm"))
                a->foreign = NULL;
            return 1;
        case A_INTVELOCITY: /* a position servo on the integrated control, always limited */
            if (ATTR(el, "actlimited")) {
                lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                     "<intvelocity>: unknown attribute 'actlimited' (its "
                                     "activation is always limited, to 'actrange')");
                return 0;
            }
            memset(a->biasprm, 0, sizeof a->biasprm);
            if (!real1(P, el, -1, 0, "kp", &a->gainprm[0])) return 0;
            a->biasprm[1] = -a->gainprm[0];
            a->dyntype = DYN_INTEGRATOR, a->gaintype = PRM_FIXED_NONE, a->biastype = PRM_AFFINE;
            a->actlimited = 1;
            if (ATTR(el, "kp")) a->foreign = NULL;
            return 1;
        case A_CYLINDER: { /* a filtered input on an area; the bias kept unless given */
            double diameter;
            if (!real1(P, el, -1, 0, "timeconst", &a->dynprm[0]) ||
                reals(P, el, -1, 0, "bias", a->biasprm, 3, 3) < 0 ||
                !real1(P, el, -1, 0, "area", &a->gainprm[0]) ||
                !real1(P, el, -1, 0, "diameter", &diameter))
                return 0;
            if (ATTR(el, "diameter"))
                a->gainprm[0] = 3.14159265358979323846 / 4 * diameter * diameter;
            a->dyntype = DYN_FILTER, a->gaintype = PRM_FIXED_NONE, a->biastype = PRM_AFFINE;
            a->foreign = NULL;
            return 1;
        }
        case A_MUSCLE:
            return muscle_attrs_apply(P, el, a);
        default: /* adhesion: refused if used; as a default it leaves its common attributes and
                    a mark */
            if (in_default) {
                a->foreign = el;
                return 1;
            }
            lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                 "<actuator>: actuator type <%s> is not supported (motor, "
                                 "position, velocity, damper, general, intvelocity, cylinder, "
                                 "muscle)",
                                 name);
            return 0;
    }
}

/* The actuator defaults of class cls (its ancestors' first); 0 after failing. */
static int class_actuator(mjcf *P, int cls, mj_actuator *a) {
    if (cls < 0) {
        *a = mj_actuator_default();
        return 1;
    }
    if (!class_actuator(P, P->classes[cls].parent, a)) return 0;
    const mjcf_class *C = &P->classes[cls];
    for (int i = 0; i < C->count[K_ACTUATOR]; i++) {
        const xmlNode *d = C->nodes[K_ACTUATOR][i];
        if (!apply_actuator(P, d, actuator_type(d), 1, a)) return 0;
    }
    return 1;
}

/* *r in [lo, hi] when `limited` resolves true; 0 after failing. */
static int actuator_range(mjcf *P, const xmlNode *el, int t, const double r[2], const char *what,
                          int *limited, double *lo, double *hi) {
    char flag[32];
    snprintf(flag, sizeof flag, "%slimited", what);
    int lim = resolve_limited(P, el, t, flag, r[0] != 0.0 || r[1] != 0.0);
    if (lim < 0) return 0;
    if (lim && !(r[0] < r[1])) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s>: %s needs '%srange' with lower < upper",
                             (const char *)el->name, flag, what);
        return 0;
    }
    *limited = lim;
    if (lim) *lo = r[0], *hi = r[1];
    return 1;
}

/* The spec frame (site) named `name`, -1 after failing (attr: the attribute that named it). */
static int site_index(mjcf *P, const xmlNode *el, const char *attr, const char *name) {
    for (size_t i = 0; i < P->spec->nframes; i++)
        if (P->spec->frames[i].name && strcmp(P->spec->frames[i].name, name) == 0) return (int)i;
    lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s>: unknown %s '%s'", (const char *)el->name,
                         attr, name);
    return -1;
}

/* A slider-crank (MuJoCo's cranksite, slidersite, cranklength > 0); 0 after failing. */
static int crank_target(mjcf *P, const xmlNode *el, const mj_actuator *m, lucid_actuator_spec *a) {
    const char *name = (const char *)el->name;
    if (!m->slider) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<%s>: a 'cranksite' transmission needs a 'slidersite'", name);
        return 0;
    }
    if (!(m->cranklength > 0.0)) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<%s>: a slider-crank needs cranklength > 0 (got %g)", name,
                             m->cranklength);
        return 0;
    }
    a->joint = -1;
    a->crank = site_index(P, el, "cranksite", ATTR(m->crank, "cranksite"));
    if (a->crank < 0) return 0;
    a->slider = site_index(P, el, "slidersite", ATTR(m->slider, "slidersite"));
    a->cranklength = m->cranklength;
    return a->slider >= 0;
}

/* The actuator's transmission: a hinge or slide joint, a fixed tendon or a slider-crank; 0 after
 * failing. */
static int actuator_target(mjcf *P, const xmlNode *el, const mj_actuator *m,
                           lucid_actuator_spec *a) {
    const char *name = (const char *)el->name;
    if (m->crank) return crank_target(P, el, m, a);
    if (m->slider) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<%s>: 'slidersite' needs a 'cranksite' (a slider-crank)", name);
        return 0;
    }
    const char *tn = m->tendon ? ATTR(m->tendon, "tendon") : NULL;
    if (tn) {
        a->joint = -1;
        a->tendon = lucid_model_spec_find_tendon(P->spec, tn);
        if (a->tendon < 0)
            lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s>: unknown tendon '%s'", name, tn);
        return a->tendon >= 0;
    }
    const char *jn = m->joint ? ATTR(m->joint, "joint") : NULL;
    if (!jn) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<%s>: missing 'joint', 'tendon' or 'cranksite' (the supported "
                             "transmissions)",
                             name);
        return 0;
    }
    a->joint = lucid_model_spec_find_joint(P->spec, jn);
    if (a->joint < 0) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s>: unknown joint '%s'", name, jn);
        return 0;
    }
    lucid_joint_kind jk = P->spec->joints[a->joint].kind;
    if (jk != LUCID_JOINT_REVOLUTE && jk != LUCID_JOINT_PRISMATIC) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<%s>: joint '%s' is not a hinge or slide joint", name, jn);
        return 0;
    }
    return 1;
}

/* The number of the spec's actuators with an activation (dyn integrator or filter). */
static size_t stateful_actuators(const lucid_model_spec *s) {
    size_t n = 0;
    for (size_t i = 0; i < s->nactuators; i++) n += s->actuators[i].dyn != LUCID_ACTUATOR_DYN_NONE;
    return n;
}

/* The actuator's dynamics and activation range (MuJoCo 2.2.2's compiler rules: an activation
 * range only with dynamics, stateless actuators before stateful ones, a filter's time
 * constant > 0 (MuJoCo would take 1e-15)); 0 after failing. */
static int actuator_dynamics(mjcf *P, const xmlNode *el, const mj_actuator *m,
                             lucid_actuator_spec *a) {
    const char *name = (const char *)el->name;
    if (!actuator_range(P, el, m->actlimited, m->actrange, "act", &a->act_limited, &a->act_lower,
                        &a->act_upper))
        return 0;
    a->dyn = m->dyntype == DYN_INTEGRATOR ? LUCID_ACTUATOR_DYN_INTEGRATOR
             : m->dyntype == DYN_FILTER   ? LUCID_ACTUATOR_DYN_FILTER
             : m->dyntype == DYN_MUSCLE   ? LUCID_ACTUATOR_DYN_MUSCLE
                                          : LUCID_ACTUATOR_DYN_NONE;
    a->muscle_tau[0] = m->dynprm[0], a->muscle_tau[1] = m->dynprm[1];
    if (a->act_limited && a->dyn == LUCID_ACTUATOR_DYN_NONE) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<%s>: an activation range (actlimited, actrange) needs dyntype "
                             "integrator, filter or muscle, not none",
                             name);
        return 0;
    }
    if (a->dyn == LUCID_ACTUATOR_DYN_NONE && stateful_actuators(P->spec) > 0) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<%s>: stateless actuators must come before stateful ones "
                             "(dyntype integrator, filter or muscle), as MuJoCo requires",
                             name);
        return 0;
    }
    a->timeconst = m->dynprm[0];
    if (a->dyn == LUCID_ACTUATOR_DYN_MUSCLE &&
        !(a->muscle_tau[0] > 0.0 && a->muscle_tau[1] > 0.0)) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<%s>: muscle dynamics need time constants > 0 (dynprm[0..1] or "
                             "timeconst; got %g, %g)",
                             name, a->muscle_tau[0], a->muscle_tau[1]);
        return 0;
    }
    if (a->dyn == LUCID_ACTUATOR_DYN_FILTER && !(a->timeconst > 0.0)) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<%s>: a filter needs a time constant > 0 (dynprm[0] or "
                             "timeconst; got %g)",
                             name, a->timeconst);
        return 0;
    }
    return 1;
}

/* A muscle gain or bias (gaintype/biastype muscle): its parameters and its length range, given
 * or left to the compiler to compute (<compiler><lengthrange>); 0 after failing. */
static int muscle_curves(mjcf *P, const xmlNode *el, const mj_actuator *m, lucid_actuator_spec *a) {
    a->gain_muscle = m->gaintype == PRM_MUSCLE, a->bias_muscle = m->biastype == PRM_MUSCLE;
    if (!a->gain_muscle && !a->bias_muscle) return 1;
    memcpy(a->gainprm, m->gainprm, sizeof a->gainprm);
    memcpy(a->biasprm, m->biasprm, sizeof a->biasprm);
    for (int k = 0; k < 2; k++) { /* MuJoCo's compiler checks, by name */
        const double *prm = k == 0 ? m->gainprm : m->biasprm;
        const char *why = NULL;
        if ((k == 0 ? !a->gain_muscle : !a->bias_muscle)) continue;
        if (!(prm[0] < prm[1]))
            why = "range[0] < range[1]";
        else if (!(prm[4] < 1.0 && prm[5] > 1.0))
            why = "lmin < 1 < lmax";
        else if (!(prm[3] > 0.0 && prm[6] > 0.0 && prm[7] > 0.0 && prm[8] > 0.0))
            why = "scale, vmax, fpmax and fvmax > 0";
        if (why) {
            lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s>: a muscle %s needs %s",
                                 (const char *)el->name, k == 0 ? "gain" : "bias", why);
            return 0;
        }
    }
    /* <compiler><lengthrange>: computed unless an existing valid one is kept (useexisting) */
    int given = m->lengthrange[0] < m->lengthrange[1];
    if (P->lr_mode_none && !given) { /* MuJoCo would keep the invalid range: refused */
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<%s>: a muscle needs 'lengthrange' (lower < upper) under "
                             "<compiler><lengthrange mode=\"none\">",
                             (const char *)el->name);
        return 0;
    }
    a->lengthrange_compute = !P->lr_mode_none && !(given && P->lr_useexisting);
    a->lengthrange_uselimit = P->lr_uselimit;
    a->lengthrange[0] = m->lengthrange[0], a->lengthrange[1] = m->lengthrange[1];
    return 1;
}

static lucid_status actuator(mjcf *P, const xmlNode *el) {
    int type = actuator_type(el);
    const char *name = (const char *)el->name;
    if (type < 0)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                    "<actuator>: actuator type <%s> is not supported (motor, "
                                    "position, velocity, damper, general, intvelocity, "
                                    "cylinder, muscle)",
                                    name);
    if (lucid_model_xml_check_attrs(X_, el, actuator_type_attrs[type])) return X_->status;
    int cls = element_class(P, el, -1);
    if (cls < 0) return X_->status;
    mj_actuator m;
    if (!class_actuator(P, cls, &m) || !apply_actuator(P, el, type, 0, &m)) return X_->status;
    if (m.foreign)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                    "<%s>: takes its gains from the <%s> default at line %ld, a "
                                    "type lucid does not read",
                                    name, (const char *)m.foreign->name,
                                    (long)lucid_model_xml_line(m.foreign));
    if (m.trn)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                    "<%s>: '%s' transmissions are not supported (only 'joint', "
                                    "'tendon' and 'cranksite')",
                                    name, m.trn_attr);
    if (m.dyntype == DYN_USER)
        return lucid_model_xml_fail(
            X_, el, LUCID_ERR_PARSE,
            "<%s>: dyntype=\"user\" is not supported (none, integrator, filter or muscle)", name);
    if (m.gaintype == PRM_USER || m.biastype == PRM_USER)
        return lucid_model_xml_fail(
            X_, el, LUCID_ERR_PARSE,
            "<%s>: %s=\"user\" is not supported (fixed/none, affine or muscle)", name,
            m.gaintype == PRM_USER ? "gaintype" : "biastype");
    lucid_actuator_spec a = lucid_actuator_spec_default();
    a.name = ATTR(el, "name");
    a.line = (int)lucid_model_xml_line(el);
    if (!actuator_target(P, el, &m, &a)) return X_->status;
    a.gear = m.gear[0];
    static const lucid_actuator_kind kinds[] = {LUCID_ACTUATOR_MOTOR,    LUCID_ACTUATOR_POSITION,
                                                LUCID_ACTUATOR_VELOCITY, LUCID_ACTUATOR_DAMPER,
                                                LUCID_ACTUATOR_GENERAL,  LUCID_ACTUATOR_INTVELOCITY,
                                                LUCID_ACTUATOR_CYLINDER, LUCID_ACTUATOR_MUSCLE};
    a.kind = kinds[type];
    a.kp = m.gainprm[0];
    a.kv = type == A_DAMPER ? -m.gainprm[2] : m.gainprm[0];
    /* MuJoCo's fixed gain reads gainprm[0] only; bias none reads nothing */
    for (int k = 0; k < 3; k++) {
        a.gain[k] = k == 0 || m.gaintype == PRM_AFFINE ? m.gainprm[k] : 0.0;
        a.bias[k] = m.biastype == PRM_AFFINE ? m.biasprm[k] : 0.0;
    }
    if (!muscle_curves(P, el, &m, &a)) return X_->status;
    if (!actuator_range(P, el, m.ctrllimited, m.ctrlrange, "ctrl", &a.ctrl_limited, &a.ctrl_lower,
                        &a.ctrl_upper) ||
        !actuator_range(P, el, m.forcelimited, m.forcerange, "force", &a.force_limited,
                        &a.force_lower, &a.force_upper) ||
        !actuator_dynamics(P, el, &m, &a))
        return X_->status;
    lucid_status st = lucid_model_spec_add_actuator(P->spec, &a, NULL);
    if (st) return lucid_model_xml_fail(X_, el, st, "<actuator>: %s", lucid_status_string(st));
    return LUCID_OK;
}

static const char *const exclude_attrs[] = {"name", "body1", "body2", NULL};

static int body_named(mjcf *P, const char *name) {
    if (strcmp(name, "world") == 0) return LUCID_MODEL_WORLD;
    int b = lucid_model_spec_find_body(P->spec, name);
    return b >= 0 ? b : -2;
}

/* The rigid body spec body b moves with (MuJoCo's weld body): itself when a joint moves it, else
 * its parent's; the world (LUCID_MODEL_WORLD) for the world and mocap bodies. */
static int weld_body(const lucid_model_spec *s, int b) {
    for (; b != LUCID_MODEL_WORLD && !s->bodies[b].mocap; b = s->bodies[b].parent)
        for (size_t j = 0; j < s->njoints; j++)
            if (s->joint_body[j] == b && s->joints[j].kind != LUCID_JOINT_FIXED) return b;
    return LUCID_MODEL_WORLD;
}

/* Whether a geom named `name` was dropped with its unreadable mesh (meshes = "skip"). */
static int skipped_geom(mjcf *P, const char *name) {
    for (size_t i = 0; i < P->skipped_geoms.n; i++) {
        const char *n = ATTR(P->skipped_geoms.items[i], "name");
        if (n && strcmp(n, name) == 0) return 1;
    }
    return 0;
}

/* The geom a <pair> names in attribute `attr`: its spec index, -1 when it was skipped with its
 * mesh, -2 after failing. */
static int pair_geom(mjcf *P, const xmlNode *el, const char *attr) {
    const char *name = ATTR(el, attr);
    if (!name) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<pair>: missing '%s'", attr);
        return -2;
    }
    int g = lucid_model_spec_find_geom(P->spec, name);
    if (g >= 0) return g;
    if (skipped_geom(P, name)) return -1;
    lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<pair>: unknown geom '%s'", name);
    return -2;
}

/* condim, friction (five numbers: two tangential, torsional, two rolling), margin and gap of a
 * <pair>, through its class; solref and solimp are read (checked) and ignored, as a geom's.
 * MuJoCo's defaults: condim 3, friction 1 1 0.005 0.0001 0.0001, margin = gap = 0 (not the
 * geoms'). 0 after failing. */
static int pair_parameters(mjcf *P, const xmlNode *el, int cls, lucid_pair_spec *p) {
    long condim = 3;
    const char *v = lookup(P, el, K_PAIR, cls, "condim");
    if (v && !lucid_model_xml_int(X_, el, "condim", v, LONG_MIN, LONG_MAX, &condim)) return 0;
    if (condim != 1 && condim != 3 && condim != 4 && condim != 6)
        return !lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                     "<pair> condim must be 1, 3, 4 or 6 (got %ld)", condim);
    double f[5] = {1.0, 1.0, 0.005, 0.0001, 0.0001}, sol[5];
    if (layered_reals(P, el, K_PAIR, cls, "friction", f, 5) < 0) return 0;
    for (int k = 0; k < 5; k++)
        if (f[k] < 0.0)
            return !lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<pair>: negative friction");
    /* lucid's cone is isotropic: MuJoCo's anisotropic pairs are refused where they matter */
    if (condim >= 3 && f[0] != f[1])
        return !lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                     "<pair> friction: the tangential coefficients %g and %g "
                                     "differ (anisotropic friction is not supported; MuJoCo "
                                     "keeps its default 1 for a second number not given)",
                                     f[0], f[1]);
    if (condim == 6 && f[3] != f[4])
        return !lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                     "<pair> friction: the rolling coefficients %g and %g differ "
                                     "(anisotropic rolling friction is not supported)",
                                     f[3], f[4]);
    double margin = 0.0, gap = 0.0;
    if (!real1(P, el, K_PAIR, cls, "margin", &margin) || !real1(P, el, K_PAIR, cls, "gap", &gap) ||
        reals(P, el, K_PAIR, cls, "solref", sol, 1, 2) < 0 ||
        reals(P, el, K_PAIR, cls, "solimp", sol, 1, 5) < 0)
        return 0;
    if (margin < 0.0 || gap < 0.0)
        return !lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                     "<pair>: margin and gap must be >= 0 (got %g, %g)", margin,
                                     gap);
    p->condim = (int)condim;
    p->friction = f[0], p->torsion = f[2] * P->scale, p->rolling = f[3] * P->scale;
    p->margin = margin * P->scale, p->gap = gap * P->scale;
    return 1;
}

/* <pair geom1 geom2>: the two geoms collide whatever the filters say, with the pair's
 * parameters (docs/model_files.md). A pair of geoms on one rigid body, whose contacts could
 * exert no force on it, or naming a geom skipped with its mesh, is skipped with a warning. */
static lucid_status pair(mjcf *P, const xmlNode *el) {
    if (lucid_model_xml_check_attrs(X_, el, pair_attrs)) return X_->status;
    int cls = element_class(P, el, -1);
    if (cls < 0) return X_->status;
    int g1 = pair_geom(P, el, "geom1"), g2 = g1 == -2 ? -2 : pair_geom(P, el, "geom2");
    if (g1 == -2 || g2 == -2) return X_->status;
    lucid_pair_spec p = {.name = ATTR(el, "name"), .geom1 = g1, .geom2 = g2};
    p.line = (int)lucid_model_xml_line(el);
    if (!pair_parameters(P, el, cls, &p)) return X_->status;
    if (g1 < 0 || g2 < 0) {
        lucid_model_xml_warn(X_, el, "<pair>: geom '%s' was skipped with its mesh: pair skipped",
                             ATTR(el, g1 < 0 ? "geom1" : "geom2"));
        return LUCID_OK;
    }
    if (g1 == g2)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                    "<pair>: geom1 and geom2 are the same geom '%s'",
                                    ATTR(el, "geom1"));
    const lucid_model_spec *s = P->spec;
    if (weld_body(s, s->geoms[g1].body) == weld_body(s, s->geoms[g2].body)) {
        lucid_model_xml_warn(X_, el,
                             "<pair>: geoms '%s' and '%s' are on one rigid body (welded bodies "
                             "or the world): their contacts exert no force on it; pair skipped",
                             ATTR(el, "geom1"), ATTR(el, "geom2"));
        return LUCID_OK;
    }
    for (size_t k = 0; k < s->npairs; k++) /* the compiler refuses it too, without names */
        if ((s->pairs[k].geom1 == g1 && s->pairs[k].geom2 == g2) ||
            (s->pairs[k].geom1 == g2 && s->pairs[k].geom2 == g1))
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<pair>: geoms '%s' and '%s' already make the pair of "
                                        "line %d (MuJoCo would collide them twice)",
                                        ATTR(el, "geom1"), ATTR(el, "geom2"), s->pairs[k].line);
    lucid_status st = lucid_model_spec_add_pair(P->spec, &p, NULL);
    if (st) lucid_model_xml_fail(X_, el, st, "<pair>: %s", lucid_status_string(st));
    return X_->status;
}

/* One child of <contact>: an <exclude body1 body2> or a <pair geom1 geom2>. */
static lucid_status contact(mjcf *P, const xmlNode *c) {
    if (IS(c, "pair")) return pair(P, c);
    if (!IS(c, "exclude"))
        return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<contact>: <%s> is not supported",
                                    (const char *)c->name);
    if (lucid_model_xml_check_attrs(X_, c, exclude_attrs)) return X_->status;
    const char *n1 = ATTR(c, "body1"), *n2 = ATTR(c, "body2");
    if (!n1 || !n2)
        return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<exclude>: missing body1 or body2");
    int b1 = body_named(P, n1), b2 = body_named(P, n2);
    if (b1 == -2 || b2 == -2)
        return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<exclude>: unknown body '%s'",
                                    b1 == -2 ? n1 : n2);
    lucid_status st = lucid_model_spec_add_exclude(P->spec, b1, b2);
    if (st) lucid_model_xml_fail(X_, c, st, "<exclude>: %s", lucid_status_string(st));
    return X_->status;
}

/* ---- <equality> ----------------------------------------------------------------------------- */

#define EQUALITY_COMMON "name", "class", "active", "solref", "solimp"
static const char *const connect_attrs[] = {EQUALITY_COMMON, "body1", "body2", "anchor", NULL};
static const char *const weld_attrs[] = {EQUALITY_COMMON, "body1",       "body2", "anchor",
                                         "relpose",       "torquescale", NULL};
static const char *const joint_eq_attrs[] = {EQUALITY_COMMON, "joint1", "joint2", "polycoef", NULL};
static const char *const tendon_eq_attrs[] = {EQUALITY_COMMON, "tendon1", "tendon2", "polycoef",
                                              NULL};

/* body1 (required) and body2 (default: the world) of a connect or weld; 0 after failing. */
static int equality_bodies(mjcf *P, const xmlNode *el, lucid_equality_spec *e) {
    const char *n1 = ATTR(el, "body1"), *n2 = ATTR(el, "body2");
    if (!n1)
        return !lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s>: missing body1",
                                     (const char *)el->name);
    e->body1 = body_named(P, n1);
    e->body2 = n2 ? body_named(P, n2) : LUCID_MODEL_WORLD;
    if (e->body1 == -2 || e->body2 == -2)
        return !lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s>: unknown body '%s'",
                                     (const char *)el->name, e->body1 == -2 ? n1 : n2);
    return 1;
}

/* A spec joint by name, -1 after failing. */
static int equality_joint(mjcf *P, const xmlNode *el, const char *name) {
    int j = lucid_model_spec_find_joint(P->spec, name);
    if (j < 0) lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<joint>: unknown joint '%s'", name);
    return j;
}

/* joint1, joint2 and polycoef (exactly 5 numbers, as MuJoCo 2.2.2 reads it), rescaled to the
 * loader's length unit on slide joints: c_k' = u1 c_k / u2^k. */
static int equality_joints(mjcf *P, const xmlNode *el, lucid_equality_spec *e) {
    const char *n1 = ATTR(el, "joint1"), *n2 = ATTR(el, "joint2");
    if (!n1) return !lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<joint>: missing joint1");
    if ((e->joint1 = equality_joint(P, el, n1)) < 0) return 0;
    if (n2 && (e->joint2 = equality_joint(P, el, n2)) < 0) return 0;
    if (reals(P, el, -1, -1, "polycoef", e->polycoef, 5, 5) < 0) return 0;
    double u1 = P->spec->joints[e->joint1].kind == LUCID_JOINT_PRISMATIC ? P->scale : 1.0;
    double u2 = n2 && P->spec->joints[e->joint2].kind == LUCID_JOINT_PRISMATIC ? P->scale : 1.0;
    for (int k = 0; k < 5; ++k) e->polycoef[k] *= u1 / pow(u2, k);
    return 1;
}

/* A spec tendon by name, -1 after failing. */
static int equality_tendon(mjcf *P, const xmlNode *el, const char *name) {
    int t = lucid_model_spec_find_tendon(P->spec, name);
    if (t < 0) lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<tendon>: unknown tendon '%s'", name);
    return t;
}

/* tendon1, tendon2 and polycoef (exactly 5 numbers, as for <joint>); the lengths are read in
 * the tendons' own units, unscaled, as their ranges are. */
static int equality_tendons(mjcf *P, const xmlNode *el, lucid_equality_spec *e) {
    const char *n1 = ATTR(el, "tendon1"), *n2 = ATTR(el, "tendon2");
    if (!n1) return !lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<tendon>: missing tendon1");
    if ((e->tendon1 = equality_tendon(P, el, n1)) < 0) return 0;
    if (n2 && (e->tendon2 = equality_tendon(P, el, n2)) < 0) return 0;
    return reals(P, el, -1, -1, "polycoef", e->polycoef, 5, 5) >= 0;
}

/* weld's anchor, relpose (a zero quaternion: the relative pose at qpos0, MuJoCo's rule) and
 * torquescale. */
static int equality_weld(mjcf *P, const xmlNode *el, lucid_equality_spec *e) {
    double r[7];
    int n = reals(P, el, -1, -1, "relpose", r, 7, 7);
    if (n < 0 || !real1(P, el, -1, -1, "torquescale", &e->torquescale)) return 0;
    if (!(e->torquescale >= 0.0) || !isfinite(e->torquescale))
        return !lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                     "<weld>: torquescale must be >= 0 and finite");
    if (n == 7 && (r[3] != 0.0 || r[4] != 0.0 || r[5] != 0.0 || r[6] != 0.0)) {
        lucid_quat q = {r[3], r[4], r[5], r[6]};
        if (!lucid_quat_normalize(&q))
            return !lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<weld>: bad relpose quaternion");
        e->relpose = lucid_se3_make(lucid_quat_to_mat3(q),
                                    lucid_vec3_scale(lucid_vec3_make(r[0], r[1], r[2]), P->scale));
        e->has_relpose = 1;
    }
    return 1;
}

/* One equality element; solref and solimp are read (checked) and ignored with a warning: the
 * world's equality rows are hard. */
static lucid_status equality_one(mjcf *P, const xmlNode *c) {
    static const char *const kinds[] = {"connect", "weld", "joint", "tendon", NULL};
    static const char *const *const eq_attrs[] = {connect_attrs, weld_attrs, joint_eq_attrs,
                                                  tendon_eq_attrs};
    int k = 0;
    while (kinds[k] && !IS(c, kinds[k])) k++;
    if (!kinds[k]) {
        const char *why = IS(c, "distance") ? " (nor by MuJoCo 2.2.2, which removed distance "
                                              "constraints and refuses them)"
                                            : "";
        return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<equality>: <%s> is not supported%s",
                                    (const char *)c->name, why);
    }
    if (lucid_model_xml_check_attrs(X_, c, eq_attrs[k])) return X_->status;
    lucid_equality_spec e = lucid_equality_spec_default((lucid_equality_kind)k);
    e.name = ATTR(c, "name");
    e.line = c->line;
    const char *v = ATTR(c, "active");
    if (v && (e.active = lucid_model_xml_bool(X_, c, "active", v)) < 0) return X_->status;
    double sol[5];
    int nref = reals(P, c, -1, -1, "solref", sol, 2, 2), nimp = 0;
    if (nref >= 0) nimp = reals(P, c, -1, -1, "solimp", sol, 3, 5);
    if (nref < 0 || nimp < 0) return X_->status;
    if (nref > 0 || nimp > 0)
        lucid_model_xml_warn(X_, c,
                             "<%s>: solref/solimp ignored: lucid's equality constraints are hard "
                             "(exact rows, no softness)",
                             kinds[k]);
    if (k == LUCID_EQUALITY_TENDON) {
        if (!equality_tendons(P, c, &e)) return X_->status;
    } else if (k != LUCID_EQUALITY_JOINT) {
        if (!equality_bodies(P, c, &e)) return X_->status;
        double a[3] = {0.0, 0.0, 0.0};
        int n = reals(P, c, -1, -1, "anchor", a, 3, 3);
        if (n < 0) return X_->status;
        if (n == 0 && k == LUCID_EQUALITY_CONNECT)
            return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<connect>: missing anchor");
        e.anchor = lucid_vec3_scale(lucid_vec3_make(a[0], a[1], a[2]), P->scale);
        if (k == LUCID_EQUALITY_WELD && !equality_weld(P, c, &e)) return X_->status;
    } else if (!equality_joints(P, c, &e)) {
        return X_->status;
    }
    lucid_status st = lucid_model_spec_add_equality(P->spec, &e, NULL);
    if (st) lucid_model_xml_fail(X_, c, st, "<equality>: %s", lucid_status_string(st));
    return X_->status;
}

static lucid_status equality(mjcf *P, const xmlNode *el) {
    static const char *const none[] = {NULL};
    if (lucid_model_xml_check_attrs(X_, el, none)) return X_->status;
    return each_child(P, el, equality_one);
}

/* ---- <tendon> ------------------------------------------------------------------------------- */

static const char *const tendon_joint_attrs[] = {"joint", "coef", NULL};

/* The <joint joint= coef=> children of a <fixed> tendon into t (arrays grown by realloc, owned
 * by the caller); 0 after failing. */
static int fixed_joints(mjcf *P, const xmlNode *el, lucid_tendon_spec *t) {
    node_list kids = {0};
    if (collect(P, el, &kids, 0)) goto fail;
    for (size_t i = 0; i < kids.n; i++) {
        const xmlNode *c = kids.items[i];
        if (!IS(c, "joint")) {
            lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE,
                                 "<fixed>: <%s> is not a tendon element "
                                 "(a fixed tendon lists <joint joint=\"...\" coef=\"...\"/>)",
                                 (const char *)c->name);
            goto fail;
        }
        if (lucid_model_xml_check_attrs(X_, c, tendon_joint_attrs)) goto fail;
        const char *jn = ATTR(c, "joint");
        double coef;
        if (!jn || !ATTR(c, "coef")) {
            lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<fixed> <joint>: missing '%s'",
                                 jn ? "coef" : "joint");
            goto fail;
        }
        if (!real1(P, c, -1, 0, "coef", &coef)) goto fail;
        int j = lucid_model_spec_find_joint(P->spec, jn);
        if (j < 0) {
            lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<fixed> <joint>: unknown joint '%s'", jn);
            goto fail;
        }
        lucid_joint_kind jk = P->spec->joints[j].kind;
        if (jk != LUCID_JOINT_REVOLUTE && jk != LUCID_JOINT_PRISMATIC) {
            lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE,
                                 "<fixed> <joint>: joint '%s' is not a hinge or slide joint", jn);
            goto fail;
        }
        int *js = realloc(t->joints, (t->n + 1) * sizeof *js);
        if (js) t->joints = js;
        double *cs = js ? realloc(t->coef, (t->n + 1) * sizeof *cs) : NULL;
        if (cs) t->coef = cs;
        if (!js || !cs) {
            lucid_model_xml_fail(X_, c, LUCID_ERR_NO_MEMORY, "out of memory");
            goto fail;
        }
        t->joints[t->n] = j, t->coef[t->n] = coef, t->n++;
    }
    free(kids.items);
    return 1;
fail:
    free(kids.items);
    return 0;
}

/* The values of a <fixed> or <spatial> tendon (its own, else its class's <tendon> default); 0
 * after failing. */
static int tendon_values(mjcf *P, const xmlNode *el, int cls, lucid_tendon_spec *t) {
    const char *kind = (const char *)el->name;
    double r[2];
    int nr = reals(P, el, K_TENDON, cls, "range", r, 2, 2);
    if (nr < 0) return 0;
    int lim = limited_flag(P, el, K_TENDON, cls, "limited", nr == 2);
    if (lim < 0) return 0;
    if (lim) {
        if (nr != 2) {
            lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s>: limited without a 'range'", kind);
            return 0;
        }
        if (!(r[0] < r[1])) {
            lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                 "<%s>: range lower %g is not below upper %g", kind, r[0], r[1]);
            return 0;
        }
        t->limited = 1, t->lower = r[0], t->upper = r[1];
    }
    if (!real1(P, el, K_TENDON, cls, "stiffness", &t->stiffness) ||
        !real1(P, el, K_TENDON, cls, "damping", &t->damping) ||
        !real1(P, el, K_TENDON, cls, "frictionloss", &t->frictionloss) ||
        !real1(P, el, K_TENDON, cls, "margin", &t->margin))
        return 0;
    double spring = -1.0; /* MuJoCo's sentinel: a negative springlength means "at qpos_spring" */
    if (!real1(P, el, K_TENDON, cls, "springlength", &spring)) return 0;
    if (spring >= 0.0) t->springlength = spring;
    if (t->stiffness < 0.0 || t->damping < 0.0 || t->frictionloss < 0.0 || t->margin < 0.0) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                             "<%s>: negative stiffness, damping, frictionloss or margin", kind);
        return 0;
    }
    return 1;
}

/* One <fixed> tendon into the spec. */
static lucid_status fixed_tendon(mjcf *P, const xmlNode *el) {
    if (lucid_model_xml_check_attrs(X_, el, fixed_attrs)) return X_->status;
    int cls = element_class(P, el, -1);
    if (cls < 0) return X_->status;
    lucid_tendon_spec t = lucid_tendon_spec_default();
    t.name = ATTR(el, "name");
    t.line = (int)lucid_model_xml_line(el);
    if (t.name && lucid_model_spec_find_tendon(P->spec, t.name) >= 0)
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<fixed>: tendon '%s' defined twice", t.name);
    else if (tendon_values(P, el, cls, &t) && fixed_joints(P, el, &t)) {
        lucid_status st = t.n ? lucid_model_spec_add_tendon(P->spec, &t, NULL) : LUCID_OK;
        if (!t.n)
            lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<fixed>: a fixed tendon needs joints");
        else if (st)
            lucid_model_xml_fail(X_, el, st, "<fixed>: %s", lucid_status_string(st));
    }
    free(t.joints), free(t.coef);
    return X_->status;
}

static const char *const spatial_site_attrs[] = {"site", NULL};
static const char *const spatial_geom_attrs[] = {"geom", "sidesite", NULL};
static const char *const spatial_pulley_attrs[] = {"divisor", NULL};

/* The spec frame (MJCF site) named name, -1 if none. */
static int find_site(const mjcf *P, const char *name) {
    for (size_t i = 0; i < P->spec->nframes; i++)
        if (P->spec->frames[i].name && strcmp(P->spec->frames[i].name, name) == 0) return (int)i;
    return -1;
}

static int find_geom(const mjcf *P, const char *name) {
    for (size_t i = 0; i < P->spec->ngeoms; i++)
        if (P->spec->geoms[i].name && strcmp(P->spec->geoms[i].name, name) == 0) return (int)i;
    return -1;
}

/* One child of a <spatial> tendon into e: <site site>, <geom geom [sidesite]> (a sphere or a
 * cylinder) or <pulley divisor>; 0 after failing. */
static int spatial_element(mjcf *P, const xmlNode *c, lucid_tendon_path_spec *e) {
    e->line = (int)lucid_model_xml_line(c), e->side = -1, e->index = -1, e->divisor = 0.0;
    if (IS(c, "site")) {
        if (lucid_model_xml_check_attrs(X_, c, spatial_site_attrs)) return 0;
        const char *n = ATTR(c, "site");
        if (!n) return !lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<site>: missing 'site'");
        e->kind = LUCID_TENDON_PATH_SITE, e->index = find_site(P, n);
        if (e->index < 0)
            return !lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<site>: unknown site '%s'", n);
        return 1;
    }
    if (IS(c, "geom")) {
        if (lucid_model_xml_check_attrs(X_, c, spatial_geom_attrs)) return 0;
        const char *n = ATTR(c, "geom"), *side = ATTR(c, "sidesite");
        if (!n) return !lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<geom>: missing 'geom'");
        e->kind = LUCID_TENDON_PATH_GEOM, e->index = find_geom(P, n);
        if (e->index < 0)
            return !lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<geom>: unknown geom '%s'", n);
        lucid_shape_kind k = P->spec->geoms[e->index].shape.kind;
        if (k != LUCID_SHAPE_SPHERE && k != LUCID_SHAPE_CYLINDER)
            return !lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE,
                                         "<geom>: geom '%s' is a %s: a tendon wraps around "
                                         "spheres and cylinders only",
                                         n, lucid_shape_kind_name(k));
        if (side && (e->side = find_site(P, side)) < 0)
            return !lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<geom>: unknown sidesite '%s'",
                                         side);
        return 1;
    }
    if (IS(c, "pulley")) {
        if (lucid_model_xml_check_attrs(X_, c, spatial_pulley_attrs)) return 0;
        e->kind = LUCID_TENDON_PATH_PULLEY;
        if (!ATTR(c, "divisor"))
            return !lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<pulley>: missing 'divisor'");
        if (!real1(P, c, -1, 0, "divisor", &e->divisor)) return 0;
        if (!(e->divisor > 0.0))
            return !lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE,
                                         "<pulley>: divisor must be > 0 (got %g)", e->divisor);
        return 1;
    }
    return !lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE,
                                 "<spatial>: <%s> is not a tendon element (a spatial tendon "
                                 "lists <site>, <geom> and <pulley>)",
                                 (const char *)c->name);
}

/* One <spatial> tendon into the spec: its path, checked against MuJoCo's rules. */
static lucid_status spatial_tendon(mjcf *P, const xmlNode *el) {
    if (lucid_model_xml_check_attrs(X_, el, spatial_attrs)) return X_->status;
    int cls = element_class(P, el, -1);
    if (cls < 0) return X_->status;
    lucid_tendon_spec t = lucid_tendon_spec_default();
    t.name = ATTR(el, "name");
    t.line = (int)lucid_model_xml_line(el);
    node_list kids = {0};
    if (t.name && lucid_model_spec_find_tendon(P->spec, t.name) >= 0) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<spatial>: tendon '%s' defined twice",
                             t.name);
    } else if (tendon_values(P, el, cls, &t) && !collect(P, el, &kids, 0)) {
        t.path = kids.n ? calloc(kids.n, sizeof *t.path) : NULL;
        if (kids.n && !t.path) lucid_model_xml_fail(X_, el, LUCID_ERR_NO_MEMORY, "out of memory");
        for (size_t i = 0; t.path && i < kids.n; i++, t.npath++)
            if (!spatial_element(P, kids.items[i], &t.path[i])) break;
        size_t k = 0;
        const char *why = X_->status ? NULL : lucid_tendon_path_problem(&t, &k);
        if (why)
            lucid_model_xml_fail(X_, k < kids.n ? kids.items[k] : el, LUCID_ERR_PARSE,
                                 "<spatial>: %s", why);
        if (!X_->status) {
            lucid_status st = lucid_model_spec_add_tendon(P->spec, &t, NULL);
            if (st) lucid_model_xml_fail(X_, el, st, "<spatial>: %s", lucid_status_string(st));
        }
    }
    free(kids.items);
    free(t.path);
    return X_->status;
}

/* One child of <tendon>: a fixed or a spatial tendon. */
static lucid_status tendon(mjcf *P, const xmlNode *c) {
    if (IS(c, "fixed")) return fixed_tendon(P, c);
    if (IS(c, "spatial")) return spatial_tendon(P, c);
    return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<tendon>: <%s> is not supported",
                                (const char *)c->name);
}

/* <tendon>: fixed and spatial tendons. */
static lucid_status tendons(mjcf *P, const xmlNode *el) {
    static const char *const none[] = {NULL};
    if (lucid_model_xml_check_attrs(X_, el, none)) return X_->status;
    return each_child(P, el, tendon);
}

/* ---- <sensor> -------------------------------------------------------------------------------- */

/* The sensor kinds lucid computes (model.h), by MJCF element name; -1 for any other. */
static int sensor_kind(const xmlNode *el) {
    for (int k = 0; k < LUCID_SENSOR_KIND_COUNT; k++)
        if (IS(el, lucid_sensor_kind_name((lucid_sensor_kind)k))) return k;
    return -1;
}

/* MuJoCo 2.2.2's other sensor elements: read and skipped with a warning (a sensor changes no
 * physics, so the model still loads); any other element name is an error. */
static int mujoco_sensor(const xmlNode *el) {
    static const char *const kinds[] = {
        "touch",          "magnetometer",   "rangefinder",    "tendonpos",
        "tendonvel",      "actuatorpos",    "actuatorvel",    "ballquat",
        "ballangvel",     "jointlimitpos",  "jointlimitvel",  "jointlimitfrc",
        "tendonlimitpos", "tendonlimitvel", "tendonlimitfrc", "framexaxis",
        "frameyaxis",     "framezaxis",     "framelinvel",    "frameangvel",
        "framelinacc",    "frameangacc",    "subtreecom",     "subtreelinvel",
        "subtreeangmom",  "clock",          "user",           NULL};
    for (int k = 0; kinds[k]; k++)
        if (IS(el, kinds[k])) return 1;
    return 0;
}

/* Warns that sensor el is skipped, and why: w:sensors leaves it out. */
static void skip_sensor(mjcf *P, const xmlNode *el, const char *why) {
    lucid_model_xml_warn(X_, el,
                         "<%s>: skipped (%s): w:sensors leaves it out, so later sensors' values "
                         "sit earlier than in MuJoCo's sensordata (m:sensors() gives each adr)",
                         (const char *)el->name, why);
}

/* A frame sensor's objtype: 0 xbody (the body frame), 1 site; -2 for body, geom and camera
 * (skipped with a warning: lucid keeps no inertial frames, and MuJoCo may re-centre mesh
 * geoms); -1 after failing. */
static int sensor_objtype(mjcf *P, const xmlNode *el) {
    const char *t = ATTR(el, "objtype");
    if (!t) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s>: missing 'objtype'",
                             (const char *)el->name);
        return -1;
    }
    if (strcmp(t, "xbody") == 0) return 0;
    if (strcmp(t, "site") == 0) return 1;
    if (strcmp(t, "body") == 0 || strcmp(t, "geom") == 0 || strcmp(t, "camera") == 0) return -2;
    lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s>: unknown objtype '%s'",
                         (const char *)el->name, t);
    return -1;
}

/* 1 when the site named `name` sits on a body that has no joint of its own (the world, or a
 * body welded to its parent): lucid merges such a body into its parent's, so the wrench its
 * weld transmits (MuJoCo's force and torque there) is not computed. 0 otherwise (or no such
 * site yet: the compiler names a missing one). */
static int site_on_welded_body(const mjcf *P, const char *name) {
    const lucid_model_spec *s = P->spec;
    for (size_t i = 0; i < s->nframes; i++) {
        if (!s->frames[i].name || strcmp(s->frames[i].name, name) != 0) continue;
        for (size_t j = 0; j < s->njoints; j++)
            if (s->joint_body[j] == s->frames[i].body) return 0;
        return 1;
    }
    return 0;
}

/* One <sensor> child of a kind lucid computes. */
static lucid_status sensor(mjcf *P, const xmlNode *el, lucid_sensor_kind kind) {
    static const char *const joint_attrs_[] = {"name", "noise", "cutoff", "user", "joint", NULL};
    static const char *const act_attrs_[] = {"name", "noise", "cutoff", "user", "actuator", NULL};
    static const char *const frame_attrs_[] = {"name",    "noise",   "cutoff",  "user", "objtype",
                                               "objname", "reftype", "refname", NULL};
    static const char *const site_attrs_[] = {"name", "noise", "cutoff", "user", "site", NULL};
    int wrench = kind == LUCID_SENSOR_FORCE || kind == LUCID_SENSOR_TORQUE;
    int on_site = kind == LUCID_SENSOR_GYRO || kind == LUCID_SENSOR_VELOCIMETER ||
                  kind == LUCID_SENSOR_ACCELEROMETER || kind == LUCID_SENSOR_TOUCH || wrench;
    int on_frame = kind == LUCID_SENSOR_FRAMEPOS || kind == LUCID_SENSOR_FRAMEQUAT;
    const char *const *allowed = kind == LUCID_SENSOR_ACTUATORFRC ? act_attrs_
                                 : on_frame                       ? frame_attrs_
                                 : on_site                        ? site_attrs_
                                                                  : joint_attrs_;
    if (lucid_model_xml_check_attrs(X_, el, allowed)) return X_->status;
    lucid_sensor_spec S = {0};
    S.name = ATTR(el, "name");
    S.kind = kind;
    S.line = (int)lucid_model_xml_line(el);
    const char *what = kind == LUCID_SENSOR_ACTUATORFRC ? "actuator"
                       : on_frame                       ? "objname"
                       : on_site                        ? "site"
                                                        : "joint";
    S.object = ATTR(el, what);
    if (!S.object)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s>: missing '%s'",
                                    (const char *)el->name, what);
    S.objtype = on_site ? 1 : 0;
    if (on_frame && (S.objtype = sensor_objtype(P, el)) == -1) return X_->status;
    if (S.objtype == -2) {
        skip_sensor(P, el, "objtype body, geom and camera are not computed: xbody and site are");
        return LUCID_OK;
    }
    if (wrench && site_on_welded_body(P, S.object)) {
        skip_sensor(P, el, "the site's body has no joint: lucid merges it into its parent");
        return LUCID_OK;
    }
    if (on_frame && (ATTR(el, "reftype") || ATTR(el, "refname"))) {
        skip_sensor(P, el, "frame sensors relative to another frame are not computed");
        return LUCID_OK;
    }
    if (!real1(P, el, -1, -1, "noise", &S.noise) || !real1(P, el, -1, -1, "cutoff", &S.cutoff))
        return X_->status;
    if (!(S.noise >= 0.0) || !(S.cutoff >= 0.0))
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s>: noise and cutoff must be >= 0",
                                    (const char *)el->name);
    if (S.noise > 0.0 || S.cutoff > 0.0)
        lucid_model_xml_warn(X_, el, "<%s>: noise and cutoff are stored, not applied",
                             (const char *)el->name);
    lucid_status st = lucid_model_spec_add_sensor(P->spec, &S, NULL);
    if (st)
        return lucid_model_xml_fail(X_, el, st, "<%s>: %s", (const char *)el->name,
                                    lucid_status_string(st));
    return LUCID_OK;
}

/* One child of <sensor>: a kind lucid computes; MuJoCo's others are skipped with a warning. */
static lucid_status sensor_element(mjcf *P, const xmlNode *c) {
    int k = sensor_kind(c);
    if (k >= 0) return sensor(P, c, (lucid_sensor_kind)k);
    if (mujoco_sensor(c))
        skip_sensor(P, c,
                    "lucid computes jointpos, jointvel, actuatorfrc, framepos, framequat, "
                    "gyro, velocimeter, accelerometer, force, torque and touch");
    else
        lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<sensor>: unknown sensor <%s>",
                             (const char *)c->name);
    return X_->status;
}

/* <sensor>: its children. */
static lucid_status sensors(mjcf *P, const xmlNode *el) {
    static const char *const none[] = {NULL};
    if (lucid_model_xml_check_attrs(X_, el, none)) return X_->status;
    return each_child(P, el, sensor_element);
}

/* ---- <keyframe> ------------------------------------------------------------------------------ */

static const char *const key_attrs[] = {"name", "time",  "qpos", "qvel", "act",
                                        "mpos", "mquat", "ctrl", NULL};

/* MuJoCo's nq and nv of the spec's joints (every MJCF joint kind). */
static void mujoco_sizes(const lucid_model_spec *s, size_t *nq, size_t *nv) {
    *nq = *nv = 0;
    for (size_t j = 0; j < s->njoints; j++) {
        lucid_joint_kind k = s->joints[j].kind;
        *nq += k == LUCID_JOINT_FREE ? 7 : k == LUCID_JOINT_SPHERICAL ? 4 : 1;
        *nv += k == LUCID_JOINT_FREE ? 6 : k == LUCID_JOINT_SPHERICAL ? 3 : 1;
    }
}

/* Attribute attr of <key> as exactly n numbers into a new array (*out NULL when absent); 0
 * after failing. */
static int key_values(mjcf *P, const xmlNode *el, const char *attr, size_t n, double **out) {
    *out = NULL;
    const char *v = ATTR(el, attr);
    if (!v) return 1;
    if (n == 0 || n > INT_MAX) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<key> %s: the model has %zu of them", attr,
                             n);
        return 0;
    }
    *out = malloc(n * sizeof **out);
    if (!*out) {
        lucid_model_xml_fail(X_, el, LUCID_ERR_NO_MEMORY, "out of memory");
        return 0;
    }
    return lucid_model_xml_reals(X_, el, attr, v, *out, (int)n, (int)n) == (int)n;
}

/* Lengths times the scale option: free joints' positions and linear velocities, slide joints'
 * coordinates and velocities (x: qpos when nq_joint(free) is 7, qvel when 6). */
static void key_scale(mjcf *P, double *x, int free_dims) {
    for (size_t j = 0; j < P->spec->njoints; j++) {
        lucid_joint_kind k = P->spec->joints[j].kind;
        if (k == LUCID_JOINT_FREE) {
            for (int i = 0; i < 3; i++) x[i] *= P->scale;
            x += free_dims;
        } else if (k == LUCID_JOINT_SPHERICAL) {
            x += free_dims == 7 ? 4 : 3;
        } else {
            if (k == LUCID_JOINT_PRISMATIC) x[0] *= P->scale;
            x += 1;
        }
    }
}

static lucid_status key(mjcf *P, const xmlNode *el) {
    if (!IS(el, "key"))
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<keyframe>: unsupported element <%s>",
                                    (const char *)el->name);
    if (lucid_model_xml_check_attrs(X_, el, key_attrs)) return X_->status;
    double time;
    if (reals(P, el, -1, 0, "time", &time, 1, 1) < 0) return X_->status;
    size_t nq, nv;
    mujoco_sizes(P->spec, &nq, &nv);
    size_t nmocap = 0;
    for (size_t b = 0; b < P->spec->nbodies; b++) nmocap += P->spec->bodies[b].mocap != 0;
    size_t na = stateful_actuators(P->spec);
    lucid_keyframe_spec k = {.name = ATTR(el, "name"), .line = (int)lucid_model_xml_line(el)};
    if (key_values(P, el, "qpos", nq, &k.qpos) && key_values(P, el, "qvel", nv, &k.qvel) &&
        key_values(P, el, "ctrl", P->spec->nactuators, &k.ctrl) &&
        key_values(P, el, "act", na, &k.act) && key_values(P, el, "mpos", 3 * nmocap, &k.mpos) &&
        key_values(P, el, "mquat", 4 * nmocap, &k.mquat)) {
        k.nqpos = k.qpos ? nq : 0, k.nqvel = k.qvel ? nv : 0;
        k.nctrl = k.ctrl ? P->spec->nactuators : 0, k.nact = k.act ? na : 0;
        k.nmpos = k.mpos ? 3 * nmocap : 0, k.nmquat = k.mquat ? 4 * nmocap : 0;
        if (k.qpos) key_scale(P, k.qpos, 7);
        if (k.qvel) key_scale(P, k.qvel, 6);
        for (size_t i = 0; i < k.nmpos; i++) k.mpos[i] *= P->scale;
        lucid_status st = lucid_model_spec_add_keyframe(P->spec, &k, NULL);
        if (st) lucid_model_xml_fail(X_, el, st, "<key>: %s", lucid_status_string(st));
    }
    free(k.qpos), free(k.qvel), free(k.ctrl), free(k.act), free(k.mpos), free(k.mquat);
    return X_->status;
}

static lucid_status keyframe(mjcf *P, const xmlNode *el) {
    static const char *const none[] = {NULL};
    if (lucid_model_xml_check_attrs(X_, el, none)) return X_->status;
    return each_child(P, el, key);
}

/* ---- the document ---------------------------------------------------------------------------- */

static const char *const mujoco_attrs[] = {"model", NULL};

static lucid_status model(mjcf *P, const xmlNode *root) {
    if (lucid_model_xml_check_attrs(X_, root, mujoco_attrs)) return X_->status;
    const char *name = ATTR(root, "model");
    if (name) {
        size_t n = strlen(name) + 1;
        P->spec->name = malloc(n);
        if (!P->spec->name)
            return lucid_model_xml_fail(X_, root, LUCID_ERR_NO_MEMORY, "out of memory");
        memcpy(P->spec->name, name, n);
    }
    node_list top = {0};
    if (collect(P, root, &top, 0)) goto done;
    /* compiler and option settings first: they apply to the whole file */
    for (size_t i = 0; i < top.n && !X_->status; i++) {
        const xmlNode *c = top.items[i];
        if (IS(c, "compiler"))
            compiler(P, c);
        else if (IS(c, "option"))
            option(P, c);
    }
    for (size_t i = 0; i < top.n && !X_->status; i++)
        if (IS(top.items[i], "default")) default_class(P, top.items[i], -1);
    if (!X_->status && class_index(P, "main") < 0) {
        /* no <default>: an empty main class */
        P->classes = calloc(1, sizeof *P->classes);
        if (!P->classes) {
            lucid_model_xml_fail(X_, root, LUCID_ERR_NO_MEMORY, "out of memory");
            goto done;
        }
        P->nclasses = P->cap_classes = 1;
        P->classes[0].name = "main";
        P->classes[0].parent = -1;
    }
    for (size_t i = 0; i < top.n && !X_->status; i++)
        if (IS(top.items[i], "asset")) each_child(P, top.items[i], asset);
    for (size_t i = 0; i < top.n && !X_->status; i++) {
        const xmlNode *c = top.items[i];
        if (!IS(c, "worldbody")) continue;
        static const char *const none[] = {NULL};
        if (lucid_model_xml_check_attrs(X_, c, none)) break;
        body_contents(P, c, LUCID_MODEL_WORLD, -1);
    }
    /* tendons before actuators, which may name them */
    for (size_t i = 0; i < top.n && !X_->status; i++)
        if (IS(top.items[i], "tendon")) tendons(P, top.items[i]);
    for (size_t i = 0; i < top.n && !X_->status; i++) {
        const xmlNode *c = top.items[i];
        if (IS(c, "contact")) {
            each_child(P, c, contact);
        } else if (IS(c, "equality")) {
            equality(P, c);
        } else if (IS(c, "sensor")) {
            sensors(P, c);
        } else if (IS(c, "actuator")) {
            each_child(P, c, actuator);
        } else if (!IS(c, "compiler") && !IS(c, "option") && !IS(c, "default") && !IS(c, "asset") &&
                   !IS(c, "worldbody") && !IS(c, "size") && !IS(c, "visual") &&
                   !IS(c, "statistic") && !IS(c, "custom") && !IS(c, "keyframe") &&
                   !IS(c, "tendon")) {
            lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<mujoco>: <%s> is not supported",
                                 (const char *)c->name);
        }
    }
    /* keyframes last: their sizes are the model's (joints and actuators) */
    for (size_t i = 0; i < top.n && !X_->status; i++)
        if (IS(top.items[i], "keyframe")) keyframe(P, top.items[i]);
done:
    free(top.items);
    return X_->status;
}

lucid_status lucid_model_spec_parse_mjcf(const char *name, const void *data, size_t size,
                                         const lucid_model_load_options *opts,
                                         lucid_model_spec **out, char *err, size_t errlen) {
    if (out) *out = NULL;
    lucid_model_load_options defaults = lucid_model_load_options_default();
    if (!opts) opts = &defaults;
    mjcf parser, *P = &parser;
    memset(P, 0, sizeof *P);
    lucid_model_xml_init(X_, opts, err, errlen);
    if (!name) name = "model.xml";
    if (!out || (!data && size))
        return lucid_model_xml_fail_file(X_, name, LUCID_ERR_ARGUMENT, "invalid arguments");
    if (!(opts->scale > 0.0) || !isfinite(opts->scale))
        return lucid_model_xml_fail_file(X_, name, LUCID_ERR_ARGUMENT,
                                         "scale must be finite and > 0");
    P->scale = opts->scale;
    P->degree = 1;
    memcpy(P->eulerseq, "xyz", 4);
    P->inertiafromgeom = 2;
    P->group_lo = 0;
    P->group_hi = 5;
    P->lr_useexisting = 1;
    P->dir = lucid_model_xml_base_dir(X_, name);
    lucid_status st = P->dir ? LUCID_OK : X_->status;
    if (!st) st = lucid_model_spec_create(name, &P->spec);
    if (!st) P->spec->filter_parent = LUCID_MODEL_FILTER_PARENT; /* MuJoCo's rule */
    if (st) lucid_model_xml_fail_file(X_, name, st, "%s", lucid_status_string(st));
    xmlDoc *doc = st ? NULL : lucid_model_xml_parse(X_, name, data, size);
    if (doc) {
        const xmlNode *root = xmlDocGetRootElement(doc);
        if (!IS(root, "mujoco"))
            lucid_model_xml_fail(X_, root, LUCID_ERR_PARSE, "the root element is not <mujoco>");
        else
            model(P, root);
    }
    st = X_->status;
    for (size_t i = 0; i < P->nmeshes; i++) free(P->meshes[i].path);
    free(P->meshes);
    free(P->hfields);
    free(P->skipped_geoms.items);
    free(P->classes);
    free(P->dir);
    lucid_model_xml_release(X_);
    if (st) {
        lucid_model_spec_destroy(P->spec);
        return st;
    }
    *out = P->spec;
    return LUCID_OK;
}
