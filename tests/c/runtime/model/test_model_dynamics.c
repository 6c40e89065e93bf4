/* The dynamics algorithms of runtime/model/ on random trees with every joint kind (25 bodies)
 * at random states: RNEA inverts ABA, CRBA's columns are RNEA differences, the LTDL solves
 * match a dense LAPACK Cholesky, energy obeys the power balance, and analytic cases (a free
 * body, a single pendulum) give their textbook equations. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "solvers/dense/dense_cholesky.h"
#include "tests/c/common/test_assert.h"
#include "tests/c/common/test_model_util.h"

enum { NMODELS = 6, NSTATES = 8, NBODIES = 25 };

typedef struct fixture {
    lucid_model *m;
    lucid_model_data *d;
    size_t nq, nv;
    double *q, *v, *a, *tau, *tau2, *M, *X, *Y;
} fixture;

static void fixture_make(fixture *f, lucid_model *m) {
    assert_non_null(m);
    f->m = m;
    assert_int_equal(lucid_model_data_create(m, &f->d), LUCID_OK);
    f->nq = lucid_model_nq(m);
    f->nv = lucid_model_nv(m);
    size_t nv = f->nv;
    f->q = calloc(f->nq, sizeof(double));
    f->v = calloc(nv, sizeof(double));
    f->a = calloc(nv, sizeof(double));
    f->tau = calloc(nv, sizeof(double));
    f->tau2 = calloc(nv, sizeof(double));
    f->M = calloc(nv * nv, sizeof(double));
    f->X = calloc(nv * nv, sizeof(double));
    f->Y = calloc(nv * nv, sizeof(double));
}

static void fixture_free(fixture *f) {
    lucid_model_data_destroy(f->d);
    lucid_model_destroy(f->m);
    free(f->q), free(f->v), free(f->a), free(f->tau), free(f->tau2);
    free(f->M), free(f->X), free(f->Y);
}

static void random_state(fixture *f, lucid_rng *rng, uint64_t *s) {
    lucid_model_random_configuration(f->m, rng, f->q);
    random_vector(s, f->v, f->nv, 2.0);
    random_vector(s, f->tau, f->nv, 10.0);
}

/* Every kind of joint is in the random models. */
static void random_models_have_every_kind(void **state) {
    (void)state;
    for (int s = 0; s < NMODELS; ++s) {
        lucid_model *m = random_model(100 + (uint64_t)s, NBODIES);
        assert_non_null(m);
        int seen[6] = {0};
        for (size_t j = 0; j < lucid_model_njoints(m); ++j) seen[lucid_model_joint_kind(m, j)] = 1;
        for (int k = LUCID_JOINT_REVOLUTE; k <= LUCID_JOINT_PLANAR; ++k) assert_true(seen[k]);
        assert_true(lucid_model_nbodies(m) >= 20);
        assert_true(lucid_model_njoints(m) > lucid_model_nbodies(m)); /* multi-joint bodies */
        lucid_model_destroy(m);
    }
}

/* RNEA(q, v, ABA(q, v, tau)) = tau to 1e-10 relative. */
static void rnea_inverts_aba(void **state) {
    (void)state;
    double worst = 0.0;
    for (int s = 0; s < NMODELS; ++s) {
        fixture f;
        fixture_make(&f, random_model(100 + (uint64_t)s, NBODIES));
        lucid_rng rng;
        lucid_rng_seed(&rng, 7 + (uint64_t)s);
        uint64_t st = 99 + (uint64_t)s;
        for (int k = 0; k < NSTATES; ++k) {
            random_state(&f, &rng, &st);
            lucid_model_aba(f.m, f.d, f.q, f.v, f.tau, f.a);
            lucid_model_rnea(f.m, f.d, f.q, f.v, f.a, f.tau2);
            double rel = diff_inf(f.tau, f.tau2, f.nv) / norm_inf(f.tau, f.nv);
            worst = fmax(worst, rel);
            assert_true(rel <= 1e-10);
        }
        fixture_free(&f);
    }
    print_message("rnea(aba(tau)) - tau: worst relative %.3g\n", worst);
}

