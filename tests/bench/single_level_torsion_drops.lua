-- Random box drops in the single-level step, with and without torsional friction
-- (docs/single_level.md "Torsional friction"): the task's box (0.4 x 0.3 x 0.2 m, 1 kg, mu 0.5)
-- from 0.5 m in uniformly random orientations (seed 0), 1.5 s; how many still move after it
-- and how many of those spin about the vertical.
--   ./build/lucid tests/bench/single_level_torsion_drops.lua [torsion] [drops] [hz]
local torsion = tonumber(arg[1] or "0")
local drops = tonumber(arg[2] or "200")
local hz = tonumber(arg[3] or "100")
local BOX = lucid.box(0.2, 0.15, 0.1)
local rng = lucid.rng(0)
local moving, spinning, notconv, worst = 0, 0, 0, 0
local c0 = os.clock()
for i = 1, drops do
  local q, n = {}, 0
  for k = 1, 4 do q[k] = rng:normal(); n = n + q[k] ^ 2 end
  n = math.sqrt(n)
  for k = 1, 4 do q[k] = q[k] / n end
  local w = lucid.world{dt = 1 / hz, collision = "single_level"}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  local id = w:add_body{shape = BOX, mass = 1, friction = 0.5, torsion = torsion, pose = lucid.se3.new(q, {0, 0, 0.5})}
  local nc = 0
  for _ = 1, math.floor(1.5 * hz + 0.5) do w:step(); if not w:stats().converged then nc = nc + 1 end end
  if nc > 0 then notconv = notconv + 1 end
  local v = w:velocity(id)
  local lin = math.sqrt(v[1]^2 + v[2]^2 + v[3]^2)
  local ang = math.sqrt(v[4]^2 + v[5]^2 + v[6]^2)
  if lin > 1e-3 or ang > 1e-3 then moving = moving + 1 end
  if math.abs(v[6]) > 1e-3 and math.abs(v[6]) > 0.9 * ang then spinning = spinning + 1 end
  worst = math.max(worst, ang)
end
print(string.format("torsion %g: %d of %d drops moving after 1.5 s (%d spinning about z), max |w| %.3g, %d with an unconverged step, %.1f s",
  torsion, moving, drops, spinning, worst, notconv, os.clock() - c0))
