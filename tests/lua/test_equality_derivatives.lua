-- w:step_derivatives on worlds with equality constraints (MJCF <equality> connect and joint,
-- URDF mimic; docs/step_derivatives.md, "Equality constraints"): the implicit derivatives equal
-- central differences of whole steps (solved to 1e-13) within 1e-6 relative, best of h = 1e-4,
-- 1e-5, 3e-6 as tests/lua/test_step_derivatives.lua's check_against_fd: a four-bar swinging
-- freely and driven by a motor and a servo, a polynomial joint coupling across two trees, the
-- same coupling of fixed and of spatial tendons (<equality><tendon>), welds
-- on free joints, a mimic gripper on its limits and the four-bar's crank resting on a block
-- (contact and loop); the relaxed method on the four-bar, the coupling, the welds and the
-- mimic gripper.
-- Without the stabilisation's Jacobian the four-bar and the coupling are off by 2e-6 and 4e-6;
-- with the constraint rows left at the end of the last integration, by 1e-2.
local t = require "testing"
local lucid = require "lucid"

local function maxabs(M)
  local m = 0
  for i = 1, M:rows() do for j = 1, M:cols() do m = math.max(m, math.abs(M:get(i, j))) end end
  return m
end

-- max |P - Q| / max(|Q|, floor) over the entries
local function rel(P, Q, floor)
  return maxabs(P - Q) / math.max(maxabs(Q), floor)
end

local function check_against_fd(name, w, opts)
  local x, u = w:state(), w:controls()
  local D = w:step_derivatives(opts or {})
  local best = {A = math.huge, B = math.huge}
  for _, h in ipairs{1e-4, 1e-5, 3e-6} do
    w:set_state(x)
    w:set_controls(u)
    local F = w:step_derivatives{method = "finite_differences", step = h, tol = 1e-13,
                                 max_iter = 100000}
    local eA, eB = rel(D.A, F.A, 1), rel(D.B, F.B, 1e-3)
    best.A, best.B = math.min(best.A, eA), math.min(best.B, eB)
    print(string.format("%s: h = %.0e: A %.1e, B %.1e", name, h, eA, eB))
  end
  for key, e in pairs(best) do
    t.truthy(e <= 1e-6, name .. ": block " .. key .. " relative error " .. e)
  end
  return D
end

local function world(model)
  local w = lucid.world{dt = 0.002, gravity = {0, 0, -9.81}}
  return w, w:add_model(model)
end

-- The model of `path` with `from` replaced by `to`.
local function edited(path, from, to)
  local text = io.open(path):read("a")
  local out_text = text:gsub(from, to)
  t.truthy(out_text ~= text, "the edit applies")
  return lucid.model.load_string(out_text, {base_dir = path:match("^(.*)/") or ""})
end

local fourbar = "tests/data/model/mjcf_fourbar.xml" -- ctest runs from the repository root

t.case("a swinging four-bar (connect): A equals finite differences; the step is w:step()'s", function()
  local w, id = world(lucid.model.load(fourbar))
  for _ = 1, 50 do w:step() end
  local x = w:state()
  local D = check_against_fd("four-bar", w)
  t.truthy(maxabs(D.A) > 0.5)
  -- the derivatives' step is the world's own
  local c = world(lucid.model.load(fourbar))
  c:set_state(x)
  c:step()
  w:set_state(x)
  w:step_derivatives{}
  t.truthy((w:q(id) - c:q(id)):norm() == 0)
end)

t.case("a four-bar driven by a motor and a position servo: A and B equal finite differences", function()
  local m = edited(fourbar, "</mujoco>",
                   '<actuator><motor joint="a" gear="2"/><position joint="c" kp="5"/></actuator></mujoco>')
  local w = world(m)
  w:set_controls{0.3, 0.2}
  for _ = 1, 30 do w:step() end
  local D = check_against_fd("driven four-bar", w)
  t.truthy(maxabs(D.B) > 1e-3, "the inputs move the step")
end)

t.case("a polynomial joint coupling across two trees: A equals finite differences", function()
  local w = world(lucid.model.load("tests/data/model/mjcf_joint_coupling.xml"))
  for _ = 1, 50 do w:step() end
  check_against_fd("joint coupling", w)
end)

t.case("a polynomial coupling of fixed tendons (<equality><tendon>): A equals finite differences", function()
  local w = world(lucid.model.load("tests/data/model/mjcf_tendon_coupling.xml"))
  for _ = 1, 50 do w:step() end
  check_against_fd("tendon coupling", w)
end)

t.case("couplings of spatial tendons (wraps, a pulley): A equals finite differences", function()
  local w = world(lucid.model.load("tests/data/model/mjcf_tendon_equality_spatial.xml"))
  for _ = 1, 50 do w:step() end
  check_against_fd("spatial tendon coupling", w)
end)

t.case("welds on free joints (an arm carrying a box, a box hanging by a ball): A equals differences", function()
  local w = world(lucid.model.load("tests/data/model/mjcf_weld.xml"))
  for _ = 1, 100 do w:step() end
  check_against_fd("welds", w)
end)

t.case("a mimic gripper near its fingers' limits: A and B equal finite differences", function()
  local w, id = world(lucid.model.load("tests/data/model/urdf_mimic_gripper.urdf"))
  for _ = 1, 50 do w:step() end
  local q = w:q(id)
  t.truthy(q[2] > 0 and math.abs(q[3] - q[2]) < 1e-12, "finger 2 mimics finger 1 off its limit")
  local D = check_against_fd("mimic gripper", w)
  t.truthy(#D.contacts > 0, "the fingers' limit rows are in the step")
end)

t.case("a four-bar's crank resting on a block (contact on a closed loop)", function()
  local w = world(lucid.model.load("tests/data/model/mjcf_fourbar_floor.xml"))
  for _ = 1, 200 do w:step() end
  local D = check_against_fd("four-bar on a block", w)
  t.eq(#D.contacts, 1)
  t.eq(D.contacts[1].mode, "sticking")
  t.eq(D.fallback_columns, 0)
end)

t.case("the relaxed method through equality rows: A and B equal finite differences", function()
  -- relaxed smooths only the contact solution: with or without contacts the projection and
  -- the stabilisation are differentiated as by the implicit method
  for _, case in ipairs{{fourbar, 50}, {"tests/data/model/mjcf_joint_coupling.xml", 50},
                        {"tests/data/model/mjcf_weld.xml", 100},
                        {"tests/data/model/urdf_mimic_gripper.urdf", 50}} do
    local w = world(lucid.model.load(case[1]))
    for _ = 1, case[2] do w:step() end
    check_against_fd(case[1]:match("[^/]*$") .. " (relaxed)", w, {method = "relaxed"})
  end
end)

t.case("a single_level world with equality rows refuses by name", function()
  local w = lucid.world{dt = 0.002, collision = "single_level"}
  w:add_model(lucid.model.load(fourbar))
  t.raises("equality constraints (MJCF <equality>, URDF mimic) in a single_level world",
           w.step_derivatives, w, {method = "relaxed"})
end)
