/* SE(3): exp/log against an independent 4x4 matrix exponential, Jacobians against finite
 * differences of their defining relations, adjoint, group invariants, quaternions, input
 * validation and random poses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/math/rng.h"
#include "runtime/math/se3.h"
#include "runtime/math/so3.h"

static const double PI = 3.14159265358979323846;

#include "tests/c/common/test_assert.h"
static void assert_array_close(const double *a, const double *b, int n, double tol) {
    for (int k = 0; k < n; ++k) assert_close(a[k], b[k], tol);
}
static void assert_pose_close(const lucid_se3 *A, const lucid_se3 *B, double tol) {
    assert_array_close(A->R.m, B->R.m, 9, tol);
    assert_close(A->t.x, B->t.x, tol);
    assert_close(A->t.y, B->t.y, tol);
    assert_close(A->t.z, B->t.z, tol);
}

static lucid_vec3 random_unit(lucid_rng *rng) {
    return lucid_vec3_normalized(
        lucid_vec3_make(lucid_rng_normal(rng), lucid_rng_normal(rng), lucid_rng_normal(rng)));
}
/* A twist with rotation angle `angle` and a random linear part of size ~1. */
static void random_twist(lucid_rng *rng, double angle, double xi[6]) {
    for (int k = 0; k < 3; ++k) xi[k] = lucid_rng_normal(rng);
    lucid_vec3_store(lucid_vec3_scale(random_unit(rng), angle), xi + 3);
}

/* exp of the 4x4 matrix [[hat(w), v], [0, 0]] by scaling and squaring of its Taylor series:
 * an independent reference for lucid_se3_exp. Column-major 4x4. */
static void mat4_mul(const double *A, const double *B, double *C) {
    double out[16];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            double s = 0.0;
            for (int k = 0; k < 4; ++k) s += A[i + 4 * k] * B[k + 4 * j];
            out[i + 4 * j] = s;
        }
    memcpy(C, out, sizeof out);
}
static lucid_se3 reference_exp(const double xi[6]) {
    lucid_mat3 W = lucid_mat3_hat(lucid_vec3_load(xi + 3));
    double X[16] = {0};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) X[i + 4 * j] = W.m[i + 3 * j];
        X[i + 12] = xi[i];
    }
    const int squarings = 10;
    for (int k = 0; k < 16; ++k) X[k] /= 1024.0;
    double E[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, term[16];
    memcpy(term, E, sizeof term);
    for (int n = 1; n <= 20; ++n) {
        mat4_mul(term, X, term);
        for (int k = 0; k < 16; ++k) term[k] /= n;
        for (int k = 0; k < 16; ++k) E[k] += term[k];
    }
    for (int s = 0; s < squarings; ++s) mat4_mul(E, E, E);
    lucid_se3 T;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) T.R.m[i + 3 * j] = E[i + 4 * j];
    T.t = lucid_vec3_make(E[12], E[13], E[14]);
    return T;
}

static const double EDGE_ANGLES[] = {0.0,      1e-12, 1e-8, 0.4,       0.999999,
                                     1.000001, 2.0,   3.0,  PI - 1e-6, PI - 1e-9};
enum { N_EDGE = sizeof EDGE_ANGLES / sizeof EDGE_ANGLES[0] };

static void exp_matches_the_matrix_exponential(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 11);
    for (int i = 0; i < N_EDGE; ++i)
        for (int n = 0; n < 5; ++n) {
            double xi[6];
            random_twist(&rng, EDGE_ANGLES[i], xi);
            lucid_se3 T = lucid_se3_exp(xi), ref = reference_exp(xi);
            assert_pose_close(&T, &ref, 1e-12);
        }
    /* Pure translation */
    double xi[6] = {1.5, -2, 3, 0, 0, 0};
    lucid_se3 T = lucid_se3_exp(xi);
    lucid_mat3 I = lucid_mat3_identity();
    assert_array_close(T.R.m, I.m, 9, 0.0);
    assert_array_close(&T.t.x, xi, 1, 0.0);
    assert_close(T.t.y, -2, 0.0);
    assert_close(T.t.z, 3, 0.0);
}

