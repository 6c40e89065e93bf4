/* The Lua pose type "lucid.se3" and the lucid.se3 / lucid.so3 modules.
 * Twists are 6-vectors (vx, vy, vz, wx, wy, wz), linear first; Jacobians follow the right
 * perturbation convention T exp(d) documented in runtime/math/se3.h and so3.h.
 *
 * lucid.se3:
 *   identity()                       the identity pose
 *   new(R_or_quat [, t])             R: 3x3 lucid.mat or table of 3 rows, must be a rotation
 *                                    (||R^T R - I||_F <= 1e-6, det > 0; re-orthonormalised);
 *                                    quat: table or lucid.vec {w, x, y, z}, non-zero (normalised);
 *                                    t: lucid.vec or table of 3 (default 0)
 *   exp(xi)                          pose of the twist xi
 *   random(rng [, scale])            uniform rotation, translation uniform in [-scale, scale]^3
 *                                    (scale >= 0, default 1)
 *   jr(xi), jr_inv(xi), jl(xi), jl_inv(xi)   6x6 SE(3) Jacobians (lucid.mat)
 * pose methods: T:log() (6-vec), T:inverse(), T1 * T2, T:act(p) (p a 3-vec, or a 3 x n matrix
 *   of points -> 3 x n), T:rotation() (3x3), T:translation() (3-vec), T:quat() ({w,x,y,z},
 *   w >= 0), T:adjoint() (6x6, T exp(xi) T^-1 = exp(Ad xi)), T:matrix() (4x4 homogeneous),
 *   tostring(T).
 * lucid.so3: exp(w) (3x3), log(R) (3-vec, angle in [0, pi]; R validated as in se3.new),
 *   jr(w), jr_inv(w), jl(w), jl_inv(w), hat(w) (3x3), vee(W) (3-vec of the skew part). */
#include "runtime/lua/lua_se3.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>

#include "runtime/lua/check.h"
#include "runtime/lua/lua_matrix.h"
#include "runtime/lua/lua_rng.h"
#include "runtime/lua/modules.h"
#include "runtime/math/finite.h"
#include "runtime/math/so3.h"
#include "runtime/shapes/shape.h"

/* Largest ||R^T R - I||_F accepted for a user-supplied rotation matrix. */
static const double ROTATION_TOLERANCE = 1e-6;

const lucid_se3 *lucid_lua_tose3(lua_State *L, int idx) {
    return luaL_testudata(L, idx, LUCID_SE3_METATABLE);
}

/* The pose at idx, or a Lua error "FNAME: WHAT must be a lucid.se3 pose (got ...)". */
static const lucid_se3 *checkse3(lua_State *L, int idx, const char *fname, const char *what) {
    const lucid_se3 *T = lucid_lua_tose3(L, idx);
    if (!T)
        lucid_lua_fail(L, fname, "%s must be a lucid.se3 pose (got %s)", what,
                       lucid_lua_typename(L, idx));
    return T;
}

const lucid_se3 *lucid_lua_checkpose(lua_State *L, int idx, const char *fname, const char *what) {
    const lucid_se3 *T = checkse3(L, idx, fname, what);
    double t = lucid_vec3_max_abs(T->t);
    if (!(t <= LUCID_GEOMETRY_MAX))
        lucid_lua_fail(L, fname,
                       "%s translation must be within +-%f (the representable range of geometry), "
                       "got a component of magnitude %f",
                       what, LUCID_GEOMETRY_MAX, t);
    return T;
}

void lucid_lua_pushse3(lua_State *L, const lucid_se3 *T) {
    lucid_se3 *u = lua_newuserdatauv(L, sizeof *u, 0);
    *u = *T;
    luaL_setmetatable(L, LUCID_SE3_METATABLE);
}

/* ---- argument helpers ------------------------------------------------------------------- */

