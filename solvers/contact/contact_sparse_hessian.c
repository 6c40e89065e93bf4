/* H = M + J^T diag(w) J on the body graph, AMD-ordered, factorised by LDL (SuiteSparse).
 *
 * Layout: block column b (slot b, w_b columns: 6 for a free body, nv for a robot) lists the
 * slots of its non-zero row blocks, b first; scalar column begin(b) + l holds first the rows
 * of its diagonal block that may be non-zero, then, block after block, the w_c rows of each
 * other row block c (full symmetric storage: LDL reads the upper triangle of P H P^T from
 * it). AMD orders the slots (each block stays together: a slot's unknowns are eliminated
 * consecutively, last column first).
 * A robot's diagonal block keeps the tree's sparsity: M~ is non-zero only between a dof and
 * its ancestors, and J_s^T D J_s couples the ancestors of one link (again ancestor pairs), so
 * its pattern is that of M~ (plus the pairs of two links in contact with each other). Dofs are
 * numbered parents first, so eliminating the last column first (leaves first) makes no fill:
 * the LTDL's sparsity, as Featherstone's factorisation of M. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <suitesparse/amd.h>
#include <suitesparse/ldl.h>

#include "solvers/contact/contact_sparse_hessian.h"

typedef SuiteSparse_long idx;

struct lucid_contact_hessian {
    idx nb, n, nv, nnz;   /* slots, contacts, unknowns (the columns), entries of H */
    idx *inc_start, *inc; /* nb + 1, 2n: the sides on each slot */
    idx *col_start, *col; /* nb + 1, nb + 2n: row blocks of each block column */
    idx *pos;             /* 2n: in column body[s], the first row of the other side's block */
    idx *mark;            /* nb */
    idx *pe, *iw, *len, *nvv, *next, *last, *head, *elen, *degree, *wk; /* AMD */
    idx *Ap, *Ai, *P, *Pinv, *Lp, *Parent, *Lnz, *Flag, *Pattern, *Li;
    idx *nz;                      /* 2 w_max: the non-zero columns of two blocks (scratch) */
    idx *diag;                    /* per slot, w x w at mass_at(b): the position in Ax of each
                                   * entry of its diagonal block, -1 where it stays zero */
    idx *dcount;                  /* nv: rows of each column's diagonal block */
    double *Ax, *Lx, *D, *Y, *DJ; /* DJ: 4 w_max of scratch */
    double *Ax_mass, *Ax_jtj;     /* factor_uniform's parts of Ax: M and J^T J */
    int parts_ready;              /* those parts are of the analysed problem */
    size_t cap[36];
};

enum {
    B_INC_START,
    B_INC,
    B_COL_START,
    B_COL,
    B_POS,
    B_MARK,
    B_PE,
    B_IW,
    B_LEN,
    B_NV,
    B_NEXT,
    B_LAST,
    B_HEAD,
    B_ELEN,
    B_DEGREE,
    B_W,
    B_AP,
    B_AI,
    B_P,
    B_PINV,
    B_LP,
    B_PARENT,
    B_LNZ,
    B_FLAG,
    B_PATTERN,
    B_LI,
    B_NZ,
    B_DIAG,
    B_DCOUNT,
    B_AX,
    B_LX,
    B_D,
    B_Y,
    B_DJ,
    B_AX_MASS,
    B_AX_JTJ,
    B_COUNT
};

static void **slot(lucid_contact_hessian *h, int k) {
    void **table[B_COUNT] = {
        (void **)&h->inc_start, (void **)&h->inc,    (void **)&h->col_start, (void **)&h->col,
        (void **)&h->pos,       (void **)&h->mark,   (void **)&h->pe,        (void **)&h->iw,
        (void **)&h->len,       (void **)&h->nvv,    (void **)&h->next,      (void **)&h->last,
        (void **)&h->head,      (void **)&h->elen,   (void **)&h->degree,    (void **)&h->wk,
        (void **)&h->Ap,        (void **)&h->Ai,     (void **)&h->P,         (void **)&h->Pinv,
        (void **)&h->Lp,        (void **)&h->Parent, (void **)&h->Lnz,       (void **)&h->Flag,
        (void **)&h->Pattern,   (void **)&h->Li,     (void **)&h->nz,        (void **)&h->diag,
        (void **)&h->dcount,    (void **)&h->Ax,     (void **)&h->Lx,        (void **)&h->D,
        (void **)&h->Y,         (void **)&h->DJ,     (void **)&h->Ax_mass,   (void **)&h->Ax_jtj};
    return table[k];
}

