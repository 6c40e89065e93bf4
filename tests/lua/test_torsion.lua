-- Torsional friction (MJCF condim 4, docs/model_files.md and docs/world_step.md): a contact's
-- fourth row, the spin about its normal, in the elliptic cone
-- f_n >= ||(f_t1 / mu, f_t2 / mu, tau / mu_t)||. A sphere spinning on its floor stops at the
-- rate mu_t m g / I gives; a box on its face holds a torque below its torsional limit and spins
-- up at the analytic rate above it; every solver pair takes it (raisim:bisection included);
-- what does not take it is refused by name.
local t = require "testing"
local lucid = require "lucid"

local SPIN_SCENE = "tests/data/model/mjcf_torsion_spin.xml" -- ctest runs from the repository root
local G = 9.81

local exists = t.exists

-- The sphere of SPIN_SCENE (r = 0.1 m, 1 kg, mu_t = 0.01 m) resting, then spun at 10 rad/s.
local function spinning_sphere(opts)
  local m = lucid.model.load(SPIN_SCENE)
  local w = lucid.world{dt = m.timestep}
  local id = w:add_model(m, opts)
  w:step(100) -- at rest on the floor
  local v = w:v(id)
  v[6] = 10
  w:set_v(id, v)
  return w, id
end

t.case("a spinning sphere stops at the rate mu_t m g / I", function()
  if not exists(SPIN_SCENE) then t.skip("needs " .. SPIN_SCENE .. " (run from the repository root)") end
  local w, id = spinning_sphere()
  local mu_t, r = 0.01, 0.1
  local rate = mu_t * G / (0.4 * r * r) -- 24.525 rad/s^2
  w:step(100)
  t.near(w:v(id)[6], 10 - rate * 0.1, 1e-9, "spin at 0.1 s")
  local c = w:contacts()[1]
  t.eq(#w:contacts(), 1)
  t.near(c.torsion, mu_t, 1e-15, "the pair's torsional coefficient")
  -- the floor (body1) resists the sphere's spin with the whole torsional budget mu_t N
  t.near(c.torque, -mu_t * c.lambda[3], 1e-9, "torque while spinning")
  t.near(c.lambda[3], G, 1e-6, "normal force (the world's tol)")
  w:step(400) -- 0.5 s: it stops at 10 / rate = 0.408 s
  t.truthy(math.abs(w:v(id)[6]) < 1e-6, "stopped: " .. w:v(id)[6])
  w:step(200)
  t.truthy(math.abs(w:v(id)[6]) < 1e-6, "stays stopped: " .. w:v(id)[6])
  for k = 1, 5 do t.truthy(math.abs(w:v(id)[k]) < 1e-6, "no other motion") end
end)

t.case("ncp:pgs, ncp:ip, ncp:staggered and raisim:bisection spin down at the same rate, " ..
       "ccp:pgs, ccp:ip and ccp:newton as ccp:admm", function()
  if not exists(SPIN_SCENE) then t.skip("needs " .. SPIN_SCENE .. " (run from the repository root)") end
  local function spin_after(model, solver, sparse_threshold)
    local m = lucid.model.load(SPIN_SCENE)
    local w = lucid.world{dt = m.timestep, contact = {model = model, solver = solver},
                          sparse_threshold = sparse_threshold}
    local id = w:add_model(m)
    w:step(100)
    local v = w:v(id)
    v[6] = 10
    w:set_v(id, v)
    w:step(100)
    t.truthy(w:stats().converged, model .. ":" .. solver .. " converged")
    return w:v(id)[6]
  end
  local rate = 0.01 * G / (0.4 * 0.1 * 0.1)
  t.near(spin_after("ncp", "pgs"), 10 - rate * 0.1, 1e-9, "ncp:pgs")
  t.near(spin_after("ncp", "ip"), 10 - rate * 0.1, 1e-9, "ncp:ip")
  t.near(spin_after("ncp", "staggered"), 10 - rate * 0.1, 1e-9, "ncp:staggered")
  -- the CCP relaxes Signorini (a sliding contact separates a little): its own answer, the same
  -- from each solver
  local ccp = spin_after("ccp", "admm")
  t.near(spin_after("ccp", "pgs"), ccp, 1e-9, "ccp:pgs against ccp:admm")
  t.near(spin_after("ccp", "ip"), ccp, 1e-9, "ccp:ip against ccp:admm")
  -- ccp:newton solves with its compliance R = 1e-8 trace(G_ii) / 4 (docs/contact.md)
  t.near(spin_after("ccp", "newton"), ccp, 1e-9, "ccp:newton against ccp:admm")
  -- its body-space form is of dim 3: a torsional island stays dense under it and staggered
  t.near(spin_after("ccp", "newton", 0), ccp, 1e-9, "ccp:newton, sparse_threshold 0")
  t.near(spin_after("ncp", "staggered", 0), 10 - rate * 0.1, 1e-9, "ncp:staggered, sparse_threshold 0")
  -- raisim:bisection (its sliding problem over the cone's section, docs/contact.md): the
  -- sphere's block does not couple normal and tangential rows, so RaiSim's answer is the NCP's;
  -- it has no body-space form, so sparse_threshold 0 keeps the island dense
  t.near(spin_after("raisim", "bisection"), 10 - rate * 0.1, 1e-9, "raisim:bisection")
  t.near(spin_after("raisim", "bisection", 0), 10 - rate * 0.1, 1e-9,
         "raisim:bisection, sparse_threshold 0")
end)

t.case("without torsional friction (condim 3) the sphere keeps spinning", function()
  if not exists(SPIN_SCENE) then t.skip("needs " .. SPIN_SCENE .. " (run from the repository root)") end
  local w, id = spinning_sphere{friction = 1} -- every geom condim 3
  w:step(500)
  t.near(w:v(id)[6], 10, 1e-9, "spin after 0.5 s")
  t.eq(w:contacts()[1].torsion, nil)
end)

local FLOOR = [[
<mujoco model="torsional floor">
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1" condim="4" friction="0.01 0.05"/>
  </worldbody>
</mujoco>]]

t.case("a box on its face holds a torque below its torsional limit, spins above it", function()
  -- a plain box (friction 1) on a condim 4 floor: the pair takes the smaller sliding friction
  -- 0.01 and the floor's torsional 0.05 m; one contact per corner, each at lever rc from the
  -- centre. Turning at w, corner i's scaled velocity is w (rc, mu_t / mu) along its tangent and
  -- spin: its force takes the cone's boundary along it, a torque N_i sqrt(mu^2 rc^2 + mu_t^2).
  local m = lucid.model.load_string(FLOOR)
  local w = lucid.world{dt = 0.001}
  w:add_model(m)
  local h, mass, mu, mu_t = 0.05, 1.0, 0.01, 0.05
  local box = w:add_body{shape = lucid.box(h, h, h), mass = mass, friction = 1,
                         pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, h})}
  w:step(200)
  t.eq(#w:contacts(), 4)
  local rc = math.sqrt(2) * h
  local limit = mass * G * math.sqrt(mu * mu * rc * rc + mu_t * mu_t)
  local Iz = mass * (2 * h) ^ 2 / 6
  -- sliding friction alone holds mu m g rc = 0.0069 N m: 0.5 limit (0.245 N m) turns it
  for _ = 1, 100 do
    w:apply_force(box, {0, 0, 0}, {0, 0, 0.5 * limit})
    w:step(1)
  end
  t.truthy(math.abs(w:velocity(box)[6]) < 1e-6, "held: " .. w:velocity(box)[6])
  for _ = 1, 100 do
    w:apply_force(box, {0, 0, 0}, {0, 0, 1.5 * limit})
    w:step(1)
  end
  t.near(w:velocity(box)[6], 0.5 * limit / Iz * 0.1, 1e-4, "spun up after 0.1 s")
end)

t.case("what does not take torsional friction refuses it by name", function()
  if not exists(SPIN_SCENE) then t.skip("needs " .. SPIN_SCENE .. " (run from the repository root)") end
  local m = lucid.model.load(SPIN_SCENE)
  local w = lucid.world{dt = m.timestep}
  w:add_model(m)
  w:step()
  t.raises("torsional friction (condim 4, 4 rows per contact)", function() w:contact_problem() end)
  -- a torsional island in body space (sparse_threshold 0) too: its view would be 3 rows
  local body = lucid.world{dt = m.timestep, sparse_threshold = 0}
  body:add_model(m)
  body:step()
  t.raises("torsional friction (condim 4, 4 rows per contact)", function() body:contact_problem() end)
  local slick = m:geoms()
  t.eq(slick[1].condim, 4)
  t.near(slick[2].torsion, 0.01, 1e-15)
  local no_sliding = lucid.model.load_string([[
<mujoco><worldbody><geom type="plane" size="0 0 1" condim="4" friction="0 0.01"/>
  <body pos="0 0 0.1"><freejoint/><geom type="sphere" size="0.1" condim="4" friction="0 0.01"/></body>
</worldbody></mujoco>]])
  local z = lucid.world{dt = 0.001}
  z:add_model(no_sliding)
  t.raises("torsional friction needs sliding friction > 0", function() z:step() end)
  local zb = lucid.world{dt = 0.001, sparse_threshold = 0} -- body space routes it dense
  zb:add_model(no_sliding)
  t.raises("torsional friction needs sliding friction > 0", function() zb:step() end)
  t.raises("condim must be 1, 3, 4 or 6 (got 2)", function()
    lucid.model.load_string([[<mujoco><worldbody><geom type="sphere" size="0.1" condim="2"/></worldbody></mujoco>]])
  end)
end)

t.case("humanoid100.xml (condim 4 cylinders) loads and steps in the cone", function()
  local path = "/usr/share/mujoco/model/humanoid100/humanoid100.xml"
  if not exists(path) then t.skip(path .. " missing (Debian libmujoco-samples)") end
  local m = lucid.model.load(path)
  local w = lucid.world{dt = m.timestep}
  w:add_model(m)
  local seen = 0
  for _ = 1, 200 do
    w:step(1)
    for _, c in ipairs(w:contacts()) do
      if c.torsion then
        seen = seen + 1
        local n, mu = c.lambda[3], c.friction
        local ft = math.sqrt(c.lambda[1] ^ 2 + c.lambda[2] ^ 2)
        local cone = math.sqrt((ft / mu) ^ 2 + (c.torque / c.torsion) ^ 2)
        -- within the solve's tolerance: the NCP criterion's primal part bounds how far a force
        -- may leave its cone (tol = 1e-6 N; the island's force scale is at most 1)
        t.truthy(cone <= n * (1 + 1e-9) + 1e-6, "in the elliptic cone")
      end
    end
  end
  t.truthy(seen > 0, "contacts with torsional friction")
end)

