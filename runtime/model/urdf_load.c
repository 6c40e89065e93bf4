/* URDF into a lucid_model_spec: one body per link (in depth-first order from the single root
 * link, children in the order of their joints in the file), the joint that moves it (none for
 * fixed joints and the root, a free joint at the root with floating_base), collision geometry
 * as lucid shapes (URDF box sizes and cylinder lengths are full extents: halved here), and one
 * torque motor (gear 1) per revolute, continuous and prismatic joint that mimics no other.
 * What is honoured, refused and ignored: docs/model_files.md. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/model/model_load.h"
#include "runtime/model/model_xml.h"

#define X_               (&P->x)
#define IS               lucid_model_xml_is
#define ATTR(node, name) lucid_model_xml_attr(X_, node, name)

typedef struct urdf_link {
    const char *name;
    const xmlNode *node;
    int parent_joint; /* index into joints, -1 for a root */
    int body;         /* spec body once created, -1 before */
} urdf_link;

typedef struct urdf_joint {
    const char *name;
    const xmlNode *node;
    int parent, child; /* link indices */
} urdf_joint;

/* An unknown element or attribute (name) inside elements named parent: warned about once per
 * file with its count, at its first occurrence. */
typedef struct urdf_unknown {
    const char *parent, *name;
    int attribute;
    const xmlNode *first;
    size_t count;
} urdf_unknown;

typedef struct urdf {
    lucid_model_xml x;
    lucid_model_spec *spec;
    double scale;
    char *dir;
    urdf_link *links;
    size_t nlinks;
    urdf_joint *joints;
    size_t njoints;
    urdf_unknown *unknown;
    size_t nunknown, cap_unknown;
} urdf;

static int find_link(const urdf *P, const char *name) {
    for (size_t i = 0; i < P->nlinks; i++)
        if (strcmp(P->links[i].name, name) == 0) return (int)i;
    return -1;
}

/* Reads `attr` of el as exactly n reals, leaving out unchanged when absent; 0 after failing. */
static int reals(urdf *P, const xmlNode *el, const char *attr, double *out, int n) {
    const char *v = ATTR(el, attr);
    if (!v) return !X_->status;
    return lucid_model_xml_reals(X_, el, attr, v, out, n, n) >= 0;
}

/* A required real attribute; 0 after failing. */
static int required(urdf *P, const xmlNode *el, const char *attr, double *out) {
    if (!ATTR(el, attr)) {
        if (!X_->status)
            lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<%s>: missing '%s'",
                                 (const char *)el->name, attr);
        return 0;
    }
    return reals(P, el, attr, out, 1);
}

/* The single child element `name` of el (NULL when absent); fails on a second one. */
static const xmlNode *only_child(urdf *P, const xmlNode *el, const char *name) {
    const xmlNode *found = NULL;
    for (const xmlNode *c = lucid_model_xml_first(el); c; c = lucid_model_xml_next(c)) {
        if (!IS(c, name)) continue;
        if (found) {
            lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<%s>: more than one <%s>",
                                 (const char *)el->name, name);
            return NULL;
        }
        found = c;
    }
    return found;
}

/* Records an unknown element or attribute `name` at node (inside elements named parent). */
static void unknown(urdf *P, const char *parent, const char *name, int attribute,
                    const xmlNode *node) {
    for (size_t i = 0; i < P->nunknown; i++) {
        urdf_unknown *u = &P->unknown[i];
        if (u->attribute == attribute && !strcmp(u->parent, parent) && !strcmp(u->name, name)) {
            u->count++;
            return;
        }
    }
    if (P->nunknown == P->cap_unknown) {
        size_t cap = P->cap_unknown ? 2 * P->cap_unknown : 8;
        urdf_unknown *grown =
            cap < SIZE_MAX / sizeof *grown ? realloc(P->unknown, cap * sizeof *grown) : NULL;
        if (!grown) { /* out of memory: warn now rather than lose it */
            lucid_model_xml_warn(X_, node, "<%s>: unknown %s '%s' ignored", parent,
                                 attribute ? "attribute" : "element", name);
            return;
        }
        P->unknown = grown, P->cap_unknown = cap;
    }
    P->unknown[P->nunknown++] = (urdf_unknown){parent, name, attribute, node, 1};
}