/* Column i of CRBA's M = RNEA(q, 0, e_i) - RNEA(q, 0, 0), to 1e-10 of |M|; M symmetric. */
static void crba_columns_are_rnea(void **state) {
    (void)state;
    double worst = 0.0;
    for (int s = 0; s < NMODELS; ++s) {
        fixture f;
        fixture_make(&f, random_model(200 + (uint64_t)s, NBODIES));
        lucid_rng rng;
        lucid_rng_seed(&rng, 17 + (uint64_t)s);
        uint64_t st = 3 + (uint64_t)s;
        size_t nv = f.nv;
        for (int k = 0; k < NSTATES / 2; ++k) {
            random_state(&f, &rng, &st);
            lucid_model_crba(f.m, f.d, f.q);
            memcpy(f.M, lucid_model_data_mass_matrix(f.d), nv * nv * sizeof(double));
            double scale = norm_inf(f.M, nv * nv);
            memset(f.v, 0, nv * sizeof(double));
            memset(f.a, 0, nv * sizeof(double));
            lucid_model_rnea(f.m, f.d, f.q, f.v, f.a, f.tau2); /* gravity */
            for (size_t i = 0; i < nv; ++i) {
                f.a[i] = 1.0;
                lucid_model_rnea(f.m, f.d, f.q, f.v, f.a, f.tau);
                f.a[i] = 0.0;
                for (size_t r = 0; r < nv; ++r) {
                    double e = fabs(f.tau[r] - f.tau2[r] - f.M[r + nv * i]) / scale;
                    worst = fmax(worst, e);
                    assert_true(e <= 1e-10);
                    assert_true(f.M[r + nv * i] == f.M[i + nv * r]);
                }
            }
        }
        fixture_free(&f);
    }
    print_message("crba vs rnea columns: worst relative %.3g\n", worst);
}

/* nle = rnea(q, v, 0), and ABA = M^-1 (tau - nle) through the dense Cholesky of CRBA's M. */
static void aba_matches_dense_forward_dynamics(void **state) {
    (void)state;
    fixture f;
    fixture_make(&f, random_model(300, NBODIES));
    lucid_rng rng;
    lucid_rng_seed(&rng, 5);
    uint64_t st = 11;
    size_t nv = f.nv;
    for (int k = 0; k < NSTATES; ++k) {
        random_state(&f, &rng, &st);
        lucid_model_nle(f.m, f.d, f.q, f.v, f.tau2);
        lucid_model_crba(f.m, f.d, f.q);
        memcpy(f.M, lucid_model_data_mass_matrix(f.d), nv * nv * sizeof(double));
        assert_int_equal(lucid_dense_cholesky((int)nv, f.M, (int)nv), LUCID_OK);
        for (size_t i = 0; i < nv; ++i) f.X[i] = f.tau[i] - f.tau2[i];
        assert_int_equal(lucid_dense_cholesky_solve((int)nv, 1, f.M, (int)nv, f.X, (int)nv),
                         LUCID_OK);
        lucid_model_aba(f.m, f.d, f.q, f.v, f.tau, f.a);
        assert_true(diff_inf(f.a, f.X, nv) <= 1e-9 * fmax(1.0, norm_inf(f.X, nv)));
    }
    fixture_free(&f);
}

/* The LTDL solves against dense LAPACK: M^-1 X for nv right-hand sides at once, M X from the
 * factors, and Y^T Y = B M^-1 B^T for Y = half_solve(B^T). */
