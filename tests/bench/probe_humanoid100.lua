-- MuJoCo's humanoid100.xml (100 condim 4 cylinders dropped on 1 humanoid; libmujoco-samples):
-- the steps of the first N that end with an unconverged island (w:stats().converged false),
-- the worst NCP criterion of those steps and the run's wall time, for the file as it is
-- (condim 4: torsional friction, islands of dim 4) and with its cylinders made condim 3.
-- Usage: ./lucid tests/bench/probe_humanoid100.lua [steps=400]
local lucid = require "lucid"
local path = "/usr/share/mujoco/model/humanoid100/humanoid100.xml"
local steps = tonumber(arg[1] or 400)

local function run(file, label)
  local m = lucid.model.load(file)
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

run(path, "condim 4")
-- the same scene with condim 3 cylinders: a copy beside the original (its includes resolve)
local text = assert(io.open(path)):read("a")
local copy = path:gsub("humanoid100%.xml$", "")
local tmp = os.tmpname()
local f = assert(io.open(tmp, "w"))
f:write((text:gsub('condim="4"', 'condim="3"'):gsub('file="', 'file="' .. copy)))
f:close()
local ok, err = pcall(run, tmp, "condim 3")
os.remove(tmp)
if not ok then error(err) end
