/* Cost of one draw of each lucid_rng distribution, in nanoseconds.
 *
 *   build/tests/bench/bench_rng [DRAWS]
 *
 * DRAWS (default 20000000) draws per distribution, summed into a sink so the loop is kept;
 * the best of 5 runs is printed, which filters out preemption on a shared machine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "runtime/math/rng.h"

#define RUNS 5

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef double (*draw_fn)(lucid_rng *rng);

static double draw_u64(lucid_rng *rng) {
    return (double)(lucid_rng_next_u64(rng) >> 11);
}

/* Best-of-RUNS nanoseconds per draw. */
static double ns_per_draw(draw_fn draw, long draws, double *sink) {
    double best = INFINITY;
    for (int run = 0; run < RUNS; ++run) {
        lucid_rng rng;
        lucid_rng_seed(&rng, (uint64_t)run);
        double sum = 0.0, t0 = now_seconds();
        for (long n = 0; n < draws; ++n) sum += draw(&rng);
        best = fmin(best, 1e9 * (now_seconds() - t0) / (double)draws);
        *sink += sum;
    }
    return best;
}

int main(int argc, char **argv) {
    long draws = argc > 1 ? atol(argv[1]) : 20000000L;
    if (draws < 1) draws = 1;
    const struct {
        const char *name;
        draw_fn draw;
    } rows[] = {{"next_u64", draw_u64},
                {"uniform", lucid_rng_uniform},
                {"normal", lucid_rng_normal},
                {"gumbel", lucid_rng_gumbel}};
    double sink = 0.0;
    printf("%ld draws per distribution, best of %d runs\n", draws, RUNS);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i)
        printf("%-10s %7.2f ns per draw\n", rows[i].name, ns_per_draw(rows[i].draw, draws, &sink));
    return sink == 12345.0; /* keeps the sums */
}
