/* The step with its contact forces given instead of solved, for the step derivatives
 * (runtime/world/step_derivatives.c): the implicit function theorem differentiates the contact
 * solution, and this map supplies the rest of the step at a fixed lambda. */
#include <string.h>

#include "runtime/model/model.h"
#include "runtime/world/world_internal.h"

/* Same contact identity: bodies, parts and joint or tendon limit (a patch keeps its point
 * order). */
static int same_contact(const lucid_world_contact *a, const lucid_world_contact *b) {
    return a->body1 == b->body1 && a->body2 == b->body2 && a->part1 == b->part1 &&
           a->part2 == b->part2 && a->limit_model == b->limit_model &&
           a->limit_dof == b->limit_dof && a->limit_sign == b->limit_sign &&
           a->limit_tendon == b->limit_tendon && (a->frictionloss > 0.0) == (b->frictionloss > 0.0);
}

static int same_contacts(const lucid_world *w, const lucid_world_contact *expect, int n) {
    if (w->d.num_contacts != n) return 0;
    for (int k = 0; k < n; ++k)
        if (!same_contact(&w->d.contacts[k], &expect[k])) return 0;
    return 1;
}

/* Within each run of contacts of one shape pair (a patch), the detected points in the order of
 * expect's, each taking the nearest remaining one: a perturbed detection may list a patch's
 * points in another order (an equal face on an equal face clips from either side), and the
 * forces belong to the points they were solved for. */
static void follow_points(lucid_world *w, const lucid_world_contact *expect, int n) {
    for (int a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && same_contact(&expect[b], &expect[a]);) ++b;
        for (int k = a; k + 1 < b; ++k) {
            int best = k;
            double dmin = lucid_vec3_dist(w->d.contacts[k].point, expect[k].point);
            for (int j = k + 1; j < b; ++j) {
                double d = lucid_vec3_dist(w->d.contacts[j].point, expect[k].point);
                if (d < dmin) dmin = d, best = j;
            }
            lucid_world_contact t = w->d.contacts[k];
            w->d.contacts[k] = w->d.contacts[best], w->d.contacts[best] = t;
        }
    }
}

/* The piece of c*_N that the derivatives follow: the step's (resting contacts lie inside the
 * rest band, away from its edges). */
static int derivative_branch(const lucid_world *w, const lucid_world_contact *c, double v_before) {
    int piece;
    lucid_world_reference_velocity_branch(w, c, v_before, -1, &piece);
    return piece;
}

int lucid_world_derivative_dim(const lucid_world *w) {
    int dim = lucid_world_models_pair_dim(w);
    if (dim == 6) return 6;
    for (int k = 0; k < w->num_parts; ++k) {
        if (w->part_contact[k].condim >= 6) return 6;
        if (w->part_contact[k].condim >= 4) dim = 4;
    }
    for (int i = 0; i < w->num_bodies; ++i) { /* a plain body's parts: by its torsion, rolling */
        const lucid_body *b = &w->bodies[i];
        if (b->model >= 0 || !(b->friction > 0.0)) continue;
        if (b->rolling > 0.0) return 6;
        if (b->torsion > 0.0) dim = 4;
    }
    return dim;
}

/* sigma_k = (J_k v+ - c*_k e_n) / dt + R_k lambda_k (+ lambda_T on a limit's unit tangential
 * diagonal; sigma_k[3] = J_s v+ / dt, the spin row, in a world of dim 4 or 6, sigma_k[4, 5] =
 * J_r v+ / dt, the rolling rows, in a world of dim 6): the solver's
 * (G + R) lambda + g, evaluated through the velocities. A friction
 * row's normal: d (lambda_n - f), d the nominal step's (expect's; it multiplies lambda_n - f,
 * zero at a solution, so its own change with the inputs drops out of dsigma). */
