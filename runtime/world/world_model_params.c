/* The physical parameters of a world's models that system identification and the step
 * derivatives change: a link's mass, a joint's damping, dry friction (frictionloss) and
 * armature, and a tendon's dry friction, damping and stiffness. The world changes its own variant
 * of the model (runtime/model/model_variant.h); the model the caller holds, and other worlds
 * holding it, keep theirs. */
#include "runtime/model/model_variant.h"
#include "runtime/world/world_internal.h"

static lucid_status fail(const char **why, const char *reason) {
    if (why) *why = reason;
    return LUCID_ERR_ARGUMENT;
}

/* The first dof of joint j (every dof of a joint has its damping). */
static size_t joint_dof(const lucid_model *m, size_t j) {
    const int *owner = lucid_model_dof_joint(m);
    size_t k = 0;
    while (k + 1 < lucid_model_nv(m) && owner[k] != (int)j) ++k;
    return k;
}

static const char *check(const lucid_world *w, int model, lucid_model_param_kind kind,
                         size_t index) {
    const lucid_model *m = lucid_world_model_of(w, model);
    if (!m) return "unknown model";
    if (kind == LUCID_MODEL_PARAM_LINK_MASS)
        return index < lucid_model_nbodies(m) ? NULL : "unknown link";
    if (kind == LUCID_MODEL_PARAM_JOINT_DAMPING || kind == LUCID_MODEL_PARAM_JOINT_FRICTIONLOSS ||
        kind == LUCID_MODEL_PARAM_JOINT_ARMATURE)
        return index < lucid_model_njoints(m) ? NULL : "unknown joint";
    if (kind == LUCID_MODEL_PARAM_TENDON_FRICTIONLOSS || kind == LUCID_MODEL_PARAM_TENDON_DAMPING ||
        kind == LUCID_MODEL_PARAM_TENDON_STIFFNESS)
        return index < lucid_model_ntendons(m) ? NULL : "unknown tendon";
    return "unknown model parameter kind";
}

/* Whether tendon t's dofs lie in one tree of the world's model: its friction row is built over
 * one (find_trees joined them when the tendon was added with a limit or frictionloss > 0). */
static int tendon_in_one_tree(const lucid_world_model *wm, size_t t) {
    const lucid_model_tendon *T = &lucid_model_tendons(wm->model)[t];
    for (size_t i = 1; i < T->n; ++i)
        if (wm->dof_tree[T->dof[i]] != wm->dof_tree[T->dof[0]]) return 0;
    return 1;
}

/* A tendon's frictionloss on the world's variant of the model. */
static lucid_status set_tendon_frictionloss(lucid_world *w, int model, size_t t, double f,
                                            lucid_model *v, const char **why) {
    if (f > 0.0 && !tendon_in_one_tree(&w->models[model], t))
        return fail(why, "the tendon's joints are in different trees of this world (it was added "
                         "with neither a limit nor frictionloss): give it frictionloss > 0 in the "
                         "model before adding it");
    return lucid_model_variant_set_tendon_frictionloss(v, t, f, why);
}

lucid_status lucid_world_model_param(const lucid_world *w, int model, lucid_model_param_kind kind,
                                     size_t index, double *value, const char **why) {
    const char *bad = w && value ? check(w, model, kind, index) : "argument missing";
    if (bad) return fail(why, bad);
    const lucid_model *m = lucid_world_model_of(w, model);
    if (kind == LUCID_MODEL_PARAM_TENDON_FRICTIONLOSS || kind == LUCID_MODEL_PARAM_TENDON_DAMPING ||
        kind == LUCID_MODEL_PARAM_TENDON_STIFFNESS) {
        const lucid_model_tendon *T = &lucid_model_tendons(m)[index];
        *value = kind == LUCID_MODEL_PARAM_TENDON_DAMPING     ? T->damping
                 : kind == LUCID_MODEL_PARAM_TENDON_STIFFNESS ? T->stiffness
                                                              : T->frictionloss;
        return LUCID_OK;
    }
    size_t k = kind == LUCID_MODEL_PARAM_LINK_MASS ? 0 : joint_dof(m, index);
    *value = kind == LUCID_MODEL_PARAM_LINK_MASS        ? lucid_model_body_mass(m, index)
             : kind == LUCID_MODEL_PARAM_JOINT_DAMPING  ? lucid_model_damping(m)[k]
             : kind == LUCID_MODEL_PARAM_JOINT_ARMATURE ? lucid_model_armature(m)[k]
                                                        : lucid_model_frictionloss(m)[k];
    return LUCID_OK;
}

lucid_status lucid_world_set_model_param(lucid_world *w, int model, lucid_model_param_kind kind,
                                         size_t index, double value, const char **why) {
    const char *bad = w ? check(w, model, kind, index) : "argument missing";
    if (bad) return fail(why, bad);
    lucid_model *v = lucid_model_variant(lucid_world_model_of(w, model));
    if (!v) return LUCID_ERR_NO_MEMORY;
    lucid_status s = kind == LUCID_MODEL_PARAM_LINK_MASS
                         ? lucid_model_variant_set_body_mass(v, index, value, why)
                     : kind == LUCID_MODEL_PARAM_JOINT_DAMPING
                         ? lucid_model_variant_set_joint_damping(v, index, value, why)
                     : kind == LUCID_MODEL_PARAM_JOINT_ARMATURE
                         ? lucid_model_variant_set_joint_armature(v, index, value, why)
                     : kind == LUCID_MODEL_PARAM_TENDON_FRICTIONLOSS
                         ? set_tendon_frictionloss(w, model, index, value, v, why)
                     : kind == LUCID_MODEL_PARAM_TENDON_DAMPING
                         ? lucid_model_variant_set_tendon_damping(v, index, value, why)
                     : kind == LUCID_MODEL_PARAM_TENDON_STIFFNESS
                         ? lucid_model_variant_set_tendon_stiffness(v, index, value, why)
                         : lucid_model_variant_set_joint_frictionloss(v, index, value, why);
    if (s == LUCID_OK) lucid_world_replace_model(w, model, v);
    lucid_model_destroy(v); /* the world holds its own reference */
    return s;
}
