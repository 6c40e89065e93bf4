/* The step derivatives' options, checked through lucid_step_derivative_option_table: each rule
 * is refused with its words by lucid_step_derivative_options_check and by
 * lucid_world_step_derivatives, which then steps nothing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/world/step_derivatives.h"
#include "runtime/world/world.h"

/* o with one field changed by set, and the rule it must break. */
typedef struct bad_case {
    void (*set)(lucid_step_derivative_options *o);
    const char *rule;
} bad_case;

static void step_zero(lucid_step_derivative_options *o) {
    o->step = 0.0;
}
static void step_one(lucid_step_derivative_options *o) {
    o->step = 1.0;
}
static void tol_zero(lucid_step_derivative_options *o) {
    o->tol = 0.0;
}
static void tol_nan(lucid_step_derivative_options *o) {
    o->tol = NAN;
}
static void max_iter_zero(lucid_step_derivative_options *o) {
    o->max_iter = 0;
}
static void threshold_zero(lucid_step_derivative_options *o) {
    o->threshold = 0.0;
}
static void kappa_inf(lucid_step_derivative_options *o) {
    o->kappa = INFINITY;
}
static void method_unknown(lucid_step_derivative_options *o) {
    o->method = (lucid_step_method)7;
}
static void geometry_unknown(lucid_step_derivative_options *o) {
    o->geometry = (lucid_step_geometry)-1;
}

static const bad_case bad_cases[] = {
    {step_zero, "step must be in (0, 1)"},
    {step_one, "step must be in (0, 1)"},
    {tol_zero, "tol must be > 0"},
    {tol_nan, "tol must be > 0"},
    {max_iter_zero, "max_iter must be an integer >= 1"},
    {threshold_zero, "threshold must be in (0, 1)"},
    {kappa_inf, "kappa must be > 0"},
    {method_unknown, "method must be \"implicit\", \"relaxed\" or \"finite_differences\""},
    {geometry_unknown, "geometry must be \"auto\", \"carried\" or \"collide\""},
};

static void test_defaults_pass(void **state) {
    (void)state;
    lucid_step_derivative_options o;
    lucid_step_derivative_default_options(&o);
    const char *why = "unset";
    assert_int_equal(lucid_step_derivative_options_check(&o, &why), LUCID_OK);
    assert_string_equal(why, "unset");
}

static void test_each_rule_refused(void **state) {
    (void)state;
    lucid_world_options wo;
    lucid_world_default_options(&wo);
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&wo, &w), LUCID_OK);
    lucid_shape ball;
    lucid_shape_sphere(0.1, &ball);
    lucid_body_part part = {ball, lucid_se3_identity()};
    lucid_body_desc d;
    lucid_body_desc_default(&d);
    d.parts = &part, d.num_parts = 1;
    int id;
    assert_int_equal(lucid_world_add_body(w, &d, &id, NULL), LUCID_OK);
    double before[13], after[13];
    assert_int_equal(lucid_world_state_size(w), 13);
    lucid_world_get_state(w, before);
    for (size_t k = 0; k < sizeof bad_cases / sizeof bad_cases[0]; ++k) {
        lucid_step_derivative_options o;
        lucid_step_derivative_default_options(&o);
        bad_cases[k].set(&o);
        const char *why = NULL;
        assert_int_equal(lucid_step_derivative_options_check(&o, &why), LUCID_ERR_ARGUMENT);
        assert_string_equal(why, bad_cases[k].rule);
        lucid_step_jacobians J;
        why = NULL;
        assert_int_equal(lucid_world_step_derivatives(w, &o, &J, &why), LUCID_ERR_ARGUMENT);
        assert_string_equal(why, bad_cases[k].rule);
        lucid_world_get_state(w, after);
        assert_memory_equal(before, after, sizeof before); /* nothing was stepped */
    }
    /* the estimator of o.collision is checked by lucid_derivative_option_table */
    lucid_step_derivative_options o;
    lucid_step_derivative_default_options(&o);
    lucid_derivative_options e;
    lucid_derivative_options_default(&e);
    e.noise = -1.0;
    o.collision = &e;
    lucid_step_jacobians J;
    const char *why = NULL;
    assert_int_equal(lucid_world_step_derivatives(w, &o, &J, &why), LUCID_ERR_ARGUMENT);
    assert_string_equal(why, "noise must be > 0");
    lucid_world_get_state(w, after);
    assert_memory_equal(before, after, sizeof before);
    lucid_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_pass),
        cmocka_unit_test(test_each_rule_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
