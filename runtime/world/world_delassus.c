/* Islands, the dense Delassus problem of each island, its solution and the contact impulses.
 *
 * J maps the bodies' twists (v_com, w) to the contact velocities c = vel_2(p) - vel_1(p) in
 * the frame (t1, t2, n); the block of one body along frame direction d is sign (d, r x d)
 * with r = p - x_com, so M^-1 J^T is sign (d / m, I^-1 (r x d)) and
 *   G_(ik)(jl) = sum over bodies b shared by contacts i and j of
 *                s_ib s_jb (d_ik . d_jl / m_b + (r_ib x d_ik) . I_b^-1 (r_jb x d_jl)).
 * M is block diagonal (m Id, I_world), so its "Cholesky" is the inverse of the 3x3 inertia,
 * precomputed once per body. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/model/model.h"
#include "runtime/world/world_internal.h"
#include "solvers/contact/contact_round_off.h"

/* ---- islands --------------------------------------------------------------------------- */

static int find_root(int *parent, int i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/* A static body, or a model's link no dof moves: it joins no island. */
static int fixed(const lucid_world *w, int body) {
    const lucid_body *b = &w->bodies[body];
    return b->is_static || (b->model >= 0 && lucid_world_models_tree(w, body) < 0);
}

/* The body of an item that is not fixed (an item joins at least one moving body). */
static int dynamic_body(const lucid_world *w, int body1, int body2) {
    return fixed(w, body1) ? body2 : body1;
}

/* The links of one subtree of a model move together: one island (each link joined to its
 * parent link when that is on the same tree; links on different trees join only through
 * contacts, as free bodies do). A link no dof moves (tree -1) joins none. */
static void link_trees(lucid_world *w) {
    for (int i = 0; i < w->num_models; ++i) {
        const lucid_world_model *wm = &w->models[i];
        for (int b = 0; b < wm->num_bodies; ++b) {
            int body = wm->first_body + b, t = lucid_world_models_tree(w, body);
            int p = lucid_model_body_parent(wm->model, (size_t)b);
            if (t < 0 || p < 0 || lucid_world_models_tree(w, wm->first_body + p) != t) continue;
            int a = find_root(w->parent, body), r = find_root(w->parent, wm->first_body + p);
            if (a != r) w->parent[a < r ? r : a] = a < r ? a : r;
        }
    }
}

lucid_status lucid_world_build_islands(lucid_world *w, int m, lucid_world_island_item item,
                                       const void *ctx) {
    int n = w->num_bodies;
    size_t nz = (size_t)n, mz = (size_t)m;
    lucid_status s = lucid_world_reserve((void **)&w->parent, &w->parent_cap, nz, sizeof(int));
    if (s == LUCID_OK) s = lucid_world_reserve((void **)&w->label, &w->label_cap, nz, sizeof(int));
    if (s == LUCID_OK)
        s = lucid_world_reserve((void **)&w->contact_island, &w->contact_island_cap, mz,
                                sizeof(int));
    if (s == LUCID_OK)
        s = lucid_world_reserve((void **)&w->island_contacts, &w->island_contact_cap, mz,
                                sizeof(int));
    if (s == LUCID_OK)
        s = lucid_world_reserve((void **)&w->island_start, &w->island_start_cap, mz + 1,
                                sizeof(int));
    if (s != LUCID_OK) return s;
    for (int i = 0; i < n; ++i) w->parent[i] = i, w->label[i] = -1;
    link_trees(w);
    for (int k = 0; k < m; ++k) {
        int b1, b2;
        item(ctx, k, &b1, &b2);
        if (fixed(w, b1) || fixed(w, b2)) continue;
        int a = find_root(w->parent, b1), b = find_root(w->parent, b2);
        if (a != b) w->parent[a < b ? b : a] = a < b ? a : b;
    }
    int count = 0;
    for (int k = 0; k < m; ++k) {
        int b1, b2;
        item(ctx, k, &b1, &b2);
        int r = find_root(w->parent, dynamic_body(w, b1, b2));
        if (w->label[r] < 0) w->label[r] = count++;
        w->contact_island[k] = w->label[r];
    }
    memset(w->island_start, 0, sizeof(int) * (size_t)(count + 1));
    for (int k = 0; k < m; ++k) ++w->island_start[w->contact_island[k] + 1];
    for (int i = 0; i < count; ++i) w->island_start[i + 1] += w->island_start[i];
    for (int k = 0; k < m; ++k) w->island_contacts[w->island_start[w->contact_island[k]]++] = k;
    for (int i = count; i > 0; --i) w->island_start[i] = w->island_start[i - 1];
    w->island_start[0] = 0;
    w->num_islands = count;
    return LUCID_OK;
}

static void contact_bodies(const void *ctx, int k, int *body1, int *body2) {
    const lucid_world_contact *c = &((const lucid_world *)ctx)->contacts[k];
    *body1 = c->body1, *body2 = c->body2;
}

/* Groups the contacts by island (counting sort, contacts keep their order within one). */
static lucid_status build_islands(lucid_world *w) {
    return lucid_world_build_islands(w, w->num_contacts, contact_bodies, w);
}

/* ---- Jacobian and Delassus -------------------------------------------------------------- */

static void fill_side(lucid_world *w, int body, double sign, const lucid_world_contact *c,
                      lucid_contact_side *side) {
    const lucid_body *b = &w->bodies[body];
    memset(side, 0, sizeof *side);
    side->body = b->is_static ? -1 : body;
    side->sign = sign;
    side->model = side->tree = -1;
    if (b->is_static) return;
    if (b->model >= 0) { /* a link: rows over the model's dofs */
        side->body = -1;
        lucid_world_models_fill_side(w, body, sign, c, side);
        return;
    }
    lucid_vec3 r = lucid_vec3_sub(c->point, lucid_body_com_world(b));
    lucid_mat3 inv = lucid_body_inv_inertia_world(b);
    for (int k = 0; k < 3; ++k) {
        side->ang[k] = lucid_vec3_cross(r, lucid_mat3_col(&c->frame, k));
        side->inv_ang[k] = lucid_mat3_mul_vec(&inv, side->ang[k]);
    }
}

static lucid_status fill_sides(lucid_world *w) {
    lucid_status s = lucid_world_reserve((void **)&w->sides, &w->side_cap,
                                         2 * (size_t)w->num_contacts, sizeof *w->sides);
    if (s == LUCID_OK) s = lucid_world_models_reserve_rows(w);
    if (s != LUCID_OK) return s;
    for (int k = 0; k < w->num_contacts; ++k) {
        const lucid_world_contact *c = &w->contacts[k];
        if (c->limit_sign != 0) { /* one side: the link, with the sign in its row */
            memset(&w->sides[2 * k], 0, sizeof w->sides[2 * k]);
            w->sides[2 * k].body = w->sides[2 * k].model = w->sides[2 * k].tree = -1;
            fill_side(w, c->body2, +1.0, c, &w->sides[2 * k + 1]);
            continue;
        }
        fill_side(w, c->body1, -1.0, c, &w->sides[2 * k]);
        fill_side(w, c->body2, +1.0, c, &w->sides[2 * k + 1]);
    }
    return LUCID_OK;
}

/* Adds the 3x3 block of contacts i (rows) and j (columns) through one shared body. */
static void add_block(const lucid_world *w, const lucid_world_contact *ci,
                      const lucid_contact_side *si, const lucid_world_contact *cj,
                      const lucid_contact_side *sj, double *G, int ld, int row, int col) {
    double inv_m = w->bodies[si->body].inv_mass, s = si->sign * sj->sign;
    for (int l = 0; l < 3; ++l) {
        lucid_vec3 dj = lucid_mat3_col(&cj->frame, l);
        for (int k = 0; k < 3; ++k) {
            lucid_vec3 dk = lucid_mat3_col(&ci->frame, k);
            double v = lucid_vec3_dot(dk, dj) * inv_m + lucid_vec3_dot(si->ang[k], sj->inv_ang[l]);
            G[(row + k) + (size_t)ld * (col + l)] += s * v;
        }
    }
}

static void assemble_delassus(lucid_world *w, const int *list, int m, double *G) {
    int ld = 3 * m; /* m <= LUCID_WORLD_MAX_ISLAND_CONTACTS */
    memset(G, 0, sizeof(double) * (size_t)ld * (size_t)ld);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) {
            const lucid_contact_side *a = &w->sides[2 * list[i]], *b = &w->sides[2 * list[j]];
            for (int p = 0; p < 2; ++p)
                for (int q = 0; q < 2; ++q) {
                    if (a[p].body >= 0 && a[p].body == b[q].body)
                        add_block(w, &w->contacts[list[i]], &a[p], &w->contacts[list[j]], &b[q], G,
                                  ld, 3 * i, 3 * j);
                    if (a[p].model >= 0 && a[p].model == b[q].model && a[p].tree >= 0 &&
                        a[p].tree == b[q].tree)
                        lucid_world_models_add_block(w, &a[p], &b[q], G, ld, 3 * i, 3 * j);
                }
        }
    /* a joint limit has no tangential rows: unit decoupled ones keep G + R regular, and its
     * zero friction holds their forces at zero */
    for (int i = 0; i < m; ++i)
        if (w->contacts[list[i]].limit_sign != 0)
            for (int k = 0; k < 2; ++k) G[(3 * i + k) * ((size_t)ld + 1)] = 1.0;
}

