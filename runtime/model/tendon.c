/* Tendon lengths and moments, MuJoCo 2.2.2's mj_tendon.
 *
 * A fixed tendon is linear in q. A spatial tendon's path runs through sites; between two sites
 * it may wrap around a sphere or a cylinder (MuJoCo's mju_wrap: the shortest path in the plane
 * of the two sites and the sphere's centre, or in the cylinder's cross-section with the height
 * spread along the path), and a pulley starts a branch whose length is divided by its divisor.
 * The moment is MuJoCo's: each straight piece between points on different nodes adds
 * dif . (J(p2) - J(p1)) / divisor, dif its unit direction and J the points' Jacobians, the wrap's
 * tangent points moving with their geom (the wrap is a shortest path, so their sliding along
 * the surface does not change the length to first order). Poses come from walking each
 * point's chain at q: nothing is allocated. */
#include <math.h>
#include <string.h>

#include "runtime/model/model_internal.h"
#include "runtime/model/spatial.h"

/* MuJoCo's mjMINVAL: below it a norm, a squared length or a determinant counts as zero. */
#define MIN_VALUE 1e-15
#define PI        3.14159265358979323846

/* Where a moment goes: scale times each entry into out[k - lo] for lo <= k < lo + width (out
 * may be NULL), and into dot as entry times v[k] (v may be NULL). */
typedef struct moment_sink {
    double scale;
    size_t lo, width;
    double *out;
    const double *v;
    double dot;
} moment_sink;

static void sink_add(moment_sink *s, size_t k, double value) {
    if (s->out && k >= s->lo && k - s->lo < s->width) s->out[k - s->lo] += s->scale * value;
    if (s->v) s->dot += s->scale * value * s->v[k];
}

/* ---- posing the path ------------------------------------------------------------------------ */

/* The world pose of node j at q (the identity for the world, -1). */
static lucid_se3 node_pose(const lucid_model *m, int j, const double *q) {
    if (j < 0) return lucid_se3_identity();
    const lucid_model_node *nd = &m->nodes[j];
    lucid_se3 XJ = lucid_joint_motion(nd, q + nd->idx_q);
    lucid_se3 l = lucid_se3_compose(&nd->X_tree, &XJ);
    lucid_se3 p = node_pose(m, nd->parent, q);
    return lucid_se3_compose(&p, &l);
}

static lucid_vec3 point_at(const lucid_model *m, int node, lucid_vec3 p, const double *q) {
    lucid_se3 X = node_pose(m, node, q);
    return lucid_se3_act(&X, p);
}

/* The world pose of node j; on the way, while active and until node stop, every dof of the
 * chain adds g . (the velocity of world point p per unit of the dof) to the sink. */
static lucid_se3 chain_moment(const lucid_model *m, int j, int stop, int active, const double *q,
                              lucid_vec3 p, lucid_vec3 g, moment_sink *s) {
    if (j < 0) return lucid_se3_identity();
    const lucid_model_node *nd = &m->nodes[j];
    active = active && j != stop;
    lucid_se3 P = chain_moment(m, nd->parent, stop, active, q, p, g, s);
    lucid_se3 XJ = lucid_joint_motion(nd, q + nd->idx_q);
    lucid_se3 l = lucid_se3_compose(&nd->X_tree, &XJ);
    lucid_se3 X = lucid_se3_compose(&P, &l);
    for (size_t k = nd->idx_v; active && k < nd->idx_v + nd->nv; ++k) {
        double w[6];
        lucid_sp_world_column(&X, m->dof_axis[k], w);
        lucid_vec3 v = lucid_vec3_add(lucid_sp_lin(w), lucid_vec3_cross(lucid_sp_ang(w), p));
        sink_add(s, k, lucid_vec3_dot(g, v));
    }
    return X;
}

/* The nearest common ancestor of nodes a and b (-1: the world); parents precede children. */
static int common_ancestor(const lucid_model *m, int a, int b) {
    while (a != b) {
        if (a > b)
            a = m->nodes[a].parent;
        else
            b = m->nodes[b].parent;
    }
    return a;
}

/* MuJoCo's mju_normalize on n entries: x / |x|, or (1, 0, ...) below MIN_VALUE; returns |x|. */
static double normalize(double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += x[i] * x[i];
    double norm = sqrt(s);
    if (norm < MIN_VALUE) {
        for (int i = 0; i < n; ++i) x[i] = i == 0 ? 1.0 : 0.0;
        return norm;
    }
    double inv = 1.0 / norm;
    for (int i = 0; i < n; ++i) x[i] *= inv;
    return norm;
}

