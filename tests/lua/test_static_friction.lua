-- Torsional and rolling friction of static bodies (w:add_static{torsion=, rolling=}, MuJoCo's
-- friction[1] and friction[2]; docs/world.md): a plane or table with rolling resistance or
-- torsion, the common case of a scene built in Lua. A pair takes the larger of its bodies'
-- coefficients where it has sliding friction (the rule of w:add_body's, both pipelines). A
-- sphere spun on a static box with torsion stops at mu_t m g / I, a ball rolling on a static
-- plane with rolling friction decelerates at (5/7) mu_r g / r, in the two-stage and the
-- single-level step, where the step derivatives take the table's torsion; bad coefficients and
-- unknown keys are refused by name.
local t = require "testing"
local lucid = require "lucid"

local se3 = lucid.se3
local G, R, DT, KAPPA = 9.81, 0.1, 0.01, 1e-8

local function world(collision)
  return lucid.world{dt = DT, collision = collision, single_level = {kappa = KAPPA, tol = 1e-12}}
end

-- A 1 kg sphere (radius R, no torsion or rolling of its own) on a static 1 x 1 x 0.1 m table
-- (top at z = 0) of the given coefficients, spinning at 10 rad/s about z.
local function spinning_on_table(collision, table)
  local w = world(collision)
  table.shape = lucid.box(0.5, 0.5, 0.05)
  table.pose = se3.new({1, 0, 0, 0}, {0, 0, -0.05})
  w:add_static(table)
  local id = w:add_body{shape = lucid.sphere(R), mass = 1, friction = 0.5,
                        pose = se3.new({1, 0, 0, 0}, {0, 0, R}), velocity = {0, 0, 0, 0, 0, 10}}
  return w, id
end

t.case("a sphere spun on a static table with torsion stops at mu_t m g / I", function()
  local mu, mut = 0.5, 0.01
  local rate = mut * G / (0.4 * R * R) -- 24.525 rad/s^2: the couple mu_t N against I
  for _, collision in ipairs{"two_stage", "single_level"} do
    local w, id = spinning_on_table(collision, {friction = mu, torsion = mut})
    w:step(2) -- settled on the table
    local w2 = w:velocity(id)[6]
    for _ = 3, 22 do
      w:step()
      t.truthy(w:stats().converged, collision .. " converged")
    end
    local measured = (w2 - w:velocity(id)[6]) / (20 * DT)
    -- the single-level step relaxes the cone to kappa: short of the rigid couple by at most
    -- c / s, c = kappa / (mu m g dt), s = dt (mu_t / mu) w at the smallest spin (5.1 rad/s)
    local slack = collision == "single_level" and KAPPA / (mu * G * DT) / (DT * mut / mu * 5) or 1e-9
    print(string.format("%s: %.10g rad/s^2 against %.10g", collision, measured, rate))
    t.near(measured, rate, rate * slack, collision .. ": the spin-down rate")
    local c = w:contacts()[1]
    t.near(c.torsion, mut, 0, collision .. ": the table's torsional coefficient")
    t.near(c.torque, -mut * c.force[3], math.max(slack, 1e-6) * mut * G,
           collision .. ": the couple mu_t N")
    w:step(30) -- 0.52 s in all: it stops at 10 / rate = 0.41 s and stays
    t.truthy(math.abs(w:velocity(id)[6]) < 1e-2, collision .. " stopped: " .. w:velocity(id)[6])
  end
  -- without the table's torsion (condim 3) it spins on
  local w, id = spinning_on_table("two_stage", {friction = mu})
  w:step(20)
  t.near(w:velocity(id)[6], 10, 1e-9, "spins on without torsion")
end)

t.case("a ball rolling on a static plane with rolling friction decelerates at (5/7) mu_r g / r",
  function()
  local mu, mur = 0.5, 0.002
  local rate = 5 / 7 * mur * G / R
  for _, collision in ipairs{"two_stage", "single_level"} do
    local w = world(collision)
    w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = mu, rolling = mur}
    local id = w:add_body{shape = lucid.sphere(R), mass = 1, friction = mu,
                          pose = se3.new({1, 0, 0, 0}, {0, 0, R}), velocity = {1, 0, 0, 0, 10, 0}}
    w:step(20) -- past the landing of the first steps
    local v20 = w:velocity(id)[1]
    for _ = 21, 100 do
      w:step()
      t.truthy(w:stats().converged, collision .. " converged")
    end
    local v = w:velocity(id)
    local measured = (v20 - v[1]) / (80 * DT)
    -- as test_single_level_torsion.lua's body case: the elliptic cone's share
    -- ((2/7) mu_r / (mu r))^2 of the sliding friction that keeps it rolling, and in the
    -- single-level step the relaxation's c / s with s = dt (mu_r / mu) w
    local c = KAPPA / (mu * G * DT)
    local slack = ((2 / 7) * mur / (mu * R)) ^ 2 +
                  (collision == "single_level" and c / (DT * mur / mu * v[5]) or 0)
    print(string.format("%s: %.8g m/s^2 against %.8g", collision, measured, rate))
    t.near(measured, rate, rate * slack, collision .. ": the rolling deceleration")
    t.near(w:contacts()[1].rolling, mur, 0, collision .. ": the plane's rolling coefficient")
  end
end)

