/* The user-facing queries: signed distance (GJK + EPA) and Boolean collision (GJK, Alg. 2). */
#include "solvers/collision/collision.h"

#include "solvers/collision/box_box.h"
#include "solvers/collision/halfspace.h"
#include "solvers/collision/warm_start.h"

/* x - x is +-0 for a finite x and NaN for NaN or Inf, so one comparison of the sum checks all
 * 24 entries of both poses without a branch per entry. */
static int poses_are_finite(const lucid_se3 *T1, const lucid_se3 *T2) {
    const lucid_se3 *T[2] = {T1, T2};
    double zero = 0.0;
    for (int k = 0; k < 2; ++k) {
        for (int i = 0; i < 9; ++i) zero += T[k]->R.m[i] - T[k]->R.m[i];
        zero += (T[k]->t.x - T[k]->t.x) + (T[k]->t.y - T[k]->t.y) + (T[k]->t.z - T[k]->t.z);
    }
    return zero == 0.0;
}

static lucid_status check_query(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                const lucid_se3 *T2, const lucid_gjk_options *opt,
                                const lucid_distance_result *res) {
    if (!s1 || !T1 || !s2 || !T2 || !opt || !res) return LUCID_ERR_ARGUMENT;
    if (lucid_gjk_options_check(opt, NULL) != LUCID_OK) return LUCID_ERR_ARGUMENT;
    if (s1->kind == LUCID_SHAPE_HALFSPACE && s2->kind == LUCID_SHAPE_HALFSPACE)
        return LUCID_ERR_ARGUMENT;
    /* a height field is not convex: the world collides its cells (heightfield.h) */
    if (s1->kind == LUCID_SHAPE_HEIGHTFIELD || s2->kind == LUCID_SHAPE_HEIGHTFIELD)
        return LUCID_ERR_ARGUMENT;
    if (!poses_are_finite(T1, T2)) return LUCID_ERR_NONFINITE;
    if (!(lucid_vec3_max_abs(T1->t) <= LUCID_GEOMETRY_MAX) ||
        !(lucid_vec3_max_abs(T2->t) <= LUCID_GEOMETRY_MAX))
        return LUCID_ERR_ARGUMENT; /* outside the representable range (shape.h) */
    return LUCID_OK;
}

static const lucid_gjk_options *options_or_default(const lucid_gjk_options *opt,
                                                   lucid_gjk_options *storage) {
    if (opt) return opt;
    lucid_gjk_options_default(storage);
    return storage;
}

/* Moves the core witnesses out by the radii along the normal (p2 - p1 = distance * normal). */
static void inflate(lucid_distance_result *res, double core_distance, lucid_vec3 p1c,
                    lucid_vec3 p2c, double r1, double r2) {
    res->distance = core_distance - r1 - r2;
    res->p1 = lucid_vec3_axpy(p1c, r1, res->normal);
    res->p2 = lucid_vec3_axpy(p2c, -r2, res->normal);
}

static void copy_gjk(lucid_distance_result *res, const lucid_gjk_result *g) {
    res->iterations = g->iterations;
    res->epa_iterations = 0;
    res->converged = g->converged;
    res->penetrating = 0;
    res->gap = g->gap;
    res->separation = g->x;
}

/* A unit normal when there is no better information: from the box centre of 1 to that of 2
 * (frame 1). */
static lucid_vec3 centre_direction(const lucid_minkowski *m) {
    lucid_vec3 d = lucid_vec3_sub(lucid_se3_act(&m->T12, lucid_shape_box_center(m->s2)),
                                  lucid_shape_box_center(m->s1));
    d = lucid_vec3_normalized(d);
    return lucid_vec3_norm2(d) > 0.0 ? d : lucid_vec3_make(0, 0, 1);
}

/* GJK and EPA work in the frame of shape 1; the result is reported in world frame. GJK's
 * final simplex (frame 1) is converted straight into res->simplex: its live vertices and
 * weights only, one pass instead of a copy and then a conversion in place. */
static void result_to_world(const lucid_minkowski *m, const lucid_simplex *W,
                            lucid_distance_result *res) {
    res->hint1 = m->hint1;
    res->hint2 = m->hint2;
    res->p1 = lucid_minkowski_point_to_world(m, res->p1);
    res->p2 = lucid_minkowski_point_to_world(m, res->p2);
    res->normal = lucid_minkowski_dir_to_world(m, res->normal);
    res->separation = lucid_minkowski_dir_to_world(m, res->separation);
    res->simplex.rank = W->rank;
    for (int i = 0; i < W->rank; ++i) {
        const lucid_support_point *v = &W->v[i];
        lucid_support_point *out = &res->simplex.v[i];
        out->w = lucid_minkowski_dir_to_world(m, v->w);
        out->p1 = lucid_minkowski_point_to_world(m, v->p1);
        out->p2 = lucid_minkowski_point_to_world(m, v->p2);
        res->simplex.lambda[i] = W->lambda[i];
    }
}

/* Mesh hill climbing starts from the previous query's final vertices when warm-starting from
 * it (out-of-range hints, e.g. from another mesh, are ignored by the mesh support). */