/* The straight piece from p1 (on node n1) to p2 (on n2): dif . (J(p2) - J(p1)) / divisor into
 * the sink; nothing when both are on one node. The dofs the two chains share move dif's two
 * ends alike along dif, so they add nothing: the walk stops at the common ancestor. */
static void piece_moment(const lucid_model *m, lucid_vec3 p1, int n1, lucid_vec3 p2, int n2,
                         double divisor, const double *q, moment_sink *s) {
    if (n1 == n2) return;
    double d[3] = {p2.x - p1.x, p2.y - p1.y, p2.z - p1.z};
    normalize(d, 3);
    lucid_vec3 g = lucid_vec3_make(d[0] / divisor, d[1] / divisor, d[2] / divisor);
    int stop = common_ancestor(m, n1, n2);
    chain_moment(m, n2, stop, 1, q, p2, g, s);
    chain_moment(m, n1, stop, 1, q, p1, lucid_vec3_neg(g), s);
}

/* ---- wrapping (MuJoCo's mju_wrap, in the geom's frame) ------------------------------------- */

/* Whether the 2D segments p1-p2 and p3-p4 cross (MuJoCo's test, including the end points). */
static int segments_cross(const double *p1, const double *p2, const double *p3, const double *p4) {
    double det = (p4[1] - p3[1]) * (p2[0] - p1[0]) - (p4[0] - p3[0]) * (p2[1] - p1[1]);
    if (fabs(det) < MIN_VALUE) return 0;
    double a = ((p4[0] - p3[0]) * (p1[1] - p3[1]) - (p4[1] - p3[1]) * (p1[0] - p3[0])) / det;
    double b = ((p2[0] - p1[0]) * (p1[1] - p3[1]) - (p2[1] - p1[1]) * (p1[0] - p3[0])) / det;
    return a >= 0.0 && a <= 1.0 && b >= 0.0 && b <= 1.0;
}

/* The arc of radius r from p0 to p1: the short way for solution 0 turning one way, else the
 * long way (MuJoCo's length_circle). The cosine is clamped to [-1, 1] (MuJoCo's acos gives NaN
 * when rounding puts it past 1). */
static double arc_length(const double *p0, const double *p1, int second, double r) {
    double a[2] = {p0[0], p0[1]}, b[2] = {p1[0], p1[1]};
    normalize(a, 2), normalize(b, 2);
    double angle = acos(fmin(1.0, fmax(-1.0, a[0] * b[0] + a[1] * b[1])));
    double cross = p0[1] * p1[0] - p0[0] * p1[1];
    if ((cross > 0.0 && second) || (cross < 0.0 && !second)) angle = 2.0 * PI - angle;
    return r * angle;
}

/* The wrap around the circle of radius r at the origin from d[0..1] to d[2..3] (MuJoCo's
 * wrap_circle): -1 when the straight segment clears the circle (on the side point sd's side),
 * else the arc's length, its tangent points in pnt[0..3]. Of the two tangent pairs it takes the
 * one nearer the side point, or the shorter, never one whose pieces cross. */
static double wrap_circle(double *pnt, const double *d, const double *sd, double r) {
    double sq0 = d[0] * d[0] + d[1] * d[1], sq1 = d[2] * d[2] + d[3] * d[3], sqr = r * r;
    if (sq0 < sqr || sq1 < sqr || r < MIN_VALUE) return -1.0;
    double dif[2] = {d[2] - d[0], d[3] - d[1]};
    double dd = dif[0] * dif[0] + dif[1] * dif[1];
    if (dd < MIN_VALUE) return -1.0;
    double a = fmin(1.0, fmax(0.0, -(dif[0] * d[0] + dif[1] * d[1]) / dd));
    double near[2] = {a * dif[0] + d[0], a * dif[1] + d[1]}; /* nearest to the centre */
    if (near[0] * near[0] + near[1] * near[1] > sqr &&
        (!sd || sd[0] * near[0] + sd[1] * near[1] >= 0.0))
        return -1.0;
    double sol[2][4], good[2];
    double s0 = sqrt(sq0 - sqr), s1 = sqrt(sq1 - sqr);
    for (int i = 0; i < 2; ++i) {
        double sgn = i == 0 ? 1.0 : -1.0;
        sol[i][0] = (d[0] * sqr + sgn * r * d[1] * s0) / sq0;
        sol[i][1] = (d[1] * sqr - sgn * r * d[0] * s0) / sq0;
        sol[i][2] = (d[2] * sqr - sgn * r * d[3] * s1) / sq1;
        sol[i][3] = (d[3] * sqr + sgn * r * d[2] * s1) / sq1;
        double t[2];
        if (sd) {
            t[0] = sol[i][0] + sol[i][2], t[1] = sol[i][1] + sol[i][3];
            normalize(t, 2);
            good[i] = t[0] * sd[0] + t[1] * sd[1];
        } else {
            t[0] = sol[i][0] - sol[i][2], t[1] = sol[i][1] - sol[i][3];
            good[i] = -(t[0] * t[0] + t[1] * t[1]);
        }
        if (segments_cross(d, sol[i], d + 2, sol[i] + 2)) good[i] = -10000.0;
    }
    int i = good[0] > good[1] ? 0 : 1;
    memcpy(pnt, sol[i], 4 * sizeof(double));
    if (segments_cross(d, pnt, d + 2, pnt + 2)) return -1.0;
    return arc_length(sol[i], sol[i] + 2, i, r);
}

