/* Articulated models in the world: their links as world bodies (posed by forward kinematics,
 * colliding like any body), their free velocities with damping, springs and position servos
 * implicit, the rows of the contact Jacobian on their links, joint limits as unilateral
 * contacts, and their integration on the configuration manifold.
 *
 * One step of a model (semi-implicit Euler, as free bodies; K, D diagonal per dof):
 *   M~ = M(q) + dt (D + Da) + dt^2 K
 *   M~ (v_free - v) = dt (tau(u, q, v) - b(q, v) - D v - dt K v)
 * (K: joint stiffness and the joint actuators' bias stiffness -gear^2 b1, Da: their bias
 * damping -gear^2 b2, each where positive: a position servo's gear^2 kp, a velocity servo's
 * gear^2 kv; fixed tendons' springs, dampers and actuators are explicit in tau, world_tendon.c)
 *   v+ = v_free + M~^-1 J^T lambda dt,   q+ = q (+) dt v+
 * so a stiff servo (kp dt^2 >> inertia) or a large damping stays stable: they act on v+. M~
 * keeps the branch-induced sparsity of M, so it is factorised by the tree's LTDL and every
 * M~^-1 product is two sparse triangular solves: no dense inverse of M anywhere. A model with
 * equality constraints applies the constrained mobility P in place of M~^-1 and projects its
 * positions back onto the constraints after integration (world_equality.c).
 * Gravity is the world's (the model's own is replaced: the difference is a uniform force
 * field, added through the centre-of-mass Jacobians). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/math/finite.h"
#include "runtime/model/configuration.h"
#include "runtime/model/dynamics.h"
#include "runtime/world/world_internal.h"

static void pose_links(lucid_world *w, lucid_world_model *wm);

static lucid_status bad(const char **why, const char *msg, lucid_status s) {
    if (why) *why = msg;
    return s;
}

void lucid_world_model_desc_default(lucid_world_model_desc *d) {
    memset(d, 0, sizeof *d);
    d->pose = lucid_se3_identity();
    d->friction = 0.5;
    d->restitution = 0.0;
}

static void free_model(lucid_world_model *wm) {
    lucid_world_equality_free(wm);
    lucid_model_data_destroy(wm->data);
    free(wm->q);
    free(wm->tree_dof);
    free(wm->dof_tree);
    wm->data = NULL, wm->q = NULL, wm->tree_dof = NULL, wm->dof_tree = NULL;
}

void lucid_world_models_destroy(lucid_world *w) {
    for (int i = 0; i < w->num_models; ++i) {
        free_model(&w->models[i]);
        lucid_model_destroy((lucid_model *)w->models[i].model); /* the world's reference */
    }
    free(w->models);
}

/* The model's trees (lucid_world_model): a dof's subtree is its root dof's (dof_parent -1;
 * parents come before children), and a tree is a run of dofs that no subtree, equality
 * constraint or limited tendon crosses, closed at dof k when every subtree, equality and tendon
 * met so far ends before k. root: 2 nv scratch entries. */
static void find_trees(lucid_world_model *wm, size_t *root) {
    const lucid_model *m = wm->model;
    size_t nv = lucid_model_nv(m), end = 0, *reach = root + nv;
    const int *parent = lucid_model_dof_parent(m);
    for (size_t k = 0; k < nv; ++k) root[k] = parent[k] < 0 ? k : root[parent[k]];
    size_t *last = wm->tree_dof; /* per root dof: its subtree's last dof (then the offsets) */
    for (size_t k = 0; k < nv; ++k) last[root[k]] = k, reach[k] = k;
    for (size_t i = 0; i < lucid_model_nequalities(m); ++i) { /* its dofs join one tree */
        size_t lo, rows, hi = lucid_model_equality_last_dof(m, i);
        lucid_model_equality_span(m, i, &lo, &rows);
        if (hi > reach[lo]) reach[lo] = hi;
    }
    int t = -1;
    for (size_t k = 0; k < nv; ++k) {
        if (k >= end) ++t;
        if (last[root[k]] + 1 > end) end = last[root[k]] + 1;
        if (reach[k] + 1 > end) end = reach[k] + 1;
        /* a limited tendon's dofs share one tree: its limit row is built over one */
        size_t span = lucid_world_tendon_span_end(m, k);
        if (span > end) end = span;
        wm->dof_tree[k] = t;
    }
    wm->num_trees = t + 1;
    for (size_t k = nv; k-- > 0;) wm->tree_dof[wm->dof_tree[k]] = k; /* each tree's first dof */
    wm->tree_dof[wm->num_trees] = nv;
}

/* The doubles of a model's state block that clone and sync copy: q, v, u, act, v_free,
 * v_start, 4 nv of scratch, the moment scratch and q_start. */
static size_t state_block(const lucid_model *m) {
    return 2 * lucid_model_nq(m) + 8 * lucid_model_nv(m) + lucid_model_nu(m) + lucid_model_na(m);
}

/* The state block, the model's workspace and its trees. */
static lucid_status allocate_model(lucid_world_model *wm) {
    const lucid_model *m = wm->model;
    size_t nq = lucid_model_nq(m), nv = lucid_model_nv(m), nu = lucid_model_nu(m);
    size_t n = state_block(m);
    wm->tree_dof = NULL, wm->dof_tree = NULL, wm->data = NULL, wm->eq = NULL, wm->eq_piv = NULL;
    wm->q = calloc(n > 0 ? n : 1, sizeof(double));
    wm->tree_dof = calloc(nv + 1, sizeof(size_t));
    wm->dof_tree = calloc(nv > 0 ? nv : 1, sizeof(int));
    size_t *root = calloc(nv > 0 ? 2 * nv : 1, sizeof(size_t));
    if (!wm->q || !wm->tree_dof || !wm->dof_tree || !root ||
        lucid_model_data_create(m, &wm->data) != LUCID_OK ||
        lucid_world_equality_allocate(wm) != LUCID_OK) {
        free(root);
        free_model(wm);
        return LUCID_ERR_NO_MEMORY;
    }
    find_trees(wm, root);
    free(root);
    wm->v = wm->q + nq, wm->u = wm->v + nv, wm->act = wm->u + nu;
    wm->v_free = wm->act + lucid_model_na(m);
    wm->v_start = wm->v_free + nv, wm->work = wm->v_start + nv, wm->moment = wm->work + 4 * nv;
    wm->q_start = wm->moment + nv;
    return LUCID_OK;
}

lucid_status lucid_world_models_clone(lucid_world *dst, const lucid_world *src) {
    if (src->num_models == 0) return LUCID_OK;
    lucid_status s = LUCID_RESERVE(dst, models, (size_t)src->num_models);
    if (s != LUCID_OK) return s;
    for (int i = 0; i < src->num_models; ++i) {
        const lucid_world_model *from = &src->models[i];
        lucid_world_model wm = *from;
        wm.q = NULL, wm.data = NULL;
        s = allocate_model(&wm);
        if (s != LUCID_OK) return s;
        memcpy(wm.q, from->q, state_block(wm.model) * sizeof(double));
        lucid_model_retain(wm.model);
        dst->models[dst->num_models++] = wm;
        pose_links(dst, &dst->models[i]);
    }
    return LUCID_OK;
}

int lucid_world_models_sync(lucid_world *dst, const lucid_world *src) {
    if (dst->num_models != src->num_models) return 0;
    for (int i = 0; i < src->num_models; ++i)
        if (dst->models[i].model != src->models[i].model ||
            dst->models[i].first_body != src->models[i].first_body)
            return 0;
    for (int i = 0; i < src->num_models; ++i) {
        const lucid_world_model *from = &src->models[i];
        lucid_world_model *to = &dst->models[i];
        memcpy(to->q, from->q, state_block(from->model) * sizeof(double));
        to->base = from->base, to->restitution = from->restitution, to->stepped = from->stepped;
        pose_links(dst, to);
    }
    return 1;
}

/* The geoms of model body b that a world body carries: all of a link's; of the static group,
 * those of mocap body `mocap` (-1: the ones fixed in the model's world frame). */
static int carries(const lucid_model_geom *g, int b, int mocap) {
    return b >= 0 || g->mocap == mocap;
}

/* The largest margin model geom g collides at (its own, or an explicit pair's naming it): what
 * its parts' boxes grow by in the broad phase. -1 for a geom that collides with nothing (no
 * bitmask and no explicit pair). */
static double geom_reach(const lucid_model *m, size_t g) {
    const lucid_model_geom *geom = &lucid_model_geoms(m)[g];
    double reach = geom->contype || geom->conaffinity ? geom->margin : -1.0;
    if (lucid_model_collision_mode(m) == LUCID_MODEL_COLLISION_DYNAMIC) return reach;
    const lucid_model_pair *p = lucid_model_pairs(m);
    for (size_t k = 0; k < lucid_model_npairs(m); ++k)
        if ((size_t)p[k].geom1 == g || (size_t)p[k].geom2 == g) reach = fmax(reach, p[k].margin);
    return reach;
}

/* The world bodies of a model: one per moving model body (its geoms as parts, possibly none),
 * then one static body for the geoms fixed in the model's world frame (if any), then one static
 * body per mocap body (possibly without parts), posed at its initial pose. */