static void ltdl_matches_dense_cholesky(void **state) {
    (void)state;
    double worst = 0.0;
    for (int s = 0; s < NMODELS; ++s) {
        fixture f;
        fixture_make(&f, random_model(400 + (uint64_t)s, NBODIES));
        lucid_rng rng;
        lucid_rng_seed(&rng, 23 + (uint64_t)s);
        uint64_t st = 31 + (uint64_t)s;
        size_t nv = f.nv;
        random_state(&f, &rng, &st);
        lucid_model_crba(f.m, f.d, f.q);
        lucid_model_ltdl(f.m, f.d);
        const double *M = lucid_model_data_mass_matrix(f.d);
        /* M X from the factors */
        random_vector(&st, f.X, nv * nv, 1.0);
        lucid_model_mass_multiply(f.m, f.d, f.X, f.Y, nv, nv);
        for (size_t c = 0; c < nv; ++c)
            for (size_t r = 0; r < nv; ++r) {
                double t = 0.0;
                for (size_t k = 0; k < nv; ++k) t += M[r + nv * k] * f.X[k + nv * c];
                assert_true(fabs(t - f.Y[r + nv * c]) <= 1e-10 * norm_inf(M, nv * nv) * nv);
            }
        /* M^-1 X */
        memcpy(f.M, M, nv * nv * sizeof(double));
        assert_int_equal(lucid_dense_cholesky((int)nv, f.M, (int)nv), LUCID_OK);
        memcpy(f.Y, f.X, nv * nv * sizeof(double));
        assert_int_equal(lucid_dense_cholesky_solve((int)nv, (int)nv, f.M, (int)nv, f.Y, (int)nv),
                         LUCID_OK);
        lucid_model_mass_solve(f.m, f.d, f.X, nv, nv);
        double rel = diff_inf(f.X, f.Y, nv * nv) / norm_inf(f.Y, nv * nv);
        worst = fmax(worst, rel);
        assert_true(rel <= 1e-9);
        /* half solve: B (3 x nv) random, G = B M^-1 B^T two ways */
        double B[3 * 200], Bt[200 * 3], G1[9], G2[9];
        assert_true(nv <= 200);
        random_vector(&st, B, 3 * nv, 1.0);
        for (size_t r = 0; r < 3; ++r)
            for (size_t k = 0; k < nv; ++k) Bt[k + nv * r] = B[r + 3 * k];
        memcpy(f.Y, Bt, 3 * nv * sizeof(double));
        lucid_dense_cholesky_solve((int)nv, 3, f.M, (int)nv, f.Y, (int)nv); /* M^-1 B^T */
        lucid_model_ltdl_half_solve(f.m, f.d, Bt, nv, 3);
        for (size_t r = 0; r < 3; ++r)
            for (size_t c = 0; c < 3; ++c) {
                double g1 = 0.0, g2 = 0.0;
                for (size_t k = 0; k < nv; ++k) {
                    g1 += B[r + 3 * k] * f.Y[k + nv * c];
                    g2 += Bt[k + nv * r] * Bt[k + nv * c];
                }
                G1[r + 3 * c] = g1, G2[r + 3 * c] = g2;
            }
        assert_true(diff_inf(G1, G2, 9) <= 1e-9 * norm_inf(G1, 9));
        fixture_free(&f);
    }
    print_message("ltdl solve vs LAPACK: worst relative %.3g\n", worst);
}

/* L has the tree's sparsity: the number of stored entries is the sum of the dof depths, and a
 * branching tree stores far fewer than the dense triangle. */
static void ltdl_is_sparse(void **state) {
    (void)state;
    lucid_model *m = random_model(500, 40);
    assert_non_null(m);
    size_t nv = lucid_model_nv(m), nnz = 0;
    const int *par = lucid_model_dof_parent(m);
    for (size_t k = 0; k < nv; ++k)
        for (int a = par[k]; a >= 0; a = par[a]) nnz++;
    print_message("nv %zu: L holds %zu entries (dense triangle %zu)\n", nv, nnz, nv * (nv - 1) / 2);
    assert_true(nnz < nv * (nv - 1) / 2);
    lucid_model_destroy(m);
}

