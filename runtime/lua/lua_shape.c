/* Lua bindings of shapes: lucid.sphere, ..., lucid.convex, lucid.load_mesh and the
 * "lucid.shape" methods (support, aabb, kind, vertices, neighbors). */
#include "runtime/lua/lua_shape.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_se3.h"
#include "runtime/lua/modules.h"
#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/heightfield.h"
#include "runtime/shapes/mesh_file.h"

struct lucid_lua_mesh_ref {
    size_t count;              /* the shape's reference (until its __gc) + the holders' */
    lucid_convex_mesh *mesh;   /* owned (a convex shape's) */
    lucid_heightfield *hfield; /* owned (a height field's) */
};

typedef struct shape_userdata {
    lucid_shape shape;
    lucid_lua_mesh_ref *ref; /* the shape's reference to its mesh; NULL for primitives */
    int finalized;           /* __gc has run: the shape is unusable from Lua */
} shape_userdata;

/* A new shape userdata on the stack, owning nothing yet (safe to collect at any point). */
static shape_userdata *push_shape(lua_State *L) {
    shape_userdata *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->shape.kind = LUCID_SHAPE_SPHERE;
    u->shape.radius = 1.0;
    u->ref = NULL;
    u->finalized = 0;
    luaL_setmetatable(L, LUCID_SHAPE_METATABLE);
    return u;
}

/* A convex mesh or height field still has its data. */
static int owns_data(const shape_userdata *u) {
    if (u->shape.kind == LUCID_SHAPE_CONVEX) return u->ref && u->ref->mesh;
    if (u->shape.kind == LUCID_SHAPE_HEIGHTFIELD) return u->ref && u->ref->hfield;
    return 1;
}

static shape_userdata *check_userdata(lua_State *L, int idx, const char *fname, const char *what) {
    shape_userdata *u = luaL_testudata(L, idx, LUCID_SHAPE_METATABLE);
    if (u == NULL)
        lucid_lua_fail(L, fname, "%s must be a lucid shape (got %s)", what,
                       lucid_lua_typename(L, idx));
    if (u->finalized || !owns_data(u)) lucid_lua_fail(L, fname, "%s is a finalized shape", what);
    return u;
}

void lucid_lua_mesh_release(lucid_lua_mesh_ref *ref) {
    if (ref == NULL || --ref->count > 0) return;
    lucid_convex_mesh_destroy(ref->mesh);
    lucid_heightfield_destroy(ref->hfield);
    free(ref);
}

lucid_lua_mesh_ref *lucid_lua_shape_retain(lua_State *L, int idx) {
    shape_userdata *u = luaL_testudata(L, idx, LUCID_SHAPE_METATABLE);
    if (u == NULL || u->finalized || u->ref == NULL) return NULL;
    ++u->ref->count;
    return u->ref;
}

const lucid_shape *lucid_lua_checkshape(lua_State *L, int idx, const char *fname,
                                        const char *what) {
    return &check_userdata(L, idx, fname, what)->shape;
}

const lucid_shape *lucid_lua_checkconvex(lua_State *L, int idx, const char *fname,
                                         const char *what) {
    const lucid_shape *s = lucid_lua_checkshape(L, idx, fname, what);
    if (s->kind == LUCID_SHAPE_HEIGHTFIELD)
        lucid_lua_fail(L, fname,
                       "%s is a height field, not convex (a world collides it cell by cell)", what);
    return s;
}

/* A size argument: finite, > 0 and within the representable range (LUCID_GEOMETRY_MAX). */
static double check_size(lua_State *L, int idx, const char *fname, const char *what) {
    double x = lucid_lua_checkpositive(L, idx, fname, what);
    if (!(x <= LUCID_GEOMETRY_MAX))
        lucid_lua_fail(L, fname,
                       "%s must be at most %f (the representable range of geometry), got %f", what,
                       LUCID_GEOMETRY_MAX, x);
    return x;
}

/* Pushes a primitive built by a C constructor, raising FNAME's error on failure. */
static int finish_primitive(lua_State *L, const char *fname, lucid_status st,
                            const lucid_shape *s) {
    if (st != LUCID_OK) return lucid_lua_fail_status(L, fname, st);
    push_shape(L)->shape = *s;
    return 1;
}