/* Velocity of contact k's frame directions from the given body velocities. */
static lucid_vec3 contact_velocity(const lucid_world *w, int k, const lucid_vec3 *v,
                                   const lucid_vec3 *om) {
    const lucid_world_contact *c = &w->contacts[k];
    double out[3] = {0, 0, 0};
    for (int p = 0; p < 2; ++p) {
        const lucid_contact_side *s = &w->sides[2 * k + p];
        if (s->model >= 0) { /* the model's velocity that goes with v: free or at the start */
            lucid_vec3 u = lucid_world_models_side_velocity(w, s, v == w->v_free);
            out[0] += u.x, out[1] += u.y, out[2] += u.z;
            continue;
        }
        if (s->body < 0) continue;
        for (int d = 0; d < 3; ++d)
            out[d] += s->sign * (lucid_vec3_dot(lucid_mat3_col(&c->frame, d), v[s->body]) +
                                 lucid_vec3_dot(s->ang[d], om[s->body]));
    }
    return lucid_vec3_load(out);
}

/* The reference normal velocity c*_N (see world.h). v_n_before: normal velocity at the start
 * of the step, for restitution. Bodies are brought to a rest depth of slop / 2 (the contact's
 * slop, lucid_world_contact_slop) rather than to an exact touch: at zero distance the
 * collision normal is the direction of a vector of rounding size (meaningless), while a small
 * overlap gives EPA a well-defined normal. */
