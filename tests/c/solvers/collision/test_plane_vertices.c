/* A polytope's vertices within the margin of a plane or over a face: the separations against
 * a reference list (every corner or hull vertex measured, tested over the face and sorted
 * here), the witness relation p2 - p1 =
 * separation * normal with p on the plane, the order by depth, the cap, the swapped pair, and
 * argument errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "runtime/math/so3.h"
#include "solvers/collision/plane_vertices.h"
#include "tests/c/common/test_collision_util.h"

/* The separations below margin of world points x (n of them) from the plane n.x = offset,
 * sorted ascending: the reference list (selection sort, small n). */
static int reference_separations(const lucid_vec3 *x, int n, lucid_vec3 normal, double offset,
                                 double margin, double *out) {
    int count = 0;
    for (int i = 0; i < n; ++i) {
        double s = lucid_vec3_dot(normal, x[i]) - offset;
        if (s < margin) out[count++] = s;
    }
    for (int i = 0; i < count; ++i)
        for (int j = i + 1; j < count; ++j)
            if (out[j] < out[i]) {
                double t = out[i];
                out[i] = out[j], out[j] = t;
            }
    return count;
}

/* Checks res (plane as shape `plane_first ? 1 : 2`) against the reference separations. */
static void check_points(const lucid_contact_patch_result *res, int plane_first, lucid_vec3 normal,
                         double offset, const double *ref, int ref_count, int cap) {
    int expect = ref_count < cap ? ref_count : cap;
    assert_int_equal(res->count, expect);
    lucid_vec3 n12 = plane_first ? normal : lucid_vec3_neg(normal);
    assert_true(lucid_vec3_norm(lucid_vec3_sub(res->normal, n12)) < 1e-15);
    for (int k = 0; k < res->count; ++k) {
        const lucid_contact_point *p = &res->points[k];
        assert_true(fabs(p->separation - ref[k]) < 1e-12);
        lucid_vec3 gap = lucid_vec3_sub(p->p2, p->p1);
        assert_true(lucid_vec3_norm(lucid_vec3_axpy(gap, -p->separation, n12)) < 1e-12);
        lucid_vec3 on_plane = plane_first ? p->p1 : p->p2, vertex = plane_first ? p->p2 : p->p1;
        assert_true(fabs(lucid_vec3_dot(normal, on_plane) - offset) < 1e-12);
        assert_true(fabs(lucid_vec3_dot(normal, vertex) - offset - p->separation) < 1e-12);
        if (k > 0) assert_true(p->separation >= res->points[k - 1].separation);
    }
}

static void test_box_corners_by_depth(void **state) {
    (void)state;
    uint64_t rng = 11;
    lucid_shape box, plane;
    lucid_vec3 h = lucid_vec3_make(0.2, 0.15, 0.1);
    assert_int_equal(lucid_shape_box(h.x, h.y, h.z, &box), LUCID_OK);
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0.0, &plane), LUCID_OK);
    for (int trial = 0; trial < 200; ++trial) {
        lucid_se3 Tb =
            lucid_se3_make(random_rotation(&rng),
                           lucid_vec3_make(uniform(&rng), uniform(&rng), 0.3 * uniform(&rng)));
        lucid_se3 Tp = lucid_se3_make(random_rotation(&rng), lucid_vec3_make(0, 0, 0.05));
        lucid_vec3 normal = lucid_mat3_col(&Tp.R, 2);
        double offset = lucid_vec3_dot(normal, Tp.t), margin = 0.4 * uniform(&rng);
        lucid_vec3 corners[8];
        box_corners(h, &Tb, corners);
        double ref[8];
        int count = reference_separations(corners, 8, normal, offset, margin, ref);
        int cap = 1 + trial % 6;
        lucid_contact_patch_result res;
        assert_int_equal(lucid_plane_vertices(&plane, &Tp, &box, &Tb, margin, cap, &res), LUCID_OK);
        check_points(&res, 1, normal, offset, ref, count, cap);
        assert_int_equal(lucid_plane_vertices(&box, &Tb, &plane, &Tp, margin, cap, &res), LUCID_OK);
        check_points(&res, 0, normal, offset, ref, count, cap);
    }
}

