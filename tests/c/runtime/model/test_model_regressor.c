/* The joint-torque regressor and the base parameters (runtime/model/regressor.h,
 * base_parameters.h): the body regressor equals the spatial inertia's wrench; Y pi equals RNEA
 * (armature removed) to 1e-12 relative, and with every column group Y theta equals RNEA +
 * damping v + friction sign(v) (or tanh(v / eps)) + offset, on random trees with every joint
 * kind, tasks/models/arm7.xml, MuJoCo's humanoid.xml (installed) and the robots of
 * ../shared/data/robots with fixed and floating bases; the base regressor times the base
 * parameters equals Y theta at states the QR never saw; a planar two-link arm has the
 * textbook 6 base parameters with ZZ1 + l1^2 m2 and MX1 + l1 m2 lumped; the regressor does not
 * allocate; bad options are refused. Exit 77 (skipped) when ../shared (LUCID_SHARED_DIR
 * overrides) is absent, after the other models are checked. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime/model/base_parameters.h"
#include "runtime/model/model_load.h"
#include "tests/c/common/test_alloc_counter.h"
#include "tests/c/common/test_model_file.h"
#include "tests/c/common/test_model_util.h"

enum { NSTATES = 6 };

static int shared_missing;

static double inf_norm(const double *x, size_t n) {
    double s = 0.0;
    for (size_t k = 0; k < n; ++k) s = fmax(s, fabs(x[k]));
    return s;
}

/* y = Y x for Y (rows x cols, leading dimension ld). */
static void mat_vec(const double *Y, size_t ld, size_t rows, size_t cols, const double *x,
                    double *y) {
    for (size_t r = 0; r < rows; ++r) y[r] = 0.0;
    for (size_t c = 0; c < cols; ++c)
        for (size_t r = 0; r < rows; ++r) y[r] += Y[r + ld * c] * x[c];
}

/* The wrench I a + v x* I v of the spatial inertia with parameters pi (10), written out
 * from the 6x6 matrix [[m 1, -[h]x], [[h]x, I]]: the reference for the body regressor. */
static void reference_wrench(const double *pi, const double *v, const double *a, double *f) {
    double m = pi[0], h[3] = {pi[1], pi[2], pi[3]};
    double I[9] = {pi[4], pi[5], pi[7], pi[5], pi[6], pi[8], pi[7], pi[8], pi[9]};
    double H[9] = {0, h[2], -h[1], -h[2], 0, h[0], h[1], -h[0], 0}; /* [h]x, column-major */
    double A[36];
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) {
            A[r + 6 * c] = r == c ? m : 0.0;
            A[r + 6 * (c + 3)] = -H[r + 3 * c];
            A[r + 3 + 6 * c] = H[r + 3 * c];
            A[r + 3 + 6 * (c + 3)] = I[r + 3 * c];
        }
    double Ia[6], Iv[6];
    mat_vec(A, 6, 6, 6, a, Ia);
    mat_vec(A, 6, 6, 6, v, Iv);
    const double *u = v, *w = v + 3, *p = Iv, *n = Iv + 3;
    double wxp[3] = {w[1] * p[2] - w[2] * p[1], w[2] * p[0] - w[0] * p[2],
                     w[0] * p[1] - w[1] * p[0]};
    double wxn[3] = {w[1] * n[2] - w[2] * n[1], w[2] * n[0] - w[0] * n[2],
                     w[0] * n[1] - w[1] * n[0]};
    double uxp[3] = {u[1] * p[2] - u[2] * p[1], u[2] * p[0] - u[0] * p[2],
                     u[0] * p[1] - u[1] * p[0]};
    for (int k = 0; k < 3; ++k) {
        f[k] = Ia[k] + wxp[k];
        f[k + 3] = Ia[k + 3] + wxn[k] + uxp[k];
    }
}

static void body_regressor_is_the_inertia_wrench(void **state) {
    (void)state;
    uint64_t s = 11;
    for (int t = 0; t < 100; ++t) {
        double v[6], a[6], pi[10], B[60], f[6], g[6];
        random_vector(&s, v, 6, 2.0);
        random_vector(&s, a, 6, 5.0);
        random_vector(&s, pi, 10, 1.0);
        lucid_body_regressor(v, a, B);
        mat_vec(B, 6, 6, 10, pi, f);
        reference_wrench(pi, v, a, g);
        for (int k = 0; k < 6; ++k) assert_true(fabs(f[k] - g[k]) <= 1e-13 * (1 + fabs(g[k])));
    }
}

