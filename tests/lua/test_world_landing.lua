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

-- A cube of side `size` and `mass`, released 0.2 size above its resting height, tilted and
-- spinning; returns the deepest penetration and the largest energy gain over 3 s.
local function drop(pair, size, mass, twist, spin)
  local w = lucid.world{dt = 0.005, contact = {model = pair[1], solver = pair[2]}}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
  local h = size / 2
  local pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 1.2 * size}) * lucid.se3.exp(lucid.vec(twist))
  w:add_body{shape = lucid.box(h, h, h), mass = mass, pose = pose, velocity = spin}
  local e0, gain, deepest = energy(w), 0, 0
  for _ = 1, 600 do
    w:step()
    gain = math.max(gain, energy(w) - e0)
    for _, c in ipairs(w:contacts()) do deepest = math.min(deepest, c.separation) end
  end
  return -deepest, gain / e0
end

t.case("a tumbling 1000 kg box and a 100 kg one land on the ground with every pair", function()
  local cases = {
    {1.0, 1000, {0, 0, 0, 0.3, 0.5, 0.2}, {0, 0, 0, 3, -2, 1}},
    {1.0, 1000, {0, 0, 0, -0.7, 0.2, 0.9}, {0, 0, 0, -1, 4, 2}},
    {0.1, 100, {0, 0, 0, 0.3, 0.5, 0.2}, {0, 0, 0, 30, -20, 10}},
  }
  for _, pair in ipairs(PAIRS) do
    for i, c in ipairs(cases) do
      local depth, gain = drop(pair, table.unpack(c))
      local name = string.format("%s:%s case %d", pair[1], pair[2], i)
      t.truthy(depth <= 5e-3, name .. string.format(": penetration %.3g m", depth))
      t.truthy(gain <= 1e-6, name .. string.format(": energy gain %.3g of E0", gain))
    end
  end
end)
