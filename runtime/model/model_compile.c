/* lucid_model_compile: validates a spec and builds the kinematic tree (see model.h). */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/math/finite.h"
#include "runtime/math/so3.h"
#include "runtime/model/configuration.h"
#include "runtime/model/dynamics.h"
#include "runtime/model/model_internal.h"
#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/heightfield.h"

typedef struct compile_ctx {
    const lucid_model_spec *spec;
    char *err;
    size_t errlen;
} compile_ctx;

/* Writes "source:line: reason" (or "what 'name': reason") into the error buffer; returns st. */
static lucid_status fail(const compile_ctx *c, lucid_status st, const char *what, const char *name,
                         size_t index, int line, const char *fmt, ...) {
    if (!c->err || c->errlen == 0) return st;
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    char who[200];
    if (name)
        snprintf(who, sizeof who, "%s '%s'", what, name);
    else
        snprintf(who, sizeof who, "%s #%zu", what, index + 1);
    if (c->spec->source && line > 0)
        snprintf(c->err, c->errlen, "%s:%d: %s: %s", c->spec->source, line, who, reason);
    else if (c->spec->source)
        snprintf(c->err, c->errlen, "%s: %s: %s", c->spec->source, who, reason);
    else
        snprintf(c->err, c->errlen, "%s: %s", who, reason);
    return st;
}

static char *dup_string(const char *s) {
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

/* A heap name: s, or "<prefix><index + 1>" for an unnamed element (1-based, as in Lua). */
static char *make_name(const char *s, const char *prefix, size_t index) {
    if (s) return dup_string(s);
    char buf[64];
    snprintf(buf, sizeof buf, "%s%zu", prefix, index + 1);
    return dup_string(buf);
}

static int mat3_symmetric(const lucid_mat3 *I) {
    double scale = 0.0;
    for (int k = 0; k < 9; ++k) scale = fmax(scale, fabs(I->m[k]));
    double tol = 1e-9 * scale;
    return fabs(I->m[1] - I->m[3]) <= tol && fabs(I->m[2] - I->m[6]) <= tol &&
           fabs(I->m[5] - I->m[7]) <= tol;
}

/* 1 when the symmetric 3x3 is positive definite (Cholesky pivots > 0). */
static int mat3_positive_definite(const lucid_mat3 *I) {
    double a = I->m[0], b = I->m[3], c = I->m[6], d = I->m[4], e = I->m[7], f = I->m[8];
    if (!(a > 0.0)) return 0;
    double l11 = sqrt(a), l21 = b / l11, l31 = c / l11;
    double p2 = d - l21 * l21;
    if (!(p2 > 1e-14 * a)) return 0;
    double l22 = sqrt(p2), l32 = (e - l31 * l21) / l22;
    double p3 = f - l31 * l31 - l32 * l32;
    return p3 > 1e-14 * fmax(a, d);
}

static int mat3_is_zero(const lucid_mat3 *I) {
    for (int k = 0; k < 9; ++k)
        if (I->m[k] != 0.0) return 0;
    return 1;
}

static int se3_isfinite(const lucid_se3 *T) {
    return lucid_mat3_isfinite(&T->R) && lucid_vec3_isfinite(T->t);
}

/* Checks a placement: finite, rotation orthonormal to 1e-6 (then re-projected onto SO(3)). */
static lucid_status check_placement(const compile_ctx *c, lucid_se3 *T, const char *what,
                                    const char *name, size_t index, int line, const char *field) {
    if (!se3_isfinite(T))
        return fail(c, LUCID_ERR_NONFINITE, what, name, index, line, "%s is not finite", field);
    lucid_mat3 R;
    if (lucid_so3_orthogonality_error(&T->R) > 1e-6 || lucid_mat3_det(&T->R) <= 0.0 ||
        lucid_so3_project(&T->R, &R) != LUCID_OK)
        return fail(c, LUCID_ERR_ARGUMENT, what, name, index, line,
                    "%s rotation is not a rotation matrix", field);
    T->R = R;
    return LUCID_OK;
}

static size_t kind_nq(lucid_joint_kind k) {
    switch (k) {
        case LUCID_JOINT_REVOLUTE:
        case LUCID_JOINT_PRISMATIC:
            return 1;
        case LUCID_JOINT_SPHERICAL:
        case LUCID_JOINT_PLANAR:
            return 4;
        case LUCID_JOINT_FREE:
            return 7;
        default:
            return 0;
    }
}

static size_t kind_nv(lucid_joint_kind k) {
    switch (k) {
        case LUCID_JOINT_REVOLUTE:
        case LUCID_JOINT_PRISMATIC:
            return 1;
        case LUCID_JOINT_SPHERICAL:
        case LUCID_JOINT_PLANAR:
            return 3;
        case LUCID_JOINT_FREE:
            return 6;
        default:
            return 0;
    }
}

/* The unit vector of S's k-th column in the node frame (linear first): revolute about z,
 * prismatic along z, spherical the angular ones, free all six, planar x, y and rotation z. */
static int dof_axis(lucid_joint_kind kind, size_t k) {
    static const int planar[3] = {0, 1, 5};
    switch (kind) {
        case LUCID_JOINT_REVOLUTE:
            return 5;
        case LUCID_JOINT_PRISMATIC:
            return 2;
        case LUCID_JOINT_SPHERICAL:
            return 3 + (int)k;
        case LUCID_JOINT_PLANAR:
            return planar[k];
        default:
            return (int)k;
    }
}

static int axis_joint(lucid_joint_kind k) {
    return k == LUCID_JOINT_REVOLUTE || k == LUCID_JOINT_PRISMATIC || k == LUCID_JOINT_PLANAR;
}

/* The rotation whose z axis is the unit axis n (x = any_orthogonal(n), y = n x x). */
static lucid_mat3 axis_frame(lucid_vec3 n) {
    lucid_vec3 e1 = lucid_vec3_any_orthogonal(n);
    return lucid_mat3_from_cols(e1, lucid_vec3_cross(n, e1), n);
}

/* The inertia of a body (mass m, com c, inertia Ic about the com, in frame B) expressed in a
 * frame where B sits at T: mass m, h = m c', I about the origin = R Ic R^T + m (|c'|^2 - c' c'^T).
 */
static lucid_inertia inertia_in(const lucid_se3 *T, double m, lucid_vec3 com,
                                const lucid_mat3 *Ic) {
    lucid_inertia out;
    lucid_vec3 c = lucid_se3_act(T, com);
    lucid_mat3 RI = lucid_mat3_mul(&T->R, Ic);
    lucid_mat3 Rt = lucid_mat3_transpose(&T->R);
    lucid_mat3 I = lucid_mat3_mul(&RI, &Rt);
    lucid_mat3 cc = lucid_mat3_outer(c, c);
    double c2 = lucid_vec3_norm2(c);
    for (int k = 0; k < 9; ++k) I.m[k] += m * ((k % 4 == 0 ? c2 : 0.0) - cc.m[k]);
    out.mass = m;
    out.h = lucid_vec3_scale(c, m);
    out.I = I;
    return out;
}

static void inertia_add(lucid_inertia *a, const lucid_inertia *b) {
    a->mass += b->mass;
    a->h = lucid_vec3_add(a->h, b->h);
    a->I = lucid_mat3_add(&a->I, &b->I);
}

lucid_model *lucid_model_retain(const lucid_model *m) {
    lucid_model *w = (lucid_model *)m; /* the count is the one mutable field of a model */
    if (w) atomic_fetch_add(&w->refs, 1);
    return w;
}

void lucid_model_destroy(lucid_model *m) {
    if (!m) return;
    if (atomic_fetch_sub(&m->refs, 1) > 1) return; /* another holder remains */
    if (m->base) { /* a variant: its own arrays, then its reference to the base */
        free(m->nodes), free(m->bodies), free(m->damping), free(m->frictionloss);
        free(m->armature), free(m->tendons);
        lucid_model_destroy((lucid_model *)m->base);
        free(m);
        return;
    }
    for (size_t i = 0; i < m->nnodes; ++i) free(m->nodes[i].name);
    for (size_t i = 0; i < m->nbodies; ++i) free(m->bodies[i].name);
    for (size_t i = 0; i < m->nframes; ++i) free(m->frames[i].name);
    for (size_t i = 0; i < m->ngeoms; ++i) free((char *)m->geoms[i].name);
    for (size_t i = 0; i < m->nu; ++i) free((char *)m->actuators[i].name);
    for (size_t i = 0; i < m->ntendons; ++i) {
        lucid_model_tendon *t = &m->tendons[i];
        free((char *)t->name), free(t->joint), free(t->dof), free(t->coord), free(t->coef);
        free(t->path);
    }
    free(m->tendons);
    for (size_t i = 0; i < m->nkeyframes; ++i) {
        free((char *)m->keyframes[i].name);
        free(m->keyframes[i].q); /* one block: q, v, u, act */
        free(m->keyframes[i].mocap);
    }
    free(m->keyframes);
    for (size_t i = 0; i < m->nsensors; ++i) free((char *)m->sensors[i].name);
    free(m->sensors);
    for (size_t i = 0; i < m->nequalities; ++i) free(m->equalities[i].name);
    free(m->equalities);
    for (size_t i = 0; i < m->nmocap; ++i) free(m->mocap[i].name);
    free(m->mocap);
    for (size_t i = 0; i < m->nmeshes; ++i) lucid_convex_mesh_destroy(m->meshes[i]);
    for (size_t i = 0; i < m->nhfields; ++i) lucid_heightfield_destroy(m->hfields[i]);
    free(m->hfields);
    free(m->name);
    free(m->nodes);
    free(m->bodies);
    free(m->frames);
    free(m->geoms);
    free(m->geom_start);
    free(m->meshes);
    free(m->part_shapes);
    free(m->actuators);
    free(m->excludes);
    for (size_t i = 0; i < m->npairs; ++i) free((char *)m->pairs[i].name);
    free(m->pairs);
    free(m->pair_order);
    free(m->lower);
    free(m->upper);
    free(m->springref);
    free(m->limited);
    free(m->velocity_limit);
    free(m->effort_limit);
    free(m->damping);
    free(m->armature);
    free(m->stiffness);
    free(m->frictionloss);
    free(m->dof_parent);
    free(m->dof_node);
    free(m->dof_axis);
    free(m->ltdl_start);
    free(m);
}

/* calloc of n elements of size s, at least one (so NULL always means no memory). */
static void *alloc_array(size_t n, size_t s) {
    if (n > SIZE_MAX / 2 / s) return NULL;
    return calloc(n ? n : 1, s);
}

static lucid_status check_spec_values(const compile_ctx *c) {
    const lucid_model_spec *s = c->spec;
    if (!lucid_vec3_isfinite(s->gravity))
        return fail(c, LUCID_ERR_NONFINITE, "model", s->name ? s->name : "", 0, 0,
                    "gravity is not finite");
    if (!isfinite(s->timestep) || !(s->timestep > 0.0))
        return fail(c, LUCID_ERR_ARGUMENT, "model", s->name ? s->name : "", 0, 0,
                    "timestep must be finite and > 0 (got %g)", s->timestep);
    return LUCID_OK;
}

static lucid_status check_body(const compile_ctx *c, size_t i, lucid_body_spec *b) {
    const char *nm = b->name;
    int line = b->line;
    if (b->parent < LUCID_MODEL_WORLD || b->parent >= (int)i)
        return fail(c, LUCID_ERR_ARGUMENT, "body", nm, i, line,
                    "parent %d is not an earlier body (the tree must be listed parents first)",
                    b->parent);
    lucid_status st = check_placement(c, &b->placement, "body", nm, i, line, "placement");
    if (st != LUCID_OK) return st;
    if (!isfinite(b->mass) || !lucid_vec3_isfinite(b->com) || !lucid_mat3_isfinite(&b->inertia))
        return fail(c, LUCID_ERR_NONFINITE, "body", nm, i, line,
                    "mass, com or inertia is not finite");
    if (b->mass < 0.0)
        return fail(c, LUCID_ERR_ARGUMENT, "body", nm, i, line, "negative mass %g", b->mass);
    if (!mat3_symmetric(&b->inertia))
        return fail(c, LUCID_ERR_NOT_SPD, "body", nm, i, line, "inertia is not symmetric");
    lucid_mat3 I = b->inertia; /* symmetrised */
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < r; ++k) {
            double v = 0.5 * (I.m[r + 3 * k] + I.m[k + 3 * r]);
            I.m[r + 3 * k] = I.m[k + 3 * r] = v;
        }
    b->inertia = I;
    if (b->mass > 0.0 && !mat3_positive_definite(&I))
        return fail(c, LUCID_ERR_NOT_SPD, "body", nm, i, line,
                    "inertia is not positive definite (mass %g)", b->mass);
    if (b->mass == 0.0 && !mat3_is_zero(&I) && !mat3_positive_definite(&I))
        return fail(c, LUCID_ERR_NOT_SPD, "body", nm, i, line,
                    "a massless body's inertia must be zero or positive definite");
    return LUCID_OK;
}

