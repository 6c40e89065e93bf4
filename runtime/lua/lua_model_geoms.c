/* m:geoms() (docs/grasp.md, "Models"): the model's collision geometry as Lua
 * shapes, for tasks that reason about a robot's links (grasp synthesis: link penetration).
 * Each entry: {body = name or nil (static), name = geom name or nil, shape = lucid.shape (a
 * copy), pose = se3 in the body's frame (static geoms: in the model's world frame), contype,
 * conaffinity, and MuJoCo's contact parameters friction (sliding), torsion (m, MJCF
 * friction[1]), rolling (m, friction[2]), condim, priority, margin,
 * gap (docs/model_files.md)}, and for a mesh decomposed by the loader (meshes = "decompose")
 * parts = {convex shapes}, in the geom's frame (shape is then the mesh's hull). A link's geom in
 * the world: m:frame_pose(q, body) * pose.
 * m:pairs(): the explicit geom pairs (MJCF <contact><pair>, docs/model_files.md), each {name
 * or nil, geom1, geom2 (indices into m:geoms()), condim, friction, torsion, rolling, margin,
 * gap}; m.collision says whether they collide. */
#include <lauxlib.h>
#include <limits.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_model.h"
#include "runtime/lua/lua_se3.h"
#include "runtime/lua/lua_shape.h"

int lucid_lua_model_geoms(lua_State *L) {
    const char *F = "lucid.model:geoms";
    lucid_model *m = lucid_lua_checkmodel(L, 1, F, "self", NULL);
    size_t n = lucid_model_ngeoms(m);
    const lucid_model_geom *geoms = lucid_model_geoms(m);
    lua_createtable(L, n > (size_t)INT_MAX ? 0 : (int)n, 0);
    for (size_t i = 0; i < n; ++i) {
        const lucid_model_geom *g = &geoms[i];
        lua_createtable(L, 0, 13);
        lucid_se3 pose = g->pose;
        if (g->body >= 0) {
            lucid_se3 placement = lucid_model_body_placement(m, (size_t)g->body);
            lucid_se3 inverse = lucid_se3_inverse(&placement);
            pose = lucid_se3_compose(&inverse, &g->pose);
            lucid_lua_set_string(L, "body", lucid_model_body_name(m, (size_t)g->body));
        }
        if (g->name != NULL) {
            lucid_lua_set_string(L, "name", g->name);
        }
        lucid_lua_push_shape_copy(L, &g->shape, F);
        lua_setfield(L, -2, "shape");
        lucid_lua_pushse3(L, &pose);
        lua_setfield(L, -2, "pose");
        lucid_lua_set_integer(L, "contype", (lua_Integer)g->contype);
        lucid_lua_set_integer(L, "conaffinity", (lua_Integer)g->conaffinity);
        lucid_lua_set_number(L, "friction", g->friction);
        lucid_lua_set_number(L, "torsion", g->torsion);
        lucid_lua_set_number(L, "rolling", g->rolling);
        lucid_lua_set_integer(L, "condim", g->condim);
        lucid_lua_set_integer(L, "priority", g->priority);
        lucid_lua_set_number(L, "margin", g->margin);
        lucid_lua_set_number(L, "gap", g->gap);
        if (g->nparts > 0) {
            lua_createtable(L, g->nparts > (size_t)INT_MAX ? 0 : (int)g->nparts, 0);
            for (size_t k = 0; k < g->nparts; ++k) {
                lucid_lua_push_shape_copy(L, &g->parts[k], F);
                lua_rawseti(L, -2, (lua_Integer)k + 1);
            }
            lua_setfield(L, -2, "parts");
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

int lucid_lua_model_pairs(lua_State *L) {
    lucid_model *m = lucid_lua_checkmodel(L, 1, "lucid.model:pairs", "self", NULL);
    size_t n = lucid_model_npairs(m);
    const lucid_model_pair *pairs = lucid_model_pairs(m);
    lua_createtable(L, n > (size_t)INT_MAX ? 0 : (int)n, 0);
    for (size_t i = 0; i < n; ++i) {
        const lucid_model_pair *p = &pairs[i];
        lua_createtable(L, 0, 9);
        if (p->name != NULL) {
            lucid_lua_set_string(L, "name", p->name);
        }
        lucid_lua_set_integer(L, "geom1", (lua_Integer)p->geom1 + 1);
        lucid_lua_set_integer(L, "geom2", (lua_Integer)p->geom2 + 1);
        lucid_lua_set_integer(L, "condim", p->condim);
        const double v[5] = {p->friction, p->torsion, p->rolling, p->margin, p->gap};
        static const char *const keys[5] = {"friction", "torsion", "rolling", "margin", "gap"};
        for (int k = 0; k < 5; ++k) {
            lua_pushnumber(L, v[k]);
            lua_setfield(L, -2, keys[k]);
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}
