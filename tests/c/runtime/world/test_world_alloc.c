/* Once its buffers have grown to a scene's needs, lucid_world_step allocates nothing. The C
 * allocator is interposed in this executable (glibc's __libc_* entry points do the work), so
 * every allocation made by the library is counted. Skipped under AddressSanitizer, which owns
 * the allocator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "tests/c/common/test_arm_scene.h"
#include "runtime/world/step_derivatives.h"
#include "runtime/model/model.h"
#include "runtime/model/model_load.h"
#include "runtime/shapes/convex_mesh.h"
#include "runtime/world/world.h"

#if !defined(__SANITIZE_ADDRESS__)
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t m);
void *__libc_realloc(void *p, size_t n);

/* Test-only instrumentation state: the allocator has no other way to report. */
static int counting;
static long allocations;

void *malloc(size_t n) {
    allocations += counting;
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t m) {
    allocations += counting;
    return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n) {
    allocations += counting;
    return __libc_realloc(p, n);
}

static void add_body(lucid_world *w, const lucid_body_part *parts, int n, lucid_vec3 at) {
    lucid_body_desc d;
    lucid_body_desc_default(&d);
    d.parts = parts, d.num_parts = n;
    d.pose.t = at;
    int id;
    assert_int_equal(lucid_world_add_body(w, &d, &id, NULL), LUCID_OK);
}

/* A mixed scene (boxes, spheres, a composite, a mesh, stacks) settles; then 300 more steps
 * of it make no allocation, while the interposer does see the library's allocations. */
static void steps_allocate_nothing(const lucid_world_options *o) {
    counting = 1, allocations = 0;
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(o, &w), LUCID_OK);
    assert_true(allocations > 0); /* the interposer is active */
    double pts[24];
    for (int i = 0; i < 8; ++i)
        for (int k = 0; k < 3; ++k) pts[3 * i + k] = (i >> k & 1) ? 0.08 : -0.08;
    lucid_convex_mesh *mesh = NULL;
    assert_int_equal(lucid_convex_mesh_create(pts, 8, &mesh), LUCID_OK);
    lucid_body_part ground = {{0}, lucid_se3_identity()}, box = {{0}, lucid_se3_identity()};
    lucid_body_part ball = {{0}, lucid_se3_identity()}, hull = {{0}, lucid_se3_identity()};
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0, &ground.shape);
    lucid_shape_box(0.1, 0.1, 0.1, &box.shape);
    lucid_shape_sphere(0.1, &ball.shape);
    lucid_shape_convex(mesh, &hull.shape);
    lucid_body_part dumbbell[2] = {ball, ball};
    dumbbell[0].pose.t = lucid_vec3_make(-0.15, 0, 0),
    dumbbell[1].pose.t = lucid_vec3_make(0.15, 0, 0);
    lucid_se3 I = lucid_se3_identity();
    int id;
    assert_int_equal(lucid_world_add_static(w, &ground, 1, &I, 0.5, &id, NULL), LUCID_OK);
    for (int k = 0; k < 4; ++k) {
        double x = 0.5 * k;
        add_body(w, &box, 1, lucid_vec3_make(x, 0, 0.1));
        add_body(w, &box, 1, lucid_vec3_make(x, 0, 0.31));
        add_body(w, &ball, 1, lucid_vec3_make(x, 0.5, 0.1));
        add_body(w, dumbbell, 2, lucid_vec3_make(x, 1.0, 0.1));
        add_body(w, &hull, 1, lucid_vec3_make(x, 1.5, 0.08));
    }
    for (int i = 0; i < 300; ++i) assert_int_equal(lucid_world_step(w), LUCID_OK);
    int contacts = lucid_world_contact_count(w);
    allocations = 0;
    for (int i = 0; i < 300; ++i) assert_int_equal(lucid_world_step(w), LUCID_OK);
    long during = allocations;
    counting = 0;
    printf("%d contacts, %ld allocations in 300 steps\n", contacts, during);
    assert_true(contacts >= 4 * (4 + 4 + 1 + 2 + 4));
    assert_int_equal(during, 0);
    lucid_world_destroy(w);
    lucid_convex_mesh_destroy(mesh);
}

static void test_step_allocates_nothing(void **state) {
    (void)state;
    steps_allocate_nothing(NULL);
}