/* One warning per unknown element or attribute name, at its first occurrence, with its count. */
static void warn_unknown(urdf *P) {
    for (size_t i = 0; i < P->nunknown; i++) {
        const urdf_unknown *u = &P->unknown[i];
        char times[64] = "";
        if (u->count > 1) snprintf(times, sizeof times, " (%zu times; the first here)", u->count);
        if (u->attribute)
            lucid_model_xml_warn(X_, u->first, "<%s>: unknown attribute '%s' ignored%s", u->parent,
                                 u->name, times);
        else
            lucid_model_xml_warn(X_, u->first, "<%s>: unknown element <%s> ignored%s", u->parent,
                                 u->name, times);
    }
}

/* Unknown attributes are warned about and ignored, as urdfdom ignores them. */
static void attrs(urdf *P, const xmlNode *el, const char *const *known) {
    for (const xmlAttr *a = el->properties; a; a = a->next) {
        int ok = 0;
        for (const char *const *k = known; *k && !ok; k++) ok = !strcmp((const char *)a->name, *k);
        if (!ok) unknown(P, (const char *)el->name, (const char *)a->name, 1, el);
    }
}

/* An element lucid does not know inside `parent`: warned about and ignored (urdfdom ignores
 * it silently; Minitaur's <joint_properties>, simulator extensions). */
static void unknown_element(urdf *P, const xmlNode *parent, const xmlNode *c) {
    unknown(P, (const char *)parent->name, (const char *)c->name, 0, c);
}

static const char *const origin_attrs[] = {"xyz", "rpy", NULL};

/* The pose of an <origin xyz rpy> (identity when el is NULL): R = Rz(yaw) Ry(pitch) Rx(roll). */
static int origin(urdf *P, const xmlNode *el, lucid_se3 *T) {
    *T = lucid_se3_identity();
    if (!el) return 1;
    attrs(P, el, origin_attrs);
    double p[3] = {0, 0, 0}, r[3] = {0, 0, 0};
    if (!reals(P, el, "xyz", p, 3) || !reals(P, el, "rpy", r, 3)) return 0;
    double cr = cos(r[0]), sr = sin(r[0]), cp = cos(r[1]), sp = sin(r[1]), cy = cos(r[2]),
           sy = sin(r[2]);
    T->R = (lucid_mat3){{cy * cp, sy * cp, -sp, cy * sp * sr - sy * cr, sy * sp * sr + cy * cr,
                         cp * sr, cy * sp * cr + sy * sr, sy * sp * cr - cy * sr, cp * cr}};
    T->t = lucid_vec3_scale(lucid_vec3_make(p[0], p[1], p[2]), P->scale);
    return 1;
}

/* ---- links ------------------------------------------------------------------------------------
 */

static const char *const inertial_children[] = {"origin", "mass", "inertia"};
static const char *const inertia_attrs[] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz", NULL};
static const char *const value_attrs[] = {"value", NULL};

/* An inertia that is not physically valid (lucid_model_xml_inertia_valid) is repaired with a
 * warning, or refused under inertia = "strict". */
static lucid_status check_inertia(urdf *P, const xmlNode *in, double mass, lucid_mat3 *I) {
    double was[3], now[3];
    if (lucid_model_xml_inertia_valid(mass, 1.0 / P->scale, I, was, now)) return LUCID_OK;
    const char *why = mass > 0.0 ? "not positive definite or violates A + B >= C"
                                 : "a massless link's inertia must be zero or valid";
    if (P->x.opts->strict_inertia)
        return lucid_model_xml_fail(X_, in, LUCID_ERR_NOT_SPD,
                                    "<inertia>: %s (principal moments %g %g %g, mass %g; "
                                    "inertia = \"strict\")",
                                    why, was[0], was[1], was[2], mass);
    lucid_model_xml_warn(X_, in,
                         "<inertia>: %s (principal moments %g %g %g, mass %g): repaired to the "
                         "nearest valid inertia with the same principal axes, moments %g %g %g "
                         "(inertia = \"strict\" refuses it)",
                         why, was[0], was[1], was[2], mass, now[0], now[1], now[2]);
    return LUCID_OK;
}

