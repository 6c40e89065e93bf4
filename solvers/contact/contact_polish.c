/* Active-set polishing (contact_polish.h): the mode guess, the Newton step on the guessed
 * modes' equations, the acceptance test. */
#include "solvers/contact/contact_polish.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_math.h"
#include "solvers/contact/contact_round_off.h"
#include "solvers/contact/contact_sliding_rows.h"
#include "solvers/dense/dense_kernels.h"

enum { BREAKING = 0, STICKING = 1, SLIDING = 2 };

struct lucid_contact_polisher {
    int capacity;                        /* rows (dim n) */
    int n, have_previous, have_failed;   /* the last guess's size, whether one is remembered */
    int looks;                           /* guesses made in this solve (lucid_contact_polish_due) */
    int failures;                        /* failed attempts in this solve */
    signed char *modes, *guess, *failed; /* the attempt's, the last call's and the failed guess */
    int *active;                         /* n: indices of the contacts not breaking */
    int *ipiv;                           /* m: the LU's row pivots, the COD's column pivots */
    double *K, *rhs;                     /* m^2, m (m: the rows, capacity) */
    double *copy;                        /* m^2: K before its LU, then its COD */
    double *scale;                       /* m: the rows' scales (assemble) */
    double *keep;                        /* m: the forces before a round of project */
    double *tau, *tauz, *perm;           /* m each: the COD's reflectors, a permuted vector */
    int dim;                             /* rows per contact of the problem being polished */
    int rank;                            /* rank < dim na: the last solve was the COD's */
};

lucid_contact_polisher *lucid_contact_polisher_create(int max_rows) {
    if (max_rows < 0) return NULL;
    int c = max_rows < LUCID_CONTACT_POLISH_MAX_ROWS ? max_rows : LUCID_CONTACT_POLISH_MAX_ROWS;
    lucid_contact_polisher *pl = calloc(1, sizeof *pl);
    if (!pl) return NULL;
    size_t m = (size_t)(c > 0 ? c : 1), n = (m + 2) / 3; /* contacts: at most m / 3 */
    pl->capacity = c;
    pl->modes = malloc(3 * n);
    pl->guess = pl->modes ? pl->modes + n : NULL;
    pl->failed = pl->modes ? pl->modes + 2 * n : NULL;
    pl->active = malloc(n * sizeof(int));
    pl->ipiv = malloc(m * sizeof(int));
    pl->K = malloc((2 * m * m + 6 * m) * sizeof(double));
    pl->rhs = pl->K ? pl->K + m * m : NULL;
    pl->copy = pl->K ? pl->rhs + m : NULL;
    pl->tau = pl->K ? pl->copy + m * m : NULL;
    pl->tauz = pl->K ? pl->tau + m : NULL;
    pl->perm = pl->K ? pl->tauz + m : NULL;
    pl->scale = pl->K ? pl->perm + m : NULL;
    pl->keep = pl->K ? pl->scale + m : NULL;
    if (!pl->modes || !pl->active || !pl->ipiv || !pl->K) {
        lucid_contact_polisher_destroy(pl);
        return NULL;
    }
    return pl;
}

void lucid_contact_polisher_destroy(lucid_contact_polisher *pl) {
    if (!pl) return;
    free(pl->modes), free(pl->active), free(pl->ipiv), free(pl->K);
    free(pl);
}

int lucid_contact_polisher_fits(const lucid_contact_polisher *pl, int n, int dim) {
    return pl && n > 0 && (dim == 3 || dim == 4 || dim == 6) && n <= pl->capacity / dim;
}

/* Whether an attempt may be made at the look-th guess of the solve: after f failed attempts
 * only from the 2^f-th, so failed attempts grow as log2 of the solve's checks (header). */
static int may_attempt(const lucid_contact_polisher *pl, int look) {
    return pl->failures < 30 && (1 << pl->failures) <= look; /* 2^30 looks: never */
}

int lucid_contact_polisher_trying(const lucid_contact_polisher *pl, int n, int dim) {
    return lucid_contact_polisher_fits(pl, n, dim) && may_attempt(pl, pl->looks + 1);
}

void lucid_contact_polisher_reset(lucid_contact_polisher *pl) {
    if (pl) pl->have_previous = pl->have_failed = pl->looks = pl->failures = 0;
}

