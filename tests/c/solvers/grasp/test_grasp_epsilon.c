/* Ferrari-Canny epsilon (solvers/grasp/grasp_epsilon.h) against analytic hulls (the 6-D
 * cross-polytope and hypercube, shifted), against an independent brute-force facet enumeration
 * for real grasps, the cone edges against their definition, invariance under rigid motions and
 * scaling, non-closure grasps (epsilon exactly 0) and argument errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "solvers/grasp/grasp_epsilon.h"

static void assert_near(double a, double b, double tol) {
    if (!(fabs(a - b) <= tol)) fail_msg("%.15g != %.15g (tol %g)", a, b, tol);
}

static lucid_grasp_result hull_of(const double *w, size_t n) {
    lucid_grasp_result r;
    memset(&r, 0, sizeof(r));
    char err[256];
    assert_int_equal(lucid_grasp_hull_epsilon(w, n, &r, err, sizeof(err)), LUCID_OK);
    return r;
}

/* The 12 points +-e_i shifted by -c: the origin is at c in the cross-polytope's frame, whose
 * facets sum_i s_i x_i = 1 lie at distance (1 - s.c) / sqrt(6): epsilon = (1 - |c|_1) / sqrt 6. */
static void cross_polytope(const double c[6], double w[72]) {
    memset(w, 0, sizeof(double) * 72);
    for (int i = 0; i < 6; ++i) {
        for (int a = 0; a < 6; ++a) {
            w[6 * (2 * i) + a] = -c[a];
            w[6 * (2 * i + 1) + a] = -c[a];
        }
        w[6 * (2 * i) + i] += 1.0;
        w[6 * (2 * i + 1) + i] -= 1.0;
    }
}

static void cross_polytope_epsilon(void **state) {
    (void)state;
    double w[72], c0[6] = {0}, c1[6] = {0.3, 0, 0, 0, 0, 0}, c2[6] = {0.1, -0.2, 0, 0.05, 0, 0.1};
    cross_polytope(c0, w);
    lucid_grasp_result r = hull_of(w, 12);
    assert_true(r.force_closure);
    assert_int_equal(r.facets, 64);
    assert_near(r.epsilon, 1.0 / sqrt(6.0), 1e-14);
    cross_polytope(c1, w);
    assert_near(hull_of(w, 12).epsilon, 0.7 / sqrt(6.0), 1e-14);
    cross_polytope(c2, w);
    assert_near(hull_of(w, 12).epsilon, 0.55 / sqrt(6.0), 1e-14);
}

/* The origin outside (|c|_1 = 1.2): epsilon 0, margin = (1 - 1.2) / sqrt 6 < 0. */
static void origin_outside_is_zero(void **state) {
    (void)state;
    double w[72], c[6] = {0.5, 0.4, 0, 0, 0, -0.3};
    cross_polytope(c, w);
    lucid_grasp_result r = hull_of(w, 12);
    assert_false(r.force_closure);
    assert_false(r.degenerate);
    assert_true(r.epsilon == 0.0);
    assert_near(r.margin, -0.2 / sqrt(6.0), 1e-14);
}

/* The 64 corners of [-1, 1]^6: every facet at distance 1. */
static void hypercube_epsilon(void **state) {
    (void)state;
    double w[6 * 64];
    for (int v = 0; v < 64; ++v)
        for (int a = 0; a < 6; ++a) w[6 * v + a] = (v >> a) & 1 ? 1.0 : -1.0;
    lucid_grasp_result r = hull_of(w, 64);
    assert_int_equal(r.facets, 12);
    assert_near(r.epsilon, 1.0, 1e-14);
}

/* Flat wrench sets have no interior: epsilon 0, flagged degenerate, no error. */
static void degenerate_sets(void **state) {
    (void)state;
    double w[72], c[6] = {0};
    cross_polytope(c, w);
    for (int v = 0; v < 12; ++v) w[6 * v + 5] = 0.0; /* the hull of the first 5 axes: 5-D */
    lucid_grasp_result r = hull_of(w, 12);
    assert_true(r.degenerate);
    assert_true(r.epsilon == 0.0);
    assert_false(r.force_closure);
    r = hull_of(w, 6); /* six points: no 6-simplex */
    assert_true(r.degenerate);
}

