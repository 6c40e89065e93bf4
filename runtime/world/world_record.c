/* Recordings for replay: objects (posed shape lists), frames of poses and contacts, and their
 * JSON form (world_record.h). */
#include "runtime/world/world_record.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/math/finite.h"
#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/heightfield.h"
#include "runtime/world/world_internal.h"

typedef struct record_frame {
    double time;
    size_t pose_begin, contact_begin;
    int num_objects, num_contacts;
} record_frame;

struct lucid_record {
    lucid_record_options opt;
    lucid_record_object *objects;
    int num_objects;
    size_t object_cap;
    lucid_record_mesh *meshes;
    int num_meshes;
    size_t mesh_cap;
    lucid_heightfield **hfields; /* copies, identical fields once */
    int num_hfields;
    size_t hfield_cap;
    record_frame *frames;
    size_t num_frames, frame_cap;
    lucid_record_pose *poses;
    size_t num_poses, pose_cap;
    lucid_record_contact *contacts;
    size_t num_contacts, contact_cap;
    size_t bytes, dropped;
    int full;
    const lucid_world *world; /* the world lucid_record_world records (NULL before) */
    int world_objects;        /* objects that are that world's bodies */
};

void lucid_record_default_options(lucid_record_options *o) {
    o->max_frames = 1000000;
    o->max_bytes = (size_t)256 << 20;
}

static void set_why(const char **why, const char *text) {
    if (why) *why = text;
}

lucid_status lucid_record_create(const lucid_record_options *o, lucid_record **out,
                                 const char **why) {
    if (!out) return LUCID_ERR_ARGUMENT;
    *out = NULL;
    lucid_record_options opt;
    lucid_record_default_options(&opt);
    if (o) opt = *o;
    if (opt.max_frames < 1) {
        set_why(why, "max_frames must be at least 1");
        return LUCID_ERR_ARGUMENT;
    }
    if (opt.max_bytes < 4096) {
        set_why(why, "max_bytes must be at least 4096");
        return LUCID_ERR_ARGUMENT;
    }
    lucid_record *r = calloc(1, sizeof *r);
    if (!r) return LUCID_ERR_NO_MEMORY;
    r->opt = opt;
    *out = r;
    return LUCID_OK;
}

static void free_mesh(lucid_record_mesh *m) {
    free(m->vertices);
    free(m->face_offsets);
    free(m->face_vertices);
}

void lucid_record_destroy(lucid_record *r) {
    if (!r) return;
    for (int i = 0; i < r->num_objects; ++i) free(r->objects[i].parts);
    for (int i = 0; i < r->num_meshes; ++i) free_mesh(&r->meshes[i]);
    for (int i = 0; i < r->num_hfields; ++i) lucid_heightfield_destroy(r->hfields[i]);
    free(r->objects);
    free(r->meshes);
    free(r->hfields);
    free(r->frames);
    free(r->poses);
    free(r->contacts);
    free(r);
}

static size_t mesh_bytes(const lucid_record_mesh *m) {
    return sizeof *m + sizeof(double) * 3 * (size_t)m->num_vertices +
           sizeof(int) * ((size_t)m->num_faces + 1 + (size_t)m->face_offsets[m->num_faces]);
}

static int same_mesh(const lucid_record_mesh *m, const lucid_convex_mesh *c) {
    if (m->num_vertices != c->num_vertices || m->num_faces != c->num_faces) return 0;
    for (int i = 0; i < c->num_vertices; ++i) {
        const double *v = m->vertices + 3 * i;
        if (v[0] != c->vertices[i].x || v[1] != c->vertices[i].y || v[2] != c->vertices[i].z)
            return 0;
    }
    size_t corners = (size_t)c->face_offsets[c->num_faces];
    return memcmp(m->face_offsets, c->face_offsets, sizeof(int) * ((size_t)c->num_faces + 1)) ==
               0 &&
           memcmp(m->face_vertices, c->face_vertices, sizeof(int) * corners) == 0;
}