typedef struct ws {
    lucid_model *m;
    lucid_model_data *d;
    size_t nq, nv, p;
    double *q, *v, *a, *tau, *Y, *theta, *y, *tb;
} ws;

static void ws_make(ws *w, lucid_model *m, size_t p) {
    w->m = m;
    assert_int_equal(lucid_model_data_create(m, &w->d), LUCID_OK);
    w->nq = lucid_model_nq(m), w->nv = lucid_model_nv(m), w->p = p;
    w->q = calloc(w->nq, 8), w->v = calloc(w->nv, 8), w->a = calloc(w->nv, 8);
    w->tau = calloc(w->nv, 8), w->y = calloc(w->nv, 8);
    w->Y = calloc(w->nv * p, 8), w->theta = calloc(p, 8), w->tb = calloc(p, 8);
}

static void ws_free(ws *w) {
    lucid_model_data_destroy(w->d);
    free(w->q), free(w->v), free(w->a), free(w->tau), free(w->y), free(w->Y), free(w->theta);
    free(w->tb);
}

static void ws_state(ws *w, lucid_rng *rng) {
    lucid_model_random_configuration(w->m, rng, w->q);
    for (size_t k = 0; k < w->nv; ++k) w->v[k] = 2.0 * lucid_rng_normal(rng);
    for (size_t k = 0; k < w->nv; ++k) w->a[k] = 5.0 * lucid_rng_normal(rng);
}

/* |y - tau|_inf / |tau|_inf. */
static double rel_error(const double *y, const double *tau, size_t n) {
    double e = 0.0;
    for (size_t k = 0; k < n; ++k) e = fmax(e, fabs(y[k] - tau[k]));
    return e / fmax(inf_norm(tau, n), 1e-300);
}

/* Y pi = rnea - armature a (inertial columns only). */
static double check_inertial(lucid_model *m, lucid_rng *rng) {
    lucid_regressor_options o = lucid_regressor_options_default();
    ws w;
    ws_make(&w, m, lucid_regressor_ncols(m, &o));
    assert_int_equal(w.p, 10 * lucid_model_nbodies(m));
    lucid_model_regressor_parameters(m, &o, w.theta);
    const double *arm = lucid_model_armature(m);
    double worst = 0.0;
    for (int t = 0; t < NSTATES; ++t) {
        ws_state(&w, rng);
        lucid_model_joint_torque_regressor(m, w.d, &o, w.q, w.v, w.a, w.Y, w.nv);
        mat_vec(w.Y, w.nv, w.nv, w.p, w.theta, w.y);
        lucid_model_rnea(m, w.d, w.q, w.v, w.a, w.tau);
        for (size_t k = 0; k < w.nv; ++k) w.tau[k] -= arm[k] * w.a[k];
        worst = fmax(worst, rel_error(w.y, w.tau, w.nv));
    }
    ws_free(&w);
    return worst;
}

/* Every group: Y theta = rnea + damping v + friction c(v) + offset, with random friction and
 * offset values; c = sign or tanh(v / eps). */
static double check_groups(lucid_model *m, lucid_rng *rng, double eps) {
    lucid_regressor_options o = {LUCID_REGRESSOR_ALL, eps};
    ws w;
    size_t nb = lucid_model_nbodies(m);
    ws_make(&w, m, lucid_regressor_ncols(m, &o));
    assert_int_equal(w.p, 10 * nb + 4 * w.nv);
    lucid_model_regressor_parameters(m, &o, w.theta);
    double *fric = w.theta + 10 * nb + w.nv, *off = w.theta + 10 * nb + 3 * w.nv;
    for (size_t k = 0; k < w.nv; ++k) {
        assert_true(fric[k] == 0.0 && off[k] == 0.0); /* the model has neither */
        fric[k] = 0.5 + lucid_rng_uniform(rng), off[k] = lucid_rng_normal(rng);
    }
    const double *damp = lucid_model_damping(m);
    double worst = 0.0;
    for (int t = 0; t < NSTATES; ++t) {
        ws_state(&w, rng);
        if (t == 0) w.v[0] = 0.0; /* sign(0) = 0 */
        lucid_model_joint_torque_regressor(m, w.d, &o, w.q, w.v, w.a, w.Y, w.nv);
        mat_vec(w.Y, w.nv, w.nv, w.p, w.theta, w.y);
        lucid_model_rnea(m, w.d, w.q, w.v, w.a, w.tau);
        for (size_t k = 0; k < w.nv; ++k) {
            double v = w.v[k], c = eps > 0 ? tanh(v / eps) : (v > 0) - (v < 0);
            w.tau[k] += damp[k] * v + fric[k] * c + off[k];
        }
        worst = fmax(worst, rel_error(w.y, w.tau, w.nv));
    }
    ws_free(&w);
    return worst;
}

