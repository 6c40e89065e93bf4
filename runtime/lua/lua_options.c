/* Option-table readers and the contact options' description (lua_options.h). */
#include "runtime/lua/lua_options.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/modules.h"
#include "runtime/shapes/mesh_decompose.h"
#include "runtime/world/step_derivatives.h"
#include "runtime/world/world.h"
#include "runtime/world/world_batch.h"
#include "solvers/collision/contact_patch.h"
#include "solvers/collision/pscaling.h"
#include "solvers/grasp/grasp_epsilon.h"

#define ANY                                                                                        \
    { -INFINITY, INFINITY, 0, 0 }
#define AT_LEAST0                                                                                  \
    { 0.0, INFINITY, 0, 0 }
#define ABOVE0                                                                                     \
    { 0.0, INFINITY, 1, 0 }

const lucid_lua_range lucid_lua_any = ANY;
const lucid_lua_range lucid_lua_positive = ABOVE0;
const lucid_lua_range lucid_lua_nonnegative = AT_LEAST0;

lucid_lua_fields lucid_lua_fields_at(lua_State *L, int idx, const char *fname, const char *prefix) {
    lucid_lua_fields f = {L, lua_absindex(L, idx), fname, {0}};
    snprintf(f.prefix, sizeof f.prefix, "%s", prefix ? prefix : "");
    return f;
}

lucid_lua_fields lucid_lua_fields_of(lua_State *L, int idx, const char *fname, const char *table) {
    lucid_lua_fields f = {L, lua_absindex(L, idx), fname, {0}};
    snprintf(f.prefix, sizeof f.prefix, "%s.", table);
    return f;
}

int lucid_lua_has_field(lua_State *L, int idx, const char *key) {
    int type = lua_getfield(L, idx, key);
    lua_pop(L, 1);
    return type != LUA_TNIL;
}

int lucid_lua_field(lua_State *L, int idx, const char *key) {
    if (lua_getfield(L, idx, key) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    return 0;
}

/* The key as messages name it: PREFIX key, in out. */
static const char *label(const lucid_lua_fields *f, const char *key, char *out, size_t size) {
    snprintf(out, size, "%s%s", f->prefix, key);
    return out;
}

double lucid_lua_number_field(const lucid_lua_fields *f, const char *key, double fallback) {
    return lucid_lua_number_in(f, key, fallback, &lucid_lua_any);
}

/* The range as words: "positive", ">= 0", "<= 1", "in (0, 2)". */
static void range_words(const lucid_lua_range *r, char *out, size_t size) {
    if (isinf(r->hi) && r->lo == 0.0 && r->lo_open)
        snprintf(out, size, "positive"); /* lucid_lua_checkpositive's word */
    else if (isinf(r->hi))
        snprintf(out, size, "%s %g", r->lo_open ? ">" : ">=", r->lo);
    else if (isinf(r->lo))
        snprintf(out, size, "%s %g", r->hi_open ? "<" : "<=", r->hi);
    else
        snprintf(out, size, "in %c%g, %g%c", r->lo_open ? '(' : '[', r->lo, r->hi,
                 r->hi_open ? ')' : ']');
}

double lucid_lua_number_in(const lucid_lua_fields *f, const char *key, double fallback,
                           const lucid_lua_range *r) {
    if (!lucid_lua_field(f->L, f->idx, key)) return fallback;
    char name[160], words[64];
    double x = lucid_lua_checkfinite(f->L, -1, f->fname, label(f, key, name, sizeof name));
    if (!lucid_option_range_contains(r, x)) {
        range_words(r, words, sizeof words);
        lucid_lua_fail(f->L, f->fname, "%s must be %s (got %f)", name, words, x);
    }
    lua_pop(f->L, 1);
    return x;
}

lua_Integer lucid_lua_integer_field(const lucid_lua_fields *f, const char *key,
                                    lua_Integer fallback, lua_Integer lo, lua_Integer hi) {
    if (!lucid_lua_field(f->L, f->idx, key)) return fallback;
    char name[160];
    lua_Integer k =
        lucid_lua_checkinteger_range(f->L, -1, lo, hi, f->fname, label(f, key, name, sizeof name));
    lua_pop(f->L, 1);
    return k;
}

int lucid_lua_boolean_field(const lucid_lua_fields *f, const char *key, int fallback) {
    if (!lucid_lua_field(f->L, f->idx, key)) return fallback;
    char name[160];
    if (!lua_isboolean(f->L, -1))
        lucid_lua_fail(f->L, f->fname, "%s must be a boolean (got %s)",
                       label(f, key, name, sizeof name), lucid_lua_typename(f->L, -1));
    int flag = lua_toboolean(f->L, -1);
    lua_pop(f->L, 1);
    return flag;
}

const char *lucid_lua_string_field(const lucid_lua_fields *f, const char *key, int required) {
    char name[160];
    if (!lucid_lua_field(f->L, f->idx, key)) {
        if (required)
            lucid_lua_fail(f->L, f->fname, "%s is required (a string)",
                           label(f, key, name, sizeof name));
        return NULL;
    }
    if (lua_type(f->L, -1) != LUA_TSTRING)
        lucid_lua_fail(f->L, f->fname, "%s must be a string (got %s)",
                       label(f, key, name, sizeof name), lucid_lua_typename(f->L, -1));
    const char *s = lua_tostring(f->L, -1);
    lua_pop(f->L, 1); /* the string stays alive in the table */
    return s;
}

int lucid_lua_enum_field(const lucid_lua_fields *f, const char *key, const char *const *names,
                         int fallback) {
    if (!lucid_lua_field(f->L, f->idx, key)) return fallback;
    const char *given = lua_type(f->L, -1) == LUA_TSTRING ? lua_tostring(f->L, -1) : NULL;
    for (int i = 0; given && names[i]; ++i)
        if (strcmp(given, names[i]) == 0) {
            lua_pop(f->L, 1);
            return i;
        }
    char list[256] = "", name[160];
    for (int i = 0; names[i]; ++i) {
        const char *sep = i == 0 ? "" : names[i + 1] ? ", " : " or ";
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s\"%s\"", sep, names[i]);
    }
    return lucid_lua_fail(f->L, f->fname, "%s must be %s (got %s)",
                          label(f, key, name, sizeof name), list,
                          given ? given : lucid_lua_typename(f->L, -1));
}