/* The index of a copy of c's geometry (shared with an identical mesh already stored). */
static lucid_status intern_mesh(lucid_record *r, const lucid_convex_mesh *c, int *index) {
    for (int i = 0; i < r->num_meshes; ++i)
        if (same_mesh(&r->meshes[i], c)) {
            *index = i;
            return LUCID_OK;
        }
    if (r->num_meshes == INT32_MAX) return LUCID_ERR_NO_MEMORY;
    lucid_status s = lucid_world_reserve((void **)&r->meshes, &r->mesh_cap,
                                         (size_t)r->num_meshes + 1, sizeof *r->meshes);
    if (s != LUCID_OK) return s;
    size_t corners = (size_t)c->face_offsets[c->num_faces];
    lucid_record_mesh m = {c->num_vertices, NULL, c->num_faces, NULL, NULL};
    m.vertices = malloc(sizeof(double) * 3 * (size_t)c->num_vertices);
    m.face_offsets = malloc(sizeof(int) * ((size_t)c->num_faces + 1));
    m.face_vertices = malloc(sizeof(int) * (corners ? corners : 1));
    if (!m.vertices || !m.face_offsets || !m.face_vertices) {
        free_mesh(&m);
        return LUCID_ERR_NO_MEMORY;
    }
    for (int i = 0; i < c->num_vertices; ++i) {
        m.vertices[3 * i] = c->vertices[i].x;
        m.vertices[3 * i + 1] = c->vertices[i].y;
        m.vertices[3 * i + 2] = c->vertices[i].z;
    }
    memcpy(m.face_offsets, c->face_offsets, sizeof(int) * ((size_t)c->num_faces + 1));
    memcpy(m.face_vertices, c->face_vertices, sizeof(int) * corners);
    r->meshes[r->num_meshes] = m;
    r->bytes += mesh_bytes(&m);
    *index = r->num_meshes++;
    return LUCID_OK;
}

static size_t hfield_samples(const lucid_heightfield *h) {
    return (size_t)h->nrow * (size_t)h->ncol;
}

static int same_hfield(const lucid_heightfield *a, const lucid_heightfield *b) {
    return a->nrow == b->nrow && a->ncol == b->ncol &&
           memcmp(a->size, b->size, sizeof a->size) == 0 &&
           memcmp(a->height, b->height, sizeof(double) * hfield_samples(a)) == 0;
}

/* The index of a copy of h (shared with an identical field already stored). */
static lucid_status intern_hfield(lucid_record *r, const lucid_heightfield *h, int *index) {
    for (int i = 0; i < r->num_hfields; ++i)
        if (same_hfield(r->hfields[i], h)) {
            *index = i;
            return LUCID_OK;
        }
    if (r->num_hfields == INT32_MAX) return LUCID_ERR_NO_MEMORY;
    lucid_status s = lucid_world_reserve((void **)&r->hfields, &r->hfield_cap,
                                         (size_t)r->num_hfields + 1, sizeof *r->hfields);
    if (s != LUCID_OK) return s;
    s = lucid_heightfield_copy(h, &r->hfields[r->num_hfields]);
    if (s != LUCID_OK) return s;
    r->bytes += sizeof *h + sizeof(double) * hfield_samples(h);
    *index = r->num_hfields++;
    return LUCID_OK;
}

static int pose_finite(const lucid_se3 *T) {
    return lucid_all_finite(T->R.m, 9) && isfinite(T->t.x) && isfinite(T->t.y) && isfinite(T->t.z);
}

static int shape_finite(const lucid_shape *s) {
    double v[4] = {s->radius, 0, 0, 0};
    switch (s->kind) {
        case LUCID_SHAPE_ELLIPSOID:
        case LUCID_SHAPE_BOX:
            v[1] = s->u.radii.x, v[2] = s->u.radii.y, v[3] = s->u.radii.z;
            break;
        case LUCID_SHAPE_CAPSULE:
            v[1] = s->u.half_length;
            break;
        case LUCID_SHAPE_CYLINDER:
        case LUCID_SHAPE_CONE:
            v[1] = s->u.round.radius, v[2] = s->u.round.half_length;
            break;
        case LUCID_SHAPE_HALFSPACE:
            v[0] = s->u.halfspace.normal.x, v[1] = s->u.halfspace.normal.y;
            v[2] = s->u.halfspace.normal.z, v[3] = s->u.halfspace.offset;
            break;
        default:
            break;
    }
    return lucid_all_finite(v, 4);
}