/* The base regressor (Y's base columns) times theta_b equals Y theta at fresh states. */
static double check_base(lucid_model *m, lucid_rng *rng, const char *label, int pivoted,
                         int *used_pivoted) {
    lucid_base_parameters_options o = lucid_base_parameters_options_default();
    o.regressor.columns = LUCID_REGRESSOR_ALL;
    o.pivoted = pivoted;
    lucid_base_parameters *bp = NULL;
    char err[256];
    if (lucid_model_base_parameters(m, &o, &bp, err, sizeof err) != LUCID_OK) fail_msg("%s", err);
    ws w;
    ws_make(&w, m, bp->nparams);
    assert_true(bp->rank > 0 && bp->rank < bp->nparams);
    assert_true(bp->last_kept > o.tolerance && bp->first_dropped <= o.tolerance);
    for (size_t k = 0; k < w.p; ++k) w.theta[k] = lucid_rng_normal(rng);
    lucid_base_parameters_reduce(bp, w.theta, w.tb);
    double worst = 0.0, *yb = calloc(w.nv, 8);
    for (int t = 0; t < NSTATES; ++t) {
        ws_state(&w, rng);
        lucid_model_joint_torque_regressor(m, w.d, &o.regressor, w.q, w.v, w.a, w.Y, w.nv);
        mat_vec(w.Y, w.nv, w.nv, w.p, w.theta, w.y);
        for (size_t r = 0; r < w.nv; ++r) yb[r] = 0.0;
        for (size_t i = 0; i < bp->rank; ++i)
            for (size_t r = 0; r < w.nv; ++r) yb[r] += w.Y[r + w.nv * bp->base[i]] * w.tb[i];
        worst = fmax(worst, rel_error(yb, w.y, w.nv));
    }
    if (!pivoted)
        printf("  %-28s rank %3zu of %3zu, |R_kk| last kept %.2e, first dropped %.2e, %s\n", label,
               bp->rank, bp->nparams, bp->last_kept, bp->first_dropped,
               bp->pivoted ? "pivoted base" : "base in theta's order");
    *used_pivoted = bp->pivoted;
    free(yb);
    ws_free(&w);
    lucid_base_parameters_destroy(bp);
    return worst;
}

/* real: a real robot, whose base in theta's order must be usable (no fallback). */
static void check_model(const char *label, lucid_model *m, uint64_t seed, int real) {
    assert_non_null(m);
    lucid_rng rng;
    lucid_rng_seed(&rng, seed);
    int fell_back, pivoted;
    double e0 = check_inertial(m, &rng), e1 = check_groups(m, &rng, 0.0);
    double e2 = check_groups(m, &rng, 0.05), e3 = check_base(m, &rng, label, 0, &fell_back);
    double e4 = check_base(m, &rng, label, 1, &pivoted);
    printf("  %-28s |Y pi - rnea| %.1e, all groups %.1e (sign) %.1e (tanh), base %.1e, "
           "pivoted base %.1e\n",
           label, e0, e1, e2, e3, e4);
    assert_true(e0 <= 1e-12 && e1 <= 1e-12 && e2 <= 1e-12 && e3 <= 1e-12 && e4 <= 1e-12);
    assert_true(pivoted);
    if (real) assert_false(fell_back);
    lucid_model_destroy(m);
}

/* The model in path (meshes skipped). */
static lucid_model *load(const char *path, int floating_base) {
    lucid_model_load_options o = lucid_model_load_options_default();
    o.skip_meshes = 1;
    o.floating_base = floating_base;
    lucid_model_spec *spec = NULL;
    lucid_model *m = NULL;
    char err[1024];
    if (lucid_model_spec_load(path, &o, &spec, err, sizeof err) != LUCID_OK ||
        lucid_model_compile(spec, &m, err, sizeof err) != LUCID_OK)
        fprintf(stderr, "%s\n", err);
    lucid_model_spec_destroy(spec);
    assert_non_null(m);
    return m;
}

