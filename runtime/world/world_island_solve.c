/* The island solve, written once for both backends (a dense G, world_delassus.c, or the
 * body-space pieces, world_sparse.c): the solver an island uses, the attempts made on its problem,
 * how each answer is judged and which one the step keeps. The backend says how a solver runs on its
 * form and how an answer's criteria are computed (lucid_world_island). */
#include <math.h>
#include <string.h>

#include "runtime/world/world_internal.h"

/* The attempts, numbered as the answers they give (lucid_island_answer). */
enum {
    WARM = LUCID_ISLAND_WARM,
    COLD = LUCID_ISLAND_COLD,
    PGS = LUCID_ISLAND_PGS,
    IP = LUCID_ISLAND_IP
};

/* ccp:newton: a compliant primal problem whose criterion is not p's. */
static int ccp_newton(const lucid_contact_options *o) {
    return o->solver == LUCID_CONTACT_NEWTON && o->model == LUCID_CONTACT_CCP;
}

/* ncp:newton: the semismooth Newton on p's own NCP. */
static int ncp_newton(const lucid_contact_options *o) {
    return o->solver == LUCID_CONTACT_NEWTON && o->model == LUCID_CONTACT_NCP;
}

/* The world's contact options for an island of m contacts: ncp:newton's islands of more than
 * LUCID_WORLD_NCP_NEWTON_CONTACTS and at most its body-space crossover go to ADMM (automatic
 * sparse_threshold only), where a dense LU a Newton iteration costs more than ADMM's warm
 * iterations; above the crossover the body-space Newton solves them. */
int lucid_world_island_touches_model(const lucid_world *w, const int *list, int m) {
    for (int k = 0; k < m; ++k)
        if (w->d.sides[2 * list[k]].model >= 0 || w->d.sides[2 * list[k] + 1].model >= 0) return 1;
    return 0;
}

lucid_contact_options lucid_world_island_options(const lucid_world *w, const int *list, int m) {
    const lucid_world_options *o = &w->opt;
    lucid_contact_options c = o->contact;
    if (ncp_newton(&c) && o->sparse_threshold < 0 && m > LUCID_WORLD_NCP_NEWTON_CONTACTS &&
        (m <= LUCID_WORLD_SPARSE_NCP_NEWTON_CROSSOVER ||
         lucid_world_island_touches_model(w, list, m)))
        c.solver = LUCID_CONTACT_ADMM;
    return c;
}

/* 1 when the n entries of lambda are all zero (no force). */
static int all_zero(const double *lambda, size_t n) {
    for (size_t k = 0; k < n; ++k)
        if (lambda[k] != 0.0) return 0;
    return 1;
}

/* 1 when the solver stops on a criterion of p itself, which the island can recompute. Not:
 * ccp:newton (it solves a compliant CCP where p has no compliance), raisim:bisection (the
 * fixed point of its per-contact map; its model has no complementarity form) and ip with
 * kappa > 0 (the relaxed system, contact_ip.h). Their answers are judged on their own report,
 * p's criterion reading a relaxed model's answer as worse than no force at all. */
static int criterion_of_p(const lucid_contact_options *o) {
    return !ccp_newton(o) && o->model != LUCID_CONTACT_RAISIM &&
           !(o->solver == LUCID_CONTACT_IP && o->kappa > 0.0);
}

/* The interior point (kappa = 0, from its own start) as the last attempt of ADMM, staggered and
 * ncp:newton worlds: it meets tol where the fixed-point solvers crawl and where the semismooth
 * Newton stops at a stationary point of its merit (docs/benchmarks/solve_choice.md). Not for PGS
 * worlds, whose forces stay PGS's. */
static int has_ip_attempt(const lucid_contact_options *o) {
    return (o->solver == LUCID_CONTACT_ADMM || o->solver == LUCID_CONTACT_STAGGERED ||
            ncp_newton(o)) &&
           lucid_contact_pair_check(o->model, LUCID_CONTACT_IP) == LUCID_OK;
}

/* One solve of attempt a from `start` (lambda, dual): WARM with the world's options (ADMM from
 * the carried rho), COLD from zero (ADMM's rho the mean diagonal of G + R: the solver's own
 * sqrt(eig_min eig_max) vanishes for the singular G of hyperstatic contacts), PGS continuing
 * `start`, IP from its own start. ip_next: an interior point may still follow, so ADMM in body
 * space may give up once its forecast misses tol. */
