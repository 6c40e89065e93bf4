-- Heavy tumbling boxes land with every contact model x solver pair: no step may leave a
-- pressing contact without force (an unconverged or rejected answer replaced by λ = 0 let a
-- 1 m, 1000 kg box sink 0.39 m under raisim:bisection, then threw it out with 7x its energy).
local t = require "testing"
local lucid = require "lucid"

local PAIRS = t.CONTACT_PAIRS

local function energy(w)
  local e = w:energy()
  return e.kinetic + e.potential
end

-- A cube of side `size` and `mass`, its centre released at `height` sizes (1.2: 0.2 size above
-- its resting height), tilted and spinning: a body, or with `mjcf` a model's free joint.
local function cube_world(pair, size, mass, twist, spin, o)
  local w = lucid.world{dt = 0.005, contact = {model = pair[1], solver = pair[2],
                                               max_iter = o.max_iter}}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
  local h, z = size / 2, (o.height or 1.2) * size
  local pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, z}) * lucid.se3.exp(lucid.vec(twist))
  if not o.mjcf then
    w:add_body{shape = lucid.box(h, h, h), mass = mass, pose = pose, velocity = spin}
    return w
  end
  local m = lucid.model.load_string(string.format([[<mujoco><worldbody><body name="box"><freejoint/>
    <geom type="box" size="%.17g %.17g %.17g" mass="%.17g"/></body></worldbody></mujoco>]],
                        h, h, h, mass))
  local r, p = pose:quat(), pose:translation()
  -- the free joint's twist is in the body frame: the spin's world angular velocity turned back
  local wb = pose:rotation():T() * lucid.vec{spin[4], spin[5], spin[6]}
  w:add_model(m, {q = {p[1], p[2], p[3], r[1], r[2], r[3], r[4]}, v = {0, 0, 0, wb[1], wb[2], wb[3]}})
  return w
end

-- Steps the cube `steps` times; returns the deepest penetration, the largest energy gain over
-- the start (a fraction of it) and the steps on which a contact deeper than 1 mm had no force.
local function drop(pair, size, mass, twist, spin, o)
  o = o or {}
  local w = cube_world(pair, size, mass, twist, spin, o)
  local e0, gain, deepest, unpressed = energy(w), 0, 0, 0
  for _ = 1, o.steps or 600 do
    w:step()
    gain = math.max(gain, energy(w) - e0)
    local deep, pressed = false, false
    for _, c in ipairs(w:contacts()) do
      deepest = math.min(deepest, c.separation)
      deep, pressed = deep or c.separation < -1e-3, pressed or c.lambda[3] > 0
    end
    if deep and not pressed then unpressed = unpressed + 1 end
  end
  return -deepest, gain / e0, unpressed
end

t.case("a tumbling 1000 kg box and a 100 kg one land on the ground with every pair", function()
  local cases = {
    {1.0, 1000, {0, 0, 0, 0.3, 0.5, 0.2}, {0, 0, 0, 3, -2, 1}},
    {1.0, 1000, {0, 0, 0, -0.7, 0.2, 0.9}, {0, 0, 0, -1, 4, 2}},
    {0.1, 100, {0, 0, 0, 0.3, 0.5, 0.2}, {0, 0, 0, 30, -20, 10}},
  }
  for _, pair in ipairs(PAIRS) do
    for i, c in ipairs(cases) do
      local depth, gain = drop(pair, c[1], c[2], c[3], c[4])
      local name = string.format("%s:%s case %d", pair[1], pair[2], i)
      t.truthy(depth <= 5e-3, name .. string.format(": penetration %.3g m", depth))
      t.truthy(gain <= 1e-6, name .. string.format(": energy gain %.3g of E0", gain))
    end
  end
end)

-- Harder landings than the case above: the 1 m box's centre released at 3 m, the 10 cm box at
-- 1 m (4.4 m/s), the 1 m box as an MJCF free joint; and with max_iter = 3, where most steps end
-- unconverged, the answer kept still presses a sinking contact and adds no energy.
t.case("the tumbling boxes land from higher, as free joints, and capped at 3 iterations", function()
  local twist, spin = {0, 0, 0, 0.3, 0.5, 0.2}, {0, 0, 0, 3, -2, 1}
  local cases = {
    {"from 3 m", 1.0, 1000, spin, {height = 3, steps = 300}},
    {"10 cm from 1 m", 0.1, 100, {0, 0, 0, 30, -20, 10}, {height = 10, steps = 300}},
    {"MJCF free joint", 1.0, 1000, spin, {mjcf = true, steps = 300}},
  }
  for _, pair in ipairs(PAIRS) do
    for _, c in ipairs(cases) do
      local depth, gain, unpressed = drop(pair, c[2], c[3], twist, c[4], c[5])
      local name = string.format("%s:%s %s", pair[1], pair[2], c[1])
      t.truthy(depth <= 5e-3, name .. string.format(": penetration %.3g m", depth))
      t.truthy(gain <= 1e-6, name .. string.format(": energy gain %.3g of E0", gain))
      t.eq(unpressed, 0, name .. ": steps with a deep contact and no force")
    end
    local _, gain, unpressed = drop(pair, 1.0, 1000, twist, spin, {max_iter = 3, steps = 300})
    local name = pair[1] .. ":" .. pair[2] .. " max_iter 3"
    t.truthy(gain <= 1e-6, name .. string.format(": energy gain %.3g of E0", gain))
    t.eq(unpressed, 0, name .. ": steps with a deep contact and no force")
  end
end)
