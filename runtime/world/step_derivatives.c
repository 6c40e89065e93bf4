/* Derivatives of one world step (step_derivatives.h): the nominal step on the caller's world,
 * which it leaves exactly as lucid_world_step does, then one column per tangent direction of
 * the state, control and parameter, evaluated on a copy of the world made before the step
 * (lucid_world_clone_into, kept by the world between calls), so that the nominal step is
 * solved once. */
#include "runtime/world/step_derivatives.h"
#include "autodiff/contact_geometry_derivatives.h"
#include "runtime/world/single_level_derivatives.h"
#include "runtime/world/step_positions.h"
#include "runtime/model/configuration.h"
#include "runtime/model/dynamics.h"
#include "runtime/model/model.h"
#include "runtime/shapes/heightfield.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/world/world_internal.h"
#include "solvers/contact/contact_ip.h"
#include "solvers/dense/dense_product.h"

void lucid_step_jacobians_free(lucid_step_jacobians *J) {
    if (!J) return;
    free(J->A), free(J->B), free(J->P), free(J->mode), free(J->margin), free(J->switched);
    free(J->estimated);
    memset(J, 0, sizeof *J);
}

/* ---- the evaluation context ------------------------------------------------------------ */

typedef struct ctx {
    lucid_world *w;        /* the copy every evaluation runs on */
    const lucid_world *w0; /* the caller's, after the nominal step (its islands and sweeps) */
    const lucid_step_derivative_options *o;
    int nx, nt, nu, np, n; /* state, tangent, controls, parameters, nominal contacts */
    int dim;               /* rows per contact in lambda, sigma and the islands' problems (3, 4 with
                            * torsional friction, 6 with rolling: lucid_world_derivative_dim) */
    double *x0, *u0, *x1, *xs, *us, *dx, *dplus, *dminus;
    lucid_cached_force *cache0, *cache1;
    int ncache0, ncache1;
    lucid_world_contact *contacts; /* the nominal step's */
    double *lambda0, *lambda_s, *sigma0, *sigma_p, *sigma_m, *mu0, *mu_p, *mu_m, *vb;
    double *dsigma, *dmu, *dlambda;
    double *Pl; /* implicit: dp/dlambda at the nominal inputs (nt/2 x dim n); dx+/dlambda = D Pl */
    double *dp_lambda; /* one column's Pl dlambda (nt/2) */
    /* implicit: each model's dv_free/dv and dv_free/du at the nominal inputs (model_columns) */
    double **model_dvdv, **model_dvdu;
    double **model_drnea;          /* each model's drnea/dq at its step's acceleration, for
                                    * lucid_step_positions_model (a by-product of model_dvdv) */
    int *body_slot, *model_slot;   /* where a free body's and a model's entries start in p */
    int *model_control;            /* where a model's inputs start in u */
    double *dp_full, *dstart_full; /* one linear column's changes of p and of the start
                                    * velocities, in p's layout */
    /* implicit: each free body's world index and its 6 x 6 dfree/dxi, dstart/dxi, dfree/du */
    int num_free, *free_body, free_control; /* free_control: its wrench's first input */
    double *free_jac;                       /* 108 per free body */
    double *D;  /* implicit: dx+/dp, p the final velocities (nt x nt/2), at the nominal p0 */
    double *Dq; /* implicit: dx+/d(positions) at fixed p0 (nt x nt/2) */
    double *post0, *post; /* p0, and p of one evaluation (nt/2) */
    int *branch; /* each contact's piece of the reference velocity, fixed by the nominal step */
    int islands, *island_start, *island_contacts;
    lucid_contact_derivatives **ift;
    lucid_contact_workspace **ip;      /* relaxed: each island's ip workspace (its factorisation) */
    lucid_contact_problem *ip_problem; /* relaxed: each island's problem (copies below) */
    double **ip_data;
    double *G, *g, *R, *li, *gi, *mi, *di; /* one island's problem and slices */
    lucid_body saved_body;
    double saved_value;       /* a compliance's or a size's column: the value before the shift */
    lucid_model *saved_model; /* a model parameter's column: the model before the shift */
    int reuse;                /* the nominal full evaluation is the last one: see fixed_step */
    int begun; /* the copy is at the nominal inputs, its step begun (geometry_rules), nothing
                * evaluated since: the nominal evaluation starts from there */
    /* carried contact geometry (carry = 1): the ns shape contacts' derivatives, the bodies'
     * nominal poses and twists from them (one evaluation's), and the carried list */
    int carry, ns;
    int predicted_press; /* a predicted witness presses: its points follow the free twists,
                          * so no column reuses the nominal contacts (setup_geometry) */
    lucid_contact_geometry_derivative *geo;
    lucid_se3 *body0;
    double *body_xi;
    double *margin0; /* each shape contact's margin in the nominal detection */
    lucid_world_contact *carried;
    lucid_derivative_workspace *ws;
    lucid_arena *arena; /* the world's: this call's scratch */
    int *analytic;      /* per position column: computed by position_columns */
    double *pos_dsep;   /* one position column's separations' change (n) */
    /* implicit (dense IFT): the linear columns' inputs, kept and finished together by
     * flush_columns as matrix products: dsigma (dim n), dmu (n), dp (np), base (nt) per column;
     * per island the rows of Pl it moves (rows), their cotangents (Wl), their vjps (Gg, Gmu) */
    int defer, ndefer, *defer_col, *rows;
    int unsolved0, unsolved1; /* the kept position columns [0, 1) whose models' dp still want
                               * M~^-1 (lucid_step_positions_leave_rows) */
    double *dS, *dMu, *dP, *Out, *gather, *gather_mu, *island_out, *Wl, *Gg, *Gmu;
    double *Jrows; /* the contacts' rows J (dim n x np): dS's part J dP / dt */
} ctx;

/* Scratch of one call, from the world's arena (zeroed): freed all at once by release. */
static void *grab(ctx *c, size_t count, size_t size, int *ok) {
    void *p = lucid_arena_alloc(c->arena, count, size);
    if (!p) *ok = 0;
    return p;
}

/* grab without the zeroing, for a buffer every use writes before it reads. */
static void *grab_raw(ctx *c, size_t count, size_t size, int *ok) {
    void *p = lucid_arena_alloc_uninit(c->arena, count, size);
    if (!p) *ok = 0;
    return p;
}

/* What the caller receives (J's arrays): its own allocations, lucid_step_jacobians_free. */
static void *grab_out(size_t count, size_t size, int *ok) {
    void *p = calloc(count ? count : 1, size);
    if (!p) *ok = 0;
    return p;
}

static void release(ctx *c) {
    for (int i = 0; c->ift && i < c->islands; ++i) lucid_contact_derivatives_destroy(c->ift[i]);
    for (int i = 0; c->ip && i < c->islands; ++i) lucid_contact_workspace_destroy(c->ip[i]);
    lucid_model_destroy(c->saved_model);
    lucid_derivative_workspace_destroy(c->ws);
    lucid_arena_reset(c->arena);
}

static int copy_cache(ctx *c, lucid_world *w, lucid_cached_force **dst, int *n) {
    int ok = 1;
    *n = w->d.num_cache;
    *dst = grab(c, (size_t)*n, sizeof **dst, &ok);
    if (!ok) return 0;
    if (*n) memcpy(*dst, w->d.cache, sizeof **dst * (size_t)*n);
    return 1;
}

static lucid_status restore_cache(lucid_world *w, const lucid_cached_force *src, int n) {
    lucid_status s = LUCID_RESERVE(w, d.cache, (size_t)n);
    if (s != LUCID_OK) return s;
    if (n) memcpy(w->d.cache, src, sizeof *src * (size_t)n);
    w->d.num_cache = n;
    return LUCID_OK;
}

/* ---- parameters --------------------------------------------------------------------------- */

/* m = mass, I scaled by mass / m (the same shape at another density). */
static void set_mass(lucid_body *b, double mass) {
    double s = mass / b->mass;
    b->mass = mass, b->inv_mass = 1.0 / mass;
    b->inertia = lucid_mat3_scale(&b->inertia, s);
    b->inv_inertia = lucid_mat3_scale(&b->inv_inertia, 1.0 / s);
}

/* The number of sizes a shape has as LUCID_STEP_PARAM_SIZE (0: none, e.g. a halfspace or a
 * convex mesh). */
static int shape_size_count(const lucid_shape *s) {
    switch (s->kind) {
        case LUCID_SHAPE_SPHERE:
            return 1;
        case LUCID_SHAPE_BOX:
        case LUCID_SHAPE_ELLIPSOID:
            return 3;
        case LUCID_SHAPE_CAPSULE:
        case LUCID_SHAPE_CYLINDER:
        case LUCID_SHAPE_CONE:
            return 2;
        default:
            return 0;
    }
}

/* The size `index` of shape s (shape_size_count of them). */
static double *shape_size(lucid_shape *s, int index) {
    switch (s->kind) {
        case LUCID_SHAPE_SPHERE:
            return &s->radius;
        case LUCID_SHAPE_BOX:
            return index == 0   ? &s->u.half_extents.x
                   : index == 1 ? &s->u.half_extents.y
                                : &s->u.half_extents.z;
        case LUCID_SHAPE_ELLIPSOID:
            return index == 0 ? &s->u.radii.x : index == 1 ? &s->u.radii.y : &s->u.radii.z;
        case LUCID_SHAPE_CAPSULE:
            return index == 0 ? &s->radius : &s->u.half_length;
        default: /* cylinder, cone */
            return index == 0 ? &s->u.round.radius : &s->u.round.half_length;
    }
}

static double *part_size(lucid_world *w, const lucid_step_param *p) {
    return shape_size(&w->parts[w->bodies[p->body].part_begin + p->part].shape, p->index);
}

/* The value of a body, size or compliance parameter. */
static double *param_value(lucid_world *w, const lucid_step_param *p) {
    if (p->kind == LUCID_STEP_PARAM_COMPLIANCE) return &w->opt.compliance;
    if (p->kind == LUCID_STEP_PARAM_SIZE) return part_size(w, p);
    lucid_body *b = &w->bodies[p->body];
    switch (p->kind) {
        case LUCID_STEP_PARAM_MASS:
            return &b->mass;
        case LUCID_STEP_PARAM_FRICTION:
            return &b->friction;
        case LUCID_STEP_PARAM_RESTITUTION:
            return &b->restitution;
        case LUCID_STEP_PARAM_TORSION:
            return &b->torsion;
        default:
            return &b->rolling;
    }
}

static int is_model_param(const lucid_step_param *p) {
    return p->kind == LUCID_STEP_PARAM_LINK_MASS || p->kind == LUCID_STEP_PARAM_JOINT_DAMPING ||
           p->kind == LUCID_STEP_PARAM_JOINT_FRICTIONLOSS ||
           p->kind == LUCID_STEP_PARAM_JOINT_ARMATURE ||
           p->kind == LUCID_STEP_PARAM_TENDON_FRICTIONLOSS ||
           p->kind == LUCID_STEP_PARAM_TENDON_DAMPING ||
           p->kind == LUCID_STEP_PARAM_TENDON_STIFFNESS;
}

static lucid_model_param_kind model_param_kind(const lucid_step_param *p) {
    return p->kind == LUCID_STEP_PARAM_LINK_MASS             ? LUCID_MODEL_PARAM_LINK_MASS
           : p->kind == LUCID_STEP_PARAM_JOINT_DAMPING       ? LUCID_MODEL_PARAM_JOINT_DAMPING
           : p->kind == LUCID_STEP_PARAM_JOINT_ARMATURE      ? LUCID_MODEL_PARAM_JOINT_ARMATURE
           : p->kind == LUCID_STEP_PARAM_TENDON_FRICTIONLOSS ? LUCID_MODEL_PARAM_TENDON_FRICTIONLOSS
           : p->kind == LUCID_STEP_PARAM_TENDON_DAMPING      ? LUCID_MODEL_PARAM_TENDON_DAMPING
           : p->kind == LUCID_STEP_PARAM_TENDON_STIFFNESS    ? LUCID_MODEL_PARAM_TENDON_STIFFNESS
                                                             : LUCID_MODEL_PARAM_JOINT_FRICTIONLOSS;
}

