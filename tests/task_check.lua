-- Runs a task in its --json mode and checks its figures, not only its exit code:
--   lucid tests/task_check.lua TASK [ARGS...]   (from the repository root)
-- Every number must be finite (lucid.json writes NaN and Inf as null, so no null may appear)
-- and each task's figures must be present and within plausible ranges derived from the
-- task's physics (analytic values where the task has them). Exit 0 on success, 1 otherwise.
local json = require "lucid.json"

local name = assert(arg[1], "usage: task_check.lua TASK [ARGS...]")
local extra = {}
for i = 2, #arg do extra[#extra + 1] = "'" .. arg[i]:gsub("'", "'\\''") .. "'" end
local cmd = string.format("'%s' tasks/%s.lua --json %s", arg[-1], name, table.concat(extra, " "))
local pipe = assert(io.popen(cmd))
local out = pipe:read("a")
local _, _, code = pipe:close()

local problems = {}
local function bad(fmt, ...) problems[#problems + 1] = string.format(fmt, ...) end

local function finish()
  if #problems == 0 then
    print(string.format("task/%s: figures checked", name))
    os.exit(0)
  end
  print(string.format("task/%s: %d problem(s) in the --json output:", name, #problems))
  for _, p in ipairs(problems) do print("  " .. p) end
  if #out < 4000 then print("output: " .. out) end
  os.exit(1)
end

if code ~= 0 then
  bad("`%s` exited with %s", cmd, tostring(code))
  finish()
end
local ok, fig = pcall(json.decode, out)
if not ok or type(fig) ~= "table" then
  bad("stdout is not one JSON object: %s", tostring(fig))
  finish()
end
if out:find("null", 1, true) then bad("a figure is NaN or infinite (null in the JSON)") end

-- fig[path] as a finite number within [lo, hi] (either bound may be nil).
local function get(t, path)
  for key in path:gmatch("[^.]+") do
    if type(t) ~= "table" then return nil end
    t = t[tonumber(key) or key]
  end
  return t
end
local function num(t, path, lo, hi, where)
  local v = get(t, path)
  local label = (where and where .. "." or "") .. path
  if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
    bad("%s: expected a finite number, got %s", label, tostring(v))
    return nil
  end
  if (lo and v < lo) or (hi and v > hi) then
    bad("%s = %.17g outside [%s, %s]", label, v, tostring(lo or "-inf"), tostring(hi or "inf"))
  end
  return v
end
local function near(t, path, expected, rel, where)
  local v = num(t, path, nil, nil, where)
  if v and not (math.abs(v - expected) <= rel * math.abs(expected)) then
    bad("%s%s = %.17g, expected %.17g within %g relative", where and where .. "." or "", path,
      v, expected, rel)
  end
  return v
end
local function keys(t, expected, where)
  if type(t) ~= "table" then
    bad("%s: missing", where)
    return
  end
  for _, k in ipairs(expected) do
    if t[k] == nil then bad("%s: missing %s", where, k) end
  end
end

local checks = {}

-- Half turn about y then t = (0, 0, 2) maps (0.1, 0.2, 0.3) to (-0.1, 0.2, 1.7); the
-- factorisations solve an SPD system to a few ulps of its condition number.
function checks.quickstart(f)
  local expected = {-0.1, 0.2, 1.7}
  for i = 1, 3 do
    local v = num(f, "point." .. i)
    if v and math.abs(v - expected[i]) > 1e-12 then
      bad("point[%d] = %.17g, expected %g", i, v, expected[i])
    end
  end
  num(f, "n", 1, nil)
  num(f, "poses", 1, nil)
  local cond = num(f, "condition_number", 1, 1e8)
  num(f, "worst_exp_log_roundtrip", 0, 1e-12)
  for _, k in ipairs({"cholesky", "lu"}) do
    num(f, k .. ".relative_error", 0, 1e-13 * (cond or 1))
    num(f, k .. ".seconds", 0, 60)
  end
end

-- One contact swept through separation, sticking and sliding (tasks/contact_smoothing.lua):
-- at each kappa the relaxed solution is biased by about sqrt(2 kappa) (measured 1.41 sqrt(kappa)
-- at 801 samples) and its derivative is smooth: the bias falls and the largest second
-- derivative grows as kappa falls, and their product stays of order one (measured 0.93).
function checks.contact_smoothing(f)
  if type(f.kappas) ~= "table" or #f.kappas ~= 4 then bad("kappas: expected 4 entries") return end
  local previous
  for i, k in ipairs(f.kappas) do
    local where = "kappas." .. i
    local kappa = num(k, "kappa", 0, 1, where)
    local bias = num(k, "max_bias", 0, nil, where)
    local curvature = num(k, "max_second_derivative", 0, nil, where)
    num(k, "max_derivative", 1.9, 2.1, where) -- d lambda_N / ds = 1 / b = 2 in contact
    num(k, "width_10pct", 0, 1, where)
    if kappa and bias then
      if bias > 2 * math.sqrt(2 * kappa) or bias < 0.5 * math.sqrt(2 * kappa) then
        bad("%s: bias %.3g is not about sqrt(2 kappa) = %.3g", where, bias, math.sqrt(2 * kappa))
      end
    end
    if previous and bias and curvature then
      if not (bias < previous.bias and curvature > previous.curvature) then
        bad("%s: bias and smoothness do not trade as kappa falls", where)
      end
    end
    previous = {bias = bias, curvature = curvature}
  end
  num(f, "exact_max_derivative_jump", 0.1, 10)
end

-- A cube launched at v0 stops after v0^2 / (2 mu g) (mu = 0.4, g = 9.81 in the task) along its
-- launch heading. Every solver must slide about that far; the NCP solvers (exact Coulomb
-- friction, no lift) within 1% and on the heading, with energy conserved to the model.
function checks.sliding_cube(f)
  local v0, angle = num(f, "v0", 0, nil), num(f, "angle", -math.pi, math.pi)
  num(f, "dt", 0, 0.1)
  local expected = v0 and near(f, "expected_distance", v0 ^ 2 / (2 * 0.4 * 9.81), 1e-12)
  local solvers = {"ccp:admm", "ccp:newton", "ccp:pgs", "lcp:pgs", "ncp:admm", "ncp:pgs",
                   "ncp:staggered", "raisim:bisection"}
  keys(f.solvers, solvers, "solvers")
  for _, s in ipairs(solvers) do
    local r = f.solvers and f.solvers[s]
    if r and expected then
      local ncp = s:find("^ncp:") ~= nil
      near(r, "distance", expected, ncp and 0.01 or 0.12, s)
      num(r, "max_lift", 0, s:find("^ccp:") and 0.05 or 1e-6, s)
      num(r, "max_energy_error", 0, ncp and 1e-6 or 1.0, s)
      if s ~= "lcp:pgs" then -- the pyramid's facets bend the path (documented)
        num(r, "heading", angle - (ncp and 1e-6 or 0.01), angle + (ncp and 1e-6 or 0.01), s)
      else
        num(r, "heading", -math.pi, math.pi, s)
      end
    end
  end
  if type(f.eq19) ~= "table" or #f.eq19 == 0 then bad("eq19: missing") end
  for i, g in ipairs(f.eq19 or {}) do
    num(g, "dt", 0, 0.1, "eq19." .. i)
    num(g, "worst_relative_error", 0, 1e-6, "eq19." .. i)
    num(g, "max_lift", 0, 0.05, "eq19." .. i)
  end
end

-- A cube dragged by a growing force starts sliding at t* (expected_onset, from mu m g) and
-- reaches the analytic v(1 s): every solver within 5 steps and max(1%, 10 dt).
function checks.dragged_cube(f)
  local dt = num(f, "dt", 0, 0.1)
  local onset = num(f, "expected_onset", 0, 1)
  local v_end = num(f, "expected_v_end", 0, nil)
  if onset then near(f, "expected_v_end", 10 * (1 - onset) ^ 2, 1e-12) end
  local solvers = {"ccp:admm", "ccp:newton", "ccp:pgs", "lcp:pgs", "ncp:admm", "ncp:pgs",
                   "ncp:staggered", "raisim:bisection"}
  keys(f.solvers, solvers, "solvers")
  for _, s in ipairs(solvers) do
    local r = f.solvers and f.solvers[s]
    if r and dt and onset and v_end then
      num(r, "onset", onset - 5 * dt, onset + 5 * dt, s)
      near(r, "v_end", v_end, math.max(0.01, 10 * dt), s) -- O(dt) error
      num(r, "internal_force", 0, nil, s)
    end
  end
end

-- Contact-pose problems: per method, order statistics of the final costs, consistent counts,
-- and optimisation that does not end above where it started.
-- The default robot (tasks/models/arm3.xml: 3 hinges and a free box) sweeps its servos on the
-- floor: sizes, converged contact solves, the box on the floor, no blow-up.
-- Gradients through contact (tasks/gradient_quality.lua): on the box falling off its edge the
-- cost is smooth over the sampled range and the implicit and relaxed (kappa 1e-4) gradients
-- match central finite differences of whole rollouts (measured 4e-8 and 7e-8 relative).
function checks.gradient_quality(f)
  if type(f.scenes) ~= "table" or #f.scenes ~= 2 then bad("scenes: expected 2 entries") return end
  local edge = f.scenes[2]
  if edge.name ~= "edge" then bad("scenes.2.name: expected edge") return end
  for i, m in ipairs(edge.methods or {}) do
    local where = "scenes.2.methods." .. i
    local hi = (m.method == "implicit" or m.method == "relaxed 0.0001") and 1e-5 or nil
    num(m, "max_error_smooth", 0, hi, where)
    num(m, "seconds_per_gradient", 0, nil, where)
  end
end

function checks.robot_tour(f)
  near(f, "nq", 10, 0)
  near(f, "nv", 9, 0)
  near(f, "nu", 3, 0)
  local steps = num(f, "steps", 1, nil)
  local max_contacts = num(f, "max_contacts", 1, 100)
  local limit_steps = num(f, "limit_contact_steps", 0, steps) -- steps with a limit contact
  num(f, "limit_contacts", limit_steps, steps and max_contacts and steps * max_contacts)
  num(f, "worst_ncp_residual", 0, 1e-5)
  num(f, "ms_per_step", 0, 1e3)
  num(f, "energy_end", -100, 100)
  num(f, "free_body_motion_last_2s.box", 0, 1)
  if type(f.final_q) ~= "table" or #f.final_q ~= 10 then bad("final_q: expected 10 numbers") end
end

local function ordered_summary(s, where, count)
  if type(s) ~= "table" then
    bad("%s: missing", where)
    return
  end
  local order = {"min", "D1", "Q1", "median", "Q3", "D9", "max"}
  local prev = 0
  for _, k in ipairs(order) do
    local v = num(s, k, 0, nil, where)
    if v and v < prev * (1 - 1e-12) then bad("%s.%s = %g below the previous quantile", where, k, v) end
    prev = v or prev
  end
  if count then num(s, "count", count, count, where) end
end
function checks.contact_pose(f)
  local n = num(f, "problems", 1, nil)
  local iterations = num(f, "iterations", 1, nil)
  ordered_summary(f.initial_cost, "initial_cost", n)
  local methods = {"finite_differences_1e-3", "finite_differences_1e-6", "first_order_gaussian",
                   "first_order_gumbel", "zeroth_order_gaussian"}
  keys(f.methods, methods, "methods")
  for _, k in ipairs(methods) do
    local m = f.methods and f.methods[k]
    if m and n then
      ordered_summary(m, k, n)
      if f.initial_cost and m.median and f.initial_cost.median and
          not (m.median <= f.initial_cost.median) then
        bad("%s: median cost %g above the initial median %g", k, m.median, f.initial_cost.median)
      end
      num(m, "mean_iterations", 0, iterations, k)
      num(m, "seconds", 0, nil, k)
      num(m, "ms_per_problem", 0, nil, k)
      num(m, "touching_linearisations", 0, nil, k)
      local total = 0
      for _, c in pairs(m.stop_reasons or {}) do total = total + c end
      if total ~= n then bad("%s: stop reasons count %d problems, expected %d", k, total, n) end
    end
  end
end

-- Grasp synthesis (tasks/grasp.lua): rates are fractions; epsilon is at most the largest
-- wrench norm, sqrt(2 (1 + mu^2)) with unit normal forces and torques times 1/rho; fingertips
-- end on the surface (within 1 cm even when an attempt fails); each object row is consistent.
function checks.grasp(f)
  local s = f.summary
  if type(s) ~= "table" then bad("summary: missing") return end
  local n = num(s, "grasps", 1, nil, "summary")
  local mu = num(s, "mu", 0, 10, "summary") or 0
  local top = math.sqrt(2 * (1 + mu * mu))
  num(s, "force_closure_rate", 0, 1, "summary")
  for _, k in ipairs({"epsilon_min", "epsilon_median", "epsilon_max"}) do num(s, k, 0, top, "summary") end
  if s.epsilon_min and s.epsilon_max and s.epsilon_min > s.epsilon_max then
    bad("summary: epsilon_min > epsilon_max")
  end
  num(s, "mean_attempts", 1, nil, "summary")
  num(s, "mean_iterations", 0, nil, "summary")
  num(s, "grasps_per_second_per_core", 0, nil, "summary")
  if f.problem == "hand" then
    for _, k in ipairs({"valid_rate", "first_attempt_valid_rate", "simulated_success_rate"}) do
      num(s, k, 0, 1, "summary")
    end
    num(s, "max_penetration", 0, 0.05, "summary")
    num(s, "max_fingertip_gap", 0, 0.05, "summary")
  else
    num(s, "first_attempt_force_closure_rate", 0, 1, "summary")
    num(s, "max_fingertip_distance", 0, 0.01, "summary")
  end
  local total = 0
  for i, o in ipairs(f.objects or {}) do
    local where = "objects." .. i
    total = total + (num(o, "grasps", 1, nil, where) or 0)
    num(o, "force_closure_rate", 0, 1, where)
    num(o, "epsilon_min", 0, top, where)
    num(o, "seconds", 0, nil, where)
  end
  if n and total ~= n then bad("objects: %d grasps in the rows, %d in the summary", total, n) end
end

-- Box drops (tasks/single_level_drop.lua): the single-level step has no failed drop at any
-- frequency (docs/single_level.md: 0 of 3600 since bf0b648), and its penetration is the relaxation's (the relaxed collision program lets the shapes
-- overlap by about kappa / (dual ~ 1 / size): measured 0.95 kappa here); iterations stay
-- below the cap. The default pipeline's figures must be finite (its failures are measured).
function checks.single_level_drop(f)
  if type(f.cells) ~= "table" or #f.cells == 0 then bad("cells: missing") return end
  for i, c in ipairs(f.cells) do
    local where = "cells." .. i
    local drops = num(c, "drops", 1, nil, where)
    num(c, "failures", 0, drops, where)
    local pen = num(c, "max_penetration", 0, nil, where)
    num(c, "us_per_contact_step", 0, 1e6, where)
    num(c, "iterations_per_step", 0, nil, where)
    if c.method == "single_level" then
      num(c, "failures", 0, 0, where)
      if pen and c.kappa and pen > 2 * c.kappa then
        bad("%s: penetration %.3g beyond 2 kappa = %.3g", where, pen, 2 * c.kappa)
      end
      num(c, "iterations_per_step", 1, 20, where)
    end
  end
end

local check = checks[name]
if not check then
  bad("no figure checks for task '%s' (add them to tests/task_check.lua)", name)
else
  check(fig)
end
finish()
