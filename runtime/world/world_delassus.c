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

/* The links of one tree of a model move together: one island (each link joined to the link of
 * its tree's first dof, which also joins the subtrees a limited tendon merged into the tree;
 * links on different trees join only through contacts, as free bodies do). A link no dof moves
 * (tree -1) joins none. */
static void link_trees(lucid_world *w) {
    for (int i = 0; i < w->num_models; ++i) {
        const lucid_world_model *wm = &w->models[i];
        for (int b = 0; b < wm->num_bodies; ++b) {
            int body = wm->first_body + b, t = lucid_world_models_tree(w, body);
            if (t < 0) continue;
            size_t first = wm->tree_dof[t];
            int node = lucid_model_dof_joint(wm->model)[first];
            int head = wm->first_body + lucid_model_joint_body(wm->model, (size_t)node);
            int a = find_root(w->d.parent, body), r = find_root(w->d.parent, head);
            if (a != r) w->d.parent[a < r ? r : a] = a < r ? a : r;
        }
    }
}

lucid_status lucid_world_build_islands(lucid_world *w, int m, lucid_world_island_item item,
                                       const void *ctx) {
    int n = w->num_bodies;
    size_t nz = (size_t)n, mz = (size_t)m;
    lucid_status s = LUCID_RESERVE(w, d.parent, nz);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.label, nz);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.contact_island, mz);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.island_contacts, mz);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.island_start, mz + 1);
    if (s != LUCID_OK) return s;
    for (int i = 0; i < n; ++i) w->d.parent[i] = i, w->d.label[i] = -1;
    link_trees(w);
    for (int k = 0; k < m; ++k) {
        int b1, b2;
        item(ctx, k, &b1, &b2);
        if (fixed(w, b1) || fixed(w, b2)) continue;
        int a = find_root(w->d.parent, b1), b = find_root(w->d.parent, b2);
        if (a != b) w->d.parent[a < b ? b : a] = a < b ? a : b;
    }
    int count = 0;
    for (int k = 0; k < m; ++k) {
        int b1, b2;
        item(ctx, k, &b1, &b2);
        int r = find_root(w->d.parent, dynamic_body(w, b1, b2));
        if (w->d.label[r] < 0) w->d.label[r] = count++;
        w->d.contact_island[k] = w->d.label[r];
    }
    memset(w->d.island_start, 0, sizeof(int) * (size_t)(count + 1));
    for (int k = 0; k < m; ++k) ++w->d.island_start[w->d.contact_island[k] + 1];
    for (int i = 0; i < count; ++i) w->d.island_start[i + 1] += w->d.island_start[i];
    for (int k = 0; k < m; ++k)
        w->d.island_contacts[w->d.island_start[w->d.contact_island[k]]++] = k;
    for (int i = count; i > 0; --i) w->d.island_start[i] = w->d.island_start[i - 1];
    w->d.island_start[0] = 0;
    w->d.num_islands = count;
    return LUCID_OK;
}

static void contact_bodies(const void *ctx, int k, int *body1, int *body2) {
    const lucid_world_contact *c = &((const lucid_world *)ctx)->d.contacts[k];
    *body1 = c->body1, *body2 = c->body2;
}

/* Groups the contacts by island (counting sort, contacts keep their order within one). */
static lucid_status build_islands(lucid_world *w) {
    return lucid_world_build_islands(w, w->d.num_contacts, contact_bodies, w);
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
    double spin = lucid_world_contact_spin(c);
    if (spin > 0.0) { /* the spin row: a n . w */
        side->spin = 1;
        side->spin_ang = lucid_vec3_scale(lucid_mat3_col(&c->frame, 2), spin);
        side->inv_spin_ang = lucid_mat3_mul_vec(&inv, side->spin_ang);
    }
    double roll = lucid_world_contact_roll(c);
    if (roll > 0.0) { /* the rolling rows: b t_k . w */
        side->roll = 1;
        for (int k = 0; k < 2; ++k) {
            side->roll_ang[k] = lucid_vec3_scale(lucid_mat3_col(&c->frame, k), roll);
            side->inv_roll_ang[k] = lucid_mat3_mul_vec(&inv, side->roll_ang[k]);
        }
    }
}

