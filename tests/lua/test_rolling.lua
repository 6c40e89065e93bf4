-- Rolling friction (MJCF condim 6, docs/model_files.md and docs/world_step.md): a contact's
-- fifth and sixth rows, the rolling about its tangents, in MuJoCo's elliptic cone
-- f_n >= ||(f_t1 / mu, f_t2 / mu, tau / mu_t, rho1 / mu_r, rho2 / mu_r)||. ncp:pgs and
-- ncp:staggered and raisim:bisection roll the sphere down at ncp:admm's rate, ccp:newton at ccp:admm's (tests/c/runtime/model/test_mjcf_rolling.c derives it and compares MuJoCo);
-- w:contacts() and m:geoms() give the coefficient; bad files and rolling without sliding
-- friction are refused by name.
local t = require "testing"
local lucid = require "lucid"

local SCENE = "tests/data/model/mjcf_rolling.xml" -- ctest runs from the repository root
local G, R, MU_R = 9.81, 0.1, 0.002

local exists = t.exists

-- SCENE's sphere rolling along x at 0.1 m/s (w_y = 1 rad/s) for 0.3 s: w_y r. threshold: the
-- world's sparse_threshold (nil: automatic; 0: every island in body space).
local function rolled(contact, threshold)
  local m = lucid.model.load(SCENE)
  local w = lucid.world{dt = m.timestep, contact = contact, sparse_threshold = threshold}
  local id = w:add_model(m)
  w:set_v(id, {0.1, 0, 0, 0, 1, 0})
  w:step(300)
  return w:v(id)[5] * R, w
end

t.case("ncp:pgs, ncp:admm and raisim:bisection roll the sphere down at 5 mu_r g / (7 r)", function()
  if not exists(SCENE) then t.skip("needs " .. SCENE .. " (run from the repository root)") end
  local analytic = 0.1 - 5 * MU_R * G / (7 * R) * 0.3
  local admm, w = rolled()
  t.near(admm, analytic, 2e-5, "ncp:admm")
  local pgs = rolled{model = "ncp", solver = "pgs"}
  t.near(pgs, analytic, 2e-5, "ncp:pgs")
  t.near(rolled{model = "ncp", solver = "staggered"}, analytic, 2e-5, "ncp:staggered")
  -- raisim:bisection: the sphere's block does not couple normal and tangential rows, where
  -- RaiSim's sliding answer is the NCP's (docs/contact.md)
  t.near(rolled{model = "raisim", solver = "bisection"}, analytic, 2e-5, "raisim:bisection")
  -- the CCP's own answer (a rolling contact lifts off a little), the same from ccp:admm and
  -- ccp:newton to the world's tol (1e-6; measured 3.7e-9)
  t.near(rolled{model = "ccp", solver = "newton"}, rolled{model = "ccp", solver = "admm"}, 1e-6,
    "ccp:newton as ccp:admm")
  local c = w:contacts()[1]
  t.near(c.rolling, MU_R, 1e-15, "the pair's rolling coefficient")
  -- the floor resists the rolling (about t1, t2) at the cone's boundary, MuJoCo's elliptic
  -- ||(f_t / mu, tau / mu_t, rho / mu_r)|| = f_n (mu = 1, mu_t = 0.005 m): the friction force
  -- F = m r rho / (I + m r^2) that keeps it rolling takes its share, so
  -- rho = mu_r N / sqrt(1 + (5 mu_r / (7 r))^2), 1.0001 times below mu_r N
  local rho = math.sqrt(c.rolling_torque[1] ^ 2 + c.rolling_torque[2] ^ 2)
  local cone = math.sqrt(c.lambda[1] ^ 2 + c.lambda[2] ^ 2 + (c.torque / 0.005) ^ 2 +
                         (rho / MU_R) ^ 2)
  print(string.format("rolling torque %.12g, mu_r N %.12g, cone %.12g, f_n %.12g, F %.12g", rho,
    MU_R * c.lambda[3], cone, c.lambda[3], math.sqrt(c.lambda[1] ^ 2 + c.lambda[2] ^ 2)))
  t.near(cone, c.lambda[3], 1e-6 * G, "on the cone's boundary")
  local k = 5 * MU_R / (7 * R)
  t.near(rho, MU_R * c.lambda[3] / math.sqrt(1 + k * k), 1e-6 * MU_R * G, "rolling torque")
end)

