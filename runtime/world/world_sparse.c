/* Islands solved in body space (solvers/contact/contact_sparse.h): no Delassus matrix, O(m)
 * memory, O(m) per PGS sweep, and for ADMM one sparse LDL factorisation of the velocity-space
 * H = M + J^T (R + rho I)^-1 J per rho (contact_sparse_hessian.h). Used for islands of more
 * than the solver's threshold of contacts (sparse_threshold) when the solver has
 * a body-space implementation (PGS for LCP, CCP, NCP; ADMM and IP for CCP, NCP; Newton for
 * CCP).
 *
 * For contact i and its side s on body b (sign -1 for body1, +1 for body2, frame directions
 * d_k, lever arm r = p - x_com, I the world inertia):
 *   J_s row k = sign (d_k, r x d_k),   W_s row k = sign (d_k / m, I^-1 (r x d_k)),
 * and after the solve v_free += dt u_lin, w_free += dt u_ang with u = M^-1 J^T lambda.
 * An island with torsional friction has 4 rows a contact (dim 4, as the dense island's): the
 * spin row J_s row 3 = sign (0, a n), W_s row 3 = sign (0, I^-1 a n) (a model link's: row 3 of
 * its J and Y, lucid_world_models_fill_side); a contact without torsion in such an island has
 * a zero spin row made decoupled by R = its normal row's diagonal, as the dense G's entry.
 * An island with rolling friction has 6 (dim 6): rows 4, 5 the rolling rows J_s = sign (0,
 * b t_k), W_s = sign (0, I^-1 b t_k) (a link's: rows 4, 5 of its J and Y); a contact without
 * them in such an island has zero rolling rows, decoupled the same way.
 * A model tree with equality rows is a slot of reduced coordinates (tree_slot: J P J^T as the
 * dense island's G), a dry-friction row's virtual normal row a column of its own
 * (fill_friction_normal).
 * The island solve (attempts, judging, the kept answer) is world_island_solve.c's, in the
 * island's units as the dense one (lucid_world_island_scales: powers of two, exact).
 * Buffers grow only (sizes in size_t with overflow checks), so a step allocates nothing once they
 * are large enough. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/model/model.h"
#include "runtime/world/world_internal.h"
#include "solvers/contact/contact_round_off.h"
#include "solvers/contact/contact_sparse.h"
#include "solvers/contact/contact_sparse_hessian.h"

struct lucid_world_sparse {
    int *slot;       /* per world body: its slot in the island, or -1 */
    int *model_slot; /* per model tree (first_tree + t): its slot in the island, or -1 */
    int *owner;      /* per slot: the world body (>= 0), -2 - the model, or -1 (a limit's) */
    int *tree;       /* per slot: a model's slot's tree */
    int *body;       /* 2m side slots */
    int *side_body;  /* 2m: the world body of each side, a link's for a robot row (-1: none) */
    size_t *dof, *side_at, *mass_at; /* the slots' columns, the sides' blocks, the slots' M */
    size_t *span;                    /* 4 per side: the non-zero columns of its J and W */
    size_t jw_len, mass_len;         /* doubles of J (= of W) and of M in use */
    /* per slot: its tree's dofs (a constrained tree's slot has fewer columns: the reduced
     * coordinates of its basis Z, at basis + basis_at) */
    size_t *full, *basis_at;
    size_t basis_len, scratch_len; /* doubles of the bases in use, of scratch needed */
    int too_large;                 /* a tree's sizes overflowed size_t */
    double *J, *W, *M, *g, *mu, *R, *lambda, *dual, *best, *work, *basis, *scratch;
    size_t side_body_cap, slot_cap, model_slot_cap, owner_cap, tree_cap, body_cap, dof_cap,
        side_at_cap, mass_at_cap, span_cap, J_cap, W_cap, M_cap, g_cap, mu_cap, R_cap, lambda_cap,
        dual_cap, best_cap, work_cap, full_cap, basis_at_cap, basis_cap, scratch_cap;
    lucid_contact_sparse_workspace *ws;
    int dim;                           /* rows per contact of the island being solved (3, 4, 6) */
    lucid_contact_sparse_problem last; /* the last island's problem (world units) */
    const int *last_list;              /* its contacts */
};

/* Makes room for n elements of `size` bytes in *buf (capacity *cap, in elements). */
static lucid_status grow(void **buf, size_t *cap, size_t n, size_t size) {
    return lucid_world_reserve(buf, cap, n > 0 ? n : 1, size);
}

void lucid_world_sparse_destroy(lucid_world_sparse *sp) {
    if (!sp) return;
    void *buffers[] = {sp->side_body, sp->slot,     sp->model_slot, sp->owner,  sp->body,
                       sp->dof,       sp->side_at,  sp->mass_at,    sp->span,   sp->J,
                       sp->W,         sp->M,        sp->g,          sp->mu,     sp->R,
                       sp->lambda,    sp->dual,     sp->best,       sp->work,   sp->tree,
                       sp->full,      sp->basis_at, sp->basis,      sp->scratch};
    for (size_t k = 0; k < sizeof buffers / sizeof buffers[0]; ++k) free(buffers[k]);
    lucid_contact_sparse_workspace_destroy(sp->ws);
    free(sp);
}

/* The island size above which the body-space path is taken under solver: opt.sparse_threshold
 * when >= 0, else the solver's crossover. */
static int sparse_threshold(const lucid_world_options *o, lucid_contact_solver solver) {
    if (o->sparse_threshold >= 0) return o->sparse_threshold;
    switch (solver) {
        case LUCID_CONTACT_ADMM:
            return LUCID_WORLD_SPARSE_ADMM_CROSSOVER;
        case LUCID_CONTACT_NEWTON:
            return o->contact.model == LUCID_CONTACT_NCP ? LUCID_WORLD_SPARSE_NCP_NEWTON_CROSSOVER
                                                         : LUCID_WORLD_SPARSE_NEWTON_CROSSOVER;
        case LUCID_CONTACT_IP:
            return LUCID_WORLD_SPARSE_IP_CROSSOVER;
        default:
            return LUCID_WORLD_SPARSE_PGS_CROSSOVER;
    }
}

