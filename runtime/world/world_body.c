/* Adding bodies: validation, mass and inertia from the shapes or given, static bodies. */
#include <limits.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "runtime/shapes/mass_properties.h"
#include "runtime/world/world_internal.h"

void lucid_body_desc_default(lucid_body_desc *d) {
    memset(d, 0, sizeof *d);
    d->inertia = lucid_mat3_identity();
    d->pose = lucid_se3_identity();
    d->friction = 0.5;
    d->restitution = 0.0;
}

static lucid_status fail(const char **why, const char *msg, lucid_status s) {
    if (why) *why = msg;
    return s;
}

/* 1 if the 3x3 Cholesky factorisation of symmetric A succeeds (A positive definite). */
static int cholesky3_succeeds(const lucid_mat3 *A) {
    double a = lucid_mat3_at(A, 0, 0);
    if (!(a > 0.0)) return 0;
    double l10 = lucid_mat3_at(A, 1, 0) / sqrt(a), l20 = lucid_mat3_at(A, 2, 0) / sqrt(a);
    double d1 = lucid_mat3_at(A, 1, 1) - l10 * l10;
    if (!(d1 > 0.0)) return 0;
    double l21 = (lucid_mat3_at(A, 2, 1) - l20 * l10) / sqrt(d1);
    return lucid_mat3_at(A, 2, 2) - l20 * l20 - l21 * l21 > 0.0;
}

/* Symmetric (to 1e-12 relative) with a successful 3x3 Cholesky factorisation. */
static int is_spd(const lucid_mat3 *I) {
    double scale = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) scale = fmax(scale, fabs(lucid_mat3_at(I, i, j)));
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < i; ++j)
            if (fabs(lucid_mat3_at(I, i, j) - lucid_mat3_at(I, j, i)) > 1e-12 * scale) return 0;
    return cholesky3_succeeds(I);
}

static int pose_ok(const lucid_se3 *T) {
    return lucid_mat3_isfinite(&T->R) && lucid_vec3_isfinite(T->t);
}

static lucid_status check_parts(const lucid_body_part *parts, int n, int allow_halfspace,
                                const char **why) {
    if (n < 0 || (n > 0 && !parts)) return fail(why, "bad shape list", LUCID_ERR_ARGUMENT);
    for (int i = 0; i < n; ++i) {
        if ((unsigned)parts[i].shape.kind > (unsigned)LUCID_SHAPE_HEIGHTFIELD)
            return fail(why, "unknown shape kind", LUCID_ERR_ARGUMENT);
        if (!allow_halfspace && parts[i].shape.kind == LUCID_SHAPE_HALFSPACE)
            return fail(why, "a halfspace can only be static (it has no finite mass)",
                        LUCID_ERR_ARGUMENT);
        if (!allow_halfspace && parts[i].shape.kind == LUCID_SHAPE_HEIGHTFIELD)
            return fail(why, "a heightfield can only be static (terrain, as in MuJoCo)",
                        LUCID_ERR_ARGUMENT);
        if (!pose_ok(&parts[i].pose))
            return fail(why, "shape pose must be finite", LUCID_ERR_NONFINITE);
    }
    return LUCID_OK;
}

/* A part's smallest half extent in its own frame (its box's), the length its contacts' slop
 * scales with; INFINITY for the unbounded halfspace and heightfield. */
static double part_size(const lucid_shape *s) {
    if (s->kind == LUCID_SHAPE_HALFSPACE || s->kind == LUCID_SHAPE_HEIGHTFIELD) return INFINITY;
    lucid_se3 I = lucid_se3_identity();
    lucid_vec3 lo, hi;
    lucid_shape_aabb(s, &I, &lo, &hi);
    return 0.5 * fmin(hi.x - lo.x, fmin(hi.y - lo.y, hi.z - lo.z));
}

/* Appends the parts and a zeroed body (of no model); returns its index. */
lucid_status lucid_world_push_body(lucid_world *w, const lucid_body_part *parts,
                                   const lucid_part_contact *contact, int n, int *index) {
    if (w->num_bodies == INT_MAX || n > INT_MAX - w->num_parts) return LUCID_ERR_NO_MEMORY;
    lucid_status s = LUCID_RESERVE(w, bodies, (size_t)w->num_bodies + 1);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, parts, (size_t)w->num_parts + (size_t)n);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, part_contact, (size_t)w->num_parts + (size_t)n);
    if (s != LUCID_OK) return s;
    lucid_body *b = &w->bodies[w->num_bodies];
    memset(b, 0, sizeof *b);
    b->part_begin = w->num_parts, b->num_parts = n;
    b->model = b->link = b->node = b->mocap = -1;
    if (n > 0) memcpy(w->parts + w->num_parts, parts, sizeof *parts * (size_t)n);
    for (int i = 0; i < n; ++i) {
        /* a plain body's part: a geom of MuJoCo's defaults (its friction is the body's) */
        lucid_part_contact plain = {.geom = -1, .condim = 3, .contype = 1u, .conaffinity = 1u};
        w->part_contact[w->num_parts + i] = contact ? contact[i] : plain;
        w->part_contact[w->num_parts + i].size = part_size(&parts[i].shape);
    }
    w->num_parts += n;
    *index = w->num_bodies++;
    return LUCID_OK;
}