/* A rotation matrix that passes the SO(3) check, re-orthonormalised. */
static lucid_mat3 check_rotation(lua_State *L, int idx, const char *fname, const char *what) {
    lucid_mat3 M = lucid_lua_checkmat3(L, idx, fname, what);
    double err = lucid_so3_orthogonality_error(&M);
    if (!(err <= ROTATION_TOLERANCE))
        lucid_lua_fail(L, fname, "%s is not a rotation matrix (||R^T R - I|| = %f > %f)", what, err,
                       ROTATION_TOLERANCE);
    if (!(lucid_mat3_det(&M) > 0.0))
        lucid_lua_fail(L, fname, "%s is not a rotation matrix (det < 0: a reflection)", what);
    lucid_se3 T;
    lucid_status st = lucid_se3_from_rotation(&M, lucid_vec3_zero(), ROTATION_TOLERANCE, &T);
    if (st != LUCID_OK) lucid_lua_fail_status(L, fname, st);
    return T.R;
}

/* 1 when the value at idx looks like a quaternion (4 entries) rather than a 3x3 matrix. */
static int is_quaternion_like(lua_State *L, int idx) {
    lucid_lua_matrix *m = lucid_lua_tomatrix(L, idx);
    if (m) return m->rows * m->cols == 4 && (m->rows == 1 || m->cols == 1);
    if (lua_type(L, idx) != LUA_TTABLE) return 0;
    /* a flat table of 4 entries (not rows): a wrong entry is then named by the quaternion's
     * own check */
    int first = lua_geti(L, idx, 1);
    lua_pop(L, 1);
    return first != LUA_TTABLE && first != LUA_TUSERDATA && lua_rawlen(L, idx) == 4;
}

static lucid_vec3 opt_translation(lua_State *L, int idx, const char *fname) {
    return lua_isnoneornil(L, idx) ? lucid_vec3_zero()
                                   : lucid_lua_checkvec3(L, idx, fname, "translation t");
}

static void check_twist(lua_State *L, int idx, const char *fname, double xi[6]) {
    lucid_lua_checkvalues(L, idx, 6, xi, fname, "twist xi");
}

static void push_mat6(lua_State *L, const double J[36]) {
    lucid_lua_pushmatrix_data(L, J, 6, 6);
}

/* ---- lucid.se3 functions ---------------------------------------------------------------- */

static int l_identity(lua_State *L) {
    lucid_se3 T = lucid_se3_identity();
    lucid_lua_pushse3(L, &T);
    return 1;
}

static int l_new(lua_State *L) {
    const char *fname = "lucid.se3.new";
    lucid_se3 T;
    if (lua_isnoneornil(L, 1))
        lucid_lua_fail(L, fname,
                       "rotation must be a 3x3 matrix or a quaternion {w, x, y, z} (got %s)",
                       lucid_lua_typename(L, 1));
    if (is_quaternion_like(L, 1)) {
        double q[4];
        lucid_lua_checkvalues(L, 1, 4, q, fname, "quaternion");
        lucid_vec3 t = opt_translation(L, 2, fname);
        lucid_status st = lucid_se3_from_quat(lucid_quat_make(q[0], q[1], q[2], q[3]), t, &T);
        if (st == LUCID_ERR_ARGUMENT)
            lucid_lua_fail(L, fname, "quaternion must be non-zero (got {%f, %f, %f, %f})", q[0],
                           q[1], q[2], q[3]);
        if (st != LUCID_OK) lucid_lua_fail(L, fname, "quaternion %s", lucid_status_string(st));
    } else {
        lucid_mat3 R = check_rotation(L, 1, fname, "rotation R");
        T = lucid_se3_make(R, opt_translation(L, 2, fname));
    }
    lucid_lua_pushse3(L, &T);
    return 1;
}

static int l_exp(lua_State *L) {
    double xi[6];
    check_twist(L, 1, "lucid.se3.exp", xi);
    lucid_se3 T = lucid_se3_exp(xi);
    lucid_lua_pushse3(L, &T);
    return 1;
}

static int l_random(lua_State *L) {
    const char *fname = "lucid.se3.random";
    lucid_rng *rng = lucid_lua_checkrng(L, 1, fname);
    double scale = 1.0;
    if (!lua_isnoneornil(L, 2)) {
        scale = lucid_lua_checkfinite(L, 2, fname, "scale");
        if (scale < 0.0) lucid_lua_fail(L, fname, "scale must be >= 0 (got %f)", scale);
    }
    lucid_se3 T = lucid_se3_random(rng, scale);
    lucid_lua_pushse3(L, &T);
    return 1;
}

