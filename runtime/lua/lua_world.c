/* lucid.world: the rigid-body world from Lua.
 *   w = lucid.world{gravity=, dt=, contact={model=, solver=, tol=, max_iter=, warm_start=,
 *                                          kappa=, polish=} (lua_options.h),
 *                   slop=, correction_speed=, margin=, restitution_threshold=, compliance=,
 *                   warm_start_radius=, density=}
 *   id = w:add_body{shape=, mass=, inertia=, pose=, velocity=, friction=, restitution=,
 *                   torsion=, rolling=}
 *   id = w:add_static{shape=, pose=, friction=, torsion=, rolling=}
 *   w:apply_force(id, f [, tau]); w:step([n]); w:pose(id); w:velocity(id); w:contacts();
 *   w:state(); w:set_state(x); w:energy(); w:stats()
 *   w:controls() -> u; w:set_controls(u): every free body's pending wrench (force, torque), in
 *     id order (lucid_world_get_controls); applied by the next step, then cleared
 *   w:contact_problem([{G = true}]) -> {G=, g=, mu=, R= (with compliance), lambda=,
 *     contacts=, sparse=}: the last step's last island (the whole scene when it is one
 *     island), ready for lucid.contact.solve; lambda holds the world's forces, contacts the
 *     1-based indices into w:contacts(). An island solved in body space also has
 *     sparse = {body=, J=, W=} (per contact side: world body id or 0, its 3 x 6 blocks of J
 *     and M^-1 J^T as rows of 18); its G is built from them up to 2048 contacts ({G = false}:
 *     never; {G = true}: an error above the bound)
 *   rec = w:record{every=, max_frames=, max_bytes=}: frames of the following steps for
 *     lucid.viewer (lua_record.c); one recording at a time per world
 * `shape` is a lucid shape or a list of {shape=, pose=}. Ids are 1-based and shared by
 * bodies and static bodies. The world keeps a reference to every shape it was given (in its
 * uservalue) and a counted C reference to every mesh (lucid_lua_shape_retain, released by
 * its __gc), so meshes outlive it whatever Lua code does to the shapes. Memory discipline: the
 * world userdata exists (with a
 * __gc) before the C world is created, and temporary arrays are userdata, so an error raised
 * at any point leaks nothing. */
#include <lauxlib.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_options.h"
#include "runtime/lua/lua_record.h"
#include "runtime/lua/lua_se3.h"
#include "runtime/lua/lua_shape.h"
#include "runtime/lua/lua_single_level.h"
#include "runtime/lua/lua_world.h"
#include "runtime/lua/modules.h"
#include "runtime/world/world.h"
#include "solvers/collision/contact_patch.h"

#define WORLD_METATABLE "lucid.world"
#define NEW             "lucid.world"

typedef struct world_box {
    lucid_world *w;
    lucid_lua_mesh_ref **meshes; /* the mesh references the world holds (owned) */
    size_t mesh_count, mesh_capacity;
    lucid_lua_record *rec; /* the recording in progress (uservalue 2 keeps it alive) or NULL */
} world_box;

/* Safe to call twice: destroys the world, then drops its references to the meshes. */
static int world_gc(lua_State *L) {
    world_box *box = luaL_testudata(L, 1, WORLD_METATABLE);
    if (!box) return 0;
    if (box->rec) lucid_lua_record_detach(box->rec);
    box->rec = NULL;
    lucid_world_destroy(box->w);
    box->w = NULL;
    for (size_t i = 0; i < box->mesh_count; ++i) lucid_lua_mesh_release(box->meshes[i]);
    free(box->meshes);
    box->meshes = NULL;
    box->mesh_count = box->mesh_capacity = 0;
    return 0;
}

static lucid_world *check_world(lua_State *L, const char *fname) {
    world_box *box = luaL_testudata(L, 1, WORLD_METATABLE);
    if (!box) lucid_lua_fail(L, fname, "expected a lucid.world as self (use w:method())");
    if (!box->w) lucid_lua_fail(L, fname, "the world has been finalized");
    return box->w;
}

lucid_world *lucid_lua_checkworld(lua_State *L, int idx, const char *fname) {
    world_box *box = luaL_testudata(L, idx, WORLD_METATABLE);
    if (!box)
        lucid_lua_fail(L, fname, "expected a lucid.world (got %s)", lucid_lua_typename(L, idx));
    if (!box->w) lucid_lua_fail(L, fname, "the world has been finalized");
    return box->w;
}

static void check_table_arg(lua_State *L, int idx, const char *fname) {
    if (lua_type(L, idx) != LUA_TTABLE)
        lucid_lua_fail(L, fname, "expected a table of options (got %s)",
                       lucid_lua_typename(L, idx));
}

