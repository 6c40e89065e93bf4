/* Shared body of the model-file fuzz harnesses: parse the bytes as a model file and check
 * what comes back. Any failure aborts (libFuzzer records the input). */
#ifndef LUCID_FUZZ_MODEL_SPEC_H
#define LUCID_FUZZ_MODEL_SPEC_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "runtime/model/model_load.h"
#include "runtime/shapes/heightfield.h"

typedef lucid_status (*fuzz_model_parser)(const char *, const void *, size_t,
                                          const lucid_model_load_options *, lucid_model_spec **,
                                          char *, size_t);

static inline int fuzz_finite_se3(const lucid_se3 *T) {
    return lucid_mat3_isfinite(&T->R) && lucid_vec3_isfinite(T->t);
}

/* Warnings are checked (non-empty, "warning:" in them) and dropped, not printed. */
static inline void fuzz_warning(void *ctx, const char *message) {
    (void)ctx;
    FUZZ_REQUIRE(message != NULL && message[0] != '\0' && strstr(message, "warning: ") != NULL);
}

/* On success: parents before children, indices in range, finite placements, masses and
 * inertias, mimic names set only with a multiplier, equalities naming existing bodies or
 * joints with finite numbers, actuators on 1-dof joints, tendons or slider-cranks (two frames,
 * a rod > 0) with finite gains and ordered ranges, fixed tendons over 1-dof joints with finite
 * coefficients, spatial tendons through existing sites and sphere or cylinder geoms with
 * positive divisors, keyframes of MuJoCo's sizes with finite values, sensors of a known kind
 * with an object and noise and cutoff >= 0. On failure: no spec and a non-empty, terminated
 * message.
 * Meshes are skipped (the bytes cannot name a readable mesh reliably; the skip path is what is
 * exercised), lengths scaled by 1. */
