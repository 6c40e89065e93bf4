-- Gradient quality through contact (issue 11, item 5; docs/gradient_quality.md). Two scenes,
-- one control direction each, the cost C(theta) of a rollout and dC/dtheta from
--   implicit            lucid.ad through lucid.sim.step (IFT on each step's contact solution),
--   relaxed kappa       the same with dlambda from the interior-point central path at kappa,
--   finite differences  central differences of C (whole rollouts),
--   randomized          Gaussian smoothing of C: E[C(theta + s e) e] / s, e ~ N(0, 1), M samples
-- push: a sphere finger (a free body, its weight balanced) pushed by a constant force theta
--   (N, along x) for T steps into a box resting on the floor 1 cm ahead; C = (x_box - 0.01)^2.
--   Below the force that breaks the box's friction the box does not move: C is flat there.
-- edge: a box balanced on its edge, tilted by theta (rad) from the balance point, falls; C is
--   its final rotation about x: a step in theta (it falls to one side or the other).
local lucid = require "lucid"
local task = require "lucid.task"
local plot = require "lucid.plot"

local t = task.new{
  name = "gradient_quality",
  summary = "Cost landscapes through contact and their gradients: implicit, relaxed, finite differences, randomized smoothing.",
  options = {
    {name = "points", kind = "integer", default = 21, min = 3, max = 2001, help = "theta samples per scene"},
    {name = "steps", kind = "integer", default = 40, min = 2, max = 100000, help = "rollout length T"},
    {name = "samples", kind = "integer", default = 16, min = 2, max = 100000, help = "randomized-smoothing samples M"},
    {name = "out", kind = "string", default = "out/gradient_quality", help = "directory of the SVG plots"},
  },
}
local opts = t:parse(arg)
local T = opts.steps
local KAPPAS = {1e-2, 1e-4}

local function at(x, y, z) return lucid.se3.new({1, 0, 0, 0}, {x, y, z}) end

-- Scenes: a world, its initial state, controls as a function of theta (a lucid.ad value or a
-- number) and the cost of a final state.
local function push_scene()
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-10, max_iter = 2000}}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  local box = w:add_body{shape = lucid.box(0.05, 0.05, 0.05), mass = 1, pose = at(0, 0, 0.05 - 2e-4)}
  local finger = w:add_body{shape = lucid.sphere(0.02), mass = 0.1, pose = at(-0.0705, 0, 0.05)}
  local x0, mg = w:state(), 0.1 * 9.81
  local ibox = 1 -- the box's x in the state (bodies in id order)
  return {
    name = "push", w = w, x0 = x0, lo = 2, hi = 12, unit = "N",
    controls = function(theta) -- box: no wrench; finger: (theta, 0, m g, 0, 0, 0)
      return lucid.ad.concat{lucid.vec{0, 0, 0, 0, 0, 0}, theta, lucid.vec{0, mg, 0, 0, 0}}
    end,
    plain = function(theta) return {0, 0, 0, 0, 0, 0, theta, 0, mg, 0, 0, 0} end,
    cost = function(x) local e = x[ibox] - 0.01; return e * e end,
  }, box, finger
end

local function edge_scene()
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-10, max_iter = 2000}}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.8}
  local a = 0.05
  local r = math.pi / 4 -- balanced on its edge along y
  w:add_body{shape = lucid.box(a, a, a), mass = 1,
             pose = lucid.se3.new({math.cos(r / 2), math.sin(r / 2), 0, 0}, {0, 0, a * math.sqrt(2) - 2e-4})}
  local s0 = w:state()
  local e = {}
  for k = 1, #s0 do e[k] = k == 11 and 1 or 0 end -- the body-frame angular velocity about x
  return {
    name = "edge", w = w, lo = -0.4, hi = 0.4, unit = "rad/s (initial spin about the edge)",
    initial = function(theta) return lucid.vec(s0:totable()) + lucid.vec(e) * theta end,
    cost = function(x) return 2 * (x[5] / x[4]) end, -- 2 tan(r/2): the final roll, monotone in r
  }
end

-- C(theta) and dC/dtheta through lucid.ad (opts: lucid.sim.step options).
local function rollout_cost(sc, theta, sim_opts)
  local x = sc.initial and sc.initial(theta) or sc.x0
  local u = sc.controls and sc.controls(theta) or nil
  for _ = 1, T do x = lucid.sim.step(sc.w, x, u, sim_opts) end
  return sc.cost(x)
end

local function value(sc, theta)
  if sc.initial then
    local x = sc.initial(theta)
    for _ = 1, T do x = lucid.sim.step(sc.w, x, nil) end
    return sc.cost(x)
  end
  local x, u = sc.x0, sc.plain(theta)
  for _ = 1, T do x = lucid.sim.step(sc.w, x, u) end
  return sc.cost(x)
end

