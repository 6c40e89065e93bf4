/* Staggered projections for the NCP (Alg. 7; Kaufman et al. 2008). Alternates two convex QPs:
 *   normal:     lambda_N = argmin_{x >= 0} 1/2 x^T A_NN x + (g_N + A_NT lambda_T)^T x
 *   tangential: lambda_T = argmin_{||x_i|| <= mu_i lambda_N,i} 1/2 x^T A_TT x
 *                                                           + (g_T + A_TN lambda_N)^T x
 * (A = G + R; the paper's line 2 reads g_T for g_N, a typo). Each QP is solved by ADMM
 * (lucid_contact_admm.h), warm started from the previous outer iteration with its factorisation
 * kept. A fixed point satisfies Signorini on the normals and the maximum dissipation on the
 * tangents, i.e. the NCP. The outer loop stops on the NCP criterion. Contacts of dim 4 and 6
 * (torsional, rolling) have dim - 1 tangential rows each, and the disk is their ball. */
#include <math.h>
#include <string.h>

#include "solvers/contact/contact_admm.h"
#include "solvers/contact/contact_internal.h"
#include "solvers/contact/contact_math.h"

typedef struct disks {
    int n, k;                  /* k = dim - 1 tangential entries per contact */
    const double *mu, *normal; /* radius of ball i: mu_i normal_i */
} disks;

static void project_orthant(const void *ctx, const double *x, double *out) {
    int n = *(const int *)ctx;
    for (int k = 0; k < n; ++k) out[k] = lucid_contact_fmax(0.0, x[k]);
}

/* The Euclidean norm of the k entries x[0 .. k - 1]. */
static double ball_norm(int k, const double *x) {
    if (k == 2) return lucid_contact_hypot(x[0], x[1]);
    double s = 0.0;
    for (int a = 0; a < k; ++a) s += x[a] * x[a];
    return sqrt(s);
}

static void project_disks(const void *ctx, const double *x, double *out) {
    const disks *d = ctx;
    int k = d->k;
    for (int i = 0; i < d->n; ++i) {
        double radius = d->mu[i] * lucid_contact_fmax(0.0, d->normal[i]),
               r = ball_norm(k, x + (long)k * i);
        double scale = r > radius ? (r > 0.0 ? radius / r : 0.0) : 1.0;
        for (int a = 0; a < k; ++a) out[k * i + a] = x[k * i + a] * scale;
    }
}

/* Row index in the full problem (dim rows per contact) of entry k of the normal (tangent)
 * sub-vector: tangents 0, 1, 3 .. dim - 1 of each contact. */
static int normal_row(int dim, int k) {
    return dim * k + 2;
}
static int tangent_row(int dim, int k) {
    int j = k % (dim - 1);
    return dim * (k / (dim - 1)) + (j < 2 ? j : j + 1);
}

/* out (rows x cols) = (G + R)[row(i), col(j)]. */
static void extract(const lucid_contact_problem *p, int rows, int (*row)(int, int), int cols,
                    int (*col)(int, int), double *out) {
    int dim = lucid_contact_dim(p);
    long m = lucid_contact_rows(p);
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i) {
            int r = row(dim, i), c = col(dim, j);
            out[i + (long)rows * j] = p->G[r + m * c] + (r == c && p->R ? p->R[r] : 0.0);
        }
}

/* b = g[row] + G[row, other] x_other */
static void coupled_term(const lucid_contact_problem *p, int rows, int (*row)(int, int), int others,
                         int (*other)(int, int), const double *x, double *b) {
    int dim = lucid_contact_dim(p);
    long m = lucid_contact_rows(p);
    for (int i = 0; i < rows; ++i) {
        int r = row(dim, i);
        double sum = p->g[r];
        for (int j = 0; j < others; ++j) sum += p->G[r + m * other(dim, j)] * x[j];
        b[i] = sum;
    }
}

static lucid_status setup(lucid_contact_run *run, lucid_contact_admm *s, int size, const double *A,
                          double *inv, double **vec) {
    *s = (lucid_contact_admm){.m = size,
                              .A = A,
                              .R = NULL,
                              .factor = inv,
                              .x = vec[0],
                              .z = vec[1],
                              .z_prev = vec[2],
                              .gamma = vec[3],
                              .rhs = vec[4],
                              .alpha = run->o->admm_alpha};
    double *values = run->ws->eig;
    lucid_status status =
        lucid_contact_eigen(run->ws, A, NULL, size, values, NULL, run->ws->mat[2]);
    if (status != LUCID_OK) return status;
    if ((status = lucid_contact_admm_set_spectrum(s, values, size)) != LUCID_OK) return status;
    s->rho = lucid_contact_admm_spectral_rho(s);
    s->factored_rho = NAN;
    return LUCID_OK;
}

