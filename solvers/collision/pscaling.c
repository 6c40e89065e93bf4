/* The P-SDF query (pscaling.h): build the cone program, solve it, read alpha, p and the
 * normal from the primal-dual solution, and differentiate it w.r.t. both poses. */
#include "solvers/collision/pscaling.h"

#include <string.h>

#include "solvers/collision/pscaling_rows.h"

/* A solution that is not unique (a face resting on a face: p may slide along it) has a
 * singular KKT Jacobian; at the solver's tolerance its smallest singular value is ~mu ~ 1e-13
 * and the IFT derivatives come out ~1/mu (measured 4e12 on a box resting on the ground).
 * Unique solutions give derivatives of order 1 in program units, or 1/theta for faces theta
 * rad from parallel: beyond this bound (theta < ~1e-8) the derivatives are reported as
 * undefined (LUCID_ERR_SINGULAR). */
#define DERIVATIVE_BOUND 1e8
/* Below this many tolerances (program units) alpha is the distance between coinciding
 * centres, where it has a kink; its digits are gone there anyway. */
#define KINK_ALPHA 1e3

void lucid_pscaling_options_default(lucid_pscaling_options *opt) {
    opt->tol = 1e-11;
    opt->max_iter = 60;
    opt->derivatives = 0;
}

#define S lucid_pscaling_options
const lucid_option lucid_pscaling_option_table[] = {
    LUCID_OPTION_NUMBER_ENTRY(S, "", tol, POSITIVE, "KKT residual of the dimensionless program"),
    LUCID_OPTION_COUNT_ENTRY(S, "", max_iter, AT_LEAST1, "interior-point iterations"),
    LUCID_OPTION_BOOLEAN_ENTRY(S, "", derivatives,
                               "the derivatives w.r.t. both poses (12 back-substitutions)"),
    LUCID_OPTION_END,
};
#undef S

static int pose_ok(const lucid_se3 *T, lucid_status *st) {
    for (int i = 0; i < 9; ++i)
        if (!isfinite(T->R.m[i])) return *st = LUCID_ERR_NONFINITE, 0;
    if (!lucid_vec3_isfinite(T->t)) return *st = LUCID_ERR_NONFINITE, 0;
    if (lucid_vec3_max_abs(T->t) > LUCID_GEOMETRY_MAX) return *st = LUCID_ERR_ARGUMENT, 0;
    return 1;
}

/* q_k = sum over shape k's rows of z_r B_r (local): dalpha/dv_k in program units. */
static lucid_vec3 dual_sum(const lucid_pscaling_program *g, const double *z, int k) {
    lucid_vec3 q = lucid_vec3_zero();
    for (int i = g->first[k]; i < g->first[k] + g->count[k]; ++i)
        q = lucid_vec3_axpy(q, z[i], lucid_vec3_load(g->B[i]));
    return q;
}

/* y_k = R_k^T (p - t_k): shape k's local coordinates of p (program units). */
static lucid_vec3 local_point(const lucid_pscaling_program *g, const double *x, int k) {
    return lucid_mat3_tmul_vec(&g->R[k], lucid_vec3_sub(lucid_vec3_load(x), g->t[k]));
}

/* Column j (0..2: v, 3..5: w) of shape k's twist: the change b1 of G^T z + c and b2 of
 * G x + s - h at fixed (x, s, z). With y' = y - v + y x w and R' = R (I + [w]x):
 * b1_p = R_k (q_k x w), b2_r = B_r . v - B_r . (y_k x w) on shape k's rows. */
static void twist_rhs(const lucid_pscaling_program *g, const lucid_cone_solution *S, int k, int j,
                      double *b1, double *b2) {
    int n = g->P.n, m = g->P.m;
    for (int i = 0; i < n; ++i) b1[i] = 0.0;
    for (int i = 0; i < m; ++i) b2[i] = 0.0;
    lucid_vec3 e = lucid_vec3_make(j % 3 == 0, j % 3 == 1, j % 3 == 2);
    lucid_vec3 dy = j < 3 ? e : lucid_vec3_cross(local_point(g, S->x, k), e);
    if (j >= 3) {
        lucid_vec3 a = lucid_mat3_mul_vec(&g->R[k], lucid_vec3_cross(dual_sum(g, S->z, k), e));
        lucid_vec3_store(a, b1);
    }
    for (int i = g->first[k]; i < g->first[k] + g->count[k]; ++i)
        b2[i] = (j < 3 ? 1.0 : -1.0) * lucid_vec3_dot(lucid_vec3_load(g->B[i]), dy);
}