static lucid_minkowski make_minkowski(const lucid_shape *s1, const lucid_se3 *T1,
                                      const lucid_shape *s2, const lucid_se3 *T2,
                                      const lucid_gjk_options *opt) {
    lucid_minkowski m = lucid_minkowski_make(s1, T1, s2, T2);
    if (opt->warm_start == LUCID_WARM_PREVIOUS && opt->previous) {
        m.hint1 = opt->previous->hint1;
        m.hint2 = opt->previous->hint2;
    }
    return m;
}

static lucid_vec3 start_vector(const lucid_minkowski *m, const lucid_shape *s1, const lucid_se3 *T1,
                               const lucid_shape *s2, const lucid_se3 *T2,
                               const lucid_gjk_options *opt) {
    return lucid_minkowski_dir_from_world(m, lucid_gjk_start_vector(s1, T1, s2, T2, opt));
}

lucid_status lucid_distance(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                            const lucid_se3 *T2, const lucid_gjk_options *opt_in,
                            lucid_distance_result *res) {
    lucid_gjk_options storage;
    const lucid_gjk_options *opt = options_or_default(opt_in, &storage);
    lucid_status st = check_query(s1, T1, s2, T2, opt, res);
    if (st != LUCID_OK) return st;
    if (s1->kind == LUCID_SHAPE_HALFSPACE || s2->kind == LUCID_SHAPE_HALFSPACE) {
        lucid_halfspace_distance(s1, T1, s2, T2, res);
        return LUCID_OK;
    }
    lucid_minkowski m = make_minkowski(s1, T1, s2, T2, opt);
    lucid_gjk_result g;
    lucid_gjk_solve(&m, opt, start_vector(&m, s1, T1, s2, T2, opt), -1.0, &g);
    copy_gjk(res, &g);
    if (g.outcome != LUCID_GJK_OVERLAP) {
        lucid_vec3 p1c, p2c;
        lucid_simplex_witnesses(&g.simplex, &p1c, &p2c);
        double core = lucid_vec3_norm(g.x);
        res->normal = core > 0.0 ? lucid_vec3_scale(g.x, -1.0 / core) : centre_direction(&m);
        inflate(res, core, p1c, p2c, s1->radius, s2->radius);
        result_to_world(&m, &g.simplex, res);
        return LUCID_OK;
    }
    lucid_epa_result e;
    lucid_epa_solve(&m, &g.simplex, opt->epa_tol, opt->epa_max_iter, centre_direction(&m), &e);
    res->normal = e.normal;
    res->epa_iterations = e.iterations;
    res->converged = g.converged && e.converged;
    res->penetrating = 1;
    res->separation = lucid_vec3_sub(e.p1, e.p2);
    inflate(res, -e.depth, e.p1, e.p2, s1->radius, s2->radius);
    result_to_world(&m, &g.simplex, res);
    return LUCID_OK;
}

lucid_status lucid_collide(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                           const lucid_se3 *T2, const lucid_gjk_options *opt_in, int *hit,
                           lucid_distance_result *res) {
    lucid_gjk_options storage;
    const lucid_gjk_options *opt = options_or_default(opt_in, &storage);
    lucid_status st = check_query(s1, T1, s2, T2, opt, res);
    if (st != LUCID_OK || !hit) return st != LUCID_OK ? st : LUCID_ERR_ARGUMENT;
    if (s1->kind == LUCID_SHAPE_HALFSPACE || s2->kind == LUCID_SHAPE_HALFSPACE) {
        lucid_halfspace_distance(s1, T1, s2, T2, res);
        *hit = res->distance <= 0.0;
        return LUCID_OK;
    }
    if (s1->kind == LUCID_SHAPE_BOX && s2->kind == LUCID_SHAPE_BOX) {
        lucid_box_box_collide(s1, T1, s2, T2, hit, res); /* closed form: no GJK options apply */
        return LUCID_OK;
    }
    lucid_minkowski m = make_minkowski(s1, T1, s2, T2, opt);
    lucid_gjk_result g;
    double margin = s1->radius + s2->radius;
    lucid_gjk_solve(&m, opt, start_vector(&m, s1, T1, s2, T2, opt), margin, &g);
    copy_gjk(res, &g);
    lucid_vec3 p1c, p2c;
    lucid_simplex_witnesses(&g.simplex, &p1c, &p2c);
    double core = lucid_vec3_norm(g.x);
    if (g.outcome == LUCID_GJK_PLANE) {
        *hit = 0;
        res->normal = lucid_vec3_neg(lucid_vec3_normalized(g.direction));
        core = g.plane_bound;
    } else {
        *hit = g.outcome != LUCID_GJK_SEPARATED || core <= margin;
        res->normal = core > 0.0 ? lucid_vec3_scale(g.x, -1.0 / core) : centre_direction(&m);
    }
    if (g.simplex.rank == 0) p1c = p2c = lucid_vec3_zero();
    inflate(res, core, p1c, p2c, s1->radius, s2->radius);
    result_to_world(&m, &g.simplex, res);
    return LUCID_OK;
}
