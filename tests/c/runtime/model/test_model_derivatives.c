/* Issue 11's validation of the rigid-body derivatives on real robot models: dtau/dq, dtau/dv
 * (lucid_model_rnea_derivatives) and da/dq, da/dv, da/dtau (lucid_model_aba_derivatives)
 * against central finite differences in the tangent space of q (column k along q (+) h e_k),
 * to 1e-8 relative (the largest entry error over the largest entry of the matrix), on every
 * robot of ../shared/data/robots (the Allegro hand, the hand with its cube, UR5, the simple
 * humanoid and the A1 quadruped, the URDFs with a fixed and with a floating base), on the
 * MJCF models of tasks/models/ and on MuJoCo's humanoid.xml when installed, at random
 * configurations, velocities, accelerations and torques.
 *
 * The finite-difference reference is itself accurate to better than 1e-9, and the test checks
 * it: each column is central differences at steps h, h/2, h/4, h/8 extrapolated twice
 * (Richardson: R1(h) = (4 D(h/2) - D(h)) / 3 is 4th order, R2(h) = (16 R1(h/2) - R1(h)) / 15
 * 6th order), the reference is R2(h/2) and |R2(h) - R2(h/2)| its error estimate (an upper bound:
 * R2(h)'s truncation is 64 times R2(h/2)'s); along q, h is swept over 4e-2, 1e-2, 2.5e-3 and the
 * step with the smallest estimate kept (larger steps leave truncation, smaller ones rounding,
 * eps |f| / h). The test asserts that estimate <= 1e-9 of the matrix's largest entry before
 * comparing: a reference that is not good enough fails the test instead of hiding an error.
 * Along v and tau the functions are quadratic and linear, so central differences are exact
 * but for rounding and h = 0.5.
 *
 * Exit 77 (skipped) with a message when ../shared (LUCID_SHARED_DIR overrides) is absent; the
 * models of this repository are checked first either way. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime/model/model_load.h"
#include "tests/c/common/test_model_file.h"
#include "tests/c/common/test_model_util.h"

enum { NSTATES = 3 };

static int shared_missing;

typedef struct workspace {
    const lucid_model *m;
    lucid_model_data *d;
    size_t nq, nv;
    double *q, *v, *a, *tau, *qp, *vp, *tp, *e, *out[2], *D[4], *col, *best;
    double *dq, *dv, *dtau, *acc;
} workspace;

static void workspace_make(workspace *w, const lucid_model *m) {
    w->m = m;
    assert_int_equal(lucid_model_data_create(m, &w->d), LUCID_OK);
    size_t nq = w->nq = lucid_model_nq(m), nv = w->nv = lucid_model_nv(m);
    double **vecs[] = {&w->v,    &w->a,      &w->tau,    &w->vp,   &w->tp,
                       &w->e,    &w->out[0], &w->out[1], &w->D[0], &w->D[1],
                       &w->D[2], &w->D[3],   &w->best,   &w->col,  &w->acc};
    for (size_t k = 0; k < sizeof vecs / sizeof *vecs; ++k)
        assert_non_null(*vecs[k] = calloc(nv + 1, sizeof(double)));
    assert_non_null(w->q = calloc(nq + 1, sizeof(double)));
    assert_non_null(w->qp = calloc(nq + 1, sizeof(double)));
    assert_non_null(w->dq = calloc(nv * nv + 1, sizeof(double)));
    assert_non_null(w->dv = calloc(nv * nv + 1, sizeof(double)));
    assert_non_null(w->dtau = calloc(nv * nv + 1, sizeof(double)));
}

static void workspace_free(workspace *w) {
    lucid_model_data_destroy(w->d);
    double *vecs[] = {w->v,      w->a,    w->tau,  w->vp,   w->tp,   w->e,    w->out[0],
                      w->out[1], w->D[0], w->D[1], w->D[2], w->D[3], w->best, w->col,
                      w->acc,    w->q,    w->qp,   w->dq,   w->dv,   w->dtau};
    for (size_t k = 0; k < sizeof vecs / sizeof *vecs; ++k) free(vecs[k]);
}

/* f at (q (+) t e_k, v, a/tau) (dir 0), (q, v + t e_k, .) (dir 1), (q, v, tau + t e_k) (dir 2);
 * which = 0: rnea(q, v, a), 1: aba(q, v, tau). */