/* Makes room for n elements of buffer k (grow only, doubling). */
static lucid_status grow(lucid_contact_hessian *h, int k, size_t n) {
    size_t size = k >= B_AX ? sizeof(double) : sizeof(idx);
    if (n <= h->cap[k]) return LUCID_OK;
    size_t c = h->cap[k] > 0 ? h->cap[k] : 16;
    while (c < n) {
        if (c > SIZE_MAX / 2) return LUCID_ERR_NO_MEMORY;
        c *= 2;
    }
    if (c > (size_t)PTRDIFF_MAX / size) return LUCID_ERR_NO_MEMORY;
    void **buf = slot(h, k), *p = realloc(*buf, c * size);
    if (!p) return LUCID_ERR_NO_MEMORY;
    *buf = p, h->cap[k] = c;
    return LUCID_OK;
}

lucid_contact_hessian *lucid_contact_hessian_create(void) {
    return calloc(1, sizeof(lucid_contact_hessian));
}

void lucid_contact_hessian_destroy(lucid_contact_hessian *h) {
    if (!h) return;
    for (int k = 0; k < B_COUNT; ++k) free(*slot(h, k));
    free(h);
}

/* a * b + c in size_t, SIZE_MAX on overflow */
static size_t mul_add(size_t a, size_t b, size_t c) {
    if (b != 0 && a > (SIZE_MAX - c) / b) return SIZE_MAX;
    return a * b + c;
}

/* The block graph: sides per slot, the row blocks of each column, and for each side the
 * first row (the widths of the blocks before it) of the other side's block in its column. */
static void block_graph(lucid_contact_hessian *h, const lucid_contact_sparse_problem *p) {
    idx nb = h->nb, n = h->n;
    memset(h->inc_start, 0, sizeof(idx) * (size_t)(nb + 1));
    for (idx s = 0; s < 2 * n; ++s)
        if (p->body[s] >= 0) ++h->inc_start[p->body[s] + 1];
    for (idx b = 0; b < nb; ++b) h->inc_start[b + 1] += h->inc_start[b];
    for (idx b = 0; b < nb; ++b) h->mark[b] = h->inc_start[b]; /* fill pointers */
    for (idx s = 0; s < 2 * n; ++s)
        if (p->body[s] >= 0) h->inc[h->mark[p->body[s]]++] = s;
    for (idx b = 0; b < nb; ++b) h->mark[b] = -1;
    idx at = 0;
    for (idx b = 0; b < nb; ++b) {
        h->col_start[b] = at;
        idx rows = (idx)lucid_sparse_width(p, (int)b);
        h->col[at++] = b, h->mark[b] = b;
        for (idx k = h->inc_start[b]; k < h->inc_start[b + 1]; ++k) {
            idx s = h->inc[k], other = p->body[s ^ 1];
            if (other < 0) {
                h->pos[s] = -1;
                continue;
            }
            if (h->mark[other] != b) { /* first time in this column: nvv holds its first row */
                h->mark[other] = b, h->nvv[other] = rows;
                rows += (idx)lucid_sparse_width(p, (int)other);
                h->col[at++] = other;
            }
            h->pos[s] = other == b ? 0 : h->nvv[other];
        }
    }
    h->col_start[nb] = at;
}

/* AMD on the slot graph (no diagonal): P of the scalar unknowns, slot by slot. */
static void order(lucid_contact_hessian *h, const lucid_contact_sparse_problem *p) {
    idx nb = h->nb, pfree = 0;
    for (idx b = 0; b < nb; ++b) {
        h->pe[b] = pfree;
        for (idx k = h->col_start[b] + 1; k < h->col_start[b + 1]; ++k)
            if (h->col[k] != b) h->iw[pfree++] = h->col[k];
        h->len[b] = pfree - h->pe[b];
    }
    idx iwlen = (idx)h->cap[B_IW];
    double control[AMD_CONTROL], info[AMD_INFO];
    amd_l_defaults(control);
    amd_l2(nb, h->pe, h->iw, h->len, iwlen, pfree, h->nvv, h->next, h->last, h->head, h->elen,
           h->degree, h->wk, control, info);
    idx at = 0;
    for (idx k = 0; k < nb; ++k) {
        idx first = (idx)lucid_sparse_begin(p, (int)h->last[k]);
        idx width = (idx)lucid_sparse_width(p, (int)h->last[k]);
        for (idx c = width; c-- > 0;) h->P[at++] = first + c; /* leaves first */
    }
    for (idx k = 0; k < h->nv; ++k) h->Pinv[h->P[k]] = k;
}