/* Mass properties of the parts at the world's density, in the body frame. */
static lucid_status parts_mass(const lucid_world *w, const lucid_body_part *parts, int n,
                               lucid_mass_properties *out) {
    lucid_mass_properties total = {0}, one;
    for (int i = 0; i < n; ++i) {
        lucid_status s = lucid_shape_mass_properties(&parts[i].shape, w->opt.density, &one);
        if (s != LUCID_OK) return s;
        one = lucid_mass_properties_transform(&one, &parts[i].pose);
        if (i == 0) {
            total = one;
        } else {
            lucid_mass_properties pair[2] = {total, one};
            s = lucid_mass_properties_combine(pair, 2, &total);
            if (s != LUCID_OK) return s;
        }
    }
    *out = total;
    return LUCID_OK;
}

/* The principal moments of I satisfy the triangle inequality (A + B >= C for every order, the
 * MJCF loader's rule for diaginertia) iff tr(I)/2 - I, the mass's second moment, is PSD.
 * Checked as a Cholesky of tr(I)/2 - I + e tr(I) 1: e covers the rounding of tr(I)/2 - I and
 * of the 3x3 factorisation (a few ulps each), so a thin rod or disk (a zero moment) passes. */
static int satisfies_triangle_inequality(const lucid_mat3 *I) {
    double tr = lucid_mat3_at(I, 0, 0) + lucid_mat3_at(I, 1, 1) + lucid_mat3_at(I, 2, 2);
    double e = 16.0 * DBL_EPSILON * tr;
    lucid_mat3 S;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            S.m[i + 3 * j] = (i == j ? 0.5 * tr + e : 0.0) - lucid_mat3_at(I, i, j);
    return cholesky3_succeeds(&S);
}

static lucid_status body_mass(const lucid_world *w, const lucid_body_desc *d,
                              lucid_mass_properties *mp, const char **why) {
    if (d->has_mass && !isfinite(d->mass))
        return fail(why, "mass must be finite", LUCID_ERR_NONFINITE);
    if (d->has_mass && !(d->mass > 0.0)) return fail(why, "mass must be > 0", LUCID_ERR_ARGUMENT);
    if (d->has_inertia && !lucid_mat3_isfinite(&d->inertia))
        return fail(why, "inertia must be finite", LUCID_ERR_NONFINITE);
    if (d->has_inertia && !is_spd(&d->inertia))
        return fail(why, "inertia must be symmetric positive definite", LUCID_ERR_ARGUMENT);
    if (d->has_inertia && !satisfies_triangle_inequality(&d->inertia))
        return fail(why,
                    "inertia is not physical: its principal moments violate A + B >= C (the "
                    "triangle inequality)",
                    LUCID_ERR_ARGUMENT);
    if (d->num_parts == 0) {
        if (!d->has_mass || !d->has_inertia)
            return fail(why, "a body without shapes needs mass and inertia", LUCID_ERR_ARGUMENT);
        mp->mass = d->mass, mp->com = lucid_vec3_zero(), mp->inertia = d->inertia;
        return LUCID_OK;
    }
    lucid_status s = parts_mass(w, d->parts, d->num_parts, mp);
    if (s != LUCID_OK) return fail(why, "cannot compute the mass of the shapes", s);
    if (d->has_mass) {
        mp->inertia = lucid_mat3_scale(&mp->inertia, d->mass / mp->mass);
        mp->mass = d->mass;
    }
    if (d->has_inertia) mp->inertia = d->inertia;
    if (!is_spd(&mp->inertia))
        return fail(why, "the shapes' inertia is not positive definite", LUCID_ERR_ARGUMENT);
    return LUCID_OK;
}

/* Inverse of an inertia tensor at any scale: inertia grows as density * size^5 (1e203 for a
 * sphere of radius 1e40, the largest size, shape.h), so its determinant overflows long before
 * the tensor does. I^-1 = (I / s)^-1 / s with s the largest |entry| rounded to a power of two
 * (exact scalings). Returns 0 when singular. */
static int inverse_inertia(const lucid_mat3 *I, lucid_mat3 *inv) {
    double largest = 0.0;
    for (int k = 0; k < 9; ++k) largest = fmax(largest, fabs(I->m[k]));
    if (!(largest > 0.0) || !isfinite(largest)) return 0;
    int e = ilogb(largest);
    lucid_mat3 scaled;
    for (int k = 0; k < 9; ++k) scaled.m[k] = ldexp(I->m[k], -e);
    if (!lucid_mat3_inverse(&scaled, inv)) return 0;
    for (int k = 0; k < 9; ++k) inv->m[k] = ldexp(inv->m[k], -e);
    return 1;
}