t.case("the step derivatives take a static body's torsion", function()
  -- the spin column d w+_z / d mu_t = -m g dt / I of the sphere on the table, against central
  -- differences of whole steps, in both pipelines
  for _, collision in ipairs{"two_stage", "single_level"} do
    local w, id = spinning_on_table(collision, {friction = 0.5, torsion = 0.01})
    local tab = id - 1
    w:step(2)
    local x, u, p = w:state(), w:controls(), {body = tab, "torsion"}
    t.eq(w:param(p), 0.01)
    local function step_at(v)
      w:set_param(p, v)
      w:set_state(x)
      w:set_controls(u)
      w:step()
      return w:state()
    end
    local methods = collision == "two_stage" and {"implicit", "relaxed"} or {"relaxed"}
    for _, method in ipairs(methods) do
      local col = w:step_derivatives{method = method, params = {p}}.params[1]
      local h = 1e-6
      local fd = w:state_difference(step_at(0.01 - h), step_at(0.01 + h)) * (1 / (2 * h))
      w:set_param(p, 0.01)
      for i = 1, #fd do
        t.near(col:get(i, 1), fd[i], 1e-6 * math.max(1, math.abs(fd[i])), method .. " row " .. i)
      end
      t.near(col:get(12, 1), -G * 0.01 / (0.4 * R * R), 1e-5 * G * 0.01 / (0.4 * R * R),
             collision .. " " .. method .. ": -m g dt / I")
    end
  end
end)

t.case("a pair takes the larger torsion and rolling, none without sliding friction", function()
  local function contact(static, body)
    local w = world("two_stage")
    static.shape = lucid.halfspace({0, 0, 1}, 0)
    w:add_static(static)
    body.shape, body.mass = lucid.sphere(R), 1
    body.pose = se3.new({1, 0, 0, 0}, {0, 0, R})
    w:add_body(body)
    w:step()
    return w:contacts()[1]
  end
  local c = contact({friction = 1, torsion = 0.01, rolling = 0.001},
                    {friction = 0.5, torsion = 0.004, rolling = 0.003})
  t.near(c.friction, 0.5, 0, "the smaller sliding friction")
  t.near(c.torsion, 0.01, 0, "the table's larger torsion")
  t.near(c.rolling, 0.003, 0, "the ball's larger rolling")
  c = contact({friction = 0, torsion = 0.01, rolling = 0.001}, {friction = 0.5})
  t.eq(c.torsion, nil, "a frictionless table: no torsion")
  t.eq(c.rolling, nil, "nor rolling")
end)

t.case("bad coefficients and unknown keys are refused by name", function()
  local w = lucid.world{}
  local plane = lucid.halfspace({0, 0, 1}, 0)
  t.raises("lucid.world:add_static: torsion must be >= 0", w.add_static, w,
           {shape = plane, torsion = -1})
  t.raises("lucid.world:add_static: rolling must be >= 0", w.add_static, w,
           {shape = plane, rolling = -0.1})
  t.raises("lucid.world:add_static: torsion must be finite", w.add_static, w,
           {shape = plane, torsion = 0 / 0})
  t.raises("lucid.world:add_static: rolling must be finite", w.add_static, w,
           {shape = plane, rolling = math.huge})
  t.raises("lucid.world:add_static: friction must be <= 100", w.add_static, w,
           {shape = plane, friction = 101, torsion = 0.01})
  t.raises("torsional", w.add_static, w, {shape = plane, torsional = 0.01})
  t.raises("torsion", w.add_static, w, {shape = plane, torsion = "0.01"})
  t.eq(w:add_static{shape = plane, torsion = 0.01, rolling = 0.001}, 1, "none added before it")
end)
