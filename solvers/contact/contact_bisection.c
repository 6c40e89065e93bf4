/* RaiSim's per-contact solver (Alg. 5; Hwangbo et al. 2018). For each contact, with the
 * other contacts frozen, the velocity it would have without its own impulse is
 * gt = sigma_i - A_ii lambda_i (A = G + R). Three modes are guessed from the disjunctive law:
 *   take-off  gt_N > 0                   -> lambda_i = 0
 *   stiction  l0 = -A_ii^{-1} gt in K_mu -> lambda_i = l0 (zero velocity)
 *   sliding   otherwise                  -> minimise 1/2 l^T A_ii l + gt^T l on K_mu cut by
 *             the plane of zero normal velocity (23): at dim 3 an ellipse (or an unbounded
 *             conic section), at dims 4 and 6 (torsional and rolling friction: more
 *             tangential rows of the same cone) an ellipsoid. A convex problem, solved exactly
 *             at every dim by lucid_contact_section_minimise through its Lagrangian dual
 *             (contact_section.h): RaiSim's bisection on the ellipse's angle needs a bracket
 *             of the global minimum of f along the boundary, where f can have two local
 *             minima, and no finite scan of angles guarantees one. The stiction guess
 *             inverts the block (through its eigenvalues at dims 4 and 6).
 * RaiSim's model has no complementarity form of its own (it relaxes the MDP, Eq. 24), so its
 * criterion is the fixed point of the per-contact map T, as the paper allows:
 *   primal = max_i dist(lambda_i, K), dual = max_i ||T_i(lambda) - lambda_i||_inf (an impulse),
 *   complementarity = max_i |lambda_N,i sigma_N,i| (Signorini, which the model keeps);
 * the NCP criterion is reported beside it like for every model. */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "runtime/math/mat3.h"
#include "solvers/contact/contact_cone.h"
#include "solvers/contact/contact_internal.h"
#include "solvers/contact/contact_null_rows.h"
#include "solvers/contact/contact_section.h"

typedef struct block3 {
    lucid_mat3 A; /* diagonal block of G + R */
    lucid_vec3 gt;
    double mu;
} block3;

/* The minimiser of (23) on the section (contact_section.h); the cone projection of l0 where f
 * has none there (unbounded below on an unbounded section) or the plane does not cut the cone
 * (A_NN = 0). */
static lucid_vec3 solve_sliding(const block3 *e, lucid_vec3 l0) {
    double gt[3] = {e->gt.x, e->gt.y, e->gt.z}, x[3] = {l0.x, l0.y, l0.z}, l[3];
    if (!(lucid_mat3_at(&e->A, 2, 2) > 0.0) ||
        !lucid_contact_section_minimise(3, e->A.m, gt, e->mu, l))
        lucid_cone_project(e->mu, x, l);
    return lucid_vec3_load(l);
}

static lucid_mat3 diagonal_block(const lucid_contact_problem *p, int i) {
    long m = 3L * p->n;
    lucid_mat3 A;
    for (int b = 0; b < 3; ++b)
        for (int a = 0; a < 3; ++a)
            A.m[a + 3 * b] =
                p->G[(3 * i + a) + m * (3 * i + b)] + (a == b && p->R ? p->R[3 * i + a] : 0.0);
    return A;
}

/* Eigenvalues w and eigenvectors (the columns of V) of the symmetric S by cyclic Jacobi
 * rotations, until the off-diagonal sum is below DBL_EPSILON of the diagonal's: the
 * eigenvalues are then within that of S's (Weyl), far below the null-direction threshold. */
