/* Recordings from Lua (lua_record.h): frames of a world for lucid.viewer.
 *   rec:stop()    ends the recording (the last step is kept if `every` skipped it); an error
 *                 when it has already stopped
 *   rec:info()    {frames=, objects=, meshes=, heightfields=, contacts=, bytes=, dropped=,
 *                  recording=, every=, max_frames=, max_bytes=, time=}
 *   rec:frame(i)  {time=, poses={se3, ...} (one per object present then),
 *                  contacts={{body1=, body2=, point=, force=}, ...}}, i in 1..#rec
 *   rec:json()    the recording in the "lucid.record/1" JSON format (docs/viewer.md)
 * A recording depends on nothing once made: it copies the shapes (meshes and height fields),
 * so it outlives its world.
 * Memory discipline: the userdata exists (with a __gc) before the C recording is created. */
#include "runtime/lua/lua_record.h"

#include <lauxlib.h>
#include <stdint.h>
#include <string.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_se3.h"
#include "runtime/lua/modules.h"
#include "runtime/world/world_record.h"

struct lucid_lua_record {
    lucid_record *rec;
    lucid_lua_record **slot; /* the world's pointer to this recording while it records */
    const lucid_world *world;
    lua_Integer every, steps; /* steps since the recording began */
    double dt;
    int pending;  /* the last step was not kept (every > 1) */
    int detached; /* the world was finalized while it recorded */
    char error[120];
};

static lucid_lua_record *check_record(lua_State *L, const char *fname) {
    lucid_lua_record *r = luaL_testudata(L, 1, LUCID_RECORD_METATABLE);
    if (!r) lucid_lua_fail(L, fname, "expected a lucid.record as self (use rec:method())");
    if (!r->rec) lucid_lua_fail(L, fname, "the recording has been finalized");
    return r;
}

static void stop(lucid_lua_record *r) {
    if (r->slot) *r->slot = NULL;
    r->slot = NULL;
    r->world = NULL;
}

static int record_gc(lua_State *L) {
    lucid_lua_record *r = luaL_testudata(L, 1, LUCID_RECORD_METATABLE);
    if (!r) return 0;
    stop(r);
    lucid_record_destroy(r->rec);
    r->rec = NULL;
    return 0;
}

static void capture(lucid_lua_record *r, const lucid_world *w) {
    const char *why = NULL;
    lucid_status s = lucid_record_world(r->rec, w, (double)r->steps * r->dt, NULL, &why);
    r->pending = 0;
    if (s != LUCID_OK && !r->error[0])
        snprintf(r->error, sizeof r->error, "%s", why ? why : lucid_status_string(s));
}

lucid_lua_record *lucid_lua_record_new(lua_State *L, int opts, const lucid_world *w,
                                       lucid_lua_record **slot, const char *fname) {
    static const char *const keys[] = {"every", "max_frames", "max_bytes", NULL};
    opts = lua_absindex(L, opts);
    lucid_record_options o;
    lucid_record_default_options(&o);
    lua_Integer every = 1;
    if (!lua_isnoneornil(L, opts)) {
        if (lua_type(L, opts) != LUA_TTABLE)
            lucid_lua_fail(L, fname, "expected a table of options (got %s)",
                           lucid_lua_typename(L, opts));
        lucid_lua_check_option_names(L, opts, keys, fname);
        if (lua_getfield(L, opts, "every") != LUA_TNIL)
            every = lucid_lua_checkinteger_range(L, -1, 1, 1000000000, fname, "every");
        if (lua_getfield(L, opts, "max_frames") != LUA_TNIL)
            o.max_frames =
                (size_t)lucid_lua_checkinteger_range(L, -1, 1, INT64_MAX, fname, "max_frames");
        if (lua_getfield(L, opts, "max_bytes") != LUA_TNIL)
            o.max_bytes =
                (size_t)lucid_lua_checkinteger_range(L, -1, 4096, INT64_MAX, fname, "max_bytes");
        lua_pop(L, 3);
    }
    lucid_lua_record *r = lua_newuserdatauv(L, sizeof *r, 0);
    memset(r, 0, sizeof *r);
    luaL_setmetatable(L, LUCID_RECORD_METATABLE);
    const char *why = NULL;
    lucid_status s = lucid_record_create(&o, &r->rec, &why);
    if (s != LUCID_OK) {
        if (why) lucid_lua_fail(L, fname, "%s", why);
        lucid_lua_fail_status(L, fname, s);
    }
    r->every = every;
    r->dt = lucid_world_get_options(w)->dt;
    capture(r, w);
    if (r->error[0]) lucid_lua_fail(L, fname, "%s", r->error);
    r->world = w;
    r->slot = slot;
    *slot = r;
    return r;
}

void lucid_lua_record_after_step(lucid_lua_record *r, const lucid_world *w) {
    r->steps++;
    if (r->steps % r->every == 0)
        capture(r, w);
    else
        r->pending = 1;
}

void lucid_lua_record_detach(lucid_lua_record *r) {
    if (r->slot) r->detached = 1;
    stop(r);
}