/* A model parameter shifted on a variant of the model; param_restore puts the model back. */
static lucid_status model_param_shift(ctx *c, const lucid_step_param *p, double delta) {
    double value;
    lucid_model_param_kind kind = model_param_kind(p);
    lucid_status s = lucid_world_model_param(c->w, p->model, kind, (size_t)p->index, &value, NULL);
    if (s != LUCID_OK) return s;
    c->saved_model = lucid_model_retain(lucid_world_model_of(c->w, p->model));
    return lucid_world_set_model_param(c->w, p->model, kind, (size_t)p->index, value + delta, NULL);
}

/* The world part of model p->model's geom p->index at or after part k (a decomposed geom has
 * several), or -1. */
static int geom_part(const lucid_world *w, const lucid_step_param *p, int k) {
    for (int i = 0; i < w->num_bodies; ++i) {
        const lucid_body *b = &w->bodies[i];
        if (b->model != p->model || p->index < 0) continue;
        for (int j = b->part_begin; j < b->part_begin + b->num_parts; ++j)
            if (j >= k && w->part_contact[j].geom == p->index) return j;
    }
    return -1;
}

static int is_geom_param(const lucid_step_param *p) {
    return p->kind == LUCID_STEP_PARAM_GEOM_TORSION || p->kind == LUCID_STEP_PARAM_GEOM_ROLLING;
}

/* The coefficient of a GEOM_* parameter in part k's contact parameters. */
static double *geom_value(lucid_world *w, const lucid_step_param *p, int k) {
    lucid_part_contact *pc = &w->part_contact[k];
    return p->kind == LUCID_STEP_PARAM_GEOM_ROLLING ? &pc->rolling : &pc->torsion;
}

/* Every part of the geom of a GEOM_* parameter takes the coefficient t. */
static void set_geom_value(lucid_world *w, const lucid_step_param *p, double t) {
    for (int k = geom_part(w, p, 0); k >= 0; k = geom_part(w, p, k + 1)) *geom_value(w, p, k) = t;
}

/* theta += delta (a mass scales the inertia with it). */
static lucid_status param_shift(ctx *c, const lucid_step_param *p, double delta) {
    if (is_model_param(p)) return model_param_shift(c, p, delta);
    if (is_geom_param(p)) {
        c->saved_value = *geom_value(c->w, p, geom_part(c->w, p, 0));
        set_geom_value(c->w, p, c->saved_value + delta);
        return LUCID_OK;
    }
    if (p->kind == LUCID_STEP_PARAM_COMPLIANCE || p->kind == LUCID_STEP_PARAM_SIZE) {
        double *value = param_value(c->w, p);
        c->saved_value = *value;
        *value += delta;
        return LUCID_OK;
    }
    lucid_body *b = &c->w->bodies[p->body];
    c->saved_body = *b;
    if (p->kind == LUCID_STEP_PARAM_MASS) {
        set_mass(b, b->mass + delta);
    } else {
        *param_value(c->w, p) += delta;
    }
    return LUCID_OK;
}

static void param_restore(ctx *c, const lucid_step_param *p) {
    if (is_model_param(p)) {
        if (c->saved_model) lucid_world_replace_model(c->w, p->model, c->saved_model);
        lucid_model_destroy(c->saved_model);
        c->saved_model = NULL;
        return;
    }
    if (is_geom_param(p)) {
        set_geom_value(c->w, p, c->saved_value);
        return;
    }
    if (p->kind == LUCID_STEP_PARAM_COMPLIANCE || p->kind == LUCID_STEP_PARAM_SIZE) {
        *param_value(c->w, p) = c->saved_value;
        return;
    }
    lucid_body *b = &c->w->bodies[p->body];
    b->mass = c->saved_body.mass, b->inv_mass = c->saved_body.inv_mass;
    b->inertia = c->saved_body.inertia, b->inv_inertia = c->saved_body.inv_inertia;
    b->friction = c->saved_body.friction, b->restitution = c->saved_body.restitution;
    b->torsion = c->saved_body.torsion, b->rolling = c->saved_body.rolling;
}

static const char *param_problem(const lucid_world *w, const lucid_step_param *p) {
    if (p->kind == LUCID_STEP_PARAM_COMPLIANCE) return NULL;
    if (is_geom_param(p)) {
        if (!lucid_world_model_of(w, p->model)) return "unknown model";
        return geom_part(w, p, 0) >= 0 ? NULL
                                       : "the geom collides with nothing in this world (no "
                                         "contype or conaffinity, or no such geom)";
    }
    if (is_model_param(p)) {
        double value;
        const char *why = NULL;
        if (p->index < 0) return "unknown link, joint or tendon";
        lucid_world_model_param(w, p->model, model_param_kind(p), (size_t)p->index, &value, &why);
        return why;
    }
    int spin = p->kind == LUCID_STEP_PARAM_TORSION || p->kind == LUCID_STEP_PARAM_ROLLING;
    if ((unsigned)p->kind > LUCID_STEP_PARAM_SIZE && !spin) return "unknown parameter kind";
    if (p->body < 0 || p->body >= w->num_bodies) return "parameter of an unknown body";
    const lucid_body *b = &w->bodies[p->body];
    if (p->kind == LUCID_STEP_PARAM_SIZE) {
        if (b->model >= 0) return "a size parameter needs a free or static body (not a link)";
        if (p->part < 0 || p->part >= b->num_parts) return "size parameter of an unknown part";
        int count = shape_size_count(&w->parts[b->part_begin + p->part].shape);
        if (count == 0) return "the part's shape has no size parameter (halfspace, convex mesh)";
        if (p->index < 0 || p->index >= count) return "size index out of range for the shape";
    }
    if (p->kind == LUCID_STEP_PARAM_MASS && (b->is_static || b->model >= 0))
        return "a mass parameter needs a free body";
    if (p->kind == LUCID_STEP_PARAM_TORSION && b->model >= 0)
        return "a torsion parameter needs a free or static body (a model geom's: {model =, "
               "geom =, \"torsion\"})";
    if (p->kind == LUCID_STEP_PARAM_ROLLING && b->model >= 0)
        return "a rolling parameter needs a free or static body (a model geom's: {model =, "
               "geom =, \"rolling\"})";
    return NULL;
}

lucid_status lucid_step_param_get(const lucid_world *w, const lucid_step_param *p, double *value,
                                  const char **why) {
    const char *bad = w && p && value ? param_problem(w, p) : "argument missing";
    if (bad) {
        if (why) *why = bad;
        return LUCID_ERR_ARGUMENT;
    }
    if (is_model_param(p))
        return lucid_world_model_param(w, p->model, model_param_kind(p), (size_t)p->index, value,
                                       why);
    if (is_geom_param(p)) {
        const lucid_part_contact *pc = &w->part_contact[geom_part(w, p, 0)];
        *value = p->kind == LUCID_STEP_PARAM_GEOM_ROLLING ? pc->rolling : pc->torsion;
        return LUCID_OK;
    }
    *value = *param_value((lucid_world *)w, p); /* read, not written */
    return LUCID_OK;
}

lucid_status lucid_step_param_set(lucid_world *w, const lucid_step_param *p, double value,
                                  const char **why) {
    const char *bad = w && p ? param_problem(w, p) : "argument missing";
    if (!bad && is_model_param(p))
        return lucid_world_set_model_param(w, p->model, model_param_kind(p), (size_t)p->index,
                                           value, why);
    double hi = p && p->kind == LUCID_STEP_PARAM_FRICTION      ? LUCID_CONTACT_MAX_FRICTION
                : p && p->kind == LUCID_STEP_PARAM_RESTITUTION ? 1.0
                                                               : HUGE_VAL;
    if (!bad && !isfinite(value)) bad = "parameter value must be finite";
    if (!bad && p->kind == LUCID_STEP_PARAM_MASS && !(value > 0.0)) bad = "mass must be > 0";
    if (!bad && p->kind == LUCID_STEP_PARAM_SIZE && !(value > 0.0 && value <= LUCID_GEOMETRY_MAX))
        bad = "a size must be in (0, 1e40]";
    if (!bad && !(value >= 0.0 && value <= hi)) bad = "parameter value out of range";
    if (bad) {
        if (why) *why = bad;
        return LUCID_ERR_ARGUMENT;
    }
    if (is_geom_param(p))
        set_geom_value(w, p, value);
    else if (p->kind == LUCID_STEP_PARAM_MASS)
        set_mass(&w->bodies[p->body], value);
    else
        *param_value(w, p) = value;
    return LUCID_OK;
}

lucid_status lucid_world_state_jacobians(const lucid_world *w, const double *x, double *E,
                                         double *L) {
    const double h = 1e-6;
    int nx = lucid_world_state_size(w), nt = lucid_world_tangent_size(w);
    double *d = calloc((size_t)nt + 1, sizeof(double));
    double *xp = malloc(sizeof(double) * ((size_t)nx + 1)),
           *xm = malloc(sizeof(double) * ((size_t)nx + 1));
    double *tp = malloc(sizeof(double) * ((size_t)nt + 1)),
           *tm = malloc(sizeof(double) * ((size_t)nt + 1));
    lucid_status s = d && xp && xm && tp && tm ? LUCID_OK : LUCID_ERR_NO_MEMORY;
    for (int j = 0; j < nt && s == LUCID_OK; ++j) { /* E: d(x (+) d)/dd */
        d[j] = h;
        s = lucid_world_state_integrate(w, x, d, xp);
        d[j] = -h;
        if (s == LUCID_OK) s = lucid_world_state_integrate(w, x, d, xm);
        d[j] = 0.0;
        for (int i = 0; i < nx && s == LUCID_OK; ++i)
            E[i + (size_t)nx * j] = (xp[i] - xm[i]) / (2 * h);
    }
    for (int j = 0; j < nx && s == LUCID_OK; ++j) { /* L: d(x (-) y)/dy */
        memcpy(xp, x, sizeof(double) * (size_t)nx), memcpy(xm, x, sizeof(double) * (size_t)nx);
        xp[j] += h, xm[j] -= h;
        s = lucid_world_state_difference(w, x, xp, tp);
        if (s == LUCID_OK) s = lucid_world_state_difference(w, x, xm, tm);
        for (int i = 0; i < nt && s == LUCID_OK; ++i)
            L[i + (size_t)nt * j] = (tp[i] - tm[i]) / (2 * h);
    }
    free(d), free(xp), free(xm), free(tp), free(tm);
    return s;
}

static const char *check_params(const lucid_world *w, const lucid_step_derivative_options *o) {
    if (o->num_params < 0 || (o->num_params > 0 && !o->params)) return "params missing";
    for (int k = 0; k < o->num_params; ++k) {
        const char *bad = param_problem(w, &o->params[k]);
        if (bad) return bad;
    }
    return NULL;
}

/* ---- one perturbed evaluation ------------------------------------------------------------- */

/* Sets the inputs of column col shifted by delta (state, controls or parameter) and the
 * warm start `cache`. Returns the parameter shifted (to restore), or NULL. */
static const lucid_step_param *perturb(ctx *c, int col, double delta,
                                       const lucid_cached_force *cache, int ncache,
                                       lucid_status *s) {
    memcpy(c->us, c->u0, sizeof(double) * (size_t)c->nu);
    memset(c->dx, 0, sizeof(double) * (size_t)c->nt);
    const lucid_step_param *p = NULL;
    if (col < 0)
        ; /* the nominal inputs */
    else if (col < c->nt)
        c->dx[col] = delta;
    else if (col < c->nt + c->nu)
        c->us[col - c->nt] += delta;
    else
        p = &c->o->params[col - c->nt - c->nu];
    *s = lucid_world_state_integrate(c->w, c->x0, c->dx, c->xs);
    if (*s == LUCID_OK) *s = lucid_world_set_state(c->w, c->xs, NULL);
    if (*s == LUCID_OK) *s = restore_cache(c->w, cache, ncache);
    if (*s == LUCID_OK) *s = lucid_world_set_controls(c->w, c->us);
    if (*s == LUCID_OK && p) *s = param_shift(c, p, delta);
    return p;
}

/* How many contacts of list share contact k's shape pair and are present witnesses (not
 * predicted ones): more than one is a patch. */
