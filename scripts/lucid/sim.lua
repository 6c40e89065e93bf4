-- lucid.sim: the world's step as a differentiable function (docs/step_derivatives.md).
--
--   x1 = lucid.sim.step(w, x, u [, opts])
--
-- sets w's state to x and its controls to u (nil: the world's current controls), steps once
-- and returns the next state x1 (a lucid.vec in w:state() coordinates). When x, u or
-- opts.theta is a lucid.ad value the step is recorded as a lucid.ad primitive, so
-- lucid.ad.jacobian / lucid.ad.grad / lucid.optim.gauss_newton see through rollouts:
--   dx1/d(x, u, theta) = E(x1) [A L(x), B, P]
-- with A, B, P of w:step_derivatives (tangent space) and E, L the Jacobians of the state's
-- retraction (w:state_jacobians: quaternion coordinates in, quaternion coordinates out).
-- opts: method, step, tol, max_iter, threshold, kappa, geometry (w:step_derivatives' table,
-- checked by it when a sweep reaches the step), params (a list of
-- parameter specs, {body = id, "mass"} ...) and theta (their values, set on w before the step;
-- differentiable). The step's Jacobian (nx x (nx + nu + np)) is formed when a derivative sweep
-- reaches the step and dropped after it: the tape keeps each step's inputs, so reverse mode
-- over a rollout (backpropagation through time) holds one dense Jacobian at a time, never N,
-- and never forms products of A matrices.
local check = require "lucid.check"
local lucid = require "lucid"

local FNAME = "lucid.sim.step"
local M = {}

local function is_ad(v) return check.typename(v) == "lucid.ad.var" end

local function numbers(v, n, what)
  local t = {}
  if type(v) == "table" then
    if #v ~= n then check.fail(FNAME, "%s must have %d entries (got %d)", what, n, #v) end
    for i = 1, n do
      -- a table holding lucid.ad values is not one: the step would lose their derivatives
      if is_ad(v[i]) then
        check.fail(FNAME, "%s[%d] is a lucid.ad value inside a plain table: join the entries into "
          .. "one lucid.ad vector with lucid.ad.concat{...} (numbers may be mixed in)", what, i)
      end
      if type(v[i]) ~= "number" then
        check.fail(FNAME, "%s[%d] must be a number (got %s)", what, i, check.typename(v[i]))
      end
      t[i] = v[i]
    end
  else
    local name = check.typename(v)
    if name ~= "lucid.mat" then
      check.fail(FNAME, "%s must be a lucid.vec, a table or a lucid.ad value (got %s)", what, name)
    end
    if #v ~= n then check.fail(FNAME, "%s must have %d entries (got %d)", what, n, #v) end
    for i = 1, n do t[i] = v[i] end
  end
  return t
end

-- The dense product of lucid.mat factors as rows of numbers.
local function rows_of(m)
  local r, c, out = m:rows(), m:cols(), {}
  for i = 1, r do
    local row = {}
    for j = 1, c do row[j] = m:get(i, j) end
    out[i] = row
  end
  return out
end

-- w:step_derivatives' options (lucid.options().step_derivatives: its C table) with their Lua
-- types, then sim's own; w:step_derivatives checks their values.
local DERIVATIVE_OPTIONS, OPTION_TYPES = {}, {params = "table", theta = "any"}
for _, o in ipairs(lucid.options().step_derivatives) do
  DERIVATIVE_OPTIONS[#DERIVATIVE_OPTIONS + 1] = o.name
  OPTION_TYPES[o.name] = o.type == "integer" and "number" or o.type
end

function M.step(w, x, u, opts)
  if check.typename(w) ~= "lucid.world" then
    check.fail(FNAME, "expected a lucid.world (got %s)", check.typename(w))
  end
  opts = check.options(FNAME, opts, OPTION_TYPES, "opts")
  local nx, nu = #w:state(), #w:controls()
  local params = opts.params or {}
  local np = #params
  if (opts.theta == nil) ~= (np == 0) then
    check.fail(FNAME, "opts.params and opts.theta go together")
  end
  local sd = {params = np > 0 and params or nil}
  for _, name in ipairs(DERIVATIVE_OPTIONS) do sd[name] = opts[name] end
  local function apply(z)
    local xs, us, ts = {}, {}, {}
    for i = 1, nx do xs[i] = z[i] end
    for i = 1, nu do us[i] = z[nx + i] end
    for i = 1, np do ts[i] = z[nx + nu + i] end
    w:set_state(xs)
    if nu > 0 then w:set_controls(us) end
    for k = 1, np do w:set_param(params[k], ts[k]) end
    return xs
  end
  if u == nil then u = w:controls() end
  local differentiable = is_ad(x) or is_ad(u) or is_ad(opts.theta)
  if not differentiable then
    local z = numbers(x, nx, "x")
    for i, v in ipairs(numbers(u, nu, "u")) do z[nx + i] = v end
    if np > 0 then
      for i, v in ipairs(numbers(opts.theta, np, "opts.theta")) do z[nx + nu + i] = v end
    end
    apply(z)
    w:step()
    return w:state()
  end
  -- the parts' sizes, checked as the plain path checks them before they are joined
  for _, part in ipairs{{x, nx, "x"}, {u, nu, "u"}, {opts.theta, np, "opts.theta"}} do
    local v, n, what = part[1], part[2], part[3]
    if is_ad(v) then
      if #v ~= n then check.fail(FNAME, "%s must have %d entries (got %d)", what, n, #v) end
    elseif v ~= nil then
      numbers(v, n, what)
    end
  end
  -- The step's Jacobian is computed when a sweep asks for it (lucid.ad calls `jacobian` once
  -- per sweep and primitive) and not kept: the tape holds each step's inputs only, so a
  -- gradient over N steps stores N input vectors, not N dense Jacobians. The recomputed step
  -- is the forward one bit for bit (set_state clears the warm-start memory both times); the
  -- world's state, controls and parameters are put back afterwards.
  local P = lucid.ad.primitive{
    name = FNAME,
    forward = function(z)
      apply(z)
      w:step()
      return w:state()
    end,
    jacobian = function(z)
      local keep_x, keep_u, keep_t = w:state(), w:controls(), {}
      for k = 1, np do keep_t[k] = w:param(params[k]) end
      local x0 = apply(z)
      local D = w:step_derivatives(sd)
      local x1 = w:state()
      local E = w:state_jacobians(x1)
      local _, L = w:state_jacobians(x0)
      local blocks = {E * D.A * L}
      if nu > 0 then blocks[2] = E * D.B end
      for k = 1, np do blocks[#blocks + 1] = E * D.params[k] end
      local rows = {}
      for i = 1, nx do rows[i] = {} end
      for _, b in ipairs(blocks) do
        for i, row in ipairs(rows_of(b)) do
          for _, v in ipairs(row) do rows[i][#rows[i] + 1] = v end
        end
      end
      w:set_state(keep_x)
      if nu > 0 then w:set_controls(keep_u) end
      for k = 1, np do w:set_param(params[k], keep_t[k]) end
      return lucid.mat(rows)
    end,
  }
  local parts = {x, u}
  if np > 0 then parts[3] = opts.theta end
  return P(lucid.ad.concat(parts))
end

return M
