/* GJK's distance sub-algorithm against a brute-force minimum-norm point: every face of the
 * simplex (all subsets), affine projection, keep those with non-negative weights, take the
 * shortest. The simplices are built the way GJK builds them: an old simplex reduced to its
 * optimal face plus a new point s with a positive Frank-Wolfe gap <x, x - s> > 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tests/c/common/test_collision_util.h"

/* Min-norm point of the affine hull of pts[mask] with weights; returns 0 if degenerate. */
static int affine_min_norm(const lucid_vec3 *pts, int n, int mask, double *lam, lucid_vec3 *p) {
    int idx[4] = {0, 0, 0, 0}, m = 0;
    for (int i = 0; i < n; ++i)
        if (mask & (1 << i)) idx[m++] = i;
    /* minimise |sum lam_i v_i|^2 s.t. sum lam = 1: Gram system on differences to v0 */
    double G[3][3], r[3], sol[3] = {0, 0, 0};
    lucid_vec3 e[3], v0 = pts[idx[0]];
    for (int i = 1; i < m; ++i) e[i - 1] = lucid_vec3_sub(pts[idx[i]], v0);
    int k = m - 1;
    for (int i = 0; i < k; ++i) {
        r[i] = -lucid_vec3_dot(e[i], v0);
        for (int j = 0; j < k; ++j) G[i][j] = lucid_vec3_dot(e[i], e[j]);
    }
    /* Gaussian elimination with partial pivoting */
    for (int c = 0; c < k; ++c) {
        int piv = c;
        for (int i = c + 1; i < k; ++i)
            if (fabs(G[i][c]) > fabs(G[piv][c])) piv = i;
        if (fabs(G[piv][c]) < 1e-14) return 0;
        for (int j = 0; j < k; ++j) {
            double t = G[c][j];
            G[c][j] = G[piv][j];
            G[piv][j] = t;
        }
        double t = r[c];
        r[c] = r[piv];
        r[piv] = t;
        for (int i = c + 1; i < k; ++i) {
            double f = G[i][c] / G[c][c];
            for (int j = c; j < k; ++j) G[i][j] -= f * G[c][j];
            r[i] -= f * r[c];
        }
    }
    for (int i = k - 1; i >= 0; --i) {
        double acc = r[i];
        for (int j = i + 1; j < k; ++j) acc -= G[i][j] * sol[j];
        sol[i] = acc / G[i][i];
    }
    *p = v0;
    double sum = 0;
    for (int i = 0; i < k; ++i) {
        *p = lucid_vec3_axpy(*p, sol[i], e[i]);
        lam[i + 1] = sol[i];
        sum += sol[i];
    }
    lam[0] = 1.0 - sum;
    for (int i = 0; i < m; ++i)
        if (lam[i] < -1e-12) return 0;
    return 1;
}

static double brute_min_norm(const lucid_vec3 *pts, int n) {
    double best = INFINITY, lam[4];
    lucid_vec3 p;
    for (int mask = 1; mask < (1 << n); ++mask)
        if (affine_min_norm(pts, n, mask, lam, &p)) best = fmin(best, lucid_vec3_norm(p));
    return best;
}

static void projection_matches_brute_force(void **state) {
    (void)state;
    uint64_t rng = 13;
    int tested[5] = {0, 0, 0, 0, 0}, inside = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        lucid_simplex s;
        s.rank = 0;
        /* grow a simplex GJK-style from random points around an offset centre */
        lucid_vec3 centre = lucid_vec3_scale(random_direction(&rng), 0.6 * uniform(&rng));
        lucid_vec3 x = lucid_vec3_zero();
        int steps = 1 + (int)(4 * uniform(&rng));
        for (int step = 0; step < steps; ++step) {
            lucid_vec3 w;
            int tries = 0;
            do {
                w = lucid_vec3_add(centre, lucid_vec3_scale(random_direction(&rng), uniform(&rng)));
            } while (s.rank > 0 && !(lucid_vec3_dot(x, lucid_vec3_sub(x, w)) > 0.0) &&
                     ++tries < 100);
            if (tries >= 100) break;
            lucid_vec3 pts[4];
            for (int i = 0; i < s.rank; ++i) pts[i] = s.v[i].w;
            pts[s.rank] = w;
            int n = s.rank + 1;
            double expect = brute_min_norm(pts, n);
            s.v[s.rank].w = s.v[s.rank].p1 = w;
            s.v[s.rank].p2 = lucid_vec3_zero();
            s.rank++;
            int in = lucid_simplex_project_origin(&s, &x);
            tested[n]++;
            /* the projection, its weights and the reduced simplex agree */
            assert_true(fabs(lucid_vec3_norm(x) - expect) <= 1e-9);
            lucid_vec3 recon = lucid_vec3_zero();
            double sum = 0.0;
            for (int i = 0; i < s.rank; ++i) {
                assert_true(s.lambda[i] > 0.0);
                recon = lucid_vec3_axpy(recon, s.lambda[i], s.v[i].w);
                sum += s.lambda[i];
            }
            assert_true(fabs(sum - 1.0) <= 1e-9);
            assert_true(lucid_vec3_dist(recon, x) <= 1e-9);
            assert_true(lucid_vec3_dist(s.v[s.rank - 1].w, w) == 0.0); /* newest kept last */
            if (in) {
                inside++;
                break;
            }
        }
    }
    for (int n = 1; n <= 4; ++n) assert_true(tested[n] > 1000);
    assert_true(inside > 100);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(projection_matches_brute_force)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