static void repository_models(void **state) {
    (void)state;
    for (uint64_t s = 0; s < 3; ++s)
        check_model("random tree (25 bodies)", random_model(50 + s, 25), s, 0);
    check_model("tasks/models/arm7.xml", load(LUCID_SOURCE_DIR "/tasks/models/arm7.xml", 0), 4, 1);
    const char *humanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml";
    /* its base in theta's order regroups with scaled coefficients up to 3.5e3 (the free root's
     * nearly parallel mass columns): the pivoted base is used */
    if (access(humanoid, R_OK) == 0) check_model("mujoco humanoid.xml", load(humanoid, 0), 5, 0);
}

static void shared_robots(void **state) {
    (void)state;
    static const struct {
        const char *file;
        int floating;
    } robots[] = {{"allegro_right_hand.xml", 0},
                  {"ur5.urdf", 0},
                  {"ur5.urdf", 1},
                  {"simple_humanoid.urdf", 0},
                  {"simple_humanoid.urdf", 1},
                  {"a1.urdf", 0},
                  {"a1.urdf", 1}};
    char path[1024], label[64];
    for (size_t k = 0; k < sizeof robots / sizeof *robots; ++k) {
        snprintf(path, sizeof path, "%s/data/robots/%s", test_shared_dir(), robots[k].file);
        if (access(path, R_OK) != 0) {
            fprintf(stderr, "%s missing (../shared absent; LUCID_SHARED_DIR overrides)\n", path);
            shared_missing = 1;
            continue;
        }
        snprintf(label, sizeof label, "%s%s", robots[k].file, robots[k].floating ? " (free)" : "");
        check_model(label, load(path, robots[k].floating), 10 + k, 1);
    }
}

/* Two links on parallel z hinges in a vertical plane (gravity -y), link1's frame l1 along
 * link0's x: the base parameters are ZZ1 + l1^2 m2, MX1 + l1 m2, MY1, ZZ2, MX2, MY2 (6 of 20),
 * so moving m2 by 1, MX1 by -l1 and ZZ1 by -l1^2 changes none of them. With every group the
 * armature of joint 0 joins ZZ1 (both multiply qdd_0): 6 + 4 * 2 - 1 = 13 of 28. */
static void planar_arm_has_the_textbook_base(void **state) {
    (void)state;
    const double l1 = 0.5;
    lucid_model_spec *spec;
    assert_int_equal(lucid_model_spec_create(NULL, &spec), LUCID_OK);
    spec->gravity = lucid_vec3_make(0, -9.81, 0);
    for (int k = 0; k < 2; ++k) {
        lucid_body_spec b = lucid_body_spec_default();
        b.name = k ? "link1" : "link0";
        b.parent = k - 1;
        b.placement.t = lucid_vec3_make(k ? l1 : 0.0, 0, 0);
        b.mass = 1.0 + k;
        b.com = lucid_vec3_make(0.2, 0.05, 0.01);
        b.inertia = lucid_mat3_diag(lucid_vec3_make(0.01, 0.02, 0.03));
        int idx;
        assert_int_equal(lucid_model_spec_add_body(spec, &b, &idx), LUCID_OK);
        lucid_joint_spec j = lucid_joint_spec_default(LUCID_JOINT_REVOLUTE);
        j.name = k ? "elbow" : "shoulder";
        j.axis = lucid_vec3_make(0, 0, 1);
        assert_int_equal(lucid_model_spec_add_joint(spec, idx, &j, NULL), LUCID_OK);
    }
    lucid_model *m = NULL;
    assert_int_equal(lucid_model_compile(spec, &m, NULL, 0), LUCID_OK);
    lucid_model_spec_destroy(spec);
    for (int all = 0; all < 2; ++all) {
        lucid_base_parameters_options o = lucid_base_parameters_options_default();
        o.regressor.columns = all ? LUCID_REGRESSOR_ALL : 0u;
        lucid_base_parameters *bp = NULL;
        assert_int_equal(lucid_model_base_parameters(m, &o, &bp, NULL, 0), LUCID_OK);
        assert_int_equal(bp->nparams, all ? 28 : 20);
        assert_int_equal(bp->rank, all ? 13 : 6);
        assert_false(bp->pivoted);
        double n[28] = {0}, nb[28];
        n[10] = 1.0, n[1] = -l1, n[9] = -l1 * l1; /* m2, MX1, ZZ1 */
        lucid_base_parameters_reduce(bp, n, nb);
        assert_true(inf_norm(nb, bp->rank) <= 1e-12);
        n[9] += 1.0; /* ZZ1 alone changes a base parameter */
        lucid_base_parameters_reduce(bp, n, nb);
        assert_true(inf_norm(nb, bp->rank) >= 0.5);
        if (all) { /* ZZ1 and shoulder.armature: one base parameter holds both */
            memset(n, 0, sizeof n);
            n[9] = 1.0, n[20 + 2 * 2] = -1.0;
            lucid_base_parameters_reduce(bp, n, nb);
            assert_true(inf_norm(nb, bp->rank) <= 1e-12);
        }
        for (size_t i = 0; i < bp->rank; ++i) {
            char text[512];
            lucid_base_parameters_describe(m, bp, &o.regressor, i, text, sizeof text);
            printf("  base %zu: %s\n", i, text);
        }
        lucid_base_parameters_destroy(bp);
    }
    lucid_model_destroy(m);
}

