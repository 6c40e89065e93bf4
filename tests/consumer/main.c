/* Uses the public C API through the umbrella header alone (math, shapes, collision, world,
 * batch rollouts) and the embedded Lua host of an installed lucid. */
#include <lucid.h>
#include <math.h>
#include <stdio.h>

static int c_api(void) {
    lucid_se3 T = lucid_se3_identity();
    lucid_vec3 p = lucid_se3_act(&T, lucid_vec3_make(1.0, 2.0, 3.0));
    if (p.x != 1.0 || p.y != 2.0 || p.z != 3.0) return 0;

    /* a sphere falling for 10 steps, as one rollout of a batch of 2 on 2 threads */
    lucid_world *w = NULL;
    if (lucid_world_create(NULL, &w) != LUCID_OK) return 0;
    lucid_body_part part = {.pose = lucid_se3_identity()};
    lucid_body_desc d;
    lucid_body_desc_default(&d);
    d.parts = &part, d.num_parts = 1;
    d.pose.t = lucid_vec3_make(0, 0, 1);
    int id, ok = lucid_shape_sphere(0.1, &part.shape) == LUCID_OK &&
                 lucid_world_add_body(w, &d, &id, NULL) == LUCID_OK;
    double x0[26], out[26];
    if (ok && lucid_world_state_size(w) == 13) { /* pose (7) then body twist (6) */
        lucid_world_get_state(w, x0);
        lucid_world_get_state(w, x0 + 13);
        lucid_batch_problem pb = {2, 10, x0, NULL, 0, out, NULL, NULL};
        ok = lucid_world_batch_rollout(w, 2, &pb, NULL, NULL, 0) == LUCID_OK &&
             fabs(out[2] - (1.0 - 55 * 1e-6 * 9.81)) < 1e-12 && out[15] == out[2];
    } else {
        ok = 0;
    }
    lucid_world_destroy(w);
    return ok;
}

int main(void) {
    if (!c_api()) {
        fprintf(stderr, "consumer: C API check failed\n");
        return 1;
    }
    lua_State *L = lucid_host_new();
    if (!L) return 1;
    int ok =
        luaL_dostring(L, "local lucid = require 'lucid'; assert(lucid.version);"
                         "assert(lucid.distance(lucid.sphere(1), lucid.se3.identity(),"
                         " lucid.sphere(1), lucid.se3.new({1,0,0,0}, {3,0,0})).distance == 1)") ==
        LUA_OK;
    if (!ok) fprintf(stderr, "%s\n", lua_tostring(L, -1));
    lua_close(L);
    printf("consumer: %s\n", lucid_status_string(LUCID_OK));
    return ok ? 0 : 1;
}