static lucid_status check_joint(const compile_ctx *c, size_t i, lucid_joint_spec *j) {
    const char *nm = j->name;
    int line = j->line;
    if ((int)j->kind < (int)LUCID_JOINT_FIXED || (int)j->kind > (int)LUCID_JOINT_PLANAR)
        return fail(c, LUCID_ERR_ARGUMENT, "joint", nm, i, line, "unknown joint kind %d",
                    (int)j->kind);
    if (j->mimic && j->kind != LUCID_JOINT_REVOLUTE && j->kind != LUCID_JOINT_PRISMATIC)
        return fail(c, LUCID_ERR_ARGUMENT, "joint", nm, i, line,
                    "only revolute and prismatic joints can mimic (it copies '%s')", j->mimic);
    if (!isfinite(j->frictionloss) || !isfinite(j->mimic_multiplier) || !isfinite(j->mimic_offset))
        return fail(c, LUCID_ERR_NONFINITE, "joint", nm, i, line, "a value is not finite");
    if (j->frictionloss < 0.0)
        return fail(c, LUCID_ERR_ARGUMENT, "joint", nm, i, line, "frictionloss must be >= 0");
    if (!lucid_vec3_isfinite(j->axis) || !lucid_vec3_isfinite(j->anchor) || !isfinite(j->ref) ||
        !isfinite(j->damping) || !isfinite(j->armature) || !isfinite(j->stiffness) ||
        !isfinite(j->springref) || isnan(j->velocity_limit) || isnan(j->effort_limit))
        return fail(c, LUCID_ERR_NONFINITE, "joint", nm, i, line, "a value is not finite");
    if (axis_joint(j->kind)) {
        double n = lucid_vec3_norm(j->axis);
        if (!(n > 1e-12) || !isfinite(n))
            return fail(c, LUCID_ERR_ARGUMENT, "joint", nm, i, line,
                        "axis (%g, %g, %g) cannot be normalised", j->axis.x, j->axis.y, j->axis.z);
        j->axis = lucid_vec3_scale(j->axis, 1.0 / n);
    }
    if (j->limited) {
        if (j->kind != LUCID_JOINT_REVOLUTE && j->kind != LUCID_JOINT_PRISMATIC &&
            j->kind != LUCID_JOINT_FIXED)
            return fail(c, LUCID_ERR_ARGUMENT, "joint", nm, i, line,
                        "limits are supported on revolute and prismatic joints only");
        if (!isfinite(j->lower) || !isfinite(j->upper))
            return fail(c, LUCID_ERR_NONFINITE, "joint", nm, i, line, "a limit is not finite");
        if (j->lower > j->upper)
            return fail(c, LUCID_ERR_ARGUMENT, "joint", nm, i, line,
                        "lower limit %g is above upper limit %g", j->lower, j->upper);
    }
    if (!(j->damping >= 0.0) || !(j->armature >= 0.0) || !(j->stiffness >= 0.0))
        return fail(c, LUCID_ERR_ARGUMENT, "joint", nm, i, line,
                    "damping, armature and stiffness must be >= 0");
    if (!(j->velocity_limit > 0.0) || !(j->effort_limit > 0.0))
        return fail(c, LUCID_ERR_ARGUMENT, "joint", nm, i, line,
                    "velocity and effort limits must be > 0 (INFINITY when none)");
    return LUCID_OK;
}

/* Re-creates the shape through its constructor so that every size is checked. */
static lucid_status check_shape(const lucid_shape *s, const lucid_convex_mesh *mesh,
                                const lucid_model_spec *spec) {
    lucid_shape tmp;
    switch (s->kind) {
        case LUCID_SHAPE_SPHERE:
            return lucid_shape_sphere(s->radius, &tmp);
        case LUCID_SHAPE_ELLIPSOID:
            return lucid_shape_ellipsoid(s->u.radii.x, s->u.radii.y, s->u.radii.z, &tmp);
        case LUCID_SHAPE_BOX:
            return lucid_shape_box(s->u.half_extents.x, s->u.half_extents.y, s->u.half_extents.z,
                                   &tmp);
        case LUCID_SHAPE_CAPSULE:
            return lucid_shape_capsule(s->radius, s->u.half_length, &tmp);
        case LUCID_SHAPE_CYLINDER:
            return lucid_shape_cylinder(s->u.round.radius, s->u.round.half_length, &tmp);
        case LUCID_SHAPE_CONE:
            return lucid_shape_cone(s->u.round.radius, s->u.round.half_length, &tmp);
        case LUCID_SHAPE_HALFSPACE:
            return lucid_shape_halfspace(s->u.halfspace.normal, s->u.halfspace.offset, &tmp);
        case LUCID_SHAPE_CONVEX:
            if (!mesh || s->u.mesh != mesh) return LUCID_ERR_ARGUMENT;
            return lucid_shape_convex(mesh, &tmp);
        case LUCID_SHAPE_HEIGHTFIELD: /* one of the spec's own */
            for (size_t i = 0; i < spec->nhfields; ++i)
                if (s->u.hfield == spec->hfields[i]) return LUCID_OK;
            return LUCID_ERR_ARGUMENT;
        default:
            return LUCID_ERR_ARGUMENT;
    }
}

/* Where each spec body lives in the tree: the node carrying it and its frame in that node. */
typedef struct body_loc {
    int node;
    lucid_se3 in_node;
    int public_index; /* -1 when welded */
    int mocap;        /* the mocap body it moves with (in_node is then in its frame), -1: none */
} body_loc;

static lucid_status check_unique(const compile_ctx *c, char **names, size_t n, const char *what,
                                 const int *lines) {
    for (size_t i = 0; i < n; ++i)
        for (size_t k = 0; k < i; ++k)
            if (strcmp(names[i], names[k]) == 0)
                return fail(c, LUCID_ERR_ARGUMENT, what, names[i], i, lines ? lines[i] : 0,
                            "the name is used twice");
    return LUCID_OK;
}

/* Spec body b and mocap bodies: a mocap body (a child of the world with no joints) gets the
 * next mocap index in *mocap and its frame becomes the reference of its contents (*base the
 * identity); a body with joints under one is refused (its tree would need a moving root). */
static lucid_status mocap_body(const compile_ctx *c, lucid_model *m, const lucid_body_spec *bodies,
                               size_t b, int moving, int *mocap, lucid_se3 *base) {
    const lucid_body_spec *bs = &bodies[b];
    if (!bs->mocap) {
        if (*mocap >= 0 && moving)
            return fail(c, LUCID_ERR_ARGUMENT, "body", bs->name, b, bs->line,
                        "a body with joints under mocap body '%s' is not supported",
                        m->mocap[*mocap].name);
        return LUCID_OK;
    }
    if (bs->parent != LUCID_MODEL_WORLD)
        return fail(c, LUCID_ERR_ARGUMENT, "body", bs->name, b, bs->line,
                    "a mocap body must be a child of the world body");
    if (moving)
        return fail(c, LUCID_ERR_ARGUMENT, "body", bs->name, b, bs->line,
                    "a mocap body cannot have joints");
    lucid_model_mocap *mc = &m->mocap[m->nmocap];
    if (!(mc->name = make_name(bs->name, "body", b))) return LUCID_ERR_NO_MEMORY;
    mc->pose = bs->placement;
    *mocap = (int)m->nmocap++;
    *base = lucid_se3_identity();
    return LUCID_OK;
}

/* A frame's placement: `pose` in the node frame, or in mocap body `mocap`'s frame when >= 0
 * (the placement is then the pose at that body's initial pose). */
static void set_frame_placement(const lucid_model *m, lucid_model_frame *f, int mocap,
                                lucid_se3 pose) {
    f->mocap = mocap;
    f->in_mocap = mocap >= 0 ? pose : lucid_se3_identity();
    f->placement = mocap >= 0 ? lucid_se3_compose(&m->mocap[mocap].pose, &pose) : pose;
}

/* Builds nodes, bodies and frames; st != OK leaves a partially filled model to destroy. */
static lucid_status build_tree(const compile_ctx *c, lucid_model *m, lucid_body_spec *bodies,
                               lucid_joint_spec *joints, body_loc *loc, int *joint_node) {
    const lucid_model_spec *s = c->spec;
    /* count moving joints and public bodies */
    size_t nnodes = 0, nbodies = 0;
    for (size_t j = 0; j < s->njoints; ++j)
        if (joints[j].kind != LUCID_JOINT_FIXED) nnodes++;
    int *moving = alloc_array(s->nbodies, sizeof *moving);
    if (!moving) return LUCID_ERR_NO_MEMORY;
    for (size_t j = 0; j < s->njoints; ++j)
        if (joints[j].kind != LUCID_JOINT_FIXED) moving[s->joint_body[j]] = 1;
    for (size_t b = 0; b < s->nbodies; ++b) nbodies += (size_t)moving[b];
    m->nodes = alloc_array(nnodes, sizeof *m->nodes);
    m->bodies = alloc_array(nbodies, sizeof *m->bodies);
    m->frames = alloc_array(s->nbodies + s->nframes, sizeof *m->frames);
    size_t nmocap = 0;
    for (size_t b = 0; b < s->nbodies; ++b) nmocap += bodies[b].mocap != 0;
    m->mocap = alloc_array(nmocap, sizeof *m->mocap);
    if (!m->nodes || !m->bodies || !m->frames || !m->mocap) {
        free(moving);
        return LUCID_ERR_NO_MEMORY;
    }
    for (size_t j = 0; j < s->njoints; ++j) joint_node[j] = -1;
    size_t nq = 0, nv = 0;
    for (size_t b = 0; b < s->nbodies; ++b) {
        const lucid_body_spec *bs = &bodies[b];
        int pnode = bs->parent == LUCID_MODEL_WORLD ? -1 : loc[bs->parent].node;
        lucid_se3 base =
            bs->parent == LUCID_MODEL_WORLD ? lucid_se3_identity() : loc[bs->parent].in_node;
        base = lucid_se3_compose(&base, &bs->placement);
        int pub = moving[b] ? (int)m->nbodies : -1;
        int mocap = bs->parent == LUCID_MODEL_WORLD ? -1 : loc[bs->parent].mocap;
        lucid_status sm = mocap_body(c, m, bodies, b, moving[b], &mocap, &base);
        if (sm != LUCID_OK) {
            free(moving);
            return sm;
        }
        if (moving[b]) {
            lucid_model_body *mb = &m->bodies[m->nbodies++];
            mb->name = make_name(bs->name, "body", b);
            if (!mb->name) {
                free(moving);
                return LUCID_ERR_NO_MEMORY;
            }
            mb->parent = pnode < 0 ? -1 : m->nodes[pnode].body;
        }
        for (size_t j = 0; j < s->njoints; ++j) {
            if (s->joint_body[j] != (int)b || joints[j].kind == LUCID_JOINT_FIXED) continue;
            const lucid_joint_spec *js = &joints[j];
            lucid_model_node *nd = &m->nodes[m->nnodes];
            nd->name = make_name(js->name, "joint", j);
            if (!nd->name) {
                free(moving);
                return LUCID_ERR_NO_MEMORY;
            }
            m->nnodes++;
            nd->kind = js->kind;
            nd->mimic = -1;
            nd->parent = pnode;
            nd->body = pub;
            nd->ref = (js->kind == LUCID_JOINT_REVOLUTE || js->kind == LUCID_JOINT_PRISMATIC)
                          ? js->ref
                          : 0.0;
            lucid_mat3 B = axis_joint(js->kind) ? axis_frame(js->axis) : lucid_mat3_identity();
            lucid_se3 J = lucid_se3_make(B, js->anchor); /* joint frame in the body frame */
            nd->X_tree = lucid_se3_compose(&base, &J);
            lucid_se3 Jinv = lucid_se3_inverse(&J);
            base = Jinv;
            nd->nq = kind_nq(js->kind);
            nd->nv = kind_nv(js->kind);
            nd->idx_q = nq;
            nd->idx_v = nv;
            nq += nd->nq;
            nv += nd->nv;
            joint_node[j] = (int)(m->nnodes - 1);
            pnode = (int)(m->nnodes - 1);
        }
        loc[b].node = pnode;
        loc[b].in_node = base;
        loc[b].public_index = pub;
        loc[b].mocap = mocap;
        if (moving[b]) {
            m->bodies[pub].node = pnode;
            m->bodies[pub].placement = base;
        }
        /* the body's inertia joins the node carrying it (welded bodies: their ancestor's) */
        lucid_inertia in = inertia_in(&base, bs->mass, bs->com, &bs->inertia);
        if (pnode >= 0) {
            inertia_add(&m->nodes[pnode].inertia, &in);
            m->bodies[m->nodes[pnode].body].mass += bs->mass;
        }
        lucid_model_frame *f = &m->frames[m->nframes];
        f->name = make_name(bs->name, "body", b);
        if (!f->name) {
            free(moving);
            return LUCID_ERR_NO_MEMORY;
        }
        m->nframes++;
        f->kind = moving[b] ? LUCID_FRAME_BODY : LUCID_FRAME_FIXED;
        f->node = pnode;
        set_frame_placement(m, f, mocap, base);
    }
    free(moving);
    m->nq = nq;
    m->nv = nv;
    for (size_t i = 0; i < s->nframes; ++i) {
        const lucid_frame_spec *fs = &s->frames[i];
        lucid_model_frame *f = &m->frames[m->nframes];
        f->name = make_name(fs->name, "frame", i);
        if (!f->name) return LUCID_ERR_NO_MEMORY;
        m->nframes++;
        f->kind = LUCID_FRAME_SITE;
        f->zone = fs->zone;
        for (int k = 0; k < 3; ++k) f->zone_size[k] = fs->zone_size[k];
        if (fs->body == LUCID_MODEL_WORLD) {
            f->node = -1;
            set_frame_placement(m, f, -1, fs->placement);
        } else {
            f->node = loc[fs->body].node;
            set_frame_placement(m, f, loc[fs->body].mocap,
                                lucid_se3_compose(&loc[fs->body].in_node, &fs->placement));
        }
    }
    for (size_t b = 0; b < m->nbodies; ++b) m->total_mass += m->bodies[b].mass;
    return LUCID_OK;
}