static void log_inverts_exp(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 12);
    for (int i = 0; i < N_EDGE; ++i)
        for (int n = 0; n < 20; ++n) {
            double xi[6], back[6];
            random_twist(&rng, EDGE_ANGLES[i], xi);
            lucid_se3 T = lucid_se3_exp(xi);
            lucid_se3_log(&T, back);
            /* Near pi the translation part of log scales like 1/(pi - angle) times the
             * rotation error, hence the looser bound there. */
            double tol = EDGE_ANGLES[i] < 3.0 ? 1e-13 : 1e-6;
            assert_array_close(back, xi, 6, tol);
        }
    /* Beyond pi the twist wraps, but exp(log(T)) = T. */
    for (int n = 0; n < 50; ++n) {
        double xi[6], back[6];
        random_twist(&rng, PI + 3.0 * lucid_rng_uniform(&rng), xi);
        lucid_se3 T = lucid_se3_exp(xi);
        lucid_se3_log(&T, back);
        lucid_se3 again = lucid_se3_exp(back);
        assert_pose_close(&again, &T, 1e-12);
    }
}

enum { RIGHT_JACOBIAN, LEFT_JACOBIAN, RIGHT_INVERSE, LEFT_INVERSE };
typedef void (*jacobian_fn)(const double *, double *);

static void log_of(const lucid_se3 *T, double out[6]) {
    lucid_se3_log(T, out);
}

/* The 6-vector whose derivative in h at 0 is column k of the Jacobian. */
static void defining_map(int kind, const double xi[6], int k, double h, double out[6]) {
    double moved[6], d[6] = {0};
    memcpy(moved, xi, sizeof moved);
    moved[k] += h;
    d[k] = h;
    lucid_se3 T = lucid_se3_exp(xi), M;
    if (kind == RIGHT_JACOBIAN) { /* exp(xi + d) = exp(xi) exp(Jr d) */
        lucid_se3 P = lucid_se3_exp(moved);
        M = lucid_se3_between(&T, &P);
    } else if (kind == LEFT_JACOBIAN) { /* exp(xi + d) = exp(Jl d) exp(xi) */
        lucid_se3 P = lucid_se3_exp(moved), Ti = lucid_se3_inverse(&T);
        M = lucid_se3_compose(&P, &Ti);
    } else if (kind == RIGHT_INVERSE) { /* log(exp(xi) exp(d)) = xi + Jr^-1 d */
        lucid_se3 D = lucid_se3_exp(d);
        M = lucid_se3_compose(&T, &D);
    } else { /* log(exp(d) exp(xi)) = xi + Jl^-1 d */
        lucid_se3 D = lucid_se3_exp(d);
        M = lucid_se3_compose(&D, &T);
    }
    log_of(&M, out);
}

static void check_jacobian(int kind, jacobian_fn fn, const double xi[6]) {
    const double h = 1e-6;
    double J[36];
    fn(xi, J);
    for (int k = 0; k < 6; ++k) {
        double plus[6], minus[6];
        defining_map(kind, xi, k, h, plus);
        defining_map(kind, xi, k, -h, minus);
        for (int i = 0; i < 6; ++i)
            assert_close((plus[i] - minus[i]) / (2 * h), J[i + 6 * k], 5e-8);
    }
}

static void jacobians_match_finite_differences(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 13);
    const double angles[] = {0.0, 1e-9, 0.3, 0.999, 1.0, 1.001, 2.0, 2.8};
    const jacobian_fn fns[] = {lucid_se3_jr, lucid_se3_jl, lucid_se3_jr_inv, lucid_se3_jl_inv};
    for (size_t i = 0; i < sizeof angles / sizeof angles[0]; ++i)
        for (int n = 0; n < 4; ++n) {
            double xi[6];
            random_twist(&rng, angles[i], xi);
            for (int kind = 0; kind < 4; ++kind) check_jacobian(kind, fns[kind], xi);
        }
}

static void mat6_mul(const double *A, const double *B, double *C) {
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            double s = 0.0;
            for (int k = 0; k < 6; ++k) s += A[i + 6 * k] * B[k + 6 * j];
            C[i + 6 * j] = s;
        }
}
static void mat6_vec(const double *A, const double *x, double *y) {
    for (int i = 0; i < 6; ++i) {
        y[i] = 0.0;
        for (int k = 0; k < 6; ++k) y[i] += A[i + 6 * k] * x[k];
    }
}
static void assert_identity6(const double *A, double tol) {
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) assert_close(A[i + 6 * j], i == j ? 1.0 : 0.0, tol);
}