/* The path through the circle's inside (a side point inside the geom; MuJoCo's wrap_inside): -1
 * when the segment already meets the disc, else 0 with the one point on the circle where
 * asin(A z) + asin(B z) - 2 asin(z) + G = 0 (Newton from z = 1 - 1e-7 to |f| <= 1e-6, at most
 * 20 steps; on a numerical failure the direction of the two points' mean). */
static double wrap_inside(double *pnt, const double *d, double r) {
    const int max_iter = 20;
    const double z_init = 1.0 - 1e-7, tolerance = 1e-6;
    double len0 = sqrt(d[0] * d[0] + d[1] * d[1]), len1 = sqrt(d[2] * d[2] + d[3] * d[3]);
    double dif[2] = {d[2] - d[0], d[3] - d[1]};
    double dd = dif[0] * dif[0] + dif[1] * dif[1];
    if (len0 <= r || len1 <= r || r < MIN_VALUE || len0 < MIN_VALUE || len1 < MIN_VALUE)
        return -1.0;
    if (dd > MIN_VALUE) {
        double a = -(dif[0] * d[0] + dif[1] * d[1]) / dd;
        if (a > 0.0 && a < 1.0) {
            double t[2] = {d[0] + a * dif[0], d[1] + a * dif[1]};
            if (sqrt(t[0] * t[0] + t[1] * t[1]) <= r) return -1.0;
        }
    }
    pnt[0] = 0.5 * (d[0] + d[2]), pnt[1] = 0.5 * (d[1] + d[3]);
    normalize(pnt, 2);
    pnt[0] *= r, pnt[1] *= r, pnt[2] = pnt[0], pnt[3] = pnt[1];
    double A = r / len0, B = r / len1;
    double cosG = (len0 * len0 + len1 * len1 - dd) / (2.0 * len0 * len1);
    if (cosG < -1.0 + MIN_VALUE) return -1.0;
    if (cosG > 1.0 - MIN_VALUE) return 0.0;
    double G = acos(cosG), z = z_init;
    double f = asin(A * z) + asin(B * z) - 2.0 * asin(z) + G;
    if (f > 0.0) return 0.0;
    int iter;
    for (iter = 0; iter < max_iter && fabs(f) > tolerance; ++iter) {
        double df = A / fmax(MIN_VALUE, sqrt(1.0 - z * z * A * A)) +
                    B / fmax(MIN_VALUE, sqrt(1.0 - z * z * B * B)) -
                    2.0 / fmax(MIN_VALUE, sqrt(1.0 - z * z));
        if (df > -MIN_VALUE) return 0.0;
        double z1 = z - f / df;
        if (z1 > z) return 0.0;
        z = z1;
        f = asin(A * z) + asin(B * z) - 2.0 * asin(z) + G;
        if (f > tolerance) return 0.0;
    }
    if (iter >= max_iter) return 0.0;
    double vec[2], ang;
    if (d[0] * d[3] - d[1] * d[2] > 0.0) {
        vec[0] = d[0], vec[1] = d[1], ang = asin(z) - asin(A * z);
    } else {
        vec[0] = d[2], vec[1] = d[3], ang = asin(z) - asin(B * z);
    }
    normalize(vec, 2);
    pnt[0] = r * (cos(ang) * vec[0] - sin(ang) * vec[1]);
    pnt[1] = r * (sin(ang) * vec[0] + cos(ang) * vec[1]);
    pnt[2] = pnt[0], pnt[3] = pnt[1];
    return 0.0;
}

/* The plane of a sphere wrap in the geom frame: axis0 along p0, normal along p0 x p1 (another
 * normal when they are parallel), axis1 = normal x axis0 (MuJoCo's construction). */
