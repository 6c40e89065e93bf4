/* GJK / Polyak-GJK / Nesterov-GJK (Alg. 4, 6, 7 of GJK++). */
#include "solvers/collision/gjk.h"

#include <float.h>
#include <stddef.h>

#include "solvers/collision/epa.h"

/* Relative mode: g <= tol ||x||^2, floored by the round-off of g itself (about
 * eps ||x|| ||s|| per term): below that floor no floating-point gap can decide, so a contact
 * closer than ~eps |s| / tol would otherwise never count as converged. */
static double gap_threshold(const lucid_gjk_options *opt, lucid_vec3 x, lucid_vec3 s) {
    if (opt->tol_mode != LUCID_GJK_TOL_RELATIVE) return opt->tol;
    double nx = lucid_vec3_norm(x);
    return fmax(opt->tol * nx * nx, 8.0 * DBL_EPSILON * nx * lucid_vec3_norm(s));
}

/* Support direction of Eq. 28b (or Eq. 33 when normalising); the gradient of ||y||^2 is 2y. */
static lucid_vec3 momentum_direction(const lucid_gjk_options *opt, int k, lucid_vec3 x,
                                     lucid_vec3 s_prev, lucid_vec3 d_prev) {
    double delta = (k + 1.0) / (k + 3.0);
    lucid_vec3 y =
        opt->algorithm == LUCID_GJK_NESTEROV
            ? lucid_vec3_add(lucid_vec3_scale(x, delta), lucid_vec3_scale(s_prev, 1.0 - delta))
            : x;
    lucid_vec3 d = opt->normalize
                       ? lucid_vec3_add(lucid_vec3_scale(lucid_vec3_normalized(d_prev), delta),
                                        lucid_vec3_scale(lucid_vec3_normalized(y), 1.0 - delta))
                       : lucid_vec3_add(lucid_vec3_scale(d_prev, delta),
                                        lucid_vec3_scale(y, 2.0 * (1.0 - delta)));
    return lucid_vec3_norm2(d) > 0.0 ? d : x;
}

/* Momentum exits beyond the fixed-point test (Eq. 31-32), measured on the bands of
 * bench_collision (d <= 0, 0 < d <= 0.1 m, d > 0.1 m): without them the momentum direction
 * keeps the memory of the first, large iterates (its weight delta_k -> 1) while the gradient
 * 2 y shrinks with ||x||, so it lags behind the gradient far apart (13.8 iterations against
 * vanilla's 5.8 at 1.2 m) and crawls near contact and in overlaps (71 against 19 at 1.4 um).
 * Vanilla GJK takes over for good (as after Eq. 31) as soon as
 *  - cos(d, x) <= 0: the support along d is no descent step for ||x||^2 at x;
 *  - a momentum step fails to halve the certified suboptimality ||x||^2 - lb^2, where lb is
 *    the best lower bound on the distance that the supports computed so far prove (Alg. 2:
 *    lb >= <d, s(d)> / |d|; 0 while nothing separates). Far apart ||x||^2 is mostly the
 *    distance itself, so a test on ||x||^2 alone (the former one, 0.5 for Polyak and 0.9 for
 *    Nesterov, plus an exit once cos(d, x) >= 0.999) either left momentum crawling there or
 *    cut it short near contact: ellipsoids at 0 < d <= 0.1 m needed 0.63x vanilla's
 *    iterations with Nesterov, 0.49x with this test, every band still <= 1.03x vanilla's.
 * Every momentum step thus halves the bound (geometric), which bounds the momentum phase. */
#define MOMENTUM_MIN_COS      0.0
#define MOMENTUM_MIN_DECREASE 0.5

static int momentum_helps(lucid_vec3 d, lucid_vec3 x) {
    return lucid_vec3_dot(d, x) > MOMENTUM_MIN_COS * lucid_vec3_norm(d) * lucid_vec3_norm(x);
}

/* lb^2 = max(lb^2, (<d, s> / |d|)^2) when <d, s> > 0 (s = argmin <d, .>: the plane normal
 * to d separates by <d, s> / |d|). */
