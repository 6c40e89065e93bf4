/* Rigid-body dynamics of a compiled model (Featherstone, "Rigid Body Dynamics Algorithms",
 * 2008; Pinocchio's local-frame formulation): forward kinematics, frame placements and
 * Jacobians, RNEA, CRBA, ABA, nonlinear effects, energies, centre of mass, and the LTDL
 * factorisation of the mass matrix with its solves. Spatial vectors are linear first; q and v
 * follow configuration.h. None of these functions allocates: every buffer is in the
 * lucid_model_data made for the model. Inputs are trusted (finite, right sizes: check them
 * with lucid_model_check_configuration first); quaternions are normalised where read.
 *
 * Equations of motion: M(q) a + b(q, v) = tau, with M including the joints' armature on its
 * diagonal and b = nle = Coriolis + centrifugal + gravity. Damping, springs and actuators are
 * not part of these algorithms (the world applies them); gravity is the model's. */
#ifndef LUCID_MODEL_DYNAMICS_H
#define LUCID_MODEL_DYNAMICS_H

#include "runtime/model/configuration.h"

/* Placements of every node (data: liMi, oMi). O(njoints). */
void lucid_model_forward_kinematics(const lucid_model *m, lucid_model_data *d, const double *q);

/* The world placements of the joint frames (njoints entries, lucid_model_forward_kinematics's). */
const lucid_se3 *lucid_model_data_joint_poses(const lucid_model_data *d);

/* The world placement of frame f (after lucid_model_forward_kinematics). */
lucid_se3 lucid_model_frame_pose(const lucid_model *m, const lucid_model_data *d, size_t f);

typedef enum lucid_reference_frame {
    LUCID_REF_LOCAL,              /* the frame's twist in the frame itself */
    LUCID_REF_WORLD,              /* the spatial twist in world coordinates, at the origin */
    LUCID_REF_LOCAL_WORLD_ALIGNED /* the frame origin's velocity and the angular velocity,
                                     both in world axes */
} lucid_reference_frame;

/* J (6 x nv, column-major, leading dimension 6): the frame's twist = J v in `ref` (after
 * lucid_model_forward_kinematics). Columns of dofs that do not move the frame are zero. */
void lucid_model_frame_jacobian(const lucid_model *m, const lucid_model_data *d, size_t f,
                                lucid_reference_frame ref, double *J);

/* The frame's twist J v in `ref` (after lucid_model_forward_kinematics), without forming J. */
void lucid_model_frame_velocity(const lucid_model *m, const lucid_model_data *d, size_t f,
                                const double *v, lucid_reference_frame ref, double twist[6]);

/* The sensors of a step (accelerometer, force, torque), in three calls:
 * lucid_model_rnea_wrenches poses d at q and runs RNEA's forward pass with acceleration a under
 * gravity g (model frame; the root accelerates at -g, so each body's acceleration carries
 * gravity's proper acceleration): each node's d->f = I a + v x* I v; then
 * lucid_model_wrench_external_force takes an external force (point and force in the model
 * frame) on a node off its wrench; lucid_model_gather_wrenches adds each node's subtree into
 * its wrench: the wrench its parent applies through its joint (node frame, about its origin). */
void lucid_model_rnea_wrenches(const lucid_model *m, lucid_model_data *d, const double *q,
                               const double *v, const double *a, lucid_vec3 g);
void lucid_model_wrench_external_force(const lucid_model *m, lucid_model_data *d, int node,
                                       lucid_vec3 point, lucid_vec3 force);
/* The same for an external couple (a torque, model frame): a contact's torsional friction. */
void lucid_model_wrench_external_torque(const lucid_model *m, lucid_model_data *d, int node,
                                        lucid_vec3 torque);
void lucid_model_gather_wrenches(const lucid_model *m, lucid_model_data *d);
/* After lucid_model_gather_wrenches: frame f's origin acceleration minus g (MuJoCo's
 * accelerometer), in f's frame; and the wrench (force, torque about f's origin) its node gets
 * from its parent, in f's frame (zero on the world). */
void lucid_model_frame_proper_acceleration(const lucid_model *m, const lucid_model_data *d,
                                           size_t f, lucid_vec3 g, double out[3]);
void lucid_model_frame_joint_wrench(const lucid_model *m, const lucid_model_data *d, size_t f,
                                    double out[6]);

/* tau = M(q) a + b(q, v) (inverse dynamics). O(njoints). */
void lucid_model_rnea(const lucid_model *m, lucid_model_data *d, const double *q, const double *v,
                      const double *a, double *tau);

/* b = nle(q, v) = rnea(q, v, 0). */
void lucid_model_nle(const lucid_model *m, lucid_model_data *d, const double *q, const double *v,
                     double *b);

/* The mass matrix into d->M (nv x nv, column-major, full symmetric; read it with
 * lucid_model_data_mass_matrix). O(sum of depths) spatial operations. */