static lucid_status build_dofs(lucid_model *m, const lucid_joint_spec *joints,
                               const int *joint_node, size_t njoints) {
    size_t nq = m->nq, nv = m->nv;
    m->lower = alloc_array(nq, sizeof(double));
    m->upper = alloc_array(nq, sizeof(double));
    m->springref = alloc_array(nq, sizeof(double));
    m->limited = alloc_array(nq, sizeof(int));
    m->velocity_limit = alloc_array(nv, sizeof(double));
    m->effort_limit = alloc_array(nv, sizeof(double));
    m->damping = alloc_array(nv, sizeof(double));
    m->armature = alloc_array(nv, sizeof(double));
    m->stiffness = alloc_array(nv, sizeof(double));
    m->frictionloss = alloc_array(nv, sizeof(double));
    m->dof_parent = alloc_array(nv, sizeof(int));
    m->dof_node = alloc_array(nv, sizeof(int));
    m->dof_axis = alloc_array(nv, sizeof(int));
    m->ltdl_start = alloc_array(nv + 1, sizeof(size_t));
    if (!m->lower || !m->upper || !m->springref || !m->limited || !m->velocity_limit ||
        !m->effort_limit || !m->damping || !m->armature || !m->stiffness || !m->frictionloss ||
        !m->dof_parent || !m->dof_node || !m->dof_axis || !m->ltdl_start)
        return LUCID_ERR_NO_MEMORY;
    for (size_t j = 0; j < njoints; ++j) {
        if (joint_node[j] < 0) continue;
        const lucid_joint_spec *js = &joints[j];
        const lucid_model_node *nd = &m->nodes[joint_node[j]];
        for (size_t k = 0; k < nd->nq; ++k) {
            size_t iq = nd->idx_q + k;
            m->lower[iq] = -INFINITY;
            m->upper[iq] = INFINITY;
            m->springref[iq] = 0.0;
            int unit = (js->kind == LUCID_JOINT_SPHERICAL) ||
                       (js->kind == LUCID_JOINT_FREE && k >= 3) ||
                       (js->kind == LUCID_JOINT_PLANAR && k >= 2);
            if (unit) {
                m->lower[iq] = -1.0;
                m->upper[iq] = 1.0;
            }
        }
        if (nd->nq == 1) {
            m->springref[nd->idx_q] = js->springref;
            if (js->limited) {
                m->limited[nd->idx_q] = 1;
                m->lower[nd->idx_q] = js->lower;
                m->upper[nd->idx_q] = js->upper;
            }
        } else if (js->kind == LUCID_JOINT_SPHERICAL) {
            m->springref[nd->idx_q] = 1.0;
        } else if (js->kind == LUCID_JOINT_FREE) {
            m->springref[nd->idx_q + 3] = 1.0;
        } else if (js->kind == LUCID_JOINT_PLANAR) {
            m->springref[nd->idx_q + 2] = 1.0;
        }
        for (size_t k = 0; k < nd->nv; ++k) {
            size_t iv = nd->idx_v + k;
            m->velocity_limit[iv] = js->velocity_limit;
            m->effort_limit[iv] = js->effort_limit;
            m->damping[iv] = js->damping;
            m->armature[iv] = js->armature;
            m->stiffness[iv] = js->stiffness;
            m->frictionloss[iv] = js->frictionloss;
            m->dof_node[iv] = joint_node[j];
            m->dof_axis[iv] = dof_axis(js->kind, k);
            if (k > 0)
                m->dof_parent[iv] = (int)(iv - 1);
            else if (nd->parent < 0)
                m->dof_parent[iv] = -1;
            else {
                const lucid_model_node *p = &m->nodes[nd->parent];
                m->dof_parent[iv] = (int)(p->idx_v + p->nv - 1);
            }
        }
    }
    /* LTDL pattern: row k holds k's ancestors */
    m->ltdl_start[0] = 0;
    for (size_t k = 0; k < nv; ++k) {
        size_t depth = 0;
        for (int a = m->dof_parent[k]; a >= 0; a = m->dof_parent[a]) depth++;
        m->ltdl_start[k + 1] = m->ltdl_start[k] + depth;
    }
    m->ltdl_nnz = m->ltdl_start[nv];
    return LUCID_OK;
}

/* A mimic joint's target: another revolute or prismatic joint of the spec. */
static lucid_status build_mimics(const compile_ctx *c, lucid_model *m,
                                 const lucid_joint_spec *joints, const int *joint_node) {
    const lucid_model_spec *s = c->spec;
    for (size_t j = 0; j < s->njoints; ++j) {
        const lucid_joint_spec *js = &joints[j];
        if (!js->mimic || joint_node[j] < 0) continue;
        int t = lucid_model_spec_find_joint(s, js->mimic);
        if (t < 0 || (size_t)t == j || joint_node[t] < 0 ||
            (joints[t].kind != LUCID_JOINT_REVOLUTE && joints[t].kind != LUCID_JOINT_PRISMATIC))
            return fail(c, LUCID_ERR_ARGUMENT, "joint", js->name, j, js->line, "mimic: '%s' is %s",
                        js->mimic,
                        t < 0            ? "not a joint of the model"
                        : (size_t)t == j ? "the joint itself"
                                         : "not a revolute or prismatic joint");
        lucid_model_node *nd = &m->nodes[joint_node[j]];
        nd->mimic = joint_node[t];
        nd->mimic_multiplier = js->mimic_multiplier;
        nd->mimic_offset = js->mimic_offset;
    }
    return LUCID_OK;
}

/* The convex shapes of the spec's geom parts (meshes = "decompose") into m->part_shapes; the
 * parts of spec geom i are part_shapes[part_start[i] .. part_start[i + 1]). The meshes stay
 * the spec's until lucid_model_compile takes them over. */
static lucid_status build_parts(const compile_ctx *c, lucid_model *m, size_t *part_start) {
    const lucid_model_spec *s = c->spec;
    m->part_shapes = alloc_array(s->nparts, sizeof *m->part_shapes);
    if (!m->part_shapes) return LUCID_ERR_NO_MEMORY;
    size_t k = 0;
    for (size_t i = 0; i < s->ngeoms; ++i) {
        part_start[i] = k;
        for (; k < s->nparts && s->part_geom[k] == (int)i; ++k) {
            lucid_status st = lucid_shape_convex(s->part_mesh[k], &m->part_shapes[k]);
            if (st != LUCID_OK)
                return fail(c, st, "geom", s->geoms[i].name, i, s->geoms[i].line,
                            "invalid convex part %zu: %s", k - part_start[i] + 1,
                            lucid_status_string(st));
        }
    }
    part_start[s->ngeoms] = k;
    if (k != s->nparts) /* part_geom out of order or out of range */
        return fail(c, LUCID_ERR_ARGUMENT, "geom part", NULL, k, 0,
                    "its geom %d is out of range or out of order", s->part_geom[k]);
    return LUCID_OK;
}

static lucid_status build_geoms(const compile_ctx *c, lucid_model *m, const body_loc *loc) {
    const lucid_model_spec *s = c->spec;
    size_t n = s->ngeoms;
    m->geoms = alloc_array(n, sizeof *m->geoms);
    m->geom_start = alloc_array(m->nbodies + 2, sizeof *m->geom_start);
    size_t *slot = alloc_array(m->nbodies + 2, sizeof *slot);
    int *gbody = alloc_array(n, sizeof *gbody);
    size_t *part_start = alloc_array(n + 1, sizeof *part_start);
    if (!m->geoms || !m->geom_start || !slot || !gbody || !part_start) {
        free(slot);
        free(gbody);
        free(part_start);
        return LUCID_ERR_NO_MEMORY;
    }
    lucid_status st = build_parts(c, m, part_start);
    for (size_t i = 0; i < n && st == LUCID_OK; ++i) {
        lucid_geom_spec g = s->geoms[i];
        if (g.body < LUCID_MODEL_WORLD || g.body >= (int)s->nbodies) {
            st = fail(c, LUCID_ERR_ARGUMENT, "geom", g.name, i, g.line, "body %d out of range",
                      g.body);
            break;
        }
        st = check_placement(c, &g.pose, "geom", g.name, i, g.line, "pose");
        if (st != LUCID_OK) break;
        if (!isfinite(g.friction) || g.friction < 0.0) {
            st = fail(c, LUCID_ERR_ARGUMENT, "geom", g.name, i, g.line,
                      "friction must be finite and >= 0 (got %g)", g.friction);
            break;
        }
        if (!isfinite(g.torsion) || g.torsion < 0.0) {
            st = fail(c, LUCID_ERR_ARGUMENT, "geom", g.name, i, g.line,
                      "torsion must be finite and >= 0 (got %g)", g.torsion);
            break;
        }
        if (!isfinite(g.rolling) || g.rolling < 0.0) {
            st = fail(c, LUCID_ERR_ARGUMENT, "geom", g.name, i, g.line,
                      "rolling must be finite and >= 0 (got %g)", g.rolling);
            break;
        }
        if (g.condim != 1 && g.condim != 3 && g.condim != 4 && g.condim != 6) {
            st = fail(c, LUCID_ERR_ARGUMENT, "geom", g.name, i, g.line,
                      "condim must be 1, 3, 4 or 6 (got %d)", g.condim);
            break;
        }
        if (!(g.margin >= 0.0 && g.gap >= 0.0 && isfinite(g.margin) && isfinite(g.gap) &&
              isfinite(g.solmix))) {
            st = fail(c, LUCID_ERR_ARGUMENT, "geom", g.name, i, g.line,
                      "margin and gap must be finite and >= 0, solmix finite (got %g, %g, %g)",
                      g.margin, g.gap, g.solmix);
            break;
        }
        lucid_status ss = check_shape(&g.shape, s->geom_mesh[i], s);
        if (ss == LUCID_OK && part_start[i + 1] > part_start[i] &&
            g.shape.kind != LUCID_SHAPE_CONVEX)
            ss = LUCID_ERR_ARGUMENT; /* only a mesh geom is decomposed */
        if (ss != LUCID_OK) {
            st = fail(c, ss, "geom", g.name, i, g.line, "invalid %s shape: %s",
                      (unsigned)g.shape.kind <= LUCID_SHAPE_HEIGHTFIELD
                          ? lucid_shape_kind_name(g.shape.kind)
                          : "unknown",
                      lucid_status_string(ss));
            break;
        }
        int node = g.body == LUCID_MODEL_WORLD ? -1 : loc[g.body].node;
        if (node >= 0 && g.shape.kind == LUCID_SHAPE_HALFSPACE) {
            st = fail(c, LUCID_ERR_ARGUMENT, "geom", g.name, i, g.line,
                      "a plane (halfspace) must be static (on the world body)");
            break;
        }
        if (node >= 0 && g.shape.kind == LUCID_SHAPE_HEIGHTFIELD) {
            st = fail(c, LUCID_ERR_ARGUMENT, "geom", g.name, i, g.line,
                      "a height field must be static (on the world body)");
            break;
        }
        gbody[i] = node < 0 ? -1 : m->nodes[node].body;
        slot[gbody[i] + 1]++;
    }
    if (st == LUCID_OK) {
        size_t acc = 0;
        for (size_t b = 0; b < m->nbodies + 1; ++b) {
            m->geom_start[b] = acc;
            acc += slot[b];
            slot[b] = m->geom_start[b];
        }
        m->geom_start[m->nbodies + 1] = acc;
        for (size_t i = 0; i < n; ++i) {
            const lucid_geom_spec *g = &s->geoms[i];
            lucid_model_geom *mg = &m->geoms[slot[gbody[i] + 1]++];
            int node = g->body == LUCID_MODEL_WORLD ? -1 : loc[g->body].node;
            lucid_se3 pose = g->pose;
            check_placement(c, &pose, "geom", g->name, i, g->line, "pose"); /* re-projects */
            mg->body = gbody[i];
            mg->frame = g->body == LUCID_MODEL_WORLD ? -1 : g->body;
            mg->joint = node;
            mg->shape = g->shape;
            mg->pose = g->body == LUCID_MODEL_WORLD
                           ? pose
                           : lucid_se3_compose(&loc[g->body].in_node, &pose);
            mg->mocap = g->body == LUCID_MODEL_WORLD ? -1 : loc[g->body].mocap;
            mg->in_mocap = mg->mocap >= 0 ? mg->pose : lucid_se3_identity();
            if (mg->mocap >= 0) mg->pose = lucid_se3_compose(&m->mocap[mg->mocap].pose, &mg->pose);
            mg->friction = g->friction, mg->torsion = g->torsion, mg->rolling = g->rolling;
            mg->condim = g->condim, mg->priority = g->priority;
            mg->solmix = g->solmix, mg->margin = g->margin, mg->gap = g->gap;
            mg->contype = g->contype;
            mg->conaffinity = g->conaffinity;
            mg->nparts = part_start[i + 1] - part_start[i];
            mg->parts = mg->nparts ? m->part_shapes + part_start[i] : NULL;
            mg->name = NULL;
            if (g->name && !(mg->name = dup_string(g->name))) st = LUCID_ERR_NO_MEMORY;
        }
        m->ngeoms = n;
    }
    free(slot);
    free(gbody);
    free(part_start);
    return st;
}

