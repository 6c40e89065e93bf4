/* The interior point (ccp:ip, ncp:ip) in body space (solvers/contact/contact_ip.c,
 * lucid_contact_solve_ip_sparse) against its dense path (the Newton systems factorised from
 * the dense Delassus matrix): the same iterates with a different linear solve, each Newton
 * system (G + B) z = r solved through H = M + J^T B^-1 J (LDL for the CCP, KLU's LU for the
 * NCP). From the same state every step, on a pile of 13 boxes (free bodies) and on lucid's
 * 7-joint arm pressing a box (a robot's slot of nv columns):
 * - wherever the dense solve meets tol, the body-space one does too;
 * - where both meet tol (every step of the resting pile, for both models) the states agree to
 *   what tol allows (bound 1e-6, as test_world_sparse's for ADMM and Newton); where the dense
 *   one does not, both stop at the same scaled residual (to 1e-3 of it): the same iterates;
 * - every body-space step is one: the island's problem is in body space (no dense G) and, for
 *   the arm, holds the model's slot, so a silent fall-back to the dense path fails;
 * - the automatic threshold (sparse_threshold -1) puts the pile (> 48 contacts) in body space. */
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
#include "solvers/contact/contact_sparse.h"

#define ARM7  LUCID_SOURCE_DIR "/tasks/models/arm7.xml"
#define DENSE INT_MAX /* sparse_threshold: every island dense */

/* test_pile_scene.h's pile, solved by the interior point. */
static lucid_world *pile(lucid_contact_model model, int threshold) {
    return test_pile_world(model, LUCID_CONTACT_IP, threshold);
}

/* The last island went through body space: no dense problem, a body-space one (of all the
 * contacts when `contacts` > 0), and (m not NULL) a slot of one of model m's subtrees. */
static int in_body_space(const lucid_world *w, int contacts, const lucid_model *m) {
    lucid_contact_problem d;
    lucid_world_last_problem(w, &d, NULL);
    lucid_contact_sparse_problem p;
    lucid_world_last_sparse_problem(w, &p, NULL, NULL);
    if (d.n != 0 || p.n == 0 || (contacts > 0 && p.n != contacts)) return 0;
    if (!m) return 1;
    for (int b = 0; p.dof && b < p.num_bodies; ++b)
        if (test_subtree_width(m, lucid_sparse_width(&p, b))) return 1;
    return 0;
}

static double max_abs_diff(const double *a, const double *b, size_t n) {
    double d = 0.0;
    for (size_t k = 0; k < n; ++k) d = fmax(d, fabs(a[k] - b[k]));
    return d;
}

/* From each state of the dense world's trajectory, one step of each world: the checks of the
 * file's comment. */
