/* Polyak / Nesterov acceleration (GJK++ Alg. 6-7) against vanilla GJK on the protocol of
 * bench_collision: random pairs placed at controlled signed distances, mean iterations per
 * distance band (d <= 0, 0 < d <= 0.1 m, d > 0.1 m), distance and Boolean modes.
 *  - no accelerated variant may need more than 1.1x vanilla's mean iterations on any band;
 *  - on close-proximity ellipsoids (0 < d <= 0.1 m, where GJK++ Fig. 5 shows the gain) Polyak
 *    and Nesterov must need clearly fewer iterations than vanilla;
 *  - at the iteration cap the reported gap is the Frank-Wolfe gap of the returned iterate,
 *    recomputed here from closed-form ellipsoid supports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tests/c/common/test_collision_util.h"

#define NVARIANT 5
#define NBAND    3

static const char *const NAMES[NVARIANT] = {"gjk", "polyak", "polyak+n", "nesterov", "nesterov+n"};

static lucid_gjk_options variant(int v) {
    return options_for(v == 0   ? LUCID_GJK_VANILLA
                       : v <= 2 ? LUCID_GJK_POLYAK
                                : LUCID_GJK_NESTEROV,
                       v == 2 || v == 4);
}

/* N(0.1, 0.025) clamped to >= 1 cm, as in bench_collision. */
static double size(uint64_t *rng) {
    double u = uniform(rng) + 1e-300, w = uniform(rng);
    double a = 0.1 + 0.025 * sqrt(-2.0 * log(u)) * cos(2.0 * PI * w);
    return a < 0.01 ? 0.01 : a;
}

typedef enum { ELLIPSOIDS, BOXES, ELLIPSOID_CYLINDER, CONE_CYLINDER, HULLS } category;

static lucid_convex_mesh *random_hull(uint64_t *rng) {
    enum { N = 100 };
    double pts[3 * N], a = size(rng), b = size(rng), c = size(rng);
    for (int i = 0; i < N; ++i) {
        lucid_vec3 d = random_direction(rng);
        pts[3 * i] = a * d.x;
        pts[3 * i + 1] = b * d.y;
        pts[3 * i + 2] = c * d.z;
    }
    lucid_convex_mesh *m = NULL;
    assert_int_equal(lucid_convex_mesh_create(pts, N, &m), LUCID_OK);
    return m;
}

static void make_pair(category c, uint64_t *rng, lucid_shape *a, lucid_shape *b,
                      lucid_convex_mesh **meshes) {
    switch (c) {
        case ELLIPSOIDS:
            lucid_shape_ellipsoid(size(rng), size(rng), size(rng), a);
            lucid_shape_ellipsoid(size(rng), size(rng), size(rng), b);
            break;
        case BOXES:
            lucid_shape_box(size(rng), size(rng), size(rng), a);
            lucid_shape_box(size(rng), size(rng), size(rng), b);
            break;
        case ELLIPSOID_CYLINDER:
            lucid_shape_ellipsoid(size(rng), size(rng), size(rng), a);
            lucid_shape_cylinder(size(rng), size(rng), b);
            break;
        case CONE_CYLINDER:
            lucid_shape_cone(size(rng), size(rng), a);
            lucid_shape_cylinder(size(rng), size(rng), b);
            break;
        case HULLS:
            meshes[0] = random_hull(rng);
            meshes[1] = random_hull(rng);
            lucid_shape_convex(meshes[0], a);
            lucid_shape_convex(meshes[1], b);
            break;
    }
}

/* Random relative pose moved along the witness axis so the signed distance is `target`. */
static void place_at(const lucid_shape *a, const lucid_shape *b, double target, uint64_t *rng,
                     lucid_se3 *T1, lucid_se3 *T2) {
    *T1 = lucid_se3_make(random_rotation(rng), lucid_vec3_zero());
    *T2 = lucid_se3_make(random_rotation(rng), lucid_vec3_scale(random_direction(rng), 0.6));
    lucid_gjk_options o;
    lucid_gjk_options_default(&o);
    o.tol = 1e-14;
    for (int pass = 0; pass < 4; ++pass) {
        lucid_distance_result r;
        assert_int_equal(lucid_distance(a, T1, b, T2, &o, &r), LUCID_OK);
        T2->t = lucid_vec3_axpy(T2->t, target - r.distance, r.normal);
    }
}

