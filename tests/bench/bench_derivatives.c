/* Collision-derivative estimators: time per query on the convex hulls of the shared meshes,
 * the paper's Table II ("Differentiable Collision Detection: a Randomized Smoothing
 * Approach").
 *
 *   build/tests/bench/bench_derivatives [MESH_DIR] [PAIRS] [ONLY]
 *
 * ONLY (a method label, e.g. "1st-order Gaussian  M = 10") restricts the run to that row
 * plus finite differences, for profiling one estimator (perf record).
 *
 * MESH_DIR defaults to $LUCID_MESHES_DIR, else <repo>/../shared/data/meshes (manifest.tsv
 * lists the files). Every hull is scaled so its largest bounding-box side is uniform in
 * [5, 30] cm. PAIRS (default 300) random pairs get a random relative rotation and direction;
 * shape 2 is slid along the direction to contact (bisection), then set to penetrate
 * ("collision", depth 5% of the smaller size) or to be separated ("no collision", gap 20%).
 *
 * Timed: the derivative work only (lucid_distance_derivatives_from_query, after the nominal
 * query, as in the paper's table; the nominal GJK/EPA time is printed for reference). Each
 * pair is run REPS times (seeds 0..REPS-1) and its time is the fastest run, which filters out
 * preemption on a shared machine; mean, standard deviation and median are over pairs. Finite
 * differences "M = 12" are central differences on the 6 twist coordinates: 12 warm-started distance
 * queries. The ratio column is finite differences' time over the estimator's, in the same run. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "autodiff/collision_derivatives.h"
#include "runtime/math/rng.h"
#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/mesh_file.h"

#define MAX_MESHES 64
#define REPS       5

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct mesh_set {
    int count;
    lucid_convex_mesh *hulls[MAX_MESHES];
    lucid_shape shapes[MAX_MESHES];
    double sizes[MAX_MESHES]; /* largest bounding-box side after scaling (m) */
} mesh_set;

/* Largest bounding-box side of n xyz triples. */
static double largest_side(const double *p, int n) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
            lo[k] = fmin(lo[k], p[3 * i + k]);
            hi[k] = fmax(hi[k], p[3 * i + k]);
        }
    return fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
}

static int load_meshes(const char *root, lucid_rng *rng, mesh_set *set) {
    char path[1024], line[4096];
    snprintf(path, sizeof path, "%s/manifest.tsv", root);
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    set->count = 0;
    if (fgets(line, sizeof line, f) == NULL) line[0] = 0; /* header */
    while (set->count < MAX_MESHES && fgets(line, sizeof line, f)) {
        char file[512];
        if (sscanf(line, "%511[^\t]", file) != 1) continue;
        snprintf(path, sizeof path, "%s/%s", root, file);
        double *p = NULL;
        int n = 0;
        char err[512];
        if (lucid_mesh_file_read_points(path, 1.0, &p, &n, err, sizeof err) != LUCID_OK) {
            fprintf(stderr, "skipping %s\n", err);
            continue;
        }
        double size = 0.05 + 0.25 * lucid_rng_uniform(rng);
        double scale = size / largest_side(p, n);
        for (int i = 0; i < 3 * n; ++i) p[i] *= scale;
        lucid_convex_mesh *m = NULL;
        if (lucid_convex_mesh_create(p, n, &m) == LUCID_OK) {
            set->hulls[set->count] = m;
            lucid_shape_convex(m, &set->shapes[set->count]);
            set->sizes[set->count] = size;
            set->count++;
        }
        free(p);
    }
    fclose(f);
    return set->count;
}

typedef struct pair_config {
    int a, b;
    lucid_se3 T1, T2;
} pair_config;

/* T2 = (R, t0 + s u) with the shapes touching at s (bisection on the sign of the distance);
 * then shifted by `offset` along u. */
