/* RaiSim's sliding problem (23) for any number k = dim - 1 of tangential rows t (the normal at
 * row 2). On the plane (A l + gt)_N = 0 the normal is l_N = -(gt_N + a^T t) / A_NN (a = A_TN),
 * and f becomes, up to a constant,
 *   f(t) = 1/2 t^T S t + b^T t,  S = A_TT - a a^T / A_NN (PSD),  b = gt_T - a gt_N / A_NN,
 * while l in K_mu (mu l_N >= ||t||) reads
 *   g(t) = ||t|| + c^T t - rho <= 0,  c = mu a / A_NN,  rho = -mu gt_N / A_NN >= 0:
 * a convex quadratic over a convex set (an ellipsoid when ||c|| < 1, else unbounded). With rho
 * > 0, t = 0 is strictly feasible (Slater), so t* = t(alpha*) where t(alpha) minimises the
 * Lagrangian L(t, alpha) = f(t) + alpha g(t) and alpha* >= 0 is the root of the dual's slope
 * D'(alpha) = g(t(alpha)), non-increasing (D concave). t(alpha) is t = 0 when ||h|| <= alpha
 * (h = b + alpha c), else t = -(S + beta I)^-1 h with beta = alpha / ||t|| the root of
 *   psi(beta) = beta ||(S + beta I)^-1 h|| = ||(I + S / beta)^-1 h|| = alpha,
 * increasing in beta (each eigen-component h_j / (1 + s_j / beta) grows) from the norm n0 of h's
 * part along S's null space (beta -> 0) to ||h||; n0 >= alpha: L is unbounded below. Both roots
 * are of monotone scalar functions on brackets of known sign: found by a safeguarded false
 * position, exact to the bracket's last bits whatever the block's anisotropy. */
#include "solvers/contact/contact_section.h"

#include <float.h>
#include <math.h>
#include <stddef.h>

#include "solvers/contact/contact_null_rows.h"

#define MAX_TANGENT 5
/* at least one halving per three steps (root) from any bracket of doubles to its last bits */
#define ROOT_MAX_STEPS 3300

static const int TANGENT[MAX_TANGENT] = {0, 1, 3, 4, 5};

void lucid_contact_small_eigen(int n, double *S, double *w, double *V) {
    for (int a = 0; a < n * n; ++a) V[a] = 0.0;
    for (int a = 0; a < n; ++a) V[a * (n + 1)] = 1.0;
    for (int sweep = 0; sweep < 64; ++sweep) { /* quadratic: a few sweeps reach round-off */
        double off = 0.0, diag = 0.0;
        for (int q = 0; q < n; ++q) {
            diag += fabs(S[q * (n + 1)]);
            for (int p = 0; p < q; ++p) off += fabs(S[p + n * q]);
        }
        if (!(off > DBL_EPSILON * diag)) break;
        for (int p = 0; p < n; ++p)
            for (int q = p + 1; q < n; ++q) {
                double apq = S[p + n * q];
                if (apq == 0.0) continue;
                double theta = (S[q + n * q] - S[p + n * p]) / (2.0 * apq);
                double t = copysign(1.0, theta) / (fabs(theta) + hypot(theta, 1.0));
                double c = 1.0 / hypot(t, 1.0), sn = t * c;
                for (int k = 0; k < n; ++k) { /* S J, then J^T (S J), and V J */
                    double x = S[k + n * p], y = S[k + n * q];
                    S[k + n * p] = c * x - sn * y, S[k + n * q] = sn * x + c * y;
                }
                for (int k = 0; k < n; ++k) {
                    double x = S[p + n * k], y = S[q + n * k];
                    S[p + n * k] = c * x - sn * y, S[q + n * k] = sn * x + c * y;
                }
                for (int k = 0; k < n; ++k) {
                    double x = V[k + n * p], y = V[k + n * q];
                    V[k + n * p] = c * x - sn * y, V[k + n * q] = sn * x + c * y;
                }
            }
    }
    for (int a = 0; a < n; ++a) w[a] = S[a * (n + 1)];
}

/* The reduced problem in S's eigenbasis (s: S's eigenvalues, those within the null-row
 * threshold of the unit trace set to 0), and the inner problem's h and alpha. */
typedef struct section {
    int k;
    double s[MAX_TANGENT], b[MAX_TANGENT], c[MAX_TANGENT], rho;
    double h[MAX_TANGENT], alpha;
} section;

typedef double (*decreasing_fn)(section *e, double x);

/* A root of F, continuous and non-increasing on [lo, hi] with F(lo) > 0 >= F(hi) (F(lo) may be
 * +inf): false position with the Illinois rule (an end kept twice has its value halved, so both
 * ends move: superlinear), and a bisection whenever the last two steps have not halved the
 * bracket, so that it at least halves every three steps; until it is a few ulps wide. Returns
 * its upper end (F <= 0) or an exact root, and its lower end in *lo_end (F > 0; the root when
 * exact) when lo_end is not NULL. */