/* The columns of a row-major dim x w block with a non-zero entry, into nz; returns their
 * count. A robot's contact rows are zero on the dofs that do not move the contact point (other
 * branches of the tree): skipping them makes J^T D J cost depth^2 instead of nv^2. */
static idx nonzero_columns(const double *J, int dim, idx w, idx *nz) {
    idx k = 0;
    for (idx c = 0; c < w; ++c) {
        int any = 0;
        for (int d = 0; d < dim && !any; ++d) any = J[d * w + c] != 0.0;
        if (any) nz[k++] = c;
    }
    return k;
}

/* Marks in slot b's diagonal pattern (1: may be non-zero) the pairs of the non-zero columns of
 * J_a (rows) and J_c (columns), both on slot b, and the transposed pairs. */
static void mark_pairs(lucid_contact_hessian *h, const lucid_contact_sparse_problem *p, idx b,
                       const double *Ja, const double *Jc) {
    idx w = (idx)lucid_sparse_width(p, (int)b), *pm = h->diag + lucid_sparse_mass_at(p, (int)b);
    idx *na = h->nz, *nc = h->nz + w;
    int dim = lucid_sparse_dim(p);
    idx ka = nonzero_columns(Ja, dim, w, na), kc = nonzero_columns(Jc, dim, w, nc);
    for (idx u = 0; u < ka; ++u)
        for (idx t = 0; t < kc; ++t) pm[na[u] * w + nc[t]] = pm[nc[t] * w + na[u]] = 1;
}

/* The pattern of each slot's diagonal block: M's non-zeros, the diagonal, the pairs of each
 * side's non-zero columns and of the two sides of a contact within one slot. */
static void diagonal_pattern(lucid_contact_hessian *h, const lucid_contact_sparse_problem *p) {
    for (idx b = 0; b < h->nb; ++b) {
        idx w = (idx)lucid_sparse_width(p, (int)b), *pm = h->diag + lucid_sparse_mass_at(p, (int)b);
        const double *M = p->M + lucid_sparse_mass_at(p, (int)b);
        for (idx k = 0; k < w * w; ++k) pm[k] = M[k] != 0.0 || k % (w + 1) == 0;
    }
    for (idx s = 0; s < 2 * h->n; ++s) {
        idx b = p->body[s];
        if (b < 0) continue;
        const double *Js = p->J + lucid_sparse_side_at(p, (int)s);
        mark_pairs(h, p, b, Js, Js);
        if (p->body[s ^ 1] == b)
            mark_pairs(h, p, b, Js, p->J + lucid_sparse_side_at(p, (int)(s ^ 1)));
    }
}

/* The entries of H (per column: its diagonal block's rows, then the other row blocks' widths)
 * into dcount, in size_t; SIZE_MAX on overflow. */
static size_t count_entries(lucid_contact_hessian *h, const lucid_contact_sparse_problem *p) {
    size_t entries = 0;
    for (idx b = 0; b < h->nb; ++b) {
        idx w = (idx)lucid_sparse_width(p, (int)b), first = (idx)lucid_sparse_begin(p, (int)b);
        const idx *pm = h->diag + lucid_sparse_mass_at(p, (int)b);
        size_t rows = 0;
        for (idx k = h->col_start[b] + 1; k < h->col_start[b + 1]; ++k) {
            size_t wc = lucid_sparse_width(p, (int)h->col[k]);
            if (rows > SIZE_MAX - wc) return SIZE_MAX;
            rows += wc;
        }
        for (idx l = 0; l < w; ++l) {
            idx d = 0;
            for (idx r = 0; r < w; ++r) d += pm[r * w + l];
            h->dcount[first + l] = d;
            entries = mul_add(1, rows + (size_t)d, entries);
            if (entries == SIZE_MAX) return SIZE_MAX;
        }
    }
    return entries;
}

