/* GJK hot path: time per distance query and mean iterations in close proximity, and a
 * robustness sweep of overlapping pairs.
 *
 *   build/tests/bench/bench_gjk [POSES [timing [CATEGORY VARIANT]]]
 *
 * "timing" skips the sweep; CATEGORY (ellipsoid, box, hull2000) and VARIANT (0-3) restrict
 * the timing to one line, e.g. for exact instruction counts per query:
 *   valgrind --tool=callgrind --toggle-collect=run_queries bench_gjk 500 timing box 0
 * (the count covers 3 repetitions: divide by 3 * POSES, or 3 * POSES / 4 for the hull).
 *
 * Timing (POSES queries per category, default 20000): ellipsoid pairs (semi-axes uniform in
 * [0.05, 0.15] m) and box pairs (half-extents in [0.05, 0.15] m), random rotations, translated
 * along their witness axis to a signed distance uniform in (0, 0.1] m; and a hull of 2000
 * random points on an ellipsoid (every point a vertex) against itself, same protocol. Every
 * variant (vanilla GJK, Polyak, Nesterov, Nesterov with normalisation) runs the same poses at
 * the default tolerance; the best of three repetitions is printed as ns/query.
 *
 * Sweep: 3,000 random overlapping ellipsoid pairs (depth up to 0.1 m) in every variant and
 * both tolerance modes, counting results that are not converged or that miss the penetration
 * (distance >= 0) while the reference says overlap. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/shapes/convex_mesh.h"
#include "solvers/collision/collision.h"

#include "tests/c/common/test_random.h"

#define HULL_POINTS 2000
#define SWEEP_PAIRS 3000

typedef struct pose_pair {
    lucid_se3 T1, T2;
} pose_pair;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double in_range(uint64_t *rng, double lo, double hi) {
    return lo + (hi - lo) * uniform(rng);
}

/* Random relative pose moved along the witness axis so the signed distance is `target`. */
static pose_pair place_at(const lucid_shape *s1, const lucid_shape *s2, double target,
                          uint64_t *rng) {
    pose_pair p;
    p.T1 = lucid_se3_make(random_rotation(rng), lucid_vec3_zero());
    p.T2 = lucid_se3_make(random_rotation(rng), lucid_vec3_scale(random_direction(rng), 0.6));
    lucid_gjk_options o;
    lucid_gjk_options_default(&o);
    o.tol = 1e-14;
    for (int pass = 0; pass < 3; ++pass) { /* the witness axis turns a little once moved */
        lucid_distance_result r;
        lucid_distance(s1, &p.T1, s2, &p.T2, &o, &r);
        p.T2.t = lucid_vec3_axpy(p.T2.t, target - r.distance, r.normal);
    }
    return p;
}

/* Optional restriction to one category and variant (command line), NULL / -1 for all. */
typedef struct selection {
    const char *category;
    int variant;
} selection;

static const char *const VARIANT_NAMES[4] = {"gjk", "polyak", "nesterov", "nesterov+norm"};

static void variant(int i, lucid_gjk_options *o) {
    lucid_gjk_options_default(o);
    o->algorithm = i == 0 ? LUCID_GJK_VANILLA : i == 1 ? LUCID_GJK_POLYAK : LUCID_GJK_NESTEROV;
    o->normalize = i == 3;
}

/* The timed loop, kept out of line so a profiler can count it alone (valgrind
 * --tool=callgrind --toggle-collect=run_queries gives instructions per query). Pairs change
 * every 100 poses (as in the paper's protocol); shapes2 = NULL means one pair for all. */
__attribute__((noinline)) static long run_queries(const lucid_shape *shapes, int pair_stride,
                                                  const pose_pair *poses, int n,
                                                  const lucid_gjk_options *o, double *checksum) {
    long it = 0;
    for (int i = 0; i < n; ++i) {
        const lucid_shape *s = &shapes[pair_stride * 2 * (i / 100)];
        lucid_distance_result r;
        lucid_distance(&s[0], &poses[i].T1, &s[1], &poses[i].T2, o, &r);
        it += r.iterations;
        *checksum += r.distance;
    }
    return it;
}

static void time_queries(const char *name, const lucid_shape *shapes, int pair_stride,
                         const pose_pair *poses, int n, const selection *only) {
    if (only->category && strcmp(only->category, name) != 0) return;
    for (int v = 0; v < 4; ++v) {
        if (only->variant >= 0 && v != only->variant) continue;
        lucid_gjk_options o;
        variant(v, &o);
        double best = INFINITY, iters = 0.0, checksum = 0.0;
        for (int rep = 0; rep < 3; ++rep) {
            double t0 = now_seconds();
            long it = run_queries(shapes, pair_stride, poses, n, &o, &checksum);
            best = fmin(best, now_seconds() - t0);
            iters = (double)it / n;
        }
        printf("%-10s %-14s %8.1f ns/query  %6.2f iterations  (mean distance %.9f)\n", name,
               VARIANT_NAMES[v], 1e9 * best / n, iters, checksum / (3.0 * n));
    }
}

static void random_ellipsoid(uint64_t *rng, lucid_shape *s) {
    lucid_shape_ellipsoid(in_range(rng, 0.05, 0.15), in_range(rng, 0.05, 0.15),
                          in_range(rng, 0.05, 0.15), s);
}