static int present_count(const lucid_world_contact *list, int n, const lucid_world_contact *k) {
    int count = 0;
    for (int i = 0; i < n; ++i)
        count += !list[i].predicted && list[i].body1 == k->body1 && list[i].body2 == k->body2 &&
                 list[i].part1 == k->part1 && list[i].part2 == k->part2;
    return count;
}

/* A predicted witness (lucid_world_contact.predicted) without force: its points rigid with
 * their bodies, the normal with the halfspace when there is one, the separation exact
 * (envelope theorem, lucid_contact_geometry_rigid), the point and normal out of the step to
 * first order. With a force it has no rule: its points follow the free twists too. */
static lucid_status predicted_geometry(const lucid_world_contact *k0, const lucid_shape *s2,
                                       const lucid_se3 *T, const lucid_contact_geometry *g,
                                       lucid_contact_geometry_derivative *d) {
    if (k0->force[0] != 0.0 || k0->force[1] != 0.0 || k0->force[2] != 0.0)
        return LUCID_ERR_ARGUMENT;
    lucid_contact_geometry_rigid(&T[0], &T[1], g, s2->kind == LUCID_SHAPE_HALFSPACE ? 2 : 1, d);
    return LUCID_OK;
}

static int presses(const lucid_world_contact *k) {
    return k->force[0] != 0.0 || k->force[1] != 0.0 || k->force[2] != 0.0;
}

/* How many contacts of list share contact k's shape pair. */
static int pair_count(const lucid_world_contact *list, int n, const lucid_world_contact *k) {
    int count = 0;
    for (int i = 0; i < n; ++i)
        count += list[i].body1 == k->body1 && list[i].body2 == k->body2 &&
                 list[i].part1 == k->part1 && list[i].part2 == k->part2 &&
                 list[i].limit_sign == k->limit_sign && list[i].limit_dof == k->limit_dof &&
                 list[i].limit_tendon == k->limit_tendon;
    return count;
}

static void flag_switches(ctx *c, lucid_step_jacobians *J) {
    for (int k = 0; k < c->n; ++k)
        if (pair_count(c->w->d.contacts, c->w->d.num_contacts, &c->contacts[k]) !=
            pair_count(c->contacts, c->n, &c->contacts[k]))
            J->switched[k] = 1;
}

/* x+ of a whole step at column col shifted by delta, as a tangent at x1, into out. */
static lucid_status full_step(ctx *c, int col, double delta, double *out, lucid_step_jacobians *J) {
    lucid_status s;
    const lucid_step_param *p = perturb(c, col, delta, c->cache1, c->ncache1, &s);
    if (s == LUCID_OK) s = lucid_world_step(c->w);
    if (p) param_restore(c, p);
    if (s != LUCID_OK) return s;
    flag_switches(c, J);
    lucid_world_get_state(c->w, c->xs);
    return lucid_world_state_difference(c->w, c->x1, c->xs, out);
}

/* Whether column col leaves the configuration and the parameters as they are (a velocity or a
 * control, or col < 0: only the forces change), so the contacts, their rows and the mass
 * matrices of the nominal evaluation hold for it. */
static int keeps_configuration(const ctx *c, int col) {
    return col < 0 || (col >= c->nt / 2 && col < c->nt + c->nu);
}

/* out += a x (n entries): the columns' products as contiguous axpys over the column-major
 * Jacobians (a row-by-row dot product strides through them), skipping a = 0. */
static void add_column(double *out, const double *x, double a, size_t n) {
    if (a == 0.0) return;
    for (size_t r = 0; r < n; ++r) out[r] += a * x[r];
}

/* C (r x k) = A (r x q) B (q x k) + beta C, column-major with leading dimensions r, q, r. */
static void gemm(size_t r, size_t k, size_t q, const double *A, const double *B, double beta,
                 double *C) {
    if (r == 0 || k == 0 || q == 0) return;
    lucid_dense_gemm(0, 0, (int)r, (int)k, (int)q, 1.0, A, (int)r, B, (int)q, beta, C, (int)r);
}

/* out = D post: x+ (a tangent at x1) to first order in the final velocities (see
 * velocity_jacobian), for the evaluations that keep the configuration. */
static void linearised_state(const ctx *c, const double *post, double *out) {
    size_t nt = (size_t)c->nt, np = nt / 2;
    for (size_t r = 0; r < nt; ++r) out[r] = 0.0;
    for (size_t j = 0; j < np; ++j) {
        double pj = post[j] - c->post0[j];
        if (pj != 0.0)
            for (size_t r = 0; r < nt; ++r) out[r] += c->D[r + nt * j] * pj;
    }
}

/* ---- carried contact geometry ----------------------------------------------------------- */

static lucid_se3 part_pose(const lucid_world *w, int body, int part) {
    const lucid_body *b = &w->bodies[body];
    return lucid_se3_compose(&b->pose, &w->parts[b->part_begin + part].pose);
}

/* Part `part` of body b's twist from its nominal pose (the body's, seen from the part). */
static void part_twist(const ctx *c, int b, int part, double xi[6]) {
    const lucid_body *body = &c->w->bodies[b];
    lucid_contact_geometry_twist_part(&c->w->parts[body->part_begin + part].pose,
                                      c->body_xi + 6 * (size_t)b, xi);
}

/* The nominal shape contacts carried to the world's current poses (after step_begin): each
 * body's twist from its nominal pose, log(T0^-1 T) to first order, once, each part's from it,
 * through the geometry derivatives; friction from the bodies as detection takes it (a friction
 * parameter's column changes it). Returns 0 when a carried separation leaves its pair's
 * margin: detection would drop that contact (the column is then computed from whole steps,
 * which flag the switch). */
static int carry_contacts(ctx *c) {
    int kept = 1;
    const lucid_world *w = c->w;
    for (int i = 0; i < w->num_bodies; ++i)
        if (!w->bodies[i].is_static)
            lucid_contact_geometry_twist(&c->body0[i], &w->bodies[i].pose, c->body_xi + 6 * i);
    for (int k = 0; k < c->ns; ++k) {
        const lucid_world_contact *k0 = &c->contacts[k];
        lucid_world_contact *out = &c->carried[k];
        double xi1[6], xi2[6];
        part_twist(c, k0->body1, k0->part1, xi1);
        part_twist(c, k0->body2, k0->part2, xi2);
        lucid_contact_geometry g0 = {k0->point, lucid_mat3_col(&k0->frame, 2), k0->separation}, g;
        lucid_contact_geometry_predict(&g0, &c->geo[k], xi1, xi2, &g);
        *out = *k0;
        out->point = g.point, out->separation = g.separation,
        out->frame = lucid_world_contact_frame(g.normal); /* as detection builds it */
        double include_margin; /* the parts' contact parameters, as detection pairs them */
        lucid_world_pair_contact(w, k0->body1, k0->part1, k0->body2, k0->part2, &out->friction,
                                 &out->torsion, &include_margin);
        out->rolling = lucid_world_pair_rolling(w, k0->body1, k0->part1, k0->body2, k0->part2);
        kept &= g.separation < c->margin0[k];
    }
    return kept;
}

/* Whether detection at x0 with the margin widened by 10 opts.step (m: how far a surface point
 * within 10 m of its body's origin moves in a perturbed evaluation) finds a shape pair more
 * contacts than the nominal list has: a contact that would appear in a perturbed
 * configuration, which carried contacts cannot show (after step_begin at x0). */
static lucid_status contacts_may_appear(ctx *c, int *appear) {
    lucid_world *w = c->w;
    double margin = w->opt.margin;
    w->opt.margin = margin + 10.0 * c->o->step;
    lucid_status s = lucid_world_collide(w);
    w->opt.margin = margin;
    *appear = 0;
    for (int k = 0; s == LUCID_OK && k < w->d.num_contacts; ++k)
        *appear |= pair_count(w->d.contacts, w->d.num_contacts, &w->d.contacts[k]) !=
                   pair_count(c->contacts, c->ns, &w->d.contacts[k]);
    w->d.num_contacts = 0;
    return s;
}

/* The convex piece of height field contact k (its prism, or the prism's top face's plane as a
 * halfspace: world_collision.c's top-face rule), in the field's frame: the contact came from
 * it, so to first order it moves with that piece's geometry. The prism's mesh points into
 * *prism. */
static lucid_status prism_piece(const lucid_world_contact *k, const lucid_shape *s1,
                                const lucid_shape *s2, lucid_heightfield_prism *prism,
                                lucid_shape *piece) {
    const lucid_shape *hf = s1->kind == LUCID_SHAPE_HEIGHTFIELD ? s1 : s2;
    const lucid_heightfield *h = hf->u.hfield;
    if (hf->kind != LUCID_SHAPE_HEIGHTFIELD || k->prism_row < 0 || k->prism_row >= h->nrow - 1 ||
        k->prism_col < 0 || k->prism_col >= h->ncol - 1 || (unsigned)k->prism_tri > 1u)
        return LUCID_ERR_ARGUMENT;
    lucid_heightfield_prism_build(h, k->prism_row, k->prism_col, k->prism_tri, prism);
    return k->prism_top ? lucid_shape_halfspace(prism->normals[0], prism->face_d[0], piece)
                        : lucid_shape_convex(&prism->mesh, piece);
}

/* The geometry derivatives of the nominal shape contacts at x0 (link poses by step_begin):
 * c->carry = 1 when the options ask for carried contacts and every one has them. */
static lucid_status geometry_rules(ctx *c, lucid_step_jacobians *J, const char **why) {
    const lucid_step_derivative_options *o = c->o;
    if (o->method == LUCID_STEP_FINITE_DIFFERENCES || o->geometry == LUCID_STEP_GEOMETRY_COLLIDE)
        return LUCID_OK;
    while (c->ns < c->n && !lucid_world_contact_on_dof(&c->contacts[c->ns])) ++c->ns;
    int ok = 1;
    c->geo = grab(c, (size_t)c->ns, sizeof *c->geo, &ok);
    c->body0 = grab(c, (size_t)c->w->num_bodies, sizeof *c->body0, &ok);
    c->body_xi = grab(c, 6 * (size_t)c->w->num_bodies, sizeof(double), &ok); /* static: 0 */
    c->carried = grab(c, (size_t)c->ns, sizeof *c->carried, &ok);
    c->margin0 = grab(c, (size_t)c->ns, sizeof(double), &ok);
    if (!ok) return LUCID_ERR_NO_MEMORY;
    const lucid_world *w0 = c->w0; /* its sweeps are the nominal detection's */
    for (int k = 0; k < c->ns; ++k) {
        const lucid_world_contact *ck = &c->contacts[k];
        c->margin0[k] = lucid_world_pair_margin(w0, ck->body1, ck->body2, ck->include_margin);
    }
    if (o->collision && o->collision->method == LUCID_DERIV_FIRST_ORDER_GUMBEL &&
        lucid_derivative_workspace_create(&c->ws) != LUCID_OK)
        return LUCID_ERR_NO_MEMORY;
    lucid_status s;
    perturb(c, -1, 0.0, c->cache0, 0, &s);
    if (s == LUCID_OK) s = lucid_world_step_begin(c->w);
    int appear = 0;
    if (s == LUCID_OK && o->geometry == LUCID_STEP_GEOMETRY_AUTO)
        s = contacts_may_appear(c, &appear);
    if (s != LUCID_OK || appear) return s; /* appearing contacts: detection at each column */
    c->begun = 1;
    for (int i = 0; i < c->w->num_bodies; ++i) c->body0[i] = c->w->bodies[i].pose;
    for (int k = 0; k < c->ns; ++k) {
        const lucid_world_contact *k0 = &c->contacts[k];
        const lucid_world *w = c->w;
        lucid_se3 T[2] = {part_pose(w, k0->body1, k0->part1), part_pose(w, k0->body2, k0->part2)};
        const lucid_shape *s1 = &w->parts[w->bodies[k0->body1].part_begin + k0->part1].shape;
        const lucid_shape *s2 = &w->parts[w->bodies[k0->body2].part_begin + k0->part2].shape;
        lucid_heightfield_prism prism; /* a height field contact's piece, in the field's frame */
        lucid_shape piece;
        if (k0->on_prism && (s = prism_piece(k0, s1, s2, &prism, &piece)) != LUCID_OK) return s;
        if (k0->on_prism) *(s1->kind == LUCID_SHAPE_HEIGHTFIELD ? &s1 : &s2) = &piece;
        lucid_contact_geometry g0 = {k0->point, lucid_mat3_col(&k0->frame, 2), k0->separation};
        int patch = present_count(c->contacts, c->ns, k0) > 1;
        s = k0->predicted ? predicted_geometry(k0, s2, T, &g0, &c->geo[k])
                          : lucid_contact_geometry_derivatives(s1, &T[0], s2, &T[1], &g0, patch,
                                                               o->collision, c->ws, &c->geo[k]);
        if (s == LUCID_ERR_NO_MEMORY) return s;
        if (s != LUCID_OK && k0->separation > 0.0 && k0->force[0] == 0.0 && k0->force[1] == 0.0 &&
            k0->force[2] == 0.0) {
            /* separated and without force: only its separation enters the step (exact) */
            lucid_contact_geometry_rigid(&T[0], &T[1], &g0, 1, &c->geo[k]);
            s = LUCID_OK;
        }
        if (s != LUCID_OK) {
            if (o->geometry == LUCID_STEP_GEOMETRY_AUTO) {
                memset(J->estimated, 0, sizeof(int) * (size_t)c->n);
                return LUCID_OK; /* collision detection at each perturbed configuration */
            }
            if (why && k0->predicted)
                *why = "a pressing predicted witness has no carried rule (its points follow the "
                       "free twists): use geometry = \"collide\" or \"auto\"";
            else if (why)
                *why = o->collision ? "a contact's geometry derivative failed (the estimator of "
                                      "opts.collision)"
                                    : "a contact's geometry has no exact derivative (give "
                                      "opts.collision an estimator)";
            return LUCID_ERR_ARGUMENT;
        }
        J->estimated[k] = c->geo[k].estimated;
    }
    c->carry = 1;
    J->carried = 1;
    return LUCID_OK;
}

