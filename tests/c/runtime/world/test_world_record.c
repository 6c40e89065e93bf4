/* Recordings from C (runtime/world/world_record.h): objects as posed shape lists (what a robot
 * link will be), frames checked against their inputs, mesh and height field copies shared, the
 * byte count against its formula, the limits, argument errors, a world recorded step by step
 * (on a plane and on a height field), the JSON writer and its failures. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/heightfield.h"
#include "tests/c/common/test_assert.h"
#include "runtime/world/world_record.h"

static lucid_record *make(size_t max_frames, size_t max_bytes) {
    lucid_record_options o;
    lucid_record_default_options(&o);
    if (max_frames) o.max_frames = max_frames;
    if (max_bytes) o.max_bytes = max_bytes;
    lucid_record *r = NULL;
    assert_int_equal(lucid_record_create(&o, &r, NULL), LUCID_OK);
    return r;
}

static lucid_convex_mesh *tetra(double s) {
    double p[12] = {0, 0, 0, s, 0, 0, 0, s, 0, 0, 0, s};
    lucid_convex_mesh *m = NULL;
    assert_int_equal(lucid_convex_mesh_create(p, 4, &m), LUCID_OK);
    return m;
}

static lucid_se3 at(double x, double y, double z) {
    return lucid_se3_make(lucid_mat3_identity(), lucid_vec3_make(x, y, z));
}

static void test_objects_and_frames(void **state) {
    (void)state;
    lucid_record *r = make(0, 0);
    lucid_convex_mesh *a = tetra(1), *b = tetra(1), *c = tetra(2);
    lucid_body_part link[3];
    assert_int_equal(lucid_shape_convex(a, &link[0].shape), LUCID_OK);
    assert_int_equal(lucid_shape_convex(b, &link[1].shape), LUCID_OK);
    assert_int_equal(lucid_shape_capsule(0.1, 0.3, &link[2].shape), LUCID_OK);
    link[0].pose = at(0, 0, 0), link[1].pose = at(0, 0, 1), link[2].pose = at(1, 0, 0);
    int index = -1;
    assert_int_equal(lucid_record_add_object(r, "link 1", 0, link, 3, &index, NULL), LUCID_OK);
    assert_int_equal(index, 0);
    assert_int_equal(lucid_shape_convex(c, &link[0].shape), LUCID_OK);
    assert_int_equal(lucid_record_add_object(r, NULL, 1, link, 1, &index, NULL), LUCID_OK);
    /* a and b are equal meshes (one copy), c differs; the copies outlive the originals */
    assert_int_equal(lucid_record_mesh_count(r), 2);
    lucid_convex_mesh_destroy(a);
    lucid_convex_mesh_destroy(b);
    lucid_convex_mesh_destroy(c);
    const lucid_record_object *o = lucid_record_object_at(r, 0);
    assert_string_equal(o->name, "link 1");
    assert_int_equal(o->num_parts, 3);
    assert_int_equal(o->parts[0].mesh, 0);
    assert_int_equal(o->parts[1].mesh, 0);
    assert_int_equal(o->parts[2].mesh, -1);
    assert_null(o->parts[0].shape.u.mesh);
    assert_string_equal(lucid_record_object_at(r, 1)->name, "object 2");
    assert_int_equal(lucid_record_object_at(r, 1)->parts[0].mesh, 1);
    assert_close(lucid_record_mesh_at(r, 1)->vertices[3], 2.0, 0);
    assert_null(lucid_record_object_at(r, 2));
    size_t objects_bytes = lucid_record_bytes(r);

    /* frames: one object, then two; a rotation about z by 90 degrees round-trips */
    lucid_se3 poses[2] = {at(1, 2, 3), at(4, 5, 6)};
    lucid_quat q = {cos(0.78539816339744831), 0, 0, sin(0.78539816339744831)};
    assert_int_equal(lucid_se3_from_quat(q, lucid_vec3_make(1, 2, 3), &poses[0]), LUCID_OK);
    int kept = -1;
    assert_int_equal(lucid_record_add_frame(r, 0.0, poses, 1, NULL, 0, &kept, NULL), LUCID_OK);
    assert_int_equal(kept, 1);
    lucid_record_contact contact = {0, 1, {0.5, 0, 0}, {0, 0, 9.81}};
    assert_int_equal(lucid_record_add_frame(r, 0.1, poses, 2, &contact, 1, &kept, NULL), LUCID_OK);
    assert_int_equal(lucid_record_frame_count(r), 2);
    lucid_record_frame f;
    assert_int_equal(lucid_record_frame_at(r, 1, &f), LUCID_OK);
    assert_close(f.time, 0.1, 0);
    assert_int_equal(f.num_objects, 2);
    assert_close(f.poses[0].t.y, 2, 0);
    assert_close(f.poses[0].q.w, q.w, 1e-15);
    assert_close(f.poses[0].q.z, q.z, 1e-15);
    assert_close(f.poses[1].t.z, 6, 0);
    assert_int_equal(f.num_contacts, 1);
    assert_close(f.contacts[0].force.z, 9.81, 0);
    assert_int_equal(lucid_record_frame_at(r, 2, &f), LUCID_ERR_ARGUMENT);
    /* the byte count is the documented formula */
    size_t frame_bytes = 2 * (sizeof(double) + 2 * sizeof(size_t) + 2 * sizeof(int)) +
                         3 * sizeof(lucid_record_pose) + 1 * sizeof(lucid_record_contact);
    assert_int_equal(lucid_record_bytes(r) - objects_bytes, frame_bytes);
    assert_int_equal(sizeof(lucid_record_pose), 56);

    /* errors: nothing recorded */
    const char *why = NULL;
    assert_int_equal(lucid_record_add_frame(r, 0.2, poses, 1, NULL, 0, &kept, &why),
                     LUCID_ERR_ARGUMENT); /* fewer objects than the previous frame */
    assert_non_null(strstr(why, "every object of the previous frame"));
    assert_int_equal(lucid_record_add_frame(r, 0.2, poses, 3, NULL, 0, &kept, &why),
                     LUCID_ERR_ARGUMENT); /* more than the recording's objects */
    lucid_record_contact bad = {0, 2, {0, 0, 0}, {0, 0, 0}};
    assert_int_equal(lucid_record_add_frame(r, 0.2, poses, 2, &bad, 1, &kept, &why),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_record_add_frame(r, NAN, poses, 2, NULL, 0, &kept, &why),
                     LUCID_ERR_NONFINITE);
    poses[1].t.x = INFINITY;
    assert_int_equal(lucid_record_add_frame(r, 0.2, poses, 2, NULL, 0, &kept, &why),
                     LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_record_add_object(r, "x", 0, NULL, 1, NULL, &why), LUCID_ERR_ARGUMENT);
    link[0].pose.t.x = NAN;
    assert_int_equal(lucid_record_add_object(r, "x", 0, link, 1, NULL, &why), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_record_frame_count(r), 2);
    assert_int_equal(kept, 0);
    /* objects of their own: not a world's bodies */
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(NULL, &w), LUCID_OK);
    assert_int_equal(lucid_record_world(r, w, 0, &kept, &why), LUCID_ERR_ARGUMENT);
    lucid_world_destroy(w);
    lucid_record_destroy(r);
    lucid_record_destroy(NULL);
}