/* Whether a contact of the island has torsional or rolling friction without sliding friction
 * (its rows are scaled by 1 / mu): the dense island refuses it by name. */
static int spin_without_friction(const lucid_world *w, const int *list, int m) {
    for (int i = 0; i < m; ++i) {
        const lucid_world_contact *c = &w->d.contacts[list[i]];
        if ((c->torsion > 0.0 || c->rolling > 0.0) && !(c->friction > 0.0)) return 1;
    }
    return 0;
}

int lucid_world_sparse_applies(const lucid_world *w, const int *list, int m) {
    lucid_contact_solver solver = lucid_world_island_options(w, list, m).solver;
    if (!lucid_contact_sparse_has(w->opt.contact.model, solver)) return 0;
    /* torsional and rolling friction (dims 4, 6) by the solvers whose body-space forms take
     * them (admm, pgs, ip, ncp:newton; ccp:newton's is of dim 3): the dense island solves the
     * others, and refuses torsion or rolling without sliding friction by name */
    int dim = lucid_world_island_dim(w, list, m);
    int ccp_newton = solver == LUCID_CONTACT_NEWTON && w->opt.contact.model == LUCID_CONTACT_CCP;
    if (dim > 3 && (ccp_newton || spin_without_friction(w, list, m))) return 0;
    int threshold = sparse_threshold(&w->opt, solver);
    if (w->opt.sparse_threshold < 0 && solver == LUCID_CONTACT_ADMM &&
        threshold > LUCID_WORLD_SPARSE_ADMM_ROBOT_CROSSOVER &&
        lucid_world_island_touches_model(w, list, m))
        threshold = LUCID_WORLD_SPARSE_ADMM_ROBOT_CROSSOVER;
    return m > threshold;
}

/* The per-contact and per-slot buffers of an island of m contacts of dim rows (at most 2m
 * slots). */
static lucid_status reserve(lucid_world *w, size_t m, int dim) {
    if (!w->d.sparse) {
        w->d.sparse = calloc(1, sizeof *w->d.sparse);
        if (!w->d.sparse) return LUCID_ERR_NO_MEMORY;
    }
    lucid_world_sparse *sp = w->d.sparse;
    if (!sp->ws && !(sp->ws = lucid_contact_sparse_workspace_create())) return LUCID_ERR_NO_MEMORY;
    if (m > SIZE_MAX / 64 || m > INT32_MAX / 64) return LUCID_ERR_NO_MEMORY;
    size_t nb = (size_t)w->num_bodies, nm = (size_t)lucid_world_models_trees(w);
    lucid_status s = grow((void **)&sp->slot, &sp->slot_cap, nb, sizeof(int));
    if (s == LUCID_OK) s = grow((void **)&sp->model_slot, &sp->model_slot_cap, nm, sizeof(int));
    if (s == LUCID_OK) s = grow((void **)&sp->owner, &sp->owner_cap, 2 * m, sizeof(int));
    if (s == LUCID_OK) s = grow((void **)&sp->tree, &sp->tree_cap, 2 * m, sizeof(int));
    if (s == LUCID_OK) s = grow((void **)&sp->body, &sp->body_cap, 2 * m, sizeof(int));
    if (s == LUCID_OK) s = grow((void **)&sp->side_body, &sp->side_body_cap, 2 * m, sizeof(int));
    if (s == LUCID_OK) s = grow((void **)&sp->dof, &sp->dof_cap, 2 * m + 1, sizeof(size_t));
    if (s == LUCID_OK) s = grow((void **)&sp->side_at, &sp->side_at_cap, 2 * m, sizeof(size_t));
    if (s == LUCID_OK) s = grow((void **)&sp->mass_at, &sp->mass_at_cap, 2 * m, sizeof(size_t));
    if (s == LUCID_OK) s = grow((void **)&sp->span, &sp->span_cap, 8 * m, sizeof(size_t));
    if (s == LUCID_OK) s = grow((void **)&sp->full, &sp->full_cap, 2 * m, sizeof(size_t));
    if (s == LUCID_OK) s = grow((void **)&sp->basis_at, &sp->basis_at_cap, 2 * m, sizeof(size_t));
    size_t rows = (size_t)dim * m;
    if (s == LUCID_OK) s = grow((void **)&sp->g, &sp->g_cap, rows, sizeof(double));
    if (s == LUCID_OK) s = grow((void **)&sp->mu, &sp->mu_cap, m, sizeof(double));
    if (s == LUCID_OK) s = grow((void **)&sp->R, &sp->R_cap, rows, sizeof(double));
    if (s == LUCID_OK) s = grow((void **)&sp->lambda, &sp->lambda_cap, rows, sizeof(double));
    if (s == LUCID_OK) s = grow((void **)&sp->dual, &sp->dual_cap, rows, sizeof(double));
    if (s == LUCID_OK) s = grow((void **)&sp->best, &sp->best_cap, 4 * rows, sizeof(double));
    sp->dim = dim;
    return s;
}

