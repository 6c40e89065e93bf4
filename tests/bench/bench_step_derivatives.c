/* Step derivatives A = dx+/dx, B = dx+/du (issue 11, "Benchmark"): lucid's
 * lucid_world_step_derivatives ("implicit": IFT on the contact solution + central differences
 * of the fixed-force step map; "finite_differences": central differences of whole steps)
 * against MuJoCo 2.2.2's mjd_transitionFD (centred), in the same run, on the same scenes:
 *   box       a 0.2 m box of 1 kg resting 2e-4 m deep in the floor (below the slop, where the
 *             step is differentiable: docs/step_derivatives.md "Kinks"), 6 wrench controls;
 *             MuJoCo reads the same scene from a small MJCF (6 motors on the free joint)
 *   humanoid  MuJoCo's humanoid lying on its floor (controls 0), settled for --settle seconds,
 *             then lowered --sink m (2e-4) into the floor on both sides: a settled contact rests
 *             exactly at lucid's rest depth, a kink of the step (docs/step_derivatives.md),
 *             where no derivative exists for a reference to measure; below the slop it has one.
 *             Likewise every joint beyond its limit is pushed --sink rad further past it, on
 *             both sides: a joint pressed against its limit settles exactly at -slop, the
 *             other kink
 *   allegro   the Allegro hand closing on its cube (bench_robot_step's grasp), settled
 *   touch     the same hand at its first touch of the cube, where the step is differentiable
 *             (the settled grasp is hyperstatic, its contacts at the rest-depth kink and on the
 *             cone's edge: docs/step_derivatives.md): lucid at the first step that presses on the
 *             cube with every contact >= 1e-6 from the kinks (as tests/lua/
 *             test_step_derivatives.lua), MuJoCo at its own first contact with it; the
 *             reference sweep of A starts at h = 1e-6 there (TOUCH_SWEEP_H0 says why)
 * Timings: CPU time of one derivative call from the settled state (lucid: one step plus the
 * derivatives, cold started after lucid_world_set_state; MuJoCo: mjd_transitionFD, which also
 * evaluates the nominal step, from its restored warm start), best of --repeats; "lucid
 * implicit, warm" times lucid warm started as in a rollout (WARM_STEPS untimed steps from the
 * same state, then successive calls: states a few steps later, so timing only). Errors: relative
 * max-norm max|X - X_ref| / max|X_ref| of A and of B, each simulator against a high-accuracy
 * reference of its OWN step map (lucid: finite differences with the contact solver at tol 1e-14,
 * 1e-11 on the Allegro grasp (ALLEGRO_REFERENCE_TOL says why); MuJoCo: centred mjd_transitionFD
 * with its solver at tolerance 1e-14), both as a step sweep h = 1e-4 2^-k, k = 0..6, with
 * Richardson extrapolation (4 D(h/2) - D(h)) / 3, keeping the extrapolant where consecutive ones
 * agree best; that agreement is printed as the reference's own uncertainty (lucid's box B: the
 * exact B = 0 of its sticking contacts instead, box_analytic_b). The two simulators'
 * states differ (lucid: tangent 2 nv, free bodies' twists in the body frame; MuJoCo: 2 nv + na,
 * free joints' linear velocity in the world frame) and each settles on its own, so per-scene
 * costs are compared, and each error only against its own reference.
 *
 *   OPENBLAS_NUM_THREADS=1 build/tests/bench/bench_step_derivatives [--repeats R]
 *       [--settle S] [--eps H] [--sink D] [--scene box|humanoid|allegro]
 *       [--no-reference] [--profile N] [--geometry auto|collide|carried]
 * "(lucid step alone, cold)" is one plain lucid_world_step from the same state, the nominal step
 * the implicit method solves first: the targets' lines split the implicit time into it and the
 * derivatives beyond it. "lucid implicit" carries the contacts to the perturbed configurations by
 * their geometry derivatives where every contact has one (the default; the row says "(collide)"
 * where it fell back), "lucid implicit collide" re-runs collision detection there (the old path).
 * --profile N times only lucid's implicit method, N calls (for perf; --geometry collide: the
 * old path; auto: both, interleaved; carried: the default path alone); BENCH_SD_DUMP=1 prints
 * the reference sweeps of B and the entries of A where lucid's methods differ from the
 * reference by more than 1e-3, to stderr.
 * MuJoCo is dlopen'ed (tests/bench/mujoco_api.h); without it only lucid's side is printed.
 * The Allegro scene needs $LUCID_SHARED_DIR (or ../shared); it is skipped when absent. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/world/step_derivatives.h"
#include "mujoco_api.h"
#include "robot_scene.h"

#define SWEEP    7    /* h_k = h0 2^-k */
#define SWEEP_H0 1e-4 /* the largest step of the reference sweep */
/* The touching hand's A: its contacts are only >= TOUCH_KINK_DISTANCE from the kinks, so the
 * sweep's steps stay below that (tests/lua/test_step_derivatives.lua uses 3e-7 and 1e-7). Its B
 * sweeps from SWEEP_H0: a control moves no separation of the step (the kinks are in the
 * separations at its start), so only a mode switch bounds h there; at h <= 1e-6 the sweep's B
 * is the whole steps' noise (3e-7 on an entry of 7.74). */
#define TOUCH_SWEEP_H0      1e-6
#define TOUCH_KINK_DISTANCE 1e-6
#define TOUCH_MAX_STEPS     300
#define REFERENCE_TOL       1e-14
/* The Allegro grasp's reference tol: its cube is held in force closure with mu = 1, so
 * internal squeezing forces are undetermined (G has a null space that meets the cones' interior)
 * and ADMM's iterate drifts along them: it stalls at an NCP criterion of ~3e-6 whatever tol or
 * max_iter, and at 1e-14 the world keeps that unconverged answer (its interior-point attempt,
 * kept only when it meets tol, ends at ~3e-12). At 1e-11 every reference step is the interior
 * point's answer, converged. */
#define ALLEGRO_REFERENCE_TOL 1e-11

/* Jacobians of one simulator at one step size: A (na entries), B (nb entries). */
typedef int (*jacobian_fn)(void *ctx, double h, double *A, double *B);

