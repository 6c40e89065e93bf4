/* Islands with torsional friction (MJCF condim 4, 4 rows per contact) on the body-space path
 * (runtime/world/world_sparse.c): the spin row of a free body (sign (0, a n)), of a model link
 * (row 3 of its J and Y) and the decoupled spin row of a contact without torsion in the same
 * island.
 * - From the same states, one step on the body-space path (sparse_threshold 0) and one on the
 *   dense path (sparse_threshold huge) give the same velocities and torques to the solver's
 *   tolerance, for every solver that takes dim 4 in body space (ncp/ccp with admm/pgs/ip), on two
 * boxes (free bodies) on a condim-4 floor twisted past their torsional limit, the box-box contact
 *   without torsion; every body-space step is checked to be one of dim 4 (a silent fall-back
 *   to the dense path fails).
 * - The spinning sphere of tests/data/model/mjcf_torsion_spin.xml (a model link) spins down in
 *   body space at the analytic rate mu_t g / (0.4 r^2) (1e-9).
 * - humanoid100.xml (Debian's libmujoco-samples; skipped when absent): its large torsional
 *   islands go to body space under the default ncp:admm (automatic routing, as for dim 3); all
 *   in body space (threshold 0) under ncp:pgs, each step matches the dense path's.
 * - ccp:newton (its body-space form of dim 3) and raisim:bisection (no body-space form) keep
 *   the island dense and solve it there (raisim's sphere spins down at the analytic rate). */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/c/common/test_model_file.h"

#include "runtime/model/model.h"
#include "runtime/model/model_load.h"
#include "runtime/world/world.h"
#include "runtime/world/world_internal.h"
#include "solvers/contact/contact_sparse.h"

#define SPIN_SCENE  LUCID_SOURCE_DIR "/tests/data/model/mjcf_torsion_spin.xml"
#define HUMANOID100 "/usr/share/mujoco/model/humanoid100/humanoid100.xml"
#define DENSE       INT_MAX /* sparse_threshold: every island dense */

/* A condim-4 floor: sliding friction 0.3, torsional 0.05 m. */
static const char FLOOR_XML[] =
    "<mujoco model=\"torsional floor\"><worldbody>"
    "<geom name=\"floor\" type=\"plane\" size=\"0 0 1\" condim=\"4\" friction=\"0.3 0.05\"/>"
    "</worldbody></mujoco>";

static double max_abs_diff(const double *a, const double *b, size_t n) {
    double d = 0.0;
    for (size_t k = 0; k < n; ++k) d = fmax(d, fabs(a[k] - b[k]));
    return d;
}

/* Whether the last island went through body space with 4 rows per contact. */
static int body_space_dim4(const lucid_world *w) {
    lucid_contact_sparse_problem p;
    lucid_world_last_sparse_problem(w, &p, NULL, NULL);
    return p.n > 0 && lucid_sparse_dim(&p) == 4;
}

/* A world of the given pair and sparse_threshold; tol > 0: the solver's tolerance (with room
 * for the iterations it takes), else the default. */
static lucid_world *world_tol(double dt, lucid_vec3 gravity, lucid_contact_model model,
                              lucid_contact_solver solver, int threshold, double tol) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = dt, o.gravity = gravity;
    o.contact.model = model, o.contact.solver = solver;
    o.sparse_threshold = threshold;
    if (tol > 0.0) o.contact.tol = tol, o.contact.max_iter = 5000;
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    return w;
}

static lucid_world *world_of(double dt, lucid_vec3 gravity, lucid_contact_model model,
                             lucid_contact_solver solver, int threshold) {
    return world_tol(dt, gravity, model, solver, threshold, 0.0);
}

static int add_model(lucid_world *w, const lucid_model *m) {
    lucid_world_model_desc d;
    lucid_world_model_desc_default(&d);
    int id;
    assert_int_equal(lucid_world_add_model(w, m, &d, &id, NULL), LUCID_OK);
    return id;
}