static lucid_status add_link_bodies(lucid_world *w, lucid_world_model *wm, int index,
                                    const lucid_world_model_desc *d) {
    const lucid_model *m = wm->model;
    const lucid_model_geom *geoms = lucid_model_geoms(m);
    wm->first_body = w->num_bodies;
    wm->num_bodies = (int)lucid_model_nbodies(m);
    wm->static_body = -1;
    wm->first_mocap = -1;
    int nmocap = (int)lucid_model_nmocap(m);
    for (int k = 0; k <= wm->num_bodies + nmocap; ++k) {
        int b = k < wm->num_bodies ? k : -1; /* the links first, then the static geoms */
        int mocap = k > wm->num_bodies ? k - wm->num_bodies - 1 : -1;
        size_t first, all, count = 0;
        lucid_model_body_geoms(m, b, &first, &all);
        for (size_t i = 0; i < all; ++i) /* a decomposed geom is one part per convex piece */
            if (carries(&geoms[first + i], b, mocap))
                count += geoms[first + i].nparts ? geoms[first + i].nparts : 1;
        if (b < 0 && mocap < 0 && count == 0) continue;
        lucid_body_part parts[64];
        lucid_part_contact contact[64];
        lucid_body_part *list = parts;
        lucid_part_contact *params = contact;
        if (count > 64) {
            list = malloc(count * sizeof *list);
            params = malloc(count * sizeof *params);
            if (!list || !params) {
                free(list), free(params);
                return LUCID_ERR_NO_MEMORY;
            }
        }
        double friction = d->has_friction ? d->friction : 0.5; /* else the first geom's */
        for (size_t i = 0; i < all && !d->has_friction; ++i)
            if (carries(&geoms[first + i], b, mocap)) {
                friction = geoms[first + i].friction;
                break;
            }
        size_t used = 0;
        for (size_t i = 0; i < all; ++i) {
            const lucid_model_geom *g = &geoms[first + i];
            if (!carries(g, b, mocap)) continue;
            double reach = geom_reach(m, first + i);
            if (reach < 0.0) continue; /* visual only */
            for (size_t p = 0; p < (g->nparts ? g->nparts : 1); ++p) {
                list[used].shape = g->nparts ? g->parts[p] : g->shape;
                list[used].pose = mocap >= 0 ? g->in_mocap
                                  : b < 0    ? lucid_se3_compose(&d->pose, &g->pose)
                                             : g->pose;
                lucid_part_contact *pc = &params[used];
                pc->geom = (int)(first + i); /* every part reports its geom */
                /* friction given for the model: every geom's, condim 3 (1 for none) */
                pc->condim = d->has_friction ? (d->friction > 0.0 ? 3 : 1) : g->condim;
                pc->friction = d->has_friction ? d->friction : g->friction;
                pc->torsion = d->has_friction ? 0.0 : g->torsion;
                pc->rolling = d->has_friction ? 0.0 : g->rolling;
                pc->priority = g->priority, pc->margin = g->margin, pc->gap = g->gap;
                pc->reach = reach;
                pc->contype = g->contype, pc->conaffinity = g->conaffinity;
                ++used;
            }
        }
        int id;
        lucid_status s = lucid_world_push_body(w, list, params, (int)used, &id);
        if (list != parts) free(list), free(params);
        if (s != LUCID_OK) return s;
        lucid_body *body = &w->bodies[id];
        body->model = index;
        body->link = b;
        body->node = b < 0 ? -1 : lucid_model_body_joint(m, (size_t)b);
        body->mocap = mocap;
        body->is_static = b < 0;
        body->pose = b < 0 ? lucid_se3_identity() : d->pose;
        if (mocap >= 0) {
            lucid_se3 initial = lucid_model_mocap_pose(m, (size_t)mocap);
            body->pose = lucid_se3_compose(&d->pose, &initial);
        }
        body->friction = friction;
        body->restitution = d->restitution;
        if (b < 0 && mocap < 0) wm->static_body = id;
        if (mocap == 0) wm->first_mocap = id;
    }
    return LUCID_OK;
}

/* Poses of the link bodies from the model's forward kinematics at its q. */
static void place_links(lucid_world *w, lucid_world_model *wm);

static void pose_links(lucid_world *w, lucid_world_model *wm) {
    lucid_model_forward_kinematics(wm->model, wm->data, wm->q);
    place_links(w, wm);
}

/* The link bodies at the model's kinematics (data posed at q). */
static void place_links(lucid_world *w, lucid_world_model *wm) {
    const lucid_se3 *oMi = lucid_model_data_joint_poses(wm->data);
    for (int b = 0; b < wm->num_bodies; ++b) {
        lucid_body *body = &w->bodies[wm->first_body + b];
        body->pose = lucid_se3_compose(&wm->base, &oMi[body->node]);
    }
}

lucid_status lucid_world_add_model(lucid_world *w, const lucid_model *m,
                                   const lucid_world_model_desc *d, int *id, const char **why) {
    if (!w || !m || !d) return bad(why, "missing argument", LUCID_ERR_ARGUMENT);
    size_t nq = lucid_model_nq(m), nv = lucid_model_nv(m);
    if (!lucid_mat3_isfinite(&d->pose.R) || !lucid_vec3_isfinite(d->pose.t))
        return bad(why, "pose must be finite", LUCID_ERR_NONFINITE);
    if (!(d->friction >= 0.0 && d->friction <= LUCID_CONTACT_MAX_FRICTION))
        return bad(why, "friction must be in [0, 100]", LUCID_ERR_ARGUMENT);
    if (!(d->restitution >= 0.0 && d->restitution <= 1.0))
        return bad(why, "restitution must be in [0, 1]", LUCID_ERR_ARGUMENT);
    if (d->q && lucid_model_check_configuration(m, d->q, NULL) != LUCID_OK)
        return bad(why, "q must be finite with non-zero quaternions", LUCID_ERR_ARGUMENT);
    if (d->v && !lucid_all_finite(d->v, nv))
        return bad(why, "v must be finite", LUCID_ERR_NONFINITE);
    if (d->act && !lucid_all_finite(d->act, lucid_model_na(m)))
        return bad(why, "act must be finite", LUCID_ERR_NONFINITE);
    if (w->num_models == INT32_MAX) return bad(why, "too many models", LUCID_ERR_NO_MEMORY);
    lucid_status s = LUCID_RESERVE(w, models, (size_t)w->num_models + 1);
    if (s != LUCID_OK) return bad(why, "out of memory", s);
    lucid_world_model wm;
    memset(&wm, 0, sizeof wm);
    wm.model = m;
    wm.base = d->pose;
    wm.restitution = d->restitution;
    wm.friction = d->has_friction ? d->friction : -1.0;
    wm.pairs =
        lucid_model_npairs(m) > 0 && lucid_model_collision_mode(m) != LUCID_MODEL_COLLISION_DYNAMIC;
    wm.predefined = lucid_model_collision_mode(m) == LUCID_MODEL_COLLISION_PREDEFINED;
    if (allocate_model(&wm) != LUCID_OK) return bad(why, "out of memory", LUCID_ERR_NO_MEMORY);
    wm.first_tree = lucid_world_models_trees(w);
    if (d->q) {
        memcpy(wm.q, d->q, nq * sizeof(double));
        lucid_model_normalize(m, wm.q);
    } else {
        lucid_model_neutral(m, wm.q);
    }
    if (d->v) memcpy(wm.v, d->v, nv * sizeof(double));
    if (d->act) memcpy(wm.act, d->act, lucid_model_na(m) * sizeof(double));
    int index = w->num_models;
    int bodies_before = w->num_bodies, parts_before = w->num_parts;
    s = add_link_bodies(w, &wm, index, d);
    if (s != LUCID_OK) {
        w->num_bodies = bodies_before, w->num_parts = parts_before;
        free_model(&wm);
        return bad(why, "out of memory", s);
    }
    lucid_model_retain(m);
    w->models[w->num_models++] = wm;
    pose_links(w, &w->models[index]);
    if (id) *id = index;
    return LUCID_OK;
}

int lucid_world_model_count(const lucid_world *w) {
    return w ? w->num_models : 0;
}

static lucid_world_model *get_model(const lucid_world *w, int id) {
    return w && id >= 0 && id < w->num_models ? &w->models[id] : NULL;
}

const lucid_model *lucid_world_model_of(const lucid_world *w, int id) {
    lucid_world_model *wm = get_model(w, id);
    return wm ? wm->model : NULL;
}

void lucid_world_replace_model(lucid_world *w, int id, const lucid_model *m) {
    lucid_world_model *wm = get_model(w, id);
    if (!wm || !m || wm->model == m) return;
    lucid_model *old = (lucid_model *)wm->model;
    wm->model = lucid_model_retain(m);
    lucid_model_destroy(old);
}

const double *lucid_world_model_q(const lucid_world *w, int id) {
    lucid_world_model *wm = get_model(w, id);
    return wm ? wm->q : NULL;
}

const double *lucid_world_model_v(const lucid_world *w, int id) {
    lucid_world_model *wm = get_model(w, id);
    return wm ? wm->v : NULL;
}

const double *lucid_world_model_control(const lucid_world *w, int id) {
    lucid_world_model *wm = get_model(w, id);
    return wm ? wm->u : NULL;
}

lucid_status lucid_world_model_set_q(lucid_world *w, int id, const double *q, const char **why) {
    lucid_world_model *wm = get_model(w, id);
    if (!wm || !q) return bad(why, "unknown model", LUCID_ERR_ARGUMENT);
    if (lucid_model_check_configuration(wm->model, q, NULL) != LUCID_OK)
        return bad(why, "q must be finite with non-zero quaternions", LUCID_ERR_ARGUMENT);
    memcpy(wm->q, q, lucid_model_nq(wm->model) * sizeof(double));
    lucid_model_normalize(wm->model, wm->q);
    pose_links(w, wm);
    wm->stepped = 0;
    return LUCID_OK;
}