/* ---- lucid.world{...} ------------------------------------------------------------------ */

static void read_world_options(lua_State *L, int idx, lucid_world_options *o) {
    static const char *const nested[] = {"contact", "single_level", NULL};
    const char *keys[32];
    lucid_lua_option_names(lucid_world_option_table, nested, keys, 32);
    lucid_world_default_options(o);
    if (lua_isnoneornil(L, idx)) return;
    check_table_arg(L, idx, NEW);
    lucid_lua_check_option_names(L, idx, keys, NEW);
    lucid_lua_fields f = lucid_lua_fields_at(L, idx, NEW, "");
    lucid_lua_read_option_table(&f, lucid_world_option_table, o);
    if (lucid_lua_field(L, idx, "contact")) {
        if (lua_type(L, -1) != LUA_TTABLE)
            lucid_lua_fail(L, NEW, "contact must be a table of options (got %s)",
                           lucid_lua_typename(L, -1));
        lucid_lua_read_contact_options(L, -1, NEW, "contact.", LUCID_LUA_CONTACT_WORLD_KEYS, NULL,
                                       &o->contact);
        lua_pop(L, 1);
    }
    lucid_lua_read_single_level_options(L, idx, o, NEW);
    const char *why = NULL;
    if (lucid_world_options_check(o, &why) != LUCID_OK) lucid_lua_fail(L, NEW, "%s", why);
}

/* lucid.world.options(): {world = list, single_level = list} of {name, type, range, doc,
 * default} (lucid_lua_push_option_list), the contact options being lucid.contact.options(). */
static int l_world_options(lua_State *L) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    lua_createtable(L, 0, 2);
    lucid_lua_push_option_list(L, lucid_world_option_table, &o);
    lua_setfield(L, -2, "world");
    lucid_lua_push_option_list(L, lucid_single_level_option_table, &o.single_level);
    lua_setfield(L, -2, "single_level");
    return 1;
}

static int l_world(lua_State *L);

/* lucid.world(...) through __call: the table itself is dropped from the arguments. */
static int l_world_call(lua_State *L) {
    lua_remove(L, 1);
    return l_world(L);
}

/* lucid.world: a table callable as the constructor, with its options() description. */
static void push_world_table(lua_State *L) {
    static const luaL_Reg functions[] = {{"options", l_world_options}, {NULL, NULL}};
    static const luaL_Reg metamethods[] = {{"__call", l_world_call}, {NULL, NULL}};
    luaL_newlib(L, functions);
    luaL_newlib(L, metamethods);
    lua_setmetatable(L, -2);
}

static int l_world(lua_State *L) {
    lucid_world_options o;
    read_world_options(L, 1, &o);
    world_box *box = lua_newuserdatauv(L, sizeof *box, 2);
    box->w = NULL;
    box->rec = NULL;
    box->meshes = NULL;
    box->mesh_count = box->mesh_capacity = 0;
    luaL_setmetatable(L, WORLD_METATABLE);
    lua_newtable(L); /* the shapes the world refers to */
    lua_setiuservalue(L, -2, 1);
    lucid_status s = lucid_world_create(&o, &box->w);
    if (s != LUCID_OK) lucid_lua_fail_status(L, NEW, s);
    return 1;
}

/* ---- bodies ---------------------------------------------------------------------------- */

/* Keeps the shape at idx alive (uservalue) and its mesh allocated (a C reference) as long
 * as the world (self at 1). */
static void retain_shape(lua_State *L, int idx, const char *fname) {
    idx = lua_absindex(L, idx);
    world_box *box = lua_touserdata(L, 1);
    if (box->mesh_count == box->mesh_capacity) {
        size_t capacity = box->mesh_capacity ? 2 * box->mesh_capacity : 8;
        void *grown = capacity < ((size_t)-1) / sizeof *box->meshes
                          ? realloc(box->meshes, capacity * sizeof *box->meshes)
                          : NULL;
        if (!grown) lucid_lua_fail_status(L, fname, LUCID_ERR_NO_MEMORY);
        box->meshes = grown;
        box->mesh_capacity = capacity;
    }
    lucid_lua_mesh_ref *ref = lucid_lua_shape_retain(L, idx);
    if (ref) box->meshes[box->mesh_count++] = ref;
    if (lua_getiuservalue(L, 1, 1) == LUA_TTABLE) {
        lua_pushvalue(L, idx);
        lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    }
    lua_pop(L, 1);
}

/* Reads `shape` of the options table at idx: a shape or a list of {shape=, pose=}. The parts
 * live in a userdata left on the stack. Returns the count. */