static void compare(const char *name, lucid_world *dense, lucid_world *sparse, const lucid_model *m,
                    int steps, int min_contacts, int min_converged) {
    size_t n = (size_t)lucid_world_state_size(dense);
    double *x = malloc(sizeof(double) * n), *xd = malloc(sizeof(double) * n),
           *xs = malloc(sizeof(double) * n);
    assert_non_null(x), assert_non_null(xd), assert_non_null(xs);
    double worst = 0.0, worst_gap = 0.0;
    int body_space = 0, both = 0, largest = 0;
    for (int k = 0; k < steps; ++k) {
        lucid_world_get_state(dense, x);
        assert_int_equal(lucid_world_set_state(dense, x, NULL), LUCID_OK); /* both cold */
        assert_int_equal(lucid_world_set_state(sparse, x, NULL), LUCID_OK);
        assert_int_equal(lucid_world_step(dense), LUCID_OK);
        assert_int_equal(lucid_world_step(sparse), LUCID_OK);
        lucid_world_stats sd = lucid_world_last_stats(dense), ss = lucid_world_last_stats(sparse);
        assert_int_equal(sd.contacts, ss.contacts);
        if (ss.contacts == 0) continue;
        if (!in_body_space(sparse, ss.islands == 1 ? ss.contacts : 0, m))
            fail_msg("%s step %d: the island was not solved in body space", name, k);
        ++body_space;
        if (sd.converged && !(ss.converged && ss.scaled_residual <= 1e-6))
            fail_msg("%s step %d: dense met tol (%g), body space did not (%g)", name, k,
                     sd.scaled_residual, ss.scaled_residual);
        lucid_world_get_state(dense, xd);
        lucid_world_get_state(sparse, xs);
        double d = max_abs_diff(xd, xs, n);
        if (sd.converged && ss.converged) worst = fmax(worst, d), ++both;
        /* where neither meets tol (ncp:ip on the pile: 220 iterations, ip then the PGS
         * fall-back, on both paths) they stop at the same residual: the same iterates */
        double gap = fabs(ss.scaled_residual - sd.scaled_residual);
        if (!sd.converged && !(gap <= 1e-3 * sd.scaled_residual))
            fail_msg("%s step %d: residuals %g (body space), %g (dense)", name, k,
                     ss.scaled_residual, sd.scaled_residual);
        if (!sd.converged) worst_gap = fmax(worst_gap, gap / sd.scaled_residual);
        if (ss.contacts > largest) largest = ss.contacts;
    }
    printf("%-16s %d steps, %d in body space, %d converged on both paths (largest island %d "
           "contacts): largest state difference %.2e; elsewhere residuals differ by %.2e of "
           "theirs\n",
           name, steps, body_space, both, largest, worst, worst_gap);
    assert_true(body_space >= steps / 2);
    assert_true(both >= min_converged);
    assert_true(largest >= min_contacts);
    assert_true(worst <= 1e-6);
    free(x), free(xd), free(xs);
}

static void pile_matches_dense(void **state) {
    (void)state;
    const lucid_contact_model models[2] = {LUCID_CONTACT_CCP, LUCID_CONTACT_NCP};
    for (int k = 0; k < 2; ++k) {
        lucid_world *dense = pile(models[k], DENSE), *sparse = pile(models[k], 0);
        /* the boxes turned into their neighbours are pushed apart first (at the correction
         * speed, ~30 steps): the comparison is made on the pile at rest */
        for (int s = 0; s < 60; ++s) assert_int_equal(lucid_world_step(dense), LUCID_OK);
        char name[32];
        snprintf(name, sizeof name, "pile %s:ip", lucid_contact_model_name(models[k]));
        compare(name, dense, sparse, NULL, 12, 48, 12);
        lucid_world_destroy(dense), lucid_world_destroy(sparse);
    }
}

static void arm_matches_dense(void **state) {
    (void)state;
    lucid_model *m = test_load_model(ARM7);
    const lucid_contact_model models[2] = {LUCID_CONTACT_CCP, LUCID_CONTACT_NCP};
    for (int k = 0; k < 2; ++k) {
        lucid_world *dense = test_arm_world(m, models[k], LUCID_CONTACT_IP, DENSE),
                    *sparse = test_arm_world(m, models[k], LUCID_CONTACT_IP, 0);
        for (int s = 0; s < 300; ++s) assert_int_equal(lucid_world_step(dense), LUCID_OK);
        char name[32];
        snprintf(name, sizeof name, "arm7 %s:ip", lucid_contact_model_name(models[k]));
        compare(name, dense, sparse, m, 40, 1, 40);
        lucid_world_destroy(dense), lucid_world_destroy(sparse);
    }
    lucid_model_destroy(m);
}

/* sparse_threshold -1: the pile's island (more contacts than LUCID_WORLD_SPARSE_IP_CROSSOVER, 48)
 * goes to body space by itself. */
static void automatic_threshold(void **state) {
    (void)state;
    lucid_world *w = pile(LUCID_CONTACT_NCP, -1);
    for (int k = 0; k < 3; ++k) assert_int_equal(lucid_world_step(w), LUCID_OK);
    lucid_world_stats st = lucid_world_last_stats(w);
    assert_int_equal(st.islands, 1);
    assert_true(st.contacts > 48);
    assert_true(in_body_space(w, st.contacts, 0));
    lucid_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(pile_matches_dense),
                                       cmocka_unit_test(arm_matches_dense),
                                       cmocka_unit_test(automatic_threshold)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