/* The gain/bias form of actuator a (model.h): MuJoCo's for each kind. */
static void actuator_gain_bias(const lucid_actuator_spec *a, double gain[3], double bias[3]) {
    for (int k = 0; k < 3; ++k) gain[k] = 0.0, bias[k] = 0.0;
    switch (a->kind) {
        case LUCID_ACTUATOR_MOTOR:
            gain[0] = 1.0;
            break;
        case LUCID_ACTUATOR_POSITION:
            gain[0] = a->kp, bias[1] = -a->kp;
            break;
        case LUCID_ACTUATOR_VELOCITY:
            gain[0] = a->kv, bias[2] = -a->kv;
            break;
        case LUCID_ACTUATOR_DAMPER:
            gain[2] = -a->kv;
            break;
        case LUCID_ACTUATOR_INTVELOCITY: /* a position servo on the activation */
            gain[0] = a->kp, bias[1] = -a->kp;
            break;
        case LUCID_ACTUATOR_GENERAL:
        case LUCID_ACTUATOR_CYLINDER:
            for (int k = 0; k < 3; ++k) gain[k] = a->gain[k], bias[k] = a->bias[k];
            break;
        case LUCID_ACTUATOR_MUSCLE: /* the muscle curves in place of both */
            break;
    }
    if (a->gain_muscle) gain[0] = gain[1] = gain[2] = 0.0;
    if (a->bias_muscle) bias[0] = bias[1] = bias[2] = 0.0;
}

/* Tendon t's joints: 1-dof joints of the model, each once, with finite coefficients. */
static lucid_status check_tendon_joints(const compile_ctx *c, const lucid_tendon_spec *t, size_t i,
                                        const int *joint_node) {
    const lucid_model_spec *s = c->spec;
    if (t->n == 0)
        return fail(c, LUCID_ERR_ARGUMENT, "tendon", t->name, i, t->line, "has no joints");
    for (size_t k = 0; k < t->n; ++k) {
        int j = t->joints[k];
        if (j < 0 || (size_t)j >= s->njoints)
            return fail(c, LUCID_ERR_ARGUMENT, "tendon", t->name, i, t->line,
                        "joint %d out of range", j);
        lucid_joint_kind jk = s->joints[j].kind;
        const char *jn = s->joints[j].name ? s->joints[j].name : "?";
        if ((jk != LUCID_JOINT_REVOLUTE && jk != LUCID_JOINT_PRISMATIC) || joint_node[j] < 0)
            return fail(c, LUCID_ERR_ARGUMENT, "tendon", t->name, i, t->line,
                        "joint '%s' is not a hinge or slide joint", jn);
        if (!isfinite(t->coef[k]))
            return fail(c, LUCID_ERR_NONFINITE, "tendon", t->name, i, t->line,
                        "the coefficient of joint '%s' is not finite", jn);
        for (size_t l = 0; l < k; ++l)
            if (t->joints[l] == j)
                return fail(c, LUCID_ERR_ARGUMENT, "tendon", t->name, i, t->line,
                            "joint '%s' appears twice", jn);
    }
    return LUCID_OK;
}

/* Tendon t's values: finite, non-negative stiffness, damping, frictionloss and margin, and
 * lower <= upper when limited (MuJoCo's compiler checks). */
static lucid_status check_tendon_values(const compile_ctx *c, const lucid_tendon_spec *t,
                                        size_t i) {
    double v[4] = {t->stiffness, t->damping, t->frictionloss, t->margin};
    static const char *const what[4] = {"stiffness", "damping", "frictionloss", "margin"};
    for (int k = 0; k < 4; ++k)
        if (!(v[k] >= 0.0) || !isfinite(v[k]))
            return fail(c, LUCID_ERR_ARGUMENT, "tendon", t->name, i, t->line,
                        "%s must be finite and >= 0 (got %g)", what[k], v[k]);
    if (t->limited && (!isfinite(t->lower) || !isfinite(t->upper) || !(t->lower <= t->upper)))
        return fail(c, LUCID_ERR_ARGUMENT, "tendon", t->name, i, t->line,
                    "range [%g, %g] must be finite with lower <= upper", t->lower, t->upper);
    if (isinf(t->springlength))
        return fail(c, LUCID_ERR_NONFINITE, "tendon", t->name, i, t->line,
                    "springlength is not finite");
    return LUCID_OK;
}

/* The model geom that spec geom g became (build_geoms keeps the spec's order per body). */
static int model_geom(const lucid_model_spec *s, const lucid_model *m, const body_loc *loc,
                      size_t g) {
    int node = s->geoms[g].body == LUCID_MODEL_WORLD ? -1 : loc[s->geoms[g].body].node;
    int body = node < 0 ? -1 : m->nodes[node].body;
    size_t index = m->geom_start[body + 1];
    for (size_t i = 0; i < g; ++i) {
        int ni = s->geoms[i].body == LUCID_MODEL_WORLD ? -1 : loc[s->geoms[i].body].node;
        index += (ni < 0 ? -1 : m->nodes[ni].body) == body;
    }
    return (int)index;
}

/* A pair's geoms as a sort key: the smaller index first. */
typedef struct pair_slot {
    long long key;
    int index;
} pair_slot;

static int pair_slot_cmp(const void *a, const void *b) {
    long long x = ((const pair_slot *)a)->key, y = ((const pair_slot *)b)->key;
    return (x > y) - (x < y);
}

/* Spec pair p's problem, NULL if none: two different geoms, condim 1, 3, 4 or 6, finite
 * coefficients and margin, gap >= 0. */
static const char *pair_problem(const lucid_model_spec *s, const lucid_pair_spec *p) {
    if (p->geom1 < 0 || p->geom2 < 0 || (size_t)p->geom1 >= s->ngeoms ||
        (size_t)p->geom2 >= s->ngeoms)
        return "geom index out of range";
    if (p->geom1 == p->geom2) return "geom1 and geom2 are the same geom";
    if (p->condim != 1 && p->condim != 3 && p->condim != 4 && p->condim != 6)
        return "condim must be 1, 3, 4 or 6";
    const double v[5] = {p->friction, p->torsion, p->rolling, p->margin, p->gap};
    for (int k = 0; k < 5; ++k)
        if (!(v[k] >= 0.0) || !isfinite(v[k]))
            return "friction, torsion, rolling, margin and gap must be finite and >= 0";
    return NULL;
}

/* The model's explicit pairs from the spec's (geoms mapped to the model's), sorted for
 * lucid_model_find_pair; the same two geoms twice are refused (MuJoCo would collide them
 * twice). */
static lucid_status build_pairs(const compile_ctx *c, lucid_model *m, const body_loc *loc) {
    const lucid_model_spec *s = c->spec;
    size_t n = s->npairs;
    m->collision = s->collision;
    m->pairs = alloc_array(n, sizeof *m->pairs);
    m->pair_order = alloc_array(n, sizeof *m->pair_order);
    pair_slot *slot = alloc_array(n, sizeof *slot);
    if (!m->pairs || !m->pair_order || !slot) {
        free(slot);
        return LUCID_ERR_NO_MEMORY;
    }
    lucid_status st = LUCID_OK;
    if ((unsigned)s->collision > LUCID_MODEL_COLLISION_DYNAMIC)
        st = fail(c, LUCID_ERR_ARGUMENT, "model", s->name ? s->name : "", 0, 0,
                  "unknown collision mode %d", (int)s->collision);
    for (size_t i = 0; i < n && st == LUCID_OK; ++i) {
        const lucid_pair_spec *p = &s->pairs[i];
        const char *why = pair_problem(s, p);
        if (why) {
            st = fail(c, LUCID_ERR_ARGUMENT, "pair", p->name, i, p->line, "%s", why);
            break;
        }
        lucid_model_pair *q = &m->pairs[i];
        *q = (lucid_model_pair){NULL,
                                model_geom(s, m, loc, (size_t)p->geom1),
                                model_geom(s, m, loc, (size_t)p->geom2),
                                p->condim,
                                p->friction,
                                p->torsion,
                                p->rolling,
                                p->margin,
                                p->gap,
                                p->line};
        if (p->name && !(q->name = dup_string(p->name))) st = LUCID_ERR_NO_MEMORY;
        m->npairs = i + 1; /* names freed with the model from here */
        int lo = q->geom1 < q->geom2 ? q->geom1 : q->geom2;
        int hi = q->geom1 < q->geom2 ? q->geom2 : q->geom1;
        slot[i] = (pair_slot){(long long)lo << 32 | (unsigned)hi, (int)i};
    }
    if (st == LUCID_OK && n > 1) qsort(slot, n, sizeof *slot, pair_slot_cmp);
    for (size_t i = 0; i < n && st == LUCID_OK; ++i) {
        m->pair_order[i] = slot[i].index;
        if (i == 0 || slot[i].key != slot[i - 1].key) continue;
        const lucid_pair_spec *p = &s->pairs[slot[i].index];
        st = fail(c, LUCID_ERR_ARGUMENT, "pair", p->name, (size_t)slot[i].index, p->line,
                  "its two geoms already make pair #%d (MuJoCo would collide them twice)",
                  slot[i - 1].index + 1);
    }
    free(slot);
    return st;
}

/* Path element k of spatial tendon t (spec index i) into P: its site or geom posed on its node
 * (on no mocap body), a geom a sphere or a cylinder with its side site, a pulley's divisor. */
static lucid_status spatial_point(const compile_ctx *c, const lucid_model *m, const body_loc *loc,
                                  const lucid_tendon_spec *t, size_t i, size_t k,
                                  lucid_model_tendon_point *P) {
    const lucid_model_spec *s = c->spec;
    const lucid_tendon_path_spec *e = &t->path[k];
    int line = e->line > 0 ? e->line : t->line;
    memset(P, 0, sizeof *P);
    P->kind = e->kind, P->side = -1, P->side_node = -1, P->pose = lucid_se3_identity();
    if (e->kind == LUCID_TENDON_PATH_PULLEY) {
        if (!(e->divisor > 0.0) || !isfinite(e->divisor))
            return fail(c, LUCID_ERR_ARGUMENT, "tendon", t->name, i, line,
                        "a pulley's divisor must be finite and > 0 (got %g)", e->divisor);
        P->divisor = e->divisor;
        return LUCID_OK;
    }
    if (e->kind == LUCID_TENDON_PATH_SITE) {
        if (e->index < 0 || (size_t)e->index >= s->nframes)
            return fail(c, LUCID_ERR_ARGUMENT, "tendon", t->name, i, line, "site %d out of range",
                        e->index);
        const lucid_model_frame *f = &m->frames[s->nbodies + (size_t)e->index];
        if (f->mocap >= 0)
            return fail(c, LUCID_ERR_ARGUMENT, "tendon", t->name, i, line,
                        "site '%s' is on a mocap body", f->name);
        P->object = (int)(s->nbodies + (size_t)e->index);
        P->node = f->node, P->pose = f->placement;
        return LUCID_OK;
    }
    if (e->kind != LUCID_TENDON_PATH_GEOM || e->index < 0 || (size_t)e->index >= s->ngeoms)
        return fail(c, LUCID_ERR_ARGUMENT, "tendon", t->name, i, line,
                    "path element %zu is no site, geom or pulley", k + 1);
    const lucid_geom_spec *g = &s->geoms[e->index];
    const char *gn = g->name ? g->name : "?";
    if (g->shape.kind != LUCID_SHAPE_SPHERE && g->shape.kind != LUCID_SHAPE_CYLINDER)
        return fail(c, LUCID_ERR_ARGUMENT, "tendon", t->name, i, line,
                    "geom '%s' is not a sphere or a cylinder (the only wrapping geoms)", gn);
    P->object = model_geom(s, m, loc, (size_t)e->index);
    const lucid_model_geom *mg = &m->geoms[P->object];
    if (mg->mocap >= 0)
        return fail(c, LUCID_ERR_ARGUMENT, "tendon", t->name, i, line,
                    "geom '%s' is on a mocap body", gn);
    P->node = mg->joint, P->pose = mg->pose;
    P->cylinder = g->shape.kind == LUCID_SHAPE_CYLINDER;
    P->radius = P->cylinder ? g->shape.u.round.radius : g->shape.radius;
    if (e->side >= 0) {
        if ((size_t)e->side >= s->nframes)
            return fail(c, LUCID_ERR_ARGUMENT, "tendon", t->name, i, line,
                        "side site %d out of range", e->side);
        const lucid_model_frame *f = &m->frames[s->nbodies + (size_t)e->side];
        if (f->mocap >= 0)
            return fail(c, LUCID_ERR_ARGUMENT, "tendon", t->name, i, line,
                        "side site '%s' is on a mocap body", f->name);
        P->side = (int)(s->nbodies + (size_t)e->side);
        P->side_node = f->node, P->side_point = f->placement.t;
    }
    return LUCID_OK;
}

/* MuJoCo's rules for a spatial path (lucid_tendon_path_problem). */
static lucid_status check_path(const compile_ctx *c, const lucid_tendon_spec *t, size_t i) {
    size_t k = 0;
    const char *why = lucid_tendon_path_problem(t, &k);
    if (!why) return LUCID_OK;
    int line = k < t->npath && t->path[k].line > 0 ? t->path[k].line : t->line;
    return fail(c, LUCID_ERR_ARGUMENT, "tendon", t->name, i, line, "%s", why);
}

