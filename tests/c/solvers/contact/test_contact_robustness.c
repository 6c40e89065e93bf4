/* Robustness of every model x solver pair on singular Delassus matrices (hyperstatic contact
 * sets: more contact rows than body degrees of freedom) and on non-finite candidates:
 * problems dumped from the rigid-body world (tests/data/contact), random boxes resting on a
 * plane with 8 contact points and rows of touching boxes, criteria of NaN / Inf / overflowing
 * candidates, and a problem whose solution overflows. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "solvers/contact/contact_admm.h"
#include "tests/c/common/test_contact_dump.h"

#define TOL 1e-6

static int all_finite(const double *x, int count) {
    for (int k = 0; k < count; ++k)
        if (!isfinite(x[k])) return 0;
    return 1;
}

static const char *pair_name(pair pr, char *buffer, size_t size) {
    snprintf(buffer, size, "%s:%s", lucid_contact_model_name(pr.model),
             lucid_contact_solver_name(pr.solver));
    return buffer;
}

/* Every pair with its default options, including the primal Newton's default compliance (its
 * velocity is updated incrementally, so its precision floor no longer scales with 1 / R). */
static lucid_contact_options options_for(pair pr) {
    lucid_contact_options o = lucid_contact_default_options();
    o.model = pr.model, o.solver = pr.solver, o.tol = TOL, o.max_iter = 20000;
    return o;
}

/* The report matches the returned lambda: its NCP criterion recomputed here. */
static void check_report(const lucid_contact_problem *p, const double *l,
                         const lucid_contact_result *res) {
    int m = 3 * p->n;
    double *sigma = calloc((size_t)m + 1, sizeof(double));
    lucid_contact_velocity(p, l, sigma);
    lucid_contact_criteria ncp;
    lucid_contact_criteria_eval(p, LUCID_CRITERION_NCP, l, sigma, NULL, &ncp);
    assert_true(fabs(ncp.abs - res->ncp.abs) <= 1e-12 * fmax(1.0, ncp.abs));
    free(sigma);
}

/* Solves p with pair pr from the given warm start (lambda0, dual0 may be NULL: cold) and
 * checks a finite, converged answer to TOL (the NCP criterion too for the NCP models). */
static void solve_and_check(const lucid_contact_problem *p, pair pr, const double *lambda0,
                            const double *dual0, const char *what) {
    int m = 3 * p->n;
    double *l = calloc((size_t)m + 1, sizeof(double)), *d = calloc((size_t)m + 1, sizeof(double));
    lucid_contact_options o = options_for(pr);
    o.warm_start = lambda0 != NULL;
    if (lambda0) memcpy(l, lambda0, sizeof(double) * (size_t)m);
    if (dual0) memcpy(d, dual0, sizeof(double) * (size_t)m);
    lucid_contact_workspace *ws = lucid_contact_workspace_create(p->n);
    assert_non_null(ws);
    lucid_contact_result res;
    assert_int_equal(lucid_contact_solve(p, &o, ws, l, dual0 ? d : NULL, &res), LUCID_OK);
    char name[64];
    if (!res.converged || res.diverged || !all_finite(l, m))
        fprintf(stderr, "%s %s: converged %d diverged %d model %.3g after %d iterations\n", what,
                pair_name(pr, name, sizeof name), res.converged, res.diverged, res.model.abs,
                res.iterations);
    assert_true(all_finite(l, m));
    assert_false(res.diverged);
    assert_true(res.converged);
    assert_true(res.model.abs <= TOL);
    if (pr.model == LUCID_CONTACT_NCP) assert_true(res.ncp.abs <= TOL);
    check_report(p, l, &res);
    lucid_contact_workspace_destroy(ws);
    free(l), free(d);
}

/* --- problems dumped from the world ------------------------------------------------------- */

/* Loads a dump or fails the test. */
static dumped load(const char *file) {
    dumped d;
    assert_true(load_dump(file, 99, &d));
    return d;
}

static const char *const dumps[] = {"world_n5.txt", "world_n8.txt", "world_n10.txt",
                                    "stack3_n12.txt", "stack4_n18.txt"};

/* The world's problems, which made ncp:admm diverge (1e124), return NaN or 1e159 with
 * converged = 1, or crawl: every pair solves them warm (lambda and dual as the world passed
 * them, or lambda only) and cold. */