/* Power balance: d/dt (T + V) = v . tau along the motion a = ABA(q, v, tau), by central
 * differences along (q (+) t v, v + t a). */
static void energy_power_balance(void **state) {
    (void)state;
    double worst = 0.0;
    for (int s = 0; s < NMODELS; ++s) {
        fixture f;
        fixture_make(&f, random_model(600 + (uint64_t)s, NBODIES));
        lucid_rng rng;
        lucid_rng_seed(&rng, 41 + (uint64_t)s);
        uint64_t st = 43 + (uint64_t)s;
        size_t nv = f.nv;
        double *qp = calloc(f.nq, sizeof(double)), *vp = calloc(nv, sizeof(double));
        for (int k = 0; k < NSTATES / 2; ++k) {
            random_state(&f, &rng, &st);
            lucid_model_aba(f.m, f.d, f.q, f.v, f.tau, f.a);
            double h = 1e-5, E[2];
            for (int side = 0; side < 2; ++side) {
                double t = side ? h : -h, T, V;
                lucid_model_integrate(f.m, f.q, f.v, t, qp);
                for (size_t i = 0; i < nv; ++i) vp[i] = f.v[i] + t * f.a[i];
                lucid_model_energy(f.m, f.d, qp, vp, &T, &V);
                E[side] = T + V;
            }
            double dE = (E[1] - E[0]) / (2 * h), power = 0.0, scale = 0.0;
            for (size_t i = 0; i < nv; ++i) {
                power += f.v[i] * f.tau[i];
                scale += fabs(f.v[i] * f.tau[i]);
            }
            double rel = fabs(dE - power) / scale;
            worst = fmax(worst, rel);
            assert_true(rel <= 1e-6);
        }
        free(qp), free(vp);
        fixture_free(&f);
    }
    print_message("power balance: worst relative %.3g\n", worst);
}

/* A free body with its com at the body origin, no force: the body twist obeys
 * dv/dt = R^T g - w x v, I dw/dt = -w x I w (the body-frame Newton-Euler equations). */
static void free_body_newton_euler(void **state) {
    (void)state;
    uint64_t st = 77;
    lucid_model_spec *spec;
    assert_int_equal(lucid_model_spec_create(NULL, &spec), LUCID_OK);
    spec->gravity = lucid_vec3_make(0.5, -1.0, -9.81);
    lucid_body_spec b = lucid_body_spec_default();
    b.name = "box";
    b.mass = 2.0;
    b.inertia = random_inertia(&st, 2.0);
    int idx;
    assert_int_equal(lucid_model_spec_add_body(spec, &b, &idx), LUCID_OK);
    lucid_joint_spec j = lucid_joint_spec_default(LUCID_JOINT_FREE);
    j.name = "root";
    assert_int_equal(lucid_model_spec_add_joint(spec, idx, &j, NULL), LUCID_OK);
    fixture f;
    lucid_model *m = NULL;
    assert_int_equal(lucid_model_compile(spec, &m, NULL, 0), LUCID_OK);
    lucid_model_spec_destroy(spec);
    fixture_make(&f, m);
    assert_int_equal(f.nq, 7);
    assert_int_equal(f.nv, 6);
    lucid_rng rng;
    lucid_rng_seed(&rng, 1);
    random_state(&f, &rng, &st);
    memset(f.tau, 0, sizeof(double) * 6);
    lucid_model_aba(f.m, f.d, f.q, f.v, f.tau, f.a);
    lucid_quat qu = lucid_quat_make(f.q[3], f.q[4], f.q[5], f.q[6]);
    lucid_mat3 R = lucid_quat_to_mat3(qu);
    lucid_vec3 v = lucid_vec3_load(f.v), w = lucid_vec3_load(f.v + 3);
    lucid_vec3 lin = lucid_vec3_sub(lucid_mat3_tmul_vec(&R, lucid_vec3_make(0.5, -1.0, -9.81)),
                                    lucid_vec3_cross(w, v));
    lucid_mat3 Iinv = lucid_mat3_zero();
    assert_true(lucid_mat3_inverse(&b.inertia, &Iinv));
    lucid_vec3 ang = lucid_mat3_mul_vec(
        &Iinv, lucid_vec3_neg(lucid_vec3_cross(w, lucid_mat3_mul_vec(&b.inertia, w))));
    assert_close(f.a[0], lin.x, 1e-12 * 10), assert_close(f.a[1], lin.y, 1e-12 * 10);
    assert_close(f.a[2], lin.z, 1e-12 * 10);
    assert_close(f.a[3], ang.x, 1e-11), assert_close(f.a[4], ang.y, 1e-11);
    assert_close(f.a[5], ang.z, 1e-11);
    fixture_free(&f);
}