typedef struct timing {
    double us;           /* best CPU time, microseconds */
    double err_a, err_b; /* relative max-norm errors against the reference */
    int contacts, fallback, nt, nu;
    int carried; /* the position columns carried the contacts (no collision detection) */
} timing;

/* max|x - r| / max(max|r|, floor) (NaN when empty): floor = dt keeps a block that friction
 * holds near 0 (a sticking box's B) from dividing noise by noise, as tests/lua/
 * test_step_derivatives.lua does. */
static double relative_error(const double *x, const double *r, int n, double floor) {
    double e = 0, s = floor;
    for (int i = 0; i < n; ++i) e = fmax(e, fabs(x[i] - r[i])), s = fmax(s, fabs(r[i]));
    return n > 0 && s > 0 ? e / s : NAN;
}

/* The Richardson extrapolants R_k = (4 D_{k+1} - D_k)/3 of a sweep D (SWEEP x n); ref = the
 * R_{k+1} of the consecutive pair that agrees best, *uncertainty = that agreement, relative. */
static void richardson(const double *D, int n, double floor, double *ref, double *uncertainty) {
    double *R = malloc(sizeof(double) * (size_t)(SWEEP - 1) * (size_t)n + 1);
    for (int k = 0; k + 1 < SWEEP; ++k)
        for (int i = 0; i < n; ++i)
            R[(size_t)k * n + i] = (4 * D[(size_t)(k + 1) * n + i] - D[(size_t)k * n + i]) / 3;
    int best = 0;
    double agree = INFINITY;
    for (int k = 0; k + 2 < SWEEP; ++k) {
        double e = relative_error(R + (size_t)k * n, R + (size_t)(k + 1) * n, n, floor);
        if (e < agree || (isnan(agree) && !isnan(e))) agree = e, best = k + 1;
    }
    memcpy(ref, R + (size_t)best * n, sizeof(double) * (size_t)n);
    *uncertainty = agree;
    free(R);
}

/* The reference (A, B) of f by the sweep from h0a for A and from h0b for B (a second sweep
 * when they differ, its A discarded); 0 when an evaluation fails. */
static int reference(jacobian_fn f, void *ctx, int na, int nb, double dt, double h0a, double h0b,
                     double *A, double *B, double *ua, double *ub) {
    double *DA = malloc(sizeof(double) * ((size_t)SWEEP * na + 1));
    double *DB = malloc(sizeof(double) * ((size_t)SWEEP * nb + 1));
    int ok = 1;
    for (int k = 0; k < SWEEP && ok; ++k)
        ok = f(ctx, h0a * ldexp(1.0, -k), DA + (size_t)k * na, DB + (size_t)k * nb);
    if (ok) richardson(DA, na, dt, A, ua);
    for (int k = 0; k < SWEEP && ok && h0b != h0a; ++k)
        ok = f(ctx, h0b * ldexp(1.0, -k), DA + (size_t)k * na, DB + (size_t)k * nb);
    if (ok) richardson(DB, nb, dt, B, ub);
    if (ok && getenv("BENCH_SD_DUMP"))
        for (int k = 0; k < SWEEP; ++k) {
            fprintf(stderr, "h=%g B:", h0b * ldexp(1.0, -k));
            for (int i = 0; i < nb; ++i) fprintf(stderr, " %.3e", DB[(size_t)k * nb + i]);
            fprintf(stderr, "\n");
        }
    free(DA);
    free(DB);
    return ok;
}

/* ---- lucid ---- */

typedef struct lucid_side {
    lucid_world *w; /* the timed world (default options) */
    lucid_world *r; /* the reference world (contact tol ref_tol) */
    const double *x;
    int nt, nu;
    double dt, ref_tol;
} lucid_side;

/* One call of lucid_world_step_derivatives on w from state x (NULL: w's own, warm started);
 * copies A, B when asked. */
static int lucid_jacobians(lucid_world *w, const double *x, lucid_step_method method,
                           lucid_step_geometry geometry, double h, double tol, int max_iter,
                           double *A, double *B, lucid_step_jacobians *info) {
    lucid_step_derivative_options o;
    lucid_step_derivative_default_options(&o);
    o.method = method;
    o.geometry = geometry;
    o.step = h;
    if (tol > 0) o.tol = tol, o.max_iter = max_iter;
    lucid_step_jacobians J;
    memset(&J, 0, sizeof J);
    const char *why = NULL;
    if (x) lucid_world_set_state(w, x, NULL); /* else from where w is, its warm start kept */
    lucid_status s = lucid_world_step_derivatives(w, &o, &J, &why);
    if (s != LUCID_OK) {
        fprintf(stderr, "lucid_world_step_derivatives: %s\n",
                why ? why : lucid_world_last_error(w));
        return 0;
    }
    if (A) memcpy(A, J.A, sizeof(double) * (size_t)J.nt * (size_t)J.nt);
    if (B) memcpy(B, J.B, sizeof(double) * (size_t)J.nt * (size_t)J.nu);
    if (info) {
        *info = J;
        info->A = info->B = info->P = NULL, info->mode = NULL, info->margin = NULL;
        info->switched = NULL, info->estimated = NULL;
    }
    lucid_step_jacobians_free(&J);
    return 1;
}

static int lucid_reference_fn(void *ctx, double h, double *A, double *B) {
    lucid_side *s = ctx;
    return lucid_jacobians(s->r, s->x, LUCID_STEP_FINITE_DIFFERENCES, LUCID_STEP_GEOMETRY_AUTO, h,
                           s->ref_tol, 100000, A, B, NULL);
}