static int add_box(lucid_world *w, double half, lucid_vec3 at, double yaw) {
    lucid_body_part part;
    assert_int_equal(lucid_shape_box(half, half, half, &part.shape), LUCID_OK);
    part.pose = lucid_se3_identity();
    lucid_body_desc d;
    lucid_body_desc_default(&d);
    d.parts = &part, d.num_parts = 1;
    d.has_mass = 1, d.mass = 1.0;
    d.pose.R =
        lucid_mat3_from_cols(lucid_vec3_make(cos(yaw), sin(yaw), 0),
                             lucid_vec3_make(-sin(yaw), cos(yaw), 0), lucid_vec3_make(0, 0, 1));
    d.pose.t = at;
    d.friction = 1.0;
    int id;
    assert_int_equal(lucid_world_add_body(w, &d, &id, NULL), LUCID_OK);
    return id;
}

/* The two boxes on the condim-4 floor (the floor's model loaded from m). */
static lucid_world *boxes_world(const lucid_model *m, lucid_contact_model model,
                                lucid_contact_solver solver, int threshold, double tol,
                                int ids[2]) {
    lucid_world *w = world_tol(1e-3, lucid_vec3_make(0, 0, -9.81), model, solver, threshold, tol);
    add_model(w, m);
    ids[0] = add_box(w, 0.05, lucid_vec3_make(0, 0, 0.05), 0.0);
    ids[1] = add_box(w, 0.05, lucid_vec3_make(0.01, 0, 0.1505), 0.2);
    return w;
}

/* The torque about z twisting the lower box at step k: below its limit for 20 steps, then 3x
 * above it. The limit: each corner's force on the cone's boundary along its turning,
 * N_i sqrt(mu^2 rc^2 + mu_t^2), N = 2 m g, rc = sqrt(2) 0.05 m: 1.07 N m. */
static double twist(int k) {
    return k < 20 ? 0.5 : 3.0;
}

/* From each state of a dense trajectory of the two boxes, one dense and one body-space step
 * (solver tolerance tol, 0: the default): velocities agree to vtol on every step (all) or on
 * the steps both paths converged (at least 20 of the 40); returns the largest |dv|. Unconverged
 * answers are not one problem's: the island solve's attempts differ by backend (body space puts
 * the interior point first and lets ADMM give up before it, world_island_solve.c).
 * The four corners' forces are not unique, nor are the NCP's velocities (two answers of
 * ncp:admm that meet its criterion differ by 1e-3 m/s here, on a condim-3 floor too): the
 * comparison takes solvers whose answers are one problem's (PGS: the same updates; the convex
 * CCP's velocities are unique). */
static double boxes_same_step(const lucid_model *m, lucid_contact_model model,
                              lucid_contact_solver solver, double tol, double vtol, int all) {
    int ids[2];
    lucid_world *dense = boxes_world(m, model, solver, DENSE, tol, ids);
    lucid_world *sparse = boxes_world(m, model, solver, 0, tol, ids);
    for (int k = 0; k < 200; ++k) assert_int_equal(lucid_world_step(dense), LUCID_OK);
    size_t n = (size_t)lucid_world_state_size(dense);
    double *x = malloc(sizeof(double) * n);
    assert_non_null(x);
    double worst = 0.0, spin = 0.0;
    int steps = 0, converged = 0;
    for (int k = 0; k < 40; ++k) {
        lucid_world_get_state(dense, x);
        assert_int_equal(lucid_world_set_state(dense, x, NULL), LUCID_OK); /* both cold */
        assert_int_equal(lucid_world_set_state(sparse, x, NULL), LUCID_OK);
        lucid_vec3 tau = lucid_vec3_make(0, 0, twist(k));
        assert_int_equal(lucid_world_apply_force(dense, ids[0], lucid_vec3_zero(), tau), LUCID_OK);
        assert_int_equal(lucid_world_apply_force(sparse, ids[0], lucid_vec3_zero(), tau), LUCID_OK);
        assert_int_equal(lucid_world_step(dense), LUCID_OK);
        assert_int_equal(lucid_world_step(sparse), LUCID_OK);
        assert_true(body_space_dim4(sparse)); /* never silently dense */
        lucid_world_stats sd = lucid_world_last_stats(dense), ss = lucid_world_last_stats(sparse);
        assert_int_equal(sd.contacts, ss.contacts);
        converged += sd.converged && ss.converged;
        ++steps;
        for (int b = 0; b < 2; ++b) {
            double vd[6], vs[6];
            assert_int_equal(lucid_world_velocity(dense, ids[b], vd), LUCID_OK);
            assert_int_equal(lucid_world_velocity(sparse, ids[b], vs), LUCID_OK);
            if (all || (sd.converged && ss.converged)) worst = fmax(worst, max_abs_diff(vd, vs, 6));
            if (b == 0) spin = vd[5];
        }
    }
    printf("two boxes %s:%s: %d body-space steps of dim 4 (%d converged on both): largest |dv| "
           "%.2e; spin at the end %.3f rad/s\n",
           lucid_contact_model_name(model), lucid_contact_solver_name(solver), steps, converged,
           worst, spin);
    assert_true(spin > 0.1); /* twisted past the limit: the island slides and spins */
    assert_true(all || converged >= 20);
    assert_true(worst <= vtol);
    free(x);
    lucid_world_destroy(dense);
    lucid_world_destroy(sparse);
    return worst;
}

