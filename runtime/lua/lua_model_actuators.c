/* m:actuators() (docs/grasp.md, "Models"): each actuator's kind, joint and gains,
 * so that scripts can turn joint torques into position-servo targets. Each entry: {name, kind =
 * "motor" | "position" | "velocity" | "damper" | "general", joint = joint name, dof (1-based
 * index into v), coord (1-based index into q), gear, kp, gain = {g0, g1, g2}, bias = {b0, b1,
 * b2}, ctrl_range = {lo, hi} or nil, force_range = {lo, hi} or nil, dyn = "none" |
 * "integrator" | "filter", and for an actuator with an activation act (its 1-based index among
 * the model's m.na activations), timeconst (a filter's), tau_act and tau_deact (a muscle's),
 * act_range = {lo, hi} or nil}; kind also "intvelocity" | "cylinder" | "muscle", dyn also
 * "muscle"; with muscle curves (gain or bias) lengthrange = {lo, hi} and acc0. The torque is gear f
 * with f = (g0 + g1 L + g2 Ld) u + b0 + b1 L + b2 Ld, L = gear q, Ld = gear v (model.h). An
 * actuator on a tendon has tendon = its name (1-based index: tendon_index) instead of joint,
 * dof and coord, with L = gear L_tendon.
 * m:tendons() (docs/model.md): each tendon's {name, kind = "fixed" | "spatial", joints = {joint
 * names} (a spatial tendon's: the joints that move its path), coefs = {coefficients} (fixed) or
 * path = {{site = name}, {geom = name, sidesite = name}, {pulley = divisor}, ...} (spatial),
 * range = {lo, hi} or nil, margin, stiffness, damping, springlength, frictionloss}.
 * m:sensors() (docs/model.md): each sensor's {name, type = "jointpos" | "jointvel" |
 * "actuatorfrc" | "framepos" | "framequat" | "gyro" | "velocimeter" | "accelerometer" | "force" |
 * "torque" | "touch", object = its joint, actuator, body or site name, objtype = "joint" |
 * "actuator" | "xbody" | "site", dim, adr (1-based index of its first value in w:sensors), noise,
 * cutoff}. */
#include <lauxlib.h>
#include <limits.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_model.h"

static void set_triple(lua_State *L, const double x[3], const char *key) {
    lua_createtable(L, 3, 0);
    for (int k = 0; k < 3; ++k) {
        lua_pushnumber(L, x[k]);
        lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, -2, key);
}

static void set_range(lua_State *L, int limited, double lo, double hi, const char *key) {
    if (!limited) return;
    lua_createtable(L, 2, 0);
    lua_pushnumber(L, lo);
    lua_rawseti(L, -2, 1);
    lua_pushnumber(L, hi);
    lua_rawseti(L, -2, 2);
    lua_setfield(L, -2, key);
}