static void sphere_plane(const double *p0, const double *p1, double *ax0, double *ax1) {
    double n[3];
    memcpy(ax0, p0, 3 * sizeof(double));
    normalize(ax0, 3);
    lucid_vec3 c = lucid_vec3_cross(lucid_vec3_load(p0), lucid_vec3_load(p1));
    lucid_vec3_store(c, n);
    if (normalize(n, 3) < MIN_VALUE) { /* parallel: 0 on ax0's largest component, 1 elsewhere */
        int i = 0;
        if (fabs(ax0[1]) > fabs(ax0[0]) && fabs(ax0[1]) > fabs(ax0[2])) i = 1;
        if (fabs(ax0[2]) > fabs(ax0[0]) && fabs(ax0[2]) > fabs(ax0[1])) i = 2;
        double t[3] = {1.0, 1.0, 1.0};
        t[i] = 0.0;
        lucid_vec3_store(lucid_vec3_cross(lucid_vec3_load(ax0), lucid_vec3_load(t)), n);
        normalize(n, 3);
    }
    lucid_vec3_store(lucid_vec3_cross(lucid_vec3_load(n), lucid_vec3_load(ax0)), ax1);
    normalize(ax1, 3);
}

/* The tendon from x0 to x1 around geom point P posed at G (world), side point *side or none:
 * -1 when it does not wrap, else the length of the wrapped part, with its end points t[0] (on
 * x0's side) and t[1] (world). */
static double wrap_geom(lucid_vec3 x0, lucid_vec3 x1, const lucid_se3 *G,
                        const lucid_model_tendon_point *P, const lucid_vec3 *side,
                        lucid_vec3 t[2]) {
    double p[2][3], ax[2][3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}}, r = P->radius;
    lucid_vec3_store(lucid_mat3_tmul_vec(&G->R, lucid_vec3_sub(x0, G->t)), p[0]);
    lucid_vec3_store(lucid_mat3_tmul_vec(&G->R, lucid_vec3_sub(x1, G->t)), p[1]);
    if (lucid_vec3_norm(lucid_vec3_load(p[0])) < MIN_VALUE ||
        lucid_vec3_norm(lucid_vec3_load(p[1])) < MIN_VALUE)
        return -1.0;
    if (!P->cylinder) sphere_plane(p[0], p[1], ax[0], ax[1]); /* a cylinder: its x, y axes */
    double d[4], pnt[4] = {0.0, 0.0, 0.0, 0.0}, sd[2] = {0.0, 0.0}, wlen;
    for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 2; ++k)
            d[2 * i + k] = p[i][0] * ax[k][0] + p[i][1] * ax[k][1] + p[i][2] * ax[k][2];
    if (side) { /* onto the circle when outside it, (0, 0) inside */
        double s[3];
        lucid_vec3_store(lucid_mat3_tmul_vec(&G->R, lucid_vec3_sub(*side, G->t)), s);
        for (int k = 0; k < 2; ++k) sd[k] = s[0] * ax[k][0] + s[1] * ax[k][1] + s[2] * ax[k][2];
        if (sqrt(sd[0] * sd[0] + sd[1] * sd[1]) >= r) {
            normalize(sd, 2);
            sd[0] *= r, sd[1] *= r;
        } else {
            sd[0] = sd[1] = 0.0;
        }
    }
    if (side && sd[0] == 0.0 && sd[1] == 0.0)
        wlen = wrap_inside(pnt, d, r);
    else
        wlen = wrap_circle(pnt, d, side ? sd : NULL, r);
    if (wlen < 0.0) return -1.0;
    double res[2][3];
    for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 3; ++k) res[i][k] = ax[0][k] * pnt[2 * i] + ax[1][k] * pnt[2 * i + 1];
    if (P->cylinder) { /* the height spread along the unrolled path */
        double L0 = sqrt((p[0][0] - res[0][0]) * (p[0][0] - res[0][0]) +
                         (p[0][1] - res[0][1]) * (p[0][1] - res[0][1]));
        double L1 = sqrt((p[1][0] - res[1][0]) * (p[1][0] - res[1][0]) +
                         (p[1][1] - res[1][1]) * (p[1][1] - res[1][1]));
        res[0][2] = p[0][2] + (p[1][2] - p[0][2]) * L0 / (L0 + wlen + L1);
        res[1][2] = p[0][2] + (p[1][2] - p[0][2]) * (L0 + wlen) / (L0 + wlen + L1);
        double height = fabs(res[1][2] - res[0][2]);
        wlen = sqrt(wlen * wlen + height * height);
    }
    for (int i = 0; i < 2; ++i)
        t[i] = lucid_vec3_add(lucid_mat3_mul_vec(&G->R, lucid_vec3_load(res[i])), G->t);
    return wlen;
}