/* Edges of one contact: unit normal force along n (into the object), tangential part of length
 * mu orthogonal to n, edges equally spaced; torques (p - c) x f times the scale. */
static void wrenches_follow_the_definition(void **state) {
    (void)state;
    double p[3] = {0.02, -0.01, 0.03}, n[3] = {1.0, 2.0, -2.0}; /* |n| = 3: normalised inside */
    lucid_grasp_options opt;
    lucid_grasp_options_default(&opt);
    opt.edges = 5;
    opt.center[0] = 0.01;
    double w[30], s = 0.0, mu = 0.4;
    assert_int_equal(lucid_grasp_wrenches(p, n, 1, mu, &opt, w, &s), LUCID_OK);
    double r[3] = {0.01, -0.01, 0.03};
    assert_near(s, 1.0 / sqrt(0.0011), 1e-12);
    double mean[3] = {0, 0, 0};
    for (int j = 0; j < 5; ++j) {
        const double *f = w + 6 * j, *tau = f + 3;
        double along = (f[0] * n[0] + f[1] * n[1] + f[2] * n[2]) / 3.0;
        assert_near(along, 1.0, 1e-14);
        double t[3] = {f[0] - n[0] / 3.0, f[1] - n[1] / 3.0, f[2] - n[2] / 3.0};
        assert_near(sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]), mu, 1e-14);
        const double *g = w + 6 * ((j + 1) % 5); /* the next edge: 72 degrees on */
        double tg[3] = {g[0] - n[0] / 3.0, g[1] - n[1] / 3.0, g[2] - n[2] / 3.0};
        double cosine = (t[0] * tg[0] + t[1] * tg[1] + t[2] * tg[2]) / (mu * mu);
        assert_near(cosine, cos(2.0 * 3.14159265358979323846 / 5.0), 1e-13);
        assert_near(tau[0], s * (r[1] * f[2] - r[2] * f[1]), 1e-13);
        assert_near(tau[1], s * (r[2] * f[0] - r[0] * f[2]), 1e-13);
        assert_near(tau[2], s * (r[0] * f[1] - r[1] * f[0]), 1e-13);
        for (int a = 0; a < 3; ++a) mean[a] += f[a] / 5.0;
    }
    for (int a = 0; a < 3; ++a) assert_near(mean[a], n[a] / 3.0, 1e-14); /* symmetric edges */
}

/* Four fingertips on a 10 cm cube: two on +x, two on -x, spread in y and z. */
static const double box_points[12] = {0.05,  0.02, 0.01,  0.05,  -0.02, -0.01,
                                      -0.05, 0.02, -0.01, -0.05, -0.02, 0.01};
static const double box_normals[12] = {-1, 0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0};

/* Solves the 6 x 6 system A a = b (rows of A: points) by Gaussian elimination with partial
 * pivoting; 0 when singular. */
static int solve6(double A[6][6], double b[6], double a[6]) {
    for (int col = 0; col < 6; ++col) {
        int pivot = col;
        for (int r = col + 1; r < 6; ++r)
            if (fabs(A[r][col]) > fabs(A[pivot][col])) pivot = r;
        if (fabs(A[pivot][col]) < 1e-10) return 0;
        for (int c = 0; c < 6; ++c) {
            double tmp = A[col][c];
            A[col][c] = A[pivot][c];
            A[pivot][c] = tmp;
        }
        double tb = b[col];
        b[col] = b[pivot];
        b[pivot] = tb;
        for (int r = col + 1; r < 6; ++r) {
            double f = A[r][col] / A[col][col];
            for (int c = col; c < 6; ++c) A[r][c] -= f * A[col][c];
            b[r] -= f * b[col];
        }
    }
    for (int r = 5; r >= 0; --r) {
        double s = b[r];
        for (int c = r + 1; c < 6; ++c) s -= A[r][c] * a[c];
        a[r] = s / A[r][r];
    }
    return 1;
}

