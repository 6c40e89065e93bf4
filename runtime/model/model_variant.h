/* A model variant: a model that shares another's structure (tree, names, geoms, meshes,
 * limits, actuators, the tendons' paths) and owns its inertial, damping, frictionloss and
 * armature parameters and its tendon records, so that one world can change a link's mass, a
 * joint's damping, dry friction or armature or a tendon's dry friction (system identification,
 * step derivatives) without touching the model other worlds and the caller hold. */
#ifndef LUCID_MODEL_VARIANT_H
#define LUCID_MODEL_VARIANT_H

#include "runtime/model/model.h"

/* A new variant of m (one reference: lucid_model_destroy), its parameters m's; it holds a
 * reference to the model m was made from. NULL when out of memory. */
lucid_model *lucid_model_variant(const lucid_model *m);

/* Body b's mass, its inertia scaled with it (the same shape at another density). Only a
 * variant may be changed, and only a body that carries its joint's whole inertia (bodies that
 * share a joint with other massive bodies are merged and have no inertia of their own).
 * LUCID_ERR_ARGUMENT (*why says why) otherwise, or for a mass not > 0 and finite. */
lucid_status lucid_model_variant_set_body_mass(lucid_model *v, size_t b, double mass,
                                               const char **why);
/* The damping of every dof of joint j (>= 0 and finite); LUCID_ERR_ARGUMENT otherwise. */
lucid_status lucid_model_variant_set_joint_damping(lucid_model *v, size_t j, double damping,
                                                   const char **why);
/* The dry friction (frictionloss) of every dof of joint j (>= 0 and finite); as above. */
lucid_status lucid_model_variant_set_joint_frictionloss(lucid_model *v, size_t j, double f,
                                                        const char **why);
/* The armature of every dof of joint j (>= 0 and finite; > 0 for a joint that moves no mass,
 * whose mass matrix row it alone keeps regular); as above. */
lucid_status lucid_model_variant_set_joint_armature(lucid_model *v, size_t j, double armature,
                                                    const char **why);
/* The dry friction (frictionloss) of tendon t (>= 0 and finite); as above. */
lucid_status lucid_model_variant_set_tendon_frictionloss(lucid_model *v, size_t t, double f,
                                                         const char **why);
/* The damping (N s/m or N m s/rad) and the stiffness of tendon t's passive force (>= 0 and
 * finite); as above. */
lucid_status lucid_model_variant_set_tendon_damping(lucid_model *v, size_t t, double damping,
                                                    const char **why);
lucid_status lucid_model_variant_set_tendon_stiffness(lucid_model *v, size_t t, double stiffness,
                                                      const char **why);

#endif