/* Spatial tendon mt's dofs: every dof on the chains of its sites, geoms and side sites. */
static lucid_status spatial_dofs(const lucid_model *m, lucid_model_tendon *mt) {
    size_t nv = m->nv, n = 0;
    char *on = alloc_array(nv, 1);
    if (!on) return LUCID_ERR_NO_MEMORY;
    memset(on, 0, nv > 0 ? nv : 1);
    for (size_t k = 0; k < mt->npath; ++k) {
        int nodes[2] = {mt->path[k].node, mt->path[k].side_node};
        if (mt->path[k].kind == LUCID_TENDON_PATH_PULLEY) continue;
        for (int e = 0; e < 2; ++e)
            for (int j = nodes[e]; j >= 0; j = m->nodes[j].parent)
                for (size_t d = 0; d < m->nodes[j].nv; ++d) on[m->nodes[j].idx_v + d] = 1;
    }
    for (size_t d = 0; d < nv; ++d) n += on[d] != 0;
    mt->joint = alloc_array(n, sizeof *mt->joint);
    mt->dof = alloc_array(n, sizeof *mt->dof);
    mt->coord = alloc_array(n, sizeof *mt->coord);
    if (!mt->joint || !mt->dof || !mt->coord) {
        free(on);
        return LUCID_ERR_NO_MEMORY;
    }
    for (size_t d = 0; d < nv; ++d) {
        if (!on[d]) continue;
        const lucid_model_node *nd = &m->nodes[m->dof_node[d]];
        mt->joint[mt->n] = m->dof_node[d];
        mt->dof[mt->n] = d, mt->coord[mt->n] = nd->idx_q + (d - nd->idx_v);
        mt->n++;
    }
    free(on);
    return LUCID_OK;
}

/* Spatial tendon t (spec index i) into mt: its path and dofs. */
static lucid_status build_spatial(const compile_ctx *c, const lucid_model *m, const body_loc *loc,
                                  const lucid_tendon_spec *t, size_t i, lucid_model_tendon *mt) {
    lucid_status st = check_path(c, t, i);
    if (st != LUCID_OK) return st;
    mt->kind = LUCID_TENDON_SPATIAL;
    mt->model = m;
    mt->path = alloc_array(t->npath, sizeof *mt->path);
    if (!mt->path) return LUCID_ERR_NO_MEMORY;
    for (size_t k = 0; k < t->npath; ++k) {
        st = spatial_point(c, m, loc, t, i, k, &mt->path[k]);
        if (st != LUCID_OK) return st;
        mt->npath++;
    }
    return spatial_dofs(m, mt);
}

/* Fixed tendon t into mt: its joints and coefficients. */
static lucid_status build_fixed(const lucid_model *m, const lucid_tendon_spec *t,
                                const int *joint_node, lucid_model_tendon *mt) {
    mt->kind = LUCID_TENDON_FIXED;
    mt->model = m;
    mt->joint = alloc_array(t->n, sizeof *mt->joint);
    mt->dof = alloc_array(t->n, sizeof *mt->dof);
    mt->coord = alloc_array(t->n, sizeof *mt->coord);
    mt->coef = alloc_array(t->n, sizeof *mt->coef);
    if (!mt->joint || !mt->dof || !mt->coord || !mt->coef) return LUCID_ERR_NO_MEMORY;
    mt->n = t->n;
    for (size_t k = 0; k < t->n; ++k) {
        const lucid_model_node *nd = &m->nodes[joint_node[t->joints[k]]];
        mt->joint[k] = joint_node[t->joints[k]];
        mt->dof[k] = nd->idx_v, mt->coord[k] = nd->idx_q;
        mt->coef[k] = t->coef[k];
    }
    return LUCID_OK;
}

/* The model's tendons from the spec's (after the joints' nodes, springrefs and geoms). */
static lucid_status build_tendons(const compile_ctx *c, lucid_model *m, const int *joint_node,
                                  const body_loc *loc) {
    const lucid_model_spec *s = c->spec;
    m->tendons = alloc_array(s->ntendons, sizeof *m->tendons);
    if (!m->tendons) return LUCID_ERR_NO_MEMORY;
    for (size_t i = 0; i < s->ntendons; ++i) {
        const lucid_tendon_spec *t = &s->tendons[i];
        if (t->n > 0 && t->npath > 0)
            return fail(c, LUCID_ERR_ARGUMENT, "tendon", t->name, i, t->line,
                        "has both joints (fixed) and a path (spatial)");
        lucid_status st = t->npath > 0 ? LUCID_OK : check_tendon_joints(c, t, i, joint_node);
        if (st == LUCID_OK) st = check_tendon_values(c, t, i);
        if (st != LUCID_OK) return st;
        lucid_model_tendon *mt = &m->tendons[m->ntendons];
        memset(mt, 0, sizeof *mt);
        mt->name = make_name(t->name, "tendon", i);
        m->ntendons++;
        if (!mt->name) return LUCID_ERR_NO_MEMORY;
        st = t->npath > 0 ? build_spatial(c, m, loc, t, i, mt) : build_fixed(m, t, joint_node, mt);
        if (st != LUCID_OK) return st;
        double spring = lucid_model_tendon_length(mt, m->springref);
        mt->limited = t->limited;
        mt->lower = t->limited ? t->lower : -INFINITY;
        mt->upper = t->limited ? t->upper : INFINITY;
        mt->margin = t->margin;
        mt->stiffness = t->stiffness, mt->damping = t->damping;
        mt->frictionloss = t->frictionloss;
        /* MuJoCo 2.2.2's tendon_lengthspring: the length at qpos_spring unless given */
        mt->springlength = isnan(t->springlength) ? spring : t->springlength;
        mt->line = t->line;
        for (size_t k = 0; k < i; ++k)
            if (strcmp(mt->name, m->tendons[k].name) == 0)
                return fail(c, LUCID_ERR_ARGUMENT, "tendon", mt->name, i, t->line,
                            "the name is used twice");
    }
    return LUCID_OK;
}

/* A slider-crank between two spec frames (sites) of spec actuator i; the model's frames follow
 * its bodies' (build_tree). */
static lucid_status crank_transmission(const compile_ctx *c, const lucid_model *m, size_t i,
                                       lucid_model_actuator *ma) {
    const lucid_model_spec *s = c->spec;
    const lucid_actuator_spec *a = &s->actuators[i];
    const char *nm = a->name;
    if (a->crank < 0 || a->slider < 0 || (size_t)a->crank >= s->nframes ||
        (size_t)a->slider >= s->nframes)
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                    "a slider-crank needs a crank and a slider frame (got %d, %d)", a->crank,
                    a->slider);
    if (!(a->cranklength > 0.0) || !isfinite(a->cranklength))
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                    "a slider-crank needs cranklength > 0 (got %g)", a->cranklength);
    ma->crank = (int)(s->nbodies + (size_t)a->crank);
    ma->slider = (int)(s->nbodies + (size_t)a->slider);
    if (m->frames[ma->crank].mocap >= 0 || m->frames[ma->slider].mocap >= 0)
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                    "a slider-crank's frames must not be on a mocap body");
    ma->cranklength = a->cranklength;
    ma->model = m;
    return LUCID_OK;
}

/* The transmission of spec actuator a: a 1-dof joint, a tendon of m or a slider-crank. */
static lucid_status actuator_transmission(const compile_ctx *c, const lucid_model *m, size_t i,
                                          const int *joint_node, lucid_model_actuator *ma) {
    const lucid_model_spec *s = c->spec;
    const lucid_actuator_spec *a = &s->actuators[i];
    const char *nm = a->name;
    ma->tendon = NULL, ma->tendon_index = -1, ma->joint = -1, ma->dof = 0, ma->coord = 0;
    ma->crank = ma->slider = -1, ma->cranklength = 0.0, ma->model = NULL;
    if (a->crank >= 0 || a->slider >= 0) return crank_transmission(c, m, i, ma);
    if (a->tendon >= 0) {
        if ((size_t)a->tendon >= m->ntendons)
            return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line, "tendon %d out of range",
                        a->tendon);
        ma->tendon = &m->tendons[a->tendon];
        ma->tendon_index = a->tendon;
        return LUCID_OK;
    }
    if (a->joint < 0 || (size_t)a->joint >= s->njoints)
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line, "joint %d out of range",
                    a->joint);
    lucid_joint_kind jk = s->joints[a->joint].kind;
    if (jk != LUCID_JOINT_REVOLUTE && jk != LUCID_JOINT_PRISMATIC)
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                    "acts on joint '%s', which is not revolute or prismatic",
                    s->joints[a->joint].name ? s->joints[a->joint].name : "?");
    ma->joint = joint_node[a->joint];
    ma->dof = m->nodes[ma->joint].idx_v;
    ma->coord = m->nodes[ma->joint].idx_q;
    return LUCID_OK;
}

/* Spec actuator a's dynamics: a known dyn, the kinds' own (intvelocity: an integrator with an
 * activation range, cylinder: a filter), a filter's time constant finite and > 0 (MuJoCo
 * takes max(1e-15, timeconst) silently), an activation range only with an activation. */
static lucid_status check_dynamics(const compile_ctx *c, const lucid_actuator_spec *a, size_t i) {
    const char *nm = a->name;
    if ((unsigned)a->dyn > LUCID_ACTUATOR_DYN_MUSCLE)
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line, "unknown dynamics %d",
                    (int)a->dyn);
    if (a->kind == LUCID_ACTUATOR_MUSCLE &&
        (a->dyn != LUCID_ACTUATOR_DYN_MUSCLE || !a->gain_muscle || !a->bias_muscle))
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                    "a muscle has muscle dynamics, gain and bias");
    if (a->dyn == LUCID_ACTUATOR_DYN_MUSCLE &&
        !(a->muscle_tau[0] > 0.0 && a->muscle_tau[1] > 0.0 && lucid_all_finite(a->muscle_tau, 2)))
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                    "muscle dynamics need finite time constants > 0 (got %g, %g)", a->muscle_tau[0],
                    a->muscle_tau[1]);
    if (a->kind == LUCID_ACTUATOR_INTVELOCITY &&
        (a->dyn != LUCID_ACTUATOR_DYN_INTEGRATOR || !a->act_limited))
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                    "an intvelocity actuator integrates its input within an activation range");
    if (a->kind == LUCID_ACTUATOR_CYLINDER && a->dyn != LUCID_ACTUATOR_DYN_FILTER)
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                    "a cylinder filters its input (dyn filter)");
    if (a->kind != LUCID_ACTUATOR_INTVELOCITY && a->kind != LUCID_ACTUATOR_CYLINDER &&
        a->kind != LUCID_ACTUATOR_GENERAL && a->kind != LUCID_ACTUATOR_MUSCLE &&
        a->dyn != LUCID_ACTUATOR_DYN_NONE)
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                    "only general, intvelocity, cylinder and muscle actuators have dynamics");
    if (a->dyn == LUCID_ACTUATOR_DYN_FILTER && (!(a->timeconst > 0.0) || !isfinite(a->timeconst)))
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                    "a filter needs a finite time constant > 0 (got %g)", a->timeconst);
    if (a->act_limited && a->dyn == LUCID_ACTUATOR_DYN_NONE)
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                    "an activation range needs an activation (dyn integrator or filter)");
    if (a->act_limited &&
        (!isfinite(a->act_lower) || !isfinite(a->act_upper) || !(a->act_lower < a->act_upper)))
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                    "the activation range [%g, %g] must be finite with lower < upper", a->act_lower,
                    a->act_upper);
    return LUCID_OK;
}

/* A muscle curve's parameters (model_spec.h) as MuJoCo's compiler checks them; which: "gain"
 * or "bias". */
static lucid_status check_muscle_prm(const compile_ctx *c, const lucid_actuator_spec *a, size_t i,
                                     const double *prm, const char *which) {
    const char *nm = a->name;
    if (!lucid_all_finite(prm, LUCID_MUSCLE_PRM))
        return fail(c, LUCID_ERR_NONFINITE, "actuator", nm, i, a->line,
                    "a muscle %sprm value is not finite", which);
    if (!(prm[0] < prm[1]))
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                    "a muscle %s needs range[0] < range[1] (got %g, %g)", which, prm[0], prm[1]);
    if (!(prm[4] < 1.0 && prm[5] > 1.0))
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                    "a muscle %s needs lmin < 1 < lmax (got %g, %g)", which, prm[4], prm[5]);
    if (!(prm[3] > 0.0 && prm[6] > 0.0 && prm[7] > 0.0 && prm[8] > 0.0))
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                    "a muscle %s needs scale, vmax, fpmax and fvmax > 0", which);
    return LUCID_OK;
}

/* A muscle gain or bias: its parameters and its length range (given, or computed later by
 * muscle_lengthranges). */
static lucid_status check_muscle(const compile_ctx *c, const lucid_actuator_spec *a, size_t i) {
    if (!a->gain_muscle && !a->bias_muscle) return LUCID_OK;
    if (a->kind != LUCID_ACTUATOR_GENERAL && a->kind != LUCID_ACTUATOR_MUSCLE)
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", a->name, i, a->line,
                    "only general and muscle actuators have muscle curves");
    lucid_status st = LUCID_OK;
    if (a->gain_muscle) st = check_muscle_prm(c, a, i, a->gainprm, "gain");
    if (st == LUCID_OK && a->bias_muscle) st = check_muscle_prm(c, a, i, a->biasprm, "bias");
    if (st == LUCID_OK && !a->lengthrange_compute &&
        !(isfinite(a->lengthrange[0]) && isfinite(a->lengthrange[1]) &&
          a->lengthrange[0] < a->lengthrange[1]))
        st = fail(c, LUCID_ERR_ARGUMENT, "actuator", a->name, i, a->line,
                  "a muscle needs a length range lower < upper (got %g, %g)", a->lengthrange[0],
                  a->lengthrange[1]);
    return st;
}

