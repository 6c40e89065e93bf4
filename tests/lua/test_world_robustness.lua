-- Mechanisms whose contact blocks are singular, under every contact model x solver pair
-- (issue 32's robustness scenes; the sweep: tests/bench/probe_robustness.lua,
-- docs/benchmarks/robustness.md): a one-link pendulum lands on its floor (each contact point
-- moves along one direction only: its 3 x 3 block has rank 1), and the Allegro hand on a free
-- joint, turned palm down, falls on a floor. Each lands without sinking or gaining energy. A
-- floor through the fixed hand's palm keeps every state finite.
local t = require "testing"
local lucid = require "lucid"

local PAIRS = t.CONTACT_PAIRS
local SHARED = os.getenv("LUCID_SHARED_DIR") or "../shared"
local HAND = SHARED .. "/data/robots/allegro_right_hand.xml"

-- Kinetic + potential energy + the position servos' 1/2 kp (u - gear q)^2 (inputs clamped
-- into their ranges as the world does); the world's one model comes first in w:controls().
local function energy(w, id, m)
  local e = w:energy()
  local q, u, acts = w:q(id), w:controls(), m:actuators()
  local servo = 0
  for i, a in ipairs(acts) do
    local r = a.ctrl_range
    local ui = r and math.min(math.max(u[i], r[1]), r[2]) or u[i]
    servo = servo + 0.5 * a.kp * (ui - a.gear * q[a.coord]) ^ 2
  end
  return e.kinetic + e.potential + servo
end

-- Steps w, returning the deepest contact (limits aside), the largest energy gain over the
-- start and whether every state stayed finite.
local function land(w, id, m, steps)
  local e0, gain, deepest, finite = energy(w, id, m), 0, 0, true
  for _ = 1, steps do
    w:step()
    local x = w:state()
    for i = 1, #x do finite = finite and x[i] == x[i] and math.abs(x[i]) < math.huge end
    for _, c in ipairs(w:contacts()) do
      if not c.limit then deepest = math.max(deepest, -c.separation) end
    end
    gain = math.max(gain, energy(w, id, m) - e0)
  end
  return deepest, gain, e0, finite
end

-- The floor is a static halfspace of the world, not a geom of the file.
local PENDULUM = [[
<mujoco model="pendulum">
  <option timestep="0.005"/>
  <worldbody>
    <body name="l1" pos="0 0 0.3">
      <joint name="j1" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04" mass="1"/>
    </body>
  </worldbody>
</mujoco>]]

t.case("a one-link pendulum lands on its floor with every pair", function()
  local m = lucid.model.load_string(PENDULUM)
  for _, pair in ipairs(PAIRS) do
    local name = pair[1] .. ":" .. pair[2]
    local w = lucid.world{dt = 0.005, contact = {model = pair[1], solver = pair[2]}}
    w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
    local id = w:add_model(m)
    local deepest, gain, e0, finite = land(w, id, m, 200)
    t.truthy(finite, name .. ": finite state")
    -- it rests at slop/2 = 5e-5 m; raisim:bisection left the contact without force: 0.24 m
    t.truthy(deepest > 0 and deepest <= 1e-3, name .. string.format(": depth %.3g m", deepest))
    t.truthy(gain <= 1e-9 * e0, name .. string.format(": energy gain %.3g J", gain))
    -- the link lies on the floor: sin q = (0.3 - 0.04) / 0.5 for the capsule's far end
    t.near(w:q(id)[1], math.asin(0.26 / 0.5), 2e-3, name .. ": at rest on the floor")
  end
end)

t.case("the Allegro hand on a free joint falls palm down on a floor with every pair", function()
  local f = io.open(HAND)
  if not f then t.skip("needs " .. HAND .. " (LUCID_SHARED_DIR)") end
  local text = f:read("a")
  f:close()
  local m = lucid.model.load_string((text:gsub('(<body name="palm"[^>]*>)',
                                               '%1<freejoint name="palm"/>', 1)),
                                    {base_dir = HAND:match("^(.*)/") or ""})
  -- the palm's placement turns its x onto the world's z: 0.1 up, then a half turn about the
  -- world's y; the thumb's base starts inside its range (its q = 0 is below it)
  local q = m:neutral()
  q[1], q[4], q[5], q[6], q[7] = 0.1, 0, 0, 1, 0
  local lower = m:limits()
  for i = 8, m.nq do q[i] = math.max(q[i], lower[i]) end
  for _, pair in ipairs(PAIRS) do
    local name = pair[1] .. ":" .. pair[2]
    local w = lucid.world{dt = 0.002, contact = {model = pair[1], solver = pair[2]}}
    w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
    local id = w:add_model(m, {q = q})
    local deepest, gain, e0, finite = land(w, id, m, 150)
    t.truthy(finite, name .. ": finite state")
    t.truthy(deepest > 0 and deepest <= 1e-3, name .. string.format(": depth %.3g m", deepest))
    t.truthy(gain <= 1e-9 * math.abs(e0), name .. string.format(": energy gain %.3g J", gain))
  end
end)

-- The floor through the palm of the fixed hand: the fingers' base links, each on a hinge about
-- its own long axis, sit centred in it, so no motion can separate them and no answer meets
-- tol (docs/benchmarks/robustness.md). The state must stay finite: ccp:pgs's sweeps diverged
-- here (criterion 4e55 at step 1, NaN by step 5) before their steps were capped at the
-- stability limit (contact.md).
t.case("a floor through the Allegro hand's palm keeps the state finite with every pair", function()
  local f = io.open(HAND)
  if not f then t.skip("needs " .. HAND .. " (LUCID_SHARED_DIR)") end
  f:close()
  local m = lucid.model.load(HAND)
  for _, pair in ipairs(PAIRS) do
    local w = lucid.world{dt = 0.002, contact = {model = pair[1], solver = pair[2]}}
    w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
    w:add_model(m)
    for k = 1, 6 do
      w:step()
      local x = w:state()
      for i = 1, #x do
        t.truthy(math.abs(x[i]) < math.huge, pair[1] .. ":" .. pair[2] .. " finite at step " .. k)
      end
    end
  end
end)
