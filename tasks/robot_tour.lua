-- A tour of a robot model: load it (MJCF or URDF, --model; the default is lucid's own 3-joint
-- arm beside a box, tasks/models/arm3.xml), print its joints and actuators, and simulate it
-- on a floor with its position servos swept through their ranges (or its torque motors
-- driven by a small sinusoid), reporting contacts, the NCP residual of the contact solves and
-- the energy. `--replay FILE.html` writes a browser replay of the run.
local lucid = require "lucid"
local task = require "lucid.task"

local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."

local t = task.new{
  name = "robot_tour",
  summary = "Load a robot (MJCF or URDF), print its joints, simulate it on a floor.",
  options = {
    {name = "model", kind = "string", default = here .. "/models/arm3.xml", file = true,
     help = "the model file (.xml MJCF or .urdf)"},
    {name = "seconds", kind = "number", default = 3, positive = true, max = 1000,
     check = function(s, values) -- steps: floor(seconds / dt + 0.5)
       return s / values.dt < 0.5 and string.format("less than one step of --dt %g", values.dt) or nil
     end,
     help = "simulated time (s)"},
    {name = "dt", kind = "number", default = 0.002, positive = true, max = 0.1,
     help = "time step (s)"},
    {name = "floor", kind = "number", default = 0, help = "height of the floor added when the model has none (m)"},
    {name = "package-dir", kind = "string", default = "", help = "URDF package:// folder"},
    {name = "grasp", kind = "flag",
     help = "instead of sweeping, close the hand after 0.5 s: servos on joints whose range is not symmetric about 0 go to 75% of it, the others to 0; reports how far each free body moves in the last 2 s"},
    task.replay_option("the simulation"),
  },
}
local opts = t:parse(arg)

local load_opts = {meshes = "skip"}
if opts["package-dir"] ~= "" then load_opts.package_dirs = {opts["package-dir"]} end
local ok, m = pcall(lucid.model.load, opts.model, load_opts)
if not ok then
  io.stderr:write("robot_tour: ", tostring(m), "\n")
  os.exit(2)
end

local w = lucid.world{dt = opts.dt}
-- a floor unless the model brings its own static shapes (MJCF worldbody geoms)
local id = w:add_model(m)
local has_static = w:links(id).static ~= nil
if not has_static then
  w:add_static{shape = lucid.halfspace({0, 0, 1}, opts.floor)}
end

-- Targets: position servos sweep between 30% and 70% of their joint range; motors get a
-- small sinusoid. Each actuator's joint is found by name.
local joints, by_name = m:joints(), {}
for _, j in ipairs(joints) do by_name[j.name] = j end
local lower, upper = m:limits()
local actuators = m:names("actuator")
local function controls(time)
  local u = {}
  for a = 1, m.nu do
    local phase = 2 * math.pi * (time / 2 + a / m.nu)
    u[a] = 0.2 * math.sin(phase)
  end
  return u
end
-- position servos: the mid range when limited
local info = {}
for a, name in ipairs(actuators) do
  local j = by_name[name]
  info[a] = j and {lo = lower[j.idx_q], hi = upper[j.idx_q]} or nil
end
local function grasp_targets(time)
  local u = {}
  for a = 1, m.nu do
    local r = info[a]
    u[a] = 0
    if time > 0.5 and r and r.lo > -math.huge and r.hi < math.huge and math.abs(r.lo + r.hi) > 1e-9 then
      u[a] = r.lo + 0.75 * (r.hi - r.lo)
    end
  end
  return u
end

local function targets(time)
  if opts.grasp then return grasp_targets(time) end
  local u = controls(time)
  for a = 1, m.nu do
    local r = info[a]
    if r and r.lo > -math.huge and r.hi < math.huge then
      local s = 0.5 + 0.2 * math.sin(2 * math.pi * (time / 2 + a / m.nu))
      u[a] = r.lo + s * (r.hi - r.lo)
    end
  end
  return u
end