static lucid_status fill_sides(lucid_world *w) {
    size_t n = (size_t)w->d.num_contacts;
    lucid_status s = LUCID_RESERVE(w, d.sides, 2 * n);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.side_next, 2 * n);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.side_mark, n);
    if (s == LUCID_OK)
        s = LUCID_RESERVE(w, d.side_head,
                          (size_t)w->num_bodies + (size_t)lucid_world_models_trees(w));
    if (s == LUCID_OK) s = lucid_world_models_reserve_rows(w);
    if (s != LUCID_OK) return s;
    for (int k = 0; k < w->d.num_contacts; ++k) {
        const lucid_world_contact *c = &w->d.contacts[k];
        if (lucid_world_contact_on_dof(c)) { /* one side: the link, with the sign in its row */
            memset(&w->d.sides[2 * k], 0, sizeof w->d.sides[2 * k]);
            w->d.sides[2 * k].body = w->d.sides[2 * k].model = w->d.sides[2 * k].tree = -1;
            fill_side(w, c->body2, +1.0, c, &w->d.sides[2 * k + 1]);
            continue;
        }
        fill_side(w, c->body1, -1.0, c, &w->d.sides[2 * k]);
        fill_side(w, c->body2, +1.0, c, &w->d.sides[2 * k + 1]);
    }
    return LUCID_OK;
}

/* Adds the 3x3 block of contacts i (rows) and j (columns) through one shared body, and with
 * `mirror` its transpose to block (j, i). */
static void add_block(const lucid_world *w, const lucid_world_contact *ci,
                      const lucid_contact_side *si, const lucid_world_contact *cj,
                      const lucid_contact_side *sj, double *G, int ld, int row, int col,
                      int mirror) {
    double inv_m = w->bodies[si->body].inv_mass, s = si->sign * sj->sign;
    for (int l = 0; l < 3; ++l) {
        lucid_vec3 dj = lucid_mat3_col(&cj->frame, l);
        for (int k = 0; k < 3; ++k) {
            lucid_vec3 dk = lucid_mat3_col(&ci->frame, k);
            double v = lucid_vec3_dot(dk, dj) * inv_m + lucid_vec3_dot(si->ang[k], sj->inv_ang[l]);
            G[(row + k) + (size_t)ld * (col + l)] += s * v;
            if (mirror) G[(col + l) + (size_t)ld * (row + k)] += s * v;
        }
    }
}

/* The spin entries of contacts i (rows at row) and j (columns at col) through one shared free
 * body: the spin row against j's rows, i's rows against j's spin row (dim 4 islands). */
static void add_spin_block(const lucid_contact_side *si, const lucid_contact_side *sj, double *G,
                           int ld, int row, int col) {
    double s = si->sign * sj->sign;
    size_t L = (size_t)ld;
    if (si->spin) {
        for (int l = 0; l < 3; ++l)
            G[(size_t)(row + 3) + L * (size_t)(col + l)] +=
                s * lucid_vec3_dot(si->spin_ang, sj->inv_ang[l]);
        if (sj->spin)
            G[(size_t)(row + 3) + L * (size_t)(col + 3)] +=
                s * lucid_vec3_dot(si->spin_ang, sj->inv_spin_ang);
    }
    if (sj->spin)
        for (int k = 0; k < 3; ++k)
            G[(size_t)(row + k) + L * (size_t)(col + 3)] +=
                s * lucid_vec3_dot(si->ang[k], sj->inv_spin_ang);
}

/* The angular direction of a free body side's row r (0..5; zero for a row it has not) and its
 * image under I^-1. */
static lucid_vec3 side_ang(const lucid_contact_side *s, int r, int inverse) {
    if (r < 3) return inverse ? s->inv_ang[r] : s->ang[r];
    if (r == 3) return !s->spin ? lucid_vec3_zero() : inverse ? s->inv_spin_ang : s->spin_ang;
    if (!s->roll) return lucid_vec3_zero();
    return inverse ? s->inv_roll_ang[r - 4] : s->roll_ang[r - 4];
}

/* The rolling entries of contacts i and j through one shared free body (dim 6 islands): i's
 * rolling rows against j's rows, i's other rows against j's rolling rows. */
static void add_roll_block(const lucid_contact_side *si, const lucid_contact_side *sj, double *G,
                           int ld, int row, int col) {
    double s = si->sign * sj->sign;
    size_t L = (size_t)ld;
    for (int k = 4; si->roll && k < 6; ++k)
        for (int l = 0; l < 6; ++l)
            G[(size_t)(row + k) + L * (size_t)(col + l)] +=
                s * lucid_vec3_dot(side_ang(si, k, 0), side_ang(sj, l, 1));
    for (int l = 4; sj->roll && l < 6; ++l)
        for (int k = 0; k < 4; ++k)
            G[(size_t)(row + k) + L * (size_t)(col + l)] +=
                s * lucid_vec3_dot(side_ang(si, k, 0), side_ang(sj, l, 1));
}

/* The key of a side's coupling: its free body, num_bodies + its model's tree, -1 (static). */
static int side_key(const lucid_world *w, const lucid_contact_side *s) {
    if (s->body >= 0) return s->body;
    if (s->model < 0 || s->tree < 0) return -1;
    return w->num_bodies + w->models[s->model].first_tree + s->tree;
}

