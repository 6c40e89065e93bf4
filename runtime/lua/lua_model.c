/* lucid.model and lucid.dynamics: articulated models from Lua (docs/model.md).
 *   m = lucid.model.build{name=, gravity=, timestep=, bodies={...}, shapes={...}, frames={...},
 *                         actuators={...}, exclude={...}}
 *   m.nq, m.nv, m.nu, m.nbodies, m.njoints, m.nframes, m.gravity, m.timestep, m.name,
 *   m.nkeyframes, m.nmocap
 *   m:names(kind), m:joints(), m:mass(), m:limits(), m:neutral(), m:keyframe(key),
 *   m:actuators(), m:tendons(), m:geoms(),
 *   m:random_configuration(rng),
 *   m:integrate(q, v [, dt]), m:difference(q0, q1), m:normalize(q), m:frame_pose(q, name),
 *   m:frame_jacobian(q, name [, ref])
 *   lucid.dynamics.rnea(m, q, v, a), .aba(m, q, v, tau), .crba(m, q), .nle(m, q, v),
 *   .energy(m, q, v) -> kinetic, potential, .com(m, q),
 *   .rnea_derivatives(m, q, v, a) -> dtau_dq, dtau_dv,
 *   .aba_derivatives(m, q, v, tau) -> da_dq, da_dv, da_dtau,
 *   .regressor, .inertial_parameters, .base_parameters (lua_regressor.c)
 * lucid_open_model creates the lucid.model table; modules opened after it (the loaders) add
 * their functions to it. Memory discipline: the spec being built and every scratch array are
 * userdata with finalisers, so an error raised anywhere leaks nothing. */
#include "runtime/lua/lua_model.h"

#include <lauxlib.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_options.h"
#include "runtime/lua/lua_rng.h"
#include "runtime/lua/lua_se3.h"
#include "runtime/lua/lua_shape.h"
#include "runtime/lua/modules.h"
#include "runtime/math/finite.h"
#include "runtime/model/dynamics.h"
#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/heightfield.h"

#define SPEC_METATABLE "lucid.model_spec"
#define BUILD          "lucid.model.build"

typedef struct model_box {
    lucid_model *m;
    lucid_model_data *d;
} model_box;

typedef struct spec_box {
    lucid_model_spec *s;
} spec_box;

/* ---- the userdata ------------------------------------------------------------------------ */

static int model_gc(lua_State *L) {
    model_box *box = luaL_testudata(L, 1, LUCID_MODEL_METATABLE);
    if (!box) return 0;
    lucid_model_data_destroy(box->d);
    lucid_model_destroy(box->m);
    box->d = NULL;
    box->m = NULL;
    return 0;
}

static int spec_gc(lua_State *L) {
    spec_box *box = luaL_testudata(L, 1, SPEC_METATABLE);
    if (!box) return 0;
    lucid_model_spec_destroy(box->s);
    box->s = NULL;
    return 0;
}

void lucid_lua_push_model(lua_State *L, lucid_model *m, const char *fname) {
    model_box *box = lua_newuserdatauv(L, sizeof *box, 0);
    box->m = NULL;
    box->d = NULL;
    luaL_setmetatable(L, LUCID_MODEL_METATABLE);
    box->m = m; /* owned from here on: the finaliser destroys it */
    lucid_status st = lucid_model_data_create(m, &box->d);
    if (st != LUCID_OK) lucid_lua_fail_status(L, fname, st);
}

lucid_model *lucid_lua_checkmodel(lua_State *L, int idx, const char *fname, const char *what,
                                  lucid_model_data **data) {
    model_box *box = luaL_testudata(L, idx, LUCID_MODEL_METATABLE);
    if (!box)
        lucid_lua_fail(L, fname, "%s must be a lucid.model (got %s)", what,
                       lucid_lua_typename(L, idx));
    if (!box->m || !box->d) lucid_lua_fail(L, fname, "%s is a finalized model", what);
    if (data) *data = box->d;
    return box->m;
}

static lucid_model *check_self(lua_State *L, const char *fname, lucid_model_data **data) {
    return lucid_lua_checkmodel(L, 1, fname, "self", data);
}

/* ---- argument helpers ---------------------------------------------------------------------- */

/* A limit field: a finite number, or math.huge for none. */
static double limit_field(lua_State *L, int idx, const char *key, const char *what) {
    if (!lucid_lua_field(L, idx, key)) return INFINITY;
    if (lua_type(L, -1) != LUA_TNUMBER || isnan(lua_tonumber(L, -1)) || !(lua_tonumber(L, -1) > 0))
        lucid_lua_fail(L, BUILD, "%s.%s must be a number > 0 (math.huge for none)", what, key);
    double x = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return x;
}

static void check_table(lua_State *L, int idx, const char *fname, const char *what) {
    if (lua_type(L, idx) != LUA_TTABLE)
        lucid_lua_fail(L, fname, "%s must be a table (got %s)", what, lucid_lua_typename(L, idx));
}

/* The length of the list at idx (a table whose keys are 1..n). */
static lua_Integer list_length(lua_State *L, int idx, const char *what) {
    check_table(L, idx, BUILD, what);
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx), count = 0;
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n)
            lucid_lua_fail(L, BUILD, "%s must be a list (it has the key %s)", what,
                           luaL_tolstring(L, -1, NULL));
        count++;
    }
    if (count != n) lucid_lua_fail(L, BUILD, "%s must be a list without holes", what);
    return n;
}

/* Unknown keys of the table at idx are errors, named "WHAT.key". */
static void check_keys(lua_State *L, int idx, const char *const *keys, const char *what) {
    char prefix[200];
    if (snprintf(prefix, sizeof prefix, "%s.", what) < 0) prefix[0] = '\0';
    lucid_lua_check_option_names_prefixed(L, idx, keys, BUILD, prefix);
}

static void check_range(lua_State *L, int idx, const char *what, double *lo, double *hi) {
    double r[2];
    char name[128];
    if (snprintf(name, sizeof name, "%s", what) < 0) name[0] = '\0';
    lucid_lua_checkvalues(L, idx, 2, r, BUILD, name);
    if (r[0] > r[1]) lucid_lua_fail(L, BUILD, "%s: lower %f is above upper %f", what, r[0], r[1]);
    *lo = r[0];
    *hi = r[1];
}