static lucid_status build_actuators(const compile_ctx *c, lucid_model *m, const int *joint_node) {
    const lucid_model_spec *s = c->spec;
    m->actuators = alloc_array(s->nactuators, sizeof *m->actuators);
    if (!m->actuators) return LUCID_ERR_NO_MEMORY;
    for (size_t i = 0; i < s->nactuators; ++i) {
        const lucid_actuator_spec *a = &s->actuators[i];
        const char *nm = a->name;
        lucid_model_actuator trn;
        lucid_status st = actuator_transmission(c, m, i, joint_node, &trn);
        if (st != LUCID_OK) return st;
        if ((unsigned)a->kind > LUCID_ACTUATOR_MUSCLE)
            return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                        "unknown actuator kind %d", (int)a->kind);
        if (!isfinite(a->gear) || !isfinite(a->kp) || !isfinite(a->kv) ||
            !lucid_all_finite(a->gain, 3) || !lucid_all_finite(a->bias, 3) ||
            (a->ctrl_limited && (!isfinite(a->ctrl_lower) || !isfinite(a->ctrl_upper))) ||
            (a->force_limited && (!isfinite(a->force_lower) || !isfinite(a->force_upper))))
            return fail(c, LUCID_ERR_NONFINITE, "actuator", nm, i, a->line,
                        "a value is not finite");
        if (a->gear == 0.0)
            return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line, "gear is 0");
        if (a->kind == LUCID_ACTUATOR_POSITION && !(a->kp > 0.0))
            return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                        "a position servo needs kp > 0 (got %g)", a->kp);
        if (a->kind == LUCID_ACTUATOR_VELOCITY && !(a->kv > 0.0))
            return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                        "a velocity servo needs kv > 0 (got %g)", a->kv);
        if (a->kind == LUCID_ACTUATOR_DAMPER &&
            (!(a->kv >= 0.0) || !a->ctrl_limited || a->ctrl_lower < 0.0))
            return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                        "a damper needs kv >= 0 and a control range within [0, inf)");
        if ((a->ctrl_limited && a->ctrl_lower > a->ctrl_upper) ||
            (a->force_limited && a->force_lower > a->force_upper))
            return fail(c, LUCID_ERR_ARGUMENT, "actuator", nm, i, a->line,
                        "a lower limit is above its upper limit");
        st = check_dynamics(c, a, i);
        if (st == LUCID_OK) st = check_muscle(c, a, i);
        if (st != LUCID_OK) return st;
        lucid_model_actuator *ma = &m->actuators[m->nu];
        ma->name = make_name(nm, "actuator", i);
        if (!ma->name) return LUCID_ERR_NO_MEMORY;
        m->nu++;
        ma->kind = a->kind;
        ma->tendon = trn.tendon, ma->tendon_index = trn.tendon_index;
        ma->crank = trn.crank, ma->slider = trn.slider, ma->cranklength = trn.cranklength;
        ma->model = trn.model;
        ma->joint = trn.joint, ma->dof = trn.dof, ma->coord = trn.coord;
        ma->gear = a->gear;
        ma->kp = a->kind == LUCID_ACTUATOR_POSITION ? a->kp : 0.0;
        actuator_gain_bias(a, ma->gain, ma->bias);
        ma->ctrl_limited = a->ctrl_limited;
        ma->ctrl_lower = a->ctrl_limited ? a->ctrl_lower : -INFINITY;
        ma->ctrl_upper = a->ctrl_limited ? a->ctrl_upper : INFINITY;
        ma->force_limited = a->force_limited;
        ma->force_lower = a->force_limited ? a->force_lower : -INFINITY;
        ma->force_upper = a->force_limited ? a->force_upper : INFINITY;
        ma->dyn = a->dyn;
        ma->muscle_tau[0] = a->muscle_tau[0], ma->muscle_tau[1] = a->muscle_tau[1];
        ma->gain_muscle = a->gain_muscle, ma->bias_muscle = a->bias_muscle;
        memcpy(ma->gainprm, a->gainprm, sizeof ma->gainprm);
        memcpy(ma->biasprm, a->biasprm, sizeof ma->biasprm);
        ma->lengthrange[0] = a->lengthrange[0], ma->lengthrange[1] = a->lengthrange[1];
        ma->act = a->dyn == LUCID_ACTUATOR_DYN_NONE ? -1 : (int)m->na++;
        ma->timeconst = a->dyn == LUCID_ACTUATOR_DYN_FILTER ? a->timeconst : 0.0;
        ma->act_limited = a->act_limited;
        ma->act_lower = a->act_limited ? a->act_lower : -INFINITY;
        ma->act_upper = a->act_limited ? a->act_upper : INFINITY;
    }
    return LUCID_OK;
}

/* Every node must carry some inertia in its subtree (or armature on each of its dofs). */
static lucid_status check_massless(const compile_ctx *c, const lucid_model *m) {
    size_t n = m->nnodes;
    double *sub = alloc_array(n, sizeof *sub);
    if (!sub) return LUCID_ERR_NO_MEMORY;
    for (size_t i = n; i-- > 0;) {
        const lucid_inertia *in = &m->nodes[i].inertia;
        sub[i] += in->mass + lucid_mat3_trace(&in->I);
        if (m->nodes[i].parent >= 0) sub[m->nodes[i].parent] += sub[i];
    }
    lucid_status st = LUCID_OK;
    for (size_t i = 0; i < n && st == LUCID_OK; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        int armed = 1;
        for (size_t k = 0; k < nd->nv; ++k) armed = armed && m->armature[nd->idx_v + k] > 0.0;
        if (!(sub[i] > 0.0) && !armed) {
            int line = 0;
            int sj = lucid_model_spec_find_joint(c->spec, nd->name);
            if (sj >= 0) line = c->spec->joints[sj].line;
            st = fail(c, LUCID_ERR_SINGULAR, "joint", nd->name, i, line,
                      "moves no mass (every body it carries is massless): the mass matrix "
                      "would be singular");
        }
    }
    free(sub);
    return st;
}

/* ---- computed muscle length ranges ----------------------------------------------------------
 * MuJoCo 2.2.2 finds a muscle's missing length range by simulating the model with the actuator
 * pushing its transmission to each extreme until joint limits stop it. lucid computes those
 * extremes directly: min and max of L(q) over the box of the ranges of the joints that move
 * the transmission, by projected gradient descent with the moment dL/dq from the box's centre
 * and each corner. A transmission moved by an unlimited or multi-dof joint (where MuJoCo's
 * simulation meets no limit either) is refused by name. */
enum {
    LR_MAX_JOINTS = 10,  /* 2^10 corner starts at most */
    LR_MAX_ITERS = 1000, /* projected-gradient iterations per start */
};

typedef struct lr_search {
    const lucid_model_actuator *A;
    size_t k;                    /* the joints moving the transmission */
    size_t dof[LR_MAX_JOINTS];   /* their dofs */
    size_t coord[LR_MAX_JOINTS]; /* their coordinates */
    double lo[LR_MAX_JOINTS], hi[LR_MAX_JOINTS];
    double width;      /* the widest range */
    double *q, *x, *g; /* nq, nq (both neutral outside the k coordinates), nv */
} lr_search;

static double clampd(double v, double lo, double hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

/* One Armijo-accepted projected step of sign * L from q along -g (step t, adapted); 0 when no
 * step decreases it any more (a constrained stationary point, to rounding). The decrease asked
 * is the customary 1e-4 of the linear prediction; steps below 1e-15 of the widest range are
 * rounding. */
static int lr_step(const lr_search *S, double sign, double *f, double *t, double gn) {
    double *q = S->q, *x = S->x, *g = S->g;
    for (; *t * gn > 1e-15 * S->width; *t *= 0.5) {
        double dec = 0.0, step = 0.0;
        for (size_t j = 0; j < S->k; ++j) {
            size_t c = S->coord[j];
            x[c] = clampd(q[c] - *t * g[S->dof[j]], S->lo[j], S->hi[j]);
            dec += g[S->dof[j]] * (q[c] - x[c]), step = fmax(step, fabs(q[c] - x[c]));
        }
        if (step <= 1e-15 * S->width) return 0; /* pinned at bounds the gradient pushes into */
        double fx = sign * lucid_model_actuator_length(S->A, x);
        if (fx <= *f - 1e-4 * dec) {
            for (size_t j = 0; j < S->k; ++j) q[S->coord[j]] = x[S->coord[j]];
            *f = fx, *t *= 2.0;
            return 1;
        }
    }
    return 0;
}

/* L at the end of descending sign * L from start (sign 1: towards the minimum, -1: maximum);
 * *stalled is set when LR_MAX_ITERS steps did not reach a stationary point. */
static double lr_descend(const lr_search *S, double sign, const double *start, int *stalled) {
    for (size_t j = 0; j < S->k; ++j) S->q[S->coord[j]] = S->x[S->coord[j]] = start[j];
    double f = sign * lucid_model_actuator_length(S->A, S->q), t = 0.0;
    for (int it = 0; it < LR_MAX_ITERS; ++it) {
        for (size_t j = 0; j < S->k; ++j) S->g[S->dof[j]] = 0.0;
        lucid_model_actuator_add_moment(S->A, S->q, sign, S->g);
        double gn = 0.0;
        for (size_t j = 0; j < S->k; ++j) gn = fmax(gn, fabs(S->g[S->dof[j]]));
        if (gn == 0.0) return sign * f;
        if (t == 0.0) t = S->width / gn;
        if (!lr_step(S, sign, &f, &t, gn)) return sign * f;
    }
    *stalled = 1;
    return sign * f;
}

/* The joints moving A's transmission into S (their limits as the box); an error naming the
 * first that is not a limited 1-dof joint. */
static lucid_status lr_joints(const compile_ctx *c, const lucid_model *m, size_t a, lr_search *S) {
    const lucid_model_actuator *A = &m->actuators[a];
    const lucid_actuator_spec *as = &c->spec->actuators[a];
    size_t n = A->tendon ? A->tendon->n : 1;
    if (A->crank >= 0)
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", A->name, a, as->line,
                    "a muscle on a slider-crank needs 'lengthrange' (lucid computes one only "
                    "for joint and tendon transmissions)");
    if (n > LR_MAX_JOINTS)
        return fail(c, LUCID_ERR_ARGUMENT, "actuator", A->name, a, as->line,
                    "a muscle moved by %zu joints needs 'lengthrange' (lucid computes one for "
                    "at most %d)",
                    n, (int)LR_MAX_JOINTS);
    S->k = n, S->width = 0.0;
    for (size_t j = 0; j < n; ++j) {
        size_t dof = A->tendon ? A->tendon->dof[j] : A->dof;
        const lucid_model_node *N = &m->nodes[m->dof_node[dof]];
        size_t q = N->idx_q;
        if (N->nq != 1 || N->nv != 1 || N->mimic >= 0 || !m->limited[q])
            return fail(c, LUCID_ERR_ARGUMENT, "actuator", A->name, a, as->line,
                        "a muscle needs 'lengthrange' when joint '%s' moving it is not a "
                        "limited hinge or slide (MuJoCo finds the range by simulation; lucid "
                        "computes it over the joints' ranges)",
                        N->name);
        S->dof[j] = dof, S->coord[j] = q, S->lo[j] = m->lower[q], S->hi[j] = m->upper[q];
        S->width = fmax(S->width, S->hi[j] - S->lo[j]);
    }
    return LUCID_OK;
}

/* A's range: the least and greatest L found from the box's centre and its 2^k corners; 0 when
 * a descent stalled. */
static int lr_extremes(const lr_search *S, double lr[2]) {
    int stalled = 0;
    double start[LR_MAX_JOINTS];
    lr[0] = INFINITY, lr[1] = -INFINITY;
    for (size_t corner = 0; corner <= ((size_t)1 << S->k); ++corner) {
        for (size_t j = 0; j < S->k; ++j) /* the last "corner" is the centre */
            start[j] = corner == ((size_t)1 << S->k) ? 0.5 * (S->lo[j] + S->hi[j])
                       : (corner >> j) & 1           ? S->hi[j]
                                                     : S->lo[j];
        lr[0] = fmin(lr[0], lr_descend(S, 1.0, start, &stalled));
        lr[1] = fmax(lr[1], lr_descend(S, -1.0, start, &stalled));
    }
    return !stalled;
}

/* Each muscle whose spec asks for it gets its length range computed (see above); a model with
 * equality constraints or limited tendons is refused (they bound the configurations MuJoCo's
 * simulation reaches, the joints' box does not). */
/* MuJoCo's uselimit: a limited joint's or tendon's range, when it is A's transmission, is A's
 * length range as it is (MuJoCo 2.2.2 copies it without the gear); 0 when neither applies. */
static int lr_from_limit(const lucid_model *m, lucid_model_actuator *A) {
    const lucid_model_tendon *T = A->tendon;
    if (T && T->limited)
        A->lengthrange[0] = T->lower, A->lengthrange[1] = T->upper;
    else if (!T && A->crank < 0 && m->limited[A->coord])
        A->lengthrange[0] = m->lower[A->coord], A->lengthrange[1] = m->upper[A->coord];
    else
        return 0;
    return 1;
}

