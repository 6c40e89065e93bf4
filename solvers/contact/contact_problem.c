#include "solvers/contact/contact_problem.h"

#include <math.h>
#include <string.h>

#include "runtime/math/finite.h"
#include "solvers/contact/contact_math.h"

static const char *const model_names[] = {"lcp", "ccp", "raisim", "ncp"};
static const char *const solver_names[] = {"pgs", "admm", "newton", "staggered", "bisection", "ip"};

const char *lucid_contact_model_name(lucid_contact_model model) {
    return (unsigned)model < 4 ? model_names[model] : "unknown";
}

const char *lucid_contact_solver_name(lucid_contact_solver solver) {
    return (unsigned)solver < 6 ? solver_names[solver] : "unknown";
}

lucid_status lucid_contact_model_parse(const char *name, lucid_contact_model *model) {
    for (int k = 0; name && k < 4; ++k)
        if (strcmp(name, model_names[k]) == 0) {
            *model = (lucid_contact_model)k;
            return LUCID_OK;
        }
    return LUCID_ERR_ARGUMENT;
}

lucid_status lucid_contact_solver_parse(const char *name, lucid_contact_solver *solver) {
    for (int k = 0; name && k < 6; ++k)
        if (strcmp(name, solver_names[k]) == 0) {
            *solver = (lucid_contact_solver)k;
            return LUCID_OK;
        }
    return LUCID_ERR_ARGUMENT;
}

lucid_status lucid_contact_pair_check(lucid_contact_model model, lucid_contact_solver solver) {
    switch (model) {
        case LUCID_CONTACT_LCP:
            return solver == LUCID_CONTACT_PGS ? LUCID_OK : LUCID_ERR_ARGUMENT;
        case LUCID_CONTACT_CCP:
            return solver == LUCID_CONTACT_PGS || solver == LUCID_CONTACT_ADMM ||
                           solver == LUCID_CONTACT_NEWTON || solver == LUCID_CONTACT_IP
                       ? LUCID_OK
                       : LUCID_ERR_ARGUMENT;
        case LUCID_CONTACT_RAISIM:
            return solver == LUCID_CONTACT_BISECTION ? LUCID_OK : LUCID_ERR_ARGUMENT;
        case LUCID_CONTACT_NCP:
            return solver == LUCID_CONTACT_PGS || solver == LUCID_CONTACT_STAGGERED ||
                           solver == LUCID_CONTACT_ADMM || solver == LUCID_CONTACT_IP ||
                           solver == LUCID_CONTACT_NEWTON
                       ? LUCID_OK
                       : LUCID_ERR_ARGUMENT;
    }
    return LUCID_ERR_ARGUMENT;
}

static lucid_status fail(const char **why, const char *message, lucid_status status) {
    if (why) *why = message;
    return status;
}

/* What the validation reads of G, in one pass over its entry pairs (i, j), (j, i), i >= j:
 * whether every entry is finite (a 0 + b 0 is NaN exactly when a or b is NaN or infinite),
 * the largest |G| and the largest |G_ij - G_ji|. Four lanes of i at a time, each with its own
 * sums and maxima: the pass is bound by the latency of one chain of dependent additions and
 * comparisons otherwise, and the outcome (a maximum, a sum of zeros or NaN) does not depend on
 * the order. The pairs are taken in tiles of G_TILE x G_TILE entries below the diagonal: a
 * tile's transposed reads (G_ji, a stride of m apart) then stay in G_TILE cache lines, where a
 * whole column's pairs touched a line per entry. */
enum { G_TILE = 8 };

typedef struct g_summary {
    int finite;
    double scale, asymmetry;
} g_summary;

typedef struct g_lane {
    double probe, scale, asymmetry;
} g_lane;

static void summarise_pair(g_lane *lane, double a, double b) {
    double big = fabs(a) > fabs(b) ? fabs(a) : fabs(b), diff = fabs(a - b);
    lane->probe += a * 0.0 + b * 0.0;
    lane->scale = big > lane->scale ? big : lane->scale;
    lane->asymmetry = diff > lane->asymmetry ? diff : lane->asymmetry;
}