/* F and V of lucid_contact_answer_scales, 1 where zero (they divide) */
static void scales(const lucid_contact_problem *p, const double *lambda, const double *sigma,
                   double *force, double *velocity) {
    double f, v;
    lucid_contact_answer_scales(p, lambda, sigma, &f, &v);
    *force = f > 0.0 ? f : 1.0, *velocity = v > 0.0 ? v : 1.0;
}

/* The larger side of each complementarity (header), normalised by F and V. */
static signed char guess_mode(lucid_contact_model model, int dim, double mu, const double *l,
                              const double *s, double F, double V) {
    double slip = lucid_cone_n_tangent_norm(dim, s);
    double gap = model == LUCID_CONTACT_CCP ? s[2] - mu * slip : s[2];
    if (!(l[2] > 0.0) || l[2] / F < gap / V) return BREAKING;
    double inside = mu * l[2] - lucid_cone_n_tangent_norm(dim, l);
    return inside / F > slip / V ? STICKING : SLIDING;
}

/* The modes of lambda guessed into pl->guess; 1 when they equal the previous call's guess
 * (or `settled`: the caller vouches for them) and are not the last failed attempt's, and then
 * an attempt is due on them (pl->modes). */
static int guess_due(lucid_contact_polisher *pl, const lucid_contact_problem *p,
                     lucid_contact_model model, const double *lambda, const double *sigma,
                     int settled) {
    int dim = lucid_contact_dim(p);
    if (!lucid_contact_polisher_fits(pl, p->n, dim) ||
        (model != LUCID_CONTACT_NCP && model != LUCID_CONTACT_CCP))
        return 0;
    ++pl->looks;
    int n = p->n, same = settled || (pl->have_previous && pl->n == n && pl->dim == dim);
    double F, V;
    scales(p, lambda, sigma, &F, &V);
    for (int i = 0; i < n; ++i) {
        signed char mode =
            guess_mode(model, dim, p->mu[i], lambda + dim * i, sigma + dim * i, F, V);
        same = same && (settled || mode == pl->guess[i]);
        pl->guess[i] = mode;
    }
    pl->n = n, pl->dim = dim, pl->have_previous = 1;
    if (!same || !may_attempt(pl, pl->looks) ||
        (pl->have_failed && memcmp(pl->guess, pl->failed, (size_t)n) == 0))
        return 0;
    memcpy(pl->modes, pl->guess, (size_t)n);
    return 1;
}

int lucid_contact_polish_due(lucid_contact_polisher *pl, const lucid_contact_problem *p,
                             lucid_contact_model model, const double *lambda, const double *sigma) {
    return guess_due(pl, p, model, lambda, sigma, 0);
}

int lucid_contact_polish_accepted_due(lucid_contact_polisher *pl, const lucid_contact_problem *p,
                                      lucid_contact_model model, const double *lambda,
                                      const double *sigma) {
    return guess_due(pl, p, model, lambda, sigma, 1);
}

/* Rows of one active contact of dim rows: residual f and the linearisation f + Fl dl + Fs ds
 * (Fl, Fs row-major dim x dim), as the derivatives' (contact_sliding_rows.h), with the sliding
 * direction u taken from lambda_T when sigma_T is round-off. */
static void contact_rows(lucid_contact_model model, int dim, signed char mode, double mu,
                         const double *l, const double *s, double V, double *f, double *Fl,
                         double *Fs) {
    memset(Fl, 0, 36 * sizeof(double)), memset(Fs, 0, 36 * sizeof(double));
    if (mode == STICKING) {
        for (int a = 0; a < dim; ++a) Fs[(dim + 1) * a] = 1.0, f[a] = s[a];
        return;
    }
    const int *TN = dim > 3 ? lucid_contact_tangential_rows : (const int[5]){0, 1};
    int k = dim - 1;
    double sT = lucid_cone_n_tangent_norm(dim, s), lT = lucid_cone_n_tangent_norm(dim, l),
           u[5] = {1.0, 0.0, 0.0, 0.0, 0.0};
    if (sT > 1e-12 * V)
        for (int c = 0; c < k; ++c) u[c] = s[TN[c]] / sT;
    else if (lT > 0.0)
        for (int c = 0; c < k; ++c) u[c] = -l[TN[c]] / lT;
    if (dim > 3)
        lucid_contact_sliding_rows_n(model, dim, mu, l, s, sT, u, Fl, Fs, f);
    else
        lucid_contact_sliding_rows(model, mu, l, s, sT, u, Fl, Fs, f);
}

