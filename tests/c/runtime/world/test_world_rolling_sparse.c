/* Islands with rolling friction (MJCF condim 6, 6 rows per contact) on the body-space path
 * (runtime/world/world_sparse.c): the rolling rows of a free body (sign (0, b t_k)), of a model
 * link (rows 4, 5 of its J and Y) and the decoupled rolling rows of a contact without rolling
 * friction in the same island.
 * - From the same states, one step on the body-space path (sparse_threshold 0) and one on the
 *   dense path (sparse_threshold huge) give the same velocities to the solver's tolerance, for
 *   ncp:pgs (the same updates on both forms: every step), ccp:admm and ccp:ip (tol 1e-10, the
 *   CCP's velocities are unique: the steps both paths converged), on
 *   - tests/data/model/mjcf_rolling.xml's ball (a link) rolling and spinning on its condim-6
 *     floor, beside two stacked boxes (free bodies) on that floor pushed sideways (the
 *     floor's corners with rolling friction, the box-box contact without), and
 *   - a free sphere with w:add_body's rolling (and torsion) on a plain static floor.
 * - The body-space problem of one step equals the dense path's: G + diag(R) (the decoupled
 *   rows' entries sit in R in body space, in G densely), g and mu to rounding.
 * - Every island with a rolling contact is reported in body space with 6 rows per contact
 *   (lucid_world_islands): a silent fall-back to the dense path fails. */
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

#define ROLLING_SCENE LUCID_SOURCE_DIR "/tests/data/model/mjcf_rolling.xml"
#define DENSE         INT_MAX /* sparse_threshold: every island dense */
#define STEPS         40

static double max_abs_diff(const double *a, const double *b, size_t n) {
    double d = 0.0;
    for (size_t k = 0; k < n; ++k) d = fmax(d, fabs(a[k] - b[k]));
    return d;
}

/* The islands of w's last step with rolling friction (6 rows a contact) that were solved in
 * body space, or -1 when one with rolling friction was solved densely. */
static int rolling_body_islands(const lucid_world *w) {
    int n = 0, body = 0;
    const lucid_world_island_info *info = lucid_world_islands(w, &n);
    for (int i = 0; i < n; ++i) {
        if (info[i].dim != 6) continue;
        if (!info[i].body_space) return -1;
        ++body;
    }
    return body;
}

static lucid_world *world_of(double dt, lucid_contact_model model, lucid_contact_solver solver,
                             int threshold, double tol) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = dt, o.gravity = lucid_vec3_make(0, 0, -9.81);
    o.contact.model = model, o.contact.solver = solver;
    o.sparse_threshold = threshold;
    if (tol > 0.0) o.contact.tol = tol, o.contact.max_iter = 5000;
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    return w;
}

static int add_body(lucid_world *w, const lucid_shape *shape, lucid_vec3 at, double rolling,
                    double torsion) {
    lucid_body_part part = {.shape = *shape, .pose = lucid_se3_identity()};
    lucid_body_desc d;
    lucid_body_desc_default(&d);
    d.parts = &part, d.num_parts = 1;
    d.has_mass = 1, d.mass = 1.0;
    d.pose.t = at;
    d.friction = 1.0, d.rolling = rolling, d.torsion = torsion;
    int id;
    assert_int_equal(lucid_world_add_body(w, &d, &id, NULL), LUCID_OK);
    return id;
}

/* Scene A: the rolling ball's model (floor condim 6, friction 1 0.005 0.002) and two stacked
 * 0.1 m boxes on its floor (their pairs with the floor take its rolling coefficient, the
 * box-box pair none). ids: the two boxes and the model. */
static lucid_world *ball_and_boxes(const lucid_model *m, lucid_contact_model model,
                                   lucid_contact_solver solver, int threshold, double tol,
                                   int ids[3]) {
    lucid_world *w = world_of(lucid_model_timestep(m), model, solver, threshold, tol);
    lucid_world_model_desc d;
    lucid_world_model_desc_default(&d);
    int id;
    assert_int_equal(lucid_world_add_model(w, m, &d, &id, NULL), LUCID_OK);
    ids[2] = id;
    lucid_shape box;
    assert_int_equal(lucid_shape_box(0.05, 0.05, 0.05, &box), LUCID_OK);
    ids[0] = add_body(w, &box, lucid_vec3_make(0.5, 0, 0.05), 0.0, 0.0);
    ids[1] = add_body(w, &box, lucid_vec3_make(0.51, 0, 0.1505), 0.0, 0.0);
    return w;
}

/* Scene B: a plain static floor (friction 1) and a free 0.1 m sphere with rolling 0.002 m and
 * torsion 0.005 m. ids: the sphere, then -1 (no second body, no model). */