static lucid_status muscle_lengthranges(const compile_ctx *c, lucid_model *m) {
    lr_search S = {0};
    lucid_status st = LUCID_OK;
    for (size_t a = 0; st == LUCID_OK && a < m->nu; ++a) {
        lucid_model_actuator *A = &m->actuators[a];
        const lucid_actuator_spec *as = &c->spec->actuators[a];
        if (!as->lengthrange_compute || (!as->gain_muscle && !as->bias_muscle)) continue;
        if (as->lengthrange_uselimit && lr_from_limit(m, A)) {
            if (!(A->lengthrange[0] < A->lengthrange[1]))
                return fail(c, LUCID_ERR_ARGUMENT, "actuator", A->name, a, as->line,
                            "its transmission's range (%g, %g) is empty", A->lengthrange[0],
                            A->lengthrange[1]);
            continue;
        }
        int tendon_limits = 0;
        for (size_t t = 0; t < m->ntendons; ++t) tendon_limits |= m->tendons[t].limited;
        if (c->spec->nequalities > 0 || tendon_limits)
            return fail(c, LUCID_ERR_ARGUMENT, "actuator", A->name, a, as->line,
                        "a muscle needs 'lengthrange' in a model with %s (lucid computes one "
                        "over the joints' ranges alone)",
                        tendon_limits ? "limited tendons" : "equality constraints");
        st = lr_joints(c, m, a, &S);
        if (st == LUCID_OK && !S.q) {
            S.q = alloc_array(m->nq, sizeof *S.q), S.x = alloc_array(m->nq, sizeof *S.x);
            S.g = alloc_array(m->nv, sizeof *S.g);
            if (!S.q || !S.x || !S.g) st = LUCID_ERR_NO_MEMORY;
            if (st == LUCID_OK) lucid_model_neutral(m, S.q), lucid_model_neutral(m, S.x);
        }
        if (st != LUCID_OK) break;
        S.A = A;
        if (!lr_extremes(&S, A->lengthrange))
            st = fail(c, LUCID_ERR_ARGUMENT, "actuator", A->name, a, as->line,
                      "its length range's search did not converge in %d steps: give "
                      "'lengthrange'",
                      (int)LR_MAX_ITERS);
        else if (!(A->lengthrange[0] < A->lengthrange[1]))
            st = fail(c, LUCID_ERR_ARGUMENT, "actuator", A->name, a, as->line,
                      "the computed length range is empty (%g, %g): the joints' ranges do not "
                      "change its length",
                      A->lengthrange[0], A->lengthrange[1]);
    }
    free(S.q), free(S.x), free(S.g);
    return st;
}

/* The mass matrix at the neutral configuration must be positive definite. */
/* Each actuator's acc0 = |M^-1 dL/dq| at the neutral configuration (MuJoCo 2.2.2's mj_setConst
 * at qpos0); a muscle whose peak force is scale / acc0 needs acc0 > 0. */
static lucid_status actuator_acc0(const compile_ctx *c, lucid_model *m) {
    if (m->nu == 0) return LUCID_OK;
    lucid_model_data *d;
    lucid_status st = lucid_model_data_create(m, &d);
    if (st != LUCID_OK) return st;
    double *q = alloc_array(m->nq, sizeof *q), *r = alloc_array(m->nv, sizeof *r);
    if (!q || !r) st = LUCID_ERR_NO_MEMORY;
    if (st == LUCID_OK) {
        lucid_model_neutral(m, q);
        lucid_model_crba(m, d, q);
        lucid_model_ltdl(m, d);
    }
    for (size_t a = 0; st == LUCID_OK && a < m->nu; ++a) {
        lucid_model_actuator *A = &m->actuators[a];
        memset(r, 0, m->nv * sizeof *r);
        lucid_model_actuator_add_moment(A, q, 1.0, r);
        lucid_model_mass_solve(m, d, r, m->nv, 1);
        double n2 = 0.0;
        for (size_t k = 0; k < m->nv; ++k) n2 += r[k] * r[k];
        A->acc0 = sqrt(n2);
        int scaled =
            (A->gain_muscle && A->gainprm[2] < 0.0) || (A->bias_muscle && A->biasprm[2] < 0.0);
        if (scaled && !(A->acc0 > 0.0))
            st = fail(c, LUCID_ERR_ARGUMENT, "actuator", A->name, a, c->spec->actuators[a].line,
                      "a muscle whose force is scale / acc0 moves nothing at the neutral "
                      "configuration (acc0 = 0)");
    }
    free(q), free(r);
    lucid_model_data_destroy(d);
    return st;
}

static lucid_status check_mass_matrix(const compile_ctx *c, const lucid_model *m) {
    lucid_model_data *d;
    lucid_status st = lucid_model_data_create(m, &d);
    if (st != LUCID_OK) return st;
    double *q = alloc_array(m->nq, sizeof *q);
    if (!q) {
        lucid_model_data_destroy(d);
        return LUCID_ERR_NO_MEMORY;
    }
    lucid_model_neutral(m, q);
    lucid_model_crba(m, d, q);
    lucid_model_ltdl(m, d);
    double scale = 0.0;
    for (size_t k = 0; k < m->nv; ++k) scale = fmax(scale, d->M[k + m->nv * k]);
    for (size_t k = m->nv; k-- > 0 && st == LUCID_OK;) { /* the order of the factorisation */
        if (!(d->D[k] > 1e-12 * scale)) {
            const lucid_model_node *nd = &m->nodes[m->dof_node[k]];
            int line = 0;
            int sj = lucid_model_spec_find_joint(c->spec, nd->name);
            if (sj >= 0) line = c->spec->joints[sj].line;
            st = fail(c, LUCID_ERR_SINGULAR, "joint", nd->name, (size_t)m->dof_node[k], line,
                      "the mass matrix is singular at the neutral configuration (dof %zu is "
                      "redundant with the joints it carries, or moves no mass)",
                      k - nd->idx_v + 1);
        }
    }
    free(q);
    lucid_model_data_destroy(d);
    return st;
}

/* MuJoCo's qpos and qvel sizes of a spec joint (-1: a kind MJCF has not, planar). */
static int mujoco_dims(lucid_joint_kind k, size_t *nq, size_t *nv) {
    switch (k) {
        case LUCID_JOINT_FREE:
            return *nq = 7, *nv = 6, 0;
        case LUCID_JOINT_SPHERICAL:
            return *nq = 4, *nv = 3, 0;
        case LUCID_JOINT_REVOLUTE:
        case LUCID_JOINT_PRISMATIC:
            return *nq = 1, *nv = 1, 0;
        case LUCID_JOINT_FIXED:
            return *nq = 0, *nv = 0, 0;
        default:
            return -1;
    }
}

/* The unit quaternion of x[0..3] (w, x, y, z); 0 when its norm is 0 or not finite. */
static int unit_quat(const double *x, lucid_quat *q) {
    double n = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3]);
    if (!(n > 0.0) || !isfinite(n)) return 0;
    *q = lucid_quat_make(x[0] / n, x[1] / n, x[2] / n, x[3] / n);
    return 1;
}

/* Keyframe k's MuJoCo qpos/qvel into lucid's q, v (q, v start neutral and zero). */
static lucid_status key_state(const compile_ctx *c, const lucid_model *m, const int *joint_node,
                              size_t k, double *q, double *v) {
    const lucid_model_spec *s = c->spec;
    const lucid_keyframe_spec *K = &s->keyframes[k];
    const char *nm = K->name;
    size_t aq = 0, av = 0;
    for (size_t j = 0; j < s->njoints; ++j) {
        size_t nq, nv;
        if (mujoco_dims(s->joints[j].kind, &nq, &nv) < 0)
            return fail(c, LUCID_ERR_ARGUMENT, "keyframe", nm, k, K->line,
                        "joint '%s' has a kind MuJoCo's keyframes do not know",
                        s->joints[j].name ? s->joints[j].name : "?");
        const lucid_model_node *nd = &m->nodes[joint_node[j]];
        const double *x = K->nqpos ? K->qpos + aq : NULL, *xd = K->nqvel ? K->qvel + av : NULL;
        double *y = q + nd->idx_q, *yd = v + nd->idx_v;
        aq += nq, av += nv;
        if (nq == 0) continue;
        lucid_quat r = lucid_quat_identity();
        if (x && nq >= 4 && !unit_quat(x + nq - 4, &r))
            return fail(c, LUCID_ERR_ARGUMENT, "keyframe", nm, k, K->line,
                        "joint '%s': the quaternion has no direction",
                        s->joints[j].name ? s->joints[j].name : "?");
        if (nd->kind == LUCID_JOINT_FREE) {
            /* MuJoCo: the world pose and (v_world, w_body); lucid: the pose relative to the
             * placement and the body twist (R^T v_world, w_body) */
            lucid_se3 X = lucid_se3_identity();
            if (x)
                X.R = lucid_quat_to_mat3(r), X.t = lucid_vec3_load(x);
            else
                X = nd->X_tree;
            lucid_se3 L = lucid_se3_between(&nd->X_tree, &X);
            lucid_quat lq = lucid_se3_to_quat(&L);
            lucid_vec3_store(L.t, y);
            y[3] = lq.w, y[4] = lq.x, y[5] = lq.y, y[6] = lq.z;
            if (xd) {
                lucid_vec3_store(lucid_mat3_tmul_vec(&X.R, lucid_vec3_load(xd)), yd);
                for (int i = 3; i < 6; ++i) yd[i] = xd[i];
            }
            continue;
        }
        if (x && nq == 4) y[0] = r.w, y[1] = r.x, y[2] = r.y, y[3] = r.z;
        if (x && nq == 1) y[0] = x[0];
        if (xd)
            for (size_t i = 0; i < nv; ++i) yd[i] = xd[i];
    }
    if ((K->nqpos && K->nqpos != aq) || (K->nqvel && K->nqvel != av) ||
        (K->nctrl && K->nctrl != s->nactuators))
        return fail(c, LUCID_ERR_ARGUMENT, "keyframe", nm, k, K->line,
                    "%s has %zu numbers, the model %zu",
                    K->nqpos && K->nqpos != aq   ? "qpos"
                    : K->nqvel && K->nqvel != av ? "qvel"
                                                 : "ctrl",
                    K->nqpos && K->nqpos != aq   ? K->nqpos
                    : K->nqvel && K->nqvel != av ? K->nqvel
                                                 : K->nctrl,
                    K->nqpos && K->nqpos != aq   ? aq
                    : K->nqvel && K->nqvel != av ? av
                                                 : s->nactuators);
    return LUCID_OK;
}

/* Keyframe k's mpos/mquat (3 and 4 per mocap body) as poses; absent: the initial poses. */
static lucid_status key_mocap(const compile_ctx *c, const lucid_model *m, size_t k,
                              lucid_se3 *poses) {
    const lucid_keyframe_spec *K = &c->spec->keyframes[k];
    if ((K->nmpos && K->nmpos != 3 * m->nmocap) || (K->nmquat && K->nmquat != 4 * m->nmocap))
        return fail(c, LUCID_ERR_ARGUMENT, "keyframe", K->name, k, K->line,
                    "%s has %zu numbers, the model's %zu mocap bodies need %zu",
                    K->nmpos && K->nmpos != 3 * m->nmocap ? "mpos" : "mquat",
                    K->nmpos && K->nmpos != 3 * m->nmocap ? K->nmpos : K->nmquat, m->nmocap,
                    (K->nmpos && K->nmpos != 3 * m->nmocap ? 3 : 4) * m->nmocap);
    for (size_t b = 0; b < m->nmocap; ++b) {
        poses[b] = m->mocap[b].pose;
        if (K->nmpos) poses[b].t = lucid_vec3_load(K->mpos + 3 * b);
        lucid_quat r;
        if (K->nmquat && !unit_quat(K->mquat + 4 * b, &r))
            return fail(c, LUCID_ERR_ARGUMENT, "keyframe", K->name, k, K->line,
                        "mquat of mocap body '%s' has no direction", m->mocap[b].name);
        if (K->nmquat) poses[b].R = lucid_quat_to_mat3(r);
        if (!se3_isfinite(&poses[b]))
            return fail(c, LUCID_ERR_NONFINITE, "keyframe", K->name, k, K->line,
                        "mpos of mocap body '%s' is not finite", m->mocap[b].name);
    }
    return LUCID_OK;
}

