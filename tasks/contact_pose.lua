-- Contact-pose generation: the benchmark of Montaut et al., "Differentiable Collision
-- Detection: a Randomized Smoothing Approach", Section V (Eq. 30, Table I).
--
-- Shape 1 sits at the identity, shape 2 at the pose T. Given target points x1 on shape 1 and
-- x2 on shape 2 (shape-local), find T such that the witness points reach the targets and the
-- shapes touch:
--   min_T 1/2 |p1(T) - x1|^2 + 1/2 |T^-1 p2(T) - x2|^2 + 1/2 |p1(T) - p2(T)|^2
-- (p1, p2: world witness points of lucid.distance; |T^-1 p2 - x2| = |p2 - T x2| since T is
-- rigid, which is the form used below). Gauss-Newton with Armijo backtracking and adaptive
-- damping (lucid.optim.gauss_newton, retraction T exp(dx)), 50 iterations, the witness Jacobians
-- from lucid.distance as a lucid.ad primitive with each derivative method of the paper.
--
-- Problems: pairs of random rough polyhedral ellipsoids (the hull of 12 points on an
-- ellipsoid's surface, semi-axes 5-15 cm), or with --meshes the hulls of the shared meshes
-- scaled to a YCB-like largest extent of 5-30 cm. Targets: points on the two hull surfaces
-- that some touching pose makes the witness points -- the witness pair of the shapes at a
-- random pose, with shape 2 then slid along the normal until they touch -- so every problem
-- has the minimum 0. (Independent uniform surface points, --surface-targets, are almost never
-- reachable: on polytopes one witness point is a vertex unless faces are parallel, so a
-- target inside a face of each hull leaves a positive minimum.) Start pose: a uniform random
-- rotation with shape 2 just outside the two bounding spheres along a random direction, or
-- with --start near the target pose moved by a random twist.
--
-- The smoothed first-order estimates are undefined where the shapes touch exactly (distance
-- == 0, see autodiff/collision_derivatives.h); there they are taken on the separated side
-- (see touching_linearisation below).
--
-- Random streams: every problem, start pose and target derives from --seed. The smoothed
-- estimators draw from opts.derivatives.seed = problem seed + iteration: the Gauss-Newton
-- callback advances it after each accepted step, so all linearisations of one outer
-- iteration (the line-search trials and the accepted one) see the same draws.
local lucid = require "lucid"
local task = require "lucid.task"
local plot = require "lucid.plot"
local stats = require "lucid.stats"

local t = task.new{
  name = "contact_pose",
  summary = "Contact-pose generation (Eq. 30 of the randomized-smoothing paper): Gauss-Newton "
    .. "on witness points with each collision-derivative estimator; terminal-cost quantiles.",
  options = {
    {name = "problems", kind = "integer", default = 400, min = 1,
     help = "number of problems (pairs x targets, targets per pair min(100, ceil(sqrt N)))"},
    {name = "full", kind = "flag", help = "the paper's size: 100 pairs x 100 targets"},
    {name = "meshes", kind = "flag",
     help = "hulls of the shared meshes (LUCID_MESHES_DIR or <repo>/../shared/data/meshes)"},
    {name = "surface-targets", kind = "flag",
     help = "targets uniform on the hull surfaces (mostly unreachable: see the header)"},
    {name = "start", kind = "string", default = "random", choices = {"random", "near"},
     help = "start pose: 'random' (uniform rotation, just outside the bounding spheres) or "
       .. "'near' (the target pose moved by a twist with 0.2 rad / 2 cm std)"},
    {name = "iterations", kind = "integer", default = 50, min = 1, help = "Gauss-Newton iterations"},
    {name = "plot", kind = "string", default = "out/contact_pose_costs.svg",
     help = "SVG of the cost histories of problem 1 per method ('' for none)"},
  },
}
local opts = t:parse(arg)
local rng = t.rng

-- The estimators and the paper's parameters (Table I). eps units: zeroth order, noise std on
-- the twist; first-order Gaussian, noise std on x* = p1 - p2 (m); Gumbel, temperature of the
-- scores <v, x*> (m^2) -- the paper's units (autodiff/collision_derivatives.h).
local METHODS = {
  {key = "finite_differences_1e-6", label = "finite differences", params = "h = 1e-6",
   derivatives = {method = "finite_differences", step = 1e-6}},
  {key = "finite_differences_1e-3", label = "finite differences", params = "h = 1e-3",
   derivatives = {method = "finite_differences", step = 1e-3}},
  {key = "zeroth_order_gaussian", label = "0th-order Gaussian", params = "M = 50, eps = 1e-2",
   derivatives = {method = "zeroth_order", samples = 50, noise = 1e-2}},
  {key = "first_order_gaussian", label = "1st-order Gaussian", params = "M = 20, eps = 1e-3",
   derivatives = {method = "first_order_gaussian", samples = 20, noise = 1e-3}},
  {key = "first_order_gumbel", label = "1st-order Gumbel", params = "n_l = 1, eps = 1e-4",
   derivatives = {method = "first_order_gumbel", levels = 1, noise = 1e-4}},
}

-- ---- shapes and targets -------------------------------------------------------------

local function unit_vector()
  while true do
    local v = lucid.vec{rng:normal(), rng:normal(), rng:normal()}
    local n = v:norm()
    if n > 1e-6 then return v / n end
  end
end

-- The hull of 12 points on an ellipsoid with semi-axes in [5, 15] cm.
local function rough_ellipsoid()
  local a = {rng:uniform(0.05, 0.15), rng:uniform(0.05, 0.15), rng:uniform(0.05, 0.15)}
  local pts = {}
  for i = 1, 12 do
    local u = unit_vector()
    pts[i] = {a[1] * u[1], a[2] * u[2], a[3] * u[3]}
  end
  return lucid.convex(pts)
end

local function script_dir()
  local here = arg and arg[0] and arg[0]:match("^(.*)/[^/]*$") or "."
  return here
end

local function exists(path)
  local f = io.open(path, "r")
  if f then f:close() end
  return f ~= nil
end

-- The directory holding manifest.tsv, the shared meshes' index.
local function meshes_dir()
  local root = script_dir() .. "/.."
  local candidates = {root .. "/../shared/data/meshes", root .. "/../../shared/data/meshes"}
  local env = os.getenv("LUCID_MESHES_DIR")
  if env and env ~= "" then table.insert(candidates, 1, env) end
  for _, dir in ipairs(candidates) do
    if exists(dir .. "/manifest.tsv") then return dir end
  end
  io.stderr:write("contact_pose: no meshes (set LUCID_MESHES_DIR to the directory holding "
                  .. "manifest.tsv)\n")
  os.exit(2)
end

local function mesh_files(dir)
  local files = {}
  local first = true
  for line in io.lines(dir .. "/manifest.tsv") do
    if not first and line ~= "" then files[#files + 1] = dir .. "/" .. line:match("^([^\t]+)") end
    first = false
  end
  return files
end

-- A mesh hull scaled so that its largest extent is uniform in [5, 30] cm.
local function scaled_mesh(path)
  local raw = lucid.load_mesh(path)
  local lo, hi = raw:aabb()
  local extent = math.max(hi[1] - lo[1], hi[2] - lo[2], hi[3] - lo[3])
  return lucid.load_mesh(path, {scale = rng:uniform(0.05, 0.30) / extent})
end

-- Uniform sampling of a hull's surface: faces fan-triangulated, a triangle by area, then a
-- uniform point in it.
local function surface_sampler(shape)
  local V = shape:vertices()
  local function vertex(i) return lucid.vec{V:get(1, i), V:get(2, i), V:get(3, i)} end
  local tris, cumulative, total = {}, {}, 0
  for _, f in ipairs(shape:faces()) do
    local ids = f.vertices
    for k = 2, #ids - 1 do
      local a, b, c = vertex(ids[1]), vertex(ids[k]), vertex(ids[k + 1])
      local ab, ac = b - a, c - a
      local cross = lucid.vec{ab[2] * ac[3] - ab[3] * ac[2], ab[3] * ac[1] - ab[1] * ac[3],
                              ab[1] * ac[2] - ab[2] * ac[1]}
      total = total + 0.5 * cross:norm()
      tris[#tris + 1] = {a, b, c}
      cumulative[#cumulative + 1] = total
    end
  end
  return function()
    local u = rng:uniform(0, total)
    local lo, hi = 1, #cumulative
    while lo < hi do
      local mid = (lo + hi) // 2
      if cumulative[mid] < u then lo = mid + 1 else hi = mid end
    end
    local a, b, c = table.unpack(tris[lo])
    local r1, r2 = math.sqrt(rng:uniform()), rng:uniform()
    return a * (1 - r1) + b * (r1 * (1 - r2)) + c * (r1 * r2)
  end
end

local reachable_targets

local function bounding_radius(shape)
  local V, r = shape:vertices(), 0
  for i = 1, V:cols() do
    r = math.max(r, math.sqrt(V:get(1, i) ^ 2 + V:get(2, i) ^ 2 + V:get(3, i) ^ 2))
  end
  return r
end

-- Targets that a touching pose reaches: the witness points of the pair at a random separated
-- pose T, which stay the witness points when shape 2 is translated along the normal until
-- the shapes touch (x2 in shape 2's frame).
reachable_targets = function(s1, s2, T)
  local r = lucid.distance(s1, lucid.se3.identity(), s2, T)
  local touching = lucid.se3.new(T:rotation(), T:translation() - r.normal * r.distance)
  return r.p1, T:inverse():act(r.p2), touching
end

-- ---- problems ---------------------------------------------------------------------------

local N = opts.full and 10000 or opts.problems
local per_pair = math.min(100, math.ceil(math.sqrt(N)))
local pair_count = math.ceil(N / per_pair)
local files = opts.meshes and mesh_files(meshes_dir()) or nil

local problems = {}
for p = 1, pair_count do
  local s1, s2
  if files then
    s1 = scaled_mesh(files[rng:integer(1, #files)])
    s2 = scaled_mesh(files[rng:integer(1, #files)])
  else
    s1, s2 = rough_ellipsoid(), rough_ellipsoid()
  end
  local on1, on2 = surface_sampler(s1), surface_sampler(s2)
  local reach = 1.1 * (bounding_radius(s1) + bounding_radius(s2))
  local function random_pose()
    return lucid.se3.new(lucid.se3.random(rng):rotation(), unit_vector() * reach)
  end
  for _ = 1, per_pair do
    if #problems == N then break end
    local x1, x2, goal
    if opts["surface-targets"] then
      x1, x2 = on1(), on2()
      goal = random_pose()
    else
      x1, x2, goal = reachable_targets(s1, s2, random_pose())
    end
    local start = random_pose()
    if opts.start == "near" then
      local xi = {}
      for k = 1, 6 do xi[k] = rng:normal() * (k <= 3 and 0.02 or 0.2) end
      start = goal * lucid.se3.exp(xi)
    end
    problems[#problems + 1] = {s1 = s1, s2 = s2, x1 = x1, x2 = x2, start = start,
                               seed = t.seed * 100000000 + (#problems + 1) * 1000, pair = p}
  end
end

-- ---- Gauss-Newton per problem and method ------------------------------------------------

local IDENTITY = lucid.se3.identity()
-- Adaptive Levenberg-Marquardt damping (lucid.optim's damping = "adaptive") starting far
-- below the Jacobian's scale (entries ~1 and ~0.1 m): a witness point on a vertex has no
-- derivative in some directions, so J^T J is often near-singular, and a fixed tiny Tikhonov
-- term (1e-10) let Gauss-Newton take huge steps there that no line search could rescue
-- (most unsolved first-order runs ended so). The damping grows x10 when the line search
-- fails and shrinks x3 after each full step.
local LAMBDA = 1e-6

local touching_linearisation
local function retract(T, dx) return T * lucid.se3.exp(dx) end

-- The smoothed first-order estimates are undefined where the shapes touch exactly (distance
-- == 0: they smooth at x* = p1 - p2 = 0, and the separated and penetrating sides have
-- different limits). There the witness points keep their exact values at T and take their
-- derivatives from the separated side, at T slid SLIDE along the normal: the one-sided
-- limit. Counted per method as touching_linearisations.
local SLIDE = 1e-10
local touching_count = 0
touching_linearisation = function(problem, T, query, message)
  if not tostring(message):find("at distance 0", 1, true) then error(message, 0) end
  touching_count = touching_count + 1
  local exact = lucid.distance(problem.s1, IDENTITY, problem.s2, T:value())
  local slide = lucid.se3.new({1, 0, 0, 0}, exact.normal * SLIDE)
  local r = lucid.distance(problem.s1, IDENTITY, problem.s2, slide * T, query)
  return {p1 = r.p1 - r.p1:value() + exact.p1, p2 = r.p2 - r.p2:value() + exact.p2}
end

-- Terminal cost, history, iterations and stop reason of one solve.
local function solve(problem, method)
  local derivatives = {}
  for k, v in pairs(method.derivatives) do derivatives[k] = v end
  derivatives.seed = problem.seed
  local query = {derivatives = derivatives}
  local function residual(T)
    local ok, r = pcall(lucid.distance, problem.s1, IDENTITY, problem.s2, T, query)
    if not ok then r = touching_linearisation(problem, T, query, r) end
    return lucid.ad.concat{r.p1 - problem.x1, r.p2 - T:act(problem.x2), r.p1 - r.p2}
  end
  local _, info = lucid.optim.gauss_newton(residual, problem.start, {
    retract = retract, dim = 6, max_iter = opts.iterations, tol = 0, step_tol = 0,
    damping = "adaptive", lambda = LAMBDA,
    callback = function(iter)
      derivatives.seed = problem.seed + iter -- fresh draws for the next outer iteration
    end,
  })
  return info.cost, info.history, info.iterations, info.reason
end

local results = {}
for _, m in ipairs(METHODS) do
  results[m.key] = {costs = {}, seconds = 0, iterations = 0, reasons = {}, touching = 0}
end
local first_histories = {}
local initial_costs = {}

-- Problems are independent: under `mpirun -np N build/lucid tasks/contact_pose.lua --full`
-- the ranks share them (lucid.mpi.sweep, docs/mpi.md) and rank 0 prints the same figures;
-- run serially this is the plain loop. `seconds` add up every rank's solve time.
local bar = t:progress(#problems, "contact poses")
local indices = {}
for i = 1, #problems do indices[i] = i end
local solved = lucid.mpi.sweep(indices, function(i)
  local out = {}
  for _, m in ipairs(METHODS) do
    local start = lucid.clock()
    local before = touching_count
    local cost, history, iterations, reason = solve(problems[i], m)
    out[m.key] = {cost = cost, history = i == 1 and history or nil, initial = history[1],
                  iterations = iterations, reason = reason, touching = touching_count - before,
                  seconds = lucid.clock() - start}
  end
  bar:step()
  return out
end)
bar:done()
for i = 1, #problems do
  for _, m in ipairs(METHODS) do
    local r, res = solved[i][m.key], results[m.key]
    res.touching = res.touching + r.touching
    res.seconds = res.seconds + r.seconds
    res.costs[#res.costs + 1] = r.cost
    res.iterations = res.iterations + r.iterations
    res.reasons[r.reason] = (res.reasons[r.reason] or 0) + 1
    if i == 1 then first_histories[m.key] = r.history end
    initial_costs[i] = r.initial
  end
end

-- ---- report ------------------------------------------------------------------------------

if opts.plot ~= "" then
  local series = {}
  for _, m in ipairs(METHODS) do
    local y = first_histories[m.key]
    local x = {}
    for k = 1, #y do x[k] = k - 1 end -- history[1] is the start (iteration 0)
    series[#series + 1] = {name = m.label .. " " .. m.params, x = x, y = y}
  end
  plot.lines{file = opts.plot, title = "Contact-pose generation: problem 1",
             xlabel = "Gauss-Newton iteration", ylabel = "cost", logy = true, series = series}
end

local figures = {seed = t.seed, problems = #problems, pairs = pair_count, targets_per_pair = per_pair,
                 shapes = opts.meshes and "meshes" or "rough_ellipsoids", start = opts.start,
                 targets = opts["surface-targets"] and "surface" or "reachable",
                 iterations = opts.iterations, plot = opts.plot ~= "" and opts.plot or nil,
                 initial_cost = stats.summary(initial_costs), methods = {}}
for _, m in ipairs(METHODS) do
  local res = results[m.key]
  local s = stats.summary(res.costs)
  figures.methods[m.key] = {
    method = m.derivatives.method, parameters = m.params,
    D1 = s.D1, Q1 = s.Q1, median = s.median, Q3 = s.Q3, D9 = s.D9, min = s.min, max = s.max,
    count = s.count, touching_linearisations = res.touching, stop_reasons = res.reasons,
    mean_iterations = res.iterations / #problems, seconds = res.seconds,
    ms_per_problem = 1e3 * res.seconds / #problems,
  }
end

t:report(figures, function()
  print(string.format("contact-pose generation: %d problems (%d pairs x %d targets, %s, %s "
                      .. "targets, %s start), Gauss-Newton %d iterations, seed %d", #problems,
                      pair_count, per_pair, figures.shapes, figures.targets, opts.start,
                      opts.iterations, t.seed))
  print("terminal cost C(q) quantiles (D9: 10% of problems end worse):")
  local rows = {}
  for _, m in ipairs(METHODS) do
    local f = figures.methods[m.key]
    rows[#rows + 1] = {m.label, m.params, f.D1, f.Q1, f.median, f.Q3, f.D9, f.ms_per_problem,
                       f.touching_linearisations}
  end
  print(task.format_table({"method", "parameters", "D1", "Q1", "median", "Q3", "D9",
                           "ms/problem", "d=0 lin."}, rows, "%.2g"))
  if opts.plot ~= "" then print("cost histories of problem 1: " .. opts.plot) end
end)