static int l_sphere(lua_State *L) {
    const char *fname = "lucid.sphere";
    lucid_shape s;
    double r = check_size(L, 1, fname, "radius");
    return finish_primitive(L, fname, lucid_shape_sphere(r, &s), &s);
}

static int l_ellipsoid(lua_State *L) {
    const char *fname = "lucid.ellipsoid";
    lucid_shape s;
    double rx = check_size(L, 1, fname, "rx");
    double ry = check_size(L, 2, fname, "ry");
    double rz = check_size(L, 3, fname, "rz");
    return finish_primitive(L, fname, lucid_shape_ellipsoid(rx, ry, rz, &s), &s);
}

static int l_box(lua_State *L) {
    const char *fname = "lucid.box";
    lucid_shape s;
    double hx = check_size(L, 1, fname, "hx");
    double hy = check_size(L, 2, fname, "hy");
    double hz = check_size(L, 3, fname, "hz");
    return finish_primitive(L, fname, lucid_shape_box(hx, hy, hz, &s), &s);
}

/* A capsule, cylinder or cone from (radius, half-length). */
static int radius_length_shape(lua_State *L, const char *fname,
                               lucid_status (*make)(double, double, lucid_shape *)) {
    lucid_shape s;
    double r = check_size(L, 1, fname, "radius");
    double h = check_size(L, 2, fname, "half-length");
    return finish_primitive(L, fname, make(r, h, &s), &s);
}

static int l_capsule(lua_State *L) {
    return radius_length_shape(L, "lucid.capsule", lucid_shape_capsule);
}

static int l_cylinder(lua_State *L) {
    return radius_length_shape(L, "lucid.cylinder", lucid_shape_cylinder);
}

static int l_cone(lua_State *L) {
    return radius_length_shape(L, "lucid.cone", lucid_shape_cone);
}

static int l_halfspace(lua_State *L) {
    const char *fname = "lucid.halfspace";
    lucid_shape s;
    lucid_vec3 n = lucid_lua_checkvec3(L, 1, fname, "normal");
    double offset = lucid_lua_checkfinite(L, 2, fname, "offset");
    lucid_status st = lucid_shape_halfspace(n, offset, &s);
    if (st == LUCID_ERR_ARGUMENT && !(lucid_vec3_max_abs(n) >= DBL_MIN))
        return lucid_lua_fail(L, fname,
                              "normal must be nonzero and not subnormal (largest |component| "
                              ">= %f), got {%f, %f, %f}",
                              DBL_MIN, n.x, n.y, n.z);
    if (st == LUCID_ERR_ARGUMENT)
        return lucid_lua_fail(L, fname,
                              "offset / |normal| must be within +-%f (the representable range "
                              "of geometry)",
                              LUCID_GEOMETRY_MAX);
    return finish_primitive(L, fname, st, &s);
}

/* ---- convex meshes ---------------------------------------------------------------------- */

/* Points from a 3xN lucid.mat (used in place) or a list of 3-vectors / {x, y, z} tables
 * (copied into a buffer owned by a userdata pushed on the stack). */
static const double *check_points(lua_State *L, int idx, const char *fname, int *n) {
    lucid_lua_matrix *m = lucid_lua_tomatrix(L, idx);
    if (m != NULL) {
        if (m->rows != 3 || m->is_vector)
            lucid_lua_fail(L, fname, "points must be a 3xN matrix (got %dx%d)", m->rows, m->cols);
        *n = m->cols;
        return m->data;
    }
    if (!lua_istable(L, idx))
        lucid_lua_fail(L, fname, "points must be a 3xN lucid.mat or a list of {x, y, z} (got %s)",
                       lucid_lua_typename(L, idx));
    lua_Integer count = luaL_len(L, idx);
    if (count > (1 << 26)) lucid_lua_fail(L, fname, "too many points (%I)", count);
    *n = (int)count;
    double *buf = lua_newuserdatauv(L, sizeof(double) * 3 * (size_t)(count > 0 ? count : 1), 0);
    for (int i = 0; i < *n; ++i) {
        char what[32];
        snprintf(what, sizeof what, "point %d", i + 1);
        lua_geti(L, idx, i + 1);
        lucid_lua_checkvalues(L, -1, 3, buf + 3 * i, fname, what);
        lua_pop(L, 1);
    }
    return buf;
}