/* ccp:admm and ccp:ip at tol 1e-10 (the CCP's velocities are unique), on the steps both paths
 * converged: ccp:ip, the body-space KKT of dim 4 against the dense LU, agrees to 3e-16 there;
 * PGS runs the same updates in the same order on both forms (rounding apart: 1e-13), every
 * step, lcp:pgs's box pyramid of dim 4 included. */
static void test_boxes_same_step(void **state) {
    (void)state;
    lucid_model *m = test_load_model_text(FLOOR_XML);
    boxes_same_step(m, LUCID_CONTACT_CCP, LUCID_CONTACT_IP, 1e-10, 1e-12, 0);
    boxes_same_step(m, LUCID_CONTACT_CCP, LUCID_CONTACT_ADMM, 1e-10, 1e-9, 0);
    boxes_same_step(m, LUCID_CONTACT_NCP, LUCID_CONTACT_PGS, 0.0, 1e-9, 1);
    boxes_same_step(m, LUCID_CONTACT_CCP, LUCID_CONTACT_PGS, 0.0, 1e-9, 1);
    boxes_same_step(m, LUCID_CONTACT_LCP, LUCID_CONTACT_PGS, 0.0, 1e-9, 1); /* the box pyramid */
    lucid_model_destroy(m);
}

/* The sphere of SPIN_SCENE (one contact: its answer is unique) sliding at 1 m/s and spinning at
 * 10 rad/s: from each state of a dense trajectory, one dense and one body-space step with
 * ncp:admm and ccp:admm at their default tolerance give the same velocities (1e-6). */
static void test_sphere_same_step(void **state) {
    (void)state;
    lucid_model *m = test_load_model(SPIN_SCENE);
    const lucid_contact_model models[2] = {LUCID_CONTACT_NCP, LUCID_CONTACT_CCP};
    for (int k = 0; k < 2; ++k) {
        lucid_world *dense = world_of(lucid_model_timestep(m), lucid_model_gravity(m), models[k],
                                      LUCID_CONTACT_ADMM, DENSE);
        lucid_world *sparse = world_of(lucid_model_timestep(m), lucid_model_gravity(m), models[k],
                                       LUCID_CONTACT_ADMM, 0);
        int id = add_model(dense, m);
        add_model(sparse, m);
        for (int j = 0; j < 100; ++j) assert_int_equal(lucid_world_step(dense), LUCID_OK);
        double v[6];
        memcpy(v, lucid_world_model_v(dense, id), sizeof v);
        v[0] = 1.0, v[5] = 10.0;
        assert_int_equal(lucid_world_model_set_v(dense, id, v, NULL), LUCID_OK);
        size_t n = (size_t)lucid_world_state_size(dense);
        double *x = malloc(sizeof(double) * n), worst = 0.0;
        assert_non_null(x);
        for (int j = 0; j < 50; ++j) {
            lucid_world_get_state(dense, x);
            assert_int_equal(lucid_world_set_state(dense, x, NULL), LUCID_OK);
            assert_int_equal(lucid_world_set_state(sparse, x, NULL), LUCID_OK);
            assert_int_equal(lucid_world_step(dense), LUCID_OK);
            assert_int_equal(lucid_world_step(sparse), LUCID_OK);
            assert_true(body_space_dim4(sparse));
            assert_true(lucid_world_last_stats(dense).converged);
            assert_true(lucid_world_last_stats(sparse).converged);
            worst = fmax(worst, max_abs_diff(lucid_world_model_v(dense, id),
                                             lucid_world_model_v(sparse, id), 6));
        }
        printf("sliding, spinning sphere %s:admm: 50 body-space steps of dim 4, largest |dv| "
               "%.2e; v = (%.4f, %.4f) m/s, spin %.4f rad/s at the end\n",
               lucid_contact_model_name(models[k]), worst, lucid_world_model_v(dense, id)[0],
               lucid_world_model_v(dense, id)[1], lucid_world_model_v(dense, id)[5]);
        assert_true(worst <= 1e-6);
        free(x);
        lucid_world_destroy(dense);
        lucid_world_destroy(sparse);
    }
    lucid_model_destroy(m);
}

