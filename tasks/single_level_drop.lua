-- Silico's robustness and cost experiment (Sec. VI-B, Figs. 9 and 11): a box (0.4 x 0.3 x 0.2 m,
-- 1 kg, friction 0.5) dropped from 0.5 m in a uniformly random orientation and simulated for
-- 1.5 s, by the single-level step (lucid.world{collision = "single_level"}) at several
-- relaxations kappa and by lucid's two-stage pipeline (GJK/EPA + contact patch, then the NCP
-- solved by --solver, ncp:admm by default: the solver of the rows in docs/single_level.md),
-- each at several simulation frequencies, on the same drops. A drop fails when the box
-- penetrates the ground beyond --penetration (GJK signed distance after each step), a step
-- does not converge, or the total energy rises above its initial value (by 1e-6 of it).
-- Also the cost: time per step and solver iterations per step with the box in contact.
local lucid = require "lucid"
local task = require "lucid.task"
local plot = require "lucid.plot"

local t = task.new{
  name = "single_level_drop",
  summary = "Box drops from random orientations: failures and cost, single-level vs two-stage (Silico Figs. 9, 11).",
  options = {
    {name = "drops", kind = "integer", default = 5, min = 1, max = 100000,
     help = "drops per (method, kappa, frequency) cell (the paper: 3600 runs in all)"},
    {name = "kappas", kind = "numbers", default = "1e-8,1e-6,1e-4", positive = true,
     check = function(list)
       local valid = task.world_check(function(k)
         return {collision = "single_level", single_level = {kappa = k}}
       end)
       for _, k in ipairs(list) do
         local why = valid(k)
         if why then return why end
       end
     end, help = "single-level relaxations ('' for the two-stage pipeline alone)"},
    {name = "hz", kind = "numbers", default = "10,30,100,300", positive = true,
     check = function(list, values)
       if #list == 0 then return "needs at least one frequency" end
       for _, hz in ipairs(list) do
         if hz * values.seconds < 0.5 then -- the drop's steps: floor(seconds hz + 0.5)
           return string.format("%g Hz over --seconds %g makes no step", hz, values.seconds)
         end
       end
     end, help = "simulation frequencies (Hz)"},
    {name = "solver", kind = "string", default = "admm", choices = {"admm", "newton", "pgs", "ip"},
     help = "the two-stage cells' NCP solver (admm: the recorded rows; newton: the world's default on small islands)"},
    {name = "seconds", kind = "number", default = 1.5, positive = true, max = 100, help = "simulated time per drop"},
    {name = "penetration", kind = "number", default = 1e-3, positive = true, help = "failure threshold (m)"},
    {name = "out", kind = "string", default = "out/single_level_drop", help = "directory of the SVG plots"},
  },
}
local opts = t:parse(arg)
local kappas, freqs = opts.kappas, opts.hz
local BOX = lucid.box(0.2, 0.15, 0.1)
local GROUND = lucid.halfspace({0, 0, 1}, 0)

-- the drops' orientations: uniform unit quaternions, the same for every cell
local rng = lucid.rng(t.seed)
local orientations = {}
for i = 1, opts.drops do
  local q, n = {}, 0
  for k = 1, 4 do q[k] = rng:normal(); n = n + q[k] ^ 2 end
  n = math.sqrt(n)
  orientations[i] = {q[1] / n, q[2] / n, q[3] / n, q[4] / n}
end

local function drop(wopts, q)
  local w = lucid.world(wopts)
  w:add_static{shape = GROUND, friction = 0.5}
  local id = w:add_body{shape = BOX, mass = 1, friction = 0.5, pose = lucid.se3.new(q, {0, 0, 0.5})}
  local E0 = w:energy().total
  local r = {penetration = 0, diverged = false, energy_gain = 0, time = 0, steps = 0, contact_steps = 0,
             iterations = 0, max_iterations = 0}
  local n = math.floor(opts.seconds / wopts.dt + 0.5)
  for _ = 1, n do
    local c0 = os.clock()
    local ok = pcall(w.step, w)
    local c1 = os.clock()
    if not ok then r.diverged = true; break end
    local s = w:stats()
    if not s.converged then r.diverged = true end
    if s.contacts > 0 then
      r.contact_steps = r.contact_steps + 1
      r.time = r.time + (c1 - c0)
      r.iterations = r.iterations + s.iterations
      r.max_iterations = math.max(r.max_iterations, s.iterations)
    end
    r.steps = r.steps + 1
    local d = lucid.distance(BOX, w:pose(id), GROUND, lucid.se3.identity()).distance
    r.penetration = math.max(r.penetration, -d)
    r.energy_gain = math.max(r.energy_gain, w:energy().total - E0)
  end
  r.failed_penetration = r.penetration > opts.penetration
  r.failed_energy = r.energy_gain > 1e-6 * math.abs(E0)
  r.failed = r.failed_penetration or r.diverged or r.failed_energy
  return r
end