/* Times one method on s->w (best of repeats) and measures its error against (Ar, Br). */
static int lucid_time(lucid_side *s, lucid_step_method method, lucid_step_geometry geometry,
                      double eps, int repeats, const double *Ar, const double *Br, timing *t) {
    size_t na = (size_t)s->nt * s->nt, nb = (size_t)s->nt * s->nu;
    double *A = malloc(sizeof(double) * (na + 1)), *B = malloc(sizeof(double) * (nb + 1));
    lucid_step_jacobians info;
    memset(&info, 0, sizeof info);
    t->us = INFINITY;
    int ok = 1;
    for (int rep = 0; rep < repeats && ok; ++rep) {
        double t0 = robot_scene_cpu_seconds();
        ok = lucid_jacobians(s->w, s->x, method, geometry, eps, 0, 0, A, B, &info);
        t->us = fmin(t->us, 1e6 * (robot_scene_cpu_seconds() - t0));
    }
    t->nt = s->nt, t->nu = s->nu;
    t->contacts = info.contacts, t->fallback = info.fallback_columns, t->carried = info.carried;
    t->err_a = Ar ? relative_error(A, Ar, (int)na, s->dt) : NAN;
    if (Ar && getenv("BENCH_SD_DUMP"))
        for (size_t i = 0; i < na; ++i)
            if (fabs(A[i] - Ar[i]) > 1e-3)
                fprintf(stderr, "A row %zu col %zu: %.6e ref %.6e\n", i % (size_t)s->nt,
                        i / (size_t)s->nt, A[i], Ar[i]);
    t->err_b = Br ? relative_error(B, Br, (int)nb, s->dt) : NAN;
    if (Br && getenv("BENCH_SD_DUMP")) {
        size_t worst = 0;
        for (size_t i = 0; i < nb; ++i)
            if (fabs(B[i] - Br[i]) > fabs(B[worst] - Br[worst])) worst = i;
        fprintf(stderr, "B's largest difference: row %zu col %zu (entry %zu): %.9e ref %.9e\n",
                worst % (size_t)s->nt, worst / (size_t)s->nt, worst, B[worst], Br[worst]);
    }
    free(A);
    free(B);
    return ok;
}

/* Untimed steps from s->x before the warm calls: the warm-start memory of a trajectory (forces,
 * duals, the ADMM penalty), as a rollout has it. One step was too few where the cold step
 * misses tol: the Allegro's grasp falls back to PGS then, which carries no penalty. */
#define WARM_STEPS 10

/* The implicit method warm started as in a rollout (and as mjd_transitionFD, which restores
 * MuJoCo's warm start of the settled scene): WARM_STEPS untimed steps from s->x, then each call
 * from the state the previous one left, with its memory (the scenes rest: the state stays by
 * s->x). Timing only: the state is not s->x, so no error. */
static int lucid_time_warm(lucid_side *s, double eps, int repeats, timing *t) {
    lucid_step_jacobians info;
    memset(&info, 0, sizeof info);
    t->us = INFINITY;
    int ok = lucid_world_set_state(s->w, s->x, NULL) == LUCID_OK;
    for (int k = 0; k < WARM_STEPS && ok; ++k) ok = lucid_world_step(s->w) == LUCID_OK;
    for (int rep = 0; rep < repeats && ok; ++rep) {
        double t0 = robot_scene_cpu_seconds();
        ok = ok && lucid_jacobians(s->w, NULL, LUCID_STEP_IMPLICIT, LUCID_STEP_GEOMETRY_AUTO, eps,
                                   0, 0, NULL, NULL, &info);
        t->us = fmin(t->us, 1e6 * (robot_scene_cpu_seconds() - t0));
    }
    t->nt = s->nt, t->nu = s->nu;
    t->contacts = info.contacts, t->fallback = info.fallback_columns, t->carried = info.carried;
    t->err_a = t->err_b = NAN;
    return ok;
}

/* One plain lucid_world_step from s->x, cold started as the implicit method's own nominal step
 * (best of repeats): the floor under the implicit method, whose columns come after it. */
static int lucid_time_step(lucid_side *s, int repeats, timing *t) {
    t->us = INFINITY;
    int ok = 1;
    for (int rep = 0; rep < repeats && ok; ++rep) {
        ok = lucid_world_set_state(s->w, s->x, NULL) == LUCID_OK;
        double t0 = robot_scene_cpu_seconds();
        ok = ok && lucid_world_step(s->w) == LUCID_OK;
        t->us = fmin(t->us, 1e6 * (robot_scene_cpu_seconds() - t0));
    }
    t->nt = s->nt, t->nu = s->nu;
    t->contacts = lucid_world_contact_count(s->w), t->fallback = 0, t->carried = 0;
    t->err_a = t->err_b = NAN;
    return ok;
}

/* The box's B analytically: while its four corner contacts stick, v+ solves J v+ = c, c the
 * contacts' stabilised velocities (functions of q and v, never of the wrench u), and J (12 x 6:
 * four points of a face, three directions each) has full column rank, so v+, and q+ = q (+)
 * dt v+, do not depend on u: B = 0 exactly (lucid's compliance is 0 by default; MuJoCo's soft
 * contacts give it a B of its own). The FD sweep resolves that zero only to its solver's noise
 * over h (tol 1e-14 / 1e-5: ~1e-9, 1e-6 of the floor dt), which is what lucid's exact zeros
 * were measured against. Replaces Br by 0 when the reference world's implicit call says every
 * contact sticks (4 contacts, none near a switch); *agree = how far the sweep's B is from it
 * (relative, as relative_error), NAN when the premise fails and Br stays the sweep's. */
static void box_analytic_b(const lucid_side *s, double *Br, size_t nb, double *agree) {
    lucid_step_derivative_options o;
    lucid_step_derivative_default_options(&o);
    lucid_step_jacobians J;
    memset(&J, 0, sizeof J);
    *agree = NAN;
    int sticking = lucid_world_set_state(s->r, s->x, NULL) == LUCID_OK &&
                   lucid_world_step_derivatives(s->r, &o, &J, NULL) == LUCID_OK && J.contacts == 4;
    for (int k = 0; sticking && k < J.contacts; ++k)
        sticking = J.mode[k] == LUCID_CONTACT_STICKING && J.margin[k] > 0;
    lucid_step_jacobians_free(&J);
    if (!sticking) return;
    double largest = 0.0; /* relative_error(Br, 0): max|Br| over the floor dt (max|0| = 0) */
    for (size_t i = 0; i < nb; ++i) largest = fmax(largest, fabs(Br[i]));
    *agree = largest / s->dt;
    memset(Br, 0, sizeof(double) * nb);
}

/* ---- MuJoCo ---- */

