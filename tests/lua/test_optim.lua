local t = require "testing"
local lucid = require "lucid"
local ad = lucid.ad
local gn = lucid.optim.gauss_newton

-- Rosenbrock as least squares: r = (10 (x2 - x1^2), 1 - x1), minimum 0 at (1, 1).
local function rosenbrock(x) return ad.concat{10 * (x[2] - x[1] * x[1]), 1 - x[1]} end

local function nonincreasing(history)
  for i = 2, #history do
    if history[i] > history[i - 1] then return false end
  end
  return true
end

t.case("Rosenbrock converges to (1, 1) with a decreasing cost", function()
  local x, info = gn(rosenbrock, {-1.2, 1})
  t.truthy(info.converged, info.message)
  t.allnear(x, {1, 1}, 1e-9)
  t.truthy(info.cost < 1e-20, "cost " .. info.cost)
  t.eq(#info.history, info.iterations + 1)
  t.truthy(nonincreasing(info.history), "Armijo steps never increase the cost")
  t.near(info.history[1], 0.5 * (4.4 ^ 2 + 2.2 ^ 2), 1e-15)
end)

t.case("adaptive Levenberg-Marquardt damping also converges", function()
  local x, info = gn(rosenbrock, {-1.2, 1}, {damping = "adaptive", max_iter = 200})
  t.truthy(info.converged, info.message)
  t.allnear(x, {1, 1}, 1e-8)
  t.truthy(nonincreasing(info.history))
  local x2, info2 = gn(rosenbrock, {-1.2, 1}, {damping = 1e-6, max_iter = 200})
  t.truthy(info2.converged, info2.message)
  t.allnear(x2, {1, 1}, 1e-8)
end)

t.case("linear least squares is solved in one step", function()
  local A = lucid.mat{{1, 2, 0}, {0, 1, -1}, {3, 0, 1}, {1, 1, 1}, {-2, 0.5, 4}, {0, 3, 1}}
  local b = lucid.vec{1, -2, 0.5, 3, 1, -1}
  local x, info = gn(function(x) return A * x - b end, {5, -3, 2})
  t.eq(info.iterations, 1)
  t.truthy(info.converged, info.message)
  t.allnear(x, A:lstsq(b), 1e-12)
  -- the normal equations hold at the answer
  t.allnear(A:T() * (A * x - b), {0, 0, 0}, 1e-12)
end)

t.case("more variables than residuals: the dual system gives the minimum-norm step", function()
  -- J J^T is 2 x 2 and regular while J^T J (3 x 3, rank 2) is singular, so without damping
  -- only the dual path can succeed; from 0 its step is the minimum-norm solution (1, 1, 1).
  local A = lucid.mat{{1, 1, 1}, {1, 0, -1}}
  local b = lucid.vec{3, 0}
  local x, info = gn(function(x) return A * x - b end, {0, 0, 0})
  t.truthy(info.converged, info.message)
  t.eq(info.iterations, 1)
  t.allnear(x, {1, 1, 1}, 1e-14)
  -- a nonlinear underdetermined problem: reach the unit sphere
  local y, info2 = gn(function(x) return x:dot(x) - 1 end, {0.3, -0.2, 0.9})
  t.truthy(info2.converged, info2.message)
  t.near(y:norm(), 1, 1e-10)
end)

t.case("a retraction keeps the iterate on the unit circle", function()
  local p = lucid.vec{3, 4}
  -- rotate x by the angle d[1]: an exact retraction onto the circle
  local function rotate(x, d)
    local c, s = ad.cos(d[1]), ad.sin(d[1])
    return ad.concat{c * x[1] - s * x[2], s * x[1] + c * x[2]}
  end
  local seen = 0
  local x, info = gn(function(x) return x - p end, {1, 0}, {
    retract = rotate, dim = 1,
    callback = function(iter, xi, cost)
      seen = seen + 1
      t.eq(iter, seen)
      t.near(xi:norm(), 1, 1e-14)
      t.near(cost, 0.5 * (xi - p):dot(xi - p), 1e-14)
    end})
  t.truthy(info.converged, info.message)
  t.eq(seen, info.iterations)
  t.allnear(x, {0.6, 0.8}, 1e-10)
end)

t.case("a retraction onto the unit sphere with damping", function()
  local p = lucid.vec{1, -2, 2}
  local function normalise(x, d)
    local y = x + d
    return y * (1 / y:norm())
  end
  -- the 3-d step is redundant along x, so J^T J is singular: damping makes it solvable
  local x, info = gn(function(x) return x - p end, {0, 0, 1},
                     {retract = normalise, damping = 1e-9})
  t.truthy(info.converged, info.message)
  t.allnear(x, {1 / 3, -2 / 3, 2 / 3}, 1e-9)
  local _, undamped = gn(function(x) return x - p end, {0, 0, 1}, {retract = normalise})
  t.eq(undamped.converged, false)
  t.eq(undamped.reason, "singular")
end)

t.case("pose variables: a right-multiplicative retraction on SE(3)", function()
  local se3 = lucid.se3
  local truth = se3.exp{0.4, -0.3, 0.8, 0.9, -0.6, 1.4}
  local points = {lucid.vec{1, 0, 0}, lucid.vec{0, 2, 0}, lucid.vec{0, 0, -1},
                  lucid.vec{1, 1, 1}}
  local residual = function(T)
    local parts = {}
    for i, p in ipairs(points) do parts[i] = T:act(p) - truth:act(p) end
    return ad.concat(parts)
  end
  local T, info = gn(residual, se3.identity(), {
    retract = function(T, d) return T * se3.exp(d) end, dim = 6})
  t.truthy(info.converged, info.message)
  t.truthy(info.cost < 1e-20, "cost " .. info.cost)
  t.allnear(T:log(), truth:log(), 1e-10)
  t.raises("lucid.optim.gauss_newton: opts.dim is required", gn, residual, se3.identity(),
    {retract = function(T, d) return T * se3.exp(d) end})
end)

t.case("failures are reported with a reason", function()
  -- a singular system (rank-1 Jacobian, no damping)
  local x, info = gn(function(x) return ad.concat{x[1] + x[2] - 1, 2 * (x[1] + x[2]) - 1} end,
                     {0, 0})
  t.eq(info.converged, false)
  t.eq(info.reason, "singular")
  t.truthy(info.message:find("singular system: lucid.mat:cholsolve", 1, true), info.message)
  t.allnear(x, {0, 0}, 0)
  -- wrong derivatives: the step is not a descent direction of the true cost
  local wrong = ad.primitive{forward = function(x) return lucid.vec{x[1] - 2} end,
                             jacobian = function() return lucid.mat{{-1}} end}
  local x2, info2 = gn(function(x) return wrong(x) end, {0})
  t.eq(info2.converged, false)
  t.eq(info2.reason, "line_search")
  t.truthy(info2.message:find("line search failed", 1, true), info2.message)
  t.eq(info2.iterations, 0)
  t.eq(info2.cost, 2)
  t.allnear(x2, {0}, 0)
  -- the iteration limit
  local _, info3 = gn(rosenbrock, {-1.2, 1}, {max_iter = 2})
  t.eq(info3.converged, false)
  t.eq(info3.reason, "max_iter")
  t.eq(info3.iterations, 2)
  t.eq(#info3.history, 3)
  -- a callback can stop the run
  local _, info4 = gn(rosenbrock, {-1.2, 1}, {callback = function() return false end})
  t.eq(info4.reason, "callback")
  t.eq(info4.iterations, 1)
end)

t.case("bad arguments raise errors naming the function", function()
  t.raises("lucid.optim.gauss_newton: residual must be a function", gn, 1, {0})
  t.raises("lucid.optim.gauss_newton: unknown option 'maxiter'", gn, rosenbrock, {0, 0},
    {maxiter = 3})
  t.raises("lucid.optim.gauss_newton: opts.damping must be", gn, rosenbrock, {0, 0},
    {damping = -1})
  t.raises("lucid.optim.gauss_newton: opts.c1 must be in (0, 1)", gn, rosenbrock, {0, 0},
    {c1 = 2})
  t.raises("lucid.optim.gauss_newton: opts.max_iter must be a non-negative integer", gn,
    rosenbrock, {0, 0}, {max_iter = 1.5})
  t.raises("lucid.optim.gauss_newton: opts.retract must be a function", gn, rosenbrock, {0, 0},
    {retract = 3})
  t.raises("lucid.optim.gauss_newton: x0 must be a lucid.vec", gn, rosenbrock, "x")
  t.raises("lucid.optim.gauss_newton: x0[1] must be a finite number", gn, rosenbrock, {0 / 0, 1})
  t.raises("lucid.optim.gauss_newton: x0[1] must be a finite number", gn, rosenbrock,
    lucid.zeros(2) * math.huge)
  -- issue 16: errors name gauss_newton, never lucid.ad.jacobian or an internal position
  t.raises("lucid.optim.gauss_newton: x0 must not be empty", gn, rosenbrock, {})
  t.raises("lucid.optim.gauss_newton: x0 must be a non-empty vector (got a 0 x 1 matrix)", gn,
    rosenbrock, lucid.zeros(0))
  t.raises("lucid.optim.gauss_newton: residual: it must return a differentiable value (got nil)",
    gn, function() end, {1})
  t.raises("lucid.optim.gauss_newton: unknown option 'tols' (expected one of: c1, callback,",
    gn, rosenbrock, {0, 0}, {tols = 1})
  t.raises("lucid.optim.gauss_newton: opts.tol must be a number (got string)", gn, rosenbrock,
    {0, 0}, {tol = "1e-6"})
  local ok, err = pcall(gn, rosenbrock, {0, 0}, "x")
  t.truthy(not ok and err:find("^lucid%.optim%.gauss_newton: opts must be a table"), err)
  ok, err = pcall(function()
    local x = gn(rosenbrock, {0, 0}, {c1 = 5}) -- not a tail call: this frame is the caller
    return x
  end)
  t.truthy(not ok and err:find("test_optim.lua:%d+: lucid.optim.gauss_newton: opts.c1") and
    not err:find("scripts/lucid"), "the position is the caller's: " .. err)
end)
