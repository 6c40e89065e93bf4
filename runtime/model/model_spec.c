/* Growing arrays of model elements with owned strings and meshes (see model_spec.h). */
#include "runtime/model/model_spec.h"

#include "runtime/shapes/heightfield.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/shapes/convex_mesh.h"

/* A heap copy of s (NULL stays NULL); *ok cleared when the copy fails. */
static char *copy_string(const char *s, int *ok) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (!c) {
        *ok = 0;
        return NULL;
    }
    memcpy(c, s, n);
    return c;
}

/* Makes room for one more element of `size` bytes in *items (capacity *cap, count n). */
static int reserve(void **items, size_t *cap, size_t n, size_t size) {
    if (n < *cap) return 1;
    size_t want = *cap ? *cap * 2 : 8;
    if (want > PTRDIFF_MAX / size) return 0;
    void *p = realloc(*items, want * size);
    if (!p) return 0;
    *items = p;
    *cap = want;
    return 1;
}

/* The parallel per-joint / per-geom arrays grow with their main array. */
static int reserve_pair(void **a, void **b, size_t *cap, size_t n, size_t sa, size_t sb) {
    if (n < *cap) return 1;
    size_t want = *cap ? *cap * 2 : 8;
    if (want > PTRDIFF_MAX / sa || want > PTRDIFF_MAX / sb) return 0;
    void *pa = realloc(*a, want * sa);
    if (!pa) return 0;
    *a = pa;
    void *pb = realloc(*b, want * sb);
    if (!pb) return 0; /* *a grew but the capacity did not: the next call retries both */
    *b = pb;
    *cap = want;
    return 1;
}

lucid_status lucid_model_spec_create(const char *source, lucid_model_spec **out) {
    if (!out) return LUCID_ERR_ARGUMENT;
    lucid_model_spec *s = calloc(1, sizeof *s);
    if (!s) return LUCID_ERR_NO_MEMORY;
    int ok = 1;
    s->source = copy_string(source, &ok);
    if (!ok) {
        free(s);
        return LUCID_ERR_NO_MEMORY;
    }
    s->gravity = (lucid_vec3){0.0, 0.0, -9.81};
    s->timestep = 0.002;
    *out = s;
    return LUCID_OK;
}

void lucid_model_spec_destroy(lucid_model_spec *s) {
    if (!s) return;
    for (size_t i = 0; i < s->nbodies; i++) free((char *)s->bodies[i].name);
    for (size_t i = 0; i < s->njoints; i++) {
        free((char *)s->joints[i].name);
        free((char *)s->joints[i].mimic);
    }
    for (size_t i = 0; i < s->ngeoms; i++) {
        free((char *)s->geoms[i].name);
        lucid_convex_mesh_destroy(s->geom_mesh[i]);
    }
    for (size_t i = 0; i < s->nframes; i++) free((char *)s->frames[i].name);
    for (size_t i = 0; i < s->nactuators; i++) free((char *)s->actuators[i].name);
    for (size_t i = 0; i < s->ntendons; i++) {
        free((char *)s->tendons[i].name);
        free(s->tendons[i].joints), free(s->tendons[i].coef), free(s->tendons[i].path);
    }
    free(s->tendons);
    for (size_t i = 0; i < s->nkeyframes; i++) {
        lucid_keyframe_spec *k = &s->keyframes[i];
        free((char *)k->name), free(k->qpos), free(k->qvel), free(k->ctrl), free(k->act);
        free(k->mpos), free(k->mquat);
    }
    free(s->keyframes);
    for (size_t i = 0; i < s->nsensors; i++) {
        free((char *)s->sensors[i].name);
        free((char *)s->sensors[i].object);
    }
    free(s->sensors);
    for (size_t i = 0; i < s->nequalities; i++) free((char *)s->equalities[i].name);
    free(s->equalities);
    free(s->bodies);
    free(s->joints);
    free(s->joint_body);
    free(s->geoms);
    free(s->geom_mesh);
    for (size_t i = 0; i < s->nparts; i++) lucid_convex_mesh_destroy(s->part_mesh[i]);
    free(s->part_mesh);
    free(s->part_geom);
    free(s->frames);
    free(s->actuators);
    free(s->excludes);
    for (size_t i = 0; i < s->npairs; i++) free((char *)s->pairs[i].name);
    free(s->pairs);
    for (size_t i = 0; i < s->nhfields; i++) lucid_heightfield_destroy(s->hfields[i]);
    free(s->hfields);
    free(s->source);
    free(s->name);
    free(s);
}