local cells = {}
for _, hz in ipairs(freqs) do
  for _, kappa in ipairs(kappas) do
    cells[#cells + 1] = {method = "single_level", kappa = kappa, hz = hz,
                         wopts = {dt = 1 / hz, collision = "single_level", single_level = {kappa = kappa}}}
  end
  cells[#cells + 1] = {method = "two_stage", hz = hz,
                       wopts = {dt = 1 / hz, collision = "two_stage", contact = {solver = opts.solver}}}
end

local bar = t:progress(#cells * opts.drops, "drops")
local wall0 = lucid.clock() -- os.time() counts whole seconds: short runs read 0
for _, c in ipairs(cells) do
  local s = {drops = 0, failures = 0, penetration_failures = 0, divergence_failures = 0, energy_failures = 0,
             max_penetration = 0, mean_penetration = 0, max_energy_gain = 0, time = 0, contact_steps = 0,
             iterations = 0, max_iterations = 0}
  for i = 1, opts.drops do
    local r = drop(c.wopts, orientations[i])
    s.drops = s.drops + 1
    s.failures = s.failures + (r.failed and 1 or 0)
    s.penetration_failures = s.penetration_failures + (r.failed_penetration and 1 or 0)
    s.divergence_failures = s.divergence_failures + (r.diverged and 1 or 0)
    s.energy_failures = s.energy_failures + (r.failed_energy and 1 or 0)
    s.max_penetration = math.max(s.max_penetration, r.penetration)
    s.mean_penetration = s.mean_penetration + r.penetration / opts.drops
    s.max_energy_gain = math.max(s.max_energy_gain, r.energy_gain)
    s.time, s.contact_steps = s.time + r.time, s.contact_steps + r.contact_steps
    s.iterations = s.iterations + r.iterations
    s.max_iterations = math.max(s.max_iterations, r.max_iterations)
    bar:step()
  end
  s.us_per_contact_step = s.contact_steps > 0 and 1e6 * s.time / s.contact_steps or 0
  s.iterations_per_step = s.contact_steps > 0 and s.iterations / s.contact_steps or 0
  s.time, s.iterations = nil, nil
  c.stats = s
end
bar:done()
local wall = lucid.clock() - wall0

os.execute("mkdir -p '" .. opts.out .. "'")
local function series(field, floor)
  local out = {}
  local function line(name, pick)
    local xs, ys = {}, {}
    for _, c in ipairs(cells) do
      if pick(c) then xs[#xs + 1], ys[#ys + 1] = c.hz, math.max(field(c.stats), floor) end
    end
    out[#out + 1] = {name = name, x = xs, y = ys}
  end
  for _, kappa in ipairs(kappas) do
    line(string.format("single-level, kappa %g", kappa), function(c) return c.method == "single_level" and c.kappa == kappa end)
  end
  line("two-stage (GJK/EPA + ncp:" .. opts.solver .. ")", function(c) return c.method == "two_stage" end)
  return out
end
local files = {
  plot.lines{file = opts.out .. "/failures.svg", logx = true, title = "Box drops: share of failed drops",
             xlabel = "simulation frequency (Hz)", ylabel = "failed share",
             series = series(function(s) return s.failures / s.drops end, 0)},
  plot.lines{file = opts.out .. "/penetration.svg", logx = true, logy = true,
             title = "Box drops: largest penetration (GJK signed distance)", xlabel = "simulation frequency (Hz)",
             ylabel = "max penetration (m)", series = series(function(s) return s.max_penetration end, 1e-12)},
  plot.lines{file = opts.out .. "/time.svg", logx = true, logy = true, title = "Time per step in contact",
             xlabel = "simulation frequency (Hz)", ylabel = "µs per step",
             series = series(function(s) return s.us_per_contact_step end, 1e-3)},
}

local figures = {seed = t.seed, drops_per_cell = opts.drops, seconds = opts.seconds, wall_seconds = wall,
                 penetration_threshold = opts.penetration, cells = {}, plots = files}
for _, c in ipairs(cells) do
  local e = {method = c.method, hz = c.hz, kappa = c.kappa}
  for k, v in pairs(c.stats) do e[k] = v end
  figures.cells[#figures.cells + 1] = e
end
t:report(figures, function()
  print(string.format("Box drops from random orientations, %d per cell, %g s each (%.3g s wall); failure = "
    .. "penetration > %g m, a non-converged step, or energy above its start", opts.drops, opts.seconds, wall,
    opts.penetration))
  local rows = {}
  for _, c in ipairs(cells) do
    local s = c.stats
    rows[#rows + 1] = {c.method, c.kappa and string.format("%g", c.kappa) or "-", c.hz, s.failures,
                       s.penetration_failures, s.divergence_failures, s.energy_failures, s.max_penetration,
                       s.max_energy_gain, s.us_per_contact_step, s.iterations_per_step, s.max_iterations}
  end
  print(task.format_table({"method", "kappa", "Hz", "failed", "pen.", "not conv.", "energy",
                           "max pen. (m)", "max E gain (J)", "µs/step", "iter/step", "max iter"}, rows))
  print("plots: " .. table.concat(files, ", "))
end)