lucid_status lucid_world_model_set_v(lucid_world *w, int id, const double *v, const char **why) {
    lucid_world_model *wm = get_model(w, id);
    if (!wm || !v) return bad(why, "unknown model", LUCID_ERR_ARGUMENT);
    if (!lucid_all_finite(v, lucid_model_nv(wm->model)))
        return bad(why, "v must be finite", LUCID_ERR_NONFINITE);
    memcpy(wm->v, v, lucid_model_nv(wm->model) * sizeof(double));
    wm->stepped = 0;
    return LUCID_OK;
}

lucid_status lucid_world_model_set_control(lucid_world *w, int id, const double *u,
                                           const char **why) {
    lucid_world_model *wm = get_model(w, id);
    if (!wm || !u) return bad(why, "unknown model", LUCID_ERR_ARGUMENT);
    if (!lucid_all_finite(u, lucid_model_nu(wm->model)))
        return bad(why, "controls must be finite", LUCID_ERR_NONFINITE);
    memcpy(wm->u, u, lucid_model_nu(wm->model) * sizeof(double));
    return LUCID_OK;
}

const double *lucid_world_model_act(const lucid_world *w, int id) {
    lucid_world_model *wm = get_model(w, id);
    return wm ? wm->act : NULL;
}

lucid_status lucid_world_model_set_act(lucid_world *w, int id, const double *act,
                                       const char **why) {
    lucid_world_model *wm = get_model(w, id);
    if (!wm) return bad(why, "unknown model", LUCID_ERR_ARGUMENT);
    if (!act && lucid_model_na(wm->model) > 0)
        return bad(why, "activations missing", LUCID_ERR_ARGUMENT);
    if (!lucid_all_finite(act, lucid_model_na(wm->model)))
        return bad(why, "activations must be finite", LUCID_ERR_NONFINITE);
    memcpy(wm->act, act, lucid_model_na(wm->model) * sizeof(double));
    return LUCID_OK;
}

lucid_status lucid_world_model_frame_pose(const lucid_world *w, int id, size_t frame,
                                          lucid_se3 *T) {
    lucid_world_model *wm = get_model(w, id);
    if (!wm || !T || frame >= lucid_model_nframes(wm->model)) return LUCID_ERR_ARGUMENT;
    lucid_se3 in_mocap;
    int mocap = lucid_model_frame_mocap(wm->model, frame, &in_mocap);
    if (mocap >= 0) { /* a mocap body's world pose, the frame fixed to it */
        *T = lucid_se3_compose(&w->bodies[wm->first_mocap + mocap].pose, &in_mocap);
        return LUCID_OK;
    }
    lucid_se3 local = lucid_model_frame_pose(wm->model, wm->data, frame);
    *T = lucid_se3_compose(&wm->base, &local);
    return LUCID_OK;
}

/* A mocap body's world body, NULL for an unknown model or index. */
static lucid_body *mocap_body(const lucid_world *w, int id, size_t k) {
    lucid_world_model *wm = get_model(w, id);
    if (!wm || k >= lucid_model_nmocap(wm->model)) return NULL;
    return &w->bodies[wm->first_mocap + (int)k];
}

lucid_status lucid_world_model_mocap(const lucid_world *w, int id, size_t k, lucid_se3 *pose) {
    const lucid_body *b = mocap_body(w, id, k);
    if (!b || !pose) return LUCID_ERR_ARGUMENT;
    lucid_se3 to_model = lucid_se3_inverse(&w->models[id].base);
    *pose = lucid_se3_compose(&to_model, &b->pose);
    return LUCID_OK;
}

lucid_status lucid_world_model_set_mocap(lucid_world *w, int id, size_t k, const lucid_se3 *pose,
                                         const char **why) {
    lucid_body *b = mocap_body(w, id, k);
    if (!b || !pose) return bad(why, "unknown model or mocap body", LUCID_ERR_ARGUMENT);
    lucid_se3 T;
    lucid_status s =
        lucid_se3_from_rotation(&pose->R, pose->t, LUCID_WORLD_MOCAP_ROTATION_TOLERANCE, &T);
    if (s == LUCID_ERR_NONFINITE) return bad(why, "pose must be finite", s);
    if (s != LUCID_OK) return bad(why, "the pose's R is not a rotation matrix", s);
    if (!(lucid_vec3_max_abs(T.t) <= LUCID_GEOMETRY_MAX))
        return bad(why, "the pose's translation is beyond LUCID_GEOMETRY_MAX", LUCID_ERR_ARGUMENT);
    b->pose = lucid_se3_compose(&w->models[id].base, &T);
    return LUCID_OK;
}

int lucid_world_body_mocap(const lucid_world *w, int body) {
    if (!w || body < 0 || body >= w->num_bodies) return -1;
    return w->bodies[body].mocap;
}

/* Whether link body `child` hangs from `parent` (the same model's link or static geoms) under
 * the model's parent filter: its parent link (MuJoCo's weld parent) unless the filter is off;
 * with LUCID_MODEL_FILTER_ADJACENT also the static geoms for a root link not on a free joint. */
static int is_child_of(const lucid_world *w, const lucid_body *child, const lucid_body *parent) {
    if (child->link < 0 || parent->mocap >= 0) return 0;
    const lucid_model *m = w->models[child->model].model;
    lucid_model_parent_filter f = lucid_model_filter_parent(m);
    int p = lucid_model_body_parent(m, (size_t)child->link);
    if (f == LUCID_MODEL_FILTER_NONE || p != parent->link) return 0;
    if (p >= 0) return 1;
    return f == LUCID_MODEL_FILTER_ADJACENT &&
           lucid_model_joint_kind(m, (size_t)child->node) != LUCID_JOINT_FREE;
}

int lucid_world_models_pair_allowed(const lucid_world *w, int a, int b) {
    const lucid_body *ba = &w->bodies[a], *bb = &w->bodies[b];
    if (ba->model < 0 || ba->model != bb->model) return 1;
    if (w->models[ba->model].predefined) return 0;
    return !is_child_of(w, ba, bb) && !is_child_of(w, bb, ba);
}

int lucid_world_models_parts_allowed(const lucid_world *w, int a, int ia, int b, int ib) {
    const lucid_body *ba = &w->bodies[a], *bb = &w->bodies[b];
    if (ba->model < 0 || ba->model != bb->model) return 1;
    const lucid_model *m = w->models[ba->model].model;
    size_t n = lucid_model_nexcludes(m);
    if (n == 0) return 1;
    const lucid_model_geom *geoms = lucid_model_geoms(m);
    int ga = w->part_contact[ba->part_begin + ia].geom;
    int gb = w->part_contact[bb->part_begin + ib].geom;
    int fa = geoms[ga].frame, fb = geoms[gb].frame;
    const int(*ex)[2] = lucid_model_excludes(m);
    for (size_t k = 0; k < n; ++k)
        if ((ex[k][0] == fa && ex[k][1] == fb) || (ex[k][0] == fb && ex[k][1] == fa)) return 0;
    return 1;
}

int lucid_world_models_may_pair(const lucid_world *w, int a, int b) {
    const lucid_body *ba = &w->bodies[a], *bb = &w->bodies[b];
    return ba->model >= 0 && ba->model == bb->model && w->models[ba->model].pairs;
}

int lucid_world_models_explicit_pair(const lucid_world *w, int a, int ia, int b, int ib,
                                     lucid_pair_contact *out) {
    if (!lucid_world_models_may_pair(w, a, b)) return 0;
    const lucid_world_model *wm = &w->models[w->bodies[a].model];
    int ga = w->part_contact[w->bodies[a].part_begin + ia].geom;
    int gb = w->part_contact[w->bodies[b].part_begin + ib].geom;
    int k = lucid_model_find_pair(wm->model, ga, gb);
    if (k < 0) return 0;
    const lucid_model_pair *p = &lucid_model_pairs(wm->model)[k];
    int condim = wm->friction >= 0.0 ? (wm->friction > 0.0 ? 3 : 1) : p->condim;
    double mu = wm->friction >= 0.0 ? wm->friction : p->friction;
    out->friction = condim == 1 ? 0.0 : mu;
    out->torsion = condim >= 4 ? p->torsion : 0.0;
    out->rolling = condim >= 6 ? p->rolling : 0.0;
    out->include_margin = p->margin - p->gap;
    return 1;
}

int lucid_world_models_pair_dim(const lucid_world *w) {
    int dim = 3;
    for (int i = 0; i < w->num_models; ++i) {
        const lucid_model *m = w->models[i].model;
        if (w->models[i].friction >= 0.0 || !w->models[i].pairs) continue;
        for (size_t k = 0; k < lucid_model_npairs(m); ++k) {
            if (lucid_model_pairs(m)[k].condim >= 6) return 6;
            if (lucid_model_pairs(m)[k].condim >= 4) dim = 4;
        }
    }
    return dim;
}

int lucid_world_body_model(const lucid_world *w, int body, int *link) {
    if (!w || body < 0 || body >= w->num_bodies) return -1;
    if (link) *link = w->bodies[body].link;
    return w->bodies[body].model;
}

int lucid_world_part_geom(const lucid_world *w, int body, int part) {
    if (!w || body < 0 || body >= w->num_bodies) return -1;
    const lucid_body *b = &w->bodies[body];
    if (part < 0 || part >= b->num_parts) return -1;
    return w->part_contact[b->part_begin + part].geom;
}