lucid_status lucid_record_add_object(lucid_record *r, const char *name, int is_static,
                                     const lucid_body_part *parts, int num_parts, int *index,
                                     const char **why) {
    if (!r || num_parts < 0 || (num_parts > 0 && !parts)) {
        set_why(why, "parts must hold num_parts >= 0 shapes");
        return LUCID_ERR_ARGUMENT;
    }
    for (int i = 0; i < num_parts; ++i) {
        const lucid_shape *s = &parts[i].shape;
        if ((unsigned)s->kind > LUCID_SHAPE_HEIGHTFIELD ||
            (s->kind == LUCID_SHAPE_CONVEX && !s->u.mesh) ||
            (s->kind == LUCID_SHAPE_HEIGHTFIELD && !s->u.hfield)) {
            set_why(why, "a part is not a valid shape");
            return LUCID_ERR_ARGUMENT;
        }
        if (!pose_finite(&parts[i].pose) || !shape_finite(s)) {
            set_why(why, "a part's pose or size is not finite");
            return LUCID_ERR_NONFINITE;
        }
    }
    if (r->num_objects == INT32_MAX) return LUCID_ERR_NO_MEMORY;
    lucid_status s = lucid_world_reserve((void **)&r->objects, &r->object_cap,
                                         (size_t)r->num_objects + 1, sizeof *r->objects);
    if (s != LUCID_OK) return s;
    lucid_record_object *o = &r->objects[r->num_objects];
    memset(o, 0, sizeof *o);
    o->parts = malloc(sizeof *o->parts * (size_t)(num_parts ? num_parts : 1));
    if (!o->parts) return LUCID_ERR_NO_MEMORY;
    for (int i = 0; i < num_parts; ++i) {
        lucid_record_part *p = &o->parts[i];
        p->shape = parts[i].shape;
        p->pose = parts[i].pose;
        p->mesh = -1, p->hfield = -1;
        if (p->shape.kind == LUCID_SHAPE_CONVEX) {
            s = intern_mesh(r, parts[i].shape.u.mesh, &p->mesh);
            p->shape.u.mesh = NULL;
        } else if (p->shape.kind == LUCID_SHAPE_HEIGHTFIELD) {
            s = intern_hfield(r, parts[i].shape.u.hfield, &p->hfield);
            p->shape.u.hfield = NULL;
        }
        if (s != LUCID_OK) {
            free(o->parts);
            o->parts = NULL;
            return s;
        }
    }
    o->num_parts = num_parts;
    o->is_static = is_static != 0;
    if (name)
        snprintf(o->name, sizeof o->name, "%s", name);
    else
        snprintf(o->name, sizeof o->name, "object %d", r->num_objects + 1);
    r->bytes += sizeof *o + sizeof *o->parts * (size_t)num_parts;
    if (index) *index = r->num_objects;
    r->num_objects++;
    return LUCID_OK;
}

/* Counts a dropped frame; the recording is full from then on. */
static lucid_status drop(lucid_record *r, int *kept, lucid_status s) {
    r->dropped++;
    r->full = 1;
    if (kept) *kept = 0;
    return s;
}

/* Room for a frame of n poses and m contacts, its header filled (*f), or *f = NULL when the
 * frame is dropped (LUCID_OK: a limit is reached; LUCID_ERR_NO_MEMORY). The caller then
 * appends the n poses and m contacts. */