static void symmetric_eigen(lucid_mat3 S, double w[3], lucid_mat3 *V) {
    static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    *V = lucid_mat3_identity();
    for (int sweep = 0; sweep < 32; ++sweep) { /* quadratic: a few sweeps reach round-off */
        double off = fabs(S.m[3]) + fabs(S.m[6]) + fabs(S.m[7]);
        if (!(off > DBL_EPSILON * (fabs(S.m[0]) + fabs(S.m[4]) + fabs(S.m[8])))) break;
        for (int r = 0; r < 3; ++r) {
            int p = pairs[r][0], q = pairs[r][1];
            double apq = S.m[p + 3 * q];
            if (apq == 0.0) continue;
            double theta = (S.m[q + 3 * q] - S.m[p + 3 * p]) / (2.0 * apq);
            double t = copysign(1.0, theta) / (fabs(theta) + hypot(theta, 1.0));
            double c = 1.0 / hypot(t, 1.0), sn = t * c;
            for (int k = 0; k < 3; ++k) { /* S J, then J^T (S J), and V J */
                double a = S.m[k + 3 * p], b = S.m[k + 3 * q];
                S.m[k + 3 * p] = c * a - sn * b, S.m[k + 3 * q] = sn * a + c * b;
            }
            for (int k = 0; k < 3; ++k) {
                double a = S.m[p + 3 * k], b = S.m[q + 3 * k];
                S.m[p + 3 * k] = c * a - sn * b, S.m[q + 3 * k] = sn * a + c * b;
            }
            for (int k = 0; k < 3; ++k) {
                double a = V->m[k + 3 * p], b = V->m[k + 3 * q];
                V->m[k + 3 * p] = c * a - sn * b, V->m[k + 3 * q] = sn * a + c * b;
            }
        }
    }
    w[0] = S.m[0], w[1] = S.m[4], w[2] = S.m[8];
}

/* The inverse the stiction guess l0 = -A^-1 gt uses, and whether that guess stops the contact
 * (*stops). A regular block: its inverse, scaled by its trace first (lucid_mat3_inverse's
 * absolute determinant floor would reject a well-conditioned block of tiny entries, 1e-300 I).
 * A singular one: a force along a null direction of the PSD block A = J_i M^-1 J_i^T + R_i
 * (l^T A l = 0, so J_i^T l = 0 and R_i l = 0) moves no body (a single hinge's contact moves
 * along one direction, a turntable's tangents along one). As for a null row
 * (contact_null_rows.h) those directions (eigenvalues at most LUCID_CONTACT_NULL_ROW of the
 * trace) get the compliance trace(A), which selects their least force; the guess stops the
 * contact only when gt has no component along them (none beyond its round-off): no force can
 * remove one, so the contact slides or takes off. Without this the map was undefined and the
 * contact kept its force: a pendulum fell through its floor. 0 when the block is null. */
static int block_inverse(const lucid_mat3 *A, lucid_vec3 gt, lucid_mat3 *inverse, int *stops) {
    double trace = lucid_mat3_at(A, 0, 0) + lucid_mat3_at(A, 1, 1) + lucid_mat3_at(A, 2, 2);
    if (!(trace > 0.0) || !lucid_mat3_isfinite(A)) return 0;
    lucid_mat3 scaled = lucid_mat3_scale(A, 1.0 / trace), V; /* eigenvalues in [0, 1] */
    *stops = 1;
    if (lucid_mat3_inverse(&scaled, inverse)) {
        *inverse = lucid_mat3_scale(inverse, 1.0 / trace);
        return 1;
    }
    double w[3], round_off = LUCID_CONTACT_NULL_ROW * lucid_vec3_norm(gt);
    symmetric_eigen(scaled, w, &V);
    *inverse = lucid_mat3_zero();
    for (int k = 0; k < 3; ++k) {
        lucid_vec3 v = lucid_mat3_col(&V, k);
        if (w[k] <= LUCID_CONTACT_NULL_ROW) {
            w[k] = 1.0;
            if (fabs(lucid_vec3_dot(v, gt)) > round_off) *stops = 0;
        }
        lucid_mat3 term = lucid_mat3_outer(v, lucid_vec3_scale(v, 1.0 / (w[k] * trace)));
        *inverse = lucid_mat3_add(inverse, &term);
    }
    return 1;
}

/* T_i(lambda); *ok = 0 when the block is singular and T_i is undefined (lambda_i is kept). */
static lucid_vec3 update_contact(const lucid_contact_problem *p, int i, const double *sigma,
                                 const double *lambda, int *ok) {
    block3 e = {diagonal_block(p, i), lucid_vec3_zero(), p->mu[i]};
    lucid_vec3 li = lucid_vec3_load(lambda + 3 * i);
    e.gt = lucid_vec3_sub(lucid_vec3_load(sigma + 3 * i), lucid_mat3_mul_vec(&e.A, li));
    if (e.gt.z > 0.0) return lucid_vec3_zero(); /* take-off */
    lucid_mat3 inverse;
    int stops;
    *ok = 1;
    if (!block_inverse(&e.A, e.gt, &inverse, &stops)) {
        *ok = 0;
        return li;
    }
    lucid_vec3 l0 = lucid_vec3_neg(lucid_mat3_mul_vec(&inverse, e.gt));
    if (stops && hypot(l0.x, l0.y) <= e.mu * l0.z) return l0; /* stiction */
    if (e.mu == 0.0) return lucid_vec3_make(0.0, 0.0, fmax(0.0, -e.gt.z / e.A.m[8]));
    return solve_sliding(&e, l0);
}

