/* The world's options: defaults, their description (lucid_world_option_table) and check. */
#include <math.h>
#include <string.h>

#include "runtime/world/world.h"
#include "solvers/collision/contact_patch.h"

#define S lucid_world_options

static const lucid_option_choice collision_choices[] = {
    {"two_stage", LUCID_WORLD_COLLISION_TWO_STAGE},
    {"single_level", LUCID_WORLD_COLLISION_SINGLE_LEVEL},
    {"default", LUCID_WORLD_COLLISION_TWO_STAGE},
    {NULL, 0},
};

const lucid_option lucid_world_option_table[] = {
    LUCID_OPTION_VEC3_ENTRY(S, "", gravity, "gravity, m/s^2"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", dt, POSITIVE, "time step, s"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", slop, NONNEGATIVE,
                              "a resting contact settles slop/2 deep, m (smaller parts: 0.02 of "
                              "their smallest half extent)"),
    LUCID_OPTION_SPECIAL_ENTRY(S, "", correction_speed, LUCID_OPTION_NUMBER, NONNEGATIVE, -1.0,
                               "-1: sqrt(2 g_n slop)",
                               "the fastest an overlap deeper than the rest depth is pushed out, "
                               "m/s (rad/s on a hinge's limit)"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", margin, NONNEGATIVE,
                              "contacts are generated for gaps below it (grown by a fast body's "
                              "sweep), m"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", restitution_threshold, NONNEGATIVE,
                              "approach speed above which restitution acts, m/s"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", compliance, NONNEGATIVE, "R on the normal entries (0: rigid)"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", warm_start_radius, NONNEGATIVE,
                              "a new contact inherits the force of the nearest previous contact "
                              "of its pair within it, m"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", density, POSITIVE,
                              "for bodies whose mass is not given, kg/m^3"),
    LUCID_OPTION_INTEGER_ENTRY(S, "", patch_points, 1, LUCID_PATCH_MAX_POINTS,
                               "contact points kept per shape pair"),
    LUCID_OPTION_SPECIAL_ENTRY(S, "", sparse_threshold, LUCID_OPTION_INTEGER, NONNEGATIVE, -1.0,
                               "-1: automatic, per solver",
                               "islands of more contacts are solved in body space"),
    LUCID_OPTION_CHOICE_ENTRY(S, "", collision, collision_choices,
                              "\"two_stage\" (or its alias \"default\") or \"single_level\"",
                              "collision then contact, or both as one problem (Silico)"),
    LUCID_OPTION_END,
};

#undef S

void lucid_world_default_options(lucid_world_options *o) {
    memset(o, 0, sizeof *o);
    o->gravity = lucid_vec3_make(0.0, 0.0, -9.81);
    o->dt = 1e-3;
    o->contact = lucid_contact_default_options();
    o->contact.model = LUCID_CONTACT_NCP;
    o->contact.solver = LUCID_CONTACT_NEWTON;
    o->contact.tol = 1e-6;
    o->contact.max_iter = 200;
    o->contact.warm_start = 1;
    o->contact.check_psd = 0; /* an island's G = J M^-1 J^T is PSD by construction */
    o->slop = 1e-4;
    o->correction_speed = -1.0;
    o->margin = 5e-3;
    o->restitution_threshold = 0.5;
    o->compliance = 0.0;
    o->warm_start_radius = 1e-2;
    o->density = 1000.0;
    o->patch_points = 4;
    o->sparse_threshold = -1;
    o->collision = LUCID_WORLD_COLLISION_TWO_STAGE;
    lucid_single_level_default_options(&o->single_level);
}

double lucid_world_correction_speed_for(const lucid_world_options *o, double slop) {
    return o->correction_speed >= 0.0 ? o->correction_speed
                                      : sqrt(2.0 * LUCID_STANDARD_GRAVITY * slop);
}

double lucid_world_correction_speed(const lucid_world_options *o) {
    return lucid_world_correction_speed_for(o, o->slop);
}

static lucid_status bad(const char **why, const char *msg, lucid_status s) {
    if (why) *why = msg;
    return s;
}

lucid_status lucid_world_options_check(const lucid_world_options *o, const char **why) {
    if (!o) return bad(why, "options missing", LUCID_ERR_ARGUMENT);
    lucid_status s = lucid_option_table_check(lucid_world_option_table, o, why);
    if (s != LUCID_OK) return s;
    if ((s = lucid_contact_options_check(&o->contact, why)) != LUCID_OK) return s;
    if (o->contact.max_iter < 1)
        return bad(why, "contact max_iter must be >= 1", LUCID_ERR_ARGUMENT);
    return lucid_single_level_options_check(&o->single_level, why);
}