t.case("in body space (sparse_threshold = 0) the sphere rolls down at the same rate", function()
  if not exists(SCENE) then t.skip("needs " .. SCENE .. " (run from the repository root)") end
  local analytic = 0.1 - 5 * MU_R * G / (7 * R) * 0.3
  for _, solver in ipairs{"admm", "pgs", "ip"} do
    local v, w = rolled({model = "ncp", solver = solver}, 0)
    local is = w:islands()[1]
    t.eq(is.backend, "body", "ncp:" .. solver .. " in body space")
    t.eq(is.dim, 6, "6 rows per contact")
    t.near(v, analytic, 2e-5, "ncp:" .. solver .. " in body space")
  end
end)

t.case("rolling friction without sliding friction is refused by name; bad files are refused", function()
  if not exists(SCENE) then t.skip("needs " .. SCENE .. " (run from the repository root)") end
  local m = lucid.model.load(SCENE)
  local geoms = m:geoms()
  t.eq(geoms[1].condim, 6)
  t.near(geoms[2].rolling, MU_R, 1e-15)
  local w = lucid.world{dt = m.timestep}
  w:add_model(m)
  w:step()
  t.raises("rolling friction (condim 6, 6 rows per contact)", function() w:contact_problem() end)
  local no_sliding = lucid.model.load_string([[
<mujoco><worldbody><geom type="plane" size="0 0 1" condim="6" friction="0 0.01 0.002"/>
  <body pos="0 0 0.1"><freejoint/><geom type="sphere" size="0.1" condim="6" friction="0 0.01 0.002"/></body>
</worldbody></mujoco>]])
  local z = lucid.world{dt = 0.001}
  z:add_model(no_sliding)
  t.raises("rolling friction needs sliding friction > 0", function() z:step() end)
  local zb = lucid.world{dt = 0.001, sparse_threshold = 0} -- body space routes it dense
  zb:add_model(no_sliding)
  t.raises("rolling friction needs sliding friction > 0", function() zb:step() end)
  t.raises(":1: <geom> condim must be 1, 3, 4 or 6 (got 5)", function()
    lucid.model.load_string([[<mujoco><worldbody><geom type="sphere" size="0.1" condim="5"/></worldbody></mujoco>]])
  end)
  t.raises(":1: <geom>: negative friction", function()
    lucid.model.load_string([[<mujoco><worldbody><geom type="sphere" size="0.1" condim="6" friction="1 0.005 -0.001"/></worldbody></mujoco>]])
  end)
end)

t.case("a free body's sphere rolls down on a condim 6 floor at the same rate", function()
  -- a plain sphere (friction 1, no MuJoCo parameters) on a condim 6 floor: the pair takes the
  -- floor's rolling coefficient (a body has none) and condim 6; the body's rows are its own
  -- (roll_ang on its angular velocity), not a model's. From 1 m/s too: a free body integrates
  -- its velocity in the world frame, without the model free joint's screw (test_mjcf_rolling.c)
  local floor = lucid.model.load_string([[
<mujoco><worldbody>
  <geom type="plane" size="0 0 1" condim="6" friction="1 0.005 0.002"/>
</worldbody></mujoco>]])
  local function roll(v0)
    local w = lucid.world{dt = 0.001}
    w:add_model(floor)
    local ball = w:add_body{shape = lucid.sphere(R), mass = 1, friction = 1,
                            pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, R}),
                            velocity = {v0, 0, 0, 0, v0 / R, 0}}
    w:step(300)
    return w:velocity(ball)[1], w:velocity(ball)[5] * R, w
  end
  for _, v0 in ipairs{0.1, 1.0} do
    local analytic = v0 - 5 * MU_R * G / (7 * R) * 0.3
    local v, wr, w = roll(v0)
    print(string.format("v0 %.1f: v %.9f, w r %.9f, analytic %.9f", v0, v, wr, analytic))
    -- measured at most 7e-6 (v) and 2.8e-5 m/s (w r, from 1 m/s) of the 0.042 m/s lost
    t.near(v, analytic, 1e-4, "v from " .. v0)
    t.near(wr, analytic, 1e-4, "w r from " .. v0)
    t.near(w:contacts()[1].rolling, MU_R, 1e-15, "the floor's rolling coefficient")
  end
end)