static lucid_status inertial(urdf *P, const xmlNode *el, lucid_body_spec *b) {
    static const char *const none[] = {NULL};
    attrs(P, el, none);
    for (const xmlNode *c = lucid_model_xml_first(el); c; c = lucid_model_xml_next(c)) {
        int ok = 0;
        for (int i = 0; i < 3; i++) ok |= IS(c, inertial_children[i]);
        if (!ok) unknown_element(P, el, c);
    }
    const xmlNode *o = only_child(P, el, "origin");
    if (X_->status) return X_->status;
    const xmlNode *m = only_child(P, el, "mass");
    if (X_->status) return X_->status;
    const xmlNode *in = only_child(P, el, "inertia");
    if (X_->status) return X_->status;
    lucid_se3 T;
    if (!origin(P, o, &T)) return X_->status;
    if (!m) return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<inertial>: missing <mass>");
    if (!in) return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<inertial>: missing <inertia>");
    attrs(P, m, value_attrs);
    attrs(P, in, inertia_attrs);
    double mass, v[6];
    if (!required(P, m, "value", &mass)) return X_->status;
    for (int i = 0; i < 6; i++)
        if (!required(P, in, inertia_attrs[i], &v[i])) return X_->status;
    if (mass < 0.0)
        return lucid_model_xml_fail(X_, m, LUCID_ERR_PARSE, "<mass>: negative mass %g", mass);
    /* ixx ixy ixz iyy iyz izz */
    lucid_mat3 I = {{v[0], v[1], v[2], v[1], v[3], v[4], v[2], v[4], v[5]}};
    if (check_inertia(P, in, mass, &I)) return X_->status;
    lucid_mat3 RI = lucid_mat3_mul(&T.R, &I);
    lucid_mat3 Rt = lucid_mat3_transpose(&T.R);
    I = lucid_mat3_mul(&RI, &Rt);
    b->mass = mass;
    b->com = T.t;
    b->inertia = lucid_mat3_scale(&I, P->scale * P->scale);
    return LUCID_OK;
}

static const char *const collision_attrs[] = {"name", "group", NULL};
static const char *const box_attrs[] = {"size", NULL};
static const char *const cyl_attrs[] = {"radius", "length", NULL};
static const char *const sphere_attrs[] = {"radius", NULL};
static const char *const mesh_attrs[] = {"filename", "scale", NULL};