static int valid_body(const lucid_model_spec *s, int body) {
    return body == LUCID_MODEL_WORLD || (body >= 0 && (size_t)body < s->nbodies);
}

lucid_status lucid_model_spec_add_body(lucid_model_spec *s, const lucid_body_spec *body,
                                       int *index) {
    if (!s || !body || !valid_body(s, body->parent) || s->nbodies >= INT32_MAX)
        return LUCID_ERR_ARGUMENT;
    if (!reserve((void **)&s->bodies, &s->cap_bodies, s->nbodies, sizeof *s->bodies))
        return LUCID_ERR_NO_MEMORY;
    lucid_body_spec b = *body;
    int ok = 1;
    b.name = copy_string(body->name, &ok);
    if (!ok) return LUCID_ERR_NO_MEMORY;
    if (index) *index = (int)s->nbodies;
    s->bodies[s->nbodies++] = b;
    return LUCID_OK;
}

lucid_status lucid_model_spec_add_joint(lucid_model_spec *s, int body,
                                        const lucid_joint_spec *joint, int *index) {
    if (!s || !joint || body < 0 || (size_t)body >= s->nbodies || s->njoints >= INT32_MAX)
        return LUCID_ERR_ARGUMENT;
    if (!reserve_pair((void **)&s->joints, (void **)&s->joint_body, &s->cap_joints, s->njoints,
                      sizeof *s->joints, sizeof *s->joint_body))
        return LUCID_ERR_NO_MEMORY;
    lucid_joint_spec j = *joint;
    int ok = 1;
    j.name = copy_string(joint->name, &ok);
    j.mimic = copy_string(joint->mimic, &ok);
    if (!ok) {
        free((char *)j.name);
        free((char *)j.mimic);
        return LUCID_ERR_NO_MEMORY;
    }
    if (index) *index = (int)s->njoints;
    s->joint_body[s->njoints] = body;
    s->joints[s->njoints++] = j;
    return LUCID_OK;
}

lucid_status lucid_model_spec_add_geom(lucid_model_spec *s, const lucid_geom_spec *geom,
                                       lucid_convex_mesh *mesh, int *index) {
    lucid_status st = LUCID_OK;
    if (!s || !geom || !valid_body(s, geom->body) || s->ngeoms >= INT32_MAX ||
        (geom->shape.kind == LUCID_SHAPE_CONVEX) != (mesh != NULL))
        st = LUCID_ERR_ARGUMENT;
    else if (!reserve_pair((void **)&s->geoms, (void **)&s->geom_mesh, &s->cap_geoms, s->ngeoms,
                           sizeof *s->geoms, sizeof *s->geom_mesh))
        st = LUCID_ERR_NO_MEMORY;
    lucid_geom_spec g;
    int ok = 1;
    if (st == LUCID_OK) {
        g = *geom;
        g.name = copy_string(geom->name, &ok);
        if (!ok) st = LUCID_ERR_NO_MEMORY;
    }
    if (st != LUCID_OK) {
        lucid_convex_mesh_destroy(mesh);
        return st;
    }
    if (mesh) g.shape.u.mesh = mesh;
    if (index) *index = (int)s->ngeoms;
    s->geom_mesh[s->ngeoms] = mesh;
    s->geoms[s->ngeoms++] = g;
    return LUCID_OK;
}

