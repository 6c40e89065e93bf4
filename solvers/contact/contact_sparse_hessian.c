/* H = M + J^T diag(w) J on the body graph, AMD-ordered, factorised by LDL (SuiteSparse).
 *
 * Layout: block column b (slot b, w_b columns: 6 for a free body, nv for a robot) lists the
 * slots of its non-zero row blocks, b first; scalar column begin(b) + l holds, block after
 * block, the w_c rows of each row block c (full symmetric storage: LDL reads the upper
 * triangle of P H P^T from it). AMD orders the slots (each block stays together: a slot's
 * unknowns are eliminated consecutively; a robot's block is dense, its tree sparsity is not
 * exploited inside H). */
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
    double *Ax, *Lx, *D, *Y, *DJ; /* DJ: 3 w_max of scratch */
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
    B_AX,
    B_LX,
    B_D,
    B_Y,
    B_DJ,
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
        (void **)&h->Pattern,   (void **)&h->Li,     (void **)&h->nz,        (void **)&h->Ax,
        (void **)&h->Lx,        (void **)&h->D,      (void **)&h->Y,         (void **)&h->DJ};
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

size_t lucid_contact_hessian_factor_size(const lucid_contact_hessian *h) {
    return h->nv > 0 ? (size_t)h->Lp[h->nv] : 0;
}

size_t lucid_contact_hessian_bytes(const lucid_contact_hessian *h) {
    size_t bytes = sizeof *h;
    for (int k = 0; k < B_COUNT; ++k)
        bytes += h->cap[k] * (k >= B_AX ? sizeof(double) : sizeof(idx));
    return bytes;
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
        for (idx c = 0; c < width; ++c) h->P[at++] = first + c;
    }
    for (idx k = 0; k < h->nv; ++k) h->Pinv[h->P[k]] = k;
}

/* The entries of H (sum over block columns of width x rows) and the widest slot, in size_t;
 * SIZE_MAX on overflow. */
static size_t count_entries(const lucid_contact_hessian *h, const lucid_contact_sparse_problem *p,
                            size_t *widest) {
    size_t entries = 0;
    *widest = 0;
    for (idx b = 0; b < h->nb; ++b) {
        size_t w = lucid_sparse_width(p, (int)b), rows = 0;
        if (w > *widest) *widest = w;
        for (idx k = h->col_start[b]; k < h->col_start[b + 1]; ++k) {
            size_t wc = lucid_sparse_width(p, (int)h->col[k]);
            if (rows > SIZE_MAX - wc) return SIZE_MAX;
            rows += wc;
        }
        entries = mul_add(w, rows, entries);
        if (entries == SIZE_MAX) return SIZE_MAX;
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
                            [B_D] = nv,
                            [B_Y] = nv};
    for (int k = 0; k < B_COUNT; ++k) {
        if (k == B_AI || k == B_AX || k == B_LI || k == B_LX || k == B_NZ || k == B_DJ) continue;
        lucid_status s = grow(h, k, want[k] > 0 ? want[k] : 1);
        if (s != LUCID_OK) return s;
    }
    h->nb = (idx)nb, h->n = (idx)n, h->nv = (idx)nv;
    block_graph(h, p);
    size_t widest, entries = count_entries(h, p, &widest);
    if (entries == SIZE_MAX || entries > (size_t)INT64_MAX / 2) return LUCID_ERR_NO_MEMORY;
    lucid_status s = grow(h, B_AI, entries > 0 ? entries : 1);
    if (s == LUCID_OK) s = grow(h, B_AX, entries > 0 ? entries : 1);
    if (s == LUCID_OK) s = grow(h, B_NZ, widest > 0 ? 2 * widest : 1);
    if (s == LUCID_OK) s = grow(h, B_DJ, widest > 0 ? 3 * widest : 1);
    if (s != LUCID_OK) return s;
    /* scalar pattern: column begin(b) + l has the rows of each row block of column b */
    idx at = 0;
    for (idx b = 0; b < h->nb; ++b) {
        idx first = (idx)lucid_sparse_begin(p, (int)b), width = (idx)lucid_sparse_width(p, (int)b);
        for (idx l = 0; l < width; ++l) {
            h->Ap[first + l] = at;
            for (idx k = h->col_start[b]; k < h->col_start[b + 1]; ++k) {
                idx c = h->col[k], cfirst = (idx)lucid_sparse_begin(p, (int)c);
                idx cwidth = (idx)lucid_sparse_width(p, (int)c);
                for (idx r = 0; r < cwidth; ++r) h->Ai[at++] = cfirst + r;
            }
        }
    }
    h->Ap[h->nv] = at, h->nnz = at;
    if (h->nb > 0) order(h, p);
    ldl_l_symbolic(h->nv, h->Ap, h->Ai, h->Lp, h->Parent, h->Lnz, h->Flag, h->P, h->Pinv);
    size_t fill = (size_t)h->Lp[h->nv];
    s = grow(h, B_LI, fill > 0 ? fill : 1);
    if (s == LUCID_OK) s = grow(h, B_LX, fill > 0 ? fill : 1);
    return s;
}