static double raise_lower_bound(double lb2, lucid_vec3 d, lucid_vec3 s) {
    double ds = lucid_vec3_dot(d, s), nd2 = lucid_vec3_norm2(d);
    if (!(ds > 0.0) || !(nd2 > 0.0)) return lb2;
    double b2 = ds * ds / nd2;
    return b2 > lb2 ? b2 : lb2;
}

/* Alg. 2 with radii: <d, s> > margin |d| proves dist(core1, core2) > margin (s = argmin <d, .>). */
static int plane_separates(lucid_vec3 d, lucid_vec3 s, double margin, double *bound) {
    double nd = lucid_vec3_norm(d);
    double ds = lucid_vec3_dot(d, s);
    if (!(nd > 0.0) || !(ds > margin * nd)) return 0;
    *bound = ds / nd;
    return 1;
}

/* The gap alone bounds ||x - x*|| by sqrt(tol), which cannot tell a contact closer than that
 * from a shallow overlap. Distance mode therefore stops only once <x, s> > 0 also certifies
 * that the plane normal to x separates the cores (so the sign of the distance is exact);
 * otherwise GJK continues until the simplex encloses the origin or stops making progress.
 * Boolean mode decides by its own plane and overlap tests, never by the gap. */
static int certified_apart(int boolean, lucid_vec3 x, lucid_vec3 s) {
    return !boolean && lucid_vec3_dot(x, s) > 0.0;
}

static void finish(lucid_gjk_result *res, lucid_gjk_outcome outcome, lucid_vec3 x, int converged) {
    res->outcome = outcome;
    res->x = x;
    res->converged = converged;
}

/* One GJK run; returns 1 when it stopped on a decision (then `finish` was called), 0 on the cap.
 * The active set alternates between two buffers so a step without progress can be undone
 * without copying; *W points at the final one. */
static int gjk_iterate(lucid_minkowski *m, const lucid_gjk_options *opt, double margin,
                       lucid_gjk_result *res, lucid_simplex **W_io, lucid_simplex *spare,
                       lucid_vec3 *x_io) {
    const int boolean = margin >= 0.0;
    lucid_simplex *W = *W_io;
    lucid_vec3 x = *x_io, d_prev = x, s_prev = x;
    int momentum = opt->algorithm != LUCID_GJK_VANILLA, decided = 0;
    double lb2 = 0.0; /* certified lower bound on the squared distance (momentum exit) */
    for (int k = 0; k < opt->max_iter && !decided; ++k) {
        lucid_vec3 d = momentum ? momentum_direction(opt, k, x, s_prev, d_prev) : x;
        if (momentum && W->rank > 0 && !momentum_helps(d, x)) { /* x0 need not be in D */
            momentum = 0;
            d = x;
        }
        lucid_support_point sp = lucid_minkowski_support(m, lucid_vec3_neg(d));
        res->iterations = k + 1;
        res->direction = d;
        if (boolean && plane_separates(d, sp.w, margin, &res->plane_bound)) {
            finish(res, LUCID_GJK_PLANE, x, 1);
            decided = 1;
            break;
        }
        if (W->rank > 0) { /* x0 is not a point of D: no gap before the first projection */
            double g = 2.0 * lucid_vec3_dot(x, lucid_vec3_sub(x, sp.w));
            res->gap = g;
            if (g <= gap_threshold(opt, x, sp.w) && momentum) {
                /* Eq. 31-32: a fixed point of the momentum, not necessarily the optimum. Switch
                 * to vanilla GJK and take the support in the gradient direction. */
                momentum = 0;
                d = x;
                sp = lucid_minkowski_support(m, lucid_vec3_neg(d));
                res->direction = d;
                if (boolean && plane_separates(d, sp.w, margin, &res->plane_bound)) {
                    finish(res, LUCID_GJK_PLANE, x, 1);
                    decided = 1;
                    break;
                }
                g = 2.0 * lucid_vec3_dot(x, lucid_vec3_sub(x, sp.w));
                res->gap = g;
            }
            if (g <= gap_threshold(opt, x, sp.w) && certified_apart(boolean, x, sp.w)) {
                finish(res, LUCID_GJK_SEPARATED, x, 1);
                decided = 1;
                break;
            }
        }
        if (momentum) lb2 = raise_lower_bound(lb2, d, sp.w);
        s_prev = sp.w;
        d_prev = d;
        int had_vertices = W->rank > 0;
        W->v[W->rank++] = sp;
        lucid_simplex *next = W == *W_io ? spare : *W_io;
        lucid_vec3 x_new;
        if (lucid_simplex_project_origin_into(W, next, &x_new)) {
            W = next;
            x = lucid_vec3_zero();
            res->gap = 0.0;
            finish(res, LUCID_GJK_OVERLAP, x, 1);
            decided = 1;
            break;
        }
        if (had_vertices && !(lucid_vec3_norm2(x_new) < lucid_vec3_norm2(x))) {
            /* No progress in floating point: the previous iterate is the best we have; it meets
             * the tolerance if its gap does (its sign is then not certified: a contact). */
            if (momentum) { /* the momentum direction may simply be poor: retry along x */
                W->rank--;
                momentum = 0;
                continue;
            }
            lucid_vec3 s_new = W->v[W->rank - 1].w; /* sp.w, stored: sp need not stay live */
            if (!(lucid_vec3_dot(x, s_new) > 0.0)) {
                /* s = argmin <x, .> yet x is already optimal over conv(W + s): exactly, that
                 * means <x, s> >= ||x||^2 > 0. Failing it, x is round-off away from the origin
                 * (the origin lies on a face of W up to round-off), which no gap test can
                 * resolve (a relative one never passes, an absolute one would report a
                 * contact at a deep overlap): the origin is in D, EPA decides the depth from
                 * the simplex W + s, which encloses it up to round-off. */
                W->lambda[W->rank - 1] = 0.0;
                x = lucid_vec3_zero();
                res->gap = 0.0;
                finish(res, LUCID_GJK_OVERLAP, x, 1);
                decided = 1;
                break;
            }
            W->rank--;
            finish(res, LUCID_GJK_SEPARATED, x, res->gap <= gap_threshold(opt, x, s_new));
            decided = 1;
            break;
        }
        if (momentum && had_vertices &&
            lucid_vec3_norm2(x_new) - lb2 > MOMENTUM_MIN_DECREASE * (lucid_vec3_norm2(x) - lb2))
            momentum = 0;
        W = next;
        x = x_new;
        if (boolean && lucid_vec3_norm(x) <= margin) {
            finish(res, LUCID_GJK_WITHIN, x, 1);
            decided = 1;
        }
    }
    *W_io = W;
    *x_io = x;
    return decided;
}

