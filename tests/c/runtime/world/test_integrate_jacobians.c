/* The integrator's Jacobians (runtime/model/configuration_jacobians.c,
 * runtime/world/world_integrate_jacobians.c) against central differences of the integrators
 * themselves (lucid_model_integrate, lucid_world_step_integrate), read back as tangents at the
 * result by lucid_model_difference / lucid_world_state_difference: every joint kind (a random
 * 20-body tree has them all), free bodies with their centre of mass off the body origin, at
 * large (|dt w| up to ~3 rad), moderate, tiny (1e-7) and zero rotations.
 *
 * Tolerance: the central differences' error is truncation h^2/6 |x'''| plus rounding
 * ~1e-16 |x| / h; with steps of 1e-6 in q's tangent and in dt v (v's step 1e-6 / dt) both stay
 * below ~1e-9 of the largest entry, and the measured errors are a few 1e-10 (printed). The check is
 * max|J - J_fd| <= 1e-8 max|J|. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/model/configuration.h"
#include "runtime/world/world_internal.h"
#include "tests/c/common/test_model_util.h"

static const double TOL = 1e-8;
/* max |dt w| per component scale: large (|dt w| up to ~3 rad), moderate, tiny, zero */
static const double SCALES[4] = {1.7, 0.3, 1e-7, 0.0};

static double max_abs(const double *a, size_t n) {
    double m = 0.0;
    for (size_t k = 0; k < n; ++k) m = fmax(m, fabs(a[k]));
    return m;
}

/* max|J - F| / max|J| */
static double rel_err(const double *J, const double *F, size_t n) {
    double e = 0.0;
    for (size_t k = 0; k < n; ++k) e = fmax(e, fabs(J[k] - F[k]));
    return e / max_abs(J, n);
}

/* ---- joint manifolds -------------------------------------------------------------------- */

typedef struct {
    const lucid_model *m;
    size_t nq, nv;
    double *q, *v, *q1, *qs, *q1s, *vs, *dq, *dp, *dm;
} model_case;

/* q1 (+) d(+-) from the integration of (q (+) dq, v + dv), one column of the FD Jacobian. */
static void model_column(model_case *c, double dt, size_t j, double h, int wrt_v, double *col) {
    for (int side = 0; side < 2; ++side) {
        double s = side ? -h : h;
        memcpy(c->vs, c->v, c->nv * sizeof(double));
        memcpy(c->qs, c->q, c->nq * sizeof(double));
        if (wrt_v) {
            c->vs[j] += s;
        } else {
            memset(c->dq, 0, c->nv * sizeof(double));
            c->dq[j] = s;
            lucid_model_integrate(c->m, c->q, c->dq, 1.0, c->qs);
        }
        lucid_model_integrate(c->m, c->qs, c->vs, dt, c->q1s);
        lucid_model_difference(c->m, c->q1, c->q1s, side ? c->dm : c->dp);
    }
    for (size_t r = 0; r < c->nv; ++r) col[r] = (c->dp[r] - c->dm[r]) / (2.0 * h);
}

static void check_model(const lucid_model *m, uint64_t *s, double dt, double scale) {
    model_case c = {.m = m, .nq = lucid_model_nq(m), .nv = lucid_model_nv(m)};
    size_t nq = c.nq, nv = c.nv;
    double **bufs[] = {&c.q, &c.q1, &c.qs, &c.q1s};
    for (size_t k = 0; k < 4; ++k) *bufs[k] = malloc(nq * sizeof(double));
    double **vb[] = {&c.v, &c.vs, &c.dq, &c.dp, &c.dm};
    for (size_t k = 0; k < 5; ++k) *vb[k] = malloc(nv * sizeof(double));
    double *Jq = malloc(nv * nv * sizeof(double)), *Jv = malloc(nv * nv * sizeof(double));
    double *Fq = malloc(nv * nv * sizeof(double)), *Fv = malloc(nv * nv * sizeof(double));
    lucid_rng rng;
    lucid_rng_seed(&rng, *s);
    lucid_model_random_configuration(m, &rng, c.q);
    for (size_t k = 0; k < nv; ++k) c.v[k] = urange(s, -scale, scale) / dt;
    lucid_model_integrate(m, c.q, c.v, dt, c.q1);
    lucid_model_integrate_jacobians(m, c.q, c.v, dt, Jq, Jv);
    double h = 1e-6 * fmax(1.0, dt * max_abs(c.v, nv)) / dt; /* dt v moves by 1e-6 */
    for (size_t j = 0; j < nv; ++j) {
        model_column(&c, dt, j, 1e-6, 0, Fq + nv * j);
        model_column(&c, dt, j, h, 1, Fv + nv * j);
    }
    double eq = rel_err(Jq, Fq, nv * nv), ev = rel_err(Jv, Fv, nv * nv);
    printf("model nv %zu dt %g scale %g: Jq err %.2e, Jv err %.2e\n", nv, dt, scale, eq, ev);
    assert_true(eq <= TOL);
    assert_true(ev <= TOL);
    /* the _ld form writes only its block, and NULL outputs are skipped */
    size_t ld = nv + 3;
    double *big = malloc(ld * nv * sizeof(double));
    for (size_t k = 0; k < ld * nv; ++k) big[k] = 7.0;
    lucid_model_integrate_jacobians_ld(m, c.q, c.v, dt, NULL, big, ld);
    for (size_t col = 0; col < nv; ++col) {
        assert_memory_equal(big + ld * col, Jv + nv * col, nv * sizeof(double));
        for (size_t r = nv; r < ld; ++r) assert_true(big[r + ld * col] == 7.0);
    }
    free(big);
    for (size_t k = 0; k < 4; ++k) free(*bufs[k]);
    for (size_t k = 0; k < 5; ++k) free(*vb[k]);
    free(Jq), free(Jv), free(Fq), free(Fv);
}