static int read_parts(lua_State *L, int idx, const char *fname, lucid_body_part **parts,
                      int required) {
    if (!lucid_lua_field(L, idx, "shape")) {
        if (required) lucid_lua_fail(L, fname, "shape is required");
        *parts = lua_newuserdatauv(L, sizeof **parts, 0);
        return 0;
    }
    int list = lua_gettop(L);
    if (luaL_testudata(L, list, LUCID_SHAPE_METATABLE)) {
        const lucid_shape *shape = lucid_lua_checkshape(L, list, fname, "shape");
        *parts = lua_newuserdatauv(L, sizeof **parts, 0);
        (*parts)[0].shape = *shape;
        (*parts)[0].pose = lucid_se3_identity();
        retain_shape(L, list, fname);
        lua_remove(L, list);
        return 1;
    }
    if (lua_type(L, list) != LUA_TTABLE)
        lucid_lua_fail(L, fname,
                       "shape must be a lucid shape or a list of {shape=, pose=} (got %s)",
                       lucid_lua_typename(L, list));
    lua_Integer n = luaL_len(L, list);
    if (n < 1 || n > 1000000) lucid_lua_fail(L, fname, "shape list must not be empty");
    *parts = lua_newuserdatauv(L, sizeof **parts * (size_t)n, 0);
    for (lua_Integer i = 1; i <= n; ++i) {
        if (lua_geti(L, list, i) != LUA_TTABLE)
            lucid_lua_fail(L, fname, "shape[%d] must be a table {shape=, pose=}", (int)i);
        int item = lua_gettop(L);
        lua_getfield(L, item, "shape");
        char what[32];
        snprintf(what, sizeof what, "shape[%d].shape", (int)i);
        (*parts)[i - 1].shape = *lucid_lua_checkshape(L, -1, fname, what);
        retain_shape(L, -1, fname);
        lua_pop(L, 1);
        (*parts)[i - 1].pose = lucid_se3_identity();
        if (lua_getfield(L, item, "pose") != LUA_TNIL) {
            snprintf(what, sizeof what, "shape[%d].pose", (int)i);
            (*parts)[i - 1].pose = *lucid_lua_checkpose(L, -1, fname, what);
        }
        lua_pop(L, 2);
    }
    lua_remove(L, list);
    return (int)n;
}

static lucid_se3 pose_field(lua_State *L, int idx, const char *fname) {
    lucid_se3 T = lucid_se3_identity();
    if (lucid_lua_field(L, idx, "pose")) {
        T = *lucid_lua_checkpose(L, -1, fname, "pose");
        lua_pop(L, 1);
    }
    return T;
}

/* inertia: a 3x3 lucid.mat / table of rows, or 3 diagonal numbers (table or vec); a table whose
 * first entry is not a row (table or lucid.vec) is read as the diagonal, so that a wrong entry
 * is named as such. */
static lucid_mat3 read_inertia(lua_State *L, int idx, const char *fname) {
    lucid_lua_matrix *m = lucid_lua_tomatrix(L, idx);
    int three = (m && m->rows * m->cols == 3 && (m->rows == 1 || m->cols == 1));
    if (!m && lua_type(L, idx) == LUA_TTABLE && luaL_len(L, idx) == 3) {
        int first = lua_geti(L, idx, 1);
        three = first != LUA_TTABLE && first != LUA_TUSERDATA;
        lua_pop(L, 1);
    }
    if (three) return lucid_mat3_diag(lucid_lua_checkvec3(L, idx, fname, "inertia"));
    return lucid_lua_checkmat3(L, idx, fname, "inertia");
}

static int push_id_result(lua_State *L, lucid_status s, const char *why, int id,
                          const char *fname) {
    if (s != LUCID_OK) {
        if (why) return lucid_lua_fail(L, fname, "%s", why);
        return lucid_lua_fail_status(L, fname, s);
    }
    lua_pushinteger(L, (lua_Integer)id + 1);
    return 1;
}

/* PGS's limit: Gauss-Seidel sweeps pass force between a light and a heavy body at a rate
 * that falls with their mass ratio; the measurements that put it at 100 are in
 * docs/world.md. */
#define PGS_MASS_RATIO_LIMIT 100.0

/* A Lua warning (warn "@on" shows it) when the world's solver is PGS and body `id` made its
 * free bodies' masses span more than PGS_MASS_RATIO_LIMIT (once: not again for later bodies). */
