/* The step derivatives' options: defaults, their description (lucid_step_derivative_option_table)
 * and check. */
#include <assert.h>
#include <string.h>

#include "runtime/world/step_derivatives.h"

static_assert(sizeof(lucid_step_method) == sizeof(int) &&
                  sizeof(lucid_step_geometry) == sizeof(int),
              "CHOICE options are stored as int");

static const lucid_option_choice methods[] = {
    {"implicit", LUCID_STEP_IMPLICIT},
    {"relaxed", LUCID_STEP_RELAXED},
    {"finite_differences", LUCID_STEP_FINITE_DIFFERENCES},
    {NULL, 0},
};

static const lucid_option_choice geometries[] = {
    {"auto", LUCID_STEP_GEOMETRY_AUTO},
    {"carried", LUCID_STEP_GEOMETRY_CARRIED},
    {"collide", LUCID_STEP_GEOMETRY_COLLIDE},
    {NULL, 0},
};

/* (0, 1): a difference step of 1 is no longer small against unit-scaled coordinates; tau is
 * a fraction of a normalised force or velocity (lucid_contact_derivative_option_table). */
#define LUCID_OPTION_OPEN01_RANGE                                                                  \
    { 0.0, 1.0, 1, 1 }
#define LUCID_OPTION_OPEN01_WORDS "in (0, 1)"

#define S lucid_step_derivative_options
const lucid_option lucid_step_derivative_option_table[] = {
    LUCID_OPTION_CHOICE_ENTRY(S, "", method, methods,
                              "\"implicit\", \"relaxed\" or \"finite_differences\"",
                              "how the contact forces are differentiated"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", step, OPEN01, "h of the central differences"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", tol, POSITIVE,
                              "finite_differences: the contact solver's tol in perturbed steps"),
    LUCID_OPTION_COUNT_ENTRY(S, "", max_iter, AT_LEAST1,
                             "finite_differences: the contact solver's iteration limit"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", threshold, OPEN01,
                              "implicit: tau of the contact modes' classification"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", kappa, POSITIVE,
                              "relaxed: the central-path relaxation, N m/s^2 per contact"),
    LUCID_OPTION_CHOICE_ENTRY(S, "", geometry, geometries, "\"auto\", \"carried\" or \"collide\"",
                              "how position and parameter columns get their contacts"),
    LUCID_OPTION_END,
};
#undef S

void lucid_step_derivative_default_options(lucid_step_derivative_options *o) {
    memset(o, 0, sizeof *o);
    o->method = LUCID_STEP_IMPLICIT;
    o->step = 1e-6;
    o->tol = 1e-11;
    o->max_iter = 10000;
    o->threshold = lucid_contact_derivative_default_options(LUCID_CONTACT_NCP).threshold;
    o->kappa = 1e-6;
    o->geometry = LUCID_STEP_GEOMETRY_AUTO;
}

lucid_status lucid_step_derivative_options_check(const lucid_step_derivative_options *o,
                                                 const char **why) {
    lucid_status s = lucid_option_table_check(lucid_step_derivative_option_table, o, why);
    return s == LUCID_ERR_NONFINITE ? LUCID_ERR_ARGUMENT : s;
}