static lucid_status attempt(const lucid_contact_options *options, const lucid_world_island *isl,
                            int a, const double *start, double warm_rho, int ip_next,
                            lucid_contact_result *res) {
    lucid_contact_options o = *options;
    if (a == WARM && warm_rho > 0.0) o.rho = warm_rho;
    o.give_up = ip_next && a < PGS;
    memcpy(isl->lambda, start, sizeof(double) * isl->n3);
    memcpy(isl->dual, start + isl->n3, sizeof(double) * isl->n3);
    if (a == COLD) {
        memset(isl->lambda, 0, sizeof(double) * isl->n3);
        memset(isl->dual, 0, sizeof(double) * isl->n3);
        o.warm_start = 0;
        if (o.solver == LUCID_CONTACT_ADMM && o.rho <= 0.0) o.rho = isl->mean_diagonal(isl->ctx);
    }
    if (a == PGS) o.solver = LUCID_CONTACT_PGS, o.warm_start = 1;
    if (a != IP) return isl->solve(isl->ctx, &o, a == PGS ? NULL : isl->dual, res);
    o.solver = LUCID_CONTACT_IP, o.kappa = 0.0, o.warm_start = 0;
    lucid_status s = isl->solve(isl->ctx, &o, isl->dual, res);
    /* the world keeps ADMM's multiplier as the dual */
    lucid_contact_multiplier_from(LUCID_CONTACT_IP, isl->n3, isl->dual);
    if (s == LUCID_OK || s == LUCID_ERR_NO_MEMORY) return s;
    memset(res, 0, sizeof *res); /* an error of the ip's own: a failed attempt, never kept */
    res->diverged = 1;
    return LUCID_OK;
}

/* The attempt after attempt a missed tol (-1: none left; tried: a mask of those made). After
 * the warm one: cold when its answer failed (not finite, or worse than lambda = 0: `kept`
 * false), the model has no PGS or the solver is ncp:newton (`newton`: globalised, it converges
 * from zero, where PGS only polishes an answer near the solution); not when the warm attempt
 * was made from zero (COLD in `tried`). Then the model's PGS from the best answer (it
 * polishes an answer that ran out of iterations near the solution) and the interior point where the
 * island has one, each at most once: PGS first, unless the backend puts the ip first (ip_first)
 * while the best answer is farther than LUCID_WORLD_PGS_POLISH tol (`near` false). */
static int next_attempt(int a, int kept, int pgs, int ip, int tried, int ip_first, int newton) {
    if (a == WARM && (!kept || pgs < 0 || newton) && !(tried & (1 << COLD))) return COLD;
    int first = ip_first && ip >= 0 ? ip : pgs, second = first == pgs ? ip : pgs;
    if (first >= 0 && !(tried & (1 << first))) return first;
    if (second >= 0 && !(tried & (1 << second))) return second;
    return -1;
}

/* lambda = 0 (and a zero dual) as the answer, with its criteria. */
static void set_zero(const lucid_world_island *isl, lucid_contact_result *res) {
    memset(isl->lambda, 0, sizeof(double) * isl->n3);
    memset(isl->dual, 0, sizeof(double) * isl->n3);
    memset(res, 0, sizeof *res);
    isl->judge(isl->ctx, res);
}

/* The round-off bound of the island's current answer, taken at forces the island can resolve
 * (computed once: *cache NAN until then). For forces of size F (the largest entry) it grows as
 * R = k F^2, F times the velocity rounding R / F = k F (k ~ u |G| (1 + mu), set by the answer's
 * direction, not its size), so an answer inflated along cancelling forces (G y = 0), whose
 * criterion grows as F, would certify itself. Forces are resolvable while their velocity
 * rounding stays within `zero`, the velocity lambda = 0 leaves (what the forces are there to
 * stop): up to F_r = zero / k, a scale inflating the answer leaves unchanged. Beyond it the
 * bound is taken at F_r: k F_r^2 = (zero F)^2 / R. */