static void warn_pgs_mass_ratio(lua_State *L, const lucid_world *w, int id, const char *fname) {
    if (lucid_world_get_options(w)->contact.solver != LUCID_CONTACT_PGS) return;
    double lo = INFINITY, hi = 0.0;
    for (int i = 0; i < lucid_world_body_count(w); ++i) {
        double m = lucid_world_body_mass(w, i);
        if (m > 0.0 && i != id) lo = fmin(lo, m), hi = fmax(hi, m);
    }
    int before = hi > PGS_MASS_RATIO_LIMIT * lo;
    double m = lucid_world_body_mass(w, id);
    lo = fmin(lo, m), hi = fmax(hi, m);
    if (before || !(hi > PGS_MASS_RATIO_LIMIT * lo)) return;
    char msg[256];
    snprintf(msg, sizeof msg,
             "%s: warning: free bodies of mass ratio %.3g with a PGS solver, which does not hold "
             "contacts between bodies of mass ratio above %g (docs/world.md); ncp:admm does",
             fname, hi / lo, PGS_MASS_RATIO_LIMIT);
    lua_warning(L, msg, 0);
}

static int l_add_body(lua_State *L) {
    static const char *const fname = "lucid.world:add_body";
    static const char *const keys[] = {"shape",    "mass",        "inertia", "pose",    "velocity",
                                       "friction", "restitution", "torsion", "rolling", NULL};
    lucid_world *w = check_world(L, fname);
    check_table_arg(L, 2, fname);
    lucid_lua_check_option_names(L, 2, keys, fname);
    lucid_body_desc d;
    lucid_body_desc_default(&d);
    lucid_body_part *parts;
    d.num_parts = read_parts(L, 2, fname, &parts, 0);
    d.parts = parts;
    if (lucid_lua_field(L, 2, "mass")) {
        d.has_mass = 1, d.mass = lucid_lua_checkfinite(L, -1, fname, "mass");
        lua_pop(L, 1);
    }
    if (lucid_lua_field(L, 2, "inertia")) {
        d.has_inertia = 1, d.inertia = read_inertia(L, lua_gettop(L), fname);
        lua_pop(L, 1);
    }
    d.pose = pose_field(L, 2, fname);
    if (lucid_lua_field(L, 2, "velocity")) {
        lucid_lua_checkvalues(L, -1, 6, d.velocity, fname, "velocity");
        lua_pop(L, 1);
    }
    lucid_lua_fields f = lucid_lua_fields_at(L, 2, fname, "");
    d.friction = lucid_lua_number_field(&f, "friction", d.friction);
    d.restitution = lucid_lua_number_field(&f, "restitution", d.restitution);
    d.torsion = lucid_lua_number_field(&f, "torsion", d.torsion);
    d.rolling = lucid_lua_number_field(&f, "rolling", d.rolling);
    const char *why = NULL;
    int id = -1;
    lucid_status s = lucid_world_add_body(w, &d, &id, &why);
    if (s == LUCID_OK) warn_pgs_mass_ratio(L, w, id, fname);
    return push_id_result(L, s, why, id, fname);
}

static int l_add_static(lua_State *L) {
    static const char *const fname = "lucid.world:add_static";
    static const char *const keys[] = {"shape", "pose", "friction", "torsion", "rolling", NULL};
    lucid_world *w = check_world(L, fname);
    check_table_arg(L, 2, fname);
    lucid_lua_check_option_names(L, 2, keys, fname);
    lucid_body_part *parts;
    int n = read_parts(L, 2, fname, &parts, 1);
    lucid_se3 T = pose_field(L, 2, fname);
    lucid_lua_fields f = lucid_lua_fields_at(L, 2, fname, "");
    const double friction[3] = {lucid_lua_number_field(&f, "friction", 0.5),
                                lucid_lua_number_field(&f, "torsion", 0.0),
                                lucid_lua_number_field(&f, "rolling", 0.0)};
    const char *why = NULL;
    int id = -1;
    lucid_status s = lucid_world_add_static_friction(w, parts, n, &T, friction, &id, &why);
    return push_id_result(L, s, why, id, fname);
}

/* A body id (1-based) at idx, returned 0-based. */
static int check_id(lua_State *L, lucid_world *w, int idx, const char *fname) {
    int count = lucid_world_body_count(w);
    if (!lua_isinteger(L, idx))
        lucid_lua_fail(L, fname, "body id must be an integer (got %s)", lucid_lua_typename(L, idx));
    lua_Integer id = lua_tointeger(L, idx);
    if (id < 1 || id > count)
        lucid_lua_fail(L, fname, "unknown body id %I (the world has %d bodies)", id, count);
    return (int)id - 1;
}

/* ---- stepping and forces --------------------------------------------------------------- */