static void contact_sigma(const lucid_world *w, const lucid_world_contact *expect, int k,
                          const double *v_before, int *branch, int dim, double *sigma) {
    const lucid_world_contact *c = &w->d.contacts[k];
    const double dt = w->opt.dt;
    for (int r = 3; r < dim; ++r) sigma[r] = lucid_world_contact_row_velocity(w, k, r) / dt;
    lucid_vec3 u = lucid_world_contact_velocity(w, k, w->d.v_free, w->d.w_free);
    if (c->frictionloss > 0.0) {
        sigma[0] = u.x / dt, sigma[1] = u.y / dt;
        sigma[2] = expect[k].row_diagonal * (c->force[2] - c->frictionloss);
        return;
    }
    if (branch[k] < 0) branch[k] = derivative_branch(w, c, v_before[k]);
    u.z -= lucid_world_reference_velocity_branch(w, c, v_before[k], branch[k], NULL);
    lucid_vec3_store(lucid_vec3_scale(u, 1.0 / dt), sigma);
    sigma[2] += w->opt.compliance * c->force[2];
    if (c->limit_sign != 0) sigma[0] += c->force[0], sigma[1] += c->force[1];
}

/* Contact forces lambda into the contacts, the final velocities v+ = v_free + dt M~^-1 J^T
 * lambda and sigma, once the contact list and its rows are those of expect. */
static void apply_forces(lucid_world *w, const lucid_world_contact *expect, int n,
                         const double *lambda, double *sigma, double *mu, double *v_before,
                         int *branch) {
    int dim = lucid_world_derivative_dim(w);
    for (int k = 0; k < n; ++k) {
        lucid_world_contact *c = &w->d.contacts[k];
        memcpy(c->force, lambda + dim * k, sizeof c->force);
        c->torsion_force = dim > 3 ? lucid_world_contact_spin(c) * lambda[dim * k + 3] : 0.0;
        for (int r = 0; r < 2; ++r)
            c->rolling_force[r] =
                dim == 6 ? lucid_world_contact_roll(c) * lambda[6 * k + 4 + r] : 0.0;
        if (mu) mu[k] = c->friction;
        /* the models' velocity at the start is what their side velocity reads for "not free" */
        v_before[k] = lucid_world_contact_velocity(w, k, w->d.v_start, w->d.w_start).z;
    }
    for (int k = 0; k < n; ++k) lucid_world_apply_contact_force(w, k);
    if (w->d.rows_without_inverse) lucid_world_models_apply_forces(w, n);
    for (int k = 0; k < n; ++k) contact_sigma(w, expect, k, v_before, branch, dim, sigma + dim * k);
}

/* Once the contact list is set: when it is expect's, its rows, the forces lambda and the
 * integration (*same = 1). */
static lucid_status forces_and_integrate(lucid_world *w, const lucid_world_contact *expect, int n,
                                         const double *lambda, double *sigma, double *mu,
                                         double *v_before, int *branch, int *same) {
    if (!same_contacts(w, expect, n)) return LUCID_OK;
    *same = 1;
    follow_points(w, expect, n);
    lucid_status s = lucid_world_contact_rows(w);
    if (s != LUCID_OK) return s;
    apply_forces(w, expect, n, lambda, sigma, mu, v_before, branch);
    return lucid_world_step_integrate(w);
}

lucid_status lucid_world_step_with_forces(lucid_world *w, const lucid_world_contact *expect, int n,
                                          const double *lambda, double *sigma, double *mu,
                                          double *v_before, int *branch, int *same) {
    *same = 0;
    lucid_status s = lucid_world_step_prepare(w);
    if (s != LUCID_OK) return s;
    return forces_and_integrate(w, expect, n, lambda, sigma, mu, v_before, branch, same);
}

lucid_status lucid_world_step_with_contacts(lucid_world *w, const lucid_world_contact *given,
                                            int ng, const lucid_world_contact *expect, int n,
                                            const double *lambda, double *sigma, double *mu,
                                            double *v_before, int *branch, int *same) {
    *same = 0;
    w->d.num_contacts = 0;
    lucid_status s = LUCID_OK;
    for (int k = 0; k < ng && s == LUCID_OK; ++k) s = lucid_world_push_contact(w, &given[k]);
    if (s == LUCID_OK) s = lucid_world_models_limits(w);
    if (s == LUCID_OK) s = lucid_world_models_friction_rows(w);
    if (s != LUCID_OK) return s;
    return forces_and_integrate(w, expect, n, lambda, sigma, mu, v_before, branch, same);
}