/* geometry_rules; a pressing predicted witness's points follow the free twists, so no column
 * may reuse the nominal contacts: each is evaluated with detection at its own inputs. */
static lucid_status setup_geometry(ctx *c, lucid_step_jacobians *J, const char **why) {
    lucid_status s = geometry_rules(c, J, why);
    for (int k = 0; k < c->n; ++k)
        c->predicted_press |= c->contacts[k].predicted && presses(&c->contacts[k]);
    return s;
}

/* Whether column col is a shape size: its contacts move with the geometry, not with the
 * poses, so they are detected again rather than carried. */
static int changes_shape(const ctx *c, int col) {
    return col >= c->nt + c->nu && c->o->params[col - c->nt - c->nu].kind == LUCID_STEP_PARAM_SIZE;
}

/* The step at column col shifted by delta with the contact forces lambda: sigma, mu and (as a
 * tangent at x1, when out is not NULL) x+. *same = 0 when the contact list changed. With
 * c->reuse set, columns that keep the configuration reuse the nominal evaluation's contact
 * rows and factorisations (evaluated right after it) and stop at the final velocities, x+
 * following from them through D. */
static lucid_status fixed_step(ctx *c, int col, double delta, const double *lambda, double *sigma,
                               double *mu, double *out, int *same) {
    lucid_status s = LUCID_OK;
    const lucid_step_param *p = NULL;
    int begun = c->begun && c->carry && col < 0;
    c->begun = 0;
    if (begun) { /* the nominal inputs, begun by geometry_rules: its contacts are the nominal */
        s = lucid_world_step_with_contacts(c->w, c->contacts, c->ns, c->contacts, c->n, lambda,
                                           sigma, mu, c->vb, c->branch, same);
    } else {
        p = perturb(c, col, delta, c->cache0, 0, &s);
        if (s == LUCID_OK && c->reuse && keeps_configuration(c, col)) {
            s = lucid_world_step_with_forces_reuse(c->w, c->contacts, c->n, lambda, sigma, mu,
                                                   c->vb, c->branch, c->post, same);
            if (s == LUCID_OK && *same && out) linearised_state(c, c->post, out);
            return s;
        }
        /* the rows' Y = M~^-1 J^T serve the nominal evaluation's later reuse only */
        c->w->d.rows_without_inverse = col >= 0;
        if (s == LUCID_OK && c->carry && !keeps_configuration(c, col) && !changes_shape(c, col)) {
            s = lucid_world_step_begin(c->w);
            *same = 0;
            if (s == LUCID_OK && carry_contacts(c))
                s = lucid_world_step_with_contacts(c->w, c->carried, c->ns, c->contacts, c->n,
                                                   lambda, sigma, mu, c->vb, c->branch, same);
        } else if (s == LUCID_OK) {
            s = lucid_world_step_with_forces(c->w, c->contacts, c->n, lambda, sigma, mu, c->vb,
                                             c->branch, same);
        }
        c->w->d.rows_without_inverse = 0;
        if (p) param_restore(c, p);
    }
    if (s != LUCID_OK || !*same || !out) return s;
    lucid_world_get_state(c->w, c->xs);
    return lucid_world_state_difference(c->w, c->x1, c->xs, out);
}

/* ---- columns ------------------------------------------------------------------------------ */

/* Central difference (forward at a parameter's lower bound 0): lo = -1 or 0. */
static double lower_shift(ctx *c, int col) {
    if (col < c->nt + c->nu) return -1.0;
    const lucid_step_param *p = &c->o->params[col - c->nt - c->nu];
    if (p->kind == LUCID_STEP_PARAM_MASS) return -1.0;
    double value = 0.0;
    lucid_step_param_get(c->w, p, &value, NULL); /* checked with the options */
    /* a link's mass must stay > 0, damping, friction, restitution, compliance >= 0 */
    double floor =
        p->kind == LUCID_STEP_PARAM_LINK_MASS || p->kind == LUCID_STEP_PARAM_SIZE ? 1e-300 : 0.0;
    return value - c->o->step < floor ? 0.0 : -1.0;
}

static void store_column(ctx *c, int col, double scale, lucid_step_jacobians *J) {
    double *dst = col < c->nt           ? J->A + (size_t)c->nt * (size_t)col
                  : col < c->nt + c->nu ? J->B + (size_t)c->nt * (size_t)(col - c->nt)
                                        : J->P + (size_t)c->nt * (size_t)(col - c->nt - c->nu);
    for (int i = 0; i < c->nt; ++i) dst[i] = (c->dplus[i] - c->dminus[i]) * scale;
}

static lucid_status fd_column(ctx *c, int col, lucid_step_jacobians *J) {
    double h = c->o->step, lo = lower_shift(c, col);
    lucid_status s = full_step(c, col, h, c->dplus, J);
    if (s == LUCID_OK) s = full_step(c, col, lo * h, c->dminus, J);
    if (s == LUCID_OK) store_column(c, col, 1.0 / ((1.0 - lo) * h), J);
    return s;
}

/* dlambda = IFT(dsigma, dmu), island by island. */
static lucid_status solve_dlambda(ctx *c) {
    int D = c->dim;
    for (int i = 0; i < c->islands; ++i) {
        int b = c->island_start[i], m = c->island_start[i + 1] - b;
        for (int k = 0; k < m; ++k) {
            int q = c->island_contacts[b + k];
            memcpy(c->gi + D * k, c->dsigma + D * q, (size_t)D * sizeof(double));
            c->mi[k] = c->dmu[q];
        }
        if (c->ip) {
            lucid_status s =
                lucid_contact_ip_jvp(&c->ip_problem[i], c->ip[i], c->gi, NULL, c->mi, NULL, c->di);
            if (s != LUCID_OK) return s;
        } else {
            lucid_status s =
                lucid_contact_derivatives_jvp(c->ift[i], NULL, c->gi, c->mi, NULL, c->di);
            if (s != LUCID_OK) return s;
        }
        for (int k = 0; k < m; ++k)
            memcpy(c->dlambda + D * c->island_contacts[b + k], c->di + D * k,
                   (size_t)D * sizeof(double));
    }
    return LUCID_OK;
}

/* A model with equality rows ends its step with the position stabilisation q1 = stab(q0 (+) dt
 * p): its position rows of D and Dq (tangents at q0 (+) dt p) are turned into tangents at q1 by
 * stab's Jacobian S (lucid_world_equality_stabilise_jacobian), rows <- S rows. */
static lucid_status stabilised_jacobians(ctx *c) {
    lucid_world *w = c->w;
    size_t nt = (size_t)c->nt, np = nt / 2, qoff = 0;
    for (int i = 0; i < w->num_bodies; ++i)
        qoff += !w->bodies[i].is_static && w->bodies[i].model < 0 ? 7 : 0;
    for (int i = 0; i < w->num_models; ++i) {
        lucid_world_model *wm = &w->models[i];
        size_t nq = lucid_model_nq(wm->model), nv = lucid_model_nv(wm->model);
        size_t o = (size_t)c->model_slot[i];
        if (lucid_model_equality_rows(wm->model) > 0) {
            int ok = 1;
            double *q_pre = grab(c, nq, sizeof(double), &ok);
            double *S = grab(c, nv * nv, sizeof(double), &ok);
            double *scratch = grab(c, nq + 2 * nv, sizeof(double), &ok);
            double *rows = grab(c, nv * np, sizeof(double), &ok);
            if (!ok) return LUCID_ERR_NO_MEMORY;
            lucid_model_integrate(wm->model, c->x0 + qoff, c->post0 + o, w->opt.dt, q_pre);
            lucid_world_equality_stabilise_jacobian(wm, q_pre, c->o->step, S, scratch);
            for (double *J = c->D; J; J = J == c->D ? c->Dq : NULL) {
                for (size_t col = 0; col < np; ++col) /* rows = S J[o .. o + nv, :] */
                    for (size_t r = 0; r < nv; ++r) {
                        double acc = 0.0;
                        for (size_t k = 0; k < nv; ++k) acc += S[r + nv * k] * J[o + k + nt * col];
                        rows[r + nv * col] = acc;
                    }
                for (size_t col = 0; col < np; ++col)
                    memcpy(J + o + nt * col, rows + nv * col, nv * sizeof(double));
            }
        }
        qoff += nq;
    }
    return LUCID_OK;
}

/* D = dx+/dp (nt x nt/2) at the nominal final velocities p0 (right after the nominal full
 * evaluation, whose v_free arrays hold them): x+ = (q (+) dt p, p) at the nominal configuration,
 * smooth, a tangent at x1 = x+(x0, p0), from the integrator's exp/log Jacobians (analytic). */
static lucid_status velocity_jacobian(ctx *c) {
    lucid_world_post_velocity(c->w, c->post0);
    lucid_world_integrate_jacobians(c->w, c->x0, c->post0, c->Dq, c->D);
    return stabilised_jacobians(c);
}

/* Pl = dp/dlambda at the nominal inputs (dx+/dlambda = D Pl): p is affine in lambda (p = v_free
 * + dt M~^-1 J^T lambda), so each column is the impulse of a unit force, exact, on the nominal
 * contact rows (a spin row's: lambda_s = 1, the torque a; a rolling row's: the torque b). */
static lucid_status force_jacobian(ctx *c) {
    size_t D = (size_t)c->dim, n3 = D * (size_t)c->n, nt = (size_t)c->nt, np = nt / 2;
    int ok = 1;
    double *P = c->Pl = grab(c, np * n3, sizeof(double), &ok);
    c->dp_lambda = grab(c, np, sizeof(double), &ok);
    if (!ok) return LUCID_ERR_NO_MEMORY;
    lucid_status s = lucid_world_restore_contacts(c->w, c->contacts, c->n);
    if (s != LUCID_OK) return s;
    for (size_t i = 0; i < n3; ++i) {
        lucid_world_contact *k = &c->w->d.contacts[i / D];
        memset(c->post, 0, np * sizeof(double));
        lucid_world_set_post_velocity(c->w, c->post);
        k->force[0] = k->force[1] = k->force[2] = 0.0;
        k->torsion_force = i % D == 3 ? lucid_world_contact_spin(k) : 0.0;
        for (size_t r = 0; r < 2; ++r)
            k->rolling_force[r] = i % D == 4 + r ? lucid_world_contact_roll(k) : 0.0;
        if (i % D < 3) k->force[i % D] = 1.0;
        lucid_world_apply_contact_force(c->w, (int)(i / D));
        lucid_world_post_velocity(c->w, P + np * i);
    }
    return LUCID_OK;
}