static lucid_status new_frame(lucid_record *r, double time, int n, int m, int *kept,
                              record_frame **f) {
    *f = NULL;
    if (r->full || r->num_frames >= r->opt.max_frames) return drop(r, kept, LUCID_OK);
    size_t need = sizeof(record_frame) + sizeof(lucid_record_pose) * (size_t)n +
                  sizeof(lucid_record_contact) * (size_t)m;
    if (r->bytes > r->opt.max_bytes || need > r->opt.max_bytes - r->bytes)
        return drop(r, kept, LUCID_OK);
    if (lucid_world_reserve((void **)&r->frames, &r->frame_cap, r->num_frames + 1,
                            sizeof *r->frames) != LUCID_OK ||
        lucid_world_reserve((void **)&r->poses, &r->pose_cap, r->num_poses + (size_t)n,
                            sizeof *r->poses) != LUCID_OK ||
        lucid_world_reserve((void **)&r->contacts, &r->contact_cap, r->num_contacts + (size_t)m,
                            sizeof *r->contacts) != LUCID_OK)
        return drop(r, kept, LUCID_ERR_NO_MEMORY);
    *f = &r->frames[r->num_frames++];
    (*f)->time = time;
    (*f)->pose_begin = r->num_poses;
    (*f)->contact_begin = r->num_contacts;
    (*f)->num_objects = n;
    (*f)->num_contacts = m;
    r->bytes += need;
    if (kept) *kept = 1;
    return LUCID_OK;
}

lucid_status lucid_record_add_frame(lucid_record *r, double time, const lucid_se3 *poses,
                                    int num_poses, const lucid_record_contact *contacts,
                                    int num_contacts, int *kept, const char **why) {
    if (kept) *kept = 0;
    if (!r) return LUCID_ERR_ARGUMENT;
    int previous = r->num_frames ? r->frames[r->num_frames - 1].num_objects : 0;
    if (num_poses < previous || num_poses > r->num_objects || (num_poses > 0 && !poses)) {
        set_why(why, "a frame must pose every object of the previous frame and no more than "
                     "the recording's objects");
        return LUCID_ERR_ARGUMENT;
    }
    if (num_contacts < 0 || (num_contacts > 0 && !contacts)) {
        set_why(why, "contacts must hold num_contacts >= 0 contacts");
        return LUCID_ERR_ARGUMENT;
    }
    if (!isfinite(time)) {
        set_why(why, "the frame time is not finite");
        return LUCID_ERR_NONFINITE;
    }
    for (int i = 0; i < num_poses; ++i)
        if (!pose_finite(&poses[i])) {
            set_why(why, "a pose is not finite");
            return LUCID_ERR_NONFINITE;
        }
    for (int i = 0; i < num_contacts; ++i) {
        const lucid_record_contact *c = &contacts[i];
        if (c->object1 < -1 || c->object1 >= num_poses || c->object2 < -1 ||
            c->object2 >= num_poses) {
            set_why(why, "a contact refers to an object the frame does not pose");
            return LUCID_ERR_ARGUMENT;
        }
        double v[6] = {c->point.x, c->point.y, c->point.z, c->force.x, c->force.y, c->force.z};
        if (!lucid_all_finite(v, 6)) {
            set_why(why, "a contact point or force is not finite");
            return LUCID_ERR_NONFINITE;
        }
    }
    record_frame *f = NULL;
    lucid_status s = new_frame(r, time, num_poses, num_contacts, kept, &f);
    if (!f) return s;
    for (int i = 0; i < num_poses; ++i) {
        lucid_record_pose *p = &r->poses[r->num_poses++];
        p->t = poses[i].t;
        p->q = lucid_se3_to_quat(&poses[i]);
    }
    if (num_contacts > 0)
        memcpy(r->contacts + r->num_contacts, contacts, sizeof *contacts * (size_t)num_contacts);
    r->num_contacts += (size_t)num_contacts;
    return LUCID_OK;
}

