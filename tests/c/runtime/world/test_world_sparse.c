/* Islands solved in body space (runtime/world/world_sparse.c) against the dense Delassus
 * path: the same PGS updates in the same order, so from the same state the same forces up to
 * rounding, for the LCP, CCP and NCP models; and the switch between the two paths. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "tests/c/common/test_pile_scene.h"

#include "runtime/world/world.h"

static lucid_world *pile(lucid_contact_model model, int threshold) {
    return test_pile_world(model, LUCID_CONTACT_PGS, threshold);
}

static double max_abs_force(const lucid_world *w) {
    double m = 0.0;
    const lucid_world_contact *c = lucid_world_contacts(w);
    for (int i = 0; i < lucid_world_contact_count(w); ++i)
        for (int k = 0; k < 3; ++k) m = fmax(m, fabs(c[i].force[k]));
    return m;
}

/* Per model: two worlds, dense (threshold above any island) and body space (threshold 0),
 * stepped 12 times; each step both start from the same state (set from the dense world, which
 * also clears both warm starts alike), have the same contacts and forces to 1e-9 of the
 * largest, the same stats, and the body-space world reports no dense problem. */
static void body_space_matches_dense(void **state) {
    (void)state;
    const lucid_contact_model models[3] = {LUCID_CONTACT_NCP, LUCID_CONTACT_CCP, LUCID_CONTACT_LCP};
    for (int mi = 0; mi < 3; ++mi) {
        lucid_world *dense = pile(models[mi], 1000000), *sparse = pile(models[mi], 0);
        int size = lucid_world_state_size(dense), largest = 0;
        double *x = malloc(sizeof(double) * (size_t)size);
        assert_non_null(x);
        for (int step = 0; step < 12; ++step) {
            lucid_world_get_state(dense, x);
            assert_int_equal(lucid_world_set_state(dense, x, NULL), LUCID_OK);
            assert_int_equal(lucid_world_set_state(sparse, x, NULL), LUCID_OK);
            assert_int_equal(lucid_world_step(dense), LUCID_OK);
            assert_int_equal(lucid_world_step(sparse), LUCID_OK);
            int n = lucid_world_contact_count(dense);
            assert_int_equal(lucid_world_contact_count(sparse), n);
            lucid_world_stats sd = lucid_world_last_stats(dense),
                              ss = lucid_world_last_stats(sparse);
            assert_int_equal(ss.islands, sd.islands);
            assert_int_equal(ss.converged, sd.converged);
            double scale = max_abs_force(dense), worst = 0.0;
            const lucid_world_contact *cd = lucid_world_contacts(dense),
                                      *cs = lucid_world_contacts(sparse);
            for (int i = 0; i < n; ++i)
                for (int k = 0; k < 3; ++k)
                    worst = fmax(worst, fabs(cd[i].force[k] - cs[i].force[k]));
            if (!(worst <= 1e-9 * scale))
                fail_msg("model %d step %d: forces differ by %g (largest %g)", mi, step, worst,
                         scale);
            if (!(fabs(ss.residual - sd.residual) <= 1e-9 * fmax(1.0, scale)))
                fail_msg("residual %g vs %g", ss.residual, sd.residual);
            if (n > largest) largest = n;
            lucid_contact_problem p;
            lucid_world_last_problem(sparse, &p, NULL);
            assert_int_equal(p.n, 0); /* no G in body space */
            lucid_world_last_problem(dense, &p, NULL);
            assert_int_equal(p.n, sd.islands == 1 ? n : p.n);
        }
        assert_true(largest > 48); /* the pile is large enough to matter */
        free(x);
        lucid_world_destroy(dense);
        lucid_world_destroy(sparse);
    }
}

/* The threshold picks the path: from the same state, a world whose threshold is just below
 * the island's contact count solves it in body space (no dense problem), one at it densely. */
static void threshold_switches_paths(void **state) {
    (void)state;
    lucid_world *w = pile(LUCID_CONTACT_NCP, 1000000);
    for (int k = 0; k < 5; ++k) assert_int_equal(lucid_world_step(w), LUCID_OK);
    lucid_world_stats st = lucid_world_last_stats(w);
    assert_int_equal(st.islands, 1);
    int n = st.contacts, size = lucid_world_state_size(w);
    double *x = malloc(sizeof(double) * (size_t)size);
    assert_non_null(x);
    lucid_world_get_state(w, x);
    lucid_world_destroy(w);
    /* the same state, thresholds n - 1 (body space) and n (dense) */
    for (int t = 0; t < 2; ++t) {
        lucid_world *v = pile(LUCID_CONTACT_NCP, n - 1 + t);
        assert_int_equal(lucid_world_set_state(v, x, NULL), LUCID_OK);
        assert_int_equal(lucid_world_step(v), LUCID_OK);
        lucid_contact_problem p;
        lucid_world_last_problem(v, &p, NULL);
        assert_int_equal(lucid_world_contact_count(v), n);
        assert_int_equal(p.n, t ? n : 0);
        lucid_world_destroy(v);
    }
    free(x);
}

