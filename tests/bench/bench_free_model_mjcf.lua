-- bench_free_model.c's scene as the issue's user builds it: N free boxes (0.1 m, 1 kg) 5 cm
-- apart in one MJCF file resting on its own floor plane, against the same boxes added with
-- w:add_body on a halfspace (dt 5 ms, friction 0.5, the default world). Both settle 50 steps,
-- then 10 rounds of 20 steps alternate between them; prints each one's median ms/step (CPU
-- time), islands, and the ratio of the medians (docs/benchmarks/free_model.md).
--   build/lucid tests/bench/bench_free_model_mjcf.lua [N=250]
local lucid = require "lucid"

local N = tonumber(arg and arg[1]) or 250
local side, gap, half = math.ceil(math.sqrt(N)), 0.15, 0.05
local xml = {'<mujoco><option timestep="0.005"/><worldbody>',
             '<geom type="plane" size="0 0 1" friction="0.5"/>'}
local at = {}
for i = 0, N - 1 do
  local x, y = gap * (i % side), gap * (i // side)
  at[#at + 1] = {x, y, half + 0.002}
  xml[#xml + 1] = string.format('<body pos="%g %g %g"><freejoint/><geom type="box" ' ..
    'size="%g %g %g" mass="1" friction="0.5"/></body>', x, y, half + 0.002, half, half, half)
end
xml[#xml + 1] = '</worldbody></mujoco>'
local m = lucid.model.load_string(table.concat(xml))

local wm = lucid.world{dt = 0.005}
wm:add_model(m)
local wb = lucid.world{dt = 0.005}
wb:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
for _, p in ipairs(at) do
  wb:add_body{shape = lucid.box(half, half, half), mass = 1, friction = 0.5,
              pose = lucid.se3.new({1, 0, 0, 0}, p)}
end
wm:step(50)
wb:step(50)

local function round(w)
  local t = os.clock()
  w:step(20)
  return (os.clock() - t) / 20 * 1e3
end
local tm, tb = {}, {}
for r = 1, 10 do tm[r], tb[r] = round(wm), round(wb) end
local function median(t)
  table.sort(t)
  return (t[5] + t[6]) / 2
end
local mm, mb = median(tm), median(tb)
print(string.format("%d boxes: MJCF model %.3f ms/step (%d islands), bodies %.3f ms/step " ..
  "(%d islands), ratio %.2f", N, mm, wm:stats().islands, mb, wb:stats().islands, mm / mb))
