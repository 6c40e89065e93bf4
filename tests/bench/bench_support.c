/* Convex-mesh support: linear scan against hill climbing, to choose
 * LUCID_CONVEX_MESH_SCAN_THRESHOLD (runtime/shapes/convex_mesh.h).
 *
 *   build/tests/bench/bench_support [MESH_DIR]
 *
 * For hulls of random points on a sphere (every point a vertex) of growing size, and for the
 * real meshes of shared/data/meshes, it times one support query three ways:
 *   scan  - linear scan over the vertices;
 *   cold  - hill climbing from a random start vertex (uncorrelated queries, the worst case:
 *           the first GJK iterations look like this);
 *   warm  - hill climbing from the previous answer while the direction turns by ~0.05 rad
 *           per query (later GJK iterations and time-coherent simulation steps);
 *   gjk   - episodes of 8 queries like one GJK solve: a random start vertex, then directions
 *           converging to a target (perturbation halved each step), hint carried along;
 *           compared with the scan on the same directions (column gjk/scan).
 * It prints the smallest size from which cold climbing beats the scan, and the smallest from
 * which the GJK-like episodes do; the latter is the dispatcher's threshold, because the
 * dispatcher is used inside GJK with a carried hint. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/mesh_file.h"

#define QUERIES 4096

#include "tests/c/common/test_random.h"

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct workload {
    lucid_vec3 random_dirs[QUERIES];
    int random_starts[QUERIES];
    lucid_vec3 coherent_dirs[QUERIES];
    lucid_vec3 episode_dirs[QUERIES];
} workload;

static void make_workload(workload *w, int num_vertices, uint64_t *rng) {
    lucid_vec3 d = random_direction(rng);
    for (int i = 0; i < QUERIES; ++i) {
        w->random_dirs[i] = random_direction(rng);
        w->random_starts[i] = (int)(uniform(rng) * num_vertices);
        d = lucid_vec3_normalized(lucid_vec3_axpy(d, 0.05, random_direction(rng)));
        w->coherent_dirs[i] = d;
    }
    lucid_vec3 target = d;
    for (int i = 0; i < QUERIES; ++i) {
        if (i % 8 == 0) target = random_direction(rng);
        double noise = ldexp(2.0, -(i % 8)); /* 2, 1, 0.5, ... */
        w->episode_dirs[i] =
            lucid_vec3_normalized(lucid_vec3_axpy(target, noise, random_direction(rng)));
    }
}

/* Nanoseconds per query of the best of several repetitions; checksum defeats dead-code
 * elimination. */
static double time_mode(const lucid_convex_mesh *m, const workload *w, int mode, long *checksum) {
    double best = INFINITY;
    int reps = m->num_vertices > 1000 ? 5 : 20;
    for (int rep = 0; rep < reps; ++rep) {
        int hint = 0;
        double t0 = now_seconds();
        for (int i = 0; i < QUERIES; ++i) {
            int v;
            if (mode == 0)
                v = lucid_convex_mesh_support_scan(m, w->random_dirs[i]);
            else if (mode == 1)
                v = lucid_convex_mesh_support_climb(m, w->random_dirs[i], w->random_starts[i]);
            else if (mode == 2)
                v = hint = lucid_convex_mesh_support_climb(m, w->coherent_dirs[i], hint);
            else if (mode == 3)
                v = lucid_convex_mesh_support_scan(m, w->episode_dirs[i]);
            else
                v = hint = lucid_convex_mesh_support_climb(m, w->episode_dirs[i],
                                                           i % 8 == 0 ? w->random_starts[i] : hint);
            *checksum += v;
        }
        double t = (now_seconds() - t0) / QUERIES * 1e9;
        if (t < best) best = t;
    }
    return best;
}

typedef struct crossovers {
    int cold, gjk; /* smallest size from which climbing stays ahead, -1 if none yet */
} crossovers;

static void update_crossover(int *crossover, int n, int climb_wins) {
    if (!climb_wins)
        *crossover = -1;
    else if (*crossover < 0)
        *crossover = n;
}

static void report(const char *name, const lucid_convex_mesh *m, uint64_t *rng,
                   crossovers *crossover) {
    workload *w = malloc(sizeof *w);
    if (w == NULL) return;
    make_workload(w, m->num_vertices, rng);
    long checksum = 0;
    double scan = time_mode(m, w, 0, &checksum);
    double cold = time_mode(m, w, 1, &checksum);
    double warm = time_mode(m, w, 2, &checksum);
    double gjk_scan = time_mode(m, w, 3, &checksum);
    double gjk_climb = time_mode(m, w, 4, &checksum);
    free(w);
    printf("%-38s %6d %8.1f %8.1f %8.1f %8.1f/%.1f (%ld)\n", name, m->num_vertices, scan, cold,
           warm, gjk_climb, gjk_scan, checksum % 10);
    if (crossover == NULL) return;
    update_crossover(&crossover->cold, m->num_vertices, cold < scan);
    update_crossover(&crossover->gjk, m->num_vertices, gjk_climb < gjk_scan);
}

static void sphere_hulls(uint64_t *rng) {
    int sizes[] = {6, 8, 12, 16, 20, 24, 32, 40, 48, 64, 96, 128, 256, 512, 1024, 4096, 16384};
    crossovers crossover = {-1, -1};
    printf("%-38s %6s %8s %8s %8s %8s/%s (ns per query)\n", "hull", "verts", "scan", "cold", "warm",
           "gjk", "scan");
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        int n = sizes[k];
        double *p = malloc(sizeof(double) * 3 * (size_t)n);
        if (p == NULL) return;
        for (int i = 0; i < n; ++i) lucid_vec3_store(random_direction(rng), p + 3 * i);
        lucid_convex_mesh *m;
        if (lucid_convex_mesh_create(p, n, &m) == LUCID_OK) {
            char name[64];
            snprintf(name, sizeof name, "sphere points n=%d", n);
            report(name, m, rng, &crossover);
            lucid_convex_mesh_destroy(m);
        }
        free(p);
    }
    printf("hill climbing beats the scan from %d vertices on (cold), from %d on (GJK-like); "
           "threshold in use: %d\n\n",
           crossover.cold, crossover.gjk, LUCID_CONVEX_MESH_SCAN_THRESHOLD);
}

static void real_meshes(const char *dir, uint64_t *rng) {
    char path[1024], line[2048];
    snprintf(path, sizeof path, "%s/manifest.tsv", dir);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        printf("real meshes skipped: %s not found\n", path);
        return;
    }
    if (fgets(line, sizeof line, f) == NULL) line[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        char file[256];
        if (sscanf(line, "%255[^\t]", file) != 1) continue;
        snprintf(path, sizeof path, "%s/%s", dir, file);
        lucid_convex_mesh *m;
        char err[512];
        if (lucid_mesh_file_load_hull(path, 1.0, &m, err, sizeof err) != LUCID_OK) {
            printf("%s\n", err);
            continue;
        }
        report(file, m, rng, NULL);
        lucid_convex_mesh_destroy(m);
    }
    fclose(f);
}

int main(int argc, char **argv) {
    uint64_t rng = 42;
    sphere_hulls(&rng);
    real_meshes(argc > 1 ? argv[1] : LUCID_SOURCE_DIR "/../shared/data/meshes", &rng);
    return 0;
}