/* N = R_2 q_2 (program units): the unnormalised normal, shape 1 towards shape 2. */
static lucid_vec3 raw_normal(const lucid_pscaling_program *g, const double *z) {
    return lucid_mat3_mul_vec(&g->R[1], dual_sum(g, z, 1));
}

/* One column of the derivatives: the sensitivity solve, then alpha, p and n. */
static lucid_status derivative_column(const lucid_pscaling_program *g, const lucid_cone_solution *S,
                                      const lucid_cone_factor *F, int k, int j,
                                      lucid_pscaling_result *res) {
    double b1[LUCID_CONE_MAX_VARS], b2[LUCID_CONE_MAX_ROWS], dx[LUCID_CONE_MAX_VARS],
        dz[LUCID_CONE_MAX_ROWS];
    twist_rhs(g, S, k, j, b1, b2);
    lucid_cone_sensitivity(&g->P, S, F, b1, b2, dx, dz);
    for (int i = 0; i < g->P.n; ++i)
        if (!(fabs(dx[i]) <= DERIVATIVE_BOUND)) return LUCID_ERR_SINGULAR;
    lucid_vec3 N = raw_normal(g, S->z);
    lucid_vec3 dN = lucid_mat3_mul_vec(&g->R[1], dual_sum(g, dz, 1));
    if (k == 1 && j >= 3) {
        lucid_vec3 e = lucid_vec3_make(j == 3, j == 4, j == 5);
        dN = lucid_vec3_add(
            dN, lucid_mat3_mul_vec(&g->R[1], lucid_vec3_cross(e, dual_sum(g, S->z, 1))));
    }
    double nn = lucid_vec3_norm(N);
    lucid_vec3 n = lucid_vec3_scale(N, 1.0 / nn);
    lucid_vec3 dn = lucid_vec3_scale(lucid_vec3_axpy(dN, -lucid_vec3_dot(n, dN), n), 1.0 / nn);
    /* back to world units: a translation derivative is per program unit (divide by L), a
     * point moves by L per program unit */
    double L = g->scale, per_v = j < 3 ? 1.0 / L : 1.0, point_scale = j < 3 ? 1.0 : L;
    lucid_pscaling_derivatives *d = &res->d;
    double *alpha = k == 0 ? d->alpha_T1 : d->alpha_T2;
    double *point = k == 0 ? d->point_T1 : d->point_T2;
    double *normal = k == 0 ? d->normal_T1 : d->normal_T2;
    alpha[j] = dx[3] * g->alpha_unit * per_v;
    for (int i = 0; i < 3; ++i) {
        point[i + 3 * j] = dx[i] * point_scale;
        normal[i + 3 * j] = lucid_vec3_get(dn, i) * per_v;
    }
    return LUCID_OK;
}

/* With a halfspace, alpha = 0 once the partner's centre c is inside it: p = c, n = the
 * halfspace's outward normal (from shape 1 to shape 2), alpha stays 0 nearby. */