static void test_joint_manifolds(void **state) {
    (void)state;
    uint64_t s = 11;
    for (int seed = 0; seed < 3; ++seed) {
        lucid_model *m = random_model(100 + (uint64_t)seed, 20);
        assert_non_null(m);
        for (int k = 0; k < 4; ++k) {
            check_model(m, &s, 1.0, SCALES[k]);
            check_model(m, &s, 0.01, SCALES[k]);
        }
        lucid_model_destroy(m);
    }
}

/* ---- the world's integration ------------------------------------------------------------ */

/* Free bodies whose centres of mass are off their origins (two offset spheres of different
 * radii), then two random models with every joint kind; no static body, no gravity. */
static lucid_world *make_world(uint64_t *s, double dt, lucid_model **models) {
    lucid_world_options o;
    lucid_world_default_options(&o);
    o.dt = dt;
    o.gravity = lucid_vec3_zero();
    lucid_world *w = NULL;
    assert_int_equal(lucid_world_create(&o, &w), LUCID_OK);
    for (int b = 0; b < 3; ++b) {
        lucid_body_part parts[2];
        for (int k = 0; k < 2; ++k) {
            parts[k].pose = lucid_se3_make(
                random_rotation(s),
                lucid_vec3_make(urange(s, -0.4, 0.4), urange(s, -0.4, 0.4), urange(s, -0.4, 0.4)));
            assert_int_equal(lucid_shape_sphere(k ? 0.1 : 0.2, &parts[k].shape), LUCID_OK);
        }
        lucid_body_desc d;
        lucid_body_desc_default(&d);
        d.parts = parts, d.num_parts = 2;
        d.pose = lucid_se3_make(random_rotation(s), lucid_vec3_make(3.0 * b, 0, 0));
        int id;
        assert_int_equal(lucid_world_add_body(w, &d, &id, NULL), LUCID_OK);
    }
    for (int i = 0; i < 2; ++i) {
        models[i] = random_model(200 + (uint64_t)i, 20);
        assert_non_null(models[i]);
        lucid_world_model_desc md;
        lucid_world_model_desc_default(&md);
        md.pose.t = lucid_vec3_make(0, 5.0 * (i + 1), 0);
        int id;
        assert_int_equal(lucid_world_add_model(w, models[i], &md, &id, NULL), LUCID_OK);
    }
    return w;
}

typedef struct {
    lucid_world *w;
    size_t nx, nt, np;
    double *x0, *x1, *xs, *dx, *p, *ps, *dp, *dm;
} world_case;

/* x+ from configuration x (state) and final velocities p, into out. */
static void integrate_from(world_case *c, const double *x, const double *p, double *out) {
    assert_int_equal(lucid_world_set_state(c->w, x, NULL), LUCID_OK);
    lucid_world_set_post_velocity(c->w, p);
    assert_int_equal(lucid_world_step_integrate(c->w), LUCID_OK);
    lucid_world_get_state(c->w, out);
}

/* Column j of dx+/dp (wrt_p) or dx+/d(position tangent of x0), by central differences. */
static void world_column(world_case *c, size_t j, double h, int wrt_p, double *col) {
    for (int side = 0; side < 2; ++side) {
        double s = side ? -h : h;
        memcpy(c->ps, c->p, c->np * sizeof(double));
        const double *x = c->x0;
        if (wrt_p) {
            c->ps[j] += s;
        } else {
            memset(c->dx, 0, c->nt * sizeof(double));
            c->dx[j] = s;
            assert_int_equal(lucid_world_state_integrate(c->w, c->x0, c->dx, c->xs), LUCID_OK);
            x = c->xs;
        }
        double *xp = malloc(c->nx * sizeof(double));
        integrate_from(c, x, c->ps, xp);
        assert_int_equal(lucid_world_state_difference(c->w, c->x1, xp, side ? c->dm : c->dp),
                         LUCID_OK);
        free(xp);
    }
    for (size_t r = 0; r < c->nt; ++r) col[r] = (c->dp[r] - c->dm[r]) / (2.0 * h);
}

