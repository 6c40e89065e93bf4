/* GJK's query options: defaults, their description (lucid_gjk_option_table) and check. */
#include <assert.h>

#include "solvers/collision/epa.h"
#include "solvers/collision/gjk.h"

static_assert(sizeof(lucid_gjk_algorithm) == sizeof(int) &&
                  sizeof(lucid_gjk_tolerance) == sizeof(int),
              "CHOICE options are stored as int");

static const lucid_option_choice algorithms[] = {
    {"gjk", LUCID_GJK_VANILLA},
    {"polyak", LUCID_GJK_POLYAK},
    {"nesterov", LUCID_GJK_NESTEROV},
    {NULL, 0},
};

static const lucid_option_choice tolerances[] = {
    {"absolute", LUCID_GJK_TOL_ABSOLUTE},
    {"relative", LUCID_GJK_TOL_RELATIVE},
    {NULL, 0},
};

#define S lucid_gjk_options

const lucid_option lucid_gjk_option_table[] = {
    LUCID_OPTION_CHOICE_ENTRY(S, "", algorithm, algorithms, "\"gjk\", \"polyak\" or \"nesterov\"",
                              "GJK (Frank-Wolfe) or its Polyak or Nesterov acceleration (GJK++)"),
    LUCID_OPTION_BOOLEAN_ENTRY(S, "", normalize,
                               "accelerated: normalise momentum and gradient before mixing"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", tol, POSITIVE, "duality-gap tolerance (m^2 when absolute)"),
    LUCID_OPTION_CHOICE_ENTRY(S, "", tol_mode, tolerances, "\"absolute\" or \"relative\"",
                              "the gap against tol, or against tol ||x||^2"),
    LUCID_OPTION_COUNT_ENTRY(S, "", max_iter, AT_LEAST1, "GJK iterations"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", epa_tol, NONNEGATIVE,
                              "EPA: support gap on the closest face, m"),
    LUCID_OPTION_INTEGER_ENTRY(S, "", epa_max_iter, 0, LUCID_EPA_MAX_ITER, "EPA iterations"),
    LUCID_OPTION_END,
};

#undef S

void lucid_gjk_options_default(lucid_gjk_options *opt) {
    opt->algorithm = LUCID_GJK_VANILLA;
    opt->normalize = 0;
    opt->tol = 1e-8;
    opt->tol_mode = LUCID_GJK_TOL_ABSOLUTE;
    opt->max_iter = 128;
    opt->warm_start = LUCID_WARM_BOX_CENTERS;
    opt->warm_vector = lucid_vec3_zero();
    opt->previous = NULL;
    opt->epa_tol = 1e-9;
    opt->epa_max_iter = LUCID_EPA_MAX_ITER;
}

lucid_status lucid_gjk_options_check(const lucid_gjk_options *opt, const char **why) {
    lucid_status s = lucid_option_table_check(lucid_gjk_option_table, opt, why);
    return s == LUCID_ERR_NONFINITE ? LUCID_ERR_ARGUMENT : s;
}
