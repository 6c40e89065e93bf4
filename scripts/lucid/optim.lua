-- lucid.optim: nonlinear least squares.
--
-- x, info = lucid.optim.gauss_newton(residual, x0, opts) minimises 0.5 |r(x)|^2.
--
-- The Jacobian comes from lucid.ad.jacobian. With a retraction the variable may live on a
-- manifold: the Jacobian is taken with respect to the tangent step d at d = 0 of
-- residual(retract(x, d)), so `retract` must accept a differentiable d (lucid.ad values) as
-- well as a lucid.vec, and opts.dim gives the tangent dimension when x is not a vector.
--
-- Each iteration solves the (damped) Gauss-Newton system through the LAPACK-backed
-- :cholsolve, choosing the smaller of the two equivalent systems:
--   m >= n: (J^T J + lambda I) dx = -J^T r              (n x n, normal equations)
--   m <  n: (J J^T + lambda I) y = -r,  dx = J^T y      (m x m, dual: minimum-norm step)
-- then an Armijo backtracking line search along dx:
--   accept alpha when cost(retract(x, alpha dx)) <= cost(x) + c1 alpha g.dx, g = J^T r
-- (when the cost change is within rounding noise, when the gradient norm decreases instead;
-- so the cost history never increases by more than a few ulps).
--
-- opts (all optional):
--   max_iter  (50)     iterations (outer steps)
--   tol       (1e-10)  stop when |J^T r|_inf <= tol           -> reason "gradient"
--   step_tol  (1e-12)  stop when |dx|_inf <= step_tol (1 + |x|_inf) -> reason "step"
--   cost_tol  (0)      stop when the decrease <= cost_tol * cost -> reason "cost"
--   min_cost  (0)      stop when cost <= min_cost                -> reason "cost"
--   c1 (1e-4), shrink (0.5), min_step (1e-10)  line search: sufficient-decrease constant,
--                      step reduction factor, smallest step tried
--   damping   (0)      Levenberg-Marquardt lambda: a number >= 0 (fixed) or "adaptive"
--                      (lambda starts at opts.lambda, default 1e-3, shrinks x3 after a full
--                      step, grows x10 and retries while the system is singular or the line
--                      search fails, up to opts.max_lambda, default 1e10)
--   retract   (x + dx) function(x, dx) -> new x
--   dim       (#x0)    tangent dimension (needed with a retract on non-vector variables)
--   mode               forwarded to lucid.ad.jacobian ("forward" / "reverse")
--   callback           function(iter, x, cost) after each accepted step; returning false
--                      stops with reason "callback"
--
-- info = {cost, iterations, history (cost before the first and after each iteration),
--         converged (bool), reason, message, lambda, gradient_norm}.
-- A failed line search with a step below 1e-8 (1 + |x|) is convergence to rounding
-- precision (reason "precision"), not a failure.
-- Failures are reported, not raised: converged = false with reason "line_search" (the cost
-- could not be decreased along the step), "singular" (the system could not be solved; the
-- message carries the solver's error) or "max_iter".
local lucid = require "lucid"
local check = require "lucid.check"

local optim = {}

local FNAME = "lucid.optim.gauss_newton"
-- Relative step below which a failed line search means the cost is flat to rounding
-- (about sqrt(machine epsilon): a step e changes the cost by O(e^2)).
local PRECISION = 1e-8

local known_options = {
  max_iter = "number", tol = "number", cost_tol = "number", step_tol = "number",
  min_cost = "number", c1 = "number", shrink = "number", min_step = "number",
  damping = "number|string", lambda = "number", max_lambda = "number", retract = "function",
  dim = "number", mode = "string", callback = "function",
}

local function fail(fmt, ...)
  check.fail(FNAME, fmt, ...)
end

local function check_options(opts)
  local o = check.options(FNAME, opts, known_options, "opts")
  local function number(name, default, ok, what)
    local v = o[name] == nil and default or o[name]
    if v ~= v or not ok(v) then fail("opts.%s must be %s (got %s)", name, what, tostring(v)) end
    o[name] = v
  end
  number("max_iter", 50, function(v) return v >= 0 and math.type(v) == "integer" end,
    "a non-negative integer")
  number("tol", 1e-10, function(v) return v >= 0 end, ">= 0")
  number("cost_tol", 0, function(v) return v >= 0 end, ">= 0")
  number("step_tol", 1e-12, function(v) return v >= 0 end, ">= 0")
  number("min_cost", 0, function(v) return v >= 0 end, ">= 0")
  number("c1", 1e-4, function(v) return v > 0 and v < 1 end, "in (0, 1)")
  number("shrink", 0.5, function(v) return v > 0 and v < 1 end, "in (0, 1)")
  number("min_step", 1e-10, function(v) return v > 0 and v <= 1 end, "in (0, 1]")
  number("lambda", 1e-3, function(v) return v > 0 and v < math.huge end, "> 0 and finite")
  number("max_lambda", 1e10, function(v) return v > 0 and v < math.huge end, "> 0 and finite")
  local d = o.damping
  if d == nil then
    o.damping = 0
  elseif d ~= "adaptive" and not (type(d) == "number" and d >= 0 and d < math.huge) then
    fail("opts.damping must be a number >= 0 or \"adaptive\" (got %s)", tostring(d))
  end
  if o.mode ~= nil and o.mode ~= "forward" and o.mode ~= "reverse" and o.mode ~= "auto" then
    fail("opts.mode must be \"forward\", \"reverse\" or \"auto\" (got %s)", o.mode)
  end
  return o
end

local function as_vector(x0)
  if type(x0) == "table" then
    if #x0 == 0 then fail("x0 must not be empty") end
    for i = 1, #x0 do
      local v = x0[i]
      if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
        fail("x0[%d] must be a finite number (got %s)", i, tostring(v))
      end
    end
    return lucid.vec(x0)
  end
  if check.typename(x0) == "lucid.mat" then
    if x0:cols() ~= 1 or x0:rows() == 0 then
      fail("x0 must be a non-empty vector (got a %d x %d matrix)", x0:rows(), x0:cols())
    end
    for i = 1, #x0 do
      local v = x0[i]
      if v ~= v or v == math.huge or v == -math.huge then
        fail("x0[%d] must be a finite number (got %s)", i, tostring(v))
      end
    end
    return x0:copy()
  end
  return x0 -- a manifold value (e.g. a pose): needs opts.retract and opts.dim
end

local function inf_norm(v)
  local m = 0
  for i = 1, #v do m = math.max(m, math.abs(v[i])) end
  return m
end

-- r, J at x (J with respect to the tangent step when a retraction is given).
-- Errors of lucid.ad.jacobian itself (not of the user's functions) are renamed: the user
-- called gauss_newton.
local function jacobian(f, x, jopts)
  local ok, r, J = pcall(lucid.ad.jacobian, f, x, jopts)
  if ok then return r, J end
  if type(r) == "string" and r:find("^lucid%.ad%.jacobian: ") then
    fail("residual: %s", r:gsub("^lucid%.ad%.jacobian: ", ""):gsub("^f ", "it "))
  end
  error(r, 0)
end

local function linearise(residual, x, o)
  local jopts = {mode = o.mode}
  local r, J
  if o.retract then
    r, J = jacobian(function(d) return residual(o.retract(x, d)) end, lucid.zeros(o.dim), jopts)
  else
    r, J = jacobian(residual, x, jopts)
  end
  return r, J, 0.5 * r:dot(r)
end

-- The damped Gauss-Newton step (see the header) or nil and the solver's message.
local function gn_step(J, r, g, lambda)
  local m, n = J:rows(), J:cols()
  local ok, dx
  if m >= n then
    local A = J:T() * J
    if lambda > 0 then A = A + lambda * lucid.eye(n) end
    ok, dx = pcall(A.cholsolve, A, -g)
  else
    local A = J * J:T()
    if lambda > 0 then A = A + lambda * lucid.eye(m) end
    local y
    ok, y = pcall(A.cholsolve, A, -r)
    if ok then dx = J:T() * y end
  end
  if not ok then return nil, tostring(dx) end
  return dx
end

local function step_of(x, dx, alpha, o)
  if o.retract then return o.retract(x, alpha * dx) end
  return x + alpha * dx
end

-- Backtracking along dx: the accepted point, its linearisation and step, or nil.
-- Near a minimum with a nonzero residual the cost change of a step e is O(e^2) and sinks
-- into rounding noise long before the gradient is small; there (cost change within a few
-- ulps of the cost, where Armijo would accept or reject at random) a trial is accepted
-- when it reduces the gradient norm instead, in the spirit of Hager and Zhang's
-- approximate Armijo condition.
local NOISE = 16 * 2.220446049250313e-16

local function line_search(residual, x, cost, g, dx, o)
  local slope = g:dot(dx)
  if not (slope < 0) then return nil, "not a descent direction" end
  local gnorm = g:norm()
  local alpha = 1.0
  while alpha >= o.min_step do
    local xt = step_of(x, dx, alpha, o)
    local rt, Jt, ct = linearise(residual, xt, o)
    local accept
    if math.abs(ct - cost) <= NOISE * cost then -- cost comparisons are noise here
      accept = (Jt:T() * rt):norm() < gnorm
    else
      accept = ct <= cost + o.c1 * alpha * slope
    end
    if accept then return xt, rt, Jt, ct, alpha end
    alpha = alpha * o.shrink
  end
  return nil, string.format("no sufficient decrease for steps down to %g", o.min_step)
end

function optim.gauss_newton(residual, x0, opts)
  if type(residual) ~= "function" then
    fail("residual must be a function (got %s)", check.typename(residual))
  end
  local o = check_options(opts)
  local x = as_vector(x0)
  if o.retract and not o.dim then
    local ok, n = pcall(function() return #x end)
    if not ok or type(n) ~= "number" then fail("opts.dim is required for non-vector x0") end
    o.dim = n
  elseif not o.retract and check.typename(x) ~= "lucid.mat" then
    fail("x0 must be a lucid.vec or a table of numbers (got %s)", check.typename(x0))
  end
  if o.dim and not (math.type(o.dim) == "integer" and o.dim >= 1) then
    fail("opts.dim must be a positive integer (got %s)", tostring(o.dim))
  end
  local adaptive = o.damping == "adaptive"
  local lambda = adaptive and o.lambda or o.damping

  local r, J, cost = linearise(residual, x, o)
  local history = {cost}
  local info = {converged = false, reason = "max_iter", message = "iteration limit reached"}
  local g = J:T() * r
  local iter = 0
  while true do
    local gnorm = inf_norm(g)
    if gnorm <= o.tol then
      info.converged, info.reason, info.message = true, "gradient", "gradient below tol"
      break
    end
    if cost <= o.min_cost then
      info.converged, info.reason, info.message = true, "cost", "cost below min_cost"
      break
    end
    if iter >= o.max_iter then break end
    local dx, why = gn_step(J, r, g, lambda)
    local xt, rt, Jt, ct, alpha
    local scale = 1 + (type(x) == "userdata" and x.rows and inf_norm(x) or 0)
    local dxnorm = dx and inf_norm(dx)
    if dx and dxnorm <= o.step_tol * scale then
      info.converged, info.reason, info.message = true, "step", "step below step_tol"
      break
    end
    if dx then
      xt, rt, Jt, ct, alpha = line_search(residual, x, cost, g, dx, o)
      if not xt then why = rt end
    end
    if xt then
      iter = iter + 1
      if adaptive and alpha == 1 then lambda = lambda / 3 end
      local decrease = cost - ct
      x, r, J, cost = xt, rt, Jt, ct
      g = J:T() * r
      history[#history + 1] = cost
      if o.callback and o.callback(iter, x, cost) == false then
        info.reason, info.message = "callback", "stopped by the callback"
        break
      end
      if o.cost_tol > 0 and decrease <= o.cost_tol * (cost + decrease) then
        info.converged, info.reason, info.message = true, "cost", "cost decrease below cost_tol"
        break
      end
    elseif dx and dxnorm <= PRECISION * scale then
      -- the model's step is at the noise level of the cost: nothing left to gain
      info.converged, info.reason = true, "precision"
      info.message = "cost cannot decrease further at machine precision"
      break
    elseif adaptive and lambda < o.max_lambda then
      lambda = math.max(lambda * 10, o.lambda) -- retry this iteration with more damping
    else
      info.reason = dx and "line_search" or "singular"
      info.message = (dx and "line search failed: " or "singular system: ") .. why
      break
    end
  end
  info.cost = cost
  info.iterations = iter
  info.history = history
  info.lambda = lambda
  info.gradient_norm = inf_norm(g)
  return x, info
end

return optim