/* The buffers sized by the island's slots: J and W (jw doubles), M, the solvers' workspace. */
static lucid_status reserve_slots(lucid_world *w, size_t m, size_t columns) {
    lucid_world_sparse *sp = w->d.sparse;
    size_t work = lucid_contact_sparse_work_size_dim((int)m, sp->dim, columns);
    if (work == 0) return LUCID_ERR_NO_MEMORY;
    lucid_status s = grow((void **)&sp->J, &sp->J_cap, sp->jw_len, sizeof(double));
    if (s == LUCID_OK) s = grow((void **)&sp->W, &sp->W_cap, sp->jw_len, sizeof(double));
    if (s == LUCID_OK) s = grow((void **)&sp->M, &sp->M_cap, sp->mass_len, sizeof(double));
    if (s == LUCID_OK) s = grow((void **)&sp->work, &sp->work_cap, work, sizeof(double));
    if (s == LUCID_OK) s = grow((void **)&sp->basis, &sp->basis_cap, sp->basis_len, sizeof(double));
    if (s == LUCID_OK)
        s = grow((void **)&sp->scratch, &sp->scratch_cap, sp->scratch_len, sizeof(double));
    if (s == LUCID_OK && w->opt.contact.solver != LUCID_CONTACT_PGS)
        s = lucid_contact_sparse_reserve_dim(sp->ws, (int)m, sp->dim, columns);
    return s;
}

/* The blocks (dim x 6) of side `side` of contact k on a free body. */
static void fill_blocks(const lucid_world *w, int k, int side, int dim, double *J, double *W) {
    const lucid_world_contact *c = &w->d.contacts[k];
    const lucid_contact_side *s = &w->d.sides[2 * k + side];
    double inv_m = w->bodies[s->body].inv_mass;
    for (int d = 0; d < 3; ++d) {
        lucid_vec3 dir = lucid_mat3_col(&c->frame, d);
        lucid_vec3_store(lucid_vec3_scale(dir, s->sign), J + 6 * d);
        lucid_vec3_store(lucid_vec3_scale(s->ang[d], s->sign), J + 6 * d + 3);
        lucid_vec3_store(lucid_vec3_scale(dir, s->sign * inv_m), W + 6 * d);
        lucid_vec3_store(lucid_vec3_scale(s->inv_ang[d], s->sign), W + 6 * d + 3);
    }
    if (dim == 3) return;
    memset(J + 18, 0, sizeof(double) * 6 * (size_t)(dim - 3));
    memset(W + 18, 0, sizeof(double) * 6 * (size_t)(dim - 3));
    if (s->spin) { /* the spin row: sign (0, a n), W's sign (0, I^-1 a n) */
        lucid_vec3_store(lucid_vec3_scale(s->spin_ang, s->sign), J + 21);
        lucid_vec3_store(lucid_vec3_scale(s->inv_spin_ang, s->sign), W + 21);
    }
    for (int r = 0; dim == 6 && s->roll && r < 2; ++r) { /* sign (0, b t_r), sign (0, I^-1 b t_r) */
        lucid_vec3_store(lucid_vec3_scale(s->roll_ang[r], s->sign), J + 27 + 6 * r);
        lucid_vec3_store(lucid_vec3_scale(s->inv_roll_ang[r], s->sign), W + 27 + 6 * r);
    }
}

/* M (row-major 6 x 6) = diag(m I, R I_body R^T) of body b */
static void mass_block(const lucid_body *b, double *M) {
    memset(M, 0, sizeof(double) * 36);
    for (int k = 0; k < 3; ++k) M[7 * k] = b->mass;
    lucid_mat3 RI = lucid_mat3_mul(&b->pose.R, &b->inertia);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            double v = 0.0;
            for (int k = 0; k < 3; ++k)
                v += lucid_mat3_at(&RI, r, k) * lucid_mat3_at(&b->pose.R, c, k);
            M[6 * (3 + r) + 3 + c] = v;
        }
}

/* A new slot of `width` columns owned by `owner` (see struct lucid_world_sparse). */
static int new_slot(lucid_world_sparse *sp, int *slots, int owner, size_t width) {
    int b = (*slots)++;
    sp->owner[b] = owner;
    sp->full[b] = width;
    sp->mass_at[b] = sp->mass_len;
    sp->mass_len += width * width;
    sp->dof[b + 1] = sp->dof[b] + width;
    return b;
}

/* The slot of model tree s->tree: its dofs' columns, or for a tree with equality rows of rank
 * r the width - r reduced coordinates u' of v = Z u' (lucid_world_equality_null_basis, Z^T Z =
 * I): M' = Z^T M~ Z, J' = J Z and W' = W Z, since W^T = P J^T and P = Z M'^-1 Z^T give
 * W'^T = M'^-1 J'^T; so J' M'^-1 J'^T = J P J^T, the dense island's G. -1 when the rows leave
 * the tree no freedom. */
static int tree_slot(lucid_world *w, const lucid_contact_side *s, int *slots) {
    lucid_world_sparse *sp = w->d.sparse;
    int t = w->models[s->model].first_tree + s->tree;
    if (sp->model_slot[t] >= 0) return sp->model_slot[t];
    size_t r = lucid_world_equality_tree_rank(&w->models[s->model], s->tree), n = s->width;
    if (r >= n) return -1;
    if (n > SIZE_MAX / 2 / n || n * n > SIZE_MAX - sp->basis_len) sp->too_large = 1;
    if (sp->too_large) return -1;
    int b = new_slot(sp, slots, -2 - s->model, n - r);
    sp->model_slot[t] = b;
    sp->tree[b] = s->tree;
    sp->full[b] = n;
    sp->basis_at[b] = sp->basis_len;
    if (r > 0) sp->basis_len += n * (n - r);
    /* scratch: M~ and M~ Z, the QR's A (n r), Z u' */
    if (2 * n * n > sp->scratch_len) sp->scratch_len = 2 * n * n;
    return b;
}

/* The slot of side `side` of contact k: its free body's, its model tree's (the links of a tree
 * share its velocities), a fresh 2-column one for the tangential rows of a joint limit (whose
 * link side is the other), a fresh 1-column one for a dry-friction row's virtual normal row
 * (fill_friction_normal), or -1 (static, or a link no dof moves). */