local rec = t:record(w, opts.replay, opts.dt)
local steps = math.floor(opts.seconds / opts.dt + 0.5)
local bar = t:progress(steps, "simulating " .. (m.name ~= "" and m.name or "the model"))
local worst_residual, max_contacts = 0, 0
local start, cpu_start = lucid.clock(), lucid.cpu_clock()
local limit_steps, limit_contacts = 0, 0 -- steps with a joint-limit contact; those contacts
local e0 = w:energy()
local links = w:links(id)
local free_bodies = {} -- bodies on a free joint (a cube in a hand): watched in the last 2 s
for _, j in ipairs(joints) do
  if j.kind == "free" then free_bodies[#free_bodies + 1] = {name = j.body, id = links[j.body]} end
end
local watch_from = math.max(1, steps - math.floor(2 / opts.dt + 0.5))
for k = 1, steps do
  if k == watch_from then
    for _, f in ipairs(free_bodies) do f.start = w:pose(f.id):translation() end
  end
  w:set_control(id, targets(k * opts.dt))
  w:step()
  local st = w:stats()
  worst_residual = math.max(worst_residual, st.residual)
  local cs = w:contacts()
  max_contacts = math.max(max_contacts, #cs)
  local at_limit = 0
  for _, c in ipairs(cs) do if c.limit then at_limit = at_limit + 1 end end
  limit_contacts = limit_contacts + at_limit
  if at_limit > 0 then limit_steps = limit_steps + 1 end
  bar:step()
end
bar:done()
local cpu = lucid.cpu_clock() - cpu_start
local wall = lucid.clock() - start
t:write_replay(rec, opts.replay, "robot tour: " .. opts.model)
local e1 = w:energy()
local moved = {}
for _, f in ipairs(free_bodies) do
  moved[f.name] = (w:pose(f.id):translation() - f.start):norm()
end

local joint_rows = {}
for _, j in ipairs(joints) do
  local lo, hi = "", ""
  if j.nq == 1 then lo, hi = lower[j.idx_q], upper[j.idx_q] end
  joint_rows[#joint_rows + 1] = {j.name, j.kind, j.body, j.nq, j.nv, lo, hi}
end
local figures = {
  summary = {ms_per_step = 1e3 * cpu / steps, max_contacts = max_contacts,
             worst_ncp_residual = worst_residual},
  model = opts.model, nq = m.nq, nv = m.nv, nu = m.nu, nbodies = m.nbodies, mass = m:mass(),
  steps = steps, dt = opts.dt, wall_seconds = wall, cpu_seconds = cpu, ms_per_step = 1e3 * cpu / steps,
  max_contacts = max_contacts, worst_ncp_residual = worst_residual, limit_contact_steps = limit_steps,
  limit_contacts = limit_contacts,
  energy_start = e0.kinetic + e0.potential, energy_end = e1.kinetic + e1.potential,
  final_q = w:q(id):totable(), actuators = actuators, free_body_motion_last_2s = moved,
}
t:report(figures, function()
  print(string.format("%s: nq %d, nv %d, %d actuators, %d bodies, %.3f kg", opts.model, m.nq,
    m.nv, m.nu, m.nbodies, m:mass()))
  print(task.format_table({"joint", "kind", "body", "nq", "nv", "lower", "upper"}, joint_rows))
  print(string.format("simulated %g s in %d steps of %g s: %.3f ms per step (CPU)", opts.seconds,
    steps, opts.dt, figures.ms_per_step))
  print(string.format("contacts: up to %d at once; joint-limit contacts in %d of %d steps (%d in all); "
    .. "worst NCP residual %.2e", max_contacts, limit_steps, steps, limit_contacts, worst_residual))
  print(string.format("energy: %.4f J at the start, %.4f J at the end", figures.energy_start,
    figures.energy_end))
  for _, f in ipairs(free_bodies) do
    print(string.format("free body %s moved %.3g m in the last %.3g s", f.name, moved[f.name],
      (steps - watch_from + 1) * opts.dt))
  end
end)