/* Independent epsilon for an origin inside the hull: every hyperplane a.w = 1 through 6 of
 * the points that no point exceeds supports a facet, at distance 1 / |a| from the origin. */
static double brute_force_epsilon(const double *w, int n) {
    double best = HUGE_VAL;
    int idx[6] = {0, 1, 2, 3, 4, 5};
    for (;;) {
        double A[6][6], b[6] = {1, 1, 1, 1, 1, 1}, a[6];
        for (int r = 0; r < 6; ++r)
            for (int c = 0; c < 6; ++c) A[r][c] = w[6 * idx[r] + c];
        if (solve6(A, b, a)) {
            int supporting = 1;
            for (int j = 0; j < n && supporting; ++j) {
                double v = 0.0;
                for (int c = 0; c < 6; ++c) v += a[c] * w[6 * j + c];
                if (v > 1.0 + 1e-9) supporting = 0;
            }
            double norm = 0.0;
            for (int c = 0; c < 6; ++c) norm += a[c] * a[c];
            if (supporting) best = fmin(best, 1.0 / sqrt(norm));
        }
        int i = 5; /* next 6-subset in lexicographic order */
        while (i >= 0 && idx[i] == n - 6 + i) --i;
        if (i < 0) return best;
        ++idx[i];
        for (int j = i + 1; j < 6; ++j) idx[j] = idx[j - 1] + 1;
    }
}

static void box_grasp_matches_brute_force(void **state) {
    (void)state;
    lucid_grasp_options opt;
    lucid_grasp_options_default(&opt);
    opt.edges = 5;
    double w[6 * 20], s;
    assert_int_equal(lucid_grasp_wrenches(box_points, box_normals, 4, 0.5, &opt, w, &s), LUCID_OK);
    lucid_grasp_result r;
    assert_int_equal(lucid_grasp_epsilon(box_points, box_normals, 4, 0.5, &opt, &r, NULL, 0),
                     LUCID_OK);
    assert_true(r.force_closure);
    assert_true(r.epsilon > 0.05);
    assert_near(r.epsilon, brute_force_epsilon(w, 20), 1e-12);
    assert_near(r.torque_scale, s, 0.0);
}

/* Scaling the grasp leaves epsilon unchanged (default torque scale); so does a rigid motion of
 * the grasp and its centre that maps the linearised cones onto themselves: the normals here are
 * +-x, and a turn by 3 edges (3 * 2 pi / 8) about x permutes each cone's 8 edges. */