static void jacobian_identities_hold(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 14);
    for (int n = 0; n < 200; ++n) {
        double xi[6], neg[6], Jr[36], Jri[36], Jl[36], Jli[36], P[36], Jr_neg[36];
        random_twist(&rng, n < 10 ? 1e-10 * n : 3.0 * lucid_rng_uniform(&rng), xi);
        lucid_se3_jr(xi, Jr);
        lucid_se3_jr_inv(xi, Jri);
        lucid_se3_jl(xi, Jl);
        lucid_se3_jl_inv(xi, Jli);
        mat6_mul(Jr, Jri, P);
        assert_identity6(P, 1e-12);
        mat6_mul(Jli, Jl, P);
        assert_identity6(P, 1e-12);
        for (int k = 0; k < 6; ++k) neg[k] = -xi[k];
        lucid_se3_jr(neg, Jr_neg);
        assert_array_close(Jl, Jr_neg, 36, 0.0);
        /* Jl(xi) = Ad(exp(xi)) Jr(xi) */
        lucid_se3 T = lucid_se3_exp(xi);
        double Ad[36];
        lucid_se3_adjoint(&T, Ad);
        mat6_mul(Ad, Jr, P);
        assert_array_close(P, Jl, 36, 1e-12);
        /* xi is a fixed vector of its Jacobians: Jr(xi) xi = xi. */
        double y[6];
        mat6_vec(Jr, xi, y);
        assert_array_close(y, xi, 6, 1e-12);
    }
}

static lucid_se3 random_pose(lucid_rng *rng) {
    return lucid_se3_random(rng, 2.0);
}

static void adjoint_transports_twists(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 15);
    for (int n = 0; n < 100; ++n) {
        lucid_se3 T = random_pose(&rng), U = random_pose(&rng);
        double xi[6], Ad[36], moved[6];
        random_twist(&rng, 3.0 * lucid_rng_uniform(&rng), xi);
        lucid_se3_adjoint(&T, Ad);
        mat6_vec(Ad, xi, moved);
        /* T exp(xi) T^-1 = exp(Ad_T xi) */
        lucid_se3 E = lucid_se3_exp(xi), Ti = lucid_se3_inverse(&T);
        lucid_se3 TE = lucid_se3_compose(&T, &E), lhs = lucid_se3_compose(&TE, &Ti);
        lucid_se3 rhs = lucid_se3_exp(moved);
        assert_pose_close(&lhs, &rhs, 1e-12);
        /* Ad is a homomorphism: Ad(T U) = Ad(T) Ad(U). */
        double AdU[36], AdTU[36], prod[36];
        lucid_se3 TU = lucid_se3_compose(&T, &U);
        lucid_se3_adjoint(&U, AdU);
        lucid_se3_adjoint(&TU, AdTU);
        mat6_mul(Ad, AdU, prod);
        assert_array_close(prod, AdTU, 36, 1e-12);
    }
}

static void group_operations_are_consistent(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 16);
    lucid_se3 I = lucid_se3_identity();
    for (int n = 0; n < 100; ++n) {
        lucid_se3 A = random_pose(&rng), B = random_pose(&rng);
        lucid_vec3 p =
            lucid_vec3_make(lucid_rng_normal(&rng), lucid_rng_normal(&rng), lucid_rng_normal(&rng));
        lucid_se3 Ai = lucid_se3_inverse(&A);
        lucid_se3 AAi = lucid_se3_compose(&A, &Ai), AiA = lucid_se3_compose(&Ai, &A);
        assert_pose_close(&AAi, &I, 1e-14);
        assert_pose_close(&AiA, &I, 1e-14);
        lucid_se3 AB = lucid_se3_compose(&A, &B);
        lucid_vec3 q1 = lucid_se3_act(&AB, p), Bp = lucid_se3_act(&B, p);
        lucid_vec3 q2 = lucid_se3_act(&A, Bp);
        assert_array_close(&q1.x, &q2.x, 3, 1e-14);
        lucid_vec3 back = lucid_se3_act_inv(&A, lucid_se3_act(&A, p));
        assert_array_close(&back.x, &p.x, 3, 1e-14);
        lucid_se3 between = lucid_se3_between(&A, &B), AiB = lucid_se3_compose(&Ai, &B);
        assert_pose_close(&between, &AiB, 1e-14);
        /* log(A) of a composition with its own exp: exp(log A) = A */
        double xi[6];
        lucid_se3_log(&A, xi);
        lucid_se3 again = lucid_se3_exp(xi);
        assert_pose_close(&again, &A, 1e-12);
    }
}