lucid_status lucid_model_spec_add_geom_part(lucid_model_spec *s, int geom,
                                            lucid_convex_mesh *mesh) {
    lucid_status st = LUCID_OK;
    if (!s || !mesh || geom < 0 || (size_t)geom >= s->ngeoms ||
        s->geoms[geom].shape.kind != LUCID_SHAPE_CONVEX || s->nparts >= INT32_MAX ||
        (s->nparts > 0 && s->part_geom[s->nparts - 1] > geom))
        st = LUCID_ERR_ARGUMENT;
    else if (!reserve_pair((void **)&s->part_mesh, (void **)&s->part_geom, &s->cap_parts, s->nparts,
                           sizeof *s->part_mesh, sizeof *s->part_geom))
        st = LUCID_ERR_NO_MEMORY;
    if (st != LUCID_OK) {
        lucid_convex_mesh_destroy(mesh);
        return st;
    }
    s->part_mesh[s->nparts] = mesh;
    s->part_geom[s->nparts++] = geom;
    return LUCID_OK;
}

lucid_status lucid_model_spec_add_frame(lucid_model_spec *s, const lucid_frame_spec *frame,
                                        int *index) {
    if (!s || !frame || !valid_body(s, frame->body) || s->nframes >= INT32_MAX)
        return LUCID_ERR_ARGUMENT;
    if (!reserve((void **)&s->frames, &s->cap_frames, s->nframes, sizeof *s->frames))
        return LUCID_ERR_NO_MEMORY;
    lucid_frame_spec f = *frame;
    int ok = 1;
    f.name = copy_string(frame->name, &ok);
    if (!ok) return LUCID_ERR_NO_MEMORY;
    if (index) *index = (int)s->nframes;
    s->frames[s->nframes++] = f;
    return LUCID_OK;
}

lucid_status lucid_model_spec_add_actuator(lucid_model_spec *s, const lucid_actuator_spec *actuator,
                                           int *index) {
    if (!s || !actuator || s->nactuators >= INT32_MAX) return LUCID_ERR_ARGUMENT;
    int on_crank = actuator->crank >= 0 || actuator->slider >= 0;
    if (on_crank
            ? actuator->crank < 0 || actuator->slider < 0 ||
                  (size_t)actuator->crank >= s->nframes || (size_t)actuator->slider >= s->nframes
        : actuator->tendon >= 0 ? (size_t)actuator->tendon >= s->ntendons
                                : actuator->joint < 0 || (size_t)actuator->joint >= s->njoints)
        return LUCID_ERR_ARGUMENT;
    if (!reserve((void **)&s->actuators, &s->cap_actuators, s->nactuators, sizeof *s->actuators))
        return LUCID_ERR_NO_MEMORY;
    lucid_actuator_spec a = *actuator;
    int ok = 1;
    a.name = copy_string(actuator->name, &ok);
    if (!ok) return LUCID_ERR_NO_MEMORY;
    if (index) *index = (int)s->nactuators;
    s->actuators[s->nactuators++] = a;
    return LUCID_OK;
}

/* A copy of n doubles (NULL for none); *ok cleared when allocation fails. */
static double *copy_values(const double *x, size_t n, int *ok) {
    if (n == 0) return NULL;
    double *y = n <= SIZE_MAX / sizeof *y ? malloc(n * sizeof *y) : NULL;
    if (!y) {
        *ok = 0;
        return NULL;
    }
    memcpy(y, x, n * sizeof *y);
    return y;
}