static int halfspace_closed_form(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                 const lucid_se3 *T2, lucid_pscaling_result *res) {
    int hk = s1->kind == LUCID_SHAPE_HALFSPACE ? 0 : 1;
    const lucid_shape *h = hk == 0 ? s1 : s2, *o = hk == 0 ? s2 : s1;
    const lucid_se3 *Th = hk == 0 ? T1 : T2, *To = hk == 0 ? T2 : T1;
    lucid_vec3 c_local = lucid_pscaling_centre(o);
    lucid_vec3 c = lucid_se3_act(To, c_local);
    lucid_vec3 ch = lucid_se3_act_inv(Th, c);
    if (lucid_vec3_dot(h->u.halfspace.normal, ch) > h->u.halfspace.offset) return 0;
    double sign = hk == 0 ? 1.0 : -1.0;
    lucid_vec3 n = lucid_mat3_mul_vec(&Th->R, h->u.halfspace.normal);
    res->alpha = 0.0;
    res->phi = -1.0;
    res->point = c;
    res->normal = lucid_vec3_scale(n, sign);
    res->closed_form = 1;
    res->converged = 1;
    memset(&res->d, 0, sizeof res->d);
    double *point = hk == 0 ? res->d.point_T2 : res->d.point_T1;
    double *normal = hk == 0 ? res->d.normal_T1 : res->d.normal_T2;
    for (int j = 0; j < 3; ++j) {
        lucid_vec3 e = lucid_vec3_make(j == 0, j == 1, j == 2);
        lucid_vec3 dv = lucid_mat3_mul_vec(&To->R, e);                            /* p = t + R c */
        lucid_vec3 dw = lucid_mat3_mul_vec(&To->R, lucid_vec3_cross(e, c_local)); /* R (w x c) */
        lucid_vec3 dn = lucid_vec3_scale(
            lucid_mat3_mul_vec(&Th->R, lucid_vec3_cross(e, h->u.halfspace.normal)), sign);
        for (int i = 0; i < 3; ++i) {
            point[i + 3 * j] = lucid_vec3_get(dv, i);
            point[i + 3 * (j + 3)] = lucid_vec3_get(dw, i);
            normal[i + 3 * (j + 3)] = lucid_vec3_get(dn, i);
        }
    }
    return 1;
}

static void read_solution(const lucid_pscaling_program *g, const lucid_cone_solution *S,
                          lucid_pscaling_result *res) {
    res->alpha = S->x[3] * g->alpha_unit;
    res->phi = res->alpha - 1.0;
    res->point = lucid_vec3_axpy(g->origin, g->scale, lucid_vec3_load(S->x));
    res->normal = lucid_vec3_normalized(raw_normal(g, S->z));
    res->iterations = S->iterations;
    res->converged = S->converged;
    res->residual = S->residual;
}

lucid_status lucid_pscaling(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                            const lucid_se3 *T2, const lucid_pscaling_options *opt,
                            lucid_pscaling_result *res) {
    lucid_pscaling_options def;
    lucid_pscaling_options_default(&def);
    if (!opt) opt = &def;
    if (!s1 || !s2 || !T1 || !T2 || !res ||
        lucid_option_table_check(lucid_pscaling_option_table, opt, NULL) != LUCID_OK)
        return LUCID_ERR_ARGUMENT;
    if (s1->kind == LUCID_SHAPE_HALFSPACE && s2->kind == LUCID_SHAPE_HALFSPACE)
        return LUCID_ERR_ARGUMENT;
    if (s1->kind == LUCID_SHAPE_HEIGHTFIELD || s2->kind == LUCID_SHAPE_HEIGHTFIELD)
        return LUCID_ERR_ARGUMENT; /* not convex */
    lucid_status st = LUCID_OK;
    if (!pose_ok(T1, &st) || !pose_ok(T2, &st)) return st;
    memset(res, 0, sizeof *res);
    if ((s1->kind == LUCID_SHAPE_HALFSPACE || s2->kind == LUCID_SHAPE_HALFSPACE) &&
        halfspace_closed_form(s1, T1, s2, T2, res))
        return LUCID_OK;
    lucid_pscaling_program g;
    st = lucid_pscaling_build(s1, T1, s2, T2, &g);
    if (st != LUCID_OK) return st;
    lucid_cone_solution S;
    st = lucid_cone_solve(&g.P, opt->tol, opt->max_iter, &S);
    res->scale = g.scale;
    if (st != LUCID_OK && st != LUCID_ERR_NO_CONVERGENCE) return st;
    read_solution(&g, &S, res);
    /* coinciding centres: alpha ~ |c2 - c1| has a kink at 0, no derivative */
    if (st == LUCID_OK && opt->derivatives && S.x[3] <= KINK_ALPHA * opt->tol)
        st = LUCID_ERR_SINGULAR;
    if (st == LUCID_OK && opt->derivatives) {
        lucid_cone_factor F; /* one factorisation, 12 right-hand sides */
        st = lucid_cone_factor_kkt(&g.P, &S, &F);
        for (int k = 0; k < 2 && st == LUCID_OK; ++k)
            for (int j = 0; j < 6 && st == LUCID_OK; ++j)
                st = derivative_column(&g, &S, &F, k, j, res);
    }
    if (st != LUCID_OK) memset(&res->d, 0, sizeof res->d);
    return st;
}
