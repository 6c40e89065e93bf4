-- lucid.dynamics.regressor, .inertial_parameters and .base_parameters (docs/model.md,
-- "Regressors"): Y theta equals RNEA (+ damping v) to 1e-12 relative on tasks/models/arm7.xml,
-- MuJoCo's humanoid and the shared robots (fixed and floating base); the friction, damping,
-- armature and offset columns are sign(v) / tanh(v / eps), v, a and 1; the base regressor
-- Y * b.select times b.map * theta equals Y theta at fresh states; a planar two-link arm has
-- its textbook 6 base parameters; options and errors are checked. The C test
-- (tests/c/runtime/model/test_model_regressor.c) covers random trees with every joint kind.
local t = require "testing"
local lucid = require "lucid"

local exists = t.exists

local function normal_vec(rng, n, s)
  local v = {}
  for i = 1, n do v[i] = s * rng:normal() end
  return lucid.vec(v)
end

local function maxabs(v)
  local m = 0
  for i = 1, #v do m = math.max(m, math.abs(v[i])) end
  return m
end

local ALL = {damping = true, coulomb = true, armature = true, offset = true}

-- Y theta = rnea + damping v (the model's inertias, damping and armature in theta), the
-- per-dof columns, and the base parameters at states the QR did not see.
local function check_model(label, m, seed)
  local rng = lucid.rng(seed)
  local pi = lucid.dynamics.inertial_parameters(m)
  local theta, names = lucid.dynamics.inertial_parameters(m, ALL)
  local nb, nv = m.nbodies, m.nv
  t.eq(#pi, 10 * nb, label)
  t.eq(#theta, 10 * nb + 4 * nv, label)
  t.eq(#names, #theta, label)
  t.eq(names[1], m:names("body")[1] .. ".m", label)
  local b = lucid.dynamics.base_parameters(m, ALL)
  local bp = lucid.dynamics.base_parameters(m, {damping = true, coulomb = true, armature = true,
                                                offset = true, pivoted = true})
  t.eq(bp.rank, b.rank, label)
  t.truthy(b.rank > 0 and b.rank < b.nparams, label)
  t.truthy(b.last_kept > 1e6 * b.first_dropped, label)
  local theta_b = b.map * theta
  local worst = 0
  for _ = 1, 4 do
    local q = m:random_configuration(rng)
    local v, a = normal_vec(rng, nv, 2), normal_vec(rng, nv, 5)
    local tau = lucid.dynamics.rnea(m, q, v, a)
    local Y = lucid.dynamics.regressor(m, q, v, a, ALL)
    t.eq(Y:rows(), nv); t.eq(Y:cols(), #theta)
    local y = Y * theta
    for k = 1, nv do
      local d = theta[10 * nb + k]
      tau[k] = tau[k] + d * v[k]
      t.eq(Y:get(k, 10 * nb + k), v[k], label)                                  -- damping
      t.eq(Y:get(k, 10 * nb + nv + k), v[k] > 0 and 1 or -1, label)            -- coulomb
      t.eq(Y:get(k, 10 * nb + 2 * nv + k), a[k], label)                         -- armature
      t.eq(Y:get(k, 10 * nb + 3 * nv + k), 1, label)                            -- offset
    end
    worst = math.max(worst, maxabs(y - tau) / maxabs(tau))
    -- inertial columns only: Y pi = rnea - armature a
    local Yi = lucid.dynamics.regressor(m, q, v, a)
    local arm = lucid.dynamics.rnea(m, q, v, a) - Yi * pi
    for k = 1, nv do t.near(arm[k], theta[10 * nb + 2 * nv + k] * a[k], 1e-12 * maxabs(tau)) end
    local yb = (Y * b.select) * theta_b
    worst = math.max(worst, maxabs(yb - y) / maxabs(y))
    yb = (Y * bp.select) * (bp.map * theta)
    worst = math.max(worst, maxabs(yb - y) / maxabs(y))
  end
  t.truthy(worst <= 1e-12, label .. ": relative error " .. worst)
  return b
end

t.case("tasks/models/arm7.xml and MuJoCo's humanoid: Y theta = RNEA + damping v", function()
  check_model("arm7", lucid.model.load("tasks/models/arm7.xml"), 1)
  local humanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml"
  if not exists(humanoid) then t.skip(humanoid .. " missing (Debian libmujoco-samples)") end
  check_model("humanoid", lucid.model.load(humanoid), 2)
end)

t.case("the shared robots, fixed and floating base", function()
  local shared = os.getenv("LUCID_SHARED_DIR") or "../shared"
  local dir = shared .. "/data/robots/"
  if not exists(dir .. "ur5.urdf") then t.skip(dir .. " missing (../shared absent)") end
  check_model("allegro", lucid.model.load(dir .. "allegro_right_hand.xml", {meshes = "skip"}), 3)
  for i, file in ipairs{"ur5.urdf", "a1.urdf", "simple_humanoid.urdf"} do
    for _, floating in ipairs{false, true} do
      local m = lucid.model.load(dir .. file, {meshes = "skip", floating_base = floating})
      check_model(file .. (floating and " (free)" or ""), m, 10 * i + (floating and 1 or 0))
    end
  end
end)

t.case("smooth Coulomb columns: tanh(v / eps)", function()
  local m = lucid.model.load("tasks/models/arm7.xml")
  local rng = lucid.rng(5)
  local q, v = m:random_configuration(rng), normal_vec(rng, m.nv, 0.1)
  local Y = lucid.dynamics.regressor(m, q, v, v, {coulomb = true, coulomb_smoothing = 0.05})
  t.eq(Y:cols(), 10 * m.nbodies + m.nv)
  for k = 1, m.nv do
    t.near(Y:get(k, 10 * m.nbodies + k), math.tanh(v[k] / 0.05), 1e-15)
    t.eq(Y:get(k % m.nv + 1, 10 * m.nbodies + k), 0)
  end
end)

-- Two links on z hinges in a vertical plane, link1 l1 = 0.5 along link0's x: ZZ1 + l1^2 m2
-- and MX1 + l1 m2 are lumped (6 base parameters of 20), so m2 +1, MX1 -l1, ZZ1 -l1^2 maps to 0.
t.case("a planar two-link arm: the textbook base parameters", function()
  local function link(name, parent, x)
    return {name = name, parent = parent, placement = lucid.se3.new({1, 0, 0, 0}, {x, 0, 0}),
            mass = 1, com = {0.2, 0.05, 0}, inertia = {0.01, 0.02, 0.03},
            joints = {{name = name .. "_hinge", kind = "revolute", axis = {0, 0, 1}}}}
  end
  local m = lucid.model.build{gravity = {0, -9.81, 0},
                              bodies = {link("link0", nil, 0), link("link1", "link0", 0.5)}}
  local b = lucid.dynamics.base_parameters(m)
  t.eq(b.pivoted, false)
  t.eq(b.names[1], "link0.mx + 0.5 link1.m")
  t.eq(b.names[3], "link0.Izz + 0.25 link1.m")
  local bp = lucid.dynamics.base_parameters(m, {pivoted = true})
  t.eq(bp.pivoted, true)
  t.eq(bp.rank, 6)
  t.eq(b.rank, 6)
  t.eq(b.nparams, 20)
  t.eq(#b.names, 6)
  t.eq(#b.columns + #b.dependent, 20)
  local n = {}
  for k = 1, 20 do n[k] = 0 end
  n[11], n[2], n[10] = 1, -0.5, -0.25
  t.truthy(maxabs(b.map * lucid.vec(n)) <= 1e-12)
  local joined = table.concat(b.names, "; ")
  t.truthy(joined:find("link1.m", 1, true), joined)
  -- link0's mass, Ixx, Ixy, ... and link1's mz have no effect at all
  local none = {}
  for _, name in ipairs(b.unidentifiable) do none[name] = true end
  t.truthy(none["link0.m"] and none["link0.Ixx"] and none["link1.mz"],
           table.concat(b.unidentifiable, " "))
  -- a parameter vector with these base parameters: select * theta_b
  local theta = lucid.dynamics.inertial_parameters(m)
  local back = b.select * (b.map * theta)
  t.truthy(maxabs(b.map * back - b.map * theta) <= 1e-12)
end)

-- A floating two-body robot whose free root's rows are left out (contact wrenches unknown):
-- the root body's 10 parameters change no stacked torque.
t.case("rows: the free root's rows left out", function()
  local m = lucid.model.build{bodies = {
    {name = "base", mass = 2, com = {0.1, 0, 0}, inertia = {0.02, 0.03, 0.04},
     joints = {{name = "root", kind = "free"}}},
    {name = "arm", parent = "base", placement = lucid.se3.new({1, 0, 0, 0}, {0.3, 0, 0}),
     mass = 1, com = {0.2, 0.01, 0.02}, inertia = {0.01, 0.02, 0.03},
     joints = {{name = "hinge", kind = "revolute", axis = {0, 1, 0}}}}}}
  local all = lucid.dynamics.base_parameters(m)
  local b = lucid.dynamics.base_parameters(m, {rows = {7}})
  t.truthy(b.rank < all.rank)
  local none = {}
  for _, name in ipairs(b.unidentifiable) do none[name] = true end
  for _, p in ipairs{"m", "mx", "my", "mz", "Ixx", "Ixy", "Iyy", "Ixz", "Iyz", "Izz"} do
    t.truthy(none["base." .. p], "base." .. p)
  end
  local rng = lucid.rng(4)
  local theta = normal_vec(rng, b.nparams, 1)
  local q = m:random_configuration(rng)
  local v, a = normal_vec(rng, m.nv, 2), normal_vec(rng, m.nv, 5)
  local Y = lucid.dynamics.regressor(m, q, v, a)
  local y, yb = Y * theta, (Y * b.select) * (b.map * theta)
  t.near(yb[7], y[7], 1e-12 * math.abs(y[7]))
  t.raises("lucid.dynamics.base_parameters: rows[i] = 8 is out of range [1, 7]",
           lucid.dynamics.base_parameters, m,
           {rows = {8}})
  t.raises("lucid.dynamics.base_parameters: rows must be a list of dof indices (got number)",
           lucid.dynamics.base_parameters, m, {rows = 7})
end)

t.case("errors name the function", function()
  local m = lucid.model.load("tasks/models/arm7.xml")
  local q, z = m:neutral(), lucid.zeros(m.nv)
  local F = "lucid.dynamics.regressor: "
  t.raises(F .. "unknown option 'frction'", lucid.dynamics.regressor, m, q, z, z, {frction = true})
  t.raises(F .. "damping must be a boolean (got number)", lucid.dynamics.regressor, m, q, z, z,
           {damping = 1})
  t.raises(F .. "coulomb_smoothing must be >= 0 (got -1.0)", lucid.dynamics.regressor, m, q, z,
           z, {coulomb_smoothing = -1})
  t.raises(F .. "opts must be a table (got string)", lucid.dynamics.regressor, m, q, z, z, "all")
  t.raises(F .. "m must be a lucid.model", lucid.dynamics.regressor, {}, q, z, z)
  F = "lucid.dynamics.base_parameters: "
  t.raises(F .. "tolerance must be in (0, 1) (got 2.0)", lucid.dynamics.base_parameters, m,
           {tolerance = 2})
  t.raises(F .. "samples", lucid.dynamics.base_parameters, m, {samples = 0})
  t.raises(F .. "pivoted must be a boolean (got number)", lucid.dynamics.base_parameters, m,
           {pivoted = 1})
  t.raises("lucid.dynamics.inertial_parameters: unknown option 'seed'",
           lucid.dynamics.inertial_parameters, m, {seed = 1})
end)