/* out += dx+/dlambda dlambda = D (Pl dlambda). */
static void add_force_change(ctx *c, double *out) {
    size_t nt = (size_t)c->nt, np = nt / 2, n3 = (size_t)c->dim * (size_t)c->n;
    lucid_dense_gemv((int)np, (int)n3, 1.0, c->Pl, (int)np, c->dlambda, 0.0, c->dp_lambda);
    lucid_dense_gemv((int)nt, (int)np, 1.0, c->D, (int)nt, c->dp_lambda, 1.0, out);
}

/* ---- the models' velocity and control columns, analytic ------------------------------------
 * At the nominal configuration and forces, a model's start velocity v or input u moves the step
 * only through its free velocity (p = v_free + dt M~^-1 J^T lambda0, lambda0 fixed) and, for an
 * impact, through the restitution target -e J_n v: dp = dv_free/de (lucid_world_model_free_
 * velocity_jacobians: exact, one rnea_derivatives and one multi-column solve per model), dsigma_k
 * = (J_k dp + e_k J_n,k dv e_n [impact]) / dt on the rows J_k of the model's contact sides, x+
 * = D p. No evaluation of the step map: the central differences of the other columns cost two
 * full free-velocity, force and sigma evaluations each. */

/* The models' Jacobians at x0 and u0 (on the copy, whose M~ factors are the nominal
 * evaluation's: nothing since has refactorised them). */
static lucid_status free_body_jacobians(ctx *c) {
    const lucid_world *w = c->w;
    int nf = 0, ok = 1;
    for (int i = 0; i < w->num_bodies; ++i) nf += !w->bodies[i].is_static && w->bodies[i].model < 0;
    c->free_body = grab(c, (size_t)nf, sizeof(int), &ok);
    c->free_jac = grab(c, 108 * (size_t)nf, sizeof(double), &ok);
    if (!ok) return LUCID_ERR_NO_MEMORY;
    c->num_free = nf, c->free_control = c->nu - 6 * nf;
    lucid_status s = LUCID_OK;
    for (int i = 0, f = 0; i < w->num_bodies && s == LUCID_OK; ++i) {
        if (w->bodies[i].is_static || w->bodies[i].model >= 0) continue;
        double *jac = c->free_jac + 108 * (size_t)f;
        c->free_body[f++] = i;
        s = lucid_world_body_free_velocity_jacobians(w, i, jac, jac + 36, jac + 72);
    }
    return s;
}

static lucid_status model_jacobians(ctx *c) {
    lucid_world *w = c->w;
    int nm = w->num_models, ok = 1;
    lucid_status s = lucid_world_set_state(w, c->x0, NULL);
    if (s == LUCID_OK) s = lucid_world_set_controls(w, c->u0);
    if (s == LUCID_OK) s = free_body_jacobians(c);
    if (s != LUCID_OK || nm == 0) return s;
    c->model_dvdv = grab(c, (size_t)nm, sizeof *c->model_dvdv, &ok);
    c->model_dvdu = grab(c, (size_t)nm, sizeof *c->model_dvdu, &ok);
    c->model_drnea = grab(c, (size_t)nm, sizeof *c->model_drnea, &ok);
    c->model_control = grab(c, (size_t)nm + 1, sizeof(int), &ok);
    if (!ok) return LUCID_ERR_NO_MEMORY;
    int control = 0;
    for (int i = 0; i < nm && s == LUCID_OK; ++i) {
        size_t nv = lucid_model_nv(w->models[i].model), nu = lucid_world_model_inputs(w, i);
        c->model_control[i] = control;
        control += (int)nu;
        c->model_dvdv[i] = grab(c, nv * nv, sizeof(double), &ok);
        c->model_dvdu[i] = grab(c, nv * nu, sizeof(double), &ok);
        c->model_drnea[i] = grab(c, nv * nv, sizeof(double), &ok);
        double *astar = grab(c, nv, sizeof(double), &ok);
        if (!ok) return LUCID_ERR_NO_MEMORY;
        lucid_step_positions_astar(w, i, c->post0 + c->model_slot[i], astar);
        s = lucid_world_model_free_velocity_jacobians(w, i, astar, c->model_dvdv[i],
                                                      c->model_dvdu[i], c->model_drnea[i]);
    }
    c->model_control[nm] = control;
    return s;
}

/* ds_n += e dv_before / dt for contact k when its step is an impact (its target -e v_n before
 * moves with the start velocity), e the contact's restitution. */
static void add_impact(const ctx *c, int k, double dv_before, double *ds) {
    if (c->branch[k] >= 3 && dv_before != 0.0)
        ds[2] +=
            lucid_world_contact_restitution(c->w, &c->w->d.contacts[k]) * dv_before / c->w->opt.dt;
}

/* Keeps column col's inputs for flush_columns (the caller set dsigma and dmu). */
static void defer_column(ctx *c, int col, size_t slot, const double *dp, size_t len,
                         const double *base) {
    size_t k = (size_t)c->ndefer++, nt = (size_t)c->nt, np = nt / 2, n = (size_t)c->n;
    size_t n3 = (size_t)c->dim * n;
    c->defer_col[k] = col;
    memcpy(c->dS + n3 * k, c->dsigma, n3 * sizeof(double));
    memcpy(c->dMu + n * k, c->dmu, n * sizeof(double));
    double *p = c->dP + np * k, *out = c->Out + nt * k;
    memset(p, 0, np * sizeof(double));
    memcpy(p + slot, dp, len * sizeof(double));
    if (base)
        memcpy(out, base, nt * sizeof(double));
    else
        memset(out, 0, nt * sizeof(double));
}

/* dS += J dP / dt over the k kept columns: the contact rows' part every one of them left out
 * (linear_dsigma, lucid_step_positions_leave_rows), one matrix product. */
static void add_rows_part(ctx *c, size_t k) {
    size_t D = (size_t)c->dim, np = (size_t)c->nt / 2, n3 = D * (size_t)c->n;
    memset(c->Jrows, 0, n3 * np * sizeof(double));
    for (int q = 0; q < c->n; ++q) {
        double *rows = c->Jrows + D * (size_t)q;
        lucid_world_contact_rows_add(c->w, q, c->body_slot, c->model_slot, rows, n3);
        for (int r = 3; r < (int)D; ++r) /* the spin and rolling rows */
            lucid_world_contact_row_add(c->w, q, r, c->body_slot, c->model_slot, rows + r, n3);
    }
    lucid_dense_gemm(0, 0, (int)n3, (int)k, (int)np, 1.0 / c->w->opt.dt, c->Jrows, (int)n3, c->dP,
                     (int)np, 1.0, c->dS, (int)n3);
}

/* dP += Pl_i dLambda_i over the k kept columns, island i's forces taken in reverse: the rows of
 * Pl the island moves (its bodies' and models' velocities, r of them) are its IFT's cotangents,
 * Gg = (dl/dg)^T Pl_i^T and Gmu = (dl/dmu)^T Pl_i^T by one transposed solve with r right-hand
 * sides (fewer than the dense dl/dg and dl/dmu's columns), then Pl_i dLambda_i =
 * Gg^T dS_i + Gmu^T dMu_i. */
static lucid_status add_island_forces(ctx *c, int i, size_t k) {
    size_t D = (size_t)c->dim, np = (size_t)c->nt / 2, n = (size_t)c->n, n3 = D * n;
    int b = c->island_start[i];
    size_t mm = (size_t)(c->island_start[i + 1] - b), m3 = D * mm, r = 0;
    const int *list = c->island_contacts + b;
    for (size_t row = 0; row < np; ++row) { /* Wl's column r: the row's island entries, kept
                                             * (r advances) when one is non-zero */
        int moved = 0;
        for (size_t e = 0; e < m3; ++e) {
            double v = c->Pl[row + np * (D * (size_t)list[e / D] + e % D)];
            c->Wl[e + m3 * r] = v;
            moved |= v != 0.0;
        }
        if (moved) c->rows[r++] = (int)row;
    }
    if (r == 0) return LUCID_OK;
    lucid_status s = lucid_contact_derivatives_vjp_many(c->ift[i], c->Wl, (int)r, c->Gg, c->Gmu);
    if (s != LUCID_OK) return s;
    for (size_t col = 0; col < k; ++col)
        for (size_t e = 0; e < mm; ++e) {
            size_t q = (size_t)list[e];
            memcpy(c->gather + m3 * col + D * e, c->dS + n3 * col + D * q, D * sizeof(double));
            c->gather_mu[mm * col + e] = c->dMu[n * col + q];
        }
    lucid_dense_gemm(1, 0, (int)r, (int)k, (int)m3, 1.0, c->Gg, (int)m3, c->gather, (int)m3, 0.0,
                     c->island_out, (int)r);
    lucid_dense_gemm(1, 0, (int)r, (int)k, (int)mm, 1.0, c->Gmu, (int)mm, c->gather_mu, (int)mm,
                     1.0, c->island_out, (int)r);
    for (size_t col = 0; col < k; ++col)
        for (size_t j = 0; j < r; ++j)
            c->dP[(size_t)c->rows[j] + np * col] += c->island_out[j + r * col];
    return LUCID_OK;
}

/* dP <- M~^-1 dP on each model's rows of the kept position columns that want it, one
 * multi-column solve per model. */
static void solve_kept(ctx *c) {
    size_t np = (size_t)c->nt / 2, first = (size_t)c->unsolved0;
    int count = c->unsolved1 - c->unsolved0;
    c->unsolved0 = c->unsolved1 = 0;
    for (int i = 0; i < c->w->num_models && count > 0; ++i) {
        const lucid_world_model *wm = &c->w->models[i];
        lucid_model_mass_solve(wm->model, wm->data, c->dP + (size_t)c->model_slot[i] + np * first,
                               np, (size_t)count);
    }
}

/* The kept columns, all at once: Out = base + D (dP + Pl dLambda), dLambda = IFT(dS, dMu), as
 * matrix products over all the columns (one matrix-vector product a column costs several times
 * more). */
static lucid_status flush_columns(ctx *c, lucid_step_jacobians *J) {
    size_t k = (size_t)c->ndefer, nt = (size_t)c->nt, np = nt / 2;
    c->defer = 0, c->ndefer = 0;
    if (k == 0) return LUCID_OK;
    solve_kept(c);
    if (c->n > 0) add_rows_part(c, k);
    for (int i = 0; i < c->islands; ++i) {
        lucid_status s = add_island_forces(c, i, k);
        if (s != LUCID_OK) return s;
    }
    gemm(nt, k, np, c->D, c->dP, 1.0, c->Out);
    for (size_t col = 0; col < k; ++col) {
        memcpy(c->dplus, c->Out + nt * col, nt * sizeof(double));
        memset(c->dminus, 0, nt * sizeof(double));
        store_column(c, c->defer_col[col], 1.0, J);
    }
    return LUCID_OK;
}

/* Sets up the kept columns (implicit method, dense IFT): at most nt + nu of them. */
static lucid_status begin_deferred(ctx *c) {
    if (c->ip) return LUCID_OK;
    size_t nt = (size_t)c->nt, np = nt / 2, n = (size_t)c->n, kmax = nt + (size_t)c->nu;
    size_t maxm = 0, D = (size_t)c->dim;
    for (int i = 0; i < c->islands; ++i) {
        size_t m = (size_t)(c->island_start[i + 1] - c->island_start[i]);
        maxm = m > maxm ? m : maxm;
    }
    int ok = 1;
    c->defer_col = grab(c, kmax, sizeof(int), &ok);
    /* each kept column's entries are written by defer_column, the rest by flush_columns */
    c->dS = grab_raw(c, D * n * kmax, sizeof(double), &ok);
    c->dMu = grab_raw(c, n * kmax, sizeof(double), &ok);
    c->dP = grab_raw(c, np * kmax, sizeof(double), &ok);
    c->Out = grab_raw(c, nt * kmax, sizeof(double), &ok);
    c->gather = grab_raw(c, D * maxm * kmax, sizeof(double), &ok);
    c->gather_mu = grab_raw(c, maxm * kmax, sizeof(double), &ok);
    c->island_out = grab_raw(c, np * kmax, sizeof(double), &ok);
    c->rows = grab(c, np, sizeof(int), &ok);
    c->Jrows = grab_raw(c, D * n * np, sizeof(double), &ok);
    c->Wl = grab_raw(c, D * maxm * np, sizeof(double), &ok);
    c->Gg = grab_raw(c, D * maxm * np, sizeof(double), &ok);
    c->Gmu = grab_raw(c, maxm * np, sizeof(double), &ok);
    if (!ok) return LUCID_ERR_NO_MEMORY;
    c->defer = 1, c->ndefer = 0;
    return LUCID_OK;
}

