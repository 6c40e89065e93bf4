/* The contacts of one pair of free convex bodies (lucid_world_collide): a box's corner on a
 * cylinder's flat cap (the corners-on-a-face rule once took the cap for a polytope's face and
 * failed the step with LUCID_ERR_ARGUMENT), then every pair of the convex shapes at random and
 * deliberately degenerate poses (axis-aligned, nearly aligned, 45-degree turns; touching to
 * round-off, within the margin, penetrating): never an error, unit normals, no contact deeper
 * than the shapes along its own normal allow, none lost within half the margin. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "runtime/math/so3.h"
#include "runtime/shapes/convex_mesh.h"
#include "runtime/world/world.h"
#include "runtime/world/world_internal.h"
#include "solvers/collision/collision.h"
#include "tests/c/common/test_random.h"

/* The world with two free bodies (no gravity, the given contact margin), shape a at Ta added
 * first. */
static lucid_world *two_bodies(const lucid_shape *a, const lucid_se3 *Ta, const lucid_shape *b,
                               const lucid_se3 *Tb, double margin) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.gravity = lucid_vec3_zero();
    o.margin = margin;
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    const lucid_shape *s[2] = {a, b};
    const lucid_se3 *T[2] = {Ta, Tb};
    for (int i = 0; i < 2; ++i) {
        lucid_body_part part = {*s[i], lucid_se3_identity()};
        lucid_body_desc d;
        lucid_body_desc_default(&d);
        d.parts = &part, d.num_parts = 1;
        d.has_mass = 1, d.mass = 1.0;
        d.pose = *T[i];
        int id;
        assert_int_equal(lucid_world_add_body(w, &d, &id, NULL), LUCID_OK);
    }
    return w;
}

/* World support point of a posed shape in direction dir. */
static lucid_vec3 support(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 dir) {
    return lucid_se3_act(T, lucid_shape_support(s, lucid_mat3_tmul_vec(&T->R, dir), NULL));
}

/* min over b of n.x - max over a of n.x: no pair of points of the shapes is deeper along n. */
static double separation_along(const lucid_shape *a, const lucid_se3 *Ta, const lucid_shape *b,
                               const lucid_se3 *Tb, lucid_vec3 n) {
    return lucid_vec3_dot(n, support(b, Tb, lucid_vec3_neg(n))) -
           lucid_vec3_dot(n, support(a, Ta, n));
}

/* m^2: GJK's duality gap, as the world's */
#define GJK_DUALITY_GAP 1e-16

/* The pair's distance by GJK (tolerance 1e-16 m^2, as the world's): for separated shapes the
 * distance of a pair of their points, an upper bound on the true one. */
static lucid_distance_result gjk_distance(const lucid_shape *a, const lucid_se3 *Ta,
                                          const lucid_shape *b, const lucid_se3 *Tb) {
    lucid_gjk_options go;
    lucid_gjk_options_default(&go);
    go.tol = GJK_DUALITY_GAP;
    lucid_distance_result d;
    assert_int_equal(lucid_distance(a, Ta, b, Tb, &go, &d), LUCID_OK);
    return d;
}

/* m: a contact's separation against the shapes' supports (exact to ~1e-16 m on shapes of
 * 0.1 m) within EPA's default depth tolerance epa_tol, the coarsest the world's depths carry;
 * GJK's pair is accurate to 1e-8 m (its duality gap, 1e-16 m^2). */
#define ROUND_OFF    1e-9
#define GJK_ACCURACY 1e-8

/* The deepest contact against GJK: not deeper than GJK's separation in separated pairs, and
 * not below the gap GJK's normal certifies, beyond round-off and a patch's turned normal
 * (g / cos(theta)). */
typedef struct {
    int separated, above, below, trial, worst_trial;
    double worst_above, worst_below;
} depth_record;