lucid_status lucid_contact_hessian_analyze(lucid_contact_hessian *h,
                                           const lucid_contact_sparse_problem *p) {
    if (!h || !p || p->n < 0 || p->num_bodies < 0 || (p->n > 0 && !p->M)) return LUCID_ERR_ARGUMENT;
    size_t nb = (size_t)p->num_bodies, n = (size_t)p->n;
    size_t sides = mul_add(2, n, 0), blocks = mul_add(2, n, nb);
    size_t nv = lucid_sparse_columns(p);
    /* AMD's workspace: the graph (<= 2n entries) plus elbow room, as amd_order sizes it */
    size_t iw = mul_add(sides, 1, mul_add(sides / 5, 1, mul_add(7, nb, 16)));
    if (blocks == SIZE_MAX || iw == SIZE_MAX || nv >= (size_t)INT64_MAX / 2)
        return LUCID_ERR_NO_MEMORY;
    size_t want[B_COUNT] = {[B_INC_START] = nb + 1,
                            [B_INC] = sides,
                            [B_COL_START] = nb + 1,
                            [B_COL] = blocks,
                            [B_POS] = sides + 1,
                            [B_MARK] = nb,
                            [B_PE] = nb,
                            [B_IW] = iw,
                            [B_LEN] = nb,
                            [B_NV] = nb,
                            [B_NEXT] = nb,
                            [B_LAST] = nb,
                            [B_HEAD] = nb,
                            [B_ELEN] = nb,
                            [B_DEGREE] = nb,
                            [B_W] = nb,
                            [B_AP] = nv + 1,
                            [B_P] = nv,
                            [B_PINV] = nv,
                            [B_LP] = nv + 1,
                            [B_PARENT] = nv,
                            [B_LNZ] = nv,
                            [B_FLAG] = nv,
                            [B_PATTERN] = nv,
                            [B_DCOUNT] = nv,
                            [B_D] = nv,
                            [B_Y] = nv};
    for (int k = 0; k < B_COUNT; ++k) {
        if (k == B_AI || k == B_AX || k == B_LI || k == B_LX || k == B_NZ || k == B_DJ ||
            k == B_DIAG || k == B_AX_MASS || k == B_AX_JTJ)
            continue;
        lucid_status s = grow(h, k, want[k] > 0 ? want[k] : 1);
        if (s != LUCID_OK) return s;
    }
    h->nb = (idx)nb, h->n = (idx)n, h->nv = (idx)nv;
    h->parts_ready = 0;
    size_t widest = 0, diag = 0; /* the widest slot, the end of the diagonal blocks' maps */
    for (int b = 0; b < p->num_bodies; ++b) {
        size_t w = lucid_sparse_width(p, b);
        if (w > widest) widest = w;
        if (w > 0 && w > SIZE_MAX / w) return LUCID_ERR_NO_MEMORY;
        diag = mul_add(1, lucid_sparse_mass_at(p, b), w * w) > diag
                   ? mul_add(1, lucid_sparse_mass_at(p, b), w * w)
                   : diag;
    }
    if (diag == SIZE_MAX) return LUCID_ERR_NO_MEMORY;
    lucid_status s = grow(h, B_NZ, widest > 0 ? 2 * widest : 1);
    /* D J_b: dim x widest, dim <= 6 */
    if (s == LUCID_OK) s = grow(h, B_DJ, widest > 0 ? 6 * widest : 1);
    if (s == LUCID_OK) s = grow(h, B_DIAG, diag > 0 ? diag : 1);
    if (s != LUCID_OK) return s;
    block_graph(h, p);
    diagonal_pattern(h, p);
    size_t entries = count_entries(h, p);
    if (entries == SIZE_MAX || entries > (size_t)INT64_MAX / 2) return LUCID_ERR_NO_MEMORY;
    s = grow(h, B_AI, entries > 0 ? entries : 1);
    if (s == LUCID_OK) s = grow(h, B_AX, entries > 0 ? entries : 1);
    if (s != LUCID_OK) return s;
    /* scalar pattern: column begin(b) + l has its diagonal block's rows (their positions kept
     * in diag), then the rows of each other row block of column b */
    idx at = 0;
    for (idx b = 0; b < h->nb; ++b) {
        idx first = (idx)lucid_sparse_begin(p, (int)b), width = (idx)lucid_sparse_width(p, (int)b);
        idx *pm = h->diag + lucid_sparse_mass_at(p, (int)b);
        for (idx l = 0; l < width; ++l) {
            h->Ap[first + l] = at;
            for (idx r = 0; r < width; ++r) {
                if (!pm[r * width + l]) continue;
                h->Ai[at] = first + r;
                pm[r * width + l] = at++ + 1; /* positions + 1 until the sweep below */
            }
            for (idx k = h->col_start[b] + 1; k < h->col_start[b + 1]; ++k) {
                idx c = h->col[k], cfirst = (idx)lucid_sparse_begin(p, (int)c);
                idx cwidth = (idx)lucid_sparse_width(p, (int)c);
                for (idx r = 0; r < cwidth; ++r) h->Ai[at++] = cfirst + r;
            }
        }
        for (idx k = 0; k < width * width; ++k) pm[k] -= 1; /* -1: not in the pattern */
    }
    h->Ap[h->nv] = at, h->nnz = at;
    if (h->nb > 0) order(h, p);
    ldl_l_symbolic(h->nv, h->Ap, h->Ai, h->Lp, h->Parent, h->Lnz, h->Flag, h->P, h->Pinv);
    size_t fill = (size_t)h->Lp[h->nv];
    s = grow(h, B_LI, fill > 0 ? fill : 1);
    if (s == LUCID_OK) s = grow(h, B_LX, fill > 0 ? fill : 1);
    return s;
}