static int side_slot(lucid_world *w, int k, int side, int *slots) {
    lucid_world_sparse *sp = w->d.sparse;
    const lucid_contact_side *s = &w->d.sides[2 * k + side];
    if (s->body >= 0) {
        if (sp->slot[s->body] < 0) sp->slot[s->body] = new_slot(sp, slots, s->body, 6);
        return sp->slot[s->body];
    }
    if (s->model >= 0 && s->tree >= 0) return tree_slot(w, s, slots);
    if (w->d.contacts[k].limit_sign != 0 && side == 0) return new_slot(sp, slots, -1, 2);
    if (w->d.contacts[k].frictionloss > 0.0 && side == 0) return new_slot(sp, slots, -1, 1);
    return -1;
}

/* Whether slot b holds reduced coordinates (its basis Z: full[b] x width). */
static int reduced(const lucid_world_sparse *sp, int b) {
    return sp->owner[b] <= -2 && sp->full[b] != sp->dof[b + 1] - sp->dof[b];
}

/* Out (rows x width', row-major) = In (rows x full, row-major, leading dimension full) Z. */
static void times_basis(const double *in, size_t rows, size_t full, const double *Z, size_t width,
                        double *out) {
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < width; ++c) {
            double s = 0.0;
            for (size_t k = 0; k < full; ++k) s += in[r * full + k] * Z[k + full * c];
            out[r * width + c] = s;
        }
}

/* Side s's blocks J and W (contact k, side `side`). */
static void fill_side_blocks(lucid_world *w, int k, int side, int s) {
    lucid_world_sparse *sp = w->d.sparse;
    int b = sp->body[s], owner = sp->owner[b], dim = sp->dim;
    size_t width = sp->dof[b + 1] - sp->dof[b];
    double *J = sp->J + sp->side_at[s], *W = sp->W + sp->side_at[s];
    const lucid_contact_side *cs = &w->d.sides[2 * k + side];
    if (owner >= 0) {
        fill_blocks(w, k, side, dim, J, W);
        return;
    }
    /* a link: the rows over its tree's dofs, W = (P J^T)^T (P = M~^-1 without equality rows), its
     * spin and rolling rows (rows 3 to 5 of its J and Y) when it has them, times Z on a reduced
     * slot; a limit's tangential rows: J = W = [I_2; 0] */
    size_t rows = owner <= -2 ? (size_t)lucid_world_contact_dim(&w->d.contacts[k]) : 3;
    if (owner <= -2 && reduced(sp, b)) {
        const double *Z = sp->basis + sp->basis_at[b];
        times_basis(w->d.link_J + cs->row, rows, sp->full[b], Z, width, J);
        times_basis(w->d.link_Y + cs->row, rows, sp->full[b], Z, width, W);
    } else if (owner <= -2) {
        memcpy(J, w->d.link_J + cs->row, sizeof(double) * rows * width);
        memcpy(W, w->d.link_Y + cs->row, sizeof(double) * rows * width);
    } else if (width == 1) { /* a friction row's normal column: set by fill_friction_normal */
        memset(J, 0, 3 * sizeof(double)), memset(W, 0, 3 * sizeof(double));
    } else {
        static const double unit[6] = {1.0, 0.0, 0.0, 1.0, 0.0, 0.0};
        memcpy(J, unit, sizeof unit), memcpy(W, unit, sizeof unit);
    }
    if ((size_t)dim > rows) /* no spin or rolling rows on this side */
        memset(J + rows * width, 0, sizeof(double) * ((size_t)dim - rows) * width),
            memset(W + rows * width, 0, sizeof(double) * ((size_t)dim - rows) * width);
}

/* Whether column c of a row-major dim x w block is zero. */
static int zero_column(const double *B, int dim, size_t w, size_t c) {
    for (int d = 0; d < dim; ++d)
        if (B[(size_t)d * w + c] != 0.0) return 0;
    return 1;
}

/* [*lo, *hi): the columns of a row-major dim x w block with a non-zero entry (0, 0 when
 * none). */
static void nonzero_span(const double *B, int dim, size_t w, size_t *lo, size_t *hi) {
    size_t a = 0, b = w;
    while (a < w && zero_column(B, dim, w, a)) ++a;
    while (b > a && zero_column(B, dim, w, b - 1)) --b;
    *lo = a, *hi = b;
}

/* M' = Z^T M~ Z (width' x width') of reduced slot b (scratch: M~, then M~ Z). */
static void reduced_mass(lucid_world *w, int b, double *M) {
    lucid_world_sparse *sp = w->d.sparse;
    size_t full = sp->full[b], width = sp->dof[b + 1] - sp->dof[b];
    const double *Z = sp->basis + sp->basis_at[b];
    double *Mt = sp->scratch, *MZ = Mt + full * full;
    lucid_world_models_tree_mass(w, -2 - sp->owner[b], sp->tree[b], Mt);
    times_basis(Mt, full, full, Z, width, MZ); /* M~ symmetric: row-major or not alike */
    for (size_t i = 0; i < width; ++i)
        for (size_t j = i; j < width; ++j) { /* the upper triangle, mirrored: symmetric */
            double v = 0.0;
            for (size_t k = 0; k < full; ++k) v += Z[k + full * i] * MZ[k * width + j];
            M[i * width + j] = M[j * width + i] = v;
        }
}

/* Slot b's mass block: a body's diag(m I, I_world), a model tree's block of M~ (symmetric; a
 * constrained tree's Z^T M~ Z), a limit's I_2, a friction row's normal column 1. */