/* The block of contact i of a problem of dim rows (dim x dim, column-major). */
static void block_n(const lucid_contact_problem *p, int dim, int i, double *A) {
    for (int b = 0; b < dim; ++b)
        for (int a = 0; a < dim; ++a)
            A[a + dim * b] = lucid_contact_entry(p, dim * i + a, dim * i + b);
}

/* The stiction guess l0 = -A^-1 gt of a block of dim 4 or 6 through the eigenvalues of A /
 * trace(A), with block_inverse's rule for its null directions (compliance trace(A), and *stops
 * = 0 when gt has a component along one beyond its round-off); 0 when the block is null. */
static int stiction_guess_n(int dim, const double *A, const double *gt, double *l0, int *stops) {
    double trace = 0.0, S[36], w[6], V[36], round_off = 0.0;
    for (int a = 0; a < dim; ++a) trace += A[a * (dim + 1)], round_off = hypot(round_off, gt[a]);
    if (!(trace > 0.0) || !isfinite(trace)) return 0;
    for (int a = 0; a < dim * dim; ++a) S[a] = A[a] / trace;
    lucid_contact_small_eigen(dim, S, w, V);
    round_off *= LUCID_CONTACT_NULL_ROW, *stops = 1;
    for (int a = 0; a < dim; ++a) l0[a] = 0.0;
    for (int k = 0; k < dim; ++k) {
        const double *v = V + dim * k;
        double vg = 0.0;
        for (int a = 0; a < dim; ++a) vg += v[a] * gt[a];
        if (w[k] <= LUCID_CONTACT_NULL_ROW) {
            w[k] = 1.0;
            if (fabs(vg) > round_off) *stops = 0;
        }
        for (int a = 0; a < dim; ++a) l0[a] -= v[a] * vg / (w[k] * trace);
    }
    return 1;
}

/* T_i(lambda) of a contact of dim 4 or 6, the modes of update_contact: take-off, stiction (l0 in
 * K_mu), or the minimiser of (23) (contact_section.h; the cone projection of l0 where f has none
 * on the section, as at dim 3). *ok = 0 when the block is null
 * (out = lambda_i). */
static void update_contact_n(const lucid_contact_problem *p, int dim, int i, const double *sigma,
                             const double *lambda, double *out, int *ok) {
    double A[36], gt[6], l0[6];
    const double *li = lambda + dim * i, mu = p->mu[i];
    block_n(p, dim, i, A);
    for (int a = 0; a < dim; ++a) {
        gt[a] = sigma[dim * i + a];
        for (int b = 0; b < dim; ++b) gt[a] -= A[a + dim * b] * li[b];
    }
    *ok = 1;
    for (int a = 0; a < dim; ++a) out[a] = 0.0;
    if (gt[2] > 0.0) return; /* take-off */
    int stops;
    if (!stiction_guess_n(dim, A, gt, l0, &stops)) {
        *ok = 0;
        for (int a = 0; a < dim; ++a) out[a] = li[a];
        return;
    }
    if (stops && lucid_cone_n_tangent_norm(dim, l0) <= mu * l0[2]) { /* stiction */
        for (int a = 0; a < dim; ++a) out[a] = l0[a];
        return;
    }
    if (mu == 0.0) {
        out[2] = fmax(0.0, -gt[2] / A[2 + 2 * dim]);
        return;
    }
    if (!lucid_contact_section_minimise(dim, A, gt, mu, out))
        lucid_cone_n_project(dim, mu, l0, out);
}

/* T_i(lambda) in out (dim entries) for any dim; *ok as above. */
static void contact_map(const lucid_contact_problem *p, int dim, int i, const double *sigma,
                        const double *lambda, double *out, int *ok) {
    if (dim > 3) {
        update_contact_n(p, dim, i, sigma, lambda, out, ok);
        return;
    }
    lucid_vec3 l = update_contact(p, i, sigma, lambda, ok);
    out[0] = l.x, out[1] = l.y, out[2] = l.z;
}

static double scaled(double value, double scale) {
    return scale > 0.0 ? value / scale : value;
}