static void quaternions_convert_both_ways(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 17);
    lucid_vec3 t = lucid_vec3_make(1, 2, 3);
    for (int n = 0; n < 200; ++n) {
        /* Include w ~ 0 (angles near pi) and exact w = 0. */
        double w = n < 20 ? (n == 0 ? 0.0 : 1e-12 * n) : lucid_rng_normal(&rng);
        lucid_quat q = lucid_quat_make(w, lucid_rng_normal(&rng), lucid_rng_normal(&rng),
                                       lucid_rng_normal(&rng));
        lucid_quat neg = lucid_quat_make(-q.w, -q.x, -q.y, -q.z);
        lucid_quat big = lucid_quat_make(7 * q.w, 7 * q.x, 7 * q.y, 7 * q.z);
        lucid_se3 A, B, C;
        assert_int_equal(lucid_se3_from_quat(q, t, &A), LUCID_OK);
        assert_int_equal(lucid_se3_from_quat(neg, t, &B), LUCID_OK); /* double cover */
        assert_int_equal(lucid_se3_from_quat(big, t, &C), LUCID_OK); /* normalised */
        assert_pose_close(&A, &B, 1e-15);
        assert_pose_close(&A, &C, 1e-15);
        assert_close(lucid_so3_orthogonality_error(&A.R), 0.0, 4e-15);
        /* The matrix rotates like the quaternion. */
        lucid_quat u = q;
        lucid_quat_normalize(&u);
        lucid_vec3 p = lucid_vec3_make(0.3, -1.2, 0.7);
        lucid_vec3 r1 = lucid_mat3_mul_vec(&A.R, p), r2 = lucid_quat_rotate(u, p);
        assert_array_close(&r1.x, &r2.x, 3, 1e-15 * 8);
        /* Back to a quaternion: +-u, with w >= 0. */
        lucid_quat back = lucid_se3_to_quat(&A);
        assert_true(back.w >= 0.0);
        double dot = back.w * u.w + back.x * u.x + back.y * u.y + back.z * u.z;
        double sign = dot < 0.0 ? -1.0 : 1.0; /* back = +-u: the dot product is +-1 */
        assert_close(back.w, sign * u.w, 1e-15 * 4);
        assert_close(back.x, sign * u.x, 1e-15 * 4);
        assert_close(back.y, sign * u.y, 1e-15 * 4);
        assert_close(back.z, sign * u.z, 1e-15 * 4);
    }
}

static void bad_quaternions_and_rotations_are_rejected(void **state) {
    (void)state;
    lucid_se3 T = lucid_se3_identity();
    lucid_vec3 t = lucid_vec3_zero();
    assert_int_equal(lucid_se3_from_quat(lucid_quat_make(0, 0, 0, 0), t, &T), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_se3_from_quat(lucid_quat_make(NAN, 0, 0, 1), t, &T),
                     LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_se3_from_quat(lucid_quat_make(1, INFINITY, 0, 0), t, &T),
                     LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_se3_from_quat(lucid_quat_identity(), lucid_vec3_make(0, NAN, 0), &T),
                     LUCID_ERR_NONFINITE);
    lucid_mat3 reflection = lucid_mat3_diag(lucid_vec3_make(1, -1, 1));
    assert_int_equal(lucid_se3_from_rotation(&reflection, t, 1e-6, &T), LUCID_ERR_ARGUMENT);
    lucid_mat3 stretched = lucid_mat3_diag(lucid_vec3_make(1, 1, 1.001));
    assert_int_equal(lucid_se3_from_rotation(&stretched, t, 1e-6, &T), LUCID_ERR_ARGUMENT);
    lucid_mat3 nan = lucid_mat3_identity();
    nan.m[3] = NAN;
    assert_int_equal(lucid_se3_from_rotation(&nan, t, 1e-6, &T), LUCID_ERR_NONFINITE);
    lucid_se3 I = lucid_se3_identity();
    assert_pose_close(&T, &I, 0.0); /* untouched by every failure */
}

