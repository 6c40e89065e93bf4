-- tasks/trajopt.lua end to end: a fixed push target is reached (final box error <= 5 mm and
-- <= 2 deg) with the implicit step derivatives; the step-derivative chain's Jacobian agrees
-- with finite differences of whole rollouts; the --help / --json contract; bad input exits 2
-- with a message naming the problem.
local t = require "testing"
local json = require "lucid.json"

local interpreter = arg[-1]
local prefix = os.tmpname()
local model_file = prefix .. "_noactuators.xml"
t.teardown(function()
  os.remove(prefix)
  os.remove(prefix .. "_push_costs.svg")
  os.remove(prefix .. "_push_paths.svg")
  os.remove(model_file)
end)

local function run(args, stderr)
  local cmd = string.format("'%s' tasks/trajopt.lua %s 2>%s", interpreter, args,
                            stderr and "&1" or "/dev/null")
  local pipe = assert(io.popen(cmd))
  local out = pipe:read("a")
  local _, _, code = pipe:close()
  return out, code
end

t.case("a fixed push target is reached with implicit step derivatives", function()
  local out, code = run(string.format("--problem push --targets 1 --seed 5 --methods implicit "
                                      .. "--json --plot '%s'", prefix))
  t.eq(code, 0, "exit code")
  local r = json.decode(out)
  t.eq(r.problem, "push")
  local m = r.methods.implicit
  t.eq(m.targets, 1)
  t.eq(m.successes, 1, "target reached")
  local s = m.per_target[1]
  t.truthy(s.position_error_m <= 5e-3, string.format("position error %.3g m", s.position_error_m))
  t.truthy(s.yaw_error_deg <= 2, string.format("yaw error %.3g deg", s.yaw_error_deg))
  t.truthy(s.iterations <= 50, "iterations")
  -- CPU seconds of the solving thread, within the solve's wall seconds (issue 37)
  t.truthy(s.cpu_seconds > 0 and s.cpu_seconds <= s.seconds,
           string.format("cpu %.4g s, wall %.4g s", s.cpu_seconds, s.seconds))
  t.eq(r.summary.implicit_success_rate, 1)
  t.truthy(type(r.summary.implicit_median_seconds) == "number", "summary has the time")
  -- both plots were written
  for _, what in ipairs({"costs", "paths"}) do
    local f = io.open(r.plots[what])
    t.truthy(f, "plot " .. what)
    local svg = f:read("a")
    f:close()
    t.truthy(svg:find("<svg", 1, true), what .. " is an SVG")
  end
end)

t.case("the step-derivative chain's Jacobian matches finite differences of rollouts", function()
  local out, code = run("--problem push --targets 1 --seed 5 --methods implicit,rollout_fd "
                        .. "--compare-jacobians --json")
  t.eq(code, 0, "exit code")
  local r = json.decode(out)
  local e = r.methods.implicit[1] -- at the nominal controls U0 (smooth: no contact switches)
  t.eq(e.point, "U0")
  t.truthy(e.relative_difference < 1e-3,
           string.format("max |J - J_fd| / max |J_fd| = %.3g", e.relative_difference))
end)

-- issue 37: the default run solved with rollout_fd too (91 s for 2 fingertips targets).
t.case("the finite-difference baseline runs only with --baseline", function()
  local args = "--problem push --targets 1 --seed 5 --iterations 1 --json --plot ''"
  local out, code = run(args)
  t.eq(code, 0, "exit code")
  local r = json.decode(out)
  t.truthy(r.methods.implicit, "implicit by default")
  t.eq(r.methods.rollout_fd, nil, "no rollout_fd by default")
  out, code = run(args .. " --baseline")
  t.eq(code, 0, "exit code")
  r = json.decode(out)
  t.truthy(r.methods.implicit and r.methods.rollout_fd, "--baseline adds rollout_fd")
  t.truthy(r.summary.implicit_speedup_vs_rollout_fd > 0, "speed-up against the baseline")
end)

t.case("--help and bad input", function()
  local out, code = run("--help")
  t.eq(code, 0)
  t.truthy(out:find("--problem", 1, true) and out:find("fingertips", 1, true), "usage text")
  local msg, bad = run("--problem pull", true)
  t.eq(bad, 2, "unknown problem")
  t.truthy(msg:find("must be one of push, fingertips, arm", 1, true), "message: " .. msg)
  local msg2, bad2 = run("--methods implicit,magic --targets 1", true)
  t.eq(bad2, 2, "unknown method")
  t.truthy(msg2:find("unknown method 'magic'", 1, true), "message: " .. msg2)
  -- a model without actuators cannot be the arm
  local f = assert(io.open(model_file, "w"))
  f:write([[<mujoco model="limp"><worldbody><body name="a"><joint name="j" axis="0 1 0"/>
<geom type="capsule" fromto="0 0 0 0 0 0.2" size="0.02"/></body></worldbody></mujoco>]])
  f:close()
  local msg3, bad3 = run(string.format("--problem arm --model '%s' --targets 1", model_file), true)
  t.eq(bad3, 2, "model without actuators")
  t.truthy(msg3:find("has no actuators", 1, true), "message: " .. msg3)
end)
