/* The world's internals, shared by the files of runtime/world (not a public header). */
#ifndef LUCID_WORLD_INTERNAL_H
#define LUCID_WORLD_INTERNAL_H

#include "runtime/math/arena.h"
#include <math.h>
#include <stddef.h>

#include "runtime/math/quat.h"
#include "runtime/model/model_spec.h"
#include "runtime/world/world.h"
#include "runtime/world/world_data.h"
#include "solvers/contact/contact_null_rows.h"

typedef struct lucid_body {
    int is_static;
    int part_begin, num_parts;       /* into world->parts */
    double mass, inv_mass;           /* 0 for static bodies */
    lucid_mat3 inertia, inv_inertia; /* about the centre of mass, body axes (0 if static) */
    lucid_vec3 com;                  /* centre of mass in the body frame */
    lucid_se3 pose;                  /* body frame in the world */
    lucid_quat orientation;   /* a free body's rotation, the state's quaternion: pose.R is its
                               * matrix (kept so get_state(set_state(x)) returns x) */
    lucid_vec3 v, w;          /* world twist: velocity of the body origin, angular velocity */
    double twist_body[6];     /* a free body's state velocity, (R^T v, R^T w): kept with v, w
                               * (lucid_body_sync_twist) so get_state(set_state(x)) is x */
    lucid_vec3 force, torque; /* accumulators, cleared by each step */
    double friction, restitution;
    double torsion, rolling; /* m, a free body's torsional and rolling coefficients
                              * (lucid_body_desc); 0 otherwise */
    int model; /* the model whose link (or static geoms) this body is, -1 for a free body */
    int mocap; /* the model's mocap body this static body is, -1 for any other */
    int link;  /* the model's public body it is (-1: the model's static geoms) */
    int node;  /* the model's tree node carrying the link */
} lucid_body;

/* A part's contact parameters: a model geom's (MuJoCo's, docs/model_files.md), or a plain
 * body's part (geom -1), which acts as a geom of MuJoCo's defaults whose friction is its
 * body's (lucid_world_pair_contact). */
typedef struct lucid_part_contact {
    int geom;     /* the model's geom index, -1 for a free or static body's part */
    int condim;   /* 1, 3, 4 (torsional friction as well) or 6 (and rolling) */
    int priority; /* the higher one's condim and friction win a pair */
    double friction, torsion, rolling, margin, gap;
    double reach; /* m: the largest margin it collides at (its own or an explicit pair's), which
                   * its box grows by in the broad phase */
    unsigned contype, conaffinity;
    double size; /* m, the part's smallest half extent, the length its contacts' slop scales
                  * with (INFINITY for halfspaces and heightfields); set by push_body */
} lucid_part_contact;

/* An articulated model in the world (world_model.c). */
typedef struct lucid_model_data lucid_model_data;
typedef struct lucid_world_model {
    const lucid_model *model; /* a reference the world holds (lucid_model_retain) */
    lucid_model_data *data;   /* kinematics and the factorised M~ of the current step */
    lucid_se3 base;           /* the model's world frame in the world */
    double *q, *u, *v;        /* configuration, actuator inputs (held), velocity */
    double *act;              /* the model's na actuator activations (state) */
    double *v_free, *v_start; /* free (then final) velocity of the step, and its start */
    double *work;             /* 4 nv */
    double *moment;           /* nv: a q-dependent moment (spatial tendon, slider-crank) */
    double *q_start;          /* nq: the configuration the last step started from */
    int stepped;              /* 1 when q_start, v_start and v are the last step's (the step
                               * sensors read them), 0 before a step and after the state is set */
    double restitution;
    double friction; /* the friction given for the model (every geom's and pair's), -1: none */
    int pairs;       /* its explicit pairs collide (some, and the collision mode not dynamic) */
    int predefined;  /* its own geom pairs collide through explicit pairs only */
    int first_body, num_bodies; /* the world bodies of its links, contiguous */
    int static_body;            /* the world body of its static geoms, -1 when none */
    int first_mocap;            /* the world bodies of its mocap bodies, contiguous (-1: none) */
    /* Its trees: contiguous dof ranges [tree_dof[t], tree_dof[t + 1]), each a union of whole
     * subtrees hanging from the model's world body (a free body, a fixed-base arm), so M~ is
     * block diagonal over them: each is a slot and connects islands as a free body does. */
    int num_trees, first_tree; /* first_tree: the trees of the models before it */
    size_t *tree_dof;          /* num_trees + 1 offsets */
    int *dof_tree;             /* per dof */
    /* its equality rows (world_equality.c): E, F = M~^-1 E^T, the pivoted factor of S = E F
     * and its rank, of this step's configuration; NULL without equality constraints */
    double *eq;
    size_t *eq_piv, eq_rank;
} lucid_world_model;

/* Whether the ray p + t d (t >= 0) meets a zone centred at the origin of its frame, as MuJoCo's
 * mju_rayGeom >= 0 (always when p is inside): the touch sensor's test (world_sensors.c). */
int lucid_world_ray_meets_zone(lucid_zone_kind kind, const double s[3], lucid_vec3 p, lucid_vec3 d);

/* Grow-only array helper: *buf holds *cap elements of size bytes; makes room for n (the
 * capacity doubles, saturating at n). LUCID_ERR_NO_MEMORY when n x size bytes exceed PTRDIFF_MAX
 * or the allocation fails; *buf and *cap are then unchanged. */