/* ---- options described by a table ---------------------------------------------------------- */

/* The value of option o at the top of the stack, checked and stored into s, popped. */
static void read_option(const lucid_lua_fields *f, const lucid_option *o, void *s) {
    lua_State *L = f->L;
    char name[160];
    label(f, o->name, name, sizeof name);
    if (o->type == LUCID_OPTION_VEC3) {
        lucid_vec3 v = lucid_lua_checkvec3(L, -1, f->fname, name);
        lucid_option_set(o, s, 0, v.x), lucid_option_set(o, s, 1, v.y);
        lucid_option_set(o, s, 2, v.z);
    } else if (o->type == LUCID_OPTION_BOOLEAN) {
        if (!lua_isboolean(L, -1))
            lucid_lua_fail(L, f->fname, "%s must be a boolean (got %s)", name,
                           lucid_lua_typename(L, -1));
        lucid_option_set(o, s, 0, lua_toboolean(L, -1));
    } else if (o->type == LUCID_OPTION_CHOICE) {
        int value;
        if (lua_type(L, -1) != LUA_TSTRING ||
            !lucid_option_choice_value(o, lua_tostring(L, -1), &value))
            lucid_lua_fail(L, f->fname, "%s must be %s (got %s)", name, o->words,
                           lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1)
                                                          : lucid_lua_typename(L, -1));
        lucid_option_set(o, s, 0, value);
    } else {
        double x = o->type == LUCID_OPTION_INTEGER
                       ? (double)lucid_lua_checkinteger_range(L, -1, LUA_MININTEGER, LUA_MAXINTEGER,
                                                              f->fname, name)
                       : lucid_lua_checkfinite(L, -1, f->fname, name);
        if (!lucid_option_accepts(o, x) && o->type == LUCID_OPTION_INTEGER)
            lucid_lua_fail(L, f->fname, "%s must be %s (got %I)", name, o->words, (lua_Integer)x);
        if (!lucid_option_accepts(o, x))
            lucid_lua_fail(L, f->fname, "%s must be %s (got %f)", name, o->words, x);
        lucid_option_set(o, s, 0, x);
    }
    lua_pop(L, 1);
}