static void fill_mass(lucid_world *w, int b) {
    lucid_world_sparse *sp = w->d.sparse;
    int owner = sp->owner[b];
    double *M = sp->M + sp->mass_at[b];
    if (owner >= 0) {
        mass_block(&w->bodies[owner], M);
    } else if (owner <= -2 && reduced(sp, b)) {
        reduced_mass(w, b, M);
    } else if (owner <= -2) {
        lucid_world_models_tree_mass(w, -2 - owner, sp->tree[b], M);
    } else {
        static const double unit[4] = {1.0, 0.0, 0.0, 1.0};
        memcpy(M, unit, sizeof(double) * (sp->dof[b + 1] - sp->dof[b] == 1 ? 1 : 4));
    }
}

/* J_s row r . W_s row r of side s (its blocks filled): its share of G's entry of row r. */
static double side_row_product(const lucid_world_sparse *sp, int s, int r) {
    int b = sp->body[s];
    if (b < 0) return 0.0;
    size_t width = sp->dof[b + 1] - sp->dof[b], at = sp->side_at[s] + (size_t)r * width;
    double d = 0.0;
    for (size_t k = 0; k < width; ++k) d += sp->J[at + k] * sp->W[at + k];
    return d;
}

/* The normal row of dry-friction row k, the island's i-th (its link side filled): as the dense
 * island's, decoupled with G_nn = d, the t1 row's diagonal, g_n = -d f and R_n = 0, so that
 * lambda_n = f (world_delassus.c): its own column of M = 1 with J = W = sqrt(d) (d is then
 * sqrt(d)^2, kept as the row's diagonal). */
static void fill_friction_normal(lucid_world *w, int k, int i) {
    lucid_world_sparse *sp = w->d.sparse;
    lucid_world_contact *c = &w->d.contacts[k];
    double root = sqrt(side_row_product(sp, 2 * i, 0) + side_row_product(sp, 2 * i + 1, 0));
    size_t at = sp->side_at[2 * i], n = (size_t)sp->dim * (size_t)i + 2;
    sp->J[at + 2] = sp->W[at + 2] = root;
    sp->span[8 * (size_t)i] = sp->span[8 * (size_t)i + 2] = 0;
    sp->span[8 * (size_t)i + 1] = sp->span[8 * (size_t)i + 3] = 1;
    c->row_diagonal = root * root;
    sp->g[n] = -c->row_diagonal * c->frictionloss;
    sp->R[n] = 0.0;
}

/* A contact without torsional (rolling) friction in an island of dim 4 (6): its spin (rolling)
 * rows decoupled by R = its normal row's diagonal of G, as the dense island's G entries. */
static void decouple_rows(lucid_world *w, int k, int i) {
    lucid_world_sparse *sp = w->d.sparse;
    const lucid_world_contact *c = &w->d.contacts[k];
    size_t at = (size_t)sp->dim * (size_t)i;
    double normal = side_row_product(sp, 2 * i, 2) + side_row_product(sp, 2 * i + 1, 2);
    if (!(lucid_world_contact_spin(c) > 0.0)) sp->R[at + 3] = normal;
    if (sp->dim == 6 && !(lucid_world_contact_roll(c) > 0.0))
        sp->R[at + 4] = sp->R[at + 5] = normal;
}

/* The island's problem (*slots: the number of slots). Two passes: the slots and the offsets
 * of every block, then (once J, W, M have room) the blocks. */
static lucid_status assemble(lucid_world *w, const int *list, int m, const lucid_vec3 *v0,
                             const lucid_vec3 *w0, int *slots_out) {
    lucid_world_sparse *sp = w->d.sparse;
    int slots = 0, need_mass = w->opt.contact.solver != LUCID_CONTACT_PGS, dim = sp->dim;
    for (int i = 0; i < m; ++i)
        for (int side = 0; side < 2; ++side) {
            const lucid_contact_side *cs = &w->d.sides[2 * list[i] + side];
            if (cs->body >= 0) sp->slot[cs->body] = -1;
            if (cs->model >= 0 && cs->tree >= 0)
                sp->model_slot[w->models[cs->model].first_tree + cs->tree] = -1;
        }
    sp->dof[0] = 0, sp->jw_len = 0, sp->mass_len = 0;
    sp->basis_len = 0, sp->scratch_len = 0, sp->too_large = 0;
    for (int i = 0; i < m; ++i)
        for (int side = 0; side < 2; ++side) {
            int s = 2 * i + side, b = side_slot(w, list[i], side, &slots);
            sp->body[s] = b;
            const lucid_world_contact *c = &w->d.contacts[list[i]];
            sp->side_body[s] = b >= 0 && sp->owner[b] != -1 ? (side ? c->body2 : c->body1) : -1;
            sp->side_at[s] = sp->jw_len;
            size_t width = b >= 0 ? sp->dof[b + 1] - sp->dof[b] : 0;
            if (width > (SIZE_MAX / 16 - sp->jw_len) / (size_t)dim) return LUCID_ERR_NO_MEMORY;
            sp->jw_len += (size_t)sp->dim * width;
        }
    if (sp->too_large) return LUCID_ERR_NO_MEMORY;
    lucid_status st = reserve_slots(w, (size_t)m, sp->dof[slots]);
    if (st != LUCID_OK) return st;
    for (int b = 0; b < slots; ++b)
        if (reduced(sp, b))
            lucid_world_equality_null_basis(&w->models[-2 - sp->owner[b]], sp->tree[b],
                                            sp->basis + sp->basis_at[b], sp->scratch);
    if (need_mass)
        for (int b = 0; b < slots; ++b) fill_mass(w, b);
    for (int i = 0; i < m; ++i) {
        const lucid_world_contact *c = &w->d.contacts[list[i]];
        for (int side = 0; side < 2; ++side) {
            int s = 2 * i + side, b = sp->body[s];
            if (b < 0) continue;
            fill_side_blocks(w, list[i], side, s);
            size_t width = sp->dof[b + 1] - sp->dof[b], *span = sp->span + 4 * (size_t)s;
            nonzero_span(sp->J + sp->side_at[s], dim, width, span, span + 1);
            nonzero_span(sp->W + sp->side_at[s], dim, width, span + 2, span + 3);
        }
        size_t at = (size_t)dim * (size_t)i;
        lucid_world_island_contact(w, list[i], dim, v0, w0, sp->g + at, sp->mu + i, sp->R + at,
                                   sp->lambda + at, sp->dual + at);
        if (c->frictionloss > 0.0) fill_friction_normal(w, list[i], i);
        if (dim > 3) decouple_rows(w, list[i], i);
    }
    *slots_out = slots;
    return LUCID_OK;
}