/* ---- the step ---------------------------------------------------------------------------- */

/* The model's per-dof arrays a point's rows read (pointers into the model and its data, fetched
 * once per point): each dof's joint, S column and parent, and the joints' world placements;
 * plus the world pose of the last joint asked for (a walk up the tree meets a joint's dofs one
 * after another: a free joint's six share one pose). */
typedef struct dof_frames {
    const int *joint, *axis, *parent;
    const lucid_se3 *pose;
    int last_joint;
    lucid_se3 last_pose;
} dof_frames;

static dof_frames dof_frames_of(const lucid_world_model *wm) {
    const lucid_model *m = wm->model;
    return (dof_frames){lucid_model_dof_joint(m),
                        lucid_model_dof_axis(m),
                        lucid_model_dof_parent(m),
                        lucid_model_data_joint_poses(wm->data),
                        -1,
                        lucid_se3_identity()};
}

/* The world pose of dof k's joint (the base frame included), composed once per joint. */
static const lucid_se3 *dof_pose(const lucid_world_model *wm, dof_frames *F, int k) {
    if (F->joint[k] != F->last_joint) {
        F->last_joint = F->joint[k];
        F->last_pose = lucid_se3_compose(&wm->base, &F->pose[F->joint[k]]);
    }
    return &F->last_pose;
}

/* The world velocity of point p fixed to a node per unit rate of dof k (an ancestor dof of
 * that node): its axis e in world axes, e itself for a translation, e x (p - o) for a
 * rotation about the dof node's origin o (the base frame included). */
static lucid_vec3 point_column(const lucid_world_model *wm, dof_frames *F, int k, lucid_vec3 p) {
    const lucid_se3 *X = dof_pose(wm, F, k);
    int a = F->axis[k];
    lucid_vec3 e = lucid_mat3_col(&X->R, a % 3);
    return a < 3 ? e : lucid_vec3_cross(e, lucid_vec3_sub(p, X->t));
}

/* Adds J_p^T f to tau: the generalised force of a world force f at the world point p fixed to
 * node `node`. */
static void add_point_force(const lucid_world_model *wm, int node, lucid_vec3 p, lucid_vec3 f,
                            double *tau) {
    dof_frames F = dof_frames_of(wm);
    for (int k = lucid_model_joint_last_dof(wm->model, (size_t)node); k >= 0; k = F.parent[k])
        tau[k] += lucid_vec3_dot(point_column(wm, &F, k, p), f);
}

/* 3 x width rows (row d at out + d width, over the dofs from lo of the node's tree): the world
 * velocity of point p fixed to `node`, projected on the columns of frame and scaled by sign. */
static void point_rows(const lucid_world_model *wm, int node, lucid_vec3 p, const lucid_mat3 *frame,
                       double sign, size_t lo, size_t width, double *out) {
    dof_frames F = dof_frames_of(wm);
    memset(out, 0, 3 * width * sizeof(double));
    for (int k = lucid_model_joint_last_dof(wm->model, (size_t)node); k >= 0; k = F.parent[k]) {
        lucid_vec3 col = point_column(wm, &F, k, p);
        for (int d = 0; d < 3; ++d)
            out[(size_t)d * width + (size_t)k - lo] =
                sign * lucid_vec3_dot(lucid_mat3_col(frame, d), col);
    }
}

/* Joint j's mass and its centre of mass in the world into *com (the origin when massless; data
 * posed). */
static double joint_com(const lucid_world_model *wm, size_t j, lucid_vec3 *com) {
    lucid_vec3 c;
    double mass = lucid_model_joint_mass(wm->model, j, &c);
    *com = lucid_vec3_zero();
    if (!(mass > 0.0)) return mass;
    lucid_se3 X = lucid_se3_compose(&wm->base, &lucid_model_data_joint_poses(wm->data)[j]);
    *com = lucid_se3_act(&X, c);
    return mass;
}

/* tau += generalised force of the world's gravity minus the model's own (which nle used). */
static void gravity_correction(const lucid_world *w, const lucid_world_model *wm, double *tau) {
    const lucid_model *m = wm->model;
    lucid_vec3 g_model = lucid_mat3_mul_vec(&wm->base.R, lucid_model_gravity(m));
    lucid_vec3 dg = lucid_vec3_sub(w->opt.gravity, g_model);
    if (dg.x == 0.0 && dg.y == 0.0 && dg.z == 0.0) return;
    for (size_t j = 0; j < lucid_model_njoints(m); ++j) {
        lucid_vec3 com;
        double mass = joint_com(wm, j, &com);
        if (mass > 0.0) add_point_force(wm, (int)j, com, lucid_vec3_scale(dg, mass), tau);
    }
}

/* Actuator A's force before its force clamp (its input: u clamped to the control range, or its
 * activation). */
static double actuator_raw_force(const lucid_world_model *wm, const lucid_model_actuator *A,
                                 double u) {
    double in = lucid_model_actuator_input(A, u, wm->act);
    return lucid_model_actuator_gain(A, wm->q, wm->v) * in +
           lucid_model_actuator_bias(A, wm->q, wm->v);
}

/* The implicit stiffness and damping of actuator A on its dof: the parts of its bias that pull
 * towards a length or a velocity (-gear^2 b1, -gear^2 b2 where positive; the rest of its force,
 * gain terms included, stays explicit, so that M~ stays positive definite and does not depend
 * on u). */
static double actuator_stiffness(const lucid_model_actuator *A) {
    return fmax(0.0, -A->bias[1]) * A->gear * A->gear;
}
static double actuator_damping(const lucid_model_actuator *A) {
    return fmax(0.0, -A->bias[2]) * A->gear * A->gear;
}

/* The diagonals K and Da of the implicit stiffness (servos and springs on joints) and actuator
 * damping, and the explicit generalised forces of actuators, springs and tendons, into tau. */
static void actuation(const lucid_world_model *wm, double *K, double *Da, double *tau) {
    const lucid_model *m = wm->model;
    const lucid_model_actuator *act = lucid_model_actuators(m);
    const double *stiffness = lucid_model_stiffness(m), *springref = lucid_model_springref(m);
    for (size_t i = 0; i < lucid_model_nv(m); ++i) K[i] = 0.0, Da[i] = 0.0;
    for (size_t j = 0; j < lucid_model_njoints(m); ++j) {
        if (lucid_model_joint_nq(m, j) != 1) continue;
        size_t iq = lucid_model_joint_idx_q(m, j), iv = lucid_model_joint_idx_v(m, j);
        double k = stiffness[iv];
        if (k == 0.0) continue;
        K[iv] += k;
        tau[iv] -= k * (wm->q[iq] - springref[iq]);
    }
    for (size_t a = 0; a < lucid_model_nu(m); ++a) {
        const lucid_model_actuator *A = &act[a];
        if (A->joint >= 0) { /* a tendon's or slider-crank's would couple its dofs in M~:
                                explicit (world_tendon.c) */
            K[A->dof] += actuator_stiffness(A);
            Da[A->dof] += actuator_damping(A);
        }
        lucid_model_actuator_add_moment(
            A, wm->q, lucid_model_actuator_force(A, wm->q, wm->v, wm->u[a], wm->act), tau);
    }
    lucid_world_tendon_passive(wm, tau);
}

/* v_free of one model, and (refactor) its factorised M~ for the contact rows (wm->data);
 * without refactor the factor of the last step at this configuration is reused. */
static void model_free_velocity(const lucid_world *w, lucid_world_model *wm, int refactor) {
    const lucid_model *m = wm->model;
    const double dt = w->opt.dt;
    size_t nv = lucid_model_nv(m);
    const double *damping = lucid_model_damping(m);
    double *tau = wm->work, *K = wm->work + nv, *b = wm->work + 2 * nv, *Da = wm->work + 3 * nv;
    memset(tau, 0, nv * sizeof(double));
    actuation(wm, K, Da, tau);
    /* the kinematics once: nle, the gravity correction, CRBA and the links' poses read them */
    lucid_model_forward_kinematics(m, wm->data, wm->q);
    lucid_model_nle_posed(m, wm->data, wm->v, b);
    gravity_correction(w, wm, tau);
    for (size_t i = 0; i < nv; ++i)
        tau[i] = dt * (tau[i] - b[i] - damping[i] * wm->v[i] - dt * K[i] * wm->v[i]);
    if (refactor) {
        lucid_model_crba_posed(m, wm->data);
        for (size_t i = 0; i < nv; ++i) Da[i] = dt * (damping[i] + Da[i]) + dt * dt * K[i];
        lucid_model_data_add_mass_diagonal(m, wm->data, Da); /* M~ */
        lucid_model_ltdl(m, wm->data);
    }
    /* E, F at q (also without refactor: the last integration's stabilisation left them at q+) */
    lucid_world_equality_prepare(wm);
    lucid_model_mass_solve(m, wm->data, tau, nv, 1);
    for (size_t i = 0; i < nv; ++i) {
        wm->v_start[i] = wm->v[i];
        wm->v_free[i] = wm->v[i] + tau[i];
    }
    lucid_model_free_turn_rate(m, wm->v, dt, wm->v_free); /* free joints: MuJoCo's velocity */
    lucid_world_equality_free_velocity(wm);
}

/* How a clamp to [lo, hi] (when limited) passes a change of x: 1 inside, 0 outside, 1/2 on a
 * bound (a central difference's value at the kink). */