/* Runs ADMM on one sub-problem until both ADMM residuals are below tol or the cap. */
static lucid_status inner_solve(lucid_contact_run *run, lucid_contact_admm *s, const double *b,
                                lucid_contact_projection project, const void *ctx, double tol) {
    for (int k = 0; k < run->o->inner_max_iter; ++k) {
        lucid_status status = lucid_contact_admm_iterate(s, b, project, ctx);
        if (status != LUCID_OK) return status;
        ++run->result->inner_iterations;
        if (s->primal_residual <= tol && s->dual_residual <= tol) break;
        lucid_contact_admm_adapt(s, run->o->rho_ratio, run->o->rho_power);
    }
    return LUCID_OK;
}

lucid_status lucid_contact_solve_staggered(lucid_contact_run *run, double *lambda) {
    const lucid_contact_problem *p = run->p;
    const lucid_contact_options *o = run->o;
    lucid_contact_workspace *ws = run->ws;
    int n = p->n, dim = lucid_contact_dim(p), k_T = dim - 1, m = dim * n;
    if (o->check_psd) { /* the sub-blocks can be definite while G + R is not */
        lucid_status status = lucid_contact_check_psd(run);
        if (status != LUCID_OK) return status;
    }
    double *AN = ws->mat[1], *AT = ws->mat[1] + (long)n * n;
    double *invN = ws->mat[0], *invT = ws->mat[0] + (long)n * n;
    extract(p, n, normal_row, n, normal_row, AN);
    extract(p, k_T * n, tangent_row, k_T * n, tangent_row, AT);
    lucid_contact_admm sN, sT;
    lucid_status status = setup(run, &sN, n, AN, invN, ws->vec + 1);
    if (status == LUCID_OK) status = setup(run, &sT, k_T * n, AT, invT, ws->vec + 6);
    if (status != LUCID_OK) return status;
    double *sigma = ws->vec[0], *bN = ws->vec[11], *bT = ws->vec[12], *previous = ws->vec[13];
    lucid_contact_velocity(p, lambda, sigma);
    for (int i = 0; i < n; ++i) { /* warm start: gamma = -velocity (its value at a solution) */
        sN.z[i] = lucid_contact_fmax(0.0, lambda[dim * i + 2]);
        sN.gamma[i] = o->warm_start ? -sigma[dim * i + 2] : 0.0;
        for (int j = 0; j < k_T; ++j) {
            int row = tangent_row(dim, k_T * i + j);
            sT.z[k_T * i + j] = lambda[row];
            sT.gamma[k_T * i + j] = o->warm_start ? -sigma[row] : 0.0;
        }
    }
    disks tangent_set = {n, k_T, p->mu, sN.z};
    project_disks(&tangent_set, sT.z, sT.z);
    int done = lucid_contact_check(run, lambda, sigma);
    double inner_tol = 0.1 * o->tol;
    for (int k = 1; !done && k <= o->max_iter; ++k) {
        memcpy(previous, lambda, sizeof(double) * (size_t)m);
        coupled_term(p, n, normal_row, k_T * n, tangent_row, sT.z, bN);
        if ((status = inner_solve(run, &sN, bN, project_orthant, &n, inner_tol)) != LUCID_OK)
            return status;
        coupled_term(p, k_T * n, tangent_row, n, normal_row, sN.z, bT);
        if ((status = inner_solve(run, &sT, bT, project_disks, &tangent_set, inner_tol)) !=
            LUCID_OK)
            return status;
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < k_T; ++j) lambda[tangent_row(dim, k_T * i + j)] = sT.z[k_T * i + j];
            lambda[dim * i + 2] = sN.z[i];
        }
        run->result->iterations = k;
        lucid_contact_velocity(p, lambda, sigma);
        if ((done = lucid_contact_check(run, lambda, sigma))) break;
        double size = lucid_contact_fmax(lucid_contact_max_abs(lambda, m),
                                         lucid_contact_max_abs(previous, m));
        if (lucid_contact_stalled(lucid_contact_max_abs_diff(lambda, previous, m), size,
                                  o->stall_tol)) {
            run->result->stalled = 1;
            break;
        }
    }
    run->result->converged = done;
    run->result->rho = sT.rho;
    run->result->factorizations = sN.factorizations + sT.factorizations;
    return LUCID_OK;
}
