/* Model variants (model_variant.h): a shallow copy of the model whose nodes (inertias), bodies
 * (masses), damping, frictionloss, armature and tendon records are its own (a tendon's joints,
 * coefficients and path stay the base's); every other array stays the base model's. */
#include "runtime/model/model_variant.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/model/model_internal.h"

static lucid_status fail(const char **why, const char *reason) {
    if (why) *why = reason;
    return LUCID_ERR_ARGUMENT;
}

static void *copy_of(const void *src, size_t n, size_t size) {
    void *dst = malloc(n ? n * size : 1);
    if (dst && n) memcpy(dst, src, n * size);
    return dst;
}

lucid_model *lucid_model_variant(const lucid_model *m) {
    if (!m) return NULL;
    lucid_model *v = malloc(sizeof *v);
    if (!v) return NULL;
    memcpy(v, m, sizeof *v);
    atomic_init(&v->refs, 1);
    v->nodes = copy_of(m->nodes, m->nnodes, sizeof *m->nodes);
    v->bodies = copy_of(m->bodies, m->nbodies, sizeof *m->bodies);
    v->damping = copy_of(m->damping, m->nv, sizeof *m->damping);
    v->frictionloss = copy_of(m->frictionloss, m->nv, sizeof *m->frictionloss);
    v->armature = copy_of(m->armature, m->nv, sizeof *m->armature);
    v->tendons = copy_of(m->tendons, m->ntendons, sizeof *m->tendons);
    if (!v->nodes || !v->bodies || !v->damping || !v->frictionloss || !v->armature || !v->tendons) {
        free(v->nodes), free(v->bodies), free(v->damping), free(v->frictionloss);
        free(v->armature), free(v->tendons), free(v);
        return NULL;
    }
    v->base = lucid_model_retain(m->base ? m->base : m); /* names and the rest live there */
    return v;
}

/* I' = s I, h' = s h, mass' = s mass for the node carrying body b. */
lucid_status lucid_model_variant_set_body_mass(lucid_model *v, size_t b, double mass,
                                               const char **why) {
    if (!v || !v->base) return fail(why, "only a model variant can be changed");
    if (b >= v->nbodies) return fail(why, "unknown body");
    if (!(mass > 0.0) || !isfinite(mass)) return fail(why, "a link's mass must be > 0 and finite");
    lucid_model_body *body = &v->bodies[b];
    lucid_inertia *I = &v->nodes[body->node].inertia;
    if (!(body->mass > 0.0) || fabs(I->mass - body->mass) > 1e-12 * I->mass)
        return fail(why, "the link does not carry its joint's whole inertia (massless, or merged "
                         "with other massive links)");
    double s = mass / body->mass;
    I->mass = mass, I->h = lucid_vec3_scale(I->h, s), I->I = lucid_mat3_scale(&I->I, s);
    v->total_mass += mass - body->mass;
    body->mass = mass;
    return LUCID_OK;
}

lucid_status lucid_model_variant_set_joint_damping(lucid_model *v, size_t j, double damping,
                                                   const char **why) {
    if (!v || !v->base) return fail(why, "only a model variant can be changed");
    if (j >= v->nnodes) return fail(why, "unknown joint");
    if (!(damping >= 0.0) || !isfinite(damping))
        return fail(why, "a joint's damping must be >= 0 and finite");
    const lucid_model_node *nd = &v->nodes[j];
    for (size_t k = 0; k < nd->nv; ++k) v->damping[nd->idx_v + k] = damping;
    return LUCID_OK;
}

lucid_status lucid_model_variant_set_joint_frictionloss(lucid_model *v, size_t j, double f,
                                                        const char **why) {
    if (!v || !v->base) return fail(why, "only a model variant can be changed");
    if (j >= v->nnodes) return fail(why, "unknown joint");
    if (!(f >= 0.0) || !isfinite(f))
        return fail(why, "a joint's frictionloss must be >= 0 and finite");
    const lucid_model_node *nd = &v->nodes[j];
    for (size_t k = 0; k < nd->nv; ++k) v->frictionloss[nd->idx_v + k] = f;
    return LUCID_OK;
}

/* Whether node j's subtree carries inertia (else only its armature keeps M regular). */
static int subtree_has_inertia(const lucid_model *m, size_t j) {
    for (size_t i = j; i < m->nnodes; ++i) {
        size_t a = i; /* is j an ancestor of i (nodes are in topological order)? */
        while (a != j && m->nodes[a].parent >= 0 && (size_t)m->nodes[a].parent >= j)
            a = (size_t)m->nodes[a].parent;
        const lucid_inertia *in = &m->nodes[i].inertia;
        if (a == j && in->mass + lucid_mat3_trace(&in->I) > 0.0) return 1;
    }
    return 0;
}

lucid_status lucid_model_variant_set_joint_armature(lucid_model *v, size_t j, double armature,
                                                    const char **why) {
    if (!v || !v->base) return fail(why, "only a model variant can be changed");
    if (j >= v->nnodes) return fail(why, "unknown joint");
    if (!(armature >= 0.0) || !isfinite(armature))
        return fail(why, "a joint's armature must be >= 0 and finite");
    if (armature == 0.0 && !subtree_has_inertia(v, j))
        return fail(why, "the joint moves no mass: its armature must stay > 0");
    const lucid_model_node *nd = &v->nodes[j];
    for (size_t k = 0; k < nd->nv; ++k) v->armature[nd->idx_v + k] = armature;
    return LUCID_OK;
}

lucid_status lucid_model_variant_set_tendon_frictionloss(lucid_model *v, size_t t, double f,
                                                         const char **why) {
    if (!v || !v->base) return fail(why, "only a model variant can be changed");
    if (t >= v->ntendons) return fail(why, "unknown tendon");
    if (!(f >= 0.0) || !isfinite(f))
        return fail(why, "a tendon's frictionloss must be >= 0 and finite");
    v->tendons[t].frictionloss = f;
    return LUCID_OK;
}

lucid_status lucid_model_variant_set_tendon_damping(lucid_model *v, size_t t, double damping,
                                                    const char **why) {
    if (!v || !v->base) return fail(why, "only a model variant can be changed");
    if (t >= v->ntendons) return fail(why, "unknown tendon");
    if (!(damping >= 0.0) || !isfinite(damping))
        return fail(why, "a tendon's damping must be >= 0 and finite");
    v->tendons[t].damping = damping;
    return LUCID_OK;
}

lucid_status lucid_model_variant_set_tendon_stiffness(lucid_model *v, size_t t, double stiffness,
                                                      const char **why) {
    if (!v || !v->base) return fail(why, "only a model variant can be changed");
    if (t >= v->ntendons) return fail(why, "unknown tendon");
    if (!(stiffness >= 0.0) || !isfinite(stiffness))
        return fail(why, "a tendon's stiffness must be >= 0 and finite");
    v->tendons[t].stiffness = stiffness;
    return LUCID_OK;
}
