-- tasks/sysid.lua end to end: mass, friction and restitution recovered within 2 % in fewer
-- than 20 iterations on a fixed seed (noise 1 mm / 1 mrad); parameters the data cannot
-- determine are flagged (no number); the arm's link masses and damping; the MuJoCo
-- cross-check when MuJoCo is available; the --help / --json contract and bad input.
local t = require "testing"
local json = require "lucid.json"

local interpreter = arg[-1]

local function run(args, stderr)
  local cmd = string.format("'%s' tasks/sysid.lua %s --plot '' 2>%s", interpreter, args,
                            stderr and "&1" or "/dev/null")
  local pipe = assert(io.popen(cmd))
  local out = pipe:read("a")
  local _, _, code = pipe:close()
  return out, code
end

local function by_name(r)
  local out = {}
  for _, p in ipairs(r.parameters) do out[p.parameter] = p end
  return out
end

t.case("object: mass, mu and e within 2 % in < 20 iterations (seed 1, implicit)", function()
  local out, code = run("--problem object --seed 1 --method implicit --json")
  t.eq(code, 0, "exit code")
  local r = json.decode(out)
  local p = by_name(r)
  for _, name in ipairs({"mass", "friction", "restitution"}) do
    t.truthy(p[name].identifiable, name .. " identifiable")
    t.truthy(p[name].relative_error < 0.02,
             string.format("%s: estimate %.5g, truth %.5g", name, p[name].estimate, p[name].truth))
    t.truthy(p[name].std > 0 and p[name].std < 0.02 * p[name].truth, name .. " std")
  end
  t.truthy(r.best.iterations < 20, "iterations " .. r.best.iterations)
  -- the noise model is right: the reduced chi-square is ~1 at the estimate
  t.truthy(r.best.reduced_chi2 > 0.8 and r.best.reduced_chi2 < 1.25, "reduced chi2")
  t.truthy(r.summary.friction_relative_error < 0.02, "summary")
end)

t.case("object: what the data cannot determine is flagged", function()
  -- pushed only: nothing bounces, so e is not excited
  local r = json.decode((run("--data push --seed 2 --guesses 1 --json")))
  local p = by_name(r)
  t.eq(p.restitution.identifiable, false, "e without impacts")
  t.eq(p.restitution.estimate, nil, "no number for e")
  t.eq(p.friction.identifiable, true, "mu from the slide")
  -- dropped flat: nothing slides (mu) and no known force acts (mass: scale invariance)
  local d = by_name(json.decode((run("--data drop --seed 2 --guesses 1 --json"))))
  t.eq(d.friction.identifiable, false, "mu without sliding")
  t.eq(d.mass.identifiable, false, "mass without a known force")
  t.eq(d.restitution.identifiable, true, "e from the bounce")
end)

-- armature: issue 35 asks 25 %; seeds 0-9 measured at most 1.8 % (frictionloss 5.7 %)
t.case("robot: link masses and joint damping within 2 %, friction loss 10 %, armature 5 %",
       function()
  local out, code = run("--problem robot --seed 1 --guesses 2 --json")
  t.eq(code, 0)
  local r = json.decode(out)
  t.eq(r.method, "implicit") -- mass, damping, frictionloss, armature by w:step_derivatives
  t.eq(#r.parameters, 12)
  local bounds = {frictionloss = 0.1, armature = 0.05}
  for _, p in ipairs(r.parameters) do
    local bound = bounds[p.parameter:match("(%a+)$")] or 0.02
    t.truthy(p.identifiable and p.relative_error < bound, p.parameter)
  end
end)

t.case("cross: lucid identifies MuJoCo's box (skipped without MuJoCo)", function()
  local out, code = run("--problem cross --seed 1 --guesses 2 --json")
  if code == 77 then t.skip("MuJoCo trajectory generator unavailable") end
  t.eq(code, 0)
  local r = json.decode(out)
  local p = by_name(r)
  -- two different contact models: agreement to a few percent, not to the noise level
  t.truthy(p.mass.identifiable and p.mass.relative_error < 0.05, "mass vs MuJoCo's")
  t.truthy(p.friction.identifiable and p.friction.relative_error < 0.05, "mu vs MuJoCo's")
  t.truthy(r.residual.rms_position_mm > 0 and r.residual.rms_position_mm < 10, "residual left")
end)

t.case("--help and bad input", function()
  local out, code = run("--help")
  t.eq(code, 0)
  t.truthy(out:find("--problem", 1, true) and out:find("restitution", 1, true), "usage")
  local msg, bad = run("--problem spin", true)
  t.eq(bad, 2)
  t.truthy(msg:find("--problem must be one of object, robot, cross", 1, true), msg)
  local msg2, bad2 = run("--data fly", true)
  t.eq(bad2, 2)
  t.truthy(msg2:find("unknown trajectory 'fly'", 1, true), msg2)
  local msg3, bad3 = run("--method guess", true)
  t.eq(bad3, 2)
  t.truthy(msg3:find("--method: must be implicit or finite_differences", 1, true), msg3)
end)