static void eval(workspace *w, int which, int dir, size_t k, double t, double *out) {
    size_t nv = w->nv;
    memcpy(w->qp, w->q, w->nq * sizeof(double));
    memcpy(w->vp, w->v, nv * sizeof(double));
    memcpy(w->tp, w->tau, nv * sizeof(double));
    if (dir == 0) {
        memset(w->e, 0, nv * sizeof(double));
        w->e[k] = t;
        lucid_model_integrate(w->m, w->q, w->e, 1.0, w->qp);
    } else if (dir == 1) {
        w->vp[k] += t;
    } else {
        w->tp[k] += t;
    }
    if (which == 0)
        lucid_model_rnea(w->m, w->d, w->qp, w->vp, w->a, out);
    else
        lucid_model_aba(w->m, w->d, w->qp, w->vp, w->tp, out);
}

/* Central difference D(h) of column k into out. */
static void central(workspace *w, int which, int dir, size_t k, double h, double *out) {
    eval(w, which, dir, k, h, w->out[1]);
    eval(w, which, dir, k, -h, w->out[0]);
    for (size_t r = 0; r < w->nv; ++r) out[r] = (w->out[1][r] - w->out[0][r]) / (2.0 * h);
}

/* Column k into w->col: central differences D at steps h, h/2, h/4, h/8, extrapolated twice
 * (R1(h) = (4 D(h/2) - D(h)) / 3, R2(h) = (16 R1(h/2) - R1(h)) / 15), the reference being
 * R2(h/2); returns the error estimate |R2(h) - R2(h/2)|_inf (R2(h)'s error, 64 times R2(h/2)'s
 * truncation error). */
static double richardson_column(workspace *w, int which, int dir, size_t k, double h) {
    size_t nv = w->nv;
    double *D[4] = {w->D[0], w->D[1], w->D[2], w->D[3]};
    for (int s = 0; s < 4; ++s) central(w, which, dir, k, h / (double)(1 << s), D[s]);
    double est = 0.0;
    for (size_t r = 0; r < nv; ++r) {
        double R1[3], R2[2];
        for (int s = 0; s < 3; ++s) R1[s] = (4.0 * D[s + 1][r] - D[s][r]) / 3.0;
        for (int s = 0; s < 2; ++s) R2[s] = (16.0 * R1[s + 1] - R1[s]) / 15.0;
        w->col[r] = R2[1];
        est = fmax(est, fabs(R2[1] - R2[0]));
    }
    return est;
}

/* The reference column k over a sweep of steps: the one with the smallest error estimate
 * (into w->best); returns that estimate. Too large a step leaves truncation, too small one
 * rounding (eps |f| / h); the sweep spans both sides for every model here. */
static double reference_column(workspace *w, int which, int dir, size_t k) {
    static const double hq[] = {4e-2, 1e-2, 2.5e-3}, hv[] = {0.5, 2.0, 8.0};
    const double *hs = dir == 0 ? hq : hv;
    size_t n = dir == 0 ? sizeof hq / sizeof *hq : sizeof hv / sizeof *hv;
    double best = INFINITY;
    for (size_t s = 0; s < n; ++s) {
        double est = richardson_column(w, which, dir, k, hs[s]);
        if (est < best) best = est, memcpy(w->best, w->col, w->nv * sizeof(double));
    }
    return best;
}

typedef struct worst {
    double err[5], fd[5]; /* dtau/dq, dtau/dv, da/dq, da/dv, da/dtau */
} worst;

/* The analytic matrix A (nv x nv, column-major) of f = which along dir against the reference;
 * asserts the reference's error estimate <= 1e-9 and the error <= 1e-8, both relative to
 * max |A|. */
