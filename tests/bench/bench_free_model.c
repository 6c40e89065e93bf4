/* N free boxes resting on a floor, built two ways in one program: one model of N bodies on
 * free joints (as an MJCF file of free bodies loads) and N free bodies of the world
 * (lucid_world_add_body). Both settle, then ROUNDS rounds of steps / ROUNDS steps alternate
 * between them; prints each one's median and least ms/step over the rounds, the ratio of the
 * medians, contacts and islands, and the process's peak RSS (docs/benchmarks/free_model.md).
 *
 *   bench_free_model [N=250] [steps=200] [--only model|bodies]
 *
 * --only builds and steps one of the two, so that the peak RSS (here or /usr/bin/time -v) is
 * that scene's alone. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "runtime/model/model.h"
#include "runtime/world/world.h"
#include "solvers/dense/dense_threads.h"

#define HALF    0.05 /* box half-extent (m) */
#define MASS    1.0
#define SPACING 0.15 /* between box centres: 5 cm gaps, so boxes touch only the floor */
#define SETTLE  50   /* steps before timing: the boxes come to rest */
#define ROUNDS  10   /* timed rounds of steps / ROUNDS steps, alternating the two worlds */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void check(lucid_status s, const char *what) {
    if (s == LUCID_OK) return;
    fprintf(stderr, "bench_free_model: %s failed (%d)\n", what, (int)s);
    exit(1);
}

static lucid_mat3 box_inertia(void) {
    lucid_mat3 I = lucid_mat3_identity();
    return lucid_mat3_scale(&I, MASS * (2.0 * HALF) * (2.0 * HALF) / 6.0);
}

/* Box i's centre: a square grid, a small drop onto the floor. */
static lucid_vec3 box_centre(int i, int n) {
    int side = (int)ceil(sqrt((double)n));
    return lucid_vec3_make(SPACING * (i % side), SPACING * (i / side), HALF + 0.002);
}

static lucid_world *floor_world(void) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = 5e-3; /* the everyday scenes */
    lucid_world *w = NULL;
    check(lucid_world_create(&o, &w), "lucid_world_create");
    lucid_body_part part = {{0}, lucid_se3_identity()};
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0, &part.shape);
    lucid_se3 I = lucid_se3_identity();
    int id;
    check(lucid_world_add_static(w, &part, 1, &I, 0.5, &id, NULL), "lucid_world_add_static");
    return w;
}

/* The N boxes as one model: N root bodies, each on its own free joint. */
static lucid_world *model_scene(int n, lucid_model **out) {
    lucid_model_spec *spec;
    check(lucid_model_spec_create(NULL, &spec), "lucid_model_spec_create");
    for (int i = 0; i < n; ++i) {
        char name[32];
        snprintf(name, sizeof name, "box%d", i);
        lucid_body_spec b = lucid_body_spec_default();
        b.name = name;
        b.mass = MASS;
        b.inertia = box_inertia();
        int body;
        check(lucid_model_spec_add_body(spec, &b, &body), "lucid_model_spec_add_body");
        lucid_joint_spec j = lucid_joint_spec_default(LUCID_JOINT_FREE);
        check(lucid_model_spec_add_joint(spec, body, &j, NULL), "lucid_model_spec_add_joint");
        lucid_geom_spec g = lucid_geom_spec_default();
        g.body = body;
        g.friction = 0.5;
        lucid_shape_box(HALF, HALF, HALF, &g.shape);
        check(lucid_model_spec_add_geom(spec, &g, NULL, NULL), "lucid_model_spec_add_geom");
    }
    char err[256];
    check(lucid_model_compile(spec, out, err, sizeof err), "lucid_model_compile");
    lucid_model_spec_destroy(spec);
    double *q = malloc(sizeof(double) * 7 * (size_t)n);
    if (!q) check(LUCID_ERR_NO_MEMORY, "malloc");
    for (int i = 0; i < n; ++i) {
        lucid_vec3 c = box_centre(i, n);
        double qi[7] = {c.x, c.y, c.z, 1, 0, 0, 0};
        memcpy(q + 7 * i, qi, sizeof qi);
    }
    lucid_world *w = floor_world();
    lucid_world_model_desc md;
    lucid_world_model_desc_default(&md);
    md.q = q;
    int id;
    check(lucid_world_add_model(w, *out, &md, &id, NULL), "lucid_world_add_model");
    free(q);
    return w;
}