/* A point-mass pendulum (mass m at distance l below a hinge about y, plus inertia Iyy about
 * its com): M = m l^2 + Iyy, gravity torque m g l sin(th), kinetic 1/2 M w^2. */
static void pendulum_textbook(void **state) {
    (void)state;
    fixture f;
    fixture_make(&f, pendulum_chain(1, 0.7));
    double th = 0.4, w = 1.3;
    f.q[0] = th, f.v[0] = w;
    lucid_model_crba(f.m, f.d, f.q);
    double M = 1.0 * 0.49 + 0.01;
    assert_close(lucid_model_data_mass_matrix(f.d)[0], M, 1e-14);
    f.a[0] = 0.0;
    lucid_model_nle(f.m, f.d, f.q, f.v, f.tau);
    /* hinge about +y, mass at -l z: rotating by th about y moves it to (-l sin th, 0, -l cos
     * th); gravity -9.81 z gives the torque -m g l sin th about y, so the bias is +m g l sin th */
    assert_close(f.tau[0], 9.81 * 0.7 * sin(th), 1e-12);
    double T, V;
    lucid_model_energy(f.m, f.d, f.q, f.v, &T, &V);
    assert_close(T, 0.5 * M * w * w, 1e-13);
    assert_close(V, -9.81 * 0.7 * cos(th), 1e-13);
    lucid_vec3 c = lucid_model_com(f.m, f.d, f.q);
    assert_close(c.x, -0.7 * sin(th), 1e-14), assert_close(c.z, -0.7 * cos(th), 1e-14);
    fixture_free(&f);
}

/* Energy drift of a 7-link pendulum chain without damping over 2 s from a fixed state. */
static double chain_drift(lucid_model *m, lucid_model_data *d, double dt, int rk4) {
    double q[7], v[7], a[7], tau[7] = {0}, E0, T, V, drift = 0.0;
    for (int k = 0; k < 7; ++k) q[k] = 0.3 + 0.1 * k, v[k] = 0.0;
    lucid_model_energy(m, d, q, v, &T, &V);
    E0 = T + V;
    int steps = (int)lround(2.0 / dt);
    for (int s = 0; s < steps; ++s) {
        if (!rk4) { /* semi-implicit Euler: v+ = v + dt a(q, v), q+ = q (+) dt v+ */
            lucid_model_aba(m, d, q, v, tau, a);
            for (int k = 0; k < 7; ++k) v[k] += dt * a[k];
            lucid_model_integrate(m, q, v, dt, q);
        } else { /* classic RK4 on (q, v): revolute joints only, so q is Euclidean */
            double k1q[7], k1v[7], k2q[7], k2v[7], k3q[7], k3v[7], k4q[7], k4v[7], qt[7], vt[7];
            memcpy(k1q, v, sizeof v);
            lucid_model_aba(m, d, q, v, tau, k1v);
            for (int k = 0; k < 7; ++k)
                qt[k] = q[k] + 0.5 * dt * k1q[k], vt[k] = v[k] + 0.5 * dt * k1v[k];
            memcpy(k2q, vt, sizeof vt);
            lucid_model_aba(m, d, qt, vt, tau, k2v);
            for (int k = 0; k < 7; ++k)
                qt[k] = q[k] + 0.5 * dt * k2q[k], vt[k] = v[k] + 0.5 * dt * k2v[k];
            memcpy(k3q, vt, sizeof vt);
            lucid_model_aba(m, d, qt, vt, tau, k3v);
            for (int k = 0; k < 7; ++k) qt[k] = q[k] + dt * k3q[k], vt[k] = v[k] + dt * k3v[k];
            memcpy(k4q, vt, sizeof vt);
            lucid_model_aba(m, d, qt, vt, tau, k4v);
            for (int k = 0; k < 7; ++k) {
                q[k] += dt / 6 * (k1q[k] + 2 * k2q[k] + 2 * k3q[k] + k4q[k]);
                v[k] += dt / 6 * (k1v[k] + 2 * k2v[k] + 2 * k3v[k] + k4v[k]);
            }
        }
        lucid_model_energy(m, d, q, v, &T, &V);
        drift = fmax(drift, fabs(T + V - E0));
    }
    return drift;
}

