-- humanoid100.xml (MuJoCo's bin of 100 objects, its cylinders condim 4: torsional friction)
-- stepped at the default options: ms/step of N steps after `settle` untimed ones, the steps with
-- an unconverged island, iterations a step, the worst NCP criterion. Recorded in
-- docs/benchmarks/robot_step.md (torsional islands in body space).
--   ./lucid tests/bench/bench_humanoid100_torsion.lua [THRESHOLD] [N] [SETTLE]
-- THRESHOLD: the world's sparse_threshold (-1: automatic, a huge one: every island dense).
local lucid = require "lucid"
local threshold = math.tointeger(tonumber(arg[1] or "-1"))
local N = math.tointeger(tonumber(arg[2] or "200"))
local settle = math.tointeger(tonumber(arg[3] or "0"))
local m = lucid.model.load("/usr/share/mujoco/model/humanoid100/humanoid100.xml")
local w = lucid.world{dt = m.timestep, sparse_threshold = threshold}
w:add_model(m)
if settle > 0 then w:step(settle) end
local t0 = os.clock()
local unconverged, iterations, worst = 0, 0, 0
for _ = 1, N do
  w:step()
  local s = w:stats()
  if not s.converged then unconverged = unconverged + 1 end
  iterations = iterations + s.iterations
  worst = math.max(worst, s.residual)
end
local t1 = os.clock()
print(string.format("settle %d, threshold %d: %d steps %.3f ms/step, unconverged %d, " ..
                    "iterations/step %.1f, worst residual %.3g, contacts %d", settle, threshold, N,
                    (t1 - t0) / N * 1e3, unconverged, iterations / N, worst, #w:contacts()))