static int l_apply_force(lua_State *L) {
    static const char *const fname = "lucid.world:apply_force";
    lucid_world *w = check_world(L, fname);
    int id = check_id(L, w, 2, fname);
    if (lucid_world_is_static(w, id)) lucid_lua_fail(L, fname, "body %d is static", id + 1);
    if (lucid_world_body_model(w, id, NULL) >= 0)
        lucid_lua_fail(L, fname, "body %d is a link of model %d: drive it with w:set_control",
                       id + 1, lucid_world_body_model(w, id, NULL) + 1);
    lucid_vec3 f = lucid_lua_checkvec3(L, 3, fname, "force");
    lucid_vec3 tau =
        lua_isnoneornil(L, 4) ? lucid_vec3_zero() : lucid_lua_checkvec3(L, 4, fname, "torque");
    lucid_status s = lucid_world_apply_force(w, id, f, tau);
    if (s != LUCID_OK) lucid_lua_fail_status(L, fname, s);
    return 0;
}

static int l_step(lua_State *L) {
    static const char *const fname = "lucid.world:step";
    lucid_world *w = check_world(L, fname);
    world_box *box = lua_touserdata(L, 1);
    lua_Integer n =
        lua_isnoneornil(L, 2) ? 1 : lucid_lua_checkinteger_range(L, 2, 1, 1000000000, fname, "n");
    for (lua_Integer i = 0; i < n; ++i) {
        lucid_status s = lucid_world_step(w);
        if (s == LUCID_ERR_NOT_SPD)
            lucid_lua_fail(L, fname, "the contact problem is not positive semi-definite");
        if (s == LUCID_ERR_NONFINITE) lucid_lua_fail(L, fname, "the state became NaN or Inf");
        if (s != LUCID_OK) lucid_lua_fail(L, fname, "%s", lucid_world_last_error(w));
        if (box->rec) lucid_lua_record_after_step(box->rec, w);
    }
    lua_settop(L, 1);
    return 1;
}

/* ---- queries --------------------------------------------------------------------------- */

static int l_pose(lua_State *L) {
    static const char *const fname = "lucid.world:pose";
    lucid_world *w = check_world(L, fname);
    lucid_se3 T;
    lucid_world_pose(w, check_id(L, w, 2, fname), &T);
    lucid_lua_pushse3(L, &T);
    return 1;
}

static int l_velocity(lua_State *L) {
    static const char *const fname = "lucid.world:velocity";
    lucid_world *w = check_world(L, fname);
    double v[6];
    lucid_world_velocity(w, check_id(L, w, 2, fname), v);
    lucid_lua_pushvalues(L, v, 6);
    return 1;
}

static int l_contacts(lua_State *L) {
    lucid_world *w = check_world(L, "lucid.world:contacts");
    int n = lucid_world_contact_count(w);
    const lucid_world_contact *c = lucid_world_contacts(w);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; ++i) {
        lua_createtable(L, 0, 10);
        lucid_lua_set_integer(L, "body1", c[i].body1 + 1);
        lucid_lua_set_integer(L, "body2", c[i].body2 + 1);
        lucid_lua_set_integer(L, "part1", c[i].part1 + 1);
        lucid_lua_set_integer(L, "part2", c[i].part2 + 1);
        lucid_lua_set_vec3(L, "point", c[i].point);
        lucid_lua_set_vec3(L, "normal", lucid_mat3_col(&c[i].frame, 2));
        lucid_lua_pushmat3(L, &c[i].frame);
        lua_setfield(L, -2, "frame");
        lucid_lua_set_values(L, "lambda", c[i].force, 3);
        lucid_lua_set_vec3(L, "force",
                           lucid_mat3_mul_vec(&c[i].frame, lucid_vec3_load(c[i].force)));
        lucid_lua_set_number(L, "separation", c[i].separation);
        lucid_lua_set_number(L, "friction", c[i].friction);
        if (c[i].torsion > 0.0) { /* condim 4: the torsional coefficient and torque about n */
            lucid_lua_set_number(L, "torsion", c[i].torsion);
            lucid_lua_set_number(L, "torque", c[i].torsion_force);
        }
        if (c[i].rolling > 0.0) { /* condim 6: the rolling coefficient, torques about t1, t2 */
            lucid_lua_set_number(L, "rolling", c[i].rolling);
            lucid_lua_set_values(L, "rolling_torque", c[i].rolling_force, 2);
        }
        lucid_lua_set_number(L, "include_margin", c[i].include_margin);
        int g1 = lucid_world_part_geom(w, c[i].body1, c[i].part1);
        int g2 = lucid_world_part_geom(w, c[i].body2, c[i].part2);
        int on_dof = c[i].limit_sign != 0 || c[i].frictionloss > 0.0;
        if (!on_dof && g1 >= 0) lucid_lua_set_integer(L, "geom1", g1 + 1);
        if (!on_dof && g2 >= 0) lucid_lua_set_integer(L, "geom2", g2 + 1);
        if (c[i].predicted) {
            lucid_lua_set_boolean(L, "predicted", 1);
        }
        if (c[i].on_prism) { /* a height field's piece: 1-based row, column, triangle */
            lua_createtable(L, 0, 4);
            lucid_lua_set_integer(L, "row", c[i].prism_row + 1);
            lucid_lua_set_integer(L, "col", c[i].prism_col + 1);
            lucid_lua_set_integer(L, "tri", c[i].prism_tri + 1);
            lucid_lua_set_boolean(L, "top", c[i].prism_top);
            lua_setfield(L, -2, "prism");
        }
        if (c[i].frictionloss > 0.0) { /* a joint's or tendon's dry-friction row */
            lucid_lua_set_integer(L, "model", c[i].limit_model + 1);
            if (c[i].limit_tendon >= 0)
                lucid_lua_set_integer(L, "tendon", c[i].limit_tendon + 1);
            else
                lucid_lua_set_integer(L, "dof", c[i].limit_dof + 1);
            lucid_lua_set_number(L, "frictionloss", c[i].frictionloss);
        }
        if (c[i].limit_sign != 0) { /* a joint or tendon limit of a model */
            lucid_lua_set_integer(L, "model", c[i].limit_model + 1);
            if (c[i].limit_tendon >= 0)
                lucid_lua_set_integer(L, "tendon", c[i].limit_tendon + 1);
            else
                lucid_lua_set_integer(L, "dof", c[i].limit_dof + 1);
            lucid_lua_set_string(L, "limit", c[i].limit_sign > 0 ? "lower" : "upper");
        }
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* 2n x 3 w_max: row s holds side s's row-major 3 x w block (w its slot's width: 6 for a free
 * body, so 2n x 18 for islands of free bodies; nv for a robot), zeros after it and for a side
 * on nothing. */