typedef struct mujoco_side {
    const mujoco_api *api;
    mjModel *m;
    mjData *d;
    double *saved; /* qpos, qvel, act, qacc_warmstart, ctrl, time */
    int nt, nu;
} mujoco_side;

static size_t mujoco_state_size(const mjModel *m) {
    return (size_t)m->nq + 2 * (size_t)m->nv + (size_t)m->na + (size_t)m->nu + 1;
}

static void mujoco_copy(mujoco_side *s, int save) {
    const mjModel *m = s->m;
    struct {
        double *p;
        int n;
    } parts[] = {{s->d->qpos, m->nq},           {s->d->qvel, m->nv}, {s->d->act, m->na},
                 {s->d->qacc_warmstart, m->nv}, {s->d->ctrl, m->nu}, {&s->d->time, 1}};
    double *at = s->saved;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; ++i) {
        size_t n = sizeof(double) * (size_t)parts[i].n;
        if (n) {
            if (save)
                memcpy(at, parts[i].p, n);
            else
                memcpy(parts[i].p, at, n);
        }
        at += parts[i].n;
    }
}

static int mujoco_reference_fn(void *ctx, double h, double *A, double *B) {
    mujoco_side *s = ctx;
    mujoco_copy(s, 0);
    s->api->transition_fd(s->m, s->d, h, 1, A, B, NULL, NULL);
    return 1;
}

/* The reference with MuJoCo's solver at tolerance 1e-14 (1000 iterations), then restored. */
static int mujoco_reference(mujoco_side *s, double h0, double *A, double *B, double *ua,
                            double *ub) {
    mjtNum tol = s->m->opt.tolerance;
    int iterations = s->m->opt.iterations;
    s->m->opt.tolerance = REFERENCE_TOL, s->m->opt.iterations = 1000;
    int ok = reference(mujoco_reference_fn, s, s->nt * s->nt, s->nt * s->nu, s->m->opt.timestep, h0,
                       SWEEP_H0, A, B, ua, ub);
    s->m->opt.tolerance = tol, s->m->opt.iterations = iterations;
    return ok;
}

static void mujoco_time(mujoco_side *s, double eps, int repeats, const double *Ar, const double *Br,
                        timing *t) {
    size_t na = (size_t)s->nt * s->nt, nb = (size_t)s->nt * s->nu;
    double *A = malloc(sizeof(double) * (na + 1)), *B = malloc(sizeof(double) * (nb + 1));
    t->us = INFINITY;
    for (int rep = 0; rep < repeats; ++rep) {
        mujoco_copy(s, 0);
        double t0 = robot_scene_cpu_seconds();
        s->api->transition_fd(s->m, s->d, eps, 1, A, B, NULL, NULL);
        t->us = fmin(t->us, 1e6 * (robot_scene_cpu_seconds() - t0));
    }
    mujoco_copy(s, 0);
    s->api->forward(s->m, s->d);
    t->contacts = s->d->ncon, t->fallback = 0, t->nt = s->nt, t->nu = s->nu;
    t->err_a = Ar ? relative_error(A, Ar, (int)na, s->m->opt.timestep) : NAN;
    t->err_b = Br ? relative_error(B, Br, (int)nb, s->m->opt.timestep) : NAN;
    free(A);
    free(B);
}

/* ---- scenes ---- */

#define BOX_HALF  0.1
#define BOX_DEPTH 2e-4
#define BOX_DT    1e-3

/* lucid's box scene: the floor (friction 0.5) and the box, contact options from o. */
static lucid_world *box_world(const lucid_world_options *o) {
    lucid_world_options wo = *o;
    wo.dt = BOX_DT;
    lucid_world *w = NULL;
    if (lucid_world_create(&wo, &w) != LUCID_OK) return NULL;
    lucid_body_part floor_part = {.pose = lucid_se3_identity()},
                    box = {.pose = lucid_se3_identity()};
    lucid_body_desc d;
    lucid_body_desc_default(&d);
    d.parts = &box, d.num_parts = 1, d.has_mass = 1, d.mass = 1.0, d.friction = 0.5;
    d.pose.t = lucid_vec3_make(0, 0, BOX_HALF - BOX_DEPTH);
    int id;
    if (lucid_shape_halfspace(lucid_vec3_make(0, 0, 1), 0.0, &floor_part.shape) != LUCID_OK ||
        lucid_world_add_static(w, &floor_part, 1, &floor_part.pose, 0.5, &id, NULL) != LUCID_OK ||
        lucid_shape_box(BOX_HALF, BOX_HALF, BOX_HALF, &box.shape) != LUCID_OK ||
        lucid_world_add_body(w, &d, &id, NULL) != LUCID_OK) {
        lucid_world_destroy(w);
        return NULL;
    }
    return w;
}

/* The same box for MuJoCo, written to a temporary MJCF (path in buf); 0 on failure. */
static int box_mjcf(char *buf, size_t n) {
    snprintf(buf, n, "/tmp/lucid_bench_box_XXXXXX");
    int fd = mkstemp(buf);
    if (fd < 0) return 0;
    FILE *f = fdopen(fd, "w");
    if (!f) return close(fd), 0;
    fprintf(
        f,
        "<mujoco model=\"box\">\n  <option timestep=\"%g\"/>\n  <worldbody>\n"
        "    <geom type=\"plane\" size=\"5 5 0.1\" friction=\"0.5 0.005 0.0001\"/>\n"
        "    <body pos=\"0 0 %.17g\">\n      <freejoint name=\"root\"/>\n"
        "      <geom type=\"box\" size=\"%g %g %g\" mass=\"1\" friction=\"0.5 0.005 0.0001\"/>\n"
        "    </body>\n  </worldbody>\n  <actuator>\n",
        BOX_DT, BOX_HALF - BOX_DEPTH, BOX_HALF, BOX_HALF, BOX_HALF);
    for (int k = 0; k < 6; ++k)
        fprintf(f, "    <motor joint=\"root\" ctrllimited=\"false\" gear=\"%d %d %d %d %d %d\"/>\n",
                k == 0, k == 1, k == 2, k == 3, k == 4, k == 5);
    fprintf(f, "  </actuator>\n</mujoco>\n");
    return fclose(f) == 0;
}

