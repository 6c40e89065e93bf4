/* H = M + J^T diag(w) J on the body graph, AMD-ordered, factorised by LDL (SuiteSparse).
 *
 * Layout: block column b (body slot b) lists the body slots of its non-zero row blocks, b
 * first; scalar column 6 b + l holds, block after block, the 6 rows of each (full symmetric
 * storage: LDL reads the upper triangle of P H P^T from it). AMD orders the bodies (each
 * 6 x 6 block stays together: a body's 6 unknowns are eliminated consecutively). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <suitesparse/amd.h>
#include <suitesparse/ldl.h>

#include "solvers/contact/contact_sparse_hessian.h"

typedef SuiteSparse_long idx;

struct lucid_contact_hessian {
    idx nb, n, nv, nnz;   /* body slots, contacts, unknowns (6 nb), entries of H */
    idx *inc_start, *inc; /* nb + 1, 2n: the sides on each body */
    idx *col_start, *col; /* nb + 1, nb + 2n: row blocks of each block column */
    idx *pos;             /* 2n: in column body[s], the position of the other side's body */
    idx *mark;            /* nb */
    idx *pe, *iw, *len, *nvv, *next, *last, *head, *elen, *degree, *wk; /* AMD */
    idx *Ap, *Ai, *P, *Pinv, *Lp, *Parent, *Lnz, *Flag, *Pattern, *Li;
    double *Ax, *Lx, *D, *Y;
    size_t cap[32];
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
    B_AX,
    B_LX,
    B_D,
    B_Y,
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
        (void **)&h->Pattern,   (void **)&h->Li,     (void **)&h->Ax,        (void **)&h->Lx,
        (void **)&h->D,         (void **)&h->Y};
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

/* The block graph: sides per body, the row blocks of each column, the positions of the
 * off-diagonal blocks of each contact. */
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
        h->col[at++] = b, h->mark[b] = b;
        for (idx k = h->inc_start[b]; k < h->inc_start[b + 1]; ++k) {
            idx s = h->inc[k], other = p->body[s ^ 1];
            if (other < 0) {
                h->pos[s] = -1;
                continue;
            }
            if (h->mark[other] != b) { /* first time in this column: nvv holds its position */
                h->mark[other] = b, h->nvv[other] = at - h->col_start[b];
                h->col[at++] = other;
            }
            h->pos[s] = other == b ? 0 : h->nvv[other];
        }
    }
    h->col_start[nb] = at;
}

/* AMD on the body graph (no diagonal): P of the scalar unknowns, body by body. */
static void order(lucid_contact_hessian *h) {
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
    for (idx k = 0; k < nb; ++k)
        for (idx c = 0; c < 6; ++c) h->P[6 * k + c] = 6 * h->last[k] + c;
    for (idx k = 0; k < h->nv; ++k) h->Pinv[h->P[k]] = k;
}