static double clamp_slope(int limited, double lo, double hi, double x) {
    if (!limited) return 1.0;
    if (x < lo || x > hi) return 0.0;
    return x == lo || x == hi ? 0.5 : 1.0;
}

/* How the force clamp of actuator A passes a change of its raw force at input u. */
static double force_slope(const lucid_world_model *wm, const lucid_model_actuator *A, double u) {
    return clamp_slope(A->force_limited, A->force_lower, A->force_upper,
                       actuator_raw_force(wm, A, u));
}

/* How the force's input of A passes a change of u (0 for a stateful actuator: u moves its
 * activation, not this step's force); uc: the input (the clamped control or the activation). */
static double control_slope(const lucid_world_model *wm, const lucid_model_actuator *A, double u,
                            double *uc) {
    *uc = lucid_model_actuator_input(A, u, wm->act);
    if (A->act >= 0) return 0.0;
    return clamp_slope(A->ctrl_limited, A->ctrl_lower, A->ctrl_upper, u);
}

/* d f / d u of actuator A: its gain through both clamps. */
static double actuator_slope(const lucid_world_model *wm, const lucid_model_actuator *A, double u) {
    double uc, slope = control_slope(wm, A, u, &uc);
    return slope * lucid_model_actuator_gain(A, wm->q, wm->v) * force_slope(wm, A, u);
}

lucid_status lucid_world_model_free_velocity_jacobians(lucid_world *w, int i, const double *acc,
                                                       double *dv_dv, double *dv_du,
                                                       double *drnea_dq) {
    if (i < 0 || i >= w->num_models) return LUCID_ERR_ARGUMENT;
    lucid_world_model *wm = &w->models[i];
    const lucid_model *m = wm->model;
    const lucid_model_actuator *act = lucid_model_actuators(m);
    const double dt = w->opt.dt;
    size_t nv = lucid_model_nv(m);
    double *K = wm->work + nv, *tau = wm->work, *zero = wm->work + 2 * nv, *Da = wm->work + 3 * nv;
    memset(tau, 0, nv * sizeof(double));
    actuation(wm, K, Da, tau); /* K: the implicit stiffness of servos and springs */
    memset(zero, 0, nv * sizeof(double));
    /* X = db/dv + D + dt K - dtau/dv (b = rnea(q, v, 0): its dtau/dv, gravity and armature drop
     * out; the actuators' dtau/dv = (b2 + g2 u) r r^T through the force clamp, r their moment;
     * a tendon's damping b c c^T); drnea/dv does not depend on the acceleration, drnea/dq does */
    lucid_model_rnea_derivatives(m, wm->data, wm->q, wm->v, acc ? acc : zero, drnea_dq, dv_dv);
    const double *damping = lucid_model_damping(m);
    for (size_t k = 0; k < nv; ++k) dv_dv[k + nv * k] += damping[k] + dt * K[k];
    lucid_world_tendon_add_damping(wm, 1.0, dv_dv);
    for (size_t a = 0; a < lucid_model_nu(m); ++a) {
        const lucid_model_actuator *A = &act[a];
        double uc, sf = force_slope(wm, A, wm->u[a]);
        control_slope(wm, A, wm->u[a], &uc);
        double d_len, d_vel;
        lucid_model_actuator_force_partials(A, wm->q, wm->v, uc, &d_len, &d_vel);
        lucid_model_actuator_add_outer(A, wm->q, -sf * d_vel, dv_dv, nv, wm->moment);
    }
    lucid_model_mass_solve(m, wm->data, dv_dv, nv, nv);
    for (size_t c = 0; c < nv * nv; ++c) dv_dv[c] *= -dt;
    for (size_t k = 0; k < nv; ++k) dv_dv[k + nv * k] += 1.0;
    lucid_model_free_turn_rate_jacobian(m, wm->v, dt, dv_dv, nv);
    size_t nu = lucid_model_nu(m), ni = lucid_world_model_inputs(w, i);
    memset(dv_du, 0, nv * ni * sizeof(double));
    for (size_t a = 0; a < nu; ++a)
        lucid_model_actuator_add_moment(&act[a], wm->q, dt * actuator_slope(wm, &act[a], wm->u[a]),
                                        dv_du + nv * a);
    for (size_t a = 0; ni > nu && a < nu; ++a) /* an activation moves f as gain x its change */
        if (act[a].act >= 0)
            lucid_model_actuator_add_moment(&act[a], wm->q,
                                            dt * lucid_model_actuator_gain(&act[a], wm->q, wm->v) *
                                                force_slope(wm, &act[a], wm->u[a]),
                                            dv_du + nv * (nu + (size_t)act[a].act));
    if (ni > 0) lucid_model_mass_solve(m, wm->data, dv_du, nv, ni);
    if (lucid_model_equality_rows(m) > 0) { /* v_free is projected onto E v = 0, so are both */
        lucid_model_forward_kinematics(m, wm->data, wm->q);
        lucid_world_equality_prepare(wm); /* at q (a step's stabilisation left them at q+) */
        lucid_world_equality_project(wm, 0, nv, dv_dv, nv, nv);
        lucid_world_equality_project(wm, 0, nv, dv_du, nv, ni);
    }
    return LUCID_OK;
}

size_t lucid_world_model_inputs(const lucid_world *w, int i) {
    const lucid_model *m = w->models[i].model;
    return lucid_model_nu(m) + (w->d.act_inputs ? lucid_model_na(m) : 0);
}

/* d act_dot / d act and d act_dot / d uc (uc: the control after its range clamp) of stateful A
 * at control u and activation a. A muscle's: (t - a) / tau with t = clamp(uc, 0, 1) and tau
 * growing (activating) or shrinking (relaxing) with clamp(a, 0, 1). */
static void act_dot_partials(const lucid_model_actuator *A, double u, double a, double *da,
                             double *du) {
    if (A->dyn == LUCID_ACTUATOR_DYN_INTEGRATOR) {
        *da = 0.0, *du = 1.0;
        return;
    }
    if (A->dyn == LUCID_ACTUATOR_DYN_FILTER) {
        *da = -1.0 / A->timeconst, *du = 1.0 / A->timeconst;
        return;
    }
    double uc = A->ctrl_limited ? fmin(fmax(u, A->ctrl_lower), A->ctrl_upper) : u;
    double t = fmin(fmax(uc, 0.0), 1.0), level = 0.5 + 1.5 * fmin(fmax(a, 0.0), 1.0);
    double s_a = clamp_slope(1, 0.0, 1.0, a), tau, dtau;
    if (t > a)
        tau = A->muscle_tau[0] * level, dtau = 1.5 * A->muscle_tau[0] * s_a;
    else
        tau = A->muscle_tau[1] / level, dtau = -1.5 * A->muscle_tau[1] * s_a / (level * level);
    *da = -1.0 / tau - (t - a) * dtau / (tau * tau);
    *du = clamp_slope(1, 0.0, 1.0, uc) / tau;
}

void lucid_world_model_activation_slopes(const lucid_world *w, int i, double *d_act, double *d_u) {
    const lucid_world_model *wm = &w->models[i];
    const lucid_model *m = wm->model;
    const lucid_model_actuator *act = lucid_model_actuators(m);
    const double dt = w->opt.dt;
    for (size_t a = 0; a < lucid_model_nu(m); ++a) {
        const lucid_model_actuator *A = &act[a];
        if (A->act < 0) continue;
        double x = wm->act[A->act], u = wm->u[a];
        double next = x + dt * lucid_model_actuator_act_dot(A, u, x); /* before its clamp */
        double s = clamp_slope(A->act_limited, A->act_lower, A->act_upper, next);
        double su = clamp_slope(A->ctrl_limited, A->ctrl_lower, A->ctrl_upper, u), da, du;
        act_dot_partials(A, u, x, &da, &du);
        d_act[A->act] = s * (1.0 + dt * da);
        d_u[A->act] = s * dt * du * su;
    }
}

int lucid_world_model_gravity_is_world(const lucid_world *w, int i) {
    const lucid_world_model *wm = &w->models[i];
    lucid_vec3 g_model = lucid_mat3_mul_vec(&wm->base.R, lucid_model_gravity(wm->model));
    lucid_vec3 dg = lucid_vec3_sub(w->opt.gravity, g_model);
    return dg.x == 0.0 && dg.y == 0.0 && dg.z == 0.0;
}

/* d tau / dq of actuation(): -k on a spring's coordinate, (b1 + g1 u) r r^T (through the
 * force clamp's slope) for an actuator of moment r (a slider-crank's also f dr/dq and its
 * velocity slope times r dLd/dq), -k c c^T for a tendon's spring. */
void lucid_world_model_add_actuation_stiffness(const lucid_world *w, int i, double scale,
                                               double *R) {
    const lucid_world_model *wm = &w->models[i];
    const lucid_model *m = wm->model;
    const lucid_model_actuator *act = lucid_model_actuators(m);
    size_t nv = lucid_model_nv(m);
    for (size_t j = 0; j < lucid_model_njoints(m); ++j) {
        size_t iv = lucid_model_joint_idx_v(m, j);
        if (lucid_model_joint_nq(m, j) == 1)
            R[iv + nv * iv] -= scale * lucid_model_stiffness(m)[iv];
    }
    for (size_t a = 0; a < lucid_model_nu(m); ++a) {
        const lucid_model_actuator *A = &act[a];
        double uc, sf = force_slope(wm, A, wm->u[a]);
        control_slope(wm, A, wm->u[a], &uc);
        double d_len, d_vel;
        lucid_model_actuator_force_partials(A, wm->q, wm->v, uc, &d_len, &d_vel);
        lucid_model_actuator_add_outer(A, wm->q, scale * sf * d_len, R, nv, wm->moment);
        /* a slider-crank's moment turns with q: its force along the change, and Ld's change */
        double f = lucid_model_actuator_force(A, wm->q, wm->v, wm->u[a], wm->act);
        lucid_model_actuator_add_moment_change(A, wm->q, wm->v, scale * f, scale * sf * d_vel, R,
                                               nv, wm->moment);
    }
    lucid_world_tendon_add_stiffness(wm, -scale, R);
}

