/* The P-SDF query (lucid_pscaling) against lucid's GJK/EPA signed distance (lucid_distance,
 * default options) on the same pairs: time per query of both, their ratio, the P-SDF's
 * interior-point iterations, and the cost of its pose derivatives.
 *
 *   build/tests/bench/bench_pscaling [POSES]        (default 2000 poses per shape pair)
 *
 * For every ordered pair of sphere, capsule, cylinder, box, ellipsoid, cone, a 6-vertex hull
 * and the halfspace (with a bounded partner), POSES random poses (uniform-ish rotations,
 * centres in a ball of radius 1 m around each other; about half overlap) are drawn once; each
 * method runs over the same list, best of 3 repetitions. Columns: ns/query of lucid_distance,
 * of lucid_pscaling, of lucid_pscaling with derivatives (12 sensitivity solves), the ratio
 * pscaling / distance, and mean and max IP iterations. The last lines summarise the ratios
 * per pair (median, geometric mean, range) and over all pairs (total time ratio: dominated by
 * the curved pairs, where GJK and EPA are slowest). Times are the thread's CPU time (the
 * machine may be shared). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "runtime/shapes/convex_mesh.h"
#include "solvers/collision/collision.h"
#include "solvers/collision/pscaling.h"

#include "tests/c/common/test_random.h"

#define KINDS   8
#define REPEATS 3

static const char *const NAMES[KINDS] = {"sphere",    "capsule", "cylinder", "box",
                                         "ellipsoid", "cone",    "hull",     "halfspace"};
static const double HULL[] = {0.3, 0, 0,   -0.2, 0.25, 0,    -0.2, -0.25, 0,
                              0,   0, 0.4, 0.05, 0.1,  -0.3, 0.1,  -0.2,  0.2};

typedef struct pose_pair {
    lucid_se3 T1, T2;
} pose_pair;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* the machine is shared: CPU time */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void make_shape(int k, lucid_convex_mesh *mesh, lucid_shape *s) {
    switch (k) {
        case 0:
            lucid_shape_sphere(0.4, s);
            break;
        case 1:
            lucid_shape_capsule(0.2, 0.3, s);
            break;
        case 2:
            lucid_shape_cylinder(0.3, 0.25, s);
            break;
        case 3:
            lucid_shape_box(0.3, 0.2, 0.4, s);
            break;
        case 4:
            lucid_shape_ellipsoid(0.3, 0.2, 0.4, s);
            break;
        case 5:
            lucid_shape_cone(0.3, 0.35, s);
            break;
        case 6:
            lucid_shape_convex(mesh, s);
            break;
        default:
            lucid_shape_halfspace(lucid_vec3_make(0.2, -0.1, 1.0), 0.05, s);
    }
}

/* Sink for results, so the compiler keeps every query. */
static volatile double sink;

static double time_distance(const lucid_shape *a, const lucid_shape *b, const pose_pair *p, int n) {
    double best = INFINITY;
    for (int rep = 0; rep < REPEATS; ++rep) {
        double t0 = now_seconds(), acc = 0.0;
        for (int i = 0; i < n; ++i) {
            lucid_distance_result r;
            lucid_distance(a, &p[i].T1, b, &p[i].T2, NULL, &r);
            acc += r.distance;
        }
        best = fmin(best, now_seconds() - t0);
        sink = acc;
    }
    return best / n;
}

static double time_pscaling(const lucid_shape *a, const lucid_shape *b, const pose_pair *p, int n,
                            int derivatives, double *mean_it, int *max_it, int *failures) {
    lucid_pscaling_options o;
    lucid_pscaling_options_default(&o);
    o.derivatives = derivatives;
    double best = INFINITY;
    for (int rep = 0; rep < REPEATS; ++rep) {
        long its = 0;
        int worst = 0, fails = 0;
        double t0 = now_seconds(), acc = 0.0;
        for (int i = 0; i < n; ++i) {
            lucid_pscaling_result r;
            fails += lucid_pscaling(a, &p[i].T1, b, &p[i].T2, &o, &r) != LUCID_OK;
            acc += r.alpha;
            its += r.iterations;
            worst = r.iterations > worst ? r.iterations : worst;
        }
        best = fmin(best, now_seconds() - t0);
        sink = acc;
        *mean_it = (double)its / n;
        *max_it = worst;
        *failures = fails;
    }
    return best / n;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    if (n < 1 || n > 1000000) {
        fprintf(stderr, "bench_pscaling: POSES must be in [1, 1e6] (got %s)\n", argv[1]);
        return 2;
    }
    pose_pair *poses = malloc(sizeof *poses * (size_t)n);
    lucid_convex_mesh *mesh = NULL;
    if (!poses || lucid_convex_mesh_create(HULL, 6, &mesh) != LUCID_OK) {
        fprintf(stderr, "bench_pscaling: setup failed\n");
        return 1;
    }
    uint64_t rng = 17;
    double total_d = 0.0, total_p = 0.0, total_pd = 0.0, ratios[KINDS * KINDS], log_sum = 0.0;
    int pairs = 0;
    int total_failures = 0;
    printf("%-9s %-9s %10s %10s %12s %7s %7s %5s\n", "shape1", "shape2", "gjk ns", "psdf ns",
           "psdf+d ns", "ratio", "mean it", "max");
    for (int a = 0; a < KINDS; ++a)
        for (int b = 0; b < KINDS; ++b) {
            if (a == 7 && b == 7) continue;
            lucid_shape s1, s2;
            make_shape(a, mesh, &s1);
            make_shape(b, mesh, &s2);
            for (int i = 0; i < n; ++i) {
                poses[i].T1 = lucid_se3_make(random_rotation(&rng), lucid_vec3_zero());
                poses[i].T2 = lucid_se3_make(
                    random_rotation(&rng), lucid_vec3_scale(random_direction(&rng), uniform(&rng)));
            }
            double mean_it, mean_it_d;
            int max_it, max_it_d, fails, fails_d;
            double td = time_distance(&s1, &s2, poses, n);
            double tp = time_pscaling(&s1, &s2, poses, n, 0, &mean_it, &max_it, &fails);
            double tpd = time_pscaling(&s1, &s2, poses, n, 1, &mean_it_d, &max_it_d, &fails_d);
            total_d += td;
            total_p += tp;
            total_pd += tpd;
            total_failures += fails;
            ratios[pairs++] = tp / td;
            log_sum += log(tp / td);
            printf("%-9s %-9s %10.0f %10.0f %12.0f %7.2f %7.2f %5d%s\n", NAMES[a], NAMES[b],
                   1e9 * td, 1e9 * tp, 1e9 * tpd, tp / td, mean_it, max_it,
                   fails ? "  (failures!)" : "");
        }
    qsort(ratios, (size_t)pairs, sizeof *ratios, compare_doubles);
    printf("per pair P-SDF / GJK-EPA ratio: median %.2f, geometric mean %.2f, range %.2f-%.2f\n",
           ratios[pairs / 2], exp(log_sum / pairs), ratios[0], ratios[pairs - 1]);
    printf("all pairs: P-SDF / GJK-EPA time ratio %.2f (with derivatives %.2f); %d P-SDF "
           "queries not converged\n",
           total_p / total_d, total_pd / total_d, total_failures);
    lucid_convex_mesh_destroy(mesh);
    free(poses);
    return total_failures ? 1 : 0;
}