lucid_status lucid_record_world(lucid_record *r, const lucid_world *w, double time, int *kept,
                                const char **why) {
    if (kept) *kept = 0;
    if (!r || !w) return LUCID_ERR_ARGUMENT;
    if ((r->world && r->world != w) || r->num_objects != r->world_objects) {
        set_why(why, "the recording holds objects that are not this world's bodies");
        return LUCID_ERR_ARGUMENT;
    }
    r->world = w;
    for (int i = r->num_objects; i < w->num_bodies; ++i) {
        const lucid_body *b = &w->bodies[i];
        char name[32];
        snprintf(name, sizeof name, "%s %d", b->is_static ? "static" : "body", i + 1);
        lucid_status st = lucid_record_add_object(r, name, b->is_static, w->parts + b->part_begin,
                                                  b->num_parts, NULL, why);
        if (st != LUCID_OK) return st;
        r->world_objects++;
    }
    int n = w->num_bodies, m = w->d.num_contacts;
    int previous = r->num_frames ? r->frames[r->num_frames - 1].num_objects : 0;
    if (n < previous) {
        set_why(why, "the world has fewer bodies than the recording's last frame");
        return LUCID_ERR_ARGUMENT;
    }
    record_frame *f = NULL;
    lucid_status s = new_frame(r, time, n, m, kept, &f);
    if (!f) return s;
    for (int i = 0; i < n; ++i) {
        lucid_record_pose *p = &r->poses[r->num_poses++];
        p->t = w->bodies[i].pose.t;
        p->q = lucid_se3_to_quat(&w->bodies[i].pose);
    }
    for (int k = 0; k < m; ++k) {
        const lucid_world_contact *c = &w->d.contacts[k];
        lucid_record_contact *o = &r->contacts[r->num_contacts++];
        o->object1 = c->body1;
        o->object2 = c->body2;
        o->point = c->point;
        o->force = lucid_mat3_mul_vec(&c->frame, lucid_vec3_load(c->force));
    }
    return LUCID_OK;
}

size_t lucid_record_frame_count(const lucid_record *r) {
    return r ? r->num_frames : 0;
}
int lucid_record_object_count(const lucid_record *r) {
    return r ? r->num_objects : 0;
}
int lucid_record_mesh_count(const lucid_record *r) {
    return r ? r->num_meshes : 0;
}
int lucid_record_heightfield_count(const lucid_record *r) {
    return r ? r->num_hfields : 0;
}
size_t lucid_record_contact_total(const lucid_record *r) {
    return r ? r->num_contacts : 0;
}
size_t lucid_record_bytes(const lucid_record *r) {
    return r ? r->bytes : 0;
}
size_t lucid_record_dropped(const lucid_record *r) {
    return r ? r->dropped : 0;
}
const lucid_record_options *lucid_record_get_options(const lucid_record *r) {
    return r ? &r->opt : NULL;
}

const lucid_record_object *lucid_record_object_at(const lucid_record *r, int i) {
    return r && i >= 0 && i < r->num_objects ? &r->objects[i] : NULL;
}

const lucid_record_mesh *lucid_record_mesh_at(const lucid_record *r, int i) {
    return r && i >= 0 && i < r->num_meshes ? &r->meshes[i] : NULL;
}

const lucid_heightfield *lucid_record_heightfield_at(const lucid_record *r, int i) {
    return r && i >= 0 && i < r->num_hfields ? r->hfields[i] : NULL;
}

lucid_status lucid_record_frame_at(const lucid_record *r, size_t k, lucid_record_frame *f) {
    if (!r || !f || k >= r->num_frames) return LUCID_ERR_ARGUMENT;
    const record_frame *g = &r->frames[k];
    f->time = g->time;
    f->num_objects = g->num_objects;
    f->poses = r->poses + g->pose_begin;
    f->num_contacts = g->num_contacts;
    f->contacts = r->contacts + g->contact_begin;
    return LUCID_OK;
}

/* ---- JSON -------------------------------------------------------------------------------- */

typedef struct json_out {
    lucid_record_writer write;
    void *ctx;
    char buf[8192];
    size_t len;
    int failed;
} json_out;

static void flush(json_out *o) {
    if (!o->failed && o->len > 0 && o->write(o->ctx, o->buf, o->len) != 0) o->failed = 1;
    o->len = 0;
}

