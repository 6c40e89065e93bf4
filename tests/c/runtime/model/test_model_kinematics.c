/* Configuration space and kinematics of runtime/model/ on random trees with every joint kind:
 * integrate/difference round trips, random configurations within limits, every frame
 * Jacobian (local, world, local_world_aligned) against central differences of the frame pose
 * along q (+) t e_k, and no heap allocation in any algorithm once the data exists (this
 * executable wraps the C allocator, tests/CMakeLists.txt). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/c/common/test_assert.h"
#include "tests/c/common/test_model_util.h"

#include "tests/c/common/test_alloc_counter.h"

enum { NMODELS = 5, NBODIES = 22 };

/* difference(q0, q0 (+) v) = v for |rotations| < pi, and q0 (+) difference(q0, q1) = q1. */
static void integrate_difference_round_trip(void **state) {
    (void)state;
    for (int s = 0; s < NMODELS; ++s) {
        lucid_model *m = random_model(700 + (uint64_t)s, NBODIES);
        assert_non_null(m);
        size_t nq = lucid_model_nq(m), nv = lucid_model_nv(m);
        double *q0 = calloc(nq, 8), *q1 = calloc(nq, 8), *q2 = calloc(nq, 8), *v = calloc(nv, 8),
               *w = calloc(nv, 8), *z = calloc(nv, 8);
        lucid_rng rng;
        lucid_rng_seed(&rng, 3 + (uint64_t)s);
        uint64_t st = 9 + (uint64_t)s;
        for (int k = 0; k < 10; ++k) {
            lucid_model_random_configuration(m, &rng, q0);
            random_vector(&st, v, nv, 0.8); /* rotation vectors below pi */
            lucid_model_integrate(m, q0, v, 1.0, q1);
            lucid_model_difference(m, q0, q1, w);
            assert_true(diff_inf(v, w, nv) <= 1e-12);
            /* integrate(q, v, dt) = integrate(q, dt v, 1) */
            for (size_t i = 0; i < nv; ++i) w[i] = 0.3 * v[i];
            lucid_model_integrate(m, q0, w, 1.0, q2);
            lucid_model_integrate(m, q0, v, 0.3, q1);
            lucid_model_difference(m, q1, q2, z);
            assert_true(norm_inf(z, nv) <= 1e-13);
            /* q0 (+) (q1 - q0) = q1 for two random configurations */
            lucid_model_random_configuration(m, &rng, q1);
            lucid_model_difference(m, q0, q1, w);
            lucid_model_integrate(m, q0, w, 1.0, q2);
            lucid_model_difference(m, q1, q2, z);
            assert_true(norm_inf(z, nv) <= 1e-11);
            /* integrate returns unit quaternions, difference of a configuration with itself 0 */
            assert_int_equal(lucid_model_normalize(m, q2), LUCID_OK);
            lucid_model_difference(m, q2, q2, z);
            assert_true(norm_inf(z, nv) <= 1e-15);
        }
        free(q0), free(q1), free(q2), free(v), free(w), free(z);
        lucid_model_destroy(m);
    }
}

static void random_configurations_respect_limits(void **state) {
    (void)state;
    lucid_model *m = random_model(800, 30);
    assert_non_null(m);
    size_t nq = lucid_model_nq(m);
    const double *lo = lucid_model_lower_limits(m), *hi = lucid_model_upper_limits(m);
    const int *limited = lucid_model_limited(m);
    double *q = calloc(nq, 8);
    lucid_rng rng;
    lucid_rng_seed(&rng, 1);
    int nlimited = 0;
    for (int k = 0; k < 200; ++k) {
        lucid_model_random_configuration(m, &rng, q);
        for (size_t i = 0; i < nq; ++i) {
            assert_true(q[i] >= lo[i] && q[i] <= hi[i]);
            nlimited += limited[i];
        }
        assert_int_equal(lucid_model_check_configuration(m, q, NULL), LUCID_OK);
    }
    assert_true(nlimited > 0);
    /* a zero quaternion is refused and named */
    for (size_t j = 0; j < lucid_model_njoints(m); ++j)
        if (lucid_model_joint_kind(m, j) == LUCID_JOINT_SPHERICAL) {
            size_t iq = lucid_model_joint_idx_q(m, j);
            for (int c = 0; c < 4; ++c) q[iq + (size_t)c] = 0.0;
            int bad = -1;
            assert_int_equal(lucid_model_check_configuration(m, q, &bad), LUCID_ERR_ARGUMENT);
            assert_int_equal(bad, (int)j);
            q[iq + 1] = NAN;
            assert_int_equal(lucid_model_normalize(m, q), LUCID_ERR_NONFINITE);
            break;
        }
    free(q);
    lucid_model_destroy(m);
}