static void test_limits(void **state) {
    (void)state;
    const char *why = NULL;
    lucid_record_options o;
    lucid_record_default_options(&o);
    o.max_bytes = 100;
    lucid_record *r = NULL;
    assert_int_equal(lucid_record_create(&o, &r, &why), LUCID_ERR_ARGUMENT);
    assert_null(r);
    o.max_bytes = 4096, o.max_frames = 0;
    assert_int_equal(lucid_record_create(&o, &r, &why), LUCID_ERR_ARGUMENT);

    r = make(3, 0);
    lucid_body_part part = {.pose = at(0, 0, 0)};
    assert_int_equal(lucid_shape_sphere(1, &part.shape), LUCID_OK);
    assert_int_equal(lucid_record_add_object(r, "s", 0, &part, 1, NULL, NULL), LUCID_OK);
    lucid_se3 T = at(0, 0, 0);
    int kept;
    for (int k = 0; k < 5; ++k) {
        assert_int_equal(lucid_record_add_frame(r, k, &T, 1, NULL, 0, &kept, NULL), LUCID_OK);
        assert_int_equal(kept, k < 3);
    }
    assert_int_equal(lucid_record_frame_count(r), 3);
    assert_int_equal(lucid_record_dropped(r), 2);
    lucid_record_destroy(r);

    /* bytes: the frames that fit, never more */
    r = make(0, 4096);
    assert_int_equal(lucid_record_add_object(r, "s", 0, &part, 1, NULL, NULL), LUCID_OK);
    size_t base = lucid_record_bytes(r), per = 32 + sizeof(lucid_record_pose);
    for (int k = 0; k < 200; ++k)
        assert_int_equal(lucid_record_add_frame(r, k, &T, 1, NULL, 0, NULL, NULL), LUCID_OK);
    assert_int_equal(lucid_record_frame_count(r), (4096 - base) / per);
    assert_true(lucid_record_bytes(r) <= 4096);
    assert_int_equal(lucid_record_frame_count(r) + lucid_record_dropped(r), 200);
    lucid_record_destroy(r);
}