/* The same boxes as N free bodies. */
static lucid_world *body_scene(int n) {
    lucid_world *w = floor_world();
    lucid_body_part part = {{0}, lucid_se3_identity()};
    lucid_shape_box(HALF, HALF, HALF, &part.shape);
    for (int i = 0; i < n; ++i) {
        lucid_body_desc d;
        lucid_body_desc_default(&d);
        d.parts = &part, d.num_parts = 1;
        d.has_mass = 1, d.mass = MASS;
        d.has_inertia = 1, d.inertia = box_inertia();
        d.pose.t = box_centre(i, n);
        d.friction = 0.5;
        int id;
        check(lucid_world_add_body(w, &d, &id, NULL), "lucid_world_add_body");
    }
    return w;
}

/* Settles world w (SETTLE steps). */
static void settle(lucid_world *w) {
    for (int k = 0; k < SETTLE; ++k) check(lucid_world_step(w), "lucid_world_step");
}

/* ms per step over `steps` steps of w. */
static double time_round(lucid_world *w, int steps) {
    double t0 = now();
    for (int k = 0; k < steps; ++k) check(lucid_world_step(w), "lucid_world_step");
    return 1e3 * (now() - t0) / steps;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median and the least of n rounds' ms/step (sorts t). */
static void summary(const char *name, const lucid_world *w, double *t, int n, double *median) {
    qsort(t, (size_t)n, sizeof *t, by_value);
    *median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    lucid_world_stats st = lucid_world_last_stats(w);
    printf("%-7s median %8.3f ms/step, least %8.3f (%d rounds)  %5d contacts  %5d islands  "
           "converged %d\n",
           name, *median, t[0], n, st.contacts, st.islands, st.converged);
}

int main(int argc, char **argv) {
    int n = 250, steps = 200, want_model = 1, want_bodies = 1;
    for (int a = 1, pos = 0; a < argc; ++a) {
        if (strcmp(argv[a], "--only") == 0 && a + 1 < argc) {
            ++a;
            want_model = strcmp(argv[a], "model") == 0;
            want_bodies = strcmp(argv[a], "bodies") == 0;
            if (!want_model && !want_bodies) {
                fprintf(stderr, "bench_free_model: --only takes model or bodies\n");
                return 2;
            }
        } else if (pos < 2 && atoi(argv[a]) > 0) {
            *(pos++ == 0 ? &n : &steps) = atoi(argv[a]);
        } else {
            fprintf(stderr, "usage: bench_free_model [N] [steps] [--only model|bodies]\n");
            return 2;
        }
    }
    lucid_dense_set_threads(1); /* lucid's dense blocks are small: threads only cost wake-ups */
    printf("%d free boxes on a floor, dt 5 ms, default world, %d steps after %d\n", n,
           ROUNDS * (steps / ROUNDS > 0 ? steps / ROUNDS : 1), SETTLE);
    /* both worlds settled, then rounds alternating between them (the machine's load falls on
     * both alike) */
    lucid_model *m = NULL;
    lucid_world *wm = want_model ? model_scene(n, &m) : NULL;
    lucid_world *wb = want_bodies ? body_scene(n) : NULL;
    if (wm) settle(wm);
    if (wb) settle(wb);
    double tm[ROUNDS], tb[ROUNDS], model_ms = 0.0, body_ms = 0.0;
    int per_round = steps / ROUNDS > 0 ? steps / ROUNDS : 1;
    for (int r = 0; r < ROUNDS; ++r) {
        if (wm) tm[r] = time_round(wm, per_round);
        if (wb) tb[r] = time_round(wb, per_round);
    }
    if (wm) summary("model", wm, tm, ROUNDS, &model_ms);
    if (wb) summary("bodies", wb, tb, ROUNDS, &body_ms);
    if (wm && wb) printf("ratio model / bodies (medians): %.2f\n", model_ms / body_ms);
    lucid_world_destroy(wm), lucid_world_destroy(wb);
    lucid_model_destroy(m);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS: %.1f MiB\n", (double)ru.ru_maxrss / 1024.0);
    return 0;
}