/* Collides the pair (a first) under the margin and checks its contacts; returns their number. */
static int check_pair(const lucid_shape *a, const lucid_se3 *Ta, const lucid_shape *b,
                      const lucid_se3 *Tb, double margin, const char *what, depth_record *rec) {
    lucid_world *w = two_bodies(a, Ta, b, Tb, margin);
    lucid_status s = lucid_world_collide(w);
    if (s != LUCID_OK) fprintf(stderr, "%s: lucid_world_collide returned %d\n", what, (int)s);
    assert_int_equal(s, LUCID_OK);
    int n = lucid_world_contact_count(w);
    const lucid_world_contact *c = lucid_world_contacts(w);
    double deepest = INFINITY;
    lucid_vec3 deepest_normal = lucid_vec3_zero(); /* from a to b */
    for (int k = 0; k < n; ++k) {
        lucid_vec3 normal = lucid_mat3_col(&c[k].frame, 2);
        assert_true(lucid_vec3_isfinite(c[k].point) && isfinite(c[k].separation));
        assert_true(fabs(lucid_vec3_norm(normal) - 1.0) < 1e-12);
        /* both witness points on their shapes: none deeper than the shapes reach along n */
        double reach = c[k].body1 == 0 ? separation_along(a, Ta, b, Tb, normal)
                                       : separation_along(b, Tb, a, Ta, normal);
        if (!(c[k].separation >= reach - ROUND_OFF))
            fprintf(stderr, "%s: contact %d at %.9g deeper than the shapes allow, %.9g\n", what, k,
                    c[k].separation, reach);
        assert_true(c[k].separation >= reach - ROUND_OFF);
        if (c[k].separation < deepest)
            deepest = c[k].separation,
            deepest_normal = c[k].body1 == 0 ? normal : lucid_vec3_neg(normal);
    }
    lucid_distance_result d = gjk_distance(a, Ta, b, Tb);
    /* GJK's pair of points within half the margin: the pair has contacts */
    if (d.distance < 0.5 * margin) {
        if (n == 0) fprintf(stderr, "%s: no contact at distance %.9g\n", what, d.distance);
        assert_true(n > 0);
    }
    if (rec && n > 0) {
        /* a gap g along GJK's normal is g / cos(theta) along a normal turned by theta (a
         * patch's face normal, within its angular tolerance): no deeper than that */
        double certified = separation_along(a, Ta, b, Tb, d.normal);
        double cos_turn = lucid_vec3_dot(deepest_normal, d.normal);
        /* GJK stops at |x|^2 - <x, w> <= GJK_DUALITY_GAP, so the world's normal and this one
         * carry |x| to GJK_DUALITY_GAP / |x| in separated pairs (to GJK_ACCURACY at most) */
        double gjk = d.distance > 0.0 ? fmin(GJK_ACCURACY, GJK_DUALITY_GAP / d.distance) : 0.0;
        double bound = fmin(certified, certified / cos_turn) - ROUND_OFF - gjk;
        rec->below += deepest < certified - ROUND_OFF - gjk;
        if (certified - deepest > rec->worst_below)
            rec->worst_below = certified - deepest, rec->worst_trial = rec->trial;
        if (!(deepest >= bound))
            fprintf(stderr, "%s: deepest contact %.9g below the gap GJK's normal certifies, %.9g\n",
                    what, deepest, certified);
        assert_true(deepest >= bound);
        if (d.distance > 0.0) {
            ++rec->separated;
            rec->above += deepest > d.distance + GJK_ACCURACY;
            rec->worst_above = fmax(rec->worst_above, deepest - d.distance);
        }
    }
    lucid_world_destroy(w);
    return n;
}

/* A box turned by exp(1.2, 0.3, 0) with its highest corner 0.1 mm under the centre of an
 * upright cylinder's bottom cap: the patch's face is the cap, its feature on the box a corner.
 * Before the fix lucid_world_collide failed with LUCID_ERR_ARGUMENT in both body orders. */
static void test_box_corner_under_cylinder_cap(void **state) {
    (void)state;
    lucid_shape cylinder, box;
    assert_int_equal(lucid_shape_cylinder(0.05, 0.1, &cylinder), LUCID_OK);
    assert_int_equal(lucid_shape_box(0.05, 0.04, 0.03, &box), LUCID_OK);
    lucid_se3 Tc = lucid_se3_identity();
    lucid_se3 Tb = lucid_se3_make(lucid_so3_exp(lucid_vec3_make(1.2, 0.3, 0.0)), lucid_vec3_zero());
    lucid_vec3 top = support(&box, &Tb, lucid_vec3_make(0, 0, 1)); /* the corner, from the centre */
    Tb.t = lucid_vec3_sub(lucid_vec3_make(0, 0, -0.1 - 1e-4), top);
    assert_int_equal(check_pair(&cylinder, &Tc, &box, &Tb, 5e-3, "cylinder, box", NULL), 1);
    assert_int_equal(check_pair(&box, &Tb, &cylinder, &Tc, 5e-3, "box, cylinder", NULL), 1);
    lucid_world *w = two_bodies(&cylinder, &Tc, &box, &Tb, 5e-3);
    assert_int_equal(lucid_world_collide(w), LUCID_OK);
    const lucid_world_contact *c = lucid_world_contacts(w);
    /* the corner and its projection on the cap: 0.1 mm apart along the cap's normal -z */
    assert_true(fabs(c[0].separation - 1e-4) < 1e-12);
    lucid_vec3 n = lucid_mat3_col(&c[0].frame, 2);
    assert_true(lucid_vec3_dist(n, lucid_vec3_make(0, 0, -1)) < 1e-12);
    lucid_world_destroy(w);
}

