-- The sliding cube of Le Lidec et al. (Figs. 9-10): a 1 kg cube of side 0.2 m (mu 0.4) is
-- launched at v0 along a heading on a plane, once per contact model:solver. NCP stops it after
-- v0^2/(2 mu g) on a straight line, on the analytic energy curve 1/2 m (v0 - mu g t)^2; the
-- LCP pyramid pulls a diagonal launch towards its facets; CCP lifts off, then glides at a
-- height dt mu |v| (Eq. 19, measured at dt and 2 dt).
local lucid = require "lucid"
local task = require "lucid.task"
local plot = require "lucid.plot"

local t = task.new{
  name = "sliding_cube",
  summary = "Cube launched sliding on a plane, per contact model and solver (paper Figs. 9-10, Eq. 19).",
  options = {
    {name = "v0", kind = "number", default = 1.5, positive = true, max = 100, help = "launch speed (m/s)"},
    {name = "angle", kind = "number", default = 0.3, help = "launch heading from the x axis (rad)"},
    {name = "dt", kind = "number", default = 1e-3, positive = true, max = 0.1, help = "time step (s)"},
    {name = "out", kind = "string", default = "out/sliding_cube", help = "directory of the SVG plots"},
    task.replay_option("the first run (ncp:pgs)"),
  },
}
local opts = t:parse(arg)
local MU, G, M, REST = 0.4, 9.81, 1.0, 0.1 - 0.5e-4
local PAIRS = {"ncp:pgs", "ncp:admm", "ncp:staggered", "lcp:pgs", "ccp:pgs", "ccp:admm",
               "ccp:newton", "raisim:bisection"}

local replay = opts.replay -- the first run is recorded

local function run(pair, dt, v0, angle, seconds)
  local model, solver = pair:match("(%w+):(%w+)")
  local w = lucid.world{dt = dt, contact = {model = model, solver = solver, tol = 1e-6, max_iter = 1000}}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = MU}
  local id = w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = M, friction = MU,
                        pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, REST}),
                        velocity = {v0 * math.cos(angle), v0 * math.sin(angle), 0, 0, 0, 0}}
  local rec = t:record(w, replay, dt)
  local r = {time = {}, x = {}, y = {}, lift = {}, energy = {}, glide_error = 0}
  for k = 1, math.floor(seconds / dt + 0.5) do
    w:step()
    local p, v = w:pose(id):translation(), w:velocity(id)
    local speed = math.sqrt(v[1] ^ 2 + v[2] ^ 2)
    r.time[k], r.x[k], r.y[k], r.lift[k] = k * dt, p[1], p[2], p[3] - REST
    r.energy[k] = w:energy().kinetic
    if k * dt > 0.15 and speed > 0.2 then -- Eq. 19 once the initial bounce has decayed
      r.glide_error = math.max(r.glide_error, math.abs(r.lift[k] - dt * MU * speed) / (dt * MU * speed))
    end
  end
  t:write_replay(rec, replay, "sliding cube, " .. pair)
  replay = nil
  local n = #r.x
  r.distance = math.sqrt(r.x[n] ^ 2 + r.y[n] ^ 2)
  r.heading = math.atan(r.y[n], r.x[n])
  r.max_lift = 0
  for k = 1, n do r.max_lift = math.max(r.max_lift, r.lift[k]) end
  r.energy_error = 0
  for k = 1, n do
    local s = math.max(opts.v0 - MU * G * r.time[k], 0)
    r.energy_error = math.max(r.energy_error, math.abs(r.energy[k] - 0.5 * M * s * s))
  end
  return r
end

local seconds = opts.v0 / (MU * G) + 0.1
local bar = t:progress(#PAIRS + 2, "sliding cubes")
local results = {}
for _, pair in ipairs(PAIRS) do
  results[pair] = run(pair, opts.dt, opts.v0, opts.angle, seconds)
  bar:step()
end
-- Eq. 19 at two time steps, launched along x
local glide = {}
for i, dt in ipairs{opts.dt, 2 * opts.dt} do
  local r = run("ccp:admm", dt, opts.v0, 0, seconds)
  glide[i] = {dt = dt, worst_relative_error = r.glide_error, max_lift = r.max_lift}
  bar:step()
end
bar:done()

os.execute("mkdir -p '" .. opts.out .. "'")
local xy, lift, energy = {}, {}, {}
for _, pair in ipairs(PAIRS) do
  local r = results[pair]
  xy[#xy + 1] = {name = pair, x = r.x, y = r.y}
  lift[#lift + 1] = {name = pair, x = r.time, y = r.lift}
  energy[#energy + 1] = {name = pair, x = r.time, y = r.energy}
end
local analytic = {}
for k, tk in ipairs(results["ncp:pgs"].time) do
  local s = math.max(opts.v0 - MU * G * tk, 0)
  analytic[k] = 0.5 * M * s * s
end
energy[#energy + 1] = {name = "analytic", x = results["ncp:pgs"].time, y = analytic}
local files = {
  plot.lines{file = opts.out .. "/trajectory.svg", title = "Sliding cube: trajectory (Fig. 9)",
             xlabel = "x (m)", ylabel = "y (m)", series = xy},
  plot.lines{file = opts.out .. "/height.svg", title = "Sliding cube: height above rest (Fig. 10 left)",
             xlabel = "t (s)", ylabel = "z - z_rest (m)", series = lift},
  plot.lines{file = opts.out .. "/energy.svg", title = "Sliding cube: kinetic energy (Fig. 10 right)",
             xlabel = "t (s)", ylabel = "E (J)", series = energy},
}

local figures = {seed = t.seed, v0 = opts.v0, angle = opts.angle, dt = opts.dt,
                 expected_distance = opts.v0 ^ 2 / (2 * MU * G), solvers = {}, eq19 = glide,
                 plots = files}
for _, pair in ipairs(PAIRS) do
  local r = results[pair]
  figures.solvers[pair] = {distance = r.distance, heading = r.heading, max_lift = r.max_lift,
                           max_energy_error = r.energy_error}
end
t:report(figures, function()
  print(string.format("Sliding cube, v0 = %.2f m/s at %.2f rad, dt = %g s: expected stop after %.4f m",
    opts.v0, opts.angle, opts.dt, figures.expected_distance))
  local rows = {}
  for _, pair in ipairs(PAIRS) do
    local r = figures.solvers[pair]
    rows[#rows + 1] = {pair, r.distance, r.heading - opts.angle, r.max_lift, r.max_energy_error}
  end
  print(task.format_table({"model:solver", "distance (m)", "heading error (rad)", "max lift (m)",
                           "max |E - E_analytic| (J)"}, rows))
  print("CCP glide height against Eq. 19 (dt mu |v|), launched along x:")
  for _, g in ipairs(glide) do
    print(string.format("  dt = %g s: worst relative error %.2g %%, max lift %.3g m", g.dt,
      100 * g.worst_relative_error, g.max_lift))
  end
  print("plots: " .. table.concat(files, ", "))
end)