static double reference_normal_velocity(const lucid_world *w, const lucid_world_contact *c,
                                        double v_n_before) {
    return lucid_world_reference_velocity_branch(w, c, v_n_before, -1, NULL);
}

double lucid_world_contact_restitution(const lucid_world *w, const lucid_world_contact *c) {
    return fmax(w->bodies[c->body1].restitution, w->bodies[c->body2].restitution);
}

/* The piece of c*_N at separation d: 0 speculative (above the band), 1 the rest band, 2 deep.
 * The band reaches slop/10 above the rest depth slop/2: a resting contact lies inside it, ten
 * times farther from its edge than it drifts at rest (~1e-6 m at slop 1e-4), so the step is
 * smooth there. */
static int piece_of(double slop, double d) {
    return d > -0.4 * slop ? 0 : d >= -slop ? 1 : 2;
}

double lucid_world_contact_slop(const lucid_world *w, const lucid_world_contact *c) {
    double slop = w->opt.slop;
    if (c->limit_sign != 0) return slop; /* rad or m on a dof: no body length applies */
    const int body[2] = {c->body1, c->body2}, part[2] = {c->part1, c->part2};
    for (int p = 0; p < 2; ++p) {
        const lucid_body *b = &w->bodies[body[p]];
        if (b->is_static) continue; /* the ground's size says nothing of the resting body's */
        double size = w->part_contact[b->part_begin + part[p]].size;
        slop = fmin(slop, LUCID_WORLD_SLOP_PER_SIZE * size);
    }
    return slop;
}

double lucid_world_reference_slope(const lucid_world *w, const lucid_world_contact *c, int branch) {
    const lucid_world_options *o = &w->opt;
    double d = c->separation - c->include_margin, slop = lucid_world_contact_slop(w, c);
    int piece = branch % 3;
    if (piece == 1) return 0.0;
    if (piece == 2 && -(d + 0.5 * slop) > lucid_world_correction_speed_for(o, slop) * o->dt)
        return 0.0;
    return -1.0 / o->dt;
}

/* The piece of c*_N (0: speculative, 1: rest band, 2: deep; + 3 when restitution wins) given
 * by `branch` when it is >= 0, else chosen by the rules above and stored in *chosen. */
double lucid_world_reference_velocity_branch(const lucid_world *w, const lucid_world_contact *c,
                                             double v_n_before, int branch, int *chosen) {
    const lucid_world_options *o = &w->opt;
    double d = c->separation - c->include_margin, ref = 0.0;
    double slop = lucid_world_contact_slop(w, c);
    int piece = branch >= 0 ? branch % 3 : piece_of(slop, d);
    if (piece == 0)
        ref = -(d + 0.5 * slop) / o->dt;
    else if (piece == 2)
        ref = fmin(-(d + 0.5 * slop) / o->dt, lucid_world_correction_speed_for(o, slop));
    /* an impact: fast approach that closes the gap within this step */
    double e = lucid_world_contact_restitution(w, c);
    int impact = branch >= 0 ? branch >= 3
                             : e > 0.0 && -v_n_before > o->restitution_threshold &&
                                   d + v_n_before * o->dt < 0.0 && -e * v_n_before > ref;
    if (impact) ref = -e * v_n_before;
    if (chosen) *chosen = piece + 3 * impact;
    return ref;
}

/* ---- solving ---------------------------------------------------------------------------- */

/* Buffers for an island of m contacts; the island bound keeps every size below in int range
 * (3 x 2048 rows) and the memory at ~2 GB. */
