/* S = J M^-1 J^T + B in contact space, sparse, factorised by KLU (contact_sparse_schur.h).
 *
 * Layout: contact j's block column lists its neighbours (the contacts sharing a slot with it,
 * j included) in nbr[nbr_start[j] ..]; scalar column 3 j + c holds 3 rows per neighbour, in
 * that order, so that entry (3 i + a, 3 j + c) sits at Ap[3 j + c] + 3 k + a with k the
 * position of i in j's list. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <suitesparse/klu.h>

#include "solvers/contact/contact_sparse_schur.h"

typedef SuiteSparse_long idx;

/* Smallest KLU rcond (min |u_kk| / max |u_kk|) the kept pivots may give before a fresh
 * factorisation with partial pivoting. */
#define RCOND_FLOOR 1e-12

struct lucid_contact_schur {
    idx n, nnz;
    idx *inc_start, *inc; /* nb + 1, 2n: the sides on each slot */
    idx *nbr_start, *nbr; /* n + 1, the neighbours of each contact */
    idx *mark;            /* n: the position of each contact in the current column's list */
    idx *Ap, *Ai;         /* 3n + 1, nnz */
    double *Ax;           /* nnz */
    size_t cap_inc_start, cap_inc, cap_nbr_start, cap_nbr, cap_mark, cap_Ap, cap_Ai, cap_Ax;
    klu_l_common klu;
    klu_l_symbolic *symbolic; /* of the current pattern, or NULL */
    klu_l_numeric *numeric;   /* of symbolic, or NULL */
};

/* Makes room for n elements of `size` bytes in *buf (grow only, doubling). */
static lucid_status grow(void **buf, size_t *cap, size_t n, size_t size) {
    if (n == 0) n = 1;
    if (n <= *cap) return LUCID_OK;
    size_t c = *cap > 0 ? *cap : 16;
    while (c < n) {
        if (c > SIZE_MAX / 2) return LUCID_ERR_NO_MEMORY;
        c *= 2;
    }
    if (c > (size_t)PTRDIFF_MAX / size) return LUCID_ERR_NO_MEMORY;
    void *p = realloc(*buf, c * size);
    if (!p) return LUCID_ERR_NO_MEMORY;
    *buf = p, *cap = c;
    return LUCID_OK;
}

lucid_contact_schur *lucid_contact_schur_create(void) {
    lucid_contact_schur *s = calloc(1, sizeof *s);
    if (s) klu_l_defaults(&s->klu);
    return s;
}

static void free_klu(lucid_contact_schur *s) {
    if (s->numeric) klu_l_free_numeric(&s->numeric, &s->klu);
    if (s->symbolic) klu_l_free_symbolic(&s->symbolic, &s->klu);
}

void lucid_contact_schur_destroy(lucid_contact_schur *s) {
    if (!s) return;
    free_klu(s);
    void *buffers[] = {s->inc_start, s->inc, s->nbr_start, s->nbr, s->mark, s->Ap, s->Ai, s->Ax};
    for (size_t k = 0; k < sizeof buffers / sizeof buffers[0]; ++k) free(buffers[k]);
    free(s);
}

size_t lucid_contact_schur_entries(const lucid_contact_schur *s) {
    return (size_t)s->nnz;
}

size_t lucid_contact_schur_bytes(const lucid_contact_schur *s) {
    return sizeof *s +
           (s->cap_inc_start + s->cap_inc + s->cap_nbr_start + s->cap_nbr + s->cap_mark +
            s->cap_Ap + s->cap_Ai) *
               sizeof(idx) +
           s->cap_Ax * sizeof(double);
}

/* The sides on each slot (inc_start, inc). */
static void sides_by_slot(lucid_contact_schur *s, const lucid_contact_sparse_problem *p) {
    idx nb = p->num_bodies;
    memset(s->inc_start, 0, sizeof(idx) * (size_t)(nb + 1));
    for (idx t = 0; t < 2 * s->n; ++t)
        if (p->body[t] >= 0) ++s->inc_start[p->body[t] + 1];
    for (idx b = 0; b < nb; ++b) s->inc_start[b + 1] += s->inc_start[b];
    for (idx b = 0; b < nb; ++b) s->mark[b] = s->inc_start[b]; /* fill pointers (mark: nb) */
    for (idx t = 0; t < 2 * s->n; ++t)
        if (p->body[t] >= 0) s->inc[s->mark[p->body[t]]++] = t;
}