static void check_matrix(workspace *w, const char *label, int which, int dir, const double *A,
                         double *err_out, double *fd_out) {
    size_t nv = w->nv;
    double scale = norm_inf(A, nv * nv), err = 0.0, fd = 0.0;
    assert_true(scale > 0.0);
    for (size_t k = 0; k < nv; ++k) {
        fd = fmax(fd, reference_column(w, which, dir, k));
        err = fmax(err, diff_inf(w->best, A + k * nv, nv));
    }
    err /= scale, fd /= scale;
    if (!(fd <= 1e-9 && err <= 1e-8))
        fprintf(stderr, "%s: %s along %s: error %.3g (threshold 1e-8), reference's %.3g (1e-9)\n",
                label, which ? "aba" : "rnea",
                dir == 0   ? "q"
                : dir == 1 ? "v"
                           : "tau",
                err, fd);
    assert_true(fd <= 1e-9);
    assert_true(err <= 1e-8);
    *err_out = fmax(*err_out, err);
    *fd_out = fmax(*fd_out, fd);
}

/* NSTATES random states of one model: every derivative against the reference. */
static void check_model(const char *label, lucid_model *m, uint64_t seed) {
    assert_non_null(m);
    workspace w;
    workspace_make(&w, m);
    size_t nv = w.nv;
    lucid_rng rng;
    lucid_rng_seed(&rng, seed);
    uint64_t st = seed * 7 + 1;
    worst W = {{0}, {0}};
    for (int s = 0; s < NSTATES; ++s) {
        lucid_model_random_configuration(m, &rng, w.q);
        random_vector(&st, w.v, nv, 2.0);
        random_vector(&st, w.a, nv, 3.0);
        random_vector(&st, w.tau, nv, 2.0);
        lucid_model_rnea_derivatives(m, w.d, w.q, w.v, w.a, w.dq, w.dv);
        check_matrix(&w, label, 0, 0, w.dq, &W.err[0], &W.fd[0]);
        check_matrix(&w, label, 0, 1, w.dv, &W.err[1], &W.fd[1]);
        lucid_model_aba_derivatives(m, w.d, w.q, w.v, w.tau, w.acc, w.dq, w.dv, w.dtau);
        lucid_model_aba(m, w.d, w.q, w.v, w.tau, w.col); /* the a it returns is ABA's */
        assert_true(diff_inf(w.col, w.acc, nv) <= 1e-12 * fmax(1.0, norm_inf(w.col, nv)));
        check_matrix(&w, label, 1, 0, w.dq, &W.err[2], &W.fd[2]);
        check_matrix(&w, label, 1, 1, w.dv, &W.err[3], &W.fd[3]);
        check_matrix(&w, label, 1, 2, w.dtau, &W.err[4], &W.fd[4]);
    }
    print_message("%-26s nv %2zu  worst error (reference's): dtau/dq %.1e (%.0e) dtau/dv %.1e "
                  "(%.0e) da/dq %.1e (%.0e) da/dv %.1e (%.0e) da/dtau %.1e (%.0e)\n",
                  label, nv, W.err[0], W.fd[0], W.err[1], W.fd[1], W.err[2], W.fd[2], W.err[3],
                  W.fd[3], W.err[4], W.fd[4]);
    workspace_free(&w);
    lucid_model_destroy(m);
}

/* The model in path (meshes skipped), NULL when the file is absent. */
static lucid_model *load(const char *path, int floating_base) {
    if (access(path, R_OK) != 0) return NULL;
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
    check_model("tasks/models/arm3.xml", load(LUCID_SOURCE_DIR "/tasks/models/arm3.xml", 0), 1);
    check_model("tasks/models/arm7.xml", load(LUCID_SOURCE_DIR "/tasks/models/arm7.xml", 0), 2);
    check_model("random tree (25 bodies)", random_model(1234, 25), 3);
    const char *humanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml";
    if (access(humanoid, R_OK) == 0) check_model("mujoco humanoid.xml", load(humanoid, 0), 4);
}

static void shared_robots(void **state) {
    (void)state;
    static const struct {
        const char *file;
        int floating;
    } robots[] = {{"allegro_right_hand.xml", 0},
                  {"allegro_cube.xml", 0},
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
        check_model(label, load(path, robots[k].floating), 10 + k);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(repository_models),
        cmocka_unit_test(shared_robots),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (failed == 0 && shared_missing) {
        fprintf(stderr, "test_model_derivatives: the shared robots were not checked: skipped\n");
        return 77;
    }
    return failed;
}