static void fail_mesh(lua_State *L, const char *fname, lucid_status st, const char *err) {
    if (err[0] != '\0') lucid_lua_fail(L, fname, "%s", err);
    lucid_lua_fail_status(L, fname, st);
}

/* The shape userdata is pushed first, then its (empty) mesh reference, and the mesh is
 * created straight into it, so an error raised afterwards cannot leak the mesh. */
static void new_mesh_ref(lua_State *L, shape_userdata *u, const char *fname) {
    u->ref = malloc(sizeof *u->ref);
    if (u->ref == NULL) lucid_lua_fail_status(L, fname, LUCID_ERR_NO_MEMORY);
    u->ref->count = 1;
    u->ref->mesh = NULL;
    u->ref->hfield = NULL;
}

static void attach_mesh(lua_State *L, shape_userdata *u, const char *fname) {
    lucid_status st = lucid_shape_convex(u->ref->mesh, &u->shape);
    if (st == LUCID_ERR_ARGUMENT)
        lucid_lua_fail(L, fname,
                       "vertex coordinates must be within +-%f (the representable range of "
                       "geometry)",
                       LUCID_GEOMETRY_MAX);
    if (st != LUCID_OK) lucid_lua_fail_status(L, fname, st);
}

static int l_convex(lua_State *L) {
    const char *fname = "lucid.convex";
    lua_settop(L, 1);
    shape_userdata *u = push_shape(L);
    new_mesh_ref(L, u, fname);
    int n;
    const double *points = check_points(L, 1, fname, &n);
    char err[256];
    lucid_status st = lucid_convex_mesh_create_msg(points, n, &u->ref->mesh, err, sizeof err);
    if (st != LUCID_OK) fail_mesh(L, fname, st, err);
    attach_mesh(L, u, fname);
    lua_settop(L, 2); /* the shape */
    return 1;
}

/* A copy of a shape another owner holds (a model's geom): primitives by value, a convex mesh
 * as a new hull of its vertices (the same hull, owned by the new shape). */
void lucid_lua_push_shape_copy(lua_State *L, const lucid_shape *s, const char *fname) {
    if (s->kind == LUCID_SHAPE_HEIGHTFIELD) {
        shape_userdata *u = push_shape(L);
        new_mesh_ref(L, u, fname);
        lucid_status st = lucid_heightfield_copy(s->u.hfield, &u->ref->hfield);
        if (st == LUCID_OK) st = lucid_shape_heightfield(u->ref->hfield, &u->shape);
        if (st != LUCID_OK) lucid_lua_fail_status(L, fname, st);
        return;
    }
    if (s->kind != LUCID_SHAPE_CONVEX) {
        push_shape(L)->shape = *s;
        return;
    }
    const lucid_convex_mesh *mesh = s->u.mesh;
    int n = mesh->num_vertices;
    double *points = lua_newuserdatauv(L, sizeof(double) * 3 * (size_t)n, 0);
    for (int i = 0; i < n; ++i) {
        points[3 * i] = mesh->vertices[i].x;
        points[3 * i + 1] = mesh->vertices[i].y;
        points[3 * i + 2] = mesh->vertices[i].z;
    }
    lucid_lua_push_convex(L, points, n, fname);
    lua_remove(L, -2); /* the points */
}

void lucid_lua_push_convex(lua_State *L, const double *points, int n, const char *fname) {
    shape_userdata *u = push_shape(L);
    new_mesh_ref(L, u, fname);
    char err[256];
    lucid_status st = lucid_convex_mesh_create_msg(points, n, &u->ref->mesh, err, sizeof err);
    if (st != LUCID_OK) fail_mesh(L, fname, st, err);
    attach_mesh(L, u, fname);
}

static double option_scale(lua_State *L, int idx, const char *fname) {
    static const char *const keys[] = {"scale", NULL};
    if (lua_isnoneornil(L, idx)) return 1.0;
    if (!lua_istable(L, idx))
        lucid_lua_fail(L, fname, "options must be a table (got %s)", lucid_lua_typename(L, idx));
    lucid_lua_check_option_names(L, idx, keys, fname);
    lua_getfield(L, idx, "scale");
    double scale = lua_isnil(L, -1) ? 1.0 : lucid_lua_checkpositive(L, -1, fname, "scale");
    lua_pop(L, 1);
    return scale;
}