/* Calls visit(i) once for each neighbour i of contact j (j first), marking them in mark. */
static idx neighbours(lucid_contact_schur *s, const lucid_contact_sparse_problem *p, idx j,
                      idx *out) {
    idx k = 0;
    out[k++] = j, s->mark[j] = j;
    for (idx t = 2 * j; t < 2 * j + 2; ++t) {
        if (p->body[t] < 0) continue;
        idx b = p->body[t];
        for (idx q = s->inc_start[b]; q < s->inc_start[b + 1]; ++q) {
            idx i = s->inc[q] / 2;
            if (s->mark[i] != j) s->mark[i] = j, out[k++] = i;
        }
    }
    return k;
}

lucid_status lucid_contact_schur_analyze(lucid_contact_schur *s,
                                         const lucid_contact_sparse_problem *p) {
    if (!s || !p || p->n < 0 || p->num_bodies < 0) return LUCID_ERR_ARGUMENT;
    free_klu(s); /* KLU's analysis was of the previous pattern */
    size_t n = (size_t)p->n, nb = (size_t)p->num_bodies;
    if (n > SIZE_MAX / 8 || nb > SIZE_MAX / 2 || n > (size_t)INT64_MAX / 8)
        return LUCID_ERR_NO_MEMORY;
    s->n = (idx)n;
    size_t marks = n > nb ? n : nb;
    lucid_status st = grow((void **)&s->inc_start, &s->cap_inc_start, nb + 1, sizeof(idx));
    if (st == LUCID_OK) st = grow((void **)&s->inc, &s->cap_inc, 2 * n, sizeof(idx));
    if (st == LUCID_OK) st = grow((void **)&s->mark, &s->cap_mark, marks, sizeof(idx));
    if (st == LUCID_OK) st = grow((void **)&s->nbr_start, &s->cap_nbr_start, n + 1, sizeof(idx));
    if (st == LUCID_OK) st = grow((void **)&s->Ap, &s->cap_Ap, 3 * n + 1, sizeof(idx));
    if (st != LUCID_OK) return st;
    sides_by_slot(s, p);
    /* the neighbour lists: counted first (at most sum over slots of their sides^2) */
    size_t total = 0;
    for (size_t b = 0; b < nb; ++b) {
        size_t k = (size_t)(s->inc_start[b + 1] - s->inc_start[b]);
        if (k > 0 && k > (SIZE_MAX - total) / k) return LUCID_ERR_NO_MEMORY;
        total += k * k;
    }
    if (total > SIZE_MAX - n) return LUCID_ERR_NO_MEMORY;
    st = grow((void **)&s->nbr, &s->cap_nbr, total + n, sizeof(idx));
    if (st != LUCID_OK) return st;
    for (size_t i = 0; i < n; ++i) s->mark[i] = -1;
    idx at = 0;
    for (idx j = 0; j < s->n; ++j) {
        s->nbr_start[j] = at;
        at += neighbours(s, p, j, s->nbr + at);
    }
    s->nbr_start[s->n] = at;
    if ((size_t)at > SIZE_MAX / 9 || (size_t)at > (size_t)INT64_MAX / 9) return LUCID_ERR_NO_MEMORY;
    size_t nnz = 9 * (size_t)at;
    st = grow((void **)&s->Ai, &s->cap_Ai, nnz, sizeof(idx));
    if (st == LUCID_OK) st = grow((void **)&s->Ax, &s->cap_Ax, nnz, sizeof(double));
    if (st != LUCID_OK) return st;
    idx e = 0;
    for (idx j = 0; j < s->n; ++j) {
        idx first = s->nbr_start[j], deg = s->nbr_start[j + 1] - first;
        for (idx c = 0; c < 3; ++c) {
            s->Ap[3 * j + c] = e;
            for (idx k = 0; k < deg; ++k)
                for (idx a = 0; a < 3; ++a) s->Ai[e++] = 3 * s->nbr[first + k] + a;
        }
    }
    s->Ap[3 * s->n] = e, s->nnz = e;
    if (s->n == 0) return LUCID_OK;
    s->symbolic = klu_l_analyze(3 * s->n, s->Ap, s->Ai, &s->klu);
    return s->symbolic ? LUCID_OK : LUCID_ERR_NO_MEMORY;
}

/* Column block j += J_s W_t^T for every side s of a neighbour sharing side t's slot, over the
 * columns where both may be non-zero. */