/* The same with every island solved in body space (ncp:pgs, sparse_threshold 0). */
static void test_body_space_step_allocates_nothing(void **state) {
    (void)state;
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.contact.solver = LUCID_CONTACT_PGS;
    o.sparse_threshold = 0;
    steps_allocate_nothing(&o);
}

/* The same with ncp:admm in body space (the sparse LDL factorisation of H included). */
static void test_body_space_admm_step_allocates_nothing(void **state) {
    (void)state;
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.contact.solver = LUCID_CONTACT_ADMM;
    o.sparse_threshold = 0;
    steps_allocate_nothing(&o);
}

/* lucid's 7-joint arm pressing its box under position servos (tasks/models/arm7.xml), settled
 * 600 steps, with the given contact model, solver and sparse_threshold; *m receives the model
 * (the caller destroys both). */
static lucid_world *arm_pressing_box(lucid_contact_model model, lucid_contact_solver solver,
                                     int sparse_threshold, lucid_model **m) {
    char err[512];
    lucid_model_spec *spec = NULL;
    if (lucid_model_spec_load(LUCID_SOURCE_DIR "/tasks/models/arm7.xml", NULL, &spec, err,
                              sizeof err) != LUCID_OK)
        fail_msg("%s", err);
    lucid_status st = lucid_model_compile(spec, m, err, sizeof err);
    lucid_model_spec_destroy(spec);
    if (st != LUCID_OK) fail_msg("%s", err);
    lucid_world *w = test_arm_world(*m, model, solver, sparse_threshold);
    for (int i = 0; i < 600; ++i) assert_int_equal(lucid_world_step(w), LUCID_OK);
    return w;
}

/* A robot in body space (its slot of nv columns, H with the tree's sparsity): lucid's 7-joint
 * arm pressing its box under position servos, with ncp:admm and ccp:newton. */
static void robot_steps_allocate_nothing(lucid_contact_model model, lucid_contact_solver solver) {
    lucid_model *m = NULL;
    lucid_world *w = arm_pressing_box(model, solver, 0, &m);
    int contacts = lucid_world_contact_count(w);
    counting = 1, allocations = 0;
    for (int i = 0; i < 300; ++i) assert_int_equal(lucid_world_step(w), LUCID_OK);
    long during = allocations;
    counting = 0;
    printf("arm7 in body space: %d contacts, %ld allocations in 300 steps\n", contacts, during);
    assert_true(contacts > 0);
    assert_int_equal(during, 0);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
}

static void test_robot_body_space_step_allocates_nothing(void **state) {
    (void)state;
    robot_steps_allocate_nothing(LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM);
    robot_steps_allocate_nothing(LUCID_CONTACT_CCP, LUCID_CONTACT_NEWTON);
}

/* A closed loop with contacts (tests/data/model/mjcf_fourbar_floor.xml: the four-bar's crank on
 * a block): the equality rows' workspace is sized at add_model, so its steps allocate nothing,
 * dense and in body space (sparse_threshold 0: the tree's reduced coordinates, whose bases and
 * mass blocks live in buffers that only grow). */
static void loop_steps_allocate_nothing(int sparse_threshold) {
    char err[512];
    lucid_model_spec *spec = NULL;
    lucid_model *m = NULL;
    if (lucid_model_spec_load(LUCID_SOURCE_DIR "/tests/data/model/mjcf_fourbar_floor.xml", NULL,
                              &spec, err, sizeof err) != LUCID_OK)
        fail_msg("%s", err);
    lucid_status st = lucid_model_compile(spec, &m, err, sizeof err);
    lucid_model_spec_destroy(spec);
    if (st != LUCID_OK) fail_msg("%s", err);
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.sparse_threshold = sparse_threshold;
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    lucid_world_model_desc d;
    lucid_world_model_desc_default(&d);
    int id;
    assert_int_equal(lucid_world_add_model(w, m, &d, &id, NULL), LUCID_OK);
    for (int i = 0; i < 300; ++i) assert_int_equal(lucid_world_step(w), LUCID_OK);
    counting = 1, allocations = 0;
    for (int i = 0; i < 300; ++i) assert_int_equal(lucid_world_step(w), LUCID_OK);
    long during = allocations;
    counting = 0;
    int contacts = lucid_world_contact_count(w);
    printf("four-bar on a block, sparse_threshold %d: %d contacts, %ld allocations in 300 steps\n",
           sparse_threshold, contacts, during);
    assert_true(contacts > 0);
    assert_int_equal(during, 0);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
}