static void dumped_world_problems_are_solved_by_every_pair(void **state) {
    (void)state;
    for (size_t k = 0; k < sizeof dumps / sizeof dumps[0]; ++k) {
        dumped d = load(dumps[k]);
        for (int q = 0; q < PAIRS; ++q) {
            solve_and_check(&d.t.p, all_pairs[q], d.lambda0, d.dual0, dumps[k]);
            solve_and_check(&d.t.p, all_pairs[q], d.lambda0, NULL, dumps[k]);
            solve_and_check(&d.t.p, all_pairs[q], NULL, NULL, dumps[k]);
        }
        test_problem_free(&d.t);
        free(d.lambda0), free(d.dual0);
    }
}

/* The dumped G really is singular (what the fixes are about): rank <= 6 x bodies < 3n. */
static void dumped_problems_have_singular_delassus(void **state) {
    (void)state;
    dumped d = load("world_n8.txt"); /* one box on the ground: 24 rows, 6 DOFs */
    int m = 3 * d.t.p.n;
    /* Cholesky of G + tiny I has a pivot of the size of tiny: G is singular. */
    double *A = calloc((size_t)m * m, sizeof(double));
    memcpy(A, d.t.G, sizeof(double) * (size_t)m * m);
    double small = INFINITY;
    for (int j = 0; j < m; ++j) {
        for (int k = 0; k < j; ++k) A[j + m * j] -= A[j + m * k] * A[j + m * k];
        A[j + m * j] += 1e-12;
        double pivot = sqrt(fmax(A[j + m * j], 1e-300));
        small = fmin(small, pivot * pivot);
        A[j + m * j] = pivot;
        for (int i = j + 1; i < m; ++i) {
            for (int k = 0; k < j; ++k) A[i + m * j] -= A[i + m * k] * A[j + m * k];
            A[i + m * j] /= pivot;
        }
    }
    assert_true(small < 1e-9);
    free(A);
    test_problem_free(&d.t);
    free(d.lambda0), free(d.dual0);
}

/* --- random hyperstatic problems ----------------------------------------------------------- */

/* A rigid body: centre, 1 / mass, inverse inertia (diagonal, world axes = box axes). */
typedef struct body {
    double c[3], inv_mass, inv_inertia[3];
} body;

static body box_body(double x, double half, double mass) {
    double inertia = mass * (2.0 * half) * (2.0 * half) / 6.0; /* cube: m (2h)^2 / 6 */
    body b = {{x, 0.0, half}, 1.0 / mass, {1.0 / inertia, 1.0 / inertia, 1.0 / inertia}};
    return b;
}

/* Contact rows: direction d at point p, between body a (-1: ground) and body b. */
typedef struct contact_row {
    int a, b;
    double p[3], d[3];
} contact_row;

static void cross(const double u[3], const double v[3], double out[3]) {
    out[0] = u[1] * v[2] - u[2] * v[1];
    out[1] = u[2] * v[0] - u[0] * v[2];
    out[2] = u[0] * v[1] - u[1] * v[0];
}

/* Row of J (6 nb entries): relative velocity of b w.r.t. a at p along d. */
static void jacobian_row(const contact_row *r, const body *bodies, int nb, double *row) {
    memset(row, 0, sizeof(double) * 6 * (size_t)nb);
    int ids[2] = {r->b, r->a};
    for (int s = 0; s < 2; ++s) {
        if (ids[s] < 0) continue;
        const body *bd = bodies + ids[s];
        double arm[3] = {r->p[0] - bd->c[0], r->p[1] - bd->c[1], r->p[2] - bd->c[2]}, ang[3];
        cross(arm, r->d, ang);
        double sign = s == 0 ? 1.0 : -1.0;
        for (int k = 0; k < 3; ++k)
            row[6 * ids[s] + k] = sign * r->d[k], row[6 * ids[s] + 3 + k] = sign * ang[k];
    }
}

