/* The interior-point solver against ncp:admm and ccp:newton (docs/benchmarks/contact_ip.md).
 * On the problems dumped from the world (tests/data/contact: the box heap's largest island,
 * stacks of 3 and 4 boxes, rows of boxes) and the paper's 1e3 kg on 1e-3 kg stack, each
 * solver runs with tol = T for T in --tols (its own model's criterion; ncp:ip and ncp:admm
 * stop on the NCP criterion itself), cold and warm (from the world's warm start), and the
 * program prints per problem and T: the fastest of the solves repeated for --seconds (the
 * machine is shared: the minimum is the least disturbed measure), the
 * iterations, the NCP criterion of the answer, and the time ratio of every solver to ncp:ip
 * measured in the same run. "Equal NCP residual": a row counts only the solves whose answer
 * has an NCP criterion <= T; the others are printed as not reaching it (the CCP solvers' answers
 * are CCP solutions: where contacts slide they are no NCP solution at any T, and their rows
 * compare at equal CCP criterion, `model`; ccp:newton's is that of its compliant problem).
 *   bench_contact_ip [--tols 1e-4,1e-6,1e-8] [--seconds 0.3] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "solvers/contact/contact_solver.h"
#include "tests/c/common/test_contact_dump.h"

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct run {
    double seconds; /* the fastest of the repeated solves (the least disturbed by load) */
    int iterations, converged;
    double ncp, model; /* NCP criterion and the solver's own model criterion of the answer */
} run;

/* Fastest solve of p (cold, or warm from lambda0 / dual0) repeated for `budget` seconds. */
static run measure(const lucid_contact_problem *p, lucid_contact_options o, const double *lambda0,
                   const double *dual0, double budget) {
    int m = 3 * p->n;
    double *l = calloc((size_t)m, sizeof(double)), *d = calloc((size_t)m, sizeof(double));
    lucid_contact_workspace *ws = lucid_contact_workspace_create(p->n);
    lucid_contact_result res;
    o.warm_start = lambda0 != NULL;
    run r = {0};
    long count = 0;
    double start = now_seconds(), elapsed = 0.0, fastest = 1e300;
    do {
        if (lambda0) memcpy(l, lambda0, sizeof(double) * (size_t)m);
        if (dual0) memcpy(d, dual0, sizeof(double) * (size_t)m);
        double t0 = now_seconds();
        if (lucid_contact_solve(p, &o, ws, l, d, &res) != LUCID_OK) {
            fprintf(stderr, "solve failed\n");
            exit(1);
        }
        double t1 = now_seconds();
        fastest = t1 - t0 < fastest ? t1 - t0 : fastest;
        ++count;
        elapsed = t1 - start;
    } while (elapsed < budget || count < 3);
    r.seconds = fastest;
    r.iterations = res.iterations, r.converged = res.converged, r.ncp = res.ncp.abs;
    r.model = res.model.abs;
    lucid_contact_workspace_destroy(ws);
    free(l), free(d);
    return r;
}

typedef struct named_pair {
    const char *name;
    lucid_contact_model model;
    lucid_contact_solver solver;
} named_pair;

static const named_pair pairs[] = {{"ncp:ip", LUCID_CONTACT_NCP, LUCID_CONTACT_IP},
                                   {"ncp:admm", LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM},
                                   {"ccp:newton", LUCID_CONTACT_CCP, LUCID_CONTACT_NEWTON},
                                   {"ccp:ip", LUCID_CONTACT_CCP, LUCID_CONTACT_IP}};
#define NPAIRS (int)(sizeof pairs / sizeof pairs[0])

static void bench_problem(const char *name, const lucid_contact_problem *p, const double *lambda0,
                          const double *dual0, const double *tols, int ntols, double budget) {
    for (int start = 0; start < 2; ++start) {
        if (start == 1 && !lambda0) continue;
        for (int k = 0; k < ntols; ++k) {
            run runs[NPAIRS];
            for (int q = 0; q < NPAIRS; ++q) {
                lucid_contact_options o = lucid_contact_default_options();
                o.model = pairs[q].model, o.solver = pairs[q].solver, o.tol = tols[k];
                o.max_iter = 20000;
                runs[q] = measure(p, o, start ? lambda0 : NULL, start ? dual0 : NULL, budget);
            }
            for (int q = 0; q < NPAIRS; ++q) {
                const run *r = &runs[q];
                printf("%-14s n=%-3d %-4s T=%-6.0e %-10s %10.1f us %6d it  model %8.2e  ncp %8.2e "
                       "%-7s",
                       name, p->n, start ? "warm" : "cold", tols[k], pairs[q].name,
                       1e6 * r->seconds, r->iterations, r->model, r->ncp,
                       r->ncp <= tols[k] ? "reaches" : "MISSES");
                if (q > 0) printf("  time / ncp:ip %6.2f", r->seconds / runs[0].seconds);
                printf("\n");
            }
        }
    }
}

static int parse_list(const char *s, double *out, int capacity) {
    int count = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && count < capacity;
         tok = strtok_r(NULL, ",", &save))
        out[count++] = strtod(tok, NULL);
    free(copy);
    return count;
}

int main(int argc, char **argv) {
    double tols[8] = {1e-4, 1e-6, 1e-8}, budget = 0.3;
    int ntols = 3;
    for (int a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--tols") == 0 && a + 1 < argc)
            ntols = parse_list(argv[++a], tols, 8);
        else if (strcmp(argv[a], "--seconds") == 0 && a + 1 < argc)
            budget = strtod(argv[++a], NULL);
        else {
            fprintf(stderr, "usage: %s [--tols 1e-4,1e-6,1e-8] [--seconds 0.3]\n", argv[0]);
            return 2;
        }
    }
    printf("problem        n    start T      solver        time/solve  iter   own criterion  NCP "
           "criterion (<= T?)\n");
    const char *files[] = {"heap_n46.txt", "stack3_n12.txt", "stack4_n18.txt", "world_n10.txt"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
        dumped d;
        if (!load_dump(files[f], 200, &d)) {
            fprintf(stderr, "cannot read tests/data/contact/%s\n", files[f]);
            return 1;
        }
        bench_problem(files[f], &d.t.p, d.lambda0, d.dual0, tols, ntols, budget);
        test_problem_free(&d.t);
        free(d.lambda0), free(d.dual0);
    }
    test_problem stack = test_stack_problem(1e-3, 1e3, 1e-3);
    bench_problem("stack_1e6", &stack.p, NULL, NULL, tols, ntols, budget);
    test_problem_free(&stack);
    return 0;
}