/* Contacts i and j's blocks through every body and tree they share. */
static void add_pair(lucid_world *w, const int *list, int dim, int i, int j, double *G, int ld) {
    const lucid_contact_side *a = &w->d.sides[2 * list[i]], *b = &w->d.sides[2 * list[j]];
    int mirror = dim == 3 && j > i;
    for (int p = 0; p < 2; ++p)
        for (int q = 0; q < 2; ++q) {
            if (a[p].body >= 0 && a[p].body == b[q].body) {
                add_block(w, &w->d.contacts[list[i]], &a[p], &w->d.contacts[list[j]], &b[q], G, ld,
                          dim * i, dim * j, mirror);
                if (dim > 3) add_spin_block(&a[p], &b[q], G, ld, dim * i, dim * j);
                if (dim == 6) add_roll_block(&a[p], &b[q], G, ld, dim * i, dim * j);
            }
            if (a[p].model >= 0 && a[p].model == b[q].model && a[p].tree >= 0 &&
                a[p].tree == b[q].tree) {
                lucid_world_models_add_block(w, &a[p], &b[q], G, ld, dim * i, dim * j, mirror);
                if (dim > 3)
                    lucid_world_models_add_spin_block(w, &a[p], &b[q], G, ld, dim * i, dim * j);
                if (dim == 6)
                    lucid_world_models_add_roll_block(w, &a[p], &b[q], G, ld, dim * i, dim * j);
            }
        }
}

/* Links the island's sides into one list per key (side_head, side_next: side 2 i + p). */
static void link_sides(lucid_world *w, const int *list, int m) {
    for (int s = 0; s < 2 * m; ++s) {
        int key = side_key(w, &w->d.sides[2 * list[s / 2] + s % 2]);
        if (key >= 0) w->d.side_head[key] = -1;
    }
    for (int s = 0; s < 2 * m; ++s) {
        int key = side_key(w, &w->d.sides[2 * list[s / 2] + s % 2]);
        if (key < 0) continue;
        w->d.side_next[s] = w->d.side_head[key];
        w->d.side_head[key] = s;
    }
    for (int i = 0; i < m; ++i) w->d.side_mark[i] = -1;
}

/* G = J M^-1 J^T of an island of m contacts with dim rows each (3, or 4 when one has torsional
 * friction: a contact without has a decoupled spin row whose force the cone then holds at
 * zero; 6 when one has rolling friction, the same for its rolling rows). dim 3: the blocks
 * (i, j >= i) through each shared body or tree, each also written to (j, i) (half the work of
 * computing both); dims 4 and 6: every block (i, j). Only the pairs that share a key are
 * visited (through its list), each once: every block is one pair's, so the order of the pairs
 * leaves G unchanged. */
void lucid_world_island_delassus_dim(lucid_world *w, const int *list, int m, int dim, double *G) {
    int ld = dim * m; /* m <= LUCID_WORLD_MAX_ISLAND_CONTACTS */
    memset(G, 0, sizeof(double) * (size_t)ld * (size_t)ld);
    link_sides(w, list, m);
    for (int i = 0; i < m; ++i)
        for (int p = 0; p < 2; ++p) {
            int key = side_key(w, &w->d.sides[2 * list[i] + p]);
            for (int s = key < 0 ? -1 : w->d.side_head[key]; s >= 0; s = w->d.side_next[s]) {
                int j = s / 2; /* descending: each list was built by prepending */
                if (dim == 3 && j < i) break;
                if (w->d.side_mark[j] == i) continue;
                w->d.side_mark[j] = i;
                add_pair(w, list, dim, i, j, G, ld);
            }
        }
    /* a joint limit has no tangential rows: unit decoupled ones keep G + R regular, and its
     * zero friction holds their forces at zero */
    for (int i = 0; i < m; ++i)
        if (w->d.contacts[list[i]].limit_sign != 0)
            for (int k = 0; k < 2; ++k) G[(dim * i + k) * ((size_t)ld + 1)] = 1.0;
    /* a friction row's virtual normal row: decoupled, with its dof row's diagonal d (so the
     * island's scaling reads it in the units of the problem) */
    for (int i = 0; i < m; ++i)
        if (w->d.contacts[list[i]].frictionloss > 0.0)
            G[(dim * i + 2) * ((size_t)ld + 1)] = G[dim * i * ((size_t)ld + 1)];
    /* a contact without torsional friction in a dim 4 island: a decoupled spin row with its
     * normal row's diagonal (in the units of its other rows: the spectrum of G, which ADMM's
     * penalty follows, keeps its range) */
    for (int i = 0; dim > 3 && i < m; ++i) {
        const lucid_world_contact *c = &w->d.contacts[list[i]];
        size_t D = (size_t)ld + 1, n = (size_t)dim * (size_t)i + 2;
        if (!(lucid_world_contact_spin(c) > 0.0)) G[(n + 1) * D] = G[n * D];
        if (dim == 6 && !(lucid_world_contact_roll(c) > 0.0))
            G[(n + 2) * D] = G[(n + 3) * D] = G[n * D];
    }
}