lucid_status lucid_model_spec_add_keyframe(lucid_model_spec *s, const lucid_keyframe_spec *key,
                                           int *index) {
    if (!s || !key || s->nkeyframes >= INT32_MAX || (key->nqpos && !key->qpos) ||
        (key->nqvel && !key->qvel) || (key->nctrl && !key->ctrl) || (key->nact && !key->act) ||
        (key->nmpos && !key->mpos) || (key->nmquat && !key->mquat))
        return LUCID_ERR_ARGUMENT;
    if (!reserve((void **)&s->keyframes, &s->cap_keyframes, s->nkeyframes, sizeof *s->keyframes))
        return LUCID_ERR_NO_MEMORY;
    lucid_keyframe_spec k = *key;
    int ok = 1;
    k.name = copy_string(key->name, &ok);
    k.qpos = copy_values(key->qpos, key->nqpos, &ok);
    k.qvel = copy_values(key->qvel, key->nqvel, &ok);
    k.ctrl = copy_values(key->ctrl, key->nctrl, &ok);
    k.act = copy_values(key->act, key->nact, &ok);
    k.mpos = copy_values(key->mpos, key->nmpos, &ok);
    k.mquat = copy_values(key->mquat, key->nmquat, &ok);
    if (!ok) {
        free((char *)k.name), free(k.qpos), free(k.qvel), free(k.ctrl), free(k.act);
        free(k.mpos), free(k.mquat);
        return LUCID_ERR_NO_MEMORY;
    }
    if (index) *index = (int)s->nkeyframes;
    s->keyframes[s->nkeyframes++] = k;
    return LUCID_OK;
}

lucid_status lucid_model_spec_add_sensor(lucid_model_spec *s, const lucid_sensor_spec *sensor,
                                         int *index) {
    if (!s || !sensor || !sensor->object || s->nsensors >= INT32_MAX ||
        (unsigned)sensor->kind >= LUCID_SENSOR_KIND_COUNT)
        return LUCID_ERR_ARGUMENT;
    if (!reserve((void **)&s->sensors, &s->cap_sensors, s->nsensors, sizeof *s->sensors))
        return LUCID_ERR_NO_MEMORY;
    lucid_sensor_spec k = *sensor;
    int ok = 1;
    k.name = copy_string(sensor->name, &ok);
    k.object = copy_string(sensor->object, &ok);
    if (!ok) {
        free((char *)k.name), free((char *)k.object);
        return LUCID_ERR_NO_MEMORY;
    }
    if (index) *index = (int)s->nsensors;
    s->sensors[s->nsensors++] = k;
    return LUCID_OK;
}

lucid_status lucid_model_spec_add_exclude(lucid_model_spec *s, int body1, int body2) {
    if (!s || !valid_body(s, body1) || !valid_body(s, body2)) return LUCID_ERR_ARGUMENT;
    if (!reserve((void **)&s->excludes, &s->cap_excludes, s->nexcludes, sizeof *s->excludes))
        return LUCID_ERR_NO_MEMORY;
    s->excludes[s->nexcludes][0] = body1;
    s->excludes[s->nexcludes][1] = body2;
    s->nexcludes++;
    return LUCID_OK;
}

lucid_status lucid_model_spec_add_pair(lucid_model_spec *s, const lucid_pair_spec *pair,
                                       int *index) {
    if (!s || !pair || s->npairs >= INT32_MAX) return LUCID_ERR_ARGUMENT;
    if (!reserve((void **)&s->pairs, &s->cap_pairs, s->npairs, sizeof *s->pairs))
        return LUCID_ERR_NO_MEMORY;
    lucid_pair_spec p = *pair;
    int ok = 1;
    p.name = copy_string(pair->name, &ok);
    if (!ok) return LUCID_ERR_NO_MEMORY;
    if (index) *index = (int)s->npairs;
    s->pairs[s->npairs++] = p;
    return LUCID_OK;
}

int lucid_model_spec_find_body(const lucid_model_spec *s, const char *name) {
    for (size_t i = 0; s && name && i < s->nbodies; i++)
        if (s->bodies[i].name && strcmp(s->bodies[i].name, name) == 0) return (int)i;
    return -1;
}

int lucid_model_spec_find_joint(const lucid_model_spec *s, const char *name) {
    for (size_t i = 0; s && name && i < s->njoints; i++)
        if (s->joints[i].name && strcmp(s->joints[i].name, name) == 0) return (int)i;
    return -1;
}

