/* Recordings for replay (lucid.viewer): a list of OBJECTS, each a named list of convex shapes
 * posed in the object's frame (a free body, a static body, later a robot link: a link is just
 * another posed shape list), and FRAMES, each the time, the world pose of every object that
 * existed then, and the contacts (world point, world force, the two objects).
 *
 *   frame k:  time_k,  pose_{k,i} = (t, q) for objects i < count_k,  contacts of frame k
 *
 * Objects are appended, never removed, so frame k holds the first count_k objects (an object
 * added later is absent from the earlier frames). Convex meshes (vertices and faces only) and
 * height fields (grid and heights) are copied into the recording, identical ones stored once,
 * so a recording depends on nothing it was made from and outlives its world.
 *
 * Memory: the data take (lucid_record_bytes)
 *   bytes = frames x 32 + (sum over frames of count_k) x 56 + contacts x 56
 *           + objects x 64 + parts x 152 + meshes (24 per vertex, 4 per face corner and
 *             4 per face) + height fields (56 + 8 per sample)
 * A frame that would take bytes beyond options.max_bytes, or the frame count beyond
 * options.max_frames, is dropped and counted (lucid_record_dropped); the recording is then
 * full and drops every later frame too, so a replay never has holes. Objects are always
 * kept (they are O(bodies)). The buffers grow by doubling, so what is allocated
 * is at most twice the data. Frames cost no allocation once the buffers have grown.
 *
 * The world helper lucid_record_world keeps object i = world body i (0-based ids), adding the
 * bodies created since the last call, and records the contacts of the last step. */
#ifndef LUCID_WORLD_RECORD_H
#define LUCID_WORLD_RECORD_H

#include <stddef.h>

#include "runtime/shapes/heightfield.h"
#include "runtime/world/world.h"

typedef struct lucid_record lucid_record;

typedef struct lucid_record_options {
    size_t max_frames; /* >= 1, default 1000000 */
    size_t max_bytes;  /* >= 4096, default 256 MiB (268435456) */
} lucid_record_options;

void lucid_record_default_options(lucid_record_options *o);

/* LUCID_ERR_ARGUMENT with *why (may be NULL) for bad options, LUCID_ERR_NO_MEMORY. */
lucid_status lucid_record_create(const lucid_record_options *o, lucid_record **out,
                                 const char **why);
void lucid_record_destroy(lucid_record *r); /* NULL is ignored */

/* A pose as stored: translation and unit quaternion (w, x, y, z). */
typedef struct lucid_record_pose {
    lucid_vec3 t;
    lucid_quat q;
} lucid_record_pose;

/* One shape of an object. For a convex shape, shape.u.mesh is NULL and mesh indexes the
 * recording's meshes; for a height field, shape.u.hfield is NULL and hfield indexes the
 * recording's height fields; each is -1 otherwise. */
typedef struct lucid_record_part {
    lucid_shape shape;
    lucid_se3 pose; /* in the object frame */
    int mesh, hfield;
} lucid_record_part;

/* Mesh geometry: vertices (xyz interleaved) and faces as vertex cycles, counter-clockwise
 * seen from outside (face f: face_vertices[face_offsets[f] .. face_offsets[f + 1])). */
typedef struct lucid_record_mesh {
    int num_vertices;
    double *vertices;
    int num_faces;
    int *face_offsets;
    int *face_vertices;
} lucid_record_mesh;

typedef struct lucid_record_object {
    char name[48];
    int is_static;
    int num_parts;
    lucid_record_part *parts;
} lucid_record_object;

typedef struct lucid_record_contact {
    int object1, object2; /* the force acts on object2, its opposite on object1; -1: none */
    lucid_vec3 point;     /* world */
    lucid_vec3 force;     /* world, N */
} lucid_record_contact;

typedef struct lucid_record_frame {
    double time;
    int num_objects; /* the first num_objects objects, poses[i] for object i */
    const lucid_record_pose *poses;
    int num_contacts;
    const lucid_record_contact *contacts;
} lucid_record_frame;

/* Appends an object; name may be NULL ("object N"; longer names are cut to 47 bytes).
 * Errors: LUCID_ERR_ARGUMENT (num_parts < 0, parts NULL with num_parts > 0, a non-finite pose
 * or size) with *why; LUCID_ERR_NO_MEMORY. The parts' meshes and height fields are copied. */
lucid_status lucid_record_add_object(lucid_record *r, const char *name, int is_static,
                                     const lucid_body_part *parts, int num_parts, int *index,
                                     const char **why);

/* Appends a frame: poses of the first num_poses objects (num_poses <= the object count and
 * not below the previous frame's count), contacts between existing objects. Errors:
 * LUCID_ERR_ARGUMENT / LUCID_ERR_NONFINITE with *why (nothing recorded). A frame beyond the
 * limits is not an error: it is dropped (counted), *kept is set to 0 (kept may be NULL) and
 * LUCID_OK returned. LUCID_ERR_NO_MEMORY when an allocation fails (the frame is dropped and
 * counted, and the recording is full from then on). */
lucid_status lucid_record_add_frame(lucid_record *r, double time, const lucid_se3 *poses,
                                    int num_poses, const lucid_record_contact *contacts,
                                    int num_contacts, int *kept, const char **why);

/* The world's state as a frame at `time`: adds objects for the bodies added since the last
 * call (names "body N" / "static N", N 1-based as in Lua), then the poses of all bodies and
 * the last step's contacts. LUCID_ERR_ARGUMENT when the recording has objects that are not
 * this world's bodies (more objects than bodies). */
lucid_status lucid_record_world(lucid_record *r, const lucid_world *w, double time, int *kept,
                                const char **why);

size_t lucid_record_frame_count(const lucid_record *r);
int lucid_record_object_count(const lucid_record *r);
int lucid_record_mesh_count(const lucid_record *r);
int lucid_record_heightfield_count(const lucid_record *r);
size_t lucid_record_contact_total(const lucid_record *r); /* over all frames */
size_t lucid_record_bytes(const lucid_record *r);         /* the data, as counted above */
size_t lucid_record_dropped(const lucid_record *r);       /* frames dropped */
const lucid_record_options *lucid_record_get_options(const lucid_record *r);

/* NULL / LUCID_ERR_ARGUMENT for an index out of range. */
const lucid_record_object *lucid_record_object_at(const lucid_record *r, int i);
const lucid_record_mesh *lucid_record_mesh_at(const lucid_record *r, int i);
const lucid_heightfield *lucid_record_heightfield_at(const lucid_record *r, int i);
lucid_status lucid_record_frame_at(const lucid_record *r, size_t k, lucid_record_frame *f);

/* The recording as JSON (the format of docs/viewer.md, "lucid.record/1"), handed to write in
 * pieces; a non-zero return of write stops the output and is returned as LUCID_ERR_IO. Numbers
 * are written with 7 significant digits (float precision, what a renderer uses). */
typedef int (*lucid_record_writer)(void *ctx, const char *text, size_t size);
lucid_status lucid_record_write_json(const lucid_record *r, lucid_record_writer write, void *ctx);

#endif