/* The columns of a row-major 3 x w block with a non-zero entry, into nz; returns their count.
 * A robot's contact rows are zero on the dofs that do not move the contact point (other
 * branches of the tree): skipping them makes J^T D J cost depth^2 instead of nv^2. */
static idx nonzero_columns(const double *J, idx w, idx *nz) {
    idx k = 0;
    for (idx c = 0; c < w; ++c)
        if (J[c] != 0.0 || J[w + c] != 0.0 || J[2 * w + c] != 0.0) nz[k++] = c;
    return k;
}

/* Ax block (the row block whose first row is `row` in column b, of slot a's rows) +=
 * J_a^T D J_b (J row-major 3 x w, D row-major 3 x 3), over the non-zero columns of each. */
static void add_weighted(lucid_contact_hessian *h, const lucid_contact_sparse_problem *p, idx b,
                         idx row, const double *Ja, idx wa, const double *D, const double *Jb) {
    idx first = (idx)lucid_sparse_begin(p, (int)b), wb = (idx)lucid_sparse_width(p, (int)b);
    idx *nzb = h->nz, *nza = h->nz + wb; /* wb + wa <= 2 w_max */
    idx kb = nonzero_columns(Jb, wb, nzb);
    idx ka = Ja == Jb ? kb : nonzero_columns(Ja, wa, nza);
    if (Ja == Jb) nza = nzb;
    double *DJ = h->DJ; /* D J_b on its non-zero columns: 3 x kb */
    for (int a = 0; a < 3; ++a)
        for (idx t = 0; t < kb; ++t) {
            idx l = nzb[t];
            DJ[a * kb + t] =
                D[3 * a] * Jb[l] + D[3 * a + 1] * Jb[wb + l] + D[3 * a + 2] * Jb[2 * wb + l];
        }
    for (idx t = 0; t < kb; ++t) {
        double *base = h->Ax + h->Ap[first + nzb[t]] + row, d0 = DJ[t], d1 = DJ[kb + t],
               d2 = DJ[2 * kb + t];
        for (idx u = 0; u < ka; ++u) {
            idx r = nza[u];
            base[r] += Ja[r] * d0 + Ja[wa + r] * d1 + Ja[2 * wa + r] * d2;
        }
    }
}

/* Ax's diagonal block of slot b += its mass block (row-major, symmetric) */
static void add_mass(lucid_contact_hessian *h, const lucid_contact_sparse_problem *p, idx b) {
    idx first = (idx)lucid_sparse_begin(p, (int)b), width = (idx)lucid_sparse_width(p, (int)b);
    const double *M = p->M + lucid_sparse_mass_at(p, (int)b);
    for (idx l = 0; l < width; ++l) {
        double *base = h->Ax + h->Ap[first + l];
        for (idx r = 0; r < width; ++r) base[r] += M[width * r + l];
    }
}

lucid_status lucid_contact_hessian_factor(lucid_contact_hessian *h,
                                          const lucid_contact_sparse_problem *p, const double *D) {
    memset(h->Ax, 0, sizeof(double) * (size_t)h->nnz);
    for (idx b = 0; b < h->nb; ++b) add_mass(h, p, b);
    for (idx i = 0; i < h->n; ++i) {
        const double *wi = D + 9 * i;
        for (idx s = 2 * i; s < 2 * i + 2; ++s) {
            idx b = p->body[s];
            if (b < 0) continue;
            idx w = (idx)lucid_sparse_width(p, (int)b);
            const double *Js = p->J + lucid_sparse_side_at(p, (int)s);
            add_weighted(h, p, b, 0, Js, w, wi, Js);
            if (h->pos[s] >= 0) /* row block: the other side's slot, column b */
                add_weighted(h, p, b, h->pos[s], p->J + lucid_sparse_side_at(p, (int)(s ^ 1)),
                             (idx)lucid_sparse_width(p, (int)p->body[s ^ 1]), wi, Js);
        }
    }
    if (h->nv == 0) return LUCID_OK;
    idx done = ldl_l_numeric(h->nv, h->Ap, h->Ai, h->Ax, h->Lp, h->Parent, h->Lnz, h->Li, h->Lx,
                             h->D, h->Y, h->Pattern, h->Flag, h->P, h->Pinv);
    if (done != h->nv) return LUCID_ERR_NOT_SPD;
    for (idx k = 0; k < h->nv; ++k)
        if (!(h->D[k] > 0.0) || !isfinite(h->D[k])) return LUCID_ERR_NOT_SPD;
    return LUCID_OK;
}

void lucid_contact_hessian_solve(lucid_contact_hessian *h, double *x) {
    if (h->nv == 0) return;
    ldl_l_perm(h->nv, h->Y, x, h->P);
    ldl_l_lsolve(h->nv, h->Y, h->Lp, h->Li, h->Lx);
    ldl_l_dsolve(h->nv, h->Y, h->D);
    ldl_l_ltsolve(h->nv, h->Y, h->Lp, h->Li, h->Lx);
    ldl_l_permt(h->nv, x, h->Y, h->P);
}