/* The column col of a change dp (len entries of p from slot) whose dsigma and dmu are set:
 * dx+ = base + D dp + dx+/dlambda dlambda (base: NULL or x+'s change at fixed p). */
static lucid_status linear_column(ctx *c, int col, size_t slot, const double *dp, size_t len,
                                  const double *base, lucid_step_jacobians *J) {
    size_t nt = (size_t)c->nt, n3 = (size_t)c->dim * (size_t)c->n;
    if (c->defer) {
        defer_column(c, col, slot, dp, len, base);
        return LUCID_OK;
    }
    lucid_status s = n3 > 0 ? solve_dlambda(c) : LUCID_OK;
    if (s != LUCID_OK) return s;
    double *out = c->dplus;
    for (size_t r = 0; r < nt; ++r) out[r] = base ? base[r] : 0.0;
    for (size_t q = 0; q < len; ++q) add_column(out, c->D + nt * (slot + q), dp[q], nt);
    if (n3 > 0) add_force_change(c, out);
    memset(c->dminus, 0, nt * sizeof(double));
    store_column(c, col, 1.0, J);
    return LUCID_OK;
}

/* The model of column col and the column of its Jacobian (*j), or -1: not a model's velocity
 * or control column. *velocity: a velocity column. */
static int model_of_column(const ctx *c, int col, int *j, int *velocity) {
    int nm = c->model_dvdv ? c->w->num_models : 0;
    for (int i = 0; i < nm; ++i) {
        int v0 = c->nt / 2 + c->model_slot[i], v1 = c->nt / 2 + c->model_slot[i + 1];
        int u0 = c->nt + c->model_control[i], u1 = c->nt + c->model_control[i + 1];
        if (col >= v0 && col < v1) return *j = col - v0, *velocity = 1, i;
        if (col >= u0 && col < u1) return *j = col - u0, *velocity = 0, i;
    }
    return -1;
}

/* dsigma of a change dp of the final velocities on the nominal rows, and of a change dstart
 * of the start velocities (NULL: none) through an impact's restitution target: both in p's
 * layout (dp_full, dstart_full); dmu = 0. Kept columns leave the rows' part J dp / dt to
 * flush_columns (one matrix product for all of them). */
static void linear_dsigma(ctx *c, const double *dp, const double *dstart) {
    const lucid_world *w = c->w;
    double inv_dt = 1.0 / w->opt.dt;
    for (int k = 0; k < c->n; ++k) {
        lucid_vec3 u = c->defer
                           ? lucid_vec3_zero()
                           : lucid_world_contact_rows_times(w, k, c->body_slot, c->model_slot, dp);
        double *ds = c->dsigma + c->dim * k;
        lucid_vec3_store(lucid_vec3_scale(u, inv_dt), ds);
        for (int r = 3; r < c->dim; ++r) /* the spin and rolling rows' J_r dp / dt (left to
                                          * flush_columns when kept) */
            ds[r] = c->defer
                        ? 0.0
                        : lucid_world_contact_row_times(w, k, r, c->body_slot, c->model_slot, dp) *
                              inv_dt;
        c->dmu[k] = 0.0;
        if (dstart && c->branch[k] >= 3) /* only an impact's target reads the start velocity */
            add_impact(c, k,
                       lucid_world_contact_rows_times(w, k, c->body_slot, c->model_slot, dstart).z,
                       ds);
    }
}

/* dp_full (and, when start, dstart_full) set to len entries of src (of start) from slot, zero
 * elsewhere. */
static void set_linear_change(ctx *c, size_t slot, const double *src, const double *start,
                              size_t len) {
    size_t np = (size_t)c->nt / 2;
    memset(c->dp_full, 0, np * sizeof(double));
    memcpy(c->dp_full + slot, src, len * sizeof(double));
    if (!start) return;
    memset(c->dstart_full, 0, np * sizeof(double));
    memcpy(c->dstart_full + slot, start, len * sizeof(double));
}

/* Column col of model i (its Jacobian's column j): dx+ = D dp + dx+/dlambda dlambda. */
static lucid_status model_column(ctx *c, int col, int i, int j, int velocity,
                                 lucid_step_jacobians *J) {
    size_t nv = lucid_model_nv(c->w->models[i].model), np = (size_t)c->nt / 2;
    const double *src = (velocity ? c->model_dvdv[i] : c->model_dvdu[i]) + nv * (size_t)j;
    set_linear_change(c, (size_t)c->model_slot[i], src, NULL, nv);
    if (velocity) { /* the start velocity moves by e_j */
        memset(c->dstart_full, 0, np * sizeof(double));
        c->dstart_full[c->model_slot[i] + j] = 1.0;
    }
    linear_dsigma(c, c->dp_full, velocity ? c->dstart_full : NULL);
    return linear_column(c, col, 0, c->dp_full, np, NULL, J);
}

/* The free body of column col (*k: its entry 0-5), or -1: not a free body's velocity or control
 * column. *velocity: a velocity column. */
static int free_body_of_column(const ctx *c, int col, int *k, int *velocity) {
    int v0 = c->nt / 2, u0 = c->nt + c->free_control;
    if (!c->free_jac) return -1;
    if (col >= v0 && col < v0 + 6 * c->num_free)
        return *k = (col - v0) % 6, *velocity = 1, (col - v0) / 6;
    if (col >= u0 && col < u0 + 6 * c->num_free)
        return *k = (col - u0) % 6, *velocity = 0, (col - u0) / 6;
    return -1;
}

/* Column col of free body f (entry k): dx+ = D dp + dx+/dlambda dlambda. */
static lucid_status body_column(ctx *c, int col, int f, int k, int velocity,
                                lucid_step_jacobians *J) {
    const double *jac = c->free_jac + 108 * (size_t)f;
    const double *df = (velocity ? jac : jac + 72) + 6 * (size_t)k;
    const double *start = velocity ? jac + 36 + 6 * (size_t)k : NULL;
    set_linear_change(c, (size_t)c->body_slot[c->free_body[f]], df, start, 6);
    linear_dsigma(c, c->dp_full, start ? c->dstart_full : NULL);
    return linear_column(c, col, 0, c->dp_full, (size_t)c->nt / 2, NULL, J);
}

/* ---- the models' position columns, analytic (step_positions.c) ------------------- */

/* Whether a carried contact could leave its pair's margin within the columns' step along
 * dsep: the numerical column would see the contact list change and fall back to whole steps,
 * which flag the switch; the analytic one leaves such a column to it. */
static int leaves_margin(const ctx *c, const double *dsep) {
    for (int k = 0; k < c->ns; ++k)
        if (!(c->contacts[k].separation + fabs(dsep[k]) * c->o->step < c->margin0[k])) return 1;
    return 0;
}

/* Column col, the prepared body's or model's tangent j (left to implicit_column when a contact
 * would leave its margin). */
static lucid_status position_column(ctx *c, lucid_step_positions *sp, int j, int col,
                                    lucid_step_jacobians *J) {
    size_t nt = (size_t)c->nt;
    lucid_step_positions_column(sp, j, c->dp_full, c->dsigma, c->pos_dsep);
    if (leaves_margin(c, c->pos_dsep)) return LUCID_OK;
    memset(c->dmu, 0, (size_t)c->n * sizeof(double));
    c->analytic[col] = 1;
    return linear_column(c, col, 0, c->dp_full, nt / 2, c->Dq + nt * (size_t)col, J);
}

/* Every free body's and model's position columns from the rigid-body derivatives and the carried
 * geometry (needs carried contacts and the nominal rows: right after the velocity and control
 * columns); a model whose gravity needs correcting is left to implicit_column. */
static lucid_status position_columns(ctx *c, lucid_step_jacobians *J) {
    lucid_world *w = c->w;
    size_t nt = (size_t)c->nt, np = nt / 2;
    int ok = 1;
    c->pos_dsep = grab(c, (size_t)c->n + 1, sizeof(double), &ok);
    c->analytic = grab(c, np, sizeof(int), &ok);
    if (!ok) return LUCID_ERR_NO_MEMORY;
    /* back to the nominal evaluation: x0, u0, its free velocities, contacts and rows */
    lucid_status s = lucid_world_set_state(w, c->x0, NULL);
    if (s == LUCID_OK) s = lucid_world_set_controls(w, c->u0);
    if (s == LUCID_OK) s = lucid_world_step_prepare_velocities(w);
    if (s == LUCID_OK) s = lucid_world_restore_contacts(w, c->contacts, c->n);
    if (s != LUCID_OK) return s;
    lucid_step_positions *sp = lucid_step_positions_create(c->arena, w, c->contacts, c->n, c->ns,
                                                           c->geo, c->lambda0, c->post0, c->branch);
    if (!sp) return LUCID_ERR_NO_MEMORY;
    if (c->defer) lucid_step_positions_leave_rows(sp);
    c->unsolved0 = c->ndefer;
    for (int f = 0; f < c->num_free && s == LUCID_OK; ++f) {
        lucid_step_positions_body(sp, c->free_body[f]);
        int slot = c->body_slot[c->free_body[f]]; /* its position columns too */
        for (int j = 0; j < 6 && s == LUCID_OK; ++j) s = position_column(c, sp, j, slot + j, J);
    }
    for (int i = 0; i < w->num_models && s == LUCID_OK; ++i) {
        if (!lucid_step_positions_model(sp, i, c->model_drnea ? c->model_drnea[i] : NULL)) continue;
        size_t nv = lucid_model_nv(w->models[i].model);
        for (size_t j = 0; j < nv && s == LUCID_OK; ++j)
            s = position_column(c, sp, (int)j, c->model_slot[i] + (int)j, J);
    }
    c->unsolved1 = c->defer ? c->ndefer : c->unsolved0;
    return s;
}

/* dx+/de = d/de x+(e, lambda0) + dx+/dlambda dlambda, dlambda = IFT(dsigma, dmu). */
static lucid_status implicit_column(ctx *c, int col, lucid_step_jacobians *J) {
    double h = c->o->step, lo = lower_shift(c, col), scale = 1.0 / ((1.0 - lo) * h);
    size_t n3 = (size_t)c->dim * (size_t)c->n, nt = (size_t)c->nt;
    int same_p = 1, same_m = 1;
    lucid_status s = fixed_step(c, col, h, c->lambda0, c->sigma_p, c->mu_p, c->dplus, &same_p);
    if (s == LUCID_OK)
        s = fixed_step(c, col, lo * h, c->lambda0, c->sigma_m, c->mu_m, c->dminus, &same_m);
    if (s != LUCID_OK) return s;
    if (!same_p || !same_m) {
        ++J->fallback_columns;
        c->reuse = 0; /* whole steps overwrite the nominal contact rows */
        return fd_column(c, col, J);
    }
    for (size_t i = 0; i < n3; ++i) c->dsigma[i] = (c->sigma_p[i] - c->sigma_m[i]) * scale;
    for (int k = 0; k < c->n; ++k) c->dmu[k] = (c->mu_p[k] - c->mu_m[k]) * scale;
    if (n3 > 0) s = solve_dlambda(c);
    if (s != LUCID_OK) return s;
    for (size_t r = 0; r < nt; ++r) c->dplus[r] = (c->dplus[r] - c->dminus[r]) * scale;
    if (n3 > 0) add_force_change(c, c->dplus);
    memset(c->dminus, 0, nt * sizeof(double));
    store_column(c, col, 1.0, J);
    return LUCID_OK;
}

/* ---- the nominal step and the contact solution's factorisation ------------------------------ */