static void test_loop_step_allocates_nothing(void **state) {
    (void)state;
    loop_steps_allocate_nothing(-1);
    loop_steps_allocate_nothing(0);
}

/* Spatial tendons (tests/data/model/mjcf_tendon_spatial.xml: wraps, a pulley, springs,
 * dampers, actuators, driven as tests/c/runtime/model/test_mjcf_spatial_tendons.c drives it until
 * its limited tendon is held at its bound): their lengths, moments and rows are computed without
 * allocating. */
static void test_spatial_tendon_step_allocates_nothing(void **state) {
    (void)state;
    char err[512];
    lucid_model_spec *spec = NULL;
    lucid_model *m = NULL;
    if (lucid_model_spec_load(LUCID_SOURCE_DIR "/tests/data/model/mjcf_tendon_spatial.xml", NULL,
                              &spec, err, sizeof err) != LUCID_OK)
        fail_msg("%s", err);
    lucid_status st = lucid_model_compile(spec, &m, err, sizeof err);
    lucid_model_spec_destroy(spec);
    if (st != LUCID_OK) fail_msg("%s", err);
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = lucid_model_timestep(m);
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    lucid_world_model_desc d;
    lucid_world_model_desc_default(&d);
    int id;
    assert_int_equal(lucid_world_add_model(w, m, &d, &id, NULL), LUCID_OK);
    const double u[5] = {0.5, 0.3, 0.2, 0.4, -0.3};
    assert_int_equal(lucid_world_model_set_control(w, id, u, NULL), LUCID_OK);
    for (int i = 0; i < 200; ++i) assert_int_equal(lucid_world_step(w), LUCID_OK);
    counting = 1, allocations = 0;
    for (int i = 0; i < 50; ++i) assert_int_equal(lucid_world_step(w), LUCID_OK);
    long during = allocations;
    counting = 0;
    int contacts = lucid_world_contact_count(w);
    printf("spatial tendons: %d tendon limit rows, %ld allocations in 50 steps\n", contacts,
           during);
    assert_true(contacts > 0);
    assert_int_equal(during, 0);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
}

/* The step derivatives of a robot in contact (the arm pressing its box, the default dense
 * path, every column analytic or on the kept copy): once the world's copy and arena have grown,
 * a call allocates only the Jacobians it hands the caller (A, B, P, mode, margin, switched,
 * estimated: 7 allocations), nothing for its own work. */
static void test_robot_step_derivatives_allocate_only_outputs(void **state) {
    (void)state;
    lucid_world_options defaults;
    lucid_world_default_options(&defaults);
    lucid_model *m = NULL;
    lucid_world *w = arm_pressing_box(defaults.contact.model, defaults.contact.solver,
                                      defaults.sparse_threshold, &m);
    lucid_step_derivative_options opt;
    lucid_step_derivative_default_options(&opt);
    lucid_step_jacobians J;
    for (int i = 0; i < 3; ++i) { /* the copy, the arena and the step's buffers grow */
        assert_int_equal(lucid_world_step_derivatives(w, &opt, &J, NULL), LUCID_OK);
        lucid_step_jacobians_free(&J);
    }
    const int calls = 20;
    int contacts = 0, carried = 1;
    counting = 1, allocations = 0;
    for (int i = 0; i < calls; ++i) {
        assert_int_equal(lucid_world_step_derivatives(w, &opt, &J, NULL), LUCID_OK);
        contacts = J.contacts, carried &= J.carried;
        lucid_step_jacobians_free(&J);
    }
    long during = allocations;
    counting = 0;
    printf("arm7 step derivatives: %d contacts, %ld allocations in %d calls\n", contacts, during,
           calls);
    assert_true(contacts > 0);
    assert_true(carried);
    assert_int_equal(during, 7L * calls);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_allocates_nothing),
        cmocka_unit_test(test_body_space_step_allocates_nothing),
        cmocka_unit_test(test_body_space_admm_step_allocates_nothing),
        cmocka_unit_test(test_robot_body_space_step_allocates_nothing),
        cmocka_unit_test(test_loop_step_allocates_nothing),
        cmocka_unit_test(test_spatial_tendon_step_allocates_nothing),
        cmocka_unit_test(test_robot_step_derivatives_allocate_only_outputs)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void) {
    puts("skipped: AddressSanitizer owns the allocator");
    return 0;
}
#endif