/* A friction row's normal row: sigma_n = d (lambda_n - f) (G_nn = d decoupled, R_n = 0), so
 * under Signorini and De Saxce's cone (lcp, ncp, raisim) lambda_n = f exactly: separating
 * (lambda = 0) has sigma_n = -d f < 0, sticking and sliding both need sigma_n = 0. With
 * friction 1 the t1 force is then |lambda_t1| <= f, opposing the dof's velocity (MDP). */
static void friction_row_normal(lucid_world *w, int m, int dim, int i, lucid_world_contact *c) {
    size_t n = (size_t)dim * (size_t)i + 2, ld = (size_t)dim * (size_t)m;
    c->row_diagonal = w->d.G[n * (ld + 1)];
    w->d.g[n] = -c->row_diagonal * c->frictionloss;
    w->d.R[n] = 0.0;
}

/* Velocity of contact k's frame directions from the given body velocities. */
lucid_vec3 lucid_world_contact_velocity(const lucid_world *w, int k, const lucid_vec3 *v,
                                        const lucid_vec3 *om) {
    const lucid_world_contact *c = &w->d.contacts[k];
    double out[3] = {0, 0, 0};
    for (int p = 0; p < 2; ++p) {
        const lucid_contact_side *s = &w->d.sides[2 * k + p];
        if (s->model >= 0) { /* the model's velocity that goes with v: free or at the start */
            lucid_vec3 u = lucid_world_models_side_velocity(w, s, v == w->d.v_free);
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

double lucid_world_contact_row_velocity(const lucid_world *w, int k, int r) {
    double out = 0.0;
    for (int p = 0; p < 2; ++p) {
        const lucid_contact_side *s = &w->d.sides[2 * k + p];
        if (r == 3 ? !s->spin : !s->roll) continue;
        if (s->model >= 0)
            out += lucid_world_models_side_row_velocity(w, s, r, 1);
        else if (s->body >= 0)
            out += s->sign *
                   lucid_vec3_dot(r == 3 ? s->spin_ang : s->roll_ang[r - 4], w->d.w_free[s->body]);
    }
    return out;
}

/* The reference normal velocity c*_N (see world.h). v_n_before: normal velocity at the start
 * of the step, for restitution. Bodies are brought to a rest depth of slop / 2 (the contact's
 * slop, lucid_world_contact_slop), limits to their bound (rest_depth). */
static double reference_velocity(const lucid_world *w, const lucid_world_contact *c,
                                 double v_n_before) {
    return lucid_world_reference_velocity_branch(w, c, v_n_before, -1, NULL);
}

double lucid_world_contact_restitution(const lucid_world *w, const lucid_world_contact *c) {
    return fmax(w->bodies[c->body1].restitution, w->bodies[c->body2].restitution);
}

/* The piece of c*_N at separation d: 0 speculative (above the band), 1 the rest band, 2 deep.
 * The band reaches slop/10 above the rest depth slop/2: a resting contact lies inside it, ten
 * times farther from its edge than it drifts at rest (~1e-6 m at slop 1e-4), so the step is
 * smooth there. A limit (joint or tendon) has no band and rests at its bound: 0 while
 * c*_N = -d / dt is below the correction speed v_c, 2 past it. */
static int piece_of(const lucid_world *w, const lucid_world_contact *c, double slop, double d) {
    if (c->limit_sign != 0)
        return -d > lucid_world_correction_speed_for(&w->opt, slop) * w->opt.dt ? 2 : 0;
    return d > -0.4 * slop ? 0 : d >= -slop ? 1 : 2;
}

/* The depth row c rests at: slop/2 for a contact, whose collision normal is well defined
 * there (not at a touch, where it is the direction of a vector of rounding size); 0 for a
 * limit, whose separation is exact (a coordinate or tendon length, no geometry). */
static double rest_depth(const lucid_world_contact *c, double slop) {
    return c->limit_sign != 0 ? 0.0 : 0.5 * slop;
}

double lucid_world_contact_slop(const lucid_world *w, const lucid_world_contact *c) {
    double slop = w->opt.slop;
    if (lucid_world_contact_on_dof(c)) return slop; /* rad or m on a dof: no body length applies */
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
    if (piece == 2 &&
        -(d + rest_depth(c, slop)) > lucid_world_correction_speed_for(o, slop) * o->dt)
        return 0.0;
    return -1.0 / o->dt;
}

/* The piece of c*_N (0: speculative, 1: rest band, 2: deep; + 3 when restitution wins) given
 * by `branch` when it is >= 0, else chosen by the rules above and stored in *chosen. */
double lucid_world_reference_velocity_branch(const lucid_world *w, const lucid_world_contact *c,
                                             double v_n_before, int branch, int *chosen) {
    const lucid_world_options *o = &w->opt;
    double d = c->separation - c->include_margin, ref = 0.0;
    double slop = lucid_world_contact_slop(w, c), rest = rest_depth(c, slop);
    int piece = branch >= 0 ? branch % 3 : piece_of(w, c, slop, d);
    if (piece == 0)
        ref = -(d + rest) / o->dt;
    else if (piece == 2)
        ref = fmin(-(d + rest) / o->dt, lucid_world_correction_speed_for(o, slop));
    /* an impact: fast approach that closes the gap within this step */
    double e = lucid_world_contact_restitution(w, c);
    int impact = branch >= 0 ? branch >= 3
                             : e > 0.0 && -v_n_before > o->restitution_threshold &&
                                   d + v_n_before * o->dt < 0.0 && -e * v_n_before > ref;
    if (impact) ref = -e * v_n_before;
    if (chosen) *chosen = piece + 3 * impact;
    return ref;
}

void lucid_world_island_contact(const lucid_world *w, int k, int dim, const lucid_vec3 *v0,
                                const lucid_vec3 *w0, double *g, double *mu, double *R,
                                double *lambda, double *dual) {
    const lucid_world_contact *c = &w->d.contacts[k];
    const double dt = w->opt.dt;
    lucid_vec3 vf = lucid_world_contact_velocity(w, k, w->d.v_free, w->d.w_free);
    vf.z -= reference_velocity(w, c, lucid_world_contact_velocity(w, k, v0, w0).z);
    lucid_vec3_store(lucid_vec3_scale(vf, 1.0 / dt), g);
    *mu = c->friction;
    R[0] = R[1] = 0.0, R[2] = w->opt.compliance;
    memcpy(lambda, c->force, sizeof c->force);
    memcpy(dual, c->dual, sizeof c->dual);
    for (int r = 3; r < dim; ++r) { /* lambda_s = torque / a, lambda_r = torque / b */
        double a = r == 3 ? lucid_world_contact_spin(c) : lucid_world_contact_roll(c);
        g[r] = lucid_world_contact_row_velocity(w, k, r) / dt;
        R[r] = 0.0;
        lambda[r] = a > 0.0 ? (r == 3 ? c->torsion_force : c->rolling_force[r - 4]) / a : 0.0;
        dual[r] = a > 0.0 ? (r == 3 ? c->torsion_dual : c->rolling_dual[r - 4]) : 0.0;
    }
}

void lucid_world_keep_contact_forces(lucid_world *w, int k, int dim, const double *lambda,
                                     const double *dual) {
    lucid_world_contact *c = &w->d.contacts[k];
    memcpy(c->force, lambda, sizeof c->force);
    memcpy(c->dual, dual, sizeof c->dual);
    double a = dim > 3 ? lucid_world_contact_spin(c) : 0.0;
    double b = dim == 6 ? lucid_world_contact_roll(c) : 0.0;
    c->torsion_force = a > 0.0 ? a * lambda[3] : 0.0;
    c->torsion_dual = a > 0.0 ? dual[3] : 0.0;
    for (int r = 0; r < 2; ++r) {
        c->rolling_force[r] = b > 0.0 ? b * lambda[4 + r] : 0.0;
        c->rolling_dual[r] = b > 0.0 ? dual[4 + r] : 0.0;
    }
}

void lucid_world_island_record(lucid_world *w, const lucid_contact_options *o, const int *list,
                               int m, const lucid_contact_result *res, double f, double v,
                               const lucid_contact_problem *p, const double *lambda,
                               const double *sigma) {
    lucid_world_keep_rho(w, o, list, m, res->rho, f, v);
    w->d.stats.solver_iterations += res->iterations;
    w->d.stats.converged &= res->converged;
    w->d.stats.scaled_residual = fmax(w->d.stats.scaled_residual, res->model.abs);
    lucid_contact_criteria ncp;
    lucid_contact_criteria_eval(p, LUCID_CRITERION_NCP, lambda, sigma, NULL, &ncp);
    w->d.stats.residual = fmax(w->d.stats.residual, ncp.abs);
}

/* ---- solving ---------------------------------------------------------------------------- */

/* Buffers for an island of m contacts of dim rows; the island bound keeps every size below in
 * int range (4 x 2048 rows) and the memory at ~2 GB (3.5 GB with torsional friction). */
static lucid_status reserve_problem(lucid_world *w, int m, int dim) {
    if (m > LUCID_WORLD_MAX_ISLAND_CONTACTS) {
        snprintf(w->d.error, sizeof w->d.error,
                 "an island of %d contacts exceeds the %d contacts the dense contact solver takes",
                 m, LUCID_WORLD_MAX_ISLAND_CONTACTS);
        return LUCID_ERR_NO_MEMORY;
    }
    size_t n3 = (size_t)dim * (size_t)m;
    lucid_status s = LUCID_RESERVE(w, d.G, n3 * n3);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.g, n3);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.mu, (size_t)m);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.R, n3);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.lambda, n3);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.dual, n3);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.spare, 5 * n3);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.sigma, n3);
    if (s != LUCID_OK) return s;
    return lucid_world_reserve_workspace(w, (dim * m + 2) / 3); /* its capacity: 3 rows each */
}