static int l_load_mesh(lua_State *L) {
    const char *fname = "lucid.load_mesh";
    lua_settop(L, 2);
    if (lua_type(L, 1) != LUA_TSTRING)
        lucid_lua_fail(L, fname, "path must be a string (got %s)", lucid_lua_typename(L, 1));
    const char *path = lua_tostring(L, 1);
    double scale = option_scale(L, 2, fname);
    shape_userdata *u = push_shape(L);
    new_mesh_ref(L, u, fname);
    char err[512];
    lucid_status st = lucid_mesh_file_load_hull(path, scale, &u->ref->mesh, err, sizeof err);
    if (st != LUCID_OK) fail_mesh(L, fname, st, err);
    attach_mesh(L, u, fname);
    return 1;
}

/* ---- height fields ---------------------------------------------------------------------- */

/* The elevations of opts.elevation (an nrow x ncol lucid.mat or a list of nrow rows of ncol
 * numbers), row-major, in a buffer owned by a userdata pushed on the stack. */
static const double *check_elevation(lua_State *L, int idx, const char *fname, int *nrow,
                                     int *ncol) {
    lucid_lua_matrix *m = lucid_lua_tomatrix(L, idx);
    if (m == NULL && !lua_istable(L, idx))
        lucid_lua_fail(L, fname,
                       "elevation must be a lucid.mat or a list of rows of numbers (got %s)",
                       lucid_lua_typename(L, idx));
    lua_Integer rows = m ? m->rows : luaL_len(L, idx), cols = 0;
    if (m)
        cols = m->cols;
    else if (rows > 0) {
        lua_geti(L, idx, 1);
        if (!lua_istable(L, -1))
            lucid_lua_fail(L, fname, "elevation row 1 must be a list of numbers (got %s)",
                           lucid_lua_typename(L, -1));
        cols = luaL_len(L, -1);
        lua_pop(L, 1);
    }
    if (rows < 2 || cols < 2)
        lucid_lua_fail(L, fname, "elevation must have at least 2 x 2 samples (got %I x %I)", rows,
                       cols);
    if (rows > INT_MAX / cols)
        lucid_lua_fail(L, fname, "elevation has too many samples (%I x %I)", rows, cols);
    *nrow = (int)rows, *ncol = (int)cols;
    double *e = lua_newuserdatauv(L, sizeof(double) * (size_t)rows * (size_t)cols, 0);
    for (int r = 0; r < *nrow; ++r) {
        if (!m) {
            lua_geti(L, idx, r + 1);
            if (!lua_istable(L, -1) || luaL_len(L, -1) != cols)
                lucid_lua_fail(L, fname, "elevation row %d must be a list of %I numbers", r + 1,
                               cols);
        }
        for (int c = 0; c < *ncol; ++c) {
            double v;
            if (m) {
                v = m->data[r + m->rows * c];
            } else {
                lua_geti(L, -1, c + 1);
                int ok;
                v = lua_tonumberx(L, -1, &ok);
                if (!ok)
                    lucid_lua_fail(L, fname, "elevation[%d][%d] must be a number (got %s)", r + 1,
                                   c + 1, lucid_lua_typename(L, -1));
                lua_pop(L, 1);
            }
            if (!isfinite(v))
                lucid_lua_fail(L, fname, "elevation[%d][%d] must be finite (got %f)", r + 1, c + 1,
                               v);
            e[(size_t)r * (size_t)cols + (size_t)c] = v;
        }
        if (!m) lua_pop(L, 1);
    }
    return e;
}