/* A world's steps recorded: object i is body i, poses and contacts as the world has them. */
static void test_world(void **state) {
    (void)state;
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(NULL, &w), LUCID_OK);
    lucid_body_part ground = {.pose = at(0, 0, 0)};
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0, &ground.shape), LUCID_OK);
    lucid_se3 identity = lucid_se3_identity();
    int id;
    assert_int_equal(lucid_world_add_static(w, &ground, 1, &identity, 0.5, &id, NULL), LUCID_OK);
    lucid_body_part cube = {.pose = at(0, 0, 0)};
    assert_int_equal(lucid_shape_box(0.1, 0.1, 0.1, &cube.shape), LUCID_OK);
    lucid_body_desc d;
    lucid_body_desc_default(&d);
    d.parts = &cube, d.num_parts = 1, d.pose = at(0, 0, 0.1);
    assert_int_equal(lucid_world_add_body(w, &d, &id, NULL), LUCID_OK);
    lucid_record *r = make(0, 0);
    const double dt = lucid_world_get_options(w)->dt;
    for (int k = 0; k <= 50; ++k) {
        if (k) assert_int_equal(lucid_world_step(w), LUCID_OK);
        assert_int_equal(lucid_record_world(r, w, k * dt, NULL, NULL), LUCID_OK);
    }
    assert_int_equal(lucid_record_object_count(r), 2);
    assert_string_equal(lucid_record_object_at(r, 0)->name, "static 1");
    assert_true(lucid_record_object_at(r, 0)->is_static);
    assert_string_equal(lucid_record_object_at(r, 1)->name, "body 2");
    lucid_record_frame f;
    assert_int_equal(lucid_record_frame_at(r, 50, &f), LUCID_OK);
    lucid_se3 T;
    lucid_world_pose(w, 1, &T);
    assert_close(f.poses[1].t.z, T.t.z, 0);
    int n = lucid_world_contact_count(w);
    assert_true(n >= 4);
    assert_int_equal(f.num_contacts, n);
    double weight = 0;
    for (int i = 0; i < n; ++i) {
        assert_int_equal(f.contacts[i].object1, lucid_world_contacts(w)[i].body1);
        weight += f.contacts[i].force.z * (f.contacts[i].object2 == 1 ? 1 : -1);
    }
    assert_close(weight, lucid_world_body_mass(w, 1) * 9.81, 1e-3); /* at rest */
    /* another world: refused */
    lucid_world *other = NULL;
    assert_int_equal(lucid_world_create(NULL, &other), LUCID_OK);
    assert_int_equal(lucid_record_world(r, other, 1, NULL, NULL), LUCID_ERR_ARGUMENT);
    lucid_world_destroy(other);
    lucid_world_destroy(w);
    lucid_record_destroy(r);
}

/* docs/model_files.md's ramp: 2 rows x 3 columns of elevations 0 1 2, heights 0, h/2, h. */
static lucid_heightfield *ramp(double h) {
    const double e[6] = {0, 1, 2, 0, 1, 2}, size[4] = {1, 0.5, h, 0.1};
    lucid_heightfield *f = NULL;
    assert_int_equal(lucid_heightfield_create(2, 3, e, size, &f), LUCID_OK);
    return f;
}

/* Height fields are copied once (identical fields shared), outlive the originals, and count
 * sizeof(lucid_heightfield) + 8 per sample in the bytes. */
