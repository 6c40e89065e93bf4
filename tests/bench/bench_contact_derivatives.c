/* Cost of the exact contact derivatives (autodiff/contact_derivatives.h) against one solve and
 * against central finite differences of the solve, measured in the same run on the contact
 * problems the world dumped (tests/data/contact: box-heap islands, stacks of boxes).
 *
 *   build/tests/bench/bench_contact_derivatives [--reps N] [--pair model:solver]...
 *
 * Per problem and model:solver pair (default ncp:admm, ccp:admm, ccp:newton), with tol 1e-6
 * and max_iter 1000 (lucid.contact.solve's defaults):
 *   solve        one solve warm started from the dumped warm start (as the world does), and
 *                one cold solve
 *   factor       classification + reduced system + complete orthogonal decomposition
 *   jvp          factor + one directional derivative (products only)
 *   jacobian     factor + the full d lambda / d g (3n x 3n)
 *   fd           the full d lambda / d g by central differences: 2 x 3n solves warm started from
 *                the solution (step 1e-6 x max |g|)
 * and the ratios jacobian / warm solve (target <= 0.5), jacobian / cold solve, and
 * fd / jacobian (target >= 20). Times are medians over --reps repetitions (default 21), one
 * BLAS thread. A pair whose solve does not converge is reported as such (its times are those of
 * the capped solve). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "autodiff/contact_derivatives.h"
#include "solvers/dense/dense_threads.h"
#include "tests/c/common/test_contact_dump.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *x, int count) {
    qsort(x, (size_t)count, sizeof(double), compare);
    return x[count / 2];
}

typedef struct pair_spec {
    lucid_contact_model model;
    lucid_contact_solver solver;
} pair_spec;

typedef struct bench_case {
    const lucid_contact_problem *p;
    const double *lambda0, *dual0;
    lucid_contact_options o;
    lucid_contact_workspace *ws;
    lucid_contact_derivatives *der;
    double *lambda, *dual, *scratch, *J, *gp, *dl, *dir;
} bench_case;

/* One solve from the dumped warm start (warm = 1) or cold; returns converged. */
static int solve_once(bench_case *c, int warm, lucid_contact_result *res) {
    int m = 3 * c->p->n;
    memcpy(c->lambda, c->lambda0, sizeof(double) * (size_t)m);
    memcpy(c->dual, c->dual0, sizeof(double) * (size_t)m);
    lucid_contact_options o = c->o;
    o.warm_start = warm;
    lucid_contact_solve(c->p, &o, c->ws, c->lambda, c->dual, res);
    return res->converged;
}

/* The full d lambda / d g by central differences, warm started from lambda. */
static void finite_differences(bench_case *c, const double *lambda) {
    const lucid_contact_problem *p = c->p;
    int m = 3 * p->n;
    double scale = 0.0;
    for (int k = 0; k < m; ++k) scale = fmax(scale, fabs(p->g[k]));
    double h = 1e-6 * (scale > 0.0 ? scale : 1.0);
    lucid_contact_options o = c->o;
    o.warm_start = 1;
    lucid_contact_problem q = *p;
    q.g = c->gp;
    memcpy(c->gp, p->g, sizeof(double) * (size_t)m);
    lucid_contact_result res;
    for (int k = 0; k < m; ++k) {
        for (int side = 0; side < 2; ++side) {
            c->gp[k] = p->g[k] + (side ? -h : h);
            double *out = side ? c->scratch : c->J + (size_t)m * k;
            memcpy(out, lambda, sizeof(double) * (size_t)m);
            lucid_contact_solve(&q, &o, c->ws, out, NULL, &res);
        }
        c->gp[k] = p->g[k];
        for (int r = 0; r < m; ++r)
            c->J[r + (size_t)m * k] = (c->J[r + (size_t)m * k] - c->scratch[r]) / (2 * h);
    }
}