static lucid_status reserve_problem(lucid_world *w, int m) {
    if (m > LUCID_WORLD_MAX_ISLAND_CONTACTS) {
        snprintf(w->error, sizeof w->error,
                 "an island of %d contacts exceeds the %d contacts the dense contact solver takes",
                 m, LUCID_WORLD_MAX_ISLAND_CONTACTS);
        return LUCID_ERR_NO_MEMORY;
    }
    size_t n3 = 3 * (size_t)m;
    lucid_status s = lucid_world_reserve((void **)&w->G, &w->G_cap, n3 * n3, sizeof(double));
    if (s == LUCID_OK) s = lucid_world_reserve((void **)&w->g, &w->g_cap, n3, sizeof(double));
    if (s == LUCID_OK)
        s = lucid_world_reserve((void **)&w->mu, &w->mu_cap, (size_t)m, sizeof(double));
    if (s == LUCID_OK) s = lucid_world_reserve((void **)&w->R, &w->R_cap, n3, sizeof(double));
    if (s == LUCID_OK)
        s = lucid_world_reserve((void **)&w->lambda, &w->lambda_cap, n3, sizeof(double));
    if (s == LUCID_OK) s = lucid_world_reserve((void **)&w->dual, &w->dual_cap, n3, sizeof(double));
    if (s == LUCID_OK)
        s = lucid_world_reserve((void **)&w->spare, &w->spare_cap, 4 * n3, sizeof(double));
    if (s == LUCID_OK)
        s = lucid_world_reserve((void **)&w->sigma, &w->sigma_cap, n3, sizeof(double));
    if (s != LUCID_OK) return s;
    return lucid_world_reserve_workspace(w, m);
}

lucid_status lucid_world_reserve_workspace(lucid_world *w, int m) {
    if (!w->workspace || lucid_contact_workspace_capacity(w->workspace) < m) {
        int cap = w->workspace ? 2 * lucid_contact_workspace_capacity(w->workspace) : 16;
        while (cap < m) cap *= 2;
        lucid_contact_workspace_destroy(w->workspace);
        w->workspace = lucid_contact_workspace_create(cap);
        if (!w->workspace) return LUCID_ERR_NO_MEMORY;
    }
    return LUCID_OK;
}

static double max_abs(const double *x, size_t n) {
    double m = 0.0;
    for (size_t k = 0; k < n; ++k) m = fmax(m, fabs(x[k]));
    return m;
}

static int all_finite(const double *x, size_t n) {
    for (size_t k = 0; k < n; ++k)
        if (!isfinite(x[k])) return 0;
    return 1;
}

/* The mean diagonal of G + R: ADMM's penalty for the retry. The solver's own choice,
 * sqrt(eig_min eig_max), vanishes for the singular G of hyperstatic contacts (a row of
 * touching bodies), where ncp:admm can diverge or return NaN. */
static double mean_diagonal(const lucid_contact_problem *p) {
    double sum = 0.0;
    for (int k = 0; k < 3 * p->n; ++k) sum += lucid_contact_diag(p, k);
    return sum / (3 * p->n);
}

/* w->spare holds, for the solve of one island, the warm start (lambda, dual) and then the
 * best attempt so far (lambda, dual): 4 x 3n. */
static double *warm_copy(const lucid_world *w) {
    return w->spare;
}

static double *best_copy(const lucid_world *w, size_t n3) {
    return w->spare + 2 * n3;
}

/* The world keeps ADMM's multiplier as a contact's dual (the next step's warm start):
 * gamma = -(sigma + Gamma) at a solution, where ip's dual is y = sigma + Gamma. */
static void ip_dual_as_admm(double *dual, size_t n3) {
    for (size_t k = 0; k < n3; ++k) dual[k] = -dual[k];
}

/* An ip attempt that stopped on an error of its own (a Newton system not SPD, a non-finite
 * step) is a failed attempt, never kept, not a failed step: the best answer so far stands. */
static lucid_status ip_failed(lucid_contact_result *res) {
    memset(res, 0, sizeof *res);
    res->diverged = 1;
    return LUCID_OK;
}

/* The model's interior point (ncp:ip or ccp:ip, kappa = 0) as the last attempt: see
 * world_internal.h. The solver stops on p's own criterion (criterion_of_p), the one the ip's
 * answer is compared on. */
int lucid_world_has_ip_attempt(const lucid_contact_options *o, int n) {
    return (o->solver == LUCID_CONTACT_ADMM || o->solver == LUCID_CONTACT_STAGGERED) &&
           n <= LUCID_WORLD_IP_ATTEMPT_CONTACTS &&
           lucid_contact_pair_check(o->model, LUCID_CONTACT_IP) == LUCID_OK;
}

/* One solve of attempt `a`: 0 warm from the saved warm start with the options as given (ADMM
 * from the carried rho when there is one, lucid_world_warm_rho), 1
 * cold with ADMM's penalty set to the mean diagonal, 2 the model's projected Gauss-Seidel
 * (robust on degenerate problems) from the best finite attempt so far (`from_best`), else
 * from the saved warm start, 3 the model's interior point (lucid_world_has_ip_attempt) from its own
 * start. */
