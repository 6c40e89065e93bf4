/* lucid_distance_derivatives: validates the request, runs the nominal distance query and
 * hands it to the chosen estimator. */
#include "autodiff/collision_derivatives.h"

#include <math.h>
#include <string.h>

#include "autodiff/collision_derivatives_hessians.h"
#include "autodiff/collision_derivatives_implicit.h"
#include "autodiff/collision_derivatives_sampling.h"
#include "solvers/collision/epa.h"

#include <assert.h>

static_assert(sizeof(lucid_derivative_method) == sizeof(int), "CHOICE options are stored as int");

static const lucid_option_choice methods[] = {
    {"finite_differences", LUCID_DERIV_FINITE_DIFFERENCES},
    {"zeroth_order", LUCID_DERIV_ZEROTH_ORDER},
    {"first_order_gaussian", LUCID_DERIV_FIRST_ORDER_GAUSSIAN},
    {"first_order_gumbel", LUCID_DERIV_FIRST_ORDER_GUMBEL},
    {"analytic", LUCID_DERIV_ANALYTIC},
    {NULL, 0},
};

void lucid_derivative_query_options_default(lucid_gjk_options *opt) {
    lucid_gjk_options_default(opt);
    opt->tol_mode = LUCID_GJK_TOL_RELATIVE;
    opt->tol = 1e-30; /* below the round-off floor of the gap (see gjk.c) */
    opt->max_iter = 512;
    opt->epa_tol = 1e-15; /* 0 would make EPA on polytopes run ~80 iterations, not ~4 */
    opt->epa_max_iter = LUCID_EPA_MAX_ITER;
}

void lucid_derivative_options_default(lucid_derivative_options *opt) {
    opt->method = LUCID_DERIV_FINITE_DIFFERENCES;
    opt->step = 0.0; /* automatic */
    opt->samples = 20;
    opt->noise = 1e-3;
    opt->levels = 1;
    opt->seed = 0;
    opt->gjk = NULL;
}

#define S lucid_derivative_options
const lucid_option lucid_derivative_option_table[] = {
    LUCID_OPTION_CHOICE_ENTRY(S, "", method, methods,
                              "\"finite_differences\", \"zeroth_order\", \"first_order_gaussian\", "
                              "\"first_order_gumbel\" or \"analytic\"",
                              "the estimator"),
    LUCID_OPTION_SPECIAL_ENTRY(S, "", step, LUCID_OPTION_NUMBER, POSITIVE, 0.0,
                               "0: automatic, lucid_derivative_auto_step",
                               "finite_differences: central step on each twist coordinate"),
    LUCID_OPTION_COUNT_ENTRY(S, "", samples, AT_LEAST1,
                             "zeroth_order, first_order_gaussian: samples M"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", noise, POSITIVE,
                              "smoothing eps: noise std on the twist (zeroth order) or on x* (m, "
                              "Gaussian), temperature (m^2, Gumbel)"),
    LUCID_OPTION_COUNT_ENTRY(S, "", levels, NONNEGATIVE,
                             "first_order_gumbel: adjacency levels around the support vertex"),
    LUCID_OPTION_END,
};
#undef S

lucid_status lucid_derivative_options_check(const lucid_derivative_options *opt, const char **why) {
    lucid_status s = lucid_option_table_check(lucid_derivative_option_table, opt, why);
    return s == LUCID_ERR_NONFINITE ? LUCID_ERR_ARGUMENT : s;
}

/* The method's entry: the table's first. */
#define METHOD_OPTION (&lucid_derivative_option_table[0])

int lucid_derivative_method_from_name(const char *name, lucid_derivative_method *method) {
    int value;
    if (name == NULL || !lucid_option_choice_value(METHOD_OPTION, name, &value)) return 0;
    *method = (lucid_derivative_method)value;
    return 1;
}

const char *lucid_derivative_method_name(lucid_derivative_method method) {
    const char *name = lucid_option_choice_name(METHOD_OPTION, (int)method);
    return name ? name : "unknown";
}

/* Whether the first-order method can build a Hessian for s (before any query runs). */
static lucid_status check_shape(const lucid_shape *s, lucid_derivative_method method) {
    if (method == LUCID_DERIV_FINITE_DIFFERENCES || method == LUCID_DERIV_ZEROTH_ORDER)
        return LUCID_OK;
    if (s->kind == LUCID_SHAPE_HALFSPACE) return LUCID_ERR_ARGUMENT; /* no support function */
    if (method == LUCID_DERIV_FIRST_ORDER_GUMBEL && s->kind != LUCID_SHAPE_CONVEX)
        return LUCID_ERR_ARGUMENT;
    if (method == LUCID_DERIV_ANALYTIC && s->kind != LUCID_SHAPE_SPHERE &&
        s->kind != LUCID_SHAPE_ELLIPSOID && s->kind != LUCID_SHAPE_CAPSULE &&
        s->kind != LUCID_SHAPE_CYLINDER)
        return LUCID_ERR_ARGUMENT;
    return LUCID_OK;
}

/* The support Hessian of s for the world direction u (unit), rotated to the world frame:
 * exact at u (analytic), else smoothed at the paper's argument |d| u. */