static void invariant_under_motion_and_scale(void **state) {
    (void)state;
    lucid_grasp_options opt;
    lucid_grasp_options_default(&opt);
    lucid_grasp_result r0, r1;
    assert_int_equal(lucid_grasp_epsilon(box_points, box_normals, 4, 0.5, &opt, &r0, NULL, 0),
                     LUCID_OK);
    double scaled[12];
    for (int i = 0; i < 12; ++i) scaled[i] = 3.5 * box_points[i];
    assert_int_equal(lucid_grasp_epsilon(scaled, box_normals, 4, 0.5, &opt, &r1, NULL, 0),
                     LUCID_OK);
    assert_near(r1.epsilon, r0.epsilon, 1e-13);
    double angle = 3.0 * 2.0 * 3.14159265358979323846 / 8.0, c = cos(angle), s = sin(angle);
    double P[12], N[12], t[3] = {0.3, -1.0, 2.0};
    for (int i = 0; i < 4; ++i) {
        const double *p = box_points + 3 * i, *n = box_normals + 3 * i;
        P[3 * i] = p[0] + t[0];
        P[3 * i + 1] = c * p[1] - s * p[2] + t[1];
        P[3 * i + 2] = s * p[1] + c * p[2] + t[2];
        N[3 * i] = n[0];
        N[3 * i + 1] = c * n[1] - s * n[2];
        N[3 * i + 2] = s * n[1] + c * n[2];
    }
    memcpy(opt.center, t, sizeof(t));
    assert_int_equal(lucid_grasp_epsilon(P, N, 4, 0.5, &opt, &r1, NULL, 0), LUCID_OK);
    assert_near(r1.epsilon, r0.epsilon, 1e-12);
    /* a turn by half an edge is no symmetry of the cones: epsilon changes, by less than the
     * polygon's inscribed-circle ratio allows (the cones stay between radius mu cos(pi/8) and
     * mu) */
    angle = 3.14159265358979323846 / 8.0, c = cos(angle), s = sin(angle);
    for (int i = 0; i < 4; ++i) {
        const double *p = box_points + 3 * i, *n = box_normals + 3 * i;
        P[3 * i] = p[0];
        P[3 * i + 1] = c * p[1] - s * p[2];
        P[3 * i + 2] = s * p[1] + c * p[2];
        N[3 * i + 1] = c * n[1] - s * n[2];
        N[3 * i + 2] = s * n[1] + c * n[2];
    }
    memset(opt.center, 0, sizeof(opt.center));
    assert_int_equal(lucid_grasp_epsilon(P, N, 4, 0.5, &opt, &r1, NULL, 0), LUCID_OK);
    assert_true(fabs(r1.epsilon - r0.epsilon) > 1e-9);
    assert_true(fabs(r1.epsilon - r0.epsilon) < 0.1 * r0.epsilon);
}

/* Not force closure: two antipodal fingertips (no torque about their axis: 5-D), three
 * fingertips pressing one face (every force has f_z = -1: flat), and frictionless fingertips on
 * opposite faces plus a tilted one (full-dimensional, origin outside): epsilon is exactly 0. */
static void non_closure_grasps_are_zero(void **state) {
    (void)state;
    lucid_grasp_options opt;
    lucid_grasp_options_default(&opt);
    lucid_grasp_result r;
    double p2[6] = {0.05, 0, 0, -0.05, 0, 0}, n2[6] = {-1, 0, 0, 1, 0, 0};
    assert_int_equal(lucid_grasp_epsilon(p2, n2, 2, 0.8, &opt, &r, NULL, 0), LUCID_OK);
    assert_true(r.epsilon == 0.0 && r.degenerate && !r.force_closure);
    double p3[9] = {0, 0, 0.05, 0.02, 0, 0.05, 0, 0.02, 0.05},
           n3[9] = {0, 0, -1, 0, 0, -1, 0, 0, -1};
    assert_int_equal(lucid_grasp_epsilon(p3, n3, 3, 0.8, &opt, &r, NULL, 0), LUCID_OK);
    assert_true(r.epsilon == 0.0 && !r.force_closure);
    /* every normal force has a positive x or z component and the friction cone (mu = 0.2) is too
     * narrow to pull back: the origin is strictly outside */
    double p4[12] = {-0.05, 0.01, 0, -0.05, -0.01, 0.02, 0, 0, -0.05, 0.01, 0.02, -0.05};
    double n4[12] = {1, 0, 0, 1, 0, 0.1, 0.1, 0, 1, 0, 0.1, 1};
    assert_int_equal(lucid_grasp_epsilon(p4, n4, 4, 0.2, &opt, &r, NULL, 0), LUCID_OK);
    assert_true(r.epsilon == 0.0 && !r.force_closure && !r.degenerate);
    assert_true(r.margin < 0.0);
}