static lucid_status attempt(lucid_world *w, const lucid_contact_problem *p, int a, int from_best,
                            double warm_rho, lucid_contact_result *res) {
    size_t n3 = (size_t)(3 * p->n);
    lucid_contact_options o = w->opt.contact;
    if (a == 0 && warm_rho > 0.0) o.rho = warm_rho;
    if (a > 0 && o.solver == LUCID_CONTACT_ADMM && o.rho <= 0.0) o.rho = mean_diagonal(p);
    const double *start = a == 2 && from_best ? best_copy(w, n3) : warm_copy(w);
    memcpy(w->lambda, start, sizeof(double) * n3);
    memcpy(w->dual, start + n3, sizeof(double) * n3);
    if (a == 1) {
        memset(w->lambda, 0, sizeof(double) * n3);
        memset(w->dual, 0, sizeof(double) * n3);
        o.warm_start = 0;
    }
    if (a == 2) {
        o.solver = LUCID_CONTACT_PGS;
        if (from_best) o.warm_start = 1; /* continues the best answer of this step */
    }
    if (a == 3) {
        o.solver = LUCID_CONTACT_IP, o.kappa = 0.0, o.warm_start = 0; /* exact, its own start */
        lucid_status s = lucid_contact_solve(p, &o, w->workspace, w->lambda, w->dual, res);
        ip_dual_as_admm(w->dual, n3);
        return s == LUCID_OK || s == LUCID_ERR_NO_MEMORY ? s : ip_failed(res);
    }
    return lucid_contact_solve(p, &o, w->workspace, w->lambda, a == 2 ? NULL : w->dual, res);
}

/* The model criterion of the cold start lambda = 0 (its velocity is g). */
static double criterion_at_zero(lucid_world *w, const lucid_contact_problem *p) {
    memset(w->sigma, 0, sizeof(double) * (size_t)(3 * p->n));
    lucid_contact_criteria c;
    lucid_contact_criteria_eval(p, lucid_contact_model_criterion(w->opt.contact.model), w->sigma,
                                p->g, NULL, &c);
    return c.abs;
}

/* The cold start lambda = 0 (and a zero dual) as the answer: it meets tol itself, so no
 * warm start (a stale force from the last step) may replace it. */
static lucid_status accept_zero(lucid_world *w, const lucid_contact_problem *p,
                                lucid_contact_result *res) {
    size_t n3 = (size_t)(3 * p->n);
    memset(w->lambda, 0, sizeof(double) * n3);
    memset(w->dual, 0, sizeof(double) * n3);
    memset(res, 0, sizeof *res);
    lucid_contact_criterion kind = lucid_contact_model_criterion(w->opt.contact.model);
    lucid_contact_criteria_eval(p, kind, w->lambda, p->g, NULL, &res->model);
    lucid_contact_criteria_eval(p, LUCID_CRITERION_NCP, w->lambda, p->g, NULL, &res->ncp);
    res->converged = 1;
    return LUCID_OK;
}

/* An answer whose criterion is within twice what rounding its forces to doubles can cause
 * (lucid_contact_round_off) is as good as double precision resolves: no retry can reliably
 * do better (the 1e3 kg on 1e-3 kg stack: ~1.7e-5 against tol 1e-6, docs/scenarios.md), so
 * none is made. It stays converged = 0: tol was not met. */
static int at_round_off(const lucid_world *w, const lucid_contact_problem *p,
                        const lucid_contact_result *res) {
    return res->model.abs <= 2.0 * lucid_contact_round_off(p, w->lambda);
}

/* The attempt worth making after attempt a did not meet tol (-1: none left). finite: a's
 * answer passed verify (res holds its recomputed criteria; w->lambda its forces); p_abs its
 * model criterion of p, zero that of lambda = 0. */
static int next_attempt(lucid_world *w, const lucid_contact_problem *p, int a, int finite,
                        double zero, double p_abs, const lucid_contact_result *res) {
    const lucid_contact_options *o = &w->opt.contact;
    if (finite && !res->diverged && at_round_off(w, p, res)) return -1;
    int has_pgs = lucid_contact_pair_check(o->model, LUCID_CONTACT_PGS) == LUCID_OK;
    int pgs = has_pgs && o->solver != LUCID_CONTACT_PGS ? 2 : -1;
    int ip = lucid_world_has_ip_attempt(o, p->n) ? 3 : -1;
    if (a == 0) {
        int failed = !finite || res->diverged || !(p_abs <= zero);
        return failed || pgs < 0 ? 1 : pgs;
    }
    if (a == 1) return pgs >= 0 ? pgs : ip;
    return a == 2 ? ip : -1;
}

/* 1 when the solver stops on a criterion of p itself, which verify can recompute. Two do
 * not: ccp:newton solves a compliant CCP (R = newton_compliance x diag where p has none) and
 * stops on that problem's criterion, and raisim:bisection stops on the fixed point of its
 * per-contact map (its model has no complementarity form), and ip with kappa > 0 stops on
 * the relaxed system (contact_ip.h). Judged on p's CCP or NCP
 * criterion instead, every answer failed (Newton's compliant answers read ~5e-3 on the heap
 * of boxes, RaiSim's any sliding contact) and each step paid the retries. */
static int criterion_of_p(const lucid_contact_options *o) {
    return o->solver != LUCID_CONTACT_NEWTON && o->model != LUCID_CONTACT_RAISIM &&
           !(o->solver == LUCID_CONTACT_IP && o->kappa > 0.0); /* relaxed: its own system */
}

/* Checks a solver's answer (attempt a) independently of its own report: finite forces and
 * velocities, and the model's criterion recomputed here (kept from the solver where it is
 * not a criterion of p, see criterion_of_p). Sets res->converged to whether it meets tol,
 * res->model / res->ncp to the criteria (NaN-safe: a NaN fails every test), *p_abs to the
 * model criterion of p (what the cold start lambda = 0 is compared on). */