/* K = Fl + Fs (G + R)_AA and rhs = -f for the q = dim na active rows, each row scaled to unit
 * max-norm (partial pivoting then compares like with like: forces and velocities). A sticking
 * contact's rows (Fs = I, Fl = 0) are (G + R)'s own. */
static void assemble(lucid_contact_polisher *pl, const lucid_contact_problem *p,
                     lucid_contact_model model, int na, const double *l, const double *s,
                     double V) {
    int d = pl->dim, q = d * na;
    for (int ki = 0; ki < na; ++ki) {
        int i = pl->active[ki];
        double f[6], Fl[36], Fs[36];
        contact_rows(model, d, pl->modes[i], p->mu[i], l + d * i, s + d * i, V, f, Fl, Fs);
        int sticking = pl->modes[i] == STICKING;
        for (int kj = 0; kj < na; ++kj) {
            int j = pl->active[kj];
            for (int b = 0; b < d; ++b) {
                double A[6];
                for (int c = 0; c < d; ++c) A[c] = lucid_contact_entry(p, d * i + c, d * j + b);
                double *col = pl->K + (size_t)q * (size_t)(d * kj + b) + d * ki;
                if (sticking) {
                    for (int a = 0; a < d; ++a) col[a] = A[a];
                    continue;
                }
                for (int a = 0; a < d; ++a) {
                    double v = Fs[d * a] * A[0];
                    for (int c = 1; c < d; ++c) v += Fs[d * a + c] * A[c];
                    col[a] = v + (i == j ? Fl[d * a + b] : 0.0);
                }
            }
        }
        for (int a = 0; a < d; ++a) pl->rhs[d * ki + a] = -f[a];
    }
    for (int r = 0; r < q; ++r) pl->scale[r] = 0.0;
    for (int c = 0; c < q; ++c) { /* column by column: contiguous */
        const double *col = pl->K + (size_t)q * (size_t)c;
        for (int r = 0; r < q; ++r) pl->scale[r] = lucid_contact_fmax(pl->scale[r], fabs(col[r]));
    }
    for (int r = 0; r < q; ++r) {
        pl->scale[r] = pl->scale[r] > 0.0 ? pl->scale[r] : 1.0;
        pl->rhs[r] /= pl->scale[r];
    }
    for (int c = 0; c < q; ++c) {
        double *col = pl->K + (size_t)q * (size_t)c;
        for (int r = 0; r < q; ++r) col[r] /= pl->scale[r];
    }
}

/* rhs = -f at (l, s) for the active rows, scaled as the last assemble scaled them. */
static void residual_rows(lucid_contact_polisher *pl, const lucid_contact_problem *p,
                          lucid_contact_model model, int na, const double *l, const double *s,
                          double V) {
    int d = pl->dim;
    for (int ki = 0; ki < na; ++ki) {
        int i = pl->active[ki];
        double f[6], Fl[36], Fs[36];
        contact_rows(model, d, pl->modes[i], p->mu[i], l + d * i, s + d * i, V, f, Fl, Fs);
        for (int a = 0; a < d; ++a) pl->rhs[d * ki + a] = -f[a] / pl->scale[d * ki + a];
    }
}

/* The Householder reflector I - tau v v^T (v = (1, x[1..len-1])) that maps x (len) onto
 * (beta, 0, ..., 0): x becomes (beta, v[1..]), tau returned (0: x is already there). */
static double reflector(double *x, int len) {
    double tail = 0.0;
    for (int i = 1; i < len; ++i) tail += x[i] * x[i];
    if (!(tail > 0.0)) return 0.0;
    double alpha = x[0], beta = -copysign(sqrt(alpha * alpha + tail), alpha);
    for (int i = 1; i < len; ++i) x[i] /= alpha - beta;
    x[0] = beta;
    return (beta - alpha) / beta;
}

/* y (len) <- (I - tau v v^T) y with v = (1, v[1..len-1]). */
static void reflect(const double *v, double tau, double *y, int len) {
    double d = y[0];
    for (int i = 1; i < len; ++i) d += v[i] * y[i];
    d *= tau;
    y[0] -= d;
    for (int i = 1; i < len; ++i) y[i] -= d * v[i];
}