static void test_mesh_points(void **state) {
    (void)state;
    uint64_t rng = 5;
    enum { N = 60 };
    double pts[3 * N];
    lucid_vec3 x[N];
    for (int i = 0; i < N; ++i) {
        lucid_vec3 d = random_direction(&rng);
        pts[3 * i] = 0.1 * d.x, pts[3 * i + 1] = 0.07 * d.y, pts[3 * i + 2] = 0.05 * d.z;
    }
    lucid_convex_mesh *mesh = NULL;
    assert_int_equal(lucid_convex_mesh_create(pts, N, &mesh), LUCID_OK);
    lucid_shape hull, plane;
    assert_int_equal(lucid_shape_convex(mesh, &hull), LUCID_OK);
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0.0, &plane), LUCID_OK);
    lucid_se3 Tp = lucid_se3_identity();
    for (int trial = 0; trial < 50; ++trial) {
        lucid_se3 Tm = lucid_se3_make(random_rotation(&rng), lucid_vec3_make(0, 0, 0.03));
        /* every hull vertex (the reference list is over the hull's vertices, posed here) */
        int n = mesh->num_vertices;
        assert_true(n <= N);
        for (int i = 0; i < n; ++i) x[i] = lucid_se3_act(&Tm, mesh->vertices[i]);
        double ref[N];
        int count = reference_separations(x, n, lucid_vec3_make(0, 0, 1), 0.0, 0.02, ref);
        lucid_contact_patch_result res;
        assert_int_equal(lucid_plane_vertices(&plane, &Tp, &hull, &Tm, 0.02, 16, &res), LUCID_OK);
        check_points(&res, 1, lucid_vec3_make(0, 0, 1), 0.0, ref, count, 16);
    }
    lucid_convex_mesh_destroy(mesh);
}

/* Whether x projects into the axis-aligned face z = top of the box h posed by T (the
 * reference's own check, written here in the box's frame). */
static int over_top_face(lucid_vec3 x, lucid_vec3 h, const lucid_se3 *T) {
    lucid_vec3 l = lucid_se3_act_inv(T, x);
    double tol = 1e-9 * 2.0 * fmax(h.x, h.y);
    return fabs(l.x) <= h.x + tol && fabs(l.y) <= h.y + tol;
}

static void test_box_corners_over_a_box_face(void **state) {
    (void)state;
    uint64_t rng = 29;
    lucid_vec3 ht = lucid_vec3_make(0.3, 0.25, 0.05), hb = lucid_vec3_make(0.1, 0.08, 0.06);
    lucid_shape table, box;
    assert_int_equal(lucid_shape_box(ht.x, ht.y, ht.z, &table), LUCID_OK);
    assert_int_equal(lucid_shape_box(hb.x, hb.y, hb.z, &box), LUCID_OK);
    int partial = 0;
    for (int trial = 0; trial < 300; ++trial) {
        /* the table tilted, its top face up-ish; the box above it, often over its rim */
        lucid_mat3 Rt = axis_angle(random_direction(&rng), 0.3 * uniform(&rng));
        lucid_se3 Tt = lucid_se3_make(Rt, lucid_vec3_make(0, 0, -ht.z));
        lucid_vec3 n = lucid_mat3_col(&Rt, 2);
        lucid_vec3 top = lucid_se3_act(&Tt, lucid_vec3_make(0, 0, ht.z));
        lucid_se3 Tb = lucid_se3_make(
            random_rotation(&rng), lucid_vec3_make(0.5 * uniform(&rng) - 0.1,
                                                   0.5 * uniform(&rng) - 0.1, 0.2 * uniform(&rng)));
        double margin = 0.1 * uniform(&rng), offset = lucid_vec3_dot(n, top);
        lucid_vec3 corners[8], over[8];
        box_corners(hb, &Tb, corners);
        int m = 0;
        for (int i = 0; i < 8; ++i)
            if (over_top_face(corners[i], ht, &Tt)) over[m++] = corners[i];
        partial += m > 0 && m < 8;
        double ref[8];
        int count = reference_separations(over, m, n, offset, margin, ref);
        lucid_contact_patch_result res;
        assert_int_equal(lucid_face_vertices(&table, &Tt, &box, &Tb, 1, n, margin, 8, &res),
                         LUCID_OK);
        check_points(&res, 1, n, offset, ref, count, 8);
        assert_int_equal(
            lucid_face_vertices(&box, &Tb, &table, &Tt, 2, lucid_vec3_neg(n), margin, 4, &res),
            LUCID_OK);
        check_points(&res, 0, n, offset, ref, count, 4);
    }
    assert_true(partial > 20); /* boxes over the rim: some corners out of the face */
}

