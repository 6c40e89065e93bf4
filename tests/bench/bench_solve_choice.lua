-- Convergence and cost of one contact model:solver pair on the everyday scenes of issue 32's
-- table that bench_bin does not build: a stack of 10 boxes, a pyramid of 15, MuJoCo's
-- humanoid dropped on its floor and the Allegro hand closing on its cube (needs ../shared).
--   ./lucid tests/bench/bench_solve_choice.lua [MODEL:SOLVER]   (default: the world's default)
-- Prints per scene the share of steps whose stats.converged held, the solver iterations per
-- step and the CPU ms per step (os.clock: the process's CPU time, so a loaded machine
-- inflates it less than wall time). Recorded in docs/benchmarks/solve_choice.md.
local lucid = require "lucid"
local pair = arg[1] or "default"
local M, S = pair:match("(%w+):(%w+)")
local function world(dt)
  return lucid.world{dt = dt or 0.005, contact = M and {model = M, solver = S} or nil}
end
local function run(name, w, steps)
  local conv, it = 0, 0
  local t0 = os.clock()
  for _ = 1, steps do
    w:step()
    local s = w:stats()
    if s.converged then conv = conv + 1 end
    it = it + s.iterations
  end
  print(string.format("%-10s %-16s %6.2f%% converged of %d steps, %6.1f iterations/step, %.3f ms/step CPU",
    pair, name, 100 * conv / steps, steps, it / steps, 1000 * (os.clock() - t0) / steps))
end
local function ground(w) w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5} end
local function box(w, x, y, z, h)
  return w:add_body{shape = lucid.box(h, h, h), mass = 1000 * 8 * h^3, pose = lucid.se3.new({1,0,0,0}, {x, y, z}), friction = 0.5}
end
-- stack of 10 boxes
local w = world(); ground(w)
for i = 0, 9 do box(w, 0, 0, 0.1 + 0.2 * i + 0.001 * i, 0.1) end
run("stack 10", w, 400)
-- pyramid of 15 boxes (rows 5..1)
w = world(); ground(w)
for r = 0, 4 do for c = 0, 4 - r do box(w, (c - (4 - r) / 2) * 0.21, 0, 0.1 + 0.2 * r + 0.001 * r, 0.1) end end
run("pyramid 15", w, 400)
-- the robots' scenes (robot_scenes.lua, beside this script)
local robots = dofile((arg[0]:match("^(.*/)") or "./") .. "robot_scenes.lua")
local control, boxes
w, control, boxes = robots.arm7(world)
local start = {}
for i = 1, 4 do start[i] = w:pose(boxes[i]):translation() end
do
  local conv, it, steps = 0, 0, 2000
  local t0 = os.clock()
  for s = 1, steps do
    control(s)
    w:step()
    local st = w:stats()
    if st.converged then conv = conv + 1 end
    it = it + st.iterations
  end
  local pushed = 0
  for i = 1, 4 do pushed = math.max(pushed, (w:pose(boxes[i]):translation() - start[i]):norm()) end
  print(string.format("%-10s %-16s %6.2f%% converged of %d steps, %6.1f iterations/step, %.3f ms/step CPU" ..
    " (boxes pushed up to %.2f m)", pair, "arm7 pushing", 100 * conv / steps, steps, it / steps,
    1000 * (os.clock() - t0) / steps, pushed))
end
run("humanoid", robots.humanoid(world), 400)
local why
w, why = robots.allegro(world)
if w then
  run("allegro grasp", w, 1000)
else
  print("allegro grasp: skipped (" .. why .. ")")
end