/* Mean iterations per variant and band, and the largest error against the reference. */
typedef struct band_means {
    double it[NVARIANT][NBAND];
    int count[NBAND];
} band_means;

static void measure(category c, int pairs, int boolean, band_means *out) {
    static const double D[] = {-0.1,  -0.05, -0.01, -0.005, -0.001, 1.4e-6, 0.001,
                               0.005, 0.01,  0.05,  0.1,    0.5,    1.0};
    memset(out, 0, sizeof *out);
    uint64_t rng = 7 + (uint64_t)c;
    for (int p = 0; p < pairs; ++p) {
        lucid_shape a, b;
        lucid_convex_mesh *meshes[2] = {NULL, NULL};
        make_pair(c, &rng, &a, &b, meshes);
        for (size_t k = 0; k < sizeof D / sizeof D[0]; ++k) {
            lucid_se3 T1, T2;
            place_at(&a, &b, D[k], &rng, &T1, &T2);
            lucid_gjk_options o;
            lucid_gjk_options_default(&o);
            o.tol = 1e-14;
            lucid_distance_result ref;
            assert_int_equal(lucid_distance(&a, &T1, &b, &T2, &o, &ref), LUCID_OK);
            int band = ref.distance <= 0.0 ? 0 : ref.distance <= 0.1 ? 1 : 2;
            out->count[band]++;
            for (int v = 0; v < NVARIANT; ++v) {
                o = variant(v);
                lucid_distance_result r;
                int hit;
                if (boolean) {
                    assert_int_equal(lucid_collide(&a, &T1, &b, &T2, &o, &hit, &r), LUCID_OK);
                    if (fabs(ref.distance) > 1e-9) assert_int_equal(hit, ref.distance <= 0.0);
                } else {
                    assert_int_equal(lucid_distance(&a, &T1, &b, &T2, &o, &r), LUCID_OK);
                    assert_true(r.converged);
                    /* the absolute gap 1e-8 m^2 bounds the error by 1e-4 m */
                    assert_true(fabs(r.distance - ref.distance) <= 1e-4);
                }
                out->it[v][band] += r.iterations;
            }
        }
        lucid_convex_mesh_destroy(meshes[0]);
        lucid_convex_mesh_destroy(meshes[1]);
    }
    for (int v = 0; v < NVARIANT; ++v)
        for (int band = 0; band < NBAND; ++band) out->it[v][band] /= out->count[band];
}

static const char *const CATEGORY_NAMES[] = {"ellipsoids", "boxes", "ellipsoid-cylinder",
                                             "cone-cylinder", "hulls"};

static void accelerations_never_lose_on_any_band(void **state) {
    (void)state;
    double worst = 0.0;
    for (int c = ELLIPSOIDS; c <= HULLS; ++c)
        for (int boolean = 0; boolean < 2; ++boolean) {
            if (c == BOXES && boolean) continue; /* lucid_collide: separating axes, no GJK */
            band_means m;
            measure((category)c, 30, boolean, &m);
            for (int v = 1; v < NVARIANT; ++v)
                for (int band = 0; band < NBAND; ++band) {
                    double ratio = m.it[v][band] / m.it[0][band];
                    printf("%-18s %-8s %-10s band %d: %5.2f / %5.2f = %.3f\n", CATEGORY_NAMES[c],
                           boolean ? "boolean" : "distance", NAMES[v], band, m.it[v][band],
                           m.it[0][band], ratio);
                    worst = fmax(worst, ratio);
                    if (!(ratio <= 1.1))
                        fail_msg("%s %s: %s needs %.3fx vanilla's mean iterations on band %d",
                                 CATEGORY_NAMES[c], boolean ? "boolean" : "distance", NAMES[v],
                                 ratio, band);
                }
        }
    printf("worst ratio accelerated / vanilla: %.3f (target <= 1.1)\n", worst);
}

