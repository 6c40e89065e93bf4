/* The collision hot path (support functions, GJK in every variant, EPA, halfspaces, Boolean
 * checks) performs no heap allocation. This executable is linked with --wrap for the C
 * allocator (tests/CMakeLists.txt), so every allocation made by lucid's code is counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "tests/c/common/test_collision_util.h"

#include "solvers/collision/pscaling.h"
#include "tests/c/common/test_alloc_counter.h"

static void wrapping_is_active(void **state) {
    (void)state;
    /* the wrapper sees allocations made inside the lucid library (the mesh arrays) */
    double pts[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    lucid_convex_mesh *mesh = NULL;
    counting = 1;
    allocations = 0;
    lucid_status st = lucid_convex_mesh_create(pts, 4, &mesh);
    counting = 0;
    assert_int_equal(st, LUCID_OK);
    lucid_convex_mesh_destroy(mesh);
    assert_true(allocations > 0);
}

static void no_allocation_in_queries(void **state) {
    (void)state;
    uint64_t rng = 8;
    double pts[3 * 200];
    for (int i = 0; i < 200; ++i)
        lucid_vec3_store(lucid_vec3_scale(random_direction(&rng), 0.3), pts + 3 * i);
    lucid_convex_mesh *mesh = NULL;
    assert_int_equal(lucid_convex_mesh_create(pts, 200, &mesh), LUCID_OK);
    lucid_shape shapes[8];
    lucid_shape_sphere(0.2, &shapes[0]);
    lucid_shape_ellipsoid(0.3, 0.1, 0.2, &shapes[1]);
    lucid_shape_box(0.2, 0.3, 0.1, &shapes[2]);
    lucid_shape_capsule(0.1, 0.3, &shapes[3]);
    lucid_shape_cylinder(0.2, 0.2, &shapes[4]);
    lucid_shape_cone(0.2, 0.3, &shapes[5]);
    lucid_shape_convex(mesh, &shapes[6]);
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), -0.2, &shapes[7]);
    lucid_se3 poses[64];
    for (int i = 0; i < 64; ++i)
        poses[i] = lucid_se3_make(random_rotation(&rng),
                                  lucid_vec3_scale(random_direction(&rng), 0.6 * uniform(&rng)));
    int failures = 0, penetrating = 0, separated = 0;
    for (int pass = 0; pass < 2; ++pass) { /* pass 0 warms up, pass 1 counts */
        counting = pass;
        allocations = 0;
        for (int q = 0; q < 1000; ++q) {
            const lucid_shape *a = &shapes[q % 8], *b = &shapes[(q / 8) % 7];
            lucid_gjk_options o;
            variant_options(q % 4, &o);
            lucid_distance_result r;
            int hit;
            failures +=
                lucid_distance(a, &poses[q % 64], b, &poses[(q * 7 + 3) % 64], &o, &r) != LUCID_OK;
            penetrating += r.distance < 0.0;
            separated += r.distance > 0.0;
            failures += lucid_collide(a, &poses[q % 64], b, &poses[(q * 7 + 3) % 64], &o, &hit,
                                      &r) != LUCID_OK;
        }
        counting = 0;
    }
    lucid_convex_mesh_destroy(mesh);
    assert_int_equal(failures, 0);
    assert_true(penetrating > 100 && separated > 100); /* both GJK and EPA paths ran */
    assert_int_equal(allocations, 0);
}

/* The P-SDF query (solvers/collision/pscaling.h), derivatives included, on every shape pair:
 * its cone program lives on the stack. */
static void no_allocation_in_pscaling(void **state) {
    (void)state;
    uint64_t rng = 9;
    double pts[3 * 100]; /* ~200 faces: two of them fit the program's 512 rows */
    for (int i = 0; i < 100; ++i)
        lucid_vec3_store(lucid_vec3_scale(random_direction(&rng), 0.3), pts + 3 * i);
    lucid_convex_mesh *mesh = NULL;
    assert_int_equal(lucid_convex_mesh_create(pts, 100, &mesh), LUCID_OK);
    lucid_shape shapes[8];
    lucid_shape_sphere(0.2, &shapes[0]);
    lucid_shape_ellipsoid(0.3, 0.1, 0.2, &shapes[1]);
    lucid_shape_box(0.2, 0.3, 0.1, &shapes[2]);
    lucid_shape_capsule(0.1, 0.3, &shapes[3]);
    lucid_shape_cylinder(0.2, 0.2, &shapes[4]);
    lucid_shape_cone(0.2, 0.3, &shapes[5]);
    lucid_shape_convex(mesh, &shapes[6]);
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), -0.2, &shapes[7]);
    lucid_pscaling_options o;
    lucid_pscaling_options_default(&o);
    o.derivatives = 1;
    int failures = 0;
    counting = 1;
    allocations = 0;
    for (int q = 0; q < 63; ++q) {
        const lucid_shape *a = &shapes[q % 8], *b = &shapes[(q / 8) % 7];
        lucid_se3 T1 = lucid_se3_make(random_rotation(&rng), lucid_vec3_zero());
        lucid_se3 T2 =
            lucid_se3_make(random_rotation(&rng), lucid_vec3_scale(random_direction(&rng), 0.5));
        lucid_pscaling_result r;
        lucid_status st = lucid_pscaling(a, &T1, b, &T2, &o, &r);
        failures += st != LUCID_OK;
    }
    counting = 0;
    lucid_convex_mesh_destroy(mesh);
    assert_int_equal(failures, 0);
    assert_int_equal(allocations, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wrapping_is_active),
        cmocka_unit_test(no_allocation_in_queries),
        cmocka_unit_test(no_allocation_in_pscaling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