static double answer_round_off(const lucid_world_island *isl, double zero, double *cache) {
    if (!isnan(*cache)) return *cache;
    double r = isl->round_off(isl->ctx), force = 0.0;
    for (size_t k = 0; k < isl->n3; ++k) force = fmax(force, fabs(isl->lambda[k]));
    double resolved = zero * force; /* R where F = F_r */
    *cache = r > resolved ? resolved / r * resolved : r;
    return *cache;
}

/* The island's report: which answer was kept, the attempts made and the kept criteria. */
static void report(const lucid_contact_options *o, const lucid_world_island *isl, int answer,
                   int tried, const lucid_contact_result *res) {
    lucid_world_island_info *info = isl->info;
    if (!info) return;
    info->solver = o->solver;
    info->contacts = isl->n;
    info->dim = isl->n > 0 ? (int)(isl->n3 / (size_t)isl->n) : 3;
    info->answer = (lucid_island_answer)answer;
    info->attempts = (unsigned)tried;
    info->iterations = res->iterations;
    info->converged = res->converged;
    info->residual = res->model.abs;
}

/* Solves the island from the warm start in isl->lambda / isl->dual. A solver may fail on a
 * degenerate problem (even report convergence with NaN forces), so every answer is judged
 * (criteria recomputed by the backend) and the first meeting tol, else the best eligible one,
 * is kept. An answer descending from the warm start is eligible only when no worse than
 * lambda = 0 (a stale force launched light bodies) or within what rounding its forces can
 * cause, taken at forces the island can resolve (answer_round_off); cold answers are the
 * solver's own (and so are ncp:newton's from zero, when nothing was carried). Attempts:
 * lambda = 0 when it meets tol; warm; then those next_attempt gives. The ip's answer is kept only
 * when it meets tol, no other answer is eligible or the kept one is no better than lambda = 0
 * (then it beats lambda = 0, which leaves pressing contacts without force): unconverged, it differs
 * from the fixed-point solvers' in directions the criterion does not see, and a whole step would
 * switch between them under a perturbation. */
lucid_status lucid_world_island_solve(const lucid_contact_options *o, const lucid_world_island *isl,
                                      double warm_rho, lucid_contact_result *out) {
    size_t n3 = isl->n3;
    double *warm = isl->spare, *best = isl->spare + 2 * n3;
    memcpy(warm, isl->lambda, sizeof(double) * n3);
    memcpy(warm + n3, isl->dual, sizeof(double) * n3);
    lucid_contact_result res, best_res;
    set_zero(isl, &res);
    double zero = res.model.abs;
    if (zero <= o->tol) {
        res.converged = 1, *out = res;
        report(o, isl, LUCID_ISLAND_ZERO, 0, out);
        return LUCID_OK;
    }
    int has_pgs = lucid_contact_pair_check(o->model, LUCID_CONTACT_PGS) == LUCID_OK;
    int pgs = has_pgs && o->solver != LUCID_CONTACT_PGS ? PGS : -1;
    int ip = has_ip_attempt(o) ? IP : -1;
    int have_best = 0, best_cold = 0, best_answer = LUCID_ISLAND_ZERO, tried = 0, iterations = 0;
    /* ncp:newton with nothing carried: its warm attempt is a cold one (no stale force) */
    int from_zero = ncp_newton(o) && all_zero(warm, n3);
    for (int a = o->warm_start ? WARM : COLD; a >= 0;) {
        const double *start = a == PGS && have_best ? best : warm;
        lucid_status s = attempt(o, isl, a, start, warm_rho, ip >= 0 && !(tried & (1 << IP)), &res);
        if (s != LUCID_OK) return s;
        iterations += res.iterations;
        lucid_contact_criteria own = res.model;
        int finite = !res.diverged && isl->judge(isl->ctx, &res);
        double p_abs = res.model.abs; /* compared with lambda = 0 */
        int relaxed = a < PGS && !criterion_of_p(o);
        if (finite && relaxed) res.model = own;
        /* ccp:newton's own criterion equals p's at lambda = 0: compared there on its own */
        if (a < PGS && ccp_newton(o)) p_abs = res.model.abs;
        int cold = a == COLD || a == IP || (a == WARM && from_zero) ||
                   (a == PGS && have_best && best_cold);
        /* the round-off bound (a pass over the island's G) only where a decision reads it */
        double round_off = NAN;
        /* lambda = 0 itself is the fallback below, judged already: an attempt that returns it
         * (a Newton whose iterates never improved on its start) is no answer */
        int eligible = finite && !all_zero(isl->lambda, n3) &&
                       (cold || (relaxed && res.converged) || p_abs <= zero ||
                        p_abs <= 2.0 * answer_round_off(isl, zero, &round_off));
        int met = eligible && res.converged && res.model.abs <= o->tol;
        res.converged = met;
        /* the ip replaces a kept answer only when that one is no better than lambda = 0 */
        int better = have_best && res.model.abs < best_res.model.abs &&
                     (a != IP || best_res.model.abs >= zero);
        if (met || (eligible && (!have_best || better))) {
            memcpy(best, isl->lambda, sizeof(double) * n3);
            memcpy(best + n3, isl->dual, sizeof(double) * n3);
            best_res = res, have_best = 1, best_cold = cold, best_answer = a;
        }
        tried |= 1 << a;
        if (met || (have_best && best_res.converged)) break;
        /* within twice what rounding resolvable forces can cause: no attempt can reliably do
         * better */
        if (finite && res.model.abs <= 2.0 * answer_round_off(isl, zero, &round_off)) break;
        int near = have_best && best_res.model.abs <= LUCID_WORLD_PGS_POLISH * o->tol;
        /* from zero, the warm attempt was the cold one */
        int made = tried | (from_zero ? 1 << COLD : 0);
        a = next_attempt(a, finite && p_abs <= zero, pgs, ip, made, isl->ip_first && !near,
                         ncp_newton(o));
    }
    if (!have_best) { /* no finite answer, or only warm ones worse than doing nothing */
        set_zero(isl, out);
        out->iterations = iterations;
        report(o, isl, LUCID_ISLAND_ZERO, tried, out);
        return LUCID_OK;
    }
    memcpy(isl->lambda, best, sizeof(double) * n3);
    memcpy(isl->dual, best + n3, sizeof(double) * n3);
    *out = best_res;
    out->iterations = iterations;
    report(o, isl, best_answer, tried, out);
    return LUCID_OK;
}

