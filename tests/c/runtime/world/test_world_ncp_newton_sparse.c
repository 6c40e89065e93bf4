/* ncp:newton (the semismooth Newton on the Alart-Curnier function) in body space
 * (solvers/contact/contact_alart_curnier_sparse.c) against its dense form
 * (contact_alart_curnier.c), on the islands of a pile of 13 boxes (test_pile_scene.h, ~100-180
 * contacts) and of lucid's 7-joint arm pressing a box (a robot's slot of nv columns):
 * - solver level: on each island's body-space problem, lucid_contact_solve_alart_curnier_sparse
 *   from zero meets the NCP criterion's tol (recomputed here from its answer) wherever the dense
 *   solve on G = J M^-1 J^T does, and the answers' velocities agree on most islands (the NCP of
 *   a rigid hyperstatic pile has more than one solution: solver_level);
 * - world level: the world steps its islands in body space with ncp:newton itself (not ADMM,
 *   which the world switched to on islands above 32 contacts), and from the same state every
 *   step the body-space world meets tol wherever the dense one does, the states agreeing to
 *   1e-6 (test_world_sparse's bound);
 * - the default world (sparse_threshold -1) solves the pile's island (> 32 contacts) with
 *   ncp:newton in body space and every step converges. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/c/common/test_arm_scene.h"
#include "tests/c/common/test_model_file.h"
#include "tests/c/common/test_pile_scene.h"
#include "runtime/model/model.h"
#include "runtime/model/model_load.h"
#include "runtime/world/world.h"
#include "solvers/contact/contact_criteria.h"
#include "solvers/contact/contact_internal.h"
#include "solvers/contact/contact_sparse.h"

#define ARM7  LUCID_SOURCE_DIR "/tasks/models/arm7.xml"
#define DENSE INT_MAX /* sparse_threshold: every island dense */

static lucid_world *pile(int threshold) {
    return test_pile_world(LUCID_CONTACT_NCP, LUCID_CONTACT_NEWTON, threshold);
}

static double max_abs_diff(const double *a, const double *b, size_t n) {
    double d = 0.0;
    for (size_t k = 0; k < n; ++k) d = fmax(d, fabs(a[k] - b[k]));
    return d;
}

/* Every island of the last step was solved in body space by ncp:newton itself. */
static int newton_in_body_space(const lucid_world *w) {
    int count = 0;
    const lucid_world_island_info *info = lucid_world_islands(w, &count);
    for (int k = 0; k < count; ++k)
        if (!info[k].body_space || info[k].solver != LUCID_CONTACT_NEWTON) return 0;
    return count > 0;
}

/* The last island's body-space problem solved from zero by the sparse and the dense Newton:
 * returns the largest difference of their answers' velocities relative to the largest |g| (-1
 * when the dense one misses tol); fails when the sparse one misses tol (its criterion
 * recomputed here) where the dense one meets it. */
static double solve_both(const lucid_world *w, double tol, int *contacts) {
    lucid_contact_sparse_problem p;
    lucid_world_last_sparse_problem(w, &p, NULL, NULL);
    assert_true(p.n > 0);
    *contacts = p.n;
    int dim = lucid_sparse_dim(&p);
    size_t m = (size_t)dim * (size_t)p.n;
    lucid_contact_options o = lucid_contact_default_options();
    o.model = LUCID_CONTACT_NCP, o.solver = LUCID_CONTACT_NEWTON, o.tol = tol;
    o.warm_start = 0, o.max_iter = 200;
    double *G = malloc(sizeof(double) * m * m), *ld = calloc(m, sizeof(double)),
           *ls = calloc(m, sizeof(double)),
           *u = malloc(sizeof(double) * (lucid_sparse_columns(&p) + 1)),
           *sigma = malloc(sizeof(double) * m);
    assert_non_null(G), assert_non_null(ld), assert_non_null(ls), assert_non_null(u);
    assert_non_null(sigma);
    lucid_contact_sparse_delassus(&p, G);
    lucid_contact_problem dense = {p.n, G, p.g, p.mu, p.R, dim};
    lucid_contact_workspace *dws = lucid_contact_workspace_create(p.n * dim / 3 + 2);
    lucid_contact_sparse_workspace *sws = lucid_contact_sparse_workspace_create();
    assert_non_null(dws), assert_non_null(sws);
    assert_int_equal(lucid_contact_sparse_reserve_dim(sws, p.n, dim, lucid_sparse_columns(&p)),
                     LUCID_OK);
    lucid_contact_result rd, rs;
    assert_int_equal(lucid_contact_solve(&dense, &o, dws, ld, NULL, &rd), LUCID_OK);
    assert_int_equal(lucid_contact_solve_alart_curnier_sparse(&p, &o, sws, ls, &rs), LUCID_OK);
    /* the sparse answer's criterion, recomputed from its forces, and its velocity against the
     * dense answer's (sigma_d) */
    double *sigma_d = calloc(m, sizeof(double));
    assert_non_null(sigma_d);
    lucid_contact_sparse_velocity(&p, ld, u, sigma_d);
    lucid_contact_sparse_velocity(&p, ls, u, sigma);
    lucid_contact_criteria check;
    lucid_contact_criteria_eval(&dense, LUCID_CRITERION_NCP, ls, sigma, NULL, &check);
    double diff = -1.0;
    if (rd.converged) {
        if (!(rs.converged && check.abs <= tol))
            fail_msg("dense Newton met tol %g, body space did not (%g, %d iterations)", tol,
                     check.abs, rs.iterations);
        diff = max_abs_diff(sigma_d, sigma, m) / fmax(lucid_contact_max_abs(p.g, (long)m), 1e-300);
    }
    free(sigma_d);
    lucid_contact_workspace_destroy(dws);
    lucid_contact_sparse_workspace_destroy(sws);
    free(G), free(ld), free(ls), free(u), free(sigma);
    return diff;
}