lucid_status lucid_world_reserve_workspace(lucid_world *w, int m) {
    if (!w->d.workspace || lucid_contact_workspace_capacity(w->d.workspace) < m) {
        int cap = w->d.workspace ? 2 * lucid_contact_workspace_capacity(w->d.workspace) : 16;
        while (cap < m) cap *= 2;
        lucid_contact_workspace_destroy(w->d.workspace);
        w->d.workspace = lucid_contact_workspace_create(cap);
        if (!w->d.workspace) return LUCID_ERR_NO_MEMORY;
    }
    return LUCID_OK;
}

/* ---- the dense backend of the island solve (world_island_solve.c) ---------------------- */

typedef struct dense_island {
    lucid_world *w;
    const lucid_contact_problem *p;
    const double *solved_sigma; /* the last solve's velocity of its answer, until judged */
    double *judged; /* the lambda whose velocity the last judge left in w->d.sigma (all rows) */
    int has_judged;
} dense_island;

static lucid_status dense_solve(void *ctx, const lucid_contact_options *o, double *dual,
                                lucid_contact_result *res) {
    dense_island *d = ctx;
    lucid_status s =
        lucid_contact_solve_assembled(d->p, o, d->w->d.workspace, d->w->d.lambda, dual, res);
    d->solved_sigma = s == LUCID_OK ? lucid_contact_workspace_velocity(d->w->d.workspace) : NULL;
    return s;
}

