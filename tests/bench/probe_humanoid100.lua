-- MuJoCo's humanoid100.xml (100 condim 4 cylinders dropped on 1 humanoid; libmujoco-samples):
-- the steps of the first N that end with an unconverged island (w:stats().converged false),
-- the worst NCP criterion of those steps and the run's wall time, for the file as it is
-- (condim 4: torsional friction, islands of dim 4) and with its cylinders made condim 3.
-- Usage: ./lucid tests/bench/probe_humanoid100.lua [steps=400]
local lucid = require "lucid"
local path = "/usr/share/mujoco/model/humanoid100/humanoid100.xml"
local steps = tonumber(arg[1] or 400)

local function run(m, label)
  local w = lucid.world{dt = m.timestep}
  w:add_model(m)
  local bad, worst, t0 = 0, 0, os.clock()
  for _ = 1, steps do
    w:step(1)
    local s = w:stats()
    if not s.converged then
      bad = bad + 1
      worst = math.max(worst, s.residual)
    end
  end
  print(string.format("%-8s %d of %d steps unconverged (worst NCP criterion %.3g), %.1f s", label,
                      bad, steps, worst, os.clock() - t0))
end

run(lucid.model.load(path), "condim 4")
-- the same scene with condim 3 cylinders, its include beside the original
local text = assert(io.open(path)):read("a")
run(lucid.model.load_string((text:gsub('condim="4"', 'condim="3"')),
                            {base_dir = path:match("^(.*)/")}), "condim 3")