static double root(decreasing_fn F, section *e, double lo, double flo, double hi, double fhi,
                   double *lo_end) {
    double width[2] = {INFINITY, INFINITY}; /* the bracket's width one and two steps ago */
    int kept = 0;                           /* the end the last step kept: -1 lo, +1 hi */
    for (int step = 0; step < ROOT_MAX_STEPS; ++step) {
        double mid = 0.5 * (lo + hi), x = mid;
        if (!(mid > lo && mid < hi) || hi - lo <= 4.0 * DBL_EPSILON * fmax(fabs(lo), fabs(hi)))
            break;
        if (isfinite(flo) && hi - lo <= 0.5 * width[1]) {
            double secant = hi - fhi * (hi - lo) / (fhi - flo);
            if (secant > lo && secant < hi) x = secant;
        }
        width[1] = width[0], width[0] = hi - lo;
        double fx = F(e, x);
        if (fx == 0.0) {
            if (lo_end) *lo_end = x;
            return x;
        }
        if (fx > 0.0) {
            lo = x, flo = fx;
            if (kept == 1) fhi *= 0.5;
            kept = 1;
        } else {
            hi = x, fhi = fx;
            if (kept == -1) flo *= 0.5;
            kept = -1;
        }
    }
    if (lo_end) *lo_end = lo;
    return hi;
}

/* 1 / alpha - 1 / psi at x = 1 / beta: psi(x) = ||(I + x S)^-1 h|| decreases in x, and 1 / psi
 * is nearly linear in x (exactly for one eigen-component), which suits false position. */
static double alignment(section *e, double x) {
    double psi = 0.0;
    for (int j = 0; j < e->k; ++j) psi = hypot(psi, e->h[j] / (1.0 + e->s[j] * x));
    return 1.0 / e->alpha - 1.0 / psi;
}

/* t(alpha), the minimiser of L(., alpha) (file header), in the eigenbasis; 0 when L is unbounded
 * below. alpha = 0: the unconstrained minimiser -S^+ b, unbounded when b has a null part. */
static int lagrangian_minimiser(section *e, double alpha, double *t) {
    double nh = 0.0, n0 = 0.0, s_min = INFINITY, s_max = 0.0;
    e->alpha = alpha;
    for (int j = 0; j < e->k; ++j) {
        double h = e->h[j] = e->b[j] + alpha * e->c[j];
        nh = hypot(nh, h);
        if (e->s[j] == 0.0) n0 = hypot(n0, h);
        if (e->s[j] > 0.0 && h != 0.0) s_min = fmin(s_min, e->s[j]), s_max = fmax(s_max, e->s[j]);
    }
    if (alpha == 0.0 || nh <= alpha) {
        if (alpha == 0.0 && n0 > 0.0) return 0;
        for (int j = 0; j < e->k; ++j)
            t[j] = alpha == 0.0 && e->s[j] > 0.0 ? -e->h[j] / e->s[j] : 0.0;
        return 1;
    }
    if (n0 >= alpha) return 0;
    /* psi(x)^2 lies between n0^2 + n+^2 / (1 + x s)^2 at s = s_max and at s = s_min (n+ the
     * norm of h's other part), so psi(x) = alpha between the x where 1 / (1 + x s) = q, with
     * q = sqrt(alpha^2 - n0^2) / n+ in (0, 1) */
    double q = sqrt((alpha - n0) * (alpha + n0)) / sqrt((nh - n0) * (nh + n0));
    double lo = (1.0 - q) / (q * s_max), hi = (1.0 - q) / (q * s_min), x;
    double flo = alignment(e, lo), fhi = alignment(e, hi);
    if (flo <= 0.0)
        x = lo;
    else if (fhi >= 0.0)
        x = hi;
    else
        x = root(alignment, e, lo, flo, hi, fhi, NULL);
    for (int j = 0; j < e->k; ++j) t[j] = -e->h[j] * x / (1.0 + e->s[j] * x);
    return 1;
}

/* g(t(alpha)), the dual's slope: non-increasing, +inf where L is unbounded below. */
static double violation(section *e, double alpha) {
    double t[MAX_TANGENT], r = 0.0, ct = 0.0;
    if (!lagrangian_minimiser(e, alpha, t)) return INFINITY;
    for (int j = 0; j < e->k; ++j) r = hypot(r, t[j]), ct += e->c[j] * t[j];
    return r + ct - e->rho;
}

static double norm(const double *x, int k) {
    double r = 0.0;
    for (int j = 0; j < k; ++j) r = hypot(r, x[j]);
    return r;
}

/* g(t) of the reduced problem. */
static double constraint(const section *e, const double *t) {
    double r = 0.0, ct = 0.0;
    for (int j = 0; j < e->k; ++j) r = hypot(r, t[j]), ct += e->c[j] * t[j];
    return r + ct - e->rho;
}