static lucid_status build_keyframes(const compile_ctx *c, lucid_model *m, const int *joint_node) {
    const lucid_model_spec *s = c->spec;
    if (s->nkeyframes == 0) return LUCID_OK;
    m->keyframes = alloc_array(s->nkeyframes, sizeof *m->keyframes);
    if (!m->keyframes) return LUCID_ERR_NO_MEMORY;
    size_t n = m->nq + m->nv + m->nu + m->na;
    for (size_t k = 0; k < s->nkeyframes; ++k) {
        const lucid_keyframe_spec *K = &s->keyframes[k];
        lucid_model_keyframe *mk = &m->keyframes[m->nkeyframes];
        mk->name = dup_string(K->name ? K->name : "");
        mk->q = alloc_array(n, sizeof *mk->q); /* zeros */
        m->nkeyframes++;                       /* destroy frees what was allocated */
        if (!mk->name || !mk->q) return LUCID_ERR_NO_MEMORY;
        if (m->nmocap && !(mk->mocap = alloc_array(m->nmocap, sizeof *mk->mocap)))
            return LUCID_ERR_NO_MEMORY;
        mk->v = mk->q + m->nq, mk->u = mk->v + m->nv, mk->act = mk->u + m->nu;
        lucid_model_neutral(m, mk->q);
        lucid_status st = key_state(c, m, joint_node, k, mk->q, mk->v);
        if (st == LUCID_OK) st = key_mocap(c, m, k, mk->mocap);
        if (st != LUCID_OK) return st;
        for (size_t a = 0; a < K->nctrl; ++a) mk->u[a] = K->ctrl[a];
        if (K->nact && K->nact != m->na)
            return fail(c, LUCID_ERR_ARGUMENT, "keyframe", K->name, k, K->line,
                        "act has %zu numbers, the model %zu activations", K->nact, m->na);
        for (size_t a = 0; a < K->nact; ++a) mk->act[a] = K->act[a];
        if (!lucid_all_finite(mk->q, n))
            return fail(c, LUCID_ERR_NONFINITE, "keyframe", K->name, k, K->line,
                        "a value is not finite");
        for (size_t i = 0; i < k; ++i)
            if (K->name && m->keyframes[i].name[0] && strcmp(K->name, m->keyframes[i].name) == 0)
                return fail(c, LUCID_ERR_ARGUMENT, "keyframe", K->name, k, K->line,
                            "the name is used twice");
    }
    return LUCID_OK;
}

/* The spec's equality constraints and mimic couplings (model_equality.c). */
static lucid_status equalities(const compile_ctx *c, lucid_model *m, const body_loc *loc,
                               const int *joint_node) {
    const lucid_model_spec *s = c->spec;
    if (s->nequalities == 0) {
        size_t mimics = 0;
        for (size_t j = 0; j < m->nnodes; ++j) mimics += m->nodes[j].mimic >= 0;
        if (mimics == 0) return LUCID_OK;
    }
    int *node = alloc_array(s->nbodies, sizeof *node),
        *mocap = alloc_array(s->nbodies, sizeof *mocap);
    lucid_se3 *in_node = alloc_array(s->nbodies, sizeof *in_node);
    lucid_status st = LUCID_ERR_NO_MEMORY;
    if (node && mocap && in_node) {
        for (size_t b = 0; b < s->nbodies; ++b)
            node[b] = loc[b].node, mocap[b] = loc[b].mocap, in_node[b] = loc[b].in_node;
        st =
            lucid_model_build_equalities(m, s, node, in_node, mocap, joint_node, c->err, c->errlen);
    }
    free(node), free(mocap), free(in_node);
    return st;
}

/* The frame named `name` of a body (objtype 0: a moving or welded body) or a site (1); -1. */
static int find_frame_of(const lucid_model *m, const char *name, int objtype) {
    for (size_t f = 0; f < m->nframes; ++f) {
        int site = m->frames[f].kind == LUCID_FRAME_SITE;
        if (site == (objtype == 1) && strcmp(m->frames[f].name, name) == 0) return (int)f;
    }
    return -1;
}

static int find_actuator(const lucid_model *m, const char *name) {
    for (size_t a = 0; a < m->nu; ++a)
        if (m->actuators[a].name && strcmp(m->actuators[a].name, name) == 0) return (int)a;
    return -1;
}

/* Sensor k's object resolved by name into *object, its dimension into *dim. */
static lucid_status sensor_object(const compile_ctx *c, const lucid_model *m, size_t k, int *object,
                                  size_t *dim) {
    const lucid_sensor_spec *S = &c->spec->sensors[k];
    const char *kind = lucid_sensor_kind_name(S->kind);
    switch (S->kind) {
        case LUCID_SENSOR_JOINTPOS:
        case LUCID_SENSOR_JOINTVEL:
            *object = lucid_model_find_joint(m, S->object), *dim = 1;
            if (*object < 0)
                return fail(c, LUCID_ERR_ARGUMENT, kind, S->name, k, S->line, "no joint named '%s'",
                            S->object);
            if (m->nodes[*object].kind != LUCID_JOINT_REVOLUTE &&
                m->nodes[*object].kind != LUCID_JOINT_PRISMATIC)
                return fail(c, LUCID_ERR_ARGUMENT, kind, S->name, k, S->line,
                            "joint '%s' is not a hinge or a slide (MuJoCo's requirement)",
                            S->object);
            return LUCID_OK;
        case LUCID_SENSOR_ACTUATORFRC:
            *object = find_actuator(m, S->object), *dim = 1;
            if (*object < 0)
                return fail(c, LUCID_ERR_ARGUMENT, kind, S->name, k, S->line,
                            "no actuator named '%s'", S->object);
            return LUCID_OK;
        case LUCID_SENSOR_FRAMEPOS:
        case LUCID_SENSOR_FRAMEQUAT:
        case LUCID_SENSOR_GYRO:
        case LUCID_SENSOR_VELOCIMETER:
        case LUCID_SENSOR_ACCELEROMETER:
        case LUCID_SENSOR_FORCE:
        case LUCID_SENSOR_TORQUE:
        case LUCID_SENSOR_TOUCH:
            *object = find_frame_of(m, S->object, S->objtype);
            *dim = S->kind == LUCID_SENSOR_FRAMEQUAT ? 4 : S->kind == LUCID_SENSOR_TOUCH ? 1 : 3;
            if (*object < 0)
                return fail(c, LUCID_ERR_ARGUMENT, kind, S->name, k, S->line, "no %s named '%s'",
                            S->objtype == 1 ? "site" : "body", S->object);
            return LUCID_OK;
        default:
            return fail(c, LUCID_ERR_ARGUMENT, "sensor", S->name, k, S->line, "unknown kind");
    }
}

/* The spec's sensors with their objects resolved and their values laid out in order. */
static lucid_status build_sensors(const compile_ctx *c, lucid_model *m) {
    const lucid_model_spec *s = c->spec;
    if (s->nsensors == 0) return LUCID_OK;
    m->sensors = alloc_array(s->nsensors, sizeof *m->sensors);
    if (!m->sensors) return LUCID_ERR_NO_MEMORY;
    for (size_t k = 0; k < s->nsensors; ++k) {
        const lucid_sensor_spec *S = &s->sensors[k];
        lucid_model_sensor *ms = &m->sensors[k];
        ms->name = dup_string(S->name ? S->name : "");
        m->nsensors++; /* destroy frees what was allocated */
        if (!ms->name) return LUCID_ERR_NO_MEMORY;
        ms->kind = S->kind, ms->noise = S->noise, ms->cutoff = S->cutoff, ms->line = S->line;
        lucid_status st = sensor_object(c, m, k, &ms->object, &ms->dim);
        if (st != LUCID_OK) return st;
        ms->adr = m->nsensordata;
        m->nsensordata += ms->dim;
    }
    return LUCID_OK;
}

static lucid_status compile(const compile_ctx *c, lucid_model *m, lucid_body_spec *bodies,
                            lucid_joint_spec *joints, body_loc *loc, int *joint_node) {
    const lucid_model_spec *s = c->spec;
    lucid_status st = check_spec_values(c);
    for (size_t i = 0; i < s->nbodies && st == LUCID_OK; ++i) st = check_body(c, i, &bodies[i]);
    for (size_t j = 0; j < s->njoints && st == LUCID_OK; ++j) {
        if (s->joint_body[j] < 0 || (size_t)s->joint_body[j] >= s->nbodies)
            st = fail(c, LUCID_ERR_ARGUMENT, "joint", joints[j].name, j, joints[j].line,
                      "body %d out of range", s->joint_body[j]);
        else
            st = check_joint(c, j, &joints[j]);
    }
    if (st != LUCID_OK) return st;
    m->name = dup_string(s->name ? s->name : "");
    if (!m->name) return LUCID_ERR_NO_MEMORY;
    m->gravity = s->gravity;
    m->timestep = s->timestep;
    st = build_tree(c, m, bodies, joints, loc, joint_node);
    if (st != LUCID_OK) return st;
    /* unique names */
    {
        size_t nmax = m->nnodes > m->nbodies ? m->nnodes : m->nbodies;
        char **names = alloc_array(nmax, sizeof *names);
        int *lines = alloc_array(nmax, sizeof *lines);
        if (!names || !lines) {
            free(names);
            free(lines);
            return LUCID_ERR_NO_MEMORY;
        }
        for (size_t i = 0; i < m->nbodies; ++i) names[i] = m->bodies[i].name;
        st = check_unique(c, names, m->nbodies, "body", NULL);
        if (st == LUCID_OK) {
            for (size_t i = 0; i < m->nnodes; ++i) names[i] = m->nodes[i].name;
            st = check_unique(c, names, m->nnodes, "joint", NULL);
        }
        free(names);
        free(lines);
        if (st != LUCID_OK) return st;
    }
    st = build_dofs(m, joints, joint_node, s->njoints);
    if (st == LUCID_OK) st = build_mimics(c, m, joints, joint_node);
    if (st == LUCID_OK) st = build_geoms(c, m, loc);
    if (st == LUCID_OK) st = build_tendons(c, m, joint_node, loc);
    if (st == LUCID_OK) st = build_actuators(c, m, joint_node);
    if (st != LUCID_OK) return st;
    for (size_t i = 0; i < m->nu; ++i)
        for (size_t k = 0; k < i; ++k)
            if (strcmp(m->actuators[i].name, m->actuators[k].name) == 0)
                return fail(c, LUCID_ERR_ARGUMENT, "actuator", m->actuators[i].name, i,
                            s->actuators[i].line, "the name is used twice");
    m->excludes = alloc_array(s->nexcludes, sizeof *m->excludes);
    if (!m->excludes) return LUCID_ERR_NO_MEMORY;
    for (size_t i = 0; i < s->nexcludes; ++i) {
        for (int k = 0; k < 2; ++k) {
            int b = s->excludes[i][k];
            if (b < LUCID_MODEL_WORLD || b >= (int)s->nbodies)
                return fail(c, LUCID_ERR_ARGUMENT, "exclude", NULL, i, 0, "body %d out of range",
                            b);
            m->excludes[i][k] = b == LUCID_MODEL_WORLD ? -1 : b; /* frame b is spec body b */
        }
    }
    m->nexcludes = s->nexcludes;
    m->filter_parent = s->filter_parent;
    st = build_pairs(c, m, loc);
    if (st == LUCID_OK) st = build_keyframes(c, m, joint_node);
    if (st == LUCID_OK) st = build_sensors(c, m);
    if (st != LUCID_OK) return st;
    st = check_massless(c, m);
    if (st == LUCID_OK) st = check_mass_matrix(c, m);
    if (st == LUCID_OK) st = muscle_lengthranges(c, m);
    if (st == LUCID_OK) st = actuator_acc0(c, m);
    if (st == LUCID_OK) st = equalities(c, m, loc, joint_node);
    return st;
}

lucid_status lucid_model_compile(lucid_model_spec *spec, lucid_model **out, char *err,
                                 size_t errlen) {
    if (err && errlen) err[0] = '\0';
    if (!out) return LUCID_ERR_ARGUMENT;
    *out = NULL;
    if (!spec) return LUCID_ERR_ARGUMENT;
    compile_ctx c = {spec, err, errlen};
    lucid_model *m = calloc(1, sizeof *m);
    if (m) atomic_init(&m->refs, 1);
    lucid_body_spec *bodies = alloc_array(spec->nbodies, sizeof *bodies);
    lucid_joint_spec *joints = alloc_array(spec->njoints, sizeof *joints);
    body_loc *loc = alloc_array(spec->nbodies, sizeof *loc);
    int *joint_node = alloc_array(spec->njoints, sizeof *joint_node);
    lucid_status st = LUCID_ERR_NO_MEMORY;
    if (m && bodies && joints && loc && joint_node) {
        if (spec->nbodies) memcpy(bodies, spec->bodies, spec->nbodies * sizeof *bodies);
        if (spec->njoints) memcpy(joints, spec->joints, spec->njoints * sizeof *joints);
        st = compile(&c, m, bodies, joints, loc, joint_node);
    }
    if (st == LUCID_OK) {
        size_t nmesh = 0;
        for (size_t i = 0; i < spec->ngeoms; ++i) nmesh += spec->geom_mesh[i] != NULL;
        nmesh += spec->nparts;
        m->meshes = alloc_array(nmesh, sizeof *m->meshes);
        if (!m->meshes) st = LUCID_ERR_NO_MEMORY;
        for (size_t i = 0; st == LUCID_OK && i < spec->ngeoms; ++i)
            if (spec->geom_mesh[i]) {
                m->meshes[m->nmeshes++] = spec->geom_mesh[i];
                spec->geom_mesh[i] = NULL;
            }
        for (size_t k = 0; st == LUCID_OK && k < spec->nparts; ++k)
            m->meshes[m->nmeshes++] = spec->part_mesh[k], spec->part_mesh[k] = NULL;
        m->hfields = alloc_array(spec->nhfields, sizeof *m->hfields);
        if (st == LUCID_OK && !m->hfields) st = LUCID_ERR_NO_MEMORY;
        for (size_t i = 0; st == LUCID_OK && i < spec->nhfields; ++i)
            m->hfields[m->nhfields++] = spec->hfields[i], spec->hfields[i] = NULL;
        if (st == LUCID_OK) spec->nhfields = 0;
    }
    if (st == LUCID_ERR_NO_MEMORY && err && errlen && !err[0])
        snprintf(err, errlen, "out of memory");
    free(bodies);
    free(joints);
    free(loc);
    free(joint_node);
    if (st != LUCID_OK) {
        lucid_model_destroy(m);
        return st;
    }
    *out = m;
    return LUCID_OK;
}