static lucid_se3 place(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                       lucid_mat3 R, lucid_vec3 u, double reach, double offset) {
    double lo = 0.0, hi = reach;
    lucid_distance_result r;
    for (int it = 0; it < 60; ++it) {
        double mid = 0.5 * (lo + hi);
        lucid_se3 T = lucid_se3_make(R, lucid_vec3_scale(u, mid));
        lucid_distance(s1, T1, s2, &T, NULL, &r);
        if (r.distance < 0.0)
            lo = mid;
        else
            hi = mid;
    }
    return lucid_se3_make(R, lucid_vec3_scale(u, hi + offset));
}

static lucid_vec3 random_unit(lucid_rng *rng) {
    lucid_vec3 v =
        lucid_vec3_make(lucid_rng_normal(rng), lucid_rng_normal(rng), lucid_rng_normal(rng));
    return lucid_vec3_normalized(v);
}

static void make_pairs(const mesh_set *set, int collision, int count, lucid_rng *rng,
                       pair_config *pairs) {
    for (int i = 0; i < count; ++i) {
        pair_config *p = &pairs[i];
        p->a = (int)lucid_rng_integer(rng, 0, set->count - 1);
        p->b = (int)lucid_rng_integer(rng, 0, set->count - 1);
        lucid_quat q1 = lucid_se3_random_quat(rng), q2 = lucid_se3_random_quat(rng);
        lucid_se3_from_quat(q1, lucid_vec3_zero(), &p->T1);
        lucid_se3 R2;
        lucid_se3_from_quat(q2, lucid_vec3_zero(), &R2);
        double smaller = fmin(set->sizes[p->a], set->sizes[p->b]);
        double offset = collision ? -0.05 * smaller : 0.2 * smaller;
        p->T2 = place(&set->shapes[p->a], &p->T1, &set->shapes[p->b], R2.R, random_unit(rng),
                      set->sizes[p->a] + set->sizes[p->b], offset);
    }
}

typedef struct method_row {
    const char *label;
    lucid_derivative_method method;
    int samples;
    double noise;
    int levels;
} method_row;

/* Table II's grid (noise as in Table I; it does not change the cost). */
static const method_row rows[] = {
    {"finite differences  M = 12", LUCID_DERIV_FINITE_DIFFERENCES, 0, 0, 0},
    {"0th-order Gaussian  M = 20", LUCID_DERIV_ZEROTH_ORDER, 20, 1e-2, 0},
    {"0th-order Gaussian  M = 50", LUCID_DERIV_ZEROTH_ORDER, 50, 1e-2, 0},
    {"0th-order Gaussian  M = 100", LUCID_DERIV_ZEROTH_ORDER, 100, 1e-2, 0},
    {"1st-order Gaussian  M = 10", LUCID_DERIV_FIRST_ORDER_GAUSSIAN, 10, 1e-3, 0},
    {"1st-order Gaussian  M = 20", LUCID_DERIV_FIRST_ORDER_GAUSSIAN, 20, 1e-3, 0},
    {"1st-order Gaussian  M = 50", LUCID_DERIV_FIRST_ORDER_GAUSSIAN, 50, 1e-3, 0},
    {"1st-order Gaussian  M = 100", LUCID_DERIV_FIRST_ORDER_GAUSSIAN, 100, 1e-3, 0},
    {"1st-order Gumbel    n_l = 1", LUCID_DERIV_FIRST_ORDER_GUMBEL, 0, 1e-4, 1},
    {"1st-order Gumbel    n_l = 3", LUCID_DERIV_FIRST_ORDER_GUMBEL, 0, 1e-4, 3},
    {"1st-order Gumbel    n_l = 5", LUCID_DERIV_FIRST_ORDER_GUMBEL, 0, 1e-4, 5},
};
#define ROWS ((int)(sizeof rows / sizeof rows[0]))

typedef struct timing {
    double mean, std, median; /* microseconds per query */
    int failures;
} timing;

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Mean, standard deviation and median of t[0..n) (t is sorted in place). */
static timing summarise(double *t, int n, int failures) {
    double sum = 0.0, sq = 0.0;
    for (int i = 0; i < n; ++i) sum += t[i];
    double mean = sum / n;
    for (int i = 0; i < n; ++i) sq += (t[i] - mean) * (t[i] - mean);
    qsort(t, (size_t)n, sizeof *t, compare_doubles);
    double median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    timing r = {mean, sqrt(sq / n), median, failures};
    return r;
}

