/* A robot's joint log simulated by MuJoCo 2.2.2, for the robot-from-logs identification
 * (tasks/sysid.lua --problem log, tests/lua/test_sysid_log.lua): MuJoCo's arm, with its joint
 * damping, frictionloss and armature, tracks a reference trajectory under PD control, and the
 * log holds what a lab records. MuJoCo is dlopen'ed (tests/bench/mujoco_api.h); lucid never
 * links it.
 *
 *   mujoco_arm_log MODEL.xml REF.csv OUT.csv SEED SIGMA_Q SIGMA_V SIGMA_TAU KP KD EVERY
 *
 * REF.csv: a header `t,q_<joint>...,v_<joint>...[,...]` (tasks/sysid.lua --problem excite), the
 * model's hinge/slide joints in model order, uniform t starting at 0. MuJoCo starts at the first
 * row's q and v and steps at the model's timestep; the torque M_jj (KP (q_ref - q) + KD (v_ref -
 * v)) (the reference linearly interpolated; M_jj joint j's diagonal of the mass matrix at the
 * start, so KP and KD are in 1/s^2 and 1/s for every joint) is applied through qfrc_applied at
 * every step. Every
 * EVERY-th step one row `t,q_<joint>...,v_<joint>...,tau_<joint>...` is written with Gaussian
 * noise of the given standard deviations (xoshiro256+ seeded by SEED, Box-Muller) until the
 * reference ends. Exit 77 (skip) when MuJoCo is absent, 2 on bad arguments, 1 on bad files. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<mujoco/mujoco.h>) && __has_include(<dlfcn.h>)
#define HAVE_MUJOCO_HEADER 1
#endif
#endif

#ifdef HAVE_MUJOCO_HEADER
#include "tests/bench/mujoco_api.h"

#define MAX_JOINTS 16
#define MAX_LINE   65536

typedef struct noise_rng {
    uint64_t s[4];
} noise_rng;

static uint64_t rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

static double uniform01(noise_rng *r) {
    const uint64_t result = r->s[0] + r->s[3], t = r->s[1] << 17;
    r->s[2] ^= r->s[0], r->s[3] ^= r->s[1], r->s[1] ^= r->s[2], r->s[0] ^= r->s[3];
    r->s[2] ^= t, r->s[3] = rotl(r->s[3], 45);
    return ((double)(result >> 11) + 0.5) * 0x1.0p-53;
}

static double normal(noise_rng *r) {
    const double u1 = uniform01(r), u2 = uniform01(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

typedef struct reference {
    int rows, nj;
    double *t, *q, *v; /* rows, rows x nj each */
} reference;

/* The reference's q_ and v_ columns of the model's joints, by name; line is a MAX_LINE buffer. */
static int read_reference_into(const char *path, const mjModel *m, reference *ref, char *line) {
    FILE *f = fopen(path, "r");
    if (!f) return fprintf(stderr, "mujoco_arm_log: cannot open %s\n", path), 0;
    if (!fgets(line, MAX_LINE, f)) return fclose(f), 0;
    int col_q[MAX_JOINTS], col_v[MAX_JOINTS], ncol = 0;
    for (int j = 0; j < m->njnt; ++j) col_q[j] = col_v[j] = -1;
    for (char *tok = strtok(line, ",\r\n"); tok; tok = strtok(NULL, ",\r\n"), ++ncol) {
        for (int j = 0; j < m->njnt; ++j) {
            const char *name = m->names + m->name_jntadr[j];
            if ((tok[0] == 'q' || tok[0] == 'v') && tok[1] == '_' && !strcmp(tok + 2, name))
                *(tok[0] == 'q' ? &col_q[j] : &col_v[j]) = ncol;
        }
    }
    for (int j = 0; j < m->njnt; ++j)
        if (col_q[j] < 0 || col_v[j] < 0)
            return fprintf(stderr, "mujoco_arm_log: %s lacks q_/v_ of joint %d\n", path, j),
                   fclose(f), 0;
    int cap = 1024;
    ref->nj = m->njnt, ref->rows = 0;
    ref->t = malloc(sizeof(double) * (size_t)cap);
    ref->q = malloc(sizeof(double) * (size_t)cap * (size_t)m->njnt);
    ref->v = malloc(sizeof(double) * (size_t)cap * (size_t)m->njnt);
    while (ref->t && ref->q && ref->v && fgets(line, MAX_LINE, f)) {
        if (ref->rows == cap) {
            cap *= 2;
            double *t = realloc(ref->t, sizeof(double) * (size_t)cap);
            if (t) ref->t = t;
            double *q = realloc(ref->q, sizeof(double) * (size_t)cap * (size_t)m->njnt);
            if (q) ref->q = q;
            double *v = realloc(ref->v, sizeof(double) * (size_t)cap * (size_t)m->njnt);
            if (v) ref->v = v;
            if (!t || !q || !v) break;
        }
        double cells[4 * MAX_JOINTS + 1];
        int k = 0;
        for (char *tok = strtok(line, ","); tok && k < ncol && k <= 4 * MAX_JOINTS;
             tok = strtok(NULL, ","))
            cells[k++] = strtod(tok, NULL);
        if (k != ncol) continue;
        const int r = ref->rows++;
        ref->t[r] = cells[0];
        for (int j = 0; j < m->njnt; ++j) {
            ref->q[r * m->njnt + j] = cells[col_q[j]];
            ref->v[r * m->njnt + j] = cells[col_v[j]];
        }
    }
    fclose(f);
    return ref->rows >= 2;
}