/* G = J M^-1 J^T and g = J v_free for contacts given as 3 rows each (t1, t2, n). */
static test_problem assemble(const contact_row *rows, int n, const body *bodies, int nb,
                             const double *v_free, const double *mu) {
    test_problem t = test_problem_alloc(n);
    int m = 3 * n, dofs = 6 * nb;
    double *J = calloc((size_t)m * dofs, sizeof(double)), *row = calloc((size_t)dofs, 8);
    for (int i = 0; i < m; ++i) {
        jacobian_row(rows + i, bodies, nb, row);
        for (int k = 0; k < dofs; ++k) J[i + (long)m * k] = row[k];
    }
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < m; ++j) {
            double s = 0.0;
            for (int k = 0; k < dofs; ++k) {
                const body *bd = bodies + k / 6;
                double w = k % 6 < 3 ? bd->inv_mass : bd->inv_inertia[k % 6 - 3];
                s += J[i + (long)m * k] * w * J[j + (long)m * k];
            }
            t.G[i + m * j] = s;
        }
        double s = 0.0;
        for (int k = 0; k < dofs; ++k) s += J[i + (long)m * k] * v_free[k];
        t.g[i] = s;
    }
    for (int i = 0; i < n; ++i) t.mu[i] = mu[i];
    free(J), free(row);
    return t;
}

/* Contact at p between a and b with normal axis `normal` (0 x, 2 z), tangents the others. */
static void add_contact(contact_row *rows, int *n, int a, int b, const double p[3], int normal) {
    int t1 = normal == 2 ? 0 : 1, t2 = normal == 2 ? 1 : 2, axes[3] = {t1, t2, normal};
    for (int k = 0; k < 3; ++k) {
        contact_row *r = rows + 3 * *n + k;
        r->a = a, r->b = b;
        memcpy(r->p, p, sizeof r->p);
        memset(r->d, 0, sizeof r->d);
        r->d[axes[k]] = 1.0;
    }
    ++*n;
}

/* nb boxes in a row along x on the ground (4 corner contacts each, or 8 points: corners
 * and edge midpoints when nb = 1) and 4 contacts on each shared face; free velocity:
 * gravity over dt, plus random horizontal velocities (sliding, pushing into the neighbour). */
static test_problem boxes_problem(int nb, test_rng *rng) {
    enum { MAX_BODIES = 4 };
    body bodies[MAX_BODIES];
    contact_row rows[3 * 8 * MAX_BODIES];
    double v_free[6 * MAX_BODIES] = {0}, mu[8 * MAX_BODIES];
    double half = 0.05 + 0.15 * test_uniform(rng), dt = 1e-3;
    int n = 0;
    for (int b = 0; b < nb; ++b) {
        bodies[b] = box_body(2.0 * half * b, half, 0.5 + 1.5 * test_uniform(rng));
        const double *c = bodies[b].c;
        for (int k = 0; k < (nb == 1 ? 8 : 4); ++k) {
            /* corners (k < 4), then edge midpoints */
            double sx = k < 4 ? (k & 1 ? 1 : -1) : (k == 4 ? 1 : k == 5 ? -1 : 0);
            double sy = k < 4 ? (k & 2 ? 1 : -1) : (k == 6 ? 1 : k == 7 ? -1 : 0);
            double p[3] = {c[0] + sx * half, c[1] + sy * half, 0.0};
            add_contact(rows, &n, -1, b, p, 2);
        }
        if (b > 0)
            for (int k = 0; k < 4; ++k) {
                double p[3] = {c[0] - half, (k & 1 ? 1 : -1) * half,
                               half + (k & 2 ? 1 : -1) * half};
                add_contact(rows, &n, b - 1, b, p, 0);
            }
        v_free[6 * b + 0] = 0.3 * test_normal(rng);
        v_free[6 * b + 1] = 0.3 * test_normal(rng);
        v_free[6 * b + 2] = -9.81 * dt;
        v_free[6 * b + 5] = 0.5 * test_normal(rng); /* spin about the normal */
    }
    for (int i = 0; i < n; ++i) mu[i] = 0.2 + 0.8 * test_uniform(rng);
    return assemble(rows, n, bodies, nb, v_free, mu);
}

/* A box on a plane with 8 contact points (24 rows, 6 DOFs) and rows of 2-3 touching boxes
 * (36-60 rows, 12-18 DOFs), random sizes, masses, friction and sliding / spinning / pushing
 * velocities: every pair reaches the tolerance with finite impulses, cold. */