/* GJK++ Fig. 5: in close proximity the accelerations cut the iterations on ellipsoids; the
 * wave-1 target is Nesterov <= 0.5x vanilla's mean iterations (this run: 0.496; Polyak
 * 0.638). A broken momentum direction (e.g. without the factor 2 of the gradient 2y) or a
 * momentum exit that fires too early (0.626 with the former exits on ||x||^2 alone) fails. */
static void accelerations_reduce_iterations_near_contact(void **state) {
    (void)state;
    band_means m;
    measure(ELLIPSOIDS, 60, 0, &m);
    double polyak = m.it[1][1] / m.it[0][1], nesterov = m.it[3][1] / m.it[0][1];
    printf("0 < d <= 0.1: vanilla %.2f, polyak %.2f (%.3f), nesterov %.2f (%.3f)\n", m.it[0][1],
           m.it[1][1], polyak, m.it[3][1], nesterov);
    assert_true(polyak <= 0.7);
    assert_true(nesterov <= 0.5);
}

/* Closed-form support of the ellipsoid with semi-axes a posed by T: argmax_p <d, p> =
 * T(diag(a)^2 l / |diag(a) l|), l = R^T d. */
static lucid_vec3 ellipsoid_support(lucid_vec3 a, const lucid_se3 *T, lucid_vec3 d) {
    lucid_vec3 l = lucid_mat3_tmul_vec(&T->R, d);
    lucid_vec3 a2l = lucid_vec3_make(a.x * a.x * l.x, a.y * a.y * l.y, a.z * a.z * l.z);
    double n = sqrt(a2l.x * l.x + a2l.y * l.y + a2l.z * l.z); /* |diag(a) l| */
    return lucid_se3_act(T, lucid_vec3_scale(a2l, 1.0 / n));
}

/* Eq. 28 (and Eq. 33 when normalising) step by step: the support direction GJK reports after
 * K iterations (lucid_gjk_result.direction) is d_{K-1}, recomputed here from the iterates x_k
 * it reports after k iterations and closed-form supports, with d_{-1} = s_{-1} = x0,
 * delta_k = (k + 1) / (k + 3), y_k = x_k (Polyak) or delta_k x_k + (1 - delta_k) s_{k-1}
 * (Nesterov), d_k = delta_k d_{k-1} + (1 - delta_k) 2 y_k (the gradient of ||y||^2). */
static void momentum_direction_follows_eq_28(void **state) {
    (void)state;
    lucid_vec3 a1 = lucid_vec3_make(0.12, 0.05, 0.09), a2 = lucid_vec3_make(0.04, 0.11, 0.07);
    lucid_shape e1, e2;
    lucid_shape_ellipsoid(a1.x, a1.y, a1.z, &e1);
    lucid_shape_ellipsoid(a2.x, a2.y, a2.z, &e2);
    uint64_t rng = 11;
    lucid_se3 P1, P2; /* close proximity: many momentum steps before vanilla takes over */
    place_at(&e1, &e2, 0.005, &rng, &P1, &P2);
    lucid_se3 T1 = lucid_se3_identity(), T2 = lucid_se3_between(&P1, &P2); /* frame 1 */
    lucid_vec3 x0 = lucid_vec3_neg(T2.t);                                  /* c1 - c2 */
    for (int v = 1; v < NVARIANT; ++v) {
        lucid_gjk_options o = variant(v);
        lucid_vec3 d = x0, s = x0, x = x0;
        int steps = 0;
        for (int k = 0; k < 6; ++k, ++steps) {
            double delta = (k + 1.0) / (k + 3.0);
            lucid_vec3 y =
                o.algorithm == LUCID_GJK_POLYAK
                    ? x
                    : lucid_vec3_add(lucid_vec3_scale(x, delta), lucid_vec3_scale(s, 1.0 - delta));
            d = o.normalize ? lucid_vec3_add(lucid_vec3_scale(lucid_vec3_normalized(d), delta),
                                             lucid_vec3_scale(lucid_vec3_normalized(y), 1 - delta))
                            : lucid_vec3_add(lucid_vec3_scale(d, delta),
                                             lucid_vec3_scale(y, 2.0 * (1.0 - delta)));
            s = lucid_vec3_sub(ellipsoid_support(a1, &T1, lucid_vec3_neg(d)),
                               ellipsoid_support(a2, &T2, d));
            o.max_iter = k + 1;
            lucid_minkowski m = lucid_minkowski_make(&e1, &T1, &e2, &T2);
            lucid_gjk_result res;
            lucid_gjk_solve(&m, &o, x0, -1.0, &res);
            assert_int_equal(res.iterations, k + 1);
            if (k > 0 && lucid_vec3_dist(res.direction, x) == 0.0) break; /* vanilla took over */
            double c = lucid_vec3_dot(d, x) / (lucid_vec3_norm(d) * lucid_vec3_norm(x));
            if (!(lucid_vec3_dist(res.direction, d) <= 1e-12 * lucid_vec3_norm(d)))
                fail_msg("%s, iteration %d: direction (%.15g %.15g %.15g), Eq. 28 gives (%.15g "
                         "%.15g %.15g), cos(d, x) %.6f",
                         NAMES[v], k, res.direction.x, res.direction.y, res.direction.z, d.x, d.y,
                         d.z, c);
            assert_true(k == 0 || c > 0.0); /* a descent direction at x, else vanilla */
            x = res.x;
        }
        printf("%s: %d momentum steps as Eq. 28\n", NAMES[v], steps);
        assert_true(steps >= 3);
    }
}