/* G's entry (k, k): sum over the sides of contact k / dim of J_s row k % dim . W_s row
 * k % dim (lucid_contact_null_rows_dim). */
static double row_diagonal(const void *ctx, int k) {
    const lucid_contact_sparse_problem *p = ctx;
    int dim = lucid_sparse_dim(p);
    double d = 0.0;
    for (int s = 2 * (k / dim); s < 2 * (k / dim) + 2; ++s) {
        if (p->body[s] < 0) continue;
        size_t w = lucid_sparse_width(p, p->body[s]);
        size_t at = lucid_sparse_side_at(p, s) + (size_t)(k % dim) * w;
        const double *J = p->J + at, *W = p->W + at;
        for (size_t c = 0; c < w; ++c) d += J[c] * W[c];
    }
    return d;
}

/* (G + R)_nn of contact i. */
static double normal_diagonal(const lucid_contact_sparse_problem *p, int i) {
    int k = lucid_sparse_dim(p) * i + 2;
    return (p->R ? p->R[k] : 0.0) + row_diagonal(p, k);
}

/* lambda' = lambda / f, g' = g / v, dual' = dual / v, W' = W f / v (G' = G f / v),
 * M' = M v / f, R' = R f / v: exact with powers of two; rescale(1 / f, 1 / v) undoes it. */
static void rescale(lucid_world_sparse *sp, int m, double f, double v) {
    if (f == 1.0 && v == 1.0) return;
    size_t n3 = (size_t)sp->dim * (size_t)m;
    double fv = f / v;
    for (size_t k = 0; k < sp->jw_len; ++k) sp->W[k] *= fv;
    for (size_t k = 0; k < sp->mass_len; ++k) sp->M[k] /= fv;
    for (size_t k = 0; k < n3; ++k) {
        sp->g[k] /= v, sp->R[k] *= fv, sp->dual[k] /= v;
        sp->lambda[k] /= f;
    }
}

/* d (dim n) += |J| |W|^T x through the slots (u: scratch of lucid_sparse_columns), x[k] given
 * by weight(lambda[k]): |G| x without G. */
static void add_abs_product(const lucid_contact_sparse_problem *p, const double *lambda,
                            double (*weight)(double), double *u, double *d) {
    int dim = lucid_sparse_dim(p);
    memset(u, 0, sizeof(double) * lucid_sparse_columns(p));
    for (int s = 0; s < 2 * p->n; ++s) {
        if (p->body[s] < 0) continue;
        size_t w = lucid_sparse_width(p, p->body[s]);
        const double *W = p->W + lucid_sparse_side_at(p, s),
                     *l = lambda + (size_t)dim * (size_t)(s / 2);
        double *ub = u + lucid_sparse_begin(p, p->body[s]);
        for (int r = 0; r < dim; ++r) {
            double x = weight(l[r]);
            for (size_t k = 0; k < w; ++k) ub[k] += fabs(W[r * w + k]) * x;
        }
    }
    for (int s = 0; s < 2 * p->n; ++s) {
        if (p->body[s] < 0) continue;
        size_t w = lucid_sparse_width(p, p->body[s]);
        const double *J = p->J + lucid_sparse_side_at(p, s),
                     *ub = u + lucid_sparse_begin(p, p->body[s]);
        for (int r = 0; r < dim; ++r)
            for (size_t k = 0; k < w; ++k)
                d[(size_t)dim * (size_t)(s / 2) + r] += fabs(J[r * w + k]) * ub[k];
    }
}

/* u |x| (u = eps / 2, the unit round-off): the weight of the sum's rounding in add_abs_product */
static double unit_round_off_of(double x) {
    return 0.5 * DBL_EPSILON * fabs(x);
}

/* Contact i's share of the round-off bound (lucid_contact_round_off_bound), a contact of dim 4
 * or 6 folded as contact_round_off.c does: (t1, s, r1, r2) as one tangential entry. */
static double contact_round_off(const lucid_contact_sparse_problem *p, int i, const double *lambda,
                                const double *sigma, const double *d) {
    int dim = lucid_sparse_dim(p);
    if (dim == 3)
        return lucid_contact_round_off_bound(p->mu[i], lambda + 3 * i, sigma + 3 * i, d + 3 * i);
    const double *l = lambda + dim * i, *s = sigma + dim * i, *e = d + dim * i;
    double l3[3] = {l[0], l[1], l[2]}, s3[3] = {s[0], s[1], s[2]}, d3[3] = {e[0], e[1], e[2]};
    for (int k = 3; k < dim; ++k)
        l3[0] = hypot(l3[0], l[k]), s3[0] = hypot(s3[0], s[k]), d3[0] = hypot(d3[0], e[k]);
    return lucid_contact_round_off_bound(p->mu[i], l3, s3, d3);
}

/* lucid_contact_round_off on the sparse form (sigma: lambda's velocity, d: scratch dim n):
 * |G + R| through |J| |W|^T, whose products bound |G|'s entrywise (an upper bound of the same
 * rounding). */