static void random_hyperstatic_problems_are_solved_by_every_pair(void **state) {
    (void)state;
    test_rng rng = {12345};
    for (int trial = 0; trial < 6; ++trial) {
        int nb = 1 + trial % 3;
        test_problem t = boxes_problem(nb, &rng);
        for (int q = 0; q < PAIRS; ++q) solve_and_check(&t.p, all_pairs[q], NULL, NULL, "boxes");
        test_problem_free(&t);
    }
}

/* A box at rest on a plane (8 points, g = gravity on the normals only): the contact forces
 * hold it, so their sum is its weight m g and their moment about the centre vanishes. In
 * forces (the paper's lambda / dt, Sec. II): with impulses of ~1e-3 the absolute
 * complementarity |lambda sigma| <= 1e-6 would let the velocity err by 1e-3. */
static void resting_box_gets_its_weight_from_every_pair(void **state) {
    (void)state;
    test_rng rng = {777};
    for (int trial = 0; trial < 3; ++trial) {
        double half = 0.05 + 0.15 * test_uniform(&rng), mass = 0.5 + 1.5 * test_uniform(&rng);
        body b = box_body(0.0, half, mass);
        contact_row rows[24];
        double v_free[6] = {0, 0, -9.81, 0, 0, 0}, mu[8];
        int n = 0;
        for (int k = 0; k < 8; ++k) {
            double sx = k < 4 ? (k & 1 ? 1 : -1) : (k == 4 ? 1 : k == 5 ? -1 : 0);
            double sy = k < 4 ? (k & 2 ? 1 : -1) : (k == 6 ? 1 : k == 7 ? -1 : 0);
            double p[3] = {sx * half, sy * half, 0.0};
            add_contact(rows, &n, -1, 0, p, 2);
            mu[k] = 0.5;
        }
        test_problem t = assemble(rows, n, &b, 1, v_free, mu);
        for (int q = 0; q < PAIRS; ++q) {
            lucid_contact_options o = options_for(all_pairs[q]);
            double l[24];
            lucid_contact_workspace *ws = lucid_contact_workspace_create(8);
            lucid_contact_result res;
            assert_int_equal(lucid_contact_solve(&t.p, &o, ws, l, NULL, &res), LUCID_OK);
            lucid_contact_workspace_destroy(ws);
            assert_true(res.converged && all_finite(l, 24));
            double force[3] = {0, 0, 0}, moment[3] = {0, 0, 0};
            for (int i = 0; i < 8; ++i) {
                double f[3] = {l[3 * i], l[3 * i + 1], l[3 * i + 2]}, arm[3], mo[3];
                for (int k = 0; k < 3; ++k) arm[k] = rows[3 * i].p[k] - b.c[k];
                cross(arm, f, mo);
                for (int k = 0; k < 3; ++k) force[k] += f[k], moment[k] += mo[k];
            }
            double weight = mass * 9.81;
            /* the mean normal velocity v is at most TOL / sum(lambda_N) (complementarity): the
             * force error m v is ~1e-7 of the weight (ccp:newton: its compliance, 1e-6) */
            assert_true(fabs(force[2] - weight) <= 1e-5 * weight);
            assert_true(fabs(force[0]) <= 1e-5 * weight && fabs(force[1]) <= 1e-5 * weight);
            for (int k = 0; k < 3; ++k) assert_true(fabs(moment[k]) <= 1e-5 * weight * half);
        }
        test_problem_free(&t);
    }
}

/* --- criteria and divergence ---------------------------------------------------------------- */

/* A candidate holding NaN or Inf, or one whose complementarity overflows (1e200 x 1e200) or is
 * NaN (Inf - Inf), has infinite residuals: fmax would have dropped the NaN and reported 0. */