/* The columns A[., j] (len rows, leading dimension lda), j < cols, each reflected as by
 * reflect: four at a time, each column's dot product in reflect's order (the same bits), so
 * that four independent sums run at once instead of one chain of dependent additions. */
static void reflect_columns(const double *v, double tau, double *A, size_t lda, int len, int cols) {
    int j = 0;
    for (; j + 4 <= cols; j += 4) {
        double *y0 = A + lda * (size_t)j, *y1 = y0 + lda, *y2 = y1 + lda, *y3 = y2 + lda;
        double d0 = y0[0], d1 = y1[0], d2 = y2[0], d3 = y3[0];
        for (int i = 1; i < len; ++i) {
            d0 += v[i] * y0[i], d1 += v[i] * y1[i];
            d2 += v[i] * y2[i], d3 += v[i] * y3[i];
        }
        d0 *= tau, d1 *= tau, d2 *= tau, d3 *= tau;
        y0[0] -= d0, y1[0] -= d1, y2[0] -= d2, y3[0] -= d3;
        for (int i = 1; i < len; ++i) {
            y0[i] -= d0 * v[i], y1[i] -= d1 * v[i];
            y2[i] -= d2 * v[i], y3[i] -= d3 * v[i];
        }
    }
    for (; j < cols; ++j) reflect(v, tau, A + lda * (size_t)j, len);
}

/* The index in [from, q) of the column of A (q x q) whose rows from..q-1 have the largest
 * squared norm (the first on a tie), *big that norm: four columns at a time, each summed in
 * row order. */
static int largest_column(const double *A, int q, int from, double *big) {
    int best = from;
    double top = -1.0;
    int j = from;
    for (; j + 4 <= q; j += 4) {
        const double *a0 = A + (size_t)q * (size_t)j, *a1 = a0 + q, *a2 = a1 + q, *a3 = a2 + q;
        double n[4] = {0.0, 0.0, 0.0, 0.0};
        for (int i = from; i < q; ++i) {
            n[0] += a0[i] * a0[i], n[1] += a1[i] * a1[i];
            n[2] += a2[i] * a2[i], n[3] += a3[i] * a3[i];
        }
        for (int k = 0; k < 4; ++k)
            if (n[k] > top) top = n[k], best = j + k;
    }
    for (; j < q; ++j) {
        double norm = 0.0;
        for (int i = from; i < q; ++i) norm += A[i + (size_t)q * j] * A[i + (size_t)q * j];
        if (norm > top) top = norm, best = j;
    }
    *big = top;
    return best;
}

/* rhs <- K^+ rhs, the minimum-norm solution, through solve_min_norm's decomposition: with
 * K P = Q [R1 R2; 0 0] and [R1 R2]^T = V [S; 0], x = P V [S^-T (Q^T rhs)_1..r; 0]. */
static void cod_apply(lucid_contact_polisher *pl, int q) {
    const double *QR = pl->copy, *VS = pl->K;
    double *b = pl->rhs, *y = pl->perm;
    int r = pl->rank;
    for (int k = 0; k < r; ++k) reflect(QR + k + (size_t)q * k, pl->tau[k], b + k, q - k);
    for (int i = 0; i < r; ++i) { /* S^T u = c: S^T is lower triangular */
        double u = b[i];
        for (int k = 0; k < i; ++k) u -= VS[k + (size_t)q * i] * y[k];
        y[i] = u / VS[i + (size_t)q * i];
    }
    for (int k = r; k < q; ++k) y[k] = 0.0;
    for (int i = r - 1; i >= 0; --i) reflect(VS + i + (size_t)q * i, pl->tauz[i], y + i, q - i);
    for (int k = 0; k < q; ++k) b[pl->ipiv[k]] = y[k];
}

/* rhs <- the minimum-norm solution of K x = rhs (K in pl->copy) by a complete orthogonal
 * decomposition: Householder QR with column pivoting (the largest remaining column first),
 * stopped at the first pivot below LUCID_CONTACT_POLISH_PIVOT of the first (the rank r), then
 * the QR of [R1 R2]^T (into pl->K) that makes the solution the minimum-norm one. Unblocked
 * and allocation-free: K has at most LUCID_CONTACT_POLISH_MAX_ROWS rows, where LAPACK's
 * blocked routines cost more in set-up than in flops. For hyperstatic contacts (a box's 4
 * corners sticking on the floor, a grasp) the equations fix the forces up to internal ones;
 * the minimum-norm step leaves the start's internal forces as they were (it is orthogonal to
 * K's null space), so the answer follows the solver's iterate continuously instead of an LU's
 * pick from round-off. 0 when the rank is 0. */