/* A capsule's two ends (its end spheres' lowest points) and a cylinder's rim points (the
 * facing cap's support point and the two 120 degrees from it, the other cap's support point)
 * against their separations in closed form: n.e - r for an end e; n.f - r s, n.f + r s / 2 and
 * n.g - r s for the facing cap's centre f, the other's g, s the sine of the axis' tilt. */
static void test_capsule_ends_and_cylinder_rims(void **state) {
    (void)state;
    uint64_t rng = 17;
    lucid_shape capsule, cylinder, plane;
    const double r = 0.05, h = 0.12;
    assert_int_equal(lucid_shape_capsule(r, h, &capsule), LUCID_OK);
    assert_int_equal(lucid_shape_cylinder(r, h, &cylinder), LUCID_OK);
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0.0, &plane), LUCID_OK);
    for (int trial = 0; trial < 200; ++trial) {
        lucid_se3 Ts =
            lucid_se3_make(random_rotation(&rng),
                           lucid_vec3_make(uniform(&rng), uniform(&rng), 0.2 * uniform(&rng)));
        lucid_se3 Tp = lucid_se3_make(random_rotation(&rng), lucid_vec3_make(0, 0, 0.05));
        lucid_vec3 n = lucid_mat3_col(&Tp.R, 2), a = lucid_mat3_col(&Ts.R, 2);
        double offset = lucid_vec3_dot(n, Tp.t), margin = 0.4 * uniform(&rng);
        int cap = 1 + trial % 4;
        lucid_contact_patch_result res;
        /* the capsule: its ends' spheres */
        lucid_vec3 ends[2] = {lucid_vec3_axpy(Ts.t, -h, a), lucid_vec3_axpy(Ts.t, h, a)};
        for (int k = 0; k < 2; ++k) ends[k] = lucid_vec3_axpy(ends[k], -r, n);
        double ref[4];
        int count = reference_separations(ends, 2, n, offset, margin, ref);
        assert_int_equal(lucid_plane_vertices(&plane, &Tp, &capsule, &Ts, margin, cap, &res),
                         LUCID_OK);
        check_points(&res, 1, n, offset, ref, count, cap);
        assert_int_equal(lucid_plane_vertices(&capsule, &Ts, &plane, &Tp, margin, cap, &res),
                         LUCID_OK);
        check_points(&res, 0, n, offset, ref, count, cap);
        /* the cylinder: separations in closed form, points on its rims */
        double ct = lucid_vec3_dot(n, a), st = sqrt(fmax(0.0, 1.0 - ct * ct));
        lucid_vec3 f = lucid_vec3_axpy(Ts.t, ct > 0.0 ? -h : h, a);
        lucid_vec3 g = lucid_vec3_axpy(Ts.t, ct > 0.0 ? h : -h, a);
        double sep[4] = {
            lucid_vec3_dot(n, f) - offset - r * st, lucid_vec3_dot(n, f) - offset + 0.5 * r * st,
            lucid_vec3_dot(n, f) - offset + 0.5 * r * st, lucid_vec3_dot(n, g) - offset - r * st};
        count = 0;
        for (int k = 0; k < 4; ++k)
            if (sep[k] < margin) ref[count++] = sep[k];
        for (int i = 0; i < count; ++i) /* ascending */
            for (int j = i + 1; j < count; ++j)
                if (ref[j] < ref[i]) {
                    double t = ref[i];
                    ref[i] = ref[j], ref[j] = t;
                }
        assert_int_equal(lucid_plane_vertices(&plane, &Tp, &cylinder, &Ts, margin, cap, &res),
                         LUCID_OK);
        check_points(&res, 1, n, offset, ref, count, cap);
        for (int k = 0; k < res.count; ++k) {
            lucid_vec3 q = lucid_se3_act_inv(&Ts, res.points[k].p2);
            assert_true(fabs(hypot(q.x, q.y) - r) < 1e-12 && fabs(fabs(q.z) - h) < 1e-12);
        }
    }
    /* within the patch's angular tolerance of standing: none (the patch's cap polygon) */
    lucid_se3 Tc =
        lucid_se3_make(lucid_so3_exp(lucid_vec3_make(5e-3, 0, 0)), lucid_vec3_make(0, 0, h));
    lucid_contact_patch_result res;
    assert_int_equal(lucid_plane_vertices(&plane,
                                          &(lucid_se3){lucid_mat3_identity(), lucid_vec3_zero()},
                                          &cylinder, &Tc, 0.1, 4, &res),
                     LUCID_OK);
    assert_int_equal(res.count, 0);
}

