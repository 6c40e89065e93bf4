-- The cost of MJCF <pair> support to a model without pairs: CPU time of w:step() with the
-- humanoid lying on its floor (13 contacts each step), the best of 5 runs of 1000 steps.
-- Usage: ./build/lucid tests/bench/probe_pair_overhead.lua (docs/benchmarks/collision.md)
local m = lucid.model.load("/usr/share/mujoco/model/humanoid/humanoid.xml")
local q = m:neutral()
q[3], q[4], q[5], q[6], q[7] = 0.065 - 1.282, math.sqrt(0.5), 0, -math.sqrt(0.5), 0
local w = lucid.world{dt = 0.002}
w:add_model(m, {q = q})
w:step(100)
local x = w:state()
local best = math.huge
for _ = 1, 5 do
  w:set_state(x)
  local t0 = os.clock()
  for _ = 1, 1000 do w:step() end
  best = math.min(best, (os.clock() - t0) / 1000 * 1e3)
end
print(string.format("%.4f ms/step, %d contacts", best, #w:contacts()))
