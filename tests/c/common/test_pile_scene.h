/* The pile the body-space tests share (test_world_sparse.c, test_world_ip_sparse.c): 3 x 3
 * boxes side by side on the ground (touching: their side faces are within the margin) under a
 * layer of 2 x 2 boxes resting across them, every box turned a little so that the patches
 * differ; one island of ~100-180 contacts. Include after <cmocka.h>. */
#ifndef LUCID_TEST_PILE_SCENE_H
#define LUCID_TEST_PILE_SCENE_H

#include <math.h>

#include "runtime/world/world.h"

static inline lucid_world *test_pile_world(lucid_contact_model model, lucid_contact_solver solver,
                                           int threshold) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = 2e-3;
    o.contact.model = model;
    o.contact.solver = solver;
    o.sparse_threshold = threshold;
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    lucid_body_part part = {{0}, lucid_se3_identity()};
    lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0, &part.shape);
    int id;
    lucid_se3 I = lucid_se3_identity();
    assert_int_equal(lucid_world_add_static(w, &part, 1, &I, 0.5, &id, NULL), LUCID_OK);
    lucid_shape_box(0.05, 0.05, 0.05, &part.shape);
    for (int k = 0; k < 13; ++k) {
        lucid_body_desc d;
        lucid_body_desc_default(&d);
        d.parts = &part, d.num_parts = 1;
        int top = k >= 9, i = top ? (k - 9) % 2 : k % 3, j = top ? (k - 9) / 2 : k / 3;
        double c = cos(0.02 * (k % 4)), s = sin(0.02 * (k % 4));
        d.pose.R = lucid_mat3_from_cols(lucid_vec3_make(c, s, 0), lucid_vec3_make(-s, c, 0),
                                        lucid_vec3_make(0, 0, 1));
        d.pose.t = top ? lucid_vec3_make(0.1 * i - 0.05, 0.1 * j - 0.05, 0.1501)
                       : lucid_vec3_make(0.1005 * (i - 1), 0.1005 * (j - 1), 0.05);
        assert_int_equal(lucid_world_add_body(w, &d, &id, NULL), LUCID_OK);
    }
    return w;
}

#endif
