/* K = [M -J^T; J B] of a body-space problem, sparse, factorised by KLU (contact_sparse_kkt.h).
 *
 * Unknowns: the slots' columns (u, lucid_sparse_columns of them), then d per contact (z; d =
 * lucid_sparse_dim: 3, 4 with the spin row, 6 with the rolling rows too). Slot column begin(b) + l
 * holds the w rows of b's mass block, then for each side s on b whose J block may be non-zero in
 * column l, the d rows of its contact (both sides of a contact on one slot share those rows).
 * Contact column d i + c holds, for each side's slot, the rows of its J span (both sides on one
 * slot: the slot's w rows, once), then the d rows of the contact itself (B). Values are rewritten
 * by every factorisation: the positions are recomputed in the same order as the pattern was built,
 * so no map is stored. */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <suitesparse/klu.h>

#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_sparse_kkt.h"

typedef SuiteSparse_long idx;

#define RGROWTH_FLOOR 1e-6
#define RCOND_FLOOR   1e-12

struct lucid_contact_kkt {
    idx n, d, nv, size, nnz; /* contacts, rows per contact, slot columns, nv + d n, entries */
    idx *inc_start, *inc;    /* nb + 1, 2n: the sides on each slot */
    idx *Ap, *Ai;            /* size + 1, nnz */
    idx *old_p, *old_i;      /* the pattern KLU analysed (size + 1, nnz of it) */
    idx old_size, old_nnz;
    double *Ax, *rhs; /* nnz, size */
    size_t cap_inc_start, cap_inc, cap_Ap, cap_Ai, cap_Ax, cap_rhs, cap_old_p, cap_old_i;
    klu_l_common klu;
    double partial_tol;       /* KLU's own diagonal preference (partial pivoting) */
    klu_l_symbolic *symbolic; /* of the current pattern, or NULL */
    klu_l_numeric *numeric;   /* the last factor, or NULL */
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

lucid_contact_kkt *lucid_contact_kkt_create(void) {
    lucid_contact_kkt *k = calloc(1, sizeof *k);
    if (k) klu_l_defaults(&k->klu), k->partial_tol = k->klu.tol;
    return k;
}

static void free_klu(lucid_contact_kkt *k) {
    if (k->numeric) klu_l_free_numeric(&k->numeric, &k->klu);
    if (k->symbolic) klu_l_free_symbolic(&k->symbolic, &k->klu);
}

void lucid_contact_kkt_destroy(lucid_contact_kkt *k) {
    if (!k) return;
    free_klu(k);
    void *buffers[] = {k->inc_start, k->inc, k->Ap, k->Ai, k->Ax, k->rhs, k->old_p, k->old_i};
    for (size_t j = 0; j < sizeof buffers / sizeof buffers[0]; ++j) free(buffers[j]);
    free(k);
}

/* The sides on each slot (inc_start, inc); Ap serves as the fill pointers (nb <= size). */
static void sides_by_slot(lucid_contact_kkt *k, const lucid_contact_sparse_problem *p) {
    idx nb = p->num_bodies;
    memset(k->inc_start, 0, sizeof(idx) * (size_t)(nb + 1));
    for (idx t = 0; t < 2 * k->n; ++t)
        if (p->body[t] >= 0) ++k->inc_start[p->body[t] + 1];
    for (idx b = 0; b < nb; ++b) k->inc_start[b + 1] += k->inc_start[b];
    for (idx b = 0; b < nb; ++b) k->Ap[b] = k->inc_start[b];
    for (idx t = 0; t < 2 * k->n; ++t)
        if (p->body[t] >= 0) k->inc[k->Ap[p->body[t]]++] = t;
}

/* Both sides of side s's contact are on one slot. */
static int shared_slot(const lucid_contact_sparse_problem *p, idx s) {
    return p->body[s ^ 1] == p->body[s];
}

/* The rows [*lo, *hi) of side s's slot that its contact's column holds. */
static void column_span(const lucid_contact_sparse_problem *p, idx s, size_t *lo, size_t *hi) {
    if (shared_slot(p, s)) {
        *lo = 0, *hi = lucid_sparse_width(p, (int)p->body[s]);
        return;
    }
    lucid_sparse_span(p, (int)s, 0, lo, hi);
}

/* A ray's tangential row or column (pinned): every row of the contact but its normal (2). */
static int pinned(const lucid_contact_sparse_problem *p, int pin_rays, idx i, idx a) {
    return pin_rays && a != 2 && p->mu[i] == 0.0;
}

/* One pass over K's entries in pattern order: with Ax == NULL the pattern (Ai, Ap) is written,
 * else the values. Returns the entries. */
static idx walk(lucid_contact_kkt *k, const lucid_contact_sparse_problem *p, const double *S,
                const double *B, int pin_rays, int values) {
    idx e = 0, d = k->d;
    for (idx b = 0; b < p->num_bodies; ++b) {
        idx first = (idx)lucid_sparse_begin(p, (int)b), w = (idx)lucid_sparse_width(p, (int)b);
        const double *M = p->M + lucid_sparse_mass_at(p, (int)b);
        for (idx l = 0; l < w; ++l) {
            if (!values) k->Ap[first + l] = e;
            for (idx r = 0; r < w; ++r, ++e) {
                if (values)
                    k->Ax[e] = M[r * w + l];
                else
                    k->Ai[e] = first + r;
            }
            for (idx q = k->inc_start[b]; q < k->inc_start[b + 1]; ++q) {
                idx s = k->inc[q], i = s / 2;
                size_t lo, hi;
                column_span(p, s, &lo, &hi);
                if ((size_t)l < lo || (size_t)l >= hi) continue;
                if (shared_slot(p, s) && (s & 1)) continue; /* its rows came with side s ^ 1 */
                double col[LUCID_CONE_MAX_DIM]; /* column l of the contact's J on slot b */
                for (idx a = 0; values && a < d; ++a) {
                    col[a] = 0.0;
                    for (idx t = 2 * i; t < 2 * i + 2; ++t)
                        if (p->body[t] == b)
                            col[a] += p->J[lucid_sparse_side_at(p, (int)t) + (size_t)(a * w + l)];
                }
                for (idx a = 0; a < d; ++a, ++e) {
                    if (!values) {
                        k->Ai[e] = k->nv + d * i + a;
                        continue;
                    }
                    double v = S ? 0.0 : col[a]; /* (S J)[a][l] */
                    for (idx c = 0; S && c < d; ++c) v += S[d * d * i + d * a + c] * col[c];
                    k->Ax[e] = pinned(p, pin_rays, i, a) ? 0.0 : v;
                }
            }
        }
    }
    for (idx i = 0; i < k->n; ++i)
        for (idx c = 0; c < d; ++c) {
            if (!values) k->Ap[k->nv + d * i + c] = e;
            for (idx s = 2 * i; s < 2 * i + 2; ++s) {
                idx b = p->body[s];
                if (b < 0 || (shared_slot(p, s) && (s & 1))) continue;
                idx first = (idx)lucid_sparse_begin(p, (int)b),
                    w = (idx)lucid_sparse_width(p, (int)b);
                size_t lo, hi;
                column_span(p, s, &lo, &hi);
                for (size_t r = lo; r < hi; ++r, ++e) {
                    if (!values) {
                        k->Ai[e] = first + (idx)r;
                        continue;
                    }
                    double v = 0.0; /* -J^T: -(J_s + J_other on the same slot)[c][r] */
                    for (idx t = 2 * i; t < 2 * i + 2; ++t)
                        if (p->body[t] == b)
                            v -= p->J[lucid_sparse_side_at(p, (int)t) + (size_t)c * (size_t)w + r];
                    k->Ax[e] = pinned(p, pin_rays, i, c) ? 0.0 : v;
                }
            }
            for (idx a = 0; a < d; ++a, ++e) {
                if (!values) {
                    k->Ai[e] = k->nv + d * i + a;
                    continue;
                }
                int pin = pinned(p, pin_rays, i, a) || pinned(p, pin_rays, i, c);
                k->Ax[e] = pin ? (a == c ? 1.0 : 0.0) : B[d * d * i + d * a + c];
            }
        }
    if (!values) k->Ap[k->size] = e;
    return e;
}

/* Entries of K (the walk's count, in size_t); SIZE_MAX on overflow. */
static size_t count_entries(const lucid_contact_kkt *k, const lucid_contact_sparse_problem *p) {
    size_t e = 0, d = (size_t)k->d;
    for (int b = 0; b < p->num_bodies; ++b) {
        size_t w = lucid_sparse_width(p, b);
        if (w > 0 && w > (SIZE_MAX - e) / w) return SIZE_MAX;
        e += w * w;
    }
    for (idx s = 0; s < 2 * k->n; ++s) {
        if (p->body[s] < 0 || (shared_slot(p, s) && (s & 1))) continue;
        size_t lo, hi;
        column_span(p, s, &lo, &hi);
        if (hi - lo > (SIZE_MAX - e) / (2 * d)) return SIZE_MAX;
        e += 2 * d * (hi - lo); /* d rows in each of its columns, its rows in d columns */
    }
    if ((size_t)k->n > (SIZE_MAX - e) / (d * d)) return SIZE_MAX;
    return e + d * d * (size_t)k->n;
}

/* K's pattern is the one KLU analysed last (a resting island's, step after step): the
 * analysis and the factor's pivots are kept, and nothing is allocated. */
static int same_pattern(const lucid_contact_kkt *k) {
    return k->symbolic && k->size == k->old_size && k->nnz == k->old_nnz &&
           !memcmp(k->Ap, k->old_p, sizeof(idx) * (size_t)(k->size + 1)) &&
           !memcmp(k->Ai, k->old_i, sizeof(idx) * (size_t)k->nnz);
}

lucid_status lucid_contact_kkt_analyze(lucid_contact_kkt *k,
                                       const lucid_contact_sparse_problem *p) {
    if (!k || !p || p->n < 0 || p->num_bodies < 0 || (p->n > 0 && !p->M)) return LUCID_ERR_ARGUMENT;
    size_t n = (size_t)p->n, nb = (size_t)p->num_bodies, nv = lucid_sparse_columns(p);
    size_t d = (size_t)lucid_sparse_dim(p);
    if (n > SIZE_MAX / 8 || nb > SIZE_MAX / 2 || nv > (size_t)INT64_MAX / 4 ||
        d * n > (size_t)INT64_MAX / 4 - nv)
        return LUCID_ERR_NO_MEMORY;
    k->n = (idx)n, k->d = (idx)d, k->nv = (idx)nv, k->size = (idx)(nv + d * n);
    size_t size = (size_t)k->size;
    lucid_status st = grow((void **)&k->inc_start, &k->cap_inc_start, nb + 1, sizeof(idx));
    if (st == LUCID_OK) st = grow((void **)&k->inc, &k->cap_inc, 2 * n, sizeof(idx));
    if (st == LUCID_OK)
        st = grow((void **)&k->Ap, &k->cap_Ap, (size > nb ? size : nb) + 1, sizeof(idx));
    if (st == LUCID_OK) st = grow((void **)&k->rhs, &k->cap_rhs, size, sizeof(double));
    if (st != LUCID_OK) return st;
    sides_by_slot(k, p);
    size_t nnz = count_entries(k, p);
    if (nnz == SIZE_MAX || nnz > (size_t)INT64_MAX / 2) return LUCID_ERR_NO_MEMORY;
    st = grow((void **)&k->Ai, &k->cap_Ai, nnz, sizeof(idx));
    if (st == LUCID_OK) st = grow((void **)&k->Ax, &k->cap_Ax, nnz, sizeof(double));
    if (st != LUCID_OK) return st;
    k->nnz = walk(k, p, NULL, NULL, 0, 0);
    if (k->size == 0) return LUCID_OK;
    if (same_pattern(k)) return LUCID_OK; /* KLU's analysis and the last factor still apply */
    free_klu(k);
    st = grow((void **)&k->old_p, &k->cap_old_p, size + 1, sizeof(idx));
    if (st == LUCID_OK) st = grow((void **)&k->old_i, &k->cap_old_i, nnz, sizeof(idx));
    if (st != LUCID_OK) return st;
    k->symbolic = klu_l_analyze(k->size, k->Ap, k->Ai, &k->klu);
    if (!k->symbolic)
        return k->klu.status == KLU_OUT_OF_MEMORY ? LUCID_ERR_NO_MEMORY : LUCID_ERR_INTERNAL;
    memcpy(k->old_p, k->Ap, sizeof(idx) * (size + 1));
    memcpy(k->old_i, k->Ai, sizeof(idx) * nnz);
    k->old_size = k->size, k->old_nnz = k->nnz;
    return LUCID_OK;
}

static lucid_status fresh_factor(lucid_contact_kkt *k);

/* The factor of K (values written) with the last factor's pivots: 1 when kept (refactorised,
 * pivot growth checked unless the caller verifies its solves, rcond above its floor). */
static int refactor(lucid_contact_kkt *k, int growth) {
    if (!k->numeric) return 0;
    if (klu_l_refactor(k->Ap, k->Ai, k->Ax, k->symbolic, k->numeric, &k->klu) &&
        (!growth || (klu_l_rgrowth(k->Ap, k->Ai, k->Ax, k->symbolic, k->numeric, &k->klu) &&
                     k->klu.rgrowth >= RGROWTH_FLOOR)) &&
        klu_l_rcond(k->symbolic, k->numeric, &k->klu) && k->klu.rcond >= RCOND_FLOOR)
        return 1;
    klu_l_free_numeric(&k->numeric, &k->klu);
    return 0;
}

lucid_status lucid_contact_kkt_factor(lucid_contact_kkt *k, const lucid_contact_sparse_problem *p,
                                      const double *B, int pin_rays) {
    if (k->size == 0) return LUCID_OK;
    walk(k, p, NULL, B, pin_rays, 1);
    k->klu.tol = k->partial_tol;
    if (refactor(k, 1)) return LUCID_OK;
    return fresh_factor(k);
}

lucid_status lucid_contact_kkt_factor_rows(lucid_contact_kkt *k,
                                           const lucid_contact_sparse_problem *p, const double *S,
                                           const double *B, int fresh, int *kept) {
    *kept = 0;
    if (k->size == 0) return LUCID_OK;
    walk(k, p, S, B, 0, 1);
    k->klu.tol = DBL_EPSILON;
    if (fresh && k->numeric) klu_l_free_numeric(&k->numeric, &k->klu);
    if (!fresh && refactor(k, 0)) {
        *kept = 1;
        return LUCID_OK;
    }
    return fresh_factor(k);
}

/* A fresh factor of K, pivots searched under klu.tol's diagonal preference. */
static lucid_status fresh_factor(lucid_contact_kkt *k) {
    k->numeric = klu_l_factor(k->Ap, k->Ai, k->Ax, k->symbolic, &k->klu);
    if (!k->numeric)
        return k->klu.status == KLU_OUT_OF_MEMORY ? LUCID_ERR_NO_MEMORY : LUCID_ERR_NOT_SPD;
    if (!klu_l_rcond(k->symbolic, k->numeric, &k->klu) || !(k->klu.rcond > 0.0)) {
        klu_l_free_numeric(&k->numeric, &k->klu);
        return LUCID_ERR_NOT_SPD;
    }
    return LUCID_OK;
}

void lucid_contact_kkt_solve(lucid_contact_kkt *k, double *x) {
    if (k->size == 0) return;
    memset(k->rhs, 0, sizeof(double) * (size_t)k->nv);
    memcpy(k->rhs + k->nv, x, sizeof(double) * (size_t)(k->d * k->n));
    klu_l_solve(k->symbolic, k->numeric, k->size, 1, k->rhs, &k->klu);
    memcpy(x, k->rhs + k->nv, sizeof(double) * (size_t)(k->d * k->n));
}
