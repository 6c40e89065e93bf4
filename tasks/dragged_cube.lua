-- The dragged cube of Le Lidec et al. (Figs. 11-12): a 1 kg cube of side 0.2 m (mu 0.4) on a
-- plane, pulled along x by a force growing from 0 to 20 N over 1 s. It sticks until the force
-- reaches mu m g (t* = mu m g / 20), then slides with v = 10 (t - t*)^2. At stiction the four
-- contact forces are not unique: per-contact solvers (PGS, RaiSim) leave internal tangential
-- forces across the drag (y), which sum to zero and only stretch the cube; ADMM does not.
local lucid = require "lucid"
local task = require "lucid.task"
local plot = require "lucid.plot"

local t = task.new{
  name = "dragged_cube",
  summary = "Cube dragged by a force growing 0 -> 20 N over 1 s: stick, slide, internal forces (Figs. 11-12).",
  options = {
    {name = "dt", kind = "number", default = 1e-3, positive = true, max = 0.1, help = "time step (s)"},
    {name = "out", kind = "string", default = "out/dragged_cube", help = "directory of the SVG plots"},
    task.replay_option("the ncp:pgs run"),
  },
}
local opts = t:parse(arg)
local MU, G, M, REST = 0.4, 9.81, 1.0, 0.1 - 0.5e-4
local ONSET = MU * M * G / 20
local PAIRS = {"ncp:pgs", "ncp:admm", "ncp:staggered", "lcp:pgs", "ccp:pgs", "ccp:admm",
               "ccp:newton", "raisim:bisection"}

local function run(pair, dt)
  local model, solver = pair:match("(%w+):(%w+)")
  local w = lucid.world{dt = dt, contact = {model = model, solver = solver, tol = 1e-6, max_iter = 1000}}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = MU}
  local id = w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = M, friction = MU,
                        pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, REST})}
  local rec = pair == "ncp:pgs" and t:record(w, opts.replay, dt) or nil
  local r = {time = {}, v = {}, fy = {{}, {}, {}, {}}, internal = 0}
  for k = 1, math.floor(1 / dt + 0.5) do
    w:apply_force(id, {20 * (k - 1) * dt, 0, 0})
    w:step()
    r.time[k], r.v[k] = k * dt, w:velocity(id)[1]
    if not r.onset and r.v[k] > 1e-6 then r.onset = k * dt end
    local s, cs = 0, w:contacts()
    -- contacts in a fixed order (by corner), so each curve follows one corner
    table.sort(cs, function(a, b)
      if a.point[1] ~= b.point[1] then return a.point[1] < b.point[1] end
      return a.point[2] < b.point[2]
    end)
    for i = 1, 4 do
      local fy = cs[i] and cs[i].force[2] or 0
      r.fy[i][k] = fy
      s = s + math.abs(fy)
    end
    if not r.onset then r.internal = math.max(r.internal, s) end
  end
  r.v_end = r.v[#r.v]
  t:write_replay(rec, opts.replay, "dragged cube, " .. pair)
  return r
end

local bar = t:progress(#PAIRS, "dragged cubes")
local results = {}
for _, pair in ipairs(PAIRS) do
  results[pair] = run(pair, opts.dt)
  bar:step()
end
bar:done()

os.execute("mkdir -p '" .. opts.out .. "'")
local velocity = {}
for _, pair in ipairs(PAIRS) do velocity[#velocity + 1] = {name = pair, x = results[pair].time, y = results[pair].v} end
local exact = {}
for k, tk in ipairs(results["ncp:pgs"].time) do exact[k] = tk > ONSET and 10 * (tk - ONSET) ^ 2 or 0 end
velocity[#velocity + 1] = {name = "Coulomb", x = results["ncp:pgs"].time, y = exact}
local files = {plot.lines{file = opts.out .. "/velocity.svg", title = "Dragged cube: velocity (Fig. 12 left)",
                          xlabel = "t (s)", ylabel = "v_x (m/s)", series = velocity}}
for _, pair in ipairs{"ncp:pgs", "raisim:bisection", "ncp:admm"} do
  local series = {}
  for i = 1, 4 do series[i] = {name = "contact " .. i, x = results[pair].time, y = results[pair].fy[i]} end
  files[#files + 1] = plot.lines{file = opts.out .. "/internal_" .. pair:gsub(":", "_") .. ".svg",
                                 title = pair .. ": y forces of the 4 contacts (Fig. 12 right)",
                                 xlabel = "t (s)", ylabel = "f_y (N)", series = series}
end

local figures = {seed = t.seed, dt = opts.dt, expected_onset = ONSET, expected_v_end = 10 * (1 - ONSET) ^ 2,
                 solvers = {}, plots = files}
for _, pair in ipairs(PAIRS) do
  local r = results[pair]
  figures.solvers[pair] = {onset = r.onset, v_end = r.v_end, internal_force = r.internal}
end
t:report(figures, function()
  print(string.format("Dragged cube, dt = %g s: slides at t* = mu m g / 20 = %.4f s, v(1 s) = %.4f m/s",
    opts.dt, ONSET, figures.expected_v_end))
  local rows = {}
  for _, pair in ipairs(PAIRS) do
    local r = figures.solvers[pair]
    rows[#rows + 1] = {pair, r.onset or -1, r.v_end, r.internal_force}
  end
  print(task.format_table({"model:solver", "slides at (s)", "v(1 s) (m/s)",
                           "internal y force at stiction (N)"}, rows))
  print("plots: " .. table.concat(files, ", "))
end)
