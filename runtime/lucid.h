/* lucid: differentiable contact simulation in C11, scripted in Lua 5.4.
 * The umbrella header of the public C API: it includes every public header, so that
 * `#include <lucid.h>` gives a program all of lucid (tests/consumer builds against it, static
 * and shared). Conventions: SI units, doubles, column-major matrices, twists linear-first,
 * fallible functions return a lucid_status. Headers left out are internal (*_internal.h, the
 * Lua bindings' helpers under runtime/lua/ other than host.h, solver building blocks). */
#ifndef LUCID_H
#define LUCID_H

/* core and math */
#include "runtime/core/status.h"
#include "runtime/math/vec3.h"
#include "runtime/math/mat3.h"
#include "runtime/math/quat.h"
#include "runtime/math/se3.h"
#include "runtime/math/so3.h"
#include "runtime/math/rng.h"

/* shapes and meshes */
#include "runtime/shapes/shape.h"
#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/mesh_file.h"
#include "runtime/shapes/mass_properties.h"

/* collision: distance, Boolean collision, batches, contact patches */
#include "solvers/collision/collision.h"
#include "solvers/collision/distance_batch.h"
#include "solvers/collision/contact_patch.h"

/* contact problems and solvers */
#include "solvers/contact/contact_problem.h"
#include "solvers/contact/contact_criteria.h"
#include "solvers/contact/contact_solver.h"

/* dense linear algebra back end (thread count) */
#include "solvers/dense/dense_threads.h"

/* the world: bodies, stepping, state, controls, batch rollouts */
#include "runtime/world/world.h"
#include "runtime/world/world_batch.h"

/* derivatives: collision derivatives and the automatic differentiation tape */
#include "autodiff/collision_derivatives.h"
#include "autodiff/tape.h"
#include "autodiff/jacobian.h"

/* articulated models (runtime/model/): the loaders' input description (model.h, dynamics.h
 * and the other model headers are installed too, not included here) */
#include "runtime/model/model_spec.h"

/* the Lua host: a Lua state with `lucid` loaded (luaopen_lucid for embedding) */
#include "runtime/lua/host.h"

#include <lauxlib.h>
#include <lualib.h>

#endif