static int verify(lucid_world *w, const lucid_contact_problem *p, int a, lucid_contact_result *res,
                  double *p_abs) {
    size_t n3 = (size_t)(3 * p->n);
    lucid_contact_velocity(p, w->lambda, w->sigma);
    if (!all_finite(w->lambda, n3) || !all_finite(w->sigma, n3)) return 0;
    /* the criteria multiply forces by velocities: refuse what would overflow (it reads 0) */
    if (!(max_abs(w->lambda, n3) * max_abs(w->sigma, n3) < 1e300)) return 0;
    lucid_contact_criteria own = res->model;
    lucid_contact_criterion kind = lucid_contact_model_criterion(w->opt.contact.model);
    lucid_contact_criteria_eval(p, kind, w->lambda, w->sigma, NULL, &res->model);
    *p_abs = res->model.abs;
    if (a < 2 && !criterion_of_p(&w->opt.contact)) res->model = own;
    lucid_contact_criteria_eval(p, LUCID_CRITERION_NCP, w->lambda, w->sigma, NULL, &res->ncp);
    if (!isfinite(res->model.abs) || !isfinite(res->ncp.abs)) return 0;
    res->converged = res->converged && res->model.abs <= w->opt.contact.tol;
    return 1;
}

/* Solves p warm started from w->lambda / w->dual; a solver may fail on a degenerate problem
 * (it may even report convergence with NaN forces), so every answer is verified and the
 * finite one with the smallest criterion is kept (copied aside, never recomputed), or the
 * first that meets tol. When the warm solve does not meet tol, a retry is made only where
 * it can help:
 * - cold, when the warm answer is not finite, diverged, or worse than the cold start
 *   lambda = 0 itself (then the warm start made things worse: a cold solve is what it must
 *   not lose to), or when the model has no PGS to continue with (raisim; or the solver is
 *   PGS), the cold solve being the only other attempt;
 * - else the model's PGS, from the best answer so far: it polishes an ADMM or Newton answer
 *   that ran out of iterations near the solution. On the falling heap of 50 boxes (ncp:admm,
 *   1000 iterations) a cold ADMM retry had beaten the unconverged warm answer in 1 island in
 *   4 and met tol in 1 in 20, for the price of a full solve; PGS from the warm answer meets
 *   tol in 87% of those islands and improves on the answer in 95%;
 * - after a cold attempt, the model's PGS from the best answer (when there is one);
 * - last, the model's interior point where lucid_world_has_ip_attempt says (its answer kept
 *   only when it meets tol).
 * Without warm start the cold solve is the first attempt. */
static lucid_status solve_with_fallback(lucid_world *w, const lucid_contact_problem *p,
                                        double warm_rho, lucid_contact_result *res) {
    size_t n3 = (size_t)(3 * p->n);
    int have_best = 0, iterations = 0;
    int best_cold = 0;
    lucid_contact_result best_res;
    memcpy(warm_copy(w), w->lambda, sizeof(double) * n3);
    memcpy(warm_copy(w) + n3, w->dual, sizeof(double) * n3);
    double zero = criterion_at_zero(w, p);
    if (zero <= w->opt.contact.tol) return accept_zero(w, p, res);
    for (int a = w->opt.contact.warm_start ? 0 : 1; a >= 0;) {
        lucid_status s = attempt(w, p, a, have_best, warm_rho, res);
        if (s != LUCID_OK) return s;
        iterations += res->iterations;
        double p_abs = INFINITY;
        int finite = verify(w, p, a, res, &p_abs);
        /* ccp:newton's own criterion (CCP of its compliant problem) equals p's at lambda = 0,
         * so its answers are compared with lambda = 0 on it: on p's rigid criterion a
         * compliant answer reads worse than nothing on the 1e9 stack, which then sank */
        if (a < 2 && w->opt.contact.solver == LUCID_CONTACT_NEWTON) p_abs = res->model.abs;
        /* an answer descending from the warm start is never kept when worse than lambda = 0
         * (a stale force launched light bodies), unless its criterion is within what rounding
         * its forces can cause (then it cannot be told from the solution: the 1e4 kg box on a
         * 1e-5 kg one reads ~1e4 with a bound of ~5e3, and lambda = 0 drops both through the
         * ground); cold answers are the solver's own */
        int cold = a == 1 || a == 3 || (a == 2 && have_best && best_cold);
        /* a solver that stops on its own model's criterion (criterion_of_p) and met it has
         * solved that model, wherever it started: p's criterion, on which λ = 0 can read
         * better than a relaxed model's answer for a pressing contact, does not judge it */
        int own = a < 2 && !criterion_of_p(&w->opt.contact) && res->converged;
        int eligible = finite && (cold || own || p_abs <= zero ||
                                  p_abs <= 2.0 * lucid_contact_round_off(p, w->lambda));
        int met = eligible && res->converged; /* kept even when no smaller than the best */
        res->converged = met;
        /* the ip's answer only when it meets tol: unconverged, it differs from the fixed-point
         * solvers' in directions the criterion does not see (a rolling sphere at tol 1e-13:
         * lambda_t by 7e-8 of 30 N between criteria 1.9e-10 and 9e-12), and a whole step
         * would switch between them under a perturbation (finite differences of steps) */
        int ip_kept = a != 3 || met;
        int better =
            met || (eligible && ip_kept && (!have_best || res->model.abs < best_res.model.abs));
        if (better) {
            memcpy(best_copy(w, n3), w->lambda, sizeof(double) * n3);
            /* PGS has no dual: that of the answer it continued from stays in w->dual */
            memcpy(best_copy(w, n3) + n3, w->dual, sizeof(double) * n3);
            best_res = *res, have_best = 1, best_cold = cold;
        }
        if (met) break;
        a = next_attempt(w, p, a, finite, zero, p_abs, res);
    }
    if (!have_best) { /* no finite answer, or only warm ones worse than doing nothing */
        accept_zero(w, p, res);
        res->converged = 0;
        res->iterations = iterations;
        return LUCID_OK;
    }
    memcpy(w->lambda, best_copy(w, n3), sizeof(double) * n3);
    memcpy(w->dual, best_copy(w, n3) + n3, sizeof(double) * n3);
    *res = best_res;
    res->iterations = iterations;
    return LUCID_OK;
}