void lucid_world_models_begin_step(lucid_world *w) {
    for (int i = 0; i < w->num_models; ++i) {
        lucid_world_model *wm = &w->models[i];
        model_free_velocity(w, wm, 1); /* posed the data at q */
        place_links(w, wm);
    }
}

void lucid_world_models_free_velocities(lucid_world *w) {
    for (int i = 0; i < w->num_models; ++i) model_free_velocity(w, &w->models[i], 0);
}

/* act+ = act + dt act_dot(u, act), clamped to the activation range (MuJoCo 2.2.2's
 * mj_advance: the step's force used act). */
static void advance_activations(lucid_world_model *wm, double dt) {
    const lucid_model *m = wm->model;
    if (lucid_model_na(m) == 0) return;
    const lucid_model_actuator *act = lucid_model_actuators(m);
    for (size_t a = 0; a < lucid_model_nu(m); ++a)
        if (act[a].act >= 0)
            wm->act[act[a].act] =
                lucid_model_actuator_act_next(&act[a], wm->u[a], wm->act[act[a].act], dt);
}

void lucid_world_models_integrate(lucid_world *w) {
    const double dt = w->opt.dt;
    for (int i = 0; i < w->num_models; ++i) {
        lucid_world_model *wm = &w->models[i];
        size_t nv = lucid_model_nv(wm->model);
        memcpy(wm->v, wm->v_free, nv * sizeof(double));
        memcpy(wm->q_start, wm->q, lucid_model_nq(wm->model) * sizeof(double));
        wm->stepped = 1;
        lucid_model_integrate(wm->model, wm->q, wm->v, dt, wm->q);
        lucid_model_free_transport(wm->model, dt, wm->v); /* free joints: l in the new frame */
        advance_activations(wm, dt);
        lucid_world_equality_stabilise(wm);
        pose_links(w, wm);
    }
}

double lucid_world_models_actuation_work(const lucid_world *w) {
    double work = 0.0;
    for (int i = 0; i < w->num_models; ++i) {
        const lucid_world_model *wm = &w->models[i];
        const lucid_model *m = wm->model;
        const lucid_model_actuator *act = lucid_model_actuators(m);
        const double *stiffness = lucid_model_stiffness(m), *springref = lucid_model_springref(m);
        for (size_t j = 0; j < lucid_model_njoints(m); ++j) { /* springs: -k (q - springref) */
            size_t iq = lucid_model_joint_idx_q(m, j), iv = lucid_model_joint_idx_v(m, j);
            double k = lucid_model_joint_nq(m, j) == 1 ? stiffness[iv] : 0.0;
            if (k != 0.0) work -= k * (wm->q[iq] - springref[iq]) * wm->v_free[iv];
        }
        for (size_t a = 0; a < lucid_model_nu(m); ++a) {
            const lucid_model_actuator *A = &act[a];
            double f = lucid_model_actuator_force(A, wm->q, wm->v_start, wm->u[a], wm->act);
            work += f * lucid_model_actuator_velocity(A, wm->q, wm->v_free);
        }
        work += lucid_world_tendon_spring_power(wm, wm->v_free);
    }
    return w->opt.dt * work;
}

double lucid_world_models_total_mass(const lucid_world *w) {
    double mass = 0.0;
    for (int i = 0; i < w->num_models; ++i) mass += lucid_model_total_mass(w->models[i].model);
    return mass;
}

int lucid_world_models_finite(const lucid_world *w) {
    for (int i = 0; i < w->num_models; ++i) {
        const lucid_world_model *wm = &w->models[i];
        if (!lucid_all_finite(wm->q, lucid_model_nq(wm->model)) ||
            !lucid_all_finite(wm->v, lucid_model_nv(wm->model)) ||
            !lucid_all_finite(wm->act, lucid_model_na(wm->model)))
            return 0;
    }
    return 1;
}

/* ---- joint limits ------------------------------------------------------------------------ */

/* A limit contact on a 1-dof coordinate when it is within the margin of its bound (or beyond),
 * now or at the end of its free motion (lucid_world_limit_detected):
 * separation = q - lower (or upper - q), normal velocity +v (or -v), no friction; then the
 * model's tendon limits (world_tendon.c). */
lucid_status lucid_world_models_limits(lucid_world *w) {
    for (int i = 0; i < w->num_models; ++i) {
        const lucid_world_model *wm = &w->models[i];
        const lucid_model *m = wm->model;
        const double *lower = lucid_model_lower_limits(m), *upper = lucid_model_upper_limits(m);
        for (size_t j = 0; j < lucid_model_njoints(m); ++j) {
            size_t iq = lucid_model_joint_idx_q(m, j), iv = lucid_model_joint_idx_v(m, j);
            if (lucid_model_joint_nq(m, j) != 1 || !lucid_model_limited(m)[iq]) continue;
            double q = wm->q[iq], v = wm->v_free[iv];
            double gaps[2] = {q - lower[iq], upper[iq] - q};
            double rates[2] = {v, -v};
            for (int side = 0; side < 2; ++side) {
                if (!lucid_world_limit_detected(w, gaps[side], rates[side], 0.0)) continue;
                lucid_world_contact c = lucid_world_model_row(w, i, j, (int)iv, -1);
                c.limit_sign = side == 0 ? 1 : -1;
                c.separation = gaps[side];
                c.friction = 0.0;
                lucid_status s = lucid_world_push_contact(w, &c);
                if (s != LUCID_OK) return s;
            }
        }
        lucid_status s = lucid_world_tendon_limits(w, i);
        if (s != LUCID_OK) return s;
    }
    return LUCID_OK;
}

/* ---- joint dry friction ------------------------------------------------------------------ */

/* A dry-friction row per dof with frictionloss f > 0 (MuJoCo's friction dofs, per dof of ball
 * and free joints too): its t1 row is the dof, |lambda_t1| <= f, no separation. */
lucid_status lucid_world_models_friction_rows(lucid_world *w) {
    for (int i = 0; i < w->num_models; ++i) {
        const lucid_world_model *wm = &w->models[i];
        const lucid_model *m = wm->model;
        const double *frictionloss = lucid_model_frictionloss(m);
        for (size_t k = 0; k < lucid_model_nv(m); ++k) {
            if (!(frictionloss[k] > 0.0)) continue;
            lucid_status s = lucid_world_dry_friction_check(w, i, "dof", k);
            if (s != LUCID_OK) return s;
            size_t joint = (size_t)lucid_model_dof_joint(m)[k];
            lucid_world_contact c = lucid_world_model_row(w, i, joint, (int)k, -1);
            c.frictionloss = frictionloss[k];
            c.friction = 1.0; /* the bound is friction x the prescribed normal force f */
            s = lucid_world_push_contact(w, &c);
            if (s != LUCID_OK) return s;
        }
        lucid_status s = lucid_world_tendon_friction_rows(w, i);
        if (s != LUCID_OK) return s;
    }
    return LUCID_OK;
}

/* ---- contact rows on links ----------------------------------------------------------------- */

int lucid_world_models_tree(const lucid_world *w, int body) {
    const lucid_body *b = &w->bodies[body];
    const lucid_world_model *wm = &w->models[b->model];
    int k = lucid_model_joint_last_dof(wm->model, (size_t)b->node);
    return k >= 0 ? wm->dof_tree[k] : -1;
}

int lucid_world_models_trees(const lucid_world *w) {
    if (w->num_models == 0) return 0;
    const lucid_world_model *last = &w->models[w->num_models - 1];
    return last->first_tree + last->num_trees;
}

/* The width of link body b's tree (0: no dof moves it). */
static size_t tree_width(const lucid_world *w, int body) {
    int t = lucid_world_models_tree(w, body);
    const lucid_world_model *wm = &w->models[w->bodies[body].model];
    return t < 0 ? 0 : wm->tree_dof[t + 1] - wm->tree_dof[t];
}

lucid_status lucid_world_models_reserve_rows(lucid_world *w) {
    size_t total = 0;
    for (int k = 0; k < w->d.num_contacts; ++k) {
        const lucid_world_contact *c = &w->d.contacts[k];
        int bodies[2] = {c->body1, c->body2};
        for (int p = 0; p < 2; ++p) {
            const lucid_body *b = &w->bodies[bodies[p]];
            if (b->model < 0 || b->is_static) continue;
            if (lucid_world_contact_on_dof(c) && p == 0) continue; /* a dof row has one side */
            size_t width = tree_width(w, bodies[p]);
            if (width > (SIZE_MAX / 6 - total)) return LUCID_ERR_NO_MEMORY;
            total += (size_t)lucid_world_contact_dim(c) * width;
        }
    }
    lucid_status s = LUCID_RESERVE(w, d.link_J, total);
    if (s == LUCID_OK) s = LUCID_RESERVE(w, d.link_Y, total);
    w->d.link_rows = 0;
    return s;
}