/* Relaxed: island i's problem p solved by the ip solver at kappa (a copy of it is kept with
 * the workspace, whose factorisation lucid_contact_ip_jvp reuses). */
static lucid_status relaxed_island(ctx *c, int i, const lucid_contact_problem *p) {
    size_t m3 = (size_t)lucid_contact_rows(p), n = (size_t)p->n;
    int ok = 1;
    double *data = grab(c, m3 * m3 + 4 * m3 + n, sizeof(double), &ok);
    c->ip_data[i] = data;
    c->ip[i] = lucid_contact_workspace_create((int)((m3 + 2) / 3)); /* 3 rows a capacity unit */
    if (!ok || !c->ip[i]) return LUCID_ERR_NO_MEMORY;
    double *G = data, *g = G + m3 * m3, *R = g + m3, *mu = R + m3, *lambda = mu + n,
           *dual = lambda + m3;
    memcpy(G, p->G, sizeof(double) * m3 * m3), memcpy(g, p->g, sizeof(double) * m3);
    memcpy(mu, p->mu, sizeof(double) * n);
    if (p->R) memcpy(R, p->R, sizeof(double) * m3);
    c->ip_problem[i] =
        (lucid_contact_problem){p->n, G, g, mu, p->R ? R : NULL, lucid_contact_dim(p)};
    lucid_contact_options o = lucid_contact_default_options();
    o.model = c->w->opt.contact.model;
    o.solver = LUCID_CONTACT_IP;
    o.kappa = c->o->kappa;
    o.tol = 1e-10;
    o.max_iter = 200;
    o.warm_start = 0;
    lucid_contact_result res;
    lucid_status s = lucid_contact_solve(&c->ip_problem[i], &o, c->ip[i], lambda, dual, &res);
    return s == LUCID_OK && res.diverged ? LUCID_ERR_NO_CONVERGENCE : s;
}

/* A dry-friction row on the dof or tendon of a limit that pushes: both rows are its moment, so
 * the load's split between them is not determined, and a change of the limit's separation
 * (corrected within the step: c*_N = -d / dt at the bound) slides the friction row either way.
 * Its force is held (its virtual normal force zeroed in the lambda the factor classifies:
 * breaking, dlambda = 0) and the limit takes the change. 1 when island i's li changed. */
static int hold_friction_on_limits(ctx *c, int i, const int *list, int m) {
    int held = 0;
    for (int k = 0; k < m; ++k) {
        const lucid_world_contact *f = &c->contacts[list[k]];
        if (!(f->frictionloss > 0.0)) continue;
        for (int j = 0; j < m; ++j) {
            const lucid_world_contact *l = &c->contacts[list[j]];
            if (l->limit_sign == 0 || l->limit_model != f->limit_model ||
                l->limit_tendon != f->limit_tendon || l->limit_dof != f->limit_dof ||
                lucid_contact_derivatives_mode(c->ift[i], j) == LUCID_CONTACT_BREAKING)
                continue;
            c->li[c->dim * k + 2] = 0.0;
            held = 1;
            break;
        }
    }
    return held;
}

static lucid_status factor_islands(ctx *c, lucid_step_jacobians *J) {
    lucid_world *w = c->w;
    int same = 1;
    lucid_status s = fixed_step(c, -1, 0.0, c->lambda0, c->sigma0, c->mu0, NULL, &same);
    if (s != LUCID_OK) return s;
    if (!same) return LUCID_ERR_INTERNAL; /* the same inputs gave other contacts */
    c->islands = c->w0->d.num_islands;
    int maxm = 0;
    c->island_start = grab(c, (size_t)c->islands + 1, sizeof(int), &same);
    c->island_contacts = grab(c, (size_t)c->n, sizeof(int), &same);
    c->ift = grab(c, (size_t)c->islands, sizeof *c->ift, &same);
    if (c->o->method == LUCID_STEP_RELAXED) {
        c->ip = grab(c, (size_t)c->islands, sizeof *c->ip, &same);
        c->ip_problem = grab(c, (size_t)c->islands, sizeof *c->ip_problem, &same);
        c->ip_data = grab(c, (size_t)c->islands, sizeof *c->ip_data, &same);
    }
    if (!same) return LUCID_ERR_NO_MEMORY;
    if (c->islands > 0) {
        memcpy(c->island_start, c->w0->d.island_start, sizeof(int) * ((size_t)c->islands + 1));
        memcpy(c->island_contacts, c->w0->d.island_contacts, sizeof(int) * (size_t)c->n);
    }
    for (int i = 0; i < c->islands; ++i)
        if (c->island_start[i + 1] - c->island_start[i] > maxm)
            maxm = c->island_start[i + 1] - c->island_start[i];
    int D = c->dim;
    size_t m3 = (size_t)D * (size_t)maxm;
    c->G = grab(c, m3 * m3, sizeof(double), &same);
    c->g = grab(c, m3, sizeof(double), &same), c->R = grab(c, m3, sizeof(double), &same);
    c->li = grab(c, m3, sizeof(double), &same), c->gi = grab(c, m3, sizeof(double), &same);
    c->mi = grab(c, (size_t)maxm, sizeof(double), &same);
    c->di = grab(c, m3, sizeof(double), &same);
    if (!same) return LUCID_ERR_NO_MEMORY;
    lucid_contact_derivative_options opt =
        lucid_contact_derivative_default_options(w->opt.contact.model);
    opt.threshold = c->o->threshold;
    for (int i = 0; i < c->islands; ++i) {
        int b = c->island_start[i], m = c->island_start[i + 1] - b;
        const int *list = c->island_contacts + b;
        lucid_world_island_delassus_dim(w, list, m, D, c->G);
        for (int k = 0; k < m; ++k) {
            memcpy(c->li + D * k, c->lambda0 + D * list[k], (size_t)D * sizeof(double));
            c->mi[k] = c->mu0[list[k]];
            for (int e = 0; e < D; ++e) c->R[D * k + e] = 0.0;
            c->R[D * k + 2] = w->opt.compliance;
            if (c->contacts[list[k]].frictionloss > 0.0) c->R[D * k + 2] = 0.0; /* rigid */
        }
        lucid_contact_dense_null_rows_dim(m, D, c->G, c->R, c->mi); /* as the step's problem */
        /* g = sigma - (G + R) lambda */
        for (int r = 0; r < D * m; ++r) {
            double acc = c->sigma0[D * list[r / D] + r % D] - c->R[r] * c->li[r];
            for (int q = 0; q < D * m; ++q) acc -= c->G[r + (size_t)(D * m) * q] * c->li[q];
            c->g[r] = acc;
        }
        lucid_contact_problem p = {m, c->G, c->g, c->mi, lucid_world_problem_R(c->R, (long)D * m),
                                   D};
        /* a storage holds 3 rows a contact: dim D wants D m / 3 of them */
        c->ift[i] = lucid_contact_derivatives_create_in(c->arena, (D * m + 2) / 3);
        if (!c->ift[i]) return LUCID_ERR_NO_MEMORY;
        s = lucid_contact_derivatives_factor(c->ift[i], &p, c->li, &opt);
        if (s == LUCID_OK && hold_friction_on_limits(c, i, list, m))
            s = lucid_contact_derivatives_factor(c->ift[i], &p, c->li, &opt);
        if (s != LUCID_OK) return s;
        if (c->o->method == LUCID_STEP_RELAXED) {
            s = relaxed_island(c, i, &p);
            if (s != LUCID_OK) return s;
        }
        lucid_contact_derivative_info info;
        lucid_contact_derivatives_get_info(c->ift[i], &info);
        J->rank_deficient |= info.rank_deficient;
        J->free_velocity = fmax(J->free_velocity, info.free_velocity);
        for (int k = 0; k < m; ++k) {
            J->mode[list[k]] = lucid_contact_derivatives_mode(c->ift[i], k);
            J->margin[list[k]] = lucid_contact_derivatives_margin(c->ift[i], k);
            /* a held friction row (hold_friction_on_limits) sits where its force turns: at a
             * switch of its own, which the velocities do not see */
            if (c->contacts[list[k]].frictionloss > 0.0 && c->li[D * k + 2] == 0.0)
                J->margin[list[k]] = 0.0;
        }
    }
    return LUCID_OK;
}

static lucid_status allocate(ctx *c, lucid_step_jacobians *J) {
    int ok = 1;
    size_t nx = (size_t)c->nx, nt = (size_t)c->nt, nu = (size_t)c->nu, n = (size_t)c->n;
    c->x1 = grab(c, nx, sizeof(double), &ok), c->xs = grab(c, nx, sizeof(double), &ok);
    c->us = grab(c, nu, sizeof(double), &ok), c->dx = grab(c, nt, sizeof(double), &ok);
    c->dplus = grab(c, nt, sizeof(double), &ok), c->dminus = grab(c, nt, sizeof(double), &ok);
    c->D = grab(c, nt * (nt / 2), sizeof(double), &ok);
    c->Dq = grab(c, nt * (nt / 2), sizeof(double), &ok);
    c->post0 = grab(c, nt / 2, sizeof(double), &ok), c->post = grab(c, nt / 2, sizeof(double), &ok);
    c->contacts = grab(c, n, sizeof *c->contacts, &ok);
    double **rows[] = {&c->lambda0, &c->lambda_s, &c->sigma0, &c->sigma_p,
                       &c->sigma_m, &c->dsigma,   &c->dlambda};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; ++k)
        *rows[k] = grab(c, (size_t)c->dim * n, sizeof(double), &ok);
    double **one[] = {&c->mu0, &c->mu_p, &c->mu_m, &c->vb, &c->dmu};
    for (size_t k = 0; k < sizeof one / sizeof one[0]; ++k)
        *one[k] = grab(c, n, sizeof(double), &ok);
    J->A = grab_out(nt * nt, sizeof(double), &ok), J->B = grab_out(nt * nu, sizeof(double), &ok);
    J->P = grab_out(nt * (size_t)c->np, sizeof(double), &ok);
    J->mode = grab_out(n, sizeof *J->mode, &ok), J->margin = grab_out(n, sizeof(double), &ok);
    J->switched = grab_out(n, sizeof(int), &ok), J->estimated = grab_out(n, sizeof(int), &ok);
    c->branch = grab(c, n, sizeof(int), &ok);
    c->body_slot = grab(c, (size_t)c->w->num_bodies, sizeof(int), &ok);
    c->model_slot = grab(c, (size_t)c->w->num_models + 1, sizeof(int), &ok);
    c->dp_full = grab(c, nt / 2, sizeof(double), &ok);
    c->dstart_full = grab(c, nt / 2, sizeof(double), &ok);
    if (ok) lucid_world_post_velocity_slots(c->w, c->body_slot, c->model_slot);
    for (size_t k = 0; ok && k < n; ++k) c->branch[k] = -1; /* chosen by the nominal evaluation */
    return ok ? LUCID_OK : LUCID_ERR_NO_MEMORY;
}

static lucid_status columns(ctx *c, lucid_step_jacobians *J) {
    lucid_contact_options saved = c->w->opt.contact;
    if (c->o->method == LUCID_STEP_FINITE_DIFFERENCES) {
        c->w->opt.contact.tol = c->o->tol;
        c->w->opt.contact.max_iter = c->o->max_iter;
        /* a perturbation turns a sliding friction direction by less than the criterion sees
         * (lucid_contact_polish_accepted_due): the warm start would pass unchanged */
        c->w->opt.contact.polish = 1;
    }
    lucid_status s = factor_islands(c, J);
    int cols = c->nt + c->nu + c->np, eq = lucid_world_models_have_equalities(c->w);
    if (c->o->method == LUCID_STEP_FINITE_DIFFERENCES) {
        for (int col = 0; col < cols && s == LUCID_OK; ++col) s = fd_column(c, col, J);
    } else {
        /* the columns that keep the configuration first, on the nominal contact rows (a
         * fallback to whole steps ends the reuse), then positions and parameters */
        c->reuse = !c->predicted_press;
        if (s == LUCID_OK) s = velocity_jacobian(c);
        if (s == LUCID_OK) s = force_jacobian(c);
        if (s == LUCID_OK) s = model_jacobians(c);
        if (s == LUCID_OK) s = begin_deferred(c);
        for (int col = c->nt / 2; col < c->nt + c->nu && s == LUCID_OK; ++col) {
            /* analytic while the nominal rows stand (a fallback's whole steps replace them) */
            int j, velocity, i = c->reuse ? model_of_column(c, col, &j, &velocity) : -1;
            int f = c->reuse && i < 0 ? free_body_of_column(c, col, &j, &velocity) : -1;
            s = i >= 0   ? model_column(c, col, i, j, velocity, J)
                : f >= 0 ? body_column(c, col, f, j, velocity, J)
                         : implicit_column(c, col, J);
        }
        /* the analytic position columns know neither P nor the stabilisation */
        if (s == LUCID_OK && c->reuse && c->carry && !eq) s = position_columns(c, J);
        if (s == LUCID_OK) s = flush_columns(c, J);
        c->reuse = 0;
        for (int col = 0; col < cols && s == LUCID_OK; ++col)
            if (!keeps_configuration(c, col) &&
                !(c->analytic && col < c->nt / 2 && c->analytic[col]))
                s = implicit_column(c, col, J);
    }
    c->w->opt.contact = saved;
    return s;
}