static void criteria_of_nonfinite_candidates_are_infinite(void **state) {
    (void)state;
    test_problem t = test_random_problem(2, 3);
    const lucid_contact_criterion kinds[3] = {LUCID_CRITERION_NCP, LUCID_CRITERION_CCP,
                                              LUCID_CRITERION_LCP};
    const double bad[4] = {NAN, INFINITY, -INFINITY, 1e200};
    for (int kind = 0; kind < 3; ++kind)
        for (int b = 0; b < 4; ++b)
            for (int slot = 0; slot < 12; ++slot) {
                /* a feasible, complementary candidate, then one bad entry in lambda (slot < 6)
                 * or sigma; 1e200 goes into both normals of the slot's contact (overflow) */
                double l[6] = {0, 0, 0, 0, 0, 1}, s[6] = {0, 0, 1, 0, 0, 0}, per[6];
                int index = slot % 6, contact = index / 3;
                if (bad[b] == 1e200)
                    l[3 * contact + 2] = s[3 * contact + 2] = 1e200;
                else if (slot < 6)
                    l[index] = bad[b];
                else
                    s[index] = bad[b];
                lucid_contact_criteria c;
                lucid_contact_criteria_eval(&t.p, kinds[kind], l, s, per, &c);
                assert_true(isinf(c.abs) && c.abs > 0);
                assert_true(isinf(c.scaled) && c.scaled > 0);
                assert_true(isinf(per[3 * contact]) || isinf(per[3 * contact + 1]) ||
                            isinf(per[3 * contact + 2]));
                for (int k = 0; k < 6; ++k) assert_false(isnan(per[k]));
            }
    /* the same candidates without the bad entry are exactly complementary: criterion 0 */
    double l[6] = {0, 0, 0, 0, 0, 1}, s[6] = {0, 0, 1, 0, 0, 0};
    lucid_contact_criteria c;
    lucid_contact_criteria_eval(&t.p, LUCID_CRITERION_NCP, l, s, NULL, &c);
    assert_true(c.abs == 0.0);
    test_problem_free(&t);
}

/* A valid problem whose solution overflows (G = 1e-300 I, g_N = -1e10: lambda_N = 1e310):
 * no pair may report convergence or return a non-finite impulse; a solver that diverged says
 * so and returns lambda = 0 with the criteria of that zero. */
static void diverging_solves_return_a_defined_result(void **state) {
    (void)state;
    test_problem t = test_problem_alloc(2);
    for (int k = 0; k < 6; ++k) t.G[k + 6 * k] = 1e-300;
    t.g[2] = t.g[5] = -1e10;
    t.mu[0] = t.mu[1] = 0.5;
    int diverged = 0;
    for (int q = 0; q < PAIRS; ++q) {
        lucid_contact_options o = options_for(all_pairs[q]);
        o.max_iter = 50;
        double l[6], d[6];
        lucid_contact_workspace *ws = lucid_contact_workspace_create(2);
        lucid_contact_result res;
        lucid_status s = lucid_contact_solve(&t.p, &o, ws, l, d, &res);
        lucid_contact_workspace_destroy(ws);
        if (s != LUCID_OK) continue; /* e.g. ccp:newton: an R of 1e-308 is refused */
        char name[64];
        if (res.converged)
            fprintf(stderr, "overflowing problem, %s: converged, model %.3g\n",
                    pair_name(all_pairs[q], name, sizeof name), res.model.abs);
        assert_false(res.converged);
        assert_true(all_finite(l, 6));
        if (res.diverged) {
            ++diverged;
            for (int k = 0; k < 6; ++k) assert_true(l[k] == 0.0);
            if (all_pairs[q].solver == LUCID_CONTACT_ADMM)
                for (int k = 0; k < 6; ++k) assert_true(d[k] == 0.0);
            /* criteria of lambda = 0: sigma = g, the normal is approaching: dual residual 1e10 */
            assert_true(fabs(res.ncp.abs - 1e10) <= 1e-6 * 1e10);
            assert_false(res.stalled);
        }
    }
    assert_true(diverged > 0); /* the guard was exercised, not only the solvers' own care */
    test_problem_free(&t);
}

/* The spectral rule on PSD spectra: round-off zeros are the null space, eig_min the smallest
 * eigenvalue above it, rho0 = eig_min when singular, sqrt(eig_min eig_max) when definite;
 * kappa finite; adaptation keeps rho within [eig_min, eig_max]; indefinite is refused. */
