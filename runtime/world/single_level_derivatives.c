/* Step derivatives through the single-level NCP (single_level_derivatives.h). */
#include "runtime/world/single_level_derivatives.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/world/world_internal.h"

typedef struct sl_ctx {
    lucid_world *w;
    const lucid_step_derivative_options *o;
    int nx, nt, nu, np, n;
    double *x0, *x1, *u0, *us, *xs, *dx, *Fp, *Fm, *dX, *xp, *xm, *d;
} sl_ctx;

/* Sets the world to column col's inputs shifted by delta (state, control or parameter, the
 * others nominal) and recomputes the free velocities. Returns the parameter's nominal value
 * through *p0 when a parameter was shifted. */
static lucid_status perturb(sl_ctx *c, int col, double delta, double *p0) {
    memcpy(c->us, c->u0, sizeof(double) * (size_t)c->nu);
    memset(c->dx, 0, sizeof(double) * (size_t)c->nt);
    if (col < c->nt)
        c->dx[col] = delta;
    else if (col < c->nt + c->nu)
        c->us[col - c->nt] += delta;
    lucid_status s = lucid_world_state_integrate(c->w, c->x0, c->dx, c->xs);
    if (s == LUCID_OK) s = lucid_world_set_state(c->w, c->xs, NULL);
    if (s == LUCID_OK) s = lucid_world_set_controls(c->w, c->us);
    if (s == LUCID_OK && col >= c->nt + c->nu) {
        const lucid_step_param *p = &c->o->params[col - c->nt - c->nu];
        s = lucid_step_param_get(c->w, p, p0, NULL);
        if (s == LUCID_OK) s = lucid_step_param_set(c->w, p, *p0 + delta, NULL);
    }
    return s == LUCID_OK ? lucid_world_step_begin(c->w) : s;
}

static void unperturb(sl_ctx *c, int col, double p0) {
    if (col >= c->nt + c->nu)
        lucid_step_param_set(c->w, &c->o->params[col - c->nt - c->nu], p0, NULL);
}

/* Column col of (A, B, P): dX from the equations' central difference, then the next state's. */
static lucid_status column(sl_ctx *c, int col, double *out) {
    double h = c->o->step, p0 = 0.0;
    if (col >= c->nt + c->nu) { /* a parameter near its bound 0 (mass, friction) */
        lucid_step_param_get(c->w, &c->o->params[col - c->nt - c->nu], &p0, NULL);
        if (p0 - h < 0.0) h = 0.5 * p0;
        if (!(h > 0.0)) return LUCID_ERR_ARGUMENT;
    }
    for (int side = 0; side < 2; ++side) {
        lucid_status s = perturb(c, col, side ? -h : h, &p0);
        if (s != LUCID_OK) return s;
        if (c->n > 0) lucid_world_single_level_equations(c->w, side ? c->Fm : c->Fp);
        unperturb(c, col, p0);
    }
    for (int i = 0; i < c->n; ++i) c->dX[i] = -(c->Fp[i] - c->Fm[i]) / (2.0 * h);
    if (c->n > 0) lucid_world_single_level_solve(c->w, c->dX);
    for (int side = 0; side < 2; ++side) {
        double e = side ? -h : h;
        lucid_status s = perturb(c, col, e, &p0);
        if (s != LUCID_OK) return s;
        if (c->n > 0) lucid_world_single_level_velocities(c->w, c->dX, e);
        s = lucid_world_step_integrate(c->w);
        unperturb(c, col, p0);
        if (s != LUCID_OK) return s;
        lucid_world_get_state(c->w, side ? c->xm : c->xp);
    }
    lucid_status s = lucid_world_state_difference(c->w, c->xm, c->xp, c->d);
    for (int i = 0; i < c->nt; ++i) out[i] = c->d[i] / (2.0 * h);
    return s;
}

static double *grab(size_t n, int *ok) {
    double *p = calloc(n > 0 ? n : 1, sizeof(double));
    if (!p) *ok = 0;
    return p;
}

