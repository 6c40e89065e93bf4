/* lucid's RNEA, CRBA + LTDL and ABA against MuJoCo 2.2.2's corresponding routines, in the same
 * run, on models both read from the same file: MuJoCo's humanoid.xml, the Allegro hand and the
 * UR5 arm of ../shared/data/robots (MuJoCo reads a copy of ur5.urdf without its <visual> and
 * <collision> elements, whose meshes are not shipped; lucid skips them).
 *
 *   build/tests/bench/bench_dynamics_mujoco [--seconds S] [--shared DIR]
 *
 * Per model, microseconds of process CPU time per call (the best of 5 repeats of a loop over
 * 16 random states lasting about S / 5 seconds, default S = 0.2) and lucid / MuJoCo:
 *   rnea  lucid_model_rnea (kinematics included)   vs mj_rne(flg_acc = 1) alone, and with
 *         the stages it reads (mj_kinematics, mj_comPos, mj_comVel);
 *   crba  lucid_model_crba + lucid_model_ltdl        vs mj_crb + mj_factorM alone, and with
 *         mj_kinematics + mj_comPos;
 *   aba   lucid_model_aba (tau = 0)                  vs mj_forward with contacts and
 *         constraints disabled (mjDSBL_CONTACT | mjDSBL_CONSTRAINT).
 * Before timing, each model's dynamics are checked equal (ABA against MuJoCo's qacc with tau =
 * its passive and actuator forces, the free-joint velocity convention converted as in
 * tests/c/runtime/model/test_model_mujoco.c): the printed gap says the two sides compute the same
 * thing. Needs <mujoco/mujoco.h> at build time and libmujoco.so.2.2.2 at run time (exits 77
 * without). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/model/dynamics.h"
#include "runtime/model/model.h"
#include "runtime/model/model_load.h"

#if __has_include(<mujoco/mujoco.h>) && __has_include(<dlfcn.h>)
#define HAVE_MUJOCO 1
#include "tests/bench/mujoco_api.h"
#else
#define HAVE_MUJOCO 0
#endif

#if HAVE_MUJOCO
enum { NSTATES = 16, REPEATS = 5 };

/* CPU time of this process: on a shared, loaded machine wall time mostly measures the other
 * jobs (as in bench_dynamics). */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double uniform(uint64_t *s, double lo, double hi) {
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return lo + (hi - lo) * (double)((*s * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}

typedef struct bench_model {
    mujoco_api *mj;
    mjModel *mm;
    mjData *md;
    lucid_model *m;
    lucid_model_data *d;
    size_t nq, nv;
    double *mq, *mv, *q, *v, *a, *out; /* NSTATES states each side */
} bench_model;

typedef enum routine {
    L_RNEA,
    L_CRBA,
    L_ABA,
    M_RNE,
    M_RNE_STAGES,
    M_CRB,
    M_CRB_STAGES,
    M_FORWARD
} routine;

static volatile double sink;

static void run(bench_model *B, routine r, int k) {
    size_t nq = B->nq, nv = B->nv;
    const double *q = B->q + k * nq, *v = B->v + k * nv;
    mjData *md = B->md;
    const mjModel *mm = B->mm;
    if (r == M_RNE_STAGES || r == M_CRB_STAGES || r == M_FORWARD) {
        memcpy(md->qpos, B->mq + k * nq, nq * sizeof(double));
        memcpy(md->qvel, B->mv + k * nv, nv * sizeof(double));
    }
    switch (r) {
        case L_RNEA:
            lucid_model_rnea(B->m, B->d, q, v, B->a, B->out);
            break;
        case L_CRBA:
            lucid_model_crba(B->m, B->d, q);
            lucid_model_ltdl(B->m, B->d);
            break;
        case L_ABA:
            lucid_model_aba(B->m, B->d, q, v, B->a, B->out);
            break;
        case M_RNE:
            B->mj->rne(mm, md, 1, B->out);
            break;
        case M_RNE_STAGES:
            B->mj->kinematics(mm, md);
            B->mj->com_pos(mm, md);
            B->mj->com_vel(mm, md);
            B->mj->rne(mm, md, 1, B->out);
            break;
        case M_CRB:
            B->mj->crb(mm, md);
            B->mj->factor_m(mm, md);
            break;
        case M_CRB_STAGES:
            B->mj->kinematics(mm, md);
            B->mj->com_pos(mm, md);
            B->mj->crb(mm, md);
            B->mj->factor_m(mm, md);
            break;
        case M_FORWARD:
            B->mj->forward(mm, md);
            break;
    }
    sink += B->out[0];
}

/* Microseconds per call: the best of REPEATS loops over the states of about `seconds`. */
static double time_routine(bench_model *B, routine r, double seconds) {
    /* MuJoCo's partial routines read stages computed before: prime them for each state */
    long n = 1;
    for (;;) {
        double t0 = now();
        for (long i = 0; i < n; i++) run(B, r, (int)(i % NSTATES));
        if (now() - t0 > seconds / REPEATS || n > (1L << 30)) break;
        n *= 2;
    }
    double best = INFINITY;
    for (int rep = 0; rep < REPEATS; rep++) {
        double t0 = now();
        for (long i = 0; i < n; i++) run(B, r, (int)(i % NSTATES));
        best = fmin(best, (now() - t0) / (double)n);
    }
    return 1e6 * best;
}

/* Random states on MuJoCo's side and the same states in lucid's conventions. Returns the
 * largest relative gap of lucid's ABA (tau = MuJoCo's passive + actuator forces) against
 * MuJoCo's qacc over the states. */
static double make_states(bench_model *B) {
    const mjModel *mm = B->mm;
    mjData *md = B->md;
    size_t nq = B->nq, nv = B->nv;
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    double gap = 0.0;
    double *tau = calloc(nv, sizeof *tau), *want = calloc(nv, sizeof *want);
    for (int k = 0; k < NSTATES; k++) {
        B->mj->reset_data(mm, md);
        for (int j = 0; j < mm->njnt; j++) {
            double *qp = md->qpos + mm->jnt_qposadr[j];
            if (mm->jnt_type[j] == mjJNT_FREE || mm->jnt_type[j] == mjJNT_BALL) {
                double *u = qp + (mm->jnt_type[j] == mjJNT_FREE ? 3 : 0), nrm = 0.0;
                if (mm->jnt_type[j] == mjJNT_FREE)
                    for (int i = 0; i < 3; i++) qp[i] = uniform(&seed, -1, 1);
                for (int i = 0; i < 4; i++) u[i] = uniform(&seed, -1, 1), nrm += u[i] * u[i];
                for (int i = 0; i < 4; i++) u[i] /= sqrt(nrm);
            } else {
                double lo = mm->jnt_limited[j] ? mm->jnt_range[2 * j] : -3.0;
                double hi = mm->jnt_limited[j] ? mm->jnt_range[2 * j + 1] : 3.0;
                qp[0] = uniform(&seed, lo, hi);
            }
        }
        for (size_t i = 0; i < nv; i++) md->qvel[i] = uniform(&seed, -2, 2);
        B->mj->forward(mm, md);
        double *q = B->q + k * nq, *v = B->v + k * nv;
        memcpy(B->mq + k * nq, md->qpos, nq * sizeof(double));
        memcpy(B->mv + k * nv, md->qvel, nv * sizeof(double));
        memcpy(q, md->qpos, nq * sizeof(double));
        memcpy(v, md->qvel, nv * sizeof(double));
        for (size_t i = 0; i < nv; i++) {
            tau[i] = md->qfrc_passive[i] + md->qfrc_actuator[i];
            want[i] = md->qacc[i];
        }
        for (int j = 0; j < mm->njnt; j++) {
            if (mm->jnt_type[j] != mjJNT_FREE) continue;
            int body = mm->jnt_bodyid[j], iq = mm->jnt_qposadr[j], iv = mm->jnt_dofadr[j];
            lucid_se3 X, P = lucid_model_joint_placement(B->m, (size_t)j);
            lucid_se3_from_quat(lucid_quat_make(q[iq + 3], q[iq + 4], q[iq + 5], q[iq + 6]),
                                lucid_vec3_load(q + iq), &X);
            lucid_se3 L = lucid_se3_between(&P, &X);
            lucid_quat lq = lucid_se3_to_quat(&L);
            lucid_vec3_store(L.t, q + iq);
            q[iq + 3] = lq.w, q[iq + 4] = lq.x, q[iq + 5] = lq.y, q[iq + 6] = lq.z;
            const double *xm = md->xmat + 9 * body;
            lucid_mat3 R = {{xm[0], xm[3], xm[6], xm[1], xm[4], xm[7], xm[2], xm[5], xm[8]}};
            lucid_vec3 vl = lucid_mat3_tmul_vec(&R, lucid_vec3_load(v + iv));
            lucid_vec3 w = lucid_vec3_load(v + iv + 3);
            lucid_vec3_store(vl, v + iv);
            lucid_vec3_store(lucid_mat3_tmul_vec(&R, lucid_vec3_load(tau + iv)), tau + iv);
            lucid_vec3 al = lucid_vec3_sub(lucid_mat3_tmul_vec(&R, lucid_vec3_load(want + iv)),
                                           lucid_vec3_cross(w, vl));
            lucid_vec3_store(al, want + iv);
        }
        lucid_model_aba(B->m, B->d, q, v, tau, B->out);
        double scale = 0.0, g = 0.0;
        for (size_t i = 0; i < nv; i++)
            scale = fmax(scale, fabs(want[i])), g = fmax(g, fabs(B->out[i] - want[i]));
        gap = fmax(gap, g / scale);
    }
    memset(B->a, 0, nv * sizeof(double));
    free(tau);
    free(want);
    return gap;
}

/* A copy of a URDF without <visual> and <collision> elements (MuJoCo cannot skip meshes). */
static int strip_urdf(const char *src, const char *dst) {
    FILE *f = fopen(src, "rb");
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(text);
        return 0;
    }
    fclose(f);
    text[n] = '\0';
    FILE *o = fopen(dst, "wb");
    if (!o) {
        free(text);
        return 0;
    }
    const char *p = text;
    while (*p) {
        const char *v = strstr(p, "<visual"), *c = strstr(p, "<collision");
        const char *s = v && (!c || v < c) ? v : c;
        if (!s) {
            fputs(p, o);
            break;
        }
        fwrite(p, 1, (size_t)(s - p), o);
        const char *close = s == v ? "</visual>" : "</collision>";
        const char *e = strstr(s, close);
        if (!e) break;
        p = e + strlen(close);
    }
    fclose(o);
    free(text);
    return 1;
}

static void bench_file(mujoco_api *mj, const char *label, const char *lucid_path,
                       const char *mujoco_path, double seconds) {
    char err[1024] = "";
    bench_model B;
    memset(&B, 0, sizeof B);
    B.mj = mj;
    B.mm = mj->load_xml(mujoco_path, NULL, err, sizeof err);
    if (!B.mm) {
        printf("%-8s MuJoCo cannot load %s: %s\n", label, mujoco_path, err);
        return;
    }
    B.mm->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_CONSTRAINT;
    B.md = mj->make_data(B.mm);
    lucid_model_load_options o = lucid_model_load_options_default();
    o.skip_meshes = 1;
    lucid_model_spec *spec = NULL;
    if (lucid_model_spec_load(lucid_path, &o, &spec, err, sizeof err) ||
        lucid_model_compile(spec, &B.m, err, sizeof err) || lucid_model_data_create(B.m, &B.d)) {
        printf("%-8s lucid: %s\n", label, err);
        lucid_model_spec_destroy(spec);
        return;
    }
    lucid_model_spec_destroy(spec);
    B.nq = lucid_model_nq(B.m), B.nv = lucid_model_nv(B.m);
    if ((int)B.nq != B.mm->nq || (int)B.nv != B.mm->nv) {
        printf("%-8s sizes differ: lucid nq %zu nv %zu, MuJoCo %d %d\n", label, B.nq, B.nv,
               B.mm->nq, B.mm->nv);
        return;
    }
    size_t nq = B.nq, nv = B.nv;
    B.mq = calloc(NSTATES * nq, sizeof(double)), B.mv = calloc(NSTATES * nv, sizeof(double));
    B.q = calloc(NSTATES * nq, sizeof(double)), B.v = calloc(NSTATES * nv, sizeof(double));
    B.a = calloc(nv, sizeof(double)), B.out = calloc(nv > 1 ? nv : 1, sizeof(double));
    double gap = make_states(&B);
    /* mj_rne with flg_acc reads qacc: zero like lucid's a */
    memset(B.md->qacc, 0, nv * sizeof(double));
    double t[8];
    for (int r = 0; r < 8; r++) t[r] = time_routine(&B, (routine)r, seconds);
    printf("%-8s nv %2zu  ABA vs qacc gap %.1e\n", label, nv, gap);
    printf("  rnea   lucid %7.3f us  mj_rne %7.3f (ratio %5.2f)  +stages %7.3f (ratio %5.2f)\n",
           t[L_RNEA], t[M_RNE], t[L_RNEA] / t[M_RNE], t[M_RNE_STAGES], t[L_RNEA] / t[M_RNE_STAGES]);
    printf(
        "  crba   lucid %7.3f us  crb+factorM %7.3f (ratio %5.2f)  +stages %7.3f (ratio %5.2f)\n",
        t[L_CRBA], t[M_CRB], t[L_CRBA] / t[M_CRB], t[M_CRB_STAGES], t[L_CRBA] / t[M_CRB_STAGES]);
    printf("  aba    lucid %7.3f us  mj_forward %7.3f (ratio %5.2f)\n", t[L_ABA], t[M_FORWARD],
           t[L_ABA] / t[M_FORWARD]);
    free(B.mq), free(B.mv), free(B.q), free(B.v), free(B.a), free(B.out);
    lucid_model_data_destroy(B.d);
    lucid_model_destroy(B.m);
    mj->delete_data(B.md);
    mj->delete_model(B.mm);
}
#endif

int main(int argc, char **argv) {
    double seconds = 0.2;
    const char *shared = getenv("LUCID_SHARED_DIR");
    if (!shared) shared = LUCID_SOURCE_DIR "/../shared";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--shared") == 0 && i + 1 < argc)
            shared = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--seconds S] [--shared DIR]\n", argv[0]);
            return 2;
        }
    }
