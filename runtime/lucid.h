/* lucid: differentiable contact simulation in C11, scripted in Lua 5.4.
 * The umbrella header of the public C API. Conventions: SI units, doubles, column-major
 * matrices, twists linear-first, fallible functions return a lucid_status. */
#ifndef LUCID_H
#define LUCID_H

#include "runtime/core/status.h"
#include "runtime/math/vec3.h"
#include "runtime/math/mat3.h"
#include "runtime/math/quat.h"
#include "runtime/math/se3.h"
#include "runtime/lua/host.h"

#include <lauxlib.h>
#include <lualib.h>

#endif