/* lucid.heightfield{elevation = ..., size = {x, y, elevation scale, base depth}}. */
static int l_heightfield(lua_State *L) {
    static const char *const keys[] = {"elevation", "size", NULL};
    const char *fname = "lucid.heightfield";
    lua_settop(L, 1);
    if (!lua_istable(L, 1))
        lucid_lua_fail(L, fname, "argument must be a table {elevation = ..., size = ...} (got %s)",
                       lucid_lua_typename(L, 1));
    lucid_lua_check_option_names(L, 1, keys, fname);
    lua_getfield(L, 1, "size"); /* 2 */
    if (lua_isnil(L, 2)) lucid_lua_fail(L, fname, "size is required");
    double size[4];
    lucid_lua_checkvalues(L, 2, 4, size, fname, "size");
    static const char *const names[4] = {"size[1] (x half-extent)", "size[2] (y half-extent)",
                                         "size[3] (elevation scale)", "size[4] (base depth)"};
    for (int k = 0; k < 4; ++k)
        if (!(size[k] > 0.0 && size[k] <= LUCID_GEOMETRY_MAX))
            lucid_lua_fail(L, fname, "%s must be > 0 and at most %f, got %f", names[k],
                           LUCID_GEOMETRY_MAX, size[k]);
    lua_getfield(L, 1, "elevation"); /* 3 */
    if (lua_isnil(L, 3)) lucid_lua_fail(L, fname, "elevation is required");
    int nrow, ncol;
    const double *e = check_elevation(L, 3, fname, &nrow, &ncol); /* 4 */
    shape_userdata *u = push_shape(L);
    new_mesh_ref(L, u, fname);
    lucid_status st = lucid_heightfield_create(nrow, ncol, e, size, &u->ref->hfield);
    if (st == LUCID_OK) st = lucid_shape_heightfield(u->ref->hfield, &u->shape);
    if (st != LUCID_OK) lucid_lua_fail_status(L, fname, st);
    return 1;
}

/* ---- methods ------------------------------------------------------------------------------ */

/* Safe to call twice, and on a shape a world still uses (the world holds a reference). */
static int l_gc(lua_State *L) {
    shape_userdata *u = luaL_testudata(L, 1, LUCID_SHAPE_METATABLE);
    if (u != NULL && !u->finalized) {
        u->finalized = 1;
        lucid_lua_mesh_release(u->ref);
        u->ref = NULL;
    }
    return 0;
}

static int l_support(lua_State *L) {
    const char *fname = "lucid.shape:support";
    const lucid_shape *s = lucid_lua_checkshape(L, 1, fname, "self");
    lucid_vec3 d = lucid_lua_checkvec3(L, 2, fname, "dir");
    if (s->kind == LUCID_SHAPE_HALFSPACE)
        return lucid_lua_fail(L, fname, "a halfspace is unbounded and has no support");
    int hint = -1;
    lucid_lua_pushvec3(L, lucid_shape_support(s, d, &hint));
    return 1;
}

static int l_aabb(lua_State *L) {
    const char *fname = "lucid.shape:aabb";
    const lucid_shape *s = lucid_lua_checkshape(L, 1, fname, "self");
    lucid_se3 identity = lucid_se3_identity();
    const lucid_se3 *T = lua_isnoneornil(L, 2) ? &identity : lucid_lua_checkpose(L, 2, fname, "T");
    lucid_vec3 lo, hi;
    lucid_shape_aabb(s, T, &lo, &hi);
    lucid_lua_pushvec3(L, lo);
    lucid_lua_pushvec3(L, hi);
    return 2;
}

static int l_kind(lua_State *L) {
    const lucid_shape *s = lucid_lua_checkshape(L, 1, "lucid.shape:kind", "self");
    lua_pushstring(L, lucid_shape_kind_name(s->kind));
    return 1;
}

static int l_vertices(lua_State *L) {
    const char *fname = "lucid.shape:vertices";
    const lucid_shape *s = lucid_lua_checkshape(L, 1, fname, "self");
    if (s->kind == LUCID_SHAPE_CONVEX) {
        const lucid_convex_mesh *m = s->u.mesh;
        lucid_lua_pushmatrix_data(L, (const double *)m->vertices, 3, m->num_vertices);
        return 1;
    }
    if (s->kind != LUCID_SHAPE_BOX)
        return lucid_lua_fail(L, fname, "a %s has no vertices (only convex meshes and boxes)",
                              lucid_shape_kind_name(s->kind));
    /* Corner k has the sign of bit j of k on axis j (bit set: +). */
    lucid_lua_matrix *out = lucid_lua_newmatrix(L, 3, 8);
    for (int k = 0; k < 8; ++k)
        for (int j = 0; j < 3; ++j) {
            double h = lucid_vec3_get(s->u.half_extents, j);
            out->data[3 * k + j] = (k >> j) & 1 ? h : -h;
        }
    return 1;
}