/* H += J_a^T D J_b (J row-major dim x w, D row-major dim x dim) in column block b, over the
 * non-zero columns of each: into b's diagonal block when `row` < 0 (J_a on slot b too), else
 * into the row block of J_a's slot whose first row, after the diagonal block's, is `row`. */
static void add_weighted(lucid_contact_hessian *h, const lucid_contact_sparse_problem *p, idx b,
                         idx row, const double *Ja, idx wa, const double *D, const double *Jb) {
    idx first = (idx)lucid_sparse_begin(p, (int)b), wb = (idx)lucid_sparse_width(p, (int)b);
    const idx *pm = h->diag + lucid_sparse_mass_at(p, (int)b);
    idx *nzb = h->nz, *nza = h->nz + wb; /* wb + wa <= 2 w_max */
    int dim = lucid_sparse_dim(p);
    idx kb = nonzero_columns(Jb, dim, wb, nzb);
    idx ka = Ja == Jb ? kb : nonzero_columns(Ja, dim, wa, nza);
    if (Ja == Jb) nza = nzb;
    double *DJ = h->DJ; /* D J_b on its non-zero columns: dim x kb */
    for (int a = 0; a < dim; ++a)
        for (idx t = 0; t < kb; ++t) {
            idx l = nzb[t];
            const double *Da = D + dim * a;
            double v = Da[0] * Jb[l] + Da[1] * Jb[wb + l] + Da[2] * Jb[2 * wb + l];
            for (int e = 3; e < dim; ++e) v += Da[e] * Jb[e * wb + l];
            DJ[a * kb + t] = v;
        }
    for (idx t = 0; t < kb; ++t) {
        idx l = nzb[t];
        double dj[6] = {DJ[t], DJ[kb + t], DJ[2 * kb + t], 0, 0, 0};
        for (int e = 3; e < dim; ++e) dj[e] = DJ[e * kb + t];
        double *base = h->Ax + h->Ap[first + l] + h->dcount[first + l] + row;
        for (idx u = 0; u < ka; ++u) {
            idx r = nza[u];
            double v = Ja[r] * dj[0] + Ja[wa + r] * dj[1] + Ja[2 * wa + r] * dj[2];
            for (int e = 3; e < dim; ++e) v += Ja[e * wa + r] * dj[e];
            if (row < 0)
                h->Ax[pm[r * wb + l]] += v;
            else
                base[r] += v;
        }
    }
}

/* Ax's diagonal block of slot b += its mass block (row-major, symmetric), over the block's
 * pattern (the first dcount entries of each of its columns) */
static void add_mass(lucid_contact_hessian *h, const lucid_contact_sparse_problem *p, idx b) {
    idx first = (idx)lucid_sparse_begin(p, (int)b), width = (idx)lucid_sparse_width(p, (int)b);
    const double *M = p->M + lucid_sparse_mass_at(p, (int)b);
    for (idx l = 0; l < width; ++l)
        for (idx k = h->Ap[first + l]; k < h->Ap[first + l] + h->dcount[first + l]; ++k)
            h->Ax[k] += M[width * (h->Ai[k] - first) + l];
}