/* The largest power of two not above x (x > 0 and finite). */
static double power_of_two_below(double x) {
    int e;
    frexp(x, &e); /* x = f 2^e, f in [0.5, 1) */
    return ldexp(1.0, e - 1);
}

/* The units the island's problem is solved in, powers of two at most 1: velocity_scale
 * (units of g, m/s^2) ~ ||g||_inf, the free contact velocity the forces must cancel, and
 * force_scale (N) ~ ||g||_inf / max_i (G + R)_(i,n)(i,n), the normal force that cancels it on
 * the contact of the lightest body (m g on a body resting under gravity; the tangential
 * diagonal holds rotational terms, 1440 times larger on a 1 um sphere sunk to the rest
 * depth, which would make the scaled forces O(1e3)). The solver's tol then bounds
 * errors relative to these scales: forces to tol x force_scale, velocities to
 * tol x velocity_scale. Scales are capped at 1 (for islands of bodies of a kilogram and more
 * tol stays the absolute one, already that fine relative to their forces), so a light body
 * gets a tolerance as strict relative to its weight as a 1 kg body has: the absolute 1e-6 N
 * accepted a stale warm-start force that launched a 1 µm sphere (4e-15 kg) by metres. */
static void problem_scales(const lucid_contact_problem *p, double *force_scale,
                           double *velocity_scale) {
    double v = max_abs(p->g, (size_t)(3 * p->n)), d = 0.0;
    for (int i = 0; i < p->n; ++i) d = fmax(d, lucid_contact_diag(p, 3 * i + 2));
    *velocity_scale = v > 0.0 && v < 1.0 ? power_of_two_below(v) : 1.0;
    double f = (v > 0.0 ? v : 1.0) / d;
    *force_scale = f > 0.0 && f < 1.0 ? power_of_two_below(f) : 1.0;
    if (!(*force_scale >= 0x1p-1000)) *force_scale = 0x1p-1000; /* no subnormal scales */
}

/* Expresses the island's problem in units of f for forces and v for velocities:
 * lambda' = lambda / f, g' = g / v, dual' = dual / v, G' = G f / v, R' = R f / v (so that
 * sigma' = sigma / v). With powers of two it is exact, and rescale(1 / f, 1 / v) undoes it. */
static void rescale(lucid_world *w, int m, double f, double v) {
    if (f == 1.0 && v == 1.0) return;
    size_t n3 = 3 * (size_t)m;
    double fv = f / v;
    for (size_t k = 0; k < n3 * n3; ++k) w->G[k] *= fv;
    for (size_t k = 0; k < n3; ++k) {
        w->g[k] /= v, w->R[k] *= fv, w->dual[k] /= v;
        w->lambda[k] /= f;
    }
}

const double *lucid_world_problem_R(const double *R, int m) {
    for (int k = 0; k < 3 * m; ++k)
        if (R[k] > 0.0) return R;
    return NULL;
}