static void fail_spec(lua_State *L, lucid_status st, const char *what) {
    lucid_lua_fail(L, BUILD, "%s: %s", what, lucid_status_string(st));
}

/* ---- lucid.model.build ------------------------------------------------------------------- */

static int parse_joint_kind(const char *s, lucid_joint_kind *k) {
    static const struct {
        const char *name;
        lucid_joint_kind kind;
    } kinds[] = {{"fixed", LUCID_JOINT_FIXED},         {"revolute", LUCID_JOINT_REVOLUTE},
                 {"continuous", LUCID_JOINT_REVOLUTE}, {"hinge", LUCID_JOINT_REVOLUTE},
                 {"prismatic", LUCID_JOINT_PRISMATIC}, {"slide", LUCID_JOINT_PRISMATIC},
                 {"spherical", LUCID_JOINT_SPHERICAL}, {"ball", LUCID_JOINT_SPHERICAL},
                 {"free", LUCID_JOINT_FREE},           {"floating", LUCID_JOINT_FREE},
                 {"planar", LUCID_JOINT_PLANAR}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i)
        if (strcmp(s, kinds[i].name) == 0) {
            *k = kinds[i].kind;
            return 1;
        }
    return 0;
}

static void read_joint(lua_State *L, int idx, lucid_model_spec *s, int body, const char *what) {
    static const char *const keys[] = {
        "name",           "kind",         "axis",         "anchor",    "ref",
        "range",          "damping",      "armature",     "stiffness", "springref",
        "velocity_limit", "effort_limit", "frictionloss", NULL};
    check_table(L, idx, BUILD, what);
    check_keys(L, idx, keys, what);
    lucid_lua_fields in = lucid_lua_fields_of(L, idx, BUILD, what);
    const char *kind_name = lucid_lua_string_field(&in, "kind", 1);
    lucid_joint_kind kind = LUCID_JOINT_FIXED;
    if (!parse_joint_kind(kind_name, &kind))
        lucid_lua_fail(L, BUILD,
                       "%s.kind: unknown joint kind '%s' (expected fixed, revolute, prismatic, "
                       "spherical, free or planar)",
                       what, kind_name);
    lucid_joint_spec j = lucid_joint_spec_default(kind);
    j.name = lucid_lua_string_field(&in, "name", 0);
    char name[160];
    if (lucid_lua_field(L, idx, "axis")) {
        if (snprintf(name, sizeof name, "%s.axis", what) < 0) name[0] = '\0';
        j.axis = lucid_lua_checkvec3(L, -1, BUILD, name);
        lua_pop(L, 1);
    }
    if (lucid_lua_field(L, idx, "anchor")) {
        if (snprintf(name, sizeof name, "%s.anchor", what) < 0) name[0] = '\0';
        j.anchor = lucid_lua_checkvec3(L, -1, BUILD, name);
        lua_pop(L, 1);
    }
    j.ref = lucid_lua_number_field(&in, "ref", 0.0);
    if (lucid_lua_field(L, idx, "range")) {
        if (snprintf(name, sizeof name, "%s.range", what) < 0) name[0] = '\0';
        check_range(L, lua_gettop(L), name, &j.lower, &j.upper);
        j.limited = 1;
        lua_pop(L, 1);
    }
    j.damping = lucid_lua_number_field(&in, "damping", 0.0);
    j.armature = lucid_lua_number_field(&in, "armature", 0.0);
    j.stiffness = lucid_lua_number_field(&in, "stiffness", 0.0);
    j.springref = lucid_lua_number_field(&in, "springref", 0.0);
    j.frictionloss = lucid_lua_number_field(&in, "frictionloss", 0.0);
    j.velocity_limit = limit_field(L, idx, "velocity_limit", what);
    j.effort_limit = limit_field(L, idx, "effort_limit", what);
    lucid_status st = lucid_model_spec_add_joint(s, body, &j, NULL);
    if (st != LUCID_OK) fail_spec(L, st, what);
}

/* A copy of the mesh of a convex shape (the spec owns its meshes; the Lua shape keeps its). */
static lucid_convex_mesh *copy_mesh(lua_State *L, const lucid_convex_mesh *mesh, const char *what) {
    lucid_convex_mesh *c = NULL;
    lucid_status st =
        lucid_convex_mesh_create((const double *)mesh->vertices, mesh->num_vertices, &c);
    if (st != LUCID_OK) fail_spec(L, st, what);
    return c;
}

static void read_geom(lua_State *L, int idx, lucid_model_spec *s, int body, const char *what) {
    static const char *const keys[] = {"shape",       "pose", "friction", "contype",
                                       "conaffinity", "name", NULL};
    check_table(L, idx, BUILD, what);
    check_keys(L, idx, keys, what);
    lucid_lua_fields in = lucid_lua_fields_of(L, idx, BUILD, what);
    char name[160];
    lucid_geom_spec g = lucid_geom_spec_default();
    g.body = body;
    g.name = lucid_lua_string_field(&in, "name", 0);
    if (!lucid_lua_field(L, idx, "shape")) lucid_lua_fail(L, BUILD, "%s.shape is required", what);
    if (snprintf(name, sizeof name, "%s.shape", what) < 0) name[0] = '\0';
    g.shape = *lucid_lua_checkshape(L, -1, BUILD, name);
    lua_pop(L, 1); /* the shape stays alive in the table */
    if (lucid_lua_field(L, idx, "pose")) {
        if (snprintf(name, sizeof name, "%s.pose", what) < 0) name[0] = '\0';
        g.pose = *lucid_lua_checkpose(L, -1, BUILD, name);
        lua_pop(L, 1);
    }
    g.friction = lucid_lua_number_field(&in, "friction", g.friction);
    if (lucid_lua_field(L, idx, "contype")) {
        if (snprintf(name, sizeof name, "%s.contype", what) < 0) name[0] = '\0';
        g.contype = (unsigned)lucid_lua_checkinteger_range(L, -1, 0, UINT32_MAX, BUILD, name);
        lua_pop(L, 1);
    }
    if (lucid_lua_field(L, idx, "conaffinity")) {
        if (snprintf(name, sizeof name, "%s.conaffinity", what) < 0) name[0] = '\0';
        g.conaffinity = (unsigned)lucid_lua_checkinteger_range(L, -1, 0, UINT32_MAX, BUILD, name);
        lua_pop(L, 1);
    }
    if (g.shape.kind == LUCID_SHAPE_HEIGHTFIELD) { /* the spec owns a copy (static only) */
        lucid_heightfield *h = NULL;
        lucid_status st = lucid_heightfield_copy(g.shape.u.hfield, &h);
        if (st == LUCID_OK) st = lucid_model_spec_add_heightfield(s, h); /* takes h */
        if (st != LUCID_OK) fail_spec(L, st, what);
        g.shape.u.hfield = h;
    }
    lucid_convex_mesh *mesh =
        g.shape.kind == LUCID_SHAPE_CONVEX ? copy_mesh(L, g.shape.u.mesh, what) : NULL;
    lucid_status st = lucid_model_spec_add_geom(s, &g, mesh, NULL); /* takes the mesh */
    if (st != LUCID_OK) fail_spec(L, st, what);
}