lucid_status lucid_contact_hessian_analyze(lucid_contact_hessian *h,
                                           const lucid_contact_sparse_problem *p) {
    if (!h || !p || p->n < 0 || p->num_bodies < 0 || (p->n > 0 && !p->M)) return LUCID_ERR_ARGUMENT;
    size_t nb = (size_t)p->num_bodies, n = (size_t)p->n;
    size_t sides = mul_add(2, n, 0), blocks = mul_add(2, n, nb);
    size_t nv = mul_add(6, nb, 0), entries = mul_add(36, blocks, 0);
    /* AMD's workspace: the graph (<= 2n entries) plus elbow room, as amd_order sizes it */
    size_t iw = mul_add(sides, 1, mul_add(sides / 5, 1, mul_add(7, nb, 16)));
    if (entries == SIZE_MAX || iw == SIZE_MAX || nv + 1 == 0 || entries > (size_t)INT64_MAX / 2)
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
                            [B_AI] = entries,
                            [B_P] = nv,
                            [B_PINV] = nv,
                            [B_LP] = nv + 1,
                            [B_PARENT] = nv,
                            [B_LNZ] = nv,
                            [B_FLAG] = nv,
                            [B_PATTERN] = nv,
                            [B_LI] = 0,
                            [B_AX] = entries,
                            [B_LX] = 0,
                            [B_D] = nv,
                            [B_Y] = nv};
    for (int k = 0; k < B_COUNT; ++k) {
        lucid_status s = grow(h, k, want[k] > 0 ? want[k] : 1);
        if (s != LUCID_OK) return s;
    }
    h->nb = (idx)nb, h->n = (idx)n, h->nv = (idx)nv;
    block_graph(h, p);
    /* scalar pattern: column 6 b + l has the 6 rows of each row block of column b */
    idx at = 0;
    for (idx b = 0; b < h->nb; ++b) {
        idx count = h->col_start[b + 1] - h->col_start[b];
        for (idx l = 0; l < 6; ++l) {
            h->Ap[6 * b + l] = at;
            for (idx k = 0; k < count; ++k)
                for (idx r = 0; r < 6; ++r) h->Ai[at++] = 6 * h->col[h->col_start[b] + k] + r;
        }
    }
    h->Ap[h->nv] = at, h->nnz = at;
    if (h->nb > 0) order(h);
    ldl_l_symbolic(h->nv, h->Ap, h->Ai, h->Lp, h->Parent, h->Lnz, h->Flag, h->P, h->Pinv);
    size_t fill = (size_t)h->Lp[h->nv];
    lucid_status s = grow(h, B_LI, fill > 0 ? fill : 1);
    if (s == LUCID_OK) s = grow(h, B_LX, fill > 0 ? fill : 1);
    return s;
}

/* Ax block (row block at position j of column b) += B (6 x 6, B[6 r + l]: row r, column l) */
static void add_block(lucid_contact_hessian *h, idx b, idx j, const double *B) {
    idx count = h->col_start[b + 1] - h->col_start[b];
    double *base = h->Ax + 36 * h->col_start[b] + 6 * j;
    for (idx l = 0; l < 6; ++l)
        for (idx r = 0; r < 6; ++r) base[6 * count * l + r] += B[6 * r + l];
}

/* B = J_a^T D J_b (J row-major 3 x 6, D row-major 3 x 3) */
static void weighted_product(const double *Ja, const double *D, const double *Jb, double *B) {
    double DJ[18]; /* D J_b */
    for (int a = 0; a < 3; ++a)
        for (int l = 0; l < 6; ++l)
            DJ[6 * a + l] = D[3 * a] * Jb[l] + D[3 * a + 1] * Jb[6 + l] + D[3 * a + 2] * Jb[12 + l];
    for (int r = 0; r < 6; ++r)
        for (int l = 0; l < 6; ++l)
            B[6 * r + l] = Ja[r] * DJ[l] + Ja[6 + r] * DJ[6 + l] + Ja[12 + r] * DJ[12 + l];
}

lucid_status lucid_contact_hessian_factor(lucid_contact_hessian *h,
                                          const lucid_contact_sparse_problem *p, const double *D) {
    memset(h->Ax, 0, sizeof(double) * (size_t)h->nnz);
    for (idx b = 0; b < h->nb; ++b) add_block(h, b, 0, p->M + 36 * b);
    double B[36];
    for (idx i = 0; i < h->n; ++i) {
        const double *wi = D + 9 * i;
        for (idx s = 2 * i; s < 2 * i + 2; ++s) {
            idx b = p->body[s];
            if (b < 0) continue;
            const double *Js = p->J + 18 * s;
            weighted_product(Js, wi, Js, B);
            add_block(h, b, 0, B);
            if (h->pos[s] >= 0) { /* row block: the other side's body, column b */
                weighted_product(p->J + 18 * (s ^ 1), wi, Js, B);
                add_block(h, b, h->pos[s], B);
            }
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