static lucid_world *plain_sphere(lucid_contact_model model, lucid_contact_solver solver,
                                 int threshold, double tol, int ids[3]) {
    lucid_world *w = world_of(1e-3, model, solver, threshold, tol);
    lucid_body_part floor = {.pose = lucid_se3_identity()};
    assert_int_equal(lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0.0, &floor.shape), LUCID_OK);
    lucid_se3 pose = lucid_se3_identity();
    int fid;
    assert_int_equal(lucid_world_add_static(w, &floor, 1, &pose, 1.0, &fid, NULL), LUCID_OK);
    lucid_shape ball;
    assert_int_equal(lucid_shape_sphere(0.1, &ball), LUCID_OK);
    ids[0] = add_body(w, &ball, lucid_vec3_make(0, 0, 0.1), 0.002, 0.005);
    ids[1] = ids[2] = -1;
    return w;
}

typedef lucid_world *(*scene_fn)(const lucid_model *m, lucid_contact_model model,
                                 lucid_contact_solver solver, int threshold, double tol,
                                 int ids[3]);

static lucid_world *scene_b(const lucid_model *m, lucid_contact_model model,
                            lucid_contact_solver solver, int threshold, double tol, int ids[3]) {
    (void)m;
    return plain_sphere(model, solver, threshold, tol, ids);
}

/* Sets the scene's motion after it settled: the ball link rolls at 1 m/s along x (w_y 10
 * rad/s) and spins at 5 rad/s about z; the lower box is pushed along x (1 m/s); the free
 * sphere rolls at 1 m/s and spins at 5 rad/s. */
static void set_motion(lucid_world *w, int model_id, const int ids[3]) {
    if (model_id >= 0) {
        double v[6];
        memcpy(v, lucid_world_model_v(w, model_id), sizeof v);
        v[0] = 1.0, v[4] = 10.0, v[5] = 5.0;
        assert_int_equal(lucid_world_model_set_v(w, model_id, v, NULL), LUCID_OK);
        double t[6];
        assert_int_equal(lucid_world_velocity(w, ids[0], t), LUCID_OK);
        t[0] = 1.0;
        assert_int_equal(lucid_world_set_velocity(w, ids[0], t), LUCID_OK);
        return;
    }
    double t[6];
    assert_int_equal(lucid_world_velocity(w, ids[0], t), LUCID_OK);
    t[0] = 1.0, t[4] = 10.0, t[5] = 5.0;
    assert_int_equal(lucid_world_set_velocity(w, ids[0], t), LUCID_OK);
}

/* All generalised velocities of w (the state's trailing entries are not all of them with free
 * bodies: the bodies' twists, then the model's v). */
static size_t velocities(const lucid_world *w, int model_id, const int ids[3], double *out) {
    size_t k = 0;
    for (int b = 0; b < 2; ++b) {
        if (ids[b] < 0) continue;
        assert_int_equal(lucid_world_velocity(w, ids[b], out + k), LUCID_OK);
        k += 6;
    }
    if (model_id >= 0)
        memcpy(out + k, lucid_world_model_v(w, model_id), 6 * sizeof(double)), k += 6;
    return k;
}

/* From each state of a dense trajectory of the scene, one dense and one body-space step:
 * velocities agree to vtol on every step (least < 0) or on the steps both paths converged (at
 * least `least` of them); every rolling island of the body-space step in body space. */
static double same_step(const char *name, scene_fn scene, const lucid_model *m,
                        lucid_contact_model model, lucid_contact_solver solver, double tol,
                        double vtol, int least) {
    int ids[3];
    lucid_world *dense = scene(m, model, solver, DENSE, tol, ids);
    lucid_world *sparse = scene(m, model, solver, 0, tol, ids);
    int model_id = ids[2];
    for (int k = 0; k < 100; ++k) assert_int_equal(lucid_world_step(dense), LUCID_OK);
    set_motion(dense, model_id, ids);
    size_t n = (size_t)lucid_world_state_size(dense);
    double *x = malloc(sizeof(double) * n), vd[18], vs[18], worst = 0.0;
    assert_non_null(x);
    int converged = 0, rolling = 0, dense_converged = 0, body_converged = 0;
    for (int k = 0; k < STEPS; ++k) {
        lucid_world_get_state(dense, x);
        assert_int_equal(lucid_world_set_state(dense, x, NULL), LUCID_OK); /* both cold */
        assert_int_equal(lucid_world_set_state(sparse, x, NULL), LUCID_OK);
        assert_int_equal(lucid_world_step(dense), LUCID_OK);
        assert_int_equal(lucid_world_step(sparse), LUCID_OK);
        int body = rolling_body_islands(sparse);
        assert_true(body >= 1); /* never silently dense */
        assert_int_equal(rolling_body_islands(dense), -1);
        rolling += body;
        lucid_world_stats sd = lucid_world_last_stats(dense), ss = lucid_world_last_stats(sparse);
        assert_int_equal(sd.contacts, ss.contacts);
        int both = sd.converged && ss.converged;
        converged += both, dense_converged += sd.converged, body_converged += ss.converged;
        size_t nv = velocities(dense, model_id, ids, vd);
        assert_int_equal(velocities(sparse, model_id, ids, vs), nv);
        if (least < 0 || both) worst = fmax(worst, max_abs_diff(vd, vs, nv));
    }
    printf("%s %s:%s: %d steps, %d rolling islands in body space; converged: dense %d, body "
           "space %d, both %d; largest |dv| %.2e\n",
           name, lucid_contact_model_name(model), lucid_contact_solver_name(solver), STEPS, rolling,
           dense_converged, body_converged, converged, worst);
    assert_true(converged >= least);
    assert_true(worst <= vtol);
    free(x);
    lucid_world_destroy(dense);
    lucid_world_destroy(sparse);
    return worst;
}