int lucid_model_spec_find_geom(const lucid_model_spec *s, const char *name) {
    for (size_t i = 0; s && name && i < s->ngeoms; i++)
        if (s->geoms[i].name && strcmp(s->geoms[i].name, name) == 0) return (int)i;
    return -1;
}

int lucid_model_spec_find_tendon(const lucid_model_spec *s, const char *name) {
    for (size_t i = 0; s && name && i < s->ntendons; i++)
        if (s->tendons[i].name && strcmp(s->tendons[i].name, name) == 0) return (int)i;
    return -1;
}

lucid_body_spec lucid_body_spec_default(void) {
    lucid_body_spec b;
    memset(&b, 0, sizeof b);
    b.parent = LUCID_MODEL_WORLD;
    b.placement = lucid_se3_identity();
    return b;
}

lucid_joint_spec lucid_joint_spec_default(lucid_joint_kind kind) {
    lucid_joint_spec j;
    memset(&j, 0, sizeof j);
    j.kind = kind;
    j.axis = (lucid_vec3){0.0, 0.0, 1.0};
    j.velocity_limit = INFINITY;
    j.effort_limit = INFINITY;
    j.mimic_multiplier = 1.0;
    return j;
}

lucid_geom_spec lucid_geom_spec_default(void) {
    lucid_geom_spec g;
    memset(&g, 0, sizeof g);
    g.body = LUCID_MODEL_WORLD;
    g.pose = lucid_se3_identity();
    g.friction = 1.0;
    g.torsion = 0.005;  /* MuJoCo's default friction[1] */
    g.rolling = 0.0001; /* and friction[2] */
    g.condim = 3;
    g.solmix = 1.0;
    g.contype = 1;
    g.conaffinity = 1;
    return g;
}

lucid_actuator_spec lucid_actuator_spec_default(void) {
    lucid_actuator_spec a;
    memset(&a, 0, sizeof a);
    a.kind = LUCID_ACTUATOR_MOTOR;
    a.gear = 1.0;
    a.tendon = -1;
    a.crank = a.slider = -1;
    return a;
}

lucid_equality_spec lucid_equality_spec_default(lucid_equality_kind kind) {
    lucid_equality_spec e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.active = 1;
    e.body1 = e.body2 = LUCID_MODEL_WORLD;
    e.joint1 = e.joint2 = -1;
    e.tendon1 = e.tendon2 = -1;
    e.relpose = lucid_se3_identity();
    e.torquescale = 1.0;
    e.polycoef[1] = 1.0;
    return e;
}

lucid_status lucid_model_spec_add_equality(lucid_model_spec *s, const lucid_equality_spec *eq,
                                           int *index) {
    if (!s || !eq || s->nequalities >= INT32_MAX) return LUCID_ERR_ARGUMENT;
    if (!reserve((void **)&s->equalities, &s->cap_equalities, s->nequalities,
                 sizeof *s->equalities))
        return LUCID_ERR_NO_MEMORY;
    lucid_equality_spec e = *eq;
    int ok = 1;
    e.name = copy_string(eq->name, &ok);
    if (!ok) return LUCID_ERR_NO_MEMORY;
    if (index) *index = (int)s->nequalities;
    s->equalities[s->nequalities++] = e;
    return LUCID_OK;
}

lucid_tendon_spec lucid_tendon_spec_default(void) {
    lucid_tendon_spec t;
    memset(&t, 0, sizeof t);
    t.springlength = NAN;
    return t;
}