local function ad_gradient(sc, theta, sim_opts)
  local v, g = lucid.ad.grad(function(th) return rollout_cost(sc, th[1], sim_opts) end, lucid.vec{theta})
  return v, g[1]
end

local rng = lucid.rng(t.seed)
local function randomized(sc, theta, sigma)
  local acc = 0
  for _ = 1, opts.samples do
    local e = rng:normal()
    acc = acc + (value(sc, theta + sigma * e) - value(sc, theta - sigma * e)) * e
  end
  return acc / (2 * sigma * opts.samples) -- antithetic pairs
end

local scenes = {push_scene(), edge_scene()}
local methods = {"implicit"}
for _, k in ipairs(KAPPAS) do methods[#methods + 1] = string.format("relaxed %g", k) end
methods[#methods + 1] = "finite differences"
methods[#methods + 1] = "randomized"
local bar = t:progress(#scenes * opts.points, "samples")
local figures = {seed = t.seed, steps = T, points = opts.points, samples = opts.samples, scenes = {}}
os.execute("mkdir -p '" .. opts.out .. "'")
local files = {}
for _, sc in ipairs(scenes) do
  local grid, cost, grads, times = {}, {}, {}, {}
  for _, m in ipairs(methods) do grads[m], times[m] = {}, 0 end
  local span = sc.hi - sc.lo
  for k = 1, opts.points do
    local theta = sc.lo + span * (k - 1) / (opts.points - 1)
    grid[k] = theta
    local clock = os.clock()
    local v, g = ad_gradient(sc, theta, {})
    times.implicit = times.implicit + os.clock() - clock
    cost[k], grads.implicit[k] = v, g
    for i, kappa in ipairs(KAPPAS) do
      clock = os.clock()
      local _, gk = ad_gradient(sc, theta, {method = "relaxed", kappa = kappa})
      times[methods[1 + i]] = times[methods[1 + i]] + os.clock() - clock
      grads[methods[1 + i]][k] = gk
    end
    clock = os.clock()
    local h = 1e-4 * span
    grads["finite differences"][k] = (value(sc, theta + h) - value(sc, theta - h)) / (2 * h)
    times["finite differences"] = times["finite differences"] + os.clock() - clock
    clock = os.clock()
    grads.randomized[k] = randomized(sc, theta, 0.05 * span)
    times.randomized = times.randomized + os.clock() - clock
    bar:step()
  end
  -- agreement with finite differences where C is smooth: samples whose neighbours' finite
  -- differences differ by less than 20 % of the largest (no jump of the gradient in between)
  local fd = grads["finite differences"]
  local scale = 1e-12
  for k = 1, opts.points do scale = math.max(scale, math.abs(fd[k])) end
  local summary = {name = sc.name, methods = {}, smooth_samples = 0}
  for k = 2, opts.points - 1 do
    if math.abs(fd[k + 1] - fd[k - 1]) <= 0.2 * scale then summary.smooth_samples = summary.smooth_samples + 1 end
  end
  for _, m in ipairs(methods) do
    local worst = 0
    for k = 2, opts.points - 1 do
      if math.abs(fd[k + 1] - fd[k - 1]) <= 0.2 * scale then
        worst = math.max(worst, math.abs(grads[m][k] - fd[k]))
      end
    end
    summary.methods[#summary.methods + 1] = {method = m, seconds_per_gradient = times[m] / opts.points,
                                             max_error_smooth = worst / scale}
  end
  figures.scenes[#figures.scenes + 1] = summary
  local series = {}
  for _, m in ipairs(methods) do series[#series + 1] = {name = m, x = grid, y = grads[m]} end
  files[#files + 1] = plot.lines{file = opts.out .. "/" .. sc.name .. "_cost.svg",
    title = sc.name .. ": cost of a " .. T .. "-step rollout", xlabel = "theta (" .. sc.unit .. ")",
    ylabel = "C", series = {{name = "C", x = grid, y = cost}}}
  files[#files + 1] = plot.lines{file = opts.out .. "/" .. sc.name .. "_gradient.svg",
    title = sc.name .. ": dC/dtheta by method", xlabel = "theta (" .. sc.unit .. ")",
    ylabel = "dC/dtheta", series = series}
end
bar:done()
figures.plots = files
t:report(figures, function()
  print(string.format("rollouts of %d steps, %d values of theta per scene, randomized smoothing with %d antithetic pairs",
    T, opts.points, opts.samples))
  for _, s in ipairs(figures.scenes) do
    local rows = {}
    for _, m in ipairs(s.methods) do rows[#rows + 1] = {m.method, m.max_error_smooth, m.seconds_per_gradient} end
    print(string.format("%s (%d of %d samples where the gradient has no jump)", s.name, s.smooth_samples, opts.points - 2))
    print(task.format_table({"method", "max |g - FD| / max |FD| where C is smooth", "s per gradient"}, rows))
  end
  print("plots: " .. table.concat(files, ", "))
end)