lucid_status lucid_world_add_body(lucid_world *w, const lucid_body_desc *d, int *id,
                                  const char **why) {
    if (!w || !d || !id) return fail(why, "missing argument", LUCID_ERR_ARGUMENT);
    lucid_status s = check_parts(d->parts, d->num_parts, 0, why);
    if (s != LUCID_OK) return s;
    if (!pose_ok(&d->pose)) return fail(why, "pose must be finite", LUCID_ERR_NONFINITE);
    for (int k = 0; k < 6; ++k)
        if (!isfinite(d->velocity[k]))
            return fail(why, "velocity must be finite", LUCID_ERR_NONFINITE);
    if (!isfinite(d->friction) || !isfinite(d->restitution) || !isfinite(d->torsion) ||
        !isfinite(d->rolling))
        return fail(why, "friction, restitution, torsion and rolling must be finite",
                    LUCID_ERR_NONFINITE);
    if (d->torsion < 0.0) return fail(why, "torsion must be >= 0", LUCID_ERR_ARGUMENT);
    if (d->rolling < 0.0) return fail(why, "rolling must be >= 0", LUCID_ERR_ARGUMENT);
    if (d->friction < 0.0) return fail(why, "friction must be >= 0", LUCID_ERR_ARGUMENT);
    if (d->friction > LUCID_CONTACT_MAX_FRICTION)
        return fail(why, "friction must be <= 100 (LUCID_CONTACT_MAX_FRICTION)",
                    LUCID_ERR_ARGUMENT);
    if (!(d->restitution >= 0.0 && d->restitution <= 1.0))
        return fail(why, "restitution must be in [0, 1]", LUCID_ERR_ARGUMENT);
    lucid_mass_properties mp;
    s = body_mass(w, d, &mp, why);
    if (s != LUCID_OK) return s;
    lucid_mat3 inv;
    if (!inverse_inertia(&mp.inertia, &inv))
        return fail(why, "inertia is singular", LUCID_ERR_ARGUMENT);
    int index;
    s = lucid_world_push_body(w, d->parts, NULL, d->num_parts, &index);
    if (s != LUCID_OK) return fail(why, "out of memory", s);
    lucid_body *b = &w->bodies[index];
    b->mass = mp.mass, b->inv_mass = 1.0 / mp.mass;
    b->inertia = mp.inertia, b->inv_inertia = inv, b->com = mp.com;
    b->orientation = lucid_se3_to_quat(&d->pose);
    b->pose = lucid_se3_make(lucid_quat_to_mat3(b->orientation), d->pose.t);
    b->v = lucid_vec3_load(d->velocity), b->w = lucid_vec3_load(d->velocity + 3);
    lucid_body_sync_twist(b);
    b->friction = d->friction, b->restitution = d->restitution, b->torsion = d->torsion;
    b->rolling = d->rolling;
    *id = index;
    return LUCID_OK;
}

/* The sliding, torsional and rolling coefficients of a body: finite, >= 0, sliding <= 100. */
static lucid_status check_coefficients(double friction, double torsion, double rolling,
                                       const char **why) {
    if (!isfinite(friction) || !isfinite(torsion) || !isfinite(rolling))
        return fail(why, "friction, torsion and rolling must be finite", LUCID_ERR_NONFINITE);
    if (torsion < 0.0) return fail(why, "torsion must be >= 0", LUCID_ERR_ARGUMENT);
    if (rolling < 0.0) return fail(why, "rolling must be >= 0", LUCID_ERR_ARGUMENT);
    if (friction < 0.0) return fail(why, "friction must be >= 0", LUCID_ERR_ARGUMENT);
    if (friction > LUCID_CONTACT_MAX_FRICTION)
        return fail(why, "friction must be <= 100 (LUCID_CONTACT_MAX_FRICTION)",
                    LUCID_ERR_ARGUMENT);
    return LUCID_OK;
}

lucid_status lucid_world_add_static_friction(lucid_world *w, const lucid_body_part *parts,
                                             int num_parts, const lucid_se3 *pose,
                                             const double friction[3], int *id, const char **why) {
    if (!w || !pose || !id || !friction) return fail(why, "missing argument", LUCID_ERR_ARGUMENT);
    lucid_status s = check_parts(parts, num_parts, 1, why);
    if (s != LUCID_OK) return s;
    if (!pose_ok(pose)) return fail(why, "pose must be finite", LUCID_ERR_NONFINITE);
    s = check_coefficients(friction[0], friction[1], friction[2], why);
    if (s != LUCID_OK) return s;
    int index;
    s = lucid_world_push_body(w, parts, NULL, num_parts, &index);
    if (s != LUCID_OK) return fail(why, "out of memory", s);
    lucid_body *b = &w->bodies[index];
    b->is_static = 1;
    b->pose = *pose;
    b->friction = friction[0], b->torsion = friction[1], b->rolling = friction[2];
    *id = index;
    return LUCID_OK;
}

lucid_status lucid_world_add_static(lucid_world *w, const lucid_body_part *parts, int num_parts,
                                    const lucid_se3 *pose, double friction, int *id,
                                    const char **why) {
    if (!isfinite(friction)) return fail(why, "friction must be finite", LUCID_ERR_NONFINITE);
    const double coefficients[3] = {friction, 0.0, 0.0};
    return lucid_world_add_static_friction(w, parts, num_parts, pose, coefficients, id, why);
}
