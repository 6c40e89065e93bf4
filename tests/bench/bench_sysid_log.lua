-- Cost of lucid.sysid's identification on issue 35's benchmark size: 30 s of a 500 Hz log on a
-- 7-dof arm (tasks/models/arm7.xml without its free box). The log is synthetic (lucid's own
-- regressor at a perturbed truth with damping, friction and armature, torque noise 0.02 N m;
-- only q and tau written, so v and a come from the filter), because the timing, not the
-- accuracy, is measured here (tests/lua/test_sysid_log.lua checks accuracy against MuJoCo).
-- Prints the CPU seconds of reading + filtering, accumulating the normal equations and the
-- constrained solve, with the given friction model (default mujoco, the task's).
--   build/lucid tests/bench/bench_sysid_log.lua [SECONDS [FRICTION_MODEL]]   (30, mujoco)
local lucid = require "lucid"
local sysid = require "lucid.sysid"

local seconds = tonumber(arg[1] or 30)
local friction_model = arg[2] or "mujoco"
local rate = 500
local f = assert(io.open("tasks/models/arm7.xml"))
local text = f:read("a"):gsub('<body name="box".-</body>', "")
f:close()
local m = lucid.model.load_string(text, {base_dir = "tasks/models"})
assert(m.nv == 7, "seven hinges")

local rng = lucid.rng(1)
local ex = sysid.excite(m, {evaluations = 20, rng = rng})
local ropts = {damping = true, coulomb = true, armature = true, coulomb_smoothing = 0.01}
local truth = lucid.dynamics.inertial_parameters(m, ropts)
for k = 1, 10 * m.nbodies do truth[k] = 1.25 * truth[k] end -- still realisable
for d = 1, m.nv do truth[10 * m.nbodies + m.nv + d] = 0.2 end -- friction
local log_path = os.tmpname() .. ".csv"
f = assert(io.open(log_path, "w"))
local head = {"t"}
for _, kind in ipairs{"q", "tau"} do
  for _, j in ipairs(ex.joints) do head[#head + 1] = kind .. "_" .. j.name end
end
f:write(table.concat(head, ","), "\n")
for k = 0, math.floor(seconds * rate) - 1 do
  local t = k / rate
  local q, v, a = ex.eval(t)
  local tau = lucid.dynamics.regressor(m, q, v, a, ropts) * truth
  local row = {string.format("%.6f", t)}
  for d = 1, m.nv do row[#row + 1] = string.format("%.10g", q[d] + rng:normal(0, 1e-5)) end
  for d = 1, m.nv do row[#row + 1] = string.format("%.7g", tau[d] + rng:normal(0, 0.02)) end
  f:write(table.concat(row, ","), "\n")
end
f:close()

local t0 = os.clock()
local samples = sysid.prepare(sysid.read_log(log_path, m), {cutoff = 10})
local t1 = os.clock()
local est = sysid.identify(m, samples, {coulomb_smoothing = 0.01,
                                       friction_model = friction_model})
local t2 = os.clock()
local st = sysid.accumulate(m, samples, est.ropts)
local t3 = os.clock()
os.remove(log_path)
local rms = sysid.rms(est.stats, est.theta)
local worst = 0
for d = 1, m.nv do worst = math.max(worst, rms[d]) end
print(string.format("bench_sysid_log: %g s at %d Hz, %d dofs, %d samples, %d parameters, "
  .. "rank %d", seconds, rate, m.nv, #samples.t, #est.theta, est.base_parameters.rank))
print(string.format("read + filter %.2f s, identify %.2f s (its accumulation alone %.2f s), %d "
  .. "Gauss-Newton iterations (%s) in the last of %d fits (friction model %s); worst training "
  .. "rms %.3g N m", t1 - t0, t2 - t1, t3 - t2, est.info.iterations, est.info.reason,
  1 + (est.friction_rounds or 0), friction_model, worst))