void lucid_model_crba(const lucid_model *m, lucid_model_data *d, const double *q);
const double *lucid_model_data_mass_matrix(const lucid_model_data *d);
/* d->M += diag(x) (nv entries), before lucid_model_ltdl: the world's implicit damping and
 * stiffness regularise M this way. */
void lucid_model_data_add_mass_diagonal(const lucid_model *m, lucid_model_data *d, const double *x);

/* nle and CRBA on data already posed at q by lucid_model_forward_kinematics (the world's model
 * step computes the kinematics once and runs both on it): lucid_model_nle's and
 * lucid_model_crba's results at that q, bit for bit. */
void lucid_model_nle_posed(const lucid_model *m, lucid_model_data *d, const double *v, double *b);
void lucid_model_crba_posed(const lucid_model *m, lucid_model_data *d);

/* a = M(q)^-1 (tau - b(q, v)) (forward dynamics, articulated-body algorithm). O(njoints). */
void lucid_model_aba(const lucid_model *m, lucid_model_data *d, const double *q, const double *v,
                     const double *tau, double *a);

/* Kinetic energy 1/2 v^T M v (armature included) and potential energy -sum m_i g.c_i. */
void lucid_model_energy(const lucid_model *m, lucid_model_data *d, const double *q, const double *v,
                        double *kinetic, double *potential);
/* The same with d already posed at q (lucid_model_forward_kinematics(m, d, q) the last call
 * that changed d's poses): the kinematics are not recomputed. */
void lucid_model_energy_posed(const lucid_model *m, lucid_model_data *d, const double *v,
                              double *kinetic, double *potential);

/* Centre of mass of the moving bodies in the world frame (the origin if massless). */
lucid_vec3 lucid_model_com(const lucid_model *m, lucid_model_data *d, const double *q);

/* ---- analytic derivatives (tangent space of q: column k is the derivative along q (+) t e_k) --
 * dtau_dq, dtau_dv: nv x nv, column-major, of rnea(q, v, a) (M = dtau/da is lucid_model_crba's).
 * Exact (no finite differences): Carpentier & Mansard's algorithm (RSS 2018), one forward and
 * one backward pass in the world frame for all columns at once, O(sum of dof depths) spatial
 * operations like CRBA (formulas in rnea_derivatives.c). */
void lucid_model_rnea_derivatives(const lucid_model *m, lucid_model_data *d, const double *q,
                                  const double *v, const double *a, double *dtau_dq,
                                  double *dtau_dv);
/* a = M^-1 (tau - b) (ABA's acceleration, from the same pass's M, bias and LTDL factors: equal
 * to lucid_model_aba's up to rounding) into a (nv), and its derivatives da_dq = -M^-1 dtau_dq,
 * da_dv = -M^-1 dtau_dv at that a, da_dtau = M^-1 (each nv x nv column-major; da_dtau may be
 * NULL). Leaves d->M (full symmetric) and its LTDL factors at q. */
void lucid_model_aba_derivatives(const lucid_model *m, lucid_model_data *d, const double *q,
                                 const double *v, const double *tau, double *a, double *da_dq,
                                 double *da_dv, double *da_dtau);

/* ---- the LTDL factorisation M = L^T D L (Featherstone, RBDA Sec. 6.3) ----------------------
 * L is unit lower triangular with the branch-induced sparsity of the tree: L(k, i) != 0 only
 * when dof i is an ancestor of dof k, so there is no fill-in. Factorising costs
 * O(sum over dofs of depth^2) and each solve O(nnz(L) + nv) = O(sum of depths) per right-hand
 * side (O(nv) for a chain of branches of bounded depth, O(nv^2) for a single chain).
 * lucid_model_ltdl factorises d->M as lucid_model_crba left it (d->M is kept). */
void lucid_model_ltdl(const lucid_model *m, lucid_model_data *d);
/* Each operates in place on nrhs right-hand sides, column j at x + j * ld (ld >= nv):
 * mass_solve x <- M^-1 x, ltdl_half_solve x <- D^-1/2 L^-T x (so that for Y =
 * half_solve(J^T), J M^-1 J^T = Y^T Y), mass_multiply y = M x from the factors (x, y distinct,
 * both with leading dimension ld). */
void lucid_model_mass_solve(const lucid_model *m, const lucid_model_data *d, double *x, size_t ld,
                            size_t nrhs);
/* mass_solve on the dofs [lo, hi) of a range closed under the dof tree (a union of whole
 * subtrees hanging from the root, so M is block diagonal across its ends): entry k of a
 * column at x[k - lo], ld >= hi - lo; O(hi - lo) per column, not O(nv). */
void lucid_model_mass_solve_range(const lucid_model *m, const lucid_model_data *d, size_t lo,
                                  size_t hi, double *x, size_t ld, size_t nrhs);
void lucid_model_ltdl_half_solve(const lucid_model *m, const lucid_model_data *d, double *x,
                                 size_t ld, size_t nrhs);
void lucid_model_mass_multiply(const lucid_model *m, const lucid_model_data *d, const double *x,
                               double *y, size_t ld, size_t nrhs);

#endif