/* ---- the spatial path ------------------------------------------------------------------------ */

/* The length of spatial tendon T at q, its moment into the sink s (may be NULL). */
static double spatial_walk(const lucid_model_tendon *T, const double *q, moment_sink *s) {
    const lucid_model *m = T->model;
    const lucid_model_tendon_point *path = T->path;
    double L = 0.0, divisor = 1.0;
    size_t j = 0;
    while (j + 1 < T->npath) {
        const lucid_model_tendon_point *a = &path[j], *b = &path[j + 1];
        if (a->kind == LUCID_TENDON_PATH_PULLEY || b->kind == LUCID_TENDON_PATH_PULLEY) {
            if (a->kind == LUCID_TENDON_PATH_PULLEY) divisor = a->divisor;
            j++;
            continue;
        }
        lucid_vec3 x0 = point_at(m, a->node, a->pose.t, q);
        const lucid_model_tendon_point *e = b->kind == LUCID_TENDON_PATH_GEOM ? &path[j + 2] : b;
        lucid_vec3 x1 = point_at(m, e->node, e->pose.t, q), t[2];
        double wlen = -1.0;
        if (b->kind == LUCID_TENDON_PATH_GEOM) {
            lucid_se3 X = node_pose(m, b->node, q);
            lucid_se3 G = lucid_se3_compose(&X, &b->pose);
            lucid_vec3 side;
            if (b->side >= 0) side = point_at(m, b->side_node, b->side_point, q);
            wlen = wrap_geom(x0, x1, &G, b, b->side >= 0 ? &side : NULL, t);
        }
        if (wlen < 0.0) {
            L += lucid_vec3_dist(x0, x1) / divisor;
            if (s) piece_moment(m, x0, a->node, x1, e->node, divisor, q, s);
        } else {
            L += (lucid_vec3_dist(x0, t[0]) + wlen + lucid_vec3_dist(t[1], x1)) / divisor;
            if (s) {
                piece_moment(m, x0, a->node, t[0], b->node, divisor, q, s);
                piece_moment(m, t[1], b->node, x1, e->node, divisor, q, s);
            }
        }
        j += b->kind == LUCID_TENDON_PATH_GEOM ? 2 : 1;
    }
    return L;
}

/* ---- every tendon ---------------------------------------------------------------------------- */

int lucid_model_tendon_is_spatial(const lucid_model_tendon *T) {
    return T->kind == LUCID_TENDON_SPATIAL;
}

double lucid_model_tendon_length(const lucid_model_tendon *T, const double *q) {
    if (T->kind == LUCID_TENDON_SPATIAL) return spatial_walk(T, q, NULL);
    double L = 0.0;
    for (size_t i = 0; i < T->n; ++i) L += T->coef[i] * q[T->coord[i]];
    return L;
}

double lucid_model_tendon_velocity(const lucid_model_tendon *T, const double *q, const double *v) {
    if (T->kind == LUCID_TENDON_SPATIAL) {
        moment_sink s = {1.0, 0, 0, NULL, v, 0.0};
        spatial_walk(T, q, &s);
        return s.dot;
    }
    double Ld = 0.0;
    for (size_t i = 0; i < T->n; ++i) Ld += T->coef[i] * v[T->dof[i]];
    return Ld;
}

void lucid_model_tendon_add_moment(const lucid_model_tendon *T, const double *q, double scale,
                                   size_t lo, size_t width, double *out) {
    moment_sink s = {scale, lo, width, out, NULL, 0.0};
    if (T->kind == LUCID_TENDON_SPATIAL) {
        spatial_walk(T, q, &s);
        return;
    }
    for (size_t i = 0; i < T->n; ++i) sink_add(&s, T->dof[i], T->coef[i]);
}

void lucid_model_tendon_passive(const lucid_model *m, const double *q, const double *v,
                                double *tau) {
    for (size_t t = 0; t < m->ntendons; ++t) {
        const lucid_model_tendon *T = &m->tendons[t];
        double f = 0.0;
        if (T->stiffness != 0.0)
            f -= T->stiffness * (lucid_model_tendon_length(T, q) - T->springlength);
        if (T->damping != 0.0) f -= T->damping * lucid_model_tendon_velocity(T, q, v);
        if (f != 0.0) lucid_model_tendon_add_moment(T, q, f, 0, m->nv, tau);
    }
}