static const lucid_convex_mesh *check_mesh(lua_State *L, const char *fname) {
    const lucid_shape *s = lucid_lua_checkshape(L, 1, fname, "self");
    if (s->kind != LUCID_SHAPE_CONVEX)
        lucid_lua_fail(L, fname, "only convex meshes have an adjacency (got a %s)",
                       lucid_shape_kind_name(s->kind));
    return s->u.mesh;
}

/* s:neighbors(i): the 1-based indices of the hull vertices sharing an edge with vertex i. */
static int l_neighbors(lua_State *L) {
    const char *fname = "lucid.shape:neighbors";
    const lucid_convex_mesh *m = check_mesh(L, fname);
    int i = (int)lucid_lua_checkinteger_range(L, 2, 1, m->num_vertices, fname, "i") - 1;
    int begin = m->neighbor_offsets[i], end = m->neighbor_offsets[i + 1];
    lua_createtable(L, end - begin, 0);
    for (int k = begin; k < end; ++k) {
        lua_pushinteger(L, m->neighbors[k] + 1);
        lua_rawseti(L, -2, k - begin + 1);
    }
    return 1;
}

/* s:faces(): a list of faces {vertices = {i1, i2, ...} (1-based, counter-clockwise from
 * outside), normal = vec (unit, outward), offset = d} with the face on normal . x = d. */
static int l_faces(lua_State *L) {
    const lucid_convex_mesh *m = check_mesh(L, "lucid.shape:faces");
    lua_createtable(L, m->num_faces, 0);
    for (int f = 0; f < m->num_faces; ++f) {
        lua_createtable(L, 0, 3);
        int begin = m->face_offsets[f], end = m->face_offsets[f + 1];
        lua_createtable(L, end - begin, 0);
        for (int k = begin; k < end; ++k) {
            lua_pushinteger(L, m->face_vertices[k] + 1);
            lua_rawseti(L, -2, k - begin + 1);
        }
        lua_setfield(L, -2, "vertices");
        lucid_lua_set_vec3(L, "normal", m->face_normals[f]);
        lucid_lua_set_number(L, "offset", m->face_offsets_d[f]);
        lua_rawseti(L, -2, f + 1);
    }
    return 1;
}

static int l_tostring(lua_State *L) {
    const lucid_shape *s = lucid_lua_checkshape(L, 1, "lucid.shape:__tostring", "self");
    if (s->kind == LUCID_SHAPE_CONVEX)
        lua_pushfstring(L, "lucid.shape(convex, %d vertices)", s->u.mesh->num_vertices);
    else if (s->kind == LUCID_SHAPE_HEIGHTFIELD)
        lua_pushfstring(L, "lucid.shape(heightfield, %d x %d samples)", s->u.hfield->nrow,
                        s->u.hfield->ncol);
    else
        lua_pushfstring(L, "lucid.shape(%s)", lucid_shape_kind_name(s->kind));
    return 1;
}

void lucid_open_shapes(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"support", l_support},     {"aabb", l_aabb},   {"kind", l_kind}, {"vertices", l_vertices},
        {"neighbors", l_neighbors}, {"faces", l_faces}, {NULL, NULL}};
    static const luaL_Reg functions[] = {{"sphere", l_sphere},
                                         {"ellipsoid", l_ellipsoid},
                                         {"box", l_box},
                                         {"capsule", l_capsule},
                                         {"cylinder", l_cylinder},
                                         {"cone", l_cone},
                                         {"halfspace", l_halfspace},
                                         {"convex", l_convex},
                                         {"load_mesh", l_load_mesh},
                                         {"heightfield", l_heightfield},
                                         {NULL, NULL}};
    static const luaL_Reg metamethods[] = {
        {"__gc", l_gc}, {"__tostring", l_tostring}, {NULL, NULL}};
    lucid_lua_push_metatable(L, LUCID_SHAPE_METATABLE, metamethods, methods);
    lua_pop(L, 1);
    luaL_setfuncs(L, functions, 0);
}