void lucid_lua_read_option_table(const lucid_lua_fields *f, const lucid_option *table, void *s) {
    for (const lucid_option *o = table; o->name; ++o)
        if (lucid_lua_field(f->L, f->idx, o->name)) read_option(f, o, s);
}

int lucid_lua_read_options(lua_State *L, int idx, const char *fname, const char *what,
                           const lucid_option *table, const char *const *extra, void *s) {
    if (lua_isnoneornil(L, idx)) return 0;
    idx = lua_absindex(L, idx);
    if (!lua_istable(L, idx))
        lucid_lua_fail(L, fname, "%s must be a table (got %s)", what, lucid_lua_typename(L, idx));
    const char *names[48];
    lucid_lua_option_names(table, extra, names, sizeof names / sizeof *names);
    lucid_lua_check_option_names(L, idx, names, fname);
    lucid_lua_fields f = lucid_lua_fields_at(L, idx, fname, "");
    lucid_lua_read_option_table(&f, table, s);
    return 1;
}

void lucid_lua_option_names(const lucid_option *table, const char *const *extra, const char **out,
                            size_t size) {
    size_t n = 0;
    for (const lucid_option *o = table; o->name && n + 1 < size; ++o) out[n++] = o->name;
    for (const char *const *e = extra; e && *e && n + 1 < size; ++e) out[n++] = *e;
    out[n] = NULL;
}

/* The Lua type of each lucid_option_type, as the option lists name it. */
static const char *const type_names[] = {"number", "integer", "boolean", "string", "vec3"};

/* The value of option o in s pushed as Lua sees it. */
static void push_option_value(lua_State *L, const lucid_option *o, const void *s) {
    switch (o->type) {
        case LUCID_OPTION_NUMBER:
            lua_pushnumber(L, lucid_option_get(o, s, 0));
            return;
        case LUCID_OPTION_INTEGER:
            lua_pushinteger(L, (lua_Integer)lucid_option_get(o, s, 0));
            return;
        case LUCID_OPTION_BOOLEAN:
            lua_pushboolean(L, lucid_option_get(o, s, 0) != 0.0);
            return;
        case LUCID_OPTION_CHOICE:
            lua_pushstring(L, lucid_option_choice_name(o, (int)lucid_option_get(o, s, 0)));
            return;
        case LUCID_OPTION_VEC3:
            lua_createtable(L, 3, 0);
            for (int k = 0; k < 3; ++k) {
                lua_pushnumber(L, lucid_option_get(o, s, k));
                lua_rawseti(L, -2, k + 1);
            }
            return;
    }
}

void lucid_lua_push_option_list(lua_State *L, const lucid_option *table, const void *s) {
    lua_newtable(L);
    int i = 0;
    for (const lucid_option *o = table; o->name; ++o) {
        lua_createtable(L, 0, 5);
        lucid_lua_set_string(L, "name", o->name);
        lucid_lua_set_string(L, "type", type_names[o->type]);
        lucid_lua_set_string(L, "range", o->words);
        lucid_lua_set_string(L, "doc", o->doc);
        push_option_value(L, o, s);
        lua_setfield(L, -2, "default");
        lua_rawseti(L, -2, ++i);
    }
}

/* lucid.options(): every option table but the contact one (lucid.contact.options()), by the
 * name of what reads it, each a list as lucid_lua_push_option_list pushes it. */