static lucid_status collision(urdf *P, const xmlNode *el, int body) {
    attrs(P, el, collision_attrs);
    for (const xmlNode *c = lucid_model_xml_first(el); c; c = lucid_model_xml_next(c))
        if (!IS(c, "origin") && !IS(c, "geometry") && !IS(c, "material") && !IS(c, "verbose"))
            unknown_element(P, el, c);
    const xmlNode *o = only_child(P, el, "origin");
    if (X_->status) return X_->status;
    const xmlNode *geo = only_child(P, el, "geometry");
    if (X_->status) return X_->status;
    if (!geo)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<collision>: missing <geometry>");
    lucid_geom_spec g = lucid_geom_spec_default();
    g.name = ATTR(el, "name");
    g.body = body;
    g.line = (int)lucid_model_xml_line(el);
    if (!origin(P, o, &g.pose)) return X_->status;
    const xmlNode *s = lucid_model_xml_first(geo);
    if (!s) return lucid_model_xml_fail(X_, geo, LUCID_ERR_PARSE, "<geometry>: no shape");
    if (lucid_model_xml_next(s))
        return lucid_model_xml_fail(X_, lucid_model_xml_next(s), LUCID_ERR_PARSE,
                                    "<geometry>: more than one shape");
    double sc = P->scale, v[3] = {1.0, 1.0, 1.0}, r = 0.0, len = 0.0;
    lucid_status st = LUCID_OK;
    lucid_convex_mesh *hull = NULL;
    lucid_model_xml_parts dec = {0}; /* meshes = "decompose" (no mass from geoms in URDF) */
    if (IS(s, "box")) {
        attrs(P, s, box_attrs);
        if (!ATTR(s, "size"))
            return lucid_model_xml_fail(X_, s, LUCID_ERR_PARSE, "<box>: missing 'size'");
        if (!reals(P, s, "size", v, 3)) return X_->status;
        if (!(v[0] > 0 && v[1] > 0 && v[2] > 0))
            return lucid_model_xml_fail(X_, s, LUCID_ERR_PARSE, "<box>: sizes must be positive");
        st = lucid_shape_box(0.5 * v[0] * sc, 0.5 * v[1] * sc, 0.5 * v[2] * sc, &g.shape);
    } else if (IS(s, "cylinder") || IS(s, "capsule")) {
        attrs(P, s, cyl_attrs);
        if (!required(P, s, "radius", &r) || !required(P, s, "length", &len)) return X_->status;
        if (!(r > 0.0) || !(len > 0.0))
            return lucid_model_xml_fail(X_, s, LUCID_ERR_PARSE,
                                        "<%s>: radius and length must be positive",
                                        (const char *)s->name);
        st = IS(s, "cylinder") ? lucid_shape_cylinder(r * sc, 0.5 * len * sc, &g.shape)
                               : lucid_shape_capsule(r * sc, 0.5 * len * sc, &g.shape);
    } else if (IS(s, "sphere")) {
        attrs(P, s, sphere_attrs);
        if (!required(P, s, "radius", &r)) return X_->status;
        if (!(r > 0.0))
            return lucid_model_xml_fail(X_, s, LUCID_ERR_PARSE,
                                        "<sphere>: radius must be positive");
        st = lucid_shape_sphere(r * sc, &g.shape);
    } else if (IS(s, "mesh")) {
        attrs(P, s, mesh_attrs);
        const char *file = ATTR(s, "filename");
        if (!file)
            return lucid_model_xml_fail(X_, s, LUCID_ERR_PARSE, "<mesh>: missing 'filename'");
        if (!reals(P, s, "scale", v, 3)) return X_->status;
        for (int i = 0; i < 3; i++) v[i] *= sc;
        char *path = lucid_model_xml_resolve(X_, s, P->dir, file);
        if (!path)
            return X_->status ? X_->status
                              : lucid_model_xml_fail(X_, s, LUCID_ERR_NO_MEMORY, "out of memory");
        lucid_model_xml_load_mesh(X_, s, path, v, &hull);
        if (hull && X_->opts->decompose_meshes &&
            lucid_model_xml_decompose_mesh(X_, s, path, v, &dec))
            lucid_convex_mesh_destroy(hull), hull = NULL;
        free(path);
        if (X_->status) return X_->status;
        if (!hull) return LUCID_OK; /* skipped, with a warning */
        st = lucid_shape_convex(hull, &g.shape);
        if (st) lucid_convex_mesh_destroy(hull), hull = NULL;
    } else {
        return lucid_model_xml_fail(X_, s, LUCID_ERR_PARSE, "<geometry>: unsupported shape <%s>",
                                    (const char *)s->name);
    }
    if (st) {
        lucid_model_xml_parts_free(&dec);
        return lucid_model_xml_fail(X_, s, st, "<%s>: %s", (const char *)s->name,
                                    lucid_status_string(st));
    }
    int index;
    st = lucid_model_spec_add_geom(P->spec, &g, hull, &index);
    if (st) {
        lucid_model_xml_parts_free(&dec);
        return lucid_model_xml_fail(X_, el, st, "<collision>: %s", lucid_status_string(st));
    }
    return lucid_model_xml_add_parts(X_, s, P->spec, index, &dec);
}

static const char *const link_attrs[] = {"name", "type", NULL};

/* A link's inertial and collision elements (visuals and the Pinocchio collision_checking
 * extension are ignored). */
static lucid_status link_contents(urdf *P, const urdf_link *L) {
    lucid_body_spec *b = &P->spec->bodies[L->body];
    const xmlNode *in = NULL;
    for (const xmlNode *c = lucid_model_xml_first(L->node); c; c = lucid_model_xml_next(c)) {
        if (IS(c, "inertial")) {
            if (in)
                return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE,
                                            "<link>: more than one <inertial>");
            in = c;
            lucid_body_spec tmp = *b;
            if (inertial(P, c, &tmp)) return X_->status;
            P->spec->bodies[L->body] = tmp;
        } else if (IS(c, "collision")) {
            if (collision(P, c, L->body)) return X_->status;
        } else if (!IS(c, "visual") && !IS(c, "collision_checking") &&
                   !IS(c, "self_collision_checking")) {
            unknown_element(P, L->node, c);
        }
    }
    return LUCID_OK;
}

/* ---- joints -----------------------------------------------------------------------------------
 */

