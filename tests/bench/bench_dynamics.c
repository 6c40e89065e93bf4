/* Rigid-body dynamics timings: RNEA, CRBA, ABA, the LTDL factorisation, one M^-1 solve, the
 * analytic derivatives (d rnea: dtau/dq, dtau/dv; d aba: da/dq, da/dv, da/dtau) and the
 * joint-torque regressor (every column group, runtime/model/regressor.h), on
 * a 7-dof arm, random trees of 30 and 60 bodies with every joint kind
 * (tests/c/common/test_model_util.h), and the robots when their files are there: MuJoCo's
 * humanoid.xml (libmujoco-samples), the models of ../shared/data/robots (LUCID_SHARED_DIR
 * overrides; URDFs with a floating base) and tasks/models/arm7.xml.
 *
 *   build/tests/bench/bench_dynamics [--seconds S]
 *
 * Per model one row of microseconds (process CPU time, the best of 5 loops) per call, and the
 * in-run baselines: forward
 * dynamics by CRBA + LTDL + solve (the "dense-free" alternative to ABA) and by CRBA + LAPACK
 * Cholesky (dpotrf + dpotrs), printed as ratios to ABA. bench_model() times one compiled model, so
 * a peer (MuJoCo on the same model) is one more call with the same states. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/c/common/test_model_util.h"
#include "runtime/model/model_load.h"
#include "runtime/model/regressor.h"
#include "solvers/dense/dense_cholesky.h"

enum { NSTATES = 16, REPEATS = 5 };

/* CPU time of this process: on a shared, loaded machine wall time mostly measures the other
 * jobs; a single-threaded loop's CPU time is its own. */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct bench_states {
    size_t nq, nv;
    double *q, *v, *tau, *a, *out, *M, *D1, *D2, *D3, *Y;
} bench_states;

/* Which routine a timing loop runs. */
typedef enum routine {
    RNEA,
    CRBA,
    ABA,
    CRBA_LTDL,
    LTDL_SOLVE,
    CRBA_LTDL_SOLVE,
    CRBA_LAPACK,
    RNEA_DERIV,
    ABA_DERIV,
    REGRESSOR
} routine;

static const lucid_regressor_options every_group = {LUCID_REGRESSOR_ALL, 0.0};

static void run_once(const lucid_model *m, lucid_model_data *d, bench_states *s, int k, routine r) {
    const double *q = s->q + (size_t)k * s->nq, *v = s->v + (size_t)k * s->nv,
                 *tau = s->tau + (size_t)k * s->nv;
    size_t nv = s->nv;
    switch (r) {
        case RNEA:
            lucid_model_rnea(m, d, q, v, tau, s->out);
            break;
        case CRBA:
            lucid_model_crba(m, d, q);
            break;
        case ABA:
            lucid_model_aba(m, d, q, v, tau, s->a);
            break;
        case CRBA_LTDL:
            lucid_model_crba(m, d, q);
            lucid_model_ltdl(m, d);
            break;
        case LTDL_SOLVE:
            memcpy(s->out, tau, nv * sizeof(double));
            lucid_model_mass_solve(m, d, s->out, nv, 1);
            break;
        case CRBA_LTDL_SOLVE: /* a = M^-1 (tau - nle) */
            lucid_model_nle(m, d, q, v, s->out);
            for (size_t i = 0; i < nv; ++i) s->out[i] = tau[i] - s->out[i];
            lucid_model_crba(m, d, q);
            lucid_model_ltdl(m, d);
            lucid_model_mass_solve(m, d, s->out, nv, 1);
            break;
        case CRBA_LAPACK:
            lucid_model_nle(m, d, q, v, s->out);
            for (size_t i = 0; i < nv; ++i) s->out[i] = tau[i] - s->out[i];
            lucid_model_crba(m, d, q);
            memcpy(s->M, lucid_model_data_mass_matrix(d), nv * nv * sizeof(double));
            lucid_dense_cholesky((int)nv, s->M, (int)nv);
            lucid_dense_cholesky_solve((int)nv, 1, s->M, (int)nv, s->out, (int)nv);
            break;
        case RNEA_DERIV:
            lucid_model_rnea_derivatives(m, d, q, v, tau, s->D1, s->D2);
            break;
        case ABA_DERIV:
            lucid_model_aba_derivatives(m, d, q, v, tau, s->a, s->D1, s->D2, s->D3);
            break;
        case REGRESSOR: /* tau as the acceleration, like RNEA's row */
            lucid_model_joint_torque_regressor(m, d, &every_group, q, v, tau, s->Y, nv);
            break;
    }
}