static lucid_status world_hessian(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 u,
                                  double scale, const lucid_derivative_options *opt, lucid_rng *rng,
                                  lucid_derivative_workspace *ws, lucid_mat3 *K) {
    lucid_vec3 l = lucid_mat3_tmul_vec(&T->R, u);
    lucid_mat3 local;
    lucid_status st = LUCID_OK;
    if (opt->method == LUCID_DERIV_ANALYTIC)
        st = lucid_support_hessian_analytic(s, l, &local);
    else if (opt->method == LUCID_DERIV_FIRST_ORDER_GAUSSIAN)
        local = lucid_support_hessian_gaussian(s, lucid_vec3_scale(l, scale), l, opt->samples,
                                               opt->noise, rng);
    else
        st = lucid_support_hessian_gumbel(s, l, scale, opt->levels, opt->noise, ws, &local);
    if (st == LUCID_OK) *K = lucid_derivatives_hessian_to_world(&T->R, &local);
    return st;
}

static lucid_status first_order(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                const lucid_se3 *T2, const lucid_derivative_options *opt,
                                lucid_derivative_workspace *ws,
                                lucid_distance_derivatives_result *res) {
    lucid_rng rng; /* only the Gaussian estimator draws */
    if (opt->method == LUCID_DERIV_FIRST_ORDER_GAUSSIAN) lucid_rng_seed(&rng, opt->seed);
    lucid_vec3 n = res->query.normal;
    double scale = fabs(res->query.distance);
    lucid_mat3 H1, H2;
    lucid_status st = world_hessian(s1, T1, n, scale, opt, &rng, ws, &H1);
    if (st != LUCID_OK) return st;
    st = world_hessian(s2, T2, lucid_vec3_neg(n), scale, opt, &rng, ws, &H2);
    if (st != LUCID_OK) return st;
    if (opt->method == LUCID_DERIV_ANALYTIC)
        return lucid_derivatives_implicit_solve_unit(T2, H1, H2, res);
    return lucid_derivatives_implicit_solve_smoothed(T2, H1, H2, res);
}

static lucid_status check_request(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                  const lucid_se3 *T2, const lucid_derivative_options *opt,
                                  const lucid_derivative_workspace *ws, const void *res) {
    if (s1 == NULL || T1 == NULL || s2 == NULL || T2 == NULL || res == NULL)
        return LUCID_ERR_ARGUMENT;
    lucid_status st = lucid_derivative_options_check(opt, NULL);
    if (st == LUCID_OK) st = check_shape(s1, opt->method);
    if (st == LUCID_OK) st = check_shape(s2, opt->method);
    if (st == LUCID_OK && opt->method == LUCID_DERIV_FIRST_ORDER_GUMBEL && ws == NULL)
        st = LUCID_ERR_ARGUMENT;
    return st;
}

static lucid_status derivatives_of_query(const lucid_shape *s1, const lucid_se3 *T1,
                                         const lucid_shape *s2, const lucid_se3 *T2,
                                         const lucid_derivative_options *opt,
                                         lucid_derivative_workspace *ws,
                                         lucid_distance_derivatives_result *res) {
    if (opt->method == LUCID_DERIV_FINITE_DIFFERENCES || opt->method == LUCID_DERIV_ZEROTH_ORDER) {
        lucid_gjk_options tight;
        if (opt->gjk == NULL) lucid_derivative_query_options_default(&tight);
        lucid_pose_query q;
        lucid_pose_query_init(&q, s1, T1, s2, T2, opt->gjk ? opt->gjk : &tight, &res->query);
        if (opt->method == LUCID_DERIV_FINITE_DIFFERENCES) {
            double h = opt->step > 0.0 ? opt->step
                                       : lucid_derivative_auto_step(&q.gjk, T1, T2, &res->query);
            return lucid_derivatives_finite_differences(&q, h, res);
        }
        return lucid_derivatives_zeroth_order(&q, opt->samples, opt->noise, opt->seed, res);
    }
    return first_order(s1, T1, s2, T2, opt, ws, res);
}

static const lucid_derivative_options *or_defaults(const lucid_derivative_options *opt,
                                                   lucid_derivative_options *defaults) {
    if (opt != NULL) return opt;
    lucid_derivative_options_default(defaults);
    return defaults;
}

lucid_status lucid_distance_derivatives(const lucid_shape *s1, const lucid_se3 *T1,
                                        const lucid_shape *s2, const lucid_se3 *T2,
                                        const lucid_derivative_options *opt,
                                        lucid_derivative_workspace *ws,
                                        lucid_distance_derivatives_result *res) {
    lucid_derivative_options defaults;
    opt = or_defaults(opt, &defaults);
    lucid_status st = check_request(s1, T1, s2, T2, opt, ws, res);
    lucid_gjk_options tight;
    if (opt->gjk == NULL) lucid_derivative_query_options_default(&tight);
    if (st == LUCID_OK)
        st = lucid_distance(s1, T1, s2, T2, opt->gjk ? opt->gjk : &tight, &res->query);
    if (st != LUCID_OK) return st;
    return derivatives_of_query(s1, T1, s2, T2, opt, ws, res);
}

lucid_status lucid_distance_derivatives_from_query(const lucid_shape *s1, const lucid_se3 *T1,
                                                   const lucid_shape *s2, const lucid_se3 *T2,
                                                   const lucid_derivative_options *opt,
                                                   lucid_derivative_workspace *ws,
                                                   const lucid_distance_result *query,
                                                   lucid_distance_derivatives_result *res) {
    lucid_derivative_options defaults;
    opt = or_defaults(opt, &defaults);
    lucid_status st = check_request(s1, T1, s2, T2, opt, ws, res);
    if (st == LUCID_OK && query == NULL) st = LUCID_ERR_ARGUMENT;
    if (st != LUCID_OK) return st;
    res->query = *query;
    return derivatives_of_query(s1, T1, s2, T2, opt, ws, res);
}