/* Columns of J(ref) against (log(T0^-1 T(q (+) h e_k)) - log(T0^-1 T(q (+) -h e_k))) / 2h moved to
 * ref: local as is, world by Ad(T0), local_world_aligned by blockdiag(R0, R0). */
static void frame_jacobians_match_finite_differences(void **state) {
    (void)state;
    double worst = 0.0;
    for (int s = 0; s < NMODELS; ++s) {
        lucid_model *m = random_model(900 + (uint64_t)s, NBODIES);
        assert_non_null(m);
        lucid_model_data *d;
        assert_int_equal(lucid_model_data_create(m, &d), LUCID_OK);
        size_t nq = lucid_model_nq(m), nv = lucid_model_nv(m), nf = lucid_model_nframes(m);
        double *q = calloc(nq, 8), *qp = calloc(nq, 8), *e = calloc(nv, 8);
        double *J = calloc(6 * nv, 8), *Jw = calloc(6 * nv, 8), *Ja = calloc(6 * nv, 8);
        lucid_rng rng;
        lucid_rng_seed(&rng, 13 + (uint64_t)s);
        lucid_model_random_configuration(m, &rng, q);
        const double h = 1e-6;
        for (size_t f = 0; f < nf; ++f) {
            lucid_model_forward_kinematics(m, d, q);
            lucid_se3 T0 = lucid_model_frame_pose(m, d, f);
            lucid_model_frame_jacobian(m, d, f, LUCID_REF_LOCAL, J);
            lucid_model_frame_jacobian(m, d, f, LUCID_REF_WORLD, Jw);
            lucid_model_frame_jacobian(m, d, f, LUCID_REF_LOCAL_WORLD_ALIGNED, Ja);
            double Ad[36];
            lucid_se3_adjoint(&T0, Ad);
            for (size_t k = 0; k < nv; ++k) {
                double xi[2][6], fd[6], fw[6], fa[6];
                for (int side = 0; side < 2; ++side) {
                    e[k] = side ? h : -h;
                    lucid_model_integrate(m, q, e, 1.0, qp);
                    e[k] = 0.0;
                    lucid_model_forward_kinematics(m, d, qp);
                    lucid_se3 T = lucid_model_frame_pose(m, d, f);
                    lucid_se3 D = lucid_se3_between(&T0, &T);
                    lucid_se3_log(&D, xi[side]);
                }
                for (int r = 0; r < 6; ++r) fd[r] = (xi[1][r] - xi[0][r]) / (2 * h);
                for (int r = 0; r < 6; ++r) {
                    fw[r] = 0.0;
                    for (int c = 0; c < 6; ++c) fw[r] += Ad[r + 6 * c] * fd[c];
                }
                lucid_vec3 l = lucid_mat3_mul_vec(&T0.R, lucid_vec3_load(fd));
                lucid_vec3 a = lucid_mat3_mul_vec(&T0.R, lucid_vec3_load(fd + 3));
                lucid_vec3_store(l, fa), lucid_vec3_store(a, fa + 3);
                double err = fmax(diff_inf(fd, J + 6 * k, 6),
                                  fmax(diff_inf(fw, Jw + 6 * k, 6), diff_inf(fa, Ja + 6 * k, 6)));
                worst = fmax(worst, err);
                assert_true(err <= 1e-7);
            }
            /* the twist without J equals J v in each frame */
            lucid_model_forward_kinematics(m, d, q);
            for (size_t k = 0; k < nv; ++k) e[k] = sin(1.0 + (double)(k + f));
            const double *Js[3] = {J, Jw, Ja};
            const lucid_reference_frame refs[3] = {LUCID_REF_LOCAL, LUCID_REF_WORLD,
                                                   LUCID_REF_LOCAL_WORLD_ALIGNED};
            for (int r = 0; r < 3; ++r) {
                double twist[6], Jv[6] = {0, 0, 0, 0, 0, 0}, scale = 1.0;
                lucid_model_frame_velocity(m, d, f, e, refs[r], twist);
                for (size_t k = 0; k < nv; ++k)
                    for (int i = 0; i < 6; ++i) Jv[i] += Js[r][6 * k + (size_t)i] * e[k];
                for (int i = 0; i < 6; ++i) scale = fmax(scale, fabs(Jv[i]));
                assert_true(diff_inf(twist, Jv, 6) <= 1e-14 * scale);
            }
            memset(e, 0, nv * sizeof *e);
        }
        free(q), free(qp), free(e), free(J), free(Jw), free(Ja);
        lucid_model_data_destroy(d);
        lucid_model_destroy(m);
    }
    print_message("frame jacobians vs central differences: worst %.3g\n", worst);
}