/* The RaiSim fixed-point criterion (above) and the NCP criterion; 1 when converged. */
static int check(lucid_contact_run *run, const double *lambda, const double *sigma) {
    const lucid_contact_problem *p = run->p;
    double ep = 0.0, fixed = 0.0, ec = 0.0, force = 0.0, velocity = 0.0;
    int dim = lucid_contact_dim(p);
    for (int i = 0; dim > 3 && i < p->n; ++i) {
        const double *l = lambda + dim * i;
        double t[6], moved = 0.0;
        int ok = 1;
        update_contact_n(p, dim, i, sigma, lambda, t, &ok);
        for (int a = 0; a < dim; ++a) { /* NaN, like a null block, is no fixed point */
            double d = fabs(t[a] - l[a]);
            moved = isnan(d) || isnan(moved) ? NAN : fmax(moved, d);
        }
        fixed = ok && !isnan(moved) ? fmax(fixed, moved) : INFINITY;
        ep = fmax(ep, lucid_cone_n_distance(dim, p->mu[i], l));
        ec = fmax(ec, fabs(l[2] * sigma[dim * i + 2]));
        for (int a = 0; a < dim; ++a)
            force = fmax(force, fabs(l[a])), velocity = fmax(velocity, fabs(sigma[dim * i + a]));
    }
    for (int i = 0; dim == 3 && i < p->n; ++i) {
        const double *l = lambda + 3 * i;
        int ok = 1;
        lucid_vec3 t = update_contact(p, i, sigma, lambda, &ok);
        /* no map, no fixed point: a null block must not read as converged */
        double moved = ok ? lucid_vec3_max_abs(lucid_vec3_sub(t, lucid_vec3_load(l))) : INFINITY;
        fixed = isnan(moved) ? INFINITY : fmax(fixed, moved);
        ep = fmax(ep, lucid_cone_distance(p->mu[i], l));
        ec = fmax(ec, fabs(l[2] * sigma[3 * i + 2]));
        for (int a = 0; a < 3; ++a)
            force = fmax(force, fabs(l[a])), velocity = fmax(velocity, fabs(sigma[3 * i + a]));
    }
    lucid_contact_criteria *c = &run->result->model;
    c->primal = ep, c->dual = fixed, c->complementarity = ec;
    c->abs = fmax(ep, fmax(fixed, ec));
    c->primal_scaled = scaled(ep, force), c->dual_scaled = scaled(fixed, force);
    c->complementarity_scaled = scaled(ec, force * velocity);
    c->scaled = fmax(c->primal_scaled, fmax(c->dual_scaled, c->complementarity_scaled));
    lucid_contact_criteria_eval(p, LUCID_CRITERION_NCP, lambda, sigma, NULL, &run->result->ncp);
    return c->abs <= run->o->tol;
}

lucid_status lucid_contact_solve_bisection(lucid_contact_run *run, double *lambda) {
    const lucid_contact_problem *p = run->p;
    const lucid_contact_options *o = run->o;
    if (o->check_psd) {
        lucid_status status = lucid_contact_check_psd(run);
        if (status != LUCID_OK) return status;
    }
    int dim = lucid_contact_dim(p);
    long m = (long)dim * p->n;
    double *sigma = run->ws->vec[0];
    lucid_contact_velocity(p, lambda, sigma);
    if (check(run, lambda, sigma)) {
        run->result->converged = 1;
        return LUCID_OK;
    }
    for (int k = 1; k <= o->max_iter; ++k) {
        double change = 0.0;
        for (int i = 0; i < p->n; ++i) {
            int ok = 1;
            double l[6], delta[6];
            contact_map(p, dim, i, sigma, lambda, l, &ok);
            for (int a = 0; a < dim; ++a) delta[a] = l[a] - lambda[dim * i + a];
            for (int a = 0; a < dim; ++a) {
                lambda[dim * i + a] += delta[a];
                change = fmax(change, fabs(delta[a]));
                if (delta[a] == 0.0) continue;
                const double *column = p->G + m * (dim * i + a);
                for (long r = 0; r < m; ++r) sigma[r] += column[r] * delta[a];
                if (p->R) sigma[dim * i + a] += p->R[dim * i + a] * delta[a];
            }
        }
        run->result->iterations = k;
        if (check(run, lambda, sigma)) {
            run->result->converged = 1;
            break;
        }
        if (lucid_contact_stalled(change, lucid_contact_max_abs(lambda, m), o->stall_tol)) {
            run->result->stalled = 1;
            break;
        }
    }
    lucid_contact_velocity(p, lambda, sigma);
    run->result->converged = check(run, lambda, sigma);
    return LUCID_OK;
}