static void run_case(const char *file, const char *name, const lucid_contact_problem *p,
                     const double *lambda0, const double *dual0, pair_spec spec, int reps) {
    int n = p->n, m = 3 * n;
    bench_case c = {
        p,    lambda0, dual0, lucid_contact_default_options(), NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL,    NULL};
    c.o.model = spec.model, c.o.solver = spec.solver, c.o.tol = 1e-6, c.o.max_iter = 1000;
    c.ws = lucid_contact_workspace_create(n);
    c.der = lucid_contact_derivatives_create(n);
    c.lambda = calloc((size_t)m, sizeof(double)), c.dual = calloc((size_t)m, sizeof(double));
    c.scratch = calloc((size_t)m, sizeof(double)), c.gp = calloc((size_t)m, sizeof(double));
    c.dl = calloc((size_t)m, sizeof(double)), c.dir = calloc((size_t)m, sizeof(double));
    c.J = calloc((size_t)m * (size_t)m, sizeof(double));
    double *solution = calloc((size_t)m, sizeof(double));
    double *t_warm = calloc((size_t)reps, sizeof(double)),
           *t_cold = calloc((size_t)reps, sizeof(double));
    double *t_factor = calloc((size_t)reps, sizeof(double)),
           *t_jvp = calloc((size_t)reps, sizeof(double));
    double *t_jac = calloc((size_t)reps, sizeof(double)),
           *t_fd = calloc((size_t)reps, sizeof(double));
    lucid_contact_result warm, cold;
    for (int k = 0; k < m; ++k) c.dir[k] = (k % 3 == 2) ? 1.0 : 0.5;
    lucid_contact_derivative_options o = lucid_contact_derivative_default_options(spec.model);
    int fd_reps = reps < 5 ? reps : 5;
    for (int r = 0; r < reps; ++r) {
        double t0 = now();
        solve_once(&c, 1, &warm);
        t_warm[r] = now() - t0;
        memcpy(solution, c.lambda, sizeof(double) * (size_t)m);
        t0 = now();
        solve_once(&c, 0, &cold);
        t_cold[r] = now() - t0;
        t0 = now();
        lucid_contact_derivatives_factor(c.der, p, solution, &o);
        t_factor[r] = now() - t0;
        t0 = now();
        lucid_contact_derivatives_factor(c.der, p, solution, &o);
        lucid_contact_derivatives_jvp(c.der, NULL, c.dir, NULL, NULL, c.dl);
        t_jvp[r] = now() - t0;
        t0 = now();
        lucid_contact_derivatives_factor(c.der, p, solution, &o);
        lucid_contact_derivatives_jacobian(c.der, c.J, NULL, NULL);
        t_jac[r] = now() - t0;
        if (r < fd_reps) {
            t0 = now();
            finite_differences(&c, solution);
            t_fd[r] = now() - t0;
        }
    }
    lucid_contact_derivative_info info;
    lucid_contact_derivatives_factor(c.der, p, solution, &o);
    lucid_contact_derivatives_get_info(c.der, &info);
    double w = median(t_warm, reps), cd = median(t_cold, reps), f = median(t_factor, reps);
    double jv = median(t_jvp, reps), ja = median(t_jac, reps), fd = median(t_fd, fd_reps);
    printf("%-15s %3d %-17s %5s %4d %5s %4d %4d/%-4d %8.3f %8.3f %8.3f %8.3f %8.3f %9.2f %6.2f "
           "%6.2f %7.1f\n",
           file, n, name, warm.converged ? "yes" : "no", warm.iterations,
           cold.converged ? "yes" : "no", cold.iterations, info.rank, info.size, 1e3 * w, 1e3 * cd,
           1e3 * f, 1e3 * jv, 1e3 * ja, 1e3 * fd, ja / w, ja / cd, fd / ja);
    lucid_contact_workspace_destroy(c.ws);
    lucid_contact_derivatives_destroy(c.der);
    free(c.lambda), free(c.dual), free(c.scratch), free(c.gp), free(c.dl), free(c.dir), free(c.J);
    free(solution), free(t_warm), free(t_cold), free(t_factor), free(t_jvp), free(t_jac),
        free(t_fd);
}

int main(int argc, char **argv) {
    int reps = 21;
    pair_spec pairs[16];
    int npairs = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--pair") && i + 1 < argc && npairs < 16) {
            char model[32], solver[32];
            if (sscanf(argv[++i], "%31[^:]:%31s", model, solver) != 2 ||
                lucid_contact_model_parse(model, &pairs[npairs].model) != LUCID_OK ||
                lucid_contact_solver_parse(solver, &pairs[npairs].solver) != LUCID_OK ||
                lucid_contact_pair_check(pairs[npairs].model, pairs[npairs].solver) != LUCID_OK) {
                fprintf(stderr, "bad pair %s\n", argv[i]);
                return 2;
            }
            ++npairs;
        } else {
            fprintf(stderr, "usage: %s [--reps N] [--pair model:solver]...\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (npairs == 0) {
        pairs[0] = (pair_spec){LUCID_CONTACT_NCP, LUCID_CONTACT_ADMM};
        pairs[1] = (pair_spec){LUCID_CONTACT_CCP, LUCID_CONTACT_ADMM};
        pairs[2] = (pair_spec){LUCID_CONTACT_CCP, LUCID_CONTACT_NEWTON};
        npairs = 3;
    }
    lucid_dense_set_threads(1);
    const char *files[] = {"world_n5.txt",   "world_n8.txt",   "world_n10.txt",
                           "stack3_n12.txt", "stack4_n18.txt", "heap_n46.txt"};
    printf("times in ms (medians of %d; fd of %d); ratios: jac/warm solve, jac/cold solve, "
           "fd/jac\n",
           reps, reps < 5 ? reps : 5);
    printf("%-15s %3s %-17s %5s %4s %5s %4s %9s %8s %8s %8s %8s %8s %9s %6s %6s %7s\n", "problem",
           "n", "pair", "warm", "it", "cold", "it", "rank/size", "warm", "cold", "factor", "jvp",
           "jacobian", "fd", "j/w", "j/c", "fd/j");
    for (int f = 0; f < 6; ++f) {
        dumped d;
        if (!load_dump(files[f], 64, &d)) {
            fprintf(stderr, "cannot read tests/data/contact/%s\n", files[f]);
            return 1;
        }
        for (int k = 0; k < npairs; ++k) {
            char name[32];
            snprintf(name, sizeof name, "%s:%s", lucid_contact_model_name(pairs[k].model),
                     lucid_contact_solver_name(pairs[k].solver));
            run_case(files[f], name, &d.t.p, d.lambda0, d.dual0, pairs[k], reps);
        }
        test_problem_free(&d.t), free(d.lambda0), free(d.dual0);
    }
    return 0;
}