typedef struct bench_options {
    int repeats, reference, profile;
    double settle, eps, sink;
    const char *only;
    lucid_step_geometry geometry; /* --profile's: --geometry collide times today's path */
    int alone;                    /* --geometry carried: --profile times the default path alone */
} bench_options;

typedef struct scene_result {
    timing implicit, implicit_warm, implicit_collide, fd, mujoco, implicit_tight, step;
    double lucid_ua, lucid_ub, mujoco_ua, mujoco_ub;
    double box_b_agree; /* box_analytic_b's: the FD sweep's B against the exact 0 (NAN: none) */
    int limits_sunk, mujoco_limits_sunk; /* joints pushed past their limits by --sink */
    int steps, mujoco_steps; /* the touching hand's steps to its touch (0 in other scenes) */
    int have_mujoco;
} scene_result;

/* lucid's reference tol of a scene (ALLEGRO_REFERENCE_TOL says why one differs). */
static double reference_tol(const char *which) {
    return strcmp(which, "allegro") == 0 ? ALLEGRO_REFERENCE_TOL : REFERENCE_TOL;
}

/* The largest step of a scene's reference sweep of A (B's: SWEEP_H0 everywhere). */
static double sweep_h0(const char *which) {
    return strcmp(which, "touch") == 0 ? TOUCH_SWEEP_H0 : SWEEP_H0;
}

/* Whether the last step of w pressed on `cube` (a world body) with every contact at least
 * TOUCH_KINK_DISTANCE from both kinks of the reference velocity (the rest depth -slop/2 and
 * -slop: docs/step_derivatives.md, "Kinks"), as tests/lua/test_step_derivatives.lua picks. */
static int touching_off_kinks(const lucid_world *w, int cube) {
    double slop = lucid_world_get_options(w)->slop;
    const lucid_world_contact *c = lucid_world_contacts(w);
    int n = lucid_world_contact_count(w), on_cube = 0;
    for (int k = 0; k < n; ++k) {
        double d = c[k].separation;
        if (fabs(d + slop / 2) < TOUCH_KINK_DISTANCE || fabs(d + slop) < TOUCH_KINK_DISTANCE)
            return 0;
        on_cube |= c[k].limit_sign == 0 && (c[k].body1 == cube || c[k].body2 == cube) &&
                   c[k].force[2] > 0; /* pressing, not a speculative contact */
    }
    return on_cube;
}

/* Steps the closing hand of w (model m) from its start to the first step (after the first)
 * that touches its cube off the kinks, and leaves w at the state before it: its step count in
 * *steps; 0 with a message when none comes within TOUCH_MAX_STEPS. */
static int settle_to_touch(lucid_world *w, const lucid_model *m, int *steps) {
    int cube_link = lucid_model_find_body(m, "cube"), cube = -1, link;
    for (int b = 0; b < lucid_world_body_count(w) && cube < 0; ++b)
        if (lucid_world_body_model(w, b, &link) >= 0 && link == cube_link) cube = b;
    double *x = malloc(sizeof(double) * (size_t)lucid_world_state_size(w));
    int found = 0;
    for (int k = 1; x && cube >= 0 && k <= TOUCH_MAX_STEPS && !found; ++k) {
        lucid_world_get_state(w, x);
        if (lucid_world_step(w) != LUCID_OK) break;
        if (k > 1 && touching_off_kinks(w, cube))
            found = 1, *steps = k - 1, lucid_world_set_state(w, x, NULL);
    }
    free(x);
    if (!found) fprintf(stderr, "touch: the hand does not touch its cube off the kinks\n");
    return found;
}

/* MuJoCo's closing hand stepped to its first contact with the cube (its contacts are soft:
 * no kink to keep away from), left at the state before that step: 0 with a message when none
 * comes within TOUCH_MAX_STEPS. Its warm start is the previous step's, as a rollout's. */
static int mujoco_settle_to_touch(const mujoco_api *api, const mjModel *m, mjData *d, int *steps) {
    int cube = -1;
    for (int b = 0; b < m->nbody && cube < 0; ++b)
        if (strcmp(m->names + m->name_bodyadr[b], "cube") == 0) cube = b;
    for (int k = 1; cube >= 0 && k <= TOUCH_MAX_STEPS; ++k) {
        api->forward(m, d); /* the contacts of the step from here */
        for (int c = 0; c < d->ncon; ++c)
            if (m->geom_bodyid[d->contact[c].geom1] == cube ||
                m->geom_bodyid[d->contact[c].geom2] == cube) {
                *steps = k - 1;
                return 1;
            }
        api->step(m, d);
    }
    fprintf(stderr, "touch: MuJoCo's hand does not touch its cube\n");
    return 0;
}

/* Builds lucid's timed and reference worlds of a scene, settled; 0 on failure. */
static int lucid_scene(const char *which, const robot_scene *sc, double settle, lucid_world **w,
                       lucid_world **r, lucid_model **mw, lucid_model **mr, int *steps) {
    lucid_world_options o, tight;
    lucid_world_default_options(&o);
    tight = o;
    tight.contact.tol = reference_tol(which), tight.contact.max_iter = 100000;
    int id;
    *mw = *mr = NULL;
    *steps = 0;
    if (strcmp(which, "box") == 0) {
        *w = box_world(&o), *r = box_world(&tight);
        return *w && *r;
    }
    if (!robot_scene_lucid(sc, &o, w, mw, &id) || !robot_scene_lucid(sc, &tight, r, mr, &id))
        return 0;
    if (strcmp(which, "touch") == 0) return settle_to_touch(*w, *mw, steps);
    return robot_scene_settle_lucid(sc->name, *w, settle);
}

/* Pushes a coordinate that lies beyond [lo, hi] `sink` further past its bound; 1 when it did. */
static int push_past(double *q, double lo, double hi, double sink) {
    if (*q < lo) *q -= sink;
    if (*q > hi) *q += sink;
    return *q < lo || *q > hi;
}

/* Pushes every limited 1-dof coordinate that lies beyond its bound `sink` further past it
 * (q: the model's nq coordinates; returns how many): a joint pressed against its limit settles
 * exactly at -slop, a kink of lucid's step (docs/step_derivatives.md, "Kinks") where no
 * derivative exists for a reference to measure, as the floor contacts' rest depth is. */
