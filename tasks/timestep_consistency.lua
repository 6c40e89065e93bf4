-- Time-step self-consistency (Le Lidec et al., Fig. 15): the dragged cube (force 0 -> 20 N over
-- 1 s, stick then slide) is simulated with a reference step (1e-5 s) and with larger steps, per
-- contact model:solver; the error is the mean distance between the cube's positions and the
-- reference's at the coarse step's sample times, and the mean |E - E_ref| of the mechanical
-- energy.
local lucid = require "lucid"
local task = require "lucid.task"
local plot = require "lucid.plot"

-- The coarse time steps compared with the reference, and the reference's sampling period,
-- which every coarse step is a multiple of (so that both runs sample the same times).
local STEPS = {1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4}
local FINEST = 1e-4

-- nil when the reference step divides FINEST (to 1e-9 relative), else why not.
local function divides_finest(dt)
  local k = FINEST / dt
  if math.abs(k - math.floor(k + 0.5)) > 1e-9 * k then
    return string.format("must divide %g s (%g / %g = %.4g)", FINEST, FINEST, dt, k)
  end
end

local t = task.new{
  name = "timestep_consistency",
  summary = "Dragged cube at several time steps against a 1e-5 s reference (Fig. 15).",
  options = {
    {name = "reference", kind = "number", default = 1e-5, positive = true, max = FINEST,
     check = divides_finest, help = "reference time step (s), dividing 1e-4"},
    {name = "horizon", kind = "number", default = 1.0, min = STEPS[1], max = 1000,
     help = "simulated time (s; at least the largest compared step)"},
    {name = "pairs", kind = "string", default = "ncp:pgs,ncp:admm,ccp:pgs,ccp:admm,lcp:pgs",
     check = task.check_pairs,
     help = "comma-separated model:solver pairs (raisim:bisection is slow at the reference step)"},
    {name = "out", kind = "string", default = "out/timestep_consistency", help = "directory of the SVG plots"},
    task.replay_option("the reference run of the first pair"),
  },
}
local opts = t:parse(arg)
local MU, M, REST = 0.4, 1.0, 0.1 - 0.5e-4
local pairs_list = {}
for pair in opts.pairs:gmatch("[^,]+") do pairs_list[#pairs_list + 1] = pair end

-- Positions and energies every `every` steps (so that every run samples the same times).
local replay = opts.replay -- the first run (the reference of the first pair) is recorded

local function run(pair, dt, sample_dt, bar)
  local model, solver = pair:match("(%w+):(%w+)")
  local w = lucid.world{dt = dt, contact = {model = model, solver = solver, tol = 1e-6, max_iter = 1000}}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = MU}
  local id = w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = M, friction = MU,
                        pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, REST})}
  local rec = t:record(w, replay, dt)
  local every = math.floor(sample_dt / dt + 0.5)
  local n = math.floor(opts.horizon / dt + 0.5)
  local samples = {}
  for k = 1, n do
    w:apply_force(id, {20 * math.min((k - 1) * dt, 1), 0, 0})
    w:step()
    if k % every == 0 then
      local e = w:energy()
      samples[#samples + 1] = {x = w:pose(id):translation(), e = e.kinetic + e.potential}
    end
    if bar and k % 1000 == 0 then bar:step(1000) end
  end
  t:write_replay(rec, replay, string.format("time-step consistency, %s, dt = %g s", pair, dt))
  replay = nil
  return samples
end

local function error_between(a, b, stride)
  local dx, de, count = 0, 0, 0
  for i = 1, #a do
    local r = b[i * stride]
    if r then
      dx, de, count = dx + (a[i].x - r.x):norm(), de + math.abs(a[i].e - r.e), count + 1
    end
  end
  return dx / count, de / count
end

local reference_steps = math.floor(opts.horizon / opts.reference + 0.5)
local bar = t:progress(#pairs_list * reference_steps, "reference runs")
local result = {}
for _, pair in ipairs(pairs_list) do
  -- the reference sampled every FINEST s, which divides every coarse step; they stride into it
  local ref = run(pair, opts.reference, FINEST, bar)
  result[pair] = {}
  for i, dt in ipairs(STEPS) do
    local samples = run(pair, dt, dt)
    local ex, ee = error_between(samples, ref, math.floor(dt / FINEST + 0.5))
    result[pair][i] = {dt = dt, position_error = ex, energy_error = ee}
  end
end
bar:done()

os.execute("mkdir -p '" .. opts.out .. "'")
local pos, energy = {}, {}
for _, pair in ipairs(pairs_list) do
  local x, y, z = {}, {}, {}
  for i, r in ipairs(result[pair]) do x[i], y[i], z[i] = r.dt, r.position_error, r.energy_error end
  pos[#pos + 1] = {name = pair, x = x, y = y}
  energy[#energy + 1] = {name = pair, x = x, y = z}
end
local files = {
  plot.lines{file = opts.out .. "/position_error.svg", logx = true, logy = true, title = "Dragged cube: state consistency (Fig. 15)",
             xlabel = "dt (s)", ylabel = "mean |x - x_ref| (m)", series = pos},
  plot.lines{file = opts.out .. "/energy_error.svg", logx = true, logy = true, title = "Dragged cube: energy consistency (Fig. 15)",
             xlabel = "dt (s)", ylabel = "mean |E - E_ref| (J)", series = energy},
}
local figures = {seed = t.seed, reference = opts.reference, horizon = opts.horizon, solvers = result, plots = files}
t:report(figures, function()
  print(string.format("Dragged cube over %g s against a dt = %g s reference: mean position error (m)",
    opts.horizon, opts.reference))
  local header, rows = {"model:solver"}, {}
  for _, dt in ipairs(STEPS) do header[#header + 1] = string.format("dt=%g", dt) end
  for _, pair in ipairs(pairs_list) do
    local row = {pair}
    for i = 1, #STEPS do row[#row + 1] = result[pair][i].position_error end
    rows[#rows + 1] = row
  end
  print(task.format_table(header, rows))
  print("mean energy error (J)")
  rows = {}
  for _, pair in ipairs(pairs_list) do
    local row = {pair}
    for i = 1, #STEPS do row[#row + 1] = result[pair][i].energy_error end
    rows[#rows + 1] = row
  end
  print(task.format_table(header, rows))
  print("plots: " .. table.concat(files, ", "))
end)