/* The index of the body named by the string at idx ("world" or nil: LUCID_MODEL_WORLD). */
static int body_ref(lua_State *L, int idx, const lucid_model_spec *s, const char *what) {
    if (lua_isnil(L, idx)) return LUCID_MODEL_WORLD;
    if (lua_type(L, idx) != LUA_TSTRING)
        lucid_lua_fail(L, BUILD, "%s must be a body name (got %s)", what,
                       lucid_lua_typename(L, idx));
    const char *name = lua_tostring(L, idx);
    if (strcmp(name, "world") == 0) return LUCID_MODEL_WORLD;
    int b = lucid_model_spec_find_body(s, name);
    if (b < 0)
        lucid_lua_fail(L, BUILD, "%s: unknown body '%s' (bodies are listed parents first)", what,
                       name);
    return b;
}

static void read_body(lua_State *L, int idx, lucid_model_spec *s, lua_Integer k) {
    static const char *const keys[] = {"name",    "parent", "placement", "mass",  "com",
                                       "inertia", "joints", "shapes",    "mocap", NULL};
    char what[64], name[160];
    if (snprintf(what, sizeof what, "bodies[%lld]", (long long)k) < 0) what[0] = '\0';
    check_table(L, idx, BUILD, what);
    check_keys(L, idx, keys, what);
    lucid_lua_fields in = lucid_lua_fields_of(L, idx, BUILD, what);
    lucid_body_spec b = lucid_body_spec_default();
    b.name = lucid_lua_string_field(&in, "name", 1);
    if (strcmp(b.name, "world") == 0 || lucid_model_spec_find_body(s, b.name) >= 0)
        lucid_lua_fail(L, BUILD, "%s.name: the name '%s' is already used", what, b.name);
    lua_getfield(L, idx, "parent");
    if (snprintf(name, sizeof name, "%s.parent", what) < 0) name[0] = '\0';
    b.parent = body_ref(L, -1, s, name);
    lua_pop(L, 1);
    if (lucid_lua_field(L, idx, "placement")) {
        if (snprintf(name, sizeof name, "%s.placement", what) < 0) name[0] = '\0';
        b.placement = *lucid_lua_checkpose(L, -1, BUILD, name);
        lua_pop(L, 1);
    }
    b.mass = lucid_lua_number_field(&in, "mass", 0.0);
    b.mocap = lucid_lua_boolean_field(&in, "mocap", 0);
    if (lucid_lua_field(L, idx, "com")) {
        if (snprintf(name, sizeof name, "%s.com", what) < 0) name[0] = '\0';
        b.com = lucid_lua_checkvec3(L, -1, BUILD, name);
        lua_pop(L, 1);
    }
    if (lucid_lua_field(L, idx, "inertia")) {
        if (snprintf(name, sizeof name, "%s.inertia", what) < 0) name[0] = '\0';
        int diag = 0;
        if (lua_type(L, -1) == LUA_TTABLE) {
            diag = lua_geti(L, -1, 1) == LUA_TNUMBER;
            lua_pop(L, 1);
        }
        if (diag)
            b.inertia = lucid_mat3_diag(lucid_lua_checkvec3(L, -1, BUILD, name));
        else
            b.inertia = lucid_lua_checkmat3(L, -1, BUILD, name);
        lua_pop(L, 1);
    }
    int index;
    lucid_status st = lucid_model_spec_add_body(s, &b, &index);
    if (st != LUCID_OK) fail_spec(L, st, what);
    if (lucid_lua_field(L, idx, "joints")) {
        int t = lua_gettop(L);
        if (snprintf(name, sizeof name, "%s.joints", what) < 0) name[0] = '\0';
        lua_Integer n = list_length(L, t, name);
        for (lua_Integer i = 1; i <= n; ++i) {
            lua_geti(L, t, i);
            if (snprintf(name, sizeof name, "%s.joints[%lld]", what, (long long)i) < 0)
                name[0] = '\0';
            read_joint(L, lua_gettop(L), s, index, name);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    if (lucid_lua_field(L, idx, "shapes")) {
        int t = lua_gettop(L);
        if (snprintf(name, sizeof name, "%s.shapes", what) < 0) name[0] = '\0';
        lua_Integer n = list_length(L, t, name);
        for (lua_Integer i = 1; i <= n; ++i) {
            lua_geti(L, t, i);
            if (snprintf(name, sizeof name, "%s.shapes[%lld]", what, (long long)i) < 0)
                name[0] = '\0';
            read_geom(L, lua_gettop(L), s, index, name);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
}

static void read_frame(lua_State *L, int idx, lucid_model_spec *s, const char *what) {
    static const char *const keys[] = {"name", "body", "placement", NULL};
    check_table(L, idx, BUILD, what);
    check_keys(L, idx, keys, what);
    lucid_lua_fields in = lucid_lua_fields_of(L, idx, BUILD, what);
    char name[160];
    lucid_frame_spec f;
    memset(&f, 0, sizeof f);
    f.placement = lucid_se3_identity();
    f.name = lucid_lua_string_field(&in, "name", 1);
    lua_getfield(L, idx, "body");
    if (snprintf(name, sizeof name, "%s.body", what) < 0) name[0] = '\0';
    f.body = body_ref(L, -1, s, name);
    lua_pop(L, 1);
    if (lucid_lua_field(L, idx, "placement")) {
        if (snprintf(name, sizeof name, "%s.placement", what) < 0) name[0] = '\0';
        f.placement = *lucid_lua_checkpose(L, -1, BUILD, name);
        lua_pop(L, 1);
    }
    lucid_status st = lucid_model_spec_add_frame(s, &f, NULL);
    if (st != LUCID_OK) fail_spec(L, st, what);
}

/* An optional array of 3 numbers at key (out unchanged when absent). */
static void read_triple(lua_State *L, int idx, const char *key, const char *what, double out[3]) {
    if (lua_getfield(L, idx, key) == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    if (!lua_istable(L, -1) || lua_rawlen(L, -1) != 3)
        lucid_lua_fail(L, BUILD, "%s.%s: expected an array of 3 numbers", what, key);
    for (int k = 0; k < 3; ++k) {
        lua_rawgeti(L, -1, k + 1);
        if (!lua_isnumber(L, -1))
            lucid_lua_fail(L, BUILD, "%s.%s[%d]: expected a number", what, key, k + 1);
        out[k] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static void read_actuator(lua_State *L, int idx, lucid_model_spec *s, const char *what) {
    static const char *const keys[] = {"name", "joint", "kind",       "gear",        "kp", "kv",
                                       "gain", "bias",  "ctrl_range", "force_range", NULL};
    static const char *const kinds[] = {"motor", "position", "velocity", "damper", "general", NULL};
    check_table(L, idx, BUILD, what);
    check_keys(L, idx, keys, what);
    lucid_lua_fields in = lucid_lua_fields_of(L, idx, BUILD, what);
    char name[160];
    lucid_actuator_spec a = lucid_actuator_spec_default();
    a.name = lucid_lua_string_field(&in, "name", 0);
    const char *joint = lucid_lua_string_field(&in, "joint", 1);
    a.joint = lucid_model_spec_find_joint(s, joint);
    if (a.joint < 0) lucid_lua_fail(L, BUILD, "%s.joint: unknown joint '%s'", what, joint);
    const char *kind = lucid_lua_string_field(&in, "kind", 0);
    if (kind) {
        int k = 0;
        while (kinds[k] && strcmp(kinds[k], kind) != 0) k++;
        if (!kinds[k])
            lucid_lua_fail(L, BUILD,
                           "%s.kind: unknown actuator kind '%s' (expected motor, position, "
                           "velocity, damper or general)",
                           what, kind);
        a.kind = (lucid_actuator_kind)k;
    }
    a.kp = lucid_lua_number_field(&in, "kp", 0.0);
    a.kv = lucid_lua_number_field(&in, "kv", 0.0);
    read_triple(L, idx, "gain", what, a.gain);
    read_triple(L, idx, "bias", what, a.bias);
    if (a.kind != LUCID_ACTUATOR_GENERAL &&
        (lucid_lua_has_field(L, idx, "gain") || lucid_lua_has_field(L, idx, "bias")))
        lucid_lua_fail(L, BUILD, "%s: gain and bias are for kind = \"general\"", what);
    a.gear = lucid_lua_number_field(&in, "gear", 1.0);
    if (lucid_lua_field(L, idx, "ctrl_range")) {
        if (snprintf(name, sizeof name, "%s.ctrl_range", what) < 0) name[0] = '\0';
        check_range(L, lua_gettop(L), name, &a.ctrl_lower, &a.ctrl_upper);
        a.ctrl_limited = 1;
        lua_pop(L, 1);
    }
    if (lucid_lua_field(L, idx, "force_range")) {
        if (snprintf(name, sizeof name, "%s.force_range", what) < 0) name[0] = '\0';
        check_range(L, lua_gettop(L), name, &a.force_lower, &a.force_upper);
        a.force_limited = 1;
        lua_pop(L, 1);
    }
    lucid_status st = lucid_model_spec_add_actuator(s, &a, NULL);
    if (st != LUCID_OK) fail_spec(L, st, what);
}

/* Calls read(L, element index, spec, "key[i]") for each element of the list field `key`. */
static void read_list(lua_State *L, int idx, const char *key, lucid_model_spec *s,
                      void (*read)(lua_State *, int, lucid_model_spec *, const char *)) {
    if (!lucid_lua_field(L, idx, key)) return;
    int t = lua_gettop(L);
    lua_Integer n = list_length(L, t, key);
    char what[64];
    for (lua_Integer i = 1; i <= n; ++i) {
        lua_geti(L, t, i);
        if (snprintf(what, sizeof what, "%s[%lld]", key, (long long)i) < 0) what[0] = '\0';
        read(L, lua_gettop(L), s, what);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static void read_static_geom(lua_State *L, int idx, lucid_model_spec *s, const char *what) {
    read_geom(L, idx, s, LUCID_MODEL_WORLD, what);
}

static void read_exclude(lua_State *L, int idx, lucid_model_spec *s, const char *what) {
    check_table(L, idx, BUILD, what);
    if (lua_rawlen(L, idx) != 2) lucid_lua_fail(L, BUILD, "%s must be a pair of body names", what);
    int b[2];
    char name[160];
    for (int k = 0; k < 2; ++k) {
        lua_geti(L, idx, k + 1);
        if (snprintf(name, sizeof name, "%s[%d]", what, k + 1) < 0) name[0] = '\0';
        if (lua_isnil(L, -1)) lucid_lua_fail(L, BUILD, "%s must be a body name", name);
        b[k] = body_ref(L, -1, s, name);
        lua_pop(L, 1);
    }
    lucid_status st = lucid_model_spec_add_exclude(s, b[0], b[1]);
    if (st != LUCID_OK) fail_spec(L, st, what);
}

static int l_build(lua_State *L) {
    static const char *const keys[] = {"name",   "gravity",   "timestep", "bodies", "shapes",
                                       "frames", "actuators", "exclude",  NULL};
    check_table(L, 1, BUILD, "argument 1");
    lua_settop(L, 1);
    lucid_lua_check_option_names(L, 1, keys, BUILD);
    spec_box *box = lua_newuserdatauv(L, sizeof *box, 0); /* index 2 */
    box->s = NULL;
    luaL_setmetatable(L, SPEC_METATABLE);
    lucid_status st = lucid_model_spec_create(NULL, &box->s);
    if (st != LUCID_OK) lucid_lua_fail_status(L, BUILD, st);
    lucid_model_spec *s = box->s;
    lucid_lua_fields in = lucid_lua_fields_of(L, 1, BUILD, "model");
    const char *name = lucid_lua_string_field(&in, "name", 0);
    if (name) {
        s->name = strdup(name);
        if (!s->name) lucid_lua_fail_status(L, BUILD, LUCID_ERR_NO_MEMORY);
    }
    if (lucid_lua_field(L, 1, "gravity")) {
        s->gravity = lucid_lua_checkvec3(L, -1, BUILD, "gravity");
        lua_pop(L, 1);
    }
    if (lucid_lua_field(L, 1, "timestep")) {
        s->timestep = lucid_lua_checkpositive(L, -1, BUILD, "timestep");
        lua_pop(L, 1);
    }
    if (lucid_lua_field(L, 1, "bodies")) {
        int t = lua_gettop(L);
        lua_Integer n = list_length(L, t, "bodies");
        for (lua_Integer i = 1; i <= n; ++i) {
            lua_geti(L, t, i);
            read_body(L, lua_gettop(L), s, i);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    read_list(L, 1, "shapes", s, read_static_geom);
    read_list(L, 1, "frames", s, read_frame);
    read_list(L, 1, "actuators", s, read_actuator);
    read_list(L, 1, "exclude", s, read_exclude);
    lucid_model *m = NULL;
    char err[512];
    st = lucid_model_compile(s, &m, err, sizeof err);
    if (st != LUCID_OK) lucid_lua_fail(L, BUILD, "%s", err[0] ? err : lucid_status_string(st));
    lucid_lua_push_model(L, m, BUILD);
    return 1;
}

/* ---- model fields and methods -------------------------------------------------------------- */

/* q at idx: nq finite values whose quaternions / (cos, sin) pairs are not zero. */
double *lucid_lua_model_q(lua_State *L, int idx, const lucid_model *m, const char *fname,
                          const char *what) {
    double *q = lucid_lua_readvalues(L, idx, lucid_model_nq(m), fname, what);
    int j = -1;
    if (lucid_model_check_configuration(m, q, &j) != LUCID_OK)
        lucid_lua_fail(L, fname, "%s: joint '%s' has a zero quaternion or (cos, sin) pair", what,
                       lucid_model_joint_name(m, (size_t)j));
    return q;
}

double *lucid_lua_model_v(lua_State *L, int idx, const lucid_model *m, const char *fname,
                          const char *what) {
    return lucid_lua_readvalues(L, idx, lucid_model_nv(m), fname, what);
}

static size_t check_frame(lua_State *L, int idx, const lucid_model *m, const char *fname) {
    if (lua_type(L, idx) != LUA_TSTRING)
        lucid_lua_fail(L, fname, "name must be a frame name (got %s)", lucid_lua_typename(L, idx));
    int f = lucid_model_find_frame(m, lua_tostring(L, idx));
    if (f < 0)
        lucid_lua_fail(L, fname, "unknown frame '%s' (see m:names(\"frame\"))",
                       lua_tostring(L, idx));
    return (size_t)f;
}

static int l_names(lua_State *L) {
    lua_settop(L, 2); /* scratch arrays go above the arguments */
    const char *F = "lucid.model:names";
    lucid_model *m = check_self(L, F, NULL);
    const char *kind = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    size_t n;
    if (!kind || !lucid_model_names_count(m, kind, &n))
        lucid_lua_fail(L, F,
                       "kind must be \"body\", \"joint\", \"frame\", \"actuator\", \"mocap\" "
                       "or \"tendon\" (got %s)",
                       kind ? kind : lucid_lua_typename(L, 2));
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; ++i) {
        lua_pushstring(L, lucid_model_name_at(m, kind, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static const char *joint_kind_name(lucid_joint_kind k) {
    switch (k) {
        case LUCID_JOINT_REVOLUTE:
            return "revolute";
        case LUCID_JOINT_PRISMATIC:
            return "prismatic";
        case LUCID_JOINT_SPHERICAL:
            return "spherical";
        case LUCID_JOINT_FREE:
            return "free";
        case LUCID_JOINT_PLANAR:
            return "planar";
        default:
            return "fixed";
    }
}

/* {{name=, kind=, parent= (joint name or nil), body=, idx_q=, idx_v=, nq=, nv=}, ...}, 1-based. */
static int l_joints(lua_State *L) {
    lucid_model *m = check_self(L, "lucid.model:joints", NULL);
    size_t n = lucid_model_njoints(m);
    lua_createtable(L, (int)n, 0);
    for (size_t j = 0; j < n; ++j) {
        lua_createtable(L, 0, 10);
        lucid_lua_set_string(L, "name", lucid_model_joint_name(m, j));
        lucid_lua_set_string(L, "kind", joint_kind_name(lucid_model_joint_kind(m, j)));
        int p = lucid_model_joint_parent(m, j);
        if (p >= 0) {
            lucid_lua_set_string(L, "parent", lucid_model_joint_name(m, (size_t)p));
        }
        lucid_lua_set_string(L, "body",
                             lucid_model_body_name(m, (size_t)lucid_model_joint_body(m, j)));
        lucid_lua_set_integer(L, "idx_q", (lua_Integer)lucid_model_joint_idx_q(m, j) + 1);
        lucid_lua_set_integer(L, "idx_v", (lua_Integer)lucid_model_joint_idx_v(m, j) + 1);
        lucid_lua_set_integer(L, "nq", (lua_Integer)lucid_model_joint_nq(m, j));
        lucid_lua_set_integer(L, "nv", (lua_Integer)lucid_model_joint_nv(m, j));
        /* stored for the rows the world does not build yet (docs/model_files.md) */
        lucid_lua_set_number(L, "frictionloss",
                             lucid_model_frictionloss(m)[lucid_model_joint_idx_v(m, j)]);
        double mult = 1.0, offset = 0.0;
        int t = lucid_model_joint_mimic(m, j, &mult, &offset);
        if (t >= 0) {
            lua_createtable(L, 0, 3);
            lucid_lua_set_string(L, "joint", lucid_model_joint_name(m, (size_t)t));
            lucid_lua_set_number(L, "multiplier", mult);
            lucid_lua_set_number(L, "offset", offset);
            lua_setfield(L, -2, "mimic");
        }
        lua_rawseti(L, -2, (lua_Integer)j + 1);
    }
    return 1;
}

static int l_mass(lua_State *L) {
    lucid_model *m = check_self(L, "lucid.model:mass", NULL);
    lua_pushnumber(L, lucid_model_total_mass(m));
    return 1;
}

static int l_limits(lua_State *L) {
    lucid_model *m = check_self(L, "lucid.model:limits", NULL);
    int nq = (int)lucid_model_nq(m), nv = (int)lucid_model_nv(m);
    lucid_lua_pushvalues(L, lucid_model_lower_limits(m), nq);
    lucid_lua_pushvalues(L, lucid_model_upper_limits(m), nq);
    lucid_lua_pushvalues(L, lucid_model_velocity_limits(m), nv);
    lucid_lua_pushvalues(L, lucid_model_effort_limits(m), nv);
    return 4;
}

static int l_neutral(lua_State *L) {
    lucid_model *m = check_self(L, "lucid.model:neutral", NULL);
    lucid_lua_matrix *q = lucid_lua_newvector(L, (int)lucid_model_nq(m));
    lucid_model_neutral(m, q->data);
    return 1;
}

/* m:keyframe(name or 1-based index): the keyframe's q, v, controls, mocap poses (a list of
 * lucid.se3 in mocap order, m:names("mocap"); model.h) and activations (m.na). */
static int l_keyframe(lua_State *L) {
    const char *F = "lucid.model:keyframe";
    lucid_model *m = check_self(L, F, NULL);
    size_t n = lucid_model_nkeyframes(m);
    int k = -1;
    if (lua_type(L, 2) == LUA_TSTRING) {
        k = lucid_model_find_keyframe(m, lua_tostring(L, 2));
        if (k < 0) lucid_lua_fail(L, F, "no keyframe named '%s'", lua_tostring(L, 2));
    } else if (lua_isinteger(L, 2)) {
        lua_Integer i = lua_tointeger(L, 2);
        if (i < 1 || (lua_Unsigned)i > n)
            lucid_lua_fail(L, F, "keyframe index %I out of range (the model has %I)", i,
                           (lua_Integer)n);
        k = (int)(i - 1);
    } else {
        lucid_lua_fail(L, F, "key must be a keyframe name or a 1-based index (got %s)",
                       lucid_lua_typename(L, 2));
    }
    const lucid_model_keyframe *K = &lucid_model_keyframes(m)[k];
    int nq = (int)lucid_model_nq(m), nv = (int)lucid_model_nv(m), nu = (int)lucid_model_nu(m);
    memcpy(lucid_lua_newvector(L, nq)->data, K->q, (size_t)nq * sizeof(double));
    memcpy(lucid_lua_newvector(L, nv)->data, K->v, (size_t)nv * sizeof(double));
    memcpy(lucid_lua_newvector(L, nu)->data, K->u, (size_t)nu * sizeof(double));
    size_t nmocap = lucid_model_nmocap(m);
    lua_createtable(L, (int)nmocap, 0);
    for (size_t b = 0; b < nmocap; ++b) {
        lucid_lua_pushse3(L, &K->mocap[b]);
        lua_rawseti(L, -2, (lua_Integer)b + 1);
    }
    int na = (int)lucid_model_na(m);
    memcpy(lucid_lua_newvector(L, na)->data, K->act, (size_t)na * sizeof(double));
    return 5;
}

static int l_random_configuration(lua_State *L) {
    lua_settop(L, 2); /* scratch arrays go above the arguments */
    const char *F = "lucid.model:random_configuration";
    lucid_model *m = check_self(L, F, NULL);
    lucid_rng *rng = lucid_lua_checkrng(L, 2, F);
    lucid_lua_matrix *q = lucid_lua_newvector(L, (int)lucid_model_nq(m));
    lucid_model_random_configuration(m, rng, q->data);
    return 1;
}

static int l_integrate(lua_State *L) {
    lua_settop(L, 4); /* scratch arrays go above the arguments */
    const char *F = "lucid.model:integrate";
    lucid_model *m = check_self(L, F, NULL);
    double *q = lucid_lua_model_q(L, 2, m, F, "q");
    double *v = lucid_lua_model_v(L, 3, m, F, "v");
    double dt = lua_isnoneornil(L, 4) ? 1.0 : lucid_lua_checkfinite(L, 4, F, "dt");
    lucid_lua_matrix *out = lucid_lua_newvector(L, (int)lucid_model_nq(m));
    lucid_model_integrate(m, q, v, dt, out->data);
    if (!lucid_all_finite(out->data, out->rows))
        lucid_lua_fail(L, F, "the result is not finite (v or dt too large)");
    return 1;
}

static int l_difference(lua_State *L) {
    lua_settop(L, 3); /* scratch arrays go above the arguments */
    const char *F = "lucid.model:difference";
    lucid_model *m = check_self(L, F, NULL);
    double *q0 = lucid_lua_model_q(L, 2, m, F, "q0");
    double *q1 = lucid_lua_model_q(L, 3, m, F, "q1");
    lucid_lua_matrix *out = lucid_lua_newvector(L, (int)lucid_model_nv(m));
    lucid_model_difference(m, q0, q1, out->data);
    if (!lucid_all_finite(out->data, out->rows))
        lucid_lua_fail(L, F, "the result is not finite (q0 and q1 too far apart)");
    return 1;
}

static int l_normalize(lua_State *L) {
    lua_settop(L, 2); /* scratch arrays go above the arguments */
    const char *F = "lucid.model:normalize";
    lucid_model *m = check_self(L, F, NULL);
    double *q = lucid_lua_model_q(L, 2, m, F, "q");
    lucid_lua_matrix *out = lucid_lua_newvector(L, (int)lucid_model_nq(m));
    memcpy(out->data, q, lucid_model_nq(m) * sizeof(double));
    lucid_status st = lucid_model_normalize(m, out->data);
    if (st != LUCID_OK) lucid_lua_fail_status(L, F, st);
    return 1;
}

static int l_frame_pose(lua_State *L) {
    lua_settop(L, 3); /* scratch arrays go above the arguments */
    const char *F = "lucid.model:frame_pose";
    lucid_model_data *d;
    lucid_model *m = check_self(L, F, &d);
    double *q = lucid_lua_model_q(L, 2, m, F, "q");
    size_t f = check_frame(L, 3, m, F);
    lucid_model_forward_kinematics(m, d, q);
    lucid_se3 T = lucid_model_frame_pose(m, d, f);
    if (!lucid_all_finite(T.R.m, 9) || !lucid_vec3_isfinite(T.t))
        lucid_lua_fail(L, F, "the pose is not finite (q too large)");
    lucid_lua_pushse3(L, &T);
    return 1;
}

static int l_frame_jacobian(lua_State *L) {
    lua_settop(L, 4); /* scratch arrays go above the arguments */
    const char *F = "lucid.model:frame_jacobian";
    lucid_model_data *d;
    lucid_model *m = check_self(L, F, &d);
    double *q = lucid_lua_model_q(L, 2, m, F, "q");
    size_t f = check_frame(L, 3, m, F);
    lucid_reference_frame ref = LUCID_REF_LOCAL;
    if (!lua_isnoneornil(L, 4)) {
        const char *r = lua_type(L, 4) == LUA_TSTRING ? lua_tostring(L, 4) : "";
        if (strcmp(r, "local") == 0)
            ref = LUCID_REF_LOCAL;
        else if (strcmp(r, "world") == 0)
            ref = LUCID_REF_WORLD;
        else if (strcmp(r, "local_world_aligned") == 0)
            ref = LUCID_REF_LOCAL_WORLD_ALIGNED;
        else
            lucid_lua_fail(L, F,
                           "ref must be \"local\", \"world\" or \"local_world_aligned\" (got %s)",
                           lua_type(L, 4) == LUA_TSTRING ? r : lucid_lua_typename(L, 4));
    }
    int nv = (int)lucid_model_nv(m);
    lucid_lua_matrix *J = lucid_lua_newmatrix(L, 6, nv);
    lucid_model_forward_kinematics(m, d, q);
    lucid_model_frame_jacobian(m, d, f, ref, J->data);
    if (!lucid_all_finite(J->data, 6L * nv)) lucid_lua_fail(L, F, "the Jacobian is not finite");
    return 1;
}

static int l_index(lua_State *L) {
    model_box *box = luaL_testudata(L, 1, LUCID_MODEL_METATABLE);
    if (!box)
        lucid_lua_fail(L, "lucid.model.__index", "self must be a lucid.model (got %s)",
                       lucid_lua_typename(L, 1));
    if (lua_type(L, 2) != LUA_TSTRING) return 0;
    const char *k = lua_tostring(L, 2);
    if (lua_getfield(L, lua_upvalueindex(1), k) != LUA_TNIL) return 1; /* a method */
    lua_pop(L, 1);
    static const char *const fields[] = {
        "nq",       "nv",   "nu",         "nbodies", "njoints", "nframes",       "gravity",
        "timestep", "name", "nkeyframes", "nmocap",  "na",      "filter_parent", "collision",
        NULL};
    int which = -1;
    for (int i = 0; fields[i]; ++i)
        if (strcmp(k, fields[i]) == 0) which = i;
    if (which < 0) return 0;
    if (!box->m) lucid_lua_fail(L, "lucid.model.__index", "self is a finalized model");
    const lucid_model *m = box->m;
    switch (which) {
        case 0:
            lua_pushinteger(L, (lua_Integer)lucid_model_nq(m));
            break;
        case 1:
            lua_pushinteger(L, (lua_Integer)lucid_model_nv(m));
            break;
        case 2:
            lua_pushinteger(L, (lua_Integer)lucid_model_nu(m));
            break;
        case 3:
            lua_pushinteger(L, (lua_Integer)lucid_model_nbodies(m));
            break;
        case 4:
            lua_pushinteger(L, (lua_Integer)lucid_model_njoints(m));
            break;
        case 5:
            lua_pushinteger(L, (lua_Integer)lucid_model_nframes(m));
            break;
        case 6:
            lucid_lua_pushvec3(L, lucid_model_gravity(m));
            break;
        case 7:
            lua_pushnumber(L, lucid_model_timestep(m));
            break;
        case 9:
            lua_pushinteger(L, (lua_Integer)lucid_model_nkeyframes(m));
            break;
        case 10:
            lua_pushinteger(L, (lua_Integer)lucid_model_nmocap(m));
            break;
        case 11:
            lua_pushinteger(L, (lua_Integer)lucid_model_na(m));
            break;
        case 12: { /* the parent/child collision rule (model.h) */
            static const char *const names[] = {"adjacent", "parent", "none"};
            lua_pushstring(L, names[lucid_model_filter_parent(m)]);
            break;
        }
        case 13: { /* which geom pairs collide (model.h) */
            static const char *const names[] = {"all", "predefined", "dynamic"};
            lua_pushstring(L, names[lucid_model_collision_mode(m)]);
            break;
        }
        default:
            lua_pushstring(L, lucid_model_name(m));
            break;
    }
    return 1;
}

static int l_tostring(lua_State *L) {
    model_box *box = luaL_testudata(L, 1, LUCID_MODEL_METATABLE);
    if (!box)
        lucid_lua_fail(L, "lucid.model:__tostring", "self must be a lucid.model (got %s)",
                       lucid_lua_typename(L, 1));
    if (!box->m)
        lua_pushliteral(L, "lucid.model (finalized)");
    else
        lua_pushfstring(L, "lucid.model '%s' (%d bodies, nq %d, nv %d)", lucid_model_name(box->m),
                        (int)lucid_model_nbodies(box->m), (int)lucid_model_nq(box->m),
                        (int)lucid_model_nv(box->m));
    return 1;
}

/* ---- lucid.dynamics ------------------------------------------------------------------------ */

/* The arguments (m, q[, v[, x]]) of a lucid.dynamics function of nargs arguments, read in
 * order: v and x (named xname in errors) have nv entries. */
typedef struct dynamics_args {
    lucid_model *m;
    lucid_model_data *d;
    double *q, *v, *x;
    int nv;
} dynamics_args;

static dynamics_args read_dynamics_args(lua_State *L, const char *F, int nargs, const char *xname) {
    lua_settop(L, nargs); /* scratch arrays go above the arguments */
    dynamics_args a = {0};
    a.m = lucid_lua_checkmodel(L, 1, F, "m", &a.d);
    a.q = lucid_lua_model_q(L, 2, a.m, F, "q");
    if (nargs >= 3) a.v = lucid_lua_model_v(L, 3, a.m, F, "v");
    if (nargs >= 4) a.x = lucid_lua_model_v(L, 4, a.m, F, xname);
    a.nv = (int)lucid_model_nv(a.m);
    return a;
}

/* 1 when the count nv x nv matrices are finite. */
static int matrices_finite(lucid_lua_matrix *const *mats, int count, int nv) {
    for (int k = 0; k < count; ++k)
        if (!lucid_all_finite(mats[k]->data, (long)nv * nv)) return 0;
    return 1;
}

static int l_rnea(lua_State *L) {
    const char *F = "lucid.dynamics.rnea";
    dynamics_args a = read_dynamics_args(L, F, 4, "a");
    lucid_lua_matrix *tau = lucid_lua_newvector(L, a.nv);
    lucid_model_rnea(a.m, a.d, a.q, a.v, a.x, tau->data);
    if (!lucid_all_finite(tau->data, tau->rows)) lucid_lua_fail(L, F, "tau is not finite");
    return 1;
}

static int l_aba(lua_State *L) {
    const char *F = "lucid.dynamics.aba";
    dynamics_args a = read_dynamics_args(L, F, 4, "tau");
    lucid_lua_matrix *acc = lucid_lua_newvector(L, a.nv);
    lucid_model_aba(a.m, a.d, a.q, a.v, a.x, acc->data);
    if (!lucid_all_finite(acc->data, acc->rows))
        lucid_lua_fail(L, F, "the acceleration is not finite");
    return 1;
}

static int l_nle(lua_State *L) {
    const char *F = "lucid.dynamics.nle";
    dynamics_args a = read_dynamics_args(L, F, 3, NULL);
    lucid_lua_matrix *b = lucid_lua_newvector(L, a.nv);
    lucid_model_nle(a.m, a.d, a.q, a.v, b->data);
    if (!lucid_all_finite(b->data, b->rows)) lucid_lua_fail(L, F, "the result is not finite");
    return 1;
}

static int l_crba(lua_State *L) {
    dynamics_args a = read_dynamics_args(L, "lucid.dynamics.crba", 2, NULL);
    lucid_model_crba(a.m, a.d, a.q);
    lucid_lua_pushmatrix_data(L, lucid_model_data_mass_matrix(a.d), a.nv, a.nv);
    return 1;
}

static int l_energy(lua_State *L) {
    dynamics_args a = read_dynamics_args(L, "lucid.dynamics.energy", 3, NULL);
    double T, V;
    lucid_model_energy(a.m, a.d, a.q, a.v, &T, &V);
    lua_pushnumber(L, T);
    lua_pushnumber(L, V);
    return 2;
}

static int l_com(lua_State *L) {
    dynamics_args a = read_dynamics_args(L, "lucid.dynamics.com", 2, NULL);
    lucid_lua_pushvec3(L, lucid_model_com(a.m, a.d, a.q));
    return 1;
}

static int l_rnea_derivatives(lua_State *L) {
    const char *F = "lucid.dynamics.rnea_derivatives";
    dynamics_args a = read_dynamics_args(L, F, 4, "a");
    lucid_lua_matrix *d[2];
    for (int k = 0; k < 2; ++k) d[k] = lucid_lua_newmatrix(L, a.nv, a.nv); /* in return order */
    lucid_model_rnea_derivatives(a.m, a.d, a.q, a.v, a.x, d[0]->data, d[1]->data);
    if (!matrices_finite(d, 2, a.nv)) lucid_lua_fail(L, F, "the derivatives are not finite");
    return 2;
}

static int l_aba_derivatives(lua_State *L) {
    const char *F = "lucid.dynamics.aba_derivatives";
    dynamics_args a = read_dynamics_args(L, F, 4, "tau");
    double *acc = lucid_lua_newbuffer(L, (size_t)a.nv);
    lucid_lua_matrix *d[3];
    for (int k = 0; k < 3; ++k) d[k] = lucid_lua_newmatrix(L, a.nv, a.nv); /* in return order */
    lucid_model_aba_derivatives(a.m, a.d, a.q, a.v, a.x, acc, d[0]->data, d[1]->data, d[2]->data);
    if (!matrices_finite(d, 3, a.nv)) lucid_lua_fail(L, F, "the derivatives are not finite");
    return 3;
}

void lucid_open_model(lua_State *L) {
    static const luaL_Reg methods[] = {{"names", l_names},
                                       {"joints", l_joints},
                                       {"mass", l_mass},
                                       {"limits", l_limits},
                                       {"neutral", l_neutral},
                                       {"keyframe", l_keyframe},
                                       {"random_configuration", l_random_configuration},
                                       {"integrate", l_integrate},
                                       {"difference", l_difference},
                                       {"normalize", l_normalize},
                                       {"frame_pose", l_frame_pose},
                                       {"frame_jacobian", l_frame_jacobian},
                                       {"geoms", lucid_lua_model_geoms},
                                       {"pairs", lucid_lua_model_pairs},
                                       {"actuators", lucid_lua_model_actuators},
                                       {"tendons", lucid_lua_model_tendons},
                                       {"sensors", lucid_lua_model_sensors},
                                       {NULL, NULL}};
    static const luaL_Reg dynamics[] = {{"rnea", l_rnea},
                                        {"aba", l_aba},
                                        {"crba", l_crba},
                                        {"nle", l_nle},
                                        {"energy", l_energy},
                                        {"com", l_com},
                                        {"rnea_derivatives", l_rnea_derivatives},
                                        {"aba_derivatives", l_aba_derivatives},
                                        {NULL, NULL}};
    static const luaL_Reg model_metamethods[] = {
        {"__gc", model_gc}, {"__tostring", l_tostring}, {NULL, NULL}};
    static const luaL_Reg spec_metamethods[] = {{"__gc", spec_gc}, {NULL, NULL}};
    static const luaL_Reg model_functions[] = {{"build", l_build}, {NULL, NULL}};
    lucid_lua_push_metatable(L, LUCID_MODEL_METATABLE, model_metamethods, NULL);
    luaL_newlib(L, methods);
    lua_pushcclosure(L, l_index, 1);
    lua_setfield(L, -2, "__index");
    lucid_lua_push_metatable(L, SPEC_METATABLE, spec_metamethods, NULL);
    lua_pop(L, 2);
    luaL_newlib(L, model_functions);
    lua_setfield(L, -2, "model");
    luaL_newlib(L, dynamics);
    lucid_lua_add_regressor(L);
    lua_setfield(L, -2, "dynamics");
}
