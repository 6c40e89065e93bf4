-- Time of w:step_derivatives() (implicit, defaults) on a settled mixed pile (bench_bin's recipe,
-- tests/bench/pile_scene.lua, 24 objects, ncp/admm, settled 2 s) or MuJoCo's humanoid lying on
-- its floor (settled 2 s): median and best CPU time of N calls from the same state.
-- docs/benchmarks/world_data.md.
--   OPENBLAS_NUM_THREADS=1 build/lucid tests/bench/bench_step_derivatives_pile.lua pile|humanoid [N]
local lucid = require "lucid"
local scene, N = arg[1] or "pile", tonumber(arg[2] or "50")
local w
if scene == "pile" then
  w = dofile("tests/bench/pile_scene.lua")(24, "ncp", "admm")
  for _ = 1, 400 do w:step() end
elseif scene == "humanoid" then
  w = lucid.world{dt = 0.002}
  w:add_model(lucid.model.load("/usr/share/mujoco/model/humanoid/humanoid.xml"))
  for _ = 1, 1000 do w:step() end
else
  error("bench_step_derivatives_pile: scene must be pile or humanoid")
end
local x, t = w:state(), {}
for k = 1, N do
  w:set_state(x)
  local c = os.clock()
  w:step_derivatives()
  t[k] = os.clock() - c
end
table.sort(t)
print(string.format("%s: %d contacts, median %.1f us, best %.1f us", scene, #w:contacts(),
                    1e6 * t[(N + 1) // 2], 1e6 * t[1]))