/* Microseconds per call of routine r, cycling over the states: the best of REPEATS loops of
 * about seconds / REPEATS each (on a shared machine the minimum is the least disturbed). */
static double time_routine(const lucid_model *m, lucid_model_data *d, bench_states *s, routine r,
                           double seconds) {
    double best = INFINITY;
    for (int rep = 0; rep < REPEATS; ++rep) {
        long calls = 0;
        double t0 = now(), t;
        do {
            for (int k = 0; k < 100; ++k) run_once(m, d, s, (int)(calls + k) % NSTATES, r);
            calls += 100;
            t = now() - t0;
        } while (t < seconds / REPEATS);
        best = fmin(best, 1e6 * t / (double)calls);
    }
    return best;
}

/* Times one model and prints its row; returns ABA's time (us). */
static double bench_model(const char *name, const lucid_model *m, double seconds) {
    bench_states s;
    s.nq = lucid_model_nq(m);
    s.nv = lucid_model_nv(m);
    s.q = calloc(NSTATES * s.nq, sizeof(double));
    s.v = calloc(NSTATES * s.nv, sizeof(double));
    s.tau = calloc(NSTATES * s.nv, sizeof(double));
    s.a = calloc(s.nv, sizeof(double));
    s.out = calloc(s.nv, sizeof(double));
    s.M = calloc(s.nv * s.nv, sizeof(double));
    s.D1 = calloc(s.nv * s.nv, sizeof(double));
    s.D2 = calloc(s.nv * s.nv, sizeof(double));
    s.D3 = calloc(s.nv * s.nv, sizeof(double));
    s.Y = calloc(s.nv * lucid_regressor_ncols(m, &every_group), sizeof(double));
    lucid_model_data *d = NULL;
    if (!s.q || !s.v || !s.tau || !s.a || !s.out || !s.M || !s.D1 || !s.D2 || !s.D3 || !s.Y ||
        lucid_model_data_create(m, &d) != LUCID_OK) {
        fprintf(stderr, "bench_dynamics: out of memory\n");
        exit(1);
    }
    lucid_rng rng;
    lucid_rng_seed(&rng, 42);
    uint64_t st = 7;
    for (int k = 0; k < NSTATES; ++k) {
        lucid_model_random_configuration(m, &rng, s.q + (size_t)k * s.nq);
        random_vector(&st, s.v + (size_t)k * s.nv, s.nv, 1.0);
        random_vector(&st, s.tau + (size_t)k * s.nv, s.nv, 5.0);
    }
    double t[10];
    for (int r = 0; r <= REGRESSOR; ++r) t[r] = time_routine(m, d, &s, (routine)r, seconds);
    printf("%-12s %4zu %4zu %8.3f %8.3f %8.3f %10.3f %8.3f %8.3f (%4.2fx) %8.3f (%4.2fx) %9.3f "
           "%9.3f (%5.2fx) %9.3f\n",
           name, lucid_model_njoints(m), s.nv, t[RNEA], t[CRBA], t[ABA], t[CRBA_LTDL],
           t[LTDL_SOLVE], t[CRBA_LTDL_SOLVE], t[CRBA_LTDL_SOLVE] / t[ABA], t[CRBA_LAPACK],
           t[CRBA_LAPACK] / t[ABA], t[RNEA_DERIV], t[ABA_DERIV], t[ABA_DERIV] / t[ABA],
           t[REGRESSOR]);
    lucid_model_data_destroy(d);
    free(s.q), free(s.v), free(s.tau), free(s.a), free(s.out), free(s.M);
    free(s.D1), free(s.D2), free(s.D3), free(s.Y);
    return t[ABA];
}

/* A 7-dof arm like a Franka Panda: revolute joints alternating between z and y axes, links
 * 0.3 m long with 1-4 kg. */