/* No algorithm allocates once the model's data exists. */
static void algorithms_do_not_allocate(void **state) {
    (void)state;
    lucid_model *m = random_model(1000, 30);
    assert_non_null(m);
    lucid_model_data *d;
    assert_int_equal(lucid_model_data_create(m, &d), LUCID_OK);
    size_t nq = lucid_model_nq(m), nv = lucid_model_nv(m);
    double *q = calloc(nq, 8), *q1 = calloc(nq, 8), *v = calloc(nv, 8), *a = calloc(nv, 8),
           *tau = calloc(nv, 8), *J = calloc(6 * nv, 8), *X = calloc(4 * nv, 8),
           *Y = calloc(4 * nv, 8);
    lucid_rng rng;
    lucid_rng_seed(&rng, 2);
    uint64_t st = 4;
    random_vector(&st, v, nv, 1.0);
    random_vector(&st, X, 4 * nv, 1.0);
    double *D1 = calloc(nv * nv, 8), *D2 = calloc(nv * nv, 8), *D3 = calloc(nv * nv, 8);
    counting = 1;
    allocations = 0;
    double T, V;
    lucid_model_neutral(m, q);
    lucid_model_random_configuration(m, &rng, q);
    lucid_model_integrate(m, q, v, 0.1, q1);
    lucid_model_difference(m, q, q1, a);
    lucid_model_normalize(m, q1);
    lucid_model_forward_kinematics(m, d, q);
    lucid_model_frame_pose(m, d, 3);
    lucid_model_frame_jacobian(m, d, 3, LUCID_REF_WORLD, J);
    lucid_model_frame_velocity(m, d, 3, v, LUCID_REF_LOCAL, X);
    lucid_model_rnea(m, d, q, v, a, tau);
    lucid_model_nle(m, d, q, v, tau);
    lucid_model_aba(m, d, q, v, tau, a);
    lucid_model_crba(m, d, q);
    lucid_model_ltdl(m, d);
    lucid_model_mass_solve(m, d, X, nv, 4);
    lucid_model_mass_multiply(m, d, X, Y, nv, 4);
    lucid_model_ltdl_half_solve(m, d, X, nv, 4);
    lucid_model_energy(m, d, q, v, &T, &V);
    lucid_model_com(m, d, q);
    lucid_model_rnea_derivatives(m, d, q, v, a, D1, D2);
    lucid_model_aba_derivatives(m, d, q, v, tau, a, D1, D2, D3);
    counting = 0;
    free(D1), free(D2), free(D3);
    assert_int_equal(allocations, 0);
    /* the wrapper does see the library's allocations */
    counting = 1;
    lucid_model_data *d2;
    assert_int_equal(lucid_model_data_create(m, &d2), LUCID_OK);
    counting = 0;
    assert_true(allocations > 0);
    lucid_model_data_destroy(d2);
    free(q), free(q1), free(v), free(a), free(tau), free(J), free(X), free(Y);
    lucid_model_data_destroy(d);
    lucid_model_destroy(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integrate_difference_round_trip),
        cmocka_unit_test(random_configurations_respect_limits),
        cmocka_unit_test(frame_jacobians_match_finite_differences),
        cmocka_unit_test(algorithms_do_not_allocate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