static void test_heightfields(void **state) {
    (void)state;
    lucid_record *r = make(0, 0);
    lucid_heightfield *a = ramp(0.2), *b = ramp(0.2), *c = ramp(0.4);
    lucid_body_part part = {.pose = at(1, 2, 3)};
    assert_int_equal(lucid_shape_heightfield(a, &part.shape), LUCID_OK);
    size_t before = lucid_record_bytes(r);
    assert_int_equal(lucid_record_add_object(r, "terrain", 1, &part, 1, NULL, NULL), LUCID_OK);
    assert_int_equal(sizeof(lucid_heightfield), 56);
    assert_int_equal(lucid_record_bytes(r) - before, sizeof(lucid_record_object) +
                                                         sizeof(lucid_record_part) +
                                                         sizeof(lucid_heightfield) + 6 * 8);
    before = lucid_record_bytes(r);
    assert_int_equal(lucid_shape_heightfield(b, &part.shape), LUCID_OK);
    assert_int_equal(lucid_record_add_object(r, NULL, 1, &part, 1, NULL, NULL), LUCID_OK);
    assert_int_equal(lucid_record_bytes(r) - before,
                     sizeof(lucid_record_object) + sizeof(lucid_record_part)); /* shared */
    assert_int_equal(lucid_shape_heightfield(c, &part.shape), LUCID_OK);
    assert_int_equal(lucid_record_add_object(r, NULL, 1, &part, 1, NULL, NULL), LUCID_OK);
    assert_int_equal(lucid_record_heightfield_count(r), 2);
    const lucid_record_part *p = &lucid_record_object_at(r, 0)->parts[0];
    assert_int_equal(p->shape.kind, LUCID_SHAPE_HEIGHTFIELD);
    assert_null(p->shape.u.hfield);
    assert_int_equal(p->hfield, 0);
    assert_int_equal(p->mesh, -1);
    assert_close(p->pose.t.z, 3, 0);
    assert_int_equal(lucid_record_object_at(r, 1)->parts[0].hfield, 0);
    assert_int_equal(lucid_record_object_at(r, 2)->parts[0].hfield, 1);
    assert_null(lucid_record_heightfield_at(r, 2));
    /* the copies equal the fields bit for bit after the originals are gone */
    lucid_heightfield_destroy(a);
    lucid_heightfield_destroy(c);
    lucid_heightfield *expected[2] = {b, ramp(0.4)};
    for (int i = 0; i < 2; ++i) {
        const lucid_heightfield *h = lucid_record_heightfield_at(r, i), *e = expected[i];
        assert_int_equal(h->nrow, 2);
        assert_int_equal(h->ncol, 3);
        assert_memory_equal(h->size, e->size, sizeof h->size);
        assert_memory_equal(h->height, e->height, 6 * sizeof(double));
        assert_close(h->top, e->top, 0);
        lucid_heightfield_destroy(expected[i]);
    }
    /* a height field part without its field is refused */
    part.shape.u.hfield = NULL;
    const char *why = NULL;
    assert_int_equal(lucid_record_add_object(r, NULL, 1, &part, 1, NULL, &why), LUCID_ERR_ARGUMENT);
    assert_non_null(strstr(why, "not a valid shape"));
    lucid_record_destroy(r);
}

/* A sphere dropped on a height field, recorded step by step: the field is a part of static 1. */
static void test_world_heightfield(void **state) {
    (void)state;
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(NULL, &w), LUCID_OK);
    lucid_heightfield *f = ramp(0.2);
    lucid_body_part ground = {.pose = at(0, 0, 0)};
    assert_int_equal(lucid_shape_heightfield(f, &ground.shape), LUCID_OK);
    lucid_se3 place = at(0.5, -0.25, 0.125);
    int id;
    assert_int_equal(lucid_world_add_static(w, &ground, 1, &place, 0.5, &id, NULL), LUCID_OK);
    lucid_body_part ball = {.pose = at(0, 0, 0)};
    assert_int_equal(lucid_shape_sphere(0.05, &ball.shape), LUCID_OK);
    lucid_body_desc d;
    lucid_body_desc_default(&d);
    d.parts = &ball, d.num_parts = 1, d.pose = at(0.5, -0.25, 0.4);
    assert_int_equal(lucid_world_add_body(w, &d, &id, NULL), LUCID_OK);
    lucid_record *r = make(0, 0);
    int contacts = 0;
    for (int k = 0; k <= 300; ++k) {
        if (k) assert_int_equal(lucid_world_step(w), LUCID_OK);
        assert_int_equal(lucid_record_world(r, w, k, NULL, NULL), LUCID_OK);
        contacts += lucid_world_contact_count(w);
    }
    assert_true(contacts > 0); /* the ball landed on the field */
    /* the world borrows f; the recording holds a copy */
    lucid_world_destroy(w);
    lucid_heightfield_destroy(f);
    assert_int_equal(lucid_record_heightfield_count(r), 1);
    assert_int_equal(lucid_record_object_at(r, 0)->parts[0].hfield, 0);
    lucid_record_frame fr;
    assert_int_equal(lucid_record_frame_at(r, 0, &fr), LUCID_OK);
    assert_close(fr.poses[0].t.x, 0.5, 0);
    assert_close(fr.poses[0].t.z, 0.125, 0);
    lucid_record_destroy(r);
}