int lucid_world_judge(const lucid_contact_problem *p, lucid_contact_model model,
                      const double *lambda, const double *sigma, lucid_contact_result *res) {
    size_t n3 = (size_t)lucid_contact_rows(p);
    double big_lambda = 0.0, big_sigma = 0.0;
    for (size_t k = 0; k < n3; ++k) {
        if (!isfinite(lambda[k]) || !isfinite(sigma[k])) return 0;
        big_lambda = fmax(big_lambda, fabs(lambda[k])), big_sigma = fmax(big_sigma, fabs(sigma[k]));
    }
    lucid_contact_criterion criterion = lucid_contact_model_criterion(model);
    lucid_contact_criteria_eval(p, criterion, lambda, sigma, NULL, &res->model);
    if (criterion == LUCID_CRITERION_NCP) /* the same criterion: evaluated once */
        res->ncp = res->model;
    else
        lucid_contact_criteria_eval(p, LUCID_CRITERION_NCP, lambda, sigma, NULL, &res->ncp);
    /* the criteria multiply forces by velocities: what would overflow reads 0 */
    return big_lambda * big_sigma < 1e300 && isfinite(res->model.abs) && isfinite(res->ncp.abs);
}

/* The largest power of two not above x (x > 0 and finite). */
static double power_of_two_below(double x) {
    int e;
    frexp(x, &e); /* x = f 2^e, f in [0.5, 1) */
    return ldexp(1.0, e - 1);
}

void lucid_world_island_scales(const double *g, size_t rows, double diag_max, double *force_scale,
                               double *velocity_scale) {
    double g_max = 0.0;
    for (size_t k = 0; k < rows; ++k) g_max = fmax(g_max, fabs(g[k]));
    *velocity_scale = g_max > 0.0 && g_max < 1.0 ? power_of_two_below(g_max) : 1.0;
    double f = (g_max > 0.0 ? g_max : 1.0) / diag_max;
    *force_scale = f > 0.0 && f < 1.0 ? power_of_two_below(f) : 1.0;
    if (!(*force_scale >= 0x1p-1000)) *force_scale = 0x1p-1000; /* no subnormal scales */
}
