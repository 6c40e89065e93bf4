/* The island solve's policy (runtime/world/world_island_solve.c) on a scripted backend: each
 * attempt's answer and criterion are given, so the order of the attempts, which answer is kept
 * and what stats it reports can be checked exactly, independently of any solver. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/world/world_internal.h"
#include "solvers/contact/contact_round_off.h"

/* One contact; an attempt's answer is lambda = (0, 0, id), its criterion criterion[id]. The
 * ids: 0 lambda = 0, 1 warm ADMM, 2 cold ADMM, 3 PGS, 4 ip. NaN criterion: a non-finite answer. */
enum { ZERO, WARM_ADMM, COLD_ADMM, PGS_SWEEPS, IP_SOLVE, IDS };

typedef struct script {
    double criterion[IDS];
    int order[8], made; /* the ids of the attempts, in order */
    int round_offs;     /* calls of the round-off bound */
    double round_off;   /* its value */
    double lambda[3], dual[3], spare[12];
} script;

static int id_of(const lucid_contact_options *o) {
    if (o->solver == LUCID_CONTACT_PGS) return PGS_SWEEPS;
    if (o->solver == LUCID_CONTACT_IP) return IP_SOLVE;
    return o->warm_start ? WARM_ADMM : COLD_ADMM;
}

static lucid_status scripted_solve(void *ctx, const lucid_contact_options *o, double *dual,
                                   lucid_contact_result *res) {
    script *sc = ctx;
    int id = id_of(o);
    sc->order[sc->made++] = id;
    sc->lambda[0] = sc->lambda[1] = 0.0, sc->lambda[2] = id;
    if (dual) dual[0] = dual[1] = dual[2] = 0.0;
    memset(res, 0, sizeof *res);
    res->iterations = 10 * id;
    res->model.abs = sc->criterion[id];
    res->converged = sc->criterion[id] <= o->tol;
    return LUCID_OK;
}

static int scripted_judge(void *ctx, lucid_contact_result *res) {
    script *sc = ctx;
    double c = sc->criterion[(int)sc->lambda[2]];
    res->model.abs = res->ncp.abs = c;
    return isfinite(c);
}

static double scripted_round_off(void *ctx) {
    script *sc = ctx;
    ++sc->round_offs;
    return sc->round_off;
}

static double unit_diagonal(void *ctx) {
    (void)ctx;
    return 1.0;
}

/* Runs the policy (ncp:admm, tol 1e-6, warm started) on the script; returns the kept id. */
static int run(script *sc, int ip_first, lucid_contact_result *out) {
    lucid_contact_options o = lucid_contact_default_options();
    o.model = LUCID_CONTACT_NCP, o.solver = LUCID_CONTACT_ADMM, o.tol = 1e-6, o.warm_start = 1;
    lucid_world_island isl = {.n = 1,
                              .n3 = 3,
                              .ip_first = ip_first,
                              .lambda = sc->lambda,
                              .dual = sc->dual,
                              .spare = sc->spare,
                              .ctx = sc,
                              .solve = scripted_solve,
                              .judge = scripted_judge,
                              .round_off = scripted_round_off,
                              .mean_diagonal = unit_diagonal};
    assert_int_equal(lucid_world_island_solve(&o, &isl, 0.0, out), LUCID_OK);
    return (int)sc->lambda[2];
}

static void test_zero_meets_tol(void **state) {
    (void)state;
    script sc = {.criterion = {1e-9, 1e-3, 1e-3, 1e-3, 1e-3}};
    lucid_contact_result out;
    assert_int_equal(run(&sc, 0, &out), ZERO);
    assert_int_equal(sc.made, 0);
    assert_true(out.converged);
}

/* Dense order: warm ADMM, PGS from its answer, then the ip, which meets tol and is kept. */
static void test_dense_order(void **state) {
    (void)state;
    script sc = {.criterion = {1.0, 1e-3, 1e-3, 5e-4, 1e-9}};
    lucid_contact_result out;
    assert_int_equal(run(&sc, 0, &out), IP_SOLVE);
    assert_int_equal(sc.made, 3);
    assert_int_equal(sc.order[0], WARM_ADMM);
    assert_int_equal(sc.order[1], PGS_SWEEPS);
    assert_int_equal(sc.order[2], IP_SOLVE);
    assert_true(out.converged);
    assert_int_equal(out.iterations, 10 * WARM_ADMM + 10 * PGS_SWEEPS + 10 * IP_SOLVE);
}

/* Body space from an answer far from tol: the ip first; it meets tol, PGS is never run. */
static void test_ip_first_when_far(void **state) {
    (void)state;
    script sc = {.criterion = {1.0, 1e-3, 1e-3, 5e-4, 1e-9}};
    lucid_contact_result out;
    assert_int_equal(run(&sc, 1, &out), IP_SOLVE);
    assert_int_equal(sc.made, 2);
    assert_int_equal(sc.order[1], IP_SOLVE);
}