/* v_start / w_start: the velocities at the start of the step (centre of mass, world). */
static lucid_status solve_island(lucid_world *w, const int *list, int m, const lucid_vec3 *v0,
                                 const lucid_vec3 *w0) {
    lucid_status s = reserve_problem(w, m);
    if (s != LUCID_OK) return s;
    const double dt = w->opt.dt;
    assemble_delassus(w, list, m, w->G);
    for (int i = 0; i < m; ++i) {
        const lucid_world_contact *c = &w->contacts[list[i]];
        lucid_vec3 vf = contact_velocity(w, list[i], w->v_free, w->w_free);
        double before = contact_velocity(w, list[i], v0, w0).z;
        vf.z -= reference_normal_velocity(w, c, before);
        lucid_vec3_store(lucid_vec3_scale(vf, 1.0 / dt), w->g + 3 * i);
        w->mu[i] = c->friction;
        w->R[3 * i] = w->R[3 * i + 1] = 0.0;
        w->R[3 * i + 2] = w->opt.compliance;
        memcpy(w->lambda + 3 * i, c->force, sizeof c->force);
        memcpy(w->dual + 3 * i, c->dual, sizeof c->dual);
    }
    lucid_contact_dense_null_rows(m, w->G, w->R, w->mu);
    lucid_contact_problem p = {m, w->G, w->g, w->mu, lucid_world_problem_R(w->R, m)};
    lucid_contact_result res;
    double force_scale, velocity_scale;
    problem_scales(&p, &force_scale, &velocity_scale);
    rescale(w, m, force_scale, velocity_scale);
    s = solve_with_fallback(w, &p, lucid_world_warm_rho(w, list, m, force_scale, velocity_scale),
                            &res);
    rescale(w, m, 1.0 / force_scale, 1.0 / velocity_scale); /* exact: powers of two */
    if (s != LUCID_OK) return s;
    lucid_world_keep_rho(w, list, m, res.rho, force_scale, velocity_scale);
    w->stats.solver_iterations += res.iterations;
    w->stats.converged &= res.converged;
    lucid_contact_velocity(&p, w->lambda, w->sigma);
    lucid_contact_criteria ncp;
    lucid_contact_criteria_eval(&p, LUCID_CRITERION_NCP, w->lambda, w->sigma, NULL, &ncp);
    w->stats.residual = fmax(w->stats.residual, ncp.abs);
    w->stats.scaled_residual = fmax(w->stats.scaled_residual, res.model.abs);
    for (int i = 0; i < m; ++i) {
        lucid_world_contact *c = &w->contacts[list[i]];
        memcpy(c->force, w->lambda + 3 * i, sizeof c->force);
        memcpy(c->dual, w->dual + 3 * i, sizeof c->dual);
        lucid_world_apply_contact_force(w, list[i]);
    }
    return LUCID_OK;
}

/* v+ += dt M^-1 J_k^T lambda_k on both sides of contact k (lambda_k = its force). */
void lucid_world_apply_contact_force(lucid_world *w, int k) {
    const lucid_world_contact *c = &w->contacts[k];
    for (int p2 = 0; p2 < 2; ++p2) {
        const lucid_contact_side *sd = &w->sides[2 * k + p2];
        if (sd->model >= 0 && !w->rows_without_inverse)
            lucid_world_models_apply_impulse(w, sd, c->force);
        if (sd->body < 0) continue;
        const lucid_body *b = &w->bodies[sd->body];
        lucid_vec3 lin = lucid_vec3_zero(), ang = lucid_vec3_zero();
        for (int d = 0; d < 3; ++d) {
            double impulse = sd->sign * w->opt.dt * c->force[d];
            lin = lucid_vec3_axpy(lin, impulse, lucid_mat3_col(&c->frame, d));
            ang = lucid_vec3_axpy(ang, impulse, sd->inv_ang[d]);
        }
        w->v_free[sd->body] = lucid_vec3_axpy(w->v_free[sd->body], b->inv_mass, lin);
        w->w_free[sd->body] = lucid_vec3_add(w->w_free[sd->body], ang);
    }
}

lucid_status lucid_world_contact_rows(lucid_world *w) {
    if (w->num_contacts == 0) {
        w->num_islands = 0;
        return LUCID_OK;
    }
    lucid_status s = fill_sides(w);
    return s == LUCID_OK ? build_islands(w) : s;
}

void lucid_world_island_delassus(lucid_world *w, const int *list, int m, double *G) {
    assemble_delassus(w, list, m, G);
}

lucid_vec3 lucid_world_contact_velocity(const lucid_world *w, int k, const lucid_vec3 *v,
                                        const lucid_vec3 *om) {
    return contact_velocity(w, k, v, om);
}

double lucid_world_reference_velocity(const lucid_world *w, const lucid_world_contact *c,
                                      double v_n_before) {
    return reference_normal_velocity(w, c, v_n_before);
}

lucid_status lucid_world_solve_contacts(lucid_world *w, const lucid_vec3 *v0,
                                        const lucid_vec3 *w0) {
    w->stats.contacts = w->num_contacts;
    w->stats.converged = 1;
    if (w->num_contacts == 0) {
        w->num_islands = 0; /* not the last step's: callers read the islands of this one */
        return LUCID_OK;
    }
    lucid_status s = fill_sides(w);
    if (s == LUCID_OK) s = build_islands(w);
    if (s != LUCID_OK) return s;
    w->stats.islands = w->num_islands;
    for (int i = 0; i < w->num_islands; ++i) {
        int begin = w->island_start[i], end = w->island_start[i + 1];
        w->last_sparse = lucid_world_sparse_applies(w, w->island_contacts + begin, end - begin);
        s = w->last_sparse ? lucid_world_solve_island_sparse(w, w->island_contacts + begin,
                                                             end - begin, v0, w0)
                           : solve_island(w, w->island_contacts + begin, end - begin, v0, w0);
        if (s != LUCID_OK) return s;
    }
    return LUCID_OK;
}