static int l_stop(lua_State *L) {
    static const char *const fname = "lucid.record:stop";
    lucid_lua_record *r = check_record(L, fname);
    if (!r->slot)
        lucid_lua_fail(L, fname, "the recording has already stopped%s",
                       r->detached ? " (its world was finalized)" : "");
    if (r->pending && r->world) capture(r, r->world);
    stop(r);
    lua_settop(L, 1);
    return 1;
}

static int l_info(lua_State *L) {
    lucid_lua_record *r = check_record(L, "lucid.record:info");
    const lucid_record_options *o = lucid_record_get_options(r->rec);
    lua_createtable(L, 0, 13);
    lucid_lua_set_integer(L, "frames", (lua_Integer)lucid_record_frame_count(r->rec));
    lucid_lua_set_integer(L, "objects", lucid_record_object_count(r->rec));
    lucid_lua_set_integer(L, "meshes", lucid_record_mesh_count(r->rec));
    lucid_lua_set_integer(L, "heightfields", lucid_record_heightfield_count(r->rec));
    lucid_lua_set_integer(L, "contacts", (lua_Integer)lucid_record_contact_total(r->rec));
    lucid_lua_set_integer(L, "bytes", (lua_Integer)lucid_record_bytes(r->rec));
    lucid_lua_set_integer(L, "dropped", (lua_Integer)lucid_record_dropped(r->rec));
    lucid_lua_set_integer(L, "every", r->every);
    lucid_lua_set_integer(L, "max_frames", (lua_Integer)o->max_frames);
    lucid_lua_set_integer(L, "max_bytes", (lua_Integer)o->max_bytes);
    lucid_lua_set_boolean(L, "recording", r->slot != NULL);
    lucid_lua_set_number(L, "time", (double)r->steps * r->dt);
    if (r->error[0]) {
        lucid_lua_set_string(L, "error", r->error);
    }
    return 1;
}

static int l_frame(lua_State *L) {
    static const char *const fname = "lucid.record:frame";
    lucid_lua_record *r = check_record(L, fname);
    size_t count = lucid_record_frame_count(r->rec);
    if (count == 0) lucid_lua_fail(L, fname, "the recording has no frames");
    lua_Integer i = lucid_lua_checkinteger_range(L, 2, 1, (lua_Integer)count, fname, "frame");
    lucid_record_frame f;
    lucid_record_frame_at(r->rec, (size_t)(i - 1), &f);
    lua_createtable(L, 0, 3);
    lucid_lua_set_number(L, "time", f.time);
    lua_createtable(L, f.num_objects, 0);
    for (int k = 0; k < f.num_objects; ++k) {
        lucid_se3 T;
        lucid_se3_from_quat(f.poses[k].q, f.poses[k].t, &T);
        lucid_lua_pushse3(L, &T);
        lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, -2, "poses");
    lua_createtable(L, f.num_contacts, 0);
    for (int k = 0; k < f.num_contacts; ++k) {
        const lucid_record_contact *c = &f.contacts[k];
        lua_createtable(L, 0, 4);
        lucid_lua_set_integer(L, "body1", c->object1 + 1);
        lucid_lua_set_integer(L, "body2", c->object2 + 1);
        lucid_lua_set_vec3(L, "point", c->point);
        lucid_lua_set_vec3(L, "force", c->force);
        lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, -2, "contacts");
    return 1;
}

static int add_to_buffer(void *ctx, const char *text, size_t size) {
    luaL_addlstring((luaL_Buffer *)ctx, text, size);
    return 0;
}

static int l_json(lua_State *L) {
    lucid_lua_record *r = check_record(L, "lucid.record:json");
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    lucid_status s = lucid_record_write_json(r->rec, add_to_buffer, &b);
    if (s != LUCID_OK) lucid_lua_fail_status(L, "lucid.record:json", s);
    luaL_pushresult(&b);
    return 1;
}

static int l_len(lua_State *L) {
    lucid_lua_record *r = check_record(L, "lucid.record:__len");
    lua_pushinteger(L, (lua_Integer)lucid_record_frame_count(r->rec));
    return 1;
}

static int l_tostring(lua_State *L) {
    lucid_lua_record *r = luaL_testudata(L, 1, LUCID_RECORD_METATABLE);
    if (!r)
        lucid_lua_fail(L, "lucid.record:__tostring", "self must be a lucid.record (got %s)",
                       lucid_lua_typename(L, 1));
    if (!r->rec)
        lua_pushliteral(L, "lucid.record (finalized)");
    else
        lua_pushfstring(L, "lucid.record (%I frames, %d objects%s)",
                        (lua_Integer)lucid_record_frame_count(r->rec),
                        lucid_record_object_count(r->rec), r->slot ? ", recording" : "");
    return 1;
}

void lucid_open_record(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"stop", l_stop}, {"info", l_info}, {"frame", l_frame}, {"json", l_json}, {NULL, NULL}};
    static const luaL_Reg metamethods[] = {
        {"__gc", record_gc}, {"__len", l_len}, {"__tostring", l_tostring}, {NULL, NULL}};
    lucid_lua_push_metatable(L, LUCID_RECORD_METATABLE, metamethods, methods);
    lua_pop(L, 1);
}