static int sink_limits_lucid(const lucid_model *m, double *q, double sink) {
    const double *lo = lucid_model_lower_limits(m), *hi = lucid_model_upper_limits(m);
    const int *limited = lucid_model_limited(m);
    int n = 0;
    for (size_t i = 0; i < lucid_model_nq(m); ++i)
        if (limited[i]) n += push_past(&q[i], lo[i], hi[i], sink);
    return n;
}

/* The same on MuJoCo's side: its limited hinge and slide joints beyond their range. */
static int sink_limits_mujoco(const mjModel *m, mjData *d, double sink) {
    int n = 0;
    for (int j = 0; j < m->njnt; ++j) {
        if (!m->jnt_limited[j] || (m->jnt_type[j] != mjJNT_HINGE && m->jnt_type[j] != mjJNT_SLIDE))
            continue;
        n += push_past(&d->qpos[m->jnt_qposadr[j]], m->jnt_range[2 * j], m->jnt_range[2 * j + 1],
                       sink);
    }
    return n;
}

static int run_scene(const char *which, const robot_scene *sc, const mujoco_api *api,
                     const bench_options *bo, scene_result *res) {
    lucid_world *w = NULL, *r = NULL;
    lucid_model *mw = NULL, *mr = NULL;
    if (!lucid_scene(which, sc, bo->settle, &w, &r, &mw, &mr, &res->steps)) {
        fprintf(stderr, "%s: cannot make lucid's scene\n", which);
        lucid_world_destroy(w), lucid_world_destroy(r);
        lucid_model_destroy(mw), lucid_model_destroy(mr);
        return 0;
    }
    lucid_side ls = {w,
                     r,
                     NULL,
                     lucid_world_tangent_size(w),
                     lucid_world_controls_size(w),
                     lucid_world_get_options(w)->dt,
                     reference_tol(which)};
    double *x = malloc(sizeof(double) * (size_t)lucid_world_state_size(w));
    lucid_world_get_state(w, x);
    if (strcmp(which, "humanoid") == 0) { /* the model's q leads the state (no free bodies) */
        x[2] -= bo->sink;                 /* the root's z (free joint q) */
        res->limits_sunk = sink_limits_lucid(mw, x, bo->sink);
    }
    ls.x = x;
    size_t na = (size_t)ls.nt * ls.nt, nb = (size_t)ls.nt * ls.nu;
    double *Ar = malloc(sizeof(double) * (na + 1)), *Br = malloc(sizeof(double) * (nb + 1));
    int ok = !bo->reference ||
             reference(lucid_reference_fn, &ls, (int)na, (int)nb, ls.dt, sweep_h0(which), SWEEP_H0,
                       Ar, Br, &res->lucid_ua, &res->lucid_ub);
    if (!bo->reference) res->lucid_ua = res->lucid_ub = NAN;
    res->box_b_agree = NAN;
    if (ok && bo->reference && strcmp(which, "box") == 0) {
        box_analytic_b(&ls, Br, nb, &res->box_b_agree);
        if (!isnan(res->box_b_agree)) res->lucid_ub = 0.0; /* exact */
    }
    if (bo->profile) { /* only the implicit method, for perf */
        ok = lucid_time(&ls, LUCID_STEP_IMPLICIT, bo->geometry, bo->eps, bo->profile, NULL, NULL,
                        &res->implicit);
        printf("%s: lucid implicit (%s) best of %d: %.1f us\n", which,
               res->implicit.carried ? "carried" : "collide", bo->profile, res->implicit.us);
        if (bo->geometry == LUCID_STEP_GEOMETRY_AUTO && !bo->alone) { /* both, interleaved */
            timing a = res->implicit, c = a;
            for (int k = 0; k < bo->profile && ok; ++k) {
                timing t;
                ok = lucid_time(&ls, LUCID_STEP_IMPLICIT, LUCID_STEP_GEOMETRY_COLLIDE, bo->eps, 1,
                                NULL, NULL, &t) &&
                     lucid_time(&ls, LUCID_STEP_IMPLICIT, LUCID_STEP_GEOMETRY_AUTO, bo->eps, 1,
                                NULL, NULL, &res->implicit);
                c.us = k ? fmin(c.us, t.us) : t.us, a.us = fmin(a.us, res->implicit.us);
            }
            printf("%s: interleaved, best of %d: default (%s) %.1f us, collide %.1f us, ratio "
                   "%.3f\n",
                   which, bo->profile, a.carried ? "carried" : "collide", a.us, c.us, a.us / c.us);
        }
        bo = NULL;
    }
    ok = ok && bo &&
         lucid_time(&ls, LUCID_STEP_IMPLICIT, LUCID_STEP_GEOMETRY_AUTO, bo->eps, bo->repeats,
                    bo->reference ? Ar : NULL, bo->reference ? Br : NULL, &res->implicit) &&
         lucid_time_warm(&ls, bo->eps, bo->repeats, &res->implicit_warm) &&
         lucid_time_step(&ls, bo->repeats, &res->step) &&
         lucid_time(&ls, LUCID_STEP_IMPLICIT, LUCID_STEP_GEOMETRY_COLLIDE, bo->eps, bo->repeats,
                    bo->reference ? Ar : NULL, bo->reference ? Br : NULL, &res->implicit_collide) &&
         lucid_time(&ls, LUCID_STEP_FINITE_DIFFERENCES, LUCID_STEP_GEOMETRY_AUTO, bo->eps,
                    bo->repeats, bo->reference ? Ar : NULL, bo->reference ? Br : NULL, &res->fd);
    if (!bo) { /* profiling: nothing else */
        free(Ar), free(Br), free(x);
        lucid_world_destroy(w), lucid_world_destroy(r);
        lucid_model_destroy(mw), lucid_model_destroy(mr);
        return ok;
    }
    lucid_side tight = ls; /* diagnostic: the implicit method on a nominal solved to ref_tol */
    tight.w = r;
    ok = ok &&
         lucid_time(&tight, LUCID_STEP_IMPLICIT, LUCID_STEP_GEOMETRY_AUTO, bo->eps, 1,
                    bo->reference ? Ar : NULL, bo->reference ? Br : NULL, &res->implicit_tight);
    free(Ar);
    free(Br);
    free(x);
    lucid_world_destroy(w);
    lucid_world_destroy(r);
    lucid_model_destroy(mw);
    lucid_model_destroy(mr);
    if (!ok || !api) return ok;

    mujoco_side ms = {api, NULL, NULL, NULL, 0, 0};
    /* settled as long as lucid (the touching hand: to its own first touch of the cube) */
    double seconds = strcmp(which, "box") == 0 || strcmp(which, "touch") == 0 ? 0.0 : bo->settle;
    if (!robot_scene_mujoco(api, sc, seconds, &ms.m, &ms.d)) return 0;
    if (strcmp(which, "touch") == 0 && !mujoco_settle_to_touch(api, ms.m, ms.d, &res->mujoco_steps))
        return 0;
    ms.nt = 2 * ms.m->nv + ms.m->na, ms.nu = ms.m->nu;
    ms.saved = malloc(sizeof(double) * mujoco_state_size(ms.m));
    if (strcmp(which, "humanoid") == 0) {
        ms.d->qpos[2] -= bo->sink;
        res->mujoco_limits_sunk = sink_limits_mujoco(ms.m, ms.d, bo->sink);
    }
    mujoco_copy(&ms, 1);
    na = (size_t)ms.nt * ms.nt, nb = (size_t)ms.nt * ms.nu;
    Ar = malloc(sizeof(double) * (na + 1)), Br = malloc(sizeof(double) * (nb + 1));
    if (bo->reference)
        mujoco_reference(&ms, sweep_h0(which), Ar, Br, &res->mujoco_ua, &res->mujoco_ub);
    else
        res->mujoco_ua = res->mujoco_ub = NAN;
    mujoco_time(&ms, bo->eps, bo->repeats, bo->reference ? Ar : NULL, bo->reference ? Br : NULL,
                &res->mujoco);
    res->have_mujoco = 1;
    free(Ar);
    free(Br);
    free(ms.saved);
    api->delete_data(ms.d);
    api->delete_model(ms.m);
    return 1;
}