static void names_and_parameters(void **state) {
    (void)state;
    lucid_model *m = load(LUCID_SOURCE_DIR "/tasks/models/arm7.xml", 0);
    lucid_regressor_options o = {LUCID_REGRESSOR_DAMPING | LUCID_REGRESSOR_OFFSET, 0.0};
    size_t nb = lucid_model_nbodies(m), nv = lucid_model_nv(m);
    assert_int_equal(lucid_regressor_ncols(m, &o), 10 * nb + 2 * nv);
    char name[128], want[128];
    lucid_regressor_parameter_name(m, &o, 10 * 2 + 6, name, sizeof name);
    snprintf(want, sizeof want, "%s.Iyy", lucid_model_body_name(m, 2));
    assert_string_equal(name, want);
    lucid_regressor_parameter_name(m, &o, 10 * nb + nv + 1, name, sizeof name);
    snprintf(want, sizeof want, "%s.offset", lucid_model_joint_name(m, 1));
    assert_string_equal(name, want);
    double *theta = calloc(10 * nb + 2 * nv, 8);
    lucid_model_regressor_parameters(m, &o, theta);
    for (size_t b = 0; b < nb; ++b) assert_true(theta[10 * b] == lucid_model_body_mass(m, b));
    assert_true(theta[10 * nb] == lucid_model_damping(m)[0]);
    free(theta);
    lucid_model_destroy(m);
    /* a free joint's dofs are named by their velocity axis */
    m = random_model(50, 25);
    o.columns = LUCID_REGRESSOR_COULOMB;
    lucid_regressor_parameter_name(m, &o, 10 * lucid_model_nbodies(m) + 4, name, sizeof name);
    snprintf(want, sizeof want, "%s.wy.coulomb", lucid_model_joint_name(m, 0));
    assert_string_equal(name, want);
    lucid_model_destroy(m);
}

/* Without the free root's six rows (contact wrenches not measured) the root body's 10
 * parameters and its dofs' damping change no stacked torque: each is a dependent column with
 * no coefficient; the base still reproduces those rows of Y theta at fresh states. */