lucid_status lucid_single_level_step_derivatives(lucid_world *w,
                                                 const lucid_step_derivative_options *o,
                                                 lucid_step_jacobians *J) {
    sl_ctx c = {.w = w,
                .o = o,
                .nx = lucid_world_state_size(w),
                .nt = lucid_world_tangent_size(w),
                .nu = lucid_world_controls_size(w),
                .np = o->num_params};
    int ok = 1;
    c.x0 = grab((size_t)c.nx, &ok), c.u0 = grab((size_t)c.nu, &ok);
    if (!ok) {
        free(c.x0), free(c.u0);
        return LUCID_ERR_NO_MEMORY;
    }
    lucid_world_get_state(w, c.x0);
    lucid_world_get_controls(w, c.u0);
    w->d.single_level_lu = 1; /* the LU at each island's answer, for the solves below */
    lucid_status s = lucid_world_step(w);
    w->d.single_level_lu = 0;
    if (s != LUCID_OK) {
        free(c.x0), free(c.u0);
        return s;
    }
    lucid_world_stats stats = lucid_world_last_stats(w);
    int contacts = w->d.num_contacts;
    c.n = lucid_world_single_level_unknowns(w);
    int memory = lucid_world_single_level_memory(w);
    size_t nt = (size_t)c.nt, nx = (size_t)c.nx, n = (size_t)c.n;
    c.x1 = grab(nx, &ok), c.us = grab((size_t)c.nu, &ok), c.xs = grab(nx, &ok);
    double *u1 = grab((size_t)c.nu, &ok); /* the controls the step left (wrenches consumed) */
    if (u1) lucid_world_get_controls(w, u1);
    c.dx = grab(nt, &ok), c.Fp = grab(n, &ok), c.Fm = grab(n, &ok), c.dX = grab(n, &ok);
    c.xp = grab(nx, &ok), c.xm = grab(nx, &ok), c.d = grab(nt, &ok);
    lucid_world_contact *saved = calloc(contacts > 0 ? (size_t)contacts : 1, sizeof *saved);
    J->A = grab(nt * nt, &ok), J->B = grab(nt * (size_t)c.nu, &ok);
    J->P = grab(nt * (size_t)c.np, &ok);
    J->mode = calloc(contacts > 0 ? (size_t)contacts : 1, sizeof *J->mode);
    J->margin = grab((size_t)contacts, &ok);
    J->switched = calloc(contacts > 0 ? (size_t)contacts : 1, sizeof(int));
    if (!ok || !saved || !J->mode || !J->switched) s = LUCID_ERR_NO_MEMORY;
    if (s == LUCID_OK) {
        lucid_world_get_state(w, c.x1);
        if (contacts > 0) memcpy(saved, w->d.contacts, sizeof *saved * (size_t)contacts);
        for (int k = 0; k < contacts; ++k)
            J->mode[k] = (lucid_contact_mode)lucid_world_single_level_mode(w, k);
        J->nt = c.nt, J->nu = c.nu, J->np = c.np, J->contacts = contacts;
        for (int col = 0; s == LUCID_OK && col < c.nt + c.nu + c.np; ++col) {
            double *out = col < c.nt          ? J->A + nt * (size_t)col
                          : col < c.nt + c.nu ? J->B + nt * (size_t)(col - c.nt)
                                              : J->P + nt * (size_t)(col - c.nt - c.nu);
            s = column(&c, col, out);
        }
    }
    /* leave w as the nominal step did: its state, controls consumed, contacts, stats and the
     * warm-start memory of the solve (which set_state forgets, so it is kept aside) */
    if (ok && saved) {
        lucid_status r = lucid_world_set_state(w, c.x1, NULL);
        lucid_world_single_level_set_memory(w, memory);
        if (r == LUCID_OK && contacts > 0) {
            lucid_status q = LUCID_RESERVE(w, d.contacts, (size_t)contacts);
            if (q == LUCID_OK) memcpy(w->d.contacts, saved, sizeof *saved * (size_t)contacts);
            w->d.num_contacts = q == LUCID_OK ? contacts : 0;
        }
        if (u1) lucid_world_set_controls(w, u1);
        w->d.stats = stats;
        if (s == LUCID_OK) s = r;
    }
    if (s != LUCID_OK) lucid_step_jacobians_free(J);
    free(saved), free(u1);
    double *bufs[] = {c.x0, c.x1, c.u0, c.us, c.xs, c.dx, c.Fp, c.Fm, c.dX, c.xp, c.xm, c.d};
    for (size_t k = 0; k < sizeof bufs / sizeof bufs[0]; ++k) free(bufs[k]);
    return s;
}