static const char *const joint_attrs[] = {"name", "type", NULL};
static const char *const link_ref_attrs[] = {"link", NULL};
static const char *const axis_attrs[] = {"xyz", NULL};
static const char *const limit_attrs[] = {"lower", "upper", "effort", "velocity", NULL};
static const char *const dynamics_attrs[] = {"damping", "friction", NULL};
static const char *const mimic_attrs[] = {"joint", "multiplier", "offset", NULL};

static int joint_kind(const char *type) {
    if (!strcmp(type, "revolute") || !strcmp(type, "continuous")) return LUCID_JOINT_REVOLUTE;
    if (!strcmp(type, "prismatic")) return LUCID_JOINT_PRISMATIC;
    if (!strcmp(type, "fixed")) return LUCID_JOINT_FIXED;
    if (!strcmp(type, "floating")) return LUCID_JOINT_FREE;
    if (!strcmp(type, "planar")) return LUCID_JOINT_PLANAR;
    return -1;
}

/* The body of link L: placed by its joint's origin, moved by that joint. */
static lucid_status link_body(urdf *P, urdf_link *L, int parent_body) {
    lucid_body_spec b = lucid_body_spec_default();
    b.name = L->name;
    b.parent = parent_body;
    b.line = (int)lucid_model_xml_line(L->node);
    const urdf_joint *J = L->parent_joint >= 0 ? &P->joints[L->parent_joint] : NULL;
    const xmlNode *o = J ? only_child(P, J->node, "origin") : NULL;
    if (X_->status) return X_->status;
    if (!origin(P, o, &b.placement)) return X_->status;
    lucid_status st = lucid_model_spec_add_body(P->spec, &b, &L->body);
    if (st) return lucid_model_xml_fail(X_, L->node, st, "<link>: %s", lucid_status_string(st));
    if (!J) {
        if (P->x.opts->floating_base) {
            lucid_joint_spec j = lucid_joint_spec_default(LUCID_JOINT_FREE);
            j.name = "floating_base";
            if (lucid_model_spec_find_joint(P->spec, j.name) >= 0) j.name = "root_floating_base";
            j.line = b.line;
            st = lucid_model_spec_add_joint(P->spec, L->body, &j, NULL);
            if (st) return lucid_model_xml_fail(X_, L->node, st, "%s", lucid_status_string(st));
        }
        return LUCID_OK;
    }
    const xmlNode *el = J->node;
    const char *type = ATTR(el, "type");
    int kind = joint_kind(type);
    if (kind == LUCID_JOINT_FIXED) return LUCID_OK;
    lucid_joint_spec j = lucid_joint_spec_default((lucid_joint_kind)kind);
    j.name = J->name;
    j.line = (int)lucid_model_xml_line(el);
    const xmlNode *ax = only_child(P, el, "axis");
    const xmlNode *lim = X_->status ? NULL : only_child(P, el, "limit");
    const xmlNode *dyn = X_->status ? NULL : only_child(P, el, "dynamics");
    const xmlNode *mim = X_->status ? NULL : only_child(P, el, "mimic");
    if (X_->status) return X_->status;
    double a[3] = {1.0, 0.0, 0.0};
    if (ax) attrs(P, ax, axis_attrs);
    if (ax && !reals(P, ax, "xyz", a, 3)) return X_->status;
    j.axis = lucid_vec3_make(a[0], a[1], a[2]);
    if (kind != LUCID_JOINT_FREE && !(lucid_vec3_norm(j.axis) > 0.0))
        return lucid_model_xml_fail(X_, ax ? ax : el, LUCID_ERR_PARSE, "<joint>: zero axis");
    int one_dof = kind == LUCID_JOINT_REVOLUTE || kind == LUCID_JOINT_PRISMATIC;
    int continuous = strcmp(type, "continuous") == 0;
    if (one_dof && !continuous && !lim)
        return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                    "<joint> '%s': a %s joint needs <limit>", J->name, type);
    if (lim) {
        attrs(P, lim, limit_attrs);
        double lo = 0.0, hi = 0.0, effort = 0.0, vel = 0.0;
        if (!reals(P, lim, "lower", &lo, 1) || !reals(P, lim, "upper", &hi, 1) ||
            !reals(P, lim, "effort", &effort, 1) || !reals(P, lim, "velocity", &vel, 1))
            return X_->status;
        if (effort < 0.0 || vel < 0.0)
            return lucid_model_xml_fail(X_, lim, LUCID_ERR_PARSE,
                                        "<limit>: negative effort or velocity");
        if (one_dof && !continuous && lo > hi)
            return lucid_model_xml_fail(X_, lim, LUCID_ERR_PARSE,
                                        "<limit>: lower %g is above upper %g", lo, hi);
        /* lower == upper (0 0 is the usual placeholder) means no position limit, and a zero
         * effort or velocity no such limit, as MuJoCo reads them */
        if (one_dof && !continuous && lo < hi) {
            double unit = kind == LUCID_JOINT_PRISMATIC ? P->scale : 1.0;
            j.limited = 1;
            j.lower = lo * unit;
            j.upper = hi * unit;
        }
        if (effort > 0.0) j.effort_limit = effort;
        if (vel > 0.0) j.velocity_limit = kind == LUCID_JOINT_PRISMATIC ? vel * P->scale : vel;
    }
    if (dyn) {
        attrs(P, dyn, dynamics_attrs);
        if (!reals(P, dyn, "damping", &j.damping, 1) ||
            !reals(P, dyn, "friction", &j.frictionloss, 1))
            return X_->status;
        if (j.damping < 0.0 || j.frictionloss < 0.0)
            return lucid_model_xml_fail(X_, dyn, LUCID_ERR_PARSE, "<dynamics>: negative %s",
                                        j.damping < 0.0 ? "damping" : "friction");
    }
    if (mim) {
        attrs(P, mim, mimic_attrs);
        j.mimic = ATTR(mim, "joint");
        if (!j.mimic)
            return lucid_model_xml_fail(X_, mim, LUCID_ERR_PARSE, "<mimic>: missing 'joint'");
        if (!one_dof)
            return lucid_model_xml_fail(X_, mim, LUCID_ERR_PARSE,
                                        "<mimic>: only revolute and prismatic joints can mimic");
        if (!reals(P, mim, "multiplier", &j.mimic_multiplier, 1) ||
            !reals(P, mim, "offset", &j.mimic_offset, 1))
            return X_->status;
        if (kind == LUCID_JOINT_PRISMATIC) j.mimic_offset *= P->scale;
    }
    st = lucid_model_spec_add_joint(P->spec, L->body, &j, NULL);
    if (st) return lucid_model_xml_fail(X_, el, st, "<joint>: %s", lucid_status_string(st));
    return LUCID_OK;
}