/* A box's corner towards a cylinder's cap, within a swept margin of 0.517 m, at a pose where the
 * cap passes the corners-on-a-face test: a cap is not a polytope face, so the rule must not take
 * it. The rotations are column-major, every digit needed to reach that pose. */
static void test_captured_box_cylinder_pair(void **state) {
    (void)state;
    lucid_shape cylinder, box;
    assert_int_equal(lucid_shape_cylinder(0.05, 0.1, &cylinder), LUCID_OK);
    assert_int_equal(lucid_shape_box(0.05, 0.04, 0.03, &box), LUCID_OK);
    static const double Rb[9] = {0.89792667633418854, 0.00023534988897000453, 0.44014500853453642,
                                 0.26821308701442742, -0.79317517078790956,   -0.54674938353852964,
                                 0.34898341490911655, 0.60899350822155796,    -0.71227626877663908};
    static const double Rc[9] = {0.87859540469627728,  -0.28938590576886764, -0.37990250379395629,
                                 0.47621158308473283,  0.59077029800531489,  0.65131634643285607,
                                 0.035953344524779302, -0.75315752172904948, 0.65685698936712167};
    lucid_se3 Tb, Tc;
    for (int i = 0; i < 9; ++i) Tb.R.m[i] = Rb[i], Tc.R.m[i] = Rc[i];
    Tb.t = lucid_vec3_make(-0.19451354713506125, 0.42958729712989324, 0.093830586580825867);
    Tc.t = lucid_vec3_make(-0.14380666257347754, 0.1625988564610365, 0.27972835427323078);
    double margin = 0.51747613194413666;
    assert_true(check_pair(&box, &Tb, &cylinder, &Tc, margin, "box, cylinder", NULL) > 0);
    assert_true(check_pair(&cylinder, &Tc, &box, &Tb, margin, "cylinder, box", NULL) > 0);
}

#define SHAPES 8

static void make_shape(int k, const lucid_convex_mesh *mesh, lucid_shape *s, const char **name) {
    static const char *names[SHAPES] = {"box",     "cube",   "cylinder", "cone",
                                        "capsule", "convex", "sphere",   "ellipsoid"};
    lucid_status st = LUCID_OK;
    switch (k) {
        case 0:
            st = lucid_shape_box(0.05, 0.04, 0.03, s);
            break;
        case 1:
            st = lucid_shape_box(0.05, 0.05, 0.05, s);
            break;
        case 2:
            st = lucid_shape_cylinder(0.05, 0.1, s);
            break;
        case 3:
            st = lucid_shape_cone(0.05, 0.08, s);
            break;
        case 4:
            st = lucid_shape_capsule(0.03, 0.06, s);
            break;
        case 5:
            st = lucid_shape_convex(mesh, s);
            break;
        case 6:
            st = lucid_shape_sphere(0.04, s);
            break;
        default:
            st = lucid_shape_ellipsoid(0.05, 0.03, 0.02, s);
            break;
    }
    assert_int_equal(st, LUCID_OK);
    *name = names[k];
}

static lucid_vec3 random_vector(uint64_t *rng) {
    return lucid_vec3_make(2.0 * uniform(rng) - 1.0, 2.0 * uniform(rng) - 1.0,
                           2.0 * uniform(rng) - 1.0);
}

/* A rotation of kind mode: 0 random; 1 axis-aligned (two quarter-turn products) turned by
 * 1e-12 to 1e-1 rad about a random axis; 2 axis-aligned to round-off; 3 axis-aligned then a
 * multiple of 45 degrees about z. */