static void push_blocks(lua_State *L, const lucid_contact_sparse_problem *p, const double *B) {
    size_t wide = 0, rows = 2 * (size_t)p->n;
    for (int b = 0; b < p->num_bodies; ++b)
        if (lucid_sparse_width(p, b) > wide) wide = lucid_sparse_width(p, b);
    lucid_lua_matrix *m = lucid_lua_newmatrix(L, (int)rows, (int)(3 * (wide > 6 ? wide : 6)));
    for (size_t s = 0; s < rows; ++s) {
        if (p->body[s] < 0) continue;
        size_t n = 3 * lucid_sparse_width(p, p->body[s]);
        const double *Bs = B + lucid_sparse_side_at(p, (int)s);
        for (size_t k = 0; k < n; ++k) m->data[s + rows * k] = Bs[k];
    }
}

/* The largest body-space island whose G contact_problem builds (9 n^2 doubles: 302 MB at
 * the bound, the dense path's own limit); by default it is built up to this size. */
#define LUA_WORLD_DENSE_G_MAX 2048

static int l_contact_problem(lua_State *L) {
    static const char *const fname = "lucid.world:contact_problem";
    lucid_world *w = check_world(L, fname);
    int want_G = -1; /* -1: when the island is small enough */
    if (!lua_isnoneornil(L, 2)) {
        if (!lua_istable(L, 2)) lucid_lua_fail(L, fname, "options must be a table");
        if (lua_getfield(L, 2, "G") != LUA_TNIL) want_G = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    lucid_contact_problem p;
    lucid_contact_sparse_problem sp;
    const int *list = NULL, *sparse_list = NULL, *side_body = NULL;
    lucid_world_last_problem(w, &p, &list);
    lucid_world_last_sparse_problem(w, &sp, &side_body, &sparse_list);
    int sparse = sp.n > 0;
    if (sparse) {
        if (want_G == 1 && sp.n > LUA_WORLD_DENSE_G_MAX)
            lucid_lua_fail(L, fname, "an island of %d contacts is too large for G (at most %d)",
                           sp.n, LUA_WORLD_DENSE_G_MAX);
        if (want_G < 0) want_G = sp.n <= LUA_WORLD_DENSE_G_MAX;
        p = (lucid_contact_problem){sp.n, NULL, sp.g, sp.mu, sp.R, lucid_sparse_dim(&sp)};
        list = sparse_list;
    }
    if (lucid_contact_dim(&p) > 3)
        lucid_lua_fail(L, fname,
                       "the last island has %s, which this view of 3 rows per contact does not "
                       "show",
                       lucid_contact_dim(&p) == 4
                           ? "torsional friction (condim 4, 4 rows per contact)"
                           : "rolling friction (condim 6, 6 rows per contact)");
    const lucid_world_contact *c = lucid_world_contacts(w);
    int n3 = 3 * p.n;
    lua_createtable(L, 0, 8);
    if (!sparse || want_G) {
        lucid_lua_matrix *G = lucid_lua_newmatrix(L, n3, n3);
        if (sparse)
            lucid_contact_sparse_delassus(&sp, G->data); /* R is its own field */
        else if (n3 > 0)
            memcpy(G->data, p.G, sizeof(double) * (size_t)n3 * (size_t)n3);
        lua_setfield(L, -2, "G");
    }
    lucid_lua_set_values(L, "g", p.g, n3);
    lucid_lua_set_values(L, "mu", p.mu, p.n);
    if (p.R) {
        lucid_lua_set_values(L, "R", p.R, n3);
    }
    lucid_lua_matrix *lambda = lucid_lua_newvector(L, n3);
    lua_setfield(L, -2, "lambda");
    lua_createtable(L, p.n, 0);
    for (int i = 0; i < p.n; ++i) {
        memcpy(lambda->data + 3 * i, c[list[i]].force, sizeof c[list[i]].force);
        lua_pushinteger(L, list[i] + 1);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "contacts");
    if (sparse) { /* {body = 2n world ids (0: static), J, W = 2n x 3 w_max, slot, width} */
        lua_createtable(L, 0, 5);
        lua_createtable(L, 2 * sp.n, 0);
        for (int s = 0; s < 2 * sp.n; ++s) {
            lua_pushinteger(L, side_body[s] + 1);
            lua_rawseti(L, -2, s + 1);
        }
        lua_setfield(L, -2, "body");
        push_blocks(L, &sp, sp.J);
        lua_setfield(L, -2, "J");
        push_blocks(L, &sp, sp.W);
        lua_setfield(L, -2, "W");
        lua_createtable(L, 2 * sp.n, 0); /* each side's slot, 1-based (0: none) */
        for (int s = 0; s < 2 * sp.n; ++s) {
            lua_pushinteger(L, sp.body[s] + 1);
            lua_rawseti(L, -2, s + 1);
        }
        lua_setfield(L, -2, "slot");
        lua_createtable(L, sp.num_bodies, 0); /* each slot's columns */
        for (int b = 0; b < sp.num_bodies; ++b) {
            lua_pushinteger(L, (lua_Integer)lucid_sparse_width(&sp, b));
            lua_rawseti(L, -2, b + 1);
        }
        lua_setfield(L, -2, "width");
        lua_setfield(L, -2, "sparse");
    }
    return 1;
}

static int l_state(lua_State *L) {
    lucid_world *w = check_world(L, "lucid.world:state");
    int n = lucid_world_state_size(w);
    lucid_lua_matrix *x = lucid_lua_newvector(L, n);
    lucid_world_get_state(w, x->data);
    return 1;
}

static int l_set_state(lua_State *L) {
    static const char *const fname = "lucid.world:set_state";
    lucid_world *w = check_world(L, fname);
    lua_settop(L, 2); /* the buffer below must not take the place of a missing argument */
    int n = lucid_world_state_size(w);
    const double *x = lucid_lua_readvalues(L, 2, (size_t)n, fname, "state");
    const char *why = NULL;
    lucid_status s = lucid_world_set_state(w, x, &why);
    if (s != LUCID_OK) lucid_lua_fail(L, fname, "%s", why ? why : lucid_status_string(s));
    return 0;
}

static int l_controls(lua_State *L) {
    lucid_world *w = check_world(L, "lucid.world:controls");
    lucid_lua_matrix *u = lucid_lua_newvector(L, lucid_world_controls_size(w));
    lucid_world_get_controls(w, u->data);
    return 1;
}

static int l_set_controls(lua_State *L) {
    static const char *const fname = "lucid.world:set_controls";
    lucid_world *w = check_world(L, fname);
    lua_settop(L, 2); /* the buffer below must not take the place of a missing argument */
    int n = lucid_world_controls_size(w);
    const double *u = lucid_lua_readvalues(L, 2, (size_t)n, fname, "controls");
    lucid_world_set_controls(w, u); /* finite: checked above */
    return 0;
}

static int l_energy(lua_State *L) {
    lucid_world *w = check_world(L, "lucid.world:energy");
    lucid_world_energy e = lucid_world_energy_of(w);
    lua_createtable(L, 0, 3);
    lucid_lua_set_number(L, "kinetic", e.kinetic);
    lucid_lua_set_number(L, "potential", e.potential);
    lucid_lua_set_number(L, "total", e.kinetic + e.potential);
    return 1;
}

static int l_stats(lua_State *L) {
    lucid_world *w = check_world(L, "lucid.world:stats");
    lucid_world_stats st = lucid_world_last_stats(w);
    lua_createtable(L, 0, 10);
    lucid_lua_set_integer(L, "candidate_pairs", st.candidate_pairs);
    lucid_lua_set_integer(L, "narrow_tests", st.narrow_tests);
    lucid_lua_set_integer(L, "contacts", st.contacts);
    lucid_lua_set_integer(L, "islands", st.islands);
    lucid_lua_set_integer(L, "iterations", st.solver_iterations);
    lucid_lua_set_boolean(L, "converged", st.converged);
    lucid_lua_set_number(L, "residual", st.residual);
    lucid_lua_set_number(L, "scaled_residual", st.scaled_residual);
    lucid_lua_set_boolean(L, "energy_jump", st.energy_jump);
    lucid_lua_set_number(L, "energy_ratio", st.energy_ratio);
    return 1;
}

/* w:islands(): the last step's islands, each {contacts, dim, backend, solver, answer, attempts,
 * iterations, converged, residual} (lucid_world_islands). */
static int l_islands(lua_State *L) {
    static const char *const answers[] = {"zero", "warm", "cold", "pgs", "ip", "newton"};
    lucid_world *w = check_world(L, "lucid.world:islands");
    int n;
    const lucid_world_island_info *info = lucid_world_islands(w, &n);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; ++i) {
        const lucid_world_island_info *is = &info[i];
        lua_createtable(L, 0, 9);
        lucid_lua_set_integer(L, "contacts", is->contacts);
        lucid_lua_set_integer(L, "dim", is->dim);
        lucid_lua_set_string(L, "backend", is->body_space ? "body" : "dense");
        lucid_lua_set_string(L, "solver", lucid_contact_solver_name(is->solver));
        lucid_lua_set_string(L, "answer", answers[is->answer]);
        lua_newtable(L); /* the attempts made, as a set listed in this order */
        int k = 0;
        for (int a = LUCID_ISLAND_WARM; a <= LUCID_ISLAND_NEWTON; ++a) {
            if (!(is->attempts & (1u << a))) continue;
            lua_pushstring(L, answers[a]);
            lua_rawseti(L, -2, ++k);
        }
        lua_setfield(L, -2, "attempts");
        lucid_lua_set_integer(L, "iterations", is->iterations);
        lucid_lua_set_boolean(L, "converged", is->converged);
        lucid_lua_set_number(L, "residual", is->residual);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* ---- recording ------------------------------------------------------------------------- */

static int l_record(lua_State *L) {
    static const char *const fname = "lucid.world:record";
    lucid_world *w = check_world(L, fname);
    world_box *box = lua_touserdata(L, 1);
    if (box->rec)
        lucid_lua_fail(L, fname, "the world is already being recorded (call rec:stop() first)");
    lua_settop(L, 2);
    lucid_lua_record_new(L, 2, w, &box->rec, fname);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, 1, 2); /* the world keeps its recording alive while it records */
    return 1;
}

static int l_tostring(lua_State *L) {
    world_box *box = luaL_testudata(L, 1, WORLD_METATABLE);
    if (!box)
        lucid_lua_fail(L, "lucid.world:__tostring", "self must be a lucid.world (got %s)",
                       lucid_lua_typename(L, 1));
    if (!box->w) {
        lua_pushliteral(L, "lucid.world (finalized)");
    } else {
        lua_pushfstring(L, "lucid.world (%d bodies, dt %f)", lucid_world_body_count(box->w),
                        lucid_world_get_options(box->w)->dt);
    }
    return 1;
}

void lucid_open_world(lua_State *L) {
    static const luaL_Reg methods[] = {{"add_body", l_add_body},
                                       {"add_static", l_add_static},
                                       {"apply_force", l_apply_force},
                                       {"step", l_step},
                                       {"pose", l_pose},
                                       {"velocity", l_velocity},
                                       {"contacts", l_contacts},
                                       {"state", l_state},
                                       {"set_state", l_set_state},
                                       {"controls", l_controls},
                                       {"set_controls", l_set_controls},
                                       {"energy", l_energy},
                                       {"stats", l_stats},
                                       {"islands", l_islands},
                                       {"contact_problem", l_contact_problem},
                                       {"record", l_record},
                                       {NULL, NULL}};
    static const luaL_Reg metamethods[] = {
        {"__gc", world_gc}, {"__tostring", l_tostring}, {NULL, NULL}};
    lucid_lua_push_metatable(L, WORLD_METATABLE, metamethods, methods);
    lua_getfield(L, -1, "__index");
    lucid_lua_world_model_methods(L);
    lucid_lua_world_state_methods(L);
    lucid_lua_world_derivative_methods(L);
    lua_pop(L, 2);
    push_world_table(L);
    lua_setfield(L, -2, "world");
    lucid_open_record(L);
}