static int solve_min_norm(lucid_contact_polisher *pl, int q) {
    double *A = pl->copy, *W = pl->K, first = 0.0;
    int r = 0;
    for (int k = 0; k < q; ++k) pl->ipiv[k] = k;
    for (; r < q; ++r) {
        double big;
        int best = largest_column(A, q, r, &big);
        if (r == 0) first = sqrt(big);
        if (!(sqrt(big) > LUCID_CONTACT_POLISH_PIVOT * first)) break;
        if (best != r) {
            for (int i = 0; i < q; ++i) {
                double t = A[i + (size_t)q * r];
                A[i + (size_t)q * r] = A[i + (size_t)q * best], A[i + (size_t)q * best] = t;
            }
            int t = pl->ipiv[r];
            pl->ipiv[r] = pl->ipiv[best], pl->ipiv[best] = t;
        }
        double *v = A + r + (size_t)q * r;
        pl->tau[r] = reflector(v, q - r);
        reflect_columns(v, pl->tau[r], A + r + (size_t)q * (r + 1), (size_t)q, q - r, q - r - 1);
    }
    if (r == 0) return 0;
    for (int i = 0; i < r; ++i) /* W = [R1 R2]^T, q x r */
        for (int j = 0; j < q; ++j) W[j + (size_t)q * i] = j < i ? 0.0 : A[i + (size_t)q * j];
    for (int i = 0; i < r; ++i) {
        double *v = W + i + (size_t)q * i;
        pl->tauz[i] = reflector(v, q - i);
        reflect_columns(v, pl->tauz[i], W + i + (size_t)q * (i + 1), (size_t)q, q - i, r - i - 1);
    }
    pl->rank = r;
    cod_apply(pl, q);
    return 1;
}

/* rhs <- K^-1 rhs by LU; where K is singular to working precision (a pivot below
 * LUCID_CONTACT_POLISH_PIVOT of the largest: hyperstatic contacts) its minimum-norm solution
 * (solve_min_norm). 0 when neither exists. */
static int solve(lucid_contact_polisher *pl, int q) {
    pl->rank = q;
    memcpy(pl->copy, pl->K, sizeof(double) * (size_t)q * (size_t)q);
    int lu = lucid_dense_getrf(q, pl->K, q, pl->ipiv) == 0;
    double lo = INFINITY, hi = 0.0;
    for (int k = 0; lu && k < q; ++k) {
        double d = fabs(pl->K[k + (size_t)q * k]);
        lo = d < lo ? d : lo, hi = lucid_contact_fmax(hi, d);
    }
    if (!lu || !(lo > LUCID_CONTACT_POLISH_PIVOT * hi)) return solve_min_norm(pl, q);
    return lucid_dense_getrs(0, q, 1, pl->K, q, pl->ipiv, pl->rhs, q) == 0;
}

/* The minimum-norm Newton step fixes the velocities but not the internal forces, which may
 * leave a sticking force outside its cone (by ~the step, where the solver's iterate lay on the
 * cone's edge). Alternating projections (von Neumann's) between the cones and the modes'
 * solution set, whose orthogonal projection is the minimum-norm correction through the last
 * COD (K held, the rows linear in lambda but for the sliding ones' direction), approach a point
 * of both at a linear rate (the violation halves each round where two contacts share a load).
 * At most LUCID_CONTACT_POLISH_PROJECTIONS rounds, while each lowers the criterion; out, sigma
 * and *criteria are the best round's. */