/* The sphere (a model's free joint: the link's spin row) spun at 10 rad/s on its floor slows
 * at mu_t g / (0.4 r^2) = 24.525 rad/s^2 in body space, as on the dense path. */
static void test_sphere_spins_down_in_body_space(void **state) {
    (void)state;
    lucid_model *m = test_load_model(SPIN_SCENE);
    lucid_world *w = world_of(lucid_model_timestep(m), lucid_model_gravity(m), LUCID_CONTACT_NCP,
                              LUCID_CONTACT_ADMM, 0);
    int id = add_model(w, m);
    for (int k = 0; k < 100; ++k) assert_int_equal(lucid_world_step(w), LUCID_OK);
    size_t nv = lucid_model_nv(m);
    double v[6];
    assert_int_equal(nv, 6);
    memcpy(v, lucid_world_model_v(w, id), sizeof v);
    v[5] = 10.0;
    assert_int_equal(lucid_world_model_set_v(w, id, v, NULL), LUCID_OK);
    for (int k = 0; k < 100; ++k) {
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        assert_true(body_space_dim4(w));
    }
    double expected = 10.0 - 0.01 * 9.81 / (0.4 * 0.1 * 0.1) * 0.1;
    printf("sphere in body space: spin %.12f after 0.1 s (analytic %.12f)\n",
           lucid_world_model_v(w, id)[5], expected);
    assert_true(fabs(lucid_world_model_v(w, id)[5] - expected) <= 1e-9);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
}

/* ccp:newton, whose body-space form is of dim 3, solves a torsional island densely at
 * sparse_threshold 0 (every step converged, none in body space); raisim:bisection, without a
 * body-space form, keeps it dense too and spins the sphere down at the analytic rate (its
 * sphere's block does not couple normal and tangential rows: RaiSim's answer is the NCP's). */
static void test_newton_and_raisim_stay_dense(void **state) {
    (void)state;
    lucid_model *m = test_load_model(SPIN_SCENE);
    lucid_world *w = world_of(lucid_model_timestep(m), lucid_model_gravity(m), LUCID_CONTACT_CCP,
                              LUCID_CONTACT_NEWTON, 0);
    add_model(w, m);
    for (int k = 0; k < 200; ++k) {
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        assert_false(body_space_dim4(w));
        assert_true(lucid_world_last_stats(w).converged);
    }
    assert_true(lucid_world_contact_count(w) > 0);
    lucid_world_destroy(w);
    w = world_of(lucid_model_timestep(m), lucid_model_gravity(m), LUCID_CONTACT_RAISIM,
                 LUCID_CONTACT_BISECTION, 0);
    int id = add_model(w, m);
    for (int k = 0; k < 100; ++k) assert_int_equal(lucid_world_step(w), LUCID_OK);
    double v[6];
    memcpy(v, lucid_world_model_v(w, id), sizeof v);
    v[5] = 10.0;
    assert_int_equal(lucid_world_model_set_v(w, id, v, NULL), LUCID_OK);
    for (int k = 0; k < 100; ++k) {
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        assert_false(body_space_dim4(w));
        assert_true(lucid_world_last_stats(w).converged);
    }
    double expected = 10.0 - 0.01 * 9.81 / (0.4 * 0.1 * 0.1) * 0.1;
    printf("raisim:bisection: spin %.12f after 0.1 s (analytic %.12f)\n",
           lucid_world_model_v(w, id)[5], expected);
    assert_true(fabs(lucid_world_model_v(w, id)[5] - expected) <= 1e-9);
    lucid_world_destroy(w);
    lucid_model_destroy(m);
}

/* The islands of w's last step with a torsional contact (*torsional) and those of them the
 * step solved in body space (*body). */
static void count_torsional_islands(const lucid_world *w, int *torsional, int *body) {
    for (int i = 0; i < w->d.num_islands; ++i) {
        const int *list = w->d.island_contacts + w->d.island_start[i];
        int m = w->d.island_start[i + 1] - w->d.island_start[i], has = 0;
        for (int k = 0; k < m; ++k) has |= w->d.contacts[list[k]].torsion > 0.0;
        *torsional += has;
        *body += has && lucid_world_sparse_applies(w, list, m);
    }
}