/* Row `out` (width) of the spin: scale times the link's angular velocity about the world axis
 * n per unit rate of each dof (zero for translations). */
static void spin_row(const lucid_world_model *wm, int node, lucid_vec3 n, double scale, size_t lo,
                     size_t width, double *out) {
    dof_frames F = dof_frames_of(wm);
    memset(out, 0, width * sizeof(double));
    for (int k = lucid_model_joint_last_dof(wm->model, (size_t)node); k >= 0; k = F.parent[k]) {
        if (F.axis[k] < 3) continue; /* a translation turns nothing */
        const lucid_se3 *X = dof_pose(wm, &F, k);
        out[(size_t)k - lo] = scale * lucid_vec3_dot(n, lucid_mat3_col(&X->R, F.axis[k] % 3));
    }
}

/* Fills side's rows J (3 x width over the link's tree, row d at J + d width: sign times the
 * velocity of the contact point on the link along frame column d; a limit: sign times its
 * normal row, +-e_dof or a tendon's +-coef; a friction row: sign times e_dof on t1; a fourth,
 * the spin row, with torsional friction) and Y = M~^-1 J^T (width x 3 or 4, column d at
 * Y + d width): M~ is block diagonal over the trees, so both are zero off the tree's dofs. */
void lucid_world_models_fill_side(lucid_world *w, int body, double sign,
                                  const lucid_world_contact *c, lucid_contact_side *side) {
    const lucid_body *b = &w->bodies[body];
    lucid_world_model *wm = &w->models[b->model];
    int t = lucid_world_models_tree(w, body);
    size_t lo = t < 0 ? 0 : wm->tree_dof[t], width = tree_width(w, body);
    side->model = b->model;
    side->tree = t;
    side->dof = lo, side->width = width;
    side->row = w->d.link_rows;
    double spin = lucid_world_contact_spin(c), roll = lucid_world_contact_roll(c);
    int rows = lucid_world_contact_dim(c);
    side->spin = spin > 0.0;
    side->roll = roll > 0.0;
    w->d.link_rows += (size_t)rows * width;
    double *J = w->d.link_J + side->row, *Y = w->d.link_Y + side->row;
    if (c->limit_sign != 0) { /* a limit's normal row */
        memset(J, 0, 2 * width * sizeof(double));
        lucid_world_limit_row(w, c, sign, lo, width, J + 2 * width);
    } else if (c->frictionloss > 0.0) { /* a dry-friction row's t1: the dof or tendon moment */
        memset(J + width, 0, 2 * width * sizeof(double));
        lucid_world_tendon_row(w, c, sign, lo, width, J);
    } else {
        point_rows(wm, b->node, c->point, &c->frame, sign, lo, width, J);
    }
    if (rows > 3) /* the spin (zero without torsional friction), the rolling rows */
        spin_row(wm, b->node, lucid_mat3_col(&c->frame, 2), sign * spin, lo, width, J + 3 * width);
    for (int k = 0; side->roll && k < 2; ++k)
        spin_row(wm, b->node, lucid_mat3_col(&c->frame, k), sign * roll, lo, width,
                 J + (size_t)(4 + k) * width);
    if (w->d.rows_without_inverse) return;
    memcpy(Y, J, (size_t)rows * width * sizeof(double));
    lucid_model_mass_solve_range(wm->model, wm->data, lo, lo + width, Y, width, (size_t)rows);
    lucid_world_equality_project(wm, lo, width, Y, width, (size_t)rows);
}

void lucid_world_models_link_velocity(const lucid_world *w, int body, lucid_vec3 p, lucid_vec3 *v,
                                      lucid_vec3 *omega) {
    const lucid_body *b = &w->bodies[body];
    const lucid_world_model *wm = &w->models[b->model];
    const lucid_model *m = wm->model;
    *v = lucid_vec3_zero(), *omega = lucid_vec3_zero();
    dof_frames F = dof_frames_of(wm);
    for (int k = lucid_model_joint_last_dof(m, (size_t)b->node); k >= 0; k = F.parent[k]) {
        *v = lucid_vec3_axpy(*v, wm->v_free[k], point_column(wm, &F, k, p));
        if (F.axis[k] < 3) continue; /* a translation turns nothing */
        const lucid_se3 *X = dof_pose(wm, &F, k);
        *omega = lucid_vec3_axpy(*omega, wm->v_free[k], lucid_mat3_col(&X->R, F.axis[k] % 3));
    }
}

/* Contact frame velocity contributed by a link side: J v (v: the model's v_free when `free`,
 * else its velocity at the start of the step). */
lucid_vec3 lucid_world_models_side_velocity(const lucid_world *w, const lucid_contact_side *side,
                                            int free) {
    const lucid_world_model *wm = &w->models[side->model];
    size_t nv = side->width;
    const double *v = (free ? wm->v_free : wm->v_start) + side->dof, *J = w->d.link_J + side->row;
    double out[3] = {0.0, 0.0, 0.0};
    for (int d = 0; d < 3; ++d)
        for (size_t i = 0; i < nv; ++i) out[d] += J[(size_t)d * nv + i] * v[i];
    return lucid_vec3_load(out);
}

/* G block (rows of side a's contact, columns of side b's) += J_a Y_b, both on one tree. The
 * nine sums in one pass over the dofs (six loads for nine products, where nine passes loaded
 * two for one; each sum in the same order, so the same bits). */
void lucid_world_models_add_block(const lucid_world *w, const lucid_contact_side *a,
                                  const lucid_contact_side *b, double *G, int ld, int row, int col,
                                  int mirror) {
    size_t nv = a->width;
    const double *Ja = w->d.link_J + a->row, *Yb = w->d.link_Y + b->row;
    double s[9] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}; /* s[k + 3 l] */
    for (size_t i = 0; i < nv; ++i) {
        double j0 = Ja[i], j1 = Ja[nv + i], j2 = Ja[2 * nv + i];
        double y0 = Yb[i], y1 = Yb[nv + i], y2 = Yb[2 * nv + i];
        s[0] += j0 * y0, s[1] += j1 * y0, s[2] += j2 * y0;
        s[3] += j0 * y1, s[4] += j1 * y1, s[5] += j2 * y1;
        s[6] += j0 * y2, s[7] += j1 * y2, s[8] += j2 * y2;
    }
    for (int l = 0; l < 3; ++l)
        for (int k = 0; k < 3; ++k) G[(row + k) + (size_t)ld * (size_t)(col + l)] += s[k + 3 * l];
    for (int l = 0; mirror && l < 3; ++l)
        for (int k = 0; k < 3; ++k) G[(col + l) + (size_t)ld * (size_t)(row + k)] += s[k + 3 * l];
}

/* J_a row r times Y_b column c over the tree's nv dofs. */
static double row_dot(const lucid_world *w, const lucid_contact_side *a, int r,
                      const lucid_contact_side *b, int c) {
    size_t nv = a->width;
    const double *J = w->d.link_J + a->row + (size_t)r * nv,
                 *Y = w->d.link_Y + b->row + (size_t)c * nv;
    double s = 0.0;
    for (size_t i = 0; i < nv; ++i) s += J[i] * Y[i];
    return s;
}

void lucid_world_models_add_spin_block(const lucid_world *w, const lucid_contact_side *a,
                                       const lucid_contact_side *b, double *G, int ld, int row,
                                       int col) {
    size_t L = (size_t)ld;
    if (a->spin)
        for (int l = 0; l < (b->spin ? 4 : 3); ++l)
            G[(size_t)(row + 3) + L * (size_t)(col + l)] += row_dot(w, a, 3, b, l);
    if (b->spin)
        for (int k = 0; k < 3; ++k)
            G[(size_t)(row + k) + L * (size_t)(col + 3)] += row_dot(w, a, k, b, 3);
}

double lucid_world_models_side_row_velocity(const lucid_world *w, const lucid_contact_side *side,
                                            int r, int free) {
    const lucid_world_model *wm = &w->models[side->model];
    size_t nv = side->width;
    const double *v = (free ? wm->v_free : wm->v_start) + side->dof;
    const double *J = w->d.link_J + side->row + (size_t)r * nv;
    double out = 0.0;
    for (size_t i = 0; i < nv; ++i) out += J[i] * v[i];
    return out;
}

/* Rows of a link side in link_J / link_Y. */
static int side_rows(const lucid_contact_side *s) {
    return s->roll ? 6 : s->spin ? 4 : 3;
}

void lucid_world_models_add_roll_block(const lucid_world *w, const lucid_contact_side *a,
                                       const lucid_contact_side *b, double *G, int ld, int row,
                                       int col) {
    size_t L = (size_t)ld;
    int rb = side_rows(b), ra = side_rows(a) < 4 ? side_rows(a) : 4;
    for (int k = 4; a->roll && k < 6; ++k)
        for (int l = 0; l < rb; ++l)
            G[(size_t)(row + k) + L * (size_t)(col + l)] += row_dot(w, a, k, b, l);
    for (int l = 4; b->roll && l < 6; ++l)
        for (int k = 0; k < ra; ++k)
            G[(size_t)(row + k) + L * (size_t)(col + l)] += row_dot(w, a, k, b, l);
}

void lucid_world_models_apply_row_impulse(lucid_world *w, const lucid_contact_side *side, int r,
                                          double lambda) {
    lucid_world_model *wm = &w->models[side->model];
    size_t nv = side->width;
    const double *Y = w->d.link_Y + side->row + (size_t)r * nv;
    for (size_t i = 0; i < nv; ++i) wm->v_free[side->dof + i] += w->opt.dt * Y[i] * lambda;
}