/* ---- the document ------------------------------------------------------------------------------
 */

static const char *const robot_attrs[] = {"name", "version", NULL};

static lucid_status robot(urdf *P, const xmlNode *root) {
    attrs(P, root, robot_attrs);
    const char *name = ATTR(root, "name");
    if (name) {
        size_t n = strlen(name) + 1;
        P->spec->name = malloc(n);
        if (!P->spec->name)
            return lucid_model_xml_fail(X_, root, LUCID_ERR_NO_MEMORY, "out of memory");
        memcpy(P->spec->name, name, n);
    }
    size_t nl = 0, nj = 0;
    for (const xmlNode *c = lucid_model_xml_first(root); c; c = lucid_model_xml_next(c)) {
        if (IS(c, "link"))
            nl++;
        else if (IS(c, "joint"))
            nj++;
        else if (!IS(c, "material") && !IS(c, "transmission") && !IS(c, "gazebo"))
            unknown_element(P, root, c);
    }
    if (nl == 0) return lucid_model_xml_fail(X_, root, LUCID_ERR_PARSE, "<robot>: no <link>");
    P->links = calloc(nl, sizeof *P->links);
    P->joints = calloc(nj ? nj : 1, sizeof *P->joints);
    if (!P->links || !P->joints)
        return lucid_model_xml_fail(X_, root, LUCID_ERR_NO_MEMORY, "out of memory");
    for (const xmlNode *c = lucid_model_xml_first(root); c; c = lucid_model_xml_next(c)) {
        if (!IS(c, "link")) continue;
        attrs(P, c, link_attrs);
        const char *ln = ATTR(c, "name");
        if (!ln) return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<link>: missing 'name'");
        if (find_link(P, ln) >= 0)
            return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<link>: link '%s' defined twice",
                                        ln);
        urdf_link *L = &P->links[P->nlinks++];
        L->name = ln, L->node = c, L->parent_joint = -1, L->body = -1;
    }
    for (const xmlNode *c = lucid_model_xml_first(root); c; c = lucid_model_xml_next(c)) {
        if (!IS(c, "joint")) continue;
        attrs(P, c, joint_attrs);
        const char *jn = ATTR(c, "name"), *type = ATTR(c, "type");
        if (!jn) return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<joint>: missing 'name'");
        if (!type)
            return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<joint> '%s': missing 'type'", jn);
        if (joint_kind(type) < 0)
            return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE,
                                        "<joint> '%s': unknown joint type '%s'", jn, type);
        for (size_t k = 0; k < P->njoints; k++)
            if (strcmp(P->joints[k].name, jn) == 0)
                return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE,
                                            "<joint>: joint '%s' defined twice", jn);
        for (const xmlNode *e = lucid_model_xml_first(c); e; e = lucid_model_xml_next(e))
            if (!IS(e, "parent") && !IS(e, "child") && !IS(e, "origin") && !IS(e, "axis") &&
                !IS(e, "limit") && !IS(e, "dynamics") && !IS(e, "mimic") &&
                !IS(e, "safety_controller") && !IS(e, "calibration"))
                unknown_element(P, c, e);
        const xmlNode *pe = only_child(P, c, "parent");
        const xmlNode *ce = X_->status ? NULL : only_child(P, c, "child");
        if (X_->status) return X_->status;
        if (!pe || !ce)
            return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE, "<joint> '%s': missing <%s>", jn,
                                        pe ? "child" : "parent");
        attrs(P, pe, link_ref_attrs);
        attrs(P, ce, link_ref_attrs);
        const char *pn = ATTR(pe, "link"), *cn = ATTR(ce, "link");
        if (!pn || !cn)
            return lucid_model_xml_fail(X_, pn ? ce : pe, LUCID_ERR_PARSE, "<%s>: missing 'link'",
                                        pn ? "child" : "parent");
        int p = find_link(P, pn), ch = find_link(P, cn);
        if (p < 0 || ch < 0)
            return lucid_model_xml_fail(X_, p < 0 ? pe : ce, LUCID_ERR_PARSE,
                                        "<joint> '%s': unknown %s link '%s'", jn,
                                        p < 0 ? "parent" : "child", p < 0 ? pn : cn);
        if (p == ch)
            return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE,
                                        "<joint> '%s': link '%s' is its own parent", jn, pn);
        if (P->links[ch].parent_joint >= 0)
            return lucid_model_xml_fail(X_, c, LUCID_ERR_PARSE,
                                        "<joint> '%s': link '%s' already has the parent joint '%s'",
                                        jn, cn, P->joints[P->links[ch].parent_joint].name);
        urdf_joint *J = &P->joints[P->njoints];
        J->name = jn, J->node = c, J->parent = p, J->child = ch;
        P->links[ch].parent_joint = (int)P->njoints++;
    }
    /* one root */
    int rootlink = -1;
    for (size_t i = 0; i < P->nlinks; i++) {
        if (P->links[i].parent_joint >= 0) continue;
        if (rootlink >= 0)
            return lucid_model_xml_fail(X_, P->links[i].node, LUCID_ERR_PARSE,
                                        "several root links ('%s' and '%s'): a URDF tree has one",
                                        P->links[rootlink].name, P->links[i].name);
        rootlink = (int)i;
    }
    if (rootlink < 0)
        return lucid_model_xml_fail(X_, P->links[0].node, LUCID_ERR_PARSE,
                                    "no root link: the joints form a cycle");
    /* depth first from the root, children in joint order (an explicit stack of links) */
    int *stack = malloc(P->nlinks * sizeof *stack);
    if (!stack) return lucid_model_xml_fail(X_, root, LUCID_ERR_NO_MEMORY, "out of memory");
    size_t top = 0;
    stack[top++] = rootlink;
    while (top && !X_->status) {
        urdf_link *L = &P->links[stack[--top]];
        int parent_body = L->parent_joint >= 0 ? P->links[P->joints[L->parent_joint].parent].body
                                               : LUCID_MODEL_WORLD;
        if (link_body(P, L, parent_body) || link_contents(P, L)) break;
        for (size_t k = P->njoints; k-- > 0;) /* pushed in reverse: popped in file order */
            if (P->joints[k].parent == (int)(L - P->links)) stack[top++] = P->joints[k].child;
    }
    free(stack);
    if (X_->status) return X_->status;
    for (size_t i = 0; i < P->nlinks; i++)
        if (P->links[i].body < 0)
            return lucid_model_xml_fail(X_, P->links[i].node, LUCID_ERR_PARSE,
                                        "link '%s' is not connected to the root '%s' (its joints "
                                        "form a cycle)",
                                        P->links[i].name, P->links[rootlink].name);
    /* mimic targets, then one motor per independent 1-dof joint */
    for (size_t i = 0; i < P->spec->njoints; i++) {
        const lucid_joint_spec *j = &P->spec->joints[i];
        if (!j->mimic) continue;
        int t = lucid_model_spec_find_joint(P->spec, j->mimic);
        const xmlNode *el = NULL;
        for (size_t k = 0; k < P->njoints; k++)
            if (strcmp(P->joints[k].name, j->name) == 0) el = P->joints[k].node;
        if (t < 0 || (size_t)t == i)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE, "<mimic>: joint '%s' %s", j->mimic,
                                        t < 0 ? "is not a moving joint of the model"
                                              : "mimics itself");
        lucid_joint_kind tk = P->spec->joints[t].kind;
        if (tk != LUCID_JOINT_REVOLUTE && tk != LUCID_JOINT_PRISMATIC)
            return lucid_model_xml_fail(X_, el, LUCID_ERR_PARSE,
                                        "<mimic>: joint '%s' is not revolute or prismatic",
                                        j->mimic);
    }
    for (size_t i = 0; i < P->spec->njoints; i++) {
        const lucid_joint_spec *j = &P->spec->joints[i];
        if ((j->kind != LUCID_JOINT_REVOLUTE && j->kind != LUCID_JOINT_PRISMATIC) || j->mimic)
            continue;
        lucid_actuator_spec a = lucid_actuator_spec_default();
        a.name = j->name;
        a.joint = (int)i;
        a.line = j->line;
        if (isfinite(j->effort_limit))
            a.force_limited = 1, a.force_lower = -j->effort_limit, a.force_upper = j->effort_limit;
        lucid_status st = lucid_model_spec_add_actuator(P->spec, &a, NULL);
        if (st)
            return lucid_model_xml_fail_file(X_, P->spec->source, st, "%s",
                                             lucid_status_string(st));
    }
    return LUCID_OK;
}