static void print_row(const char *scene, const char *method, const timing *t, double ua,
                      double ub) {
    printf("%-9s %-24s %4d %4d %8d %9d %11.1f %9.2e %9.2e %9.1e %9.1e\n", scene, method, t->nt,
           t->nu, t->contacts, t->fallback, t->us, t->err_a, t->err_b, ua, ub);
}

static const char *verdict(int pass) {
    return pass ? "PASS" : "MISS";
}

static void print_scene(const char *which, const scene_result *s) {
    print_row(which, s->implicit.carried ? "lucid implicit" : "lucid implicit (collide)",
              &s->implicit, s->lucid_ua, s->lucid_ub);
    print_row(which, "lucid implicit, warm", &s->implicit_warm, NAN, NAN);
    print_row(which, "(lucid step alone, cold)", &s->step, NAN, NAN);
    print_row(which, "lucid implicit collide", &s->implicit_collide, s->lucid_ua, s->lucid_ub);
    print_row(which, "lucid finite_diff", &s->fd, s->lucid_ua, s->lucid_ub);
    print_row(which, "(lucid implicit, ref tol)", &s->implicit_tight, s->lucid_ua, s->lucid_ub);
    if (s->have_mujoco)
        print_row(which, "MuJoCo mjd_transitionFD", &s->mujoco, s->mujoco_ua, s->mujoco_ub);
    if (strcmp(which, "touch") == 0)
        printf(
            "%-9s the closing hand's first touch of its cube: lucid after %d steps (every "
            "contact >= %g m from the kinks), MuJoCo after %d; reference sweeps from h = %g (A), "
            "%g (B)\n",
            which, s->steps, TOUCH_KINK_DISTANCE, s->mujoco_steps, TOUCH_SWEEP_H0, SWEEP_H0);
    if (s->limits_sunk || s->mujoco_limits_sunk)
        printf("%-9s joints beyond their limits pushed --sink further past them (off lucid's -slop "
               "kink): lucid %d, MuJoCo %d\n",
               which, s->limits_sunk, s->mujoco_limits_sunk);
    if (!isnan(s->box_b_agree))
        printf("%-9s lucid's B reference is exact: B = 0 while the four contacts stick "
               "(box_analytic_b); the FD sweep's B is %.1e from it\n",
               which, s->box_b_agree);
}

/* The targets on one scene: >= 10x cheaper than mjd_transitionFD with a smaller error
 * (of A and of B, each against its own reference). */
static void print_targets(const char *which, const scene_result *s, int humanoid) {
    printf("%-9s lucid implicit / lucid FD time = %.3f", which, s->implicit.us / s->fd.us);
    if (!s->have_mujoco) {
        printf("   (MuJoCo not found: no comparison)\n");
        return;
    }
    double ratio = s->implicit.us / s->mujoco.us;
    int cheaper = ratio <= 0.1;
    int smaller = s->implicit.err_a < s->mujoco.err_a &&
                  (s->implicit.nu == 0 || s->implicit.err_b < s->mujoco.err_b);
    printf(", lucid implicit / MuJoCo time = %.3f (warm started, as MuJoCo: %.3f)\n", ratio,
           s->implicit_warm.us / s->mujoco.us);
    printf("%-9s   target >= 10x cheaper than mjd_transitionFD: %s (%.2fx %s)\n", which,
           verdict(cheaper), ratio < 1 ? 1 / ratio : ratio, ratio < 1 ? "cheaper" : "dearer");
    double warm = s->implicit_warm.us / s->mujoco.us;
    printf("%-9s     warm started, as mjd_transitionFD is:     %s (%.2fx %s)\n", which,
           verdict(warm <= 0.1), warm < 1 ? 1 / warm : warm, warm < 1 ? "cheaper" : "dearer");
    double beyond = s->implicit.us - s->step.us;
    printf("%-9s   where it goes: the nominal step %.1f us (%.0f%%), the derivatives beyond it "
           "%.1f us (%.3f of MuJoCo's time)\n",
           which, s->step.us, 100.0 * s->step.us / s->implicit.us, beyond, beyond / s->mujoco.us);
    /* a block lucid does not win is unresolved when its error is within twice its reference's
     * own uncertainty (it says neither smaller nor larger: the touch's B, the Allegro's grasp);
     * the verdict is UNRESOLVED when every such block is */
    int lose_a = !(s->implicit.err_a < s->mujoco.err_a),
        lose_b = s->implicit.nu > 0 && !(s->implicit.err_b < s->mujoco.err_b);
    int unresolved = !smaller && (!lose_a || s->implicit.err_a <= 2 * s->lucid_ua) &&
                     (!lose_b || s->implicit.err_b <= 2 * s->lucid_ub);
    printf("%-9s   target smaller error (A and B):            %s (A %.2e vs %.2e, B %.2e vs "
           "%.2e)\n",
           which,
           unresolved ? "UNRESOLVED (lucid's error within 2x its reference's uncertainty)"
                      : verdict(smaller),
           s->implicit.err_a, s->mujoco.err_a, s->implicit.err_b, s->mujoco.err_b);
    if (humanoid)
        printf("%-9s   target <= 100 us in contact (%d contacts): %s (%.1f us; warm %.1f us)\n",
               which, s->implicit.contacts,
               verdict(s->implicit.contacts > 0 && s->implicit.us <= 100), s->implicit.us,
               s->implicit_warm.us);
}