/* The drift shrinks with dt at the integrator's order: ~1 for semi-implicit Euler, ~4 for
 * RK4 (which only happens if ABA's accelerations are those of the energy's Lagrangian). */
static void pendulum_chain_energy_drift_order(void **state) {
    (void)state;
    lucid_model *m = pendulum_chain(7, 0.2);
    assert_non_null(m);
    lucid_model_data *d;
    assert_int_equal(lucid_model_data_create(m, &d), LUCID_OK);
    for (int rk4 = 0; rk4 < 2; ++rk4) {
        double dts[3] = {rk4 ? 4e-3 : 4e-4, rk4 ? 2e-3 : 2e-4, rk4 ? 1e-3 : 1e-4}, e[3];
        for (int k = 0; k < 3; ++k) e[k] = chain_drift(m, d, dts[k], rk4);
        double o1 = log2(e[0] / e[1]), o2 = log2(e[1] / e[2]);
        print_message("%s: drift %.3g %.3g %.3g J at dt %g %g %g: order %.2f %.2f\n",
                      rk4 ? "RK4" : "semi-implicit Euler", e[0], e[1], e[2], dts[0], dts[1], dts[2],
                      o1, o2);
        double want = rk4 ? 4.0 : 1.0;
        assert_true(fabs(o1 - want) < 0.35 * want && fabs(o2 - want) < 0.35 * want);
    }
    lucid_model_data_destroy(d);
    lucid_model_destroy(m);
}

/* Central differences of f(q (+) t e_k, v + s e_k) for the derivative tests: which = 0 rnea,
 * 1 aba; column k of the q (dir 0) or v (dir 1) derivative into col. */
static void fd_column(fixture *f, int which, int dir, size_t k, double h, double *col) {
    size_t nv = f->nv;
    double *qp = calloc(f->nq, sizeof(double)), *vp = calloc(nv, sizeof(double)),
           *e = calloc(nv, sizeof(double)), *out[2];
    out[0] = calloc(nv, sizeof(double)), out[1] = calloc(nv, sizeof(double));
    for (int side = 0; side < 2; ++side) {
        double t = side ? h : -h;
        memcpy(vp, f->v, nv * sizeof(double));
        memcpy(qp, f->q, f->nq * sizeof(double));
        if (dir == 0) {
            e[k] = t;
            lucid_model_integrate(f->m, f->q, e, 1.0, qp);
            e[k] = 0.0;
        } else {
            vp[k] += t;
        }
        if (which == 0)
            lucid_model_rnea(f->m, f->d, qp, vp, f->a, out[side]);
        else
            lucid_model_aba(f->m, f->d, qp, vp, f->tau, out[side]);
    }
    for (size_t r = 0; r < nv; ++r) col[r] = (out[1][r] - out[0][r]) / (2 * h);
    free(qp), free(vp), free(e), free(out[0]), free(out[1]);
}