static int all_zero(const double *x, size_t count) {
    for (size_t k = 0; k < count; ++k)
        if (x[k] != 0.0) return 0;
    return 1;
}

/* The answer's velocity: the solve's own while the answer is the solve's (the island solve
 * sets no other answer but lambda = 0, whose product costs nothing), else (G + R) lambda + g. */
static int dense_judge(void *ctx, lucid_contact_result *res) {
    dense_island *d = ctx;
    size_t n3 = (size_t)lucid_contact_rows(d->p);
    if (d->solved_sigma && !all_zero(d->w->d.lambda, n3))
        memcpy(d->w->d.sigma, d->solved_sigma, sizeof(double) * n3);
    else
        lucid_contact_velocity(d->p, d->w->d.lambda, d->w->d.sigma);
    d->solved_sigma = NULL;
    memcpy(d->judged, d->w->d.lambda, sizeof(double) * n3);
    d->has_judged = 1;
    return lucid_world_judge(d->p, d->w->opt.contact.model, d->w->d.lambda, d->w->d.sigma, res);
}

static double dense_round_off(void *ctx) {
    dense_island *d = ctx;
    return lucid_contact_round_off(d->p, d->w->d.lambda);
}

static double dense_mean_diagonal(void *ctx) {
    const lucid_contact_problem *p = ((dense_island *)ctx)->p;
    double sum = 0.0;
    long rows = lucid_contact_rows(p);
    for (int k = 0; k < rows; ++k) sum += lucid_contact_diag(p, k);
    return sum / (double)rows;
}

/* Expresses the island's problem in units of f for forces and v for velocities:
 * lambda' = lambda / f, g' = g / v, dual' = dual / v, G' = G f / v, R' = R f / v (so that
 * sigma' = sigma / v). With powers of two it is exact, and rescale(1 / f, 1 / v) undoes it. */
static void rescale(lucid_world *w, size_t n3, double f, double v) {
    if (f == 1.0 && v == 1.0) return;
    double fv = f / v;
    for (size_t k = 0; k < n3 * n3; ++k) w->d.G[k] *= fv;
    for (size_t k = 0; k < n3; ++k) {
        w->d.g[k] /= v, w->d.R[k] *= fv, w->d.dual[k] /= v;
        w->d.lambda[k] /= f;
    }
}

const double *lucid_world_problem_R(const double *R, long rows) {
    for (long k = 0; k < rows; ++k)
        if (R[k] > 0.0) return R;
    return NULL;
}

/* The name of contact c's geom on side p (body1: 0), or its body's when it is no model geom. */
static void side_name(const lucid_world *w, const lucid_world_contact *c, int p, char *buf,
                      size_t n) {
    int body = p ? c->body2 : c->body1, part = p ? c->part2 : c->part1;
    const lucid_body *b = &w->bodies[body];
    int geom = w->part_contact[b->part_begin + part].geom;
    const char *name =
        b->model >= 0 && geom >= 0 ? lucid_model_geoms(w->models[b->model].model)[geom].name : NULL;
    if (name)
        snprintf(buf, n, "geom '%s'", name);
    else
        snprintf(buf, n, "part %d of body %d", part + 1, body + 1);
}