static void cross(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Soft fingers: each of the 3 m + 2 wrenches of a contact has unit normal force and lies on
 * the friction ellipsoid |f_T|^2 / mu^2 + tau^2 / gamma^2 = 1, its torque being
 * s (r x f + tau n); the rings sit at latitudes -pi/4, 0, pi/4 and the poles at -+gamma. */
static void soft_finger_wrenches_follow_the_definition(void **state) {
    (void)state;
    lucid_grasp_options opt;
    lucid_grasp_options_default(&opt);
    opt.edges = 5;
    opt.torsion = 0.01;
    opt.torque_scale = 7.0;
    opt.center[1] = 0.2;
    assert_int_equal((int)lucid_grasp_contact_wrenches(&opt), 17);
    const double p[3] = {0.1, -0.2, 0.3}, n[3] = {0.0, 0.6, 0.8}, mu = 0.4;
    double w[6 * 17], s;
    assert_int_equal(lucid_grasp_wrenches(p, n, 1, mu, &opt, w, &s), LUCID_OK);
    const double r[3] = {p[0], p[1] - 0.2, p[2]};
    for (int j = 0; j < 17; ++j) {
        const double *f = w + 6 * j;
        double ft[3], rf[3], tau_v[3];
        assert_near(f[0] * n[0] + f[1] * n[1] + f[2] * n[2], 1.0, 1e-14);
        for (int a = 0; a < 3; ++a) ft[a] = f[a] - n[a];
        cross(r, f, rf);
        for (int a = 0; a < 3; ++a) tau_v[a] = f[3 + a] / s - rf[a];
        double tau = tau_v[0] * n[0] + tau_v[1] * n[1] + tau_v[2] * n[2];
        for (int a = 0; a < 3; ++a) assert_near(tau_v[a], tau * n[a], 1e-14); /* along n */
        double t2 = ft[0] * ft[0] + ft[1] * ft[1] + ft[2] * ft[2];
        assert_near(t2 / (mu * mu) + tau * tau / (opt.torsion * opt.torsion), 1.0, 1e-12);
        double want = j < 5 ? -sqrt(0.5) : j < 10 ? 0.0 : j < 15 ? sqrt(0.5) : j == 15 ? -1 : 1;
        assert_near(tau / opt.torsion, want, 1e-12);
    }
}

/* Two antipodal fingertips resist no torque about their axis as point contacts (epsilon 0)
 * but do as soft fingers: epsilon equals the brute-force facet enumeration's. On the box grasp
 * each gamma's hull contains the smaller gammas' (a ring's point is a convex combination of the
 * +-pi/4 rings' at a larger gamma, the equator is kept), so epsilon, from the point contacts'
 * value, never falls, and rises well above it once torsion is what limited it. */
static void soft_fingers_resist_torsion(void **state) {
    (void)state;
    lucid_grasp_options opt;
    lucid_grasp_options_default(&opt);
    opt.edges = 3;
    opt.torsion = 0.01;
    double p2[6] = {0.05, 0, 0, -0.05, 0, 0}, n2[6] = {-1, 0, 0, 1, 0, 0}, w[6 * 22], s;
    lucid_grasp_result r;
    assert_int_equal(lucid_grasp_epsilon(p2, n2, 2, 0.8, &opt, &r, NULL, 0), LUCID_OK);
    assert_true(r.force_closure && !r.degenerate);
    assert_int_equal(lucid_grasp_wrenches(p2, n2, 2, 0.8, &opt, w, &s), LUCID_OK);
    assert_near(r.epsilon, brute_force_epsilon(w, 22), 1e-12);
    double eps[5];
    const double gammas[5] = {0.0, 0.002, 0.01, 0.05, 0.2};
    for (int g = 0; g < 5; ++g) {
        lucid_grasp_options_default(&opt);
        opt.torsion = gammas[g];
        assert_int_equal(lucid_grasp_epsilon(box_points, box_normals, 4, 0.5, &opt, &r, NULL, 0),
                         LUCID_OK);
        assert_true(r.force_closure);
        eps[g] = r.epsilon;
        if (g > 0) assert_true(eps[g] >= eps[g - 1] - 1e-12);
    }
    assert_true(eps[3] > 1.5 * eps[0]); /* torsion, not friction, bounded the box grasp */
}

static void bad_arguments_are_errors(void **state) {
    (void)state;
    lucid_grasp_options opt;
    lucid_grasp_options_default(&opt);
    lucid_grasp_result r;
    double zero[12] = {0};
    assert_int_equal(lucid_grasp_epsilon(box_points, box_normals, 0, 0.5, &opt, &r, NULL, 0),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_grasp_epsilon(box_points, box_normals, 4, -0.1, &opt, &r, NULL, 0),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_grasp_epsilon(box_points, zero, 4, 0.5, &opt, &r, NULL, 0),
                     LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_grasp_epsilon(box_points, box_normals, 4, NAN, &opt, &r, NULL, 0),
                     LUCID_ERR_NONFINITE);
    opt.edges = 2;
    assert_int_equal(lucid_grasp_epsilon(box_points, box_normals, 4, 0.5, &opt, &r, NULL, 0),
                     LUCID_ERR_ARGUMENT);
    lucid_grasp_options_default(&opt);
    opt.torque_scale = -1.0;
    assert_int_equal(lucid_grasp_epsilon(box_points, box_normals, 4, 0.5, &opt, &r, NULL, 0),
                     LUCID_ERR_ARGUMENT);
    opt.torque_scale = 0.0;
    opt.torsion = -0.01;
    assert_int_equal(lucid_grasp_epsilon(box_points, box_normals, 4, 0.5, &opt, &r, NULL, 0),
                     LUCID_ERR_ARGUMENT);
    opt.torsion = NAN;
    assert_int_equal(lucid_grasp_epsilon(box_points, box_normals, 4, 0.5, &opt, &r, NULL, 0),
                     LUCID_ERR_NONFINITE);
    /* each option's rule is lucid_grasp_option_table's, named in err */
    static const struct {
        int edges;
        double center_x, torque_scale, torsion;
        lucid_status status;
        const char *rule;
    } bad[] = {
        {2, 0.0, 0.0, 0.0, LUCID_ERR_ARGUMENT, "edges must be an integer in [3, 64]"},
        {65, 0.0, 0.0, 0.0, LUCID_ERR_ARGUMENT, "edges must be an integer in [3, 64]"},
        {8, INFINITY, 0.0, 0.0, LUCID_ERR_NONFINITE, "center must be finite"},
        {8, 0.0, -1e-12, 0.0, LUCID_ERR_ARGUMENT, "torque_scale must be > 0 (or 0: automatic"},
        {8, 0.0, NAN, 0.0, LUCID_ERR_NONFINITE, "torque_scale must be > 0 (or 0: automatic"},
        {8, 0.0, 0.0, -1e-12, LUCID_ERR_ARGUMENT, "torsion must be >= 0"},
        {8, 0.0, 0.0, INFINITY, LUCID_ERR_NONFINITE, "torsion must be >= 0"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
        char err[160] = "";
        lucid_grasp_options_default(&opt);
        opt.edges = bad[i].edges;
        opt.center[0] = bad[i].center_x;
        opt.torque_scale = bad[i].torque_scale;
        opt.torsion = bad[i].torsion;
        double wr[6 * 4 * 65], s;
        assert_int_equal(lucid_grasp_wrenches(box_points, box_normals, 4, 0.5, &opt, wr, &s),
                         bad[i].status);
        assert_int_equal(
            lucid_grasp_epsilon(box_points, box_normals, 4, 0.5, &opt, &r, err, sizeof err),
            bad[i].status);
        assert_non_null(strstr(err, bad[i].rule));
    }
    double w[12] = {INFINITY};
    assert_int_equal(lucid_grasp_hull_epsilon(w, 2, &r, NULL, 0), LUCID_ERR_NONFINITE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cross_polytope_epsilon),
        cmocka_unit_test(origin_outside_is_zero),
        cmocka_unit_test(hypercube_epsilon),
        cmocka_unit_test(degenerate_sets),
        cmocka_unit_test(wrenches_follow_the_definition),
        cmocka_unit_test(box_grasp_matches_brute_force),
        cmocka_unit_test(invariant_under_motion_and_scale),
        cmocka_unit_test(non_closure_grasps_are_zero),
        cmocka_unit_test(soft_finger_wrenches_follow_the_definition),
        cmocka_unit_test(soft_fingers_resist_torsion),
        cmocka_unit_test(bad_arguments_are_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