/* The fastest of REPS derivative computations (seeds 0..REPS-1) on one pair, in us. */
static double time_pair(const mesh_set *set, const pair_config *p, const method_row *row,
                        lucid_derivative_workspace *ws, int *failures) {
    /* lucid_distance's default query options for the nominal query and the estimators'
     * inner queries, and the paper's step 1e-6 for finite differences: the baseline is the
     * paper's (on polytopes GJK ends exactly, so these tolerances are accurate there), not
     * the slower derivative-grade defaults of lucid_distance_derivatives. */
    lucid_gjk_options gjk;
    lucid_gjk_options_default(&gjk);
    lucid_derivative_options o;
    lucid_derivative_options_default(&o);
    o.gjk = &gjk;
    o.step = 1e-6;
    o.method = row->method;
    if (row->samples > 0) o.samples = row->samples;
    if (row->noise > 0) o.noise = row->noise;
    o.levels = row->levels;
    const lucid_shape *s1 = &set->shapes[p->a], *s2 = &set->shapes[p->b];
    lucid_distance_result q;
    lucid_distance(s1, &p->T1, s2, &p->T2, NULL, &q);
    lucid_distance_derivatives_result r;
    double best = INFINITY;
    for (int k = 0; k < REPS; ++k) {
        o.seed = (uint64_t)k;
        double t0 = now_seconds();
        if (lucid_distance_derivatives_from_query(s1, &p->T1, s2, &p->T2, &o, ws, &q, &r) !=
            LUCID_OK)
            (*failures)++;
        best = fmin(best, 1e6 * (now_seconds() - t0));
    }
    return best;
}

/* The fastest of REPS nominal distance queries on one pair, in us. */
static double time_pair_query(const mesh_set *set, const pair_config *p) {
    lucid_distance_result q;
    double best = INFINITY;
    for (int k = 0; k < REPS; ++k) {
        double t0 = now_seconds();
        lucid_distance(&set->shapes[p->a], &p->T1, &set->shapes[p->b], &p->T2, NULL, &q);
        best = fmin(best, 1e6 * (now_seconds() - t0));
    }
    return best;
}

/* Time of the standard normals one first-order Gaussian estimate draws: 2 shapes x M samples
 * x 3 coordinates (lucid_rng_normal: ziggurat, platform-independent). */
static double normals_time_us(int samples) {
    lucid_rng rng;
    lucid_rng_seed(&rng, 1);
    const int rounds = 200000;
    double sink = 0.0, t0 = now_seconds();
    for (int r = 0; r < rounds; ++r)
        for (int k = 0; k < 6 * samples; ++k) sink += lucid_rng_normal(&rng);
    double t = 1e6 * (now_seconds() - t0) / rounds;
    return sink == 12345.0 ? 0.0 : t; /* keeps the loop */
}