typedef void (*se3_jacobian_fn)(const double *, double *);

static int push_se3_jacobian(lua_State *L, const char *fname, se3_jacobian_fn fn) {
    double xi[6], J[36];
    check_twist(L, 1, fname, xi);
    fn(xi, J);
    push_mat6(L, J);
    return 1;
}
static int l_jr(lua_State *L) {
    return push_se3_jacobian(L, "lucid.se3.jr", lucid_se3_jr);
}
static int l_jr_inv(lua_State *L) {
    return push_se3_jacobian(L, "lucid.se3.jr_inv", lucid_se3_jr_inv);
}
static int l_jl(lua_State *L) {
    return push_se3_jacobian(L, "lucid.se3.jl", lucid_se3_jl);
}
static int l_jl_inv(lua_State *L) {
    return push_se3_jacobian(L, "lucid.se3.jl_inv", lucid_se3_jl_inv);
}

/* ---- pose methods ----------------------------------------------------------------------- */

static int m_log(lua_State *L) {
    const lucid_se3 *T = checkse3(L, 1, "lucid.se3:log", "self");
    double xi[6];
    lucid_se3_log(T, xi);
    lucid_lua_pushvalues(L, xi, 6);
    return 1;
}

static int m_inverse(lua_State *L) {
    const lucid_se3 *T = checkse3(L, 1, "lucid.se3:inverse", "self");
    lucid_se3 inv = lucid_se3_inverse(T);
    lucid_lua_pushse3(L, &inv);
    return 1;
}

static int m_mul(lua_State *L) {
    const char *fname = "lucid.se3.__mul";
    const lucid_se3 *A = checkse3(L, 1, fname, "left operand");
    const lucid_se3 *B = checkse3(L, 2, fname, "right operand");
    lucid_se3 AB = lucid_se3_compose(A, B);
    lucid_lua_pushse3(L, &AB);
    return 1;
}

static int m_act(lua_State *L) {
    const char *fname = "lucid.se3:act";
    const lucid_se3 *T = checkse3(L, 1, fname, "self");
    lucid_lua_matrix *m = lucid_lua_tomatrix(L, 2);
    if (m && !m->is_vector && m->rows == 3 && m->cols != 1) { /* 3 x n block of points */
        if (!lucid_all_finite(m->data, 3L * m->cols))
            lucid_lua_fail(L, fname, "points must be finite (has NaN or Inf)");
        lucid_lua_matrix *out = lucid_lua_newmatrix(L, 3, m->cols);
        for (int j = 0; j < m->cols; ++j)
            lucid_vec3_store(lucid_se3_act(T, lucid_vec3_load(m->data + 3 * j)), out->data + 3 * j);
        return 1;
    }
    lucid_vec3 p = lucid_lua_checkvec3(L, 2, fname, "point p");
    lucid_lua_pushvec3(L, lucid_se3_act(T, p));
    return 1;
}

static int m_rotation(lua_State *L) {
    const lucid_se3 *T = checkse3(L, 1, "lucid.se3:rotation", "self");
    lucid_lua_pushmat3(L, &T->R);
    return 1;
}

static int m_translation(lua_State *L) {
    const lucid_se3 *T = checkse3(L, 1, "lucid.se3:translation", "self");
    lucid_lua_pushvec3(L, T->t);
    return 1;
}

static int m_quat(lua_State *L) {
    const lucid_se3 *T = checkse3(L, 1, "lucid.se3:quat", "self");
    lucid_quat q = lucid_se3_to_quat(T);
    double v[4] = {q.w, q.x, q.y, q.z};
    lucid_lua_pushvalues(L, v, 4);
    return 1;
}

static int m_adjoint(lua_State *L) {
    const lucid_se3 *T = checkse3(L, 1, "lucid.se3:adjoint", "self");
    double Ad[36];
    lucid_se3_adjoint(T, Ad);
    push_mat6(L, Ad);
    return 1;
}

static int m_matrix(lua_State *L) {
    const lucid_se3 *T = checkse3(L, 1, "lucid.se3:matrix", "self");
    double H[16] = {0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) H[i + 4 * j] = T->R.m[i + 3 * j];
    lucid_vec3_store(T->t, H + 12);
    H[15] = 1.0;
    lucid_lua_pushmatrix_data(L, H, 4, 4);
    return 1;
}