lucid_status lucid_model_spec_parse_urdf(const char *name, const void *data, size_t size,
                                         const lucid_model_load_options *opts,
                                         lucid_model_spec **out, char *err, size_t errlen) {
    if (out) *out = NULL;
    lucid_model_load_options defaults = lucid_model_load_options_default();
    if (!opts) opts = &defaults;
    urdf parser, *P = &parser;
    memset(P, 0, sizeof *P);
    lucid_model_xml_init(X_, opts, err, errlen);
    if (!name) name = "model.urdf";
    if (!out || (!data && size))
        return lucid_model_xml_fail_file(X_, name, LUCID_ERR_ARGUMENT, "invalid arguments");
    if (!(opts->scale > 0.0) || !isfinite(opts->scale))
        return lucid_model_xml_fail_file(X_, name, LUCID_ERR_ARGUMENT,
                                         "scale must be finite and > 0");
    P->scale = opts->scale;
    P->dir = lucid_model_xml_base_dir(X_, name);
    lucid_status st = P->dir ? LUCID_OK : X_->status;
    if (!st) st = lucid_model_spec_create(name, &P->spec);
    if (st) lucid_model_xml_fail_file(X_, name, st, "%s", lucid_status_string(st));
    xmlDoc *doc = st ? NULL : lucid_model_xml_parse(X_, name, data, size);
    if (doc) {
        const xmlNode *root = xmlDocGetRootElement(doc);
        if (!IS(root, "robot"))
            lucid_model_xml_fail(X_, root, LUCID_ERR_PARSE, "the root element is not <robot>");
        else
            robot(P, root);
        if (!X_->status) warn_unknown(P);
    }
    st = X_->status;
    free(P->unknown);
    free(P->links);
    free(P->joints);
    free(P->dir);
    lucid_model_xml_release(X_);
    if (st) {
        lucid_model_spec_destroy(P->spec);
        return st;
    }
    *out = P->spec;
    return LUCID_OK;
}