static int l_options(lua_State *L) {
    lucid_world_options world;
    lucid_world_default_options(&world);
    lucid_gjk_options gjk;
    lucid_gjk_options_default(&gjk);
    lucid_patch_options patch;
    lucid_patch_options_default(&patch);
    lucid_pscaling_options pscaling;
    lucid_pscaling_options_default(&pscaling);
    lucid_step_derivative_options step;
    lucid_step_derivative_default_options(&step);
    lucid_batch_options batch;
    lucid_batch_default_options(&batch);
    lucid_derivative_options estimator;
    lucid_derivative_options_default(&estimator);
    lucid_decompose_options decompose = lucid_decompose_default_options();
    lucid_contact_derivative_options contact_derivatives =
        lucid_contact_derivative_default_options(LUCID_CONTACT_NCP);
    lucid_grasp_options grasp;
    lucid_grasp_options_default(&grasp);
    const struct {
        const char *key;
        const lucid_option *table;
        const void *defaults;
    } lists[] = {
        {"world", lucid_world_option_table, &world},
        {"single_level", lucid_single_level_option_table, &world.single_level},
        {"distance", lucid_gjk_option_table, &gjk},
        {"distance_derivatives", lucid_derivative_option_table, &estimator},
        {"contact_derivatives", lucid_contact_derivative_option_table, &contact_derivatives},
        {"mesh_decompose", lucid_decompose_option_table, &decompose},
        {"grasp", lucid_grasp_option_table, &grasp},
        {"contact_patch", lucid_patch_option_table, &patch},
        {"pscaling", lucid_pscaling_option_table, &pscaling},
        {"step_derivatives", lucid_step_derivative_option_table, &step},
        {"batch", lucid_batch_option_table, &batch},
    };
    size_t count = sizeof lists / sizeof lists[0];
    lua_createtable(L, 0, (int)count);
    for (size_t k = 0; k < count; ++k) {
        lucid_lua_push_option_list(L, lists[k].table, lists[k].defaults);
        lua_setfield(L, -2, lists[k].key);
    }
    return 1;
}

void lucid_open_options(lua_State *L) {
    lua_pushcfunction(L, l_options);
    lua_setfield(L, -2, "options");
}

/* ---- the contact options ----------------------------------------------------------------- */

const lucid_lua_contact_key lucid_lua_contact_keys[] = {
    {"model", LUCID_LUA_CONTACT_MODEL},
    {"solver", LUCID_LUA_CONTACT_SOLVER},
    {"tol", LUCID_LUA_CONTACT_TOL},
    {"max_iter", LUCID_LUA_CONTACT_MAX_ITER},
    {"warm_start", LUCID_LUA_CONTACT_WARM_START},
    {"relaxation", LUCID_LUA_CONTACT_RELAXATION},
    {"alpha", LUCID_LUA_CONTACT_ALPHA},
    {"rho", LUCID_LUA_CONTACT_RHO},
    {"stall_tol", LUCID_LUA_CONTACT_STALL_TOL},
    {"inner_max_iter", LUCID_LUA_CONTACT_INNER_MAX_ITER},
    {"compliance", LUCID_LUA_CONTACT_COMPLIANCE},
    {"kappa", LUCID_LUA_CONTACT_KAPPA},
    {"polish", LUCID_LUA_CONTACT_POLISH},
    {NULL, 0},
};

/* The bit of a key of lucid_contact_option_table, 0 for its C-only fields. */
static unsigned key_bit(const char *name) {
    for (const lucid_lua_contact_key *k = lucid_lua_contact_keys; k->name; ++k)
        if (strcmp(k->name, name) == 0) return k->bit;
    return 0;
}

static lucid_contact_solver default_solver(lucid_contact_model model) {
    switch (model) {
        case LUCID_CONTACT_LCP:
            return LUCID_CONTACT_PGS;
        case LUCID_CONTACT_RAISIM:
            return LUCID_CONTACT_BISECTION;
        case LUCID_CONTACT_CCP:
        case LUCID_CONTACT_NCP:
            break;
    }
    return LUCID_CONTACT_ADMM;
}

/* The names of the keys accepted, NULL-terminated in out (room for 32). */
static void accepted_names(unsigned keys, const char *const *extra, const char **out) {
    size_t n = 0;
    for (const char *const *e = extra; e && *e && n < 31; ++e) out[n++] = *e;
    for (const lucid_lua_contact_key *k = lucid_lua_contact_keys; k->name && n < 31; ++k)
        if (keys & k->bit) out[n++] = k->name;
    out[n] = NULL;
}

/* The model and the solver (the model's default when absent), and their pair. noun: the
 * prefix as a word ("contact." -> "contact "). */