static lucid_model *arm7(void) {
    lucid_model_spec *spec;
    if (lucid_model_spec_create(NULL, &spec) != LUCID_OK) return NULL;
    char name[32];
    for (int k = 0; k < 7; ++k) {
        lucid_body_spec b = lucid_body_spec_default();
        snprintf(name, sizeof name, "link%d", k + 1);
        b.name = name;
        b.parent = k - 1;
        b.placement.t = lucid_vec3_make(0, k % 2 ? 0.0 : 0.05, k == 0 ? 0.33 : 0.3);
        b.mass = 4.0 - 0.4 * k;
        b.com = lucid_vec3_make(0.01, 0.02, 0.1);
        b.inertia = lucid_mat3_diag(lucid_vec3_make(0.03, 0.03, 0.01));
        int idx;
        lucid_model_spec_add_body(spec, &b, &idx);
        lucid_joint_spec j = lucid_joint_spec_default(LUCID_JOINT_REVOLUTE);
        snprintf(name, sizeof name, "joint%d", k + 1);
        j.name = name;
        j.axis = k % 2 ? lucid_vec3_make(0, 1, 0) : lucid_vec3_make(0, 0, 1);
        j.limited = 1, j.lower = -2.8, j.upper = 2.8;
        j.armature = 0.1;
        lucid_model_spec_add_joint(spec, idx, &j, NULL);
    }
    lucid_model *m = NULL;
    char err[256];
    if (lucid_model_compile(spec, &m, err, sizeof err) != LUCID_OK)
        fprintf(stderr, "arm7: %s\n", err);
    lucid_model_spec_destroy(spec);
    return m;
}

/* The model in path (meshes skipped), NULL when the file is absent or does not load. */
static lucid_model *load(const char *path, int floating_base) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fclose(f);
    lucid_model_load_options o = lucid_model_load_options_default();
    o.skip_meshes = 1;
    o.floating_base = floating_base;
    lucid_model_spec *spec = NULL;
    lucid_model *m = NULL;
    char err[1024];
    if (lucid_model_spec_load(path, &o, &spec, err, sizeof err) != LUCID_OK ||
        lucid_model_compile(spec, &m, err, sizeof err) != LUCID_OK)
        fprintf(stderr, "bench_dynamics: %s\n", err);
    lucid_model_spec_destroy(spec);
    return m;
}

int main(int argc, char **argv) {
    double seconds = 0.3;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--seconds S]  (S: time per measurement, default 0.3)\n",
                    argv[0]);
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    printf("microseconds per call (ratios: forward dynamics by that route / ABA)\n");
    printf("%-12s %4s %4s %8s %8s %8s %10s %8s %17s %17s %9s %19s %9s\n", "model", "jnts", "nv",
           "rnea", "crba", "aba", "crba+ltdl", "M^-1 x", "nle+crba+ltdl+sv", "nle+crba+dpotrf",
           "d rnea", "d aba (/aba)", "regressor");
    lucid_model *arm = arm7();
    if (!arm) return 1;
    bench_model("arm-7dof", arm, seconds);
    lucid_model_destroy(arm);
    const char *shared = getenv("LUCID_SHARED_DIR");
    if (!shared) shared = LUCID_SOURCE_DIR "/../shared";
    static const struct {
        const char *name, *file; /* file: under ../shared/data/robots unless absolute */
        int floating;
    } robots[] = {{"ur5", "ur5.urdf", 0},
                  {"arm7.xml", LUCID_SOURCE_DIR "/tasks/models/arm7.xml", 0},
                  {"a1-free", "a1.urdf", 1},
                  {"allegro", "allegro_right_hand.xml", 0},
                  {"humanoid", "/usr/share/mujoco/model/humanoid/humanoid.xml", 0},
                  {"s-humanoid", "simple_humanoid.urdf", 1}};
    char path[1024];
    for (size_t k = 0; k < sizeof robots / sizeof *robots; ++k) {
        if (robots[k].file[0] == '/')
            snprintf(path, sizeof path, "%s", robots[k].file);
        else
            snprintf(path, sizeof path, "%s/data/robots/%s", shared, robots[k].file);
        lucid_model *m = load(path, robots[k].floating);
        if (!m) {
            printf("%-12s (%s not found: skipped)\n", robots[k].name, path);
            continue;
        }
        bench_model(robots[k].name, m, seconds);
        lucid_model_destroy(m);
    }
    lucid_model *trees[2] = {random_model(2026, 30), random_model(7, 60)};
    const char *names[2] = {"tree-30", "tree-60"};
    for (int k = 0; k < 2; ++k) {
        if (!trees[k]) return 1;
        bench_model(names[k], trees[k], seconds);
        lucid_model_destroy(trees[k]);
    }
    return 0;
}