static g_summary summarise_G(const double *G, long m) {
    g_lane lane[4] = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    for (long J = 0; J < m; J += G_TILE)
        for (long I = J; I < m; I += G_TILE) {
            long je = J + G_TILE < m ? J + G_TILE : m, ie = I + G_TILE < m ? I + G_TILE : m;
            for (long j = J; j < je; ++j) {
                const double *col = G + m * j, *row = G + j;
                long i = I > j ? I : j;
                for (; i + 4 <= ie; i += 4)
                    for (int l = 0; l < 4; ++l)
                        summarise_pair(&lane[l], col[i + l], row[m * (i + l)]);
                for (; i < ie; ++i) summarise_pair(&lane[0], col[i], row[m * i]);
            }
        }
    g_summary out = {1, 0.0, 0.0};
    for (int l = 0; l < 4; ++l) {
        out.finite = out.finite && lane[l].probe == 0.0;
        out.scale = lane[l].scale > out.scale ? lane[l].scale : out.scale;
        out.asymmetry = lane[l].asymmetry > out.asymmetry ? lane[l].asymmetry : out.asymmetry;
    }
    return out;
}

double lucid_contact_diag(const lucid_contact_problem *p, int k) {
    return lucid_contact_entry(p, k, k);
}

/* The checks of lucid_contact_problem_validate; with `whole_G` 0, G is read on its diagonal
 * only (required finite there) instead of the O(m^2) pass over its pairs. */
static lucid_status validate(const lucid_contact_problem *p, int whole_G, const char **why) {
    if (why) *why = "";
    if (!p || p->n < 0) return fail(why, "negative number of contacts", LUCID_ERR_ARGUMENT);
    if (p->dim != 0 && p->dim != 3 && p->dim != 4 && p->dim != 6)
        return fail(why, "dim (rows per contact) must be 3, 4 or 6", LUCID_ERR_ARGUMENT);
    if (p->n > 0x7fffffff / 6 / 6) return fail(why, "too many contacts", LUCID_ERR_ARGUMENT);
    if (p->n == 0) return LUCID_OK;
    if (!p->G || !p->g || !p->mu) return fail(why, "missing G, g or mu", LUCID_ERR_ARGUMENT);
    long m = lucid_contact_rows(p);
    g_summary G = {1, 0.0, 0.0};
    if (whole_G) G = summarise_G(p->G, m);
    for (long k = 0; !whole_G && k < m; ++k) G.finite = G.finite && isfinite(p->G[k * (m + 1)]);
    if (!G.finite) return fail(why, "G holds NaN or Inf", LUCID_ERR_NONFINITE);
    if (!lucid_all_finite(p->g, m)) return fail(why, "g holds NaN or Inf", LUCID_ERR_NONFINITE);
    if (!lucid_all_finite(p->mu, p->n))
        return fail(why, "mu holds NaN or Inf", LUCID_ERR_NONFINITE);
    if (p->R && !lucid_all_finite(p->R, m))
        return fail(why, "R holds NaN or Inf", LUCID_ERR_NONFINITE);
    for (int i = 0; i < p->n; ++i)
        if (p->mu[i] < 0.0)
            return fail(why, "friction coefficient mu is negative", LUCID_ERR_ARGUMENT);
    for (int i = 0; i < p->n; ++i)
        if (p->mu[i] > LUCID_CONTACT_MAX_FRICTION)
            return fail(why, "friction coefficient mu exceeds 100 (LUCID_CONTACT_MAX_FRICTION)",
                        LUCID_ERR_ARGUMENT);
    for (long k = 0; p->R && k < m; ++k)
        if (p->R[k] < 0.0) return fail(why, "compliance R is negative", LUCID_ERR_ARGUMENT);
    if (G.asymmetry > 1e-10 * G.scale) return fail(why, "G is not symmetric", LUCID_ERR_NOT_SPD);
    for (int k = 0; k < m; ++k)
        if (!(lucid_contact_diag(p, k) > 0.0))
            return fail(why, "G + R has a non-positive diagonal entry", LUCID_ERR_NOT_SPD);
    return LUCID_OK;
}

lucid_status lucid_contact_problem_validate(const lucid_contact_problem *p, const char **why) {
    return validate(p, 1, why);
}

lucid_status lucid_contact_problem_validate_assembled(const lucid_contact_problem *p,
                                                      const char **why) {
    return validate(p, 0, why);
}

void lucid_contact_velocity(const lucid_contact_problem *p, const double *lambda, double *sigma) {
    long m = lucid_contact_rows(p);
    for (long i = 0; i < m; ++i) sigma[i] = p->g[i] + (p->R ? p->R[i] * lambda[i] : 0.0);
    for (long j = 0; j < m; ++j) {
        double lj = lambda[j];
        if (lj == 0.0) continue;
        const double *column = p->G + m * j;
        for (long i = 0; i < m; ++i) sigma[i] += column[i] * lj;
    }
}