lucid_status lucid_world_step_with_forces_reuse(lucid_world *w, const lucid_world_contact *expect,
                                                int n, const double *lambda, double *sigma,
                                                double *mu, double *v_before, int *branch,
                                                double *post, int *same) {
    *same = 0;
    if (lucid_world_restore_contacts(w, expect, n) != LUCID_OK) return LUCID_OK;
    *same = 1;
    lucid_status s = lucid_world_step_prepare_velocities(w);
    if (s != LUCID_OK) return s;
    apply_forces(w, expect, n, lambda, sigma, mu, v_before, branch);
    lucid_world_post_velocity(w, post);
    return LUCID_OK;
}

lucid_status lucid_world_restore_contacts(lucid_world *w, const lucid_world_contact *expect,
                                          int n) {
    if (n < 0 || (size_t)n > w->d.contacts_cap) return LUCID_ERR_INTERNAL;
    w->d.num_contacts = n; /* set_state emptied the list; its entries are the last evaluation's */
    if (same_contacts(w, expect, n)) return LUCID_OK;
    w->d.num_contacts = 0;
    return LUCID_ERR_INTERNAL;
}

/* p: each free body's v_free, w_free (centre of mass, world frame), then the models' v_free. */
void lucid_world_post_velocity(const lucid_world *w, double *p) {
    for (int i = 0; i < w->num_bodies; ++i) {
        const lucid_body *b = &w->bodies[i];
        if (b->is_static || b->model >= 0) continue;
        lucid_vec3_store(w->d.v_free[i], p), lucid_vec3_store(w->d.w_free[i], p + 3);
        p += 6;
    }
    for (int m = 0; m < w->num_models; ++m) {
        size_t nv = lucid_model_nv(w->models[m].model);
        memcpy(p, w->models[m].v_free, nv * sizeof(double));
        p += nv;
    }
}

void lucid_world_set_post_velocity(lucid_world *w, const double *p) {
    for (int i = 0; i < w->num_bodies; ++i) {
        const lucid_body *b = &w->bodies[i];
        if (b->is_static || b->model >= 0) continue;
        w->d.v_free[i] = lucid_vec3_load(p), w->d.w_free[i] = lucid_vec3_load(p + 3);
        p += 6;
    }
    for (int m = 0; m < w->num_models; ++m) {
        size_t nv = lucid_model_nv(w->models[m].model);
        memcpy(w->models[m].v_free, p, nv * sizeof(double));
        p += nv;
    }
}

void lucid_world_post_velocity_slots(const lucid_world *w, int *body_slot, int *model_slot) {
    int slot = 0;
    for (int i = 0; i < w->num_bodies; ++i) {
        const lucid_body *b = &w->bodies[i];
        body_slot[i] = b->is_static || b->model >= 0 ? -1 : slot;
        slot += body_slot[i] >= 0 ? 6 : 0;
    }
    for (int m = 0; m < w->num_models; ++m) {
        model_slot[m] = slot;
        slot += (int)lucid_model_nv(w->models[m].model);
    }
    model_slot[w->num_models] = slot;
}

lucid_vec3 lucid_world_contact_rows_times(const lucid_world *w, int k, const int *body_slot,
                                          const int *model_slot, const double *dp) {
    const lucid_world_contact *c = &w->d.contacts[k];
    double out[3] = {0, 0, 0};
    for (int side = 0; side < 2; ++side) {
        const lucid_contact_side *sd = &w->d.sides[2 * k + side];
        if (sd->model >= 0) {
            size_t nv = sd->width; /* the rows over its tree's dofs */
            const double *J = w->d.link_J + sd->row, *x = dp + model_slot[sd->model] + sd->dof;
            for (int d = 0; d < 3; ++d)
                for (size_t q = 0; q < nv; ++q) out[d] += J[(size_t)d * nv + q] * x[q];
        } else if (sd->body >= 0) {
            const double *x = dp + body_slot[sd->body];
            lucid_vec3 v = lucid_vec3_load(x), om = lucid_vec3_load(x + 3);
            for (int d = 0; d < 3; ++d)
                out[d] += sd->sign * (lucid_vec3_dot(lucid_mat3_col(&c->frame, d), v) +
                                      lucid_vec3_dot(sd->ang[d], om));
        }
    }
    return lucid_vec3_load(out);
}