/* ccp:ip and ccp:admm at tol 1e-10 on the steps both paths converged; ncp:pgs every step (the
 * same updates in the same order on both forms: rounding apart). The interior point meets
 * 1e-10 on few of these dim-6 steps, densely as in body space (7 and 6 of the ball's 40): where
 * both do, the answers are one (3e-17 m/s); ADMM meets it on most. */
static void run_pairs(const char *name, scene_fn scene, const lucid_model *m) {
    same_step(name, scene, m, LUCID_CONTACT_CCP, LUCID_CONTACT_IP, 1e-10, 1e-12, 1);
    same_step(name, scene, m, LUCID_CONTACT_CCP, LUCID_CONTACT_ADMM, 1e-10, 1e-9, STEPS / 2);
    same_step(name, scene, m, LUCID_CONTACT_NCP, LUCID_CONTACT_PGS, 0.0, 1e-12, -1);
}

static void test_ball_and_boxes_same_step(void **state) {
    (void)state;
    lucid_model *m = test_load_model(ROLLING_SCENE);
    run_pairs("ball and boxes", ball_and_boxes, m);
    lucid_model_destroy(m);
}

static void test_plain_sphere_same_step(void **state) {
    (void)state;
    run_pairs("plain sphere", scene_b, NULL);
}

/* The last island's problem of one step from the same state, dense (its G, R) and in body space
 * (G = J M^-1 J^T from the blocks, lucid_world_last_problem_dense, and R): G + diag(R), g and
 * mu agree to rounding (1e-12 relative to their largest entry), rolling rows included. */
static double problem_difference(scene_fn scene, const lucid_model *m) {
    int ids[3];
    lucid_world *dense = scene(m, LUCID_CONTACT_NCP, LUCID_CONTACT_PGS, DENSE, 0.0, ids);
    lucid_world *sparse = scene(m, LUCID_CONTACT_NCP, LUCID_CONTACT_PGS, 0, 0.0, ids);
    for (int k = 0; k < 100; ++k) assert_int_equal(lucid_world_step(dense), LUCID_OK);
    set_motion(dense, ids[2], ids);
    size_t n = (size_t)lucid_world_state_size(dense);
    double *x = malloc(sizeof(double) * n), worst = 0.0;
    assert_non_null(x);
    lucid_world_get_state(dense, x);
    assert_int_equal(lucid_world_set_state(sparse, x, NULL), LUCID_OK);
    assert_int_equal(lucid_world_step(dense), LUCID_OK);
    assert_int_equal(lucid_world_step(sparse), LUCID_OK);
    int count = 0;
    const lucid_world_island_info *info = lucid_world_islands(sparse, &count);
    assert_true(count > 0 && info[count - 1].body_space && info[count - 1].dim == 6);
    lucid_contact_problem pd, ps;
    lucid_world_last_problem(dense, &pd, NULL);
    assert_int_equal(lucid_world_last_problem_dense(sparse, &ps, NULL), LUCID_OK);
    assert_int_equal(pd.n, ps.n);
    assert_int_equal(pd.dim, 6);
    assert_int_equal(ps.dim, 6);
    size_t rows = 6 * (size_t)pd.n;
    double top = 0.0;
    for (size_t k = 0; k < rows * rows; ++k) top = fmax(top, fabs(pd.G[k]));
    for (size_t c = 0; c < rows; ++c)
        for (size_t r = 0; r < rows; ++r) {
            double a = pd.G[r + rows * c], b = ps.G[r + rows * c];
            if (r == c) a += pd.R ? pd.R[r] : 0.0, b += ps.R ? ps.R[r] : 0.0;
            worst = fmax(worst, fabs(a - b) / top);
        }
    double gtop = 0.0, gdiff = 0.0;
    for (size_t k = 0; k < rows; ++k)
        gtop = fmax(gtop, fabs(pd.g[k])), gdiff = fmax(gdiff, fabs(pd.g[k] - ps.g[k]));
    for (int i = 0; i < pd.n; ++i) assert_true(pd.mu[i] == ps.mu[i]);
    printf("last island (%d contacts, dim 6): |G + R| differs by %.2e, g by %.2e of its largest\n",
           pd.n, worst, gdiff / gtop);
    assert_true(worst <= 1e-12 && gdiff <= 1e-12 * gtop);
    free(x);
    lucid_world_destroy(dense);
    lucid_world_destroy(sparse);
    return worst;
}

static void test_problem_equals_dense(void **state) {
    (void)state;
    lucid_model *m = test_load_model(ROLLING_SCENE);
    problem_difference(ball_and_boxes, m);
    problem_difference(scene_b, NULL);
    lucid_model_destroy(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_problem_equals_dense),
        cmocka_unit_test(test_ball_and_boxes_same_step),
        cmocka_unit_test(test_plain_sphere_same_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