static void random_box(uint64_t *rng, lucid_shape *s) {
    lucid_shape_box(in_range(rng, 0.05, 0.15), in_range(rng, 0.05, 0.15), in_range(rng, 0.05, 0.15),
                    s);
}

/* Pairs change every 100 poses (as in the paper's protocol). */
static void bench_primitives(const char *name, void (*make)(uint64_t *, lucid_shape *), int n,
                             pose_pair *poses, lucid_shape *shapes, const selection *only) {
    uint64_t rng = 17;
    for (int i = 0; i < n; ++i) {
        if (i % 100 == 0) {
            make(&rng, &shapes[2 * (i / 100)]);
            make(&rng, &shapes[2 * (i / 100) + 1]);
        }
        poses[i] = place_at(&shapes[2 * (i / 100)], &shapes[2 * (i / 100) + 1],
                            in_range(&rng, 1e-6, 0.1), &rng);
    }
    time_queries(name, shapes, 1, poses, n, only);
}

static int bench_hull(int n, pose_pair *poses, const selection *only) {
    uint64_t rng = 5;
    double *pts = malloc(3 * HULL_POINTS * sizeof *pts);
    if (!pts) return 1;
    for (int i = 0; i < HULL_POINTS; ++i) {
        lucid_vec3 d = random_direction(&rng);
        pts[3 * i] = 0.1 * d.x;
        pts[3 * i + 1] = 0.06 * d.y;
        pts[3 * i + 2] = 0.04 * d.z;
    }
    lucid_convex_mesh *mesh = NULL;
    lucid_status st = lucid_convex_mesh_create(pts, HULL_POINTS, &mesh);
    free(pts);
    if (st != LUCID_OK) return 1;
    lucid_shape hull;
    lucid_shape_convex(mesh, &hull);
    for (int i = 0; i < n; ++i) poses[i] = place_at(&hull, &hull, in_range(&rng, 1e-6, 0.1), &rng);
    lucid_shape pair[2] = {hull, hull};
    time_queries("hull2000", pair, 0, poses, n, only);
    lucid_convex_mesh_destroy(mesh);
    return 0;
}

/* Overlapping ellipsoid pairs in every variant and tolerance mode: how often does the result
 * miss the penetration or fail to converge? */
static void sweep_overlaps(void) {
    int bad[4][2] = {{0}}, unconverged[4][2] = {{0}}, epa_cap = 0, gjk_cap = 0;
    long epa_iters = 0;
    uint64_t rng = 99;
    for (int p = 0; p < SWEEP_PAIRS; ++p) {
        lucid_shape e1, e2;
        random_ellipsoid(&rng, &e1);
        random_ellipsoid(&rng, &e2);
        pose_pair pp = place_at(&e1, &e2, -in_range(&rng, 1e-6, 0.1), &rng);
        lucid_distance_result ref;
        lucid_distance(&e1, &pp.T1, &e2, &pp.T2, NULL, &ref);
        epa_iters += ref.epa_iterations;
        epa_cap += !ref.converged;
        for (int v = 0; v < 4; ++v)
            for (int mode = 0; mode < 2; ++mode) {
                lucid_gjk_options o;
                variant(v, &o);
                o.tol_mode = mode ? LUCID_GJK_TOL_RELATIVE : LUCID_GJK_TOL_ABSOLUTE;
                lucid_distance_result r;
                lucid_distance(&e1, &pp.T1, &e2, &pp.T2, &o, &r);
                bad[v][mode] += !(r.distance < 0.0) || !r.penetrating;
                unconverged[v][mode] += !r.converged;
                gjk_cap += r.iterations >= o.max_iter;
            }
    }
    printf("\noverlap sweep: %d ellipsoid pairs, depth in (0, 0.1] m\n", SWEEP_PAIRS);
    printf("default options: %d not converged, mean EPA iterations %.1f\n", epa_cap,
           (double)epa_iters / SWEEP_PAIRS);
    for (int v = 0; v < 4; ++v)
        printf("%-14s absolute: %d missed, %d not converged | relative: %d missed, %d not "
               "converged\n",
               VARIANT_NAMES[v], bad[v][0], unconverged[v][0], bad[v][1], unconverged[v][1]);
    printf("GJK iteration caps reached: %d\n", gjk_cap);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    if (n < 100) n = 100;
    n -= n % 100;
    pose_pair *poses = malloc((size_t)n * sizeof *poses);
    lucid_shape *shapes = malloc((size_t)(n / 50) * sizeof *shapes);
    if (!poses || !shapes) return 1;
    selection only = {argc > 4 ? argv[3] : NULL, argc > 4 ? atoi(argv[4]) : -1};
    printf("distance queries at signed distance in (0, 0.1] m, %d poses per category\n", n);
    bench_primitives("ellipsoid", random_ellipsoid, n, poses, shapes, &only);
    bench_primitives("box", random_box, n, poses, shapes, &only);
    int status = bench_hull(n / 4, poses, &only);
    if (argc <= 2) sweep_overlaps(); /* "timing" as second argument skips it (profiling) */
    free(poses);
    free(shapes);
    return status;
}