/* The solver-level comparison on the islands of `steps` steps of w (body space throughout). The
 * NCP of a hyperstatic pile without compliance (R = 0) has more than one solution, and the two
 * paths' iterates, equal up to the rounding of different LU pivots, may end at different ones
 * (3 of 40 islands here, every answer meeting tol): most islands, not all, must agree, to
 * 1e-8 of the largest |g| (the criterion's tol 1e-6 is on forces times velocities). */
static void solver_level(const char *name, lucid_world *w, int steps, double tol) {
    int compared = 0, agree = 0, largest = 0;
    for (int k = 0; k < steps; ++k) {
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        if (lucid_world_last_stats(w).contacts == 0) continue;
        int contacts = 0;
        double d = solve_both(w, tol, &contacts);
        if (d >= 0.0) ++compared, agree += d <= 1e-8;
        if (contacts > largest) largest = contacts;
    }
    printf("%-8s %d islands (largest %d contacts) met tol on both paths, the velocities of %d "
           "within 1e-8 of the largest |g|\n",
           name, compared, largest, agree);
    assert_true(compared >= steps / 2);
    assert_true(agree >= 3 * compared / 4);
}

/* From each state of the dense world's trajectory, one step of each world. */
static void world_level(const char *name, lucid_world *dense, lucid_world *sparse, int steps) {
    size_t n = (size_t)lucid_world_state_size(dense);
    double *x = malloc(sizeof(double) * n), *xd = malloc(sizeof(double) * n),
           *xs = malloc(sizeof(double) * n);
    assert_non_null(x), assert_non_null(xd), assert_non_null(xs);
    double worst = 0.0;
    int both = 0;
    for (int k = 0; k < steps; ++k) {
        lucid_world_get_state(dense, x);
        assert_int_equal(lucid_world_set_state(dense, x, NULL), LUCID_OK); /* both cold */
        assert_int_equal(lucid_world_set_state(sparse, x, NULL), LUCID_OK);
        assert_int_equal(lucid_world_step(dense), LUCID_OK);
        assert_int_equal(lucid_world_step(sparse), LUCID_OK);
        lucid_world_stats sd = lucid_world_last_stats(dense), ss = lucid_world_last_stats(sparse);
        assert_int_equal(sd.contacts, ss.contacts);
        if (ss.contacts == 0) continue;
        if (!newton_in_body_space(sparse))
            fail_msg("%s step %d: not solved by ncp:newton in body space", name, k);
        if (sd.converged && !ss.converged)
            fail_msg("%s step %d: dense met tol (%g), body space did not (%g)", name, k,
                     sd.scaled_residual, ss.scaled_residual);
        lucid_world_get_state(dense, xd);
        lucid_world_get_state(sparse, xs);
        if (sd.converged && ss.converged) worst = fmax(worst, max_abs_diff(xd, xs, n)), ++both;
    }
    printf("%-8s %d steps converged on both paths: largest state difference %.2e\n", name, both,
           worst);
    assert_true(both >= steps / 2);
    assert_true(worst <= 1e-6);
    free(x), free(xd), free(xs);
}

static void pile_matches_dense(void **state) {
    (void)state;
    lucid_world *dense = pile(DENSE), *sparse = pile(0);
    /* the boxes turned into their neighbours are pushed apart first (~30 steps) */
    for (int s = 0; s < 60; ++s) assert_int_equal(lucid_world_step(dense), LUCID_OK);
    world_level("pile", dense, sparse, 12);
    lucid_world_destroy(dense), lucid_world_destroy(sparse);
    lucid_world *w = pile(0);
    solver_level("pile", w, 40, 1e-6);
    lucid_world_destroy(w);
}

static void arm_matches_dense(void **state) {
    (void)state;
    lucid_model *m = test_load_model(ARM7);
    lucid_world *dense = test_arm_world(m, LUCID_CONTACT_NCP, LUCID_CONTACT_NEWTON, DENSE),
                *sparse = test_arm_world(m, LUCID_CONTACT_NCP, LUCID_CONTACT_NEWTON, 0);
    for (int s = 0; s < 300; ++s) assert_int_equal(lucid_world_step(dense), LUCID_OK);
    world_level("arm7", dense, sparse, 40);
    lucid_world_destroy(dense), lucid_world_destroy(sparse);
    lucid_model_destroy(m);
}

/* The default world: the pile's island (> 64 contacts, where ADMM took over before) is
 * ncp:newton's in body space, and every step of the pile converges. */
static void default_world_converges(void **state) {
    (void)state;
    lucid_world *w = pile(-1);
    int steps = 0, converged = 0, largest = 0;
    for (int k = 0; k < 120; ++k) {
        assert_int_equal(lucid_world_step(w), LUCID_OK);
        lucid_world_stats st = lucid_world_last_stats(w);
        if (st.contacts <= 64) continue; /* ADMM's or dense Newton's */
        ++steps, converged += st.converged;
        if (st.contacts > largest) largest = st.contacts;
        assert_true(newton_in_body_space(w));
    }
    printf("default  %d of %d steps converged (islands up to %d contacts)\n", converged, steps,
           largest);
    assert_true(steps > 0);
    assert_int_equal(converged, steps);
    lucid_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(pile_matches_dense),
                                       cmocka_unit_test(arm_matches_dense),
                                       cmocka_unit_test(default_world_converges)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