static inline void fuzz_model(fuzz_model_parser parse, const char *name, const uint8_t *data,
                              size_t size) {
    lucid_model_load_options o = lucid_model_load_options_default();
    o.skip_meshes = 1;
    o.warn = fuzz_warning;
    lucid_model_spec *s = (lucid_model_spec *)1;
    char err[512];
    memset(err, 'x', sizeof err);
    lucid_status st = parse(name, data, size, &o, &s, err, sizeof err);
    if (st != LUCID_OK) {
        FUZZ_REQUIRE(s == NULL);
        fuzz_check_message(err, sizeof err, "");
        return;
    }
    FUZZ_REQUIRE(s != NULL);
    for (size_t b = 0; b < s->nbodies; b++) {
        const lucid_body_spec *B = &s->bodies[b];
        FUZZ_REQUIRE(B->parent == LUCID_MODEL_WORLD || (B->parent >= 0 && (size_t)B->parent < b));
        FUZZ_REQUIRE(fuzz_finite_se3(&B->placement));
        FUZZ_REQUIRE(isfinite(B->mass) && B->mass >= 0.0);
        FUZZ_REQUIRE(lucid_vec3_isfinite(B->com) && lucid_mat3_isfinite(&B->inertia));
    }
    for (size_t j = 0; j < s->njoints; j++) {
        const lucid_joint_spec *J = &s->joints[j];
        FUZZ_REQUIRE(s->joint_body[j] >= 0 && (size_t)s->joint_body[j] < s->nbodies);
        FUZZ_REQUIRE(lucid_vec3_isfinite(J->axis) && lucid_vec3_isfinite(J->anchor));
        FUZZ_REQUIRE(!J->limited || J->lower < J->upper);
        FUZZ_REQUIRE(J->damping >= 0.0 && J->armature >= 0.0 && J->stiffness >= 0.0);
        FUZZ_REQUIRE(J->frictionloss >= 0.0 && isfinite(J->frictionloss));
    }
    for (size_t g = 0; g < s->ngeoms; g++) {
        const lucid_geom_spec *G = &s->geoms[g];
        FUZZ_REQUIRE(G->body == LUCID_MODEL_WORLD ||
                     (G->body >= 0 && (size_t)G->body < s->nbodies));
        FUZZ_REQUIRE(fuzz_finite_se3(&G->pose));
        FUZZ_REQUIRE((G->shape.kind == LUCID_SHAPE_CONVEX) == (s->geom_mesh[g] != NULL));
        FUZZ_REQUIRE(G->friction >= 0.0 && isfinite(G->friction));
        if (G->shape.kind == LUCID_SHAPE_HEIGHTFIELD) { /* one of the spec's, on the world */
            int known = 0;
            for (size_t k = 0; k < s->nhfields; k++) known |= G->shape.u.hfield == s->hfields[k];
            FUZZ_REQUIRE(known && G->body == LUCID_MODEL_WORLD);
        }
    }
    for (size_t k = 0; k < s->nhfields; k++) { /* heights in [0, size[2]], sizes > 0 */
        const lucid_heightfield *h = s->hfields[k];
        FUZZ_REQUIRE(h->nrow >= 2 && h->ncol >= 2);
        for (int i = 0; i < 4; i++) FUZZ_REQUIRE(h->size[i] > 0.0 && isfinite(h->size[i]));
        for (size_t i = 0; i < (size_t)h->nrow * (size_t)h->ncol; i++)
            FUZZ_REQUIRE(h->height[i] >= 0.0 && h->height[i] <= h->size[2]);
    }
    for (size_t a = 0; a < s->nactuators; a++) {
        const lucid_actuator_spec *A = &s->actuators[a];
        if (A->crank >= 0 || A->slider >= 0) { /* a slider-crank: both sites, a rod > 0 */
            FUZZ_REQUIRE(A->crank >= 0 && (size_t)A->crank < s->nframes);
            FUZZ_REQUIRE(A->slider >= 0 && (size_t)A->slider < s->nframes);
            FUZZ_REQUIRE(A->cranklength > 0.0 && isfinite(A->cranklength));
        } else if (A->tendon >= 0) {
            FUZZ_REQUIRE((size_t)A->tendon < s->ntendons);
        } else {
            FUZZ_REQUIRE(A->joint >= 0 && (size_t)A->joint < s->njoints);
            lucid_joint_kind k = s->joints[A->joint].kind;
            FUZZ_REQUIRE(k == LUCID_JOINT_REVOLUTE || k == LUCID_JOINT_PRISMATIC);
        }
        FUZZ_REQUIRE(isfinite(A->gear) && isfinite(A->kp) && isfinite(A->kv));
        for (int i = 0; i < 3; i++) FUZZ_REQUIRE(isfinite(A->gain[i]) && isfinite(A->bias[i]));
        FUZZ_REQUIRE(!A->ctrl_limited || A->ctrl_lower < A->ctrl_upper);
        FUZZ_REQUIRE(!A->force_limited || A->force_lower < A->force_upper);
        FUZZ_REQUIRE(A->kind != LUCID_ACTUATOR_DAMPER ||
                     (A->kv >= 0.0 && A->ctrl_limited && A->ctrl_lower >= 0.0));
    }
    for (size_t t = 0; t < s->ntendons; t++) { /* fixed tendons over 1-dof joints, or paths */
        const lucid_tendon_spec *T = &s->tendons[t];
        FUZZ_REQUIRE((T->n > 0) != (T->npath > 0));
        for (size_t i = 0; i < T->npath; i++) { /* sites, sphere or cylinder geoms, pulleys */
            const lucid_tendon_path_spec *e = &T->path[i];
            if (e->kind == LUCID_TENDON_PATH_PULLEY) {
                FUZZ_REQUIRE(e->divisor > 0.0 && isfinite(e->divisor));
            } else if (e->kind == LUCID_TENDON_PATH_SITE) {
                FUZZ_REQUIRE(e->index >= 0 && (size_t)e->index < s->nframes);
            } else {
                FUZZ_REQUIRE(e->kind == LUCID_TENDON_PATH_GEOM);
                FUZZ_REQUIRE(e->index >= 0 && (size_t)e->index < s->ngeoms);
                lucid_shape_kind g = s->geoms[e->index].shape.kind;
                FUZZ_REQUIRE(g == LUCID_SHAPE_SPHERE || g == LUCID_SHAPE_CYLINDER);
                FUZZ_REQUIRE(e->side >= -1 && e->side < (int)s->nframes);
            }
        }
        for (size_t i = 0; i < T->n; i++) {
            FUZZ_REQUIRE(T->joints[i] >= 0 && (size_t)T->joints[i] < s->njoints);
            lucid_joint_kind k = s->joints[T->joints[i]].kind;
            FUZZ_REQUIRE(k == LUCID_JOINT_REVOLUTE || k == LUCID_JOINT_PRISMATIC);
            FUZZ_REQUIRE(isfinite(T->coef[i]));
        }
        FUZZ_REQUIRE(!T->limited || T->lower < T->upper);
        FUZZ_REQUIRE(T->stiffness >= 0.0 && T->damping >= 0.0 && T->frictionloss >= 0.0 &&
                     T->margin >= 0.0);
        FUZZ_REQUIRE(isnan(T->springlength) || T->springlength >= 0.0);
    }
    size_t mj_nq = 0, mj_nv = 0; /* MuJoCo's qpos and qvel sizes, the keyframes' */
    for (size_t j = 0; j < s->njoints; j++) {
        lucid_joint_kind k = s->joints[j].kind;
        mj_nq += k == LUCID_JOINT_FREE ? 7 : k == LUCID_JOINT_SPHERICAL ? 4 : 1;
        mj_nv += k == LUCID_JOINT_FREE ? 6 : k == LUCID_JOINT_SPHERICAL ? 3 : 1;
    }
    for (size_t k = 0; k < s->nkeyframes; k++) {
        const lucid_keyframe_spec *K = &s->keyframes[k];
        FUZZ_REQUIRE(K->nqpos == 0 || K->nqpos == mj_nq);
        FUZZ_REQUIRE(K->nqvel == 0 || K->nqvel == mj_nv);
        FUZZ_REQUIRE(K->nctrl == 0 || K->nctrl == s->nactuators);
        for (size_t i = 0; i < K->nqpos; i++) FUZZ_REQUIRE(isfinite(K->qpos[i]));
        for (size_t i = 0; i < K->nqvel; i++) FUZZ_REQUIRE(isfinite(K->qvel[i]));
        for (size_t i = 0; i < K->nctrl; i++) FUZZ_REQUIRE(isfinite(K->ctrl[i]));
    }
    for (size_t e = 0; e < s->nequalities; e++) { /* names resolved, numbers finite */
        const lucid_equality_spec *E = &s->equalities[e];
        if (E->kind == LUCID_EQUALITY_JOINT) {
            FUZZ_REQUIRE(E->joint1 >= 0 && (size_t)E->joint1 < s->njoints);
            FUZZ_REQUIRE(E->joint2 >= -1 && E->joint2 < (int)s->njoints);
            for (int i = 0; i < 5; i++) FUZZ_REQUIRE(isfinite(E->polycoef[i]));
        } else if (E->kind == LUCID_EQUALITY_TENDON) {
            FUZZ_REQUIRE(E->tendon1 >= 0 && (size_t)E->tendon1 < s->ntendons);
            FUZZ_REQUIRE(E->tendon2 >= -1 && E->tendon2 < (int)s->ntendons);
            for (int i = 0; i < 5; i++) FUZZ_REQUIRE(isfinite(E->polycoef[i]));
        } else {
            FUZZ_REQUIRE(E->body1 >= LUCID_MODEL_WORLD && E->body1 < (int)s->nbodies);
            FUZZ_REQUIRE(E->body2 >= LUCID_MODEL_WORLD && E->body2 < (int)s->nbodies);
            FUZZ_REQUIRE(lucid_vec3_isfinite(E->anchor) && fuzz_finite_se3(&E->relpose));
            FUZZ_REQUIRE(E->torquescale >= 0.0 && isfinite(E->torquescale));
        }
    }
    for (size_t e = 0; e < s->nexcludes; e++)
        for (int i = 0; i < 2; i++)
            FUZZ_REQUIRE(s->excludes[e][i] >= LUCID_MODEL_WORLD &&
                         s->excludes[e][i] < (int)s->nbodies);
    for (size_t k = 0; k < s->nsensors; k++) { /* a known kind with an object (resolved later) */
        const lucid_sensor_spec *S = &s->sensors[k];
        FUZZ_REQUIRE((int)S->kind >= 0 && S->kind < LUCID_SENSOR_KIND_COUNT);
        FUZZ_REQUIRE(S->object != NULL);
        FUZZ_REQUIRE(S->objtype == 0 || S->objtype == 1);
        FUZZ_REQUIRE(S->noise >= 0.0 && isfinite(S->noise) && S->cutoff >= 0.0 &&
                     isfinite(S->cutoff));
    }
    lucid_model_spec_destroy(s);
}

#endif