static void spectral_rho_on_singular_spectra(void **state) {
    (void)state;
    lucid_contact_admm s;
    memset(&s, 0, sizeof s);
    const double singular[5] = {-3e-15, 0.0, 2e-14, 0.25, 4.0};
    assert_int_equal(lucid_contact_admm_set_spectrum(&s, singular, 5), LUCID_OK);
    assert_true(s.singular && s.eig_min == 0.25 && s.eig_max == 4.0);
    assert_true(lucid_contact_admm_spectral_rho(&s) == 0.25);
    assert_true(lucid_contact_admm_kappa(&s) == 16.0);
    const double definite[3] = {0.25, 1.0, 4.0};
    assert_int_equal(lucid_contact_admm_set_spectrum(&s, definite, 3), LUCID_OK);
    assert_false(s.singular);
    assert_true(fabs(lucid_contact_admm_spectral_rho(&s) - 1.0) < 1e-15);
    const double indefinite[3] = {-0.1, 1.0, 4.0}, zero[2] = {0.0, 0.0};
    assert_int_equal(lucid_contact_admm_set_spectrum(&s, indefinite, 3), LUCID_ERR_NOT_SPD);
    assert_int_equal(lucid_contact_admm_set_spectrum(&s, zero, 2), LUCID_ERR_NOT_SPD);
    /* the dual residual dominating forever: rho decreases to eig_min and stays there */
    assert_int_equal(lucid_contact_admm_set_spectrum(&s, singular, 5), LUCID_OK);
    s.rho = 1.0, s.primal_residual = 0.0, s.dual_residual = 1.0;
    s.force_scale = s.velocity_scale = 1.0;
    for (int k = 0; k < 100; ++k) lucid_contact_admm_adapt(&s, 10.0, 0.5);
    assert_true(s.rho == 0.25);
    s.primal_residual = 1.0, s.dual_residual = 0.0; /* and up to eig_max */
    for (int k = 0; k < 100; ++k) lucid_contact_admm_adapt(&s, 10.0, 0.5);
    assert_true(s.rho == 4.0);
}

/* The first iteration (checked every `period`) at which a criterion r(k) is hopeless by the
 * forecast (tol 1e-6, max_iter 200), 0 when never up to 200. */
static int hopeless_at(double (*r)(int), int period) {
    lucid_contact_admm_forecast f;
    lucid_contact_admm_forecast_init(&f);
    for (int k = 1; k <= 200; k += period)
        if (lucid_contact_admm_hopeless(&f, k, r(k), 1e-6, 200)) return k;
    return 0;
}
static double linear_to_tol_by_150(int k) { /* 1e2 at k = 0 to 1e-6 at k = 150 */
    return 1e2 * pow(1e-8, k / 150.0);
}
static double linear_to_tol_by_400(int k) {
    return 1e2 * pow(1e-8, k / 400.0);
}
static double stuck_far(int k) { /* the cold Allegro grasp's: falls, then wanders at ~0.3 */
    return k < 40 ? 1e2 * pow(0.9, k) : 0.3 + 0.2 * sin(k);
}
static double stuck_near(int k) { /* a warm solve crawling within 1e3 tol: left to finish */
    return 2e-5 + 1e-5 * sin(k);
}
static double converging_with_nans(int k) { /* NaN at every even check */
    return k % 2 ? linear_to_tol_by_150(k) : NAN;
}

/* The forecast that ends ADMM early for a caller with a better next attempt: a geometric
 * decrease that reaches tol within max_iter (or within the margin of it) is never stopped; one
 * that needs twice max_iter is, at its second window; a stagnating criterion far from tol is,
 * near tol (within LUCID_CONTACT_ADMM_FORECAST_FAR tol) never; NaN criteria are not records. */
static void admm_forecast_stops_only_hopeless_solves(void **state) {
    (void)state;
    assert_int_equal(hopeless_at(linear_to_tol_by_150, 1), 0);
    assert_int_equal(hopeless_at(linear_to_tol_by_150, 4), 0);
    int k = hopeless_at(linear_to_tol_by_400, 1);
    assert_int_equal(k, 2 * LUCID_CONTACT_ADMM_FORECAST_WINDOW);
    k = hopeless_at(stuck_far, 4);
    assert_true(k > 40 && k <= 40 + 2 * LUCID_CONTACT_ADMM_FORECAST_WINDOW + 4);
    assert_int_equal(hopeless_at(stuck_near, 2), 0);
    assert_int_equal(hopeless_at(converging_with_nans, 1), 0);
}