/* At the iteration cap nothing is converged, and the reported gap must be the Frank-Wolfe gap
 * g = 2 <x, x - s>, s = argmin_{w in A1 - A2} <x, w>, of the returned separation x. */
static void gap_at_the_cap_is_the_frank_wolfe_gap(void **state) {
    (void)state;
    uint64_t rng = 3;
    int checked = 0;
    for (int trial = 0; trial < 200; ++trial) {
        lucid_vec3 a1 = lucid_vec3_make(size(&rng), size(&rng), size(&rng));
        lucid_vec3 a2 = lucid_vec3_make(size(&rng), size(&rng), size(&rng));
        lucid_shape e1, e2;
        lucid_shape_ellipsoid(a1.x, a1.y, a1.z, &e1);
        lucid_shape_ellipsoid(a2.x, a2.y, a2.z, &e2);
        lucid_se3 T1, T2;
        place_at(&e1, &e2, 0.001 + 0.1 * uniform(&rng), &rng, &T1, &T2);
        for (int v = 0; v < NVARIANT; ++v) {
            lucid_gjk_options o = variant(v);
            o.max_iter = 2 + trial % 3;
            lucid_distance_result r;
            assert_int_equal(lucid_distance(&e1, &T1, &e2, &T2, &o, &r), LUCID_OK);
            if (r.converged) continue; /* solved within the cap: nothing to check */
            assert_int_equal(r.iterations, o.max_iter);
            lucid_vec3 x = r.separation;
            lucid_vec3 s = lucid_vec3_sub(ellipsoid_support(a1, &T1, lucid_vec3_neg(x)),
                                          ellipsoid_support(a2, &T2, x));
            double g = 2.0 * lucid_vec3_dot(x, lucid_vec3_sub(x, s));
            double roundoff = 1e-12 * lucid_vec3_norm(x) * (lucid_vec3_norm(x) + 1.0);
            if (!(fabs(r.gap - g) <= roundoff))
                fail_msg("%s, cap %d: reported gap %.17g, Frank-Wolfe gap %.17g", NAMES[v],
                         o.max_iter, r.gap, g);
            assert_true(g > o.tol);
            ++checked;
        }
    }
    assert_true(checked > 200);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accelerations_never_lose_on_any_band),
        cmocka_unit_test(accelerations_reduce_iterations_near_contact),
        cmocka_unit_test(momentum_direction_follows_eq_28),
        cmocka_unit_test(gap_at_the_cap_is_the_frank_wolfe_gap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