static void project(lucid_contact_polisher *pl, const lucid_contact_problem *p,
                    lucid_contact_model model, double tol, int na, double *out, double *sigma,
                    lucid_contact_criteria *criteria) {
    lucid_contact_criterion kind = lucid_contact_model_criterion(model);
    int d = pl->dim;
    size_t bytes = sizeof(double) * (size_t)d * (size_t)p->n;
    for (int round = 0; round < LUCID_CONTACT_POLISH_PROJECTIONS; ++round) {
        memcpy(pl->keep, out, bytes);
        for (int ki = 0; ki < na; ++ki) {
            int i = pl->active[ki];
            if (d > 3)
                lucid_cone_n_project(d, p->mu[i], out + d * i, out + d * i);
            else
                lucid_cone_project(p->mu[i], out + 3 * i, out + 3 * i);
        }
        double F, V;
        lucid_contact_velocity(p, out, sigma);
        scales(p, out, sigma, &F, &V);
        residual_rows(pl, p, model, na, out, sigma, V);
        cod_apply(pl, d * na);
        for (int ki = 0; ki < na; ++ki)
            for (int a = 0; a < d; ++a) out[d * pl->active[ki] + a] += pl->rhs[d * ki + a];
        lucid_contact_velocity(p, out, sigma);
        lucid_contact_criteria before = *criteria;
        lucid_contact_criteria_eval(p, kind, out, sigma, NULL, criteria);
        if (criteria->abs <= LUCID_CONTACT_POLISH_EXACT * tol) break;
        if (!(criteria->abs < before.abs)) { /* back to the best round's */
            memcpy(out, pl->keep, bytes);
            lucid_contact_velocity(p, out, sigma);
            *criteria = before;
            break;
        }
    }
}

/* Newton on the modes' equations from out (modified in place; sigma its velocity, *criteria
 * its model criterion). At least one step, whatever the criterion says (it is blind to first
 * order in a sliding friction direction, contact_polish.h); then stops once the criterion is
 * far below tol (a right guess: one step, the sliding rows' u then moves by round-off), when a
 * step no longer moves out (converged on a wrong guess) or does not halve the criterion (no
 * Newton convergence: a wrong guess), or when a factorisation fails (0 returned). */
static int newton(lucid_contact_polisher *pl, const lucid_contact_problem *p,
                  lucid_contact_model model, double tol, double *out, double *sigma,
                  lucid_contact_criteria *criteria) {
    int n = p->n, na = 0, d = pl->dim;
    lucid_contact_criterion kind = lucid_contact_model_criterion(model);
    for (int i = 0; i < n; ++i) {
        if (pl->modes[i] == BREAKING)
            memset(out + d * i, 0, sizeof(double) * (size_t)d);
        else
            pl->active[na++] = i;
    }
    lucid_contact_velocity(p, out, sigma);
    lucid_contact_criteria_eval(p, kind, out, sigma, NULL, criteria);
    int q = d * na;
    for (int step = 0; na > 0 && step < LUCID_CONTACT_POLISH_NEWTON_STEPS &&
                       (step == 0 || !(criteria->abs <= LUCID_CONTACT_POLISH_EXACT * tol));
         ++step) {
        double F, V;
        scales(p, out, sigma, &F, &V);
        assemble(pl, p, model, na, out, sigma, V);
        if (!solve(pl, q)) return 0;
        double moved = 0.0;
        for (int ki = 0; ki < na; ++ki)
            for (int a = 0; a < d; ++a) {
                out[d * pl->active[ki] + a] += pl->rhs[d * ki + a];
                moved = lucid_contact_fmax(moved, fabs(pl->rhs[d * ki + a]));
            }
        if (!(moved <= 1e30)) return 0;
        double before = criteria->abs;
        lucid_contact_velocity(p, out, sigma);
        lucid_contact_criteria_eval(p, kind, out, sigma, NULL, criteria);
        if (moved <= 1e-9 * F) break; /* quadratic: the next step would be round-off */
        if (!(criteria->abs <= 0.5 * before)) break; /* no Newton convergence: a wrong guess */
    }
    if (na > 0 && pl->rank < q && !(criteria->abs <= LUCID_CONTACT_POLISH_EXACT * tol))
        project(pl, p, model, tol, na, out, sigma, criteria);
    return 1;
}

int lucid_contact_polish(lucid_contact_polisher *pl, const lucid_contact_problem *p,
                         lucid_contact_model model, double tol, const double *lambda, double *out,
                         double *out_sigma, lucid_contact_criteria *criteria) {
    pl->dim = lucid_contact_dim(p);
    memcpy(out, lambda, sizeof(double) * (size_t)lucid_contact_rows(p));
    int ok = newton(pl, p, model, tol, out, out_sigma, criteria) &&
             (criteria->abs <= tol ||
              criteria->abs <= LUCID_CONTACT_POLISH_FLOOR * lucid_contact_round_off(p, out));
    if (!ok) {
        memcpy(pl->failed, pl->modes, (size_t)p->n);
        pl->have_failed = 1, ++pl->failures;
    }
    return ok;
}