int main(int argc, char **argv) {
    const char *root = argc > 1 && argv[1][0] ? argv[1] : getenv("LUCID_MESHES_DIR");
    if (root == NULL) root = LUCID_SOURCE_DIR "/../shared/data/meshes";
    int count = argc > 2 ? atoi(argv[2]) : 300;
    if (count < 1) count = 1;
    lucid_rng rng;
    lucid_rng_seed(&rng, 2023);
    static mesh_set set;
    if (!load_meshes(root, &rng, &set)) {
        fprintf(stderr, "no meshes under %s (pass MESH_DIR or set LUCID_MESHES_DIR)\n", root);
        return 1;
    }
    int vmin = set.hulls[0]->num_vertices, vmax = vmin;
    for (int i = 1; i < set.count; ++i) {
        vmin = set.hulls[i]->num_vertices < vmin ? set.hulls[i]->num_vertices : vmin;
        vmax = set.hulls[i]->num_vertices > vmax ? set.hulls[i]->num_vertices : vmax;
    }
    printf("%d hulls (%d-%d vertices) scaled to 5-30 cm, %d pairs per configuration, "
           "%d repetitions\n",
           set.count, vmin, vmax, count, REPS);
    pair_config *pairs[2] = {malloc((size_t)count * sizeof(pair_config)),
                             malloc((size_t)count * sizeof(pair_config))};
    /* times[r * count + i]: row r (ROWS = the nominal query) on pair i */
    double *times = malloc((size_t)(ROWS + 1) * (size_t)count * sizeof(double));
    lucid_derivative_workspace *ws = NULL;
    if (!pairs[0] || !pairs[1] || !times || lucid_derivative_workspace_create(&ws) != LUCID_OK)
        return 1;
    make_pairs(&set, 1, count, &rng, pairs[0]);
    make_pairs(&set, 0, count, &rng, pairs[1]);
    int selected[ROWS];
    for (int r = 0; r < ROWS; ++r)
        selected[r] = r == 0 || argc <= 3 || strcmp(rows[r].label, argv[3]) == 0;
    timing t[ROWS][2], query[2];
    for (int c = 0; c < 2; ++c) {
        /* Methods interleaved pair by pair, so that a slow spell of the machine hits every
         * method alike and the ratios stay meaningful. */
        int failures[ROWS] = {0};
        for (int i = 0; i < count; ++i) {
            times[ROWS * count + i] = time_pair_query(&set, &pairs[c][i]);
            for (int r = 0; r < ROWS; ++r)
                if (selected[r])
                    times[r * count + i] =
                        time_pair(&set, &pairs[c][i], &rows[r], ws, &failures[r]);
        }
        query[c] = summarise(times + ROWS * count, count, 0);
        for (int r = 0; r < ROWS; ++r)
            if (selected[r]) t[r][c] = summarise(times + r * count, count, failures[r]);
    }
    printf("\ntimes in microseconds per query: mean +- std [median] (FD mean / mean)\n");
    printf("%-28s | %-37s | %-37s\n", "method", "collision", "no collision");
    printf("%-28s |", "(nominal GJK+EPA query)");
    for (int c = 0; c < 2; ++c)
        printf(" %7.2f +- %-7.2f [%7.2f]         |", query[c].mean, query[c].std, query[c].median);
    printf("\n");
    for (int r = 0; r < ROWS; ++r) {
        if (!selected[r]) continue;
        printf("%-28s |", rows[r].label);
        for (int c = 0; c < 2; ++c)
            printf(" %7.2f +- %-7.2f [%7.2f] (%5.1fx) |", t[r][c].mean, t[r][c].std, t[r][c].median,
                   t[0][c].mean / t[r][c].mean);
        if (t[r][0].failures + t[r][1].failures)
            printf(" %d failed", t[r][0].failures + t[r][1].failures);
        printf("\n");
    }
    if (!selected[4] || !selected[8]) return 0;
    double gumbel = t[0][0].mean / t[8][0].mean, gaussian = t[0][0].mean / t[4][0].mean;
    printf("\ncollision: Gumbel n_l=1 is %.1fx cheaper than finite differences (target >= 40x): "
           "%s\n",
           gumbel, gumbel >= 40 ? "met" : "NOT met");
    double normals = normals_time_us(10);
    printf("profile: the 60 standard normals of one 1st-order Gaussian M=10 estimate take %.2f us "
           "(%.0f%% of its collision time)\n",
           normals, 100.0 * normals / t[4][0].mean);
    printf("collision: Gaussian M=10 is %.1fx cheaper than finite differences (target >= 15x): "
           "%s\n",
           gaussian, gaussian >= 15 ? "met" : "NOT met");
    lucid_derivative_workspace_destroy(ws);
    for (int i = 0; i < set.count; ++i) lucid_convex_mesh_destroy(set.hulls[i]);
    free(pairs[0]);
    free(pairs[1]);
    free(times);
    return 0;
}