void lucid_world_contact_rows_add(const lucid_world *w, int k, const int *body_slot,
                                  const int *model_slot, double *rows, size_t ld) {
    const lucid_world_contact *c = &w->d.contacts[k];
    for (int side = 0; side < 2; ++side) {
        const lucid_contact_side *sd = &w->d.sides[2 * k + side];
        if (sd->model >= 0) {
            size_t nv = sd->width; /* the rows over its tree's dofs */
            const double *J = w->d.link_J + sd->row;
            double *out = rows + ld * ((size_t)model_slot[sd->model] + sd->dof);
            for (int d = 0; d < 3; ++d)
                for (size_t q = 0; q < nv; ++q) out[(size_t)d + ld * q] += J[(size_t)d * nv + q];
        } else if (sd->body >= 0) {
            double *out = rows + ld * (size_t)body_slot[sd->body];
            for (int d = 0; d < 3; ++d) {
                lucid_vec3 n = lucid_mat3_col(&c->frame, d), a = sd->ang[d];
                const double lin[3] = {n.x, n.y, n.z}, ang[3] = {a.x, a.y, a.z};
                for (int e = 0; e < 3; ++e) {
                    out[(size_t)d + ld * (size_t)e] += sd->sign * lin[e];
                    out[(size_t)d + ld * (size_t)(3 + e)] += sd->sign * ang[e];
                }
            }
        }
    }
}

/* The angular direction of a free body side's row r (3: the spin, 4, 5: the rolling), or NULL
 * when the side has no such row. */
static const lucid_vec3 *side_row_ang(const lucid_contact_side *sd, int r) {
    if (r == 3) return sd->spin ? &sd->spin_ang : NULL;
    return sd->roll ? &sd->roll_ang[r - 4] : NULL;
}

/* Whether a side has row r (a link's rows 3.. are present up to its last one: side_rows). */
static int side_has_row(const lucid_contact_side *sd, int r) {
    return r == 3 ? sd->spin || sd->roll : sd->roll;
}

double lucid_world_contact_row_times(const lucid_world *w, int k, int r, const int *body_slot,
                                     const int *model_slot, const double *dp) {
    double out = 0.0;
    for (int side = 0; side < 2; ++side) {
        const lucid_contact_side *sd = &w->d.sides[2 * k + side];
        if (!side_has_row(sd, r)) continue;
        if (sd->model >= 0) {
            size_t nv = sd->width;
            const double *J = w->d.link_J + sd->row + (size_t)r * nv,
                         *x = dp + model_slot[sd->model] + sd->dof;
            for (size_t q = 0; q < nv; ++q) out += J[q] * x[q];
        } else if (sd->body >= 0 && side_row_ang(sd, r)) {
            out += sd->sign * lucid_vec3_dot(*side_row_ang(sd, r),
                                             lucid_vec3_load(dp + body_slot[sd->body] + 3));
        }
    }
    return out;
}

void lucid_world_contact_row_add(const lucid_world *w, int k, int r, const int *body_slot,
                                 const int *model_slot, double *row, size_t ld) {
    for (int side = 0; side < 2; ++side) {
        const lucid_contact_side *sd = &w->d.sides[2 * k + side];
        if (!side_has_row(sd, r)) continue;
        if (sd->model >= 0) {
            size_t nv = sd->width;
            const double *J = w->d.link_J + sd->row + (size_t)r * nv;
            double *out = row + ld * ((size_t)model_slot[sd->model] + sd->dof);
            for (size_t q = 0; q < nv; ++q) out[ld * q] += J[q];
        } else if (sd->body >= 0 && side_row_ang(sd, r)) {
            double *out = row + ld * ((size_t)body_slot[sd->body] + 3);
            lucid_vec3 a = *side_row_ang(sd, r);
            const double e3[3] = {a.x, a.y, a.z};
            for (int e = 0; e < 3; ++e) out[ld * (size_t)e] += sd->sign * e3[e];
        }
    }
}
