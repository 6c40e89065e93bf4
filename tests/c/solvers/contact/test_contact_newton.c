/* ccp:newton on a contact problem of a heap of boxes (tests/data/contact/heap_n46.txt: the
 * largest island of the 50-box heap of bench_contact after 0.5 s, 46 contacts, 138 rows, G
 * singular): it used to run 1000 iterations without reaching 1e-6 (Armijo steps on the stiff
 * compliance 1e-8 diag G, and lambda = P(-R^-1 c) at a round-off floor of ~1e-4). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "tests/c/common/test_contact_dump.h"

/* The CCP criterion of lambda on the compliant problem Newton solves, recomputed here:
 * R = compliance x trace(G_ii) / 3 on every entry (the problem has R = NULL). */
static double compliant_ccp(const lucid_contact_problem *p, double compliance,
                            const double *lambda) {
    int m = 3 * p->n;
    double *R = calloc((size_t)m, sizeof(double)), *sigma = calloc((size_t)m, sizeof(double));
    for (int i = 0; i < p->n; ++i) {
        double trace = 0.0;
        for (int a = 0; a < 3; ++a) trace += p->G[(3 * i + a) * (m + 1)];
        for (int a = 0; a < 3; ++a) R[3 * i + a] = compliance * trace / 3.0;
    }
    for (int r = 0; r < m; ++r) {
        double s = p->g[r] + R[r] * lambda[r];
        for (int c = 0; c < m; ++c) s += p->G[r + (long)m * c] * lambda[c];
        sigma[r] = s;
    }
    lucid_contact_criteria out;
    lucid_contact_criteria_eval(p, LUCID_CRITERION_CCP, lambda, sigma, NULL, &out);
    free(R), free(sigma);
    return out.abs;
}

static lucid_contact_options newton_options(double tol, int warm) {
    lucid_contact_options o = lucid_contact_default_options();
    o.model = LUCID_CONTACT_CCP, o.solver = LUCID_CONTACT_NEWTON;
    o.tol = tol, o.max_iter = 1000, o.warm_start = warm;
    return o;
}

typedef struct heap {
    dumped d;
    lucid_contact_workspace *ws;
    double *lambda;
} heap;

static heap load_heap(void) {
    heap h;
    assert_true(load_dump("heap_n46.txt", 99, &h.d));
    h.ws = lucid_contact_workspace_create(h.d.t.p.n);
    h.lambda = calloc((size_t)(3 * h.d.t.p.n), sizeof(double));
    assert_non_null(h.ws);
    return h;
}

static void free_heap(heap *h) {
    lucid_contact_workspace_destroy(h->ws);
    test_problem_free(&h->d.t);
    free(h->d.lambda0), free(h->d.dual0), free(h->lambda);
}

/* Cold: converged to 1e-6 (criterion recomputed here) in few Newton iterations. */
static void cold_heap_solve_converges_in_few_iterations(void **state) {
    (void)state;
    heap h = load_heap();
    lucid_contact_options o = newton_options(1e-6, 0);
    lucid_contact_result res;
    assert_int_equal(lucid_contact_solve(&h.d.t.p, &o, h.ws, h.lambda, NULL, &res), LUCID_OK);
    assert_true(res.converged && !res.stalled);
    assert_true(res.iterations <= 40); /* 21 measured; 1000 (unconverged) before */
    assert_true(compliant_ccp(&h.d.t.p, o.newton_compliance, h.lambda) <= 1e-6);
    free_heap(&h);
}

/* The solve runs a continuation on R (1e6 R, 1e4 R, ...) and must end on R itself: the
 * answer at compliance 1e-8 meets the criterion recomputed at 1e-8, and the answer of the
 * stage before (compliance 1e-6, solved on its own) does not, so the check tells stages
 * apart. */
static void continuation_ends_on_the_compliant_problem(void **state) {
    (void)state;
    heap h = load_heap();
    int m = 3 * h.d.t.p.n;
    lucid_contact_options o = newton_options(1e-8, 0);
    lucid_contact_result res;
    assert_int_equal(lucid_contact_solve(&h.d.t.p, &o, h.ws, h.lambda, NULL, &res), LUCID_OK);
    assert_true(res.converged);
    assert_true(compliant_ccp(&h.d.t.p, 1e-8, h.lambda) <= 1e-8);
    double *softer = calloc((size_t)m, sizeof(double));
    o.newton_compliance = 1e-6;
    assert_int_equal(lucid_contact_solve(&h.d.t.p, &o, h.ws, softer, NULL, &res), LUCID_OK);
    assert_true(res.converged);
    assert_true(compliant_ccp(&h.d.t.p, 1e-6, softer) <= 1e-8);
    assert_true(compliant_ccp(&h.d.t.p, 1e-8, softer) > 1e-6);
    free(softer);
    free_heap(&h);
}

/* Warm start from the solution of the previous step (g moved as by one step of gravity on
 * the free velocity): few iterations. */
static void warm_heap_solve_takes_few_iterations(void **state) {
    (void)state;
    heap h = load_heap();
    lucid_contact_options o = newton_options(1e-6, 0);
    lucid_contact_result res;
    assert_int_equal(lucid_contact_solve(&h.d.t.p, &o, h.ws, h.lambda, NULL, &res), LUCID_OK);
    for (int i = 0; i < h.d.t.p.n; ++i) h.d.t.g[3 * i + 2] *= 1.001;
    o.warm_start = 1;
    assert_int_equal(lucid_contact_solve(&h.d.t.p, &o, h.ws, h.lambda, NULL, &res), LUCID_OK);
    assert_true(res.converged && res.iterations <= 40); /* 19 measured */
    assert_true(compliant_ccp(&h.d.t.p, o.newton_compliance, h.lambda) <= 1e-6);
    free_heap(&h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cold_heap_solve_converges_in_few_iterations),
        cmocka_unit_test(continuation_ends_on_the_compliant_problem),
        cmocka_unit_test(warm_heap_solve_takes_few_iterations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