static double round_off(const lucid_contact_sparse_problem *p, const double *lambda,
                        const double *sigma, double *u, double *d) {
    size_t n3 = lucid_sparse_rows(p);
    for (size_t k = 0; k < n3; ++k) {
        double r = p->R ? p->R[k] : 0.0;
        d[k] = r * lucid_half_ulp(lambda[k]) +
               0.5 * DBL_EPSILON * (fabs(p->g[k]) + fabs(r * lambda[k]));
    }
    add_abs_product(p, lambda, lucid_half_ulp, u, d);
    add_abs_product(p, lambda, unit_round_off_of, u, d);
    double worst = 0.0;
    for (int i = 0; i < p->n; ++i) worst = fmax(worst, contact_round_off(p, i, lambda, sigma, d));
    return worst;
}

/* The interior point's attempt on an island of at most the ip's body-space crossover
 * (LUCID_WORLD_SPARSE_IP_CROSSOVER; larger ones run it in body space, sparse_solve), in contact
 * space on G = J M^-1 J^T built from the sparse pieces, its Newton systems dense LUs: there
 * KLU's sparse kernels on [M -J^T; J B] cost more (docs/benchmarks/step_derivatives.md, "Cold
 * robot islands"). The same iteration, the same answer to rounding. G goes into the dense path's
 * buffer w->d.G, free here: a dense island assembles its own before solving, and
 * lucid_world_last_problem reads it only when the last island was dense. */
static lucid_status ip_attempt(lucid_world *w, const lucid_contact_sparse_problem *p,
                               const lucid_contact_options *o, lucid_contact_result *res) {
    lucid_world_sparse *sp = w->d.sparse;
    size_t n3 = lucid_sparse_rows(p); /* dim n; the workspace's capacity: 3 rows each */
    lucid_status s = lucid_world_reserve_workspace(w, (int)((n3 + 2) / 3));
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.G, n3 * n3);
    if (s != LUCID_OK) return s;
    lucid_contact_sparse_delassus(p, w->d.G);
    lucid_contact_problem dense = {p->n, w->d.G, p->g, p->mu, p->R, lucid_sparse_dim(p)};
    return lucid_contact_solve(&dense, o, w->d.workspace, sp->lambda, sp->dual, res);
}

/* ---- the body-space backend of the island solve (world_island_solve.c) ----------------- */

typedef struct sparse_island {
    lucid_world *w;
    const lucid_contact_sparse_problem *p;
} sparse_island;

/* The world's solver in body space, or the interior point as another solver's attempt. */
static lucid_status sparse_solve(void *ctx, const lucid_contact_options *o, double *dual,
                                 lucid_contact_result *res) {
    sparse_island *d = ctx;
    lucid_world_sparse *sp = d->w->d.sparse;
    switch (o->solver) {
        case LUCID_CONTACT_PGS:
            return lucid_contact_solve_pgs_sparse(d->p, o, sp->work, sp->lambda, res);
        case LUCID_CONTACT_NEWTON:
            if (o->model == LUCID_CONTACT_NCP)
                return lucid_contact_solve_alart_curnier_sparse(d->p, o, sp->ws, sp->lambda, res);
            return lucid_contact_solve_newton_sparse(d->p, o, sp->ws, sp->lambda, res);
        case LUCID_CONTACT_IP: /* as another solver's attempt, small islands in contact space */
            if (d->w->opt.contact.solver != LUCID_CONTACT_IP &&
                d->p->n <= LUCID_WORLD_SPARSE_IP_CROSSOVER)
                return ip_attempt(d->w, d->p, o, res);
            return lucid_contact_solve_ip_sparse(d->p, o, sp->ws, sp->lambda, dual, res);
        default:
            return lucid_contact_solve_admm_sparse(d->p, o, sp->ws, sp->lambda, dual, res);
    }
}

/* u and sigma of sp->lambda in sp->work (u: the slots' columns, then sigma: 3n). */
static double *sparse_sigma(const sparse_island *d) {
    return d->w->d.sparse->work + lucid_sparse_columns(d->p);
}

static int sparse_judge(void *ctx, lucid_contact_result *res) {
    sparse_island *d = ctx;
    lucid_world_sparse *sp = d->w->d.sparse;
    double *sigma = sparse_sigma(d);
    lucid_contact_sparse_velocity(d->p, sp->lambda, sp->work, sigma);
    lucid_contact_problem form = {d->p->n, NULL, d->p->g, d->p->mu, d->p->R, d->p->dim};
    return lucid_world_judge(&form, d->w->opt.contact.model, sp->lambda, sigma, res);
}

static double sparse_round_off(void *ctx) {
    sparse_island *d = ctx;
    double *sigma = sparse_sigma(d);
    return round_off(d->p, d->w->d.sparse->lambda, sigma, d->w->d.sparse->work,
                     sigma + lucid_sparse_rows(d->p));
}

/* The trace of G + R over its size, from the pieces. */
static double sparse_mean_diagonal(void *ctx) {
    const lucid_contact_sparse_problem *p = ((sparse_island *)ctx)->p;
    double sum = 0.0;
    int rows = (int)lucid_sparse_rows(p);
    for (int k = 0; k < rows; ++k) sum += row_diagonal(p, k) + (p->R ? p->R[k] : 0.0);
    return sum / (double)rows;
}

/* v_free += dt u of each slot: a free body's twist (centre of mass, angular), a model tree's
 * generalised velocities (lucid_world_models_add_velocity; a constrained tree's Z u'); a
 * limit's tangential columns and a friction row's normal column carry no body. */