void lucid_world_models_apply_spin_impulse(lucid_world *w, const lucid_contact_side *side,
                                           double lambda_s) {
    lucid_world_model *wm = &w->models[side->model];
    size_t nv = side->width;
    const double *Y = w->d.link_Y + side->row + 3 * nv;
    for (size_t i = 0; i < nv; ++i) wm->v_free[side->dof + i] += w->opt.dt * Y[i] * lambda_s;
}

/* v_free += dt Y lambda: the contact impulse of one side on its model. */
void lucid_world_models_apply_impulse(lucid_world *w, const lucid_contact_side *side,
                                      const double force[3]) {
    lucid_world_model *wm = &w->models[side->model];
    size_t nv = side->width;
    const double *Y = w->d.link_Y + side->row;
    for (int d = 0; d < 3; ++d)
        for (size_t i = 0; i < nv; ++i)
            wm->v_free[side->dof + i] += w->opt.dt * Y[(size_t)d * nv + i] * force[d];
}

void lucid_world_models_apply_forces(lucid_world *w, int n) {
    for (int i = 0; i < w->num_models; ++i) /* work: sum J^T lambda, then M~^-1 of it */
        memset(w->models[i].work, 0, lucid_model_nv(w->models[i].model) * sizeof(double));
    int touched = 0;
    for (int k = 0; k < n; ++k)
        for (int p = 0; p < 2; ++p) {
            const lucid_contact_side *side = &w->d.sides[2 * k + p];
            if (side->model < 0) continue;
            lucid_world_model *wm = &w->models[side->model];
            size_t nv = side->width;
            const double *J = w->d.link_J + side->row, *f = w->d.contacts[k].force;
            double *work = wm->work + side->dof;
            for (int d = 0; d < 3; ++d)
                for (size_t j = 0; j < nv; ++j) work[j] += J[(size_t)d * nv + j] * f[d];
            if (side->spin) { /* the spin row's force lambda_s = torsion_force / a */
                double ls =
                    w->d.contacts[k].torsion_force / lucid_world_contact_spin(&w->d.contacts[k]);
                for (size_t j = 0; j < nv; ++j) work[j] += J[3 * nv + j] * ls;
            }
            double roll = lucid_world_contact_roll(&w->d.contacts[k]);
            for (int r = 0; side->roll && r < 2; ++r) { /* lambda_r = rolling_force / b */
                double lr = w->d.contacts[k].rolling_force[r] / roll;
                for (size_t j = 0; j < nv; ++j) work[j] += J[(size_t)(4 + r) * nv + j] * lr;
            }
            touched = 1;
        }
    for (int i = 0; touched && i < w->num_models; ++i) {
        lucid_world_model *wm = &w->models[i];
        size_t nv = lucid_model_nv(wm->model);
        lucid_model_mass_solve(wm->model, wm->data, wm->work, nv, 1);
        lucid_world_equality_project(wm, 0, nv, wm->work, nv, 1);
        for (size_t j = 0; j < nv; ++j) wm->v_free[j] += w->opt.dt * wm->work[j];
    }
}

/* Tree t's block of M~ of this step, for the body-space contact problem (world_sparse.c). */
void lucid_world_models_tree_mass(const lucid_world *w, int model, int t, double *M) {
    const lucid_world_model *wm = &w->models[model];
    size_t nv = lucid_model_nv(wm->model), lo = wm->tree_dof[t];
    size_t width = wm->tree_dof[t + 1] - lo;
    const double *from = lucid_model_data_mass_matrix(wm->data) + lo + nv * lo;
    for (size_t j = 0; j < width; ++j) memcpy(M + width * j, from + nv * j, width * sizeof(double));
}

/* v_free += dt u on tree t: a contact impulse through u = M~^-1 J^T lambda (world_sparse.c). */
void lucid_world_models_add_velocity(lucid_world *w, int model, int t, const double *u) {
    lucid_world_model *wm = &w->models[model];
    size_t lo = wm->tree_dof[t], width = wm->tree_dof[t + 1] - lo;
    for (size_t i = 0; i < width; ++i) wm->v_free[lo + i] += w->opt.dt * u[i];
}

/* ---- state, energy ---------------------------------------------------------------------- */

size_t lucid_world_models_nq(const lucid_world *w) {
    size_t n = 0;
    for (int i = 0; i < w->num_models; ++i) n += lucid_model_nq(w->models[i].model);
    return n;
}

size_t lucid_world_models_nv(const lucid_world *w) {
    size_t n = 0;
    for (int i = 0; i < w->num_models; ++i) n += lucid_model_nv(w->models[i].model);
    return n;
}

void lucid_world_models_get_state(const lucid_world *w, double *q, double *v) {
    for (int i = 0; i < w->num_models; ++i) {
        const lucid_world_model *wm = &w->models[i];
        size_t nq = lucid_model_nq(wm->model), nv = lucid_model_nv(wm->model);
        memcpy(q, wm->q, nq * sizeof(double));
        memcpy(v, wm->v, nv * sizeof(double));
        q += nq, v += nv;
    }
}

lucid_status lucid_world_models_check_state(const lucid_world *w, const double *q, const double *v,
                                            const char **why) {
    for (int i = 0; i < w->num_models; ++i) {
        const lucid_world_model *wm = &w->models[i];
        size_t nq = lucid_model_nq(wm->model), nv = lucid_model_nv(wm->model);
        if (!lucid_all_finite(q, nq) || !lucid_all_finite(v, nv))
            return bad(why, "state must be finite", LUCID_ERR_NONFINITE);
        if (lucid_model_check_configuration(wm->model, q, NULL) != LUCID_OK)
            return bad(why, "a model's quaternion in the state is zero", LUCID_ERR_ARGUMENT);
        q += nq, v += nv;
    }
    return LUCID_OK;
}

void lucid_world_models_set_state(lucid_world *w, const double *q, const double *v) {
    for (int i = 0; i < w->num_models; ++i) {
        lucid_world_model *wm = &w->models[i];
        size_t nq = lucid_model_nq(wm->model), nv = lucid_model_nv(wm->model);
        memcpy(wm->q, q, nq * sizeof(double));
        lucid_model_normalize(wm->model, wm->q);
        memcpy(wm->v, v, nv * sizeof(double));
        pose_links(w, wm);
        wm->stepped = 0;
        q += nq, v += nv;
    }
}

size_t lucid_world_models_na(const lucid_world *w) {
    size_t n = 0;
    for (int i = 0; i < w->num_models; ++i) n += lucid_model_na(w->models[i].model);
    return n;
}

void lucid_world_models_get_act(const lucid_world *w, double *act) {
    for (int i = 0; i < w->num_models; ++i) {
        size_t na = lucid_model_na(w->models[i].model);
        memcpy(act, w->models[i].act, na * sizeof(double));
        act += na;
    }
}

void lucid_world_models_set_act(lucid_world *w, const double *act) {
    for (int i = 0; i < w->num_models; ++i) {
        size_t na = lucid_model_na(w->models[i].model);
        memcpy(w->models[i].act, act, na * sizeof(double));
        act += na;
    }
}

/* (q, v) (+) (dq, dv) for every model: q (+) dq on its joint manifolds, v + dv. */
void lucid_world_models_integrate_state(const lucid_world *w, const double *q, const double *v,
                                        const double *dq, const double *dv, double *q_out,
                                        double *v_out) {
    for (int i = 0; i < w->num_models; ++i) {
        const lucid_model *m = w->models[i].model;
        size_t nq = lucid_model_nq(m), nv = lucid_model_nv(m);
        lucid_model_integrate(m, q, dq, 1.0, q_out);
        for (size_t k = 0; k < nv; ++k) v_out[k] = v[k] + dv[k];
        q += nq, q_out += nq, v += nv, v_out += nv, dq += nv, dv += nv;
    }
}

/* (dq, dv) = (q1 (-) q0, v1 - v0) for every model. */
void lucid_world_models_difference_state(const lucid_world *w, const double *q0, const double *v0,
                                         const double *q1, const double *v1, double *dq,
                                         double *dv) {
    for (int i = 0; i < w->num_models; ++i) {
        const lucid_model *m = w->models[i].model;
        size_t nq = lucid_model_nq(m), nv = lucid_model_nv(m);
        lucid_model_difference(m, q0, q1, dq);
        for (size_t k = 0; k < nv; ++k) dv[k] = v1[k] - v0[k];
        q0 += nq, q1 += nq, v0 += nv, v1 += nv, dq += nv, dv += nv;
    }
}

void lucid_world_models_energy(const lucid_world *w, int posed, double *kinetic,
                               double *potential) {
    for (int i = 0; i < w->num_models; ++i) {
        const lucid_world_model *wm = &w->models[i];
        const lucid_model *m = wm->model;
        double k, p;
        if (posed)
            lucid_model_energy_posed(m, wm->data, wm->v, &k, &p);
        else
            lucid_model_energy(m, wm->data, wm->q, wm->v, &k, &p); /* poses data at q */
        *kinetic += k;
        /* the world's gravity on the moving bodies' centres of mass */
        for (size_t j = 0; j < lucid_model_njoints(m); ++j) {
            lucid_vec3 com;
            double mass = joint_com(wm, j, &com);
            if (mass > 0.0) *potential -= mass * lucid_vec3_dot(w->opt.gravity, com);
        }
    }
}
