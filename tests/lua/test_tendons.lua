-- MJCF fixed tendons (docs/model_files.md, docs/world.md): m:tendons() and m:actuators() read
-- the files' tendons (defaults and classes included), a tendon's limit is a world contact naming
-- the tendon, and w:step_derivatives equals central differences of whole steps with tendon
-- springs, dampers and actuators in free motion and with limited tendons held at their bounds.
-- The comparisons with MuJoCo 2.2.2 are tests/c/test_mjcf_tendons.c.
local t = require "testing"
local lucid = require "lucid"

local SPRING = "tests/data/model/mjcf_tendon_spring.xml"
local LIMIT = "tests/data/model/mjcf_tendon_limit.xml"

-- list equality, entry by entry
local function same(a, b, what)
  t.eq(#a, #b)
  for i = 1, #b do t.truthy(a[i] == b[i], what .. "[" .. i .. "]: " .. tostring(a[i])) end
end

local function maxabs(M)
  local m = 0
  for i = 1, M:rows() do for j = 1, M:cols() do m = math.max(m, math.abs(M:get(i, j))) end end
  return m
end

-- The implicit derivatives against central differences of whole steps solved to 1e-13 at
-- h = 1e-4, 1e-5, 3e-6: the best relative error of A and B (relative to the block's largest
-- entry, or dt for B), as tests/lua/test_step_derivatives.lua does.
local function check_against_fd(name, w)
  local x, u = w:state(), w:controls()
  local D = w:step_derivatives()
  local best = {}
  for _, h in ipairs{1e-4, 1e-5, 3e-6} do
    w:set_state(x)
    w:set_controls(u)
    local F = w:step_derivatives{method = "finite_differences", step = h, tol = 1e-13,
                                 max_iter = 100000}
    local errs = {}
    for _, b in ipairs{"A", "B"} do
      local e = maxabs(D[b] - F[b]) / math.max(maxabs(F[b]), b == "A" and 1 or 1e-3)
      errs[#errs + 1] = string.format("%s %.1e", b, e)
      best[b] = math.min(best[b] or math.huge, e)
    end
    print(string.format("%s: h = %.0e: %s", name, h, table.concat(errs, ", ")))
  end
  for b, e in pairs(best) do t.truthy(e <= 1e-6, name .. ": " .. b .. " relative error " .. e) end
  return D
end

t.case("m:tendons() lists each fixed tendon as the file defines it", function()
  local m = lucid.model.load(SPRING)
  local ts = m:tendons()
  t.eq(#ts, 3)
  t.eq(ts[1].name, "couple")
  same(ts[1].joints, {"j1", "j3"}, "joints")
  same(ts[1].coefs, {1, -1.5}, "coefs")
  t.eq(ts[1].range, nil)
  t.eq(ts[1].stiffness, 20)      -- the <tendon> default
  t.eq(ts[1].damping, 0.4)       -- class "soft"
  t.near(ts[1].springlength, 0.2 * 1 + (-0.1) * (-1.5), 1e-15) -- the length at springref
  same(ts[2].joints, {"j1", "j2", "s4"}, "joints")
  same(ts[2].coefs, {0.5, 1, 2}, "coefs")
  t.eq(ts[2].stiffness, 5)
  t.eq(ts[2].springlength, 0.3)  -- given
  t.eq(ts[3].stiffness, 0)       -- its own 0 over the default's 20
  t.eq(ts[3].frictionloss, 0)
  same(m:names("tendon"), {"couple", "chain", "cross"}, "names")
  local acts = m:actuators()
  t.eq(acts[1].tendon, "chain")
  t.eq(acts[1].tendon_index, 2)
  t.eq(acts[1].joint, nil)
  t.eq(acts[5].joint, "j2")
  local l = lucid.model.load(LIMIT):tendons()
  same(l[1].range, {-0.3, 0.6}, "range")
  same(l[2].range, {-0.2, 0.2}, "range")
end)

t.case("a tendon limit is a contact naming its tendon, and holds the range", function()
  -- on the dense path and in body space (sparse_threshold 0: the merged tree is one slot)
  for _, threshold in ipairs{1000000000, 0} do
    local m = lucid.model.load(LIMIT)
    local w = lucid.world{dt = m.timestep, sparse_threshold = threshold}
    local id = w:add_model(m)
    w:set_control(id, {1})
    local seen, worst = {}, 0
    for _ = 1, 1000 do
      w:step()
      local q = w:q(id)
      worst = math.max(worst, q[1] + 0.5 * q[2] - 0.6, -0.2 - (q[1] - q[3]), q[1] - q[3] - 0.2)
      for _, c in ipairs(w:contacts()) do
        t.truthy(c.tendon and c.dof == nil and c.model == id, "a tendon limit")
        seen[c.tendon .. c.limit] = true
      end
    end
    t.truthy(seen["1upper"] and seen["2lower"] and seen["2upper"], "both tendons' limits act")
    t.truthy(worst <= 1e-4, "the largest excess " .. worst .. " is within the slop")
  end
end)

t.case("tendon springs, dampers and actuators in free motion: A, B equal finite differences", function()
  local m = lucid.model.load(SPRING)
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  w:set_q(id, {0.4, -0.6, 0.3, 0.05})
  w:set_v(id, {1, -2, 0.5, 0.2})
  -- inside the control and force ranges: the clamps' kinks are not differentiated
  w:set_control(id, {0.3, 0.5, -0.2, 0.1, -0.1})
  check_against_fd("tendon_spring", w)
end)

t.case("limited tendons held at their bounds: A, B equal finite differences", function()
  -- the double pendulum hangs on "bend" at its upper bound and on "pair" at its lower one
  -- (both limit rows in the rest band: the smooth regime), pushed by the tendon motor, its
  -- swing damped by joint damping from near its rest
  local m = lucid.model.load(LIMIT)
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  for _, j in ipairs{"j1", "j2", "j3"} do w:set_param({model = id, joint = j, "damping"}, 0.05) end
  w:set_q(id, {1.3, -1.4, 1.5})
  w:set_control(id, {0.5})
  for _ = 1, 1500 do w:step() end
  local limits = 0
  for _, c in ipairs(w:contacts()) do
    if c.tendon and c.lambda[3] > 0 then limits = limits + 1 end
  end
  t.eq(limits, 2)
  local v = w:v(id)
  print(string.format("tendon_limit: held, |v| = %.1e", math.max(math.abs(v[1]), math.abs(v[2]), math.abs(v[3]))))
  check_against_fd("tendon_limit", w)
end)

t.case("a limit approached faster than margin / dt is caught before it crosses", function()
  -- a hinge 8e-3 rad (beyond the world's margin, 5e-3) from its bound, closing at 5 rad/s: its
  -- free motion would cross the bound by 2e-3 within the step; the limit joins the step first
  local path = os.tmpname() .. ".xml"
  local f = assert(io.open(path, "w"))
  f:write([[<mujoco><compiler angle="radian"/><option gravity="0 0 0"/><worldbody><body>
    <joint name="j" axis="0 0 1" limited="true" range="-0.5 0.5"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/></body></worldbody></mujoco>]])
  f:close()
  local m = lucid.model.load(path)
  os.remove(path)
  local w = lucid.world{dt = 2e-3}
  local id = w:add_model(m)
  w:set_q(id, {0.5 - 8e-3})
  w:set_v(id, {5})
  w:step()
  t.truthy(w:q(id)[1] <= 0.5 + 1e-4, "q " .. w:q(id)[1] .. " beyond the bound plus the slop")
  t.eq(#w:contacts(), 1)
end)

t.case("spatial tendons are refused by name (MuJoCo's arm26.xml)", function()
  local arm = "/usr/share/mujoco/model/tendon_arm/arm26.xml"
  local h = io.open(arm)
  if not h then return t.skip("libmujoco-samples' arm26.xml not installed") end
  h:close()
  t.raises("arm26.xml:71: <tendon>: spatial tendons are not supported", lucid.model.load, arm)
end)

t.case("a tendon's margin makes its limit act that far inside the range", function()
  -- a pendulum falling onto "swing" = 2 q's upper bound 0.6 with margin 0.1: it comes to rest
  -- at L = 0.5 plus the rest depth slop / 2 (MuJoCo 2.2.2 rests at 0.5018: its soft limit acts
  -- at range - margin too)
  local path = os.tmpname() .. ".xml"
  local f = assert(io.open(path, "w"))
  f:write([[<mujoco><compiler angle="radian"/><worldbody><body>
    <joint name="j" axis="0 1 0" damping="0.2"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" contype="0" conaffinity="0"/>
    </body></worldbody><tendon><fixed name="swing" limited="true" range="-1 0.6" margin="0.1">
    <joint joint="j" coef="2"/></fixed></tendon></mujoco>]])
  f:close()
  local m = lucid.model.load(path)
  os.remove(path)
  t.eq(m:tendons()[1].margin, 0.1)
  local w = lucid.world{dt = 2e-3}
  local id = w:add_model(m)
  for _ = 1, 1500 do w:step() end
  local L = 2 * w:q(id)[1]
  t.near(L, 0.5 + 0.5e-4, 1e-6)
  local c = w:contacts()[1]
  t.eq(c.include_margin, 0.1)
  t.truthy(c.lambda[3] > 0, "the limit holds the pendulum")
end)
