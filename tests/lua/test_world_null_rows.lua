-- Contact rows no degree of freedom can move (solvers/contact/contact_null_rows.c): a planar
-- two-link arm on its floor (the rows along the hinge axis are exactly zero), a turntable
-- resting on the ground (its normal row is zero: nothing can press it) step with every contact
-- model x solver pair.
local t = require "testing"
local lucid = require "lucid"

local PAIRS = t.CONTACT_PAIRS

local PLANAR = [[
<mujoco model="planar2">
  <option timestep="0.005"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="l1" pos="0 0 0.6">
      <joint name="j1" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04" mass="1"/>
      <body name="l2" pos="0.5 0 0">
        <joint name="j2" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04" mass="1"/>
      </body>
    </body>
  </worldbody>
</mujoco>]]

-- A 0.6 m square table on a vertical hinge, pressed 2 mm into the ground: every contact's normal row
-- is zero (the hinge carries its weight), so no contact may brake its spin.
local TURNTABLE = [[
<mujoco model="turntable">
  <option timestep="0.005"/>
  <worldbody>
    <body name="table" pos="0 0 0.018">
      <joint name="spin" type="hinge" axis="0 0 1"/>
      <geom type="box" size="0.3 0.3 0.02" mass="2"/>
    </body>
  </worldbody>
</mujoco>]]

local function world_of(xml, pair, q, v, ground)
  local m = lucid.model.load_string(xml)
  local w = lucid.world{dt = m.timestep, contact = {model = pair[1], solver = pair[2]}}
  if ground then w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)} end
  local id = w:add_model(m, {q = q, v = v})
  return w, id
end

t.case("a planar two-link arm lands on its floor and comes to rest with every pair", function()
  for _, pair in ipairs(PAIRS) do
    local name = pair[1] .. ":" .. pair[2]
    local w, id = world_of(PLANAR, pair)
    local touched = false
    for _ = 1, 600 do
      w:step()
      for _, c in ipairs(w:contacts()) do
        touched = true
        -- the hinge axis (y) is a direction nothing moves: its friction force is zero
        local f = c.force
        t.truthy(math.abs(f[2]) <= 1e-9 * (1 + math.abs(f[3])), name .. ": no force along y")
      end
    end
    t.truthy(touched, name .. ": the arm reaches the floor")
    local v = w:v(id)
    t.truthy(math.abs(v[1]) < 1e-2 and math.abs(v[2]) < 1e-2, name .. ": at rest")
  end
end)

t.case("a turntable resting on the ground spins freely with every pair", function()
  for _, pair in ipairs(PAIRS) do
    local name = pair[1] .. ":" .. pair[2]
    local w, id = world_of(TURNTABLE, pair, {0}, {2}, true)
    local converged = 0
    for _ = 1, 100 do
      w:step()
      if w:stats().converged then converged = converged + 1 end
    end
    t.truthy(#w:contacts() > 0, name .. ": it touches the ground")
    -- each contact's tangential block has rank 1 (only the spin moves it): raisim:bisection's
    -- per-contact map had no inverse there and no step converged
    t.eq(converged, 100, name .. ": steps converged")
    -- no torque acts about the hinge: the spin is kept (the integrator's own error only)
    t.near(w:v(id)[1], 2, 1e-9, name .. ": spin kept")
  end
end)