/* Ax += sum over contacts i of J_i^T D_i J_i (D_i = D + dim^2 i, or D itself for every
 * contact when `shared`) */
static void add_contacts(lucid_contact_hessian *h, const lucid_contact_sparse_problem *p,
                         const double *D, int shared) {
    idx dd = (idx)lucid_sparse_dim(p) * lucid_sparse_dim(p);
    for (idx i = 0; i < h->n; ++i) {
        const double *wi = shared ? D : D + dd * i;
        for (idx s = 2 * i; s < 2 * i + 2; ++s) {
            idx b = p->body[s];
            if (b < 0) continue;
            idx w = (idx)lucid_sparse_width(p, (int)b);
            const double *Js = p->J + lucid_sparse_side_at(p, (int)s);
            add_weighted(h, p, b, -1, Js, w, wi, Js);
            if (h->pos[s] >= 0) /* the other side's slot (b itself: its diagonal block) */
                add_weighted(h, p, b, p->body[s ^ 1] == b ? -1 : h->pos[s] - w,
                             p->J + lucid_sparse_side_at(p, (int)(s ^ 1)),
                             (idx)lucid_sparse_width(p, (int)p->body[s ^ 1]), wi, Js);
        }
    }
}

/* P Ax P^T = L D L^T */
static lucid_status numeric(lucid_contact_hessian *h) {
    if (h->nv == 0) return LUCID_OK;
    idx done = ldl_l_numeric(h->nv, h->Ap, h->Ai, h->Ax, h->Lp, h->Parent, h->Lnz, h->Li, h->Lx,
                             h->D, h->Y, h->Pattern, h->Flag, h->P, h->Pinv);
    if (done != h->nv) return LUCID_ERR_NOT_SPD;
    for (idx k = 0; k < h->nv; ++k)
        if (!(h->D[k] > 0.0) || !isfinite(h->D[k])) return LUCID_ERR_NOT_SPD;
    return LUCID_OK;
}

lucid_status lucid_contact_hessian_factor(lucid_contact_hessian *h,
                                          const lucid_contact_sparse_problem *p, const double *D) {
    memset(h->Ax, 0, sizeof(double) * (size_t)h->nnz);
    for (idx b = 0; b < h->nb; ++b) add_mass(h, p, b);
    add_contacts(h, p, D, 0);
    return numeric(h);
}

lucid_status lucid_contact_hessian_factor_uniform(lucid_contact_hessian *h,
                                                  const lucid_contact_sparse_problem *p, double w) {
    size_t nnz = (size_t)h->nnz;
    if (!h->parts_ready) {
        int dim = lucid_sparse_dim(p);
        double identity[36] = {0}; /* dim x dim */
        for (int a = 0; a < dim; ++a) identity[(dim + 1) * a] = 1.0;
        lucid_status s = grow(h, B_AX_MASS, nnz > 0 ? nnz : 1);
        if (s == LUCID_OK) s = grow(h, B_AX_JTJ, nnz > 0 ? nnz : 1);
        if (s != LUCID_OK) return s;
        memset(h->Ax, 0, sizeof(double) * nnz);
        for (idx b = 0; b < h->nb; ++b) add_mass(h, p, b);
        memcpy(h->Ax_mass, h->Ax, sizeof(double) * nnz);
        memset(h->Ax, 0, sizeof(double) * nnz);
        add_contacts(h, p, identity, 1);
        memcpy(h->Ax_jtj, h->Ax, sizeof(double) * nnz);
        h->parts_ready = 1;
    }
    for (size_t k = 0; k < nnz; ++k) h->Ax[k] = h->Ax_mass[k] + w * h->Ax_jtj[k];
    return numeric(h);
}

void lucid_contact_hessian_solve(lucid_contact_hessian *h, double *x) {
    if (h->nv == 0) return;
    ldl_l_perm(h->nv, h->Y, x, h->P);
    ldl_l_lsolve(h->nv, h->Y, h->Lp, h->Li, h->Lx);
    ldl_l_dsolve(h->nv, h->Y, h->D);
    ldl_l_ltsolve(h->nv, h->Y, h->Lp, h->Li, h->Lx);
    ldl_l_permt(h->nv, x, h->Y, h->P);
}