static void free_rows_can_be_left_out(void **state) {
    (void)state;
    lucid_model *m = random_model(52, 25);
    assert_int_equal(lucid_model_joint_kind(m, 0), LUCID_JOINT_FREE);
    size_t nv = lucid_model_nv(m), nb = lucid_model_nbodies(m);
    assert_int_equal(lucid_model_body_joint(m, 0), 0);
    unsigned char *rows = calloc(nv, 1);
    for (size_t k = 6; k < nv; ++k) rows[k] = 1;
    lucid_base_parameters_options o = lucid_base_parameters_options_default();
    o.regressor.columns = LUCID_REGRESSOR_DAMPING;
    lucid_base_parameters *all = NULL, *bp = NULL;
    assert_int_equal(lucid_model_base_parameters(m, &o, &all, NULL, 0), LUCID_OK);
    o.rows = rows;
    assert_int_equal(lucid_model_base_parameters(m, &o, &bp, NULL, 0), LUCID_OK);
    printf("  rank %zu with the free root's rows, %zu without\n", all->rank, bp->rank);
    assert_true(bp->rank < all->rank);
    size_t r = bp->rank, nd = bp->nparams - r, dead[16], ndead = 0;
    for (size_t k = 0; k < 16; ++k) dead[k] = k < 10 ? k : 10 * nb + (k - 10); /* root's */
    for (size_t j = 0; j < nd; ++j) {
        size_t cd = bp->dependent[j];
        for (size_t k = 0; k < 16; ++k)
            if (cd == dead[k]) {
                ++ndead;
                for (size_t i = 0; i < r; ++i) assert_true(bp->beta[i + r * j] == 0.0);
            }
    }
    assert_int_equal(ndead, 16);
    ws w;
    ws_make(&w, m, bp->nparams);
    lucid_rng rng;
    lucid_rng_seed(&rng, 9);
    for (size_t k = 0; k < w.p; ++k) w.theta[k] = lucid_rng_normal(&rng);
    lucid_base_parameters_reduce(bp, w.theta, w.tb);
    double *yb = calloc(nv, 8), worst = 0.0;
    for (int t = 0; t < NSTATES; ++t) {
        ws_state(&w, &rng);
        lucid_model_joint_torque_regressor(m, w.d, &o.regressor, w.q, w.v, w.a, w.Y, nv);
        mat_vec(w.Y, nv, nv, w.p, w.theta, w.y);
        for (size_t k = 0; k < nv; ++k) yb[k] = 0.0;
        for (size_t i = 0; i < r; ++i)
            for (size_t k = 0; k < nv; ++k) yb[k] += w.Y[k + nv * bp->base[i]] * w.tb[i];
        worst = fmax(worst, rel_error(yb + 6, w.y + 6, nv - 6));
    }
    assert_true(worst <= 1e-12);
    free(yb);
    ws_free(&w);
    free(rows);
    lucid_base_parameters_destroy(all);
    lucid_base_parameters_destroy(bp);
    lucid_model_destroy(m);
}

static void bad_options_are_refused(void **state) {
    (void)state;
    const char *why = NULL;
    lucid_regressor_options o = {16u, 0.0};
    assert_int_equal(lucid_regressor_options_check(&o, &why), LUCID_ERR_ARGUMENT);
    assert_string_equal(why, "columns has unknown bits");
    o.columns = 1u, o.coulomb_smoothing = -1.0;
    assert_int_equal(lucid_regressor_options_check(&o, &why), LUCID_ERR_ARGUMENT);
    o.coulomb_smoothing = NAN;
    assert_int_equal(lucid_regressor_options_check(&o, &why), LUCID_ERR_ARGUMENT);
    lucid_model *m = random_model(50, 5);
    lucid_base_parameters_options bo = lucid_base_parameters_options_default();
    bo.tolerance = 1.0;
    lucid_base_parameters *bp = NULL;
    char err[256];
    assert_int_equal(lucid_model_base_parameters(m, &bo, &bp, err, sizeof err), LUCID_ERR_ARGUMENT);
    assert_null(bp);
    assert_string_equal(err, "lucid_model_base_parameters: tolerance must be in (0, 1) (got 1)");
    unsigned char none[64] = {0};
    bo = lucid_base_parameters_options_default();
    bo.rows = none;
    assert_int_equal(lucid_model_base_parameters(m, &bo, &bp, err, sizeof err), LUCID_ERR_ARGUMENT);
    assert_string_equal(err, "lucid_model_base_parameters: no rows to stack (rows selects none)");
    lucid_model_destroy(m);
}

static void regressor_does_not_allocate(void **state) {
    (void)state;
    lucid_model *m = random_model(51, 25);
    lucid_regressor_options o = {LUCID_REGRESSOR_ALL, 0.1};
    ws w;
    ws_make(&w, m, lucid_regressor_ncols(m, &o));
    lucid_rng rng;
    lucid_rng_seed(&rng, 3);
    ws_state(&w, &rng);
    counting = 1, allocations = 0;
    lucid_model_joint_torque_regressor(m, w.d, &o, w.q, w.v, w.a, w.Y, w.nv);
    counting = 0;
    assert_int_equal(allocations, 0);
    ws_free(&w);
    lucid_model_destroy(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(body_regressor_is_the_inertia_wrench),
        cmocka_unit_test(planar_arm_has_the_textbook_base),
        cmocka_unit_test(names_and_parameters),
        cmocka_unit_test(free_rows_can_be_left_out),
        cmocka_unit_test(bad_options_are_refused),
        cmocka_unit_test(regressor_does_not_allocate),
        cmocka_unit_test(repository_models),
        cmocka_unit_test(shared_robots),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (failed == 0 && shared_missing) {
        fprintf(stderr, "test_model_regressor: the shared robots were not checked: skipped\n");
        return 77;
    }
    return failed;
}