/* t* from the dual root's last bracket [lo, hi] (g(t(lo)) > 0 >= g(t(hi))): alpha is exact to
 * its last bits, but t(alpha) moves by alpha t'(alpha) per relative change of alpha (large
 * where S is small), so g(t(hi)) can sit well inside the boundary; t is interpolated between
 * the ends to g = 0 (feasible: g is convex), exact to second order in the bracket. */
static int boundary_point(section *e, double lo, double hi, double *t) {
    double tl[MAX_TANGENT];
    if (!lagrangian_minimiser(e, hi, t)) return 0;
    double gh = constraint(e, t);
    if (!(lo < hi && gh < 0.0 && lagrangian_minimiser(e, lo, tl))) return 1;
    double gl = constraint(e, tl);
    if (!(gl > 0.0 && isfinite(gl))) return 1;
    double w = gh / (gh - gl); /* the weight of t(lo), in (0, 1) */
    for (int j = 0; j < e->k; ++j) t[j] += w * (tl[j] - t[j]);
    return 1;
}

/* t* in the eigenbasis (file header); 0 when f is unbounded below on the section. The bracket's
 * upper end: for ||c|| < 1, alpha = ||b|| / (1 - ||c||) makes ||h|| <= alpha (t = 0, g = -rho);
 * otherwise doubling from ||b|| + rho s_max (a velocity, as alpha) until g <= 0. */
static int solve_reduced(section *e, double *t) {
    double nc = norm(e->c, e->k), nb = norm(e->b, e->k), s_max = 0.0;
    for (int j = 0; j < e->k; ++j) s_max = fmax(s_max, e->s[j]);
    if (e->rho == 0.0 && nc < 1.0) { /* the section is the apex */
        for (int j = 0; j < e->k; ++j) t[j] = 0.0;
        return 1;
    }
    double g0 = violation(e, 0.0), hi, ghi = 0.0;
    if (g0 <= 0.0) return lagrangian_minimiser(e, 0.0, t); /* f's own minimiser is feasible */
    if (nc < 1.0) {
        hi = nb / (1.0 - nc), ghi = violation(e, hi);
    } else {
        hi = nb + e->rho * s_max;
        while (isfinite(hi) && hi > 0.0 && (ghi = violation(e, hi)) > 0.0) hi *= 2.0;
        if (!(isfinite(hi) && hi > 0.0)) return 0;
    }
    if (!(ghi < 0.0)) return lagrangian_minimiser(e, hi, t);
    double lo, alpha = root(violation, e, 0.0, g0, hi, ghi, &lo);
    return boundary_point(e, lo, alpha, t);
}

int lucid_contact_section_minimise(int dim, const double *A, const double *gt, double mu,
                                   double *lambda) {
    int k = dim - 1;
    double trace = 0.0;
    for (int a = 0; a < dim; ++a) trace += A[a * (dim + 1)];
    /* the problem over trace(A): the same minimiser, and S's null threshold that of a unit trace */
    double ann = A[2 + 2 * dim] / trace, gn = gt[2] / trace;
    double a[MAX_TANGENT], S[MAX_TANGENT * MAX_TANGENT], V[MAX_TANGENT * MAX_TANGENT];
    double b[MAX_TANGENT], c[MAX_TANGENT], tt[MAX_TANGENT], t[MAX_TANGENT];
    section e = {.k = k, .rho = -mu * gn / ann};
    for (int i = 0; i < k; ++i) a[i] = A[TANGENT[i] + dim * 2] / trace;
    for (int j = 0; j < k; ++j)
        for (int i = 0; i < k; ++i)
            S[i + k * j] = A[TANGENT[i] + dim * TANGENT[j]] / trace - a[i] * a[j] / ann;
    for (int i = 0; i < k; ++i)
        b[i] = gt[TANGENT[i]] / trace - a[i] * gn / ann, c[i] = mu * a[i] / ann;
    lucid_contact_small_eigen(k, S, e.s, V);
    for (int j = 0; j < k; ++j) {
        if (!(e.s[j] > LUCID_CONTACT_NULL_ROW)) e.s[j] = 0.0;
        e.b[j] = e.c[j] = 0.0;
        for (int i = 0; i < k; ++i) e.b[j] += V[i + k * j] * b[i], e.c[j] += V[i + k * j] * c[i];
    }
    if (!solve_reduced(&e, tt)) return 0;
    double at = 0.0;
    for (int i = 0; i < k; ++i) {
        t[i] = 0.0;
        for (int j = 0; j < k; ++j) t[i] += V[i + k * j] * tt[j];
        at += a[i] * t[i];
    }
    for (int i = 0; i < k; ++i) lambda[TANGENT[i]] = t[i];
    lambda[2] = -(gn + at) / ann;
    return 1;
}