/* d rnea / dq, dv and d aba / dq, dv, dtau against central differences in the tangent space
 * of q (Richardson-extrapolated from steps 2h and h: fourth order; h = 1e-4 for q, 0.1 for v,
 * where both functions are quadratic so that only rounding is left), to 1e-8 of the largest
 * entry (issue 11's threshold); da_dtau against M^-1. */
static void derivatives_match_finite_differences(void **state) {
    (void)state;
    double worst[2] = {0.0, 0.0};
    for (int s = 0; s < 4; ++s) {
        fixture f;
        fixture_make(&f, random_model(1100 + (uint64_t)s, NBODIES));
        lucid_rng rng;
        lucid_rng_seed(&rng, 61 + (uint64_t)s);
        uint64_t st = 67 + (uint64_t)s;
        size_t nv = f.nv;
        double *dq = calloc(nv * nv, sizeof(double)), *dv = calloc(nv * nv, sizeof(double)),
               *dtau = calloc(nv * nv, sizeof(double)), *col = calloc(nv, sizeof(double)),
               *col2 = calloc(nv, sizeof(double));
        random_state(&f, &rng, &st);
        random_vector(&st, f.a, nv, 3.0);
        for (int which = 0; which < 2; ++which) {
            if (which == 0)
                lucid_model_rnea_derivatives(f.m, f.d, f.q, f.v, f.a, dq, dv);
            else
                lucid_model_aba_derivatives(f.m, f.d, f.q, f.v, f.tau, f.tau2, dq, dv, dtau);
            for (int dir = 0; dir < 2; ++dir) {
                const double *D = dir ? dv : dq;
                double scale = norm_inf(D, nv * nv), err = 0.0;
                for (size_t k = 0; k < nv; ++k) { /* Richardson: (4 D(h/2) - D(h)) / 3 */
                    double h = dir ? 0.1 : 1e-4;  /* rnea, aba are quadratic in v: no truncation */
                    fd_column(&f, which, dir, k, 2 * h, col);
                    fd_column(&f, which, dir, k, h, col2);
                    for (size_t r = 0; r < nv; ++r) col[r] = (4 * col2[r] - col[r]) / 3;
                    err = fmax(err, diff_inf(col, D + k * nv, nv));
                }
                worst[which] = fmax(worst[which], err / scale);
                assert_true(err <= 1e-8 * scale);
            }
        }
        /* da_dtau = M^-1: M da_dtau = I */
        lucid_model_crba(f.m, f.d, f.q);
        const double *M = lucid_model_data_mass_matrix(f.d);
        for (size_t c = 0; c < nv; ++c)
            for (size_t r = 0; r < nv; ++r) {
                double t = 0.0;
                for (size_t k = 0; k < nv; ++k) t += M[r + nv * k] * dtau[k + nv * c];
                assert_true(fabs(t - (r == c)) <= 1e-9);
            }
        free(dq), free(dv), free(dtau), free(col), free(col2);
        fixture_free(&f);
    }
    print_message("derivatives vs central differences: rnea %.3g, aba %.3g (relative)\n", worst[0],
                  worst[1]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_models_have_every_kind),
        cmocka_unit_test(rnea_inverts_aba),
        cmocka_unit_test(crba_columns_are_rnea),
        cmocka_unit_test(aba_matches_dense_forward_dynamics),
        cmocka_unit_test(ltdl_matches_dense_cholesky),
        cmocka_unit_test(ltdl_is_sparse),
        cmocka_unit_test(energy_power_balance),
        cmocka_unit_test(free_body_newton_euler),
        cmocka_unit_test(pendulum_textbook),
        cmocka_unit_test(pendulum_chain_energy_drift_order),
        cmocka_unit_test(derivatives_match_finite_differences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