lucid_status lucid_model_spec_add_tendon(lucid_model_spec *s, const lucid_tendon_spec *tendon,
                                         int *index) {
    if (!s || !tendon || (tendon->n > 0 && (!tendon->joints || !tendon->coef)) ||
        (tendon->npath > 0 && !tendon->path) || tendon->n > INT32_MAX ||
        tendon->npath > INT32_MAX || s->ntendons >= INT32_MAX)
        return LUCID_ERR_ARGUMENT;
    for (size_t i = 0; i < tendon->n; i++)
        if (tendon->joints[i] < 0 || (size_t)tendon->joints[i] >= s->njoints)
            return LUCID_ERR_ARGUMENT;
    if (!reserve((void **)&s->tendons, &s->cap_tendons, s->ntendons, sizeof *s->tendons))
        return LUCID_ERR_NO_MEMORY;
    lucid_tendon_spec t = *tendon;
    int ok = 1;
    size_t n = tendon->n ? tendon->n : 1;
    t.name = copy_string(tendon->name, &ok);
    t.joints = malloc(n * sizeof *t.joints);
    t.coef = malloc(n * sizeof *t.coef);
    t.path = malloc((tendon->npath ? tendon->npath : 1) * sizeof *t.path);
    if (!ok || !t.joints || !t.coef || !t.path) {
        free((char *)t.name), free(t.joints), free(t.coef), free(t.path);
        return LUCID_ERR_NO_MEMORY;
    }
    if (tendon->n) memcpy(t.joints, tendon->joints, tendon->n * sizeof *t.joints);
    if (tendon->n) memcpy(t.coef, tendon->coef, tendon->n * sizeof *t.coef);
    if (tendon->npath) memcpy(t.path, tendon->path, tendon->npath * sizeof *t.path);
    if (index) *index = (int)s->ntendons;
    s->tendons[s->ntendons++] = t;
    return LUCID_OK;
}

lucid_status lucid_model_spec_add_heightfield(lucid_model_spec *s, lucid_heightfield *h) {
    lucid_status st = LUCID_OK;
    if (!s || !h)
        st = LUCID_ERR_ARGUMENT;
    else if (!reserve((void **)&s->hfields, &s->cap_hfields, s->nhfields, sizeof *s->hfields))
        st = LUCID_ERR_NO_MEMORY;
    if (st != LUCID_OK) {
        lucid_heightfield_destroy(h);
        return st;
    }
    s->hfields[s->nhfields++] = h;
    return LUCID_OK;
}

const char *lucid_tendon_path_problem(const lucid_tendon_spec *t, size_t *where) {
    const lucid_tendon_path_spec *p = t->path;
    size_t n = t->npath;
    *where = 0;
    if (n < 2) return "a spatial path needs at least two elements";
    if (p[0].kind != LUCID_TENDON_PATH_SITE) return "a spatial path must start with a site";
    for (size_t k = 0; k < n; ++k) {
        int prev = k > 0 ? (int)p[k - 1].kind : -1, next = k + 1 < n ? (int)p[k + 1].kind : -1;
        int pulley_or_end_before = prev < 0 || prev == LUCID_TENDON_PATH_PULLEY;
        int pulley_or_end_after = next < 0 || next == LUCID_TENDON_PATH_PULLEY;
        const char *why = NULL;
        if (p[k].kind == LUCID_TENDON_PATH_PULLEY && prev == LUCID_TENDON_PATH_PULLEY)
            why = "a pulley follows a pulley";
        else if (p[k].kind == LUCID_TENDON_PATH_PULLEY && next < 0)
            why = "the path ends with a pulley";
        else if (p[k].kind == LUCID_TENDON_PATH_GEOM &&
                 (prev != LUCID_TENDON_PATH_SITE || next != LUCID_TENDON_PATH_SITE))
            why = "a wrapping geom must sit between two sites";
        else if (p[k].kind == LUCID_TENDON_PATH_SITE && pulley_or_end_before && pulley_or_end_after)
            why = "a site needs a neighbour that is no pulley (a branch of one site)";
        else if (p[k].kind == LUCID_TENDON_PATH_SITE && next == LUCID_TENDON_PATH_SITE &&
                 p[k + 1].index == p[k].index)
            why = "the same site twice in a row";
        if (why) {
            *where = k;
            return why;
        }
    }
    return NULL;
}
