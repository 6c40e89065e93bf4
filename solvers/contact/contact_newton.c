/* Primal Newton for the (compliant) CCP (Alg. 4, MuJoCo/Drake style). The paper's primal
 *   min_v 1/2 ||v - v_f||_M^2 + 1/2 ||P^R_K(y(J v))||_R^2,  y(c) = -R^{-1} c
 * needs M and J; from G alone we use the equivalent reduced form: with G = L L^T
 * (L = V Lambda^{1/2} from the eigen-decomposition, which also covers PSD G) and
 * w = M^{1/2}(v - v_f), the contact velocity is c = g + L w and
 *   l(w) = 1/2 ||w||^2 + 1/2 ||gamma(w)||_R^2,  gamma = P^R_K(-R^{-1} c),
 *   grad = w - L^T gamma,  H = I + L^T D L,  D = -d gamma / d c (block diagonal, PSD).
 * Its minimiser gives lambda = gamma solving min_{K} 1/2 l^T (G + R) l + g^T l. The problem
 * is only defined for R > 0 (the paper: "viable only when R is non-null"): entries of R that
 * are zero get newton_compliance x trace(G_ii) / 3, and the two tangential entries of a
 * contact must be equal (the R-metric projection is then closed-form). Step: Cholesky of H,
 * Armijo backtracking (c = 1e-4, factor 0.8, at most 40 halvings: Drake's SAP parameters).
 * The model criterion is the CCP criterion of the compliant problem actually solved. */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_internal.h"

#define ARMIJO_C      1e-4
#define ARMIJO_FACTOR 0.8
#define ARMIJO_STEPS  40

typedef struct newton {
    const lucid_contact_problem *p;
    const double *L, *R; /* L (m x m) with G = L L^T; R effective compliance (> 0) */
    int m;
} newton;

static lucid_status effective_compliance(const lucid_contact_problem *p, double eps, double *R) {
    long m = 3L * p->n;
    for (int i = 0; i < p->n; ++i) {
        double trace = 0.0;
        for (int a = 0; a < 3; ++a) trace += p->G[(3 * i + a) * (m + 1)];
        for (int a = 0; a < 3; ++a) {
            double given = p->R ? p->R[3 * i + a] : 0.0;
            R[3 * i + a] = given > 0.0 ? given : eps * trace / 3.0;
        }
        if (R[3 * i] != R[3 * i + 1] || !(R[3 * i + 2] > 0.0)) return LUCID_ERR_ARGUMENT;
    }
    return LUCID_OK;
}

/* gamma = P^R_K(-R^{-1} c) per contact for c = g + L w (given); D (3 columns, 3 entries per
 * contact) when not NULL. Returns the cost l(w). */
static double evaluate(const newton *nt, const double *w, const double *c, double *gamma,
                       double *D[3]) {
    const lucid_contact_problem *p = nt->p;
    int m = nt->m;
    double cost = 0.0;
    for (int k = 0; k < m; ++k) cost += 0.5 * w[k] * w[k];
    for (int i = 0; i < p->n; ++i) {
        const double *r = nt->R + 3 * i;
        double mu = p->mu[i] * sqrt(r[0] / r[2]), y[3], pg[3];
        for (int a = 0; a < 3; ++a) y[a] = -c[3 * i + a] / sqrt(r[a]);
        lucid_cone_project(mu, y, pg);
        for (int a = 0; a < 3; ++a) {
            gamma[3 * i + a] = pg[a] / sqrt(r[a]);
            cost += 0.5 * pg[a] * pg[a];
        }
        if (!D) continue;
        double J[9];
        lucid_cone_project_jacobian(mu, y, J);
        for (int b = 0; b < 3; ++b)
            for (int a = 0; a < 3; ++a) D[b][3 * i + a] = J[a + 3 * b] / sqrt(r[a] * r[b]);
    }
    return cost;
}

/* H = L^T D L (without the identity, added as the Cholesky shift); DL is scratch. */
static void hessian(const newton *nt, double *D[3], double *DL, double *H) {
    int m = nt->m;
    for (int j = 0; j < m; ++j)
        for (int i = 0; i < nt->p->n; ++i)
            for (int a = 0; a < 3; ++a) {
                double sum = 0.0;
                for (int b = 0; b < 3; ++b) sum += D[b][3 * i + a] * nt->L[3 * i + b + (long)m * j];
                DL[3 * i + a + (long)m * j] = sum;
            }
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, m, m, m, 1.0, nt->L, m, DL, m, 0.0, H, m);
}

/* Model (compliant CCP) and NCP criteria of lambda; returns 1 when converged. */
static int check(lucid_contact_run *run, const double *R, const double *lambda, double *sigma) {
    lucid_contact_problem compliant = *run->p;
    compliant.R = R;
    lucid_contact_velocity(&compliant, lambda, sigma);
    lucid_contact_criteria_eval(&compliant, LUCID_CRITERION_CCP, lambda, sigma, NULL,
                                &run->result->model);
    lucid_contact_velocity(run->p, lambda, sigma);
    lucid_contact_criteria_eval(run->p, LUCID_CRITERION_NCP, lambda, sigma, NULL,
                                &run->result->ncp);
    return run->result->model.abs <= run->o->tol;
}