/* The largest difference of the bodies' twists between two worlds, and the largest twist. */
static void twist_gap(const lucid_world *a, const lucid_world *b, double *gap, double *size) {
    int n = lucid_world_state_size(a);
    double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
    assert_non_null(x), assert_non_null(y);
    lucid_world_get_state(a, x), lucid_world_get_state(b, y);
    *gap = *size = 0.0;
    for (int k = 0; k < n; ++k)
        *gap = fmax(*gap, fabs(x[k] - y[k])), *size = fmax(*size, fabs(x[k]));
    free(x), free(y);
}

/* ADMM (ncp, ccp) and ccp:newton in body space against their dense paths, from the same
 * state every step: the same iterations with a different linear solve (sparse LDL of
 * H = M + J^T (R + rho I)^-1 J, or of Newton's M + J^T D J, instead of dense factors), so
 * wherever the dense solve meets tol (on the scaled criterion; Newton on its own) the
 * body-space one must too; and for the CCP, whose velocities are unique (the
 * primal is strongly convex in them), the states after two converged steps agree to what tol
 * allows (forces within tol F of the solution move a body of 0.125 kg by
 * dt tol F / m = 1.6e-8 over the 2 ms step; bound 1e-6). NCP velocities and hyperstatic
 * forces are not unique (singular G), so they are not compared. */
static void global_solvers_match_dense(void **state) {
    (void)state;
    const lucid_contact_model models[3] = {LUCID_CONTACT_NCP, LUCID_CONTACT_CCP, LUCID_CONTACT_CCP};
    const lucid_contact_solver solvers[3] = {LUCID_CONTACT_ADMM, LUCID_CONTACT_ADMM,
                                             LUCID_CONTACT_NEWTON};
    for (int mi = 0; mi < 3; ++mi) {
        lucid_world *dense = test_pile_world(models[mi], solvers[mi], 1000000),
                    *sparse = test_pile_world(models[mi], solvers[mi], 0);
        int size = lucid_world_state_size(dense), largest = 0, both = 0;
        double *x = malloc(sizeof(double) * (size_t)size);
        assert_non_null(x);
        /* the boxes turned into their neighbours are pushed apart first (at the correction
         * speed, ~30 steps): the comparison is made on the pile at rest */
        for (int s = 0; s < 60; ++s) assert_int_equal(lucid_world_step(dense), LUCID_OK);
        for (int step = 0; step < 12; ++step) {
            lucid_world_get_state(dense, x);
            assert_int_equal(lucid_world_set_state(dense, x, NULL), LUCID_OK);
            assert_int_equal(lucid_world_set_state(sparse, x, NULL), LUCID_OK);
            assert_int_equal(lucid_world_step(dense), LUCID_OK);
            assert_int_equal(lucid_world_step(sparse), LUCID_OK);
            int n = lucid_world_contact_count(dense);
            assert_int_equal(lucid_world_contact_count(sparse), n);
            lucid_world_stats sd = lucid_world_last_stats(dense),
                              ss = lucid_world_last_stats(sparse);
            assert_int_equal(ss.islands, sd.islands);
            lucid_contact_problem p;
            lucid_world_last_problem(sparse, &p, NULL);
            assert_int_equal(p.n, 0); /* solved in body space */
            if (sd.converged && !(ss.converged && ss.scaled_residual <= 1e-6))
                fail_msg("model %d step %d: body space %g, dense %g", mi, step, ss.scaled_residual,
                         sd.scaled_residual);
            double gap, big;
            twist_gap(dense, sparse, &gap, &big);
            if (models[mi] == LUCID_CONTACT_CCP && sd.converged && !(gap <= 1e-6))
                fail_msg("step %d: states differ by %g (largest %g)", step, gap, big);
            both += sd.converged && ss.converged;
            if (n > largest) largest = n;
        }
        printf("%s:%s pile at rest: %d of 12 steps converged on both paths\n",
               lucid_contact_model_name(models[mi]), lucid_contact_solver_name(solvers[mi]), both);
        assert_true(largest > 48);
        /* the comparison was made; ccp:admm meets tol on no step of the resting pile (its
         * gliding CCP rows), on either path, so it is compared only where it converges */
        int ccp_admm = models[mi] == LUCID_CONTACT_CCP && solvers[mi] == LUCID_CONTACT_ADMM;
        assert_true(both >= (ccp_admm ? 0 : 3));
        free(x);
        lucid_world_destroy(dense);
        lucid_world_destroy(sparse);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(body_space_matches_dense),
                                       cmocka_unit_test(global_solvers_match_dense),
                                       cmocka_unit_test(threshold_switches_paths)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