int lucid_world_island_dim(const lucid_world *w, const int *list, int m) {
    int dim = 3;
    for (int i = 0; i < m; ++i) {
        const lucid_world_contact *c = &w->d.contacts[list[i]];
        if (c->rolling > 0.0) return 6;
        if (c->torsion > 0.0) dim = 4;
    }
    return dim;
}

/* Torsional and rolling friction need a pair with sliding friction (their rows are scaled by
 * mu_t / mu, lucid_world_contact_spin): an island that has them otherwise is refused by name
 * rather than solved without them. */
static lucid_status check_torsion(lucid_world *w, const int *list, int m) {
    for (int i = 0; i < m; ++i) {
        const lucid_world_contact *c = &w->d.contacts[list[i]];
        if (!(c->torsion > 0.0) && !(c->rolling > 0.0)) continue;
        char a[48], b[48];
        side_name(w, c, 0, a, sizeof a);
        side_name(w, c, 1, b, sizeof b);
        if (!(c->friction > 0.0)) {
            snprintf(w->d.error, sizeof w->d.error,
                     "contact of %.40s and %.40s: %s needs sliding friction > 0", a, b,
                     c->rolling > 0.0 ? "rolling friction" : "torsional friction");
            return LUCID_ERR_ARGUMENT;
        }
    }
    return LUCID_OK;
}

/* v_start / w_start: the velocities at the start of the step (centre of mass, world). */
static lucid_status solve_island(lucid_world *w, const int *list, int m, const lucid_vec3 *v0,
                                 const lucid_vec3 *w0) {
    int dim = lucid_world_island_dim(w, list, m);
    lucid_status s = dim > 3 ? check_torsion(w, list, m) : LUCID_OK;
    if (s == LUCID_OK) s = reserve_problem(w, m, dim);
    if (s != LUCID_OK) return s;
    size_t rows = (size_t)dim * (size_t)m;
    lucid_world_island_delassus_dim(w, list, m, dim, w->d.G);
    for (int i = 0; i < m; ++i) {
        size_t at = (size_t)dim * (size_t)i;
        lucid_world_island_contact(w, list[i], dim, v0, w0, w->d.g + at, w->d.mu + i, w->d.R + at,
                                   w->d.lambda + at, w->d.dual + at);
        lucid_world_contact *c = &w->d.contacts[list[i]];
        if (c->frictionloss > 0.0) friction_row_normal(w, m, dim, i, c);
    }
    lucid_contact_dense_null_rows_dim(m, dim, w->d.G, w->d.R, w->d.mu);
    lucid_contact_problem p = {
        m, w->d.G, w->d.g, w->d.mu, lucid_world_problem_R(w->d.R, (long)rows), dim};
    w->d.last_dim = dim;
    lucid_contact_result res;
    double force_scale, velocity_scale, diag = 0.0;
    for (int i = 0; i < m; ++i) diag = fmax(diag, lucid_contact_diag(&p, dim * i + 2));
    lucid_world_island_scales(w->d.g, rows, diag, &force_scale, &velocity_scale);
    rescale(w, rows, force_scale, velocity_scale);
    dense_island d = {w, &p, NULL, w->d.spare + 4 * (size_t)rows, 0};
    lucid_world_island island = {.n = m,
                                 .n3 = rows,
                                 .lambda = w->d.lambda,
                                 .dual = w->d.dual,
                                 .spare = w->d.spare,
                                 .ctx = &d,
                                 .solve = dense_solve,
                                 .judge = dense_judge,
                                 .round_off = dense_round_off,
                                 .mean_diagonal = dense_mean_diagonal,
                                 .info = lucid_world_current_island(w)};
    lucid_contact_options o = lucid_world_island_options(w, list, m);
    s = lucid_world_island_solve(
        &o, &island, lucid_world_warm_rho(w, &o, list, m, force_scale, velocity_scale), &res);
    /* the kept answer's velocity: the last judge's when it judged that answer in these units */
    int judged = d.has_judged && force_scale == 1.0 && velocity_scale == 1.0 &&
                 memcmp(d.judged, w->d.lambda, sizeof(double) * (size_t)rows) == 0;
    rescale(w, rows, 1.0 / force_scale, 1.0 / velocity_scale); /* exact: powers of two */
    if (s != LUCID_OK) return s;
    if (!judged) lucid_contact_velocity(&p, w->d.lambda, w->d.sigma);
    lucid_world_island_record(w, &o, list, m, &res, force_scale, velocity_scale, &p, w->d.lambda,
                              w->d.sigma);
    for (int i = 0; i < m; ++i) {
        size_t at = (size_t)dim * (size_t)i;
        lucid_world_keep_contact_forces(w, list[i], dim, w->d.lambda + at, w->d.dual + at);
        lucid_world_apply_contact_force(w, list[i]);
    }
    return LUCID_OK;
}

