/* Lua binding of contact patches: lucid.contact_patch(s1, T1, s2, T2 [, opts]) (docs/collision.md;
 * see solvers/collision/contact_patch.h). Runs lucid.distance
 * with default options, then clips the supporting features. */
#include <lauxlib.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_se3.h"
#include "runtime/lua/lua_shape.h"
#include "runtime/lua/lua_options.h"
#include "runtime/lua/modules.h"
#include "solvers/collision/contact_patch.h"

static void push_point(lua_State *L, const lucid_contact_point *p) {
    lua_createtable(L, 0, 3);
    lucid_lua_set_vec3(L, "p1", p->p1);
    lucid_lua_set_vec3(L, "p2", p->p2);
    lucid_lua_set_number(L, "separation", p->separation);
}

static int l_contact_patch(lua_State *L) {
    const char *fname = "lucid.contact_patch";
    const lucid_shape *s1 = lucid_lua_checkconvex(L, 1, fname, "shape 1");
    const lucid_se3 *T1 = lucid_lua_checkpose(L, 2, fname, "pose 1");
    const lucid_shape *s2 = lucid_lua_checkconvex(L, 3, fname, "shape 2");
    const lucid_se3 *T2 = lucid_lua_checkpose(L, 4, fname, "pose 2");
    lucid_patch_options opt;
    lucid_patch_options_default(&opt);
    lucid_lua_read_options(L, 5, fname, "options", lucid_patch_option_table, NULL, &opt);
    if (s1->kind == LUCID_SHAPE_HALFSPACE && s2->kind == LUCID_SHAPE_HALFSPACE)
        return lucid_lua_fail(L, fname, "both shapes are halfspaces");

    lucid_distance_result dist;
    lucid_status st = lucid_distance(s1, T1, s2, T2, NULL, &dist);
    if (st != LUCID_OK) return lucid_lua_fail_status(L, fname, st);
    lucid_contact_patch_result patch;
    st = lucid_contact_patch(s1, T1, s2, T2, &dist, &opt, &patch);
    if (st != LUCID_OK) return lucid_lua_fail_status(L, fname, st);

    lua_createtable(L, 0, 2);
    lucid_lua_set_vec3(L, "normal", patch.normal);
    lua_createtable(L, patch.count, 0);
    for (int i = 0; i < patch.count; ++i) {
        push_point(L, &patch.points[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "points");
    return 1;
}

void lucid_open_patch(lua_State *L) {
    lua_pushcfunction(L, l_contact_patch);
    lua_setfield(L, -2, "contact_patch");
}