static int parse(int argc, char **argv, bench_options *o) {
    *o = (bench_options){5, 1, 0, 2.0, 1e-6, 2e-4, NULL, LUCID_STEP_GEOMETRY_AUTO, 0};
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc)
            o->repeats = atoi(argv[++i]);
        else if (strcmp(argv[i], "--settle") == 0 && i + 1 < argc)
            o->settle = atof(argv[++i]);
        else if (strcmp(argv[i], "--eps") == 0 && i + 1 < argc)
            o->eps = atof(argv[++i]);
        else if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc)
            o->only = argv[++i];
        else if (strcmp(argv[i], "--sink") == 0 && i + 1 < argc)
            o->sink = atof(argv[++i]);
        else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
            o->profile = atoi(argv[++i]);
        else if (strcmp(argv[i], "--geometry") == 0 && i + 1 < argc) {
            o->alone = strcmp(argv[++i], "carried") == 0;
            o->geometry = strcmp(argv[i], "collide") == 0 ? LUCID_STEP_GEOMETRY_COLLIDE
                                                          : LUCID_STEP_GEOMETRY_AUTO;
        } else if (strcmp(argv[i], "--no-reference") == 0)
            o->reference = 0;
        else
            return 0;
    }
    if (o->profile) o->reference = 0;
    return o->repeats >= 1 && o->profile >= 0 && o->settle >= 0 && o->eps > 0 && o->sink >= 0;
}

int main(int argc, char **argv) {
    bench_options bo;
    if (!parse(argc, argv, &bo)) {
        fprintf(stderr,
                "usage: %s [--repeats R >= 1] [--settle S >= 0] [--eps H > 0] [--sink D >= 0] "
                "[--scene box|humanoid|allegro|touch] [--no-reference] [--profile N] [--geometry "
                "auto|collide|carried]\n",
                argv[0]);
        return 2;
    }
    char allegro[1024], box[64];
    robot_scene_allegro_path(allegro, sizeof allegro);
    if (!box_mjcf(box, sizeof box)) {
        fprintf(stderr, "bench_step_derivatives: cannot write the box MJCF\n");
        return 1;
    }
    struct {
        const char *which;
        robot_scene sc;
    } scenes[] = {
        {"box", {"box", box, {0}, 0}},
        {"humanoid", {"humanoid", "/usr/share/mujoco/model/humanoid/humanoid.xml", {0}, 0}},
        {"allegro", robot_scene_allegro(allegro)},
        {"touch", robot_scene_allegro(allegro)}};
    enum { NSCENES = sizeof scenes / sizeof scenes[0] };
    mujoco_api api;
    memset(&api, 0, sizeof api);
    int have_mujoco = load_mujoco(&api);
    printf("step derivatives A = dx+/dx, B = dx+/du: lucid (default world options, ncp:admm "
           "tol 1e-6) vs MuJoCo %s mjd_transitionFD(centred); eps %g, best of %d, CPU us per "
           "call\n",
           have_mujoco ? api.version() : "(not found)", bo.eps, bo.repeats);
    printf("errors: relative max-norm of A and B against each simulator's OWN reference "
           "(FD at solver tol %g, lucid's allegro %g, h sweep %g 2^-k k<%d + Richardson; ref unc "
           "= its agreement),\n"
           "        max|X - X_ref| / max(max|X_ref|, dt)\n",
           REFERENCE_TOL, ALLEGRO_REFERENCE_TOL, SWEEP_H0, SWEEP);
    printf("dims differ: lucid's tangent is 2 nv, MuJoCo's 2 nv + na (and other free-body "
           "velocity frames): costs compare per scene, errors each against its own reference\n");
    printf("%-9s %-24s %4s %4s %8s %9s %11s %9s %9s %9s %9s\n", "scene", "method", "nt", "nu",
           "contacts", "fallback", "CPU us", "err A", "err B", "ref unc A", "ref unc B");
    int status = 0;
    scene_result results[NSCENES];
    int done[NSCENES] = {0};
    for (int i = 0; i < NSCENES; ++i) {
        if (bo.only && strcmp(bo.only, scenes[i].which) != 0) continue;
        if (!robot_scene_readable(scenes[i].sc.path)) {
            printf("%-9s skipped: %s not found\n", scenes[i].which, scenes[i].sc.path);
            continue;
        }
        memset(&results[i], 0, sizeof results[i]);
        if (!run_scene(scenes[i].which, &scenes[i].sc, have_mujoco ? &api : NULL, &bo,
                       &results[i])) {
            status = 1;
            continue;
        }
        if (bo.profile) continue;
        done[i] = 1;
        print_scene(scenes[i].which, &results[i]);
        fflush(stdout);
    }
    printf("targets (issue 11):\n");
    for (int i = 0; i < NSCENES; ++i)
        if (done[i]) print_targets(scenes[i].which, &results[i], i == 1);
    unlink(box);
    return status;
}