/* v+ += dt M^-1 J_k^T lambda_k on both sides of contact k (lambda_k = its force, and its
 * spin force torsion_force / a with torsional friction, its rolling forces rolling_force / b
 * with rolling friction). */
void lucid_world_apply_contact_force(lucid_world *w, int k) {
    const lucid_world_contact *c = &w->d.contacts[k];
    double a = lucid_world_contact_spin(c);
    double lambda_s = a > 0.0 ? c->torsion_force / a : 0.0, roll = lucid_world_contact_roll(c);
    double lambda_r[2] = {roll > 0.0 ? c->rolling_force[0] / roll : 0.0,
                          roll > 0.0 ? c->rolling_force[1] / roll : 0.0};
    for (int p2 = 0; p2 < 2; ++p2) {
        const lucid_contact_side *sd = &w->d.sides[2 * k + p2];
        if (sd->model >= 0 && !w->d.rows_without_inverse) {
            lucid_world_models_apply_impulse(w, sd, c->force);
            if (sd->spin) lucid_world_models_apply_spin_impulse(w, sd, lambda_s);
            for (int r = 0; sd->roll && r < 2; ++r)
                lucid_world_models_apply_row_impulse(w, sd, 4 + r, lambda_r[r]);
        }
        if (sd->body < 0) continue;
        if (sd->spin) /* the spin's angular impulse dt lambda_s I^-1 a n */
            w->d.w_free[sd->body] = lucid_vec3_axpy(
                w->d.w_free[sd->body], sd->sign * w->opt.dt * lambda_s, sd->inv_spin_ang);
        for (int r = 0; sd->roll && r < 2; ++r) /* the rolling's dt lambda_r I^-1 b t_r */
            w->d.w_free[sd->body] = lucid_vec3_axpy(
                w->d.w_free[sd->body], sd->sign * w->opt.dt * lambda_r[r], sd->inv_roll_ang[r]);
        const lucid_body *b = &w->bodies[sd->body];
        lucid_vec3 lin = lucid_vec3_zero(), ang = lucid_vec3_zero();
        for (int d = 0; d < 3; ++d) {
            double impulse = sd->sign * w->opt.dt * c->force[d];
            lin = lucid_vec3_axpy(lin, impulse, lucid_mat3_col(&c->frame, d));
            ang = lucid_vec3_axpy(ang, impulse, sd->inv_ang[d]);
        }
        w->d.v_free[sd->body] = lucid_vec3_axpy(w->d.v_free[sd->body], b->inv_mass, lin);
        w->d.w_free[sd->body] = lucid_vec3_add(w->d.w_free[sd->body], ang);
    }
}

lucid_status lucid_world_contact_rows(lucid_world *w) {
    if (w->d.num_contacts == 0) {
        w->d.num_islands = 0;
        return LUCID_OK;
    }
    lucid_status s = fill_sides(w);
    return s == LUCID_OK ? build_islands(w) : s;
}

lucid_status lucid_world_solve_contacts(lucid_world *w, const lucid_vec3 *v0,
                                        const lucid_vec3 *w0) {
    w->d.stats.contacts = w->d.num_contacts;
    w->d.stats.converged = 1;
    if (w->d.num_contacts == 0) {
        w->d.num_islands = 0; /* not the last step's: callers read the islands of this one */
        return LUCID_OK;
    }
    lucid_status s = fill_sides(w);
    if (s == LUCID_OK) s = build_islands(w);
    if (s != LUCID_OK) return s;
    w->d.stats.islands = w->d.num_islands;
    s = LUCID_RESERVE(w, d.island_info, (size_t)w->d.num_islands);
    if (s != LUCID_OK) return s;
    for (int i = 0; i < w->d.num_islands; ++i) {
        int begin = w->d.island_start[i], end = w->d.island_start[i + 1];
        w->d.last_sparse = lucid_world_sparse_applies(w, w->d.island_contacts + begin, end - begin);
        w->d.island_info[i] =
            (lucid_world_island_info){.contacts = end - begin, .body_space = w->d.last_sparse};
        w->d.num_island_info = i + 1;
        s = w->d.last_sparse ? lucid_world_solve_island_sparse(w, w->d.island_contacts + begin,
                                                               end - begin, v0, w0)
                             : solve_island(w, w->d.island_contacts + begin, end - begin, v0, w0);
        if (s != LUCID_OK) return s;
    }
    return LUCID_OK;
}