static void put(json_out *o, const char *s, size_t n) {
    if (o->failed) return;
    if (o->len + n > sizeof o->buf) flush(o);
    if (n > sizeof o->buf) {
        if (!o->failed && o->write(o->ctx, s, n) != 0) o->failed = 1;
        return;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static void puts_(json_out *o, const char *s) {
    put(o, s, strlen(s));
}

/* A number with 7 significant digits; -0 is written 0. */
static void num(json_out *o, double x) {
    char t[40];
    int n = snprintf(t, sizeof t, "%.7g", x == 0 ? 0.0 : x);
    put(o, t, (size_t)n);
}

static void integer(json_out *o, long long x) {
    char t[32];
    int n = snprintf(t, sizeof t, "%lld", x);
    put(o, t, (size_t)n);
}

static void nums(json_out *o, const double *x, size_t n) {
    puts_(o, "[");
    for (size_t i = 0; i < n; ++i) {
        if (i) puts_(o, ",");
        num(o, x[i]);
    }
    puts_(o, "]");
}

/* A JSON string that is also safe inside an HTML <script> element: <, >, & are escaped. */
static void string(json_out *o, const char *s) {
    puts_(o, "\"");
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&') {
            char t[8];
            snprintf(t, sizeof t, "\\u%04x", c);
            puts_(o, t);
        } else {
            put(o, (const char *)s, 1);
        }
    }
    puts_(o, "\"");
}

static void pose7(json_out *o, const lucid_vec3 t, const lucid_quat q) {
    double v[7] = {t.x, t.y, t.z, q.w, q.x, q.y, q.z};
    for (int i = 0; i < 7; ++i) {
        if (i) puts_(o, ",");
        num(o, v[i]);
    }
}

static void part(json_out *o, const lucid_record_part *p) {
    const lucid_shape *s = &p->shape;
    puts_(o, "{\"kind\":");
    string(o, lucid_shape_kind_name(s->kind));
    puts_(o, ",\"pose\":[");
    pose7(o, p->pose.t, lucid_se3_to_quat(&p->pose));
    puts_(o, "]");
    switch (s->kind) {
        case LUCID_SHAPE_SPHERE:
            puts_(o, ",\"radius\":");
            num(o, s->radius);
            break;
        case LUCID_SHAPE_ELLIPSOID:
        case LUCID_SHAPE_BOX: {
            double v[3] = {s->u.radii.x, s->u.radii.y, s->u.radii.z};
            puts_(o, s->kind == LUCID_SHAPE_BOX ? ",\"half_extents\":" : ",\"radii\":");
            nums(o, v, 3);
            break;
        }
        case LUCID_SHAPE_CAPSULE:
            puts_(o, ",\"radius\":");
            num(o, s->radius);
            puts_(o, ",\"half_length\":");
            num(o, s->u.half_length);
            break;
        case LUCID_SHAPE_CYLINDER:
        case LUCID_SHAPE_CONE:
            puts_(o, ",\"radius\":");
            num(o, s->u.round.radius);
            puts_(o, ",\"half_length\":");
            num(o, s->u.round.half_length);
            break;
        case LUCID_SHAPE_CONVEX:
            puts_(o, ",\"mesh\":");
            integer(o, p->mesh);
            break;
        case LUCID_SHAPE_HALFSPACE: {
            double n[3] = {s->u.halfspace.normal.x, s->u.halfspace.normal.y,
                           s->u.halfspace.normal.z};
            puts_(o, ",\"normal\":");
            nums(o, n, 3);
            puts_(o, ",\"offset\":");
            num(o, s->u.halfspace.offset);
            break;
        }
        case LUCID_SHAPE_HEIGHTFIELD:
            puts_(o, ",\"heightfield\":");
            integer(o, p->hfield);
            break;
    }
    puts_(o, "}");
}