int lucid_lua_model_actuators(lua_State *L) {
    const char *F = "lucid.model:actuators";
    lucid_model *m = lucid_lua_checkmodel(L, 1, F, "self", NULL);
    size_t n = lucid_model_nu(m);
    const lucid_model_actuator *acts = lucid_model_actuators(m);
    lua_createtable(L, n > (size_t)INT_MAX ? 0 : (int)n, 0);
    for (size_t i = 0; i < n; ++i) {
        const lucid_model_actuator *a = &acts[i];
        static const char *const kinds[] = {"motor",   "position",    "velocity", "damper",
                                            "general", "intvelocity", "cylinder", "muscle"};
        static const char *const dyns[] = {"none", "integrator", "filter", "muscle"};
        lua_createtable(L, 0, 11);
        lucid_lua_set_string(L, "name", a->name != NULL ? a->name : "");
        lucid_lua_set_string(L, "kind", kinds[a->kind]);
        if (a->crank >= 0) {
            lucid_lua_set_string(L, "cranksite", lucid_model_name_at(m, "frame", (size_t)a->crank));
            lucid_lua_set_string(L, "slidersite",
                                 lucid_model_name_at(m, "frame", (size_t)a->slider));
            lucid_lua_set_number(L, "cranklength", a->cranklength);
        } else if (a->tendon) {
            lucid_lua_set_string(L, "tendon", a->tendon->name);
            lucid_lua_set_integer(L, "tendon_index", (lua_Integer)a->tendon_index + 1);
        } else {
            lucid_lua_set_string(L, "joint", lucid_model_joint_name(m, (size_t)a->joint));
            lucid_lua_set_integer(L, "dof", (lua_Integer)a->dof + 1);
            lucid_lua_set_integer(L, "coord", (lua_Integer)a->coord + 1);
        }
        lucid_lua_set_number(L, "gear", a->gear);
        lucid_lua_set_number(L, "kp", a->kp);
        set_triple(L, a->gain, "gain");
        set_triple(L, a->bias, "bias");
        set_range(L, a->ctrl_limited, a->ctrl_lower, a->ctrl_upper, "ctrl_range");
        set_range(L, a->force_limited, a->force_lower, a->force_upper, "force_range");
        lucid_lua_set_string(L, "dyn", dyns[a->dyn]);
        if (a->gain_muscle || a->bias_muscle) { /* its muscle curves' length range and acc0 */
            set_range(L, 1, a->lengthrange[0], a->lengthrange[1], "lengthrange");
            lucid_lua_set_number(L, "acc0", a->acc0);
        }
        if (a->act >= 0) { /* its activation: 1-based index among the model's na */
            lucid_lua_set_integer(L, "act", (lua_Integer)a->act + 1);
            if (a->dyn == LUCID_ACTUATOR_DYN_FILTER)
                lucid_lua_set_number(L, "timeconst", a->timeconst);
            if (a->dyn == LUCID_ACTUATOR_DYN_MUSCLE) {
                lucid_lua_set_number(L, "tau_act", a->muscle_tau[0]);
                lucid_lua_set_number(L, "tau_deact", a->muscle_tau[1]);
            }
            set_range(L, a->act_limited, a->act_lower, a->act_upper, "act_range");
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* A spatial tendon's path: {site = name}, {geom = name, sidesite = name or nil}, {pulley =
 * divisor} in MJCF order. */
static void push_path(lua_State *L, const lucid_model *m, const lucid_model_tendon *t) {
    lua_createtable(L, (int)t->npath, 0);
    for (size_t k = 0; k < t->npath; ++k) {
        const lucid_model_tendon_point *P = &t->path[k];
        lua_createtable(L, 0, 2);
        if (P->kind == LUCID_TENDON_PATH_PULLEY) {
            lucid_lua_set_number(L, "pulley", P->divisor);
        } else if (P->kind == LUCID_TENDON_PATH_SITE) {
            lucid_lua_set_string(L, "site", lucid_model_name_at(m, "frame", (size_t)P->object));
        } else {
            const char *gn = lucid_model_geoms(m)[P->object].name;
            lucid_lua_set_string(L, "geom", gn ? gn : "");
            if (P->side >= 0) {
                lucid_lua_set_string(L, "sidesite",
                                     lucid_model_name_at(m, "frame", (size_t)P->side));
            }
        }
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
}

int lucid_lua_model_tendons(lua_State *L) {
    const char *F = "lucid.model:tendons";
    lucid_model *m = lucid_lua_checkmodel(L, 1, F, "self", NULL);
    size_t n = lucid_model_ntendons(m);
    const lucid_model_tendon *ts = lucid_model_tendons(m);
    lua_createtable(L, n > (size_t)INT_MAX ? 0 : (int)n, 0);
    for (size_t i = 0; i < n; ++i) {
        const lucid_model_tendon *t = &ts[i];
        lua_createtable(L, 0, 11);
        lucid_lua_set_string(L, "name", t->name);
        lucid_lua_set_string(L, "kind", lucid_model_tendon_is_spatial(t) ? "spatial" : "fixed");
        lua_createtable(L, (int)t->n, 0);
        lua_Integer nj = 0;
        for (size_t k = 0; k < t->n; ++k) {
            if (k > 0 && t->joint[k] == t->joint[k - 1]) continue; /* a ball's or free's dofs */
            lua_pushstring(L, lucid_model_joint_name(m, (size_t)t->joint[k]));
            lua_rawseti(L, -2, ++nj);
        }
        lua_setfield(L, -2, "joints");
        if (lucid_model_tendon_is_spatial(t)) {
            push_path(L, m, t);
            lua_setfield(L, -2, "path");
        } else {
            lua_createtable(L, (int)t->n, 0);
            for (size_t k = 0; k < t->n; ++k) {
                lua_pushnumber(L, t->coef[k]);
                lua_rawseti(L, -2, (lua_Integer)k + 1);
            }
            lua_setfield(L, -2, "coefs");
        }
        set_range(L, t->limited, t->lower, t->upper, "range");
        lucid_lua_set_number(L, "margin", t->margin);
        lucid_lua_set_number(L, "stiffness", t->stiffness);
        lucid_lua_set_number(L, "damping", t->damping);
        lucid_lua_set_number(L, "springlength", t->springlength);
        lucid_lua_set_number(L, "frictionloss", t->frictionloss);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* The name and objtype of sensor S's object. */
static void sensor_object(const lucid_model *m, const lucid_model_sensor *S, const char **name,
                          const char **type) {
    switch (S->kind) {
        case LUCID_SENSOR_JOINTPOS:
        case LUCID_SENSOR_JOINTVEL:
            *name = lucid_model_joint_name(m, (size_t)S->object), *type = "joint";
            return;
        case LUCID_SENSOR_ACTUATORFRC:
            *name = lucid_model_actuators(m)[S->object].name, *type = "actuator";
            return;
        default:
            *name = lucid_model_name_at(m, "frame", (size_t)S->object);
            *type =
                lucid_model_frame_kind(m, (size_t)S->object) == LUCID_FRAME_SITE ? "site" : "xbody";
            return;
    }
}

int lucid_lua_model_sensors(lua_State *L) {
    const char *F = "lucid.model:sensors";
    lucid_model *m = lucid_lua_checkmodel(L, 1, F, "self", NULL);
    size_t n = lucid_model_nsensors(m);
    const lucid_model_sensor *ss = lucid_model_sensors(m);
    lua_createtable(L, n > (size_t)INT_MAX ? 0 : (int)n, 0);
    for (size_t i = 0; i < n; ++i) {
        const lucid_model_sensor *S = &ss[i];
        const char *object, *objtype;
        sensor_object(m, S, &object, &objtype);
        lua_createtable(L, 0, 8);
        lucid_lua_set_string(L, "name", S->name);
        lucid_lua_set_string(L, "type", lucid_sensor_kind_name(S->kind));
        lucid_lua_set_string(L, "object", object ? object : "");
        lucid_lua_set_string(L, "objtype", objtype);
        lucid_lua_set_integer(L, "dim", (lua_Integer)S->dim);
        lucid_lua_set_integer(L, "adr", (lua_Integer)S->adr + 1);
        lucid_lua_set_number(L, "noise", S->noise);
        lucid_lua_set_number(L, "cutoff", S->cutoff);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}
