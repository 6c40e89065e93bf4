-- Face-to-face robustness (Silico, Sec. V-VI, Figs. 6-10): a box dropped flat on the ground and
-- stacks of 2 to 4 blocks (0.4 x 0.3 x 0.1 m, 2 to 5 kg; each shifted 2 cm along x and turned
-- 0.1 rad about z from the one below, so faces overlap partly) dropped 1 cm apart must come to rest
-- and stay still: after a 0.3 s landing, over --seconds, the largest drift of any block from
-- where it was, the largest velocity component (jitter), the tilt 1 - R_zz, and the contacts.
local lucid = require "lucid"
local task = require "lucid.task"
local plot = require "lucid.plot"

local DT = 1e-3 -- the simulation's time step (s)
local t = task.new{
  name = "face_to_face",
  summary = "Boxes dropped flat and stacks of 2-4 blocks: drift and jitter at rest (Silico Figs. 6-10).",
  options = {
    {name = "seconds", kind = "number", default = 2.0, min = DT, max = 1000, help = "time watched after landing (s; at least one step)"},
    {name = "pairs", kind = "string", default = "ncp:admm,ncp:staggered,ncp:pgs,ccp:newton,raisim:bisection",
     check = task.check_pairs,
     help = "comma-separated model:solver pairs"},
    {name = "out", kind = "string", default = "out/face_to_face", help = "directory of the SVG plots"},
    task.replay_option("the 4-block stack of the first pair"),
    {name = "patch-points", kind = "integer", default = 4,
     check = task.world_check(function(k) return {patch_points = k} end),
     help = "contact points kept per shape pair (1-16)"},
  },
}
local opts = t:parse(arg)
local pairs_list = {}
for pair in opts.pairs:gmatch("[^,]+") do pairs_list[#pairs_list + 1] = pair end

local function run(pair, count, bar)
  local model, solver = pair:match("(%w+):(%w+)")
  local w = lucid.world{dt = DT, patch_points = opts["patch-points"],
                        contact = {model = model, solver = solver, tol = 1e-6, max_iter = 1000}}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  local ids = {}
  for k = 1, count do
    ids[k] = w:add_body{shape = lucid.box(0.2, 0.15, 0.05), mass = 1 + k, friction = 0.5,
                        pose = lucid.se3.exp{0.02 * (k - 1), 0, 0.05 + 0.1 * (k - 1) + 0.01 * k, 0, 0, 0.1 * (k - 1)}}
  end
  local rec = pair == pairs_list[1] and count == 4 and t:record(w, opts.replay, DT) or nil
  w:step(300)
  local start = {}
  for k, id in ipairs(ids) do start[k] = w:pose(id):translation() end
  local r = {drift = 0, speed = 0, tilt = 0, converged = 0, time = {}, jitter = {}, min_contacts = math.huge}
  local n = math.floor(opts.seconds / DT + 0.5)
  for i = 1, n do
    w:step()
    local step_speed = 0
    for k, id in ipairs(ids) do
      local T, v = w:pose(id), w:velocity(id)
      r.drift = math.max(r.drift, (T:translation() - start[k]):norm())
      for j = 1, 6 do step_speed = math.max(step_speed, math.abs(v[j])) end
      r.tilt = math.max(r.tilt, 1 - T:rotation():get(3, 3))
    end
    local s = w:stats()
    r.speed = math.max(r.speed, step_speed)
    r.converged = r.converged + (s.converged and 1 or 0)
    r.min_contacts = math.min(r.min_contacts, s.contacts)
    if i % 10 == 0 then r.time[#r.time + 1], r.jitter[#r.jitter + 1] = i * DT, math.max(step_speed, 1e-16) end
    if i % 100 == 0 then bar:step() end
  end
  r.converged = r.converged / n
  t:write_replay(rec, opts.replay, string.format("face to face, %d blocks, %s", count, pair))
  return r
end

local bar = t:progress(#pairs_list * 4 * math.floor(opts.seconds / DT / 100), "resting blocks")
local result = {}
for _, pair in ipairs(pairs_list) do
  result[pair] = {}
  for count = 1, 4 do result[pair][count] = run(pair, count, bar) end
end
bar:done()

os.execute("mkdir -p '" .. opts.out .. "'")
local series = {}
for _, pair in ipairs(pairs_list) do
  local r = result[pair][4]
  series[#series + 1] = {name = pair, x = r.time, y = r.jitter}
end
local files = {plot.lines{file = opts.out .. "/jitter_stack4.svg", logy = true,
                          title = "Stack of 4 blocks: largest velocity component", xlabel = "t (s)",
                          ylabel = "max |v| (m/s, rad/s)", series = series}}
local figures = {seed = t.seed, seconds = opts.seconds, solvers = {}, plots = files}
for _, pair in ipairs(pairs_list) do
  figures.solvers[pair] = {}
  for count = 1, 4 do
    local r = result[pair][count]
    figures.solvers[pair][count] = {drift = r.drift, max_speed = r.speed, tilt = r.tilt,
                                    converged_share = r.converged, min_contacts = r.min_contacts}
  end
end
t:report(figures, function()
  print(string.format("Blocks resting face to face, watched %g s after landing (tolerances of the test: "
    .. "drift < 1e-6 m, |v| < 1e-5, tilt < 1e-9)", opts.seconds))
  local rows = {}
  for _, pair in ipairs(pairs_list) do
    for count = 1, 4 do
      local r = figures.solvers[pair][count]
      rows[#rows + 1] = {pair, count, r.drift, r.max_speed, r.tilt, r.min_contacts, r.converged_share}
    end
  end
  print(task.format_table({"model:solver", "blocks", "drift (m)", "max |v|", "tilt", "contacts",
                           "converged share"}, rows))
  print("plots: " .. table.concat(files, ", "))
end)