lucid_status lucid_record_write_json(const lucid_record *r, lucid_record_writer write, void *ctx) {
    if (!r || !write) return LUCID_ERR_ARGUMENT;
    json_out *o = malloc(sizeof *o);
    if (!o) return LUCID_ERR_NO_MEMORY;
    o->write = write, o->ctx = ctx, o->len = 0, o->failed = 0;
    puts_(o, "{\"format\":\"lucid.record/1\",\"objects\":[");
    for (int i = 0; i < r->num_objects; ++i) {
        const lucid_record_object *b = &r->objects[i];
        puts_(o, i ? ",\n{\"name\":" : "\n{\"name\":");
        string(o, b->name);
        puts_(o, b->is_static ? ",\"static\":true,\"parts\":[" : ",\"static\":false,\"parts\":[");
        for (int k = 0; k < b->num_parts; ++k) {
            if (k) puts_(o, ",");
            part(o, &b->parts[k]);
        }
        puts_(o, "]}");
    }
    puts_(o, "],\n\"meshes\":[");
    for (int i = 0; i < r->num_meshes; ++i) {
        const lucid_record_mesh *m = &r->meshes[i];
        puts_(o, i ? ",\n{\"vertices\":" : "\n{\"vertices\":");
        nums(o, m->vertices, 3 * (size_t)m->num_vertices);
        puts_(o, ",\"faces\":[");
        for (int f = 0; f < m->num_faces; ++f) {
            puts_(o, f ? ",[" : "[");
            for (int k = m->face_offsets[f]; k < m->face_offsets[f + 1]; ++k) {
                if (k > m->face_offsets[f]) puts_(o, ",");
                integer(o, m->face_vertices[k]);
            }
            puts_(o, "]");
        }
        puts_(o, "]}");
    }
    puts_(o, "],\n\"heightfields\":[");
    for (int i = 0; i < r->num_hfields; ++i) {
        const lucid_heightfield *h = r->hfields[i];
        puts_(o, i ? ",\n{\"rows\":" : "\n{\"rows\":");
        integer(o, h->nrow);
        puts_(o, ",\"columns\":");
        integer(o, h->ncol);
        puts_(o, ",\"size\":");
        nums(o, h->size, 4);
        puts_(o, ",\"heights\":");
        nums(o, h->height, hfield_samples(h));
        puts_(o, "}");
    }
    puts_(o, "],\n\"frames\":{\"count\":");
    integer(o, (long long)r->num_frames);
    puts_(o, ",\"dropped\":");
    integer(o, (long long)r->dropped);
    puts_(o, ",\n\"time\":[");
    for (size_t k = 0; k < r->num_frames; ++k) {
        if (k) puts_(o, ",");
        num(o, r->frames[k].time);
    }
    puts_(o, "],\n\"objects\":[");
    for (size_t k = 0; k < r->num_frames; ++k) {
        if (k) puts_(o, ",");
        integer(o, r->frames[k].num_objects);
    }
    puts_(o, "],\n\"poses\":[");
    for (size_t i = 0; i < r->num_poses; ++i) {
        if (i) puts_(o, i % 8 ? "," : ",\n");
        pose7(o, r->poses[i].t, r->poses[i].q);
    }
    puts_(o, "],\n\"contacts\":[");
    for (size_t k = 0; k < r->num_frames; ++k) {
        if (k) puts_(o, ",");
        integer(o, r->frames[k].num_contacts);
    }
    puts_(o, "],\n\"contact_data\":[");
    for (size_t i = 0; i < r->num_contacts; ++i) {
        const lucid_record_contact *c = &r->contacts[i];
        if (i) puts_(o, i % 8 ? "," : ",\n");
        integer(o, c->object1);
        puts_(o, ",");
        integer(o, c->object2);
        double v[6] = {c->point.x, c->point.y, c->point.z, c->force.x, c->force.y, c->force.z};
        for (int j = 0; j < 6; ++j) {
            puts_(o, ",");
            num(o, v[j]);
        }
    }
    puts_(o, "]}}\n");
    flush(o);
    int failed = o->failed;
    free(o);
    return failed ? LUCID_ERR_IO : LUCID_OK;
}