static void add_column(lucid_contact_schur *s, const lucid_contact_sparse_problem *p, idx j) {
    idx first = s->nbr_start[j], deg = s->nbr_start[j + 1] - first;
    for (idx k = 0; k < deg; ++k) s->mark[s->nbr[first + k]] = k;
    for (idx t = 2 * j; t < 2 * j + 2; ++t) {
        if (p->body[t] < 0) continue;
        idx b = p->body[t];
        size_t w = lucid_sparse_width(p, (int)b), wlo, whi;
        lucid_sparse_span(p, (int)t, 1, &wlo, &whi);
        const double *W = p->W + lucid_sparse_side_at(p, (int)t);
        for (idx q = s->inc_start[b]; q < s->inc_start[b + 1]; ++q) {
            idx side = s->inc[q], i = side / 2;
            size_t lo, hi;
            lucid_sparse_span(p, (int)side, 0, &lo, &hi);
            if (wlo > lo) lo = wlo;
            if (whi < hi) hi = whi;
            const double *J = p->J + lucid_sparse_side_at(p, (int)side);
            idx base = 3 * s->mark[i];
            for (idx c = 0; c < 3; ++c) {
                double *col = s->Ax + s->Ap[3 * j + c] + base;
                for (idx a = 0; a < 3; ++a) {
                    double v = 0.0;
                    for (size_t l = lo; l < hi; ++l)
                        v += J[(size_t)a * w + l] * W[(size_t)c * w + l];
                    col[a] += v;
                }
            }
        }
    }
}

/* The tangential rows and columns of contact i: those of the identity. */
static void pin_tangents(lucid_contact_schur *s, idx i) {
    for (idx q = s->nbr_start[i]; q < s->nbr_start[i + 1]; ++q) {
        idx j = s->nbr[q], k = 0;
        while (s->nbr[s->nbr_start[j] + k] != i) ++k; /* i's place in j's list */
        for (idx c = 0; c < 3; ++c)
            for (idx t = 0; t < 2; ++t) s->Ax[s->Ap[3 * j + c] + 3 * k + t] = 0.0; /* rows */
        for (idx t = 0; t < 2; ++t)
            for (idx a = 0; a < 3; ++a)
                s->Ax[s->Ap[3 * i + t] + 3 * (q - s->nbr_start[i]) + a] = 0.0;
    }
    for (idx t = 0; t < 2; ++t) s->Ax[s->Ap[3 * i + t] + t] = 1.0; /* i is first in its list */
}

lucid_status lucid_contact_schur_factor(lucid_contact_schur *s,
                                        const lucid_contact_sparse_problem *p, const double *B,
                                        int pin_rays) {
    if (s->n == 0) return LUCID_OK;
    memset(s->Ax, 0, sizeof(double) * (size_t)s->nnz);
    for (idx j = 0; j < s->n; ++j) {
        add_column(s, p, j);
        for (idx c = 0; c < 3; ++c) /* j is first in its list: rows 3 j .. 3 j + 2 */
            for (idx a = 0; a < 3; ++a) s->Ax[s->Ap[3 * j + c] + a] += B[9 * j + 3 * a + c];
    }
    for (idx i = 0; pin_rays && i < s->n; ++i)
        if (p->mu[i] == 0.0) pin_tangents(s, i);
    int fresh = !s->numeric;
    if (!fresh) { /* the pivots of the last factor, kept while they stay good */
        fresh = !klu_l_refactor(s->Ap, s->Ai, s->Ax, s->symbolic, s->numeric, &s->klu) ||
                !klu_l_rcond(s->symbolic, s->numeric, &s->klu) || !(s->klu.rcond >= RCOND_FLOOR);
        if (fresh) klu_l_free_numeric(&s->numeric, &s->klu);
    }
    if (fresh && !(s->numeric = klu_l_factor(s->Ap, s->Ai, s->Ax, s->symbolic, &s->klu)))
        return s->klu.status == KLU_OUT_OF_MEMORY ? LUCID_ERR_NO_MEMORY : LUCID_ERR_NOT_SPD;
    if (!klu_l_rcond(s->symbolic, s->numeric, &s->klu) || !(s->klu.rcond > 0.0)) {
        klu_l_free_numeric(&s->numeric, &s->klu);
        return LUCID_ERR_NOT_SPD;
    }
    return LUCID_OK;
}

void lucid_contact_schur_solve(lucid_contact_schur *s, double *x) {
    if (s->n == 0) return;
    klu_l_solve(s->symbolic, s->numeric, 3 * s->n, 1, x, &s->klu);
}