static lucid_mat3 rotation(uint64_t *rng, int mode) {
    lucid_vec3 w = random_vector(rng);
    if (mode == 0) return lucid_so3_exp(lucid_vec3_scale(w, 3.0));
    double ax[3] = {0, 0, 0}, bx[3] = {0, 0, 0};
    ax[(int)(uniform(rng) * 3)] = 0.5 * PI * (int)(uniform(rng) * 4);
    bx[(int)(uniform(rng) * 3)] = 0.5 * PI * (int)(uniform(rng) * 4);
    lucid_mat3 A = lucid_so3_exp(lucid_vec3_load(ax)), B = lucid_so3_exp(lucid_vec3_load(bx));
    lucid_mat3 R = lucid_mat3_mul(&A, &B), C = lucid_mat3_identity();
    if (mode == 1) C = lucid_so3_exp(lucid_vec3_scale(w, pow(10.0, -12.0 + 11.0 * uniform(rng))));
    if (mode == 3) C = lucid_so3_exp(lucid_vec3_make(0, 0, 0.25 * PI * (int)(uniform(rng) * 8)));
    return lucid_mat3_mul(&R, &C);
}

/* Shape b's offset from a along the unit u where they touch (bisection on GJK's sign, to
 * round-off of 0.5 m / 2^60). */
static double touching(const lucid_shape *a, const lucid_se3 *Ta, const lucid_shape *b,
                       lucid_mat3 Rb, lucid_vec3 u) {
    double lo = 0.0, hi = 0.5;
    for (int it = 0; it < 60; ++it) {
        double mid = 0.5 * (lo + hi);
        lucid_se3 Tb = lucid_se3_make(Rb, lucid_vec3_scale(u, mid));
        if (gjk_distance(a, Ta, b, &Tb).distance > 0.0)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* Random pairs of every two shapes: touching along a random direction or one of a's axes,
 * then exactly there, moved by 1e-12 to 1e-2 m either way, or up to 2 cm deeper. */
static void test_random_and_degenerate_pairs(void **state) {
    (void)state;
    static const double points[] = {0.05, 0, 0, -0.05, 0.04, 0,    -0.03, -0.05,
                                    0.01, 0, 0, 0.08,  0.02, 0.03, -0.04};
    lucid_convex_mesh *mesh = NULL;
    assert_int_equal(lucid_convex_mesh_create(points, 5, &mesh), LUCID_OK);
    uint64_t rng = 20261207;
    int trials = 20000, with_contacts = 0;
    depth_record rec = {0, 0, 0, 0, 0, 0.0, 0.0};
    for (int t = 0; t < trials; ++t) {
        lucid_shape a, b;
        const char *na, *nb;
        make_shape((int)(uniform(&rng) * SHAPES), mesh, &a, &na);
        make_shape((int)(uniform(&rng) * SHAPES), mesh, &b, &nb);
        lucid_se3 Ta = lucid_se3_make(rotation(&rng, (int)(uniform(&rng) * 4)), lucid_vec3_zero());
        lucid_mat3 Rb = rotation(&rng, (int)(uniform(&rng) * 4));
        lucid_vec3 u = lucid_vec3_normalized(random_vector(&rng));
        if (uniform(&rng) < 0.4) { /* along one of a's axes: faces and caps meet squarely */
            double e[3] = {0, 0, 0};
            e[(int)(uniform(&rng) * 3)] = uniform(&rng) < 0.5 ? -1.0 : 1.0;
            u = lucid_mat3_mul_vec(&Ta.R, lucid_vec3_load(e));
        }
        double at = touching(&a, &Ta, &b, Rb, u), r = uniform(&rng), offset = 0.0;
        if (r >= 0.3 && r < 0.8)
            offset = (uniform(&rng) < 0.5 ? -1.0 : 1.0) * pow(10.0, -12.0 + 10.0 * uniform(&rng));
        else if (r >= 0.8)
            offset = -0.02 * uniform(&rng);
        lucid_se3 Tb = lucid_se3_make(Rb, lucid_vec3_scale(u, at + offset));
        char what[96];
        snprintf(what, sizeof what, "trial %d: %s, %s", t, na, nb);
        rec.trial = t;
        with_contacts += check_pair(&a, &Ta, &b, &Tb, 5e-3, what, &rec) > 0;
    }
    printf("%d random pairs, %d with contacts; the deepest contact by more than %g m above GJK's "
           "pair of points: %d of %d separated pairs (at most %.3g m), below the gap GJK's normal "
           "certifies: %d (at most %.3g m, trial %d; each within a patch normal's turn)\n",
           trials, with_contacts, GJK_ACCURACY, rec.above, rec.separated, rec.worst_above,
           rec.below, rec.worst_below, rec.worst_trial);
    lucid_convex_mesh_destroy(mesh);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_corner_under_cylinder_cap),
        cmocka_unit_test(test_captured_box_cylinder_pair),
        cmocka_unit_test(test_random_and_degenerate_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