static void test_errors(void **state) {
    (void)state;
    lucid_shape box, sphere, plane;
    lucid_shape_box(1, 1, 1, &box);
    lucid_shape_sphere(1, &sphere);
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0.0, &plane);
    lucid_se3 T = lucid_se3_identity();
    lucid_contact_patch_result res;
    assert_false(lucid_plane_vertices_apply(&sphere, &plane));
    lucid_shape cone;
    lucid_shape_cone(1, 1, &cone);
    assert_true(lucid_plane_vertices_apply(&cone, &plane));
    lucid_shape ellipsoid;
    lucid_shape_ellipsoid(1, 2, 3, &ellipsoid);
    assert_false(lucid_plane_vertices_apply(&ellipsoid, &plane));
    assert_false(lucid_plane_vertices_apply(&box, &box));
    assert_true(lucid_plane_vertices_apply(&box, &plane));
    assert_int_equal(lucid_plane_vertices(&sphere, &T, &plane, &T, 0.1, 4, &res),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_plane_vertices(&box, &T, &plane, &T, 0.1, 0, &res), LUCID_ERR_ARGUMENT);
    assert_int_equal(
        lucid_plane_vertices(&box, &T, &plane, &T, 0.1, LUCID_PATCH_MAX_POINTS + 1, &res),
        LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_plane_vertices(&box, &T, &plane, &T, 0.1, 4, NULL), LUCID_ERR_ARGUMENT);
    lucid_vec3 z = lucid_vec3_make(0, 0, 1);
    assert_true(lucid_face_vertices_apply(&box, &box));
    assert_false(lucid_face_vertices_apply(&box, &plane));
    assert_int_equal(lucid_face_vertices(&box, &T, &sphere, &T, 1, z, 0.1, 4, &res),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_face_vertices(&box, &T, &box, &T, 3, z, 0.1, 4, &res),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_face_vertices(&box, &T, &box, &T, 1, lucid_vec3_zero(), 0.1, 4, &res),
                     LUCID_ERR_ARGUMENT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_corners_by_depth),
        cmocka_unit_test(test_mesh_points),
        cmocka_unit_test(test_box_corners_over_a_box_face),
        cmocka_unit_test(test_capsule_ends_and_cylinder_rims),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