/* Only the rank live vertices and weights carry information: no full-struct copy. */
static void copy_live(const lucid_simplex *from, lucid_simplex *to) {
    to->rank = from->rank;
    for (int i = 0; i < from->rank; ++i) {
        to->v[i] = from->v[i];
        to->lambda[i] = from->lambda[i];
    }
}

void lucid_gjk_solve(lucid_minkowski *m, const lucid_gjk_options *opt, lucid_vec3 x0, double margin,
                     lucid_gjk_result *res) {
    lucid_vec3 x =
        lucid_vec3_norm2(x0) > 0.0 && lucid_vec3_isfinite(x0) ? x0 : lucid_vec3_make(1, 0, 0);
    lucid_simplex spare, *W = &res->simplex;
    W->rank = 0;
    res->gap = INFINITY;
    res->plane_bound = 0.0;
    res->iterations = 0;
    res->direction = x;
    finish(res, LUCID_GJK_SEPARATED, x, 0);
    int decided = gjk_iterate(m, opt, margin, res, &W, &spare, &x);
    if (W != &res->simplex) copy_live(W, &res->simplex);
    if (decided) return;
    /* Iteration cap: report the true Frank-Wolfe gap of the last iterate; when momentum was
     * still on, its own gap may not have certified an iterate that the true gap does. */
    int converged = 0;
    if (W->rank > 0) {
        lucid_vec3 s = lucid_minkowski_support(m, lucid_vec3_neg(x)).w;
        res->gap = 2.0 * lucid_vec3_dot(x, lucid_vec3_sub(x, s));
        converged = res->gap <= gap_threshold(opt, x, s) && certified_apart(margin >= 0.0, x, s);
    }
    finish(res, LUCID_GJK_SEPARATED, x, converged);
}
