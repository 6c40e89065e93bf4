/* lucid_mesh_decompose's options, checked through lucid_decompose_option_table: the defaults
 * decompose a tetrahedron, each rule is refused with its words. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/shapes/mesh_decompose.h"

/* The unit tetrahedron, faces oriented outwards. */
static const double points[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
static const int triangles[] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};

static lucid_status decompose(const lucid_decompose_options *o, char *err) {
    lucid_decomposition d;
    memset(&d, 0, sizeof d);
    lucid_status s = lucid_mesh_decompose(points, 4, triangles, 4, o, &d, err, 200);
    if (s == LUCID_OK) {
        assert_int_equal(d.num_parts, 1); /* convex: its own hull */
        assert_true(fabs(d.mesh_volume - 1.0 / 6.0) < 1e-15);
        lucid_decomposition_free(&d);
    }
    return s;
}

static void test_options_checked_by_the_table(void **state) {
    (void)state;
    char err[200] = "";
    lucid_decompose_options o = lucid_decompose_default_options();
    assert_int_equal(decompose(&o, err), LUCID_OK);
    o.max_parts = 0;
    assert_int_equal(decompose(&o, err), LUCID_ERR_ARGUMENT);
    assert_string_equal(err, "max_parts must be an integer in [1, 1048576] (got 0 parts, "
                             "concavity 0.01, holes close)");
    o.max_parts = LUCID_DECOMPOSE_MAX_PARTS + 1; /* a cell per part is allocated up front */
    assert_int_equal(decompose(&o, err), LUCID_ERR_ARGUMENT);
    o.max_parts = LUCID_DECOMPOSE_MAX_PARTS;
    assert_int_equal(decompose(&o, err), LUCID_OK);
    o = lucid_decompose_default_options();
    o.concavity = NAN;
    assert_int_equal(decompose(&o, err), LUCID_ERR_ARGUMENT);
    assert_non_null(strstr(err, "concavity must be > 0"));
    o.concavity = 0.0;
    assert_int_equal(decompose(&o, err), LUCID_ERR_ARGUMENT);
    o = lucid_decompose_default_options();
    o.holes = 7;
    assert_int_equal(decompose(&o, err), LUCID_ERR_ARGUMENT);
    assert_non_null(strstr(err, "holes must be \"close\" or \"refuse\""));
}

/* The tetrahedron without its last face: the hole is that face again (the default closes it),
 * or an error (holes "refuse"). */
static void test_a_missing_face_is_capped(void **state) {
    (void)state;
    char err[200] = "";
    lucid_decompose_options o = lucid_decompose_default_options();
    lucid_decomposition d;
    memset(&d, 0, sizeof d);
    assert_int_equal(lucid_mesh_decompose(points, 4, triangles, 3, &o, &d, err, 200), LUCID_OK);
    assert_int_equal(d.holes_closed, 1);
    assert_int_equal(d.hole_edges, 3);
    assert_int_equal(d.num_cap_triangles, 1);
    int cap[3] = {d.cap_triangles[0], d.cap_triangles[1], d.cap_triangles[2]};
    while (cap[0] != 1) { /* the missing face {1, 2, 3}, turned to start at vertex 1 */
        int first = cap[0];
        cap[0] = cap[1], cap[1] = cap[2], cap[2] = first;
    }
    assert_int_equal(cap[1], 2);
    assert_int_equal(cap[2], 3);
    assert_true(fabs(d.mesh_volume - 1.0 / 6.0) < 1e-15);
    lucid_decomposition_free(&d);
    o.holes = LUCID_HOLES_REFUSE;
    assert_int_equal(lucid_mesh_decompose(points, 4, triangles, 3, &o, &d, err, 200),
                     LUCID_ERR_DEGENERATE);
    assert_non_null(strstr(err, "the mesh is not closed: 3 edges have no opposite edge"));
}

/* A tetrahedron (apex moved off the unit one's symmetry, where vertex 0 projects onto the
 * diagonal 1-3) without the two faces on its edge 1-3: the hole 1, 2, 3, 0 has two diagonals,
 * and 0-2 is the edge the two faces left share. Its cap must cut along 1-3 (the first ear, at
 * vertex 1, would cut along 0-2 and use that edge twice each way: refused before as an open
 * sheet of volume 0). */
static void test_a_cap_avoids_the_mesh_s_edges(void **state) {
    (void)state;
    static const double skew[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.3, 0.2, 1};
    static const int two_faces[] = {0, 2, 1, 0, 3, 2};
    char err[200] = "";
    lucid_decompose_options o = lucid_decompose_default_options();
    lucid_decomposition d;
    memset(&d, 0, sizeof d);
    assert_int_equal(lucid_mesh_decompose(skew, 4, two_faces, 2, &o, &d, err, 200), LUCID_OK);
    assert_int_equal(d.holes_closed, 1);
    assert_int_equal(d.hole_edges, 4);
    assert_int_equal(d.num_cap_triangles, 2);
    for (int t = 0; t < 2; ++t) { /* each cap triangle holds 1 and 3 */
        const int *c = d.cap_triangles + 3 * t;
        assert_true((c[0] == 1 || c[1] == 1 || c[2] == 1) && (c[0] == 3 || c[1] == 3 || c[2] == 3));
    }
    assert_int_equal(d.num_parts, 1);
    assert_true(fabs(d.mesh_volume - 1.0 / 6.0) < 1e-15);
    lucid_decomposition_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options_checked_by_the_table),
        cmocka_unit_test(test_a_missing_face_is_capped),
        cmocka_unit_test(test_a_cap_avoids_the_mesh_s_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