/* humanoid100 (a bin of 100 objects, its cylinders condim 4) with the pair's default
 * threshold (threshold -1) or every island in body space (0): from each state of a dense
 * trajectory, that step against the dense path's. Returns the largest |dv| over the steps
 * (where both converged unless `all`); counts the torsional islands and those in body space. */
static double humanoid100_steps(const lucid_model *m, lucid_contact_model model,
                                lucid_contact_solver solver, int threshold, int all, int *torsional,
                                int *body_space) {
    double dt = lucid_model_timestep(m);
    lucid_vec3 g = lucid_model_gravity(m);
    lucid_world *dense = world_of(dt, g, model, solver, DENSE);
    lucid_world *body = world_of(dt, g, model, solver, threshold);
    add_model(dense, m), add_model(body, m);
    for (int k = 0; k < 200; ++k) assert_int_equal(lucid_world_step(dense), LUCID_OK);
    size_t n = (size_t)lucid_world_state_size(dense), nv = lucid_model_nv(m);
    double *x = malloc(sizeof(double) * n), *xd = malloc(sizeof(double) * n),
           *xs = malloc(sizeof(double) * n);
    assert_non_null(x), assert_non_null(xd), assert_non_null(xs);
    double worst = 0.0;
    int compared = 0;
    *torsional = *body_space = 0;
    for (int k = 0; k < 20; ++k) {
        lucid_world_get_state(dense, x);
        assert_int_equal(lucid_world_set_state(dense, x, NULL), LUCID_OK);
        assert_int_equal(lucid_world_set_state(body, x, NULL), LUCID_OK);
        assert_int_equal(lucid_world_step(dense), LUCID_OK);
        assert_int_equal(lucid_world_step(body), LUCID_OK);
        count_torsional_islands(body, torsional, body_space);
        lucid_world_stats sd = lucid_world_last_stats(dense), ss = lucid_world_last_stats(body);
        if (!all && !(sd.converged && ss.converged)) continue;
        lucid_world_get_state(dense, xd);
        lucid_world_get_state(body, xs);
        worst = fmax(worst, max_abs_diff(xd + n - nv, xs + n - nv, nv));
        ++compared;
    }
    printf("humanoid100 %s:%s threshold %d: %d torsional islands in 20 steps, %d in body space; "
           "%d steps compared: largest |dv| %.2e\n",
           lucid_contact_model_name(model), lucid_contact_solver_name(solver), threshold,
           *torsional, *body_space, compared, worst);
    assert_true(compared > 0);
    free(x), free(xd), free(xs);
    lucid_world_destroy(dense);
    lucid_world_destroy(body);
    return worst;
}

/* humanoid100: at the default options (ncp:admm) its torsional islands follow the automatic
 * routing as dim-3 ones do (the body-space interior point takes dim 4): the large ones in body
 * space, the others dense; ncp:pgs, whose updates are the same on
 * both forms, gives the dense path's velocities on every island in body space (the link spin rows
 * of its 100 trees, contacts with and without torsion in one island) to rounding, converged or not.
 */
static void test_humanoid100_body_space(void **state) {
    (void)state;
    FILE *f = fopen(HUMANOID100, "rb");
    if (!f) {
        printf("%s not found (libmujoco-samples): skipped\n", HUMANOID100);
        skip();
    }
    fclose(f);
    lucid_model *m = test_load_model(HUMANOID100);
    int torsional, body_space;
    humanoid100_steps(m, LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM, -1, 0, &torsional, &body_space);
    assert_true(torsional > 0 && body_space > 0 && body_space < torsional);
    double pgs =
        humanoid100_steps(m, LUCID_CONTACT_NCP, LUCID_CONTACT_PGS, 0, 1, &torsional, &body_space);
    assert_true(body_space == torsional);
    assert_true(pgs <= 1e-9);
    lucid_model_destroy(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_boxes_same_step),
        cmocka_unit_test(test_sphere_same_step),
        cmocka_unit_test(test_sphere_spins_down_in_body_space),
        cmocka_unit_test(test_newton_and_raisim_stay_dense),
        cmocka_unit_test(test_humanoid100_body_space),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
