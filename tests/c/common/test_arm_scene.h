/* lucid's 7-joint arm (tasks/models/arm7.xml, model m) under its position servos pressing the
 * box of its file, in a world of the given contact model, solver and sparse_threshold (the
 * scene of test_world_robot_sparse.c; built here for test_world_ip_sparse.c,
 * test_world_ncp_newton_sparse.c and test_world_alloc.c).
 * Include after cmocka.h. */
#ifndef LUCID_TEST_ARM_SCENE_H
#define LUCID_TEST_ARM_SCENE_H

#include "runtime/model/model.h"
#include "runtime/world/world.h"

static inline lucid_world *test_arm_world(const lucid_model *m, lucid_contact_model model,
                                          lucid_contact_solver solver, int threshold) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = lucid_model_timestep(m);
    o.gravity = lucid_model_gravity(m);
    o.contact.model = model, o.contact.solver = solver;
    o.sparse_threshold = threshold;
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    lucid_world_model_desc d;
    lucid_world_model_desc_default(&d);
    int id;
    assert_int_equal(lucid_world_add_model(w, m, &d, &id, NULL), LUCID_OK);
    const double u[7] = {0, 1.7, 0, -0.5, 0, 0.9, 0};
    assert_int_equal(lucid_world_model_set_control(w, id, u, NULL), LUCID_OK);
    return w;
}

#endif