/* ncp:admm warm started from lambda with dual NULL: the answer, its iterations and criterion. */
typedef struct warm_answer {
    double *lambda, *dual;
    int iterations;
    double abs;
} warm_answer;

static warm_answer solve_warm(const dumped *d, const double *dual0, int derive) {
    int m = 3 * d->t.p.n;
    warm_answer a = {calloc((size_t)m, sizeof(double)), NULL, 0, 0.0};
    lucid_contact_options o = options_for((pair){LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM});
    o.warm_start = 1, o.max_iter = 200, o.derive_dual = derive;
    memcpy(a.lambda, d->lambda0, sizeof(double) * (size_t)m);
    if (dual0) {
        a.dual = calloc((size_t)m, sizeof(double));
        memcpy(a.dual, dual0, sizeof(double) * (size_t)m);
    }
    lucid_contact_workspace *ws = lucid_contact_workspace_create(d->t.p.n);
    lucid_contact_result res;
    assert_int_equal(lucid_contact_solve(&d->t.p, &o, ws, a.lambda, a.dual, &res), LUCID_OK);
    assert_false(res.diverged);
    a.iterations = res.iterations, a.abs = res.model.abs;
    lucid_contact_workspace_destroy(ws);
    return a;
}

/* derive_dual starts ADMM's multiplier from lambda whatever dual holds (NaN, 1e300: never
 * read), exactly as dual = NULL does, and still writes the multiplier into dual. Without it a
 * NaN dual is refused (LUCID_ERR_NONFINITE) and a given dual changes the iterates (stack4's
 * dumped dual is inconsistent with its lambda). */
static void derive_dual_starts_from_lambda_alone(void **state) {
    (void)state;
    dumped d = load("stack4_n18.txt");
    int m = 3 * d.t.p.n;
    double *nan = malloc(sizeof(double) * (size_t)m), *huge = malloc(sizeof(double) * (size_t)m);
    for (int k = 0; k < m; ++k) nan[k] = NAN, huge[k] = 1e300;
    warm_answer none = solve_warm(&d, NULL, 0), a = solve_warm(&d, nan, 1),
                b = solve_warm(&d, huge, 1), given = solve_warm(&d, d.dual0, 0);
    assert_int_equal(a.iterations, none.iterations);
    assert_int_equal(b.iterations, none.iterations);
    assert_memory_equal(a.lambda, none.lambda, sizeof(double) * (size_t)m);
    assert_memory_equal(b.lambda, none.lambda, sizeof(double) * (size_t)m);
    assert_memory_equal(a.dual, b.dual, sizeof(double) * (size_t)m);
    assert_true(all_finite(a.dual, m) && lucid_contact_max_abs(a.dual, m) > 0.0);
    assert_true(given.iterations != none.iterations || given.abs != none.abs);
    /* without derive_dual the NaN dual is read, and refused */
    lucid_contact_options o = options_for((pair){LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM});
    o.warm_start = 1;
    lucid_contact_workspace *ws = lucid_contact_workspace_create(d.t.p.n);
    lucid_contact_result res;
    double *l = malloc(sizeof(double) * (size_t)m);
    memcpy(l, d.lambda0, sizeof(double) * (size_t)m);
    assert_int_equal(lucid_contact_solve(&d.t.p, &o, ws, l, nan, &res), LUCID_ERR_NONFINITE);
    lucid_contact_workspace_destroy(ws);
    warm_answer all[] = {none, a, b, given};
    for (int k = 0; k < 4; ++k) free(all[k].lambda), free(all[k].dual);
    free(l), free(nan), free(huge);
    test_problem_free(&d.t);
    free(d.lambda0), free(d.dual0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spectral_rho_on_singular_spectra),
        cmocka_unit_test(admm_forecast_stops_only_hopeless_solves),
        cmocka_unit_test(dumped_problems_have_singular_delassus),
        cmocka_unit_test(dumped_world_problems_are_solved_by_every_pair),
        cmocka_unit_test(derive_dual_starts_from_lambda_alone),
        cmocka_unit_test(random_hyperstatic_problems_are_solved_by_every_pair),
        cmocka_unit_test(resting_box_gets_its_weight_from_every_pair),
        cmocka_unit_test(criteria_of_nonfinite_candidates_are_infinite),
        cmocka_unit_test(diverging_solves_return_a_defined_result),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