lucid_status lucid_contact_solve_newton(lucid_contact_run *run, double *lambda) {
    const lucid_contact_problem *p = run->p;
    const lucid_contact_options *o = run->o;
    lucid_contact_workspace *ws = run->ws;
    int m = 3 * p->n;
    double **v = ws->vec;
    double *sigma = v[0], *w = v[1], *c = v[2], *gamma = v[3], *grad = v[4], *dw = v[5];
    double *w_try = v[6], *c_try = v[7], *gamma_try = v[8], *R = v[9];
    double *D[3] = {v[10], v[11], v[12]}, *Ldw = v[13];
    double *L = ws->mat[1], *H = ws->mat[2], *DL = ws->mat[3], *chol = ws->mat[0];
    lucid_status status = effective_compliance(p, o->newton_compliance, R);
    if (status != LUCID_OK) return status;
    if ((status = lucid_contact_eigen(ws, p->G, NULL, m, ws->eig, L, NULL)) != LUCID_OK)
        return status;
    if (ws->eig[0] < -1e-9 * fabs(ws->eig[m - 1]) || !(ws->eig[m - 1] > 0.0))
        return LUCID_ERR_NOT_SPD;
    for (int j = 0; j < m; ++j) {
        double s = sqrt(fmax(ws->eig[j], 0.0));
        for (int i = 0; i < m; ++i) L[i + (long)m * j] *= s;
    }
    newton nt = {p, L, R, m};
    /* Warm start: at the optimum w = L^T lambda. */
    memset(w, 0, sizeof(double) * (size_t)m);
    if (o->warm_start)
        cblas_dgemv(CblasColMajor, CblasTrans, m, m, 1.0, L, m, lambda, 1, 0.0, w, 1);
    memcpy(c, p->g, sizeof(double) * (size_t)m);
    cblas_dgemv(CblasColMajor, CblasNoTrans, m, m, 1.0, L, m, w, 1, 1.0, c, 1);
    double cost = evaluate(&nt, w, c, gamma, D);
    int done = check(run, R, gamma, sigma);
    for (int k = 1; !done && k <= o->max_iter; ++k) {
        memcpy(grad, w, sizeof(double) * (size_t)m);
        cblas_dgemv(CblasColMajor, CblasTrans, m, m, -1.0, L, m, gamma, 1, 1.0, grad, 1);
        hessian(&nt, D, DL, H);
        if ((status = lucid_contact_cholesky(H, NULL, 1.0, m, chol)) != LUCID_OK) return status;
        ++run->result->factorizations;
        for (int i = 0; i < m; ++i) dw[i] = -grad[i];
        lucid_contact_cholesky_solve(chol, m, dw);
        double slope = 0.0, alpha = 1.0, trial = cost;
        for (int i = 0; i < m; ++i) slope += grad[i] * dw[i];
        /* c is updated by L dw instead of recomputed as g + L w: the terms of g + L w reach
         * |g| (~1e7 on the ill-conditioned stack), and their round-off, amplified by 1/R in
         * gamma, was a noise floor the iteration could not go below. */
        cblas_dgemv(CblasColMajor, CblasNoTrans, m, m, 1.0, L, m, dw, 1, 0.0, Ldw, 1);
        for (int step = 0; step < ARMIJO_STEPS; ++step, alpha *= ARMIJO_FACTOR) {
            for (int i = 0; i < m; ++i) w_try[i] = w[i] + alpha * dw[i];
            for (int i = 0; i < m; ++i) c_try[i] = c[i] + alpha * Ldw[i];
            trial = evaluate(&nt, w_try, c_try, gamma_try, NULL);
            /* Armijo, with a round-off allowance: near the solution the decrease falls below
             * the precision of the cost and exact Newton steps would be rejected. */
            if (trial <= cost + ARMIJO_C * alpha * slope + 1e-14 * fabs(cost)) break;
        }
        /* Stall on lambda = gamma (as the other solvers): w is ~|L^T lambda| and its relative
         * change stops long before gamma's does when 1/R is large. */
        double change = lucid_contact_max_abs_diff(gamma_try, gamma, m);
        double size = fmax(lucid_contact_max_abs(gamma, m), lucid_contact_max_abs(gamma_try, m));
        memcpy(w, w_try, sizeof(double) * (size_t)m);
        memcpy(c, c_try, sizeof(double) * (size_t)m);
        cost = evaluate(&nt, w, c, gamma, D);
        run->result->iterations = k;
        if ((done = check(run, R, gamma, sigma))) break;
        if (lucid_contact_stalled(change, size, o->stall_tol)) {
            run->result->stalled = 1;
            break;
        }
    }
    memcpy(lambda, gamma, sizeof(double) * (size_t)m);
    run->result->converged = done;
    return LUCID_OK;
}
