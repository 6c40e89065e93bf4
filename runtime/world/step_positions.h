/* Analytic position columns of the step derivatives (issue 11): how the fixed-force step map
 * moves with one tangent direction of an articulated model's configuration or of a free body's
 * pose, at the nominal contact forces, from the rigid-body algorithms' derivatives and the
 * carried contact geometry, without evaluating the map (runtime/world/step_derivatives.c uses it;
 * the derivation is in step_positions.c and docs/step_derivatives.md). */
#ifndef LUCID_STEP_POSITIONS_H
#define LUCID_STEP_POSITIONS_H

#include "autodiff/contact_geometry_derivatives.h"
#include "runtime/math/arena.h"
#include "runtime/world/world.h"

typedef struct lucid_step_positions lucid_step_positions;

/* The state of world w right after the nominal fixed-force evaluation at x0: its contacts (n,
 * the first ns shape contacts with the geometry derivatives geo, then joint limits), their
 * rows, each model's factorised M~ and its kinematics at x0 in place (as
 * lucid_world_step_prepare_velocities leaves them), lambda (dim n, lucid_world_derivative_dim:
 * with torsional or rolling friction the spin and rolling rows too) the forces, post0 (np entries,
 * lucid_world_post_velocity) the final velocities, branch (n) each contact's piece of the
 * reference velocity. Scratch from arena; NULL when it runs out. */
lucid_step_positions *
lucid_step_positions_create(lucid_arena *arena, lucid_world *w, const lucid_world_contact *contacts,
                            int n, int ns, const lucid_contact_geometry_derivative *geo,
                            const double *lambda, const double *post0, const int *branch);

/* Prepares model i's columns (its kinematics at x0, its dtau/dq and drnea/dq at the
 * acceleration lucid_step_positions_astar gives; drnea_dq: that derivative when the caller has
 * it, NULL: computed here): 0 when the model cannot be differentiated this way (the world's
 * gravity differs from the model's, or a spatial tendon's moment changes with q: its columns
 * are then evaluated numerically). */
int lucid_step_positions_model(lucid_step_positions *s, int i, const double *drnea_dq);
/* astar (nv) = (p0 - v) / dt, model i's acceleration over the nominal step (post0: its final
 * velocities p0, v its state's), at which lucid_step_positions_model takes drnea/dq. */
void lucid_step_positions_astar(const lucid_world *w, int i, const double *post0, double *astar);

/* Prepares free body b's columns (its tangent T exp(e_j), j < 6, linear first); the world's
 * free velocities must be those before contact (lucid_world_step_prepare_velocities). */
void lucid_step_positions_body(lucid_step_positions *s, int b);

/* Column j (a dof of the model, or a tangent of the free body, prepared last) at the nominal
 * forces: dp (np entries, the change of the final velocities), dsigma (dim n, of sigma = (G + R)
 * lambda + g) and dsep (n, of the separations, for the caller's check that no contact leaves its
 * margin). */
void lucid_step_positions_column(lucid_step_positions *s, int j, double *dp, double *dsigma,
                                 double *dsep);
/* From now on the columns' dsigma leave out J_k dp / dt, and their dp holds each model's
 * entries before M~^-1 (its right-hand side M~ dp): the caller solves and adds them for all its
 * columns at once (multi-column solves and a matrix product; step_derivatives.c's
 * flush_columns). */
void lucid_step_positions_leave_rows(lucid_step_positions *s);

#endif