static void check_world(lucid_world *w, uint64_t *s, double scale) {
    world_case c = {
        .w = w, .nx = (size_t)lucid_world_state_size(w), .nt = (size_t)lucid_world_tangent_size(w)};
    c.np = c.nt / 2;
    double dt = w->opt.dt;
    c.x0 = malloc(c.nx * sizeof(double)), c.x1 = malloc(c.nx * sizeof(double));
    c.xs = malloc(c.nx * sizeof(double));
    double **tb[] = {&c.dx, &c.dp, &c.dm};
    for (size_t k = 0; k < 3; ++k) *tb[k] = malloc(c.nt * sizeof(double));
    c.p = malloc(c.np * sizeof(double)), c.ps = malloc(c.np * sizeof(double));
    size_t n = c.nt * c.np;
    double *Dq = malloc(n * sizeof(double)), *Dp = malloc(n * sizeof(double));
    double *Fq = malloc(n * sizeof(double)), *Fp = malloc(n * sizeof(double));
    /* a random configuration: the bodies turned at random, the models' own random q */
    lucid_world_get_state(w, c.x0);
    double *qm = c.x0 + 21; /* after the 3 free bodies' (x, y, z, quaternion) */
    for (int i = 0; i < lucid_world_model_count(w); ++i) {
        const lucid_model *m = lucid_world_model_of(w, i);
        lucid_rng rng;
        lucid_rng_seed(&rng, *s + (uint64_t)i);
        lucid_model_random_configuration(m, &rng, qm);
        qm += lucid_model_nq(m);
    }
    for (size_t k = 0; k < 3; ++k) {
        lucid_quat r =
            lucid_quat_make(urange(s, -1, 1), urange(s, -1, 1), urange(s, -1, 1), urange(s, -1, 1));
        lucid_quat_normalize(&r);
        double *q = c.x0 + 7 * k;
        q[3] = r.w, q[4] = r.x, q[5] = r.y, q[6] = r.z;
    }
    for (size_t k = 0; k < c.np; ++k) c.p[k] = urange(s, -scale, scale) / dt;
    integrate_from(&c, c.x0, c.p, c.x1);
    lucid_world_integrate_jacobians(w, c.x0, c.p, Dq, Dp);
    double h = 1e-6 * fmax(1.0, dt * max_abs(c.p, c.np)) / dt; /* dt p moves by 1e-6 */
    for (size_t j = 0; j < c.np; ++j) {
        world_column(&c, j, h, 1, Fp + c.nt * j);
        world_column(&c, j, 1e-6, 0, Fq + c.nt * j);
    }
    double eq = rel_err(Dq, Fq, n), ep = rel_err(Dp, Fp, n);
    /* the free bodies' blocks alone (18 columns), where the centres of mass enter */
    double ebq = rel_err(Dq, Fq, c.nt * 18), ebp = rel_err(Dp, Fp, c.nt * 18);
    printf("world nt %zu scale %g: Dq err %.2e (bodies %.2e), Dp err %.2e (bodies %.2e)\n", c.nt,
           scale, eq, ebq, ep, ebp);
    assert_true(eq <= TOL && ebq <= TOL);
    assert_true(ep <= TOL && ebp <= TOL);
    /* either output may be NULL, the other unchanged */
    lucid_world_integrate_jacobians(w, c.x0, c.p, NULL, Fp);
    lucid_world_integrate_jacobians(w, c.x0, c.p, Fq, NULL);
    assert_memory_equal(Fp, Dp, n * sizeof(double));
    assert_memory_equal(Fq, Dq, n * sizeof(double));
    free(c.x0), free(c.x1), free(c.xs), free(c.p), free(c.ps);
    for (size_t k = 0; k < 3; ++k) free(*tb[k]);
    free(Dq), free(Dp), free(Fq), free(Fp);
}

static void test_world_integration(void **state) {
    (void)state;
    uint64_t s = 23;
    lucid_model *models[2];
    lucid_world *w = make_world(&s, 0.01, models);
    /* the velocity buffers of a step (no contacts: nothing touches) */
    assert_int_equal(lucid_world_step(w), LUCID_OK);
    assert_int_equal(lucid_world_contact_count(w), 0);
    for (int k = 0; k < 4; ++k) check_world(w, &s, SCALES[k]);
    lucid_world_destroy(w);
    lucid_model_destroy(models[0]), lucid_model_destroy(models[1]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_joint_manifolds),
        cmocka_unit_test(test_world_integration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