static void read_model_solver(const lucid_lua_fields *f, unsigned keys, const char *noun,
                              lucid_contact_options *o, unsigned *present) {
    lua_State *L = f->L;
    if ((keys & LUCID_LUA_CONTACT_MODEL) && lucid_lua_field(L, f->idx, "model")) {
        if (lua_type(L, -1) != LUA_TSTRING ||
            lucid_contact_model_parse(lua_tostring(L, -1), &o->model) != LUCID_OK)
            lucid_lua_fail(L, f->fname, "unknown %smodel '%s' (expected lcp, ccp, raisim or ncp)",
                           noun, luaL_tolstring(L, -1, NULL));
        lua_pop(L, 1);
        *present |= LUCID_LUA_CONTACT_MODEL;
    }
    if (!(keys & LUCID_LUA_CONTACT_SOLVER)) return;
    if (lucid_lua_field(L, f->idx, "solver")) {
        if (lua_type(L, -1) != LUA_TSTRING ||
            lucid_contact_solver_parse(lua_tostring(L, -1), &o->solver) != LUCID_OK)
            lucid_lua_fail(L, f->fname,
                           "unknown %ssolver '%s' (expected pgs, admm, newton, staggered, "
                           "bisection or ip)",
                           noun, luaL_tolstring(L, -1, NULL));
        lua_pop(L, 1);
        *present |= LUCID_LUA_CONTACT_SOLVER;
    } else {
        o->solver = default_solver(o->model);
    }
    if (lucid_contact_pair_check(o->model, o->solver) != LUCID_OK)
        lucid_lua_fail(L, f->fname,
                       "invalid %smodel/solver pair %s:%s (valid: lcp:pgs, ccp:pgs, ccp:admm, "
                       "ccp:newton, ccp:ip, raisim:bisection, ncp:pgs, ncp:staggered, ncp:admm, "
                       "ncp:ip)",
                       noun, lucid_contact_model_name(o->model),
                       lucid_contact_solver_name(o->solver));
}

unsigned lucid_lua_read_contact_options(lua_State *L, int idx, const char *fname,
                                        const char *prefix, unsigned keys, const char *const *extra,
                                        lucid_contact_options *o) {
    const char *names[32];
    accepted_names(keys, extra, names);
    lucid_lua_fields f = lucid_lua_fields_at(L, idx, fname, prefix);
    lucid_lua_check_option_names_prefixed(L, f.idx, names, fname, f.prefix);
    char noun[96];
    snprintf(noun, sizeof noun, "%s", f.prefix);
    size_t len = strlen(noun);
    if (len > 0 && noun[len - 1] == '.') noun[len - 1] = ' ';
    unsigned present = 0;
    read_model_solver(&f, keys, noun, o, &present);
    for (const lucid_option *opt = lucid_contact_option_table; opt->name; ++opt) {
        unsigned bit = key_bit(opt->name);
        if (!(keys & bit) || opt->type == LUCID_OPTION_CHOICE) continue;
        if (!lucid_lua_field(L, f.idx, opt->name)) continue;
        read_option(&f, opt, o);
        present |= bit;
    }
    return present;
}

int lucid_lua_contact_option_list(lua_State *L) {
    lucid_world_options world;
    lucid_world_default_options(&world);
    lucid_contact_options solve = lucid_contact_default_options();
    lua_newtable(L); /* the defaults each binding reads from {} */
    int empty = lua_gettop(L);
    lucid_lua_read_contact_options(L, empty, "lucid.contact.options", "",
                                   LUCID_LUA_CONTACT_WORLD_KEYS, NULL, &world.contact);
    lucid_lua_read_contact_options(L, empty, "lucid.contact.options", "",
                                   LUCID_LUA_CONTACT_SOLVE_KEYS, NULL, &solve);
    lua_newtable(L);
    int i = 0;
    for (const lucid_option *opt = lucid_contact_option_table; opt->name; ++opt) {
        unsigned bit = key_bit(opt->name);
        if (!bit) continue;
        lua_createtable(L, 0, 6);
        lucid_lua_set_string(L, "name", opt->name);
        lucid_lua_set_string(L, "type", type_names[opt->type]);
        if ((opt->type == LUCID_OPTION_NUMBER || opt->type == LUCID_OPTION_INTEGER) &&
            (!isinf(opt->range.lo) || !isinf(opt->range.hi))) {
            lucid_lua_set_string(L, "range", opt->words);
        }
        lucid_lua_set_string(L, "doc", opt->doc);
        if (bit & LUCID_LUA_CONTACT_WORLD_KEYS) {
            push_option_value(L, opt, &world.contact);
            lua_setfield(L, -2, "world");
        }
        if (bit & LUCID_LUA_CONTACT_SOLVE_KEYS) {
            push_option_value(L, opt, &solve);
            lua_setfield(L, -2, "solve");
        }
        lua_rawseti(L, -2, ++i);
    }
    return 1;
}
