/* Anderson acceleration (solvers/contact/contact_anderson.h) on an affine contraction against
 * its closed-form fixed point, and its effect on ADMM: iteration bounds on the dumped heap and
 * stack problems (cold, and warm from a perturbed solution) that the unaccelerated ADMM
 * missed by 3-10x (docs/contact.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "solvers/contact/contact_anderson.h"
#include "tests/c/common/test_contact_dump.h"

#define DIM 8

/* T(u) = M u + c, M tridiagonal with 0.49 off the diagonal: symmetric, eigenvalues
 * 0.98 cos(k pi / 9), so the plain iteration contracts by only ~0.93 a step. */
static void affine_map(const double *u, double *out) {
    for (int i = 0; i < DIM; ++i) {
        double left = i > 0 ? u[i - 1] : 0.0, right = i + 1 < DIM ? u[i + 1] : 0.0;
        out[i] = 0.49 * (left + right) + (double)(i % 3) - 1.0;
    }
}

/* (I - M) u = c by Gaussian elimination (tridiagonal, diagonally dominant). */
static void closed_form(double *u) {
    double diag[DIM], rhs[DIM];
    for (int i = 0; i < DIM; ++i) diag[i] = 1.0, rhs[i] = (double)(i % 3) - 1.0;
    for (int i = 1; i < DIM; ++i) {
        double factor = -0.49 / diag[i - 1];
        diag[i] -= factor * -0.49;
        rhs[i] -= factor * rhs[i - 1];
    }
    for (int i = DIM - 1; i >= 0; --i)
        u[i] = (rhs[i] - (i + 1 < DIM ? -0.49 * u[i + 1] : 0.0)) / diag[i];
}

static double distance(const double *x, const double *y) {
    double d = 0.0;
    for (int i = 0; i < DIM; ++i) d = fmax(d, fabs(x[i] - y[i]));
    return d;
}

/* Runs `steps` accelerated (memory > 0) or plain steps from u = 0; returns the distance to the
 * fixed point. */
static double iterate_affine(int memory, int steps) {
    double storage[(2 * LUCID_ANDERSON_MAX_MEMORY + 3) * DIM], u[DIM] = {0}, g[DIM], star[DIM];
    assert_true(lucid_anderson_storage(DIM, memory) <= (int)(sizeof storage / sizeof *storage));
    lucid_anderson a;
    lucid_anderson_init(&a, DIM, memory, storage);
    for (int k = 0; k < steps; ++k) {
        affine_map(u, g);
        lucid_anderson_step(&a, u, g);
        memcpy(u, g, sizeof u);
    }
    closed_form(star);
    return distance(u, star);
}

/* On an affine map Anderson with a memory of the dimension is GMRES: the fixed point to
 * round-off within DIM + 2 steps, where the plain iteration is still ~1e-1 away. */
static void anderson_solves_an_affine_fixed_point(void **state) {
    (void)state;
    assert_true(iterate_affine(0, DIM + 2) > 1e-2);
    assert_true(iterate_affine(LUCID_ANDERSON_MAX_MEMORY, DIM + 2) < 1e-10);
    /* a short memory still converges, much faster than the plain iteration */
    assert_true(iterate_affine(3, 40) < 1e-8);
    assert_true(iterate_affine(0, 40) > 1e-3);
}

/* Memory 0 is the plain iteration, and reads no storage. */
static void anderson_without_memory_is_the_plain_step(void **state) {
    (void)state;
    lucid_anderson a;
    lucid_anderson_init(&a, DIM, 0, NULL);
    double u[DIM] = {0}, g[DIM], plain[DIM];
    for (int k = 0; k < 5; ++k) {
        affine_map(u, g);
        memcpy(plain, g, sizeof g);
        lucid_anderson_step(&a, u, g);
        assert_true(distance(g, plain) == 0.0);
        memcpy(u, g, sizeof u);
    }
}

/* Iterations of model:admm to 1e-6 on the dump, cold or warm from its own 1e-8 solution (or
 * the point where that solve stalled, within 2e-7 for ccp on the heap) with
 * every impulse perturbed by 1e-3 relative (and gamma from the velocity). */
static int admm_iterations(const char *file, lucid_contact_model model, int warm) {
    dumped d;
    assert_true(load_dump(file, 64, &d));
    int n = d.t.p.n, m = 3 * n;
    lucid_contact_workspace *ws = lucid_contact_workspace_create(n);
    assert_non_null(ws);
    double *l = calloc((size_t)m, sizeof(double));
    lucid_contact_options o = lucid_contact_default_options();
    o.model = model, o.solver = LUCID_CONTACT_ADMM, o.max_iter = 20000;
    lucid_contact_result res;
    if (warm) {
        o.tol = 1e-8;
        assert_int_equal(lucid_contact_solve(&d.t.p, &o, ws, l, NULL, &res), LUCID_OK);
        test_rng r = {12345};
        for (int k = 0; k < m; ++k) l[k] *= 1.0 + 1e-3 * test_normal(&r);
    }
    o.tol = 1e-6, o.warm_start = warm;
    assert_int_equal(lucid_contact_solve(&d.t.p, &o, ws, l, NULL, &res), LUCID_OK);
    assert_true(res.converged);
    assert_true(res.model.abs <= 1e-6);
    lucid_contact_workspace_destroy(ws);
    test_problem_free(&d.t);
    free(d.lambda0), free(d.dual0), free(l);
    return res.iterations;
}

/* Bounds at ~2x the accelerated counts (cold / warm: heap ncp 188 / 125, ccp 249 / 135;
 * stack ncp 123 / 58), each of which the plain ADMM missed (1258 / 422, 1881 / 1429,
 * 1169 / 866). */
static void accelerated_admm_meets_iteration_bounds(void **state) {
    (void)state;
    assert_true(admm_iterations("heap_n46.txt", LUCID_CONTACT_NCP, 0) <= 400);
    assert_true(admm_iterations("heap_n46.txt", LUCID_CONTACT_NCP, 1) <= 250);
    assert_true(admm_iterations("heap_n46.txt", LUCID_CONTACT_CCP, 0) <= 500);
    assert_true(admm_iterations("heap_n46.txt", LUCID_CONTACT_CCP, 1) <= 300);
    assert_true(admm_iterations("stack4_n18.txt", LUCID_CONTACT_NCP, 0) <= 300);
    assert_true(admm_iterations("stack4_n18.txt", LUCID_CONTACT_NCP, 1) <= 150);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(anderson_solves_an_affine_fixed_point),
        cmocka_unit_test(anderson_without_memory_is_the_plain_step),
        cmocka_unit_test(accelerated_admm_meets_iteration_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