static lucid_status step_derivatives(lucid_world *w, const lucid_step_derivative_options *o,
                                     lucid_step_jacobians *J, const char **why) {
    if (why) *why = NULL;
    if (!w || !o || !J) return LUCID_ERR_ARGUMENT;
    memset(J, 0, sizeof *J);
    const char *bad = check_params(w, o);
    if (!bad) lucid_step_derivative_options_check(o, &bad); /* bad: the broken rule */
    if (!bad && o->method == LUCID_STEP_RELAXED && w->opt.contact.model != LUCID_CONTACT_NCP &&
        w->opt.contact.model != LUCID_CONTACT_CCP)
        bad = "method relaxed needs the world's contact model ncp or ccp";
    /* the box pyramid and RaiSim's model of dims 4 and 6 have no implicit derivatives
     * (contact_derivatives.h: dims 4 and 6 under ncp and ccp only) */
    if (!bad && w->opt.contact.model == LUCID_CONTACT_LCP && lucid_world_derivative_dim(w) > 3)
        bad = "torsional or rolling friction (4 or 6 rows per contact) under the lcp model has no "
              "step derivatives: use ncp or ccp";
    if (!bad && w->opt.contact.model == LUCID_CONTACT_RAISIM && lucid_world_derivative_dim(w) > 3)
        bad = "torsional or rolling friction (4 or 6 rows per contact) under the raisim model has "
              "no step derivatives: use ncp or ccp";
    /* the estimator's options up front: a failure inside the columns would only fall back to
     * collision detection */
    if (!bad && o->collision) lucid_derivative_options_check(o->collision, &bad);
    if (!bad && lucid_world_models_have_equalities(w) &&
        w->opt.collision == LUCID_WORLD_COLLISION_SINGLE_LEVEL)
        bad = "equality constraints (MJCF <equality>, URDF mimic) in a single_level world have no "
              "step derivatives: its relaxed derivatives do not differentiate their projection";
    if (!bad && w->opt.collision == LUCID_WORLD_COLLISION_SINGLE_LEVEL &&
        o->method != LUCID_STEP_RELAXED)
        bad = "a single_level world has method relaxed only (at its single_level.kappa)";
    if (bad) {
        if (why) *why = bad;
        return LUCID_ERR_ARGUMENT;
    }
    if (w->opt.collision == LUCID_WORLD_COLLISION_SINGLE_LEVEL && o->method == LUCID_STEP_RELAXED) {
        lucid_status s = lucid_single_level_step_derivatives(w, o, J);
        if (s != LUCID_OK && s != LUCID_ERR_NO_MEMORY && why && !*why)
            *why = "a perturbed evaluation failed";
        return s;
    }
    ctx c = {.w0 = w,
             .arena = &w->derivative_arena,
             .o = o,
             .nx = lucid_world_state_size(w),
             .nt = lucid_world_tangent_size(w),
             .nu = lucid_world_controls_size(w),
             .np = o->num_params,
             .dim = lucid_world_derivative_dim(w)};
    int ok = copy_cache(&c, w, &c.cache0, &c.ncache0);
    c.x0 = grab(&c, (size_t)c.nx, sizeof(double), &ok);
    c.u0 = grab(&c, (size_t)c.nu, sizeof(double), &ok);
    lucid_status s = ok ? lucid_world_clone_into(w, &w->scratch) : LUCID_ERR_NO_MEMORY;
    c.w = w->scratch;
    if (c.w) c.w->d.act_inputs = w->d.act_inputs;
    if (s != LUCID_OK) {
        release(&c);
        return s;
    }
    lucid_world_get_state(w, c.x0);
    lucid_world_get_controls(w, c.u0);
    s = lucid_world_step(w);
    if (s != LUCID_OK) {
        release(&c);
        return s;
    }
    c.n = w->d.num_contacts;
    s = allocate(&c, J);
    if (s == LUCID_OK && !copy_cache(&c, w, &c.cache1, &c.ncache1)) s = LUCID_ERR_NO_MEMORY;
    if (s == LUCID_OK) {
        lucid_world_get_state(w, c.x1);
        if (c.n > 0) memcpy(c.contacts, w->d.contacts, sizeof *c.contacts * (size_t)c.n);
        for (int k = 0; k < c.n; ++k) { /* a spin row's force is torsion_force / a, a rolling
                                         * row's rolling_force / b */
            const lucid_world_contact *ck = &w->d.contacts[k];
            double a = lucid_world_contact_spin(ck), b = lucid_world_contact_roll(ck);
            memcpy(c.lambda0 + c.dim * k, ck->force, 3 * sizeof(double));
            if (c.dim > 3) c.lambda0[c.dim * k + 3] = a > 0.0 ? ck->torsion_force / a : 0.0;
            for (int r = 0; c.dim == 6 && r < 2; ++r)
                c.lambda0[6 * k + 4 + r] = b > 0.0 ? ck->rolling_force[r] / b : 0.0;
        }
        J->nt = c.nt, J->nu = c.nu, J->np = c.np, J->contacts = c.n;
        s = setup_geometry(&c, J, why);
        if (s == LUCID_OK) s = columns(&c, J);
    }
    if (s != LUCID_OK) {
        if (why && !*why) *why = "a perturbed evaluation failed";
        lucid_step_jacobians_free(J);
    }
    release(&c);
    return s;
}

/* ---- actuator activations ------------------------------------------------------------------
 * With activations the state is (q, v, act) and act+ = clamp(act + dt act_dot(u, act)) depends
 * on u and act alone, while this step's force reads act as a stateless actuator reads its
 * control. So the machinery above runs on (q, v) with the activations as inputs (act_inputs:
 * each model's after its controls), and its A, B are rearranged: the activations' input
 * columns become A's columns of act, the Euler update's slopes its act rows and B's. */

/* Per model: its first entry among the internal inputs (with activations) and among the
 * caller's controls, and its first activation; index nm: the totals. The activations' slopes
 * (lucid_world_model_activation_slopes) at the inputs before the step: d_act, d_u (na each). */
typedef struct act_layout {
    int *in, *out, *act;
    double *d_act, *d_u;
} act_layout;

/* X's act rows: d act+/d act on the diagonal, d act+/d u in B. */
static void activation_rows(const lucid_world *w, const act_layout *L, int nt,
                            lucid_step_jacobians *X) {
    size_t n = (size_t)X->nt;
    for (int i = 0; i < w->num_models; ++i) {
        const lucid_model *m = w->models[i].model;
        const lucid_model_actuator *A = lucid_model_actuators(m);
        for (size_t a = 0; a < lucid_model_nu(m); ++a) {
            if (A[a].act < 0) continue;
            size_t j = (size_t)L->act[i] + (size_t)A[a].act, r = (size_t)nt + j;
            X->A[r + n * r] = L->d_act[j];
            X->B[r + n * (size_t)(L->out[i] + (int)a)] = L->d_u[j];
        }
    }
}

/* The caller's A, B, P (over (q, v, act)) from the internal ones in J (over (q, v), the
 * activations as inputs). */
static lucid_status expand(const lucid_world *w, const act_layout *L, lucid_step_jacobians *J) {
    int nm = w->num_models, nt = J->nt, na = L->act[nm], nux = J->nu - na, np = J->np;
    size_t n = (size_t)(nt + na), col_bytes = (size_t)nt * sizeof(double);
    lucid_step_jacobians X = *J;
    X.nt = nt + na, X.nu = nux;
    X.A = calloc(n * n, sizeof(double));
    X.B = calloc(n * (size_t)(nux > 0 ? nux : 1), sizeof(double));
    X.P = calloc(n * (size_t)(np > 0 ? np : 1), sizeof(double));
    if (!X.A || !X.B || !X.P) {
        free(X.A), free(X.B), free(X.P);
        return LUCID_ERR_NO_MEMORY;
    }
    for (int k = 0; k < nt; ++k) memcpy(X.A + n * (size_t)k, J->A + (size_t)nt * k, col_bytes);
    for (int k = 0; k < np; ++k) memcpy(X.P + n * (size_t)k, J->P + (size_t)nt * k, col_bytes);
    for (int i = 0; i < nm; ++i) { /* controls to B, activations to A's act columns */
        int nu = L->out[i + 1] - L->out[i], nai = L->act[i + 1] - L->act[i];
        for (int a = 0; a < nu; ++a)
            memcpy(X.B + n * (size_t)(L->out[i] + a), J->B + (size_t)nt * (L->in[i] + a),
                   col_bytes);
        for (int j = 0; j < nai; ++j)
            memcpy(X.A + n * (size_t)(nt + L->act[i] + j), J->B + (size_t)nt * (L->in[i] + nu + j),
                   col_bytes);
    }
    for (int k = L->out[nm]; k < nux; ++k) /* the free bodies' wrenches */
        memcpy(X.B + n * (size_t)k, J->B + (size_t)nt * (L->in[nm] + k - L->out[nm]), col_bytes);
    activation_rows(w, L, nt, &X);
    free(J->A), free(J->B), free(J->P);
    *J = X;
    return LUCID_OK;
}

static lucid_status step_derivatives_with_activations(lucid_world *w,
                                                      const lucid_step_derivative_options *o,
                                                      lucid_step_jacobians *J, const char **why) {
    int nm = w->num_models;
    size_t na = lucid_world_models_na(w);
    act_layout L = {calloc((size_t)nm + 1, sizeof(int)), calloc((size_t)nm + 1, sizeof(int)),
                    calloc((size_t)nm + 1, sizeof(int)), calloc(2 * na, sizeof(double)), NULL};
    lucid_status s = L.in && L.out && L.act && L.d_act ? LUCID_OK : LUCID_ERR_NO_MEMORY;
    for (int i = 0; s == LUCID_OK && i < nm; ++i) {
        const lucid_model *m = w->models[i].model;
        L.out[i + 1] = L.out[i] + (int)lucid_model_nu(m);
        L.act[i + 1] = L.act[i] + (int)lucid_model_na(m);
        L.in[i + 1] = L.in[i] + (int)(lucid_model_nu(m) + lucid_model_na(m));
        L.d_u = L.d_act + na;
        lucid_world_model_activation_slopes(w, i, L.d_act + L.act[i], L.d_u + L.act[i]);
    }
    if (s == LUCID_OK) {
        w->d.act_inputs = 1;
        s = step_derivatives(w, o, J, why);
        w->d.act_inputs = 0;
        if (w->scratch) w->scratch->d.act_inputs = 0;
    }
    if (s == LUCID_OK) s = expand(w, &L, J);
    if (s != LUCID_OK) lucid_step_jacobians_free(J);
    free(L.in), free(L.out), free(L.act), free(L.d_act);
    return s;
}

lucid_status lucid_world_step_derivatives(lucid_world *w, const lucid_step_derivative_options *o,
                                          lucid_step_jacobians *J, const char **why) {
    if (w && lucid_world_models_na(w) > 0 && w->opt.collision != LUCID_WORLD_COLLISION_SINGLE_LEVEL)
        return step_derivatives_with_activations(w, o, J, why);
    return step_derivatives(w, o, J, why);
}