static void near_rotations_are_accepted_and_cleaned(void **state) {
    (void)state;
    lucid_rng rng;
    lucid_rng_seed(&rng, 18);
    for (int n = 0; n < 50; ++n) {
        lucid_se3 A = random_pose(&rng);
        lucid_mat3 M = A.R;
        for (int k = 0; k < 9; ++k) M.m[k] += 1e-8 * lucid_rng_normal(&rng);
        lucid_se3 T;
        assert_int_equal(lucid_se3_from_rotation(&M, A.t, 1e-6, &T), LUCID_OK);
        assert_close(lucid_so3_orthogonality_error(&T.R), 0.0, 1e-15);
        assert_pose_close(&T, &A, 1e-7);
    }
}

static void random_poses_are_uniform_and_reproducible(void **state) {
    (void)state;
    lucid_rng a, b;
    lucid_rng_seed(&a, 19);
    lucid_rng_seed(&b, 19);
    enum { N = 20000 };
    const double scale = 1.5;
    double mean[9] = {0}, sq[9] = {0}, tmean = 0.0, tsq = 0.0;
    for (int n = 0; n < N; ++n) {
        lucid_se3 T = lucid_se3_random(&a, scale), U = lucid_se3_random(&b, scale);
        assert_memory_equal(&T, &U, sizeof T);
        assert_close(lucid_so3_orthogonality_error(&T.R), 0.0, 1e-14);
        assert_close(lucid_mat3_det(&T.R), 1.0, 1e-14);
        assert_true(lucid_vec3_max_abs(T.t) <= scale);
        for (int k = 0; k < 9; ++k) {
            mean[k] += T.R.m[k] / N;
            sq[k] += T.R.m[k] * T.R.m[k] / N;
        }
        tmean += (T.t.x + T.t.y + T.t.z) / (3.0 * N);
        tsq += lucid_vec3_norm2(T.t) / (3.0 * N);
    }
    /* Haar measure: every entry has mean 0 and variance 1/3 (sd of the sample mean
     * sqrt(1/(3N)) = 0.0041; E[x^4] = 1/5 gives sd(mean of squares) = sqrt(4/45/N) = 0.0021). */
    for (int k = 0; k < 9; ++k) {
        assert_close(mean[k], 0.0, 5 * 0.0041);
        assert_close(sq[k], 1.0 / 3.0, 5 * 0.0021);
    }
    /* Translation uniform in [-s, s]: mean 0 (sd s/sqrt(9N)), variance s^2/3 (sd
     * s^2 sqrt(4/45/(3N))). */
    assert_close(tmean, 0.0, 5 * scale / sqrt(9.0 * N));
    assert_close(tsq, scale * scale / 3.0, 5 * scale * scale * sqrt(4.0 / 45.0 / (3.0 * N)));
    /* A different seed gives a different pose. */
    lucid_rng c;
    lucid_rng_seed(&c, 20);
    lucid_se3 T = lucid_se3_random(&a, scale), U = lucid_se3_random(&c, scale);
    assert_true(memcmp(&T, &U, sizeof T) != 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exp_matches_the_matrix_exponential),
        cmocka_unit_test(log_inverts_exp),
        cmocka_unit_test(jacobians_match_finite_differences),
        cmocka_unit_test(jacobian_identities_hold),
        cmocka_unit_test(adjoint_transports_twists),
        cmocka_unit_test(group_operations_are_consistent),
        cmocka_unit_test(quaternions_convert_both_ways),
        cmocka_unit_test(bad_quaternions_and_rotations_are_rejected),
        cmocka_unit_test(near_rotations_are_accepted_and_cleaned),
        cmocka_unit_test(random_poses_are_uniform_and_reproducible),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
