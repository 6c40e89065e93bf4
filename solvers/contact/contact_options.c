/* The contact options' description (lucid_contact_option_table) and their check. */
#include <assert.h>

#include "solvers/contact/contact_solver.h"

static_assert(sizeof(lucid_contact_model) == sizeof(int) &&
                  sizeof(lucid_contact_solver) == sizeof(int),
              "CHOICE options are stored as int");

static const lucid_option_choice model_choices[] = {
    {"lcp", LUCID_CONTACT_LCP},
    {"ccp", LUCID_CONTACT_CCP},
    {"raisim", LUCID_CONTACT_RAISIM},
    {"ncp", LUCID_CONTACT_NCP},
    {NULL, 0},
};

static const lucid_option_choice solver_choices[] = {
    {"pgs", LUCID_CONTACT_PGS},
    {"admm", LUCID_CONTACT_ADMM},
    {"newton", LUCID_CONTACT_NEWTON},
    {"staggered", LUCID_CONTACT_STAGGERED},
    {"bisection", LUCID_CONTACT_BISECTION},
    {"ip", LUCID_CONTACT_IP},
    {NULL, 0},
};

#define S lucid_contact_options
#define P "contact "

const lucid_option lucid_contact_option_table[] = {
    LUCID_OPTION_CHOICE_ENTRY(S, P, model, model_choices, "lcp, ccp, raisim or ncp",
                              "the contact model: lcp, ccp, raisim or ncp"),
    LUCID_OPTION_CHOICE_ENTRY(S, P, solver, solver_choices,
                              "pgs, admm, newton, staggered, bisection or ip",
                              "pgs, admm, newton, staggered, bisection or ip; default: the "
                              "model's robust one"),
    LUCID_OPTION_NUMBER_ENTRY(S, P, tol, NONNEGATIVE, "on the model criterion's abs value"),
    LUCID_OPTION_COUNT_ENTRY(S, P, max_iter, NONNEGATIVE, "outer iterations"),
    LUCID_OPTION_BOOLEAN_ENTRY(S, P, warm_start, "start from the previous step's forces"),
    LUCID_OPTION_NUMBER_ENTRY(S, P, relaxation, OPEN02, "PGS over-relaxation"),
    LUCID_OPTION_NUMBER_AS(S, P, alpha, admm_alpha, OPEN02, "ADMM over-relaxation"),
    LUCID_OPTION_NUMBER_ENTRY(S, P, rho, ANY,
                              "ADMM initial rho; <= 0 picks sqrt(eig_min eig_max) of G + R"),
    LUCID_OPTION_NUMBER_ENTRY(S, P, stall_tol, NONNEGATIVE,
                              "relative change of lambda below which a solver has stalled"),
    LUCID_OPTION_COUNT_ENTRY(S, P, inner_max_iter, AT_LEAST1,
                             "staggered projections: ADMM iterations per inner QP"),
    LUCID_OPTION_NUMBER_AS(S, P, compliance, newton_compliance, POSITIVE,
                           "ccp:newton: R = compliance x trace(G_ii) / 3 where R = 0"),
    LUCID_OPTION_NUMBER_ENTRY(S, P, kappa, NONNEGATIVE,
                              "ip: the central-path relaxation (0: exact complementarity)"),
    LUCID_OPTION_BOOLEAN_ENTRY(S, P, polish,
                               "body-space ADMM: Newton on the equations of the contact modes"),
    LUCID_OPTION_NUMBER_ENTRY(S, P, rho_ratio, ABOVE1,
                              "ADMM: adapt rho when one residual exceeds ratio x the other"),
    LUCID_OPTION_NUMBER_ENTRY(S, P, rho_power, POSITIVE, "ADMM: spectral update factor"),
    LUCID_OPTION_BOOLEAN_ENTRY(S, P, check_psd, "check G + R is PSD by a factorisation"),
    LUCID_OPTION_BOOLEAN_ENTRY(S, P, give_up, "body-space ADMM: end a solve forecast to miss tol"),
    LUCID_OPTION_BOOLEAN_ENTRY(S, P, first_order, "converged also asks the friction direction"),
    LUCID_OPTION_BOOLEAN_ENTRY(S, P, derive_dual,
                               "ADMM: a warm start's multiplier from lambda, not from dual"),
    LUCID_OPTION_END,
};

#undef P
#undef S

lucid_status lucid_contact_options_check(const lucid_contact_options *o, const char **why) {
    lucid_status s = lucid_option_table_check(lucid_contact_option_table, o, why);
    if (s != LUCID_OK) return s == LUCID_ERR_NONFINITE ? LUCID_ERR_ARGUMENT : s;
    if (lucid_contact_pair_check(o->model, o->solver) == LUCID_OK) return LUCID_OK;
    if (why) *why = "contact model/solver pair is not one of lucid_contact_pair_check's";
    return LUCID_ERR_ARGUMENT;
}