static int m_tostring(lua_State *L) {
    const lucid_se3 *T = checkse3(L, 1, "lucid.se3:__tostring", "self");
    lucid_quat q = lucid_se3_to_quat(T);
    char buf[256];
    snprintf(buf, sizeof buf, "lucid.se3{q = {%.6g, %.6g, %.6g, %.6g}, t = {%.6g, %.6g, %.6g}}",
             q.w, q.x, q.y, q.z, T->t.x, T->t.y, T->t.z);
    lua_pushstring(L, buf);
    return 1;
}

/* ---- lucid.so3 -------------------------------------------------------------------------- */

static int l_so3_exp(lua_State *L) {
    lucid_mat3 R = lucid_so3_exp(lucid_lua_checkvec3(L, 1, "lucid.so3.exp", "rotation vector w"));
    lucid_lua_pushmat3(L, &R);
    return 1;
}

static int l_so3_log(lua_State *L) {
    lucid_mat3 R = check_rotation(L, 1, "lucid.so3.log", "R");
    lucid_lua_pushvec3(L, lucid_so3_log(&R));
    return 1;
}

typedef lucid_mat3 (*so3_mat_fn)(lucid_vec3);

static int push_so3_matrix(lua_State *L, const char *fname, so3_mat_fn fn) {
    lucid_mat3 J = fn(lucid_lua_checkvec3(L, 1, fname, "rotation vector w"));
    lucid_lua_pushmat3(L, &J);
    return 1;
}
static int l_so3_jr(lua_State *L) {
    return push_so3_matrix(L, "lucid.so3.jr", lucid_so3_jr);
}
static int l_so3_jr_inv(lua_State *L) {
    return push_so3_matrix(L, "lucid.so3.jr_inv", lucid_so3_jr_inv);
}
static int l_so3_jl(lua_State *L) {
    return push_so3_matrix(L, "lucid.so3.jl", lucid_so3_jl);
}
static int l_so3_jl_inv(lua_State *L) {
    return push_so3_matrix(L, "lucid.so3.jl_inv", lucid_so3_jl_inv);
}
static int l_so3_hat(lua_State *L) {
    return push_so3_matrix(L, "lucid.so3.hat", lucid_so3_hat);
}

static int l_so3_vee(lua_State *L) {
    lucid_mat3 W = lucid_lua_checkmat3(L, 1, "lucid.so3.vee", "W");
    lucid_lua_pushvec3(L, lucid_so3_vee(&W));
    return 1;
}

void lucid_open_se3(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"log", m_log},           {"inverse", m_inverse},         {"act", m_act},
        {"rotation", m_rotation}, {"translation", m_translation}, {"quat", m_quat},
        {"adjoint", m_adjoint},   {"matrix", m_matrix},           {NULL, NULL}};
    static const luaL_Reg se3_functions[] = {{"identity", l_identity},
                                             {"new", l_new},
                                             {"exp", l_exp},
                                             {"random", l_random},
                                             {"jr", l_jr},
                                             {"jr_inv", l_jr_inv},
                                             {"jl", l_jl},
                                             {"jl_inv", l_jl_inv},
                                             {NULL, NULL}};
    static const luaL_Reg so3_functions[] = {
        {"exp", l_so3_exp},       {"log", l_so3_log}, {"jr", l_so3_jr},
        {"jr_inv", l_so3_jr_inv}, {"jl", l_so3_jl},   {"jl_inv", l_so3_jl_inv},
        {"hat", l_so3_hat},       {"vee", l_so3_vee}, {NULL, NULL}};
    static const luaL_Reg metamethods[] = {
        {"__mul", m_mul}, {"__tostring", m_tostring}, {NULL, NULL}};
    lucid_lua_push_metatable(L, LUCID_SE3_METATABLE, metamethods, methods);
    lua_pop(L, 1);
    luaL_newlib(L, se3_functions);
    lua_setfield(L, -2, "se3");
    luaL_newlib(L, so3_functions);
    lua_setfield(L, -2, "so3");
}