/* ...and PGS first from an answer within LUCID_WORLD_PGS_POLISH tol, which it polishes. */
static void test_pgs_first_when_near(void **state) {
    (void)state;
    script sc = {.criterion = {1.0, 5e-6, 5e-6, 1e-7, 1e-9}};
    lucid_contact_result out;
    assert_int_equal(run(&sc, 1, &out), PGS_SWEEPS);
    assert_int_equal(sc.made, 2);
    assert_int_equal(sc.order[1], PGS_SWEEPS);
}

/* The round-off bound (a pass over G) is computed only where a decision reads it: not for a
 * warm answer better than lambda = 0 that meets tol; for one worse than lambda = 0 (it is
 * eligible within twice its round-off, its forces resolvable: 0.9e-3 per unit force within
 * lambda = 0's 1e-3), once per attempt, and that answer is then kept. */
static void test_round_off_only_when_read(void **state) {
    (void)state;
    script sc = {.criterion = {1.0, 1e-9, 1e-3, 1e-3, 1e-3}};
    lucid_contact_result out;
    assert_int_equal(run(&sc, 0, &out), WARM_ADMM);
    assert_int_equal(sc.round_offs, 0);
    script worse = {.criterion = {1e-3, 1.5e-3, 1e-3, 1e-3, 1e-3}, .round_off = 0.9e-3};
    assert_int_equal(run(&worse, 0, &out), WARM_ADMM);
    assert_int_equal(worse.made, 1);
    assert_int_equal(worse.round_offs, 1);
}

/* A warm answer within twice its round-off whose bound per unit force (1.5e-3, a velocity)
 * exceeds what lambda = 0 leaves (1e-3) has forces beyond those the island resolves: its bound
 * taken there, (1e-3)^2 / 1.5e-3, no longer covers its criterion, so the cold solve follows (its
 * bound per unit force 0.75e-3 within 1e-3: it certifies itself and ends the chain) and is kept.
 */
static void test_unresolvable_warm_not_certified(void **state) {
    (void)state;
    script sc = {.criterion = {1e-3, 2e-3, 1e-3, 1e-3, 1e-3}, .round_off = 1.5e-3};
    lucid_contact_result out;
    assert_int_equal(run(&sc, 0, &out), COLD_ADMM);
    assert_int_equal(sc.made, 2);
    assert_int_equal(sc.order[1], COLD_ADMM);
}

/* A warm answer worse than lambda = 0 is not kept: the cold solve follows and is kept (a cold
 * answer is the solver's own) when nothing meets tol. */
static void test_warm_worse_than_zero(void **state) {
    (void)state;
    script sc = {.criterion = {1.0, 2.0, 0.5, 0.7, 0.9}};
    lucid_contact_result out;
    assert_int_equal(run(&sc, 0, &out), COLD_ADMM);
    assert_int_equal(sc.order[1], COLD_ADMM);
    assert_false(out.converged);
    assert_true(out.model.abs == 0.5);
}

/* No answer but the ip's is eligible (warm and PGS-from-warm worse than lambda = 0, the cold
 * solve not finite): the ip's unconverged answer is kept rather than lambda = 0, which would
 * leave a pressing contact without force. */
static void test_ip_kept_over_zero(void **state) {
    (void)state;
    script sc = {.criterion = {1.0, 2.0, NAN, 3.0, 1e-4}};
    lucid_contact_result out;
    assert_int_equal(run(&sc, 0, &out), IP_SOLVE);
    assert_int_equal(sc.made, 4);
    assert_false(out.converged);
    assert_true(out.model.abs == 1e-4);
}

/* Nothing finite or eligible at all: lambda = 0, unconverged, every attempt's iterations. */
static void test_nothing_eligible(void **state) {
    (void)state;
    script sc = {.criterion = {1.0, 2.0, NAN, 3.0, NAN}};
    lucid_contact_result out;
    assert_int_equal(run(&sc, 0, &out), ZERO);
    assert_false(out.converged);
    assert_int_equal(out.iterations, 10 * (WARM_ADMM + COLD_ADMM + PGS_SWEEPS + IP_SOLVE));
}

/* A real island on the dense solver: a unit point mass falling at 1 m/s onto a floor between
 * two walls receding at 1e-3 m/s (normals +x and -x, mu 0.5; rows (t1, t2, n), G = J J^T). Its
 * solution is the floor's impulse 1 and no wall force; y = both walls' normal impulses is a
 * ray of cancelling forces (G y = 0, g^T y = 2e-3), along which the complementarity grows as
 * 1e-3 t and the round-off bound as ~u t^2. */
enum { RAY_N = 3, RAY_ROWS = 3 * RAY_N };

typedef struct ray_island {
    lucid_contact_problem p;
    lucid_contact_workspace *ws;
    double G[RAY_ROWS * RAY_ROWS], g[RAY_ROWS], mu[RAY_N], sigma[RAY_ROWS];
    double lambda[RAY_ROWS], dual[RAY_ROWS], spare[4 * RAY_ROWS];
} ray_island;

static lucid_status ray_solve(void *ctx, const lucid_contact_options *o, double *dual,
                              lucid_contact_result *res) {
    ray_island *r = ctx;
    return lucid_contact_solve(&r->p, o, r->ws, r->lambda, dual, res);
}