typedef struct sink {
    char *text;
    size_t len, cap;
    int fail_after; /* calls before failing, -1 never */
} sink;

static int to_sink(void *ctx, const char *s, size_t n) {
    sink *k = ctx;
    if (k->fail_after == 0) return 1;
    if (k->fail_after > 0) k->fail_after--;
    if (k->len + n + 1 > k->cap) {
        k->cap = 2 * (k->len + n + 1);
        k->text = realloc(k->text, k->cap);
        assert_non_null(k->text);
    }
    memcpy(k->text + k->len, s, n);
    k->len += n;
    k->text[k->len] = 0;
    return 0;
}

static void test_json(void **state) {
    (void)state;
    lucid_record *r = make(0, 0);
    lucid_body_part parts[2] = {{.pose = at(0, 0, 0)}, {.pose = at(0, 0, 0.5)}};
    assert_int_equal(lucid_shape_cone(0.25, 0.5, &parts[0].shape), LUCID_OK);
    assert_int_equal(lucid_shape_ellipsoid(1, 2, 3, &parts[1].shape), LUCID_OK);
    assert_int_equal(lucid_record_add_object(r, "a \"<b>\"", 0, parts, 2, NULL, NULL), LUCID_OK);
    lucid_se3 T = at(1.0 / 3.0, -0.0, 1e-9);
    lucid_record_contact c = {-1, 0, {1, 2, 3}, {4, 5, 6}};
    assert_int_equal(lucid_record_add_frame(r, 0.5, &T, 1, &c, 1, NULL, NULL), LUCID_OK);
    sink k = {NULL, 0, 0, -1};
    assert_int_equal(lucid_record_write_json(r, to_sink, &k), LUCID_OK);
    assert_non_null(strstr(k.text, "\"name\":\"a \\u0022\\u003cb\\u003e\\u0022\""));
    assert_non_null(strstr(k.text, "{\"kind\":\"cone\",\"pose\":[0,0,0,1,0,0,0],\"radius\":0.25,"
                                   "\"half_length\":0.5}"));
    assert_non_null(strstr(k.text, "\"radii\":[1,2,3]"));
    assert_non_null(strstr(k.text, "\"poses\":[0.3333333,0,1e-09,1,0,0,0]"));
    assert_non_null(strstr(k.text, "\"contact_data\":[-1,0,1,2,3,4,5,6]"));
    assert_non_null(strstr(k.text, "\"time\":[0.5]"));
    free(k.text);
    sink broken = {NULL, 0, 0, 0};
    assert_int_equal(lucid_record_write_json(r, to_sink, &broken), LUCID_ERR_IO);
    free(broken.text);
    assert_int_equal(lucid_record_write_json(r, NULL, NULL), LUCID_ERR_ARGUMENT);
    lucid_record_destroy(r);
    /* a height field: its grid once under "heightfields", the part naming it */
    r = make(0, 0);
    lucid_heightfield *f = ramp(0.2);
    assert_int_equal(lucid_shape_heightfield(f, &parts[0].shape), LUCID_OK);
    assert_int_equal(lucid_record_add_object(r, "terrain", 1, parts, 1, NULL, NULL), LUCID_OK);
    lucid_heightfield_destroy(f);
    k = (sink){NULL, 0, 0, -1};
    assert_int_equal(lucid_record_write_json(r, to_sink, &k), LUCID_OK);
    assert_non_null(strstr(k.text, "{\"kind\":\"heightfield\",\"pose\":[0,0,0,1,0,0,0],"
                                   "\"heightfield\":0}"));
    assert_non_null(strstr(k.text, "\"heightfields\":[\n{\"rows\":2,\"columns\":3,"
                                   "\"size\":[1,0.5,0.2,0.1],\"heights\":[0,0.1,0.2,0,0.1,0.2]}]"));
    free(k.text);
    lucid_record_destroy(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_objects_and_frames), cmocka_unit_test(test_limits),
        cmocka_unit_test(test_heightfields),       cmocka_unit_test(test_world),
        cmocka_unit_test(test_world_heightfield),  cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