lucid_status lucid_world_reserve(void **buf, size_t *cap, size_t n, size_t size);
/* lucid_world_reserve of x's array field f (capacity f_cap) for n elements. */
#define LUCID_RESERVE(x, f, n)                                                                     \
    lucid_world_reserve((void **)&(x)->f, &(x)->f##_cap, n, sizeof *(x)->f)

/* The largest island solved densely: G and the solver's workspace take ~500 m^2 bytes for m
 * contacts (2 GB at this bound) and a factorisation O((3m)^3) flops. A larger island fails
 * the step with LUCID_ERR_NO_MEMORY and lucid_world_last_error saying so. */
#define LUCID_WORLD_MAX_ISLAND_CONTACTS 2048

struct lucid_world {
    lucid_world_options opt;
    lucid_body *bodies;
    int num_bodies;
    size_t bodies_cap;
    lucid_body_part *parts;
    lucid_part_contact *part_contact; /* per part, parallel to parts */
    int num_parts;
    size_t parts_cap, part_contact_cap;

    lucid_world_model *models;
    int num_models;
    size_t models_cap;
    lucid_world_data d;           /* per-step data (world_data.h) */
    struct lucid_world *scratch;  /* the step derivatives' copy (lucid_world_clone_into), kept */
    lucid_arena derivative_arena; /* the step derivatives' scratch, kept between calls */
};

/* A contact's frame (t1, t2, n) from its unit normal n (world_collision.c): the step
 * derivatives' carried contacts rebuild it the same way. */
lucid_mat3 lucid_world_contact_frame(lucid_vec3 n);
/* The single-level step (world_single_level.c): replaces collision and contact solve. */
lucid_status lucid_world_step_single_level(lucid_world *w);
void lucid_world_single_level_destroy(struct lucid_world_single_level *sl);
/* Forgets its warm-start memory (set_state: stepping from a state is a function of it). */
void lucid_world_single_level_forget(struct lucid_world_single_level *sl);
/* For the step derivatives (runtime/world/single_level_derivatives.c), about the last step's NCP
 * (its islands' unknowns one after the other): its unknowns (0: no pair), its equations F at
 * the solution with the world's current poses, free velocities, frictions and shape sizes
 * (all unknowns' entries, the complementarity rows 0: no parameter enters them), J^-1 rhs
 * through each island's LU at its solution, and v_free, w_free of its bodies = v+ + h dX's
 * velocity part. */
int lucid_world_single_level_unknowns(const lucid_world *w);
/* The warm-start memory's size, and setting it back after set_state forgot it. */
int lucid_world_single_level_memory(const lucid_world *w);
void lucid_world_single_level_set_memory(lucid_world *w, int count);
void lucid_world_single_level_equations(lucid_world *w, double *F);
void lucid_world_single_level_solve(const lucid_world *w, double *rhs);
void lucid_world_single_level_velocities(lucid_world *w, const double *dX, double h);
/* Per pair of the last step (its contact k): breaking (0), sticking (1) or sliding (2). */
int lucid_world_single_level_mode(const lucid_world *w, int k);
/* world_step.c: stats reset, velocity buffers, free velocities and the models' step start. */
lucid_status lucid_world_step_begin(lucid_world *w);
/* world_collision.c: body boxes (each grown by extra[body] m when extra is not NULL) and the
 * broad phase's candidate pairs of this step. */
lucid_status lucid_world_broad_phase(lucid_world *w, const double *extra);

/* Steps of lucid_world_step, one file each. */
lucid_status lucid_world_collide(lucid_world *w); /* world_collision.c */
/* The contact parameters of parts (a, ia) and (b, ib) (world_collision.c): 0 when their
 * bitmasks keep them apart, else 1 with *friction (0 under condim 1), *torsion (m, the
 * torsional coefficient: 0 below condim 4; torsion may be NULL) and *include_margin (MuJoCo's
 * margin - gap). MuJoCo's rule between model geoms; lucid's (the smaller friction) between
 * plain bodies; docs/model_files.md for a model geom against a plain body. */
int lucid_world_pair_contact(const lucid_world *w, int a, int ia, int b, int ib, double *friction,
                             double *torsion, double *include_margin);
/* The pair's rolling coefficient (m): 0 below condim 6, else the higher priority geom's or the
 * larger of the two at equal priority (MuJoCo's rule). */
double lucid_world_pair_rolling(const lucid_world *w, int a, int ia, int b, int ib);
/* The margin within which detection generates the pair's contacts this step: the world's,
 * plus a positive include margin and how far the bodies may move (w->sweep, when given). */
double lucid_world_pair_margin(const lucid_world *w, int a, int b, double include_margin);
void lucid_world_warm_start(lucid_world *w);              /* world_warm_start.c */
lucid_status lucid_world_remember_forces(lucid_world *w); /* world_warm_start.c */
/* The penalty an island's warm ADMM starts from, in the island's scaled units (G' = G f / v,
 * so rho' = rho f / v): the geometric mean of the world-unit rho its contacts carried from the
 * last step; 0 when none did (the solver then picks its spectral one), when the world's solver
 * is not ADMM or when its options set rho. world_warm_start.c */
double lucid_world_warm_rho(const lucid_world *w, const lucid_contact_options *o, const int *list,
                            int m, double f, double v);
/* Records the island's final penalty rho (scaled units as above; 0: none, and always 0 unless
 * the island's solver o->solver is ADMM) on its contacts. */
void lucid_world_keep_rho(lucid_world *w, const lucid_contact_options *o, const int *list, int m,
                          double rho, double f, double v);
/* R as an island problem's compliance: NULL when every entry is zero (rigid).
 * world_delassus.c */
const double *lucid_world_problem_R(const double *R, long rows);
lucid_status lucid_world_solve_contacts(lucid_world *w, const lucid_vec3 *v_start,
                                        const lucid_vec3 *w_start); /* world_delassus.c */

/* world_delassus.c, shared with world_sparse.c: contact k's frame velocity from the given
 * bodies' velocities. */
lucid_vec3 lucid_world_contact_velocity(const lucid_world *w, int k, const lucid_vec3 *v,
                                        const lucid_vec3 *om);
/* Contact k's row r from the free velocities: 3 the spin a n . (w2 - w1) (torsional
 * friction), 4 and 5 the rolling b t_r . (w2 - w1); 0 for a row it has not. */
double lucid_world_contact_row_velocity(const lucid_world *w, int k, int r);
/* Contact k's dim rows of an island problem on either backend: g = (J v_free - c*_N e_n) / dt
 * (c*_N from v0, w0, the step's start), its friction, R (the compliance on the normal, else 0)
 * and the warm start lambda, dual of its last forces (spin, rolling rows: torque / a, / b). */
void lucid_world_island_contact(const lucid_world *w, int k, int dim, const lucid_vec3 *v0,
                                const lucid_vec3 *w0, double *g, double *mu, double *R,
                                double *lambda, double *dual);
/* Contact k's forces from its dim rows of an island's answer (torques a lambda_s, b lambda_r). */
void lucid_world_keep_contact_forces(lucid_world *w, int k, int dim, const double *lambda,
                                     const double *dual);
/* An island's result into the step's stats and its penalty onto its contacts (res in units f,
 * v; o: the island's options), with the NCP residual of the kept answer lambda of velocity
 * sigma (world units). */
void lucid_world_island_record(lucid_world *w, const lucid_contact_options *o, const int *list,
                               int m, const lucid_contact_result *res, double f, double v,
                               const lucid_contact_problem *p, const double *lambda,
                               const double *sigma);
/* world_sparse.c: whether an island of m contacts is solved in body space, the solve (forces
 * into the contacts, velocities into v_free / w_free) and the buffers' release. */
int lucid_world_sparse_applies(const lucid_world *w, const int *list, int m);
/* Rows per contact of an island (world_delassus.c): 6 when one of its contacts has rolling
 * friction, else 4 when one has torsional friction, else 3. */
int lucid_world_island_dim(const lucid_world *w, const int *list, int m);
/* The island size above which the body-space path is taken when opt.sparse_threshold < 0
 * (automatic): where the solver's body-space form costs less than its dense one
 * (docs/world_step.md, "Dense or body space"). */
#define LUCID_WORLD_SPARSE_PGS_CROSSOVER        16
#define LUCID_WORLD_SPARSE_ADMM_CROSSOVER       64
#define LUCID_WORLD_SPARSE_NEWTON_CROSSOVER     64
#define LUCID_WORLD_SPARSE_NCP_NEWTON_CROSSOVER 64
/* ncp:newton's dense islands up to this many contacts; between it and the crossover above, ADMM
 * (lucid_world_island_options). */
#define LUCID_WORLD_NCP_NEWTON_CONTACTS 32
/* The contact options the island (list, m) is solved with (world_island_solve.c): ncp:newton's
 * islands of more than LUCID_WORLD_NCP_NEWTON_CONTACTS go to ADMM up to the crossover, and
 * beyond it when they touch a model's links (docs/world_step.md, "Dense or body space"). */
lucid_contact_options lucid_world_island_options(const lucid_world *w, const int *list, int m);
/* Whether one of the island's contacts (list, m) has a side on a model's link. */
int lucid_world_island_touches_model(const lucid_world *w, const int *list, int m);
#define LUCID_WORLD_SPARSE_IP_CROSSOVER 48
/* ADMM on an island touching a model's links (docs/world.md, benchmarks/robot_step.md) */
#define LUCID_WORLD_SPARSE_ADMM_ROBOT_CROSSOVER 8
/* A body-space island's answer farther than this many tol from tol goes to the interior point
 * before PGS (lucid_world_island.ip_first): PGS's sweeps crawl there on hyperstatic grasps.
 * Dense islands keep PGS first: its fixed point is exact where the ip's answer can leave a
 * sliding direction off (docs/benchmarks/world_step_history.md). */
#define LUCID_WORLD_PGS_POLISH 10.0

/* An island's contact problem as the island solve (world_island_solve.c) sees it, on either
 * backend: n contacts, the answer worked on (lambda, dual: 3n each, in the island's units),
 * spare room for the warm start and the best answer (4 x 3n; the dense backend's 5th 3n is its
 * judge's), and the backend's operations:
 * - solve: runs the solver of o on lambda (and dual, when not NULL), warm from them when
 *   o->warm_start;
 * - judge: the model's and the NCP criteria of lambda into res->model / res->ncp (its
 *   velocity computed again, or the solve's own velocity of that lambda); 0 when the forces,
 *   their velocity or a criterion is not finite, or a product of them would overflow;
 * - round_off: how much of the criterion rounding the forces to doubles can cause (after judge);
 * - mean_diagonal: the mean diagonal of G + R. */
typedef struct lucid_world_island {
    int n;
    size_t n3;
    int ip_first; /* the ip before PGS from answers farther than LUCID_WORLD_PGS_POLISH tol */
    double *lambda, *dual, *spare;
    void *ctx;
    lucid_status (*solve)(void *ctx, const lucid_contact_options *o, double *dual,
                          lucid_contact_result *res);
    int (*judge)(void *ctx, lucid_contact_result *res);
    double (*round_off)(void *ctx);
    double (*mean_diagonal)(void *ctx);
    lucid_world_island_info *info; /* where the solve reports its attempts (NULL: nowhere) */
} lucid_world_island;
/* The report of the island being solved (the last of w->island_info). */
lucid_world_island_info *lucid_world_current_island(lucid_world *w);
/* Solves an island with the world's contact options o, warm from
 * isl->lambda / dual, and leaves the kept answer there; out: its criteria, converged (met tol),
 * the iterations of every attempt. */
lucid_status lucid_world_island_solve(const lucid_contact_options *o, const lucid_world_island *isl,
                                      double warm_rho, lucid_contact_result *out);
/* The judge of an island's backend from lambda and its velocity sigma: the model's and the NCP
 * criteria (p's G is not read); 0 when not finite or a product would overflow. */
int lucid_world_judge(const lucid_contact_problem *p, lucid_contact_model model,
                      const double *lambda, const double *sigma, lucid_contact_result *res);
/* The units an island of `rows` rows is solved in, powers of two capped at 1: velocity_scale ~
 * g_max = ||g||_inf, force_scale ~ g_max / diag_max (diag_max: the largest normal diagonal of
 * G + R), so tol bounds forces relative to the lightest body's weight and islands of kilogram
 * bodies keep the absolute tol. */
void lucid_world_island_scales(const double *g, size_t rows, double diag_max, double *force_scale,
                               double *velocity_scale);
/* The dense contact solvers' workspace (w->workspace) for islands of m contacts: grown only. */
lucid_status lucid_world_reserve_workspace(lucid_world *w, int m);
lucid_status lucid_world_solve_island_sparse(lucid_world *w, const int *list, int m,
                                             const lucid_vec3 *v_start, const lucid_vec3 *w_start);
void lucid_world_sparse_destroy(lucid_world_sparse *sp);

/* Appends a body with copies of the parts and their contact parameters (NULL: a plain body's)
 * (zeroed, model -1) and a contact. */
lucid_status lucid_world_push_body(lucid_world *w, const lucid_body_part *parts,
                                   const lucid_part_contact *contact, int n,
                                   int *index); /* world_body.c */
lucid_status lucid_world_push_contact(lucid_world *w, const lucid_world_contact *c); /* collision */

/* Model id's model becomes m (a variant of it: same structure), the world holding a reference;
 * the one it held is released (world_model.c). */
void lucid_world_replace_model(lucid_world *w, int id, const lucid_model *m);
/* world_model.c: the models' part of a step. */
void lucid_world_models_destroy(lucid_world *w);
/* Copies src's models into dst (whose bodies are already src's): q, v, u, base, fresh data. */
lucid_status lucid_world_models_clone(lucid_world *dst, const lucid_world *src);
/* dst's models take src's state and poses when both hold the same models (the same
 * lucid_model objects on the same bodies): 1; else 0 and nothing is changed. */
int lucid_world_models_sync(lucid_world *dst, const lucid_world *src);
/* Free body `body`'s free velocities (v_free, w_free: its centre of mass's, world; world_step.c)
 * and start velocities (v_start, w_start) differentiated at its current pose and velocity with
 * respect to its state twist xi (body frame, linear first) and its applied wrench (force,
 * torque; world): dfree_dxi, dstart_dxi, dfree_du, each 6 x 6 column-major. The midpoint
 * rule's rotation step is differentiated at its solution (implicit function theorem).
 * LUCID_ERR_ARGUMENT for a body
 * that is not free. */
lucid_status lucid_world_body_free_velocity_jacobians(const lucid_world *w, int body,
                                                      double *dfree_dxi, double *dstart_dxi,
                                                      double *dfree_du);
/* Model i's free velocity differentiated at its state and inputs with respect to its start
 * velocity (dv_dv, nv x nv) and inputs (dv_du, nv x nu, or nv x (nu + na) with act_inputs: the
 * activations' columns after the controls'), at the step's factorised M~; with equality rows
 * both are projected as v_free is (I - F S^+ E, at q). drnea_dq (nv x nv) receives the
 * by-product d rnea(q, v, acc) / dq at the acceleration acc (NULL: 0). */
lucid_status lucid_world_model_free_velocity_jacobians(lucid_world *w, int i, const double *acc,
                                                       double *dv_dv, double *dv_du,
                                                       double *drnea_dq);
/* Model i's activations after a step differentiated with respect to themselves (d_act: na,
 * diagonal) and to the control of the actuator each belongs to (d_u: na), at its current
 * inputs: the Euler update's slopes through the control and activation clamps (1/2 on a
 * bound, as lucid_world_model_free_velocity_jacobians takes a clamp). */
void lucid_world_model_activation_slopes(const lucid_world *w, int i, double *d_act, double *d_u);
/* The model's inputs in the controls vector: nu, plus na with act_inputs. */
size_t lucid_world_model_inputs(const lucid_world *w, int i);
/* Whether model i's own gravity, turned by its base, is the world's (its dynamics' gravity
 * then needs no correction term, which the analytic position columns of the step derivatives
 * do not differentiate). */
int lucid_world_model_gravity_is_world(const lucid_world *w, int i);
/* R += scale dtau/dq (nv x nv, column-major) of model i's springs and position servos at its
 * current configuration and inputs (the clamps' slopes as lucid_world_model_free_velocity_
 * jacobians takes them for dv/du). */
void lucid_world_model_add_actuation_stiffness(const lucid_world *w, int i, double scale,
                                               double *R);
/* *copy made a copy of w as lucid_world_clone makes one, reusing the buffers of the copy it
 * held (NULL: none) when that copy has w's bodies, parts and models, so that a caller making
 * one copy per call (the step derivatives) allocates nothing in the steady state. */
lucid_status lucid_world_clone_into(const lucid_world *w, lucid_world **copy);
/* Equality constraints as bilateral rows (world_equality.c): the workspace (sized at
 * add_model), E, F and S's factor at the posed, factorised step (prepare), the projection of
 * columns over dofs [lo, lo + width) by P = M~^-1 - F S^+ F^T after M~^-1 was applied
 * (project), and v_free onto E v_free = 0 (free_velocity). */
lucid_status lucid_world_equality_allocate(lucid_world_model *wm);
void lucid_world_equality_free(lucid_world_model *wm);
void lucid_world_equality_prepare(lucid_world_model *wm);
void lucid_world_equality_project(const lucid_world_model *wm, size_t lo, size_t width, double *X,
                                  size_t ld, size_t ncol);
void lucid_world_equality_free_velocity(lucid_world_model *wm);
/* After q+ = q (+) dt v+: Gauss-Newton steps dq = -F S^+ phi(q+) (the M~-least change) so the
 * rows' second-order drift does not accumulate and a violated start is corrected; at most
 * LUCID_WORLD_EQUALITY_PROJECTIONS (Newton's convergence is quadratic: a drift of 1e-4 of the
 * mechanism's size reaches round-off in two), stopping once an iteration fails to halve the
 * largest |phi|. Leaves data posed at q+. */
#define LUCID_WORLD_EQUALITY_PROJECTIONS 4
void lucid_world_equality_stabilise(lucid_world_model *wm);
/* d stabilise(q_pre (+) d) / dd (nv x nv), a tangent at q1 = stabilise(q_pre), by central
 * differences of step h (scratch: nq + 2 nv); leaves wm->q = q1, posed. */
void lucid_world_equality_stabilise_jacobian(lucid_world_model *wm, const double *q_pre, double h,
                                             double *S, double *scratch);
/* The body-space path's reduced coordinates of a constrained tree (world_sparse.c): the number
 * r of tree t's rows among S's independent ones (its velocities keep width - r freedoms), and
 * Z (width x (width - r), column-major), an orthonormal basis of the null space of those rows
 * over the tree's dofs, so that P's block on the tree is Z (Z^T M~ Z)^-1 Z^T (scratch: width r
 * doubles). At the posed step (lucid_world_equality_prepare). */
size_t lucid_world_equality_tree_rank(const lucid_world_model *wm, int t);
void lucid_world_equality_null_basis(const lucid_world_model *wm, int t, double *Z,
                                     double *scratch);
/* Whether any model has equality rows. */
int lucid_world_models_have_equalities(const lucid_world *w);
void lucid_world_models_begin_step(lucid_world *w);     /* free velocities, M~, link poses */
lucid_status lucid_world_models_limits(lucid_world *w); /* joint- and tendon-limit contacts */
/* Tendons (world_tendon.c). The end (last dof + 1) of the tendons with rows (limited, or
 * with frictionloss > 0) whose first dof is k (0: none), which a model's tree must reach
 * (find_trees). */
size_t lucid_world_tendon_span_end(const lucid_model *m, size_t k);
/* Whether a limit at distance gap from its bound, closing at rate (the free velocity's, which
 * makes gap + dt rate the unconstrained step's end), needs its contact this step: within the
 * world's margin (at least its slop) plus its own margin now or at the step's end (a fast
 * approach is caught before it crosses the bound, as the shape contacts' sweep does). A limit
 * rests at its bound, ending steps a round-off to either side of it: the slop keeps it in the
 * problem at margin 0, where another row's push (a coupled tendon's) could carry it across. */
int lucid_world_limit_detected(const lucid_world *w, double gap, double rate, double margin);
/* A row of model i on the link of `joint` (a limit or dry-friction row of dof `dof` or tendon
 * `tendon`, the other -1): identity frame at the link's origin, no shape parts; the caller sets
 * what kind it is. */
lucid_world_contact lucid_world_model_row(const lucid_world *w, int i, size_t joint, int dof,
                                          int tendon);
/* LUCID_ERR_ARGUMENT, with w->error naming model i's `what` ("dof", "tendon") k, under the ccp
 * contact model (its cone raises a dry-friction row's bound); else LUCID_OK. */
lucid_status lucid_world_dry_friction_check(lucid_world *w, int i, const char *what, size_t k);
/* Model i's tendon-limit contacts (after its joint limits: their warm-start keys sort so). */
lucid_status lucid_world_tendon_limits(lucid_world *w, int i);
/* The coefficient of dof `dof` of the model in limit contact c's normal row, before the side's
 * sign: limit_sign on a joint limit's dof, limit_sign dL/dq_dof on a tendon's, else 0. */
double lucid_world_limit_coefficient(const lucid_world *w, const lucid_world_contact *c,
                                     size_t dof);
/* row (width, over the tree's dofs from lo) = scale times the row of dof-row contact c (a joint
 * limit or dry-friction row: e_dof; a tendon's: its moment dL/dq at the model's q). */
void lucid_world_tendon_row(const lucid_world *w, const lucid_world_contact *c, double scale,
                            size_t lo, size_t width, double *row);
/* row (width, over the tree's dofs from lo) = sign times limit contact c's normal row. */
void lucid_world_limit_row(const lucid_world *w, const lucid_world_contact *c, double sign,
                           size_t lo, size_t width, double *row);
/* tau += the tendons' passive forces -c (stiffness (L - springlength) + damping Ld) at the
 * model's q and v. */
void lucid_world_tendon_passive(const lucid_world_model *wm, double *tau);
/* The power of the tendons' springs at the model's q and velocity v. */
double lucid_world_tendon_spring_power(const lucid_world_model *wm, const double *v);
/* X (nv x nv, column-major) += scale sum_t damping_t c_t c_t^T (resp. stiffness_t), c_t the
 * tendons' moments at the model's q (wm->moment: scratch). */
void lucid_world_tendon_add_damping(const lucid_world_model *wm, double scale, double *X);
void lucid_world_tendon_add_stiffness(const lucid_world_model *wm, double scale, double *R);
/* The dry-friction rows (lucid_world_contact.frictionloss): per model, one per dof whose
 * frictionloss is > 0, then one per tendon whose frictionloss is > 0
 * (lucid_world_tendon_friction_rows), pushed after the limits. LUCID_ERR_ARGUMENT with w->error
 * set under the ccp contact model, whose dual cone would add |sigma_t| / d to their bound. */
lucid_status lucid_world_models_friction_rows(lucid_world *w);
lucid_status lucid_world_tendon_friction_rows(lucid_world *w, int i);

/* 1 for a row on a model's dofs (a joint or tendon limit, a joint's or tendon's dry-friction
 * row): one side, the link's, with identity frame. */
static inline int lucid_world_contact_on_dof(const lucid_world_contact *c) {
    return c->limit_sign != 0 || c->frictionloss > 0.0;
}
/* The scale a of contact c's spin row (torsional friction, condim 4), 0 when it has none: its
 * row is a n . (w2 - w1) and its force lambda_s the torque / a, so that the elliptic cone
 * ||(f_t / mu, tau / mu_t)|| <= f_n is the isotropic ||(f_t, lambda_s)|| <= mu f_n with
 * a = mu_t / mu (docs/world_step.md). A contact with torsion needs mu > 0 (checked by the
 * island solve). */
static inline double lucid_world_contact_spin(const lucid_world_contact *c) {
    return c->torsion > 0.0 && c->friction > 0.0 ? c->torsion / c->friction : 0.0;
}
/* The scale b of contact c's rolling rows (rolling friction, condim 6), 0 when it has none:
 * rows b t_k . (w2 - w1), forces the torques / b, b = mu_r / mu, so that MuJoCo's elliptic cone
 * ||(f_t / mu, tau / mu_t, rho / mu_r)|| <= f_n is the isotropic one over five rows. */
static inline double lucid_world_contact_roll(const lucid_world_contact *c) {
    return c->rolling > 0.0 && c->friction > 0.0 ? c->rolling / c->friction : 0.0;
}
/* Rows of contact c in a dense island: 6 with rolling friction, 4 with torsional, else 3. */
static inline int lucid_world_contact_dim(const lucid_world_contact *c) {
    return lucid_world_contact_roll(c) > 0.0 ? 6 : lucid_world_contact_spin(c) > 0.0 ? 4 : 3;
}
lucid_status lucid_world_models_reserve_rows(lucid_world *w);
void lucid_world_models_fill_side(lucid_world *w, int body, double sign,
                                  const lucid_world_contact *c, lucid_contact_side *side);
lucid_vec3 lucid_world_models_side_velocity(const lucid_world *w, const lucid_contact_side *side,
                                            int free);
/* The free velocity (the model's v_free) of the world point p fixed to link body `body`, and
 * the link's angular velocity. */
void lucid_world_models_link_velocity(const lucid_world *w, int body, lucid_vec3 p, lucid_vec3 *v,
                                      lucid_vec3 *omega);
/* G's block (row, col) += J_a Y_b through a and b's shared tree, and with `mirror` its
 * transpose to block (col, row) (G is symmetric: J_b Y_a = (J_a Y_b)^T). */
void lucid_world_models_add_block(const lucid_world *w, const lucid_contact_side *a,
                                  const lucid_contact_side *b, double *G, int ld, int row, int col,
                                  int mirror);
void lucid_world_models_apply_impulse(lucid_world *w, const lucid_contact_side *side,
                                      const double force[3]);
/* The spin row of a link side (side->spin): its G entries against side b's rows (G[row + 3,
 * col + l] for b's rows l, and G[row + k, col + 3] when b has a spin row; both on one tree) and
 * v_free += dt Y_s lambda_s. */
void lucid_world_models_add_spin_block(const lucid_world *w, const lucid_contact_side *a,
                                       const lucid_contact_side *b, double *G, int ld, int row,
                                       int col);
void lucid_world_models_apply_spin_impulse(lucid_world *w, const lucid_contact_side *side,
                                           double lambda_s);
/* Row r of a link side (3 the spin, 4 and 5 the rolling): its velocity J_r v (v_free when
 * `free`, else the step's start). The rolling rows (side->roll, rows 4 and 5 of J and Y): G's
 * entries of a's rolling rows against b's rows and of a's other rows against b's rolling rows
 * (both on one tree) and v_free += dt Y_r lambda_r. */
double lucid_world_models_side_row_velocity(const lucid_world *w, const lucid_contact_side *side,
                                            int r, int free);
void lucid_world_models_add_roll_block(const lucid_world *w, const lucid_contact_side *a,
                                       const lucid_contact_side *b, double *G, int ld, int row,
                                       int col);
void lucid_world_models_apply_row_impulse(lucid_world *w, const lucid_contact_side *side, int r,
                                          double lambda);
/* The tree of link body `body` (-1: a link no dof moves). */
int lucid_world_models_tree(const lucid_world *w, int body);
/* The body-space path (world_sparse.c): M (width x width, symmetric) = the block of a model's
 * M~ of this step on tree t, and v_free += dt u on the tree's dofs (u: its width). */
void lucid_world_models_tree_mass(const lucid_world *w, int model, int t, double *M);
void lucid_world_models_add_velocity(lucid_world *w, int model, int t, const double *u);
/* The trees of all models (the last model's first_tree + num_trees). */
int lucid_world_models_trees(const lucid_world *w);
void lucid_world_models_integrate(lucid_world *w);
int lucid_world_models_finite(const lucid_world *w);
/* The models' part of the state: every model's q (nq in all), then every model's v (nv). */
size_t lucid_world_models_nq(const lucid_world *w);
size_t lucid_world_models_nv(const lucid_world *w);
/* The models' actuator activations, model after model (world_state.c's last block). */
size_t lucid_world_models_na(const lucid_world *w);
void lucid_world_models_get_act(const lucid_world *w, double *act);
void lucid_world_models_set_act(lucid_world *w, const double *act);
void lucid_world_models_get_state(const lucid_world *w, double *q, double *v);
lucid_status lucid_world_models_check_state(const lucid_world *w, const double *q, const double *v,
                                            const char **why);
void lucid_world_models_set_state(lucid_world *w, const double *q, const double *v);
void lucid_world_models_integrate_state(const lucid_world *w, const double *q, const double *v,
                                        const double *dq, const double *dv, double *q_out,
                                        double *v_out);
void lucid_world_models_difference_state(const lucid_world *w, const double *q0, const double *v0,
                                         const double *q1, const double *v1, double *dq,
                                         double *dv);
/* kinetic, potential += the models' energies; posed: every model's data posed at its q (the
 * kinematics not recomputed). */
void lucid_world_models_energy(const lucid_world *w, int posed, double *kinetic, double *potential);
/* lucid_world_energy_of right after lucid_world_step_integrate, which left every model's data
 * posed at its new q (lucid_world_models_integrate): the same energy without the kinematics. */
lucid_world_energy lucid_world_energy_after_integrate(const lucid_world *w);
/* The models' actuators' and joint springs' work over the step, dt tau(q, u) . v+ with the
 * step's final velocities (before lucid_world_models_integrate); the implicit stiffness only
 * lowers it along the motion, so this bounds what they give. */
double lucid_world_models_actuation_work(const lucid_world *w);
/* The models' total mass (for the energy-jump guard). */
double lucid_world_models_total_mass(const lucid_world *w);
/* Whether the geoms of bodies a and b may touch (same model: not parent and child under the
 * model's parent filter, lucid_model_filter_parent). */
int lucid_world_models_pair_allowed(const lucid_world *w, int a, int b);
/* Whether part ia of body a and part ib of body b may touch (same model: their geoms' file
 * bodies are no excluded pair, lucid_model_excludes). */
int lucid_world_models_parts_allowed(const lucid_world *w, int a, int ia, int b, int ib);
/* Whether bodies a and b may hold the two geoms of an explicit pair (the same model, which has
 * pairs and collides them: lucid_model_collision_mode not dynamic). */
int lucid_world_models_may_pair(const lucid_world *w, int a, int b);
/* The contact parameters of an explicit pair (lucid_model_pair): its condim applied. */
typedef struct lucid_pair_contact {
    double friction, torsion, rolling, include_margin;
} lucid_pair_contact;
/* Whether part ia of body a and part ib of body b are the geoms of an explicit pair that
 * collides (lucid_world_models_may_pair); its parameters into *out then (a friction given for
 * the model replaces its friction, condim 3 or 1, as it does the geoms'). */
int lucid_world_models_explicit_pair(const lucid_world *w, int a, int ia, int b, int ib,
                                     lucid_pair_contact *out);
/* The rows per contact the models' explicit pairs need: 6 for one of condim 6, 4 for condim
 * 4, else 3 (lucid_world_derivative_dim). */
int lucid_world_models_pair_dim(const lucid_world *w);

/* The parts of lucid_world_step (world_step.c), for the step derivatives: prepare = velocity
 * buffers, free velocities, collision and joint limits (the contact list); integrate = the
 * final velocities (v_free, w_free, the models' v_free) into the state. */
lucid_status lucid_world_step_prepare(lucid_world *w);
lucid_status lucid_world_step_integrate(lucid_world *w);
/* prepare for a state that differs from the last prepared one in its velocities (and the
 * controls) only: the free velocities, through the models' factorised M~ of that step; the
 * contact list, its rows and the link poses are those of the last prepare. */
lucid_status lucid_world_step_prepare_velocities(lucid_world *w);
/* The models' v_free through the M~ factor of the last lucid_world_models_begin_step. */
void lucid_world_models_free_velocities(lucid_world *w);
/* The contacts' Jacobian rows (w->sides, link rows) and islands for this step's contact list
 * (world_delassus.c), as the solve builds them. */
lucid_status lucid_world_contact_rows(lucid_world *w);
/* Islands of m items that each join two bodies (item(ctx, k, ...) gives item k's; one of them
 * moves): bodies linked through items, a model's links together, static bodies joining
 * nothing. Fills w->contact_island (per item), w->island_start and w->island_contacts (items
 * grouped by island, in their order within one) and w->num_islands; islands are numbered in
 * the order of their first item. Used for the contacts (world_delassus.c) and for the
 * single-level step's candidate pairs (world_single_level.c). */
typedef void (*lucid_world_island_item)(const void *ctx, int k, int *body1, int *body2);
lucid_status lucid_world_build_islands(lucid_world *w, int m, lucid_world_island_item item,
                                       const void *ctx);
/* A contact's restitution: the larger of its bodies' (world_delassus.c). */
double lucid_world_contact_restitution(const lucid_world *w, const lucid_world_contact *c);
/* v_free += dt M^-1 J_k^T f_k for contact k's force (its `force` field). */
void lucid_world_apply_contact_force(lucid_world *w, int k);
/* v_free += dt M~^-1 sum_k J_k^T lambda_k over the link sides of contacts 0..n-1, one solve
 * per model (the models' part of lucid_world_apply_contact_force without Y). */
void lucid_world_models_apply_forces(lucid_world *w, int n);
/* The dense Delassus matrix J M~^-1 J^T of the m contacts in list with dim rows per contact
 * (dim m x dim m, column-major; limit contacts get unit tangential diagonals, a contact without
 * torsional or rolling friction in a dim 4 or 6 island decoupled spin and rolling rows), from
 * the rows lucid_world_contact_rows built. */
void lucid_world_island_delassus_dim(lucid_world *w, const int *list, int m, int dim, double *G);
/* Rows per contact of the step derivatives' contact arrays (lambda, sigma): 6 when a part of
 * the world has condim 6 (rolling friction: rows 4, 5, forces rolling_force / b), else 4 when
 * one has condim 4 (torsional friction: the spin row, force lambda_s = torsion_force / a; 0 for
 * a contact without), else 3. By condim, not by the coefficients a parameter shifts. */
int lucid_world_derivative_dim(const lucid_world *w);
/* One step with the contact forces lambda (dim n, lucid_world_derivative_dim, in the frames of
 * `expect`) instead of a solve:
 * prepare, then if the contact list equals expect's n contacts (bodies, parts, limits, order:
 * *same = 1) v+ = v_free + dt M~^-1 J^T lambda, sigma (3n) = (J v+ - c* e_n)/dt + R lambda (the
 * solver's (G + R) lambda + g), mu (n, may be NULL) each contact's friction, and integration.
 * v_before: n scratch entries. branch (n): each contact's piece of c*_N (see below), used when
 * >= 0, else chosen and stored. *same = 0: the contacts changed, nothing integrated. */
lucid_status lucid_world_step_with_forces(lucid_world *w, const lucid_world_contact *expect, int n,
                                          const double *lambda, double *sigma, double *mu,
                                          double *v_before, int *branch, int *same);
/* lucid_world_step_with_forces with the shape contacts given instead of detected: after
 * lucid_world_step_begin (free velocities, the models' link poses and M~), the ng contacts
 * `given` (e.g. the nominal ones carried to this configuration by their geometry derivatives,
 * autodiff/contact_geometry_derivatives.h) become the contact list, the joint limits are
 * appended, then as lucid_world_step_with_forces: no collision detection runs. */
lucid_status lucid_world_step_with_contacts(lucid_world *w, const lucid_world_contact *given,
                                            int ng, const lucid_world_contact *expect, int n,
                                            const double *lambda, double *sigma, double *mu,
                                            double *v_before, int *branch, int *same);
/* The same step after lucid_world_step_with_forces at the same configuration and parameters,
 * for other velocities, controls or forces, up to the final velocities: the contacts, their
 * rows and the models' M~ factors of that evaluation are reused (no collision, kinematics or
 * factorisation), exact since none of them depends on v, u or lambda; post (nt / 2) receives
 * the final velocities (lucid_world_post_velocity) and nothing is integrated. *same = 0 when
 * the contact list is not expect's (no full evaluation came before). */
lucid_status lucid_world_step_with_forces_reuse(lucid_world *w, const lucid_world_contact *expect,
                                                int n, const double *lambda, double *sigma,
                                                double *mu, double *v_before, int *branch,
                                                double *post, int *same);
/* Puts back the n contacts of the last evaluation (emptied by set_state) when they are
 * expect's; LUCID_ERR_INTERNAL otherwise. */
lucid_status lucid_world_restore_contacts(lucid_world *w, const lucid_world_contact *expect, int n);
/* The final velocities of a step (tangent size / 2 entries: each free body's v_free and w_free,
 * centre of mass, world frame, then every model's v_free), on which x+ depends alone once the
 * configuration is given (lucid_world_step_integrate); reading and setting them. */
void lucid_world_post_velocity(const lucid_world *w, double *p);
void lucid_world_set_post_velocity(lucid_world *w, const double *p);
/* Where each free body's (body_slot, per body, -1 for the others) and each model's
 * (model_slot, num_models + 1 entries, the last one p's size) entries start in p. */
void lucid_world_post_velocity_slots(const lucid_world *w, int *body_slot, int *model_slot);
/* J_k dp: contact k's frame velocity from a change dp of p (those slots), on its current rows. */
lucid_vec3 lucid_world_contact_rows_times(const lucid_world *w, int k, const int *body_slot,
                                          const int *model_slot, const double *dp);
/* The same rows as a matrix: rows[d + ld c] += J_k's entry (d, c) for d < 3, c < p's size (rows
 * points at the contact's first row of a column-major matrix of leading dimension ld). */
void lucid_world_contact_rows_add(const lucid_world *w, int k, const int *body_slot,
                                  const int *model_slot, double *rows, size_t ld);
/* The same for contact k's row r = 3 (the spin, torsional friction), 4 or 5 (the rolling,
 * rolling friction); 0 / nothing when it has not that row: J_r dp, and row[ld c] += J_r's entry
 * c. */
double lucid_world_contact_row_times(const lucid_world *w, int k, int r, const int *body_slot,
                                     const int *model_slot, const double *dp);
void lucid_world_contact_row_add(const lucid_world *w, int k, int r, const int *body_slot,
                                 const int *model_slot, double *row, size_t ld);
/* The Jacobians of x+ = lucid_world_step_integrate from configuration x0's positions with
 * final velocities p (lucid_world_post_velocity layout), as a tangent at x+(x0, p) itself
 * (world_integrate_jacobians.c): Dp = dx+/dp and Dq = dx+/d(position tangent of x0) at fixed
 * p, both nt x np column-major (nt = lucid_world_tangent_size, np = nt / 2), caller-owned,
 * either may be NULL. x0: a full state (lucid_world_state_size; its velocities are unused).
 * Reads w's bodies' centres of mass, its models and dt only; allocates nothing. */
void lucid_world_integrate_jacobians(const lucid_world *w, const double *x0, const double *p,
                                     double *Dq, double *Dp);
/* The slop of contact c (see world.h): options.slop, or SLOP_PER_SIZE times the smaller
 * touching part of a moving body when that is smaller; options.slop for joint limits. */
double lucid_world_contact_slop(const lucid_world *w, const lucid_world_contact *c);
/* dc*_N/dd on the piece `branch` at the contact's separation d (the impact's target aside). */
double lucid_world_reference_slope(const lucid_world *w, const lucid_world_contact *c, int branch);
/* c*_N of contact c on a given piece (branch >= 0) or on the one the rules choose (branch < 0,
 * stored in *chosen when not NULL): 0 speculative, 1 rest band, 2 Baumgarte, + 3 restitution.
 * A limit has pieces 0 (c*_N = -d / dt) and 2 (capped at v_c) only: it rests at its bound. */
double lucid_world_reference_velocity_branch(const lucid_world *w, const lucid_world_contact *c,
                                             double v_n_before, int branch, int *chosen);

/* twist_body = (R^T v, R^T w), after v, w or the pose changed; then v, w = R twist_body, so the
 * world twist is a function of the state whichever way it was reached. */
void lucid_body_sync_twist(lucid_body *b);
/* v, w = R twist_body. */
void lucid_body_twist_from_state(lucid_body *b);

/* Centre of mass in the world and world-frame inverse inertia. */
lucid_vec3 lucid_body_com_world(const lucid_body *b);
lucid_mat3 lucid_body_inv_inertia_world(const lucid_body *b);

#endif