static int read_reference(const char *path, const mjModel *m, reference *ref) {
    char *line = malloc(MAX_LINE);
    const int ok = line && read_reference_into(path, m, ref, line);
    free(line);
    return ok;
}

static int run(char **argv) {
    mujoco_api api;
    if (!load_mujoco(&api)) {
        fprintf(stderr, "mujoco_arm_log: libmujoco.so.2.2.2 not loadable: skipped\n");
        return 77;
    }
    char error[1000] = "";
    mjModel *m = api.load_xml(argv[1], NULL, error, sizeof error);
    if (!m) return fprintf(stderr, "mujoco_arm_log: %s: %s\n", argv[1], error), 1;
    if (m->njnt > MAX_JOINTS || m->njnt != m->nv || m->nq != m->nv)
        return fprintf(stderr, "mujoco_arm_log: hinge/slide joints only (at most 16)\n"), 1;
    reference ref = {0};
    if (!read_reference(argv[2], m, &ref)) return 1;
    FILE *out = fopen(argv[3], "w");
    if (!out) return fprintf(stderr, "mujoco_arm_log: cannot write %s\n", argv[3]), 1;
    noise_rng rng = {{0x9E3779B97F4A7C15ull ^ strtoull(argv[4], NULL, 10), 0xD1B54A32D192ED03ull,
                      0x8CB92BA72F3D8DD7ull, 0x2545F4914F6CDD1Dull}};
    for (int i = 0; i < 16; ++i) uniform01(&rng);
    const double sq = atof(argv[5]), sv = atof(argv[6]), st = atof(argv[7]);
    const double kp = atof(argv[8]), kd = atof(argv[9]);
    const int every = atoi(argv[10]);
    const int nj = m->njnt;
    fprintf(out, "t");
    for (int k = 0; k < 3; ++k)
        for (int j = 0; j < nj; ++j)
            fprintf(out, ",%s_%s",
                    k == 0   ? "q"
                    : k == 1 ? "v"
                             : "tau",
                    m->names + m->name_jntadr[j]);
    fprintf(out, "\n");
    mjData *d = api.make_data(m);
    for (int j = 0; j < nj; ++j) d->qpos[j] = ref.q[j], d->qvel[j] = ref.v[j];
    api.forward(m, d);
    double mjj[MAX_JOINTS];
    for (int j = 0; j < nj; ++j) mjj[j] = d->qM[m->dof_Madr[j]];
    const double h = m->opt.timestep, t_end = ref.t[ref.rows - 1];
    int row = 0;
    for (long step = 0; step * h <= t_end; ++step) {
        const double t = step * h;
        while (row + 2 < ref.rows && ref.t[row + 1] <= t) ++row;
        const double w = (t - ref.t[row]) / (ref.t[row + 1] - ref.t[row]);
        for (int j = 0; j < nj; ++j) {
            const double qr = (1 - w) * ref.q[row * nj + j] + w * ref.q[(row + 1) * nj + j];
            const double vr = (1 - w) * ref.v[row * nj + j] + w * ref.v[(row + 1) * nj + j];
            d->qfrc_applied[j] = mjj[j] * (kp * (qr - d->qpos[j]) + kd * (vr - d->qvel[j]));
        }
        if (step % every == 0) {
            fprintf(out, "%.6f", t);
            for (int j = 0; j < nj; ++j) fprintf(out, ",%.9g", d->qpos[j] + sq * normal(&rng));
            for (int j = 0; j < nj; ++j) fprintf(out, ",%.7g", d->qvel[j] + sv * normal(&rng));
            for (int j = 0; j < nj; ++j)
                fprintf(out, ",%.7g", d->qfrc_applied[j] + st * normal(&rng));
            fprintf(out, "\n");
        }
        api.step(m, d);
    }
    free(ref.t), free(ref.q), free(ref.v);
    api.delete_data(d);
    api.delete_model(m);
    return fclose(out) == 0 ? 0 : 1;
}
#endif

int main(int argc, char **argv) {
    if (argc != 11) {
        fprintf(stderr, "usage: mujoco_arm_log MODEL.xml REF.csv OUT.csv SEED SIGMA_Q SIGMA_V "
                        "SIGMA_TAU KP KD EVERY\n");
        return 2;
    }
#ifdef HAVE_MUJOCO_HEADER
    return run(argv);
#else
    fprintf(stderr, "mujoco_arm_log: built without <mujoco/mujoco.h>: skipped\n");
    return 77;
#endif
}
