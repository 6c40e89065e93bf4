-- lcp:pgs with torsional (MJCF condim 4) and rolling friction (condim 6): the LCP's box pyramid
-- over every tangential row of the scaled contact, |f_k| <= mu f_n for k in (t1, t2, s, r1, r2)
-- (docs/contact.md): each torque at its own bound, mu_t N for the spin and mu_r N for the
-- rolling, independently of the sliding force; raisim:bisection keeps the round cone's budget;
-- w:step_derivatives refuses such an lcp or raisim world by name (no implicit derivatives of
-- either model at dim 4 or 6).
local t = require "testing"
local lucid = require "lucid"

local SPIN_SCENE = "tests/data/model/mjcf_torsion_spin.xml" -- ctest runs from the repository root
local ROLL_SCENE = "tests/data/model/mjcf_rolling.xml"
local G = 9.81

-- SPIN_SCENE's sphere (r = 0.1 m, 1 kg, mu_t = 0.01 m) at rest, spun at 10 rad/s, after 0.1 s.
local function spin_after(opts)
  local m = lucid.model.load(SPIN_SCENE)
  opts.dt = m.timestep
  local w = lucid.world(opts)
  local id = w:add_model(m)
  w:step(100)
  local v = w:v(id)
  v[6] = 10
  w:set_v(id, v)
  w:step(100)
  t.truthy(w:stats().converged, "converged")
  return w, id
end

t.case("lcp:pgs spins the sphere down at mu_t m g / I, densely and in body space", function()
  if not t.exists(SPIN_SCENE) then t.skip("needs " .. SPIN_SCENE) end
  -- the spin row at its bound mu lambda_n: a torque mu_t N, 24.525 rad/s^2
  local rate = 0.01 * G / (0.4 * 0.1 * 0.1)
  for _, threshold in ipairs{1000, 0} do -- dense, then body space (sparse_threshold 0)
    local w, id = spin_after{sparse_threshold = threshold, contact = {model = "lcp", solver = "pgs"}}
    t.near(w:v(id)[6], 10 - rate * 0.1, 1e-9, "spin at 0.1 s, threshold " .. threshold)
    local c = w:contacts()[1]
    t.near(c.torque, -0.01 * c.lambda[3], 1e-9, "the torque at its bound")
    t.near(c.lambda[3], G, 1e-6, "normal force")
    w:step(400) -- stops at 10 / rate = 0.408 s and stays
    t.truthy(math.abs(w:v(id)[6]) < 1e-6, "stopped: " .. w:v(id)[6])
  end
end)

t.case("lcp:pgs rolls the sphere down with the rolling torque at mu_r N", function()
  if not t.exists(ROLL_SCENE) then t.skip("needs " .. ROLL_SCENE) end
  -- the box bounds the rolling row alone: rho = mu_r N exactly, where the ball (ncp) shares its
  -- budget with the sliding force that keeps the sphere rolling (rho 1.0001 times below)
  local m = lucid.model.load(ROLL_SCENE)
  local w = lucid.world{dt = m.timestep, contact = {model = "lcp", solver = "pgs"}}
  local id = w:add_model(m)
  w:set_v(id, {0.1, 0, 0, 0, 1, 0})
  w:step(300)
  t.truthy(w:stats().converged, "converged")
  local c = w:contacts()[1]
  local rho = math.sqrt(c.rolling_torque[1] ^ 2 + c.rolling_torque[2] ^ 2)
  t.near(rho, 0.002 * c.lambda[3], 1e-9, "rolling torque at mu_r N")
  -- the rate 5 mu_r g / (7 r) to test_rolling.lua's 2e-5 (the sphere settles on its floor
  -- during the first steps); the torque above is what tells the box from the ball
  t.near(w:v(id)[5] * 0.1, 0.1 - 5 * 0.002 * G / (7 * 0.1) * 0.3, 2e-5, "rolled down")
end)

t.case("raisim:bisection takes torsional and rolling friction in the round cone, not the box", function()
  if not t.exists(ROLL_SCENE) then t.skip("needs " .. ROLL_SCENE) end
  -- its sliding problem over the cone's section (docs/contact.md): the ball's budget, shared
  -- with the sliding force that keeps the sphere rolling, rho = mu_r N / sqrt(1 + k^2) with
  -- k = 5 mu_r / (7 r), 1.0001 times below the box's mu_r N
  local m = lucid.model.load(ROLL_SCENE)
  local w = lucid.world{dt = m.timestep, contact = {model = "raisim", solver = "bisection"}}
  local id = w:add_model(m)
  w:set_v(id, {0.1, 0, 0, 0, 1, 0})
  w:step(300)
  t.truthy(w:stats().converged, "converged")
  local c = w:contacts()[1]
  local rho = math.sqrt(c.rolling_torque[1] ^ 2 + c.rolling_torque[2] ^ 2)
  local k = 5 * 0.002 / (7 * 0.1)
  t.near(rho, 0.002 * c.lambda[3] / math.sqrt(1 + k * k), 1e-6 * 0.002 * G, "the ball's rolling torque")
  t.truthy(0.002 * c.lambda[3] - rho > 1e-6, "below the box's mu_r N")
end)

t.case("w:step_derivatives refuses an lcp or raisim world with torsional or rolling friction by name",
  function()
  if not t.exists(SPIN_SCENE) then t.skip("needs " .. SPIN_SCENE) end
  for _, scene in ipairs{SPIN_SCENE, ROLL_SCENE} do
    for _, pair in ipairs{{"lcp", "pgs"}, {"raisim", "bisection"}} do
      local m = lucid.model.load(scene)
      local w = lucid.world{dt = m.timestep, contact = {model = pair[1], solver = pair[2]}}
      w:add_model(m)
      w:step(20)
      t.raises("torsional or rolling friction (4 or 6 rows per contact) under the " .. pair[1] ..
        " model has no step derivatives", function() w:step_derivatives() end)
    end
  end
end)
