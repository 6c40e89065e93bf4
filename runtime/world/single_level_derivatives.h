/* Step derivatives of a world stepped by the single-level step (collision = "single_level",
 * docs/single_level.md): the implicit function theorem on its NCP at the relaxation kappa the
 * step stopped at, through the LU of the NCP's Jacobian the solve left at its answer:
 *   dX = -J^-1 dF/dtheta,
 * with dF/dtheta (the equations' change with the state, controls and parameters at the fixed
 * solution X: poses, free velocities, masses, frictions) and the integration of the next state
 * from v+ + h dv+ taken by central differences, step opts.step. Called by
 * lucid_world_step_derivatives for such worlds, method relaxed (same outputs). */
#ifndef LUCID_SINGLE_LEVEL_DERIVATIVES_H
#define LUCID_SINGLE_LEVEL_DERIVATIVES_H

#include "runtime/world/step_derivatives.h"

lucid_status lucid_single_level_step_derivatives(lucid_world *w,
                                                 const lucid_step_derivative_options *o,
                                                 lucid_step_jacobians *J);

#endif