#if HAVE_MUJOCO
    mujoco_api mj;
    if (!load_mujoco(&mj)) {
        fprintf(stderr, "bench_dynamics_mujoco: libmujoco.so.2.2.2 not found\n");
        return 77;
    }
    printf("lucid vs MuJoCo %s, %d states, best of %d loops of ~%.2f s / %d\n", mj.version(),
           NSTATES, REPEATS, seconds, REPEATS);
    const char *humanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml";
    bench_file(&mj, "humanoid", humanoid, humanoid, seconds);
    char allegro[1024], ur5[1024], ur5_stripped[] = "/tmp/lucid_bench_ur5_XXXXXX";
    snprintf(allegro, sizeof allegro, "%s/data/robots/allegro_right_hand.xml", shared);
    snprintf(ur5, sizeof ur5, "%s/data/robots/ur5.urdf", shared);
    bench_file(&mj, "allegro", allegro, allegro, seconds);
    int fd = mkstemp(ur5_stripped); /* MuJoCo tells URDF by its <robot> root */
    if (fd >= 0) close(fd);
    if (fd >= 0 && strip_urdf(ur5, ur5_stripped))
        bench_file(&mj, "ur5", ur5, ur5_stripped, seconds);
    if (fd >= 0) remove(ur5_stripped);
    printf("(sink %g)\n", sink);
    return 0;
#else
    (void)seconds;
    (void)shared;
    fprintf(stderr, "bench_dynamics_mujoco: built without <mujoco/mujoco.h>\n");
    return 77;
#endif
}