static int ray_judge(void *ctx, lucid_contact_result *res) {
    ray_island *r = ctx;
    lucid_contact_velocity(&r->p, r->lambda, r->sigma);
    return lucid_world_judge(&r->p, LUCID_CONTACT_NCP, r->lambda, r->sigma, res);
}

static double ray_round_off(void *ctx) {
    ray_island *r = ctx;
    return lucid_contact_round_off(&r->p, r->lambda);
}

static double ray_mean_diagonal(void *ctx) {
    ray_island *r = ctx;
    double sum = 0.0;
    for (int k = 0; k < RAY_ROWS; ++k) sum += r->G[k * (RAY_ROWS + 1)];
    return sum / RAY_ROWS;
}

static void ray_build(ray_island *r) {
    static const double frame[RAY_N][3][3] = {{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}},
                                              {{0, 1, 0}, {0, 0, -1}, {-1, 0, 0}},
                                              {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    static const double v_free[3] = {0, 0, -1}, recede[RAY_N] = {1e-3, 1e-3, 0};
    memset(r, 0, sizeof *r);
    for (int a = 0; a < RAY_ROWS; ++a) {
        const double *ea = frame[a / 3][a % 3];
        for (int b = 0; b < RAY_ROWS; ++b) {
            const double *eb = frame[b / 3][b % 3];
            r->G[a + RAY_ROWS * b] = ea[0] * eb[0] + ea[1] * eb[1] + ea[2] * eb[2];
        }
        r->g[a] = ea[0] * v_free[0] + ea[1] * v_free[1] + ea[2] * v_free[2];
        if (a % 3 == 2) r->g[a] += recede[a / 3];
    }
    for (int i = 0; i < RAY_N; ++i) r->mu[i] = 0.5;
    r->p = (lucid_contact_problem){RAY_N, r->G, r->g, r->mu, NULL, 3};
    r->ws = lucid_contact_workspace_create(RAY_N);
    assert_non_null(r->ws);
}

/* Warm started at the solution plus t y, t = 1e17, the walls' impulses two ulps apart (t and
 * t + 32: a 32 m/s uncancelled push, the walls' 1e-3 m/s lost in their velocity's rounding).
 * Its criterion (3.2e18) is within twice its own round-off bound (3.8e18), so the old rule kept
 * the warm answer; but its velocity rounding, bound / force ~ 38 m/s, exceeds the 1 m/s
 * lambda = 0 leaves, and the bound taken at the forces that reach 1 m/s (~2.6e15) does not
 * cover it: the cold attempt follows and the bounded solution is kept. */
static void test_cancelling_ray_not_self_certified(void **state) {
    (void)state;
    ray_island r;
    ray_build(&r);
    const double t = 1e17;
    r.lambda[2] = t, r.lambda[5] = t + 32.0, r.lambda[8] = 1.0;
    lucid_contact_result check;
    assert_true(ray_judge(&r, &check));
    double bound = ray_round_off(&r);
    assert_true(check.model.abs > 1.0);          /* worse than lambda = 0 (1 m/s) */
    assert_true(check.model.abs <= 2.0 * bound); /* the old rule's self-certificate */
    assert_true(bound > 1.0 * (t + 32.0));       /* velocity rounding beyond 1 m/s */
    lucid_contact_options o = lucid_contact_default_options();
    o.model = LUCID_CONTACT_NCP, o.solver = LUCID_CONTACT_ADMM, o.tol = 1e-6, o.warm_start = 1;
    lucid_world_island isl = {.n = RAY_N,
                              .n3 = RAY_ROWS,
                              .lambda = r.lambda,
                              .dual = r.dual,
                              .spare = r.spare,
                              .ctx = &r,
                              .solve = ray_solve,
                              .judge = ray_judge,
                              .round_off = ray_round_off,
                              .mean_diagonal = ray_mean_diagonal};
    lucid_world_island_info info;
    isl.info = &info;
    lucid_contact_result out;
    assert_int_equal(lucid_world_island_solve(&o, &isl, 0.0, &out), LUCID_OK);
    double wall = 0.0;
    for (int k = 0; k < 6; ++k) wall = fmax(wall, fabs(r.lambda[k]));
    assert_true(info.answer != LUCID_ISLAND_WARM);
    assert_true(out.converged);
    assert_true(wall <= 1e-6);
    assert_true(fabs(r.lambda[8] - 1.0) <= 1e-6);
    lucid_contact_workspace_destroy(r.ws);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_meets_tol),
        cmocka_unit_test(test_dense_order),
        cmocka_unit_test(test_ip_first_when_far),
        cmocka_unit_test(test_pgs_first_when_near),
        cmocka_unit_test(test_round_off_only_when_read),
        cmocka_unit_test(test_unresolvable_warm_not_certified),
        cmocka_unit_test(test_warm_worse_than_zero),
        cmocka_unit_test(test_ip_kept_over_zero),
        cmocka_unit_test(test_nothing_eligible),
        cmocka_unit_test(test_cancelling_ray_not_self_certified),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