static void apply_velocities(lucid_world *w, int slots, const double *u) {
    lucid_world_sparse *sp = w->d.sparse;
    for (int b = 0; b < slots; ++b) {
        const double *ub = u + sp->dof[b];
        int owner = sp->owner[b];
        if (owner >= 0) {
            w->d.v_free[owner] =
                lucid_vec3_axpy(w->d.v_free[owner], w->opt.dt, lucid_vec3_load(ub));
            w->d.w_free[owner] =
                lucid_vec3_axpy(w->d.w_free[owner], w->opt.dt, lucid_vec3_load(ub + 3));
        } else if (owner <= -2 && reduced(sp, b)) {
            size_t full = sp->full[b], width = sp->dof[b + 1] - sp->dof[b];
            const double *Z = sp->basis + sp->basis_at[b];
            for (size_t i = 0; i < full; ++i) {
                double v = 0.0;
                for (size_t c = 0; c < width; ++c) v += Z[i + full * c] * ub[c];
                sp->scratch[i] = v;
            }
            lucid_world_models_add_velocity(w, -2 - owner, sp->tree[b], sp->scratch);
        } else if (owner <= -2) {
            lucid_world_models_add_velocity(w, -2 - owner, sp->tree[b], ub);
        }
    }
}

lucid_status lucid_world_solve_island_sparse(lucid_world *w, const int *list, int m,
                                             const lucid_vec3 *v0, const lucid_vec3 *w0) {
    int dim = lucid_world_island_dim(w, list, m);
    lucid_status s = reserve(w, (size_t)m, dim);
    int slots = 0;
    if (s == LUCID_OK) s = assemble(w, list, m, v0, w0, &slots);
    if (s != LUCID_OK) return s;
    lucid_world_sparse *sp = w->d.sparse;
    lucid_contact_sparse_problem p = {m,           slots,       sp->body, sp->J, sp->W,
                                      sp->g,       sp->mu,      NULL,     sp->M, sp->dof,
                                      sp->side_at, sp->mass_at, sp->span, dim};
    size_t rows = lucid_sparse_rows(&p);
    lucid_contact_null_rows_dim(m, dim, row_diagonal, &p, sp->R, sp->mu);
    p.R = lucid_world_problem_R(sp->R, (long)rows);
    double f, v, diag = 0.0;
    for (int i = 0; i < m; ++i) diag = fmax(diag, normal_diagonal(&p, i));
    lucid_world_island_scales(p.g, rows, diag, &f, &v);
    rescale(sp, m, f, v);
    lucid_contact_result res;
    sparse_island d = {w, &p};
    lucid_world_island island = {.n = m,
                                 .n3 = rows,
                                 .ip_first = 1,
                                 .lambda = sp->lambda,
                                 .dual = sp->dual,
                                 .spare = sp->best,
                                 .ctx = &d,
                                 .solve = sparse_solve,
                                 .judge = sparse_judge,
                                 .round_off = sparse_round_off,
                                 .mean_diagonal = sparse_mean_diagonal,
                                 .info = lucid_world_current_island(w)};
    lucid_contact_options o = lucid_world_island_options(w, list, m);
    s = lucid_world_island_solve(&o, &island, lucid_world_warm_rho(w, &o, list, m, f, v), &res);
    rescale(sp, m, 1.0 / f, 1.0 / v);
    if (s != LUCID_OK) return s;
    sp->last = p, sp->last_list = list;
    /* u = M^-1 J^T lambda of the kept answer (world units); v+ = v_free + dt u */
    double *u = sp->work, *sigma = sp->work + lucid_sparse_columns(&p);
    lucid_contact_sparse_velocity(&p, sp->lambda, u, sigma);
    lucid_contact_problem form = {p.n, NULL, p.g, p.mu, p.R, dim};
    lucid_world_island_record(w, &o, list, m, &res, f, v, &form, sp->lambda, sigma);
    for (int i = 0; i < m; ++i) {
        size_t at = (size_t)dim * (size_t)i;
        lucid_world_keep_contact_forces(w, list[i], dim, sp->lambda + at, sp->dual + at);
    }
    apply_velocities(w, slots, u);
    return LUCID_OK;
}

void lucid_world_last_sparse_problem(const lucid_world *w, lucid_contact_sparse_problem *p,
                                     const int **side_bodies, const int **contacts) {
    int ok = w->d.num_contacts > 0 && w->d.num_islands > 0 && w->d.last_sparse && w->d.sparse;
    if (ok) {
        *p = w->d.sparse->last;
        if (p->M && w->opt.contact.solver == LUCID_CONTACT_PGS) p->M = NULL; /* not filled */
    } else {
        memset(p, 0, sizeof *p);
    }
    /* the sides of the island's contacts, in order: w->d.sides is per world contact */
    if (side_bodies) *side_bodies = ok ? w->d.sparse->side_body : NULL;
    if (contacts) *contacts = ok ? w->d.sparse->last_list : NULL;
}

lucid_status lucid_world_last_problem_dense(lucid_world *w, lucid_contact_problem *p,
                                            const int **contacts) {
    lucid_world_last_problem(w, p, contacts);
    lucid_contact_sparse_problem sp;
    const int *list = NULL;
    lucid_world_last_sparse_problem(w, &sp, NULL, &list);
    if (sp.n == 0) return LUCID_OK;
    size_t n3 = lucid_sparse_rows(&sp);
    lucid_status s = sp.n > LUCID_WORLD_MAX_ISLAND_CONTACTS ? LUCID_ERR_NO_MEMORY
                                                            : LUCID_RESERVE(w, d.G, n3 * n3);
    if (s != LUCID_OK) return s;
    lucid_contact_sparse_delassus(&sp, w->d.G);
    *p = (lucid_contact_problem){sp.n, w->d.G, sp.g, sp.mu, sp.R, lucid_sparse_dim(&sp)};
    if (contacts) *contacts = list;
    return LUCID_OK;
}
