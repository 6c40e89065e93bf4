/* Equality constraints of a compiled model (model_internal.h): the spec's <equality> elements
 * and URDF mimic couplings, resolved to nodes, dofs and the points that meet, with the
 * relative poses MuJoCo takes at the neutral configuration (qpos0). The world turns them
 * into bilateral rows (runtime/world/world_equality.c). */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/math/so3.h"
#include "runtime/model/configuration.h"
#include "runtime/model/dynamics.h"
#include "runtime/model/model_internal.h"

typedef struct eq_ctx {
    lucid_model *m;
    const lucid_model_spec *spec;
    const int *body_node, *body_mocap, *joint_node;
    const lucid_se3 *body_in_node;
    const double *q0;    /* the neutral configuration */
    lucid_model_data *d; /* posed there */
    char *err;
    size_t errlen;
} eq_ctx;

static lucid_status eq_fail(const eq_ctx *c, const lucid_equality_spec *e, size_t i,
                            const char *fmt, ...) {
    if (!c->err || c->errlen == 0) return LUCID_ERR_ARGUMENT;
    char reason[400], who[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (e->name)
        snprintf(who, sizeof who, "equality '%s'", e->name);
    else
        snprintf(who, sizeof who, "equality #%zu", i + 1);
    if (c->spec->source && e->line > 0)
        snprintf(c->err, c->errlen, "%s:%d: %s: %s", c->spec->source, e->line, who, reason);
    else if (c->spec->source)
        snprintf(c->err, c->errlen, "%s: %s: %s", c->spec->source, who, reason);
    else
        snprintf(c->err, c->errlen, "%s: %s", who, reason);
    return LUCID_ERR_ARGUMENT;
}

/* The world pose of node n at the neutral configuration (-1: the world frame). */
static lucid_se3 node_pose(const eq_ctx *c, int n) {
    return n < 0 ? lucid_se3_identity() : c->d->oMi[n];
}

/* The dofs moving node n: its chain, from its last dof down to the root dof. */
static void chain_range(const lucid_model *m, int n, size_t *lo, size_t *hi) {
    for (int k = n < 0 ? -1 : lucid_model_node_last_dof(m, n); k >= 0; k = m->dof_parent[k]) {
        if ((size_t)k < *lo) *lo = (size_t)k;
        if ((size_t)k > *hi) *hi = (size_t)k;
    }
}

static int spec_body_ok(const eq_ctx *c, int b) {
    return b == LUCID_MODEL_WORLD || (b >= 0 && (size_t)b < c->spec->nbodies);
}

/* connect and weld: nodes, the points that meet and (weld) the relative orientation. */
static lucid_status body_pair(const eq_ctx *c, const lucid_equality_spec *e, size_t i,
                              lucid_model_equality *q) {
    if (!spec_body_ok(c, e->body1) || !spec_body_ok(c, e->body2))
        return eq_fail(c, e, i, "body index out of range");
    if (e->body1 == LUCID_MODEL_WORLD)
        return eq_fail(c, e, i, "body1 is the world (name a body; body2 may be the world)");
    int b[2] = {e->body1, e->body2};
    lucid_se3 in_node[2];
    for (int k = 0; k < 2; ++k) {
        if (b[k] != LUCID_MODEL_WORLD && c->body_mocap[b[k]] >= 0)
            return eq_fail(c, e, i, "body '%s' is a mocap body (not supported in equalities)",
                           c->spec->bodies[b[k]].name);
        in_node[k] = b[k] == LUCID_MODEL_WORLD ? lucid_se3_identity() : c->body_in_node[b[k]];
    }
    q->node1 = b[0] == LUCID_MODEL_WORLD ? -1 : c->body_node[b[0]];
    q->node2 = b[1] == LUCID_MODEL_WORLD ? -1 : c->body_node[b[1]];
    if (q->node1 == q->node2)
        return eq_fail(c, e, i, "body1 and body2 move together (the same link or both fixed)");
    lucid_se3 X1 = node_pose(c, q->node1), X2 = node_pose(c, q->node2);
    lucid_se3 B1 = lucid_se3_compose(&X1, &in_node[0]), B2 = lucid_se3_compose(&X2, &in_node[1]);
    lucid_se3 X1i = lucid_se3_inverse(&X1), X2i = lucid_se3_inverse(&X2);
    if (e->kind == LUCID_EQUALITY_CONNECT) { /* anchor in body1; where it is in body2 at q0 */
        lucid_vec3 p = lucid_se3_act(&B1, e->anchor);
        q->p1 = lucid_se3_act(&X1i, p), q->p2 = lucid_se3_act(&X2i, p);
        q->rows = 3;
        return LUCID_OK;
    }
    /* weld: body2's anchor meets relpose's position in body1; body2 turned by relpose */
    lucid_vec3 p2 = lucid_se3_act(&B2, e->anchor);
    lucid_se3 rel = e->relpose;
    if (!e->has_relpose) { /* the relative pose at q0, the anchor's point meeting */
        lucid_se3 B1i = lucid_se3_inverse(&B1);
        rel = lucid_se3_compose(&B1i, &B2);
        rel.t = lucid_se3_act(&B1i, p2);
    }
    lucid_vec3 p1 = lucid_se3_act(&B1, rel.t);
    q->p1 = lucid_se3_act(&X1i, p1), q->p2 = lucid_se3_act(&X2i, p2);
    /* R_b1 rel.R = R_b2: R_n1 (in1.R rel.R in2.R^T) = R_n2 */
    lucid_mat3 A = lucid_mat3_mul(&in_node[0].R, &rel.R),
               in2T = lucid_mat3_transpose(&in_node[1].R);
    q->R12 = lucid_mat3_mul(&A, &in2T);
    q->rotation = e->torquescale > 0.0;
    q->rows = q->rotation ? 6 : 3;
    return LUCID_OK;
}

/* A 1-dof spec joint's node, or -1. */
static int scalar_joint(const eq_ctx *c, int j) {
    if (j < 0 || (size_t)j >= c->spec->njoints || c->joint_node[j] < 0) return -1;
    const lucid_model_node *nd = &c->m->nodes[c->joint_node[j]];
    return nd->kind == LUCID_JOINT_REVOLUTE || nd->kind == LUCID_JOINT_PRISMATIC ? c->joint_node[j]
                                                                                 : -1;
}

static lucid_status joint_pair(const eq_ctx *c, const lucid_equality_spec *e, size_t i,
                               lucid_model_equality *q) {
    int n1 = scalar_joint(c, e->joint1), n2 = e->joint2 < 0 ? -1 : scalar_joint(c, e->joint2);
    if (n1 < 0 || (e->joint2 >= 0 && n2 < 0))
        return eq_fail(c, e, i, "joint1 and joint2 must be hinge or slide joints");
    if (n1 == n2) return eq_fail(c, e, i, "joint1 and joint2 are the same joint");
    for (int k = 0; k < 5; ++k)
        if (!isfinite(e->polycoef[k])) return eq_fail(c, e, i, "polycoef must be finite");
    const lucid_model_node *a = &c->m->nodes[n1];
    q->q1 = a->idx_q, q->v1 = a->idx_v, q->ref1 = a->ref;
    q->q2 = q->v2 = SIZE_MAX, q->ref2 = 0.0;
    if (n2 >= 0) {
        const lucid_model_node *b = &c->m->nodes[n2];
        q->q2 = b->idx_q, q->v2 = b->idx_v, q->ref2 = b->ref;
    }
    memcpy(q->coef, e->polycoef, sizeof q->coef);
    q->rows = 1;
    return LUCID_OK;
}

/* A tendon of the compiled model (the spec's tendons compile one to one), or NULL. */
static const lucid_model_tendon *model_tendon(const eq_ctx *c, int t) {
    return t >= 0 && (size_t)t < c->m->ntendons ? &c->m->tendons[t] : NULL;
}

/* tendon: the tendons and their lengths at the neutral configuration (MuJoCo's
 * tendon_length0). */
static lucid_status tendon_pair(const eq_ctx *c, const lucid_equality_spec *e, size_t i,
                                lucid_model_equality *q) {
    q->t1 = model_tendon(c, e->tendon1);
    q->t2 = e->tendon2 < 0 ? NULL : model_tendon(c, e->tendon2);
    if (!q->t1 || (e->tendon2 >= 0 && !q->t2)) return eq_fail(c, e, i, "tendon index out of range");
    if (q->t1 == q->t2) return eq_fail(c, e, i, "tendon1 and tendon2 are the same tendon");
    for (int k = 0; k < 5; ++k)
        if (!isfinite(e->polycoef[k])) return eq_fail(c, e, i, "polycoef must be finite");
    q->ref1 = lucid_model_tendon_length(q->t1, c->q0);
    q->ref2 = q->t2 ? lucid_model_tendon_length(q->t2, c->q0) : 0.0;
    q->q1 = q->v1 = q->q2 = q->v2 = SIZE_MAX;
    memcpy(q->coef, e->polycoef, sizeof q->coef);
    q->rows = 1;
    return LUCID_OK;
}

/* lo, hi widened to the dofs tendon T's length depends on. */
static void tendon_range(const lucid_model_tendon *T, size_t *lo, size_t *hi) {
    for (size_t k = 0; T && k < T->n; ++k) {
        if (T->dof[k] < *lo) *lo = T->dof[k];
        if (T->dof[k] > *hi) *hi = T->dof[k];
    }
}

/* The dof range an equality's rows touch; 0 when none moves. */
static int dof_range(const lucid_model *m, lucid_model_equality *q) {
    size_t lo = SIZE_MAX, hi = 0;
    if (q->kind == LUCID_EQUALITY_TENDON) {
        tendon_range(q->t1, &lo, &hi);
        tendon_range(q->t2, &lo, &hi);
    } else if (q->kind == LUCID_EQUALITY_JOINT) {
        lo = hi = q->v1;
        if (q->v2 != SIZE_MAX) lo = lo < q->v2 ? lo : q->v2, hi = hi > q->v2 ? hi : q->v2;
    } else {
        chain_range(m, q->node1, &lo, &hi);
        chain_range(m, q->node2, &lo, &hi);
    }
    q->dof_lo = lo, q->dof_hi = hi;
    return lo != SIZE_MAX;
}

static char *copy_name(const char *s) {
    size_t n = strlen(s ? s : "") + 1;
    char *out = malloc(n);
    if (out) memcpy(out, s ? s : "", n);
    return out;
}

static lucid_status add(const eq_ctx *c, const lucid_equality_spec *e, size_t i) {
    lucid_model *m = c->m;
    lucid_model_equality q;
    memset(&q, 0, sizeof q);
    q.kind = e->kind;
    lucid_status st = e->kind == LUCID_EQUALITY_JOINT    ? joint_pair(c, e, i, &q)
                      : e->kind == LUCID_EQUALITY_TENDON ? tendon_pair(c, e, i, &q)
                                                         : body_pair(c, e, i, &q);
    if (st != LUCID_OK) return st;
    if (!dof_range(m, &q)) return eq_fail(c, e, i, "no joint moves either side");
    q.name = copy_name(e->name);
    if (!q.name) return LUCID_ERR_NO_MEMORY;
    m->equalities[m->nequalities++] = q;
    m->equality_rows += q.rows;
    return LUCID_OK;
}

/* A node's mimic coupling as a joint equality: q = multiplier q_target + offset (absolute
 * coordinates, URDF's). */
static lucid_status add_mimic(lucid_model *m, const lucid_model_node *nd) {
    const lucid_model_node *t = &m->nodes[nd->mimic];
    lucid_model_equality q;
    memset(&q, 0, sizeof q);
    q.kind = LUCID_EQUALITY_JOINT;
    q.q1 = nd->idx_q, q.v1 = nd->idx_v, q.q2 = t->idx_q, q.v2 = t->idx_v;
    q.coef[0] = nd->mimic_offset, q.coef[1] = nd->mimic_multiplier;
    q.rows = 1;
    dof_range(m, &q);
    q.name = copy_name(nd->name);
    if (!q.name) return LUCID_ERR_NO_MEMORY;
    m->equalities[m->nequalities++] = q;
    m->equality_rows += 1;
    return LUCID_OK;
}

lucid_status lucid_model_build_equalities(lucid_model *m, const lucid_model_spec *spec,
                                          const int *body_node, const lucid_se3 *body_in_node,
                                          const int *body_mocap, const int *joint_node, char *err,
                                          size_t errlen) {
    size_t n = 0;
    for (size_t i = 0; i < spec->nequalities; ++i) n += spec->equalities[i].active != 0;
    for (size_t j = 0; j < m->nnodes; ++j) n += m->nodes[j].mimic >= 0;
    if (n == 0) return LUCID_OK;
    m->equalities = calloc(n, sizeof *m->equalities);
    double *q0 = calloc(m->nq ? m->nq : 1, sizeof *q0);
    eq_ctx c = {m, spec, body_node, body_mocap, joint_node, body_in_node, q0, NULL, err, errlen};
    lucid_status st = LUCID_ERR_NO_MEMORY;
    if (m->equalities && q0 && lucid_model_data_create(m, &c.d) == LUCID_OK) {
        lucid_model_neutral(m, q0);
        lucid_model_forward_kinematics(m, c.d, q0);
        st = LUCID_OK;
        for (size_t i = 0; i < spec->nequalities && st == LUCID_OK; ++i)
            if (spec->equalities[i].active) st = add(&c, &spec->equalities[i], i);
        for (size_t j = 0; j < m->nnodes && st == LUCID_OK; ++j)
            if (m->nodes[j].mimic >= 0) st = add_mimic(m, &m->nodes[j]);
    }
    lucid_model_data_destroy(c.d);
    free(q0);
    if (st == LUCID_ERR_NO_MEMORY && err && errlen && !err[0])
        snprintf(err, errlen, "out of memory");
    return st;
}

/* ---- rows at a configuration ------------------------------------------------------------- */

/* The pose of node n in the model's frame (-1: the identity). */
static lucid_se3 posed_node(const lucid_model_data *d, int n) {
    return n < 0 ? lucid_se3_identity() : d->oMi[n];
}

/* rows (3, nv apart) += sign * the velocity of point p fixed to node n per unit rate of each
 * dof: a point's velocity Jacobian. */
static void add_point_rows(const lucid_model *m, const lucid_model_data *d, int n, lucid_vec3 p,
                           double sign, double *row, size_t nv) {
    for (int k = n < 0 ? -1 : lucid_model_node_last_dof(m, n); k >= 0; k = m->dof_parent[k]) {
        lucid_se3 X = d->oMi[m->dof_node[k]];
        int a = m->dof_axis[k];
        lucid_vec3 e = lucid_mat3_col(&X.R, a % 3);
        lucid_vec3 c = a < 3 ? e : lucid_vec3_cross(e, lucid_vec3_sub(p, X.t));
        row[k] += sign * c.x, row[nv + k] += sign * c.y, row[2 * nv + k] += sign * c.z;
    }
}

/* The same for node n's angular velocity. */
static void add_angular_rows(const lucid_model *m, const lucid_model_data *d, int n, double sign,
                             double *row, size_t nv) {
    for (int k = n < 0 ? -1 : lucid_model_node_last_dof(m, n); k >= 0; k = m->dof_parent[k]) {
        if (m->dof_axis[k] < 3) continue; /* a translation turns nothing */
        lucid_vec3 e = lucid_mat3_col(&d->oMi[m->dof_node[k]].R, m->dof_axis[k] % 3);
        row[k] += sign * e.x, row[nv + k] += sign * e.y, row[2 * nv + k] += sign * e.z;
    }
}

/* poly(x) = coef[0] + coef[1] x + ... + coef[4] x^4 and its slope (Horner). */
static double poly_at(const double *coef, double x, double *slope) {
    double p = coef[4], s = 0.0;
    for (int i = 3; i >= 0; --i) s = s * x + p, p = p * x + coef[i];
    *slope = s;
    return p;
}

/* Rows of equality e (row-major, nv wide) and its violation phi at q, d posed at q. */
static void equality_rows(const lucid_model *m, const lucid_model_data *d, const double *q,
                          const lucid_model_equality *e, double *E, double *phi) {
    size_t nv = m->nv;
    memset(E, 0, e->rows * nv * sizeof(double));
    if (e->kind == LUCID_EQUALITY_JOINT) {
        double slope, poly = poly_at(e->coef, e->v2 == SIZE_MAX ? 0.0 : q[e->q2] - e->ref2, &slope);
        phi[0] = q[e->q1] - e->ref1 - poly;
        E[e->v1] = 1.0;
        if (e->v2 != SIZE_MAX) E[e->v2] -= slope;
        return;
    }
    if (e->kind == LUCID_EQUALITY_TENDON) { /* E = dL1/dq - poly' dL2/dq (MuJoCo's ten_J rows) */
        double x = e->t2 ? lucid_model_tendon_length(e->t2, q) - e->ref2 : 0.0, slope;
        double poly = poly_at(e->coef, x, &slope);
        phi[0] = lucid_model_tendon_length(e->t1, q) - e->ref1 - poly;
        lucid_model_tendon_add_moment(e->t1, q, 1.0, 0, nv, E);
        if (e->t2) lucid_model_tendon_add_moment(e->t2, q, -slope, 0, nv, E);
        return;
    }
    lucid_se3 X1 = posed_node(d, e->node1), X2 = posed_node(d, e->node2);
    lucid_vec3 x1 = lucid_se3_act(&X1, e->p1), x2 = lucid_se3_act(&X2, e->p2);
    lucid_vec3_store(lucid_vec3_sub(x1, x2), phi);
    add_point_rows(m, d, e->node1, x1, 1.0, E, nv);
    add_point_rows(m, d, e->node2, x2, -1.0, E, nv);
    if (!e->rotation) return;
    /* node2's orientation against node1's turned by R12: log(R2 (R1 R12)^T) */
    lucid_mat3 R1 = lucid_mat3_mul(&X1.R, &e->R12), R1t = lucid_mat3_transpose(&R1);
    lucid_mat3 Rerr = lucid_mat3_mul(&X2.R, &R1t);
    lucid_vec3_store(lucid_so3_log(&Rerr), phi + 3);
    add_angular_rows(m, d, e->node2, 1.0, E + 3 * nv, nv);
    add_angular_rows(m, d, e->node1, -1.0, E + 3 * nv, nv);
}

void lucid_model_equality_jacobian(const lucid_model *m, const lucid_model_data *d, const double *q,
                                   double *E, double *phi) {
    size_t row = 0;
    for (size_t i = 0; i < m->nequalities; ++i) {
        equality_rows(m, d, q, &m->equalities[i], E + row * m->nv, phi + row);
        row += m->equalities[i].rows;
    }
}

void lucid_model_equality_span(const lucid_model *m, size_t i, size_t *dof_lo, size_t *rows) {
    *dof_lo = m->equalities[i].dof_lo;
    *rows = m->equalities[i].rows;
}

size_t lucid_model_equality_last_dof(const lucid_model *m, size_t i) {
    return m->equalities[i].dof_hi;
}
